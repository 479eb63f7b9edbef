"""A trusted withdrawal removed from this clone's notes is said by every reader (fresh05 MED 3).

``git notes --ref kistore remove BLOB`` of a maintainer's withdrawal, or the notes ref moved
back past it (``git update-ref refs/notes/kistore refs/notes/kistore~1``): ``verify`` said
ok, ``notes fetch origin`` "0 attestation(s) gained" though origin's notes held the line,
and ``rank``, ``show``, ``site build`` and ``export`` read the run un-withdrawn without a
word, while ``--notes-at`` of that same notes commit warned. Now each says which line is
lacking and the command that puts it back; once run, nothing is said.

Each clone pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import json
import subprocess

import pytest

from kistore.attest import attestation, notes, signing, tip_lacking
from kistore.core import layout
from kistore.store import Store

from ..conftest import fixed_key, git, python_c
from ..prs import KISTORE, Remote, _env
from ..sparse import MAINTAINER, trust_maintainer, withdraw

KEYID = signing.keyid(MAINTAINER.public_key())
SLOW = f"BenchmarkRun/slow (withdrawal by {KEYID})"
REMOVED = ("refs/notes/kistore lacks 1 attestation line(s) its own notes history held: "
           f"{SLOW}; they were removed here (`git notes remove`, `git notes edit`), and notes "
           "only grow (KI408): what is read at this tip counts them as never made (a "
           "withdrawn run is ranked), a state the rules refuse; `kistore notes restore` puts "
           "them back (a line of this repository's own, never pushed, that you meant to take "
           "back: `kistore notes rebase origin` rebuilds the notes without it)")
REWOUND = ("refs/notes/remotes/origin/kistore holds 1 attestation line(s) that "
           "refs/notes/kistore lacks and its history never held: "
           f"{SLOW}; refs/notes/kistore was moved back past them (`git update-ref`), and what "
           "is read here counts them as never made (a withdrawn run is ranked); `kistore notes "
           "fetch origin` merges them back")
FETCHED = ("origin's notes hold 1 attestation line(s) refs/notes/kistore lacks: "
           f"{SLOW}; this repository's notes history removed them, and a fetch takes back no "
           "removal made here, so none was gained: `kistore notes restore` puts them back")


def run(where, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KISTORE, *args], cwd=where, capture_output=True, text=True,
                          env={**_env(), "KISTORE": KISTORE})


@pytest.fixture
def clone(group, tmp_path) -> Remote:
    """origin holds a community note on ``fast``, then a trusted withdrawal of ``slow``
    (two notes commits, pushed from the clone); ``clone.blob`` is slow's object blob."""
    trust_maintainer(group)
    here = Remote(group.root, tmp_path)
    store = Store(here.clone)
    fast, slow = (store.view("HEAD").find_name("BenchmarkRun", n) for n in ("fast", "slow"))
    statement = attestation.make_statement(fast, layout.object_path(fast), "note",
                                           {"text": "seen", "createdAt": "2026-07-09T00:00:00Z"})
    notes.attach(store, fast, attestation.sign_statement(statement, fixed_key(7)).to_bytes())
    withdraw(store, slow, as_file=False)
    pushed = run(here.clone, "notes", "push", "origin")
    assert pushed.returncode == 0, pushed.stderr
    here.blob = git(here.clone, "rev-parse", f"HEAD:{layout.object_path(slow)}").strip()
    return here


def ki315(where) -> list[tuple[str, str, str]]:
    done = run(where, "verify", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return [(f["file"], f["message"], f["hint"]) for f in json.loads(done.stdout)["findings"]
            if f["rule"] == "KI315"]


def warned(where, *args: str) -> list[str]:
    """The warnings of `kistore ARGS` naming the notes tip (it exits 0)."""
    done = run(where, *args)
    assert done.returncode == 0, done.stderr
    return [line.removeprefix("warning: ") for line in done.stderr.splitlines()
            if "refs/notes/kistore lacks" in line]


READERS = [("rank", "BenchmarkRun/fast"), ("rank", "BenchmarkRun/fast", "--json"),
           ("show", "BenchmarkRun/slow"), ("compare", "BenchmarkRun/slow", "BenchmarkRun/fast"),
           ("attestations", "BenchmarkRun/slow")]


def _ranked(where) -> dict[str, bool]:
    rows = json.loads(run(where, "rank", "BenchmarkRun/fast", "--all", "--json").stdout)
    return {row["name"]: row["withdrawn"] for row in rows}


def test_a_withdrawal_removed_here_is_said_until_notes_restore_puts_it_back(clone, tmp_path):
    where = clone.clone
    assert ki315(where) == []
    git(where, "notes", "--ref", "kistore", "remove", clone.blob)
    assert _ranked(where)["slow"] is False  # read as never made: what is warned of

    assert ki315(where) == [("refs/notes/kistore", REMOVED, "run `kistore notes restore`")]
    text = run(where, "verify").stdout
    assert f"refs/notes/kistore: warning KI315 notes-tip-lacking: {REMOVED}\n" in text
    for query in READERS:
        assert warned(where, *query) == [REMOVED], query
    assert warned(where, "site", "build", str(tmp_path / "site")) == [REMOVED]
    assert warned(where, "export", str(tmp_path / "out"), "--format", "jsonl") == [REMOVED]

    fetched = run(where, "notes", "fetch", "origin")
    assert fetched.stdout == "0 attestation(s) gained from origin\n"
    assert fetched.stderr == f"warning: {FETCHED}\n"

    restored = run(where, "notes", "restore")  # the fix named, run as said
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.startswith("1 attestation line(s) restored on 1 note(s): ")
    assert ki315(where) == []
    for query in READERS:
        assert warned(where, *query) == [], query
    assert run(where, "notes", "fetch", "origin").stderr == ""
    assert _ranked(where)["slow"] is True


def test_a_notes_ref_moved_back_is_said_until_notes_fetch_merges_it_back(clone):
    where = clone.clone
    git(where, "update-ref", "refs/notes/kistore", "refs/notes/kistore~1")
    assert _ranked(where)["slow"] is False

    assert ki315(where) == [("refs/notes/remotes/origin/kistore", REWOUND,
                             "run `kistore notes fetch origin`")]
    for query in READERS:
        done = run(where, *query)
        assert [line for line in done.stderr.splitlines() if "refs/notes/kistore" in line] \
            == [f"warning: {REWOUND}"], query

    fetched = run(where, "notes", "fetch", "origin")  # the fix named, run as said
    assert (fetched.stdout, fetched.stderr) == ("1 attestation(s) gained from origin\n", "")
    assert ki315(where) == []
    assert run(where, "rank", "BenchmarkRun/fast").stderr == ""
    assert _ranked(where)["slow"] is True


def test_a_line_of_its_own_taken_back_before_a_push_is_said_until_notes_rebase(clone):
    # the other way out the warning names: a line never pushed, removed on purpose
    where = clone.clone
    store = Store(where)
    slow = store.view("HEAD").find_name("BenchmarkRun", "slow")
    kept = git(where, "notes", "--ref", "kistore", "show", clone.blob)
    statement = attestation.make_statement(slow, layout.object_path(slow), "note",
                                           {"text": "oops", "createdAt": "2026-07-11T00:00:00Z"})
    notes.attach(store, slow, attestation.sign_statement(statement, fixed_key(8)).to_bytes())
    git(where, "notes", "--ref", "kistore", "add", "-f", "-m", kept.rstrip("\n"), clone.blob)
    said = ki315(where)
    assert [(f, m.split(": ")[1].split(";")[0]) for f, m, _ in said] == [
        ("refs/notes/kistore",
         f"BenchmarkRun/slow (note by {signing.keyid(fixed_key(8).public_key())})")]

    rebased = run(where, "notes", "rebase", "origin")
    assert rebased.returncode == 0, rebased.stderr
    assert ki315(where) == []
    assert git(where, "notes", "--ref", "kistore", "show", clone.blob) == kept


def test_a_line_that_counts_for_nothing_removed_by_hand_is_not_said(clone):
    # a garbage line appended, then deleted at the tip (KI301's fix where no remote is
    # pushed to): the history holds it, but it never counted; restore would leave it out
    where = clone.clone
    notes_git = ["notes", "--ref", "kistore"]
    kept = git(where, *notes_git, "show", clone.blob)
    git(where, *notes_git, "append", "-m", "garbage", clone.blob)
    git(where, *notes_git, "add", "-f", "-m", kept.rstrip("\n"), clone.blob)
    assert git(where, *notes_git, "show", clone.blob) == kept
    assert ki315(where) == []
    assert run(where, "rank", "BenchmarkRun/fast").stderr == ""


def test_the_tips_found_whole_are_recorded_and_not_read_again(clone, monkeypatch):
    store = Store(clone.clone)
    assert tip_lacking.lacking(store, None) is None
    whole = store.git_dir / tip_lacking.WHOLE_FILE
    tip = git(clone.clone, "rev-parse", "refs/notes/kistore").strip()
    assert whole.read_text() == (f"refs/notes/kistore {tip}\n"
                                 f"refs/notes/remotes/origin/kistore {tip}\n")

    def walked(*_):
        raise AssertionError("the notes were read again")

    monkeypatch.setattr(tip_lacking, "_candidates", walked)
    assert tip_lacking.lacking(store, None) is None  # the same tips: one file read
    git(clone.clone, "notes", "--ref", "kistore", "remove", clone.blob)
    with pytest.raises(AssertionError, match="read again"):  # moved: read
        tip_lacking.lacking(store, None)


def test_the_same_tips_found_whole_load_no_git_library(clone):
    # a warm query answers without libgit2 (tests/cli/test_cli_startup.py): this check too
    code = ("import sys\nfrom kistore.store import Store\n"
            "from kistore.attest.tip_lacking import lacking\n"
            "print(lacking(Store(sys.argv[1]), None), 'pygit2' in sys.modules)")
    assert python_c(code, str(clone.clone)).stdout == "None True\n"  # read: recorded
    assert python_c(code, str(clone.clone)).stdout == "None False\n"


def test_a_removed_line_whose_committed_file_copy_still_counts_is_not_said(clone):
    # review01 L12: KI315 judged each lacking line alone (judge), readers judge a run's
    # attestations together (judge_all). The withdrawal's bytes, committed as a file too,
    # withdraw the run whatever the notes hold: nothing readers count is lacking, and the
    # warning's "a withdrawn run is ranked" was false (on BASE 440899c7 it said REMOVED)
    where = clone.clone
    store = Store(where)
    slow = store.view("HEAD").find_name("BenchmarkRun", "slow")
    line = git(where, "notes", "--ref", "kistore", "show", clone.blob).strip().encode()
    notes.attach(store, slow, line, as_file=True)
    git(where, "add", "store/attestations")
    git(where, "commit", "-qm", "the withdrawal as a file too")
    git(where, "notes", "--ref", "kistore", "remove", clone.blob)
    assert _ranked(where)["slow"] is True  # withdrawn: by the file
    assert ki315(where) == []
    for query in READERS:
        assert warned(where, *query) == [], query
