"""KI437: a notes commit a push brings is dated at the push, within minutes (fresh06 H2, H3, M1).

A note line enters the repository at its notes commit's committer date, held up to its
ancestors' (:class:`kistore.attest.notes.Clock`; docs/attestations.md, "Which dates are
trusted"), and a key's trust, expiry and revocation are judged at that entry. The date is
the pusher's to write, and the server accepted any date from the parent's to a day past its
clock (KI428), so the pusher chose when a line entered:

* dated 20 hours ahead, a withdrawal signed by a key nobody trusted yet (a community
  attestation when pushed) counted once the key's trust landed within those hours (H2);
* dated 23 hours ahead, every later line, a maintainer's honest withdrawal too, entered
  then, after a key's planned ``validUntil``: never counted, ``verify`` red for good (M1);
* dated as its parent, before a maintainer key's trust commit, a copy of that maintainer's
  withdrawal (public in its pull request) made it a community attestation for good (H3).

**KI437** (error), judged where a push of ``refs/notes/kistore`` is (``check --updates``:
``pre-receive``, ``pre-push``, ``kistore notes push``'s own judgement, ``check --unpushed``,
each at its own clock, the push's): every notes commit the push brings (none already held)
must be dated no more than :data:`kistore.core.times.NOTES_AHEAD` (one minute) after the
clock and no more than :data:`kistore.core.times.NOTES_BEHIND` (ten minutes) before it.
So the server's receive time, within those minutes, is every new line's entry time. Ahead
it was five minutes until 2026-12-07 (fresh08 M1, M2): the hold of a line's entry up to its
ancestors' dates carried one community notes commit's five minutes to every later line. One
finding for the push, naming how many commits are off, the one furthest off, its date and
the clock (``extra``: ``commits``, ``commit``, ``seconds``, ``clock``). A commit KI428 names
for its committer date already (outside years 1970-9999, a day ahead, a day before its
parent) is KI428's alone.

``kistore notes push REMOTE`` makes the notes commits REMOTE lacks again at the push when
one of them is dated off the clock (:func:`kistore.attest.notes.push`: the same notes
tree, on REMOTE's tip): an honest clone that attested offline for hours is never refused.
A plain ``git push REMOTE refs/notes/kistore`` of old notes commits is, and the fix names
``kistore notes push``. ``check --unpushed`` judges the notes as a push now would be: it
cannot know when the push will be.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..attest.notepaths import remote_words
from ..core.findings import ERROR, Finding, rule
from ..core.layout import NOTES_REF
from ..core.times import NOTES_AHEAD, NOTES_BEHIND, duration_text, utc_text

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def clock_fix(remote: str | None) -> str:
    """Return KI437's fix, naming ``remote`` as the pushing clone calls it.

    Args:
        remote: the remote's name or URL as the pushing clone calls it; None
            (``pre-receive``, the rule's own fix): the word ``REMOTE``.

    Returns:
        One sentence: push with ``kistore notes push REMOTE`` (shell-quoted), which makes
        the notes commits the remote lacks again dated at the push, or check this
        machine's clock. Raises nothing.
    """
    typed, name = remote_words(remote)
    said = [f"push the notes with `kistore notes push {typed}`",
            ", REMOTE being your repository's name for this one" if remote is None else "",
            f": it makes the notes commits {name} lacks again, dated at the push, with the "
            f"same lines, on {name}'s notes tip (a plain `git push` sends them as they are "
            "dated); check this machine's clock when it is the clock that is off"]
    return "".join(said)


NOTES_COMMIT_OFF_CLOCK = rule("KI437", "notes-commit-off-clock", ERROR, clock_fix(None))


def notes_off_clock(brought: Iterable[pygit2.Commit], now: datetime,
                    remote: str | None = None, said: Iterable[str] = ()) -> list[Finding]:
    """KI437 for the notes commits a push of ``refs/notes/kistore`` brings.

    Args:
        brought: the notes commits the push brings (none the receiver holds: :func:`.
            _history.ancestry` of the new tip, hiding the old).
        now: the push's clock (aware): the receiving server's in ``pre-receive``.
        remote: the pushing clone's name for the remote, named in the fix; None
            (``pre-receive``): ``REMOTE``.
        said: ids (40 hex) of commits KI428 names for their committer date (not said twice).

    Returns:
        One KI437 error when a commit of ``brought`` (not in ``said``) is committer-dated
        more than :data:`NOTES_AHEAD` seconds after ``now`` or more than
        :data:`NOTES_BEHIND` seconds before it, naming the one furthest off; else empty.
        Raises nothing.
    """
    clock = int(now.astimezone(UTC).timestamp())
    skipped = set(said)
    off = [(commit, commit.commit_time - clock) for commit in brought
           if str(commit.id) not in skipped
           and not -NOTES_BEHIND <= commit.commit_time - clock <= NOTES_AHEAD]
    if not off:
        return []
    commit, delta = max(off, key=lambda pair: abs(pair[1]))
    side = "after" if delta > 0 else "before"
    others = (f"; {len(off) - 1} other notes commit(s) it brings are dated off it too"
              if len(off) > 1 else "")
    return [Finding(
        NOTES_COMMIT_OFF_CLOCK,
        f"notes commit {str(commit.id)[:12]}, which this push of {NOTES_REF} brings, is dated "
        f"{utc_text(commit.commit_time)}, {duration_text(abs(delta), precise=True)} {side} this "
        f"push's clock "
        f"({utc_text(clock)}){others}: a note line enters the repository at its notes "
        f"commit's date, so a notes commit a push brings must be dated at the push (at most "
        f"{duration_text(NOTES_AHEAD)} after it, {duration_text(NOTES_BEHIND)} before it): "
        "dated otherwise, it would choose when its lines entered, before a key's trust or "
        "after its expiry",
        extra={"commits": [str(c.id) for c, _ in off], "commit": str(commit.id),
               "seconds": commit.commit_time, "clock": clock},
        fix=clock_fix(remote))]
