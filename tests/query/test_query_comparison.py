"""Comparison keys: the documented key object, its test vector, and who is comparable."""

from __future__ import annotations

import hashlib

from kistore.core import canonical
from kistore.core.comparison import KEY_FIELDS, comparison_key, key_object
from kistore.index.index import open_catalog

from ..conftest import PUBLISHED, add_docs

# Worked test vector (docs/queries.md): the published record's key object, by hand.
VECTOR_BYTES = (
    b'{"family":"sol_execbench_leaderboard","hardwareProduct":"NVIDIA B200",'
    b'"primaryStatistic":"mean",'
    b'"protocolDigest":"sha256:6383f62490dad270ad2146a94f67b48fba5cfcbc0b9b180f02665c69cc4433a0",'
    b'"workloadDigest":"sha256:d47d94513f5c675b789f3851d7d997fa78b96c7c470a92d881b865eff3f8db68"}'
)
# printf '%s' "$VECTOR_BYTES" | sha256sum
VECTOR_KEY = "sha256:4f11a075d5d6ead9ab4575cbda943a6c14e9c4fcd86f5fb43e3c0d7b06f03df8"


def test_key_object_of_published_record_matches_hand_written_vector(bundle):
    obj = key_object(bundle["run"]["spec"], bundle["protocol"]["spec"],
                     bundle["environment"]["spec"])
    assert canonical.dumps(obj) == VECTOR_BYTES
    assert "sha256:" + hashlib.sha256(VECTOR_BYTES).hexdigest() == VECTOR_KEY
    assert str(comparison_key(obj)) == VECTOR_KEY


def test_stored_published_run_carries_the_vector_key(store, bundle):
    add_docs(store, list(bundle.values()), allow_dangling=True)
    record = open_catalog(store).record(PUBLISHED["run"])
    assert record.comparison_key == VECTOR_KEY
    assert record.key_object == canonical.loads(VECTOR_BYTES)


def _key(kit, protocol, env, workload):
    impl = kit.implementation()
    run = kit.run(protocol, env, impl, workload, latency=1000)
    obj = key_object(run["spec"], protocol["spec"], env["spec"])
    return str(comparison_key(obj))


def test_same_gpu_other_software_shares_key(kit):
    protocol, workload = kit.protocol(), kit.workload()
    old = kit.environment("NVIDIA H100", driver="535.00")
    new = kit.environment("NVIDIA H100", driver="560.00")
    assert _key(kit, protocol, old, workload) == _key(kit, protocol, new, workload)


def test_other_gpu_other_workload_other_protocol_do_not_share_key(kit):
    protocol, workload, env = kit.protocol(), kit.workload(), kit.environment("NVIDIA H100")
    base = _key(kit, protocol, env, workload)
    assert _key(kit, protocol, kit.environment("NVIDIA B200"), workload) != base
    assert _key(kit, protocol, env, kit.workload("softmax")) != base
    assert _key(kit, kit.protocol(version="2"), env, workload) != base
    assert _key(kit, kit.protocol(statistic="median"), env, workload) != base


def test_key_fields_widen_across_protocol_versions(kit):
    fields = ["family", "hardwareProduct", "primaryStatistic", "workloadDigest"]
    v1, v2 = kit.protocol(version="1", key_fields=fields), kit.protocol(version="2",
                                                                        key_fields=fields)
    env, workload = kit.environment(), kit.workload()
    assert _key(kit, v1, env, workload) == _key(kit, v2, env, workload)
    run = kit.run(v1, env, kit.implementation(), workload)
    assert list(key_object(run["spec"], v1["spec"], env["spec"])) == fields


def test_key_fields_narrow_drops_hardware(kit):
    protocol = kit.protocol(key_fields=["family", "primaryStatistic", "workloadDigest"])
    workload = kit.workload()
    assert _key(kit, protocol, kit.environment("NVIDIA H100"), workload) == \
        _key(kit, protocol, kit.environment("AMD MI300X"), workload)


def test_missing_protocol_or_environment_gives_no_key(kit):
    protocol, env = kit.protocol(), kit.environment()
    run = kit.run(protocol, env, kit.implementation(), kit.workload())
    assert key_object(run["spec"], None, env["spec"]) is None
    assert key_object(run["spec"], protocol["spec"], None) is None
    assert KEY_FIELDS == tuple(sorted(KEY_FIELDS))  # the documented, canonical order
