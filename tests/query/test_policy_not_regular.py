"""A FIFO or symlink at the policy file ranks by HEAD's policy, and names it (fresh17 F7).

It was called "no store/policy/ranking.json here" and the runs were ranked by kistore's
shipped default, not the store's reviewed policy (the trust file in the same state is
judged by HEAD's). Each command runs as a child killed after 20 s: a hang fails the test.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import PUBLISHED, git
from tests.git.test_ref_file_guard import _kistore

POLICY = "store/policy/ranking.json"
RUN = PUBLISHED["run"]
_FIFO = "is a FIFO, socket or device, not a regular file (`kistore verify`: KI111)"
_LINK = ("is a symbolic link: the store keeps only regular files and never reads through a "
         "link (`kistore verify`: KI111)")


def _measured_policy(root) -> bytes:
    """Commit a reviewed policy that differs from the default: every family measured."""
    data = (json.dumps({"description": "every family by measured latency", "families": {}},
                       indent=2) + "\n").encode()
    (root / POLICY).write_bytes(data)
    git(root, "commit", "-qam", "policy: measured")
    return data


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_rank_by_heads_policy_when_the_file_is_no_regular_file(published, tmp_path, kind):
    data = _measured_policy(published)
    (published / POLICY).unlink()
    if kind == "fifo":
        os.mkfifo(published / POLICY)
    else:
        (tmp_path / "copy.json").write_bytes(data)
        (published / POLICY).symlink_to(tmp_path / "copy.json")
    done = _kistore(published, tmp_path, "rank", RUN, "--json")
    assert done.returncode == 0, done.stderr
    (row,) = [r for r in json.loads(done.stdout) if r["digest"] == RUN]
    assert (row["comparison"], row["metric"]) == ("measured", "/timing/latencyNs/mean")
    said = _FIFO if kind == "fifo" else _LINK
    assert done.stderr.splitlines()[0] == (
        f"warning: {POLICY} {said}: ranked by HEAD's {POLICY}, as committed; restore it with "
        f"`git checkout HEAD -- {POLICY}`")


def test_a_deleted_policy_file_still_ranks_by_the_default(published, tmp_path):
    _measured_policy(published)
    (published / POLICY).unlink()
    done = _kistore(published, tmp_path, "rank", RUN, "--json")
    assert done.returncode == 0, done.stderr
    (row,) = [r for r in json.loads(done.stdout) if r["digest"] == RUN]
    assert row["comparison"] == "source-native"
    assert done.stderr.startswith(f"warning: no {POLICY} here: ranked by kistore's shipped")
