"""Which revocations of a key the repository had recorded when an attestation entered.

A rerun or withdrawal is judged, for its key's revocation, at the later of its entry time
and the date its signed payload states (:meth:`kistore.attest.trust.TrustedKey.judge`): a
leaked key's holder who dates a payload after the revocation is held to it. But a payload
dated after a revocation *recorded after the attestation entered* was not signed after
it: a rerun farm's clock three hours ahead signed a rerun that entered at once, and a
plain ``kistore trust revoke KEY`` (at now, minutes later) un-counted it, contrary to
"revoking a key today does not undo reruns it signed before the revocation entered
history" (fresh06 M2). So the payload's date counts only against the ``revokedAt`` values
recorded by then; the entry time counts against every revocation, as before.

When a revocation was recorded: the first version of ``store/trust/keys.json`` along the
first-parent history of the revision read (:func:`kistore.attest.trust_history.
trust_versions`) that holds the value. Recorded by then, for an attestation file, unless
every commit it entered in (``entered_in``) is, or is an ancestor of, the first parent of
the commit recording it (history orders it before the revocation, whatever the dates say);
for a note line (not ordered with the branch), when that commit's trusted time
(:func:`kistore.attest.trust_history.commit_times`) is not after the line's entry time.
A revocation only in the work tree's file (not committed yet) was recorded when the file
was last written (its modification time, in whole seconds): after every committed file,
and before a note line or an uncommitted file that entered since, as
:mod:`kistore.attest.revoked_since` dates it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..core import layout
from ..git.blobs import read_blob
from .trust_history import commit_times, revocations_in, trust_versions

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


class KnownRevocations:
    """``known(keyid, entered, entered_in)`` for :attr:`kistore.attest.trust.Trust.known`.

    Reads the trust file's history only when first asked (a payload dated past a
    revocation its entry time is not: rare), and commit times only for a note line.

    Args:
        repo: the ``pygit2.Repository``.
        rev: the commit (40 hex digits) whose first-parent history records the
            revocations; None: no history.
        work_tree: the work tree's trust file, for a judgement of the work tree (its
            revocations not committed yet); None: a revision's.
    """

    def __init__(self, repo: pygit2.Repository, rev: str | None,
                 work_tree: Path | None = None) -> None:
        self.repo = repo
        self.rev = rev
        self.work_tree = work_tree
        self._written: datetime | None = None
        self._records: dict[str, list[tuple[datetime, str]]] | None = None
        self._times: dict[str, datetime] | None = None

    def __call__(self, keyid: str, entered: datetime, entered_in: tuple[str, ...]
                 ) -> list[datetime]:
        """Return the key's ``revokedAt`` values recorded when an attestation entered.

        Args:
            keyid: the key's OpenSSH fingerprint.
            entered: when the attestation entered (UTC).
            entered_in: the commits a committed file entered in (empty: a note line).

        Returns:
            The values (UTC), oldest record first; empty when none was recorded by then.
        """
        return [revoked for revoked, commit in self._read().get(keyid, [])
                if self._recorded_by(commit, entered, entered_in)]

    def _recorded_by(self, commit: str, entered: datetime, entered_in: tuple[str, ...]
                     ) -> bool:
        """Whether ``commit`` had recorded its revocation when the attestation entered."""
        if not commit:  # the work tree's: after every commit, at the file's last write
            return not entered_in and self._written is not None and self._written <= entered
        if entered_in:
            parents = cast("pygit2.Commit", self.repo[commit]).parent_ids
            first = str(parents[0]) if parents else None
            return not all(first is not None and (c == first or self.repo.descendant_of(
                first, c)) for c in entered_in)
        if self._times is None:
            assert self.rev is not None  # a record names a commit of rev's history
            self._times = commit_times(self.repo, self.rev)
        return self._times[commit] <= entered

    def _read(self) -> dict[str, list[tuple[datetime, str]]]:
        """Return each key's ``revokedAt`` values and the commit first recording each."""
        if self._records is not None:
            return self._records
        records: dict[str, list[tuple[datetime, str]]] = {}
        versions = [] if self.rev is None else trust_versions(self.repo, self.rev)
        for commit, blob in reversed(versions):  # oldest first
            if blob is None:
                continue
            for keyid, when in revocations_in(read_blob(self.repo, blob,
                                                        layout.TRUST_FILE)).items():
                if all(when != r for r, _c in records.get(keyid, [])):
                    records.setdefault(keyid, []).append((when, commit))
        if self.work_tree is not None:
            try:
                data = self.work_tree.read_bytes()
                written = int(self.work_tree.lstat().st_mtime)
            except OSError:  # no file: nothing revoked there
                data, written = b"", 0
            self._written = datetime.fromtimestamp(written, UTC)
            for keyid, when in revocations_in(data).items():
                if all(when != r for r, _c in records.get(keyid, [])):
                    records.setdefault(keyid, []).append((when, ""))
        self._records = records
        return records
