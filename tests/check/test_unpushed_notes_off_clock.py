"""``check --unpushed`` warns, not refuses, of notes commits dated off the clock (fresh07 M8).

A note attested offline twenty minutes earlier made ``check --unpushed origin`` (the
pre-commit framework's push hook, told nothing of what is pushed) refuse a plain push of a
branch with KI437 for ``refs/notes/kistore``, which that push does not send. It is now
KI440, a warning naming ``kistore notes push origin``; the remote's ``pre-receive`` still
refuses a plain ``git push`` of those notes commits (KI437).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess

from ..attest.test_attestation_evidence import STRANGER, bundle
from ..conftest import PUBLISHED, git, store_file
from .test_unpushed_notes_tags import (  # noqa: F401 (fixtures)
    KISTORE,
    _findings,
    _push,
    _unpushed,
    clone,
    kistore_env,
)


def test_an_offline_note_does_not_refuse_a_branch_push(clone):  # noqa: F811
    blob = git(clone, "rev-parse", f"HEAD:{store_file(PUBLISHED['run'])}").strip()
    old = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(minutes=20)
    subprocess.run(["git", "notes", "--ref", "refs/notes/kistore", "add", "-m",
                    bundle(STRANGER, "note").decode(), blob], cwd=clone, check=True,
                   capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": old.strftime("%Y-%m-%dT%H:%M:%SZ")})
    notes_commit = git(clone, "rev-parse", "refs/notes/kistore").strip()
    said = _unpushed(clone)
    # on BASE 440899c7: rc 1, "error KI437 notes-commit-off-clock", "FAILED"
    assert said.returncode == 0, said.stdout + said.stderr
    (line,) = _findings(said.stdout)
    assert line.startswith(
        f"(store): warning KI440 unpushed-notes-off-clock: notes commit {notes_commit[:12]}, "
        "which this push of refs/notes/kistore brings, is dated "
        f"{old.strftime('%Y-%m-%dT%H:%M:%SZ')}, ")
    assert line.endswith(
        " (a warning here: a push of branches does not send refs/notes/kistore, and `kistore "
        "notes push origin` dates them at its push)")
    assert ("fix KI440 (1 finding): push the notes with `kistore notes push origin`: it makes "
            "them again dated at its push, with the same lines; a push of branches alone "
            "does not send them (a plain `git push` of the notes ref is refused by the "
            "remote, KI437)") in said.stdout
    # a plain git push of the notes: pre-push (the refs pushed) and the remote refuse it
    pushed = _push(clone, "origin", "refs/notes/kistore")
    assert pushed.returncode == 1 and "KI437" in pushed.stdout + pushed.stderr
    # kistore notes push dates it at the push: accepted
    done = subprocess.run([KISTORE, "notes", "push", "origin"], cwd=clone,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
