"""KI245: a ranking-policy change that ranks a family by a metric none of its runs holds.

Held means held as a number ``rank`` ranks (:func:`kistore.core.numbers.is_number`,
the one test both use): until 2026-12-05 any value counted, so a pointer every run states as
a string (KernelBench's ``/sourceNative/metrics/hardware``), a boolean or an object unranked
the whole family with a green gate (reviewer fresh96 F1).

A typo in ``store/policy/ranking.json`` (``/sourceNative/metrics/latency`` where the runs
state ``latency_ms``) leaves every group of the family with nothing ranked: ``rank`` says
"no value at ..." for each run, and until 2026-12-05 the gate said only KI415, info, once a
group (reviewer fresh95 F1: 500 info lines and "ok"). :func:`unheld_metrics` turns that into
one error per family, naming the pointer and the pointers the family's runs do hold. Where
other groups of the family the change touches do rank by the pointer, the change is no typo:
the groups it leaves unranked are a warning (KI246), which a reviewer passes when meant (a
family moved to a source's own metric that some groups' runs do not state). A run that
ranked and ranks nothing at HEAD, in a group that keeps ranking others, is a warning too
(KI247, :func:`unranked_runs`): a run without the new metric beside two that state it left
the ranking with one KI415 line that listed it no more (reviewer break95 M2). All three are
judged from the rankings :func:`kistore.query.impact.trust_and_policy_effects` already
makes of each group a policy change touches (both ends), so they cost no read of their own.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.canonical import escape_pointer
from ..core.findings import ERROR, WARNING, Finding, rule
from ..core.layout import POLICY_FILE
from ..core.numbers import is_number
from ..core.policy_metric import metric_problem, name_words
from .policy import MEASURED, holds_null, resolve_pointer, shown_value

METRIC_HELD_BY_NO_RUN = rule(
    "KI245", "policy-metric-held-by-no-run", ERROR,
    "rank the family by a pointer its runs hold as a number, or leave the family out of "
    "store/policy/ranking.json; `kistore rank` ranks none of its runs (each finding's fix "
    "says which case: a typo, or a metric held as no number)")

METRIC_HELD_BY_SOME_GROUPS = rule(
    "KI246", "policy-metric-unheld-by-some-groups", WARNING,
    "state the metric in those groups' runs (a new run: objects are never edited), or rank "
    "the family by a pointer every group holds; if leaving them unranked is meant, say so in "
    "the pull request")

RUNS_UNRANKED = rule(
    "KI247", "policy-unranks-runs", WARNING,
    "state the metric in those runs (a new run: objects are never edited), or rank the "
    "family by a pointer they hold; if leaving them unranked is meant, say so in the pull "
    "request")

STORED_METRIC_UNHELD = rule(
    "KI248", "stored-policy-metric-unheld", WARNING,
    "rank the family by a pointer its runs hold as a number, or state the metric as a "
    "number in new runs of those groups; `kistore rank` ranks none of their runs until then "
    "(each finding's fix says which case: a typo, or a metric held as no number)")
"""KI245's test of the policy as it stands (``verify``): a warning, not KI245's error, since
every pull request of such a history can pass its gate (runs that arrive without the metric
after the policy are KI221's at most), and ``verify`` must not fail a store no gate could
have kept right (the lead, 2026-12-05: the bench's generated leaderboard runs state no
``sol_score``)."""

RUNS_SHOWN = 8
"""Runs a KI247 message names (the rest are counted; ``extra.runs`` lists each)."""

HELD_SHOWN = 12
"""Pointers a family's runs hold that a KI245 message lists (the rest are counted)."""


def lost_group(records: list[Any], metric: str, before: Any, after: Any) -> bool:
    """Return whether a group ranked runs at BASE and ranks none at HEAD for want of the metric.

    Args:
        records: the group's run records (each with its ``spec``).
        metric: HEAD's policy's JSON Pointer into a run's spec (the ranked value).
        before: the group's :class:`kistore.query.ranking.Ranking` at BASE.
        after: its ranking at HEAD.

    Returns:
        True when BASE ranked some run, HEAD ranks none, and no run of the group holds a
        number at ``metric`` (:func:`kistore.core.numbers.is_number`, ``rank``'s own
        test): nothing, ``null``, or a string, boolean, array or object there alike
        (fresh96 F1: a pointer every run held as a string unranked a family unsaid).

    Raises nothing.
    """
    return bool(before.ranked) and not after.ranked and not any(
        is_number(resolve_pointer(r.spec, metric)) for r in records)


def unheld_metrics(lost: dict[str, tuple[str, list[str], list[Any]]],
                   ranked: Mapping[str, int] | None = None) -> list[Finding]:
    """Return one KI245 error (or KI246 warning) per family whose groups a change unranks.

    Args:
        lost: family -> (HEAD's metric pointer, the keys of its groups :func:`lost_group`
            holds for, those groups' run records).
        ranked: family -> how many groups of it the change touches rank runs at HEAD by
            the metric. Where they are at least as many as the groups it unranks, the
            metric is held (no typo) and those groups are KI246's warning; where fewer, the
            change unranks most of the family and stays KI245's error, whatever a few
            groups hold (reviewer break96 H4: one planted run holding a number at a pointer
            every other run holds as a string turned the error into a warning, and 499 of
            500 KernelBench groups left the ranking).

    Returns:
        Findings on ``store/policy/ranking.json`` at ``/families/FAMILY/metric``, naming the
        family, the pointer, how many groups lose their ranking, what the runs hold there
        when it is no number, group by group (``as a number (they hold strings there, e.g.
        "NVIDIA H100 PCIe")``, ``(they hold null there)``, ``(of these 42 groups, 41 hold
        nothing and 1 holds strings such as "2.5" there)``: :func:`holdings`; reviewers
        last96 and break96 L3), the closest pointer to a number the runs hold
        (did-you-mean, :func:`closest_pointer`; none when nothing is close) and the
        pointers to numbers they hold beside the one asked (under the deepest part of the
        pointer any run holds); ``extra``: ``family``, ``metric``, ``held``, ``groups``,
        ``heldAs`` (the JSON types held there, plural: ``["strings"]``; empty: nothing or
        ``null``), ``heldBy`` (what the groups hold there -> how many groups:
        ``{"nothing": 41, "strings": 1}``).

    Raises nothing.
    """
    findings = []
    for family, (metric, keys, records) in sorted(lost.items()):
        held = held_pointers((r.spec for r in records), metric)
        kinds = held_otherwise((r.spec for r in records), metric)[0]
        by_key: dict[str, list[Any]] = {}
        for record in records:
            by_key.setdefault(record.comparison_key, []).append(record.spec)
        groups = holdings(by_key, keys, metric)
        kept = (ranked or {}).get(family, 0)  # groups ranking by it at HEAD
        some = kept >= len(keys)  # held, and most groups keep ranking: these lose out
        said = _held_elsewhere(family, metric, keys, groups) if some else \
            _held_nowhere(family, metric, keys, held, groups, kept)
        findings.append(_at_metric(
            METRIC_HELD_BY_SOME_GROUPS if some else METRIC_HELD_BY_NO_RUN, family, metric,
            f"{said} Their runs hold {_listed(held)}",
            "a pointer the family's runs hold", held,
            fix=None if some else unheld_fix(metric, held, groups), groups=keys,
            heldAs=kinds, heldBy=dict(sorted(Counter(desc for desc, _ in groups).items()))))
    return findings


def _held_nowhere(family: str, metric: str, keys: list[str], held: list[str],
                  groups: list[tuple[str, Any]], kept: int = 0, *, stored: bool = False
                  ) -> str:
    """KI245's message but the pointers held: few or no groups hold ``metric`` (a typo?).

    ``groups``: :func:`holdings` of ``keys``. ``kept``: the family's groups the change
    touches that rank by it at HEAD (``stored``: that hold a number there), fewer than
    ``keys`` (said: ``only N other group(s) hold it``); with a did-you-mean. ``stored``:
    said of the stored policy (``verify``), not of a change.
    """
    guess = closest_pointer(metric, held)
    than = "fewer than hold none" if stored else "fewer than it unranks"
    if kept == 1:
        few = f" (only 1 other group of it holds it, {than})"
    elif kept:
        few = f" (only {kept} other groups of it hold it, {than})"
    else:
        few = ""
    return (f"family {family} ranks {metric}, which no run of {_groups(keys)} holds"
            f"{_as_number(groups)}{few}: {_unranked(metric, keys, groups, stored)}"
            + (f"; did you mean {guess}?" if guess else "."))


def unheld_fix(metric: str, held: list[str], groups: list[tuple[str, Any]], *,
               stored: bool = False) -> str:
    """Return KI245's (``stored``: KI248's) fix for what the groups hold at ``metric``.

    The rule's hint asked "a typo?" and pointed at pointers "the message names" whatever
    the runs held (reviewer break97 L6: the pointer was held, as strings, and the message
    named none). Said per case, from :func:`holdings`:

    * nothing there in any group: a typo, most likely: the did-you-mean
      (:func:`closest_pointer`) when there is one, else the pointers held near it, else
      none held (``kistore cat --manifest`` of a run shows what it holds);
    * something there that is no number (strings, booleans, ``null``): no typo: the runs
      state it otherwise, so new runs stating it as a JSON number, or a pointer they hold as
      a number (named when the runs hold one near it).

    Args:
        metric: the family's metric (RFC 6901).
        held: the pointers to numbers the runs hold near it (:func:`held_pointers`).
        groups: :func:`holdings` of the groups that hold no number there.
        stored: said of the stored policy (``verify``): no change to take back.
    """
    guess = closest_pointer(metric, held)
    other = (f"rank the family by {guess}, which its runs hold as a number" if guess else
             f"rank the family by a pointer its runs hold as a number (the message lists "
             f"them: {', '.join(held[:3])}{', ...' if len(held) > 3 else ''})" if held else
             "no run holds a number near it: rank the family by a pointer its runs hold as "
             "a number (`kistore cat --manifest BenchmarkRun/NAME` shows a run's)")
    leave = ("or leave the family out of store/policy/ranking.json" if not stored else
             "or state the metric as a number in new runs of those groups")
    held_as = sorted({desc for desc, _ in groups} - {NOTHING})
    if not held_as:  # nothing there at all: a typo?
        return (f"{metric} is held by no run: a typo? {other}, {leave}; `kistore rank` ranks "
                "none of its runs" + (" until then" if stored else ""))
    return (f"{metric} is held, as {' and '.join(held_as)}, not as numbers (no typo): state "
            f"it as a JSON number (0.5, not \"0.5\"; objects are never edited: in new runs), "
            f"or {other}; `kistore rank` ranks none of its runs until then")


def _held_elsewhere(family: str, metric: str, keys: list[str],
                    groups: list[tuple[str, Any]]) -> str:
    """KI246's message but the pointers held: other groups of the family hold ``metric``."""
    return (f"family {family} ranks {metric}, which no run of {_groups(keys)} holds"
            f"{_as_number(groups)} (the runs of its other groups hold it): "
            f"{_unranked(metric, keys, groups)}.")


def stored_unheld(groups: Mapping[tuple[str, Any], Iterable[Any]]) -> list[Finding]:
    """KI248 for ``verify``: a stored policy ranking a family by a pointer few groups hold.

    ``check`` judges a policy change (:func:`unheld_metrics`); a policy committed past the
    gate (or before KI245 counted only numbers as held) was judged by nothing: ``verify``
    said ok while ``rank`` ranked none of the family's runs (reviewer fixp96 "left"). The
    same test as the gate's: a family whose groups holding a number at its metric
    (:func:`kistore.core.numbers.is_number`) are fewer than those holding none is said, as a
    warning (:data:`STORED_METRIC_UNHELD`); as many or more is no finding (the gate's KI246
    warned of the change that made it so, and a reviewer passed it).

    Args:
        groups: (comparison key, its :class:`kistore.query.policy.Comparison`) -> its runs,
            ``(digest, name, spec)`` each (:func:`kistore.query.outlier_rules.
            outliers_parsed`' groups).

    Returns:
        One warning per such source-native family, worded as the gate's KI245 (the holdings, the
        did-you-mean, the pointers held), on ``store/policy/ranking.json`` at
        ``/families/FAMILY/metric``; ``extra`` as :func:`unheld_metrics`' (``groups``: the
        keys of the groups that hold none).
    """
    families: dict[str, tuple[str, list[str], int, dict[str, list[Any]]]] = {}
    for (key, comparison), runs in sorted(groups.items(), key=lambda g: g[0][0]):
        if comparison.name == MEASURED:
            continue  # a measured latency is a number by the schema
        specs = [spec for _, _, spec in runs]
        metric = comparison.metric
        entry = families.setdefault(comparison.family, (metric, [], 0, {}))
        if any(is_number(resolve_pointer(s, metric)) for s in specs):
            families[comparison.family] = (metric, entry[1], entry[2] + 1, entry[3])
        else:
            entry[1].append(key)
            entry[3][key] = specs
    findings = []
    for family, (metric, keys, kept, by_key) in sorted(families.items()):
        if not keys or kept >= len(keys):
            continue
        specs = [s for key in keys for s in by_key[key]]
        held = held_pointers(specs, metric)
        found = holdings(by_key, keys, metric)
        findings.append(_at_metric(
            STORED_METRIC_UNHELD, family, metric,
            f"{_held_nowhere(family, metric, keys, held, found, kept, stored=True)} Their "
            f"runs hold {_listed(held)}", "a pointer the family's runs hold", held,
            fix=unheld_fix(metric, held, found, stored=True), groups=keys,
            heldAs=held_otherwise(specs, metric)[0],
            heldBy=dict(sorted(Counter(desc for desc, _ in found).items()))))
    return findings


def _groups(keys: list[str]) -> str:
    """Name the groups a change unranks: ``N of its comparison groups`` or one."""
    return f"{len(keys)} of its comparison groups" if len(keys) > 1 else "its comparison group"


def _as_number(groups: list[tuple[str, Any]]) -> str:
    """Say what the groups' runs hold at the pointer when some hold something there.

    ``groups``: :func:`holdings`. All alike: ``as a number (they hold strings there, e.g.
    "x")``, ``(they hold null there)``; else each with how many groups, most first:
    ``(of these 42 groups, 41 hold nothing and 1 holds strings such as "2.5" there)``
    (reviewer last96: "they hold strings there" where 41 of 42 groups held nothing);
    nothing anywhere: nothing said.
    """
    counts = Counter(desc for desc, _ in groups)
    if set(counts) == {NOTHING}:
        return ""
    example = {desc: ex for desc, ex in reversed(groups) if ex is not None}  # the first's
    if len(counts) == 1:
        [(desc, _)] = counts.items()
        eg = f", e.g. {shown_value(example[desc])}" if desc in example else ""
        return f" as a number (they hold {desc} there{eg})"
    said = []
    for desc, n in sorted(counts.items(), key=lambda c: (-c[1], c[0])):
        such = f" such as {shown_value(example[desc])}" if desc in example else ""
        said.append(f"{n} {'holds' if n == 1 else 'hold'} {desc}{such}")
    return (f" as a number (of these {len(groups)} groups, {', '.join(said[:-1])} and "
            f"{said[-1]} there)")


def _unranked(metric: str, keys: list[str], groups: list[tuple[str, Any]],
              stored: bool = False) -> str:
    """Say what the change does to the groups ``keys``: ranked before, none after.

    The group named is the first whose runs hold a value there (:func:`holdings`), else the
    first: what `rank` says of its runs is said. ``stored``: of the stored policy
    (``verify``): ``rank`` ranks none of them, no change said.
    """
    first = next((i for i, (_, ex) in enumerate(groups) if ex is not None), 0)
    if groups[first][1] is None:  # null there, or nothing: rank's words for either (L7)
        first = next((i for i, (desc, _) in enumerate(groups) if desc == NULL), 0)
    desc, example = groups[first]
    says = (f"leaves every run unranked: {shown_value(example)} at {metric} is not a number"
            if example is not None else f"says \"null at {metric}: no value\" for its runs"
            if desc == NULL else f"says \"no value at {metric}\" for every run")
    they = "they" if len(keys) > 1 else "it"
    done = f"{they} rank none" if stored else \
        f"ranked before this change, {they} would rank none"
    return f"{done} (e.g. group {keys[first]}; `rank` {says})"


def _listed(held: list[str]) -> str:
    """Say the pointers ``held`` (:func:`held_pointers`): the first :data:`HELD_SHOWN`."""
    more = f", ... ({len(held) - HELD_SHOWN} more)" if len(held) > HELD_SHOWN else ""
    return ", ".join(held[:HELD_SHOWN]) + more if held else "no number near it"


def _at_metric(of: Any, family: str, metric: str, message: str, expected: str,
               held: list[str], fix: str | None = None, **extra: Any) -> Finding:
    """Return a finding of rule ``of`` on the family's ``metric`` in the policy file (KI245-7).

    ``fix``: this finding's own fix (None: the rule's hint). ``extra``: ``family``,
    ``metric`` and ``held``, then the keyword arguments given. Raises nothing.
    """
    return Finding(of, message, file=POLICY_FILE,
                   pointer=f"/families/{escape_pointer(family)}/metric", expected=expected,
                   found=metric, fix=fix, extra={"family": family, "metric": metric,
                                                 "held": held, **extra})


def held_pointers(specs: Iterable[Any], metric: str) -> list[str]:
    """Return the pointers to numbers the specs hold near ``metric``, sorted.

    Near: under the deepest ancestor of ``metric`` some spec holds as an object
    (``/sourceNative/metrics`` for ``/sourceNative/metrics/latency``), at any depth. Only
    pointers a policy may rank by (:func:`kistore.core.policy_metric.metric_problem`):
    KernelBench's ``std`` and ``num_trials`` are no pointer to offer (fresh16 F4).

    Args:
        specs: run specs (parsed JSON).
        metric: a JSON Pointer (RFC 6901) none of them holds.

    Returns:
        The pointers (RFC 6901), sorted; empty when no spec holds an object on the way.
        Raises nothing.
    """
    specs = list(specs)
    parts = metric.split("/")[1:]
    for depth in range(len(parts) - 1, -1, -1):
        prefix = "".join("/" + p for p in parts[:depth])
        nodes = [resolve_pointer(s, prefix) for s in specs]
        if any(isinstance(n, dict) and n for n in nodes):
            held: set[str] = set()
            for node in nodes:
                _leaves(node, prefix, held)
            return sorted(p for p in held if metric_problem(p) is None)
    return []


def _leaves(node: Any, at: str, into: set[str]) -> None:
    """Add the pointer of each number ``rank`` ranks under ``node`` (booleans are none)."""
    if isinstance(node, dict):
        for key, value in node.items():
            _leaves(value, f"{at}/{escape_pointer(str(key))}", into)
    elif is_number(node):
        into.add(at)


NOTHING = "nothing"
"""What :func:`holdings` says of a group none of whose runs holds a value at the pointer."""

NULL = "null"
"""What :func:`holdings` says of a group whose runs hold JSON ``null`` there (and nothing else
but nothing): ``rank`` says "no value at ..." of them, as of nothing (break96 L3)."""


def holdings(specs: Mapping[str, Iterable[Any]], keys: list[str], metric: str
             ) -> list[tuple[str, Any]]:
    """Return what the runs of each group of ``keys`` hold at ``metric``, none a number.

    Args:
        specs: comparison key -> the specs of its runs (at least ``keys``).
        keys: comparison keys, in the order said.
        metric: a JSON Pointer (RFC 6901).

    Returns:
        Per key, ``(desc, example)``: the JSON types of the values held there
        (:func:`held_otherwise`, ``"strings"``, ``"booleans and strings"``) with the first
        such value; else ``(NULL, None)`` when some run holds ``null`` there, else
        ``(NOTHING, None)``.
    """
    found = []
    for key in keys:
        runs = list(specs[key])
        kinds, example = held_otherwise(runs, metric)
        if kinds:
            found.append((" and ".join(kinds), example))
        else:
            found.append((NULL if any(holds_null(s, metric) for s in runs) else NOTHING, None))
    return found


_PLURALS = {str: "strings", bool: "booleans", dict: "objects", list: "arrays"}
"""A JSON value's Python type -> how a message names values of its JSON type."""


def held_otherwise(specs: Iterable[Any], metric: str) -> tuple[list[str], Any]:
    """Return what the specs hold at ``metric`` that is no number ``rank`` ranks.

    Args:
        specs: run specs (parsed JSON), in a fixed order (the example is the first found).
        metric: a JSON Pointer (RFC 6901).

    Returns:
        ``(kinds, example)``: the JSON types held there other than numbers and ``null``,
        plural and sorted (``["booleans", "strings"]``), and the first such value; ``([],
        None)`` when no spec holds anything but numbers or ``null`` there.
    """
    kinds: set[str] = set()
    example = None
    for spec in specs:
        value = resolve_pointer(spec, metric)
        if value is None or is_number(value):
            continue
        kinds.add(_PLURALS.get(type(value), "values"))
        example = value if example is None else example
    return sorted(kinds), example


CLOSE = 0.7
"""Least :class:`difflib.SequenceMatcher` ratio of two last tokens' words, joined lower
case, for a did-you-mean by spelling (``meen``/``mean`` 0.75, ``lantecy_ms``/``latency_ms``
0.89; ``sol_score``/``sol_ms`` 0.62 and ``sol_score``/``std`` 0.18 are not close)."""


def closest_pointer(metric: str, held: Iterable[str]) -> str | None:
    """Return the pointer of ``held`` a person most likely meant by ``metric``, or None.

    Judged by the pointers' last reference tokens, split into words (``latency_ms``,
    ``latencyMs``: ``latency``, ``ms``; :func:`kistore.core.policy_metric.name_words`), not by
    the whole pointer (whose shared prefix made any leaf look close: ``sol_score`` asked,
    ``std`` offered, fresh96 L2). Best first: the same words (``Mean`` for ``mean``), then
    one's words a run of the other's (``latency`` in ``latency_ms``, ``sol_score`` in
    ``median_latency_sol_score``), then a spelling at least :data:`CLOSE` alike
    (``meen``); ties go to the closer spelling of the last token, then of the pointer.
    A pointer ending in ``/`` (``/sourceNative/metrics/mean/``, as shells complete a
    directory) names the key ``""`` under it, which no run holds: it is judged by what
    precedes the slashes (reviewer break96 L2: its empty last token matched nothing).

    Args:
        metric: the pointer asked (RFC 6901).
        held: pointers to numbers the runs hold (:func:`held_pointers`).

    Returns:
        One of ``held``; None when none is close by any of the three.
    """
    metric = metric.rstrip("/") or metric  # the key "" is no metric anyone means
    asked = _last_words(metric)
    best: tuple[int, float, float] | None = None
    found = None
    for pointer in sorted(held):
        words = _last_words(pointer)
        spelling = difflib.SequenceMatcher(None, "".join(asked), "".join(words)).ratio()
        tier = 3 if words == asked else 2 if _within(asked, words) or _within(
            words, asked) else 1 if spelling >= CLOSE else 0
        if not tier:
            continue
        score = (tier, spelling, difflib.SequenceMatcher(None, metric, pointer).ratio())
        if best is None or score > best:
            best, found = score, pointer
    return found


def _last_words(pointer: str) -> list[str]:
    """Return the lower-case words of a pointer's last reference token.

    The token itself, lower case, when it holds no word (``~``).
    """
    token = pointer.rpartition("/")[2]
    return [w for _, w in name_words(token)] or [token.lower()]


def _within(part: list[str], whole: list[str]) -> bool:
    """Return whether ``part`` is a run of consecutive words of ``whole``."""
    n = len(part)
    return any(whole[i:i + n] == part for i in range(len(whole) - n + 1))

def dropped_rows(before: Any, after: Any) -> list[Any]:
    """Return the rows of ``after`` that rank nothing there and ranked in ``before``.

    Args:
        before: a group's :class:`kistore.query.ranking.Ranking` at one end.
        after: the same group's at the other end.

    Returns:
        ``after``'s unranked rows (each with its ``reason``: ``no value at /POINTER``, a
        value that is no number, no unit) whose run is ranked in ``before``, in ``after``'s
        order. A run withdrawn or of too weak evidence is ``excluded``, not listed here.
    """
    was = {row.record.digest for row in before.ranked}
    return [row for row in after.unranked if row.record.digest in was]


def unranked_runs(dropped: dict[str, tuple[str, list[tuple[str, Any, Any]]]],
                  alone: Mapping[str, list[Any]] | None = None) -> list[Finding]:
    """Return one KI247 warning per family a policy change unranks runs of, in ranked groups.

    Args:
        dropped: family -> (HEAD's metric pointer, ``(group key, row at BASE, row at HEAD)``
            per run that ranked at BASE and ranks nothing at HEAD, in a group that keeps
            ranking others: :func:`dropped_rows`).
        alone: group key -> its ranked rows at HEAD, of each such group whose runs ranked
            at HEAD are all runs the range itself adds (reviewer break97 M4: a policy
            moving a family to a metric only the pull request's own run states made that
            run #1 alone, and KI247 said "their groups ranking others"); None: none.

    Returns:
        Findings on ``store/policy/ranking.json`` at ``/families/FAMILY/metric``, naming
        up to :data:`RUNS_SHOWN` runs (``BenchmarkRun/NAME (sha256:..., #1 in group ...
        before; now no value at /POINTER)``), how many, what their groups rank at HEAD
        (``ranking others``, or ``ranking only BenchmarkRun/NAME (sha256:...), which this
        change adds``), and the numbers they hold near the pointer (:func:`held_pointers`);
        ``extra``: ``family``, ``metric``, ``runs`` (each ``digest``, ``name``, ``group``,
        ``rank`` at BASE, ``reason`` at HEAD), ``held``, ``rankingOnly`` (group key -> the
        digests of the arriving runs it alone ranks; empty when none). A finding with such
        a group has its own fix: the command comparing those runs with the stored ones by
        measured latency (:func:`alone_fix`).
    """
    alone = alone or {}
    findings = []
    for family, (metric, rows) in sorted(dropped.items()):
        named_ = [f"BenchmarkRun/{now.record.name} ({now.record.digest}, #{was.rank} in group "
                  f"{key} before; now {now.reason})" for key, was, now in rows[:RUNS_SHOWN]]
        more = f"; ... ({len(rows) - RUNS_SHOWN} more)" if len(rows) > RUNS_SHOWN else ""
        held = held_pointers((now.record.spec for _, _, now in rows), metric)
        many = len(rows) > 1
        keys = list(dict.fromkeys(key for key, _, _ in rows))
        only = {key: alone[key] for key in keys if key in alone}
        findings.append(_at_metric(
            RUNS_UNRANKED, family, metric,
            f"family {family} ranks {metric}: {len(rows)} run{'s' if many else ''} that "
            f"ranked before this change would rank nothing, {_ranking(keys, only, many)} "
            f"(`rank` shows {'them' if many else 'it'} as \"-\"): {'; '.join(named_)}{more}. "
            f"{'They hold' if many else 'It holds'} {_listed(held)}",
            "a pointer every ranked run holds", held, fix=alone_fix(only), runs=[
                {"digest": now.record.digest, "name": now.record.name, "group": key,
                 "rank": was.rank, "reason": now.reason} for key, was, now in rows],
            rankingOnly={key: [row.record.digest for row in ranked]
                         for key, ranked in only.items()}))
    return findings


def _ranking(keys: list[str], only: Mapping[str, list[Any]], many: bool) -> str:
    """Say what the groups of unranked runs rank at HEAD (KI247).

    ``keys``: the groups, in order; ``only``: those ranking only runs the range adds, with
    those runs' rows; ``many``: more than one run is unranked.
    """
    if not only:
        return "their groups ranking others" if many else "its group ranking others"
    said = {key: f"ranking only {_arrivals(rows)}, which this change adds" for key, rows
            in only.items()}
    stored = ("no run stored before this change holds a number there, so the change both "
              "ranks the group by it and brings what ranks")
    if len(keys) == 1:
        return f"{'their' if many else 'its'} group {said[keys[0]]} ({stored})"
    listed = "; ".join(f"group {key} {said[key]}" for key in keys if key in only)
    return f"their groups ranking others ({listed}: {stored.replace('the group', 'each')})"


def _arrivals(rows: list[Any]) -> str:
    """Name the runs of ``rows`` (``BenchmarkRun/NAME (sha256:...)``), the first few."""
    names = [f"BenchmarkRun/{row.record.name} ({row.record.digest})"
             for row in rows[:RUNS_SHOWN]]
    more = f" and {len(rows) - RUNS_SHOWN} more" if len(rows) > RUNS_SHOWN else ""
    return " and ".join(names) + more if len(names) < 3 else ", ".join(names) + more


def alone_fix(only: Mapping[str, list[Any]]) -> str | None:
    """Return KI247's fix for groups a change leaves ranking only its own runs, or None.

    Such a run ranks #1 compared with no stored run under the new policy; by measured
    latency, the comparison ``rank --comparison measured`` and the site's second column
    show, it is (KI234 says so at the gate when it leads the stored runs 100x or more,
    :func:`kistore.query.outlier_rules.range_outliers`). The fix names that command for
    the first such run, runnable as printed in the pull request's branch.
    """
    if not only:
        return None
    first = next(iter(only.values()))[0].record
    return (f"{RUNS_UNRANKED.hint}; the group's only ranked runs are this change's own, "
            "compared with no stored run: compare them with the stored runs by measured "
            f"latency first (`kistore rank BenchmarkRun/{first.name} --comparison measured`)")
