"""Every problem of an author in one warning, and a blank author refused (fresh13 1-3).

fresh13 MED 1: ``add`` of an Implementation whose author is ``'  НРЕ\\u200b '`` warned only
of the leading space (KI251 said the first problem alone, and KI253, judging the string with
its spaces and ZERO WIDTH SPACE, said nothing): the trailing space, the invisible character
and the Latin look-alike were learnt one add at a time. MED 2: an author of only spaces or
invisible characters was added with exit 0 and a warning that "it prints as ''". LOW 3: a
space at either end was fixed by "retype it in one script", its rule named
``author-mixes-scripts``, with "(KI104 refuses it in a name)".
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.cli import main
from kistore.core.digest import Digest
from kistore.store.labels import (
    AUTHOR,
    HIDDEN,
    MIXED,
    NOT_NFC,
    SPACING,
    STYLED,
    author_problems,
    label_problems,
    mixed_label_said,
)

COMBO = "  \u041d\u0420\u0415\u200b "
"""fresh13's author: two leading spaces, Cyrillic НРЕ, a ZERO WIDTH SPACE, a trailing space."""

KI104 = ("in an identifying string, such as an Implementation's `project` or an environment's "
         "`provider`, as an error; an author is free text, so a warning)")

COMBO_SAID = (
    "'  \u041d\u0420\u0415\\u200b ' holds (1) U+0020 SPACE at characters 1 and 2, leading "
    "whitespace; (2) U+200B ZERO WIDTH SPACE at character 6, an invisible format character "
    "(Unicode category Cf); (3) U+0020 SPACE at character 7, trailing whitespace: a "
    "leaderboard shows the author as the row's label, where a web page prints a space at "
    "either end as nothing and two in a row as one; and an invisible character prints as "
    "nothing and other whitespace as a plain space: it prints as '\u041d\u0420\u0415', "
    "differing only as text from an author written so (KI104 refuses each of these " + KI104)

COMBO_LOOKS = (
    "'  \u041d\u0420\u0415\\u200b ' prints as '\u041d\u0420\u0415', which is written wholly in "
    "the Cyrillic script, yet each of its letters looks like a Latin one, U+041D CYRILLIC "
    "CAPITAL LETTER EN at character 1 of it first (as 'H'): its skeleton (Unicode TS #39 §4, "
    "marks dropped) is 'HPE', that of the Latin letters it prints as, and a leaderboard "
    "shows the author as the row's label, where it can pass for a Latin author's")


def _file(kit, tmp_path, author: str):
    """Write an Implementation of ``author``: (its path, its digest)."""
    impl = kit.implementation("p0", name="impl-author")
    impl["spec"]["author"] = author
    path = tmp_path / "impl.json"
    path.write_text(json.dumps(impl))
    return path, kit.digest(impl)


def _tail(digest: str, rule_id: str) -> str:
    return (f": while this add is not committed, `kistore drop {digest}` takes it back and "
            "you add the corrected file; once committed, add the corrected Implementation as "
            f"a new object ({rule_id}, a warning: added all the same, as a name may be written "
            "so on purpose)\n")


def test_add_names_every_problem_of_an_author_and_kI253_beside(runner, store, kit, tmp_path):
    # on BASE b1992eea: one warning, of the leading space alone ("so it prints as
    # 'НРЕ\u200b'"), no word of the ZERO WIDTH SPACE, the trailing space or KI253
    path, digest = _file(kit, tmp_path, COMBO)
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert added.exit_code == 0, added.output
    assert added.stderr == (
        f"warning: {path}:/spec/author: {COMBO_SAID}; if that is not meant, write it as it "
        f"prints, '\u041d\u0420\u0415'" + _tail(digest, "KI251") +
        f"warning: {path}:/spec/author: {COMBO_LOOKS}; if it is not meant to pass for that "
        "Latin name, write it as it is known in Latin letters, or with a letter that does "
        "not look Latin" + _tail(digest, "KI253"))


@pytest.mark.parametrize(("author", "said", "fix"), [
    # LOW 3: a space alone is fixed by writing it as it prints, not "in one script"
    (" HPE", "' HPE' holds U+0020 SPACE at character 1, leading whitespace: a leaderboard "
     "shows the author as the row's label, where a web page prints a space at either end as "
     "nothing and two in a row as one: it prints as 'HPE', differing only as text from an "
     "author written so (KI104 refuses this " + KI104,
     "if that is not meant, write it as it prints, 'HPE'"),
    ("Qin Liu @ U\u0421D ", "'Qin Liu @ U\u0421D ' holds (1) U+0421 CYRILLIC CAPITAL LETTER "
     "ES at character 12, of the Cyrillic script, after U+0051 LATIN CAPITAL LETTER Q at "
     "character 1, of the Latin script; (2) U+0020 SPACE at character 14, trailing "
     "whitespace: a leaderboard shows the author as the row's label, where a web page prints "
     "a space at either end as nothing and two in a row as one; and a letter of one script "
     "that looks like another's passes for it (Unicode TS #39 §5.2 allows one script, or "
     "Latin with Japanese, Chinese or Korean writing) (KI104 refuses each of these " + KI104,
     "if that is not meant, remove the spaces at either end, writing one U+0020 SPACE "
     "between words; retype it in one script"),
    ("\u210cenry\u00a0Lab\u00a0", "'\u210cenry\\xa0Lab\\xa0' holds (1) U+210C BLACK-LETTER "
     "CAPITAL H at character 1, a styled form of U+0048 LATIN CAPITAL LETTER H (Unicode's "
     "compatibility decomposition <font>); (2) U+00A0 NO-BREAK SPACE at characters 6 and 10, "
     "whitespace other than U+0020 SPACE: a leaderboard shows the author as the row's label, "
     "where an invisible character prints as nothing and other whitespace as a plain space; "
     "and a letter drawn in another style reads as the plain one (KI104 refuses each of "
     "these " + KI104,
     "if that is not meant, delete each invisible character, writing other whitespace as a "
     "U+0020 SPACE; write each styled letter as the plain one it is a form of"),
    ("Jose\u0301 Lia\u0301", "'Jose\u0301 Lia\u0301' holds (1) U+0301 COMBINING ACUTE ACCENT "
     "at character 5, not in Unicode NFC (which writes U+00E9 LATIN SMALL LETTER E WITH ACUTE "
     "for characters 4 and 5); (2) U+0301 COMBINING ACUTE ACCENT at character 10, not in "
     "Unicode NFC (which writes U+00E1 LATIN SMALL LETTER A WITH ACUTE for characters 9 and "
     "10): a leaderboard shows the author as the row's label, where an accent written as a "
     "mark of its own prints as the letter Unicode NFC composes: it prints as "
     "'Jos\u00e9 Li\u00e1', differing only as text from an author written so (KI104 refuses "
     "each of these " + KI104,
     "if that is not meant, write it as it prints, 'Jos\u00e9 Li\u00e1'"),
])
def test_kI251_says_every_problem_and_a_fix_for_them_all(author, said, fix):
    # on BASE b1992eea each said its first problem only, fixed "retype it in one script"
    [found] = label_problems(AUTHOR, author)
    assert (found.rule_id, found.said, found.fix) == ("KI251", said, fix)


_BLANK_FIX = ("write the author's name in visible letters, or leave `author` out (an "
              "Implementation with no author, or an empty one, is labelled by its `project`)")


@pytest.mark.parametrize(("author", "held"), [
    ("    ", "U+0020 SPACE at characters 1, 2, 3 and 4"),
    ("\u200b", "U+200B ZERO WIDTH SPACE at character 1"),
    (" \u3000\u200b ", "U+0020 SPACE at characters 1 and 4, U+3000 IDEOGRAPHIC SPACE at "
     "character 2 and U+200B ZERO WIDTH SPACE at character 3"),
    # fresh15 F3: U+2800 (category So, neither whitespace nor Default_Ignorable) was added,
    # exit 0, with no word; U+FFA0 is Default_Ignorable, refused already
    ("\u2800", "U+2800 BRAILLE PATTERN BLANK at character 1"),
    ("\u2800\u2800", "U+2800 BRAILLE PATTERN BLANK at characters 1 and 2"),
    ("\u2800 \u2800", "U+2800 BRAILLE PATTERN BLANK at characters 1 and 3 and U+0020 SPACE "
     "at character 2"),
    ("\uffa0", "U+FFA0 HALFWIDTH HANGUL FILLER at character 1"),
])
def test_add_refuses_a_blank_author(runner, store, kit, tmp_path, author, held):
    # on BASE b1992eea: added, exit 0, a KI251 warning that "it prints as ''"
    path, digest = _file(kit, tmp_path, author)
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert (added.exit_code, added.stdout) == (1, "")
    assert added.stderr == (
        f"error: {path}:/spec/author: {author!r} prints as nothing, holding only {held}: a "
        "leaderboard shows the author as the row's label, and a blank one names no one "
        f"(KI254, an error: the gate refuses it too); {_BLANK_FIX}\n")
    assert not store.view(None).has_object(Digest.from_str(digest))  # nothing written


def test_an_empty_author_is_as_none_and_added(runner, store, kit, tmp_path):
    path, digest = _file(kit, tmp_path, "")  # the site labels the row by its project
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert (added.exit_code, added.stderr) == (0, "")


_FILLER = " \u200b\u00a0\u3000\ufe0f"
"""Characters an author may hold that print as nothing or as a space."""

_LETTERS = "abH\u00e9\u0421\u210c\u0301"
"""Latin letters, a Cyrillic look-alike, a styled letter and a combining acute accent."""


def _expected(author: str) -> set[tuple[str, int]]:
    """Every (kind, 0-based index) KI251 must name in ``author``, by the alphabet's facts."""
    lead = len(author) - len(author.lstrip(" "))
    trail = len(author) - len(author.rstrip(" "))
    found = set()
    for i, c in enumerate(author):
        if c == " " and (i < lead or i >= len(author) - trail or author[i - 1] == " "):
            found.add((SPACING, i))
        elif c in _FILLER and c != " ":
            found.add((HIDDEN, i))
        elif c == "\u210c":
            found.add((STYLED, i))
        elif c == "\u0301" and i > 0 and author[i - 1] == "a":  # NFC writes U+00E1
            found.add((NOT_NFC, i))
    if "\u0421" in author and any(c in author for c in "abH\u00e9"):
        found.add((MIXED, -1))
    return found


@given(st.text(alphabet=st.sampled_from(_FILLER + _LETTERS), min_size=1, max_size=12))
def test_every_problem_of_a_generated_author_is_reported(author):
    said = label_problems(AUTHOR, author)
    # only spaces, invisible characters and accents on no letter: blank, refused (an accent
    # alone since fresh16 F7: it printed as a floating accent, said of nothing)
    if not author.strip(_FILLER + "\u0301"):
        [blank] = said
        assert blank.rule_id == "KI254"
        for c in set(author):  # each character and every place it stands
            places = [str(i + 1) for i, d in enumerate(author) if d == c]
            where = f"character {places[0]}" if len(places) == 1 else \
                f"characters {', '.join(places[:-1])} and {places[-1]}"
            assert f"U+{ord(c):04X} {unicodedata.name(c)} at {where}" in blank.said
        return
    problems = author_problems(author)
    assert {(p.kind, -1 if p.kind == MIXED else i) for p in problems for i in p.at} \
        == _expected(author)
    message = mixed_label_said(author)
    if not problems:
        assert message is None and [s.rule_id for s in said] in ([], ["KI253"])
        return
    assert message is not None and [s for s in said if s.rule_id == "KI251"][0].said == message
    for n, problem in enumerate(problems, 1):  # each named, numbered when more than one
        assert (problem.said if len(problems) == 1 else f"({n}) {problem.said}") in message
        numbers = [str(i + 1) for i in problem.at]
        if problem.kind != MIXED:
            assert problem.said.startswith(
                f"U+{ord(author[problem.at[0]]):04X} {unicodedata.name(author[problem.at[0]])} "
                f"at character{'s' if len(numbers) > 1 else ''} {numbers[0]}")


@pytest.mark.parametrize(("author", "held"), [
    ("\\u2800", "U+2800 BRAILLE PATTERN BLANK at character 1"),
    ("\\u2800\\u2800", "U+2800 BRAILLE PATTERN BLANK at characters 1 and 2"),
])
def test_add_refuses_fresh15_braille_blank_author(runner, store, tmp_path, author, held):
    # fresh15 F3's own manifest, written as it was: on BASE 548a13da added, exit 0, no word
    path = tmp_path / "auth-e.json"
    path.write_text('{"apiVersion":"kernelindex.dev/v1alpha1","kind":"Implementation",'
                    '"metadata":{"name":"auth-e","title":"t"},"spec":{"project":"p-e",'
                    f'"author":"{author}"}}}}\n')
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    value = json.loads(f'"{author}"')  # the author the JSON escape writes
    assert (added.exit_code, added.stdout) == (1, "")
    assert added.stderr == (
        f"error: {path}:/spec/author: {value!r} prints as nothing, "
        f"holding only {held}: a leaderboard shows the author as the row's label, and a "
        f"blank one names no one (KI254, an error: the gate refuses it too); {_BLANK_FIX}\n")
