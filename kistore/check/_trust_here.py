"""The work tree's trust file against ``HEAD``'s: KI410 of the work tree (fresh14 F15).

No commit may delete ``store/trust/keys.json``, leave it invalid, or remove or narrow a
key's entry (KI410, the gate, every commit against each parent). A work tree in such a
state (the file deleted, emptied to ``{"keys": []}``, a FIFO, a symbolic link, a directory,
cut off, an entry removed or a role dropped) is judged by ``HEAD``'s file
(:mod:`kistore.attest.trust_here`); this module says what differs, with
:func:`kistore.check._evidence_kept.narrowing`, KI410's own test of a narrowing, at this
machine's clock (the commit would come later, never earlier):

* :func:`departures`: what the work tree's file takes from ``HEAD``'s (nothing for a file
  that is ``HEAD``'s or only adds keys or revocations, or widens an entry);
* :func:`worktree_trust`: ``verify``'s KI410 of the work tree, an error per departure
  (as KI402 is of an object file deleted from the work tree), with its fix;
* :func:`said_here`: the one line the queries of the work tree say after their answer;
* :func:`entries_taken`: what ``kistore trust add``/``revoke`` refuse to write over
  (fresh16 F2), in the same words (:func:`departed`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..attest.trust_here import NOT_REGULAR, TrustHere, trust_here
from ..attest.trust_history import added
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.layout import TRUST_FILE
from ..git.blobs import ObjectUnreadable
from ._evidence_kept import lifting, narrowing
from .lineage import APPEND_ONLY_REMOVED

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

RESTORE = f"git checkout HEAD -- {TRUST_FILE}"
"""The command restoring ``HEAD``'s trust file in the work tree."""

_NAMES = {"invalid": "trust-file-made-invalid", "key-removed": "trust-entry-removed",
          "narrowed": "trust-entry-narrowed"}
"""KI410's name for each departure (as the gate names a commit's); a file gone or no
regular file: ``append-only-file-removed``. A ``lifted`` revocation is KI412's, which
``verify`` says of the work tree's file itself (:func:`worktree_trust` leaves it out)."""


@dataclass(frozen=True, slots=True)
class Departure:
    """One thing the work tree's trust file takes from ``HEAD``'s.

    Attributes:
        kind: one of :data:`kistore.attest.trust_here.NOT_REGULAR`'s keys, ``invalid``,
            ``key-removed``, ``narrowed`` or ``lifted`` (a revocation ``HEAD`` holds
            removed or moved later: KI412's).
        what: as said after ``store/trust/keys.json in the work tree`` (``is missing``,
            ``removes the entry of key K (maintainer) that HEAD holds``).
        keyid: the key whose entry is removed or narrowed; ``""``: the file itself.
    """

    kind: str
    what: str
    keyid: str = ""


def departures(store: Store, here: TrustHere) -> list[Departure]:
    """Return what the work tree's trust file takes from ``HEAD``'s, in a stable order.

    Args:
        store: the store (``HEAD``'s history is read for a key's start, only when a
            ``validFrom`` is set on a key without one).
        here: :func:`kistore.attest.trust_here.trust_here` of it.

    Returns:
        One departure for a file missing, no regular file, or invalid; else one per key
        whose entry ``HEAD`` holds and the work tree removes, then one per entry it narrows,
        then one per revocation of ``HEAD``'s it lifts or moves later (each sorted by
        keyid); empty when it takes nothing (the same file, or one that only adds keys or
        revocations, moves one earlier, or widens an entry). Raises nothing but what
        reading the history raises (ObjectUnreadable).
    """
    if here.state in NOT_REGULAR:
        return [Departure(here.state, NOT_REGULAR[here.state])]
    if here.state == "invalid":
        return [Departure("invalid", f"is invalid ({here.invalid})")]
    if here.state != "changed" or here.head is None or here.work is None:
        return []
    head, work = here.head.keys, here.work.keys
    found = [Departure("key-removed", f"removes the entry of key {k} "
                       f"({', '.join(head[k].roles)}) that HEAD holds", k)
             for k in sorted(set(head) - set(work))]
    now = datetime.now(UTC)
    for keyid in sorted(set(head) & set(work)):
        said = narrowing(head[keyid], work[keyid], now, _start(store, keyid), now=now)
        if said:
            found.append(Departure("narrowed", f"narrows the entry of key {keyid} that HEAD "
                                   f"holds ({said})", keyid))
    for keyid in sorted(set(head) & set(work)):  # fresh17 F8: a revocation is never lifted
        said = lifting(head[keyid], work[keyid])
        if said:
            verb = "lifts" if work[keyid].revoked_at is None else "moves later"
            found.append(Departure("lifted", f"{verb} the revocation of key {keyid} that "
                                   f"HEAD holds ({said})", keyid))
    return found


def _start(store: Store, keyid: str) -> Callable[[], datetime]:
    """Return ``start()`` of :func:`narrowing`: when ``HEAD`` has ``keyid`` count from."""
    def start() -> datetime:
        head = store.commit("HEAD")
        since = added(store.repo, str(head.id)).get(keyid)
        return since[0] if since is not None else datetime.fromtimestamp(head.commit_time, UTC)
    return start


def said_here(store: Store, here: TrustHere) -> str | None:
    """Return the line a work-tree answer says after itself (without ``warning:``), or None.

    Args:
        store: the store answered from.
        here: the trust it was judged by (:func:`kistore.attest.trust_here.trust_here`).

    Returns:
        What the work tree's file takes from ``HEAD``'s (the first departure, and how
        many more), that the answer judged by ``HEAD``'s file and the work tree's
        revocations, and the fix; None when it takes nothing.
    """
    found = departures(store, here)
    if not found:
        return None
    keys = len(here.head.keys) if here.head is not None else 0
    rule = ("no commit may lift a revocation or move it later (KI412" if found[0].kind ==
            "lifted" else "no commit may delete it, leave it invalid, or remove or narrow a "
            "key's entry (KI410")
    return (f"{TRUST_FILE} in the work tree {departed(found)}: these answers judge "
            f"attestations by HEAD's {TRUST_FILE} ({keys} key(s)) and the work tree's "
            f"revocations, as {rule}; `kistore verify` reports it); " + _fix(found[0].kind))


def departed(found: list[Departure]) -> str:
    """Return how :func:`departures` are said after ``store/trust/keys.json in the work tree``.

    The first departure's words and how many more (``removes the entry of key K
    (maintainer) that HEAD holds (and 1 more key entries removed or narrowed)``): the
    queries' warning (:func:`said_here`) and the refusal of ``kistore trust add``/``revoke``
    (:func:`entries_taken`) say it alike.

    Args:
        found: :func:`departures`' list, not empty.

    Returns:
        The clause. Raises nothing.
    """
    lifts = " or with a revocation lifted" if any(
        d.kind == "lifted" for d in found[1:]) else ""
    more = f" (and {len(found) - 1} more key entries removed or narrowed{lifts})" \
        if len(found) > 1 else ""
    return found[0].what + more


def entries_taken(store: Store) -> tuple[str, int, bool] | None:
    """Say what the work tree's valid trust file removes or narrows of ``HEAD``'s (fresh16 F2).

    ``kistore trust add``/``revoke`` write the work tree's file as read with the one change
    asked: over a file emptied to ``{"keys": []}``, an entry removed, a role dropped or an
    earlier ``validUntil``, they wrote the given key alone or kept the narrowing (the gate
    then refused the commit, KI410), and ``trust revoke`` called a key every query trusts
    "not in trust". What such a file takes from ``HEAD``'s is judged as the queries judge it
    (:func:`departures`, KI410's own :func:`~kistore.check._evidence_kept.narrowing` at
    this machine's clock), so a file that only adds keys or revocations or widens an
    entry (pending ``trust add``/``revoke`` made before) takes nothing. Since 2026-12-07
    (fresh17 F8) a revocation ``HEAD`` holds that the file lifts or moves later is said too
    (no commit may: KI412): ``trust add`` wrote on over it, and ``trust revoke`` of that key
    wrote a ``revokedAt`` of now, later than ``HEAD``'s, exit 0.

    Args:
        store: the store (a work tree; its trust file a regular file: the caller refuses
            any other state first).

    Returns:
        :func:`departed`'s clause, how many keys ``HEAD``'s file lists, and whether the
        first departure is a revocation lifted (KI412's, else KI410's); None when the
        file takes nothing from ``HEAD``'s, is ``HEAD``'s, or cannot be compared (it is
        invalid, which the writer's own read refuses naming the problem; no commit, no
        valid ``HEAD`` file).

    Raises:
        ObjectUnreadable: a tree or blob of ``HEAD`` it reads is damaged.
    """
    if store.repo.head_is_unborn:
        return None
    try:
        here = trust_here(store)
    except ObjectUnreadable:
        raise
    except KistoreError:
        return None  # the work tree's file invalid, with no valid HEAD file to hold it to
    if here.state != "changed" or here.head is None:
        return None
    found = departures(store, here)
    return (departed(found), len(here.head.keys), found[0].kind == "lifted") if found \
        else None


def _fix(kind: str) -> str:
    """Return what to do about a departure of ``kind`` (one clause). Raises nothing."""
    if kind == "lifted":
        return (f"restore HEAD's revokedAt with `{RESTORE}` (then make a pending `kistore "
                "trust add` or `revoke` again); a revocation is never lifted or moved later: "
                "trust the holder's new key instead")
    if kind in ("key-removed", "narrowed"):
        return (f"restore it with `{RESTORE}` (then make a pending `kistore trust add` or "
                "`revoke` again); a key's trust ends with `kistore trust revoke KEY`, never "
                "by removing or narrowing its entry")
    return f"restore it with `{RESTORE}`"


def worktree_trust(store: Store) -> list[Finding]:
    """KI410 (an error) per departure of the work tree's trust file from ``HEAD``'s.

    ``verify``'s, beside KI432's of the work tree (:func:`kistore.check._provenance_here.
    worktree_provenance`): nothing is committed yet, but the gate refuses the commit, and
    every query of the work tree answers by ``HEAD``'s file instead, so ``verify`` fails
    the work tree, as KI402 does for an object file deleted from it.

    Args:
        store: the store verified (its work tree; a bare one or one without commits:
            nothing).

    Returns:
        One finding per :func:`departures` item but a ``lifted`` one (KI412 of the work
        tree's file says it, ``kistore.check._evidence_kept``), on
        ``store/trust/keys.json`` (a key's at ``/keys/N``, N its place in ``HEAD``'s
        file), named as the gate names a commit's (``append-only-file-removed``,
        ``trust-file-made-invalid``, ``trust-entry-removed``, ``trust-entry-narrowed``),
        ``extra`` ``worktree`` True, ``change`` (the kind) and ``keyid`` for a key's; its
        fix ``git checkout HEAD -- store/trust/keys.json``. Empty when the work tree's file
        cannot be compared (an invalid one with no valid ``HEAD`` file: KI309 says it).

    Raises:
        ObjectUnreadable: a tree or blob of ``HEAD`` it reads is damaged.
    """
    if store.root is None or store.repo.head_is_unborn:
        return []
    try:
        here = trust_here(store)
    except ObjectUnreadable:
        raise
    except KistoreError:
        return []  # the work tree's file invalid, with no valid HEAD file: KI309 says it
    places = {k: i for i, k in enumerate(here.head.keys)} if here.head is not None else {}
    found = []
    for d in departures(store, here):
        if d.kind == "lifted":
            continue  # KI412's, said by verify of the work tree's file itself
        rule = APPEND_ONLY_REMOVED
        if d.kind in _NAMES:
            rule = replace(APPEND_ONLY_REMOVED, name=_NAMES[d.kind])
        extra: dict[str, object] = {"worktree": True, "change": d.kind}
        if d.keyid:
            extra["keyid"] = d.keyid
        found.append(Finding(
            rule, f"the work tree's {TRUST_FILE} {d.what}: no commit may delete it, leave it "
            "invalid, or remove or narrow a key's entry (the gate refuses it), and every "
            "query of the work tree judges attestations by HEAD's file and the work tree's "
            "revocations instead", file=TRUST_FILE,
            pointer=f"/keys/{places[d.keyid]}" if d.keyid in places else None,
            extra=extra, fix=_fix(d.kind)))
    return found
