"""A work-tree file past the ceiling of ``manifest-bytes`` is said too large once, never read.

fresh03 H3: a stray 1 GB file under ``store/`` (at an object path, untracked) made a
``rank`` of an unrelated group take 56 s and 1 GB: it was read whole six times (loading
the changed manifests, the overlay's unreadable list, the warning's damage, the rename
checks) and called "corrupt: its sha256 is ...". At a tracked path (a run's metadata
file) the query index's freshness check read and hashed it whole twice more (100 s, 2 GB).
Each read of the work tree asking no limit is now bounded by :data:`kistore.store.
WORK_TREE_BYTES` (16 MiB, the ceiling) by the file's ``fstat``; the warning says the
file's size and the limit, as KI106 says it.
"""

from __future__ import annotations

import os

import pytest

from kistore.attest import notes
from kistore.cli import main
from kistore.core import layout
from kistore.store import WORK_TREE_BYTES, Store

from ..attest.test_attestation_evidence import RUN, STRANGER, bundle

STRAY = "store/objects/sha256/ab/" + "d" * 62 + ".json"
STRAY_DIGEST = "sha256:ab" + "d" * 62


def stray(root, path: str, size: int) -> str:
    """Make a sparse file of ``size`` bytes at ``path`` (no disk, no data); its absolute path."""
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    with open(file, "wb") as out:
        out.truncate(size)
    return os.path.abspath(file)


def rank(runner, root, status: int = 0):
    result = runner.invoke(main, ["--store", str(root), "rank", str(RUN)])
    assert result.exit_code == status, result.output
    return result


def test_a_stray_file_past_the_bound_is_said_too_large_once_and_never_read(
        runner, published, file_reads):
    assert WORK_TREE_BYTES == 16 << 20
    big = stray(published, STRAY, WORK_TREE_BYTES + 1)
    result = rank(runner, published)
    assert [line for line in result.stderr.splitlines() if "sha256/ab/" in line or
            STRAY_DIGEST in line] == [
        f"warning: 1 manifest(s) in the work tree do not verify and are left out: "
        f"{STRAY_DIGEST}; run `kistore verify`",
        f"warning: {STRAY}: the object file holds 16,777,217 bytes, more than the limit of "
        "16,777,216 (the ceiling of manifest-bytes); `kistore verify` reports KI106; "
        f"`kistore drop {STRAY_DIGEST}` removes the files of its add (never committed: git "
        "has no copy), then add the corrected manifest again"]
    assert file_reads.get(big, 0) == 0  # before: read whole six times


def test_a_stray_file_at_the_bound_is_read(runner, published, file_reads):
    """The record above is no blind one: a file of exactly the bound is read (and is no JSON)."""
    big = stray(published, STRAY, WORK_TREE_BYTES)
    result = rank(runner, published)
    assert f"warning: {STRAY}: the object file is corrupt: its sha256 is " in result.stderr
    assert "more than the limit" not in result.stderr
    assert file_reads[big] >= WORK_TREE_BYTES


def test_a_tracked_metadata_file_past_the_bound_is_said_too_large_and_never_read(
        runner, published, file_reads):
    path = layout.metadata_path(RUN)
    big = stray(published, path, WORK_TREE_BYTES + 1)
    result = rank(runner, published, 1)  # the run asked of cannot be read
    assert result.stderr == (
        f"error: {path}: the metadata file holds 16,777,217 bytes, more than the limit of "
        "16,777,216 (the ceiling of manifest-bytes); `kistore verify` reports KI106; HEAD "
        f"holds it as kistore wrote it: restore it with `git checkout HEAD -- {path}`, and "
        "run `kistore verify` to find any other damaged file\n")
    assert file_reads.get(big, 0) == 0  # before: hashed whole twice, read whole four times


@pytest.mark.parametrize("where", ["objects", "metadata"])
def test_verify_says_a_file_past_the_bound_as_ki106_unread(runner, published, file_reads,
                                                           where):
    path = layout.object_path(RUN) if where == "objects" else layout.metadata_path(RUN)
    big = stray(published, path, WORK_TREE_BYTES + 1)
    result = runner.invoke(main, ["--store", str(published), "verify"])
    assert result.exit_code == 1
    assert (f"{path}: error KI106 file-too-large: the file holds 16,777,217 bytes, more than "
            "the limit of 1,048,576 (manifest-bytes)") in result.output, result.output
    assert file_reads.get(big, 0) == 0


def test_verify_with_notes_says_a_stray_file_past_the_bound_unread(runner, published,
                                                                   file_reads):
    """With notes, ``verify`` maps each object file to its blob id: one past the bound is
    left out of that map, unread (fresh03: 69 s and 2 GB, source not found until then)."""
    notes.attach(Store(published), RUN, bundle(STRANGER, "reproduction"))
    big = stray(published, STRAY, WORK_TREE_BYTES + 1)
    result = runner.invoke(main, ["--store", str(published), "verify"])
    assert result.exit_code == 1, result.output
    assert (f"{STRAY}: error KI106 file-too-large: the file holds 16,777,217 bytes, more than "
            "the limit of 1,048,576 (manifest-bytes)") in result.output, result.output
    assert "attestation-trusted" in result.output or "KI30" in result.output
    assert file_reads.get(big, 0) == 0  # before: read and hashed whole
