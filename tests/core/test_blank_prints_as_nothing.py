"""U+2800 and what prints as nothing, refused wherever a blank is (fresh16 F8, F7).

fresh15 F3 made U+2800 BRAILLE PATTERN BLANK a blank author (KI254), but KI104, which
refuses U+3164 HANGUL FILLER and a space alone in an identifying string, took ``'\\u2800'``
as an Implementation's ``project`` (the row's label when there is no author) and an
environment's ``provider`` with no word: one field away from the blank label KI254 refuses.
Now one predicate (:func:`kistore.core._plain_text.prints_as_nothing`, on
:func:`~kistore.core._plain_text.word_break` and ``invisible``) serves both rules. fresh16
F7: an author of a lone combining mark (``'\\u0301'``, or after U+2800) prints as a floating
accent, no letter: KI254 refuses it now.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.cli import main
from kistore.core import _plain_text as text
from kistore.core.schema import check_manifest
from kistore.core.text_fields import _identifying_problem
from kistore.store.labels import AUTHOR, label_problems

from ..store.test_author_every_problem import _BLANK_FIX

WHY = ("identifying strings must be plain text, or one GPU, name or key becomes two that "
       "print alike")
DRAWN = "a character drawn as an empty cell (Unicode category So, yet it prints as a space does"


def _said(value: str, n: int, advice: str) -> str:
    """KI104's words of ``value`` whose first U+2800 is character ``n`` (1-based)."""
    return (f"{value!r} holds U+2800 BRAILLE PATTERN BLANK at character {n}, {DRAWN}; {WHY}): "
            f"{advice}")


@pytest.mark.parametrize(("value", "said"), [
    ("\u2800", _said("\u2800", 1, "write the name in visible characters")),
    ("\u2800\u2800\u2800", _said("\u2800\u2800\u2800", 1,
                                 "write the name in visible characters")),
    # digits are Common: one script with Braille, so no mix said it; it prints as '100 '
    ("100\u2800", _said("100\u2800", 4, "write '100'")),
    # a mix of scripts until now, told to "retype character 3 in the Braille script"
    ("\u2800\u2800Torch", _said("\u2800\u2800Torch", 1, "write 'Torch'")),
    ("Py\u2800Torch", _said("Py\u2800Torch", 3, "write 'Py Torch'")),
    ("\u2800\u0301", _said("\u2800\u0301", 1, "write the name in visible characters")),
])
def test_kI104_refuses_u2800_in_an_identifying_string(value, said):
    # on BASE 6af42bf9 '\u2800', '\u2800\u2800\u2800' and '100\u2800' passed
    assert _identifying_problem(value) == said


@pytest.mark.parametrize(("kind", "pointer"), [
    ("Implementation", "/spec/project"),
    ("ExecutionEnvironment", "/spec/provider"),
])
@pytest.mark.parametrize("value", ["\u2800", "\u2800\u2800"])
def test_project_and_provider_of_u2800_are_refused(kit, kind, pointer, value):
    # fresh16 F8: impl-p5, impl-p8 and env-p0 were added with no word
    doc = kit.implementation("p0") if kind == "Implementation" else kit.environment()
    doc["spec"][pointer.rsplit("/", 1)[1]] = value
    assert [(e.pointer, e.message) for e in check_manifest(doc)] == [
        (pointer, _said(value, 1, "write the name in visible characters"))]


def test_add_refuses_a_project_of_u2800(runner, store, kit, tmp_path):
    impl = kit.implementation("\u2800\u2800\u2800", name="impl-p8")
    path = tmp_path / "p8.json"
    path.write_text(json.dumps(impl))
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert (added.exit_code, added.stdout) == (1, "")
    assert added.stderr == (
        f"error: {path}:/spec/project: "
        + _said("\u2800\u2800\u2800", 1, "write the name in visible characters") + "\n")


def test_a_title_of_u2800_is_prose_as_a_space_is(kit):
    # a title is prose: KI104 takes ' ', '\u3164' and '' there, so '\u2800' too (not a blank
    # refused anywhere: fresh16 F8's "metadata.title" was added as each of them is)
    for title in ("\u2800", " ", "\u3164", ""):
        doc = kit.implementation("p0")
        doc["metadata"]["title"] = title
        assert check_manifest(doc) == []


@pytest.mark.parametrize(("author", "said"), [
    # fresh16 F7: added with no word; '\u2800\u0301' got only KI251 "mixes scripts"
    ("\u0301", "'\u0301' prints as nothing but a combining mark on no letter, drawn alone as "
     "a floating accent or on a dotted circle, holding only U+0301 COMBINING ACUTE ACCENT at "
     "character 1"),
    ("\u2800\u0301", "'\u2800\u0301' prints as nothing but a combining mark on no letter, "
     "drawn alone as a floating accent or on a dotted circle, holding only U+2800 BRAILLE "
     "PATTERN BLANK at character 1 and U+0301 COMBINING ACUTE ACCENT at character 2"),
    (" \u0301\u0308", "' \u0301\u0308' prints as nothing but combining marks on no letter, "
     "drawn alone as a floating accent or on a dotted circle, holding only U+0020 SPACE at "
     "character 1, U+0301 COMBINING ACUTE ACCENT at character 2 and U+0308 COMBINING "
     "DIAERESIS at character 3"),
])
def test_an_author_of_marks_on_no_letter_is_blank(author, said):
    [found] = label_problems(AUTHOR, author)
    assert (found.rule_id, found.said, found.fix) == (
        "KI254", f"{said}: a leaderboard shows the author as the row's label, and a blank one "
        "names no one", _BLANK_FIX)


@pytest.mark.parametrize("author", ["e\u0301", "Jos\u00e9", "\u0928\u093f"])
def test_a_mark_on_a_letter_is_no_blank(author):
    assert not text.prints_as_nothing(author)
    assert [s.rule_id for s in label_problems(AUTHOR, author)] in ([], ["KI251"])


def test_an_author_u2800_between_letters_is_said_drawn_blank_not_a_mix():
    # on BASE 6af42bf9: "mixes scripts" (Braille beside Latin), "retype it in one script"
    [found] = label_problems(AUTHOR, "Qin\u2800Liu")
    assert (found.rule_id, found.said, found.fix) == (
        "KI251", "'Qin\u2800Liu' holds U+2800 BRAILLE PATTERN BLANK at character 4, " + DRAWN
        + "): a leaderboard shows the author as the row's label, where an invisible character "
        "prints as nothing and other whitespace as a plain space: it prints as 'Qin Liu', "
        "differing only as text from an author written so (KI104 refuses this in an "
        "identifying string, such as an Implementation's `project` or an environment's "
        "`provider`, as an error; an author is free text, so a warning)",
        "if that is not meant, write it as it prints, 'Qin Liu'")


BLANKS = "\u2800\u3164 \u00a0\u200b\u200d\ufeff\u3000\u0301"
"""Characters that print as nothing, a space or (a mark on none of these) a floating accent."""


@given(st.text(alphabet=st.sampled_from(BLANKS), min_size=1, max_size=10))
def test_a_string_of_blanks_is_refused_wherever_a_blank_is(value):
    assert text.prints_as_nothing(value)
    # KI104: refused as a project or provider, told to write visible characters
    problem = _identifying_problem(value)
    assert problem is not None and problem.endswith(": write the name in visible characters")
    # KI254: refused as an author, naming every character and every place it stands
    [blank] = label_problems(AUTHOR, value)
    assert blank.rule_id == "KI254"
    for c in set(value):
        places = [str(i + 1) for i, d in enumerate(value) if d == c]
        where = f"character {places[0]}" if len(places) == 1 else \
            f"characters {', '.join(places[:-1])} and {places[-1]}"
        assert f"U+{ord(c):04X} {text.char_name(c)} at {where}" in blank.said


@given(st.text(alphabet=st.sampled_from(BLANKS), max_size=4),
       st.sampled_from(["A", "Torch", "\u00e9", "7"]),
       st.text(alphabet=st.sampled_from(BLANKS), max_size=4))
def test_one_visible_character_is_no_blank(before, visible, after):
    value = before + visible + after
    assert not text.prints_as_nothing(value)
    assert [s.rule_id for s in label_problems(AUTHOR, value)] != ["KI254"]
    if (before + after).replace("\u0301", ""):  # KI104 refuses each blank of one still
        assert _identifying_problem(value) is not None  # (an accent on 'é' is writing)


def test_plain_reads_u2800_as_a_space_and_prints_as_nothing_is_one_predicate():
    assert text.plain("A\u2800\u2800B\u2800") == "A B"
    assert text.printed("\u2800Qin\u3164\u2800Liu ") == "Qin Liu"
    assert [text.prints_as_nothing(v) for v in ("", "\u2800", "\u0301", "a", "\u2800a")] \
        == [True, True, True, False, False]
