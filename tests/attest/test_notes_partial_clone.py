"""Attestations in a blob-less clone (``git clone --filter=blob:none``) read as in a full clone.

A new user's review (2026-12-01): once the notes were fetched into a blob-less clone
(``kistore notes fetch origin``, or ``git fetch origin refs/notes/kistore:...``), the note
blobs were not there and libgit2 cannot fetch one: ``show``, ``rank``, ``attestations``,
``verify`` and ``notes fetch`` itself ended in "internal error ... KeyError: '<note blob
id>'". Now whoever reads the notes history fetches the note blobs the clone lacks first, in
one ``git fetch`` (not one per blob), and ``notes fetch`` asks for the notes unfiltered. The
git processes are counted from git's own trace (``GIT_TRACE2_EVENT``, tests/partial.py).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.attest import notes
from kistore.check import check_updates
from kistore.cli import main
from kistore.core import layout
from kistore.git import notes as gitnotes
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, git, write_tree
from ..partial import git_processes, missing

KISTORE = str(Path(sys.executable).with_name("kistore"))

COMMANDS = [
    ["show", "BenchmarkRun/run2"],
    ["rank", "BenchmarkRun/run2"],
    ["attestations", "BenchmarkRun/run1"],
    ["attestations", "BenchmarkRun/run2"],
    ["attestations", "BenchmarkRun/run3"],
    ["verify"],
]
"""What a reader asks: run1 is withdrawn (a note), run2 carries a file attestation and a
note, run3 a note."""


def kistore(path: Path, *args: str, trace: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed ``kistore --store PATH ARGS`` (git's trace to ``trace`` if given)."""
    env = {**os.environ, **({"GIT_TRACE2_EVENT": str(trace)} if trace else {})}
    return subprocess.run([KISTORE, "--store", str(path), *args], capture_output=True,
                          text=True, check=False, env=env)


def cli(path: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["--store", str(path), *args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Path:
    """A bare server (filters allowed) of three runs, a maintainer's trust file, three notes
    (a withdrawal of run1, a community note on run2 and on run3, each its own notes commit)
    and one committed attestation file (a community note on run2)."""
    tmp = tmp_path_factory.mktemp("served")
    kit = ManifestKit()
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for i in (1, 2, 3):
        impl = kit.implementation(f"proj-{i}", name=f"impl-{i}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=10 * i, name=f"run{i}")]
    work = tmp / "work"
    Store.init(work)
    add_docs(Store(work), docs)
    git(work, "branch", "-M", "main")
    key = tmp / "k"
    cli(work, "key", "generate", str(key))
    cli(work, "trust", "add", f"{key}.pub", "--role", "maintainer",
        "--valid-from", "2026-01-01")
    git(work, "add", "store/trust")
    git(work, "commit", "-q", "--no-verify", "-m", "trust")
    cli(work, "attest", "BenchmarkRun/run1", "--type", "withdrawal", "-m", "bad", "--key",
        str(key))
    cli(work, "attest", "BenchmarkRun/run2", "--type", "note", "-m", "seen", "--key", str(key))
    cli(work, "attest", "BenchmarkRun/run3", "--type", "note", "-m", "also", "--key", str(key))
    cli(work, "attest", "BenchmarkRun/run2", "--type", "note", "-m", "filed", "--key",
        str(key), "--file")
    git(work, "add", "store/attestations")
    git(work, "commit", "-q", "--no-verify", "-m", "an attestation file")
    server = tmp / "server.git"
    git(tmp, "init", "-q", "--bare", str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    git(work, "push", "-q", str(server), "main", f"{layout.NOTES_REF}:{layout.NOTES_REF}")
    git(server, "symbolic-ref", "HEAD", "refs/heads/main")
    return server


def clone(served: Path, to: Path, *options: str) -> Path:
    git(to.parent, "clone", "-q", *options, f"file://{served}", str(to))
    return to


def answers(path: Path) -> list[tuple[int, str, str]]:
    """Every command of :data:`COMMANDS` run in ``path``: (exit code, stdout, stderr)."""
    return [(r.returncode, r.stdout, r.stderr)
            for r in (kistore(path, *args) for args in COMMANDS)]


@pytest.fixture(scope="module")
def full(served, tmp_path_factory) -> dict[str, list[tuple[int, str, str]]]:
    """What a full clone (work tree, and bare) answers once its notes are fetched."""
    tmp = tmp_path_factory.mktemp("full")
    out = {}
    for kind, options in (("work", ()), ("bare", ("--bare",))):
        path = clone(served, tmp / kind, *options)
        assert kistore(path, "notes", "fetch", "origin").returncode == 0
        out[kind] = answers(path)
    return out


def git_fetch_notes(path: Path) -> None:
    """``git fetch origin refs/notes/kistore:refs/notes/kistore``, with the clone's filter.

    Into ``refs/notes/remotes/origin/kistore`` as well, as ``kistore notes fetch`` leaves
    it: readers count a remote's notes as fetched by that ref, not by the local one, which
    one ``kistore attest`` also writes (reviewer r86 F21).
    """
    git(path, "fetch", "-q", "origin", f"{layout.NOTES_REF}:{layout.NOTES_REF}",
        f"{layout.NOTES_REF}:refs/notes/remotes/origin/kistore")


def test_the_full_clone_shows_the_withdrawal_and_the_attestations(full):
    for kind in ("work", "bare"):
        show, rank, run1, run2, run3, verify = full[kind]
        assert [code for code, _, _ in full[kind]] == [0] * 6, full[kind]
        assert "rank 1 of 2 " in show[1]  # run1 (10 ns) is withdrawn: left out
        assert "run1" not in rank[1] and "run2" in rank[1] and "run3" in rank[1]
        assert "(withdrawn)" in run1[1] and "withdrawal" in run1[1]
        # one key: counted once, seen as a note and as a file; each with its text
        assert "valid community, from note; text: seen\n" in run2[1] and run2[1].endswith(
            "valid community, from file; text: filed\n"), run2[1]
        assert "community: 1 signer (of 1 community attestation)" in run3[1] and run3[1].endswith(
            "valid community, from note; text: also\n"), run3[1]
        assert "3 attestation(s) from notes" in verify[1] and "1 from files" in verify[1]


@pytest.mark.parametrize("kind", ["work", "bare"])
def test_notes_fetch_in_a_blob_less_clone_reads_as_a_full_clone(served, full, tmp_path, kind):
    path = clone(served, tmp_path / kind, "--filter=blob:none",
                 *(("--bare",) if kind == "bare" else ()))
    trace = tmp_path / "trace.json"
    done = kistore(path, "notes", "fetch", "origin", trace=trace)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "3 attestation(s) gained from origin\n", "")  # was: internal error, KeyError
    # one `git fetch` of the notes, unfiltered: their blobs came along; none fetched after.
    # A bare clone has no kistore.toml on disk: the `[store] version` check (notes fetch
    # writes our notes ref) reads HEAD's, one `cat-file` fetching that one blob; and the
    # objects the gained lines annotate, to judge them (KI409, reviewer r90b F11), in one.
    fetches = git_processes(trace)
    bare = kind == "bare"
    assert (fetches["fetch"], fetches["cat-file"]) == (1 + 2 * bare, int(bare)), fetches
    toml = git(path, "rev-parse", "HEAD:kistore.toml").strip()
    notes_tip = git(path, "rev-parse", layout.NOTES_REF).strip()
    assert "?" not in git(path, "rev-list", "--objects", "--missing=print", notes_tip)
    [filed] = git(path, "ls-tree", "-r", "HEAD", "store/attestations").splitlines()
    lacking = git(path, "rev-list", "--objects", "--missing=print", "HEAD").split()
    assert f"?{toml}" not in lacking
    # a bare clone has no checkout: the attestation file is read (fetched) from git
    assert (f"?{filed.split()[2]}" in lacking) == (kind == "bare")
    assert answers(path) == full[kind]


@pytest.mark.parametrize("kind", ["work", "bare"])
def test_notes_fetched_by_git_with_the_filter_are_read_in_one_fetch(served, full, tmp_path,
                                                                     kind):
    # `git fetch origin refs/notes/kistore:refs/notes/kistore` in a blob-less clone fetches
    # the notes commits and trees, not their blobs (the clone's filter)
    path = clone(served, tmp_path / kind, "--filter=blob:none",
                 *(("--bare",) if kind == "bare" else ()))
    for args in COMMANDS[:-1]:  # what the commands read besides notes is here now
        assert kistore(path, *args).returncode == 0
    git_fetch_notes(path)
    notes_tip = git(path, "rev-parse", layout.NOTES_REF).strip()
    lacking = [line[1:] for line in git(path, "rev-list", "--objects", "--missing=print",
                                        notes_tip).splitlines() if line.startswith("?")]
    assert len(lacking) == 3  # the note blobs of the three notes commits (1, 2, 3 lines)
    trace = tmp_path / "trace.json"
    done = kistore(path, "show", "BenchmarkRun/run2", trace=trace)
    assert (done.returncode, done.stdout, done.stderr) == full[kind][0]
    processes = git_processes(trace)
    assert (processes["fetch"], processes["cat-file"]) == (1, 0), processes  # not 1 per blob
    assert "?" not in git(path, "rev-list", "--objects", "--missing=print", notes_tip)
    assert answers(path) == full[kind]


def test_notes_fetch_merges_an_older_filtered_history_in_one_more_fetch(served, full, tmp_path):
    # our notes came with the filter (blobs missing) and the remote's are newer: the merge
    # reads both sides; the blobs still missing come in one fetch after the notes fetch
    path = clone(served, tmp_path / "work", "--filter=blob:none")
    older = git(served, "rev-parse", f"{layout.NOTES_REF}~1").strip()
    git(path, "fetch", "-q", "origin", older)
    git(path, "update-ref", layout.NOTES_REF, older)
    assert missing(path) >= 2  # the note blobs of the first two notes commits
    trace = tmp_path / "trace.json"
    done = kistore(path, "notes", "fetch", "origin", trace=trace)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "1 attestation(s) gained from origin\n", "")
    processes = git_processes(trace)
    assert (processes["fetch"], processes["cat-file"]) == (2, 0), processes
    assert git(path, "rev-parse", layout.NOTES_REF).strip() == git(
        served, "rev-parse", layout.NOTES_REF).strip()  # a fast-forward, as in a full clone
    assert answers(path) == full["work"]


def test_a_note_written_over_a_missing_note_blob_keeps_its_lines(served, tmp_path):
    # libgit2 found no note whose blob was missing: its lines were taken for none, and a
    # new line written on top replaced them (the withdrawal would have been lost)
    path = clone(served, tmp_path / "work", "--filter=blob:none")
    git_fetch_notes(path)
    repo = pygit2.Repository(str(path))
    tip = repo.references[layout.NOTES_REF].peel(pygit2.Commit)
    mapping = notes.note_blobs(repo, tip)
    assert len(mapping) == 3 and not any(blob in repo.odb for blob in mapping.values())
    first = git(path, "rev-list", "--reverse", layout.NOTES_REF).split()[0]
    [(annotated, note_blob)] = notes.note_blobs(repo, repo[first].peel(pygit2.Commit)).items()
    expected = git(served, "cat-file", "blob", note_blob).encode().splitlines()
    assert len(expected) == 1  # run1's withdrawal, the first note
    assert notes.note_lines(repo, annotated) == expected
    assert notes.add_lines(repo, annotated, [b'{"another":"line"}']) == 1
    assert notes.note_lines(repo, annotated) == sorted([*expected, b'{"another":"line"}'])


def test_note_blobs_the_remote_cannot_give_are_an_error_for_people(served, tmp_path):
    # offline (the server gone): a message saying what to do, not "internal error, KeyError"
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--mirror", str(served), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    path = clone(server, tmp_path / "work", "--filter=blob:none")
    git_fetch_notes(path)
    server.rename(tmp_path / "gone.git")
    done = kistore(path, "show", "BenchmarkRun/run2")
    assert done.returncode == 1 and done.stdout == "", done
    assert "internal error" not in done.stderr and "KeyError" not in done.stderr
    assert done.stderr.startswith(f"error: {path}/.git/: 3 blob(s) (e.g. "), done.stderr
    # the three note blobs, asked for in one fetch; then git's own last line (its wording)
    assert ("are not in this partial clone and git could not fetch them from its promisor "
            "remote 'origin' (") in done.stderr, done.stderr
    assert done.stderr.endswith("): make the remote reachable, or clone without --filter\n")


# -- the second review's leftovers (2026-12-02): one walk, one path, few fetches ----------


def walks(monkeypatch) -> list[str]:
    """Record the first tip of every revision walk pygit2 starts from now on."""
    started: list[str] = []
    real = pygit2.Repository.walk

    def walk(self, oid, *args):
        started.append(str(oid))
        return real(self, oid, *args)

    monkeypatch.setattr(pygit2.Repository, "walk", walk)
    return started


@pytest.mark.parametrize("filtered", [True, False])
def test_notes_fetch_walks_the_notes_history_once(served, full, tmp_path, monkeypatch,
                                                  filtered):
    # its prefetch walked both histories, then counting the lines gained walked ours
    # before and the merged one after (each twice in a partial clone): one walk now, the
    # prefetch's, and none in a full clone (the lines gained are counted at the tips)
    path = clone(served, tmp_path / "work", *(("--filter=blob:none",) if filtered else ()))
    older = git(served, "rev-parse", f"{layout.NOTES_REF}~1").strip()
    git(path, "fetch", "-q", "origin", older)
    git(path, "update-ref", layout.NOTES_REF, older)
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    started = walks(monkeypatch)
    assert notes.fetch(Store(path), "origin").gained == 1
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    tip = git(served, "rev-parse", layout.NOTES_REF).strip()
    assert started == ([tip] if filtered else []), started
    processes = git_processes(trace)
    # the notes fetch, and in a partial clone one fetch of the older note blobs
    assert (processes["fetch"], processes["cat-file"]) == (2 if filtered else 1, 0), processes
    assert git(path, "rev-parse", layout.NOTES_REF).strip() == tip
    assert answers(path) == full["work"]


def test_notes_entered_walks_once_in_a_blob_less_clone(served, full, tmp_path, monkeypatch):
    path = clone(served, tmp_path / "work", "--filter=blob:none")
    git_fetch_notes(path)
    started = walks(monkeypatch)
    repo = pygit2.Repository(str(path))
    entered = notes.notes_entered(repo)
    assert started == [git(path, "rev-parse", layout.NOTES_REF).strip()]  # was: two walks
    assert sorted(len(lines) for lines in entered.values()) == [1, 1, 1]
    assert "?" not in git(path, "rev-list", "--objects", "--missing=print", layout.NOTES_REF)


def _note_layouts(repo: pygit2.Repository, notes_by_object: dict[str, bytes]
                  ) -> dict[str, pygit2.Oid]:
    """Notes trees holding ``notes_by_object`` flat, fanned out 2/38 and 2/2/36 (git reads
    each; it fans out as notes grow), and mixed (some flat, some fanned out)."""

    def build(split) -> pygit2.Oid:
        return write_tree(repo, {"/".join(split(obj)): repo.create_blob(text)
                                 for obj, text in notes_by_object.items()})

    return {"flat": build(lambda o: [o]),
            "2/38": build(lambda o: [o[:2], o[2:]]),
            "2/2/36": build(lambda o: [o[:2], o[2:4], o[4:]]),
            "mixed": build(lambda o: [o] if int(o[0], 16) % 2 else [o[:2], o[2:]])}


def test_a_note_is_looked_up_by_its_path_as_libgit2_and_git_find_it(tmp_path):
    # note_lines' fallback flattened the whole notes tree to find one blob; note_blob
    # follows the one path, in every fan-out, and finds what libgit2 (a full clone's
    # lookup_note) and git (`git notes list OBJ`) find
    path = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(path))
    repo = pygit2.Repository(str(path))
    objects = [str(repo.create_blob(f"object {i}\n".encode())) for i in range(40)]
    annotated = {obj: f"note on {obj}\n".encode() for obj in objects[:30]}
    absent = objects[30:] + ["ab" * 20, objects[0][:2] + "0" * 38]
    signature = pygit2.Signature("t", "t@example.org", 0, 0)
    for layout_name, tree in _note_layouts(repo, annotated).items():
        ref = f"refs/notes/{layout_name.replace('/', '-')}"
        repo.create_commit(ref, signature, signature, layout_name, tree, [])
        commit = repo.references[ref].peel(pygit2.Commit)
        for obj in [*annotated, *absent]:
            found = gitnotes.note_blob(repo, commit.tree, obj)
            try:
                expected: str | None = str(repo.lookup_note(obj, ref).id)
            except KeyError:
                expected = None
            listed = subprocess.run(["git", "-C", str(path), "notes", f"--ref={ref}", "list",
                                     obj], capture_output=True, text=True, check=False)
            assert found == expected == (listed.stdout.strip() or None), (layout_name, obj)
            assert (found is not None) == (obj in annotated)
            if found is not None:
                assert repo[found].read_raw() == annotated[obj]


def test_git_fanned_out_notes_are_read_by_path_in_a_blob_less_clone(tmp_path, monkeypatch):
    # 300 notes: git (fast-import, as `git notes` does) fans them out as ab/cdef...; in a
    # blob-less clone note_lines reads the one note blob and no notes tree is flattened
    work = tmp_path / "work"
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    who = "committer t <t@example.org> 0 +0000\ndata 1\nx"
    stream = [f"commit refs/heads/main\nmark :{i + 1}\n{who}" for i in range(300)]
    stream += [f"commit {layout.NOTES_REF}\n{who}"]
    stream += [f"N inline :{i + 1}\ndata {len(f'note {i}')}\nnote {i}" for i in range(300)]
    subprocess.run(["git", "-C", str(work), "fast-import", "--quiet"],
                   input="\n".join(stream) + "\n", text=True, check=True)
    top = git(work, "ls-tree", layout.NOTES_REF).split("\n")[0].split()
    assert top[1] == "tree" and len(top[3]) == 2  # fanned out by git
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    git(work, "push", "-q", str(server), f"{layout.NOTES_REF}:{layout.NOTES_REF}")
    path = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{server}", str(path))
    git_fetch_notes(path)
    assert missing(path) == 300  # the note blobs
    commits = git(work, "rev-list", "--reverse", "main").split()  # note i is on commit i
    monkeypatch.setattr(notes, "_flatten", None)  # no whole-tree walk: it would fail
    repo = pygit2.Repository(str(path))
    for i in (0, 150, 299):
        assert notes.note_lines(repo, commits[i]) == [f"note {i}".encode()]
    assert missing(path) == 300 - 3  # one blob each, nothing else
    assert notes.note_lines(repo, "ab" * 20) == []


@pytest.fixture(scope="module")
def full_at_head(served, tmp_path_factory) -> dict[tuple[str, ...], tuple[int, str, str]]:
    """What a full bare clone answers to ``attestations REF --at HEAD`` (notes fetched)."""
    path = clone(served, tmp_path_factory.mktemp("full_at_head") / "bare", "--bare")
    assert kistore(path, "notes", "fetch", "origin").returncode == 0
    digest = kistore(path, "attestations", "BenchmarkRun/run2", "--json").stdout
    prefix = digest.split('"subject": "sha256:')[1][:8]
    out = {}
    for args in (("BenchmarkRun/run1",), ("BenchmarkRun/run2",), (prefix,)):
        r = kistore(path, "attestations", *args, "--at", "HEAD")
        out[args] = (r.returncode, r.stdout, r.stderr)
    return out


@pytest.mark.parametrize("ref", ["BenchmarkRun/run1", "BenchmarkRun/run2", "prefix"])
def test_attestations_in_a_blob_less_bare_clone_fetch_in_two(served, full_at_head, tmp_path,
                                                             ref):
    # each reader fetched its own: the names file and the trust file one `cat-file` each
    # (each a lazy `git fetch`), the owner's files, the note blobs and the attestation
    # files one batch each; now two fetches, and one for a digest prefix (no names file)
    path = clone(served, tmp_path / "bare", "--filter=blob:none", "--bare")
    git_fetch_notes(path)
    [args] = [a for a in full_at_head if (a[0] if ref != "prefix" else "prefix") ==
              (ref if ref != "prefix" else ("prefix" if "/" not in a[0] else ""))]
    lacking = missing(path)
    trace = tmp_path / "trace.json"
    done = kistore(path, "attestations", *args, "--at", "HEAD", trace=trace)
    assert (done.returncode, done.stdout, done.stderr) == full_at_head[args]
    processes = git_processes(trace)
    assert (processes["fetch"], processes["cat-file"]) == (
        (1 if ref == "prefix" else 2), 0), processes
    # the three note blobs, the trust file, the object, and for a name its names file and
    # metadata; run2 also its attestation file
    fetched = lacking - missing(path)
    assert fetched == 3 + 1 + 1 + (0 if ref == "prefix" else 2) + (
        0 if ref == "BenchmarkRun/run1" else 1), fetched
    again = tmp_path / "again.json"
    assert kistore(path, "attestations", *args, "--at", "HEAD", trace=again).stdout == done.stdout
    assert git_processes(again)["fetch"] == 0  # all here now


def test_a_notes_push_from_a_blob_less_clone_is_checked_as_in_a_full_clone(served, tmp_path,
                                                                            monkeypatch):
    # the gate's check of a push to refs/notes/kistore read the note blobs with libgit2:
    # in a blob-less clone (a pre-push hook) that was a KeyError; now the changed notes and
    # the objects they annotate come in one fetch, and the findings are a full clone's
    found = {}
    for kind in ("full", "partial"):
        path = clone(served, tmp_path / kind, "--bare",  # no checkout: no object file here
                     *(("--filter=blob:none",) if kind == "partial" else ()))
        git_fetch_notes(path)
        old, new = (git(path, "rev-parse", f"{layout.NOTES_REF}{s}").strip() for s in ("~2", ""))
        lacking = missing(path)
        trace = tmp_path / f"{kind}.json"
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        # judged at the notes tip's time: the module's notes were made minutes ago, and a
        # push brings notes commits dated at the push (KI437), not what this test is about
        at = dt.datetime.fromtimestamp(pygit2.Repository(str(path))[new].commit_time, dt.UTC)
        found[kind] = [f.format() for f in check_updates(
            Store(path), [(old, new, layout.NOTES_REF), ("0" * 40, new, layout.NOTES_REF)],
            now=at)]
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        processes = git_processes(trace) if trace.exists() else {}
        if kind == "partial":
            # one fetch each update: its note blobs (old and new), the objects they
            # annotate and (the first) main's trust file and kistore.toml (the note line
            # limit, KI409); the second lacks run1's two
            assert (processes["fetch"], processes["cat-file"]) == (2, 0), processes
            assert lacking - missing(path) == 3 + 3 + 1 + 1, lacking - missing(path)
        else:
            assert processes.get("fetch", 0) == 0, processes
    assert found["partial"] == found["full"]
    assert found["full"] == []  # a maintainer's notes, trusted by main's trust file


_HEX40 = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(placed=st.dictionaries(_HEX40, st.integers(0, 3), min_size=1, max_size=12),
       absent=st.lists(_HEX40, max_size=4), shared=st.sampled_from(["", "ab", "abcd"]))
def test_note_blob_finds_what_libgit2_finds_in_any_fan_out(tmp_path, placed, absent, shared):
    # each note at its own depth (0: flat, 1: ab/..., 2: ab/cd/..., 3: ab/cd/ef/...), ids
    # that share leading digits (a flat note beside a directory of its first two digits):
    # note_blob answers what a full clone's lookup (libgit2's git_note_read) answers
    placed = {shared + obj[len(shared):]: depth for obj, depth in placed.items()}
    path = tmp_path / "repo"
    if not path.exists():
        git(tmp_path, "init", "-q", str(path))
    repo = pygit2.Repository(str(path))
    tree: dict = {}
    for obj, depth in placed.items():
        node = tree
        for level in range(depth):
            node = node.setdefault(obj[2 * level:2 * level + 2], {})
            if not isinstance(node, dict):
                return  # a note named as a directory would be: no such tree
        if obj[2 * depth:] in node:
            return
        node[obj[2 * depth:]] = repo.create_blob(f"note {obj}\n".encode())

    def write(node: dict) -> pygit2.Oid:
        builder = repo.TreeBuilder()
        for name, value in node.items():
            is_tree = isinstance(value, dict)
            builder.insert(name, write(value) if is_tree else value,
                           pygit2.GIT_FILEMODE_TREE if is_tree else pygit2.GIT_FILEMODE_BLOB)
        return builder.write()

    signature = pygit2.Signature("t", "t@example.org", 0, 0)
    ref = "refs/notes/property"
    old = repo.references.get(ref)
    commit_id = repo.create_commit(None, signature, signature, "p", write(tree), [])
    if old is not None:
        old.set_target(commit_id)
    else:
        repo.references.create(ref, commit_id)
    commit = repo[commit_id].peel(pygit2.Commit)
    for obj in [*placed, *absent]:
        try:
            expected: str | None = str(repo.lookup_note(obj, ref).id)
        except KeyError:
            expected = None
        assert gitnotes.note_blob(repo, commit.tree, obj) == expected, (obj, placed)


def test_every_trust_file_version_is_fetched_in_one_batch(served, tmp_path):
    # judging reads every version of store/trust/keys.json along main (a revocation is
    # never lifted; a key counts from when it was added): in a blob-less clone an older
    # version not yet here was a KeyError; now the versions come in one fetch with the rest
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--mirror", str(served), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    work = clone(server, tmp_path / "work")
    key = tmp_path / "second"
    cli(work, "key", "generate", str(key))
    cli(work, "trust", "add", f"{key}.pub", "--role", "rerun", "--comment", "a second key")
    git(work, "add", "store/trust")
    git(work, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q",
        "--no-verify", "-m", "trust a second key")
    git(work, "push", "-q", "origin", "main")
    assert len(git(server, "rev-list", "main", "--", layout.TRUST_FILE).split()) == 2
    expected = {}
    for kind, options in (("full", ()), ("partial", ("--filter=blob:none",))):
        path = clone(server, tmp_path / kind, "--bare", *options)
        git_fetch_notes(path)
        for args in (["attestations", "BenchmarkRun/run2", "--at", "HEAD"],
                     ["show", "BenchmarkRun/run3"]):
            trace = tmp_path / f"{kind}-{args[0]}.json"
            done = kistore(path, *args, trace=trace)
            assert "KeyError" not in done.stderr and done.returncode == 0, done
            if kind == "full":
                expected[args[0]] = (done.returncode, done.stdout, done.stderr)
                continue
            assert (done.returncode, done.stdout, done.stderr) == expected[args[0]]
            processes = git_processes(trace)
            if args[0] == "attestations":  # the names file, note blobs, both trust files
                assert (processes["fetch"], processes["cat-file"]) == (2, 0), processes
        if kind == "partial":
            versions = git(path, "rev-list", "--objects", "--missing=print", "HEAD", "--",
                           layout.TRUST_FILE)
            assert not [v for v in versions.splitlines() if v.startswith("?")]


@pytest.fixture(scope="module")
def full_bare(served, tmp_path_factory) -> Path:
    """A full bare clone of ``served`` with its notes: what a blob-less clone must answer."""
    path = clone(served, tmp_path_factory.mktemp("full_bare") / "bare", "--bare")
    git_fetch_notes(path)
    return path


def _blobless(served: Path, to: Path) -> Path:
    path = clone(served, to, "--filter=blob:none", "--bare")
    git_fetch_notes(path)
    return path


def _prefix(path: Path, name: str) -> str:
    shown = kistore(path, "cat", name, "--at", "HEAD")
    assert shown.returncode == 0, shown.stderr
    return hashlib.sha256(shown.stdout.encode()).hexdigest()[:12]


# (what is asked, `git fetch` processes in a blob-less bare clone). A run page and `rank`
# read a chain of files each named only by the bytes of the one before: the names file
# names the run, the run its protocol and environment, which give its comparison key, whose
# directory lists the members, whose bytes name their implementations. One fetch a link
# (the judging blobs, the policy and kistore.toml ride with the run's references, each
# member's attestation files with the members): 5 by name, 4 by digest. Before: 8 by name
# (the note blobs, the attestation files and the trust file each one more), 8 and 3
# `cat-file`s by digest; `verify --at HEAD` 4 (kistore.toml, .gitattributes and the note
# blobs beside the listing), now 1; a Workload by digest 2 (its two files one by one), now 1.
BATCHED = [
    (("show", "BenchmarkRun/run2"), 5),
    (("show", "run2-prefix"), 4),
    (("rank", "BenchmarkRun/run2"), 5),
    (("rank", "run2-prefix"), 4),
    (("show", "Workload/workload-3"), 2),  # the names file, then the two files it names
    (("show", "workload-prefix"), 1),
    (("verify",), 1),
    (("show", "BenchmarkRun/no-such-run"), 0),
    (("rank", "BenchmarkRun/no-such-run"), 0),
    (("attestations", "BenchmarkRun/no-such-run"), 0),
]


@pytest.mark.parametrize(("asked", "fetches"), BATCHED, ids=[" ".join(a) for a, _ in BATCHED])
def test_a_blob_less_bare_clone_answers_as_a_full_clone_in_few_fetches(
        served, full_bare, tmp_path, asked, fetches):
    path = _blobless(served, tmp_path / "bare")
    prefixes = {"run2-prefix": "BenchmarkRun/run2", "workload-prefix": "Workload/workload-3"}
    args = [_prefix(full_bare, prefixes[a]) if a in prefixes else a for a in asked]
    lacking = missing(path)
    trace = tmp_path / "trace.json"
    done = kistore(path, *args, "--at", "HEAD", trace=trace)
    expected = kistore(full_bare, *args, "--at", "HEAD")
    assert (done.returncode, done.stdout, done.stderr) == (
        expected.returncode, expected.stdout, expected.stderr)
    assert done.returncode == (1 if "no-such-run" in asked[-1] else 0), done.stderr
    processes = git_processes(trace) if trace.exists() else {}
    # every fetch is kistore's own batch: no `git cat-file` fetching one blob lazily
    assert (processes.get("fetch", 0), processes.get("cat-file", 0)) == (fetches, 0), processes
    if fetches == 0:
        assert missing(path) == lacking  # "no such name" from the names listing: no blob
    if asked == ("verify",):
        assert missing(path) == 0  # every blob: the store's files, the notes, the trust file


def test_attestations_of_a_name_whose_names_file_is_here_fetch_once(served, full_at_head,
                                                                    tmp_path):
    # the names file (and the run's two files) came with an earlier `cat`: its bytes name
    # the subject, so the note blobs, the trust file and the attestation file come in one
    path = _blobless(served, tmp_path / "bare")
    assert kistore(path, "cat", "BenchmarkRun/run2", "--at", "HEAD").returncode == 0
    lacking = missing(path)
    trace = tmp_path / "trace.json"
    done = kistore(path, "attestations", "BenchmarkRun/run2", "--at", "HEAD", trace=trace)
    assert (done.returncode, done.stdout, done.stderr) == full_at_head[("BenchmarkRun/run2",)]
    processes = git_processes(trace)
    assert (processes["fetch"], processes["cat-file"]) == (1, 0), processes
    assert lacking - missing(path) == 3 + 1 + 1  # the note blobs, trust file, attestation file
