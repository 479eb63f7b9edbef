"""A damaged ``store/trust/keys.json`` in the work tree is said by every query (reviewer r92 F14).

A merge conflict or an edit cut off in the trust file made every key untrusted, so
``rank``/``compare``/``show`` silently put back every run a maintainer withdrew (stderr
empty). As a bad kistore.toml is: every query now warns on stderr, naming the file, why
it is invalid, what that does to the answers and what to do; ``--at HEAD`` reads the
committed file.

Since 2026-12-07 (fresh14 F15) a work tree whose ``HEAD`` holds a valid trust file is
judged by ``HEAD``'s file (and the work tree's revocations) instead, said after the
answer (tests/cli/test_trust_in_work_tree.py); with none in ``HEAD`` the invalid work-tree
file still trusts no key, as before.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from kistore.core.layout import TRUST_FILE

from ..prs import KISTORE
from .test_notes_only_grow import index  # noqa: F401 (a fixture)


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The kistore CLI in a process of its own (a warning is said once a process)."""
    return subprocess.run([KISTORE, "--store", str(root), *args], capture_output=True,
                          text=True, check=False)


def fast_rank_of(root: Path, *at: str) -> tuple[int | None, str]:
    """``rank slow --all``'s rank of ``fast`` (withdrawn: None) and the command's stderr."""
    done = run(root, "rank", "BenchmarkRun/slow", "--all", "--json", *at)
    assert done.returncode == 0, done.stderr
    return {r["name"]: r["rank"] for r in json.loads(done.stdout)}["fast"], done.stderr


DAMAGES = [b'{"keys": [\n', b"<<<<<<< HEAD\n{}\n=======\n"]


@pytest.mark.parametrize("damage", DAMAGES)
def test_r92_f14_a_damaged_trust_file_is_said_by_every_query(
        index, damage):  # noqa: F811 (index: a fixture)
    """Since 2026-12-07 (fresh14 F15) judged by HEAD's file, which is valid: said so."""
    root = Path(index.root)
    assert fast_rank_of(root) == (None, "")  # the maintainer withdrew fast
    (root / TRUST_FILE).write_bytes(damage)

    rank, stderr = fast_rank_of(root)

    assert rank is None  # HEAD's file is judged by: the withdrawal is applied ...
    said = re.compile(  # ... and said so, once, after the answer (before: stderr empty)
        rf"^warning: {re.escape(TRUST_FILE)} in the work tree is invalid \({re.escape(TRUST_FILE)}"
        rf"[^\n]*\): these answers judge attestations by HEAD's {re.escape(TRUST_FILE)} \(1 "
        r"key\(s\)\) and the work tree's revocations, as no commit may delete it, leave it "
        r"invalid, or remove or narrow a key's entry \(KI410; `kistore verify` reports it\); "
        rf"restore it with `git checkout HEAD -- {re.escape(TRUST_FILE)}`\n\Z", re.M)  # last
    assert said.search(stderr), stderr
    for args in (("compare", "BenchmarkRun/slow", "BenchmarkRun/fast"),
                 ("show", "BenchmarkRun/fast")):
        done = run(root, *args)
        assert done.returncode == 0, done.stderr
        assert said.search(done.stderr), (args, done.stderr)
    assert fast_rank_of(root, "--at", "HEAD") == (None, "")  # the committed file: as before


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_trust_file_head_lacks_trusts_no_key(
        index, damage):  # noqa: F811 (index: a fixture)
    """HEAD holds no trust file to judge by: the invalid work-tree file trusts no key, as before."""
    root = Path(index.root)
    subprocess.run(["git", "rm", "-q", TRUST_FILE], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "no trust"], cwd=root,
                   check=True)
    (root / TRUST_FILE).parent.mkdir(parents=True, exist_ok=True)
    (root / TRUST_FILE).write_bytes(damage)

    rank, stderr = fast_rank_of(root)

    assert rank is not None  # no key is trusted: the withdrawal is not applied ...
    said = re.compile(  # ... and said so, once (before: stderr empty)
        rf"^warning: {re.escape(TRUST_FILE)} in the work tree is invalid \({re.escape(TRUST_FILE)}"
        r"[^\n]*\): no key is trusted until it is fixed, so no maintainer's withdrawal is "
        r"applied and no rerun verifies a run in these answers; fix the file \(`kistore "
        rf"verify` reports it, KI309; `git checkout -- {re.escape(TRUST_FILE)}` undoes an "
        r"uncommitted edit\), or ask with `--at HEAD`\n\Z")
    assert said.search(stderr), stderr
