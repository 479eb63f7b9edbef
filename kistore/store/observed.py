"""KI227 before an add writes: a run observed after the clock, or before 2000.

:meth:`kistore.store.Store.add` asks :func:`observed_admitted` with the new manifests (an
:data:`kistore.store.AdmissionCheck` it always runs). Nothing is refused: a run whose
``observedAt`` lies more than a day past this machine's clock (it enters the repository
now) or before 2000 is an :class:`kistore.store.AdmissionWarning`, which ``kistore add``
and ``import`` print; ``check`` and ``verify`` judge it against the commit that adds it
(:mod:`kistore.core.observed` owns the rule and its words).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import Manifest
from ..core.observed import OBSERVED_IMPLAUSIBLE, POINTER, observed_problem, run_observed
from ._store import AdmissionWarning

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store


def observed_admitted(store: Store, manifests: Sequence[Manifest], *,
                      now: float | None = None) -> list[tuple[Digest, KistoreError]]:
    """KI227 warnings for the runs an add would add.

    Args:
        store: the store added to (unused: the rule reads the manifests and the clock).
        manifests: the manifests the add would add (new objects).
        now: the clock, seconds since the epoch; None: this machine's.

    Returns:
        ``(run digest, AdmissionWarning)`` per run whose ``observedAt`` lies more than a day
        after ``now`` or before 2000-01-01, at ``/spec/observedAt``.
    """
    clock = int(time.time() if now is None else now)
    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        # from the canonical bytes: m.spec would keep each run's parsed document (issue 22)
        observed = run_observed(m.object_bytes) if m.kind == "BenchmarkRun" else None
        said = None if observed is None else observed_problem(
            observed, clock, "this add, by this machine's clock")
        if said is not None:
            problems.append((m.digest, AdmissionWarning(
                f"{said}; {OBSERVED_IMPLAUSIBLE.hint} ({OBSERVED_IMPLAUSIBLE.id}: added all "
                "the same; `check` and `verify` warn too)", pointer=POINTER)))
    return problems
