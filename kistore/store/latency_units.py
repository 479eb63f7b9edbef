"""KI233 before an add writes: a run whose two statements of one latency disagree (a warning).

:mod:`kistore.core.contradictions` owns the rule and its words
(:func:`~kistore.core.contradictions.latency_units_disagree`); ``check`` and ``verify``
report it per run (``kistore/check/_rules.py``). :func:`latency_units_admitted` is an
:data:`kistore.store.AdmissionCheck` :meth:`Store.add` always runs: nothing is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.contradictions import LATENCY_UNITS_DISAGREE, latency_units_disagree
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import Manifest
from ._store import AdmissionWarning

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store


def latency_units_admitted(store: Store, manifests: Sequence[Manifest]
                           ) -> list[tuple[Digest, KistoreError]]:
    """KI233 warnings for the runs an add would add.

    Args:
        store: the store added to (unused: the rule reads each run alone).
        manifests: the manifests the add would add (new objects).

    Returns:
        ``(run digest, AdmissionWarning)`` per run whose ``timing.latencyNs.mean`` and
        ``sourceNative.metrics.latency_ms`` disagree, at ``/spec/timing/latencyNs/mean``.
    """
    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        if m.kind != "BenchmarkRun":
            continue
        slip = latency_units_disagree(m.passing_spec())
        if slip is not None:
            problems.append((m.digest, AdmissionWarning(
                f"{slip.message}; {LATENCY_UNITS_DISAGREE.hint} ({LATENCY_UNITS_DISAGREE.id}: "
                "added all the same; `check` and `verify` warn too)", pointer=slip.pointer)))
    return problems
