"""``verify``'s group files settled at once when they all agree (``audit._groups_agree``).

A whole tree whose group files are exactly its runs' (every run whose key is known has its
file, no other file, each holding its key object's bytes) is settled without the KI215 and
KI216 loop, and with worker processes the work tree's group files are read by the workers
beside their runs. Any damage must send ``verify`` back to the loop: the findings are held,
word for word and in order, to the loop's own (``_groups_agree`` replaced by one that always
says no), with one worker and with two, in the work tree and at a commit.
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from kistore.check import audit, verify
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, commit_all, group_files, write_raw


def _hex(doc) -> str:
    return Manifest.from_document(doc).digest.hex


def _store(store_path, kit: ManifestKit):
    """Two groups (two workloads) of three runs each, and a run whose key is not known."""
    p, e, i = kit.protocol(), kit.environment(), kit.implementation()
    workloads = [kit.workload(), kit.workload("layernorm", name="second")]
    runs = [kit.run(p, e, i, w, latency=10 + n, name=f"run-{k}-{n}")
            for k, w in enumerate(workloads) for n in range(3)]
    late = kit.run(kit.protocol(family="late"), e, i, workloads[0], latency=4, name="late")
    store = Store(store_path)
    add_docs(store, [p, e, i, *workloads, *runs])
    add_docs(store, [late], allow_dangling=True)
    files = group_files([Manifest.from_document(d) for d in (p, e, *runs)])
    assert len(files) == 6 and len({layout.group_from_path(f)[0] for f in files}) == 2
    return store, runs, late, dict(sorted(files.items()))


def _damage(store_path, runs, late, files: dict[str, bytes], change: str, at: int = 0) -> None:
    """Damage the group files (path -> bytes as written); ``at``: which file, in path order."""
    root = store_path
    paths = list(files)
    first, second = paths[at], paths[-1]
    data = files[first]
    key = Digest(hashlib.sha256(data).hexdigest())
    if change == "missing":  # KI215
        (root / first).unlink()
    elif change == "bytes":  # KI216: same path, other bytes
        write_raw(root, first, json.dumps(json.loads(data), indent=1).encode())
    elif change == "newline":
        write_raw(root, second, files[second] + b"\n")
    elif change == "other-group":  # KI216: its own file stays, one in another group
        other = layout.group_record({"family": "other"})
        write_raw(root, layout.group_path(Digest(hashlib.sha256(other).hexdigest()),
                                          Digest(_hex(runs[0]))), other)
    elif change == "moved":  # KI215 and KI216: the file in the other group's directory
        (root / first).unlink()
        key2 = layout.group_from_path(second)[0]
        run = layout.group_from_path(first)[1]
        write_raw(root, layout.group_path(key2, run), data)
    elif change == "no-run":  # KI216: a run that is not stored
        write_raw(root, layout.group_path(key, Digest("ab" * 32)), data)
    elif change == "replaced":  # KI215 and KI216, as many files as runs: other paths
        (root / first).unlink()
        write_raw(root, layout.group_path(key, Digest("ab" * 32)), data)
    elif change == "unknown":  # KI216: a stored run whose key is not known
        write_raw(root, layout.group_path(key, Digest(_hex(late))), data)
    elif change == "symlink":  # KI111 (no regular file): the group rules say nothing
        target = root / "elsewhere"
        target.write_bytes(data)
        (root / first).unlink()
        os.symlink(target, root / first)
    elif change == "empty":
        write_raw(root, first, b"")
    elif change == "swapped":  # KI216: the other workload's key object, same protocol and
        write_raw(root, first, files[second])  # environment (RunKeys makes the pair's once)
    else:
        raise AssertionError(change)


CHANGES = ["missing", "bytes", "newline", "other-group", "moved", "no-run", "replaced",
           "unknown", "symlink", "empty", "swapped"]


def _by_the_loop(monkeypatch, store, at, workers):
    with monkeypatch.context() as m:
        m.setattr(audit, "_groups_agree", lambda *args: False)
        return verify(store, at, workers=workers)


def test_a_clean_store_is_settled_without_the_loop(store_path, kit, monkeypatch):
    store, *_ = _store(store_path, kit)
    asked = []
    loop = audit.check_group_files
    monkeypatch.setattr(audit, "check_group_files",
                        lambda *a, **k: asked.append(1) or loop(*a, **k))
    for at in (None, "HEAD"):
        for workers in (1, 2):
            findings = verify(store, at, workers=workers)
            assert [f for f in findings if f.severity == "error"] == []
            assert findings == _by_the_loop(monkeypatch, store, at, workers)
    assert len(asked) == 4  # only when the loop was forced


@pytest.mark.parametrize("change", [*CHANGES, "all"])
def test_damaged_group_files_give_the_loops_findings(store_path, kit, monkeypatch, change):
    store, runs, late, files = _store(store_path, kit)
    if change == "all":  # each on its own file (three runs a group, in path order)
        for one, at in (("missing", 0), ("bytes", 1), ("empty", 2), ("newline", 3),
                        ("other-group", 0), ("no-run", 0), ("unknown", 0)):
            _damage(store_path, runs, late, files, one, at)
    else:
        _damage(store_path, runs, late, files, change)
    rules = {"KI215", "KI216", "KI111"}
    for committed in (False, True):
        if committed:
            commit_all(store_path, f"damage: {change}")
        for at in ([None, "HEAD"] if committed else [None]):
            loop = _by_the_loop(monkeypatch, store, at, 1)
            if at is None and change not in ("symlink",):
                assert {f.rule.id for f in loop} & {"KI215", "KI216"}, change
            if change == "swapped":  # that file, and only it: each run's key is its own
                assert [(f.rule.id, f.file) for f in loop if f.rule.id in rules] == [
                    ("KI216", list(files)[0])]
            assert {f.rule.id for f in loop} & rules
            for workers in (1, 2):
                assert verify(store, at, workers=workers) == loop, (at, workers)
                assert _by_the_loop(monkeypatch, store, at, workers) == loop


@pytest.mark.parametrize("at", [None, "HEAD"])
def test_verify_encodes_and_hashes_each_groups_key_once(store_path, kit, monkeypatch, at):
    # KI215/KI216 (expected_file) and KI234's placing of runs (describe's comparison_key)
    # each made every group's canonical bytes and their SHA-256 (ver99): once now, for both
    # (kistore.core.comparison.group_file)
    from kistore.check.audit import CHECKERS, FromParse
    from kistore.core import canonical, comparison
    from kistore.query import outlier_rules

    store, *_ = _store(store_path, kit)
    comparison._group_file.cache_clear()  # earlier tests' groups: made again here
    fields = {"family", "hardwareProduct", "primaryStatistic", "protocolDigest",
              "workloadDigest"}
    made: list[bytes] = []
    real = canonical.dumps

    def dumps(obj, *args, **kwargs):
        data = real(obj, *args, **kwargs)
        if isinstance(obj, dict) and obj and set(obj) <= fields:  # a key object
            made.append(data)
        return data

    monkeypatch.setattr(canonical, "dumps", dumps)
    found = verify(store, at, workers=1, checkers=(*CHECKERS, FromParse(
        outlier_rules.ranked_keys, outlier_rules.outliers_parsed)))
    assert not [f for f in found if f.rule.id in ("KI215", "KI216")]
    assert len(made) == len(set(made)) == 2  # two groups (the late run's key is unknown)
