"""Odd entries where the index keeps its files: said, never written through (index72 leftovers).

A symbolic link at the index's ``-wal``, ``-shm`` or ``.lock`` file was written through
(SQLite and the lock open them by name, following links), and a file at ``.git/kistore``
made every query read the store without a word, as did a directory or a link at the index
file itself: each is refused before anything is opened (:func:`kistore.index._database.
refuse_odd_path`) and said once by a query that answers by reading the store instead.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.index import _database as database

SUFFIXES = ("", "-wal", "-shm", ".lock")
FALLBACK = "; until then queries read the store (slower, same answers)"


def run(runner, root, *args):
    database.disconnect()  # as a fresh process: no connection of an earlier command kept
    return runner.invoke(main, ["--store", str(root), *args])


def _emptied(root: Path) -> Path:
    """Return the index path of ``root``, its file and the files beside it removed."""
    database.disconnect()
    path = database.index_path(root / ".git")
    for suffix in SUFFIXES:
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def _answers_and_refuses(runner, root, said: str, caplog) -> None:
    """``ls`` and ``rank`` answer from the store saying ``said`` once; reindex refuses.

    The warning goes to the ``kistore.index`` logger (stderr in a real process, pytest's
    capture here: :func:`test_the_warning_is_on_stderr_of_a_real_process`).
    """
    with caplog.at_level(logging.WARNING, logger="kistore.index"):
        caplog.clear()
        listed = run(runner, root, "ls")
        assert listed.exit_code == 0, listed.output
        assert "fast" in listed.stdout and "slow" in listed.stdout
        assert caplog.messages == [f"warning: {said}{FALLBACK}"]
        caplog.clear()
        ranked = run(runner, root, "rank", "BenchmarkRun/fast")
        assert ranked.exit_code == 0, ranked.output
        assert "2 ranked" in ranked.stdout
        assert caplog.messages == [f"warning: {said}{FALLBACK}"]
    result = run(runner, root, "reindex")
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[-1] == f"error: {said}; nothing was left half-written"
    result = run(runner, root, "reindex", "--check")
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {said}\n"


@pytest.mark.parametrize(("suffix", "what"), [
    ("-wal", "the index's write-ahead log"),
    ("-shm", "the index's shared-memory file"),
    (".lock", "the index's lock file")])
def test_a_link_beside_the_index_file_is_not_written_through(runner, group, tmp_path,
                                                            suffix, what, caplog):
    path = _emptied(group.root)
    side = Path(f"{path}{suffix}")
    outside = tmp_path / "outside"
    outside.mkdir()
    side.symlink_to(outside / "target")
    _answers_and_refuses(runner, group.root, (
        f"{side}: {what} is a symbolic link, which kistore does not write through; the index "
        f"is derived (deleting it loses nothing): remove the link (`rm {side}`) and run "
        "`kistore reindex`"), caplog)
    assert list(outside.iterdir()) == []  # nothing made at the link's target
    assert not path.exists()
    side.unlink()
    assert run(runner, group.root, "reindex").exit_code == 0
    assert run(runner, group.root, "reindex", "--check").exit_code == 0


@pytest.mark.parametrize("suffix", ["-wal", "-shm"])
def test_a_directory_beside_the_index_file_is_said(runner, group, suffix, caplog):
    path = _emptied(group.root)
    side = Path(f"{path}{suffix}")
    side.mkdir()
    what = "write-ahead log" if suffix == "-wal" else "shared-memory file"
    _answers_and_refuses(runner, group.root, (
        f"{side}: the index's {what} is a directory, which kistore does not open or replace; "
        f"the index is derived (deleting it loses nothing): remove it (`rm -r {side}`) and "
        "run `kistore reindex`"), caplog)


def test_a_file_at_the_index_directory_is_said(runner, group, caplog):
    path = _emptied(group.root)
    path.parent.rmdir()
    path.parent.write_bytes(b"not a directory\n")
    _answers_and_refuses(runner, group.root, (
        f"{path.parent}: the index directory is a file, not a directory, which kistore does "
        "not replace; the index is derived (deleting it loses nothing): remove it "
        f"(`rm {path.parent}`) and run `kistore reindex`"), caplog)
    assert path.parent.read_bytes() == b"not a directory\n"
    path.parent.unlink()
    assert run(runner, group.root, "reindex").exit_code == 0


@pytest.mark.parametrize("how", ["directory", "symlink"])
def test_a_query_that_reads_the_store_instead_says_why_once(runner, group, tmp_path, how,
                                                           caplog):
    # on main the query answered silently from the store, each time (slower, no reason)
    path = _emptied(group.root)
    if how == "directory":
        path.mkdir()
        said = (f"{path}: the index file is a directory, which kistore does not open or "
                "replace; the index is derived (deleting it loses nothing): remove it "
                f"(`rm -r {path}`) and run `kistore reindex`")
    else:
        path.symlink_to(tmp_path / "elsewhere.sqlite")
        said = (f"{path}: the index file is a symbolic link, which kistore does not write "
                "through; the index is derived (deleting it loses nothing): remove the link "
                f"(`rm {path}`) and run `kistore reindex`")
    _answers_and_refuses(runner, group.root, said, caplog)


def test_the_warning_is_on_stderr_of_a_real_process(group):
    path = _emptied(group.root)
    path.mkdir()
    done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(group.root), "rank",
                           "BenchmarkRun/fast"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "2 ranked" in done.stdout
    assert done.stderr == (
        f"warning: {path}: the index file is a directory, which kistore does not open or "
        "replace; the index is derived (deleting it loses nothing): remove it "
        f"(`rm -r {path}`) and run `kistore reindex`{FALLBACK}\n")


def test_an_open_checks_the_paths_once(group, monkeypatch):
    # index72 leftover: connection() checked them, then the lock file's first use again
    path = _emptied(group.root)
    looked = []
    real = database.refuse_odd_path
    monkeypatch.setattr(database, "refuse_odd_path", lambda p: (looked.append(p), real(p)))
    database.connection(path)
    assert looked == [path]
    database.disconnect()  # the lock is let go: the next open makes its lock file again
    looked.clear()
    database.connection(path)
    assert looked == [path]
    del database._CONNECTIONS[str(path)]  # a file replaced: reopened, the lock still held
    looked.clear()
    database.connection(path)
    assert looked == [path]


def _odd(path: Path) -> str | None:
    """Return ``refuse_odd_path``'s ``filename: strerror``, or None when it refuses nothing."""
    try:
        database.refuse_odd_path(path)
    except database.OddIndexPath as e:
        return f"{e.filename}: {e.strerror}"
    return None


@pytest.mark.parametrize("look", ["listed", "looked up"])
def test_each_odd_entry_is_refused_the_same_by_a_listing_and_by_lstat(tmp_path, monkeypatch,
                                                                     look):
    # tidy75: one listing of the directory instead of an lstat a path; a directory that
    # cannot be listed (here: opened for writing, EISDIR) is looked at an lstat a path
    if look == "looked up":
        monkeypatch.setattr(database, "_DIRECTORY_FLAGS", database.os.O_WRONLY)
    path = tmp_path / ".git" / "kistore" / "index.sqlite"
    assert _odd(path) is None  # no directory yet: created
    path.parent.mkdir(parents=True)
    for other in ("index.sqlite.bak", "index.sqlite-journal", "names"):  # not the index's
        (path.parent / other).mkdir()
    assert _odd(path) is None
    for suffix in ("", ".lock"):
        Path(f"{path}{suffix}").write_bytes(b"")
    assert _odd(path) is None
    os.mkfifo(f"{path}-wal")
    wal = f"{path}-wal"
    assert _odd(path) == (
        f"{wal}: the index's write-ahead log is not a regular file, which kistore does not "
        f"open or replace; the index is derived (deleting it loses nothing): remove it "
        f"(`rm -r {wal}`) and run `kistore reindex`")
    os.unlink(wal)
    Path(f"{path}-shm").symlink_to(path)  # a link to a regular file is still a link
    shm = f"{path}-shm"
    assert _odd(path) == (
        f"{shm}: the index's shared-memory file is a symbolic link, which kistore does not "
        f"write through; the index is derived (deleting it loses nothing): remove the link "
        f"(`rm {shm}`) and run `kistore reindex`")
    path.unlink()
    path.mkdir()  # two odd entries: the index file's is said first, as before
    assert _odd(path) == (
        f"{path}: the index file is a directory, which kistore does not open or replace; "
        f"the index is derived (deleting it loses nothing): remove it (`rm -r {path}`) and "
        "run `kistore reindex`")


def test_a_link_or_file_at_the_index_directory_is_refused(tmp_path):
    path = tmp_path / ".git" / "kistore" / "index.sqlite"
    path.parent.parent.mkdir()
    (tmp_path / "real").mkdir()
    path.parent.symlink_to(tmp_path / "real")  # to a directory: still a link, not listed
    assert _odd(path) == (
        f"{path.parent}: the index directory is a symbolic link, which kistore does not "
        "write through; the index is derived (deleting it loses nothing): remove the link "
        f"(`rm {path.parent}`) and run `kistore reindex`")
    path.parent.unlink()
    os.mkfifo(path.parent)
    assert _odd(path) == (
        f"{path.parent}: the index directory is a file, not a directory, which kistore does "
        "not replace; the index is derived (deleting it loses nothing): remove it "
        f"(`rm {path.parent}`) and run `kistore reindex`")
