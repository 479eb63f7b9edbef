"""Where in ``kistore.toml`` a settings problem is: the line and column of a key or table.

KI108 findings carried no line, though the TOML error named one ("at line 5, column 8") and
a bad key has one (review r60 F14): ``check --format github`` then annotated the file, not
the changed line. :func:`settings_place` finds it: from the parse error's own words, else by
a line-wise look for the key a JSON Pointer names (the file parsed, or the error would have
been the parse error's).
"""

from __future__ import annotations

import re

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
    wanted = [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
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
