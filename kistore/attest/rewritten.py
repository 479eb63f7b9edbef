"""A remote's notes history rewritten since it was last fetched (a forced push; reviewer G8).

A server without kistore's ``hooks/pre-receive`` (a mirror, a fork on github.com) takes
``git push -f origin refs/notes/kistore``: its notes history is replaced, and the lines
only the old history held are gone there. ``kistore notes fetch`` kept them here (notes
only grow), but said only "R's notes removed N line(s)", as of an ordinary removal, or
nothing when this clone's notes held them anyway: nobody was told that R's attestation
history itself had been rewritten. :func:`rewrite` tells it by the tracking ref
(``refs/notes/remotes/R/kistore``, the tip last seen) against the tip fetched now: one
that does not descend from it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..core.findings import WARNING, Finding, rule
from ..core.layout import NOTES_REF
from ..git.blobs import lookup
from ..git.lazy import pygit2
from ..git.note_blobs import read_note
from ..git.notes import changed_notes
from ..git.refs import ref_values_under, reflog_newest_first

if TYPE_CHECKING:  # pragma: no cover - typing only
    from pygit2 import Repository

    from ..store import Store

__all__ = ["NOTES_HISTORY_REWRITTEN", "Rewrite", "rewrite", "rewrite_message",
           "rewritten_findings"]

NOTES_HISTORY_REWRITTEN = rule(
    "KI313", "notes-history-rewritten", WARNING,
    "A remote's refs/notes/kistore was force-pushed over lines it held (a server without "
    "kistore's hooks/pre-receive): `kistore notes push REMOTE` gives them back, and install "
    "hooks/pre-receive there, which refuses such a push (KI408)")

_ZERO = "0" * 40

_NAMED = 5
"""Notes commits named at most in the message (then "and N more")."""


class Rewrite(NamedTuple):
    """A remote's notes tip that does not descend from the one last seen here.

    Attributes:
        seen: the tip last fetched (or pushed) here.
        tip: the tip fetched now.
        gone: the notes commits ``seen`` reaches and ``tip`` does not (libgit2's walk order).
        lost: ``{annotated object id: [lines]}``: lines the note held at ``seen`` that it
            lacks at ``tip``.
    """

    seen: str
    tip: str
    gone: list[str]
    lost: dict[str, list[bytes]]


def rewrite(repo: Repository, seen: str | None, tip: str) -> Rewrite | None:
    """Return how a remote's notes tip ``tip`` rewrote the one last seen, or None.

    Args:
        repo: the clone (holding both commits: the tracking ref kept ``seen``'s history).
        seen: the tracking ref's value before the fetch (None: never fetched).
        tip: the tracking ref's value after it.

    Returns:
        None when ``seen`` is None, equal to ``tip``, or an ancestor of it (the remote's
        notes grew), or is no longer here; else the :class:`Rewrite`.

    Raises:
        ObjectUnreadable: a notes tree or blob of either tip is damaged or missing.
    """
    if seen is None or seen == tip or seen not in repo:
        return None
    if repo.descendant_of(tip, seen):
        return None
    walker = repo.walk(seen)
    walker.hide(tip)
    gone = [str(commit.id) for commit in walker]
    old_tree = lookup(repo, seen, NOTES_REF).peel(pygit2.Commit).tree
    new_tree = lookup(repo, tip, NOTES_REF).peel(pygit2.Commit).tree
    lost: dict[str, list[bytes]] = {}
    for obj, (was, now) in changed_notes(repo, old_tree, new_tree).items():
        if was is None:
            continue
        kept = set() if now is None else set(read_note(repo, now, f"{NOTES_REF}:{obj}")
                                             .split(b"\n"))
        missing = [line for line in read_note(repo, was, f"{NOTES_REF}:{obj}").split(b"\n")
                   if line.strip() and line not in kept]
        if missing:
            lost[obj] = missing
    return Rewrite(seen, tip, gone, lost)


def rewrite_message(remote: str, found: Rewrite, named: str) -> str:
    """Say a :class:`Rewrite` in one line (without ``warning:``).

    Args:
        remote: as given to ``kistore notes fetch`` or ``notes push``.
        found: the rewrite.
        named: the notes that lost lines, named (:func:`kistore.attest.notes.named_notes`).

    Returns:
        Which tip the remote's notes ref left, which notes commits are gone from its
        history, which notes lost how many lines, and what to run.
    """
    ids = ", ".join(commit[:12] for commit in found.gone[:_NAMED])
    if len(found.gone) > _NAMED:
        ids += f" and {len(found.gone) - _NAMED} more"
    head = (f"{remote}'s {NOTES_REF} was rewritten since its notes were last fetched here "
            f"(a forced push, which a server running kistore's hooks/pre-receive refuses): "
            f"its tip {found.tip[:12]} does not descend from {found.seen[:12]}, the tip last "
            f"seen; {len(found.gone)} notes commit(s) of that history are gone from it "
            f"({ids})")
    if not found.lost:
        return head + ", though every attestation line they held is in its new history"
    count = sum(map(len, found.lost.values()))
    return (f"{head}, and with them {count} attestation line(s) on {len(found.lost)} "
            f"note(s): {named}; this repository keeps them (notes only grow, KI408): `kistore "
            f"notes push {shlex.quote(remote)}` gives them back to {remote}, and tell its "
            "maintainer (install hooks/pre-receive there)")


def rewritten_findings(store: Store) -> list[Finding]:
    """KI313 per remote whose notes tip, as fetched here, lacks lines a rewrite took (``verify``).

    A forced fetch of ``refs/notes/remotes/R/kistore`` (git's reflog entry whose old tip the
    new one does not descend from) is said by ``kistore notes fetch`` once; ``verify`` says
    it as long as R's tip as last fetched still lacks lines that old tip held (a ``kistore
    notes push R`` since makes its tip descend from it again: nothing said). Offline: the
    tracking refs' reflogs (none kept: nothing said) and the two notes trees.

    Args:
        store: the clone.

    Returns:
        One warning per such remote, on ``refs/notes/remotes/R/kistore``.
    """
    repo = store.repo
    git_dir = Path(store.git_dir)
    findings = []
    for name, tip in sorted(ref_values_under(git_dir, "refs/notes/remotes/").items()):
        if not name.endswith("/kistore"):
            continue
        for old, new, _when, _message in reflog_newest_first(git_dir, name):
            if old in ("", _ZERO) or old not in repo or new not in repo:
                continue
            if repo.descendant_of(new, old) or old == new:
                continue
            found = rewrite(repo, old, tip)  # against the tip now: mended since?
            if found is not None and found.lost:
                remote = name[len("refs/notes/remotes/"):-len("/kistore")]
                findings.append(Finding(NOTES_HISTORY_REWRITTEN, rewrite_message(
                    remote, found, _named(repo, found.lost)), file=name,
                    extra={"seen": found.seen, "tip": found.tip, "gone": found.gone,
                           "lost": {obj: len(lines) for obj, lines in found.lost.items()}}))
            break  # the newest rewrite is the one the remote's tip is judged against
    return findings


def _named(repo: Repository, objects: dict[str, list[bytes]]) -> str:
    """:func:`kistore.attest.notes.named_notes`, for a message."""
    # Lazy: kistore.attest.notes imports this module (an import cycle at load time).
    from .notes import named_notes

    return named_notes(repo, objects)
