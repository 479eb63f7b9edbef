"""KI429: a range that changes what the gate runs (review r80 F5).

This repository is itself a store, and its CI ``gate`` job judges a pull request with the
BASE branch's kistore (``.github/workflows/pull-request.yml``): a pull request cannot
change the code that judges it. It can change the code that judges the *next* one. PR 1
changed three lines of ``kistore/check/gate.py`` (a return that is off unless
``GITHUB_EVENT_NAME=pull_request_target``, so the ``test`` job stayed green): 0 findings;
once merged, PR 2's tampered object got "ok". Nothing but review judges such a change,
and the gate gave the reviewer no hint. :func:`gate_code_changed` is that hint: one
warning per range naming the files under :data:`GATE_CODE` it adds, changes or deletes.

What the gate job reads is more than a list can hold (reviewer r81 F3: a ``GNUmakefile``,
which GNU make reads before ``Makefile``, decided what ``make install`` ran; a ``.pth``
file committed under ``.venv/``, which ``python -m venv .venv`` keeps, ran at every start
of the job's Python): ``make install`` installs ``pyproject.toml``'s package and
dependencies, with whatever files make, pip and setuptools read beside them. So the rule
runs the other way round: every changed path counts except under the top-level names of
:data:`NOT_RUN` (the store, documentation, tests and other files the gate job neither
installs nor runs) and a top-level ``*.md``. Cost: the two root trees compared, then a diff
of the top-level directories that differ and count (O(change)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.findings import WARNING, Finding, rule
from ..git import treediff

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

NOT_RUN = frozenset(("store", "docs", "tests", "bench", "conformance", "examples", "scripts",
                     "kistore.toml", ".gitattributes", ".gitignore", ".pre-commit-hooks.yaml",
                     "LICENSE"))
"""Top-level names whose change does not change what the gate job runs: the store (its
own rules judge it), ``kistore.toml`` (read as data, KI108, KI422, KI426), documentation,
the test suite, the bench, examples and scripts (the ``test`` job runs them with the pull
request's code anyway) and git's attribute and ignore files (KI113; ``.gitignore`` does not
change what a checkout holds)."""

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
        when every path the range changes is under :data:`NOT_RUN` or a top-level
        ``*.md``.

    Raises:
        ObjectUnreadable: a directory on the way is damaged (:mod:`kistore.git.treediff`).
    """
    names = {e.name for tree in (base_tree, head_tree) for e in tree}
    paths = sorted(p for name in names if not _not_run(name)
                   for p in _changed(repo, base_tree, head_tree, name))
    if not paths:
        return []
    shown = ", ".join(paths[:SHOWN])
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return [Finding(
        GATE_CODE_CHANGED, f"the range changes what the gate installs or runs ({len(paths)} "
        f"file{'s' if len(paths) != 1 else ''}: {shown}{more}): it takes effect for the next "
        "pull request, judged by review alone", file=paths[0],
        extra={"paths": paths, "count": len(paths)})]


def _not_run(name: str) -> bool:
    """Whether a top-level name is one whose change the gate job does not run."""
    return name in NOT_RUN or (name.endswith(".md") and name != ".md")


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
