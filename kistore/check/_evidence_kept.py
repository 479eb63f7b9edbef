"""Attestation files, the trust file and the ranking policy, judged at every commit (KI410).

The gate compared these files at BASE and at HEAD only (``gate._removed_evidence``): two
commits, one deleting ``store/trust/keys.json`` and the next restoring it byte for byte
(or removing one unrevoked key's entry and putting it back), had an empty net diff and
passed ``check`` and pre-receive with no finding, yet main's history then held a commit
at which no key was trusted, and every key counted from the restoring commit, so every
earlier maintainer withdrawal stopped counting and withdrawn runs ranked again (fresh01
F7). The same held for a withdrawal file or the policy deleted and restored: a commit at
which ``rank --at`` ranks the withdrawn run, or falls back to the shipped policy.

So, as objects (KI401, KI402) and names files (KI208) are, these files are judged commit
by commit, each commit against each parent: a commit that deletes one, makes the trust
file invalid (which trusts no key) or the policy invalid (every ``rank`` fails), changes
an attestation file's bytes, or removes or narrows a key's entry in the trust file, is
KI410 whatever a later commit does (a revocation is how trust ends: ``kistore trust
revoke``, KI412 keeps it). fresh02 found the doors trust01 left: a schema-invalid trust
file (G7), an attestation file emptied or reformatted (G7b), a role dropped or a window
shortened into the past (G1), each undone by the next commit with 0 findings. A merge is
held to what it changes itself, and said once however many parents it differs from (G3).
A commit whose policy ranks otherwise than both ends is a warning
(:func:`_policies_between`). The cost follows the
change: three subtree ids a commit and parent, and only a commit whose ``store/trust``,
``store/policy`` or ``store/attestations`` tree differs from its parent's is read further.

:func:`evidence_kept` is the gate's (one call in :func:`kistore.check.gate.check_range`),
:func:`check_evidence_history` ``verify``'s (warnings: history is never rewritten, and
what HEAD answers holds, a key counting from its first start:
:func:`kistore.attest.trust_history.added`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..attest.notes import parse_attestation_path
from ..attest.payload_dates import lost_said
from ..attest.signed_by import Signed, counted_any, held_when, signed_held, uncounted
from ..attest.trust import Trust, TrustedKey, format_time
from ..attest.trust_history import added, ever_revoked, keyids_in
from ..core import layout
from ..core.canonical_fast import loads_lenient
from ..core.errors import KistoreError, MultipleErrors
from ..core.findings import WARNING, Finding, Rule
from ..git import treediff
from ..git.blobs import read_blob
from ..git.pathlog import blob_at
from ._fixes import REBASE_BASE, Base, rebase_fix, restored_fix, staged_fix
from ._history import ancestry
from ._policy import policy_problems
from .lineage import APPEND_ONLY_REMOVED, REVOCATION_LIFTED, changing_commits

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

EVIDENCE_REMOVED_IN_HISTORY = replace(APPEND_ONLY_REMOVED, severity=WARNING)
"""KI410 of a commit of the history as ``verify`` reports it: history is never rewritten,
and the answers at HEAD hold (a key counts from its first start, an attestation file from
the first commit holding it). Its name is what the commit did (:func:`_rule_of`)."""

_NAMES = {"key-removed": "trust-entry-removed", "narrowed": "trust-entry-narrowed",
          "rewritten": "attestation-file-rewritten"}
"""KI410's name for what a commit did other than deleting a file (fresh06 L5: every
narrowing, invalid file and policy flip read "append-only-file-removed"). The id stays
KI410 (ids are stable: a script filtering on it still sees every one)."""


def _rule_of(removal: Removal) -> Rule:
    """Return KI410 (an error) named for what ``removal``'s commit did (fresh06 L5).

    ``append-only-file-removed`` for a deleted file, ``trust-entry-removed``,
    ``trust-entry-narrowed``, ``attestation-file-rewritten``, ``trust-file-made-invalid``
    and ``policy-made-invalid``; KI412's rule for a lifted revocation. Raises nothing.
    """
    if removal.kind == "unrevoked":
        return REVOCATION_LIFTED
    if removal.kind == "invalid":
        return replace(APPEND_ONLY_REMOVED, name="trust-file-made-invalid"
                       if removal.path == layout.TRUST_FILE else "policy-made-invalid")
    name = _NAMES.get(removal.kind)
    return APPEND_ONLY_REMOVED if name is None else replace(APPEND_ONLY_REMOVED, name=name)

LIFTED_IN_HISTORY = replace(REVOCATION_LIFTED, severity=WARNING)
"""KI412 of a commit of the history that lifted a revocation a later commit put back, as
``verify`` reports it (queries hold every revocation any version made: what HEAD answers
holds)."""

DIRECTORIES = (layout.TRUST_DIR, layout.POLICY_DIR, layout.ATTESTATIONS_DIR)
"""The directories whose files are judged: the trust file's, the policy's, the attestations'."""


@dataclass(frozen=True, slots=True)
class Removal:
    """One thing a commit took away from the reviewed evidence.

    Attributes:
        commit: the commit (40 hex digits).
        parent: the parent it is compared with (40 hex digits).
        path: the file (repository path).
        keyid: the key whose entry the commit removed from the trust file (or narrowed:
            ``narrowed``); ``""``: the file itself (deleted, made invalid, rewritten).
        invalid: why the commit's trust file or policy fails validation (its first
            problem; the parent's passes): the trust file then trusts no key (KI309 at
            that commit), the policy makes every ``kistore rank`` fail (KI206).
        rewritten: the commit changes the bytes of an attestation file its parent held as
            written (hashing to its name): it no longer verifies there (KI305).
        narrowed: what the commit took from the key's entry, as said (``roles maintainer,
            rerun -> rerun``): a role, or a time the key counted before this commit.
        lifted: the key's revocation the commit lifts or moves later, as said
            (``revokedAt 2026-06-01T00:00:00Z -> none``): KI412 of that commit.
        was: the parent's blob of ``path`` (40 hex digits).
        now: the commit's blob of ``path`` (``""``: none).
    """

    commit: str
    parent: str
    path: str
    keyid: str = ""
    invalid: str = ""
    rewritten: bool = False
    narrowed: str = ""
    lifted: str = ""
    was: str = ""
    now: str = ""

    @property
    def kind(self) -> str:
        """``deleted``, ``invalid``, ``rewritten``, ``key-removed``, ``narrowed``, ``unrevoked``."""
        return ("narrowed" if self.narrowed else "unrevoked" if self.lifted else "key-removed"
                if self.keyid else "invalid" if self.invalid else "rewritten" if
                self.rewritten else "deleted")


class _Versions:
    """The versions of the judged files a walk reads, each blob read and judged once.

    Args:
        repo: the ``pygit2.Repository``.
        base: the gate's BASE commit (what landed): a commit taking back only what the
            range itself gave, BASE's entry kept, narrows nothing that landed (fresh04 H3);
            None: ``verify``'s history, which knows no BASE.
        now: the gate's clock (the push's, in pre-receive): a change lands then, so a
            ``validUntil`` before it takes back what entered meanwhile (fresh04 H1); None:
            history, judged by its commits' and attestations' times alone.
        signed: reads what each key signed that the repository holds
            (:func:`kistore.attest.signed_by.signed_held`), asked at most once, and only
            for a change of a key's time window its commit's own time does not already
            judge.
    """

    def __init__(self, repo: pygit2.Repository, *, base: Any = None,
                 now: datetime | None = None,
                 signed: Callable[[], dict[str, list[Signed]]] | None = None) -> None:
        self.repo = repo
        self.base = base
        self.now = now
        self._signed = signed
        self._held: dict[str, list[Signed]] | None = None
        self._keys: dict[str, set[str] | None] = {}
        self._trust: dict[str, tuple[Trust | None, str]] = {}
        self._policy: dict[str, str] = {}
        self._bases: dict[tuple[str, str], Any] = {}
        self._starts: dict[str, dict[str, datetime]] = {}

    def keyids(self, blob: str | None) -> set[str] | None:
        """Return the keyids a trust file's version lists, read leniently; None: unreadable."""
        if blob is None:
            return None
        if blob not in self._keys:
            data = read_blob(self.repo, blob, layout.TRUST_FILE)
            self._keys[blob] = keyids_in(data) if _readable(data) else None
        return self._keys[blob]

    def trust(self, blob: str) -> tuple[Trust | None, str]:
        """Return a trust file's version as kistore reads it, or None and why it is invalid.

        Read by :meth:`kistore.attest.trust.Trust.from_bytes`, the one validation of the
        file (``schemas/trust-keys.json``, each keyid its key's, no key twice): what
        ``attestations``, ``rank`` and KI309 read.
        """
        if blob not in self._trust:
            data = read_blob(self.repo, blob, layout.TRUST_FILE)
            try:
                self._trust[blob] = (Trust.from_bytes(data), "")
            except KistoreError as e:
                self._trust[blob] = (None, _first_problem(e))
        return self._trust[blob]

    def policy_invalid(self, blob: str) -> str:
        """Return why a policy's version fails KI206's test (:func:`._policy.policy_problems`)."""
        if blob not in self._policy:
            problems = policy_problems(read_blob(self.repo, blob, layout.POLICY_FILE))[1]
            self._policy[blob] = _first_problem(MultipleErrors(problems)) if problems else ""
        return self._policy[blob]

    def merge_base(self, parent: Any, other: Any) -> Any:
        """Return the tree of two commits' merge base, or None (unrelated histories)."""
        pair = (str(parent.id), str(other.id))
        if pair not in self._bases:
            found = self.repo.merge_base(parent.id, other.id)
            self._bases[pair] = None if found is None else self.repo[found].tree
        return self._bases[pair]

    def start(self, parent: Any, keyid: str) -> datetime:
        """Return when a key listed by ``parent``'s trust file (without validFrom) counts from.

        Its first start (:func:`kistore.attest.trust_history.added`); ``parent``'s time when
        the file's first-parent history does not list it (it came by a side line).
        """
        rev = str(parent.id)
        if rev not in self._starts:
            self._starts[rev] = {k: when for k, (when, _c) in added(self.repo, rev).items()}
        return self._starts[rev].get(keyid, _time_of(parent))

    def held(self, pair: tuple[Any, Any], keyid: str) -> list[Signed]:
        """Return what ``keyid`` signed that the repository held when ``pair[0]`` was made.

        An attestation file its parent ``pair[1]`` holds (it entered on the way to the
        commit, whatever the commit's date says), and a note line: at the gate every line
        the notes hold (the change lands now), in history one that entered by the commit's
        own time.
        """
        if self._signed is None:
            return []
        if self._held is None:
            self._held = self._signed()
        commit, parent = pair
        when = None if self.now is not None else _time_of(commit)
        return [s for s in self._held.get(keyid, []) if held_when(
            s.path, s.entered, lambda path: blob_at(self.repo, parent.tree, path) is not None,
            when)]

    def lost(self, pair: tuple[Any, Any], old: TrustedKey, new: TrustedKey) -> Signed | None:
        """Return what the key signed, held at ``pair[0]``, that ``old`` counts and ``new`` not.

        Roles and time windows both weighed (:func:`kistore.attest.signed_by.uncounted`);
        None: nothing.
        """
        held = self.held(pair, new.keyid)
        if not held:
            return None
        start = _start_of(self, pair[1], new.keyid)

        def dated(entry: TrustedKey) -> TrustedKey:
            return entry if entry.valid_from is not None else replace(entry,
                                                                      valid_from=start())

        return uncounted(dated(old), dated(new), held, roles=True)

    def narrows(self, pair: tuple[Any, Any], old: TrustedKey | None, new: TrustedKey) -> str:
        """Return :func:`narrowing` of a key's entry ``old`` -> ``new`` by ``pair``.

        ``pair`` is the commit and the parent compared: judged at the commit's time and the
        gate's clock, against what the key signed that was held then (:meth:`held`).
        """
        commit, parent = pair
        return narrowing(old, new, _time_of(commit), _start_of(self, parent, new.keyid),
                         held=lambda: self.held(pair, new.keyid), now=self.now)


def removals(repo: pygit2.Repository, commits: Iterable[Any], *, read: _Versions | None = None
             ) -> list[Removal]:
    """Return what each commit takes away from the evidence files: deletes, breaks, narrows.

    Args:
        repo: the ``pygit2.Repository``.
        commits: the commits judged (``pygit2.Commit``), each against each parent.
        read: the versions' reader (:class:`_Versions`: the gate's BASE and clock, what
            the keys signed); None: one knowing none of them (history's, without
            attestations: a key's window judged by its commit's time).

    Returns:
        One :class:`Removal` per attestation file (on the layout's path), policy file or
        trust file a commit deletes (or leaves no regular file at); per trust file or
        policy it leaves invalid where its parent's was valid (as
        :meth:`kistore.attest.trust.Trust.from_bytes` and KI206's
        :func:`._policy.policy_problems` read it: a commit whose trust file trusts no key,
        or at which ``rank`` fails); per attestation file whose bytes it changes where its
        parent held them as written; per key whose entry it removes from the trust file
        (keys read leniently, as :func:`kistore.attest.trust_history.keyids_in` reads them)
        or narrows (:func:`narrowing`: a role dropped, a time the key counted before the
        commit, or when an attestation it signed entered, taken away), or whose revocation
        it lifts or moves later (:func:`lifting`); in the order of ``commits``, one per
        commit, file, key and kind (a merge's two parents say one removal once: fresh02
        G3). A merge's difference from one parent that another parent holds too is that
        side's, when the two parents' merge base did not (reported in that side's
        history). A mode change alone is KI114's (every commit of the range, :mod:`._every_commit`).

    Raises:
        ObjectUnreadable: a tree or blob read on the way is damaged.
    """
    found: dict[tuple[str, str, str, str], Removal] = {}
    read = _Versions(repo) if read is None else read
    for commit in commits:
        for parent in commit.parents:
            sides = _sides(read, parent, [o for o in commit.parents if o.id != parent.id])
            for removal in _taken(repo, read, commit, parent, sides):
                found.setdefault((removal.commit, removal.path, removal.keyid, removal.kind),
                                 removal)
    return list(found.values())


def _sides(read: _Versions, parent: Any, others: list[Any]) -> Callable[[Any, Any], bool]:
    """Return ``sides(merge_is, base_was)``: whether a merge's change is another side's.

    Another parent's tree is as the merge's is (``merge_is(tree)``) and that parent's
    merge base with ``parent`` was not (``base_was(tree)``): that side's own commits made
    the change, and say so. Otherwise (no such parent; the base lacked what is compared)
    the change is the merge's own.
    """
    def sides(merge_is: Callable[[Any], bool], base_was: Callable[[Any], bool]) -> bool:
        for other in others:
            if merge_is(other.tree):
                base = read.merge_base(parent, other)
                if base is not None and base_was(base):
                    return True
        return False

    return sides


def _taken(repo: pygit2.Repository, read: _Versions, commit: Any, parent: Any,
           sides: Callable[[Any, Any], bool]) -> list[Removal]:
    """Return the :class:`Removal` of ``commit`` against one parent (see :func:`removals`)."""
    found = []
    for directory in DIRECTORIES:
        old = treediff.subtree_id(repo, parent.tree, directory)
        new = treediff.subtree_id(repo, commit.tree, directory)
        if old is None or old == new:
            continue
        for path in sorted(treediff.changed_leaves(repo, old, new, directory + "/",
                                                   added=False)):
            if _judged(path):
                found += _file_taken(repo, read, (commit, parent), path, sides)
    return found


def _file_taken(repo: pygit2.Repository, read: _Versions, pair: tuple[Any, Any], path: str,
                sides: Callable[[Any, Any], bool]) -> list[Removal]:
    """Return what ``pair`` (a commit and one parent) takes away of the judged file ``path``."""
    commit, parent = pair
    was, now = (blob_at(repo, c.tree, path) for c in (parent, commit))
    if was is None or was == now:
        return []  # added, or a mode changed alone (KI114's, every commit)
    ids = (str(commit.id), str(parent.id), path)
    if now is None:
        if sides(lambda t: blob_at(repo, t, path) is None,
                 lambda t: blob_at(repo, t, path) is not None):
            return []
        return [Removal(*ids, was=was)]
    if path == layout.TRUST_FILE:
        return _trust_taken(repo, read, pair, (was, now), sides)
    if path == layout.POLICY_FILE:
        why = read.policy_invalid(now)
        if not why or read.policy_invalid(was) or sides(
                lambda t: _policy_invalid_in(repo, read, t),
                lambda t: not _policy_invalid_in(repo, read, t)):
            return []
        return [Removal(*ids, invalid=why, was=was, now=now)]
    if not _as_written(repo, path, was) or sides(
            lambda t: blob_at(repo, t, path) == now,
            lambda t: blob_at(repo, t, path) not in (None, now)):
        return []
    return [Removal(*ids, rewritten=True, was=was, now=now)]


def _trust_taken(repo: pygit2.Repository, read: _Versions, pair: tuple[Any, Any],
                 blobs: tuple[str, str], sides: Callable[[Any, Any], bool]) -> list[Removal]:
    """Return what a commit takes from the trust file against one parent (both hold it).

    The file made invalid (said alone: it trusts no key); else each key whose entry it
    removes (read leniently) and, both versions valid, each entry it narrows.
    """
    commit, parent = pair
    was, now = blobs
    path = layout.TRUST_FILE
    ids = (str(commit.id), str(parent.id), path)
    (before, _), (after, why) = read.trust(was), read.trust(now)
    if before is not None and after is None:
        if sides(lambda t: _trust_invalid_in(repo, read, t),
                 lambda t: not _trust_invalid_in(repo, read, t)):
            return []
        return [Removal(*ids, invalid=why, was=was, now=now)]
    found = []
    for keyid in sorted((read.keyids(was) or set()) - (read.keyids(now) or set())):
        if not _key_sides(repo, read, keyid, sides):
            found.append(Removal(*ids, keyid=keyid, was=was, now=now))
    if before is None or after is None:
        return found
    when = _time_of(commit)
    for keyid in sorted(set(before.keys) & set(after.keys)):
        entry = after.keys[keyid]
        said = read.narrows(pair, before.keys[keyid], entry)
        if said and not _narrowed_sides(repo, read, entry, when, sides) and \
                not _given_back(repo, read, pair, entry):
            found.append(Removal(*ids, keyid=keyid, narrowed=said, was=was, now=now))
        lifted = lifting(before.keys[keyid], entry)
        if lifted and not _lifted_sides(repo, read, entry, sides):
            found.append(Removal(*ids, keyid=keyid, lifted=lifted, was=was, now=now))
    return found


def _key_sides(repo: pygit2.Repository, read: _Versions, keyid: str,
               sides: Callable[[Any, Any], bool]) -> bool:
    """Whether a merge's lack of ``keyid``'s entry is another side's removal."""
    def listed(tree: pygit2.Tree) -> bool:
        return keyid in (read.keyids(blob_at(repo, tree, layout.TRUST_FILE)) or set())

    return sides(lambda t: not listed(t), listed)


def _narrowed_sides(repo: pygit2.Repository, read: _Versions, entry: TrustedKey,
                    when: datetime, sides: Callable[[Any, Any], bool]) -> bool:
    """Whether a merge's narrowed ``entry`` is another side's (that side narrowed it)."""
    return sides(lambda t: _entry_in(repo, read, t, entry.keyid) == entry,
                 lambda t: bool(narrowing(_entry_in(repo, read, t, entry.keyid), entry, when,
                                          lambda: when)))


def _lifted_sides(repo: pygit2.Repository, read: _Versions, entry: TrustedKey,
                  sides: Callable[[Any, Any], bool]) -> bool:
    """Whether a merge's lifted revocation in ``entry`` is another side's (that side lifted it)."""
    return sides(lambda t: _entry_in(repo, read, t, entry.keyid) == entry,
                 lambda t: bool(lifting(_entry_in(repo, read, t, entry.keyid), entry)))


def _given_back(repo: pygit2.Repository, read: _Versions, pair: tuple[Any, Any],
                entry: TrustedKey) -> bool:
    """Whether ``entry`` only takes back what its parent gave the key, and that never landed.

    Two undos narrow nothing that counted: at the gate, a commit whose parent is of the
    range (not BASE) and whose entry narrows nothing of BASE's (the range gave it and takes
    it back before it lands); anywhere, a commit restoring a role or a time that its
    parent took (fresh02 G1's second commit: ``roles rerun -> maintainer`` after
    ``maintainer -> rerun``), compared with the parent's first parent: that narrowing is
    the one said. A commit taking back what its parent *gave* (a ``git revert`` of a role
    granted on main, a merge or a plain edit taking an older file: fresh04 H3) is neither:
    its narrowing stands, as the key's attestations that entered meanwhile stop counting.
    History (``verify``) knows no BASE, nor which commits were main's tip: there such a
    commit is said when an attestation the key signed, held by its time, counted under the
    parent's entry and counts no more (a branch that gave and took back before it landed,
    which the gate's BASE rule lets through, is not warned of for good).
    """
    parent = pair[1]
    base = read.base
    if base is not None and parent.id != base.id and not read.narrows(
            pair, _entry_in(repo, read, base.tree, entry.keyid), entry):
        return True
    between = _entry_in(repo, read, parent.tree, entry.keyid)
    if between is None:
        return False
    first = parent.parents[0] if parent.parents else None
    before = None if first is None else _entry_in(repo, read, first.tree, entry.keyid)
    if before is not None:
        if read.narrows(pair, before, entry):
            return False  # it narrows what the key held before its parent too
        if narrowing(before, between, _time_of(parent), _start_of(read, first, entry.keyid)):
            return True  # the undo of the parent's narrowing, said of the parent
    return base is None and read.lost(pair, between, entry) is None


def _start_of(read: _Versions, parent: Any, keyid: str) -> Callable[[], datetime]:
    """Return ``start()`` of :func:`narrowing`: when ``keyid`` counts from, at ``parent``."""
    return lambda: read.start(parent, keyid)


def narrowing(old: TrustedKey | None, new: TrustedKey, when: datetime,
              start: Callable[[], datetime], *,
              held: Callable[[], list[Signed]] | None = None,
              now: datetime | None = None) -> str:
    """Say what a change of a key's entry takes back of what the key counted for before ``when``.

    Trust is never narrowed after the fact (fresh02 G1): dropping a role, setting a
    ``validUntil`` (or moving it earlier) to before the change, setting a ``validFrom``
    (or moving it later) after when the key counted from, or removing a ``validFrom``
    earlier than the key's start (it then counts from that start), un-counts what the key signed
    and entered meanwhile (a maintainer's withdrawal stops withdrawing, and its run ranks
    again), as removing the entry does (KI410). A revocation (``revokedAt``) is how trust
    ends, and is permanent (KI412); it is not judged here (:func:`lifting` is).

    The commit's date is the submitter's to write (KI428 lets it lie up to a day before
    its parent): a ``validUntil`` after it is also a narrowing when it falls before an
    attestation the key signed had entered (``held``: those times cannot lie), or before
    the gate's clock (``now``: the change lands then; fresh04 H1).

    Args:
        old: the entry before (None: no entry: nothing to narrow).
        new: the entry after.
        when: the changing commit's time (UTC): a ``validUntil`` at or after it takes
            nothing back (what entered before it still counts).
        start: when a key without ``validFrom`` counts from (its first start), asked only
            when ``new`` sets one on such a key, or ``held`` is weighed.
        held: the key's attestations the repository held at the change
            (:class:`kistore.attest.signed_by.Signed`), asked only for a window the times above do
            not judge; None: none weighed.
        now: the gate's clock (UTC), or None (history: not known).

    Returns:
        What narrowed (``roles maintainer, rerun -> rerun; validUntil none ->
        2026-01-01T00:00:00Z, before the change``), or ``""`` when nothing the key
        counted for is taken back (a key that did not count yet: its ``validFrom`` at or
        after ``when`` and ``now``, and none of ``held`` counted by it). Raises nothing
        but what ``start`` and ``held`` raise.
    """
    if old is None:
        return ""

    def dated(entry: TrustedKey) -> TrustedKey:
        return entry if entry.valid_from is not None else replace(entry, valid_from=start())

    latest = when if now is None else max(when, now)
    if old.valid_from is not None and old.valid_from >= latest and (
            held is None or counted_any(old, held()) is None):
        return ""
    said = []
    if set(old.roles) - set(new.roles):
        said.append(f"roles {', '.join(old.roles)} -> {', '.join(new.roles) or 'none'}")
    until = new.valid_until
    if until is not None and (old.valid_until is None or until < old.valid_until):
        lost = None if until < when or held is None else uncounted(
            dated(old), dated(replace(old, valid_until=until)), held())
        if until < when:
            said.append(f"validUntil {_shown(old.valid_until)} -> {format_time(until)}, "
                        "before the change")
        elif lost is not None:
            said.append(f"validUntil {_shown(old.valid_until)} -> {format_time(until)}, "
                        f"before {lost_said(lost, until)}")
        elif now is not None and until < now:
            said.append(f"validUntil {_shown(old.valid_until)} -> {format_time(until)}, "
                        f"before the gate's clock ({format_time(now)}), when it lands")
    since = new.valid_from
    if since is not None and old.valid_from is not None and since > old.valid_from:
        said.append(f"validFrom {format_time(old.valid_from)} -> {format_time(since)}")
    elif since is not None and old.valid_from is None and since > (first := start()):
        said.append(f"validFrom none (from when it entered the trust file, "
                    f"{format_time(first)}) -> {format_time(since)}")
    elif since is None and old.valid_from is not None and (first := start()) > old.valid_from:
        # Removed, a validFrom before the key's start moves it later, to that start
        # (fresh06 H1): what the key signed between the two stops counting.
        said.append(f"validFrom {format_time(old.valid_from)} -> none (from when it entered "
                    f"the trust file, {format_time(first)})")
    return "; ".join(said)


def lifting(old: TrustedKey | None, new: TrustedKey) -> str:
    """Say how a change of a key's entry lifts its revocation, or moves it later ("": not).

    A revocation is permanent (KI412): the gate held HEAD's file to every earlier version,
    so a commit lifting one and the next putting it back passed (fresh04 L1), yet at that
    commit the key's entry says it signs again. Returns ``revokedAt X -> none`` (or
    ``-> Y``, a later time); raises nothing.
    """
    if old is None or old.revoked_at is None or (
            new.revoked_at is not None and new.revoked_at <= old.revoked_at):
        return ""
    return f"revokedAt {format_time(old.revoked_at)} -> {_shown(new.revoked_at)}"


def _shown(when: datetime | None) -> str:
    """Return an instant as the trust file writes it, or ``none``."""
    return "none" if when is None else format_time(when)


def _time_of(commit: Any) -> datetime:
    """Return a commit's committer time (UTC)."""
    return datetime.fromtimestamp(commit.commit_time, UTC)


def _trust_invalid_in(repo: pygit2.Repository, read: _Versions, tree: pygit2.Tree) -> bool:
    """Whether ``tree`` holds a trust file kistore reads as invalid."""
    blob = blob_at(repo, tree, layout.TRUST_FILE)
    return blob is not None and read.trust(blob)[0] is None


def _policy_invalid_in(repo: pygit2.Repository, read: _Versions, tree: pygit2.Tree) -> bool:
    """Whether ``tree`` holds a ranking policy KI206 refuses."""
    blob = blob_at(repo, tree, layout.POLICY_FILE)
    return blob is not None and bool(read.policy_invalid(blob))


def _entry_in(repo: pygit2.Repository, read: _Versions, tree: pygit2.Tree, keyid: str
              ) -> TrustedKey | None:
    """Return ``keyid``'s entry in ``tree``'s trust file (None: no valid file, no entry)."""
    blob = blob_at(repo, tree, layout.TRUST_FILE)
    trust = None if blob is None else read.trust(blob)[0]
    return None if trust is None else trust.keys.get(keyid)


def _as_written(repo: pygit2.Repository, path: str, blob: str) -> bool:
    """Whether an attestation file's version hashes to its name (as ``attest --file`` wrote it).

    A version that does not (KI305 already) may be mended: its change takes nothing away.
    """
    parsed = parse_attestation_path(path)
    return parsed is not None and hashlib.sha256(
        read_blob(repo, blob, path)).hexdigest() == parsed[1]


def _first_problem(error: KistoreError) -> str:
    """Return an invalid file's first problem, as a message says it (pointer, words, count)."""
    problems = error.problems
    first = problems[0]
    said = f"{first.pointer}: {first.message}" if first.pointer else first.message
    return said + (f"; and {len(problems) - 1} more problem(s)" if len(problems) > 1 else "")


def _judged(path: str) -> bool:
    """Whether ``path`` is a file judged here: the trust file, the policy, an attestation file.

    An attestation file on the layout's path only: a file off it is KI110's.
    """
    return path in (layout.TRUST_FILE, layout.POLICY_FILE) or (
        path.startswith(layout.ATTESTATIONS_DIR + "/") and parse_attestation_path(path)
        is not None)


def _readable(data: bytes) -> bool:
    """Whether one version of the trust file reads as an object with a ``keys`` list."""
    try:
        doc = loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(doc, dict) and isinstance(doc.get("keys"), list)


def evidence_kept(store: Store, commits: list[Any], base: Base, ends: tuple[Any, Any],
                  now: datetime | None = None) -> list[Finding]:
    """KI410 per commit of a range that takes evidence away (:func:`removals`).

    What the net diff shows (a file HEAD lacks: :func:`kistore.check.gate._removed_evidence`;
    a trust file or policy HEAD holds invalid: KI309, KI206; an attestation file HEAD holds
    with other bytes: KI305; a revoked key HEAD no longer lists: KI412,
    :func:`.lineage.revocations_kept`) is said there, once; this says the rest: a file, a
    valid version, a key's entry a later commit put back (HEAD holds it again, the net diff
    is empty), an unrevoked key's entry HEAD lacks, and an entry HEAD holds narrowed.

    Args:
        store: the :class:`kistore.store.Store` checked.
        commits: the range's commits (``pygit2.Commit``), newest first.
        base: the gate's BASE (:class:`._fixes.Base`): the fixes name it.
        ends: BASE's and HEAD's commits (``pygit2.Commit``).
        now: the gate's clock (aware; the push's in pre-receive); None: this machine's. A
            change of a key's entry lands then: a ``validUntil`` before it is a narrowing.

    Returns:
        KI410 findings on the file (``extra``: ``commit``, ``parent``, ``keyid`` for a key's
        entry, ``change`` for a file made invalid, rewritten or an entry narrowed,
        ``restored``), each fix the branch's: drop the commits that changed the file
        (``git rebase -i BASE``), or in the pre-commit hook restore the staged file.

    Raises:
        ObjectUnreadable: a tree or blob read on the way is damaged.
    """
    repo = store.repo
    read = _Versions(repo, base=ends[0], now=datetime.now(UTC) if now is None else now,
                     signed=lambda: signed_held(store, str(ends[1].id)))
    found = removals(repo, commits, read=read)
    between = _policies_between(repo, commits, base, ends)
    if not found:
        return between
    at_head = _Head(read, ends[1])
    revoked: dict[str, Any] | None = None
    told = []
    for removal in found:
        restored = at_head.restored(removal)
        if restored is None:
            continue  # said of HEAD (the net diff's KI410, KI309, KI206, KI305)
        if removal.kind == "key-removed" and not restored:
            if revoked is None:
                revoked = ever_revoked(repo, str(ends[0].id), _range_versions(repo, commits))
            if removal.keyid in revoked:
                continue  # a revoked key's entry gone from HEAD: KI412 says it
        told.append(replace(_finding(removal, restored, "range"),
                            fix=_gate_fix(repo, commits, removal, restored, base)))
    return told + between


POLICY_BETWEEN = replace(APPEND_ONLY_REMOVED, name="policy-held-by-neither-end")
"""KI410 of a commit of the range ranking by a policy neither end holds: an error where no
review happens, a push (``check --updates``: pre-receive, pre-push; fresh06 L4: a direct
push to main landed a commit ranking a family upside down, a warning being a pass), a
warning elsewhere (:data:`POLICY_BETWEEN_REVIEWED`). Named for what it says, not
"append-only-file-removed" (fresh06 L5)."""

POLICY_BETWEEN_REVIEWED = replace(POLICY_BETWEEN, severity=WARNING)
"""KI410 of a policy neither end holds where a reviewer reads the range: ``check
BASE..HEAD`` (the pull request's check), ``check --landed`` and ``check --staged``."""

_RANKS_BY = ("comparison", "metric", "order", "unit", "unitPointer")
"""The fields of a policy family that decide a ranking (``notes`` and the description do not)."""


def _policies_between(repo: pygit2.Repository, commits: list[Any], base: Base,
                      ends: tuple[Any, Any]) -> list[Finding]:
    """KI410 (a warning) per commit of the range whose policy ranks otherwise than both ends.

    A policy flipped in one commit and restored in the next (fresh02 G1 addendum) had no
    finding: the net diff is empty, so KI415 lists nothing, yet ``rank --at`` that commit
    ranks the family upside down on main's history (a single commit's change is KI415's
    info, which a reviewer reads). Each version a commit of the range brings (its policy
    differing from each parent's) that ranks some family otherwise than BASE's and HEAD's
    do is said, with the families and fields; an invalid version is KI410's error
    (:func:`removals`), a policy either end lacks or holds invalid is not compared.
    The cost: a blob id a commit and parent; the ends' policies and each version read
    and parsed only when a commit of the range changes the file.

    Returns:
        The warnings, newest commit first; fix: squash or drop the commits.
    """
    changing = changing_commits(repo, commits, layout.POLICY_FILE)
    if not changing:
        return []
    ranked = [_ranking(repo, end.tree) for end in ends]
    if any(r is None for r in ranked):
        return []
    told = []
    for commit in changing:
        ranking = _ranking(repo, commit.tree)
        if ranking is None or ranking in ranked:
            continue
        said = _ranking_said(ranking, ranked[1] or {})
        changed = [str(c.id)[:12] for c in reversed(changing)]
        who = str(commit.id)
        told.append(Finding(
            POLICY_BETWEEN_REVIEWED, f"commit {who[:12]} ranks by a policy neither BASE nor HEAD "
            f"holds ({said}): the net diff a reviewer reads does not show it, yet `rank "
            "--at`, `export --at` and `site build --at` that commit rank by it",
            file=layout.POLICY_FILE, expected="BASE's or HEAD's ranking",
            found=said, extra={"commit": who},
            fix=(f"squash the commits that changed the policy ({', '.join(changed)}) so "
                 f"that each commit of the branch ranks as BASE or HEAD does "
                 f"({base.rebase()}, `squash` or `fixup` them into the last), or drop "
                 f"the ones the range undoes{_FOR_GOOD}")))
    return told


_FOR_GOOD = ("; on a branch already merged the history cannot change, and this warning says "
             "so for good")
"""How the fix of :data:`POLICY_BETWEEN_REVIEWED` ends (a warning: a reviewer read it)."""


def pushed_unreviewed(findings: list[Finding]) -> list[Finding]:
    """Make each KI410 of a policy neither end holds an error: the range is a push (fresh06 L4).

    A push to a protected branch (``check --updates``: ``pre-receive``, ``pre-push``) lands
    the range with no reviewer reading it, and a warning is a pass there: a policy whose
    ``order`` was flipped in one commit and restored in the next landed on main by a
    direct push, and ``rank --at`` that commit ranked the family upside down. A pull
    request's check keeps the warning (its reviewer reads it before merging).

    Args:
        findings: a range's findings (:func:`kistore.check.gate.check_range`).

    Returns:
        ``findings``, each :data:`POLICY_BETWEEN_REVIEWED` one made :data:`POLICY_BETWEEN`
        (an error), its message saying why and its fix ending in a push again. Raises
        nothing.
    """
    return [replace(f, rule=POLICY_BETWEEN, message=f"{f.message}; pushed to the protected "
                    "branch, it lands with no review (a pull request's check warns of it, "
                    "for its reviewer): refused",
                    fix=(f.fix or "").replace(_FOR_GOOD, ", then push again"))
            if f.rule is POLICY_BETWEEN_REVIEWED else f for f in findings]


def _ranking_said(ranking: dict[str, dict[str, Any]], head: dict[str, dict[str, Any]]) -> str:
    """Say each family ``ranking`` ranks otherwise than ``head``: its fields, then HEAD's."""
    said = []
    for family in sorted(set(ranking) | set(head)):
        mine, theirs = ranking.get(family, {}), head.get(family, {})
        keys = [k for k in _RANKS_BY if mine.get(k) != theirs.get(k)]
        if keys:
            said.append(f"{family}: " + ", ".join(f"{k} {mine.get(k, 'none')}" for k in keys)
                        + " (HEAD: " + ", ".join(f"{k} {theirs.get(k, 'none')}" for k in keys)
                        + ")")
    return "; ".join(said)


def _ranking(repo: pygit2.Repository, tree: pygit2.Tree) -> dict[str, dict[str, Any]] | None:
    """Return what a tree's valid policy ranks by: family -> its ranking fields; None: none."""
    blob = blob_at(repo, tree, layout.POLICY_FILE)
    if blob is None:
        return None
    document, problems = policy_problems(read_blob(repo, blob, layout.POLICY_FILE))
    if problems:
        return None
    return {family: {k: entry[k] for k in _RANKS_BY if k in entry}
            for family, entry in document["families"].items() if isinstance(entry, dict)}


def check_evidence_history(store: Store, at: str | None = None) -> list[Finding]:
    """KI410 (a warning) per commit of the history of ``at`` that took evidence away.

    ``verify``'s: a store whose history landed before the gate judged every commit (a
    delete-and-restore of the trust file pushed through the old gate, fresh01 F7; a trust
    file made invalid, an attestation file rewritten, a key's entry narrowed, fresh02 G7,
    G7b, G1) is told which commit did what; what HEAD answers holds regardless (a key
    counts from the first commit that trusted it, an attestation file from the first
    commit holding it). Said elsewhere and left out here: the policy HEAD lacks (KI207), a
    revoked key's entry HEAD lacks (KI412), a trust file or policy HEAD holds invalid
    (KI309, KI206), an attestation file HEAD holds with other bytes (KI305). Every commit
    of the history is read against each parent (three subtree ids; more only where the
    evidence directories differ): O(history), as the name check
    (:func:`.lineage.check_names`).

    Args:
        store: a :class:`kistore.store.Store`.
        at: a revision, or None for ``HEAD`` (the work tree's own changes are the
            contents check's).

    Returns:
        The warnings, oldest commit last (history order, newest first); none in a
        repository without commits.
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    head = store.commit(at or "HEAD")
    read = _Versions(repo, signed=lambda: signed_held(store, str(head.id)))
    found = removals(repo, ancestry(repo, head), read=read)
    if not found:
        return []
    where = at or "HEAD"
    at_head = _Head(read, head)
    revoked = None
    told = []
    for removal in found:
        restored = at_head.restored(removal)
        if restored is None and removal.kind == "deleted" and removal.path != \
                layout.POLICY_FILE:
            restored = False  # an attestation file or the trust file HEAD lacks: said here
        if restored is None:
            continue  # KI207, KI309, KI206, KI305 say it of HEAD
        if removal.kind == "key-removed" and not restored:
            revoked = ever_revoked(repo, str(head.id)) if revoked is None else revoked
            if removal.keyid in revoked:
                continue  # KI412
        finding = _finding(removal, restored, "history")
        told.append(replace(finding, rule=LIFTED_IN_HISTORY if removal.kind == "unrevoked"
                            else replace(_rule_of(removal), severity=WARNING),
                            fix=_history_fix(removal, restored, where)))
    return told


class _Head:
    """What HEAD (the tree judged) holds of what a commit took away (read as ``read`` reads)."""

    def __init__(self, read: _Versions, head: Any) -> None:
        self.repo = repo = read.repo
        self.head = head
        self.tree = head.tree
        self.read = read
        self.keys = self.read.keyids(blob_at(repo, self.tree, layout.TRUST_FILE))

    def restored(self, removal: Removal) -> bool | None:
        """Whether HEAD holds again what ``removal`` took away; None: HEAD's own finding says it.

        None: HEAD lacks the file (the net diff's KI410; the policy: KI207), or holds the
        trust file or policy invalid (KI309, KI206), or the attestation file with other
        bytes (KI305).
        """
        blob = blob_at(self.repo, self.tree, removal.path)
        if blob is None:
            return None
        kind = removal.kind
        if kind == "key-removed":
            return removal.keyid in (self.keys or set())
        if kind == "invalid":
            bad = (self.read.trust(blob)[0] is None if removal.path == layout.TRUST_FILE
                   else bool(self.read.policy_invalid(blob)))
            return None if bad else True
        if kind == "rewritten":
            return True if blob == removal.was else None
        if kind == "narrowed":
            trust = self.read.trust(blob)[0]
            if trust is None:
                return None
            before = self.read.trust(removal.was)[0]
            old = None if before is None else before.keys.get(removal.keyid)
            new = trust.keys.get(removal.keyid)
            pair = (self.repo[removal.commit], self.repo[removal.parent])
            return new is not None and not self.read.narrows(pair, old, new)
        if kind == "unrevoked":
            trust = self.read.trust(blob)[0]
            before = self.read.trust(removal.was)[0]
            new = None if trust is None else trust.keys.get(removal.keyid)
            old = None if before is None else before.keys.get(removal.keyid)
            # HEAD revoking it as early: said here; else KI412 says it of HEAD
            return True if new is not None and not lifting(old, new) else None
        return True


def _range_versions(repo: pygit2.Repository, commits: list[Any]) -> list[tuple[str, bytes]]:
    """Return ``(commit id, bytes)`` of the trust file each commit of the range holds."""
    versions = []
    for commit in commits:
        blob = blob_at(repo, commit.tree, layout.TRUST_FILE)
        if blob is not None:
            versions.append((str(commit.id), read_blob(repo, blob, layout.TRUST_FILE)))
    return versions


_DONE = {layout.TRUST_FILE: "deletes the trust file: at that commit no key is trusted, so "
                            "every maintainer withdrawal and trusted rerun stops counting there",
         layout.POLICY_FILE: "deletes the ranking policy: at that commit `kistore rank` falls "
                             "back to the shipped default policy"}
"""What a commit deleting the trust file or the policy did, as the message says it."""


def _done(removal: Removal) -> str:
    """Return what the commit did, as KI410's message says it (after ``commit X``)."""
    kind = removal.kind
    if kind == "key-removed":
        return (f"removes the entry of key {removal.keyid} from the trust file: at that "
                "commit what the key signed counts for nothing, and a key's entry is never "
                "removed (trust ends by a revocation, `kistore trust revoke`, which KI412 "
                "keeps)")
    if kind == "narrowed":
        return (f"narrows the entry of key {removal.keyid} in the trust file "
                f"({removal.narrowed}): at that commit what the key signed before counts "
                "no more for what was taken (a withdrawal it signed stops withdrawing its "
                "run), and a key's trust is never narrowed after the fact, as its entry is "
                "never removed (trust ends by a revocation, `kistore trust revoke`, which "
                "KI412 keeps)")
    if kind == "unrevoked":
        return (f"lifts the revocation of key {removal.keyid} in the trust file "
                f"({removal.lifted}): at that commit its entry says the key signs again, "
                "and a revocation is permanent (KI412)")
    if kind == "invalid" and removal.path == layout.TRUST_FILE:
        return (f"leaves the trust file invalid ({removal.invalid}): at that commit no key "
                "is trusted (KI309 there), so every maintainer withdrawal and trusted rerun "
                "stops counting there")
    if kind == "invalid":
        return (f"leaves the ranking policy invalid ({removal.invalid}): at that commit "
                "every `kistore rank` fails (KI206 there)")
    if kind == "rewritten":
        return ("rewrites this attestation file (its name is the sha256 of the bytes "
                "written, and an attestation file is never changed): at that commit it "
                "no longer verifies (KI305 there) and what it says counts for nothing (a "
                "run it withdraws ranks again there)")
    return _DONE.get(removal.path, "deletes this attestation file: at that commit what it "
                                   "says counts for nothing (a run it withdraws ranks again "
                                   "there)")


def _finding(removal: Removal, restored: bool, seen: str) -> Finding:
    """Return the KI410 finding of ``removal`` (its fix left to the caller).

    Args:
        removal: what the commit took away.
        restored: HEAD holds it again.
        seen: ``"range"`` (the gate) or ``"history"`` (``verify``): how the message ends.
    """
    who = f"commit {removal.commit[:12]}"
    done = _done(removal)
    kind = removal.kind
    if restored:
        later = ("a later commit of the range puts it back (HEAD holds it again), but" if
                 seen == "range" else "a later commit put it back, and what HEAD answers "
                 "holds (a key counts from the first commit that trusted it), but")
        done += (f"; {later} {who} stays in the history, " + (
            "whose file lifts it there (`verify --at` it says KI412; queries hold every "
            "revocation its history made)" if kind == "unrevoked" else "where `rank --at`, "
            "`ls --at` and a checkout of it answer without it"))
    expected, found = {
        "key-removed": (f"key {removal.keyid} listed", "no entry"),
        "narrowed": (f"key {removal.keyid}'s entry as its parent holds it",
                     f"narrowed ({removal.narrowed})"),
        "unrevoked": (f"key {removal.keyid}'s revocation as its parent holds it",
                      f"lifted ({removal.lifted})"),
        "invalid": ("a valid trust file" if removal.path == layout.TRUST_FILE else
                    "a valid ranking policy", f"an invalid file ({removal.invalid})"),
        "rewritten": (f"blob {removal.was}", f"blob {removal.now}"),
    }.get(kind, ("the file", "no file"))
    change = {"narrowed": removal.narrowed, "unrevoked": removal.lifted,
              "invalid": removal.invalid, "rewritten": "rewritten"}.get(kind)
    return Finding(_rule_of(removal), f"{who} {done}", file=removal.path,
                   expected=expected, found=found,
                   extra={"commit": removal.commit, "parent": removal.parent,
                          **({"keyid": removal.keyid} if removal.keyid else {}),
                          **({"change": change} if change else {}),
                          "restored": restored})


def _gate_fix(repo: pygit2.Repository, commits: list[Any], removal: Removal,
              restored: bool, base: Base) -> str:
    """Return the gate's fix of ``removal``: drop the commits of the branch that did it.

    The commits named are the removing one (a merge too, which differs from one parent
    only: fresh02 G2 named the restoring commit "the commit that removed it") and every
    other commit of the range that changed the file, in history order.
    """
    kind = removal.kind
    what, held, then = {
        "key-removed": (f"key {removal.keyid}'s entry removed", f"key {removal.keyid}'s entry",
                        _REVOKE.format(keyid=removal.keyid)),
        "narrowed": (f"key {removal.keyid}'s entry narrowed",
                     f"key {removal.keyid}'s entry as it was",
                     _REVOKE.format(keyid=removal.keyid) + "; a role or a time is never "
                     "taken back from a key's entry: revoke the key and trust the holder's "
                     "new key for what it keeps"),
        "unrevoked": (f"key {removal.keyid}'s revocation lifted",
                      f"key {removal.keyid}'s revocation", "a revocation is permanent: "
                      "keep the revoked key's entry with its revokedAt (an earlier time is "
                      "fine)"),
        "invalid": ("the trust file made invalid" if removal.path == layout.TRUST_FILE else
                    "the ranking policy made invalid",
                    "a valid trust file" if removal.path == layout.TRUST_FILE else
                    "a valid ranking policy",
                    "the trust file and the policy are valid at every commit (`kistore verify "
                    "--at COMMIT` says KI309 or KI206 of one that is not)"),
        "rewritten": ("this attestation file rewritten", "this file as it was written",
                      "an attestation file is never changed: answer it with another "
                      "attestation (a dispute)"),
    }.get(kind, ("this file deleted", "this file",
                 "attestation files, the trust file and the policy are never deleted"))
    if base.staged:
        return staged_fix(what, removal.path, then)
    changing = {str(c.id) for c in changing_commits(repo, commits, removal.path)}
    changed = [str(c.id) for c in reversed(commits)
               if str(c.id) in changing or str(c.id) == removal.commit]
    if restored:
        return restored_fix(changed, "HEAD", base.rebase(), held, "it",
                            "the commit that changed it" if kind in ("narrowed", "invalid",
                                                                     "rewritten", "unrevoked")
                            else "the commit that removed it", listed=len(changed) > 1)
    return rebase_fix(what, [removal.commit], "putting it back", "the change" if kind ==
                      "narrowed" else "the removal", "KI410", removal.path, base.rebase_args,
                      then)


_REVOKE = ("to stop trusting a key, revoke it in a new commit instead: `kistore trust revoke "
           "{keyid}` (from now: nothing it signs from then on counts, and what it signed that "
           "entered before stays counted; `--at` an earlier time is no way around this: it "
           "un-counts what entered since, a withdrawal included, and is for a leaked key, "
           "`kistore check` warning of each, KI413)")
"""The way trust ends, as KI410's fix of a key's entry removed or narrowed says it."""


def _history_fix(removal: Removal, restored: bool, where: str) -> str:
    """Return ``verify``'s fix of ``removal`` (no BASE known: :data:`._fixes.REBASE_BASE`)."""
    drop = (f"in a branch not yet merged, drop the commits that removed and restored it "
            f"({REBASE_BASE}); on a branch already merged history cannot change, and this "
            "warning says so for good")
    if restored:
        return f"nothing to do at {where}, which holds it again: {drop}"
    if removal.kind == "narrowed":
        return (f"nothing to do if the narrowing was meant: at {where} what the key signed "
                "before counts no more for what was taken. Widening the entry back (a "
                "reviewed pull request; the gate lists what then counts, KI427) makes it "
                "count again; trust ends by `kistore trust revoke` instead; " + drop)
    if removal.keyid:
        return (f"nothing to do: the key counts for nothing at {where}. Adding it back "
                "(`kistore trust add`) makes it count from the first commit that trusted it, "
                "so what it signed meanwhile counts too (the gate lists it, KI427); "
                + drop)
    return (f"restore it from the commit before the deletion: `git checkout "
            f"{removal.parent[:12]} -- {removal.path}`, and commit it (an attestation file "
            "counts from the first commit that held it); " + drop)
