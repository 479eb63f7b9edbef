"""KI245 and KI415's one line: a ranking-policy change whose metric no run holds (fresh95 F1).

A typo in ``store/policy/ranking.json`` (``/sourceNative/metrics/latency`` where the runs
state ``latency_ms``) took every group of the family out of the ranking and the gate said
"ok" with one KI415 info line a group (500 of them). Now it is an error naming the family,
the pointer and the pointers the runs hold, and KI415 is one line however many groups
change order (``--json`` lists each).
"""

from __future__ import annotations

import json

import pytest

from kistore.query.unheld_metric import (
    _as_number,
    closest_pointer,
    held_otherwise,
    held_pointers,
    holdings,
)

from ..conftest import add_docs, git
from .test_rank_outlier_group import Board, _cli

POLICY = "store/policy/ranking.json"


@pytest.fixture
def board(store, kit, tmp_path):
    return Board(store, kit, tmp_path)


OTHER = {"device": "cuda:0", "ok": True, "deep": {"a": 1}, "list": [1, 2], "none": None}
"""What the second group's runs state beside their numbers, as real sources do (KernelBench's
``device``, SOL-ExecBench's ``has_nan``): no number ``rank`` ranks (fresh96 F1)."""


def _second_group(board: Board, kit) -> None:
    """A second group of the family whose runs state a source-native latency in ms."""
    protocol, env, _ = board.parts
    work = kit.workload("typo")
    docs = [work]
    for name, ns, ms in (("t-1", 3_680_000, 3.68), ("t-2", 3_810_000, 3.81)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=ns, name=name,
                               native={"metrics": {"latency_ms": ms, "mean": ms, **OTHER}})]
    add_docs(board.store, docs)


def _policy(board: Board, family: dict) -> str:
    base = board.head()
    path = board.store.root / POLICY
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = family
    path.write_text(json.dumps(policy, indent=2) + "\n")
    git(board.store.root, "commit", "-qam", "policy change")
    return base


def _one_line(checked: str, said: str) -> str:
    """Return the one line of ``checked`` on the family's metric saying ``said`` first.

    ``said``: ``SEVERITY RULE NAME: MESSAGE...``, the line's words after its place.
    """
    severity, rule = said.split()[:2]
    [line] = [x for x in checked.splitlines() if rule in x and severity in x]
    assert line.startswith(f"{POLICY}:/families/synthetic/metric: {said}"), line
    return line


def _refused(board: Board, kit, metric: str) -> tuple[str, str]:
    """Rank the family by ``metric`` (ms, ascending) beside a second group; BASE, the check."""
    _second_group(board, kit)
    base = _policy(board, {"comparison": "source-native", "metric": metric,
                           "order": "ascending", "unit": "ms"})
    return base, _cli(board.store, "check", f"{base}..HEAD", code=1).output


def test_a_metric_no_run_holds_is_an_error_naming_what_they_hold(board, kit):
    base, checked = _refused(board, kit, "/sourceNative/metrics/latency")
    line = _one_line(checked, "error KI245 policy-metric-held-by-no-run: family synthetic "
                     "ranks /sourceNative/metrics/latency, which no run of 2 of its comparison "
                     "groups holds: ranked before this change, they would rank none (e.g. "
                     "group sha256:")
    assert line.endswith(
        "`rank` says \"no value at /sourceNative/metrics/latency\" for every run); did you "
        "mean /sourceNative/metrics/latency_ms? Their runs hold /sourceNative/metrics/deep/a, "
        "/sourceNative/metrics/latency_ms, /sourceNative/metrics/mean (expected a pointer "
        "the family's runs hold, found /sourceNative/metrics/latency)"), line
    assert "1 error, 0 warnings, 1 info" in checked, checked
    # KI415 says both groups in one line; --json keeps each group's order
    [ki415] = [x for x in checked.splitlines() if "KI415" in x]
    assert "2 comparison groups change order (families: synthetic)" in ki415
    data = json.loads(_cli(board.store, "check", f"{base}..HEAD", "--json", code=1).stdout)
    [found] = [f for f in data["findings"] if f["rule"] == "KI415"]
    # each run that ranked before is listed as `rank` shows it (break95 M2)
    assert [g["after"].split(", - ")[0] for g in found["extra"]["groups"]] == [
        "nothing ranked"] * 2
    assert found["extra"]["groups"][0]["after"].endswith(
        " (no value at /sourceNative/metrics/latency)")
    assert found["extra"]["groups"][0]["before"].startswith("1 ")
    [error] = [f for f in data["findings"] if f["rule"] == "KI245"]
    assert error["extra"]["held"] == ["/sourceNative/metrics/deep/a",
                                      "/sourceNative/metrics/latency_ms",
                                      "/sourceNative/metrics/mean"]
    assert error["extra"]["heldAs"] == []  # nothing there at all
    assert len(error["extra"]["groups"]) == 2


def test_a_trailing_slash_gets_its_did_you_mean(board, kit):
    # break96 L2: `/sourceNative/metrics/latency_ms/` (the key "" under latency_ms) was
    # refused with no "did you mean"; `meen` and `/sourceNatve/...` had one
    _, checked = _refused(board, kit, "/sourceNative/metrics/latency_ms/")
    line = _one_line(checked, "error KI245 policy-metric-held-by-no-run: family synthetic "
                     "ranks /sourceNative/metrics/latency_ms/, which no run of 2 of its "
                     "comparison groups holds")
    assert "; did you mean /sourceNative/metrics/latency_ms? Their runs hold " in line, line


def test_the_pre_commit_hook_refuses_it(board, kit):
    """pre-commit checks HEAD..STAGED, the same gate: the typo is not committed."""
    _second_group(board, kit)
    path = board.store.root / POLICY
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = {"comparison": "source-native",
                                       "metric": "/sourceNative/metrics/latency",
                                       "order": "ascending", "unit": "ms"}
    path.write_text(json.dumps(policy, indent=2) + "\n")
    git(board.store.root, "add", POLICY)
    staged = git(board.store.root, "commit-tree", git(board.store.root, "write-tree").strip(),
                 "-p", "HEAD", "-m", "staged").strip()
    checked = _cli(board.store, "check", f"HEAD..{staged}", code=1).output
    assert "error KI245 policy-metric-held-by-no-run" in checked


def test_a_metric_the_runs_hold_is_no_error(board, kit):
    """Ranking the family by a metric only one group holds loses the other group: said; by a
    metric every group holds (the measured mean, named as the source's): not said."""
    _second_group(board, kit)
    base = _policy(board, {"comparison": "source-native", "metric": "/timing/latencyNs/mean",
                           "order": "ascending", "unit": "ns"})
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    assert "KI245" not in checked and "0 errors" in checked, checked


def test_a_metric_other_groups_hold_is_a_warning_not_an_error(board, kit):
    """No typo: the second group ranks by the source's mean, the board's first group states
    none and loses its ranking. A reviewer passes it when meant (KI246), exit 0."""
    _second_group(board, kit)
    base = _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/mean",
                           "order": "ascending", "unit": "ms"})
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    assert "KI245" not in checked and "0 errors" in checked, checked
    line = _one_line(checked, "warning KI246 policy-metric-unheld-by-some-groups: family "
                     "synthetic ranks /sourceNative/metrics/mean, which no run of its "
                     "comparison group holds (the runs of its other groups hold it): ranked "
                     "before this change, it would rank none (e.g. group ")
    assert "did you mean" not in line


def test_a_metric_fewer_groups_hold_than_it_unranks_stays_an_error(board, kit):
    """break96 H4: one planted run holding a number where every other run holds none turned
    KI245's error into KI246's warning, and the family left the ranking but for that run's
    group. KI246 is for a change most of the touched groups keep ranking by; here one group
    ranks by the metric and two lose their ranking: an error, saying how few hold it."""
    _second_group(board, kit)
    protocol, env, _ = board.parts
    work = kit.workload("plain")
    impl = kit.implementation("proj-plain", name="impl-plain")
    add_docs(board.store, [work, impl, kit.run(protocol, env, impl, work, latency=3_900_000,
                                               name="plain")])
    base = _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/mean",
                           "order": "ascending", "unit": "ms"})
    checked = _cli(board.store, "check", f"{base}..HEAD", code=1).output
    assert "KI246" not in checked, checked
    _one_line(checked, "error KI245 policy-metric-held-by-no-run: family synthetic ranks "
              "/sourceNative/metrics/mean, which no run of 2 of its comparison groups holds "
              "(only 1 other group of it holds it, fewer than it unranks): ranked before this "
              "change, they would rank none (e.g. group ")


def _fix(checked: str, rule: str = "KI245") -> str:
    [line] = [x for x in checked.splitlines() if x.startswith(f"fix {rule} (1 finding): ")]
    return line.split(": ", 1)[1]


def test_a_typo_s_fix_names_the_pointer_meant_and_running_it_passes(board, kit):
    """break97 L6: KI245's fix said "the message lists them: a typo?" in every case. Of a
    pointer no run holds, it names the pointer meant; ranking by it, as printed, passes."""
    base, checked = _refused(board, kit, "/sourceNative/metrics/latency")
    assert _fix(checked) == (
        "/sourceNative/metrics/latency is held by no run: a typo? rank the family by "
        "/sourceNative/metrics/latency_ms, which its runs hold as a number, or leave the "
        "family out of store/policy/ranking.json; `kistore rank` ranks none of its runs")
    _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/latency_ms",
                    "order": "ascending", "unit": "ms"})
    assert "KI245" not in _cli(board.store, "check", f"{base}..HEAD").output


def test_a_pointer_held_as_strings_is_no_typo_and_its_fix_says_so(board, kit):
    """break97 L6: the pointer held, as strings, by every run: the fix said "(the message
    lists them: a typo?)", where the message listed none. Now: held as strings, no typo;
    state it as a number, or rank by a pointer held as one (named); that, run, passes."""
    protocol, env, work = board.parts
    docs = []
    for name, value in (("s-1", "3.1"), ("s-2", "3.2")):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=3_100_000, name=name,
                               native={"metrics": {"score": value, "score_ms": 3.1}})]
    add_docs(board.store, docs)
    base = _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/score",
                           "order": "ascending", "unit": "ms"})
    checked = _cli(board.store, "check", f"{base}..HEAD", code=1).output
    fix = _fix(checked)
    assert fix == (
        "/sourceNative/metrics/score is held, as strings, not as numbers (no typo): state it "
        "as a JSON number (0.5, not \"0.5\"; objects are never edited: in new runs), or rank "
        "the family by /sourceNative/metrics/score_ms, which its runs hold as a number; "
        "`kistore rank` ranks none of its runs until then"), fix
    assert "typo?" not in checked, checked
    _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/score_ms",
                    "order": "ascending", "unit": "ms"})
    assert "KI245" not in _cli(board.store, "check", f"{base}..HEAD").output


def test_held_pointers_lists_numbers_under_the_deepest_part_held():
    specs = [{"sourceNative": {"metrics": {"latency_ms": 1.0, "ok": True, "name": "x"}}},
             {"sourceNative": {"metrics": {"sol_score": 0.3, "deep": {"a/b": 2}}}}]
    assert held_pointers(specs, "/sourceNative/metrics/latency") == [
        "/sourceNative/metrics/deep/a~1b", "/sourceNative/metrics/latency_ms",
        "/sourceNative/metrics/sol_score"]
    assert held_pointers(specs, "/sourceNative/other/x") == [
        "/sourceNative/metrics/deep/a~1b", "/sourceNative/metrics/latency_ms",
        "/sourceNative/metrics/sol_score"]
    assert held_pointers([{"a": "b"}], "/x/y") == []
    # fresh16 F4: a spread or a count the policy may not rank by is offered by no message
    kernelbench = [{"sourceNative": {"metrics": {"max": 2.0, "mean": 1.5, "min": 1.0,
                                                 "num_trials": 100, "std": 0.1}},
                    "timing": {"trials": 100, "latencyNs": {"mean": 1.5e6, "std": 1e5}}}]
    assert held_pointers(kernelbench, "/sourceNative/metrics/latency") == [
        "/sourceNative/metrics/max", "/sourceNative/metrics/mean", "/sourceNative/metrics/min"]
    assert held_pointers(kernelbench, "/timing/latencyNs/median") == ["/timing/latencyNs/mean"]


@pytest.mark.parametrize(("token", "kinds", "shown"), [
    ("device", "strings", '"cuda:0"'), ("ok", "booleans", "true"),
    ("deep", "objects", '{"a": 1}'), ("list", "arrays", "[1, 2]")])
def test_a_metric_every_run_holds_as_no_number_is_an_error_too(board, kit, token, kinds,
                                                              shown):
    """fresh96 F1: KI245 counted any value as held, so a pointer every run states as a
    string (KernelBench's ``/sourceNative/metrics/hardware``), a boolean (SOL-ExecBench's
    ``has_nan``) or an object unranked the whole family with a green gate. The board's
    group holds nothing there, the second group the value: each said with its count
    (last96: "they hold strings there" where 41 of 42 groups held nothing)."""
    _second_group(board, kit)
    metric = f"/sourceNative/metrics/{token}"
    base = _policy(board, {"comparison": "source-native", "metric": metric,
                           "order": "ascending", "unit": "ms"})
    checked = _cli(board.store, "check", f"{base}..HEAD", code=1).output
    [line] = [x for x in checked.splitlines() if "KI245" in x and "error" in x]
    parts = sorted([f"1 holds {kinds} such as {shown}", "1 holds nothing"])
    assert line.startswith(
        f"{POLICY}:/families/synthetic/metric: error KI245 policy-metric-held-by-no-run: "
        f"family synthetic ranks {metric}, which no run of 2 of its comparison groups holds "
        f"as a number (of these 2 groups, {parts[0]} and {parts[1]} there): ranked before "
        "this change, they would rank none (e.g. group sha256:"), line
    assert (f"; `rank` leaves every run unranked: {shown} at {metric} is not a number)"
            ) in line, line
    assert "1 error, 0 warnings, 1 info" in checked, checked
    # what `rank` says of such a run, word for word
    ranked = _cli(board.store, "rank", "BenchmarkRun/t-1").stdout
    assert f"({shown} at {metric} is not a number)" in ranked, ranked
    data = json.loads(_cli(board.store, "check", f"{base}..HEAD", "--json", code=1).stdout)
    [error] = [f for f in data["findings"] if f["rule"] == "KI245"]
    assert error["extra"]["heldBy"] == {"nothing": 1, kinds: 1}


@pytest.mark.parametrize(("token", "said"), [
    ("extra", "(they hold null there)"), ("mean", "(they hold strings there, e.g. \"3.1\")")])
def test_each_group_said_alike_once_and_null_as_null(board, kit, token, said):
    """Every group holding strings: ``they hold strings there``, as before; every run
    holding ``null``: ``they hold null there`` (break96 L3: "holds no number" without a
    word of null, where strings and booleans were named)."""
    protocol, env, work = board.parts
    docs = []
    for name, value in (("s-1", "3.1"), ("s-2", "3.2")):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=3_100_000, name=name,
                               native={"metrics": {"mean": value, "extra": None}})]
    add_docs(board.store, docs)
    metric = f"/sourceNative/metrics/{token}"
    base = _policy(board, {"comparison": "source-native", "metric": metric,
                           "order": "ascending", "unit": "ms"})
    checked = _cli(board.store, "check", f"{base}..HEAD", code=1).output
    _one_line(checked, f"error KI245 policy-metric-held-by-no-run: family synthetic ranks "
              f"{metric}, which no run of its comparison group holds as a number {said}: "
              "ranked before this change, it would rank none (e.g. group sha256:")
    if token == "extra":  # what `rank` says of a null, in its words (break97 L7)
        assert f"`rank` says \"null at {metric}: no value\" for its runs)" in checked, checked
        ranked = _cli(board.store, "rank", "BenchmarkRun/s-1").stdout
        assert f"(null at {metric}: no value)" in ranked, ranked


@pytest.mark.parametrize(("groups", "said"), [
    ([("nothing", None)] * 3, ""),
    ([("null", None)], " as a number (they hold null there)"),
    ([("strings", "a"), ("strings", "b")], ' as a number (they hold strings there, e.g. "a")'),
    ([("nothing", None)] * 41 + [("strings", "2.5")],
     ' as a number (of these 42 groups, 41 hold nothing and 1 holds strings such as "2.5" '
     "there)"),
    ([("null", None), ("booleans and strings", True), ("nothing", None), ("null", None)],
     " as a number (of these 4 groups, 2 hold null, 1 holds booleans and strings such as "
     "true and 1 holds nothing there)")])
def test_what_the_groups_hold_is_said_with_counts(groups, said):
    assert _as_number(groups) == said


def test_holdings_tells_null_from_nothing():
    specs = {"k1": [{"m": {"x": None}}, {"m": {}}], "k2": [{"m": {"x": "s"}}], "k3": [{}],
             "k4": [{"m": {"x/y": None}}], "other": [{"m": {"x": "no"}}]}
    assert holdings(specs, ["k1", "k2", "k3"], "/m/x") == [
        ("null", None), ("strings", "s"), ("nothing", None)]
    assert holdings(specs, ["k4"], "/m/x~1y") == [("null", None)]


def test_a_number_in_some_group_makes_strings_in_another_a_warning(board, kit):
    """The second group ranks by ``mean``; the board's group holds it as a string: no typo,
    the board's group leaves the ranking (KI246), said as what it holds."""
    protocol, env, work = board.parts
    impl = kit.implementation("proj-s", name="impl-s")
    add_docs(board.store, [impl, kit.run(protocol, env, impl, work, latency=3_530_000,
                                         name="s", native={"metrics": {"mean": "3.53"}})])
    _second_group(board, kit)
    base = _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/mean",
                           "order": "ascending", "unit": "ms"})
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    [line] = [x for x in checked.splitlines() if "KI246" in x and "warning" in x]
    assert ("which no run of its comparison group holds as a number (they hold strings "
            "there, e.g. \"3.53\") (the runs of its other groups hold it)") in line, line


def test_held_otherwise_names_each_kind_and_the_first_value():
    specs = [{"m": {"x": None}}, {"m": {"x": 1}}, {"m": {"x": "a"}}, {"m": {"x": False}}, {}]
    assert held_otherwise(specs, "/m/x") == (["booleans", "strings"], "a")
    assert held_otherwise([{"m": {"x": 2}}, {}], "/m/x") == ([], None)


KERNELBENCH = ["/sourceNative/metrics/max", "/sourceNative/metrics/mean",
               "/sourceNative/metrics/min", "/sourceNative/metrics/num_trials",
               "/sourceNative/metrics/std"]
LOCAL = ["/sourceNative/metrics/baseline_latency_ms", "/sourceNative/metrics/latency_ms",
         "/sourceNative/metrics/max_absolute_error", "/sourceNative/metrics/max_relative_error",
         "/sourceNative/metrics/median_latency_sol_score",
         "/sourceNative/metrics/reference_latency_ms", "/sourceNative/metrics/sol_ms",
         "/sourceNative/metrics/speedup_factor"]
"""What the real KernelBench and SOL-ExecBench local runs hold under ``/sourceNative/metrics``
(``held_pointers`` over the imports of ../shared)."""


@pytest.mark.parametrize(("metric", "held", "meant"), [
    # fresh96 L2: by the whole pointer, sol_score got std on KernelBench and sol_ms (a
    # latency) on the local runs, which hold median_latency_sol_score
    ("/sourceNative/metrics/sol_score", KERNELBENCH, None),
    ("/sourceNative/metrics/sol_score", LOCAL, "/sourceNative/metrics/median_latency_sol_score"),
    ("/sourceNative/metrics/meen", KERNELBENCH, "/sourceNative/metrics/mean"),
    ("/sourceNative/metrics/Mean", KERNELBENCH, "/sourceNative/metrics/mean"),
    ("/sourceNative/metrics/latency", LOCAL, "/sourceNative/metrics/latency_ms"),
    ("/sourceNative/metrics/lantecy_ms", LOCAL, "/sourceNative/metrics/latency_ms"),
    ("/sourceNative/metrics/hardware", KERNELBENCH, None),
    ("/sourceNative/metric/mean", KERNELBENCH, "/sourceNative/metrics/mean"),
    ("/timing/latencyNs/p50", ["/timing/latencyNs/mean", "/timing/latencyNs/p99"], None),
    # break96 L2: a trailing slash (the key "" under it) matched nothing
    ("/sourceNative/metrics/mean/", KERNELBENCH, "/sourceNative/metrics/mean"),
    ("/sourceNative/metrics/meen//", KERNELBENCH, "/sourceNative/metrics/mean"),
    ("/sourceNative/metrics/", KERNELBENCH, None),
    ("/", [], None),
    ("/x", [], None)])
def test_did_you_mean_offers_a_held_number_close_by_its_last_token(metric, held, meant):
    assert closest_pointer(metric, held) == meant


def test_verify_says_a_stored_policy_ranks_by_what_its_runs_hold_as_no_number(board, kit):
    """fixp96 left: KI245 judged policy changes only, so a policy committed past the gate
    (``--no-verify``) ranking the family by a pointer every run holds as a string left
    ``verify`` saying ok while ``rank`` ranked none of its runs. Now verify says KI248, in
    the gate's KI245 words (of a stored policy: no "this change"), a warning: a sequence of
    pull requests each passing its gate can reach it (runs arriving without the metric)."""
    _second_group(board, kit)
    entry = {"comparison": "source-native", "metric": "/sourceNative/metrics/device",
             "order": "ascending", "unit": "ms"}
    _policy(board, entry)  # committed past any gate: no hook in this store
    # since 2026-12-07 (fresh17 F3, pol04) also KI249's error: "cuda:0" is never a number,
    # so the run holding it is refused at every gate, and `verify` fails such a store
    verified = _cli(board.store, "verify", code=1).output
    assert _one_line(verified, "error KI249 ranked-value-never-a-number: family 'synthetic' "
                     "ranks /sourceNative/metrics/device, where 2 stored runs of it state a "
                     "value that is never a number (e.g. BenchmarkRun/")
    line = _one_line(verified, "warning KI248 stored-policy-metric-unheld: family synthetic "
                     "ranks /sourceNative/metrics/device, which no run of 2 of its comparison "
                     "groups holds as a number (of these 2 groups, 1 holds nothing and 1 holds "
                     "strings such as \"cuda:0\" there): they rank none (e.g. group sha256:")
    assert line.endswith("`rank` leaves every run unranked: \"cuda:0\" at "
                         "/sourceNative/metrics/device is not a number). Their runs hold "
                         "/sourceNative/metrics/deep/a, /sourceNative/metrics/latency_ms, "
                         "/sourceNative/metrics/mean (expected a pointer the family's runs "
                         "hold, found /sourceNative/metrics/device)"), line
    assert "this change" not in line
    # a metric most groups hold: no error (the gate's KI246 warned of the change)
    _policy(board, {**entry, "metric": "/sourceNative/metrics/mean"})
    assert "KI248" not in _cli(board.store, "verify").output


def test_few_groups_holding_it_are_counted_plainly():
    """The plural fragment, one branch each (closing29 4: three conditionals in one
    f-string)."""
    from kistore.query.unheld_metric import _held_nowhere

    said = [_held_nowhere("f", "/m", ["k1", "k2", "k3"], [], [("nothing", None)] * 3, kept,
                          stored=stored) for kept, stored in ((1, False), (2, False), (2, True))]
    assert "(only 1 other group of it holds it, fewer than it unranks)" in said[0]
    assert "(only 2 other groups of it hold it, fewer than it unranks)" in said[1]
    assert "(only 2 other groups of it hold it, fewer than hold none): they rank none" \
        in said[2]
