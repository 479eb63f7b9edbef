"""KI435 over the store's whole history, not one commit against its parent (review01 H1, H2, L11).

KI435 (trust-widened-into-the-past) refused a commit that removes a key's ``validFrom`` or
moves it earlier over a note the key signed before it. Two sequences got through:

- H1: a landed commit sets a later ``validFrom`` (a planned start: nothing held yet), the
  key's holder pushes notes (community: before the start), and a pull request removes the
  ``validFrom``. The rule left out every attestation the grandparent's entry counted (a
  restore), without asking whether it was held when the parent narrowed the entry: the
  notes counted after the fact.
- H2: one commit drops the key's entry, the next adds it back without ``validFrom``: the
  second commit's parent does not list the key, so it was "a new key", and the key counted
  from its first start. As one pull request of two commits, or as two landing in turn.

Each test pushes to a bare server running
``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import time

import pytest

from kistore.attest import notes
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git, next_second
from ..prs import Remote
from .test_evidence_every_commit import TRUST, edit_trust
from .test_history_trust_effects import MAINTAINER_ID, trust_maintainer
from .test_trust_entry_backdated import _date, _effects, _group, _withdraw_as_note
from .test_trust_widened_into_the_past import _entry, _gate, _note, _said, _start


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


HINT = ("keep the key's validFrom as it was: drop the commit that removes it or moves it "
        "earlier (`git rebase -i {base}`); trust is not retroactive: what the key signed "
        "before its validFrom entered as a community attestation and stays one; to make it "
        "count, its signer attests again once the key is trusted (the new attestation "
        "enters then)")


def _commit(remote: Remote, change, message: str) -> str:
    change(remote.clone)
    git(remote.clone, "commit", "-qam", message)
    return git(remote.clone, "rev-parse", "HEAD").strip()


def _refused(remote: Remote, finding: dict, base: str, commit: str, said: str) -> None:
    """The finding is KI435 at the key's entry of ``commit``, and the server refuses it."""
    assert (finding["rule"], finding["file"], finding["pointer"], finding["message"]) == (
        "KI435", TRUST, "/keys/0", said)
    assert finding["hint"] == HINT.format(base=base)
    refused_by_the_server(remote, base, said)  # the fix: drop the commit, as it holds
    assert _gate(remote, base) == []
    assert _effects(remote, "fast") == ["community"]


def refused_by_the_server(remote: Remote, base: str, said: str) -> None:
    """The server's pre-receive refuses HEAD to main with KI435 at the key's entry
    (``/keys/0``) saying ``said``; main stays ``base``, and the clone is reset to it."""
    pushed = remote.push("HEAD:main")
    assert not pushed.accepted
    assert ("remote: store/trust/keys.json:/keys/0: error KI435 trust-widened-into-the-past: "
            + said) in pushed.output
    assert remote.main() == base
    git(remote.clone, "reset", "-q", "--hard", base)


@pytest.mark.parametrize("landed", ["through-the-gate", "past-the-hook"])
def test_a_landed_later_start_undone_over_notes_pushed_since_is_refused(remote, kit, landed):
    # H1: G trusts the key, P (landed) moves its start later, the holder pushes a withdrawal
    # (community under P), C moves the start back: G's entry counted the note, and KI435
    # took C for a restore of what P took, though P took nothing (the note came after it).
    # Through the gate: G's start is planned 90 s ahead (two pushes take ~30 s on a loaded
    # machine, a few on an idle one) and P moves it an hour ahead before
    # then (nothing counted yet: no KI410). Past the hook: G lists no validFrom.
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit, now - dt.timedelta(minutes=10))
    soon = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(seconds=90)
    first = () if landed == "past-the-hook" else ("--valid-from", _date(soon))
    trusted = remote.pr("trust the maintainer key", trust_maintainer(remote, *first))
    assert trusted.accepted, trusted.output
    start = _start(remote) if landed == "past-the-hook" else _date(soon)
    valid_from = _date(now + dt.timedelta(hours=1))
    planned = remote.pr("plan the key's start later", edit_trust(
        lambda d: _entry(d).update(validFrom=valid_from)), hook=landed == "through-the-gate")
    assert planned.accepted, planned.output
    while landed == "through-the-gate" and dt.datetime.now(dt.UTC) < soon + dt.timedelta(
            seconds=1):  # the note enters after G's start
        time.sleep(0.1)
    _withdraw_as_note(remote, fast)
    assert _effects(remote, "fast") == ["community"]
    base = remote.main()
    if landed == "past-the-hook":
        commit = _commit(remote, edit_trust(lambda d: _entry(d).pop("validFrom")), "widen")
        widened = (f"validFrom {valid_from} -> none (from when it entered the trust file, "
                   f"{start}, its commit's date)")
    else:
        commit = _commit(remote, edit_trust(lambda d: _entry(d).update(validFrom=start)),
                         "widen")
        widened = f"validFrom {valid_from} -> {start}"
    location, entered = _note(remote)
    said = _said(commit, widened, location, entered)
    # on BASE 440899c7: no finding (G's entry counts the note: taken for a restore)
    [finding] = _gate(remote, base)
    assert finding["extra"] == {
        "commit": commit, "keyid": MAINTAINER_ID, "validFrom": valid_from, "from": start,
        "location": location, "enteredAt": entered, "count": 1}
    _refused(remote, finding, base, commit, said)


def _planned(remote: Remote, kit, ahead: dt.timedelta = dt.timedelta(hours=1)
             ) -> tuple[Digest, str]:
    """Land a group and the key trusted from ``ahead`` (an hour); return ``fast``, validFrom."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit, now - dt.timedelta(minutes=10))
    valid_from = _date(now + ahead)
    trusted = remote.pr("trust the maintainer key from a planned start", trust_maintainer(
        remote, "--valid-from", valid_from))
    assert trusted.accepted, trusted.output
    return fast, valid_from


def _trusted_from_a_planned_start(remote: Remote, kit) -> tuple[str, str]:
    """:func:`_planned`; the key's holder pushes a withdrawal of ``fast`` (community).
    Return the validFrom and the key's first start."""
    fast, valid_from = _planned(remote, kit)
    start = _start(remote)
    _withdraw_as_note(remote, fast)
    assert _effects(remote, "fast") == ["community"]
    return valid_from, start


def _drop(clone) -> None:
    edit_trust(lambda d: d["keys"].remove(_entry(d)))(clone)


@pytest.mark.parametrize("landed", [False, True], ids=["one-pull-request", "two-landed"])
def test_a_key_dropped_and_added_back_without_its_validfrom_is_refused(remote, kit, landed):
    # H2: C1 drops the entry, C2 adds it back without validFrom: the key counts from its
    # first start, the note with it. As one pull request KI410 refuses C1 (an entry is
    # never removed) and KI435 C2; the drop landed past the hook, C2 is refused alone.
    valid_from, start = _trusted_from_a_planned_start(remote, kit)
    base = remote.main()
    if landed:
        dropped = remote.pr("drop the key", _drop, hook=False)
        assert dropped.accepted, dropped.output
        base = remote.main()
    else:
        dropped_in = _commit(remote, _drop, "drop the key")
    again = _commit(remote, trust_maintainer(remote), "trust the key again")
    assert "validFrom" not in the_key(remote)
    location, entered = _note(remote)
    said = _said(again, f"validFrom {valid_from} -> none (from when it entered the trust "
                 f"file, {start}, its commit's date)", location, entered)
    # on BASE 440899c7: no KI435 (the parent lists no such key: "a new key")
    found = _gate(remote, base)
    if not landed:
        assert [(f["rule"], f["extra"]["commit"]) for f in found] == [
            ("KI410", dropped_in), ("KI435", again)]
    finding = found[-1]
    assert finding["extra"] == {
        "commit": again, "keyid": MAINTAINER_ID, "validFrom": valid_from, "from": start,
        "location": location, "enteredAt": entered, "count": 1}
    _refused(remote, finding, base, again, said)


def the_key(remote: Remote) -> dict:
    doc = remote.read_json(TRUST)
    assert isinstance(doc, dict)
    return _entry(doc)


def test_a_key_dropped_past_the_hook_and_added_back_as_it_was_is_accepted(remote, kit):
    # honest repair: the entry comes back with its validFrom: nothing counts that did not
    valid_from, _start = _trusted_from_a_planned_start(remote, kit)
    assert remote.pr("drop the key", _drop, hook=False).accepted
    base = remote.main()
    _commit(remote, trust_maintainer(remote, "--valid-from", valid_from), "trust it again")
    assert the_key(remote)["validFrom"] == valid_from
    assert _gate(remote, base) == []
    assert remote.push("HEAD:main").accepted
    assert _effects(remote, "fast") == ["community"]


def test_a_note_whose_committed_file_copy_counts_already_is_no_widening(remote, kit):
    # review01 M5: readers judge a bundle's copies together (judge_all): its note copy
    # entered before the key's validFrom, its committed file copy after it, so it counts
    # already; KI435 judged the note copy alone ("would count"): a false refusal
    # validFrom 3 minutes ahead: the file's commit is dated just past it, within the five
    # minutes ahead the gate admits (KI438)
    fast, valid_from = _planned(remote, kit, dt.timedelta(minutes=3))
    withdrawal = bundle(MAINTAINER_KEY, "withdrawal", subject=fast)
    next_second(remote.clone)  # the note enters after main's commits
    notes.attach(Store(remote.clone), fast, withdrawal)
    assert remote.push("refs/notes/kistore").accepted
    assert _effects(remote, "fast") == ["community"]
    filed = remote.pr("the withdrawal as a file", lambda c: notes.attach(
        Store(c), fast, withdrawal, as_file=True),
        date=_date(dt.datetime.fromisoformat(valid_from) + dt.timedelta(seconds=10)))
    assert filed.accepted, filed.output
    assert _effects(remote, "fast") == ["withdraws"]
    base = remote.main()
    _commit(remote, edit_trust(lambda d: _entry(d).pop("validFrom")), "validFrom removed")
    # on BASE 440899c7: KI435 "its withdrawal at refs/notes/kistore:... would count"
    assert _gate(remote, base) == []
    assert remote.push("HEAD:main").accepted
    assert _effects(remote, "fast") == ["withdraws"]
