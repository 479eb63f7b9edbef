"""Values a ranking shows that are likely in another unit: KI234's outlier, KI230's caveat.

A latency in milliseconds written as nanoseconds is a thousand or a million times too
small. KI230 (:func:`kistore.core.contradictions.implausible_latencies`) warns below
100 ns, but a 25 ms kernel written as 25,000 ns passes it and takes #1 of a group whose
runs take 20,000,000 ns, silently (reviewer r89 F5's rest). This module owns the rule
(:data:`RANK_OUTLIER`, :data:`OUTLIER_FACTOR`, :func:`factor`, the words) and its use on a
ranked group, :func:`ranking_outlier`: the #1 against the #2, which ``rank`` marks (a
line under the table, ``outlier`` in ``--json``) and ``show`` and the site's run page say
on the #1's page. :mod:`.outlier_rules` asks it of a run before it lands (``add``,
``import``, ``check`` and pre-receive). :func:`implausible_latency` gives KI230 (a latency
under 100 ns, a warning that lets a run land) as a caveat ``rank``, ``show`` and the site
print beside the value. Pure: no I/O.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from ..core.contradictions import implausible_latencies
from ..core.findings import WARNING, rule
from .numbers import value_text
from .policy import DESCENDING
from .ranking import Ranking, Row

OUTLIER_FACTOR = 100
"""How many times better than the group's best so far a new #1 must be to be said (KI234).

Measured on the real data (the three imports of ``../shared``, 1,002 runs, 606 groups, 296
with two ranked runs or more): no group's #1 beats its #2 by more than 15x (14.97x,
KernelBench level1-83's depthwise convolution: eager 1.93 ms, torch.compile 28.9 ms; then
11.1x, 8.2x; 294 groups under 10x), so 100 leaves a margin of ~7x and no real group trips
it. A unit slip is a factor of 1,000 (us or ms one step off) or 1,000,000 (ms as ns): it
is said unless the run is honestly more than 10x (or 10,000x) slower than the group's
best. The real spread of a group, best over worst, reaches 417x (20 flashinfer-trace
groups: a torch GEMM at 11.9 ms beside Triton ones at 28.5-43 us): had such a slow run
landed alone first, the fast one after it would be warned of, a warning a reviewer reads
(exit 0). docs/rules.md, KI234."""

RANK_OUTLIER = rule(
    "KI234", "rank-outlier", WARNING,
    "check the value's unit (`timing.latencyNs` is in nanoseconds: a 0.42 ms kernel is "
    "420000); a run truly that much better: say how it was measured in the pull request "
    "(it is added and ranked all the same)")

WHY = (f"a value {OUTLIER_FACTOR}x or more ahead is what a value in another unit reads as (ms "
       "or us written as ns); no group of the real data has a #1 more than 15x ahead of its "
       "next")
"""Why the rule speaks: the words every KI234 message ends with."""


def factor(order: str, new: float, old: float) -> float:
    """Return how many times ``new`` is better than ``old`` in a group ordered ``order``.

    Args:
        order: ``ascending`` (lower is better: latencies) or ``descending`` (higher is
            better: scores).
        new: the value judged, above 0.
        old: another run's value.

    Returns:
        ``old / new`` (ascending) or ``new / old`` (descending): 1 for a tie, below 1 when
        ``old`` is better. An ``old`` of 0 or below is better than any ``new`` ascending
        (0), worse than any descending (infinity: no ratio to say).
    """
    if order == DESCENDING:
        return new / old if old > 0 else math.inf
    return old / new if old > 0 else 0.0


def ratio_said(ratio: float) -> str:
    """Return a ratio as the rule says it: ``800x``, ``1,000,000x`` (whole, grouped)."""
    return f"{ratio:,.0f}x"


class Outlier(NamedTuple):
    """A #1 that beats the group's best otherwise by :data:`OUTLIER_FACTOR` or more.

    Attributes:
        digest: the #1's digest (``sha256:...``).
        value: its ranked value.
        best: the digest of the best run but it.
        best_name: that run's name (None when unknown).
        best_value: that run's ranked value.
        unit: the values' unit (None when unknown).
        ratio: :func:`factor` of the two (at least :data:`OUTLIER_FACTOR`, finite).
    """

    digest: str
    value: float
    best: str
    best_name: str | None
    best_value: float
    unit: str | None
    ratio: float

    def to_json(self) -> dict[str, Any]:
        """Return it as data (``rank --json``'s ``outlier``, the gate's ``extra``)."""
        return {"rule": RANK_OUTLIER.id, "ratio": self.ratio, "factor": OUTLIER_FACTOR,
                "over": {"digest": self.best, "name": self.best_name,
                         "value": self.best_value}}


def value_said(value: float, unit: str | None) -> str:
    """Return a value with its unit as the rule says it: ``25,000 ns``, ``0.9 score``."""
    return f"{value_text(value, unit)} {unit}" if unit else value_text(value, unit)


def ranking_outlier(ranking: Ranking) -> Outlier | None:
    """Return the #1 of a ranked group when it beats the #2 by :data:`OUTLIER_FACTOR` or more.

    Args:
        ranking: a group as ``rank`` ranks it (evidence read: a withdrawn run is not in it).

    Returns:
        The :class:`Outlier` (the #2 as ``best``), or None: fewer than two ranked runs, a
        tie at the top, a #1 of value 0 or below, a ratio under the factor or without
        bound.
    """
    if len(ranking.ranked) < 2:
        return None
    first, second = ranking.ranked[0], ranking.ranked[1]
    if first.value is None or second.value is None or first.value <= 0:
        return None
    ratio = factor(ranking.comparison.order, first.value, second.value)
    if ratio < OUTLIER_FACTOR or math.isinf(ratio):
        return None
    return Outlier(first.record.digest, first.value, second.record.digest,
                   second.record.name, second.value, first.unit, ratio)


def outlier_line(outlier: Outlier, name: str) -> str:
    """Return what ``rank`` prints under its table, and a run page beside its rank.

    Args:
        outlier: :func:`ranking_outlier` of the group.
        name: the #1's name.
    """
    return (f"{RANK_OUTLIER.id} {RANK_OUTLIER.name}: #1 {name} "
            f"({value_said(outlier.value, outlier.unit)}) is {ratio_said(outlier.ratio)} better "
            f"than #2 {outlier.best_name} ({value_said(outlier.best_value, outlier.unit)}): "
            f"{WHY}; {RANK_OUTLIER.hint}")


def implausible_latency(spec: Any) -> dict[str, str] | None:
    """Return KI230's finding on a run as data, or None when its latencies are plausible.

    A run stating a latency under 100 ns is ranked as stated (KI230 is a warning: the gate
    lets it land), so ``show``, ``rank`` and the site say it wherever the value is shown
    (reviewer r90 F5: a merged 3.52 "ns" run was #1 in rank, show and the site with no
    mark).

    Args:
        spec: a BenchmarkRun's ``spec``.

    Returns:
        ``{"rule": "KI230", "pointer": "/spec/timing/latencyNs/mean", "said": "latencyNs
        mean 3.52 < 100 ns"}`` (:func:`kistore.core.contradictions.implausible_latencies`),
        or None.
    """
    found = implausible_latencies(spec)
    return ({"rule": found[0].rule, "pointer": found[0].pointer, "said": found[0].short}
            if found else None)


def implausible_said(said: str) -> str:
    """Return KI230's caveat as ``show`` and the run page say it under the measurement.

    ``latencyNs mean 3.52 < 100 ns: shorter than any GPU kernel runs; likely ...``.

    Args:
        said: the finding's few words (:attr:`kistore.core.contradictions.Contradiction.short`).
    """
    return (f"{said}: shorter than any GPU kernel runs; likely milliseconds or microseconds "
            f"written as nanoseconds, {CHECK_BEFORE_CITING} (KI230)")


def implausible_row_said(said: str) -> str:
    """Return KI230's caveat as ``rank`` ends a ranked run's row: ``SAID: likely ms or us ...``.

    Args:
        said: the finding's few words (:func:`implausible_latency`'s ``said``).
    """
    return f"{said}: likely ms or us written as ns (KI230)"


CHECK_BEFORE_CITING = "check it before citing"
"""What every mark of a likely unit slip asks of a reader about to cite the run."""


def outlier_mark(outlier: Outlier) -> str:
    """Return KI234's few words on the #1's row and badge: ``1,000x ahead of #2``.

    ``rank``'s row, ``compare``'s side, the site's leaderboard row and run page badge say
    these words (:func:`ratio_said`: whole and grouped, never ``1.00e+3``).
    """
    return f"{ratio_said(outlier.ratio)} ahead of #2"


def row_marks(row: Row, outlier: Outlier | None, *, below: bool = True) -> list[str]:
    """Return the marks a ranked row carries after its name, as ``rank`` prints them.

    Args:
        row: a row of a ranked group (its record's ``spec`` read).
        outlier: :func:`ranking_outlier` of its group (None: none).
        below: :func:`outlier_line` is said below the rows (``rank``, ``compare``, the
            site's leaderboard), so KI234's mark points to it; False (the site's workload
            page, whose #1 links to its group): ``1,000x ahead of #2 (KI234)``.

    Returns:
        Up to two texts, each printed after ``(!)``: KI234's ``1,000x ahead of #2: see
        below (KI234)`` when the row is the group's outlier (:func:`outlier_line` is said
        below the rows), then KI230's :func:`implausible_row_said` when the row is ranked
        and states a latency under 100 ns. Empty for any other row (an unranked run is not
        marked: it takes no place anyone reads as a result).
    """
    marks = []
    if outlier is not None and row.record.digest == outlier.digest:
        marks.append(f"{outlier_mark(outlier)}{': see below' if below else ''} "
                     f"({RANK_OUTLIER.id})")
    if row.rank is not None and (low := implausible_latency(row.record.spec)) is not None:
        marks.append(implausible_row_said(low["said"]))
    return marks


def marks_said(marks: list[str]) -> str:
    """Return :func:`row_marks` as one row ends with them: ``  (!) MARK  (!) MARK`` ('' none)."""
    return "".join(f"  (!) {mark}" for mark in marks)


def outlier_caveat(outlier: Outlier, name: str) -> str:
    """Return :func:`outlier_line` then what a reader should do: ``...; check it before citing``.

    What the site's leaderboard says under its table and its run page beside the badge, and
    ``cite`` on stderr.
    """
    return f"{outlier_line(outlier, name)}; {CHECK_BEFORE_CITING}"


def citing_caveats(outlier: Outlier | None, name: str, spec: Any) -> list[str]:
    """Return what to check before citing a run: KI234's line and KI230's caveat, if any.

    ``kistore cite`` prints each on stderr before the citation (the citation unchanged),
    as the site's run page badges say "check it before citing".

    Args:
        outlier: :func:`ranking_outlier` of the run's group when the run is its #1, else
            None.
        name: the run's name.
        spec: the run's ``spec``.

    Returns:
        ``KI234 rank-outlier: #1 NAME (...) is 1,000x better than #2 ...; check it before
        citing`` (:func:`outlier_line`), then :func:`implausible_said`; empty when neither.
    """
    said = []
    if outlier is not None:
        said.append(outlier_caveat(outlier, name))
    if (low := implausible_latency(spec)) is not None:
        said.append(implausible_said(low["said"]))
    return said
