"""KI227 before an add writes: a run observed after the clock (refused), or before 2000.

:meth:`kistore.store.Store.add` asks :func:`observed_admitted` with the new manifests (an
:data:`kistore.store.AdmissionCheck` it always runs). A run whose ``observedAt`` lies more
than a day past this machine's clock (it enters the repository now) is refused (nothing is
written; until 2026-12-04 a warning, reviewer r87); one before 2000 is an
:class:`kistore.store.AdmissionWarning`, which ``kistore add`` and ``import`` print.
``check`` judges a range's runs against the commit that adds each, ``verify`` the history's
(:mod:`kistore.core.observed` owns the rules and their words).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.model import Manifest
from ..core.observed import (
    ADDED_ADVICE,
    EARLIEST,
    OBSERVED_AFTER_ENTRY,
    POINTER,
    observed_problem,
    observed_rule,
    observed_text,
    run_observed,
)
from ..core.times import commit_text
from ._store import AdmissionWarning

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store


def observed_admitted(store: Store, manifests: Sequence[Manifest], *,
                      now: float | None = None) -> list[tuple[Digest, KistoreError]]:
    """KI227 refusals (observed after the clock) and warnings (before 2000) for an add.

    Args:
        store: the store added to (unused: the rule reads the manifests and the clock).
        manifests: the manifests the add would add (new objects).
        now: the clock, seconds since the epoch; None: this machine's.

    Returns:
        At ``/spec/observedAt``, ``(run digest, InputError)`` per run whose ``observedAt``
        lies more than a day after ``now`` (refused: nothing is written), and ``(run
        digest, AdmissionWarning)`` per run observed before 2000-01-01 (added all the same,
        with what to do whether the add is committed or not; said in full for the first
        such run, then in one short line each: its time and its `kistore drop`).
    """
    clock = int(time.time() if now is None else now)
    problems: list[tuple[Digest, KistoreError]] = []
    judged = []
    for m in manifests:
        # from the canonical bytes: m.spec would keep each run's parsed document (issue 22)
        observed = run_observed(m.object_bytes) if m.kind == "BenchmarkRun" else None
        broken = None if observed is None else observed_rule(observed, clock, entering=True)
        if observed is not None and broken is not None:
            judged.append((m.digest, observed, broken))
    early = sum(1 for *_, broken in judged if broken is not OBSERVED_AFTER_ENTRY)
    count = f"; {early} runs of this add are so, each warned of" if early > 1 else ""
    said_once = False
    for digest, observed, broken in judged:
        said = observed_problem(observed, clock, "this add, by this machine's clock")
        if broken is OBSERVED_AFTER_ENTRY:
            problems.append((digest, InputError(
                f"{said}; state when the run was measured (RFC 3339) and add it again "
                f"({broken.id})", pointer=POINTER, rule_id=broken.id)))
        elif not said_once:
            said_once = True
            problems.append((digest, AdmissionWarning(
                f"{said}; {ADDED_ADVICE.format(ref=digest)} ({broken.id}: added all the "
                f"same; `check` and `verify` warn too{count})", pointer=POINTER)))
        else:  # msg94 F10: ~580 characters a run, an import of old runs said it each time
            problems.append((digest, AdmissionWarning(
                f"observed at {observed_text(observed)}, before {commit_text(EARLIEST)} too: "
                f"as the first such warning says ({broken.id}; `kistore drop {digest}` takes "
                "it back while not committed)", pointer=POINTER)))
    return problems
