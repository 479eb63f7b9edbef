"""A flipped byte in a pack is KI117 of ``verify --at`` (review73b, pack75).

``verify --at`` confirms names and group files by blob id, without reading the blob: a
flipped byte in a PACKED names or group blob passed ``verify --at HEAD`` while ``git fsck``
and ``kistore show --at`` failed on it. Now each pack is checked by its own checksums first
(``kistore.git.packs``), and a damaged one's objects by the CRC-32 its index keeps.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from kistore.check._rules import GIT_OBJECT_UNREADABLE
from kistore.check.audit import pack_findings
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.findings import Finding
from kistore.git import packs

from ..conftest import PUBLISHED, git

NAMES_PATH = layout.name_path("BenchmarkRun", "sol-submission-20464")
"""The published run's names file (committed by the ``record_store`` fixture)."""


def _packed(root: Path) -> tuple[Path, Path]:
    """Pack every object of ``root`` into one pack, no deltas; return (pack, idx)."""
    git(root, "repack", "-a", "-d", "-q", "--window=0")
    [idx] = (root / ".git" / "objects" / "pack").glob("pack-*.idx")
    assert not [p for p in (root / ".git" / "objects").glob("??/*")]  # nothing loose
    return idx.with_suffix(".pack"), idx


def _offsets(idx: Path) -> dict[str, tuple[int, int]]:
    """Each object's (offset, packed length) in the pack, read from its version 2 index."""
    data = idx.read_bytes()
    count = struct.unpack_from(">I", data, 8 + 255 * 4)[0]
    ids = [data[8 + 1024 + 20 * i:8 + 1024 + 20 * (i + 1)].hex() for i in range(count)]
    offsets = struct.unpack_from(f">{count}I", data, 8 + 1024 + 24 * count)
    ends = sorted(offsets) + [idx.with_suffix(".pack").stat().st_size - 20]
    return {oid: (o, ends[ends.index(o) + 1] - o) for oid, o in zip(ids, offsets, strict=True)}


def _flip(file: Path, at: int) -> None:
    """Flip the low bit of the byte at ``at`` (from the end when negative) of ``file``."""
    file.chmod(0o644)
    data = bytearray(file.read_bytes())
    data[at] ^= 1
    file.write_bytes(bytes(data))


def _errors(runner, root: Path, jobs: str = "1") -> list[dict]:
    """``verify --at HEAD --json --jobs JOBS`` (exit 1 asserted): its error findings."""
    result = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD", "--json",
                                  "--jobs", jobs])
    assert result.exit_code == 1, result.output
    return [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]


def _group_path(root: Path) -> tuple[str, str]:
    """The published run's group file: (its path, its blob id)."""
    [listed] = git(root, "ls-tree", "-r", "HEAD", "store/groups").splitlines()
    _, _, oid, path = listed.split(maxsplit=3)
    return path, oid


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("which", ["names", "group"])
def test_a_flipped_byte_in_a_packed_blob_is_ki117_naming_object_and_pack(
        runner, record_store, jobs, which):
    root = Path(record_store.root)
    if which == "names":
        path, oid = NAMES_PATH, git(root, "rev-parse", f"HEAD:{NAMES_PATH}").strip()
    else:
        path, oid = _group_path(root)
    pack, idx = _packed(root)
    offset, length = _offsets(idx)[oid]
    _flip(pack, offset + length // 2)  # inside its deflated bytes
    fsck = subprocess.run(["git", "fsck", "--full"], cwd=root, capture_output=True)
    assert fsck.returncode != 0  # git sees it too

    errors = _errors(runner, root, jobs)
    assert [(f["rule"], f.get("file"), f.get("extra", {})) for f in errors] == [
        ("KI117", path, {"object": oid})]
    # a group file is read again by the unit check, which stops there (as for a loose one)
    assert errors[0]["message"].startswith(
        f"git object {oid} cannot be read (its packed bytes in {pack} fail the pack index's "
        "CRC-32, or are a delta on such bytes)")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_damaged_packed_manifest_is_one_ki117_on_its_file(runner, record_store, jobs):
    # a manifest is read (in a worker with --jobs 2): its KI117 names the pack, and the
    # pack's damage is not said a second time
    root = Path(record_store.root)
    path = layout.object_path(Digest.from_str(PUBLISHED["run"]))
    oid = git(root, "rev-parse", f"HEAD:{path}").strip()
    pack, idx = _packed(root)
    offset, length = _offsets(idx)[oid]
    _flip(pack, offset + length // 2)
    errors = _errors(runner, root, jobs)
    assert [(f["rule"], f.get("file"), f.get("extra", {})) for f in errors] == [
        ("KI117", path, {"object": oid})], errors
    assert str(pack) in errors[0]["message"]


def test_a_flipped_byte_in_the_pack_trailer_is_ki117_naming_the_pack(runner, record_store):
    root = Path(record_store.root)
    pack, _ = _packed(root)
    head = git(root, "rev-parse", "HEAD").strip()
    _flip(pack, -3)
    errors = _errors(runner, root)
    # libgit2 reads no object of a pack whose trailer is not its index's: the check stops
    # at the commit, and the pack's damage says why
    relative = os.path.relpath(pack, root)
    assert [(f["rule"], f.get("file"), f.get("extra", {})) for f in errors] == [
        ("KI117", None, {"object": head}), ("KI117", relative, {})], errors
    assert errors[1]["message"] == (
        "this file of git's object store is damaged: its checksum does not match its "
        "bytes: its trailing checksum is damaged (every object's bytes match the index's CRC-32)")


def test_a_flipped_byte_in_the_pack_index_is_ki117_naming_the_index(runner, record_store):
    root = Path(record_store.root)
    pack, idx = _packed(root)
    count = struct.unpack_from(">I", idx.read_bytes(), 8 + 255 * 4)[0]
    _flip(idx, 8 + 1024 + 20 * count + 1)  # the first object's CRC-32: no lookup sees it
    errors = _errors(runner, root)
    assert [(f["rule"], f.get("file"), f.get("extra", {})) for f in errors] == [
        ("KI117", os.path.relpath(idx, root), {})]
    assert errors[0]["message"] == ("this file of git's object store is damaged: its "
                                    "checksum does not match its bytes")
    assert errors[0]["hint"] == (
        f"the pack is sound: write its index again with `git index-pack {pack}`")


def test_an_untouched_packed_repository_passes(runner, record_store):
    root = Path(record_store.root)
    _packed(root)
    result = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD", "--json"])
    assert result.exit_code == 0, result.output
    assert packs.check_packs(record_store.repo) == []


def test_each_pack_is_hashed_once_while_unchanged(record_store, monkeypatch):
    root = Path(record_store.root)
    pack, _ = _packed(root)
    hashed = []
    real = packs._check_pack
    monkeypatch.setattr(packs, "_check_pack", lambda *a: hashed.append(a) or real(*a))
    assert packs.check_packs(record_store.repo) == []
    assert packs.check_packs(record_store.repo) == []
    assert len(hashed) == 1
    _flip(pack, -3)  # a new size or time: checked again, and found damaged
    os.utime(pack, ns=(1, 1))
    [damage] = packs.check_packs(record_store.repo)
    assert (damage.file, damage.objects) == (str(pack), ())
    assert len(hashed) == 2


def test_a_delta_on_a_damaged_base_is_damaged_too(record_store):
    root = Path(record_store.root)
    for i in range(3):  # three similar blobs: git deltas them on one another
        (root / "notes.txt").write_text("line\n" * 200 + f"change {i}\n")
        git(root, "add", "notes.txt")
        git(root, "commit", "-q", "--no-verify", "-m", f"notes {i}")
    git(root, "repack", "-a", "-d", "-q", "-f", "--depth=50", "--window=10")
    [idx] = (root / ".git" / "objects" / "pack").glob("pack-*.idx")
    verified = git(root, "verify-pack", "-v", str(idx))
    chains = [line.split() for line in verified.splitlines() if len(line.split()) == 7]
    assert chains, verified  # some blob is a delta: (id, type, size, packed, offset, depth, base)
    delta, base = chains[0][0], chains[0][6]
    offset, length = _offsets(idx)[base]
    _flip(idx.with_suffix(".pack"), offset + length - 2)
    [damage] = packs.check_packs(record_store.repo)
    assert base in damage.objects and delta in damage.objects


def test_a_damaged_multi_pack_index_is_ki117_naming_it(runner, record_store):
    root = Path(record_store.root)
    _packed(root)
    git(root, "multi-pack-index", "write")
    midx = root / ".git" / "objects" / "pack" / "multi-pack-index"
    result = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD", "--json"])
    assert result.exit_code == 0, result.output  # a sound one is read, and passes
    _flip(midx, -3)
    errors = _errors(runner, root)
    assert [(f["rule"], f.get("file"), f.get("extra", {})) for f in errors] == [
        ("KI117", os.path.relpath(midx, root), {})], errors
    assert errors[0]["message"] == ("this file of git's object store is damaged: its "
                                    "checksum does not match its bytes")
    assert errors[0]["hint"] == ("remove it (git and libgit2 read the packs without it) or "
                                  "write it again: `git multi-pack-index write`")


def test_a_flipped_byte_in_a_kept_pack_of_an_alternate_is_ki117(runner, record_store, tmp_path):
    # a clone borrowing its objects (`git clone --shared`: objects/info/alternates) reads
    # the names blob from the origin's pack, a .keep pack here: it is checked as its own
    root = Path(record_store.root)
    pack, idx = _packed(root)
    pack.with_suffix(".keep").write_text("kept\n")
    clone = tmp_path / "borrowing"
    git(tmp_path, "clone", "-q", "--shared", str(root), str(clone))
    assert not list((clone / ".git" / "objects" / "pack").glob("*.pack"))
    oid = git(clone, "rev-parse", f"HEAD:{NAMES_PATH}").strip()
    offset, length = _offsets(idx)[oid]
    _flip(pack, offset + length // 2)
    errors = _errors(runner, clone)
    assert [(f["rule"], f.get("file"), f.get("extra", {})) for f in errors] == [
        ("KI117", NAMES_PATH, {"object": oid})], errors
    assert str(pack) in errors[0]["message"]


def test_a_pack_finding_lists_only_the_objects_no_file_said_and_five_in_its_message():
    ids = [f"{i:040x}" for i in range(1, 9)]
    damage = packs.PackDamage("/r/.git/objects/pack/pack-1.pack",
                              "its checksum does not match its bytes", tuple(ids))
    said = Finding(GIT_OBJECT_UNREADABLE, "read", file="store/x", extra={"object": ids[0]})
    store = SimpleNamespace(root=Path("/r"), repo=SimpleNamespace(path="/r/.git/"))
    [finding] = pack_findings(store, [damage], [said])
    assert finding.file == ".git/objects/pack/pack-1.pack"
    assert finding.extra == {"objects": ids[1:]}
    assert finding.message == (
        "this file of git's object store is damaged: its checksum does not match its "
        "bytes; its damaged objects no file of the store was read from: "
        f"{', '.join(ids[1:6])} and 2 more")
    assert finding.hint == packs.FSCK
    # every object said by a file's finding: nothing more to say of that pack
    everyone = [Finding(GIT_OBJECT_UNREADABLE, "read", extra={"object": i}) for i in ids]
    assert pack_findings(store, [damage], everyone) == []
    # an alternate's pack (outside the repository): its absolute path
    far = packs.PackDamage("/shared/objects/pack/pack-2.pack", "it is cut short")
    assert [f.file for f in pack_findings(store, [far], [])] == [far.file]


def test_the_damaged_pack_fix_run_as_printed_clears_verify(runner, record_store, tmp_path):
    """fresh99 M2: a good clone's pack copied in, the damaged pack is moved out, by name."""
    root = Path(record_store.root)
    good = tmp_path / "good"
    git(tmp_path, "clone", "-q", "--no-local", str(root), str(good))
    tree = git(root, "rev-parse", "HEAD:store/objects").strip()
    pack, idx = _packed(root)
    offset, length = _offsets(idx)[tree]
    _flip(pack, offset + length // 2)
    assert _errors(runner, root)[0]["rule"] == "KI117"
    # damaged a minute before the copy below, as a pack is: libgit2 tries the newest pack
    # first, and a tie in mtime (ci141) let it read the tree from the damaged one
    stat = pack.stat()
    os.utime(pack, (stat.st_atime - 60, stat.st_mtime - 60))
    # the fix's first step: a good clone's pack copied in (every object readable again)
    git(good, "repack", "-a", "-d", "-q")
    for copied in (good / ".git" / "objects" / "pack").glob("pack-*.*"):
        (pack.parent / copied.name).write_bytes(copied.read_bytes())
    # the damaged pack is still there: its checksum fails (and libgit2 may still read the
    # tree from it, whichever pack it tries first: a KI117 on store/objects beside, ci141)
    errors = _errors(runner, root)
    named = [e for e in errors if e["file"] == os.path.relpath(pack, root)]
    if named:  # the pack's own finding names both files and the command that moves them
        [said] = named
        fix = said["hint"]
        assert f"mv {pack} {idx}" in fix and f"into {pack.parent}/" in fix
        [move] = [part for part in fix.split("`") if part.startswith("mkdir -p ")]
    else:  # libgit2 read the tree from the damaged pack first (ci141): that KI117 says it
        assert all(e["rule"] == "KI117" for e in errors), errors
        assert "move a damaged pack" in errors[0]["hint"], errors
        move = f"mkdir -p damaged && mv {pack} {idx} damaged/"
    subprocess.run(move, shell=True, cwd=root, check=True)
    assert not pack.exists() and not idx.exists()
    result = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD"])
    assert result.exit_code == 0, result.output
