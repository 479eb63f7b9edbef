"""``verify``'s findings on a seeded store with errors, held to a golden list (issue 22, ver94).

The list (``golden/verify_seeded.json``) was written by ``verify`` of main a7ce8170, before
its serial tail (group files, KI232, KI234, KI227, names, forward records) was moved beside
the workers: a change of where or when that work runs must leave every finding as it was,
word for word and in order. The store: 1,200 of the bench's manifests (``bench.generate``,
seed 5: 4 protocols, 12 environments, ~100 groups), a group whose #1 is 800x ahead of its
median run (KI234), two runs claiming one record (KI232) and a run observed in 2099 (KI227),
both committed past ``add``'s refusal; then, in the work tree, an object edited (KI101,
KI401), an object renamed by hand (KI101 with its ``mv``), a metadata file rewritten
non-canonical (KI103), a group file removed (KI215), another's bytes changed (KI216), a
names file removed (KI211) and a stray file (KI110). Judged in the work tree, and at a
commit holding the damage, with one worker and with two (chunks of 37 manifests, so results
arrive in many pieces). Commit ids and the store's path are written as placeholders.

Regenerate (only for a change that means to change findings, said in its commit):
``PYTHONPATH=. python -P -m tests.check.test_verify_golden``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from kistore.check import audit
from kistore.core import layout
from kistore.query import group_rules, outlier_rules
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, commit_all, git, redate_history, write_raw

GOLDEN = Path(__file__).parent / "golden" / "verify_seeded.json"
CASES = [("work", 1), ("work", 2), ("HEAD", 1), ("HEAD", 2)]


def _native(ident: str, score: float) -> dict[str, Any]:
    return {"source": "sol-execbench", "benchmark": "rmsnorm", "externalId": ident,
            "metrics": {"sol_score": score}}


def build(root: Path) -> Store:
    """The seeded store, damaged in its work tree as the module says (deterministic)."""
    from bench.generate import manifests

    Store.init(root)
    store = Store(root)
    kit = ManifestKit()
    add_docs(store, list(manifests(1200, seed=5)))
    protocol, env, load = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, load]
    for ident, latency in (("901", 20_000_000), ("902", 21_000_000), ("903", 25_000)):
        impl = kit.implementation(f"proj-{ident}", name=f"impl-{ident}")
        docs += [impl, kit.run(protocol, env, impl, load, latency=latency,
                               name=f"sol-submission-{ident}", native=_native(ident, 0.5))]
    add_docs(store, docs)
    impl = kit.implementation("proj-copy", name="impl-copy")
    copy = kit.run(protocol, env, impl, load, latency=21_500_000,
                   name="sol-kernel-3-submission-902",
                   native=_native("902", 0.9))  # sol-submission-902's record (KI232)
    late = kit.run(protocol, env, impl, load, latency=22_000_000, name="late",
                   observed="2099-01-01T00:00:00Z")  # KI227
    with pytest.MonkeyPatch.context() as m:
        m.setattr("kistore.store.claims.claims_admitted", lambda *a, **k: [])
        m.setattr("kistore.store.observed.observed_admitted", lambda *a, **k: [])
        add_docs(store, [impl, copy, late])
    redate_history(root, "2026-10-01T00:00:00Z")
    _damage(root)
    return store


def _damage(root: Path) -> None:
    """Damage the work tree: each file picked by its place in sorted order (deterministic)."""
    def files(under: str) -> list[Path]:
        return sorted(p for p in (root / under).rglob("*") if p.is_file())

    objects, metadata = files(layout.OBJECTS_DIR), files(layout.METADATA_DIR)
    groups, names = files(layout.GROUPS_DIR), files(layout.NAMES_DIR)
    edited = objects[10]
    edited.write_bytes(edited.read_bytes()[:-1] + b" }")
    renamed = objects[20]
    renamed.rename(renamed.with_name("0" * 62 + layout.SUFFIX))
    meta = metadata[30]
    meta.write_bytes(json.dumps(json.loads(meta.read_bytes()), indent=1).encode())
    groups[5].unlink()
    groups[40].write_bytes(groups[40].read_bytes() + b"\n")
    names[50].unlink()
    write_raw(root, f"{layout.OBJECTS_DIR}/stray.txt", b"not a manifest\n")


def findings(store: Store, at: str | None, workers: int) -> list[dict[str, Any]]:
    """``kistore verify``'s findings (its checkers), as JSON, commit ids and paths replaced."""
    found = audit.verify(store, at, workers=workers, checkers=(
        *audit.CHECKERS, group_rules.check_units,
        audit.FromParse(outlier_rules.ranked_keys, outlier_rules.outliers_parsed)))
    commits = git(store.root, "rev-list", "--all").split()
    text = json.dumps([{**f.to_json(), "fix": f.fix} for f in found], sort_keys=True)
    for i, commit in enumerate(commits):
        text = text.replace(commit, f"<commit {i}>").replace(commit[:12], f"<commit {i}>")
    text = text.replace(str(store.root), "<root>")
    return json.loads(text)


def judged(root: Path, chunk: int = 37) -> dict[str, list[dict[str, Any]]]:
    """Each case's findings on a store built at ``root``."""
    store = build(root)
    saved = audit.CHUNK
    audit.CHUNK = chunk
    try:
        out = {f"work/{w}": findings(store, None, w) for w in (1, 2)}
        commit_all(root, "damage")
        out |= {f"HEAD/{w}": findings(store, "HEAD", w) for w in (1, 2)}
    finally:
        audit.CHUNK = saved
    return out


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> dict[str, list[dict[str, Any]]]:
    return judged(tmp_path_factory.mktemp("golden") / "store")


@pytest.mark.parametrize("case", [f"{w}/{n}" for w, n in CASES])
def test_verify_finds_what_main_found_on_the_seeded_store(seeded, case):
    golden = json.loads(GOLDEN.read_text())
    assert seeded[case] == golden[case]


def test_the_golden_list_holds_each_rule_the_tail_judges():
    """The list is no empty answer: the tail's rules (and the damage's) are all in it."""
    golden = json.loads(GOLDEN.read_text())
    for case, found in golden.items():
        rules = {f["rule"] for f in found}
        assert {"KI101", "KI103", "KI110", "KI211", "KI215", "KI216", "KI227", "KI232",
                "KI234"} <= rules, (case, sorted(rules))


if __name__ == "__main__":  # write the golden list (see the module's docstring)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        result = judged(Path(tmp) / "store")
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print({k: len(v) for k, v in result.items()}, file=sys.stderr)
