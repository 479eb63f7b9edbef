"""KI411's way out of a refused notes push ends with the rebuild; restore names it (fresh15 F5).

A withdrawal signed while its key was trusted, not pushed before the key expired: ``kistore
notes push`` refuses it (KI411: it would enter now, at the push). Its way out said "leave the
line out (`git notes --ref kistore remove OBJ`) ...; then `kistore notes push origin` again":
done so, the push went, and ``kistore verify`` then warned KI315 (the notes history holds a
line the tip lacks) with the fix `kistore notes restore`, which put nothing back, its summary
naming no way out. Only `kistore notes rebase origin` clears it, which the way out now names,
as KI439's does, and so does restore's summary.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import time

import pytest

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..check.test_history_trust_effects import MAINTAINER_ID, trust_maintainer
from ..check.test_notes_gate_history import run_blob
from ..prs import Remote
from .test_notes_push_way_out import way_out
from .test_notes_rebase import kistore

pytestmark = pytest.mark.usefixtures("extra_keys_kept")


@pytest.fixture
def expired(published, tmp_path) -> tuple[Remote, str]:
    """Main trusts the maintainer key until a few seconds from now; its withdrawal, a note
    dated two minutes back (while the key was trusted: it counts here), is not pushed before
    the key expires. Return the server and the annotated object."""
    remote = Remote(published, tmp_path)
    until = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(seconds=6)
    pushed = remote.pr("trust the maintainer key until soon", trust_maintainer(
        remote, "--valid-from", "2026-01-01", "--valid-until",
        until.strftime("%Y-%m-%dT%H:%M:%SZ")))
    assert pushed.accepted, pushed.output
    blob = run_blob(remote.clone)
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-", blob],
                   cwd=remote.clone, input=bundle(MAINTAINER_KEY, "withdrawal") + b"\n",
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": f"@{int(time.time()) - 120} +0000"})
    while dt.datetime.now(dt.UTC) < until + dt.timedelta(seconds=1):
        time.sleep(0.2)
    return remote, blob


def _run(remote: Remote, command: str) -> subprocess.CompletedProcess[str]:
    """Run a printed command in the clone, as printed (``git`` or ``kistore``)."""
    words = command.split()
    if words[0] == "kistore":
        return kistore(remote, *words[1:], check=False)
    return subprocess.run(words, cwd=remote.clone, capture_output=True, text=True)


def test_the_way_out_of_an_expired_key_s_line_ends_with_the_rebuild_and_verify_is_clean(
        expired):
    remote, blob = expired
    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert f"error KI411 new-attestation-key-not-trusted: a new withdrawal attestation by " \
           f"{MAINTAINER_ID} cannot enter now: key {MAINTAINER_ID} expired at " in refused.stderr
    # on BASE 6af42bf9: "...; then `kistore notes push origin` again: the notes commits
    # origin lacks are more than a minute old, ... not the deleted line", and verify then
    # warned KI315 whose fix, `kistore notes restore`, put nothing back
    assert way_out(refused.stderr) == (
        "To leave a line out: `git notes --ref kistore edit OBJ` and delete it, or `git notes "
        f"--ref kistore remove OBJ` when it is the note's only line (OBJ: {blob}); then "
        "`kistore notes rebase origin`, which rebuilds refs/notes/kistore on origin's notes "
        "tip without it (a line refused for its key is never restored, and `kistore verify` "
        "warns a line this repository's notes history holds and its tip lacks, KI315, until "
        "the rebuild drops it), and `kistore notes push origin`; nothing was pushed, your "
        "notes are unchanged")
    # done as said: the line removed, the rebuild, the push; verify says nothing of it
    for command in (f"git notes --ref kistore remove {blob}", "kistore notes rebase origin",
                    "kistore notes push origin"):
        done = _run(remote, command)
        assert done.returncode == 0, done.stdout + done.stderr
    verified = kistore(remote, "verify", "--json", check=False)
    assert "KI315" not in verified.stdout


def test_restore_names_the_rebuild_for_a_line_refused_for_its_key(expired):
    remote, blob = expired
    assert _run(remote, f"git notes --ref kistore remove {blob}").returncode == 0
    assert kistore(remote, "notes", "push", "origin").returncode == 0
    assert "KI315 notes-tip-lacking" in kistore(remote, "verify", check=False).stdout
    restored = kistore(remote, "notes", "restore")
    # on BASE 6af42bf9: "... lacks are signed by a key not trusted now (KI411
    # new-attestation-key-not-trusted), and stay out (said above)", no way out named
    assert restored.stdout == (
        "0 attestation line(s) restored: the 1 line(s) its history held that "
        "refs/notes/kistore lacks verify but are refused, their key not trusted now: "
        "revoked, expired or not trusted for their role (KI411 "
        "new-attestation-key-not-trusted), and stay out (said above); a line refused for "
        "its key was never pushed (origin's notes lack it) and cannot enter now, so no "
        "restore puts it back: `kistore notes rebase origin` drops it from this "
        "repository's notes history, which `kistore verify` warns lacking until then "
        "(KI315)\n")
    rebased = kistore(remote, "notes", "rebase", "origin")
    assert rebased.returncode == 0
    assert "KI315" not in kistore(remote, "verify", check=False).stdout


def test_verify_s_fix_names_the_rebuild_for_a_line_restore_refuses_for_its_key(expired):
    # trust05: KI315's fix named only `kistore notes restore`, which puts back nothing of a
    # line refused for its key (KI411); the push's way out and restore's summary name the
    # rebuild (ki442n), and now verify's fix does too
    remote, blob = expired
    assert _run(remote, f"git notes --ref kistore remove {blob}").returncode == 0
    assert kistore(remote, "notes", "push", "origin").returncode == 0

    verified = kistore(remote, "verify", "--json", check=False)

    found = [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI315"]
    assert [f["hint"] for f in found] == [
        "run `kistore notes rebase origin`: the 1 line(s) are signed by a key not trusted "
        "now: revoked, expired or not trusted for their role (KI411), which `kistore notes "
        "restore` refuses, and origin's notes lack them (never pushed): it drops them from "
        "this repository's notes history"]
    assert kistore(remote, "notes", "rebase", "origin").returncode == 0
    assert "KI315" not in kistore(remote, "verify", check=False).stdout
