"""`kistore add` refuses a run whose unit disagrees with its comparison group's (KI210).

Review 2026-12-02: `add --commit` accepted such a run, which `check` and `verify` refuse
and which made `rank` and `show` of its group fail. The rule is
:mod:`kistore.query.units`'; the store runs it before writing when its caller passes it
(``Store.add(checks=)``: the command line does).
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main
from kistore.core.comparison import comparison_key, key_object
from kistore.core.digest import Digest
from kistore.core.layout import object_path
from kistore.core.model import Manifest

from ..conftest import git, snapshot

GROUP_FIX = (
    "a stored run never changes nor leaves its group: if the values are in fact in one unit, "
    "give the family a fixed \"unit\" in place of its \"unitPointer\" in "
    "store/policy/ranking.json by a reviewed pull request; else add the runs again under new "
    "names, each stating one unit, in a new comparison group (e.g. a new protocol version), "
    "or rank the family by another metric")
"""What to do about a group mixing units: stored runs never change (review 2026-12-02: rank
said "correct the runs' manifests")."""

HINT = ("in a run you add, state the unit the other runs of its comparison group state (the "
        f"policy's unitPointer), as a string; for a group already mixed, {GROUP_FIX} (KI210: "
        "`check` and `verify` refuse it)")


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


def scored(kit, parts, name, score, unit):
    protocol, env, workload = parts
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    doc = kit.run(protocol, env, impl, workload, latency=10_000, name=name,
                  native={"metrics": {"score": score}})
    doc["spec"]["sourceNative"]["unit"] = unit
    return [impl, doc]


@pytest.fixture
def unit_store(store_path, kit, runner, tmp_path):
    """A store whose family `synthetic` ranks by a unitPointer, and one run in TFLOP/s."""
    policy_path = store_path / "store/policy/ranking.json"
    policy = json.loads(policy_path.read_text())
    policy["families"]["synthetic"] = {
        "comparison": "source-native", "metric": "/sourceNative/metrics/score",
        "order": "descending", "unitPointer": "/sourceNative/unit"}
    policy_path.write_text(json.dumps(policy))
    git(store_path, "commit", "-qm", "policy", "--", "store/policy/ranking.json")
    parts = [kit.protocol(), kit.environment(), kit.workload()]
    first = tmp_path / "first.jsonl"
    first.write_text("".join(json.dumps(d) + "\n"
                             for d in parts + scored(kit, parts, "a", 2.0, "TFLOP/s")))
    assert run(runner, store_path, "add", "--commit", str(first)).exit_code == 0
    return parts


def key_of(parts, run_doc):
    protocol, env, _ = parts
    return comparison_key(key_object(run_doc["spec"], protocol["spec"], env["spec"]))


@pytest.mark.parametrize("commit", [False, True])
def test_add_refuses_a_run_in_another_unit_than_its_group_and_writes_nothing(
        runner, store_path, kit, tmp_path, unit_store, commit):
    impl, odd = scored(kit, unit_store, "b", 2000.0, "GFLOP/s")
    (tmp_path / "impl.json").write_text(json.dumps(impl))
    assert run(runner, store_path, "add", "--commit", str(tmp_path / "impl.json")).exit_code == 0
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(odd))
    before, head = snapshot(store_path), git(store_path, "rev-parse", "HEAD")
    refused = run(runner, store_path, "add", *(["--commit"] if commit else []), str(path))
    assert refused.exit_code == 1
    assert refused.stderr.splitlines() == [
        f"error: {path}:/spec/sourceNative/unit: states 'GFLOP/s' at /sourceNative/unit; "
        f"the other runs of comparison group {key_of(unit_store, odd)} state 'TFLOP/s': "
        f"`rank` would fail for the whole group; {HINT}"]
    assert snapshot(store_path) == before
    assert git(store_path, "rev-parse", "HEAD") == head
    assert git(store_path, "status", "--porcelain") == ""
    assert run(runner, store_path, "rank", "BenchmarkRun/a").exit_code == 0
    # the same run in the group's unit is added
    impl, good = scored(kit, unit_store, "c", 3.0, "TFLOP/s")
    path = tmp_path / "good.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, good)))
    added = run(runner, store_path, "add", "--commit", str(path))
    assert added.exit_code == 0, added.output
    assert str(Manifest.from_document(good).digest) in added.stdout


def test_add_refuses_two_runs_of_one_new_group_in_two_units(runner, store_path, kit,
                                                             tmp_path, unit_store):
    parts = [kit.protocol(version="2"), unit_store[1], unit_store[2]]  # another group
    docs = parts[:1] + scored(kit, parts, "ms", 1.0, "ms") + scored(kit, parts, "ns", 9.0, "ns")
    path = tmp_path / "batch.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    before = snapshot(store_path)
    refused = run(runner, store_path, "add", "--commit", str(path))
    assert refused.exit_code == 1
    ms, ns = docs[2], docs[4]
    digests = sorted((str(Manifest.from_document(d).digest), u) for d, u in ((ms, "ms"),
                                                                             (ns, "ns")))
    rarest = min(digests, key=lambda d: d[1])  # one run each: the first unit by name
    line = 3 if rarest[1] == "ms" else 5
    assert refused.stderr.splitlines() == [
        f"error: {path}:{line}:1:/spec/sourceNative/unit: the runs of comparison group "
        f"{key_of(parts, ms)} state different units at /sourceNative/unit: "
        + "; ".join(f"{u} (e.g. {d})" for d, u in sorted(digests, key=lambda d: d[1]))
        + f"; `rank` fails for the whole group; {HINT}"]
    assert snapshot(store_path) == before


def test_store_add_asks_only_the_checks_its_caller_passes(store_path, kit, tmp_path, unit_store):
    """Store.add from Python: KI210 applies when ``checks=`` holds units_admitted; a call
    without it asks the store's own rules only (there is no process-global list)."""
    from kistore.core.errors import MultipleErrors
    from kistore.query.units import units_admitted
    from kistore.store import Store

    store = Store(store_path)
    impl, odd = scored(kit, unit_store, "b", 2000.0, "GFLOP/s")
    manifests = [Manifest.from_document(d) for d in (impl, odd)]
    before = snapshot(store_path)
    with pytest.raises(MultipleErrors) as refused:
        store.add(manifests, checks=(units_admitted,))
    assert [p.pointer for p in refused.value.problems] == ["/spec/sourceNative/unit"]
    assert refused.value.problems[0].message.startswith(
        "states 'GFLOP/s' at /sourceNative/unit; the other runs of comparison group "
        f"{key_of(unit_store, odd)} state 'TFLOP/s'")
    assert snapshot(store_path) == before
    results = store.add(manifests)  # no checks passed: the store's own rules only
    assert [(str(r.digest), r.status) for r in results] == [
        (str(m.digest), "added") for m in manifests]


# -- review 2026-12-02 F7, F8: a group already broken, runs never compared, units no strings --

MIXED_HINT = ("nothing in this run to fix: the other runs of its group already state "
              f"different units (committed past a failing gate); {GROUP_FIX} (KI217: `check` "
              "warns too)")


def past_the_gate(store_path, docs):
    """Commit manifests with no admission check (what a merge past a failing gate lands)."""
    from kistore.store import Store

    manifests = [Manifest.from_document(d) for d in docs]
    Store(store_path).add(manifests, commit=True)
    return [str(m.digest) for m in manifests]


def obj(digest):
    return object_path(Digest.from_str(digest))


def digest_of(doc):
    return str(Manifest.from_document(doc).digest)


def findings(result):
    return [(f["rule"], f["severity"], f.get("file"), f.get("pointer"), f["message"])
            for f in json.loads(result.stdout)["findings"] if f["rule"] in ("KI210", "KI217")]


def test_a_run_agreeing_with_a_group_already_in_two_units_is_added_with_a_warning(
        runner, store_path, kit, tmp_path, unit_store):
    a = digest_of(scored(kit, unit_store, "a", 2.0, "TFLOP/s")[1])
    b = past_the_gate(store_path, scored(kit, unit_store, "b", 2000.0, "GFLOP/s"))[1]
    base = git(store_path, "rev-parse", "HEAD").strip()
    impl, good = scored(kit, unit_store, "c", 3.0, "TFLOP/s")
    c = digest_of(good)
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, good)))
    key = key_of(unit_store, good)
    message = (f"states 'TFLOP/s' at /sourceNative/unit, as other runs of comparison group "
               f"{key} do, but the group already states different units: GFLOP/s (e.g. {b}); "
               f"TFLOP/s (e.g. {min(a, c)}); `rank` fails for the whole group (with or "
               "without this run)")
    added = run(runner, store_path, "add", "--commit", str(path))
    assert added.exit_code == 0, added.output
    assert added.stderr.splitlines() == [
        f"warning: {path}:2:1:/spec/sourceNative/unit: {message}; {MIXED_HINT}"]
    assert c in added.stdout
    checked = run(runner, store_path, "check", "--json", f"{base}..HEAD")
    assert checked.exit_code == 0, checked.output  # a warning: the group was broken before
    assert findings(checked) == [("KI217", "warning", obj(c),
                                  "/spec/sourceNative/unit", message)]
    verified = run(runner, store_path, "verify", "--json")
    assert verified.exit_code == 1
    assert [f[0] for f in findings(verified)] == ["KI210"]  # the group, as before


def test_runs_never_compared_break_nothing_whatever_unit_they_state(
        runner, store_path, kit, tmp_path, unit_store):
    """A failed run (never ranked) and a run with no value, in another unit: both added,
    `rank` of the group works, `verify` reports nothing (they used to differ: F8)."""
    impl, failed = scored(kit, unit_store, "f", 5.0, "GFLOP/s")
    failed["spec"]["status"] = "failed"
    impl2, empty = scored(kit, unit_store, "n", 5.0, "GFLOP/s")
    empty["spec"]["sourceNative"]["metrics"] = {}
    path = tmp_path / "never.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, failed, impl2, empty)))
    added = run(runner, store_path, "add", "--commit", str(path))
    assert added.exit_code == 0, added.output
    assert added.stderr == ""
    ranked = run(runner, store_path, "rank", "--all", "--json", "BenchmarkRun/a")
    assert ranked.exit_code == 0, ranked.output
    rows = {r["name"]: (r["rank"], r["unit"], r["reason"]) for r in json.loads(ranked.stdout)}
    assert rows == {"a": (1, "TFLOP/s", None),
                    "n": (None, "GFLOP/s", "no value at /sourceNative/metrics/score"),
                    "f": (None, "GFLOP/s", "status failed")}
    verified = run(runner, store_path, "verify", "--json")
    assert findings(verified) == [], verified.output


def test_a_number_where_the_unit_goes_is_refused_and_rank_says_why(
        runner, store_path, kit, tmp_path, unit_store):
    """`"unit": 1` is no unit: add refuses it (KI210); committed anyway, `rank` leaves it
    unranked and says the number is not a string, and `verify` reports it."""
    parts = [kit.protocol(version="2"), unit_store[1], unit_store[2]]  # a group of its own
    docs = [parts[0], *scored(kit, parts, "one", 4.0, "1")]
    past_the_gate(store_path, docs)
    impl, number = scored(kit, parts, "num", 3.0, 1)
    path = tmp_path / "number.json"
    path.write_text(json.dumps(number))
    past_the_gate(store_path, [impl])
    message = ('states 1 at /sourceNative/unit, which is no unit: a unit is a string ("1" '
               "for a dimensionless value); `rank` leaves this run unranked")
    refused = run(runner, store_path, "add", str(path))
    assert refused.exit_code == 1
    assert refused.stderr.splitlines() == [
        f"error: {path}:/spec/sourceNative/unit: {message}; {HINT}"]
    n = past_the_gate(store_path, [number])[0]
    ranked = run(runner, store_path, "rank", "--json", "BenchmarkRun/one")
    assert ranked.exit_code == 0, ranked.output
    rows = {r["name"]: (r["rank"], r["unit"], r["reason"]) for r in json.loads(ranked.stdout)}
    assert rows == {"one": (1, "1", None), "num": (
        None, None, "no unit at /sourceNative/unit (1 is not a string)")}
    verified = run(runner, store_path, "verify", "--json")
    assert findings(verified) == [("KI210", "error", obj(n),
                                   "/spec/sourceNative/unit", message)]


def test_check_places_ki210_on_a_run_with_its_pointer_from_either_base(
        runner, store_path, kit, tmp_path, unit_store):
    """base..merged (both runs of a new group added) and b1..merged (one of them) both
    report KI210 on a run's object with the JSON Pointer of its unit (F8: the first had
    none)."""
    parts = [kit.protocol(version="2"), unit_store[1], unit_store[2]]
    base = git(store_path, "rev-parse", "HEAD").strip()
    ms = past_the_gate(store_path, [parts[0], *scored(kit, parts, "ms", 1.0, "ms")])[2]
    b1 = git(store_path, "rev-parse", "HEAD").strip()
    ns = past_the_gate(store_path, scored(kit, parts, "ns", 9.0, "ns"))[1]
    key = key_of(parts, scored(kit, parts, "ms", 1.0, "ms")[1])
    whole = run(runner, store_path, "check", "--json", f"{base}..HEAD")
    assert whole.exit_code == 1
    assert findings(whole) == [(
        "KI210", "error", obj(ms), "/spec/sourceNative/unit",
        f"the runs of comparison group {key} state different units at /sourceNative/unit: "
        f"ms (e.g. {ms}); ns (e.g. {ns}); `rank` fails for the whole group")]
    one = run(runner, store_path, "check", "--json", f"{b1}..HEAD")
    assert one.exit_code == 1
    assert findings(one) == [(
        "KI210", "error", obj(ns), "/spec/sourceNative/unit",
        f"states 'ns' at /sourceNative/unit; the other runs of comparison group {key} state "
        "'ms': `rank` would fail for the whole group")]


# -- review 2026-12-02 (units60): a comparable run stating no unit at all --

NO_UNIT = ('no unit at /sourceNative/unit: a passed run with a value at '
           '/sourceNative/metrics/score states its unit there, a string ("1" for a '
           "dimensionless value); `rank` leaves this run unranked")


def unitless(kit, parts, name, score, *, status="passed", null=False):
    """A run with a score and nothing (or ``null``) at the unit pointer."""
    impl, doc = scored(kit, parts, name, score, "TFLOP/s")
    if null:
        doc["spec"]["sourceNative"]["unit"] = None
    else:
        del doc["spec"]["sourceNative"]["unit"]
    doc["spec"]["status"] = status
    return [impl, doc]


@pytest.mark.parametrize("null", [False, True])
def test_add_refuses_a_comparable_run_with_no_unit_as_it_refuses_a_number(
        runner, store_path, kit, tmp_path, unit_store, null):
    """A passed run with a value and no unit (or null) at the unitPointer: `add` refuses it
    (KI210), as it refuses ``"unit": 1``; it used to be added and left unranked."""
    impl, bare = unitless(kit, unit_store, "bare", 3.0, null=null)
    past_the_gate(store_path, [impl])
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(bare))
    before, head = snapshot(store_path), git(store_path, "rev-parse", "HEAD")
    for commit in ([], ["--commit"]):
        refused = run(runner, store_path, "add", *commit, str(path))
        assert refused.exit_code == 1
        assert refused.stderr.splitlines() == [
            f"error: {path}:/spec/sourceNative/unit: {NO_UNIT}; {HINT}"]
        assert snapshot(store_path) == before
        assert git(store_path, "rev-parse", "HEAD") == head


def test_store_add_refuses_a_run_with_no_unit_when_passed_units_admitted(
        store_path, kit, unit_store):
    from kistore.core.errors import MultipleErrors
    from kistore.query.units import units_admitted
    from kistore.store import Store

    manifests = [Manifest.from_document(d) for d in unitless(kit, unit_store, "bare", 3.0)]
    before = snapshot(store_path)
    with pytest.raises(MultipleErrors) as refused:
        Store(store_path).add(manifests, checks=(units_admitted,))
    assert [(p.pointer, p.message) for p in refused.value.problems] == [
        ("/spec/sourceNative/unit", f"{NO_UNIT}; {HINT}")]
    assert snapshot(store_path) == before


def test_check_and_verify_refuse_a_run_with_no_unit_committed_past_add(
        runner, store_path, kit, unit_store):
    """Committed with no admission check: the gate over the range and `verify` report KI210
    on the run's object with the JSON Pointer of its unit; `rank` says why it is unranked."""
    base = git(store_path, "rev-parse", "HEAD").strip()
    bare = past_the_gate(store_path, unitless(kit, unit_store, "bare", 3.0))[1]
    expected = [("KI210", "error", obj(bare), "/spec/sourceNative/unit", NO_UNIT)]
    checked = run(runner, store_path, "check", "--json", f"{base}..HEAD")
    assert checked.exit_code == 1
    assert findings(checked) == expected
    verified = run(runner, store_path, "verify", "--json")
    assert verified.exit_code == 1
    assert findings(verified) == expected
    ranked = run(runner, store_path, "rank", "--all", "--json", "BenchmarkRun/a")
    assert ranked.exit_code == 0, ranked.output
    rows = {r["name"]: (r["rank"], r["reason"]) for r in json.loads(ranked.stdout)}
    assert rows == {"a": (1, None), "bare": (None, "no unit at /sourceNative/unit")}


def test_runs_never_compared_may_state_no_unit(runner, store_path, kit, tmp_path, unit_store):
    """Only comparable runs count: a failed run with a value, and a passed run with no
    value, both with no unit, are added; `check` and `verify` report nothing."""
    base = git(store_path, "rev-parse", "HEAD").strip()
    failed = unitless(kit, unit_store, "f", 5.0, status="failed")
    empty = unitless(kit, unit_store, "n", 5.0)
    empty[1]["spec"]["sourceNative"]["metrics"] = {}
    path = tmp_path / "never.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in failed + empty))
    added = run(runner, store_path, "add", "--commit", str(path))
    assert added.exit_code == 0, added.output
    assert added.stderr == ""
    checked = run(runner, store_path, "check", "--json", f"{base}..HEAD")
    assert checked.exit_code == 0, checked.output
    assert findings(checked) == []
    verified = run(runner, store_path, "verify", "--json")
    assert findings(verified) == [], verified.output
