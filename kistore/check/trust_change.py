"""Refuse, before writing, a change of a key's entry the gate would refuse (fresh04 M2).

``kistore trust add KEY --valid-until PAST`` of a key the trust file already lists wrote
the narrowing, exit 0, and the gate then refused the commit (KI410: a key's trust is never
narrowed after the fact; :func:`kistore.check._evidence_kept.narrowing`). ``trust add``
asks :func:`narrowed_by` first, the gate's own test of a narrowing, against the entry
``HEAD`` holds (the parent the gate compares the commit with), at this machine's clock
(the commit comes later, never earlier), and with what the key signed that the repository
holds (every note line and ``HEAD``'s files, at their entry times and, against a
``validUntil``, the dates their payloads state: a ``--valid-until`` an hour ahead of a key
whose rerun is dated three hours ahead was written, exit 0, and refused by the gate,
fresh06 M2), and refuses with the way trust ends: ``kistore trust revoke KEY`` (from now,
or ``--at`` a planned end ahead: :func:`revoke_said`). A new key (``HEAD`` lists none)
narrows nothing, whatever its window, and neither does a ``validUntil`` at or after now
and after what the key signed, as for the gate.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..attest.signed_by import Signed, signed_held
from ..attest.trust import TrustedKey, format_time, load_trust
from ..attest.trust_history import added, first_listed
from ..core.errors import InputError, KistoreError
from ._evidence_kept import narrowing
from ._widened_past import PRE_TRUST_COUNTS, pre_trust_said, widened_counted, widened_said

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


def narrowed_by(store: Store, entries: list[TrustedKey]
                ) -> list[tuple[TrustedKey, TrustedKey, str]]:
    """Return the entries that narrow what ``HEAD``'s trust file holds of their key.

    Args:
        store: the store (its ``HEAD`` and history are read).
        entries: each key's entry as it would be written (:func:`kistore.attest.trust.
            entry_added`).

    Returns:
        ``(HEAD's entry, new entry, what narrows)`` of each that narrows (the words of
        :func:`kistore.check._evidence_kept.narrowing`, as KI410 says them), in
        ``entries`` order; empty when none does, when ``HEAD`` has no commit, or when its
        trust file is invalid (the gate judges no narrowing of an invalid version either).

    Raises:
        ObjectUnreadable: a version of the trust file git cannot read.
    """
    head = store.head_or_none()
    if head is None:
        return []
    try:
        held = load_trust(head).keys
    except KistoreError:
        return []
    commit = store.commit("HEAD")
    now = datetime.now(UTC)
    starts: dict[str, datetime] = {}

    def start_of(keyid: str) -> Callable[[], datetime]:
        def start() -> datetime:  # as the gate's: the key's first start, or the parent's time
            if not starts:
                starts.update({k: when for k, (when, _c) in
                               added(store.repo, str(commit.id)).items()})
            return starts.get(keyid, datetime.fromtimestamp(commit.commit_time, UTC))
        return start

    signed: dict[str, list[Signed]] = {}

    def signed_by(keyid: str) -> Callable[[], list[Signed]]:
        def held_signed() -> list[Signed]:  # as the gate's: every note line, HEAD's files
            if not signed:
                signed.update(signed_held(store, str(commit.id)) or {"": []})
            return signed.get(keyid, [])
        return held_signed

    found = []
    for new in entries:
        old = held.get(new.keyid)
        said = narrowing(old, new, now, start_of(new.keyid), held=signed_by(new.keyid),
                         now=now) if old is not None else ""
        if old is not None and said:
            found.append((old, new, said))
    return found


def refuse_narrowing(store: Store, entries: list[TrustedKey],
                     named: list[str] | None = None) -> None:
    """Raise when an entry ``trust add`` would write narrows ``HEAD``'s (:func:`narrowed_by`).

    Args:
        store: the store.
        entries: the entries as they would be written, one per key given.
        named: where each key was given (``keys.pub:2``), in ``entries`` order, for a file
            of several keys; None: the keyid alone.

    Raises:
        InputError: the first entry that narrows: the key, its entry as ``HEAD`` holds it,
            the entry asked for, what narrows, that ``kistore check`` refuses it (KI410),
            the revocation that ends trust instead, and that nothing was written (all or
            none); and how many more narrow.
    """
    narrowed = narrowed_by(store, entries)
    if not narrowed:
        return
    old, new, said, where, more = _first(narrowed, entries, named)
    raise InputError(
        f"{_would_become(old, new, where)}, which narrows it ({said}); "
        "a key's trust is never narrowed after the fact (what it signed and entered before "
        "would stop counting), and `kistore check` refuses such a change (KI410). To end "
        f"the key's trust, revoke it: {revoke_said(new.keyid, _planned(new, said))}"
        + (f"; {more} more key(s) given narrow too" if more else "")
        + "; nothing was written")


def _first(found: list[tuple[TrustedKey, TrustedKey, str]], entries: list[TrustedKey],
           named: list[str] | None) -> tuple[TrustedKey, TrustedKey, str, str, int]:
    """Return the first refused ``(old, new, said)``, where it was given and how many more."""
    old, new, said = found[0]
    where = f" ({named[entries.index(new)]})" if named else ""
    return old, new, said, where, len(found) - 1


def revoke_said(keyid: str, at: datetime | None) -> str:
    """Say the revocation that ends a key's trust without narrowing it (fresh06 M3).

    ``--at`` an earlier time is no way around a narrowing: it un-counts what the key
    signed and entered since, as the narrowing would (the gate warns of each, KI413), and
    is for a leaked key. So the revocation said is from now, or from a planned end still
    ahead (recorded now, it is judged against the entry times of what entered before, not
    the dates their payloads state).

    Args:
        keyid: the key.
        at: a planned end after now (the ``--valid-until`` asked for), or None: now.

    Returns:
        The command and what it does, in words.
    """
    when = f" --at {format_time(at)}" if at is not None else ""
    return (f"`kistore trust revoke {shlex.quote(keyid)}{when}` (nothing it signs from "
            f"{'then' if at is not None else 'now'} on counts, and what it signed that "
            "entered before stays counted; a revocation is kept for good, KI412; `--at` an "
            "earlier time reaches back and un-counts what entered since, a withdrawal "
            "included: for a leaked key, and `kistore check` warns of each, KI413)")


def _planned(entry: TrustedKey, said: str) -> datetime | None:
    """Return ``entry``'s ``validUntil`` when the narrowing is of it and it is ahead of now."""
    until = entry.valid_until
    return until if until is not None and "validUntil" in said and until > datetime.now(
        UTC) else None


def _would_become(old: TrustedKey, new: TrustedKey, where: str) -> str:
    """Say the change ``trust add`` refuses: ``key K (where): not changed: ... would become ...``.

    The one opening of its KI410 (narrowed) and KI435 (widened into the past) refusals.

    Args:
        old: the key's entry as ``HEAD`` holds it.
        new: the entry asked for.
        where: what :func:`_first` says of where the entry was given ('' or `` (...)``).

    Returns:
        The clause, without a trailing comma. Raises nothing.
    """
    return (f"key {new.keyid}{where}: not changed: its entry as HEAD holds it "
            f"({_entry_said(old)}) would become ({_entry_said(new)})")


def _entry_said(entry: TrustedKey) -> str:
    """Say a key's roles and window as the trust file holds them (``none``: not set)."""
    said = (f"roles {', '.join(entry.roles)}; "
            + "; ".join(f"{name} {format_time(value) if value else 'none'}"
                        for name, value in (("validFrom", entry.valid_from),
                                            ("validUntil", entry.valid_until))))
    return said + (f"; revokedAt {format_time(entry.revoked_at)}" if entry.revoked_at else "")


def refuse_widening(store: Store, entries: list[TrustedKey],
                    named: list[str] | None = None) -> None:
    """Raise when an entry ``trust add`` would write widens ``HEAD``'s into the past (KI435).

    A ``--valid-from`` earlier than when a listed key counts from (its ``validFrom``, or,
    without one, its start: when it entered the trust file, fresh14 F10) that makes an
    attestation the repository holds count (it entered before that start, a community
    attestation then: :func:`kistore.check._widened_past.widened_counted`, the gate's
    test) is refused here, as the gate refuses the commit, before anything is written.
    What an earlier version of the entry counted until a later commit narrowed it is a
    restore, which the gate leaves to KI410 (said of the narrowing commit), and is
    written (trust03: it was refused).

    Args:
        store: the store (its ``HEAD``, history and notes are read).
        entries: the entries as they would be written, one per key given.
        named: where each key was given (``keys.pub:2``), in ``entries`` order, for a file
            of several keys; None: the keyid alone.

    Raises:
        InputError: the first entry that widens so: the key, its entry as ``HEAD`` holds
            it, the entry asked for, KI435's words of what would count, and that nothing
            was written (all or none); and how many more widen.
        ObjectUnreadable: a version of the trust file or a tree git cannot read.
    """
    head = store.head_or_none()
    if head is None:
        return
    try:
        held = load_trust(head).keys
    except KistoreError:
        return
    parent = store.commit("HEAD")
    commit = str(parent.id)
    widened: list[tuple[TrustedKey, TrustedKey, str]] = []
    signed: dict[str, list[Signed]] | None = None
    for new in entries:
        old = held.get(new.keyid)
        if old is None or new.valid_from is None:
            continue
        implied = first_listed(store.repo, commit).get(new.keyid) if (
            old.valid_from is None) else None
        if old.valid_from is None and implied is None:
            continue
        before = old.valid_from if implied is None else implied[0]
        assert before is not None  # an explicit validFrom, or the key's start
        if new.valid_from >= before:
            continue
        if signed is None:
            signed = signed_held(store, commit)
        counted = widened_counted(store.repo, old, new.valid_from, implied,
                                  signed.get(new.keyid, []), parent=parent)
        if counted:
            widened.append((old, new, widened_said(before, implied is not None,
                                                   new.valid_from, new.valid_from, counted)))
    if not widened:
        return
    old, new, said, where, more = _first(widened, entries, named)
    raise InputError(
        f"{_would_become(old, new, where)}, which widens it into the "
        f"past {said}; trust is not retroactive, and `kistore check` refuses such a change "
        "(KI435): what the key signed before it counted entered as a community attestation "
        "and stays one; to make it count, its signer attests again once the key is trusted "
        "(the new attestation enters then); keep the key's validFrom as it is (leave "
        "--valid-from out, or give one no earlier)"
        + (f"; {more} more key(s) given widen too" if more else "")
        + "; nothing was written")


def pre_trust_warnings(store: Store, entries: list[TrustedKey],
                       named: list[str] | None = None) -> list[str]:
    """Say KI442 of each new key ``trust add`` trusts from a past ``validFrom`` (fresh14 F8).

    A key no version of ``HEAD``'s trust file history lists (:func:`kistore.attest.
    trust_history.first_listed`), given a ``validFrom`` before this machine's clock, makes
    what it signed that the repository holds count from the commit that trusts it: each
    attestation that entered before now (a community attestation then) and counts by the
    ``validFrom``, as the gate judges it (:func:`kistore.check._widened_past.
    widened_counted`, the gate's test; KI442, a warning: a past ``validFrom`` is an
    explicit, reviewed choice, so it is written).

    Args:
        store: the store (its ``HEAD``, history and notes are read).
        entries: the entries as written, one per key given.
        named: where each key was given (``keys.pub:2``), in ``entries`` order, for a file
            of several keys; None: the keyid alone.

    Returns:
        One line per such key, without ``warning:``, in ``entries`` order: the key, its
        ``validFrom`` and now, the gate's words of the first attestation that counts, and
        KI442's hint. Empty when ``HEAD`` has no commit or no key is so.

    Raises:
        ObjectUnreadable: a version of the trust file, a tree or an attestation git cannot
            read.
    """
    if store.head_or_none() is None:
        return []
    head = str(store.commit("HEAD").id)
    listed = first_listed(store.repo, head)
    now = datetime.now(UTC).replace(microsecond=0)
    signed: dict[str, list[Signed]] | None = None
    said = []
    for place, new in enumerate(entries):
        if new.valid_from is None or new.valid_from >= now or new.keyid in listed:
            continue
        if signed is None:
            signed = signed_held(store, head)
        counted = widened_counted(store.repo, replace(new, valid_from=None), new.valid_from,
                                  (now, head), signed.get(new.keyid, []))
        if counted:
            where = f" ({named[place]})" if named else ""
            said.append(
                f"key {new.keyid}{where}: trusted anew from before now (validFrom "
                f"{format_time(new.valid_from)}; now {format_time(now)}): "
                f"{pre_trust_said(counted, 'the commit that trusts it')}; `kistore check` "
                f"warns of it (KI442): {PRE_TRUST_COUNTS.hint}")
    return said
