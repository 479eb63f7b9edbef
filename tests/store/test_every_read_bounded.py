"""Every read of a stored file is held to 16 MiB before it is read (res02).

res01 bounded the work tree's reads (a file's ``fstat``); a commit's were not: a 1 GB blob
at an object path was read and inflated whole by ``show --at``, ``compare --at``,
``export`` and ``site build`` (36-130 s, 2.1 GB each), and git's ``read_blob`` (the export's
reader) and ``blob_size`` (the index's size check) inflated it whole too. Now
:meth:`kistore.store.View.read` sets the bound for every view, ``read_blob`` and
``blob_size`` hold a blob to it by its header, and the one error, :class:`FileTooLarge`,
says the file, its size, the limit and what to do. ``add`` of an input file past
``manifest-bytes`` is refused by its size before a byte of it is read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core import layout, limits
from kistore.core.digest import Digest
from kistore.core.limits import FILE_BYTES, FileTooLarge
from kistore.git import blobs
from kistore.store import Store

from ..attest.test_attestation_evidence import RUN
from ..conftest import PUBLISHED, git

MIB20 = 20 << 20
OBJECT = layout.object_path(RUN)


def sparse(path: Path, size: int) -> str:
    """Make a sparse file of ``size`` bytes (no disk, no data) at ``path``; its absolute path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with open(path, "wb") as out:
        out.truncate(size)
    return os.path.abspath(path)


def commit_big(root: Path, size: int) -> str:
    """Commit a ``size``-byte file of zeros at the run's object path (past the gate, as git
    allows), put the work tree's file back; return the commit id (12 hex digits)."""
    sparse(root / OBJECT, size)
    git(root, "add", OBJECT)
    git(root, "commit", "-q", "--no-verify", "-m", "big")
    git(root, "checkout", "-q", "HEAD~1", "--", OBJECT)
    git(root, "reset", "-q")
    return git(root, "rev-parse", "--short=12", "HEAD").strip()


def test_the_bound_is_the_ceiling_of_manifest_bytes():
    assert FILE_BYTES == limits.CEILING.manifest_bytes == 16 << 20


def test_a_work_tree_file_past_the_bound_is_refused_unread_with_what_to_do(
        runner, published, file_reads):
    big = sparse(published / OBJECT, MIB20)
    result = runner.invoke(main, ["--store", str(published), "cat", str(RUN)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {OBJECT}: the file holds 20,971,520 bytes, more than the limit of "
        "16,777,216 (the ceiling of manifest-bytes); not read: kistore writes no file this "
        "large (`kistore verify` reports KI106): restore the file HEAD holds with `git "
        f"checkout HEAD -- {OBJECT}`, or remove it if HEAD holds none\n")
    assert file_reads.get(big, 0) == 0


def test_a_read_asking_a_limit_gets_the_bare_problem(published):
    """``verify`` and the gate ask ``manifest-bytes`` and say KI106 their own way."""
    sparse(published / OBJECT, MIB20)
    with pytest.raises(FileTooLarge) as caught:
        Store(published).view(None).read(OBJECT, 1000)
    assert caught.value.format() == (
        f"{OBJECT}: the file holds 20,971,520 bytes, more than the limit of 1,000 "
        "(manifest-bytes)")
    assert (caught.value.size, caught.value.limit, caught.value.fix) == (MIB20, 1000, None)


def test_a_commit_blob_past_the_bound_is_refused_by_its_header(published, monkeypatch):
    commit = commit_big(published, MIB20)
    blob = git(published, "rev-parse", f"HEAD:{OBJECT}").strip()
    inflated = []
    real = blobs._inflated
    monkeypatch.setattr(blobs, "_inflated", lambda *a, **k: inflated.append(a[0]) or real(*a, **k))
    view = Store(published).view("HEAD")
    with pytest.raises(FileTooLarge) as caught:
        view.read(OBJECT)
    assert caught.value.format() == (
        f"{OBJECT}: the file holds 20,971,520 bytes, more than the limit of 16,777,216 (the "
        f"ceiling of manifest-bytes); not read: commit {commit} holds it, which kistore "
        "never writes and the pull-request gate refuses (KI106): `kistore verify --at "
        f"{commit}` lists every such file; revert the commit that brought it")
    repo = Store(published).repo
    assert blobs.blob_size(repo, blob, OBJECT) == MIB20
    with pytest.raises(FileTooLarge) as caught:
        blobs.read_blob(repo, blob, OBJECT)
    assert caught.value.format() == (  # read for no commit: which verify lists it is unknown
        f"{OBJECT}: the file holds 20,971,520 bytes, more than the limit of 16,777,216 (the "
        "ceiling of manifest-bytes); not read: kistore writes nothing this large and the "
        "pull-request gate refuses it (KI106; KI409 for a note): `kistore verify --at REV` "
        "lists every such file of a commit REV")
    with pytest.raises(FileTooLarge) as caught:  # read for a commit: its verify is named
        blobs.read_blob(repo, blob, OBJECT, commit=commit)
    assert caught.value.format() == (  # review01 L6: it said `kistore verify`
        f"{OBJECT}: the file holds 20,971,520 bytes, more than the limit of 16,777,216 (the "
        f"ceiling of manifest-bytes); not read: commit {commit} holds it, which kistore "
        f"never writes and the pull-request gate refuses (KI106): `kistore verify --at "
        f"{commit}` lists every such file; revert the commit that brought it")
    assert not [f for f in inflated if f.endswith(blob[2:])]  # its header read, not its bytes


def test_add_of_an_input_past_the_limit_is_refused_by_its_size_unread(
        runner, store_path, tmp_path, monkeypatch):
    big = sparse(tmp_path / "run.json", MIB20)
    read = []
    real = limits.read_up_to
    monkeypatch.setattr(limits, "read_up_to", lambda s, n: read.append(n) or real(s, n))
    result = runner.invoke(main, ["--store", str(store_path), "add", big])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {big}: the input holds 20,971,520 bytes, more than the limit of 1,048,576 "
        "(manifest-bytes); not read; for more manifests than fit, use JSON Lines (a .jsonl "
        "file, or - for standard input): one manifest a line, each line within the limit; "
        "raise [limits] manifest-bytes in kistore.toml if this size is meant\n")
    assert read == []


def _peak(store: Path, *args: str) -> tuple[int, str, int]:
    """Run kistore in a child; return its exit status, stderr and peak memory (KiB)."""
    code = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], "
            "capture_output=True, text=True); sys.stderr.write(p.stderr); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
            "sys.exit(p.returncode)")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-P", "-c", code, sys.executable, "-P", "-m",
                           "kistore", "--store", str(store), *args],
                          capture_output=True, text=True, timeout=600, env=env)
    return done.returncode, done.stderr, int(done.stdout.split()[-1])


def test_export_show_and_site_build_of_a_commit_with_a_200_mb_blob_stay_small(
        published, tmp_path):
    """Before: each read the blob whole (a 200 MB blob: > 400 MB of memory each)."""
    commit = commit_big(published, 200 << 20)
    status, err, peak = _peak(published, "export", str(tmp_path / "x"), "--format", "csv",
                              "--without-attestations")
    assert status == 1
    # review01 L6: it said "`kistore verify` lists every such file", which the work tree's
    # verify does not (the work tree holds the file as it was): the commit read is named
    assert err.splitlines()[-1] == (
        f"error: {OBJECT}: the file holds 209,715,200 bytes, more than the limit of "
        f"16,777,216 (the ceiling of manifest-bytes); not read: commit {commit} holds it, "
        "which kistore never writes and the pull-request gate refuses (KI106): `kistore "
        f"verify --at {commit}` lists every such file; revert the commit that brought it")
    assert peak < 150_000, peak
    status, err, peak = _peak(published, "show", str(RUN), "--at", "HEAD")
    assert (status, err) == (1, (
        f"error: {OBJECT}: the file holds 209,715,200 bytes, more than the limit of "
        f"16,777,216 (the ceiling of manifest-bytes); not read: commit {commit} holds it, "
        "which kistore never writes and the pull-request gate refuses (KI106): `kistore "
        f"verify --at {commit}` lists every such file; revert the commit that brought it\n"))
    assert peak < 150_000, peak
    status, err, peak = _peak(published, "site", "build", str(tmp_path / "site"),
                              "--without-attestations")
    assert f"warning: {OBJECT}: holds 209,715,200 bytes, more than the limit of 1,048,576 " \
        "(manifest-bytes); `kistore verify` reports KI106; left out of the site" in err, err
    assert peak < 150_000, peak


def test_add_of_a_run_whose_protocol_file_is_past_the_bound_stops_unread(
        runner, published, tmp_path, file_reads):
    """``add`` reads the stored manifests a new one references: that read is bounded too."""
    shown = runner.invoke(main, ["--store", str(published), "cat", "--manifest", str(RUN)])
    run = json.loads(shown.stdout)
    run["metadata"]["name"] = "res02-another-run"
    run["spec"]["observedAt"] = "2025-01-02T03:04:05Z"
    (tmp_path / "run.json").write_text(json.dumps(run))
    protocol = layout.object_path(Digest.from_str(PUBLISHED["protocol"]))
    big = sparse(published / protocol, MIB20)
    result = runner.invoke(main, ["--store", str(published), "add", str(tmp_path / "run.json")])
    assert (result.exit_code, result.stderr) == (1, (
        f"error: {protocol}: the file holds 20,971,520 bytes, more than the limit of "
        "16,777,216 (the ceiling of manifest-bytes); not read: kistore writes no file this "
        "large (`kistore verify` reports KI106): restore the file HEAD holds with `git "
        f"checkout HEAD -- {protocol}`, or remove it if HEAD holds none\n"))
    assert file_reads.get(big, 0) == 0
    assert git(published, "status", "--porcelain", "-uall").splitlines() == [f" M {protocol}"]
