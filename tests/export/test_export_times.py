"""Export's timestamps: every RFC 3339 date-time the schema admits is written or is null."""

from __future__ import annotations

import datetime as dt

import pytest

from kistore.export.writers import parse_time


def test_a_time_in_utc_is_kept_to_the_microsecond():
    assert parse_time("2026-07-10T08:00:00.1234567+02:00") == dt.datetime(
        2026, 7, 10, 6, 0, 0, 123456, tzinfo=dt.UTC)


def test_a_lower_case_z_is_utc_and_a_time_without_offset_is_null():
    # RFC 3339 §5.6 admits "z" (export wrote null for it until 2026-12-04, KI227 read it);
    # a time without an offset is no RFC 3339 date-time (it was taken as the local time)
    assert parse_time("2026-07-10t06:41:58.5z") == dt.datetime(
        2026, 7, 10, 6, 41, 58, 500000, tzinfo=dt.UTC)
    assert parse_time("2026-07-10T06:41:58") is None


@pytest.mark.parametrize("text", ["9999-12-31T23:59:59-12:00",   # UTC year 10000
                                  "0001-01-01T00:00:00+14:00",   # UTC year 0
                                  "2026-06-30T23:59:60Z"])        # a leap second
def test_a_time_python_cannot_hold_is_null_not_an_error(text):
    # review r78 F4: one such run stopped every Parquet export with an OverflowError
    assert parse_time(text) is None
