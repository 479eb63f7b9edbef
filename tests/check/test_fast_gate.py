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
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import ManifestKit, git, write_raw

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
    return pool


POOL = _pool()
KIT = ManifestKit()


def _run(refs: tuple[int, int, int, int], name: int, latency: int, swap: bool) -> dict:
    """A run over pooled manifests; ``swap`` puts an environment where the workload goes."""
    p, e, i, w = refs
    run = KIT.run(POOL[f"P{p}"], POOL[f"E{e}"], POOL[f"I{i}"], POOL[f"W{w}"],
                  latency=latency, name=NAMES[name])
    if swap:
        run["spec"]["workloadDigest"] = KIT.digest(POOL[f"E{e}"])
    return run


_refs = st.tuples(*(st.integers(0, 1),) * 4)
_operation = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(sorted(POOL))),
    st.tuples(st.just("run"), _refs, st.integers(0, 2), st.integers(1, 3), st.booleans()),
    st.tuples(st.just("object-only"), st.sampled_from(sorted(POOL))),
    st.tuples(st.just("metadata-only"), st.sampled_from(sorted(POOL))),
    st.tuples(st.just("rename"), st.sampled_from(sorted(POOL)), st.integers(0, 2)),
    st.tuples(st.just("tamper"), st.sampled_from(sorted(POOL))),
    st.tuples(st.just("symlink"), st.sampled_from(sorted(POOL))),
    st.tuples(st.just("collide"), st.sampled_from(sorted(POOL))),
    st.tuples(st.just("outside"),),
    st.tuples(st.just("names-only"), st.sampled_from(sorted(POOL))),
    st.tuples(st.just("names-forged"), st.sampled_from(sorted(POOL)),
              st.sampled_from(sorted(POOL))),
    st.tuples(st.just("names-deleted"), st.sampled_from(sorted(POOL))),
    st.tuples(st.just("no-names"), st.sampled_from(sorted(POOL))),
)


def _write(root: Path, doc: dict, *, parts: str = "both", names: bool = True) -> str:
    """Write a manifest's files as an add would (or only some of them); return its digest.

    ``names``: with its names file too (store/names/KIND/XX/NAME), as an add writes it.
    """
    m = Manifest.from_document(doc)
    for path in (layout.object_path(m.digest), layout.metadata_path(m.digest)):
        if (root / path).is_symlink():  # an earlier "symlink": replace it, never write through
            (root / path).unlink()
    if parts in ("both", "object"):
        write_raw(root, layout.object_path(m.digest), m.object_bytes)
    if parts in ("both", "metadata"):
        write_raw(root, layout.metadata_path(m.digest), m.metadata_bytes)
    if parts == "both" and names:
        write_raw(root, layout.name_path(m.kind, m.name), layout.name_record(m.digest))
    return str(m.digest)


def _apply(root: Path, op: tuple) -> None:
    """Make one change of a pull request in the work tree."""
    what = op[0]
    if what == "add":
        _write(root, POOL[op[1]])
    elif what == "run":
        _write(root, _run(*op[1:]))
    elif what in ("object-only", "metadata-only"):
        _write(root, POOL[op[1]], parts=what.split("-")[0])
    elif what == "no-names":  # a manifest without its names file
        _write(root, POOL[op[1]], names=False)
    elif what in ("names-only", "names-forged"):  # a names file alone: claimed, or forged
        m = Manifest.from_document(POOL[op[1]])
        owner = Manifest.from_document(POOL[op[-1]]).digest
        write_raw(root, layout.name_path(m.kind, m.name), layout.name_record(owner))
    elif what == "names-deleted":
        m = Manifest.from_document(POOL[op[1]])
        path = root / layout.name_path(m.kind, m.name)
        if path.exists():
            path.unlink()
        else:  # nothing to delete yet: the pull request adds the manifest instead
            _write(root, POOL[op[1]])
    elif what == "rename":  # its metadata now claims another pooled name
        doc = json.loads(json.dumps(POOL[op[1]]))
        doc["metadata"]["name"] = NAMES[op[2]]
        _write(root, doc, parts="metadata")
    else:
        digest = Manifest.from_document(POOL[op[1]]).digest if len(op) > 1 else None
        path = root / layout.object_path(digest) if digest is not None else None
        if what == "tamper" and path is not None:
            write_raw(root, layout.object_path(digest), b'{"kind":"Workload"}')
        elif what == "symlink" and path is not None:
            if path.exists() or path.is_symlink():
                path.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            os.symlink("../../../../kistore.toml", path)
        elif what == "collide" and digest is not None:  # the same file on macOS
            write_raw(root, layout.object_path(digest).replace(".json", ".JSON"), b"{}")
        elif what == "outside":
            write_raw(root, "store/objects/sha256/tmp", b"x")


def _seen(findings) -> list[tuple]:
    return [(f.rule.id, f.severity, f.file, f.pointer, f.message) for f in findings]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_operation, min_size=1, max_size=4), min_size=1, max_size=4))
def test_lookups_give_the_whole_tree_answers(history):
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "store"
        Store.init(root)
        store = Store(root)
        base = git(root, "rev-parse", "HEAD").strip()
        for number, pull_request in enumerate(history):
            for op in pull_request:
                _apply(root, op)
            git(root, "add", "-A")  # a pull request may change nothing (the same add twice)
            git(root, "commit", "-q", "--no-verify", "--allow-empty", "-m", f"pr {number}")
            head = git(root, "rev-parse", "HEAD").strip()
            fast = check_range(store, f"{base}..{head}")
            whole = check_range(store, f"{base}..{head}", whole_tree=True)
            assert _seen(fast) == _seen(whole), pull_request
            if any(f.severity == "error" for f in whole):
                git(root, "reset", "-q", "--hard", base)
                git(root, "clean", "-qfdx", "store")
            else:
                base = head
