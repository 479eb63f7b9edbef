"""The published date is where an object landed on the first-parent line (r81 F1, r82 F4).

A contributor dates the commit that first adds a run: a parentless commit dated 2001, or a
commit a day after an old main commit the pull request forked from, merged with main
merged in, made ``cite`` say 2001 or 2025. The permalink still names that commit (citations
never move); the published date is now the committer date of the commit that brought the
object onto the first-parent line (the merge, dated by the forge).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

from kistore.cite.citation import cite, first_and_landing_by_git, render
from kistore.git.landing import landing_commit, landing_commits
from kistore.store import Store

from ..conftest import BUNDLE
from .test_citation import RUN, RUN_PATH, T0, add, at_day, commit_all, git, new_store

OLD = "2001-01-01T00:00:00+00:00"
"""The date a contributor gives the commit that adds the run."""

MERGED = dt.datetime.fromtimestamp(T0 + 400 * 86400 + 8 * 3600, dt.UTC)
"""The date of the merge that lands the run on main (day 400: 2027-08-17 08:00 UTC)."""


def dated(path: Path, date: str, *args: str) -> str:
    """Run git with author and committer date ``date`` (any form git reads)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "contributor", "GIT_AUTHOR_EMAIL": "c@example.invalid",
           "GIT_COMMITTER_NAME": "contributor", "GIT_COMMITTER_EMAIL": "c@example.invalid",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def orphan_root_merged(tmp_path: Path) -> tuple[Path, str, str]:
    """r81 repro 01 / r82 repro 04 (a): the run in a parentless commit dated 2001, merged.

    Main: init (day 0), a README (day 399). The pull request's commit holds only the run's
    new store files, has no parent and is dated 2001-01-01; main merges it (day 400).

    Returns:
        (store path, the orphan commit, the merge commit).
    """
    path = new_store(tmp_path / "store")
    (path / "README.md").write_text("main work\n")
    commit_all(path, "main work", day=399)
    add(path, BUNDLE)
    git(path, "add", "-A")
    new = git(path, "diff", "--cached", "--name-only").splitlines()
    index = tmp_path / "orphan-index"
    for name in new:
        blob = git(path, "hash-object", "-w", name)
        subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{name}"],
                       cwd=path, env={**os.environ, "GIT_INDEX_FILE": str(index)}, check=True)
    tree = subprocess.run(["git", "write-tree"], cwd=path, capture_output=True, text=True,
                          env={**os.environ, "GIT_INDEX_FILE": str(index)}, check=True
                          ).stdout.strip()
    orphan = dated(path, OLD, "commit-tree", tree, "-m", "add a run")
    git(path, "reset", "-q", "--hard")
    git(path, "clean", "-qfd")
    git(path, "merge", "-q", "--no-gpg-sign", "--allow-unrelated-histories", "-m",
        "Merge pull request #1", orphan, day=400)
    return path, orphan, git(path, "rev-parse", "HEAD")


def old_fork_merged(tmp_path: Path) -> tuple[Path, str, str]:
    """r81 repro 11 / r82 repro 04 (b): a pull request forked from an old main commit.

    Main: init (day 0), docs (day 1), a README (day 398). The pull request forks from the
    day-1 commit, adds the run in a commit dated day 2 (a day after its parent: KI428 (c)
    holds), merges main in (day 399, "Update branch"), and main merges it (day 400).

    Returns:
        (store path, the pull request's commit, main's merge commit).
    """
    path = new_store(tmp_path / "store")
    (path / "docs.txt").write_text("docs\n")
    old = commit_all(path, "docs", day=1)
    (path / "README.md").write_text("main work\n")
    commit_all(path, "main work", day=398)
    git(path, "checkout", "-q", "-b", "pr", old)
    add(path, BUNDLE)
    added = commit_all(path, "add a run", day=2)
    git(path, "merge", "-q", "--no-gpg-sign", "-m", "Merge main into pr", "main", day=399)
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "Merge pull request #2", "pr",
        day=400)
    return path, added, git(path, "rev-parse", "HEAD")


def test_a_run_added_in_a_parentless_commit_dated_2001_is_published_when_merged(tmp_path):
    path, orphan, merge = orphan_root_merged(tmp_path)
    assert git(path, "show", "-s", "--format=%cI", orphan) == OLD

    citation = cite(Store(path), "BenchmarkRun/sol-submission-20464",
                    accessed=dt.date(2027, 9, 1))

    assert citation.commit == orphan  # the permalink still names the first-adding commit
    assert citation.permalink.endswith(f"/blob/{orphan}/{RUN_PATH}")
    assert (citation.landed, citation.published) == (merge, MERGED)
    text = render(citation, "text")
    assert text.startswith("KernelIndex (2027). ")
    assert f"  published: 2027-08-17 (date of commit {merge}, which brought it onto the " \
           "first-parent line, UTC)\n" in text
    assert "  year         = {2027},\n  month        = aug,\n" in render(citation, "bibtex")
    assert f"first added in commit {orphan}, published by commit {merge}" in render(
        citation, "bibtex")
    assert '"issued": {\n      "date-parts": [\n        [\n          2027,\n          8,\n' \
           '          17\n' in render(citation, "csl-json")
    assert 'date-released: "2027-08-17"\n' in render(citation, "cff")
    assert citation.to_json()["landed"] == merge
    assert citation.to_json()["published"] == "2027-08-17T08:00:00Z"


def test_a_run_dated_a_day_after_an_old_fork_point_is_published_when_merged(tmp_path):
    path, added, merge = old_fork_merged(tmp_path)
    assert git(path, "show", "-s", "--format=%cs", added) == "2026-07-15"

    citation = cite(Store(path), RUN)

    assert (citation.commit, citation.landed, citation.published) == (added, merge, MERGED)
    assert render(citation, "text").startswith("KernelIndex (2027). ")


def test_git_and_libgit2_name_the_same_landing_commit(tmp_path):
    """The run page's path (``git`` children, no libgit2) and the libgit2 walk agree."""
    for shape in (orphan_root_merged, old_fork_merged):
        path, added, merge = shape(tmp_path / shape.__name__)
        store = Store(path)
        blob = git(path, "rev-parse", f"HEAD:{RUN_PATH}")
        head = store.commit("HEAD")
        by_git = first_and_landing_by_git(path, path / ".git", RUN_PATH, blob)
        assert by_git is not None
        assert (by_git[0].id, by_git[1].id) == (added, merge)
        assert by_git[1].commit_time == int(MERGED.timestamp())
        assert str(landing_commit(store.repo, RUN_PATH, blob, head).id) == merge
        assert {p: str(c.id) for p, c in landing_commits(
            store.repo, {RUN_PATH: blob}, head).items()} == {RUN_PATH: merge}


def test_a_linear_history_publishes_the_first_adding_commits_date_as_before(tmp_path):
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    c1 = commit_all(path, "add the published record", day=1)
    (path / "README.md").write_text("later\n")
    commit_all(path, "later", day=2)

    citation = cite(Store(path), RUN)

    assert (citation.commit, citation.landed) == (c1, None)
    assert citation.published == dt.datetime(2026, 7, 14, 8, 0, tzinfo=dt.UTC)
    assert "landed" not in citation.to_json()
    assert "  published: 2026-07-14 (commit date, UTC)\n" in render(citation, "text")
    assert at_day(1).startswith(f"@{int(citation.published.timestamp())}")
