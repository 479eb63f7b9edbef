"""``check --unpushed`` judges the notes and tags a push sends as pre-push does (att01).

``check --unpushed`` (the pre-commit framework's push hook) judged branches and tags by
their commits only: notes not at all ("git push does not send them", but ``git push origin
main refs/notes/kistore`` does), and a tag moved to another commit as a new tag ("ok").
kistore's own pre-push hook, told each pushed ref's value at the remote, refused both:
KI409 for a notes line that is no bundle, KI407 for the tag's move (a tag is a permalink).
Now ``--unpushed`` asks the remote for its notes tip and tags (one ``git ls-remote``) and
says the same findings. Real hooks, real bare server with pre-receive.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.attest import notes
from kistore.store import Store

from ..attest.test_attestation_evidence import STRANGER, bundle
from ..conftest import PUBLISHED, ROOT, add_docs, commit_all, git, store_file

KISTORE = str(Path(sys.executable).with_name("kistore"))


@pytest.fixture(autouse=True)
def kistore_env(monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)


@pytest.fixture
def clone(published, tmp_path) -> Path:
    """A clone of a bare server of the published store (pre-receive installed), with
    kistore's hooks, one new commit on main not pushed yet."""
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(server))
    shutil.copy(ROOT / "hooks" / "pre-receive", server / "hooks" / "pre-receive")
    path = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), str(path))
    git(path, "config", "core.hooksPath", str(ROOT / "hooks"))
    (path / "a.txt").write_text("a\n")
    commit_all(path, "a")
    return path


def _unpushed(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([KISTORE, "check", "--unpushed", "origin"], cwd=path,
                          capture_output=True, text=True)


def _push(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "push", *args], cwd=path, capture_output=True, text=True)


def _findings(output: str) -> list[str]:
    """The finding lines of a check's text output (indented under a ref, or not)."""
    return [line.strip() for line in output.splitlines()
            if " error KI" in line or " warning KI" in line]


def _refs(path: Path) -> list[str]:
    """The refs ``--unpushed`` judged, each as its header line says it (up to the range)."""
    return [line.split(" (in the commits", 1)[0] for line in _unpushed(path).stdout.splitlines()
            if line.startswith("refs/")]


def test_a_bad_notes_line_pushed_with_a_branch_is_refused_by_both(clone):
    blob = git(clone, "rev-parse", f"HEAD:{store_file(PUBLISHED['run'])}").strip()
    git(clone, "notes", "--ref=refs/notes/kistore", "add", "-m", "not a bundle", blob)
    said = _unpushed(clone)
    pushed = _push(clone, "origin", "main", "refs/notes/kistore")
    assert said.returncode == 1 and pushed.returncode == 1, said.stdout + pushed.stdout
    (line,) = _findings(pushed.stdout)
    assert line.startswith(f"refs/notes/kistore:{blob}: error KI409 notes-line-invalid: the "
                           "note is not sorted, unique lines of canonical bundle bytes")
    assert _findings(said.stdout) == [line]  # it said "ok" of main alone
    notes_commit = git(clone, "rev-parse", "refs/notes/kistore").strip()
    assert (f"refs/notes/kistore: 1 error(s), 0 warning(s), 0 info in the commits origin "
            f"lacks from {notes_commit[:12]}:") in said.stdout
    assert "refs/heads/main: ok (in the commits origin lacks from" in said.stdout
    assert git(clone, "ls-remote", "origin", "refs/notes/kistore") == ""  # nothing went


def test_notes_the_remote_holds_are_not_judged_again(clone):
    notes.attach(Store(clone), Store(clone).read("BenchmarkRun/sol-submission-20464").digest,
                 bundle(STRANGER, "note"))
    ours = git(clone, "rev-parse", "refs/notes/kistore").strip()
    assert _refs(clone) == ["refs/heads/main: ok", "refs/notes/kistore: ok"]  # ours, not sent
    pushed = _push(clone, "origin", "refs/notes/kistore")  # plain git: no tracking ref
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert git(clone, "ls-remote", "origin", "refs/notes/kistore").split()[0] == ours
    assert _refs(clone) == ["refs/heads/main: ok"]  # asked: it holds them


def test_a_moved_tag_is_refused_by_both(clone):
    git(clone, "tag", "v1")
    assert _push(clone, "origin", "main", "v1").returncode == 0
    (clone / "b.txt").write_text("b\n")
    new = commit_all(clone, "b")
    old = git(clone, "rev-parse", "v1").strip()
    git(clone, "tag", "-f", "v1")  # moved onto a commit origin lacks
    said = _unpushed(clone)
    pushed = _push(clone, "-f", "origin", "main", "v1")
    assert said.returncode == 1 and pushed.returncode == 1, said.stdout + pushed.stdout
    moved = (f"(store): error KI407 protected-ref-rewritten: move {old[:12]}..{new[:12]} of "
             "refs/tags/v1 refused: a tag is a permalink (`kistore rank --at TAG` and "
             "`kistore export --since TAG` read it, and an answer as of it must not change); "
             "tag the new commit under a new name (`git tag NAME COMMIT && git push origin "
             "NAME`)")
    assert _findings(pushed.stdout) == [moved]
    assert _findings(said.stdout) == [moved]  # it said "ok": judged as a new tag
    # moved back onto a commit origin holds: --unpushed did not list it at all
    git(clone, "push", "-q", "--no-verify", "origin", "main")
    first = git(clone, "rev-list", "--max-parents=0", "HEAD").strip()
    git(clone, "tag", "-f", "v1", first)
    said = _unpushed(clone)
    pushed = _push(clone, "-f", "origin", "v1")
    assert said.returncode == 1 and pushed.returncode == 1, said.stdout + pushed.stdout
    back = moved.replace(f"{old[:12]}..{new[:12]}", f"{old[:12]}..{first[:12]}")
    assert _findings(pushed.stdout) == _findings(said.stdout) == [back]
    assert (f"refs/tags/v1: 1 error(s), 0 warning(s), 0 info moved from origin's "
            f"{old[:12]}:") in said.stdout
    assert git(clone, "ls-remote", "origin", "refs/tags/v1").split()[0] == old


def test_a_new_tag_pushed_with_its_branch_passes_both(clone):
    git(clone, "tag", "-a", "-m", "first", "v2")
    said = _unpushed(clone)
    assert said.returncode == 0, said.stdout
    assert "refs/tags/v2: ok (in the commits origin lacks from" in said.stdout
    pushed = _push(clone, "origin", "main", "v2")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert _unpushed(clone).stdout.startswith("ok: 0 local ref(s)")



def test_a_tag_on_a_branch_that_merged_main_is_judged_as_its_branch(clone, kit):
    """KI406's case (page00): main's objects a `git merge main` brings are no re-adds; a new
    tag on the merge is judged from where it leaves the remote's main, as pre-push does."""
    git(clone, "push", "-q", "--no-verify", "origin", "main")
    git(clone, "checkout", "-q", "-b", "pr")
    add_docs(Store(clone), [kit.workload("w-pr", name="w-pr")])
    git(clone, "checkout", "-q", "main")
    add_docs(Store(clone), [kit.workload("w-main", name="w-main")])
    git(clone, "push", "-q", "--no-verify", "origin", "main")
    git(clone, "checkout", "-q", "pr")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-edit", "main")
    # A fetch after the merge: else, once the merge's second is past the push's, the copy
    # of origin's main may be stale by KI433's rule (the flake of ci151 and ci161).
    git(clone, "fetch", "-q", "origin")
    git(clone, "tag", "v3")
    said = _unpushed(clone)
    first = git(clone, "rev-list", "--reverse", "pr", "^origin/main").split()[0]
    assert said.stdout == (
        f"refs/heads/pr: ok (in the commits origin lacks from {first[:12]})\n"
        f"refs/tags/v3: ok (in the commits origin lacks from {first[:12]})\n"
        "ok: 2 local ref(s) with commits origin lacks: 0 errors, 0 warnings, 0 info\n")
    pushed = _push(clone, "origin", "pr", "v3")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert pushed.stdout == "ok: 2 ref update(s): 0 errors, 0 warnings, 0 info\n"


def test_an_unreachable_remote_judges_the_notes_from_the_last_fetch(clone, tmp_path):
    """Offline: the tags cannot be asked (none is judged moved) and the notes are judged from
    `refs/notes/remotes/origin/kistore`, as last fetched (none here: all of ours)."""
    git(clone, "tag", "v1")
    assert _push(clone, "origin", "main", "v1").returncode == 0
    git(clone, "tag", "-f", "v1", "HEAD~1")
    notes.attach(Store(clone), Store(clone).read("BenchmarkRun/sol-submission-20464").digest,
                 bundle(STRANGER, "note"))
    (tmp_path / "server.git").rename(tmp_path / "away.git")
    said = _unpushed(clone)
    first = git(clone, "rev-list", "--reverse", "refs/notes/kistore").split()[0]
    assert said.returncode == 0, said.stdout + said.stderr
    assert said.stdout == (
        f"refs/notes/kistore: ok (in the commits origin lacks from {first[:12]})\n"
        "ok: 1 local ref(s) with commits origin lacks: 0 errors, 0 warnings, 0 info\n")
