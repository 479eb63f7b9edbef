"""Size limits on what kistore reads: a manifest's bytes, strings, arrays and objects.

Without them ``kistore add /dev/zero`` grew to 23 GB before it was killed, and a 200 MB
manifest was stored, after which ``ls`` took 5 s and ``show`` printed 200 MB. The limits are
enforced *while reading*: no input is read further than its limit + 1 bytes, so refusing an
endless or huge input costs at most that much memory and time.

==================  ===================  ==============================================
``kistore.toml``    default              what it bounds
==================  ===================  ==============================================
``manifest-bytes``  1,048,576 (1 MiB)    one JSON text ``add``/``digest`` read whole (a
                                         manifest or bundle file, stdin), each line of
                                         JSON Lines, each manifest's canonical object
                                         and metadata bytes, each object or metadata
                                         file ``verify``/``check`` read (KI106), each
                                         attestation note line a notes push brings or
                                         a ``notes fetch`` takes in (KI409)
``source-bytes``    67,108,864 (64 MiB)  one file ``import`` reads (a source's file holds
                                         many records)
``string-length``   65,536 characters    every string of a manifest, keys included; of
                                         each object or metadata file ``verify``/``check``
                                         read (KI107)
``array-length``    10,000 items         every array of a manifest; of each stored
                                         file ``verify``/``check`` read (KI107)
``object-members``  1,000 members        every object of a manifest (``sourceNative.
                                         metrics``, ``annotations``, ``labels``: the
                                         keys a contributor chooses); of each stored
                                         file ``verify``/``check`` read (KI107)
==================  ===================  ==============================================

``object-members`` (review r85 F18): one run with 9,000 metric keys passed every other
limit and made the CSV export 9,065 columns wide; the largest object of the real data
has 11 members (``sourceNative.metrics`` of a sol-execbench run), of a source file 110.

They are set in the ``[limits]`` table of ``kistore.toml`` (:meth:`Limits.from_toml`); a
store without one uses :data:`DEFAULT`. No key may be set above its :data:`CEILING` (16
times its default; a thousand times the largest real manifest): a value past it is a bad
key, as ``0`` is (KI108), so one merged "tidy" of ``kistore.toml`` cannot open the store
to 1 GB manifests (review r78 F9). This module reads files and standard input but
knows nothing of git or of the store.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import Any, BinaryIO, NamedTuple, overload

from . import canonical_fast
from .canonical import escape_pointer
from .errors import QUOTE_WIDTH, InputError, MultipleErrors, VerificationError, shorten

_CHUNK = 1 << 20
"""Bytes asked of the operating system per read (at most; less near a limit)."""


class Limits(NamedTuple):
    """The size limits one command enforces (see the module docstring for each).

    A named tuple, not a frozen dataclass: every command makes this class, and making a
    frozen dataclass compiles its methods (~1.5 ms of start-up, docs/speed.md).

    Attributes:
        manifest_bytes: most bytes of one manifest, as written in its input and as stored.
        source_bytes: most bytes of one file an importer reads.
        string_length: most characters of one string (a key or a value).
        array_length: most items of one array.
        object_members: most members (keys) of one object.
    """

    manifest_bytes: int = 1 << 20
    source_bytes: int = 64 << 20
    string_length: int = 65_536
    array_length: int = 10_000
    object_members: int = 1_000

    @classmethod
    def from_toml(cls, table: Any, *, file: str = "kistore.toml") -> Limits:
        """Return the limits a ``[limits]`` table sets; what it leaves out keeps its default.

        Keys are the field names written with ``-`` (``manifest-bytes = 2097152``).

        Args:
            table: the parsed ``[limits]`` table (None when the file has none).
            file: the settings file, for errors.

        Raises:
            InputError: ``[limits]`` is not a table, a key is unknown (a typo would silently
                keep the default), or a value is not a positive integer (the one problem).
            MultipleErrors: several keys are bad: one :class:`InputError` each.
        """
        limits, problems = cls.from_toml_per_key(table, file=file)
        if len(problems) > 1:
            raise MultipleErrors(list(problems))
        if problems:
            raise problems[0]
        return limits

    @classmethod
    def from_toml_per_key(cls, table: Any, *, file: str = "kistore.toml", ceiling: bool = True
                          ) -> tuple[Limits, list[InputError]]:
        """Return the limits a ``[limits]`` table sets, each bad key at its default.

        What :meth:`from_toml` refuses, per key: a valid key applies whatever its
        neighbours hold (``array-length = 10`` beside ``string-length = 0``), a key with a
        value that is not a positive integer keeps its default, an unknown key is ignored.

        Args:
            table: the parsed ``[limits]`` table (None when the file has none).
            file: the settings file, for errors.
            ceiling: False: a value above its :data:`CEILING` applies as stated (what a
                store set before the ceilings existed: :meth:`kistore.store.Settings.
                stated_limits`).

        Returns:
            ``(limits, problems)``: one :class:`InputError` per bad key (a value above
            its :data:`CEILING` is one too, unless ``ceiling`` is False; JSON Pointer
            ``/limits/KEY``), in the table's order; one on ``/limits`` (and every limit at
            its default) when ``[limits]`` is not a table. No problem: exactly
            :meth:`from_toml`'s limits.
        """
        if table is None:
            return cls(), []
        if not isinstance(table, dict):
            return cls(), [InputError("[limits] must be a table of sizes", file=file,
                                      pointer="/limits")]
        known = {name.replace("_", "-"): name for name in cls._fields}
        values: dict[str, int] = {}
        problems: list[InputError] = []
        for key, value in table.items():
            if key not in known:
                problems.append(InputError(
                    f"unknown limit {shorten(repr(key))}; the limits are {', '.join(known)}",
                    file=file, pointer=f"/limits/{key}"))
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                problems.append(InputError(
                    f"{key} must be a positive integer, found {shorten(repr(value))}",
                    file=file, pointer=f"/limits/{key}"))
            elif ceiling and value > getattr(CEILING, known[key]):
                problems.append(InputError(
                    f"{key} = {value:,} is above its ceiling of "
                    f"{getattr(CEILING, known[key]):,}: no public index needs more "
                    "(docs/rules.md KI108); keep it at or below the ceiling",
                    file=file, pointer=f"/limits/{key}"))
            else:
                values[known[key]] = value
        return cls(**values), problems


DEFAULT = Limits()
"""The limits of a store whose ``kistore.toml`` has no ``[limits]`` table."""

CEILING = Limits(manifest_bytes=16 << 20, source_bytes=1 << 30, string_length=1 << 20,
                 array_length=160_000, object_members=16_000)
"""The most each ``[limits]`` key may be set to: 16 times its default (16 MiB, 1 GiB,
1,048,576 characters, 160,000 items, 16,000 members). The largest real manifest is ~16 KB
and the largest source file ~83 KB: a value past its ceiling is a mistake or an attack, never
a need
(review r78 F9); :meth:`Limits.from_toml_per_key` refuses it as a bad key (KI108)."""

SETTINGS_HINT = "raise [limits] {key} in kistore.toml if this size is meant"
"""How a message says which setting raises a limit."""


def past_limit(held: str, limit: int, key: str) -> str:
    """Return the one wording of a size past a limit: ``HELD, more than the limit of M (KEY)``.

    Every message of a manifest, a line, a stored file or a value past ``[limits]`` says
    its size with this (:func:`bytes_past_limit` for bytes).

    Args:
        held: what holds how much, e.g. ``1,308 bytes``, ``a string of 70,000 characters``.
        limit: the limit (bytes, characters or items, as ``held`` counts).
        key: its ``kistore.toml`` key (``manifest-bytes``).

    Returns:
        e.g. ``1,308 bytes, more than the limit of 700 (manifest-bytes)``.
    """
    return f"{held}, more than the limit of {limit:,} ({key})"


def bytes_past_limit(size: int | None, limit: int, key: str = "manifest-bytes") -> str:
    """Return :func:`past_limit` for a number of bytes, or for an input not read to its end.

    Args:
        size: the bytes held (a file's stat, a blob's header, a canonical form's length);
            None when only "more than the limit" is known (a stream read to ``limit`` + 1).
        limit: the limit in bytes.
        key: its ``kistore.toml`` key.

    Returns:
        ``1,308 bytes, more than the limit of 700 (manifest-bytes)``; for None ``more than
        the limit of 700 bytes (manifest-bytes)``.
    """
    if size is None:
        return f"more than the limit of {limit:,} bytes ({key})"
    return past_limit(f"{size:,} bytes", limit, key)


def file_too_large(size: int | None, limit: int, key: str = "manifest-bytes") -> str:
    """Return what KI106 says of a stored file past ``manifest-bytes`` (``verify``, ``check``).

    Args:
        size: the file's size in bytes (None: not known, read only to ``limit`` + 1).
        limit: ``[limits] manifest-bytes``.
        key: what the limit is, in parentheses (:data:`CEILING_KEY` for the bound of a
            read asking no limit of the work tree).

    Returns:
        ``the file holds 1,308 bytes, more than the limit of 700 (manifest-bytes)``.
    """
    return f"the file holds {bytes_past_limit(size, limit, key)}"


CEILING_KEY = "the ceiling of manifest-bytes"
"""How a size past :data:`CEILING`'s ``manifest_bytes`` names its limit: the bound of a read
of the work tree that asks no limit (a query reading a stray 1 GB file under ``store/``:
fresh03 H3), not a ``[limits]`` value a store sets."""


FILE_BYTES = CEILING.manifest_bytes
"""The most bytes any read of a stored file returns when its caller asks no limit: 16 MiB,
the ceiling of ``manifest-bytes`` (no stored file of any store may hold more). Every read
of a store file -- the work tree's (:class:`kistore.store.WorkTreeView`, by its ``fstat``),
a commit's (:class:`kistore.store.CommitView`, by its blob's header) and git's
(:func:`kistore.git.blobs.read_blob`, by the header) -- is held to it before a byte of the
file is read or inflated: a stray 1 GB file or blob was read whole by ``show --at``,
``compare --at``, ``export`` and ``site build`` (36-130 s, 2.1 GB each; res02), and under
``store/`` by a ``rank`` (fresh03 H3)."""


class PastLimit(VerificationError):
    """A file or blob holding more bytes than a limit; it was not read past the limit.

    The kind a reader outside the store layer catches (the query index, :mod:`kistore.
    index.catalog`); :class:`FileTooLarge` is the one raised.

    Attributes:
        size: its size in bytes when known (a stat's, a blob header's), else None.
        limit: the limit in bytes.
        key: what the limit is (``manifest-bytes``, :data:`CEILING_KEY`).
    """

    size: int | None
    limit: int
    key: str = "manifest-bytes"


class FileTooLarge(PastLimit):
    """A stored file holds more than the limit: it was not read past the limit + 1 bytes.

    The one error of a store file (or git blob) past a limit, raised before it is read
    (:data:`FILE_BYTES`). Its message says the file, its size, the limit and, when
    ``fix`` is given, what to do: ``store/objects/sha256/ab/cd...json: the file holds
    20,971,520 bytes, more than the limit of 16,777,216 (the ceiling of manifest-bytes);
    not read: kistore writes no file this large; ...``.

    Args:
        path: the repository path (or a blob's id, when read for no path).
        limit: the limit in bytes (``[limits] manifest-bytes``, or :data:`FILE_BYTES`).
        size: the file's size when known (a git blob's header, a stat's), else None.
        key: what the limit is, for the message (:data:`CEILING_KEY` for
            :data:`FILE_BYTES`).
        fix: what to do, after ``; not read: `` (None: the bare problem, for a caller that
            reports it its own way: ``verify``'s KI106, a query's warning).
    """

    def __init__(self, path: str, limit: int, size: int | None = None,
                 key: str = "manifest-bytes", fix: str | None = None) -> None:
        self.limit = limit
        self.size = size
        self.key = key
        self.fix = fix
        said = file_too_large(size, limit, key)
        super().__init__(said if fix is None else f"{said}; not read: {fix}", file=path)

    def advised(self, fix: str) -> FileTooLarge:
        """Return this error with ``fix`` said (what to do); itself when it says one already."""
        if self.fix is not None or self.file is None:
            return self
        return FileTooLarge(self.file, self.limit, self.size, self.key, fix)


def too_large(limit: int, key: str, *, what: str, fix: str = "",
              size: int | None = None) -> str:
    """Return the message for an input past ``limit`` bytes: the limit, what to do.

    Args:
        limit: the limit in bytes.
        key: its ``kistore.toml`` key (``manifest-bytes``).
        what: what was too large (``the input``, ``line 3``).
        fix: what else to do, after ``;`` (optional).
        size: its size in bytes when known before reading (a regular file's ``fstat``):
            then nothing of it was read; None: read to ``limit`` + 1 bytes.

    Returns:
        e.g. ``the input holds more than the limit of 700 bytes (manifest-bytes); nothing
        past it was read; raise [limits] manifest-bytes in kistore.toml if this size is
        meant``; with ``size``, ``the input holds 20,971,520 bytes, more than the limit of
        700 (manifest-bytes); not read; ...``.
    """
    also = f"; {fix}" if fix else ""
    read = "nothing past it was read" if size is None else "not read"
    return (f"{what} holds {bytes_past_limit(size, limit, key)}; {read}"
            f"{also}; {SETTINGS_HINT.format(key=key)}")


def read_bounded(name: str, limit: int, *, key: str = "manifest-bytes", fix: str = "") -> bytes:
    """Read a whole file (or ``-``, standard input) but never more than ``limit`` + 1 bytes.

    Args:
        name: a path, or ``-`` for standard input.
        limit: most bytes accepted.
        key: the ``kistore.toml`` key of the limit, for the message.
        fix: what else the message suggests (e.g. JSON Lines for many manifests).

    Returns:
        The bytes (at most ``limit``).

    Raises:
        InputError: the input holds more than ``limit`` bytes: a regular file said by its
            size before a byte is read (its ``fstat``: a 200 MB manifest file), a stream
            (``/dev/zero``, a pipe) at once after reading ``limit`` + 1 bytes.
        OSError: the file cannot be opened or read (the CLI names it).
    """
    if name == "-":
        return read_stream_bounded(sys.stdin.buffer, limit, file=name, key=key, fix=fix)
    with open(name, "rb") as stream:
        info = os.fstat(stream.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise InputError(too_large(limit, key, what="the input", fix=fix,
                                       size=info.st_size), file=name)
        return read_stream_bounded(stream, limit, file=name, key=key, fix=fix)


def read_stream_bounded(stream: BinaryIO, limit: int, *, file: str,
                        key: str = "manifest-bytes", fix: str = "") -> bytes:
    """:func:`read_bounded` of an open binary stream (a pipe, a device, a file).

    Raises:
        InputError: more than ``limit`` bytes, naming ``file``.
    """
    data = read_up_to(stream, limit + 1)
    if len(data) > limit:
        raise InputError(too_large(limit, key, what="the input", fix=fix), file=file)
    return data


def read_up_to(stream: BinaryIO, count: int) -> bytes:
    """Return the next ``count`` bytes of ``stream`` (fewer at its end); reads nothing more."""
    parts: list[bytes] = []
    left = count
    while left > 0:
        part = stream.read(min(left, _CHUNK))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def read_lines_bounded(stream: BinaryIO, limit: int, *, file: str, start: bytes = b"") -> bytes:
    """Read JSON Lines to the end, refusing any line longer than ``limit`` bytes as it comes.

    The whole input is returned (a bulk add of JSON Lines has no total limit), but reading
    stops as soon as the current line passes ``limit`` bytes without a newline: never more
    than ``limit`` + 1 bytes past the last newline are read.

    Args:
        stream: the open input.
        limit: most bytes of one line (``manifest-bytes``), its newline not counted.
        file: the input's name, for the error.
        start: bytes already read from ``stream`` (standard input sniffed for its form).

    Returns:
        Every byte of the input, ``start`` first.

    Raises:
        InputError: at the first line longer than ``limit`` bytes, naming its line number.
    """
    parts = [start] if start else []
    tail = len(start) - (start.rfind(b"\n") + 1)  # bytes of the unfinished last line
    lines = start.count(b"\n")
    _check_lines(start, limit, file, 0)
    while True:
        part = stream.read(max(1, min(_CHUNK, limit + 1 - tail)))
        if not part:
            break
        parts.append(part)
        cut = part.rfind(b"\n")
        if cut < 0:
            tail += len(part)
        else:
            _check_lines(part[:cut], limit, file, lines, head=tail)
            lines += part.count(b"\n")
            tail = len(part) - cut - 1
        if tail > limit:
            raise InputError(too_large(limit, "manifest-bytes", what=f"line {lines + 1}",
                                       fix="JSON Lines hold one manifest a line"),
                             file=file, line=lines + 1)
    return b"".join(parts)


def _check_lines(data: bytes, limit: int, file: str, before: int, *, head: int = 0) -> None:
    """Refuse a line of ``data`` longer than ``limit`` (its first line continues ``head`` bytes).

    Args:
        data: whole lines, the last one ending where ``data`` ends (its newline cut off).
        limit: most bytes of a line.
        file: the input, for the error.
        before: newlines read before ``data`` (its first line is line ``before + 1``).
        head: bytes of the first line read before ``data``.
    """
    if len(data) + head <= limit:
        return
    for number, line in enumerate(data.split(b"\n"), start=before + 1):
        if len(line) + head > limit:
            raise InputError(too_large(limit, "manifest-bytes", what=f"line {number}",
                                       fix="JSON Lines hold one manifest a line"),
                             file=file, line=number)
        head = 0


class LongValue(NamedTuple):
    """One string, key, array or object of a JSON value past the limits (:func:`long_values`).

    Attributes:
        pointer: JSON Pointer of the value (of the object holding it, for a key).
        what: what it is, with its size: ``a string of 70,000 characters``, ``an object
            key of 70,000 characters``, ``an array of 12,000 items``, ``an object of 9,000
            members``.
        limit: the limit it passes (characters, items or members).
        key: the ``kistore.toml`` key of that limit (``string-length``, ``array-length``,
            ``object-members``).
        excerpt: what quotes it (:func:`quote_long`): ``: 'whole'`` when its ``repr`` fits
            in ~80 characters, else ``; its first 40 characters: '...'``; empty for an array
            or an object.
    """

    pointer: str
    what: str
    limit: int
    key: str
    excerpt: str


def long_values(value: Any, limits: Limits, pointer: str = "") -> list[LongValue]:
    """Return every string (keys too), array and object of a parsed JSON value past the limits.

    The one walk over a value's strings, arrays and objects: :func:`check_value` words its
    errors from it (``add``), ``verify`` its KI107 findings, the query index the reason it
    leaves a manifest out. An array or object past the limit is not walked further, nor the
    value of a key past it.

    Args:
        value: the parsed value (a manifest, an object or metadata file).
        limits: the limits to apply (``string_length``, ``array_length``,
            ``object_members``).
        pointer: JSON Pointer of ``value`` inside its input.

    Returns:
        One :class:`LongValue` per string longer than ``string_length`` characters, array
        longer than ``array_length`` items or object of more than ``object_members``
        members, by JSON Pointer; empty when none is.
    """
    found: list[LongValue] = []
    stack: list[tuple[Any, str]] = [(value, pointer)]
    strings, arrays, members = limits.string_length, limits.array_length, limits.object_members
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if len(item) > strings:
                found.append(LongValue(where, f"a string of {len(item):,} characters", strings,
                                       "string-length", quote_long(item)))
        elif isinstance(item, dict):
            if len(item) > members:
                found.append(LongValue(where, f"an object of {len(item):,} members", members,
                                       "object-members", ""))
                continue
            for key, child in item.items():
                if len(key) > strings:
                    found.append(LongValue(where, f"an object key of {len(key):,} characters",
                                           strings, "string-length", quote_long(key)))
                    continue
                stack.append((child, f"{where}/{escape_pointer(key)}"))
        elif isinstance(item, list):
            if len(item) > arrays:
                found.append(LongValue(where, f"an array of {len(item):,} items", arrays,
                                       "array-length", ""))
                continue
            stack.extend((child, f"{where}/{i}") for i, child in enumerate(item))
    return sorted(found, key=lambda v: v.pointer)


EXCERPT = 40
"""Characters of a string too long to quote whole that a message quotes (its first)."""


def quote_long(text: str) -> str:
    """Return how a message quotes a string past a limit: whole, or its first characters.

    The message has said the string's length already (:class:`LongValue`'s ``what``), so
    no second length is given (a cut ``repr`` used to add its own: ``a string of 158
    characters ... (160 characters)``).

    Args:
        text: the string (a value or an object key).

    Returns:
        ``: 'text'`` (its ``repr``) when that fits in
        :data:`~kistore.core.errors.QUOTE_WIDTH` characters (or the string is at most
        :data:`EXCERPT` characters); else ``; its first 40 characters: 'tex'``, marked as
        an excerpt.
    """
    if len(text) <= EXCERPT or (len(text) + 2 <= QUOTE_WIDTH and len(repr(text)) <= QUOTE_WIDTH):
        return f": {text!r}"
    return f"; its first {EXCERPT} characters: {text[:EXCERPT]!r}"


def check_value(value: Any, limits: Limits, *, file: str | None, pointer: str = "",
                line: int | None = None) -> list[InputError]:
    """Return an error for each string, array and object of a parsed JSON value past the limits.

    Args:
        value: the parsed value (a manifest, usually).
        limits: the limits to apply.
        file: the input, for errors.
        pointer: JSON Pointer of ``value`` inside the input.
        line: line of the input (JSON Lines), for errors.

    Returns:
        One :class:`InputError` per string longer than ``string_length`` characters (keys
        too), array longer than ``array_length`` items or object of more than
        ``object_members`` members (:func:`long_values`), at its JSON Pointer, quoting at
        most ~80 characters of a string; empty when every value is within the limits.
    """
    return [InputError(long_value_message(v), file=file, pointer=v.pointer, line=line)
            for v in long_values(value, limits, pointer)]


def long_value_message(value: LongValue) -> str:
    """Return what is said of one value past a limit: its size, the limit, how to raise it.

    Args:
        value: one of :func:`long_values`.

    Returns:
        ``a string of 70,000 characters, more than the limit of 65,536 (string-length);
        its first 40 characters: 'xxx'; raise ...`` (:func:`quote_long`; nothing quoted of
        an array or an object).
    """
    return (f"{past_limit(value.what, value.limit, value.key)}{value.excerpt}; "
            f"{SETTINGS_HINT.format(key=value.key)}")


def may_pass(size: int, limits: Limits) -> bool:
    """Return whether ``size`` bytes of JSON could hold a value past the limits.

    A string of N characters takes at least N bytes, an array of N items at least 2N - 1,
    an object of N members at least 5N + 1 (``{"":0,...}``): fewer bytes than every bound
    cannot hold one, and :func:`check_value` need not walk them.

    Args:
        size: bytes of the JSON text (a manifest's canonical object or metadata bytes).
        limits: the limits to apply (``string_length``, ``array_length``,
            ``object_members``).

    Returns:
        True when the walk is needed (``size`` > :func:`walk_bound`).
    """
    return size > walk_bound(limits)


@overload
def walk_bound(limits: Limits) -> int: ...


@overload
def walk_bound(limits: Limits, held: Limits | None) -> int | None: ...


def walk_bound(limits: Limits, held: Limits | None = None) -> int | None:
    """Return the most bytes of JSON that cannot hold a value the limits refuse.

    A string of N characters takes at least N bytes, an array of N items at least 2N - 1,
    an object of N members at least 5N + 1 (each ``"":0`` and its comma, two braces):
    a file of at most this many bytes need not be parsed and walked (:func:`may_pass` as
    one number, for a caller comparing many sizes: the query index reading a tree, one
    comparison a file). With ``held``, the limits a reader (the query index) checked its
    files under: only what those took and ``limits`` refuse counts, so a limit raised or
    kept adds nothing (a value within it was within before).

    Args:
        limits: the limits now (``string_length``, ``array_length``, ``object_members``).
        held: the limits the files were checked under; None (the default) when none were
            (every limit counts).

    Returns:
        The smallest of ``string_length``, ``2 * array_length - 1`` and
        ``5 * object_members + 1`` bytes (5,001 by default: one stored file of this
        repository is larger), of the limits that count; None when none counts (``held``
        given and no limit lowered: no file needs reading again). Never None without
        ``held``.
    """
    bounds = []
    if held is None or limits.string_length < held.string_length:
        bounds.append(limits.string_length)
    if held is None or limits.array_length < held.array_length:
        bounds.append(2 * limits.array_length - 1)
    if held is None or limits.object_members < held.object_members:
        bounds.append(5 * limits.object_members + 1)
    return min(bounds) if bounds else None


def within_value_limits(data: bytes, limits: Limits) -> bool:
    """Answer, fast, whether a stored file's strings, arrays and objects are within the limits.

    True at once for a file too short to hold a value past them (:func:`may_pass`), every
    real manifest; a longer one is parsed and walked (:func:`long_values`). False means
    "look closer" (``verify``'s KI107 check decides, and reports): a value past a limit,
    or bytes the fast parser does not prove canonical.

    Args:
        data: an object or metadata file's bytes.
        limits: the limits to apply (``string_length``, ``array_length``,
            ``object_members``).
    """
    if not may_pass(len(data), limits):
        return True
    value = canonical_fast.loads_if_canonical(data)
    return value is not None and not long_values(value, limits)


def check_manifest(document: Any, object_bytes: bytes, metadata_bytes: bytes, limits: Limits,
                   *, file: str | None, pointer: str = "") -> list[InputError]:
    """Return every limit a manifest passes: its canonical bytes, strings, arrays, objects.

    The walk over its values is skipped when the canonical bytes are too few to hold a
    value past the limits (:func:`walk_bound`), as for all but one real manifest (16 KB
    at most in shared/data): a bulk add pays one length check a manifest.

    Args:
        document: the parsed manifest.
        object_bytes: the canonical bytes of its ``{apiVersion, kind, spec}``.
        metadata_bytes: the canonical bytes of its metadata.
        limits: the limits to apply.
        file: the input, for errors.
        pointer: JSON Pointer of the manifest inside the input.

    Returns:
        The errors (empty when the manifest is within every limit).
    """
    errors = check_manifest_bytes(object_bytes, metadata_bytes, limits, file=file,
                                  pointer=pointer)
    if may_pass(max(len(object_bytes), len(metadata_bytes)), limits):
        errors += check_value(document, limits, file=file, pointer=pointer)
    return errors


def check_manifest_bytes(object_bytes: bytes, metadata_bytes: bytes, limits: Limits, *,
                         file: str | None, pointer: str = "",
                         line: int | None = None) -> list[InputError]:
    """Return an error when a manifest's canonical object or metadata bytes pass the limit.

    Args:
        object_bytes: the canonical bytes of ``{apiVersion, kind, spec}``.
        metadata_bytes: the canonical bytes of its metadata.
        limits: the limits to apply (``manifest_bytes``).
        file: the input, for errors.
        pointer: JSON Pointer of the manifest inside the input.
        line: line of the input (JSON Lines), for errors.
    """
    errors = []
    for what, data, at in (("object", object_bytes, "/spec"),
                           ("metadata", metadata_bytes, "/metadata")):
        if len(data) > limits.manifest_bytes:
            errors.append(InputError(
                f"its {what} in canonical form is "
                f"{bytes_past_limit(len(data), limits.manifest_bytes)}; "
                f"{SETTINGS_HINT.format(key='manifest-bytes')}",
                file=file, pointer=pointer + at, line=line))
    return errors

