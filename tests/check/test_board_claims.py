"""KI238 reads a SOL-ExecBench local evaluator run's case and a FlashInfer Trace run's
definition and solution (reviewer fresh96 F2, F3, L0).

F2: a local evaluator run measured at one workload (case uuid 15ec2850-..., seq_len 512),
copied onto another case's workload of the same kernel (17a3d18e-..., seq_len 2048), ranked
#1 there with a green gate: its name and ``externalId`` end with the case it was measured
at. F3: a gemm_n_4096_k_4096 run, its benchmark dropped and gemm_n_28672_k_4096's
Implementation named, ranked #1 on gemm_n_28672_k_4096: its title and ``externalId``
still name its solution (gemm_n_4096_k_4096_torch), not its Implementation's. Each is
refused by ``add``, the gate (pre-commit, pre-receive, ``check BASE..HEAD``) and warned of
by ``verify``; every real run agrees (no honest run refused).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.boards import (
    board_disagreements,
    board_message,
    board_of,
    with_implementation,
)
from kistore.core.digest import Digest
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.store import Store
from kistore.store.boards import boards_admitted

from ..conftest import DATA, NO_DATA, add_docs, git
from ..prs import Remote
from .test_board_rule import _committed_past_add

A = "15ec2850-0959-565b-9b74-5c189e12d7e1"  # seq_len 512 (the real data's uuids)
B = "17a3d18e-355a-5d94-9d38-a3e8e7587939"  # seq_len 2048
PROBLEM = "010_attention_value_projection_with_transpose"
SMALL, LARGE = "gemm_n_4096_k_4096", "gemm_n_28672_k_4096"
TRACE_FILE = "flashinfer-trace/traces/gemm/{}.jsonl"
LOG = "gemm_n_4096_k_4096_torch_913843446144224090.log"


def _hex(doc) -> str:
    return Manifest.from_document(doc).digest.hex


def _local_workload(kit, uuid: str, seq_len: int):
    """A local evaluator run's Workload as the importer writes it: one case, its uuid."""
    doc = kit.workload(PROBLEM, name=f"sol-local-kernel-10-{uuid}")
    doc["spec"]["cases"] = [{"uuid": uuid, "axes": {"batch_size": 1, "seq_len": seq_len}}]
    doc["spec"]["sourceNative"] = {"source": "sol-execbench", "kernelId": 10}
    return doc


def _local_run(kit, protocol, env, impl, workload, *, case: str, trial: int = 1):
    """A local evaluator run of ``case`` (name and externalId as the importer's), pointed at
    ``workload``."""
    return kit.run(protocol, env, impl, workload, latency=10_400 + trial,
                   name=f"sol-local-10-concrete-view-initial-trial-{trial}-{case}",
                   native={"source": "sol-execbench", "benchmark": PROBLEM,
                           "externalId": f"10-concrete-view-initial/trial-{trial}/{case}"})


@pytest.fixture
def local(store, kit):
    """Two cases of kernel 10 and the honest seq_len-512 run, committed."""
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p", name="i")
    at_a, at_b = _local_workload(kit, A, 512), _local_workload(kit, B, 2048)
    honest = _local_run(kit, protocol, env, impl, at_a, case=A)
    add_docs(store, [protocol, env, impl, at_a, at_b, honest])
    return {"protocol": protocol, "env": env, "impl": impl, "a": at_a, "b": at_b}


def _errors(store, base):
    return [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == "KI238"]


def _gate_and_verify(store, monkeypatch, copy, pointer, expected, found_):
    """Commit ``copy`` past add's KI238: the gate refuses it, verify warns, in one message."""
    found, warned = _committed_past_add(store, monkeypatch, copy, pointer, expected, found_)
    assert warned.message == found.message
    return found


def _refused(store, copy) -> str:
    """What ``add`` says refusing ``copy`` (nothing written)."""
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [copy])
    return str(refused.value)


def test_f2_a_local_run_copied_onto_another_cases_workload_is_refused(store, kit, local,
                                                                      monkeypatch):
    copy = _local_run(kit, local["protocol"], local["env"], local["impl"], local["b"],
                      case=A, trial=9)
    said = _refused(store, copy)
    assert said.startswith(
        f"/spec/workloadDigest: BenchmarkRun/sol-local-10-concrete-view-initial-trial-9-{A} "
        f"(sha256:{_hex(copy)}) is named as measured at workload (case) {A} and states "
        f"sourceNative.externalId of workload (case) {A} but its workload Workload/"
        f"sol-local-kernel-10-{B} (sha256:{_hex(local['b'])}) is case {B} (cases/0/uuid): a "
        "SOL-ExecBench local evaluator run is ranked in its workload's comparison group, so "
        "this run would rank at another workload (case) than it was measured at; point "
        "workloadDigest at the Workload"), said
    assert said.endswith("(KI238)")
    assert [f for f in verify(store) if f.rule.id == "KI238"] == []  # nothing written
    found = _gate_and_verify(store, monkeypatch, copy, "/spec/workloadDigest",
                             f"case {B}", f"case {A}")
    assert "board" not in found.message.partition(";")[0]  # L0: the source's own word


def test_f2_the_honest_run_of_each_case_passes(store, kit, local):
    base = git(store.root, "rev-parse", "HEAD").strip()
    at_b = _local_run(kit, local["protocol"], local["env"], local["impl"], local["b"], case=B)
    upper = _local_run(kit, local["protocol"], local["env"], local["impl"], local["b"],
                       case=B, trial=2)
    upper["spec"]["sourceNative"]["externalId"] = upper["spec"]["sourceNative"][
        "externalId"].upper()  # a uuid is one whatever its case
    add_docs(store, [at_b, upper])
    assert _errors(store, base) == []
    assert [f for f in verify(store) if f.rule.id == "KI238"] == []


def test_f2_pre_receive_refuses_the_copy(store, kit, local, tmp_path):
    remote = Remote(store.root, tmp_path)
    main_before = remote.main()
    copy = _local_run(kit, local["protocol"], local["env"], local["impl"], local["b"],
                      case=A, trial=9)

    def change(clone):
        with pytest.MonkeyPatch.context() as patch:  # committed past add's KI238
            patch.setattr("kistore.store.boards.boards_admitted", lambda *a: [])
            add_docs(Store(clone), [copy], commit=False)
    push = remote.pr("seq_len 512 run on the seq_len 2048 workload", change)
    assert not push.accepted and "KI238" in push.output and B in push.output, push.output
    assert remote.main() == main_before


def test_f2_only_the_importers_forms_state_a_case():
    sol = {"source": "sol-execbench"}
    # a leaderboard row's externalId is its submission's id; a hand name states nothing
    assert board_of("BenchmarkRun", {"sourceNative": {**sol, "externalId": "42126"}},
                    "my-run") is None
    assert board_of("BenchmarkRun", {"sourceNative": {**sol, "externalId": f"x/{A}"}},
                    f"sol-local-{A}") is None  # no FOLDER-TRIAL before the uuid
    assert board_of("BenchmarkRun", {"sourceNative": {**sol, "externalId": f"f/t/{A}"}},
                    f"sol-local-f-t-{A}") == (("case:name", A), ("case:external-id", A))
    # a workload of several cases (a leaderboard board's) states no one case
    two = {"definition": "d", "sourceNative": {**sol, "kernelId": 3},
           "cases": [{"uuid": A}, {"uuid": B}]}
    assert board_of("Workload", two) == (("board", "d"), ("kernel", "3"))
    assert board_of("Workload", {**two, "cases": [{"uuid": A.upper()}]}) == (
        ("board", "d"), ("kernel", "3"), ("case", A))


# -- F3: FlashInfer Trace definitions and solutions -----------------------------------------

def _flashinfer(kit, definition: str):
    """A definition's M=1 Workload and its torch solution's Implementation, as imported."""
    workload = kit.workload(definition,
                            name=f"flashinfer-trace-{definition.replace('_', '-')}-m-1")
    workload["spec"]["sourceNative"] = {"source": "flashinfer-trace"}
    workload["spec"]["cases"] = [{"axes": {"M": 1}, "uuid": f"u-{definition}"}]
    solution = f"{definition}_torch"
    impl = kit.implementation(solution,
                              name=f"flashinfer-trace-{solution.replace('_', '-')}")
    impl["spec"]["sourceNative"] = {"source": "flashinfer-trace", "solution": solution,
                                    "definition": definition}
    return workload, impl


def _trace_run(kit, protocol, env, impl, workload, *, benchmark: bool = True,
               stamp: str = "20250803t235833368882"):
    """gemm_n_4096_k_4096's torch run at M=1, its fields as the importer writes them."""
    native = {"source": "flashinfer-trace", "externalId": LOG} | (
        {"benchmark": SMALL} if benchmark else {})
    run = kit.run(protocol, env, impl, workload, latency=18_532.5, native=native,
                  name=f"flashinfer-trace-gemm-n-4096-k-4096-torch-m-1-{stamp}")
    run["metadata"]["title"] = f"{SMALL}_torch · M=1 · NVIDIA B200"
    run["metadata"]["annotations"] = {"kernelindex.dev/source-file": TRACE_FILE.format(SMALL)}
    return run


@pytest.fixture
def gemm(store, kit):
    """Both definitions' workloads and Implementations, and the honest n_4096 run."""
    protocol, env = kit.protocol(), kit.environment()
    small, impl_small = _flashinfer(kit, SMALL)
    large, impl_large = _flashinfer(kit, LARGE)
    honest = _trace_run(kit, protocol, env, impl_small, small, stamp="20250803t235833368881")
    add_docs(store, [protocol, env, small, impl_small, large, impl_large, honest])
    return {"protocol": protocol, "env": env, "large": large, "impl_large": impl_large,
            "impl_small": impl_small}


def _copy(kit, gemm, **fields):
    """fresh96 F3's copy: pointed at n_28672's workload and its Implementation."""
    return _trace_run(kit, gemm["protocol"], gemm["env"], gemm["impl_large"], gemm["large"],
                      **fields)


def test_f3_the_copy_as_fresh96_made_it_is_refused(store, kit, gemm, monkeypatch):
    copy = _copy(kit, gemm, benchmark=False)  # its trace file kept: not read (see below)
    said = _refused(store, copy)
    assert said.startswith(
        f"/spec/implementationDigest: BenchmarkRun/{copy['metadata']['name']} (sha256:"
        f"{_hex(copy)}) is titled for solution '{SMALL}_torch' and states "
        f"sourceNative.externalId of solution '{SMALL}_torch' but it names an Implementation "
        f"of solution '{LARGE}_torch' (its sourceNative.solution): a FlashInfer Trace run is "
        "ranked in its workload's comparison group, so this run would rank under another "
        "definition or solution than it was measured for; point workloadDigest"), said
    _gate_and_verify(store, monkeypatch, copy, "/spec/implementationDigest",
                     f"solution {LARGE}_torch", f"solution {SMALL}_torch")


def test_f3_its_benchmark_kept_is_said_on_the_benchmark(store, kit, gemm, monkeypatch):
    copy = _copy(kit, gemm)
    assert _refused(store, copy).startswith(
        f"/spec/sourceNative/benchmark: BenchmarkRun/{copy['metadata']['name']} (sha256:"
        f"{_hex(copy)}) states sourceNative.benchmark '{SMALL}' but its workload Workload/"
        f"flashinfer-trace-gemm-n-28672-k-4096-m-1 (sha256:{_hex(gemm['large'])}) is "
        f"'{LARGE}': a FlashInfer Trace run")
    found = _gate_and_verify(store, monkeypatch, copy, "/spec/sourceNative/benchmark", LARGE,
                             SMALL)
    # the gate and verify see the Implementation too: every field is named
    assert (f"states sourceNative.benchmark '{SMALL}' and is titled for solution "
            f"'{SMALL}_torch' and states sourceNative.externalId of solution '{SMALL}_torch' "
            f"but its workload") in found.message
    assert (f"is '{LARGE}' and it names an Implementation of solution '{LARGE}_torch' (its "
            "sourceNative.solution): a FlashInfer Trace run") in found.message


def test_f3_a_trace_file_of_any_name_states_nothing(store, kit, gemm):
    """The importer takes any traces/**/NAME.jsonl (r85 F6: traces/gemm/new.jsonl): the
    file's name is not the source's statement of the definition, so it is not read."""
    base = git(store.root, "rev-parse", "HEAD").strip()
    run = _trace_run(kit, gemm["protocol"], gemm["env"], gemm["impl_small"],
                     _flashinfer(kit, SMALL)[0], stamp="20260602t030405")
    run["metadata"]["annotations"] = {"kernelindex.dev/source-file": TRACE_FILE.format("new")}
    run["spec"]["observedAt"] = "2026-06-02T03:04:05Z"  # another trace than the fixture's
    add_docs(store, [run])
    assert _errors(store, base) == []


def test_f3_the_runs_own_definition_and_hand_written_fields_pass(store, kit, gemm):
    base = git(store.root, "rev-parse", "HEAD").strip()
    own = _trace_run(kit, gemm["protocol"], gemm["env"], gemm["impl_large"], gemm["large"],
                     benchmark=False)
    own["metadata"]["title"] = f"{LARGE}_torch · M=1 · NVIDIA B200"
    own["spec"]["sourceNative"]["externalId"] = f"{LARGE}_torch_-1021721533848373653.log"
    own["metadata"]["annotations"] = {"kernelindex.dev/source-file": TRACE_FILE.format(LARGE)}
    hand = _trace_run(kit, gemm["protocol"], gemm["env"], gemm["impl_large"], gemm["large"],
                      benchmark=False, stamp="x")
    hand["metadata"]["title"] = "my gemm · fast · B200"  # no axes segment: no solution
    hand["spec"]["sourceNative"]["externalId"] = "run-7"
    hand["metadata"]["annotations"] = {"kernelindex.dev/source-file": "mine/gemm.jsonl"}
    add_docs(store, [own, hand])
    assert _errors(store, base) == []
    assert [f for f in verify(store) if f.rule.id == "KI238"] == []
    assert board_of("BenchmarkRun", hand["spec"], hand["metadata"]["name"],
                    hand["metadata"]) == (("name", hand["metadata"]["name"]),)


def test_l0_a_flashinfer_shape_is_called_a_shape(kit):
    workload, impl = _flashinfer(kit, SMALL)
    run = {"sourceNative": {"source": "flashinfer-trace"}}
    board = with_implementation(board_of("BenchmarkRun", run, "x-m-104"),
                                board_of("Implementation", impl["spec"]))
    said = board_message("R", board, "W", board_of("Workload", workload["spec"]))
    assert said == ("R is named as measured at m=104 but its workload W is m=1: a FlashInfer "
                    "Trace run is ranked in its workload's comparison group, so this run would "
                    "rank at another shape than it was measured at")


# -- the real data: every run states its case, definition and solution, and agrees ---------

@pytest.mark.skipif(not DATA.is_dir(), reason=NO_DATA)
def test_every_real_local_and_flashinfer_run_agrees_and_fresh96s_copies_are_refused(
        imported_store):
    view = imported_store.view(None)
    stated = dict.fromkeys(("case:name", "case:external-id", "board:benchmark",
                            "solution:title", "solution:external-id",
                            "solution:implementation"), 0)
    docs = {}
    for digest in view.digests():
        doc = json.loads(view.read(layout.object_path(digest)))
        metadata = json.loads(view.read(layout.metadata_path(digest)))
        docs[metadata["name"]] = {**doc, "metadata": metadata}
    for name, doc in docs.items():
        if doc["kind"] != "BenchmarkRun":
            continue
        spec = doc["spec"]
        board = with_implementation(
            board_of("BenchmarkRun", spec, name, doc["metadata"]),
            board_of("Implementation", _by_digest(view, spec["implementationDigest"])))
        workload = board_of("Workload", _by_digest(view, spec["workloadDigest"]))
        assert board is None or board_disagreements(board, workload or ()) == [], name
        for key, _ in board or ():
            if key in stated:
                stated[key] += 1
    # all 17 local evaluator runs state their case twice; all 172 FlashInfer Trace runs
    # their definition twice and their solution in title, externalId and Implementation
    assert stated == {"case:name": 17, "case:external-id": 17, "board:benchmark": 172,
                      "solution:title": 172,
                      "solution:external-id": 172, "solution:implementation": 172}
    # fresh96's two copies, made from the real runs as fresh96 made them: refused
    local = docs[f"sol-local-10-concrete-view-initial-trial-1-{A}"]
    local = json.loads(json.dumps(local))
    local["metadata"]["name"] = local["metadata"]["name"].replace("trial-1", "trial-9")
    native = local["spec"]["sourceNative"]
    native["externalId"] = native["externalId"].replace("trial-1", "trial-9")
    local["spec"]["workloadDigest"] = _digest_of(docs[f"sol-local-kernel-10-{B}"])
    trace = json.loads(json.dumps(
        docs["flashinfer-trace-gemm-n-4096-k-4096-torch-m-1-20250803t235833368881"]))
    trace["metadata"]["name"] = trace["metadata"]["name"][:-1] + "2"
    del trace["spec"]["sourceNative"]["benchmark"]
    trace["spec"]["workloadDigest"] = _digest_of(docs["flashinfer-trace-gemm-n-28672-k-4096-m-1"])
    trace["spec"]["implementationDigest"] = _digest_of(
        docs["flashinfer-trace-gemm-n-28672-k-4096-torch"])
    copies = [Manifest.from_document(d) for d in (local, trace)]
    refused = boards_admitted(imported_store, copies)  # reads; writes nothing
    assert [d for d, _ in refused] == [m.digest for m in copies]
    assert B in str(refused[0][1]) and A in str(refused[0][1])
    assert f"it names an Implementation of solution '{LARGE}_torch'" in str(refused[1][1])


def _by_digest(view, digest: str):
    return json.loads(view.read(layout.object_path(Digest.from_str(digest))))["spec"]


def _digest_of(doc) -> str:
    return str(Manifest.from_document(doc).digest)


# -- F8: add --update-metadata, and verify's fix of an uncommitted metadata edit ------------

def _retitled(run: dict, title: str) -> Manifest:
    doc = json.loads(json.dumps(run))
    doc["metadata"]["title"] = title
    return Manifest.from_document(doc)


def test_f8_update_metadata_to_another_shape_is_refused_as_at_add(store, kit, gemm):
    honest = _trace_run(kit, gemm["protocol"], gemm["env"], gemm["impl_small"],
                        _flashinfer(kit, SMALL)[0], stamp="20250803t235833368881")
    path = store.root / layout.metadata_path(Digest(_hex(honest)))
    before = path.read_bytes()
    with pytest.raises(KistoreError) as refused:
        store.add([_retitled(honest, f"{SMALL}_torch · M=104 · NVIDIA B200")],
                  update_metadata=True, commit=True)
    said = str(refused.value)
    assert said.startswith(
        f"/metadata: BenchmarkRun/{honest['metadata']['name']} (sha256:{_hex(honest)}) is "
        "titled as measured at m=104 but its workload Workload/flashinfer-trace-gemm-n-4096-"
        f"k-4096-m-1 (sha256:{_hex(_flashinfer(kit, SMALL)[0])}) is m=1: a FlashInfer Trace "
        "run's title and annotations say where it was measured, and these now say another "
        "shape than the one it ranks on; keep its title as stored: --update-metadata "
        "replaces what the run states, never where it was measured"), said
    assert said.endswith("(KI238)")
    assert path.read_bytes() == before  # nothing written
    # a solution retitled is refused too; a title still saying M=1 and its solution passes
    with pytest.raises(KistoreError, match="is titled for solution 'other_torch'"):
        store.add([_retitled(honest, "other_torch · M=1 · NVIDIA B200")],
                  update_metadata=True, commit=True)
    store.add([_retitled(honest, f"{SMALL}_torch · M=1 · B200 (retitled)")],
              update_metadata=True, commit=True)
    assert b"(retitled)" in path.read_bytes()


def test_f8_verify_fixes_an_uncommitted_title_edit_by_checkout(store, kit, gemm):
    honest = _trace_run(kit, gemm["protocol"], gemm["env"], gemm["impl_small"],
                        _flashinfer(kit, SMALL)[0], stamp="20250803t235833368881")
    relative = layout.metadata_path(Digest(_hex(honest)))
    path = store.root / relative
    path.write_text(path.read_text().replace(" · M=1 · ", " · M=104 · "))
    [warned] = [f for f in verify(store) if f.rule.id == "KI238"]
    assert warned.severity == "warning"
    assert warned.hint == (f"restore its title as committed (`git checkout HEAD -- {relative}`): "
                           "the work tree's metadata of this run, not committed, says it; the "
                           "run itself is as it was added, nothing to withdraw")
    assert warned.message.endswith("and these now say another shape than the one it ranks on")
    git(store.root, "checkout", "HEAD", "--", relative)  # the fix, as printed
    assert [f for f in verify(store) if f.rule.id == "KI238"] == []
    # committed (past the hook): HEAD holds it, no checkout restores it; the stored rule's fix
    path.write_text(path.read_text().replace(" · M=1 · ", " · M=104 · "))
    git(store.root, "commit", "-qam", "retitle", "--no-verify")
    [warned] = [f for f in verify(store) if f.rule.id == "KI238"]
    assert "withdraw" in warned.hint and "git checkout HEAD" not in warned.hint


_WORD = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF,
                              blacklist_characters="·/"), min_size=1, max_size=12)


@given(solution=_WORD, other=_WORD, definition=_WORD, stamp=st.integers(-2**63, 2**63))
def test_the_importers_forms_agree_with_their_own_and_no_other(solution, other, definition,
                                                                stamp):
    """Whatever a solution and definition are named, the run the importer writes agrees
    with its Implementation and workload; another solution's Implementation disagrees in
    each field stating it; a title or externalId of another form states nothing."""
    native = {"source": "flashinfer-trace", "benchmark": definition,
              "externalId": f"{solution}_{stamp}.log"}
    metadata = {"title": f"{solution} · M=1 · NVIDIA B200"}
    run = board_of("BenchmarkRun", {"sourceNative": native}, "n", metadata)
    workload = board_of("Workload", {"definition": definition, "sourceNative": {
        "source": "flashinfer-trace"}, "cases": [{"axes": {"M": 1}}]})
    own = board_of("Implementation", {"sourceNative": {
        "source": "flashinfer-trace", "solution": solution, "definition": definition}})
    assert board_disagreements(with_implementation(run, own) or (), workload or ()) == []
    theirs = board_of("Implementation", {"sourceNative": {
        "source": "flashinfer-trace", "solution": other, "definition": definition}})
    said = [key for key, _, _ in board_disagreements(
        with_implementation(run, theirs) or (), workload or ())]
    assert said == ([] if other == solution else ["solution:title", "solution:external-id"])
    hand = board_of("BenchmarkRun", {"sourceNative": {**native, "externalId": solution}},
                    "n", {"title": solution})
    assert [k for k, _ in hand or () if k.startswith("solution")] == []
