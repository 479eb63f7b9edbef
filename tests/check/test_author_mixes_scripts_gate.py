"""The pull-request check warns of a new Implementation whose ``author`` mixes scripts (KI251).

review01 M4: ``kistore add`` warned of ``Qin Liu @ U\\u0421D`` (a Cyrillic ``С`` among
Latin letters, printed on the leaderboard as another submitter's ``Qin Liu @ UCD``), but
someone doing it on purpose writes the JSON by hand or ignores the warning, and ``check``,
pre-receive and ``verify`` said nothing: the reviewer never saw it.
"""

from __future__ import annotations

import json

import pytest

from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import commit_all, git
from ..store.test_author_every_problem import KI104
from ..store.test_author_scripts import LOOK_ALIKE

KI253_FIX = (
    # conf02: the fix names an environment's provider too, and a manifest
    "fix KI253 (1 finding): if the author (or an environment's provider) is not meant to "
    "pass for the Latin name it prints as, write it as it is known in Latin letters, or "
    "with a letter that does not look Latin: objects are never edited, so add the "
    "corrected manifest as a new object and drop this one from the branch (`kistore drop "
    "DIGEST` before committing, or rewrite the branch without it); a name written so on "
    "purpose stays (a warning)")
"""The line ``check`` prints after one KI253 finding."""


def _add_implementation(runner, root, kit, tmp_path, author: str) -> str:
    impl = kit.implementation("p0", name=f"impl-{len(author)}")
    impl["spec"]["author"] = author
    path = tmp_path / "impl.json"
    path.write_text(json.dumps(impl))
    added = runner.invoke(main, ["--store", str(root), "add", str(path)])
    assert added.exit_code == 0, added.output
    commit_all(root, "an implementation")
    return kit.digest(impl)


def _added_since(runner, published, kit, tmp_path, author: str) -> tuple[str, str]:
    """Add and commit an Implementation of ``author``: (the commit before, its object's path)."""
    base = git(published, "rev-parse", "HEAD").strip()
    digest = _add_implementation(runner, published, kit, tmp_path, author)
    return base, layout.object_path(Digest.from_str(digest))


def _checked(runner, published, base: str) -> list[str]:
    """Return the lines ``kistore check BASE..HEAD`` prints, asserting it exits 0."""
    said = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert said.exit_code == 0, said.output
    return said.output.splitlines()


def test_a_new_implementation_whose_author_mixes_scripts_is_a_gate_warning(
        runner, published, kit, tmp_path):
    base, obj = _added_since(runner, published, kit, tmp_path, LOOK_ALIKE)
    # on BASE 440899c7: `check` said nothing of it (0 warnings)
    assert _checked(runner, published, base) == [
        # fresh13 LOW 3: named author-prints-as-another (it was author-mixes-scripts)
        f"{obj}:/spec/author: warning KI251 author-prints-as-another: 'Qin Liu @ U\u0421D' "
        "holds U+0421 CYRILLIC CAPITAL LETTER ES at character 12, of the Cyrillic script, "
        "after U+0051 LATIN CAPITAL LETTER Q at character 1, of the Latin script: a "
        "leaderboard shows the author as the row's label, where a letter of one script that "
        "looks like another's passes for it (Unicode TS #39 §5.2 allows one script, or Latin "
        "with Japanese, Chinese or Korean writing) (KI104 refuses this " + KI104,
        "fix KI251 (1 finding): if that is not meant, retype it in one script: objects are "
        "never edited, so add the corrected "
        "Implementation as a new object and drop this one from the branch (`kistore drop "
        "DIGEST` before committing, or rewrite the branch without it); a name written so on "
        "purpose stays (a warning)",
        f"ok: {base}..HEAD: 0 errors, 1 warning, 0 info"]
    [finding] = [f for f in check_range(Store(published), f"{base}..HEAD")
                 if f.rule.id == "KI251"]
    assert (finding.severity, finding.file, finding.pointer) == ("warning", obj, "/spec/author")
    # once landed, the next range does not say it again; nor does `verify`
    again = git(published, "rev-parse", "HEAD").strip()
    (published / "NOTES.md").write_text("notes\n")
    commit_all(published, "notes")
    assert [f for f in check_range(Store(published), f"{again}..HEAD")
            if f.rule.id == "KI251"] == []
    verified = runner.invoke(main, ["--store", str(published), "verify", "--json"])
    assert "KI251" not in verified.output


def test_an_author_of_one_script_or_an_allowed_mix_is_not_said(runner, published, kit,
                                                               tmp_path):
    base = git(published, "rev-parse", "HEAD").strip()
    _add_implementation(runner, published, kit, tmp_path, "\u5c71\u7530 Taro")
    _add_implementation(runner, published, kit, tmp_path, "Jos\u00e9 M\u00fcller")
    # fresh08 M4: on BASE d581adf8 each was KI251, "of the Modifier script", "of the Micro
    # script" (a script taken from the first word of a character's name)
    _add_implementation(runner, published, kit, tmp_path, "Ka\u02bbimi Nakamura")
    _add_implementation(runner, published, kit, tmp_path, "\u00b5Kernel Labs")
    assert [f for f in check_range(Store(published), f"{base}..HEAD")
            if f.rule.id == "KI251"] == []


def test_an_invisible_character_in_a_new_author_is_a_gate_warning(runner, published, kit,
                                                                   tmp_path):
    # fresh10 MED 3: on BASE 04156861 `check` said nothing (0 warnings): 'Qin\u200b Liu @ UCD'
    # printed as another submitter's 'Qin Liu @ UCD' with no word anywhere
    base, obj = _added_since(runner, published, kit, tmp_path, "Qin\u200b Liu @ UCD")
    [finding] = [f for f in check_range(Store(published), f"{base}..HEAD")
                 if f.rule.id in ("KI251", "KI253")]
    assert (finding.rule.id, finding.file, finding.pointer, finding.message) == (
        "KI251", obj, "/spec/author",
        "'Qin\\u200b Liu @ UCD' holds U+200B ZERO WIDTH SPACE at character 4, an invisible "
        "format character (Unicode category Cf): a leaderboard shows the author as the row's "
        "label, where an invisible character prints as nothing and other whitespace as a "
        "plain space: it prints as 'Qin Liu @ UCD', differing only as text from an author "
        "written so (KI104 refuses this " + KI104)


def test_a_new_author_wholly_in_cyrillic_that_prints_as_latin_is_a_gate_warning(
        runner, published, kit, tmp_path):
    # conf01: on BASE 04156861 `check` said nothing of 'НРЕ' (one script: no KI251)
    base, obj = _added_since(runner, published, kit, tmp_path, "\u041d\u0420\u0415")
    assert _checked(runner, published, base) == [
        f"{obj}:/spec/author: warning KI253 author-looks-latin: '\u041d\u0420\u0415' is written "
        "wholly in the Cyrillic script, yet each of its letters looks like a Latin one, U+041D "
        "CYRILLIC CAPITAL LETTER EN at character 1 first (as 'H'): its skeleton (Unicode TS "
        "#39 §4, marks dropped) is 'HPE', that of the Latin letters it prints as, and a "
        "leaderboard shows the author as the row's label, where it can pass for a Latin "
        "author's",
        KI253_FIX,
        f"ok: {base}..HEAD: 0 errors, 1 warning, 0 info"]
    verified = runner.invoke(main, ["--store", str(published), "verify", "--json"])
    assert "KI253" not in verified.output


@pytest.mark.parametrize(("author", "rule_id", "message"), [
    # fresh12 F4: on BASE 44ee2268 `check` said nothing: 'HPE ' printed on the site as 'HPE'
    ("HPE ", "KI251",
     "'HPE ' holds U+0020 SPACE at character 4, trailing whitespace: a leaderboard shows the "
     "author as the row's label, where a web page prints a space at either end as nothing "
     "and two in a row as one: it prints as 'HPE', differing only as text from an author "
     "written so (KI104 refuses this " + KI104),
    # one owner of a line break, KI219, in `add` as in `check` (no KI251 too)
    ("HPE\u2028", "KI219",
     "the author holds U+2028 LINE SEPARATOR at character 4: a citation prints it within "
     "one line (escaped, as \\n); written raw it would read as lines of the citation")])
def test_a_spaced_author_is_kI251_and_a_broken_one_kI219_alone(runner, published, kit, tmp_path,
                                                               author, rule_id, message):
    base, obj = _added_since(runner, published, kit, tmp_path, author)
    [finding] = [f for f in check_range(Store(published), f"{base}..HEAD")
                 if f.rule.id in ("KI219", "KI251", "KI253")]
    assert (finding.rule.id, finding.file, finding.pointer, finding.message) == (
        rule_id, obj, "/spec/author", message)
