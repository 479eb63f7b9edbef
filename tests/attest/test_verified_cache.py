"""The process-wide signature cache (:func:`kistore.attest.signed_by.verified`, review01 M2, L13).

It was keyed by the SHA-1 git blob id of a bundle's bytes: two bundles with one SHA-1 (a
chosen-prefix collision; a note line is no git object, so git's sha1dc does not guard it)
would share one verdict, pairing a statement signed by key A with key B's keyid, which the
reader takes from the bundle it parsed itself. And it handed every caller one shared
``Statement``, whose ``predicate`` dict a caller could change for the whole process. The
hash is replaced here by one that maps every input to the same digest: what keeps two
bundles apart is then the key itself, not the hash's strength.
"""

from __future__ import annotations

import hashlib

import pytest

from kistore.attest import signed_by
from kistore.attest.attestation import Bundle, parse_statement
from kistore.core.errors import VerificationError

from ..conftest import fixed_key
from .test_attestation import PREDICATE, RUN, as_json, from_json, make_bundle


class _Colliding:
    """A stand-in for :mod:`hashlib` whose every digest is the same: every input collides."""

    def __getattr__(self, name: str):
        real = getattr(hashlib, name)
        if not callable(real) or name not in hashlib.algorithms_guaranteed:
            return real
        return lambda *args, **kwargs: real(b"", usedforsecurity=False)


@pytest.fixture
def colliding(monkeypatch):
    monkeypatch.setattr(signed_by, "_VERIFIED", {})
    monkeypatch.setattr(signed_by, "hashlib", _Colliding())


def _verified(bundle: Bundle):
    data = bundle.to_bytes()
    return signed_by.verified(Bundle.from_bytes(data), data, RUN)


def test_a_bundle_of_another_key_is_not_answered_from_one_that_verified(colliding):
    signed = make_bundle()
    assert _verified(signed).predicate == PREDICATE
    # the same envelope, claimed by key 2: its signature is key 1's, so it must not verify
    claimed = as_json(signed)
    other = make_bundle(key=fixed_key(2))
    claimed["verificationMaterial"] = as_json(other)["verificationMaterial"]
    swapped = from_json(claimed)
    assert swapped.public_key != signed.public_key
    assert swapped.envelope == signed.envelope
    # on BASE 440899c7: the cached statement of key 1's bundle came back, no error
    with pytest.raises(VerificationError, match="signature"):
        _verified(swapped)


def test_two_keys_bundles_whose_digests_collide_each_get_their_own_statement(colliding):
    first = make_bundle()
    second = make_bundle(key=fixed_key(2), predicate={**PREDICATE, "outcome": "not-reproduced"})
    assert _verified(first).predicate["outcome"] == "reproduced"
    # on BASE 440899c7: "reproduced", key 1's statement for key 2's bundle
    assert _verified(second).predicate["outcome"] == "not-reproduced"
    assert _verified(first).predicate["outcome"] == "reproduced"


def test_a_caller_changing_the_statement_it_got_changes_no_later_answer(monkeypatch):
    monkeypatch.setattr(signed_by, "_VERIFIED", {})
    bundle = make_bundle()
    expected = parse_statement(bundle.envelope.payload)
    got = _verified(bundle)
    got.predicate["outcome"] = "not-reproduced"
    got.predicate["timing"]["latencyNs"]["mean"] = 1.0
    # on BASE 440899c7: the second answer was the first one, changed
    again = _verified(bundle)
    assert again == expected
    assert again.predicate["timing"]["latencyNs"]["mean"] == 1234.5
    again.predicate.clear()
    assert _verified(bundle) == expected
    assert len(signed_by._VERIFIED) == 1  # one check: the answers came from the cache


def test_the_cache_is_keyed_by_sha256_of_the_bytes_and_the_public_key(monkeypatch):
    monkeypatch.setattr(signed_by, "_VERIFIED", {})
    bundle = make_bundle()
    data = bundle.to_bytes()
    signed_by.verified(Bundle.from_bytes(data), data, RUN)
    assert list(signed_by._VERIFIED) == [
        (hashlib.sha256(data).digest(), bundle.public_key, RUN)]


def test_a_cached_answer_is_not_the_kept_statement_s_predicate():
    bundle = make_bundle(subject=RUN)
    first, second = _verified(bundle), _verified(bundle)
    assert first == second
    assert first.predicate is not second.predicate
