"""object_first_commits: one walk that gives every object the commit first_commit gives it."""

from __future__ import annotations

import pytest

from kistore.cite.citation import (
    first_commit,
    first_commits,
    object_first_commits,
    shallow_boundary,
)
from kistore.core import layout
from kistore.store import Store

from ..conftest import BUNDLE
from .test_citation import (
    RUN,
    RUN_PATH,
    add,
    commit_all,
    first_added_by_git,
    git,
    new_store,
    side_branch_merged,
)


def forged_then_fixed(tmp_path):
    """A store holding the published record whose run had forged bytes first.

    Returns:
        (the store's path, the commit of the forged bytes, the commit of the real ones).
    """
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    real = (path / RUN_PATH).read_bytes()
    (path / RUN_PATH).write_bytes(real.replace(b"passed", b"failed"))
    forged = commit_all(path, "forged bytes under the run's name", day=1)
    (path / RUN_PATH).write_bytes(real)
    fixed = commit_all(path, "the real bytes", day=2)
    return path, forged, fixed


def firsts(store: Store, start) -> dict[tuple[str, str], str]:
    """The first yield of each (path, blob): what the export keeps."""
    kept: dict[tuple[str, str], str] = {}
    for path, blob, commit in object_first_commits(store.repo, start):
        kept.setdefault((path, blob), str(commit.id))
    return kept


def test_every_object_gets_the_commit_first_commit_gives_it(tmp_path, kit):
    # main: the published record (with forged bytes at the run's path first)
    path, forged, fixed = forged_then_fixed(tmp_path)
    store = Store(path)
    # a side branch adds two manifests; main adds another; then a merge
    git(path, "checkout", "-q", "-b", "side")
    side_docs = [kit.workload("side-a", name="side-a"), kit.workload("side-b", name="side-b")]
    store.add([_manifest(d) for d in side_docs])
    side = commit_all(path, "side adds", day=3)
    git(path, "checkout", "-q", "main")
    store.add([_manifest(kit.workload("main-c", name="main-c"))])
    commit_all(path, "main adds", day=4)
    git(path, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge side", "side", day=5)
    head = store.commit("HEAD")
    kept = firsts(store, head)
    objects = _object_files(path)
    assert len(objects) == 6  # run, protocol, environment, three workloads
    for file, blob in objects:
        expected = str(first_commit(store.repo, file, blob, head).id)
        assert kept[(file, blob)] == expected
        if file != RUN_PATH:  # git's oracle knows paths, not bytes: the forged run differs
            assert expected == first_added_by_git(path, file)
    assert kept[(RUN_PATH, git(path, "rev-parse", f"{fixed}:{RUN_PATH}"))] == fixed
    assert kept[(RUN_PATH, git(path, "rev-parse", f"{forged}:{RUN_PATH}"))] == forged
    side_paths = {layout.object_path(_manifest(d).digest) for d in side_docs}
    assert {kept[(f, b)] for f, b in objects if f in side_paths} == {side}


def test_a_shallow_clone_names_its_boundary(tmp_path):
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    commit_all(path, "add", day=1)
    (path / "README.md").write_text("later\n")
    c2 = commit_all(path, "later", day=2)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{path}", str(shallow))
    store = Store(shallow)
    assert shallow_boundary(store.repo) == {c2}
    assert {str(c.id) for _, _, c in object_first_commits(store.repo, store.commit("HEAD"))} == {c2}


def _manifest(doc):
    from kistore.core.model import Manifest

    return Manifest.from_document(doc)


def _object_files(path) -> list[tuple[str, str]]:
    """(path, blob) of every object file at HEAD, as the real git lists them."""
    listed = git(path, "ls-tree", "-r", "HEAD", layout.OBJECTS_DIR).splitlines()
    return [(line.split("\t")[1], line.split()[2]) for line in listed]


def test_the_git_command_gives_first_commit_or_steps_aside(tmp_path, kit):
    """`first_commit_by_git` (the run page's citation without libgit2) answers as
    `first_commit` does, or not at all: forged bytes first, a side branch, one manifest
    added on two branches (two introducers: it steps aside), a shallow clone."""
    from kistore.cite.citation import first_commit_by_git

    path, forged, fixed = forged_then_fixed(tmp_path)
    store = Store(path)
    twice = _manifest(kit.workload("twice", name="twice"))
    git(path, "checkout", "-q", "-b", "side")
    store.add([_manifest(kit.workload("side-a", name="side-a")), twice])
    side = commit_all(path, "side adds", day=3)
    git(path, "checkout", "-q", "main")
    store.add([_manifest(kit.workload("main-c", name="main-c")), twice])
    commit_all(path, "main adds the same manifest", day=4)
    git(path, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge side", "side", day=5)
    head = store.commit("HEAD")
    answered = 0
    for file, blob in _object_files(path):
        by_git = first_commit_by_git(path, path / ".git", file, blob)
        expected = first_commit(store.repo, file, blob, head)
        if file == layout.object_path(twice.digest):
            assert by_git is None  # two commits introduce it: libgit2's walk decides
            continue
        assert by_git is not None, file
        assert (by_git.id, by_git.commit_time) == (str(expected.id), expected.commit_time)
        answered += 1
    assert answered == 5  # run, protocol, environment, side-a, main-c
    real_blob = git(path, "rev-parse", f"{fixed}:{RUN_PATH}")
    assert first_commit_by_git(path, path / ".git", RUN_PATH, real_blob).id == fixed
    forged_blob = git(path, "rev-parse", f"{forged}:{RUN_PATH}")
    assert first_commit_by_git(path, path / ".git", RUN_PATH, forged_blob).id == forged
    side_a = layout.object_path(_manifest(kit.workload("side-a", name="side-a")).digest)
    assert first_commit_by_git(path, path / ".git", side_a,
                               git(path, "rev-parse", f"HEAD:{side_a}")).id == side
    assert first_commit_by_git(path, path / ".git", "store/objects/sha256/00/none.json",
                               real_blob) is None  # in no commit: libgit2 says why
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{path}", str(shallow))
    assert first_commit_by_git(shallow, shallow / ".git", RUN_PATH, real_blob) is None


def _children(monkeypatch) -> list[list[str]]:
    """Record the git subcommand of every child `kistore.cite.citation` starts."""
    import kistore.cite.citation as citation

    started: list[list[str]] = []
    real = citation.subprocess.run

    def run(args, *rest, **kwargs):
        started.append([a for a in args if a in ("log", "rev-list", "cat-file", "remote")])
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(citation.subprocess, "run", run)
    return started


def test_one_git_log_answers_a_linear_history(tmp_path, monkeypatch):
    """Forged bytes under the run's path, then the real ones, then a later commit: one
    `git log --raw` child answers (no `cat-file`), for both blobs, as libgit2's walk does;
    a blob no commit holds is not answered (libgit2 says why)."""
    from kistore.cite.citation import first_commit_by_git

    path, forged, fixed = forged_then_fixed(tmp_path)
    (path / "README.md").write_text("later\n")
    commit_all(path, "later", day=3)
    store = Store(path)
    head = store.commit("HEAD")
    started = _children(monkeypatch)
    for file, blob in [*_object_files(path),
                       (RUN_PATH, git(path, "rev-parse", f"{forged}:{RUN_PATH}"))]:
        started.clear()
        by_git = first_commit_by_git(path, path / ".git", file, blob)
        expected = first_commit(store.repo, file, blob, head)
        assert (by_git.id, by_git.commit_time) == (str(expected.id), expected.commit_time)
        assert started == [["log"]], file
    started.clear()
    assert first_commit_by_git(path, path / ".git", RUN_PATH, "0" * 40) is None
    assert started == [["log"]]  # the listing read whole: no introducer, nothing more to ask


def test_git_log_is_not_misled_by_the_users_configuration(tmp_path, monkeypatch):
    """Settings that change what `git log` prints or walks (following renames, rename
    and copy pairs, colour, relative paths, abbreviated ids, no root diff) leave the
    answer as libgit2's and the child count at one."""
    from kistore.cite.citation import first_commit_by_git

    path, _, fixed = forged_then_fixed(tmp_path)
    for key, value in [("log.follow", "true"), ("diff.renames", "copies"),
                       ("color.ui", "always"), ("color.diff", "always"),
                       ("diff.relative", "true"), ("core.abbrev", "7"),
                       ("log.showRoot", "false"), ("diff.noprefix", "true"),
                       ("diff.mnemonicPrefix", "true"), ("log.decorate", "full")]:
        git(path, "config", key, value)
    store = Store(path)
    head = store.commit("HEAD")
    started = _children(monkeypatch)
    for file, blob in _object_files(path):
        started.clear()
        by_git = first_commit_by_git(path, path / ".git", file, blob)
        assert by_git is not None and by_git.id == str(first_commit(store.repo, file, blob,
                                                                    head).id), file
        assert started == [["log"]], file
    assert first_commit_by_git(path, path / ".git", RUN_PATH,
                               git(path, "rev-parse", f"HEAD:{RUN_PATH}")).id == fixed


def test_a_merge_on_the_path_asks_git_per_commit(tmp_path, kit, monkeypatch):
    """A manifest added on a side branch, then merged (the merge differs from main at its
    path, so `git log` lists it): `git log --raw` steps aside, and `rev-list` +
    `cat-file` answer the side commit, as libgit2's walk does; a third child (`rev-list
    --first-parent`) finds the merge, which landed it on the first-parent line."""
    from kistore.cite.citation import first_commit_by_git

    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    commit_all(path, "add", day=1)
    store = Store(path)
    git(path, "checkout", "-q", "-b", "side")
    side_doc = _manifest(kit.workload("side-a", name="side-a"))
    store.add([side_doc])
    side = commit_all(path, "side adds", day=2)
    git(path, "checkout", "-q", "main")
    (path / "README.md").write_text("main\n")
    commit_all(path, "main moves", day=3)
    git(path, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge side", "side", day=4)
    file = layout.object_path(side_doc.digest)
    blob = git(path, "rev-parse", f"HEAD:{file}")
    started = _children(monkeypatch)
    by_git = first_commit_by_git(path, path / ".git", file, blob)
    assert by_git is not None and by_git.id == side
    assert by_git.id == str(first_commit(store.repo, file, blob, store.commit("HEAD")).id)
    assert started == [["log"], ["rev-list"], ["cat-file"], ["rev-list"]]


@pytest.mark.parametrize("template, remote_asked", [
    ("https://example.org/r/{commit}/{path}", False),
    ("{base}/blob/{commit}/{path}", True),
    (None, True)])
def test_the_remote_is_asked_only_when_the_link_uses_it(tmp_path, monkeypatch, template,
                                                         remote_asked):
    """The `origin` remote is read (one `git remote get-url`) only when the permalink is
    derived from it or its template holds {base}; the link is the same either way."""
    from kistore.cite.citation import cite

    table = "" if template is None else f'\n[cite]\npermalink = "{template}"\n'
    path = new_store(tmp_path / "store", cite_table=table)
    add(path, BUNDLE)
    commit_all(path, "add", day=1)
    started = _children(monkeypatch)
    citation = cite(Store(path), RUN)
    assert started == [["log"], ["remote"]] if remote_asked else [["log"]]
    base = "https://github.com/kernelindex/kernelindex"
    expected = {None: f"{base}/blob/{citation.commit}/{RUN_PATH}",
                "{base}/blob/{commit}/{path}": f"{base}/blob/{citation.commit}/{RUN_PATH}"}
    assert citation.permalink == expected.get(
        template, f"https://example.org/r/{citation.commit}/{RUN_PATH}")


def test_a_merge_dated_before_its_side_is_not_the_first_adder_in_any_walk(tmp_path):
    # the side adds the record on day 5; main merges it with a merge commit dated day 3
    # (a clock behind): the merge comes first in time but holds what its side parent holds,
    # so it introduces nothing; every walk names the side commit (review r78 F3's rule)
    path = new_store(tmp_path / "store")
    side = side_branch_merged(path, side_day=5, main_day=1, merge_day=3)
    store = Store(path)
    head = store.commit("HEAD")
    blob = git(path, "rev-parse", f"HEAD:{RUN_PATH}")

    assert str(first_commit(store.repo, RUN_PATH, blob, head).id) == side
    assert firsts(store, head)[(RUN_PATH, blob)] == side
    assert str(first_commits(store.repo, {RUN_PATH: blob}, head)[RUN_PATH].id) == side
