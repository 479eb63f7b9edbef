"""Whether an attestation agrees with the manifest it is about (the store's side of it).

A signature proves who said something about a digest, not that it makes sense for that
manifest. Two kinds of attestation have an effect, so they are held to their subject:

* a **withdrawal** removes a run from rankings: it must be about a BenchmarkRun (a
  Workload, Protocol or Implementation withdrawn would take effect on no run, silently);
* a **rerun** makes a run ``verified``: it must be about a BenchmarkRun, its
  ``environmentDigest`` must name an ExecutionEnvironment in the store with the run's GPU
  product (``hardware.product``), and its timing must use the run's primary statistic and
  state a value for it (``latencyNs[primaryStatistic]``).

A trusted rerun saying ``reproduced`` verifies the run only when its measurement agrees:
its latency within a factor of :data:`REPRODUCTION_TOLERANCE` of the run's, at the run's
primary statistic (:func:`rerun_disagreement`; else KI311, the level unchanged).

:func:`subject_problem` says what is wrong, or None. ``kistore attest`` refuses such an
attestation; ``verify`` and ``check`` report it (KI310); evidence does not count it.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.canonical_fast import loads_lenient
from ..core.contradictions import latency_contradictions, trials_of
from ..core.digest import Digest, is_digest
from ..core.errors import with_article
from ..core.numbers import is_number

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import View


def subject_problem(view: View, type_name: str | None, subject: Digest,
                    predicate: dict[str, Any]) -> str | None:
    """Say why an attestation does not fit its subject, or None when it does.

    Args:
        view: the store view the subject is read from (:class:`kistore.store.View`).
        type_name: the attestation type (``rerun``, ``withdrawal``, ...).
        subject: the attested manifest's digest.
        predicate: the verified statement's predicate.

    Returns:
        One line, or None (also for types without an effect, for a subject not in the
        view: KI303 and KI304 report that, and for a subject or environment whose object
        file holds edited bytes: KI101 reports that, the one cause).
    """
    if type_name not in ("withdrawal", "rerun"):
        return None
    run = _read(view, subject)
    if run is None:
        return None
    if run.get("kind") != "BenchmarkRun":
        kind = with_article(str(run.get("kind")))
        return (f"a {type_name} is about a BenchmarkRun; {subject} is {kind} "
                f"(a {type_name} of it would take effect on no run)")
    if type_name == "withdrawal":
        return None
    spec = run.get("spec")
    return _rerun_problem(view, spec if isinstance(spec, dict) else {}, predicate)


REPRODUCTION_TOLERANCE = 2.0
"""How far a trusted rerun's latency may be from the run's and still reproduce it: the ratio
rerun / run lies in [1 / 2, 2], both included. Wide enough for one GPU product under other
clocks, drivers or software versions (the rerun's environment need not be the run's); a
measurement twice as slow or fast, or 1 ns against 13.6 ms (review r75 F18: a ratio of
7.3e-8 verified the run), does not say the run's number was reproduced."""


def rerun_disagreement(view: View, subject: Digest, predicate: dict[str, Any]) -> str | None:
    """Say how a rerun's latency disagrees with its run's beyond the tolerance, or None.

    Args:
        view: the store view the run is read from.
        subject: the run's digest.
        predicate: the rerun's verified predicate (``timing.latencyNs`` in ns).

    Returns:
        One line naming both latencies (ns), their ratio and the bound
        (:data:`REPRODUCTION_TOLERANCE`); None when they agree, or when either states no
        positive latency at the run's primary statistic (nothing to compare: the run is
        not a BenchmarkRun, has no latency, or the rerun does not fit it, KI310).
    """
    run = _read(view, subject)
    spec = run.get("spec") if run is not None and run.get("kind") == "BenchmarkRun" else None
    timing = spec.get("timing") if isinstance(spec, dict) else None
    if not isinstance(timing, dict):
        return None
    statistic = timing.get("primaryStatistic")
    ours = _latency_at(timing, statistic)
    rerun_timing = predicate.get("timing")
    theirs = _latency_at(rerun_timing, statistic) if isinstance(rerun_timing, dict) else None
    if ours is None or theirs is None:
        return None
    ratio = theirs / ours
    if 1 / REPRODUCTION_TOLERANCE <= ratio <= REPRODUCTION_TOLERANCE:
        return None
    return (f"it measured {theirs:,.10g} ns ({statistic}), the run {ours:,.10g} ns: a ratio of "
            f"{_ratio_text(ratio)}x, outside [{1 / REPRODUCTION_TOLERANCE:g}, "
            f"{REPRODUCTION_TOLERANCE:g}]; a measurement that far off does not reproduce the "
            "run, so it does not verify it")


def _ratio_text(ratio: float) -> str:
    """Return ``ratio`` (outside the tolerance) as text that is outside it too.

    4 significant digits, or as many more as keep it outside: 0.49999973 is "0.4999997",
    not "0.5", a bound it lies outside of (review r88 F12).
    """
    low, high = 1 / REPRODUCTION_TOLERANCE, REPRODUCTION_TOLERANCE
    for digits in range(4, 18):
        text = f"{ratio:.{digits}g}"
        if not low <= float(text) <= high:
            return text
    return repr(ratio)


def _latency_at(timing: dict[str, Any], statistic: Any) -> float | None:
    """Return a positive ``timing.latencyNs[statistic]`` (ns), else None."""
    latency = timing.get("latencyNs")
    value = latency.get(statistic) if isinstance(latency, dict) and isinstance(
        statistic, str) else None
    if not is_number(value) or not value > 0:
        return None
    return float(value)


def _rerun_problem(view: View, spec: dict[str, Any], predicate: dict[str, Any]) -> str | None:
    """Why a rerun's environment or timing does not fit the run ``spec``, or None."""
    run_timing = spec.get("timing")
    statistic = run_timing.get("primaryStatistic") if isinstance(run_timing, dict) else None
    timing: dict[str, Any] = predicate.get("timing") or {}
    if not isinstance(timing, dict):
        timing = {}
    if timing.get("primaryStatistic") != statistic:
        return (f"the rerun's timing uses {timing.get('primaryStatistic')!r}; the run's "
                f"primary statistic is {statistic!r}")
    latency = timing.get("latencyNs")
    value = latency.get(statistic) if isinstance(latency, dict) else None
    if not is_number(value):
        return f"the rerun states no latencyNs.{statistic} (the run's primary statistic)"
    contradiction = timing_contradiction(timing)
    if contradiction is not None:
        return contradiction
    wanted = _product(view, spec.get("environmentDigest"))
    given = predicate.get("environmentDigest")
    named = Digest.from_str(given) if isinstance(given, str) and is_digest(given) else None
    env = None if named is None else _read(view, named)
    if env is None and named is not None and view.has_object(named):
        return None  # there, its bytes edited: KI101 says it, the one cause (fresh99b)
    if env is None or env.get("kind") != "ExecutionEnvironment":
        what = "is not in the store" if env is None else f"is {with_article(str(env.get('kind')))}"
        return (f"the rerun's environmentDigest {given} {what}; it must name the "
                "ExecutionEnvironment the rerun ran on (add it first)")
    product = _hardware_product(env)
    if wanted is not None and product != wanted:
        return (f"the rerun ran on {product!r}; the run was measured on {wanted!r}: a rerun "
                "on another GPU does not reproduce it")
    return None


def timing_contradiction(timing: dict[str, Any]) -> str | None:
    """Say what a rerun's ``timing`` states against itself (KI228, as a run's), or None.

    A rerun's ``timing`` has the shape of a BenchmarkRun's ``spec.timing``, and it is what
    lifts a run to ``verified``, so it is held to the rule ``add`` holds the run to
    (:func:`kistore.core.contradictions.latency_contradictions` with its ``trials``):
    fresh14 F6, a ``min`` of 20,000,000 above a ``max`` of 10, of 1 trial, verified its run.

    Args:
        timing: the rerun predicate's ``timing`` (a dict; values of other types are the
            predicate schema's and are skipped by the rule).

    Returns:
        ``the rerun's timing contradicts itself (KI228, refused in a run): ...`` with each
        contradiction's words, its pointers those of the predicate (``/timing/...``),
        joined by ``; ``; None when it states nothing contradictory. Raises nothing.
    """
    latency = timing.get("latencyNs")
    if not isinstance(latency, dict):
        return None
    found = latency_contradictions(latency, trials_of(timing))
    if not found:
        return None
    said = "; ".join(c.message.replace("the run states ", "the rerun states ")
                     .replace("/spec/timing/", "/timing/") for c in found)
    return (f"the rerun's timing contradicts itself (KI228, which refuses such a run): {said}; "
            "it verifies no run: its signer attests again with the statistics measured")


def _product(view: View, reference: Any) -> str | None:
    env = _read(view, Digest.from_str(reference)) if isinstance(reference, str) and is_digest(
        reference) else None
    return None if env is None else _hardware_product(env)


def _hardware_product(env: dict[str, Any]) -> str | None:
    spec = env.get("spec")
    hardware = spec.get("hardware") if isinstance(spec, dict) else None
    product = hardware.get("product") if isinstance(hardware, dict) else None
    return product if isinstance(product, str) else None


def _read(view: View, digest: Digest) -> dict[str, Any] | None:
    """Return the manifest ``digest`` names in ``view``, or None: absent, unreadable, or edited.

    Bytes that do not hash to ``digest`` are not that manifest (an edited object file,
    KI101): an attestation judged against them was said to disagree with edited values
    (KI311 of an edited latency, KI310 of an edited kind) beside the edit, a second cause
    and a false one (fresh99b). Judged as not read, as an absent subject is; the edit's
    restore brings the judgement back.
    """
    data = view.read(layout.object_path(digest))
    if data is None or hashlib.sha256(data).hexdigest() != digest.hex:
        return None
    try:
        doc = loads_lenient(data)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None
