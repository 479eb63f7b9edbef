"""Values a ranking shows that are likely in another unit: KI234's outlier, KI230's caveat.

A latency in milliseconds written as nanoseconds is a thousand or a million times too
small. KI230 (:func:`kistore.core.contradictions.implausible_latencies`) warns below
100 ns, but a 25 ms kernel written as 25,000 ns passes it and takes #1 of a group whose
runs take 20,000,000 ns, silently (reviewer r89 F5's rest). This module owns the rule
(:data:`RANK_OUTLIER`, :data:`OUTLIER_FACTOR`, :func:`factor`, the words) and its one
judgment of a ranked group, :func:`group_outliers`: each run against the group's median
run, which a block of slipped runs does not move, which ``rank`` marks
(:func:`ranking_outliers`: a line under the table, ``outlier`` in ``--json``), ``show`` and
the site's run page say on the marked run's page, and :mod:`.outlier_rules` asks of the
group a change leaves before it lands (``add``, ``import``, ``check`` and pre-receive).
:func:`spread` (best over worst) is the one "does this group span 100x" test the gate,
``verify`` and KI235 (:data:`GROUP_SPREAD`: a change making a group span it first) ask.
:func:`implausible_latency` gives KI230 (a latency under 100 ns, a warning that lets a
run land) as a caveat ``rank``, ``show`` and the site print beside the value. Pure: no
I/O.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from ..core.claims import WITHDRAW
from ..core.contradictions import implausible_latencies
from ..core.findings import WARNING, rule
from .numbers import value_text, whole_ratio_text
from .policy import DESCENDING
from .ranking import Ranking, Row

OUTLIER_FACTOR = 100
"""How many times better than its group's median run a run must be to be said (KI234).

The median run: :func:`group_outliers`. Measured on the real data (the three imports
of ``../shared``, 1,002 runs, 606 groups, 296 with two ranked runs or more, median size 2,
largest 22): no group's #1 beats its median run by more than 15x (14.97x, KernelBench
level1-83's depthwise convolution, a group of two: eager 1.93 ms, torch.compile 28.9 ms;
then 11.1x, 8.2x; 294 groups under 10x; the 46 groups of three runs or more: at most
2.7x), so 100 leaves a margin of ~7x and no real run is marked. A unit slip is a factor
of 1,000 (us or ms one step off) or 1,000,000 (ms as ns): it is said unless the run is
honestly more than 10x (or 10,000x) slower than the group's median. The real spread of a
group, best over worst, reaches 417x (20 flashinfer-trace groups of three: a torch GEMM at
11.9 ms beside Triton ones at 28.5-43 us): the median is a Triton run, so no run is
marked; a group of one honest fast run beside two or more runs 100x slower would be (a
warning a reviewer reads and passes, and a mark in ``rank``). docs/rules.md, KI234."""

RANK_OUTLIER = rule(
    "KI234", "rank-outlier", WARNING,
    "check the value's unit (`timing.latencyNs` is in nanoseconds: a 0.42 ms kernel is "
    "420000); a run truly that much better: say how it was measured in the pull request "
    "(it is added and ranked all the same); a committed slip: a trusted maintainer withdraws "
    f"it (`{WITHDRAW.format(ref='REF')}`, the file committed: objects are never edited, and "
    "a withdrawal is what takes a stored run out of the ranking), then the corrected run is "
    "added as a new object")

GROUP_SPREAD = rule(
    "KI235", "group-spread-crosses-factor", WARNING,
    "check the unit of the run named and of the run it is measured against "
    "(`timing.latencyNs` is in nanoseconds: a 0.42 ms kernel is 420000); both honest (a "
    "kernel that much faster or slower): say so in the pull request (it is added all the "
    "same); a committed slip: a trusted maintainer withdraws it "
    f"(`{WITHDRAW.format(ref='REF')}`, the file committed)")
"""KI235: a change makes its comparison group span :data:`OUTLIER_FACTOR` for the first time.

KI234 compares each run with its group's median run, which runs each just under 100x of
it, one pull request at a time, move (reviewer r92 F1): the first change whose runs make
the group's best and worst :data:`OUTLIER_FACTOR` apart is said, at the gate
(:mod:`.outlier_rules`); and, in a group spanning it already, each change taking an end
that far past the stored runs within it of that end (reviewer r93 F1: a slow decoy said
first spent a once-per-group warning). docs/rules.md, KI235."""

WHY = (f"a value {OUTLIER_FACTOR}x or more ahead is what a value in another unit reads as (ms "
       "or us written as ns); no group of the real data has a #1 more than 15x ahead of its "
       "median run")
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


def spread(order: str, values: Iterable[float]) -> float:
    """Return how far a group's values span: its best over its worst, in the family's order.

    The one "does this group span 100x" measure: the gate's prefilter and KI235 (what a
    change does to it), ``verify``'s (:func:`kistore.query.outlier_rules.outliers_parsed`).
    A value of 0 or below is left out: KI234 never marks such a run nor compares a run with
    one (:func:`ahead_of`: no ratio to say), so a group's marks need two values above 0 at
    least :data:`OUTLIER_FACTOR` apart, and no pair of its values is farther apart than its
    best and worst (division rounds monotonically).

    Args:
        order: ``ascending`` (lower is better) or ``descending``.
        values: the values (any order; values of 0 or below are left out).

    Returns:
        :func:`factor` of the best value above 0 over the worst (at least 1); 1.0 for
        fewer than two values above 0.
    """
    above = [v for v in values if v > 0]
    if len(above) < 2:
        return 1.0
    best, worst = (max(above), min(above)) if order == DESCENDING else (min(above), max(above))
    return factor(order, best, worst)


def spans(order: str, values: Iterable[float]) -> bool:
    """Return True when :func:`spread` of ``values`` is :data:`OUTLIER_FACTOR` or more.

    False: no run of a group of these values can be marked by KI234, whatever the group's
    median run (the gate and ``verify`` rank and read roles and withdrawals only of groups
    that span it).

    Args:
        order: ``ascending`` (lower is better) or ``descending``.
        values: the group's values, in the family's unit (any order).

    Returns:
        Whether best over worst (values above 0) is at least 100x.
    """
    return spread(order, values) >= OUTLIER_FACTOR


def finite_ratio(ratio: float) -> float:
    """Return a ratio as JSON holds it: an infinite one (past the doubles) as the largest.

    JSON has no infinity (``json.dumps`` writes ``Infinity``, which no JSON reader takes):
    a lead past the largest double is written ``1.7976931348623157e308``; the text says
    ``more than 1.8e308x`` (:func:`kistore.query.numbers.whole_ratio_text`).
    """
    return min(ratio, sys.float_info.max)


def ratio_said(ratio: float) -> str:
    """Return a ratio as the rule says it: ``800x``, ``1,000,000x`` (whole, grouped)."""
    return f"{whole_ratio_text(ratio)}x"


def under_said(ratio: float) -> str:
    """Return a spread under :data:`OUTLIER_FACTOR` so that it never reads as the factor.

    Under 10, three significant digits (``1.04x``: ``1x`` would hide a change of it); from
    10, whole as :func:`ratio_said` says a ratio (``95x``), with decimals where the whole
    number would round up to the factor (99.996 is ``99.996x``, never ``100x``: r93 F9).

    Args:
        ratio: a spread (:func:`spread`), at least 1 and under :data:`OUTLIER_FACTOR`.

    Returns:
        The text with its ``x``: ``1.04x``, ``95x``, ``99.996x``.
    """
    if ratio < 10:
        return f"{ratio:.3g}x"
    for decimals in range(18):
        text = f"{ratio:,.{decimals}f}"
        if float(text.replace(",", "")) < OUTLIER_FACTOR:
            return f"{text}x"
    return f"{ratio!r}x"


class Outlier(NamedTuple):
    """A ranked run that beats its group's median run by :data:`OUTLIER_FACTOR` or more.

    Attributes:
        digest: the marked run's digest (``sha256:...``).
        value: its ranked value.
        best: the digest of the group's median run (:func:`group_outliers`; the field
            keeps its name from when the #2 was compared with).
        best_name: that run's name (None when unknown).
        best_value: that run's ranked value.
        unit: the values' unit (None when unknown).
        ratio: :func:`factor` of the two (at least :data:`OUTLIER_FACTOR`, finite).
        best_rank: the median run's rank in the group (2 for a group of 2 or 3).
    """

    digest: str
    value: float
    best: str
    best_name: str | None
    best_value: float
    unit: str | None
    ratio: float
    best_rank: int = 2

    def to_json(self) -> dict[str, Any]:
        """Return it as data (``rank --json``'s ``outlier``, the gate's ``extra``).

        ``over`` is the group's median run, with its ``rank``.
        """
        return {"rule": RANK_OUTLIER.id, "ratio": finite_ratio(self.ratio),
                "factor": OUTLIER_FACTOR,
                "over": {"digest": self.best, "name": self.best_name,
                         "value": self.best_value, "rank": self.best_rank}}


def value_said(value: float, unit: str | None) -> str:
    """Return a value with its unit as the rule says it: ``25,000 ns``, ``0.9 score``."""
    return f"{value_text(value, unit)} {unit}" if unit else value_text(value, unit)


class Run(NamedTuple):
    """A ranked run as :func:`group_outliers` reads it: digest, name, value, unit."""

    digest: str
    name: str | None
    value: float
    unit: str | None


def group_outliers(order: str, runs: Sequence[Run]) -> dict[str, Outlier]:
    """Return the runs of a ranked group that KI234 marks, by digest: the rule itself.

    A run :data:`OUTLIER_FACTOR` or more ahead of the group's median run is marked: the
    run at index ``n // 2`` of the ranking, best first (the worse of the two middle runs
    when ``n`` is even, so the #2 of a group of two or three). A block of slipped
    runs moves neither as long as it is no more than half the group (two runs in us among
    three in ms; two pull requests at 60x each: the second is 3,600x ahead of the median);
    a group of one run has nothing to compare, a group of two compares its #1 with its #2
    (reviewer r90b F2: the #2 alone was compared with, so two slipped runs at the top went
    unmarked, and two pull requests at 60x each made a 3,600x lead no rule named).

    Args:
        order: the ranking's order (``ascending``: lower is better; ``descending``).
        runs: the group's ranked runs, best first (a withdrawn run, a reference
            implementation's, a failed one: not among them).

    Returns:
        digest -> :class:`Outlier` per marked run (empty for fewer than two runs, a median
        of 0 or below, and every run under the factor); a run of value 0 or below is never
        marked (no ratio to say).
    """
    if len(runs) < 2:
        return {}
    at = len(runs) // 2
    found = {}
    for run in runs[:at]:
        if (outlier := ahead_of(order, run, runs[at], at + 1)) is not None:
            found[run.digest] = outlier
    return found


def ahead_of(order: str, run: Run, median: Run, rank: int) -> Outlier | None:
    """Return ``run``'s :class:`Outlier` when :data:`OUTLIER_FACTOR` or more ahead of ``median``.

    The one comparison of the rule: :func:`group_outliers` makes it with the group's median
    run; the gate (:mod:`.outlier_rules`) also with the median run of the group before a
    change, which the change's own runs cannot move (reviewer r91 F1).

    Args:
        order: the ranking's order (``ascending``: lower is better; ``descending``).
        run: the run judged.
        median: the run it is compared with.
        rank: ``median``'s rank in the group it is the median run of (the Outlier's
            ``best_rank``).

    Returns:
        The :class:`Outlier` (ratio at least the factor; infinite when the quotient is
        past the largest double, 3.68 over 1e-308: said ``more than 1.8e308x``, until
        2026-12-07 not marked at all, fresh18 F8), or None: under the factor, or a value of
        0 or below on either side (no ratio to say).
    """
    if median.value <= 0 or run.value <= 0:
        return None
    ratio = factor(order, run.value, median.value)
    if not ratio >= OUTLIER_FACTOR:  # infinite too: a lead past the doubles (fresh18 F8)
        return None
    return Outlier(run.digest, run.value, median.digest, median.name, median.value, run.unit,
                   ratio, rank)


def ranking_outliers(ranking: Ranking) -> dict[str, Outlier]:
    """Return :func:`group_outliers` of a group as ``rank`` ranks it, by run digest.

    Args:
        ranking: a group as ``rank`` ranks it (evidence read: a withdrawn run is not in it).
    """
    return group_outliers(ranking.comparison.order, [
        Run(r.record.digest, r.record.name, r.value, r.unit)
        for r in ranking.ranked if r.value is not None])


def ranking_outlier(ranking: Ranking) -> Outlier | None:
    """Return the #1's :class:`Outlier` when :func:`ranking_outliers` marks it, or None.

    Args:
        ranking: a group as ``rank`` ranks it (evidence read: a withdrawn run is not in it).

    Returns:
        The #1's :class:`Outlier` (the group's median run as ``best``), or None: fewer than
        two ranked runs, a #1 under the factor ahead of the median run, of value 0 or below.
    """
    first = ranking.first
    return None if first is None else ranking_outliers(ranking).get(first.record.digest)


MEDIAN = "the group's median run"
"""What the rule calls the run a marked run is compared with (:func:`group_outliers`)."""


def reference_said(outlier: Outlier, shown: str | None = None, median: str = MEDIAN) -> str:
    """Return the median run as the rule names it: ``#3 NAME with 3,520,000 ns, ...``.

    Args:
        outlier: a marked run's :class:`Outlier`.
        shown: how to name the median run (default: its name, else its digest).
        median: what the run is (default :data:`MEDIAN`; the gate: the median run before
            the change).
    """
    return (f"#{outlier.best_rank} {shown or outlier.best_name or outlier.best} "
            f"with {value_said(outlier.best_value, outlier.unit)}, {median}")


def outlier_line(outlier: Outlier, name: str) -> str:
    """Return what ``rank`` prints under its table, and a run page beside its rank.

    Args:
        outlier: a marked run's :class:`Outlier` (:func:`ranking_outliers`).
        name: the marked run's name.
    """
    return (f"{RANK_OUTLIER.id} {RANK_OUTLIER.name}: {name} "
            f"({value_said(outlier.value, outlier.unit)}) is {ratio_said(outlier.ratio)} better "
            f"than {reference_said(outlier)}: {WHY}; {RANK_OUTLIER.hint}")


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
    """Return KI234's few words on a marked run's row and badge: ``1,000x ahead of #3``.

    ``rank``'s row, ``compare``'s side, the site's leaderboard row and run page badge say
    these words (:func:`ratio_said`: whole and grouped, never ``1.00e+3``).
    """
    return f"{ratio_said(outlier.ratio)} ahead of #{outlier.best_rank}"


def row_marks(row: Row, outlier: Outlier | None, *, below: bool = True) -> list[str]:
    """Return the marks a ranked row carries after its name, as ``rank`` prints them.

    Args:
        row: a row of a ranked group (its record's ``spec`` read).
        outlier: the row's own :class:`Outlier` (``ranking_outliers(ranking).get(digest)``;
            None: the row is not marked).
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
        outlier: the run's own :class:`Outlier` in its group (:func:`ranking_outliers`),
            else None.
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
