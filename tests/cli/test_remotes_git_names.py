"""The remotes kistore counts are the ones git names (fresh12 F1, kistore.git.remotes).

A remote defined only by ``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n``
or an ``include.path`` file is listed by ``git remote``, but libgit2's configuration (and the
repository's config file read as plain text) did not see it: ``notes rebase`` with no REMOTE
dropped lines that remote held, ``notes fetch NAME`` said "it has no remote", and ``site
build`` published without the remote's notes.
"""

from __future__ import annotations

import subprocess

from kistore.git import remotes
from kistore.store import Store

from ..conftest import git
from ..prs import KISTORE, _env
from .test_notes_no_remote import clone, mistaken  # noqa: F401 - fixtures

REFUSED = (
    "error: no REMOTE given, and this repository has remote(s) {name}: lines of its "
    "notes may be there, and a line pushed cannot be dropped (notes only grow, KI408); "
    "`kistore notes rebase {name}` rebuilds the notes on {name}'s, leaving out the "
    "lines of this repository's own, never pushed, that its tip lacks\n")


def run(where, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run the kistore CLI in ``where`` with ``env`` added to the tests' environment."""
    return subprocess.run([KISTORE, *args], cwd=where, capture_output=True, text=True,
                          env={**_env(), "KISTORE": KISTORE, **env})


def server(root, tmp_path) -> str:
    """A bare copy of ``root`` holding its notes too (the line the rebase would drop)."""
    bare = tmp_path / "bare1.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(bare))
    git(bare, "fetch", "-q", str(root), "refs/notes/*:refs/notes/*")
    return str(bare)


def global_file(tmp_path, name: str, url: str) -> dict[str, str]:
    """``GIT_CONFIG_GLOBAL`` naming a file that defines the remote ``name``."""
    config = tmp_path / "gcfg"
    config.write_text(f'[remote "{name}"]\n\turl = {url}\n')
    return {"GIT_CONFIG_GLOBAL": str(config)}


def test_a_global_files_remote_refuses_notes_rebase(mistaken, tmp_path):  # noqa: F811
    root, _first, tip, _blob = mistaken
    env = global_file(tmp_path, "gl", server(root, tmp_path))
    done = run(root, env, "notes", "rebase")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", REFUSED.format(name="gl"))
    assert git(root, "rev-parse", "refs/notes/kistore").strip() == tip


def test_a_config_count_remote_refuses_notes_rebase_dry_run(mistaken, tmp_path):  # noqa: F811
    root, _first, tip, _blob = mistaken
    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "remote.cy.url",
           "GIT_CONFIG_VALUE_0": server(root, tmp_path)}
    done = run(root, env, "notes", "rebase", "--dry-run")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", REFUSED.format(name="cy"))
    assert git(root, "rev-parse", "refs/notes/kistore").strip() == tip


def test_notes_fetch_of_a_global_files_remote(mistaken, tmp_path):  # noqa: F811
    root, _first, tip, _blob = mistaken
    env = global_file(tmp_path, "gl", server(root, tmp_path))
    done = run(root, env, "notes", "fetch", "gl")
    assert done.returncode == 0, done.stderr
    assert "no remote" not in done.stderr
    assert git(root, "rev-parse", "refs/notes/remotes/gl/kistore").strip() == tip


def test_an_unknown_remote_names_the_global_files_too(mistaken, tmp_path):  # noqa: F811
    root, _first, _tip, _blob = mistaken
    env = global_file(tmp_path, "gl", server(root, tmp_path))
    done = run(root, env, "notes", "fetch", "nosuch")
    assert done.returncode == 1
    assert "no remote 'nosuch' in this repository (its remotes: gl)" in done.stderr


def test_configured_reads_includes_urls_and_refspecs(group, tmp_path, monkeypatch):
    included = tmp_path / "inc"
    included.write_text('[remote "origin"]\n\turl = /srv/a.git\n\turl = /srv/b.git\n'
                        "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
                        '[remote "no.url"]\n\tfetch = +refs/heads/*:refs/remotes/x/*\n')
    git(group.root, "config", "include.path", str(included))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "remote.up.stream.url")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "https://example.org/i.git")
    assert remotes.configured(Store(group.root).git_dir) == {
        "no.url": ([], ["+refs/heads/*:refs/remotes/x/*"]),
        "origin": (["/srv/a.git", "/srv/b.git"], ["+refs/heads/*:refs/remotes/origin/*"]),
        "up.stream": (["https://example.org/i.git"], []),
    }
    names = ["no.url", "origin", "up.stream"]
    assert git(group.root, "remote").split() == names
    assert remotes.remote_names(Store(group.root).repo) == names


def test_site_build_and_export_refuse_without_an_included_remotes_notes(clone, tmp_path):  # noqa: F811
    # the clone's origin comes from an included file: git fetched no notes, so the build
    # and export are refused as for `.git/config`'s origin (they published without notes)
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(clone.bare), str(fresh))
    built = run(fresh, {}, "site", "build", str(tmp_path / "site0"))
    assert built.returncode == 1
    git(fresh, "remote", "remove", "origin")
    included = tmp_path / "inc"
    included.write_text(f'[remote "origin"]\n\turl = {clone.bare}\n')
    git(fresh, "config", "include.path", str(included))
    assert git(fresh, "remote").split() == ["origin"]
    for args in (["site", "build", str(tmp_path / "site")], ["export", str(tmp_path / "x")]):
        done = run(fresh, {}, *args)
        assert (done.returncode, done.stderr) == (1, built.stderr.replace(
            "build the site", "export") if args[0] == "export" else built.stderr), args
        assert not (tmp_path / args[-1]).exists()


def test_rank_and_show_ask_git_for_no_remote(clone, monkeypatch):  # noqa: F811
    # a query pays no child for the remotes: its notes warnings read the config file
    from click.testing import CliRunner

    from kistore.cli import main

    started: list[list[str]] = []
    real_run, real_popen = subprocess.run, subprocess.Popen

    def run_(args, *rest, **kwargs):
        started.append(list(args))
        return real_run(args, *rest, **kwargs)

    class Popen(real_popen):  # type: ignore[misc,valid-type]
        def __init__(self, args, *rest, **kwargs):
            started.append(list(args))
            super().__init__(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", run_)
    monkeypatch.setattr(subprocess, "Popen", Popen)
    runner = CliRunner()
    for args in (["rank", "BenchmarkRun/fast", "--json"], ["show", "BenchmarkRun/fast"]):
        done = runner.invoke(main, ["--store", str(clone.clone), *args])
        assert done.exit_code == 0, (args, done.output)
    assert started  # the queries' own children (rev-list) are seen
    assert [args for args in started if "config" in args] == []  # no remotes asked
