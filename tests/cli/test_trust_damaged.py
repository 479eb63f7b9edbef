"""A damaged ``store/trust/keys.json`` in the work tree is said by every query (reviewer r92 F14).

A merge conflict or an edit cut off in the trust file made every key untrusted, so
``rank``/``compare``/``show`` silently put back every run a maintainer withdrew (stderr
empty). As a bad kistore.toml is: every query now warns on stderr, naming the file, why
it is invalid, what that does to the answers and what to do; ``--at HEAD`` reads the
committed file.
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


@pytest.mark.parametrize("damage", [b'{"keys": [\n', b"<<<<<<< HEAD\n{}\n=======\n"])
def test_r92_f14_a_damaged_trust_file_is_said_by_every_query(
        index, damage):  # noqa: F811 (index: a fixture)
    root = Path(index.root)
    assert fast_rank_of(root) == (None, "")  # the maintainer withdrew fast
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
    for args in (("compare", "BenchmarkRun/slow", "BenchmarkRun/fast"),
                 ("show", "BenchmarkRun/fast")):
        done = run(root, *args)
        assert done.returncode == 0, done.stderr
        assert said.search(done.stderr), (args, done.stderr)
    assert fast_rank_of(root, "--at", "HEAD") == (None, "")  # the committed file: as before
