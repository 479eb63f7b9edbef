"""Two pull requests, each green against the main of its moment, merged one after the other.

Review r80 F1, F2: the CI gate judges ``MERGE^1..MERGE`` when a pull request is opened or
pushed to, and nothing re-ran it when main moved. Two contributors adding the same run
(B committed first, A merged first) moved its citation from A's commit to B's once both
merged (F1); a run with a dangling ``environmentDigest`` in one pull request and the
manifest of that digest in another left main failing ``verify`` (KI215 when it is the
environment, KI202 for good when it is a Workload) (F2). Each gate said ok.

The workflow now gates the merge queue's exact commits and, on every push to main, runs
``kistore check BEFORE..AFTER`` (``tests/test_workflow.py``). These tests are the local
stand-in: each "gate" is ``check main..X`` of a ``git merge --no-ff`` of the branch into
the main of its moment, as the CI job runs it, and the last assertion of each is what
the push job (or a gate re-run against the new base: "require branches to be up to
date", a merge queue) says about the second merge.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cite.citation import cite
from kistore.core.findings import ERROR
from kistore.store import Store

from ..conftest import add_docs, git, redate_history


def commit_dated(path: Path, message: str, date: str) -> str:
    """Stage everything and commit it with author and committer date ``date``."""
    env = {**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    git(path, "add", "-A")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", message], cwd=path, env=env,
                   check=True, capture_output=True)
    return git(path, "rev-parse", "HEAD").strip()


def merge_dated(path: Path, branch: str, date: str) -> str:
    """``git merge --no-ff BRANCH`` into the checked-out branch (GitHub's merge commit)."""
    env = {**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    subprocess.run(["git", "merge", "-q", "--no-ff", "--no-edit", branch], cwd=path, env=env,
                   check=True, capture_output=True)
    return git(path, "rev-parse", "HEAD").strip()


def ids(findings) -> list[str]:
    return [f.rule.id for f in findings]


def errors(findings) -> list[str]:
    return [f.rule.id for f in findings if f.rule.severity == ERROR]


@pytest.fixture
def main(store, kit) -> dict:
    """A store on ``main`` with a protocol, an environment, a workload and an
    implementation, dated 2026-01-01 (so that the branches' dates come after it)."""
    path = Path(store.root)
    docs = {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload(),
            "impl": kit.implementation()}
    add_docs(store, list(docs.values()))
    redate_history(path, "2026-01-01T00:00:00Z")
    git(path, "branch", "-M", "main")
    git(path, "remote", "add", "origin", "https://github.com/o/r.git")  # for cite's permalink
    return {"path": path, **docs}


def pr(path: Path, name: str, docs: list[dict], date: str, *, dangling: bool = False) -> str:
    """Branch ``name`` off main adding ``docs`` in one commit dated ``date``; the gate's
    verdict on it (``check main..MERGE`` of its merge into main as it is now)."""
    git(path, "checkout", "-q", "-b", name, "main")
    add_docs(Store(path), docs, commit=False, allow_dangling=dangling)
    commit_dated(path, f"{name}: add", date)
    git(path, "checkout", "-q", "-b", f"gate-{name}", "main")
    merge_dated(path, name, date)
    git(path, "checkout", "-q", "main")
    return f"main..gate-{name}"


def land_both(path: Path, first: str = "prA", second: str = "prB") -> tuple[str, str, str]:
    """Merge ``first`` then ``second`` into main (no conflict); return main before,
    between, after."""
    old = git(path, "rev-parse", "main").strip()
    mid = merge_dated(path, first, "2026-04-01T00:00:00Z")
    new = merge_dated(path, second, "2026-04-02T00:00:00Z")
    return old, mid, new


def test_two_green_prs_adding_the_same_run_move_its_citation_and_the_push_job_says_so(main, kit):
    path = main["path"]
    run = kit.run(main["protocol"], main["env"], main["impl"], main["workload"], latency=10_000,
                  name="samerun")
    # B commits first, A later; both add the same bytes; each gate green against main
    gate_b = pr(path, "prB", [run], "2026-02-01T00:00:00Z")
    gate_a = pr(path, "prA", [run], "2026-03-01T00:00:00Z")
    store = Store(path)
    assert ids(check_range(store, gate_a)) == ids(check_range(store, gate_b)) == []
    old, mid, new = land_both(path)
    assert git(path, "diff", "--name-only", mid, new).strip() == ""  # B merged: no change
    pra, prb = (git(path, "rev-parse", b).strip() for b in ("prA", "prB"))
    assert cite(store, "BenchmarkRun/samerun", at=mid).commit == pra
    assert cite(store, "BenchmarkRun/samerun", at=new).commit == prb  # moved: r80 F1
    # the push job of B's merge (BEFORE..AFTER: main with A merged, main with B merged),
    # and a gate re-run against that base (an up-to-date branch, the merge queue): KI425
    found = check_range(store, f"{mid}..{new}")
    assert errors(found) == ["KI425"], found
    assert found[-1].extra == {"old": pra, "new": prb}
    # both merges in one push: main never cited A's commit, so nothing moved
    assert errors(check_range(store, f"{old}..{new}")) == []


@pytest.mark.parametrize("answer, rule_id", [("env", "KI215"), ("workload", "KI202")])
@pytest.mark.parametrize("order", [("prA", "prB"), ("prB", "prA")], ids=["run-first",
                                                                      "manifest-first"])
def test_a_dangling_reference_and_its_manifest_in_two_green_prs_break_main_and_the_push_job_says_so(
        main, kit, answer, rule_id, order):
    path = main["path"]
    # the manifest of the dangling digest: a new environment (its run's group file is in
    # neither pull request), or a new Workload (a reference of the wrong kind)
    target = (kit.environment("NVIDIA B999", name="env-b999") if answer == "env"
              else kit.workload("softmax", name="wl-softmax"))
    run = kit.run(main["protocol"], target, main["impl"], main["workload"], latency=10_000,
                  name="twoprs")
    gate_a = pr(path, "prA", [run], "2026-02-01T00:00:00Z", dangling=True)
    gate_b = pr(path, "prB", [target], "2026-03-01T00:00:00Z")
    store = Store(path)
    assert errors(check_range(store, gate_a)) == [] == errors(check_range(store, gate_b))
    assert ids(check_range(store, gate_a)) == ["KI201"]  # a dangling reference: a warning
    old, mid, new = land_both(path, *order)
    assert rule_id in errors(verify(store, at=new))  # main broken, each gate green
    for base in (mid, old):  # the push job of the second merge; one push of both
        assert rule_id in errors(check_range(store, f"{base}..{new}"))
    # the second's gate re-run against main with the first merged (an up-to-date branch,
    # the merge queue) refuses it by itself: that requirement is the whole fix
    git(path, "checkout", "-q", "-b", "gate-again", mid)
    merge_dated(path, order[1], "2026-04-02T00:00:00Z")
    assert rule_id in errors(check_range(store, f"{mid}..gate-again"))


def test_a_dangling_reference_then_a_manifest_of_another_kind_is_refused_at_that_manifest(
        main, kit, monkeypatch):
    """Reviewer r86 F20: PR 1's run names in ``workloadDigest`` the digest of an
    Implementation nothing holds yet; PR 2, opened after PR 1 landed, adds that
    Implementation. PR 2's gate (``check MERGE^1..MERGE`` against main with PR 1) refuses
    it on the Implementation's object, naming the run, so main never fails verify."""
    path = main["path"]
    trap = kit.implementation("another", name="impl-trap")
    run = kit.run(main["protocol"], main["env"], main["impl"], main["workload"], latency=10_000,
                  name="trapped")
    run["spec"]["workloadDigest"] = kit.digest(trap)
    gate_a = pr(path, "prA", [run], "2026-02-01T00:00:00Z", dangling=True)
    store = Store(path)
    assert ids(check_range(store, gate_a)) == ["KI201"]  # a dangling reference: a warning
    merge_dated(path, "prA", "2026-02-02T00:00:00Z")
    # `add` refuses the Implementation (review r75 F4); written past it, as by hand
    monkeypatch.setattr("kistore.store.admission._answered_with_wrong_kind", lambda *a: [])
    gate_b = pr(path, "prB", [trap], "2026-03-01T00:00:00Z")
    found = check_range(store, gate_b)
    assert errors(found) == ["KI202"]
    trap_hex, run_hex = kit.digest(trap)[7:], kit.digest(run)[7:]
    f = found[0]
    assert (f.file, f.pointer) == (f"store/objects/sha256/{trap_hex[:2]}/{trap_hex[2:]}.json",
                                   "/kind")
    assert (f.expected, f.found) == ("Workload", "Implementation")
    assert f.extra == {"run": kit.digest(run), "field": "workloadDigest"}
    assert f.message.startswith(
        f"Implementation/impl-trap ({kit.digest(trap)}) answers the dangling reference of "
        f"the earlier BenchmarkRun/trapped ({kit.digest(run)}): store/objects/sha256/"
        f"{run_hex[:2]}/{run_hex[2:]}.json:/spec/workloadDigest names this digest and must "
        "name a Workload, not an Implementation")
    assert "leave this manifest out of the pull request" in f.hint
    # refused, PR 2 is not merged: main verifies; had it landed, verify fails for good
    assert errors(verify(store, at="main")) == []
    landed = merge_dated(path, "prB", "2026-03-02T00:00:00Z")
    assert errors(verify(store, at=landed)) == ["KI202"]


def test_pre_push_of_the_second_merge_refuses_the_moved_citation_as_pre_receive_does(
        main, kit, tmp_path):
    # fresh99 H1: main merges the later-dated pull request, pushes, then merges the other one
    # (the same run, committed earlier) and pushes. The remote's pre-receive judges
    # OLD..NEW and refuses KI425; pre-push and `check --unpushed` started at the oldest
    # commit the remote lacks (the earlier pull request's, whose parent is main before
    # either merge), which holds the first landing, and said ok.
    from click.testing import CliRunner

    from kistore.check.gate import check_updates
    from kistore.check.reach import remote_tips
    from kistore.cli import main as cli

    path = main["path"]
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    git(path, "remote", "add", "server", str(server))
    run = kit.run(main["protocol"], main["env"], main["impl"], main["workload"], latency=10_000,
                  name="samerun")
    pr(path, "prB", [run], "2026-02-01T00:00:00Z")  # committed first
    pr(path, "prA", [run], "2026-03-01T00:00:00Z")
    merge_dated(path, "prA", "2026-04-01T00:00:00Z")
    git(path, "push", "-q", "--no-verify", "server", "main")  # sets refs/remotes/server/main
    pushed = git(path, "rev-parse", "main").strip()
    # dated now: a merge onto main dated days back is KI431's, not this test's
    new = merge_dated(path, "prB", dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    prb = git(path, "rev-parse", "prB").strip()
    line = f"{pushed} {new} refs/heads/main\n"

    def hook(*args: str, stdin: str | None = None):
        return CliRunner().invoke(cli, ["--store", str(path), "check", *args], input=stdin)

    store = Store(path)
    received = check_updates(store, [(pushed, new, "refs/heads/main")])  # pre-receive's
    assert errors(received) == ["KI425"] and received[-1].extra["new"] == prb
    sent = check_updates(store, [(pushed, new, "refs/heads/main")],  # pre-push's: the same
                         held=remote_tips(store.repo, "server"), remote="server")
    assert [f.format() for f in sent] == [f.format() for f in received]
    result = hook("--updates", "-", "--remote", "server", stdin=line)
    assert result.exit_code == 1 and "KI425" in result.output, result.output
    result = hook("--unpushed", "server")
    assert result.exit_code == 1 and "KI425" in result.output, result.output
    assert "refs/heads/main: 1 error(s)" in result.output
    # the same commits pushed as a new branch: the receiver measures them from its main
    result = hook("--updates", "-", "--remote", "server",
                  stdin=f"{'0' * 40} {new} refs/heads/release\n")
    assert result.exit_code == 1 and "KI425" in result.output, result.output

    # the printed fix, as printed: git drops prB's commit (its patch is upstream already)
    fix = received[-1].hint
    assert f"`git rebase {pushed}`" in fix, fix
    git(path, "rebase", "-q", pushed)
    assert git(path, "rev-parse", "main").strip() == pushed  # nothing left to push
    assert hook("--unpushed", "server").exit_code == 0
    assert hook("--updates", "-", "--remote", "server",
                stdin=f"{pushed} {pushed} refs/heads/main\n").exit_code == 0


def test_a_wrong_kind_answer_merged_after_its_run_says_leave_it_out_in_a_push_of_both(main, kit):
    """fresh99 M5: the pre-push range holding the landed run and the manifest printed only
    "point the field at a manifest of the kind it names", for a run the remote holds."""
    path = main["path"]
    target = kit.workload("softmax", name="wl-softmax")
    run = kit.run(main["protocol"], target, main["impl"], main["workload"], latency=10_000,
                  name="twoprs")
    pr(path, "prA", [run], "2026-02-01T00:00:00Z", dangling=True)
    pr(path, "prB", [target], "2026-03-01T00:00:00Z")
    old, _, new = land_both(path)
    for found in (check_range(Store(path), f"{old}..{new}"), verify(Store(path), at=new)):
        [said] = [f for f in found if f.rule.id == "KI202"]
        assert "out of the pull request" in (said.fix or said.hint)
