"""fresh04 M2: ``trust add`` refuses the narrowing of a listed key's entry the gate refuses.

``kistore trust add KEY --role maintainer --valid-until PAST`` of a key HEAD already
trusts wrote the narrowing, exit 0, and ``kistore check`` then refused the commit (KI410).
It is refused before anything is written, with the entry HEAD holds, the one asked for,
and ``kistore trust revoke KEY`` (fresh06 M3: not ``--at`` an earlier time); what the gate
allows stays allowed (a new key with a past validUntil, a validUntil after now), judged by
the gate's own function.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from kistore.attest import signing
from kistore.attest.trust import add_key, parse_time
from kistore.cli import main

from ..conftest import commit_all, fixed_key

KEY, OTHER = fixed_key(2), fixed_key(3)
KEYID = signing.keyid(KEY.public_key())
TRUST = "store/trust/keys.json"


def line(key) -> str:
    return signing.public_key_line(key.public_key())


def when(hours: float) -> str:
    """An instant ``hours`` from now (UTC, whole seconds), as `trust add` takes it."""
    then = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=hours)
    return then.strftime("%Y-%m-%dT%H:%M:%SZ")


def trust_add(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), "trust", "add", *args])


def committed(runner, store_path, *args) -> None:
    assert trust_add(runner, store_path, *args).exit_code == 0
    commit_all(store_path, "trust")


def test_a_past_valid_until_on_a_trusted_key_is_refused(runner, record_store, store_path):
    committed(runner, store_path, line(KEY), "--role", "maintainer")
    before = (store_path / TRUST).read_bytes()
    past = when(-1)
    refused = trust_add(runner, store_path, line(KEY), "--role", "maintainer",
                        "--valid-until", past)
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"error: key {KEYID}: not changed: its entry as HEAD holds it (roles maintainer; "
        f"validFrom none; validUntil none) would become (roles maintainer; validFrom none; "
        f"validUntil {past}), which narrows it (validUntil none -> {past}, before the "
        "change); a key's trust is never narrowed after the fact (what it signed and "
        "entered before would stop counting), and `kistore check` refuses such a change "
        f"(KI410). To end the key's trust, revoke it: `kistore trust revoke {KEYID}` "
        "(nothing it signs from now on counts, and what it signed that entered before stays "
        "counted; a revocation is kept for good, KI412; `--at` an earlier time reaches back "
        "and un-counts what entered since, a withdrawal included: for a leaked key, and "
        "`kistore check` warns of each, KI413); nothing was written\n")
    # fresh06 M3: it said `--at PAST`, an earlier time, as the way around the narrowing
    assert (store_path / TRUST).read_bytes() == before
    # a planned expiry narrows nothing, as for the gate
    future = when(24 * 30)
    allowed = trust_add(runner, store_path, line(KEY), "--role", "maintainer",
                        "--valid-until", future)
    assert (allowed.exit_code, allowed.stdout) == (0, f"trusted {KEYID} for maintainer\n")


def test_a_later_valid_from_on_a_trusted_key_is_refused(runner, record_store, store_path):
    committed(runner, store_path, line(KEY), "--role", "rerun", "--valid-from", "2026-01-01")
    refused = trust_add(runner, store_path, line(KEY), "--role", "rerun", "--valid-from",
                        "2026-03-01")
    assert refused.exit_code == 1
    assert refused.stderr.startswith(
        f"error: key {KEYID}: not changed: its entry as HEAD holds it (roles rerun; validFrom "
        "2026-01-01T00:00:00Z; validUntil none) would become (roles rerun; validFrom "
        "2026-03-01T00:00:00Z; validUntil none), which narrows it (validFrom "
        "2026-01-01T00:00:00Z -> 2026-03-01T00:00:00Z); ")
    assert f"`kistore trust revoke {KEYID}` (nothing it signs from now on counts" in \
        refused.stderr  # from now, not `--at TIME` (fresh06 M3)


def test_a_new_key_with_a_past_valid_until_is_allowed(runner, record_store, store_path):
    past = when(-1)
    added = trust_add(runner, store_path, line(KEY), "--role", "maintainer", "--valid-until",
                      past)
    assert added.exit_code == 0, added.output
    again = trust_add(runner, store_path, line(KEY), "--role", "rerun", "--valid-until",
                      when(-2))  # not committed yet: HEAD lists no entry to narrow
    assert again.exit_code == 0, again.output


def test_a_file_of_keys_one_narrowing_writes_none(runner, record_store, store_path, tmp_path):
    committed(runner, store_path, line(KEY), "--role", "maintainer")
    before = (store_path / TRUST).read_bytes()
    keys = tmp_path / "keys"
    keys.write_text(f"{line(OTHER)}\n{line(KEY)}\n")
    refused = trust_add(runner, store_path, str(keys), "--role", "maintainer",
                        "--valid-until", when(-1))
    assert refused.exit_code == 1
    assert refused.stderr.startswith(f"error: key {KEYID} ({keys}:2): not changed: ")
    assert (store_path / TRUST).read_bytes() == before


@pytest.mark.parametrize("first, then, narrows", [
    ({}, {"valid_until": -1}, True),
    ({}, {"valid_until": 24 * 30}, False),
    ({"valid_from": "2026-01-01"}, {"valid_from": "2026-03-01"}, True),
    ({"valid_from": "2026-03-01"}, {"valid_from": "2026-01-01"}, False),
    ({"valid_until": 24 * 60}, {"valid_until": 24 * 30}, False),
    ({"valid_until": 24 * 60}, {"valid_until": -1}, True),
], ids=["past-until", "future-until", "later-from", "earlier-from", "until-earlier-future",
        "until-earlier-past"])
def test_trust_add_refuses_exactly_what_the_gate_refuses(runner, record_store, store_path,
                                                          first, then, narrows):
    def window(spec: dict) -> list[str]:
        return [arg for name, value in spec.items() for arg in (
            f"--{name.replace('_', '-')}", when(value) if isinstance(value, int) else value)]

    committed(runner, store_path, line(KEY), "--role", "maintainer", *window(first))
    base = str(record_store.repo.head.target)
    asked = window(then)
    refused = trust_add(runner, store_path, line(KEY), "--role", "maintainer", *asked)
    assert refused.exit_code == (1 if narrows else 0), refused.output
    add_key(store_path, line(KEY), ["maintainer"],  # the same change, past the CLI's test
            **{name: parse_time(value) for name, value in zip(then, asked[1::2], strict=True)})
    commit_all(store_path, "the change")
    gate = runner.invoke(main, ["--store", str(store_path), "check", f"{base}..HEAD",
                                "--json"])
    ki410 = [f for f in json.loads(gate.stdout)["findings"] if f["rule"] == "KI410"]
    assert bool(ki410) == narrows, ki410  # the gate says the same of the change
