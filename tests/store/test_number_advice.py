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
