"""``add`` warns of an Implementation ``author`` that mixes scripts (fresh05 LOW 7).

``Qin Liu @ U\\u0421D`` (a Cyrillic ``С`` among Latin letters) was added with no word and
printed on the leaderboard exactly as another submitter's ``Qin Liu @ UCD``, not told
apart (the site tells apart only labels equal as text). ``project`` is refused so (KI104);
``author`` is free text, so it is said, as UTS #39 §5.2 ("highly restrictive") judges a
label, and added all the same.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.cli import main
from kistore.store.labels import looks_latin_label_said, mixed_label_said

from .test_author_every_problem import KI104

LOOK_ALIKE = "Qin Liu @ U\u0421D"


def _added(runner, store, kit, tmp_path, author: str):
    """Add an Implementation of ``author`` with the CLI: (its file, its digest, the result)."""
    impl = kit.implementation("p0", name=f"impl-{len(author)}")
    impl["spec"]["author"] = author
    path = tmp_path / "impl.json"
    path.write_text(json.dumps(impl))
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert added.exit_code == 0, added.output
    return path, kit.digest(impl), added


def test_add_warns_of_a_cyrillic_letter_in_a_latin_author(runner, store, kit, tmp_path):
    path, digest, added = _added(runner, store, kit, tmp_path, LOOK_ALIKE)
    assert added.stderr == (
        f"warning: {path}:/spec/author: 'Qin Liu @ U\u0421D' holds U+0421 CYRILLIC CAPITAL "
        "LETTER ES at character 12, of the Cyrillic script, after U+0051 LATIN CAPITAL "
        "LETTER Q at character 1, of the Latin script: a leaderboard shows the author as "
        "the row's label, where a letter of one script that looks like another's passes for "
        "it (Unicode TS #39 §5.2 allows one script, or Latin with Japanese, Chinese or Korean "
        "writing) (KI104 refuses this " + KI104 + "; if that is not meant, retype it in one "
        "script: while this add is not committed, "  # fresh13: the fix for what it holds
        f"`kistore drop {digest}` takes it back and you add the corrected file; once "
        "committed, add the corrected Implementation as a new object (KI251, a warning: added "
        "all the same, as a name may be written so on purpose)\n")
    assert store.read(digest).spec["author"] == LOOK_ALIKE  # added all the same


@pytest.mark.parametrize("author", [
    "Qin Liu @ UCD", "Ivan Petrov", "\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432",
    "\u5c71\u7530 Taro", "\u5c71\u7530\u592a\u90ce (\u3084\u307e\u3060)", "Jos\u00e9 M\u00fcller",
    "\uae40\ubbfc\uc218 Kim",
    # fresh08 M4: U+02BB (the Hawaiian \u02bbokina) and U+00B5 are Common, with any script
    "Ka\u02bbimi Nakamura", "\u00b5Kernel Lab"])
def test_one_script_or_a_mix_uts39_allows_is_not_said(author):
    assert mixed_label_said(author) is None


@pytest.mark.parametrize(("author", "scripts"), [
    (LOOK_ALIKE, ("Cyrillic", "Latin")),
    ("\u0391da Lovelace", ("Latin", "Greek")),  # Greek capital alpha, then Latin
    ("\u0418\u0432\u0430\u043d Petrov", ("Latin", "Cyrillic"))])
def test_a_mix_is_said_with_both_scripts(author, scripts):
    said = mixed_label_said(author)
    assert said is not None
    assert f"of the {scripts[0]} script, after" in said and \
        f"of the {scripts[1]} script:" in said


# fresh10 MED 3: on BASE 04156861 each of these was said of nothing (None): an invisible or
# compatibility character that KI104 refuses in a name passed an author with no word.
def _tail(why: str, shown: str | None) -> str:
    """KI251's words after what an author holds (fresh13): why, what it prints as, KI104."""
    prints = "" if shown is None else \
        f": it prints as {shown!r}, differing only as text from an author written so"
    return (f": a leaderboard shows the author as the row's label, where {why}{prints} (KI104 "
            "refuses this " + KI104)


_INVISIBLE = "an invisible character prints as nothing and other whitespace as a plain space"
_SPACES = "a web page prints a space at either end as nothing and two in a row as one"


@pytest.mark.parametrize(("author", "said"), [
    ("Qin\u200b Liu @ UCD", "'Qin\\u200b Liu @ UCD' holds U+200B ZERO WIDTH SPACE at character "
     "4, an invisible format character (Unicode category Cf)" + _tail(_INVISIBLE, "Qin Liu @ UCD")),
    ("Qin\u200dLiu", "'Qin\\u200dLiu' holds U+200D ZERO WIDTH JOINER at character 4, an "
     "invisible format character (Unicode category Cf)" + _tail(_INVISIBLE, "QinLiu")),
    ("Qin\u200cLiu", "'Qin\\u200cLiu' holds U+200C ZERO WIDTH NON-JOINER at character 4, an "
     "invisible format character (Unicode category Cf)" + _tail(_INVISIBLE, "QinLiu")),
    ("Qin Li\u00adu", "'Qin Li\\xadu' holds U+00AD SOFT HYPHEN at character 7, an invisible "
     "format character (Unicode category Cf)" + _tail(_INVISIBLE, "Qin Liu")),
    ("Qin\u00a0Liu", "'Qin\\xa0Liu' holds U+00A0 NO-BREAK SPACE at character 4, whitespace "
     "other than U+0020 SPACE" + _tail(_INVISIBLE, "Qin Liu")),
    ("Qin\u3000Liu", "'Qin\\u3000Liu' holds U+3000 IDEOGRAPHIC SPACE at character 4, whitespace "
     "other than U+0020 SPACE" + _tail(_INVISIBLE, "Qin Liu")),
    ("Q\ufe0fin Liu", "'Q\ufe0fin Liu' holds U+FE0F VARIATION SELECTOR-16 at character 2, an "
     "invisible character (Unicode Default_Ignorable_Code_Point)" + _tail(_INVISIBLE, "Qin Liu")),
    ("\u3164Kim", "'\u3164Kim' holds U+3164 HANGUL FILLER at character 1, an invisible "
     "character (Unicode Default_Ignorable_Code_Point)" + _tail(_INVISIBLE, "Kim")),
    ("Jose\u0301 Liu", "'Jose\u0301 Liu' holds U+0301 COMBINING ACUTE ACCENT at character 5, not "
     "in Unicode NFC (which writes U+00E9 LATIN SMALL LETTER E WITH ACUTE for characters 4 "
     "and 5)" + _tail("an accent written as a mark of its own prints as the letter Unicode "
                      "NFC composes", "Jos\u00e9 Liu")),
])
def test_an_invisible_or_non_nfc_character_in_an_author_is_said(author, said):
    assert mixed_label_said(author) == said


@pytest.mark.parametrize(("author", "said"), [
    ("\u24c6in Liu", "'\u24c6in Liu' holds U+24C6 CIRCLED LATIN CAPITAL LETTER Q at character "
     "1, a styled form of U+0051 LATIN CAPITAL LETTER Q (Unicode's compatibility "
     "decomposition <circle>)"),
    ("Qin L\u1d62u", "'Qin L\u1d62u' holds U+1D62 LATIN SUBSCRIPT SMALL LETTER I at character "
     "6, a styled form of U+0069 LATIN SMALL LETTER I (Unicode's compatibility decomposition "
     "<sub>)"),
    ("Lab\u00b2", "'Lab\u00b2' holds U+00B2 SUPERSCRIPT TWO at character 4, a styled form of "
     "U+0032 DIGIT TWO (Unicode's compatibility decomposition <super>)"),
    ("\uff71\uff72", "'\uff71\uff72' holds (1) U+FF71 HALFWIDTH KATAKANA LETTER A at character 1, "
     "a styled form of U+30A2 KATAKANA LETTER A (Unicode's compatibility decomposition "
     "<narrow>); (2) U+FF72 HALFWIDTH KATAKANA LETTER I at character 2, a styled form of "
     "U+30A4 KATAKANA LETTER I (Unicode's compatibility decomposition <narrow>)"),
])
def test_a_circled_superscript_subscript_or_halfwidth_letter_is_said(author, said):
    # fresh10 MED 3: on BASE 04156861 each was None (only <font> and <wide> were said)
    tail = _tail("a letter drawn in another style reads as the plain one", None)
    if "(2)" in said:  # fresh13 MED 1: every one, not the first only
        tail = tail.replace("refuses this", "refuses each of these")
    assert mixed_label_said(author) == said + tail


@pytest.mark.parametrize("author", [
    "Jos\u00e9 M\u00fcller", "\u00b5Kernel Lab", "Acme\u2122 Labs",  # U+2122: two letters
    "Qin Liu\nUCD",  # a line break is KI219's
    "\u0645\u062d\u0645\u062f"])
def test_plain_prose_is_not_said_as_invisible(author):
    assert mixed_label_said(author) is None


@given(st.text(alphabet=st.characters(max_codepoint=0x7E), max_size=40))
def test_an_ascii_author_is_never_said(author):
    # auth04: but for a U+0020 SPACE at either end or beside another (below)
    author = " ".join(word for word in author.split(" ") if word)
    assert mixed_label_said(author) is None
    assert looks_latin_label_said(author) is None


def _spaced(said: str, shown: str) -> str:
    """KI251's words of an author spaced so (auth04): ``said``, then why, ``shown`` printed."""
    return said + _tail(_SPACES, shown)


# fresh12 F4: on BASE 44ee2268 each was None: 'HPE ' printed on the site as 'HPE' with no word
@pytest.mark.parametrize(("author", "said", "shown"), [
    (" HPE", "' HPE' holds U+0020 SPACE at character 1, leading whitespace", "HPE"),
    ("HPE ", "'HPE ' holds U+0020 SPACE at character 4, trailing whitespace", "HPE"),
    ("H  PE", "'H  PE' holds U+0020 SPACE at character 3, whitespace after whitespace",
     "H PE"),
    # fresh13 MED 1: both, not the trailing one only (and a blank author is KI254's)
    ("Jos\u00e9  M\u00fcller ", "'Jos\u00e9  M\u00fcller ' holds (1) U+0020 SPACE at character 6, "
     "whitespace after whitespace; (2) U+0020 SPACE at character 13, trailing whitespace",
     "Jos\u00e9 M\u00fcller"),
])
def test_a_space_at_either_end_or_beside_another_is_said(author, said, shown):
    expected = _spaced(said, shown)
    if "(2)" in said:
        expected = expected.replace("refuses this", "refuses each of these")
    assert mixed_label_said(author) == expected


@pytest.mark.parametrize("author", ["HPE\n", "\nHPE", "HPE\n\nreal", "HPE\u2028", "HPE\u2029",
                                    "HPE \nreal"])
def test_a_line_break_is_not_kI251s(author):
    assert mixed_label_said(author) is None  # KI219's, in `add` as in `check` (below)


def test_add_warns_of_a_trailing_space_in_an_author(runner, store, kit, tmp_path):
    # fresh12 F4: on BASE 44ee2268 `add` said nothing (stderr empty)
    path, digest, added = _added(runner, store, kit, tmp_path, "HPE ")
    assert added.stderr == (
        f"warning: {path}:/spec/author: " + _spaced(
            "'HPE ' holds U+0020 SPACE at character 4, trailing whitespace", "HPE") +
        "; if that is not meant, write it as it prints, 'HPE': while this add is not "
        f"committed, `kistore drop {digest}` takes it back and you add the corrected "
        "file; once committed, add the corrected Implementation as a new object (KI251, a "
        "warning: added all the same, as a name may be written so on purpose)\n")


@pytest.mark.parametrize(("author", "said"), [
    ("HPE\n", "U+000A LINE FEED at character 4"),
    ("\nHPE", "U+000A LINE FEED at character 1"),
    ("HPE\n\nreal", "U+000A LINE FEED at character 4"),
    ("HPE\u2028", "U+2028 LINE SEPARATOR at character 4"),
    ("HPE\u2029", "U+2029 PARAGRAPH SEPARATOR at character 4")])
def test_add_says_kI219_of_a_line_break_in_an_author_as_check_does(runner, store, kit, tmp_path,
                                                                   author, said):
    # fresh12 F4: on BASE 44ee2268 `add` said nothing (stderr empty); the gate said KI219
    path, digest, added = _added(runner, store, kit, tmp_path, author)
    assert added.stderr == (
        f"warning: {path}:/spec/author: the author holds {said}: a citation prints it within "
        "one line (escaped, as \\n); written raw it would read as lines of the citation; "
        "write the author on one line: while this add is not committed, "
        f"`kistore drop {digest}` takes it back and you add the corrected file; once "
        "committed, add the corrected Implementation as a new object (KI219, a warning: added "
        "all the same, as a name may be written so on purpose)\n")


def test_add_warns_of_an_author_wholly_in_cyrillic_that_prints_as_latin(runner, store, kit,
                                                                       tmp_path):
    # conf01: on BASE 04156861 `add` said nothing of it (stderr empty)
    path, digest, added = _added(runner, store, kit, tmp_path, "\u041d\u0420\u0415")
    assert added.stderr == (
        f"warning: {path}:/spec/author: '\u041d\u0420\u0415' is written wholly in the Cyrillic "
        "script, yet each of its letters looks like a Latin one, U+041D CYRILLIC CAPITAL "
        "LETTER EN at character 1 first (as 'H'): its skeleton (Unicode TS #39 §4, marks "
        "dropped) is 'HPE', that of the Latin letters it prints as, and a leaderboard shows "
        "the author as the row's label, where it can pass for a Latin author's; if it is not "
        "meant to pass for that Latin name, write it as it is known in Latin letters, or with "
        "a letter that does not look Latin: while this add is not committed, "
        f"`kistore drop {digest}` takes it back and you add the corrected file; once "
        "committed, add the corrected Implementation as a new object (KI253, a warning: added "
        "all the same, as a name may be written so on purpose)\n")
    assert store.read(digest).spec["author"] == "\u041d\u0420\u0415"  # added all the same
