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
WITHDRAWN = "a withdrawn run is ranked, unless another line withdraws it"


NO_REMOTE = (" (a line you meant to take back, never pushed: this repository has no remote "
             "configured, and `kistore notes rebase` drops them from its notes history for "
             "good)")
NO_REMOTE_FIX = ("run `kistore notes restore` (a line taken back by mistake), or `kistore "
                 "notes rebase` (a line you meant to take back, never pushed: this repository "
                 "has no remote)")


def removed(named: str = SLOW, count: int = 1, undone: str = WITHDRAWN,
            own: bool = True) -> str:
    """KI315's message of lines the notes history or reflog held (``own``: with origin)."""
    return (f"refs/notes/kistore lacks {count} attestation line(s) its own notes history or "
            f"an earlier tip of it (its reflog) held: {named}; they were removed here (`git "
            "notes remove`, `git notes edit`, a notes merge, the ref moved back or fetched "
            "over), and notes only grow (KI408): what is read at this tip counts them as "
            f"never made ({undone}), a state the rules refuse; `kistore notes restore` puts "
            "them back" + (" (a line of this repository's own, never pushed, that you meant "
                           "to take back: `kistore notes rebase origin` rebuilds the notes "
                           "without it)" if own else NO_REMOTE))


REMOVED = removed()
REWOUND = ("refs/notes/remotes/origin/kistore holds 1 attestation line(s) that "
           "refs/notes/kistore lacks and its history never held: "
           f"{SLOW}; refs/notes/kistore was moved back past them (`git update-ref`), and what "
           f"is read here counts them as never made ({WITHDRAWN}); `kistore notes "
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
    for doing, publish in (("build the site", ("site", "build", str(tmp_path / "site"))),
                           ("export", ("export", str(tmp_path / "out"), "--format", "jsonl"))):
        refused = run(where, *publish)  # refused, as stale notes are (fresh07 M3)
        assert (refused.returncode, refused.stderr) == (1, (
            f"error: refusing to {doing}: {REMOVED}; then {doing} again, or pass "
            f"--without-attestations to {doing} with the notes as they are\n")), doing
        assert not (tmp_path / publish[-1 if doing == "build the site" else 1]).exists()
        anyway = run(where, *publish, "--without-attestations")
        assert anyway.returncode == 0, anyway.stderr
        assert f"warning: {doing} with the notes as they are (--without-attestations): " \
            f"{REMOVED}\n" in anyway.stderr

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
    logged = (store.git_dir / "logs" / "refs" / "notes" / "kistore").stat().st_size
    assert whole.read_text() == (f"refs/notes/kistore {tip}\n"
                                 f"refs/notes/remotes/origin/kistore {tip}\n"
                                 f"reflog {logged}\n")

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
    # `notes push` (the fixture's) asks it too, for the lines it sent without: start cold
    (Store(clone.clone).git_dir / tip_lacking.WHOLE_FILE).unlink()
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


def _note_by(store: Store, name: str, seed: int, text: str) -> str:
    """A community note on run ``name`` signed by ``fixed_key(seed)``; return its naming."""
    run_digest = store.view("HEAD").find_name("BenchmarkRun", name)
    statement = attestation.make_statement(run_digest, layout.object_path(run_digest), "note",
                                           {"text": text, "createdAt": "2026-07-11T00:00:00Z"})
    notes.attach(store, run_digest,
                 attestation.sign_statement(statement, fixed_key(seed)).to_bytes())
    return f"BenchmarkRun/{name} (note by {signing.keyid(fixed_key(seed).public_key())})"


def test_a_line_a_notes_merge_dropped_is_put_back_by_notes_restore(clone):
    # fresh07 M1: KI315 read every parent, restore the first: "holds every line", a loop
    where = clone.clone
    tip = git(where, "rev-parse", "refs/notes/kistore").strip()
    git(where, "update-ref", "refs/notes/kistore", "refs/notes/kistore~1")
    _note_by(Store(where), "slow", 8, "local")  # slow's note on both sides: ours kept
    git(where, "notes", "--ref", "kistore", "merge", "-s", "ours", tip)  # the withdrawal dropped
    assert _ranked(where)["slow"] is False
    assert ki315(where) == [("refs/notes/kistore", REMOVED, "run `kistore notes restore`")]

    restored = run(where, "notes", "restore")
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.startswith("1 attestation line(s) restored on 1 note(s): ")
    assert ki315(where) == []
    assert _ranked(where)["slow"] is True
    pushed = run(where, "notes", "push", "origin")  # the rebuilt notes go to the gate
    assert pushed.returncode == 0, pushed.stderr


def moved_back(group) -> None:
    """With no remote: a note on fast, slow's withdrawal, then the ref moved back past it."""
    trust_maintainer(group)
    store = Store(group.root)
    _note_by(store, "fast", 8, "first")
    withdraw(store, store.view("HEAD").find_name("BenchmarkRun", "slow"), as_file=False)
    git(group.root, "update-ref", "refs/notes/kistore", "refs/notes/kistore~1")


def test_a_notes_ref_moved_back_with_no_remote_is_said_from_its_reflog(group):
    # fresh07 M6 (a): no remote to compare with; the reflog holds the old tip
    moved_back(group)
    assert _ranked(group.root)["slow"] is False
    assert ki315(group.root) == [("refs/notes/kistore", removed(own=False), NO_REMOTE_FIX)]
    assert warned(group.root, "rank", "BenchmarkRun/fast") == [removed(own=False)]

    restored = run(group.root, "notes", "restore")
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.startswith("1 attestation line(s) restored on 1 note(s): ")
    assert ki315(group.root) == []
    assert _ranked(group.root)["slow"] is True


def test_lines_never_pushed_dropped_by_a_forced_fetch_are_said_and_restored(clone):
    # fresh07 M6 (b): `git fetch origin +refs/notes/kistore:refs/notes/kistore`
    where = clone.clone
    named = _note_by(Store(where), "fast", 8, "not pushed yet")
    git(where, "fetch", "-q", "origin", "+refs/notes/kistore:refs/notes/kistore")
    note = removed(named, undone="a community note is not listed")  # L3: what it does
    assert ki315(where) == [("refs/notes/kistore", note, "run `kistore notes restore`")]

    restored = run(where, "notes", "restore")
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.startswith("1 attestation line(s) restored on 1 note(s): ")
    assert ki315(where) == []
    assert run(where, "notes", "push", "origin").returncode == 0


def test_kistore_notes_rebase_ends_what_the_reflog_says(clone):
    # the way out for a line of one's own taken back on purpose: the tips before the
    # rebuild are not read (else the line removed on purpose were said for good)
    where = clone.clone
    _note_by(Store(where), "fast", 8, "oops")
    git(where, "update-ref", "refs/notes/kistore", "refs/notes/kistore~1")
    assert len(ki315(where)) == 1
    assert run(where, "notes", "rebase", "origin").returncode == 0
    assert ki315(where) == []


def test_an_upstream_remote_added_queried_and_removed_keeps_the_warning(clone):
    # fresh07 L1: recorded whole while origin's ref was not the one compared
    where = clone.clone
    git(where, "update-ref", "refs/notes/kistore", "refs/notes/kistore~1")
    git(where, "remote", "add", "upstream", git(where, "remote", "get-url", "origin").strip())
    run(where, "rank", "BenchmarkRun/fast")
    git(where, "remote", "remove", "upstream")
    assert [f for f, _m, _h in ki315(where)] == ["refs/notes/remotes/origin/kistore"]
    assert run(where, "rank", "BenchmarkRun/fast").stderr.count("refs/notes/kistore lacks") == 1


def test_a_note_past_the_limit_removed_at_the_tip_stops_no_query(group):
    # fresh07 M4: KI117's fix (git notes remove) left every query failing on the history
    store = Store(group.root)
    slow = store.view("HEAD").find_name("BenchmarkRun", "slow")
    blob = git(group.root, "rev-parse", f"HEAD:{layout.object_path(slow)}").strip()
    _note_by(store, "fast", 8, "kept")
    kept = git(group.root, "rev-parse", "refs/notes/kistore").strip()
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-", blob],
                   cwd=group.root, input=b"x" * (17 * 1024 * 1024) + b"\n", check=True,
                   capture_output=True)
    assert run(group.root, "rank", "BenchmarkRun/fast").returncode == 1  # at the tip: KI117's
    git(group.root, "notes", "--ref", "kistore", "remove", blob)  # KI117's fix

    ranked = run(group.root, "rank", "BenchmarkRun/fast")
    assert (ranked.returncode, ranked.stderr) == (0, "")
    assert run(group.root, "notes", "restore").returncode == 0
    done = run(group.root, "verify", "--json")
    found = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI117"]
    brought = git(group.root, "rev-parse", "refs/notes/kistore~1").strip()  # the big note's
    assert [(f["file"], f["hint"]) for f in found] == [(
        f"refs/notes/kistore:{blob}",
        f"`git update-ref refs/notes/kistore {kept}` moves the notes back to the commit "
        "before it, then `kistore notes restore` puts back the lines entered since (read "
        "from the reflog; the note past the limit is skipped)")]
    assert found[0]["message"].endswith(
        "; the tip of refs/notes/kistore no longer holds it (removed), but its notes history "
        f"does, from notes commit {brought}, and a push of that history is refused (KI409)")

    git(group.root, "update-ref", "refs/notes/kistore", kept)  # the fix, as said
    assert run(group.root, "notes", "restore").returncode == 0
    done = run(group.root, "verify", "--json")
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]
            if f["rule"] in ("KI117", "KI315")] == []
