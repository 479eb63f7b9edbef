"""KI429: a range that changes what the gate runs (review r80 F5).

This repository is itself a store, and its CI ``gate`` job judges a pull request with the
BASE branch's kistore (``.github/workflows/pull-request.yml``): a pull request cannot
change the code that judges it. It can change the code that judges the *next* one. PR 1
changed three lines of ``kistore/check/gate.py`` (a return that is off unless
``GITHUB_EVENT_NAME=pull_request_target``, so the ``test`` job stayed green): 0 findings;
once merged, PR 2's tampered object got "ok". Nothing but review judges such a change,
and the gate gave the reviewer no hint. :func:`gate_code_changed` is that hint: one
warning per range naming the files under :data:`GATE_CODE` it adds, changes or deletes.

The list is what the gate job installs and runs: ``make install`` (``Makefile``) installs
``pyproject.toml``'s package and dependencies, which ship ``kistore/``, ``schemas/``
(``kistore.schemas``: the schemas KI104 holds manifests to) and ``hooks/``
(``kistore.hooks``, the server's ``pre-receive``); ``setup.py``/``setup.cfg`` would be
read by pip too; ``.github/`` holds the workflows (a merge queue's run takes the
workflow from the queued merge) and ``.ci/`` the CI entry point. In a store that holds none
of them the rule never fires. Cost: one lookup per name at each end, and a diff of the
directories among them that differ (O(change)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.findings import WARNING, Finding, rule
from ..git import treediff

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

GATE_CODE = (".ci", ".github", ".venv", "GNUmakefile", "MANIFEST.in", "Makefile", "hooks",
             "kistore", "makefile", "pyproject.toml", "schemas", "setup.cfg", "setup.py")
"""Top-level names of the repository whose change changes what the gate runs. Since
2026-12-03 also ``GNUmakefile`` and ``makefile`` (GNU make reads them before ``Makefile``),
``.venv`` (``python -m venv .venv`` keeps what a checkout put there: a ``.pth`` runs at every
start of the job's Python) and ``MANIFEST.in`` (read by setuptools): reviewer r81 F3."""

SHOWN = 10
"""Paths a KI429 message names (the rest are counted; ``extra["paths"]`` holds them all)."""

GATE_CODE_CHANGED = rule(
    "KI429", "gate-code-changed", WARNING,
    "review every line of these files as code: this pull request is judged by BASE's gate, "
    "but once merged its code judges every later pull request, and nothing but review "
    "judges it (docs/threats.md, \"The gate's own code\")")


def gate_code_changed(repo: pygit2.Repository, base_tree: Any, head_tree: Any
                      ) -> list[Finding]:
    """KI429 when a range adds, changes or deletes a file the gate installs or runs.

    Args:
        repo: the repository holding both trees.
        base_tree: BASE's root tree (a pygit2 Tree).
        head_tree: HEAD's root tree.

    Returns:
        One warning, on the first such path (sorted), naming up to :data:`SHOWN` of them
        and counting the rest (``extra``: ``paths``, every one, sorted; ``count``); empty
        when the range changes none of :data:`GATE_CODE`.

    Raises:
        ObjectUnreadable: a directory on the way is damaged (:mod:`kistore.git.treediff`).
    """
    paths = sorted(p for name in GATE_CODE for p in _changed(repo, base_tree, head_tree, name))
    if not paths:
        return []
    shown = ", ".join(paths[:SHOWN])
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return [Finding(
        GATE_CODE_CHANGED, f"the range changes what the gate installs or runs ({len(paths)} "
        f"file{'s' if len(paths) != 1 else ''}: {shown}{more}): it takes effect for the next "
        "pull request, judged by review alone", file=paths[0],
        extra={"paths": paths, "count": len(paths)})]


def _changed(repo: pygit2.Repository, base_tree: Any, head_tree: Any, name: str) -> list[str]:
    """Every path at or under the top-level ``name`` that differs between the trees."""
    old, new = (treediff.entry_at(repo, tree, name) for tree in (base_tree, head_tree))
    if old is not None and new is not None and (old.id, old.filemode) == (new.id, new.filemode):
        return []
    before, after = (e.id if e is not None and e.type_str == "tree" else None
                     for e in (old, new))
    found = (list(treediff.changed_leaves(repo, before, after, prefix=name + "/"))
             if before is not None or after is not None else [])
    if any(e is not None and e.type_str != "tree" for e in (old, new)):
        found.append(name)  # a file (or a file on one side, a directory on the other)
    return found
