"""The gate's fix texts name BASE by its commit, as git takes it (reviewer fresh95 F6).

Rules written for ``verify`` and the gate alike say ``git checkout BASE -- PATH`` (KI238 of a
retitled run, KI432, KI106's limits) or ``git rebase -i BASE`` (KI401, KI202's merge): run as
written, git says ``fatal: invalid reference: BASE``. The gate knows BASE, so
:func:`name_base` writes it into each finding's fix and message, as KI101's fix already does
(:func:`kistore.check.audit.gate_fixes`). In the pre-commit hook BASE is the commit the staged
changes go on top of, the repository's ``HEAD``: a checkout there says ``HEAD``.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.findings import Finding
from ._fixes import REBASE_BASE


def name_base(findings: list[Finding], base: str, base_is_head: bool) -> list[Finding]:
    """Return ``findings`` with the literal BASE of their commands named (fixes and messages).

    Args:
        findings: the gate's findings.
        base: BASE's full commit id (40 hex digits).
        base_is_head: BASE is the repository's checked-out ``HEAD`` (the pre-commit hook
            checks ``HEAD..STAGED``): a checkout names it ``HEAD``; a rebase names the id.

    Returns:
        The findings in their order: in each fix and message, ``git checkout BASE -- ``
        names BASE (``FILE``/``PATH`` after it, the finding's file, when it has one),
        ``git rebase -i BASE`` and ``git rebase BASE`` its id. A finding without them is
        returned as it is.
    """
    checkout = "HEAD" if base_is_head else base
    out = []
    for f in findings:
        fix, message = (_named(text, base, checkout, f.file) for text in (f.hint, f.message))
        if fix != f.hint or message != f.message:
            f = replace(f, fix=fix, message=message)
        out.append(f)
    return out


def _named(text: str, base: str, checkout: str, path: str | None) -> str:
    """Name BASE in one text (see :func:`name_base`)."""
    if "BASE" not in text:
        return text
    if path is not None:
        for word in ("FILE", "PATH"):
            text = text.replace(f"`git checkout BASE -- {word}`",
                                f"`git checkout {checkout} -- {path}`")
    return (text.replace(REBASE_BASE, f"`git rebase -i {base}`")
            .replace("`git checkout BASE -- ", f"`git checkout {checkout} -- ")
            .replace("`git rebase -i BASE`", f"`git rebase -i {base}`")
            .replace("`git rebase BASE`", f"`git rebase {base}`"))
