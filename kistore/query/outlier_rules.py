"""KI234 before a run lands: ``add``, ``import``, ``check BASE..HEAD`` and pre-receive.

:mod:`.outliers` owns the rule and its words. A run is judged against the runs its
comparison group held before it came (the work tree's for an add, HEAD's less the range's
own runs for the gate), each arriving run alone: would it rank #1, beating the best of
them by :data:`~.outliers.OUTLIER_FACTOR` or more?

* :func:`outliers_admitted`, a :data:`kistore.store.AdmissionCheck` ``kistore add`` and
  ``import`` hand to :meth:`kistore.store.Store.add` (``checks=``): a warning, the run is
  added (an honest fast kernel exists);
* :func:`range_outliers`, a :data:`kistore.check.gate.RangeChecker` ``kistore check``
  (and so pre-receive, ``check --updates``) hands to the gate (``checkers=``): a warning
  per run whose group file the range adds.

Cost, O(change): the group is listed through its directory (``store/groups/sha256/XX/<62
hex of K>/``, one tree lookup), and its runs' objects are read only when the arriving run
itself can rank (status ``passed``, a positive value, not a reference, no contradiction),
in digest order, stopping at the first run the arrival does not beat by the factor (with
that run's implementation, whose role says whether it ranks): an ordinary run usually
reads one other run, the first, and its implementation; when the first does not decide
(beaten by the factor, failed, a reference), the rest of the group's objects come in one
fetch in a partial clone, and an outlier reads them all. Evidence (attestations,
withdrawals) is not read: a withdrawn run counts as the group's best here (``rank`` reads
it, and marks the #1 it ranks).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core import hashes, layout
from ..core.canonical_fast import loads_lenient
from ..core.comparison import stored_spec
from ..core.digest import Digest, is_digest
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.limits import DEFAULT
from ..core.model import Manifest, metadata_name
from ..core.statistics import named
from ..core.words import comparison_said
from ..index.records import REFERENCE, Record, describe
from ..store import AdmissionWarning, FileTooLarge
from .outliers import OUTLIER_FACTOR, RANK_OUTLIER, WHY, Outlier, factor, ratio_said, value_said
from .policy import DESCENDING, Comparison, RankingPolicy
from .ranking import rank_group
from .units import policy_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store, View

_ADDED = "added all the same; `check` warns too"


class _Ranked(NamedTuple):
    """A run of a group as the judging reads it: what ranks it, and its implementation."""

    digest: str
    value: float
    unit: str | None
    implementation: Any


class _Group:
    """The runs of one comparison group of a view, read as they are asked for.

    Args:
        view: the tree (work tree or a commit).
        key: the comparison key.
        comparison: how the group ranks (the arriving run's family and statistic).
        skip: digest strings of the arriving runs (never judged against one another).
    """

    def __init__(self, view: View, key: str, comparison: Comparison, skip: set[str]) -> None:
        self.view, self.key, self.comparison = view, key, comparison
        self._hexes = [h for h in sorted(view.list_dir(layout.group_dir(Digest.from_str(key))))
                       if len(h) == 64 and f"sha256:{h}" not in skip]
        self._read: list[_Ranked | None] = []
        self._roles: dict[str, str | None] = {}

    @property
    def empty(self) -> bool:
        """True when the group holds no run but the arriving ones."""
        return not self._hexes

    def runs(self) -> Iterator[_Ranked]:
        """Yield each run that ranks (evidence aside), reading its object when first asked."""
        for i, hex_ in enumerate(self._hexes):
            if i == len(self._read):
                if i == 1:  # past the first: the rest in one fetch (a partial clone)
                    self.view.prefetch([layout.object_path(Digest(h))
                                        for h in self._hexes[1:]])
                self._read.append(self._ranked(hex_))
            found = self._read[i]
            if found is not None:
                yield found

    def _ranked(self, hex_: str) -> _Ranked | None:
        spec = stored_spec(_bytes(self.view, layout.object_path(Digest(hex_))), hex_,
                           "BenchmarkRun")
        if spec is None:
            return None  # missing, tampered or no run: KI101, KI216 say so
        digest = f"sha256:{hex_}"
        row = rank_group(self.key, [Record(digest, "BenchmarkRun", "", spec)],
                         self.comparison, {}).first
        if row is None or row.value is None:
            return None
        return _Ranked(digest, row.value, row.unit, spec.get("implementationDigest"))

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


def _judge(group: _Group, digest: str, value: float, unit: str | None) -> Outlier | None:
    """Return the outlier an arriving run is in ``group``, or None.

    Reads the group's runs until one the arrival does not beat by :data:`OUTLIER_FACTOR`
    (and that ranks: not a reference); an arrival beating every one by the factor is
    compared with the best of them that ranks.
    """
    order = group.comparison.order
    beaten: list[_Ranked] = []
    for run in group.runs():
        if unit is not None and run.unit is not None and run.unit != unit:
            continue  # another unit: KI210 refuses the pair; nothing to compare
        if factor(order, value, run.value) < OUTLIER_FACTOR:
            if group.ranks(run):
                return None
            continue
        beaten.append(run)
    sign = -1.0 if order == DESCENDING else 1.0
    for run in sorted(beaten, key=lambda r: (sign * r.value, r.digest)):
        if group.ranks(run):
            ratio = factor(order, value, run.value)
            if math.isinf(ratio):
                return None  # the best so far is 0 or below: no ratio to say
            return Outlier(digest, value, run.digest, group.name(run.digest), run.value,
                           unit, ratio)
    return None


def _arrival(record: Record, policy: RankingPolicy) -> tuple[Comparison, float, str | None] | None:
    """Return how an arriving run ranks and its value, or None when it cannot rank (#1)."""
    if record.comparison_key is None or record.family is None or record.is_reference:
        return None
    try:
        comparison = policy.comparison(record.family, record.statistic or "mean")
    except KistoreError:
        return None  # a family with no metric: rank's to say
    row = rank_group(record.comparison_key, [record], comparison, {}).first
    if row is None or row.value is None or row.value <= 0:
        return None  # failed, no value, contradicting itself: never #1
    return comparison, row.value, row.unit


def _judged(view: View, policy: RankingPolicy, records: Iterable[Record]
            ) -> Iterator[tuple[Record, Comparison, Outlier]]:
    """Yield each arriving run that is a :data:`RANK_OUTLIER` in its group of ``view``.

    Args:
        view: the tree whose groups hold the runs before they came.
        policy: its ranking policy.
        records: the arriving runs (their records); the others of one group are left out
            of its members (each arrival is judged against the runs already there).
    """
    arriving = list(records)
    skip = {r.digest for r in arriving}
    groups: dict[tuple[str, Comparison], _Group] = {}
    for record in sorted(arriving, key=lambda r: r.digest):
        found = _arrival(record, policy)
        if found is None:
            continue
        comparison, value, unit = found
        assert record.comparison_key is not None
        group = groups.get((record.comparison_key, comparison))
        if group is None:
            group = groups[(record.comparison_key, comparison)] = _Group(
                view, record.comparison_key, comparison, skip)
        if group.empty:
            continue  # no run before it: nothing to compare
        outlier = _judge(group, record.digest, value, unit)
        if outlier is not None:
            yield record, comparison, outlier


def _message(comparison: Comparison, outlier: Outlier) -> str:
    """Return the finding's text: the run's value, the best before it, the ratio, why."""
    best = named("BenchmarkRun", outlier.best_name, outlier.best)
    return (f"would rank #1 of its comparison group ({comparison_said(comparison.name)}, "
            f"{comparison.metric} {comparison.order}) with "
            f"{value_said(outlier.value, outlier.unit)}, {ratio_said(outlier.ratio)} better than "
            f"the group's best so far, {best} with {value_said(outlier.best_value, outlier.unit)}: "
            f"{WHY}")


def outliers_admitted(store: Store, manifests: Sequence[Manifest]
                      ) -> list[tuple[Digest, KistoreError]]:
    """KI234 warnings for the runs an add would add (an :data:`~kistore.store.AdmissionCheck`).

    Args:
        store: the store added to: its work tree's ranking policy, group directories and
            runs are read (a run's group only when the run itself can rank).
        manifests: the manifests the add would add (new objects); protocols, environments
            and implementations among them count as stored.

    Returns:
        ``(run digest, AdmissionWarning)`` per new run that would rank #1 of its group
        beating the work tree's best run of it by :data:`OUTLIER_FACTOR` or more, at
        ``/spec`` + the ranked metric; the run is added all the same.
    """
    runs = [m for m in manifests if m.kind == "BenchmarkRun"]
    policy = policy_of(store, None) if runs else None
    if policy is None:
        return []
    view = store.view(None)
    batch = {str(m.digest): m for m in manifests}

    def lookup(digest: str) -> tuple[str, dict[str, Any]] | None:
        if digest in batch:
            return batch[digest].kind, batch[digest].spec
        return _stored(view, digest)

    records = [describe(str(m.digest), m.kind, m.name, m.passing_spec(), lookup) for m in runs]
    return [(Digest.from_str(r.digest), AdmissionWarning(
        f"{_message(c, o)}; {RANK_OUTLIER.hint} ({RANK_OUTLIER.id}: "
        f"{_ADDED})", pointer="/spec" + c.metric))
        for r, c, o in _judged(view, policy, records)]


def range_outliers(store: Store, base: str, head: str, changed: set[str]) -> list[Finding]:
    """KI234 (warnings) for the runs a range puts in a comparison group (a ``RangeChecker``).

    Args:
        store: the store; its view at ``head`` is read.
        base: the range's base commit id (unused: HEAD's groups less the range's runs are
            the groups before it).
        head: its head commit id.
        changed: the paths the range changes; each group file it adds is a run arriving.

    Returns:
        One warning per run whose group file the range adds that would rank #1 of its group
        at ``head``, beating the group's best run the range does not add by
        :data:`OUTLIER_FACTOR` or more; on the run's object, at ``/spec`` + the ranked
        metric (``extra``: :meth:`Outlier.to_json`).
    """
    arriving = [grouped[1] for path in changed
                if (grouped := layout.group_from_path(path)) is not None]
    if not arriving:
        return []
    policy = policy_of(store, head)
    if policy is None:
        return []
    view = store.view(head)
    records = []
    for run in sorted(set(arriving), key=str):
        found = _stored(view, str(run))
        if found is not None and found[0] == "BenchmarkRun":
            name = metadata_name(_bytes(view, layout.metadata_path(run)))
            records.append(describe(str(run), found[0], name or "", found[1],
                                    lambda d: _stored(view, d)))
    return [Finding(RANK_OUTLIER, _message(c, o),
                    file=layout.object_path(Digest.from_str(r.digest)),
                    pointer="/spec" + c.metric, extra=o.to_json())
            for r, c, o in _judged(view, policy, records)]


def _bytes(view: View, path: str) -> bytes | None:
    """Return a stored file's bytes, or None when absent, past the limit or unreadable."""
    try:
        return view.read(path, DEFAULT.manifest_bytes)
    except (FileTooLarge, KistoreError):  # other rules say so (KI106, KI117)
        return None


def _stored(view: View, digest: str) -> tuple[str, dict[str, Any]] | None:
    """Return ``(kind, spec)`` of a stored object whose bytes hash to ``digest``, or None.

    None for a reference that is no full digest, and an object absent, tampered (its
    sha256 is not ``digest``), unparsable or without a ``spec`` object: other rules' to say.
    """
    if not is_digest(digest):
        return None
    data = _bytes(view, layout.object_path(Digest.from_str(digest)))
    if data is None or hashes.sha256(data).hexdigest() != digest[7:]:
        return None
    try:
        document = loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return None
    kind = document.get("kind") if isinstance(document, dict) else None
    spec = document.get("spec") if isinstance(document, dict) else None
    return (kind, spec) if isinstance(kind, str) and isinstance(spec, dict) else None
