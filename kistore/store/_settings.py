"""``kistore.toml`` read once: its bytes, its parse, and every answer kistore takes from it.

:meth:`kistore.store.Store.settings` reads the file (the work tree's or a commit's, as
:meth:`~kistore.store.Store.settings_file` says) and parses it once into a
:class:`Settings`; what the limits, the gate and ``verify`` need of it are methods of that
one value, so a run reads and parses each revision's file once (the gate read HEAD's three
or four times: its limits, its KI108, its ``[cite]`` and tables). The rules of each table
are the pure core's (:mod:`kistore.core.limits`, :mod:`kistore.core.settings`); this module
only parses (:func:`parse_settings`: ``tomllib``, loaded on first use) and keeps the result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core.canonical import pointer_tokens
from ..core.errors import InputError, KistoreError, MultipleErrors, StoreStateError
from ..core.limits import Limits
from ..core.settings import (
    STORE_FIX,
    STORE_VERSION,
    cite_problems,
    cite_table,
    committed_help,
    revision_said,
    store_fix,
    store_problems,
    table_key_problems,
    unknown_tables,
)


@dataclass(frozen=True)
class Settings:
    """One ``kistore.toml``, read and parsed once (:meth:`kistore.store.Store.settings`).

    Attributes:
        data: the file's bytes; None when there is none (or no commit yet), or it is not a
            regular file (``unreadable`` says so).
        file: its name in errors (the work tree's path, or ``kistore.toml`` for a commit's).
        parsed: the parsed TOML (treat as read-only); None when it does not parse or cannot
            be read.
        unreadable: the error of a ``kistore.toml`` that is not a regular file (a symlink,
            a directory): its settings are unknown, never taken for the defaults.
        parse_error: the one problem of bytes that do not parse (not UTF-8, not TOML,
            nested too deep); empty when they parse.
        at: the revision whose committed file this is, as asked (``HEAD``, an id); None:
            the work tree's. Named in the fix of a parse error (fresh07 L4).
    """

    data: bytes | None
    file: str
    parsed: dict[str, Any] | None = None
    unreadable: InputError | None = None
    parse_error: list[KistoreError] = field(default_factory=list)
    at: str | None = None

    @classmethod
    def from_bytes(cls, data: bytes | None, file: str, at: str | None = None) -> Settings:
        """Parse the bytes of a ``kistore.toml`` (None: no file, the default settings).

        ``at``: the revision the bytes are committed at (None: the work tree's file).
        Never raises: a parse error is kept (:attr:`parse_error`).
        """
        try:
            return cls(data, file, parse_settings(data or b"", file=file, at=at), at=at)
        except InputError as e:
            return cls(data, file, parse_error=list(e.problems), at=at)

    @classmethod
    def not_regular(cls, error: InputError, file: str) -> Settings:
        """Return the settings of a ``kistore.toml`` that is not a regular file (``error``)."""
        return cls(None, file, unreadable=error)

    def limits_per_key(self) -> tuple[Limits, list[KistoreError]]:
        """Return ``[limits]`` with each bad key at its default, and the problems.

        Returns:
            ``(limits, problems)``: one problem per bad key (JSON Pointer ``/limits/KEY``),
            or the parse error with every limit at its default; no problem: the limits.

        Raises:
            InputError: the file is not a regular file (:attr:`unreadable`).
        """
        if self.unreadable is not None:
            raise self.unreadable
        if self.parsed is None:
            return Limits(), list(self.parse_error)
        limits, problems = Limits.from_toml_per_key(self.parsed.get("limits"), file=self.file)
        return limits, list(problems)

    def stated_limits(self) -> Limits | None:
        """Return the ``[limits]`` the file states, a value past its ceiling as stated.

        What a range's change to a limit is judged from (reviewer r79 F9): a store that
        set ``manifest-bytes`` to 32 MiB before the ceilings existed (2026-12-03) holds
        files up to that size, so setting the 16 MiB ceiling lowers the limit below them
        (KI106), it does not raise it from the default (KI426). Each other bad key keeps
        its default, as in :meth:`limits_per_key`.

        Returns:
            The limits, or None when the file is not a regular file (its settings unknown).
        """
        if self.unreadable is not None:
            return None
        if self.parsed is None:
            return Limits()
        return Limits.from_toml_per_key(self.parsed.get("limits"), file=self.file,
                                        ceiling=False)[0]

    def limits(self) -> Limits:
        """Return ``[limits]``, refusing a bad file.

        Raises:
            InputError: not a regular file, not UTF-8 TOML, or one bad key of ``[limits]``.
            MultipleErrors: several bad keys (an ``InputError`` each).
        """
        limits, problems = self.limits_per_key()
        if len(problems) > 1:
            raise MultipleErrors(problems)
        if problems:
            raise problems[0]
        return limits

    def valid_limits(self) -> Limits | None:
        """Return ``[limits]``, or None when the file is not regular, not TOML or a key is bad."""
        try:
            return self.limits()
        except (InputError, MultipleErrors):
            return None

    def limit_problems(self) -> list[KistoreError]:
        """Return every problem :meth:`limits` would raise (not a regular file included)."""
        try:
            return self.limits_per_key()[1]
        except InputError as e:
            return list(e.problems)

    def other_problems(self) -> list[tuple[InputError, str]]:
        """Return what else is wrong in a file that parses, each with its fix.

        Per table kistore does not read (:func:`kistore.core.settings.unknown_tables`),
        per key of ``[store]`` or ``[cite]`` it does not read (:func:`kistore.core.settings.
        table_key_problems`), then ``[store] version`` (:func:`kistore.core.settings.
        store_problems`), then
        ``[cite]`` as ``kistore cite`` refuses it (:func:`kistore.core.settings.
        cite_problems`). A file that does not parse, or is not a regular file: empty
        (:meth:`limit_problems` says so).

        Returns:
            ``(problem, kind)`` pairs, ``kind`` one of ``table``, ``key``, ``store`` (a
            newer kistore's version), ``store-value`` (a version no release writes: ``"1"``,
            ``1.0``, ``0``), ``cite``.
        """
        if self.parsed is None:
            return []
        return [*((p, "table") for p in unknown_tables(self.parsed, file=self.file)),
                *((p, "key") for p in table_key_problems(self.parsed, file=self.file)),
                *((p, "store" if store_fix(self.parsed) == STORE_FIX else "store-value")
                  for p in store_problems(self.parsed, file=self.file)),
                *((p, "cite") for p in cite_problems(self.parsed, file=self.file))]

    def unread_problems(self) -> list[KistoreError]:
        """Return each table, and key of ``[store]`` or ``[cite]``, kistore does not read.

        What ``add`` refuses and queries warn about beside a bad ``[limits]`` key (review
        r70 F4, F3): ``[limit]`` or ``[Limits]`` meant to lower a limit lowers nothing, so a
        write under it is refused as under a bad key, each at its JSON Pointer, line and
        column (:func:`settings_place`). A file that does not parse: empty
        (:meth:`limit_problems` says so).
        """
        if self.parsed is None:
            return []
        return [_placed(p, self.data) for p in (*unknown_tables(self.parsed, file=self.file),
                                               *table_key_problems(self.parsed,
                                                                   file=self.file))]

    def version_problems(self) -> list[InputError]:
        """Return what a query says of a ``[store] version`` this kistore does not write.

        Queries still read such a store (docs/design.md): a newer kistore's layout may be
        misread, so each query warns (review 2026-12-02, F29), with the fix
        :func:`kistore.core.settings.store_fix` gives. A file that does not parse: empty
        (:meth:`limit_problems` says so).

        Returns:
            At most one error at ``/store`` or ``/store/version`` (and its line and
            column: :func:`settings_place`): what
            :func:`kistore.core.settings.store_problems` says, that queries read the store
            as this kistore's version and may misread it, and the fix.
        """
        if self.parsed is None:
            return []
        return [_placed(InputError(
            f"{p.message}: queries read it as store version {STORE_VERSION} and may misread "
            f"it; {store_fix(self.parsed)}", file=p.file, pointer=p.pointer), self.data)
            for p in store_problems(self.parsed, file=self.file)]

    def cite(self) -> dict[str, str]:
        """Return ``[cite]`` as ``kistore cite`` reads it (:func:`~.settings.cite_table`).

        Returns:
            ``publisher`` always (the default when unset), ``permalink`` when set.

        Raises:
            InputError: the file is not a regular file (:attr:`unreadable`), does not parse
                (:attr:`parse_error`, naming :attr:`file`), or ``[cite]`` is not a table of
                non-empty strings (named ``kistore.toml``, as ``cite``'s other ``[cite]``
                errors, its template's, name it).
            MultipleErrors: the parse error was several problems.
        """
        if self.unreadable is not None:
            raise self.unreadable
        if self.parsed is None:
            if len(self.parse_error) == 1:
                raise self.parse_error[0]
            raise MultipleErrors(self.parse_error)
        return cite_table(self.parsed)

    def refuse_other_version(self, command: str) -> None:
        """Refuse a write into a store whose ``[store] version`` this kistore does not write.

        Args:
            command: the command as the message names it (``kistore add``).

        Raises:
            StoreStateError: ``[store] version`` is not
                :data:`kistore.core.settings.STORE_VERSION` (or not an integer): the
                message names the file, the version found and this kistore's, and says to
                upgrade kistore (a newer version) or to set the integer 1 (a value no
                release writes: :func:`kistore.core.settings.store_fix`); nothing was
                written.
        """
        if self.parsed is None:
            return
        for problem in store_problems(self.parsed, file=self.file):
            raise StoreStateError(f"{problem.message}: {command} refuses to write; "
                                  f"{store_fix(self.parsed)}; nothing was written",
                                  file=self.file,
                                  pointer=problem.pointer)


TOML_HELP = ("TOML 1.0: https://toml.io/en/v1.0.0; `git diff kistore.toml` shows what changed "
             "since the last commit")
"""Where to read TOML's syntax, and how to see one's own edit: said with a parse error."""


def parse_settings(data: bytes, *, file: str, at: str | None = None) -> dict[str, Any]:
    """Parse the bytes of a ``kistore.toml`` (empty bytes: no settings).

    ``at``: the revision whose committed file the bytes are (None: the work tree's): the
    error then says how to see it and that it is corrected in a new commit, a commit's
    file never changing (:func:`committed_help`), not to edit the file and run again.

    Raises:
        InputError: the bytes are not UTF-8, start with a byte-order mark, or are not
            TOML, or arrays or inline tables nest
            deeper than Python's TOML parser reads (a few hundred levels: it recurses; the
            error names the line and column where the nesting is deepest).
    """
    # Lazy: tomllib (~4 ms of start-up) only where kistore.toml is read: a warm query never.
    import tomllib

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start}); save it "
                         "as UTF-8", file=file) from None
    if text.startswith("\ufeff"):  # tomllib: "Invalid statement" at 1:1, which hides it
        raise InputError("kistore.toml starts with a byte-order mark (U+FEFF); save it as "
                         "UTF-8 without BOM", file=file, line=1, column=1)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        what, line, column = _toml_place(str(e), text)
        fix = (f"correct the file at that line and column ({TOML_HELP}), then run the command "
               "again" if at is None else "this is kistore.toml as committed at "
               f"{revision_said(at)} ({committed_help(at)}): a commit's files never change, "
               "so a new commit corrects it for the commits after it")
        raise InputError(f"not valid TOML: {what}; {fix}",
                         file=file, line=line, column=column) from None
    except RecursionError:  # a value of 3,000 "[": a bad file, never a crash
        depth, line, column = _deepest_nesting(text)
        raise InputError(
            f"not valid TOML for kistore: arrays or inline tables nest {depth} levels deep, "
            "deeper than Python's TOML parser reads (a few hundred levels); flatten the value",
            file=file, line=line, column=column) from None


def _toml_place(said: str, text: str) -> tuple[str, int, int]:
    """Return ``(what, line, column)`` of a ``tomllib`` error message about ``text``.

    Python 3.11's ``TOMLDecodeError`` has its place only in its message, ``Invalid value
    (at line 3, column 1)`` or ``... (at end of document)`` (3.14 adds attributes, with the
    same message): the place becomes the error's ``FILE:LINE:COL`` (msg95 4: the line was
    left inside the words, and the end of the document was no place at all).

    Args:
        said: ``str()`` of the error.
        text: the document parsed.

    Returns:
        The message without its place (the end of the document said as "at the end of the
        file: a table, array or string opened is not closed" where that is what it means),
        the 1-based line and column.
    """
    found = re.search(r" \(at line (\d+), column (\d+)\)$", said)
    if found is not None:
        return said[:found.start()], int(found[1]), int(found[2])
    lines = text.split("\n")
    what = said.removesuffix(" (at end of document)")
    if what != said:
        what += " at the end of the file (a value, bracket or string there is not finished)"
    return what, len(lines), len(lines[-1]) + 1


def _deepest_nesting(text: str) -> tuple[int, int, int]:
    """Return ``(depth, line, column)``: how deep ``[``/``{`` nest in TOML ``text``, where.

    The line and column (1-based) are those of the bracket first opening the deepest level.
    Brackets inside strings (basic, literal, multi-line) and comments are not counted; a
    table header (``[table]``, ``[[array]]``) counts while it is open, as shallow as it is.
    Only an error message depends on it: :func:`parse_settings` after a ``RecursionError``.
    """
    depth = deepest = 0
    line, line_start, where = 1, 0, (1, 1)
    at, end = 0, len(text)
    while at < end:
        c = text[at]
        if c in "\"'":
            close = c * 3 if text.startswith(c * 3, at) else c
            at += len(close)
            while at < end and not text.startswith(close, at):
                if text[at] == "\n":
                    line, line_start = line + 1, at + 1
                at += 2 if text[at] == "\\" and c == '"' and text[at + 1:at + 2] != "\n" else 1
            at += len(close)
            continue
        if c == "#":
            at = text.find("\n", at)
            if at == -1:
                break
            continue
        if c == "\n":
            line, line_start = line + 1, at + 1
        elif c in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, (line, at - line_start + 1)
        elif c in "]}":
            depth = max(depth - 1, 0)
        at += 1
    return deepest, *where


_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
"""How :mod:`tomllib` says where a syntax error is, at the end of its message."""


def settings_place(data: bytes | None, pointer: str | None, message: str
                   ) -> tuple[int | None, int | None]:
    """Return the 1-based (line, column) of a problem of a ``kistore.toml``, or (None, None).

    Args:
        data: the file's bytes (None: no file).
        pointer: the JSON Pointer of the value at fault (``/limits/string-length``,
            ``/cite/permalink``, ``/limit`` for a table), or None/``""`` for the file.
        message: the problem's message: a TOML syntax error ends with ``(at line N, column
            M)``, which is taken as is.

    Returns:
        The syntax error's place; else the first line setting the key (``KEY = ...`` under
        its ``[TABLE]`` header, ``TABLE.KEY = ...`` at the top, keys bare or quoted; or the
        inline table holding it) or opening the table (``[TABLE]``) the pointer names, and
        the column of its first character; (None, None) when neither is found.
    """
    said = _AT.search(message)
    if said is not None:
        return int(said[1]), int(said[2])
    if data is None or not pointer:
        return None, None
    wanted = pointer_tokens(pointer)
    table: list[str] = []
    for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        line = raw.strip()
        if line.startswith("["):
            inner = line.lstrip("[")
            table = _dotted(inner[:inner.find("]")] if "]" in inner else inner)
            here = table[:len(wanted)] == wanted  # the table, or one inside it
        else:
            name, equals, _ = line.partition("=")
            if not equals or line.startswith("#"):
                continue
            found = table + _dotted(name)  # the key, one inside it, or an inline table
            here = found[:len(wanted)] == wanted or wanted[:len(found)] == found
        if here:
            return number, len(raw) - len(raw.lstrip()) + 1
    return None, None


def _dotted(key: str) -> list[str]:
    """Return the parts of a TOML dotted key, unquoted and unspaced (``"a" . b``: a, b)."""
    return [part.strip().strip("\"'") for part in key.split(".")]


def _placed(problem: InputError, data: bytes | None) -> InputError:
    """Return ``problem`` with the line and column :func:`settings_place` finds in ``data``."""
    line, column = settings_place(data, problem.pointer, problem.message)
    return InputError(problem.message, file=problem.file, pointer=problem.pointer, line=line,
                      column=column)
