"""fresh04 H1, H3, L1: a key's trust entry judged at every commit, by times that cannot lie.

H3: a commit that took back what its parent *gave* (a ``git revert`` of a role granted on
main after the key signed, a plain edit back to the older file, an evil or octopus merge
taking an old branch's file, ``git revert -m 1`` of a merge at main's tip) was read as
"gives back what its parent took" and passed with 0 findings. H1: a ``validUntil`` was
held to the committer date the submitter writes, so one committed "a minute before" it
un-counted a withdrawal that had entered already. L1: a revocation lifted in one commit and
put back in the next passed (as one commit: KI412). Each test builds the history on a bare
server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`) and runs the printed fix.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess

import pytest

from kistore.attest import notes, signing
from kistore.check.gate import check_range
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import STRANGER, bundle
from ..conftest import PUBLISHED, git
from ..prs import Remote, soon
from .test_evidence_every_commit import (
    KEYID,
    TRUST,
    edit_trust,
    gate,
    push,
    remote,  # noqa: F401 (its fixture: a trusted maintainer key, then its withdrawal)
    restore,
    run_fix,
    the_entry,
    withdrawn,
)

OTHER = signing.keyid(STRANGER.public_key())
RUN = Digest.from_str(PUBLISHED["run"])


def narrows(commit: str, keyid: str, said: str) -> str:
    """KI410's message of a commit narrowing ``keyid``'s entry (``said``: what it took)."""
    return (f"commit {commit[:12]} narrows the entry of key {keyid} in the trust file "
            f"({said}): at that commit what the key signed before counts no more for what "
            "was taken (a withdrawal it signed stops withdrawing its run), and a key's trust "
            "is never narrowed after the fact, as its entry is never removed (trust ends by "
            "a revocation, `kistore trust revoke`, which KI412 keeps)")


def commit_at(clone, date: str, *args: str) -> str:
    """Run ``git ARGS`` dated ``date`` (author and committer); return HEAD's id."""
    subprocess.run(["git", *args], cwd=clone, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date})
    return git(clone, "rev-parse", "HEAD").strip()


def effects(server: Remote, keyid: str) -> list[str]:
    """The effects ``attestations`` gives the run's attestations signed by ``keyid``."""
    said = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    return [a["effect"] for a in said["attestations"] if a["keyid"] == keyid]


def other_key(server: Remote) -> str:
    path = server.clone.parent / "other.pub"
    path.write_text(signing.public_key_line(STRANGER.public_key()) + "\n")
    return str(path)


def other_entry(doc) -> dict:
    [entry] = [k for k in doc["keys"] if k["keyid"] == OTHER]
    return entry


@pytest.fixture
def granted(remote) -> tuple[Remote, str]:  # noqa: F811
    """Main: a second key trusted for rerun, then granted maintainer, then its withdrawal.

    The withdrawal is a note line pushed after the grant landed (fresh04 H3's ``k3``), its
    notes commit dated as the history is, ahead of the clock: it counts (``withdraws``).
    Returns the server and the granting commit (main's tip).
    """
    assert remote.pr("trust a rerun key", lambda c: remote.kistore(
        "trust", "add", other_key(remote), "--role", "rerun"), date=soon(2)).accepted
    grant = edit_trust(lambda d: other_entry(d).update(roles=["maintainer", "rerun"]))
    assert remote.pr("grant it maintainer", grant, date=soon(3)).accepted
    note_at(remote, bundle(STRANGER, "withdrawal"), soon(4))
    assert effects(remote, OTHER) == ["withdraws"]
    return remote, remote.main()


def note_at(server: Remote, data: bytes, date: str) -> None:
    """Attach ``data`` as a note line on the run, its notes commit dated ``date``; push it."""
    clone = server.clone
    notes.attach(Store(clone), RUN, data)
    tip = git(clone, "rev-parse", "refs/notes/kistore").strip()
    parents = git(clone, "rev-parse", f"{tip}^@").split()
    dated = subprocess.run(
        ["git", "commit-tree", f"{tip}^{{tree}}", *[a for p in parents for a in ("-p", p)],
         "-m", "Notes added by kistore"], cwd=clone, check=True, capture_output=True,
        text=True, env={**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date})
    git(clone, "update-ref", "refs/notes/kistore", dated.stdout.strip(), tip)
    # dated ahead, past the hook: it refuses a notes commit off its clock (KI437)
    assert server.push("refs/notes/kistore", hook=False).accepted


def revert(server: Remote, grant: str) -> None:
    commit_at(server.clone, soon(5), "revert", "--no-edit", grant)


def edit_back(server: Remote, grant: str) -> None:
    git(server.clone, "checkout", "-q", f"{grant}~1", "--", TRUST)
    commit_at(server.clone, soon(5), "commit", "-qm", "trust as it was")


def side(server: Remote, name: str, start: str) -> None:
    clone = server.clone
    git(clone, "checkout", "-q", "-b", name, start)
    (clone / f"{name}.txt").write_text(name + "\n")
    git(clone, "add", f"{name}.txt")
    commit_at(clone, soon(5), "commit", "-qm", name)
    git(clone, "checkout", "-q", "main")


def evil_merge(server: Remote, grant: str) -> None:
    side(server, "old", f"{grant}~1")
    git(server.clone, "merge", "-q", "--no-ff", "--no-commit", "old")
    git(server.clone, "checkout", "-q", "old", "--", TRUST)
    commit_at(server.clone, soon(6), "commit", "-qm", "merge old")


def octopus(server: Remote, grant: str) -> None:
    side(server, "old", f"{grant}~1")
    side(server, "other", f"{grant}~1")
    git(server.clone, "merge", "-q", "--no-ff", "--no-commit", "old", "other")
    git(server.clone, "checkout", "-q", "old", "--", TRUST)
    commit_at(server.clone, soon(6), "commit", "-qm", "octopus")


@pytest.mark.parametrize("how", [revert, edit_back, evil_merge, octopus],
                         ids=["revert", "edit-back", "evil-merge", "octopus"])
def test_taking_back_a_role_granted_on_main_is_refused(granted, how):
    # fresh04 H3: "gives back what its parent took" matched a commit taking back what its
    # parent gave: 0 findings, and the key's withdrawal stopped counting
    server, grant = granted
    base = server.main()
    how(server, grant)
    taking = git(server.clone, "rev-parse", "HEAD").strip()
    said = "roles maintainer, rerun -> rerun"
    errors = gate(server, base)
    assert [(f["rule"], f["file"], f["extra"]) for f in errors] == [("KI410", TRUST, {
        "commit": taking, "parent": base, "keyid": OTHER, "change": said,
        "restored": False})], errors
    assert errors[0]["message"] == narrows(taking, OTHER, said)
    assert errors[0]["hint"].startswith(
        f"key {OTHER}'s entry narrowed in commit {taking[:12]} of the branch: putting it back "
        "in a later commit leaves the change in the history")
    assert f"`kistore trust revoke {OTHER}`" in errors[0]["hint"]
    landed = server.kistore("check", "--landed", f"{base}..HEAD", check=False)
    assert landed.returncode == 1 and f"commit {taking[:12]} narrows" in landed.stdout
    code, output = push(server)
    assert code != 0 and "KI410 trust-entry-narrowed" in output, output
    assert git(server.bare, "rev-parse", "main").strip() == base
    assert effects(server, OTHER) == ["not-counted"]  # what the commit does
    if how in (revert, edit_back):  # the printed rebase, run as printed
        run_fix(server, errors[0]["hint"], taking)
        assert git(server.clone, "rev-parse", "HEAD").strip() == base
        assert gate(server, base) == []
    # the way trust ends: a revocation; what the key signed before it keeps counting
    git(server.clone, "reset", "-q", "--hard", base)
    server.kistore("trust", "revoke", OTHER, "--at", soon(7))
    commit_at(server.clone, soon(7), "commit", "-qam", "revoke the key")
    assert gate(server, base) == []
    assert push(server)[0] == 0
    assert effects(server, OTHER) == ["withdraws"]


def test_reverting_a_merged_grant_is_refused(remote):  # noqa: F811
    # fresh04 H3 addendum: the grant merged with a merge commit at main's tip, then a
    # "Revert PR #N" (`git revert -m 1`): 1 info, accepted
    clone = remote.clone
    assert remote.pr("trust a rerun key", lambda c: remote.kistore(
        "trust", "add", other_key(remote), "--role", "rerun"), date=soon(2)).accepted
    base = remote.main()
    git(clone, "checkout", "-q", "-b", "grant")
    edit_trust(lambda d: other_entry(d).update(roles=["maintainer", "rerun"]))(clone)
    commit_at(clone, soon(3), "commit", "-qam", "grant it maintainer")
    git(clone, "checkout", "-q", "main")
    merge = commit_at(clone, soon(3), "merge", "-q", "--no-ff", "-m", "Merge PR #7", "grant")
    assert push(remote)[0] == 0 and remote.main() == merge != base
    note_at(remote, bundle(STRANGER, "withdrawal"), soon(4))
    assert effects(remote, OTHER) == ["withdraws"]
    taking = commit_at(clone, soon(5), "revert", "--no-edit", "-m", "1", merge)
    said = "roles maintainer, rerun -> rerun"
    tip = remote.main()
    [finding] = gate(remote, tip)
    assert (finding["extra"], finding["message"]) == (
        {"commit": taking, "parent": tip, "keyid": OTHER, "change": said,
         "restored": False}, narrows(taking, OTHER, said))
    code, output = push(remote)
    assert code != 0 and "KI410" in output
    assert effects(remote, OTHER) == ["not-counted"]
    run_fix(remote, finding["hint"], taking)
    assert gate(remote, tip) == []
    assert effects(remote, OTHER) == ["withdraws"]


def test_a_range_taking_back_what_it_gave_is_no_narrowing(remote):  # noqa: F811
    # honest: a role given and taken back in one branch never landed, so nothing it
    # counted for is taken (fresh04 H3's fix must not refuse it)
    base = remote.main()
    give = edit_trust(lambda d: the_entry(d).update(roles=["maintainer", "rerun"]))
    take = edit_trust(lambda d: the_entry(d).update(roles=["maintainer"]))
    for hours, change in enumerate((give, take), start=2):
        change(remote.clone)
        commit_at(remote.clone, soon(hours), "commit", "-qam", f"change {hours}")
    assert git(remote.clone, "diff", "--stat", base, "HEAD") == ""
    assert gate(remote, base) == []
    assert push(remote)[0] == 0
    # nor does `verify` warn of it in history: nothing the key signed counted by the role
    verified = remote.kistore("verify", "--json", check=False)
    assert [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI410"] == []


def test_a_grant_taken_back_past_the_hook_is_warned_of(granted):
    # history that landed where no hook ran: `verify` names the commit, since the key's
    # withdrawal counted under its parent's entry and counts no more
    server, grant = granted
    assert server.pr("trust as it was", restore(TRUST, rev=f"{grant}~1"), hook=False,
                     date=soon(5)).accepted
    taking = server.main()
    verified = server.kistore("verify", "--json", check=False)
    found = [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI410"]
    assert [(f["severity"], f["extra"]) for f in found] == [("warning", {
        "commit": taking, "parent": git(server.bare, "rev-parse", f"{taking}~1").strip(),
        "keyid": OTHER, "change": "roles maintainer, rerun -> rerun", "restored": False})]


def withdrawal_entered(server: Remote) -> dt.datetime:
    """When the fixture's withdrawal file entered: its commit's date (UTC)."""
    said = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    [when] = [a["enteredAt"] for a in said["attestations"] if a["keyid"] == KEYID]
    return dt.datetime.fromisoformat(when.replace("Z", "+00:00"))


def stamp(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_valid_until_before_a_withdrawal_entered_is_refused_though_backdated(remote):  # noqa: F811
    # fresh04 H1: validUntil half an hour before the withdrawal entered, committed a minute
    # before that (KI428 lets a date lie up to a day before its parent): info only, the
    # withdrawal un-counted, and `verify --at` the commit failed (KI302)
    base = remote.main()
    entered = withdrawal_entered(remote)
    until = stamp(entered - dt.timedelta(minutes=30))
    edit_trust(lambda d: the_entry(d).update(validUntil=until))(remote.clone)
    narrowing = commit_at(remote.clone, stamp(entered - dt.timedelta(minutes=31)),
                          "commit", "-qam", "planned expiry")
    [path] = git(remote.clone, "ls-files", "store/attestations").split()
    said = (f"validUntil none -> {until}, before its withdrawal at {path} entered the "
            f"repository at {stamp(entered)}")
    [finding] = gate(remote, base)
    assert (finding["rule"], finding["extra"], finding["message"]) == (
        "KI410", {"commit": narrowing, "parent": base, "keyid": KEYID, "change": said,
                  "restored": False}, narrows(narrowing, KEYID, said))
    # what the gate refuses is what `verify --at` the commit fails
    verified = remote.kistore("verify", "--at", narrowing, "--json", check=False)
    assert verified.returncode == 1
    assert [f["rule"] for f in json.loads(verified.stdout)["findings"]
            if f["severity"] == "error"] == ["KI302"]
    code, output = push(remote)
    assert code != 0 and f"KI410 trust-entry-narrowed: commit {narrowing[:12]}" in \
        " ".join(output.replace("remote:", " ").split())
    run_fix(remote, finding["hint"], narrowing)
    assert gate(remote, base) == []
    assert withdrawn(remote)


def test_a_valid_until_landed_past_the_hook_is_warned_of(remote):  # noqa: F811
    # history that landed where no hook ran: `verify` names the commit, by the entry time
    entered = withdrawal_entered(remote)
    until = stamp(entered - dt.timedelta(minutes=30))
    assert remote.pr("planned expiry", edit_trust(lambda d: the_entry(d).update(
        validUntil=until)), hook=False,
        date=stamp(entered - dt.timedelta(minutes=31))).accepted
    landed = remote.main()
    verified = remote.kistore("verify", "--json", check=False)
    found = [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI410"]
    [path] = git(remote.clone, "ls-files", "store/attestations").split()
    assert [(f["severity"], f["extra"]["commit"], f["extra"]["change"]) for f in found] == [
        ("warning", landed, f"validUntil none -> {until}, before its withdrawal at {path} "
         f"entered the repository at {stamp(entered)}")]


def test_a_valid_until_before_the_gate_s_clock_is_refused(remote):  # noqa: F811
    # a key that signed nothing yet: its validUntil is judged at the gate's clock (the
    # push's in pre-receive), not at the date the submitter wrote
    clone = remote.clone
    assert remote.pr("trust a second maintainer", lambda c: remote.kistore(
        "trust", "add", other_key(remote), "--role", "maintainer"), date=soon(2)).accepted
    base = remote.main()
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    until = stamp(now - dt.timedelta(minutes=10))
    edit_trust(lambda d: other_entry(d).update(validUntil=until))(clone)
    narrowing = commit_at(clone, stamp(now - dt.timedelta(minutes=11)), "commit", "-qam",
                          "expire it")
    clock = now + dt.timedelta(minutes=1)
    found = [f for f in check_range(Store(clone), f"{base}..HEAD", now=clock)
             if f.rule.id == "KI410"]
    said = (f"validUntil none -> {until}, before the gate's clock ({stamp(clock)}), when "
            "it lands")
    assert [(f.extra["commit"], f.message) for f in found] == [
        (narrowing, narrows(narrowing, OTHER, said))]
    code, output = push(remote)
    assert code != 0 and f"commit {narrowing[:12]} narrows the entry of key {OTHER}" in \
        " ".join(output.replace("remote:", " ").split())
    # a clock before it: a planned expiry, nothing taken back
    assert [f for f in check_range(Store(clone), f"{base}..HEAD",
                                   now=now - dt.timedelta(minutes=10, seconds=30))
            if f.rule.id == "KI410"] == []


def lift(doc) -> None:
    the_entry(doc).pop("revokedAt")


def later(doc) -> None:
    the_entry(doc)["revokedAt"] = "2099-01-01T00:00:00Z"


LIFTS = ("commit {c} lifts the revocation of key " + KEYID + " in the trust file ({said}): at "
         "that commit its entry says the key signs again, and a revocation is permanent "
         "(KI412); a later commit of the range puts it back (HEAD holds it again), but "
         "commit {c} stays in the history, whose file lifts it there (`verify --at` it says "
         "KI412; queries hold every revocation its history made)")


@pytest.mark.parametrize("how, to", [(lift, "none"), (later, "2099-01-01T00:00:00Z")],
                         ids=["lifted", "moved-later"])
def test_a_revocation_lifted_and_put_back_is_refused(remote, how, to):  # noqa: F811
    # fresh04 L1: as one commit it is KI412; in two, 0 findings
    remote.kistore("trust", "revoke", KEYID)
    assert remote.pr("revoke the maintainer", lambda c: None, date=soon(2)).accepted
    base = remote.main()
    revoked = the_entry(json.loads((remote.clone / TRUST).read_text()))["revokedAt"]
    edit_trust(how)(remote.clone)
    first = commit_at(remote.clone, soon(3), "commit", "-qam", "lift")
    restore(TRUST)(remote.clone)
    second = commit_at(remote.clone, soon(4), "commit", "-qam", "put it back")
    said = f"revokedAt {revoked} -> {to}"
    errors = gate(remote, base)
    assert [(f["rule"], f["file"], f["extra"]) for f in errors] == [("KI412", TRUST, {
        "commit": first, "parent": base, "keyid": KEYID, "change": said,
        "restored": True})], errors
    assert errors[0]["message"] == LIFTS.format(c=first[:12], said=said)
    assert errors[0]["hint"].startswith(
        f"HEAD holds key {KEYID}'s revocation again, but the commits that changed it "
        f"({first[:12]}, {second[:12]}, the last restoring it) stay in the history")
    code, output = push(remote)
    assert code != 0 and "KI412 trust-revocation-lifted" in output, output
    run_fix(remote, errors[0]["hint"], first, second)
    assert git(remote.clone, "rev-parse", "HEAD").strip() == base
    assert gate(remote, base) == []
    # one commit lifting it: KI412 of HEAD, said once
    edit_trust(how)(remote.clone)
    commit_at(remote.clone, soon(3), "commit", "-qam", "lift")
    assert [f["rule"] for f in gate(remote, base)] == ["KI412"]


def test_a_revocation_lifted_past_the_hook_is_warned_of(remote):  # noqa: F811
    remote.kistore("trust", "revoke", KEYID)
    assert remote.pr("revoke the maintainer", lambda c: None, date=soon(2)).accepted
    assert remote.pr("lift", edit_trust(lift), hook=False, date=soon(3)).accepted
    lifted = remote.main()
    assert remote.pr("put back", restore(TRUST, rev=f"{lifted}~1"), hook=False,
                     date=soon(4)).accepted
    verified = remote.kistore("verify", "--json", check=False)
    found = [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI412"]
    assert [(f["severity"], f["extra"]["commit"]) for f in found] == [("warning", lifted)]
    assert found[0]["hint"].startswith("nothing to do at HEAD, which holds it again")


def test_a_restored_narrowing_fix_is_run_as_printed(remote):  # noqa: F811
    # the restore of what a parent took is said once, as evid02 kept it
    base = remote.main()
    take = edit_trust(lambda d: the_entry(d).update(roles=["rerun"]))
    first = None
    for hours, change in enumerate((take, restore(TRUST)), start=2):
        change(remote.clone)
        made = commit_at(remote.clone, soon(hours), "commit", "-qam", f"change {hours}")
        first = first or made
    assert [f["extra"]["commit"] for f in gate(remote, base)] == [first]
    assert re.search(r"git rebase -i [0-9a-f]{40}", gate(remote, base)[0]["hint"])
