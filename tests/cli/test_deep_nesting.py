"""A committed file nested thousands of levels deep is a finding, never a crash (review r60).

F8 (high): one object file of 3,000 nested ``[`` (6 KB, committed past the hooks) stopped
``check``, ``ls``, ``rank``, ``show``, ``cat`` and ``add`` with "internal error: this is a
bug in kistore (RecursionError ...)", and ``check --json`` printed nothing: a lenient
``json.loads`` read each file for its kind and name before the strict parser (which
refuses past 64 levels: KI102) saw it. The same with a deep metadata file, and with a deep
``store/trust/keys.json`` (``verify`` too). F24: a deeply nested TOML value, even in
``[cite]``, crashed every command (``tomllib`` recurses) instead of KI108 and the queries'
"use the default limits" warning.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import InputError
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import PUBLISHED, commit_all, git, store_file, write_raw

DEEP = "nesting deeper than 64 levels; flatten the document to at most 64 levels"
TOO_DEEP_TOML = ("not valid TOML for kistore: arrays or inline tables nest 3000 levels deep, "
                 "deeper than Python's TOML parser reads (a few hundred levels); flatten the "
                 "value")
RUN = "BenchmarkRun/sol-submission-20464"
OTHER = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
         "metadata": {"name": "other-workload"},
         "spec": {"suite": {"name": "synthetic"}, "definition": "other"}}
"""A manifest unrelated to the damaged file: the store must still take it."""


def invoke(runner, root: Path, *args: str):
    return runner.invoke(main, ["--store", str(root), *args])


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def nested(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def errors(result) -> list[tuple[str, str]]:
    """``(rule, file)`` of each error finding of one ``--json`` document on stdout."""
    document = json.loads(result.stdout)  # exactly one JSON document, or this fails
    return sorted((f["rule"], f["file"]) for f in document["findings"]
                  if f["severity"] == "error")


def commit_deep_object(root: Path, levels: int) -> str:
    """Commit past the hooks a Workload object whose spec nests ``levels`` arrays, with its
    metadata and names file (as F8's deep.py does); return the object's path."""
    body = (b'{"apiVersion":"kernelindex.dev/v1alpha1","kind":"Workload","spec":{"x":'
            + nested(levels) + b"}}")
    digest = str(Digest.of(body))
    write_raw(root, store_file(digest), body)
    write_raw(root, store_file(digest, "metadata"), b'{"name":"deep"}')
    write_raw(root, _name_path("Workload", "deep"), f"{digest}\n".encode())
    commit_all(root, "deep object")
    return store_file(digest)


def _name_path(kind: str, name: str) -> str:
    return str(layout.name_path(kind, name))


def assert_queries_leave_it_out(runner, root: Path, digest: str, path: str) -> None:
    """ls, rank, show and cat answer for the other manifests and name the damaged file."""
    listed = invoke(runner, root, "ls")
    assert listed.exit_code == 0, listed.output
    assert sorted(line.split()[0] for line in listed.stdout.splitlines()) == sorted(
        PUBLISHED.values())
    assert f"do not verify and are left out: {digest}; run `kistore verify`" in listed.stderr
    assert f"warning: {path}: " in listed.stderr
    assert f"does not parse ({DEEP})" in listed.stderr
    ranked = invoke(runner, root, "rank", PUBLISHED["run"][:15], "--json")
    assert ranked.exit_code == 0, ranked.output
    assert [r["digest"] for r in json.loads(ranked.stdout) if r["rank"]] == [PUBLISHED["run"]]
    shown = invoke(runner, root, "show", RUN)
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith("sol-submission-20464: ")
    cat = invoke(runner, root, "cat", RUN)
    assert cat.exit_code == 0, cat.output
    assert json.loads(cat.stdout)["kind"] == "BenchmarkRun"
    for result in (listed, ranked, shown, cat):
        assert "internal error" not in result.output


@pytest.mark.parametrize("levels", [3000, 200_000])
def test_a_deep_object_is_ki102_and_queries_and_add_go_on(runner, published, tmp_path,
                                                          levels):
    base = head(published)
    path = commit_deep_object(published, levels)
    digest = "sha256:" + path.removeprefix("store/objects/sha256/").replace("/", "")[:-5]
    # the gate: one KI102 on the file, as text and as one JSON document
    checked = invoke(runner, published, "check", "--json", f"{base}..HEAD")
    assert checked.exit_code == 1, checked.output
    assert errors(checked) == [("KI102", path)]
    [finding] = json.loads(checked.stdout)["findings"]
    assert (finding["message"], finding["line"]) == (DEEP, 1)
    assert finding["pointer"] == "/spec/x" + "/0" * 62  # the 65th level opens there
    text = invoke(runner, published, "check", f"{base}..HEAD")
    assert text.exit_code == 1
    assert f"{path}:1:134:" in text.output and "error KI102 json-parse-error" in text.output
    verified = invoke(runner, published, "verify", "--json")
    assert verified.exit_code == 1
    assert errors(verified) == [("KI102", path)]
    assert_queries_leave_it_out(runner, published, digest, path)
    # the store still takes an unrelated manifest
    other = tmp_path / "other.json"
    other.write_text(json.dumps(OTHER))
    added = invoke(runner, published, "add", "--allow-dangling", str(other))
    assert added.exit_code == 0, added.output
    assert added.stdout == f"{Manifest.from_document(OTHER).digest} Workload other-workload\n"


def test_deep_metadata_beside_a_valid_object_is_ki102_on_the_metadata(runner, published):
    base = head(published)
    workload = Manifest.from_document({**OTHER, "metadata": {"name": "deepmeta"}})
    digest = str(workload.digest)
    metadata = store_file(digest, "metadata")
    write_raw(published, store_file(digest), workload.object_bytes)
    write_raw(published, metadata,
              b'{"annotations":{"a":' + nested(3000) + b'},"name":"deepmeta"}')
    names_file = _name_path("Workload", "deepmeta")
    write_raw(published, names_file, f"{digest}\n".encode())
    commit_all(published, "deep metadata")
    checked = invoke(runner, published, "check", "--json", f"{base}..HEAD")
    assert checked.exit_code == 1, checked.output
    # the names file claims a name its manifest's metadata cannot be read for: the
    # metadata's KI102 says why, and no KI212 "(no name)" follows it (review 2026-12-02 F17)
    assert errors(checked) == [("KI102", metadata)]
    [parse] = [f for f in json.loads(checked.stdout)["findings"] if f["rule"] == "KI102"]
    assert (parse["message"], parse["pointer"]) == (DEEP, "/annotations/a" + "/0" * 62)
    verified = invoke(runner, published, "verify", "--json")
    assert errors(verified) == [("KI102", metadata)]
    assert_queries_leave_it_out(runner, published, digest, metadata)


def test_a_deep_trust_file_is_ki309_in_check_and_verify(runner, published):
    base = head(published)
    write_raw(published, "store/trust/keys.json", nested(5000))
    commit_all(published, "deep keys.json")
    for args in (["check", "--json", f"{base}..HEAD"], ["verify", "--json"]):
        result = invoke(runner, published, *args)
        assert result.exit_code == 1, result.output
        assert errors(result) == [("KI309", "store/trust/keys.json")]
        [finding] = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "KI309"]
        assert finding["message"] == DEEP
    pushed = runner.invoke(main, ["--store", str(published), "check", "--json", "--updates",
                                  "-"], input=f"{base} {head(published)} refs/heads/topic\n")
    assert pushed.exit_code == 1, pushed.output
    assert errors(pushed) == [("KI309", "store/trust/keys.json")]
    listed = invoke(runner, published, "ls")  # queries do not read the trust file
    assert listed.exit_code == 0, listed.output


def test_a_range_nesting_a_metadata_file_deep_is_ki102_with_its_update(runner, published):
    # the gate's "metadata changed" (KI405) diff read the new bytes with json.loads
    base = head(published)
    metadata = store_file(PUBLISHED["environment"], "metadata")
    name = json.loads((published / metadata).read_bytes())["name"]
    write_raw(published, metadata,
              b'{"annotations":{"a":' + nested(3000) + b'},"name":"' + name.encode() + b'"}')
    commit_all(published, "deep metadata update")
    checked = invoke(runner, published, "check", "--json", f"{base}..HEAD")
    assert checked.exit_code == 1, checked.output
    found = sorted((f["rule"], f["file"], f["message"])
                   for f in json.loads(checked.stdout)["findings"])
    assert found == [("KI102", metadata, DEEP),
                     ("KI405", metadata, "metadata changed: bytes changed")]


def store_deep_metadata(root: Path, metadata: bytes) -> tuple[str, str]:
    """Commit past the hooks a valid Workload object named deepmeta with ``metadata`` beside
    it; return its digest and metadata path."""
    workload = Manifest.from_document({**OTHER, "metadata": {"name": "deepmeta"}})
    digest = str(workload.digest)
    write_raw(root, store_file(digest), workload.object_bytes)
    write_raw(root, store_file(digest, "metadata"), metadata)
    write_raw(root, _name_path("Workload", "deepmeta"), f"{digest}\n".encode())
    commit_all(root, "deep metadata")
    return digest, store_file(digest, "metadata")


GIVEN = {**OTHER, "metadata": {"name": "deepmeta", "title": "t"}}
"""The manifest of :func:`store_deep_metadata`'s object, with a title."""


def test_add_beside_metadata_1000_deep_says_the_stored_file_is_not_json(
        runner, published, tmp_path):
    # orjson reads 1,000 levels (it stops at 1,024): the stored name is deepmeta, so the
    # given metadata conflicts, and the difference was written with json.dumps, which
    # recursed ("internal error")
    digest, _ = store_deep_metadata(
        published, b'{"annotations":{"a":' + nested(1000) + b'},"name":"deepmeta"}')
    given = tmp_path / "given.json"
    given.write_text(json.dumps(GIVEN))
    added = invoke(runner, published, "add", "--allow-dangling", str(given))
    assert added.exit_code == 1, added.output
    assert added.stderr == (
        f"error: {given}:/metadata: {digest} is already stored with other metadata (the "
        "stored metadata file is not valid JSON: `kistore verify` reports it); pass "
        "--update-metadata to replace it\n")


@pytest.mark.parametrize("metadata", [
    b'{"annotations":{"a":' + nested(3000) + b'},"name":"deepmeta"}',
    b'{"annotations":{"a":[]},"name":"deepmeta"',  # cut short: what a malformed file gets
], ids=["3000-deep", "truncated"])
def test_add_over_committed_metadata_nested_past_any_parser_restores_it_as_a_malformed_one(
        runner, published, tmp_path, metadata):
    # 3,000 levels: json.loads recursed ("internal error"); now it is a file that does not
    # parse, whose name nobody can read: the given manifest's metadata takes its place
    digest, path = store_deep_metadata(published, metadata)
    given = tmp_path / "given.json"
    given.write_text(json.dumps(GIVEN))
    added = invoke(runner, published, "add", "--allow-dangling", str(given))
    assert added.exit_code == 0, added.output
    assert added.stdout == f"{digest} Workload deepmeta\n"
    assert (published / path).read_bytes() == Manifest.from_document(GIVEN).metadata_bytes


def deep_toml(root: Path) -> None:
    settings = root / "kistore.toml"
    text = settings.read_text()
    assert text.count("\n[cite]\n") == 1  # `kistore init` writes the table
    settings.write_text(text.replace("\n[cite]\n", "\n[cite]\nfoo = " + "[" * 3000 + "]" * 3000
                                     + "\n"))


def toml_line(root: Path) -> int:
    lines = (root / "kistore.toml").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith("foo = "))


def test_a_deep_toml_value_is_ki108_in_the_gate(runner, published, tmp_path):
    base = head(published)
    deep_toml(published)
    line = toml_line(published)
    broken = commit_all(published, "deep toml")
    git(published, "checkout", "-q", base)  # CI checking from BASE's checkout
    checked = invoke(runner, published, "check", "--json", f"{base}..{broken}")
    assert checked.exit_code == 1, checked.output
    [finding] = json.loads(checked.stdout)["findings"]
    assert (finding["rule"], finding["file"], finding["message"]) == (
        "KI108", "kistore.toml", TOO_DEEP_TOML)
    assert (finding["line"], finding["column"]) == (line, len("foo = ") + 3000)
    # a bare repository (a server's hook, --at HEAD): the gate and the queries
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(bare))
    git(bare, "fetch", "-q", str(published), f"{broken}:refs/heads/topic")
    pushed = runner.invoke(main, ["--store", str(bare), "check", "--json", "--updates", "-"],
                           input=f"{base} {broken} refs/heads/topic\n")
    assert pushed.exit_code == 1, pushed.output
    assert errors(pushed) == [("KI108", "kistore.toml")]
    git(bare, "update-ref", "HEAD", broken)
    ranked = invoke(runner, bare, "rank", PUBLISHED["run"][:15], "--at", "HEAD", "--json")
    assert ranked.exit_code == 0, ranked.output
    assert [r["digest"] for r in json.loads(ranked.stdout) if r["rank"]] == [PUBLISHED["run"]]


def test_a_deep_toml_value_leaves_queries_on_the_defaults(runner, published, caplog):
    deep_toml(published)
    line = toml_line(published)
    file = f"{published / 'kistore.toml'}:{line}:{len('foo = ') + 3000}"
    with pytest.raises(InputError, match="arrays or inline tables nest 3000 levels deep"):
        Store(published).limits()
    ranked = invoke(runner, published, "rank", PUBLISHED["run"][:15], "--json")
    assert ranked.exit_code == 0, ranked.output
    assert [r["digest"] for r in json.loads(ranked.stdout) if r["rank"]] == [PUBLISHED["run"]]
    listed = invoke(runner, published, "ls")
    assert listed.exit_code == 0, listed.output
    said = [r.getMessage() for r in caplog.records if r.name == "kistore.index"]
    assert said == [f"warning: {file}: {TOO_DEEP_TOML}; queries use the default limits until "
                    "kistore.toml is fixed (`kistore verify` reports it; `add` refuses it)"]
    verified = invoke(runner, published, "verify", "--json")
    assert verified.exit_code == 1, verified.output
    settings = [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI108"]
    assert [(f["file"], f["message"]) for f in settings] == [("kistore.toml", TOO_DEEP_TOML)], \
        settings  # verify reports it (units60) and checks the rest under the defaults
    cited = invoke(runner, published, "cite", RUN)
    assert cited.exit_code == 1
    assert cited.stderr == f"error: {file}: {TOO_DEEP_TOML}\n"
    assert "internal error" not in ranked.output + listed.output + verified.output
