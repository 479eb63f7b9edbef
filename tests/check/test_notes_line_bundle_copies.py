"""A new note line is judged with its bundle's committed file copies, as readers judge it.

Readers (``rank``, ``show``, ``verify``) group every copy of one attestation, a committed
file under ``store/attestations/`` and a line of ``refs/notes/kistore`` with the same bytes,
and count the bundle when any copy counts (:func:`kistore.attest.evidence.judge_all`). The
gate judged a new note line alone: ``kistore notes sync`` (or a hand-made note) after the
key's revocation was refused (KI411), and a line dated by a slow clock before the key's
start said "judged otherwise at its entry" (KI439), though its file copy entered while the
key was trusted and every reader counts it. Both are judged with the line's copies now
(:func:`kistore.attest.notes.bundle_copies`, :func:`kistore.attest.evidence.judged_among`).
"""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

import pytest

from kistore.attest import attestation, notes, signing
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RUN, bundle
from ..attest.test_notes_unsent import server_notes
from ..conftest import git, next_second
from .test_history_trust_effects import MAINTAINER_ID
from .test_hooks import KISTORE, clone, kistore_env, server  # noqa: F401 (its fixtures)
from .test_notes_entry_verdict import _push_judged, _trusted, remote  # noqa: F401 (fixture)
from .test_trust_entry_backdated import _commit, _date

KEYID = signing.keyid(MAINTAINER_KEY.public_key())

# every finding made here keeps one meaning per extra key (`entered`: a commit id)
pytestmark = pytest.mark.usefixtures("extra_keys_kept")


def kistore(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KISTORE, *args], cwd=cwd, capture_output=True, text=True)


def _push(clone: Path, ref: str) -> subprocess.CompletedProcess[str]:  # noqa: F811
    return subprocess.run(["git", "push", "origin", ref], cwd=clone, capture_output=True,
                          text=True)


def _file(root: Path, subject: Digest, data: bytes) -> None:
    """Write ``data`` as the attestation file about ``subject`` in the work tree."""
    path = root / notes.attestation_path(subject, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _another_withdrawal() -> bytes:
    """A withdrawal of RUN by the maintainer key, other bytes than ``bundle``'s: no copy."""
    statement = attestation.make_statement(RUN, layout.object_path(RUN), "withdrawal", {
        "reason": "another", "createdAt": "2026-07-11T00:00:00Z"})
    return attestation.sign_statement(statement, MAINTAINER_KEY).to_bytes()


def test_a_note_copy_of_a_counting_file_pushed_after_the_revocation_is_accepted(
        server, clone):  # noqa: F811 (fixtures of test_hooks)
    # the key trusted, then its withdrawal committed as a file (it counts), then revoked
    key = clone.parent / "maintainer.pub"
    key.write_text(signing.public_key_line(MAINTAINER_KEY.public_key()) + "\n")
    assert kistore(clone, "trust", "add", str(key), "--role", "maintainer").returncode == 0
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "trust the maintainer")
    assert _push(clone, "main").returncode == 0
    next_second()  # a key counts from the second after the commit that trusts it
    data = bundle(MAINTAINER_KEY, "withdrawal")
    _file(clone, RUN, data)
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "withdraw the run")
    filed = _push(clone, "main")
    assert filed.returncode == 0, filed.stderr
    next_second()  # entry times have whole seconds: a revocation in the file's second
    assert kistore(clone, "trust", "revoke", KEYID).returncode == 0
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "revoke the maintainer key")
    assert _push(clone, "main").returncode == 0
    listed = kistore(clone, "attestations", str(RUN), "--json")
    assert '"effect": "withdraws"' in listed.stdout, listed.stdout  # the file counts
    next_second()  # past the revocation's second: a line there is unordered with it
    # a line without a counting copy: refused, with the words it always had
    blob = notes.attach(Store(clone), RUN, _another_withdrawal()).rsplit(":", 1)[1]
    refused = _push(clone, "refs/notes/kistore")
    assert refused.returncode != 0
    assert (f"remote: refs/notes/kistore:{blob}: error KI411 new-attestation-key-not-trusted: "
            f"a new withdrawal attestation by {KEYID} cannot enter now: key {KEYID} was "
            "revoked at ") in refused.stderr, refused.stderr
    assert "KI439" not in refused.stderr
    assert server_notes(server) == ""
    # the file's own bundle as a note line (`kistore notes sync` writes it so): every reader
    # counts it with its file copy, and the server takes it (on BASE 04156861: KI411)
    git(clone, "update-ref", "-d", "refs/notes/kistore")
    assert notes.attach(Store(clone), RUN, data) == f"refs/notes/kistore:{blob}"
    pushed = _push(clone, "refs/notes/kistore")
    assert pushed.returncode == 0, pushed.stderr
    assert "KI411" not in pushed.stderr and "KI439" not in pushed.stderr
    assert server_notes(server) == git(clone, "rev-parse", "refs/notes/kistore").strip()


def test_a_slow_clocks_line_whose_file_copy_counts_is_not_judged_otherwise(
        remote, kit):  # noqa: F811 (the fixture of test_notes_entry_verdict)
    # fresh07 M7's line (a notes commit dated 8 minutes before the push, before the key's
    # start), but the run's withdrawal is a committed file as well, entered after the
    # key's start: readers count the line with its file copy, at both times
    digests, start = _trusted(remote, kit)
    run, other = Digest.from_str(digests["a"]), Digest.from_str(digests["b"])
    _file(remote.clone, run, bundle(MAINTAINER_KEY, "withdrawal", subject=run))
    _commit(remote, "withdraw a", _date(start + dt.timedelta(seconds=2)))
    clock = start + dt.timedelta(seconds=4)
    slow = clock - dt.timedelta(minutes=8)
    # on BASE 04156861: [("KI439", "community", "withdraws")]
    assert _push_judged(remote, run, slow, clock) == []
    # a line of the same push's kind without a copy (run b): judged otherwise, as before
    found = _push_judged(remote, other, slow, clock)
    blob = git(remote.clone, "rev-parse", f"HEAD:{layout.object_path(other)}").strip()
    assert [(f.rule.id, f.file, f.extra["effect"], f.extra["now"]) for f in found] == [
        ("KI439", f"refs/notes/kistore:{blob}", "community", "withdraws")]
    assert found[0].message == (
        f"the withdrawal by {MAINTAINER_ID} on {other} enters the repository at its notes "
        f"commit's date, {_date(slow)}, 8 minutes before this push's clock ({_date(clock)}), "
        f"and every reader judges it there: community (key {MAINTAINER_ID} is trusted from "
        f"{_date(start)}; the attestation entered the repository at {_date(slow)}, before: "
        "a community attestation), not withdraws as at this push's clock")


@pytest.mark.parametrize("copied", [False, True])
def test_bundle_copies_are_the_files_holding_the_same_bytes(record_store, copied):
    from kistore.attest.notes import Seen, bundle_copies

    data = bundle(MAINTAINER_KEY, "withdrawal")
    _file(record_store.root, RUN, _another_withdrawal())  # the same subject, other bytes
    if copied:
        _file(record_store.root, RUN, data)
    git(record_store.root, "add", "-A")
    git(record_store.root, "commit", "-q", "--no-verify", "-m", "attest")
    line = Seen(data, RUN, "note", "refs/notes/kistore:x", dt.datetime.now(dt.UTC))
    found = bundle_copies(Store(record_store.root), line, "HEAD")
    head = git(record_store.root, "rev-parse", "HEAD").strip()
    assert [(s.source, s.location, s.data == data, s.committed, s.entered_in)
            for s in found] == ([("file", notes.attestation_path(RUN, data), True, True,
                                  (head,))] if copied else [])
