"""KI427 for a trusted key whose window a range widens (review r80 F3).

KI427 named a key newly trusted, or trusted for a new role. Re-validating an expired
maintainer key (``validUntil`` removed, or moved from 2026 to 2030) or moving its
``validFrom`` back to 1970 got 0 findings, though from the next pull request on a
withdrawal signed with it counts, as with a new key ("trust is not retroactive"). Each
test commits BASE's trust file (the key trusted 2025-01-01 to 2026-01-01, expired today)
and then one edit of it, and runs the gate with the query layer's checkers, as ``kistore
check`` does.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.attest.trust import TrustedKey, parse_time
from kistore.check.gate import check_range
from kistore.core.layout import TRUST_FILE
from kistore.query import impact

from ..conftest import commit_all
from .test_history_trust_effects import MAINTAINER_ID, MAINTAINER_PUB

BASE_ENTRY = {"keyid": MAINTAINER_ID, "publicKey": MAINTAINER_PUB, "roles": ["maintainer"],
              "validFrom": "2025-01-01T00:00:00Z", "validUntil": "2026-01-01T00:00:00Z"}


def write_trust(store, entry: dict) -> str:
    path = store.root / TRUST_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"keys": [entry]}, indent=2) + "\n")
    return commit_all(store.root, "trust")


def gate(store, entry: dict):
    """Commit BASE's entry, then ``entry``; return the gate's KI427 findings."""
    base = write_trust(store, BASE_ENTRY)
    head = write_trust(store, entry)
    found = check_range(store, f"{base}..{head}", checkers=[impact.trust_and_policy_effects])
    return [f for f in found if f.rule.id == "KI427"], found


def edited(**changes) -> dict:
    entry = {**BASE_ENTRY, **changes}
    return {k: v for k, v in entry.items() if v is not None}


VALIDITY = "valid from {} (what it signed since then counts), {}"


@pytest.mark.parametrize("entry, widened, validity", [
    (edited(validUntil=None), "validUntil 2026-01-01T00:00:00Z -> none",
     VALIDITY.format("2025-01-01T00:00:00Z", "no expiry")),
    (edited(validUntil="2030-01-01T00:00:00Z"),
     "validUntil 2026-01-01T00:00:00Z -> 2030-01-01T00:00:00Z",
     VALIDITY.format("2025-01-01T00:00:00Z", "until 2030-01-01T00:00:00Z")),
    (edited(validFrom="1970-01-01T00:00:00Z"),
     "validFrom 2025-01-01T00:00:00Z -> 1970-01-01T00:00:00Z",
     VALIDITY.format("1970-01-01T00:00:00Z", "until 2026-01-01T00:00:00Z")),
], ids=["until-removed", "until-later", "from-earlier"])
def test_a_widened_window_is_listed_like_a_new_key(record_store, entry, widened, validity):
    [finding], found = gate(record_store, entry)
    assert finding.message == (f"the range widens when key {MAINTAINER_ID} counts for "
                               f"maintainer ({widened}): {validity}")
    assert finding.rule.severity == "info"
    assert (finding.file, finding.pointer) == (TRUST_FILE, "/keys/0")
    assert finding.extra["roles"] == ["maintainer"]
    assert finding.extra["widened"] == [widened.split()[0]]
    assert [f.rule.severity for f in found if f.rule.severity == "error"] == []


def test_both_ends_widened_and_a_role_added_make_one_finding(record_store):
    [finding], _ = gate(record_store, edited(
        validFrom="2024-01-01T00:00:00Z", validUntil="2027-01-01T00:00:00Z",
        roles=["maintainer", "rerun"]))
    assert finding.message == (
        f"the range trusts key {MAINTAINER_ID} for rerun too (already maintainer), from "
        "the key's start, not from this change (roles are not dated): what it signed since "
        "then counts for rerun (validUntil 2026-01-01T00:00:00Z -> 2027-01-01T00:00:00Z; validFrom "
        "2025-01-01T00:00:00Z -> 2024-01-01T00:00:00Z): "
        + VALIDITY.format("2024-01-01T00:00:00Z", "until 2027-01-01T00:00:00Z"))
    assert finding.extra["roles"] == ["rerun"]
    assert finding.extra["widened"] == ["validFrom", "validUntil"]


@pytest.mark.parametrize("entry", [
    edited(validUntil="2025-06-01T00:00:00Z"),   # expires earlier
    edited(validFrom="2025-03-01T00:00:00Z"),    # starts later
    edited(comment="the maintainer"),            # no time or role added
    # removed: the key counts from when it entered the trust file (BASE's commit, today),
    # later than 2025: a narrowing (KI410), no widening (fresh06 H1; KI427 said one)
    edited(validFrom=None),
], ids=["until-earlier", "from-later", "comment", "from-removed"])
def test_a_window_narrowed_or_kept_says_nothing(record_store, entry):
    assert gate(record_store, entry)[0] == []


def test_widened_compares_each_end():
    key = TrustedKey(MAINTAINER_ID, MAINTAINER_PUB, ("maintainer",),
                     valid_from=parse_time("2025-01-01"), valid_until=parse_time("2026-01-01"))
    assert impact.widened(key, key) == {}
    no_start = TrustedKey(MAINTAINER_ID, MAINTAINER_PUB, ("maintainer",))
    assert impact.widened(no_start, key) == {}  # a validFrom set where there was none
    assert sorted(impact.widened(key, no_start)) == ["validFrom", "validUntil"]


YEARS = st.none() | st.integers(2020, 2030).map(lambda y: datetime(y, 1, 1, tzinfo=UTC))
PROBES = [datetime(y, m, 1, tzinfo=UTC) for y in range(2019, 2032) for m in (1, 7)]


def valid(key: TrustedKey, when: datetime) -> bool:
    """The window alone: from ``validFrom`` (None: always) until before ``validUntil``."""
    return ((key.valid_from is None or when >= key.valid_from)
            and (key.valid_until is None or when < key.valid_until))


@given(YEARS, YEARS, YEARS, YEARS)
def test_widened_says_so_exactly_when_the_key_counts_at_a_new_time(from0, until0, from1, until1):
    before, after = (TrustedKey(MAINTAINER_ID, MAINTAINER_PUB, ("maintainer",),
                                valid_from=f, valid_until=u)
                     for f, u in ((from0, until0), (from1, until1)))
    new_time = any(valid(after, t) and not valid(before, t) for t in PROBES)
    assert bool(impact.widened(before, after)) == new_time
