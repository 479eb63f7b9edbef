"""A taken name whose first owner arrives in the same range: the later manifest is fixed.

fresh00b MED N1: a range adds manifest A under a name (its commit writing the names file),
then, in a later commit, manifest B under the same name, renamed by hand (B's names file
left out, or the names file rewritten to name B). BASE stores neither, so the gate's
arriving-manifest fix (fresh99 M3, low00) did not apply: KI211 was said on A, the innocent
one, with ``kistore migrate`` as its fix, which refuses a name two manifests hold, and no
fix named the commit to drop. Now the manifest a later commit adds is the arriving one:
every finding is said on B's file, naming the commits to drop (B's, and the one rewriting
the names file, never A's), and the rebase run as printed, then B added under another
name, passes the gate.
"""

from __future__ import annotations

import pytest

from kistore.check.gate import check_range
from kistore.core import layout
from kistore.store import Store

from ..conftest import commit_all, git
from .test_fork_rebase_base import rebase_as_printed
from .test_names_paths import add_again_renamed, put, two_workloads


@pytest.mark.parametrize("names", [False, True, "later"],
                         ids=["names-file-left", "names-file-rewritten", "rewritten-later"])
def test_a_name_taken_by_a_manifest_of_the_same_range_is_the_later_one_s_to_fix(
        store, store_path, kit, runner, names):
    a, b = two_workloads(kit)
    base = git(store_path, "rev-parse", "HEAD").strip()
    store.add([a], commit=True)
    first = git(store_path, "rev-parse", "HEAD").strip()
    put(store_path, b, names=names is True)
    head = commit_all(store_path, "B named x")
    dropped = [head]
    if names == "later":  # fresh00b's sequence: the names file rewritten by its own commit
        (store_path / layout.name_path("Workload", "x")).write_bytes(
            layout.name_record(b.digest))
        head = commit_all(store_path, "x names B")
        dropped.append(head)
    found = [f for f in check_range(Store(store_path), f"{base}..{head}")
             if f.rule.id in ("KI205", "KI208", "KI211")]
    assert sorted(f.rule.id for f in found) == sorted(["KI205", "KI211"]
                                                      + ["KI208"] * bool(names))
    path = layout.name_path("Workload", "x")
    for f in found:
        assert f.fix is not None and "run `kistore migrate`" not in f.fix, f
        assert f.file in (layout.metadata_path(b.digest), path), f  # never A's file
        # B's commits (adding it, rewriting the names file), never A's
        ids = ", ".join(c[:12] for c in dropped)
        assert f"drop commit {ids} (`git rebase -i {base}`, mark it `drop`)" in f.fix
        assert "add the manifest again" in f.fix, f.fix
        assert (f"`git checkout {first} -- {path}`" in f.fix) is bool(names), f.fix
        if f.rule.id in ("KI205", "KI211"):
            assert f.fix.startswith(
                f"this manifest takes the name {a.digest} holds (added earlier, by commit "
                f"{first[:12]} of the range); so"), f.fix
        if f.rule.id == "KI211" and names:
            assert f.message == (
                f"Workload/x is taken: {a.digest} holds it (added earlier, by commit "
                f"{first[:12]} of the range), and the range rewrote its names file {path} to "
                "name this manifest"), f.message
    # run as printed: drop the commits named, then add B again under another name
    rebase_as_printed(store_path, found[0].fix, dropped)
    assert git(store_path, "rev-parse", "HEAD").strip() == first
    add_again_renamed(store_path, runner, b, base)


def test_a_push_to_a_fork_lacking_the_owner_drops_only_the_branch_s_commits(
        store, store_path, kit):
    """fresh00b's pair: the fork's main lacks A, which upstream's main holds; the push to
    the fork is judged from the fork's main (both in the range): the rebase starts at
    upstream's main (U1) and drops B's commits alone (N1)."""
    a, b = two_workloads(kit)
    stale = git(store_path, "rev-parse", "HEAD").strip()
    store.add([a], commit=True)
    upstream = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "remote", "add", "upstream", str(store_path.parent / "server.git"))
    git(store_path, "update-ref", "refs/remotes/upstream/main", upstream)
    put(store_path, b, names=False)
    dropped = [commit_all(store_path, "B named x")]
    (store_path / layout.name_path("Workload", "x")).write_bytes(layout.name_record(b.digest))
    dropped.append(commit_all(store_path, "x names B"))
    found = [f for f in check_range(Store(store_path), f"{stale}..HEAD")
             if f.rule.id in ("KI205", "KI211")]
    ids = ", ".join(c[:12] for c in dropped)
    assert found and all(
        f.file == layout.metadata_path(b.digest)
        and f"drop commit {ids} (`git rebase -i {upstream}`, mark it `drop`)" in f.fix
        for f in found), found
    rebase_as_printed(store_path, found[0].fix, dropped)
    assert git(store_path, "rev-parse", "HEAD").strip() == upstream
