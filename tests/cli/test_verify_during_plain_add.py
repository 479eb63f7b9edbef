"""``verify`` during a plain ``kistore add`` says KI418, as during ``add --commit`` (review R72-8).

A plain add (no ``--commit``) takes no git lock: a ``verify`` of the work tree while it
wrote reported its half-written files (an object whose metadata or names file is not
written yet) as errors, with no word of the add. Every add holds kistore's write lock
(``flock`` on ``.git/kistore-write.lock``) from its checks until its last file is written;
verify now looks at it as it looks at git's ``index.lock``. The add here is paused after its
first file by a patched writer in a real process, so the test is no race.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from kistore.check import audit
from kistore.cli import main
from kistore.store import Store

from ..conftest import git

PAUSED_ADD = r"""
import sys, time
from pathlib import Path

import kistore.git.writer as writer

store, manifests, written, go = sys.argv[1:5]
real = writer._write
count = 0


def paused(path, data, **options):
    global count
    stat = real(path, data, **options)
    count += 1
    if count == 1:  # one file of the add is in the work tree, the rest is not
        Path(written).write_text(path)
        while not Path(go).exists():
            time.sleep(0.01)
    return stat


writer._write = paused
sys.argv = ["kistore", "--store", store, "add", "--allow-dangling", manifests]
from kistore._entry import run

run()
"""


@contextlib.contextmanager
def paused_plain_add(root: Path, kit, tmp_path: Path) -> Iterator[Path]:
    """Run a plain ``kistore add`` of five new manifests in a real process, paused after its
    first file; yield that file's path; then let it finish, and check that it succeeded."""
    manifests = tmp_path / "new.jsonl"
    protocol, environment = kit.protocol(family="other"), kit.environment("NVIDIA B200")
    workload, impl = kit.workload("softmax"), kit.implementation("late", name="impl-late")
    docs = [protocol, environment, workload, impl,
            kit.run(protocol, environment, impl, workload, latency=5, name="late")]
    manifests.write_text("".join(json.dumps(d) + "\n" for d in docs))
    written, go = tmp_path / "written", tmp_path / "go"
    add = subprocess.Popen([sys.executable, "-c", PAUSED_ADD, str(root), str(manifests),
                            str(written), str(go)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not written.exists():
            assert add.poll() is None, add.communicate()
            assert time.monotonic() < deadline, "the add wrote no file in 60 s"
            time.sleep(0.02)
        yield Path(written.read_text())
    finally:
        go.write_text("")
        out, err = add.communicate(timeout=120)
    assert add.returncode == 0, out + err


def test_verify_during_a_plain_add_says_ki418_naming_kistores_write_lock(runner, group, kit,
                                                                         tmp_path):
    root = Path(group.root)
    with paused_plain_add(root, kit, tmp_path) as written:
        assert not (root / ".git" / "index.lock").exists()  # a plain add: no git lock

        during = runner.invoke(main, ["--store", str(root), "verify", "--json"])
        data = json.loads(during.stdout)
        lock = root / ".git" / "kistore-write.lock"
        first = data["findings"][0]
        assert (first["rule"], first["severity"], first["extra"]) == (
            "KI418", "warning", {"lock": str(lock)})
        assert first["message"] == (
            f"{lock} was held while verify read the work tree: a `kistore add` or `kistore "
            "migrate` (which hold it while they write) was writing it, so errors below may "
            "be files caught half-written, not damage; run `kistore verify` again when it "
            "ends")
        assert sum(f["rule"] == "KI418" for f in data["findings"]) == 1
        # the half-written add's files are still judged as read (as beside index.lock):
        # its first file, an object whose metadata file is not written yet
        first_file = written.relative_to(root).as_posix()
        assert first_file.startswith("store/objects/")
        assert [(f["rule"], f["file"]) for f in data["findings"]
                if f["severity"] == "error"] == [("KI204", first_file)]
        assert during.exit_code == 1

        text = runner.invoke(main, ["--store", str(root), "verify"])
        assert text.stdout.splitlines()[0].startswith(
            f"(store): warning KI418 work-tree-written-meanwhile: {lock} was held")
        assert text.stdout.splitlines()[-1].startswith(
            "warning: an add or git command was writing while verify read")

    after = runner.invoke(main, ["--store", str(root), "verify", "--json"])
    assert after.exit_code == 0, after.stdout
    assert "KI418" not in after.stdout  # the lock file stays, let go: not held


def test_an_unheld_or_absent_write_lock_is_not_held(store):
    lock = Path(store.git_dir) / "kistore-write.lock"
    lock.unlink(missing_ok=True)
    assert store.write_lock_held() is None
    assert not lock.exists()  # the look creates nothing
    with store._write_lock():
        assert lock.exists()
        # held by this process's own other open file: a flock of another open file conflicts
        assert store.write_lock_held() == lock
    assert store.write_lock_held() is None


def test_an_add_in_another_linked_worktree_is_named_by_ki418(group, tmp_path):
    # tidy75: the write lock is in the common git directory, so an add in another worktree
    # made this one's verify say KI418 with a hint of half-written files here
    root = Path(group.root)
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", "-b", "side", str(linked))
    lock = Path(git(root, "rev-parse", "--git-common-dir").strip())
    lock = (lock if lock.is_absolute() else root / lock).resolve() / "kistore-write.lock"
    other = Store(linked)
    with other._write_lock():
        assert other.write_lock_holder() == (os.getpid(), str(other.root))
        assert lock.read_text() == f"{os.getpid()} {other.root}\n"
        found = audit.verify(Store(root), workers=1)
        assert Store(root).write_lock_held() == lock
    assert lock.read_text() == "" and other.write_lock_holder() is None  # emptied, let go
    first = found[0]
    assert (first.rule.id, first.extra) == (
        "KI418", {"lock": str(lock), "worktree": str(other.root)})
    assert first.message == (
        f"{lock} was held while verify read the work tree: a `kistore add` or `kistore "
        f"migrate` in another worktree of this repository ({other.root}, process "
        f"{os.getpid()}) holds it while it writes there (the worktrees share it), not here: "
        "errors below are not its half-written files")
    assert [f for f in found if f.severity == "error"] == []


def test_ki418_of_a_write_lock_with_no_holder_line_says_another_worktree_may_be_adding(store):
    with store._write_lock():
        lock = store._write_lock_path()
        lock.write_text("")  # an older kistore, which writes no line (waited for 0.5 s)
        assert store.write_lock_holder() is None
        finding = audit.written_meanwhile(store, store.write_lock_held())
    assert finding.message == (
        f"{lock} was held while verify read the work tree: a `kistore add` or `kistore "
        "migrate` (which hold it while they write; another worktree of this repository may "
        "be adding: they share it) was writing it, so errors below may be files caught "
        "half-written, not damage; run `kistore verify` again when it ends")
