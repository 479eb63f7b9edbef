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
(``pre-receive``): per commit of the range against its first parent, per key whose entry
before the commit has a ``validFrom`` that the commit removes or moves earlier (to its new
``validFrom``, or, removed, to the key's first start as of the parent,
:func:`kistore.attest.trust_history.first_listed`), when an attestation the key signed
that the repository held then (:func:`kistore.attest.signed_by.held_when`: a note line at
the notes tip, an attestation file the parent holds; each at its entry time) was not
counted by the entry before (it entered before its ``validFrom``) and counts by the
commit's window. The entry before is the parent's, or, when the parent's file does not
list the key (its entry dropped, the file deleted or invalid, in an earlier commit), the
key's last listed entry: adding a key back without its ``validFrom`` widens it as removing
the ``validFrom`` does (review01 H2). A note line entered in the start's own second is left
out (unordered with the commit: a community attestation either way,
:meth:`kistore.attest.trust.Trust.judge`). So is a restore: an attestation that an earlier
version of the file (any number of commits back) counted, and that the repository held
when the next version narrowed the entry (KI410's, said there); one that entered after
that narrowing was a community attestation, whatever an older entry said (review01 H1).
One finding a commit and key, naming the first such attestation and how many there are. A
change that makes nothing already held count (the key signed nothing before its
``validFrom``) is fine, and KI427 lists it, as it lists a new key's past ``validFrom``.

Not judged: a key no earlier version lists (a new key's past ``validFrom`` is an explicit,
reviewed choice: KI427; KI442 warns when it makes what the key signed untrusted count),
and ``validUntil`` moved later (an attestation entering after an expiry is refused by
KI411). ``verify`` judges the history's commits alike, as warnings
(:func:`check_widened_history`). A note line is ordered with a
narrowing commit by times alone: one that entered before a narrowing commit dated ahead
(KI428 lets a date lie up to a day ahead) is taken as held then.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..attest.signed_by import Signed, counts, held_when, signed_held
from ..attest.trust import Trust, TrustedKey, format_time
from ..attest.trust_history import commit_times, first_listed, trust_versions
from ..core import layout
from ..core.errors import KistoreError
from ..core.findings import ERROR, WARNING, Finding, rule
from ..git.blobs import read_blob
from ..git.pathlog import blob_at
from ._fixes import HINT_BASE, REBASE_BASE, Base

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Callable, Iterable, Iterator

    import pygit2

    from ..store import Store

_FIX = ("keep the key's validFrom as it was: drop the commit that removes it or moves it "
        "earlier (`git rebase -i BASE`); trust is not retroactive: what the key signed before "
        "its validFrom entered as a community attestation and stays one; to make it count, "
        "its signer attests again once the key is trusted (the new attestation enters then)")
TRUST_WIDENED_INTO_THE_PAST = rule("KI435", "trust-widened-into-the-past", ERROR, _FIX)
PRE_TRUST_COUNTS = rule(
    "KI442", "pre-trust-attestation-counts", WARNING,
    "review it: a past validFrom makes what the key signed before it was trusted count; if "
    "its holder signed that and it should take effect, say so in the pull request and keep "
    "it; otherwise give the key a validFrom after that attestation entered, or none (the "
    "key then counts from the commit that trusts it), and have its signer attest again once "
    "the key is trusted")


def widened_past(store: Store, commits: list[Any], base: Base, head: Any, *,
                 landed: _History | None = None) -> list[Finding]:
    """KI435 per commit of a range and key whose ``validFrom`` it removes or moves earlier.

    Args:
        store: the :class:`kistore.store.Store` checked.
        commits: the range's commits (``pygit2.Commit``), newest first.
        base: the gate's BASE (:class:`._fixes.Base`): the fix names its rebase.
        head: HEAD's commit: its attestation files, and the notes tip, are what is held.
        landed: ``verify``'s history (:func:`check_widened_history`), read once for
            KI435 and KI442: a note line was held when it entered by the commit's own
            trusted time; None: the gate's range, which lands now, after every note line.

    Returns:
        The findings, oldest commit first, at the key's entry (``/keys/N`` of the commit's
        file); ``extra``: ``commit``, ``keyid``, ``validFrom`` (the entry's before),
        ``from`` (the commit's window start), ``location`` and ``enteredAt`` (the first
        attestation's, a time), ``count``. Empty when no commit changes a ``validFrom`` so.

    Raises:
        ObjectUnreadable: a tree, blob or commit read on the way is damaged.
        StoreStateError: a partial clone whose remote could not give a trust file's version.
    """
    def judged(history: _History, commit: Any, parent: Any) -> Iterator[Finding]:
        for place, old, new in _widened(history, parent, commit):
            start = new.valid_from if new.valid_from is not None else history.start(
                parent, new.keyid)
            implied = None  # fresh14 F10: a key without validFrom counts from its start
            if old.valid_from is None:
                implied = history.first(parent, new.keyid)
                old = replace(old, valid_from=implied[0])
            assert old.valid_from is not None  # _widened's, or the key's start
            if start >= old.valid_from:
                continue
            held = history.held(store, parent, new.keyid,
                                None if landed is None else str(commit.id))
            tied = None if implied is None else _tied(store.repo, *implied)
            counted = [s for s in _counted(old, start, new.valid_from is None, held, tied)
                       if not _restored(history, parent, new.keyid, s, held)]
            if counted:
                yield _finding(commit, place, old, new, start, counted, base,
                               implied=implied is not None)

    return _per_commit(landed or _History(store.repo, str(head.id)), commits, judged)


def _per_commit(history: _History, commits: list[Any],
                judged: Callable[[_History, Any, Any], Iterable[Finding]]) -> list[Finding]:
    """Return what ``judged(history, commit, first parent)`` finds per non-root commit.

    KI435's and KI442's one walk (:func:`widened_past`, :func:`pre_trust_counted`): oldest
    commit first, one :class:`_History` shared by every commit. ``commits``: newest first
    (``pygit2.Commit``). Raises what ``judged`` raises.
    """
    return [f for commit, parent in _with_parents(commits)
            for f in judged(history, commit, parent)]


def _with_parents(commits: list[Any]) -> list[tuple[Any, Any]]:
    """Return ``(commit, first parent)`` per non-root commit of a range, oldest first.

    ``commits`` come newest first (``pygit2.Commit``); raises nothing.
    """
    return [(c, c.parents[0]) for c in reversed(commits) if c.parents]


class _History:
    """The trust file's versions along a commit's first-parent history, each read once.

    Args:
        repo: the ``pygit2.Repository``.
        head: the range's HEAD (40 hex digits): every commit asked about is its ancestor.
        line: HEAD's own versions (:func:`kistore.attest.trust_history.trust_versions`),
            when the commits asked about are theirs (``verify``'s history): a version's
            first parent's versions are the older ones, with no ``git rev-list`` of its
            own; None: each listed when asked.
        signed: the attestations judged, by key (:meth:`held`); None: ``head``'s, read
            when first asked (:func:`kistore.attest.signed_by.signed_held`).
    """

    def __init__(self, repo: pygit2.Repository, head: str,
                 line: list[tuple[str, str | None]] | None = None, *,
                 signed: dict[str, list[Signed]] | None = None) -> None:
        self.repo = repo
        self._head = head
        self._read: dict[str, Trust | None] = {}
        self._times: dict[str, datetime] | None = None
        self._signed: dict[str, list[Signed]] | None = signed
        self._line = line or []
        self._older: dict[str, int] = {}  # a version's first parent -> where older ones start
        for place, (made, _blob) in enumerate(self._line):
            made_commit: Any = repo[made]
            parents = made_commit.parent_ids
            if parents:
                self._older[str(parents[0])] = place + 1

    def trust(self, blob: str | None) -> Trust | None:
        """Return the trust file of a blob as :meth:`Trust.from_bytes` reads it; None: invalid.

        A version that is invalid (KI309, KI410 at its commit) or deleted (``blob`` None)
        lists no key.
        """
        if blob is None:
            return None
        if blob not in self._read:
            try:
                self._read[blob] = Trust.from_bytes(read_blob(self.repo, blob,
                                                              layout.TRUST_FILE))
            except KistoreError:
                self._read[blob] = None
        return self._read[blob]

    def held(self, store: Store, parent: Any, keyid: str, landed: str | None) -> list[Signed]:
        """Return the attestations by ``keyid`` held at ``parent`` (:func:`_held`).

        HEAD's (:func:`kistore.attest.signed_by.signed_held`) are read once, at the first
        call (a range that widens no key reads none). ``landed``: the commit judged, when it
        is of ``verify``'s history (a note line held if it entered by that commit's trusted
        time); None: the gate's range, which lands now, after every note line.

        Raises:
            ObjectUnreadable: a file or tree of HEAD, or a note, is damaged.
        """
        if self._signed is None:
            self._signed = signed_held(store, self._head)
        return _held(store.repo, parent, self._signed.get(keyid, []),
                     None if landed is None else self.time(landed))

    def versions(self, commit: Any) -> list[tuple[str, str | None]]:
        """Return :func:`kistore.attest.trust_history.trust_versions` of ``commit``."""
        older = self._older.get(str(commit.id))
        if older is not None:
            return self._line[older:]
        return trust_versions(self.repo, str(commit.id))

    def last_entry(self, commit: Any, keyid: str) -> TrustedKey | None:
        """Return the key's entry in the newest version up to ``commit`` listing it, or None.

        A key that the file at ``commit`` lacks (its entry dropped, or the file deleted or
        invalid, in an earlier commit) is compared with what it was when last listed:
        adding it back is a change of that entry, not a new key (review01 H2).
        """
        for _made, blob in self.versions(commit):
            trust = self.trust(blob)
            if trust is not None and keyid in trust.keys:
                return trust.keys[keyid]
        return None

    def start(self, commit: Any, keyid: str) -> datetime:
        """Return when a key without ``validFrom`` counts from, as of ``commit``.

        :func:`kistore.attest.trust_history.first_listed` (a key added again keeps its
        first start); a key no version lists (nothing lists it to count from) from
        ``commit``'s trusted time.
        """
        return self.first(commit, keyid)[0]

    def first(self, commit: Any, keyid: str) -> tuple[datetime, str]:
        """Return :meth:`start` and the commit it is the time of (40 hex digits)."""
        first = first_listed(self.repo, str(commit.id)).get(keyid)
        return first if first is not None else (self.time(str(commit.id)), str(commit.id))

    def time(self, commit: str) -> datetime:
        """Return a commit's trusted time (:func:`kistore.attest.trust_history.commit_times`)."""
        if self._times is None:
            self._times = commit_times(self.repo, self._head)
        return self._times[commit]


def _widened(history: _History, parent: Any, commit: Any
             ) -> list[tuple[int, TrustedKey, TrustedKey]]:
    """Return ``(place, old, new)`` per key whose ``validFrom`` ``commit`` removes or moves earlier.

    ``old`` is the key's entry at ``parent``, or when ``parent``'s file does not list it,
    its last entry along the first-parent history (:meth:`_History.last_entry`). A file
    at ``commit`` that is invalid (KI309, KI410) or absent gives nothing. ``place``: the
    entry's index in the commit's file.
    """
    repo = history.repo
    was, now = (blob_at(repo, c.tree, layout.TRUST_FILE) for c in (parent, commit))
    after = history.trust(now)
    if after is None or was == now:
        return []
    before = history.trust(was)
    found = []
    for place, (keyid, new) in enumerate(after.keys.items()):
        old = before.keys.get(keyid) if before is not None else None
        if old is None:
            old = history.last_entry(parent, keyid)
        if old is None:
            continue
        if old.valid_from is not None and (
                new.valid_from is None or new.valid_from < old.valid_from):
            found.append((place, old, new))
        elif old.valid_from is None and new.valid_from is not None:
            found.append((place, old, new))  # earlier than the key's start? (fresh14 F10)
    return found


def _held(repo: pygit2.Repository, parent: Any, signed: list[Signed],
          time: datetime | None = None) -> list[Signed]:
    """Return the attestations of ``signed`` held at a commit of ``parent``.

    An attestation file ``parent``'s tree holds; a note line: every one (``time`` None:
    the change lands now) or one that entered by ``time``, the commit's trusted time (a
    commit of the history) (:func:`kistore.attest.signed_by.held_when`). Raises nothing.
    """
    def holds(path: str) -> bool:
        return blob_at(repo, parent.tree, path) is not None

    return [s for s in signed if held_when(s.path, s.entered, holds, time)]


def _counted(old: TrustedKey, start: datetime, from_start: bool, held: list[Signed],
             tied: Callable[[Signed], bool] | None = None) -> list[Signed]:
    """Return what ``old`` did not count (before its ``validFrom``) and counts from ``start``.

    Each of ``held`` judged as readers judge it, its copies with it
    (:func:`kistore.attest.signed_by.counts`: a note line whose committed file copy
    counts is counted already, review01 M5); ``from_start``: the new window opens at the
    key's start commit, so a note line of that very second is unordered with it (left out).
    ``tied``: ``old``'s ``validFrom`` is the key's start, its trust commit's time (the
    entry had none): whether an attestation entered in that second was a community
    attestation then (:func:`_tied`), as readers judge it; None: an explicit ``validFrom``.
    """
    wider = replace(old, valid_from=start)
    return [s for s in held
            if (not counts(old, s, held) or (tied is not None and tied(s)))
            and counts(wider, s, held)
            and not (from_start and not s.path and s.entered == start)]


def widened_counted(repo: pygit2.Repository, old: TrustedKey, start: datetime,
                    implied: tuple[datetime, str] | None, held: list[Signed], *,
                    parent: Any = None) -> list[Signed]:
    """Return what a ``validFrom`` moved earlier to ``start`` makes count (KI435's test).

    The one test the gate (:func:`widened_past`) and ``kistore trust add`` (fresh14 F10:
    it wrote such a change, exit 0) share.

    Args:
        repo: the ``pygit2.Repository``.
        old: the key's entry before the change.
        start: the new, explicit ``validFrom``.
        implied: ``old`` has no ``validFrom``: the key's start and the commit it is the
            time of (:func:`kistore.attest.trust_history.first_listed`); None: ``old``'s
            ``validFrom`` is its start.
        held: what the key signed that the repository holds
            (:class:`kistore.attest.signed_by.Signed`).
        parent: the commit the change is made on (``pygit2.Commit``: ``trust add``'s
            ``HEAD``): an attestation an earlier version of the file counted, held when
            the next version narrowed the entry, is left out (a restore, KI410's, as the
            gate leaves it out: trust03); None: none left out.

    Returns:
        Each of ``held`` that entered before ``old``'s start (a community attestation
        then) and counts from ``start``; empty when ``start`` is not earlier.

    Raises:
        ObjectUnreadable: the start commit's tree cannot be read.
    """
    before = replace(old, valid_from=implied[0]) if implied is not None else old
    if before.valid_from is None or start >= before.valid_from:
        return []
    tied = None if implied is None else _tied(repo, *implied)
    counted = _counted(before, start, False, held, tied)
    if parent is None or not counted:
        return counted
    history = _History(repo, str(parent.id))
    return [s for s in counted if not _restored(history, parent, old.keyid, s, held)]


def _tied(repo: pygit2.Repository, start: datetime, commit: str) -> Callable[[Signed], bool]:
    """Return whether an attestation entered in the second of a key's trust commit was community.

    :meth:`kistore.attest.trust.Trust.judge`: a note line in that second is unordered
    with the commit (community); an attestation file counts only when it entered in a
    commit after the trust commit, so one the trust commit's own tree holds entered with
    it, or before it: community.
    """
    tree = repo[commit].tree

    def tied(signed: Signed) -> bool:
        return signed.entered == start and (
            not signed.path or blob_at(repo, tree, signed.path) is not None)
    return tied


def _restored(history: _History, parent: Any, keyid: str, signed: Signed,
              held: list[Signed]) -> bool:
    """Whether ``signed`` counted, held, until a commit up to ``parent`` narrowed the entry.

    A commit giving back what an earlier one took is a restore, not a widening: that
    earlier commit is KI410's (said there, not again here). So ``signed`` is left out when
    a version of the trust file along ``parent``'s first-parent history (any number of
    commits back, review01 L11) counted it, and the repository held it when the next
    version was made (:func:`kistore.attest.signed_by.held_when`, a note line strictly
    before that commit's trusted time: KI410's attestations). One that entered after the
    narrowing was a community attestation when it entered, whatever an older entry says
    (review01 H1).
    """
    repo = history.repo
    versions = history.versions(parent)  # newest first
    for (made, _blob), (_older, blob) in zip(versions, versions[1:], strict=False):
        trust = history.trust(blob)
        entry = trust.keys.get(keyid) if trust is not None else None
        if entry is None:
            continue
        if entry.valid_from is None:
            entry = replace(entry, valid_from=history.start(parent, keyid))
        if not counts(entry, signed, held):
            continue
        narrowing = repo[made]

        def holds(path: str, narrowing: Any = narrowing) -> bool:
            return bool(narrowing.parents) and blob_at(
                repo, narrowing.parents[0].tree, path) is not None

        if held_when(signed.path, signed.entered, holds, history.time(made), tie=False):
            return True
    return False


def widened_said(old_from: datetime, implied: bool, new_from: datetime | None,
                 start: datetime, counted: list[Signed]) -> str:
    """Say what a widening into the past makes count, as KI435 and ``trust add`` say it.

    Args:
        old_from: the entry's start before: its ``validFrom``, or (``implied``) the key's
            start, when it entered the trust file.
        implied: the entry had no ``validFrom`` (fresh14 F10).
        new_from: the entry's ``validFrom`` after, or None (removed).
        start: when the key counts from after.
        counted: what counts now (:func:`widened_counted`), at least one.

    Returns:
        ``(validFrom OLD -> NEW): its withdrawal at LOC entered the repository at T, before
        the key's validFrom, a community attestation then, would count (and N more)``.
        Raises nothing.
    """
    was = (f"none (from when it entered the trust file, {format_time(old_from)}, its "
           "commit's date)" if implied else format_time(old_from))
    widened = f"validFrom {was} -> " + (
        format_time(start) if new_from is not None else
        f"none (from when it entered the trust file, {format_time(start)}, its commit's "
        "date)")
    more = f" (and {len(counted) - 1} more)" if len(counted) > 1 else ""
    before = "start, when it entered the trust file" if implied else "validFrom"
    return (f"({widened}): {counted[0].said()}, before the key's {before}, a community "
            f"attestation then, would count{more}")


def _finding(commit: Any, place: int, old: TrustedKey, new: TrustedKey, start: datetime,
             counted: list[Signed], base: Base, *, implied: bool = False) -> Finding:
    """Return KI435 of ``commit`` widening ``old`` -> ``new`` back to ``start``.

    ``implied``: ``old``'s ``validFrom`` is the key's start (its entry had none).
    """
    first = counted[0]
    assert old.valid_from is not None  # _widened's
    cid = str(commit.id)
    said = widened_said(old.valid_from, implied, new.valid_from, start, counted)
    return Finding(
        TRUST_WIDENED_INTO_THE_PAST,
        f"commit {cid[:12]} widens the entry of key {new.keyid} in the trust file into the "
        f"past {said}; trust is not retroactive",
        file=layout.TRUST_FILE, pointer=f"/keys/{place}",
        expected=f"validFrom {format_time(old.valid_from)} or later",
        found=f"counting from {format_time(start)}",
        fix=_FIX.replace("`git rebase -i BASE`", base.rebase()),
        extra={"commit": cid, "keyid": new.keyid, "validFrom": format_time(old.valid_from),
               "from": format_time(start), "location": first.location,
               "enteredAt": format_time(first.entered), "count": len(counted)})



def pre_trust_counted(store: Store, commits: list[Any], head: Any, *,
                      landed: _History | None = None,
                      signed: dict[str, list[Signed]] | None = None) -> list[Finding]:
    """KI442 per commit of a range and key it trusts anew with a ``validFrom`` before it.

    fresh14 F8: a key no earlier version of the trust file lists, added with a past
    ``validFrom`` (an explicit, reviewed choice, so not KI435's error), makes a
    withdrawal its holder signed while nobody trusted the key count when the trust lands;
    the gate said it as KI413 info among infos. Each attestation the repository held then
    (:func:`kistore.attest.signed_by.held_when`) that entered before the commit (a
    community attestation, had the key no ``validFrom``, as :func:`widened_counted` judges
    it from the commit's time) and counts by the ``validFrom`` is named, the first of them.

    Args:
        store: the :class:`kistore.store.Store` checked.
        commits: the range's commits (``pygit2.Commit``), newest first.
        head: HEAD's commit: its attestation files, and the notes tip, are what is held.
        landed: ``verify``'s history, as :func:`widened_past` takes it; None: the gate's.
        signed: with ``landed`` None, the attestations judged, by key (a notes push's new
            lines and their copies: :func:`pre_trust_lines`); None: ``head``'s.

    Returns:
        The findings (warnings), oldest commit first, at the key's entry (``/keys/N``);
        ``extra``: ``commit``, ``keyid``, ``validFrom``, ``location``, ``enteredAt``,
        ``count``. Empty when no commit adds a key so.

    Raises:
        ObjectUnreadable: a tree, blob or commit read on the way is damaged.
        StoreStateError: a partial clone whose remote could not give a trust file's version.
    """
    def judged(history: _History, commit: Any, parent: Any) -> Iterator[Finding]:
        was, now = (blob_at(store.repo, c.tree, layout.TRUST_FILE) for c in (parent, commit))
        after = history.trust(now)
        if after is None or was == now:
            return
        before = history.trust(was)
        for place, (keyid, new) in enumerate(after.keys.items()):
            if new.valid_from is None or (before is not None and keyid in before.keys) or (
                    history.last_entry(parent, keyid) is not None):
                continue
            cid = str(commit.id)
            if new.valid_from >= history.time(cid):
                continue  # from its commit on: nothing signed before counts (no read)
            held = history.held(store, parent, keyid, None if landed is None else cid)
            counted = widened_counted(store.repo, replace(new, valid_from=None),
                                      new.valid_from, (history.time(cid), cid), held)
            if counted:
                yield _pre_trust(cid, place, new, history.time(cid), counted)

    return _per_commit(landed or _History(store.repo, str(head.id), signed=signed), commits,
                       judged)


def pre_trust_lines(store: Store, lines: list[tuple[Signed, list[Signed]]], head: Any
                    ) -> list[tuple[Signed, Finding, datetime]]:
    """KI442 of new note lines that entered before the commit trusting their key (fresh15 F2).

    :func:`pre_trust_counted`'s judge, of the commit that first lists each line's key
    (:func:`kistore.attest.trust_history.first_listed` at ``head``), with the line and its
    copies as what the key signed: a push of the notes after the trust commit (a past
    ``validFrom``) brings a line the range's check never held, and it took effect with no
    word. Judged only for a line that entered no later than its key's first listing.

    Args:
        store: the receiving (or pushing) :class:`kistore.store.Store`.
        lines: per new note line, its :class:`kistore.attest.signed_by.Signed` (entered at
            the time readers give it) and its bundle's committed file copies.
        head: the protected branch's tip as pushed (``pygit2.Commit``), whose trust file's
            history is read.

    Returns:
        ``(line, finding, start)`` per line the trust commit makes count from before it:
        the commit's KI442 as :func:`pre_trust_counted` gives it (``extra.commit``: the
        trust commit) and the commit's trusted time, in ``lines`` order. Empty when none
        does.

    Raises:
        ObjectUnreadable: a tree, blob or commit read on the way is damaged.
        StoreStateError: a partial clone whose remote could not give a trust file's version.
    """
    listed = first_listed(store.repo, str(head.id)) if lines else {}
    found = []
    for line, copies in lines:
        first = listed.get(line.keyid)
        if first is None or line.entered > first[0]:
            continue  # no commit trusts its key, or it entered after: not before the trust
        found += [(line, f, first[0]) for f in pre_trust_counted(
            store, [store.repo[first[1]]], head, signed={line.keyid: [line, *copies]})
            if f.extra["location"] == line.location]
    return found


def _pre_trust(cid: str, place: int, new: TrustedKey, start: datetime,
               counted: list[Signed]) -> Finding:
    """Return KI442 of commit ``cid`` trusting ``new`` from before its own time ``start``."""
    assert new.valid_from is not None  # pre_trust_counted's
    first = counted[0]
    return Finding(
        PRE_TRUST_COUNTS,
        f"commit {cid[:12]} trusts key {new.keyid} anew from before it (validFrom "
        f"{format_time(new.valid_from)}; the commit's time {format_time(start)}): "
        + pre_trust_said(counted, "this commit"),
        file=layout.TRUST_FILE, pointer=f"/keys/{place}",
        extra={"commit": cid, "keyid": new.keyid, "validFrom": format_time(new.valid_from),
               "location": first.location, "enteredAt": format_time(first.entered),
               "count": len(counted)})


def pre_trust_said(counted: list[Signed], trusting: str) -> str:
    """Say what a new key's past ``validFrom`` makes count, as KI442 and ``trust add`` say it.

    Args:
        counted: what counts (at least one), first named.
        trusting: the commit it counts from: ``this commit`` (the gate's), ``the commit
            that trusts it`` (``trust add``'s, before any commit).

    Returns:
        ``its withdrawal at LOC entered the repository at T, before the key was trusted, a
        community attestation then, counts from this commit (and N more): what the key
        signed while nobody trusted it takes effect when the trust lands``. Raises nothing.
    """
    more = f" (and {len(counted) - 1} more)" if len(counted) > 1 else ""
    return (f"{counted[0].said()}, before the key was trusted, a community attestation then, "
            f"counts from {trusting}{more}: what the key signed while nobody trusted it takes "
            "effect when the trust lands")


WIDENED_IN_HISTORY = replace(TRUST_WIDENED_INTO_THE_PAST, severity=WARNING)
"""KI435 of a commit of the history as ``verify`` reports it (a warning, as KI410's there):
history is never rewritten, and what HEAD answers holds."""

_LANDED = (f"in a branch not yet merged, drop the commit ({REBASE_BASE}); on a branch "
           "already merged history cannot change, and this warning says so for good")


def check_widened_history(store: Store, at: str | None = None) -> list[Finding]:
    """KI435 and KI442 of each commit of the trust file's first-parent history (``verify``).

    The gate judges a range (``check BASE..HEAD``, ``pre-receive``); a store whose history
    came through a server without the hook, or before these rules, is audited here (trust03,
    fresh14 F10/F8 left): each commit of ``at``'s first-parent line that changed the trust
    file against its first parent, as :func:`widened_past` and :func:`pre_trust_counted`
    judge a range's, with what the repository held when it was made (an attestation file
    its parent holds; a note line that entered by its trusted time). KI435 is a warning
    here, as KI410 is of the history: what ``at`` answers holds (the attestation counts).
    Cost: the trust file's versions (:func:`kistore.attest.trust_history.trust_versions`,
    the list KI412's check reads, cached); the attestations and every commit's time only
    when a commit widens a key's start or trusts a new key from before it.

    Args:
        store: a :class:`kistore.store.Store`.
        at: a revision, or None for ``HEAD`` (the work tree's trust file is not history).

    Returns:
        KI435 (warnings) then KI442 (warnings), each oldest commit first; none in a
        repository without commits.

    Raises:
        ObjectUnreadable: a tree, blob or commit read on the way is damaged.
        StoreStateError: a partial clone whose remote could not give a trust file's version.
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    head = store.commit(at or "HEAD")
    line = trust_versions(repo, str(head.id))
    if not line:
        return []
    history = _History(repo, str(head.id), line)
    commits = [repo[made] for made, _blob in line]
    where = at or "HEAD"
    widened = [replace(f, rule=WIDENED_IN_HISTORY, fix=(
        f"history is never rewritten: at {where} what the key signed before its old start "
        "counts (review whether that was meant: trust is not retroactive); " + _LANDED))
        for f in widened_past(store, commits, HINT_BASE, head, landed=history)]
    anew = [replace(f, fix=(
        f"review it: at {where} what the key signed before it was trusted counts; " + _LANDED))
        for f in pre_trust_counted(store, commits, head, landed=history)]
    return widened + anew
