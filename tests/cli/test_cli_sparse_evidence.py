"""Withdrawals count in a sparse clone as in a full one: ``rank`` and ``show`` of the work tree.

A run withdrawn by an attestation file under ``store/attestations/`` or by a note on its
object's blob must stay unranked when the file or the object lies outside the sparse
checkout (skip-worktree: git holds them as committed). The work-tree answer looked for the
attestation folder and hashed the object file in the work tree only, so both kinds were
lost: the withdrawn runs were ranked again and ``show`` said "attestations: none", though
``kistore attestations`` (which reads through the view) and ``rank --at HEAD`` said
withdrawn.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.index import maybe_attested, open_catalog
from kistore.store import Store

from ..conftest import commit_all, git
from ..sparse import (
    MODES,
    WIDE,
    answers,
    sparse_clone,
    sparse_clone_set,
    trust_maintainer,
    withdraw,
)

QUERIES = [("rank", "BenchmarkRun/ref", "--json", "--all"), ("rank", "BenchmarkRun/ref"),
           ("show", "BenchmarkRun/fast"), ("show", "BenchmarkRun/slow", "--json"),
           ("show", "BenchmarkRun/ref", "--json"), ("attestations", "BenchmarkRun/slow")]


def _withdraw(store: Store, name: str, *, as_file: bool) -> str:
    subject = store.view("HEAD").find_name("BenchmarkRun", name)
    assert subject is not None
    return withdraw(store, subject, as_file=as_file)


@pytest.fixture
def withdrawn(group):
    """The ``group`` store with ``fast`` withdrawn by a committed file, ``slow`` by a note."""
    trust_maintainer(group)  # dated before the bundles: the key counts
    _withdraw(group, "fast", as_file=True)
    commit_all(group.root, "withdraw fast")
    _withdraw(group, "slow", as_file=False)
    return group


def _fetch_notes(root) -> None:
    """The notes, and origin's tracking notes ref as `kistore notes fetch` leaves it (r86 F21)."""
    git(root, "fetch", "-q", "origin", f"{layout.NOTES_REF}:{layout.NOTES_REF}",
        f"{layout.NOTES_REF}:refs/notes/remotes/origin/kistore")


def _answers(root) -> list[tuple[int, str, str]]:
    return answers(root, QUERIES)


def _full(withdrawn, tmp_path) -> list[tuple[int, str, str]]:
    git(tmp_path, "clone", "-q", str(withdrawn.root), "full")
    _fetch_notes(tmp_path / "full")
    full = _answers(tmp_path / "full")
    assert all(code == 0 and not err for code, _, err in full), full
    rows = {r["name"]: (r["rank"], r["reason"]) for r in json.loads(full[0][1])}
    assert rows == {"ref": (None, "reference, never ranked"), "fast": (None, "withdrawn"),
                    "slow": (None, "withdrawn"), "broken": (None, "status incorrect")}
    assert "not ranked (withdrawn)" in full[2][1]
    assert "attestations: 1;" in full[2][1]
    assert [a["effect"] for a in json.loads(full[3][1])["attestations"]] == ["withdraws"]
    return full


@pytest.mark.parametrize("mode", MODES)
def test_withdrawals_outside_the_checkout_count(withdrawn, tmp_path, mode):
    full = _full(withdrawn, tmp_path)
    kept = str(withdrawn.view("HEAD").find_name("BenchmarkRun", "broken"))
    clone = sparse_clone(withdrawn.root, tmp_path / "clone", mode, kept)
    _fetch_notes(clone)
    for name in ("fast", "slow"):  # both withdrawn runs' objects are outside the checkout
        digest = withdrawn.view("HEAD").find_name("BenchmarkRun", name)
        assert not (clone / layout.object_path(digest)).exists()
    # non-cone keeps every directory but the shards: store/attestations is checked out
    assert (clone / layout.ATTESTATIONS_DIR).exists() == (mode == "no-cone")
    assert _answers(clone) == full
    assert _answers(clone) == full  # warm: from the cached comparison


@pytest.mark.parametrize("mode", sorted(WIDE))
def test_withdrawals_count_with_a_whole_store_directory_outside(withdrawn, tmp_path, mode):
    full = _full(withdrawn, tmp_path)
    clone = sparse_clone_set(withdrawn.root, tmp_path / "clone", *WIDE[mode])
    _fetch_notes(clone)
    assert not (clone / layout.ATTESTATIONS_DIR).exists()
    assert (clone / layout.OBJECTS_DIR).exists() == (mode == "no-cone-objects")
    assert _answers(clone) == full
    assert _answers(clone) == full


def test_an_attestation_file_in_the_work_tree_outside_the_checkout_counts(withdrawn,
                                                                          tmp_path):
    """A file written into a skipped folder (as ``attest --file`` does) is read from there."""
    clone = sparse_clone_set(withdrawn.root, tmp_path / "clone", *WIDE["cone-trust"])
    path = _withdraw(Store(clone), "ref", as_file=True)
    assert (clone / path).exists()
    result = CliRunner().invoke(main, ["--store", str(clone), "show", "BenchmarkRun/ref",
                                       "--json"])
    page = json.loads(result.stdout)  # uncommitted: the work tree's answer
    assert [(a["effect"], a["location"]) for a in page["attestations"]] == [
        ("withdraws", path)]
    assert page["withdrawn"] is True


@pytest.mark.parametrize("mode", sorted(WIDE))
def test_only_the_attested_runs_are_read_again(withdrawn, tmp_path, mode):
    """The work tree's filter asks ``HEAD`` about skipped files: no run is read for nothing."""
    clone = Store(sparse_clone_set(withdrawn.root, tmp_path / "clone", *WIDE[mode]))
    _fetch_notes(clone.root)
    catalog = open_catalog(clone, None)
    assert catalog.outside is not None and catalog.annotated is not None
    runs = {name: clone.view("HEAD").find_name("BenchmarkRun", name)
            for name in ("fast", "slow", "ref", "broken")}
    digests = [d for d in runs.values() if d is not None]
    found = maybe_attested(clone.root, digests, catalog.annotated, catalog.outside)
    assert found == [runs["fast"], runs["slow"]]  # a file, then a note
    assert maybe_attested(clone.root, digests, catalog.annotated) == (
        [runs["slow"]] if mode == "no-cone-objects" else [])  # the work tree alone: its notes
    full = Store(withdrawn.root)  # not sparse: the catalog has no such part
    assert open_catalog(full, None).outside is None
