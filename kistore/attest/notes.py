r"""Where attestation bundles live: git notes and ``store/attestations/`` files (docs/design.md §5).

Two transports, verified identically (a signed bundle is self-authenticating):

* **Notes**: a note under :data:`NOTES_REF` on the git blob of the subject's object file
  (``git hash-object`` of its bytes; stable, since objects never change). The note is JSON
  Lines: one bundle per line (its RFC 8785 bytes), sorted bytewise, unique, each line ending
  in ``\n`` -- exactly what ``git notes merge -s cat_sort_uniq`` produces, so merging two
  clones' notes loses nothing.
* **Files** (for pull requests, which cannot carry notes):
  ``store/attestations/sha256/XX/REST/<sha256 of the bundle>.json`` where ``XX`` + ``REST``
  is the subject's hex digest (as :func:`kistore.core.layout.object_path` splits it) and the file
  holds the bundle's canonical bytes, so ``sha256sum`` of the file equals its name.
  :func:`sync` attaches every such file as a note.

Entry time (when an attestation first entered the repository; trust windows are judged at
it): for a note line, the earliest time of a notes commit holding the line; for a file, the
time of the first commit (on the branch read) holding the path; for an uncommitted file,
now. A commit's time is its committer date, raised to the latest committer date of its
ancestors (:class:`Clock`): a commit cannot have been made before the commits it is built
on, so one dated earlier than its parent is not believed. Dates are still what committers
wrote; what stops a revoked key's holder from backdating a new attestation is the gate
(:mod:`kistore.check.gate` refuses a new attestation by a key trust does not accept at the time
of the push) and :mod:`kistore.attest.evidence` judging revocation also at the payload's own
signed dates (docs/attestations.md, "Which dates are trusted").

This module uses pygit2 for reading and writing notes and the ``git`` binary for fetch,
push and ``git notes merge -s cat_sort_uniq``.

In a partial clone (``git clone --filter=blob:none``) the note blobs may not be here:
libgit2 cannot fetch a blob it lacks, and git would fetch them one ``git fetch`` per blob.
Whoever reads the notes history (:func:`notes_entered`, :func:`fetch`) first fetches every
note blob the clone lacks in one ``git fetch`` (:func:`kistore.git.blobs.fetch_blobs`);
:func:`fetch` asks for the notes unfiltered, so that a fresh fetch brings its blobs along.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core import canonical, layout
from ..core.digest import Digest, is_digest
from ..core.errors import InputError, StoreStateError, printable, shorten
from ..core.layout import NOTES_REF
from ..core.times import CLOCK_SKEW, commit_datetime
from ..git._loose import deleted, written
from ..git.blobs import (
    ObjectUnreadable,
    fetch_blobs,
    head_commit,
    is_partial_clone,
    lookup,
    missing_object_said,
    read_loose_history,
    write_blob,
)
from ..git.child import git_environment
from ..git.child import run as run_git
from ..git.lazy import pygit2  # imported on first use (~0.2 s)
from ..git.names import reference
from ..git.note_blobs import read_note
from ..git.note_writes import notes_commit, write_note
from ..git.notes import changed_notes, note_blob, notes_read, notes_ref_problem, notes_tree
from ..git.notes import note_tree as _flatten
from ..git.pack import blob_id
from ..git.refs import common_git_dir
from ..git.remote_config import refuse_blocking_remote_config
from ..git.remotes import remote_names, unknown_remote
from ..git.treediff import entry_at, subtree
from ..store import atomic_write, refuse_links
from .committed_here import files_as_committed, folders_holding
from .levels import NOT_FETCHED as NOT_FETCHED  # re-exported: moved to .levels (start-up)
from .levels import (
    TRACKING_PREFIX,
    canonical_remote,
    fetched_marker,
    none_marker,
    notes_judged,
    record_branches,
)
from .levels import notes_not_fetched as notes_not_fetched
from .levels import remote_ref as remote_ref  # re-exported: readers judge freshness by it
from .notepaths import doubled_notes, path_findings
from .notes_dated import Redated, dated_at_push
from .notes_reflog import REBASE_MESSAGE, earlier_tips, forget_legacy, marker
from .push_clock import clock_refusal
from .unread_files import record_unread
from .unsent import subjects_missing, unsent_message

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..git.idents import Identities
    from ..store import Store, View
    from .levels import NotesHere

ATTESTATIONS_SHA256 = f"{layout.ATTESTATIONS_DIR}/sha256"
_CAS_ATTEMPTS = 50
_PUSH_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class Seen:
    """One attestation bundle as found in the repository.

    Attributes:
        data: the bundle's bytes as stored (one note line, or the whole file).
        subject: digest of the object it is attached to (by note blob or by file path).
        source: ``note`` or ``file``.
        location: ``refs/notes/kistore:<blob id>`` or the file's repository path.
        entered_at: when it first entered the repository (UTC).
        committed: False for a work-tree file not yet committed (``entered_at`` is then now).
        defect: why the bundle cannot count whatever its signature says (a file whose name
            is not the sha256 of its canonical bytes; a note line on an object the notes
            tree annotates at more than one path, KI424), or "" when there is none.
        entered_in: for a committed file, the commits (40 hex digits) holding it at
            ``entered_at``, the first of its history: where history order decides a tie of
            the clock (:meth:`kistore.attest.trust.Trust.judge`); empty for a note line
            (the notes history is not ordered with the branch's) and a work-tree file.
        noted_in: for a note line, the notes commits (40 hex digits) holding it at
            ``entered_at``, the first of the notes history (:func:`notes_entered_in`):
            where history order decides which of one key's reruns of one run entered
            later in one second (:func:`kistore.attest.evidence.rerun_order`; fresh17 F1),
            never a judgement of trust; empty for a file and a doubled note's line.
        number: a note line's number in the note at the notes tip as the editor ``git
            notes edit`` shows it (1-based, blank lines counted, its first place:
            :func:`note_line_numbers`), as the judging read it; None for a file, or a line
            not numbered (a doubled note's).
    """

    data: bytes
    subject: Digest
    source: str
    location: str
    entered_at: datetime
    committed: bool = True
    defect: str = ""
    entered_in: tuple[str, ...] = ()
    number: int | None = None
    noted_in: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one ``kistore notes fetch`` (or the fetches of a ``notes push``) did to our notes.

    Attributes:
        gained: note lines this clone holds now that it did not before (never negative:
            no line is lost, see ``kept``).
        kept: ``{annotated object id: [lines]}``: lines this clone held that the remote's
            notes history removed, put back on top of the merge (notes only grow, KI408;
            reviewer r90 F11). Empty when the remote removed none.
        left_out: ``{annotated object id: {line: why}}``: lines the remote's notes held
            that the fetch's judge refused (KI409: a forged signature, garbage), never
            taken in (reviewer r90b F11). Empty when none was.
        rewritten: what a remote's notes tip that does not descend from the one last
            fetched here did (:func:`kistore.attest.rewritten.rewrite_message`: a forced
            push, reviewer G8), or None.
        redated: of a push (:func:`push`): the notes commits it made again dated at the
            push, as sent (:func:`kistore.attest.notes_dated.dated_at_push`); empty when
            it sent them as they were.
        held: of a push: the remote already held the notes commit it would send, so nothing
            went out (fresh12 F10); False for a fetch.
    """

    gained: int = 0
    kept: dict[str, list[bytes]] = field(default_factory=dict)
    left_out: dict[str, dict[bytes, str]] = field(default_factory=dict)
    rewritten: str | None = None
    redated: tuple[Redated, ...] = ()
    held: bool = False

    def __add__(self, other: Fetched) -> Fetched:
        """Return both fetches' counts summed and their kept and left-out lines together."""
        kept = {obj: list(lines) for obj, lines in self.kept.items()}
        for obj, lines in other.kept.items():
            kept[obj] = sorted(set(kept.get(obj, [])) | set(lines))
        left = {obj: dict(lines) for obj, lines in self.left_out.items()}
        for obj, why in other.left_out.items():
            left.setdefault(obj, {}).update(why)
        return Fetched(self.gained + other.gained, kept, left,
                       self.rewritten or other.rewritten, self.redated + other.redated)


def attestation_path(subject: Digest, bundle_bytes: bytes) -> str:
    """Return ``store/attestations/sha256/XX/REST/<sha256 of bundle>.json`` for a bundle."""
    name = hashlib.sha256(bundle_bytes).hexdigest()
    return f"{layout.attestation_dir(subject)}/{name}{layout.SUFFIX}"


def parse_attestation_path(path: str) -> tuple[Digest, str] | None:
    """Return ``(subject, bundle hex)`` for a path :func:`attestation_path` makes, else None."""
    if not path.startswith(ATTESTATIONS_SHA256 + "/"):
        return None
    parts = path[len(ATTESTATIONS_SHA256) + 1:].split("/")
    if len(parts) != 3 or not parts[2].endswith(layout.SUFFIX):
        return None
    subject, name = "sha256:" + parts[0] + parts[1], parts[2][: -len(layout.SUFFIX)]
    if len(parts[0]) != 2 or not is_digest(subject) or not is_digest("sha256:" + name):
        return None
    return Digest.from_str(subject), name


# -- reading ---------------------------------------------------------------------------


def parents_first() -> pygit2.enums.SortMode:
    """Return the walk order that yields each commit after its parents (git's topo order).

    Returns:
        ``TOPOLOGICAL | REVERSE``, for ``repo.walk(tip, parents_first())``: the order
        :class:`Clock` needs its commits fed in (the tip comes last).
    """
    return pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE


def note_lines(repo: pygit2.Repository, blob: str, ref: str = NOTES_REF) -> list[bytes]:
    """Return the non-blank lines of the note on ``blob`` under ``ref`` (:func:`note_data`)."""
    return _lines(note_data(repo, blob, ref))


def note_data(repo: pygit2.Repository, blob: str, ref: str = NOTES_REF) -> bytes:
    """Return the bytes of the note on ``blob`` under ``ref`` (empty without a note).

    In a partial clone that lacks the note's blob, git fetches it (libgit2 cannot find a
    note whose blob is missing: that note is not taken for "no note", whose lines a write
    on top would drop). The note's blob is found by its one path in the notes tree, not by
    libgit2's ``git_note_read`` (which reads the blob whole into the note's message: a
    300 MB note was, fresh03 H3), and read within :data:`kistore.git.note_blobs.NOTE_BYTES`.

    Args:
        repo: the repository.
        blob: hex id of the annotated object.
        ref: the notes ref.

    Raises:
        NoteTooLarge: the note's blob is past :data:`kistore.git.note_blobs.NOTE_BYTES`.
        StoreStateError: a partial clone whose remote could not give the note's blob.
    """
    tip = repo.references.get(ref)
    if tip is None:
        return b""
    try:
        tree = notes_tree(repo, tip.target, ref)  # guarded reads
    except (KeyError, ValueError, pygit2.GitError):  # a ref to no commit: no notes, as before
        return b""
    found = note_blob(repo, tree, blob)  # its one path, not the whole tree
    return b"" if found is None else read_note(repo, found, f"{ref}:{blob}")


def notes_entered(repo: pygit2.Repository, damaged: list[ObjectUnreadable] | None = None,
                  *, notes_at: str | None = None) -> dict[str, dict[bytes, datetime]]:
    """Return every current note line with its entry time: ``{blob hex: {line: time}}``.

    Walks the history of :data:`NOTES_REF` once (cached per tip); a line's time is the
    earliest commit time among notes commits whose note holds it. Only lines present in the
    current tip are returned. A partial clone first fetches the note blobs of that history
    it lacks, in one ``git fetch``.

    Args:
        repo: the repository.
        damaged: None: a note blob that cannot be read (a flipped bit) is raised. A list:
            each such blob's :class:`ObjectUnreadable` is appended to it instead (its
            ``path`` ``refs/notes/kistore:<annotated blob>``, the note it holds), and the
            note counts as holding no line (``verify`` reports it as KI117 and checks on).
        notes_at: the notes commit read instead of the tip (:func:`kistore.git.notes.
            notes_read`: a commit id, or ``NO_NOTES``); None: the tip.

    Raises:
        StoreStateError: a partial clone whose remote could not give the note blobs.
        ObjectUnreadable: a note blob of the notes read is damaged (or past the size
            limit) and ``damaged`` is None; it names the note (``refs/notes/kistore:
            <annotated blob>``) and the blob. One only an older notes commit holds (KI117's
            fix, ``git notes remove``, was run) is skipped: its lines are no current line.
    """
    cached = _entered_cached(repo, notes_at)
    if cached is None:
        return {}
    result, unread, _numbers, _lost, at_tip, _first = cached
    if damaged is None and (stops := [e for e in unread if e.oid in at_tip]):
        raise stops[0]  # one only the history holds has no current line (fresh07 M4)
    if damaged is not None:
        damaged += unread
    return result


def note_line_numbers(repo: pygit2.Repository, *, notes_at: str | None = None
                      ) -> dict[str, dict[bytes, int]]:
    """Return each current note line's number: ``{blob hex: {line: number}}``.

    The number is the line's first place in its note at the tip of :data:`NOTES_REF` as
    the editor ``git notes edit`` shows it (1-based, blank lines counted:
    :func:`numbered_lines`), as :func:`notes_entered` read them: from its cache, no note
    read again (rev95 item 4). A note blob that could not be read has none.

    Args:
        repo: the repository whose :data:`NOTES_REF` is read.
        notes_at: as :func:`notes_entered` takes it.

    Raises:
        StoreStateError, ObjectUnreadable: as :func:`notes_entered`, whose walk it shares
            (a partial clone's remote without the note blobs; a damaged note blob).
    """
    cached = _entered_cached(repo, notes_at)
    return {} if cached is None else cached[2]


def notes_entered_in(repo: pygit2.Repository, *, notes_at: str | None = None
                     ) -> dict[str, dict[bytes, tuple[str, ...]]]:
    """Return the notes commits each current note line first entered in: ``{blob: {line: ids}}``.

    A line's commits are those of the notes history holding it at its entry time
    (:func:`notes_entered`) whose parents do not hold it (40 hex digits, parents first; more
    than one when two notes branches of one second added it apart), as
    :func:`files_entered_in` gives a file's. One key's two reruns of one run that entered in
    one second are ordered by them: one whose commits all descend from the other's is later
    (:func:`kistore.attest.evidence.rerun_order`; fresh17 F1: two attests in one second, a
    notes commit and its child, were ordered by their payloads' dates). From
    :func:`notes_entered`'s walk and cache: nothing more is read.

    Args:
        repo: the repository whose :data:`NOTES_REF` is read.
        notes_at: as :func:`notes_entered` takes it.

    Raises:
        StoreStateError, ObjectUnreadable: as :func:`notes_entered`, whose walk it shares.
    """
    cached = _entered_cached(repo, notes_at)
    return {} if cached is None else cached[5]


def notes_lost(repo: pygit2.Repository, *, notes_at: str | None = None
               ) -> dict[str, list[bytes]]:
    """Return the lines an earlier notes commit held that the notes read lack (KI408).

    Notes only grow: every notes commit holds every line of its history. One pushed before
    the gate judged each notes commit a push brings (reviewer fresh01 F8: a withdrawal
    removed in one notes commit, added back in the next) lacks lines an ancestor held, and
    reading the notes at it (``--notes-at``) reads a state the rules refuse. Found on
    :func:`notes_entered`'s walk of the history, from its cache: nothing more is read.

    Args:
        repo: the repository whose :data:`NOTES_REF` is read.
        notes_at: as :func:`notes_entered` takes it.

    Returns:
        ``{annotated object id: [lines]}``, each line once, in the order first met (the
        oldest commits first); empty when none is lacking (or no notes). A note whose blob
        could not be read at the commit read is left out (``verify``'s KI117 says it).

    Raises:
        StoreStateError, ObjectUnreadable: as :func:`notes_entered`, whose walk it shares.
    """
    cached = _entered_cached(repo, notes_at)
    return {} if cached is None else {a: list(lines) for a, lines in cached[3].items()}


def notes_lost_entered(repo: pygit2.Repository, *, notes_at: str | None = None
                       ) -> dict[str, dict[bytes, datetime]]:
    """Return :func:`notes_lost`'s lines with their entry times: ``{object: {line: time}}``.

    The time a line first entered the notes history read (the earliest notes commit
    holding it, as :func:`notes_entered` dates a current line): the time its trust is
    judged at, should it be put back (:mod:`kistore.attest.tip_lacking`). From the same
    walk's cache: nothing more is read.

    Raises:
        StoreStateError, ObjectUnreadable: as :func:`notes_entered`, whose walk it shares.
    """
    cached = _entered_cached(repo, notes_at)
    return {} if cached is None else {a: dict(lines) for a, lines in cached[3].items()}


def _entered_cached(repo: pygit2.Repository, notes_at: str | None = None) -> _Entered | None:
    """:func:`_entered` of the notes tip (or ``notes_at``), cached per tip (None: no notes)."""
    tip = notes_read(repo, NOTES_REF, notes_at)
    if tip is None:
        return None
    key = (repo.path, str(tip))
    cached = _ENTERED_CACHE.get(key)
    if cached is None:
        cached = _ENTERED_CACHE[key] = _entered(repo, tip)
    return cached


_Entered = tuple[dict[str, dict[bytes, datetime]], list[ObjectUnreadable],
                 dict[str, dict[bytes, int]], dict[str, dict[bytes, datetime]], set[str],
                 dict[str, dict[bytes, tuple[str, ...]]]]
"""What the notes history walk gives: each current line's entry time, the note blobs that
could not be read, each current line's number (:func:`note_line_numbers`), the lines the
history held that the tip lacks, with their entry times (:func:`notes_lost`), the ids
of the unread blobs the notes read still hold (only those stop a reader: one the history
alone holds has no current line, fresh07 M4), and each current line's first notes commits
(:func:`notes_entered_in`)."""


def _entered(repo: pygit2.Repository, tip: pygit2.Oid | str) -> _Entered:
    """Return :func:`notes_entered` of ``tip``, its unreadable note blobs, the line numbers.

    The note blobs that could not be read in order; the numbers: :func:`note_line_numbers`.
    """
    times: dict[str, dict[bytes, datetime]] = {}
    blobs: dict[str, list[bytes]] = {}
    raw: dict[str, bytes] = {}  # the bytes read: the tip's notes are numbered from them
    unread: list[ObjectUnreadable] = []
    first: dict[str, dict[bytes, tuple[str, ...]]] = {}  # the notes commits a line entered in
    history = _history(repo, tip)
    if is_partial_clone(repo):  # libgit2 reads only the blobs that are here
        fetch_blobs(repo, _blobs_of(repo, history))
    tree_of: dict[str, pygit2.Oid] = {}
    as_sets: dict[str, frozenset[bytes]] = {}
    for (when, tree), (commit, parents) in zip(history.dated, history.commits, strict=True):
        tree_of[commit] = tree
        parent_trees = [tree_of[p] for p in parents if p in tree_of]
        for annotated, note_blob_id in _mapping(repo, history, tree).items():
            if note_blob_id not in blobs:
                try:
                    raw[note_blob_id] = read_note(repo, note_blob_id,
                                                  f"{NOTES_REF}:{annotated}")
                    blobs[note_blob_id] = _lines(raw[note_blob_id])
                except ObjectUnreadable as e:  # a flipped bit: no line read from it
                    blobs[note_blob_id] = []
                    unread.append(e)
                as_sets[note_blob_id] = frozenset(blobs[note_blob_id])
            seen = times.setdefault(annotated, {})
            entered = first.setdefault(annotated, {})
            for line in blobs[note_blob_id]:
                if line not in seen or when < seen[line]:
                    seen[line] = when
                    entered[line] = (commit,)
                elif when == seen[line] and entered[line][-1] != commit and not (
                        _parent_notes_hold(repo, history, parent_trees, annotated, line,
                                           as_sets)):
                    entered[line] = (*entered[line], commit)  # added again, apart
    current = _mapping(repo, history, lookup(repo, tip, NOTES_REF).peel(
        pygit2.Commit).tree_id)
    _ENTERED_CACHE.clear()  # keep one repository state; tips move on every write
    numbers: dict[str, dict[bytes, int]] = {}
    for a, b in current.items():
        numbered = numbers[a] = {}
        for number, line in numbered_lines(raw.get(b, b"")):  # as the editor shows it
            numbered.setdefault(line, number)  # a line twice: its first place
    unreadable = {e.oid for e in unread}
    lost: dict[str, dict[bytes, datetime]] = {}
    for a, seen_lines in times.items():
        now = current.get(a)
        if now is not None and now in unreadable:
            continue  # no line read of it: KI117 says it
        held_now = set(blobs[now]) if now is not None else set()
        gone = {line: when for line, when in seen_lines.items() if line not in held_now}
        if gone:
            lost[a] = gone
    return ({a: {line: times[a][line] for line in blobs[b]} for a, b in current.items()},
            unread, numbers, lost, unreadable & set(current.values()),
            {a: {line: first[a][line] for line in blobs[b]} for a, b in current.items()})


def _parent_notes_hold(repo: pygit2.Repository, history: _History, parents: list[pygit2.Oid],
                       annotated: str, line: bytes, held: dict[str, frozenset[bytes]]) -> bool:
    """Whether a parent notes commit (by tree id) holds ``line`` in the note on ``annotated``.

    ``held``: each note blob's lines read so far (:func:`_entered`'s), as sets.
    """
    for tree in parents:
        blob = _mapping(repo, history, tree).get(annotated)
        if blob is not None and line in held.get(blob, frozenset()):
            return True
    return False


_ENTERED_CACHE: dict[tuple[str, str], _Entered] = {}


@dataclass(slots=True)
class _History:
    """The notes commits of one tip, parents first: ``(trusted time, tree id)`` each.

    ``trees`` is :func:`_flatten`'s cache (subtree id -> its mapping), filled as far as a
    reader has flattened them (ids, not trees: a long history holds no tree open).
    ``commits``: ``(commit id, parent ids)`` of each, in the order of ``dated`` (40 hex).
    """

    dated: list[tuple[datetime, pygit2.Oid]]
    trees: dict[str, dict[str, str]]
    commits: list[tuple[str, tuple[str, ...]]]


def _history(repo: pygit2.Repository, tip: pygit2.Oid | str) -> _History:
    """Return the notes history of ``tip`` (one walk a process and tip, cached)."""
    key = (repo.path, str(tip))
    cached = _HISTORY_CACHE.get(key)
    if cached is None:
        clock = Clock()
        read_loose_history(repo, tip)  # libgit2 loops on a cut loose commit (F3)
        walked = list(repo.walk(tip, parents_first()))
        cached = _History([(clock.time_of(c), c.tree_id) for c in walked], {},
                          [(str(c.id), tuple(str(p) for p in c.parent_ids)) for c in walked])
        _HISTORY_CACHE.clear()
        _HISTORY_CACHE[key] = cached
    return cached


_HISTORY_CACHE: dict[tuple[str, str], _History] = {}


def _mapping(repo: pygit2.Repository, history: _History, tree: pygit2.Oid
             ) -> dict[str, str]:
    """Return one notes tree's ``{annotated: note blob}`` (the cached dict: do not change it)."""
    hit = history.trees.get(str(tree))
    if hit is None:
        _flatten(repo, subtree(repo, tree), "", history.trees)
        hit = history.trees[str(tree)]
    return hit


def _blobs_of(repo: pygit2.Repository, history: _History) -> set[str]:
    """Return every note blob id of a notes history (its trees only: no blob read)."""
    for _when, tree in history.dated:
        _mapping(repo, history, tree)
    return {blob for mapping in history.trees.values() for blob in mapping.values()}


def note_history_blobs(repo: pygit2.Repository) -> set[str]:
    """Return the id of every note blob in the history of :data:`NOTES_REF` (trees only).

    What :func:`notes_entered` reads: a caller gathering a partial clone's fetches into
    one (``kistore attestations`` in a blob-less clone) fetches these with the rest. The
    history is walked once a process (shared with :func:`notes_entered`).

    Returns:
        Blob ids (40 hex digits); empty without notes.
    """
    tip = repo.references.get(NOTES_REF)
    return set() if tip is None else _blobs_of(repo, _history(repo, tip.target))


def history_trees(repo: pygit2.Repository, tip: pygit2.Oid | str) -> set[str]:
    """Return the tree id of every notes commit ``tip`` reaches (its one cached walk).

    What :mod:`kistore.attest.notes_reflog` compares an earlier tip with: a tip whose tree
    is among them holds no line this history does not.
    """
    return {str(tree) for _when, tree in _history(repo, tip).dated}


def brought_by(repo: pygit2.Repository, blob: str) -> tuple[str, str | None] | None:
    """Return the notes commit that first held the note blob ``blob``, when the tip does not.

    KI117's fix for a note past the size limit is ``git notes remove``; the notes history
    still holds it, and a push of that history is refused (fresh07 M4): the way out names
    the notes commit before it.

    Args:
        repo: the repository.
        blob: a note blob id (40 hex).

    Returns:
        ``(the oldest notes commit holding it, that commit's first parent or None)``, both
        40 hex; None when the tip of :data:`NOTES_REF` holds it, or no notes commit does.
        Raises nothing a damaged tree would not (ObjectUnreadable).
    """
    ref = repo.references.get(NOTES_REF)
    if ref is None or blob in _notes_of(repo, ref.target).values():
        return None
    trees: dict[str, dict[str, str]] = {}
    for commit in repo.walk(ref.target, parents_first()):
        if blob in _flatten(repo, commit.tree, "", trees).values():
            return str(commit.id), str(commit.parent_ids[0]) if commit.parent_ids else None
    return None


def _fetch_note_blobs(repo: pygit2.Repository, tips: Iterable[pygit2.Oid | str],
                      trees: dict[str, dict[str, str]]) -> int:
    """Fetch the note blobs of the notes commits reachable from ``tips`` that are not here.

    Every note blob of the history, in one ``git fetch`` (:func:`fetch_blobs`), none when
    all are here or ``repo`` is no partial clone. ``trees`` is :func:`_flatten`'s cache.

    Returns:
        How many blobs were asked for.

    Raises:
        StoreStateError: the promisor remote could not give them.
    """
    walker: pygit2.Walker | None = None
    for tip in tips:
        read_loose_history(repo, tip)  # libgit2 loops on a cut loose commit (F3)
        if walker is None:
            walker = repo.walk(tip)
        else:
            walker.push(tip)
    for commit in walker or ():
        _flatten(repo, commit.tree, "", trees)
    return fetch_blobs(repo, {blob for mapping in trees.values() for blob in mapping.values()})


class Clock:
    """Commit times that never run backwards, nor past the clock reading them.

    A committer date is whatever the committer wrote. A commit dated before its parent
    (``GIT_COMMITTER_DATE=... git commit-tree -p PARENT``) claims to predate a commit it
    was built on; that claim is not believed. The time used is the latest trusted time
    among the commit and all its ancestors, so backdating below the history one builds on
    gains nothing.

    A date later than the clock reading the history (plus :data:`CLOCK_SKEW`, one day) is
    not believed either: nothing here was committed after now. Such a commit gets the
    earliest time it can have, its parents' latest trusted time (a root commit: the
    clock's time), and passes that on, not its date: one commit dated 2099 used to make
    every later attestation file "enter" in 2099, so keys valid until 2030 signed nothing
    that counted (review r79 F6). A time outside years 1970-9999 is read clamped
    (:func:`kistore.core.times.commit_datetime`). ``kistore check`` refuses such dates in
    new commits (KI428).

    Feed commits parents first (:func:`parents_first`).

    Args:
        now: the clock (UTC); None: this machine's, when the clock is made.
    """

    def __init__(self, now: datetime | None = None) -> None:
        self.times: dict[Any, datetime] = {}
        self.now = now if now is not None else datetime.now(UTC)
        self.latest = self.now + timedelta(seconds=CLOCK_SKEW)

    def time_of(self, commit: pygit2.Commit) -> datetime:
        """Return the commit's trusted time (UTC): its date, or a later ancestor's.

        A date past the clock (plus one day) gives way to the parents' latest time (a
        root commit: the clock's time).
        """
        built_on = max((self.times[p] for p in commit.parent_ids if p in self.times),
                       default=None)
        when = commit_datetime(commit.commit_time)
        if when > self.latest:  # from the future: not believed
            when = built_on if built_on is not None else self.now
        elif built_on is not None and built_on > when:
            when = built_on
        self.times[commit.id] = when
        return when


def file_attestations(view: View, subject: Digest | None = None, *,
                      unread: list[str] | None = None) -> Iterator[tuple[str, bytes]]:
    """Yield ``(path, bytes)`` of every file under ``store/attestations/sha256/`` of a view.

    Args:
        view: a :class:`kistore.store.View`.
        subject: only files about this digest, or None for all.
        unread: when given, each path listed there that is no regular file (a FIFO, a
            symlink, a directory: never opened, :meth:`kistore.store.View.read`) is
            appended to it, for a caller that must say so (``notes sync``, fresh12 F13).

    Files whose path does not fit :func:`attestation_path` are yielded too (the checker
    reports them), except when ``subject`` is given.
    """
    if subject is not None:
        yield from _read_files(view, [layout.attestation_dir(subject)], unread)
        return
    yield from _read_files(view, [f"{ATTESTATIONS_SHA256}/{shard}/{rest}"
                                  for shard in sorted(view.list_dir(ATTESTATIONS_SHA256))
                                  for rest in sorted(view.list_dir(
                                      f"{ATTESTATIONS_SHA256}/{shard}"))], unread)


def file_attestations_many(view: View, subjects: Iterable[Digest],
                           unread: list[str] | None = None) -> Iterator[tuple[str, bytes]]:
    """Yield what :func:`file_attestations` yields for each subject, in ``subjects`` order.

    Lists the shard directories once and a subject's own folder only when its shard holds
    it, so asking about thousands of runs costs a few directory listings, not one each.

    Args:
        view: a :class:`kistore.store.View`.
        subjects: the digests asked about.
        unread: when given, each path listed in those folders that reads as no file (a
            FIFO, a symbolic link, a directory: never opened or followed) is appended.
    """
    folders = folders_holding(view, subjects)
    yield from _read_files(view, folders, unread)


def _read_files(view: View, folders: list[str], unread: list[str] | None = None
                ) -> Iterator[tuple[str, bytes]]:
    """Yield ``(path, bytes)`` of the files in each folder, folder by folder, names sorted.

    A partial clone's commit fetches the blobs it lacks among them first, in one ``git
    fetch`` (:meth:`kistore.store.View.prefetch`), not one per file as each is read. A path
    listed that reads as no file is appended to ``unread`` (when given).
    """
    paths = [f"{folder}/{name}" for folder in folders for name in sorted(view.list_dir(folder))]
    view.prefetch(paths)
    for path in paths:
        data = view.read(path)
        if data is not None:
            yield path, data
        elif unread is not None:
            unread.append(path)


def files_entered(repo: pygit2.Repository, commit: pygit2.Commit | None) -> dict[str, datetime]:
    """Return ``{path: commit time}`` of the first commit holding each attestation file.

    Args:
        repo: the repository.
        commit: the tip to walk back from (the branch read), or None (nothing committed).
    """
    return {path: when for path, (when, _in) in files_entered_in(repo, commit).items()}


def files_entered_in(repo: pygit2.Repository, commit: pygit2.Commit | None
                     ) -> dict[str, tuple[datetime, tuple[str, ...]]]:
    """Return :func:`files_entered` with the commits each file first entered the branch in.

    Args:
        repo: the repository.
        commit: the tip to walk back from (the branch read), or None (nothing committed).

    Returns:
        ``{path: (time, commits)}``: the earliest trusted time (:class:`Clock`) of a
        commit holding the path, and every commit holding it at that time (40 hex digits,
        parents first; more than one when the clock ties, e.g. a file in two branches).
        A commit whose parent holds the path too is left out: it descends from one listed.

    Raises:
        ObjectUnreadable: a commit or tree of the history is damaged or missing.
        CommitUnparsable: a commit of the history is one libgit2 cannot parse
            (:func:`kistore.git.blobs.read_loose_history`).
    """
    if commit is None:
        return {}
    key = (repo.path, "files:" + str(commit.id))
    cached = _FILES_CACHE.get(key)
    if cached is not None:
        return cached
    first: dict[str, tuple[datetime, tuple[str, ...]]] = {}
    trees: dict[str, dict[str, str]] = {}
    clock = Clock()
    read_loose_history(repo, commit.id)  # libgit2 loops on a cut loose commit (F3)
    for c in repo.walk(commit.id, parents_first()):
        when = clock.time_of(c)
        sub = entry_at(repo, c.tree, ATTESTATIONS_SHA256)  # guarded (a cut older tree)
        if sub is None or sub.type_str != "tree":  # a symlink or file there (KI110/KI111)
            continue
        for path in _paths(repo, subtree(repo, sub.id), ATTESTATIONS_SHA256, trees):
            known = first.get(path)
            if known is None or when < known[0]:
                first[path] = (when, (str(c.id),))
            elif when == known[0] and not _parent_holds(repo, c, path, trees):
                first[path] = (when, (*known[1], str(c.id)))  # added again, elsewhere
    _FILES_CACHE.clear()
    _FILES_CACHE[key] = first
    return first


_FILES_CACHE: dict[tuple[str, str], dict[str, tuple[datetime, tuple[str, ...]]]] = {}


def _parent_holds(repo: pygit2.Repository, commit: pygit2.Commit, path: str,
                  cache: dict[str, dict[str, str]]) -> bool:
    """Whether a parent of ``commit`` holds the attestation file ``path`` (read via ``cache``)."""
    rel = path[len(ATTESTATIONS_SHA256) + 1:]
    for parent in commit.parents:
        sub = entry_at(repo, parent.tree, ATTESTATIONS_SHA256)  # guarded (a cut older tree)
        if sub is not None and sub.type_str == "tree":
            if str(sub.id) not in cache:
                _flatten_paths(repo, subtree(repo, sub.id), cache)
            if rel in cache[str(sub.id)]:
                return True
    return False


def _paths(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str, cache: dict[str, dict[str, str]]
           ) -> list[str]:
    return [f"{prefix}/{p}" for p in _flatten_paths(repo, tree, cache)]


def _flatten_paths(repo: pygit2.Repository, tree: pygit2.Tree, cache: dict[str, dict[str, str]]
                   ) -> list[str]:
    hit = cache.get(str(tree.id))
    if hit is None:
        hit = {}
        for entry in tree:
            name = str(entry.name)
            if entry.type == pygit2.GIT_OBJECT_TREE:
                for p in _flatten_paths(repo, subtree(repo, entry.id), cache):
                    hit[f"{name}/{p}"] = ""
            else:
                hit[name] = ""
        cache[str(tree.id)] = hit
    return list(hit)


def collect(store: Store, subject: Digest | None = None, *, at: str | None = None,
            damaged: list[ObjectUnreadable] | None = None) -> list[Seen]:
    """Return every attestation bundle in the store (or about ``subject``), notes then files.

    Notes are read from :data:`NOTES_REF` as it is now (notes are not part of a commit);
    files from the work tree (``at=None``) or the commit ``at``. Objects are located in the
    same view: a note on a blob that is no object of the view is not returned (the checker
    reports it).

    Args:
        store: a :class:`kistore.store.Store`.
        subject: only attestations about this digest, or None for all.
        at: revision, or None for the work tree.
        damaged: as :func:`notes_entered` takes it, for the whole store (``subject`` None;
            with a subject, a damaged note blob is raised).

    Returns:
        :class:`Seen` items: note lines in blob then byte order, then files in path order.

    Raises:
        ObjectUnreadable: a note blob is damaged and ``damaged`` is None (or ``subject`` given).
    """
    if subject is not None:
        return collect_many(store, [subject], at=at)[subject]
    view = store.view(at)
    return [*_noted(store, view, view.digests(), damaged),
            *_filed(store, at, file_attestations(view))]


def collect_many(store: Store, subjects: Iterable[Digest], *, at: str | None = None,
                 notes_at: str | None = None) -> dict[Digest, list[Seen]]:
    """Return :func:`collect` ``(store, subject, at=at)`` for every subject, read once.

    The notes history, the attestation files' history and the view are read once for all
    subjects, so a query about a comparison group of thousands of runs does not walk git
    once per run.

    Of the work tree (``at`` None), a file ``HEAD`` committed in a subject's folder that the
    work tree lacks or holds otherwise (a FIFO, a symbolic link, a directory, other bytes)
    is read as ``HEAD`` holds it, as no commit may remove or change one (KI410), and
    recorded in :attr:`kistore.store.Store.heads_files`
    (:func:`kistore.attest.committed_here.files_as_committed`); new files count as read,
    and a new entry that is no regular file is recorded in
    :attr:`kistore.store.Store.unread_files` (:func:`kistore.attest.unread_files.
    record_unread`), not counted.

    Args:
        store: a :class:`kistore.store.Store`.
        subjects: the digests asked about (duplicates are answered once).
        at: revision, or None for the work tree.
        notes_at: the notes commit read instead of :data:`NOTES_REF`'s tip (a commit id,
            or :data:`kistore.git.notes.NO_NOTES`: none), as ``kistore site build
            --notes-at`` reads them; None: the tip.

    Returns:
        ``{subject: [Seen, ...]}`` with a (possibly empty) list for every subject, each in
        :func:`collect`'s order.

    Raises:
        InputError: when ``at`` names no commit.
    """
    wanted = list(dict.fromkeys(subjects))
    view = store.view(at)
    found: dict[Digest, list[Seen]] = {d: [] for d in wanted}
    unread: list[str] | None = [] if at is None and store.root is not None else None
    files = list(file_attestations_many(view, wanted, unread))
    if unread is not None:  # what HEAD committed, where the work tree lost it
        files = files_as_committed(store, wanted, files)
        record_unread(store, unread)  # the rest, new: said, not counted (fresh16 F7)
    for seen in (*_noted(store, view, wanted, notes_at=notes_at), *_filed(store, at, files)):
        found[seen.subject].append(seen)
    return found


def bundle_copies(store: Store, seen: Seen, at: str) -> list[Seen]:
    """Return the committed attestation files at ``at`` that are copies of ``seen``'s bundle.

    A copy is what every reader groups with ``seen`` (:func:`kistore.attest.evidence.
    judge_all`): the same bundle bytes about the same subject, each with its own entry time
    (a file: its first commit on ``at``'s history, :func:`files_entered_in`). For the gate,
    which judges a new note line with its bundle's copies as readers will (KI411, KI439):
    only files are read, as a new line is not among the note lines held on its object (it
    would not be new), and a bundle's note lines are all on that one object.

    Args:
        store: a :class:`kistore.store.Store` (a bare one too: git objects only).
        seen: the copy asked about (its ``data`` and ``subject`` are read).
        at: the revision whose files are read (a commit id or name).

    Returns:
        :class:`Seen` files in path order (:func:`collect`'s), empty when none holds the
        bytes; the history is walked only when one does. Files are told by their git blob
        id (the same bytes, the same id): no blob is read, nor fetched into a blob-less
        clone (a ``pre-push`` hook's).

    Raises:
        InputError: ``at`` names no commit.
        ObjectUnreadable: a commit or tree of ``at``'s history is damaged or missing.
    """
    view = store.view(at)
    folder = layout.attestation_dir(seen.subject)
    want = blob_id(seen.data).hex()
    same = [(path, seen.data) for path in (f"{folder}/{name}" for name in sorted(
        view.list_dir(folder))) if view.blob_ids([path]) == [want]]
    return list(_filed(store, at, same)) if same else []


def _noted(store: Store, view: View, subjects: Iterable[Digest],
           damaged: list[ObjectUnreadable] | None = None, *, notes_at: str | None = None
           ) -> Iterator[Seen]:
    """Yield the note lines on each subject's object blob in ``view``, subject by subject.

    ``damaged``, ``notes_at``: as :func:`notes_entered` takes them.
    """
    entered = notes_entered(store.repo, damaged, notes_at=notes_at)
    if not entered:
        return
    # read with the times: KI301 names the line
    numbers = note_line_numbers(store.repo, notes_at=notes_at)
    first = notes_entered_in(store.repo, notes_at=notes_at)  # history orders ties (fresh17 F1)
    # KI424: git serves every path's lines; none counts
    doubled = doubled_notes(store.repo, notes_at=notes_at)
    subjects = list(subjects)
    view.prefetch(layout.object_path(d) for d in subjects)  # a partial clone: in one fetch
    for digest in subjects:
        data = view.read_within(layout.object_path(digest))  # past the limit: KI106's
        if data is None:
            continue
        blob = blob_id(data).hex()
        times = entered.get(blob, {})
        twice = doubled.get(blob)
        if twice is not None:
            now = datetime.now(UTC)
            for line in twice.lines:
                yield Seen(line, digest, "note", f"{NOTES_REF}:{blob}", times.get(line, now),
                           defect=twice.reason)
            continue
        numbered = numbers.get(blob, {})
        noted = first.get(blob, {})
        for line, when in sorted(times.items()):
            yield Seen(line, digest, "note", f"{NOTES_REF}:{blob}", when,
                       number=numbered.get(line), noted_in=noted.get(line, ()))


def _filed(store: Store, at: str | None, files: Iterable[tuple[str, bytes]]) -> Iterator[Seen]:
    """Yield the attestation files that fit the layout, with entry time and any defect."""
    committed = files_entered_in(store.repo, _commit_of(store, at))
    now = datetime.now(UTC)
    for path, data in files:
        parsed = parse_attestation_path(path)
        if parsed is None:
            continue
        first = committed.get(path)
        if first is None:
            yield Seen(data, parsed[0], "file", path, now, False, file_defect(data, parsed[1]))
        else:
            yield Seen(data, parsed[0], "file", path, first[0], True,
                       file_defect(data, parsed[1]), first[1])


def file_defect(data: bytes, name: str) -> str:
    """Say why an attestation file cannot count ("" when it can).

    Its name must be the sha256 of its canonical bytes (``notes sync`` refuses it too).
    """
    if hashlib.sha256(data).hexdigest() != name or not canonical.is_canonical(data):
        return ("the file is not the canonical bundle its name says (name = sha256 of the "
                "canonical bundle bytes)")
    return ""


def _commit_of(store: Store, at: str | None) -> pygit2.Commit | None:
    if at is not None:
        return store.commit(at)
    return head_commit(store.repo)  # guarded: libgit2 loops on a cut loose HEAD (r72-2)


# -- writing ---------------------------------------------------------------------------


def add_lines(repo: pygit2.Repository, blob: str, lines: list[bytes],
              named_by: str | None = None, known: Identities | None = None) -> int:
    """Add bundle lines to the note on ``blob``, keeping it sorted and unique.

    The notes commit is built on a private ref, then :data:`NOTES_REF` is moved to it with a
    compare-and-swap on its old value, retried when another writer moved it meanwhile, so
    two concurrent writers never lose each other's lines.

    Args:
        repo: the repository.
        blob: hex id of the subject object's blob (:func:`blob_id`).
        lines: bundle bytes (canonical, no newline).
        named_by: the file whose blob ``blob`` is (``store/objects/...``), for the error.
        known: the notes commit's author and committer as git named them
            (:func:`kistore.git.idents.identities`, asked before ``blob`` was written);
            None: git is asked here, before any ref or object.

    Returns:
        How many of ``lines`` were new.

    Raises:
        InputError: a line holds a newline (a bundle must be its canonical, one-line bytes);
            git names no author or committer (:func:`kistore.git.idents.identities`).
        StoreStateError: the notes ref kept moving under concurrent writers, or git lacks
            ``blob`` (:func:`kistore.git.blobs.missing_object_said`: what named it, how to
            get it; the callers write it first, so a `git gc --prune=now` beside them), or
            the notes commit could not be written (:func:`kistore.git.note_writes.write_note`;
            one a `git gc` broke is written again).
    """
    if any(b"\n" in line for line in lines):
        raise InputError("a bundle line must not contain a newline; store canonical bytes")
    if blob not in repo:  # git notes refuse to annotate a missing object
        what = f"the blob of {named_by}" if named_by else "the object the note would be on"
        raise StoreStateError(
            missing_object_said(repo, blob, f"{what}, which the note would annotate")
            + "; it was written just before, so if a `git gc --prune=now` ran meanwhile, "
            "run the command again")

    # Lazy: the write path; reading notes (every run page) never signs a commit.
    from ..git.idents import signatures

    who = signatures(repo, known)  # author and committer, as `git notes add` (fresh12 F2)
    scratch = f"refs/kistore/notes-tmp-{uuid.uuid4().hex}"  # one per writer
    try:
        for attempt in range(_CAS_ATTEMPTS):
            ref = repo.references.get(NOTES_REF)
            old = ref.target if ref is not None else None
            # scratch's writes are made again when a `git gc` beside locked it or removed
            # refs/kistore/ (its pack-refs; break97 M5): _loose.written
            if old is not None:  # read and build on this exact tip, never a newer one
                written(functools.partial(repo.references.create, scratch, old, force=True),
                        ref=scratch)
            elif scratch in repo.references:
                deleted(repo, scratch)
            existing = note_lines(repo, blob, scratch)
            merged = sorted(set(existing) | set(lines))
            added = len(merged) - len(existing)
            if added == 0:
                return 0
            text = b"".join(line + b"\n" for line in merged).decode("utf-8")
            new = write_note(repo, scratch, blob, text, who)  # a gc: written again
            try:
                if old is None:
                    repo.references.create(NOTES_REF, new)
                else:
                    current = repo.references[NOTES_REF]
                    if current.target != old:
                        continue
                    current.set_target(new, "kistore: add attestation")
            except (pygit2.GitError, pygit2.AlreadyExistsError, ValueError, OSError):
                # another writer moved the ref or holds its lock: rebuild on its tip
                # a random 1-20 ms a round (os.urandom: `random` cost ~2 ms of every
                # start-up that judges evidence, for this one line)
                time.sleep((0.001 + 0.019 * os.urandom(1)[0] / 255) * (attempt + 1))
                continue
            return added
    finally:
        if scratch in repo.references:
            deleted(repo, scratch)
    raise StoreStateError(f"{NOTES_REF} kept moving under concurrent writers; run it again")


def attach(store: Store, subject: Digest, bundle_bytes: bytes, *, as_file: bool = False,
           known: Identities | None = None) -> str:
    """Store one bundle about ``subject``: as a note (default) or as a work-tree file.

    Args:
        store: a :class:`kistore.store.Store`.
        subject: the attested object's digest (it must be in the work tree or HEAD).
        bundle_bytes: the bundle's canonical bytes.
        as_file: write ``store/attestations/...`` (for a pull request) instead of a note.
        known: a note's commit's author and committer, as
            :func:`kistore.git.idents.identities` named them; None: git is asked here,
            before anything is written.

    Returns:
        Where it went: ``refs/notes/kistore:<blob>`` or the file's repository path.

    Raises:
        ResolutionError: the subject's object is not in the store.
        StoreStateError: no work tree (for a file), or the notes ref kept moving.
        InputError: (a note) git names no author or committer: nothing was written.
    """
    object_bytes = store.view(None if store.root is not None else "HEAD").object_bytes(subject)
    if as_file:
        if store.root is None:
            # not "use a note instead": a bare repository refuses that too (fresh12 F15)
            raise StoreStateError(
                "this repository has no work tree (a bare repository, a server): attest in a "
                "clone of it, with --file for a pull request, or as a note sent with "
                "`kistore notes push origin`; nothing was written")

        path = attestation_path(subject, bundle_bytes)
        refuse_links(store.root, [path.rpartition("/")[0]])  # a committed link: never write out
        atomic_write(store.root / path, bundle_bytes)
        return path
    if known is None:
        # Lazy: the write path (as add_lines).
        from ..git.idents import identities

        known = identities(store.repo)  # git refuses to name one: before the blob
    blob = str(write_blob(store.repo, object_bytes))  # a note needs its object in git
    add_lines(store.repo, blob, [bundle_bytes], layout.object_path(subject), known)
    return f"{NOTES_REF}:{blob}"


def _lines(data: bytes) -> list[bytes]:
    # the lines numbered_lines yields, unnumbered: read for every note, kept a comprehension
    return [line for line in data.split(b"\n") if line.strip()]


def numbered_lines(note: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield each non-blank line of a note (one bundle each) with its line number.

    The number is the line's in the editor ``git notes edit`` opens, which shows the
    note's bytes as they are: 1-based, blank lines counted. ``git notes append`` writes a
    blank line before what it appends, so counting bundles alone named the line above
    the bad one, and deleting that line as advised changed nothing (reviewer fresh95 F3).
    Every place that names a note line by number takes it from here.

    Args:
        note: the note's bytes.

    Yields:
        ``(number, line)``: the line without its line feed (a carriage return kept).

    Raises nothing.
    """
    for number, line in enumerate(note.split(b"\n"), 1):
        if line.strip():
            yield number, line


def editor_line(note: bytes, line: bytes) -> int | None:
    """Return the number of ``line`` in ``note``, the editor's (:func:`numbered_lines`).

    Returns:
        The 1-based line number, blank lines counted; None when the note lacks the line.

    Args:
        note: the note's bytes.
        line: one line of it, without its line feed.

    Raises nothing.
    """
    return next((number for number, held in numbered_lines(note) if held == line), None)


def note_blobs(repo: pygit2.Repository, commit: pygit2.Commit) -> dict[str, str]:
    """Map annotated object id -> note blob id in one commit of the notes ref (any fan-out)."""
    return _flatten(repo, commit.tree, "", {})


def lines_of(data: bytes) -> list[bytes]:
    """Return the non-blank lines of a note (one attestation bundle each)."""
    return _lines(data)


# -- fetch and push (the git binary) ---------------------------------------------------


LineJudge = Callable[[str, bytes], str | None]
"""``judge(annotated object id, line)``: why a note line may not enter, or None (KI409's and
KI411's, :func:`kistore.check.gate.note_line_judge`, which this layer cannot import). A
reason ends with its rule, id and name as docs/rules.md gives them (``(KI409
notes-line-invalid)``): :func:`left_out_rules` reads it."""

LINE_INVALID = "KI409 notes-line-invalid"
"""The rule a line no notes push may send breaks, as docs/rules.md names it
(:data:`kistore.check.gate.NOTES_LINE_INVALID`, which this layer cannot import)."""

_RULE_TAG = re.compile(r"\((KI[0-9]{3} [a-z0-9-]+)\)\Z")

_TAKEN_ONLY = {"KI409": ("that verify", "do not verify"),
               "KI411": ("whose key is trusted now, unless the canonical remote's notes hold "
                         "them", "verify but are refused, their key not trusted now: revoked, "
                         "expired or not trusted for their role")}
"""Per rule of a left-out line (its id): which lines this repository's notes take in, and
what the left-out ones are (fresh14 F5: a KI411 line was said not to verify; fresh15 F5:
"signed by a key not trusted now" did not say that the signature verifies, nor why)."""


def left_out_rules(left: dict[str, dict[bytes, str]]) -> list[str]:
    """Return the rules the lines of ``left`` were left out by, each once, in id order.

    Args:
        left: ``{annotated object id: {line: why}}``, each ``why`` a :data:`LineJudge`'s
            reason, ending with its rule (``(KI411 new-attestation-key-not-trusted)``).

    Returns:
        ``["KI409 notes-line-invalid", ...]``; a reason with no rule at its end counts as
        :data:`LINE_INVALID`'s. Raises nothing.
    """
    return sorted({m.group(1) if (m := _RULE_TAG.search(why)) else LINE_INVALID
                   for lines in left.values() for why in lines.values()})


def taken_only(rules: list[str]) -> str:
    """Say which lines this repository's notes take in, by ``rules`` (:func:`left_out_rules`).

    ``"that verify"`` for KI409 alone (as a notes push must send them). Raises nothing.
    """
    return " and ".join(_TAKEN_ONLY.get(r.split()[0], _TAKEN_ONLY["KI409"])[0] for r in rules)


def left_out_are(rules: list[str]) -> str:
    """Say what the left-out lines are, by ``rules`` (:func:`left_out_rules`), each rule named.

    ``"do not verify (KI409 notes-line-invalid)"``; ``"verify but are refused, their key
    not trusted now: revoked, expired or not trusted for their role (KI411
    new-attestation-key-not-trusted)"``; both joined by "or". Raises nothing.
    """
    return " or ".join(f"{_TAKEN_ONLY.get(r.split()[0], _TAKEN_ONLY['KI409'])[1]} ({r})"
                       for r in rules)


def fetch(store: Store, remote: str, judge: LineJudge | None = None, *,
          pushing: bool = False) -> Fetched:
    """Fetch a remote's kistore notes and merge them into ours with ``cat_sort_uniq``.

    Runs ``git fetch --no-filter REMOTE +refs/notes/kistore:refs/notes/remotes/REMOTE/kistore``
    (unfiltered: a partial clone gets the note blobs with their commits; a notes tree names
    the objects it annotates, it holds none of them), then merges on a private ref (``git
    notes merge -s cat_sort_uniq``) and moves :data:`NOTES_REF` with a compare-and-swap,
    retried on a concurrent update. A partial clone first fetches, in one ``git fetch``, any
    note blob of either history it still lacks (notes fetched earlier with the clone's
    filter), which git would fetch one per blob as the merge reads it: the one walk of
    the notes history (the lines gained are counted on the notes the merge changed).

    Once merged, the times of the tracking ref's file and reflog are set to now
    (:func:`_mark_fetched`): readers tell by the ref that a remote's notes were fetched
    (:func:`kistore.attest.levels.notes_lacking`) and by its time whether the branches
    were fetched since (:func:`kistore.attest.levels.notes_stale`). Notes refused (KI424;
    KI420: a notes ref naming a blob, a tree or a tag) leave the tracking ref as it was (or
    absent).

    Args:
        store: a :class:`kistore.store.Store`.
        remote: a remote name or URL (a URL's notes are fetched into
            ``refs/notes/remotes/url/kistore``).
        judge: a :data:`LineJudge` of the lines gained, or None.
        pushing: the fetch is :func:`push`'s (its refusals say that nothing was pushed).

    A remote holding no notes is recorded as fetched all the same (an empty file,
    :data:`kistore.attest.levels.NOTES_NONE`): git writes no tracking ref then, and the
    readers' "no remote's notes were fetched" stayed on every query (reviewer r89 F9).

    Notes only grow (KI408): a remote's notes history that removes a line this clone holds
    (a fork's or mirror's ``git notes remove``, taken as a fast-forward, or a removal
    against an unchanged note, which ``cat_sort_uniq`` never sees as a conflict) removed it
    here too, a maintainer's withdrawal included (reviewer r90 F11). Every line the notes
    held before the merge and the merge lacks is put back; :attr:`Fetched.kept` names them.

    As a taken-in line can never be dropped again, each line the merge would gain is
    judged by ``judge`` (only those: the notes the merge changed, less the lines they held
    here) and a refused one is left out; :attr:`Fetched.left_out` names them (reviewer
    r90b F11). ``judge`` None: none is. Both in one pass over the notes the merge changed
    and one notes commit on top of it (:func:`_settle`), in the same compare-and-swap.

    From a remote that is not the canonical one
    (:func:`kistore.attest.levels.canonical_remote`: a fork, a mirror, a URL) the lines are
    taken, never the history: the settled notes become a notes commit of our own on our
    tip (:func:`_merge_into_notes`; reviewer r91 F10), and a line about a run no branch of
    the canonical remote holds is left out too (:func:`_on_canonical_branches`, r91 F11).
    Its tip taken whole is remembered (:data:`TAKEN_PREFIX`): fetched again, it gains
    nothing and writes nothing.

    Returns:
        :class:`Fetched`: the note lines gained (0 when the remote has no kistore notes)
        and the lines kept against the remote's removals.

    Raises:
        InputError: ``remote`` starts with ``-`` (git would read it as an option), or is
            no remote's name, URL or path (:func:`_refuse_unknown`).
        StoreStateError: git failed (a URL that leads nowhere, network), the remote's notes
            ref names no commit (KI420) or holds unchecked paths (KI424), or the ref kept
            moving.
    """
    _refuse_option(remote)
    repo = store.repo
    _refuse_unknown(repo, remote)  # not git's "does not appear to be a git repository"
    refuse_blocking_remote_config(Path(repo.path), remote)  # its git-upload-pack would wait
    tracking = _tracking_ref(repo, remote)
    canonical = canonical_remote(remote_names(repo))
    taken = None if remote == canonical else _taken_ref(tracking)  # a fork: lines only
    held = reference(repo, tracking)  # a remote named in bytes not UTF-8: None
    before_fetch = None if held is None else str(held.target)
    result = _git(repo, "fetch", "--quiet", "--no-filter", remote, f"+{NOTES_REF}:{tracking}",
                  check=False)
    marker = none_marker(Path(repo.path), remote)
    if result.returncode != 0:
        if "couldn't find remote ref" in result.stderr:
            # fetched: it holds none (levels.notes_lacking)
            _record_none(repo, tracking[len(TRACKING_PREFIX):-len("/kistore")], marker)
            return Fetched()
        raise StoreStateError(f"git fetch {remote} failed: {result.stderr.strip()}")
    marker.unlink(missing_ok=True)  # it holds notes now: its tracking ref says so
    try:
        _refuse_not_a_commit(repo, remote, tracking, before_fetch, pushing)
        _refuse_unchecked(repo, remote, tracking)
    except StoreStateError:  # not fetched, as far as the readers tell (levels.notes_lacking)
        _git(repo, "update-ref", *((tracking, before_fetch) if before_fetch else ("-d", tracking)),
             check=False)
        raise
    if is_partial_clone(repo):
        ours = repo.references.get(NOTES_REF)
        _fetch_note_blobs(repo, [repo.references[tracking].target,
                                 *([ours.target] if ours is not None else [])], {})
    their_tip = str(repo.references[tracking].target)
    rewritten = _rewritten(repo, remote, before_fetch, their_tip)  # a forced push (G8)
    if taken is not None:
        if _ref_target(repo, taken) == their_tip and NOTES_REF in repo.references:
            # taken in whole before: nothing new
            _mark_fetched(repo, tracking)
            return Fetched(rewritten=rewritten)
        judge = _on_canonical_branches(repo, canonical, remote, judge)
    for _ in range(_CAS_ATTEMPTS):
        merged = _merge_into_notes(repo, tracking, remote, judge, taken is not None)
        if merged is not None:
            if taken is not None:  # its lines left out are judged again at its next fetch
                _git(repo, "update-ref", *((taken, their_tip) if not merged.left_out
                                           else ("-d", taken)), check=False)
            _mark_fetched(repo, tracking)
            return replace(merged, rewritten=rewritten)
    raise StoreStateError(f"{NOTES_REF} kept moving under concurrent writers; run it again")


def _rewritten(repo: pygit2.Repository, remote: str, seen: str | None, tip: str
               ) -> str | None:
    """Say how ``remote``'s notes tip ``tip`` rewrote ``seen``, the tip last fetched, or None.

    :func:`kistore.attest.rewritten.rewrite`: a tip that does not descend from the one
    last seen (``git push -f`` to a server without kistore's hooks), with the notes
    commits gone and the lines lost (kept here all the same: :func:`_settle`).
    """
    # Lazy: the history walk is read only when the remote's tip moved.
    from .rewritten import rewrite, rewrite_message

    found = rewrite(repo, seen, tip)
    return None if found is None else rewrite_message(remote, found,
                                                      named_notes(repo, found.lost))


TAKEN_PREFIX = "refs/kistore/notes-taken/"
"""``refs/kistore/notes-taken/REMOTE``: the notes commit of a remote that is not the
canonical one (:func:`kistore.attest.levels.canonical_remote`) whose every line this clone
took in (or holds), none left out: its next fetch of the same commit gains nothing, and
says nothing. Deleted when a fetch left lines out (they are judged again next time)."""


def _taken_ref(tracking: str) -> str:
    """Return :data:`TAKEN_PREFIX`'s ref of the tracking ref ``refs/notes/remotes/R/kistore``."""
    return TAKEN_PREFIX + tracking[len(TRACKING_PREFIX):-len("/kistore")]


def _tree_of(repo: pygit2.Repository, commit: pygit2.Oid | str) -> pygit2.Oid:
    """Return the tree id of a notes commit."""
    return lookup(repo, commit, NOTES_REF).peel(pygit2.Commit).tree_id


def _ref_target(repo: pygit2.Repository, name: str) -> str | None:
    """Return the commit id a ref names, or None when there is no such ref."""
    ref = reference(repo, name)
    return None if ref is None else str(ref.target)


def _on_canonical_branches(repo: pygit2.Repository, canonical: str | None, remote: str,
                           judge: LineJudge | None) -> LineJudge:
    """Return ``judge`` that also leaves out a line about a run no canonical branch holds.

    A fork's validly signed note about a run only the fork holds (its pull request, not
    merged) was taken in, and every ``kistore notes push`` to the canonical remote was then
    refused (KI409: its subject missing there), and ``notes restore`` and the next fetch
    undid its removal (reviewer r91 F11). Such a line is left out until a branch of the
    canonical remote (``refs/remotes/CANONICAL/*``, as last fetched; this clone's own
    branches when no remote is canonical) holds its subject at its object path: the next
    ``kistore notes fetch REMOTE`` after the ``git fetch`` that brings the merged run takes
    it in.

    Args:
        repo: the clone.
        canonical: the canonical remote's name, or None.
        remote: the remote fetched from (named in the reason).
        judge: KI409's judge of a line, or None.

    Returns:
        A :data:`LineJudge`: ``judge``'s reason first, then this one.
    """
    prefix = f"refs/remotes/{canonical}/" if canonical is not None else "refs/heads/"
    default = reference(repo, f"{prefix}HEAD")  # the default branch first: most runs
    first = default.target if default is not None and isinstance(default.target, str) else ""
    names = sorted((name for name in repo.references
                    if name.startswith(prefix) and not name.endswith("/HEAD")),
                   key=lambda name: (name != first, name))
    trees = []
    for name in names:
        with contextlib.suppress(pygit2.GitError, KeyError, ValueError):
            trees.append(repo.references[name].peel(pygit2.Commit).tree)
    where = f"{canonical}, the canonical remote" if canonical else "this repository's branches"
    held: dict[str, bool] = {}

    def on_canonical(obj: str, line: bytes) -> str | None:
        why = None if judge is None else judge(obj, line)
        if why is not None:
            return why
        if obj not in held:
            held[obj] = _held_by(repo, obj, trees)
        if held[obj]:
            return None
        fetching = f"`git fetch {canonical}` has not brought it" if canonical else \
            "its branch is not merged here"
        return (f"its subject is on no branch of {where} (a run only {remote} holds: its "
                f"pull request is not merged, or {fetching} yet); a notes push there would be "
                f"refused, so it is taken by the next `kistore notes fetch "
                f"{shlex.quote(remote)}` once the run is there ({LINE_INVALID})")

    return on_canonical


def _held_by(repo: pygit2.Repository, obj: str, trees: list[pygit2.Tree]) -> bool:
    """Tell whether blob ``obj`` is a stored object at its object path in one of ``trees``."""
    found = repo.get(obj)
    if not isinstance(found, pygit2.Blob):
        return False
    path = layout.object_path(Digest.of(bytes(found.data)))
    for tree in trees:
        with contextlib.suppress(ObjectUnreadable):
            entry = entry_at(repo, tree, path)
            if entry is not None and str(entry.id) == obj:
                return True
    return False


_KEPT_NAMED = 5
"""Notes named at most by :func:`named_notes` (then "and N more")."""


def kept_message(repo: pygit2.Repository, remote: str, kept: dict[str, list[bytes]], *,
                 pushing: bool = False) -> str:
    """Say which lines a remote's notes removed and this clone kept (:attr:`Fetched.kept`).

    Args:
        repo: the clone (each note's subject digest is read from its object, when here).
        remote: as given to ``kistore notes fetch`` or ``notes push``.
        kept: not empty.
        pushing: said by ``notes push``, which sends them back itself.

    Returns:
        One line, without ``warning:``: how many lines, on which notes
        (``refs/notes/kistore:OBJ (on sha256:...)``), that REMOTE's notes removed them, that
        they are kept here since notes only grow (KI408), and how they go back to REMOTE.
    """
    back = (f"this push gives them back to {remote} when {remote} accepts it" if pushing else
            f"`kistore notes push {shlex.quote(remote)}` gives them back to {remote} when it "
            "accepts it")
    return (f"{remote}'s notes removed {sum(map(len, kept.values()))} attestation line(s) this "
            f"repository holds, on {len(kept)} note(s): {named_notes(repo, kept)}; kept here, "
            f"as notes only grow (KI408): a removal in {remote}'s notes history is never "
            f"applied. {remote} lacks them: {back}")


def named_notes(repo: pygit2.Repository, objects: Iterable[str]) -> str:
    """Name notes for a message: ``refs/notes/kistore:OBJ (on sha256:...)``, at most five.

    Args:
        repo: the clone (each subject's digest is read from its object, when here: a
            partial clone may lack it, and the note is named without it).
        objects: annotated object ids.

    Returns:
        The notes, sorted, joined by ``, ``; ``and N more`` past :data:`_KEPT_NAMED`.
    """
    objects = sorted(objects)
    named = []
    for obj in objects[:_KEPT_NAMED]:
        found = repo.get(obj)
        on = f" (on {Digest.of(found.data)})" if isinstance(found, pygit2.Blob) else ""
        named.append(f"{NOTES_REF}:{obj}{on}")
    if len(objects) > _KEPT_NAMED:
        named.append(f"and {len(objects) - _KEPT_NAMED} more")
    return ", ".join(named)


def _record_none(repo: pygit2.Repository, remote: str, marker: Path) -> None:
    """Write :data:`kistore.attest.levels.NOTES_NONE`'s file of a remote, with its branches.

    ``remote``: a configured remote's name (``url`` for any other), whose branch tips now
    are kept in it (:func:`kistore.attest.levels.record_branches`).
    Best effort: a ``.git`` this user cannot write leaves the warning as it was.
    """
    record_branches(Path(repo.path), remote, marker)


def _mark_fetched(repo: pygit2.Repository, tracking: str) -> None:
    """Record that the notes of ``tracking`` were fetched now.

    :func:`kistore.attest.levels.fetched_marker`'s file is touched, and the times of
    ``tracking``'s loose file and reflog set (read by stores whose fetch predates that
    file). git writes neither when the remote's notes did not change, and readers tell when the
    notes were last fetched by them (:func:`kistore.attest.levels.notes_stale`: notes
    fetched before the branches of their remote were say so). A ref in ``packed-refs``
    with no reflog keeps no time: nothing is written then (git's files are never made
    here, only their times set).
    """
    common = common_git_dir(Path(repo.path))
    marker = fetched_marker(common, tracking[len(TRACKING_PREFIX):-len("/kistore")])
    # the time git gc leaves alone, and the remote's branch tips now (levels.NOTES_FETCHED);
    # not ours to write: the ref's times below still tell, until a gc
    record_branches(common, tracking[len(TRACKING_PREFIX):-len("/kistore")], marker)
    for path in (common / tracking, common / "logs" / tracking):
        try:
            os.utime(path)
        except OSError:  # not there (packed, no reflog), or not ours to touch: no time
            continue


ASK_TIMEOUT_S = 20
"""How long :func:`remote_notes_moved` waits for ``git ls-remote`` (then: not asked)."""


class RemoteNotes(NamedTuple):
    """What :func:`remote_notes_moved` learnt of a remote's notes ref.

    Attributes:
        remote: the remote asked (:func:`kistore.attest.levels.notes_judged`).
        fetched: when its notes were last fetched here (None: not told).
        moved: True when its ``refs/notes/kistore`` is not the one last fetched (or pushed)
            here; False when it is; None when it could not be asked (``why`` says why).
        why: git's first line of error when ``moved`` is None, else "".
        removed: True when it holds no ``refs/notes/kistore`` though notes were fetched
            from it here and this clone holds notes (``moved`` True): deleted or replaced
            at the remote, where a fetch brings nothing and only ``kistore notes push``
            puts them back (reviewer r93 F7).
    """

    remote: str
    fetched: float | None
    moved: bool | None
    why: str
    removed: bool = False


def remote_notes_moved(store: Store, here: NotesHere | None = None) -> RemoteNotes | None:
    """Ask the judged remote whether its notes moved since they were fetched here (network).

    A withdrawal pushed as notes alone (``kistore notes push``, no branch commit) moves no
    branch, so no offline sign (:func:`kistore.attest.levels.notes_stale`) can tell it, and
    a clone whose ``git pull`` said "Already up to date" published the withdrawn run
    ranked (reviewer r92b F8). ``git ls-remote REMOTE refs/notes/kistore`` tells in one
    round trip: its value against ``refs/notes/remotes/REMOTE/kistore`` as last fetched
    (or pushed; none against none, a remote found holding none); a tip this clone's own
    notes hold (:func:`_holds`: pushed with plain git) has not moved. Asked by publishing
    commands only, never by a query; with ``GIT_TERMINAL_PROMPT=0``, no standard input,
    ssh in batch mode (unless the user set an ssh command) and a time limit
    (:data:`ASK_TIMEOUT_S`): a remote that would prompt, or cannot be reached, is not
    asked (``moved`` None), never waited on.

    Args:
        store: a :class:`kistore.store.Store`.
        here: what :func:`kistore.attest.levels.notes_here` read of it, when the caller
            holds it (read here otherwise).

    Returns:
        :class:`RemoteNotes`, or None when no remote's notes were fetched here (nothing to
        compare: :func:`kistore.attest.levels.notes_lacking` says that).

    Raises:
        OSError: git cannot be run at all (not installed); a remote that cannot be reached
            or answers nothing in time is not asked (``moved`` None), never raised.
    """
    judged = notes_judged(store, here)
    if judged is None:
        return None
    remote, fetched = judged
    repo = store.repo
    theirs, why = _ask_notes_tip(repo, remote)
    if why:
        return RemoteNotes(remote, fetched, None, why)
    tracked = reference(repo, remote_ref(remote))
    held = None if tracked is None else str(tracked.target)
    ours = repo.references.get(NOTES_REF)
    if theirs is None or theirs == held:
        return RemoteNotes(remote, fetched, theirs != held, "",
                           removed=theirs is None and held is not None and ours is not None)
    return RemoteNotes(remote, fetched, not _holds(repo, ours, theirs), "")


def _ask_notes_tip(repo: pygit2.Repository, remote: str) -> tuple[str | None, str]:
    """Ask ``remote`` for its ``refs/notes/kistore`` (``git ls-remote``, one round trip).

    :func:`ask_remote_refs` of the notes ref alone.

    Returns:
        ``(tip, "")``: the remote's notes tip, None when it holds none; or ``(None, why)``
        when it could not be asked (git's first line of error, or the time limit).
    """
    refs, why = ask_remote_refs(repo, remote, NOTES_REF)
    return (None, why) if refs is None else (refs.get(NOTES_REF), "")


def ask_remote_refs(repo: pygit2.Repository, remote: str, *patterns: str
                    ) -> tuple[dict[str, str] | None, str]:
    """Ask ``remote`` for the refs ``patterns`` match (``git ls-remote --refs``, one round trip).

    With ``GIT_TERMINAL_PROMPT=0``, no standard input, ssh in batch mode (unless the user
    set an ssh command) and :data:`ASK_TIMEOUT_S`: a remote that would prompt, or cannot
    be reached, is not waited on.

    Args:
        repo: the clone.
        remote: a remote's name, URL or path (``git ls-remote`` takes each).
        patterns: ``git ls-remote`` patterns (``refs/notes/kistore``, ``refs/tags/*``).

    Returns:
        ``({ref: value}, "")``: each ref the remote holds that matches (an annotated tag's
        value is its tag object, not peeled); or ``(None, why)`` when it could not be asked
        (git's first line of error, or the time limit).
    """
    refuse_blocking_remote_config(Path(repo.path), remote)  # its git-upload-pack would wait
    extra = {"GIT_TERMINAL_PROMPT": "0"}
    if not {"GIT_SSH_COMMAND", "GIT_SSH"} & os.environ.keys() and \
            "core.sshCommand" not in repo.config:
        extra["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
    try:
        result = run_git(
            ["git", "--git-dir", repo.path, "ls-remote", "--refs", remote, *patterns],
            text=True, errors="backslashreplace", stdin=subprocess.DEVNULL,
            env=git_environment(extra), timeout=ASK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"no answer in {ASK_TIMEOUT_S} s"
    if result.returncode != 0:
        said = result.stderr.strip().splitlines()  # git's first line names the cause
        return None, said[0] if said else f"git ls-remote exit {result.returncode}"
    return {name: value for value, _, name in (line.partition("\t") for line in
                                               result.stdout.splitlines()) if name}, ""


def adopt_pushed(store: Store, remote: str) -> bool:
    """Record ``remote``'s notes as fetched when they are this clone's, pushed by git (network).

    A first ``git push origin refs/notes/kistore`` (plain git, to a remote holding no
    notes) writes no ``refs/notes/remotes/origin/kistore``: ``site build`` and ``export``
    were refused as "holds only this clone's own attestations" until a ``kistore notes
    fetch``, though the remote held exactly this clone's notes (reviewer G5). Asked once
    (:func:`_ask_notes_tip`): when the remote's tip is one this clone's notes hold (equal,
    or an ancestor: notes only grow), its notes are recorded as ``kistore notes push``
    records a push (the tracking ref set to that tip, the fetch's record written).

    Args:
        store: the clone.
        remote: a configured remote's name.

    Returns:
        True when recorded; False when the remote could not be asked, holds no notes, or
        holds notes this clone's do not (a fetch is then what is lacking, as said).
    """
    repo = store.repo
    theirs, why = _ask_notes_tip(repo, remote)
    if why or theirs is None or not _holds(repo, repo.references.get(NOTES_REF), theirs):
        return False
    tracking = remote_ref(remote)
    _git(repo, "update-ref", "-m",
         f"kistore: {remote}'s notes are this repository's (pushed by git)", tracking, theirs)
    _mark_fetched(repo, tracking)
    return True


def notes_differ(store: Store, remote: str) -> bool | None:
    """Whether this clone's ``refs/notes/kistore`` differs from ``remote``'s (network).

    What the pre-push hook of a push git handed no ref update asks before it names
    ``kistore notes push`` (low00, fresh99b: a push with nothing to send said it): git
    rejects a notes push that is no fast-forward before its hooks run, which is the one
    case that note is for, and that needs notes here that the remote lacks.

    Args:
        store: the clone.
        remote: the remote pushed to: a name, URL or path (``git ls-remote`` takes each).

    Returns:
        False when this clone holds no notes, or the remote's tip is this clone's; True
        when the two differ (the remote holding none, too); None when the remote could
        not be asked (:func:`_ask_notes_tip`'s time limit, or git's error).
    """
    repo = store.repo
    ours = repo.references.get(NOTES_REF)
    if ours is None:
        return False
    theirs, why = _ask_notes_tip(repo, remote)
    if why:
        return None
    return theirs != str(ours.target)


def _holds(repo: pygit2.Repository, ours: pygit2.Reference | None, theirs: str) -> bool:
    """Whether this clone's notes hold the remote's notes tip ``theirs`` (equal or an ancestor).

    A ``git push origin refs/notes/kistore`` (plain git: no tracking ref written) leaves
    the remote's tip this clone's own; publishing was refused as "not here" (reviewer r93
    F6). Notes only grow (KI408): a tip of ours that descends from theirs holds its lines.
    """
    if ours is None or theirs not in repo:
        return False
    try:
        return str(ours.target) == theirs or repo.descendant_of(ours.target, theirs)
    except (pygit2.GitError, ValueError, KeyError):  # not a commit here: not held
        return False


def _refuse_not_a_commit(repo: pygit2.Repository, remote: str, tracking: str,
                         held: str | None, pushing: bool) -> None:
    """Refuse fetched notes whose ref names a blob, a tree or a tag (KI420's rule).

    Args:
        repo: the clone.
        remote: as given to ``notes fetch`` or ``notes push``.
        tracking: the tracking ref the remote's notes ref was fetched into.
        held: the tracking ref's value before this fetch (its notes as last fetched), or None.
        pushing: ``notes push``'s fetch: the message says that nothing was pushed, and how
            the remote's maintainer (the user, in a bare repository of their own) sets the
            ref back (reviewer r92b F6: the fetch's words were said).

    Raises:
        StoreStateError: naming the remote, what its notes ref names and what to do
            (reviewer r92 F13: "internal error" before).
    """
    value = str(repo.references[tracking].target)
    what = notes_ref_problem(repo, value, tracking)
    if what is None:
        return
    named = f"{remote}'s {NOTES_REF} names {what} ({value[:12]}), not a notes commit"
    why = "(KI420: git's notes are a history of commits)"
    if not pushing:
        raise StoreStateError(
            f"{named}, not merged {why}. Ask its maintainer to set {NOTES_REF} there back "
            "to a notes commit; your notes are unchanged")
    back = (f"`git update-ref {NOTES_REF} {held}` (its notes as this repository last fetched "
            "them)" if held is not None else f"`git update-ref {NOTES_REF} NOTES-COMMIT` "
            "(its last notes commit: `git reflog " + NOTES_REF + "` there)")
    raise StoreStateError(
        f"{named}: nothing pushed {why}, your notes are unchanged. Its maintainer (you, "
        f"if it is a repository of yours) sets it back in that repository: {back}, then "
        f"`kistore notes push {shlex.quote(remote)}` again")


def _refuse_unchecked(repo: pygit2.Repository, remote: str, tracking: str) -> None:
    """Refuse to merge fetched notes whose tree git and kistore read apart (KI424).

    git's merge reads every path of a doubly annotated object and writes one: the lines
    no gate checked would become this clone's note, and its next push be refused (KI409)
    with no word of their origin. Judged against this clone's own notes (the paths the
    fetched tree adds or changes; the whole tree on a first fetch).

    Raises:
        StoreStateError: naming the object (or path), the remote and what to do.
    """
    ours = repo.references.get(NOTES_REF)
    theirs = notes_tree(repo, repo.references[tracking].target, tracking)
    found = path_findings(repo, None if ours is None else notes_tree(
        repo, ours.target, NOTES_REF), theirs)
    if found:
        raise StoreStateError(
            f"{remote}'s {NOTES_REF} holds note lines no gate checked, not merged: "
            f"{found[0].message} (KI424" + (f"; {len(found) - 1} more" if len(found) > 1
                                            else "") +
            f"). Its server lacks kistore's hooks/pre-receive, or predates KI424: ask its "
            f"maintainer to repair {NOTES_REF} there (one path per object); your notes "
            "are unchanged")


def push(store: Store, remote: str, *,
         judge: Callable[[str | None, str, tuple[Redated, ...]], None] | None = None,
         fetched: Callable[[Fetched], None] | None = None,
         line_judge: LineJudge | None = None,
         made_again: Callable[[str | None, str, str], None] | None = None,
         enter_now: bool = False) -> Fetched:
    """Fetch and merge the remote's notes, then push ours; retry when the remote moved.

    Refused, pushing nothing, when a note to push is on an object none of the remote's
    branches holds (:func:`kistore.attest.unsent.subjects_missing`): its pre-receive hook
    would refuse the whole notes update (KI409), and every later one; and when ``judge``
    refuses the update.

    Args:
        store: the clone.
        remote: a remote name or URL.
        judge: called with the remote's notes commit as merged (None: it has none), ours
            and what :func:`kistore.attest.notes_dated.dated_at_push` made again of it
            (empty: nothing), just before each push; raises to refuse it (``kistore notes push``
            passes the pull-request gate's judgement of a notes update,
            :func:`kistore.check.gate.check_updates`, which this layer cannot import: a
            line by a key this clone's trust file has revoked, KI411, went out without a
            word, reviewer r86 F17).
        fetched: called with each fetch's :class:`Fetched` as soon as it is merged (the
            CLI says which lines the remote's notes removed and this clone kept, also when
            the push is then refused).
        line_judge: the lines each fetch would gain are judged by it (:func:`fetch`).
        made_again: called after ``judge`` only when the push makes notes commits again
            (``redated``), with the remote's notes commit, our notes tip (whose history
            dates each line as this clone's readers do) and the commit made again; raises
            to refuse the push (``kistore notes push``: a line whose effect the new entry
            changes, fresh12 F7).
        enter_now: make the notes commits the remote lacks again, dated at the push, even
            when each is within a minute of the clock (``--enter-now``:
            :func:`kistore.attest.notes_dated.dated_at_push`'s ``force``).

    Once pushed, the remote's notes are ours: the tracking ref
    (``refs/notes/remotes/REMOTE/kistore``) is set to the tip pushed, as if fetched (a
    first push to a remote without notes leaves the readers no "notes not fetched").

    To a remote that is not the canonical one, whose notes history ours never takes, the
    commit pushed is made for the push (:func:`_onto_theirs`): a fast-forward there.

    Returns:
        :class:`Fetched` of the fetches along the way (lines gained, lines kept), the
        notes commits the push that succeeded made again dated at it (``redated``), and
        whether the remote held the commit sent already (``held``: nothing went out).

    Raises:
        StoreStateError: git failed; the remote kept moving for several attempts; or it
            lacks the subject of a note to push (each named, with the commands on).
    """
    repo = store.repo
    _refuse_option(remote)
    _refuse_unknown(repo, remote)
    refuse_blocking_remote_config(Path(repo.path), remote, push=True)  # git-receive-pack's
    gained = Fetched()
    for _ in range(_PUSH_ATTEMPTS):
        this = fetch(store, remote, line_judge, pushing=True)
        if fetched is not None:
            fetched(this)
        gained += this
        if repo.references.get(NOTES_REF) is None:
            return gained  # nothing to push
        tracked = reference(repo, _tracking_ref(repo, remote))
        theirs = None if tracked is None else str(tracked.target)
        ours = pushed = repo.references[NOTES_REF].target
        canonical = remote == canonical_remote(remote_names(repo))
        if not canonical:
            pushed = _onto_theirs(repo, pushed, theirs)  # our history never takes theirs
        # a line enters at its notes commit's date: what the remote lacks is dated at the
        # push (KI437), so a clone that attested hours ago is not refused (fresh06)
        redated: list[Redated] = []
        pushed = dated_at_push(repo, pushed, theirs, remote, redated, force=enter_now)
        missing = subjects_missing(repo, remote, theirs, str(pushed))
        if missing:  # the server would refuse the whole update, and every later one (F24)
            raise StoreStateError(unsent_message(repo, remote, missing))
        if judge is not None:
            judge(theirs, str(pushed), tuple(redated))
        if redated and made_again is not None:  # a line's entry moves: its effect too?
            made_again(theirs, str(ours), str(pushed))
        sent_at = datetime.now(UTC)
        result = _git(repo, "push", "--quiet", remote, f"{pushed}:{NOTES_REF}", check=False)
        if result.returncode == 0:  # the remote's notes are ours now: as if fetched
            tracking = _tracking_ref(repo, remote)
            _git(repo, "update-ref", tracking, str(pushed), check=False)
            if canonical and pushed != ours and _tree_of(repo, pushed) == _tree_of(repo, ours):
                # made again at the push (KI437): ours is what the remote holds, as fetched
                _git(repo, "update-ref", NOTES_REF, str(pushed), str(ours), check=False)
            if pushed != repo.references[NOTES_REF].target and _tree_of(repo, pushed) == \
                    _tree_of(repo, repo.references[NOTES_REF].target):  # its every line ours
                _git(repo, "update-ref", _taken_ref(tracking), str(pushed), check=False)
            _mark_fetched(repo, tracking)
            none_marker(Path(repo.path), remote).unlink(missing_ok=True)  # it holds ours
            return replace(gained, redated=tuple(redated), held=theirs == str(pushed))
        if not push_raced(result.stderr):
            # dated at this push: a KI437 refusal says the two clocks differ (fresh07 L2)
            raise StoreStateError(clock_refusal(result.stderr, remote, sent_at)
                                  or f"git push {remote} failed: {result.stderr.strip()}")
    raise StoreStateError(f"{remote} kept moving while pushing {NOTES_REF}; run it again")


def _onto_theirs(repo: pygit2.Repository, ours: pygit2.Oid | str, theirs: str | None
                 ) -> pygit2.Oid | str:
    """Return the notes commit a push to a remote that is not the canonical one sends.

    Our notes never take a fork's notes history (:func:`_merge_into_notes`), so our tip is
    no descendant of the fork's and would not fast-forward it: the commit pushed is made
    for the push alone (no ref of ours moves to it), its parents our tip and the fork's,
    its notes ours with every line the fork's held that ours lack (a line the fetch left
    out stays there: notes only grow, on a fork too). Our tip itself when the fork has
    no notes or ours descends from them.

    Args:
        repo: the clone.
        ours: NOTES_REF's tip.
        theirs: the remote's notes commit as just fetched, or None.

    Returns:
        The commit to push.
    """
    if theirs is None or str(ours) == theirs or repo.descendant_of(ours, theirs):
        return ours
    changed = changed_notes(repo, notes_tree(repo, ours, NOTES_REF),
                            notes_tree(repo, theirs, NOTES_REF))
    scratch = f"refs/notes/kistore-push-{uuid.uuid4().hex}"
    try:
        _git(repo, "update-ref", scratch, str(ours))
        write = {}
        for obj, (mine, their) in changed.items():
            had, more = (set() if blob is None else set(_lines(read_note(
                repo, blob, f"{NOTES_REF}:{obj}"))) for blob in (mine, their))
            if more - had:
                write[obj] = had | more
        if write:
            _write_back(repo, scratch, write, "merge")
        tree = _tree_of(repo, repo.references[scratch].target)
    finally:
        _git(repo, "update-ref", "-d", scratch, check=False)
    return _own_commit(repo, tree, [ours, theirs], "merge our notes into those of a remote "
                       "that is not the canonical one, for its push alone")


def push_raced(stderr: str) -> bool:
    """Tell whether ``git push`` of the notes lost a race with another push (retry it).

    ``[rejected]`` (fetch first, non-fast-forward) is a remote that moved before the push;
    ``[remote rejected] ... (failed to update ref)``, git's ``cannot lock ref ... but
    expected``, is one that moved while its pre-receive hook judged this push (two
    ``kistore notes push`` at once: the loser failed with git's words, reviewer r91 F7).
    Any other ``[remote rejected]`` is the remote's own refusal (a pre-receive hook: KI411,
    notes that do not only grow): not retried.

    Args:
        stderr: ``git push``'s standard error.

    Returns:
        True when fetching, merging and pushing again can succeed.
    """
    if "failed to update ref" in stderr or "cannot lock ref" in stderr:
        return True
    return "remote rejected" not in stderr and ("rejected" in stderr or "fetch first" in stderr)


def _merge_into_notes(repo: pygit2.Repository, theirs: str, remote: str,
                      judge: LineJudge | None, own: bool = False) -> Fetched | None:
    """Merge ``theirs`` into NOTES_REF, keeping every line it held and leaving out refused ones.

    ``git notes merge -s cat_sort_uniq`` on a private ref, then one pass over the notes
    the merge changed (:func:`_settle`), then NOTES_REF moved with a compare-and-swap.

    ``own`` (a remote that is not the canonical one): the notes tree so settled is
    committed anew, its one parent NOTES_REF's tip (none on a first fetch), so that no
    commit of ``theirs`` is reachable from our notes: a fork's history held lines the
    fetch left out (a 20 MB blob, a forged line), and the next ``notes push`` to the
    canonical remote uploaded it for good (reviewer r91 F10). Nothing is written when
    that tree is our tip's.

    Returns:
        :class:`Fetched`: the lines gained, those ``theirs`` removed and the merge kept,
        and those left out; or None when NOTES_REF moved meanwhile (nothing written:
        merge again).
    """
    ref = repo.references.get(NOTES_REF)
    their_tip = repo.references[theirs].target
    old = None if ref is None else ref.target
    if old is not None and (old == their_tip or repo.descendant_of(old, their_tip)):
        return Fetched()
    if old is None and judge is None and not own:
        result = _git(repo, "update-ref", NOTES_REF, str(their_tip), "", check=False)
        return Fetched(_count_lines(repo)) if result.returncode == 0 else None
    scratch = f"refs/notes/kistore-merge-{uuid.uuid4().hex}"
    try:
        _git(repo, "update-ref", scratch, str(their_tip if old is None else old))
        if old is not None:
            _git(repo, "notes", f"--ref={scratch}", "merge", "--quiet", "-s", "cat_sort_uniq",
                 theirs)
        merged = repo.references[scratch].target  # the merge, before anything settled
        settled = _settle(repo, scratch, old, remote, judge)
        new = repo.references[scratch].target
        if not own and new != merged:
            new = _folded(repo, merged, new, remote, settled)
        if own:
            tree = _tree_of(repo, new)
            if old is not None and _tree_of(repo, old) == tree:
                return settled  # nothing gained, nothing written
            new = _own_commit(repo, tree, [] if old is None else [old],
                              _taken_message(remote, settled))
        result = _git(repo, "update-ref", NOTES_REF, str(new), "" if old is None else str(old),
                      check=False)
        return settled if result.returncode == 0 else None
    finally:
        _git(repo, "update-ref", "-d", scratch, check=False)


def _folded(repo: pygit2.Repository, merged: pygit2.Oid | str, settled_tip: pygit2.Oid | str,
            remote: str, settled: Fetched) -> pygit2.Oid | str:
    """Return the merge with what :func:`_settle` wrote on it folded in, when it is a merge.

    Notes only grow in every notes commit a push brings (KI408 per commit, reviewer
    fresh01 F8): a merge commit lacking a line of our side, put back by the commit on top,
    would be refused in the next ``notes push``'s history. So a merge of two sides is
    written again with the settled tree, on the same two parents, and the commit on top
    left out; a fast-forward (theirs, already the remote's) keeps the commit on top.

    Args:
        repo: the repository.
        merged: the scratch ref's tip after ``git notes merge`` (40 hex as an Oid).
        settled_tip: its tip after :func:`_settle` wrote (one commit on ``merged``).
        remote: named in the commit's message.
        settled: what :func:`_settle` kept and left out (the message's words).

    Returns:
        The commit to move NOTES_REF to. Raises nothing but what a commit write raises.
    """
    parents = lookup(repo, merged, NOTES_REF).peel(pygit2.Commit).parent_ids
    if len(parents) < 2:
        return settled_tip
    return _own_commit(repo, _tree_of(repo, settled_tip), list(parents),
                       "; ".join([f"merge the notes of {printable(remote)}",
                                  *_settled_words(remote, settled)]))


def _settle(repo: pygit2.Repository, scratch: str, old: pygit2.Oid | str | None, remote: str,
            judge: LineJudge | None) -> Fetched:
    """Keep every line ``old`` held and leave out each gained line ``judge`` refuses, in one pass.

    ``git notes merge`` takes a remote's removal as it takes any change: a fast-forward
    over a ``git notes remove``, or a removal against a note unchanged here (no conflict,
    so ``cat_sort_uniq`` never runs). Notes only grow (KI408): each line a changed note
    held at ``old`` and lacks at ``scratch`` is put back (reviewer r90 F11). A line taken
    in can never be dropped again, so each line a changed note gained is judged, and a
    refused one left out (reviewer r90b F11).

    Only the notes whose blob differs between ``old`` and ``scratch`` are read
    (:func:`kistore.git.notes.changed_notes`), each once: a fetch costs the notes it
    changes, not the clone's notes. What changes is written in one notes commit on top of
    ``scratch`` (:func:`_write_back`), none when nothing is kept or left out.

    Args:
        repo: the repository.
        scratch: the private ref holding the merge (moved to the new commit, if any).
        old: NOTES_REF's tip before the merge (None: it had no notes).
        remote: named in the commit's message.
        judge: why a gained line may not enter, or None (every one may).

    Returns:
        :class:`Fetched`: the lines the notes gained (after those left out), the lines put
        back (``{annotated: sorted lines}``) and those left out (``{annotated: {line:
        why}}``).
    """
    changed = changed_notes(repo, None if old is None else notes_tree(repo, old, NOTES_REF),
                            notes_tree(repo, repo.references[scratch].target, scratch))
    if changed and judge is not None and is_partial_clone(repo):  # the objects judged
        try:
            fetch_blobs(repo, [obj for obj, (_was, now) in changed.items() if now is not None])
        except StoreStateError:
            pass  # lacking here: not judged (the push says so)

    def lines(obj: str, blob: str | None) -> set[bytes]:
        return set() if blob is None else set(_lines(read_note(repo, blob, f"{NOTES_REF}:{obj}")))

    kept: dict[str, list[bytes]] = {}
    left: dict[str, dict[bytes, str]] = {}
    write: dict[str, set[bytes]] = {}
    gained = 0
    for obj, (was, now) in changed.items():
        had, holds = lines(obj, was), lines(obj, now)
        bad = {} if judge is None else {
            line: why for line in sorted(holds - had) if (why := judge(obj, line)) is not None}
        lost = had - holds
        if lost:
            kept[obj] = sorted(lost)
        if bad:
            left[obj] = bad
        taken = holds - had - bad.keys()
        gained += len(taken)
        if lost or bad:
            write[obj] = had | taken
    settled = Fetched(gained, kept, left)
    if write:
        _write_back(repo, scratch, write, "; ".join(_settled_words(remote, settled)))
    return settled


def _settled_words(remote: str, settled: Fetched) -> list[str]:
    """Say what a fetch kept and left out, for a notes commit's message (none: empty)."""
    said = []
    if settled.kept:
        said.append(f"keep {sum(map(len, settled.kept.values()))} attestation line(s) the "
                    f"notes of {remote} removed (notes only grow, KI408)")
    if settled.left_out:
        said.append(f"leave out {sum(map(len, settled.left_out.values()))} attestation "
                    f"line(s) the notes of {remote} held that may not enter "
                    f"({', '.join(left_out_rules(settled.left_out))})")
    return said


def _taken_message(remote: str, settled: Fetched) -> str:
    """Return the message of the notes commit taking a non-canonical remote's lines."""
    return "; ".join([f"take {settled.gained} attestation line(s) from the notes of {remote}, "
                      f"not its notes history ({remote} is not the canonical remote)",
                      *_settled_words(remote, settled)])


def _own_commit(repo: pygit2.Repository, tree: pygit2.Oid, parents: list[pygit2.Oid | str],
                what: str) -> pygit2.Oid:
    """Write a notes commit of ``tree`` on ``parents`` (no ref moved); return its id."""
    # Lazy: the write path (as add_lines).
    from ..git.idents import signatures

    author, committer = signatures(repo)
    return notes_commit(repo, committer, f"kistore: {what}\n", tree,
                        [pygit2.Oid(hex=str(p)) for p in parents], author=author)


def _with(repo: pygit2.Repository, scratch: str, lines: dict[str, list[bytes]]
          ) -> dict[str, set[bytes]]:
    """Return each note of ``lines`` at ``scratch`` with ``lines`` added (what to write)."""
    return {obj: set(note_lines(repo, obj, scratch)) | set(more) for obj, more in lines.items()}


def _lacking(repo: pygit2.Repository, after: dict[str, str],
             notes: Iterable[tuple[str, str]], read: dict[str, set[bytes]]
             ) -> dict[str, list[bytes]]:
    """Return the lines of ``notes`` (``(annotated, note blob)`` pairs) that ``after`` lacks.

    Args:
        repo: the repository.
        after: ``{annotated: note blob}`` of the notes compared against.
        notes: the notes whose lines must be in ``after``; a pair ``after`` holds as it is
            is skipped unread.
        read: note blob id -> its lines, filled as blobs are read (shared across calls).

    Returns:
        ``{annotated object id: [lines, sorted]}``, only for notes lacking some.
    """
    def lines(obj: str, blob: str) -> set[bytes]:
        if blob not in read:
            read[blob] = set(_lines(read_note(repo, blob, f"{NOTES_REF}:{obj}")))
        return read[blob]

    lost: dict[str, set[bytes]] = {}
    for obj, blob in notes:
        if after.get(obj) == blob:  # the same note: every line kept (no blob read)
            continue
        gone = lines(obj, blob) - (lines(obj, after[obj]) if obj in after else set())
        if gone:
            lost.setdefault(obj, set()).update(gone)
    return {obj: sorted(gone) for obj, gone in sorted(lost.items())}


def _write_back(repo: pygit2.Repository, scratch: str, notes: dict[str, set[bytes]],
                what: str) -> None:
    """Write ``notes`` at ``scratch`` in one notes commit on top of its tip.

    Each note is written sorted and unique (KI409's form), or removed when it holds no
    line; libgit2 makes a commit per note, folded here into one whose parent is
    ``scratch``'s tip as it was.

    Args:
        repo: the repository.
        scratch: a private notes ref (moved to the new commit); absent: the commit has no
            parent (an empty root, :func:`rebase` on a remote holding no notes).
        notes: ``{annotated object id: every line of its note}``, not empty.
        what: the commit's message, after ``kistore: ``.

    Raises:
        StoreStateError: a notes commit could not be written (:mod:`kistore.git.note_writes`:
            one a `git gc` beside broke is written again).
    """
    # Lazy: the write path (as add_lines).
    from ..git.idents import signatures

    who = author, committer = signatures(repo)
    held = repo.references.get(scratch)  # None: the notes start here, from an empty root
    parents = [] if held is None else [pygit2.Oid(hex=str(held.target))]
    for obj, lines in notes.items():
        text = b"".join(line + b"\n" for line in sorted(lines)).decode("utf-8")
        write_note(repo, scratch, obj, text or None, who)  # None: removed
    tree = lookup(repo, repo.references[scratch].target, scratch).peel(pygit2.Commit).tree_id
    one = notes_commit(repo, committer, f"kistore: {what}\n", tree, parents, author=author)
    written(lambda: repo.references[scratch].set_target(one, f"kistore: {what}"), ref=scratch)


class Restored(NamedTuple):
    """What :func:`restore` did to :data:`NOTES_REF`.

    Attributes:
        restored: ``{annotated object id: [lines put back]}`` (empty: the tip holds every
            line that may enter; nothing was written).
        left_out: ``{annotated object id: {line: why}}`` of the lines the judge refused.
        onto: None: the lines were written on :data:`NOTES_REF`'s tip, its history kept;
            else the canonical remote on whose notes, as last fetched, the notes were
            rebuilt (its history held a notes commit that remote lacks removing lines).
        base: with ``onto``: that remote's notes tip rebuilt on (40 hex; None: its notes
            were never fetched, or it holds none: an empty root).
        old: with ``onto``: :data:`NOTES_REF`'s tip before (40 hex).
        removing: with ``onto``: the oldest notes commit found that the remote lacks and
            that removes a line of a parent's note (40 hex).
    """

    restored: dict[str, list[bytes]]
    left_out: dict[str, dict[bytes, str]]
    onto: str | None = None
    base: str | None = None
    old: str | None = None
    removing: str | None = None


def restore(store: Store, judge: LineJudge | None = None) -> Restored:
    """Put back every line the history of :data:`NOTES_REF` or its reflog held that its tip lacks.

    The recovery for a clone whose notes a remote's removal already reached (a ``kistore
    notes fetch`` before 2026-12-04 applied it, reviewer r90 F11; a ``git fetch`` into
    ``refs/notes/kistore`` by hand): the lines are still in the notes history. The notes
    this clone's ref held are on its first-parent line (a fetch's merge has ours first; a
    fast-forward puts the remote's history there, whose lines were served as the remote's
    too). Every parent is read, as KI315 reads them (:mod:`kistore.attest.tip_lacking`): a
    ``git notes merge -s ours`` drops the lines of its second parent (fresh07 M1); and the
    tips the reflog records since the last ``kistore notes rebase``
    (:func:`kistore.attest.notes_reflog.earlier_tips`: the ref moved back, or a forced
    fetch over lines never pushed, fresh07 M6), whose lines enter anew at the commit
    written. A note that cannot be read (past the size limit) is skipped. One notes commit
    on top, moved in with a compare-and-swap (:func:`_write_back`).
    A line left out on purpose (``git notes --ref kistore edit``, as a refused ``notes
    push`` advises) comes back too, unless ``judge`` refuses it: a line that does not
    verify (a fetch took it in before 2026-12-04) stays out (reviewer r90b F11).

    A push brings every notes commit the remote lacks, and refuses one that removes a line
    of a parent's note (KI408 per notes commit, reviewer fresh01 F8): a commit on top of
    such a history was refused at the next push (notes01's leftover). So when a notes
    commit the canonical remote lacks (as last fetched: ``refs/notes/remotes/R/kistore``)
    removes a line (:func:`_removing`), the notes are rebuilt on that remote's notes
    instead, as :func:`rebase` does (without its fetch: restore reads nothing from a
    remote): its tip, plus every line our tip holds and every line put back that it lacks,
    in one notes commit (an empty root when its notes were never fetched or it holds none);
    ``notes push`` then merges what the remote gained since. Our tip's lines are written
    again as they are (``judge`` reads only the lines put back: a bad line at the tip is
    the push's to name); the lines our history added and removed, which the push would
    refuse in that history, stay out with it; the lines written anew enter at this
    commit's time, as in a rebase. A clone with no canonical remote keeps its history.

    Args:
        store: the clone.
        judge: a :data:`LineJudge` of each line to put back; None: every one is.

    Returns:
        :class:`Restored`.

    Raises:
        StoreStateError: the notes ref kept moving under concurrent writers; a partial
            clone whose remote could not give the note blobs.
    """
    repo = store.repo
    remote = canonical_remote(remote_names(repo))
    for _ in range(_CAS_ATTEMPTS):
        ref = repo.references.get(NOTES_REF)
        if ref is None:
            return Restored({}, {})
        old = ref.target
        read_loose_history(repo, old)  # libgit2 loops on a cut loose commit (F3)
        trees: dict[str, dict[str, str]] = {}
        # every parent (as KI315 reads it: a `git notes merge -s ours` drops the other
        # side's lines, fresh07 M1), and the earlier tips the reflog records (fresh07 M6)
        commits = [*repo.walk(old), *earlier_tips(repo, history_trees(repo, old))]
        held = {pair for commit in commits for pair in _flatten(repo, commit.tree, "",
                                                                trees).items()}
        if is_partial_clone(repo):
            fetch_blobs(repo, {blob for _obj, blob in held})
        ours = _notes_of(repo, old)
        read = _unreadable(repo, held - set(ours.items()))
        lost, left = _judged_apart(_lacking(repo, ours, sorted(held), read), judge)
        if not lost:
            return Restored(lost, left)
        tracking = None if remote is None else reference(repo, remote_ref(remote))
        base = None if tracking is None else str(tracking.target)
        removing = None if remote is None else _removing(repo, old, base)
        scratch = f"refs/notes/kistore-restore-{uuid.uuid4().hex}"
        count = sum(map(len, lost.values()))
        try:
            if removing is None:  # on our tip, its history kept
                _git(repo, "update-ref", scratch, str(old))
                _write_back(repo, scratch, _with(repo, scratch, lost),
                            f"keep {count} attestation line(s) its history held (notes only "
                            "grow, KI408)")
            else:
                named = printable(str(remote))  # a commit message is UTF-8
                if base is not None:
                    _git(repo, "update-ref", scratch, base)
                theirs = {} if base is None else _notes_of(repo, base)
                wanted = _lacking(repo, theirs, sorted(ours.items()), read)
                for obj, lines in lost.items():
                    have = set() if obj not in theirs else set(_lines(read_note(
                        repo, theirs[obj], f"{NOTES_REF}:{obj}")))
                    wanted[obj] = sorted(set(wanted.get(obj, [])) | (set(lines) - have))
                wanted = {obj: lines for obj, lines in wanted.items() if lines}
                if wanted:
                    _write_back(repo, scratch, _with(repo, scratch, wanted) if base is not None
                                else {obj: set(lines) for obj, lines in wanted.items()},
                                f"keep {count} attestation line(s) its history held (notes only "
                                f"grow, KI408), with this repository's, on {named}'s notes: "
                                f"notes commit {removing[:12]} removed lines")
            new = str(repo.references[scratch].target)  # base, or a commit written
            if _git(repo, "update-ref", NOTES_REF, new, str(old), check=False).returncode == 0:
                return (Restored(lost, left) if removing is None
                        else Restored(lost, left, remote, base, str(old), removing))
        finally:
            _git(repo, "update-ref", "-d", scratch, check=False)
    raise StoreStateError(f"{NOTES_REF} kept moving under concurrent writers; run it again")


def _unreadable(repo: pygit2.Repository, notes: Iterable[tuple[str, str]]
                ) -> dict[str, set[bytes]]:
    """Return ``{note blob: set()}`` for each note of ``notes`` that cannot be read.

    A note past :data:`kistore.git.note_blobs.NOTE_BYTES` (or damaged) that the history
    held holds no line to put back (fresh07 M4: ``notes restore`` stopped on it, after
    KI117's fix had removed it from the tip). Given to :func:`_lacking` as blobs read.
    """
    skipped: dict[str, set[bytes]] = {}
    for obj, blob in notes:
        if blob not in skipped:
            try:
                read_note(repo, blob, f"{NOTES_REF}:{obj}")
            except ObjectUnreadable:
                skipped[blob] = set()
    return skipped


def _removing(repo: pygit2.Repository, tip: pygit2.Oid | str, theirs: str | None
              ) -> str | None:
    """Return the oldest notes commit a push of ``tip`` brings that removes a line, or None.

    What the push gate refuses in the history a notes push brings (KI408 per notes commit,
    :func:`kistore.check._notes_history.removals`): a commit lacking a line of one of its
    parents' notes. The commits are those ``tip`` reaches and ``theirs`` does not; each
    is diffed against each parent (:func:`kistore.git.notes.changed_notes`: only the
    subtrees that differ), and only the changed notes' blobs are read.

    Args:
        repo: the clone.
        tip: the notes commit to push.
        theirs: the remote's notes tip as last fetched (None: none; every commit is brought).
    """
    walker = repo.walk(tip, parents_first())
    if theirs is not None:
        walker.hide(theirs)
    changed = [(str(commit.id), obj, was, now) for commit in walker for parent in commit.parents
               for obj, (was, now) in changed_notes(repo, parent.tree, commit.tree).items()
               if was is not None]
    if is_partial_clone(repo):
        fetch_blobs(repo, {blob for *_, was, now in changed for blob in (was, now) if blob})
    read: dict[str, set[bytes]] = {}
    for commit, obj, was, now in changed:
        if _lacking(repo, {} if now is None else {obj: now}, [(obj, was)], read):
            return commit
    return None


def _judged_apart(lines: dict[str, list[bytes]], judge: LineJudge | None
                  ) -> tuple[dict[str, list[bytes]], dict[str, dict[bytes, str]]]:
    """Split ``{obj: lines}`` into those ``judge`` lets in and ``{obj: {line: why}}`` refused."""
    left: dict[str, dict[bytes, str]] = {}
    for obj, held in lines.items():
        for line in held:
            why = None if judge is None else judge(obj, line)
            if why is not None:
                left.setdefault(obj, {})[line] = why
    return {obj: kept for obj, held in lines.items()
            if (kept := [line for line in held if line not in left.get(obj, {})])}, left


class Rebased(NamedTuple):
    """What :func:`rebase` did to :data:`NOTES_REF`.

    Attributes:
        base: the remote's notes tip rebuilt on (40 hex digits); None: the remote holds no
            notes, and the notes were rebuilt from an empty root (a commit with no parent).
        old: :data:`NOTES_REF`'s tip before, as the command found it, before its fetch
            (40 hex; None: there was none).
        added: ``{annotated object id: [lines added back on base]}``; empty: no line of
            ours stays, :data:`NOTES_REF` is the remote's tip (deleted when ``base`` is None
            and ``old`` is not: nothing is left to push).
        left_out: ``{annotated object id: {line: why}}`` of the lines the judge refused.
        fetched: what the fetch first did (:func:`fetch`: lines gained, kept, left out).
        marker: the rebuild was the tip the notes ref held (the remote's), and earlier
            tips its reflog records held lines that tip lacks: the marker notes commit
            :data:`NOTES_REF` is now, on that tip, holding its notes (40 hex;
            :func:`kistore.attest.notes_reflog.marker`, fresh12 F12); None: none written.
        dropped: with ``marker``, how many such lines (no longer read by KI315).
    """

    base: str | None
    old: str | None
    added: dict[str, list[bytes]]
    left_out: dict[str, dict[bytes, str]]
    fetched: Fetched = Fetched()
    marker: str | None = None
    dropped: int = 0


def rebase(store: Store, remote: str, judge: LineJudge | None = None, *,
           made_again: Callable[[str | None, str, str], None] | None = None) -> Rebased:
    """Rebuild :data:`NOTES_REF` on a remote's notes tip with the lines this clone added.

    The way out when a notes push is refused for a line or path its notes *history* holds
    and its tip no longer does (KI409, KI424: ``git notes append`` of garbage, then the
    line deleted by ``git notes edit``): no edit of the tip removes a commit from the
    history a push brings (reviewer fresh95 F3). The remote's notes are fetched and merged
    first (:func:`fetch`, as ``notes push`` does: the rebuild is on its notes as they are
    now, not as last fetched, and a remote never fetched from needs no fetch of its own
    first; fixg96), then the notes are reset to its tip
    (``refs/notes/remotes/REMOTE/kistore``, which its server's gate let in), and every
    line our tip holds that the remote's lacks is written back in one notes commit on it
    (:func:`_write_back`; one per time a note's lines entered here, in order, when a note
    gains lines at two times or more: :func:`_in_entry_order`, fresh16 F5), moved in with
    a compare-and-swap. A remote holding no notes
    gives no tip: the lines are written in a notes commit with no parent, an empty root,
    which a push to that remote creates as it is (until fixg96 it was refused, "no notes
    tip to rebuild on"). A bundle's signature is over its statement, not over any commit,
    so a line written again verifies as before. Lines the old history held and its tip no
    longer does (the ones deleted on purpose) stay out; a tip's line ``judge`` refuses
    stays out too, named. When no line of ours stays (our tip holds none the remote's
    lacks, or each is left out), our notes become the remote's: its tip, or, when it holds
    none, no notes at all (:data:`NOTES_REF` deleted; until 2026-12-06 that was refused, "no
    line would stay", while the refused push had named this rebuild: notes01's leftover).
    Nothing is left to push then.

    Args:
        store: the clone.
        remote: a remote name or URL (as :func:`fetch` takes it).
        judge: a :data:`LineJudge` of each line the fetch gains and each line written back;
            None: every one is let in.
        made_again: called before the notes ref moves, when lines of ours are written
            back, with the remote's tip (None: none), our tip and the commit written (each
            line written back enters at its date, now); raises to refuse the rebuild,
            nothing moved (``kistore notes rebase REMOTE``: a line whose effect that
            changes, fresh12 F7).

    Returns:
        :class:`Rebased` (``added`` empty and :data:`NOTES_REF` the remote's tip, or
        deleted when ``base`` is None, when no line of ours stays; ``base`` and ``old``
        None and nothing changed when neither holds notes).

    Raises:
        InputError: ``remote`` starts with ``-``.
        StoreStateError: the fetch failed or was refused (:func:`fetch`), or the notes ref
            kept moving under concurrent writers. Nothing is changed then (but what the
            fetch merged, as ``kistore notes fetch`` would).
        InputError, StoreStateError: a marker notes commit is needed and git names no
            committer (its reason), or it could not be written (nothing changed then, but
            what the fetch merged).
    """
    _refuse_option(remote)
    repo = store.repo
    held = repo.references.get(NOTES_REF)
    before = None if held is None else str(held.target)
    fetched = fetch(store, remote, judge)
    tracking = reference(repo, _tracking_ref(repo, remote))
    base = None if tracking is None else str(tracking.target)  # None: it holds no notes
    for _ in range(_CAS_ATTEMPTS):
        ref = repo.references.get(NOTES_REF)
        old = None if ref is None else str(ref.target)
        if old is None and base is None:
            return Rebased(None, before, {}, {}, fetched)  # no notes either side
        ours = {} if old is None else _notes_of(repo, old)
        if is_partial_clone(repo):
            fetch_blobs(repo, set(ours.values()))
        added, left = _judged_apart(_lacking(repo, {} if base is None else _notes_of(
            repo, base), sorted(ours.items()), {}), judge)
        if base is None and not added:  # no line stays: ours become the remote's, none
            if _git(repo, "update-ref", "-d", NOTES_REF, str(old), check=False
                    ).returncode == 0:
                forget_legacy(repo)  # the reflog went with the ref
                return Rebased(None, before, {}, left, fetched)
            continue
        scratch = f"refs/notes/kistore-rebase-{uuid.uuid4().hex}"
        named = printable(remote)  # a commit message is UTF-8: a non-UTF-8 name escaped
        try:
            if base is not None:
                _git(repo, "update-ref", scratch, base)
            if added:
                _write_back(repo, scratch, _with(repo, scratch, added) if base is not None
                            else {obj: set(lines) for obj, lines in added.items()},
                            f"add back {sum(map(len, added.values()))} attestation line(s) "
                            f"of this repository's on {named}'s notes (kistore notes rebase)"
                            if base is not None else
                            f"{sum(map(len, added.values()))} attestation line(s) of this "
                            f"repository's, from an empty root ({named} holds no notes; kistore "
                            "notes rebase)")
            new = str(repo.references[scratch].target)
            if added and old is not None:  # the order the lines entered here, kept (F5)
                new = _in_entry_order(repo, new, base, old, named)
            if added and old is not None and made_again is not None:
                made_again(base, old, new)  # each line written back enters now
            dropped = 0 if new != old else _reflog_lost(repo, new)
            mark = None if not dropped else marker(repo, new, named, dropped)
            if _git(repo, "update-ref", "-m", f"{REBASE_MESSAGE}{named}", NOTES_REF,
                    mark or new, old or "0" * 40, check=False).returncode == 0:
                forget_legacy(repo)  # logged: the tips before are left on purpose
                return Rebased(base, before, added, left, fetched, mark, dropped)
        finally:
            _git(repo, "update-ref", "-d", scratch, check=False)
    raise StoreStateError(f"{NOTES_REF} kept moving under concurrent writers; run it again")


def _in_entry_order(repo: pygit2.Repository, new: str, base: str | None, old: str,
                    named: str) -> str:
    """Return the rebuild ``new`` (on ``base``), made again in the order its lines entered.

    Written back in one notes commit dated now, a key's ``reproduced`` then its
    ``not-reproduced`` of one run entered together, and the one whose payload is dated later
    stood (fresh16 F5): when a note gains lines that entered here (``old``'s history) at
    two times or more, the lines are written in one notes commit per time, in order, a
    second apart (:func:`kistore.attest.notes_in_order.in_order`), the last of ``new``'s
    tree; else ``new`` as it is. Raises StoreStateError when a commit cannot be written.
    """
    # Lazy: the write path (as add_lines).
    from ..git.idents import signatures
    from .notes_in_order import entry_steps, in_order

    steps = entry_steps(repo, new, base, old)
    if not steps:
        return new
    return str(in_order(repo, new, base, f"attestation lines of this repository's written "
                        f"back on {named}'s notes (kistore notes rebase)", int(time.time()),
                        steps, signatures(repo))[-1])


def _reflog_lost(repo: pygit2.Repository, tip: str) -> int:
    """Count the lines the reflog's earlier tips held that ``tip``'s notes lack (KI315's half)."""
    trees: dict[str, dict[str, str]] = {}
    held = {pair for commit in earlier_tips(repo, history_trees(repo, tip))
            for pair in _flatten(repo, commit.tree, "", trees).items()}
    ours = _notes_of(repo, tip)
    lost = _lacking(repo, ours, sorted(held), _unreadable(repo, held - set(ours.items())))
    return sum(map(len, lost.values()))


def _notes_of(repo: pygit2.Repository, commit: pygit2.Oid | str) -> dict[str, str]:
    """Return ``{annotated object id: note blob id}`` of one notes commit (any fan-out)."""
    return _flatten(repo, notes_tree(repo, commit, NOTES_REF), "", {})


def _count_lines(repo: pygit2.Repository) -> int:
    """Count the lines of the notes at :data:`NOTES_REF`'s tip (as :func:`notes_entered` does).

    The tip's notes only, not their history (the lines of each note are the distinct lines
    :func:`notes_entered` keys by): what a first fetch with no judge gains.
    """
    tip = repo.references.get(NOTES_REF)
    if tip is None:
        return 0
    notes = _notes_of(repo, tip.target)
    counts: dict[str, int] = {}  # notes of equal bytes share a blob: read it once
    for annotated, blob in notes.items():
        if blob not in counts:
            counts[blob] = len(set(_lines(read_note(repo, blob, f"{NOTES_REF}:{annotated}"))))
    return sum(counts[blob] for blob in notes.values())


def _tracking_ref(repo: pygit2.Repository, remote: str) -> str:
    """Return the tracking notes ref of ``remote``: its own when configured, else ``url``'s.

    A name no remote has (a typo, a URL, a path, or a 10,000-character argument, which as
    a ref name made pygit2 raise ValueError: an internal error) is fetched from as git
    resolves it, into ``refs/notes/remotes/url/kistore``; git says when it is no remote.
    """
    return remote_ref(remote if remote in remote_names(repo) else "url")


def _refuse_option(remote: str) -> None:
    """Refuse a remote that git would take for an option (``--upload-pack=CMD`` runs CMD)."""
    if remote.startswith("-"):
        raise InputError(f"{shorten(repr(remote))} is not a remote: a remote name or URL does "
                         "not start with '-'")


def _refuse_unknown(repo: pygit2.Repository, remote: str) -> None:
    """Refuse a name that is no remote of ``repo``, nor a URL or path (break96 L4).

    git reads such a name as a path and says only "'nosuch' does not appear to be a git
    repository ... Please make sure you have the correct access rights".

    Raises:
        InputError: naming the remotes there are (:func:`kistore.git.remotes.unknown_remote`)
            and what to do.
    """
    unknown = unknown_remote(repo, remote)
    if unknown is not None:
        raise InputError(f"{printable(unknown)}: name a remote it has or a URL (`git remote "
                         "-v` lists its remotes with their URLs), or add this one first (`git "
                         f"remote add {printable(shorten(remote))} URL`)")


def _git(repo: pygit2.Repository, *args: str, check: bool = True
         ) -> subprocess.CompletedProcess[str]:
    # git echoes a remote name that is not UTF-8 back: shown escaped, never a decode error
    result = run_git(["git", "--git-dir", repo.path, *args], text=True,
                     errors="backslashreplace", env=git_environment())
    if check and result.returncode != 0:
        raise StoreStateError(f"git {' '.join(args)} failed: {result.stderr.strip()}")
    return result
