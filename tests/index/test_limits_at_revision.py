"""A query ``--at REV`` reads the ``[limits]`` of REV's ``kistore.toml``, not the work tree's.

notesat01 leftover (fresh03 H2 side note): ``rank --at REV`` held REV's files to the work
tree's limits, so an answer at a tag changed with an uncommitted edit of ``kistore.toml``
(and a revision that lowered a limit answered as if it had not). ``verify --at REV`` reads
REV's since 2026-12-02 (KI108); the queries now do too.
"""

from __future__ import annotations

from kistore.cli import main
from kistore.core import layout

from ..attest.test_attestation_evidence import RUN
from ..conftest import git

LEFT_OUT = (f"error: {layout.object_path(RUN)}: the object file holds 802 bytes, more than "
            "the limit of 700 (manifest-bytes); `kistore verify` reports KI106; it is left out "
            "while the limit stands: raise [limits] manifest-bytes in kistore.toml if this "
            "size is meant\n")


def rank(runner, root, *at: str):
    return runner.invoke(main, ["--store", str(root), "rank", str(RUN), *at])


def test_rank_at_a_revision_reads_its_limits(runner, published):
    settings = published / "kistore.toml"
    default = settings.read_text()
    settings.write_text(default.replace("\n[limits]\n", "\n[limits]\nmanifest-bytes = 700\n"))
    git(published, "commit", "-qam", "lower manifest-bytes", "--no-verify")
    settings.write_text(default)  # the work tree's: the default again, not committed
    lowered = rank(runner, published, "--at", "HEAD")  # HEAD's 700: the run is left out
    assert (lowered.exit_code, lowered.stdout, lowered.stderr) == (1, "", LEFT_OUT)
    for at in (["--at", "HEAD~1"], []):  # HEAD~1's default, the work tree's default
        ranked = rank(runner, published, *at)
        assert ranked.exit_code == 0, ranked.output
        assert f"{str(RUN)[7:19]}" in ranked.stdout and "more than the limit" not in \
            ranked.stderr
    again = rank(runner, published, "--at", "HEAD")  # the index moved back: HEAD's again
    assert (again.exit_code, again.stderr) == (1, LEFT_OUT)
    settings.write_text(settings.read_text().replace(  # the work tree lowers; HEAD~1 not
        "\n[limits]\n", "\n[limits]\nmanifest-bytes = 700\n"))
    assert rank(runner, published, "--at", "HEAD~1").exit_code == 0
    assert rank(runner, published).stderr == LEFT_OUT
