"""``hashes_trusted``: the gate's reads skip libgit2's re-hashing, and only inside the block.

libgit2 hashes every object it reads again (strict hash verification); git hashes an object
when it receives or writes it. ``kistore check`` reads objects that arrived so and runs inside
:func:`kistore.git.opening.hashes_trusted` (docs/speed.md, "The gate at 1,000,000 on a
repacked server"); ``verify`` and every other command keep the check. The option is
process-wide, so the block must put it back: a process that runs the gate and then reads
tampered bytes (a test run, a Python caller) must still be refused.
"""

from __future__ import annotations

import os
import zlib

import pygit2
import pytest

from kistore.git.opening import hashes_trusted

from ..conftest import git


def _swapped_blob(tmp_path) -> tuple[str, pygit2.Oid]:
    """A bare repository whose loose blob ``good!`` holds the bytes of ``evil!`` (zlib intact)."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    oid = repo.create_blob(b"good!")
    path = os.path.join(repo.path, "objects", str(oid)[:2], str(oid)[2:])
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(zlib.compress(b"blob 5\0evil!"))  # same header, other bytes: only a hash tells
    return repo.path, oid


def test_libgit2_refuses_swapped_bytes_by_default(tmp_path):
    path, oid = _swapped_blob(tmp_path)
    with pytest.raises(pygit2.GitError, match="hash mismatch"):
        pygit2.Repository(path)[oid]


def test_inside_the_block_the_bytes_are_read_as_stored(tmp_path):
    path, oid = _swapped_blob(tmp_path)
    with hashes_trusted():
        assert pygit2.Repository(path)[oid].data == b"evil!"


def test_after_the_block_libgit2_hashes_again(tmp_path):
    path, oid = _swapped_blob(tmp_path)
    with hashes_trusted():
        pass
    with pytest.raises(pygit2.GitError, match="hash mismatch"):
        pygit2.Repository(path)[oid]  # a fresh repository: no cached object to hide it


def test_an_error_inside_the_block_puts_it_back(tmp_path):
    path, oid = _swapped_blob(tmp_path)
    with pytest.raises(RuntimeError), hashes_trusted():
        raise RuntimeError("the gate failed")
    with pytest.raises(pygit2.GitError, match="hash mismatch"):
        pygit2.Repository(path)[oid]


@pytest.mark.parametrize("how", [["HEAD..HEAD"], ["--updates", "-"], ["--unpushed", "origin"]])
def test_check_turns_it_off_once_for_the_command_and_verify_never(runner, record_store,
                                                                  monkeypatch, how):
    # `check` says it once, around whichever of its three ways it is given commits (mend00:
    # each way had its own block); `verify` vouches for the bytes on disk and keeps it on
    from kistore.cli import main

    root = str(record_store.root)
    git(record_store.root, "remote", "add", "origin", root)
    settings = type(pygit2.settings)
    real = settings.enable_strict_hash_verification
    said: list[bool] = []

    def enable(self, value):
        said.append(value)
        return real(self, value)

    monkeypatch.setattr(settings, "enable_strict_hash_verification", enable)
    done = runner.invoke(main, ["--store", root, "check", *how], input="")
    assert done.exit_code == 0, done.output
    assert said == [False, True]
    said.clear()
    assert runner.invoke(main, ["--store", root, "verify"]).exit_code == 0
    assert said == []
