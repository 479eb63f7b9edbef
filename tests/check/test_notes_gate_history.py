"""The push gate reads a notes history between its tips, and notes trees git fanned out.

A fork's notes history that adds a garbage line and removes it again passed
``hooks/pre-receive`` (the gate compared the two tips only), and every clone fetching the
index's notes fetched the garbage. Now each line a brought notes commit holds that no tip
holds is judged as a tip's line is (KI409, naming the commit, the note and the line).

git writes a notes tree fanned out (``ab/cdef...``) once it holds some 50-100 notes (git
2.39: 48 to 101 in tries of random ids; not at 256 as often said): the gate reads the
notes a push changes by a diff of the two trees, through those paths.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kistore.attest import notes
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import RUN, STRANGER, bundle
from ..conftest import git
from ..prs import KISTORE, Remote, _env

# every finding made here keeps one meaning per extra key (`entered`: a commit id)
pytestmark = pytest.mark.usefixtures("extra_keys_kept")

REF = "kistore"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def run_blob(clone: Path) -> str:
    """The git blob of the run's object file: what its notes annotate."""
    return git(clone, "rev-parse", f"HEAD:{layout.object_path(RUN)}").strip()


def notes_git(clone: Path, *args: str, data: bytes | None = None) -> None:
    """``git notes --ref kistore ARGS`` (``data``: the note's bytes, on standard input)."""
    extra = ["-F", "-"] if data is not None else []
    subprocess.run(["git", "notes", "--ref", REF, *args[:1], *extra, *args[1:]], cwd=clone,
                   input=data, check=True, capture_output=True)


def without_hook(remote: Remote, *refspecs: str) -> None:
    """Push with the server's hook set aside: history that landed past the gate."""
    hook = remote.bare / "hooks" / "pre-receive"
    hook.rename(hook.with_suffix(".off"))
    try:
        assert remote.push(*refspecs).accepted
    finally:
        hook.with_suffix(".off").rename(hook)


def test_a_garbage_line_removed_again_in_the_pushed_history_is_refused(remote):
    blob = run_blob(remote.clone)
    notes_git(remote.clone, "add", blob, data=b"garbage\n")
    garbage_commit = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    notes_git(remote.clone, "remove", blob)
    notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "reproduction"))
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted  # before: accepted, the garbage in the index's history
    assert (f"remote: refs/notes/kistore:{blob}: error KI409 notes-line-invalid: notes "
            f"commit {garbage_commit[:12]}, in the history this push brings, holds as line "
            f"1 of the note on {blob} a line the pushed tip no longer holds (garbage): "
            ) in pushed.output, pushed.output
    assert ("push a notes history without that commit (`kistore notes rebase REMOTE` rebuilds "
            "a repository's notes on REMOTE's without it, REMOTE being your repository's name "
            "for this one;") in pushed.output  # a server knows no clone's name for it
    assert git(remote.bare, "for-each-ref", "refs/notes") == ""


def test_a_good_line_taken_back_before_the_push_is_a_removal_too(remote):
    # until fresh01 F8 it was let be: the notes commit holding it is published with the
    # push, and `--notes-at` of it read an attestation the next one takes back
    blob = run_blob(remote.clone)
    store = Store(remote.clone)
    taken = bundle(STRANGER, "reproduction")
    notes.attach(store, RUN, taken)
    held = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    notes_git(remote.clone, "remove", blob)  # its signer took it back
    removing = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    notes.attach(store, RUN, bundle(STRANGER, "note"))
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted, pushed.output
    assert removal_said(blob, removing, held, taken, "a line taken back before the push is a "
                        "removal too") in pushed.output, pushed.output
    assert pushed.output.count("error KI") == 1, pushed.output
    rebase(remote)
    pushed = remote.push("refs/notes/kistore")  # the rebuild: the server has no notes yet
    assert pushed.accepted, pushed.output
    served = git(remote.bare, "notes", "--ref", REF, "show", blob).encode()
    assert taken not in served and bundle(STRANGER, "note") in served
    assert git(remote.bare, "rev-list", "refs/notes/kistore").split() == [
        git(remote.bare, "rev-parse", "refs/notes/kistore").strip()]  # one root commit


def removal_said(blob: str, commit: str, parent: str, line: bytes, again: str) -> str:
    """The hook's KI408 line for a brought notes commit losing ``line`` of its parent's note."""
    return (f"remote: refs/notes/kistore:{blob}: error KI408 notes-line-removed: notes commit "
            f"{commit[:12]}, in the history this push brings, removes 1 attestation line(s) "
            f"of the note on {blob} that its parent {parent[:12]} held (line 1 there: "
            f"{line[:60].decode()}...); {again}, yet `--notes-at {commit[:12]}` (`site "
            "build`, `export`) would read the note without them: notes only grow in every "
            "notes commit")


def rebase(remote: Remote) -> None:
    """Run KI408's fix in the clone: ``kistore notes rebase origin``."""
    done = subprocess.run([KISTORE, "notes", "rebase", "origin"], cwd=remote.clone,
                          capture_output=True, text=True, env={**_env(), "KISTORE": KISTORE})
    assert done.returncode == 0, done.stdout + done.stderr


def _withdrawn_then_pushed(remote: Remote) -> tuple[str, str, bytes]:
    """The server holds a withdrawal of the run; returns (blob, server's notes tip, line)."""
    withdrawal = bundle(STRANGER, "withdrawal")
    notes.attach(Store(remote.clone), RUN, withdrawal)
    assert remote.push("refs/notes/kistore").accepted
    return (run_blob(remote.clone), git(remote.bare, "rev-parse", "refs/notes/kistore").strip(),
            withdrawal)


@pytest.mark.parametrize("own_line", [False, True])
def test_a_line_removed_and_added_back_in_the_pushed_history_is_refused(remote, own_line):
    # reviewer fresh01 F8: `git notes remove` then `git notes add -F` of the same note (a
    # withdrawal) was accepted, and `export --notes-at MIDDLE` showed the run un-withdrawn
    blob, served, withdrawal = _withdrawn_then_pushed(remote)
    note = subprocess.run(["git", "notes", "--ref", REF, "show", blob], cwd=remote.clone,
                          check=True, capture_output=True).stdout
    notes_git(remote.clone, "remove", blob)
    middle = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    notes_git(remote.clone, "add", blob, data=note)
    if own_line:  # a line of this clone's that the rebuild keeps
        notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "note"))
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted, pushed.output
    assert removal_said(blob, middle, served, withdrawal, "the pushed tip holds them again"
                        ) in pushed.output, pushed.output
    assert ("push a notes history without that commit (`kistore notes rebase REMOTE` rebuilds "
            "a repository's notes on REMOTE's without it, REMOTE being your repository's name "
            "for this one;") in pushed.output
    assert pushed.output.count("error KI") == 1, pushed.output
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == served

    rebase(remote)  # the printed fix, then the push again
    pushed = remote.push("refs/notes/kistore")
    assert pushed.accepted, pushed.output
    tip = git(remote.bare, "rev-parse", "refs/notes/kistore").strip()
    if own_line:
        assert git(remote.bare, "rev-parse", f"{tip}^").strip() == served  # one commit on it
        assert bundle(STRANGER, "note") in git(remote.bare, "notes", "--ref", REF, "show",
                                               blob).encode()
    else:
        assert tip == served  # nothing of the clone's own: its notes are the server's
    assert middle not in git(remote.bare, "rev-list", "refs/notes/kistore")


def test_a_notes_merge_that_drops_a_side_s_line_is_refused(remote):
    # a merge is held to each parent: `git notes merge -s ours` of a side whose note
    # changed keeps ours, dropping the side's new line, in a commit the push brings
    blob, served, _ = _withdrawn_then_pushed(remote)
    store = Store(remote.clone)
    git(remote.clone, "update-ref", "refs/notes/side", "refs/notes/kistore")
    notes.attach(store, RUN, bundle(STRANGER, "note"))
    ours = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    git(remote.clone, "update-ref", "refs/notes/kistore", "refs/notes/side")
    notes.attach(store, RUN, bundle(STRANGER, "reproduction"))
    side = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    git(remote.clone, "update-ref", "refs/notes/kistore", ours)
    git(remote.clone, "update-ref", "refs/notes/side", side)
    git(remote.clone, "notes", "--ref", REF, "merge", "-q", "-s", "ours", "refs/notes/side")
    git(remote.clone, "update-ref", "-d", "refs/notes/side")
    merge = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    assert git(remote.clone, "rev-parse", f"{merge}^2").strip() == side
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted, pushed.output
    assert (f"error KI408 notes-line-removed: notes commit {merge[:12]}, in the history this "
            f"push brings, removes 1 attestation line(s) of the note on {blob} that its parent "
            f"{side[:12]} held (line 2 there: ") in pushed.output, pushed.output
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == served


def fanned_out(remote: Remote, count: int = 130) -> list[str]:
    """``count`` notes written by ``git notes add`` on blobs of the clone: git fans out.

    Pushed past the hook (the server's notes before the gate); returns the blobs.
    """
    blobs = subprocess.run(
        ["git", "hash-object", "-w", "--stdin-paths"], cwd=remote.clone, check=True,
        capture_output=True, text=True,
        input="".join(f"{p}\n" for p in _files(remote.clone, count))).stdout.split()
    for blob in blobs:
        notes_git(remote.clone, "add", blob, data=b"seed\n")
    tree = git(remote.clone, "ls-tree", "refs/notes/kistore")
    assert all(line.split()[1] == "tree" and len(line.split("\t")[1]) == 2
               for line in tree.splitlines()), tree  # fanned out: ab/cdef... only
    without_hook(remote, "refs/notes/kistore")
    return blobs


def _files(clone: Path, count: int) -> list[str]:
    for n in range(count):
        (clone / f"f{n}").write_text(f"file {n}\n")
    return [f"f{n}" for n in range(count)]


def test_a_fanned_out_notes_tree_is_read_through_its_paths(remote):
    fanned_out(remote)
    blob = run_blob(remote.clone)
    notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "reproduction"))
    path = git(remote.clone, "ls-tree", "-r", "--name-only", "refs/notes/kistore",
               f"{blob[:2]}/{blob[2:]}")
    assert path.strip() == f"{blob[:2]}/{blob[2:]}"  # at its fan-out path
    pushed = remote.push("refs/notes/kistore")
    assert pushed.accepted, pushed.output

    notes_git(remote.clone, "append", blob, data=b"garbage\n")  # a bad line at ab/cdef...
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted
    assert f"remote: refs/notes/kistore:{blob}: error KI409 notes-line-invalid: the note " \
        "is not sorted" in pushed.output, pushed.output

    git(remote.clone, "update-ref", "refs/notes/kistore", "refs/notes/kistore^")
    notes_git(remote.clone, "remove", blob)  # a removal at ab/cdef...
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted
    assert f"error KI408 notes-line-removed: the push removes 1 attestation line(s) from " \
        f"the note on {blob}" in pushed.output, pushed.output


def test_a_push_that_fans_the_tree_out_judges_only_the_notes_it_changes(remote):
    # a flat tree of seeds (landed past the gate), then git fans out as a clean push adds
    # notes: every seed moves to ab/cdef... with its blob, which is no change
    blobs = subprocess.run(
        ["git", "hash-object", "-w", "--stdin-paths"], cwd=remote.clone, check=True,
        capture_output=True, text=True,
        input="".join(f"{p}\n" for p in _files(remote.clone, 40))).stdout.split()
    for blob in blobs:
        notes_git(remote.clone, "add", blob, data=b"seed\n")
    assert "tree" not in git(remote.clone, "ls-tree", "refs/notes/kistore")  # flat
    without_hook(remote, "refs/notes/kistore")
    notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "reproduction"))
    extra = subprocess.run(
        ["git", "hash-object", "-w", "--stdin-paths"], cwd=remote.clone, check=True,
        capture_output=True, text=True,
        input="".join(f"{p}\n" for p in _files(remote.clone, 140)[40:])).stdout.split()
    for blob in extra:  # what lands past the hook first: the seeds the clean push keeps
        notes_git(remote.clone, "add", blob, data=b"seed\n")
    assert "blob" not in git(remote.clone, "ls-tree", "refs/notes/kistore")  # fanned out
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted  # the new seeds are garbage: each named, the moved ones not
    said = [line for line in pushed.output.splitlines() if "error KI409" in line]
    assert len(said) == len(extra), pushed.output
    assert not any(blob in pushed.output for blob in blobs)


def _tree_with(clone: Path, base: str, name: str, data: bytes) -> str:
    """The tree of notes commit ``base`` with a blob of ``data`` added at ``name`` (mktree)."""
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=clone, input=data,
                          check=True, capture_output=True).stdout.decode().strip()
    listing = git(clone, "ls-tree", f"{base}^{{tree}}") + f"100644 blob {blob}\t{name}\n"
    return subprocess.run(["git", "mktree"], cwd=clone, input=listing.encode(), check=True,
                          capture_output=True).stdout.decode().strip()


@pytest.mark.parametrize("where", ["junk.txt", "upper"])
def test_a_path_off_the_note_paths_removed_again_in_the_pushed_history_is_refused(
        remote, where):
    # reviewer break94 F1: 400 KB at junk.txt (or garbage at an uppercase id), added by one
    # notes commit, removed by the next, then a valid attestation: accepted before
    store = Store(remote.clone)
    notes.attach(store, RUN, bundle(STRANGER, "note"))
    notes.attach(store, RUN, bundle(STRANGER, "reproduction"))
    pushed = remote.push("refs/notes/kistore")
    assert pushed.accepted, pushed.output  # a normal two-commit notes history passes
    served = git(remote.bare, "rev-parse", "refs/notes/kistore").strip()

    name = "junk.txt" if where == "junk.txt" else run_blob(remote.clone).upper()
    data = b"x" * 400_000 + b"\n" if where == "junk.txt" else b"garbage\n"
    base = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    junk_in = git(remote.clone, "commit-tree", _tree_with(remote.clone, base, name, data),
                  "-p", base, "-m", "junk").strip()
    junk_out = git(remote.clone, "commit-tree", f"{base}^{{tree}}", "-p", junk_in,
                   "-m", "unjunk").strip()
    git(remote.clone, "update-ref", "refs/notes/kistore", junk_out)
    notes.attach(store, RUN, bundle(STRANGER, "rerun"))
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted, pushed.output
    assert (f"remote: refs/notes/kistore:{name}: error KI424 notes-path-not-canonical: "
            f"notes commit {junk_in[:12]}, in the history this push brings, adds a path the "
            f"tips' checks never read: {name!r} is no note path: ") in pushed.output, \
        pushed.output
    assert pushed.output.count("error KI") == 1, pushed.output  # one path, one finding
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == served


def test_a_fetch_putting_back_a_line_the_server_removed_writes_one_merge_a_push_takes(
        remote, tmp_path):
    # `notes fetch` puts back a line the canonical remote's notes removed (r90 F11); on a
    # merge it did so in a commit on top, the merge itself lacking it: since KI408 holds in
    # every notes commit (fresh01 F8), the push giving the line back was refused there
    blob, served, withdrawal = _withdrawn_then_pushed(remote)
    other = tmp_path / "other"  # the server's notes lose it past the hook (before the gate)
    git(tmp_path, "clone", "-q", str(remote.bare), str(other))
    git(other, "fetch", "-q", "origin", "refs/notes/kistore:refs/notes/kistore")
    notes_git(other, "remove", blob)
    hook = remote.bare / "hooks" / "pre-receive"
    hook.rename(hook.with_suffix(".off"))
    try:
        git(other, "push", "-q", "origin", "refs/notes/kistore")
    finally:
        hook.with_suffix(".off").rename(hook)
    removed = git(remote.bare, "rev-parse", "refs/notes/kistore").strip()
    # the clone's own line since, on another object (the run's note unchanged here, so
    # git's merge takes the removal): the histories diverge
    other_object = next(Digest.of((remote.clone / path).read_bytes()) for path in git(
        remote.clone, "ls-files", "store/objects").split() if path != layout.object_path(RUN))
    mine = bundle(STRANGER, "note", subject=other_object)
    notes.attach(Store(remote.clone), other_object, mine)
    ours = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()

    done = subprocess.run([KISTORE, "notes", "fetch", "origin", "--json"], cwd=remote.clone,
                          capture_output=True, text=True, env={**_env(), "KISTORE": KISTORE})
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["kept"] == 1
    tip = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    assert git(remote.clone, "rev-parse", f"{tip}^@").split() == [ours, removed]  # one merge
    assert git(remote.clone, "log", "-1", "--format=%s", tip).strip() == (
        "kistore: merge the notes of origin; keep 1 attestation line(s) the notes of origin "
        "removed (notes only grow, KI408)")

    done = subprocess.run([KISTORE, "notes", "push", "origin"], cwd=remote.clone,
                          capture_output=True, text=True, env={**_env(), "KISTORE": KISTORE})
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == tip
    assert withdrawal in git(remote.bare, "notes", "--ref", REF, "show", blob).encode()
    assert git(remote.bare, "notes", "--ref", REF, "list").count("\n") == 2
