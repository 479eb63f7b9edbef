"""A notes push refused after another clone's push names the line it makes again (fresh17 F4).

Two clones of one server, one rerun key: clone A attests ``not-reproduced``, clone B later
attests ``reproduced`` and pushes first (its line enters at its push). A's push, more than a
minute after A's attest, makes A's line again at the push, after B's: A's older word would
overturn B's later one on the server, and the push is refused (rightly). Until 2026-12-08
the refusal listed every line of the run whose verdict changed as "made again", the lines
origin had held for long ("made again, it enters at" the same time) with them, and the one
line made again among them; its first way out, ``--enter-now``, did not say that B's later
rerun would be superseded.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import time

from kistore.attest import signing

from ..attest.test_attestation_evidence import RERUN_KEY, RUN, bundle
from ..check.test_notes_gate_history import run_blob
from ..conftest import git, next_second
from ..prs import KISTORE, Remote, _env
from . import test_notes_push_rerun_order as _order
from .test_notes_push_effect_changed import NOT_REBUILT, _made_at
from .test_notes_push_rerun_order import _at, _text

RERUN_ID = signing.keyid(RERUN_KEY.public_key())
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
remote = _order.remote
"""The fixture: the server and clone A, RERUN_KEY trusted for rerun since ten minutes ago."""


def _cli(where, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """The CLI in ``where``, its pushes judged by the server's hook (which runs $KISTORE)."""
    done = subprocess.run([KISTORE, *args], cwd=where, capture_output=True, text=True,
                          env={**_env(), "KISTORE": KISTORE})
    assert not check or done.returncode == 0, done.stdout + done.stderr
    return done


def _noted(clone, lines: list[bytes], when: dt.datetime) -> str:
    """Add ``lines`` to the note on the run (sorted, as ``kistore attest`` writes it) in one
    notes commit dated ``when``; return the note's object."""
    blob = run_blob(clone)
    held = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob], cwd=clone,
                          capture_output=True).stdout.splitlines()
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-", blob],
                   cwd=clone, input=b"".join(x + b"\n" for x in sorted({*held, *lines})),
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": f"@{int(when.timestamp())} +0000"})
    return blob


def _rerun(outcome: str, observed: dt.datetime) -> bytes:
    return bundle(RERUN_KEY, outcome=outcome, observedAt=_text(observed))


def _two_clones(remote: Remote, tmp_path, old: int, theirs: int = 1, *,
                apart: bool = True) -> dict[str, str]:
    """fresh17 F4: origin holds ``old`` not-reproduced reruns of the key, entered 5 minutes
    ago; A (``remote.clone``) attests not-reproduced 2 minutes ago; B attests ``theirs``
    reproduced reruns 100 s ago and pushes first (made again: they enter at B's push).

    Returns the entry times (``held``, ``mine``, ``theirs``), the note's object
    (``blob``) and A's line (``line``); the clock is then past B's push's second. B's
    lines enter a second apart, the last at ``theirs`` (``apart``; else in one notes
    commit, at once).
    """
    held = _at(300)
    _noted(remote.clone, [_rerun("not-reproduced", held - dt.timedelta(seconds=k))
                          for k in range(old)], held)
    assert remote.push("refs/notes/kistore").accepted
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote.bare), str(other))
    _cli(other, "notes", "fetch", "origin")
    _cli(remote.clone, "notes", "fetch", "origin")
    mine = _at(120)
    line = _rerun("not-reproduced", mine)
    _noted(remote.clone, [line], mine)
    if not apart:
        _noted(other, [_rerun("reproduced", _at(100 + k)) for k in range(theirs)], _at(100))
    for k in reversed(range(theirs if apart else 0)):  # B's push keeps them apart
        _noted(other, [_rerun("reproduced", _at(100 + k))], _at(100 + k))
    _cli(other, "notes", "push", "origin")
    pushed = dt.datetime.fromtimestamp(int(git(
        remote.bare, "log", "-1", "--format=%ct", "refs/notes/kistore")), dt.UTC)
    next_second(remote.bare)
    return {"held": _text(held), "mine": _text(mine), "theirs": _text(pushed),
            "blob": run_blob(remote.clone), "line": line.decode()}


def _mine(at: dict[str, str], made: str) -> str:
    """How a refusal names A's line, made again."""
    return (f"the rerun (not-reproduced) by {RERUN_ID} on {RUN} (note on {at['blob']}) entered "
            f"this repository at {at['mine']}, where every reader here judges it: superseded "
            f"(superseded by the same key's later rerun (reproduced, entered {at['theirs']})); "
            f"made again, it enters at {made}: disagrees (trusted rerun key, outcome "
            "not-reproduced)")


def _theirs(at: dict[str, str], made: str) -> str:
    """How a refusal names B's line, which A's made again would supersede."""
    return (f"the rerun (reproduced) by {RERUN_ID} on {RUN} (note on {at['blob']}), not made "
            f"again (it entered at {at['theirs']} and stays there), the same key's later "
            "rerun: verifies (trusted rerun key) now, superseded (superseded by the same "
            f"key's later rerun (not-reproduced, entered {made})) once the line(s) made "
            "again enter")


def _ways(at: dict[str, str], command: str, consequence: str) -> str:
    then = ("`kistore notes rebase origin` and `kistore notes push origin`" if command == "push"
            else "`kistore notes rebase origin` again")
    return ("ways out: to keep every other line's verdict as it is now, leave the line(s) made "
            "again out: `git notes --ref kistore edit OBJ` and delete it, or `git notes --ref "
            f"kistore remove OBJ` when it is the note's only line (OBJ: {at['blob']}), then "
            f"{then}; or `kistore notes {command} origin --enter-now` lets the line(s) made "
            f"again enter {'at the push' if command == 'push' else 'now'} and count as judged "
            f"there, which changes every verdict above: {consequence}; or, to have a line "
            "count by a signature made now, its signer attests again (`kistore attest`) and "
            "leaves the old line out as above (a line signed now enters now too, with the "
            "same consequences)")


def _superseded(at: dict[str, str], before: int = 0) -> str:
    """How --enter-now's way out names B's line entered ``before`` seconds before its last."""
    entered = dt.datetime.strptime(at["theirs"], "%Y-%m-%dT%H:%M:%SZ") - dt.timedelta(
        seconds=before)
    return (f"the key's later reproduced of {RUN} (note on {at['blob']}, entered "
            f"{_text(entered)}) would be superseded")


def test_a_push_after_another_clones_names_the_line_it_makes_again_first(remote, tmp_path):
    at = _two_clones(remote, tmp_path, 3)
    ours = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    server = git(remote.bare, "rev-parse", "refs/notes/kistore").strip()

    refused = _cli(remote.clone, "notes", "push", "origin", check=False)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    made = _made_at(refused.stderr)
    # on BASE fb53db7b: "that changes what 5 attestation lines do", the 3 lines origin held
    # for minutes each "made again, it enters at" the time it entered, and --enter-now
    # first, without a word of B's later rerun it would supersede
    assert refused.stderr == (
        "error: not pushed to origin: the notes commits origin lacks are made again at this "
        "push, dated at it (KI437), and a note line enters the repository at its notes "
        "commit's date: that changes what 1 attestation line does for every reader, here and "
        f"on origin:\n  {_mine(at, made)}\n"
        "and so what 4 lines not made again do (each keeps its entry):\n"
        f"  {_theirs(at, made)}\n"
        "  and 3 more line(s) not made again whose verdict changes with them: 3 from "
        "superseded to disagrees\n"
        f"{_ways(at, 'push', _superseded(at))}; nothing was pushed, your notes are "
        "unchanged\n")
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == server
    assert git(remote.clone, "rev-parse", "refs/notes/kistore").strip() != ours  # B's merged

    rebuilt = _cli(remote.clone, "notes", "rebase", "origin", check=False)
    assert rebuilt.returncode == 1, rebuilt.stdout + rebuilt.stderr
    made = _made_at(rebuilt.stderr)
    # on BASE fb53db7b: "writes this repository's lines again in one notes commit dated now"
    # (it writes one per time a note's lines entered: fresh17 F9 item 4)
    assert rebuilt.stderr == (
        f"{NOT_REBUILT}  {_mine(at, made)}\n"
        "and so what 4 lines not made again do (each keeps its entry):\n"
        f"  {_theirs(at, made)}\n"
        "  and 3 more line(s) not made again whose verdict changes with them: 3 from "
        "superseded to disagrees\n"
        f"{_ways(at, 'rebase', _superseded(at))}; refs/notes/kistore is unchanged (but for "
        "what the fetch from origin merged, as `kistore notes fetch` does)\n")

    # the first way out keeps every verdict: A's line left out, B's later word stands
    held = subprocess.run(["git", "notes", "--ref", "kistore", "show", at["blob"]],
                          cwd=remote.clone, capture_output=True, check=True).stdout
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-", at["blob"]],
                   cwd=remote.clone, check=True, capture_output=True, input=b"".join(
                       x + b"\n" for x in held.splitlines() if x != at["line"].encode()))
    _cli(remote.clone, "notes", "rebase", "origin")
    _cli(remote.clone, "notes", "push", "origin")
    listed = json.loads(_cli(remote.clone, "attestations", str(RUN), "--json").stdout)
    assert listed["evidenceLevel"] == "verified"


def test_enter_now_says_the_later_rerun_it_superseded(remote, tmp_path):
    at = _two_clones(remote, tmp_path, 1)
    pushed = _cli(remote.clone, "notes", "push", "origin", "--enter-now", "--json")
    made = _made_at(pushed.stderr)
    assert sorted((c["enteredAt"], c["effect"], c["entersAt"], c["becomes"]) for c in
                  json.loads(pushed.stdout)["effectChanged"]) == [
        (at["held"], "superseded", at["held"], "disagrees"),
        (at["mine"], "superseded", made, "disagrees"),
        (at["theirs"], "verifies", at["theirs"], "superseded")]
    # on BASE fb53db7b: the three lines, each as made again, B's among them
    # its other lines: KI442 of the lines made again (they entered before the fixture's trust
    # commit, dated at the test's start, and count by its past validFrom; fresh17 F12)
    assert [x for x in pushed.stderr.splitlines() if x.startswith("note: --enter-now")] == [(
        "note: --enter-now: 1 attestation line enters now, its notes commits made again at "
        "the push, and every reader judges it there, not as this repository did until now: "
        f"{_mine(at, made)}; and so 2 lines not made again changed verdict: "
        f"{_theirs(at, made)}; and 1 more line(s) not made again whose verdict changes with "
        "them: 1 from superseded to disagrees")]


def test_a_refusal_names_ten_lines_of_a_kind_and_counts_the_rest(remote, tmp_path):
    # B pushed 12 reproduced reruns of the key, entered a second apart: A's not-reproduced,
    # made again, supersedes all twelve; ten are named (the latest first), the rest counted,
    # and --enter-now's consequence names three
    at = _two_clones(remote, tmp_path, 1, theirs=12)
    refused = _cli(remote.clone, "notes", "push", "origin", check=False)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    made = _made_at(refused.stderr)
    lines = refused.stderr.splitlines()
    # on BASE fb53db7b: 14 lines, each "made again", A's 13th
    assert lines[1:3] == [f"  {_mine(at, made)}",
                          "and so what 13 lines not made again do (each keeps its entry):"]
    assert len(lines) == 15, refused.stderr
    assert [_STAMP.sub("T", line) for line in lines[3:13]] == [
        "  " + _STAMP.sub("T", _theirs(at, made))] * 10
    assert [_STAMP.findall(line)[0] for line in lines[3:13]] == [
        _superseded(at, k).split("entered ")[1][:20] for k in range(10)]
    assert lines[13] == ("  and 3 more line(s) not made again whose verdict changes with "
                         "them: 2 from verifies to superseded, 1 from superseded to disagrees")
    assert lines[14] == _ways(at, "push", "; ".join(_superseded(at, k) for k in range(3))
                              + "; and 9 more of its later reruns (above)") + (
        "; nothing was pushed, your notes are unchanged")


def test_lines_alike_are_said_once(remote, tmp_path):
    # B's two reruns entered in one notes commit: said once, "2 lines alike"
    at = _two_clones(remote, tmp_path, 1, 2, apart=False)
    refused = _cli(remote.clone, "notes", "push", "origin", check=False)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    made = _made_at(refused.stderr)
    assert refused.stderr.splitlines()[2:] == [
        "and so what 3 lines not made again do (each keeps its entry):",
        f"  2 lines alike: {_theirs(at, made)}",
        "  and 1 more line(s) not made again whose verdict changes with them: 1 from "
        "superseded to disagrees",
        _ways(at, "push", f"{_superseded(at)} (2 lines alike)") + "; nothing was pushed, your "
        "notes are unchanged"]


def test_notes_commits_made_again_in_order_end_at_the_push(remote):
    # fresh17 F9 item 5: docs say "the first on REMOTE's tip and the last dated now"; the
    # last is dated at the push's clock, read once the fetch is done (a second or two after
    # the command starts, which fresh17 took for "2 s after the clock"), the others a
    # second apart before it: none after the clock
    for ago in (130, 120, 110):
        _noted(remote.clone, [_rerun("reproduced" if ago != 110 else "not-reproduced",
                                     _at(ago))], _at(ago))
    started = int(time.time())
    pushed = _cli(remote.clone, "notes", "push", "origin")
    ended = int(time.time())
    dates = [int(d) for d in git(remote.bare, "log", "-3", "--format=%ct",
                                 "refs/notes/kistore").split()]
    assert dates == [dates[0], dates[0] - 1, dates[0] - 2]
    assert started <= dates[0] <= ended
    last = dt.datetime.fromtimestamp(dates[0], dt.UTC)
    assert (f"made again as 3 notes commits dated at the push, a second apart up to "
            f"{_text(last)}, in the order their lines entered") in pushed.stderr
