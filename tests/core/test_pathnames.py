"""kistore.core.pathnames: the short form of a value too long for one path component."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from kistore.core.pathnames import component


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


@given(st.text(alphabet=st.characters(blacklist_characters="~"), max_size=400))
def test_every_value_fits_a_file_name_and_only_a_long_one_is_marked(value):
    name = component(value)
    assert len(name.encode("utf-8", "surrogatepass")) <= 128
    assert ("~" in name) == (len(value.encode("utf-8", "surrogatepass")) > 128)
    assert name == component(value)  # deterministic
