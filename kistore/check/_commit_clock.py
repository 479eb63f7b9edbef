"""KI438: a commit a range brings is not dated ahead of the checking clock (fresh06 L6).

An attestation file enters the repository at the committer date of the first commit that
holds it, held up to its ancestors' (:class:`kistore.attest.notes.Clock`; docs/
attestations.md, "Which dates are trusted"), and a key's trust, planned expiry and
revocation are judged at that entry. The date is the committer's to write, and the gate
believed any date up to a day past its clock (KI428 (b)): one commit dated 20 hours ahead
(pre-receive: ok, 0 findings) made every attestation file committed after it "enter" 20
hours ahead, so a maintainer whose key has a planned ``validUntil`` within those hours
could not withdraw anything (``check`` and pre-receive refused the file, KI302, "the
attestation entered ... " at a date nobody wrote for it); a key's trust commit dated so
counted from then.

**KI438** (error), wherever the gate judges the commits a range brings at a clock of its
own: ``check BASE..HEAD`` (the pull request's check: its commits were made before it
runs), ``check --landed`` (after the push), and ``check --updates`` for every ref a push
brings (``pre-receive``: the server's clock; ``pre-push``, ``check --unpushed``: the
pushing clone's): a commit whose committer date is more than
:data:`kistore.core.times.COMMIT_AHEAD` (five minutes) after that clock. One finding for
the range, naming the commit furthest ahead, its date, how far, the clock and how many
others are ahead (``extra``: ``commits``, ``commit``, ``seconds``, ``clock``). A commit
KI428 names for its committer date (a day ahead, outside years 1970-9999) is KI428's alone.

A store's rules hold over its whole history: only the commits a range brings are judged,
and a clock only moves forward, so a commit that passed is never refused later. ``verify``
does not judge it (history is never rewritten; KI428's day is what readers believe).
Notes commits are KI437's (:mod:`._notes_clock`), which bounds them both ways.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..core.findings import ERROR, Finding, rule
from ..core.times import COMMIT_AHEAD, duration_text, utc_text
from ._fixes import HINT_BASE, Base

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2



def ahead_fix(base: Base | None) -> str:
    """Return KI438's fix: the clock set right, the commits made again dated now, or time.

    Args:
        base: the range's BASE (named by its id), :data:`._fixes.HINT_BASE` for the rule's
            hint, or None for a history checked from its root commit (``--root``).

    Returns:
        The fix. Raises nothing.
    """
    onto = "--root" if base is None else base.rebase_id
    # not KI428's make_again: `--reset-author` took the contributor's name too, and a date
    # minutes ahead needs no rewrite, only time (fresh08 M3)
    return ("set right the clock of the machine that made the commit, then make the commit "
            "again dated now: `git commit --amend --no-edit --date=now` for the branch's last "
            "commit (its author kept), `git rebase --force-rebase --ignore-date "
            f"{onto}` for every commit of the branch; a commit dated only minutes ahead "
            "passes once the clock reaches its date less five minutes: run the check again "
            "then (a commit that landed, under `check --landed`, needs nothing else)")


COMMIT_DATED_AHEAD = rule("KI438", "commit-dated-ahead", ERROR, ahead_fix(HINT_BASE))


def commits_ahead(commits: Iterable[pygit2.Commit], now: datetime | None,
                  base: Base | None, said: Iterable[str] = ()) -> list[Finding]:
    """KI438 for the commits a range brings.

    Args:
        commits: the range's commits (:func:`._history.ancestry` of HEAD hiding BASE).
        now: the checking clock (aware): the receiving server's in ``pre-receive``; None:
            this machine's.
        base: the range's BASE, which the fix names (:func:`ahead_fix`); None: a history
            checked from its root commit.
        said: ids (40 hex) of commits KI428 names for their committer date (not said twice).

    Returns:
        One KI438 error when a commit of ``commits`` (not in ``said``) is committer-dated
        more than :data:`COMMIT_AHEAD` seconds after ``now``, naming the one furthest
        ahead; else empty. Raises nothing.
    """
    clock = int((now or datetime.now(UTC)).astimezone(UTC).timestamp())
    skipped = set(said)
    ahead = [commit for commit in commits if str(commit.id) not in skipped
             and commit.commit_time - clock > COMMIT_AHEAD]
    if not ahead:
        return []
    commit = max(ahead, key=lambda c: c.commit_time)
    when = commit.commit_time
    message = (f"commit {str(commit.id)[:12]} is dated {utc_text(when)}, "
               f"{duration_text(when - clock, precise=True)} after the clock of this check "
               f"({utc_text(clock)})")
    if len(ahead) > 1:
        message += f"; {len(ahead) - 1} other commit(s) it brings are dated ahead of it too"
    message += (": an attestation file enters the repository at the date of the commit that "
                "brings it, held up to its ancestors', so every attestation file committed "
                "after this commit would enter then, after a key's planned expiry (a "
                "maintainer's withdrawal refused, KI302) or its trust; a commit is dated at "
                f"most {duration_text(COMMIT_AHEAD)} after the clock")
    return [Finding(COMMIT_DATED_AHEAD, message,
                    expected=f"a committer date no later than {utc_text(clock + COMMIT_AHEAD)}",
                    found=utc_text(when),
                    extra={"commits": [str(c.id) for c in ahead], "commit": str(commit.id),
                           "seconds": when, "clock": clock},
                    fix=ahead_fix(base))]
