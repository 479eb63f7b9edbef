"""Each reading command names a damaged tree itself: ``require_store`` leaves it to them.

:meth:`kistore.store.Store.require_store` (the "is this a store at all?" question every
reading command asks first) is quiet when the commit's tree cannot be read: the command's
own read reports the damage, with its context. This pins that each of them does: ``ls``,
``rank``, ``show``, ``cat``, ``site build`` and ``export`` at ``HEAD``, with HEAD's root
tree or its ``store/`` tree deleted or cut short, stop with one error naming the object
and the damage (never "not a kistore store", an empty answer, a traceback or a hang).
"""

from __future__ import annotations

import pytest

from kistore.index._database import index_path

from ..conftest import git
from . import test_missing_git_object
from .test_missing_git_object import MISSING, delete
from .test_truncated_loose_object import LIMIT, RUN, cut, kistore

stored = test_missing_git_object.stored
"""The published record committed on top of ``kistore init``'s commit, all loose."""

COMMANDS = {
    "ls": ["ls", "--at", "HEAD"],
    "rank": ["rank", RUN, "--at", "HEAD"],
    "show": ["show", RUN, "--at", "HEAD"],
    "cat": ["cat", RUN, "--at", "HEAD"],
    "site build": ["site", "build", "{out}", "--at", "HEAD"],
    "export": ["export", "{out}", "--at", "HEAD"],
}
DAMAGE = {"deleted": (delete, MISSING), "cut": (cut, "its loose object file is cut short")}
TREES = {"root tree": "HEAD^{tree}", "store/ tree": "HEAD:store"}


@pytest.mark.parametrize("tree", sorted(TREES))
@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_reading_command_names_the_damaged_tree(stored, tmp_path, command, damage, tree):
    oid = git(stored, "rev-parse", TREES[tree]).strip()
    hurt, reason = DAMAGE[damage]
    hurt(stored, oid)
    # the add's query index describes HEAD's tree (its limits recorded since limits78):
    # `ls` answers from those rows alone, made while the tree was whole; without them
    # every command must read the tree, and that read names the damage
    index_path(stored / ".git").unlink()
    out_dir = tmp_path / "out"
    args = [a.replace("{out}", str(out_dir)) for a in COMMANDS[command]]
    status, out, err = kistore(stored, *args)
    said = out + err
    assert status is not None, f"{command} still ran after {LIMIT} s"
    assert status == 1, said  # a damaged store (kistore.core.errors.StoreStateError)
    assert out == "", said  # no partial answer
    [line] = [x for x in err.splitlines() if x.startswith("error: ")]
    assert f"git object {oid} cannot be read ({reason}" in line, said
    assert "`git fsck`" in line, said
    assert "not a kistore store" not in said and "Traceback" not in said, said
    assert "internal error" not in said, said
    assert not out_dir.exists() or not any(out_dir.iterdir()), said  # nothing half-written


def test_a_warm_index_lists_what_it_was_made_from_and_verify_names_the_damage(stored):
    """`ls --at HEAD` answers from the query index's rows for HEAD's tree id (made by the
    add while the tree was whole: a derived index, like git's commit-graph); `verify`
    reads every object and names the damaged tree."""
    before = kistore(stored, "ls", "--at", "HEAD")
    oid = git(stored, "rev-parse", TREES["store/ tree"]).strip()
    cut(stored, oid)
    assert kistore(stored, "ls", "--at", "HEAD") == before
    status, out, err = kistore(stored, "verify", "--at", "HEAD")
    assert status == 1, out + err
    assert f"{oid}" in out + err and "KI117" in out + err, out + err
