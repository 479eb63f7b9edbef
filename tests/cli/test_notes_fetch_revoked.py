"""A fork's line by a key the trust file revoked is left out, as a push would refuse it (KI411).

fresh14 F5: a maintainer's withdrawal made as a note, not pushed, then the key revoked on
main. The index's server refuses the line at every notes push (KI411), but a fork (no
hooks, as github.com) took it by a plain ``git push``, and ``kistore notes fetch FORK`` in
another clone said "1 attestation(s) gained from fork", exit 0: every later ``notes push
origin`` of that clone was refused until the line was cut by hand, ``notes restore`` put
it back, and ``check --unpushed origin`` (the pre-commit framework's push hook) failed.
Now the fetch, and restore, judge a line the canonical remote's notes lack as the push
gate judges a new line, KI411 included, and leave it out with its reason on stderr.

A bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`), a hook-less fork.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from kistore.attest import notes
from kistore.attest.trust import revoke_key
from kistore.store import Store

from ..attest.test_attestation_evidence import (  # noqa: F401 (trusted: a fixture)
    MAINTAINER_KEY,
    RUN,
    STRANGER,
    bundle,
    keyid,
    trusted,
)
from ..check.test_notes_gate_history import run_blob
from ..conftest import git, next_second
from ..prs import Remote
from .test_notes_rebase import kistore

WITHDRAWAL = bundle(MAINTAINER_KEY, "withdrawal")


def _revoked_and_forked(trusted, tmp_path: Path) -> tuple[Remote, Path, str]:  # noqa: F811
    """The maintainer's unpushed withdrawal note, its key revoked on the server's main, and
    a hook-less fork of the server given that note: (remote, fork, the run's blob)."""
    remote = Remote(trusted.root, tmp_path)
    notes.attach(Store(remote.clone), RUN, WITHDRAWAL)  # while trusted, not pushed
    next_second()
    assert remote.pr("revoke the maintainer", lambda root: revoke_key(
        root, keyid(MAINTAINER_KEY))).accepted
    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1 and "error KI411 " in refused.stderr, refused.stderr
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(remote.bare), str(fork))
    (fork / "hooks" / "pre-receive").unlink(missing_ok=True)
    git(remote.clone, "push", "-q", "-f", str(fork), "refs/notes/kistore:refs/notes/kistore")
    return remote, fork, run_blob(remote.clone)


def _clone(remote: Remote, fork: Path, name: str) -> Remote:
    """Another clone of the server (the same :class:`Remote`, its clone there), ``fork``
    added as a remote and its branches fetched."""
    other = Remote.__new__(Remote)
    other.bare = remote.bare
    other.clone = remote.clone.parent / name
    git(remote.clone.parent, "clone", "-q", str(remote.bare), name)
    git(other.clone, "remote", "add", "fork", str(fork))
    git(other.clone, "fetch", "-q", "fork")
    return other


def _said(blob: str, held: str) -> str:
    """The one warning (a pattern) for the withdrawal left out, KI411's words as the gate's."""
    key = re.escape(keyid(MAINTAINER_KEY))
    when = r"2\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"
    return (f"warning: 1 attestation line\\(s\\) {held} on refs/notes/kistore:{blob} "
            f"\\(on {RUN}\\) left out: a new withdrawal attestation by {key} cannot enter "
            f"now: key {key} was revoked at {when}; the attestation entered the repository "
            f"at {when} \\(KI411 new-attestation-key-not-trusted\\); this repository's "
            "notes take in only lines whose key is trusted now, unless the canonical "
            "remote's notes hold them, as a notes push must send\n")


def test_f5_a_fork_s_line_by_a_revoked_key_is_left_out_and_every_push_goes(
        trusted, tmp_path):  # noqa: F811
    remote, fork, blob = _revoked_and_forked(trusted, tmp_path)
    c4 = _clone(remote, fork, "c4")
    assert kistore(c4, "notes", "fetch", "origin").returncode == 0
    fetched = kistore(c4, "notes", "fetch", "fork", "--json")
    assert json.loads(fetched.stdout) == {"remote": "fork", "gained": 0, "kept": 0,
                                          "leftOut": 1, "rewritten": None}
    assert re.fullmatch(_said(blob, "fork's notes held"), fetched.stderr), fetched.stderr
    assert WITHDRAWAL not in _note(c4, blob)
    # the notes commit says why by the rule that left the line out (it said KI409)
    assert git(c4.clone, "log", "-1", "--format=%B", "refs/notes/kistore") == (
        "kistore: take 0 attestation line(s) from the notes of fork, not its notes history "
        "(fork is not the canonical remote); leave out 1 attestation line(s) the notes of "
        "fork held that may not enter (KI411 new-attestation-key-not-trusted)\n\n")

    # nothing of the fork's blocks this clone: check --unpushed (the push hook), then a
    # note of its own pushed, and the fork fetched again leaves the line out again
    unpushed = kistore(c4, "check", "--unpushed", "origin")
    assert unpushed.returncode == 0, unpushed.stdout + unpushed.stderr
    notes.attach(Store(c4.clone), RUN, bundle(STRANGER, "note"))
    pushed = kistore(c4, "notes", "push", "origin")
    assert pushed.stdout.startswith("pushed refs/notes/kistore to origin"), pushed.stdout
    again = kistore(c4, "notes", "fetch", "fork")
    assert again.stdout == "0 attestation(s) gained from fork\n"
    assert re.fullmatch(_said(blob, "fork's notes held"), again.stderr), again.stderr


def test_f5_restore_leaves_out_a_line_a_push_refuses_with_its_reason(trusted, tmp_path):  # noqa: F811
    # c5 took the fork's notes by plain git (as `notes fetch fork` did before), then the
    # line was removed by hand: restore does not put it back
    remote, fork, blob = _revoked_and_forked(trusted, tmp_path)
    c5 = _clone(remote, fork, "c5")
    assert kistore(c5, "notes", "fetch", "origin").returncode == 0
    git(c5.clone, "fetch", "-q", "fork", "+refs/notes/kistore:refs/notes/kistore")
    assert WITHDRAWAL in _note(c5, blob)
    git(c5.clone, "-c", "user.name=E", "-c", "user.email=e@example.org",
        "notes", "--ref", "kistore", "remove", blob)

    restored = kistore(c5, "notes", "restore", "--json")
    assert json.loads(restored.stdout) == {"restored": 0, "notes": [], "leftOut": 1}
    assert re.fullmatch(_said(blob, "its history held"), restored.stderr), restored.stderr
    assert WITHDRAWAL not in _note(c5, blob)
    said = kistore(c5, "notes", "restore")
    # it said "do not verify" of a line that verifies
    assert said.stdout == ("0 attestation line(s) restored: the 1 line(s) its history held "
                           "that refs/notes/kistore lacks verify but are refused, their key "
                           "not trusted now: revoked, expired or not trusted for their role "
                           "(KI411 new-attestation-key-not-trusted), and stay out (said "
                           "above); a line refused for its key was never pushed (origin's "
                           "notes lack it) and cannot enter now, so no restore puts it back: "
                           "`kistore notes rebase origin` drops it from this repository's "
                           "notes history, which `kistore verify` warns lacking until then "
                           "(KI315)\n")
    assert re.fullmatch(_said(blob, "its history held"), said.stderr), said.stderr


def test_f5_a_line_origin_holds_is_taken_though_its_key_was_revoked_since(
        trusted, tmp_path):  # noqa: F811
    # pushed while trusted, then revoked: origin's line entered then and counts; neither
    # origin's nor a fork's copy of it is judged as new
    remote = Remote(trusted.root, tmp_path)
    notes.attach(Store(remote.clone), RUN, WITHDRAWAL)
    assert kistore(remote, "notes", "push", "origin").returncode == 0
    next_second()
    assert remote.pr("revoke the maintainer", lambda root: revoke_key(
        root, keyid(MAINTAINER_KEY))).accepted
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(remote.bare), str(fork))
    git(remote.clone, "push", "-q", str(fork), "refs/notes/kistore:refs/notes/kistore")
    c6 = _clone(remote, fork, "c6")
    fetched = kistore(c6, "notes", "fetch", "origin")
    assert (fetched.stdout, fetched.stderr) == ("1 attestation(s) gained from origin\n", "")
    assert (kistore(c6, "notes", "fetch", "fork").stdout,
            kistore(c6, "notes", "fetch", "fork").stderr) == (
        "0 attestation(s) gained from fork\n", "")
    assert WITHDRAWAL in _note(c6, run_blob(c6.clone))


def _note(remote: Remote, blob: str) -> bytes:
    """The note on ``blob`` in the clone (empty without one)."""
    shown = git(remote.clone, "notes", "--ref", "kistore", "list")
    if blob not in shown:
        return b""
    return git(remote.clone, "notes", "--ref", "kistore", "show", blob).encode()




def test_f5_rebase_leaves_out_its_own_line_a_push_refuses_and_says_why(
        trusted, tmp_path):  # noqa: F811
    # the maintainer's own unpushed withdrawal, its key revoked since: `notes rebase origin`
    # rebuilds without it, naming KI411 (it said "it does not verify, KI409")
    remote, _fork, blob = _revoked_and_forked(trusted, tmp_path)
    old = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    rebased = kistore(remote, "notes", "rebase", "origin")
    assert re.fullmatch(_said(blob, "this repository's notes held"), rebased.stderr), (
        rebased.stderr)
    assert rebased.stdout == (
        "origin holds no notes, and no line of refs/notes/kistore would stay (each is left "
        "out: they verify but are refused, their key not trusted now: revoked, expired or "
        "not trusted for their role (KI411 new-attestation-key-not-trusted)): deleted "
        "refs/notes/kistore, as origin holds none; "
        "this repository's notes are origin's, nothing is left to push; the old tip "
        f"{old[:12]} stays in git until `git gc` prunes it: `git update-ref "
        f"refs/notes/kistore {old}` puts it back\n")
