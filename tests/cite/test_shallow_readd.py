"""A shallow clone that hides the first add but keeps a later re-add cites nothing (r79 F4).

History: ``A`` adds the published record on main; ``B`` re-adds the same bytes on a branch
forked before ``A`` (KI406: the gate lets it in, and a full clone still cites ``A``); main
moves on twice and merges the branch. A ``--depth 3`` clone is cut at ``m1`` (which holds
the record: ``A`` is its parent), but keeps ``B`` and ``B``'s parent. ``kistore cite``
refused there (a commit on the cut holds the file), while ``export`` and the site checked
only whether the commit they found (``B``, the earliest introducer the clone can see) was
on the cut, and published ``B`` as the first-adding commit. Now all three ask one rule,
:func:`kistore.git.first_added.shallow_doubt`.
"""

from __future__ import annotations

import json

import pytest

from kistore.cite.citation import cite, first_commit, shallow_cut, shallow_doubt
from kistore.cli import main
from kistore.core.errors import StoreStateError
from kistore.site.citing import Citations
from kistore.store import Store

from ..conftest import BUNDLE
from .test_citation import RUN, RUN_PATH, add, commit_all, git, new_store


@pytest.fixture
def readded(tmp_path):
    """``(full store path, depth-3 clone path, {name: commit})`` of the history above
    (``c0``: the root, the store's first commit, which ``B``'s branch forks from)."""
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    a = commit_all(path, "add the record", day=1)
    git(path, "checkout", "-q", "-b", "pr", f"{a}^")
    add(path, BUNDLE)
    b = commit_all(path, "re-add it on a branch forked before it landed", day=2)
    git(path, "checkout", "-q", "main")
    (path / "README.md").write_text("one\n")
    m1 = commit_all(path, "main moves on 1", day=3)
    (path / "README.md").write_text("two\n")
    commit_all(path, "main moves on 2", day=4)
    git(path, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge pr", "pr", day=5)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{path}", str(clone))
    git(clone, "remote", "set-url", "origin", "https://github.com/o/r.git")
    return path, clone, {"c0": git(path, "rev-parse", f"{a}^"), "A": a, "B": b, "m1": m1}


def test_the_clone_is_cut_where_the_finding_needs(readded):
    path, clone, commits = readded
    store = Store(clone)
    head = store.commit("HEAD")
    assert shallow_cut(store.repo, head) == {commits["m1"], commits["c0"]}  # c0: the root
    blob = git(path, "rev-parse", f"HEAD:{RUN_PATH}")
    # the walk's earliest introducer the clone can see is the re-add, off the cut
    assert commits["B"] in git(clone, "rev-list", "HEAD").split()
    assert cite(Store(path), str(RUN)).commit == commits["A"]  # the full clone
    assert shallow_doubt(store.repo, {commits["m1"]}, RUN_PATH, blob) == (
        f"this is a shallow clone and its history stops at {commits['m1']}, which holds the "
        "object: the commit that first added it may be older; run `git fetch --unshallow`")
    assert shallow_doubt(store.repo, set(), RUN_PATH, blob) is None
    with pytest.raises(StoreStateError, match=f"stops at {commits['m1']}.*and cite again"):
        first_commit(store.repo, RUN_PATH, blob, head)


def test_export_gives_the_readd_no_first_commit(runner, readded, tmp_path):
    path, clone, commits = readded
    out = tmp_path / "jsonl"
    result = runner.invoke(main, ["--store", str(clone), "export", str(out), "--format",
                                  "jsonl"])
    assert result.exit_code == 0, result.output
    assert ("warning: this is a shallow clone: objects its history does not reach back to "
            "have no firstCommit (`git fetch --unshallow`)") in result.stderr
    rows = [json.loads(line) for line in (out / "runs" / "part-00000.jsonl").open()]
    (row,) = [r for r in rows if r["digest"] == str(RUN)]
    assert (row["firstCommit"], row["addedAt"], row["permalink"]) == (None, None, None)
    manifests = [json.loads(line) for line in (out / "manifests" / "part-00000.jsonl").open()]
    assert manifests and all(m["firstCommit"] is None for m in manifests)
    assert commits["B"] not in (out / "runs" / "part-00000.jsonl").read_text()
    # the whole history fetched: the first add, as the full clone says
    git(clone, "fetch", "-q", "--unshallow", f"file://{path}", "main")
    again = tmp_path / "again"
    result = runner.invoke(main, ["--store", str(clone), "export", str(again), "--format",
                                  "jsonl"])
    # no shallow warning; the clone's notes were never fetched (its origin has none), said
    assert result.exit_code == 0 and result.stderr == (
        "warning: refs/notes/kistore is not in this repository (no note was made here, and "
        "git clone and git fetch do not fetch notes): "
        "community attestations are left out (no key is trusted at HEAD, so none could "
        "withdraw or verify a run); `kistore notes fetch origin` "
        "fetches them\n"), result.output
    rows = [json.loads(line) for line in (again / "runs" / "part-00000.jsonl").open()]
    (row,) = [r for r in rows if r["digest"] == str(RUN)]
    assert row["firstCommit"] == commits["A"]


def test_the_site_gives_the_readd_no_permalink(readded):
    path, clone, commits = readded
    store = Store(clone)
    head = store.commit("HEAD")
    blobs = {str(RUN): git(clone, "rev-parse", f"HEAD:{RUN_PATH}")}
    citations = Citations.of(store, head, None, blobs, [str(RUN)])
    assert citations.first_added == {}
    assert citations.cut == {str(RUN): (
        f"this is a shallow clone and its history stops at {commits['m1']}, which holds the "
        "object: the commit that first added it may be older; run `git fetch --unshallow`")}
    assert citations.shallow_warning() is not None
    assert "1 of 1 run pages" in citations.shallow_warning()
