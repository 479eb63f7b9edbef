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
from click.testing import CliRunner

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.boards import board_disagreements, board_of
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


def _refused(store, docs) -> str:
    """Return the message of the refusal ``add`` gives ``docs`` (it must refuse them)."""
    with pytest.raises(KistoreError) as refused:
        add_docs(store, docs)
    return str(refused.value)


def _errors(store, base, rule="KI238"):
    return [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == rule]


def test_board_of_reads_sol_execbench_and_flashinfer_runs_and_workloads_only():
    assert board_of("BenchmarkRun", {"sourceNative": _native("b")}) == (("board", "b"),)
    assert board_of("BenchmarkRun", {"sourceNative": _native("b", "SOL_ExecBench")}) == (
        ("board", "b"),)
    # KernelBench (r93b G3): its problem file, not SOL-ExecBench's board
    assert board_of("BenchmarkRun", {"sourceNative": _native("b", "kernelbench")}) == (
        ("problem", "b"),)
    assert board_of("BenchmarkRun", {"sourceNative": {"source": "sol-execbench"}}) is None
    assert board_of("BenchmarkRun", {"sourceNative": _native(3)}) is None
    assert board_of("Workload", {"definition": "b"}) == (("board", "b"),)
    assert board_of("BenchmarkProtocol", {"definition": "b"}) is None
    # the name's kernel (KI209's leaderboard form; a leading zero is the same number)
    sol = {"sourceNative": {"source": "sol-execbench"}}
    assert board_of("BenchmarkRun", sol, "sol-kernel-03-submission-1") == (("kernel", "3"),)
    assert board_of("BenchmarkRun", sol, "sol-local-10-concrete-view-trial-1") is None
    assert board_of("BenchmarkRun", {"sourceNative": _native("b")}, "sol-kernel-3-submission-1"
                    ) == (("board", "b"), ("kernel", "3"))
    assert board_of("Workload", {"definition": "b", "sourceNative": {
        "source": "sol-execbench", "kernelId": 3}}) == (("board", "b"), ("kernel", "3"))
    assert board_of("Workload", {"sourceNative": {"source": "sol-execbench",
                                                  "kernelId": True}}) is None
    # FlashInfer Trace: the run's name, the workload's one case's axes
    fi = {"sourceNative": {"source": "flashinfer-trace"}}
    assert board_of("BenchmarkRun", fi, "f-m-1-20250803t2336") == (("name", "f-m-1-20250803t2336"),)
    assert board_of("Workload", {**fi, "cases": [{"axes": {"M": 104, "Batch_Size": 2}}]}) == (
        ("axes", "batch-size=2,m=104"),)
    assert board_of("Workload", {**fi, "cases": [{"axes": {"M": 1}}, {"axes": {"M": 2}}]}) is None


@pytest.mark.parametrize(("run", "workload", "found"), [
    ((("board", "a"), ("kernel", "3")), (("board", "a"), ("kernel", "10")),
     [("kernel", "10", "3")]),
    ((("kernel", "3"),), (("board", "a"),), []),  # the workload states no kernelId
    ((("name", "flashinfer-trace-gemm-torch-m-1-20250803t233619508706"),), (("axes", "m=104"),),
     [("axes", "m=104", "m=1")]),
    ((("name", "flashinfer-trace-gemm-torch-m-104-20250803t233619508706"),),
     (("axes", "m=104"),), []),
    # the name's -m-N wherever it stands, without a stamp too (r92 F3: it said no axes)
    ((("name", "flashinfer-trace-gemm-torch-m-1"),), (("axes", "m=104"),),
     [("axes", "m=104", "m=1")]),
    ((("name", "my-own-run"),), (("axes", "m=104"),), []),  # says no axes
    ((("name", "fi-m1-20250803t2"),), (("axes", "m=104"),), []),  # `m1`: not plainly m=1
    ((("axes:title", "m=1"),), (("axes", "m=104"),), [("axes:title", "m=104", "m=1")]),
    ((("axes:title", "m=104"),), (("axes", "batch-size=2,m=104"),), []),  # key by key
    ((("board:title", "003_x"), ("kernel:source-url", "3")),
     (("board", "010_y"), ("kernel", "10")),
     [("board:title", "010_y", "003_x"), ("kernel:source-url", "10", "3")]),
    ((("name", "fi-t-batch-size-2-m-1-20250803t2"),), (("axes", "batch-size=2,m=104"),),
     [("axes", "batch-size=2,m=104", "batch-size=2,m=1")]),
])
def test_board_disagreements_judge_only_what_both_state(run, workload, found):
    assert board_disagreements(run, workload) == found


@pytest.mark.parametrize("source", ["sol-execbench", "sol.exec-bench"])
def test_a_copy_pointed_at_another_board_is_refused_by_add_and_the_gate(
        store, kit, board, monkeypatch, source):
    copy = _copy(kit, board, "softmax", source)
    before = git(store.root, "status", "--porcelain")
    said = _refused(store, [copy])
    assert (f"/spec/sourceNative/benchmark: BenchmarkRun/copy (sha256:{_hex(copy)}) states "
            f"sourceNative.benchmark 'softmax' but its workload Workload/"
            f"{board['workload']['metadata']['name']} (sha256:{_hex(board['workload'])}) is "
            "'rmsnorm'") in said and said.endswith("(KI238)")
    assert git(store.root, "status", "--porcelain") == before  # nothing written
    _committed_past_add(store, monkeypatch, copy, "/spec/sourceNative/benchmark", "rmsnorm",
                        "softmax")


def _committed_past_add(store, monkeypatch, copy, pointer, expected, found_):
    """Commit ``copy`` past add's KI238 (a hand-made commit): the gate refuses it, on the
    run's object, and verify warns (a store may hold one from before the rule)."""
    base = add_past_a_refusal(store, monkeypatch, [], [copy],
                              rule="kistore.store.boards.boards_admitted",
                              finds_nothing=lambda *a: [])
    [found] = _errors(store, base)
    assert (found.severity, found.file, found.pointer, found.expected, found.found) == (
        "error", layout.object_path(Digest(_hex(copy))), pointer, expected, found_)
    [warned] = [f for f in verify(store) if f.rule.id == "KI238"]
    assert (warned.severity, warned.file) == ("warning", found.file)
    return found, warned


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
    said = _refused(store, [workload])
    assert f"sha256:{_hex(run)}" in said and "(KI238)" in said
    assert "/spec/definition" in said
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
    stated = {"kernel": 0, "name": 0, "board:title": 0, "kernel:source-url": 0,
              "kernel:source-file": 0, "axes:title": 0, "problem": 0, "problem:title": 0}
    for digest in view.digests():
        doc = json.loads(view.read(layout.object_path(digest)))
        metadata = json.loads(view.read(layout.metadata_path(digest)))
        name = metadata["name"]
        board = board_of(doc["kind"], doc["spec"], name, metadata)
        if doc["kind"] == "BenchmarkRun" and board is not None:
            workload = json.loads(view.read(layout.object_path(
                Digest.from_str(doc["spec"]["workloadDigest"]))))
            theirs = board_of("Workload", workload["spec"])
            assert theirs is not None and board_disagreements(board, theirs) == []
            said = dict(board)
            if "board" in said:
                assert workload["spec"]["definition"] == said["board"]
                runs += 1
            if "kernel" in said:  # the name's kernel is the workload's kernelId
                assert str(workload["spec"]["sourceNative"]["kernelId"]) == said["kernel"]
                stated["kernel"] += 1
            if "name" in said:  # each FlashInfer Trace name says its workload's axes
                axes = dict(theirs)["axes"]
                assert name.endswith(axes.replace("=", "-").replace(",", "-") + "-" +
                                     name.rsplit("-", 1)[1])
                stated["name"] += 1
            for key in ("board:title", "kernel:source-url", "kernel:source-file",
                        "axes:title",  # r92 F3: the title and annotations, where written
                        "problem", "problem:title"):  # r93b G3: KernelBench's too
                stated[key] += key in said
    assert runs == 80  # README: 63 leaderboard rows + 17 local evaluator runs
    # r91 F6: every name judged, none refused; r92 F3: every SOL-ExecBench title names its
    # problem, every leaderboard row's annotations its kernel, every FlashInfer Trace
    # title its axes, and all agree
    assert stated == {"kernel": 63, "name": 172, "board:title": 80, "kernel:source-url": 63,
                      "kernel:source-file": 63, "axes:title": 172,
                      "problem": 750, "problem:title": 750}  # every KernelBench run too


def _sol_workload(kit, kernel: int, name: str):
    doc = kit.workload(BOARD, name=name)
    doc["spec"]["sourceNative"] = {"source": "sol-execbench", "kernelId": kernel}
    return doc


@pytest.mark.parametrize("benchmark", [None, BOARD])
def test_a_run_named_for_another_kernel_is_refused_stating_no_or_this_boards_benchmark(
        store, kit, monkeypatch, benchmark):
    # r91 F6: a copy of board 3's run pointed at board 10's workload, its benchmark left
    # out (or set to board 10's, KI238's old second advice followed the wrong way); its
    # name still says kernel 3, as KI209 makes the source's names
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    ten = _sol_workload(kit, 10, "sol-kernel-10")
    native = {"source": "sol-execbench", "externalId": "1"}
    ok = kit.run(protocol, env, impl, ten, latency=1000, name="sol-kernel-10-submission-1",
                 native=native)
    add_docs(store, [protocol, env, impl, ten, ok])  # the name agrees: added
    base = git(store.root, "rev-parse", "HEAD").strip()
    copy = kit.run(protocol, env, impl, ten, latency=900, name="sol-kernel-3-submission-99999",
                   native={**native, "externalId": "99999"} | (
                       {} if benchmark is None else {"benchmark": benchmark}))
    said = _refused(store, [copy])
    assert (f"/spec/workloadDigest: BenchmarkRun/sol-kernel-3-submission-99999 (sha256:"
            f"{_hex(copy)}) is named as SOL-ExecBench kernel 3 but its workload Workload/"
            f"sol-kernel-10 (sha256:{_hex(ten)}) is kernel 10 (sourceNative.kernelId)") in said
    assert said.endswith("(KI238)")
    base = add_past_a_refusal(store, monkeypatch, [], [copy],
                              rule="kistore.store.boards.boards_admitted",
                              finds_nothing=lambda *a: [])
    [found] = _errors(store, base)  # the gate
    assert (found.severity, found.file, found.pointer, found.expected, found.found) == (
        "error", layout.object_path(Digest(_hex(copy))), "/spec/workloadDigest",
        "kernel 10", "kernel 3")
    [warned] = [f for f in verify(store) if f.rule.id == "KI238"]  # verify: a warning
    assert (warned.severity, warned.file) == ("warning", found.file)


def test_a_workload_arriving_after_a_run_named_for_another_kernel_is_refused(store, kit):
    # PR 1: a run named for kernel 3 naming a workload not stored yet; PR 2: that digest
    # arrives as kernel 10's workload: judged against the earlier run's name (forward/)
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    ten = _sol_workload(kit, 10, "sol-kernel-10")
    run = kit.run(protocol, env, impl, ten, latency=1000, name="sol-kernel-3-submission-7",
                  native={"source": "sol-execbench", "externalId": "7"})
    add_docs(store, [protocol, env, impl, run], allow_dangling=True)
    said = _refused(store, [ten])
    assert f"/spec/definition: BenchmarkRun/sol-kernel-3-submission-7 (sha256:{_hex(run)}) " \
        "is named as SOL-ExecBench kernel 3" in said and said.endswith("(KI238)")


def test_a_flashinfer_run_named_at_another_shape_is_refused(store, kit, monkeypatch):
    # r91 F6: a FlashInfer Trace run named m-1 pointed at the m=104 workload
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    workload = kit.workload("gemm_n_28672_k_4096", name="fi-gemm-m-104")
    workload["spec"]["sourceNative"] = {"source": "flashinfer-trace"}
    workload["spec"]["cases"] = [{"axes": {"M": 104}, "uuid": "u"}]
    native = {"source": "flashinfer-trace", "benchmark": "gemm_n_28672_k_4096"}
    ok = kit.run(protocol, env, impl, workload, latency=1000, native=native,
                 name="flashinfer-trace-gemm-torch-m-104-20250803t233619508706")
    own = kit.run(protocol, env, impl, workload, latency=1100, native=native, name="my-run")
    add_docs(store, [protocol, env, impl, workload, ok, own])  # agreeing, saying nothing
    copy = kit.run(protocol, env, impl, workload, latency=900, native=native,
                   name="flashinfer-trace-gemm-torch-m-1-20250803t233619508707")
    said = _refused(store, [copy])
    assert (f"/spec/workloadDigest: BenchmarkRun/{copy['metadata']['name']} (sha256:"
            f"{_hex(copy)}) is named as measured at m=1 but its workload Workload/"
            f"fi-gemm-m-104 (sha256:{_hex(workload)}) is m=104: a FlashInfer Trace run is "
            "ranked in its workload's comparison group") in said
    base = add_past_a_refusal(store, monkeypatch, [], [copy],
                              rule="kistore.store.boards.boards_admitted",
                              finds_nothing=lambda *a: [])
    [found] = _errors(store, base)
    assert (found.pointer, found.expected, found.found) == (
        "/spec/workloadDigest", "axes m=104", "axes m=1")


def _add(root, monkeypatch, doc, tmp_path) -> tuple[int, str]:
    """``kistore add FILE`` of one document, from the top of the store."""
    path = tmp_path / f"{doc['metadata']['name']}.json"
    path.write_text(json.dumps(doc, ensure_ascii=False))
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["add", str(path)])
    return result.exit_code, result.output


def test_r92_f3_the_title_and_annotations_say_the_board_the_name_no_longer_does(
        store, kit, monkeypatch, tmp_path):
    """A board-3 leaderboard row renamed to the also-allowed `sol-submission-N`, its
    benchmark left out, pointed at board 10's workload, was added (exit 0): its title and
    annotations, as the importer wrote them, still say board 3."""
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    ten = _sol_workload(kit, 10, "sol-kernel-10")
    ten["spec"]["definition"] = "010_attention_value_projection_with_transpose"
    add_docs(store, [protocol, env, impl, ten])
    copy = kit.run(protocol, env, impl, ten, latency=900, name="sol-submission-99999",
                   native={"source": "sol-execbench", "externalId": "99999"})
    copy["metadata"] |= {
        "title": "Geometric · 003_lm_head_projection_with_logit_slicing · B200",
        "annotations": {
            "kernelindex.dev/source-file": "sol-execbench/leaderboard/kernel-3/"
                                           "leaderboard_snapshot.json",
            "kernelindex.dev/source-url": "https://research.nvidia.com/benchmarks/"
            "sol-execbench/api/leaderboard/kernel/3/B200?evaluation_stack_version=v1.1"}}
    code, output = _add(store.root, monkeypatch, copy, tmp_path)
    assert code == 1, output
    assert (f"BenchmarkRun/sol-submission-99999 (sha256:{_hex(copy)}) is titled for "
            "'003_lm_head_projection_with_logit_slicing' and was retrieved from SOL-ExecBench "
            "kernel 3's leaderboard (annotation kernelindex.dev/source-url) and was imported "
            "from SOL-ExecBench kernel 3's snapshot (annotation kernelindex.dev/source-file) "
            f"but its workload Workload/sol-kernel-10 (sha256:{_hex(ten)}) is "
            "'010_attention_value_projection_with_transpose' and kernel 10 "
            "(sourceNative.kernelId): ") in " ".join(output.split()), output
    # a hand-written title states no problem; the annotations of another board's snapshot
    # do: each field alone refuses, none is needed
    copy["metadata"]["title"] = "my kernel · fast · B200"
    assert _add(store.root, monkeypatch, copy, tmp_path)[0] == 1
    del copy["metadata"]["annotations"]
    assert _add(store.root, monkeypatch, copy, tmp_path)[0] == 0  # states nothing: added


@pytest.mark.parametrize("name", [
    "flashinfer-trace-gemm-n-28672-k-4096-torch-m-1",  # no time stamp
    "flashinfer-trace-gemm-n-28672-k-4096-torch-m1-20250803t233619508799",  # m1: the title
    "my-run"])  # named by hand: the title
def test_r92_f3_a_flashinfer_run_titled_or_named_at_another_shape_is_refused(
        store, kit, monkeypatch, tmp_path, name):
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    workload = kit.workload("gemm_n_28672_k_4096", name="fi-gemm-m-104")
    workload["spec"]["sourceNative"] = {"source": "flashinfer-trace"}
    workload["spec"]["cases"] = [{"axes": {"M": 104}, "uuid": "u"}]
    add_docs(store, [protocol, env, impl, workload])
    native = {"source": "flashinfer-trace", "externalId": "gemm.log"}
    copy = kit.run(protocol, env, impl, workload, latency=900, native=native, name=name)
    copy["metadata"]["title"] = "gemm_n_28672_k_4096_torch · M=1 · NVIDIA B200"
    code, output = _add(store.root, monkeypatch, copy, tmp_path)
    assert code == 1 and "is titled as measured at m=1 but its workload Workload/" \
        "fi-gemm-m-104" in " ".join(output.split()), output
    copy["metadata"]["title"] = "gemm_n_28672_k_4096_torch · M=104 · NVIDIA B200"
    code, output = _add(store.root, monkeypatch, copy, tmp_path)  # the name alone
    assert code == (1 if "-m-1" in name else 0), output


def test_r92_f3_the_workload_is_named_once_when_benchmark_and_name_disagree(store, kit):
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    ten = _sol_workload(kit, 10, "sol-kernel-10")
    add_docs(store, [protocol, env, impl, ten])
    copy = kit.run(protocol, env, impl, ten, latency=900, name="sol-kernel-3-submission-9",
                   native={"source": "sol-execbench", "benchmark": "softmax", "externalId": "9"})
    said = _refused(store, [copy])
    assert (f"BenchmarkRun/sol-kernel-3-submission-9 (sha256:{_hex(copy)}) states "
            "sourceNative.benchmark 'softmax' and is named as SOL-ExecBench kernel 3 but its "
            f"workload Workload/sol-kernel-10 (sha256:{_hex(ten)}) is 'rmsnorm' and kernel 10 "
            "(sourceNative.kernelId): ") in said, said
    assert said.count("Workload/sol-kernel-10") == 1


def test_r92_f3_a_title_changed_to_another_shape_is_refused_at_the_gate(store, kit,
                                                                        monkeypatch):
    """The title is read now, and a pull request may change it (KI405): one that makes a
    stored run's title say another shape than its workload is refused, so a sequence of
    pull requests, each passing, never leaves verify a KI238."""
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    workload = kit.workload("gemm", name="fi-gemm-m-104")
    workload["spec"]["sourceNative"] = {"source": "flashinfer-trace"}
    workload["spec"]["cases"] = [{"axes": {"M": 104}, "uuid": "u"}]
    run = kit.run(protocol, env, impl, workload, latency=900, name="r",
                  native={"source": "flashinfer-trace"})
    run["metadata"]["title"] = "gemm · M=104 · B200"
    add_docs(store, [protocol, env, impl, workload, run])
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = store.root / layout.metadata_path(Digest(_hex(run)))
    path.write_text(path.read_text().replace("M=104", "M=1"))
    # pre-commit (fresh95 F6): BASE is HEAD, the staged tree on top of it: `git checkout HEAD`
    git(store.root, "add", "-A")
    staged = git(store.root, "commit-tree", git(store.root, "write-tree").strip(), "-p", "HEAD",
                 "-m", "kistore pre-commit: staged changes").strip()
    [found] = [f for f in check_range(store, f"HEAD..{staged}") if f.rule.id == "KI238"]
    assert f"`git checkout HEAD -- {layout.metadata_path(Digest(_hex(run)))}`" in found.hint
    git(store.root, "commit", "-qam", "title")
    [found] = _errors(store, base)
    assert (found.severity, found.file, found.expected, found.found) == (
        "error", layout.object_path(Digest(_hex(run))), "axes m=104", "axes m=1")
    # the gate names BASE's commit (git has no BASE: fresh95 F6), as KI101's fix does
    assert found.hint.startswith("the range changes this stored run's metadata") and \
        f"`git checkout {base} -- {layout.metadata_path(Digest(_hex(run)))}`" in found.hint
    # a server (bare, its HEAD the old tip, BASE): the id, never HEAD, which in the pusher's
    # clone holds the edit
    bare = store.root.parent / "server.git"
    git(store.root.parent, "clone", "-q", "--bare", str(store.root), str(bare))
    title = git(store.root, "rev-parse", "HEAD").strip()
    git(bare, "update-ref", "HEAD", base)
    [served] = [f for f in check_range(Store(bare), f"{base}..{title}") if f.rule.id == "KI238"]
    assert f"`git checkout {base} -- " in served.hint, served.hint
    # a title edit moves no ranking (the workload digest is in the object): not said so
    assert "would rank on another board" not in found.message
    assert found.message.endswith("a FlashInfer Trace run's title and annotations say where it "
                                  "was measured, and these now say another shape than the "
                                  "one it ranks on"), found.message


# -- r93b G3: every title shape the importers write -----------------------------------------

def _kernelbench(kit, problem: str, name: str):
    """A KernelBench workload of ``problem`` (``level1/19_ReLU.py``) as the importer writes it."""
    doc = kit.workload(problem.rpartition("/")[2].removesuffix(".py"), name=name)
    doc["spec"]["sourceNative"] = {"source": "kernelbench", "benchmark": problem}
    return doc


def test_r93b_g3_a_kernelbench_runs_title_edited_to_another_problem_is_refused(
        store, kit, monkeypatch):
    """KernelBench's runs were never judged by KI238 (KI226 pins each to the 750 its
    importer makes, so a copy on another problem's workload is refused as no import), but
    a pull request may edit a stored run's title (KI405): one titled for another problem
    than its workload's (``LEVEL/FILE.py · IMPLEMENTATION · HARDWARE``) is refused at the
    gate, as a SOL-ExecBench or FlashInfer Trace run's is."""
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    softmax = _kernelbench(kit, "level1/23_Softmax.py", "kernelbench-level1-23-softmax")
    run = kit.run(protocol, env, impl, softmax, latency=900, name="kb-run",
                  native={"source": "kernelbench", "benchmark": "level1/23_Softmax.py"})
    run["metadata"]["title"] = "level1/23_Softmax.py · KernelBench reference, PyTorch eager · L40S"
    base = add_past_a_refusal(store, monkeypatch, [protocol, env, impl, softmax], [run],
                              rule="kistore.store.admission._unproven_claim",
                              finds_nothing=lambda *a: [])  # a stored run: not a new claim
    assert _errors(store, base) == []
    path = store.root / layout.metadata_path(Digest(_hex(run)))
    path.write_text(path.read_text().replace("23_Softmax", "19_ReLU"))
    git(store.root, "commit", "-qam", "title")
    [found] = _errors(store, "HEAD~1")
    assert found.message == (
        f"BenchmarkRun/kb-run (sha256:{_hex(run)}) is titled for 'level1/19_ReLU.py' but its "
        f"workload Workload/kernelbench-level1-23-softmax (sha256:{_hex(softmax)}) is "
        "'level1/23_Softmax.py' (sourceNative.benchmark): a KernelBench run's title and "
        "annotations say where it was measured, and these now say another problem than the "
        "one it ranks on")
    assert (found.pointer, found.expected, found.found) == (
        "/spec/workloadDigest", "problem level1/23_Softmax.py", "problem level1/19_ReLU.py")
    # its benchmark says it too, on the run's own pointer
    board = board_of("BenchmarkRun", {"sourceNative": {"source": "kernelbench",
                                                        "benchmark": "level1/19_ReLU.py"}})
    assert board_disagreements(board, board_of("Workload", softmax["spec"])) == [
        ("problem", "level1/23_Softmax.py", "level1/19_ReLU.py")]


@pytest.mark.parametrize(("title", "problem"), [
    # a leaderboard row's kernel_name: any count of digits, any case, '.' and '-' (SOURCE.md:
    # a number prefix unique within its collection, L1, L2, Quant, FlashInfer-Bench)
    ("Geometric · 3_lm_head · B200", "3_lm_head"),
    ("Geometric · 0121_MoE_FP8-grouped.v2 · B200", "0121_MoE_FP8-grouped.v2"),
    ("Proud Wren · NVIDIA · 003_lm_head · B200", "003_lm_head"),  # a name holding ' · '
    # a local evaluator run: SOLUTION · DEFINITION · HARDWARE (local, MODE clocks), its
    # definition read whatever its form, and a solution of a problem's form left alone
    ("value_v1 · gqa_paged_decode_h32 · B200 (local, locked clocks)", "gqa_paged_decode_h32"),
    ("119_grouped_v1 · 025_moe_backward · NVIDIA B200 (local, base clocks)", "025_moe_backward"),
    # hand-written: nothing stated
    ("my kernel · fast · B200", None),
    ("a b · two words · B200 (local, locked clocks)", None),
    ("003_lm_head · B200", None),
])
def test_r93b_g3_sol_execbench_title_shapes(title, problem):
    board = board_of("BenchmarkRun", {"sourceNative": {"source": "sol-execbench"}}, "r",
                     {"title": title})
    assert dict(board or ()).get("board:title") == problem
    if problem is not None:  # and judged against the workload's definition
        workload = board_of("Workload", {"definition": "other_problem"})
        assert board_disagreements(board, workload) == [
            ("board:title", "other_problem", problem)]


def test_r93b_g4_a_source_url_edited_to_another_kernel_is_fixed_by_restoring_it(store, kit):
    """A pull request editing a stored leaderboard row's source URL to another kernel's
    leaderboard: KI238's fix said "keep the title as it was" (the title was untouched);
    it names the field changed: restore the URL."""
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    three = _sol_workload(kit, 3, "sol-kernel-3")
    url = ("https://research.nvidia.com/benchmarks/sol-execbench/api/leaderboard/kernel/"
           "{}/B200?evaluation_stack_version=v1.1")
    run = kit.run(protocol, env, impl, three, latency=900, name="sol-submission-7",
                  native={"source": "sol-execbench", "externalId": "7"})
    run["metadata"]["annotations"] = {"kernelindex.dev/source-url": url.format(3)}
    add_docs(store, [protocol, env, impl, three, run])
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(Digest(_hex(run)))
    meta = json.loads((store.root / path).read_text())
    meta["annotations"]["kernelindex.dev/source-url"] = url.format(10)
    (store.root / path).write_text(json.dumps(meta, sort_keys=True, separators=(",", ":")))
    git(store.root, "commit", "-qam", "another kernel's URL")
    [found] = _errors(store, base)
    assert "was retrieved from SOL-ExecBench kernel 10's leaderboard" in found.message
    assert found.hint == (
        "the range changes this stored run's metadata so that it states another board or "
        "shape than its workload's (its source URL (annotation kernelindex.dev/source-url): "
        "KI238 reads it since 2026-12-05, r92 F3): restore its source URL (annotation "
        f"kernelindex.dev/source-url) as imported (`git checkout {base} -- {path}`); where the "
        "run was retrieved from and imported from never changes (KI432)")
    assert "title" not in found.hint


def _sol_pair(kit, kernel: int, benchmark: str, name: str):
    """A SOL-ExecBench board's Workload and a submission's Implementation on it (as imported)."""
    workload = kit.workload(benchmark, name=f"sol-kernel-{kernel}")
    workload["spec"]["sourceNative"] = {"source": "sol-execbench", "kernelId": kernel}
    impl = kit.implementation("p", name=name)
    impl["spec"]["sourceNative"] = {"source": "sol-execbench", "benchmark": benchmark,
                                    "kernelId": kernel}
    return workload, impl


def test_a_run_naming_another_boards_implementation_is_refused(store, kit, monkeypatch):
    """fresh95 F2: a board-3 run copied, renamed and its benchmark left out, pointed at board
    10's workload: it states nothing of its board but its Implementation (board 3's) does.
    It passed add, the gate and verify, and ranked on board 10."""
    protocol, env = kit.protocol(), kit.environment()
    board3, impl3 = _sol_pair(kit, 3, "003_lm_head", "sol-kernel-3-submission-19169")
    board10, impl10 = _sol_pair(kit, 10, "010_attention", "sol-kernel-10-submission-7")
    add_docs(store, [protocol, env, board3, impl3, board10, impl10])
    copy = kit.run(protocol, env, impl3, board10, latency=900, name="sol-submission-999999",
                   native={"source": "sol-execbench", "externalId": "999999"})
    assert board_of("BenchmarkRun", copy["spec"], "sol-submission-999999") is None
    before = git(store.root, "status", "--porcelain")
    said = _refused(store, [copy])
    assert (f"/spec/workloadDigest: BenchmarkRun/sol-submission-999999 (sha256:{_hex(copy)}) "
            "names an Implementation for '003_lm_head' (its sourceNative.benchmark) and names "
            "an Implementation of SOL-ExecBench kernel 3 (its sourceNative.kernelId) but its "
            f"workload Workload/sol-kernel-10 (sha256:{_hex(board10)}) is '010_attention' and "
            "kernel 10 (sourceNative.kernelId)") in said, said
    assert said.endswith("(KI238)") and said.count("KI238") == 1
    assert git(store.root, "status", "--porcelain") == before  # nothing written
    _committed_past_add(store, monkeypatch, copy, "/spec/workloadDigest", "board 010_attention",
                        "board 003_lm_head")


def test_a_run_naming_its_own_boards_implementation_passes(store, kit):
    protocol, env = kit.protocol(), kit.environment()
    board10, impl10 = _sol_pair(kit, 10, "010_attention", "sol-kernel-10-submission-7")
    add_docs(store, [protocol, env, board10, impl10])
    base = git(store.root, "rev-parse", "HEAD").strip()
    run = kit.run(protocol, env, impl10, board10, latency=900, name="sol-submission-7",
                  native={"source": "sol-execbench", "externalId": "7"})
    add_docs(store, [run])  # not refused
    assert _errors(store, base) == []
    assert [f for f in verify(store) if f.rule.id == "KI238"] == []
    assert board_of("Implementation", impl10["spec"]) == (
        ("board:implementation", "010_attention"), ("kernel:implementation", "10"))


def _flashinfer_pair(kit, definition: str, name: str):
    """A FlashInfer Trace definition's Workload and a solution's Implementation for it."""
    workload = kit.workload(definition,
                            name=f"flashinfer-trace-{definition.replace('_', '-')}-m-1")
    workload["spec"]["sourceNative"] = {"source": "flashinfer-trace"}
    impl = kit.implementation("p", name=name)
    impl["spec"]["sourceNative"] = {"source": "flashinfer-trace", "solution": name,
                                    "definition": definition}
    return workload, impl


def test_a_flashinfer_run_naming_another_definitions_implementation_is_refused(store, kit):
    """break95 H1: fresh95 F2's hole for FlashInfer Trace: a run of a gemm_n_4096_k_4096
    solution, its sourceNative dropped and renamed, pointed at gemm_n_28672_k_4096's
    workload, was added, passed the gate and ranked #1 there."""
    protocol, env = kit.protocol(), kit.environment()
    small, impl_small = _flashinfer_pair(kit, "gemm_n_4096_k_4096", "torch-small")
    large, impl_large = _flashinfer_pair(kit, "gemm_n_28672_k_4096", "torch-large")
    add_docs(store, [protocol, env, small, impl_small, large, impl_large])
    base = git(store.root, "rev-parse", "HEAD").strip()
    copy = kit.run(protocol, env, impl_small, large, latency=18_532, name="my-copy")
    said = _refused(store, [copy])
    assert (f"BenchmarkRun/my-copy (sha256:{_hex(copy)}) names an Implementation for "
            "definition 'gemm_n_4096_k_4096' (its sourceNative.definition) but its workload "
            f"Workload/flashinfer-trace-gemm-n-28672-k-4096-m-1 (sha256:{_hex(large)}) is "
            "'gemm_n_28672_k_4096': a FlashInfer Trace run is ranked in its workload's "
            "comparison group") in said, said
    own = kit.run(protocol, env, impl_large, large, latency=57_082, name="own")
    add_docs(store, [own])  # its own definition's implementation: not refused
    assert _errors(store, base) == []
    assert [f for f in verify(store) if f.rule.id == "KI238"] == []
