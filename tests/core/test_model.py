"""The lean Manifest: bytes, digest, kind, name and references; the document on demand.

A bulk add keeps only what it needs of each manifest (docs/speed.md, fourth pass); the
parsed document is rebuilt from the canonical bytes when someone reads it, and must be
the document that was given (up to the canonical form of its numbers).
"""

from __future__ import annotations

import copy
import marshal

import pytest

from kistore.core import model
from kistore.core.digest import Digest
from kistore.core.errors import InputError
from kistore.core.model import REFERENCE_FIELDS, Manifest

from ..conftest import PUBLISHED


def test_published_record_keeps_its_digests_kinds_names_and_references(bundle):
    run = Manifest.from_document(bundle["run"])
    protocol = Manifest.from_document(bundle["protocol"])
    assert str(run.digest) == PUBLISHED["run"]
    assert str(protocol.digest) == PUBLISHED["protocol"]
    assert (run.kind, run.name) == ("BenchmarkRun", "sol-submission-20464")
    assert protocol.kind == "BenchmarkProtocol"
    assert run.references() == {
        "workloadDigest": Digest.from_str(
            "sha256:d47d94513f5c675b789f3851d7d997fa78b96c7c470a92d881b865eff3f8db68"),
        "protocolDigest": Digest.from_str(PUBLISHED["protocol"]),
        "environmentDigest": Digest.from_str(PUBLISHED["environment"]),
        "implementationDigest": Digest.from_str(
            "sha256:37aa4849b9d6402dab11456373d6cc5cdaa3af49d3f4a10974f6df331158ff9f"),
    }
    assert run.reference_hex == tuple(run.references()[f].hex for f in REFERENCE_FIELDS)
    assert protocol.references() == {} and protocol.reference_hex == ()


def test_document_is_parsed_from_the_canonical_bytes_on_first_use(bundle):
    given = copy.deepcopy(bundle["run"])
    run = Manifest.from_document(given)
    assert run._document is None  # nothing parsed kept: the add path never asks
    given["spec"]["status"] = "failed"  # the caller's dict is not the manifest's
    assert run.document == bundle["run"]
    assert run.spec == bundle["run"]["spec"] and run.metadata == bundle["run"]["metadata"]
    assert run.title == bundle["run"]["metadata"]["title"]
    assert run.document is run.document  # parsed once


def test_document_numbers_come_back_in_canonical_form(kit):
    run = kit.run(kit.protocol(), kit.environment(), kit.implementation(), kit.workload(),
                  latency={"mean": 2.0, "std": 1e-7})  # a spread may be < 1 ns
    manifest = Manifest.from_document(run)
    latency = manifest.spec["timing"]["latencyNs"]
    assert latency == {"mean": 2, "std": 1e-7}
    assert type(latency["mean"]) is int  # 2.0 is written 2 (RFC 8785), and read back so
    assert b'"latencyNs":{"mean":2,"std":1e-7}' in manifest.object_bytes


def test_title_defaults_to_the_name(kit):
    doc = kit.implementation("proj", name="no-title")
    doc["metadata"].pop("title", None)
    assert Manifest.from_document(doc).title == "no-title"


def test_parts_cross_a_process_boundary_unchanged(bundle):
    for doc in bundle.values():
        original = Manifest.from_document(doc)
        again = Manifest.from_parts(*marshal.loads(marshal.dumps(original.to_parts())))
        assert again == original
        assert (again.kind, again.name, again.reference_hex) == (
            original.kind, original.name, original.reference_hex)
        assert again.references() == original.references()
        assert again.document == original.document


def test_references_and_kinds_are_shared_across_manifests(kit):
    protocol, environment = kit.protocol(), kit.environment()
    implementation, workload = kit.implementation(), kit.workload()
    runs = [Manifest.from_document(kit.run(protocol, environment, implementation, workload,
                                           latency=100 + i)) for i in range(3)]
    assert len({r.digest for r in runs}) == 3
    assert all(a is b for a, b in zip(runs[0].reference_hex, runs[2].reference_hex,
                                      strict=True))
    assert runs[0].kind is runs[1].kind is model.KINDS[-1]


def test_a_reference_the_schema_let_through_that_is_no_digest_is_refused(bundle,
                                                                         monkeypatch):
    """The schema's ``$`` would match before a final newline; the digest grammar not."""
    run = copy.deepcopy(bundle["run"])
    run["spec"]["workloadDigest"] += "\n"
    monkeypatch.setattr(model, "check_manifest", lambda document, file=None: [])
    with pytest.raises(InputError) as caught:
        Manifest.from_document(run, file="run.json", pointer="/run")
    assert caught.value.format().startswith("run.json:/run/spec/workloadDigest: not a digest")


def test_read_back_manifest_keeps_its_parsed_document(store, bundle):
    store.add([Manifest.from_document(d) for d in bundle.values()], allow_dangling=True)
    read = store.read(PUBLISHED["run"])
    assert read._document is not None  # a read is for the content: parsed once, kept
    assert read.document == bundle["run"]
    assert read == Manifest.from_document(bundle["run"])


def test_kept_bytes_hold_no_spare_buffer(kit):
    """orjson returns its bytes in a 4 KB buffer; a million manifests kept 8 GB of it."""
    import tracemalloc

    docs = [kit.implementation(f"proj-{i}") for i in range(200)]
    Manifest.from_document(kit.implementation("warm-up"))  # lazy imports are not counted
    tracemalloc.start()
    try:
        kept = [Manifest.from_document(d) for d in docs]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sum(len(m.object_bytes) + len(m.metadata_bytes) for m in kept) < 200 * 300
    assert held < 200 * 1500  # bytes, digest, name and the value itself; not 2 x 4 KB
