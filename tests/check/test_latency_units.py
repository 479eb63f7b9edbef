"""KI233: a run's latencyNs.mean and its source's latency_ms disagree (reviewer r89 F3).

The SOL-ExecBench and FlashInfer importers write ``timing.latencyNs.mean`` and
``sourceNative.metrics.latency_ms`` from one number; a run stating 13,634,148 ns beside
99,999 ms was added, checked and verified without a word. Now a warning everywhere.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.contradictions import latency_units_disagree
from kistore.core.digest import Digest
from kistore.core.model import Manifest

from ..conftest import add_docs, git


def _spec(mean, ms, source="sol-execbench"):
    return {"timing": {"latencyNs": {"mean": mean}, "primaryStatistic": "mean"},
            "sourceNative": {"source": source, "metrics": {"latency_ms": ms}}}


@pytest.mark.parametrize("mean,ms", [(13634148, 13.634148), (10159.999999999998, 0.01016),
                                     (99327535.5, 99.3275355), (1, 1e-6),
                                     (46005.5, 0.046006),  # ms rounded to 6 decimals (1 ns)
                                     (46005, 0.046006)])
def test_one_number_in_two_units_agrees(mean, ms):
    # the importers scale in decimal (13.634148 ms is 13634148 ns): binary scaling differs
    # by an ulp or so, within the slack
    assert latency_units_disagree(_spec(mean, ms)) is None
    assert latency_units_disagree(_spec(mean, ms, "flashinfer-trace")) is None


def test_a_unit_slip_is_named_with_both_values():
    found = latency_units_disagree(_spec(13634148, 99999.0))
    assert found is not None
    assert (found.rule, found.pointer) == ("KI233", "/spec/timing/latencyNs/mean")
    assert found.message == (
        "the run states a mean latency of 13634148 ns (/spec/timing/latencyNs/mean) and "
        "latency_ms 99999.0 (/spec/sourceNative/metrics/latency_ms), which is 9.9999e+10 ns "
        "(7334.45x the mean): sol-execbench's importer writes both from one number, so one "
        "was written in another unit or changed")
    assert latency_units_disagree(_spec(13634148, 13.63415)) is not None  # 2 ns off
    assert latency_units_disagree(_spec(46005, 0.046007)) is not None
    # another source, or a value missing, says nothing
    assert latency_units_disagree(_spec(13634148, 99999.0, "kernelbench")) is None
    assert latency_units_disagree(_spec(13634148, None)) is None
    assert latency_units_disagree(_spec(True, 1.0)) is None


def test_add_check_and_verify_warn(store, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("p", name="i")
    add_docs(store, [protocol, env, workload, impl])
    base = git(store.root, "rev-parse", "HEAD").strip()
    run = kit.run(protocol, env, impl, workload, latency=13634148, name="slip",
                  native={"metrics": {"latency_ms": 99999.0}})
    run["spec"]["sourceNative"]["source"] = "sol-execbench"
    [result] = store.add([Manifest.from_document(run)], commit=True)
    [warned] = result.warnings
    assert "/spec/timing/latencyNs/mean" in warned and "(KI233: added all the same" in warned
    where = layout.object_path(Digest(Manifest.from_document(run).digest.hex))
    head = git(store.root, "rev-parse", "HEAD").strip()
    for findings in (check_range(store, f"{base}..{head}"), verify(store)):
        assert [(f.severity, f.file, f.pointer) for f in findings if f.rule.id == "KI233"] \
            == [("warning", where, "/spec/timing/latencyNs/mean")]


@pytest.mark.parametrize(("ms", "stated"), [
    (True, "true"), ([1], "an array"), ({"v": 1}, "an object"), ("fast", "the string 'fast'"),
    (" 0.05", "the string ' 0.05'"), ("nan", "the string 'nan'"), ("1e999", "the string '1e999'")])
def test_r90_f8_a_latency_ms_that_is_no_number_is_said(ms, stated):
    found = latency_units_disagree(_spec(570.8, ms))
    assert found is not None
    assert (found.rule, found.pointer) == ("KI233", "/spec/sourceNative/metrics/latency_ms")
    assert found.message == (
        f"the run states latency_ms as {stated} (/spec/sourceNative/metrics/latency_ms), not a "
        "number: sol-execbench's importer writes the latency in milliseconds as a JSON number")
    # whatever the mean, or none; another source's metrics are its own
    assert latency_units_disagree(_spec(None, ms)) == found
    assert latency_units_disagree(_spec(570.8, ms, "kernelbench")) is None


def test_r90_f8_a_numeric_string_is_judged_as_its_number():
    # reviewer r90 F8: "0.05708230277601223" beside a mean of 570.8 ns (100x off) was silent
    found = latency_units_disagree(_spec(570.8, "0.05708230277601223"))
    assert found is not None and found.pointer == "/spec/timing/latencyNs/mean"
    assert found.message == (
        "the run states a mean latency of 570.8 ns (/spec/timing/latencyNs/mean) and "
        "latency_ms '0.05708230277601223' (as a string) (/spec/sourceNative/metrics/latency_ms)"
        ", which is 57082.30278 ns (100.004x the mean): sol-execbench's importer writes both "
        "from one number, so one was written in another unit or changed")
    assert latency_units_disagree(_spec(570.8, "0.0005708")) is None   # agrees
    assert latency_units_disagree(_spec(13634148, "13.634148")) is None


def _where(path, text: str) -> str:
    """Return ``PATH:LINE:COLUMN`` of the first ``text`` in the file (1-based, characters)."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return f"{path}:{number}:{line.index(text) + 1}"
    raise AssertionError(f"{text} not in {path}")


def test_add_places_ki230_and_ki233_at_the_value_s_line_and_column(store, kit, tmp_path):
    # msg03: `add` of a `.json` run named `run.json:/spec/timing/latencyNs/mean` for KI230
    # and KI233, where KI221 (a ValueWarning) names the value's line:column
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("p", name="i")
    add_docs(store, [protocol, env, workload, impl])
    slip = kit.run(protocol, env, impl, workload, latency=13634148, name="slip",
                   native={"metrics": {"latency_ms": 99999.0}})
    slip["spec"]["sourceNative"]["source"] = "sol-execbench"
    small = kit.run(protocol, env, impl, workload, latency=42, name="small")
    said = {}
    for name, run, rule, value in (("slip.json", slip, "KI233", "13634148"),
                                   ("small.json", small, "KI230", "42")):
        path = tmp_path / name
        path.write_text(json.dumps(run, indent=2) + "\n")
        done = CliRunner().invoke(main, ["--store", str(store.root), "add", str(path)])
        assert done.exit_code == 0, done.output
        [line] = [x for x in done.stderr.splitlines() if f"({rule}: added" in x]
        said[rule] = line
        # on BASE 04156861: f"warning: {path}:/spec/timing/latencyNs/mean: ..."
        assert line.startswith(
            f"warning: {_where(path, value)}:/spec/timing/latencyNs/mean: the run states "), line
    assert said["KI230"] == (
        f"warning: {_where(tmp_path / 'small.json', '42')}:/spec/timing/latencyNs/mean: the "
        "run states latencyNs mean 42 (nanoseconds), below 100 ns, which no GPU kernel launch "
        "reaches (the shortest kernel a GPU timer reports takes about 1 us): a value in "
        "milliseconds or microseconds written as nanoseconds reads so (42 ms is 42,000,000 "
        "ns) (KI230: added all the same; `check` and `verify` warn too)")
