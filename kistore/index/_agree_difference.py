"""One difference between the kept index and a fresh build, as ``reindex --check`` says it.

:class:`Difference` is what every comparison of :mod:`.agree` returns (the query rows in
:mod:`._agree_records`, the names in :mod:`._agree_names`, the skipped list in
:mod:`.agree` itself); :func:`plain_differ` compares a table of plain rows; :func:`text`
is how a value of either side is shown (JSON). Nothing here reads a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import orjson


class Difference(NamedTuple):
    """One way the kept index and a fresh build differ.

    Attributes:
        table: ``records``, ``skipped``, ``names (work)``, ``names (commit)`` or ``index``
            (the file as a whole).
        digest: the manifest's ``sha256:<hex>`` (or, for a row whose digest cannot be
            read, ``row N``; for the file, its path).
        name: ``KIND/NAME`` of the manifest as either side names it ("" when neither does).
        field: the column or spec key that differs (``spec.status``, ``role``); ``row``
            when the row is on one side only; ``seal`` when the kept row does not match its
            seal.
        in_index: what the kept index holds (JSON text; None: nothing).
        in_store: what a fresh build from the store holds (JSON text; None: nothing).
        stale: the index is behind git here and catches up at the next query.
    """

    table: str
    digest: str
    name: str
    field: str
    in_index: str | None
    in_store: str | None
    stale: bool


def plain_differ(table: str, kept: Mapping[str, tuple[str, ...]],
                 fresh: Mapping[str, tuple[str, ...]], stale: bool, fields: tuple[str, ...]
                 ) -> list[Difference]:
    """Return the differences between two tables of plain rows (digest -> values)."""
    found = []
    for digest in sorted(kept.keys() | fresh.keys()):
        a, b = kept.get(digest), fresh.get(digest)
        label = (b or a or ("",))[0]
        if a is None or b is None:
            found.append(Difference(table, digest, label, "row",
                                    None if a is None else text(dict(zip(fields, a, strict=True))),
                                    None if b is None else text(dict(zip(fields, b, strict=True))),
                                    stale))
            continue
        found += [Difference(table, digest, label, field, text(x), text(y), stale)
                  for field, x, y in zip(fields, a, b, strict=True) if x != y]
    return found


def text(value: object) -> str:
    """Return a value as JSON text (keys sorted), as a difference shows it."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
