"""``reindex --check`` of the query rows: the kept ``records`` rows against a fresh build's.

Reads each file's ``records`` rows with their listing columns (:data:`_KEPT_RECORDS`),
checks the kept ones against their seals, and compares them with the fresh build's by
what they decode to (:func:`compare_records`); :mod:`.agree` calls it and says what the
differences are. Reads both files, writes neither.
"""

from __future__ import annotations

import sqlite3
import zlib
from typing import Any

from . import _rows as rows
from ._agree_difference import Difference, text
from ._database import Damaged, seal
from .records import Record

_UNREADABLE = (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error)
"""What decoding a row of the kept file may raise (a damaged or edited row)."""

_CHUNK = 500
"""Rows decoded at a time; a chunk that fails is decoded row by row, to name the row."""


_KEPT_RECORDS = ("SELECT r.id, d.digest, r.kind, r.name, r.document, r.workload, r.hardware, "
                 "r.protocol, r.environment, r.implementation, r.key, r.role, r.project, "
                 "r.seal, r.lseal, r.digest FROM records r LEFT JOIN digests d ON d.id = r.id "
                 "ORDER BY r.id")
"""Every ``records`` row: its id, the :data:`._rows.SELECT` columns, its listing seal and
its own digest's bytes as the listing reads them (a row without a ``digests`` row too)."""


def compare_records(kept: sqlite3.Connection, fresh: sqlite3.Connection, behind: bool
                    ) -> tuple[list[Difference], int]:
    """Return the differences between two files' query rows, and how many the fresh one has.

    With one compression dictionary on both sides (a kept index built from the same
    manifests sampled it alike), a row whose stored values, with every id resolved to
    what it names, equal the fresh row's decodes to the same record: it is only checked
    against its seals, not decoded (a decode is ~60 us a row: 1.2 s of each side at
    20,000). The rest, and every row when the dictionaries differ, are decoded and
    compared field by field.
    """
    try:
        kept_rows, kept_dictionary = _raw_rows(kept, check=True)
    except _UNREADABLE as e:
        return [Difference("records", "dictionary", "", "seal", text(str(e)), None,
                           False)], 0
    fresh_rows, fresh_dictionary = _raw_rows(fresh, check=False)
    agreed: set[bytes] = set()
    if kept_dictionary == fresh_dictionary:
        ours = _resolved(fresh, fresh_rows, check=False)
        theirs = _resolved(kept, kept_rows, check=True)
        agreed = {d for d, v in theirs.items() if ours.get(d) == v}
    kept_records, untrusted = _records(kept, kept_dictionary,
                                       [r for r in kept_rows if r[1] not in agreed])
    fresh_records, _ = _records(fresh, fresh_dictionary,
                                [r for r in fresh_rows if r[1] not in agreed])
    return untrusted + _records_differ(kept_records, fresh_records, behind), len(fresh_rows)


def _raw_rows(conn: sqlite3.Connection, *, check: bool
              ) -> tuple[list[tuple[Any, ...]], bytes]:
    """Return a file's ``records`` rows (:data:`_KEPT_RECORDS`) and its dictionary.

    Raises:
        Damaged: ``check``, and the dictionary does not match its seal.
        sqlite3.Error: a table cannot be read.
    """
    found = conn.execute("SELECT id, bytes, seal FROM dictionary WHERE id = 1").fetchone()
    if check and found is not None and found[2] != seal(found[:2]):
        raise Damaged("the compression dictionary does not match its seal")
    return conn.execute(_KEPT_RECORDS).fetchall(), found[1] if found is not None else b""


def _resolved(conn: sqlite3.Connection, listed: list[tuple[Any, ...]], *, check: bool
              ) -> dict[bytes, tuple[Any, ...]]:
    """Return each row's stored values with its ids resolved, by its digest's bytes.

    ``check``: only rows that match both seals, whose ids resolve through ``digests`` and
    ``keys`` rows that match theirs (any other is left to :func:`_records`, which says
    why).
    """
    digests = {n: d for n, d, sealed in conn.execute("SELECT id, digest, seal FROM digests")
               if not check or sealed == seal((n, d))}
    keys = {}
    for n, key, obj, family, statistic, sealed in conn.execute(
            "SELECT id, key, object, family, statistic, seal FROM keys"):
        if (not check or sealed == seal((n, key, obj, family, statistic))) and \
                (key is None or key in digests):
            keys[n] = (None if key is None else digests[key], obj, family, statistic)
    out = {}
    for row in listed:
        ids = (row[5], row[7], row[8], row[9])
        if any(n is not None and n not in digests for n in ids) or \
                (row[10] is not None and row[10] not in keys):
            continue
        if check and (_row_problem(row) is not None or
                      rows.record_seal(row[1:13]) != row[13]):
            continue
        out[row[1]] = (row[2], row[3], row[4], row[6], row[11], row[12],
                       *(None if n is None else digests[n] for n in ids),
                       None if row[10] is None else keys[row[10]])
    return out


def _records(conn: sqlite3.Connection, dictionary: bytes, listed: list[tuple[Any, ...]]
             ) -> tuple[dict[str, Record], list[Difference]]:
    """Return the records rows decode to, and the rows that cannot be trusted.

    Args:
        conn: the file.
        dictionary: its compression dictionary (checked against its seal already).
        listed: :data:`_KEPT_RECORDS` rows.
    """
    bad: list[Difference] = []
    codec = rows.Codec(conn, dictionary)
    records: dict[str, Record] = {}
    for start in range(0, len(listed), _CHUNK):
        chunk = listed[start:start + _CHUNK]
        try:
            decoded = codec.decode_all([row[1:14] for row in chunk])
        except _UNREADABLE:
            decoded = None
        for i, row in enumerate(chunk):
            record = decoded[i] if decoded is not None else None
            problem = _row_problem(row)
            if problem is None and record is None:
                try:
                    record = codec.decode_all([row[1:14]])[0]
                except _UNREADABLE as e:
                    problem = str(e)
            if problem is not None or record is None:
                digest = f"sha256:{row[1].hex()}" if isinstance(row[1], bytes) \
                    else f"row {row[0]}"
                kind = rows._KIND_NAMES.get(row[2], row[2])
                bad.append(Difference("records", digest, f"{kind}/{row[3]}", "seal",
                                      text(problem), None, False))
            else:
                records[record.digest] = record
    return records, bad


def _row_problem(row: tuple[Any, ...]) -> str | None:
    """Return what is wrong with a kept ``records`` row besides its seal (None: nothing)."""
    digest, lseal, own = row[1], row[14], row[15]
    if not isinstance(digest, bytes):
        return f"records row {row[0]} has no digests row"
    if own != digest:
        return "its listing digest differs from its digest"
    if rows.list_seal(("sha256:" + digest.hex(), row[2], row[3], row[5], row[6], row[10])) \
            != lseal:
        return "it does not match its listing seal"
    return None


_FIELDS = tuple(f for f in Record._fields if f != "digest")


def _records_differ(kept: dict[str, Record], fresh: dict[str, Record], stale: bool
                    ) -> list[Difference]:
    """Return the differences between two sets of records (by digest, field by field)."""
    found = []
    for digest in sorted(kept.keys() | fresh.keys()):
        a, b = kept.get(digest), fresh.get(digest)
        name = f"{(b or a).kind}/{(b or a).name}"  # type: ignore[union-attr]
        if a is None or b is None:
            found.append(Difference("records", digest, name, "row",
                                    None if a is None else text(_brief(a)),
                                    None if b is None else text(_brief(b)), stale))
            continue
        for field in _FIELDS:
            x, y = getattr(a, field), getattr(b, field)
            if x == y:
                continue
            if isinstance(x, dict) and isinstance(y, dict):
                found += [Difference("records", digest, name, f"{field}.{key}",
                                     text(x[key]) if key in x else None,
                                     text(y[key]) if key in y else None, stale)
                          for key in sorted(x.keys() | y.keys()) if x.get(key) != y.get(key)
                          or (key in x) != (key in y)]
            else:
                found.append(Difference("records", digest, name, field, text(x), text(y),
                                        stale))
    return found


def _brief(record: Record) -> dict[str, Any]:
    """Return the columns of a record a person recognises it by (not its spec)."""
    return {k: v for k, v in record._asdict().items()
            if k not in ("spec", "key_object", "digest") and v is not None}
