"""Names as paths (issue 22): ``store/names/<Kind>/<XX>/<name>`` and its one-line record."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.core import comparison, layout
from kistore.core.digest import Digest
from kistore.core.model import REFERENCE_FIELDS
from kistore.core.schema import KINDS

RUN_NAME = "sol-submission-20464"


def test_name_path_is_kind_then_first_byte_of_the_name_sha256_then_the_name():
    # sha256(b"sol-submission-20464") starts with 0xdf (computed here with hashlib, and
    # written out so a change of hash or encoding shows)
    assert hashlib.sha256(RUN_NAME.encode("utf-8")).hexdigest()[:2] == "df"
    assert layout.name_path("BenchmarkRun", RUN_NAME) == \
        "store/names/BenchmarkRun/df/sol-submission-20464"
    assert layout.name_path("BenchmarkProtocol", "sol-execbench-leaderboard-v1-1") == \
        "store/names/BenchmarkProtocol/43/sol-execbench-leaderboard-v1-1"
    assert hashlib.sha256(b"sol-execbench-leaderboard-v1-1").hexdigest()[:2] == "43"
    assert layout.name_path("Workload", "a") == \
        f"store/names/Workload/{hashlib.sha256(b'a').hexdigest()[:2]}/a"


def test_name_from_path_reads_back_only_what_name_path_writes():
    assert layout.name_from_path("store/names/BenchmarkRun/df/sol-submission-20464") == \
        ("BenchmarkRun", RUN_NAME)
    wrong = [
        "store/names/BenchmarkRun/00/sol-submission-20464",      # another shard
        "store/names/BenchmarkRun/DF/sol-submission-20464",      # upper-case shard
        "store/names/BenchmarkRun/sol-submission-20464",         # no shard
        "store/names/BenchmarkRun/df/sol-submission-20464/x",    # a level too deep
        "store/names/benchmarkRun/df/sol-submission-20464",      # not a kind's spelling
        "store/names/BenchmarkRun/df/Sol-submission-20464",      # not a name (upper case)
        "store/names/BenchmarkRun/df/sol-submission-20464.",     # ends with a dot
        "store/objects/sha256/df/sol-submission-20464",          # not under store/names
        "store/names/BenchmarkRun/df/",
    ]
    for path in wrong:
        assert layout.name_from_path(path) is None, path
    bad_name = "-x"
    assert layout.name_from_path(
        f"store/names/Workload/{layout.name_shard(bad_name)}/{bad_name}") is None


def test_name_path_refuses_what_cannot_be_a_path_component():
    for kind, name in [("BenchmarkRun", "a/b"), ("BenchmarkRun", ".."), ("BenchmarkRun", ""),
                       ("BenchmarkRun", "x" * 254), ("../x", "a"), ("BenchmarkRun", "a\n")]:
        try:
            layout.name_path(kind, name)
        except ValueError:
            continue
        raise AssertionError(f"{kind!r} {name!r} gave a path")
    assert layout.name_path("BenchmarkRun", "x" * 253).endswith("/" + "x" * 253)


def test_a_names_file_holds_the_digest_and_one_newline_nothing_else():
    digest = Digest("ab" * 32)
    record = layout.name_record(digest)
    assert record == b"sha256:" + b"ab" * 32 + b"\n"
    assert len(record) == 72
    assert layout.digest_from_record(record) == digest
    for tampered in [record[:-1], record + b"\n", record[:-1] + b"\r\n", b" " + record,
                     record.upper(), b"sha256:" + b"ab" * 31 + b"\n", record + b"x",
                     b"sha512:" + b"ab" * 32 + b"\n", b""]:
        assert layout.digest_from_record(tampered) is None, tampered


NAMES = st.from_regex(re.compile(r"[a-z0-9]([a-z0-9.-]{0,40}[a-z0-9])?"), fullmatch=True)


@given(kind=st.sampled_from(KINDS), name=NAMES)
def test_every_name_round_trips_through_its_path(kind, name):
    path = layout.name_path(kind, name)
    assert layout.name_from_path(path) == (kind, name)
    shard = hashlib.sha256(name.encode()).hexdigest()[:2]
    assert path == f"store/names/{kind}/{shard}/{name}"
    assert layout.is_name(name)


# -- forward references as paths (issue 22) ------------------------------------------------

_D = Digest("0a" + "1" * 62)
_R = Digest("ff" * 32)


def test_forward_path_by_hand():
    """store/forward/sha256/<first 2 hex of D>/<other 62 of D>/<64 hex of R>."""
    assert layout.forward_path(_D, _R) == (
        "store/forward/sha256/0a/" + "1" * 62 + "/" + "ff" * 32)
    assert layout.forward_dir(_D) == "store/forward/sha256/0a/" + "1" * 62
    assert layout.forward_from_path(layout.forward_path(_D, _R)) == (_D, _R)


@pytest.mark.parametrize("path", [
    "store/forward/sha256/0a/" + "1" * 62,  # the directory, not a record
    "store/forward/sha256/0a/" + "1" * 62 + "/" + "FF" * 32,  # upper case
    "store/forward/sha256/0a/" + "1" * 62 + "/" + "ff" * 31,  # short
    "store/forward/sha256/0a/" + "1" * 61 + "/" + "ff" * 32,
    "store/forward/sha256/0a/" + "1" * 62 + "/" + "ff" * 32 + ".json",
    "store/forward/sha256/0a/" + "1" * 62 + "/" + "ff" * 32 + "/x",
    "store/forward/0a/" + "1" * 62 + "/" + "ff" * 32,
])
def test_forward_from_path_refuses_other_paths(path):
    assert layout.forward_from_path(path) is None


def test_forward_record_bytes_by_hand():
    assert layout.forward_record(["workloadDigest"]) == b"workloadDigest\n"
    assert layout.forward_record(["workloadDigest", "environmentDigest"]) == \
        b"environmentDigest\nworkloadDigest\n"
    assert layout.fields_from_record(b"environmentDigest\nworkloadDigest\n") == (
        "environmentDigest", "workloadDigest")
    with pytest.raises(ValueError):
        layout.forward_record([])
    with pytest.raises(ValueError):
        layout.forward_record(["spec"])


@pytest.mark.parametrize("data", [
    b"", b"\n", b"workloadDigest", b"workloadDigest\r\n", b"workloadDigest\n\n",
    b"workloadDigest\nenvironmentDigest\n",  # not sorted
    b"workloadDigest\nworkloadDigest\n",  # twice
    b"name\n", b"\xffworkloadDigest\n", b" workloadDigest\n",
])
def test_forward_record_refuses_other_bytes(data):
    assert layout.fields_from_record(data) is None


def test_reference_field_names_are_the_models():
    assert layout.REFERENCE_FIELD_NAMES == REFERENCE_FIELDS


def _digest_from_path_by_parts(path: str) -> Digest | None:
    """The former ``digest_from_path`` (prefix, partition, suffix, then the digest grammar):
    the oracle its one regular expression must agree with."""
    for base in (layout.OBJECTS_DIR, layout.METADATA_DIR):
        if path.startswith(base + "/"):
            shard, _, leaf = path[len(base) + 1:].partition("/")
            if len(shard) == 2 and leaf.endswith(".json") and "/" not in leaf:
                text = "sha256:" + shard + leaf[:-len(".json")]
                return Digest.from_str(text) if re.fullmatch(
                    r"sha256:[0-9a-f]{64}", text) else None
    return None


_PATH_PARTS = st.sampled_from(["store", "objects", "metadata", "sha256", "names", "", "38",
                               "3", "ab", "AB", ".json", "json", "/", "x", "\n", "é",
                               "a" * 62, "0" * 62, "f" * 61, "F" * 62])


@given(st.lists(_PATH_PARTS, max_size=9).map("".join) | st.builds(
    lambda d, base, edit: edit(f"{base}/{d.hex[:2]}/{d.hex[2:]}.json"),
    st.binary(min_size=1).map(Digest.of),
    st.sampled_from([layout.OBJECTS_DIR, layout.METADATA_DIR, "store/names/sha256"]),
    st.sampled_from([lambda p: p, lambda p: p + "\n", lambda p: p.upper(), lambda p: "/" + p,
                     lambda p: p.replace(".json", ".jso"), lambda p: p[:-6] + p[-5:]])))
def test_digest_from_path_agrees_with_its_former_piecewise_form(path):
    assert layout.digest_from_path(path) == _digest_from_path_by_parts(path)


def test_digest_from_path_reads_both_manifest_files_and_nothing_else():
    d = Digest.of(b"x")  # sha256("x") = 2d711642...
    assert d.hex.startswith("2d711642")
    assert layout.digest_from_path(f"store/objects/sha256/2d/{d.hex[2:]}.json") == d
    assert layout.digest_from_path(f"store/metadata/sha256/2d/{d.hex[2:]}.json") == d
    rest = d.hex[2:]
    for bad in (f"store/objects/sha256/2d/{rest}.json\n", f"store/objects/sha256/2d{rest}.json",
                f"store/objects/sha256/2D/{rest}.json", f"./store/objects/sha256/2d/{rest}.json",
                f"store/names/sha256/2d/{rest}.json", f"store/objects/sha256/2d/{rest}"):
        assert layout.digest_from_path(bad) is None


# -- comparison groups as paths (issue 22) ------------------------------------------------

_KEY_OBJECT = {"family": "sol-execbench", "hardwareProduct": "NVIDIA B200",
               "primaryStatistic": "mean",
               "protocolDigest": "sha256:" + "1" * 64, "workloadDigest": "sha256:" + "2" * 64}
_KEY_BYTES = (b'{"family":"sol-execbench","hardwareProduct":"NVIDIA B200",'
              b'"primaryStatistic":"mean","protocolDigest":"sha256:' + b"1" * 64 +
              b'","workloadDigest":"sha256:' + b"2" * 64 + b'"}')
"""The key object's RFC 8785 bytes, written out by hand: keys sorted, no spaces."""


def test_group_record_is_the_key_objects_canonical_bytes_and_hashes_to_the_key():
    assert layout.group_record(_KEY_OBJECT) == _KEY_BYTES
    key = hashlib.sha256(_KEY_BYTES).hexdigest()
    assert comparison.comparison_key(_KEY_OBJECT) == Digest(key)
    # a protocol that narrows the key (keyFields): fewer fields, another group
    narrow = {"family": "f", "workloadDigest": "sha256:" + "2" * 64}
    assert layout.group_record(narrow) == \
        b'{"family":"f","workloadDigest":"sha256:' + b"2" * 64 + b'"}'
    # a character beyond ASCII is itself in UTF-8, never escaped
    assert layout.group_record({"hardwareProduct": "GPU é"}) == \
        '{"hardwareProduct":"GPU é"}'.encode()


def test_group_path_by_hand():
    """store/groups/sha256/<first 2 hex of K>/<other 62 of K>/<64 hex of R>."""
    key = Digest(hashlib.sha256(_KEY_BYTES).hexdigest())
    assert layout.group_dir(key) == f"store/groups/sha256/{key.hex[:2]}/{key.hex[2:]}"
    assert layout.group_path(_D, _R) == "store/groups/sha256/0a/" + "1" * 62 + "/" + "ff" * 32
    assert layout.group_dir(_D) == "store/groups/sha256/0a/" + "1" * 62
    assert layout.group_from_path(layout.group_path(_D, _R)) == (_D, _R)
    assert layout.group_from_path(layout.group_path(key, _R)) == (key, _R)


@pytest.mark.parametrize("path", [
    "store/groups/sha256/0a/" + "1" * 62,  # the directory, not a member
    "store/groups/sha256/0a/" + "1" * 62 + "/" + "FF" * 32,  # upper case
    "store/groups/sha256/0a/" + "1" * 62 + "/" + "ff" * 31,  # short
    "store/groups/sha256/0a/" + "1" * 61 + "/" + "ff" * 32,
    "store/groups/sha256/0A/" + "1" * 62 + "/" + "ff" * 32,
    "store/groups/sha256/0a/" + "1" * 62 + "/" + "ff" * 32 + ".json",
    "store/groups/sha256/0a/" + "1" * 62 + "/" + "ff" * 32 + "/x",
    "store/groups/0a/" + "1" * 62 + "/" + "ff" * 32,
    "store/forward/sha256/0a/" + "1" * 62 + "/" + "ff" * 32,
])
def test_group_from_path_refuses_other_paths(path):
    assert layout.group_from_path(path) is None


def test_stored_spec_counts_only_an_untampered_object_of_the_kind():
    doc = b'{"apiVersion":"kistore/v1","kind":"BenchmarkProtocol","spec":{"a":1}}'
    hex_ = hashlib.sha256(doc).hexdigest()
    assert comparison.stored_spec(doc, hex_, "BenchmarkProtocol") == {"a": 1}
    assert comparison.stored_spec(doc, hex_, "ExecutionEnvironment") is None  # other kind
    assert comparison.stored_spec(doc, "0" * 64, "BenchmarkProtocol") is None  # tampered
    assert comparison.stored_spec(None, hex_, "BenchmarkProtocol") is None
    bad = b'{"kind":"BenchmarkProtocol","spec":[]}'
    assert comparison.stored_spec(bad, hashlib.sha256(bad).hexdigest(),
                                  "BenchmarkProtocol") is None


def test_run_key_object_from_references():
    protocol = {"comparability": {"family": "sol-execbench"},
                "measurement": {"primaryStatistic": "mean"}}
    environment = {"hardware": {"product": "NVIDIA B200"}}
    refs = {"workloadDigest": "sha256:" + "2" * 64, "protocolDigest": "sha256:" + "1" * 64,
            "environmentDigest": "sha256:" + "3" * 64}
    assert comparison.run_key_object(refs, protocol, environment) == _KEY_OBJECT
    assert comparison.run_key_object(refs, protocol, None) is None  # hardware unknown
    assert comparison.run_key_object(refs, None, environment) is None
    narrow = {**protocol, "comparability": {"family": "sol-execbench",
                                            "keyFields": ["family", "workloadDigest"]}}
    assert comparison.run_key_object(refs, narrow, None) == {
        "family": "sol-execbench", "workloadDigest": "sha256:" + "2" * 64}
    assert comparison.run_key_object(refs, {"comparability": []}, environment) is None


def test_attestation_dir_is_the_subjects_digest_split_2_62():
    subject = Digest("38" + "4a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6")
    assert layout.attestation_dir(subject) == (
        "store/attestations/sha256/38/4a96d0ed68745873c797f08184670795010f215daabb29f4d68b6975"
        "7854f6")
    name = "ab" * 32
    assert layout.is_attestation_path(f"{layout.attestation_dir(subject)}/{name}.json")
