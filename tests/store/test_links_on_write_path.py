"""A symbolic link (or a file) where the store keeps a directory: nothing is written through it.

New-user review 2026-12-02 F20: with a link committed at ``store/objects/sha256/XX``, ``add``
wrote its object file wherever the link pointed (outside the repository), and ``add
--commit`` made a commit that replaced the committed link by a directory (KI402 in
kistore's own commit).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.attest import signing
from kistore.attest.trust import add_key
from kistore.core.errors import StoreStateError
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import add_docs, commit_all, fixed_key, git
from .test_store import bulk_batch


def _workload(kit) -> Manifest:
    return Manifest.from_document(kit.workload("gemm", name="gemm"))


def _shard(manifest: Manifest) -> str:
    return f"store/objects/sha256/{manifest.digest.hex[:2]}"


def _link_committed(store_path: Path, rel: str, target: Path) -> str:
    """Commit a symbolic link at ``rel`` (past the hooks, as a damaged commit would be)."""
    target.mkdir(exist_ok=True)
    (store_path / rel).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, store_path / rel)
    return commit_all(store_path, "a link in the layout")


def _state(store_path: Path) -> tuple[str, str]:
    return git(store_path, "rev-parse", "HEAD"), git(store_path, "status", "--porcelain")


@pytest.mark.parametrize("commit", [False, True])
def test_add_through_a_committed_link_is_refused_and_writes_nothing(
        store, store_path, tmp_path, kit, commit):
    manifest, outside = _workload(kit), tmp_path / "outside"
    _link_committed(store_path, _shard(manifest), outside)
    before = _state(store_path)
    with pytest.raises(StoreStateError) as refused:
        store.add([manifest], commit=commit)
    assert str(refused.value).startswith(
        f"{_shard(manifest)} is a symbolic link (to {str(outside)!r}), where the store keeps "
        "a directory: kistore writes the store's files only into its own directories, so "
        "nothing was written.")
    assert f"`git rm {_shard(manifest)}`" in str(refused.value)
    assert list(outside.iterdir()) == []
    assert _state(store_path) == before


def test_a_bulk_add_commit_through_a_link_is_refused(store, store_path, tmp_path):
    batch = bulk_batch()
    outside = tmp_path / "outside"
    _link_committed(store_path, "store/names", outside)  # above every names shard
    before = _state(store_path)
    with pytest.raises(StoreStateError, match=r"^store/names is a symbolic link"):
        store.add(batch, commit=True, allow_dangling=True)
    assert list(outside.iterdir()) == []
    assert _state(store_path) == before
    assert not list(store_path.glob("store/objects/sha256/*/*"))


def test_a_file_where_a_directory_belongs_is_refused(store, store_path, kit):
    manifest = _workload(kit)
    (store_path / "store/objects/sha256").mkdir(parents=True, exist_ok=True)
    (store_path / _shard(manifest)).write_bytes(b"not a directory\n")
    with pytest.raises(StoreStateError, match=rf"^{_shard(manifest)} is a file, where the "
                       "store keeps a directory"):
        store.add([manifest])
    assert (store_path / _shard(manifest)).read_bytes() == b"not a directory\n"


@pytest.mark.parametrize("bulk", [False, True])
def test_a_commit_never_replaces_a_committed_link_with_a_directory(
        store, store_path, tmp_path, kit, bulk):
    # The work tree was mended by hand (a real directory in the link's place), HEAD still
    # holds the link: the commit must not delete the committed path.
    batch = bulk_batch() if bulk else [_workload(kit)]
    shard = _shard(batch[0])
    _link_committed(store_path, shard, tmp_path / "outside")
    (store_path / shard).unlink()
    (store_path / shard).mkdir()
    head = git(store_path, "rev-parse", "HEAD")
    with pytest.raises(StoreStateError, match=rf"^HEAD holds a symbolic link at {shard}, "
                       "where this add puts a directory: the commit would replace a committed "
                       "path, so nothing was committed"):
        store.add(batch, commit=True, allow_dangling=True)
    assert git(store_path, "rev-parse", "HEAD") == head
    assert git(store_path, "ls-tree", "HEAD", shard).startswith("120000 blob ")
    assert list((store_path / shard).iterdir()) == []  # the written files were undone


def test_trust_add_through_a_linked_trust_directory_is_refused(store, store_path, tmp_path):
    outside = tmp_path / "outside"
    _link_committed(store_path, "store/trust", outside)
    with pytest.raises(StoreStateError, match=r"^store/trust is a symbolic link"):
        add_key(store.root, signing.public_key_line(fixed_key(1).public_key()), ["rerun"])
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("command", ["add", "revoke"])
def test_trust_never_reads_nor_replaces_a_committed_link_at_keys_json(
        store, store_path, tmp_path, command):
    # r70 F19: `trust add` read the linked keys.json outside the repository, merged its
    # roles in, and wrote a regular file over the committed link.
    from kistore.attest.trust import revoke_key

    key = signing.public_key_line(fixed_key(1).public_key())
    keyid = add_key(store.root, key, ["rerun"]).keyid
    outside = tmp_path / "outside-keys.json"
    (store_path / "store/trust/keys.json").rename(outside)
    os.symlink(outside, store_path / "store/trust/keys.json")
    commit_all(store_path, "keys.json is a link")
    before = outside.read_bytes()
    with pytest.raises(StoreStateError, match=(
            r"^store/trust/keys.json is a symbolic link \(to '.*outside-keys.json'\), where "
            r"the store keeps a file: kistore reads and replaces only regular files there, "
            r"never what a link points at, so nothing was written")):
        if command == "add":
            add_key(store.root, signing.public_key_line(fixed_key(2).public_key()), ["rerun"])
        else:
            revoke_key(store.root, keyid)
    assert (store_path / "store/trust/keys.json").is_symlink()
    assert outside.read_bytes() == before


def test_cli_says_it_without_a_traceback(store_path, tmp_path, kit):
    doc = kit.workload("gemm", name="gemm")
    manifest, outside = Manifest.from_document(doc), tmp_path / "outside"
    _link_committed(store_path, _shard(manifest), outside)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(store_path), "add",
                           str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"error: {_shard(manifest)} is a symbolic link")
    assert "Traceback" not in done.stderr
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("commit", [False, True])
def test_add_commit_under_a_linked_objects_directory_says_so_not_commit_them_first(
        store, store_path, tmp_path, kit, commit):
    """Review r88 F2: with ``store/objects`` moved away and linked back, a plain add was
    refused for the link, but ``add --commit`` of a run said its committed protocol and
    environment were "not committed: commit them first"."""
    protocol, env, impl, workload = (kit.protocol(), kit.environment(), kit.implementation(),
                                     kit.workload())
    add_docs(store, [protocol, env, impl, workload])
    outside = tmp_path / "elsewhere"
    os.rename(store_path / "store/objects", outside)
    os.symlink(outside, store_path / "store/objects")
    before = _state(store_path)
    run = Manifest.from_document(kit.run(protocol, env, impl, workload, latency=5))
    with pytest.raises(StoreStateError) as refused:
        Store(store_path).add([run], commit=commit)
    assert str(refused.value).startswith(
        f"store/objects is a symbolic link (to {str(outside)!r}), where the store keeps a "
        "directory: kistore writes the store's files only into its own directories, so "
        "nothing was written.")
    assert _state(store_path) == before


def test_a_fifo_where_a_directory_belongs_is_named_in_words(store, store_path, kit):
    # fresh16 F7: "is not a directory (mode 10644)", a FIFO's st_mode in octal
    manifest = _workload(kit)
    (store_path / "store/objects/sha256").mkdir(parents=True, exist_ok=True)
    os.mkfifo(store_path / _shard(manifest))
    with pytest.raises(StoreStateError) as refused:
        store.add([manifest])
    assert str(refused.value) == (
        f"{_shard(manifest)} is a FIFO, where the store keeps a directory: kistore writes the "
        "store's files only into its own directories, so nothing was written. `kistore "
        f"verify` names it; if a commit holds it, remove it in its own reviewed change (`git "
        f"rm {_shard(manifest)}`), else delete it, then run this again")


def test_attest_file_into_a_fifo_subject_folder_names_it_a_fifo(runner, published, tmp_path):
    # fresh16 F7: `attest ... --file` said "is not a directory (mode 10644)"
    from kistore.cli import main
    from kistore.core import layout

    key = tmp_path / "k"
    assert runner.invoke(main, ["key", "generate", str(key)]).exit_code == 0
    subject = Store(published).resolve("384a96d0")
    folder = layout.attestation_dir(subject)
    (published / folder).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(published / folder)
    filed = runner.invoke(main, ["--store", str(published), "attest", "384a96d0", "--type",
                                 "note", "--message", "m", "--key", str(key), "--file"])
    assert (filed.exit_code, filed.stdout) == (1, "")
    assert filed.stderr == (
        f"error: {folder} is a FIFO, where the store keeps a directory: kistore writes the "
        "store's files only into its own directories, so nothing was written. `kistore "
        f"verify` names it; if a commit holds it, remove it in its own reviewed change (`git "
        f"rm {folder}`), else delete it, then run this again\n")
