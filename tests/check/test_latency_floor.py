"""KI230: a latency below any GPU kernel's, ms written as ns (reviewer r86 F14, "ms-as-ns").

A run stating ``latencyNs.mean`` 13.634148 (the SOL-ExecBench run's 13.634148 ms written
as ns) passed ``add``, ``check`` and ``verify`` without a word and ranked first of its group.
``check`` and ``verify`` now warn (a warning: the value is ranked as stated).
"""

from __future__ import annotations

import json

import pytest

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.contradictions import LATENCY_FLOOR_NS, implausible_latencies
from kistore.core.model import Manifest

from ..conftest import add_docs, git

MS_AS_NS = (
    "the run states latencyNs mean 13.634148, max 20 (nanoseconds), below 100 ns, which no "
    "GPU kernel launch reaches (the shortest kernel a GPU timer reports takes about 1 us): a "
    "value in milliseconds or microseconds written as nanoseconds reads so (13.634148 ms is "
    "13,634,148 ns)")


@pytest.mark.parametrize(("latency", "found"), [
    ({"mean": 13.634148, "max": 20, "std": 0.5}, [("/spec/timing/latencyNs/mean", MS_AS_NS)]),
    ({"mean": 99.999}, [("/spec/timing/latencyNs/mean", None)]),
    ({"mean": 100}, []),  # at the floor: plausible
    ({"mean": 10_160, "std": 0.42}, []),  # the real data's shortest; a spread is no latency
    ({"p50": 5, "mean": 120}, [("/spec/timing/latencyNs/p50", None)]),
])
def test_the_floor_is_100_ns_for_every_statistic_but_the_spread(latency, found):
    assert LATENCY_FLOOR_NS == 100
    got = implausible_latencies({"timing": {"latencyNs": latency}})
    assert [(c.rule, c.pointer) for c in got] == [("KI230", p) for p, _ in found]
    for c, (_, message) in zip(got, found, strict=True):
        assert message is None or c.message == message


def test_check_and_verify_warn_of_a_run_in_ms_written_as_ns(store, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl, impl2 = kit.implementation(name="i1"), kit.implementation("p2", name="i2")
    honest = kit.run(protocol, env, impl, workload, latency=13_634_148, name="honest")
    add_docs(store, [protocol, env, workload, impl, honest])
    base = git(store.root, "rev-parse", "HEAD").strip()
    slip = kit.run(protocol, env, impl2, workload,
                   latency={"mean": 13.634148, "max": 20, "std": 0.5}, name="slip")
    add_docs(store, [impl2, slip])  # add takes it (a warning is no refusal)
    where = layout.object_path(Manifest.from_document(slip).digest)
    expected = [("KI230", "warning", where, "/spec/timing/latencyNs/mean", MS_AS_NS)]
    ranged = check_range(store, f"{base}..HEAD")
    assert [(f.rule.id, f.severity, f.file, f.pointer, f.message) for f in ranged
            if f.rule.id == "KI230"] == expected
    assert not [f for f in ranged if f.severity == "error"]
    for at in (None, "HEAD"):
        assert [(f.rule.id, f.severity, f.file, f.pointer, f.message)
                for f in verify(store, at) if f.rule.id == "KI230"] == expected


def test_add_warns_of_a_run_in_ms_written_as_ns_and_adds_it(store, kit, runner, tmp_path):
    """Reviewer r89 F5: the contributing guide's run in ms was added and ranked #1 with no
    word from ``add``; the contributor now sees KI230 when adding, before any review."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation(name="i1")
    add_docs(store, [protocol, env, workload, impl])
    slip = kit.run(protocol, env, impl, workload,
                   latency={"mean": 13.634148, "max": 20, "std": 0.5}, name="slip")
    honest = kit.run(protocol, env, impl, workload, latency=13_634_148, name="honest")
    results = store.add([Manifest.from_document(d) for d in (slip, honest)])
    warned = {str(r.digest): list(r.warnings) for r in results}
    slip_digest = str(Manifest.from_document(slip).digest)
    assert warned == {
        slip_digest: [f"/spec/timing/latencyNs/mean: {MS_AS_NS} (KI230: added all the "
                      "same; `check` and `verify` warn too)"],
        str(Manifest.from_document(honest).digest): []}
    assert (store.root / layout.object_path(Manifest.from_document(slip).digest)).exists()

    again = kit.run(protocol, env, impl, workload, latency={"mean": 3.52, "min": 3.49},
                    name="again")
    path = tmp_path / "again.json"
    path.write_text(json.dumps(again))
    done = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert done.exit_code == 0, done.output
    # at the value's line and column (msg03: `again.json:/spec/...` until 2026-12-07)
    column = path.read_text().index('"min": 3.49') + len('"min": ') + 1
    assert f"warning: {path}:1:{column}:/spec/timing/latencyNs/min: the run states latencyNs " \
           "min 3.49, mean 3.52 (nanoseconds), below 100 ns" in done.stderr
