"""RunKeys makes each run's key object from its protocol and environment's part, made once.

``verify`` of 100,000 runs made 28,753 key objects from the specs for 48 (protocol,
environment) pairs; :class:`kistore.core.comparison.RunKeys` now makes one per pair with a
stand-in workload and puts each run's workload digest in. Each answer must be
:func:`kistore.core.comparison.run_key_object`'s, whatever the references and specs are.
"""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core.comparison import KEY_FIELDS, RunKeys, run_key_object

_FIELDS = st.sampled_from(KEY_FIELDS)
_WHOLE = {"comparability": {"family": "gemm"}, "measurement": {"primaryStatistic": "mean"}}
_PROTOCOLS = st.one_of(
    st.sampled_from([
        _WHOLE,  # every field known
        {**_WHOLE, "comparability": {"family": "gemm", "keyFields": ["family", "workloadDigest"]}},
        {**_WHOLE, "comparability": {"family": "gemm", "keyFields": ["hardwareProduct"]}},
        {"measurement": {"primaryStatistic": "mean"}},  # no family: no key
        "not an object",  # a spec whose parts are no objects: no key (AttributeError)
        None]),  # not stored
    st.fixed_dictionaries({}, optional={
        "comparability": st.one_of(st.just(7), st.fixed_dictionaries({}, optional={
            "family": st.one_of(st.just("gemm"), st.none(), st.integers(0, 3)),
            "keyFields": st.lists(_FIELDS, unique=True)})),
        "measurement": st.fixed_dictionaries({}, optional={
            "primaryStatistic": st.sampled_from(["mean", "median"])})}))
_ENVIRONMENTS = st.one_of(st.sampled_from([{"hardware": {"product": "H100"}}, None, [1]]),
                          st.fixed_dictionaries({}, optional={
                              "hardware": st.fixed_dictionaries({}, optional={
                                  "product": st.sampled_from(["H100", "B200"])})}))
_WORKLOADS = st.one_of(st.none(), st.sampled_from(["sha256:" + "a" * 64, "sha256:" + "b" * 64]),
                       st.just(12))


def _object(kind: str, spec: object) -> bytes:
    return json.dumps({"kind": kind, "spec": spec}).encode()


@settings(max_examples=300)
@given(st.lists(st.tuples(_WORKLOADS, st.integers(0, 2), st.integers(0, 2), st.booleans()),
                min_size=1, max_size=12),
       st.lists(_PROTOCOLS, min_size=3, max_size=3),
       st.lists(_ENVIRONMENTS, min_size=3, max_size=3))
def test_each_key_object_is_run_key_objects(runs, protocols, environments):
    """Runs sharing a protocol and environment, other workloads: each key as made alone."""
    stored = {}
    for i, (kind, specs) in enumerate((("BenchmarkProtocol", protocols),
                                       ("ExecutionEnvironment", environments))):
        for j, spec in enumerate(specs):
            if spec is not None:
                data = _object(kind, spec) if i == 0 or j != 2 else b"{not json"
                stored[hashlib.sha256(data).hexdigest()] = data
    refs = {"BenchmarkProtocol": [], "ExecutionEnvironment": []}
    for kind, specs in (("BenchmarkProtocol", protocols), ("ExecutionEnvironment", environments)):
        for spec in specs:
            data = _object(kind, spec)
            refs[kind].append("sha256:" + hashlib.sha256(data).hexdigest())
    keys = RunKeys(stored.get)
    alone = RunKeys(stored.get)
    for workload, p, e, without_environment in runs:
        references = {"workloadDigest": workload, "protocolDigest": refs["BenchmarkProtocol"][p],
                      "environmentDigest": refs["ExecutionEnvironment"][e]}
        if without_environment:
            del references["environmentDigest"]
        if workload is None:
            del references["workloadDigest"]
        expected = run_key_object(references, *(
            alone.spec(references[f], kind) if f in references else None
            for f, kind in (("protocolDigest", "BenchmarkProtocol"),
                            ("environmentDigest", "ExecutionEnvironment"))))
        got = keys.key_object(references)
        assert got == expected
        assert got is None or list(got) == list(expected)  # the fields in the key's order


def test_a_key_without_the_workload_is_one_for_the_pair_and_one_with_it_is_each_runs():
    protocol = {"comparability": {"family": "gemm", "keyFields": ["family", "hardwareProduct"]},
                "measurement": {"primaryStatistic": "mean"}}
    widened = {"comparability": {"family": "gemm"}, "measurement": {"primaryStatistic": "mean"}}
    environment = {"hardware": {"product": "H100"}}
    stored = {hashlib.sha256(d).hexdigest(): d for d in (
        _object("BenchmarkProtocol", protocol), _object("BenchmarkProtocol", widened),
        _object("ExecutionEnvironment", environment))}
    p, w, e = ("sha256:" + h for h in stored)
    keys = RunKeys(stored.get)
    one = keys.key_object({"workloadDigest": "sha256:" + "1" * 64, "protocolDigest": p,
                           "environmentDigest": e})
    two = keys.key_object({"workloadDigest": "sha256:" + "2" * 64, "protocolDigest": p,
                           "environmentDigest": e})
    assert one == two == {"family": "gemm", "hardwareProduct": "H100"}
    first = keys.key_object({"workloadDigest": "sha256:" + "1" * 64, "protocolDigest": w,
                             "environmentDigest": e})
    second = keys.key_object({"workloadDigest": "sha256:" + "2" * 64, "protocolDigest": w,
                              "environmentDigest": e})
    assert first == {"family": "gemm", "hardwareProduct": "H100", "primaryStatistic": "mean",
                     "protocolDigest": w, "workloadDigest": "sha256:" + "1" * 64}
    assert second == {**first, "workloadDigest": "sha256:" + "2" * 64}
    assert keys.key_object({"protocolDigest": w, "environmentDigest": e}) is None  # no workload
