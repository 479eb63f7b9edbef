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
``pyproject.toml``'s package, which ships ``kistore/``, ``schemas/`` (``kistore.schemas``:
the schemas KI104 holds manifests to) and ``hooks/`` (``kistore.hooks``, the server's
``pre-receive``), with its dependencies at the versions and hashes ``constraints.txt`` pins
(and Ajv as ``package.json`` and ``package-lock.json`` give it); ``setup.py``/``setup.cfg``
would be read by pip too;
``.github/`` holds the workflows (a merge queue's run takes the workflow from the queued
merge) and ``.ci/`` the CI entry point. In a store that holds none of them the rule never
fires. Cost: one lookup per name at each end, and a diff of the directories among them
that differ (O(change)).

Beside the list, :func:`runs_from_root` names what ``python -m MODULE`` run at the
checkout's root imports instead of the standard library's module (reviewer r82 F3): the
job's ``make install`` ran ``python3 -m venv`` and ``python -m compileall`` there, and
Python puts the working directory first on ``sys.path``, so a root ``compileall.py`` or
``venv/__main__.py`` ran as the job installed the judge (the Makefile now runs Python with
``-P``; the warning stays for a Makefile that does not). And ``.pre-commit-hooks.yaml``,
which other stores' pre-commit runs (reviewer r81 F3).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..core.findings import WARNING, Finding, rule
from ..git import treediff

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

GATE_CODE = (".ci", ".github", ".pre-commit-hooks.yaml", ".venv", "GNUmakefile", "MANIFEST.in",
             "Makefile", "constraints.txt", "hooks", "kistore", "makefile", "package-lock.json",
             "package.json", "pyproject.toml", "schemas", "scripts/hash_lock.py", "setup.cfg",
             "setup.py")
"""Names of the repository (top-level, or one file's path) whose change changes what the
gate runs. Since 2026-12-06 (mend02) ``scripts/hash_lock.py``: ``make install`` runs it to
take pip's requirement out of ``constraints.txt`` (a change to it changes the pip the
next job installs first). Since
2026-12-03 also ``GNUmakefile`` and ``makefile`` (GNU make reads them before ``Makefile``),
``.venv`` (``python -m venv .venv`` keeps what a checkout put there: a ``.pth`` runs at every
start of the job's Python) and ``MANIFEST.in`` (read by setuptools): reviewer r81 F3; since
2026-12-03 (fifth) ``.pre-commit-hooks.yaml`` (the hook other stores' pre-commit runs); since
2026-12-05 ``constraints.txt`` and ``constraints-npm.txt``, the locks ``make install``
installs (Python's packages, Ajv's): a pin moved to a release someone else made runs that
release, its install scripts included, in the next pull request's gate. Since 2026-12-06
(deps00) Ajv's lock is ``package.json`` and ``package-lock.json`` (``npm ci``, each tarball
by its SHA-512), no longer ``constraints-npm.txt``, which ``make install`` reads no more."""

MODULE_SUFFIXES = (".py", ".pyc", ".pyw", ".pyd", ".so")
"""Endings of a file Python imports as a module from a ``sys.path`` directory
(``importlib.machinery.all_suffixes()``: ``.py``, ``.pyc``, ``.so`` and its
``.cpython-311-x86_64-linux-gnu.so`` forms on Linux; ``.pyw``, ``.pyd`` on Windows)."""

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
        when the range changes none of :data:`GATE_CODE` and of what
        :func:`runs_from_root` names at either end.

    Raises:
        ObjectUnreadable: a directory on the way is damaged (:mod:`kistore.git.treediff`).
    """
    names = set(GATE_CODE) | runs_from_root(base_tree) | runs_from_root(head_tree)
    paths = sorted(p for name in names for p in _changed(repo, base_tree, head_tree, name))
    if not paths:
        return []
    shown = ", ".join(paths[:SHOWN])
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return [Finding(
        GATE_CODE_CHANGED, f"the range changes what the gate installs or runs ({len(paths)} "
        f"file{'s' if len(paths) != 1 else ''}: {shown}{more}): it takes effect for the next "
        "pull request, judged by review alone", file=paths[0],
        extra={"paths": paths, "count": len(paths)})]


def runs_from_root(tree: pygit2.Tree | None) -> set[str]:
    """Name the root entries ``python -m MODULE`` run at the checkout's root could import.

    ``python -m`` (and ``python -c``) put the working directory first on ``sys.path``, so a
    module there is imported before the standard library's of that name: every root file
    ending in one of :data:`MODULE_SUFFIXES` (``compileall.py``, ``venv.py``,
    ``py_compile.pyc``: any name, since a module the job's tools import may be added to
    the standard library or to a dependency), and every root directory named as a module
    of the standard library (``sys.stdlib_module_names``: ``venv/``, ``ensurepip/``).

    Args:
        tree: a root tree (a pygit2 Tree), or None (no side).

    Returns:
        The entry names, as in the tree (empty for None).
    """
    if tree is None:
        return set()
    return {entry.name for entry in tree if entry.name is not None and (
        entry.name.endswith(MODULE_SUFFIXES) if entry.type_str != "tree"
        else entry.name in sys.stdlib_module_names)}


def _changed(repo: pygit2.Repository, base_tree: Any, head_tree: Any, name: str) -> list[str]:
    """Every path at or under ``name`` (top-level, or a file's path) the trees differ in."""
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
