"""--since in a shallow clone never turns a known firstCommit/permalink into null (r81 F9).

An export made in a full clone knows the commit that first added every object; CI's
depth-1 checkout does not reach those commits. ``export --since`` there used to append every
old run again with ``firstCommit`` and ``permalink`` null, exit 0: the row of the highest
generation is the current one, so every citation of the published export disappeared.
"""

from __future__ import annotations

import json
from pathlib import Path

from kistore.core.digest import Digest
from kistore.core.layout import object_path
from kistore.store import Store

from ..conftest import add_docs, git
from .conftest import cli, export_ok, files

REMOTE = "https://github.com/o/r.git"


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def shallow_clone(source: Store, target: Path) -> Store:
    """A depth-1 file:// clone of ``source`` (CI's default checkout) with its attestation
    notes, its origin a forge."""
    git(target.parent, "clone", "-q", "--depth", "1", f"file://{source.root}", str(target))
    git(target, "fetch", "-q", f"file://{source.root}", "refs/notes/kistore:refs/notes/kistore",
        "refs/notes/kistore:refs/notes/remotes/origin/kistore")  # as `notes fetch` leaves it
    git(target, "remote", "set-url", "origin", REMOTE)
    return Store(target)


def new_run(store: Store, kit, workload: str) -> str:
    """Commit one run of a workload no other run has (a comparison group of its own)."""
    docs = [kit.protocol("synthetic", name="proto-measured"),
            kit.environment("NVIDIA H100", name="env-h100"),
            kit.implementation("proj-a", name="impl-a"), kit.workload(workload, name=workload)]
    docs[1]["spec"]["hardware"]["architecture"] = "sm_90"
    run = kit.run(*docs, latency=7, name=f"{workload}-run")
    add_docs(store, [docs[3], run])
    return kit.digest(run)


def test_since_in_a_depth_1_clone_refuses_to_null_a_full_clones_citations(
        runner, fixture, kit, tmp_path):
    full = fixture.store
    git(full.root, "remote", "add", "origin", REMOTE)
    # the publisher's own store, its notes pushed (`kistore notes push` leaves this ref)
    git(full.root, "update-ref", "refs/notes/remotes/origin/kistore", "refs/notes/kistore")
    c1 = git(full.root, "rev-parse", "HEAD").strip()
    out = tmp_path / "out"
    export_ok(runner, full, out, "--format", "jsonl")
    first = {r["name"]: r for r in rows(out / "runs" / "part-00000.jsonl")}
    path = object_path(Digest.from_str(fixture.digests["h100-a"]))
    added = git(full.root, "log", "--format=%H", "--diff-filter=A", "--", path).split()
    assert len(added) == 1
    assert first["h100-a"]["firstCommit"] == added[0]
    assert first["h100-a"]["permalink"] == f"https://github.com/o/r/blob/{added[0]}/{path}"
    assert sum(r["firstCommit"] is None for r in first.values()) == 0
    before = files(out)

    clone = shallow_clone(full, tmp_path / "clone")
    new_run(clone, kit, "softmax")
    result = cli(runner, clone, "export", str(out), "--since", c1)
    assert result.exit_code == 1, result.output
    assert (f"this is a shallow clone: {fixture.runs} runs row(s) of the export at "
            f"{c1[:12]} would be written again with no firstCommit or permalink (e.g. "
            ) in result.output
    assert ("Nothing was written: `git fetch --unshallow` (CI: a full checkout, e.g. "
            "actions/checkout with fetch-depth: 0) and export again") in result.output
    assert "Traceback" not in result.output
    assert files(out) == before  # no generation appended, no file left behind

    # the clone made whole: the same --since appends only the new run, cited
    git(clone.root, "fetch", "-q", "--unshallow", f"file://{full.root}")
    export_ok(runner, Store(clone.root), out, "--since", c1)
    appended = rows(out / "runs" / "part-00001.jsonl")
    head = git(clone.root, "rev-parse", "HEAD").strip()
    assert [(r["name"], r["firstCommit"], r["generation"]) for r in appended] == [
        ("softmax-run", head, 1)]


def test_since_in_a_shallow_clone_appends_when_no_known_citation_is_lost(
        runner, fixture, kit, tmp_path):
    """An export made in the shallow clone itself (every old row already without a
    firstCommit): a new run in a group of its own rewrites no old row, and is cited."""
    git(fixture.store.root, "remote", "add", "origin", REMOTE)
    clone = shallow_clone(fixture.store, tmp_path / "clone")
    c1 = git(clone.root, "rev-parse", "HEAD").strip()
    out = tmp_path / "out"
    made = export_ok(runner, clone, out, "--format", "jsonl")
    assert "warning: this is a shallow clone" in made.output
    assert {r["firstCommit"] for r in rows(out / "runs" / "part-00000.jsonl")} == {None}
    digest = new_run(clone, kit, "softmax")
    c2 = git(clone.root, "rev-parse", "HEAD").strip()
    export_ok(runner, clone, out, "--since", c1)
    appended = rows(out / "runs" / "part-00001.jsonl")
    path = object_path(Digest.from_str(digest))
    assert [(r["name"], r["firstCommit"], r["permalink"]) for r in appended] == [
        ("softmax-run", c2, f"https://github.com/o/r/blob/{c2}/{path}")]
