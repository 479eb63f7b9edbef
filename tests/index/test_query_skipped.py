"""Committed manifests the index build skips are listed, and every answer warns about them.

A push that skipped the hooks can commit a run whose bytes are not canonical (KI103) or
whose spec its schema refuses (KI104). `rank --at`, `ls` and `compare` left it out with
no word; a work-tree file that fails the same check was already named. Now the index
keeps a list of what its build skipped (path and why), and answers warn about it the
same way, in the same place.
"""

from __future__ import annotations

import json

import pytest

from kistore.core import canonical, layout
from kistore.core.digest import Digest
from kistore.index.index import Index, open_catalog
from kistore.query.answers import rank

from ..conftest import git
from ..query.test_query_cli import run

KI103 = "is not in canonical form (RFC 8785; `kistore verify`: KI103)"


def commit_past_the_hooks(root, message="by hand"):
    """Commit the work tree with git alone, as a push that skipped the hooks would."""
    git(root, "add", "-A", "store")
    git(root, "commit", "-qm", message)


def place_evil_run(store, how):
    """Write a copy of run `fast` with a better latency that verify refuses; return it.

    ``not canonical``: indented bytes under their own sha256 (KI103); ``not valid``:
    canonical bytes whose spec has a field the schema refuses (KI104).
    """
    fast = store.resolve("BenchmarkRun/fast")
    document = json.loads((store.root / layout.object_path(fast)).read_bytes())
    document["spec"]["timing"]["latencyNs"]["mean"] = 1
    if how == "not canonical":
        data = json.dumps(document, indent=1).encode()
        problem = KI103
    else:
        document["spec"]["evil"] = 1
        data = canonical.dumps(document)
        problem = "does not match its schema ("
    digest = Digest.of(data)
    for path, content in ((layout.object_path(digest), data),
                          (layout.metadata_path(digest), canonical.dumps({"name": "evil"}))):
        (store.root / path).parent.mkdir(parents=True, exist_ok=True)
        (store.root / path).write_bytes(content)
    return digest, problem


def summary(digest, at=None):
    """The first warning line; ``at`` as given on the command line (None: the work tree)."""
    verify = f"kistore verify --at {at}" if at else "kistore verify"
    return (f"warning: 1 manifest(s) committed at {at or 'HEAD'} do not verify and are left "
            f"out: {digest}; run `{verify}`")


def object_line(digest, problem):
    path = layout.object_path(digest)
    return (f"warning: {path}: the object file {problem}; it was committed so (past the "
            "hooks): an object never changes, so it stays left out")


@pytest.mark.parametrize("how", ["not canonical", "not valid"])
def test_a_committed_run_verify_refuses_is_listed_and_every_answer_warns(runner, group, how):
    digest, problem = place_evil_run(group, how)
    commit_past_the_hooks(group.root)
    head = str(group.commit("HEAD").id)
    for at in (["--at", "HEAD"], ["--at", head[:12]], []):
        where = at[1] if at else None
        for args in (("rank", "BenchmarkRun/slow", "--json"), ("ls", "--json"),
                     ("compare", "BenchmarkRun/slow", "--json"),
                     ("show", "BenchmarkRun/slow", "--json")):
            result = run(runner, group.root, *args, *at)
            assert result.exit_code == 0, (args, at, result.output)
            assert "evil" not in result.stdout, (args, at)
            lines = result.stderr.splitlines()
            assert lines[0] == summary(digest, where), (args, at)
            assert lines[1].startswith(object_line(digest, problem).split(problem)[0] + problem)
            assert lines[1].endswith("it was committed so (past the hooks): an object never "
                                     "changes, so it stays left out"), lines[1]
    catalog = open_catalog(group, "HEAD")
    path, why = catalog.skipped()[str(digest)]
    assert path == layout.object_path(digest) and why.startswith(problem)
    if how == "not valid":
        assert why.endswith("; KI104)")
    # the ranking is the one without it: fast (10 ns) first, as before the push
    _, ranking = rank(group, "BenchmarkRun/slow", at="HEAD")
    assert [(row.record.name, row.rank) for row in ranking.ranked] == [("fast", 1), ("slow", 2)]


def test_asking_for_a_skipped_run_names_its_file_and_says_it_was_committed_so(runner, group):
    digest, _ = place_evil_run(group, "not canonical")
    commit_past_the_hooks(group.root)
    path = layout.object_path(digest)
    for at in (["--at", "HEAD"], []):
        result = run(runner, group.root, "rank", str(digest), *at)
        assert result.exit_code == 1
        # the digest once: the path names it (review 2026-12-02)
        assert result.stderr == (
            f"error: {path}: the object file {KI103}; it was committed so (past the "
            "hooks): an object never changes, so it stays left out\n"), at


def test_a_committed_metadata_file_out_of_canonical_form_is_skipped_until_corrected(
        runner, group):
    """The metadata of a committed run rewritten by hand (indented) and pushed: skipped,
    with the metadata fix; corrected in the work tree, it is answered there at once; once
    the correction is committed, the incremental update drops it from the list."""
    slow = group.resolve("BenchmarkRun/slow")
    meta = group.root / layout.metadata_path(slow)
    good = meta.read_bytes()
    meta.write_bytes(json.dumps(json.loads(good), indent=2).encode())
    commit_past_the_hooks(group.root)
    result = run(runner, group.root, "ls", "--kind", "BenchmarkRun", "--at", "HEAD")
    assert result.exit_code == 0
    assert [line.split()[2] for line in result.stdout.splitlines()] == ["broken", "fast", "ref"]
    assert result.stderr.splitlines() == [
        summary(slow, "HEAD"),
        f"warning: {layout.metadata_path(slow)}: the metadata file {KI103}; it was committed "
        "so (past the hooks): write it again with `kistore add --update-metadata FILE` "
        "(FILE: the manifest holding the metadata wanted: `kistore cat --manifest DIGEST` "
        "prints one, with the last committed metadata that parses)"]  # fresh95 F9
    meta.write_bytes(good)  # corrected in the work tree only
    result = run(runner, group.root, "ls", "--kind", "BenchmarkRun")
    assert (result.exit_code, result.stderr) == (0, "")
    assert [line.split()[2] for line in result.stdout.splitlines()] == [
        "broken", "fast", "ref", "slow"]
    result = run(runner, group.root, "ls", "--kind", "BenchmarkRun", "--at", "HEAD")
    assert result.stderr.splitlines()[0] == summary(slow, "HEAD")
    commit_past_the_hooks(group.root, "correct slow's metadata")
    assert open_catalog(group, "HEAD").skipped() == {}
    result = run(runner, group.root, "rank", "BenchmarkRun/slow", "--at", "HEAD~1")
    assert result.exit_code == 1 and "committed so" in result.stderr  # history still has it
    result = run(runner, group.root, "rank", "BenchmarkRun/slow")
    assert (result.exit_code, result.stderr) == (0, "")


def test_reindex_and_a_scan_list_the_same_skipped_files(runner, group):
    digest, _ = place_evil_run(group, "not valid")
    commit_past_the_hooks(group.root)
    listed = open_catalog(group, "HEAD").skipped()
    assert list(listed) == [str(digest)]
    result = run(runner, group.root, "reindex", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["skipped"] == [
        {"digest": str(digest), "path": listed[str(digest)][0],
         "problem": listed[str(digest)][1]}]
    conn = Index(group).open()
    assert conn.execute("SELECT digest, path, problem FROM skipped").fetchall() == [
        (str(digest), *listed[str(digest)])]
    result = run(runner, group.root, "reindex")
    assert result.exit_code == 0
    path, problem = listed[str(digest)]
    assert result.stdout.splitlines()[1] == f"skipped {path}: {problem}"
    assert problem.startswith("does not match its schema (") and problem.endswith("; KI104)")
    scanned = open_catalog(group, "HEAD", use_index=False)
    assert scanned.skipped() == listed


def test_a_clean_store_skips_nothing_and_answers_say_nothing(runner, group):
    assert open_catalog(group, "HEAD").skipped() == {}
    for args in (("rank", "BenchmarkRun/slow"), ("ls",), ("rank", "BenchmarkRun/slow",
                                                          "--at", "HEAD")):
        result = run(runner, group.root, *args)
        assert (result.exit_code, result.stderr) == (0, ""), args
