"""A site build stopped at any moment leaves ``OUT`` the whole old site or the whole new one.

Review 2026-12-03 (review73): Ctrl-C of an incremental build into a mount-point ``OUT``
(staged inside it, files renamed in one by one) left a half-updated site whose
``build.json`` named the old commit (F13); SIGTERM in the last moment said "interrupted",
exit 130, of a site already replaced, and left ``OUT.tmp-*`` that no build removed (F9).
Now the install is a commit point (:mod:`kistore.site.install`): signals are held over it,
and a journal lets the next build finish one that ``kill -9`` or a disk error cut short.

Each test stops the install after ``k`` of its moves, by a real signal (in this process,
and by SIGTERM and SIGKILL in a child process), by an exception standing in for the
process's death, or by a disk error, then compares every file with a build that was
never stopped.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core.errors import InputError
from kistore.site import render
from kistore.site.build import CACHE_FILE, build_site, verify_site
from kistore.site.install import JOURNAL, recover
from kistore.site.staging import MARKER
from kistore.store import Store

from .conftest import build, copy_site, files, tree
from .demo import add_run, as_fetched

STAGED = re.compile(r"(\.tmp-|\.kistore-staging-)[0-9a-f]{8}(/|$)")
"""A path in (or of) a staging directory."""


def verify(runner, store: Store, out: Path, *args: str):
    return runner.invoke(main, ["--store", str(store.root), "site", "verify", str(out), *args])


def stray(out: Path) -> list[str]:
    """Staging directories and journals beside or inside ``out`` (none after a build)."""
    beside = [p.name for p in out.parent.iterdir() if p.name.startswith(out.name + ".")]
    inside = [p.name for p in out.iterdir() if p.name.startswith(".kistore-")
              and p.name != CACHE_FILE]
    return sorted(beside + inside)


def as_mount_point(out: Path, monkeypatch) -> None:
    """Make ``out`` look like a mount point: the build stages inside it, renames one by one."""
    mount_point = os.path.realpath(out)
    is_mount = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda p: p == mount_point or is_mount(p))


def on_move(monkeypatch, when: str | int, act) -> list[str]:
    """Call ``act()`` as the install makes move ``when`` out of staging; return the moves.

    ``when``: ``first``, ``sixth``, ``build.json``, ``cache`` (the last move) or the
    move's index.
    """
    moves: list[str] = []
    replace = os.replace

    def counted(src, dst, *args, **kwargs):
        src, dst = os.fspath(src), os.fspath(dst)
        if STAGED.search(src) and not STAGED.search(dst):
            name = os.path.basename(dst)
            if (when, len(moves)) in (("first", 0), ("sixth", 5)) or when == len(moves) \
                    or name == {"build.json": "build.json", "cache": CACHE_FILE}.get(when):
                act()
            moves.append(dst)
        return replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", counted)
    return moves


def prepare(runner, store: Store, tmp_path: Path, monkeypatch, where: str):
    """``(OUT, reference, OUT's files before)``: OUT built at HEAD (unless ``fresh``), a run
    added, the reference built at the new HEAD; ``mount``: OUT stages inside itself."""
    out, reference = tmp_path / "site", tmp_path / "reference"
    out.mkdir()
    if "mount" in where:
        as_mount_point(out, monkeypatch)
    if "fresh" not in where:
        assert build(runner, store, out).exit_code == 0
    old = tree(out)
    add_run(store, "gemm-late", 120_000)
    as_fetched(store)  # its permalinks on a remote's main line: no warning of them
    assert build(runner, store, reference).exit_code == 0
    # as in a new process: a build's Landing notes signals "to the exit", which in this
    # process outlives the command (the autouse fixture restores the handlers after)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return out, reference, old


def assert_new(runner, store: Store, out: Path, reference: Path) -> None:
    """``out`` is the reference byte for byte (its cache too), verifies, and has no strays."""
    assert files(out) == files(reference)
    assert (out / CACHE_FILE).read_bytes() == (reference / CACHE_FILE).read_bytes()
    assert stray(out) == []
    result = verify(runner, store, out)
    assert result.exit_code == 0, result.output


WHERE = ["beside", "mount", "fresh mount"]


@pytest.mark.parametrize("when", ["first", "sixth", "build.json", "cache"])
@pytest.mark.parametrize("where", WHERE)
def test_ctrl_c_during_the_install_lands_after_it_and_says_the_site_is_whole(
        runner, fresh_demo, tmp_path, monkeypatch, when, where):
    out, reference, _ = prepare(runner, fresh_demo, tmp_path, monkeypatch, where)
    moves = on_move(monkeypatch, when, lambda: os.kill(os.getpid(), signal.SIGINT))
    result = build(runner, fresh_demo, out)
    assert result.exit_code == 0, result.output
    assert len(moves) > 6 and moves[-2:] == [str(out / "build.json"), str(out / CACHE_FILE)]
    head = fresh_demo.repo.head.target
    assert result.stderr == f"interrupted after the new site was installed: {out} is the " \
        f"whole site of commit {head}; nothing was undone\n"
    assert_new(runner, fresh_demo, out, reference)


def test_ctrl_c_while_rendering_leaves_out_as_it_was(runner, fresh_demo, tmp_path,
                                                     monkeypatch):
    out, _, old = prepare(runner, fresh_demo, tmp_path, monkeypatch, "mount")
    calls = []
    real = render.render_json

    def ctrl_c_on_the_third_page(twin):
        calls.append(1)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return real(twin)

    monkeypatch.setattr(render, "render_json", ctrl_c_on_the_third_page)
    result = build(runner, fresh_demo, out)
    assert (result.exit_code, result.stderr) == (
        130, f"interrupted before the new site was installed: {out} is as it was (nothing "
        "of this build is in it); build again to update it\n")
    assert len(calls) == 3
    assert tree(out) == old  # every byte and mtime
    assert stray(out) == []


class Killed(BaseException):
    """Stands for the process's death: nothing of the build runs after it but ``finally``
    blocks, which release the staging directory's lock as the kernel would."""


def die() -> None:
    raise Killed


@pytest.mark.parametrize("when", ["first", "sixth", "build.json", "cache"])
@pytest.mark.parametrize("where", WHERE)
def test_a_build_killed_during_the_install_is_finished_by_the_next(
        runner, fresh_demo, tmp_path, monkeypatch, when, where):
    out, reference, _ = prepare(runner, fresh_demo, tmp_path, monkeypatch, where)
    on_move(monkeypatch, when, die)
    with pytest.raises(Killed):
        build_site(fresh_demo, out)
    assert (out / JOURNAL).is_file()
    (staged,) = (out if "mount" in where else tmp_path).glob("*.*-[0-9a-f]*[0-9a-f]")
    assert (staged / MARKER).is_file()  # kept: the journal moves what is left from it
    refused = verify(runner, fresh_demo, out)
    assert refused.exit_code == 1
    assert f"{out / JOURNAL}: the install of the last build into this site was cut short " \
        "(the build was killed, or a disk error stopped it): some pages are new, some old" \
        in refused.stderr
    assert f"run `kistore site build {out}` to finish that install" in refused.stderr
    with pytest.raises(InputError, match="cut short"):
        verify_site(fresh_demo, out)
    monkeypatch.setattr(os, "replace", REPLACE)
    report = build_site(fresh_demo, out)
    assert (report.rendered, report.written) == (0, [])  # the journal did it all
    assert_new(runner, fresh_demo, out, reference)


REPLACE = os.replace


def test_a_build_killed_at_every_move_of_its_install_is_rolled_forward(
        runner, fresh_demo, tmp_path, monkeypatch):
    """Every k: killed after k moves, ``recover`` alone (no render) makes it the new site."""
    out, reference, _ = prepare(runner, fresh_demo, tmp_path, monkeypatch, "mount")
    pristine = copy_site(out, tmp_path / "pristine")
    counted = on_move(monkeypatch, -1, die)
    build_site(fresh_demo, out)
    total = len(counted)
    assert total > 10 and files(out) == files(reference)
    shutil.rmtree(out)
    copy_site(pristine, out)
    for k in range(total):
        moves = on_move(monkeypatch, k, die)
        with pytest.raises(Killed):
            build_site(fresh_demo, out)
        assert len(moves) == k
        monkeypatch.setattr(os, "replace", REPLACE)
        assert recover(out) is True
        assert files(out) == files(reference), k
        assert (out / CACHE_FILE).read_bytes() == (reference / CACHE_FILE).read_bytes()
        assert stray(out) == []
        shutil.rmtree(out)
        copy_site(pristine, out)
    assert verify(runner, fresh_demo, out, "--at", "HEAD~1").exit_code == 0  # the old site


CHILD = """
import os, sys
import pytest
from tests.site.test_interrupted_build import as_mount_point, on_move
from kistore.cli import main
when, number, where, *args = sys.argv[1:]
patch = pytest.MonkeyPatch()
if where == "mount":
    as_mount_point(args[-1], patch)
on_move(patch, when, lambda: os.kill(os.getpid(), int(number)))
main(args=args, prog_name="kistore")
"""
"""A ``kistore`` process that sends itself a signal as its install makes move ``when``."""


def child(store: Store, out: Path, when: str, number: int, where: str):
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", CHILD, when, str(number), where, "--store", str(store.root),
         "site", "build", str(out)], capture_output=True, text=True, env=env, cwd=root,
        timeout=600)


@pytest.mark.parametrize("where", ["beside", "mount"])
def test_sigterm_in_the_last_moment_says_the_site_was_installed_exit_0(
        runner, fresh_demo, tmp_path, monkeypatch, where):
    # F9: SIGTERM as build.json moved in said "interrupted", exit 130, of a replaced site
    out, reference, _ = prepare(runner, fresh_demo, tmp_path, monkeypatch, where)
    done = child(fresh_demo, out, "build.json", signal.SIGTERM, where)
    assert done.returncode == 0, done.stderr
    head = fresh_demo.repo.head.target
    assert done.stderr == f"interrupted after the new site was installed: {out} is the " \
        f"whole site of commit {head}; nothing was undone\n"
    assert_new(runner, fresh_demo, out, reference)


def test_kill_9_during_the_install_is_finished_by_the_next_build(
        runner, fresh_demo, tmp_path, monkeypatch):
    out, reference, _ = prepare(runner, fresh_demo, tmp_path, monkeypatch, "mount")
    killed = child(fresh_demo, out, "sixth", signal.SIGKILL, "mount")
    assert killed.returncode == -signal.SIGKILL
    assert (out / JOURNAL).is_file() and len(list(out.glob(".kistore-staging-*"))) == 1
    assert verify(runner, fresh_demo, out).exit_code == 1  # cut short: says to build
    done = build(runner, fresh_demo, out, "--json")
    assert done.exit_code == 0, done.output
    assert '"written": []' in done.stdout  # the journal moved them: nothing rendered again
    assert_new(runner, fresh_demo, out, reference)


def test_a_disk_error_during_the_install_says_so_and_the_retry_finishes_it(
        runner, fresh_demo, tmp_path, monkeypatch):
    out, reference, _ = prepare(runner, fresh_demo, tmp_path, monkeypatch, "mount")

    def full():
        raise OSError(errno.ENOSPC, "No space left on device", "x")

    moves = on_move(monkeypatch, "sixth", full)
    failed = build(runner, fresh_demo, out)
    assert failed.exit_code == 1 and len(moves) == 5
    assert failed.stderr == (
        f"error: {out / JOURNAL}: the install of the new site was cut short (x: No space "
        "left on device): some pages are new, some old; free the space or fix the cause, "
        f"then run `kistore site build {out}` again: it finishes this install first (the "
        f"journal {JOURNAL} lists what is left)\n")
    assert "nothing was left half-written" not in failed.output
    monkeypatch.setattr(os, "replace", REPLACE)
    retry = build(runner, fresh_demo, out)
    assert retry.exit_code == 0, retry.output
    assert_new(runner, fresh_demo, out, reference)


def test_the_next_build_removes_only_the_leftovers_provably_a_builds(
        runner, fresh_demo, tmp_path):
    out = tmp_path / "site"
    assert build(runner, fresh_demo, out).exit_code == 0

    def left(name: str, *, marker: bool, file: bool, parent: Path = tmp_path) -> Path:
        path = parent / name
        (path / "groups" / "g").mkdir(parents=True)
        if marker:
            (path / MARKER).write_text("")
        if file:
            (path / "groups" / "g" / "index.html").write_text("half")
        return path

    killed = left("site.tmp-0123abcd", marker=True, file=True)  # a killed build's
    emptied = left("site.tmp-89abcdef", marker=False, file=False)  # an old kistore's: F9
    unknown = left("site.tmp-deadbeef", marker=False, file=True)  # whose? kept
    not_ours = left("site.tmp-xyz", marker=True, file=True)  # not a build's name
    running = left("site.tmp-feedf00d", marker=True, file=True)  # a build still running
    inside = left(".kistore-staging-0badc0de", marker=True, file=True, parent=out)
    probe = out / ".kistore-staging-12345678"  # a killed build's rename probe: empty
    probe.mkdir()
    gone = subprocess.Popen(["true"])
    gone.wait()
    journal_temp = out / f"{JOURNAL}.{gone.pid}.tmp"  # killed while writing its journal
    journal_temp.write_text("{")
    live_temp = out / f"{JOURNAL}.{os.getppid()}.tmp"  # a live process's: kept
    live_temp.write_text("{")
    result = verify(runner, fresh_demo, out)
    assert result.exit_code == 1
    assert f"{out}/.kistore-staging-0badc0de: leftover (a fresh build of " in result.stderr
    assert "has none: a stopped build's staging directory; the next `site build` removes " \
        "it)" in result.stderr
    assert result.stderr.count(".kistore-staging-0badc0de") == 1  # one line, not a file each
    fd = os.open(running, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert build(runner, fresh_demo, out).exit_code == 0
    finally:
        os.close(fd)
    assert not killed.exists() and not emptied.exists() and not inside.exists()
    assert not probe.exists() and not journal_temp.exists()
    assert live_temp.is_file()
    live_temp.unlink()
    assert (unknown / "groups" / "g" / "index.html").read_text() == "half"
    assert not_ours.is_dir() and (running / MARKER).is_file()
    assert verify(runner, fresh_demo, out).exit_code == 0


@pytest.mark.parametrize("number", [errno.EACCES, errno.EROFS, errno.EXDEV])
def test_a_site_whose_parent_is_read_only_or_another_mount_is_staged_inside_it(
        runner, fresh_demo, tmp_path, monkeypatch, number):
    # /var/www/site writable, /var/www not (EACCES); F11: /var/www read-only (EROFS, not a
    # PermissionError), or a bind mount ismount() does not see (a rename into it: EXDEV)
    out = tmp_path / "site"
    assert build(runner, fresh_demo, out).exit_code == 0
    add_run(fresh_demo, "gemm-late", 120_000)
    reference = tmp_path / "reference"
    assert build(runner, fresh_demo, reference).exit_code == 0
    made = []
    mkdir, rename, replace = os.mkdir, os.rename, os.replace

    def refuse_beside(path, *args, **kwargs):
        if os.path.dirname(path) == str(tmp_path) and number != errno.EXDEV:
            raise OSError(number, os.strerror(number), path)
        made.append(os.path.relpath(path, out))
        return mkdir(path, *args, **kwargs)

    def across_mounts(move):
        def moved(src, dst, *args, **kwargs):
            beside = str(tmp_path / "site.tmp-")
            if number == errno.EXDEV and beside in os.fspath(src) \
                    and beside not in os.fspath(dst):
                raise OSError(errno.EXDEV, "Invalid cross-device link", src)
            return move(src, dst, *args, **kwargs)
        return moved

    monkeypatch.setattr(os, "mkdir", refuse_beside)
    monkeypatch.setattr(os, "rename", across_mounts(rename))
    monkeypatch.setattr(os, "replace", across_mounts(replace))
    again = build(runner, fresh_demo, out)
    assert again.exit_code == 0, again.output
    staged = sorted(m for m in made if "/" not in m and ("staging" in m or ".tmp-" in m))
    assert staged[-1].startswith(".kistore-staging-")  # inside the site, at last
    assert files(out) == files(reference)
    assert stray(out) == []


def test_a_fresh_build_that_fails_removes_the_folders_it_made_on_the_way(
        runner, fresh_demo, tmp_path, monkeypatch):
    out = tmp_path / "a" / "b" / "site"

    def damaged(twin):
        raise OSError(errno.EIO, "Input/output error", "somewhere")

    monkeypatch.setattr(render, "render_json", damaged)
    failed = build(runner, fresh_demo, out)
    assert failed.exit_code == 1
    assert failed.stderr == "error: somewhere: Input/output error; nothing was left " \
        "half-written\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]  # no a/, no a/b/
