"""What a trusted key signed that the repository already holds, and when each entered.

KI410 refuses a change of a key's trust-file entry that takes back what the key counted
for (:func:`kistore.check._evidence_kept.narrowing`). A ``validUntil`` was held to the
changing commit's committer date alone, which the submitter writes (KI428 lets it lie up
to a day before its parent): ``validUntil 11:00`` committed "at 10:59" un-counted a
maintainer's withdrawal that entered at 11:52 with info findings only (fresh04 H1), and
``verify --at`` that commit then failed (KI302) where the gate had said ok. The times
that cannot lie are the times the key's attestations entered: a note line's notes
commit, an attestation file's first commit (:class:`kistore.attest.notes._Clock`, as
every query judges them). :func:`signed_held` reads them once;
:func:`uncounted` says which one a change of the entry stops counting.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from ..attest.attestation import ROLE_FOR_TYPE, Bundle, bundle_keyid, verify_bundle
from ..attest.evidence import signed_at
from ..attest.notes import collect
from ..attest.trust import TrustedKey, format_time
from ..core.errors import KistoreError
from ..git.blobs import ObjectUnreadable

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


@dataclass(frozen=True, slots=True)
class Signed:
    """One attestation a key signed for a role, as the repository holds it.

    Attributes:
        keyid: the signing key's OpenSSH fingerprint.
        role: the role its type needs (``maintainer`` for a withdrawal, ``rerun``).
        type: its type (``withdrawal``, ``rerun``).
        entered: when it entered the repository (UTC): what trust is judged at.
        signed: the latest date its signed payload states (UTC), or None.
        location: the note (``refs/notes/kistore:<blob>``) or the file's path.
        path: the file's path; ``""`` for a note line.
    """

    keyid: str
    role: str
    type: str
    entered: datetime
    signed: datetime | None
    location: str
    path: str = ""

    def said(self) -> str:
        """Say it as a message does: ``its withdrawal at LOCATION entered ... at TIME``."""
        return (f"its {self.type} at {self.location} entered the repository at "
                f"{format_time(self.entered)}")


def signed_held(store: Store, at: str) -> dict[str, list[Signed]]:
    """Return every attestation a role is needed for that verifies, by the key that signed it.

    Read as every query reads them (:func:`kistore.attest.notes.collect`: the note lines at
    the notes tip, the attestation files of ``at``, each at its entry time); a bundle that
    does not parse or verify, or whose type needs no role (a reproduction), counts for no
    key and is left out. A damaged note blob is left out too (``verify`` says KI117).
    Costs one signature check an attestation: asked only when a change of a key's time
    window is not already a narrowing by the commit's own time.

    Args:
        store: a :class:`kistore.store.Store`.
        at: the commit whose files are read (40 hex digits).

    Returns:
        keyid -> its attestations, in :func:`~kistore.attest.notes.collect`'s order.

    Raises:
        ObjectUnreadable: a file or tree of ``at`` (or a commit of its history) is damaged.
    """
    found: dict[str, list[Signed]] = {}
    damaged: list[ObjectUnreadable] = []
    for seen in collect(store, at=at, damaged=damaged):
        if seen.defect:
            continue
        try:
            bundle = Bundle.from_bytes(seen.data, file=seen.location)
            statement = verify_bundle(bundle, seen.subject)
        except KistoreError:
            continue
        keyid, role = bundle_keyid(bundle), ROLE_FOR_TYPE.get(statement.type)
        if keyid is None or role is None:
            continue
        found.setdefault(keyid, []).append(Signed(
            keyid, role, statement.type, seen.entered_at, signed_at(statement.predicate),
            seen.location, seen.location if seen.source == "file" else ""))
    return found


def uncounted(old: TrustedKey, new: TrustedKey, held: list[Signed], *,
              roles: bool = False) -> Signed | None:
    """Return the first of ``held`` the old entry counts and the new one's times do not.

    Both entries are judged as every query judges (:meth:`TrustedKey.judge`: at the entry
    time, and for an expiry at the later of it and the signed date), the new one with the
    old one's roles and revocation: a role dropped is said apart, and a revocation is how
    trust ends (KI412 keeps it), so only ``validFrom`` and ``validUntil`` are weighed here.

    Args:
        old: the entry before, its ``validFrom`` set (a key without one: its first start).
        new: the entry after, likewise.
        held: the key's attestations the changing commit's repository already holds.
        roles: weigh ``new``'s roles too (``verify``'s history: whether a commit taking
            back what its parent gave took anything that counted meanwhile).

    Returns:
        The attestation, or None when the change stops counting none of them.
    """
    judged = replace(new, roles=new.roles if roles else old.roles, revoked_at=old.revoked_at)
    return next((s for s in held if old.judge(s.role, s.entered, s.signed) is None
                 and judged.judge(s.role, s.entered, s.signed) is not None), None)


def counted_any(entry: TrustedKey, held: list[Signed]) -> Signed | None:
    """Return the first of ``held`` that ``entry`` counts (:meth:`TrustedKey.judge`), or None.

    A key whose ``validFrom`` lies after a change's date did not count yet, so moving it
    takes nothing back, unless an attestation it signed entered since and counts: the
    date was then written before the key's window opened, and the key counted.
    """
    for signed in held:
        if entry.judge(signed.role, signed.entered, signed.signed) is None:
            return signed
    return None
