"""store/trust/keys.json: roles, validity windows, revocation (kistore.trust)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from kistore.attest import signing
from kistore.attest.trust import (
    Trust,
    TrustedKey,
    add_key,
    format_time,
    load_trust,
    parse_time,
    revoke_key,
)
from kistore.core.errors import InputError, MultipleErrors
from kistore.core.layout import TRUST_FILE

from ..conftest import fixed_key

KEY = fixed_key(1).public_key()
KEYID = signing.keyid(KEY)
LINE = signing.public_key_line(KEY)
T = parse_time


def test_add_writes_a_reviewable_file_and_reads_back(store):
    entry = add_key(store.root, LINE + " ci@example", ["rerun"], valid_from=T("2026-01-01"),
                    valid_until=T("2027-01-01T00:00:00Z"), comment="CI rerun farm")
    data = (store.root / TRUST_FILE).read_bytes()
    assert json.loads(data) == {"keys": [{
        "keyid": KEYID, "publicKey": LINE, "roles": ["rerun"], "comment": "CI rerun farm",
        "validFrom": "2026-01-01T00:00:00Z", "validUntil": "2027-01-01T00:00:00Z"}]}
    assert data.endswith(b"\n") and b'\n  "keys": [' in data
    assert load_trust(store.view()).keys == {KEYID: entry}


def test_adding_again_merges_roles_and_keeps_the_window(store):
    add_key(store.root, LINE, ["rerun"], valid_until=T("2027-01-01"))
    entry = add_key(store.root, LINE, ["maintainer"])
    assert entry.roles == ("maintainer", "rerun")
    assert entry.valid_until == T("2027-01-01")


def test_role_and_window_are_judged_at_entry_time(store):
    add_key(store.root, LINE, ["rerun"], valid_from=T("2026-01-01"), valid_until=T("2027-01-01"))
    trust = load_trust(store.view())
    assert trust.judge(KEYID, "rerun", T("2026-06-01")) == (True, "")
    ok, reason = trust.judge(KEYID, "maintainer", T("2026-06-01"))
    assert ok is False and "trusted for rerun, not maintainer" in reason
    ok, reason = trust.judge(KEYID, "rerun", T("2025-12-31T23:59:59Z"))  # not yet trusted:
    assert ok is None and "trusted from 2026-01-01T00:00:00Z" in reason  # community
    ok, reason = trust.judge(KEYID, "rerun", T("2027-01-01"))
    assert ok is False and "expired at 2027-01-01T00:00:00Z" in reason
    ok, reason = trust.judge(signing.keyid(fixed_key(2).public_key()), "rerun", T("2026-06-01"))
    assert ok is None and "community" in reason


def test_revocation_counts_from_its_instant_not_from_the_wall_clock(store):
    add_key(store.root, LINE, ["rerun"])
    revoke_key(store.root, KEYID, at=T("2026-06-01"))
    trust = load_trust(store.view())
    assert trust.judge(KEYID, "rerun", T("2026-05-31T23:59:59Z")) == (True, "")
    ok, reason = trust.judge(KEYID, "rerun", T("2026-06-01"))
    assert ok is False and "revoked at 2026-06-01T00:00:00Z" in reason


def test_revoking_again_later_cannot_unrevoke_a_key(store):
    add_key(store.root, LINE, ["rerun"])
    revoke_key(store.root, KEYID, at=T("2026-06-01"))
    kept = revoke_key(store.root, KEYID, at=T("2030-01-01"))
    assert kept.revoked_at == T("2026-06-01")
    ok, reason = load_trust(store.view()).judge(KEYID, "rerun", T("2027-01-01"))
    assert ok is False and "revoked at 2026-06-01T00:00:00Z" in reason
    earlier = revoke_key(store.root, KEYID, at=T("2026-01-01"))
    assert earlier.revoked_at == T("2026-01-01")


def test_revoking_an_unknown_key_is_an_input_error(store):
    with pytest.raises(InputError, match="no key SHA256:nope in trust"):
        revoke_key(store.root, "SHA256:nope")


def test_keyid_that_is_not_the_fingerprint_is_refused():
    entry = {"keyid": signing.keyid(fixed_key(2).public_key()), "publicKey": LINE,
             "roles": ["rerun"]}
    with pytest.raises(MultipleErrors, match=r"/keys/0/keyid: keyid .* is not the fingerprint"):
        Trust.from_bytes(json.dumps({"keys": [entry]}).encode())


def test_same_key_listed_twice_is_refused():
    entry = {"keyid": KEYID, "publicKey": LINE, "roles": ["rerun"]}
    with pytest.raises(MultipleErrors, match="listed twice"):
        Trust.from_bytes(json.dumps({"keys": [entry, entry]}).encode())


def test_schema_violations_are_reported_with_pointers():
    entry = {"keyid": KEYID, "publicKey": LINE, "roles": ["admin"], "validUntil": "soon"}
    with pytest.raises(MultipleErrors) as info:
        Trust.from_bytes(json.dumps({"keys": [entry]}).encode())
    pointers = sorted(e.pointer for e in info.value.problems)
    assert pointers == ["/keys/0/roles/0", "/keys/0/validUntil"]


def test_bad_role_and_window_are_refused(store):
    with pytest.raises(InputError, match="role must be one of rerun, maintainer"):
        add_key(store.root, LINE, ["admin"])
    with pytest.raises(InputError, match="later than --valid-from"):
        add_key(store.root, LINE, ["rerun"], valid_from=T("2027-01-01"),
                valid_until=T("2026-01-01"))
    assert not (store.root / TRUST_FILE).exists()


def test_times_parse_and_format_as_rfc3339_utc():
    assert parse_time("2026-07-10") == datetime(2026, 7, 10, tzinfo=UTC)
    assert format_time(parse_time("2026-07-10T08:00:00+02:00")) == "2026-07-10T06:00:00Z"
    with pytest.raises(InputError, match="not an RFC 3339 date-time"):
        parse_time("next tuesday")


def test_a_time_past_year_9999_in_utc_is_refused_not_an_overflow():
    # RFC 3339 admits it (review r78 F10: check and verify said "internal error")
    assert format_time(parse_time("9999-12-31T23:59:59Z")) == "9999-12-31T23:59:59Z"
    for text in ("9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00"):
        with pytest.raises(InputError, match="outside the years 0001-9999 in UTC"):
            parse_time(text)


def test_no_trust_file_means_no_trusted_keys(store):
    assert load_trust(store.view()).keys == {}


def test_an_entry_in_the_second_a_key_was_revoked_counts_as_after_it():
    # A new-user attack: a notes commit backdated below its parent is judged at the
    # parent's time, 06:31:55 (commit dates have whole seconds), and passed a revocation
    # at 06:31:55.358: the key's holder made a run `verified` after its revocation.
    from kistore.attest.trust import TrustedKey

    revoked = datetime(2026, 11, 30, 6, 31, 55, 358168, tzinfo=UTC)
    key = TrustedKey("SHA256:x", "ssh-ed25519 AAAA", ("rerun",), revoked_at=revoked,
                     valid_until=revoked)
    assert key.judge("rerun", datetime(2026, 11, 30, 6, 31, 55, tzinfo=UTC)) == (
        "key SHA256:x was revoked at 2026-11-30T06:31:55.358168Z; the attestation entered "
        "the repository at 2026-11-30T06:31:55Z")
    assert key.judge("rerun", datetime(2026, 11, 30, 6, 31, 54, tzinfo=UTC)) is None


def test_an_attestation_in_the_second_its_key_was_added_counts_only_after_it_in_history():
    # A key without validFrom counts from the commit adding it (trust_history.dated): in
    # that commit's own second the clock ties, and history order decides.
    added, later, beside = "a" * 40, "b" * 40, "c" * 40
    descends = {(later, added)}
    key = TrustedKey(KEYID, LINE, ("rerun",), valid_from=T("2026-03-01T12:00:00Z"),
                     added_in=added)
    trust = Trust({KEYID: key}, follows=lambda c, a: (c, a) in descends)
    tie = T("2026-03-01T12:00:00Z")
    assert trust.judge(KEYID, "rerun", tie, entered_in=(later,)) == (True, "")
    for where in ((added,), (beside,), (later, beside), ()):  # in it, beside it, a note
        ok, reason = trust.judge(KEYID, "rerun", tie, entered_in=where)
        assert ok is None and reason.startswith(
            f"key {KEYID} is trusted from 2026-03-01T12:00:00Z, the time of commit {added}, "
            "which added it; the attestation entered the repository in that second, not "
            "after that commit in history ("), (where, reason)
    ok, reason = trust.judge(KEYID, "rerun", T("2026-03-01T11:59:59Z"), entered_in=(later,))
    assert ok is None and "before: a community attestation" in reason  # the clock says so
    assert trust.judge(KEYID, "rerun", T("2026-03-01T12:00:01Z")) == (True, "")  # a note too
    # no history to ask (a trust read without dated()): a tie is not after
    assert Trust({KEYID: key}).judge(KEYID, "rerun", tie, entered_in=(later,))[0] is None
    # a validFrom the file states is no commit's: the clock alone, validFrom <= T
    stated = TrustedKey(KEYID, LINE, ("rerun",), valid_from=tie)
    assert Trust({KEYID: stated}).judge(KEYID, "rerun", tie) == (True, "")


def test_a_key_only_the_work_tree_lists_counts_for_nothing_judged_now(store):
    # fresh96 L7: `attest --file` beside an uncommitted `trust add` was judged by two reads
    # of the clock 0.6 ms apart ("trusted from ...533108Z; entered at ...532491Z, before").
    # Whatever enters now enters before the commit that will trust the key: community,
    # whichever clock read comes first, with a reason that says so.
    from kistore.attest.trust_history import dated

    add_key(store.root, LINE, ["rerun"])  # no validFrom, not committed
    trust = dated(store, None, load_trust(store.view()))
    assert trust.keys[KEYID].uncommitted
    for when in (T("2000-01-01"), datetime.now(UTC), T("2999-01-01")):
        ok, reason = trust.judge(KEYID, "rerun", when)
        assert ok is None and reason == (
            f"key {KEYID} is listed in the work tree's {TRUST_FILE} but no commit adds it "
            "yet: it is trusted from the commit that does, and an attestation entering "
            "before that commit is a community attestation (commit the trust change first, "
            "then attest)")


def test_a_key_with_valid_from_only_the_work_tree_lists_counts_from_its_commit(store):
    # fresh16 F7: a new key's validFrom before now counted in the work tree's answers at
    # once, unreviewed, while an uncommitted widening of a committed key did not
    from kistore.attest.trust_here import trust_here

    from ..conftest import commit_all

    add_key(store.root, signing.public_key_line(fixed_key(2).public_key()), ["maintainer"])
    commit_all(store.root, "trust: another key")
    add_key(store.root, LINE, ["rerun"], valid_from=T("2026-01-01"))  # not committed
    key = trust_here(store).trust.keys[KEYID]
    assert (key.uncommitted, key.stated_from, key.valid_from) == (True, True, T("2026-01-01"))
    for when in (T("2026-06-01"), datetime.now(UTC)):
        assert trust_here(store).trust.judge(KEYID, "rerun", when) == (None, (
            f"key {KEYID} is listed in the work tree's {TRUST_FILE} with validFrom "
            "2026-01-01T00:00:00Z, but no commit adds it yet: a community attestation "
            "until the commit that does, which makes what the key signed that entered "
            "since its validFrom count (`kistore check` warns of it, KI442; commit the "
            "trust change first, then attest)"))
    ok, reason = trust_here(store).trust.judge(KEYID, "maintainer", T("2026-06-01"))
    assert (ok, reason) == (False, f"key {KEYID} is trusted for rerun, not maintainer")
    ok, reason = trust_here(store).trust.judge(KEYID, "rerun", T("2025-06-01"))
    assert ok is None and "is trusted from 2026-01-01T00:00:00Z" in reason  # as before
    commit_all(store.root, "trust")
    assert trust_here(store).trust.judge(KEYID, "rerun", T("2026-06-01")) == (True, "")
