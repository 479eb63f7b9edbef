"""The JSON Schema patterns of ``schemas/*.json`` in words, for schema errors.

Owns :data:`PATTERN_WORDS`, the one table from each ``pattern`` of kistore's schemas to
what it means, and :data:`LEFT`, the patterns said elsewhere; :func:`pattern_said` turns
a value a pattern refused into a sentence. jsonschema says only ``'sha256:AAAA...' does
not match '^sha256:[0-9a-f]{64}$'``: a regular expression, no word of lower case nor of
the fix (fresh09 L4). ``tests/core/test_pattern_words.py`` holds every pattern of the
schemas to be in one of the two tables.
"""

from __future__ import annotations

from typing import NamedTuple

from .policy_metric import EXPECTED, metric_patterns


class Words(NamedTuple):
    """One pattern in words: ``VALUE is not {noun}: {words}``."""

    noun: str
    """What a value is, with its article: ``a digest``."""
    plural: str
    """The same in the plural, for an object's keys: ``statistics``."""
    words: str
    """What the pattern takes, in words."""
    lower_case: bool
    """Whether "write it in lower case" is the fix when the value lower-cased matches
    (not for base64, whose case is meaning)."""


_IDENTIFIER = "lower-case ASCII letters a-z, digits 0-9{}, beginning with a letter or digit"

PATTERN_WORDS: dict[str, Words] = {
    "^sha256:[0-9a-f]{64}$": Words(
        "a digest", "digests", "'sha256:' and 64 lower-case hex digits (0-9, a-f)", True),
    "^(mean|median|min|max|std|geomean|p[0-9]{1,2})$": Words(
        "a statistic", "statistics", "mean, median, min, max, std, geomean, or p and a "
        "percentile of one or two digits (p0 to p99)", True),
    "^(mean|median|min|max|geomean|p[0-9]{1,2})$": Words(
        "a location statistic", "location statistics", "mean, median, min, max, geomean, or "
        "p and a percentile of one or two digits (p0 to p99), a statistic saying where the "
        "trials' latencies lie; not std, a spread, which would rank runs by how far their "
        "trials lie apart", True),
    "^[a-z0-9][a-z0-9_.-]*$": Words(
        "an identifier", "identifiers", _IDENTIFIER.format(", '_', '.' and '-'"), True),
    "^[a-z0-9][a-z0-9.-]*$": Words(
        "an identifier", "identifiers", _IDENTIFIER.format(", '.' and '-'"), True),
    "^[a-z0-9][a-z0-9-]*$": Words(
        "an identifier", "identifiers", _IDENTIFIER.format(" and '-'"), True),
    metric_patterns()["where"]: Words(
        "a metric a run may be ranked by", "metrics a run may be ranked by", EXPECTED,
        False),
    "^(/[^/]*)+$": Words(
        "a JSON Pointer", "JSON Pointers", "'/' and a key, once or more (RFC 6901), e.g. "
        "/sourceNative/metrics/sol_score", False),
    "^SHA256:[A-Za-z0-9+/]{43}$": Words(
        "an OpenSSH key fingerprint", "OpenSSH key fingerprints", "'SHA256:' and 43 base64 "
        "characters, as `ssh-keygen -lf KEY` prints it", False),
    "^(ssh-ed25519|sk-ssh-ed25519@openssh\\.com) [A-Za-z0-9+/]+={0,2}$": Words(
        "an Ed25519 OpenSSH public key", "Ed25519 OpenSSH public keys", "'ssh-ed25519' or "
        "'sk-ssh-ed25519@openssh.com', one space and the key in base64, with no comment",
        False),
}
"""Each ``pattern`` of kistore's schemas (JSON Schema 2020-12, ECMA-262 regular
expressions) to what it takes, in words."""

LEFT: dict[str, str] = {
    "^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$":
        "common.json's name: metadata.name, said with its fix by "
        "kistore.core.schema.NAME_RULE and nearest_name",
    metric_patterns()["spread"]:
        "RankingPolicy.json's metric, under `not`: a policy metric may not point at a "
        "spread, said by the description beside it and by "
        "kistore.core.policy_metric.metric_problem (fresh15 F4, fresh16 F4)",
    metric_patterns()["count"]:
        "RankingPolicy.json's metric, under `not`: a policy metric may not point at a "
        "count, said by the description beside it and by "
        "kistore.core.policy_metric.metric_problem (fresh16 F4, F7)",
}
"""Patterns deliberately not in :data:`PATTERN_WORDS`, each with where it is said."""


def pattern_said(pattern: str, quoted: str, lower_matches: bool, *,
                 key_of: str | None = None) -> str | None:
    """Say that a value does not match one of kistore's patterns, in words.

    Args:
        pattern: the schema's ``pattern``.
        quoted: the value as the message shows it (``'p100'``, with any look-alike
            characters named).
        lower_matches: whether the value lower-cased matches the pattern.
        key_of: the object's field name when the value is one of its keys
            (``propertyNames``), else None.

    Returns:
        ``'sha256:AAAA...' is not a digest: 'sha256:' and 64 lower-case hex digits (0-9,
        a-f); write it in lower case``, or for a key ``latencyNs keys are statistics; key
        'p100' is not one: mean, ...``; None when ``pattern`` is not in
        :data:`PATTERN_WORDS`.
    """
    said = PATTERN_WORDS.get(pattern)
    if said is None:
        return None
    fix = "; write it in lower case" if said.lower_case and lower_matches else ""
    if key_of is not None:
        return f"{key_of} keys are {said.plural}; key {quoted} is not one: {said.words}{fix}"
    return f"{quoted} is not {said.noun}: {said.words}{fix}"
