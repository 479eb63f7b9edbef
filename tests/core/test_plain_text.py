"""kistore.core._plain_text: whitespace, marks and scripts of identifying strings (KI104).

Review r72-6 (U+1680, U+2028, U+2029 and combining marks over ASCII were accepted) and
r72-7 (the advice for a tab joined the words; for a Han or Kana name it said to retype a
Latin letter in Han). unicodedata is Python's: Unicode 14.0 in 3.11, 15.0 in 3.12.
"""

from __future__ import annotations

import ast
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core._plain_text import (
    CONTROL_NAMES,
    char_name,
    mixed_script,
    other_whitespace,
    plain,
    stray_mark,
)
from kistore.core.text_fields import _identifying_problem, identifying_problems

WHY = ("identifying strings must be plain text, or one GPU, name or key becomes "
       "two that print alike")

WHITE_SPACE = [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
               0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
"""Unicode's White_Space property, copied from PropList.txt (15.1; the same since 6.3, which
took U+180E out): the oracle, as unicodedata does not expose the property."""


def problem(product: str) -> str | None:
    """The finding of an environment whose hardware.product is ``product``, or None."""
    env = {"kind": "ExecutionEnvironment", "spec": {"hardware": {"product": product}}}
    errors = identifying_problems(env)
    assert [e.pointer for e in errors] in ([], ["/spec/hardware/product"])
    return errors[0].message if errors else None


def test_every_white_space_and_separator_but_space_is_refused_between_words():
    separators = [p for p in range(0x110000) if unicodedata.category(chr(p))[0] == "Z"]
    assert len(separators) == 19 and 0x1680 in separators and 0x2029 in separators
    for point in sorted(set(WHITE_SPACE) | set(separators)):
        c = chr(point)
        assert other_whitespace(c) == (c != " "), hex(point)
        if c == " ":
            continue
        value = f"NVIDIA{c}B200"
        name = char_name(c)
        assert name, hex(point)  # the controls by their alias
        assert problem(value) == (
            f"{value!r} holds U+{point:04X} {name} at character 7, whitespace other than "
            f"U+0020 SPACE (the only whitespace allowed, one between words; {WHY}): "
            "write 'NVIDIA B200'"), hex(point)
        assert problem(c + "B200").endswith(f"leading whitespace ({WHY}): write 'B200'")
        assert problem("B200" + c).endswith(f"trailing whitespace ({WHY}): write 'B200'")


def test_the_control_aliases_are_unicodes():
    for point, name in CONTROL_NAMES.items():
        assert unicodedata.lookup(name) == chr(point)
        assert chr(point).isspace()
    assert char_name("\x07") == "" and char_name("A") == "LATIN CAPITAL LETTER A"


@pytest.mark.parametrize(("value", "message"), [
    # r72-7: a tab was "a control character ...: write 'NVIDIAB200'", the words joined
    ("NVIDIA\tB200", "'NVIDIA\\tB200' holds U+0009 CHARACTER TABULATION at character 7, "
                     "whitespace other than U+0020 SPACE (the only whitespace allowed, one "
                     f"between words; {WHY}): write 'NVIDIA B200'"),
    ("NVIDIA\t\tB200", "'NVIDIA\\t\\tB200' holds U+0009 CHARACTER TABULATION at character 8, "
                       "whitespace after whitespace (one U+0020 SPACE between words; "
                       f"{WHY}): write 'NVIDIA B200'"),
    ("NVIDIA \tB200", "'NVIDIA \\tB200' holds U+0009 CHARACTER TABULATION at character 8, "
                      "whitespace after whitespace (one U+0020 SPACE between words; "
                      f"{WHY}): write 'NVIDIA B200'"),
    ("NVIDIA B200\n", "'NVIDIA B200\\n' holds U+000A LINE FEED at character 12, trailing "
                      f"whitespace ({WHY}): write 'NVIDIA B200'"),
    # r72-6: accepted before, none has an NFKC mapping
    ("NVIDIA\u1680B200", "'NVIDIA\\u1680B200' holds U+1680 OGHAM SPACE MARK at character 7, "
                         "whitespace other than U+0020 SPACE (the only whitespace allowed, "
                         f"one between words; {WHY}): write 'NVIDIA B200'"),
    ("NVIDIA\u2028B200", "'NVIDIA\\u2028B200' holds U+2028 LINE SEPARATOR at character 7, "
                         "whitespace other than U+0020 SPACE (the only whitespace allowed, "
                         f"one between words; {WHY}): write 'NVIDIA B200'"),
    ("NVIDIA\u2029B200", "'NVIDIA\\u2029B200' holds U+2029 PARAGRAPH SEPARATOR at character "
                         "7, whitespace other than U+0020 SPACE (the only whitespace allowed, "
                         f"one between words; {WHY}): write 'NVIDIA B200'"),
])
def test_whitespace_other_than_space_is_refused_and_the_advice_keeps_the_words(value,
                                                                                message):
    assert problem(value) == message


MARK = "a combining mark must belong to a non-ASCII letter, as in the writing of its script"


@pytest.mark.parametrize(("value", "message"), [
    ("A100\u0301", "'A100\u0301' holds U+0301 COMBINING ACUTE ACCENT at character 5, a "
                   "combining mark on U+0030 DIGIT ZERO, not a letter "
                   f"({MARK}; {WHY}): write 'A100'"),
    ("H\u0336100", "'H\u0336100' holds U+0336 COMBINING LONG STROKE OVERLAY at character 2, a "
                   "combining mark on U+0048 LATIN CAPITAL LETTER H, an ASCII letter "
                   f"({MARK}; {WHY}): write 'H100'"),
    ("x\u0304 mean", "'x\u0304 mean' holds U+0304 COMBINING MACRON at character 2, a "
                     "combining mark on U+0078 LATIN SMALL LETTER X, an ASCII letter "
                     f"({MARK}; {WHY}): write 'x mean'"),
    ("\u0301H100", "'\u0301H100' holds U+0301 COMBINING ACUTE ACCENT at character 1, a "
                   f"combining mark with no letter before it ({MARK}; {WHY}): write 'H100'"),
    ("H100 \u0308", "'H100 \u0308' holds U+0308 COMBINING DIAERESIS at character 6, a "
                    "combining mark on U+0020 SPACE, not a letter "
                    f"({MARK}; {WHY}): write 'H100'"),
    ("\u0436\u20dd", "'\u0436\u20dd' holds U+20DD COMBINING ENCLOSING CIRCLE at character 2, "
                     "an enclosing mark (Unicode category Me), which frames its base "
                     f"({MARK}; {WHY}): write '\u0436'"),
    ("H100\u0336\u0336", "'H100\u0336\u0336' holds U+0336 COMBINING LONG STROKE OVERLAY at "
                         "character 5, a combining mark on U+0030 DIGIT ZERO, not a letter "
                         f"({MARK}; {WHY}): write 'H100'"),
])
def test_a_combining_mark_over_ascii_a_digit_or_nothing_is_refused(value, message):
    assert problem(value) == message


@pytest.mark.parametrize("value", [
    "\u092e\u0948\u091f\u094d\u0930\u093f\u0915\u094d\u0938",  # Hindi, vowel signs, virama
    "\u0e01\u0e32\u0e23\u0e04\u0e39\u0e13",  # Thai, a vowel mark below a consonant
    "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd",  # Hebrew with points
    "\u0645\u064f\u062a\u064e\u0648\u064e\u0633\u0650\u0651\u0637",  # Arabic with harakat
    "\u1eb9\u0301 \u0105\u0301",  # Yoruba e dot below acute, Navajo a ogonek acute: no
    "Nh\u00e2n ma tr\u1eadn",  # precomposed form; Vietnamese (NFC)
    "\u6771\u4eac\u30a8\u30ec\u30af\u30c8\u30ed\u30f3",  # Japanese: Han with Katakana
    "\u3089\u30fc\u3081\u3093 \u884c\u5217\u7a4d",  # Hiragana, the long mark, Han
    "\ud589\ub82c \u884c\u5217",  # Korean: Hangul with Han
    "\u3105\u3106 \u4e2d\u6587",  # Bopomofo with Han
])
def test_marks_of_real_writing_and_east_asian_scripts_together_are_accepted(value):
    assert problem(value) is None


CJK = ("(letters of one script, or Latin with Japanese, Chinese or Korean writing, so that "
       "no letter passes for a look-alike of another script's, such as a Cyrillic \u0412 in a "
       "Latin name): write the whole string in {ours} with no {theirs} letter or in {theirs} "
       "with no {ours} letter (a GPU, name or key as its vendor or source prints it; ASCII "
       "digits, spaces and punctuation go with any script, and as UTS #39 \"highly "
       "restrictive\" allows, Latin and Han go with Hiragana and Katakana (Japanese), with "
       "Hangul (Korean) or with Bopomofo (Chinese))")


@pytest.mark.parametrize("value", [
    # review73 F4: real GPU names, refused when Latin mixed with nothing
    "\u6469\u5c14\u7ebf\u7a0b MTT S80",  # Moore Threads: Han and Latin
    "\u6607\u817e 910B",  # Huawei Ascend: Han and Latin
    "\u82f1\u4f1f\u8fbe B200",  # NVIDIA in Chinese: Han and Latin
    "NVIDIA \u30a8\u30cc\u30d3\u30c7\u30a3\u30a2",  # Latin and Katakana
    "\u3072\u3089 \u30ab\u30bf \u6f22\u5b57 Latin",  # Latin with all of Japanese
    "\uc0bc\uc131 HBM3E \u97d3",  # Samsung: Hangul, Latin, Han
    "\u3105\u3106 \u4e2d\u6587 abc",  # Bopomofo, Han, Latin
])
def test_latin_beside_japanese_chinese_or_korean_writing_is_accepted(value):
    assert problem(value) is None


@pytest.mark.parametrize(("value", "message"), [
    ("\u3072\u3089\u304c\u306a \ud55c\uae00", "'\u3072\u3089\u304c\u306a \ud55c\uae00' holds "
     "U+D55C HANGUL SYLLABLE HAN at character 6, of the Hangul script, after U+3072 HIRAGANA "
     "LETTER HI at character 1, of the Hiragana script "
     + CJK.format(ours="Hiragana", theirs="Hangul")),
    ("\u6771\u4eac \u0412", "'\u6771\u4eac \u0412' holds U+0412 CYRILLIC CAPITAL LETTER VE at "
     "character 4, of the Cyrillic script, after U+6771 CJK UNIFIED IDEOGRAPH-6771 at "
     "character 1, of the Han script " + CJK.format(ours="Han", theirs="Cyrillic")),
    # Latin, Han, then Hangul beside Katakana: each pair but the last is allowed
    ("AI \u6f22 \u30ab \ud55c", "'AI \u6f22 \u30ab \ud55c' holds U+D55C HANGUL SYLLABLE HAN at "
     "character 8, of the Hangul script, after U+30AB KATAKANA LETTER KA at character 6, of "
     "the Katakana script " + CJK.format(ours="Katakana", theirs="Hangul")),
])
def test_east_asian_writing_beside_a_script_uts39_does_not_allow_is_told_what_to_write(
        value, message):
    assert problem(value) == message
    assert "retype" not in message


def test_a_latin_lookalike_is_still_told_to_retype_it():
    said = problem("NVIDIA \u0412200")
    assert said is not None and said.endswith(
        "of the Latin script (letters of one script, or Latin with Japanese, Chinese or "
        "Korean writing: a look-alike of another script makes one GPU, name or key two that "
        "print alike): retype character 8 in the Latin script, or write the whole string in "
        "one script")
    assert mixed_script("\u6771\u4eac \u0412") == (0, 3)  # Cyrillic goes with no Han
    assert mixed_script("\u6771\u4eac B200") is None  # Latin goes with Han


@pytest.mark.parametrize(("value", "message"), [
    # review73 F5: the advice was 'H100 \u03bc' (Greek beside Latin), refused in turn
    ("H100 \u00b5", "'H100 \u00b5' holds U+00B5 MICRO SIGN at character 6, a compatibility form "
                    f"(not in Unicode NFKC; {WHY}): write it in one script ('H100 \u03bc', it "
                    "with that character mended, mixes scripts)"),
    # ... and 'b2002', another GPU's name
    ("b200\u00b2", "'b200\u00b2' holds U+00B2 SUPERSCRIPT TWO at character 5, a compatibility "
                   f"form (not in Unicode NFKC; {WHY}): write 'b200^2'"),
    ("H\u2082O", "'H\u2082O' holds U+2082 SUBSCRIPT TWO at character 2, a compatibility form "
                 f"(not in Unicode NFKC; {WHY}): write 'H_2O'"),
    ("e\u0301 \u00b5", "'e\u0301 \u00b5' is not in Unicode NFC (identifying strings must be, or "
                       "one GPU, name or key becomes two): write it in one script ('\u00e9 "
                       "\u03bc', it with that character mended, mixes scripts)"),
])
def test_the_advice_is_never_a_string_refused_in_turn(value, message):
    assert problem(value) == message


# -- properties --------------------------------------------------------------------------

IDENTIFIER = st.from_regex(r"[A-Za-z][A-Za-z0-9._()/+-]{0,9}( [A-Za-z0-9._()/+-]{1,8}){0,3}",
                           fullmatch=True)
"""Plain ASCII identifiers (a Latin letter first, single spaces): every one is accepted."""

REFUSED = {
    "other whitespace": st.sampled_from([c for c in map(chr, WHITE_SPACE) if c != " "]),
    "control or format": st.characters(categories=["Cc", "Cf", "Co", "Cn"]),
    "default-ignorable": st.sampled_from("\u034f\u115f\u1160\u17b4\u180b\u3164\ufe0f"
                                         "\uffa0\U000e0100"),
    "combining mark": st.characters(categories=["Mn", "Mc", "Me"]),
    "compatibility form": st.sampled_from("\uff21\uff41\uff10\ufb01\u2160\u00b5\u2126"),
    "look-alike letter": st.sampled_from("\u0410\u0430\u0412\u0435\u043e\u0440\u0441"
                                         "\u0391\u0392\u03bf\u0555"),
}
"""Per refused class, a strategy of its characters: any one anywhere in an identifier is
refused (a combining mark can only land on ASCII, a space or nothing; a look-alike letter
beside the identifier's first, Latin, letter)."""


@settings(max_examples=400, deadline=None)
@given(IDENTIFIER)
def test_every_plain_ascii_identifier_is_accepted_by_the_full_rules_too(value):
    assert problem(value) is None
    # the same with a non-ASCII Latin letter in front: past the ASCII fast path
    assert _identifying_problem("\u00c9" + value) is None


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(sorted(REFUSED)), st.data())
def test_a_character_of_each_refused_class_is_refused_wherever_it_stands(kind, data):
    value = data.draw(IDENTIFIER)
    c = data.draw(REFUSED[kind])
    at = data.draw(st.integers(0, len(value)))
    assert problem(value[:at] + c + value[at:]) is not None, (kind, hex(ord(c)), at)


_WRITE = re.compile(r""": write ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")(?: \(U\+[0-9A-FU+ ]+\))?$""")
"""The string a refusal tells to write, quoted as Python's repr (an NFC one then lists its
code points)."""

AWKWARD = st.text(st.characters(codec="utf-8") | st.sampled_from(
    "\u00b2\u00b5\u2082\uff21\u0301\u0412\u03bc\u6771\u30ab\ud55c\u3105 \t\u00a0\u200b"),
    max_size=10)
"""Any text, with compatibility forms, marks, look-alikes, East Asian letters and
whitespace drawn often."""


@settings(max_examples=800, deadline=None)
@given(AWKWARD)
def test_a_refusal_that_says_what_to_write_says_a_string_that_is_accepted(value):
    # review73 F5: for any refused string with a suggestion, the suggestion is accepted
    said = problem(value)
    if said is None or (found := _WRITE.search(said)) is None:
        assert said is None or "write" in said
        return
    fix = ast.literal_eval(found.group(1))
    assert problem(fix) is None, (value, fix, problem(fix))
    assert stray_mark(fix) is None
    assert not any(other_whitespace(c) for c in fix)


@settings(max_examples=600, deadline=None)
@given(st.text(max_size=10))
def test_what_plain_writes_is_refused_for_a_mix_of_scripts_at_most(value):
    fix = plain(value)
    said = problem(fix) if fix else None
    assert said is None or "(letters of one script, or Latin with" in said, (fix, said)


SCRIPT_LETTERS = {"Latin": "aZ\u00e9\u0131", "Cyrillic": "\u0436\u0414", "Greek": "\u03bb\u03a9",
                  "Han": "\u4e2d\u6771", "Hiragana": "\u3072\u3089", "Katakana": "\u30ab\u30bf",
                  "Hangul": "\ud55c\uae00", "Bopomofo": "\u3105\u3106",
                  "Arabic": "\u0639\u0631", "Devanagari": "\u0915\u0916"}
"""Letters of ten scripts, by hand (the dotless \u0131 is Latin)."""

UTS39_SETS = [{"Latin", "Han", "Hiragana", "Katakana"}, {"Latin", "Han", "Bopomofo"},
              {"Latin", "Han", "Hangul"}]
"""UTS #39 §5.2 "Highly Restrictive", copied from the standard: the oracle."""


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(sorted(SCRIPT_LETTERS)), min_size=1, max_size=4), st.data())
def test_scripts_are_accepted_exactly_as_uts39_highly_restrictive_allows(scripts, data):
    value = " ".join(data.draw(st.sampled_from(SCRIPT_LETTERS[s])) + "1" for s in scripts)
    used = set(scripts)
    allowed = len(used) == 1 or any(used <= kin for kin in UTS39_SETS)
    said = problem(value)
    assert (said is None) == allowed, (value, said)
    assert (mixed_script(value) is None) == allowed


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=10))
def test_an_accepted_string_has_each_mark_on_a_non_ascii_letter(value):
    if problem(value) is not None:
        return
    assert not any(other_whitespace(c) for c in value)
    base = None
    for c in value:
        category = unicodedata.category(c)
        if category[0] == "M":
            assert category != "Me" and base is not None and not base.isascii()
            assert unicodedata.category(base)[0] == "L"
        else:
            base = c
