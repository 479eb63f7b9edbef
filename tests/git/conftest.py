"""Fixtures of the git layer's tests."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest


@pytest.fixture
def no_git_config(tmp_path, monkeypatch) -> Path:
    """No git configuration or ignore rule but what a test writes: an empty home (returned),
    no ``GIT_CONFIG_*`` variable, no system file."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL",
                 "GIT_CONFIG_SYSTEM"):
        monkeypatch.delenv(name, raising=False)
    return home


def commit_writes_failing(monkeypatch, times: int, blocker: str = "vanished"
                          ) -> list[tuple[str, bool]]:
    """Make the next ``times`` ``Repository.create_commit`` calls fail to write their commit.

    The race, made deterministic: git's ``prune-packed`` removing the commit's fan-out
    directory between libgit2's ``mkdir`` and its rename. For the call, that directory is a
    symlink to nothing (``blocker="vanished"``: libgit2's ``mkdir`` finds it, its ``stat``
    says "No such file or directory", the race's error) or an empty regular file
    (``"file"``: "directory exists", another failure); objects already in the directory
    are set aside meanwhile and put back after. libgit2 itself is called, and returns.

    Returns:
        For each failed call: the id libgit2 returned, and whether that object was on disk
        right after the call (it never was: libgit2 returns the id of an unwritten commit).
    """
    real = pygit2.Repository.create_commit
    failed: list[tuple[str, bool]] = []

    def create_commit(self, update_ref, author, committer, message, tree, parents):
        if len(failed) >= times:
            return real(self, update_ref, author, committer, message, tree, parents)
        body = self.create_commit_string(author, committer, message, tree, parents).encode()
        oid = hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()
        with _blocked(Path(self.path), oid, blocker):
            got = real(self, update_ref, author, committer, message, tree, parents)
        failed.append((str(got), _loose_file(Path(self.path), oid).exists()))
        return got

    monkeypatch.setattr(pygit2.Repository, "create_commit", create_commit)
    return failed


def note_commits_failing(monkeypatch, times: int, blocker: str = "vanished"
                         ) -> list[tuple[str, str, bool]]:
    """Make the next ``times`` note writes (``create_note``, ``Note.remove``) fail their commit.

    As :func:`commit_writes_failing`, for the notes commit libgit2 writes inside
    ``git_note_create`` / ``git_note_remove`` and then moves the notes ref to. Its id is
    learnt by the same call made first on a throwaway ref (the signature passed in holds
    its time: the same commit), whose loose file is then removed; the call itself then
    runs with that commit's fan-out directory blocked. libgit2 itself is called: it raises
    "target OID for the reference doesn't exist on the repository" (its ref move's check;
    the write's own error is dropped) and leaves the ref where it was.

    Returns:
        For each failed call: the note call ("create_note" or "remove"), the commit id,
        and whether that commit was on disk right after (never).
    """
    real_create, real_lookup = pygit2.Repository.create_note, pygit2.Repository.lookup_note
    failed: list[tuple[str, str, bool]] = []

    def failing(repo: pygit2.Repository, what: str, ref: str, call) -> None:
        if len(failed) >= times:
            return call(ref)
        probe = f"refs/notes/probe-{len(failed)}"
        held = repo.references.get(ref)
        if held is not None:
            repo.references.create(probe, held.target, force=True)
        call(probe)
        oid = str(repo.references[probe].target)
        repo.references.delete(probe)
        _loose_file(Path(repo.path), oid).unlink()
        try:
            with _blocked(Path(repo.path), oid, blocker):
                return call(ref)
        finally:
            failed.append((what, oid, _loose_file(Path(repo.path), oid).exists()))

    def create_note(self, message, author, committer, annotated, ref, force=False):
        return failing(self, "create_note", ref, lambda to: real_create(
            self, message, author, committer, annotated, to, force))

    class _Note:  # pygit2's Note is immutable: its remove is reached through this
        def __init__(self, repo, note):
            self._repo, self._note = repo, note

        def __getattr__(self, name):
            return getattr(self._note, name)

        def remove(self, author, committer, ref):
            return failing(self._repo, "remove", ref, lambda to: real_lookup(
                self._repo, str(self._note.annotated_id), to).remove(author, committer, to))

    def lookup_note(self, annotated, ref):
        return _Note(self, real_lookup(self, annotated, ref))

    monkeypatch.setattr(pygit2.Repository, "create_note", create_note)
    monkeypatch.setattr(pygit2.Repository, "lookup_note", lookup_note)
    return failed


def _loose_file(git_dir: Path, oid: str) -> Path:
    """Where git keeps object ``oid`` loose."""
    return git_dir / "objects" / oid[:2] / oid[2:]


@contextlib.contextmanager
def _blocked(git_dir: Path, oid: str, blocker: str) -> Iterator[None]:
    """Block the fan-out directory of ``oid`` meanwhile (see :func:`commit_writes_failing`)."""
    fan_out = _loose_file(git_dir, oid).parent
    aside = fan_out.with_name(f"{oid[:2]}.aside")
    if fan_out.exists():
        # prune-packed removes only objects a pack holds: pack them first, else a write
        # needing one (a note's blob or tree sharing the commit's two hex digits, ~1 call
        # in 100) met the blocker itself, in another error (ci145, ci152)
        held = "".join(f"{oid[:2]}{name.name}\n" for name in fan_out.iterdir()
                       if len(name.name) == 38)
        if held:
            subprocess.run(["git", "--git-dir", str(git_dir), "pack-objects", "-q",
                            str(git_dir / "objects" / "pack" / "pack")], input=held,
                           text=True, check=True, capture_output=True)
        fan_out.rename(aside)
    if blocker == "vanished":
        fan_out.symlink_to(f"{oid[:2]}.gone")
    else:
        fan_out.write_bytes(b"")
    try:
        yield
    finally:
        fan_out.unlink()
        if aside.exists():
            aside.rename(fan_out)


@contextlib.contextmanager
def pack_refs_beside(monkeypatch, git_dir: Path, tries: int, *, lock: str | None = None
                     ) -> Iterator[list[int]]:
    """Make the next ``tries`` tries of a private-ref write meet a `git gc`'s ``pack-refs``.

    The race, made deterministic: ``git pack-refs --prune`` deletes each loose ref it packed
    under that ref's lock and removes the directories it leaves empty (``refs/kistore/``).
    With ``lock`` None, ``refs/kistore/`` is a symlink to nothing meanwhile (what libgit2
    meets when the directory it made is removed before its lock file goes in: its
    ``mkdir`` finds a name, its ``stat`` none, "No such file or directory"); else the lock
    file ``<lock>.lock`` exists (``lock`` a ref name, or ``packed-refs``: pack-refs holding
    it, "failed to lock file ... for writing"). What ``refs/kistore/`` held is set aside
    meanwhile. The blocker goes at the ``tries``-th pause :func:`kistore.git._loose.written`
    makes between tries (the gc finishing), or when the block ends. libgit2 itself writes.

    Yields:
        The pauses made, each one's try number (0 first), filled as they are made.
    """
    from kistore.git import _loose

    kistore = git_dir / "refs" / "kistore"
    aside = kistore.with_name("kistore.aside")
    blocker = kistore if lock is None else git_dir / f"{lock}.lock"
    if lock is None:
        if kistore.exists():
            kistore.rename(aside)
        kistore.symlink_to("kistore.gone")
    else:
        blocker.parent.mkdir(parents=True, exist_ok=True)
        blocker.write_bytes(b"")
    pauses: list[int] = []
    lifted: list[bool] = []

    def lift() -> None:
        if lifted:  # once: the write after it made what the blocker stood for
            return
        lifted.append(True)
        blocker.unlink()
        if aside.exists():
            aside.rename(kistore)

    def pause(attempt: int) -> None:
        pauses.append(attempt)
        if len(pauses) == tries:
            lift()

    monkeypatch.setattr(_loose, "_pause", pause, raising=False)  # a kistore with none: kept
    try:
        yield pauses
    finally:
        lift()


def gc_loop(repo: Path, commands: str) -> subprocess.Popen[bytes]:
    """Run ``commands`` (git's housekeeping, a shell line) over and over in ``repo``.

    In a process group of its own, so that :func:`stop` ends the git child it is running
    too: a ``kill()`` of the shell alone left a ``git prune-packed`` running (flake97).
    """
    return subprocess.Popen(["sh", "-c", f"while :; do {commands}; done"], cwd=repo,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def stop(loop: subprocess.Popen[bytes]) -> None:
    """End a :func:`gc_loop`: its shell and the git command it runs, and wait for them."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(loop.pid, signal.SIGKILL)
    loop.wait()
