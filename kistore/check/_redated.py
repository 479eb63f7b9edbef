"""A line whose effect changes when its notes commits are made again at a push (fresh12 F7).

A note line enters the repository at the trusted time of the first notes commit holding
it (:class:`kistore.attest.notes.Clock`). ``kistore notes push`` makes the notes commits a
remote lacks again, dated at the push, once they are more than a minute old or dated ahead
(:func:`kistore.attest.notes_dated.dated_at_push`, KI437), and ``kistore notes rebase
REMOTE`` writes this repository's lines again in notes commits dated now (one per time a
note's lines entered, in order, when a note gains lines of two times: fresh16 F5): either way a
line enters (on the remote, and here once the push or rebuild lands) at that moment, not at
the entry this repository's readers give it. A withdrawal signed while its key was not
trusted yet (a community attestation here) then entered after the key's trust commit, and
counted as the maintainer's, on the server too, with no word: what docs/attestations.md
says never happens ("a withdrawal signed by a key nobody trusted yet does not take effect
when the trust pull request lands").

:func:`effects_made_again` judges each line the new notes bring, as KI439 does
(:func:`kistore.attest.evidence.judged_among`, with its bundle's committed file copies,
against the trust of the protected branch dated and held as readers date it): once at its
entry in the original notes commits, as this repository's readers give it now, and once at
its entry in the commits made again; and then each line among every attestation of its
subject (:func:`_standing_changed`, fresh16 F5: which of one key's reruns of a run stands).
A line whose effect differs is returned; the caller refuses, unless told to let such lines
enter now (``--enter-now``). A line of the second pass may keep its entry (one the remote
held, whose verdict the lines made again change: a key's later rerun they supersede); the
refusal names the lines made again first and such lines as what they are (:func:`parted`,
:attr:`EffectChanged.made_again`, fresh17 F4: a refusal listed 68 lines, each "made again",
66 of them at the time they had entered, and the one line made again was 67th).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from ..attest.evidence import SUPERSEDED, judge_all, judged_among
from ..attest.notes import Clock, Seen, bundle_copies, collect_many, lines_of
from ..attest.trust import format_time
from ..attest.trust_history import readers_trust
from ..core.digest import Digest
from ..core.layout import NOTES_REF
from ..git.blobs import lookup
from ..git.lazy import pygit2  # imported on first use (as the gate's)
from ..git.note_blobs import read_note
from ..git.notes import changed_notes, notes_tree
from ._history import ancestry
from ._notes_history import BroughtNotes, brought_notes

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Callable

    from ..attest.trust import Trust
    from ..store import Store, View

__all__ = ["EffectChanged", "Parted", "effects_made_again", "moved_lines", "parted"]


@dataclass(frozen=True, slots=True)
class EffectChanged:
    """A note line whose effect its notes commits made again change (fresh12 F7).

    Attributes:
        obj: the annotated object's id (40 hex), the note's name.
        subject: the digest the line is about (``sha256:...``).
        type: the attestation's type (``withdrawal``, ...); None when unreadable.
        keyid: the bundled key's fingerprint; None when unreadable.
        entered: its entry as this repository's readers give it now (UTC, whole seconds).
        effect: its effect there (``community``, ``withdraws``, ...).
        reason: why (the judgement's reason; empty for a plain valid attestation).
        enters: its entry in the notes commits made again (UTC, whole seconds).
        becomes: its effect there.
        then: why, there.
        outcome: a rerun's or reproduction's ``outcome`` (``reproduced``, ...); else None.
    """

    obj: str
    subject: str
    type: str | None
    keyid: str | None
    entered: datetime
    effect: str
    reason: str
    enters: datetime
    becomes: str
    then: str
    outcome: str | None = None

    @property
    def made_again(self) -> bool:
        """Whether the line enters at another time made again (False: where it did, fresh17 F4)."""
        return self.entered != self.enters

    def what(self) -> str:
        """Name the line: type (a rerun's outcome with it), key, subject and the note's object."""
        outcome = f" ({self.outcome})" if self.outcome else ""
        return (f"the {self.type or 'attestation'}{outcome} by {self.keyid} on {self.subject} "
                f"(note on {self.obj})")

    def said(self) -> str:
        """Say the line, both entries (UTC, to the second) and both verdicts, in one line."""
        why = f" ({self.reason})" if self.reason else ""
        then = f" ({self.then})" if self.then else ""
        return (f"{self.what()} entered this repository at {format_time(self.entered)}, where "
                f"every reader here judges it: {self.effect}{why}; made again, it enters at "
                f"{format_time(self.enters)}: {self.becomes}{then}")

    def kept_said(self) -> str:
        """Say a line not made again whose verdict the lines made again change (fresh17 F4).

        One line: the line (:meth:`what`), its entry, which stays, and both verdicts (UTC,
        to the second); a line that becomes ``superseded`` is named as the same key's later
        rerun. Raises nothing.
        """
        why = f" ({self.reason})" if self.reason else ""
        then = f" ({self.then})" if self.then else ""
        later = (", the same key's later rerun" if self.becomes == SUPERSEDED
                 and self.effect != SUPERSEDED else "")
        return (f"{self.what()}, not made again (it entered at {format_time(self.entered)} "
                f"and stays there){later}: {self.effect}{why} now, {self.becomes}{then} "
                "once the line(s) made again enter")

    def superseded_said(self) -> str:
        """Say, in a way out, that this later rerun would be superseded (fresh17 F4)."""
        return (f"the key's later {self.outcome or self.type} of {self.subject} (note on "
                f"{self.obj}, entered {format_time(self.entered)}) would be superseded")

    def as_json(self) -> dict[str, str | None]:
        """Return the line for ``--json``'s ``effectChanged`` (times RFC 3339 UTC)."""
        return {"object": self.obj, "subject": self.subject, "type": self.type,
                "keyid": self.keyid, "enteredAt": format_time(self.entered),
                "effect": self.effect, "entersAt": format_time(self.enters),
                "becomes": self.becomes}


@dataclass(frozen=True, slots=True)
class Parted:
    """The lines a refusal of notes made again names, in the order it names them (fresh17 F4).

    A line whose entry moves changes the verdicts of lines that do not move: one key's
    ``not-reproduced`` made again after the same key's later ``reproduced``, which another
    clone pushed first, supersedes it, and the key's earlier ``not-reproduced`` lines stop
    being superseded. Until 2026-12-08 the refusal said each of them "made again, it enters
    at" the time it entered already, and the one line made again was 67th of 69.

    Attributes:
        made: the lines made again (:attr:`EffectChanged.made_again`), in the order found.
        overturned: lines not made again that become ``superseded``, each entered after a
            line made again of the same key and subject entered here: the key's later
            reruns the lines made again would supersede; the latest first.
        rest: the other lines not made again whose verdict changes with them, in the
            order found.
    """

    made: list[EffectChanged]
    overturned: list[EffectChanged]
    rest: list[EffectChanged]


def parted(found: list[EffectChanged]) -> Parted:
    """Part :func:`effects_made_again`'s lines into those made again and those they change.

    Args:
        found: the lines (any order).

    Returns:
        :class:`Parted`; every line of ``found`` in one of its lists. When no line is made
        again (no entry moved), every line is in ``made``, as said until 2026-12-08.
        Raises nothing.
    """
    made = [c for c in found if c.made_again]
    if not made:
        return Parted(list(found), [], [])
    overturned = sorted(
        (c for c in found if not c.made_again and c.becomes == SUPERSEDED
         and c.effect != SUPERSEDED and any(m.keyid == c.keyid and m.subject == c.subject
                                             and m.entered < c.entered for m in made)),
        key=lambda c: (c.entered, c.obj), reverse=True)
    rest = [c for c in found if not c.made_again and c not in overturned]
    return Parted(made, overturned, rest)


def effects_made_again(store: Store, theirs: str | None, ours: str, sent: str, trust_rev: str,
                       now: datetime) -> list[EffectChanged]:
    """Return each line ``sent`` brings whose effect differs from its entry in ``ours``.

    Args:
        store: the pushing (or rebuilding) repository.
        theirs: the remote's notes tip ``sent`` is built on (None: it holds no notes).
        ours: this repository's notes tip, whose history dates each line as its readers do.
        sent: the notes commit made again (``theirs``'s descendant, or a root without it),
            holding the lines to judge.
        trust_rev: the protected branch's tip (its trust file judges, as the gate's).
        now: the clock readers read trusted times at (aware, UTC).

    Returns:
        One :class:`EffectChanged` per line ``sent``'s notes hold that ``theirs``'s lack,
        that this repository's notes history holds, entered at another time there than in
        ``sent``'s history, and judged to another effect at the two; in object order, then
        the note's line order. Then one per note line about a subject of those lines whose
        effect among all the subject's attestations differs with ``ours``'s notes and with
        ``sent``'s (:func:`_standing_changed`), not named already. Empty where the trust
        file does not parse (KI309 says it).

    Raises:
        ObjectUnreadable: a notes commit, tree or blob on the way is damaged or missing.
    """
    trust = readers_trust(store, trust_rev)
    if trust is None:
        return []
    new, moved = moved_lines(store, theirs, ours, sent, now)
    if not new:
        return []
    view = store.view(trust_rev)
    changed = []
    flagged = set()
    for item, enters in moved:
        copies = bundle_copies(store, item, trust_rev)  # judged with them, as readers do
        was = judged_among(item, copies, trust, view)
        becomes = judged_among(replace(item, entered_at=enters), copies, trust, view)
        if was.effect != becomes.effect:
            obj = item.location[len(NOTES_REF) + 1:]
            flagged.add((obj, item.data))
            changed.append(EffectChanged(obj, str(item.subject), was.type, was.keyid,
                                         item.entered_at, was.effect, was.reason, enters,
                                         becomes.effect, becomes.reason, was.outcome))
    return changed + [c for key, c in _standing_changed(store, new, ours, sent, trust_rev,
                                                        trust, view) if key not in flagged]


def moved_lines(store: Store, theirs: str | None, ours: str, sent: str, now: datetime
                ) -> tuple[list[tuple[str, list[bytes]]], list[tuple[Seen, datetime]]]:
    """Return the lines ``sent`` brings and those of them whose entry it moves.

    Args:
        store: the pushing (or rebuilding) repository.
        theirs: the remote's notes tip ``sent`` is built on (None: it holds no notes).
        ours: this repository's notes tip, whose history dates each line as its readers do.
        sent: the notes commit made again.
        now: the clock readers read trusted times at (aware, UTC).

    Returns:
        ``[(annotated object, [lines])]`` ``sent``'s notes hold and ``theirs``'s lack
        (:func:`_new_lines`), and per such line on an object file that ``ours``'s history
        holds, entered at another time there than in ``sent``'s: the line as a
        :class:`kistore.attest.notes.Seen` at its entry in ``ours``'s history (``location``
        ``refs/notes/kistore:OBJ``) and its entry in ``sent``'s (UTC), in object order, then
        the note's line order. Raises ObjectUnreadable as :func:`effects_made_again` does.
    """
    repo = store.repo
    old = None if theirs is None else lookup(repo, theirs, NOTES_REF).peel(pygit2.Commit)
    new = _new_lines(repo, old, sent)
    if not new:
        return [], []
    tip = lookup(repo, ours, NOTES_REF).peel(pygit2.Commit)
    floor = old if old is not None and (ours == theirs or repo.descendant_of(ours, old.id)) \
        else None
    before = _entries(repo, tip, floor, now)
    after = _entries(repo, lookup(repo, sent, NOTES_REF).peel(pygit2.Commit), old, now)
    moved = []
    for obj, lines in new:
        target = repo.get(obj)
        if not isinstance(target, pygit2.Blob):
            continue  # a note on no object file: KI409's, never judged for trust
        subject = Digest.of(bytes(target.data))
        for line in lines:
            entered, enters = before(obj, line), after(obj, line)
            if entered is None or enters is None or entered == enters:
                continue
            moved.append((Seen(line, subject, "note", f"{NOTES_REF}:{obj}", entered), enters))
    return new, moved


def _standing_changed(store: Store, new: list[tuple[str, list[bytes]]], ours: str, sent: str,
                      trust_rev: str, trust: Trust, view: View
                      ) -> list[tuple[tuple[str, bytes], EffectChanged]]:
    """Return each note line whose effect among its subject's attestations ``sent`` changes.

    Judged alone (:func:`effects_made_again`'s first pass), a line keeps its effect when
    what changes is which of one key's reruns of a run stands (fresh16 F5): a key's
    ``reproduced``, then its ``not-reproduced``, made again in one notes commit, entered
    together, and the one whose payload is dated later (the ``reproduced``, dated ahead)
    stood: the run was ``verified`` on the server and in every clone. Here every
    attestation of each subject ``new`` brings a line about is judged as readers judge it
    (:func:`kistore.attest.evidence.judge_all`, the trust file's files at ``trust_rev``
    with them), once with ``ours``'s notes and once with ``sent``'s, and each note line
    both hold whose effect differs, one of the two ``superseded``, is returned (a
    superseded rerun that would stand, or the reverse; a change of another kind, a
    doubled note's lines a rebuild writes at one path, KI424, is not the order's), in
    object order, then the line's bytes. Only the lines both hold are
    judged, on either side: a line one side lacks (left out by a rebuild, a fork's brought
    by a push to it) moved no entry.

    Args:
        store: the pushing (or rebuilding) repository.
        new: ``[(annotated object, [lines])]`` ``sent`` brings (:func:`_new_lines`).
        ours: this repository's notes tip, as its readers read it now.
        sent: the notes commit made again.
        trust_rev: the protected branch's tip (its files and objects are read).
        trust: its trust, dated and held (as :func:`effects_made_again`'s).
        view: ``store.view(trust_rev)``.

    Returns:
        ``((annotated object, line), EffectChanged)`` per such line. Raises ObjectUnreadable as
        :func:`kistore.attest.notes.collect_many` does.
    """
    subjects: dict[Digest, str] = {}
    for obj, _lines in new:
        target = store.repo.get(obj)
        if isinstance(target, pygit2.Blob):  # a note on no object file: KI409's
            subjects[Digest.of(bytes(target.data))] = obj
    if not subjects:
        return []
    read = [collect_many(store, subjects, at=trust_rev, notes_at=at) for at in (ours, sent)]
    changed = []
    for subject, obj in subjects.items():
        # the lines both hold: one only one side holds (a line a rebuild leaves out, a
        # fork's line a push to it brings) is no entry that moved
        both = {s.data for s in read[0][subject] if s.source == "note"} & {
            s.data for s in read[1][subject] if s.source == "note"}
        before, after = ({s.data: j for s, j in zip(kept, judge_all(kept, trust, view),
                                                    strict=True) if s.source == "note"}
                         for kept in ([s for s in found[subject]
                                       if s.source != "note" or s.data in both]
                                      for found in read))
        for data, was in sorted(before.items()):
            becomes = after[data]
            if becomes.effect == was.effect or SUPERSEDED not in (was.effect, becomes.effect):
                continue  # what else changes (a note's defect a rebuild mends) is no order's
            changed.append(((obj, data), EffectChanged(
                obj, str(subject), was.type, was.keyid, was.entered_at, was.effect,
                was.reason, becomes.entered_at, becomes.effect, becomes.reason, was.outcome)))
    return changed


def _new_lines(repo: pygit2.Repository, old: pygit2.Commit | None, sent: str
               ) -> list[tuple[str, list[bytes]]]:
    """Return ``[(object, [lines])]`` ``sent``'s notes hold and ``old``'s lack, by object."""
    before = None if old is None else old.tree
    found = []
    for obj, (was, now) in sorted(changed_notes(repo, before, notes_tree(
            repo, sent, NOTES_REF)).items()):
        if now is None:
            continue
        had = set() if was is None else set(lines_of(read_note(repo, was, f"{NOTES_REF}:{obj}")))
        lines = [line for line in dict.fromkeys(lines_of(read_note(
            repo, now, f"{NOTES_REF}:{obj}"))) if line not in had]
        if lines:
            found.append((obj, lines))
    return found


def _entries(repo: pygit2.Repository, tip: pygit2.Commit, floor: pygit2.Commit | None,
             now: datetime) -> Callable[[str, bytes], datetime | None]:
    """Return a function giving a line's entry in ``tip``'s history above ``floor``.

    Each commit of the range is dated as readers date it (:class:`kistore.attest.notes.
    Clock` at ``now``, parents first), ``floor`` at its own date (the history under it is
    taken as no later, as :func:`._entry_verdict.entry_times` takes it); a line's entry is
    its oldest commit's whose note holds it (None: no commit of the range holds it).
    """
    brought = list(ancestry(repo, tip, floor))
    walked: list[BroughtNotes] = brought_notes(repo, brought, str(tip.id))
    clock = Clock(now)
    if floor is not None:
        clock.time_of(floor)  # its own date: its parents are not read
    for commit in reversed(brought):  # parents first
        clock.time_of(commit)
    times = {str(c.id): clock.times[c.id] for c in brought}
    read: dict[str, set[bytes]] = {}

    def entry(obj: str, line: bytes) -> datetime | None:
        for commit in reversed(walked):  # oldest first
            blob = commit.notes.get(obj)
            if blob is None:
                continue
            if blob not in read:
                read[blob] = set(lines_of(read_note(repo, blob, f"{NOTES_REF}:{obj}")))
            if line in read[blob]:
                return times[commit.commit]
        return None

    return entry
