"""A note whose subject the server lacks (reviewer r85 F24): real pushes to a bare server
running hooks/pre-receive.

A note on a run added only on an unpushed branch made the server refuse the whole notes
update, saying "a signature copied onto another subject", and so every later `kistore notes
push`: a maintainer's withdrawal never reached the server.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kistore.attest import notes, unsent
from kistore.core.digest import Digest
from kistore.core.errors import StoreStateError
from kistore.store import Store

from ..check.test_hooks import KISTORE, clone, kistore_env, server  # noqa: F401 (its fixtures)
from ..conftest import BUNDLE, fixed_key, git, other_environment
from .test_attestation_evidence import RUN, bundle


def kistore(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KISTORE, *args], cwd=cwd, capture_output=True, text=True)


def local_only_note(clone: Path) -> tuple[Digest, str]:  # noqa: F811 (fixtures of test_hooks)
    """Add an environment on a branch never pushed, attest it and RUN; return it and its blob."""
    git(clone, "checkout", "-q", "-b", "local")
    path = clone.parent / "env.json"
    path.write_text(json.dumps(other_environment(json.loads(BUNDLE.read_text()), "NVIDIA H100")))
    added = kistore(clone, "add", "--commit", str(path))
    assert added.returncode == 0, added.stderr
    subject = Digest.from_str(added.stdout.split()[0])
    store = Store(clone)
    notes.attach(store, RUN, bundle(fixed_key(2), "note"))  # on a run the server has
    location = notes.attach(store, subject, bundle(fixed_key(3), "note", subject=subject))
    return subject, location.rsplit(":", 1)[1]


def server_notes(server: Path) -> str:  # noqa: F811 (fixtures of test_hooks)
    return subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/notes/kistore"],
                          cwd=server, capture_output=True, text=True).stdout.strip()


def test_the_server_names_a_missing_subject_not_a_copied_signature(server, clone):  # noqa: F811 (fixtures of test_hooks)
    subject, blob = local_only_note(clone)
    pushed = subprocess.run(["git", "push", "origin", "refs/notes/kistore"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    said = " ".join(pushed.stderr.replace("remote: ", "").split())
    assert (f"refs/notes/kistore:{blob}: error KI409 notes-line-invalid: the note's subject "
            f"object {blob} is not in this repository: the run it is about was added on a "
            "branch or commit this server never received.") in said
    assert f"`git notes --ref kistore remove {blob}`" in said
    assert "copied onto another subject" not in said
    assert server_notes(server) == ""


def test_notes_push_refuses_naming_the_note_then_pushes_once_the_branch_is_there(
        server, clone):  # noqa: F811 (fixtures of test_hooks)
    subject, blob = local_only_note(clone)
    ours = git(clone, "rev-parse", "refs/notes/kistore").strip()
    refused = kistore(clone, "notes", "push", "origin")
    assert refused.returncode == 1
    said = " ".join(refused.stderr.split())
    assert said.startswith(
        f"error: origin lacks the subject of 1 note(s) to push: refs/notes/kistore:{blob} "
        f"(on {subject}); its pre-receive hook would refuse the whole notes update (KI409), "
        "nothing was pushed.")
    assert f"`git notes --ref kistore remove {blob}`, then `kistore notes rebase origin`: " \
        "the removal is one in the notes history a push brings" in said
    assert "`git push origin BRANCH`, then `kistore notes push origin`" in said
    assert server_notes(server) == ""
    assert git(clone, "rev-parse", "refs/notes/kistore").strip() == ours  # nothing dropped
    pushed = subprocess.run(["git", "push", "-q", "origin", "local"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode == 0, pushed.stderr
    done = kistore(clone, "notes", "push", "origin")
    assert (done.returncode, done.stdout) == (
        0, "pushed refs/notes/kistore to origin, after merging the 0 attestation(s) origin "
        "had that this repository lacked\n"), done.stderr
    assert server_notes(server) == ours


def test_notes_push_after_the_note_is_removed_pushes_the_rest(server, clone):  # noqa: F811 (fixtures of test_hooks)
    subject, blob = local_only_note(clone)
    git(clone, "notes", "--ref", "kistore", "remove", blob)
    # the removal is one in the history the push brings (KI408 per notes commit, fresh01
    # F8): refused, the rebuild said
    refused = kistore(clone, "notes", "push", "origin")
    assert refused.returncode == 1
    assert "error KI408 notes-line-removed: notes commit " in refused.stderr, refused.stderr
    assert "`kistore notes rebase origin`" in refused.stderr.splitlines()[-1]
    assert kistore(clone, "notes", "rebase", "origin").returncode == 0
    done = kistore(clone, "notes", "push", "origin")
    assert done.returncode == 0, done.stderr
    assert server_notes(server) == git(clone, "rev-parse", "refs/notes/kistore").strip()


def test_a_subject_on_a_server_branch_this_clone_never_fetched_is_not_refused(
        server, clone, tmp_path):  # noqa: F811 (fixtures of test_hooks)
    # the run reached the server's main from another clone: this one lacks that tip, so
    # the check fetches it before judging (never a false refusal)
    subject, blob = local_only_note(clone)
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(clone), str(other))
    git(other, "remote", "add", "server", str(server))
    git(other, "commit", "-q", "--allow-empty", "-m", "later")
    assert subprocess.run(["git", "push", "-q", "server", "local:main"], cwd=other,
                          capture_output=True).returncode == 0
    done = kistore(clone, "notes", "push", "origin")
    assert done.returncode == 0, done.stderr


def test_many_notes_are_judged_from_the_whole_objects_folder(server, clone,  # noqa: F811
                                                            monkeypatch):
    # past _PATHS_ASKED object paths, git ls-tree lists store/objects whole: same answer
    monkeypatch.setattr(unsent, "_PATHS_ASKED", 0)
    subject, blob = local_only_note(clone)
    with pytest.raises(StoreStateError, match=f"refs/notes/kistore:{blob} \\(on {subject}\\)"):
        notes.push(Store(clone), "origin")
    git(clone, "push", "-q", "origin", "local")
    assert notes.push(Store(clone), "origin").gained == 0
    assert server_notes(server) == git(clone, "rev-parse", "refs/notes/kistore").strip()
