"""kistore.core.times: commit times as RFC 3339 UTC text."""

from __future__ import annotations

import datetime as dt

import pytest

from kistore.core.times import duration_text, parse_rfc3339, utc_text


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


@pytest.mark.parametrize(("text", "stated"), [
    ("2026-07-10T08:00:00.1234567+02:00",  # past the microsecond: truncated
     dt.datetime(2026, 7, 10, 8, 0, 0, 123456, tzinfo=dt.timezone(dt.timedelta(hours=2)))),
    ("2026-07-10t06:41:58z", dt.datetime(2026, 7, 10, 6, 41, 58, tzinfo=dt.UTC)),  # §5.6
    # in UTC year 10000: held in its own offset, the caller decides (KI227 warns of it)
    ("9999-12-31T23:59:59-12:00",
     dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.timezone(dt.timedelta(hours=-12)))),
])
def test_parse_rfc3339_keeps_the_stated_offset(text, stated):
    when = parse_rfc3339(text)
    assert when == stated and when.utcoffset() == stated.utcoffset()


@pytest.mark.parametrize("text", ["2026-07-10T06:41:58",   # no offset: not RFC 3339
                                  "2026-06-30T23:59:60Z",  # a leap second
                                  "2026-07-10T06:41:58Z\x00junk",  # fromisoformat took it
                                  "20260710T064158Z", "2026-W28-5T06:41:58Z",  # ISO 8601's
                                  "2026-07-10 06:41:58Z", "2026-07-10T06:41Z",
                                  "2026-07-10T06:41:58,5Z", "2026-07-10T06:41:58Z\n",
                                  "July 10, 2026", ""])
def test_parse_rfc3339_is_none_for_what_it_cannot_read(text):
    assert parse_rfc3339(text) is None


@pytest.mark.parametrize(("seconds", "said"), [
    (0, "0 seconds"), (1, "1 second"), (59, "59 seconds"), (60, "1 minute"),
    (3599, "59 minutes"), (3600, "1 hour"), (7199, "1 hour"), (72_000, "20 hours"),
    (86_399, "23 hours"), (86_400, "1 day"), (3 * 86_400 + 5, "3 days"), (-5, "0 seconds"),
])
def test_a_duration_is_said_in_its_largest_whole_unit(seconds, said):
    # the one formatter of KI434's and KI437's messages (review01 L2: each had its own,
    # KI434's without days)
    assert duration_text(seconds) == said


@pytest.mark.parametrize(("seconds", "said"), [
    (354, "5 minutes 54 seconds"), (300, "5 minutes"), (61, "1 minute 1 second"),
    (59, "59 seconds"), (3 * 3600 + 59, "3 hours"), (3 * 3600 - 1, "2 hours 59 minutes"),
    (90_061, "1 day 1 hour"), (2 * 86_400 + 3599, "2 days"), (-5, "0 seconds"),
])
def test_a_precise_duration_says_the_rest_in_the_next_unit(seconds, said):
    # kistore attest's payload date beside its five-minute bound: "5 minutes" read as within
    # it for 5 min 54 s (fresh08 L4); payload_dates had its own formatter for it until
    # 2026-12-07 (a near-copy of this one)
    assert duration_text(seconds, precise=True) == said
