"""Text output says how to fix what it found (reviewer r85 F5).

`verify`, `check` and so the git hooks printed each finding and the summary in text, and
the fix only in `--json` ("hint") and `--format github` ("Fix: ..."). Text now ends, before
the summary, with one ``fix KI... (N findings): HINT`` line per distinct rule and hint of
its errors and warnings; since 2026-12-05 one line per rule, its distinct hints numbered.
"""

from __future__ import annotations

import json

from kistore.check._rules import OBJECT_DIGEST_MISMATCH
from kistore.cli import main
from kistore.core.findings import ERROR, INFO, Finding, Rule, fix_lines

from ..conftest import add_docs


def _tampered(store, kit) -> list[str]:
    """Two stored objects and their metadata files with a byte appended: two KI101 (the
    objects' edit is one cause: no KI103 of their bytes, fresh98 MED 4) and two KI103 (the
    metadata's) errors."""
    docs = [kit.workload("a", name="wa"), kit.workload("b", name="wb")]
    add_docs(store, docs)
    paths = sorted((store.root / "store/objects/sha256").rglob("*.json"))[:2]
    for path in (*paths, *sorted((store.root / "store/metadata/sha256").rglob("*.json"))):
        path.chmod(0o644)
        path.write_bytes(path.read_bytes() + b" ")
    return [str(p.relative_to(store.root)) for p in paths]


def test_text_output_ends_with_one_fix_line_per_rule_before_the_summary(runner, store, kit):
    _tampered(store, kit)
    result = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    fixes = [line for line in lines if line.startswith("fix ")]
    assert fixes[1] == ("fix KI101 (2 findings): restore the object's original bytes from "
                        "git (`git checkout HEAD -- PATH`), or, for an object never committed (a "
                        "plain `kistore add`), `kistore drop DIGEST` and add the corrected "
                        "manifest again; objects are never edited: add a new manifest instead")
    # in the findings' order: the metadata files' KI103 first (store/metadata/ sorts first)
    assert [f.split(" (")[0] for f in fixes] == ["fix KI103", "fix KI101", "fix KI401"]
    assert lines[-1].startswith("FAILED: store at work tree: 6 errors")
    assert lines[-1 - len(fixes):-1] == fixes  # after every finding, before the summary
    assert not any(f.startswith("fix KI308") for f in fixes)  # info: nothing to fix


def test_json_and_github_formats_are_unchanged(runner, store, kit):
    _tampered(store, kit)
    as_json = runner.invoke(main, ["--store", str(store.root), "verify", "--json"])
    document = json.loads(as_json.output)
    assert "fix " not in as_json.output.split('"findings"')[0]
    assert {f["rule"] for f in document["findings"]} >= {"KI101", "KI103"}
    github = runner.invoke(main, ["--store", str(store.root), "verify", "--format", "github"])
    assert not any(line.startswith("fix ") for line in github.output.splitlines())
    assert ". Fix: restore the object's original bytes" in github.output


def test_fix_lines_count_per_rule_and_hint_in_first_order():
    other = Rule("KI999", "test-only", INFO, "nothing")  # not registered
    a = Finding(OBJECT_DIGEST_MISMATCH, "x", file="a")
    b = Finding(OBJECT_DIGEST_MISMATCH, "y", file="b", fix="a fix of its own\nsecond line")
    assert OBJECT_DIGEST_MISMATCH.severity == ERROR
    # one line per rule: its hints that differ numbered in first order, each once
    assert fix_lines([b, a, Finding(other, "z"), a]) == [
        "fix KI101 (3 findings): (1) a fix of its own\\nsecond line; "  # one line, escaped
        f"(2) {OBJECT_DIGEST_MISMATCH.hint}"]
    assert fix_lines([a, a]) == [f"fix KI101 (2 findings): {OBJECT_DIGEST_MISMATCH.hint}"]
    assert fix_lines([Finding(other, "z")]) == []


def test_two_findings_of_one_rule_with_fixes_of_their_own_print_the_rule_once(
        runner, store, kit):
    # Two copies of stored objects at paths off the layout: KI110 each, with a fix naming
    # its file (`rm PATH`); the text printed `fix KI110` twice, a line a fix.
    add_docs(store, [kit.workload("a", name="wa"), kit.workload("b", name="wb")])
    objects = sorted((store.root / "store/objects/sha256").rglob("*.json"))
    copies = []
    for path in objects:
        copy = path.with_name("copy-" + path.name)
        copy.write_bytes(path.read_bytes())
        copies.append(str(copy.relative_to(store.root)))
    result = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert result.exit_code == 1
    fixes = [line for line in result.output.splitlines() if line.startswith("fix ")]
    assert fixes == [
        f"fix KI110 (2 findings): (1) a copy of a stored object: remove it with `rm "
        f"{copies[0]}` (from the top of the clone); nothing else is to be written or "
        f"removed for it; (2) a copy of a stored object: remove it with `rm {copies[1]}` "
        "(from the top of the clone); nothing else is to be written or removed for it"]
