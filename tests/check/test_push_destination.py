"""The ref a push of a branch really updates, as git itself says (hist01).

``check --unpushed`` judges each branch as its push would land: from the remote branch the
push fast-forwards, or as a new ref. hist00's ``push_destination`` knew ``push.default``
only; git also reads ``remote.REMOTE.push`` refspecs (a glob, a negative one, Gerrit's
``HEAD:refs/for/main``), ``branch.B.pushRemote`` and ``remote.pushDefault`` (which remote a
bare ``git push`` goes to). Each setting here is compared with what ``git push --dry-run
--porcelain`` says on a real clone of a bare server, for the push a person runs: a bare
``git push`` when it goes to that remote, else ``git push REMOTE BRANCH``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner

from kistore.check.gate import check_updates
from kistore.check.reach import push_destination
from kistore.check.unpushed import unpushed_refs
from kistore.cli import main as cli
from kistore.store import Store

from ..conftest import git
from .test_push_base import commit
from .test_unpushed_destination import rel_off_main


def _says(path: Path, *args: str) -> dict[str, str] | None:
    """``git push --dry-run --porcelain ARGS``: each source ref -> the ref it updates.

    None when git refuses the push (``push.default=upstream`` to a remote the branch does
    not track, ...).
    """
    done = subprocess.run(["git", "push", "--dry-run", "--porcelain", "--no-verify", *args],
                          cwd=path, capture_output=True, text=True)
    if done.returncode != 0 and "Done" not in done.stdout:
        return None
    pairs = [line.split("\t")[1] for line in done.stdout.splitlines() if line.count("\t") >= 2]
    head = git(path, "symbolic-ref", "HEAD").strip()  # a `HEAD:DST` refspec's source
    return {head if src == "HEAD" else src: dst
            for src, dst in (pair.split(":", 1) for pair in pairs)}


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A clone with remotes origin and fork (two bare servers), both holding main; origin
    also holds feature; the checked-out `work` tracks origin/feature, one commit ahead."""
    path = tmp_path / "clone"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    for name in ("origin", "fork"):
        git(tmp_path, "init", "-q", "--bare", str(tmp_path / f"{name}.git"))
        git(path, "remote", "add", name, str(tmp_path / f"{name}.git"))
    commit(path, "m0")
    git(path, "push", "-q", "--no-verify", "origin", "main", "main:feature")
    git(path, "push", "-q", "--no-verify", "fork", "main")
    git(path, "fetch", "-q", "origin")
    git(path, "fetch", "-q", "fork")
    git(path, "checkout", "-q", "-b", "work", "--track", "origin/feature")
    commit(path, "w1")
    return path


def _destination(path: Path, remote: str, branch: str = "work") -> str:
    return push_destination(pygit2.Repository(str(path)), branch, remote)


SETTINGS = [
    # (name, config, the remote checked, what git is asked: None = a bare `git push`)
    ("default", [], "origin", ["origin", "work"]),
    ("glob-refspec", [("remote.origin.push", "refs/heads/*:refs/heads/review/*")], "origin",
     None),
    ("glob-refspec-explicit", [("remote.origin.push", "refs/heads/*:refs/heads/review/*")],
     "origin", ["origin", "work"]),
    ("short-refspec", [("remote.origin.push", "work:wip")], "origin", None),
    ("full-refspec-explicit", [("remote.origin.push", "refs/heads/work:wip")], "origin",
     ["origin", "work"]),
    ("short-refspec-of-main", [("remote.origin.push", "main:wip")], "origin",
     ["origin", "work"]),
    ("head-refspec-pushremote-explicit", [("remote.origin.push", "HEAD:refs/for/main"),
                                          ("branch.work.pushRemote", "fork")], "origin",
     ["origin", "work"]),
    ("refspec-of-another-branch", [("remote.origin.push", "refs/heads/main:refs/heads/x")],
     "origin", ["origin", "work"]),
    ("upstream", [("push.default", "upstream")], "origin", None),
    ("upstream-explicit-other-remote", [("push.default", "upstream")], "fork",
     ["fork", "work"]),
    ("upstream-pushremote", [("push.default", "upstream"), ("branch.work.pushRemote", "fork")],
     "origin", ["origin", "work"]),
    ("head-refspec", [("remote.origin.push", "HEAD:refs/for/main")], "origin", None),
    ("head-refspec-pushremote", [("remote.fork.push", "HEAD:refs/heads/review"),
                                 ("branch.work.pushRemote", "fork")], "fork", None),
    ("head-refspec-pushdefault", [("remote.fork.push", "HEAD:refs/heads/review"),
                                  ("remote.pushDefault", "fork")], "fork", None),
    ("pushremote-over-pushdefault", [("remote.fork.push", "HEAD:refs/heads/review"),
                                     ("remote.origin.push", "HEAD:refs/heads/other"),
                                     ("remote.pushDefault", "fork"),
                                     ("branch.work.pushRemote", "origin")], "origin", None),
]


@pytest.mark.parametrize(("config", "remote", "asked"), [s[1:] for s in SETTINGS],
                         ids=[s[0] for s in SETTINGS])
def test_the_destination_is_the_ref_git_push_updates(clone, config, remote, asked):
    for key, value in config:
        git(clone, "config", key, value)
    says = _says(clone, *(asked or []))
    assert says is not None, asked
    assert _destination(clone, remote) == says["refs/heads/work"]


def test_a_bare_push_to_another_remote_than_the_upstream_is_refused_and_the_named_push_is_judged(
        clone):
    """push.default=upstream with pushRemote=fork: a bare `git push` goes to fork, which
    git refuses (not work's upstream); `git push origin work` updates feature, and `git
    push fork work` does too (map_refspec asks no remote): both are what is judged."""
    git(clone, "config", "push.default", "upstream")
    git(clone, "config", "branch.work.pushRemote", "fork")
    assert _says(clone) is None
    for remote in ("origin", "fork"):
        says = _says(clone, remote, "work")
        assert says == {"refs/heads/work": "refs/heads/feature"}
        assert _destination(clone, remote) == "refs/heads/feature"


def test_a_negative_refspec_excludes_nothing_from_a_push_as_in_git(clone):
    """git 2.39 reads `^SRC` for fetches only: the glob still maps work, as git says."""
    git(clone, "config", "--add", "remote.origin.push", "^refs/heads/work")
    git(clone, "config", "--add", "remote.origin.push", "refs/heads/*:refs/heads/review/*")
    for asked in ([], ["origin", "work"]):
        assert _says(clone, *asked)["refs/heads/work"] == "refs/heads/review/work"
    assert _destination(clone, "origin") == "refs/heads/review/work"
    assert _destination(clone, "origin", "main") == "refs/heads/review/main"
    assert _says(clone, "origin", "main") == {"refs/heads/main": "refs/heads/review/main"}


def test_a_short_or_head_refspec_is_read_as_the_bare_push_reads_it(clone):
    """Where a bare `git push` goes to the remote, a short source (`work:wip`) and `HEAD:DST`
    map the branch; `git push origin work` compares the source as written and pushes it to
    its own name. The bare push, the one a person runs, is what is judged."""
    git(clone, "config", "remote.origin.push", "work:wip")
    assert (_says(clone), _says(clone, "origin", "work")) == (
        {"refs/heads/work": "refs/heads/wip"}, {"refs/heads/work": "refs/heads/work"})
    assert _destination(clone, "origin") == "refs/heads/wip"
    git(clone, "config", "remote.origin.push", "HEAD:refs/for/main")
    assert (_says(clone), _says(clone, "origin", "work")) == (
        {"refs/heads/work": "refs/for/main"}, {"refs/heads/work": "refs/heads/work"})
    assert _destination(clone, "origin") == "refs/for/main"
    # main is not checked out: HEAD:DST is not its refspec
    assert _destination(clone, "origin", "main") == "refs/heads/main"


def test_a_refspec_to_a_pushed_branch_is_judged_from_its_tip(clone):
    """remote.origin.push sends work to review/work, pushed before: the push fast-forwards
    it, so it is judged from review/work's tip, not as a new ref from main."""
    first = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "push", "-q", "--no-verify", "origin", "work:review/work")
    git(clone, "fetch", "-q", "origin")
    w2 = commit(clone, "w2")
    m0 = git(clone, "rev-parse", "main").strip()
    [entry] = [e for e in unpushed_refs(Store(clone), "origin") if e.ref == "refs/heads/work"]
    assert (entry.base, entry.first) == (m0, w2)  # its own name: a new ref, from main
    git(clone, "config", "remote.origin.push", "refs/heads/*:refs/heads/review/*")
    [entry] = [e for e in unpushed_refs(Store(clone), "origin") if e.ref == "refs/heads/work"]
    assert (entry.base, entry.tip, entry.first) == (first, w2, w2)


def test_a_refspec_onto_the_remote_main_that_rewrites_it_is_ki407_as_pre_push_says(tmp_path):
    """`rel` is main~1 plus one commit, and remote.server.push sends rel to main: `git
    push server rel` is a non-fast-forward of the remote's main, refused by pre-push
    (KI407); `check --unpushed server` said "ok" (it judged a new ref rel). Now KI407."""
    path, old, new = rel_off_main(tmp_path)
    run = CliRunner().invoke(cli, ["--store", str(path), "check", "--unpushed", "server"])
    assert "KI407" not in run.output, run.output  # a new ref rel
    git(path, "config", "remote.server.push", "refs/heads/rel:refs/heads/main")
    assert _says(path, "server", "rel") == {"refs/heads/rel": "refs/heads/main"}

    run = CliRunner().invoke(cli, ["--store", str(path), "check", "--unpushed", "server"])

    assert run.exit_code == 1, run.output
    said = " ".join(run.output.split())
    assert f"error KI407 protected-ref-rewritten: non-fast-forward update {old[:12]}.." \
        f"{new[:12]} of refs/heads/main, where a push of refs/heads/rel goes, refused" \
        in said, run.output
    hook = check_updates(Store(path), [(old, new, "refs/heads/main")], remote="server")
    assert [f.rule.id for f in hook] == ["KI407"]  # what pre-push says of that push
