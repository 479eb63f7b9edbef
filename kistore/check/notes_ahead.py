"""KI440 in ``kistore verify``: a local notes commit dated ahead of the clock (msg05).

``kistore verify`` said nothing of a notes commit of ``refs/notes/kistore`` that no remote
holds, dated more than KI437's minute (:data:`kistore.core.times.NOTES_AHEAD`) after this
machine's clock (fresh10 LOW 7): a server refuses it at the push, and ``kistore notes push``
makes it again dated at the push. :func:`notes_dated_ahead` says it as **KI440**, the
warning ``check --unpushed`` gives of unpushed notes off the clock
(:mod:`kistore.check._unpushed_clock`, which takes the rule from here), told from refs alone
on ``verify``'s fast path (the notes tip a remote's). This module loads without the gate.
"""

from __future__ import annotations

import time

from ..attest.levels import remote_ref
from ..attest.notepaths import remote_words
from ..core.findings import WARNING, Finding, rule
from ..core.layout import NOTES_REF
from ..core.times import NOTES_AHEAD, duration_text, utc_text
from ..git.lazy import pygit2


def unsent_fix(remote: str | None) -> str:
    """Return KI440's fix, naming ``remote`` (None: ``REMOTE``). Raises nothing."""
    typed, _name = remote_words(remote)
    return (f"push the notes with `kistore notes push {typed}`: it makes them again dated "
            "at its push, with the same lines; a push of branches alone does not send them "
            "(a plain `git push` of the notes ref is refused by the remote, KI437)")


NOTES_OFF_CLOCK_UNSENT = rule("KI440", "unpushed-notes-off-clock", WARNING, unsent_fix(None))


def notes_dated_ahead(repo: pygit2.Repository, now: int | None = None) -> list[Finding]:
    """KI440 for ``verify``: local notes commits no remote holds, dated ahead of the clock.

    Nothing is read but refs when ``refs/notes/kistore`` is missing, the repository is bare
    (a server's notes are its own) or has no remote, or a remote's tracking notes ref
    (``refs/notes/remotes/R/kistore``) is at its tip. Otherwise the notes commits that no
    tracking notes ref reaches are walked (commits only, no trees).

    Args:
        repo: the repository verified.
        now: this machine's clock, in seconds since the Unix epoch (None: read it).

    Returns:
        One KI440 warning when such a commit is committer-dated more than
        :data:`kistore.core.times.NOTES_AHEAD` seconds after ``now`` (a server refuses
        it at the push, KI437), naming the one furthest ahead, its date, how far (to the
        second) and how many others are ahead (``extra``: ``commits``, ``commit``,
        ``seconds`` its date, ``clock``, as KI437's); else empty. Its fix names the remote
        when the repository has exactly one, else ``REMOTE``. Raises nothing (an unreadable commit
        ends the walk: ``verify``'s history checks say it).
    """
    ref = repo.references.get(NOTES_REF)
    if ref is None or repo.is_bare:
        return []
    remotes = sorted(r.name or "" for r in repo.remotes)
    if not remotes:
        return []
    tip = ref.resolve().target
    # each remote's tracking notes ref (and a URL's, ``notes fetch URL``): one ref read each
    held = []
    for name in [*remotes, "url"]:
        try:
            tracked = repo.references.get(remote_ref(name))
        except ValueError:  # a name no ref can hold: git fetched nothing there
            continue
        if tracked is not None:
            held.append(tracked.resolve().target)
    if tip in held:  # pushed (or fetched): nothing of ours is unsent
        return []
    clock = int(time.time()) if now is None else now
    ahead = []
    try:
        walker = repo.walk(tip, pygit2.enums.SortMode.NONE)
        for oid in held:
            walker.hide(oid)
        ahead = [c for c in walker if c.commit_time - clock > NOTES_AHEAD]
    except (pygit2.GitError, KeyError, ValueError):  # a damaged commit: said elsewhere
        pass
    if not ahead:
        return []
    commit = max(ahead, key=lambda c: c.commit_time)
    remote = remotes[0] if len(remotes) == 1 else None
    typed, _name = remote_words(remote)
    others = (f"; {len(ahead) - 1} other notes commit(s) no remote holds are dated more "
              "than that ahead of it too" if len(ahead) > 1 else "")
    return [Finding(
        NOTES_OFF_CLOCK_UNSENT,
        f"notes commit {str(commit.id)[:12]} of {NOTES_REF}, which no remote holds, is "
        f"dated {utc_text(commit.commit_time)}, "
        f"{duration_text(commit.commit_time - clock, precise=True)} after this machine's "
        f"clock ({utc_text(clock)}){others}: a server refuses a push of a notes commit "
        f"dated more than {duration_text(NOTES_AHEAD)} after its clock (KI437); `kistore "
        f"notes push {typed}` makes it again dated at its push",
        extra={"commits": [str(c.id) for c in ahead], "commit": str(commit.id),
               "seconds": commit.commit_time, "clock": clock},
        fix=unsent_fix(remote))]
