"""Blank glyphs beyond U+2800, from data (fresh17 F2), and unassigned said by version (F9).

fresh17 F2: U+1D159 MUSICAL SYMBOL NULL NOTEHEAD, on the usual "invisible characters" list
beside U+2800, passed as a ``provider``, ``project``, ``hardware.product``, a
``software.libraries`` key and a whole ``author``, where U+2800 was refused: the list of
characters drawn blank was U+2800 alone, by hand. It is now built from that list
(:data:`kistore.core._plain_text.INVISIBLE_LISTED`) less what Unicode's properties cover,
and the properties' tables are held here to the Unicode data compiled into jsonschema-rs
(a runtime dependency) and to the glyphs of fonts-dejavu. fresh17 F9 (2): U+0CF3, assigned
in Unicode 15.0, was "an unassigned code point" (Python 3.11's Unicode 14.0) while its
script was read as Kannada (fontTools' 18.0).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import jsonschema_rs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.cli import main
from kistore.core import _plain_text as text
from kistore.core.schema import check_manifest
from kistore.core.text_fields import _identifying_problem
from kistore.store.labels import AUTHOR, label_problems

from .test_blank_prints_as_nothing import WHY

NOTEHEAD = "\U0001d159"
"""U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (So): fresh17 F2's blank glyph."""

def _every() -> Iterator[str]:
    """Every code point but the surrogates (which no Python string from JSON holds alone)."""
    return (chr(p) for p in range(0x110000) if not 0xD800 <= p <= 0xDFFF)


def _property(name: str) -> set[str]:
    """The code points of Unicode property ``name`` as jsonschema-rs's regex engine has it."""
    holds = jsonschema_rs.validator_for({"type": "string", "pattern": f"^\\p{{{name}}}$"})
    return {c for c in _every() if holds.is_valid(c)}


def _ranges(points: set[str]) -> list[tuple[int, int]]:
    """``points`` as sorted inclusive ranges of code points, adjacent ones merged."""
    merged: list[tuple[int, int]] = []
    for p in sorted(map(ord, points)):
        if merged and merged[-1][1] == p - 1:
            merged[-1] = (merged[-1][0], p)
        else:
            merged.append((p, p))
    return merged


def test_default_ignorable_table_is_unicodes_property():
    # the table is copied from DerivedCoreProperties.txt; this is how to refresh it
    theirs = _ranges(_property("Default_Ignorable_Code_Point"))
    assert list(text.DEFAULT_IGNORABLE) == theirs, (
        "write kistore.core._plain_text.DEFAULT_IGNORABLE = "
        + ", ".join(f"(0x{a:04X}, 0x{b:04X})" for a, b in theirs))


def test_whitespace_is_unicodes_white_space_and_the_four_separators():
    ours = {c for c in _every() if c.isspace()}
    assert ours - _property("White_Space") == {"\x1c", "\x1d", "\x1e", "\x1f"}
    assert _property("White_Space") <= ours


def test_blank_looking_is_the_list_less_what_unicode_covers():
    assert sorted(text.BLANK_LOOKING) == ["\u2800", "\ufffc", NOTEHEAD]
    listed = set(map(chr, text.INVISIBLE_LISTED))
    # every entry of the list prints as nothing, one way or another
    assert [f"U+{ord(c):04X}" for c in sorted(listed) if not text.prints_as_nothing(c)] == []
    # what the brief names (fresh17 F2)
    named = {0x2800, 0x3164, 0x115F, 0x1160, 0xFFA0, 0x1D159, *range(0x1D173, 0x1D17B),
             0x2062, 0x2063, 0x2064, 0x180E, 0x17B4, 0x17B5, 0x034F, 0xFEFF}
    assert [f"U+{p:04X}" for p in sorted(named) if not text.prints_as_nothing(chr(p))] == []


_FONTS = Path("/usr/share/fonts/truetype/dejavu")


@pytest.mark.skipif(not (_FONTS / "DejaVuSans.ttf").is_file(), reason="no fonts-dejavu-core")
@pytest.mark.parametrize("font", ["DejaVuSans.ttf", "DejaVuSansMono.ttf", "DejaVuSerif.ttf"])
def test_each_glyph_a_font_draws_empty_is_a_blank(font):
    # a glyph with no outline and a width: drawn as an empty cell. DejaVu draws U+2800 so,
    # and U+FFFC (its mono face); Unicode's properties say neither
    from fontTools.ttLib import TTFont

    face = TTFont(_FONTS / font)
    glyphs, widths = face["glyf"], face["hmtx"]
    empty = [chr(p) for p, g in face.getBestCmap().items()
             if glyphs[g].numberOfContours == 0 and widths[g][0] > 0]
    assert [f"U+{ord(c):04X}" for c in empty if not text.prints_as_nothing(c)] == []


@pytest.mark.parametrize(("kind", "pointer"), [
    ("Implementation", "/spec/project"),
    ("ExecutionEnvironment", "/spec/provider"),
    ("ExecutionEnvironment", "/spec/hardware/product"),
])
def test_a_null_notehead_is_refused_where_u2800_is(kit, kind, pointer):
    # fresh17 F2: each was added, rc 0, on BASE fb53db7b
    doc = kit.implementation("p0") if kind == "Implementation" else kit.environment()
    parent = doc["spec"]
    *path, last = pointer.split("/")[2:]
    for part in path:
        parent = parent[part]
    parent[last] = NOTEHEAD
    assert [(e.pointer, e.message) for e in check_manifest(doc)] == [(pointer, (
        f"'{NOTEHEAD}' holds U+1D159 MUSICAL SYMBOL NULL NOTEHEAD at character 1, a character "
        f"drawn as an empty cell (Unicode category So, yet it prints as a space does; {WHY}): "
        "write the name in visible characters"))]


def test_a_library_key_of_a_null_notehead_is_refused(kit):
    env = kit.environment()
    env["spec"]["software"]["libraries"] = {f"torch{NOTEHEAD}": "2.4"}
    assert [(e.pointer, e.message) for e in check_manifest(env)] == [(
        f"/spec/software/libraries/torch{NOTEHEAD}",
        f"the key 'torch{NOTEHEAD}' holds U+1D159 MUSICAL SYMBOL NULL NOTEHEAD at character "
        f"6, a character drawn as an empty cell (Unicode category So, yet it prints as a "
        f"space does; {WHY}): write 'torch'")]


def test_add_refuses_an_author_of_null_noteheads(runner, store, kit, tmp_path):
    impl = kit.implementation("proj", name="impl-b2")
    impl["spec"]["author"] = NOTEHEAD * 2
    path = tmp_path / "b2.json"
    path.write_text(json.dumps(impl))
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert (added.exit_code, added.stdout) == (1, "")
    assert added.stderr.startswith(
        f"error: {path}:/spec/author: '{NOTEHEAD * 2}' prints as nothing, holding only "
        "U+1D159 MUSICAL SYMBOL NULL NOTEHEAD at characters 1 and 2: a leaderboard shows the "
        "author as the row's label, and a blank one names no one (KI254, an error")


_BLANKS = sorted({c for c in _every() if c.isspace() or text.default_ignorable(c)}
                 | text.BLANK_LOOKING
                 | set(map(chr, getattr(text, "INVISIBLE_LISTED", ()))))
"""Every blank the rules know: Unicode's ``White_Space`` (and the four information
separators), ``Default_Ignorable_Code_Point``, and the list's characters drawn blank."""


@given(st.text(alphabet=st.sampled_from(_BLANKS), min_size=1, max_size=8))
def test_any_string_of_blanks_is_refused_as_a_name_and_as_an_author(value):
    assert text.prints_as_nothing(value)
    problem = _identifying_problem(value)
    assert problem is not None and problem.endswith(": write the name in visible characters")
    assert [found.rule_id for found in label_problems(AUTHOR, value)] == ["KI254"]


@given(st.text(alphabet=st.sampled_from(_BLANKS), max_size=4),
       st.sampled_from(["A", "\u00e9", "\u0416", "\u6f22", "7"]),
       st.text(alphabet=st.sampled_from(_BLANKS), max_size=4))
def test_one_visible_letter_among_blanks_is_no_blank(before, letter, after):
    value = before + letter + after
    assert not text.prints_as_nothing(value)
    assert "KI254" not in [found.rule_id for found in label_problems(AUTHOR, value)]
    # KI104 still refuses the blanks around it, and says to write the letter alone
    problem = _identifying_problem(value)
    assert (problem is None) == (value == letter)
    assert problem is None or problem.endswith(f": write {letter!r}")


def test_a_code_point_newer_than_pythons_data_is_said_so():
    # fresh17 F9 (2): U+0CF3 (Unicode 15.0) was "an unassigned code point (Unicode category
    # Cn)" while its script was Kannada; on a Python whose data assigns it, no such finding
    if unicodedata.category("\u0cf3") != "Cn":
        pytest.skip(f"this Python's Unicode {unicodedata.unidata_version} assigns U+0CF3")
    assert _identifying_problem("\u0c95\u0cf3") == (
        f"'\u0c95\\u0cf3' holds U+0CF3 at character 2, a code point this Python's Unicode "
        f"data does not assign (Unicode category Cn in Unicode {unicodedata.unidata_version}, "
        f"Python's unicodedata, by which kistore judges characters; Unicode "
        f"{text.scripts_version()}, whose scripts kistore reads from fontTools, assigns it to "
        f"the Kannada script; {WHY}): its category and normal forms cannot be judged on this "
        "Python: run kistore on a Python whose unicodedata.unidata_version assigns it, or "
        "write the name without it")
    assert text.scripts_version() == "18.0.0"  # the lock's fontTools 4.68.0


def test_a_code_point_unassigned_in_both_is_unassigned():
    assert _identifying_problem("A\u0378") == (
        f"'A\\u0378' holds U+0378 at character 2, an unassigned code point (Unicode category "
        f"Cn; {WHY}): write 'A'")


def test_an_author_of_a_newer_code_point_is_said_by_version():
    if unicodedata.category("\u0cf3") != "Cn":
        pytest.skip(f"this Python's Unicode {unicodedata.unidata_version} assigns U+0CF3")
    [found] = label_problems(AUTHOR, "\u0c95\u0cf3 Lab")
    assert found.rule_id == "KI251"
    assert found.said.startswith(
        "'\u0c95\\u0cf3 Lab' holds (1) U+0CF3 at character 2, a code point this Python's "
        f"Unicode data does not assign (Unicode category Cn in Unicode "
        f"{unicodedata.unidata_version}, Python's unicodedata, by which kistore judges "
        "characters; Unicode 18.0.0, whose scripts kistore reads from fontTools, assigns it "
        "to the Kannada script); (2) ")
