"""A repository another user owns (git's "dubious ownership"): said, never "internal error".

r75 finding 8: verify, check, cite, site build, add --commit, export and every ``--at``
query said "internal error: this is a bug in kistore (GitError: ... not owned by current
user)". Each command runs as a real process on a store chown'ed to ``nobody`` (as root;
skipped otherwise).
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.git.opening import NotOwned, not_owned

from ..conftest import add_docs

LIMIT = 120


def test_libgit2s_and_gits_refusals_are_recognised():
    libgit2 = not_owned(Exception("/srv/x: repository path '/srv/x' is not owned by current "
                                  "user"))
    assert isinstance(libgit2, NotOwned) and libgit2.path == "/srv/x"
    git = not_owned(Exception("fatal: detected dubious ownership in repository at '/srv/y'"))
    assert git is not None and git.path == "/srv/y"
    assert not_owned(Exception("failed to inflate loose object")) is None


def test_the_refusal_says_what_to_do():
    assert NotOwned("/srv/x").format() == (
        "/srv/x: git refuses to open this repository: it is owned by another user (git's "
        "\"dubious ownership\" check). If you trust it, run `git config --global --add "
        "safe.directory /srv/x` and try again; or run kistore as the user who owns it")


@pytest.fixture
def foreign(store, kit, tmp_path) -> Path:
    """A committed store whose files all belong to ``nobody``; HOME without a git config."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to give the repository to another user")
    env, workload = kit.environment(), kit.workload("w", name="w")
    add_docs(store, [env, workload])
    add_docs(store, [kit.implementation("p")])
    nobody = pwd.getpwnam("nobody")
    for path in [store.root, *store.root.rglob("*")]:
        os.lchown(path, nobody.pw_uid, nobody.pw_gid)
    (tmp_path / "home").mkdir()
    return store.root


def run(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("GIT_CONFIG_GLOBAL", None)
    return subprocess.run([sys.executable, "-m", "kistore", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=LIMIT)


@pytest.mark.parametrize("args", [["verify"], ["verify", "--at", "HEAD"],
                                  ["check", "HEAD^..HEAD"], ["ls", "--at", "HEAD"],
                                  ["cite", "Workload/w"], ["site", "build", "SITE"],
                                  ["export", "OUT"]])
def test_a_command_in_a_repository_another_user_owns_says_what_to_do(foreign, tmp_path,
                                                                      args):
    args = [str(tmp_path / a) if a in ("SITE", "OUT") else a for a in args]
    done = run(foreign, tmp_path / "home", *args)
    assert (done.returncode, done.stderr) == (1, f"error: {NotOwned(str(foreign)).format()}\n")
    assert not (tmp_path / "SITE").exists() and not (tmp_path / "OUT").exists()


def test_add_commit_in_a_repository_another_user_owns_writes_nothing(foreign, tmp_path, kit):
    manifest = tmp_path / "w.json"
    manifest.write_text(json.dumps(kit.workload("other", name="other")))
    before = subprocess.run(["git", "-c", f"safe.directory={foreign}", "status",
                             "--porcelain"], cwd=foreign, capture_output=True, text=True)
    done = run(foreign, tmp_path / "home", "add", "--commit", str(manifest))
    assert (done.returncode, done.stderr) == (1, f"error: {NotOwned(str(foreign)).format()}\n")
    after = subprocess.run(["git", "-c", f"safe.directory={foreign}", "status",
                            "--porcelain"], cwd=foreign, capture_output=True, text=True)
    assert after.stdout == before.stdout


def test_with_safe_directory_set_the_same_command_answers(foreign, tmp_path):
    home = tmp_path / "home"
    (home / ".gitconfig").write_text(f"[safe]\n\tdirectory = {foreign}\n")
    done = run(foreign, home, "verify")
    assert done.returncode == 0, done.stderr


def test_a_large_tree_read_once_is_kept_in_libgit2s_cache(tmp_path):
    """A shard tree of a 1,000,000-manifest store (~370 KB) is over libgit2's default tree
    cache limit (4,096 bytes), so each path looked up in it read it again: the gate at
    1,000,000 read 35 trees 81 times. open_repository raises the limit (TREE_CACHE_LIMIT)."""
    import pygit2

    from kistore.git.opening import TREE_CACHE_LIMIT, open_repository

    pygit2.init_repository(str(tmp_path / "r"), bare=True)
    repo = open_repository(str(tmp_path / "r"))
    blob = repo.create_blob(b"x")
    builder = repo.TreeBuilder()
    for i in range(3_000):  # ~ a 1,000,000 store's shard: far over 4,096 bytes
        builder.insert(f"{i:064x}.json", blob, pygit2.enums.FileMode.BLOB)
    tree = builder.write()
    size = len(repo.odb.read(tree)[1])
    assert 4_096 < size < TREE_CACHE_LIMIT
    fresh = open_repository(str(tmp_path / "r"))  # its own cache, empty
    before = pygit2.settings.cached_memory[0]
    assert len(fresh[tree]) == 3_000
    assert pygit2.settings.cached_memory[0] - before >= size  # kept, not read again


def test_every_open_sets_libgit2s_tree_cache_limit(tmp_path, monkeypatch):
    # race98: a module list kept as a once-flag; the option is cheap and idempotent, so
    # a limit another caller reset in between is set again
    import pygit2

    from kistore.git.opening import TREE_CACHE_LIMIT, open_repository

    pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    set_to = []
    monkeypatch.setattr(type(pygit2.settings), "cache_object_limit",  # (its slots: the class)
                        lambda self, kind, limit: set_to.append((kind, limit)))
    for _ in range(2):
        open_repository(str(tmp_path / "r.git"))
    assert set_to == [(pygit2.enums.ObjectType.TREE, 4 << 20)] * 2 == \
        [(pygit2.enums.ObjectType.TREE, TREE_CACHE_LIMIT)] * 2
