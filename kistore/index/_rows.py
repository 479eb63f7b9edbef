"""The index's compact rows: how a :class:`~.records.Record` is stored in SQLite and read back.

A record held every digest as 71 characters of text (in its row, and again in each SQLite
index on it), its comparison group's key object once per run, and the whole canonical
object: 2.5-2.7 KB a manifest, more than git needs for the store itself (~750 B after
gc). Here (docs/speed.md, "the compact index, sixth pass"):

* every digest is interned once in ``digests`` as its 32 raw bytes; rows and indexes hold
  its small integer id (a record's own id is the id of its digest);
* a run's comparison key, key object, family and primary statistic are one ``keys`` row,
  shared by every run of the group;
* the kind is a small integer (:data:`KIND_CODES`, alphabetical, so ordering by it
  orders by kind name);
* the object document is stored without what the row already holds -- ``kind``, the four
  reference digests of a run's spec (their keys stay, valued 0), and ``apiVersion`` when
  it is :data:`kistore.core.schema.API_VERSION` -- as JSON deflated (zlib) against a preset
  dictionary of :data:`DICTIONARY_SIZE` bytes sampled from the first documents the index
  stored (table ``dictionary``; the keys and values manifests share, so a 400-byte spec
  stores in ~80-100 bytes), and rebuilt exactly on read (:meth:`Codec.document_bytes`
  gives back the canonical bytes).

Queries join each record to its own digest (:data:`SELECT`) and decode rows with the
index's :class:`Codec`, which resolves the other ids; ids are assigned by :class:`Writer`,
which looks up only the digests it has not seen. Ids are never reused within one file.

Every row is sealed (:func:`kistore.index._database.seal`): a record's seal covers what the
:data:`SELECT` reads of it, its own digest's bytes included, so an edited role, name,
document or digest (``UPDATE digests SET digest = ...``) no longer matches; the digests,
``keys`` rows and dictionary it resolves through carry their own. The codec checks each row
it decodes and raises :class:`~kistore.index._database.Damaged` on a mismatch.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import zlib
from collections.abc import Iterable, Mapping
from typing import Any, cast

import orjson

from ..core import canonical
from ..core.digest import is_digest
from ..core.hashes import blake2b
from ..core.schema import API_VERSION, KINDS
from ._database import Damaged, get_meta, seal, unsealed
from .records import Listed, Record

KIND_CODES = {kind: code for code, kind in enumerate(sorted(KINDS))}
"""Kind name -> the small integer stored; in name order, so ``ORDER BY kind`` sorts by name."""
_KIND_NAMES = dict(enumerate(sorted(KINDS)))
RUN = KIND_CODES["BenchmarkRun"]

REFERENCES = ("workloadDigest", "protocolDigest", "environmentDigest", "implementationDigest")
"""A run's spec fields whose digests live in the row's columns, not in its document."""
_COLUMN_OF = dict(zip(REFERENCES, ("workload", "protocol", "environment", "implementation"),
                      strict=True))

TABLES = ("digests", "keys", "records", "skipped", "dictionary")
"""The tables of :data:`kistore.index._database.TABLES` this module fills. ``digests``: every
digest a row names, by id; ``keys``: one row per distinct (comparison key, key object,
family, statistic) of runs; ``records``: one row per manifest (id = its digest's id; digest
columns hold ids); ``skipped``: the manifests of the tree the build left out, and why
(:meth:`kistore.index.catalog.Catalog.skipped`); ``dictionary``: the preset deflate
dictionary every stored document is compressed with."""

DICTIONARY_SIZE = 4096
"""Bytes of the preset dictionary (docs/speed.md, sixth pass: 4 KB stored a synthetic
spec in ~85 bytes against ~270 with none; 32 KB only ~80, at 2.5x the cost a document)."""
_SAMPLES = 64
"""How many of the first documents written the dictionary is sampled from (spread evenly)."""
_LEVEL = 9
"""Deflate level: on ~400-byte inputs 9 costs about what 1 does and stores ~10% less."""
_WBITS = -13
"""Raw deflate (no zlib header or checksum), 8 KB window: the dictionary and a document fit,
and deflate's state for it is set up in about half the time of the default 32 KB."""

SELECT = """SELECT d.digest, r.kind, r.name, r.document, r.workload, r.hardware,
r.protocol, r.environment, r.implementation, r.key, r.role, r.project, r.seal
FROM records r JOIN digests d ON d.id = r.id"""
"""Every column :meth:`Codec.decode_all` reads (append ``WHERE ...``; ``r`` is the record).

Only the record's own digest is joined: the digests of its references and its ``keys``
row are few and shared, and are resolved once per catalog (:meth:`Codec.decode_all`).
Joining all seven made each row seven random B-tree reads (docs/speed.md, sixth pass)."""

LIST = ("SELECT 'sha256:' || lower(hex(r.digest)), r.kind, r.name, r.workload, r.hardware, "
        "r.key, r.lseal FROM records r")
"""Every column :meth:`Codec.list_all` reads (append ``WHERE ...``): a listing's columns
(``ls``), all in the covering SQL index ``records_list`` (the row keeps its own digest's
bytes for it), so a listing of every run reads that index alone, in order, never a table
row nor a stored document; checked by the row's listing seal (:func:`list_seal`), not its
full one. Order by ``r.kind, r.name, r.digest``."""

DIGEST_ID = "(SELECT id FROM digests WHERE digest = ?)"
"""The id of one digest (bind :func:`raw`); NULL, so matching nothing, when not interned."""

_PREFIX = "sha256:"


def record_seal(row: tuple[Any, ...]) -> bytes:
    """Return the seal of a :data:`SELECT` row (its first 12 values; a seal after them is ignored).

    :func:`kistore.index._database.seal` of those values, with the two byte strings (the
    digest and the stored document) hashed as bytes rather than through ``repr``: the same
    check, at half the cost a row (an ``ls`` of 100,000 manifests decodes every row).
    """
    document = row[3]
    return blake2b(b"%b%b%r" % (row[0], document, (len(document), *row[1:3], *row[4:12])),
                   digest_size=16).digest()


def list_seal(row: tuple[Any, ...]) -> bytes:
    """Return the listing seal of a :data:`LIST` row (its first 6 values; any after, ignored).

    The row's ``lseal``: BLAKE2b of its digest (``sha256:<hex>``, as :data:`LIST` reads it),
    kind, workload id, key id, hardware and name, the columns a listing (``ls``) reads. A
    record row carries it beside its full seal (:func:`record_seal`), which covers these
    too but needs the stored document: checking that made an ``ls`` of 100,000 runs read
    and hash every document. An edited name, kind, digest, workload, hardware or key no
    longer matches either seal. Each value but the name (last) is written by ``repr``, so
    no two rows give the same text.
    """
    digest, kind, name, workload, hardware, key = row[:6]
    return blake2b(f"{digest}\0{kind!r}\0{workload!r}\0{key!r}\0{hardware!r}\0{name}".encode(),
                   digest_size=16).digest()


def raw(digest: str) -> bytes:
    """Return the 32 bytes of ``sha256:<64 hex>``.

    Raises:
        ValueError: not that form.
    """
    if not is_digest(digest):
        raise ValueError(f"not a digest: {digest!r}")
    return bytes.fromhex(digest[len(_PREFIX):])


def text(value: bytes | None) -> str | None:
    """Return ``sha256:<hex>`` of 32 stored bytes (None stays None)."""
    return None if value is None else _PREFIX + value.hex()


def kind_code(kind: str) -> int | str:
    """Return the stored form of a kind: its :data:`KIND_CODES` entry, or the name itself."""
    return KIND_CODES.get(kind, kind)


_SHARED: dict[str, tuple[bytes, dict[int, bytes], dict[int, tuple[Any, ...]]]] = {}
"""Per index file (meta ``file``): its dictionary, and the digests and ``keys`` rows of the
ids resolved so far (:meth:`Codec.of`)."""


class Codec:
    """Turns stored rows back into records: the dictionary, and the ids rows hold, resolved.

    Ids are never reused within an index file (rows are deleted, interned digests and
    ``keys`` rows stay), so what an id names is cached for the life of the codec.

    Args:
        conn: the index connection.
        dictionary: the ``dictionary`` table's bytes (``b""`` when the index has none yet).
    """

    def __init__(self, conn: sqlite3.Connection | None, dictionary: bytes) -> None:
        self.conn = conn
        self.dictionary = dictionary
        self._digests: dict[int, bytes] = {}
        self._keys: dict[int, tuple[Any, ...]] = {}

    @classmethod
    def of(cls, conn: sqlite3.Connection) -> Codec:
        """Return the codec of an index connection (its stored dictionary, or none).

        What one index file's ids name never changes (meta ``file`` is a random id written
        when the file is created), so the dictionary and the ids resolved so far are kept
        for the process (:data:`_SHARED`): a process answering many queries, each on a
        fresh connection, looks each id up once.
        """
        file = get_meta(conn, "file")
        shared = _SHARED.get(file) if file is not None else None
        if shared is None:
            found = conn.execute("SELECT id, bytes, seal FROM dictionary WHERE id = 1").fetchone()
            shared = (unsealed(found)[1] if found is not None else b"", {}, {})
            if file is not None and shared[0]:  # the dictionary never changes once written
                _SHARED[file] = shared
        codec = cls(conn, shared[0])
        codec._digests, codec._keys = shared[1], shared[2]
        return codec

    def private(self) -> Codec:
        """Return a codec of the same index with caches of its own (:meth:`forget` them).

        For a pass over every row (``kistore export``): the shared caches would keep every
        id it resolves for the life of the process, O(store).
        """
        return Codec(self.conn, self.dictionary)

    def forget(self) -> None:
        """Drop the ids resolved so far (a :meth:`private` codec, between batches)."""
        self._digests, self._keys = {}, {}

    def compress(self, data: bytes) -> bytes:
        """Return ``data`` deflated against the dictionary (what a row's document holds)."""
        if self.dictionary:
            deflate = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, 8, zdict=self.dictionary)
        else:
            deflate = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, 8)
        return deflate.compress(data) + deflate.flush()

    def rest(self, document: bytes) -> dict[str, Any]:
        """Return the stored part of an object document (:func:`stored_document`), parsed.

        Raises:
            ValueError, zlib.error, orjson.JSONDecodeError: a damaged row.
        """
        if self.dictionary:
            inflate = zlib.decompressobj(_WBITS, zdict=self.dictionary)
        else:
            inflate = zlib.decompressobj(_WBITS)
        rest = orjson.loads(inflate.decompress(document) + inflate.flush())
        if not isinstance(rest, dict) or not isinstance(rest.get("spec"), dict):
            raise ValueError("a stored document without a spec")
        return rest

    def decode_all(self, rows: list[tuple[Any, ...]]) -> list[Record]:
        """Return the record of each :data:`SELECT` row, its spec rebuilt exactly.

        The ids the rows name that this codec has not seen are looked up first, in one
        query per table (500 at a time).

        Raises:
            ValueError, TypeError, KeyError, zlib.error, orjson.JSONDecodeError,
            sqlite3.Error: a damaged row or index.
        """
        self._resolve(rows)
        return [self._decode(row) for row in rows]

    def list_all(self, rows: list[tuple[Any, ...]], *, details: bool = True) -> list[Listed]:
        """Return the listing entry of each :data:`LIST` row, each checked by its listing seal.

        Args:
            rows: :data:`LIST` rows.
            details: also resolve each row's workload and comparison key ids (looked up
                as :meth:`decode_all` does); False leaves ``workload`` and
                ``comparison_key`` None.

        Raises:
            Damaged: a row does not match its listing seal.
            ValueError, TypeError, KeyError, sqlite3.Error: a damaged row or index.
        """
        kinds, new, seal = _KIND_NAMES, tuple.__new__, blake2b  # one pass; no Listed(...) call
        checked: list[tuple[Any, ...]] = []
        keep = checked.append
        for digest, kind, name, workload, hardware, key, lseal in rows:
            if seal(f"{digest}\0{kind!r}\0{workload!r}\0{key!r}\0{hardware!r}\0{name}".encode(),
                    digest_size=16).digest() != lseal:  # list_seal, inline: ~1 us a row less
                raise Damaged(f"a records row that does not match its seal ({name!r:.80})")
            if details:  # ids resolved below
                keep((digest, kinds[kind] if isinstance(kind, int) else kind, name, workload,
                      hardware, key))
            else:
                keep(new(Listed, (digest, kinds[kind] if isinstance(kind, int) else kind, name,
                                  None, hardware, None)))
        if not details:
            return cast("list[Listed]", checked)
        self._resolve_ids({e[3] for e in checked if e[3] is not None},
                          {e[5] for e in checked if e[5] is not None})
        digests, keys = self._digests, self._keys
        return [new(Listed, (*e[:3], None if e[3] is None else _PREFIX + digests[e[3]].hex(),
                             e[4], None if e[5] is None else keys[e[5]][0])) for e in checked]

    def _resolve(self, rows: list[tuple[Any, ...]]) -> None:
        self._resolve_ids({i for row in rows for i in (row[4], *row[6:9]) if i is not None},
                          {row[9] for row in rows if row[9] is not None})

    def _resolve_ids(self, digests: set[int], keys: set[int]) -> None:
        """Look up the digest and ``keys`` ids this codec has not resolved yet."""
        self._fetch(digests - self._digests.keys(),
                    "SELECT id, digest, seal FROM digests WHERE id", self._keep_digest)
        keys = keys - self._keys.keys()
        self._fetch(keys, "SELECT k.id, k.key, k.object, k.family, k.statistic, k.seal, "
                    "d.digest, d.seal FROM keys k LEFT JOIN digests d ON d.id = k.key "
                    "WHERE k.id", self._keep_key)

    def _keep_digest(self, n: int, rest: list[Any]) -> None:
        """Keep a ``digests`` row read by :meth:`_fetch` (``digest, seal``), checked."""
        self._digests[n] = unsealed((n, *rest))[1]

    def _keep_key(self, n: int, rest: list[Any]) -> None:
        """Keep a ``keys`` row read by :meth:`_fetch`, and its key's digest, both checked."""
        key_id, obj, family, statistic = unsealed((n, *rest[:5]))[1:]
        digest = None if key_id is None else unsealed((key_id, *rest[5:]))[1]
        if key_id is not None and not isinstance(digest, bytes):
            raise Damaged(f"keys row {n} names digest id {key_id}, which is not stored")
        self._keys[n] = (None if digest is None else _PREFIX + digest.hex(),
                         None if obj is None else json.loads(str(obj)), family, statistic)

    def _fetch(self, ids: set[int], query: str, keep: Any) -> None:
        """Run ``query`` (ending ``WHERE ... id``) for ``ids``; ``keep(id, other columns)``.

        ``IN`` lists are padded (with -1, no id) to 32 or 500 parameters: a list of another
        length is another statement for SQLite to prepare (~0.05 ms each, on the fresh
        connection every query opens), which with one lookup an id made a warm ``rank
        --at`` 0.5-0.7 ms slower than the format before.
        """
        assert self.conn is not None
        listed = sorted(ids)
        size = 32 if len(listed) <= 32 else 500  # 500: under SQLite's parameter limit
        for i in range(0, len(listed), size):
            chunk = listed[i:i + size]
            chunk += [-1] * (size - len(chunk))
            for n, *rest in self.conn.execute(f"{query} IN ({', '.join('?' * size)})", chunk):
                keep(n, rest)

    def _decode(self, row: tuple[Any, ...]) -> Record:
        if record_seal(row) != row[12]:
            raise Damaged(f"a records row that does not match its seal ({row[2]!r:.80})")
        (digest, kind, name, document, workload, hardware, protocol, environment,
         implementation, key, role, project, _) = row
        kind = _KIND_NAMES[kind] if isinstance(kind, int) else kind
        spec = self._spec(self.rest(document), kind,
                          (workload, protocol, environment, implementation))
        own = _PREFIX + digest.hex()
        if kind == "BenchmarkRun":
            refs = [spec.get(field) for field in REFERENCES]
        else:
            refs = [own if kind == "Workload" else None, None, None, None]
        comparison_key, key_object, family, statistic = \
            self._keys[key] if key is not None else (None, None, None, None)
        return Record(own, kind, name, spec, workload=refs[0], hardware=hardware,
                      protocol=refs[1], environment=refs[2], implementation=refs[3],
                      comparison_key=comparison_key, key_object=key_object, family=family,
                      statistic=statistic, role=role, project=project)

    def _spec(self, rest: dict[str, Any], kind: str, refs: tuple[int | None, ...]
              ) -> dict[str, Any]:
        """Return the spec of a stored document with a run's reference digests put back.

        :func:`stored_document` left each stripped key in its place (value 0), so putting
        the digest back keeps the canonical key order the object's bytes had.
        """
        spec: dict[str, Any] = rest["spec"]
        if kind == "BenchmarkRun":
            for field, n in zip(REFERENCES, refs, strict=True):
                if n is not None:
                    if field not in spec:
                        raise ValueError(f"a stored run without its {field} key")
                    spec[field] = _PREFIX + self._digests[n].hex()
        return spec

    def document_bytes(self, row: tuple[Any, ...]) -> bytes:
        """Return the canonical object bytes a :data:`SELECT` row was made from, exactly.

        The stored document with ``kind``, ``apiVersion`` and a run's reference digests
        put back, written by :func:`kistore.core.canonical.dumps` (RFC 8785): the bytes whose
        SHA-256 is the record's digest.

        Raises:
            Damaged: the row does not match its seal.
        """
        if record_seal(row) != row[12]:
            raise Damaged(f"a records row that does not match its seal ({row[2]!r:.80})")
        self._resolve([row])
        rest = self.rest(row[3])
        kind = _KIND_NAMES[row[1]] if isinstance(row[1], int) else row[1]
        spec = self._spec(rest, kind, (row[4], row[6], row[7], row[8]))
        document = {**rest, "apiVersion": rest.get("apiVersion", API_VERSION), "kind": kind,
                    "spec": spec}
        return canonical.dumps(document)


def stored_document(kind: str, document: dict[str, Any]) -> bytes:
    """Return what a record row stores of its object document, before compression (JSON).

    Left out, for the row holds them: ``kind``; ``apiVersion`` when it is
    :data:`~kistore.core.schema.API_VERSION`; the value of a run's reference digests
    (:data:`REFERENCES`) when they are digests (the row holds them as ids; the key stays,
    with the value 0, so they go back in their place). :meth:`Writer.write` deflates it.

    Args:
        kind: the manifest's kind.
        document: its object document, as parsed (``{apiVersion, kind, spec}``).
    """
    rest = {k: v for k, v in document.items()
            if k != "kind" and not (k == "apiVersion" and v == API_VERSION)}
    if kind == "BenchmarkRun":
        rest["spec"] = {k: 0 if k in _COLUMN_OF and _is_digest(v) else v
                        for k, v in document["spec"].items()}
    # a copy of its own size: orjson returns the 4 KB buffer it wrote into, and an add
    # holds one of these a manifest until its commit lands (4 GB at 1,000,000; mem86)
    return bytes(memoryview(orjson.dumps(rest)))


class Writer:
    """Writes records as rows of one index connection, interning digests and keys.

    Call inside the transaction of the update (:meth:`kistore.query.index.Index._sync`).
    The first documents written to an index without a dictionary choose it
    (:func:`sample`): a full build samples the whole store, a store indexed from its first
    few manifests keeps what they share until ``kistore reindex``.

    Args:
        conn: the index connection.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.empty = conn.execute("SELECT 1 FROM digests LIMIT 1").fetchone() is None
        self.codec = Codec.of(conn)
        self._ids: dict[str, int] = {}
        self._keys: dict[tuple[Any, ...], int] = {}

    def ids(self, digests: Iterable[str]) -> dict[str, int]:
        """Return the id of each digest, interning those not stored yet.

        New digests get ids in digest order (a full build then appends to the B-tree).
        """
        wanted = {d for d in digests if d not in self._ids}
        if wanted and not self.empty:
            listed = sorted(wanted)
            for i in range(0, len(listed), 500):  # SQLite's limit on bound parameters
                chunk = [raw(d) for d in listed[i:i + 500]]
                marks = ", ".join("?" * len(chunk))
                self._ids.update((_PREFIX + b.hex(), n) for n, b in self.conn.execute(
                    f"SELECT id, digest FROM digests WHERE digest IN ({marks})", chunk))
            wanted -= self._ids.keys()
        if wanted:
            top = self.conn.execute("SELECT coalesce(max(id), 0) FROM digests").fetchone()[0]
            new = {d: top + n for n, d in enumerate(sorted(wanted), start=1)}
            self.conn.executemany("INSERT INTO digests VALUES (?, ?, ?)",
                                  ((n, b, seal((n, b))) for d, n in new.items()
                                   for b in (raw(d),)))
            self._ids.update(new)
        return self._ids

    def write(self, records: Iterable[Record], documents: dict[str, bytes],
              compressed: tuple[bytes, Mapping[str, bytes]] | None = None) -> None:
        """Insert (or replace) the whole row of each record.

        Args:
            records: the records.
            documents: each record's :func:`stored_document`, by digest.
            compressed: ``(dictionary, {digest: document deflated with it})`` made
                beforehand; used where the dictionary is the one the rows are written
                with (else each document is deflated here).
        """
        records = list(records)
        if not self.codec.dictionary and (documents or compressed):
            # the dictionary the documents were deflated with beforehand, if any (an add's
            # sample of its own documents: Index.prepare), so none is needed again
            self.codec = Codec(self.conn, compressed[0] if compressed else sample(documents))
            data = self.codec.dictionary
            self.conn.execute("INSERT OR REPLACE INTO dictionary VALUES (1, ?, ?)",
                              (data, seal((1, data))))
        columns, ids, keys = self._prepare(records)
        compress = self.codec.compress
        ready = compressed[1] if compressed and compressed[0] == self.codec.dictionary else {}

        def deflated(digest: str) -> bytes:
            found = ready.get(digest)
            return found if found is not None else compress(documents[digest])

        def row(r: Record, c: tuple[Any, ...]) -> tuple[Any, ...]:
            values = (raw(r.digest), kind_code(r.kind), r.name, deflated(r.digest),
                      *_derived(r, c, ids, keys))
            return (ids[r.digest], *values[1:], record_seal(values), _list_seal(values),
                    values[0])

        self.conn.executemany(
            "INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row(r, c) for r, c in zip(records, columns, strict=True)))


    def rederive(self, records: Iterable[Record]) -> None:
        """Update what a record derives from the manifests it references (its document stays)."""
        records = list(records)
        columns, ids, keys = self._prepare(records)
        # what the row keeps, for its seal: its digest's bytes, kind, name, document
        stored: dict[int, tuple[Any, ...]] = {}
        listed = sorted(ids[r.digest] for r in records)
        for i in range(0, len(listed), 500):  # SQLite's limit on bound parameters
            chunk = listed[i:i + 500]
            stored.update((row[0], row[1:]) for row in self.conn.execute(
                "SELECT r.id, d.digest, r.kind, r.name, r.document FROM records r JOIN "
                f"digests d ON d.id = r.id WHERE r.id IN ({', '.join('?' * len(chunk))})",
                chunk))

        def update(r: Record, c: tuple[Any, ...]) -> tuple[Any, ...]:
            derived = _derived(r, c, ids, keys)
            values = (*stored[ids[r.digest]], *derived)
            return (*derived, record_seal(values), _list_seal(values), ids[r.digest])

        self.conn.executemany(
            "UPDATE records SET workload = ?, hardware = ?, protocol = ?, environment = ?, "
            "implementation = ?, key = ?, role = ?, project = ?, seal = ?, lseal = ? "
            "WHERE id = ?",
            (update(r, c) for r, c in zip(records, columns, strict=True)
             if ids[r.digest] in stored))

    def delete(self, digests: Iterable[str]) -> None:
        """Delete the rows of ``digests`` (their interned digests stay: ids are never reused)."""
        self.conn.executemany(f"DELETE FROM records WHERE id = {DIGEST_ID}",
                              ((raw(d),) for d in digests))

    def _prepare(self, records: list[Record]
                 ) -> tuple[list[tuple[Any, ...]], dict[str, int], dict[Any, int]]:
        """Intern every digest and key the records name.

        Returns:
            Each record's :func:`_columns` and :func:`_key`, and the digest and key id maps.
        """
        columns: list[tuple[Any, ...]] = [(*_columns(r), _key(r)) for r in records]
        ids = self.ids([d for r, c in zip(records, columns, strict=True)
                        for d in (r.digest, *c[:4], r.comparison_key) if d is not None])
        keys = self._key_ids({c[4] for c in columns if c[4] is not None}, ids)
        return columns, ids, keys

    def _key_ids(self, wanted: set[tuple[Any, ...]], ids: dict[str, int]) -> dict[Any, int]:
        """Return the ``keys`` id of each (comparison key, object, family, statistic)."""
        todo = wanted - self._keys.keys()
        if todo and not self.empty:
            found = [unsealed(row) for row in self.conn.execute(
                "SELECT id, key, object, family, statistic, seal FROM keys WHERE key IS NULL")]
            listed = sorted({ids[t[0]] for t in todo if t[0] is not None})
            for i in range(0, len(listed), 500):
                chunk = listed[i:i + 500]
                found += [unsealed(row) for row in self.conn.execute(
                    "SELECT id, key, object, family, statistic, seal FROM keys "
                    f"WHERE key IN ({', '.join('?' * len(chunk))})", chunk)]
            by_id = {n: d for d, n in ids.items()}
            for n, key, obj, family, statistic in found:
                self._keys.setdefault(
                    (by_id.get(key) if key is not None else None, obj, family, statistic), n)
            todo -= self._keys.keys()
        if todo:
            top = self.conn.execute("SELECT coalesce(max(id), 0) FROM keys").fetchone()[0]
            new = {t: top + n for n, t in enumerate(sorted(todo, key=repr), start=1)}
            values = [(n, ids[t[0]] if t[0] is not None else None, *t[1:])
                      for t, n in new.items()]
            self.conn.executemany("INSERT INTO keys VALUES (?, ?, ?, ?, ?, ?)",
                                  [(*v, seal(v)) for v in values])
            self._keys.update(new)
        return self._keys


def _list_seal(values: tuple[Any, ...]) -> bytes:
    """Return :func:`list_seal` of a :data:`SELECT` row's values (the columns of :data:`LIST`)."""
    return list_seal((_PREFIX + values[0].hex(), values[1], values[2], values[4], values[5],
                      values[9]))


def sample(documents: Mapping[str, bytes]) -> bytes:
    """Return a preset dictionary: :data:`_SAMPLES` documents spread evenly, last 4 KB.

    deflate finds a match anywhere in the dictionary, and prefers what is nearest its end.
    """
    listed = [documents[d] for d in sorted(documents)]
    step = max(1, len(listed) // _SAMPLES)
    return b"".join(listed[::step])[-DICTIONARY_SIZE:]


def _derived(r: Record, columns: tuple[Any, ...], ids: dict[str, int],
             keys: dict[Any, int]) -> tuple[Any, ...]:
    """Return the derived columns of a record as stored.

    Args:
        r: the record.
        columns: its :func:`_columns` and then its :func:`_key`.
        ids: digest string -> id.
        keys: :func:`_key` tuple -> ``keys`` id.

    Returns:
        ``(workload, hardware, protocol, environment, implementation, key, role, project)``.
    """
    refs = [ids[d] if d is not None else None for d in columns[:4]]
    key = columns[4]
    return (refs[0], r.hardware, refs[1], refs[2], refs[3],
            keys[key] if key is not None else None, r.role, r.project)


def _columns(r: Record) -> tuple[str | None, ...]:
    """Return the digests a record's columns hold (None where absent or not a digest).

    ``(workload, protocol, environment, implementation)``.
    """
    return tuple(d if _is_digest(d) else None
                 for d in (r.workload, r.protocol, r.environment, r.implementation))


def _is_digest(value: object) -> bool:
    """:func:`kistore.core.digest.is_digest`, remembered: runs name the same few digests often."""
    return isinstance(value, str) and _digest_text(value)


@functools.lru_cache(maxsize=1 << 16)
def _digest_text(value: str) -> bool:
    return is_digest(value)


def _key(r: Record) -> tuple[Any, ...] | None:
    """Return a run's ``keys`` row as (comparison key, key object JSON, family, statistic)."""
    if r.comparison_key is None and r.family is None and r.statistic is None:
        return None
    return (r.comparison_key,
            orjson.dumps(r.key_object).decode() if r.key_object is not None else None,
            r.family, r.statistic)
