"""A key's ``validFrom`` removed or moved earlier over notes it signed before (KI435).

A key trusted with ``validFrom`` counts from it, whatever its commit's date says, so a trust
commit dated back (KI434 weighs keys without ``validFrom`` only) was accepted. A later push
removing the ``validFrom`` (KI427, info) made the key count from that backdated commit's
time, and a withdrawal its holder had pushed as a note meanwhile (community: accepted)
withdrew its run after the fact. ``check`` and the server's ``pre-receive`` now refuse a
commit that removes a listed key's ``validFrom`` or moves it earlier when that makes an
attestation held then count; one making nothing held count is accepted. Each test pushes
to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from kistore.core.digest import Digest

from ..conftest import git, next_second
from ..prs import Remote
from .test_evidence_every_commit import edit_trust
from .test_history_trust_effects import MAINTAINER_ID, ranked_names, trust_maintainer
from .test_trust_entry_backdated import _date, _effects, _group, _withdraw_as_note

# every finding made here keeps one meaning per extra key (`entered`: a commit id)
pytestmark = pytest.mark.usefixtures("extra_keys_kept")


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _entry(doc) -> dict:
    [entry] = [k for k in doc["keys"] if k["keyid"] == MAINTAINER_ID]
    return entry


def _trusted_backdated(remote: Remote, kit, *, note: bool = True) -> tuple[Digest, str]:
    """Land: a group; (a note withdrawing ``fast`` by the untrusted key); the key trusted
    with ``validFrom`` = now, in a commit dated ten minutes back (accepted: validFrom
    decides). Return ``fast`` and the validFrom written."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit, now - dt.timedelta(minutes=10))
    if note:
        _withdraw_as_note(remote, fast)
        next_second(remote.clone)  # the validFrom a second after the note entered
    valid_from = _date(dt.datetime.now(dt.UTC).replace(microsecond=0))
    backdated = _date(now - dt.timedelta(minutes=10) + dt.timedelta(seconds=1))
    pushed = remote.pr("trust the maintainer key", trust_maintainer(
        remote, "--valid-from", valid_from), date=backdated)
    assert pushed.accepted, pushed.output
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    return fast, valid_from


def _start(remote: Remote) -> str:
    """The trusted time of main's tip: its committer date, or an ancestor's when later."""
    tip = remote.main()
    return _date(dt.datetime.fromtimestamp(
        max(int(t) for t in git(remote.clone, "log", "--format=%ct", tip).split()), dt.UTC))


def _note(remote: Remote) -> tuple[str, str]:
    """The note's location and entry time (its notes commit's date)."""
    [line] = git(remote.clone, "notes", "--ref=kistore", "list").splitlines()
    entered = int(git(remote.clone, "log", "-1", "--format=%ct", "refs/notes/kistore"))
    return (f"refs/notes/kistore:{line.split()[1]}",
            _date(dt.datetime.fromtimestamp(entered, dt.UTC)))


def _said(commit: str, widened: str, location: str, entered: str) -> str:
    return (f"commit {commit[:12]} widens the entry of key {MAINTAINER_ID} in the trust file "
            f"into the past ({widened}): its withdrawal at {location} entered the repository "
            f"at {entered}, before the key's validFrom, a community attestation then, would "
            "count; trust is not retroactive")


def _gate(remote: Remote, base: str) -> list[dict]:
    done = remote.kistore("check", f"{base}..HEAD", "--json", check=False)
    return [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize("how", ["removed", "earlier"])
def test_a_validfrom_taken_back_over_a_note_signed_before_is_refused(remote, kit, how):
    fast, valid_from = _trusted_backdated(remote, kit)
    start = _start(remote)
    location, entered = _note(remote)
    base = remote.main()
    earlier = _date(dt.datetime.now(dt.UTC) - dt.timedelta(hours=2))
    widen = edit_trust(lambda d: _entry(d).pop("validFrom") if how == "removed" else
                       _entry(d).update(validFrom=earlier))
    # `check BASE..HEAD` of the commit, before any push
    widen(remote.clone)
    git(remote.clone, "commit", "-qam", "widen")
    commit = git(remote.clone, "rev-parse", "HEAD").strip()
    widened = (f"validFrom {valid_from} -> " + (
        f"none (from when it entered the trust file, {start}, its commit's date)"
        if how == "removed" else earlier))
    [finding] = _gate(remote, base)
    assert (finding["rule"], finding["file"], finding["pointer"], finding["message"]) == (
        "KI435", "store/trust/keys.json", "/keys/0",
        _said(commit, widened, location, entered))
    assert finding["extra"] == {
        "commit": commit, "keyid": MAINTAINER_ID, "validFrom": valid_from,
        "from": start if how == "removed" else earlier, "location": location,
        "enteredAt": entered, "count": 1}
    assert finding["hint"] == (
        "keep the key's validFrom as it was: drop the commit that removes it or moves it "
        f"earlier (`git rebase -i {base}`); trust is not retroactive: what the key signed "
        "before its validFrom entered as a community attestation and stays one; to make it "
        "count, its signer attests again once the key is trusted (the new attestation "
        "enters then)")
    # the server's pre-receive: on BASE 6d3d3e30 accepted (KI427 info), and `fast` left
    # the ranking: its withdrawal, community when it entered, counted after the fact
    pushed = remote.push("HEAD:main")
    assert not pushed.accepted
    assert ("remote: store/trust/keys.json:/keys/0: error KI435 trust-widened-into-the-past: "
            + _said(commit, widened, location, entered)) in pushed.output
    assert remote.main() == base
    # the fix: drop the commit (what the server holds): the note stays community
    git(remote.clone, "reset", "-q", "--hard", base)
    assert _gate(remote, base) == []
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    assert _effects(remote, "fast") == ["community"]


def test_a_validfrom_removed_over_nothing_signed_before_is_accepted(remote, kit):
    fast, _valid_from = _trusted_backdated(remote, kit, note=False)
    base = remote.main()
    pushed = remote.pr("validFrom removed", edit_trust(lambda d: _entry(d).pop("validFrom")))
    assert pushed.accepted, pushed.output
    assert remote.main() != base
    # a withdrawal pushed now counts (the key is trusted)
    _withdraw_as_note(remote, fast)
    assert _effects(remote, "fast") == ["withdraws"]
    assert ranked_names(remote) == ["mid", "slow"]


def test_a_validfrom_moved_earlier_but_after_the_note_is_accepted(remote, kit):
    _fast, valid_from = _trusted_backdated(remote, kit)
    _location, entered = _note(remote)
    later = dt.datetime.strptime(entered, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    after_note = _date(later + dt.timedelta(seconds=1))
    assert after_note <= valid_from
    pushed = remote.pr("validFrom earlier", edit_trust(
        lambda d: _entry(d).update(validFrom=after_note)))
    assert pushed.accepted, pushed.output
    assert _effects(remote, "fast") == ["community"]
