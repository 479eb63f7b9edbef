"""KI437's tolerance ahead is a minute, which bounds every note's lateness (fresh08 M1, M2).

A note line enters the repository at its notes commit's date held up to its ancestors'.
KI437 let a pushed notes commit be dated five minutes after the server's clock, so anyone
(every key may push a community note) could push one dated +5 min and hold every later
honest line five minutes late: a maintainer's withdrawal, made at the right clock two
minutes before the key's planned ``validUntil``, was refused as if the key had expired
(M2); and a line held by the server before a trust push crossed a ``validFrom`` set between
its receipt and its forged date (M1). ``kistore notes push`` dates its notes commits at the
push, so honest notes commits are never ahead of the pusher's clock: the tolerance is now
:data:`kistore.core.times.NOTES_AHEAD`, one minute, for clocks that differ a little.

The in-process judgements take the push's clock as given; the commits are dated with
``GIT_COMMITTER_DATE`` (nothing here depends on the machine's speed).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

import pytest

from kistore.attest import notes
from kistore.check.gate import check_updates
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, STRANGER, bundle
from ..conftest import git
from ..prs import KISTORE, Remote
from .test_history_trust_effects import MAINTAINER_ID, trust_maintainer
from .test_notes_dated_at_push import _group, _redate_tip
from .test_notes_entry_verdict import _trusted
from .test_trust_entry_backdated import _date

NOTES = "refs/notes/kistore"
ZERO = "0" * 40
MINUTE = 60
"""KI437's tolerance ahead (:data:`kistore.core.times.NOTES_AHEAD`), as the tests state it."""


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _note(remote: Remote, key, type_name: str, run: Digest, dated: dt.datetime) -> str:
    """Append ``key``'s ``type_name`` on ``run`` in a notes commit dated ``dated``; its id."""
    line = bundle(key, type_name, subject=run).decode()
    blob = git(remote.clone, "rev-parse", f"HEAD:{layout.object_path(run)}").strip()
    subprocess.run(["git", "notes", "--ref", NOTES, "append", "-m", line, blob],
                   cwd=remote.clone, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": _date(dated),
                        "GIT_AUTHOR_DATE": _date(dated)})
    return git(remote.clone, "rev-parse", NOTES).strip()


def _judged(remote: Remote, old: str, new: str, clock: dt.datetime) -> list:
    """KI437/KI439/KI411 of a push of the notes ``old`` -> ``new`` at ``clock``."""
    return [f for f in check_updates(Store(remote.clone), [(old, new, NOTES)],
                                     protected={"refs/heads/main"}, now=clock)
            if f.rule.id in ("KI437", "KI439", "KI411")]


def test_a_notes_commit_two_minutes_ahead_is_refused_and_thirty_seconds_passes(remote, kit):
    digests, start = _trusted(remote, kit)
    run = Digest.from_str(digests["a"])
    clock = start + dt.timedelta(seconds=4)
    ahead = _note(remote, STRANGER, "dispute", run, clock + dt.timedelta(minutes=2))
    found = _judged(remote, ZERO, ahead, clock)
    # on BASE d581adf8: [] (KI437 allowed five minutes)
    assert [(f.rule.id, f.extra["commit"], f.extra["seconds"]) for f in found] == [
        ("KI437", ahead, int((clock + dt.timedelta(minutes=2)).timestamp()))]
    assert found[0].message == (
        f"notes commit {ahead[:12]}, which this push of {NOTES} brings, is dated "
        f"{_date(clock + dt.timedelta(minutes=2))}, 2 minutes after this push's clock "
        f"({_date(clock)}): a note line enters the repository at its notes commit's date, so "
        "a notes commit a push brings must be dated at the push (at most 1 minute after it, "
        "10 minutes before it): dated otherwise, it would choose when its lines entered, "
        "before a key's trust or after its expiry")
    git(remote.clone, "update-ref", "-d", NOTES)  # taken back: the same line, +30 s
    near = _note(remote, STRANGER, "dispute", run, clock + dt.timedelta(seconds=30))
    assert _judged(remote, ZERO, near, clock) == []


def test_the_pre_receive_hook_refuses_four_minutes_ahead_and_takes_thirty_seconds(remote, kit):
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit)
    notes.attach(Store(remote.clone), fast, bundle(STRANGER, "dispute", subject=fast))
    # four minutes: refused whenever the hook reads its clock within three minutes of `now`
    ahead = _redate_tip(remote, now + dt.timedelta(minutes=4))
    pushed = remote.push(NOTES)
    # on BASE d581adf8: accepted (KI437 allowed five minutes)
    assert not pushed.accepted, pushed.output
    assert (f"error KI437 notes-commit-off-clock: notes commit {ahead[:12]}, which this push "
            f"of {NOTES} brings, is dated {_date(now + dt.timedelta(minutes=4))}, "
            ) in pushed.output
    assert "(at most 1 minute after it, 10 minutes before it)" in pushed.output
    # thirty seconds: the hook's clock, read after `now`, sees it at most that far ahead
    _redate_tip(remote, now + dt.timedelta(seconds=30))
    assert remote.push(NOTES).accepted


def test_someone_elses_notes_commit_ahead_holds_an_honest_line_at_most_the_tolerance(remote, kit):
    # fresh08 M2: a maintainer key valid until 150 s after the clock; someone's community
    # note pushed dated ahead; the maintainer withdraws at the right clock
    start = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=1)
    clock = start + dt.timedelta(seconds=4)
    until = clock + dt.timedelta(seconds=150)
    digests, _ = _trusted(remote, kit, "--valid-until", _date(until))
    run = Digest.from_str(digests["a"])
    five = _note(remote, STRANGER, "dispute", run, clock + dt.timedelta(minutes=4))
    # on BASE d581adf8: accepted, and every later line entered four minutes late, after
    # `until`: the maintainer's withdrawal was refused (attest, KI439) as if expired
    assert [f.rule.id for f in _judged(remote, ZERO, five, clock)] == ["KI437"]
    git(remote.clone, "update-ref", "-d", NOTES)
    tip = _note(remote, STRANGER, "dispute", run, clock + dt.timedelta(seconds=MINUTE))
    assert _judged(remote, ZERO, tip, clock) == []  # the most a push may be ahead
    later = clock + dt.timedelta(seconds=10)
    honest = _note(remote, MAINTAINER_KEY, "withdrawal", run, later)
    assert _judged(remote, tip, honest, later) == []  # held 50 s, before `until`: withdraws
    listed = json.loads(remote.kistore("attestations", "BenchmarkRun/a", "--json").stdout)
    assert [(a["effect"], a["enteredAt"]) for a in listed["attestations"]
            if a["keyid"] == MAINTAINER_ID] == [
        ("withdraws", _date(clock + dt.timedelta(seconds=MINUTE)))]


def _held_finding(remote, kit, *trust_args: str):
    """A stranger's notes commit dated the tolerance ahead, a withdrawal on it at the clock."""
    start = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=1)
    clock = start + dt.timedelta(seconds=4)
    digests, _ = _trusted(remote, kit, *(a.replace("CLOCK+30", _date(
        clock + dt.timedelta(seconds=30))) for a in trust_args))
    run = Digest.from_str(digests["a"])
    parent = clock + dt.timedelta(seconds=MINUTE)
    tip = _note(remote, STRANGER, "dispute", run, parent)
    later = clock + dt.timedelta(seconds=10)
    honest = _note(remote, MAINTAINER_KEY, "withdrawal", run, later)
    return run, tip, parent, honest, later, _judged(remote, tip, honest, later)


def test_a_line_held_past_its_keys_expiry_names_the_parent_not_this_clock(remote, kit):
    run, tip, parent, honest, later, found = _held_finding(
        remote, kit, "--valid-until", "CLOCK+30")
    until = later + dt.timedelta(seconds=20)
    assert [(f.rule.id, f.extra["effect"], f.extra["now"]) for f in found] == [
        ("KI439", "not-counted", "withdraws")]
    # on BASE d581adf8: "enters the repository at its notes commit's date, <parent>" (its
    # notes commit is dated <later>) and the fix "set this machine's clock right"
    assert found[0].message == (
        f"the withdrawal by {MAINTAINER_ID} on {run} enters the repository at "
        f"{_date(parent)}, 50 seconds after this push's clock ({_date(later)}): its notes "
        f"commit {honest[:12]} is dated {_date(later)}, and notes commit {tip[:12]}, which it "
        f"is built on, is dated {_date(parent)} (an entry is never earlier than its "
        "history's), and every reader judges it there: not-counted (key "
        f"{MAINTAINER_ID} expired at {_date(until)}; the attestation entered the repository "
        f"at {_date(parent)}), not withdraws as at this push's clock")
    assert found[0].hint == (
        f"this machine's clock is not the cause: notes commit {tip[:12]}, which the line's "
        f"notes commit is built on, is dated {_date(parent)}, ahead of the clock that "
        "received it (KI437 lets a notes commit be up to 1 minute ahead), and no notes "
        "commit made on it enters earlier (nor does `kistore notes rebase`); waiting does "
        "not help, as the key may not sign by then: sign the line with another key "
        "store/trust/keys.json trusts then, or have this key's validity changed by a "
        "reviewed pull request first")


def test_a_line_held_past_its_keys_valid_from_says_to_wait(remote, kit):
    run, tip, parent, honest, later, found = _held_finding(
        remote, kit, "--valid-from", "CLOCK+30")
    assert [(f.rule.id, f.extra["effect"], f.extra["now"]) for f in found] == [
        ("KI439", "withdraws", "community")]
    assert found[0].message.startswith(
        f"the withdrawal by {MAINTAINER_ID} on {run} enters the repository at "
        f"{_date(parent)}, 50 seconds after this push's clock ({_date(later)}): its notes "
        f"commit {honest[:12]} is dated {_date(later)}, and notes commit {tip[:12]}, which it "
        f"is built on, is dated {_date(parent)}")
    assert found[0].hint == (
        f"this machine's clock is not the cause: notes commit {tip[:12]}, which the line's "
        f"notes commit is built on, is dated {_date(parent)}, ahead of the clock that "
        "received it (KI437 lets a notes commit be up to 1 minute ahead), and no notes "
        "commit made on it enters earlier (nor does `kistore notes rebase`): wait until after "
        f"{_date(parent)}, then `kistore notes push REMOTE`: the line enters then, judged "
        "there alike by this push's clock and every reader")


def test_notes_push_held_by_the_remotes_notes_tip_names_it_not_this_clock(remote, kit):
    # fresh08 M2's k439vf: the remote's notes tip dated ahead (held from before KI437's
    # minute, or pushed past the hook), a key trusted from an hour ahead, and a withdrawal
    # made at the right clock: `kistore notes push` refuses it (KI439), and now says why
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit)
    trusted = remote.pr("trust the maintainer key", trust_maintainer(
        remote, "--valid-from", _date(now + dt.timedelta(hours=1))))
    assert trusted.accepted, trusted.output
    notes.attach(Store(remote.clone), fast, bundle(STRANGER, "dispute", subject=fast))
    ahead = now + dt.timedelta(hours=2)
    tip = _redate_tip(remote, ahead)
    assert remote.push(NOTES, hook=False).accepted
    notes.attach(Store(remote.clone), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast))
    done = subprocess.run([KISTORE, "notes", "push", "origin"], cwd=remote.clone,
                          capture_output=True, text=True, env={**os.environ, "KISTORE": KISTORE})
    assert done.returncode == 1, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    # on BASE d581adf8: "... enters the repository at its notes commit's date, <ahead>" and
    # "fix KI439 (1 finding): set this machine's clock right (NTP: ...)"
    assert (f"and notes commit {tip[:12]}, which it is built on, is dated {_date(ahead)} (an "
            "entry is never earlier than its history's), and every reader judges it there: "
            "withdraws (trusted maintainer key), not community as at this push's clock") in said
    assert (f"fix KI439 (1 finding): this machine's clock is not the cause: notes commit "
            f"{tip[:12]}, which the line's notes commit is built on, is dated {_date(ahead)}, "
            "ahead of the clock that received it (KI437 lets a notes commit be up to 1 minute "
            "ahead), and no notes commit made on it enters earlier (nor does `kistore notes "
            f"rebase`): wait until after {_date(ahead)}, then `kistore notes push REMOTE`") in said
    assert "set this machine's clock right" not in said


def test_a_line_held_by_a_notes_commit_the_same_push_brings_says_to_rebuild(remote, kit):
    run, tip, parent, honest, later, _ = _held_finding(remote, kit, "--valid-until", "CLOCK+30")
    found = _judged(remote, ZERO, honest, later)  # both notes commits brought by one push
    assert [(f.rule.id, f.extra["effect"]) for f in found] == [("KI439", "not-counted")]
    assert (f"its notes commit {honest[:12]} is dated {_date(later)}, and notes commit "
            f"{tip[:12]}, which it is built on, is dated {_date(parent)}") in found[0].message
    assert found[0].hint == (
        f"notes commit {tip[:12]}, which this push brings and the line's notes commit is "
        f"built on, is dated {_date(parent)}, ahead of this push's clock: make the notes this "
        "push brings again on REMOTE's notes tip, dated now (`kistore notes rebase REMOTE`), "
        "then `kistore notes push REMOTE`")
