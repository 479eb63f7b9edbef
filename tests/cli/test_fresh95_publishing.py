"""Notes freshness at publishing and after a pull of one's own commits (reviewer fresh95).

F7: a clone whose commit trusts no key published stale notes without a word after its
remote's notes moved (README: "they warn that community attestations are left out, and
build"): now the remote is asked, as where a key is trusted, and a move is warned of.

F8: ``git push origin main`` of the clone's own commits, then ``git pull origin main``,
was warned of as "a fetch of ../srv brought origin's commits into this clone's branches
since ..., by its URL" (the commits were its own, the pull was by name, and the URL is
``../srv.git``): own commits do not count.

Real ``git clone``s of the ``group`` store (origin), trusting no key (F7) or its maintainer
(F8).
"""

from __future__ import annotations

import re

from ..conftest import git
from .test_notes_freshness import clone_of, kistore
from .test_notes_pull_by_url import index, noted

__all__ = ["index"]  # the fixture, used by name

MOVED = re.compile(
    r"warning: origin's refs/notes/kistore moved since its notes were last fetched here "
    r"\(\S+Z\): community attestations made there since are left out \(no key is trusted at "
    r"\S+, so none could withdraw or verify a run\); `kistore notes fetch origin` fetches "
    r"them\n")


def test_f7_no_key_trusted_the_remote_s_moved_notes_are_warned_of(group, tmp_path):
    noted(group, "first")  # origin holds one community note
    clone = clone_of(group, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, "")

    noted(group, "from c2")  # another clone's note, pushed: origin's notes moved
    built = kistore(clone, "site", "build", str(tmp_path / "site2"))
    assert built.exit_code == 0, built.output  # built: community notes change no rank
    assert MOVED.fullmatch(built.stderr), built.stderr  # before: no word
    exported = kistore(clone, "export", str(tmp_path / "exp"), "--format", "csv")
    assert exported.exit_code == 0 and MOVED.match(exported.stderr), exported.output
    without = kistore(clone, "site", "build", str(tmp_path / "site3"),
                      "--without-attestations")
    assert (without.exit_code, without.stderr) == (0, "")  # asks nothing, as documented

    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0  # the way out
    built = kistore(clone, "site", "build", str(tmp_path / "site4"))
    assert (built.exit_code, built.stderr) == (0, "")

    git(clone, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    built = kistore(clone, "site", "build", str(tmp_path / "site5"))
    assert (built.exit_code, built.stderr) == (0, "")  # offline: nothing could count

