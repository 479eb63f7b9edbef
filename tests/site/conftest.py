"""Fixtures of the site tests: the demo store (tests' own manifests) and its built site."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.site.build import CACHE_FILE, build_site
from kistore.store import Store

from .browser import start
from .demo import build_demo_store


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (JavaScript on, alerts recorded)."""
    driver = start()
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> Store:
    """The demo store (:mod:`tests.site.demo`); shared by the session: never change it."""
    return build_demo_store(tmp_path_factory.mktemp("demo") / "store")


@pytest.fixture(scope="session")
def demo_site(demo_store, tmp_path_factory) -> Path:
    """The demo store's site, built once at HEAD; shared: never change it."""
    out = tmp_path_factory.mktemp("demo-site") / "site"
    build_site(demo_store, out)
    return out


@pytest.fixture
def fresh_demo(tmp_path) -> Store:
    """A demo store of this test's own (it may add commits)."""
    return build_demo_store(tmp_path / "store")


def files(out: Path) -> dict[str, bytes]:
    """Every file of a site (the build cache left out), by path relative to ``out``."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != CACHE_FILE}


def build(runner, store: Store, out: Path, *args: str):
    """Run ``kistore site build OUT ARGS`` on ``store`` (click's CliRunner result)."""
    return runner.invoke(main, ["--store", str(store.root), "site", "build", str(out), *args])


def tree(out: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``out`` (the cache too): its bytes and its mtime in ns."""
    return {p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*")) if p.is_file()}


def copy_site(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst
