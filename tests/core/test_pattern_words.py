"""Schema patterns are said in words, not as a regular expression (fresh09 L4).

An upper-case digest gave ``does not match '^sha256:[0-9a-f]{64}$'`` and a ``latencyNs`` key
``p100`` ``does not match '^(mean|median|...|p[0-9]{1,2})$'``: a regex, unlike every other
message. :data:`kistore.core.pattern_words.PATTERN_WORDS` says each of kistore's patterns.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kistore.core.pattern_words import LEFT, PATTERN_WORDS
from kistore.core.schema import check_document, check_manifest, load_schema, schema_names

DIGEST = "'sha256:' and 64 lower-case hex digits (0-9, a-f)"
STATISTIC = ("mean, median, min, max, std, geomean, or p and a percentile of one or two "
             "digits (p0 to p99)")
LOCATION = ("mean, median, min, max, geomean, or p and a percentile of one or two digits (p0 "
            "to p99), a statistic saying where the trials' latencies lie; not std, a spread, "
            "which would rank runs by how far their trials lie apart")


def _patterns(schema: Any, found: set[str]) -> set[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "pattern" and isinstance(value, str):
                found.add(value)
            else:
                _patterns(value, found)
    elif isinstance(schema, list):
        for item in schema:
            _patterns(item, found)
    return found


@pytest.mark.parametrize("name", schema_names())
def test_every_pattern_of_every_schema_has_words_or_is_deliberately_left(name):
    for pattern in _patterns(load_schema(name), set()):
        assert pattern in PATTERN_WORDS or pattern in LEFT, (name, pattern)


def test_left_patterns_are_said_elsewhere_and_the_table_holds_no_stale_pattern():
    every = set().union(*(_patterns(load_schema(n), set()) for n in schema_names()))
    assert set(PATTERN_WORDS) | set(LEFT) == every
    assert not set(PATTERN_WORDS) & set(LEFT)


def _error(document: dict[str, Any], pointer: str) -> str:
    [error] = [e for e in check_manifest(document) if e.pointer == pointer]
    return error.message


def test_an_upper_case_digest_is_told_the_digest_in_words(bundle):
    run = copy.deepcopy(bundle["run"])
    run["spec"]["implementationDigest"] = "sha256:" + "A" * 64
    assert _error(run, "/spec/implementationDigest") == (
        f"field 'implementationDigest': 'sha256:{'A' * 64}' is not a digest: {DIGEST}; "
        "write it in lower case")
    run["spec"]["implementationDigest"] = "sha256:bd1837de"
    assert _error(run, "/spec/implementationDigest") == (
        f"field 'implementationDigest': 'sha256:bd1837de' is not a digest: {DIGEST}")


def test_a_latency_key_p100_is_told_the_statistics_in_words(bundle):
    run = copy.deepcopy(bundle["run"])
    run["spec"]["timing"]["latencyNs"]["p100"] = 1
    assert _error(run, "/spec/timing/latencyNs") == (
        f"field 'latencyNs': latencyNs keys are statistics; key 'p100' is not one: {STATISTIC}")
    del run["spec"]["timing"]["latencyNs"]["p100"]
    run["spec"]["timing"]["primaryStatistic"] = "Mean"
    assert _error(run, "/spec/timing/primaryStatistic") == (
        f"field 'primaryStatistic': 'Mean' is not a location statistic: {LOCATION}; "
        "write it in lower case")


def test_std_is_no_primary_statistic_of_a_run_or_a_protocol(bundle):
    """fresh14 F11: a protocol measuring ``std`` (and its runs) were added, and ``rank``
    ranked runs by their spread "by measured latency"; ``latencyNs`` still states a std."""
    run = copy.deepcopy(bundle["run"])
    run["spec"]["timing"]["primaryStatistic"] = "std"
    run["spec"]["timing"]["latencyNs"]["std"] = 3
    assert _error(run, "/spec/timing/primaryStatistic") == (
        f"field 'primaryStatistic': 'std' is not a location statistic: {LOCATION}")
    protocol = copy.deepcopy(bundle["protocol"])
    protocol["spec"]["measurement"]["primaryStatistic"] = "std"
    assert _error(protocol, "/spec/measurement/primaryStatistic") == (
        f"field 'primaryStatistic': 'std' is not a location statistic: {LOCATION}")
    for statistic in ("mean", "median", "min", "max", "geomean", "p50", "p99", "p0"):
        protocol["spec"]["measurement"]["primaryStatistic"] = statistic
        assert [e for e in check_manifest(protocol)
                if e.pointer == "/spec/measurement/primaryStatistic"] == []


def test_a_look_alike_in_a_pattern_value_is_named(bundle):
    run = copy.deepcopy(bundle["run"])
    run["spec"]["timing"]["primaryStatistic"] = "m\u0435an"  # Cyrillic е
    [said] = [e.message for e in check_manifest(run) if e.message.startswith("field")]
    assert said == (  # and KI104's mixed-script finding beside it
        "field 'primaryStatistic': 'm\\u0435an' (U+0435 CYRILLIC SMALL LETTER IE at "
        f"character 2) is not a location statistic: {LOCATION}")


def test_a_trust_key_id_is_told_in_words():
    keys = {"keys": [{"keyid": "SHA256:abc", "publicKey": "ssh-ed25519 AAAA",
                      "owner": "x"}]}
    messages = [e.message for e in check_document(keys, "trust-keys.json")]
    assert ("field 'keyid': 'SHA256:abc' is not an OpenSSH key fingerprint: 'SHA256:' and "
            "43 base64 characters, as `ssh-keygen -lf KEY` prints it") in messages, messages
