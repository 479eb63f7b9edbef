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
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core.errors import InputError
from kistore.site import render
from kistore.site.build import CACHE_FILE, build_site, verify_site
from kistore.site.install import JOURNAL, MARKER, InstallCutShort
from kistore.store import Store

from .conftest import files
from .demo import add_run

STAGED = re.compile(r"(\.tmp-|\.kistore-staging-)[0-9a-f]{8}(/|$)")
"""A path in (or of) a staging directory."""


def build(runner, store: Store, out: Path, *args: str):
    return runner.invoke(main, ["--store", str(store.root), "site", "build", str(out), *args])


def verify(runner, store: Store, out: Path, *args: str):
    return runner.invoke(main, ["--store", str(store.root), "site", "verify", str(out), *args])


def tree(out: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``out`` (the cache too): its bytes and its mtime in ns."""
    return {p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*")) if p.is_file()}


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


def on_move(monkeypatch, when: str, act) -> list[str]:
    """Call ``act()`` as the install makes move ``when`` out of staging; return the moves.

    ``when``: ``first``, ``sixth``, ``build.json`` or ``cache`` (the last move).
    """
    moves: list[str] = []
    replace = os.replace

    def counted(src, dst, *args, **kwargs):
        src, dst = os.fspath(src), os.fspath(dst)
        if STAGED.search(src) and not STAGED.search(dst):
            name = os.path.basename(dst)
            if (when, len(moves)) in (("first", 0), ("sixth", 5)) \
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
