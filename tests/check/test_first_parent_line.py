"""main's first-parent line only grows (KI430) and its new commits are not dated before it (KI431).

Reviewers r81 F15 / r82 F7: a branch forked from an old commit of main, with main merged
*into* it (`git merge main`: the branch is the first parent), fast-forwarded main past
hooks/pre-receive: every main commit since the fork became a side line, and each key
trusted since then counted from the merge. r81 F12: the same shape brings a trust commit
dated on the old fork onto the line, and the key counts from that date. Each test pushes
through a real bare repository running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pygit2
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kistore.attest.trust_history import listed_since
from kistore.check._first_parent import first_parent_findings
from kistore.check._history import ancestry
from kistore.check.gate import check_range, check_updates
from kistore.git.landing import landing_commit
from kistore.store import Store

from ..conftest import redate_history
from ..prs import KISTORE, Push, Remote
from .test_history_trust import RERUN_ID, trust_rerun_key


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def run(cwd: Path, *args: str, date: str | None = None) -> str:
    """Run git in ``cwd`` (dated ``date``, author and committer, when given)."""
    env = {**os.environ, **({"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
                            if date else {})}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True, env=env).stdout


def push(remote: Remote, rev: str = "HEAD") -> Push:
    """Push ``rev`` of the clone to the server's main through its pre-receive hook."""
    done = subprocess.run(["git", "push", "origin", f"{rev}:main"], cwd=remote.clone,
                          capture_output=True, text=True, env={**os.environ, "KISTORE": KISTORE})
    return Push(done.returncode, done.stderr)


def docs_commit(remote: Remote, name: str, date: str | None = None) -> str:
    (remote.clone / f"{name}.md").write_text(f"{name}\n")
    run(remote.clone, "add", f"{name}.md")
    run(remote.clone, "commit", "-q", "--no-verify", "-m", f"docs: {name}", date=date)
    return run(remote.clone, "rev-parse", "HEAD").strip()


def trust_since(remote: Remote) -> dt.datetime | None:
    """When the rerun key counts from, read on the server's main (its first-parent line)."""
    return listed_since(Store(remote.bare).repo, remote.main()).get(RERUN_ID)


def commit_time(remote: Remote, rev: str) -> dt.datetime:
    seconds = int(run(remote.clone, "log", "-1", "--format=%ct", rev))
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def update_branch(remote: Remote, branch: str) -> None:
    """GitHub's "Update branch": main merged INTO the branch (the branch is first parent)."""
    run(remote.clone, "fetch", "-q", "origin")
    run(remote.clone, "checkout", "-q", branch)
    run(remote.clone, "merge", "-q", "--no-edit", "--no-verify", "origin/main")


def land_with_merge_commit(remote: Remote, branch: str) -> Push:
    """What GitHub's merge button lands: a merge commit whose first parent is main."""
    run(remote.clone, "fetch", "-q", "origin")
    run(remote.clone, "checkout", "-q", "-B", "main", "origin/main")
    run(remote.clone, "merge", "-q", "--no-ff", "--no-edit", "--no-verify", branch)
    return push(remote)


def test_a_fast_forward_to_main_merged_into_an_old_branch_is_refused(remote):
    fork = remote.main()
    assert remote.pr("trust the rerun key", lambda c: trust_rerun_key(remote)).accepted
    trusted = remote.main()
    since = trust_since(remote)
    assert since == commit_time(remote, trusted)
    run(remote.clone, "checkout", "-q", "-b", "pr", fork)
    docs_commit(remote, "notes")
    update_branch(remote, "pr")
    tip = run(remote.clone, "rev-parse", "HEAD").strip()
    assert run(remote.clone, "rev-list", "--first-parent", "HEAD").split()[1] != trusted

    # the pull-request gate: a branch that merged main in is normal there
    gate = remote.kistore("check", "origin/main..pr", check=False)
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "KI430" not in gate.stdout + gate.stderr
    # the same range as a move of main (the workflow's landed job)
    landed = remote.kistore("check", "--landed", "origin/main..pr", check=False)
    assert landed.returncode == 1
    assert (f"error KI430 first-parent-line-broken: origin/main..pr: {trusted[:12]} is not on "
            f"the first-parent line of {tip[:12]}") in landed.stdout
    assert (f"main has already moved and this check cannot undo it: restore the line with a "
            f"merge commit whose first parent is {trusted[:12]} (`git checkout -B repair "
            f"{trusted[:12]} && git merge --no-ff {tip[:12]}`") in landed.stdout

    pushed = push(remote)
    assert not pushed.accepted
    assert (f"error KI430 first-parent-line-broken: refs/heads/main: {trusted[:12]} is not "
            f"on the first-parent line of {tip[:12]}") in pushed.output
    assert f"then reaches {fork[:12]}, a commit {trusted[:12]} already had" in pushed.output
    assert ("(docs/attestations.md): merge the branch into main with a merge commit whose "
            "first parent is main (`git checkout main && git merge --no-ff BRANCH`, what "
            "GitHub's merge button makes), or rebase the branch onto main (`git rebase "
            "main`), and push that (expected") in pushed.output
    assert remote.main() == trusted
    assert trust_since(remote) == since  # the key still counts from its trust commit
    # the pre-push hook (check --updates --remote: what the remote holds) says it first
    before_push = check_updates(Store(remote.clone), [(trusted, tip, "refs/heads/main")],
                                held=[trusted])
    assert [f.rule.id for f in before_push if f.rule.severity == "error"] == ["KI430"]

    # the same branch landed as GitHub's merge button lands it: accepted, trust unchanged
    landed_push = land_with_merge_commit(remote, "pr")
    assert landed_push.accepted, landed_push.output
    assert run(remote.clone, "rev-list", "--first-parent", "main").split()[1] == trusted
    assert trust_since(remote) == since


def test_a_linear_fast_forward_and_a_squash_are_accepted(remote):
    assert remote.pr("trust the rerun key", lambda c: trust_rerun_key(remote)).accepted
    docs_commit(remote, "one")
    docs_commit(remote, "two")
    linear = push(remote)
    assert linear.accepted, linear.output
    assert "KI430" not in linear.output and "KI431" not in linear.output
    base = remote.main()
    run(remote.clone, "checkout", "-q", "-b", "pr", "HEAD~1")
    docs_commit(remote, "three")
    update_branch(remote, "pr")  # main merged in; squashed below into one new commit
    run(remote.clone, "checkout", "-q", "-B", "main", "origin/main")
    run(remote.clone, "merge", "-q", "--squash", "pr")
    run(remote.clone, "commit", "-q", "--no-verify", "-m", "docs: three (squashed)")
    squashed = push(remote)
    assert squashed.accepted, squashed.output
    assert run(remote.clone, "rev-parse", "HEAD~1").strip() == base


def test_commits_each_a_day_older_than_their_parent_are_refused_on_main(remote):
    # KI428 (c) bounds a commit by its parents only: each commit 23 hours before its parent
    # passes it, and the line walks back a day a commit.
    assert remote.pr("trust the rerun key", lambda c: trust_rerun_key(remote)).accepted
    old = remote.main()
    start = commit_time(remote, old)
    made = []
    for n in range(1, 4):
        when = (start - dt.timedelta(hours=23 * n)).strftime("%Y-%m-%dT%H:%M:%SZ")
        made.append(docs_commit(remote, f"walk{n}", date=when))
    store = Store(remote.clone)
    as_pr = check_range(store, f"{old}..{made[-1]}")
    assert [f.rule.id for f in as_pr if f.rule.severity == "error"] == []  # KI428 passes each
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    pushed = push(remote)
    after = dt.datetime.now(dt.UTC)
    assert not pushed.accepted
    assert pushed.output.count("error KI431 landed-before-base") == 2
    for commit in made[1:]:
        assert f"refs/heads/main: commit {commit[:12]} on the new first-parent line" in \
            pushed.output
    assert f"commit {made[0][:12]} on the new" not in pushed.output
    # the floor is a day before the push's clock (r84 F2), which is later than the old tip
    floor = dt.datetime.fromisoformat(re.search(
        r"\(expected a committer date no earlier than (\S+), found", pushed.output)[1])
    assert before - dt.timedelta(days=1) <= floor <= after - dt.timedelta(days=1)
    assert "more than a day before this push (" in pushed.output
    assert f"the old tip {old[:12]} is dated {start:%Y-%m-%dT%H:%M:%SZ})" in pushed.output
    assert "(`git commit --amend --no-edit` for a branch of one commit, `git rebase " \
           "--force-rebase main` on the branch for every commit), and push that" in pushed.output
    assert remote.main() == old


def test_a_trust_commit_dated_on_an_old_fork_cannot_count_from_then(published, tmp_path):
    # r81 F12: the history predates 2025-01-02; the trust commit is dated then, on a branch
    # from the old commit, with main merged in; a fast-forward made the key count from 2025.
    redate_history(published, "2025-01-01T00:00:00Z")
    remote = Remote(published, tmp_path)
    fork = remote.main()
    docs_commit(remote, "today")
    assert push(remote).accepted
    run(remote.clone, "checkout", "-q", "-b", "trust", fork)
    trust_rerun_key(remote)
    run(remote.clone, "add", "-A")
    run(remote.clone, "commit", "-q", "--no-verify", "-m", "trust K for reruns",
        date="2025-01-02T00:00:00Z")
    update_branch(remote, "trust")
    backdated = Store(remote.clone)
    assert listed_since(backdated.repo, run(remote.clone, "rev-parse", "HEAD").strip())[
        RERUN_ID] == dt.datetime(2025, 1, 2, tzinfo=dt.UTC)  # what a fast-forward gave
    pushed = push(remote)
    assert not pushed.accepted
    assert "error KI430 first-parent-line-broken" in pushed.output
    landed = land_with_merge_commit(remote, "trust")
    assert landed.accepted, landed.output
    assert trust_since(remote) == commit_time(remote, "main")  # from the landing merge


@pytest.mark.parametrize("first", ["trust", "docs"])
def test_two_green_pull_requests_land_in_either_order_and_trust_counts_from_landing(
        remote, first):
    # Both fork from the same main; each passes the pull-request gate. The second to land
    # is stale: "Update branch" then a fast-forward is refused, a merge commit is not.
    fork = remote.main()
    run(remote.clone, "checkout", "-q", "-b", "trust", fork)
    trust_rerun_key(remote)
    run(remote.clone, "add", "-A")
    run(remote.clone, "commit", "-q", "--no-verify", "-m", "trust K for reruns")
    run(remote.clone, "checkout", "-q", "-b", "docs", fork)
    docs_commit(remote, "notes")
    for branch in ("trust", "docs"):
        gate = remote.kistore("check", f"origin/main..{branch}", check=False)
        assert gate.returncode == 0, gate.stdout + gate.stderr
    second = "docs" if first == "trust" else "trust"
    assert land_with_merge_commit(remote, first).accepted
    update_branch(remote, second)
    assert remote.kistore("check", f"origin/main..{second}", check=False).returncode == 0
    refused = push(remote)
    assert not refused.accepted
    assert "error KI430 first-parent-line-broken" in refused.output
    assert land_with_merge_commit(remote, second).accepted
    landing = remote.main() if first == "docs" else run(remote.clone, "rev-parse",
                                                        "HEAD^1").strip()
    # the key counts from the merge that brought it onto main, whichever order they landed
    assert trust_since(remote) == commit_time(remote, landing)


def test_a_notes_merge_whose_first_parent_is_the_local_notes_is_accepted(remote):
    # `git notes merge` (kistore notes fetch) makes the local notes the first parent: the
    # remote's old notes tip is a second parent. Entry times of note lines do not read the
    # first-parent line, so KI430 does not apply to refs/notes/kistore.
    repo = Store(remote.clone).repo
    sig = pygit2.Signature("t", "t@example.com")
    empty = repo.TreeBuilder().write()
    theirs = repo.create_commit("refs/notes/kistore", sig, sig, "notes", empty, [])
    assert remote.push("refs/notes/kistore").accepted
    ours = repo.create_commit(None, sig, sig, "local notes", empty, [])
    merged = repo.create_commit(None, sig, sig, "notes merge", empty, [ours, theirs])
    repo.references["refs/notes/kistore"].set_target(merged)
    pushed = remote.push("refs/notes/kistore")
    assert pushed.accepted, pushed.output
    assert "KI430" not in pushed.output


@st.composite
def dags(draw):
    """A random commit DAG: each commit's parents (indexes of earlier commits, in order),
    a root now and then; the old tip any commit, the new tip mostly the last (a descendant
    of most), so that both verdicts come often."""
    n = draw(st.integers(2, 9))
    parents: list[list[int]] = [[]]
    for i in range(1, n):
        count = draw(st.sampled_from([1, 2, 2, 0] if i > 1 else [1]))
        parents.append(draw(st.lists(st.integers(0, i - 1), min_size=min(count, i),
                                     max_size=min(count, i), unique=True)))
    new = draw(st.sampled_from([n - 1, n - 1, n - 1, draw(st.integers(0, n - 1))]))
    return parents, draw(st.integers(0, n - 1)), new


@settings(max_examples=100, deadline=None)
@given(dags())
@example(([[], [0], [0], [2, 1]], 1, 3))  # main merged into the branch: refused
@example(([[], [0], [0], [1, 2]], 1, 3))  # the branch merged into main: accepted
@example(([[], [0], [1], [2]], 1, 3))     # a linear fast-forward: accepted
def test_ki430_refuses_exactly_the_moves_whose_old_tip_is_off_the_first_parent_line(dag):
    parents, old_i, new_i = dag
    with tempfile.TemporaryDirectory() as where:
        repo = pygit2.init_repository(where, bare=True)
        tree = repo.TreeBuilder().write()
        ids = []
        for i, ps in enumerate(parents):
            sig = pygit2.Signature("t", "t@example.com", 1_700_000_000 + i, 0)
            ids.append(repo.create_commit(None, sig, sig, f"c{i}", tree, [ids[p] for p in ps]))
        old, new = repo[ids[old_i]], repo[ids[new_i]]
        if old.id != new.id and not repo.descendant_of(new.id, old.id):
            return  # not a fast-forward: KI407/KI404 refuse it before this rule is asked
        line, at = [], new
        while True:  # the whole first-parent line, naively
            line.append(at.id)
            if not at.parent_ids:
                break
            at = repo[at.parent_ids[0]]
        found = first_parent_findings(old, new, ancestry(repo, new, hide=old), "main",
                                      now=dt.datetime.fromtimestamp(1_700_000_000, dt.UTC))
        assert [f.rule.id for f in found] == ([] if old.id in line else ["KI430"])


def test_landed_goes_with_a_range_only(remote):
    done = remote.kistore("check", "--landed", "--updates", "-", check=False)
    assert done.returncode == 2
    assert "--landed goes with BASE..HEAD (--updates judges the main branch's moves so by " \
           "itself)" in done.stderr


# r84 F2: KI431 is bounded by the push's clock too, not only by the old tip's date.

QUIET = "2025-01-01T00:00:00Z"
LATE = "2025-01-01T12:00:00Z"


def quiet_remote(published: Path, tmp_path: Path) -> Remote:
    """A server whose main last moved on 2025-01-01 (its whole history dated then)."""
    redate_history(published, QUIET)
    return Remote(published, tmp_path)


def test_a_quiet_main_fast_forwarded_to_a_commit_dated_when_it_last_moved_is_refused(
        published, tmp_path):
    # Twelve hours after the old tip, so KI431's old bound (a day before the tip) passed it,
    # and its run would have been published as of 2025 (landing commit's committer date).
    remote = quiet_remote(published, tmp_path)
    quiet = remote.main()
    late = docs_commit(remote, "late", date=LATE)
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    pushed = push(remote)
    assert not pushed.accepted
    assert (f"error KI431 landed-before-base: refs/heads/main: commit {late[:12]} on the new "
            f"first-parent line is dated {LATE}, more than a day before this push (") \
        in pushed.output
    assert f"the old tip {quiet[:12]} is dated {QUIET}): a key it trusts would count" \
        in pushed.output
    assert "land the branch with a merge commit made now (`git checkout main && git merge " \
           "--no-ff BRANCH`" in pushed.output
    assert remote.main() == quiet
    # the landed job runs after the push, with no push clock: the old tip alone bounds it
    landed = remote.kistore("check", "--landed", f"{quiet}..{late}", check=False)
    assert landed.returncode == 0, landed.stdout + landed.stderr
    assert "KI431" not in landed.stdout
    # what the message says: the committer re-dated now, and the same change lands
    run(remote.clone, "commit", "-q", "--amend", "--no-edit", "--no-verify")
    amended = push(remote)
    assert amended.accepted, amended.output
    assert commit_time(remote, "HEAD") >= before
    assert run(remote.clone, "log", "-1", "--format=%aI", "HEAD").strip() == \
        "2025-01-01T12:00:00+00:00"  # the author date is kept: KI431 reads the committer's


def test_a_backdated_branch_lands_on_a_quiet_main_with_a_merge_commit_made_now(
        published, tmp_path):
    remote = quiet_remote(published, tmp_path)
    quiet = remote.main()
    run(remote.clone, "checkout", "-q", "-b", "late")
    late = docs_commit(remote, "late", date=LATE)
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    landed = land_with_merge_commit(remote, "late")
    assert landed.accepted, landed.output
    line = run(remote.clone, "rev-list", "--first-parent", "main").split()
    assert line[1] == quiet  # only the merge joined the line; the branch is its side
    assert run(remote.clone, "rev-parse", "main^2").strip() == late
    assert commit_time(remote, "main") >= before


def test_ten_pushes_each_dated_23_hours_before_main_cannot_walk_it_back(remote):
    # Each commit is 23 hours before main's tip: KI428 (c) and the old bound of KI431 passed
    # all ten, and main's tip ended dated nine days before the last push.
    docs_commit(remote, "today")
    assert push(remote).accepted
    accepted = 0
    for n in range(10):
        when = commit_time(remote, remote.main()) - dt.timedelta(hours=23)
        made = docs_commit(remote, f"walk{n}", date=when.strftime("%Y-%m-%dT%H:%M:%SZ"))
        clock = dt.datetime.now(dt.UTC).replace(microsecond=0)
        pushed = push(remote)
        if pushed.accepted:
            accepted += 1
            assert commit_time(remote, made) >= clock - dt.timedelta(days=1)
        else:
            assert f"error KI431 landed-before-base: refs/heads/main: commit {made[:12]}" \
                in pushed.output
            run(remote.clone, "fetch", "-q", "origin")
            run(remote.clone, "reset", "-q", "--hard", "origin/main")
    assert accepted == 1  # 23 hours before now passes; 46 hours before does not
    assert commit_time(remote, remote.main()) >= dt.datetime.now(dt.UTC) - dt.timedelta(days=1)


def test_ki431_holds_the_new_line_to_a_day_before_the_push_clock(published):
    # the push's clock as check --updates takes it (now=): the bound, to the second
    redate_history(published, QUIET)
    quiet = run(published, "rev-parse", "HEAD").strip()
    (published / "late.md").write_text("late\n")
    run(published, "add", "late.md")
    run(published, "commit", "-q", "--no-verify", "-m", "late", date=LATE)
    late = run(published, "rev-parse", "HEAD").strip()
    store = Store(published)
    update = [(quiet, late, "refs/heads/main")]

    def errors(now: dt.datetime) -> list:
        return [f for f in check_updates(store, update, now=now) if f.rule.severity == "error"]

    assert errors(dt.datetime(2025, 1, 2, 12, 0, 0, tzinfo=dt.UTC)) == []  # a day: believed
    refused = errors(dt.datetime(2025, 1, 2, 12, 0, 1, tzinfo=dt.UTC))
    assert [f.rule.id for f in refused] == ["KI431"]
    assert refused[0].message.startswith(
        f"refs/heads/main: commit {late[:12]} on the new first-parent line is dated {LATE}, "
        f"more than a day before this push (2025-01-02T12:00:01Z; the old tip {quiet[:12]} "
        f"is dated {QUIET}): a key it trusts would count, and what it adds would be "
        "published, from that earlier date: land the branch with a merge commit made now")
    assert (refused[0].expected, refused[0].found) == (
        "a committer date no earlier than 2025-01-01T12:00:01Z", LATE)
    assert refused[0].extra["bound"] == "push"
    # the future side: a commit dated more than a day past the push clock is KI428's (b)
    ahead = errors(dt.datetime(2024, 12, 31, 11, 59, 59, tzinfo=dt.UTC))
    assert [f.rule.id for f in ahead] == ["KI428", "KI428"]  # its author and committer dates
    assert all("lies in the future" in f.message for f in ahead)


DAY = 86_400
T0 = 1_700_000_000


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 400 * DAY), st.integers(-400 * DAY, 2 * 3600),
                          st.booleans()), min_size=1, max_size=8))
@example([(365 * DAY, -365 * DAY, False)])  # a quiet main fast-forwarded to a year-old commit
@example([(0, -23 * 3600, False)] * 10)  # ten pushes, each 23 hours before the tip
@example([(365 * DAY, -365 * DAY, True)])  # the same landed with a merge made at the push
def test_no_file_is_published_more_than_a_day_before_the_push_that_landed_it(pushes):
    # Each push: the clock moves on by `gap`, a commit adding file f<i> on main's tip is dated
    # `offset` from the clock, and main moves to it (or to a merge of it made at the clock)
    # when KI430/KI431 say nothing. The publication date of f<i> is its landing commit's
    # committer date (kistore.git.landing): never more than a day before its push.
    with tempfile.TemporaryDirectory() as where:
        repo = pygit2.init_repository(where, bare=True)

        def commit(tree, parents, seconds, message):
            sig = pygit2.Signature("t", "t@example.com", seconds, 0)
            return repo[repo.create_commit(None, sig, sig, message, tree, parents)]

        main = commit(repo.TreeBuilder().write(), [], T0, "root")
        clock, landed = T0, {}
        for i, (gap, offset, merge) in enumerate(pushes):
            clock += gap
            files = repo.TreeBuilder(main.tree)
            blob = repo.create_blob(f"{i}\n".encode())
            files.insert(f"f{i}", blob, pygit2.GIT_FILEMODE_BLOB)
            change = commit(files.write(), [main.id], clock + offset, f"f{i}")
            new = commit(change.tree.id, [main.id, change.id], clock, "merge") if merge \
                else change
            found = first_parent_findings(main, new, ancestry(repo, new, hide=main), "main",
                                          now=dt.datetime.fromtimestamp(clock, dt.UTC))
            if not found:
                main, landed[f"f{i}"] = new, (str(blob), clock)
        for path, (blob, pushed_at) in landed.items():
            published_at = landing_commit(repo, path, blob, main).commit_time
            assert published_at >= pushed_at - DAY, (path, published_at, pushed_at)
