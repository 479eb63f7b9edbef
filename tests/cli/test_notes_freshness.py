"""Whether a clone holds its remote's notes, and since when (reviewer r86 F21, F2, F10).

Notes count as fetched when ``kistore notes fetch R`` wrote ``refs/notes/remotes/R/kistore``,
not when ``refs/notes/kistore`` exists: one local ``kistore attest`` before any fetch made
that ref, and every "notes not fetched" warning went silent while the index's maintainer
withdrawal was not here (F21). The advice names the remote that holds the notes: the one
fetched last, else ``upstream`` (a fork layout, F10). Notes fetched before the branches of
their remote were (``git pull`` fetches no notes) are warned of (F2).

Real ``git clone``s of the ``group`` store (the index), whose fastest run is withdrawn by
a trusted maintainer's note.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.attest import attestation, notes
from kistore.cli import main
from kistore.core import layout
from kistore.store import Store

from ..conftest import fixed_key, git, next_second
from ..sparse import trust_maintainer, withdraw

NOT_FETCHED = "notes not fetched: run `kistore notes fetch {}`"
LOCAL_ONLY = "refs/notes/kistore holds only this repository's own attestations"
STALE = re.compile(r"warning: notes last fetched from origin \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; "
                   r"the branches were fetched since \(\d{4}-[^)]*Z\): run `kistore notes "
                   r"fetch origin`\n")
STRANGER = fixed_key(7)  # trusted by no one: a community attestation


def out(cwd: Path, *args: str) -> str:
    """git's stdout, without its last newline."""
    return git(cwd, *args).strip()


def kistore(path: Path, *args: str):
    return CliRunner().invoke(main, ["--store", str(path), *args])


@pytest.fixture
def index(group) -> Store:
    """The index: ``fast`` withdrawn by the maintainer's note (``slow`` ranks #1 there)."""
    trust_maintainer(group)
    withdraw(group, run_of(group, "fast"), as_file=False)
    return group


def run_of(store: Store, name: str):
    found = store.view("HEAD").find_name("BenchmarkRun", name)
    assert found is not None
    return found


def clone_of(index: Store, where: Path) -> Path:
    git(where.parent, "clone", "-q", str(index.root), where.name)
    assert git(where, "for-each-ref", "refs/notes") == ""  # git clone left the notes behind
    return where


def attest_locally(clone: Path) -> None:
    """One community attestation made in the clone: ``refs/notes/kistore`` is now here."""
    store = Store(clone)
    subject = run_of(store, "slow")
    statement = attestation.make_statement(subject, layout.object_path(subject), "note",
                                           {"text": "ran it too", "createdAt":
                                            "2026-07-11T00:00:00Z"})
    notes.attach(store, subject, attestation.sign_statement(statement, STRANGER).to_bytes())
    assert out(clone, "for-each-ref", "--format=%(refname)", "refs/notes") == \
        "refs/notes/kistore"


def fast_rank(clone: Path):
    """``rank slow --all``'s rank of ``fast`` (withdrawn: none) and its stderr."""
    result = kistore(clone, "rank", "BenchmarkRun/slow", "--all", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    return rows["fast"]["rank"], result.stderr


def test_a_local_attestation_before_the_fetch_does_not_silence_the_warning(index, tmp_path):
    clone = clone_of(index, tmp_path / "clone")
    attest_locally(clone)  # before the fix: every warning below was silent

    rank, stderr = fast_rank(clone)
    assert rank == 1  # the maintainer's withdrawal is not here
    assert stderr == (f"warning: {LOCAL_ONLY}: no remote's notes were fetched into it (git "
                      "clone and git pull do not fetch them; a remote holding none makes this "
                      "repository the only holder: `kistore notes push REMOTE` gives it yours; a "
                      "plain `git push` of them leaves no trace here, no tracking ref, and "
                      "queries ask no remote: `kistore notes fetch REMOTE` records them as the "
                      "remote's): the remote's attestations "
                      "(withdrawals, reruns) are not applied to this answer; `kistore notes "
                      "fetch origin` fetches them\n")
    shown = kistore(clone, "show", "BenchmarkRun/fast")
    assert NOT_FETCHED.format("origin") + f": {LOCAL_ONLY}" in shown.stdout
    listed = json.loads(kistore(clone, "attestations", "BenchmarkRun/slow", "--json").stdout)
    assert listed["notesNotFetched"].startswith(NOT_FETCHED.format("origin"))
    assert len(listed["attestations"]) == 1  # the local one is listed all the same
    verified = kistore(clone, "verify")
    assert "1 attestation(s) from notes" in verified.stdout
    assert NOT_FETCHED.format("origin") in verified.stdout
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert built.exit_code == 1
    assert built.stderr.startswith(f"error: refusing to build the site: {LOCAL_ONLY}")
    assert "run `kistore notes fetch origin` and build the site again" in built.stderr
    assert not (tmp_path / "site").exists()

    fetched = kistore(clone, "notes", "fetch", "origin")
    assert fetched.exit_code == 0, fetched.output
    assert out(clone, "for-each-ref", "--format=%(refname)", "refs/notes/remotes") == \
        "refs/notes/remotes/origin/kistore"
    rank, stderr = fast_rank(clone)
    assert (rank, stderr) == (None, "")  # withdrawn, and nothing to warn of
    assert "notes not fetched" not in kistore(clone, "show", "BenchmarkRun/fast").stdout
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, "")
    assert json.loads((tmp_path / "site" / "build.json").read_text())["notes"] == \
        out(clone, "rev-parse", "refs/notes/kistore")


def test_a_fork_layout_is_advised_to_fetch_from_upstream(index, tmp_path):
    fork = tmp_path / "fork.git"  # the contributor's fork: branches, no notes
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(fork))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(fork), "clone")
    git(clone, "remote", "add", "upstream", str(index.root))

    rank, stderr = fast_rank(clone)
    assert rank == 1
    assert stderr.endswith("; `kistore notes fetch upstream` fetches them\n")
    assert NOT_FETCHED.format("upstream") in kistore(clone, "show", "BenchmarkRun/fast").stdout
    exported = kistore(clone, "export", str(tmp_path / "out"))
    assert exported.exit_code == 1
    assert "run `kistore notes fetch upstream` and export again" in exported.stderr

    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0  # the fork: no notes
    assert stderr == fast_rank(clone)[1]  # nothing fetched, the same advice
    assert kistore(clone, "notes", "fetch", "upstream").exit_code == 0
    assert fast_rank(clone) == (None, "")


def test_notes_fetched_before_the_branches_were_are_said_stale(index, tmp_path):
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    git(clone, "fetch", "-q", "origin")  # nothing new: no branch moved, nothing to say
    assert fast_rank(clone) == (None, "")

    # the index moves on: a commit, and the maintainer withdraws `slow` too
    git(index.root, "commit", "-q", "--allow-empty", "-m", "later")
    withdraw(index, run_of(index, "slow"), as_file=False)
    git(clone, "pull", "-q", "--ff-only", "origin", "main")  # git pull fetches no notes

    rank, stderr = fast_rank(clone)
    assert rank is None and STALE.fullmatch(stderr), stderr
    shown = kistore(clone, "show", "BenchmarkRun/slow")
    assert STALE.fullmatch(shown.stderr), shown.stderr
    assert "notes not fetched" not in shown.stdout
    assert STALE.fullmatch(kistore(clone, "verify").stderr)
    assert STALE.fullmatch(kistore(clone, "attestations", "BenchmarkRun/fast").stderr)
    # r90b F9: publishing is refused on stale notes as on lacking ones (a key is trusted)
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert built.exit_code == 1, built.output
    said = STALE.fullmatch(kistore(clone, "verify").stderr)[0][len("warning: "):-1]
    assert built.stderr == (
        f"error: refusing to build the site: {said} and build the site again (attestations "
        "the remote gained since, a withdrawal among them, are not here: a withdrawn run "
        "would be ranked), or pass --without-attestations to build the site with the notes "
        "as last fetched\n")
    assert not (tmp_path / "site").exists()
    exported = kistore(clone, "export", str(tmp_path / "out"))
    assert exported.exit_code == 1, exported.output
    assert exported.stderr.startswith(f"error: refusing to export: {said} and export again")
    built = kistore(clone, "site", "build", str(tmp_path / "site"), "--without-attestations")
    assert built.exit_code == 0, built.output
    assert built.stderr == ("warning: build the site with the notes as last fetched "
                            f"(--without-attestations): {said}\n")
    exported = kistore(clone, "export", str(tmp_path / "out"), "--without-attestations")
    assert exported.exit_code == 0, exported.output  # and it says which permalinks it lacks
    assert exported.stderr.splitlines()[0] == ("warning: export with the notes as last "
                                               f"fetched (--without-attestations): {said}")
    slow = kistore(clone, "rank", "BenchmarkRun/slow", "--all", "--json")
    assert {r["name"]: r["rank"] for r in json.loads(slow.stdout)}["slow"] == 1

    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    slow = kistore(clone, "rank", "BenchmarkRun/slow", "--all", "--json")
    assert slow.stderr.startswith("warning: BenchmarkRun/slow is withdrawn by ")
    assert "notes last fetched" not in slow.stderr
    assert {r["name"]: r["rank"] for r in json.loads(slow.stdout)}["slow"] is None


def test_a_notes_fetch_that_brings_nothing_new_still_counts_as_fetched(index, tmp_path):
    # git leaves the tracking ref's file alone when the remote's notes did not change:
    # `notes fetch` sets its time, else the warning would outlive the command it advises
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    git(index.root, "commit", "-q", "--allow-empty", "-m", "later")
    git(clone, "pull", "-q", "--ff-only", "origin", "main")
    git(clone, "pack-refs", "--all")  # no loose file left: the reflog's time is read
    assert not (clone / ".git" / "refs" / "notes" / "remotes" / "origin" / "kistore").exists()
    git(index.root, "commit", "-q", "--allow-empty", "-m", "later still")
    git(clone, "pull", "-q", "--ff-only", "origin", "main")
    assert STALE.fullmatch(fast_rank(clone)[1])
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0  # notes unchanged there
    assert fast_rank(clone) == (None, "")


def test_a_git_gc_after_the_pull_does_not_hide_that_the_notes_are_stale(index, tmp_path):
    # gc packs the branch ref (its file's time went with it) and rewrites every reflog
    # (their files' times became gc's): the pull was no longer seen as after the fetch
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    assert (clone / ".git/kistore/notes-fetched/origin").is_file()
    next_second()
    git(index.root, "commit", "-q", "--allow-empty", "-m", "later")
    git(clone, "pull", "-q", "--ff-only", "origin", "main")
    assert STALE.fullmatch(fast_rank(clone)[1])
    next_second()
    git(clone, "gc", "-q")
    assert not (clone / ".git/refs/remotes/origin/main").exists()  # packed
    assert STALE.fullmatch(fast_rank(clone)[1])

    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0  # after the pull
    assert fast_rank(clone) == (None, "")
    next_second()
    git(clone, "gc", "-q")  # gc after the notes fetch: nothing to say either
    assert fast_rank(clone) == (None, "")


def notes_less_server(index: Store, tmp_path: Path) -> tuple[Path, Path]:
    """A server holding no notes, and a clone of it with one local attestation, warned."""
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(server))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), "clone")
    attest_locally(clone)
    assert NOT_FETCHED.format("origin") in kistore(clone, "show", "BenchmarkRun/slow").stdout
    return server, clone


def test_a_first_notes_push_counts_as_fetched(index, tmp_path):
    server, clone = notes_less_server(index, tmp_path)
    pushed = kistore(clone, "notes", "push", "origin")
    assert pushed.exit_code == 0, pushed.output
    assert out(clone, "rev-parse", "refs/notes/remotes/origin/kistore") == \
        out(server, "rev-parse", "refs/notes/kistore") == out(clone, "rev-parse",
                                                              "refs/notes/kistore")
    assert "notes not fetched" not in kistore(clone, "show", "BenchmarkRun/slow").stdout


def test_a_notes_fetch_from_a_remote_holding_none_counts_as_fetched(index, tmp_path):
    # r89 F9: git writes no tracking ref when the remote has no notes, so the warning
    # advising `kistore notes fetch` stayed after it, on every query
    _, clone = notes_less_server(index, tmp_path)
    fetched = kistore(clone, "notes", "fetch", "origin")
    assert fetched.exit_code == 0, fetched.output
    assert fetched.stdout == "0 attestation(s) gained from origin\n"
    assert fetched.stderr == ("origin holds no attestation notes (`kistore notes push origin` "
                              "gives it this repository's)\n")
    assert out(clone, "for-each-ref", "refs/notes/remotes") == ""  # git wrote no ref
    assert "notes not fetched" not in kistore(clone, "show", "BenchmarkRun/slow").stdout
    # once the remote holds notes, its tracking ref says so and the record goes
    assert kistore(clone, "notes", "push", "origin").exit_code == 0
    assert kistore(clone, "notes", "fetch", "origin").stderr == ""
    assert not (clone / ".git" / "kistore" / "notes-none").exists() or \
        os.listdir(clone / ".git" / "kistore" / "notes-none") == []


def test_a_store_without_a_remote_says_nothing(index):
    assert fast_rank(index.root) == (None, "")
    assert os.path.exists(index.git_dir)
    assert "notes not fetched" not in kistore(index.root, "show", "BenchmarkRun/slow").stdout


def test_a_mirror_whose_git_fetch_brings_the_notes_counts_them_fetched(index, tmp_path):
    mirror = tmp_path / "mirror.git"  # fetch = +refs/*:refs/*: the notes come with git fetch
    git(tmp_path, "clone", "-q", "--mirror", str(index.root), str(mirror))
    assert fast_rank(mirror) == (None, "")
    clone = clone_of(index, tmp_path / "clone")  # the same by hand, in a clone
    git(clone, "config", "--add", "remote.origin.fetch", "+refs/notes/*:refs/notes/*")
    assert fast_rank(clone)[0] == 1  # configured, not yet fetched: warned
    git(clone, "fetch", "-q", "origin")
    assert fast_rank(clone) == (None, "")


def test_r90b_f9_publishing_on_notes_a_pull_made_stale_is_refused(group, tmp_path,
                                                                   monkeypatch):
    # r90b F9 through the CLI: a server with hooks/pre-receive; clone c5 fetched the notes
    # when the server held none; c4 trusts a maintainer key, withdraws `fast` with it and
    # pushes both; c5's `git pull` brings the trust commit, not the note: its site and
    # export published the withdrawn `fast` as #1 with one warning, where a clone that
    # never fetched the notes was refused
    import shutil
    import subprocess
    import sys

    from ..conftest import ROOT

    cli = str(Path(sys.executable).with_name("kistore"))
    monkeypatch.setenv("KISTORE", cli)  # what the server's hook runs

    def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([cli, *args], cwd=cwd, capture_output=True, text=True)

    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(group.root), str(server))
    shutil.copy(ROOT / "hooks" / "pre-receive", server / "hooks" / "pre-receive")
    c4, c5 = tmp_path / "c4", tmp_path / "c5"
    for clone in (c4, c5):
        git(tmp_path, "clone", "-q", str(server), clone.name)
    assert run(c5, "notes", "fetch", "origin").returncode == 0  # origin holds none yet
    keys = tmp_path / "keys"
    keys.mkdir()
    assert run(tmp_path, "key", "generate", str(keys / "r")).returncode == 0
    assert run(c4, "trust", "add", str(keys / "r.pub"), "--role", "maintainer").returncode == 0
    git(c4, "add", "store/trust")
    git(c4, "commit", "-q", "-m", "trust r")
    pushed = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=c4,
                            capture_output=True, text=True)
    assert pushed.returncode == 0, pushed.stderr  # through the hook
    next_second()  # trust counts from the second after its commit's: an attestation in that
    # same second is a community one (and `fast` stayed ranked: a flaky test, ci105)
    withdrawn = run(c4, "attest", "BenchmarkRun/fast", "--type", "withdrawal", "-m", "bad",
                    "--key", str(keys / "r"))
    assert withdrawn.returncode == 0, withdrawn.stderr
    assert run(c4, "notes", "push", "origin").returncode == 0
    next_second()
    git(c5, "pull", "-q", "--ff-only", "origin", "main")

    built = run(c5, "site", "build", str(tmp_path / "site5"))
    assert built.returncode == 1, built.stderr
    assert re.fullmatch(
        r"error: refusing to build the site: notes last fetched from origin \S+Z \(it held "
        r"none then\); the branches were fetched since \(\S+Z\): run `kistore notes fetch "
        r"origin` and build the site again \(attestations the remote gained since, a "
        r"withdrawal among them, are not here: a withdrawn run would be ranked\), or pass "
        r"--without-attestations to build the site with the notes as last fetched\n",
        built.stderr), built.stderr
    assert not (tmp_path / "site5").exists()
    exported = run(c5, "export", str(tmp_path / "out5"))
    assert exported.returncode == 1
    assert "run `kistore notes fetch origin` and export again" in exported.stderr
    assert not (tmp_path / "out5").exists()

    assert run(c5, "notes", "fetch", "origin").returncode == 0  # the way out
    built = run(c5, "site", "build", str(tmp_path / "site5"))
    assert (built.returncode, built.stderr) == (0, "")
    assert fast_rank(c5) == (None, "")  # withdrawn: not ranked
    exported = run(c5, "export", str(tmp_path / "out5"))
    assert exported.returncode == 0, exported.stderr
    assert "notes last fetched" not in exported.stderr


def test_packed_branches_reflogs_are_read_once_per_packing(index, tmp_path, monkeypatch):
    # closing23: every query opened the reflog of each packed remote-tracking branch (300
    # fetched PR branches packed by a gc after the notes fetch: ~15 ms a query). Since r91
    # F9 a notes fetch keeps the branch tips, compared instead: no reflog is read at all;
    # a record of before (an empty file) is judged by times, the reflogs read once a packing
    from kistore.attest import levels

    read: list[str] = []
    real = levels.reflog_last_time

    def counted(git_dir, name):
        if name.startswith("refs/remotes/"):  # the branches' (not the notes ref's)
            read.append(name)
        return real(git_dir, name)

    monkeypatch.setattr(levels, "reflog_last_time", counted)
    clone = clone_of(index, tmp_path / "clone")
    for i in range(3):  # PR branches
        git(index.root, "branch", f"pr-{i}")
    git(clone, "fetch", "-q", "origin")
    next_second()
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    record = clone / ".git/kistore/notes-fetched/origin"
    assert record.read_text().splitlines()[1:] == [
        f"{out(clone, 'rev-parse', name)} {name}" for name in
        ["refs/heads/main", "refs/notes/remotes/origin/kistore", "refs/remotes/origin/main",
         *(f"refs/remotes/origin/pr-{i}" for i in range(3))]]  # local tips too since r92 F6;
    # the notes merged too since fixg96 (a plain `git fetch` that moves them is told by it)
    assert levels.notes_stale(Store(clone)) is None and read == []
    next_second()
    git(clone, "gc", "-q")  # packs every branch after the notes fetch
    assert levels.notes_stale(Store(clone)) is None and read == []  # tips, not times

    fetched_at = record.stat().st_mtime
    record.write_text("")  # as a notes fetch before 2026-12-05 left it: times only
    os.utime(record, (fetched_at, fetched_at))
    assert levels.notes_stale(Store(clone)) is None
    assert sorted(read) == ["refs/remotes/origin/main", *(f"refs/remotes/origin/pr-{i}"
                                                          for i in range(3))]
    read.clear()
    assert levels.notes_stale(Store(clone)) is None and read == []  # kept
    assert fast_rank(clone) == (None, "")

    next_second()
    git(index.root, "commit", "-q", "--allow-empty", "-m", "later")
    git(clone, "pull", "-q", "--ff-only", "origin", "main")
    assert STALE.fullmatch(fast_rank(clone)[1])  # the loose ref says it
    next_second()
    git(clone, "gc", "-q")  # packed again: what was kept is of the file before
    read.clear()
    assert STALE.fullmatch(fast_rank(clone)[1])  # read again: the pull is seen
    assert len(read) == 4
    read.clear()
    assert STALE.fullmatch("warning: " + levels.notes_stale(Store(clone)) + "\n")
    assert read == []


def test_a_store_made_by_init_is_not_called_a_clone(index, tmp_path):
    """fresh00b/lowb00: ``kistore init`` makes no clone; the words hold for both (page00)."""
    made = tmp_path / "made"
    initialised = kistore(made, "init", str(made))
    assert initialised.exit_code == 0, initialised.output
    branch = out(index.root, "branch", "--show-current")
    git(made, "remote", "add", "origin", str(index.root))
    git(made, "fetch", "-q", "origin")
    git(made, "reset", "-q", "--hard", f"origin/{branch}")
    attest_locally(made)
    said = [kistore(made, "show", "BenchmarkRun/fast").output,
            kistore(made, "attestations", "BenchmarkRun/slow").output,
            kistore(made, "site", "build", str(tmp_path / "site")).output]
    for text in said:
        assert "holds only this repository's own attestations" in text, text
        assert "clone's own" not in text and "this clone" not in text, text


def test_a_store_made_by_init_is_not_called_a_clone_when_notes_come_by_plain_git(
        index, tmp_path):
    """low01: the other words of `show`/`attestations`/`site build` about the notes here
    (a plain `git fetch` whose refspec maps the notes, notes not merged) say "this
    repository" too: a store made by ``kistore init`` and given a remote is no clone."""
    made = tmp_path / "made"
    assert kistore(made, "init", str(made)).exit_code == 0
    branch = out(index.root, "branch", "--show-current")
    git(made, "remote", "add", "origin", str(index.root))
    git(made, "fetch", "-q", "origin")
    git(made, "reset", "-q", "--hard", f"origin/{branch}")
    attest_locally(made)
    git(made, "config", "--add", "remote.origin.fetch",
        "+refs/notes/kistore:refs/notes/remotes/origin/kistore")
    git(made, "fetch", "-q", "origin")
    said = [kistore(made, "show", "BenchmarkRun/fast").output,
            kistore(made, "attestations", "BenchmarkRun/slow").output,
            kistore(made, "site", "build", str(tmp_path / "site")).output]
    for text in said:
        assert "(a fetch refspec of this repository maps the notes to it)" in text, text
        assert "clone" not in text, text
