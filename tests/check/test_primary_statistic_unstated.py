"""KI252 primary-statistic-unstated: a run whose ``timing.latencyNs`` lacks what ranking reads.

Found by a new user (stat04): a run under a protocol measuring ``mean`` stating
``latencyNs: {"median": ...}`` was added without a word, and ``rank`` listed it unranked.
Ranking reads the protocol's ``measurement.primaryStatistic`` (KI218), not the run's own.
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main
from kistore.core import layout
from kistore.core.model import Manifest
from kistore.query.answers import rank

from ..conftest import add_docs, git

LATENCY = "\"latencyNs"
RANK_READS = ("in a family ranked by measured latency (the default), `rank` reads "
              "timing.latencyNs.{s} and lists this run unranked (a family the ranking policy "
              "ranks by its source's own metric does not read timing.latencyNs)")
HINT = ("state the statistic ranking reads (the protocol's measurement.primaryStatistic) in "
        "timing.latencyNs, with its value from the same trials, or point protocolDigest at a "
        "protocol measuring a statistic the run states; a stored run is never edited: add the "
        "corrected run as a new object (KI252: added all the same; `check` and `verify` warn "
        "too)")


def _named(doc: dict) -> str:
    return f"{doc['kind']}/{doc['metadata']['name']} ({Manifest.from_document(doc).digest})"


def _cli(store, *args, code=0):
    from click.testing import CliRunner
    result = CliRunner().invoke(main, ["--store", str(store.root), *args])
    assert result.exit_code == code, result.output
    return result


def _where(path, key: str) -> str:
    """Return ``PATH:LINE:COLUMN`` of the value of the first ``key`` (1-based, characters)."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if key in line:
            return f"{path}:{number}:{line.index(key) + len(key) + 4}"  # after '": '
    raise AssertionError(f"{key} not in {path}")


def _warning(path, run: dict, said: str) -> str:
    """Return the warning line ``add`` prints of ``run`` (in ``path``): its words ``said``."""
    return (f"warning: {_where(path, LATENCY)}:/spec/timing/latencyNs: {_named(run)} {said}; "
            f"{HINT}")


@pytest.fixture
def setting(store, kit):
    """A stored protocol measuring the mean, its environment and workload."""
    protocol, env, workload = kit.protocol(name="proto"), kit.environment(), kit.workload()
    add_docs(store, [protocol, env, workload])
    return store, kit, protocol, env, workload


def _add_run(store, kit, tmp_path, protocol, env, workload, name, timing):
    """Add one run (and its implementation) from a pretty ``.json`` file; (run, stderr lines)."""
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    _cli(store, "add", "--commit", str(_write(tmp_path / f"impl-{name}.json", impl)))
    run = kit.run(protocol, env, impl, workload, name=name)
    run["spec"]["timing"] = timing
    path = _write(tmp_path / f"{name}.json", run)
    added = _cli(store, "add", "--commit", str(path))
    return run, path, [x for x in added.stderr.splitlines() if "KI252" in x]


def _write(path, document):
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def test_agreeing_statistic_not_stated_is_said_and_rank_agrees(setting, tmp_path):
    store, kit, protocol, env, workload = setting
    run, path, said = _add_run(store, kit, tmp_path, protocol, env, workload, "agree",
                               {"primaryStatistic": "mean", "latencyNs": {"median": 5000,
                                                                          "min": 4000}})
    assert said == [_warning(path, run, (
        f"states timing.primaryStatistic 'mean', the statistic its protocol "
        f"{_named(protocol)} measures, but no 'mean' in timing.latencyNs (it states median, "
        f"min): {RANK_READS.format(s='mean')}"))]
    _, ranking = rank(store, "BenchmarkRun/agree")
    assert [r.record.name for r in ranking.unranked] == ["agree"] and ranking.ranked == []
    # stating the mean: nothing said, and ranked
    _, _, said = _add_run(store, kit, tmp_path, protocol, env, workload, "stated",
                          {"primaryStatistic": "mean", "latencyNs": {"mean": 5000}})
    assert said == []
    _, ranking = rank(store, "BenchmarkRun/stated")
    assert [r.record.name for r in ranking.ranked] == ["stated"]


def test_disagreeing_statistic_says_which_one_rank_reads(setting, tmp_path):
    store, kit, protocol, env, workload = setting
    run, path, said = _add_run(store, kit, tmp_path, protocol, env, workload, "other",
                               {"primaryStatistic": "median", "latencyNs": {"median": 5000}})
    assert said == [_warning(path, run, (
        f"states no 'mean' in timing.latencyNs (it states median), the statistic its "
        f"protocol {_named(protocol)} measures (measurement.primaryStatistic): ranking reads "
        f"the protocol's 'mean', not the run's own 'median' (KI218): "
        f"{RANK_READS.format(s='mean')}"))]
    _, ranking = rank(store, "BenchmarkRun/other")
    assert [r.record.name for r in ranking.unranked] == ["other"] and ranking.ranked == []


def test_rank_lists_unranked_exactly_the_runs_ki252_names(setting, tmp_path):
    """KI252's claim held to `rank`'s outcome, run by run, in a family ranked by latency."""
    store, kit, protocol, env, workload = setting
    cases = {"m1": {"primaryStatistic": "mean", "latencyNs": {"mean": 5000, "std": 3}},
             "m2": {"primaryStatistic": "median", "latencyNs": {"mean": 6000, "median": 1}},
             "m3": {"primaryStatistic": "mean", "latencyNs": {"p90": 7000}},
             "m4": {"primaryStatistic": "median", "latencyNs": {"median": 8000}},
             "m5": {"primaryStatistic": "mean", "latencyNs": {"min": 9000, "std": 1}}}
    named = {name for name, timing in cases.items()
             if _add_run(store, kit, tmp_path, protocol, env, workload, name, timing)[2]}
    assert named == {"m3", "m4", "m5"}
    _, ranking = rank(store, "BenchmarkRun/m1")
    assert {r.record.name for r in ranking.unranked} == named
    assert {r.record.name for r in ranking.ranked} == set(cases) - named


def test_protocol_not_stored_judges_the_runs_own_statistic(store, kit, tmp_path):
    protocol, env, workload = kit.protocol(name="later"), kit.environment(), kit.workload()
    add_docs(store, [env, workload])
    impl = kit.implementation("proj-d", name="impl-d")
    add_docs(store, [impl])
    run = kit.run(protocol, env, impl, workload, name="dangling")
    run["spec"]["timing"] = {"primaryStatistic": "mean", "latencyNs": {"median": 5000}}
    path = _write(tmp_path / "dangling.json", run)
    added = _cli(store, "add", "--allow-dangling", str(path))
    ref = f"sha256:{Manifest.from_document(protocol).digest.hex}"
    assert [x for x in added.stderr.splitlines() if "KI252" in x] == [_warning(path, run, (
        f"states timing.primaryStatistic 'mean' but no 'mean' in timing.latencyNs (it states "
        f"median); its protocol {ref} is not stored, and ranking reads the statistic the "
        f"protocol measures (measurement.primaryStatistic, KI218): if that is 'mean', in a "
        f"family ranked by measured latency (the default), `rank` will read "
        f"timing.latencyNs.mean and will list this run unranked (a family the ranking policy "
        f"ranks by its source's own metric does not read timing.latencyNs)"))]


def test_a_failed_run_or_one_without_latencies_is_not_judged(setting, tmp_path):
    store, kit, protocol, env, workload = setting
    assert _add_run(store, kit, tmp_path, protocol, env, workload, "none",
                    {"primaryStatistic": "mean"})[2] == []
    impl = kit.implementation("proj-f", name="impl-f")
    run = kit.run(protocol, env, impl, workload, name="failed", status="incorrect",
                  latency={"median": 5})
    path = _write(tmp_path / "failed.jsonl", impl)
    path.write_text(json.dumps(impl) + "\n" + json.dumps(run) + "\n")
    assert "KI252" not in _cli(store, "add", str(path)).stderr


def test_check_warns_of_the_run_a_range_adds(setting, tmp_path):
    store, kit, protocol, env, workload = setting
    base = git(store.root, "rev-parse", "HEAD").strip()
    run, _, _ = _add_run(store, kit, tmp_path, protocol, env, workload, "gate",
                         {"primaryStatistic": "mean", "latencyNs": {"median": 5000}})
    checked = _cli(store, "check", f"{base}..HEAD")
    obj = layout.object_path(Manifest.from_document(run).digest)
    assert [x for x in checked.output.splitlines() if "warning KI252" in x] == [
        f"{obj}:/spec/timing/latencyNs: warning KI252 primary-statistic-unstated: "
        f"{_named(run)} states timing.primaryStatistic 'mean', the statistic its protocol "
        f"{_named(protocol)} measures, but no 'mean' in timing.latencyNs (it states median): "
        f"{RANK_READS.format(s='mean')} (expected mean, found median)"]
    assert "0 errors, 1 warning, 0 info" in checked.output


# -- an earlier run, added dangling, whose protocol arrives later (stat06) -----------------

@pytest.fixture
def earlier(store, kit):
    """Runs added dangling (``add --allow-dangling``) before their protocol, measuring mean.

    ``agree`` states mean but only a median; ``other`` states median (KI218 too); ``fine``
    states its mean; ``failed`` is not passed. Returns (store, protocol, {name: run}).
    """
    protocol, env, workload = kit.protocol(name="late"), kit.environment(), kit.workload()
    add_docs(store, [env, workload])
    runs = {}
    for name, statistic, latency, status in [("agree", "mean", {"median": 5000}, "passed"),
                                             ("other", "median", {"median": 6000}, "passed"),
                                             ("fine", "mean", {"mean": 7000}, "passed"),
                                             ("failed", "mean", {"median": 8}, "incorrect")]:
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        run = kit.run(protocol, env, impl, workload, latency=latency, name=name, status=status)
        run["spec"]["timing"]["primaryStatistic"] = statistic
        add_docs(store, [impl, run], allow_dangling=True)
        runs[name] = run
    return store, protocol, runs


def _earlier_said(protocol: dict, run: dict) -> str:
    """KI252's words of an earlier run ``agree`` or ``other`` once ``protocol`` is stored."""
    if run["spec"]["timing"]["primaryStatistic"] == "mean":
        return (f"{_named(run)} states timing.primaryStatistic 'mean', the statistic its "
                f"protocol {_named(protocol)} measures, but no 'mean' in timing.latencyNs (it "
                f"states median): {RANK_READS.format(s='mean')}")
    return (f"{_named(run)} states no 'mean' in timing.latencyNs (it states median), the "
            f"statistic its protocol {_named(protocol)} measures "
            f"(measurement.primaryStatistic): ranking reads the protocol's 'mean', not the "
            f"run's own 'median' (KI218): {RANK_READS.format(s='mean')}")


def _by_digest(runs: dict, names) -> list[dict]:
    """The runs named, in the order a protocol's forward directory lists them (digest)."""
    return sorted((runs[n] for n in names), key=lambda r: str(Manifest.from_document(r).digest))


def test_a_protocol_arriving_after_its_runs_names_each_in_its_add(earlier, tmp_path):
    store, protocol, runs = earlier
    path = _write(tmp_path / "late.json", protocol)
    added = _cli(store, "add", "--commit", str(path))
    where = _where(path, '"primaryStatistic')
    assert [x for x in added.stderr.splitlines() if "KI252" in x] == [
        f"warning: {where}:/spec/measurement/primaryStatistic: {_earlier_said(protocol, run)}"
        f"; {HINT}" for run in _by_digest(runs, ["agree", "other"])]
    _, ranking = rank(store, "BenchmarkRun/fine")
    assert {r.record.name for r in ranking.unranked} == {"agree", "other"}
    assert [r.record.name for r in ranking.ranked] == ["fine"]


def test_the_protocol_s_add_result_carries_them_after_ki218(earlier):
    store, protocol, runs = earlier
    [result] = store.add([Manifest.from_document(protocol)], commit=True)
    said = [w.split(": ", 1) for w in result.warnings]
    assert [(at, "KI252" if "(KI252:" in w else "KI218") for at, w in said] == [
        ("/spec/measurement/primaryStatistic", rule)
        for run in _by_digest(runs, ["agree", "other"])
        for rule in (["KI218", "KI252"] if run is runs["other"] else ["KI252"])]
    assert [w for _, w in said if "(KI252:" in w] == [
        f"{_earlier_said(protocol, run)}; {HINT}"
        for run in _by_digest(runs, ["agree", "other"])]


def _gate_line(protocol: dict, run: dict) -> str:
    obj = layout.object_path(Manifest.from_document(run).digest)
    return (f"{obj}:/spec/timing/latencyNs: warning KI252 primary-statistic-unstated: "
            f"{_earlier_said(protocol, run)} (expected mean, found median)")


def test_check_warns_of_the_earlier_runs_a_range_s_protocol_answers(earlier):
    from kistore.check.gate import check_range

    store, protocol, runs = earlier
    base = git(store.root, "rev-parse", "HEAD").strip()
    add_docs(store, [protocol])
    checked = _cli(store, "check", f"{base}..HEAD")
    lines = sorted(_gate_line(protocol, runs[n]) for n in ("agree", "other"))
    assert [x for x in checked.output.splitlines() if "warning KI252" in x] == lines
    fast = check_range(store, f"{base}..HEAD")
    assert fast == check_range(store, f"{base}..HEAD", whole_tree=True)
    assert sorted(f.file for f in fast if f.rule.id == "KI252") == sorted(
        layout.object_path(Manifest.from_document(runs[n]).digest) for n in ("agree", "other"))
    # a later range touching only the protocol's metadata makes nothing new true
    base = git(store.root, "rev-parse", "HEAD").strip()
    edited = json.loads(json.dumps(protocol))
    edited["metadata"]["title"] = "Protocol measuring the mean"
    store.add([Manifest.from_document(edited)], update_metadata=True, commit=True)
    assert "KI252" not in _cli(store, "check", f"{base}..HEAD").output


def test_verify_warns_of_every_stored_run_lacking_it(earlier):
    from kistore.check.audit import verify

    store, protocol, runs = earlier
    add_docs(store, [protocol])
    lines = sorted(_gate_line(protocol, runs[n]) for n in ("agree", "other"))
    for at in ([], ["--at", "HEAD"]):
        checked = _cli(store, "verify", *at)
        assert [x for x in checked.output.splitlines() if "warning KI252" in x] == lines
        assert "0 errors" in checked.output
    for at in (None, "HEAD"):
        assert [(f.rule.id, f.severity, f.expected, f.found, f.extra) for f in verify(store, at)
                if f.rule.id == "KI252"] == [
            ("KI252", "warning", "mean", "median",
             {"protocol": str(Manifest.from_document(protocol).digest)})] * 2


def test_median_under_a_p50_protocol_is_said_to_be_p50(store, kit, tmp_path):
    """fresh14 F13: ``median`` and ``p50`` are one statistic to KI228 but ranking reads the
    key as spelled; the warnings (KI218, KI252) did not say so. Ranking still reads the
    protocol's key only (rank, compare, show, the site and the export read one key)."""
    protocol, env, workload = kit.protocol(name="proto-p50", statistic="p50"), \
        kit.environment(), kit.workload()
    add_docs(store, [protocol, env, workload])
    run, path, said = _add_run(store, kit, tmp_path, protocol, env, workload, "p50-a", {
        "primaryStatistic": "median", "latencyNs": {"median": 1000000, "mean": 1000000}})
    one = ("'median' is 'p50' (the 0.5 quantile, one statistic), but ranking reads "
           "timing.latencyNs by the key as spelled: state the value under the protocol's key, "
           "timing.latencyNs.p50")
    assert said == [_warning(path, run, (
        f"states no 'p50' in timing.latencyNs (it states mean, median), the statistic its "
        f"protocol {_named(protocol)} measures (measurement.primaryStatistic): ranking reads "
        f"the protocol's 'p50', not the run's own 'median' (KI218): "
        f"{RANK_READS.format(s='p50')}; {one}, and timing.primaryStatistic 'p50'"))]
    # the run's primaryStatistic right, its value under 'median': the key alone to move
    run, path, said = _add_run(store, kit, tmp_path, protocol, env, workload, "p50-b", {
        "primaryStatistic": "p50", "latencyNs": {"median": 2000000}})
    assert said == [_warning(path, run, (
        f"states timing.primaryStatistic 'p50', the statistic its protocol {_named(protocol)} "
        f"measures, but no 'p50' in timing.latencyNs (it states median): "
        f"{RANK_READS.format(s='p50')}; {one}"))]


def test_ki218_says_median_is_p50():
    from kistore.core.statistics import disagreement
    assert disagreement("R", "median", "P", "p50").endswith(
        "reads its timing.latencyNs.p50; 'median' is 'p50' (the 0.5 quantile, one statistic), "
        "but ranking reads timing.latencyNs by the key as spelled: state the value under the "
        "protocol's key, timing.latencyNs.p50, and timing.primaryStatistic 'p50'")
    assert disagreement("R", "mean", "P", "p50").endswith("reads its timing.latencyNs.p50")
    assert disagreement("R", "p0", "P", "min").endswith("and timing.primaryStatistic 'min'")
