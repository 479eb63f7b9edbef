"""Issue #17: a name never moves, whatever sequence of pull requests tries to move it.

Each test pushes its pull requests in turn to a bare remote running ``hooks/pre-receive``.
"""

from __future__ import annotations

import json
import re

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest

from ..conftest import ManifestKit, git, write_raw
from ..prs import Remote


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def add_group(remote: Remote, kit: ManifestKit, names: dict[str, float],
              metrics: tuple[str, ...] = ()) -> dict[str, str]:
    """Add one comparison group with a run per name (its latency in ns); return digests.

    ``metrics``: source-native metrics each run states (``sourceNative.metrics``), each
    its latency in us, for a ranking policy to rank by.
    """
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs, digests = [protocol, env, workload], {}
    for name, latency in names.items():
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        native = {"metrics": {m: latency / 1000 for m in metrics}} if metrics else None
        run = kit.run(protocol, env, impl, workload, latency=latency, name=name,
                      native=native)
        docs += [impl, run]
        digests[name] = kit.digest(run)
    path = remote.clone.parent / "group.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    remote.kistore("add", str(path))
    return digests


def metadata_file(remote: Remote, digest: str):
    return remote.clone / layout.metadata_path(Digest.from_str(digest))


def set_name(remote: Remote, digest: str, name: str) -> None:
    path = metadata_file(remote, digest)
    doc = json.loads(path.read_bytes())
    doc["name"] = name
    path.write_bytes(json.dumps(doc, separators=(",", ":"), sort_keys=True).encode())


def test_two_runs_swapping_names_in_one_pull_request_is_refused(remote, kit):
    # The attack: swapping two runs' names in metadata re-ordered a published leaderboard
    # (people link BenchmarkRun/fast) and passed with two KI405 info lines.
    digests = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "slow": 30}))).accepted
    before = remote.main()

    def swap(clone):
        set_name(remote, digests["fast"], "slow")
        set_name(remote, digests["slow"], "fast")

    swapped = remote.pr("swap", swap)
    assert not swapped.accepted
    assert "error KI208 name-changed: commit" in swapped.output
    assert "renames 'fast' to 'slow': a name never moves" in swapped.output
    assert remote.main() == before
    shown = remote.kistore("rank", "BenchmarkRun/fast")
    assert shown.stdout.index("fast") < shown.stdout.index("slow")


def test_name_freed_by_one_pull_request_and_given_to_another_run_by_the_next_is_refused(
        remote, kit):
    # PR 1 renames the run to a fresh name (no clash), PR 2 adds another run under the
    # freed name: each range alone is clean for uniqueness. PR 1 is the move.
    digests = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10}))).accepted
    freed = remote.pr("free the name", lambda c: set_name(remote, digests["fast"], "fast-v0"))
    assert not freed.accepted
    assert "renames 'fast' to 'fast-v0'" in freed.output

    # Landed past the hook anyway: verify names the commit that moved it.
    assert remote.pr("free the name", lambda c: set_name(remote, digests["fast"], "fast-v0"),
                     hook=False).accepted
    moved = remote.main()
    verified = remote.kistore("verify", check=False)
    assert verified.returncode == 1
    assert f"KI208 name-changed: commit {moved[:12]} renames 'fast' to 'fast-v0'" in \
        verified.stdout + verified.stderr


def test_a_rename_inside_a_branch_merged_with_a_merge_commit_is_refused(remote, kit):
    # The rename hides in a side branch's commit; the merge commit's own diff against main
    # shows it too, and every commit of the pushed range is read.
    digests = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10}))).accepted
    git(remote.clone, "checkout", "-q", "-b", "side")
    set_name(remote, digests["fast"], "other")
    git(remote.clone, "commit", "-q", "--no-verify", "-am", "rename on a branch")
    git(remote.clone, "checkout", "-q", "main")
    git(remote.clone, "merge", "-q", "--no-ff", "--no-verify", "-m", "merge", "side")
    pushed = remote.pr("after the merge", lambda c: None)
    assert not pushed.accepted
    assert "renames 'fast' to 'other'" in pushed.output


def test_title_corrections_still_land(remote, kit):
    digests = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10}))).accepted

    def retitle(clone):
        path = metadata_file(remote, digests["fast"])
        doc = json.loads(path.read_bytes())
        doc["title"] = "Corrected title"
        path.write_bytes(json.dumps(doc, separators=(",", ":"), sort_keys=True).encode())

    pushed = remote.pr("retitle", retitle)
    assert pushed.accepted, pushed.output
    assert "KI405 metadata-updated: metadata changed: /title" in pushed.output


def test_add_update_metadata_refuses_a_new_name_for_a_committed_object(remote, kit):
    digests = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10}))).accepted
    digest = Digest.from_str(digests["fast"])
    obj = json.loads((remote.clone / layout.object_path(digest)).read_bytes())
    doc = {**obj, "metadata": {"name": "renamed"}}
    path = remote.clone.parent / "renamed.json"
    path.write_text(json.dumps(doc))
    refused = remote.kistore("add", "--update-metadata", str(path), check=False)
    assert refused.returncode == 1
    assert f"{digest} is stored as BenchmarkRun/fast; a name never moves" in refused.stderr
    # without the flag the same words, not advice to pass a flag that is then refused
    refused = remote.kistore("add", str(path), check=False)
    assert refused.returncode == 1
    assert f"{digest} is stored as BenchmarkRun/fast; a name never moves" in refused.stderr
    assert "--update-metadata" not in refused.stderr


def test_imported_run_named_after_another_submission_is_refused(remote, bundle):
    # An imported run's name comes from its source's id: a run carrying submission 20464's
    # numbers under the name of submission 20999 is an error, not a typo. `kistore add`
    # refuses it before writing (review 2026-12-01 F7); a pull request that writes the
    # files by hand meets the gate's KI209.
    run = json.loads(json.dumps(bundle["run"]))
    run["spec"]["sourceNative"]["externalId"] = "20999"
    run["metadata"]["name"] = "sol-submission-20998"
    path = remote.clone.parent / "run.json"
    path.write_text(json.dumps(run))
    expected = ("sol-execbench run '20999' must be named 'sol-kernel-N-submission-20999' or "
                "'sol-submission-20999' or 'sol-local-20999', not 'sol-submission-20998'")
    with pytest.raises(AssertionError, match="/metadata/name: " + re.escape(expected)):
        remote.kistore("add", "--allow-dangling", str(path))
    assert git(remote.clone, "status", "--porcelain") == ""  # nothing written

    manifest = Manifest.from_document(run)

    def by_hand(clone):
        write_raw(clone, layout.object_path(manifest.digest), manifest.object_bytes)
        write_raw(clone, layout.metadata_path(manifest.digest), manifest.metadata_bytes)
        write_raw(clone, layout.name_path("BenchmarkRun", manifest.name),
                  layout.name_record(manifest.digest))

    pushed = remote.pr("a run", by_hand)
    assert not pushed.accepted
    assert f"error KI209 name-disagrees-with-source: {expected}" in pushed.output
