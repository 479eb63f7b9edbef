"""The one reader of a store at a revision: View.read and View.files, work tree and commit.

verify and the pull-request gate read through them (kistore.check.audit.snapshot); these
tests hold the two views to the same answers for the same files, and to the size limit.
"""

from __future__ import annotations

import hashlib
import os

import pytest

from kistore.check.audit import check_contents, snapshot
from kistore.store import Files, FileTooLarge, Store

from ..conftest import PUBLISHED, commit_all, git, store_file, write_raw


def _views(store: Store):
    return {"work": store.view(), "commit": store.view("HEAD")}


def test_both_views_list_the_same_files_with_the_same_modes(published):
    store = Store(published)
    listed = {scope: view.files().modes for scope, view in _views(store).items()}
    assert listed["work"] == listed["commit"]
    assert listed["work"][store_file(PUBLISHED["run"])] == 0o100644
    manifests = {store_file(d, base) for d in PUBLISHED.values()
                 for base in ("objects", "metadata")}
    assert len(manifests) == 6  # run, protocol, environment: an object and metadata each
    assert manifests <= set(listed["work"])
    assert "store/policy/ranking.json" in listed["work"]  # kistore init writes the policy
    assert not [p for p in listed["work"] if not p.startswith("store/")]  # .gitattributes


def test_both_views_read_the_bytes_whose_sha256_is_the_digest(published):
    store = Store(published)
    path = store_file(PUBLISHED["run"])
    for scope, view in _views(store).items():
        data = view.read(path)
        assert data is not None, scope
        assert "sha256:" + hashlib.sha256(data).hexdigest() == PUBLISHED["run"], scope
        assert view.files().read(path) == data, scope


@pytest.mark.parametrize("scope", ["work", "commit"])
def test_a_file_past_the_limit_is_refused_with_its_size(published, scope):
    store = Store(published)
    path = store_file(PUBLISHED["run"])
    size = len((published / path).read_bytes())
    view = _views(store)[scope]
    assert view.read(path, size) is not None  # exactly the limit is fine
    with pytest.raises(FileTooLarge) as raised:
        view.read(path, size - 1)
    assert raised.value.size == size and raised.value.limit == size - 1
    assert raised.value.file == path
    with pytest.raises(FileTooLarge):
        view.files(limit=size - 1).read(path)


@pytest.mark.parametrize("scope", ["work", "commit"])
def test_a_symlink_reads_as_no_file_and_is_listed_with_its_mode(published, scope):
    store = Store(published)
    path = store_file(PUBLISHED["run"])
    target = published / path
    target.unlink()
    os.symlink("/etc/hostname", target)
    commit_all(published, "a symlink in place of the run")
    view = _views(store)[scope]
    assert view.read(path) is None  # never followed, in a commit as in the work tree
    files = view.files()
    assert files.modes[path] == 0o120000
    assert files.read(path) is None


def test_a_fifo_in_the_work_tree_is_a_special_file_and_verify_says_so(published):
    store = Store(published)
    path = store_file(PUBLISHED["run"])
    (published / path).unlink()
    os.mkfifo(published / path)
    view = store.view()
    assert view.read(path) is None  # O_NONBLOCK: never hangs
    assert view.files().modes[path] == 0o010000
    found = check_contents(snapshot(store))
    assert [(f.rule.id, f.message) for f in found if f.file == path] == [
        ("KI111", "a FIFO, socket or device under store/")]


def test_a_worker_reopens_a_commit_view_after_a_fork(published):
    store = Store(published)
    files = store.view("HEAD").files()
    before = files.read(store_file(PUBLISHED["run"]))
    files.reopen()  # what a forked worker calls first: a new libgit2 handle
    assert files.read(store_file(PUBLISHED["run"])) == before
    assert isinstance(files, Files)


def test_a_store_that_is_a_file_is_listed_as_one_path(tmp_path):
    Store.init(tmp_path / "s")
    root = tmp_path / "s"
    git(root, "rm", "-rq", "--cached", "--ignore-unmatch", "store")
    import shutil
    shutil.rmtree(root / "store", ignore_errors=True)
    write_raw(root, "store", b"not a directory\n")
    commit_all(root, "store is a file")
    store = Store(root)
    assert store.view().files().modes == {"store": 0o100644}
    assert store.view("HEAD").files().modes == {"store": 0o100644}
