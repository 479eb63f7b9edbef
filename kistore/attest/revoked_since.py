"""A key revoked after what it signed entered: evidence that stopped counting (KI314).

``kistore trust revoke KEY --at TIME`` is how a key's trust ends, back to TIME: what the
key signed that entered the repository at or after TIME no longer counts
(:meth:`kistore.attest.trust.TrustedKey.judge`), and is listed ``not-counted``. When the
revocation was recorded after such an attestation had entered (a maintainer key revoked
back to before its withdrawal, fresh04 M1), nothing is wrong with the attestation: it
entered while its key was trusted, and stays (attestation files and notes are
append-only, KI410, KI408), counting for nothing. ``verify`` said it as error KI302, whose
fix could not apply, and main stayed red for good; it is said as info KI314 instead. An
attestation that entered after the revocation was recorded (a file added to main once the
revocation was there) stays KI302, an error, and the gate refuses it.

When a revocation was recorded: the oldest version of ``store/trust/keys.json`` along the
first-parent history of the revision read (:func:`kistore.git.pathlog.first_parent_versions`)
whose ``revokedAt`` of the key covers the attestation (the work tree's file, for a
revocation not committed yet). A file entered before it when the first parent of the
commit recording it already held the file (for the work tree's revocation: ``HEAD``
holds it); a note line, when it entered before that commit's trusted time
(:class:`kistore.attest.notes.Clock`; for the work tree's revocation, before the second
the file was last written).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from ..core import layout
from ..core.errors import KistoreError
from ..core.findings import INFO, Finding, rule
from ..git.blobs import read_blob
from ..git.pathlog import blob_at
from .signed_by import held_when, signed_date
from .trust_history import commit_times, revocations_in, trust_versions

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

REVOKED_SINCE = rule(
    "KI314", "attestation-key-revoked-since", INFO,
    "Nothing to fix: revoking a key (`kistore trust revoke KEY --at TIME`) ends its trust "
    "back to TIME, and what it signed that entered since is listed not-counted; the "
    "attestation stays (attestation files and notes are append-only: KI410, KI408), "
    "counting for nothing.")


@dataclass(frozen=True, slots=True)
class Recorded:
    """One revocation of a key as a version of the trust file recorded it.

    Attributes:
        revoked_at: the version's ``revokedAt`` of the key (UTC).
        commit: the first-parent commit (40 hex digits) whose version first recorded it;
            ``""`` for the work tree's file, not committed yet.
    """

    revoked_at: datetime
    commit: str


class RevokedSince:
    """Tell, of attestations judged ``not-counted``, those a later revocation un-counted.

    Reads the trust file's history only when asked about such an attestation, once.

    Args:
        store: a :class:`kistore.store.Store`.
        at: the revision judged, or None for the work tree (``HEAD``'s history and the
            work tree's file).
        trust: the trust they were judged with (:func:`kistore.attest.trust_history.held`).
    """

    def __init__(self, store: Store, at: str | None, trust: Any) -> None:
        self.store = store
        self.at = at
        self.trust = trust
        self._rev: str | None = None
        self._records: dict[str, list[Recorded]] | None = None
        self._times: dict[str, datetime] | None = None

    def finding(self, seen: Any, judged: Any) -> Finding | None:
        """Return KI314 of an attestation a revocation recorded after it entered un-counts.

        Args:
            seen: the :class:`kistore.attest.notes.Seen` judged.
            judged: its :class:`kistore.attest.evidence.Judgement`.

        Returns:
            The info finding, naming the commit that recorded the revocation; None for any
            other judgement (not ``not-counted``; un-counted by more than the revocation:
            a role the key lacks, an expiry; a revocation recorded before it entered,
            which stays KI302). Raises nothing: a history git cannot read leaves KI302.
        """
        if judged.effect != "not-counted" or judged.keyid is None:
            return None
        key = getattr(self.trust, "keys", {}).get(judged.keyid)
        if key is None or key.revoked_at is None:
            return None
        entered = judged.entered_at  # a bundle's copies are judged at the earliest's
        signed = signed_date(seen.data)
        lifted = replace(self.trust, keys={**self.trust.keys,
                                           key.keyid: replace(key, revoked_at=None)})
        role = _role(judged.type)
        if role is None or lifted.judge(key.keyid, role, entered, signed,
                                        seen.entered_in) != (True, ""):
            return None  # not the revocation alone
        try:
            recorded = self._covering(key.keyid, max(entered, signed or entered))
            if recorded is None or not self._entered_before(seen, entered, recorded):
                return None
        except (KistoreError, OSError):
            return None
        by = (f"by commit {recorded.commit[:12]}" if recorded.commit else
              f"in the work tree's {layout.TRUST_FILE}, not committed yet")
        what = f"{judged.type} by {judged.keyid} ({judged.source})"
        return Finding(REVOKED_SINCE, (
            f"{what}: not counted: {judged.reason}; the revocation was recorded after it "
            f"entered ({by}), so it counts for nothing: a revocation ends a key's trust back "
            "to its time (listed not-counted)"),
            file=judged.location,
            extra={**judged.to_json(), "revokedIn": recorded.commit or None})

    def _covering(self, keyid: str, latest: datetime) -> Recorded | None:
        """Return the oldest recorded revocation of ``keyid`` that un-counts ``latest``."""
        for recorded in self._read().get(keyid, []):
            if latest >= recorded.revoked_at.replace(microsecond=0):  # as TrustedKey.judge
                return recorded
        return None

    def _entered_before(self, seen: Any, entered: datetime, recorded: Recorded) -> bool:
        """Whether ``seen`` (judged at ``entered``) was here before ``recorded`` was.

        :func:`kistore.attest.signed_by.held_when` of the commit recording it (a file: its
        first parent holds it; a note line: it entered before the commit's trusted time);
        for the work tree's file, ``HEAD`` and the second the file was last written.
        """
        repo = self.store.repo
        path = seen.location if seen.source == "file" else ""
        if path and not seen.committed:
            return False  # written after every commit: after the revocation too
        if recorded.commit:
            parents = cast("pygit2.Commit", repo[recorded.commit]).parents
            time = None
            if not path:
                assert self._rev is not None  # set by _read, which found the commit
                if self._times is None:
                    self._times = commit_times(repo, self._rev)
                time = self._times[recorded.commit]
            return held_when(path, entered, lambda p: bool(parents) and blob_at(
                repo, parents[0].tree, p) is not None, time, tie=False)
        head = self.store.head_or_none()
        time = None
        if not path:
            assert self.store.root is not None  # a work-tree revocation: a work tree
            written = (self.store.root / layout.TRUST_FILE).lstat().st_mtime
            time = datetime.fromtimestamp(int(written), UTC)
        return held_when(path, entered, lambda p: head is not None and head.read(p)
                         is not None, time, tie=False)

    def _read(self) -> dict[str, list[Recorded]]:
        """Return each key's revocations as the trust file's versions recorded them, oldest first.

        A version is listed for a key when its ``revokedAt`` differs from the one the
        version before recorded (or none did). Read leniently, as
        :func:`kistore.attest.trust_history.ever_revoked` reads them.
        """
        if self._records is not None:
            return self._records
        repo = self.store.repo
        if self.at is not None:
            self._rev = str(self.store.commit(self.at).id)
        elif not repo.head_is_unborn:
            self._rev = str(repo.head.target)
        versions: list[tuple[str, bytes]] = []
        if self._rev is not None:
            versions = [(commit, read_blob(repo, blob, layout.TRUST_FILE))
                        for commit, blob in reversed(trust_versions(repo, self._rev))
                        if blob is not None]
        if self.at is None and self.store.root is not None:
            data = self.store.view(None).read(layout.TRUST_FILE)
            if data is not None:
                versions.append(("", data))
        records: dict[str, list[Recorded]] = {}
        last: dict[str, datetime] = {}
        for commit, data in versions:
            for keyid, when in revocations_in(data).items():
                if last.get(keyid) != when:
                    records.setdefault(keyid, []).append(Recorded(when, commit))
                    last[keyid] = when
        self._records = records
        return records


def _role(type_name: str | None) -> str | None:
    """Return the role an attestation type needs (``withdrawal``: maintainer), or None."""
    # Lazy: judging loads keys and signatures (~15 ms), as evidence's judge.
    from .attestation import ROLE_FOR_TYPE

    return ROLE_FOR_TYPE.get(type_name) if type_name else None
