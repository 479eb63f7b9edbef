"""Notes made again at a push never change a line's effect unsaid (fresh12 F7).

``kistore notes push`` makes the notes commits a remote lacks again, dated at the push, once
they are a minute old (KI437), and ``kistore notes rebase REMOTE`` writes this repository's
lines again in one notes commit dated now: a line then enters at that moment. A withdrawal
signed while its key was not trusted yet (a community attestation here) entered after the
key's trust commit and counted as the maintainer's, here and on the server, with no word
(fresh12's c7 and c9). Now the push and the rebuild refuse, naming the line, its two entries
and two verdicts, and the ways out; ``--enter-now`` lets it enter now, said.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess

import pytest

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RUN, STRANGER, bundle
from ..check.test_history_trust_effects import MAINTAINER_ID, trust_maintainer
from ..check.test_notes_gate_history import run_blob
from ..conftest import git, next_second
from ..prs import Remote
from .test_notes_rebase import kistore

WITHDRAWAL = bundle(MAINTAINER_KEY, "withdrawal", subject=RUN)
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _at(seconds_ago: int) -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(seconds=seconds_ago)


def _text(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _noted(remote: Remote, line: bytes, when: dt.datetime) -> None:
    """``git notes append`` of ``line`` on the run, its notes commit dated ``when``."""
    subprocess.run(["git", "notes", "--ref", "kistore", "append", "-m", line.decode(),
                    run_blob(remote.clone)], cwd=remote.clone, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": f"@{int(when.timestamp())} +0000"})


def _early(remote: Remote) -> tuple[dt.datetime, dt.datetime]:
    """fresh12's c7: a withdrawal signed 3 minutes ago by a key trusted since 1 minute ago.

    Returns the withdrawal's notes commit date and the trust commit's (main, on the server).
    """
    signed = _at(180)
    _noted(remote, WITHDRAWAL, signed)  # community: no trust file lists the key
    pushed = remote.pr("trust the maintainer key", trust_maintainer(remote))
    assert pushed.accepted, pushed.output
    next_second()  # the push enters after the trust commit's second
    return signed, _committed(remote)


def _committed(remote: Remote) -> dt.datetime:
    """The clone's HEAD's committer date (the trust commit's: the key counts from it)."""
    return dt.datetime.fromtimestamp(int(git(remote.clone, "log", "-1", "--format=%ct")),
                                     dt.UTC)


def _signed_then_trusted(remote: Remote) -> tuple[dt.datetime, dt.datetime]:
    """The withdrawal noted now (community), then the key's trust a second later, pushed.

    Returns the withdrawal's notes commit date and the trust commit's; the clock is then a
    second past the trust commit's (a push enters after it).
    """
    _noted(remote, WITHDRAWAL, _at(0))  # community: no trust file lists the key yet
    signed = dt.datetime.fromtimestamp(int(git(
        remote.clone, "log", "-1", "--format=%ct", "refs/notes/kistore")), dt.UTC)
    next_second()
    assert remote.pr("trust the maintainer key", trust_maintainer(remote)).accepted
    trusted = _committed(remote)
    next_second()
    return signed, trusted


def _server_notes(remote: Remote) -> str | None:
    done = subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/notes/kistore"],
                          cwd=remote.bare, capture_output=True, text=True)
    return done.stdout.strip() or None


NOT_REBUILT = (
    "error: not rebuilt: `kistore notes rebase origin` writes this repository's lines again "
    "on origin's notes in notes commits dated now (more than one when a note's lines entered "
    "here at two times or more: in the order they entered, a second apart, the last dated "
    "now), and a note line enters the repository at its notes commit's date: that changes "
    "what 1 attestation line does for every reader, here and on origin:\n")
"""How ``kistore notes rebase origin`` refuses a rebuild changing one line made again's verdict
(until fb53db7b: "in one notes commit dated now"; it writes one per entry time, fresh17 F9
item 4)."""


def _line(blob: str, signed: dt.datetime, trusted: dt.datetime, made: str) -> str:
    """How a refusal (and --enter-now's note) names the early withdrawal."""
    return (f"the withdrawal by {MAINTAINER_ID} on {RUN} (note on {blob}) entered "
            f"this repository at {_text(signed)}, where every reader here judges it: "
            f"community (key {MAINTAINER_ID} is trusted from {_text(trusted)}; the "
            f"attestation entered the repository at {_text(signed)}, before: a community "
            f"attestation); made again, it enters at {made}: withdraws (trusted maintainer key)")


def _made_at(text: str) -> str:
    """The entry time a refusal gives the line made again (the push's clock, to the second)."""
    found = re.search(r"made again, it enters at (\S+Z):", text)
    assert found, text
    return found.group(1)


def test_a_push_making_a_community_withdrawal_count_is_refused_then_enters_now(remote):
    signed, trusted = _early(remote)
    blob = run_blob(remote.clone)
    ours = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()

    before = _at(0)
    refused = kistore(remote, "notes", "push", "origin", check=False)
    # on BASE b1992eea: pushed (exit 0), and the run withdrawn here and on the server
    assert refused.returncode == 1, refused.stdout + refused.stderr
    made = _made_at(refused.stderr)
    assert before <= dt.datetime.strptime(made, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=dt.UTC) <= _at(0)
    assert refused.stderr == (
        "error: not pushed to origin: the notes commits origin lacks are made again at this "
        "push, dated at it (KI437), and a note line enters the repository at its notes "
        "commit's date: that changes what 1 attestation line does for every reader, here and "
        "on origin:\n"
        f"  {_line(blob, signed, trusted, made)}\n"
        "ways out: `kistore notes push origin --enter-now` lets the line(s) named enter at the "
        "push and count as judged there; or, to have a line count by a signature made now, "
        "its signer attests again (`kistore attest`) and leaves the old line out as below; "
        "or, to keep a line from counting, leave it out: `git notes --ref kistore edit OBJ` "
        "and delete it, or `git notes --ref kistore remove OBJ` when it is the note's only "
        f"line (OBJ: {blob}), then `kistore notes rebase origin` and `kistore notes "
        "push origin`; nothing was pushed, your notes are unchanged\n")
    assert _server_notes(remote) is None  # nothing sent
    assert git(remote.clone, "rev-parse", "refs/notes/kistore").strip() == ours

    pushed = kistore(remote, "notes", "push", "origin", "--enter-now", "--json")
    made = _STAMP.findall(pushed.stderr.split("made again, it enters at ")[1])[0]
    assert json.loads(pushed.stdout)["effectChanged"] == [{
        "object": blob, "subject": str(RUN), "type": "withdrawal",
        "keyid": MAINTAINER_ID, "enteredAt": _text(signed), "effect": "community",
        "entersAt": made, "becomes": "withdraws"}]
    assert pushed.stderr.splitlines()[-1] == (
        "note: --enter-now: 1 attestation line enters now, its notes commits made again at "
        "the push, and every reader judges it there, not as this repository did until now: "
        f"{_line(blob, signed, trusted, made)}")
    assert _server_notes(remote) == git(remote.clone, "rev-parse", "refs/notes/kistore").strip()


def test_a_push_whose_making_again_changes_no_effect_pushes_as_before(remote):
    _noted(remote, bundle(STRANGER, "note"), _at(180))  # community, and stays so
    assert remote.pr("trust the maintainer key", trust_maintainer(remote)).accepted
    pushed = kistore(remote, "notes", "push", "origin", "--json")
    assert json.loads(pushed.stdout)["effectChanged"] == []
    assert json.loads(pushed.stdout)["redated"][0]["kept"] is False  # made again as one
    assert [line.split(":")[0] for line in pushed.stderr.splitlines()] == ["note"]
    assert "--enter-now" not in pushed.stderr
    assert _server_notes(remote) == git(remote.clone, "rev-parse", "refs/notes/kistore").strip()


def test_a_rebuild_making_a_community_withdrawal_count_is_refused_then_enters_now(remote):
    # fresh12's c9: the server holds notes the clone fetched; the clone's withdrawal is
    # signed before its key's trust lands, then `kistore notes rebase origin` (the fix of
    # KI301/KI408/KI409/KI424/KI428) wrote it again in a notes commit dated now: withdrawn
    blob = run_blob(remote.clone)
    _noted(remote, bundle(STRANGER, "reproduction"), _at(0))
    assert remote.push("refs/notes/kistore").accepted
    kistore(remote, "notes", "fetch", "origin")
    base = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    next_second()
    signed, trusted = _signed_then_trusted(remote)
    ours = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()

    refused = kistore(remote, "notes", "rebase", "origin", check=False)
    # on BASE b1992eea: rebuilt (exit 0), and the run withdrawn
    assert refused.returncode == 1, refused.stdout + refused.stderr
    made = _made_at(refused.stderr)
    assert refused.stderr == (
        NOT_REBUILT + f"  {_line(blob, signed, trusted, made)}\n"
        "ways out: `kistore notes rebase origin --enter-now` lets the line(s) named enter now "
        "and count as judged there; or, to have a line count by a signature made now, its "
        "signer attests again (`kistore attest`) and leaves the old line out as below; or, "
        "to keep a line from counting, leave it out: `git notes --ref kistore edit OBJ` and "
        "delete it, or `git notes --ref kistore remove OBJ` when it is the note's only line "
        f"(OBJ: {blob}), then `kistore notes rebase origin` again; refs/notes/kistore is "
        "unchanged (but for what the fetch from origin merged, as `kistore notes fetch` "
        "does)\n")
    assert git(remote.clone, "rev-parse", "refs/notes/kistore").strip() == ours  # not moved
    assert _server_notes(remote) == base

    rebuilt = kistore(remote, "notes", "rebase", "origin", "--enter-now", "--json")
    made = _STAMP.findall(rebuilt.stderr.split("made again, it enters at ")[1])[0]
    said = json.loads(rebuilt.stdout)
    assert (said["added"], said["effectChanged"]) == (1, [{
        "object": blob, "subject": str(RUN), "type": "withdrawal", "keyid": MAINTAINER_ID,
        "enteredAt": _text(signed), "effect": "community", "entersAt": made,
        "becomes": "withdraws"}])
    assert rebuilt.stderr == (
        "note: --enter-now: 1 attestation line enters now, written again in the notes "
        "commit(s) the rebuild made, and every reader judges it there, not as this repository "
        f"did until now: {_line(blob, signed, trusted, made)}\n")
    assert git(remote.clone, "rev-parse", "refs/notes/kistore").strip() != ours


def test_enter_now_without_a_remote_is_refused(remote):
    refused = kistore(remote, "notes", "rebase", "--enter-now", check=False)
    assert (refused.returncode, refused.stderr) == (1, (
        "error: --enter-now is for `kistore notes rebase REMOTE` (and `kistore notes push "
        "REMOTE`), whose notes commit made now brings lines in; `kistore notes rebase` with "
        "no REMOTE keeps each line's entry\n"))


def test_ki439_within_the_minute_names_the_ways_out_not_the_wait(remote):
    # fresh12's c7, pushed within the minute: KI439 said "set this machine's clock right
    # ...; a line within a minute of a key's start: wait that minute, then `kistore notes
    # push REMOTE`", and that push (made again) made the community withdrawal count
    blob = run_blob(remote.clone)
    signed, trusted = _signed_then_trusted(remote)

    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert ("fix KI439 (1 finding): this machine's clock is not the cause: it dated the "
            f"line's notes commit, and key {MAINTAINER_ID} counts from {_text(trusted)}, "
            "between the line's entry and this push's clock: the line was signed on the other "
            "side of its key's start, and no wait mends it (a push after a minute makes the "
            "notes again at the push, which changes the line's effect, refused as such): "
            "`kistore notes push REMOTE --enter-now` lets it enter at the push and be judged "
            "there; or its signer attests again and leaves the old line out; or, to keep it "
            f"from counting, leave it out: `git notes --ref kistore edit {blob}` and delete "
            "it, then `kistore notes rebase REMOTE` and `kistore notes push REMOTE`\n"
            ) in refused.stderr, refused.stderr
    assert "wait that minute" not in refused.stderr
    assert refused.stderr.endswith(
        "a line KI439 names was signed on the other side of its key's start than this push's "
        "clock: KI439's fix above names the ways out (this machine's clock is not the cause, "
        "and waiting does not help); nothing was pushed, your notes are unchanged\n")
    assert _server_notes(remote) is None

    pushed = kistore(remote, "notes", "push", "origin", "--enter-now", "--json")
    changed = json.loads(pushed.stdout)["effectChanged"]
    assert [(c["enteredAt"], c["effect"], c["becomes"]) for c in changed] == [
        (_text(signed), "community", "withdraws")]
    assert _server_notes(remote) == git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
