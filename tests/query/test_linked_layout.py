"""A symlink or file committed where the store keeps a directory (r70 F1, F2).

``add`` refuses such a store (:func:`kistore.git.writer.refuse_links`) and ``verify``
reports it (KI110/KI111); the stores here are made with the real git binary, past the
hooks, as a hostile or careless pusher would. The reading side must leave the path out
(with a warning where it reads the work tree), never crash and never read through it.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from kistore.cli import main

from ..conftest import commit_all


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


def _replace(root, path, how, elsewhere):
    """Commit a symlink (to a copy of the directory, outside the store) or a file at ``path``."""
    target = root / path
    if target.is_dir():
        shutil.copytree(target, elsewhere)
        shutil.rmtree(target)
    else:
        elsewhere.mkdir(parents=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    if how == "symlink":
        os.symlink(elsewhere, target)
    else:
        target.write_bytes(b"not a directory\n")
    commit_all(root, f"{how} at {path}")


@pytest.mark.parametrize("how", ["symlink", "file"])
@pytest.mark.parametrize("path", ["store/objects/sha256", "store/attestations/sha256"])
def test_a_committed_non_directory_at_a_layout_directory_is_left_out_not_a_crash(
        runner, group, tmp_path, how, path):
    # `ls`, `rank`, `site build`, `export` and `attestations` of such a commit ended in
    # "internal error: this is a bug in kistore" (TypeError: '_pygit2.Blob' object is not
    # iterable; InvalidSpecError for store/attestations/sha256)
    _replace(group.root, path, how, tmp_path / "elsewhere")
    objects_gone = path == "store/objects/sha256"
    result = run(runner, group.root, "ls", "--at", "HEAD")
    assert result.exit_code == 0, result.output
    assert ("BenchmarkRun" in result.stdout) is not objects_gone
    result = run(runner, group.root, "rank", "BenchmarkRun/fast", "--at", "HEAD")
    assert result.exit_code == (1 if objects_gone else 0), result.output
    assert "internal error" not in result.output
    if objects_gone:
        assert result.stderr.startswith("error: no BenchmarkRun named 'fast' at HEAD")
    else:
        result = run(runner, group.root, "attestations", "BenchmarkRun/fast")
        assert result.exit_code == 0, result.output
        assert "community: 0 signers" in result.stdout
    result = run(runner, group.root, "site", "build", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "site" / "index.html").is_file()
    result = run(runner, group.root, "export", str(tmp_path / "export"), "--format", "csv")
    assert result.exit_code == 0, result.output
    assert ("runs 0," in result.stdout) is objects_gone


def _link_directory(root, path, elsewhere, edit=None):
    """Commit ``path`` as a symlink to a copy of it outside the store (``edit``: its files')."""
    target = root / path
    shutil.copytree(target, elsewhere)
    for file in elsewhere.iterdir():
        if edit is not None:
            file.write_bytes(edit(file.read_bytes()))
    shutil.rmtree(target)
    os.symlink(elsewhere, target)
    commit_all(root, f"symlink at {path}")


LEFT_OUT = ("warning: {}: is a symbolic link where the store keeps a directory; nothing "
            "under it was read (left out as absent); `kistore verify` reports it (KI111)\n")


def test_show_does_not_read_metadata_through_a_symlinked_shard_directory(
        runner, group, tmp_path):
    # r70 F2: `show` printed a title read from a file outside the repository, no warning
    # (O_NOFOLLOW covers only the last name of the path)
    from kistore.core import layout
    from kistore.store import Store

    fast = Store(group.root).resolve("BenchmarkRun/fast")
    shard = layout.metadata_path(fast).rpartition("/")[0]
    _link_directory(group.root, shard, tmp_path / "outside",
                    lambda data: data.replace(b'"fast"', b'"evil"'))
    result = run(runner, group.root, "show", str(fast))
    assert result.exit_code == 1, result.output
    assert "evil" not in result.output
    assert result.stderr == (f"error: {layout.metadata_path(fast)}: object {fast} has no "
                             "metadata file\n" + LEFT_OUT.format(shard))
    result = run(runner, group.root, "ls", "--json")
    assert result.exit_code == 0, result.output
    names = [row["name"] for row in json.loads(result.stdout)]
    assert "slow" in names and "fast" not in names and "evil" not in names
    assert LEFT_OUT.format(shard) in result.stderr


def test_cat_does_not_read_an_object_through_a_symlinked_objects_directory(
        runner, group, tmp_path):
    from kistore.core import layout
    from kistore.store import Store

    fast = Store(group.root).resolve("BenchmarkRun/fast")
    _link_directory(group.root, layout.OBJECTS_DIR, tmp_path / "outside")
    result = run(runner, group.root, "cat", str(fast))
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert result.stderr.endswith(LEFT_OUT.format(layout.OBJECTS_DIR))


def test_trust_is_not_read_through_a_symlinked_trust_directory(runner, group, tmp_path):
    # r70 F2: `trust list` printed a key of a keys.json outside the repository (and
    # `attestations` judged signatures against it)
    from kistore.attest import signing
    from kistore.core import layout

    from ..conftest import fixed_key

    public = fixed_key(2).public_key()
    added = run(runner, group.root, "trust", "add", signing.public_key_line(public),
                "--role", "rerun")
    assert added.exit_code == 0, added.output
    listed = run(runner, group.root, "trust", "list")
    assert signing.keyid(public) in listed.stdout  # read from the store's own directory
    trust_dir = layout.TRUST_FILE.rpartition("/")[0]
    _link_directory(group.root, trust_dir, tmp_path / "outside")
    listed = run(runner, group.root, "trust", "list")
    assert listed.exit_code == 0, listed.output
    assert signing.keyid(public) not in listed.stdout
    assert listed.stderr == LEFT_OUT.format(trust_dir)


def test_each_store_and_view_records_the_links_its_own_reads_met(group, tmp_path):
    # no process-wide record: a library read before a command is not the command's to warn
    # of, and two stores (or a view made apart) keep their own
    from pathlib import Path

    from kistore.core import layout
    from kistore.store import Store, WorkTreeView

    fast = Store(group.root).resolve("BenchmarkRun/fast")
    shard = layout.metadata_path(fast).rpartition("/")[0]
    _link_directory(group.root, shard, tmp_path / "outside")
    reader, other = Store(group.root), Store(group.root)
    assert reader.view().read(layout.metadata_path(fast)) is None  # never read through
    assert reader.linked_dirs() == [shard]
    assert reader.view().list_dir(shard) == [] and reader.linked_dirs() == [shard]
    assert other.linked_dirs() == []
    apart = WorkTreeView(Path(group.root))
    assert apart.linked == set()
    assert apart.read(layout.metadata_path(fast)) is None
    assert apart.linked == {shard} and other.linked_dirs() == []
