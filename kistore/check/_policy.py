"""The ranking policy file, as ``verify`` and the gate check it: KI206-7, KI231, KI236, KI239.

``store/policy/ranking.json`` decides how each comparability family ranks
(:mod:`kistore.query.policy` reads it; docs/design.md §6). A policy that is not strict JSON valid
against ``schemas/RankingPolicy.json`` makes every ``kistore rank`` fail (KI206); one
deleted after a commit had it makes ``rank`` fall back to the shipped default unreviewed
(KI207). :func:`check_policy` is one of :data:`kistore.check.audit.CHECKERS` and runs in
:mod:`kistore.check.gate` when a range changes the file. A family that ranks a metric whose
name states a time unit (``latency_ms``, ``latencyNs``) under another declared ``unit``
(``score``) is KI231: ``rank`` would print milliseconds as a score (reviewer r88 F10: the
gate said only KI415, info); one ranking such a metric ``descending`` (the slowest first) is
KI236, a warning, and one ranking a rate ``ascending`` (the slowest first too) KI239.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..core import canonical
from ..core.canonical import escape_pointer, pointer_tokens
from ..core.errors import KistoreError
from ..core.findings import ERROR, WARNING, Finding, rule
from ..core.layout import POLICY_FILE
from ..core.policy_metric import check_policy_document, name_words
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

POLICY_TIME_RANKED_DESCENDING = rule(
    "KI236", "policy-time-ranked-descending", WARNING,
    "rank a time `\"order\": \"ascending\"` (the fastest first); keep `descending` only for "
    "a metric where more time is better (time saved), and say so in the pull request")

POLICY_RATE_RANKED_ASCENDING = rule(
    "KI239", "policy-rate-ranked-ascending", WARNING,
    "rank a rate `\"order\": \"descending\"` (the fastest first: more per second is "
    "better); keep `ascending` only for a metric where less is better, and say so in the "
    "pull request")

TIME_UNITS = {
    "ns": "ns", "nsec": "ns", "nanosecond": "ns", "nanoseconds": "ns",
    "us": "us", "\u00b5s": "us", "\u03bcs": "us", "usec": "us", "microsecond": "us",
    "microseconds": "us",
    "ms": "ms", "msec": "ms", "millisecond": "ms", "milliseconds": "ms",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
}
"""A word naming a unit of time (lower case) -> the unit (KI231): a word of a metric's
name, and a policy's declared ``unit`` (a whole word)."""

PREFIXED_SECONDS = {"m": "ms", "n": "ns", "u": "us", "\u00b5": "us", "\u03bc": "us"}
"""A one-letter SI prefix word -> the unit it makes with a following ``sec``/``secs`` word:
``latencyMSec`` splits ``latency``, ``m``, ``sec`` and is in ``ms`` (reviewer r90 F3: it was
read as seconds)."""

RATE_WORDS = frozenset({
    "flop", "flops", "gflop", "gflops", "tflop", "tflops", "pflop", "pflops", "mflop",
    "mflops", "op", "ops", "gop", "gops", "mop", "mops", "tops", "tok", "toks", "it", "its",
    "req", "reqs", "img", "imgs", "elem", "elems", "inst", "insts", "b", "kb", "mb", "gb", "tb",
    "kib", "mib", "gib", "tib", "bit", "bits", "kbit", "mbit", "gbit", "teps", "gteps", "qps",
    "tps", "fps", "nnz"})
"""A word before a unit of time that names what a rate counts, where it is no plural noun:
a unit or an abbreviation (``gflop_s``, ``GB/s``, ``tok_s``, tqdm's ``it_s``). Any plural
noun there counts too (:func:`plural_noun`: ``tokens_s``, ``edges_s``, ``pixels_s``), and
``per`` or a ``/`` before the unit (``ops_per_s``, ``GFLOP/s``) makes it a rate's denominator
as well. A singular noun there (``token``, ``step``, ``launch``, ``iter``) is what the time
is per: ``time_to_first_token_ms``, ``step_ms``, ``launch_us`` are times (reviewer r90b F1:
a closed list of rate words read those as no time, and ``edges_s`` as seconds)."""

TIME_WORDS = frozenset({
    "time", "times", "latency", "latencies", "duration", "durations", "elapsed", "runtime",
    "runtimes", "walltime", "delay", "delays", "wait", "waits", "ttft", "tpot", "itl", "tbt",
    "e2e", "lag"})
"""A word saying a time (``times_ms``, ``latencies_us`` are times, not counted things)."""

PERIOD_WORDS = frozenset({
    "day", "days", "hour", "hours", "hr", "hrs", "h", "minute", "minutes", "min", "mins",
    "week", "weeks", "year", "years", "month", "months"})
"""A period a time unit is counted per: ``ns_per_day`` (GROMACS's simulated ns a day), ``ns/day``,
``ns_per_hour`` are rates, more is better. Right after the unit with no ``per`` or ``/`` only
:data:`_DIRECT_PERIODS` count (``ns_day``; ``latency_ms_min`` is a statistic)."""

_DIRECT_PERIODS = frozenset({"day", "days", "hour", "hours", "week", "weeks"})

LONG_TIME_UNITS = {
    "minute": "min", "minutes": "min", "hour": "h", "hours": "h", "hr": "h", "hrs": "h",
    "day": "d", "days": "d", "week": "wk", "weeks": "wk"}
"""A word naming a unit of time longer than a second -> its unit: read for KI236 only
(``kernel_time_hours`` is a time; reviewer r91 F3), when no word of :data:`TIME_UNITS` is
in the name, and as a rate's denominator as those are (``tokens_per_hour`` is a rate). Not
``min`` (``latency_min``, ``score_min``: a statistic far more often than minutes) nor
``h`` (``h100``)."""

RATE_NAMES = frozenset({
    "flops", "gflops", "tflops", "pflops", "mflops", "tops", "teps", "gteps", "qps", "tps",
    "fps", "throughput", "bandwidth"})
"""A word that is a rate by itself, as a metric's last word (statistics aside): ``tflops``,
``fps``, ``throughput`` (KI239; reviewer r91 F3)."""

_STATISTIC_WORDS = frozenset({
    "mean", "avg", "average", "median", "min", "max", "std", "stdev", "p", "best", "worst",
    "total", "sum"})
"""Words a metric's name may end in after what it measures: ``latency_mean``, ``latency_p50``
(``p`` and ``50``), ``throughput_max``."""

_NOT_PLURAL = ("ss", "us", "is")
"""Endings of words in ``s`` that are no plural (``process``, ``status``, ``axis``)."""


def plural_noun(word: str) -> bool:
    """Return whether a lower-case word of a metric's name reads as a plural noun.

    Args:
        word: one word of :func:`name_words`.

    Returns:
        True for a word of four letters or more ending in ``s`` (``tokens``, ``edges``,
        ``pixels``, ``updates``), not in ``ss``, ``us``, ``is`` (``process``, ``status``,
        ``axis``), nor a time (:data:`TIME_UNITS`, :data:`TIME_WORDS`: ``seconds``,
        ``times``). A guess from the spelling: such a word before a unit reads as a rate,
        which KI231 and KI236 do not judge (only KI239, a warning, when it is ranked
        ascending), so an unsure reading is never an error.
    """
    return (len(word) >= 4 and word.endswith("s") and not word.endswith(_NOT_PLURAL)
            and word.isalpha() and word not in TIME_UNITS and word not in TIME_WORDS)


def token_time_unit(token: str) -> str | None:
    """Return the unit of time one reference token names, ``""`` when it names a rate.

    The token's words (:func:`name_words`) are read from the last: the last word that names
    a unit (:data:`TIME_UNITS`; ``m``/``n``/``u`` and ``sec`` as one, :data:`PREFIXED_SECONDS`)
    is the token's unit, whatever follows it (``latency_ms_mean``, ``latency_ms_p50``,
    ``ms_per_token``, Go's ``ns~1op``: a time per thing), unless :func:`_rate_at` reads it as
    a rate's denominator or numerator (``tokens_s``, ``ops_per_ms``, ``ns_per_day``).

    Args:
        token: an RFC 6901 reference token, escaped.

    Returns:
        ``ns``, ``us``, ``ms`` or ``s``; ``""`` for a rate; None when no word names a unit.
    """
    parts = name_words(token)
    for last in range(len(parts) - 1, -1, -1):
        word = parts[last][1]
        unit, first = TIME_UNITS.get(word), last
        if unit is None:
            continue
        if word in ("sec", "secs") and last and not parts[last][0] and \
                parts[last - 1][1] in PREFIXED_SECONDS:
            unit, first = PREFIXED_SECONDS[parts[last - 1][1]], last - 1
        return "" if _rate_at(parts, first, last) else unit
    return None


def _rate_at(parts: list[tuple[str, str]], first: int, last: int) -> bool:
    """Return whether the unit of time at words ``first..last`` of a name belongs to a rate.

    A rate's denominator: after ``/`` or ``per`` (``x/s``, ``ops_per_s``), after a word of
    :data:`RATE_WORDS` (``gflop_s``, ``gb_s``) or a plural noun (:func:`plural_noun`:
    ``tokens_s``, ``edges_s``); a rate's numerator: before ``per``/``/`` and a period
    (:data:`PERIOD_WORDS`: ``ns_per_day``, ``ns/day``) or right before a day, an hour, a week
    (``ns_day``). Anything else before the unit (a singular noun, ``token``, ``step``, a
    time, ``latency``, or nothing) leaves it the metric's unit: ``step_ms``,
    ``time_to_first_token_ms``, ``time_per_iter_s``.
    """
    following = parts[last + 1:last + 3]
    if following:
        (separator, word), *rest = following
        if word == "per" and rest and rest[0][1] in PERIOD_WORDS or \
                word in (PERIOD_WORDS if "/" in separator else _DIRECT_PERIODS):
            return True
    if not first:
        return False
    separator, before = parts[first][0], parts[first - 1][1]
    return "/" in separator or before == "per" or before in RATE_WORDS or plural_noun(before)


def metric_time_unit(metric: str) -> str | None:
    """Return the unit of time a metric's name states, or None when it states none.

    The name is the pointer's last reference token, read by :func:`token_time_unit`: split
    into words at ``_``, ``-``, ``.``, ``/`` and lower-to-upper case changes, its last word
    naming a unit of time is the unit (``latency_ms``, ``latencyMs``, ``LATENCY_MS``,
    ``latency_ms_p50``, ``latencyMSec``: ``ms``), unless that word is a rate's denominator
    (``gflops_s``, ``tokens_s``, ``ops_per_s``, ``GFLOP/s``: None). A last token that names
    neither (``/timing/latencyNs/mean``: a statistic) is read through the token before it.

    Args:
        metric: the policy's ``metric``, an RFC 6901 JSON Pointer.

    Returns:
        ``ns``, ``us``, ``ms`` or ``s``; None for ``/sourceNative/metrics/sol_score``.
    """
    for token in reversed(metric.split("/")[-2:]):
        unit = token_time_unit(token)
        if unit is not None:
            return unit or None
    return None


TIME = "time"
RATE = "rate"


def metric_reading(metric: str) -> tuple[str, str | None] | None:
    """Return what a metric's name says it is, for the order rules (KI236, KI239).

    Read as :func:`metric_time_unit` reads a unit (the pointer's last token, else the one
    before it), and beyond it (reviewer r91 F3): a unit longer than a second
    (:data:`LONG_TIME_UNITS`, ``kernel_time_hours``), a time word with no unit
    (:data:`TIME_WORDS` as the last word but statistics: ``latency``, ``duration_p50``),
    and a rate with no unit of time (:data:`RATE_NAMES`: ``tflops``, ``fps``).

    Args:
        metric: the policy's ``metric``, an RFC 6901 JSON Pointer.

    Returns:
        ``("time", unit)`` (``unit`` None when the name states none), ``("rate", None)``,
        or None when the name says neither (``sol_score``).
    """
    words_read = True  # a word is read in the last token, or the one before a statistic
    for token in reversed(metric.split("/")[-2:]):
        unit = token_time_unit(token)
        if unit is None:
            unit = _long_time_unit(token)
        if unit is not None:
            return (TIME, unit) if unit else (RATE, None)
        words = [w for _, w in name_words(token)]
        while words and (words[-1] in _STATISTIC_WORDS or words[-1].isdigit()):
            words.pop()
        if words_read and words and words[-1] in TIME_WORDS:
            return TIME, None
        if words_read and words and words[-1] in RATE_NAMES:
            return RATE, None
        words_read = not words  # /latency/p50 reads latency; /latency/speedup does not
    return None


_FREQUENCY = re.compile(r"[kmgt]?hz", re.IGNORECASE)
"""A declared unit that is a frequency, a rate: ``Hz``, ``kHz``, ``MHz``, ``GHz``, ``THz``."""

_PER_PERIOD = re.compile(r"(?:/|\bper)\s*(?:min|mins|h|hr|hrs)\.?$", re.IGNORECASE)
"""A declared unit ending in a period :data:`LONG_TIME_UNITS` leaves out of names (``min``:
a statistic in a metric's name, a minute after ``/`` or ``per`` in a unit): ``tokens/min``,
``req/min``, ``ops per hr``."""


def unit_reading(unit: str) -> tuple[str, str | None] | None:
    """Return what a family's declared ``unit`` says its metric is, for KI236 and KI239.

    Read as :func:`metric_reading` reads a metric's name (reviewer r92 F5: a metric named
    ``p99``, ``value`` or ``wall_clock`` said nothing, though its family declared ``ms`` or
    ``GB/s``), the whole unit one word of it: ``ms``, ``ns``, ``seconds`` are times;
    ``GB/s``, ``TFLOP/s``, ``tokens/s``, ``/s`` (a count a second), ``ns/day``, ``GFLOPS``
    are rates, and so are a count a minute or an hour (``tokens/min``, ``req/h``) and a
    frequency (``Hz``, ``kHz``; reviewer r93 F3); ``score``, ``x``, ``%`` say neither.

    Args:
        unit: the family's declared ``unit``.

    Returns:
        ``("time", unit)``, ``("rate", None)``, or None when the unit says neither.
    """
    text = unit.strip()
    if _FREQUENCY.fullmatch(text) or _PER_PERIOD.search(text):
        return RATE, None  # reviewer r93 F3: tokens/min, req/min, Hz, kHz read as nothing
    if text.startswith("/"):
        text = "1" + text  # "/s": one a second, a rate's denominator as in "1/s"
    return metric_reading("/" + escape_pointer(text))


def _long_time_unit(token: str) -> str | None:
    """Return the unit of :data:`LONG_TIME_UNITS` a token's last such word names.

    ``""`` for a rate's denominator (``tokens_per_hour``), None when it names none.
    """
    parts = name_words(token)
    for last in range(len(parts) - 1, -1, -1):
        unit = LONG_TIME_UNITS.get(parts[last][1])
        if unit is not None:
            return "" if _rate_at(parts, last, last) else unit
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
    findings = []
    for family, entry in _families(policy):
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


def slowest_first(policy: Any) -> list[Finding]:
    """KI236 and KI239: each family whose order puts the slowest run of each group first.

    KI236 a metric whose name says it is a time ranked ``descending``, KI239 (its mirror,
    reviewer r91 F3) one whose name says it is a rate ranked ``ascending``
    (:func:`metric_reading`). The family's declared ``unit`` is read too
    (:func:`unit_reading`; reviewer r92 F5: ``p99`` in ``ms`` ranked descending, ``value`` in
    ``GB/s`` ascending, said nothing), and it decides when it says a time or a rate and the
    name says nothing or the other (the unit is what ``rank`` prints beside each value;
    the name's unit contradicting it is KI231). Warnings, not errors (a policy change is a
    reviewed pull request, and a name is a hint: ``time_saved_ms`` is a time where more is
    better); so ranked, the slowest run of every group of the family is #1 (reviewer r90
    F3: the gate said KI415, info, only).

    Args:
        policy: the parsed policy (valid against ``schemas/RankingPolicy.json``; anything
            else yields nothing here).

    Returns:
        One warning per such family, at ``/families/F/order``, expected the other order,
        found the family's.
    """
    findings = []
    for family, entry in _families(policy):
        metric, order, unit = entry.get("metric"), entry.get("order"), entry.get("unit")
        said = metric_reading(metric) if isinstance(metric, str) else None
        declared = unit_reading(unit) if isinstance(unit, str) else None
        whose = "name"
        if declared is not None and (said is None or said[0] != declared[0]):
            said, whose = declared, f"declared unit {unit!r}"
        if said is None or (said[0], order) not in ((TIME, "descending"), (RATE, "ascending")):
            continue
        what = f"a time (in {said[1]})" if said[1] else f"a {said[0]}"
        if said[0] == RATE:
            what += " (more is faster)"
        findings.append(Finding(
            POLICY_TIME_RANKED_DESCENDING if said[0] == TIME else POLICY_RATE_RANKED_ASCENDING,
            f"family {family} ranks {metric}, whose {whose} says it is {what}, {order}: "
            "`rank` would put the slowest run of each group first",
            file=POLICY_FILE, pointer=f"/families/{escape_pointer(family)}/order",
            expected="descending" if order == "ascending" else "ascending", found=order))
    return findings


def ranking_caveats(policy: Any) -> list[Finding]:
    """Return what a ranking by this policy must say beside it: KI231, then KI236 and KI239.

    The gate and ``verify`` judge the file; these two mislead whoever reads a ranking made
    by it (values printed in the wrong unit, KI231, an error; the slowest run first, KI236
    and KI239, warnings the gate lets land), so ``rank``, ``show``, ``compare`` (stderr) and the
    site's group page (:func:`caveat_said`) say them on every ranking (reviewer r90b F12).

    Args:
        policy: the parsed policy (``{"families": ...}``).

    Returns:
        :func:`unit_contradictions`, then :func:`slowest_first` (KI236, KI239): each at
        ``/families/F/unit`` or ``/families/F/order``.
    """
    return [*unit_contradictions(policy), *slowest_first(policy)]


def caveat_said(finding: Finding) -> str:
    """Return a :func:`ranking_caveats` finding as a ranking says it.

    ``store/policy/ranking.json:/families/F/order: family F ranks ... (KI236
    policy-time-ranked-descending, a warning of `kistore verify` and the gate: HINT)``.

    Args:
        finding: one of :func:`ranking_caveats` (KI231, KI236 or KI239).

    Returns:
        One line: file, JSON Pointer (RFC 6901), message, rule, severity and the fix.
    """
    return (f"{finding.file}:{finding.pointer}: {finding.message} ({finding.rule.id} "
            f"{finding.rule.name}, {'an' if finding.rule.severity == 'error' else 'a'} "
            f"{finding.rule.severity} of `kistore verify` and the gate: {finding.hint})")


def family_of(finding: Finding) -> str:
    """Return the family a :func:`ranking_caveats` finding is about.

    Args:
        finding: one of :func:`ranking_caveats`, at ``/families/F/...``.

    Returns:
        ``F``, its pointer's second token unescaped as RFC 6901 says (``~1`` is ``/``,
        ``~0`` is ``~``).
    """
    return pointer_tokens(finding.pointer or "")[1]


def _families(policy: Any) -> list[tuple[str, dict[str, Any]]]:
    """Return ``(family, entry)`` per family of a parsed policy whose entry is an object, sorted."""
    families = policy.get("families") if isinstance(policy, dict) else None
    return [(f, e) for f, e in sorted(families.items()) if isinstance(e, dict)] \
        if isinstance(families, dict) else []


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
        ``unit`` contradicts its metric's name (:func:`unit_contradictions`), KI236 per
        family ranking a time descending and KI239 per family ranking a rate ascending
        (:func:`slowest_first`).
    """
    data = store.view(at).read(POLICY_FILE)
    if data is None:
        return _policy_removed(store, at)
    policy, problems = policy_problems(data)
    return [Finding(POLICY_INVALID, p.message, file=POLICY_FILE, pointer=p.pointer,
                    line=p.line, column=p.column) for p in problems] or [
                        *unit_contradictions(policy), *slowest_first(policy)]


def policy_problems(data: bytes) -> tuple[Any, list[KistoreError]]:
    """Parse one version of the ranking policy and validate it (KI206's test).

    The one validation of the policy's bytes at the check layer: :func:`check_policy`
    (``verify``, the gate at HEAD) and the gate's judgement of every commit of a range
    (:mod:`._evidence_kept`, KI410: a commit leaving the policy invalid) ask it.

    Args:
        data: the bytes of ``store/policy/ranking.json``.

    Returns:
        ``(document, problems)``: the parsed document (None when it is not strict JSON) and
        each problem (not strict JSON, or each ``schemas/RankingPolicy.json`` violation,
        with its JSON Pointer); no problems: the policy is valid. Raises nothing.
    """
    policy: Any = None
    try:
        policy = canonical.loads(data, file=POLICY_FILE)
        problems: list[KistoreError] = list(check_policy_document(policy, file=POLICY_FILE))
    except KistoreError as e:
        problems = e.problems
    return policy, problems


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
