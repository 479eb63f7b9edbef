"""core/file_kinds: the words every finding and warning uses of a path that is no regular file."""

from __future__ import annotations

import os
import socket
import stat

from kistore.core.file_kinds import (
    DIRECTORY,
    FIFO,
    OTHER,
    SOCKET,
    SPECIAL,
    SUBMODULE,
    SYMLINK,
    file_kind,
    kind_at,
)


def test_each_mode_has_its_words():
    assert [file_kind(m) for m in (stat.S_IFIFO, stat.S_IFSOCK, stat.S_IFLNK, stat.S_IFDIR,
                                   stat.S_IFCHR, stat.S_IFBLK)] == [
        "a FIFO", "a socket", "a symbolic link", "a directory", "a character device",
        "a block device"]
    # git's tree modes carry the same file-type bits; a gitlink is a submodule
    assert [file_kind(m) for m in (0o120000, 0o040000, 0o160000)] == [
        SYMLINK, DIRECTORY, SUBMODULE]
    assert (SUBMODULE, file_kind(0)) == ("a submodule", OTHER)
    assert SPECIAL == {FIFO, SOCKET, "a character device", "a block device"}


def test_kind_at_looks_and_follows_only_when_told(tmp_path, monkeypatch):
    fifo, link, broken = tmp_path / "p", tmp_path / "l", tmp_path / "b"
    os.mkfifo(fifo)  # never opened: an open would wait for a writer for ever
    link.symlink_to(fifo)
    broken.symlink_to(tmp_path / "nothing")
    (tmp_path / "f").write_text("x")
    assert [kind_at(p) for p in (fifo, link, broken, tmp_path / "f", tmp_path,
                                 tmp_path / "nothing", tmp_path / "f" / "x")] == [
        FIFO, SYMLINK, SYMLINK, "", DIRECTORY, None, None]
    assert [kind_at(p, follow=True) for p in (fifo, link, broken)] == [FIFO, FIFO, None]
    monkeypatch.chdir(tmp_path)  # a socket's path is short (108 bytes at most)
    with socket.socket(socket.AF_UNIX) as s:
        s.bind("s")
        assert kind_at(tmp_path / "s") == SOCKET
