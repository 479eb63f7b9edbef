"""KI249, a run's ranked value that can never be a number: the rule, its words, its judges.

A source-native family ranks the number at its policy ``metric`` (a JSON Pointer into the
run spec). KI206 judges the pointer's words only (:mod:`kistore.core.policy_metric`), so a
pointer to a part of the run holding values, ``/sourceNative/metrics`` (an object), or to a
word, ``/sourceNative/benchmark`` (a string), passed it, and ``rank`` left every run of
the family unranked (fresh17 F3). KI245 refuses such a policy change when the runs are
already stored; a policy committed first, before any run of its family, let each run
arriving after it pass with KI221's warning. A value ``rank`` can never rank is refused
where it enters, naming the run, the pointer, what it holds there and the numbers under
it (or near it) a policy may rank by:

* an arriving run (``check``, pre-receive: :func:`kistore.query.group_rules.
  values_are_numbers`; ``add`` and ``import``: :func:`kistore.query.ranked_values.
  values_admitted`), on its object file at ``/spec`` + the metric;
* a policy change (``check``, pre-receive: :func:`policy_never_numbers`), and the policy as
  it stands (``verify``: :func:`stored_never_numbers`), once per family, on
  ``store/policy/ranking.json`` at ``/families/F/metric``;
* ``rank`` and ``show``, which list such a run unranked, say why on stderr
  (:func:`ranking_said`).

Since 2026-12-07 (pol04).

Never a number: an object, an array, a boolean, or a string that reads as no number
(``"KernelBench"``, ``"PASSED"``). A string that reads as one (``"0.5"``) is a number
misstated, KI221's warning (:mod:`kistore.query.ranked_values`); nothing or ``null`` there
is no value (KI245-KI248).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.canonical import escape_pointer
from ..core.errors import KistoreError
from ..core.findings import ERROR, Finding, rule
from ..core.numbers import is_number
from ..core.policy_metric import metric_problem
from ..core.statistics import named
from .policy import MEASURED, Comparison, resolve_pointer, shown_value

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store
    from .ranking import Ranking

NEVER_A_NUMBER = rule(
    "KI249", "ranked-value-never-a-number", ERROR,
    f"rank the family by a pointer to a number its runs hold ({layout.POLICY_FILE}'s "
    "metric), or state a number there in a new run (objects are never edited): as it is, "
    "`rank` can never rank the run")

NUMBERS_SHOWN = 6
"""The most pointers to numbers a message offers (then ``and N more``)."""

_NUMBER_TEXT = re.compile(r"\s*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\s*")
"""A string that reads as a number (``"0.5"``, ``" 3e-3 "``): a number misstated (KI221)."""

_WORDS = {bool: "a boolean", str: "a string", dict: "an object", list: "an array"}


def never_a_number(value: Any) -> bool:
    """Return whether a run's ranked value can never be read as a number.

    Args:
        value: what a run states at its family's metric (parsed JSON).

    Returns:
        True for an object, an array, a boolean, and a string that reads as no number
        (:data:`_NUMBER_TEXT`); False for a number, ``null`` (or nothing: None) and a string
        that reads as one (``"0.5"``: KI221's). Raises nothing.
    """
    if isinstance(value, str):
        return _NUMBER_TEXT.fullmatch(value) is None
    return isinstance(value, dict | list | bool)


def stated(value: Any) -> str:
    """Return a value after JSON's word for its type: ``an object {"latency_ms": 1}``."""
    return f"{_WORDS.get(type(value), 'a value')} {shown_value(value)}"


def _under(node: Any, at: str, into: list[str]) -> None:
    """Add the pointer of each number under ``node`` (objects and arrays), in document order."""
    if isinstance(node, dict):
        for key, value in node.items():
            _under(value, f"{at}/{escape_pointer(str(key))}", into)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _under(value, f"{at}/{index}", into)
    elif is_number(node):
        into.append(at)


def numbers_offered(specs: Iterable[Any], metric: str) -> tuple[str, list[str]]:
    """Return where the runs hold numbers a policy may rank by, under or near ``metric``.

    Args:
        specs: run specs (parsed JSON).
        metric: the family's metric (RFC 6901).

    Returns:
        ``("under", pointers)`` when some spec holds an object or array there with numbers
        in it, else ``("near", pointers)`` (:func:`kistore.query.unheld_metric.
        held_pointers`: under the deepest ancestor a spec holds as an object); only pointers
        KI206 lets a policy rank by (:func:`kistore.core.policy_metric.metric_problem`),
        sorted, each once.
    """
    specs = list(specs)
    found: list[str] = []
    for spec in specs:
        _under(resolve_pointer(spec, metric), metric, found)
    under = sorted({p for p in found if p != metric and metric_problem(p) is None})
    if under:
        return "under", under
    # Lazy: `rank` and `show` load this module; the did-you-mean's module only for a word.
    from .unheld_metric import held_pointers

    return "near", held_pointers(specs, metric)


def offered_said(where: str, pointers: list[str]) -> str:
    """Say :func:`numbers_offered`: ``the numbers under it: /a, /b and 3 more``."""
    if not pointers:
        return "no number under it or near it that a policy may rank by"
    shown = ", ".join(pointers[:NUMBERS_SHOWN])
    more = len(pointers) - NUMBERS_SHOWN
    return f"the numbers {where} it: {shown}" + (f" and {more} more" if more > 0 else "")


def run_said(comparison: Comparison, family: str, value: Any, spec: Any) -> str:
    """Return KI249's message of one run: what it states at the metric, and the numbers offered.

    ``states an object {...} at /sourceNative/metrics, the value its family 'F' is ranked by
    (store/policy/ranking.json), which is never a number: ...; the numbers under it: ...``.
    """
    return (f"states {stated(value)} at {comparison.metric}, the value its family {family!r} "
            f"is ranked by ({layout.POLICY_FILE}), which is never a number (no number nor "
            "one written as text): `rank` can never rank the run by it; "
            f"{offered_said(*numbers_offered([spec], comparison.metric))}")


Runs = Mapping[tuple[str, Any], Iterable[Any]]
"""(comparison key, its :class:`kistore.query.policy.Comparison`) -> the group's runs,
``(digest, name, spec)`` each."""


def family_findings(groups: Runs, families: set[str] | None = None, *,
                    stored: bool) -> list[Finding]:
    """KI249 once per source-native family some of whose runs state a value never a number.

    Args:
        groups: the groups judged (:data:`Runs`).
        families: the families judged (a policy change's changed ones); None: every one.
        stored: whether the policy is judged as it stands (``verify``: "ranks", every such
            family) rather than as a change makes it (the gate: "would rank", only a family
            some run of which holds a number there: one holding none is KI245's error,
            which says what they hold, said once).

    Returns:
        One error per such family, on ``store/policy/ranking.json`` at
        ``/families/F/metric``, naming how many runs state such a value, the first by digest
        (name, digest, what it states), and the numbers under or near the pointer its runs
        hold (``extra``: ``family``, ``metric``, ``runs``: the digests, ``numbers``).
    """
    by_family: dict[str, tuple[str, list[tuple[str, Any, Any]], list[Any]]] = {}
    for (_, comparison), runs in groups.items():
        if comparison.name == MEASURED or (families is not None
                                           and comparison.family not in families):
            continue
        entry = by_family.setdefault(comparison.family, (comparison.metric, [], []))
        for digest, name, spec in runs:
            entry[2].append(spec)
            if never_a_number(resolve_pointer(spec, comparison.metric)):
                entry[1].append((str(digest), name, spec))
    findings = []
    for family, (metric, bad, specs) in sorted(by_family.items()):
        if not bad or not stored and not any(
                is_number(resolve_pointer(s, metric)) for s in specs):
            continue
        bad.sort(key=lambda run: run[0])
        digest, name, spec = bad[0]
        where, numbers = numbers_offered(specs, metric)
        runs = f"{len(bad)} stored runs of it state" if len(bad) > 1 else \
            "a stored run of it states"
        findings.append(Finding(
            NEVER_A_NUMBER,
            f"family {family!r} {'ranks' if stored else 'would rank'} {metric}, where {runs} "
            f"a value that is never a number (e.g. {named('BenchmarkRun', name, digest)} "
            f"states {stated(resolve_pointer(spec, metric))} there): `rank` can never rank "
            f"them by it; {offered_said(where, numbers)}",
            file=layout.POLICY_FILE, pointer=f"/families/{escape_pointer(family)}/metric",
            expected="a pointer to a number", found=stated(resolve_pointer(spec, metric)),
            extra={"family": family, "metric": metric, "runs": [r[0] for r in bad],
                   "numbers": numbers}))
    return findings


def stored_never_numbers(groups: Runs) -> list[Finding]:
    """KI249 for ``verify``: the policy as it stands, every family (:func:`family_findings`).

    ``groups``: :func:`kistore.query.outlier_rules.outliers_parsed`' groups (no read of its
    own).
    """
    return family_findings(groups, stored=True)


def policy_never_numbers(store: Store, base: str, head: str, changed: set[str], *,
                         arriving: Collection[str] = ()) -> list[Finding]:
    """KI249 of a range changing the ranking policy: the families whose comparison it changes.

    Each source-native family whose metric HEAD's policy changes from BASE's (or adds) is
    judged on HEAD's runs (the catalog of HEAD, O(store): paid only by a pull request
    changing the policy, as KI210's :func:`kistore.query.group_rules.units_agree`).

    Args:
        store: the store; its policy at ``base`` and ``head`` and the catalog of HEAD read.
        base: the range's base commit id.
        head: its head commit id.
        changed: the paths the range changes (nothing judged unless the policy file is one).
        arriving: the digests of the runs the range puts in groups, left out: each is said
            on its own object (:func:`kistore.query.group_rules.values_are_numbers`).

    Returns:
        :func:`family_findings` of those families (``would rank``).
    """
    if layout.POLICY_FILE not in changed:
        return []
    # Lazy: a policy change alone reads the catalog.
    from ..index.index import open_catalog
    from .units import policy_of

    after = policy_of(store, head)
    if after is None:
        return []  # KI206's to say
    before = policy_of(store, base)
    moved = {family for family, entry in after.families.items()
             if entry.get("comparison") != MEASURED and (
                 before is None or before.families.get(family, {}).get("metric")
                 != entry.get("metric"))}
    if not moved:
        return []
    groups: dict[tuple[str, Any], list[tuple[str, str, Any]]] = {}
    for record in open_catalog(store, head, use_index=False).records(kind="BenchmarkRun"):
        if (record.comparison_key is None or record.family not in moved
                or record.digest in arriving):
            continue
        try:
            comparison = after.comparison(record.family, record.statistic or "mean")
        except KistoreError:  # a family with no metric: KI206's or rank's
            continue
        groups.setdefault((record.comparison_key, comparison), []).append(
            (record.digest, record.name, record.spec))
    return family_findings(groups, moved, stored=False)


def ranking_said(ranking: Ranking, digest: str | None = None) -> str | None:
    """KI249 as ``rank`` and ``show`` say it on stderr: runs of a ranked group never a number.

    Args:
        ranking: a comparison group as ``rank`` ranked it (its rows, excluded ones too).
        digest: ``show``'s run: only it is judged (None: every run of the group, ``rank``).

    Returns:
        None when no such run is in the group (or it ranks by measured latency);
        else ``BenchmarkRun/NAME (sha256:...) states ... at M, ...: `rank` can never rank
        the run by it; the numbers under it: ... (KI249: ...)`` for one run, ``N runs of
        group sha256:... state, at M, ... (e.g. ...)`` for more, each ending with what the
        gate and ``verify`` do of it.
    """
    comparison = ranking.comparison
    if comparison.name == MEASURED:
        return None
    runs = sorted((row.record.digest, row.record.name, row.record.spec)
                  for row in ranking.rows(include_excluded=True)
                  if (digest is None or row.record.digest == digest)
                  and never_a_number(resolve_pointer(row.record.spec, comparison.metric)))
    if not runs:
        return None
    after = " (KI249: `check`, pre-receive and `verify` refuse it)"
    first, name, spec = runs[0]
    if len(runs) == 1:
        value = resolve_pointer(spec, comparison.metric)
        return (f"{named('BenchmarkRun', name, first)} "
                f"{run_said(comparison, comparison.family, value, spec)}{after}")
    where, numbers = numbers_offered([s for _, _, s in runs], comparison.metric)
    return (f"{len(runs)} runs of comparison group {ranking.key} state a value never a number "
            f"at {comparison.metric}, the value their family {comparison.family!r} is ranked "
            f"by ({layout.POLICY_FILE}) (e.g. {named('BenchmarkRun', name, first)} states "
            f"{stated(resolve_pointer(spec, comparison.metric))} there): `rank` can never "
            f"rank them by it; {offered_said(where, numbers)}{after}")
