"""KI428's and KI423's fixes name the real BASE, not the word (depth96 "Noticed", upd97 5).

depth96 gave every gate fix that names BASE its id (``_fixes.Base``: git answers ``git
checkout BASE`` with "invalid reference: BASE"); two still printed the word: KI428's
``git rebase --force-rebase --ignore-date BASE`` and KI423's ``git rebase -i BASE``. Now
the gate's range names BASE's id, a history checked from its root commit says ``--root``,
and a notes push names its notes rebuild (``kistore notes rebase REMOTE``), which makes the
notes commit again. ``verify``'s and the rules' hints keep the word (no range there).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from kistore.check import gate
from kistore.check._dates import COMMIT_DATE_IMPLAUSIBLE
from kistore.check._trees import TREE_ENTRY_INVALID
from kistore.core.layout import NOTES_REF
from kistore.store import Store

from ..conftest import git
from .test_fsck_names_gate import _blob, _root_entry
from .test_notes_tree_entries import _honest_notes, _notes_commit, _raw_tree

FUTURE = "2099-01-01T00:00:00Z"


def dated_commit(root: Path, *args: str) -> str:
    """``git commit-tree HEAD^{tree} ARGS`` dated :data:`FUTURE`; return its id."""
    return subprocess.run(
        ["git", "commit-tree", "HEAD^{tree}", "-m", "from the future", *args], cwd=root,
        capture_output=True, text=True, check=True,
        env={**os.environ, "GIT_AUTHOR_DATE": FUTURE, "GIT_COMMITTER_DATE": FUTURE},
    ).stdout.strip()


def hints(findings, rule_id: str) -> set[str]:
    return {f.hint for f in findings if f.rule.id == rule_id}


def test_ki428_at_the_gate_names_base_s_id(published):
    base = git(published, "rev-parse", "HEAD").strip()
    tip = dated_commit(published, "-p", base)
    found = hints(gate.check_range(Store(published), f"{base}..{tip}"), "KI428")
    assert found == {
        "make the commit again with today's dates: `git commit --amend --reset-author "
        "--no-edit` for the branch's last commit, `git rebase --force-rebase --ignore-date "
        f"{base}` for every commit of the branch (both set author and committer dates to "
        "now)"}
    assert "--ignore-date BASE`" in COMMIT_DATE_IMPLAUSIBLE.hint  # the rule's: verify's


def test_ki428_of_a_history_from_its_root_says_root(published):
    root = dated_commit(published)  # no parent: a first push checks it whole
    found = hints(gate.check_updates(Store(published), [("0" * 40, root, "refs/heads/new")]),
                  "KI428")
    assert len(found) == 1
    assert "`git rebase --force-rebase --ignore-date --root` for every commit" in found.pop()


def test_ki423_at_the_gate_names_base_s_id(published):
    base = git(published, "rev-parse", "HEAD").strip()
    commit = _root_entry(published, 0o100644, "docs", git(published, "rev-parse",
                                                          "HEAD^{tree}").strip())
    assert git(published, "rev-parse", f"{commit}^").strip() == base
    found = hints(gate.check_range(Store(published), f"{base}..{commit}"), "KI423")
    assert found == {
        "git never writes such a tree: rebuild the commit with git itself (drop it with "
        f"`git rebase -i {base}`, then `git add` the files and commit again); a server should "
        "also set `receive.fsckObjects = true`"}
    assert "`git rebase -i BASE`" in TREE_ENTRY_INVALID.hint


def test_a_notes_push_s_ki423_and_ki428_name_the_notes_rebuild(record_store, store_path):
    tip, annotated, _honest, _ = _honest_notes(record_store, store_path)
    odd = _raw_tree(store_path, [(b"100644", annotated.encode(), _blob(store_path, b"x\n")),
                                 (b"100644", annotated.encode(), _blob(store_path, b"y\n"))])
    pushed = _notes_commit(store_path, odd, tip)
    found = gate.check_updates(record_store, [(tip, pushed, NOTES_REF)], remote="origin")
    assert hints(found, "KI423") == {
        "push a notes history without that commit (`kistore notes rebase origin` rebuilds a "
        "repository's notes on origin's without it; `kistore notes fetch` of a fork takes its "
        "lines, not its history)"}
    tree = git(store_path, "rev-parse", f"{tip}^{{tree}}").strip()
    ahead = subprocess.run(
        ["git", "commit-tree", tree, "-p", tip, "-m", "notes from the future"],
        cwd=store_path, capture_output=True, text=True, check=True,
        env={**os.environ, "GIT_AUTHOR_DATE": FUTURE, "GIT_COMMITTER_DATE": FUTURE},
    ).stdout.strip()
    found = gate.check_updates(record_store, [(tip, ahead, NOTES_REF)])  # pre-receive
    assert hints(found, "KI428") == {
        "push a notes history without that commit (`kistore notes rebase REMOTE` rebuilds a "
        "repository's notes on REMOTE's without it, REMOTE being your repository's name for "
        "this one; `kistore notes fetch` of a fork takes its lines, not its history), on a "
        "machine whose clock is right"}
