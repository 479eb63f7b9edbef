"""``add --update-metadata`` judges a committed object's new metadata against HEAD's.

Reviewer break96 H3: a committed run's metadata file broken in the work tree (a duplicate
key) was taken as the stored metadata, so ``add --update-metadata`` of the manifest
``cat --manifest`` printed (its metadata as far as it parsed: the other name) renamed the
committed run and dropped its ``kernelindex.dev/*`` annotations, exit 0: what README ("a
committed name never moves") and KI432 say ``add`` refuses. Only the gate refused it.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import add_docs, git

CAUTION = "UNCLEAR: internal testing only; do not republish"


def _committed_run(store, kit) -> tuple[dict, Digest]:
    """Commit one run carrying an importer's annotations; return (its document, digest)."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=10, name="fast")
    run["metadata"]["annotations"] = {"kernelindex.dev/license": CAUTION,
                                      "kernelindex.dev/source": "lab-a"}
    add_docs(store, [protocol, env, workload, impl, run])
    return run, Digest.from_str(kit.digest(run))


def _update(store, doc: dict, tmp_path) -> tuple[int, str]:
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    done = CliRunner().invoke(main, ["--store", str(store.root), "add", "--update-metadata",
                                     str(path)])
    return done.exit_code, done.output


def test_a_broken_work_tree_file_is_no_measure_head_s_metadata_is(store, kit, tmp_path):
    run, digest = _committed_run(store, kit)
    meta = store.root / layout.metadata_path(digest)
    held = meta.read_bytes()
    meta.write_bytes(b'{"name":"fast","name":"b"}')  # broken by hand: a duplicate key
    renamed = {**run, "metadata": {"name": "b"}}  # what `cat --manifest` made of it
    code, said = _update(store, renamed, tmp_path)
    assert code != 0, said
    assert (f"{digest} is stored as BenchmarkRun/fast; a name never moves (people cite and "
            "link it), so it cannot become 'b'") in " ".join(said.split()), said
    assert not (store.root / layout.name_path("BenchmarkRun", "b")).exists()
    # the name kept but the annotations dropped: KI432's refusal, as for HEAD's own file
    code, said = _update(store, {**run, "metadata": {"name": "fast"}}, tmp_path)
    assert code != 0 and "kernelindex.dev/license" in said, said
    assert meta.read_bytes() == b'{"name":"fast","name":"b"}'  # nothing written
    # HEAD's metadata itself, given again: the broken file is repaired
    code, said = _update(store, run, tmp_path)
    assert code == 0, said
    assert meta.read_bytes() == held
    assert git(store.root, "status", "--porcelain", "store").strip() == ""


def test_an_uncommitted_rename_of_a_committed_run_does_not_move_its_name(store, kit,
                                                                        tmp_path):
    """The same hole without a broken file: the work tree's metadata renamed by hand (not
    committed), then an update naming a third name was read as "renamed before it was
    committed" and allowed."""
    run, digest = _committed_run(store, kit)
    meta = store.root / layout.metadata_path(digest)
    edited = json.loads(meta.read_bytes())
    edited["name"] = "other"
    meta.write_bytes(json.dumps(edited, separators=(",", ":"), sort_keys=True).encode())
    third = {**run, "metadata": {**run["metadata"], "name": "third"}}
    code, said = _update(store, third, tmp_path)
    assert code != 0 and "a name never moves" in said, said


def test_a_rename_and_a_relicence_are_both_said_in_one_run(store, kit, tmp_path):
    """break97 L1: a manifest changing a committed run's name and its
    ``kernelindex.dev/license`` was refused for the name alone; fixed, a second run then
    said the licence. README: every problem is reported before anything is written."""
    run, digest = _committed_run(store, kit)
    meta = store.root / layout.metadata_path(digest)
    held = meta.read_bytes()
    changed = json.loads(json.dumps(run))
    changed["metadata"]["name"] = "stolen"
    changed["metadata"]["annotations"]["kernelindex.dev/license"] = "Apache-2.0"
    code, said = _update(store, changed, tmp_path)
    said = " ".join(said.split())
    assert code == 1, said
    assert (f"{digest} is stored as BenchmarkRun/fast; a name never moves (people cite and "
            "link it), so it cannot become 'stolen'") in said, said
    assert (f"{digest} is committed with the provenance annotation 'kernelindex.dev/license' "
            f"'{CAUTION}'") in said, said
    assert said.index("/metadata/name") < said.index(
        "/metadata/annotations/kernelindex.dev~1license"), said
    assert meta.read_bytes() == held  # nothing written
    assert not (store.root / layout.name_path("BenchmarkRun", "stolen")).exists()
