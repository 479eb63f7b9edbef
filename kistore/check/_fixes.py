"""The branch's fix of a committed change: rebuild the branch without its commits.

A commit of a pull request that edits, renames or deletes stored bytes stays in the
history a later fixing commit is added to, and the gate and ``verify`` read that history
commit by commit (KI401-KI403): the fix that works drops the commits (``git rebase -i
BASE``). One wording for every finding that says it (reviewer r93b G1, rev95 item 1):
the gate's KI101 of an edit and a committed rename or copy (:mod:`.audit`), an object
edited then deleted (:mod:`._history`), a name a later commit of the range removes
(:mod:`.gate`).
"""

from __future__ import annotations

MERGE_BASE = "`git merge-base origin/main HEAD`"
"""How to find BASE outside a range (``verify``, which knows none)."""

REBASE_BASE = ("`git rebase -i BASE` (BASE: the commit the branch starts from, "
               f"{MERGE_BASE})")
"""The rebase a fix outside a range (``verify``, which knows no BASE) says."""


def rebase_command(base: str | None) -> str:
    """Return the rebase a fix names: ``git rebase -i BASE`` in backquotes.

    Args:
        base: the gate's BASE (full commit id: named whole, so the command runs as
            written, or ``"BASE"`` where the words around it say what BASE is); None:
            :data:`REBASE_BASE`, which says how to find it.
    """
    return f"`git rebase -i {base}`" if base else REBASE_BASE


def rebuild_without(rules: str, base: str | None, paths: str, *, plural: bool = False) -> str:
    """Return the part of a branch fix from "which is read commit by commit" to its ``; ``.

    Args:
        rules: the rules the history check reports the change under (``KI401``).
        base: as :func:`rebase_command` takes it.
        paths: the files to leave as they were.
        plural: the fix names several commits (``them``, ``those commits``).
    """
    it, commit = ("them", "those commits") if plural else ("it", "that commit")
    return (f"which is read commit by commit ({rules}), so rebuild the branch without {it}: "
            f"{rebase_command(base)}, and drop {commit} (or edit {it} to leave {paths} as it "
            "was); ")


def rebase_fix(what: str, commits: list[str], undo: str, change: str, rules: str,
               paths: str, base: str | None, then: str) -> str:
    """Return the branch's fix of a committed change: rebuild it without the commits.

    The one wording of the gate's KI101 of an edit (:func:`.audit.gate_fixes`) and of a
    committed rename or copy (the gate's and ``verify``'s), reviewer r93b G1.

    Args:
        what: what the commits did (``an object's bytes edited``).
        commits: their full ids (named by 12 digits).
        undo: what a later commit would do (``restoring them``).
        change: what that leaves in the history (``the edit``).
        rules: the rules the history check reports it under (``KI401``).
        paths: the files to leave as they were.
        base: the gate's BASE (full commit id); None: :data:`REBASE_BASE`.
        then: the last clause.
    """
    ids = ", ".join(c[:12] for c in commits)
    return (f"{what} in commit {ids} of the branch: {undo} in a later commit leaves {change} "
            f"in the history, {rebuild_without(rules, base, paths)}{then}")
