"""``kistore verify`` warns of a local notes commit dated ahead of the clock (fresh10 LOW 7).

A notes commit no remote holds, dated more than KI437's minute after this machine's clock,
is refused by a server at the push; ``verify`` said nothing of it. It now says KI440 (msg05),
naming the commit, how far ahead to the second, and that ``kistore notes push`` dates it
again at its push. Told from refs alone when the notes tip is a remote's.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess

import pygit2

from kistore.check.notes_ahead import notes_dated_ahead

from ..attest.test_attestation_evidence import STRANGER, bundle
from ..conftest import PUBLISHED, git, store_file
from .test_unpushed_notes_tags import KISTORE, _findings, clone, kistore_env  # noqa: F401

FIX = ("push the notes with `kistore notes push origin`: it makes them again dated at its "
       "push, with the same lines; a push of branches alone does not send them (a plain "
       "`git push` of the notes ref is refused by the remote, KI437)")


def _note(path, when: dt.datetime) -> str:
    """A note on the published run in a notes commit dated ``when``; its id."""
    blob = git(path, "rev-parse", f"HEAD:{store_file(PUBLISHED['run'])}").strip()
    subprocess.run(["git", "notes", "--ref", "refs/notes/kistore", "append", "-m",
                    bundle(STRANGER, "note").decode(), blob], cwd=path, check=True,
                   capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": _date(when)})
    return git(path, "rev-parse", "refs/notes/kistore").strip()


def _date(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _verify(path) -> subprocess.CompletedProcess:
    return subprocess.run([KISTORE, "verify"], cwd=path, capture_output=True, text=True)


def test_a_notes_commit_ahead_no_remote_holds_is_said_to_the_second(clone):  # noqa: F811
    clock = dt.datetime(2026, 12, 7, 8, 0, tzinfo=dt.UTC)
    ahead = clock + dt.timedelta(minutes=1, seconds=30)
    first = _note(clone, ahead)
    later = _note(clone, clock + dt.timedelta(minutes=4, seconds=5))
    _note(clone, clock + dt.timedelta(seconds=60))  # within the minute: not counted
    found = notes_dated_ahead(pygit2.Repository(str(clone)), int(clock.timestamp()))
    assert [(f.rule.id, f.severity, f.file, set(f.extra["commits"]), f.extra["commit"],
             f.extra["seconds"], f.extra["clock"]) for f in found] == [
        ("KI440", "warning", None, {first, later}, later, int(clock.timestamp()) + 245,
         int(clock.timestamp()))]
    assert found[0].message == (
        f"notes commit {later[:12]} of refs/notes/kistore, which no remote holds, is dated "
        "2026-12-07T08:04:05Z, 4 minutes 5 seconds after this machine's clock "
        "(2026-12-07T08:00:00Z); 1 other notes commit(s) no remote holds are dated more "
        "than that ahead of it too: a server refuses a push of a notes commit dated more "
        "than 1 minute after its clock (KI437); `kistore notes push origin` makes it again "
        "dated at its push")
    assert found[0].hint == FIX
    # a minute ahead, not more: KI437 lets it in
    assert notes_dated_ahead(pygit2.Repository(str(clone)),
                             int(clock.timestamp()) + 185) == []


def test_verify_says_it_and_not_once_pushed(clone):  # noqa: F811
    # 2 h 30 min 30 s ahead: "2 hours 30 minutes" however long verify takes to start
    ahead = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=2, minutes=30,
                                                                           seconds=30)
    commit = _note(clone, ahead)
    said = _verify(clone)
    # on BASE b61742cb: no KI440 (verify said nothing of it)
    (line,) = [f for f in _findings(said.stdout) if "KI440" in f]
    assert line.startswith(
        f"(store): warning KI440 unpushed-notes-off-clock: notes commit {commit[:12]} of "
        f"refs/notes/kistore, which no remote holds, is dated {_date(ahead)}, 2 hours 30 "
        "minutes after this machine's clock (")
    assert line.endswith(
        "): a server refuses a push of a notes commit dated more than 1 minute after its "
        "clock (KI437); `kistore notes push origin` makes it again dated at its push")
    assert f"fix KI440 (1 finding): {FIX}" in said.stdout
    # the notes tip at origin's tracking ref (as fetched, or pushed): refs only, nothing said
    git(clone, "update-ref", "refs/notes/remotes/origin/kistore", commit)
    assert not [f for f in _findings(_verify(clone).stdout) if "KI440" in f]
