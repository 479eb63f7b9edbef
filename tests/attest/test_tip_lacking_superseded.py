"""KI315 judges a lacking rerun with its subject's attestations at the tip (review01 L12).

A key's earlier rerun, removed from the notes tip by hand, lacks nothing: its later rerun of
the same run, at the tip, supersedes it (:func:`kistore.attest.evidence.judge_all`: only a
key's latest rerun stands), so readers would count it for nothing even if it were put
back. Judged alone (before rev02's ``tip_lacking._judged``), it verified and KI315 warned of
a line no restore changes anything by. The later rerun removed is lacking: it stands. Each
notes commit is dated a day apart (the entry order is the notes history's, not the
machine's speed).
"""

from __future__ import annotations

import os
import subprocess

from kistore.attest import tip_lacking
from kistore.core import layout

from ..conftest import git
from .test_attestation_evidence import RERUN_KEY, RUN, bundle, trusted  # noqa: F401 (a fixture)

EARLIER = bundle(RERUN_KEY, "rerun")  # reproduced
LATER = bundle(RERUN_KEY, "rerun", outcome="not-reproduced")


def _notes(root, date: str, *args: str) -> None:
    subprocess.run(["git", "notes", "--ref", "kistore", *args], cwd=root, check=True,
                   capture_output=True, env={**os.environ, "GIT_COMMITTER_DATE": date})


def _both_then_one(root, kept: bytes) -> str:
    """Note EARLIER (dated 07-11), then LATER (07-12), then keep ``kept`` alone (07-13)."""
    blob = git(root, "rev-parse", f"HEAD:{layout.object_path(RUN)}").strip()
    _notes(root, "2026-07-11T00:00:00Z", "append", "-m", EARLIER.decode(), blob)
    _notes(root, "2026-07-12T00:00:00Z", "append", "-m", LATER.decode(), blob)
    _notes(root, "2026-07-13T00:00:00Z", "add", "-f", "-m", kept.decode(), blob)
    return blob


def test_an_earlier_rerun_its_key_superseded_lacks_nothing(trusted):  # noqa: F811
    _both_then_one(trusted.root, LATER)
    # judged alone (each lacking line without the tip's attestations): history {blob:
    # {EARLIER: verifies}}, said by KI315 and every reader
    assert tip_lacking.lacking(trusted, None) is None


def test_the_later_rerun_removed_is_lacking(trusted):  # noqa: F811
    blob = _both_then_one(trusted.root, EARLIER)
    found = tip_lacking.lacking(trusted, None)
    assert found is not None
    assert {obj: {line: (j.outcome, j.effect) for line, j in lines.items()}
            for obj, lines in found.history.items()} == {
        blob: {LATER: ("not-reproduced", "disagrees")}}
    assert found.tracking == {} and found.held_by == {}
