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


def _untracked_refused(root, out: str, beside: str, line: str) -> str:
    """The message of an output inside the work tree git does not ignore (r85 F8)."""
    return (f"error: {out}: is inside the store's git work tree {root} and git does not "
            "ignore it: the files written there would be untracked, one `git add -A` would "
            "commit them beside the store, and `kistore check` judges only store/. Write it "
            f"outside the work tree (such as {beside}), or have git ignore it (a line "
            f"`{line}` in .gitignore), or pass --inside-work-tree to write it here anyway; "
            "nothing was written\n")


@pytest.mark.parametrize("command", [["export", "--format", "csv"], ["site", "build"]])
@pytest.mark.parametrize(("out", "line"), [("public", "/public/"),
                                           ("docs/site", "/docs/site/")])
def test_an_output_in_the_work_tree_git_does_not_ignore_is_refused(published, runner,
                                                                   monkeypatch, command, out,
                                                                   line):
    # r85 F8: `kistore site build public` from the store's top left ~8,000 untracked files
    # that `git add -A` committed, and the gate passed them.
    root = published.resolve()
    before = git(published, "status", "--porcelain", "--ignored")
    monkeypatch.chdir(published)
    done = runner.invoke(main, [*command, out])
    assert done.exit_code == 1, done.output
    beside = root.parent / out.rsplit("/", 1)[-1]
    assert done.output == _untracked_refused(root, out, beside, line)
    assert git(published, "status", "--porcelain", "--ignored") == before


def test_the_work_tree_itself_is_refused_with_no_ignore_line(published, runner,
                                                             monkeypatch):
    monkeypatch.chdir(published)
    done = runner.invoke(main, ["site", "build", "."])
    assert done.exit_code == 1
    assert done.output == (
        f"error: .: is inside the store's git work tree {published.resolve()} and git does "
        "not ignore it: the files written there would be untracked, one `git add -A` would "
        "commit them beside the store, and `kistore check` judges only store/. Write it "
        "outside the work tree, or pass --inside-work-tree to write it here anyway; nothing "
        "was written\n")


@pytest.mark.parametrize("command", [["export", "--format", "csv"], ["site", "build"]])
def test_an_output_git_ignores_is_written_and_git_add_takes_none_of_it(published, runner,
                                                                      monkeypatch, command):
    (published / ".gitignore").write_text("/public/\n")
    monkeypatch.chdir(published)
    done = runner.invoke(main, [*command, "public"])
    assert done.exit_code == 0, done.output
    assert (published / "public").is_dir()
    assert git(published, "status", "--porcelain") == "?? .gitignore\n"


@pytest.mark.parametrize("command", [["export", "--format", "csv"], ["site", "build"]])
def test_inside_work_tree_writes_there_when_asked(published, runner, monkeypatch, command):
    monkeypatch.chdir(published)
    done = runner.invoke(main, [*command, "--inside-work-tree", "public"])
    assert done.exit_code == 0, done.output
    assert git(published, "status", "--porcelain") == "?? public/\n"


def test_an_ignore_list_of_other_formats_does_not_let_json_lines_through(published, runner,
                                                                      monkeypatch):
    """A .gitignore of `*.parquet` and `*.csv` (and the export's own files) passed the
    in-work-tree check, which asked of those two formats' paths only, and `export --format
    jsonl` then wrote files git does not ignore (review of this session's change)."""
    (published / ".gitignore").write_text("*.parquet\n*.csv\n_manifest.json\n_state/\n")
    monkeypatch.chdir(published)
    done = runner.invoke(main, ["export", "--format", "jsonl", "out"])
    assert done.exit_code == 1, done.output
    assert "git does not ignore it" in done.output
    assert not (published / "out").exists()


@pytest.mark.parametrize("command", [["export", "--format", "csv"], ["site", "build"]])
def test_an_output_in_an_enclosing_stores_work_tree_is_refused(published, runner,
                                                                monkeypatch, command):
    # fresh98 LOW: a store made inside a kistore clone wrote `site build ../public` into
    # the clone's work tree, untracked there, the case "Build outside" warns of
    outer = published.parent
    git(outer, "init", "-q")
    monkeypatch.chdir(published)
    # a git work tree that is no store's is not judged (a home folder kept in git would
    # refuse every output under it)
    done = runner.invoke(main, [*command, "../elsewhere"])
    assert done.exit_code == 0, done.output
    (outer / "kistore.toml").write_text("")  # now a kistore clone around the store
    outer = outer.resolve()
    done = runner.invoke(main, [*command, "../public"])
    assert done.exit_code == 1, done.output
    assert done.output == (
        f"error: ../public: is inside the git work tree of another store, {outer} and git "
        "does not ignore it: the files written there would be untracked, one `git add -A` "
        "would commit them beside the store, and `kistore check` judges only store/. Write "
        f"it outside the work tree (such as {outer.parent / 'public'}), or have git ignore "
        f"it (a line `/public/` in {outer / '.gitignore'}), or pass --inside-work-tree to "
        "write it here anyway; nothing was written\n")
    assert not (outer / "public").exists()
    # its own work tree's refusal suggests a folder outside the clone too (it said
    # ../public-in, inside the clone, again)
    done = runner.invoke(main, [*command, "public-in"])
    assert done.exit_code == 1
    assert f"(such as {outer.parent / 'public-in'})" in done.output
    # the ways out: the clone ignores it, or --inside-work-tree
    assert runner.invoke(main, [*command, "--inside-work-tree", "../public"]).exit_code == 0
    (outer / ".gitignore").write_text("/ignored/\n")
    assert runner.invoke(main, [*command, "../ignored"]).exit_code == 0
