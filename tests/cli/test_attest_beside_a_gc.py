"""``kistore attest`` beside a ``git gc`` (break97 M5): the command, not the function.

A gc loop beside refused about 1 attest in 15 with libgit2's raw words ("failed to rename
lockfile to '.../objects/7c/...': No such file or directory", "failed to lock file
'.../refs/kistore/notes-tmp-....lock' for writing: "). The races are made deterministic
by tests/git/conftest.py's seams; the CLI runs in this process, real libgit2 writing.
"""

from __future__ import annotations

import uuid

import pytest

from kistore.attest import signing
from kistore.cli import main
from kistore.core.layout import NOTES_REF

from ..conftest import PUBLISHED, fixed_key, git
from ..git.conftest import note_commits_failing, pack_refs_beside

RUN_REF = "BenchmarkRun/sol-submission-20464"
SCRATCH = "refs/kistore/notes-tmp-" + "0" * 31 + "1"


@pytest.fixture
def attest(runner, record_store, store_path, tmp_path):
    """Run ``kistore attest RUN --type note -m TEXT`` with a key; return the result."""
    key = tmp_path / "k"
    key.write_bytes(signing.private_key_bytes(fixed_key(1)))

    def run(text: str):
        return runner.invoke(main, ["--store", str(store_path), "attest", RUN_REF, "--type",
                                    "note", "-m", text, "--key", str(key)])
    return run


def _noted(store_path) -> int:
    """How many lines the run's note holds."""
    hexes = PUBLISHED["run"].removeprefix("sha256:")
    blob = git(store_path, "rev-parse", f"HEAD:store/objects/sha256/{hexes[:2]}/{hexes[2:]}"
                                        ".json").strip()
    return len(git(store_path, "notes", "--ref=kistore", "show", blob).splitlines())


@pytest.mark.parametrize("lock", [None, SCRATCH], ids=["refs/kistore removed", "lock held"])
def test_attest_beside_a_gcs_pack_refs_lands(attest, store_path, monkeypatch, lock):
    assert attest("first").exit_code == 0
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=1))  # the scratch ref: SCRATCH
    with pack_refs_beside(monkeypatch, store_path / ".git", 2, lock=lock) as pauses:
        done = attest("second")
    assert (done.exit_code, done.stderr) == (0, "")
    assert pauses == [0, 1]
    assert _noted(store_path) == 2
    assert git(store_path, "for-each-ref", "refs/kistore/") == ""


def test_attest_beside_a_gcs_prune_packed_lands(attest, store_path, monkeypatch):
    failed = note_commits_failing(monkeypatch, 1)  # the notes commit's directory removed
    done = attest("first")
    assert (done.exit_code, done.stderr) == (0, "")
    assert len(failed) == 1
    assert _noted(store_path) == 1


def test_attest_beside_a_gc_that_never_lets_go_says_what_happened_and_to_run_it_again(
        attest, store_path, monkeypatch):
    assert attest("first").exit_code == 0
    before = git(store_path, "rev-parse", NOTES_REF)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=1))
    with pack_refs_beside(monkeypatch, store_path / ".git", 99, lock=SCRATCH):
        done = attest("second")
    assert (done.exit_code, done.stderr) == (1, (
        f"error: git's ref {SCRATCH} could not be written: a concurrent `git gc` or `git "
        "pack-refs` kept locking it or removing its directory, 8 tries in a row (the last try "
        f"said: failed to lock file '{store_path}/.git/{SCRATCH}.lock' for writing:). Nothing "
        "was lost: running the command again is safe, best once the `git gc` has finished\n"))
    assert git(store_path, "rev-parse", NOTES_REF) == before
    assert git(store_path, "for-each-ref", "refs/kistore/") == ""
    assert attest("second").exit_code == 0  # run again: it lands
    assert _noted(store_path) == 2
