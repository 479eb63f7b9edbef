"""A key trusted without ``validFrom`` given a past one later, over what it signed before (KI435).

A key without ``validFrom`` counts from its start, the commit that first lists it. fresh14
F10: two reviewed pull requests, each passing alone (a key trusted, no ``validFrom``; then
``kistore trust add KEY --valid-from 2026-01-01`` of the trusted key), made a withdrawal
that entered before the key was trusted withdraw its run after the fact: the server said
KI413/KI427 info only, while the same move of an explicit ``validFrom`` was refused
(KI435). ``check``, the server's ``pre-receive`` and ``trust add`` now refuse it. Each test
pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from kistore.attest import notes
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git, next_second
from ..prs import Remote
from .test_evidence_every_commit import edit_trust
from .test_history_names import add_group
from .test_history_trust_effects import MAINTAINER_ID, ranked_names, trust_maintainer
from .test_trust_entry_backdated import _date, _effects
from .test_trust_widened_bypasses import refused_by_the_server

pytestmark = pytest.mark.usefixtures("extra_keys_kept")

EARLY = "2026-01-01T00:00:00Z"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _withdrawn_untrusted(remote: Remote, kit, how: str) -> tuple[str, str]:
    """Land: a group; a withdrawal of ``fast`` by the untrusted maintainer key (an
    attestation file in its own pull request, or a note). Return the withdrawal's location
    and its entry time."""
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    fast = Digest.from_str(digests["fast"])
    next_second(remote.clone)
    if how == "file":
        assert remote.pr("pre-trust withdrawal file", lambda c: notes.attach(
            Store(c), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast),
            as_file=True)).accepted
        [location] = git(remote.clone, "diff", "--name-only", "HEAD~1", "HEAD").split()
        entered = _date(dt.datetime.fromtimestamp(
            int(git(remote.clone, "log", "-1", "--format=%ct").strip()), dt.UTC))
    else:
        notes.attach(Store(remote.clone), fast,
                     bundle(MAINTAINER_KEY, "withdrawal", subject=fast))
        assert remote.push("refs/notes/kistore").accepted
        [line] = git(remote.clone, "notes", "--ref=kistore", "list").splitlines()
        location = f"refs/notes/kistore:{line.split()[1]}"
        entered = _date(dt.datetime.fromtimestamp(int(git(
            remote.clone, "log", "-1", "--format=%ct", "refs/notes/kistore").strip()), dt.UTC))
    next_second(remote.clone)  # the trust commit a second after the withdrawal entered
    return location, entered


def _trusted_after_withdrawal(remote: Remote, kit, how: str) -> tuple[str, str, str]:
    """:func:`_withdrawn_untrusted`, then the key trusted without ``validFrom``. Return the
    withdrawal's location, its entry time and the key's start."""
    location, entered = _withdrawn_untrusted(remote, kit, how)
    pushed = remote.pr("trust the maintainer key", trust_maintainer(remote))
    assert pushed.accepted, pushed.output
    start = _date(dt.datetime.fromtimestamp(
        int(git(remote.clone, "log", "-1", "--format=%ct").strip()), dt.UTC))
    assert entered < start
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    assert _effects(remote, "fast") == ["community"]
    return location, entered, start


def _widened(start: str, location: str, entered: str) -> str:
    return (f"(validFrom none (from when it entered the trust file, {start}, its commit's "
            f"date) -> {EARLY}): its withdrawal at {location} entered the repository at "
            f"{entered}, before the key's start, when it entered the trust file, a community "
            "attestation then, would count")


@pytest.mark.parametrize("how", ["file", "note"])
def test_a_past_validfrom_given_to_a_key_trusted_without_one_is_refused(remote, kit, how):
    location, entered, start = _trusted_after_withdrawal(remote, kit, how)
    base = remote.main()
    # `kistore trust add` of the trusted key with a past --valid-from: on BASE 08d9480b
    # written, exit 0 ("trusted ...")
    done = remote.kistore("trust", "add", str(remote.clone.parent / "maintainer.pub"),
                          "--role", "maintainer", "--valid-from", EARLY, check=False)
    assert (done.returncode, done.stdout) == (1, "")
    held = "roles maintainer; validFrom none; validUntil none"
    assert done.stderr == (
        f"error: key {MAINTAINER_ID}: not changed: its entry as HEAD holds it ({held}) "
        f"would become (roles maintainer; validFrom {EARLY}; validUntil none), which widens "
        f"it into the past {_widened(start, location, entered)}; trust is not retroactive, "
        "and `kistore check` refuses such a change (KI435): what the key signed before it "
        "counted entered as a community attestation and stays one; to make it count, its "
        "signer attests again once the key is trusted (the new attestation enters then); "
        "keep the key's validFrom as it is (leave --valid-from out, or give one no "
        "earlier); nothing was written\n")
    assert git(remote.clone, "status", "--porcelain") == ""
    # the same change by hand: `check BASE..HEAD` and the server's pre-receive refuse it
    # (on BASE 08d9480b: KI413/KI427 info, accepted, and `fast` left the ranking)
    edit_trust(lambda d: d["keys"][0].update(validFrom=EARLY))(remote.clone)
    git(remote.clone, "commit", "-qam", "validFrom earlier")
    commit = git(remote.clone, "rev-parse", "HEAD").strip()
    said = (f"commit {commit[:12]} widens the entry of key {MAINTAINER_ID} in the trust "
            f"file into the past {_widened(start, location, entered)}; trust is not "
            "retroactive")
    done = remote.kistore("check", f"{base}..HEAD", "--json", check=False)
    [finding] = [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]
    assert (finding["rule"], finding["file"], finding["pointer"], finding["message"]) == (
        "KI435", "store/trust/keys.json", "/keys/0", said)
    assert finding["extra"] == {
        "commit": commit, "keyid": MAINTAINER_ID, "validFrom": start, "from": EARLY,
        "location": location, "enteredAt": entered, "count": 1}
    refused_by_the_server(remote, base, said)
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    assert _effects(remote, "fast") == ["community"]


def test_a_past_validfrom_over_nothing_signed_before_is_accepted(remote, kit):
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    assert remote.pr("trust the maintainer key", trust_maintainer(remote)).accepted
    next_second(remote.clone)
    pushed = remote.pr("validFrom earlier", trust_maintainer(remote, "--valid-from", EARLY))
    assert pushed.accepted, pushed.output
    assert "KI435" not in pushed.output


@pytest.mark.parametrize("how", ["file", "note"])
def test_a_new_key_trusted_from_before_what_it_signed_untrusted_is_a_warning(remote, kit, how):
    # fresh14 F8: on BASE 08d9480b accepted with KI413/KI414 info only (0 warnings)
    location, entered = _withdrawn_untrusted(remote, kit, how)
    pushed = remote.pr("trust the maintainer key",
                       trust_maintainer(remote, "--valid-from", EARLY))
    assert pushed.accepted, pushed.output
    commit = remote.main()
    start = _date(dt.datetime.fromtimestamp(
        int(git(remote.clone, "log", "-1", "--format=%ct").strip()), dt.UTC))
    assert entered < start
    assert ("remote: store/trust/keys.json:/keys/0: warning KI442 pre-trust-attestation-counts: "
            f"commit {commit[:12]} trusts key {MAINTAINER_ID} anew from before it (validFrom "
            f"{EARLY}; the commit's time {start}): its withdrawal at {location} entered the "
            f"repository at {entered}, before the key was trusted, a community attestation "
            "then, counts from this commit: what the key signed while nobody trusted it takes "
            "effect when the trust lands") in pushed.output
    assert "remote: ok: 1 ref update(s): 0 errors, 1 warning, 4 info" in pushed.output
    assert _effects(remote, "fast") == ["withdraws"]
    # `check BASE..HEAD` says it too, with its fix
    done = remote.kistore("check", f"{commit}~1..{commit}", "--json", check=False)
    [finding] = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI442"]
    assert (finding["severity"], finding["extra"]) == ("warning", {
        "commit": commit, "keyid": MAINTAINER_ID, "validFrom": EARLY, "location": location,
        "enteredAt": entered, "count": 1})
    assert finding["hint"] == (
        "review it: a past validFrom makes what the key signed before it was trusted count; "
        "if its holder signed that and it should take effect, say so in the pull request "
        "and keep it; otherwise give the key a validFrom after that attestation entered, or "
        "none (the key then counts from the commit that trusts it), and have its signer "
        "attest again once the key is trusted")


def test_a_new_key_trusted_from_before_it_over_nothing_signed_has_no_warning(remote, kit):
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    pushed = remote.pr("trust the maintainer key",
                       trust_maintainer(remote, "--valid-from", EARLY))
    assert pushed.accepted, pushed.output
    assert "KI442" not in pushed.output
