"""What a ranking policy's ``metric`` may point at: KI206's metric rule (fresh15 F4, fresh16 F4).

A ``source-native`` family of ``store/policy/ranking.json`` ranks the value at its
``metric``, a JSON Pointer (RFC 6901) into each run's spec. Since fresh15 F4 the schema
refused ``/timing/latencyNs/std`` alone, a regular expression on one pointer; KernelBench's
own ``/sourceNative/metrics/std`` (the same spread, in ms, on every KernelBench run) still
ranked, said "by the source's own metric", and ``/timing/trials`` ranked printed as
"100 ns" (fresh16 F4, F7). Now a metric is one of:

* ``/timing/latencyNs/S``, ``S`` a location statistic (``common.json``'s
  ``locationStatistic``: ``mean``, ``median``, ``min``, ``max``, ``geomean``, ``p`` and a
  percentile, in every spelling KI228 reads as one statistic, ``p0``/``p00`` for ``min``
  and ``p50`` for ``median``: :data:`kistore.core.contradictions.SPELLINGS`);
* a pointer under ``/sourceNative/`` (the source's own metric, ``/sourceNative/metrics/
  sol_score``) none of whose reference tokens names a spread (:data:`SPREAD_WORDS`) or a
  count (:data:`COUNT_WORDS`, as a token's last word: ``/sourceNative/metrics/num_trials/
  value`` is part of a count; until fresh17 F3 only the last token was read).

A token names a word when one of its words is that word, compared case-insensitively: its
words are those :func:`name_words` reads (``_``, ``-``, ``.``, digits and lower-to-upper
case changes part them: ``latencyStdMs`` is ``latency``, ``std``, ``ms``) and the runs of
ASCII letters between other characters (``STD``, ``Std_Dev``). Unsplit spellings count too
(fresh17 F3): a spread word with a plural ``s`` (``stdevs``), a count word after ``n``,
``num`` or ``number`` (``ntrials``, ``NUMTRIALS``, ``niter``), ``sample`` and ``size``
(``sample_size``, ``samplesize``), and a ``σ`` anywhere in a token. :func:`metric_problem` says
what is wrong with one metric; ``schemas/RankingPolicy.json`` holds the same rule as
patterns (:func:`metric_patterns`, which a test holds the schema to), which refuse no
pointer :func:`metric_problem` lets pass (the schema's words are ASCII runs only, so it
leaves camel case, ``latencyStd``, to this module); :func:`check_policy_document` is the
policy's validation, the schema and this rule, wherever the policy enters (``rank``,
``show``, ``export`` loading it, the gate per commit, ``verify``).

Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

from .canonical import escape_pointer, unescape_pointer
from .errors import SchemaError, shorten
from .schema import check_document

SPREAD_WORDS = (
    "std", "stdev", "stddev", "sd", "sigma", "deviation", "var", "variance", "variation",
    "cv", "rsd", "iqr", "mad", "range", "spread", "stderr", "sem", "jitter", "stdv",
    "ci", "confidence", "interquartile", "uncertainty", "noise", "margin", "errorbar",
    "halfwidth")
"""Words naming a spread, how far a run's trials lie apart (lower case): the standard
deviation (``std``, ``stdev``, ``stddev``, ``sd``, ``sigma``; ``standard_deviation``,
``std_dev``, ``StdDev`` by their words), the variance (``var``, ``variance``), the
coefficient of variation (``cv``, ``rsd``, ``coefficient_of_variation``), the
interquartile range (``iqr``, ``interquartile_range``), the median absolute deviation
(``mad``, ``median_absolute_deviation``), the range, the standard error of the mean
(``stderr``, ``sem``) and jitter; since fresh17 F3 (pol04) also an interval's width or
its words (``ci``: ``ci95``, ``ci_99_ms``; ``confidence``: ``confidence_interval``;
``interquartile``; ``margin``: ``margin_of_error``; ``errorbar`` and ``halfwidth``, also as
two words, ``error_bar``, ``half_width``: :data:`JOINED`), ``uncertainty`` and ``noise``.
Ranked by one, runs rank by their noise. Each also with a plural ``s``
(:data:`SPREAD_FORMS`); ``σ`` is one too (:data:`SPREAD_SIGN`), and so is a token naming
two location statistics (:data:`RANGE_STATISTIC`: ``p95_p5``, ``min_max_gap``). Left out,
so that honest names rank: ``width`` (a shape), ``interval`` (``sample_interval_ms``),
``gap`` (``sol_gap``), ``error`` (``max_error``, a correctness metric's word)."""

JOINED = ("samplesize", "errorbar", "halfwidth")
"""Words also read as two adjacent words of a token (``sample_size``, ``error_bar``,
``half_width``, ``errorBar``), each split where :data:`_JOINED_AT` says."""

_JOINED_AT = {"samplesize": 6, "errorbar": 5, "halfwidth": 4}
"""Where each of :data:`JOINED` parts into its two words (``sample`` + ``size``)."""

RANGE_STATISTIC = re.compile(r"min|max|p[0-9]{1,2}")
"""A word naming a location statistic a range runs between (``min``, ``max``, ``p5``,
``p95``): a token holding two such words (``p95_p5``, ``min_max_gap``, ``P99-P1``,
``minMax``) names a range, a spread (fresh17 F3, pol04); one alone (``p99_ms``,
``min_latency``) is a location."""

SPREAD_FORMS = SPREAD_WORDS + tuple(f"{w}s" for w in SPREAD_WORDS)
"""The spellings of a word naming a spread: each of :data:`SPREAD_WORDS`, and with an
``s`` (``stdevs``, ``variances``; fresh17 F3)."""

SPREAD_SIGN = "\u03c3"
"""``σ`` (U+03C3 GREEK SMALL LETTER SIGMA), the standard deviation's sign: a token holding it
names a spread wherever it lies in the token (fresh17 F3)."""

COUNT_WORDS = (
    "n", "trials", "count", "counts", "samples", "iterations", "iters", "repeats",
    "repetitions", "reps", "runs", "rounds", "warmup", "warmups", "iter")
"""Words that, last in one of a metric's tokens, name a count (lower case): ``trials``,
``num_trials`` (KernelBench's), ``nTrials``, ``sample_count``, ``iterations``, ``n``. A
count says how many times a run was timed (or of what), not how fast it ran: ranked by
one, runs rank by how long they were measured, printed in the family's unit ("100 ns").
``total`` is no such word (``latency_total`` is a time). Each also after ``n``, ``num``
or ``number`` in one word (:data:`COUNT_FORMS`)."""

COUNT_PREFIXES = ("n", "num", "number")
"""What may precede a count word in one unsplit word: ``ntrials``, ``numtrials``, ``nruns``."""

COUNT_FORMS = COUNT_WORDS + tuple(
    p + w for p in COUNT_PREFIXES for w in COUNT_WORDS if w != "n") + ("samplesize",)
"""The spellings of a word naming a count, last in a token (fresh17 F3): each of
:data:`COUNT_WORDS`, each but ``n`` after one of :data:`COUNT_PREFIXES` (``ntrials``,
``NUMTRIALS``, ``niter``), and ``samplesize`` (also ``sample_size``: a token's last two
words are read joined as well)."""

LOCATION = "mean|median|min|max|geomean|p[0-9]{1,2}"
"""``common.json``'s ``locationStatistic`` (a test holds the two equal): the statistics of
``timing.latencyNs`` a run may be ranked by, ``std`` left out."""

EXPECTED = (
    "/timing/latencyNs/ and a location statistic (mean, median, min, max, geomean, or p "
    "and a percentile, p0 to p99; min also as p0 or p00, median as p50), or a metric of "
    "the source's own under /sourceNative/ (/sourceNative/metrics/sol_score) whose name "
    "is no spread nor count (docs/queries.md, \"Comparisons and the ranking policy\")")
"""What a metric may be, as every message of the rule says it."""

FIX = "rank by one, or make the family 'measured' (its protocol's primary statistic)"
"""What to do about a metric the rule refuses."""

SPREAD_SAID = (
    "a spread, how far a run's trials lie apart, not where its latencies lie: ranked by "
    "it, runs rank by their noise (a protocol's primaryStatistic may not be std either, "
    "KI104)")
COUNT_SAID = (
    "a count, how many times a run was timed or of what, not how fast it ran: ranked by "
    "it, runs rank by how long they were measured, each printed in the family's unit")
ELSEWHERE_SAID = (
    "neither a location statistic of the run's latencies nor a metric of the source's own: "
    "ranked by it, runs rank by something other than their speed")

_WORDS = re.compile(
    r"[A-Z]{2,}s(?![a-z])|[A-Z]?[a-z\u00b5\u03bc]+|[A-Z]+(?![a-z])|[0-9]+")
"""A word of a metric's name: ``GPUs`` (capitals and a plural ``s``), ``latency``, ``Ms``,
``MS``, ``50``; anything between two words (``_``, ``-``, ``.``, ``/``) separates them."""

_ASCII_WORDS = re.compile(r"[A-Za-z]+")
"""A run of ASCII letters: the words the schema's patterns read (any case)."""


def name_words(token: str) -> list[tuple[str, str]]:
    """Return the words of one reference token of a metric's pointer, each with what precedes it.

    Args:
        token: an RFC 6901 reference token, escaped (``GFLOP~1s`` is ``GFLOP/s``).

    Returns:
        ``(separator, word)`` per word (:data:`_WORDS`), the word lower case and the
        separator the characters between it and the word before (``""`` at a case change):
        ``latencyMSec`` -> ``[("", "latency"), ("", "m"), ("", "sec")]``.
    """
    text = unescape_pointer(token)
    found, end = [], 0
    for match in _WORDS.finditer(text):
        found.append((text[end:match.start()], match.group().lower()))
        end = match.end()
    return found


def _named(token: str, words: tuple[str, ...], last: bool) -> str | None:
    """Return the word of ``words`` one escaped token names, as read (lower case).

    Every word of the token and any two adjacent ones joined into one of :data:`JOINED`
    (``error_bar`` is ``errorbar``), or with ``last`` its last word (as :func:`name_words`
    reads it, then as a run of ASCII letters) and its last two joined (``sample_size`` is
    ``samplesize``); a spread's sign (:data:`SPREAD_SIGN`) anywhere in it names a spread.
    """
    text = unescape_pointer(token)
    if not last and SPREAD_SIGN in text:
        return SPREAD_SIGN
    reads: list[list[str]] = [[w.casefold() for w in _ASCII_WORDS.findall(text)],
                              [w for _, w in name_words(token)]]
    if last:  # its last word as KI231 reads it first: nTrials is 'trials'
        reads = [reads[1][-1:], reads[0][-1:], ["".join(reads[1][-2:])],
                 ["".join(reads[0][-2:])]]
    else:  # error_bar, half_width, errorBar: two words of a spread's one
        reads += [[j for a, b in zip(read, read[1:], strict=False)
                   if (j := a + b).rstrip("s") in JOINED] for read in reads]
    for word in (w for read in reads for w in read):
        if word in words:
            return word
    return None


def _range(token: str) -> str | None:
    """Return an escaped token naming a range, two location statistics, as read (lower case).

    Its words (runs of ASCII letters and digits, or as :func:`name_words` reads them:
    ``minMax``) that are :data:`RANGE_STATISTIC`: two or more name a range (``p95_p5``,
    ``min_max_gap``), a spread; None otherwise (``p99_ms`` is a percentile, a location).
    """
    text = unescape_pointer(token)
    for read in ([w.casefold() for w in re.findall(r"[A-Za-z0-9]+", text)],
                 [w for _, w in name_words(token)]):
        if sum(1 for w in read if RANGE_STATISTIC.fullmatch(w)) >= 2:
            return text.casefold()
    return None


def metric_problem(metric: str) -> str | None:
    """Say why a policy may not rank by ``metric``, or None when it may.

    Args:
        metric: a family's ``metric``, a JSON Pointer (RFC 6901) into a run's spec.

    Returns:
        ``METRIC is a spread ('WORD'), ...; expected ...: FIX`` (``METRIC`` as written
        when printable, else as ``ascii`` quotes it; cut past ``QUOTE_WIDTH``) for a
        pointer any of whose tokens names a spread (:data:`SPREAD_FORMS`, ``σ``), ``... is a
        count ('WORD'), ...`` for one any of whose tokens' last word names a count
        (:data:`COUNT_FORMS`), WORD as the token spells it (lower case); ``... is neither a
        location statistic ...`` for one that is neither ``/timing/latencyNs/`` and a
        location statistic nor under ``/sourceNative/``; None for an allowed metric and for a
        value that is no JSON Pointer (the schema's pattern says that).
    """
    if not re.fullmatch(r"(/[^/]*)+", metric):
        return None
    tokens = metric.split("/")[1:]
    spread = next((w for w in (_named(t, SPREAD_FORMS, False) or _range(t) for t in tokens)
                   if w), None)
    count = next((w for w in (_named(t, COUNT_FORMS, True) for t in tokens) if w), None)
    if spread is not None:
        said = SPREAD_SAID.replace("a spread", f"a spread ({spread!r})", 1)
    elif count is not None:
        said = COUNT_SAID.replace("a count", f"a count ({count!r})", 1)
    elif re.fullmatch(f"/timing/latencyNs/({LOCATION})", metric) or (
            tokens[0] == "sourceNative" and len(tokens) > 1 and tokens[1:] != [""]):
        return None
    else:
        said = ELSEWHERE_SAID
    shown = metric if metric.isprintable() else ascii(metric)
    return f"{shorten(shown, length=len(metric))} is {said}; expected {EXPECTED}: {FIX}"


def _any_case(word: str) -> str:
    """Return a regular expression matching ``word`` in any ASCII case: ``[sS][tT][dD]``."""
    return "".join(f"[{c}{c.upper()}]" for c in word)


def metric_patterns() -> dict[str, str]:
    """Return the rule as ``schemas/RankingPolicy.json`` states it: three ECMA-262 patterns.

    Returns:
        ``{"where": ..., "spread": ..., "count": ...}``: a metric must match ``where``
        (``/timing/latencyNs/`` and a location statistic, or under ``/sourceNative/``) and
        neither ``spread`` (a token holding a word of :data:`SPREAD_FORMS`, in any case
        between characters that are no ASCII letter, or begun in upper case after no
        upper-case letter and followed by no lower-case one: ``latency_STD``,
        ``latencyStdMs``; a word of :data:`JOINED` also as two, ``error_bar``; or holding
        ``σ``, or two words of :data:`RANGE_STATISTIC` between characters that are no ASCII
        letter nor digit, ``p95_p5``) nor ``count`` (a token ending in a word of
        :data:`COUNT_FORMS` so: ``num_trials``, ``nTrials``, ``NUMTRIALS``, ``sample_size``,
        ``/num_trials/value``). A test holds the schema's patterns to these.
    """
    def spelled(w: str) -> str:  # a word of JOINED also as two: error[^/A-Za-z]*bar
        at = _JOINED_AT.get(w.removesuffix("s"), 0)
        return _any_case(w) if not at else f"{_any_case(w[:at])}[^/A-Za-z]*{_any_case(w[at:])}"

    def word(words: tuple[str, ...]) -> str:
        return "(" + "|".join(spelled(w) for w in words) + ")"

    def title(words: tuple[str, ...]) -> str:  # camel case: a word begun in upper case
        return "(" + "|".join(w[0].upper() + w[1:] for w in words) + ")"

    def named(words: tuple[str, ...], last: bool) -> str:
        after = "" if last else "([^/A-Za-z][^/]*)?"
        camel_after = "" if last else "([^/a-z\u00b5\u03bc][^/]*)?"
        sign = "" if last else f"|[^/]*{SPREAD_SIGN}[^/]*"
        return (f"(([^/]*[^/A-Za-z])?{word(words)}{after}"
                f"|([^/]*[^/A-Z])?{title(words)}{camel_after}{sign})")

    apart, stat = "[^/A-Za-z0-9]", "([mM][iI][nN]|[mM][aA][xX]|[pP][0-9]{1,2})"
    two = f"([^/]*{apart})?{stat}{apart}([^/]*{apart})?{stat}({apart}[^/]*)?"  # p95_p5
    return {
        "where": f"^(/timing/latencyNs/({LOCATION})|/sourceNative/[\\s\\S]+)$",
        "spread": f"^(/[^/]*)*/({named(SPREAD_FORMS, False)}|{two})(/[^/]*)*$",
        "count": f"^(/[^/]*)*/{named(COUNT_FORMS, True)}(/[^/]*)*$",
    }


def check_policy_document(document: Any, *, file: str | None) -> list[SchemaError]:
    """Validate a ranking policy: ``schemas/RankingPolicy.json``, each metric said by this rule.

    The one validation of the policy's content (:func:`kistore.query.policy.parse_policy`
    for ``rank``, ``show``, ``export``; :func:`kistore.check._policy.policy_problems` for the
    gate, per commit, and ``verify``). The schema refuses what :func:`metric_problem`
    refuses in ASCII words; this says it of the metric at hand and reads camel case too.

    Args:
        document: the parsed policy.
        file: its name, for each finding.

    Returns:
        Every finding, sorted by JSON Pointer: the schema's, but at a family's ``metric``
        :func:`metric_problem`'s words (``field 'metric': METRIC is a spread ...``) in place
        of the schema's. Raises what :func:`kistore.core.schema.check_document` raises.
    """
    said = []
    families = document.get("families") if isinstance(document, dict) else None
    for family, entry in sorted(families.items()) if isinstance(families, dict) else []:
        metric = entry.get("metric") if isinstance(entry, dict) else None
        problem = metric_problem(metric) if isinstance(metric, str) else None
        if problem is not None:
            said.append(SchemaError(f"field 'metric': {problem}", file=file,
                                    pointer=f"/families/{escape_pointer(family)}/metric"))
    at = {s.pointer for s in said}
    return sorted([f for f in check_document(document, "RankingPolicy.json", file=file)
                   if f.pointer not in at] + said, key=lambda f: (f.pointer or "", f.message))
