"""fresh98's LOW items: one renamed object is one manifest left out; a stored dangling run's
other metadata is refused for that alone."""

from __future__ import annotations

import json

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import BUNDLE, PUBLISHED, add_docs, latency_group


def test_rank_counts_one_renamed_object_file_as_one_manifest_left_out(runner, store, kit):
    """``mv ...c.json ...d.json`` said "2 manifest(s) ... left out: ...c, ...d", and said
    the same ``mv`` twice: the second name is no manifest (no metadata file beside it)."""
    docs = latency_group(kit, {"fast": 1000, "slow": 2000})
    digests = add_docs(store, docs)
    fast, slow = Digest.from_str(digests[4]), Digest.from_str(digests[6])
    own = layout.object_path(slow)
    moved = own[:-6] + ("0" if own[-6] != "0" else "1") + ".json"
    (store.root / own).rename(store.root / moved)
    result = runner.invoke(main, ["--store", str(store.root), "rank", str(fast)])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings[0] == (f"warning: 1 manifest(s) in the work tree do not verify and are "
                           f"left out: {slow}; run `kistore verify`")
    assert len(warnings) == 2, warnings
    assert warnings[1].startswith(f"warning: {own}: the object file is missing; ")
    assert f"`mv {moved} {own}`" in warnings[1]


def test_other_metadata_of_a_stored_dangling_run_is_refused_for_that_alone(
        runner, record_store, tmp_path):
    """The published run is stored dangling (its workload and implementation are not);
    re-added with another title and no ``--update-metadata``, the refusal also said
    "references digests that are not in the store ... pass --allow-dangling": spurious,
    since ``--update-metadata`` alone lets it through."""
    run = json.loads(BUNDLE.read_text())["run"]
    run["metadata"]["title"] = "another title"
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    result = runner.invoke(main, ["--store", str(record_store.root), "add", str(path)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: {path}:/metadata: {PUBLISHED['run']} is already stored with other metadata "
        '(/title: stored "Proud Wren @ NVIDIA · 025_moe_expert_parallel_execution_backward · '
        'B200", given "another title"); pass --update-metadata to replace it']
    result = runner.invoke(main, ["--store", str(record_store.root), "add",
                                  "--update-metadata", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{PUBLISHED['run']} BenchmarkRun sol-submission-20464\n"
