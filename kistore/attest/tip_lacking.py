"""Attestation lines the tip of ``refs/notes/kistore`` lacks that count (fresh05 MED 3).

Notes only grow (KI408 guards pushes), but a clone's own notes ref is the clone's: a
``git notes --ref kistore remove BLOB`` (or ``edit``) of a trusted withdrawal, or the ref
moved back past it (``git update-ref refs/notes/kistore refs/notes/kistore~1``), went
unnoticed: ``verify`` said ok, ``rank``, ``site build`` and ``export`` ranked the withdrawn
run, while ``--notes-at`` of that same notes commit warned. Two places still hold such a
line, and both are read here:

* the tip's own notes history (the one check :func:`kistore.attest.notes.notes_lost` of
  ``--notes-at``'s warning, :func:`kistore.attest.notes_at.lost_warning`, made on the walk
  that dates the notes): ``kistore notes restore`` puts the lines back;
* the canonical remote's notes as last fetched and merged here, ``refs/notes/remotes/R/
  kistore`` (:func:`_canonical_merged`), holding a line the tip lacks and its history
  never held (the ref moved back): ``kistore notes fetch R`` merges them back.

Only lines that count are said (:attr:`kistore.attest.evidence.Judgement.counted`, judged
as if they were at the tip, at the time they first entered): a garbage line taken out by
hand counts for nothing, and ``notes restore`` leaves it out anyway.

The cost: every query and publisher asks this. When nothing is lacking, the notes tip and
the tracking tips (read from the files under ``.git``, no libgit2) are written to
:data:`WHOLE_FILE`; the next command finding the same tips reads that one file and stops
(a warm ``rank`` loads no git library, tests/cli/test_cli_startup.py). Otherwise the
notes history is walked once (the walk the attestations' entry times need, cached), and
each tracking tip's tree is diffed with the tip's, reading only the notes that differ.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core.findings import WARNING, Finding, rule
from ..core.layout import NOTES_REF
from ..git import refs
from ..git.refs import common_git_dir
from ..git.remotes import remote_names

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store, View

__all__ = ["NOTES_TIP_LACKING", "Lacking", "fetch_said", "lacking", "lacking_findings", "push_said",
           "lacking_said"]

NOTES_TIP_LACKING = rule(
    "KI315", "notes-tip-lacking", WARNING,
    "`kistore notes restore` puts back the lines the notes history held; `kistore notes "
    "fetch REMOTE` merges back those a remote's notes hold (notes only grow, KI408)")

WHOLE_FILE = "kistore/notes-whole"
"""Under the common git directory: the notes tip and tracking tips last found lacking no
line (one ``NAME SHA`` a line). A cache: deleting it loses nothing."""

_TRACKING = "refs/notes/remotes/"
_NAMED = 3
"""Notes named at most in a message (then "and N more")."""


class Lacking(NamedTuple):
    """Lines that count which the notes tip lacks.

    Attributes:
        history: ``{annotated object id: {line: judgement}}``: lines the tip's own notes
            history held (removed here).
        tracking: ``{refs/notes/remotes/R/kistore: {object: {line: judgement}}}``: lines
            R's notes as last fetched hold, the tip lacks and its history never held.
        held_by: ``{refs/notes/remotes/R/kistore: {object: [lines]}}``: lines of
            ``history`` R's notes as last fetched hold (what a fetch from R finds).
    """

    history: dict[str, dict[bytes, Any]]
    tracking: dict[str, dict[str, dict[bytes, Any]]]
    held_by: dict[str, dict[str, list[bytes]]]


def lacking(store: Store, at: str | None, trust: Any = None) -> Lacking | None:
    """Return the lines that count which :data:`NOTES_REF`'s tip lacks, or None.

    Args:
        store: the clone.
        at: the revision whose trust and metadata judge and name the lines (None: the
            work tree).
        trust: the :class:`kistore.attest.trust.Trust` to judge with, when the caller
            holds it (``verify``); read at ``at`` otherwise.

    Returns:
        :class:`Lacking`, or None when nothing that counts is lacking (then, when nothing
        at all is, the tips are recorded in :data:`WHOLE_FILE`).

    Raises:
        StoreStateError, ObjectUnreadable: as :func:`kistore.attest.notes.notes_entered`
            (a partial clone's remote without the note blobs; a damaged note blob).
    """
    git_dir = Path(store.git_dir)
    key = _key(git_dir)
    whole = common_git_dir(git_dir) / WHOLE_FILE
    if key is not None:
        if key == "":
            return None  # no notes and no remote's: nothing to lack
        with contextlib.suppress(OSError):
            if whole.read_text(encoding="ascii") == key:
                return None
    history, tracking = _candidates(store)
    if not history and not tracking:
        if key is not None:
            _record(whole, key)
        return None
    found = _judged(store, at, trust, history, tracking)
    return found if found.history or found.tracking else None


def _key(git_dir: Path) -> str | None:
    """Return what :data:`WHOLE_FILE` records ("": nothing to lack), None: not from files.

    The notes tip, the tracking ref compared (the canonical remote's, named: once
    ``upstream`` was added, queried and removed, ``origin``'s tip recorded uncompared kept
    KI315 silent for good, fresh07 L1) and the size of the notes ref's reflog (its earlier
    tips are read too: the ref moved away and back is no same state).
    """
    # Lazy: plain files, read on every query (as refs).
    from ..git.config_files import remotes as configured_remotes

    # Lazy: as above.
    from .levels import canonical_remote

    try:
        tip = refs.resolve(git_dir, NOTES_REF)
        canonical = canonical_remote(configured_remotes(git_dir))
        name = None if canonical is None else f"{_TRACKING}{canonical}/kistore"
        tracking = None if name is None else refs.resolve(git_dir, name)
    except (refs.RefsUnreadable, OSError):
        return None
    if tip is None and tracking is None:
        return ""
    try:
        logged = (common_git_dir(git_dir) / "logs" / NOTES_REF).stat().st_size
    except OSError:
        logged = 0
    return "".join(f"{what} {value}\n" for what, value in
                   [(NOTES_REF, tip or "-"), (name or "-", tracking or "-"),
                    ("reflog", logged)])


def _record(whole: Path, key: str) -> None:
    """Write ``key`` to :data:`WHOLE_FILE` (atomically; a cache: an error is ignored)."""
    scratch = whole.with_name(f".{whole.name}.{os.getpid()}")
    try:
        whole.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text(key, encoding="ascii")
        os.replace(scratch, whole)
    except OSError:
        with contextlib.suppress(OSError):
            scratch.unlink()


def _candidates(store: Store) -> tuple[dict[str, dict[bytes, Any]],
                                       dict[str, dict[str, dict[bytes, Any]]]]:
    """Return the lines lacking at the tip, with entry times, before any judging.

    ``history``: :func:`kistore.attest.notes.notes_lost_entered` of the tip.
    ``tracking``: per configured remote's tracking ref, its lines the tip and the tip's
    history lack, dated by that ref's notes history.
    """
    # Lazy: git is read only when the tips moved since nothing was last found lacking.
    from ..git.blobs import ObjectUnreadable, ref_commit
    from ..git.notes import changed_notes
    from .notes import notes_entered, notes_lost_entered

    repo = store.repo
    history = notes_lost_entered(repo)
    tip = ref_commit(repo, NOTES_REF)
    tracking: dict[str, dict[str, dict[bytes, Any]]] = {}
    for name in _canonical_merged(store):
        theirs = ref_commit(repo, name)
        if theirs is None or (tip is not None and theirs.id == tip.id):
            continue
        found: dict[str, list[bytes]] = {}
        for obj, (ours, held) in changed_notes(repo, None if tip is None else tip.tree,
                                               theirs.tree).items():
            if held is None:
                continue
            try:
                have = set() if ours is None else set(_lines(repo, ours, obj))
                theirs_lines = _lines(repo, held, obj)
            except ObjectUnreadable:  # a damaged note blob: KI117's (verify), not this
                continue
            have |= set(history.get(obj, ()))
            extra = [line for line in theirs_lines if line not in have]
            if extra:
                found[obj] = extra
        if found:
            dated = notes_entered(repo, [], notes_at=str(theirs.id))
            tracking[name] = {obj: {line: dated.get(obj, {}).get(line) for line in lines}
                              for obj, lines in found.items()}
    if tip is not None:
        # a remote's line is said with its fetch (it merges them back): not again here
        fetched = {(obj, line) for lines in tracking.values() for obj, held in lines.items()
                   for line in held}
        _earlier(repo, tip, history, fetched)
        notes_entered(repo, [])  # the tip's walk cached again for the readers after
    return history, tracking


def _earlier(repo: pygit2.Repository, tip: pygit2.Commit,
             history: dict[str, dict[bytes, Any]], fetched: set[tuple[str, bytes]]) -> None:
    """Add to ``history`` the lines of the earlier tips the reflog records that ``tip`` lacks.

    :func:`kistore.attest.notes_reflog.earlier_tips` (fresh07 M6: the ref moved back with
    no remote to compare with, a forced fetch over lines never pushed): each is diffed with
    ``tip`` (only the notes that differ are read), and its lines ``tip``'s notes,
    ``history`` and ``fetched`` (``(object, line)``: a tracking ref's, said with ``kistore
    notes fetch R``) lack are added, dated by that tip's own notes history. A note that cannot
    be read (past the size limit: KI117's) is skipped.
    """
    # Lazy: as _candidates.
    from ..git.blobs import ObjectUnreadable
    from ..git.notes import changed_notes
    from .notes import history_trees, notes_entered
    from .notes_reflog import earlier_tips

    for earlier in earlier_tips(repo, history_trees(repo, tip.id)):
        found: dict[str, list[bytes]] = {}
        for obj, (ours, held) in changed_notes(repo, tip.tree, earlier.tree).items():
            if held is None:
                continue
            try:
                have = set() if ours is None else set(_lines(repo, ours, obj))
                extra = [line for line in _lines(repo, held, obj)
                         if line not in have and line not in history.get(obj, {})
                         and (obj, line) not in fetched]
            except ObjectUnreadable:
                continue
            if extra:
                found[obj] = extra
        if found:
            dated = notes_entered(repo, [], notes_at=str(earlier.id))
            for obj, lines in found.items():
                for line in lines:
                    history.setdefault(obj, {})[line] = dated.get(obj, {}).get(line)


def _judged(store: Store, at: str | None, trust: Any,
            history: dict[str, dict[bytes, Any]],
            tracking: dict[str, dict[str, dict[bytes, Any]]]) -> Lacking:
    """Keep the lines that would count, each with its judgement; note who holds them.

    A line is judged as readers would judge it at the tip: with the attestations its
    subject has there (:func:`kistore.attest.evidence.judge_all`: a lost older rerun the
    same key's later one supersedes counts for nothing), and a line whose bytes the subject
    still holds (a committed file copy) lacks nothing (review01 L12: each was judged alone).
    """
    # Lazy: judging loads keys and signatures; only when lines are lacking.
    from ..core.digest import Digest
    from ..git.blobs import ObjectUnreadable
    from ..git.lazy import pygit2
    from ..git.notes import note_blob
    from .evidence import judge_all, trust_or_empty
    from .notes import Seen, collect_many

    repo = store.repo
    if trust is None:
        trust = trust_or_empty(store, at)[0]
    view = store.view(at)
    subjects: dict[str, Digest | None] = {}
    for obj in {*history, *(obj for lines in tracking.values() for obj in lines)}:
        found = repo.get(obj)
        subjects[obj] = Digest.of(found.data) if isinstance(found, pygit2.Blob) else None
    held = collect_many(store, {d for d in subjects.values() if d is not None}, at=at)

    def counted(lines: dict[str, dict[bytes, Any]]) -> dict[str, dict[bytes, Any]]:
        kept: dict[str, dict[bytes, Any]] = {}
        for obj, dated in lines.items():
            subject = subjects[obj]
            if subject is None:
                continue  # an object not here: nothing it could change is read
            here = held[subject]
            have = {s.data for s in here}
            lost = [Seen(line, subject, "note", f"{NOTES_REF}:{obj}", when)
                    for line, when in dated.items() if when is not None and line not in have]
            for s, j in zip(lost, judge_all([*here, *lost], trust, view)[len(here):],
                            strict=True):
                if j.counted:
                    kept.setdefault(obj, {})[s.data] = j
        return kept

    lost = counted(history)
    held_by: dict[str, dict[str, list[bytes]]] = {}
    for name in _tracking_refs(store):
        theirs = repo.references[name].peel(pygit2.Commit)
        for obj, lines in lost.items():
            note = note_blob(repo, theirs.tree, obj)
            try:
                have = set() if note is None else set(_lines(repo, note, obj))
            except ObjectUnreadable:  # a damaged note blob: KI117's (verify), not this
                continue
            if inside := [line for line in lines if line in have]:
                held_by.setdefault(name, {})[obj] = inside
    return Lacking(lost, {name: judged for name, lines in tracking.items()
                          if (judged := counted(lines))}, held_by)


def _canonical_merged(store: Store) -> list[str]:
    """Return the canonical remote's tracking ref, when kistore merged its tip here.

    The canonical remote (:func:`kistore.attest.levels.canonical_remote`: the index, whose
    gate judged its notes history, dates included) only: a fork's notes are taken line by
    line, and the lines its fetch left out (KI409, a run no canonical branch holds) stay
    in its tracking ref, counting for nothing here. And only when its tip is one ``kistore
    notes fetch`` or ``notes push`` merged (not in :attr:`kistore.attest.levels.NotesHere.
    unmerged`): a tracking ref a plain ``git fetch`` moved is said by the queries' own
    warning, with ``kistore notes fetch R``; a tip once merged whose lines the notes lack
    and never held is a notes ref moved back.
    """
    # Lazy: as _judged.
    from .levels import canonical_remote, notes_here

    canonical = canonical_remote(r.name or "" for r in store.repo.remotes)
    name = f"{_TRACKING}{canonical}/kistore"
    if canonical is None or name not in store.repo.references:
        return []
    return [] if canonical in notes_here(store).unmerged else [name]


def _tracking_refs(store: Store) -> list[str]:
    """Return ``refs/notes/remotes/R/kistore`` of each configured remote R that has one.

    A URL's (``kistore notes fetch URL``) or a removed remote's is left out: there is no
    ``kistore notes fetch R`` to name.
    """
    repo = store.repo
    remotes = {f"{_TRACKING}{r.name}/kistore" for r in repo.remotes if r.name}
    return sorted(name for name in repo.references if name in remotes)


def _lines(repo: pygit2.Repository, blob: str, obj: str) -> list[bytes]:
    """Return the lines of the note blob ``blob`` on ``obj``."""
    # Lazy: as _judged.
    from ..git.note_blobs import read_note
    from .notes import lines_of

    return lines_of(read_note(repo, blob, f"{NOTES_REF}:{obj}"))


def _named(store: Store, view: View, lines: dict[str, dict[bytes, Any]]) -> str:
    """Name lacking lines by the run they are on and who signed them, three at most."""
    # Lazy: as _judged.
    from .notes_at import on_run

    said = [f"{on_run(store, view, obj)} ({j.type} by {j.keyid})"
            for obj, judged in lines.items() for j in judged.values()]
    more = f", and {len(said) - _NAMED} more" if len(said) > _NAMED else ""
    return ", ".join(said[:_NAMED]) + more


_EFFECTS = {
    "withdraws": "a withdrawn run is ranked, unless another line withdraws it",
    "verifies": "a run a rerun verified reads as not verified",
    "disagrees": "a rerun that did not reproduce its run is not read",
    "community": "a community {type} is not listed",
}
"""What reading a tip without a line of each effect does (fresh07 L3: said for any line)."""


def _undone(lines: dict[str, dict[bytes, Any]]) -> str:
    """Say what is read wrongly without ``lines`` (their judgements' effects, each once)."""
    said: list[str] = []
    for judged in lines.values():
        for j in judged.values():
            words = _EFFECTS.get(j.effect, "a {type} is not read").format(type=j.type)
            if words not in said:
                said.append(words)
    return "; ".join(said)


def _remote(tracking: str) -> str:
    """Return R of ``refs/notes/remotes/R/kistore``."""
    return tracking[len(_TRACKING):-len("/kistore")]


def lacking_said(store: Store, at: str | None, found: Lacking) -> list[tuple[str, str, str]]:
    """Say each part of ``found``: ``(where, message, fix)``.

    Args:
        store: the clone.
        at: the revision whose metadata names the runs (None: the work tree).
        found: :func:`lacking`'s answer.

    Returns:
        ``where`` is :data:`NOTES_REF` for the lines its history held, the tracking ref
        for a remote's; ``message`` ends with ``fix``, the command that puts them back.
    """
    view = store.view(at)
    said = []
    if found.history:
        count = sum(map(len, found.history.values()))
        fix = "kistore notes restore"
        where = _where_removed(store, found.history)
        said.append((NOTES_REF, (
            f"{NOTES_REF} lacks {count} attestation line(s) its own notes history or an "
            f"earlier tip of it (its reflog) held: {_named(store, view, found.history)}; "
            f"they were removed {where.said}, and notes only grow (KI408): what is read "
            f"at this tip counts them as never made ({_undone(found.history)}), a state the "
            f"rules refuse; `{fix}` puts them back{_own(store, where.here)}"), fix))
    for name, lines in found.tracking.items():
        count = sum(map(len, lines.values()))
        fix = f"kistore notes fetch {shlex.quote(_remote(name))}"
        said.append((name, (
            f"{name} holds {count} attestation line(s) that {NOTES_REF} lacks and its "
            f"history never held: {_named(store, view, lines)}; {NOTES_REF} was moved back "
            f"past them (`git update-ref`), and what is read here counts them as never made "
            f"({_undone(lines)}); `{fix}` merges them back"), fix))
    return said


class _Where(NamedTuple):
    """Where lines were removed: the words, and whether this clone removed some."""

    said: str
    here: bool


def _where_removed(store: Store, lines: dict[str, dict[bytes, Any]]) -> _Where:
    """Say where ``lines`` were removed: here, or in the notes history (fresh08 L1).

    "here" only when this clone's reflog shows it made the removing notes commit (or only
    an earlier tip it recorded held them); else the notes commit that removed them, which
    came with the history fetched (:func:`kistore.attest.notes_removed.removals`).
    """
    # Lazy: as _judged (only when lines are lacking).
    from .notes import notes_lost
    from .notes_removed import removals

    repo = store.repo
    found = removals(repo, {obj: set(held) for obj, held in lines.items()}, notes_lost(repo))
    here = ("here (`git notes remove`, `git notes edit`, a notes merge, the ref moved back "
            "or fetched over)")
    commits = ", ".join(c[:12] for c in found.elsewhere[:_NAMED])
    more = (f", and {len(found.elsewhere) - _NAMED} more" if len(found.elsewhere) > _NAMED
            else "")
    history = f"in the notes history (notes commit {commits}{more})"
    if not found.elsewhere:
        return _Where(here, True)
    return _Where(f"{here} and {history}" if found.here else history, found.here)


def _own(store: Store, here: bool) -> str:
    """Say the way out for a line taken back on purpose (the clause after the fix).

    ``notes rebase R`` (the canonical remote), or with no remote ``notes rebase`` (fresh08
    M5); "" when a remote is configured and no line was removed here.
    """
    # Lazy: as _judged (only when lines are lacking).
    from .levels import canonical_remote

    names = remote_names(store.repo)
    if not names:
        return (" (a line you meant to take back, never pushed: this repository has no "
                "remote configured, and `kistore notes rebase` drops them from its notes "
                "history for good)")
    remote = canonical_remote(names)
    if remote is None or not here:
        return ""
    return (f" (a line of this repository's own, never pushed, that you meant to take back: "
            f"`kistore notes rebase {shlex.quote(remote)}` rebuilds the notes without it)")


def lacking_findings(store: Store, at: str | None, trust: Any) -> list[Finding]:
    """KI315 for each part of :func:`lacking` (``verify``).

    Args:
        store: the clone.
        at: the revision verified (None: the work tree).
        trust: the trust ``verify`` judges with.

    Returns:
        One warning for the lines the tip's history held, on :data:`NOTES_REF`, and one
        per remote's tracking ref holding lines the tip lacks; ``extra.lines``: the count
        per annotated object.
    """
    found = lacking(store, at, trust)
    if found is None:
        return []
    parts = {NOTES_REF: found.history, **found.tracking}
    alone = not remote_names(store.repo)
    refused = _refused_for_key(store, found, trust)
    return [Finding(NOTES_TIP_LACKING, message, file=where,
                    fix=_fix_said(fix, alone, refused if where == NOTES_REF else None),
                    extra={"lines": {obj: len(lines) for obj, lines in parts[where].items()}})
            for where, message, fix in lacking_said(store, at, found)]


def _refused_for_key(store: Store, found: Lacking, trust: Any) -> tuple[str, int, int] | None:
    """Count the lines ``kistore notes restore`` would refuse for their key (KI411).

    A line of ``found.history`` the canonical remote's notes (as last fetched) lack is new
    at a push, so restore judges it for its key as the push gate does: a rerun or
    withdrawal whose key ``trust`` lists but which may not sign for its role now (revoked,
    expired, or not trusted for the role) is refused, and only ``kistore notes rebase
    REMOTE`` drops it from this repository's notes history (fresh15 F5, ki442n). Judged by
    ``trust`` (the trust ``verify`` judges with) at this machine's clock; restore judges by
    the protected branches' tips, which a clean work tree on main equals.

    Returns:
        ``(remote, refused, all)``: the canonical remote's name, how many lines are
        refused, how many lines ``found.history`` holds; None when no line is refused or
        no remote is canonical (a repository with no remote pushes nowhere: restore
        judges no line for its key). Raises nothing of kistore's own.
    """
    # Lazy: said only when lines are lacking.
    from datetime import UTC, datetime

    # Lazy: as datetime above.
    from .attestation import ROLE_FOR_TYPE
    from .levels import canonical_remote, remote_ref

    remote = canonical_remote(remote_names(store.repo))
    if remote is None or not found.history:
        return None
    there = found.held_by.get(remote_ref(remote), {})
    now = datetime.now(UTC)
    keys = getattr(trust, "keys", {})
    refused = total = 0
    for obj, lines in found.history.items():
        for line, judged in lines.items():
            total += 1
            key = keys.get(getattr(judged, "keyid", None) or "")
            role = ROLE_FOR_TYPE.get(getattr(judged, "type", ""))
            if (key is not None and role is not None and line not in there.get(obj, ())
                    and key.judge(role, now)):
                refused += 1
    return (remote, refused, total) if refused else None


def _fix_said(fix: str, alone: bool, refused: tuple[str, int, int] | None = None) -> str:
    """Say KI315's fix: run ``fix``; with no remote, the two ways (fresh10 MED 4).

    Args:
        fix: the command :func:`lacking_said` names (``kistore notes restore``, ``kistore
            notes fetch R``).
        alone: the repository has no remote configured.
        refused: :func:`_refused_for_key` of the lines the fix is for: since 2026-12-07
            (trust05) the lines restore refuses for their key are led to ``kistore notes
            rebase REMOTE``, as ``notes push``'s way out and restore's summary are (ki442n).

    Returns:
        ``run `FIX```; in a repository with no remote, the restore for a line taken back
        by mistake, or ``kistore notes rebase`` for one meant to be, never pushed (the
        remote's ways named nothing there); with lines restore refuses, the rebase for
        them (after the restore for the others). Raises nothing.
    """
    if refused is not None:
        remote, count, total = refused
        rebase = f"`kistore notes rebase {shlex.quote(remote)}`"
        why = (f"signed by a key not trusted now: revoked, expired or not trusted for their "
               f"role (KI411), which `{fix}` refuses, and {remote}'s notes lack them (never "
               f"pushed): it drops them from this repository's notes history")
        if count == total:
            return f"run {rebase}: the {count} line(s) are {why}"
        return (f"run `{fix}` (it puts back {total - count} line(s)), then {rebase} for the "
                f"other {count} line(s), {why}")
    if not alone or fix != "kistore notes restore":
        return f"run `{fix}`"
    return ("run `kistore notes restore` (a line taken back by mistake), or `kistore notes "
            "rebase` (a line you meant to take back, never pushed: this repository has no "
            "remote)")


def fetch_said(store: Store, remote: str) -> str | None:
    """Say the lines ``kistore notes fetch REMOTE`` found there that this tip lacks, or None.

    A fetch merges nothing back that this repository's own notes history removed (its
    notes descend from the remote's): it said "0 attestation(s) gained" while the remote
    held a withdrawal the tip lacks (fresh05 MED 3).

    Args:
        store: the clone, after the fetch.
        remote: the remote fetched (a configured remote's name).

    Returns:
        The warning (the lines, named by run and signer, and ``kistore notes restore``),
        or None when the remote's notes hold no line that counts which the tip lacks.
    """
    found = lacking(store, None)
    held = None if found is None else found.held_by.get(f"{_TRACKING}{remote}/kistore")
    if found is None or not held:
        return None
    view = store.view(None)
    lines = {obj: {line: found.history[obj][line] for line in kept}
             for obj, kept in held.items()}
    count = sum(map(len, lines.values()))
    return (f"{remote}'s notes hold {count} attestation line(s) {NOTES_REF} lacks: "
            f"{_named(store, view, lines)}; this repository's notes history removed them, and "
            "a fetch takes back no removal made here, so none was gained: `kistore notes "
            "restore` puts them back")


def push_said(store: Store, remote: str) -> str | None:
    """Say the lines ``kistore notes push REMOTE`` sent without, or None (fresh07 M2).

    A push whose notes commits were dated over a minute ago makes them again as one commit
    holding the tip's lines (KI437): a line of this clone's own, never pushed, that the tip
    lacks (``git notes remove`` by mistake) is not sent, and was not said; KI315 keeps
    saying it after.

    Args:
        store: the clone, after the push.
        remote: the remote pushed to (as given).

    Returns:
        The warning (the lines, named by run and signer, and the two ways: ``notes
        restore`` then ``notes push``, or ``notes rebase REMOTE`` for a line taken back on
        purpose), or None when the tip lacks no line that counts which REMOTE's notes, as
        last fetched, lack.
    """
    found = lacking(store, None)
    if found is None or not found.history:
        return None
    there = found.held_by.get(f"{_TRACKING}{remote}/kistore", {})
    lines = {obj: kept for obj, judged in found.history.items()
             if (kept := {line: j for line, j in judged.items()
                          if line not in set(there.get(obj, ()))})}
    if not lines:
        return None
    typed = shlex.quote(remote)
    return (f"pushed {NOTES_REF} to {remote} without {sum(map(len, lines.values()))} "
            f"attestation line(s) its notes history or reflog held: "
            f"{_named(store, store.view(None), lines)}; {remote}'s notes lack them, and KI315 "
            f"says them until `kistore notes restore` then `kistore notes push {typed}` sends "
            f"them, or, for a line you meant to take back, `kistore notes rebase {typed}` "
            "drops them")
