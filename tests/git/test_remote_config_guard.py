"""A remote on this machine whose git config is a FIFO: refused, never waited on (fresh16 F6).

``kistore notes fetch/push REMOTE``, a path or ``file://`` remote whose ``config`` (or a
file it includes) is a FIFO, waited for ever, with no word: the ``git-upload-pack`` (or
``git-receive-pack``) git runs in that repository reads it first. Each test runs the
command as a child with a timeout: on the base it hangs (the timeout fails the test), now
it refuses with exit status 1, naming the file, what names it and the fix.

And a git child that is interrupted takes its own children with it: ``kill PID`` of a
``kistore notes push`` waiting on a remote's hook left ``sh -c git-receive-pack`` and the
hook behind, orphaned, for ever (fresh16 F6's ``git-upload-pack``, seen 7 minutes on).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kistore.attest import attestation, notes
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.git.child import run
from kistore.git.remote_config import local_git_dir
from kistore.store import Store
from tests.conftest import PUBLISHED, fixed_key, git
from tests.git.test_attr_guard import _env, _run  # the same child, timeout and environment


def _served(published: Path, tmp_path: Path, *, bare: bool = True) -> Path:
    """Clone the store as its remote ``origin``: bare (``srv.git``) or with a work tree."""
    server = tmp_path / ("srv.git" if bare else "srv")
    git(tmp_path, "clone", "-q", *(["--bare"] if bare else []), str(published), str(server))
    git(published, "remote", "add", "origin", str(server))
    return Path(os.path.realpath(server))


def _refusal(path: Path, what: str, fix: str, served: Path, push: bool,
             remote: str = "origin") -> str:
    """The refusal's line as the CLI prints it."""
    server = "git-receive-pack" if push else "git-upload-pack"
    return (f"error: {path}: {what} is a FIFO, not a regular file: {server}, which git runs "
            f"in {served} for remote {remote}, opens and reads it before anything else, "
            f"and would wait for ever; nothing was fetched or pushed. Remove it "
            f"(`rm {path}`){fix}, then run the command again\n")


def _refused(root: Path, tmp_path: Path, args: tuple[str, ...], expected: str) -> None:
    """Run ``args``: refused at once with ``expected``, exit 1, the notes refs unchanged."""
    before = git(root, "for-each-ref")
    done = _run(root, _env(tmp_path), *args)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", expected)
    assert git(root, "for-each-ref") == before


@pytest.mark.parametrize("command", ["fetch", "push"])
def test_an_include_of_a_bare_remotes_config_that_is_a_fifo_is_refused(
        published, tmp_path, command):
    server = _served(published, tmp_path)
    fifo = tmp_path / "fifo1"
    os.mkfifo(fifo)
    with (server / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {fifo}\n")  # fresh16 F6, as written
    _refused(published, tmp_path, ("notes", command, "origin"), _refusal(
        fifo, f"a git config included by {server}/config (include.path)",
        f" or delete its include line from {server}/config", server, command == "push"))


@pytest.mark.parametrize("command", ["fetch", "push"])
def test_a_bare_remotes_config_that_is_a_fifo_is_refused(published, tmp_path, command):
    server = _served(published, tmp_path)
    (server / "config").unlink()
    os.mkfifo(server / "config")
    _refused(published, tmp_path, ("notes", command, "origin"), _refusal(
        server / "config", "the git config of remote origin",
        f" and run `git init --bare {server}`, which writes a default one (set its settings "
        "again)", server, command == "push"))


def test_a_work_tree_remotes_config_that_is_a_fifo_is_refused(published, tmp_path):
    server = _served(published, tmp_path, bare=False)
    (server / ".git" / "config").unlink()
    os.mkfifo(server / ".git" / "config")
    _refused(published, tmp_path, ("notes", "fetch", "origin"), _refusal(
        server / ".git" / "config", "the git config of remote origin",
        f" and run `git -C {server} init`, which writes a default one (set its settings "
        "again)", server / ".git", False))


def test_an_include_if_of_the_remote_that_holds_there_is_refused(published, tmp_path):
    # judged for the remote's repository (its git directory, its branch), not this one
    server = _served(published, tmp_path, bare=False)
    fifo = tmp_path / "fifo1"
    os.mkfifo(fifo)
    branch = git(server, "symbolic-ref", "--short", "HEAD").strip()
    with (server / ".git" / "config").open("a") as config:
        config.write(f'[includeIf "gitdir:{server}/"]\n\tpath = {fifo}\n'
                     f'[includeIf "onbranch:{branch}"]\n\tpath = {fifo}\n')
    included = server / ".git" / "config"
    _refused(published, tmp_path, ("notes", "push", "origin"), _refusal(
        fifo, f"a git config included by {included} (includeIf.path)",
        f" or delete its includeIf line from {included}", server / ".git", True))


def test_the_global_configs_include_if_of_the_remotes_directory_is_refused(published,
                                                                          tmp_path):
    # false here, true for the git-upload-pack run in the remote's repository
    server = _served(published, tmp_path)
    fifo = tmp_path / "fifo1"
    os.mkfifo(fifo)
    env = _env(tmp_path)
    Path(env["GIT_CONFIG_GLOBAL"]).write_text(f'[includeIf "gitdir:{server}"]\n\tpath = {fifo}\n')
    done = _run(published, env, "notes", "fetch", "origin")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", _refusal(
        fifo, f"a git config included by {env['GIT_CONFIG_GLOBAL']} (includeIf.path)",
        f" or delete its includeIf line from {env['GIT_CONFIG_GLOBAL']}", server, False))


@pytest.mark.parametrize("how", ["path", "file URL", "path without .git"])
def test_a_remote_given_as_a_path_or_url_is_looked_at_too(published, tmp_path, how):
    server = _served(published, tmp_path)
    fifo = tmp_path / "fifo1"
    os.mkfifo(fifo)
    with (server / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {fifo}\n")
    remote = {"path": str(server), "file URL": f"file://{server}",
              "path without .git": str(server)[:-len(".git")]}[how]
    if how == "file URL":  # the configured remote's URL: git's answer, not the name's text
        git(published, "remote", "set-url", "origin", remote)
        remote = "origin"
    _refused(published, tmp_path, ("notes", "fetch", remote), _refusal(
        fifo, f"a git config included by {server}/config (include.path)",
        f" or delete its include line from {server}/config", server, False, remote))


def test_an_include_if_of_the_remote_that_does_not_hold_is_not_read(published, tmp_path):
    server = _served(published, tmp_path)
    fifo = tmp_path / "fifo1"
    os.mkfifo(fifo)
    with (server / "config").open("a") as config:
        config.write(f'[includeIf "gitdir:/nowhere/"]\n\tpath = {fifo}\n'
                     f'[includeIf "onbranch:nope"]\n\tpath = {fifo}\n')
    done = _run(published, _env(tmp_path), "notes", "fetch", "origin")
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize(("url", "found"), [
    ("{server}", "{server}"), ("{server}/", "{server}"), ("{bare}", "{server}"),
    ("file://{server}", "{server}"), ("file://localhost{server}", "{server}"),
    ("file://{spaced_url}", "{spaced}"), ("{work}", "{work}/.git"), ("{work}/.git", "{work}/.git"),
    ("srv.git", "{server}"), ("./srv", "{server}"), ("{linked}", "{work}/.git/worktrees/linked"),
    ("host:{server}", None), ("ssh://host{server}", None), ("https://host/srv.git", None),
    ("file://", None), ("{bundle}", None), ("{tmp}/nothing", None)])
def test_the_git_directory_git_upload_pack_serves_is_found_as_git_finds_it(tmp_path, url,
                                                                            found):
    server = tmp_path / "srv.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    spaced = tmp_path / "a b.git"
    git(tmp_path, "init", "-q", "--bare", str(spaced))
    work = tmp_path / "work"
    git(tmp_path, "init", "-q", str(work))
    git(work, "commit", "-q", "--allow-empty", "-m", "one")
    git(work, "worktree", "add", "-q", str(tmp_path / "linked"))
    git(work, "bundle", "create", "-q", str(tmp_path / "b.bundle"), "HEAD")
    names = {"server": str(server), "bare": str(tmp_path / "srv"), "work": str(work),
             "spaced": str(spaced), "spaced_url": str(spaced).replace(" ", "%20"),
             "linked": str(tmp_path / "linked"), "bundle": str(tmp_path / "b.bundle"),
             "tmp": str(tmp_path)}
    expected = None if found is None else Path(found.format(**names))
    assert local_git_dir(url.format(**names), str(tmp_path)) == expected
    if expected is not None:  # git's own answer: the repository it serves is that one
        done = subprocess.run(["git", "ls-remote", "--symref", url.format(**names), "HEAD"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def _no_reader(fifo: Path, seconds: float = 10.0) -> bool:
    """Whether no process holds ``fifo`` open to read (waits for killed ones to go).

    A reader left (the base) is unblocked: opened for writing and closed, it reads the end.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            assert e.errno == errno.ENXIO
            return True
        os.close(fd)  # a reader: it reads the end of the file and goes on
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)


def test_an_interrupted_push_leaves_no_git_process_behind(published, tmp_path):
    server = _served(published, tmp_path)
    store = Store(published)
    run_digest = Digest.from_str(PUBLISHED["run"])
    statement = attestation.make_statement(run_digest, layout.object_path(run_digest), "note",
                                           {"text": "hi", "createdAt": "2026-07-11T00:00:00Z"})
    notes.attach(store, run_digest, attestation.sign_statement(statement, fixed_key(3)).to_bytes())
    fifo, started = tmp_path / "hookfifo", tmp_path / "started"
    os.mkfifo(fifo)
    hook = server / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\n: > '{started}'\ncat '{fifo}' >/dev/null\n")
    hook.chmod(0o755)
    child = subprocess.Popen(
        [sys.executable, "-c", "import runpy; runpy.run_module('kistore', run_name='__main__')",
         "--store", str(published), "notes", "push", "origin"], cwd=published,
        env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert started.exists(), child.communicate(timeout=60)
        os.kill(child.pid, signal.SIGTERM)  # kistore's pid alone, as `kill PID` sends it
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert (child.returncode, out, err) == (130, "", "interrupted\n")
    assert _no_reader(fifo)  # the hook (and git-receive-pack, sh) killed with git


def test_a_git_child_that_times_out_is_killed_with_its_children(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(subprocess.TimeoutExpired):
        run(["sh", "-c", f"sh -c \"cat '{fifo}' >/dev/null; :\"; :"], timeout=1)
    assert _no_reader(fifo)  # subprocess.run killed the outer sh alone; the cat waited on
