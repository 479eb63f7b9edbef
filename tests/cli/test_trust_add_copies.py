"""KI410 judges a bundle's note copy with its committed file copy, end to end (review01 M5).

The same withdrawal held twice: as an attestation file committed before the key's planned
``validFrom`` (a community attestation there), and as a note line dated after it (within
the five minutes ahead KI437 lets a notes commit be). Readers judge both copies at the
earliest one's entry (:func:`kistore.attest.evidence.judge_all`): community, counted for
nothing. Moving the still-planned ``validFrom`` later therefore takes nothing back, and
``kistore trust add`` (which refuses what the gate's KI410 refuses, by the gate's own
:func:`kistore.check._evidence_kept.narrowing`) writes it. Judged copy by copy (before
kih01's :func:`kistore.attest.signed_by.counts`), the note line alone counted, and the change
was refused as a narrowing. Unit tests of the rule: tests/attest/test_signed_by_copies.py.
"""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta

from kistore.attest import notes, signing
from kistore.attest.evidence import evidence_for
from kistore.cli import main
from kistore.core import layout

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RUN, bundle
from ..conftest import commit_all, git

LINE = signing.public_key_line(MAINTAINER_KEY.public_key())


def _at(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_note_copy_after_a_planned_start_with_its_file_copy_before_it_narrows_nothing(
        runner, record_store, store_path):
    now = datetime.now(UTC).replace(microsecond=0)
    start = now + timedelta(minutes=4)  # planned; the file's commit is dated before it
    trust = ["--store", str(store_path), "trust", "add", LINE, "--role", "maintainer"]
    assert runner.invoke(main, [*trust, "--valid-from", _at(start)]).exit_code == 0
    commit_all(store_path, "trust the maintainer from its planned start")
    withdrawal = bundle(MAINTAINER_KEY, "withdrawal")
    notes.attach(record_store, RUN, withdrawal, as_file=True)
    commit_all(store_path, "the withdrawal as a file")
    blob = git(store_path, "rev-parse", f"HEAD:{layout.object_path(RUN)}").strip()
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-m", withdrawal.decode(),
                    blob], cwd=store_path, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": _at(start + timedelta(seconds=10))})
    # readers: both copies judged at the file's entry, before the start: community
    assert sorted((a["location"], a["effect"]) for a in evidence_for(
        record_store, RUN).attestations) == [(f"refs/notes/kistore:{blob}", "community")]

    later = start + timedelta(hours=1)
    moved = runner.invoke(main, [*trust, "--valid-from", _at(later)])
    # judged copy by copy: exit 1, "... which narrows it (validFrom START -> LATER) ..."
    assert moved.exit_code == 0, moved.stderr
    assert f'"validFrom": "{_at(later)}"' in (store_path / layout.TRUST_FILE).read_text()
