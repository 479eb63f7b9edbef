"""KI232: one source record claimed by two runs (reviewer r89 F6).

A copy of the imported ``sol-kernel-3-submission-25504`` renamed ``sol-submission-25504``
with ``sol_score`` 0.9 ranked #1 above the record's own run (0.533) with a green gate: both
names agree with the external id (KI209 allows three forms). ``add`` and the gate now
refuse a second run of a comparison group claiming the same ``(source, externalId)``;
``verify`` warns about a pair history already holds.
"""

from __future__ import annotations

import pytest

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.claims import claim_of
from kistore.core.digest import Digest
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.store import claims as store_claims

from ..conftest import add_docs, git

BOARD = "003_lm_head_projection_with_logit_slicing"


def _native(ident, score, benchmark=BOARD):
    return {"source": "sol-execbench", "benchmark": benchmark, "externalId": ident,
            "metrics": {"sol_score": score}}


def _hex(doc):
    return Manifest.from_document(doc).digest.hex


def _head(store):
    return git(store.root, "rev-parse", "HEAD").strip()


def test_a_claim_is_source_and_id():
    assert claim_of({"sourceNative": _native("25504", 0.5)}) == ("sol-execbench", "25504")
    assert claim_of({"sourceNative": _native(25504, 0.5)}) == \
        ("sol-execbench", "25504")  # 25504 and "25504" are one id
    assert claim_of({"sourceNative": _native(True, 0.5)}) is None
    assert claim_of({"sourceNative": {"source": "synthetic", "externalId": "1"}}) is None
    assert claim_of({"sourceNative": {"source": "sol-execbench", "externalId": "a/b"}}) \
        == ("sol-execbench", "a-b")  # the id as KI209 names runs by it
    assert claim_of({"sourceNative": {"source": "flashinfer-trace", "externalId": "a.log"}}) \
        is None  # a log file: not proven one record's id
    assert claim_of({}) is None and claim_of(None) is None


@pytest.fixture
def board(store, kit):
    """A committed group holding the record's run ``sol-kernel-3-submission-25504``."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload(BOARD)
    impl = kit.implementation("p", name="i")
    real = kit.run(protocol, env, impl, workload, latency=10,
                   name="sol-kernel-3-submission-25504", native=_native("25504", 0.532958))
    add_docs(store, [protocol, env, workload, impl, real])
    return {"protocol": protocol, "env": env, "workload": workload, "impl": impl, "real": real}


def _copy(kit, board, name, score, ident="25504", benchmark=BOARD):
    return kit.run(board["protocol"], board["env"], board["impl"], board["workload"],
                   latency=10, name=name, native=_native(ident, score, benchmark))


def test_add_refuses_a_second_claim_naming_the_first(store, kit, board):
    copy = _copy(kit, board, "sol-submission-25504", 0.9)
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [copy])
    text = str(refused.value)
    assert "/spec/sourceNative/externalId" in text and "KI232" in text
    assert ("claims to be sol-execbench record '25504' (its id as run names spell it), which "
            f"BenchmarkRun/sol-kernel-3-submission-25504 (sha256:{_hex(board['real'])}) "
            "already claims with other bytes") in text
    assert not (store.root / layout.object_path(Digest(_hex(copy)))).exists()


def test_add_refuses_two_claims_in_one_batch(store, kit, board):
    first = _copy(kit, board, "sol-local-77", 0.7, ident="77")
    second = _copy(kit, board, "sol-submission-77", 0.8, ident="77")
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [first, second])
    assert f"BenchmarkRun/sol-local-77 (sha256:{_hex(first)})" in str(refused.value)


def test_the_same_id_on_another_board_is_another_record(store, kit, board):
    # one SOL-ExecBench submission id is on several boards, other code measured on each:
    # each board is its own workload, so its own comparison group
    board10 = kit.workload("010_attention_value_projection_with_transpose", name="sol-kernel-10")
    other = kit.run(board["protocol"], board["env"], board["impl"], board10, latency=10,
                    name="sol-kernel-10-submission-25504",
                    native=_native("25504", 0.6, "010_attention_value_projection_with_transpose"))
    add_docs(store, [board10, other])
    assert [f for f in verify(store) if f.rule.id == "KI232"] == []


def test_pull_requests_each_passing_alone_land_no_second_claim(store, kit, board,
                                                               monkeypatch):
    base = _head(store)
    # PR 2, committed past add (a hostile contributor's own tool): the gate refuses it
    copy = _copy(kit, board, "sol-submission-25504", 0.9)
    monkeypatch.setattr(store_claims, "claims_admitted", lambda *a: [])
    add_docs(store, [copy])
    monkeypatch.undo()
    found = [f for f in check_range(store, f"{base}..{_head(store)}") if f.rule.id == "KI232"]
    assert [(f.severity, f.file, f.pointer) for f in found] == [
        ("error", layout.object_path(Digest(_hex(copy))), "/spec/sourceNative/externalId")]
    assert f"sha256:{_hex(board['real'])}" in found[0].message
    # the whole range (both runs added in it): the one sorting after is refused
    first = git(store.root, "rev-list", "--max-parents=0", "HEAD").strip()
    both = [f for f in check_range(store, f"{first}..{_head(store)}") if f.rule.id == "KI232"]
    later = max(_hex(copy), _hex(board["real"]))
    assert [f.file for f in both] == [layout.object_path(Digest(later))]
    # history holding the pair still verifies: a warning on each run, naming the other
    stored = sorted((f.severity, f.file) for f in verify(store) if f.rule.id == "KI232")
    assert stored == sorted(("warning", layout.object_path(Digest(h)))
                            for h in (_hex(copy), _hex(board["real"])))


def test_both_passes_refusals_are_told_in_one_refusal(store, kit, board):
    # low00 (cause99's "noticed"): KI232 is the add's second pass; with a first-pass refusal
    # (KI223) of another run in the same add it was told only once that one was fixed
    copy = _copy(kit, board, "sol-submission-25504", 0.9)  # KI232: claims the stored record
    wild = _copy(kit, board, "sol-submission-88", 1.7, ident="88")  # KI223: out of [0, 1]
    before = git(store.root, "status", "--porcelain", "--untracked-files=all")
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [copy, wild])
    rules = [p.format().rsplit("(", 1)[-1][:5] for p in refused.value.problems]
    assert rules == ["KI223", "KI232"], rules
    text = str(refused.value.format())
    assert "the run states 1.7, which no run can score (KI223)" in text
    assert "claims to be sol-execbench record '25504'" in text
    assert git(store.root, "status", "--porcelain", "--untracked-files=all") == before
    # the refused run is judged by the first pass alone: no KI232 of its own id is invented
    alone = _copy(kit, board, "sol-submission-99", 1.7, ident="99")
    with pytest.raises(KistoreError) as one:
        add_docs(store, [alone])
    assert [p.format().rsplit("(", 1)[-1][:5] for p in one.value.problems] == ["KI223"]


@pytest.mark.parametrize("order", ["refused-first", "clean-first"])
def test_a_claim_shared_by_a_refused_run_and_a_clean_one_is_told_with_the_refusal(
        store, kit, board, order):
    # low01 (low00's leftover): the second pass judged only the runs the first did not
    # refuse, so a KI232 between a refused run (KI223) and a clean one of the same add
    # showed only once the KI223 was fixed: now both in one refusal
    wild = _copy(kit, board, "sol-local-77", 1.7, ident="77")  # KI223, and claims 77
    clean = _copy(kit, board, "sol-submission-77", 0.8, ident="77")  # claims 77 too
    docs = [wild, clean] if order == "refused-first" else [clean, wild]
    before = git(store.root, "status", "--porcelain", "--untracked-files=all")
    with pytest.raises(KistoreError) as refused:
        add_docs(store, docs)
    found = [(p.format().rsplit("(", 1)[-1][:5], p) for p in refused.value.problems]
    assert [rule for rule, _ in found] == ["KI223", "KI232"], found
    [claimed] = [p for rule, p in found if rule == "KI232"]
    earlier = docs[0]  # the later run's claim is refused, naming the earlier
    assert (f"which BenchmarkRun/{earlier['metadata']['name']} (sha256:{_hex(earlier)}) "
            "already claims with other bytes") in claimed.format()
    assert git(store.root, "status", "--porcelain", "--untracked-files=all") == before
