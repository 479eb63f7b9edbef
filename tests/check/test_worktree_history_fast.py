"""verify's work-tree history check from the blob ids its workers read (_history.worktree_changes).

``kistore verify`` no longer asks git for the status of every file when the objects the
workers read make ``HEAD``'s objects tree and the index holds ``HEAD``'s objects. Every
damage below must still be reported exactly as git's status reports it
(``check_history``, which always asks git, is the oracle), and a clean work tree must be
settled without git's status.
"""

from __future__ import annotations

import os

import pytest

from kistore.check import _history as history
from kistore.check import audit
from kistore.check._rules import sort_key
from kistore.core.findings import Finding
from kistore.git.blobs import ObjectUnreadable
from kistore.store import Store

from ..conftest import PUBLISHED, git, store_file

PROTOCOL = store_file(PUBLISHED["protocol"])
ENVIRONMENT = store_file(PUBLISHED["environment"])
NEW_OBJECT = store_file("sha256:" + "ab" * 32)


def _history_findings(findings):
    return [(f.rule.id, f.file, f.message, f.expected, f.found) for f in findings
            if f.rule.id in ("KI401", "KI402", "KI403", "KI113")]


def _edit(root, rel, old=b"v1.1", new=b"v1.2"):
    path = root / rel
    path.write_bytes(path.read_bytes().replace(old, new, 1))


def _untracked_object(root):
    (root / NEW_OBJECT).parent.mkdir(parents=True, exist_ok=True)
    (root / NEW_OBJECT).write_bytes((root / PROTOCOL).read_bytes())


def _symlink(root):
    (root / ENVIRONMENT).unlink()
    os.symlink(os.path.basename(PROTOCOL), root / ENVIRONMENT)


def _staged_edit_then_restored(root):
    before = (root / PROTOCOL).read_bytes()
    _edit(root, PROTOCOL)
    git(root, "add", PROTOCOL)
    (root / PROTOCOL).write_bytes(before)


def _staged_chmod_then_restored(root):
    (root / PROTOCOL).chmod(0o755)
    git(root, "add", PROTOCOL)
    (root / PROTOCOL).chmod(0o644)


def _info_attributes(root):
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_text("*.json -text\n")
    _edit(root, PROTOCOL)


def _filemode_off(root):
    git(root, "config", "core.filemode", "false")
    (root / PROTOCOL).chmod(0o755)


DAMAGES = {
    "edited": lambda root: _edit(root, PROTOCOL),
    "edited, same size": lambda root: _edit(root, PROTOCOL, b"v1.1", b"v1.9"),
    "executable": lambda root: (root / PROTOCOL).chmod(0o755),
    "executable, file modes ignored": _filemode_off,
    "deleted": lambda root: (root / ENVIRONMENT).unlink(),
    "removed from the index only": lambda root: git(root, "rm", "-q", "--cached", PROTOCOL),
    "removed from both": lambda root: git(root, "rm", "-q", PROTOCOL),
    "staged edit, work tree restored": _staged_edit_then_restored,
    "staged chmod, work tree restored": _staged_chmod_then_restored,
    "untracked new object": _untracked_object,
    "staged new object": lambda root: (_untracked_object(root), git(root, "add", NEW_OBJECT)),
    "a symlink in its place": _symlink,
    "info/attributes, edited": _info_attributes,
}


@pytest.mark.parametrize(("damage", "workers"), [(d, 1) for d in sorted(DAMAGES)] + [
    ("edited", 2), ("executable", 2), ("removed from the index only", 2)])
def test_verify_reports_what_git_status_reports(published, damage, workers):
    DAMAGES[damage](published)
    expected = _history_findings(history.check_history(Store(published)))
    got = _history_findings(audit.verify(Store(published), workers=workers))
    assert got == expected
    if damage not in ("untracked new object", "staged new object",
                      "executable, file modes ignored"):
        assert expected  # each damage is one git's status reports


def test_a_clean_work_tree_is_settled_without_git_status(published, monkeypatch):
    proofs = []
    real = history._objects_unchanged

    def spy(repo, objects, skipped=None):
        proofs.append(real(repo, objects, skipped))
        return proofs[-1]

    monkeypatch.setattr(history, "_objects_unchanged", spy)
    assert _history_findings(audit.verify(Store(published), workers=1)) == []
    assert proofs == [True]
    proofs.clear()
    _edit(published, PROTOCOL)  # the tampered object: no proof, git is asked
    found = _history_findings(audit.verify(Store(published), workers=1))
    assert proofs == [False]
    assert [f[:3] for f in found] == [
        ("KI401", PROTOCOL, "modified in the work tree or index (HEAD holds other bytes)")]


def test_the_tree_of_the_objects_read_is_heads(published):
    """The objects tree made from the workers' entries has HEAD's id; one changed byte,
    one mode or one missing object gives another id (equal ids are equal trees)."""
    from kistore.core import layout
    from kistore.git import treediff

    store = Store(published)
    objects: dict[str, bytes] = {}
    audit.check_contents(audit.snapshot(store), objects_read=objects, workers=1)
    assert sorted(objects) == sorted(
        p for p in git(published, "ls-files", layout.OBJECTS_DIR).split())
    for path, entry in objects.items():  # git's own blob id of each file, mode 100644
        assert entry == b"100644 " + bytes.fromhex(
            git(published, "hash-object", path).strip())
    head = git(published, "rev-parse", f"HEAD:{layout.OBJECTS_DIR}").strip()

    def tree(entries):
        shards: dict[bytes, dict[bytes, tuple[bytes, bytes]]] = {}
        for path, entry in entries.items():
            shard, name = path.split("/")[-2:]
            shards.setdefault(shard.encode(), {})[name.encode()] = (entry[:6], entry[7:])
        return treediff.tree_id({s: (b"40000", treediff.tree_id(f))
                                 for s, f in shards.items()}).hex()

    assert tree(objects) == head
    one = sorted(objects)[0]
    assert tree({**objects, one: b"100755 " + objects[one][7:]}) != head
    assert tree({**objects, one: objects[one][:7] + bytes(20)}) != head
    assert tree({p: e for p, e in objects.items() if p != one}) != head


def test_a_staged_change_is_found_from_a_subdirectory(published, monkeypatch):
    """git compares the index at the top of the work tree, wherever kistore runs.

    ``git --work-tree`` run from ``store/`` read ``store/objects/`` as
    ``store/store/objects/``: nothing there differs, and a staged edit under a restored
    work tree passed as clean.
    """
    _staged_edit_then_restored(published)
    monkeypatch.chdir(published / "store")
    got = _history_findings(audit.verify(Store(published), workers=1))
    assert [f[:3] for f in got] == [
        ("KI401", PROTOCOL, "modified in the work tree or index (HEAD holds other bytes)")]


def test_a_history_check_stopped_by_a_damaged_object_still_gets_the_work_trees_findings(
        published, monkeypatch):
    """check_history raised: its range in verify's findings ends after the stop's KI117.

    The work tree's history findings (``worktree_changes``) are then sorted into that range,
    with the stop, before the next checker's findings.
    """
    def stops(store, at, worktree=True):
        raise ObjectUnreadable("ab" * 20, "inflate failed", path="store/trust/keys.json")

    after = Finding(audit.WORK_TREE_WRITTEN, "the next checker's")
    monkeypatch.setattr(audit, "check_history", stops)
    _edit(published, PROTOCOL)
    found = audit.verify(Store(published), workers=1,
                         checkers=[stops, lambda store, at: [after]])
    stop = audit.stopped_finding(ObjectUnreadable("ab" * 20, "inflate failed",
                                                  path="store/trust/keys.json"))
    changed = [f for f in found if f.rule.id == "KI401"]
    assert [(f.file, f.message) for f in changed] == [
        (PROTOCOL, "modified in the work tree or index (HEAD holds other bytes)")]
    assert found[-3:] == [*sorted([stop, *changed], key=sort_key), after]
