"""A policy metric that resolves to no number a run can rank (fresh17 F3, pol04): KI249.

KI206 reads a metric's words only, so ``/sourceNative/metrics`` (an object in every run) and
``/sourceNative/benchmark`` (a string) passed it and ``rank`` left every run "unranked". KI245
refuses such a policy change once runs are stored; a policy committed first, then runs
arriving in a second pull request, passed with KI221's warning on each run. Now a value that
is never a number (an object, an array, a boolean, a word) is refused where it enters:
``add``, ``check``/pre-receive of the runs arriving, a policy change, and ``verify``
(:mod:`kistore.query.never_numbers`). A number written as text (``"0.5"``) stays KI221's
warning, and a metric no run holds stays KI247's (and KI245-KI248's) as before.
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main
from kistore.core.digest import Digest
from kistore.core.layout import POLICY_FILE, object_path
from kistore.store import Store

from ..conftest import add_docs, commit_all, git
from ..prs import Remote
from .test_policy_metric_rule import _error_lines, _rank_by

NEVER = ("which is never a number (no number nor one written as text): `rank` can never "
         "rank the run by it")


def _runs(kit, natives: dict[str, dict]) -> tuple[list[dict], dict[str, str]]:
    """One comparison group, a run per name (1 us, 2 us, ...) stating ``sourceNative``."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs, digests = [protocol, env, workload], {}
    for i, (name, native) in enumerate(natives.items()):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        run = kit.run(protocol, env, impl, workload, latency=1000 * (i + 1), name=name,
                      native=native)
        docs += [impl, run]
        digests[name] = kit.digest(run)
    return docs, digests


# fresh17 F3's runs: the trial count nested under an object, beside the latency
OBJECTS = {"fast": {"metrics": {"latency_ms": 1, "num_trials": {"value": 5}}},
           "slow": {"metrics": {"latency_ms": 50, "num_trials": {"value": 1000}}}}
WORDS = {"fast": {"benchmark": "mybench", "metrics": {"latency_ms": 1}},
         "slow": {"benchmark": "mybench", "metrics": {"latency_ms": 50}}}

# metric, runs, what each run states there (by name), the numbers the message offers
CASES = {
    "object": ("/sourceNative/metrics", OBJECTS, {
        "fast": 'an object {"latency_ms": 1, "num_trials": {"value"...',
        "slow": 'an object {"latency_ms": 50, "num_trials": {"value...'},
        # num_trials/value is a count (KI206): never offered
        "the numbers under it: /sourceNative/metrics/latency_ms"),
    "string": ("/sourceNative/benchmark", WORDS, {
        "fast": 'a string "mybench"', "slow": 'a string "mybench"'},
        "the numbers near it: /sourceNative/metrics/latency_ms"),
}


def _run_error(digest: str, metric: str, stated: str, numbers: str, prefix: str = "") -> str:
    """KI249's line of an arriving run, as ``check`` (or a push, ``prefix`` "remote: ")."""
    found = stated.split(" ", 2)[2]  # "an object {...}": its JSON
    return (f"{prefix}{object_path(Digest.from_str(digest))}:/spec{metric}: error KI249 "
            f"ranked-value-never-a-number: states {stated} at {metric}, the value its family "
            f"'synthetic' is ranked by ({POLICY_FILE}), {NEVER}; {numbers} (expected a "
            f"number, found {found})")


@pytest.mark.parametrize(("value", "never"), [
    ({"v": 1}, True), ([0.5], True), (True, True), (False, True), ("mybench", True),
    ("", True), ("PASSED", True), ("12 ms", True), ("NaN", True),
    ("0.5", False), (" 3e-3 ", False), ("-2", False), (".5", False), ("7.", False),
    (0.5, False), (3, False), (None, False)])
def test_what_is_never_a_number(value, never):
    from kistore.query.never_numbers import never_a_number

    assert never_a_number(value) is never


@pytest.mark.parametrize("case", sorted(CASES))
def test_runs_after_the_policy_are_refused_by_check(store, runner, kit, case):
    metric, natives, stated, numbers = CASES[case]
    docs, digests = _runs(kit, natives)
    add_docs(store, docs[:3], commit=False)  # the family's protocol (KI250), no run
    _rank_by(store.root, metric)
    base = commit_all(store.root, "policy: the family ranks " + metric)
    first = runner.invoke(main, ["--store", str(store.root), "check", "HEAD~1..HEAD"])
    assert first.exit_code == 0, first.output  # no run of the family yet: nothing to judge
    add_docs(store, docs[3:], commit=False)  # past `add`, which refuses them too (below)
    commit_all(store.root, "runs")
    done = runner.invoke(main, ["--store", str(store.root), "check", f"{base}..HEAD"])
    # on BASE fb53db7b: exit 0, two KI221 warnings
    assert (done.exit_code, _error_lines(done.output)) == (1, sorted(
        _run_error(digests[name], metric, stated[name], numbers) for name in natives)), \
        done.output
    assert done.output.splitlines()[-1] == \
        f"FAILED: {base}..HEAD: 2 errors, 0 warnings, 0 info"


@pytest.mark.parametrize("case", sorted(CASES))
def test_two_pull_requests_the_policy_then_the_runs(published, tmp_path, kit, case):
    """fresh17 F3's sequence: the policy first (no run of its family: nothing to judge, it
    passes), then the runs; the second pull request is the one refused."""
    metric, natives, stated, numbers = CASES[case]
    remote = Remote(published, tmp_path)
    docs, digests = _runs(kit, natives)

    def policy(clone) -> None:  # with the family's protocol (KI250), no run
        add_docs(Store(clone), docs[:3], commit=False)
        _rank_by(clone, metric)

    first = remote.pr("policy", policy)
    assert first.accepted, first.output
    refused = remote.pr("runs", lambda clone: add_docs(Store(clone), docs[3:], commit=False))
    # on BASE fb53db7b: accepted, "2 warnings" (KI221)
    assert (refused.accepted, _error_lines(refused.output)) == (False, sorted(
        _run_error(digests[name], metric, stated[name], numbers, "remote: ")
        for name in natives)), refused.output


def _policy_error(metric: str, count: int, digest: str, name: str, stated: str,
                  numbers: str, verb: str) -> str:
    """KI249's line of a family, on the policy (a policy change's)."""
    runs = f"{count} stored runs of it state" if count > 1 else "a stored run of it states"
    return (f"{POLICY_FILE}:/families/synthetic/metric: error KI249 ranked-value-never-a-"
            f"number: family 'synthetic' {verb} {metric}, where {runs} a value that is never "
            f"a number (e.g. BenchmarkRun/{name} ({digest}) states {stated} there): `rank` can "
            f"never rank them by it; {numbers} (expected a pointer to a number, found "
            f"{stated})")


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_runs_then_the_policy(store, runner, kit, case):
    """The other order: KI245 refuses the policy change (no group holds a number there) and
    says what the runs hold; KI249 does not say it again."""
    metric, natives, _, _ = CASES[case]
    add_docs(store, _runs(kit, natives)[0])
    base = git(store.root, "rev-parse", "HEAD").strip()
    _rank_by(store.root, metric)
    commit_all(store.root, "policy")
    done = runner.invoke(main, ["--store", str(store.root), "check", f"{base}..HEAD"])
    assert (done.exit_code, [e.split(" error ")[1][:6] for e in _error_lines(done.output)]
            ) == (1, ["KI245 "]), done.output


def test_a_policy_change_ranking_a_stored_object_beside_numbers(store, runner, kit):
    """A group holding numbers there keeps KI245 quiet (KI247 warns of the run left
    unranked); a stored run holding an object there is KI249's, on the policy."""
    docs, named = _runs(kit, {"number": {"metrics": {"score": 0.7}},
                              "nested": {"metrics": {"score": {"mean": 0.6, "std": 0.1}}},
                              "other": {"metrics": {"score": 0.9}}})
    add_docs(store, docs)
    base = git(store.root, "rev-parse", "HEAD").strip()
    _rank_by(store.root, "/sourceNative/metrics/score")
    commit_all(store.root, "policy")
    done = runner.invoke(main, ["--store", str(store.root), "check", f"{base}..HEAD"])
    # on BASE fb53db7b: exit 0 (KI247's warning of the run left unranked)
    assert (done.exit_code, _error_lines(done.output)) == (1, [_policy_error(
        "/sourceNative/metrics/score", 1, named["nested"], "nested",
        'an object {"mean": 0.6, "std": 0.1}',
        "the numbers under it: /sourceNative/metrics/score/mean", "would rank")]), done.output


@pytest.mark.parametrize("case", sorted(CASES))
def test_verify_says_it(store, runner, kit, case):
    """A policy and its runs committed past the gate (or before KI249): ``verify``."""
    metric, natives, stated, numbers = CASES[case]
    _rank_by(store.root, metric)
    docs, digests = _runs(kit, natives)
    add_docs(store, docs)
    first = min(digests, key=lambda n: digests[n])
    done = runner.invoke(main, ["--store", str(store.root), "verify", "--json"])
    said = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI249"]
    # on BASE fb53db7b: none (KI248's warning alone)
    assert (done.exit_code, [(f["severity"], f["file"], f["pointer"], f["message"])
                             for f in said]) == (1, [(
        "error", POLICY_FILE, "/families/synthetic/metric",
        f"family 'synthetic' ranks {metric}, where 2 stored runs of it state a value that "
        f"is never a number (e.g. BenchmarkRun/{first} ({digests[first]}) states "
        f"{stated[first]} there): `rank` can never rank them by it; {numbers}")]), done.output
    assert said[0]["extra"] == {"family": "synthetic", "metric": metric,
                                "runs": sorted(digests.values()),
                                "numbers": ["/sourceNative/metrics/latency_ms"]}


def test_add_refuses_it(store, runner, kit, tmp_path):
    metric, natives, stated, numbers = CASES["object"]
    _rank_by(store.root, metric)
    commit_all(store.root, "policy")
    docs, digests = _runs(kit, {"fast": natives["fast"]})
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    done = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    # on BASE fb53db7b: exit 0, "warning: ... (KI221: added all the same; ...)"
    assert (done.exit_code, done.stdout) == (1, ""), done.output
    assert (f"error: {path}:5:1:/spec{metric}: states {stated['fast']} at {metric}, the value "
            f"its family 'synthetic' is ranked by ({POLICY_FILE}), {NEVER}; {numbers}; rank "
            "the family by a pointer to a number its runs hold (store/policy/ranking.json's "
            "metric), or state a number there in a new run (objects are never edited): as it "
            "is, `rank` can never rank the run (KI249: nothing added; `check` and pre-receive "
            "refuse it too)") in done.stderr.splitlines(), done.stderr
    assert not (store.root / object_path(Digest.from_str(digests["fast"]))).exists()


def test_a_number_written_as_text_and_no_value_stay_as_they_were(store, runner, kit):
    """KI221 warns of ``"0.5"`` (a number misstated); a run holding nothing there is KI247's
    business at a policy change, none here: neither is KI249."""
    _rank_by(store.root, "/sourceNative/metrics/score")
    base = commit_all(store.root, "policy")
    docs, digests = _runs(kit, {"text": {"metrics": {"score": "0.5"}},
                                "none": {"metrics": {"latency_ms": 2}},
                                "number": {"metrics": {"score": 0.7}}})
    add_docs(store, docs, commit=False)
    commit_all(store.root, "runs")
    done = runner.invoke(main, ["--store", str(store.root), "check", f"{base}..HEAD"])
    assert done.exit_code == 0, done.output
    assert [line.split(": warning ")[1][:5] for line in done.output.splitlines()
            if ": warning " in line] == ["KI221"], done.output
    assert "KI249" not in done.output


def test_one_run_holding_an_object_where_its_group_holds_numbers(store, runner, kit):
    _rank_by(store.root, "/sourceNative/metrics/score")
    base = commit_all(store.root, "policy")
    docs, digests = _runs(kit, {"number": {"metrics": {"score": 0.7}},
                                "nested": {"metrics": {"score": {"mean": 0.6, "std": 0.1}}}})
    add_docs(store, docs, commit=False)
    commit_all(store.root, "runs")
    done = runner.invoke(main, ["--store", str(store.root), "check", f"{base}..HEAD"])
    assert (done.exit_code, _error_lines(done.output)) == (1, [_run_error(
        digests["nested"], "/sourceNative/metrics/score",
        'an object {"mean": 0.6, "std": 0.1}',
        "the numbers under it: /sourceNative/metrics/score/mean")]), done.output


@pytest.mark.parametrize("case", sorted(CASES))
def test_rank_and_show_say_it(store, runner, kit, case):
    """``rank`` lists such runs unranked, as before, and says why on stderr with the numbers
    the policy may rank by; ``show`` says it of its run."""
    metric, natives, stated, numbers = CASES[case]
    _rank_by(store.root, metric)
    docs, digests = _runs(kit, natives)
    add_docs(store, docs)
    first = min(digests, key=lambda n: digests[n])
    ranked = runner.invoke(main, ["--store", str(store.root), "rank", digests["fast"]])
    group = ranked.stdout.split()[2].rstrip(":")
    # on BASE fb53db7b: nothing on stderr
    assert (ranked.exit_code, ranked.stderr) == (0, (
        f"warning: 2 runs of comparison group {group} state a value never a number at "
        f"{metric}, the value their family 'synthetic' is ranked by ({POLICY_FILE}) (e.g. "
        f"BenchmarkRun/{first} ({digests[first]}) states {stated[first]} there): `rank` can "
        f"never rank them by it; {numbers} (KI249: `check`, pre-receive and `verify` refuse "
        "it)\n")), ranked.output
    shown = runner.invoke(main, ["--store", str(store.root), "show", digests["slow"]])
    assert (shown.exit_code, shown.stderr) == (0, (
        f"warning: BenchmarkRun/slow ({digests['slow']}) states {stated['slow']} at {metric}, "
        f"the value its family 'synthetic' is ranked by ({POLICY_FILE}), {NEVER}; {numbers} "
        "(KI249: `check`, pre-receive and `verify` refuse it)\n")), shown.output
