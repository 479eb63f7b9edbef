"""kistore.core.pathnames: the short form of a value too long for one path component."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from kistore.core.pathnames import component
from kistore.export.rows import SHORT_MARK, escape_partition, partition_value


def test_a_value_of_at_most_128_bytes_is_written_whole():
    assert component("a" * 128) == "a" * 128
    assert component("é" * 64) == "é" * 64  # 128 bytes of UTF-8


def test_a_longer_value_keeps_64_bytes_a_mark_and_16_hex_of_its_sha256():
    value = "a" * 129
    assert component(value) == "a" * 64 + "~" + hashlib.sha256(value.encode()).hexdigest()[:16]
    assert component("s" * 300) == "s" * 64 + "~2955c7328c57ca39"


def test_the_kept_beginning_ends_on_a_whole_character():
    value = "é" * 65  # 130 bytes; 32 whole characters fit 64 bytes
    assert component(value).startswith("é" * 32 + "~")


def test_the_kept_beginning_counts_written_bytes_and_never_splits_an_escape():
    value = "/" * 100  # each written as %2F (3 bytes): 21 fit 64 bytes
    shortened = partition_value(value)
    assert shortened == "%2F" * 21 + "%7E" + hashlib.sha256(value.encode()).hexdigest()[:16]


@given(st.text(max_size=400))
def test_every_partition_value_fits_a_directory_name_and_never_looks_shortened(value):
    written = partition_value(value)
    assert len(f"hardware={written}".encode("utf-8", "surrogatepass")) <= 255
    if written == escape_partition(value):
        assert SHORT_MARK not in written
    else:
        assert written.count(SHORT_MARK) == 1


@given(st.text(max_size=300), st.text(max_size=300))
def test_two_values_written_whole_or_short_never_share_a_name_unless_equal(a, b):
    if a != b:
        assert partition_value(a) != partition_value(b)
