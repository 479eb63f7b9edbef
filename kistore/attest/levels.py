"""What a reader shows of a run's evidence without judging any attestation.

The evidence level names, the :class:`Evidence` of one run (a run with no attestation has
the default: ``source-native``, none counted), and whether this clone lacks the notes that
hold attestations (:func:`notes_not_fetched`) or fetched them before its branches
(:func:`notes_stale`). :mod:`.evidence` judges bundles into an
:class:`Evidence`; this module holds what ``rank`` and a run page need when no run of the
group may be attested, so they load no signature, note or finding code (issue 22:
start-up; docs/speed.md).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote, unquote

from ..core.layout import NOTES_REF
from ..git.config_files import remote_urls
from ..git.config_files import remotes as configured_remotes
from ..git.refs import (
    RefsUnreadable,
    common_git_dir,
    ref_values_under,
    reflog_last_time,
    reflog_mtime,
    reflog_newest_first,
    refs_under,
    resolve,
)
from ..git.remotes import configured

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

SOURCE_NATIVE = "source-native"
VERIFIED = "verified"
WITHDRAWS = "withdraws"
"""The effect of a valid maintainer withdrawal (:mod:`.evidence` judges it so)."""

NOT_FETCHED = "notes not fetched: run `kistore notes fetch {typed}`: {why}"
"""What ``attestations``, ``show`` and ``verify`` say in a clone without a remote's notes.

Formatted with the remote to fetch from (:func:`notes_remote`), shell-quoted as ``typed``
(a remote named by a path with a space: the command runs as printed), and
:func:`notes_lacking`'s reason."""

TRACKING_PREFIX = "refs/notes/remotes/"
"""Where ``kistore notes fetch R`` keeps R's notes as last fetched: :func:`remote_ref`."""

ABSENT = (f"{NOTES_REF} is not in this repository (no note was made here, and git clone and "
          "git fetch do not fetch notes)")
"""Why the notes are lacking when the repository has no notes ref at all.

Not "not in this clone": a store made with ``kistore init`` and given a new remote is no
clone (reviewer fresh99b, fresh98 LOW)."""

LOCAL_ONLY = (f"{NOTES_REF} holds only this repository's own attestations: no remote's notes "
              "were fetched into it (git clone and git pull do not fetch them; a remote "
              "holding none makes this repository the only holder: `kistore notes push "
              "REMOTE` gives it yours; a plain `git push` of them leaves no trace here, no "
              "tracking ref, and "
              "queries ask no remote: `kistore notes fetch REMOTE` records them as the "
              "remote's)")
"""Why they are lacking when the notes ref holds what was attested here, nothing fetched.

A plain ``git push origin refs/notes/kistore`` writes nothing in this clone: git updates
a remote-tracking ref on a push only where a fetch refspec maps the pushed ref to one, and
the default maps ``refs/heads/*`` alone; so whether the remote holds these notes is known
only by asking it, which queries never do (offline, and a warm query reads plain files
only). Publishing asks once (:func:`kistore.attest.notes.adopt_pushed`); a ``kistore notes
fetch`` records it too (msg95 6: the warning read as if the push had been missed)."""

LOCAL_ONLY_SHORT = (f"{NOTES_REF} holds only the attestations made here (if the remote holds "
                    "none, the fetch records so and this goes)")
""":data:`LOCAL_ONLY` as KI308 (an info of ``verify``) says it: the advice to fetch, not the
whole story of pushing and tracking refs, which ``attestations`` and ``show`` tell (fresh00b
LOW: ~80 words of it in a store made here whose remote held no notes)."""


class Evidence(NamedTuple):
    """What the attestations about one run amount to.

    A named tuple, not a frozen dataclass: making one costs ~1.5 ms of start-up (its
    methods are compiled), on every run page and ``rank`` (docs/speed.md).

    Attributes:
        level: ``source-native`` or ``verified``.
        withdrawn: True when a valid maintainer withdrawal applies (never ranked then).
        community: number of valid community attestations (counted, never raising level).
        attestations: a summary per attestation seen (type, keyid, valid, reason, source);
            a tuple, so that the default (none) is immutable too.
    """

    level: str = SOURCE_NATIVE
    withdrawn: bool = False
    community: int = 0
    attestations: tuple[dict[str, Any], ...] = ()


class NotesHere(NamedTuple):
    """What this clone holds of the notes, read from plain files where it can.

    Read by :func:`notes_here`; a command that asks several questions of it (``site
    build`` and ``export``: lacking, stale, moved at the remote) reads it once and passes
    it to each (their ``here``), as nothing it does in between writes it.

    Attributes:
        local: ``refs/notes/kistore`` is here.
        remotes: the configured remotes, sorted by name.
        fetched: ``{R: time}`` for each ``refs/notes/remotes/R/kistore`` (R's notes as
            ``kistore notes fetch R`` last fetched them) whose tip ``refs/notes/kistore``
            holds (:func:`_merged`); the time of that fetch (:func:`_fetched_at`), None
            when it cannot be told.
        by_git: a remote's fetch refspec writes ``refs/notes/kistore`` itself (a ``git
            clone --mirror``'s ``+refs/*:refs/*``): every ``git fetch`` of it fetches them.
        empty: ``{R: time}`` for each remote ``kistore notes fetch`` last found holding no
            notes (:data:`NOTES_NONE`), at the time of that fetch (its file's; None when it
            cannot be told).
        bare: the repository has no work tree (a server: clones push their notes to it).
        unmerged: the remotes whose tracking ref holds notes ``refs/notes/kistore`` does
            not (:func:`_merged`): moved by a plain ``git fetch`` through a fetch refspec of
            the user's, which merges nothing; left out of ``fetched``.
    """

    local: bool
    remotes: tuple[str, ...]
    fetched: dict[str, float | None]
    by_git: bool
    empty: dict[str, float | None]
    bare: bool = False
    unmerged: tuple[str, ...] = ()


NOTES_NONE = "kistore/notes-none"
"""Under the common git directory: one empty file per remote (its name percent-encoded)
that ``kistore notes fetch`` found holding no ``refs/notes/kistore``. git writes no tracking
ref then, and the warning that no remote's notes were fetched stayed on every query, though
its advice had been followed (reviewer r89 F9): once every remote is so recorded, the notes
are not lacking (:func:`notes_lacking`; a fork holding none does not answer for its
upstream, r86 F10). A later fetch that finds notes removes the file."""


NOTES_FETCHED = "kistore/notes-fetched"
"""Under the common git directory: one empty file per remote (its tracking ref's name,
percent-encoded), whose time is when ``kistore notes fetch`` (or ``notes push``) last
fetched that remote's notes. git's own files cannot keep that time: ``git gc`` packs the
tracking ref (its file, and its time, go) and rewrites every reflog (their times become
gc's), so notes fetched before a ``git pull`` looked fetched after it once gc had run
(:func:`notes_stale`). Stores fetched before the file existed fall back to the ref's and
reflog's times."""


def none_marker(git_dir: Path, remote: str) -> Path:
    """Return the file that says ``kistore notes fetch REMOTE`` found no notes there."""
    return _remote_file(git_dir, NOTES_NONE, remote)


def fetched_marker(git_dir: Path, remote: str) -> Path:
    """Return the file whose time is when REMOTE's notes were last fetched (:data:`NOTES_FETCHED`).

    Args:
        git_dir: the repository's git directory.
        remote: the name in the remote's tracking ref ``refs/notes/remotes/REMOTE/kistore``.
    """
    return _remote_file(git_dir, NOTES_FETCHED, remote)


def _remote_file(git_dir: Path, directory: str, remote: str) -> Path:
    """Return ``<common git dir>/DIRECTORY/<remote, percent-encoded>``."""
    # a remote name that is not UTF-8 (git passes its bytes): its bytes, percent-encoded
    return common_git_dir(git_dir) / directory / quote(
        remote.encode("utf-8", "surrogateescape"), safe="")


def _fetched_none(git_dir: Path) -> dict[str, float | None]:
    """Return each remote a fetch found holding no notes, with that fetch's time.

    Read from :data:`NOTES_NONE`'s files: a remote's name and its file's modification time
    (``kistore notes fetch`` touches it each time it finds none; None when it cannot be
    read). Empty when none is recorded (the usual case).
    """
    folder = common_git_dir(git_dir) / NOTES_NONE
    try:
        names = os.listdir(folder)
    except OSError:  # none recorded (the usual case)
        return {}
    found: dict[str, float | None] = {}
    for name in names:
        try:
            found[unquote(name, errors="surrogateescape")] = os.stat(folder / name).st_mtime
        except OSError:  # gone meanwhile, or unreadable: recorded, time unknown
            found[unquote(name, errors="surrogateescape")] = None
    return found


def remote_ref(remote: str) -> str:
    """Return the ref a remote's notes are fetched into: ``refs/notes/remotes/REMOTE/kistore``."""
    return f"{TRACKING_PREFIX}{remote}/kistore"


def notes_here(store: Store, *, ask_git: bool = False) -> NotesHere:
    """Read :class:`NotesHere`: plain files first (a warm query loads no libgit2).

    A repository whose refs or config plain files cannot tell (reftable, an old-style
    ``[remote.NAME]`` section) is asked through libgit2, which gives no fetch times.
    The one reader of it: :func:`notes_lacking`, :func:`notes_remote`,
    :func:`notes_stale` and :func:`notes_judged` call it when not handed what it read.

    Args:
        store: a :class:`kistore.store.Store`.
        ask_git: take the remotes and their fetch refspecs from git
            (:func:`kistore.git.remotes.configured`: one child, every configuration source
            git reads, fresh12 F1), as a command that publishes does; False: from the
            repository's own configuration file (a query pays no child).

    Returns:
        The notes ref, the remotes, each remote's last notes fetch (or fetch that found
        none), whether git fetches the notes itself, whether the repository is bare.

    Raises:
        OSError: the git directory cannot be listed at all (its plain files, then
            libgit2, failed).
    """
    git_dir = Path(store.git_dir)
    try:
        local = resolve(git_dir, NOTES_REF) is not None
        specs = ({name: fetch for name, (_urls, fetch) in configured(git_dir).items()}
                 if ask_git else configured_remotes(git_dir))
        remotes = list(specs)
        by_git = any(_writes_notes(spec) for fetch in specs.values() for spec in fetch)
        tracking = refs_under(git_dir, TRACKING_PREFIX)
        fetched = {name[len(TRACKING_PREFIX):-len("/kistore")]: _fetched_at(git_dir, name, when)
                   for name, when in tracking.items() if name.endswith("/kistore")}
        unmerged = tuple(sorted(r for r in fetched if not _merged(store, git_dir, r)))
    except (RefsUnreadable, OSError):
        repo = store.repo
        local = NOTES_REF in repo.references
        remotes = sorted(remote.name or "" for remote in repo.remotes)
        by_git = any(_writes_notes(spec) for remote in repo.remotes
                     for spec in remote.fetch_refspecs)
        fetched = {name[len(TRACKING_PREFIX):-len("/kistore")]: None
                   for name in repo.references
                   if name.startswith(TRACKING_PREFIX) and name.endswith("/kistore")}
        unmerged = tuple(sorted(r for r in fetched if not _held(
            store, None, str(repo.references[remote_ref(r)].target))))
    for remote in unmerged:
        del fetched[remote]
    return NotesHere(local, tuple(remotes), fetched, by_git, _fetched_none(git_dir),
                     store.root is None, unmerged)


def _merged(store: Store, git_dir: Path, remote: str) -> bool:
    """Whether ``refs/notes/kistore`` holds the notes ``refs/notes/remotes/REMOTE/kistore`` holds.

    A fetch refspec of the user's (``+refs/notes/kistore:refs/notes/remotes/origin/kistore``,
    or ``+refs/notes/*:refs/notes/remotes/origin/*``) makes every plain ``git fetch`` move
    the tracking ref and merge nothing: queries took the notes as fetched while the
    remote's lines were missing, with no warning (msg95). The tracking ref counts when its
    tip is the one ``kistore notes fetch`` (or ``notes push``) last merged or pushed (kept
    in :func:`fetched_marker`'s record, :func:`record_branches`) or ``refs/notes/kistore``'s
    own (a plain ``git push`` through such a refspec): plain files. Else libgit2 says
    whether our notes descend from it (merged by hand, or a record written before it kept
    the tip): on that rare path only (start-up, docs/speed.md).
    """
    name = remote_ref(remote)
    tip = resolve(git_dir, name)
    if tip is None:
        return True  # gone meanwhile: nothing unmerged to tell of
    if tip == resolve(git_dir, NOTES_REF):
        return True
    kept = _seen_branches(fetched_marker(git_dir, remote))
    if kept is not None and kept.get(name) == tip:
        return True
    return _held(store, resolve(git_dir, NOTES_REF), tip)


def _held(store: Store, ours: str | None, theirs: str) -> bool:
    """Whether the notes commit ``ours`` (None: our notes tip) is ``theirs`` or descends from it."""
    # Lazy: libgit2, only when no plain file tells (start-up, docs/speed.md).
    import pygit2

    repo = store.repo
    try:
        if ours is None:
            held = repo.references.get(NOTES_REF)
            if held is None:
                return False
            ours = str(held.target)
        return ours == theirs or (theirs in repo and repo.descendant_of(ours, theirs))
    except (pygit2.GitError, ValueError, KeyError):  # not a commit here: not held
        return False


def _writes_notes(refspec: str) -> bool:
    """Whether a fetch refspec (``+SRC:DST``, ``DST`` maybe with one ``*``) writes NOTES_REF."""
    if refspec.startswith("^"):  # a negative refspec writes nothing
        return False
    destination = refspec.lstrip("+").partition(":")[2]
    head, star, tail = destination.partition("*")
    if not star:
        return destination == NOTES_REF
    return (len(head) + len(tail) < len(NOTES_REF) and NOTES_REF.startswith(head)
            and NOTES_REF.endswith(tail))


def _fetched_at(git_dir: Path, name: str, loose: float | None) -> float | None:
    """Return when the notes were last fetched into the tracking ref ``name``.

    The time of :func:`fetched_marker`'s file, which ``kistore notes fetch`` and ``notes
    push`` set to now after each fetch (:func:`kistore.attest.notes.fetch`), or a later
    update of the ref itself (by hand: its loose file's time ``loose``, its reflog's last
    entry). Without that file (notes fetched before it was kept), the later of ``loose``
    and the reflog file's time, which the fetch set too, as git writes neither when
    nothing changed. None when none is there (a packed ref in a repository that keeps no
    reflog).
    """
    remote = name[len(TRACKING_PREFIX):-len("/kistore")]
    try:
        marked: float | None = os.stat(fetched_marker(git_dir, remote)).st_mtime
    except OSError:  # fetched before the file was kept, or never by kistore
        marked = None
    later = reflog_mtime(git_dir, name) if marked is None else reflog_last_time(git_dir, name)
    times = [t for t in (marked, loose, later) if t is not None]
    return max(times) if times else None


def notes_lacking(store: Store, here: NotesHere | None = None) -> str | None:
    """Say why this clone lacks its remote's notes, or None when it does not.

    Git does not fetch notes by default, so a fresh clone has none: its attestations are
    not "none", they are not here. A clone is a repository with a remote; its notes count as
    fetched once ``kistore notes fetch`` (or ``notes push``) wrote a remote's notes into
    ``refs/notes/remotes/R/kistore`` and ``refs/notes/kistore`` holds that ref's tip (a
    plain ``git fetch`` through a user's refspec moves it and merges nothing: msg95). The
    local ``refs/notes/kistore`` alone does not
    count: one ``kistore attest`` made before any fetch writes it, and then held none of
    the remote's attestations (a maintainer's withdrawal) while every warning was silent
    (reviewer r86 F21). Unless a remote's fetch refspec writes ``refs/notes/kistore``
    itself (a ``git clone --mirror``): every ``git fetch`` then brings the notes. Nor in a
    bare repository into which no notes were fetched by kistore: a server made with ``git
    clone --bare`` has an ``origin``, but its ``refs/notes/kistore`` is where every clone
    pushes its notes, the canonical ones; ``site build`` there was refused, offering
    ``--without-attestations``, which publishes withdrawn runs ranked (reviewer r92 F10).
    A store with no remote has nothing to fetch: None; nor has one whose every remote `kistore notes
    fetch` found holding none (:data:`NOTES_NONE`). Notes fetched only from remotes that
    are not the canonical one (:func:`canonical_remote`) do not count: a stale fork's
    notes stood for the index's, and ``site build`` published a run the index had
    withdrawn (reviewer r91 F4).

    Args:
        store: a :class:`kistore.store.Store`.
        here: what :func:`notes_here` read of it, when the caller holds it (read here
            otherwise).

    Returns:
        :data:`ABSENT` (no notes ref), :data:`LOCAL_ONLY` (only this repository's own),
        :data:`UNMERGED` (the canonical remote's notes fetched by a plain ``git fetch``
        into its tracking ref and not merged: :func:`_merged`) or
        :data:`CANONICAL_NOT_FETCHED` filled in; None when the canonical remote's notes
        (any remote's, where none is canonical) were fetched or there is no remote.

    Raises:
        OSError: with ``here`` None, as :func:`notes_here` (the git directory cannot be
            listed).
    """
    return _lacking(notes_here(store) if here is None else here)


CANONICAL_NOT_FETCHED = ("the notes of {canonical}, the canonical remote, were never fetched "
                         "into this repository, only those of {others}")
"""Why the notes are lacking when only other remotes' (a fork's) were fetched (r91 F4)."""


UNMERGED = ("{ref} holds notes of {remote} that {notes} does not: a plain `git fetch` "
            "brought them there (a fetch refspec of this repository maps the notes to it) and "
            "merged nothing, and queries read {notes} alone")
"""Why the notes are lacking when a remote's tracking ref moved past ours (:func:`_merged`)."""


def _lacking(here: NotesHere) -> str | None:
    """:func:`notes_lacking` of what :func:`notes_here` read."""
    if not here.remotes or (here.local and (here.by_git or here.bare and not here.fetched
                                            and not here.empty and not here.unmerged)):
        return None  # fetched by every git fetch; or a server's own, pushed to it
    canonical = canonical_remote(here.remotes)
    unmerged = _unmerged(here, canonical)
    if unmerged is not None:
        return UNMERGED.format(ref=remote_ref(unmerged), remote=unmerged, notes=NOTES_REF)
    if here.fetched:  # a fork's notes do not answer for the index's (reviewer r91 F4)
        if canonical is None or canonical in here.fetched or canonical in here.empty:
            return None
        return CANONICAL_NOT_FETCHED.format(canonical=canonical,
                                            others=", ".join(sorted(here.fetched)))
    if here.empty.keys() >= set(here.remotes):  # every remote fetched, none holds notes
        return None  # (a fork holding none is no answer while upstream was not asked)
    return LOCAL_ONLY if here.local else ABSENT


def _unmerged(here: NotesHere, canonical: str | None) -> str | None:
    """Return the remote whose notes git fetched unmerged that the reader lacks, or None.

    The canonical remote's (the index's); where no remote is canonical, the first unmerged
    one when no other remote's notes were merged.
    """
    if canonical is not None:
        return canonical if canonical in here.unmerged else None
    return here.unmerged[0] if here.unmerged and not here.fetched else None


def notes_not_fetched(store: Store, *, short: bool = False) -> str | None:
    """Return :data:`NOT_FETCHED` naming the remote and the reason, when the notes are lacking.

    Args:
        store: a :class:`kistore.store.Store`.
        short: say :data:`LOCAL_ONLY` as :data:`LOCAL_ONLY_SHORT` (KI308).

    Returns:
        ``notes not fetched: run `kistore notes fetch REMOTE`: WHY`` (:func:`notes_remote`,
        :func:`notes_lacking`), or None when a remote's notes were fetched here or there is
        nowhere to fetch them from.
    """
    here = notes_here(store)
    why = _lacking(here)
    if why is None:
        return None
    # Lazy: shlex for this message only (start-up, docs/speed.md).
    import shlex

    return NOT_FETCHED.format(typed=shlex.quote(str(_advised(here))),
                              why=LOCAL_ONLY_SHORT if short and why == LOCAL_ONLY else why)


def notes_remote(store: Store, here: NotesHere | None = None) -> str | None:
    """Return the remote to fetch the notes from, for advice.

    The remote whose notes were fetched last (its ``refs/notes/remotes/R/kistore``); else
    ``upstream`` when there is one (a fork layout: ``origin`` is the contributor's fork,
    which holds no notes or old ones, reviewer r86 F10); else ``origin``; else the first by
    name.

    Args:
        store: a :class:`kistore.store.Store`.
        here: as :func:`notes_lacking` takes it.

    Returns:
        A configured remote's name, or None when there is no remote (a store made here: its
        attestations are those made here, nothing to fetch).

    Raises:
        OSError: with ``here`` None, as :func:`notes_here`.
    """
    return _advised(notes_here(store) if here is None else here)


def canonical_remote(remotes: Iterable[str]) -> str | None:
    """Return the canonical remote among a clone's remotes: the index's own, whose gate vouches.

    ``upstream`` when there is one (a fork layout: ``origin`` is the contributor's fork,
    reviewer r86 F10); else ``origin`` (a clone of the index); else the one remote of a
    clone that has only one; else None (no remote is canonical: each is taken as a fork).
    Another remote (a fork fetched to review its pull request, a mirror, a URL) is not:
    ``kistore notes fetch`` takes its notes' lines, never its notes history (reviewer r91
    F10), and leaves out its lines about a run no branch of the canonical remote holds
    (r91 F11).

    Args:
        remotes: the configured remotes' names.

    Returns:
        The canonical remote's name, or None.
    """
    names = sorted(set(remotes))
    for name in ("upstream", "origin"):
        if name in names:
            return name
    return names[0] if len(names) == 1 else None


def _advised(here: NotesHere) -> str | None:
    """:func:`notes_remote` of what :func:`notes_here` read."""
    if not here.remotes:
        return None
    canonical = canonical_remote(here.remotes)
    unmerged = _unmerged(here, canonical)
    if unmerged is not None:  # fetched by git, not merged: `kistore notes fetch` merges them
        return unmerged
    fetched = [r for r in here.remotes if r in here.fetched]
    if fetched and canonical is not None and canonical not in here.fetched and \
            canonical not in here.empty:  # only a fork's were: the index's are lacking
        return canonical
    if fetched:  # the latest fetch; an unknown time counts as the oldest, then by name
        return max(fetched, key=lambda r: (here.fetched[r] or 0.0, -here.remotes.index(r)))
    for name in ("upstream", "origin"):
        if name in here.remotes:
            return name
    return here.remotes[0]


STALE = ("notes last fetched from {remote} {fetched}{none}; the branches were fetched since "
         "({branches}): run `kistore notes fetch {typed}`")
"""What :func:`notes_stale` says (times as RFC 3339 UTC; ``none``: :data:`HELD_NONE` or "")."""

HELD_NONE = " (it held none then)"
"""Said after the time of a notes fetch that found the remote holding no notes."""


def notes_stale(store: Store, here: NotesHere | None = None) -> str | None:
    """Say when the notes were fetched before the branches of the same remote were.

    ``git pull`` and ``git fetch`` never fetch notes (reviewer r86 F2): a clone that ran
    ``kistore notes fetch R`` once and ``git pull`` since may lack R's newer attestations.
    Judged for the canonical remote, else the one fetched last (:func:`_judged`; until
    2026-12-05 only the one fetched last, reviewer r91 F4), each R whose notes were fetched
    here (or found holding none, :data:`NOTES_NONE`: a remote that gains notes later is
    asked again after the next ``git pull``, reviewer r90 F10). Told offline: a branch of R
    (``refs/remotes/R/*``, but ``HEAD``) whose tip is not the one the notes fetch kept
    (:func:`record_branches`) moved since (reviewer r91 F9: no reflog or gc hides it),
    unless its reflog shows this clone's pushes alone moved it (:func:`_pushed_only`,
    reviewer r92 F9);
    for a record that keeps no tips (before 2026-12-05), when the notes were last fetched
    (:func:`_fetched_at`) against when a branch of R last moved (:func:`_branches_moved`:
    a loose ref's file time, or a packed one's last reflog entry). A packed branch without
    a reflog has no time there and counts as older; so does an unknown notes fetch time:
    when in doubt, nothing is said.

    Args:
        store: a :class:`kistore.store.Store`.
        here: as :func:`notes_lacking` takes it.

    Returns:
        :data:`STALE` filled in, or None (notes fetched after the branches moved, or no
        remote's notes fetched: :func:`notes_not_fetched` says that, or nothing to tell by).

    Raises nothing: refs or files it cannot read (``RefsUnreadable``, ``OSError``) answer
    None, as when in doubt.
    """
    try:
        here = notes_here(store) if here is None else here
        for remote in _judged(here):
            said = _stale(store, here, remote)
            if said is not None:
                return said
    except (RefsUnreadable, OSError):
        return None
    return None


def notes_judged(store: Store, here: NotesHere | None = None
                 ) -> tuple[str, float | None] | None:
    """Return the remote whose notes freshness is judged, and when its notes were last fetched.

    The remote of :func:`notes_stale` (:func:`_judged`): the canonical one when its notes
    were fetched here (or found holding none), else the one fetched last. Read by
    :func:`kistore.attest.notes.remote_notes_moved`, which asks that remote (network) at
    publishing time whether its notes moved since, as no branch tells of a notes-only
    push (reviewer r92b F8).

    Args:
        store: a :class:`kistore.store.Store`.
        here: as :func:`notes_lacking` takes it.

    Returns:
        ``(REMOTE, time of its last notes fetch or None)``, or None when no remote's notes
        were fetched here (or the refs cannot be read).

    Raises nothing: refs it cannot read answer None.
    """
    try:
        here = notes_here(store) if here is None else here
    except (RefsUnreadable, OSError):
        return None
    for remote in _judged(here):
        times = [t for t in (here.fetched.get(remote), here.empty.get(remote)) if t is not None]
        return remote, max(times, default=None)
    return None


def _judged(here: NotesHere) -> list[str]:
    """Return the remote whose notes staleness is judged for: the canonical one, else the last.

    The canonical remote (:func:`canonical_remote`, the index's), when its notes were
    fetched here (or found holding none), else the remote whose notes were fetched last
    (:func:`_advised`). Until 2026-12-05 only the one fetched last was, so a fork's notes
    fetched (or pushed) to review a pull request hid that a ``git pull`` from ``origin``
    had brought a withdrawal's trust since origin's notes were fetched (reviewer r91 F4).
    Other remotes a notes fetch once reached (a fork reviewed last month) are not judged:
    every ``git fetch`` of their branches would refuse publishing until their notes were
    fetched again, though the index's notes are the canonical remote's. Nor, since
    2026-12-05, the remote fetched last when the canonical one's notes were fetched: a
    fork's branches are not what is published, so ``notes fetch origin``, ``notes fetch
    fork``, ``git fetch fork`` refused ``site build`` of main though origin's notes were
    current (reviewer r92 F15). The remote fetched last is judged only when the canonical
    one's notes never were (or there is no canonical remote).
    """
    canonical = canonical_remote(here.remotes)
    if canonical is not None and (canonical in here.fetched or canonical in here.empty):
        return [canonical]
    advised = _advised(here)
    return [advised] if advised is not None and (advised in here.fetched
                                                 or advised in here.empty) else []


def _stale(store: Store, here: NotesHere, remote: str) -> str | None:
    """Return :data:`STALE` (or :data:`PULLED`) for one remote whose notes were fetched, or None."""
    git_dir = Path(store.git_dir)
    notes, none = here.fetched.get(remote), here.empty.get(remote)
    fetched = max((t for t in (notes, none) if t is not None), default=None)
    if fetched is None:
        return None
    record = none_marker(git_dir, remote) if fetched == none else fetched_marker(git_dir,
                                                                                 remote)
    seen = _seen_branches(record)  # read once: the three signs below all compare with it
    moved = _branches_moved(git_dir, remote, fetched, seen)
    pulled = None if moved is not None else _pulled_by_url(store, remote, fetched, seen)
    if moved is None and pulled is None:
        unnamed = _merged_unnamed(store, fetched, seen)  # r93 F2: FETCH_HEAD replaced since
        if unnamed is None:
            return None
        # Lazy: shlex and datetime, on this warning only (start-up, docs/speed.md).
        import shlex

        # Lazy: as above.
        from ..core.times import utc_text

        return MERGED_UNNAMED.format(remote=remote, typed=shlex.quote(remote),
                                     fetched=utc_text(int(fetched)),
                                     none=HELD_NONE if fetched == none else "",
                                     when=utc_text(int(unnamed)))
    # Lazy: shlex and datetime, on this warning only (start-up, docs/speed.md).
    import shlex

    # Lazy: as above.
    from ..core.times import utc_text

    said = dict(remote=remote, typed=shlex.quote(remote), fetched=utc_text(int(fetched)),
                none=HELD_NONE if fetched == none else "")
    if pulled is not None:
        return PULLED.format(**said, how=pulled[1], when=utc_text(int(pulled[0])))
    assert moved is not None
    return STALE.format(**said, branches=utc_text(int(moved)))


PULLED = ("notes last fetched from {remote} {fetched}{none}; {how} brought {remote}'s "
          "commits into this repository's branches since ({when}), by its URL (no branch of "
          "{remote} moved, and no notes came): run `kistore notes fetch {typed}`")
"""What :func:`notes_stale` says of a pull by URL (:func:`_pulled_by_url`); ``how``: the
command (``git pull ../srv.git main``) or ``a fetch of URL``."""


def _pulled_by_url(store: Store, remote: str, since: float, seen: dict[str, str] | None
                   ) -> tuple[float, str] | None:
    """Say when, and how, this clone's branches took ``remote``'s commits by URL since ``since``.

    ``git pull URL main`` (or ``git fetch URL main`` and ``git merge FETCH_HEAD``) with the
    remote's URL for its name brings the canonical branch's commits and moves no
    remote-tracking ref, so :func:`_branches_moved` saw nothing and ``site build``
    published a run withdrawn there, ranked (reviewer r92 F6). Two offline signs, either
    enough:

    - a local branch's reflog (``logs/refs/heads/*``, those written since ``since``) holds
      an entry that git wrote for ``git pull ARGS`` (its message ``pull ARGS: ...``) where
      an ARG is ``remote``'s name or URL (:func:`_same_place`), after the entry that made
      the tip the notes fetch kept (:func:`record_branches`), or, for a tip not kept, of a
      second after ``since`` (one in the same second is taken as before it);
    - ``FETCH_HEAD`` written after ``since`` names a commit fetched from ``remote``'s URL
      that a local branch now holds and that no branch tip the notes fetch kept
      (:func:`record_branches`: the remote's and, since 2026-12-05, the local ones)
      held: a fetch whose commits were merged, with no reflog kept.

    The maintainer's own new commits (``kistore add --commit``, ``git commit``, a merge of
    a local branch, a ``git pull`` of a fork's URL) are told apart by how they came: their
    reflog entries are not a pull from ``remote``, and ``FETCH_HEAD`` names no commit of
    ``remote``'s URL they do not already hold. A pull by a URL the configuration does not
    give ``remote`` (an ``ssh://`` spelling of an ``https://`` remote) is not seen.

    Returns:
        ``(time, how)``: the reflog entry's time and ```git pull ARGS``` (as written in
        the reflog), or ``FETCH_HEAD``'s time and ``a fetch of URL``; None when neither.

    Raises:
        RefsUnreadable, OSError: the refs, a reflog or the configuration cannot be read.
    """
    git_dir = Path(store.git_dir)
    places: dict[str, str] | None = None

    def configured(word: str) -> str | None:
        """Return the remote's URL as configured that ``word`` spells; None: not the remote's."""
        nonlocal places
        if places is None:  # read once, and only when a pull or fetch may name it
            places = {_same_place(url, store): url
                      for url in reversed(remote_urls(git_dir).get(remote, []))}
        return places.get(_same_place(word, store))

    def of_remote(word: str) -> bool:
        return word == remote or configured(word) is not None

    kept = seen or {}
    for _new, when, message in _entries_since(git_dir, since, kept):
        command = message.partition(": ")[0]
        words = command.split()
        if words[:1] == ["pull"] and any(of_remote(w) for w in words[1:]
                                         if not w.startswith(("-", "("))):
            return float(when), f"`git {command}`"
    return _fetched_by_url(store, remote, since, kept, configured)


def _entries_since(git_dir: Path, since: float, kept: dict[str, str]
                   ) -> Iterator[tuple[str, int, str]]:
    """Yield ``(new, when, message)`` of each local branch's reflog entry since a notes fetch.

    Newest first per branch (``refs/heads/*``, sorted), back to the entry that made the tip
    the notes fetch kept (``kept``, :func:`record_branches`), or, for a tip not kept, to one
    written before ``since`` (one in the same second is taken as before it); a reflog
    untouched since ``since`` is not read.
    """
    for name in sorted(refs_under(git_dir, "refs/heads/")):
        written = reflog_mtime(git_dir, name)
        if written is None or written < since:
            continue
        tip = kept.get(name)
        for _old, new, when, message in reflog_newest_first(git_dir, name):
            if new == tip or when < int(since) or (tip is None and when < since):
                break  # the tip the notes fetch kept, or before it
            yield new, when, message


MERGED_UNNAMED = ("notes last fetched from {remote} {fetched}{none}; a `git merge FETCH_HEAD` "
                  "brought commits into this repository's branches since ({when}) from a fetch "
                  "FETCH_HEAD no longer names (a later fetch replaced it), so whose they were "
                  "cannot be told here: if {remote}'s (its URL), its notes are stale: run "
                  "`kistore notes fetch {typed}`")
"""What :func:`notes_stale` says of a merge of a fetch whose ``FETCH_HEAD`` is gone (r93 F2)."""


def _merged_unnamed(store: Store, since: float, seen: dict[str, str] | None) -> float | None:
    """Return when a local branch took a ``git merge FETCH_HEAD`` no sign attributes, or None.

    ``git fetch URL main && git merge FETCH_HEAD``, then a fetch of anything else (a
    fork's branch), left no sign of the merge's source: ``FETCH_HEAD`` names the later
    fetch, and the reflog entry (``merge 1a2b...: Fast-forward``) names no URL, so a
    withdrawal fetched by the canonical remote's URL went unsaid offline (reviewer r93 F2).
    Such an entry, written since the notes fetch (after the tip its record kept), counts
    unless the commit it merged (the entry's new tip for a fast-forward, else the merge's
    other parents) is named by ``FETCH_HEAD`` now (:func:`_fetched_by_url` judged that
    fetch) or held by a kept tip or a remote-tracking branch (fetched by a remote's name:
    its own record tells). git writes the commit ``FETCH_HEAD`` named in the entry
    (``merge 1a2b...: Fast-forward``), so an entry merging a commit id counts likewise.
    A merge of a fork's fetch that a later fetch hid counts too: it cannot be told from
    the remote's, and the notes fetch it asks for is cheap.
    """
    git_dir = Path(store.git_dir)
    kept = seen or {}
    merged: list[tuple[int, str]] = []
    for new, when, message in _entries_since(git_dir, since, kept):
        words = message.partition(": ")[0].split()
        # git writes the commit FETCH_HEAD named (`merge 1a2b...: Fast-forward`)
        if len(words) == 2 and words[0] == "merge" and (
                words[1] == "FETCH_HEAD" or re.fullmatch("[0-9a-f]{40}", words[1])):
            merged.append((when, new))
    if not merged:
        return None
    try:
        named = {line.partition("\t")[0] for line in
                 (git_dir / "FETCH_HEAD").read_text("utf-8", errors="replace").splitlines()}
    except FileNotFoundError:
        named = set()
    # Lazy: libgit2, after such a merge only (start-up, docs/speed.md).
    import pygit2

    repo = store.repo
    holders = [*kept.values(), *ref_values_under(git_dir, "refs/remotes/").values()]
    for when, new in merged:
        try:
            commit = repo.get(new)
            brought = [str(p) for p in commit.parent_ids[1:]] if isinstance(
                commit, pygit2.Commit) and len(commit.parent_ids) > 1 else [new]
            if any(c not in named and not any(h == c or (h in repo and repo.descendant_of(
                    h, c)) for h in holders) for c in brought):
                return float(when)
        except (pygit2.GitError, ValueError, KeyError):  # not a commit here: nothing merged
            continue
    return None


def _fetched_by_url(store: Store, remote: str, since: float, kept: dict[str, str],
                    configured: Callable[[str], str | None]) -> tuple[float, str] | None:
    """:func:`_pulled_by_url`'s ``FETCH_HEAD`` sign: ``(its time, "a fetch of URL")``, or None.

    ``FETCH_HEAD`` (``OBJECT<TAB>[not-for-merge]<TAB>DESCRIPTION of URL`` per line, in
    the work tree's git directory) is read only when written after ``since``; a notes
    ref's line (``kistore notes fetch`` writes one) and a commit the notes fetch's
    record kept as a tip are passed over with no object read. libgit2 answers the rest:
    whether a local branch holds the commit and no kept tip did (a fetch of what was
    here already, a ``git fetch origin`` bringing nothing, is no pull), nor a
    remote-tracking branch of ``remote`` does: a fetch by the remote's name (``git pull
    origin main``) writes its tracking branch too, whose own record tells whether the
    remote's branches moved (:func:`_branches_moved`, which a push of this clone's own
    commits does not move); it was said "by its URL" of the clone's own commits, pushed
    and pulled back (reviewer fresh95 F8). The URL is named as given, with the ``.git``
    ``FETCH_HEAD`` leaves out when that is ``remote``'s (:func:`_as_written`).
    """
    git_dir = Path(store.git_dir)
    head = git_dir / "FETCH_HEAD"
    try:
        written = os.stat(head).st_mtime
        if written <= since:  # read only when written since
            return None
        lines = head.read_text("utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return None
    seen = set(kept.values())
    fetched = []
    for line in lines:
        value, _, rest = line.partition("\t")
        description = rest.partition("\t")[2]
        url = description.rpartition(" of ")[2]
        if value not in seen and not description.startswith("'refs/notes/") and \
                (spelled := configured(url)) is not None:
            fetched.append((value, _as_written(url, store, spelled)))
    if not fetched:
        return None
    # Lazy: libgit2, after a fetch of the remote's URL only (start-up, docs/speed.md).
    import pygit2

    repo = store.repo
    tips = ref_values_under(git_dir, "refs/heads/").values()
    held = [*seen, *ref_values_under(git_dir, f"refs/remotes/{remote}/").values()]
    for value, url in fetched:
        try:
            if any(tip == value or repo.descendant_of(tip, value) for tip in tips) and \
                    not any(old == value or (old in repo and repo.descendant_of(old, value))
                            for old in held):
                return written, f"a fetch of {url}"
        except (pygit2.GitError, ValueError, KeyError):  # not a commit here: not merged
            continue
    return None


def _as_written(url: str, store: Store, configured: str) -> str:
    """Return ``FETCH_HEAD``'s URL as the user could give it: a path with the ``.git`` git left out.

    ``git fetch ../srv.git`` writes ``../srv`` in ``FETCH_HEAD``, a path that does not
    exist (reviewer r93 F9): the path with ``.git`` when only that exists (taken from the
    work tree's top, as :func:`_same_place` takes it), or when that is the remote's own
    (``configured``, its URL as configured: ``../my-index`` was named for
    ``../my-index.git`` beside a work tree ``../my-index``, reviewer fresh95 F8), else
    ``url`` unchanged.
    """
    path, remote = _path_of(url, store), _path_of(configured.removeprefix("file://"), store)
    if path is None or not os.path.exists(path + ".git"):
        return url
    if not os.path.exists(path) or (remote is not None and os.path.exists(remote) and
                                    os.path.samefile(path + ".git", remote)):
        return url + ".git"
    return url


def _path_of(url: str, store: Store) -> str | None:
    """Return a remote given as a path, taken from the work tree's top as git takes it.

    (The git directory's in a bare repository.) None for a URL with a scheme
    (``https://``, ``file://``) or an scp-like ``HOST:PATH``: the one test of both
    :func:`_as_written` and :func:`_same_place`.
    """
    if "://" in url or re.match(r"[^/]+:", url):
        return None
    top = store.root if store.root is not None else Path(store.git_dir)
    return os.path.join(top, os.path.expanduser(url))


def _same_place(url: str, store: Store) -> str:
    """Return one spelling of a remote's URL or path, to compare with another.

    A URL with a scheme (``https://``) or an scp-like ``HOST:PATH``, without a trailing
    ``/`` or ``.git``; a path (``file://`` one too) taken from the work tree's top, as
    ``git pull`` and ``git fetch`` take it (the git directory in a bare repository), made
    real when it (or it with ``.git``, which ``FETCH_HEAD`` leaves out) exists, without a
    trailing ``.git`` or ``/.git``.
    """
    path = _path_of(url.removeprefix("file://"), store)
    if path is None:
        return url.rstrip("/").removesuffix(".git").rstrip("/")
    for candidate in (path, path + ".git"):
        if os.path.exists(candidate):
            path = os.path.realpath(candidate)
            break
    else:
        path = os.path.normpath(path)
    return path.rstrip("/").removesuffix("/.git").removesuffix(".git")


BRANCHES_SEEN = "# kistore: the branches of the remote when its notes were fetched\n"
"""The first line of a record of a notes fetch (:data:`NOTES_FETCHED`, :data:`NOTES_NONE`)
that keeps the remote's branch tips then (and the local ones, since 2026-12-05):
``OBJECT-ID REF-NAME`` per line after it (:func:`record_branches`). A record without it
(an empty file: a fetch before 2026-12-05) is judged by times (:func:`_branches_moved`)."""


def record_branches(git_dir: Path, remote: str, record: Path) -> None:
    """Write ``record`` (now its time) keeping the tips of ``refs/remotes/REMOTE/*`` but HEAD.

    Read by :func:`_branches_moved`: a branch whose tip differs from the one kept moved
    since the notes fetch, whatever ``git gc`` or ``git reflog expire`` did to the times
    git keeps, and in a clone with ``core.logAllRefUpdates=false`` (reviewer r91 F9).
    The local branches' tips (``refs/heads/*``) are kept too, since 2026-12-05: a commit
    one of them held then was in this clone before the notes fetch, not pulled since
    (:func:`_fetched_by_url`, reviewer r92 F6). So is the tip of the remote's notes
    tracking ref, the notes this fetch merged (:func:`_merged`: a plain ``git fetch``
    through a user's refspec that moves it after is told by it).
    Best effort, written atomically (a temporary file renamed over it): a ``.git`` this
    user cannot write keeps the record it had; refs git keeps in no plain file (reftable)
    are not kept (the record is then only touched: judged by times).

    Args:
        git_dir: the repository's git directory.
        remote: the remote's name (``url`` for a URL: it has no branches).
        record: :func:`fetched_marker` or :func:`none_marker` of it.
    """
    try:
        tips = _branch_tips(git_dir, remote) | ref_values_under(git_dir, "refs/heads/")
        notes = resolve(git_dir, remote_ref(remote))  # the tip merged (:func:`_merged`)
        if notes is not None:
            tips[remote_ref(remote)] = notes
    except (RefsUnreadable, OSError):
        tips = None
    temporary = record.with_name(f"{record.name}.{os.getpid()}.tmp")
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        if tips is None:
            record.touch()
            return
        temporary.write_text(BRANCHES_SEEN + "".join(f"{value} {name}\n" for name, value
                                                     in sorted(tips.items())), "ascii")
        os.replace(temporary, record)
    except (OSError, UnicodeEncodeError):  # not ours to write (or a name git would refuse)
        with suppress(OSError):
            temporary.unlink(missing_ok=True)


def _branch_tips(git_dir: Path, remote: str) -> dict[str, str]:
    """Return ``{ref name: object id}`` of ``refs/remotes/REMOTE/*`` but its ``HEAD``."""
    return {name: value for name, value in ref_values_under(
        git_dir, f"refs/remotes/{remote}/").items() if not name.endswith("/HEAD")}


def _seen_branches(record: Path) -> dict[str, str] | None:
    """Return the branch tips a record keeps (:data:`BRANCHES_SEEN`), or None when it keeps none."""
    try:
        text = record.read_text("ascii")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith(BRANCHES_SEEN):
        return None
    seen = {}
    for line in text[len(BRANCHES_SEEN):].splitlines():
        value, _, name = line.partition(" ")
        seen[name] = value
    return seen


def _branches_moved(git_dir: Path, remote: str, since: float,
                    seen: dict[str, str] | None = None) -> float | None:
    """Return when a branch of ``remote`` last moved, if after ``since``; else None.

    When ``seen`` holds the branch tips the notes fetch's record kept (:func:`record_branches`),
    the tips are compared: a branch whose tip is not the one kept (or new since) moved,
    at its loose file's time, else ``packed-refs``'s (a ``git gc`` since: no later than
    that), else now; none moved: None, whatever the times say (reviewer r91 F9: after
    ``git reflog expire --expire=now --all && git gc`` no time told). Else by times:

    A loose remote-tracking ref's file time (git rewrites it on each move); for a packed
    one, the last entry of its reflog (:func:`kistore.git.refs.reflog_last_time`: ``git
    gc`` packs the ref and rewrites the reflog's file, not its entries), read only when no
    loose ref answers, and only when ``packed-refs`` was written after ``since``: a move
    writes a loose ref, and only packing (``git gc``) or a deletion rewrites
    ``packed-refs``, so a packed ref of an older file has not moved since. Then the latest
    time of the packed refs' reflogs is kept, by that file's identity
    (:func:`_packed_moved`): one read of each reflog per ``git gc``, not per query (with
    300 fetched branches packed after the notes fetch, ~15 ms of every query).

    Raises:
        RefsUnreadable, OSError: the refs or a reflog cannot be read.
    """
    refs = {name: when for name, when in refs_under(git_dir, f"refs/remotes/{remote}/").items()
            if not name.endswith("/HEAD")}
    if seen is not None:
        moved = [name for name, value in _branch_tips(git_dir, remote).items()
                 if seen.get(name) != value
                 and not _pushed_only(git_dir, name, seen.get(name), value, since)]
        if not moved:
            return None
        times = [when for name in moved if (when := refs.get(name)) is not None]
        if times:
            return max(times)
        with suppress(OSError):
            return os.stat(common_git_dir(git_dir) / "packed-refs").st_mtime
        return time.time()
    loose = max((when for when in refs.values() if when is not None), default=None)
    if loose is not None and loose > since:
        return loose
    packed = sorted(name for name, when in refs.items() if when is None)
    if not packed:
        return None
    try:
        file = os.stat(common_git_dir(git_dir) / "packed-refs")
    except FileNotFoundError:  # removed meanwhile: nothing packed to tell by
        return None
    if file.st_mtime <= since:  # written before the notes fetch: no packed ref moved since
        return None
    latest = _packed_moved(git_dir, remote, packed, file)
    return latest if latest is not None and latest > since else None


PUSHED = "update by push"
"""The message git writes in a remote-tracking ref's reflog when this clone's ``git push``
moved it (a fetch or pull writes ``fetch ...``/``pull ...``)."""


def _pushed_only(git_dir: Path, name: str, seen: str | None, tip: str, since: float) -> bool:
    """Say whether the branch ``name`` moved from ``seen`` to ``tip`` by this clone's pushes alone.

    A ``git push R BRANCH`` moves ``refs/remotes/R/BRANCH`` to the commit pushed, which
    this clone made or had: nothing of R was fetched, so it is no reason to think R's notes
    newer than when they were fetched (reviewer r92 F9: a maintainer's attest, ``notes
    push``, ``git push`` was refused publishing). Told by the ref's reflog only, read back
    from its last entry: each is git's :data:`PUSHED`, each starting where the one before
    it ended, back to one that starts at ``seen`` (the tip the notes fetch kept; all zeros
    for a branch it lacked), the entry before that one (if any) written no later than
    the notes fetch (``since``). Any fetch or pull among them (a ``git pull`` after the
    push), a reflog expired or not kept (``core.logAllRefUpdates=false``), a line not
    read: moved, as before. A pull or fetch writes ``pull``/``fetch`` entries, never
    :data:`PUSHED`, so a pull's new commits (a withdrawal's among them) are never read as
    a push.

    Raises:
        RefsUnreadable: the reflog cannot be read.
    """
    entries = reflog_newest_first(git_dir, name)
    start, at = seen or "0" * len(tip), tip
    entry = next(entries, None)
    while entry is not None:
        old, new, _, message = entry
        if new != at or not message.startswith(PUSHED):
            return False
        at = old
        earlier = next(entries, None)
        if old == start and (earlier is None or earlier[2] <= since):
            return True
        entry = earlier
    return False


PACKED_MOVED = "kistore/packed-moved"
"""Under the common git directory: one small file per remote (its name percent-encoded)
keeping the latest reflog time of its packed remote-tracking branches
(:func:`_branches_moved`), with the identity of the ``packed-refs`` file it was read for
(modification time in ns, size, inode)."""


def _packed_moved(git_dir: Path, remote: str, packed: list[str], file: os.stat_result
                  ) -> float | None:
    """Return the latest last reflog entry of the ``packed`` refs (None: none has one).

    Kept in :data:`PACKED_MOVED`'s file for the ``packed-refs`` file ``file`` is the
    ``stat`` of: a packed ref's reflog gains an entry only when the ref moves, which
    makes it loose, and the set of packed refs changes only with that file. Written
    best effort (a ``.git`` this user cannot write reads the reflogs each time),
    atomically (a temporary file renamed over it).
    """
    keyed = f"{file.st_mtime_ns} {file.st_size} {file.st_ino} {len(packed)}"
    kept = _remote_file(git_dir, PACKED_MOVED, remote)
    try:
        said, _, value = kept.read_text("ascii").partition("\n")
        if said == keyed:
            return None if value == "none" else float(value)
    except (OSError, ValueError):  # none kept yet, or unreadable: read the reflogs
        pass
    logged = [when for when in (reflog_last_time(git_dir, name) for name in packed)
              if when is not None]
    latest = max(logged, default=None)
    temporary = kept.with_name(f"{kept.name}.{os.getpid()}.tmp")
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(f"{keyed}\n{'none' if latest is None else repr(latest)}",
                             "ascii")
        os.replace(temporary, kept)
    except OSError:  # not ours to write: read again next time
        with suppress(OSError):
            temporary.unlink(missing_ok=True)
    return latest


def withdrawal_said(evidence: Evidence) -> str | None:
    """Name the withdrawal that applies to a run, for a line of text; None when none does.

    Args:
        evidence: the run's :class:`Evidence`.

    Returns:
        ``withdrawn by KEYID: REASON`` (the first valid withdrawal's key and what it says,
        as signed: the caller escapes the line, :func:`kistore.core.errors.one_line`), or
        ``withdrawn by KEYID`` when it says nothing; None when the run is not withdrawn.
    """
    found = withdrawal(evidence)
    return None if found is None else withdrawal_words(*found)


def withdrawal_words(keyid: str, reason: str) -> str:
    """Return ``withdrawn by KEYID: REASON`` (``withdrawn by KEYID`` for no reason)."""
    return f"withdrawn by {keyid}" + (f": {reason}" if reason else "")


def withdrawal(evidence: Evidence) -> tuple[str, str] | None:
    """Return the withdrawal that applies to a run: its key and what it says; None when none.

    Args:
        evidence: the run's :class:`Evidence`.

    Returns:
        ``(KEYID, REASON)`` of the first valid maintainer withdrawal (``?`` for a key not
        told, ``""`` for a reason not said; the reason as signed, unescaped), or None when
        the run is not withdrawn.
    """
    if not evidence.withdrawn:
        return None
    said = next((a for a in evidence.attestations if a.get("effect") == WITHDRAWS), {})
    return str(said.get("keyid") or "?"), str(said.get("text") or "")


TEXT_LABEL = {"dispute": "reason", "withdrawal": "reason"}
"""What an attestation's text is called where it is printed (``text`` for other types)."""


def attestation_text(judged: dict[str, Any]) -> str:
    """Return one attestation judgement (``attestations --json`` object) as a line of text.

    ``TYPE KEYID valid|INVALID EFFECT, from SOURCE[: REASON][; says: TEXT]``, as ``kistore
    attestations`` and ``show`` list them; ``?`` for a type or keyid an unreadable bundle
    lacks; SOURCE is each place the bundle was found (``note+file`` after ``kistore notes
    sync`` attached a file). ``TEXT`` is what the attestation says (a dispute's or
    withdrawal's ``reason``, a note's ``text``: ``; reason: timer excludes sync``), as
    signed: the caller escapes the line for the terminal (:func:`kistore.core.errors.one_line`).
    """
    valid = "valid" if judged.get("valid") else "INVALID"
    reason = judged.get("reason")
    text = judged.get("text")
    label = TEXT_LABEL.get(judged.get("type") or "", "text")
    places = judged.get("places") or [judged]
    source = "+".join(dict.fromkeys(str(p.get("source")) for p in places))
    # "from SOURCE": "valid community note" read as the note type (reviewer fresh95 F12)
    return (f"{judged.get('type') or '?'} {judged.get('keyid') or '?'} {valid} "
            f"{judged.get('effect')}, from {source}" + (f": {reason}" if reason else "")
            + (f"; {label}: {text}" if text else ""))
