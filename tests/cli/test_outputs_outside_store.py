"""``export`` and ``site build`` never write into ``store/`` or ``.git`` (review 2026-12-02 F22).

Written there, an export made ``verify`` fail with 8 KI110 errors, a site with 18.
"""

from __future__ import annotations

import os

import pytest

from kistore.cli import main

from ..conftest import git

STORE_DIR = ("the store's store/ directory, which holds only its layout's files (`kistore "
             "verify` would report each new one)")


@pytest.mark.parametrize("command", [["export", "--format", "csv"], ["site", "build"]])
@pytest.mark.parametrize(("out", "what"), [
    ("store/x", STORE_DIR), ("store", STORE_DIR), ("store/objects/new/deeper", STORE_DIR),
    (".git/site", "the repository's git directory"),
])
def test_an_output_inside_the_store_is_refused(published, runner, monkeypatch, command, out,
                                               what):
    before = git(published, "status", "--porcelain", "--ignored")
    monkeypatch.chdir(published)
    done = runner.invoke(main, [*command, out])
    assert done.exit_code == 1, done.output
    assert done.output == f"error: {out}: is inside {what}; choose a directory outside it\n"
    assert git(published, "status", "--porcelain", "--ignored") == before
    assert not (published / ".git" / "site").exists()


def test_a_link_into_the_store_is_refused_too(published, runner, tmp_path):
    os.symlink(published / "store", tmp_path / "link")
    done = runner.invoke(main, ["--store", str(published), "export", "--format", "csv",
                                str(tmp_path / "link" / "x")])
    assert done.exit_code == 1
    assert f"is inside {STORE_DIR}" in done.output
    assert not (published / "store" / "x").exists()


def test_beside_the_store_is_fine(published, runner, tmp_path):
    done = runner.invoke(main, ["--store", str(published), "export", "--format", "csv",
                                str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
