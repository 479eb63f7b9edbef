"""A notes push keeps the order of one key's reruns of a run (fresh16 F5).

``kistore notes push`` makes the notes commits a remote lacks again, dated at the push,
once they are more than a minute old (KI437). Until 2026-12-08 it made them again as one
notes commit: a rerun key's ``reproduced``, then its ``not-reproduced`` (its last word),
became two lines of one notes commit, entered in one second, and the tie went to the
payload dated later (:func:`kistore.attest.evidence.rerun_order`), the ``reproduced`` one
dated ahead: the run was ``verified`` on the server and in every clone. Now the push makes
them again one notes commit per entry, in order, a second apart, so the later stands; and
a push or rebuild whose notes made again would change which rerun stands is refused.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

import pytest

from kistore.attest import signing

from ..attest.test_attestation_evidence import RERUN_KEY, RUN, bundle
from ..check.test_notes_gate_history import run_blob
from ..check.test_payload_dated_ahead import next_second
from ..conftest import git
from ..prs import KISTORE, Remote, _env

RERUN_ID = signing.keyid(RERUN_KEY.public_key())


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    """The server and a clone, RERUN_KEY trusted for rerun since ten minutes ago."""
    made = Remote(published, tmp_path)

    def trust(clone):
        (clone.parent / "rerun.pub").write_text(
            signing.public_key_line(RERUN_KEY.public_key()) + "\n")
        made.kistore("trust", "add", str(clone.parent / "rerun.pub"), "--role", "rerun",
                     "--valid-from", _text(_at(600)))

    assert made.pr("trust the rerun key", trust).accepted
    return made


def _at(seconds_ago: int) -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(seconds=seconds_ago)


def _text(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _cli(where, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in ``where``, its pushes judged by the server's hook (which runs $KISTORE)."""
    done = subprocess.run([KISTORE, *args], cwd=where, capture_output=True, text=True,
                          env={**_env(), "KISTORE": KISTORE})
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _noted(clone, line: bytes, when: dt.datetime) -> None:
    """Add ``line`` to the note on the run (sorted, as ``kistore attest`` writes it), its
    notes commit dated ``when``."""
    blob = run_blob(clone)
    held = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob], cwd=clone,
                          capture_output=True).stdout.splitlines()
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-", blob],
                   cwd=clone, input=b"".join(x + b"\n" for x in sorted({*held, line})),
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": f"@{int(when.timestamp())} +0000"})


def _reruns(clone, ago: int) -> tuple[bytes, bytes]:
    """fresh16 F5: ``reproduced`` (its payload dated 4 minutes ahead), then ``not-reproduced``.

    Each in a notes commit of its own, ``ago`` and ``ago - 2`` seconds before the clock, as
    ``kistore attest`` writes them; returns the two lines.
    """
    first = bundle(RERUN_KEY, outcome="reproduced", observedAt=_text(_at(ago - 240)))
    last = bundle(RERUN_KEY, outcome="not-reproduced", observedAt=_text(_at(ago - 2)),
                  timing={"latencyNs": {"mean": 33_500_000}, "primaryStatistic": "mean"})
    _noted(clone, first, _at(ago))
    _noted(clone, last, _at(ago - 2))
    return first, last


def _effects(clone) -> tuple[str, list[tuple[str, str]]]:
    """The run's evidence level and its reruns' ``(outcome, effect)``, as read in ``clone``."""
    listed = json.loads(_cli(clone, "attestations", str(RUN), "--json").stdout)
    return listed["evidenceLevel"], sorted(
        (a["outcome"], a["effect"]) for a in listed["attestations"])


STANDING = ("source-native", [("not-reproduced", "disagrees"),
                              ("reproduced", "superseded")])
"""The key's last word, not-reproduced, stands: the run is not verified."""


def _fresh_clone(remote: Remote, tmp_path):
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(remote.bare), str(fresh))
    _cli(fresh, "notes", "fetch", "origin")
    return fresh


def test_a_push_a_minute_later_keeps_the_keys_last_word(remote, tmp_path):
    _reruns(remote.clone, 90)
    assert _effects(remote.clone) == STANDING
    pushed = _cli(remote.clone, "notes", "push", "origin", "--json")
    # on BASE 6af42bf9: made again as one notes commit, the run verified here and on origin
    assert json.loads(pushed.stdout)["effectChanged"] == []
    assert _effects(remote.clone) == STANDING
    assert _effects(_fresh_clone(remote, tmp_path)) == STANDING
    made = git(remote.bare, "log", "--format=%ct %s", "refs/notes/kistore").splitlines()
    assert len(made) == 2  # one notes commit per entry, in order, a second apart
    assert int(made[0].split()[0]) == int(made[1].split()[0]) + 1
