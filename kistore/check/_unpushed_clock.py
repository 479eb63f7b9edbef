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

``kistore verify`` says KI440 too, of one case: :mod:`kistore.check.notes_ahead`, where the
rule is defined (a module ``verify`` loads without the gate).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..core.findings import Finding
from ..core.layout import NOTES_REF
from ._entry_verdict import ENTRY_VERDICT_DIFFERS
from ._notes_clock import NOTES_COMMIT_OFF_CLOCK
from .notes_ahead import NOTES_OFF_CLOCK_UNSENT
from .notes_ahead import unsent_fix as _fix


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

