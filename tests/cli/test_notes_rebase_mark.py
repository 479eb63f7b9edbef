"""The mark of ``kistore notes rebase`` is a reflog entry, not a file under .git/kistore/.

fresh12 F12: after ``kistore notes rebase`` dropped a line only the notes ref's reflog held
(the ref moved back with ``git update-ref``), the one record of it was an entry count in
``.git/kistore/notes-rebased``, a directory README calls a cache. Deleting it brought KI315
back, and KI315's first fix, ``kistore notes restore``, restored the mistake dropped on
purpose; once ``git reflog expire`` dropped the unreachable entries (the tips dropped), the
count hid the newest entries, so a line lost after the rebase was never said. The rebase
now always logs its move, and where the ref would not move it writes a marker notes commit
(the tip's tree, the tip its one parent) and moves the ref to it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from kistore.attest import notes_reflog
from kistore.attest.notes import notes_entered
from kistore.core import layout
from kistore.store import Store

from ..conftest import git
from ..prs import KISTORE, _env
from .test_notes_tip_lacking import (
    SLOW,
    _note_by,
    _ranked,
    clone,  # noqa: F401 (a fixture)
    ki315,
    moved_back,
    removed,
    run,
)

REF = "refs/notes/kistore"
ZERO = "0" * 40
HOLDS_ALL = ("0 attestation line(s) restored: refs/notes/kistore holds every line its "
             "history, and its reflog since the last `kistore notes rebase`, held")


def tip(where: Path) -> str:
    return git(where, "rev-parse", REF).strip()


def last_logged(where: Path) -> str:
    """The message of the newest entry of the notes ref's reflog."""
    return git(where, "reflog", "show", "-1", "--format=%gs", REF).strip()


def answers(where: Path) -> dict[str, object]:
    """What readers answer: ranks, slow's attestations, verify's findings but KI315, and
    every line's entry time."""
    findings = json.loads(run(where, "verify", "--json").stdout)["findings"]
    return {
        "rank": json.loads(run(where, "rank", "BenchmarkRun/fast", "--all", "--json").stdout),
        "attestations": run(where, "attestations", "BenchmarkRun/slow", "--json").stdout,
        "verify": [f for f in findings if f["rule"] != "KI315"],
        "entered": notes_entered(Store(where).repo, []),
    }


def gated(where: Path, new: str) -> list[dict]:
    """``check --updates -`` of every line the notes tip ``new`` brings: the push gate's
    findings (KI439, a line judged otherwise at entry than at the clock, among them)."""
    done = subprocess.run([KISTORE, "check", "--updates", "-", "--json"], cwd=where,
                          input=f"{ZERO} {new} {REF}\n", capture_output=True, text=True,
                          env={**_env(), "KISTORE": KISTORE})
    return json.loads(done.stdout)["findings"]


def slow_blob(root: Path) -> str:
    """The blob of run slow's object, which its notes annotate."""
    slow = Store(root).view("HEAD").find_name("BenchmarkRun", "slow")
    return git(root, "rev-parse", f"HEAD:{layout.object_path(slow)}").strip()


def dropped_from_the_reflog(group) -> tuple[Path, str]:
    """F12's store: slow's trusted withdrawal taken back by moving the ref back, then a later
    note; returns ``(root, the notes tip)`` (the mistake is in the reflog alone)."""
    moved_back(group)
    _note_by(Store(group.root), "fast", 9, "after")
    return group.root, tip(group.root)


def test_the_mark_outlives_removing_dot_git_kistore(group):
    root, old = dropped_from_the_reflog(group)
    assert [f for f, _m, _h in ki315(root)] == [REF]
    before, gate_before = answers(root), gated(root, old)
    assert sorted(len(lines) for lines in before["entered"].values()) == [2]  # fast's 2 notes

    done = run(root, "notes", "rebase")
    assert (done.returncode, done.stderr) == (0, "")
    marker = tip(root)
    assert done.stdout == (
        f"dropped 1 attestation line(s) the notes history or reflog of {REF} held that its "
        f"tip lacks: {SLOW}; {REF} is now notes commit {marker[:12]} on its tip {old[:12]}, "
        "whose history holds none of those: holding the same notes, it brings no line and "
        "marks the rebase in the reflog, whose earlier tips are no longer read (KI315)\n")
    assert git(root, "rev-parse", f"{marker}^@").split() == [old]  # the tip its one parent
    assert git(root, "rev-parse", f"{marker}^{{tree}}") == git(root, "rev-parse",
                                                               f"{old}^{{tree}}")
    assert git(root, "log", "-1", "--format=%B", marker) == (
        "kistore: notes rebase (no remote) dropped 1 attestation line(s) only the reflog of "
        "refs/notes/kistore held\n\nThis commit holds its parent's notes and brings no line: "
        "it marks the rebase in the reflog, whose earlier tips KI315 and `kistore notes "
        "restore` no longer read.\n\n")
    assert last_logged(root) == "kistore notes rebase (no remote)"
    assert not (root / ".git" / notes_reflog.REBASED_FILE).exists()  # no file written
    assert ki315(root) == []
    # the marker brings no line: every answer, and every line's entry time, is the same
    assert answers(root) == before
    assert gated(root, marker) == gate_before

    shutil.rmtree(root / ".git" / "kistore")  # "a cache"
    assert ki315(root) == []  # fresh12 F12: KI315 was back
    restored = run(root, "notes", "restore")
    assert (restored.returncode, restored.stdout) == (0, HOLDS_ALL + "\n")
    assert _ranked(root)["slow"] is False  # the mistake stays dropped
    assert tip(root) == marker


def test_a_line_lost_after_the_rebase_is_said_once_unreachable_entries_expire(group):
    # the count of entries hid the newest ones once `git reflog expire` (`git gc`, after 30
    # days) dropped the unreachable entries, those of the tips dropped
    root, old = dropped_from_the_reflog(group)
    done = run(root, "notes", "rebase", "--json")
    assert done.returncode == 0, done.stderr
    marker = tip(root)
    assert json.loads(done.stdout) == {
        "dropped": 1, "notes": [slow_blob(root)], "old": old, "new": marker, "base": old,
        "enteringNow": 0, "replayed": [], "leftOut": [], "marker": marker}
    git(root, "reflog", "expire", "--expire-unreachable=now", "--all")
    assert ki315(root) == []
    later = _note_by(Store(root), "slow", 10, "lost later")
    git(root, "update-ref", REF, f"{REF}~1")  # this one taken back too: said
    assert ki315(root) == [(REF, removed(later, undone="a community note is not listed",
                                         own=False),
                            "run `kistore notes restore` (a line taken back by mistake), or "
                            "`kistore notes rebase` (a line you meant to take back, never "
                            "pushed: this repository has no remote)")]


def test_a_store_rebased_before_the_mark_keeps_its_count_until_rebased_again(group):
    # a store rebased before 2026-12-07: no rebase entry, its count in the legacy file
    root, _old = dropped_from_the_reflog(group)
    entries = len(git(root, "reflog", "show", REF).splitlines())
    legacy = root / ".git" / notes_reflog.REBASED_FILE
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text(str(entries), encoding="ascii")  # as mark_rebased wrote it
    assert ki315(root) == []  # read while the reflog holds no rebase entry

    later = _note_by(Store(root), "slow", 10, "lost later")
    git(root, "update-ref", REF, f"{REF}~1")
    assert [m for _f, m, _h in ki315(root)] == [
        removed(later, undone="a community note is not listed", own=False)]
    done = run(root, "notes", "rebase")
    assert done.returncode == 0, done.stderr
    assert not legacy.exists()  # the rebase logged its own entry: the count is gone
    assert last_logged(root) == "kistore notes rebase (no remote)"
    assert ki315(root) == []


def test_a_legacy_count_is_not_read_once_the_reflog_holds_a_rebase_entry(group):
    root, _old = dropped_from_the_reflog(group)
    assert run(root, "notes", "rebase").returncode == 0
    legacy = root / ".git" / notes_reflog.REBASED_FILE
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text("1000", encoding="ascii")  # a stale count hiding every entry
    later = _note_by(Store(root), "slow", 10, "lost later")
    git(root, "update-ref", REF, f"{REF}~1")
    assert [m for _f, m, _h in ki315(root)] == [
        removed(later, undone="a community note is not listed", own=False)]


def test_notes_rebase_remote_marks_a_drop_the_reflog_alone_held_and_the_push_sends_it(
        clone):  # noqa: F811 (a fixture)
    # a line never pushed, fetched over: the rebuild is origin's tip, which the ref holds
    where: Path = clone.clone
    _note_by(Store(where), "fast", 8, "not pushed yet")
    git(where, "fetch", "-q", "origin", f"+{REF}:{REF}")
    origin = tip(where)
    assert len(ki315(where)) == 1

    done = run(where, "notes", "rebase", "origin", "--json")
    assert (done.returncode, done.stderr) == (0, "")
    marker = tip(where)
    assert json.loads(done.stdout) == {
        "remote": "origin", "base": origin, "old": origin, "added": 0, "gained": 0,
        "notes": [], "leftOut": 0, "marker": marker, "dropped": 1, "effectChanged": [],
        "findings": []}
    assert git(where, "rev-parse", f"{marker}^@").split() == [origin]
    assert git(where, "rev-parse", f"{marker}^{{tree}}") == git(where, "rev-parse",
                                                                f"{origin}^{{tree}}")
    assert last_logged(where) == "kistore notes rebase origin"
    assert git(where, "log", "-1", "--format=%B", marker) == (
        "kistore: notes rebase origin dropped 1 attestation line(s) only the reflog of "
        "refs/notes/kistore held\n\nThis commit holds its parent's notes and brings no line: "
        "it marks the rebase in the reflog, whose earlier tips KI315 and `kistore notes "
        "restore` no longer read.\n\n")
    assert ki315(where) == []
    shutil.rmtree(where / ".git" / "kistore")
    assert ki315(where) == []

    pushed = run(where, "notes", "push", "origin")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    server = git(clone.bare, "rev-parse", REF).strip()
    assert server == tip(where)  # the server let the marker (or it made again) in
    assert git(clone.bare, "rev-parse", f"{server}^{{tree}}") == git(
        where, "rev-parse", f"{origin}^{{tree}}")
    assert ki315(where) == []


def test_notes_rebase_remote_as_fetched_with_nothing_dropped_writes_no_marker(clone):  # noqa: F811
    where: Path = clone.clone
    origin = tip(where)
    done = run(where, "notes", "rebase", "origin")
    assert (done.returncode, done.stdout) == (
        0, "refs/notes/kistore is origin's notes tip: nothing to rebuild\n")
    assert tip(where) == origin


def test_notes_rebase_remote_text_names_the_marker(clone):  # noqa: F811
    where: Path = clone.clone
    _note_by(Store(where), "fast", 8, "not pushed yet")
    git(where, "fetch", "-q", "origin", f"+{REF}:{REF}")
    origin = tip(where)
    done = run(where, "notes", "rebase", "origin")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"{REF} holds origin's notes tip ({origin[:12]}): nothing to rebuild; dropped 1 "
        f"attestation line(s) only its reflog held: {REF} is now notes commit "
        f"{tip(where)[:12]} on that tip, holding the same notes: it brings no line and marks "
        "the rebase in the reflog, whose earlier tips are no longer read (KI315); `kistore "
        "notes push origin` sends it\n")
