"""``kistore.core.hashes``: Python's own SHA-256/SHA-1 for the first bytes, OpenSSL's after;
the same digests either way, and one answer loads no OpenSSL (issue 22, start-up)."""

from __future__ import annotations

import hashlib
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core import hashes
from kistore.git.ids import blob_id

from ..conftest import add_docs, python_c

OPENSSL = type(hashlib.sha256())


@pytest.fixture
def spent(monkeypatch):
    """The builtin budget used up: every later hash is OpenSSL's."""
    monkeypatch.setattr(hashes, "_left", 0)


def test_known_digests():
    # FIPS 180-2 test vectors, and git's id of a blob holding "hello\n" (git hash-object)
    assert hashes.sha256(b"abc").hexdigest() == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert hashes.sha1(b"abc").hexdigest() == "a9993e364706816aba3e25717850c26c9cd0d89d"
    assert blob_id(b"hello\n").hex() == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert hashes.blake2b is hashlib.blake2b  # Python's own BLAKE2b either way


@settings(max_examples=200, deadline=None)
@given(first=st.binary(max_size=3000), more=st.lists(st.binary(max_size=500), max_size=4),
       left=st.integers(min_value=-10, max_value=4000))
def test_same_digests_as_hashlib_before_and_after_the_switch(first, more, left):
    hashes._left = left  # before, at and after the point OpenSSL takes over
    try:
        for ours, theirs in ((hashes.sha256, hashlib.sha256), (hashes.sha1, hashlib.sha1)):
            h, expected = ours(first), theirs(first)
            for part in more:
                h.update(part)
                expected.update(part)
            assert (h.digest(), h.hexdigest()) == (expected.digest(), expected.hexdigest())
    finally:
        hashes._left = hashes.BUILTIN_BYTES


def test_the_first_bytes_are_hashed_by_python_then_by_openssl(monkeypatch):
    monkeypatch.setattr(hashes, "_left", 100)
    assert type(hashes.sha256(b"x" * 60)) is not OPENSSL  # 40 left
    assert type(hashes.sha1(b"x" * 60)) is not OPENSSL  # counted too: -20 left
    assert type(hashes.sha256(b"x")) is OPENSSL
    assert type(hashes.sha1(b"x")) is OPENSSL


def test_a_bulk_process_hashes_with_openssl_after_a_quarter_megabyte(spent):
    assert type(hashes.sha256(b"abc")) is OPENSSL
    assert hashes.sha256(b"abc").hexdigest() == hashlib.sha256(b"abc").hexdigest()


def test_an_answer_loads_no_openssl_and_no_schema_for_an_uncommitted_add(group, kit):
    """`rank` and a run page of a store with an uncommitted manifest, as fresh processes:
    the second time, neither OpenSSL (hashlib) nor jsonschema-rs is loaded."""
    add_docs(group, [kit.workload("matmul", name="uncommitted")], commit=False)
    code = ("import sys\nfrom kistore.cli import main\n"
            "try:\n    main(sys.argv[1:], prog_name='kistore')\n"
            "except SystemExit as e:\n    code = e.code\n"
            "print('@@', code, sorted(m for m in ('hashlib', '_hashlib', 'jsonschema_rs')"
            " if m in sys.modules))")
    for args in (["rank", "BenchmarkRun/fast"], ["show", "BenchmarkRun/fast"]):
        first = python_c(code, "--store", str(group.root), *args)
        again = python_c(code, "--store", str(group.root), *args)
        assert again.stdout.partition("@@")[0] == first.stdout.partition("@@")[0]
        assert again.stdout.rpartition("@@ ")[2] == "0 []\n", (args, again.stdout, again.stderr)
    assert sys.modules["kistore.core.hashes"] is hashes
