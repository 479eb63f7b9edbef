"""The reviewed ranking policy file, as ``verify`` and the gate check it: KI206, KI207, KI231.

``store/policy/ranking.json`` decides how each comparability family ranks
(:mod:`kistore.query.policy` reads it; docs/design.md §6). A policy that is not strict JSON valid
against ``schemas/RankingPolicy.json`` makes every ``kistore rank`` fail (KI206); one
deleted after a commit had it makes ``rank`` fall back to the shipped default unreviewed
(KI207). :func:`check_policy` is one of :data:`kistore.check.audit.CHECKERS` and runs in
:mod:`kistore.check.gate` when a range changes the file. A family that ranks a metric whose
name states a time unit (``latency_ms``, ``latencyNs``) under another declared ``unit``
(``score``) is KI231: ``rank`` would print milliseconds as a score (reviewer r88 F10: the
gate said only KI415, info).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..core import canonical
from ..core.canonical import escape_pointer
from ..core.errors import KistoreError
from ..core.findings import ERROR, Finding, rule
from ..core.layout import POLICY_FILE
from ..core.schema import check_document
from ..git.treediff import entry_at

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

POLICY_INVALID = rule(
    "KI206", "policy-invalid", ERROR,
    "fix store/policy/ranking.json so it is strict JSON valid against "
    "schemas/RankingPolicy.json (every `kistore rank` fails until then)")

POLICY_MISSING = rule(
    "KI207", "policy-missing", ERROR,
    "restore the reviewed policy (`git checkout LAST_COMMIT -- store/policy/ranking.json`) and "
    "change it by editing it in a reviewed pull request, never by deleting it")

POLICY_UNIT_CONTRADICTS_METRIC = rule(
    "KI231", "policy-unit-contradicts-metric", ERROR,
    "declare the metric's own unit in the family's `unit` (\"ms\" for a metric named "
    "latency_ms), or rank by a metric of the unit declared: `rank` prints each value with "
    "the declared unit")

TIME_UNITS = {
    "ns": "ns", "nsec": "ns", "nanosecond": "ns", "nanoseconds": "ns",
    "us": "us", "\u00b5s": "us", "\u03bcs": "us", "usec": "us", "microsecond": "us",
    "microseconds": "us",
    "ms": "ms", "msec": "ms", "millisecond": "ms", "milliseconds": "ms",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
}
"""A word naming a unit of time (lower case) -> the unit (KI231): the last word of a metric's
name, and a policy's declared ``unit`` (a whole word)."""

_WORDS = re.compile(r"[A-Z]?[a-z\u00b5\u03bc]+|[A-Z]+(?![a-z])|[0-9]+")


def metric_time_unit(metric: str) -> str | None:
    """Return the unit of time a metric's name states, or None when it states none.

    The name is the pointer's last reference token, split into words at ``_``, ``-``,
    ``.`` and lower-to-upper case changes (``latency_ms``, ``latencyMs``, ``LATENCY_MS``:
    ``latency``, ``ms``); its last word names the unit (:data:`TIME_UNITS`), unless the word
    before it is ``per`` (``ops_per_s`` is a rate). A last token that names none
    (``/timing/latencyNs/mean``: a statistic) is read through the token before it.

    Args:
        metric: the policy's ``metric``, an RFC 6901 JSON Pointer.

    Returns:
        ``ns``, ``us``, ``ms`` or ``s``; None for ``/sourceNative/metrics/sol_score``.
    """
    for token in reversed(metric.split("/")[-2:]):
        words = [w.lower() for w in _WORDS.findall(token.replace("~1", "/").replace("~0", "~"))]
        if words and words[-1] in TIME_UNITS and (len(words) < 2 or words[-2] != "per"):
            return TIME_UNITS[words[-1]]
    return None


def unit_contradictions(policy: Any) -> list[Finding]:
    """KI231: each family ranking a metric named in one unit of time under another ``unit``.

    Args:
        policy: the parsed policy (valid against ``schemas/RankingPolicy.json``; anything
            else yields nothing here: KI206 says what is wrong).

    Returns:
        One error per family whose ``metric`` names a unit of time (:func:`metric_time_unit`)
        and whose declared ``unit`` is not that unit (``score``, ``ns`` for a ``_ms``
        metric; spelled as :data:`TIME_UNITS` spells it, any case: ``ms``, ``msec``), at
        ``/families/F/unit``, expected the metric's unit, found the declared one. A family
        declaring no ``unit`` (each run states it, ``unitPointer``) is not judged here.
    """
    families = policy.get("families") if isinstance(policy, dict) else None
    findings = []
    for family, entry in sorted(families.items()) if isinstance(families, dict) else ():
        if not isinstance(entry, dict):
            continue
        metric, unit = entry.get("metric"), entry.get("unit")
        if not isinstance(metric, str) or not isinstance(unit, str):
            continue
        named = metric_time_unit(metric)
        if named is None or TIME_UNITS.get(unit.strip().lower()) == named:
            continue
        findings.append(Finding(
            POLICY_UNIT_CONTRADICTS_METRIC,
            f"family {family} ranks {metric}, whose name says it is in {named}, but declares "
            f"unit {unit!r}: `rank` would print each value in {unit!r} (13.6 {named} as "
            f"\"13.6 {unit}\"), misleading whoever reads it",
            file=POLICY_FILE, pointer=f"/families/{escape_pointer(family)}/unit",
            expected=named, found=unit))
    return findings


def check_policy(store: Store, at: str | None = None) -> list[Finding]:
    """Check the reviewed ranking policy ``store/policy/ranking.json`` of a view.

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for the work tree.

    Returns:
        KI206 for a policy file that is not strict JSON or fails
        ``schemas/RankingPolicy.json`` (one finding per problem, with its JSON Pointer);
        KI207 when the file is absent but a commit in the history of ``at`` (or ``HEAD``)
        had it: ``rank`` would silently use the shipped default instead of the reviewed
        policy. Nothing when the file is valid, or absent from the whole history (the
        shipped default applies). KI231 per family of a valid policy whose declared
        ``unit`` contradicts its metric's name (:func:`unit_contradictions`).
    """
    data = store.view(at).read(POLICY_FILE)
    if data is None:
        return _policy_removed(store, at)
    policy: Any = None
    try:
        policy = canonical.loads(data, file=POLICY_FILE)
        problems: list[KistoreError] = list(check_document(policy, "RankingPolicy.json",
                                                           file=POLICY_FILE))
    except KistoreError as e:
        problems = e.problems
    return [Finding(POLICY_INVALID, p.message, file=POLICY_FILE, pointer=p.pointer,
                    line=p.line, column=p.column) for p in problems] or unit_contradictions(
                        policy)


def _policy_removed(store: Store, at: str | None) -> list[Finding]:
    """KI207 naming the newest commit in the history of ``at`` that had the policy file."""
    # Lazy: the history walk loads hashlib; `rank` asks this module for KI231 only.
    from ._history import ancestry

    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    for commit in ancestry(repo, store.commit(at or "HEAD")):  # newest first; rare path
        entry = entry_at(repo, commit.tree, POLICY_FILE)  # guarded (a cut older tree)
        if entry is not None and entry.type_str == "blob":
            return [Finding(
                POLICY_MISSING, f"commit {str(commit.id)[:12]} has the reviewed ranking policy "
                "but this tree lacks it: `kistore rank` would fall back to the shipped default",
                file=POLICY_FILE, expected="the reviewed policy file", found="no file",
                extra={"last_commit": str(commit.id)})]
    return []
