"""kistore.core.times: commit times as RFC 3339 UTC text."""

from __future__ import annotations

import pytest

from kistore.core.times import utc_text


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "1970-01-01T00:00:00Z"),
    (1796256000, "2026-12-03T00:00:00Z"),  # `date -u -d 2026-12-03T00:00:00Z +%s`
    (253402300799, "9999-12-31T23:59:59Z"),  # the last second Python's datetime holds
    (-1, "1969-12-31T23:59:59Z"),
])
def test_utc_text_is_rfc3339_utc_to_the_second(seconds, text):
    assert utc_text(seconds) == text


def test_a_time_past_year_9999_raises_for_the_caller_to_guard():
    with pytest.raises((OverflowError, ValueError)):
        utc_text(253402300800)  # 10000-01-01T00:00:00Z (review r79 F2)
