"""KI238: a SOL-ExecBench run whose ``sourceNative.benchmark`` is not its Workload's
``spec.definition`` (a copy pointed at another board) is refused by ``add``, ``import``,
``check BASE..HEAD`` and pre-receive, and warned of by ``verify``.

Each PR of the sequences below passes or fails on its own; a workload is immutable by its
digest, so "the workload changed later" is a new workload no stored run names: the pair a
run entered with is the pair it keeps.
"""

from __future__ import annotations

import json

import pytest

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.boards import board_of
from kistore.core.digest import Digest
from kistore.core.errors import KistoreError
from kistore.store import Store

from ..conftest import DATA, NO_DATA, ManifestKit, add_docs, add_past_a_refusal, git
from ..prs import Remote

BOARD = "rmsnorm"  # ManifestKit's workload definition


def _native(benchmark, source="sol-execbench"):
    return {"source": source, "benchmark": benchmark}


def _hex(doc) -> str:
    """A document's digest as 64 hex digits (no ``sha256:``)."""
    return ManifestKit.digest(doc)[7:]


@pytest.fixture
def board(store, kit):
    """A committed group: a workload (definition rmsnorm) and a run agreeing with it."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload(BOARD)
    impl = kit.implementation("p", name="i")
    run = kit.run(protocol, env, impl, workload, latency=1000, name="r",
                  native=_native(BOARD))
    add_docs(store, [protocol, env, workload, impl, run])
    return {"protocol": protocol, "env": env, "workload": workload, "impl": impl, "run": run}


def _copy(kit, board, benchmark, source="sol-execbench", name="copy"):
    return kit.run(board["protocol"], board["env"], board["impl"], board["workload"],
                   latency=900, name=name, native=_native(benchmark, source))


def _errors(store, base, rule="KI238"):
    return [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == rule]


def test_board_of_reads_sol_execbench_runs_and_workloads_only():
    assert board_of("BenchmarkRun", {"sourceNative": _native("b")}) == "b"
    assert board_of("BenchmarkRun", {"sourceNative": _native("b", "SOL_ExecBench")}) == "b"
    assert board_of("BenchmarkRun", {"sourceNative": _native("b", "kernelbench")}) is None
    assert board_of("BenchmarkRun", {"sourceNative": {"source": "sol-execbench"}}) is None
    assert board_of("BenchmarkRun", {"sourceNative": _native(3)}) is None
    assert board_of("Workload", {"definition": "b"}) == "b"
    assert board_of("BenchmarkProtocol", {"definition": "b"}) is None


@pytest.mark.parametrize("source", ["sol-execbench", "sol.exec-bench"])
def test_a_copy_pointed_at_another_board_is_refused_by_add_and_the_gate(
        store, kit, board, monkeypatch, source):
    copy = _copy(kit, board, "softmax", source)
    before = git(store.root, "status", "--porcelain")
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [copy])
    said = str(refused.value)
    assert (f"/spec/sourceNative/benchmark: BenchmarkRun/copy (sha256:{_hex(copy)}) states "
            f"sourceNative.benchmark 'softmax' but its workload Workload/"
            f"{board['workload']['metadata']['name']} (sha256:{_hex(board['workload'])}) is "
            "'rmsnorm'") in said and said.endswith("(KI238)")
    assert git(store.root, "status", "--porcelain") == before  # nothing written
    # committed past add (a hand-made commit): the gate refuses it, on the run's object
    base = add_past_a_refusal(store, monkeypatch, [], [copy],
                              rule="kistore.store.boards.boards_admitted",
                              finds_nothing=lambda *a: [])
    [found] = _errors(store, base)
    assert (found.severity, found.file, found.pointer, found.expected, found.found) == (
        "error", layout.object_path(Digest(_hex(copy))), "/spec/sourceNative/benchmark",
        "rmsnorm", "softmax")
    # verify: a warning (a store may hold one from before the rule), on the run alone
    [warned] = [f for f in verify(store) if f.rule.id == "KI238"]
    assert (warned.severity, warned.file) == ("warning", found.file)


def test_runs_agreeing_or_stating_no_board_pass(store, kit, board):
    base = git(store.root, "rev-parse", "HEAD").strip()
    same = _copy(kit, board, BOARD, name="same")
    other = _copy(kit, board, "softmax", source="synthetic", name="other-source")
    add_docs(store, [same, other])  # not refused
    assert _errors(store, base) == []
    assert [f for f in verify(store) if f.rule.id == "KI238"] == []


def test_a_workload_arriving_after_its_runs_is_judged_against_them(store, kit, monkeypatch):
    # PR 1: a run naming a workload nobody stored yet (--allow-dangling), board softmax
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload(BOARD)
    impl = kit.implementation("p", name="i")
    run = kit.run(protocol, env, impl, workload, latency=1000, name="r",
                  native=_native("softmax"))
    add_docs(store, [protocol, env, impl, run], allow_dangling=True)
    # PR 2: the workload arrives, its definition another board: add refuses it
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [workload])
    assert f"sha256:{_hex(run)}" in str(refused.value) and "(KI238)" in str(refused.value)
    assert "/spec/definition" in str(refused.value)
    base = add_past_a_refusal(store, monkeypatch, [], [workload],
                              rule="kistore.store.boards.boards_admitted",
                              finds_nothing=lambda *a: [])
    [found] = _errors(store, base)  # the gate: on the earlier run, found through forward/
    assert (found.severity, found.file) == ("error", layout.object_path(Digest(_hex(run))))


def test_a_workload_changed_later_is_a_new_workload_no_stored_run_names(store, kit, board):
    # PR 2: "the workload changed": another definition is another digest; the run keeps
    # naming the one it entered with, so nothing the PR adds disagrees with a stored run
    base = git(store.root, "rev-parse", "HEAD").strip()
    changed = kit.workload("softmax", name=board["workload"]["metadata"]["name"] + "-v2")
    add_docs(store, [changed])
    assert _hex(changed) != _hex(board["workload"])
    assert _errors(store, base) == []
    # PR 3: a run on the new workload stating its board passes; one stating the old fails
    base = git(store.root, "rev-parse", "HEAD").strip()
    ok = kit.run(board["protocol"], board["env"], board["impl"], changed, latency=800,
                 name="on-v2", native=_native("softmax"))
    add_docs(store, [ok])
    assert _errors(store, base) == []
    stale = kit.run(board["protocol"], board["env"], board["impl"], changed, latency=700,
                    name="stale", native=_native(BOARD))
    with pytest.raises(KistoreError, match="KI238"):
        add_docs(store, [stale])
    assert [f for f in verify(store) if f.severity != "info"] == []


def test_pre_receive_refuses_the_copy(store, kit, board, tmp_path):
    remote = Remote(store.root, tmp_path)
    main_before = remote.main()
    copy = _copy(kit, board, "softmax")

    def change(clone):
        with pytest.MonkeyPatch.context() as patch:  # committed past add's KI238
            patch.setattr("kistore.store.boards.boards_admitted", lambda *a: [])
            add_docs(Store(clone), [copy], commit=False)
    push = remote.pr("copy on another board", change)
    assert not push.accepted and "KI238" in push.output, push.output
    assert remote.main() == main_before


@pytest.mark.skipif(not DATA.is_dir(), reason=NO_DATA)
def test_every_real_sol_execbench_run_states_its_workloads_board(imported_store):
    view = imported_store.view(None)
    assert [f for f in verify(imported_store) if f.rule.id == "KI238"] == []
    runs = 0
    for digest in view.digests():
        doc = json.loads(view.read(layout.object_path(digest)))
        board = board_of(doc["kind"], doc["spec"])
        if doc["kind"] == "BenchmarkRun" and board is not None:
            workload = json.loads(view.read(layout.object_path(
                Digest.from_str(doc["spec"]["workloadDigest"]))))
            assert workload["spec"]["definition"] == board
            runs += 1
    assert runs == 80  # README: 63 leaderboard rows + 17 local evaluator runs
