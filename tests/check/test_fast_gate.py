"""The gate's lookups give the answers of the whole-tree check, on random histories.

``check BASE..HEAD`` looks up single paths of HEAD's tree for the cross-file rules
(kistore/check/_focus.py) instead of reading every file. Hypothesis builds histories of
pull requests -- manifests written straight into the work tree (so hostile combinations
get in: a name taken twice, a reference of the wrong kind, a dangling reference answered
later, an object without metadata, a symlink, a path that collides on macOS, a tampered
object) -- and each pull request's findings must be the same both ways. A pull request
with no error lands; one with an error is dropped, as a protected main branch would.
"""

from __future__ import annotations

import json
import os
import tempfile
from functools import partial
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings, target
from hypothesis import strategies as st

from kistore.check.gate import check_range
from kistore.core import comparison, layout
from kistore.core.digest import Digest
from kistore.core.model import REFERENCE_FIELDS, Manifest
from kistore.query.group_rules import units_agree
from kistore.store import Store

from ..conftest import ManifestKit, commit_all, git, write_raw

NAMES = ["alpha", "beta", "gamma"]
"""A small pool of names, so that two manifests often claim one."""


def _pool() -> dict[str, dict]:
    """Manifests a history draws from: two of each referenced kind, with pooled names."""
    kit = ManifestKit()
    pool = {}
    for i in range(2):
        pool[f"P{i}"] = kit.protocol(version=str(i), name=NAMES[i])
        pool[f"E{i}"] = kit.environment(driver=f"55{i}.0", name=NAMES[i])
        pool[f"I{i}"] = kit.implementation(f"proj{i}", name=NAMES[i])
        pool[f"W{i}"] = kit.workload(f"op{i}", name=NAMES[i])
    for i in range(2):  # runs, so that a pull request of runs alone meets them
        pool[f"R{i}"] = kit.run(pool[f"P{i}"], pool[f"E{i}"], pool[f"I{i}"], pool[f"W{i}"],
                                latency=10_000 + i, name=NAMES[i])
    return pool


POOL = _pool()
KIT = ManifestKit()


def _run(refs: tuple[int, int, int, int], name: int, latency: int, swap: bool) -> dict:
    """A run over pooled manifests; ``swap`` puts an environment where the workload goes."""
    p, e, i, w = refs
    run = KIT.run(POOL[f"P{p}"], POOL[f"E{e}"], POOL[f"I{i}"], POOL[f"W{w}"],
                  latency=1000 * latency, name=NAMES[name])  # us: no KI230 (< 100 ns)
    if swap:
        run["spec"]["workloadDigest"] = KIT.digest(POOL[f"E{e}"])
    return run


_refs = st.tuples(*(st.integers(0, 1),) * 4)
_unit = st.sampled_from(["TFLOP/s", "GFLOP/s", None, 1])  # None: no unit stated; 1: no string
_key = st.sampled_from(sorted(POOL))
_name = st.integers(0, 2)
_good = st.one_of(  # what a contributor's add writes: most pull requests are these
    st.tuples(st.just("add"), _key, _name),
    st.tuples(st.just("run"), _refs, _name, st.integers(1, 3), st.booleans()),
    st.tuples(st.just("scored"), _refs, _name, st.integers(1, 3), _unit),
)
_bad = st.one_of(  # what a careless or hostile pull request writes
    st.tuples(st.just("object-only"), _key),
    st.tuples(st.just("metadata-only"), _key, _name),
    st.tuples(st.just("unnamed"), _key, _name),
    st.tuples(st.just("claim"), _key, _name),
    st.tuples(st.just("unclaim"), _key, _name),
    st.tuples(st.just("tamper"), _key),
    st.tuples(st.just("symlink"), _key),
    st.tuples(st.just("collide"), _key),
    st.tuples(st.just("outside"),),
    st.tuples(st.just("unrecorded"), _refs, _name, st.integers(1, 3), st.booleans()),
    st.tuples(st.just("forge"), _key, _key, st.sampled_from(REFERENCE_FIELDS)),
    st.tuples(st.just("unrecord"), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("ungrouped"), _refs, _name, st.integers(1, 3), st.booleans()),
    st.tuples(st.just("late"), _key, _name),  # a manifest without its runs' group files
    st.tuples(st.just("forge-group"), _key, st.integers(0, 1), st.integers(0, 2)),
    st.tuples(st.just("ungroup"), st.integers(0, 3), st.booleans()),
)
_operation = st.one_of(_good, _good, _good, _bad)


def _scored(refs: tuple[int, int, int, int], name: int, score: int, unit: str | int | None
            ) -> dict:
    """A run ranked by the source's score, stating ``unit`` (KI210's groups; None: none)."""
    run = _run(refs, name, score, False)
    run["spec"]["sourceNative"] = {"source": "synthetic", "metrics": {"score": float(score)},
                                   **({} if unit is None else {"unit": unit})}
    return run


UNIT_POLICY = {"comparison": "source-native", "metric": "/sourceNative/metrics/score",
               "order": "descending", "unitPointer": "/sourceNative/unit"}
"""The pool's family ranked by a unit each run states: the gate's KI210 (issue 22)."""


def _named(key: str, name: int) -> dict:
    """A pooled manifest under one of the pooled names (metadata is not hashed)."""
    doc = json.loads(json.dumps(POOL[key]))
    doc["metadata"]["name"] = NAMES[name]
    return doc


def _put(root: Path, rel: str, data: bytes) -> None:
    """Write a file at a repository path, replacing a symlink there (never writing through)."""
    if (root / rel).is_symlink():
        (root / rel).unlink()
    write_raw(root, rel, data)


def _write(root: Path, doc: dict, *, parts: str = "both") -> str:
    """Write a manifest's files as an add would (or only some); return its digest."""
    m = Manifest.from_document(doc)
    whole = ("both", "ungrouped", "late")  # every file; without group files but "both"
    if parts in (*whole, "object", "unnamed", "unrecorded"):
        _put(root, layout.object_path(m.digest), m.object_bytes)
    if parts in (*whole, "metadata", "unnamed", "unrecorded"):  # "metadata": a renaming edit
        _put(root, layout.metadata_path(m.digest), m.metadata_bytes)
    if parts in (*whole, "unrecorded"):  # its name, taken or not (then rewritten)
        _put(root, layout.name_path(doc["kind"], doc["metadata"]["name"]),
                  layout.name_record(m.digest))
    if parts in whole:  # "unrecorded": a run's dangling references left out
        for path, record in _records(root, m).items():
            if not (root / path).exists():  # a record is never rewritten
                _put(root, path, record)
    if parts == "both":  # "ungrouped", "late": the group files left out
        for path, record in _groups(root, m).items():
            if not (root / path).exists():  # a group file is never rewritten
                _put(root, path, record)
    return str(m.digest)


def _references(data: bytes) -> dict[str, str] | None:
    """A stored run's reference fields, or None for no run."""
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("kind") != "BenchmarkRun":
        return None
    return {f: doc["spec"][f] for f in REFERENCE_FIELDS}


def _groups(root: Path, m: Manifest) -> dict[str, bytes]:
    """The group files an add writes: a run's own once its key is known; for an arriving
    protocol or environment, those of the runs its forward directory lists."""
    def spec(ref: str, kind: str):
        path = root / layout.object_path(Digest.from_str(ref))
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        return comparison.stored_spec(data, ref[7:], kind)

    runs: dict[str, dict[str, str]] = {}
    if m.kind == "BenchmarkRun":
        runs[m.digest.hex] = {f: f"sha256:{h}" for f, h in
                              zip(REFERENCE_FIELDS, m.reference_hex, strict=True)}
    elif m.kind in ("BenchmarkProtocol", "ExecutionEnvironment"):
        folder = root / layout.forward_dir(m.digest)
        for leaf in sorted(os.listdir(folder)) if folder.is_dir() else []:
            path = root / layout.object_path(Digest(leaf))
            if path.is_file() and not path.is_symlink():
                refs = _references(path.read_bytes())
                if refs is not None:
                    runs[leaf] = refs
    found = {}
    for hex_, refs in runs.items():
        obj = comparison.run_key_object(refs, spec(refs["protocolDigest"], "BenchmarkProtocol"),
                                        spec(refs["environmentDigest"], "ExecutionEnvironment"))
        if obj is not None:
            found[layout.group_path(comparison.comparison_key(obj), Digest(hex_))] = \
                layout.group_record(obj)
    return found


def _records(root: Path, m: Manifest) -> dict[str, bytes]:
    """The forward records an add writes for a run: one per referenced digest with no object."""
    fields: dict[str, list[str]] = {}
    for field_name, ref in zip(REFERENCE_FIELDS, m.reference_hex, strict=False):
        if ref and not (root / layout.object_path(Digest(ref))).exists():
            fields.setdefault(ref, []).append(field_name)
    return {layout.forward_path(Digest(ref), m.digest): layout.forward_record(named)
            for ref, named in fields.items()}


def _apply(root: Path, op: tuple) -> None:
    """Make one change of a pull request in the work tree."""
    what = op[0]
    if what == "add":
        _write(root, _named(op[1], op[2]))
    elif what == "run":
        _write(root, _run(*op[1:]))
    elif what == "scored":
        _write(root, _scored(*op[1:]))
    elif what == "unrecorded":  # a run written without its forward records
        _write(root, _run(*op[1:]), parts="unrecorded")
    elif what == "ungrouped":  # a run written without its group file
        _write(root, _run(*op[1:]), parts="ungrouped")
    elif what == "late":  # a manifest (a late protocol) without its runs' group files
        _write(root, _named(op[1], op[2]), parts="late")
    elif what == "forge-group":  # a group file no add writes: a pooled run, some key
        run = Manifest.from_document(POOL[f"R{op[2] % 2}"] if op[2] < 2 else POOL[op[1]])
        record = layout.group_record({"family": "synthetic", "hardwareProduct": "NVIDIA H100"}
                                     if op[2] == 0 else {"family": "other"})
        key = comparison.comparison_key(json.loads(record))
        _put(root, layout.group_path(key, run.digest), record)
    elif what == "ungroup":  # delete (or rewrite) a group file there is
        base = root / layout.GROUPS_DIR
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.exists() else []
        if files:
            chosen = files[op[1] % len(files)]
            if op[2]:
                chosen.unlink()
            else:
                chosen.write_bytes(chosen.read_bytes() + b"\n")
    elif what == "forge":  # a record no add writes: any target, any manifest, any field
        target, run = (Manifest.from_document(POOL[k]).digest for k in op[1:3])
        _put(root, layout.forward_path(target, run), layout.forward_record([op[3]]))
    elif what == "unrecord":  # delete (or rewrite) a record there is
        records = sorted((root / layout.FORWARD_DIR).rglob("*")) \
            if (root / layout.FORWARD_DIR).exists() else []
        records = [p for p in records if p.is_file()]
        if records:
            chosen = records[op[1] % len(records)]
            if op[2]:
                chosen.unlink()
            else:
                chosen.write_bytes(layout.forward_record(REFERENCE_FIELDS))
    elif what == "object-only":
        _write(root, POOL[op[1]], parts="object")
    elif what in ("metadata-only", "unnamed"):  # a (re)named metadata file, no names file
        _write(root, _named(op[1], op[2]), parts="metadata" if what[0] == "m" else what)
    elif what == "claim":  # a names file alone: squatting, or a second claim on a name
        doc = _named(op[1], op[2])
        _put(root, layout.name_path(doc["kind"], doc["metadata"]["name"]),
                  layout.name_record(Manifest.from_document(doc).digest))
    elif what == "unclaim":  # delete a names file
        doc = _named(op[1], op[2])
        path = root / layout.name_path(doc["kind"], doc["metadata"]["name"])
        if path.exists():
            path.unlink()
    else:
        digest = Manifest.from_document(POOL[op[1]]).digest if len(op) > 1 else None
        path = root / layout.object_path(digest) if digest is not None else None
        if what == "tamper" and path is not None:
            _put(root, layout.object_path(digest), b'{"kind":"Workload"}')
        elif what == "symlink" and path is not None:
            if path.exists() or path.is_symlink():
                path.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            os.symlink("../../../../kistore.toml", path)
        elif what == "collide" and digest is not None:  # the same file on macOS
            _put(root, layout.object_path(digest).replace(".json", ".JSON"), b"{}")
        elif what == "outside":
            _put(root, "store/objects/sha256/tmp", b"x")


def _seen(findings) -> list[tuple]:
    return [(f.rule.id, f.severity, f.file, f.pointer, f.message) for f in findings]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_operation, min_size=1, max_size=4), min_size=1, max_size=4))
# a second manifest of a kind claims a taken name without rewriting its names file
@example(history=[[("add", "R0", 0)], [("unnamed", "R1", 0)]])
# ... and by rewriting it (KI208), which also leaves the first one's name pointing away
@example(history=[[("add", "R0", 0)], [("add", "R1", 0)]])
# a run's dangling reference answered later by a manifest of another kind (KI202)
@example(history=[[("run", (0, 0, 0, 0), 0, 1, True)], [("add", "E0", 1)]])
# ... by the right kind, after a run with no record, a forged record, a deleted one
@example(history=[[("run", (0, 0, 0, 0), 0, 1, False)], [("add", "W0", 1)]])
@example(history=[[("unrecorded", (0, 0, 0, 0), 0, 1, True)], [("add", "E0", 1)]])
@example(history=[[("forge", "E0", "R0", "workloadDigest")]])
@example(history=[[("run", (1, 1, 1, 1), 0, 1, False)], [("unrecord", 0, True)],
                  [("unrecord", 1, False)]])
# a protocol arriving late: with its runs' group files, without them (KI215)
@example(history=[[("run", (0, 0, 0, 0), 0, 1, False), ("add", "E0", 1)], [("add", "P0", 2)]])
@example(history=[[("run", (0, 0, 0, 0), 0, 1, False), ("add", "E0", 1)], [("late", "P0", 2)]])
# a run without its group file, a forged one, a rewritten one
@example(history=[[("add", "P1", 0), ("add", "E1", 1), ("ungrouped", (1, 1, 1, 1), 2, 1, False)]])
@example(history=[[("forge-group", "P0", 0, 0)]])
@example(history=[[("add", "P1", 0), ("add", "E1", 1), ("run", (1, 1, 1, 1), 2, 1, False)],
                  [("ungroup", 0, False)], [("ungroup", 0, True)]])
# a names file alone (squatting), and one deleted
@example(history=[[("claim", "P0", 1)], [("add", "W0", 2)], [("unclaim", "W0", 2)]])
# an object a run names overwritten with another kind's bytes: KI101/KI401 on the object,
# no KI202 on the run (the bytes are not the named manifest; found by hypothesis)
@example(history=[[("add", "E0", 0), ("add", "R0", 0)], [("tamper", "E0")]])
# KI210: a run in another unit than its group's, one with none, one in a group of its own
# units; a group file of the group deleted beside it (KI210 reads the group's directory)
@example(history=[[("add", "P0", 0), ("add", "E0", 0), ("add", "I0", 0), ("add", "I1", 1),
                   ("add", "W0", 0), ("add", "W1", 1), ("scored", (0, 0, 0, 0), 0, 2, "TFLOP/s")],
                  [("scored", (0, 0, 1, 0), 1, 3, "GFLOP/s")],
                  [("scored", (0, 0, 1, 1), 2, 1, None), ("scored", (0, 0, 0, 1), 1, 1, "x")]])
@example(history=[[("add", "P0", 0), ("add", "E0", 0), ("add", "I0", 0), ("add", "I1", 1),
                   ("add", "W0", 0), ("scored", (0, 0, 0, 0), 0, 2, "TFLOP/s")],
                  [("scored", (0, 0, 1, 0), 1, 3, "GFLOP/s"), ("ungroup", 0, True)]])
def test_lookups_give_the_whole_tree_answers(history):
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "store"
        Store.init(root)
        store = Store(root)
        policy = json.loads((root / layout.POLICY_FILE).read_text())
        policy["families"]["synthetic"] = UNIT_POLICY
        (root / layout.POLICY_FILE).write_text(json.dumps(policy))
        base = commit_all(root, "the pool's family ranks by a unit its runs state")
        landed: list = []
        for number, pull_request in enumerate(history):
            for op in pull_request:
                _apply(root, op)
            if not git(root, "status", "--porcelain"):
                continue  # the pull request changed nothing
            head = commit_all(root, f"pull request {number}")
            fast = check_range(store, f"{base}..{head}", checkers=(units_agree,))
            whole = check_range(store, f"{base}..{head}", whole_tree=True,
                                checkers=(partial(units_agree, whole_tree=True),))
            assert _seen(fast) == _seen(whole), pull_request
            if any(f.severity == "error" for f in whole):
                git(root, "reset", "-q", "--hard", base)
                git(root, "clean", "-qfdx", "store")
            else:
                base = head
                landed.append(pull_request)
        target(float(len(landed)), label="pull requests landed")

def test_a_pull_request_of_runs_never_lists_the_tree(tmp_path, monkeypatch):
    """The O(change) path: a run whose references and name are looked up, one path each."""
    from kistore.store import CommitView

    root = tmp_path / "store"
    Store.init(root)
    store = Store(root)
    for key in ("P0", "E0", "I0", "W0", "R0"):
        _apply(root, ("add", key, 0 if key != "R0" else 1))
    base = commit_all(root, "the base: a run and what it references")
    _apply(root, ("run", (0, 0, 0, 0), 2, 3, False))
    head = commit_all(root, "a pull request of one run")

    def listed(*args, **kwargs):
        raise AssertionError("the gate listed every file of the tree")

    monkeypatch.setattr(CommitView, "files", listed)
    assert _seen(check_range(store, f"{base}..{head}")) == []
    _apply(root, ("run", (0, 0, 0, 0), 1, 5, False))  # R0's name, taken: found by lookup
    again = commit_all(root, "a run claiming a taken name")
    found = _seen(check_range(store, f"{head}..{again}"))
    assert sorted(f[0] for f in found) == ["KI205", "KI208", "KI211"]  # rewrote R0's name


def test_ki210_at_the_gate_reads_the_group_not_the_store(tmp_path, monkeypatch):
    """KI210 of a run in another unit, found from its group's directory (issue 22): the gate
    neither lists HEAD's files nor scans every manifest into a catalog."""
    from kistore.index.catalog import MemoryCatalog
    from kistore.store import CommitView

    root = tmp_path / "store"
    Store.init(root)
    store = Store(root)
    policy = json.loads((root / layout.POLICY_FILE).read_text())
    policy["families"]["synthetic"] = UNIT_POLICY
    (root / layout.POLICY_FILE).write_text(json.dumps(policy))
    for key in ("P0", "E0", "I0", "I1", "W0", "W1"):
        _apply(root, ("add", key, 0))
    _apply(root, ("scored", (0, 0, 0, 0), 0, 2, "TFLOP/s"))
    _apply(root, ("scored", (0, 0, 0, 1), 1, 2, "GFLOP/s"))  # another group (workload W1)
    base = commit_all(root, "the base: a run in TFLOP/s, one in GFLOP/s in another group")
    odd = _scored((0, 0, 1, 0), 2, 3, "GFLOP/s")
    _apply(root, ("scored", (0, 0, 1, 0), 2, 3, "GFLOP/s"))
    head = commit_all(root, "a run in GFLOP/s beside the run in TFLOP/s")

    def scanned(*args, **kwargs):
        raise AssertionError("the gate read every file of the tree")

    monkeypatch.setattr(CommitView, "files", scanned)
    monkeypatch.setattr(MemoryCatalog, "from_view", scanned)
    found = units_agree(store, base, head, set(git(root, "diff", "--name-only", base, head)
                                               .split()))
    assert [(f.rule.id, f.file, f.pointer, f.expected, f.found) for f in found] == [
        ("KI210", layout.object_path(Manifest.from_document(odd).digest),
         "/spec/sourceNative/unit", "TFLOP/s", "GFLOP/s")]
