"""A refused ``kistore notes push`` told as the push sends it: as is, or made again (doc02 L10).

``kistore notes push`` sends the notes commits the remote lacks as they are while every one
is dated within a minute of this machine's clock and none ahead of it; otherwise it makes
them again: as one commit dated now, holding the tip's lines, when one is more than a
minute off (:func:`kistore.attest.notes_dated.dated_at_push`, KI437; one per time a note's
lines entered, in order, when a note gained lines at two times, fresh16 F5); one by one, from the
first dated ahead, when they are only ahead of it within the minute (msg03). The gate
judges the commit sent. Made again, a refused line at the tip "entered in
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
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.layout import NOTES_REF
from ..core.times import NOTES_AHEAD, NOTES_BEHIND, commit_text, duration_text
from ..git.lazy import pygit2

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Callable, Collection, Sequence

    import pygit2 as _pygit2

    from ..attest.notes_dated import Redated
    from ..check._redated import EffectChanged
    from ..core.findings import Finding


def made_again(redated: Sequence[Redated], pushed: str) -> bool:
    """Whether ``pushed`` is the notes commit a push made again dated now (not ours as is).

    Args:
        redated: what the push made again before its gate was asked
            (:func:`kistore.attest.notes_dated.dated_at_push`; empty: nothing).
        pushed: the notes commit the push sends (40 hex).

    Returns:
        True when ``pushed`` is the commit the push made of the commits the remote lacks
        again as one, or the last of those made in the order their lines entered (a
        :class:`kistore.attest.notes_dated.Redated` whose ``new`` it is and whose ``kept``
        is False): what ``dated_at_push`` makes of commits more than a minute
        off the clock. False for our tip or an ancestor, for the commit made for a fork
        whose parents are our tip and the fork's (its history is ours), and for our commits
        made again one by one, dated ahead within the minute (``kept``: their history is
        ours, dated anew), whatever their messages say. Raises nothing.
    """
    return any(r.new == pushed and not r.kept for r in redated)


def again_words(remote: str, who: str = "") -> str:
    """Say what a push of notes commits older than a minute sends.

    ``remote``: as given to ``notes push``; ``who``: the push as the sentence names it
    (empty: ``kistore notes push REMOTE``). Raises nothing.
    """
    who = who or f"`kistore notes push {shlex.quote(remote)}`"
    return (f"the notes commits {remote} lacks are more than a minute old, so {who} sends "
            "them made again as one notes commit dated now, which holds the tip's lines only "
            "(KI437)")


def retold(found: list[Finding], made: Collection[str], remote: str) -> list[Finding]:
    """Give each refused tip line that "entered" in a commit made again its true fix.

    Args:
        found: the gate's findings of the push (``extra.entered``: the notes commit a
            refused tip line entered in, :func:`kistore.check.gate.check_updates`).
        made: the commits made again of many (:func:`made_again`: the one pushed, which
            holds every tip line, and those before it when made in the order their lines
            entered, fresh16 F5), no ref of the clone's.
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
            if f.extra.get("entered") in made else f for f in found]


def later_push(remote: str) -> str:
    """Say, of a refusal for the notes history, what a push after the minute sends instead.

    Within the minute a push sends the history of the commits ``remote`` lacks, as they are
    or, from the first dated ahead of this machine's clock, made again one by one dated at
    the push with their trees (msg04): either way a line deleted at the tip stays in it,
    and the words say both (msg05: they said only "within a minute").

    ``remote``: as given to ``notes push``. Raises nothing.
    """
    return (f" (this holds while the notes commits {remote} lacks are dated within a minute "
            "of this machine's clock: a push sends their history, as it is or, from the "
            "first dated ahead of the clock, made again one by one dated at the push with "
            f"the same lines; a `kistore notes push {shlex.quote(remote)}` more than a minute "
            "after the earliest of them is dated sends them made again as one notes commit "
            "dated then, holding the tip's lines only (KI437), so an edit at the tip is then "
            "enough and a line taken back is not sent)")


def redated_words(repo: _pygit2.Repository, redated: Sequence[Redated], remote: str) -> str:
    """Say which notes commits a push made again dated at it, and by how much (msg03).

    Args:
        repo: the pushing clone (holding the commits made).
        redated: what the push made again (:attr:`kistore.attest.notes.Fetched.redated`),
            not empty.
        remote: the remote as the message names it (printable).

    Returns:
        One line for stderr, e.g. ``note: 1 notes commit origin lacked was dated 59 seconds
        after this machine's clock: made again dated at the push, 2026-12-07T07:00:00Z
        (its tree, author and message kept), since a server whose clock is behind this
        machine's refuses a notes commit dated more than 1 minute after its clock
        (KI437)``. Raises nothing.
    """
    # Lazy: the attest layer loads only when a push made notes again (said here).
    from ..attest.notes_dated import RECENT

    count = len(redated)
    furthest = max(redated, key=lambda r: abs(r.seconds))
    side = "after" if furthest.seconds > 0 else "before"
    by = duration_text(abs(furthest.seconds), precise=True)
    at = commit_text(repo[furthest.new].peel(pygit2.Commit).commit_time)
    what = f"{count} notes commit{'s' if count != 1 else ''} {remote} lacked"
    dated = (f"was dated {by} {side}" if count == 1
             else f"were dated up to {by} {side}")
    if all(r.kept for r in redated):
        how = (f"made again dated at the push, {at} ({'its' if count == 1 else 'their'} "
               f"tree{'s' if count != 1 else ''}, author{'s' if count != 1 else ''} and "
               f"message{'s' if count != 1 else ''} kept)")
    elif len(made := {r.new for r in redated}) == 1:
        how = f"made again as one notes commit dated at the push, {at}, holding the tip's lines"
    else:  # one per time a note gained lines (fresh16 F5)
        at = commit_text(max(repo[m].peel(pygit2.Commit).commit_time for m in made))
        how = (f"made again as {len(made)} notes commits dated at the push, a second apart up "
               f"to {at}, in the order their lines entered (a key's later rerun of a run "
               "still enters after its earlier one), the last holding the tip's lines")
    why = (f"a server whose clock is behind this machine's refuses a notes commit dated more "
           f"than {duration_text(NOTES_AHEAD)} after its clock (KI437)" if furthest.seconds > 0
           else "a note line enters the repository at its notes commit's date, and a "
           "notes commit a remote lacks is sent as it is only when dated within "
           f"{duration_text(RECENT)} of this machine's clock (a server refuses one dated "
           f"more than {duration_text(NOTES_BEHIND)} before its clock, KI437)")
    return f"note: {what} {dated} this machine's clock: {how}, since {why}"


SHOWN = 10
"""Lines a refusal (or ``--enter-now``'s note) names one by one in each of its lists; the
rest are counted (fresh17 F4: 68 lines, 32 KB, the one line made again 67th)."""


def effect_refusal(found: Sequence[EffectChanged], remote: str, command: str) -> str:
    """Say why a ``notes push``/``notes rebase REMOTE`` making notes again is refused (F7).

    Args:
        found: each line whose effect changes (:func:`kistore.check.gate.notes_made_again`),
            not empty.
        remote: as given to the command.
        command: ``push`` (its notes commits made again dated at the push, KI437) or
            ``rebase`` (the lines written again in notes commits dated now, one per time a
            note's lines entered, in order, fresh16 F5).

    Returns:
        The refusal: what makes the lines enter now; each line made again whose verdict
        changes, with both entries (UTC, to the second) and both verdicts, first
        (:data:`SHOWN` at most, the rest counted); then, when lines that keep their entry
        change verdict with them (fresh17 F4), each of the key's later reruns they would
        supersede, named so, and the others as a count by verdicts; the ways out, each
        with its consequence (``--enter-now``, attesting again, leaving the line out and
        the rebuild), and that nothing was sent or moved. Raises nothing.
    """
    # Lazy: the check layer loads only for notes made again (as the gate's judgement).
    from ..check._redated import parted

    part = parted(list(found))
    count = len(part.made)
    lines = f"{count} attestation line{'s' if count != 1 else ''}"
    if command == "push":
        head = (f"not pushed to {remote}: the notes commits {remote} lacks are made again "
                "at this push, dated at it (KI437), and a note line enters the repository "
                "at its notes commit's date: that changes what")
        tail = "nothing was pushed, your notes are unchanged"
    else:
        head = (f"not rebuilt: `kistore notes rebase {shlex.quote(remote)}` writes this "
                f"repository's lines again on {remote}'s notes in notes commits dated now "
                "(more than one when a note's lines entered here at two times or more: in "
                "the order they entered, a second apart, the last dated now), and a note "
                "line enters the repository at its notes commit's date: that changes what")
        tail = (f"{NOTES_REF} is unchanged (but for what the fetch from {remote} merged, as "
                "`kistore notes fetch` does)")
    said = _listed(part.made, lambda c: c.said(), "line(s) made again whose verdict changes")
    others = len(part.overturned) + len(part.rest)
    if others:
        said += [f"and so what {others} line{'s' if others != 1 else ''} not made again "
                 f"{'does' if others == 1 else 'do'} (each keeps its entry):"]
        said += _listed(part.overturned, lambda c: c.kept_said(),
                        "line(s) not made again whose verdict changes with them", part.rest)
    return (f"{head} {lines} {'does' if count == 1 else 'do'} for every reader, here and on "
            f"{remote}:\n" + "\n".join(said) + f"\n{_ways_out(found, remote, command)}; {tail}")


def _listed(found: Sequence[EffectChanged], say: Callable[[EffectChanged], str],
            more: str, counted: Sequence[EffectChanged] = ()) -> list[str]:
    """Say ``found`` one a line (indented), the rest and ``counted`` as one count.

    Lines said alike (one key's reruns of one entry and verdicts) are said once, ``12
    lines alike: ...``; :data:`SHOWN` such sayings at most, and the lines past them and
    ``counted`` as a count by verdicts (``and 58 more line(s) made again whose verdict
    changes: 57 from superseded to disagrees, 1 from verifies to superseded``), most
    first; with none said before it, ``58 line(s) ...``. Raises nothing.
    """
    alike: dict[str, list[EffectChanged]] = {}
    for line in found:
        alike.setdefault(say(line), []).append(line)
    groups = list(alike.items())
    said = [f"  {text}" if len(lines) == 1 else f"  {len(lines)} lines alike: {text}"
            for text, lines in groups[:SHOWN]]
    left = [*(line for _text, lines in groups[SHOWN:] for line in lines), *counted]
    if left:
        counts = Counter((c.effect, c.becomes) for c in left)
        said.append(f"  {'and ' if said else ''}{len(left)} {'more ' if said else ''}{more}: "
                    + ", ".join(f"{n} from {was} to {now}" for (was, now), n in sorted(
                        counts.items(), key=lambda kv: (-kv[1], kv[0]))))
    return said


def _ways_out(found: Sequence[EffectChanged], remote: str, command: str) -> str:
    """Say the three ways out of :func:`effect_refusal` (fresh12 F7), each with its consequence.

    When lines not made again change verdict with the lines made again (fresh17 F4), the
    way out that keeps every other line's verdict, leaving the lines made again out, comes
    first, and ``--enter-now`` and attesting again say the key's later reruns they would
    supersede (three at most by name). Raises nothing.
    """
    # Lazy: as effect_refusal's.
    from ..check._redated import parted

    part = parted(list(found))
    typed = shlex.quote(remote)
    objects = ", ".join(sorted({c.obj for c in part.made}))
    when = "at the push" if command == "push" else "now"
    then = (f"`kistore notes rebase {typed}` and `kistore notes push {typed}`"
            if command == "push" else f"`kistore notes rebase {typed}` again")
    leave = ("`git notes --ref kistore edit OBJ` and delete it, or `git notes --ref kistore "
             f"remove OBJ` when it is the note's only line (OBJ: {objects}), then {then}")
    if not part.overturned and not part.rest:
        return (f"ways out: `kistore notes {command} {typed} --enter-now` lets the line(s) "
                f"named enter {when} and count as judged there; or, to have a line count by a "
                "signature made now, its signer attests again (`kistore attest`) and leaves "
                "the old line out as below; or, to keep a line from counting, leave it out: "
                f"{leave}")
    changes = "changes every verdict above"
    if part.overturned:
        alike = Counter(c.superseded_said() for c in part.overturned)
        named = "; ".join(text if n == 1 else f"{text} ({n} lines alike)"
                          for text, n in list(alike.items())[:3])
        extra = sum(list(alike.values())[3:])
        changes += f": {named}" + (f"; and {extra} more of its later reruns (above)"
                                   if extra else "")
    return (f"ways out: to keep every other line's verdict as it is now, leave the line(s) "
            f"made again out: {leave}; or `kistore notes {command} {typed} --enter-now` lets "
            f"the line(s) made again enter {when} and count as judged there, which {changes}; "
            "or, to have a line count by a signature made now, its signer attests again "
            "(`kistore attest`) and leaves the old line out as above (a line signed now "
            "enters now too, with the same consequences)")


def entering_now_words(changed: Sequence[EffectChanged], command: str) -> str:
    """Say, on stderr, the lines ``--enter-now`` let enter now (fresh12 F7).

    Args:
        changed: each line whose effect changed (not empty).
        command: ``push`` or ``rebase``, as :func:`effect_refusal` takes it.

    Returns:
        One ``note:`` line naming each line made again, both entries and both verdicts
        (:data:`SHOWN` at most, the rest counted), then, when lines not made again changed
        verdict with them (fresh17 F4), those, named as :func:`effect_refusal` names them.
        Raises nothing.
    """
    # Lazy: as effect_refusal's.
    from ..check._redated import parted

    part = parted(list(changed))
    count = len(part.made)
    lines = f"{count} attestation line{'s' if count != 1 else ''}"
    how = ("its notes commits made again at the push" if command == "push"
           else "written again in the notes commit(s) the rebuild made")
    said = [s.strip() for s in _listed(part.made, lambda c: c.said(),
                                       "line(s) made again whose verdict changes")]
    others = part.overturned + part.rest
    if others:
        said.append(f"and so {len(others)} line{'s' if len(others) != 1 else ''} not made "
                    "again changed verdict: " + "; ".join(s.strip() for s in _listed(
                        part.overturned, lambda c: c.kept_said(), "line(s) not made again "
                        "whose verdict changes with them", part.rest)))
    return (f"note: --enter-now: {lines} {'enters' if count == 1 else 'enter'} now, {how}, "
            "and every reader judges "
            f"{'it' if count == 1 else 'them'} there, not as this repository did until now: "
            + "; ".join(said))
