"""Issue #17, item 9: a shallow clone's history is not the whole history, and says so.

The history is built pull request by pull request in a bare remote running
``hooks/pre-receive``; one of them landed past the hook and deleted an object.
"""

from __future__ import annotations

import pytest

from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import PUBLISHED, git, store_file, write_raw
from ..prs import Remote

PROTOCOL = store_file(PUBLISHED["protocol"])


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def reader(remote: Remote, path) -> Remote:
    other = Remote.__new__(Remote)
    other.clone, other.bare = path, remote.bare
    return other


def test_shallow_clone_of_a_history_that_deleted_an_object_is_not_reported_ok(remote,
                                                                             tmp_path):
    # The attack: CI's depth-1 clone ran `kistore verify`, which said `ok: 0 errors` on a
    # store whose history deleted an object (before the boundary, out of sight).
    def delete(clone):
        (clone / PROTOCOL).unlink()
        (clone / store_file(PUBLISHED["protocol"], "metadata")).unlink()
        (clone / layout.name_path("BenchmarkProtocol", "sol-execbench-leaderboard-v1-1")).unlink()
        # ... and records the run's reference as dangling, so what a shallow clone sees
        # is a sound store (KI213 would say otherwise)
        write_raw(clone, layout.forward_path(Digest.from_str(PUBLISHED["protocol"]),
                                             Digest.from_str(PUBLISHED["run"])),
                  layout.forward_record(["protocolDigest"]))
        # ... and takes the run out of its comparison group (its key is no longer known)
        run_hex = Digest.from_str(PUBLISHED["run"]).hex
        for group_file in (clone / layout.GROUPS_DIR).rglob(run_hex):
            group_file.unlink()

    assert remote.pr("delete the protocol", delete, hook=False).accepted
    assert remote.pr("later work", lambda c: (c / "README.md").write_text("x\n")).accepted
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote.bare}", str(shallow))
    shallow_reader = reader(remote, shallow)

    verified = shallow_reader.kistore("verify", check=False)
    assert verified.returncode == 0  # what it saw is sound ...
    assert "warning KI416 history-shallow: a shallow clone: history before its boundary " \
           f"({remote.main()[:12]}) was not checked" in verified.stdout  # ... and it says so
    strict = shallow_reader.kistore("verify", "--strict", check=False)
    assert strict.returncode == 1
    assert "error KI416 history-shallow" in strict.stdout

    git(shallow, "fetch", "-q", "--depth", "2", "origin")
    checked = shallow_reader.kistore("check", "--strict", "HEAD~1..HEAD", check=False)
    assert checked.returncode == 1
    assert "error KI416 history-shallow" in checked.stdout

    full = reader(remote, tmp_path / "full")
    git(tmp_path, "clone", "-q", str(remote.bare), str(full.clone))
    whole = full.kistore("verify", "--strict", check=False)
    assert whole.returncode == 1
    assert "KI402 object-deleted" in whole.stdout
    assert "KI416" not in whole.stdout


def test_depth_1_clone_of_a_legitimate_pull_request_says_shallow_not_rewritten(published,
                                                                               tmp_path):
    # Review r75 F7: in a depth-1 clone of both branches the pull request's parent is the
    # tip of main, but the boundary hides the link: KI404 "the range rewrites it" blamed
    # the contributor. The clone is what is short: KI416, and what to fetch.
    git(published, "checkout", "-q", "-b", "pr")
    (published / "README.md").write_text("a pull request\n")
    git(published, "add", "README.md")
    git(published, "commit", "-q", "--no-verify", "-m", "pull request")
    git(published, "checkout", "-q", "main")
    main, pr = (git(published, "rev-parse", b).strip() for b in ("main", "pr"))
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch",
        f"file://{published}", str(shallow))
    shallow_reader = Remote.__new__(Remote)
    shallow_reader.clone = shallow

    checked = shallow_reader.kistore("check", "origin/main..origin/pr", check=False)

    assert checked.returncode == 1  # nothing was checked: never "ok"
    assert "KI404" not in checked.stdout
    assert (f"(store): error KI416 history-shallow: origin/main ({main[:12]}) is not in the "
            f"history of origin/pr ({pr[:12]}) this repository holds: it is shallow and "
            f"that history stops at {pr[:12]} before reaching it, so whether the range "
            "rewrites history cannot be told and nothing of the range was checked: fetch "
            "more history (`git fetch --unshallow`, or `git fetch --deepen=N` until BASE is "
            "reached) and check again (expected origin/main in the history of origin/pr, "
            f"found a shallow boundary at {pr[:12]})") in checked.stdout

    git(shallow, "fetch", "-q", "--deepen", "1", "origin", "pr")
    deeper = shallow_reader.kistore("check", "origin/main..origin/pr", check=False)
    assert deeper.returncode == 0, deeper.stdout
    assert "warning KI416 history-shallow: a shallow clone" in deeper.stdout
