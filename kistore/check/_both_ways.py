"""A file per path that agrees with the manifests, both ways: one loop for three rule pairs.

Names files (:mod:`kistore.check._names`: KI211, KI212), forward records
(:mod:`kistore.check._forward`: KI213, KI214) and group files (:mod:`kistore.check._groups`:
KI215, KI216) have one shape: a file at a path of the layout
whose path and bytes say something about manifests, held to the manifests in both
directions:

* each file that is present says what the manifests say (KI212, KI214, KI216): the case's
  ``disagrees``, given the file's bytes and what they hold;
* each file the manifests need is present and says it (KI211, KI213, KI215): the case's
  ``needs``, each judged by its ``lacks``.

:func:`check_both_ways` is that loop, once; a rule module hands it its case (how a file's
bytes are parsed, the two judgements, the needs of its manifests). Like the rules it is pure:
the caller reads the files.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Iterable
from typing import Final, TypeVar

from ..core.findings import Finding

Held = TypeVar("Held")
"""What a file's bytes hold, parsed (a digest, a tuple of fields)."""
Need = TypeVar("Need")
"""What one manifest needs of one file (the case's own data, handed back to ``lacks``)."""


class Absent(enum.Enum):
    """The type of :data:`ABSENT`."""

    ABSENT = "absent"


ABSENT: Final = Absent.ABSENT
"""What ``lacks`` is given for a needed file that is not in the tree."""


def check_both_ways(present: Iterable[str], read: Callable[[str], bytes | None],
                    parse: Callable[[bytes], Held | None],
                    disagrees: Callable[[str, bytes, Held | None], Finding | None],
                    needs: Iterable[tuple[str, str, Need]],
                    lacks: Callable[[Need, Held | None | Absent], Finding | None], *,
                    focus: Callable[[str], bool] | None = None,
                    focus_digests: set[str] | None = None,
                    settled: Collection[str] = ()) -> list[Finding]:
    """Hold one kind of file to the manifests, both ways.

    Args:
        present: the paths of the tree where such a file is (regular file or not).
        read: the bytes of a path, or None when it is no regular file (a symlink is KI111
            already, and neither way judges it); the only I/O, called at most once per path.
        parse: what bytes hold, or None when they are not of the file's form.
        disagrees: ``disagrees(path, data, held)``: the finding about a present regular file
            (its bytes and what they hold), or None when it says what the manifests say.
        needs: ``(path, owner, need)`` per file a manifest needs: its path, the hex digest of
            the manifest that needs it, and what ``lacks`` is handed back.
        lacks: ``lacks(need, held)``: the finding about a need whose file is absent
            (``held`` is :data:`ABSENT`) or holds ``held`` (None: not of the form), or None
            when the need is met.
        focus: judge only the present paths this is true of, and only the needs whose path it
            is true of or whose owner is in ``focus_digests`` (a gate); None: everything.
        focus_digests: with ``focus``, the hex digests whose manifests the range touches.
        settled: present paths the caller already found to agree (``verify``'s workers read
            them); they are not judged, and a need of one is judged only as ``present``
            paths are. Empty: none.

    Returns:
        The ``disagrees`` findings, by path, then the ``lacks`` findings, in ``needs``'s
        order.
    """
    present = set(present)
    held_at: dict[str, tuple[Held | None] | None] = {}  # None: no regular file

    def held(path: str) -> tuple[Held | None] | None:
        if path not in held_at:
            data = read(path)
            held_at[path] = None if data is None else (parse(data),)
        return held_at[path]

    findings: list[Finding] = []
    for path in sorted(present.difference(settled)):
        if focus is not None and not focus(path):
            continue
        data = read(path)
        if data is None:
            held_at[path] = None
            continue  # not a regular file: KI111 says so
        parsed = parse(data)
        held_at[path] = (parsed,)
        finding = disagrees(path, data, parsed)
        if finding is not None:
            findings.append(finding)
    for path, owner, need in needs:
        if focus is not None and not focus(path) and owner not in (focus_digests or ()):
            continue
        if path in present or path in settled:
            found = held(path)
            if found is None:
                continue  # not a regular file: KI111
            finding = lacks(need, found[0])
        else:
            finding = lacks(need, ABSENT)
        if finding is not None:
            findings.append(finding)
    return findings
