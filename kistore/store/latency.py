"""KI230 and KI233 before an add writes: a run's latency that reads as another unit (warnings).

:meth:`kistore.store.Store.add` asks :func:`latency_admitted` with the new manifests (an
:data:`kistore.store.AdmissionCheck` it always runs). Nothing is refused: each finding is an
:class:`kistore.store.AdmissionWarning`, which ``kistore add`` and ``import`` print, so the
contributor sees it before a reviewer does; ``check`` and ``verify`` report the same
findings (``kistore/check/_rules.py``). :mod:`kistore.core.contradictions` owns both rules
and their words:

* KI230, a latency statistic below 100 ns (:func:`~kistore.core.contradictions.
  implausible_latencies`): milliseconds written as nanoseconds, the usual slip (reviewer
  r89 F5: the contributing guide's run in ms was added, ranked #1, and ``add`` said nothing);
* KI233, ``timing.latencyNs.mean`` and ``sourceNative.metrics.latency_ms`` that are not one
  number (:func:`~kistore.core.contradictions.latency_units_disagree`, reviewer r89 F3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.contradictions import LATENCY_UNITS_DISAGREE
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import Manifest
from ._store import ValueWarning
from .run_facts import facts_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store

_ADDED = "added all the same; `check` and `verify` warn too"


def latency_admitted(store: Store, manifests: Sequence[Manifest]
                     ) -> list[tuple[Digest, KistoreError]]:
    """KI230 and KI233 warnings for the runs an add would add.

    Args:
        store: the store added to (unused: the rules read each run alone).
        manifests: the manifests the add would add (new objects).

    Returns:
        ``(run digest, AdmissionWarning)`` per BenchmarkRun stating a latency statistic
        (ns) below the floor, at ``/spec/timing/latencyNs/S`` of the lowest such ``S``
        (KI230), and per run whose ``timing.latencyNs.mean`` and
        ``sourceNative.metrics.latency_ms`` disagree, at ``/spec/timing/latencyNs/mean``
        (KI233); each run is added all the same. Each a :class:`kistore.store.
        ValueWarning`: in a ``.json`` input, placed at the value's line and column, as
        KI221's (msg03: ``run.json:/spec/timing/latencyNs/mean`` until 2026-12-07).
    """
    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        if m.kind != "BenchmarkRun":
            continue
        facts = facts_of(m)  # the run's spec parsed once for every rule (issue 22)
        for c in facts.latencies:
            problems.append((m.digest, ValueWarning(
                f"{c.message} ({c.rule}: {_ADDED})", pointer=c.pointer)))
        slip = facts.latency_slip
        if slip is not None:
            problems.append((m.digest, ValueWarning(
                f"{slip.message}; {LATENCY_UNITS_DISAGREE.hint} ({LATENCY_UNITS_DISAGREE.id}: "
                f"{_ADDED})", pointer=slip.pointer)))
    return problems
