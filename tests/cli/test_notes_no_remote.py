"""Notes taken back in a store with no remote; KI315 says who removed a line (fresh08).

* M5: with no remote (`kistore init`, `make demo`), a mistaken line of one's own taken back
  with ``git notes --ref kistore remove`` blocked ``site build`` and ``export`` for good:
  KI315's ways out were ``notes restore`` (the mistake back) or ``notes rebase REMOTE``.
  ``kistore notes rebase`` with no REMOTE now drops from the notes history (and what the
  reflog reads) the lines the tip lacks, saying each, and records the boundary.
* L1: a clone that fetched a history whose notes commit removed a line was told "they were
  removed here": it now names the notes commit, and says "here" only when this clone's
  reflog shows it made that commit.
* L3 (fresh07 M2): ``notes push`` re-dating a tip that lacks a line of its own history
  pushed without a word; it now warns, naming the line (KI315 keeps warning after).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import UTC, datetime, timedelta

import pytest

from kistore.attest import attestation, signing
from kistore.core import layout
from kistore.store import Store

from ..conftest import fixed_key, git
from ..prs import Remote
from ..sparse import trust_maintainer, withdraw
from .test_notes_tip_lacking import (
    NO_REMOTE,
    NO_REMOTE_FIX,
    SLOW,
    WITHDRAWN,
    _note_by,
    _ranked,
    ki315,
    moved_back,
    run,
)

FAST_NOTE = f"BenchmarkRun/fast (note by {signing.keyid(fixed_key(8).public_key())})"


def said(how: str, own: str = "", named: str = SLOW, undone: str = WITHDRAWN) -> str:
    """KI315's message of one lacking line, removed ``how``, then ``own``'s clause."""
    return (f"refs/notes/kistore lacks 1 attestation line(s) its own notes history or an "
            f"earlier tip of it (its reflog) held: {named}; they were removed {how}, and "
            "notes only grow (KI408): what is read at this tip counts them as never made "
            f"({undone}), a state the rules refuse; `kistore notes restore` puts them back"
            + own)


HERE = ("here (`git notes remove`, `git notes edit`, a notes merge, the ref moved back or "
        "fetched over)")
ORIGIN = (" (a line of this repository's own, never pushed, that you meant to take back: "
          "`kistore notes rebase origin` rebuilds the notes without it)")


@pytest.fixture
def mistaken(group):
    """A store with no remote: a note on fast, then a trusted withdrawal of slow taken back
    with ``git notes remove`` (three notes commits); returns ``(root, first notes commit,
    tip, slow's blob)``."""
    trust_maintainer(group)
    store = Store(group.root)
    _note_by(store, "fast", 8, "first")
    first = git(group.root, "rev-parse", "refs/notes/kistore").strip()
    slow = store.view("HEAD").find_name("BenchmarkRun", "slow")
    withdraw(store, slow, as_file=False)
    blob = git(group.root, "rev-parse", f"HEAD:{layout.object_path(slow)}").strip()
    git(group.root, "notes", "--ref", "kistore", "remove", blob)
    tip = git(group.root, "rev-parse", "refs/notes/kistore").strip()
    return group.root, first, tip, blob


def test_no_remote_a_line_taken_back_is_dropped_by_notes_rebase(mistaken, tmp_path):
    # fresh08 M5: refused for good; `notes rebase` needed a REMOTE
    root, first, tip, _blob = mistaken
    assert ki315(root) == [("refs/notes/kistore", said(HERE, NO_REMOTE), NO_REMOTE_FIX)]
    site = tmp_path / "site"
    assert run(root, "site", "build", str(site)).returncode == 1

    dry = run(root, "notes", "rebase", "--dry-run")  # says, writes nothing
    assert (dry.returncode, dry.stderr) == (0, "")
    assert dry.stdout == (
        "would drop 1 attestation line(s) the notes history or reflog of refs/notes/kistore "
        f"held that its tip lacks: {SLOW}; `kistore notes rebase` drops them (this "
        "repository has no remote configured: a line it pushed by URL, or to a remote since "
        "removed, stays there)\n")
    assert git(root, "rev-parse", "refs/notes/kistore").strip() == tip

    done = run(root, "notes", "rebase")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "dropped 1 attestation line(s) the notes history or reflog of refs/notes/kistore "
        f"held that its tip lacks: {SLOW}; refs/notes/kistore is now notes commit "
        f"{first[:12]} of its history, which holds every line of the tip and none of "
        f"those; the old tip {tip[:12]} stays in git: `git update-ref refs/notes/kistore "
        f"{tip}` puts it back\n")
    assert git(root, "rev-parse", "refs/notes/kistore").strip() == first
    assert ki315(root) == []
    assert _ranked(root)["slow"] is False  # the tip as it was: the mistake never made
    built = run(root, "site", "build", str(site))
    assert built.returncode == 0, built.stderr
    again = run(root, "notes", "rebase")
    assert (again.returncode, again.stdout) == (
        0, "refs/notes/kistore holds every line its notes history, and its reflog since the "
           "last `kistore notes rebase`, held: nothing to drop\n")


def test_no_remote_lines_added_after_the_mistake_are_kept_as_they_entered(mistaken):
    root, first, _tip, _blob = mistaken
    store = Store(root)
    named = _note_by(store, "slow", 9, "later, kept")
    tip = git(root, "rev-parse", "refs/notes/kistore").strip()
    done = run(root, "notes", "rebase", "--json")
    assert done.returncode == 0, done.stderr
    new = git(root, "rev-parse", "refs/notes/kistore").strip()
    assert json.loads(done.stdout) == {
        "dropped": 1, "notes": [git(root, "rev-parse", "HEAD:" + layout.object_path(
            store.view("HEAD").find_name("BenchmarkRun", "slow"))).strip()],
        "old": tip, "new": new, "base": first, "enteringNow": 0, "replayed": [tip],
        "leftOut": [git(root, "rev-parse", f"{tip}~{n}").strip() for n in (2, 1)]}
    assert git(root, "rev-parse", "refs/notes/kistore^").strip() == first
    assert git(root, "log", "-1", "--format=%an %ae %ad %cn %ce %cd %B", "--date=raw",
               new) == git(root, "log", "-1", "--format=%an %ae %ad %cn %ce %cd %B",
                           "--date=raw", tip)  # replayed (fresh10 HIGH 1): entering then
    assert git(root, "rev-parse", "refs/notes/kistore^{tree}") == git(
        root, "rev-parse", f"{tip}^{{tree}}")  # the tip's notes, byte for byte
    assert ki315(root) == []
    listed = run(root, "attestations", "BenchmarkRun/slow")  # the later line is read
    assert named.split(" by ")[1].rstrip(")") in listed.stdout, listed.stdout


def test_no_remote_a_ref_moved_back_is_accepted_as_it_is(group):
    # the reflog half alone: the tip's notes are kept, a marker notes commit on the tip is
    # logged as the boundary (fresh12 F12: git logs no move to the tip the ref holds, and
    # the boundary was a count under .git/kistore/; tests/cli/test_notes_rebase_mark.py)
    moved_back(group)
    tip = git(group.root, "rev-parse", "refs/notes/kistore").strip()
    assert len(ki315(group.root)) == 1
    done = run(group.root, "notes", "rebase")
    assert done.returncode == 0, done.stderr
    marker = git(group.root, "rev-parse", "refs/notes/kistore").strip()
    assert done.stdout.startswith(f"dropped 1 attestation line(s) the notes history or reflog "
                                  f"of refs/notes/kistore held that its tip lacks: {SLOW}; "
                                  f"refs/notes/kistore is now notes commit {marker[:12]} on "
                                  f"its tip {tip[:12]}, whose history holds none of those: ")
    assert git(group.root, "rev-parse", "refs/notes/kistore^").strip() == tip
    assert ki315(group.root) == []


@pytest.fixture
def clone(group, tmp_path) -> Remote:
    """A clone of a server with hooks/pre-receive, whose notes hold slow's withdrawal."""
    trust_maintainer(group)
    here = Remote(group.root, tmp_path)
    store = Store(here.clone)
    withdraw(store, store.view("HEAD").find_name("BenchmarkRun", "slow"), as_file=False)
    assert run(here.clone, "notes", "push", "origin").returncode == 0
    return here


def test_with_a_remote_notes_rebase_names_the_remote_form(clone):
    where = clone.clone
    tip = git(where, "rev-parse", "refs/notes/kistore").strip()
    done = run(where, "notes", "rebase")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "error: no REMOTE given, and this repository has remote(s) origin: lines of its "
        "notes may be there, and a line pushed cannot be dropped (notes only grow, KI408); "
        "`kistore notes rebase origin` rebuilds the notes on origin's, leaving out the "
        "lines of this repository's own, never pushed, that its tip lacks\n")
    assert git(where, "rev-parse", "refs/notes/kistore").strip() == tip


def test_a_removal_fetched_with_the_history_is_named_by_its_commit(mistaken, tmp_path):
    # fresh08 L1: a fresh clone, which removed nothing, was told "they were removed here"
    root, _first, removal, _blob = mistaken
    assert ki315(root)[0][1] == said(HERE, NO_REMOTE)  # the store that removed it

    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(root), str(fresh))
    fetched = run(fresh, "notes", "fetch", "origin")
    assert fetched.returncode == 0, fetched.stderr
    assert git(fresh, "rev-parse", "refs/notes/kistore").strip() == removal
    assert ki315(fresh) == [("refs/notes/kistore",
                             said(f"in the notes history (notes commit {removal[:12]})"),
                             "run `kistore notes restore`")]


def _dated(minutes_ago: int) -> dict[str, str]:
    when = (datetime.now(UTC) - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when}


def test_notes_push_of_a_tip_lacking_an_own_line_warns_naming_it(clone):
    # fresh07 M2 / fresh08 L3: the push re-dates the unpushed commits (older than a
    # minute) into one holding the tip's lines: the removal is not sent, and was not said
    where = clone.clone
    store = Store(where)
    fast = store.view("HEAD").find_name("BenchmarkRun", "fast")
    blob = git(where, "rev-parse", f"HEAD:{layout.object_path(fast)}").strip()
    statement = attestation.make_statement(fast, layout.object_path(fast), "note",
                                           {"text": "own", "createdAt": "2026-07-11T00:00:00Z"})
    line = attestation.sign_statement(statement, fixed_key(8)).to_bytes().decode()
    for args in (["add", "-m", line, blob], ["remove", blob]):  # 5 minutes ago, by mistake
        subprocess.run(["git", "notes", "--ref", "kistore", *args], cwd=where, check=True,
                       capture_output=True, env=_dated(5))
    note = said(HERE, ORIGIN, FAST_NOTE, "a community note is not listed")
    assert [m for _f, m, _h in ki315(where)] == [note]

    pushed = run(where, "notes", "push", "origin")
    assert pushed.returncode == 0, pushed.stderr
    assert pushed.stdout == ("pushed refs/notes/kistore to origin, after merging the 0 "
                             "attestation(s) origin had that this repository lacked\n")
    redated, lacking = pushed.stderr.splitlines(keepends=True)
    assert re.fullmatch(  # msg03: said, the two commits 5 minutes old made again as one
        r"note: 2 notes commits origin lacked were dated up to 5 minutes( \d+ seconds?)? "
        r"before this machine's clock: made again as one notes commit dated at the push, "
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, holding the tip's lines, since a note line "
        r"enters the repository at its notes commit's date, and a notes commit a remote "
        r"lacks is sent as it is only when dated within 1 minute of this machine's clock "
        r"\(a server refuses one dated more than 10 minutes before its clock, KI437\)\n",
        redated)  # fresh14 F9: the minute that made it again, not the server's 10
    assert lacking == (
        "warning: pushed refs/notes/kistore to origin without 1 attestation line(s) its "
        f"notes history or reflog held: {FAST_NOTE}; origin's notes lack them, and KI315 says "
        "them until `kistore notes restore` then `kistore notes push origin` sends them, "
        "or, for a line you meant to take back, `kistore notes rebase origin` drops them\n")
    assert [m for _f, m, _h in ki315(where)] == [note]  # still said after the push
    assert run(where, "notes", "rebase", "origin").returncode == 0
    assert ki315(where) == []


def test_the_mistaken_withdrawal_is_what_was_dropped(mistaken):
    # nothing else: the note on fast, made before the mistake, is kept and still read
    root, _first, _tip, _blob = mistaken
    assert run(root, "notes", "rebase").returncode == 0
    assert git(root, "notes", "--ref", "kistore", "list").count("\n") == 1  # fast's
    listed = run(root, "attestations", "BenchmarkRun/fast")
    assert signing.keyid(fixed_key(8).public_key()) in listed.stdout, listed.stdout
