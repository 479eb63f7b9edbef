"""KI234 before a run lands: ``add``, ``import``, ``check BASE..HEAD`` and pre-receive.

:mod:`.outliers` owns the rule, its words and its one judgment of a group
(:func:`~.outliers.group_outliers`: each run against the group's median run). Here a
change is judged twice, in each comparison group it puts a run in (read whole: its runs
before the change, less those a trusted maintainer withdrew, plus every run the change
brings to it), and each arriving run either judgment marks is said: by the group it
leaves, as ``rank`` will rank it once it lands (reviewer r90b F2: the #2 alone was
compared with, so two slipped runs at the top, or two pull requests at 60x each, passed;
F10: a change's own runs were never compared with one another, and a withdrawn run stayed
the best so far), and against the median run of the group before the change, which no run
of the change can move (reviewer r91 F1: one stored run and two slips in one change, or a
third one-run slip into a group of two, made a slip the median run and passed unmarked; a
group whose runs all arrive in one change has only the first judgment). A stored run
whose mark (as ``rank`` shows it) the change removes or makes is said too (r91 F1: the
third slip silently took the first two's marks away).

* :func:`outliers_admitted`, a :class:`kistore.store.GroupsCheck` ``kistore add`` and
  ``import`` hand to :meth:`kistore.store.Store.add` (``checks=``, through
  :func:`outliers_check`): a warning, the run is added (an honest fast kernel exists); a
  stored run whose group file the add writes (its environment or protocol arrives) is
  judged too, said on the manifest that completes its key (F7);
* :func:`range_outliers`, a :data:`kistore.check.gate.RangeChecker` ``kistore check``
  (and so pre-receive, ``check --updates``) hands to the gate (``checkers=``): a warning
  per run whose group file the range adds that is marked, and per stored run whose mark
  the range removes or makes (on that run's object);
* KI235 (:data:`~.outliers.GROUP_SPREAD`, a warning, in both): each arriving run by which
  a change makes its group's runs span 100x for the first time, or takes an end of a group
  spanning it already 100x past the stored runs within 100x of that end (:func:`_crossings`;
  r92 F1: one-run pull requests each under 100x of the median run walked it unsaid; r93
  F1: a slow decoy said first spent a once-per-group warning);
* :func:`policy_marks`, which :mod:`.impact` asks of each group a ranking policy change
  re-ranks: a KI234 warning per stored run whose mark the policy change removes or makes
  (r92 F8), and KI235 when it makes the group span 100x for the first time (r93 F4).

Cost, O(change): a group is listed through its directory (``store/groups/sha256/XX/<62
hex of K>/``, one tree lookup) and its runs' objects read in one fetch (a partial clone),
only when an arriving run can rank (status ``passed``, a positive value, not a reference,
no contradiction). Implementations (whose role says whether a run ranks) and attestations
(withdrawals) are read, in one more fetch, only when the group's runs, the arriving ones
counted in, span 100x (best over worst), the one case in which a mark can be made or
moved: an ordinary run in an ordinary group reads its group's runs, nothing more; names
(metadata files) only of the runs a message names.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core import hashes, layout
from ..core.canonical_fast import loads_lenient
from ..core.claims import WITHDRAW
from ..core.comparison import KEYED_REFERENCES, stored_spec
from ..core.digest import Digest, is_digest
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.limits import DEFAULT
from ..core.model import REFERENCE_FIELDS, Manifest, metadata_name
from ..core.statistics import named
from ..core.words import comparison_said
from ..index.records import REFERENCE, Describer, Record, describe
from ..store import AdmissionWarning, FileTooLarge, GroupsCheck
from ..store.arrivals import runs_arriving
from ..store.run_facts import clean_cut, keeping_ranked, ranked_spec
from .outliers import (
    GROUP_SPREAD,
    MEDIAN,
    OUTLIER_FACTOR,
    RANK_OUTLIER,
    WHY,
    Outlier,
    Run,
    ahead_of,
    factor,
    group_outliers,
    ranking_outliers,
    ratio_said,
    reference_said,
    spans,
    spread,
    under_said,
    value_said,
)
from .policy import DESCENDING, MEASURED, Comparison, RankingPolicy
from .ranking import Ranking, rank_group
from .unheld_metric import stored_unheld
from .units import policy_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..index.catalog import Catalog, Loaded
    from ..store import Store, View

_ADDED = "added all the same; `check` warns too"

Withdrawn = Callable[[Iterable[str]], "set[str]"]
"""Of some runs (64 hex digits each), those a trusted maintainer withdrew."""


class _Ranked(NamedTuple):
    """A run of a group as the judging reads it: what ranks it, and its implementation."""

    digest: str
    value: float
    unit: str | None
    implementation: Any


class _Group:
    """The runs of one comparison group of a view, read when first asked, in one fetch.

    Args:
        view: the tree (work tree or a commit).
        key: the comparison key.
        comparison: how the group ranks (the arriving run's family and statistic).
        skip: digest strings of the arriving runs (judged from their records instead).
    """

    def __init__(self, view: View, key: str, comparison: Comparison, skip: set[str]) -> None:
        self.view, self.key, self.comparison = view, key, comparison
        self._hexes = [h for h in sorted(view.list_dir(layout.group_dir(Digest.from_str(key))))
                       if len(h) == 64 and f"sha256:{h}" not in skip]
        self._runs: list[_Ranked] | None = None
        self._roles: dict[str, str | None] = {}
        self._specs: dict[str, dict[str, Any] | None] = {}

    def under(self, comparison: Comparison) -> _Group:
        """Return this group ranked by ``comparison``: its listing and reads shared."""
        other = copy.copy(self)
        other.comparison, other._runs = comparison, None
        return other

    def runs(self) -> list[_Ranked]:
        """Return each run of the group that ranks, evidence and role aside, in digest order."""
        if self._runs is None:
            if len(self._hexes) > 1:  # one fetch in a partial clone
                self.view.prefetch([layout.object_path(Digest(h)) for h in self._hexes])
            self._runs = [run for h in self._hexes if (run := self._ranked(h)) is not None]
        return self._runs

    def _ranked(self, hex_: str) -> _Ranked | None:
        if hex_ not in self._specs:
            self._specs[hex_] = stored_spec(_bytes(self.view, layout.object_path(Digest(hex_))),
                                            hex_, "BenchmarkRun")
        spec = self._specs[hex_]
        if spec is None:
            return None  # missing, tampered or no run: KI101, KI216 say so
        digest = f"sha256:{hex_}"
        row = rank_group(self.key, [Record(digest, "BenchmarkRun", "", spec)],
                         self.comparison, {}).first
        if row is None or row.value is None:
            return None
        return _Ranked(digest, row.value, row.unit, spec.get("implementationDigest"))

    def prefetch_roles(self, runs: Iterable[_Ranked]) -> None:
        """Fetch the implementations of ``runs`` in one go (a partial clone).

        :meth:`ranks` reads them next, one by one.
        """
        self.view.prefetch(sorted({layout.object_path(Digest.from_str(r.implementation))
                                   for r in runs if is_digest(r.implementation)
                                   and r.implementation not in self._roles}))

    def ranks(self, run: _Ranked) -> bool:
        """Return True unless the run's implementation is a reference (never ranked)."""
        ref = run.implementation
        if not isinstance(ref, str) or not ref.startswith("sha256:"):
            return True
        if ref not in self._roles:
            found = _stored(self.view, ref)
            self._roles[ref] = (found[1].get("role") if found is not None
                                and found[0] == "Implementation" else None)
        return self._roles[ref] != REFERENCE

    def name(self, digest: str) -> str | None:
        """Return a stored run's name (its metadata file's)."""
        return metadata_name(_bytes(self.view, layout.metadata_path(Digest.from_str(digest))))


class _Arrival(NamedTuple):
    """A run a change brings to a group: its record, ranked value and unit."""

    record: Record
    value: float
    unit: str | None


_BEFORE = "the group's median run before the change"
_ONLY = "the group's only run before the change"
"""What the run an arrival is compared with is, judged against the group before a change."""


class _Marked(NamedTuple):
    """An arriving run KI234 marks: its record, its rank once the change lands, why.

    ``before``: marked against the median run of the group before the change (the change
    cannot move it), not by the group it leaves: what that run is (``the group's median run
    before the change``, or its only run); ``after`` is then the left group's median run
    (with its rank), which ``rank`` will compare with (r91 F1). Every rank is the one the
    run takes once the change lands (``outlier.best_rank`` too). ``alone``: the policy's
    comparison, under which no stored run of the group ranks (so the run was judged by
    measured latency instead, :func:`_judged`; reviewer break97 M4); None: judged under it.
    """

    record: Record
    comparison: Comparison
    outlier: Outlier
    rank: int
    before: str = ""
    after: tuple[Run, int] | None = None
    alone: Comparison | None = None


class _Moved(NamedTuple):
    """A stored run whose KI234 mark a change removes or makes (r91 F1).

    Attributes:
        run: the stored run (its name read).
        comparison: how its group ranks.
        before: its mark in the group before the change (None: unmarked).
        after: its mark in the group the change leaves (None: unmarked).
        median: the median run of the group on the unmarked side (before the change for
            a mark made, after it for a mark removed), with its rank once the change lands.
        rank: the run's rank once the change lands.
        by: the change's first arriving run in the group (add says it on its manifest).
    """

    run: Run
    comparison: Comparison
    before: Outlier | None
    after: Outlier | None
    median: tuple[Run, int]
    rank: int
    by: Record


class _Crossed(NamedTuple):
    """An arriving run by which a change makes its group span the factor first (KI235).

    Attributes:
        record: the arriving run's record.
        comparison: how its group ranks.
        run: the arriving run (named).
        rank: its rank once the change lands.
        over: the run it is measured against: the group's worst run before the change
            (the arrival is better), or its best (worse); another arriving run when the
            change's runs span it among themselves.
        over_rank: that run's rank once the change lands.
        ratio: :func:`~.outliers.factor` of the better of the two over the worse.
        before: the group's :func:`~.outliers.spread` before the change (under the factor).
        after: its spread once the change lands.
        stored: ``over`` is a stored run (else one of the change's).
    """

    record: Record
    comparison: Comparison
    run: Run
    rank: int
    over: Run
    over_rank: int
    ratio: float
    before: float
    after: float
    stored: bool = True


def _crossings(comparison: Comparison, base: Sequence[Run], runs: Sequence[Run],
               arrivals: Sequence[_Arrival]) -> list[_Crossed]:
    """Return the arrivals by which a change makes its group span the factor (KI235).

    The group it leaves (``runs``) spans :data:`~.outliers.OUTLIER_FACTOR`
    (:func:`~.outliers.spread`, values of 0 or below left out): each arriving run beyond
    the best of the group before the change (``base``, ranked best first: its stored runs
    that rank, withdrawn ones left out) and that far ahead of the worst base run within the
    factor of that best, or beyond the worst and that far behind the best base run within
    the factor of that worst, with that run. Under the factor before the change, those
    are the base's worst and best; spanning it already, a run that far off at one end
    (a slow decoy, said and passed) moves neither reference of the other end (reviewer r93
    F1: the crossing was said once a group, and the decoy spent it; r92 F1: one-run pull
    requests each under 100x of the median run walked a #1 7,360x ahead of the real runs).
    When, under the factor before, the change's runs span it only among themselves, the
    best of the group it leaves with its worst. A base with no run above 0 has nothing to
    cross from: none (a group whose runs all arrive in one change is KI234's alone).
    Ranks (``rank``, ``over_rank``: each run's index in ``runs`` plus one) and names are
    the caller's to fill in.
    """
    order = comparison.order
    at = {r.digest: i + 1 for i, r in enumerate(runs)}
    stored = [r for r in base if r.value > 0]
    before, after = spread(order, [r.value for r in stored]), spread(
        order, [r.value for r in runs])
    if not stored or after < OUTLIER_FACTOR:
        return []
    best, worst = stored[0], stored[-1]
    # each end against the stored runs within the factor of it (reviewer r93 F1): a group
    # spanning it already (a slow decoy said and passed) spent a once-per-group warning,
    # and a later walk past the real runs at the other end passed silent
    fast_ref = [r for r in stored if factor(order, best.value, r.value) < OUTLIER_FACTOR][-1]
    slow_ref = [r for r in stored if factor(order, r.value, worst.value) < OUTLIER_FACTOR][0]
    found = []
    for a in arrivals:
        run = Run(a.record.digest, a.record.name, a.value, a.unit)
        ahead = factor(order, a.value, fast_ref.value) if factor(
            order, a.value, best.value) > 1 else 0.0
        behind = factor(order, slow_ref.value, a.value) if factor(
            order, worst.value, a.value) > 1 else 0.0
        if ahead >= OUTLIER_FACTOR:
            found.append(_Crossed(a.record, comparison, run, at[run.digest], fast_ref,
                                  at[fast_ref.digest], ahead, before, after))
        elif behind >= OUTLIER_FACTOR:
            found.append(_Crossed(a.record, comparison, run, at[run.digest], slow_ref,
                                  at[slow_ref.digest], behind, before, after))
    if found or before >= OUTLIER_FACTOR:
        return found
    above = [r for r in runs if r.value > 0]  # arrivals among themselves
    first, last = above[0], above[-1]
    records = {a.record.digest: a.record for a in arrivals}
    run, over = (first, last) if first.digest in records else (last, first)
    return [_Crossed(records[run.digest], comparison, run, at[run.digest], over,
                     at[over.digest], factor(order, first.value, last.value), before, after,
                     over.digest not in records)]


def _median(runs: Sequence[Run]) -> Run:
    """Return a ranked group's median run: index ``n // 2``, best first."""
    return runs[len(runs) // 2]


def _judge(group: _Group, arrivals: Sequence[_Arrival], withdrawn: Withdrawn | None
           ) -> Iterator[_Marked | _Moved | _Crossed]:
    """Yield what KI234 says of a change to one group: marked arrivals, moved marks.

    The group before the change (the base): its stored runs that rank (not a reference
    implementation's, not withdrawn); after it: those and the arrivals. An arriving run is
    marked when :func:`~.outliers.group_outliers` marks it in the group it leaves, or when
    it is :data:`~.outliers.OUTLIER_FACTOR` ahead of the base's median run, which no run of
    the change can move (r91 F1: one stored run and two slips in one change, or a third
    one-run slip into a group of two, made a slip the median run and passed unmarked). A
    base with no run (a group whose runs all arrive in one change) has only the first. A
    stored run whose mark the change removes or makes is yielded too (:class:`_Moved`),
    and each arrival by which the change makes the group span the factor for the first
    time (KI235, :func:`_crossings`; r92 F1), unless KI234 marks it already. Roles and
    withdrawals are asked only when the group, arrivals included, spans the factor
    (:func:`~.outliers.spans`, best over worst): with no such gap no run is marked, before
    or after, and none crosses.
    """
    order = group.comparison.order
    unit = next((a.unit for a in arrivals if a.unit is not None), None)
    members = [r for r in group.runs()  # another unit: KI210 refuses the pair
               if unit is None or r.unit is None or r.unit == unit]
    sign = -1.0 if order == DESCENDING else 1.0
    if not spans(order, [r.value for r in members] + [a.value for a in arrivals]):  # O(n)
        return
    out = withdrawn([r.digest[7:] for r in members]) if withdrawn and members else set()
    group.prefetch_roles(members)
    base = sorted((Run(r.digest, None, r.value, r.unit) for r in members
                   if r.digest[7:] not in out and group.ranks(r)),
                  key=lambda r: (sign * r.value, r.digest))
    runs = sorted(base + [Run(a.record.digest, a.record.name, a.value, a.unit)
                          for a in arrivals], key=lambda r: (sign * r.value, r.digest))
    marked, was = group_outliers(order, runs), group_outliers(order, base)
    at = {r.digest: i + 1 for i, r in enumerate(runs)}
    names = {a.record.digest: a.record.name for a in arrivals}

    def name_of(digest: str) -> str | None:
        return names.get(digest) or group.name(digest)

    def named_(o: Outlier | None) -> Outlier | None:
        return None if o is None else o._replace(best_name=name_of(o.best))

    ref = _median(base) if base else None
    said = set()
    for a in arrivals:
        found = named_(marked.get(a.record.digest))
        if found is not None:
            said.add(a.record.digest)
            yield _Marked(a.record, group.comparison, found, at[a.record.digest])
            continue
        if ref is None:
            continue
        found = named_(ahead_of(order, Run(a.record.digest, a.record.name, a.value, a.unit),
                                ref, at[ref.digest]))
        if found is not None:
            said.add(a.record.digest)
            median = _median(runs)
            yield _Marked(a.record, group.comparison, found, at[a.record.digest],
                          _BEFORE if len(base) > 1 else _ONLY,
                          (median._replace(name=name_of(median.digest)), at[median.digest]))
    for crossed in _crossings(group.comparison, base, runs, arrivals):
        if crossed.run.digest not in said:
            yield crossed._replace(run=crossed.run._replace(name=name_of(crossed.run.digest)),
                                   over=crossed.over._replace(name=name_of(crossed.over.digest)))
    for run in base:
        before, after = was.get(run.digest), marked.get(run.digest)
        if (before is None) != (after is None):
            median = _median(base if before is None else runs)
            yield _Moved(run._replace(name=name_of(run.digest)), group.comparison,
                         named_(before and before._replace(best_rank=at[before.best])),
                         named_(after),
                         (median._replace(name=name_of(median.digest)), at[median.digest]),
                         at[run.digest], arrivals[0].record)


def _arrival(record: Record, policy: RankingPolicy, which: str | None = None,
             clean: bool = False,
             comparisons: dict[tuple[str, str, str | None], Comparison] | None = None
             ) -> tuple[Comparison, float, str | None] | None:
    """Return how an arriving run ranks and its value, or None when it cannot rank (#1).

    Args:
        record: the arriving run's record.
        policy: the ranking policy.
        which: the comparison (``measured``); None: the policy's for its family.
        clean: the record's spec is a run's cut known to state no contradiction and no
            unproven claim (:func:`kistore.store.run_facts.clean_cut`): ranked alone, it
            is ranked by its status and its value, without :func:`~.ranking.rank_group`
            asking its contradictions and claim again (issue 22: ~12 us a run of an add's
            serial stretch); the answer is the same.
        comparisons: the policy's comparisons found so far, by (family, statistic,
            ``which``), filled here (one :class:`Comparison` made a family, not one a run
            of a bulk add: issue 22); None: asked of the policy each time.
    """
    if record.comparison_key is None or record.family is None or record.is_reference:
        return None
    asked = (record.family, record.statistic or "mean", which)
    if not isinstance(asked[1], str):  # a stored protocol's odd statistic: not a key
        comparisons = None
    comparison = comparisons.get(asked) if comparisons is not None else None
    if comparison is None:
        try:
            comparison = policy.comparison(*asked)
        except KistoreError:
            return None  # a family with no metric: rank's to say
        if comparisons is not None:
            comparisons[asked] = comparison
    if clean:  # what rank_group finds of it alone, its exclusions known to be none
        if record.status != "passed":
            return None
        value, unit = comparison.value(record.spec)
        if value is None or unit is None or value <= 0:
            return None  # no value, or no unit: unranked; never #1
        return comparison, value, unit
    row = rank_group(record.comparison_key, [record], comparison, {}).first
    if row is None or row.value is None or row.value <= 0:
        return None  # failed, no value, contradicting itself: never #1
    return comparison, row.value, row.unit


def _judged(view: View, policy: RankingPolicy, records: Iterable[Record],
            withdrawn: Withdrawn | None = None, clean: Collection[str] = frozenset()
            ) -> Iterator[_Marked | _Moved | _Crossed]:
    """Yield each arriving run KI234 marks, each stored run whose mark moves, each crossing.

    :func:`_judge` per group an arriving run enters (KI234, and KI235's crossings), under
    the policy; where no stored run of the group ranks under it, the arrivals by measured
    latency too (:func:`_measured`, reviewer break97 M4).

    Args:
        view: the tree whose group directories list each group's runs (before the change
            for an add, after it for the gate: the arriving runs are taken from
            ``records`` either way).
        policy: its ranking policy.
        records: the arriving runs (their records), judged with one another and with the
            runs of their group.
        withdrawn: of some stored runs (64 hex digits each), those a trusted maintainer
            withdrew (left out of the group, as ``rank`` leaves them); None: none is.
        clean: the digest strings of the records whose spec is a clean cut
            (:func:`_arrival`'s ``clean``).
    """
    arriving = sorted(records, key=lambda r: r.digest)
    skip = {r.digest for r in arriving}
    groups: dict[tuple[str, Comparison], list[_Arrival]] = {}
    comparisons: dict[tuple[str, str, str | None], Comparison] = {}
    for record in arriving:
        found = _arrival(record, policy, None, record.digest in clean, comparisons)
        if found is not None:
            assert record.comparison_key is not None
            groups.setdefault((record.comparison_key, found[0]), []).append(
                _Arrival(record, found[1], found[2]))
    for (key, comparison), arrivals in groups.items():
        group = _Group(view, key, comparison, skip)
        yield from _judge(group, arrivals, withdrawn)
        if comparison.name != MEASURED and not group.runs():
            yield from _measured(group, policy, arrivals, withdrawn, clean)


def _measured(group: _Group, policy: RankingPolicy, arrivals: Sequence[_Arrival],
              withdrawn: Withdrawn | None, clean: Collection[str] = frozenset()
              ) -> Iterator[_Marked]:
    """Yield the arrivals KI234 marks by measured latency in a group no stored run ranks.

    The policy ranks the group by a metric no stored run of it holds (reviewer break97 M4:
    one pull request moved a family to ``/sourceNative/metrics/p50`` and added the only run
    stating it, 1,000x ahead of the stored runs by measured latency): under it the arriving
    runs rank alone, compared with nothing, while ``rank --comparison measured`` (and the
    export's measured columns) mark the lead once the change lands. So they are judged by
    measured latency too, against the group's stored runs, as :func:`_judge` judges any
    arrival, when some stored run ranks so (a group whose runs all arrive in one change is
    judged under the policy alone, as before: the real data's imports arrive so); only the
    arrivals marked are said (a stored run's mark or the group's spread
    by measured latency is no change of this range's policy: none is said).
    """
    measured = None
    found = []
    for a in arrivals:
        ranks = _arrival(a.record, policy, MEASURED, a.record.digest in clean)
        if ranks is not None:
            measured = ranks[0]
            found.append(_Arrival(a.record, ranks[1], ranks[2]))
    by_latency = group.under(measured) if measured is not None else None
    if by_latency is None or not by_latency.runs():
        return  # a new group, or stored runs no comparison ranks: nothing to compare with
    for said in _judge(by_latency, found, withdrawn):
        if isinstance(said, _Marked):
            yield said._replace(alone=group.comparison)


def _message(marked: _Marked, completed: str = "") -> str:
    """Return the finding's text: the run's rank and value, the ratio, the median run, why.

    Args:
        marked: the marked arriving run.
        completed: words naming the run when the add's own manifest is another (F7).
    """
    ranks = f"{completed}would rank #{marked.rank}"
    if marked.alone is not None:  # break97 M4: the policy compares it with no stored run
        ranks = (f"{completed}ranks alone by its family's policy {_how(marked.alone)}, which "
                 f"no run stored before this change holds; by measured latency (`kistore "
                 f"rank BenchmarkRun/{marked.record.name} --comparison measured`) it would "
                 f"rank #{marked.rank}")
    if marked.after is None:
        return _said(ranks, marked.comparison, marked.outlier, " once the change lands")
    median, rank = marked.after
    then = ("this run itself" if median.digest == marked.record.digest
            else f"#{rank} {_run_said(median)}, which `rank` compares with")
    return _said(ranks, marked.comparison, marked.outlier, (
        f" (a change's own runs cannot move it; once the change lands the group's median run "
        f"is {then}: `rank` will not mark this run)"), median=marked.before)


def _crossed_message(crossed: _Crossed, policy: tuple[str, Comparison] | None = None) -> str:
    """Return what KI235 says of a run by which its group spans the factor first.

    ``this change makes its comparison group (HOW) span 8,907x for the first time (best
    over worst; 95x before it): RUN with 860 ns, which would rank #1, is 8,907x better than
    #4 RUN with 7,660,000 ns, the group's worst run before the change: WHY``.

    ``policy``: a ranking policy change's (:func:`_policy_spread`): the group's key and
    how it ranked before the change: ``this ranking policy change makes comparison group
    KEY (HOW) span 1,035x for the first time (best over worst; 1.04x before it, ranked
    (HOW BEFORE)): #1 RUN with V is 1,035x better than #3 RUN with W, the group's worst
    run: WHY``.
    """
    c, run, over = crossed.comparison, crossed.run, crossed.over
    ahead = factor(c.order, run.value, over.value) >= 1
    if policy is None and crossed.before >= OUTLIER_FACTOR:  # spanned it already (r93 F1)
        end, side = ("best", "worst") if ahead else ("worst", "best")
        return (f"this change takes its comparison group {_how(c)} {OUTLIER_FACTOR}x past "
                f"its runs at its {end} end (it spanned {ratio_said(crossed.before)} before "
                f"it, by a run {OUTLIER_FACTOR}x off at the other end, which does not spend "
                f"this warning): {_run_said(run)}, which would rank #{crossed.rank}, is "
                f"{ratio_said(crossed.ratio)} {'better' if ahead else 'worse'} than "
                f"#{crossed.over_rank} {_run_said(over)}, the {side} run before the change "
                f"within {OUTLIER_FACTOR}x of the group's {end}: {SPREAD_WHY}")
    if policy is None:
        subject, was = f"this change makes its comparison group {_how(c)}", ""
        lead = f"{_run_said(run)}, which would rank #{crossed.rank},"
        what = ("another run of this change" if not crossed.stored else
                f"the group's {'worst' if ahead else 'best'} run before the change")
    else:
        subject = f"this ranking policy change makes comparison group {policy[0]} {_how(c)}"
        was, lead = f", ranked {_how(policy[1])}", f"#{crossed.rank} {_run_said(run)}"
        what = "the group's worst run"
    return (f"{subject} span {ratio_said(crossed.after)} for the first time (best over "
            f"worst; {under_said(crossed.before)} before it{was}): {lead} is "
            f"{ratio_said(crossed.ratio)} {'better' if ahead else 'worse'} than "
            f"#{crossed.over_rank} {_run_said(over)}, {what}: {SPREAD_WHY}")


SPREAD_WHY = (
    f"KI234 compares each run with its group's median run, which runs each just under "
    f"{OUTLIER_FACTOR}x of it, one pull request at a time, can move (six such runs put a #1 "
    f"7,360x ahead of a group's real runs, unsaid), so a change that makes a group's runs "
    f"{OUTLIER_FACTOR}x apart is said, at each end (a run already that far off at the other "
    "end spends nothing); a value in another unit (ms or us written as ns) reads so")
"""Why KI235 speaks: the words every KI235 message ends with."""


def _run_said(run: Run) -> str:
    """Return ``BenchmarkRun/NAME (sha256:...) with 3,520 ns``."""
    return f"{named('BenchmarkRun', run.name, run.digest)} with {value_said(run.value, run.unit)}"


def _moved_message(moved: _Moved) -> str:
    """Return what KI234 says of a stored run whose mark a change removes or makes.

    ``this change would remove KI234's mark from RUN, a stored run that would rank #1 of
    its comparison group (...) with V, Nx better than #3 MEDIAN with W, the group's median
    run before the change; once it lands the group's median run is #3 ...``, or ``newly
    mark RUN ...`` with the median runs the other way round; then why.
    """
    median, rank = moved.median
    run = (f"{named('BenchmarkRun', moved.run.name, moved.run.digest)}, a stored run that "
           f"would rank #{moved.rank}")
    if moved.after is None:
        assert moved.before is not None
        return _said(
            f"this change would remove KI234's mark from {run}", moved.comparison,
            moved.before, f"; once it lands the group's median run is #{rank} "
            f"{_run_said(median)}, and `rank`, `show` and the site mark the stored run no more",
            median=_BEFORE)
    return _said(
        f"this change would newly mark {run}", moved.comparison, moved.after,
        f" once the change lands (before it the median run was #{rank} {_run_said(median)},"
        " and the stored run was not marked)")


MOVED_FIX = (
    "check the units of this change's runs and of the stored run (`timing.latencyNs` is in "
    "nanoseconds: a 0.42 ms kernel is 420000): runs in another unit that make half a group "
    "or more become its median run, and a mark moves; a stored run that is a slip: a trusted "
    f"maintainer withdraws it (`{WITHDRAW.format(ref='REF')}`, the file committed); every "
    "run honest: say so in the pull request (the change lands all the same)")
"""KI234's fix for a stored run whose mark a change removes or makes (r91 F1)."""


def _said(ranks: str, c: Comparison, o: Outlier, when: str = "", more: int = 0,
          median: str = MEDIAN) -> str:
    """Return ``RANKS of its comparison group (HOW) with V, Nx better than MEDIAN RUN: WHY``.

    ``median``: what the run compared with is (:func:`~.outliers.reference_said`).
    """
    also = f", and {more} more run(s) of the group are marked so" if more else ""
    return (f"{ranks} of its comparison group {_how(c)} with {value_said(o.value, o.unit)}, "
            f"{ratio_said(o.ratio)} better than "
            f"{reference_said(o, named('BenchmarkRun', o.best_name, o.best), median)}{when}"
            f"{also}: {WHY}")


def outliers_check(withdrawn: Withdrawn | None = None) -> GroupsCheck:
    """Return :func:`outliers_admitted` as ``kistore add`` and ``import`` hand it to an add.

    Args:
        withdrawn: which stored runs a trusted maintainer withdrew
            (:func:`kistore.attest.evidence.withdrawn_runs`): left out of their group, as
            ``rank`` leaves them.
    """
    return GroupsCheck(lambda store, manifests, groups: outliers_admitted(
        store, manifests, groups, withdrawn))


def outliers_admitted(store: Store, manifests: Sequence[Manifest],
                      groups: Mapping[str, str] | None = None,
                      withdrawn: Withdrawn | None = None
                      ) -> list[tuple[Digest, KistoreError]]:
    """KI234 warnings for the runs an add would put in a comparison group.

    Args:
        store: the store added to: its work tree's ranking policy, group directories and
            runs are read (a run's group only when one of its arriving runs can rank).
        manifests: the manifests the add would add (new objects); protocols, environments
            and implementations among them count as stored.
        groups: run hex -> group directory of each run whose key the add's plan knows
            (:class:`kistore.store.GroupsCheck`): a stored run among them (its protocol or
            environment arrives now) is judged too; None: the add's own runs only.
        withdrawn: which stored runs a trusted maintainer withdrew (left out of their
            group, as ``rank`` leaves them); None: none is.

    Returns:
        ``(digest, AdmissionWarning)`` per arriving run that the group it leaves marks
        (:func:`~.outliers.group_outliers`: :data:`OUTLIER_FACTOR` or more ahead of the
        group's median run; the add's own runs judged with one another) or that is that
        far ahead of the median run of its group before the add (r91 F1); at ``/spec`` +
        the ranked metric of the run; a stored run's on the manifest completing its key,
        naming the run. Then one per stored run whose mark the add removes or makes
        (:data:`MOVED_FIX`), on the manifest of the add's first run in that group (by
        digest), naming the stored run. Every run is added all the same.
    """
    batch = {str(m.digest): m for m in manifests}
    view = store.view(None)
    pending = sorted(set(groups or ()) - {m.digest.hex for m in manifests})
    runs = [m for m in manifests if m.kind == "BenchmarkRun"]
    policy = policy_of(store, None) if runs or pending else None
    if policy is None:
        return []

    def lookup(digest: str) -> tuple[str, dict[str, Any]] | None:
        if digest in batch:
            return batch[digest].kind, batch[digest].spec
        return _stored(view, digest)

    described = Describer(lookup)  # runs alike share their key's lookups (issue 22)
    records, clean = [], set()
    for m in runs:
        digest, cut = str(m.digest), clean_cut(m)
        if cut is not None:
            clean.add(digest)
        records.append(described(digest, m.kind, m.name, ranked_spec(m) if cut is None
                                 else cut))
    for hex_ in pending:  # a stored run whose group file this add writes (F7)
        digest = f"sha256:{hex_}"
        found = _stored(view, digest)
        if found is not None and found[0] == "BenchmarkRun":
            name = metadata_name(_bytes(view, layout.metadata_path(Digest(hex_))))
            records.append(describe(digest, found[0], name or "", found[1], lookup))
    problems: list[tuple[Digest, KistoreError]] = []
    for said in _judged(view, policy, records, withdrawn, clean):
        record = said.by if isinstance(said, _Moved) else said.record
        rule = GROUP_SPREAD if isinstance(said, _Crossed) else RANK_OUTLIER
        digest, completed = record.digest, ""
        pointer: str | None = "/spec" + said.comparison.metric
        if digest not in batch:  # said on the protocol or environment completing its key
            digest = next(d for f in ("environmentDigest", "protocolDigest")
                          if (d := record.spec.get(f)) in batch)
            completed = (f"{named('BenchmarkRun', record.name, record.digest)}, a stored run "
                         "whose comparison group this add completes, ")
            pointer = None
        if isinstance(said, _Moved):  # about another run: on the first arriving one
            text, pointer = f"{_moved_message(said)}; {MOVED_FIX}", None
        elif isinstance(said, _Crossed):
            text = f"{_crossed_message(said)}; {GROUP_SPREAD.hint}"  # names the run
        else:
            text = f"{_message(said, completed)}; {RANK_OUTLIER.hint}"
        problems.append((Digest.from_str(digest), AdmissionWarning(
            f"{text} ({rule.id}: {_ADDED})", pointer=pointer)))
    return problems


def range_outliers(store: Store, base: str, head: str, changed: set[str]) -> list[Finding]:
    """KI234 (warnings) for the runs a range puts in a comparison group (a ``RangeChecker``).

    Args:
        store: the store; its view at ``head`` is read, and the attestations there
            (:func:`kistore.attest.evidence.withdrawn_runs`: a withdrawn run is left out of
            its group, as ``rank`` leaves it).
        base: the range's base commit id (HEAD's groups less the range's runs are the
            groups before it, withdrawals as at HEAD).
        head: its head commit id.
        changed: the paths the range changes; the runs it puts in groups are those
            :func:`kistore.store.arrivals.runs_arriving` answers (by a group file it adds,
            a run it adds, whose group file may be older than it: reviewer break94, or an
            earlier run a manifest it adds completes).

    Returns:
        One warning per run the range puts in a group that the group at ``head``
        marks (:func:`~.outliers.group_outliers`: :data:`OUTLIER_FACTOR` or more ahead of
        the group's median run; the range's runs judged with one another) or that is that
        far ahead of the median run of its group before the range (HEAD's group less the
        range's runs: the gate refuses a removed group file), on the run's object, at
        ``/spec`` + the ranked metric (``extra``: :meth:`Outlier.to_json`); then one per
        stored run whose mark the range removes or makes, on that run's object
        (``extra``: ``stored``, ``before`` and ``after``, each :meth:`Outlier.to_json` or
        None; ``fix``: :data:`MOVED_FIX`).
    """
    view = store.view(head)
    arriving = runs_arriving(store.view(base), view, changed)
    if not arriving:
        return []
    policy = policy_of(store, head)
    if policy is None:
        return []
    # Lazy: attestations are read only when an arrival is 100x ahead of some run.
    from ..attest.evidence import withdrawn_runs

    records = []
    for run in sorted({run for runs in arriving.values() for run in runs}, key=str):
        found = _stored(view, str(run), only_runs=True)
        if found is not None and found[0] == "BenchmarkRun":
            name = metadata_name(_bytes(view, layout.metadata_path(run)))
            records.append(describe(str(run), found[0], name or "", found[1],
                                    lambda d: _stored(view, d)))
    findings = []
    for said in _judged(view, policy, records, withdrawn_runs(store, at=head)):
        if isinstance(said, _Moved):
            findings.append(Finding(
                RANK_OUTLIER, _moved_message(said),
                file=layout.object_path(Digest.from_str(said.run.digest)),
                pointer="/spec" + said.comparison.metric, fix=MOVED_FIX,
                extra={"rule": RANK_OUTLIER.id, "stored": True,
                       "before": said.before and said.before.to_json(),
                       "after": said.after and said.after.to_json()}))
        elif isinstance(said, _Crossed):
            findings.append(_crossed_finding(said))
        else:
            findings.append(Finding(
                RANK_OUTLIER, _message(said),
                file=layout.object_path(Digest.from_str(said.record.digest)),
                pointer="/spec" + said.comparison.metric, extra=said.outlier.to_json()))
    return findings


POLICY_FIX = (
    "a policy change moves a mark by ranking the group otherwise: check the stored run's unit "
    "(`timing.latencyNs` is in nanoseconds: a 0.42 ms kernel is 420000) and the value it "
    "states at the new metric; a slip: a trusted maintainer withdraws it "
    f"(`{WITHDRAW.format(ref='REF')}`, the file committed), so that no policy ranks it; "
    "every value honest: say in the pull request why the mark moves (the change lands all "
    "the same)")
"""KI234's fix for a stored run whose mark a ranking policy change removes or makes (r92 F8)."""


def policy_marks(key: str, records: list[Record], rankings: Sequence[Ranking],
                 middle: Ranking | None = None) -> list[Finding]:
    """KI234 per stored run of a group whose mark a ranking policy change removes or makes.

    A pull request changing ``store/policy/ranking.json`` re-ranks a family's groups: a
    metric a marked slip does not state takes it out of the ranking, and its mark with it;
    another metric, order or statistic can mark a run no change of runs marked (reviewer r92
    F8: only KI415's info said it, where a run change removing a mark gets this warning).
    The group is judged from its rankings at each end as ``rank`` ranks it there (BASE's
    runs, policy and evidence, then HEAD's: a withdrawn run left out), the ones KI415
    compares (:func:`kistore.query.impact.trust_and_policy_effects` ranks each group once an
    end), only when its values span the factor under either policy
    (:func:`~.outliers.spans`): else no run is marked at either end. A run the range brings
    to the group is not judged here: it is no stored run, and :func:`range_outliers` judges
    it under HEAD's policy, the one it arrives under (reviewer break96 M2: it was called "a
    stored run" whose mark the change "would remove"). Nor is what the arriving runs do to
    a stored run's mark or to the group's spread under HEAD's policy (``middle`` against
    HEAD's end): :func:`range_outliers` says that (its ``_Moved`` and KI235's crossings).

    Args:
        key: the group's comparison key.
        records: its runs at ``head``.
        rankings: the group ranked at BASE (BASE's runs) and at HEAD (HEAD's runs); their
            comparisons differ.
        middle: when the range brings runs to the group, BASE's runs ranked under HEAD's
            policy (BASE's evidence); None: it brings none.

    Returns:
        One warning per run marked at one end and not at the other, on the run's object at
        ``/spec`` + the metric of the end that marks it, naming the run, its rank and the
        median run it is compared with there, and its rank (or why it is not ranked) at the
        other end (``fix``: :data:`POLICY_FIX`; ``extra``: ``stored``, ``policy``,
        ``before``, ``after``, each :meth:`Outlier.to_json` or None), after KI235's
        warning when the change makes the group span the factor first
        (:func:`_policy_spread`, r93 F4); empty when neither.
    """
    if not any(spans(r.comparison.order, [v for record in records
                                          if (v := r.comparison.value(record.spec)[0])
                                          is not None]) for r in rankings):
        return []
    before, after = (ranking_outliers(r) for r in rankings)
    between = ranking_outliers(middle) if middle is not None else after
    findings = _policy_spread(key, rankings[0], rankings[1], middle, set(between))
    stored = {row.record.digest for rows in (rankings[0].ranked, rankings[0].unranked,
                                             rankings[0].references, rankings[0].excluded)
              for row in rows}
    for digest in sorted(set(before) ^ set(after)):
        if digest not in stored or (digest in between) != (digest in after):
            continue  # an arriving run, or a mark the arrivals move: range_outliers' to say
        removed = digest in before
        marked = before[digest] if removed else after[digest]
        ranking, other = rankings if removed else rankings[::-1]
        row = next(r for r in ranking.ranked if r.record.digest == digest)
        run = (f"{named('BenchmarkRun', row.record.name, digest)}, a stored run that "
               f"{'ranks' if removed else 'would rank'} #{row.rank}")
        there = _ranked_there(other, digest, was=not removed)
        if removed:
            text = _said(f"this change would remove KI234's mark from {run}",
                         ranking.comparison, marked, (
                             f"; once it lands the group ranks {_how(other.comparison)} and "
                             f"{there}, and `rank`, `show` and the site mark it no more"),
                         median=_BEFORE)
        else:
            text = _said(f"this change would newly mark {run}", ranking.comparison, marked, (
                f" once the change lands (before it the group ranked "
                f"{_how(other.comparison)} and {there}, unmarked)"))
        findings.append(Finding(
            RANK_OUTLIER, text, file=layout.object_path(Digest.from_str(digest)),
            pointer="/spec" + ranking.comparison.metric, fix=POLICY_FIX,
            extra={"rule": RANK_OUTLIER.id, "stored": True, "policy": True,
                   "before": before[digest].to_json() if digest in before else None,
                   "after": after[digest].to_json() if digest in after else None}))
    return findings


def _policy_spread(key: str, was: Any, now: Any, middle: Any = None,
                   marked: set[str] | frozenset[str] = frozenset()) -> list[Finding]:
    """KI235 of a group a ranking policy change makes span the factor first (r93 F4).

    Args:
        key: the group's comparison key.
        was: its ranking at BASE (BASE's runs, policy and withdrawals).
        now: its ranking at HEAD (HEAD's runs).
        middle: BASE's runs under HEAD's policy when the range brings runs to the group
            (None: it brings none): the policy's own doing is judged on them, so the runs
            named are stored ones (reviewer break97 L10: the range's own run was named as
            the policy's #1, beside KI234's word on it); spanning less than the factor,
            the arriving runs made the spread, and :func:`range_outliers` says it (KI235's
            crossings, KI234).
        marked: digests of the runs KI234 marks under HEAD's policy among the runs judged
            (``middle``'s, else ``now``'s): a #1 among them is KI234's already, and this
            is not said of it (docs/rules.md KI235: "not said of a run KI234 says already").

    Returns:
        One warning when the group's ranked values (above 0) span less than
        :data:`OUTLIER_FACTOR` at BASE and span it under HEAD's policy (a family ranked by a
        metric a slip states 1,000x off took a group from 1.04x to 1,035x, said by nothing):
        on the #1's object at ``/spec`` + HEAD's metric, naming the group, the #1 and worst
        run judged with their values and their ranks once the change lands, and the spread
        at each end (``extra``: ``ratio``, ``factor``, ``before``, ``after``, ``policy``,
        ``over``; its ``fix`` speaks of the policy change, not of a run's add: reviewer r93b
        G6; built as an arriving run's KI235 is, :func:`_crossed_finding`); else none.
    """
    def runs(ranking: Any) -> list[Any]:
        return [r for r in ranking.ranked if r.value is not None and r.value > 0]

    then, rows = runs(was), runs(now if middle is None else middle)
    c = now.comparison
    before = spread(was.comparison.order, [r.value for r in then])
    after = spread(c.order, [r.value for r in rows])
    if before >= OUTLIER_FACTOR or after < OUTLIER_FACTOR or rows[0].record.digest in marked:
        return []
    at = {r.record.digest: r.rank for r in now.ranked}  # ranks once the change lands
    best, worst = (Run(r.record.digest, r.record.name, r.value, r.unit)
                   for r in (rows[0], rows[-1]))
    crossed = _Crossed(rows[0].record, c, best, at.get(best.digest, rows[0].rank), worst,
                       at.get(worst.digest, rows[-1].rank), after, before, after)
    return [_crossed_finding(crossed, (key, was.comparison), fix=(
        f"the change to {layout.POLICY_FILE} ranks this group by {c.metric} "
        f"{c.order}, under which its runs' values differ {ratio_said(after)}: check that "
        "the policy's metric, order and unit are the ones these runs state, or that the "
        "runs named are honest under it; both honest: say so in the pull request; a "
        "run's committed slip: a trusted maintainer withdraws it "
        f"(`{WITHDRAW.format(ref='REF')}`, the file committed)"))]


def _how(c: Comparison) -> str:
    """Return how a group ranks, as the rule's messages say it: ``(by ..., METRIC ORDER)``."""
    return f"({comparison_said(c.name, c.metric)}, {c.metric} {c.order})"


def _ranked_there(ranking: Any, digest: str, *, was: bool = False) -> str:
    """Return ``it ranks #3`` or ``it is not ranked (no value at /...)`` of a run there.

    ``was``: said of the group before the change (``it ranked #3``, ``it was not ranked``).
    """
    for row in ranking.ranked:
        if row.record.digest == digest:
            return f"it {'ranked' if was else 'ranks'} #{row.rank}"
    reason = next((r.reason for rows in (ranking.unranked, ranking.references,
                                         ranking.excluded)
                   for r in rows if r.record.digest == digest), None)
    return f"it {'was' if was else 'is'} not ranked ({reason or 'not in the group'})"


def _crossed_finding(crossed: _Crossed, policy: tuple[str, Comparison] | None = None,
                     fix: str | None = None) -> Finding:
    """Return KI235 of a crossing: on the run's object at ``/spec`` + the ranked metric.

    Args:
        crossed: the run by which its group spans the factor first, and with what.
        policy: as :func:`_crossed_message` takes it (a ranking policy change's).
        fix: the finding's fix (None: the rule's hint).

    Returns:
        The warning; ``extra``: ``rule``, ``ratio``, ``factor``, ``before``, ``after``,
        ``policy`` (a policy change's only) and ``over`` (the run it is measured against:
        ``digest``, ``name``, ``value``, ``rank``, ``stored``).
    """
    over = crossed.over
    return Finding(
        GROUP_SPREAD, _crossed_message(crossed, policy),
        file=layout.object_path(Digest.from_str(crossed.record.digest)),
        pointer="/spec" + crossed.comparison.metric, fix=fix,
        extra={"rule": GROUP_SPREAD.id, "ratio": crossed.ratio, "factor": OUTLIER_FACTOR,
               "before": crossed.before, "after": crossed.after,
               **({"policy": True} if policy is not None else {}),
               "over": {"digest": over.digest, "name": over.name, "value": over.value,
                        "rank": crossed.over_rank, "stored": crossed.stored}})


def _may_mark(specs: Sequence[dict[str, Any]], comparison: Comparison) -> bool:
    """Return False when no run of a group can be marked, whatever ranks it; else True.

    A marked run and the group's median run are both ranked, so both state a number at
    the metric, above 0, one :data:`OUTLIER_FACTOR` times the other
    (:func:`~.outliers.group_outliers`): a group whose numbers at the metric (of any run,
    ranked or not) do not span that (:func:`~.outliers.spans`, the gate's test too: values
    of 0 or below left out, since no run is marked or compared with at such a value; until
    2026-12-05 verify kept every group holding one) has none. What ranking every group cost
    ``verify`` (~0.4 s of 0.7 at 20,000 manifests, 2,961 groups, docs/speed.md) is spent on
    the few that can.

    Args:
        specs: the ``spec`` of each run of the group.
        comparison: how the group ranks.
    """
    return spans(comparison.order, [v for spec in specs
                                    if (v := comparison.value(spec)[0]) is not None])


def _bytes(view: View, path: str) -> bytes | None:
    """Return a stored file's bytes, or None when absent, past the limit or unreadable."""
    try:
        return view.read(path, DEFAULT.manifest_bytes)
    except (FileTooLarge, KistoreError):  # other rules say so (KI106, KI117)
        return None


_MAY_BE_RUN = re.compile(rb"BenchmarkRun|\\u|\x00")
"""Bytes whose document may be of ``kind`` ``BenchmarkRun``, in any JSON text a parser takes.

A document's ``kind`` reads ``BenchmarkRun`` only when its bytes hold those 12 letters,
or spell them with an escape (``\\u0042``: no other JSON escape makes a letter), or are
UTF-16 or UTF-32 (which :func:`loads_lenient` also reads: ASCII there holds NUL bytes).
``"kind":"BenchmarkRun"`` alone would do for canonical bytes (RFC 8785 writes that key and
value so, exactly), but a range may commit an object that is not canonical (KI103 says
so; this rule judges its run all the same, as before): ``"kind": "BenchmarkRun"`` must not
be missed. A match is only a maybe (any string may name the kind): the bytes are then
hashed and parsed as before."""


def _stored(view: View, digest: str, *, only_runs: bool = False
            ) -> tuple[str, dict[str, Any]] | None:
    """Return ``(kind, spec)`` of a stored object whose bytes hash to ``digest``, or None.

    None for a reference that is no full digest, and an object absent, tampered (its
    sha256 is not ``digest``), unparsable or without a ``spec`` object: other rules' to say.
    ``only_runs``: None also for an object whose bytes cannot be a run's
    (:data:`_MAY_BE_RUN`), neither hashed nor parsed (~37 us a manifest the gate adds).
    """
    if not is_digest(digest):
        return None
    data = _bytes(view, layout.object_path(Digest.from_str(digest)))
    if data is None or only_runs and not _MAY_BE_RUN.search(data):
        return None
    if hashes.sha256(data).hexdigest() != digest[7:]:
        return None
    try:
        document = loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return None
    kind = document.get("kind") if isinstance(document, dict) else None
    spec = document.get("spec") if isinstance(document, dict) else None
    return (kind, spec) if isinstance(kind, str) and isinstance(spec, dict) else None


def check_outliers(store: Store, at: str | None = None) -> list[Finding]:
    """KI234 for ``verify``: a warning per comparison group whose #1 the rule marks.

    The rule is a warning, so a marked run merges; ``verify`` says it afterwards, once a
    group, where ``rank`` marks it (reviewer r90b F2: verify said "0 warnings" of a group
    whose #1 and #2 were both 1,000x ahead). One pass over the store's groups: the
    catalog read once, attestations once for every run (withdrawn runs left out, as
    ``rank`` leaves them), each group ranked (:func:`~.outliers.ranking_outliers`).
    ``kistore verify`` judges the same from what its contents check parsed instead
    (:func:`outliers_parsed`: no manifest read twice); this reads the store itself.

    Args:
        store: the store.
        at: revision, or None for the work tree.

    Returns:
        One warning per group whose #1 is marked, on the #1's object at ``/spec`` + the
        ranked metric, naming the group's median run, the ratio and how many other runs
        of the group are marked (``extra``: :meth:`Outlier.to_json`); none without a
        ranking policy, nor when a manifest cannot be read (KI117 says so, on its file).
    """
    policy = policy_of(store, at)
    if policy is None:
        return []
    # Lazy: verify's pass alone reads the whole catalog and its evidence.
    from ..git.blobs import ObjectUnreadable
    from ..index.index import open_catalog

    try:
        catalog = open_catalog(store, at, use_index=False)
    except ObjectUnreadable:  # a damaged blob: verify's KI117 on its file, said once
        return []
    groups: dict[tuple[str, Comparison], list[Record]] = {}
    for record in catalog.records(kind="BenchmarkRun"):
        group = _group_of(record, policy)
        if group is not None:
            groups.setdefault(group, []).append(record)
    return _judge_groups(store, at, {
        group: records for group, records in groups.items()
        if _may_mark([r.spec for r in records], group[1])}, catalog)


def ranked_keys(store: Store, at: str | None = None) -> frozenset[str] | None:
    """Return the top-level keys of a run's ``spec`` KI234's judging reads, or None.

    What :func:`~.ranking.rank_group` reads of a run that states no contradiction and no
    unproven claim: its status, references (:func:`kistore.index.records.describe`),
    ``timing`` (the measured value, the primary statistic) and the first key of each
    metric and unit pointer of the ranking policy (e.g. ``sourceNative``): the
    :attr:`kistore.check.audit.FromParse.keep` ``kistore verify`` gives with
    :func:`outliers_parsed`.

    Args:
        store: the store.
        at: revision, or None for the work tree.

    Returns:
        The keys; None without a readable ranking policy (KI206's: nothing is judged).
    """
    policy = policy_of(store, at)
    if policy is None:
        return None
    keys = {"status", "timing", *REFERENCE_FIELDS}
    for entry in policy.families.values():
        for pointer in (entry.get("metric"), entry.get("unitPointer")):
            if isinstance(pointer, str):
                keys.add(pointer.split("/")[1].replace("~1", "/").replace("~0", "~")
                         if pointer.startswith("/") else pointer)
    return frozenset(keys)


def ranked_kept(store: Store) -> AbstractContextManager[None]:
    """Return a block in which each run's facts keep the spec cut to :func:`ranked_keys`.

    ``kistore add`` and ``import`` parse and add inside it: KI221 (:func:`kistore.query.
    ranked_values.values_admitted`) and KI234 (:func:`outliers_admitted`) then read each
    run's cut (:func:`kistore.store.run_facts.ranked_spec`), found where the run was parsed,
    in the parse workers of a bulk add, instead of parsing its spec again and keeping it.
    The work tree's policy is read only once a run's facts are found.
    """
    return keeping_ranked(lambda: ranked_keys(store))


def outliers_parsed(store: Store, at: str | None, loaded: dict[str, Loaded]) -> list[Finding]:
    """:func:`check_outliers` from the manifests ``verify``'s contents check parsed.

    The :attr:`kistore.check.audit.FromParse.judge` ``kistore verify`` gives (with
    :func:`ranked_keys`): the records :func:`check_outliers` reads from the store are made
    from ``loaded`` instead (every manifest a catalog loads, each run's spec cut to
    :func:`ranked_keys`, which its ranking alone reads), so each manifest is read and
    parsed once (docs/speed.md). Runs alike in :data:`~kistore.core.comparison.
    KEYED_REFERENCES` share their group (its key, family and statistic come from those
    references alone), so one run of each is described to place them all, and the runs
    of a group are described only when its values span :data:`OUTLIER_FACTOR`
    (:func:`_may_mark`).

    Args:
        store: the store (its ranking policy and attestations are read).
        at: revision, or None for the work tree.
        loaded: digest string -> ``(kind, name, spec)`` of each run, protocol,
            environment and implementation the contents check read whole and found to
            be what a catalog loads.

    Returns:
        As :func:`check_outliers`, after KI245 of the stored policy, judged from the same
        groups (:func:`kistore.query.unheld_metric.stored_unheld`: a family ranked by a
        pointer fewer of its groups hold as a number than hold none).
    """
    policy = policy_of(store, at)
    if policy is None:
        return []

    def lookup(digest: str) -> tuple[str, dict[str, Any]] | None:
        found = loaded.get(digest)
        return None if found is None else (found[0], found[2])

    placed: dict[tuple[Any, ...], tuple[str, Comparison] | None] = {}
    groups: dict[tuple[str, Comparison], list[Loaded]] = {}
    workload, protocol, environment = KEYED_REFERENCES
    for digest, (kind, name, spec) in loaded.items():
        if kind != "BenchmarkRun":
            continue
        # a run's KEYED_REFERENCES, each a string or None (else no digest: alone); spelt
        # out, not a generator each: ~0.1 s of 95,000 runs
        keyed: tuple[Any, ...] = (spec.get(workload), spec.get(protocol), spec.get(environment))
        if not (isinstance(keyed[0], str | None) and isinstance(keyed[1], str | None)
                and isinstance(keyed[2], str | None)):
            keyed = (digest,)
        if keyed not in placed:
            placed[keyed] = _group_of(describe(digest, kind, name, spec, lookup), policy)
        group = placed[keyed]
        if group is not None:
            groups.setdefault(group, []).append((digest, name, spec))
    return stored_unheld(groups) + _judge_groups(store, at, {
        group: [describe(d, "BenchmarkRun", n, s, lookup) for d, n, s in runs]
        for group, runs in groups.items() if _may_mark([s for _, _, s in runs], group[1])})


def _group_of(record: Record, policy: RankingPolicy) -> tuple[str, Comparison] | None:
    """Return a run's comparison key and how its group ranks, or None when it has no group."""
    if record.comparison_key is None or record.family is None:
        return None
    try:
        return record.comparison_key, policy.comparison(record.family,
                                                        record.statistic or "mean")
    except KistoreError:
        return None  # a family with no metric: rank's to say


def _judge_groups(store: Store, at: str | None,
                  groups: dict[tuple[str, Comparison], list[Record]],
                  catalog: Catalog | None = None) -> list[Finding]:
    """Return KI234's warning per group of ``groups`` whose #1 is marked, as ``rank`` ranks it.

    As :func:`check_outliers` says. ``groups``: (key, comparison) -> the group's runs;
    ``catalog``: the work tree's, whose :attr:`~kistore.index.catalog.Catalog.annotated`
    and ``outside`` spare reading the notes of runs with none (None: every run's read).
    """
    # Lazy: verify's pass alone reads the evidence of every grouped run.
    from .answers import evidence_map

    judged = sorted(groups.items(), key=lambda g: g[0][0])
    evidence = evidence_map(store, [r for _, records in judged for r in records], at=at,
                            annotated=None if catalog is None else catalog.annotated,
                            outside=None if catalog is None else catalog.outside,
                            committed=None if catalog is None else catalog.committed)
    findings = []
    for (key, comparison), records in judged:
        try:
            ranking = rank_group(key, records, comparison, evidence)
        except KistoreError:  # runs in two units: KI210 says so, `rank` fails for it
            continue
        marked = ranking_outliers(ranking)
        first = ranking.first
        if first is None or first.record.digest not in marked:
            continue
        outlier = marked[first.record.digest]
        findings.append(Finding(
            RANK_OUTLIER, _said("ranks #1", comparison, outlier, more=len(marked) - 1),
            file=layout.object_path(Digest.from_str(first.record.digest)),
            pointer="/spec" + comparison.metric, extra=outlier.to_json()))
    return findings
