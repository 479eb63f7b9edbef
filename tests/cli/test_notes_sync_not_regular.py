"""``notes sync`` names an attestation entry that is no regular file (fresh12 F13).

A FIFO named as a bundle under ``store/attestations/`` was passed over unsaid: "0
attestation(s) attached, 0 already present", exit 0, the file not named; ``verify``'s KI111
said "a FIFO, socket or device under store/" and its fix spoke of "the symlink or
submodule". Now ``notes sync`` names it (``lstat``, never an open: a FIFO's waits for ever)
and exits 1, and KI111's fix for it says what it is.
"""

from __future__ import annotations

import hashlib
import os

import pytest

from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import PUBLISHED, store_file
from .test_attestation_cli import run

SUBJECT = Digest.from_str(PUBLISHED["run"])


def _entry(store_path) -> str:
    """A bundle's path under the published run's attestation folder (its folder made)."""
    folder = layout.attestation_dir(SUBJECT)
    (store_path / folder).mkdir(parents=True, exist_ok=True)
    return f"{folder}/{hashlib.sha256(b'x').hexdigest()}.json"


def test_notes_sync_names_a_fifo_it_cannot_attach(runner, record_store, store_path):
    path = _entry(store_path)
    os.mkfifo(store_path / path)
    result = run(runner, store_path, "notes", "sync")
    # before: "0 attestation(s) attached, 0 already present", exit 0, the FIFO unsaid
    assert (result.exit_code, result.stdout) == (1, "0 attestation(s) attached, 0 already "
                                                    "present\n")
    assert result.stderr == (
        f"error: {path}: not attached: a FIFO, not a regular file: kistore "
        "never opens it (a FIFO waits for a writer for ever; `kistore verify` reports it, "
        f"KI111); remove it (`rm {path}`), and write the bundle as a regular file (`kistore "
        "attest --file`) to attach it\n")


@pytest.mark.parametrize("kind", ["symlink", "directory"])
def test_notes_sync_names_a_link_or_a_directory_it_cannot_attach(runner, record_store,
                                                                 store_path, kind):
    path = _entry(store_path)
    if kind == "symlink":
        os.symlink("/etc/hostname", store_path / path)
        said = ("a symbolic link, not a regular file: kistore never follows one under store/ "
                f"(`kistore verify` reports it, KI111); remove it (`rm {path}`)")
    else:
        (store_path / path).mkdir()
        said = ("a directory, not a regular file: an attestation file holds one bundle "
                "(`kistore verify` reports it, KI110); move it out of store/")
    result = run(runner, store_path, "notes", "sync")
    assert result.exit_code == 1, result.output
    assert result.stderr == (f"error: {path}: not attached: {said}, and write the bundle as "
                             "a regular file (`kistore attest --file`) to attach it\n")


def test_verify_s_ki111_fix_for_a_fifo_says_fifo(runner, record_store, store_path):
    path = _entry(store_path)
    os.mkfifo(store_path / path)
    result = run(runner, store_path, "verify")
    assert result.exit_code == 1
    assert "error KI111 not-a-regular-file: a FIFO, socket or device under store/" in (
        result.output), result.output
    # before: "replace the symlink or submodule under store/ by a regular file, or remove it"
    assert ("fix KI111 (1 finding): remove the FIFO, socket or device (`rm "
            f"{path}`): kistore never opens it (a FIFO waits for a writer for ever) and git "
            "cannot commit one; put a regular file there if one was meant\n") in result.output
    assert "symlink" not in result.output


@pytest.mark.parametrize("base", ["objects", "metadata"])
def test_verify_s_only_fix_for_a_fifo_at_a_manifest_path_is_to_remove_it(runner, record_store,
                                                                       store_path, base):
    # fresh14 F4's leftover: beside KI111's `rm PATH`, KI204 (a FIFO object) said "re-add
    # the manifest with `kistore add`" and KI203 (a FIFO metadata file) "add the object the
    # metadata belongs to (`kistore add`)": to add what never was a manifest
    path = store_file("sha256:" + "ab" * 32, base)
    (store_path / path).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(store_path / path)
    result = run(runner, store_path, "verify")
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if line.startswith(path)] == [
        f"{path}: error KI111 not-a-regular-file: a FIFO, socket or device under store/ "
        "(expected a regular file, found a FIFO, socket or device)"]
    fixes = [line for line in result.output.splitlines() if line.startswith("fix ")]
    assert [f for f in fixes if not f.startswith("fix KI201 ")] == [
        f"fix KI111 (1 finding): remove the FIFO, socket or device (`rm {path}`): kistore "
        "never opens it (a FIFO waits for a writer for ever) and git cannot commit one; put a "
        "regular file there if one was meant"]
    assert "kistore add" not in result.output
