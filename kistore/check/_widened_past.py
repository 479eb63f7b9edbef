"""KI435: a key's ``validFrom`` removed or moved earlier over what it signed before (g8's leftover).

Trust is not retroactive (docs/attestations.md): an attestation that entered the repository
before its key's ``validFrom`` is a community attestation, and stays one. A change of a
listed key's entry that removes its ``validFrom`` or moves it earlier makes such an
attestation count after the fact. Removing it is the worse door: the key then counts from
its start, the trusted time of the first commit listing it, which its committer dated. A
key added with ``validFrom`` = the push's time in a commit dated an hour back (no finding:
``validFrom`` decides), then a push removing the ``validFrom`` (KI427, info), made every
note line the key's holder pushed during that hour (community then: KI411 accepts them)
withdraw or verify (fresh02 G8's hole, past KI434, which weighs keys without ``validFrom``
only).

**KI435** (error), judged by ``check BASE..HEAD`` and so by ``check --updates``
(``pre-receive``): per commit of the range against its first parent, per key both list
whose parent's entry has a ``validFrom`` that the commit removes or moves earlier (to its
new ``validFrom``, or, removed, to the key's start as of the parent,
:func:`kistore.attest.trust_history.added`), when an attestation the key signed that the
repository held then (:func:`kistore.attest.signed_by.held_when`: a note line at the notes
tip, an attestation file the parent holds; each at its entry time) was not counted by the
parent's entry (it entered before its ``validFrom``) and counts by the commit's window. A
note line entered in the start's own second is left out (unordered with the commit: a
community attestation either way, :meth:`kistore.attest.trust.Trust.judge`). One finding a
commit and key, naming the first such attestation and how many there are. A change that
makes nothing already held count (the key signed nothing before its ``validFrom``) is
fine, and KI427 lists it, as it lists a new key's past ``validFrom``.

Not judged: a key the parent does not list (a new key's past ``validFrom`` is an explicit,
reviewed choice: KI427), ``validUntil`` moved later (an attestation entering after an
expiry is refused by KI411), and ``verify``'s history.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..attest.signed_by import Signed, held_when, signed_held
from ..attest.trust import Trust, TrustedKey, format_time
from ..attest.trust_history import added
from ..core import layout
from ..core.errors import KistoreError
from ..core.findings import ERROR, Finding, rule
from ..git.blobs import read_blob
from ..git.pathlog import blob_at
from ._fixes import Base

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

_FIX = ("keep the key's validFrom as it was: drop the commit that removes it or moves it "
        "earlier (`git rebase -i BASE`); trust is not retroactive: what the key signed before "
        "its validFrom entered as a community attestation and stays one; to make it count, "
        "its signer attests again once the key is trusted (the new attestation enters then)")
TRUST_WIDENED_INTO_THE_PAST = rule("KI435", "trust-widened-into-the-past", ERROR, _FIX)


def widened_past(store: Store, commits: list[Any], base: Base, head: Any) -> list[Finding]:
    """KI435 per commit of a range and key whose ``validFrom`` it removes or moves earlier.

    Args:
        store: the :class:`kistore.store.Store` checked.
        commits: the range's commits (``pygit2.Commit``), newest first.
        base: the gate's BASE (:class:`._fixes.Base`): the fix names its rebase.
        head: HEAD's commit: its attestation files, and the notes tip, are what is held.

    Returns:
        The findings, oldest commit first, at the key's entry (``/keys/N`` of the commit's
        file); ``extra``: ``commit``, ``keyid``, ``validFrom`` (the parent's), ``from``
        (the commit's window start), ``location`` and ``entered`` (the first attestation),
        ``count``. Empty when no commit changes a ``validFrom`` so.

    Raises:
        ObjectUnreadable: a tree, blob or commit read on the way is damaged.
    """
    repo = store.repo
    signed: dict[str, list[Signed]] | None = None
    findings = []
    for commit in reversed(commits):
        if not commit.parents:
            continue
        parent = commit.parents[0]
        entries = _widened(repo, parent, commit)
        if not entries:
            continue
        starts = added(repo, str(parent.id))
        for place, old, new in entries:
            start = new.valid_from if new.valid_from is not None else starts.get(
                new.keyid, (datetime.fromtimestamp(parent.commit_time, UTC), ""))[0]
            assert old.valid_from is not None  # _widened's
            if start >= old.valid_from:
                continue
            if signed is None:
                signed = signed_held(store, str(head.id))
            counted = [s for s in _counted(repo, parent, old, start, new.valid_from is None,
                                           signed.get(new.keyid, []))
                       if not _counted_before(repo, parent, new.keyid, s)]
            if counted:
                findings.append(_finding(commit, place, old, new, start, counted, base))
    return findings


def _widened(repo: pygit2.Repository, parent: Any, commit: Any
             ) -> list[tuple[int, TrustedKey, TrustedKey]]:
    """Return ``(place, old, new)`` per key whose ``validFrom`` ``commit`` removes or moves earlier.

    Both trust files read as :meth:`kistore.attest.trust.Trust.from_bytes` reads them; an
    invalid one (KI309, KI410) or none gives nothing. ``place``: the entry's index in the
    commit's file.
    """
    was, now = (blob_at(repo, c.tree, layout.TRUST_FILE) for c in (parent, commit))
    if was is None or now is None or was == now:
        return []
    try:
        before, after = (Trust.from_bytes(read_blob(repo, b, layout.TRUST_FILE))
                         for b in (was, now))
    except KistoreError:
        return []
    found = []
    for place, (keyid, new) in enumerate(after.keys.items()):
        old = before.keys.get(keyid)
        if old is not None and old.valid_from is not None and (
                new.valid_from is None or new.valid_from < old.valid_from):
            found.append((place, old, new))
    return found


def _counted(repo: pygit2.Repository, parent: Any, old: TrustedKey, start: datetime,
             from_start: bool, signed: list[Signed]) -> list[Signed]:
    """Return what ``old`` did not count (before its ``validFrom``) and counts from ``start``.

    Weighed are the attestations held at the commit (every note line, a file ``parent``
    holds); ``from_start``: the new window opens at the key's start commit, so a note line
    of that very second is unordered with it (left out).
    """
    def holds(path: str) -> bool:
        return blob_at(repo, parent.tree, path) is not None

    wider = replace(old, valid_from=start)
    return [s for s in signed if held_when(s.path, s.entered, holds, None)
            and old.judge(s.role, s.entered, s.signed) is not None
            and wider.judge(s.role, s.entered, s.signed) is None
            and not (from_start and not s.path and s.entered == start)]


def _counted_before(repo: pygit2.Repository, parent: Any, keyid: str, signed: Signed) -> bool:
    """Whether the entry of ``parent``'s first parent counted ``signed`` (a restore).

    A commit giving back what its parent took (the parent narrowed the entry: KI410 of
    that commit) is not said again.
    """
    if not parent.parents:
        return False
    older = parent.parents[0]
    blob = blob_at(repo, older.tree, layout.TRUST_FILE)
    if blob is None:
        return False
    try:
        entry = Trust.from_bytes(read_blob(repo, blob, layout.TRUST_FILE)).keys.get(keyid)
    except KistoreError:
        return False
    if entry is None:
        return False
    if entry.valid_from is None:
        start = added(repo, str(older.id)).get(keyid)
        if start is None:
            return False
        entry = replace(entry, valid_from=start[0])
    return entry.judge(signed.role, signed.entered, signed.signed) is None


def _finding(commit: Any, place: int, old: TrustedKey, new: TrustedKey, start: datetime,
             counted: list[Signed], base: Base) -> Finding:
    """Return KI435 of ``commit`` widening ``old`` -> ``new`` back to ``start``."""
    first = counted[0]
    assert old.valid_from is not None  # _widened's
    widened = (f"validFrom {format_time(old.valid_from)} -> " + (
        format_time(start) if new.valid_from is not None else
        f"none (from when it entered the trust file, {format_time(start)}, its commit's "
        "date)"))
    more = f" (and {len(counted) - 1} more)" if len(counted) > 1 else ""
    cid = str(commit.id)
    return Finding(
        TRUST_WIDENED_INTO_THE_PAST,
        f"commit {cid[:12]} widens the entry of key {new.keyid} in the trust file into the "
        f"past ({widened}): {first.said()}, before the key's validFrom, a community "
        f"attestation then, would count{more}; trust is not retroactive",
        file=layout.TRUST_FILE, pointer=f"/keys/{place}",
        expected=f"validFrom {format_time(old.valid_from)} or later",
        found=f"counting from {format_time(start)}",
        fix=_FIX.replace("`git rebase -i BASE`", base.rebase()),
        extra={"commit": cid, "keyid": new.keyid, "validFrom": format_time(old.valid_from),
               "from": format_time(start), "location": first.location,
               "entered": format_time(first.entered), "count": len(counted)})

