"""A found value that prints like an expected one is named, not printed raw (fresh09 L2).

``found "BenchmarkRun\u200b"; did you mean 'BenchmarkRun'?`` showed the same word twice (the
zero-width space prints as nothing); ``found "pa\u0455sed"`` with a Cyrillic DZE likewise.
Where the expected values are ASCII and the found string holds anything but printable
ASCII, it is shown JSON-escaped and each such character named as KI104 names it
(:func:`kistore.core.text_fields.odd_characters_said`).
"""

from __future__ import annotations

import copy

from kistore.core.schema import check_manifest


def _status(bundle, value: str) -> str:
    run = copy.deepcopy(bundle["run"])
    run["spec"]["status"] = value
    [error] = [e for e in check_manifest(run) if e.pointer == "/spec/status"]
    return error.message


def test_a_kind_with_a_zero_width_space_names_it(bundle):
    run = copy.deepcopy(bundle["run"])
    run["kind"] = "BenchmarkRun\u200b"
    [error] = check_manifest(run)
    assert error.message == (
        "a manifest's kind must be one of Workload, BenchmarkProtocol, ExecutionEnvironment, "
        'Implementation, BenchmarkRun; found "BenchmarkRun\\u200b" (U+200B ZERO WIDTH SPACE '
        "at character 13); did you mean 'BenchmarkRun'?")


def test_a_status_with_a_cyrillic_letter_names_it(bundle):
    assert _status(bundle, "pa\u0455sed") == (
        "field 'status': expected one of \"passed\", \"incorrect\", \"runtime-error\", "
        "\"compile-error\", \"timeout\", \"failed\", found \"pa\\u0455sed\" "
        "(U+0455 CYRILLIC SMALL LETTER DZE at character 3)")


def test_several_odd_characters_are_each_named_up_to_three(bundle):
    # Cyrillic р а ѕ ѕ е, Latin d
    assert _status(bundle, "\u0440\u0430\u0455\u0455\u0435d").endswith(
        'found "\\u0440\\u0430\\u0455\\u0455\\u0435d" (U+0440 CYRILLIC SMALL LETTER ER at '
        "character 1, U+0430 CYRILLIC SMALL LETTER A at character 2, U+0455 CYRILLIC SMALL "
        "LETTER DZE at character 3 and 2 more characters not printable ASCII)")


def test_a_plain_ascii_value_is_shown_as_before(bundle):
    assert _status(bundle, "pased").endswith(', "failed", found "pased"')
    run = copy.deepcopy(bundle["run"])
    run["kind"] = "Widget"
    assert check_manifest(run)[0].message.endswith('; found "Widget"')
