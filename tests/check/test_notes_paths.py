"""KI424: a notes tree that git and kistore read apart is refused (review r78 F2).

git reads the note on an object at every fan-out form of its id (``B`` and ``B[:2]/B[2:]``)
and serves their lines concatenated; kistore reads one path. A push adding the fan-out form
beside an unchanged note put a line no gate checked on the server, ``verify`` said ok, and
honest clones' ``notes fetch`` merged it in. Real ``git push`` against a bare repository
running hooks/pre-receive, as the README sets a server up.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT, git

KISTORE = str(Path(sys.executable).with_name("kistore"))
GARBAGE = b"this is not an attestation"


@pytest.fixture(autouse=True)
def kistore_env(monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)


@pytest.fixture
def server(published, tmp_path) -> Path:
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(bare))
    shutil.copy(ROOT / "hooks" / "pre-receive", bare / "hooks" / "pre-receive")
    return bare


@pytest.fixture
def clone(server, tmp_path) -> Path:
    """A clone whose note on the run's object (one reproduction line) the server holds."""
    from kistore.attest import notes
    from kistore.store import Store

    from ..attest.test_attestation_evidence import RUN, STRANGER, bundle

    path = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), str(path))
    notes.attach(Store(path), RUN, bundle(STRANGER, "reproduction"))
    pushed = push(path)
    assert pushed.returncode == 0, pushed.stderr
    return path


def push(clone: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "push", "origin", "refs/notes/kistore"], cwd=clone,
                          capture_output=True, text=True)


def mktree(clone: Path, lines: list[str]) -> str:
    return subprocess.run(["git", "mktree"], cwd=clone, input="".join(lines), check=True,
                          capture_output=True, text=True).stdout.strip()


def note_commit(clone: Path, lines: list[str]) -> str:
    """Point refs/notes/kistore at a commit of a hand-made tree (on the current tip)."""
    tree = mktree(clone, lines)
    commit = git(clone, "commit-tree", tree, "-p", "refs/notes/kistore", "-m", "notes").strip()
    git(clone, "update-ref", "refs/notes/kistore", commit)
    return commit


def the_note(clone: Path) -> tuple[str, str]:
    """Return (note blob, annotated blob) of the clone's one note."""
    note, annotated = git(clone, "notes", "--ref=kistore", "list").split()
    return note, annotated


def doubled(clone: Path) -> str:
    """The r78 reproduction: the note kept at B, a line of garbage added at B[:2]/B[2:]."""
    note, b = the_note(clone)
    garbage = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=clone, check=True,
                             input=GARBAGE + b"\n", capture_output=True).stdout.decode().strip()
    fan = mktree(clone, [f"100644 blob {garbage}\t{b[2:]}\n"])
    note_commit(clone, [f"100644 blob {note}\t{b}\n", f"040000 tree {fan}\t{b[:2]}\n"])
    return b


def test_pre_receive_refuses_a_second_fanout_path_beside_an_unchanged_note(server, clone):
    before = git(server, "rev-parse", "refs/notes/kistore").strip()
    b = doubled(clone)
    served = git(clone, "notes", "--ref=kistore", "show", b)  # what git serves: both paths
    assert served.startswith(GARBAGE.decode() + "\n")
    pushed = push(clone)
    assert pushed.returncode != 0
    assert (f"refs/notes/kistore:{b}: error KI424 notes-path-not-canonical: the notes tree "
            f"annotates {b} at 2 paths ({b[:2]}/{b[2:]}, {b}): git reads all of them, "
            "concatenated, kistore one") in pushed.stderr
    assert "FAILED: 1 ref update(s): 1 error" in pushed.stderr
    assert git(server, "rev-parse", "refs/notes/kistore").strip() == before


def test_a_note_moved_whole_to_its_fanout_path_is_accepted_and_read_there(server, clone):
    from kistore.attest.notes import collect
    from kistore.store import Store

    from ..attest.test_attestation_evidence import RUN

    note, b = the_note(clone)
    line = git(clone, "cat-file", "blob", note).strip().encode()
    fan = mktree(clone, [f"100644 blob {note}\t{b[2:]}\n"])
    moved = note_commit(clone, [f"040000 tree {fan}\t{b[:2]}\n"])
    pushed = push(clone)
    assert pushed.returncode == 0, pushed.stderr
    assert "ok: 1 ref update(s): 0 errors" in pushed.stderr
    assert git(server, "rev-parse", "refs/notes/kistore").strip() == moved
    seen = collect(Store(clone), RUN)
    assert [(s.data, s.defect) for s in seen] == [(line, "")]


@pytest.mark.parametrize("name", ["upper", "README", "fan-of-3"])
def test_pre_receive_refuses_a_path_git_reads_otherwise(server, clone, name):
    note, b = the_note(clone)
    three = mktree(clone, [f"100644 blob {note}\t{b[3:]}\n"])
    entries = {
        # git reads uppercase hex as the same object: a second note kistore never reads
        "upper": [f"100644 blob {note}\t{b}\n", f"100644 blob {note}\t{b.upper()}\n"],
        # git carries it along as no note; kistore read it as a note on object "README"
        "README": [f"100644 blob {note}\t{b}\n", f"100644 blob {note}\tREADME\n"],
        # a fan-out directory of 3 digits: git reads no note under it
        "fan-of-3": [f"100644 blob {note}\t{b}\n", f"040000 tree {three}\t{b[:3]}\n"],
    }[name]
    bad = {"upper": b.upper(), "README": "README", "fan-of-3": b[:3]}[name]
    note_commit(clone, entries)
    pushed = push(clone)
    assert pushed.returncode != 0
    assert f"refs/notes/kistore:{bad}: error KI424 notes-path-not-canonical: '{bad}" \
        in pushed.stderr


def test_verify_reports_a_doubled_note_already_stored_and_its_lines_invalid(clone):
    from kistore.attest.evidence import judge_all
    from kistore.attest.notes import collect
    from kistore.attest.trust import load_trust
    from kistore.store import Store

    from ..attest.test_attestation_evidence import RUN

    b = doubled(clone)  # as a server without the gate (or before KI424) holds it
    done = subprocess.run([KISTORE, "verify"], cwd=clone, capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"refs/notes/kistore:{b}: error KI424 notes-path-not-canonical" in done.stdout
    store = Store(clone)
    seen = collect(store, RUN)
    assert GARBAGE in [s.data for s in seen]  # what git serves: both paths' lines
    assert len(seen) == 2 and all("(KI424)" in s.defect for s in seen)
    view = store.view()
    assert {j.effect for j in judge_all(seen, load_trust(view), view)} == {"invalid"}


def test_notes_fetch_refuses_to_merge_a_doubled_note(clone, tmp_path):
    from kistore.attest import notes
    from kistore.core.errors import StoreStateError
    from kistore.store import Store

    from ..attest.test_attestation_evidence import RUN, STRANGER, bundle

    honest = tmp_path / "honest"
    git(tmp_path, "clone", "-q", str(clone), str(honest))
    notes.attach(Store(honest), RUN, bundle(STRANGER, "note"))  # diverged: a merge is needed
    ours = git(honest, "rev-parse", "refs/notes/kistore").strip()
    b = doubled(clone)  # the remote's notes, as an unguarded server holds them
    with pytest.raises(StoreStateError, match=(
            f"origin's refs/notes/kistore holds note lines no gate checked, not merged: the "
            f"notes tree annotates {b} at 2 paths")):
        notes.fetch(Store(honest), "origin")
    assert git(honest, "rev-parse", "refs/notes/kistore").strip() == ours
