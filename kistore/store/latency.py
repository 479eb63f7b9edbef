"""KI230 before an add writes: a run stating a latency no GPU kernel reaches (a warning).

:meth:`kistore.store.Store.add` asks :func:`latency_admitted` with the new manifests (an
:data:`kistore.store.AdmissionCheck` it always runs). Nothing is refused: a run stating a
latency statistic below :data:`kistore.core.contradictions.LATENCY_FLOOR_NS` (milliseconds
written as nanoseconds, the usual slip) is an :class:`kistore.store.AdmissionWarning`, which
``kistore add`` and ``import`` print, so the contributor sees it before a reviewer does
(reviewer r89 F5: the contributing guide's run in ms ranked #1 and ``add`` said nothing).
``check`` and ``verify`` report the same finding (:mod:`kistore.core.contradictions` owns
the rule and its words).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.canonical_fast import loads_lenient
from ..core.contradictions import implausible_latencies
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import Manifest
from ._store import AdmissionWarning

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store

_KEY = b'"latencyNs":{'


def latency_admitted(store: Store, manifests: Sequence[Manifest]
                     ) -> list[tuple[Digest, KistoreError]]:
    """KI230 warnings for the runs an add would add.

    Args:
        store: the store added to (unused: the rule reads each run alone).
        manifests: the manifests the add would add (new objects).

    Returns:
        ``(run digest, AdmissionWarning)`` per BenchmarkRun stating a latency statistic
        (ns) below the floor, at ``/spec/timing/latencyNs/S`` of the lowest such ``S``;
        the run is added all the same.
    """
    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        if m.kind != "BenchmarkRun":
            continue
        for c in implausible_latencies(_spec_latency(m.object_bytes)):
            problems.append((m.digest, AdmissionWarning(
                f"{c.message} ({c.rule}: added all the same; `check` and `verify` warn "
                "too)", pointer=c.pointer)))
    return problems


def _spec_latency(data: bytes) -> Any:
    """Return a run's ``spec`` reduced to its ``timing.latencyNs``, from canonical bytes.

    In canonical bytes (RFC 8785) ``"latencyNs":{`` occurs only as a key (every ``"`` in a
    string is escaped) and the schema makes its value an object of numbers: when the key
    occurs once, that object ends at the first ``}``, parsed alone instead of the whole
    run (a 100,000-run import parses no document twice). Otherwise the object is parsed.
    """
    if data.count(_KEY) == 1:
        start = data.find(_KEY) + len(_KEY) - 1
        end = data.find(b"}", start)
        try:
            latency = json.loads(data[start:end + 1])
        except ValueError:
            latency = None
        if isinstance(latency, dict):
            return {"timing": {"latencyNs": latency}}
    try:
        document = loads_lenient(data)
    except ValueError:
        return None
    return document.get("spec") if isinstance(document, dict) else None
