"""KI232 holds against spelling, and a withdrawn claimant blocks no run (review r90 F1, F6, F9).

F1: a copy of submission 25504 with ``sol_score`` 0.9 passed add, the gate and verify by
leaving out ``sourceNative.benchmark``, writing its id ``025504``, ``#25504`` or in another
case, or its source ``sol-exec-bench``; or by stating no id under a record's name. Each is
now refused by ``add``, ``check BASE..HEAD`` and the server's pre-receive.
F6, F9: a claimant that came first (a squatter, or a committed run being corrected) made
the record's own run impossible to add, even once a maintainer withdrew it; a withdrawn
run now claims nothing, and KI232's fix says how.
"""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import DATA, NO_DATA, add_docs, add_past_a_refusal, git
from ..prs import Remote

BOARD = "003_lm_head_projection_with_logit_slicing"
REAL = "sol-kernel-3-submission-25504"


def _native(ident="25504", score=0.532958, source="sol-execbench", benchmark=BOARD):
    native = {"source": source, "metrics": {"sol_score": score} if score is not None else {}}
    if benchmark is not None:
        native["benchmark"] = benchmark
    if ident is not None:
        native["externalId"] = ident
    return native


# (name, sourceNative) of each way around KI232 the reviewer found: all claim 25504
BYPASSES = {
    "no benchmark": ("sol-submission-25504", _native(score=0.9, benchmark=None)),
    "another benchmark": ("sol-submission-25504",
                          _native(score=0.9, benchmark="003_LM_head_projection")),
    "leading zero": ("sol-submission-25504", _native("025504", 0.9)),
    "hash": ("sol-local-25504", _native("#25504", 0.9)),
    "source spelled otherwise": ("sol-submission-25504",
                                 _native(score=0.9, source="sol-exec-bench")),
}
LOCAL = "10-concrete-view-initial/trial-1/15ec2850-0959-565b-9b74-5c189e12d7e1"
LOCAL_NAME = "sol-local-10-concrete-view-initial-trial-1-15ec2850-0959-565b-9b74-5c189e12d7e1"
LOCAL_BYPASSES = {
    "upper case": LOCAL.upper(),
    "dashes for slashes": LOCAL.replace("/", "-"),
}


def _hex(doc):
    return Manifest.from_document(doc).digest.hex


@pytest.fixture
def board(store, kit):
    """A committed group holding the record's run and a local evaluator run."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload(BOARD)
    impl = kit.implementation("p", name="i")
    real = kit.run(protocol, env, impl, workload, latency=10, name=REAL, native=_native())
    local = kit.run(protocol, env, impl, workload, latency=10400, name=LOCAL_NAME,
                    native=_native(LOCAL, None, benchmark=None))
    add_docs(store, [protocol, env, workload, impl, real, local])
    return {"protocol": protocol, "env": env, "workload": workload, "impl": impl,
            "real": real, "local": local}


def _copy(kit, board, name, native, latency=10):
    return kit.run(board["protocol"], board["env"], board["impl"], board["workload"],
                   latency=latency, name=name, native=native)


def _copies(kit, board):
    copies = {what: _copy(kit, board, name, native) for what, (name, native) in BYPASSES.items()}
    copies.update({what: _copy(kit, board, LOCAL_NAME.replace("sol-local-", "sol-submission-"),
                               _native(ident, None, benchmark=None), latency=5000)
                   for what, ident in LOCAL_BYPASSES.items()})
    return copies


@pytest.mark.parametrize("what", [*BYPASSES, *LOCAL_BYPASSES])
def test_each_spelling_of_a_claim_is_refused_by_add_and_the_gate(store, kit, board, what,
                                                                 monkeypatch):
    copy = _copies(kit, board)[what]
    claimed = board["local"] if what in LOCAL_BYPASSES else board["real"]
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [copy])
    assert "KI232" in str(refused.value) and f"sha256:{_hex(claimed)}" in str(refused.value)
    # a copy stating another board than its workload's is refused by KI238 as well
    assert ("KI238" in str(refused.value)) == (what == "another benchmark")
    monkeypatch.setattr("kistore.store.boards.boards_admitted", lambda *a: [])
    base = add_past_a_refusal(store, monkeypatch, [], [copy],
                              rule="kistore.store.claims.claims_admitted",
                              finds_nothing=lambda *a: [])
    head = git(store.root, "rev-parse", "HEAD").strip()
    found = [f for f in check_range(store, f"{base}..{head}") if f.rule.id == "KI232"]
    assert [(f.severity, f.file, f.extra["claimedBy"]) for f in found] == [
        ("error", layout.object_path(Digest(_hex(copy))), [f"sha256:{_hex(claimed)}"])]


@pytest.mark.parametrize("name", ["sol-local-25504", "sol-kernel-3-submission-25504x"])
def test_a_record_name_stating_no_id_is_refused(store, kit, board, name, monkeypatch):
    copy = _copy(kit, board, name, _native(None, 0.9))
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [copy])
    assert str(refused.value).startswith(f"/metadata/name: sol-execbench run {name!r} has "
                                         "the name of a record")
    assert "states no externalId" in str(refused.value)
    base = add_past_a_refusal(store, monkeypatch, [], [copy],
                              rule="kistore.store.run_facts.external_id_disagreement",
                              finds_nothing=lambda *a: None)
    found = [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == "KI209"]
    assert [f.severity for f in found] == ["error"]


def test_pre_receive_refuses_each_spelling(store, kit, board, tmp_path):
    remote = Remote(store.root, tmp_path)
    main_before = remote.main()
    for what, copy in _copies(kit, board).items():
        def change(clone, copy=copy):
            with pytest.MonkeyPatch.context() as patch:  # committed past add's KI232
                patch.setattr("kistore.store.claims.claims_admitted", lambda *a: [])
                patch.setattr("kistore.store.boards.boards_admitted", lambda *a: [])
                add_docs(Store(clone), [copy], commit=False)
        push = remote.pr(f"copy: {what}", change)
        assert not push.accepted and "KI232" in push.output, (what, push.output)
    assert remote.main() == main_before


def _cli(store, *args, code=0):
    result = CliRunner().invoke(main, ["--store", str(store.root), *args])
    assert result.exit_code == code, result.output
    return result.output


def _maintainer(store, tmp_path):
    key = tmp_path / "m"
    _cli(store, "key", "generate", str(key))
    _cli(store, "trust", "add", f"{key}.pub", "--role", "maintainer", "--valid-from",
         "2026-01-01")
    git(store.root, "add", "store/trust")
    git(store.root, "commit", "-q", "--no-verify", "-m", "trust a maintainer")
    return key


def _withdraw(store, ref, key):
    _cli(store, "attest", ref, "--type", "withdrawal", "-m", "not the source's",
         "--key", str(key), "--file")
    git(store.root, "add", "store/attestations")
    git(store.root, "commit", "-q", "--no-verify", "-m", "withdraw")


def test_a_withdrawn_squatter_lets_the_record_in(store, kit, tmp_path):
    """F6: the squatter lands first (green gate), the record's run is refused; once a
    maintainer withdraws the squatter, the record's run is added, ranked, and verified."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload(BOARD)
    impl = kit.implementation("p", name="i")
    add_docs(store, [protocol, env, workload, impl])
    key = _maintainer(store, tmp_path)
    base = git(store.root, "rev-parse", "HEAD").strip()
    squat = kit.run(protocol, env, impl, workload, latency=10, name="sol-submission-25504",
                    native=_native(score=0.9))
    real = kit.run(protocol, env, impl, workload, latency=10, name=REAL, native=_native())
    for doc, file in ((squat, "squat.json"), (real, "real.json")):
        (tmp_path / file).write_text(json.dumps(doc))
    _cli(store, "add", "--commit", str(tmp_path / "squat.json"))
    assert [f for f in check_range(store, f"{base}..HEAD") if f.severity == "error"] == []
    refused = _cli(store, "add", "--commit", str(tmp_path / "real.json"), code=1)
    assert "KI232" in refused and (f"kistore attest sha256:{_hex(squat)} --type withdrawal "
                                   "-m REASON --key KEY --file") in refused
    assert "do not add a second run" not in refused
    _withdraw(store, "BenchmarkRun/sol-submission-25504", key)
    before = git(store.root, "rev-parse", "HEAD").strip()
    _cli(store, "add", "--commit", str(tmp_path / "real.json"))
    # the gate sees the committed withdrawal at the head it judges
    assert [f for f in check_range(store, f"{before}..HEAD") if f.rule.id == "KI232"] == []
    assert [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == "KI232"] == []
    rows = json.loads(_cli(store, "rank", f"BenchmarkRun/{REAL}", "--all", "--json"))
    assert [(r["name"], r["rank"], r["withdrawn"]) for r in rows] == [
        (REAL, 1, False), ("sol-submission-25504", None, True)]
    assert [f for f in verify(store) if f.rule.id == "KI232"] == []  # withdrawn: nothing


def test_the_gate_still_refuses_a_squatter_not_withdrawn(store, kit, monkeypatch):
    """The withdrawal is what lets a second claimant in: without it, the pair is refused."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload(BOARD)
    impl = kit.implementation("p", name="i")
    squat = kit.run(protocol, env, impl, workload, latency=10, name="sol-submission-25504",
                    native=_native(score=0.9))
    real = kit.run(protocol, env, impl, workload, latency=10, name=REAL, native=_native())
    base = add_past_a_refusal(store, monkeypatch, [protocol, env, workload, impl, squat],
                              [real], rule="kistore.store.claims.claims_admitted",
                              finds_nothing=lambda *a: [])
    found = [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == "KI232"]
    assert [f.extra["claimedBy"] for f in found] == [[f"sha256:{_hex(squat)}"]]
    assert "--type withdrawal" in found[0].rule.hint and "merge" in found[0].rule.hint


def test_import_after_the_squatter_is_withdrawn(store, kit, tmp_path):
    """F6 with the real data: a board imported without 25504, a squatter claiming it, the
    full import refused, the squatter withdrawn, the full import accepted."""
    if not DATA.is_dir():
        pytest.skip(NO_DATA)
    old = tmp_path / "sol-old"
    shutil.copytree(DATA / "sol-execbench", old)
    snapshot = old / "leaderboard" / "kernel-3" / "leaderboard_snapshot.json"
    doc = json.loads(snapshot.read_text())
    rows = doc["response"]["data"]["rankings"]
    doc["response"]["data"]["rankings"] = [x for x in rows if x.get("submission_id") != 25504]
    snapshot.write_text(json.dumps(doc))
    _cli(store, "import", "--commit", "sol-execbench", str(old))
    key = _maintainer(store, tmp_path)
    other = next(x["submission_id"] for x in rows if x.get("submission_id") not in (None, 25504))
    model = json.loads(_cli(store, "cat", "--manifest",
                            f"BenchmarkRun/sol-kernel-3-submission-{other}"))
    model["metadata"] = {"name": "sol-submission-25504"}
    model["spec"]["sourceNative"].update(externalId="25504", metrics={"sol_score": 0.9})
    (tmp_path / "squat.json").write_text(json.dumps(model))
    _cli(store, "add", "--commit", str(tmp_path / "squat.json"))
    refused = _cli(store, "import", "--commit", "sol-execbench", str(DATA / "sol-execbench"),
                   code=1)
    assert "KI232" in refused and "--type withdrawal" in refused
    assert "do not add a second run" not in refused
    _withdraw(store, "BenchmarkRun/sol-submission-25504", key)
    _cli(store, "import", "--commit", "sol-execbench", str(DATA / "sol-execbench"))
    rows = json.loads(_cli(store, "rank", f"BenchmarkRun/{REAL}", "--all", "--json"))
    real, = [r for r in rows if r["name"] == REAL]
    squat, = [r for r in rows if r["name"] == "sol-submission-25504"]
    assert real["rank"] is not None and (squat["rank"], squat["withdrawn"]) == (None, True)


def test_an_environment_completing_a_copy_s_group_is_refused(store, kit, board, monkeypatch):
    """F1: a copy added dangling (its environment, another of the same GPU, not stored),
    then the environment: that add writes the copy's group file, the record's run's group
    (a key names the GPU, not the environment's digest), so it judges the copy's claim."""
    env2 = kit.environment(driver="560.00")
    copy = kit.run(board["protocol"], env2, board["impl"], board["workload"], latency=10,
                   name="sol-submission-25504", native=_native(score=0.9))
    add_docs(store, [copy], allow_dangling=True)  # no group yet: nothing to compare
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [env2])
    text = str(refused.value)
    assert text.startswith(f"{layout.object_path(Digest(_hex(copy)))}:/spec/sourceNative/"
                           "externalId: claims to be sol-execbench record '25504'")
    assert "completes" in text and f"sha256:{_hex(board['real'])}" in text and "KI232" in text
    assert not (store.root / layout.object_path(Digest(_hex(env2)))).exists()
    # committed past add (the rule not asked): the gate refuses the range all the same
    base = add_past_a_refusal(store, monkeypatch, [], [env2],
                              rule="kistore.store.claims.claims_admitted",
                              finds_nothing=lambda *a: [])
    found = [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == "KI232"]
    assert [f.file for f in found] == [layout.object_path(Digest(_hex(copy)))]


def test_rank_and_show_mark_a_stored_pair(store, kit, board, monkeypatch, tmp_path):
    """F8: a pair history holds (two pull requests each green alone, merged) is marked in
    rank and show, text and JSON; once one is withdrawn, no more."""
    copy = _copy(kit, board, "sol-submission-25504", _native(score=0.9))
    add_past_a_refusal(store, monkeypatch, [], [copy],
                       rule="kistore.store.claims.claims_admitted", finds_nothing=lambda *a: [])
    real, fake = f"sha256:{_hex(board['real'])}", f"sha256:{_hex(copy)}"
    text = _cli(store, "rank", f"BenchmarkRun/{REAL}")
    marks = [line for line in text.splitlines() if line.startswith("KI232")]
    pair = sorted([(real, REAL), (fake, "sol-submission-25504")])
    assert marks == [f"KI232: BenchmarkRun/{pair[0][1]} ({pair[0][0][:19]}), BenchmarkRun/"
                     f"{pair[1][1]} ({pair[1][0][:19]}) claim one source record: one is not "
                     "the source's; a trusted maintainer withdraws it (`kistore attest REF "
                     "--type withdrawal -m REASON --key KEY --file`)"]
    rows = json.loads(_cli(store, "rank", f"BenchmarkRun/{REAL}", "--json"))
    assert {r["name"]: r.get("claimedWith") for r in rows} == {
        REAL: [fake], "sol-submission-25504": [real], LOCAL_NAME: None}
    page = _cli(store, "show", f"BenchmarkRun/{REAL}")
    assert (f"  KI232: BenchmarkRun/sol-submission-25504 ({fake[:19]}) claims this run's "
            "source record too") in page
    shown = json.loads(_cli(store, "show", f"BenchmarkRun/{REAL}", "--json"))
    assert shown["claimedWith"] == [{"digest": fake, "name": "sol-submission-25504"}]
    local = json.loads(_cli(store, "show", f"BenchmarkRun/{LOCAL_NAME}", "--json"))
    assert local["claimedWith"] == []
    _withdraw(store, "BenchmarkRun/sol-submission-25504", _maintainer(store, tmp_path))
    assert "KI232" not in _cli(store, "rank", f"BenchmarkRun/{REAL}")
    assert "KI232" not in _cli(store, "show", f"BenchmarkRun/{REAL}")
    assert json.loads(_cli(store, "show", f"BenchmarkRun/{REAL}", "--json"))["claimedWith"] == []
