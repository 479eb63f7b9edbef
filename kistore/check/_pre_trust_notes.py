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
commit (a line of the trust commit's own second is unordered with it, as every entry of one
second is, and not said: a script trusting a key and attesting at once is no pre-trust line):
the same judge (:func:`kistore.check._widened_past.pre_trust_lines`), one warning a line,
naming the key, the line's subject, the trust commit and what to do.

Said once whatever the order: in a pushing clone (``held``: the commits the remote holds)
only when the remote holds the trust commit already, since a push of it from the clone is
judged as a range whose check holds the clone's notes, the line with them (the commit's
KI442). The server judges a trust commit against the notes it holds: the notes pushed first
and the trust commit after, it says it of the commit, once, and nothing here (the notes'
trust then lists no such key); a push bringing both is refused (KI411: a trust change lands
on its own, before its key signs), and a refused line is not warned of besides.
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
from ._widened_past import PRE_TRUST_COUNTS, pre_trust_lines

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..attest.notes import Seen
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
    view = store.view(trust_rev)
    lines: list[tuple[Signed, list[Signed]]] = []
    subjects: dict[str, Seen] = {}
    for item in fresh:
        try:
            keyid = keyid_of(Bundle.from_bytes(item.data, file=item.location))
        except KistoreError:
            continue
        if keyid is None or keyid not in trust.keys:
            continue  # no trust commit makes it count (nothing read)
        obj = item.location[len(NOTES_REF) + 1:]
        entered = times.get(entered_in(repo, walked, obj, item.data, NOTES_REF))
        listed = first_listed(repo, trust_rev).get(keyid)  # read once a revision
        if entered is None or listed is None or entered >= listed[0]:
            continue  # entered after (or in the second of) the key's trust commit: unordered
        line = replace(item, entered_at=entered)
        copies = bundle_copies(store, item, trust_rev)
        then = judged_among(line, copies, trust, view)  # as readers judge it, at its entry
        signed = signed_of(line, keyid)
        if signed is None or not then.counted or then.effect == COMMUNITY:
            continue
        lines.append((signed, [s for s in (signed_of(c, keyid) for c in copies)
                               if s is not None]))
        subjects[signed.location] = line
    head = repo[trust_rev]
    found = []
    for signed, commit, start in pre_trust_lines(store, lines, head):
        cid = str(commit.extra["commit"])
        if held_tips is not None and not any(
                tip == cid or repo.descendant_of(tip, cid) for tip in held_tips):
            continue  # the trust commit's own push says it (its range holds the line)
        found.append(_said(subjects[signed.location], signed, cid, start,
                           str(commit.extra["validFrom"]), remote))
    return found


def _said(line: Seen, signed: Signed, cid: str, start: datetime, valid_from: str,
          remote: str | None) -> Finding:
    """Return KI442 of a new note line trust commit ``cid`` (at ``start``) makes count."""
    obj = line.location[len(NOTES_REF) + 1:]
    typed = shlex.quote(remote) if remote else "REMOTE"  # runs as printed
    return Finding(
        PRE_TRUST_COUNTS,
        f"the {signed.type} by key {signed.keyid} on {line.subject} entered the repository "
        f"at {format_time(signed.entered)} (its notes commit's date), before commit "
        f"{cid[:12]} first trusted the key (the commit's time {format_time(start)}): a "
        f"community attestation then, it counts because that commit gave the key a "
        f"validFrom before it ({valid_from}): what the key signed while nobody trusted it "
        "takes effect when the trust lands",
        file=line.location,
        fix=(f"review it: if the key's holder signed the line and it should take effect, "
             f"keep it; otherwise leave it out before it is pushed (`git notes --ref kistore "
             f"edit {obj}` and delete it, then `kistore notes rebase {typed}` and `kistore "
             f"notes push {typed}`) and have its signer attest again now that the key is "
             "trusted (the new line enters after the trust commit); a line already pushed "
             "stays (notes only grow, KI408)"),
        extra={"keyid": signed.keyid, "commit": cid, "validFrom": valid_from,
               "enteredAt": format_time(signed.entered)})
