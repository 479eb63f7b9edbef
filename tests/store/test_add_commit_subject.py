"""An ``add --commit``'s default subject names what that commit adds (low01 item 1).

Two adds sharing a new Implementation (and its protocol, environment and workload), each
with its own run: whichever commits second found the shared manifests committed by the
first, yet its subject named them ("kistore add: BenchmarkProtocol/..., ... and 2 more"),
as if it had added them. Each commit's subject is checked against the object files the
commit really adds (``git diff-tree``).
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

from kistore.core.model import Manifest
from kistore.store import Store
from tests.conftest import git


def _inputs(kit, tmp_path: Path) -> tuple[list[Path], list[Path], dict[str, str]]:
    """Two adds' input files (shared manifests + run a, shared + run b), and each
    manifest's ``KIND/NAME`` by its digest's hex."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("shared", name="impl-shared")
    runs = [kit.run(protocol, env, impl, workload, latency=10 + i, name=f"run-{x}")
            for i, x in enumerate("ab")]
    named = {}
    paths = []
    for doc in [protocol, env, workload, impl, *runs]:
        path = tmp_path / f"{doc['metadata']['name']}.json"
        path.write_text(json.dumps(doc))
        paths.append(path)
        digest = Manifest.from_document(doc).digest
        named[digest.hex] = f"{doc['kind']}/{doc['metadata']['name']}"
    shared = paths[:4]
    return [*shared, paths[4]], [*shared, paths[5]], named


def _kistore(store_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "kistore", "--store", str(store_path),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _commits_add(store_path: Path, named: dict[str, str]) -> list[tuple[str, list[str]]]:
    """Each commit after kistore init's, oldest first: (subject, the KIND/NAMEs of the
    objects it adds, in the subject's order: sorted by kind as add lists them)."""
    log = git(store_path, "log", "--reverse", "--format=%H %s", "HEAD").splitlines()[1:]
    commits = []
    for line in log:
        sha, subject = line.split(" ", 1)
        added = git(store_path, "diff-tree", "--no-commit-id", "-r", "--name-only",
                    "--diff-filter=A", sha, "--", "store/objects").split()
        hexes = ["".join(Path(p).parts[-2:]).removesuffix(".json") for p in added]
        commits.append((subject, sorted(named[h] for h in hexes)))
    return commits


def test_the_second_of_two_racing_adds_names_only_its_own_run(store_path, kit, tmp_path):
    first, second, named = _inputs(kit, tmp_path)
    lock = Store(store_path)._write_lock_path()
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # both wait for it, then take turns: a race on the lock
    try:
        children = [_kistore(store_path, "add", "--commit", *map(str, paths))
                    for paths in (first, second)]
    finally:
        os.close(fd)
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    commits = _commits_add(store_path, named)
    assert len(commits) == 2
    (first_subject, first_added), (second_subject, second_added) = commits
    assert len(first_added) == 5 and len(second_added) == 1  # shared four + a run; a run
    assert second_added[0] in ("BenchmarkRun/run-a", "BenchmarkRun/run-b")
    assert second_subject == f"kistore add: {second_added[0]}"
    assert first_subject.startswith("kistore add: ") and first_subject.endswith(" and 2 more")


def test_the_same_inputs_added_again_after_the_first_name_only_the_new_run(
        store_path, kit, tmp_path):
    first, second, named = _inputs(kit, tmp_path)
    for paths in (first, second):
        child = _kistore(store_path, "add", "--commit", *map(str, paths))
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    assert [subject for subject, _ in _commits_add(store_path, named)][1] == \
        "kistore add: BenchmarkRun/run-b"
