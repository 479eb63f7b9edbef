"""What each key signed that the repository holds, and when each entered it.

A key's trust is judged at the times its attestations entered the repository, the times
that cannot lie (:meth:`kistore.attest.trust.TrustedKey.judge`): a note line at its notes
commit's time, an attestation file at its first commit's on the branch's history (both by
:class:`kistore.attest.notes.Clock`, as :func:`kistore.attest.notes.collect` gives
them). Three rules ask which attestations a key signed and when each entered:

- KI410 (:mod:`kistore.check._evidence_kept`): a change of a key's ``validUntil`` that
  un-counts what the key signed and had entered (fresh04 H1), :func:`signed_held`,
  :func:`uncounted`, :func:`counted_any`;
- KI434 (:mod:`kistore.check._backdated`): a key trusted by a backdated commit over notes
  held meanwhile (fresh02 G8), :func:`by_key`;
- KI314 (:mod:`kistore.attest.revoked_since`): a revocation recorded after what it
  un-counts entered (fresh04 M1), :func:`signed_date`, :func:`held_when`.

"Held when a commit was made" (:func:`held_when`) is said one way for them all: an
attestation file when the commit's parent's tree holds it (it entered on the way to the
commit, whatever the commit's date says), a note line when it entered by the commit's
time (note lines are not ordered with the branch's history: their time is all there is).

A bundle's signature is checked once a process (:func:`verified`, keyed by the SHA-256 of
its bytes, its public key and the subject): a gate run judging every attestation (KI411, KI413,
``verify``) and weighing a key's window (KI410) pays one check each, not one a reader.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.errors import KistoreError
from .attestation import (
    ROLE_FOR_TYPE,
    Bundle,
    Statement,
    bundle_keyid,
    parse_statement,
    verify_bundle,
)
from .evidence import signed_at
from .notes import Seen, collect
from .trust import TrustedKey, format_time

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..core.digest import Digest
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
        bundle: the sha256 (hex) of its bytes: copies of one bundle (a note line and an
            attestation file) share it, and are judged together (:func:`counts`).
    """

    keyid: str
    role: str
    type: str
    entered: datetime
    signed: datetime | None
    location: str
    path: str = ""
    bundle: str = ""

    def said(self) -> str:
        """Say it as a message does: ``its withdrawal at LOCATION entered ... at TIME``."""
        return (f"its {self.type} at {self.location} entered the repository at "
                f"{format_time(self.entered)}")


def by_key(store: Store, at: str, keys: Container[str] | None = None) -> dict[str, list[Seen]]:
    """Return the attestations each key signed, as the repository holds them, by keyid.

    The note lines of ``refs/notes/kistore`` as it is (in ``pre-receive``: before the
    push moves it) and the attestation files at ``at``
    (:func:`kistore.attest.notes.collect`), each with its entry time (a note line: its
    earliest notes commit's; a file: its first commit's on ``at``'s history). The signer
    is read from the bundle without verifying it (judging does: an invalid bundle is
    judged ``invalid``). A bundle that does not parse is left out, as is a damaged note
    blob (``verify`` says KI117).

    Args:
        store: a :class:`kistore.store.Store`.
        at: the commit whose files (and objects, for the notes' subjects) are read.
        keys: the keyids asked about (any container: ``in`` is asked); None: every key.

    Returns:
        keyid -> :class:`kistore.attest.notes.Seen` items in ``collect``'s order (notes,
        then files); keys with none are absent.

    Raises:
        ObjectUnreadable: a commit or tree of the history walked is damaged or missing.
    """
    found: dict[str, list[Seen]] = {}
    for seen in collect(store, at=at, damaged=[]):
        try:
            keyid = keyid_of(Bundle.from_bytes(seen.data, file=seen.location))
        except KistoreError:
            continue
        if keyid is not None and (keys is None or keyid in keys):
            found.setdefault(keyid, []).append(seen)
    return found


def signed_held(store: Store, at: str) -> dict[str, list[Signed]]:
    """Return every attestation a role is needed for that verifies, by the key that signed it.

    :func:`by_key`'s attestations whose signature verifies (:func:`verified`); a bundle
    that does not verify, one whose name or note place makes it a defect, or whose type
    needs no role (a reproduction) counts for no key and is left out. Costs one signature
    check an attestation not checked yet in this process: asked only when a change of a
    key's time window is not already a narrowing by the commit's own time.

    Args:
        store: a :class:`kistore.store.Store`.
        at: the commit whose files are read (40 hex digits).

    Returns:
        keyid -> its attestations, in :func:`~kistore.attest.notes.collect`'s order.

    Raises:
        ObjectUnreadable: a file or tree of ``at`` (or a commit of its history) is damaged.
    """
    found: dict[str, list[Signed]] = {}
    for keyid, seen in by_key(store, at).items():
        for s in seen:
            signed = signed_of(s, keyid)
            if signed is not None:
                found.setdefault(keyid, []).append(signed)
    return found


def signed_of(seen: Seen, keyid: str) -> Signed | None:
    """Return ``seen`` as a :class:`Signed` of ``keyid``, or None when it counts for no key.

    A bundle that does not verify (:func:`verified`), one whose name or note place makes it
    a defect, or whose type needs no role (a reproduction) counts for no key.

    Args:
        seen: an attestation as :func:`kistore.attest.notes.collect` gives it (a new note
            line too, its ``entered_at`` the time readers give it).
        keyid: the key it names (:func:`keyid_of` of its bundle).

    Returns:
        The :class:`Signed`, entered at ``seen.entered_at``; None as said. Raises nothing.
    """
    if seen.defect:
        return None
    try:
        statement = verified(Bundle.from_bytes(seen.data, file=seen.location), seen.data,
                             seen.subject)
    except KistoreError:
        return None
    role = ROLE_FOR_TYPE.get(statement.type)
    if role is None:
        return None
    return Signed(keyid, role, statement.type, seen.entered_at, signed_at(statement.predicate),
                  seen.location, seen.location if seen.source == "file" else "",
                  hashlib.sha256(seen.data).hexdigest())


def verified(bundle: Bundle, data: bytes, subject: Digest | None) -> Statement:
    """Return :func:`kistore.attest.attestation.verify_bundle` of ``bundle``, checked once.

    Keyed by the SHA-256 of ``data`` (the bytes ``bundle`` was parsed from), the bundle's
    public key and ``subject``: the same bytes verify alike wherever they are found (a note
    line, a file, the next reader of a run). The key is the one the caller reads the keyid
    from (:func:`keyid_of` of ``bundle``), so a verdict is never paired with another key's
    keyid, whatever the hash (review01 M2: the key was the SHA-1 git blob id alone, and a
    note line is no git object that sha1dc guards). Only bundles that verify are kept, at
    most :data:`VERIFIED_KEPT` (the oldest forgotten first).

    Args:
        bundle: the bundle parsed from ``data``.
        data: its bytes, as found.
        subject: the digest of the manifest it is attached to; None: not checked.

    Returns:
        The verified statement, the caller's own: its ``predicate`` is a copy, so a caller
        changing it changes no other answer (review01 L13).

    Raises:
        VerificationError: as ``verify_bundle`` (not kept: judged again when asked again).
    """
    key = (hashlib.sha256(data).digest(), bundle.public_key, subject)
    statement = _VERIFIED.get(key)
    if statement is None:
        statement = verify_bundle(bundle, subject)
        if len(_VERIFIED) >= VERIFIED_KEPT:
            del _VERIFIED[next(iter(_VERIFIED))]
        _VERIFIED[key] = statement
    return replace(statement, predicate=_copied(statement.predicate))


VERIFIED_KEPT = 50_000
"""How many verified bundles :func:`verified` keeps (~2 KB each)."""

_VERIFIED: dict[tuple[bytes, str, Digest | None], Statement] = {}


def _copied(value: Any) -> Any:
    """Return a copy of a JSON value whose dicts and lists are new (the rest is immutable).

    A predicate is JSON (:func:`kistore.attest.attestation.parse_statement`): ~8 us for a
    rerun's, where ``copy.deepcopy`` takes ~21 us (measured in one run, timeit).
    """
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


def keyid_of(bundle: Bundle) -> str | None:
    """Return :func:`kistore.attest.attestation.bundle_keyid`, each key line read once.

    Args:
        bundle: a parsed bundle (not verified: the keyid is what its key line says).

    Returns:
        The OpenSSH fingerprint (``SHA256:...``) of ``bundle.public_key``, or None when the
        line is no key; kept per key line (at most :data:`VERIFIED_KEPT`, then all
        forgotten). Raises nothing.
    """
    line = bundle.public_key
    if line not in _KEYIDS:
        if len(_KEYIDS) >= VERIFIED_KEPT:
            _KEYIDS.clear()
        _KEYIDS[line] = bundle_keyid(bundle)
    return _KEYIDS[line]


_KEYIDS: dict[str, str | None] = {}


def signed_date(data: bytes) -> datetime | None:
    """Return the latest date a bundle's signed payload states, or None.

    Read as :func:`kistore.attest.evidence.signed_at` reads a verified predicate (the
    caller has verified it: a judgement said it verifies). None when the bytes do not
    parse as a bundle and statement.
    """
    try:
        return signed_at(parse_statement(Bundle.from_bytes(data).envelope.payload).predicate)
    except (KistoreError, ValueError):
        return None


def held_when(path: str, entered: datetime, parent_holds: Callable[[str], bool],
              time: datetime | None, *, tie: bool = True) -> bool:
    """Whether an attestation was held by the repository when a commit was made.

    Args:
        path: the attestation file's path; ``""`` for a note line.
        entered: when it entered (UTC).
        parent_holds: whether the commit's parent's tree holds a path (a file held then
            entered on the way to the commit, whatever the commit's date says).
        time: the commit's time (UTC); None: every note line counts as held (the gate: the
            change lands now, after every line the notes hold).
        tie: whether a note line that entered in the commit's own second was held.

    Returns:
        For a file, ``parent_holds(path)``; for a note line, whether it entered by
        ``time`` (before it when not ``tie``).
    """
    if path:
        return parent_holds(path)
    return time is None or entered < time or (tie and entered == time)


def uncounted(old: TrustedKey, new: TrustedKey, held: list[Signed], *,
              roles: bool = False) -> Signed | None:
    """Return the first of ``held`` the old entry counts and the new one's times do not.

    Both entries are judged as every query judges (:meth:`TrustedKey.judge`: at the entry
    time, and for an expiry at the later of it and the signed date; a bundle's copies
    together, :func:`counts`), the new one with the old one's roles and revocation: a role
    dropped is said apart, and a revocation is how trust ends (KI412 keeps it), so only
    ``validFrom`` and ``validUntil`` are weighed here.

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
    return next((s for s in held if counts(old, s, held) and not counts(judged, s, held)),
                None)


def counted_any(entry: TrustedKey, held: list[Signed]) -> Signed | None:
    """Return the first of ``held`` that ``entry`` counts (:func:`counts`), or None.

    A key whose ``validFrom`` lies after a change's date did not count yet, so moving it
    takes nothing back, unless an attestation it signed entered since and counts: the
    date was then written before the key's window opened, and the key counted.
    """
    return next((s for s in held if counts(entry, s, held)), None)


def counts(entry: TrustedKey, signed: Signed, held: Iterable[Signed]) -> bool:
    """Whether ``entry`` counts ``signed`` as readers count it, its copies with it.

    Readers judge every copy of a bundle (the same bytes as a note line and an attestation
    file: :attr:`Signed.bundle`) alike (:func:`kistore.attest.evidence.judge_all`): at the
    earliest copy's entry, or, when that leaves it a community attestation, at the entry of
    a committed file copy that entered later and counts there (:func:`judged_copy`). So a
    note copy pushed before a key's ``validFrom`` counts when its file copy entered after
    it (review01 M5: KI435 said such a note "would count", and KI410 the other way round).

    Args:
        entry: the key's entry, its ``validFrom`` set (:meth:`TrustedKey.judge`).
        signed: the attestation asked about.
        held: the attestations held with it; its copies among them are weighed (a
            :class:`Signed` without ``bundle`` stands alone).

    Returns:
        True when ``entry`` counts it (at the earliest copy's entry, or a later file
        copy's). Raises nothing.
    """
    copies = [signed] if not signed.bundle else [
        s for s in held if s.bundle == signed.bundle] or [signed]
    earliest = min(s.entered for s in copies)
    if entry.judge(signed.role, earliest, signed.signed) is None:
        return True
    return judged_copy(copies, earliest, lambda s: s.entered, lambda s: bool(s.path),
                       lambda s: entry.judge(s.role, s.entered, s.signed) is None) is not None


_Copy = TypeVar("_Copy")


def judged_copy(copies: Sequence[_Copy], earliest: datetime,
                entered: Callable[[_Copy], datetime], committed_file: Callable[[_Copy], bool],
                counts_alone: Callable[[_Copy], bool]) -> _Copy | None:
    """Return the copy at whose own entry a bundle whose earliest copy is community is judged.

    The one statement of fresh06 H3's rule (:func:`kistore.attest.evidence.judge_all`
    reads bundles by it, KI410 and KI435 by :func:`counts`): copies of a bundle are judged
    at the earliest one's entry, but a committed attestation file that entered later (by a
    reviewed pull request, ordered after the key's trust commit) and counts judged at its
    own entry is judged so, and every copy with it; an unreviewed note copy pushed before
    the trust does not neutralise it, and a note copy entered later upgrades nothing.

    Args:
        copies: the bundle's copies that are community at ``earliest`` (any type).
        earliest: the earliest copy's entry time (UTC).
        entered: a copy's entry time.
        committed_file: whether a copy is an attestation file of a commit (not a note
            line, not the work tree's).
        counts_alone: whether a copy counts judged at its own entry; asked only of a
            committed file copy entered after ``earliest``.

    Returns:
        The last such copy in ``copies``' order, or None (the bundle stays as judged at
        ``earliest``). Raises what ``counts_alone`` raises.
    """
    found = None
    for copy in copies:
        if committed_file(copy) and entered(copy) > earliest and counts_alone(copy):
            found = copy
    return found
