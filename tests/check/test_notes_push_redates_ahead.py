"""``kistore notes push`` re-dates a notes commit dated ahead of this machine's clock (msg03).

fresh11 LOW 8: a notes commit dated 59 s ahead of the pushing machine's clock, within the
minute ``kistore notes push`` sent as it was (:data:`kistore.attest.notes_dated.RECENT`),
was refused by a server whose clock was 30 s slow (89 s after its clock, past KI437's
minute). Now every commit the remote lacks, from the first dated ahead, is made again dated
at the push (tree, author and message kept), and the push says so (stderr, ``--json``'s
``redated``); a commit the remote holds is never made again. The server's clock is handed
to the gate in-process (``check_updates``' ``now``), as the KI437 tests do.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

import pytest

from kistore.attest import notes, notes_dated
from kistore.check.gate import check_range, check_updates
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git
from ..prs import KISTORE, Remote
from .test_notes_dated_at_push import _group

NOTES = "refs/notes/kistore"
ZERO = "0" * 40


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _date(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _ahead_tip(remote: Remote, when: dt.datetime) -> str:
    """Make the clone's notes tip again committer-dated ``when``, authored by Ada an hour
    before, with its own message; return its id."""
    tip = git(remote.clone, "rev-parse", NOTES).strip()
    parents = git(remote.clone, "rev-list", "--parents", "-n", "1", tip).split()[1:]
    made = subprocess.run(
        ["git", "commit-tree", f"{tip}^{{tree}}", *(a for p in parents for a in ("-p", p)),
         "-m", "withdraw fast"], cwd=remote.clone, check=True, capture_output=True,
        text=True, env={**os.environ, "GIT_COMMITTER_DATE": _date(when),
                        "GIT_AUTHOR_DATE": _date(when - dt.timedelta(hours=1)),
                        "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org"},
    ).stdout.strip()
    git(remote.clone, "update-ref", NOTES, made)
    return made


def _fields(remote: Remote, commit: str) -> str:
    """The tree, parents, author (with date), committer's name and message of ``commit``."""
    return git(remote.clone, "log", "-1", "--format=%T %P|%an <%ae> %ad|%cn|%B", "--date=raw",
               commit)


def _withdrawn_ahead(remote: Remote, kit, seconds: int) -> tuple[str | None, str, dt.datetime]:
    """The maintainer key's withdrawal of ``fast`` in a notes commit dated ``seconds`` ahead
    of now: (the server's notes tip or None, the commit, now)."""
    fast = _group(remote, kit)
    served = git(remote.bare, "for-each-ref", "--format=%(objectname)", NOTES).strip() or None
    notes.attach(Store(remote.clone), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast))
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    return served, _ahead_tip(remote, now + dt.timedelta(seconds=seconds)), now


def test_a_notes_commit_59_seconds_ahead_passes_a_server_30_seconds_slow(remote, kit,
                                                                         monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)  # the server's hook finds kistore
    theirs, ahead, now = _withdrawn_ahead(remote, kit, 59)
    sent: list[str] = []
    judged: list[tuple[notes_dated.Redated, ...]] = []
    done = notes.push(Store(remote.clone), "origin",
                      judge=lambda _theirs, ours, redated: (sent.append(ours),
                                                            judged.append(redated)))
    pushed = sent[-1]
    slow = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=30)  # the server's clock
    found = [(f.rule.id, f.extra.get("commit")) for f in check_updates(
        Store(remote.clone), [(theirs or ZERO, pushed, NOTES)], protected={"refs/heads/main"},
        now=slow) if f.rule.id == "KI437"]
    # on BASE 04156861: [("KI437", ahead)]: sent as it was, 89 s after the server's clock
    assert found == []
    assert pushed != ahead
    # made again: only the committer date differs (its tree, parent, author, message kept)
    assert _fields(remote, pushed) == _fields(remote, ahead)
    when = int(git(remote.clone, "log", "-1", "--format=%ct", pushed).strip())
    assert now.timestamp() <= when <= dt.datetime.now(dt.UTC).timestamp()
    ahead_at = int(git(remote.clone, "log", "-1", "--format=%ct", ahead).strip())
    assert done.redated == (notes_dated.Redated(ahead, pushed, ahead_at - when, True),)
    assert judged[-1] == done.redated  # the gate is told what was made again (doc01 3)
    assert git(remote.bare, "rev-parse", NOTES).strip() == pushed
    assert git(remote.clone, "rev-parse", NOTES).strip() == pushed  # ours is what was sent


def test_notes_push_says_what_it_re_dated(remote, kit):
    _, ahead, _ = _withdrawn_ahead(remote, kit, 59)
    ahead_at = int(git(remote.clone, "log", "-1", "--format=%ct", ahead).strip())
    done = subprocess.run([KISTORE, "notes", "push", "origin", "--json"], cwd=remote.clone,
                          capture_output=True, text=True, env={**os.environ, "KISTORE": KISTORE})
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    new = git(remote.bare, "rev-parse", NOTES).strip()
    when = int(git(remote.bare, "log", "-1", "--format=%ct", new).strip())
    seconds = ahead_at - when
    assert 50 <= seconds <= 59
    # on BASE 04156861: KeyError, no word of it
    assert out["redated"] == [{"old": ahead, "new": new, "seconds": seconds, "kept": True}]
    stamp = dt.datetime.fromtimestamp(when, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert (f"note: 1 notes commit origin lacked was dated {seconds} seconds after this "
            f"machine's clock: made again dated at the push, {stamp} (its tree, author and "
            "message kept), since a server whose clock is behind this machine's refuses a "
            "notes commit dated more than 1 minute after its clock (KI437)\n") in done.stderr


def test_a_commit_the_remote_holds_is_never_re_dated(remote, kit):
    theirs, ahead, now = _withdrawn_ahead(remote, kit, 50)
    hook = remote.bare / "hooks" / "pre-receive"
    hook.rename(hook.with_suffix(".off"))  # the server took it dated ahead
    try:
        assert remote.push(NOTES).accepted
    finally:
        hook.with_suffix(".off").rename(hook)
    repo = Store(remote.clone).repo
    # a commit on it dated at the clock: sent as it is, its parent (the server's) kept
    git(remote.clone, "notes", "--ref", NOTES, "add", "-f", "-m", "x", "HEAD")
    tip = git(remote.clone, "rev-parse", NOTES).strip()
    redated: list[notes_dated.Redated] = []
    assert str(notes_dated.dated_at_push(repo, tip, ahead, "origin", redated)) == tip
    assert redated == []
    # one dated ahead on it: made again, on the server's commit as it is
    on = _ahead_tip(remote, now + dt.timedelta(seconds=40))
    made = str(notes_dated.dated_at_push(repo, on, ahead, "origin", redated))
    assert made != on
    assert [r.old for r in redated] == [on]
    assert git(remote.clone, "log", "-1", "--format=%P", made).strip() == ahead
    assert theirs != ahead


def test_ki437_says_the_distance_to_the_second_beside_the_minute(remote, kit):
    theirs, ahead, now = _withdrawn_ahead(remote, kit, 90)
    [found] = [f for f in check_updates(Store(remote.clone), [(theirs or ZERO, ahead, NOTES)],
                                        protected={"refs/heads/main"}, now=now)
               if f.rule.id == "KI437"]
    # on BASE 04156861: "1 minute after this push's clock (...)", beside "at most 1 minute
    # after it": read as within it
    assert found.message.startswith(
        f"notes commit {ahead[:12]}, which this push of {NOTES} brings, is dated "
        f"{_date(now + dt.timedelta(seconds=90))}, 1 minute 30 seconds after this push's "
        f"clock ({_date(now)}): a note line enters the repository at its notes commit's "
        "date, so a notes commit a push brings must be dated at the push (at most 1 minute "
        "after it, 10 minutes before it)"), found.message


def test_ki438_says_the_distance_to_the_second_beside_the_five_minutes(remote):
    base = git(remote.clone, "rev-parse", "HEAD").strip()
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    when = now + dt.timedelta(minutes=5, seconds=40)
    (remote.clone / "NOTES.txt").write_text("hi\n")
    git(remote.clone, "add", "-A")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "docs"], cwd=remote.clone,
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": _date(when)})
    ahead = git(remote.clone, "rev-parse", "HEAD").strip()
    [found] = [f for f in check_range(Store(remote.clone), f"{base}..{ahead}", now=now)
               if f.rule.id == "KI438"]
    # on BASE 04156861: "5 minutes after the clock of this check", beside "at most 5
    # minutes after the clock"
    assert found.message.startswith(
        f"commit {ahead[:12]} is dated {_date(when)}, 5 minutes 40 seconds after the clock "
        f"of this check ({_date(now)}): "), found.message
    assert found.message.endswith("a commit is dated at most 5 minutes after the clock")
