"""A damaged names-file blob is KI117 of ``verify --at`` (review F6).

``verify --at`` confirms a names file by its blob id (no read): equal ids are equal bytes,
but only of a whole object. A loose object file with a flipped bit, or holding another
object's bytes, passed ``verify --at HEAD`` while ``kistore check`` and ``git fsck``
failed. Now one open of the loose file (none when it is packed) sees it, and verify reports
KI117 naming the path and the object, and nothing else about that name (no KI211).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core import layout

from ..conftest import PUBLISHED, git

NAMES_PATH = layout.name_path("BenchmarkRun", "sol-submission-20464")
"""The published run's names file (committed by the ``record_store`` fixture)."""


def flip(data: bytes) -> bytes:
    """A loose object's inflated bytes with one bit of its body flipped."""
    raw = bytearray(data)
    raw[-5] ^= 1
    return bytes(raw)


def other_object(_: bytes) -> bytes:
    """The inflated bytes of another blob (``hello\\n``): the file holds another object."""
    return b"blob 6\x00hello\n"


@pytest.mark.parametrize("damage", [flip, other_object])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_verify_at_head_reports_a_damaged_names_blob_as_ki117(runner, record_store, damage,
                                                              jobs):
    root = Path(record_store.root)
    oid = git(root, "rev-parse", f"HEAD:{NAMES_PATH}").strip()
    loose = root / ".git" / "objects" / oid[:2] / oid[2:]
    inflated = zlib.decompress(loose.read_bytes())
    assert inflated == b"blob 72\x00" + f"{PUBLISHED['run']}\n".encode()
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(damage(inflated)))

    result = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD", "--json",
                                  "--jobs", jobs])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    errors = [(f["rule"], f["file"], f["extra"]) for f in report["findings"]
              if f["severity"] == "error"]
    assert errors == [("KI117", NAMES_PATH, {"object": oid})]  # no KI211 of the run after it
    (finding,) = [f for f in report["findings"] if f["rule"] == "KI117"]
    assert finding["message"] == (f"git object {oid} cannot be read (its loose object file "
                                  "holds another object's bytes)")

    human = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD"])
    assert human.exit_code == 1
    assert (f"{NAMES_PATH}: error KI117 git-object-unreadable: git object {oid} cannot be "
            "read (its loose object file holds another object's bytes)") in human.stdout
    assert "FAILED: store at HEAD: 1 error" in human.stdout


def test_a_whole_names_blob_is_confirmed_without_a_finding(runner, record_store):
    result = runner.invoke(main, ["--store", str(record_store.root), "verify", "--at", "HEAD",
                                  "--json"])
    assert result.exit_code == 0, result.output
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]
            if f["severity"] == "error"] == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_verify_at_head_reports_a_deleted_names_blob_as_ki117(runner, record_store, jobs):
    # review73 F14: a deleted names blob passed `verify --at HEAD` (its id equals the
    # record's, and nothing asked whether the object is here); git fsck says "missing blob"
    root = Path(record_store.root)
    oid = git(root, "rev-parse", f"HEAD:{NAMES_PATH}").strip()
    (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()

    result = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD", "--json",
                                  "--jobs", jobs])
    assert result.exit_code == 1, result.output
    errors = [(f["rule"], f["file"], f["extra"]) for f in json.loads(result.stdout)["findings"]
              if f["severity"] == "error"]
    assert errors == [("KI117", NAMES_PATH, {"object": oid})]


def _group_blob(root: Path) -> tuple[str, Path, str]:
    """The published run's group file: (its path, its loose object file, its blob id)."""
    [listed] = git(root, "ls-tree", "-r", "HEAD", "store/groups").splitlines()
    _, _, oid, path = listed.split(maxsplit=3)
    return path, root / ".git" / "objects" / oid[:2] / oid[2:], oid


def _verify_at_head_errors(runner, root: Path) -> list[tuple[str, str, dict[str, str]]]:
    """``verify --at HEAD --json`` (exit 1 asserted): (rule, file, extra) of each error."""
    result = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD", "--json"])
    assert result.exit_code == 1, result.output
    return [(f["rule"], f["file"], f["extra"]) for f in json.loads(result.stdout)["findings"]
            if f["severity"] == "error"]


def test_verify_at_head_reports_a_deleted_group_blob_as_ki117(runner, record_store):
    # review73 F14: a group file's blob is compared by id too (CommitView.holds)
    root = Path(record_store.root)
    path, loose, oid = _group_blob(root)
    loose.unlink()
    assert _verify_at_head_errors(runner, root) == [("KI117", path, {"object": oid})]


def test_verify_at_head_reports_a_flipped_group_blob_as_ki117(runner, record_store):
    # a group file is confirmed by blob id as a names file is (CommitView.holds): its loose
    # file is read there too, so a flipped bit in it is found as in a names file (F6)
    root = Path(record_store.root)
    path, loose, oid = _group_blob(root)
    inflated = zlib.decompress(loose.read_bytes())
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(flip(inflated)))
    assert _verify_at_head_errors(runner, root) == [("KI117", path, {"object": oid})]
