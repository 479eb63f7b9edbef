"""KI442 of a notes push: a new line that entered before the commit trusting its key (fresh15 F2).

KI442 (:func:`kistore.check._widened_past.pre_trust_counted`) warns of a commit trusting a key
anew from a past ``validFrom`` over what the key signed while nobody trusted it, as held when
the trust commit is judged. Pushed the other way round (the trust commit first, then the notes
holding the key's withdrawal, signed before the trust), the range's check never held the line,
and the notes push judged it by KI411 and KI439 alone, whose verdicts agree (it withdraws): the
withdrawal took effect on the server with no word, from the server nor from ``kistore notes
push``.

Here a push of ``refs/notes/kistore`` (``check --updates``: ``pre-receive``, ``pre-push``,
``kistore notes push``, ``check --unpushed``) warns KI442 for each new line that verifies,
KI411 lets in, and that counts, as readers judge it (its bundle's copies with it, at its entry
time: its notes commit's date held up to its ancestors'), under the protected branch's trust
as pushed, only because the commit first trusting its key gave it a ``validFrom`` before that
commit: the same judge (:func:`kistore.check._widened_past.pre_trust_lines`), one warning a line,
naming the key, the line's subject, the trust commit and what to do.

Said once whatever the order: in a pushing clone (``held``: the commits the remote holds)
only when the remote holds the trust commit already, since a push of it from the clone is
judged as a range whose check holds the clone's notes, the line with them (the commit's
KI442). The server judges a trust commit against the notes it holds: the notes pushed first
and the trust commit after, it says it of the commit, once, and nothing here (the notes'
trust then lists no such key); a push bringing both is refused (KI411: a trust change lands
on its own, before its key signs), and a refused line is not warned of besides. A line of
the trust commit's own second is unordered with it, as every entry of one second is, and not
said here (a script trusting a key and attesting at once is no pre-trust line); the trust
commit's check, pushed after such a line, still says it of the commit (its judge counts the
tie as before: tests/check/test_pre_trust_made_again.py pins both).

A line ``kistore notes push`` (more than a minute after it was attested) or ``kistore notes
rebase REMOTE`` makes again enters after the trust commit, where no later check holds it
before the commit: :func:`pre_trust_made_again` says it then, with both entries (fresh17
F12: the push said nothing, nor did the server, and the withdrawal counted).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from ..attest.attestation import Bundle
from ..attest.evidence import COMMUNITY, judged_among
from ..attest.notes import bundle_copies
from ..attest.signed_by import Signed, keyid_of, signed_of
from ..attest.trust import format_time
from ..attest.trust_history import first_listed, readers_trust
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.layout import NOTES_REF
from ._notes_history import BroughtNotes, entered_in
from ._redated import moved_lines
from ._widened_past import PRE_TRUST_COUNTS, pre_trust_lines

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..attest.notes import Seen
    from ..attest.trust import Trust
    from ..store import Store


def pre_trust_notes(store: Store, fresh: Iterable[Seen], trust_rev: str,
                    walked: list[BroughtNotes], times: dict[str, datetime],
                    held_tips: list[str] | None = None, remote: str | None = None
                    ) -> list[Finding]:
    """KI442 for each new note line its key's trust commit makes count from before it.

    Args:
        store: the receiving (or pushing) store.
        fresh: the new lines KI409 lets in (``location`` ``refs/notes/kistore:OBJ``).
        trust_rev: the protected branch's tip as pushed (its trust judges readers').
        walked: :func:`._notes_history.brought_notes` of the commits the push brings.
        times: :func:`._entry_verdict.entry_times` of them: each line's entry time.
        held_tips: in a pushing clone, the commits the remote holds: a line is said only
            when one of them holds its key's trust commit; None (``pre-receive``): always.
        remote: the pushing clone's name for the remote, named in the fix; None: ``REMOTE``.

    Returns:
        One KI442 warning a line, at its note (``extra``: ``keyid``, ``commit``: the trust
        commit, ``validFrom``, ``enteredAt``), in ``fresh``'s order; none where the trust
        file does not parse (KI309 says it) or no line is so.

    Raises:
        ObjectUnreadable: a note blob, tree or commit on the way is damaged or missing.
    """
    repo = store.repo
    trust = readers_trust(store, trust_rev)
    if trust is None:
        return []
    entries = []
    for item in fresh:
        obj = item.location[len(NOTES_REF) + 1:]
        entered = times.get(entered_in(repo, walked, obj, item.data, NOTES_REF))
        if entered is not None:
            entries.append(replace(item, entered_at=entered))
    found = []
    for line, signed, cid, start, valid_from in _counted_before(store, entries, trust_rev, trust):
        if held_tips is not None and not any(
                tip == cid or repo.descendant_of(tip, cid) for tip in held_tips):
            continue  # the trust commit's own push says it (its range holds the line)
        found.append(_said(line, signed, cid, start, valid_from, remote))
    return found


def pre_trust_made_again(store: Store, theirs: str | None, ours: str, sent: str,
                         trust_rev: str, now: datetime, remote: str, command: str
                         ) -> list[Finding]:
    """KI442 for each line made again after the commit trusting its key (fresh17 F12).

    ``kistore notes push`` makes the notes commits a remote lacks again dated at the push
    once they are a minute old (KI437), and ``kistore notes rebase REMOTE`` writes this
    repository's lines again dated now: a line that entered here before its key's trust
    commit (a past ``validFrom`` making it count) then enters after it, where neither
    :func:`pre_trust_notes` (the remote's ``pre-receive``, a later push) nor ``verify``
    ever holds it before the commit, and the made-again judge (:func:`._redated.
    effects_made_again`) sees no change: it counts at both entries. Said here, once, by
    the command making it again, whether or not the remote holds the trust commit (a later
    push of the commit holds the line after it). A key with no ``validFrom`` counts from
    its trust commit: the line's effect changes, and the made-again judge refuses it
    (KI439's words), never this.

    Args:
        store: the pushing (or rebuilding) repository.
        theirs: the remote's notes tip ``sent`` is built on (None: it holds no notes).
        ours: this repository's notes tip, whose history dates each line as readers do.
        sent: the notes commit made again.
        trust_rev: the protected branch's tip (its trust judges, as the gate's).
        now: the clock readers read trusted times at (aware, UTC).
        remote: as given to the command, named in the message and the fix.
        command: ``push`` or ``rebase`` (``kistore notes COMMAND REMOTE``).

    Returns:
        One KI442 warning a line (at its note; ``extra`` as :func:`pre_trust_notes`' and
        ``entersAt``: its entry made again) that entered here before the commit first
        listing its key (not in its second), counts then only because of that commit's
        past ``validFrom``, and made again enters in the commit's second or after it (where
        :func:`pre_trust_notes` never says it); in object
        order, then the note's line order. Empty when the trust file does not parse or
        no commit of its history lists a key from before itself (no note is read).

    Raises:
        ObjectUnreadable: a notes commit, tree or blob on the way is damaged or missing.
    """
    trust = readers_trust(store, trust_rev)
    listed = first_listed(store.repo, trust_rev)
    if trust is None or not any(
            key.valid_from is not None and keyid in listed
            and key.valid_from < listed[keyid][0] for keyid, key in trust.keys.items()):
        return []  # no key trusted from before its trust commit: nothing to say
    _new, moved = moved_lines(store, theirs, ours, sent, now)
    enters = {(item.location, item.data): when for item, when in moved}
    return [_said(line, signed, cid, start, valid_from, remote, (command, again))
            for line, signed, cid, start, valid_from in _counted_before(
                store, [item for item, _when in moved], trust_rev, trust)
            if (again := enters[line.location, line.data]) >= start]


def _counted_before(store: Store, entries: list[Seen], trust_rev: str, trust: Trust
                    ) -> list[tuple[Seen, Signed, str, datetime, str]]:
    """Return each line of ``entries`` its key's trust commit makes count from before it.

    ``entries``: new note lines, each at the entry readers give it (``entered_at``).
    Judged as readers judge each (its bundle's copies with it) under ``trust_rev``'s
    trust, and by :func:`._widened_past.pre_trust_lines` of the commit first listing its
    key; a line entered in that commit's second or after is not (unordered with it).
    ``trust``: :func:`kistore.attest.trust_history.readers_trust` at ``trust_rev``.
    Returns ``(line, signed, trust commit (40 hex), its time, validFrom)`` per such line,
    in ``entries``' order. Raises ObjectUnreadable as :func:`pre_trust_notes`.
    """
    view = store.view(trust_rev)
    lines: list[tuple[Signed, list[Signed]]] = []
    subjects: dict[str, Seen] = {}
    for item in entries:
        try:
            keyid = keyid_of(Bundle.from_bytes(item.data, file=item.location))
        except KistoreError:
            continue
        if keyid is None or keyid not in trust.keys:
            continue  # no trust commit makes it count (nothing read)
        listed = first_listed(store.repo, trust_rev).get(keyid)  # read once a revision
        if listed is None or item.entered_at >= listed[0]:
            continue  # entered after (or in the second of) the key's trust commit: unordered
        copies = bundle_copies(store, item, trust_rev)
        then = judged_among(item, copies, trust, view)  # as readers judge it, at its entry
        signed = signed_of(item, keyid)
        if signed is None or not then.counted or then.effect == COMMUNITY:
            continue
        lines.append((signed, [s for s in (signed_of(c, keyid) for c in copies)
                               if s is not None]))
        subjects[signed.location] = item
    return [(subjects[signed.location], signed, str(commit.extra["commit"]), start,
             str(commit.extra["validFrom"]))
            for signed, commit, start in pre_trust_lines(store, lines, store.repo[trust_rev])]


def _said(line: Seen, signed: Signed, cid: str, start: datetime, valid_from: str,
          remote: str | None, again: tuple[str, datetime] | None = None) -> Finding:
    """Return KI442 of a new note line trust commit ``cid`` (at ``start``) makes count.

    ``again``: ``(command, entry)`` of a line ``kistore notes COMMAND`` makes again, said
    with its entry made again (:func:`pre_trust_made_again`); None: a line pushed as it is.
    """
    obj = line.location[len(NOTES_REF) + 1:]
    typed = shlex.quote(remote) if remote else "REMOTE"  # runs as printed
    extra = {"keyid": signed.keyid, "commit": cid, "validFrom": valid_from,
             "enteredAt": format_time(signed.entered)}
    where, moved = "the repository", ""
    fix = (f"review it: if the key's holder signed the line and it should take effect, keep "
           f"it; otherwise leave it out before it is pushed (`git notes --ref kistore edit "
           f"{obj}` and delete it, then `kistore notes rebase {typed}` and `kistore notes "
           f"push {typed}`) and have its signer attest again now that the key is trusted (the "
           "new line enters after the trust commit); a line already pushed stays (notes only "
           "grow, KI408)")
    if again is not None:
        command, enters = again
        where, extra["entersAt"] = "this repository", format_time(enters)
        how = (f"made again at this push, it enters {remote}" if command == "push"
               else "written again by this rebuild, it enters")
        moved = (f"; {how} at {format_time(enters)}, after that commit, so no check says "
                 f"this again, on {remote} or in any clone")
        if command == "push":  # said once pushed: the line is there
            fix = (f"review it: if the key's holder signed the line and it should take effect, "
                   f"keep it; otherwise tell {remote}'s reviewers now: the line is on {remote} "
                   "and stays (notes only grow, KI408), counted as the key's word from before "
                   "its trust, and no later check names it")
    return Finding(
        PRE_TRUST_COUNTS,
        f"the {signed.type} by key {signed.keyid} on {line.subject} entered {where} "
        f"at {format_time(signed.entered)} (its notes commit's date), before commit "
        f"{cid[:12]} first trusted the key (the commit's time {format_time(start)}): a "
        f"community attestation then, it counts because that commit gave the key a "
        f"validFrom before it ({valid_from}): what the key signed while nobody trusted it "
        f"takes effect when the trust lands{moved}",
        file=line.location, fix=fix, extra=extra)
