"""Trust widened into the past in landed history: ``verify`` (KI435, KI442), ``trust add``.

trust02 left: ``check BASE..HEAD`` and the server's ``pre-receive`` judge KI435 (a key's
start moved earlier over what it signed before, fresh14 F10) and KI442 (a new key trusted
from a past ``validFrom`` over what it signed untrusted, fresh14 F8), but ``verify``, how
a reader audits a store whose history came through a server without the hook, said
nothing of either; ``trust add`` gave no KI442 warning; and ``trust add`` refused a
restore of what an earlier commit narrowed (KI410's, which the gate leaves out of KI435).
Each test pushes to a bare server (:class:`tests.prs.Remote`), with its hook set aside
where history lands past it.
"""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest

from kistore.attest import notes
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git, next_second
from ..prs import Remote
from .test_evidence_every_commit import edit_trust
from .test_history_names import add_group
from .test_history_trust_effects import (
    MAINTAINER_ID,
    MAINTAINER_PUB,
    ranked_names,
    trust_maintainer,
)
from .test_trust_entry_backdated import _date, _effects
from .test_trust_start_moved_earlier import (
    EARLY,
    _trusted_after_withdrawal,
    _widened,
    _withdrawn_untrusted,
)

pytestmark = pytest.mark.usefixtures("extra_keys_kept")

LANDED = ("in a branch not yet merged, drop the commit (`git rebase -i BASE` (BASE: the "
          "commit the branch starts from, ")


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _verify(remote: Remote, rule: str) -> tuple[list[str], list[dict]]:
    """Return ``verify``'s text lines (findings, then the fix) and JSON findings of ``rule``."""
    text = remote.kistore("verify", check=False)
    lines = [line for line in (text.stdout + text.stderr).splitlines()
             if f": warning {rule} " in line or line.startswith(f"fix {rule} ")]
    done = remote.kistore("verify", "--json", check=False)
    return lines, [f for f in json.loads(done.stdout)["findings"] if f["rule"] == rule]


def _group(remote: Remote, kit) -> dict[str, str]:
    """Land a group of three runs (``fast``, ``mid``, ``slow``); return name -> digest."""
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    return digests


def _time_of(remote: Remote, rev: str = "HEAD") -> str:
    return _date(dt.datetime.fromtimestamp(
        int(git(remote.clone, "log", "-1", "--format=%ct", rev).strip()), dt.UTC))


@pytest.mark.parametrize("how", ["file", "note"])
def test_verify_warns_of_a_start_widened_into_the_past_landed_without_the_hook(
        remote, kit, how):
    location, entered, start = _trusted_after_withdrawal(remote, kit, how)
    next_second(remote.clone)
    pushed = remote.pr("validFrom earlier", edit_trust(
        lambda d: d["keys"][0].update(validFrom=EARLY)), hook=False)
    assert pushed.accepted, pushed.output
    commit = remote.main()
    assert _effects(remote, "fast") == ["withdraws"]
    # on BASE 548a13da: no KI435 line, verify said nothing of it
    lines, [finding] = _verify(remote, "KI435")
    said = (f"commit {commit[:12]} widens the entry of key {MAINTAINER_ID} in the trust "
            f"file into the past {_widened(start, location, entered)}; trust is not "
            "retroactive")
    fix = ("history is never rewritten: at HEAD what the key signed before its old start "
           "counts (review whether that was meant: trust is not retroactive); " + LANDED
           + "`git merge-base origin/main HEAD`)); on a branch already merged history cannot "
           "change, and this warning says so for good")
    assert lines == [
        f"store/trust/keys.json:/keys/0: warning KI435 trust-widened-into-the-past: {said} "
        f"(expected validFrom {start} or later, found counting from {EARLY})",
        f"fix KI435 (1 finding): {fix}"]
    assert (finding["severity"], finding["file"], finding["pointer"], finding["message"]) == (
        "warning", "store/trust/keys.json", "/keys/0", said)
    assert finding["extra"] == {
        "commit": commit, "keyid": MAINTAINER_ID, "validFrom": start, "from": EARLY,
        "location": location, "enteredAt": entered, "count": 1}
    assert finding["hint"] == fix
    assert remote.kistore("verify", check=False).returncode == 0  # a warning


def test_verify_says_nothing_of_a_past_validfrom_over_nothing_signed_before(remote, kit):
    _group(remote, kit)
    assert remote.pr("trust the maintainer key", trust_maintainer(remote)).accepted
    next_second(remote.clone)
    assert remote.pr("validFrom earlier", edit_trust(
        lambda d: d["keys"][0].update(validFrom=EARLY)), hook=False).accepted
    assert _verify(remote, "KI435") == ([], [])
    assert _verify(remote, "KI442") == ([], [])


@pytest.mark.parametrize("how", ["file", "note"])
def test_trust_add_and_verify_warn_of_a_new_key_trusted_from_before_what_it_signed(
        remote, kit, how):
    location, entered = _withdrawn_untrusted(remote, kit, how)
    (remote.clone.parent / "maintainer.pub").write_text(MAINTAINER_PUB + "\n")
    before = time.time()
    done = remote.kistore("trust", "add", str(remote.clone.parent / "maintainer.pub"),
                          "--role", "maintainer", "--valid-from", EARLY, check=False)
    after = time.time()
    # on BASE 548a13da: exit 0, "trusted ...", no warning
    assert (done.returncode, done.stdout) == (0, f"trusted {MAINTAINER_ID} for maintainer\n")
    assert done.stderr in {
        f"warning: key {MAINTAINER_ID}: trusted anew from before now (validFrom {EARLY}; now "
        f"{when}): its withdrawal at {location} entered the repository at {entered}, before "
        "the key was trusted, a community attestation then, counts from the commit that "
        "trusts it: what the key signed while nobody trusted it takes effect when the trust "
        "lands; `kistore check` warns of it (KI442): review it: a past validFrom makes what "
        "the key signed before it was trusted count; if its holder signed that and it should "
        "take effect, say so in the pull request and keep it; otherwise give the key a "
        "validFrom after that attestation entered, or none (the key then counts from the "
        "commit that trusts it), and have its signer attest again once the key is trusted\n"
        for when in (_date(dt.datetime.fromtimestamp(second, dt.UTC))
                     for second in range(int(before), int(after) + 1))}
    pushed = remote.pr("trust the maintainer key", lambda c: None, hook=False)
    assert pushed.accepted, pushed.output
    commit = remote.main()
    trusted = _time_of(remote)
    # verify says it of the landed commit (on BASE 548a13da: nothing)
    lines, [finding] = _verify(remote, "KI442")
    fix = ("review it: at HEAD what the key signed before it was trusted counts; " + LANDED
           + "`git merge-base origin/main HEAD`)); on a branch already merged history cannot "
           "change, and this warning says so for good")
    assert lines == [
        "store/trust/keys.json:/keys/0: warning KI442 pre-trust-attestation-counts: "
        f"commit {commit[:12]} trusts key {MAINTAINER_ID} anew from before it (validFrom "
        f"{EARLY}; the commit's time {trusted}): its withdrawal at {location} entered the "
        f"repository at {entered}, before the key was trusted, a community attestation "
        "then, counts from this commit: what the key signed while nobody trusted it takes "
        "effect when the trust lands", f"fix KI442 (1 finding): {fix}"]
    assert finding["extra"] == {
        "commit": commit, "keyid": MAINTAINER_ID, "validFrom": EARLY, "location": location,
        "enteredAt": entered, "count": 1}
    assert finding["hint"] == fix


def test_trust_add_of_a_new_key_from_before_over_nothing_signed_says_no_warning(remote, kit):
    _group(remote, kit)
    (remote.clone.parent / "maintainer.pub").write_text(MAINTAINER_PUB + "\n")
    done = remote.kistore("trust", "add", str(remote.clone.parent / "maintainer.pub"),
                          "--role", "maintainer", "--valid-from", EARLY)
    assert (done.stdout, done.stderr) == (f"trusted {MAINTAINER_ID} for maintainer\n", "")


@pytest.mark.parametrize("how", ["file", "note"])
def test_trust_add_restores_a_validfrom_an_earlier_commit_narrowed(remote, kit, how):
    digests = _group(remote, kit)
    assert remote.pr("trust the maintainer key",
                     trust_maintainer(remote, "--valid-from", EARLY)).accepted
    next_second(remote.clone)
    fast = Digest.from_str(digests["fast"])
    if how == "file":
        assert remote.pr("withdrawal file", lambda c: notes.attach(
            Store(c), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast),
            as_file=True)).accepted
    else:
        notes.attach(Store(remote.clone), fast,
                     bundle(MAINTAINER_KEY, "withdrawal", subject=fast))
        assert remote.push("refs/notes/kistore").accepted
    assert _effects(remote, "fast") == ["withdraws"]
    next_second(remote.clone)
    later = _date(dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1))
    # a narrowing landed without the hook (KI410's): the withdrawal stops counting
    assert remote.pr("validFrom later", edit_trust(
        lambda d: d["keys"][0].update(validFrom=later)), hook=False).accepted
    assert _effects(remote, "fast") == ["community"]
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    # giving back the entry as the earlier commit held it: on BASE 548a13da refused (KI435)
    done = remote.kistore("trust", "add", str(remote.clone.parent / "maintainer.pub"),
                          "--role", "maintainer", "--valid-from", EARLY, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, f"trusted {MAINTAINER_ID} for maintainer\n", "")
    assert remote.read_json("store/trust/keys.json")["keys"][0]["validFrom"] == EARLY
    # the gate agrees: no KI435 (the narrowing commit is KI410's)
    pushed = remote.pr("validFrom restored", lambda c: None)
    assert pushed.accepted, pushed.output
    assert "KI435" not in pushed.output
    assert _effects(remote, "fast") == ["withdraws"]
