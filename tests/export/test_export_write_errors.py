"""A file of an export that cannot be written is named by its partition, not a temp path.

The error said pyarrow's ``Failed to open local file '/DIR/.out.partial-XXXX/runs/...'``:
a temporary path the reader never sees, no source or GPU, no run, nothing to do. It names
the partition's values, a run of it, the file as it would be in OUT and what to do, and
nothing is left: OUT absent (full), or as it was (``--since``).
"""

from __future__ import annotations

import errno

from .conftest import cli, duck, export_ok, files

ENOSPC = "[errno 28] No space left on device"


def _disk_full_for(monkeypatch, marker: str) -> None:
    """pyarrow's ParquetWriter fails to open any file whose path holds ``marker``."""
    import pyarrow.parquet as pq

    real = pq.ParquetWriter

    class Full(real):  # type: ignore[misc, valid-type]
        def __init__(self, where, *args, **options):
            if marker in str(where):  # as pyarrow says it: the whole (temporary) path
                raise OSError(errno.ENOSPC, f"Failed to open local file '{where}'. Detail: "
                              f"{ENOSPC}")
            super().__init__(where, *args, **options)

    monkeypatch.setattr(pq, "ParquetWriter", Full)


def _first_run(out, source: str, hardware: str) -> tuple[str, str]:
    [(name, digest)] = duck(out, "SELECT name, digest FROM {runs} WHERE source = "
                                 f"'{source}' AND hardware = '{hardware}' ORDER BY digest "
                                 "LIMIT 1")
    return name, digest


def test_a_parquet_partition_that_cannot_be_written_is_named_with_a_run_of_it(
        runner, fixture, tmp_path, monkeypatch):
    export_ok(runner, fixture.store, tmp_path / "good")
    name, digest = _first_run(tmp_path / "good", "synthetic", "NVIDIA B200")
    _disk_full_for(monkeypatch, "source=synthetic/hardware=NVIDIA B200")
    out = tmp_path / "out"
    result = cli(runner, fixture.store, "export", str(out))
    assert result.exit_code == 1
    assert result.output == (
        f'error: {out}: cannot write the runs of source="synthetic", hardware="NVIDIA B200" '
        f"(among them run {name}, {digest}) as runs/source=synthetic/hardware=NVIDIA B200/"
        "part-00000.parquet: No space left on device; nothing was written to the export "
        "directory: free space or fix the cause (its permissions, a file system that "
        "refuses the name), then export again\n")
    assert ".partial-" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good", "store"]  # no temp left


def test_a_since_export_that_cannot_write_changes_nothing(runner, fixture, kit, tmp_path,
                                                         monkeypatch):
    from ..conftest import add_docs, git

    store = fixture.store
    c1 = git(store.root, "rev-parse", "HEAD").strip()
    out = tmp_path / "out"
    export_ok(runner, store, out)
    before = files(out)
    b200, gemm = kit.environment("NVIDIA B200", name="env-b200"), kit.workload(
        "gemm", name="gemm")
    impl = kit.implementation("proj-w", name="impl-w")
    add_docs(store, [impl, kit.run(kit.protocol("synthetic", name="proto-measured"), b200,
                                   impl, gemm, latency=1, name="b200-w")])
    _disk_full_for(monkeypatch, "part-00001")
    result = cli(runner, store, "export", str(out), "--since", c1)
    assert result.exit_code == 1
    assert result.output.startswith(f"error: {out}: cannot write the ")
    assert "No space left on device; nothing was written to the export directory" \
        in result.output
    assert files(out) == before


def test_a_csv_table_that_cannot_be_written_is_named(runner, fixture, tmp_path,
                                                    monkeypatch):
    from kistore.export import writers

    def refuse(path, *args, **options):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(writers, "open", refuse, raising=False)
    out = tmp_path / "out"
    result = cli(runner, fixture.store, "export", str(out), "--format", "csv")
    assert result.exit_code == 1
    # runs is written first, its rows in (partition, digest) order: b200-b opens the file
    assert result.output == (
        f"error: {out}: cannot write the runs table (among them run b200-b, "
        f"{fixture.digests['b200-b']}) as runs/part-00000.csv: Permission denied; nothing was "
        "written to the export directory: free space or fix the cause (its permissions, a "
        "file system that refuses the name), then export again\n")
    assert not out.exists()


def test_a_long_partition_value_is_quoted_short(runner, store, kit, tmp_path, monkeypatch):
    from .test_export_long_values import PRODUCT_DIR, SOURCE_DIR, long_store

    long_store(store, kit)
    _disk_full_for(monkeypatch, "runs/source=")
    out = tmp_path / "out"
    result = cli(runner, store, "export", str(out))
    assert result.exit_code == 1
    # each value quoted as JSON cut to 56 characters (of 302, 309 with the quotes)
    assert result.output.startswith(
        f'error: {out}: cannot write the runs of source="{"s" * 55}... (302 characters), '
        f'hardware="NVIDIA {"B" * 48}... (309 characters) (among them run long-run, ')
    assert f"as runs/source={SOURCE_DIR}/hardware={PRODUCT_DIR}/part-00000.parquet: No " \
           "space left on device" in result.output
    assert "s" * 100 not in result.output
