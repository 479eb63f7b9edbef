"""KI440: `check --unpushed` warns of unpushed notes commits dated off the clock (fresh07 M8).

``check --unpushed REMOTE`` (the pre-commit framework's push hook, which is not told what is
pushed) judges every local ref holding commits REMOTE lacks, ``refs/notes/kistore`` too, as
a push of it made now would be. A note attested offline twenty minutes earlier made its
notes commit KI437's (dated more than ten minutes before the clock), and so refused a plain
push of a branch, which does not send the notes; the notes themselves are sent by
``kistore notes push REMOTE``, which makes such commits again dated at its push. So here
(and only here: ``pre-push`` and ``pre-receive`` judge the refs a push sends) KI437 is said
as **KI440**, a warning naming ``kistore notes push REMOTE``; so is KI439 (a line judged
otherwise at its notes commit's date than now: one attested offline before a key's trust
landed), for the same push dates it anew. A plain ``git push REMOTE
refs/notes/kistore`` of them is still refused, by the remote's ``pre-receive`` (KI437).

``kistore verify`` says KI440 too (msg05, fresh10 LOW 7), of one case only, told from refs
alone on its fast path: a notes commit of ``refs/notes/kistore`` that no remote's notes
(``refs/notes/remotes/R/kistore``) hold, dated more than KI437's minute after this machine's
clock (:func:`notes_dated_ahead`). A server refuses it at the push; ``kistore notes push``
makes it again dated at the push.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace

from ..attest.levels import remote_ref
from ..attest.notepaths import remote_words
from ..core.findings import WARNING, Finding, rule
from ..core.layout import NOTES_REF
from ..core.times import NOTES_AHEAD, duration_text, utc_text
from ..git.lazy import pygit2
from ._entry_verdict import ENTRY_VERDICT_DIFFERS
from ._notes_clock import NOTES_COMMIT_OFF_CLOCK


def _fix(remote: str | None) -> str:
    """Return KI440's fix, naming ``remote`` (None: ``REMOTE``). Raises nothing."""
    typed, _name = remote_words(remote)
    return (f"push the notes with `kistore notes push {typed}`: it makes them again dated "
            "at its push, with the same lines; a push of branches alone does not send them "
            "(a plain `git push` of the notes ref is refused by the remote, KI437)")


NOTES_OFF_CLOCK_UNSENT = rule("KI440", "unpushed-notes-off-clock", WARNING, _fix(None))


def as_warnings(findings: Iterable[Finding], remote: str) -> list[Finding]:
    """Return ``findings`` of ``check --unpushed``'s notes update, KI437 and KI439 as KI440.

    Args:
        findings: :func:`kistore.check.gate.check_updates` of ``refs/notes/kistore``.
        remote: the remote pushed to, as given, named in the fix.

    Returns:
        The findings in order, each KI437 or KI439 replaced by a KI440 warning of the same message
        (plus why it is a warning here), ``extra`` and ``file``. Raises nothing.
    """
    return [replace(f, rule=NOTES_OFF_CLOCK_UNSENT, fix=_fix(remote), message=(
        f"{f.message} (a warning here: a push of branches does not send {NOTES_REF}, and "
        f"`kistore notes push {remote}` dates them at its push)"))
            if f.rule in (NOTES_COMMIT_OFF_CLOCK, ENTRY_VERDICT_DIFFERS) else f
            for f in findings]


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
        fix=_fix(remote))]
