"""The protected branch's first-parent line only grows: KI430, KI431 (r81 F12, F15; r82 F7; r84 F2).

kistore reads main along its first-parent line: a key without ``validFrom`` counts from the
oldest first-parent version of ``store/trust/keys.json`` that lists it
(:func:`kistore.attest.trust_history.listed_since`), revocations are gathered along it, and
the site dates its pages by it. That line is a property of the tip commit. A fast-forward
of main to a merge whose FIRST parent is an old fork (``git merge main`` on a stale branch,
then a fast-forward push) makes every main commit since the fork a side line: each key
trusted since then silently counts from the merge, and what it signed stops counting. A
trust commit dated at the old fork and brought onto the line that way counts from that
date. So a move of the protected branch from OLD to NEW must keep OLD on NEW's
first-parent line, and every commit that line gains must be dated no earlier than OLD, nor
than the clock of the push that brings it:

* **KI430** (error): OLD is not on NEW's first-parent line. Found by walking first parents
  from NEW through the commits the move brings (``OLD..NEW``): every commit before OLD on
  that line is a descendant of OLD, so it is one of them; the first commit of the walk that
  is not (an ancestor of OLD other than OLD, or a root) proves OLD is off the line. The walk
  is bounded by the size of the range.
* **KI431** (error): a commit of the new segment (OLD excluded .. NEW) whose committer date
  is more than :data:`kistore.core.times.CLOCK_SKEW` (one day) before the push's clock
  (``check --updates``), or, judged after the push (``check --landed``, which has no push
  clock), before OLD's (a tip dated past the clock: the clock). KI428 bounds a commit only
  by its parents, so a chain of commits each 23 hours before its parent walked back a year
  while each passed; and a fast-forward of a quiet main (last moved a year ago) to a
  commit dated then landed today with a year-old publication date
  (:mod:`kistore.git.landing`: a run is published at its landing commit's committer date),
  and ten pushes each dated 23 hours before main's tip walked it back nine days (r84 F2).
  The push clock bounds both: what lands is dated within a day of its landing. A commit
  dated past the clock is KI428's (b) (:mod:`._dates`), on every commit the push brings.

GitHub's merge button (a merge commit whose first parent is main, or a squash or rebase
made now) and its merge queue never produce either shape. Both apply where a move of the
protected branch is judged: ``check --updates`` (``hooks/pre-receive``) for each protected
branch (:func:`kistore.check._refs.protected_refs`), and ``check --landed BEFORE..AFTER``
(the workflow's ``landed`` job, after the push: its clock is the job's, not the push's, so
only OLD's date bounds the line there, and a quiet main fast-forwarded to an old commit is
seen by the hook alone). A pull request's own range
(``check BASE..HEAD`` with HEAD a branch that merged main in) has the shape KI430 refuses,
and is normal there: GitHub lands it with a merge commit of its own; it is not judged so.

``refs/notes/kistore`` is not held to either: a note line's entry time is the earliest
(clamped) date of any notes commit holding it, whatever the parent order, and ``git notes
merge`` (``kistore notes fetch``) makes merges whose first parent is the local notes, not
the remote's old tip. A backdated notes line gains no trust: the gate judges each new line
at this machine's clock (KI411).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..core.findings import ERROR, Finding, rule
from ..core.times import CLOCK_SKEW, commit_text

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


_MERGE = ("merge the branch into main with a merge commit whose first parent is main (`git "
          "checkout main && git merge --no-ff BRANCH`, what GitHub's merge button makes), or "
          "rebase the branch onto main (`git rebase main`), and push that")
_REDATE = ("land the branch with a merge commit made now (`git checkout main && git merge "
           "--no-ff BRANCH`, what GitHub's merge button makes: only the merge joins the "
           "first-parent line), or make its commits again with the committer dated now "
           "(`git commit --amend --no-edit` for a branch of one commit, `git rebase "
           "--force-rebase main` on the branch for every commit), and push that")
_LANDED = ("main has already moved and this check cannot undo it: restore the line with a "
           "merge commit whose first parent is {old} (`git checkout -B repair {old} && git "
           "merge --no-ff {new}`, pushed to main: a fast-forward that loses nothing; its own "
           "check names {new} once), and protect main from such pushes (docs/threats.md)")
FIRST_PARENT_LINE_BROKEN = rule("KI430", "first-parent-line-broken", ERROR, _MERGE + (
    "; never fast-forward main to a merge of main into a branch"))
LANDED_BEFORE_BASE = rule("KI431", "landed-before-base", ERROR, _REDATE)

SHOWN = 4
"""First-parent commits a KI430 message names (the walk is counted in ``extra``)."""


def first_parent_findings(old: pygit2.Commit, new: pygit2.Commit, brought: Iterable[Any],
                          where: str, now: datetime | None = None, *, landed: bool = False
                          ) -> list[Finding]:
    """KI430 and KI431 for a move of a protected branch from ``old`` to ``new``.

    Args:
        old: the branch's tip before the move (``pygit2.Commit``).
        new: its tip after (a descendant of ``old``; the caller refuses anything else).
        brought: the commits of ``old..new`` (:func:`._history.ancestry` with ``old``
            hidden), each a ``pygit2.Commit``.
        where: what moves, for the message: ``refs/heads/main`` or ``BASE..HEAD``.
        now: the push's clock (aware); None: this machine's. The segment's commits must
            be dated no more than a day before it.
        landed: the move has happened (the workflow's ``landed`` job), and ``now`` is not
            the push's clock but a later one: the segment is bounded by ``old``'s date
            instead (an ``old`` dated past ``now`` counts as dated at it), and the message
            says that the move cannot be undone and how to restore the line, instead of
            how to push.

    Returns:
        One KI430 when ``old`` is not on ``new``'s first-parent line (naming the first
        commits of that line and where it leaves the range; ``extra``: ``old``, ``new``,
        ``left_at``: the commit off the range, or None at a root). Otherwise one KI431 per
        commit of the first-parent segment after ``old`` whose committer date is more than
        a day before ``now`` (``landed``: before ``old``'s) (``extra``: ``commit``,
        ``seconds``, ``floor``, ``bound``: ``"push"`` or ``"old tip"``). Empty when ``old``
        is ``new``.
    """
    if old.id == new.id:
        return []
    commits = {c.id: c for c in brought}
    line: list[Any] = []
    at: Any = new
    while at.id != old.id:
        if at.id not in commits:  # an ancestor of OLD that is not OLD: OLD is off the line
            return [_broken(old, new, line, at, where, landed)]
        line.append(at)
        if not at.parent_ids:  # a root: the line ends without OLD
            return [_broken(old, new, line, None, where, landed)]
        first = at.parent_ids[0]
        at = old if first == old.id else commits.get(first)
        if at is None:  # not brought, not OLD: an ancestor of OLD
            return [_broken(old, new, line, first, where, landed)]
    clock = int((now or datetime.now(UTC)).timestamp())
    if landed:  # after the push: its clock is gone, the old tip's date is what is known
        floor = min(old.commit_time, clock) - CLOCK_SKEW
        before = (f"{str(old.id)[:12]} ({commit_text(old.commit_time)}), the tip it is "
                  "built on")
    else:  # the push's clock bounds the old tip's date too (min(old, clock) <= clock)
        floor = clock - CLOCK_SKEW
        before = (f"this push ({commit_text(clock)}; the old tip {str(old.id)[:12]} is dated "
                  f"{commit_text(old.commit_time)})")
    return [Finding(
        LANDED_BEFORE_BASE, f"{where}: commit {str(c.id)[:12]} on the new first-parent line "
        f"is dated {commit_text(c.commit_time)}, more than a day before {before}: a key it "
        "trusts would count, and what it adds would be published, from that earlier date: "
        f"{_what_now(old, new, landed, _REDATE)}",
        expected=f"a committer date no earlier than {commit_text(floor)}",
        found=commit_text(c.commit_time),
        extra={"commit": str(c.id), "seconds": c.commit_time, "floor": floor,
               "bound": "old tip" if landed else "push"})
        for c in line if c.commit_time < floor]


def _what_now(old: Any, new: Any, landed: bool, fix: str) -> str:
    """Return what to do: ``fix`` before the move, or how to restore main after it."""
    return _LANDED.format(old=str(old.id)[:12], new=str(new.id)[:12]) if landed else fix


def _broken(old: Any, new: Any, line: list[Any], left: Any, where: str, landed: bool
            ) -> Finding:
    """Return KI430: the first-parent line walked (``line``) left the range at ``left``."""
    walked = ", ".join(f"{str(c.id)[:12]} ({commit_text(c.commit_time)})"
                       for c in line[:SHOWN]) + (", ..." if len(line) > SHOWN else "")
    left_id = None if left is None else str(getattr(left, "id", left))
    end = ("ends at a root commit" if left_id is None else
           f"then reaches {left_id[:12]}, a commit {str(old.id)[:12]} already had")
    return Finding(
        FIRST_PARENT_LINE_BROKEN, f"{where}: {str(old.id)[:12]} is not on the first-parent "
        f"line of {str(new.id)[:12]}: that line runs {walked} and {end}, so every commit "
        f"since that fork becomes a merged side line: each key trusted since then would "
        "count only from the merge (what it signed would stop counting), a trust commit on "
        "the fork would count from its own date, and the site's history would skip them "
        f"(docs/attestations.md): {_what_now(old, new, landed, _MERGE)}",
        expected=f"{old.id} on the first-parent line of {new.id}",
        found=f"first-parent line {'through' if left_id else 'to a root'} "
              f"{left_id or str(line[-1].id)}",
        extra={"old": str(old.id), "new": str(new.id), "left_at": left_id,
               "walked": len(line)})
