"""Refs read from the files under .git agree with git's own `git rev-parse`.

Branches loose and packed, a loose file beside its stale packed line, detached HEAD,
symbolic chains, annotated tags (peeled lines), linked worktrees (a `.git` file and
`commondir`), and random sequences of what git does to refs (hypothesis); what plain files
cannot answer raises RefsUnreadable (the caller asks libgit2).
"""

from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.git import refs

from ..conftest import git

ID = ["-c", "user.name=t", "-c", "user.email=t@t"]


def rev_parse(root, name):
    """git's answer: the id ``name`` names, or None when it names nothing."""
    done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{name}^{{}}"
                           if name.startswith("refs/tags/") else name],
                          cwd=root, capture_output=True, text=True)
    return done.stdout.strip() or None


def commit(root, text):
    (root / "f").write_text(text)
    git(root, "add", "f")
    git(root, *ID, "commit", "-qm", text)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for i in range(2):
        commit(root, str(i))
    return root


def test_head_of_a_loose_branch_and_of_a_packed_one(repo):
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "HEAD")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "HEAD")
    assert refs.resolve(repo / ".git", "refs/heads/main") == rev_parse(repo, "HEAD")


def test_loose_ref_wins_over_its_stale_packed_line(repo):
    git(repo, "pack-refs", "--all")
    packed_line = rev_parse(repo, "HEAD")
    commit(repo, "new")
    assert f"{packed_line} refs/heads/main" in (repo / ".git/packed-refs").read_text()
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "HEAD") != packed_line


def test_detached_head_and_a_symbolic_ref_chain(repo):
    first = rev_parse(repo, "HEAD~1")
    git(repo, "checkout", "-q", "--detach", first)
    assert refs.resolve(repo / ".git", "HEAD") == first
    git(repo, "checkout", "-q", "main")
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "main")


def test_an_annotated_tag_packed_with_its_peeled_line(repo):
    git(repo, *ID, "tag", "-a", "-m", "v1", "v1")
    git(repo, "pack-refs", "--all")
    assert "\n^" in (repo / ".git/packed-refs").read_text()  # the peeled commit id
    tag_object = git(repo, "rev-parse", "refs/tags/v1").strip()
    assert refs.resolve(repo / ".git", "refs/tags/v1") == tag_object != rev_parse(repo, "HEAD")
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "HEAD")


def test_absent_ref_and_unborn_branch_are_none(repo, tmp_path):
    assert refs.resolve(repo / ".git", "refs/notes/kistore") is None
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    assert refs.resolve(empty / ".git", "HEAD") is None


def test_a_linked_worktree_reads_its_own_head_and_the_shared_refs(repo, tmp_path):
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "-b", "side")
    commit(linked, "side")
    git(repo, "pack-refs", "--all")  # main is packed in the common directory only
    git(linked, "update-ref", "refs/worktree/mark", "HEAD~1")  # per-worktree: its own dir
    git_dir = refs.git_dir_of(linked)
    assert (git_dir / "commondir").is_file() and (linked / ".git").is_file()
    assert git_dir.resolve() == (repo / ".git/worktrees/linked").resolve()
    for name in ("HEAD", "refs/heads/side", "refs/heads/main", "refs/worktree/mark"):
        assert refs.resolve(git_dir, name) == rev_parse(linked, name), name
    assert refs.resolve(git_dir, "HEAD") != refs.resolve(repo / ".git", "HEAD")
    assert refs.resolve(repo / ".git", "refs/worktree/mark") is None  # not the main's
    assert rev_parse(repo, "refs/worktree/mark") is None


def test_git_dir_of_a_relative_gitdir_file(repo, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").write_text("gitdir: ../r/.git\n")
    assert refs.git_dir_of(other) == other / "../r/.git"
    assert refs.resolve(refs.git_dir_of(other), "HEAD") == rev_parse(repo, "HEAD")
    assert refs.git_dir_of(repo) == repo / ".git"


def test_common_git_dir_of_the_main_and_of_a_linked_worktree(repo, tmp_path):
    git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
    own = refs.git_dir_of(tmp_path / "linked")
    assert (own / "commondir").read_text() == "../..\n"  # as git writes it
    assert refs.common_git_dir(own) == (repo / ".git").resolve()
    assert refs.common_git_dir(repo / ".git") == repo / ".git"  # no commondir: unchanged
    (own / "commondir").write_text(f"{repo / '.git'}\n")  # an absolute path, as git reads it
    assert refs.common_git_dir(own) == (repo / ".git").resolve()
    (own / "commondir").unlink()
    (own / "commondir").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").write_text("../..\n")  # through a link to a file: read
    assert refs.common_git_dir(own) == (repo / ".git").resolve()


@pytest.mark.parametrize(("case", "said"), [("empty", "is empty"),
                                            ("blank", "is empty"),
                                            ("directory", "is not a regular file"),
                                            ("dangling-link", "is not a regular file")])
def test_common_git_dir_refuses_a_commondir_git_would_not_write(repo, tmp_path, case, said):
    git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
    own = refs.git_dir_of(tmp_path / "linked")
    common = own / "commondir"
    common.unlink()
    if case in ("empty", "blank"):
        common.write_text("" if case == "empty" else " \n")
    elif case == "directory":
        common.mkdir()
    else:
        common.symlink_to(tmp_path / "nothing")
    with pytest.raises(refs.RefsUnreadable) as caught:
        refs.common_git_dir(own)
    assert str(caught.value).startswith(f"{common} {said}")
    assert f"`echo ../.. > {common}`" in str(caught.value)  # (git worktree repair fails too)
    with pytest.raises(refs.RefsUnreadable):  # the ref reader asks the same function
        refs.resolve(own, "HEAD")


@pytest.mark.parametrize("text", ["", "gitdir:\nsecond line", "worktree: x"])
def test_a_dotgit_file_in_no_form_git_writes_is_left_to_libgit2(tmp_path, text):
    (tmp_path / ".git").write_text(text)
    with pytest.raises(refs.RefsUnreadable):
        refs.git_dir_of(tmp_path)


@pytest.mark.parametrize("case", ["garbage-ref", "reftable", "reftable-in-common",
                                  "unreadable-commondir", "bad-name", "symref-loop",
                                  "garbage-packed-line"])
def test_what_plain_files_cannot_answer_is_left_to_libgit2(repo, tmp_path, case):
    git_dir = repo / ".git"
    name = "HEAD"
    if case == "garbage-ref":
        (git_dir / "refs/heads/main").write_text("not an object id\n")
    elif case == "reftable":
        (git_dir / "reftable").mkdir()
    elif case == "reftable-in-common":
        git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
        (git_dir / "reftable").mkdir()
        git_dir = refs.git_dir_of(tmp_path / "linked")
    elif case == "unreadable-commondir":
        (git_dir / "commondir").mkdir()
    elif case == "bad-name":
        name = "refs/../../config"
    elif case == "symref-loop":
        (git_dir / "refs/heads/loop").write_text("ref: refs/heads/loop\n")
        name = "refs/heads/loop"
    else:
        git(repo, "pack-refs", "--all")
        with open(git_dir / "packed-refs", "a") as packed:
            packed.write("a torn line\n")
        name = "refs/heads/other"
    with pytest.raises(refs.RefsUnreadable):
        refs.resolve(git_dir, name)


STEPS = st.lists(st.sampled_from(["commit", "pack", "branch", "switch", "detach", "notes",
                                  "amend", "worktree-commit", "symref"]),
                 min_size=1, max_size=6)
NAMES = ("HEAD", "refs/heads/main", "refs/heads/b", "refs/notes/kistore", "refs/heads/alias")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_any_sequence_of_ref_changes_reads_as_git_reads_it(tmp_path_factory, steps):
    base = tmp_path_factory.mktemp("refs")
    root, linked = base / "r", base / "linked"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit(root, "0")
    git(root, "worktree", "add", "-q", "--detach", str(linked))
    for i, step in enumerate(steps):
        if step == "commit":
            commit(root, f"c{i}")
        elif step == "pack":
            git(root, "pack-refs", "--all")
        elif step == "branch":
            # update-ref, not `branch -f`: git refuses to force the branch checked out
            git(root, "update-ref", "refs/heads/b", "HEAD")
        elif step == "switch":
            git(root, "checkout", "-q", "-B", "b")
        elif step == "detach":
            git(root, "checkout", "-q", "--detach")
        elif step == "notes":
            git(root, *ID, "notes", "--ref=kistore", "add", "-f", "-m", f"n{i}", "HEAD")
        elif step == "amend":
            git(root, *ID, "commit", "-q", "--amend", "-m", f"amended {i}")
        elif step == "worktree-commit":
            commit(linked, f"w{i}")
        else:
            git(root, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
        for where, git_dir in ((root, root / ".git"), (linked, refs.git_dir_of(linked))):
            for name in NAMES:
                assert refs.resolve(git_dir, name) == rev_parse(where, name), (steps, i, name)


def test_refs_under_lists_loose_and_packed_refs_with_the_loose_files_times(repo):
    head = rev_parse(repo, "HEAD")
    git(repo, "update-ref", "refs/notes/remotes/up/kistore", head)
    git(repo, "update-ref", "refs/notes/remotes/a/b/kistore", head)
    git(repo, "pack-refs", "--all")  # both packed: no time
    git(repo, "update-ref", "refs/notes/remotes/own/kistore", head)  # loose
    loose = repo / ".git/refs/notes/remotes/own/kistore"
    (loose.parent / "kistore.lock").write_text(head)  # git writing one: not a ref
    os.utime(loose, (1_700_000_000, 1_700_000_000))
    assert refs.refs_under(repo / ".git", "refs/notes/remotes/") == {
        "refs/notes/remotes/up/kistore": None, "refs/notes/remotes/a/b/kistore": None,
        "refs/notes/remotes/own/kistore": 1_700_000_000}
    assert refs.refs_under(repo / ".git", "refs/remotes/") == {}
    reflog = repo / ".git/logs/refs/notes/remotes/up/kistore"  # the reflog stays when packed
    os.utime(reflog, (1_600_000_000, 1_600_000_000))
    assert refs.reflog_mtime(repo / ".git", "refs/notes/remotes/up/kistore") == 1_600_000_000
    assert refs.reflog_mtime(repo / ".git", "refs/notes/remotes/none/kistore") is None


def test_reflog_last_time_reads_the_time_git_wrote_in_the_last_entry(repo):
    git_dir = repo / ".git"
    log = git_dir / "logs/refs/remotes/up/main"
    log.parent.mkdir(parents=True)
    a, b = "1" * 40, "2" * 40
    log.write_bytes(f"{'0' * 40} {a} T <t@t> 1700000000 +0100\tfetch: first\n"
                    f"{a} {b} Tea Maker <t@t> 1700000123 -0730\tfetch: x y\tz\n".encode())
    os.utime(log, (1_800_000_000, 1_800_000_000))  # as git gc leaves it: its own time
    assert refs.reflog_last_time(git_dir, "refs/remotes/up/main") == 1_700_000_123
    assert refs.reflog_last_time(git_dir, "refs/remotes/up/none") is None
    log.write_bytes(b"")
    assert refs.reflog_last_time(git_dir, "refs/remotes/up/main") is None
    log.write_bytes(f"{a} {b} T <t@t> soon +0000\tfetch\n".encode())  # not git's form
    assert refs.reflog_last_time(git_dir, "refs/remotes/up/main") is None
    # a last line longer than the tail read: its head is not there to read
    log.write_bytes(f"{a} {b} T <t@t> 1700000000 +0000\t{'m' * 70_000}\n".encode())
    assert refs.reflog_last_time(git_dir, "refs/remotes/up/main") is None


def test_reflog_last_time_agrees_with_git_after_gc(repo):
    git(repo, "update-ref", "-m", "moved", "refs/remotes/up/main", rev_parse(repo, "HEAD"))
    git(repo, "pack-refs", "--all")
    git(repo, "reflog", "expire", "--expire=never", "--all")  # rewrites every reflog file
    shown = git(repo, "reflog", "show", "--format=%gd", "--date=unix", "-n1",
                "refs/remotes/up/main").strip()  # refs/remotes/up/main@{1700000000}
    assert refs.reflog_last_time(repo / ".git", "refs/remotes/up/main") == \
        int(shown.rpartition("@{")[2].rstrip("}"))
