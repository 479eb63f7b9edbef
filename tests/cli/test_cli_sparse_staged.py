"""A change staged outside a sparse checkout counts as in a full checkout (not only once committed).

git treats a skip-worktree path as holding its *index entry's* bytes. kistore read
``HEAD``'s there, so a withdrawal (an attestation file) or a new run staged but not
committed outside the checkout (``git cherry-pick -n``, ``git merge --no-commit``, ``git
reset --soft``, ``git add --sparse``) was missed: ``rank`` ranked the withdrawn run and
``show`` knew no new run, while a full checkout of the same index (whose work tree holds
the staged files) answered with them. Every answer here is compared byte for byte with a
full checkout's of the same index, in each of git's three sparse set-ups (non-cone, cone,
cone with a sparse index) and with a whole store directory outside the checkout.
"""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.attest import notes
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import commit_all, git
from ..sparse import (
    MODES,
    WIDE,
    answers,
    shard_dirs,
    skipped,
    sparse_clone,
    sparse_clone_set,
    trust_maintainer,
    withdraw,
)

QUERIES = [("rank", "BenchmarkRun/ref", "--json", "--all"), ("rank", "BenchmarkRun/ref"),
           ("show", "BenchmarkRun/fast"), ("show", "BenchmarkRun/fast", "--json"),
           ("show", "BenchmarkRun/quick", "--json"), ("attestations", "BenchmarkRun/fast"),
           ("ls", "--kind", "BenchmarkRun")]

STAGINGS = ("cherry-pick", "merge", "reset-soft", "add-sparse")
"""How the withdrawal commit (branch ``withdraw``) is staged on ``main`` and not committed."""


class _Frozen(datetime):
    """``datetime`` whose ``now`` is fixed: an uncommitted attestation file entered "now"."""

    @classmethod
    def now(cls, tz=None):
        return datetime(2030, 7, 11, tzinfo=UTC)  # after every commit a test makes (KI428: a
        # commit dated past the clock is not believed, so a clock before them moved entry times)


@pytest.fixture(autouse=True)
def _frozen_now(monkeypatch):
    monkeypatch.setattr(notes, "datetime", _Frozen)


@pytest.fixture
def source(group, kit):
    """The ``group`` store with a maintainer key on ``main``, and on branch ``withdraw`` one
    commit that withdraws ``fast`` by an attestation file and adds a run ``quick``."""
    trust_maintainer(group)  # dated before the files: the key counts
    git(group.root, "checkout", "-q", "-b", "withdraw")
    head = group.view("HEAD")
    fast = head.find_name("BenchmarkRun", "fast")
    assert fast is not None
    withdraw(group, fast, as_file=True)
    protocol, env, workload, impl = (
        Manifest.from_document(head.manifest(d).document) for d in _inputs(head, fast))
    quick = Manifest.from_document(kit.run(protocol.document, env.document, impl.document,
                                           workload.document, latency=5, name="quick"))
    group.add([quick], commit=False)
    commit_all(group.root, "withdraw fast, add quick")
    git(group.root, "checkout", "-q", "main")
    return group


def _inputs(view, run):
    """The protocol, environment, workload and implementation digests ``run`` refers to."""
    spec = view.manifest(run).document["spec"]
    return [Digest.from_str(spec[f"{k}Digest"])
            for k in ("protocol", "environment", "workload", "implementation")]


def _answers(root: Path) -> list[tuple[int, str, str]]:
    return answers(root, QUERIES)


def _same(got: list[tuple[int, str, str]], want: list[tuple[int, str, str]]) -> None:
    """Every query's exit code, stdout and stderr are the same (byte for byte)."""
    for query, answer, expected in zip(QUERIES, got, want, strict=True):
        assert (query, *answer) == (query, *expected)


def _stage(clone: Path, how: str, changed: list[str], *, sparse: bool) -> None:
    """Stage branch ``withdraw``'s commit on ``main`` of ``clone`` without committing it."""
    if how == "cherry-pick":
        git(clone, "cherry-pick", "-n", "origin/withdraw")
    elif how == "merge":
        git(clone, "merge", "-q", "--no-commit", "--no-ff", "origin/withdraw")
    elif how == "reset-soft":
        git(clone, "reset", "-q", "--hard", "origin/withdraw")
        git(clone, "reset", "-q", "--soft", "origin/main")
    else:  # the files written into the work tree, `git add --sparse`, the checkout reapplied
        for path in changed:
            target = clone / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_blob(clone, f"origin/withdraw:{path}"))
        git(clone, "add", "--sparse", "--", *changed)
        if sparse:
            git(clone, "sparse-checkout", "reapply")
    assert git(clone, "rev-parse", "HEAD") == git(clone, "rev-parse", "origin/main")


def _blob(root: Path, spec: str) -> bytes:
    return subprocess.run(["git", "show", spec], cwd=root, check=True,
                          capture_output=True).stdout


def _changed(source: Store) -> list[str]:
    return git(source.root, "diff", "--name-only", "main", "withdraw").split()


def _full(source: Store, tmp_path: Path, how: str) -> list[tuple[int, str, str]]:
    """The answers of a full clone with the commit staged; checked to show the changes."""
    git(tmp_path, "clone", "-q", str(source.root), "full")
    before = _answers(tmp_path / "full")
    _stage(tmp_path / "full", how, _changed(source), sparse=False)
    full = _answers(tmp_path / "full")
    # a plain clone has no notes ref: rank warns of it (reviewer r85 F15), nothing else
    notes = "warning: refs/notes/kistore is not in this repository"
    assert all(code == 0 and (not err or err.startswith(notes) and err.count("\n") == 1)
               for code, _, err in full), full
    rows = {r["name"]: (r["rank"], r["reason"]) for r in json.loads(full[0][1])}
    assert rows == {"ref": (None, "reference, never ranked"), "fast": (None, "withdrawn"),
                    "slow": (2, None), "quick": (1, None),
                    "broken": (None, "status incorrect")}
    assert "not ranked (withdrawn)" in full[2][1]
    assert json.loads(full[3][1])["withdrawn"] is True
    assert before[0] != full[0] and before[4][0] != 0  # staged: the answers changed
    return full


def _outside(clone: Path, paths: list[str]) -> None:
    """Each of ``paths`` is outside the checkout: skipped and absent from the work tree."""
    listed = skipped(clone)
    assert paths
    for path in paths:
        assert not (clone / path).exists(), path
        assert path in listed or any(d.endswith("/") and path.startswith(d) for d in listed)


@pytest.mark.parametrize("how", STAGINGS)
@pytest.mark.parametrize("mode", MODES)
def test_a_change_staged_outside_the_checkout_counts_as_in_a_full_checkout(
        source, tmp_path, mode, how):
    full = _full(source, tmp_path, how)
    kept = str(source.view("HEAD").find_name("BenchmarkRun", "broken"))
    changed = _changed(source)
    assert not set(shard_dirs(kept)) & {p.rpartition("/")[0] for p in changed}
    if mode == "no-cone":  # as sparse_clone's, with the attestation folders out too
        clone = sparse_clone_set(source.root, tmp_path / "clone", "--no-cone", "/*",
                                 *(f"!/store/{top}/sha256/*/" for top in (
                                     "objects", "metadata", "attestations")),
                                 *(f"/{d}/" for d in shard_dirs(kept)))
    else:
        clone = sparse_clone(source.root, tmp_path / "clone", mode, kept)
    assert _answers(clone) != full  # HEAD's answers
    _stage(clone, how, changed, sparse=True)
    # the withdrawal, and quick's object and metadata files
    _outside(clone, [p for p in changed if p.startswith((
        layout.ATTESTATIONS_DIR, layout.OBJECTS_DIR, layout.METADATA_DIR))])
    _same(_answers(clone), full)
    _same(_answers(clone), full)  # warm: from the cached comparison


@pytest.mark.parametrize("mode", sorted(WIDE))
def test_a_change_staged_outside_a_whole_store_directory_counts(source, tmp_path, mode):
    full = _full(source, tmp_path, "cherry-pick")
    clone = sparse_clone_set(source.root, tmp_path / "clone", *WIDE[mode])
    _answers(clone)  # HEAD's answers cached first: staging must invalidate them
    _stage(clone, "cherry-pick", _changed(source), sparse=True)
    _outside(clone, [p for p in _changed(source) if p.startswith(layout.ATTESTATIONS_DIR)])
    _same(_answers(clone), full)
    _same(_answers(clone), full)


def test_committing_the_staged_change_answers_the_same(source, tmp_path):
    """The staged answer is the committed one, and the cached answers follow ``HEAD`` and the
    index (``rank`` and ``ls``: ``show`` says whether a run is committed yet)."""
    clone = sparse_clone(source.root, tmp_path / "clone", "cone-sparse-index",
                         str(source.view("HEAD").find_name("BenchmarkRun", "broken")))

    def timeless() -> list[tuple[int, str, str]]:
        return [a for q, a in zip(QUERIES, _answers(clone), strict=True)
                if q[0] in ("rank", "ls")]

    before = timeless()
    _stage(clone, "cherry-pick", _changed(source), sparse=True)
    staged = timeless()
    assert staged != before
    git(clone, "commit", "-q", "--no-verify", "-m", "withdraw fast")
    assert timeless() == staged
    git(clone, "reset", "-q", "--soft", "HEAD~1")  # HEAD moves, the index stays
    assert timeless() == staged
    git(clone, "reset", "-q", "HEAD")  # unstaged: HEAD's again
    assert timeless() == before


@pytest.mark.parametrize("mode", MODES)
def test_verify_of_a_change_staged_outside_the_checkout_is_a_full_checkout_s(
        source, tmp_path, mode):
    """A new run staged outside the checkout is no deleted object (KI402) to ``verify``."""
    git(tmp_path, "clone", "-q", str(source.root), "full")
    full = tmp_path / "full"
    clone = sparse_clone(source.root, tmp_path / "clone", mode,
                         str(source.view("HEAD").find_name("BenchmarkRun", "broken")))
    for root in (full, clone):
        _stage(root, "cherry-pick", _changed(source), sparse=root == clone)

    def findings(root: Path) -> tuple[int, list[str]]:  # KI308: whether notes were fetched
        done = CliRunner().invoke(main, ["--store", str(root), "verify"])
        return done.exit_code, sorted(line for line in done.output.splitlines()
                                      if "KI308" not in line)

    assert findings(clone) == findings(full)
    assert "KI402" not in "\n".join(findings(clone)[1])
