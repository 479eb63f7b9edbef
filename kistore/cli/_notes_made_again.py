"""A refused ``kistore notes push`` told as the push sends it: as is, or made again (doc02 L10).

``kistore notes push`` sends the notes commits the remote lacks as they are while every one
is dated within a minute of this machine's clock; otherwise it makes them again as one
commit dated now, holding the tip's lines (:func:`kistore.attest.notes_dated.dated_at_push`,
KI437). The gate judges the commit sent. Made again, a refused line at the tip "entered in
notes commit X, which the push brings, so deleting it at the tip ... leaves it in the history
the push sends, refused again" named X, a commit made for the push that no ref of the
clone points to, and the deletion at the tip was in fact enough: the next push makes the
notes again without it (review01 L10, left open by doc02). Sent as they are, the advice was
true of that push only: a push more than a minute after the commits makes them again, and
an edit at the tip is then enough, a line taken back is not sent.

Here :func:`made_again` says which it is, :func:`retold` gives a refused tip line of a
commit made again its true fix, and :func:`later_push` the words said of a push within
the minute.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.layout import NOTES_REF
from ..git.lazy import pygit2

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2 as _pygit2

    from ..core.findings import Finding


def made_again(repo: _pygit2.Repository, theirs: str | None, pushed: str) -> bool:
    """Whether ``pushed`` is the notes commit a push made again dated now (not ours as is).

    Args:
        repo: the pushing clone.
        theirs: the remote's notes tip the push builds on (None: it has none).
        pushed: the notes commit the push sends (40 hex).

    Returns:
        True when ``pushed`` is in no history of this clone's ``refs/notes/kistore`` and its
        parents are ``theirs`` alone (none without it): what ``dated_at_push`` makes. False
        for our tip or an ancestor, and for the commit made for a fork whose parents are
        our tip and the fork's (its history is ours). Raises nothing.
    """
    ref = repo.references.get(NOTES_REF)
    if ref is None:
        return False
    tip = str(ref.target)
    if pushed == tip or repo.descendant_of(tip, pushed):
        return False
    parents = [str(p) for p in repo[pushed].peel(pygit2.Commit).parent_ids]
    return parents == ([] if theirs is None else [theirs])


def again_words(remote: str, who: str = "") -> str:
    """Say what a push of notes commits older than a minute sends.

    ``remote``: as given to ``notes push``; ``who``: the push as the sentence names it
    (empty: ``kistore notes push REMOTE``). Raises nothing.
    """
    who = who or f"`kistore notes push {shlex.quote(remote)}`"
    return (f"the notes commits {remote} lacks are more than a minute old, so {who} sends "
            "them made again as one notes commit dated now, which holds the tip's lines only "
            "(KI437)")


def retold(found: list[Finding], pushed: str, remote: str) -> list[Finding]:
    """Give each refused tip line that "entered" in the commit made again its true fix.

    Args:
        found: the gate's findings of the push (``extra.entered``: the notes commit a
            refused tip line entered in, :func:`kistore.check.gate.check_updates`).
        pushed: the commit made again (:func:`made_again`), which holds every tip line.
        remote: the remote as given to ``notes push``.

    Returns:
        ``found`` with such a finding's ``extra.entered`` dropped (it names a commit of no
        ref here) and its fix: delete the line at the tip, then push; or the rebuild.
        Raises nothing.
    """
    typed = shlex.quote(remote)
    fix = (f"deleting the line at the tip (an edit of the note) leaves it out: "
           f"{again_words(remote)}, not the notes commit the line entered in; or `kistore "
           f"notes rebase {typed}` rebuilds the notes on {remote}'s, leaving out each line "
           "that does not verify")
    return [replace(f, extra={k: v for k, v in f.extra.items() if k != "entered"}, fix=fix)
            if f.extra.get("entered") == pushed else f for f in found]


def later_push(remote: str) -> str:
    """Say, of a refusal for the notes history, what a push after the minute sends instead.

    ``remote``: as given to ``notes push``. Raises nothing.
    """
    return (f" (this holds while the notes commits {remote} lacks are dated within a minute "
            f"of this machine's clock: a later `kistore notes push {shlex.quote(remote)}` sends "
            "them made again as one notes commit dated now, holding the tip's lines only "
            "(KI437), so an edit at the tip is then enough and a line taken back is not sent)")
