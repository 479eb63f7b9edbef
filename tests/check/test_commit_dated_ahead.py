"""A commit a range brings is not dated ahead of the checking clock (fresh06 L6; KI438).

An attestation file enters the repository at the committer date of the commit that brings
it, held up to its ancestors'. The gate believed any commit date up to a day past its clock
(KI428), so one commit dated 20 hours ahead (pre-receive: ok, 0 findings) made every
attestation file committed after it enter 20 hours ahead: a maintainer whose key has a
planned ``validUntil`` within those hours could withdraw nothing (the gate refused the
file, KI302, "entered" at a date nobody wrote for it). ``check BASE..HEAD``, ``check
--landed`` and ``pre-receive`` now refuse a commit dated more than five minutes after their
clock. Pushes go to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess

from kistore.check.gate import check_range
from kistore.store import Store

from ..conftest import PUBLISHED, git
from .test_attestation_dated_ahead import _again
from .test_evidence_every_commit import (
    edit_trust,
    remote,  # noqa: F401 (a trusted maintainer, its withdrawal)
    the_entry,
)
from .test_history_reruns import attest_file


def _date(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _commit(clone, message: str, when: dt.datetime | None = None) -> str:
    """Commit everything in the clone (past any local hook), dated ``when``; return it."""
    git(clone, "add", "-A")
    dated = {"GIT_COMMITTER_DATE": _date(when), "GIT_AUTHOR_DATE": _date(when)} if when else {}
    subprocess.run(["git", "commit", "-q", "--allow-empty", "--no-verify", "-m", message],
                   cwd=clone, check=True, capture_output=True, env={**os.environ, **dated})
    return git(clone, "rev-parse", "HEAD").strip()


def _said(done: subprocess.CompletedProcess[str]) -> dict:
    return json.loads(done.stdout)


def test_a_commit_dated_hours_ahead_is_refused_and_the_withdrawal_after_it_counts(
        remote):  # noqa: F811
    # fresh06 L6: the maintainer key expires in 2 hours (a planned expiry); someone lands a
    # docs commit dated 20 hours ahead; the maintainer's withdrawal file after it "entered"
    # after the expiry: refused by the gate, KI302, for a date the maintainer never wrote
    clone = remote.clone
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    edit_trust(lambda d: the_entry(d).update(validUntil=_date(now + dt.timedelta(hours=2))))(
        clone)
    assert remote.pr("a planned expiry in two hours", lambda c: None).accepted
    base = remote.main()
    (clone / "NOTES.txt").write_text("hi\n")
    # 19 h 30 min ahead: said as "19 hours" and the minutes left (precise beside the 5
    # minutes allowed, msg03: "19 hours" alone until 2026-12-07) whether the check runs in
    # the same second as ``now`` (CI, alone) or minutes later (a loaded machine, ci167)
    when = now + dt.timedelta(hours=19, minutes=30)
    ahead = _commit(clone, "docs (dated +19 h 30 min)", when)
    message = re.compile(re.escape(f"commit {ahead[:12]} is dated {_date(when)}, 19 hours ")
                         + r"(30|2\d) minutes? after the clock of this check \(")
    why = ("): an attestation file enters the repository at the date of the commit that "
           "brings it, held up to its ancestors', so every attestation file committed after "
           "this commit would enter then, after a key's planned expiry (a maintainer's "
           "withdrawal refused, KI302) or its trust; a commit is dated at most 5 minutes "
           "after the clock")
    fix = ("set right the clock of the machine that made the commit, then make the commit "
           "again dated now: `git commit --amend --no-edit --date=now` for the branch's last "
           "commit (its author kept), `git rebase --force-rebase --ignore-date "
           f"{base}` for every commit of the branch; a commit dated only minutes ahead "
           "passes once the clock reaches its date less five minutes: run the check again "
           "then (a commit that landed, under `check --landed`, needs nothing else)")
    # the pull request's check, the landed job's and the server's hook: each refuses it
    # (on BASE 440899c7: 0 errors each, and the push was accepted)
    for args in (("check", f"{base}..HEAD"), ("check", "--landed", f"{base}..HEAD")):
        done = remote.kistore(*args, "--json", check=False)
        assert done.returncode == 1, done.stdout
        [found] = [f for f in _said(done)["findings"] if f["severity"] == "error"]
        assert found["rule"] == "KI438"
        assert message.match(found["message"]), found["message"]
        assert found["message"].endswith(why), found["message"]
        assert found["hint"] == fix
        assert (found["extra"]["commit"], found["extra"]["commits"]) == (ahead, [ahead])
        assert found["extra"]["seconds"] == int(when.timestamp())
    pushed = remote.push("HEAD:main")
    assert not pushed.accepted
    assert re.search("error KI438 commit-dated-ahead: " + message.pattern, pushed.output)
    assert remote.main() == base
    # the printed fix, followed: the commit made again dated now lands, and the
    # maintainer's withdrawal after it enters now, before the expiry: it counts
    subprocess.run(["git", "commit", "-q", "--amend", "--no-edit", "--date=now"],
                   cwd=clone, check=True, capture_output=True)
    assert remote.push("HEAD:main").accepted
    attest_file(remote, _again())(clone)
    withdrawal = remote.pr("the maintainer withdraws the run again", lambda c: None)
    assert withdrawal.accepted, withdrawal.output
    said = _said(remote.kistore("attestations", PUBLISHED["run"], "--json"))
    assert [a["effect"] for a in said["attestations"]] == ["withdraws", "withdraws"]


def test_a_commit_minutes_ahead_passes_and_one_landed_before_is_not_judged_again(
        remote):  # noqa: F811
    clone = remote.clone
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    base = remote.main()
    # within the skew honest clocks have: accepted
    (clone / "a.txt").write_text("a\n")
    _commit(clone, "two minutes ahead", now + dt.timedelta(minutes=2))
    assert remote.push("HEAD:main").accepted
    # a commit dated hours ahead that landed before the rule (the hook set aside) is
    # history: the next pull request, on top of it, is judged on its own commits only
    (clone / "b.txt").write_text("b\n")
    landed = _commit(clone, "landed before the rule", now + dt.timedelta(hours=3))
    assert remote.push("HEAD:main", hook=False).accepted
    (clone / "c.txt").write_text("c\n")
    pushed = remote.pr("on top of it", lambda c: None)
    assert pushed.accepted, pushed.output
    # judged as the range that brought it, at its push's clock: refused; at a clock past
    # its date (the store's rules hold over its whole history): nothing to say
    store = Store(clone)
    later = now + dt.timedelta(minutes=1)
    [found] = [f for f in check_range(store, f"{base}..{landed}", now=later)
               if f.rule.id == "KI438"]
    assert found.extra["commits"] == [landed]
    assert found.message.startswith(
        f"commit {landed[:12]} is dated {_date(now + dt.timedelta(hours=3))}, 2 hours 59 "
        "minutes after "
        f"the clock of this check ({_date(later)}): ")
    assert [f for f in check_range(store, f"{base}..{landed}", now=later
                                   + dt.timedelta(hours=3)) if f.rule.id == "KI438"] == []
