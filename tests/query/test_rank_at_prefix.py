"""``kistore rank PREFIX --at REV``: a digest prefix looked up at a commit named by a short sha.

The lookup (:meth:`kistore.store.Store.resolve`, naming the commit read when the prefix is
not there: fix00) is shared with ``show`` and ``cite``, but was tested through ``cite``
only: here rank's own answer at such a commit, and its error naming the commit read.
"""

from __future__ import annotations

from kistore.cli import main

from ..conftest import git

FAST = "b8750897682ced3f6bfa7666ec57b12e16209701a0a7b8f6af38c25e55ac02f4"
"""The group fixture's run ``fast`` (its bytes are the fixture's: the digest is fixed)."""

KI230 = "(!) latencyNs mean {} < 100 ns: likely ms or us written as ns (KI230)"
SOURCE = "[evidence: source-native (as submitted, no source named)]"


def run(runner, root, *args):
    return runner.invoke(main, ["--store", str(root), *args])


def test_rank_of_a_digest_prefix_at_a_short_sha(runner, group):
    root = group.root
    assert str(group.resolve("BenchmarkRun/fast")) == f"sha256:{FAST}"
    added, init = git(root, "rev-list", "HEAD").split()  # the add's commit, init's
    (root / "store" / "names" / "BenchmarkRun" / "11" / "fast").unlink()  # the work tree
    ranked = run(runner, root, "rank", FAST[:8], "--at", added[:7])  # is not read
    assert ranked.exit_code == 0, ranked.output
    assert ranked.stderr == ""
    assert ranked.stdout == (
        "comparison group sha256:a1781d17245a33da199a67a8a3d227f700625650e051f03e9055bd825d773c68"
        ": 2 ranked by measured latency, /timing/latencyNs/mean ascending (ns)\n"
        f"    1             10 ns    sha256:{FAST[:12]} fast {SOURCE}  {KI230.format(10)}\n"
        f"    2             30 ns    sha256:8160edeb3b83 slow {SOURCE}  {KI230.format(30)}\n"
        f"    -            100 ns    sha256:791a7dd5161d ref {SOURCE}  (reference, never "
        "ranked)\n")
    # init's commit holds no run: the error names the commit read, as for KIND/NAME
    missing = run(runner, root, "rank", FAST[:8], "--at", init[:7])
    assert missing.exit_code == 1
    assert missing.stdout == ""
    assert missing.stderr == (
        f"error: no object with digest prefix {FAST[:8]} at {init[:7]} (commit {init[:12]}); "
        "it may have come later: leave out --at to ask the work tree\n")
    by_name = run(runner, root, "rank", "BenchmarkRun/fast", "--at", init[:7])
    assert by_name.exit_code == 1
    assert f"at {init[:7]} (commit {init[:12]}); it may have come later" in by_name.stderr
