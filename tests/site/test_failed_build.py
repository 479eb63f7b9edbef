"""A site build that fails halfway leaves ``OUT`` as it was, and the retry builds it whole.

Before 2026-12-02 (small73) a fresh ``kistore site build OUT`` that met a damaged object
halfway (a run's blob cut after the index listed it: the run page raises the read's error,
:meth:`kistore.site.snapshot.Snapshot.required`) left ``groups/``, ``index.html`` and
``index.json`` but no ``build.json`` in ``OUT``, and every retry was refused ("not empty
and holds no build.json"). Now every file goes to a staging directory beside ``OUT`` first.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.site.build import CACHE_FILE, build_site
from kistore.store import Store

from ..conftest import git
from .conftest import build, copy_site, files, tree
from .demo import add_run


def cut_run_object(store: Store, digest: str) -> tuple[str, Path, bytes]:
    """Cut the run's loose object file to 20 bytes: ``(object id, file, its whole bytes)``."""
    oid = git(store.root, "rev-parse",
              f"HEAD:{layout.object_path(Digest.from_str(digest))}").strip()
    path = store.root / ".git" / "objects" / oid[:2] / oid[2:]
    whole = path.read_bytes()
    assert zlib.decompress(whole).startswith(b"blob ")  # loose and whole before the cut
    path.chmod(0o644)
    path.write_bytes(whole[:20])
    return oid, path, whole


def built_files(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir())


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(out.name + "."))


@pytest.mark.parametrize("before", ["absent", "empty", "an empty mount point"])
def test_a_fresh_build_that_fails_leaves_out_as_it_was_and_the_retry_succeeds(
        runner, fresh_demo, tmp_path, before, monkeypatch):
    reference = tmp_path / "reference"
    assert build(runner, fresh_demo, reference).exit_code == 0  # and the index lists the run
    digest = add_run(fresh_demo, "gemm-late", 120_000)
    assert build(runner, fresh_demo, reference).exit_code == 0
    oid, path, whole = cut_run_object(fresh_demo, digest)
    out = tmp_path / "site"
    if before != "absent":
        out.mkdir()
    if before == "an empty mount point":  # staged inside it: its parent is another disk
        mount_point = os.path.realpath(out)
        is_mount = os.path.ismount
        monkeypatch.setattr(os.path, "ismount", lambda p: p == mount_point or is_mount(p))
    failed = build(runner, fresh_demo, out)
    assert failed.exit_code == 1, failed.output
    assert f"git object {oid} cannot be read (its loose object file is cut short" \
        in failed.stderr
    assert "internal error" not in failed.output
    if before == "absent":
        assert not out.exists()
    else:
        assert out.is_dir() and list(out.iterdir()) == []
    assert leftovers(out) == []  # the staging directory is gone too
    path.write_bytes(whole)
    retry = build(runner, fresh_demo, out)
    assert retry.exit_code == 0, retry.output
    assert files(out) == files(reference)  # the bytes of a build that never failed
    assert (out / CACHE_FILE).read_bytes() == (reference / CACHE_FILE).read_bytes()
    assert leftovers(out) == []
    assert built_files(out) == built_files(reference)  # no .kistore-staging-* left inside


def test_an_incremental_build_that_fails_leaves_the_old_site_untouched(
        runner, fresh_demo, tmp_path):
    out = tmp_path / "site"
    assert build(runner, fresh_demo, out).exit_code == 0
    old = tree(out)
    digest = add_run(fresh_demo, "gemm-late", 120_000)
    reference = tmp_path / "reference"
    assert build(runner, fresh_demo, reference).exit_code == 0  # the index lists the run
    oid, path, whole = cut_run_object(fresh_demo, digest)
    for args in ((), ("--full",)):
        failed = build(runner, fresh_demo, out, *args)
        assert failed.exit_code == 1, failed.output
        assert f"git object {oid} cannot be read" in failed.stderr
        assert tree(out) == old, args  # every byte and every mtime: nothing was written
        assert leftovers(out) == []
    verified = runner.invoke(main, ["--store", str(fresh_demo.root), "site", "verify",
                                    str(out), "--at", "HEAD~1"])
    assert verified.exit_code == 0, verified.output  # still exactly the old build
    path.write_bytes(whole)
    retry = build(runner, fresh_demo, out)
    assert retry.exit_code == 0, retry.output
    assert files(out) == files(reference)
    assert leftovers(out) == []


def test_a_linked_empty_out_keeps_its_link_and_its_mode(fresh_demo, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    os.chmod(target, 0o751)
    out = tmp_path / "link"
    out.symlink_to(target)
    build_site(fresh_demo, out)
    assert out.is_symlink() and (target / "build.json").is_file()
    assert os.stat(target).st_mode & 0o777 == 0o751
    assert files(out) == files(copy_site(target, tmp_path / "copy"))
    assert leftovers(target) == []
