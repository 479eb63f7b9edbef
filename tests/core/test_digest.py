from __future__ import annotations

import hashlib
import operator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.core.digest import Digest, is_digest, match_prefix, parse_prefix
from kistore.core.errors import InputError, ResolutionError


def test_digest_of_bytes_is_sha256_hex():
    assert str(Digest.of(b"abc")) == "sha256:" + hashlib.sha256(b"abc").hexdigest()
    assert str(Digest.of(b"")) == (
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


@pytest.mark.parametrize("bad", ["sha256:ABC", "sha256:" + "A" * 64, "sha512:" + "a" * 64,
                                 "a" * 64, "sha256:" + "a" * 63, "sha256:" + "g" * 64])
def test_from_str_refuses_anything_but_the_grammar(bad):
    assert not is_digest(bad)
    with pytest.raises(InputError):
        Digest.from_str(bad)


def test_prefix_grammar():
    assert parse_prefix("384a96d0") == "384a96d0"
    assert parse_prefix("sha256:384a96d0") == "384a96d0"
    assert parse_prefix("384a96d") is None  # 7 digits: too short, as for git
    assert parse_prefix("384A96D0") is None


def test_match_prefix_unique_ambiguous_missing():
    a = Digest("ab" * 32)
    b = Digest("ab" * 31 + "cd")
    assert match_prefix("abababababab", [a]) == a
    with pytest.raises(ResolutionError) as caught:
        match_prefix("abababab", [a, b])
    assert str(a) in str(caught.value) and str(b) in str(caught.value)
    with pytest.raises(ResolutionError):
        match_prefix("cdcdcdcd", [a, b])


@given(st.lists(st.text("0123456789abcdef", min_size=64, max_size=64), min_size=2, max_size=6))
def test_digests_order_by_their_hex_as_order_true_did(hexes):
    """The comparisons written out (no ``order=True``) order as the tuples of ``hex``."""
    digests = [Digest(h) for h in hexes]
    assert [d.hex for d in sorted(digests)] == sorted(hexes)
    a, b = digests[0], digests[1]
    for op in (operator.lt, operator.le, operator.gt, operator.ge):
        assert op(a, b) == op((a.hex,), (b.hex,))


def test_a_digest_does_not_order_against_another_type():
    digest = Digest("0" * 64)
    for op in (operator.lt, operator.le, operator.gt, operator.ge):
        with pytest.raises(TypeError):
            op(digest, "sha256:" + "0" * 64)
