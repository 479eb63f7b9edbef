"""Commit dates kistore can believe: KI428 (review r79 F2, F6, F8).

git takes any author and committer date a committer writes, and kistore reads committer
dates: a citation's publication date and the first-adding commit (docs/citation.md, KI425),
the entry time of an attestation file (:mod:`kistore.attest.notes`). So every commit a
range brings must have both dates

(a) in years 1970-9999 (:func:`kistore.core.times.representable`: Python's datetime stops
    at 9999, and one commit dated in year 10000 stopped ``verify``, export, the site and
    ``attestations`` for good),
(b) no later than the checking clock plus :data:`kistore.core.times.CLOCK_SKEW` (one day:
    one commit dated 2099 made every later attestation file enter in 2099), and

its committer date

(c) no earlier than any parent's committer date (or the checking clock, when that is
    earlier: a parent from the future bounds nothing) minus the same day (a pull request
    dated 2001 became the publication year of what it added).

:func:`range_dates` is the gate's (errors); :func:`check_commit_dates` is ``verify``'s over
the whole history read, (a) and (b) only, as warnings: stored history cannot be rewritten,
and readers clamp or disbelieve such dates (:func:`kistore.core.times.commit_datetime`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..core.findings import ERROR, WARNING, Finding, Rule, rule
from ..core.times import CLOCK_SKEW, commit_text, representable
from ..git.blobs import read_loose_history
from ..git.commit_header import Header, header
from ._fixes import HINT_BASE, Base
from ._history import ancestry

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

def make_again(base: Base | None) -> str:
    """Return KI428's fix: the commits made again with today's dates, from ``base``.

    Args:
        base: the range's BASE (:class:`._fixes.Base`), named by its id so the rebase runs
            as written (depth96: the gate printed the word BASE); :data:`._fixes.HINT_BASE`
            writes the rule's hint; None: a history checked from its root commit (a first
            push, a branch sharing no history with the server's): ``--root``.

    Returns:
        The fix. Raises nothing.
    """
    onto = "--root" if base is None else base.rebase_id
    return ("make the commit again with today's dates: `git commit --amend --reset-author "
            "--no-edit` for the branch's last commit, `git rebase --force-rebase "
            f"--ignore-date {onto}` for every commit of the branch (both set author and "
            "committer dates to now)")


COMMIT_DATE_IMPLAUSIBLE = rule("KI428", "commit-date-implausible", ERROR,
                               make_again(HINT_BASE))
STORED_DATE_IMPLAUSIBLE = replace(COMMIT_DATE_IMPLAUSIBLE, severity=WARNING, hint=(
    "nothing to rewrite (history is never rewritten): kistore reads such a date clamped into "
    "years 1970-9999, and an attestation's entry time does not believe a date past the clock; "
    "`kistore check` refuses such dates in new commits"))


def range_dates(repo: pygit2.Repository, commits: Iterable[Any], now: datetime | None = None,
                headers: Mapping[str, Header] | None = None, *, fix: str | None = None
                ) -> list[Finding]:
    """KI428 errors for the commits a range brings: (a), (b) and (c) of the module.

    Args:
        repo: the repository, to read each commit's parents (BASE's tip among them).
        commits: the range's commits (``pygit2.Commit``; :func:`._history.ancestry`).
        now: the checking clock (aware); None: this machine's.
        headers: each commit's header (:func:`kistore.git.commit_header.header`) by its
            id, already read (the gate's KI225 read them); a commit not in it is read.
        fix: each finding's fix (:func:`make_again` of the range's BASE; a notes push: its
            notes rebuild); None: the rule's hint, which says the word BASE.

    Returns:
        One finding per commit and date at fault, naming the commit, the date read (as
        RFC 3339 and as seconds since the epoch) and what was expected. A parent dated
        past the clock (landed without the gate) is compared as if dated at the clock, so
        such history does not refuse every later pull request.
    """
    clock = int((now or datetime.now(UTC)).timestamp())
    findings: list[Finding] = []
    for commit in commits:
        split = headers.get(str(commit.id)) if headers is not None else None
        findings += _dated_wrong(commit, split, clock, COMMIT_DATE_IMPLAUSIBLE)
        for parent_id in commit.parent_ids:
            parent: Any = repo[parent_id]
            # a parent dated past the clock (history that landed without the gate) bounds
            # nothing: its date is not believed, and every later commit would be refused
            floor = min(parent.commit_time, clock) - CLOCK_SKEW
            if commit.commit_time < floor:
                findings.append(_finding(
                    COMMIT_DATE_IMPLAUSIBLE, commit, "committer", commit.commit_time,
                    f"is earlier than that of its parent {str(parent.id)[:12]} "
                    f"({commit_text(parent.commit_time)}) by more than a day: a commit is "
                    "not made before the commit it is built on, and its date would become "
                    "the publication date of what it adds (docs/citation.md)",
                    f"a committer date no earlier than {commit_text(floor)}"))
    return findings if fix is None else [replace(f, fix=fix) for f in findings]


def check_commit_dates(store: Store, at: str | None = None, *, now: datetime | None = None
                       ) -> list[Finding]:
    """KI428 warnings for ``verify``: commits of the history read dated (a) or (b) wrong.

    Walks every commit reachable from ``at`` (or ``HEAD``); reads commits, no trees.

    Args:
        store: the store.
        at: revision, or None for ``HEAD`` (nothing for an unborn branch).
        now: the checking clock (aware); None: this machine's.

    Returns:
        Warnings (stored history is never rewritten), one per commit and date at fault.

    Raises:
        InputError: ``at`` names no commit.
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    head = store.commit(at or "HEAD")
    read_loose_history(repo, head.id)  # libgit2 loops on a cut loose commit (F3)
    clock = int((now or datetime.now(UTC)).timestamp())
    return [f for commit in ancestry(repo, head)
            for f in _dated_wrong(commit, None, clock, STORED_DATE_IMPLAUSIBLE)]


_IDENT = re.compile(rb"(author|committer) [^<>\n]*<[^<>\n]*> (0|[1-9][0-9]*) [+-][0-9]{4}")
"""An author or committer line as git's fsck accepts it (``fsck_ident``): a date of digits
with no leading zero, then a time zone, then the end of the line."""


def _dated_wrong(commit: Any, split: Header | None, clock: int, kind: Rule) -> list[Finding]:
    """Return KI428 findings of (a) and (b), and of a date line git cannot read, for a commit.

    A date line git's fsck refuses (``badDate``, ``missingTimezone``, ``zeroPaddedDate``,
    bytes after the zone), or a second author or committer line, is read one way by libgit2
    (a number, or 0, or the first line) and another by git (``%ct`` empty, a later field, or
    the last line): the first-adding commit's date then differs between the site and
    ``cite`` (reviewer r81 F2, F11). ``split``: the commit's header, or None to read it.
    """
    found = []
    lines = (split or header(commit.read_raw())).lines
    valid = [m.group(1).decode() for m in map(_IDENT.fullmatch, lines) if m is not None]
    for who in ("author", "committer"):
        count = sum(line.startswith(f"{who} ".encode()) for line in lines)
        if count != 1:  # libgit2 reads the first, git the last (reviewer r81 F11)
            found.append(_line_finding(
                kind, commit, who, f"it has {count} {who} lines, where git writes one: git "
                "reads the last and libgit2 the first, so they read different dates",
                f"one {who} line"))
        elif who not in valid:
            found.append(_line_finding(
                kind, commit, who, f"its {who} line does not read as git writes one (`NAME "
                "<EMAIL> SECONDS +ZONE`; git fsck: badDate, missingTimezone or "
                "zeroPaddedDate): git and libgit2 read different dates from it",
                "a date line as git writes it"))
    for who, seconds in (("author", commit.author.time), ("committer", commit.commit_time)):
        if not representable(seconds):
            found.append(_finding(
                kind, commit, who, seconds,
                "lies outside years 1970-9999, which kistore can represent (Python's datetime "
                "stops at 9999; git writes no date before 1970): kistore reads it as "
                f"{commit_text(seconds)}", "a date in years 1970-9999"))
        elif seconds > clock + CLOCK_SKEW:
            found.append(_finding(
                kind, commit, who, seconds,
                f"lies in the future: after this machine's clock ({commit_text(clock)}) by "
                "more than a day; kistore reads committer dates as publication dates and as "
                "the entry time of attestations",
                f"a date no later than {commit_text(clock + CLOCK_SKEW)}"))
    return found


def _line_finding(kind: Rule, commit: Any, who: str, why: str, expected: str) -> Finding:
    """One KI428 finding about ``who``'s header line of ``commit`` (no date read from it)."""
    return Finding(kind, f"commit {str(commit.id)[:12]}: {why}", expected=expected, found=who,
                   extra={"commit": str(commit.id), "date": who, "seconds": None})


def _finding(kind: Rule, commit: Any, who: str, seconds: int, why: str, expected: str
             ) -> Finding:
    """One KI428 finding about ``who``'s date of ``commit``."""
    said = (f"{commit_text(seconds)} ({seconds} s since the epoch)"
            if representable(seconds) else f"{seconds} s since the epoch")
    return Finding(
        kind, f"commit {str(commit.id)[:12]}: its {who} date {said} {why}",
        expected=expected, found=said,
        extra={"commit": str(commit.id), "date": who, "seconds": seconds})
