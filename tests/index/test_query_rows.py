"""The compact index format (query/rows.py): the same answers as before, documents exact.

``tests/vectors/index-answers-n400.json`` holds the answers of the index format before
this one (``kistore-index-2``, main at d2b9fb2) on the 400-manifest store
``bench.generate`` makes with its default seed: every record's fields (its spec as a
hash of its JSON, so key order counts), every comparison group ranked with every row,
listings by kind, hardware and workload, and ``compare`` of ten runs. It was written by
:func:`collect` run with that version's code (``PYTHONPATH=<main's tree> python -m
tests.index.test_query_rows OUT``). The compact format must give exactly the same. Run
names were rewritten since (``run-0000042`` -> ``sol-submission-20042``), as the generator
names runs now that a name must agree with its external id (KI209); order is unchanged.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path

import pytest

from bench.generate import manifests
from kistore.core import canonical, layout
from kistore.core.digest import Digest, is_digest
from kistore.index import _database as database
from kistore.index.catalog import MemoryCatalog
from kistore.index.index import Index, open_catalog
from kistore.query.answers import list_manifests, rank
from kistore.query.page import compare

from ..conftest import VECTORS, add_docs

GOLDEN = VECTORS / "index-answers-n400.json"


def _hash(value):
    """16 hex of the SHA-256 of ``value``'s JSON in its own key order (order counts)."""
    return hashlib.sha256(json.dumps(value).encode()).hexdigest()[:16]


def _short(value):
    """``value`` with every full digest cut to ``sha256:`` + 16 hex (a smaller golden file)."""
    if isinstance(value, dict):
        return {_short(k): _short(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_short(v) for v in value]
    if isinstance(value, str) and is_digest(value):
        return value[:23]
    return value


def _record(r):
    return [r.digest, r.kind, r.name, r.workload, r.hardware, r.protocol, r.environment,
            r.implementation, r.comparison_key, _hash(r.key_object), r.family, r.statistic,
            r.role, r.project, r.status, _hash(r.spec)]


def _row(row):
    return [row.record.digest, row.rank, row.value, row.unit, row.reason, row.latency_ns,
            row.evidence.level]


def collect(store, at=None):
    """Every answer the golden file holds, from the public query calls (JSON-ready)."""
    records = list_manifests(store, at=at)
    out = {"records": [_record(r) for r in records], "groups": {}, "by": {}, "compare": []}
    firsts = {}
    for r in records:
        if r.comparison_key is not None:
            firsts.setdefault(r.comparison_key, r.digest)
    runs = []  # the last ranked run of groups with two or more, to compare with #1
    for key, first in sorted(firsts.items()):
        record, ranking = rank(store, first, at=at)
        out["groups"][key] = {"size": ranking.group_size, "comparison": ranking.comparison.name,
                              "rows": [_row(row) for row in ranking.rows(include_excluded=True)]}
        if ranking.group_size >= 2:
            runs.append(ranking.ranked[-1].record.digest)
    for kind in sorted({r.kind for r in records}):
        out["by"][f"kind={kind}"] = [r.digest for r in list_manifests(store, kind=kind, at=at)]
    for product in sorted({r.hardware for r in records if r.hardware}):
        out["by"][f"hardware={product}"] = [
            r.digest for r in list_manifests(store, hardware=product, at=at)]
    for workload in sorted({r.digest for r in records if r.kind == "Workload"}):
        out["by"][f"workload={workload}"] = [
            r.digest for r in list_manifests(store, workload=workload, at=at)]
    out["compare"] = [compare(store, d, at=at).to_json() for d in runs[:10]]
    return _short(json.loads(json.dumps(out)))


def generated_store(path):
    from kistore.core.model import Manifest
    from kistore.store import Store

    store = Store.init(path)
    workloads: list[str] = []
    documents = []
    for document in manifests(400):
        if document["kind"] == "Workload":
            workloads.append(str(Manifest.from_document(document).digest))
        documents.append(_as_when_written(document, workloads))
    with pytest.MonkeyPatch.context() as patch:  # the boards as written then (KI238's)
        patch.setattr("kistore.store.boards.boards_admitted", lambda *a: [])
        add_docs(store, documents)
    return store


def _as_when_written(document, workloads):
    """The generator's document as it was when the golden file was written.

    Since 2026-12-02 each generated run states its protocol's primary statistic (KI218:
    flashinfer's protocol measures the median); the golden answers are of runs that all
    said ``mean``, and the generator draws the same numbers either way. Since 2026-12-04
    each run states its workload's definition as its ``sourceNative.benchmark`` (KI238);
    the golden runs said ``w`` and the workload's index (``workloads``: each workload's
    digest, in the generator's order).
    """
    if document["kind"] == "BenchmarkRun":
        document["spec"]["timing"]["primaryStatistic"] = "mean"
        index = workloads.index(document["spec"]["workloadDigest"])
        document["spec"]["sourceNative"]["benchmark"] = f"w{index:06d}"
    return document


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return generated_store(tmp_path_factory.mktemp("n400") / "store")


@pytest.mark.parametrize("at", [None, "HEAD"])
def test_compact_index_answers_exactly_as_the_format_before(generated, at):
    golden = json.loads(GOLDEN.read_text())
    assert collect(generated, at) == golden


def test_golden_answers_are_hand_checkable(generated):
    """Spot checks of the golden file by hand: ranks follow mean latency, lower first."""
    golden = json.loads(GOLDEN.read_text())
    assert len(golden["records"]) == 400
    for group in golden["groups"].values():
        ranked = [row for row in group["rows"] if row[1] is not None]
        assert len(ranked) == group["size"]
        values = [row[2] for row in ranked]
        assert values == sorted(values)  # measured, lower first (ties share a rank)
        expected, previous = [], None
        for i, value in enumerate(values, start=1):
            expected.append(expected[-1] if value == previous else i)
            previous = value
        assert [row[1] for row in ranked] == expected


def test_a_scan_answers_as_the_index(generated):
    catalog = MemoryCatalog.from_view(generated.view("HEAD"))
    assert [_record(r) for r in catalog.records()] == \
        [_record(r) for r in open_catalog(generated, "HEAD").records()]


def test_every_record_reads_back_as_the_canonical_bytes_it_was_made_from(generated):
    catalog = open_catalog(generated, "HEAD")
    records = catalog.records()
    assert len(records) == 400
    for r in records:
        data = (generated.root / layout.object_path(Digest.from_str(r.digest))).read_bytes()
        assert catalog.document(r.digest) == data, r.digest
        assert r.spec == canonical.loads(data)["spec"]
        assert list(r.spec) == list(canonical.loads(data)["spec"])  # key order too


def test_a_run_with_unusual_spec_keys_reads_back_exactly(store, kit):
    """Keys that sort differently by UTF-16 code units than by code points, a reference
    digest placed among them, and another apiVersion all come back as they were."""
    from kistore.index import _rows as rows

    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("p")
    run = kit.run(protocol, env, impl, workload, latency=5, name="odd")
    document = {"apiVersion": run["apiVersion"], "kind": run["kind"], "spec": run["spec"]}
    stored = rows.stored_document("BenchmarkRun", document)
    assert b"sha256:" not in stored  # the four reference digests live in the row
    assert b"kernelindex.dev" not in stored and b"BenchmarkRun" not in stored
    add_docs(store, [protocol, env, workload, impl, run])
    catalog = open_catalog(store, "HEAD")
    digest = kit.digest(run)
    assert catalog.document(digest) == canonical.dumps(document)
    # parsed from canonical bytes, as the build parses: keys in RFC 8785 order (UTF-16
    # code units: U+1F600 is D83D DE00, before U+FF61), which code-point order reverses
    other = canonical.loads(canonical.dumps({
        "apiVersion": "example.org/v9", "kind": "BenchmarkRun",
        "spec": {"\uff61": 2, "\U0001f600": 1, "workloadDigest": kit.digest(workload)}}))
    assert list(other["spec"]) == ["workloadDigest", "\U0001f600", "\uff61"]
    conn = sqlite3.connect(":memory:")
    for table in rows.TABLES:
        conn.execute(database.TABLES[table])
    raw = bytes.fromhex(kit.digest(workload)[7:])
    conn.execute("INSERT INTO digests VALUES (7, ?, ?)", (raw, database.seal((7, raw))))
    codec = rows.Codec(conn, b"")
    row = (bytes(32), rows.RUN, "x", codec.compress(rows.stored_document("BenchmarkRun", other)),
           7, None, None, None, None, None, None, None)
    row = (*row, rows.record_seal(row))
    assert codec.document_bytes(row) == canonical.dumps(other)
    assert list(codec.decode_all([row])[0].spec) == list(other["spec"])


def test_digests_are_stored_once_as_32_bytes_and_rows_hold_ids(generated):
    from kistore.index import _rows as rows

    open_catalog(generated, "HEAD")
    conn = sqlite3.connect(database.index_path(generated.git_dir))
    (count, width, distinct) = conn.execute(
        "SELECT count(*), max(length(digest)), count(DISTINCT digest) FROM digests").fetchone()
    assert width == 32 and count == distinct
    run_rows, keys = conn.execute("SELECT count(*), count(DISTINCT key) FROM records "
                                  "WHERE kind = ?", (rows.RUN,)).fetchone()
    assert conn.execute("SELECT count(*) FROM keys").fetchone()[0] == keys < run_rows
    assert conn.execute("SELECT typeof(workload), typeof(protocol) FROM records WHERE kind = ? "
                        "LIMIT 1", (rows.RUN,)).fetchone() == ("integer", "integer")


def test_a_damaged_row_rebuilds_the_index(generated):
    before = [_record(r) for r in open_catalog(generated, "HEAD").records()]
    conn = sqlite3.connect(database.index_path(generated.git_dir))
    with conn:
        conn.execute("UPDATE records SET document = x'00ff'")
    conn.close()
    assert [_record(r) for r in open_catalog(generated, "HEAD").records()] == before


def test_the_dictionary_is_sampled_once_and_kept_by_incremental_updates(store, kit):
    from kistore.index import _rows as rows

    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    add_docs(store, [protocol, env, workload])
    open_catalog(store, "HEAD")
    conn = Index(store).open()
    first = conn.execute("SELECT bytes FROM dictionary").fetchone()[0]
    assert 0 < len(first) <= rows.DICTIONARY_SIZE
    impl = kit.implementation("p")
    add_docs(store, [impl, kit.run(protocol, env, impl, workload, latency=3, name="r")])
    assert [r.name for r in open_catalog(store, "HEAD").records(kind="BenchmarkRun")] == ["r"]
    assert conn.execute("SELECT bytes FROM dictionary").fetchall() == [(first,)]


if __name__ == "__main__":  # write the golden file with whatever kistore is importable
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        answers = collect(generated_store(Path(tmp) / "store"))
    Path(sys.argv[1]).write_text(json.dumps(answers, indent=0, sort_keys=True) + "\n")
