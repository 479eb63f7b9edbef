"""``NaN``/``Infinity`` in an input: told what the schema takes there (reviewer r90 F8).

"NaN is not JSON; write null or leave the field out" was followed by "field 'mean':
expected a number, found null" for a run's latency: the advice named what the schema refuses.
"""

from __future__ import annotations

import json

import pytest

from kistore.core import canonical
from kistore.core.errors import MultipleErrors
from kistore.store import inputs

from ..conftest import ManifestKit


def _text(kit: ManifestKit, where: str, bad: str) -> bytes:
    """A run's JSON text with the number at ``where`` (a marker 123456789) written ``bad``."""
    protocol, env, impl, workload = (kit.protocol(), kit.environment(),
                                     kit.implementation(), kit.workload())
    run = kit.run(protocol, env, impl, workload, latency={"mean": 1000, "std": 3},
                  native={"source": "x", "metrics": {"score": 1}})
    keys = where.split("/")[1:]
    node = run
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = 123456789
    return json.dumps(run, indent=1).replace("123456789", bad).encode()


def _said(data: bytes, file: str = "run.json") -> list[str]:
    with pytest.raises(MultipleErrors) as caught:
        inputs.parse_manifests(data, file=file)
    return [e.message for e in caught.value.errors]


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_a_latency_takes_a_number_or_nothing_never_null(bad):
    said = _said(_text(ManifestKit(), "/spec/timing/latencyNs/mean", bad))
    assert said == [f"{bad} is not JSON; write a number, or leave the field out (the schema "
                    "takes no null here)"]


def test_a_free_metric_takes_null_too_and_a_bundle_is_read_to_its_manifest():
    data = _text(ManifestKit(), "/spec/sourceNative/metrics/score", "NaN")
    expected = ["NaN is not JSON; write a number, or null, or leave the field out (the schema "
                "takes all three here)"]
    assert _said(data) == expected
    bundle = b'{"first": ' + data + b"}"
    assert _said(bundle) == expected
    # JSON Lines: the line's own manifest
    line = json.dumps(json.loads(data.replace(b"NaN", b"1"))).replace(
        '"score": 1', '"score": NaN').encode()
    assert _said(line + b"\n", "runs.jsonl") == expected


def test_where_no_manifest_holds_it_the_general_words_stay():
    assert _said(b'{"a": NaN}') == [f"NaN is not JSON; {canonical.NON_FINITE_ADVICE}"]
    assert canonical.NON_FINITE_ADVICE == ("write a number, or null or leave the field out "
                                           "where the schema allows it")


_NEITHER = " (the schema takes neither null nor the value left out here)"


@pytest.mark.parametrize(("where", "advice"), [
    ("/kind", 'write a string, one of "Workload", "BenchmarkProtocol", "ExecutionEnvironment", '
              '"Implementation", "BenchmarkRun"' + _NEITHER),
    ("/apiVersion", 'write "kernelindex.dev/v1alpha1"' + _NEITHER),
    ("/metadata/name", "write a string: a safe, unique-per-kind name: lowercase letters, "
                       "digits, '-' and '.', starting and ending with a letter or digit, at "
                       "most 253 characters" + _NEITHER),
    ("/metadata/title", "write a string, or leave the field out (the schema takes no null "
                        "here)"),
    ("/spec/observedAt", "write a string: RFC 3339 date-time with a time zone, e.g. "
                         "2026-07-10T06:41:58.611Z" + _NEITHER),
    ("/spec/environmentDigest", "write a string: a content digest: 'sha256:' + 64 lowercase "
                                "hex digits of the referenced manifest's canonical "
                                "{apiVersion, kind, spec}" + _NEITHER),
    ("/spec/status", 'write one of "passed", "incorrect", "runtime-error", "compile-error", '
                     '"timeout", "failed"' + _NEITHER)])
def test_r90b_f5_a_field_the_schema_takes_no_number_at_is_told_what_it_takes(where, advice):
    assert _said(_text(ManifestKit(), where, "NaN")) == [f"NaN is not JSON; {advice}"]


def test_r90b_f5_a_metric_its_source_bounds_takes_a_number_in_range_never_null():
    kit = ManifestKit()
    run = kit.run(kit.protocol(), kit.environment(), kit.implementation(), kit.workload(),
                  native={"source": "sol-execbench", "metrics": {"sol_score": 123456789,
                                                                 "speedup": 2}})
    data = json.dumps(run, indent=1).replace("123456789", "Infinity").encode()
    assert _said(data) == [
        "Infinity is not JSON; write a number in [0, 1] (sol-execbench's sol_score: 1 is the "
        "speed-of-light bound, 0.5 the scoring baseline); null or any other value is refused "
        "(KI223 metric-out-of-range)"]
    # a metric no rule bounds keeps the schema's words
    free = json.dumps(run, indent=1).replace('"speedup": 2', '"speedup": NaN').replace(
        "123456789", "0.5").encode()
    assert _said(free) == ["NaN is not JSON; write a number, or null, or leave the field out "
                           "(the schema takes all three here)"]


def test_r90b_f5_a_metric_the_policy_ranks_by_takes_a_number_only(runner, store, tmp_path):
    from kistore.cli import main

    path = tmp_path / "run.json"
    path.write_bytes(_text(ManifestKit(), "/spec/sourceNative/metrics/score", "NaN"))
    free = ("NaN is not JSON; write a number, or null, or leave the field out (the schema "
            "takes all three here)")
    said = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert said.exit_code == 1 and said.stderr.endswith(f"/spec/sourceNative/metrics/score: "
                                                        f"{free}\n"), said.stderr
    policy = store.root / "store/policy/ranking.json"
    policy.write_text(json.dumps({"families": {"synthetic": {
        "comparison": "source-native", "metric": "/sourceNative/metrics/score",
        "order": "descending", "unit": "score"}}}))
    said = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert said.exit_code == 1
    assert said.stderr.endswith(
        "/spec/sourceNative/metrics/score: NaN is not JSON; write a number: the ranking policy "
        "ranks the runs of family synthetic by /sourceNative/metrics/score; a run stating null "
        "or nothing there is not ranked\n"), said.stderr


@pytest.mark.parametrize("bad", ["NaN", "Infinity"])
def test_a_key_the_schema_lacks_is_to_be_removed(bad):
    """fresh95 F10: ``"x": Infinity`` in a run's spec was told "the schema takes all three
    here", and ``"x": 1`` then refused as an unexpected key: the key is to go."""
    said = _said(_text(ManifestKit(), "/spec/x", bad))
    assert said == [f"{bad} is not JSON; remove it: the schema has no field 'x' here (any "
                    "value there is refused as an unexpected key)"]
    # a free map (sourceNative.metrics takes any key) is not so said
    assert "remove it" not in _said(_text(ManifestKit(), "/spec/sourceNative/metrics/new",
                                          bad))[0]
