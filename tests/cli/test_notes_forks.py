"""A fork's notes give this clone lines, never history (reviewer r91 F10, F11).

F10: ``kistore notes fetch FORK`` left a fork's forged or oversized line out of the notes'
tip, but merged the fork's notes *commits*: the next ``notes push origin`` uploaded them, so
the index's notes history held the fork's blobs for good. Now the lines taken from a remote
that is not the canonical one (``upstream``, else ``origin``: ``levels.canonical_remote``)
go into a notes commit of our own, whose parent is our tip alone.

F11: a fork's validly signed note about a run only the fork holds was "gained", then
refused every ``notes push origin`` (KI409: its subject missing there), and ``notes
restore`` and the next fetch undid its removal. Now it is left out, said with its count,
until a branch of the canonical remote holds the run.

Real clones of the ``group`` store (``fast`` withdrawn by the trusted maintainer), a bare
server as ``origin``, and a hook-less fork of it (github.com runs no pre-receive hook).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from kistore.attest import attestation, notes
from kistore.core import layout
from kistore.store import Store

from ..conftest import git
from ..sparse import withdraw
from .test_notes_freshness import STRANGER, fast_rank, kistore, out, run_of
from .test_notes_only_grow import fast_blob, forged, index, is_ancestor, padded  # noqa: F401

E = ("-c", "user.name=E", "-c", "user.email=e@example.org")


@pytest.fixture
def server(index, tmp_path) -> Path:  # noqa: F811 (index: a fixture)
    """The index's server (``origin``), its notes with it."""
    server = tmp_path / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(server))
    git(server, "fetch", "-q", str(index.root), "refs/notes/kistore:refs/notes/kistore")
    return server


def fork_of(server: Path, where: Path) -> tuple[Path, Path]:
    """A fork of ``server`` (bare, its notes too) and a work clone of it (``origin``: fork)."""
    fork = where / "evil.git"
    git(where, "clone", "-q", "--bare", str(server), str(fork))
    git(fork, "fetch", "-q", str(server), "refs/notes/kistore:refs/notes/kistore")
    work = where / "ew"
    git(where, "clone", "-q", str(fork), "ew")
    git(work, "fetch", "-q", "origin", "refs/notes/kistore:refs/notes/kistore")
    return fork, work


def note_line(store: Store, name: str, text: str) -> tuple[str, str]:
    """A community note about run ``name``, signed by a key nobody trusts: (blob, line)."""
    subject = run_of(store, name)
    statement = attestation.make_statement(subject, layout.object_path(subject), "note", {
        "text": text, "createdAt": "2026-07-11T00:00:00Z"})
    line = attestation.sign_statement(statement, STRANGER).to_bytes().decode()
    blob = out(Path(store.root), "hash-object", layout.object_path(subject))
    return blob, line


def append(work: Path, blob: str, line: str) -> None:
    """Append a line to the note on ``blob`` in the fork's work clone, by plain git."""
    (work.parent / "line").write_text(line)
    git(work, *E, "notes", "--ref", "kistore", "append", "-F", str(work.parent / "line"), blob)


def objects(repo: Path, *revs: str) -> set[str]:
    """Every object reachable from ``revs`` (``git rev-list --objects``)."""
    return {line.split()[0] for line in
            out(repo, "rev-list", "--objects", *revs).splitlines() if line}


def test_r91_f10_no_object_of_a_fork_s_notes_history_reaches_ours_or_the_server(
        index, server, tmp_path):  # noqa: F811 (index: a fixture)
    clone = tmp_path / "a"
    git(tmp_path, "clone", "-q", str(server), "a")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    fork, work = fork_of(server, tmp_path)
    withdrawal = out(work, "notes", "--ref", "kistore", "show", fast_blob(work))
    big = padded(withdrawal, (1 << 20) + 100)  # verifies, past the 1 MiB limit
    slow_blob, good = note_line(Store(work), "slow", "ran it too")
    hidden = padded(good, 300_000)  # added, then removed: only in the fork's history
    append(work, slow_blob, hidden)
    git(work, *E, "notes", "--ref", "kistore", "remove", slow_blob)
    append(work, slow_blob, good)
    append(work, fast_blob(work), big)
    append(work, fast_blob(work), forged(withdrawal))
    git(work, "push", "-q", "-f", "origin", "refs/notes/kistore")
    theirs = out(fork, "rev-parse", "refs/notes/kistore")
    fork_only = objects(fork, theirs, "--not", out(server, "rev-parse", "refs/notes/kistore"))
    fork_commits = set(out(fork, "rev-list", theirs, "--not",
                           out(server, "rev-parse", "refs/notes/kistore")).split())
    assert len(fork_commits) == 5
    before = out(clone, "rev-parse", "refs/notes/kistore")

    git(clone, "remote", "add", "evil", str(fork))
    fetched = kistore(clone, "notes", "fetch", "evil")
    assert fetched.exit_code == 0, fetched.output
    assert fetched.stdout == "1 attestation(s) gained from evil\n"  # the good line
    assert fetched.stderr.startswith(f"warning: 2 attestation line(s) evil's notes held on "
                                     f"refs/notes/kistore:{fast_blob(clone)} ")
    tip = out(clone, "rev-parse", "refs/notes/kistore")
    assert out(clone, "rev-parse", f"{tip}^@") == before  # one commit of ours, on ours
    assert out(clone, "log", "-1", "--format=%s", tip) == (
        "kistore: take 1 attestation line(s) from the notes of evil, not its notes history "
        "(evil is not the canonical remote); leave out 2 attestation line(s) the notes of "
        "evil held that may not enter (KI409 notes-line-invalid)")
    assert out(clone, "notes", "--ref", "kistore", "show", slow_blob) == good
    ours = objects(clone, "refs/notes/kistore")
    assert not fork_commits & ours
    # what ours shares with the fork's objects: our own tip's tree and the note blob of the
    # one line taken, equal by their bytes (one of the fork's commits held the same notes);
    # no commit of it, no line refused
    shared = fork_only & ours
    assert shared == {out(clone, "rev-parse", f"{tip}^{{tree}}"),
                      out(clone, "rev-parse", f"refs/notes/kistore:{slow_blob}")}
    assert fast_rank(clone) == (None, "")

    blob, line = note_line(Store(clone), "slow", "and once more")  # a later note of ours
    notes.attach(Store(clone), run_of(Store(clone), "slow"), line.encode())
    pushed = kistore(clone, "notes", "push", "origin")
    assert pushed.exit_code == 0, pushed.output
    served = objects(server, "refs/notes/kistore")
    assert not fork_commits & served
    assert not (fork_only - shared) & served  # the 1 MiB line, the forged, the hidden one
    sizes = subprocess.run(["git", "cat-file", "--batch-check=%(objectsize)"], cwd=server,
                           input="\n".join(served), capture_output=True, text=True).stdout
    assert max(map(int, sizes.split())) < 100_000

    other = tmp_path / "c14"  # a fresh clone of the index's notes holds none of it
    git(tmp_path, "clone", "-q", str(server), "c14")
    assert kistore(other, "notes", "fetch", "origin").exit_code == 0
    restored = kistore(other, "notes", "restore", "--json")
    assert json.loads(restored.stdout) == {"restored": 0, "notes": [], "leftOut": 0}


def test_r91_f11_a_fork_s_note_on_a_run_only_it_holds_waits_for_the_run(
        index, server, tmp_path):  # noqa: F811 (index: a fixture)
    fork, work = fork_of(server, tmp_path)
    git(work, "checkout", "-q", "-b", "evilrun")
    manifest = json.loads(kistore(work, "cat", "--manifest", "BenchmarkRun/slow").stdout)
    manifest["metadata"]["name"] = "evil-run"
    manifest["spec"]["timing"]["latencyNs"]["mean"] = 29  # another run
    (tmp_path / "evilrun.json").write_text(json.dumps(manifest))
    added = kistore(work, "add", "--commit", str(tmp_path / "evilrun.json"))
    assert added.exit_code == 0, added.output
    evil_blob, line = note_line(Store(work), "evil-run", "hi")
    append(work, evil_blob, line)
    git(work, "push", "-q", "origin", "evilrun", "refs/notes/kistore")

    clone = tmp_path / "c16"  # a maintainer reviewing the pull request
    git(tmp_path, "clone", "-q", str(server), "c16")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    git(clone, "remote", "add", "evil", str(fork))
    git(clone, "fetch", "-q", "evil")  # the run is in this clone now, on evil's branch only
    fetched = kistore(clone, "notes", "fetch", "evil", "--json")
    assert fetched.exit_code == 0, fetched.output
    assert json.loads(fetched.stdout) == {"remote": "evil", "gained": 0, "kept": 0,
                                          "leftOut": 1, "rewritten": None}
    evil_run = run_of(Store(work), "evil-run")
    assert fetched.stderr == (
        f"warning: 1 attestation line(s) evil's notes held on refs/notes/kistore:{evil_blob} "
        f"(on {evil_run}) left out: its subject is on no branch of origin, the canonical "
        "remote (a run only evil holds: its pull request is not merged, or `git fetch "
        "origin` has not brought it yet); a notes push there would be refused, so it is "
        "taken by the next `kistore notes fetch evil` once the run is there (KI409 "
        "notes-line-invalid); this repository's notes take in only lines that verify, as a "
        "notes push must send\n")
    assert evil_blob not in out(clone, "notes", "--ref", "kistore", "list")

    blob, mine = note_line(Store(clone), "slow", "reviewed")  # the maintainer's own
    notes.attach(Store(clone), run_of(Store(clone), "slow"), mine.encode())
    pushed = kistore(clone, "notes", "push", "origin")  # not blocked (KI409)
    assert pushed.exit_code == 0, pushed.output
    restored = kistore(clone, "notes", "restore", "--json")  # nothing to put back
    assert json.loads(restored.stdout) == {"restored": 0, "notes": [], "leftOut": 0}
    again = kistore(clone, "notes", "fetch", "evil")  # still waiting, still said
    assert (again.stdout, again.stderr) == ("0 attestation(s) gained from evil\n",
                                            fetched.stderr)

    git(clone, "push", "-q", "origin", "refs/remotes/evil/evilrun:refs/heads/main")  # merged
    git(clone, "fetch", "-q", "origin")
    taken = kistore(clone, "notes", "fetch", "evil")
    assert (taken.exit_code, taken.stdout, taken.stderr) == (
        0, "1 attestation(s) gained from evil\n", "")
    assert out(clone, "notes", "--ref", "kistore", "show", evil_blob) == line
    assert kistore(clone, "notes", "push", "origin").exit_code == 0
    assert out(server, "notes", "--ref", "kistore", "show", evil_blob) == line


STALE_ORIGIN = re.compile(r"notes last fetched from origin \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; the "
                          r"branches were fetched since \(\d{4}-[^)]*Z\): run `kistore notes "
                          r"fetch origin`")


def slow_rank(clone: Path) -> int | None:
    """``rank slow --all``'s rank of ``slow`` (withdrawn: None)."""
    result = kistore(clone, "rank", "BenchmarkRun/slow", "--all", "--json")
    assert result.exit_code == 0, result.output
    return {r["name"]: r for r in json.loads(result.stdout)}["slow"]["rank"]


def origin_withdraws_slow(server: Path, tmp_path: Path) -> None:
    """The maintainer withdraws ``slow`` on the server's notes, then pushes a commit to main."""
    maintainer = tmp_path / "c4"
    if not maintainer.exists():
        git(tmp_path, "clone", "-q", str(server), "c4")
    withdraw(Store(maintainer), run_of(Store(maintainer), "slow"), as_file=False)
    assert kistore(maintainer, "notes", "push", "origin").exit_code == 0
    git(maintainer, "commit", "-q", "--allow-empty", "-m", "later")
    git(maintainer, "push", "-q", "origin", "HEAD")


def refused(clone: Path, tmp_path: Path, said: re.Pattern[str]) -> None:
    """``site build`` and ``export`` refuse, exit 1, saying ``said``; nothing is written."""
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert built.exit_code == 1, built.output
    assert said.search(built.stderr), built.stderr
    exported = kistore(clone, "export", str(tmp_path / "out"))
    assert exported.exit_code == 1, exported.output
    assert said.search(exported.stderr), exported.stderr
    assert not (tmp_path / "site").exists() and not (tmp_path / "out").exists()


def test_r91_f4_a_fork_s_notes_fetched_since_do_not_hide_origin_s_stale_notes(
        index, server, tmp_path):  # noqa: F811 (index: a fixture)
    reader = tmp_path / "c5"
    git(tmp_path, "clone", "-q", str(server), "c5")
    assert kistore(reader, "notes", "fetch", "origin").exit_code == 0
    fork = tmp_path / "fork.git"  # a contributor's fork, its pull request reviewed here
    git(tmp_path, "clone", "-q", "--bare", str(server), str(fork))
    git(fork, "fetch", "-q", str(server), "refs/notes/kistore:refs/notes/kistore")
    git(reader, "remote", "add", "fork", str(fork))
    git(reader, "fetch", "-q", "fork")
    assert kistore(reader, "notes", "fetch", "fork").exit_code == 0  # fetched last now

    origin_withdraws_slow(server, tmp_path)
    git(reader, "pull", "-q", "--ff-only", "origin", "main")
    assert slow_rank(reader) == 1  # origin withdrew it: not here yet
    rank = kistore(reader, "rank", "BenchmarkRun/slow", "--all")
    assert STALE_ORIGIN.search(rank.stderr), rank.stderr  # said (before: nothing)
    refused(reader, tmp_path, STALE_ORIGIN)

    git(reader, "push", "-q", "fork", "main")  # the fork flow: the notes pushed to the fork
    assert kistore(reader, "notes", "push", "fork").exit_code == 0  # (before: it hid it too)
    refused(reader, tmp_path, STALE_ORIGIN)

    assert kistore(reader, "notes", "fetch", "origin").exit_code == 0
    assert slow_rank(reader) is None
    built = kistore(reader, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output
    # the fork's branches move since its notes were fetched; it is neither the canonical
    # remote nor the one fetched last: not judged (each `git fetch fork` would refuse)
    git(fork, "branch", "pr-2", "main")
    git(reader, "fetch", "-q", "fork")
    built = kistore(reader, "site", "build", str(tmp_path / "site2"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output


def test_r91_f4_a_fork_s_notes_alone_do_not_count_as_the_index_s(
        index, server, tmp_path):  # noqa: F811 (index: a fixture)
    fork = tmp_path / "fork.git"  # stale: before origin's withdrawal of slow
    git(tmp_path, "clone", "-q", "--bare", str(server), str(fork))
    git(fork, "fetch", "-q", str(server), "refs/notes/kistore:refs/notes/kistore")
    origin_withdraws_slow(server, tmp_path)
    clone = tmp_path / "c17"
    git(tmp_path, "clone", "-q", str(server), "c17")
    git(clone, "remote", "add", "fork", str(fork))
    fetched = kistore(clone, "notes", "fetch", "fork")
    assert fetched.stdout == "1 attestation(s) gained from fork\n"  # fast's withdrawal

    said = ("the notes of origin, the canonical remote, were never fetched into this repository, "
            "only those of fork")
    refused(clone, tmp_path, re.compile(re.escape(f"refusing to build the site: {said}, ")
                                        + "|" + re.escape(f"refusing to export: {said}, ")))
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert "run `kistore notes fetch origin` and build the site again" in built.stderr
    rank = kistore(clone, "rank", "BenchmarkRun/slow", "--all")
    assert f"warning: {said}: the remote's attestations" in rank.stderr
    assert slow_rank(clone) == 1

    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    assert slow_rank(clone) is None
    assert kistore(clone, "site", "build", str(tmp_path / "site")).exit_code == 0


@pytest.mark.parametrize("cleaned", ["gc", "no-reflog"])
def test_r91_f9_stale_notes_are_told_by_the_branch_tips_not_the_reflogs(
        index, server, tmp_path, cleaned):  # noqa: F811 (index: a fixture)
    reader = tmp_path / "c11"
    git(tmp_path, "clone", "-q", str(server), "c11")
    if cleaned == "no-reflog":
        git(reader, "config", "core.logAllRefUpdates", "false")
        git(reader, "reflog", "expire", "--expire=now", "--all")
    assert kistore(reader, "notes", "fetch", "origin").exit_code == 0
    origin_withdraws_slow(server, tmp_path)
    git(reader, "pull", "-q", "--ff-only", "origin", "main")
    if cleaned == "gc":
        git(reader, "reflog", "expire", "--expire=now", "--all")
        git(reader, "gc", "-q", "--prune=now")
    else:  # no reflog kept: packing the refs takes the one time left
        git(reader, "pack-refs", "--all")
    assert not (reader / ".git/refs/remotes/origin/main").exists()  # packed, no reflog
    refused(reader, tmp_path, STALE_ORIGIN)
    assert slow_rank(reader) == 1

    assert kistore(reader, "notes", "fetch", "origin").exit_code == 0
    assert slow_rank(reader) is None
    git(reader, "gc", "-q", "--prune=now")  # gc after the notes fetch: nothing to say
    built = kistore(reader, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output


def test_r92_f9_this_clone_s_own_push_is_no_fetch_but_a_pull_after_it_is(
        index, server, tmp_path):  # noqa: F811 (index: a fixture)
    maintainer = tmp_path / "m4"
    git(tmp_path, "clone", "-q", str(server), "m4")
    assert kistore(maintainer, "notes", "fetch", "origin").exit_code == 0
    withdraw(Store(maintainer), run_of(Store(maintainer), "slow"), as_file=False)
    assert kistore(maintainer, "notes", "push", "origin").exit_code == 0
    git(maintainer, *E, "commit", "-q", "--allow-empty", "-m", "mine")
    git(maintainer, "push", "-q", "origin", "main")  # moves origin/main "update by push"
    assert "update by push" in out(maintainer, "reflog", "show", "-1", "origin/main")

    for pushes in ("one push", "two pushes in a row"):
        built = kistore(maintainer, "site", "build", str(tmp_path / pushes))
        assert (built.exit_code, built.stderr) == (0, ""), built.output  # before: refused
        rank = kistore(maintainer, "rank", "BenchmarkRun/ref", "--all")
        assert (rank.exit_code, rank.stderr) == (0, ""), rank.output  # before: a warning
        assert slow_rank(maintainer) is None
        git(maintainer, *E, "commit", "-q", "--allow-empty", "-m", "mine too")
        git(maintainer, "push", "-q", "origin", "main")

    # another maintainer's notes and commit land on origin; this clone's pull is a fetch:
    # after its own pushes, still refused until origin's notes are fetched again
    origin_withdraws_slow(server, tmp_path)
    git(maintainer, "pull", "-q", "--no-rebase", "origin", "main")
    refused(maintainer, tmp_path, STALE_ORIGIN)
    assert kistore(maintainer, "notes", "fetch", "origin").exit_code == 0
    built = kistore(maintainer, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output


def test_r92_f15_a_fork_fetched_last_then_git_fetched_does_not_refuse_publishing_main(
        index, server, tmp_path):  # noqa: F811 (index: a fixture)
    fork = tmp_path / "fork.git"  # a contributor's fork, holding notes
    git(tmp_path, "clone", "-q", "--bare", str(server), str(fork))
    git(fork, "fetch", "-q", str(server), "refs/notes/kistore:refs/notes/kistore")
    reader = tmp_path / "c5"
    git(tmp_path, "clone", "-q", str(server), "c5")
    git(reader, "remote", "add", "fork", str(fork))
    git(fork, "branch", "pr-1", "main")  # the contributor's branch moves before ...
    assert kistore(reader, "notes", "fetch", "origin").exit_code == 0
    assert kistore(reader, "notes", "fetch", "fork").exit_code == 0  # ... the notes fetch
    git(reader, "fetch", "-q", "fork")  # the reviewer fetches the pull request's branch

    built = kistore(reader, "site", "build", str(tmp_path / "main-site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output  # before: refused
    rank = kistore(reader, "rank", "BenchmarkRun/ref", "--all")
    assert (rank.exit_code, rank.stderr) == (0, ""), rank.output

    # origin itself stays judged: its pull after a withdrawal there still refuses
    origin_withdraws_slow(server, tmp_path)
    git(reader, "pull", "-q", "--ff-only", "origin", "main")
    refused(reader, tmp_path, STALE_ORIGIN)
