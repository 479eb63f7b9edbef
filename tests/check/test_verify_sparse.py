"""``kistore verify`` of a sparse checkout's work tree (issue 22).

A file outside the checkout is skip-worktree: git holds it as committed, and so does verify
(libgit2's status called every one deleted: KI402 for each). A file inside the checkout
that is gone is still KI402 (edited: KI401), and a committed file outside it with other
bytes still fails.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from click.testing import CliRunner

from kistore.check import audit
from kistore.cli import main
from kistore.store import Store

from ..conftest import commit_all, findings_lines, git, store_file, write_raw
from ..sparse import MODES, sparse_clone, sparse_clone_set


def _verify(root, *args: str):
    return CliRunner().invoke(main, ["--store", str(root), "verify", *args])


def _clone(group, tmp_path, mode: str) -> tuple[os.PathLike[str], str]:
    run = str(Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow"))
    return sparse_clone(group.root, tmp_path / "clone", mode, run), run


@pytest.mark.parametrize("mode", MODES)
def test_verify_of_a_sparse_clone_passes_as_the_full_clone_does(group, tmp_path, mode):
    clone, _ = _clone(group, tmp_path, mode)
    full = _verify(group.root)
    done = _verify(clone)
    assert full.exit_code == 0, full.output
    assert done.exit_code == 0, done.output
    assert "KI402" not in done.output
    assert done.output.splitlines()[-1] == full.output.splitlines()[-1]  # same counts


@pytest.mark.parametrize("mode", MODES)
def test_an_object_deleted_inside_the_checkout_is_still_ki402(group, tmp_path, mode):
    clone, run = _clone(group, tmp_path, mode)
    path = store_file(run)
    os.unlink(os.path.join(clone, path))
    done = _verify(clone)
    assert done.exit_code == 1
    deleted = [line for line in findings_lines(done.output) if "KI402" in line]
    assert deleted == [f"{path}: error KI402 object-deleted: deleted in the work tree or index "
                       "(present in HEAD)"]


@pytest.mark.parametrize("mode", ["no-cone", "cone-sparse-index"])
def test_an_object_edited_inside_the_checkout_is_still_ki401(group, tmp_path, mode):
    clone, run = _clone(group, tmp_path, mode)
    path = store_file(run)
    write_raw(clone, path, b'{"edited": true}\n')
    done = _verify(clone)
    assert done.exit_code == 1
    assert (f"{path}: error KI401 object-modified: modified in the work tree or index (HEAD "
            "holds other bytes)") in done.output.splitlines()
    assert f"{path}: error KI101 object-digest-mismatch" in done.output


@pytest.mark.parametrize("jobs", ["1", "2"])  # 2: worker processes read HEAD's blobs
def test_a_tampered_object_outside_the_checkout_fails(group, tmp_path, jobs):
    run = Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow")
    digest = next(d for d in Store(group.root).view().digests() if d.hex[:2] != run.hex[:2])
    path = store_file(str(digest))
    write_raw(group.root, path, b'{"tampered": true}')
    commit_all(group.root, "an object committed with other bytes (past the hooks)")
    clone, _ = _clone(group, tmp_path, "cone")
    assert not (clone / path).exists()
    done = _verify(clone, "--jobs", jobs)
    assert done.exit_code == 1
    assert f"{path}: error KI101 object-digest-mismatch" in done.output


def test_after_add_commit_verify_still_passes(group, tmp_path, kit):
    from ..conftest import add_docs

    clone, _ = _clone(group, tmp_path, "no-cone")
    add_docs(Store(clone), [kit.workload("softmax", name="sparse-new-workload")])
    done = _verify(clone)
    assert done.exit_code == 0, done.output
    assert git(clone, "status", "--porcelain") == ""


def _store_only(group, tmp_path):
    """A non-cone clone of ``store/`` alone: .gitattributes and kistore.toml are outside."""
    clone = sparse_clone_set(group.root, tmp_path / "clone", "--no-cone", "/store/")
    assert not (clone / ".gitattributes").exists() and not (clone / "kistore.toml").exists()
    return clone


def test_gitattributes_outside_the_checkout_reads_as_head_s(group, tmp_path):
    clone = _store_only(group, tmp_path)
    full, done = _verify(group.root), _verify(clone)
    assert full.exit_code == 0, full.output
    assert done.exit_code == 0, done.output  # was: ".gitattributes: error KI113 ..."
    assert "KI113" not in done.output
    assert done.output.splitlines()[-1] == full.output.splitlines()[-1]


def test_a_head_gitattributes_without_the_line_is_still_ki113_outside_the_checkout(
        group, tmp_path):
    write_raw(group.root, ".gitattributes", b"*.txt text\n")
    commit_all(group.root, "the store/** line dropped (past the hooks)")
    clone = _store_only(group, tmp_path)
    done, at_head = _verify(clone), _verify(clone, "--at", "HEAD")
    line = (".gitattributes: error KI113 gitattributes-missing: nothing stops end-of-line or "
            "filter conversion of store/ (expected store/** -text -eol -filter -ident "
            "-working-tree-encoding, found no such line)")
    assert done.exit_code == 1 and at_head.exit_code == 1
    assert line in done.output.splitlines()
    assert line in at_head.output.splitlines()


def test_kistore_toml_outside_the_checkout_sets_the_limits(group, tmp_path):
    """``[limits]`` of HEAD's kistore.toml apply (defaults would pass what HEAD refuses)."""
    write_raw(group.root, "kistore.toml", b"[limits]\nmanifest-bytes = 200\n")
    commit_all(group.root, "a limit below the manifests' size")
    full = _verify(group.root)
    assert full.exit_code == 1 and "KI106" in full.output
    clone = _store_only(group, tmp_path)
    assert Store(clone).limits().manifest_bytes == 200
    done = _verify(clone)
    assert done.exit_code == 1
    def findings(output: str) -> list[str]:  # KI308 says whether the notes were fetched
        return sorted(line for line in output.splitlines() if "KI308" not in line)

    assert findings(done.output) == findings(full.output)
    assert any("KI106" in line for line in findings(done.output))


def _staged_outside(group, tmp_path, path: str, data: bytes):
    """A store-only clone with a commit changing ``path`` to ``data`` staged, not committed
    (``git cherry-pick -n``), and a full clone with the same change staged."""
    git(group.root, "checkout", "-q", "-b", "change")
    write_raw(group.root, path, data)
    commit_all(group.root, f"change {path}")
    git(group.root, "checkout", "-q", "main")
    clone = _store_only(group, tmp_path)
    git(tmp_path, "clone", "-q", str(group.root), "full")
    full = tmp_path / "full"
    for root in (clone, full):
        git(root, "cherry-pick", "-n", "origin/change")
    assert not (clone / path).exists()
    assert git(clone, "diff", "--cached", "--name-only") == f"{path}\n"
    return clone, full


def test_a_kistore_toml_staged_outside_the_checkout_sets_the_limits(group, tmp_path):
    """The index's kistore.toml, not HEAD's: a lower limit staged applies as in a full clone."""
    assert Store(group.root).limits().manifest_bytes == 1 << 20
    clone, full = _staged_outside(group, tmp_path, "kistore.toml",
                                  b"[limits]\nmanifest-bytes = 200\n")
    assert Store(clone).limits().manifest_bytes == 200
    assert Store(clone).limits("HEAD").manifest_bytes == 1 << 20
    done, in_full = _verify(clone), _verify(full)
    assert in_full.exit_code == 1 and "KI106" in in_full.output

    def findings(output: str) -> list[str]:  # KI308 says whether the notes were fetched
        return sorted(line for line in output.splitlines() if "KI308" not in line)

    assert findings(done.output) == findings(in_full.output)
    git(clone, "reset", "-q")  # unstaged: HEAD's again
    assert Store(clone).limits().manifest_bytes == 1 << 20


def test_a_bad_kistore_toml_staged_outside_the_checkout_is_ki108_as_in_a_full_clone(
        group, tmp_path):
    # the staged file is read (HEAD's is valid); verify reports it as KI108 (units60: it
    # stopped with an error naming the file by its work-tree path)
    clone, full = _staged_outside(group, tmp_path, "kistore.toml",
                                  b"[limits]\nmanifest-byte = 200\n")
    for root in (clone, full):
        done = CliRunner().invoke(main, ["--store", str(root), "verify"])
        assert done.exit_code == 1
        assert ("kistore.toml:2:1:/limits/manifest-byte: error KI108 settings-invalid: unknown "
                "limit 'manifest-byte'") in done.output


def test_a_gitattributes_staged_outside_the_checkout_is_read(group, tmp_path):
    """A staged .gitattributes without the store line is KI113, as in a full clone."""
    clone, full = _staged_outside(group, tmp_path, ".gitattributes", b"*.txt text\n")
    done, in_full = _verify(clone), _verify(full)
    line = (".gitattributes: error KI113 gitattributes-missing: nothing stops end-of-line or "
            "filter conversion of store/ (expected store/** -text -eol -filter -ident "
            "-working-tree-encoding, found no such line)")
    assert line in in_full.output.splitlines()
    assert line in done.output.splitlines()


def test_verify_compares_the_index_with_head_once_and_keeps_a_sparse_index_sparse(
        group, tmp_path, monkeypatch):
    """One ``git diff --cached`` a process: the sparse listing's answer also says whether the
    index holds HEAD's objects (``git diff-index`` asked again, and expanded a sparse index to
    every file: ``ensure_full_index`` in git's trace, seconds at millions of files)."""
    # every object in the checkout: what the workers read proves the work tree's objects
    # HEAD's, and only the index is left to ask about (the rest of store/ is sparse)
    clone = sparse_clone_set(group.root, tmp_path / "clone", "--cone", "--sparse-index",
                             "store/objects", "store/metadata")
    assert "S store/policy/\0" in git(clone, "ls-files", "-t", "-z", "--sparse")
    path = store_file(str(Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow")))
    real, children = subprocess.run, []

    def spy(args, *rest, **kw):
        children.append(list(args))
        return real(args, *rest, **kw)

    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE2_PERF", str(trace))
    monkeypatch.setattr(subprocess, "run", spy)

    def history():
        children.clear()
        found = audit.verify(Store(clone), workers=1)
        return [(f.rule.id, f.file) for f in found if f.rule.id in ("KI401", "KI402")]

    assert history() == []
    diffs = [c for c in children if "diff" in c or "diff-index" in c]
    assert len(diffs) == 1 and "--raw" in diffs[0]  # kistore.git.sparse's, none more
    before = (clone / path).read_bytes()
    write_raw(clone, path, b'{"edited": true}\n')
    git(clone, "add", path)
    write_raw(clone, path, before)  # only the index differs from HEAD now
    assert history() == [("KI401", path)]
    assert [c for c in children if "diff-index" in c] == []
    assert "ensure_full_index" not in trace.read_text()
