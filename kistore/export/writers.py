"""Writing one table's sorted rows as Parquet, CSV or JSON Lines files.

Every writer takes the staged rows of one table in (partition, sort key) order
(:meth:`kistore.export.scratch.Scratch.rows`) and writes one file per partition (Parquet)
or one file (CSV, JSON Lines) for the export's generation, holding at most one row group of
rows in memory. Output is a pure function of the rows: the same rows give the same bytes.

* **Parquet** (pyarrow, the ``export`` extra): Hive-style partition directories
  (``runs/source=kernelbench/hardware=NVIDIA H100 PCIe/part-00000.parquet``), partition
  columns only in the path; row groups of :data:`ROW_GROUP_ROWS` rows, each built from
  Arrow chunks of :data:`CHUNK_ROWS` converted rows; zstd; the writer
  options pinned (:data:`PARQUET_OPTIONS`). pyarrow writes no time into a file; its
  ``created_by`` names the pyarrow version, so byte-identical output needs the same
  pyarrow (``_manifest.json`` records it).
* **CSV** (stdlib :mod:`csv`): one header line, ``latencyNs.<statistic>`` flattened into
  columns, ``sourceNative`` one column of RFC 8785 JSON text (:func:`metrics_text`), null as
  an empty field, booleans ``true``/``false``, numbers as JSON writes them.
* **JSON Lines** (orjson): one object a line, keys in column order, nulls kept; a metric
  key that differs only in case from another is written under a distinct name
  (:attr:`Shape.renamed`, :func:`kistore.export.columns.metric_names`).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import itertools
import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from ..core import canonical
from ..core.errors import CanonicalFormError, KistoreError, one_line, shorten
from ..core.times import parse_rfc3339
from .columns import LATENCY, METRICS, TIMESTAMP, Table, arrow_type
from .rows import partition_value

FORMATS = ("parquet", "jsonl", "csv")
"""File formats ``kistore export`` writes."""

ROW_GROUP_ROWS = {"runs": 32_768, "groups": 32_768, "attestations": 32_768,
                  "manifests": 4_096}
"""Rows per Parquet row group (the last of a file holds the rest). A row group is the unit
engines read in parallel and skip by statistics; ``manifests`` rows carry whole objects,
so theirs are smaller. Fixed, so output does not depend on memory or timing."""

CHUNK_ROWS = 4096
"""Rows converted from Python to Arrow at a time: a row group is built from such chunks, so
Python holds at most this many rows and Arrow one row group (compact) while writing."""

PARQUET_OPTIONS: dict[str, Any] = {
    "version": "2.6", "compression": "zstd", "compression_level": 3, "use_dictionary": True,
    "write_statistics": True, "data_page_size": 1 << 20, "store_schema": True,
}
"""Every ``pyarrow.parquet.ParquetWriter`` option that shapes the bytes, pinned."""


@dataclass(frozen=True, slots=True)
class Written:
    """One file an export wrote.

    Attributes:
        path: its path relative to the export directory (``/``-separated).
        table: the table it holds rows of.
        rows: how many.
        sha256: the hex SHA-256 of its bytes.
    """

    path: str
    table: str
    rows: int
    sha256: str

    def to_json(self, generation: int) -> dict[str, Any]:
        """Return the file's ``_manifest.json`` entry."""
        return {"path": self.path, "table": self.table, "generation": generation,
                "rows": self.rows, "sha256": self.sha256}


@dataclass(frozen=True, slots=True)
class Shape:
    """What of the files depends on the data: latency statistics, metric and partition names.

    No column depends on the metric keys a run states (review r85 F18: one run's 9,000 keys
    made every CSV row 9,065 columns wide): CSV writes ``sourceNative`` as one JSON column.

    Attributes:
        statistics: the ``latencyNs`` fields (every statistic a run of the export states),
            in :func:`kistore.export.columns.statistic_order`: at most 106 (the schema's
            six named ones and ``p0`` to ``p99``).
        renamed: the metric keys JSON Lines writes under another name, and that name
            (:func:`kistore.export.columns.metric_names`: keys that differ only in case).
        partitions: Parquet: per table, per partition column, the values written under a
            case-distinct directory name, and that name
            (:func:`kistore.export.rows.partition_names`).
    """

    statistics: tuple[str, ...]
    renamed: dict[str, str] = field(default_factory=dict)
    partitions: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)

    def directory(self, table: str, part: str) -> str:
        """Return a staged partition (``source=x/hardware=y``) as its directory in the export.

        Each ``column=name`` whose value :attr:`partitions` names otherwise is written
        ``column=<that name>``; the others as staged (:func:`kistore.export.rows.partition`).
        """
        moved = {f"{column}={partition_value(value)}": f"{column}={name}"
                 for column, names in self.partitions.get(table, {}).items()
                 for value, name in names.items()}
        return "/".join(moved.get(c, c) for c in part.split("/")) if moved else part


def write_table(root: Path, table: Table, rows: Iterable[tuple[str, list[Any], bytes]],
                fmt: str, generation: int, shape: Shape) -> list[Written]:
    """Write one table's rows under ``root/<table>/``.

    Args:
        root: the export directory being written.
        table: the table.
        rows: ``(partition, staged row, fingerprint)`` in partition then sort order.
        fmt: ``parquet``, ``csv`` or ``jsonl``.
        generation: the export's generation (file names, and the ``generation`` column).
        shape: the data-dependent columns.

    Returns:
        The files written, in path order. A table with no rows gets none, except an
        unpartitioned table (``groups``, ``attestations``) in a full export (``generation``
        0), which gets one file of no rows: its columns are there for a query to read
        (``read_parquet('OUT/attestations/*.parquet')`` in docs/export.md would fail on a
        store with no attestations, reviewer r83 F14).

    Raises:
        ModuleNotFoundError: ``parquet`` without pyarrow installed.
        PartitionWriteError: a file could not be written (disk full, permissions): it
            names the partition and a row of it, not the temporary path.
    """
    at = table.index("generation")
    staged = ((part, [*row[:at], generation, *row[at + 1:]]) for part, row, _ in rows)
    always = generation == 0 and not table.partition  # a file even of no rows
    if fmt == "parquet":
        return _parquet(root, table, staged, generation, shape, always)
    name = f"{table.name}/part-{generation:05d}.{fmt}"
    return _text(root, name, table, staged, fmt, shape, always)


def _parquet(root: Path, table: Table, rows: Iterator[tuple[str, list[Any]]], generation: int,
             shape: Shape, always: bool = False) -> list[Written]:
    # Lazy: pyarrow is optional (the `export` extra); CSV and JSON Lines need none.
    import pyarrow as pa
    import pyarrow.parquet as pq

    kept = [i for i, c in enumerate(table.columns) if c.name not in table.partition]
    columns = [table.columns[i] for i in kept]
    schema = pa.schema([(c.name, arrow_type(c, list(shape.statistics))) for c in columns])
    size = ROW_GROUP_ROWS[table.name]
    chunk = math.gcd(size, CHUNK_ROWS)  # a row group is a whole number of chunks
    # the C library's allocator: pyarrow's default (mimalloc) kept every freed row group
    # mapped (anonymous memory at 100,000 manifests: 185 MB against 115 MB)
    pool = pa.system_memory_pool()
    written: list[Written] = []
    first_row = next(rows, None)
    if first_row is None:
        if always:
            rel = f"{table.name}/part-{generation:05d}.parquet"
            try:
                (root / table.name).mkdir(parents=True, exist_ok=True)
                pq.write_table(schema.empty_table(), root / rel, **PARQUET_OPTIONS)
            except OSError as e:
                raise PartitionWriteError(_cannot_write(table, rel, None, e, root)) from e
            written.append(Written(rel, table.name, 0, file_sha256(root / rel)))
        return written
    for part, group in _by_partition(_chain(first_row, rows)):
        rel = "/".join(p for p in (table.name, shape.directory(table.name, part),
                                   f"part-{generation:05d}.parquet") if p)
        path = root / rel
        first = next(group)
        count = 0
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with pq.ParquetWriter(path, schema, memory_pool=pool, **PARQUET_OPTIONS) as writer:
                pending: list[Any] = []  # Arrow record batches of the row group being built
                for batch in _batches(_chain(first, group), chunk):
                    arrays = [pa.array(_arrow_column(c, [row[i] for row in batch], shape),
                                       type=schema.field(c.name).type, memory_pool=pool)
                              for c, i in zip(columns, kept, strict=True)]
                    pending.append(pa.RecordBatch.from_arrays(arrays, schema=schema))
                    count += len(batch)
                    if count % size == 0:
                        writer.write_table(pa.Table.from_batches(pending, schema),
                                           row_group_size=size)
                        pending = []
                if pending:
                    writer.write_table(pa.Table.from_batches(pending, schema),
                                       row_group_size=size)
            written.append(Written(rel, table.name, count, file_sha256(path)))
        except OSError as e:
            raise PartitionWriteError(_cannot_write(table, rel, first, e, root)) from e
    return written


class PartitionWriteError(KistoreError):
    """A file of an export could not be written (disk full, permissions, a refused name).

    Its message names the table's partition (``source=..., hardware=...``), one row of it
    (a run's digest and name) and the file as it would be in the export directory, never
    the temporary directory it was being written in.
    """


def _cannot_write(table: Table, rel: str, row: list[Any] | None, e: OSError, root: Path
                  ) -> str:
    """Say which partition (and which row of it) a failed write was for, and what to do.

    Args:
        table: the table being written.
        rel: the file's path in the export directory.
        row: the partition's first staged row (None: a table of no rows).
        e: the failure; its system message is said without the temporary path.
        root: the temporary directory written in.

    Returns:
        One line for :class:`PartitionWriteError`.
    """
    if row is None:
        row, table = [], replace(table, partition=())
    values = ", ".join(f"{c}={_quoted(row[table.index(c)])}" for c in table.partition)
    where = f"the {table.name} of {values}" if values else f"the {table.name} table"
    names = [str(row[table.index(c)]) for c in ("name", "digest") if c in table.names and row]
    one = f" (among them {table.name.rstrip('s')} {', '.join(names)})" if names else ""
    why = os.strerror(e.errno) if e.errno else str(e).replace(f"{root}{os.sep}", "")
    return one_line(
        f"cannot write {where}{one} as {rel}: {why}; nothing was written to the export "
        "directory: free space or fix the cause (its permissions, a file system that "
        "refuses the name), then export again", escaped=True)  # values as JSON


def _quoted(value: Any) -> str:
    """Return a partition value as JSON, shortened past 80 characters (sources are uncapped)."""
    return "null" if value is None else shorten(json.dumps(value, ensure_ascii=False))


def _arrow_column(column: Any, values: list[Any], shape: Shape) -> list[Any]:
    """Return a column's staged values as pyarrow takes them for its type."""
    if column.type == TIMESTAMP:
        return [None if v is None else parse_time(v) for v in values]
    if column.type == LATENCY:
        return [None if v is None else {s: v.get(s) for s in shape.statistics}
                for v in values]
    if column.type == METRICS:
        return [None if v is None else list(v.items()) for v in values]
    return values


def parse_time(text: str) -> dt.datetime | None:
    """Return an RFC 3339 date-time as an aware UTC datetime (microseconds), or None.

    :func:`kistore.core.times.parse_rfc3339`, converted to UTC. None for what Python
    cannot represent (a leap second ``:60``; an instant whose UTC year is past 9999 or
    before 1, ``9999-12-31T23:59:59-12:00``, which RFC 3339 and the schema admit: review
    r78 F4 stopped every Parquet export with it); the text stays in the ``manifests``
    table's ``object``.
    """
    when = parse_rfc3339(text)
    try:
        return None if when is None else when.astimezone(dt.UTC)
    except OverflowError:
        return None


def _text(root: Path, rel: str, table: Table, rows: Iterator[tuple[str, list[Any]]],
          fmt: str, shape: Shape, always: bool = False) -> list[Written]:
    first = next(rows, None)
    if first is None and not always:
        return []
    path = root / rel
    count = 0
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            if fmt == "csv":
                out = csv.writer(f, lineterminator="\n")
                out.writerow(_csv_header(table, shape))
            if first is None:  # a table of no rows: its header (CSV) or an empty file
                return [Written(rel, table.name, 0, file_sha256(path))]
            for _, row in _chain(first, rows):
                if fmt == "csv":
                    out.writerow(_csv_cells(table, row, shape))
                else:
                    f.write(orjson.dumps(_json_row(table, row, shape)).decode() + "\n")
                count += 1
        return [Written(rel, table.name, count, file_sha256(path))]
    except OSError as e:  # one file a table: no partition to name
        raise PartitionWriteError(_cannot_write(
            replace(table, partition=()), rel, first[1] if first else None, e, root)) from e


def _json_row(table: Table, row: list[Any], shape: Shape) -> dict[str, Any]:
    """Return a staged row as its JSON Lines object: metric keys as ``shape.renamed`` says."""
    values = dict(zip(table.names, row, strict=True))
    if shape.renamed:
        for c in table.columns:
            if c.type == METRICS and isinstance(values[c.name], dict):
                values[c.name] = {shape.renamed.get(k, k): v
                                  for k, v in values[c.name].items()}
    return values


def _csv_header(table: Table, shape: Shape) -> list[str]:
    header = []
    for c in table.columns:
        if c.type == LATENCY:
            header += [f"{c.name}.{s}" for s in shape.statistics]
        else:
            header.append(c.name)
    return header


def _csv_cells(table: Table, row: list[Any], shape: Shape) -> list[str]:
    cells: list[str] = []
    for c, value in zip(table.columns, row, strict=True):
        if c.type == LATENCY:
            cells += [_cell((value or {}).get(s)) for s in shape.statistics]
        elif c.type == METRICS:
            cells.append("" if value is None else metrics_text(value))
        else:
            cells.append(_cell(value))
    return cells


def metrics_text(metrics: dict[str, Any]) -> str:
    """Return a run's metrics as its CSV ``sourceNative`` cell: RFC 8785 JSON text.

    Keys as the run states them (none renamed: JSON text holds case-distinct keys apart),
    sorted as RFC 8785 sorts them, numbers in its form (``{"sol_score":0.75}``); a stored
    object committed past the hooks may hold a number RFC 8785 has no form for (an integer
    past 2**53 - 1): such metrics are written by :func:`json.dumps` with sorted keys.

    Args:
        metrics: metric name -> number (the staged ``sourceNative``).

    Returns:
        The JSON text (``{}`` for a run with no numeric metric).
    """
    try:
        return canonical.dumps(metrics).decode("utf-8")
    except CanonicalFormError:
        return json.dumps(metrics, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode()  # numbers as JSON writes them; true/false


def _by_partition(rows: Iterator[tuple[str, list[Any]]]
                  ) -> Iterator[tuple[str, Iterator[list[Any]]]]:
    """Split sorted rows into runs of one partition each (consumed one after another)."""
    for part, group in itertools.groupby(rows, key=lambda item: item[0]):
        yield part, (row for _, row in group)


def _batches(rows: Iterator[list[Any]], size: int) -> Iterator[list[list[Any]]]:
    batch: list[list[Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def file_sha256(path: Path) -> str:
    """Return the hex SHA-256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
