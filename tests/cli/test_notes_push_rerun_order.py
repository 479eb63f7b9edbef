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
import re
import subprocess
import time

import pytest

from kistore.attest import notes_dated, signing
from kistore.check.gate import notes_made_again
from kistore.store import Store

from ..attest.test_attestation_evidence import RERUN_KEY, RUN, STRANGER, bundle
from ..check.test_notes_gate_history import run_blob
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
        (a["outcome"], a["effect"]) for a in listed["attestations"] if a["type"] == "rerun")


STANDING = ("source-native", [("not-reproduced", "disagrees"),
                              ("reproduced", "superseded")])
"""The key's last word, not-reproduced, stands: the run is not verified."""


def _fresh_clone(remote: Remote, tmp_path):
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(remote.bare), str(fresh))
    _cli(fresh, "notes", "fetch", "origin")
    return fresh


def _made(where, ref: str = "refs/notes/kistore", count: int = 2) -> list[tuple[int, str]]:
    """The last ``count`` notes commits of ``ref``: ``(date, message)``, latest first."""
    return [(int(line.split(" ", 1)[0]), line.split(" ", 1)[1]) for line in git(
        where, "log", f"-{count}", "--format=%ct %s", ref).splitlines()]


def test_a_push_a_minute_later_keeps_the_keys_last_word(remote, tmp_path):
    # on BASE 6af42bf9: made again as one notes commit, the run verified here and on origin
    # and in every clone
    pushed = pushed_in_order(remote, tmp_path, _reruns, STANDING)
    # the reruns entered before the fixture's trust commit (dated at the test's start) and
    # count by its past validFrom: KI442 of each, made again after it (fresh17 F12)
    said = pushed.stderr.splitlines(keepends=True)
    assert [line.split(" entered this repository at ")[0] for line in said[1:]] == [
        f"warning: the rerun by key {RERUN_ID} on {RUN}"] * 2
    assert [f["rule"] for f in json.loads(pushed.stdout)["findings"]] == ["KI442"] * 2


def pushed_in_order(remote: Remote, tmp_path, reruns, standing
                    ) -> subprocess.CompletedProcess[str]:
    """``notes push origin`` a minute and a half later keeps what stands, here and there.

    ``reruns(clone, ago)`` writes a key's two reruns ``ago`` seconds back; ``standing`` is
    the :func:`_effects` expected here before and after, and in a fresh clone. The push
    makes them again as two notes commits a second apart, in order, and says so. Returns
    the push (``--json``).
    """
    reruns(remote.clone, 90)
    assert _effects(remote.clone) == standing
    pushed = _cli(remote.clone, "notes", "push", "origin", "--json")
    assert _effects(remote.clone) == standing
    assert _effects(_fresh_clone(remote, tmp_path)) == standing
    assert json.loads(pushed.stdout)["effectChanged"] == []
    made = _made(remote.bare)
    assert [m for _, m in made] == [
        f"kistore: the notes origin lacks, made again at the push, {k} of 2, in the order "
        "their lines entered (a note line enters at its notes commit's date; fresh16 F5)"
        for k in (2, 1)]
    assert made[0][0] == made[1][0] + 1  # a second apart: the later line enters later
    last = dt.datetime.fromtimestamp(made[0][0], dt.UTC)
    by = re.search(r"dated up to (.+?) before", pushed.stderr)
    assert by, pushed.stderr
    said = pushed.stderr.splitlines(keepends=True)
    assert said[0] == (
        f"note: 2 notes commits origin lacked were dated up to {by.group(1)} before this "
        f"machine's clock: made again as 2 notes commits dated at the push, a second apart up "
        f"to {_text(last)}, in the order their lines entered (a key's later rerun of a run "
        "still enters after its earlier one), the last holding the tip's lines, since a note "
        "line enters the repository at its notes commit's date, and a notes commit a remote "
        "lacks is sent as it is only when dated within 1 minute of this machine's clock (a "
        "server refuses one dated more than 10 minutes before its clock, KI437)\n")
    return pushed


def test_a_push_of_reruns_on_two_runs_is_made_again_as_one_commit(remote):
    # no note gains lines at two times: one commit keeps every order that matters, as before
    _noted(remote.clone, bundle(RERUN_KEY, outcome="not-reproduced"), _at(90))
    pushed = _cli(remote.clone, "notes", "push", "origin", "--json")
    assert [r["kept"] for r in json.loads(pushed.stdout)["redated"]] == [False]
    assert "made again as one notes commit dated at the push" in pushed.stderr
    assert _made(remote.bare, count=1)[0][1] == (
        "kistore: the notes origin lacks, made again at the push (a note line enters at its "
        "notes commit's date, KI437)")


def test_a_rebuild_keeps_the_keys_last_word(remote, tmp_path):
    # on BASE 6af42bf9: written back in one notes commit dated now: verified
    rebuilt_in_order(remote, tmp_path, _reruns, STANDING)


def rebuilt_in_order(remote: Remote, tmp_path, reruns, standing) -> None:
    """``notes rebase origin`` over origin's notes keeps what stands: here, then pushed.

    ``reruns(clone, ago)`` writes a key's reruns ``ago`` seconds back; ``standing`` is the
    :func:`_effects` expected throughout, here and in a fresh clone after the push. The
    rebuild writes them back in two notes commits a second apart, in order.
    """
    _noted(remote.clone, bundle(STRANGER, "note"), _at(200))  # origin holds notes
    assert remote.push("refs/notes/kistore").accepted
    _cli(remote.clone, "notes", "fetch", "origin")
    reruns(remote.clone, 90)
    assert _effects(remote.clone) == standing
    _cli(remote.clone, "notes", "rebase", "origin")
    assert _effects(remote.clone) == standing
    made = _made(remote.clone)
    assert [m for _, m in made] == [
        f"kistore: attestation lines of this repository's written back on origin's notes "
        f"(kistore notes rebase), {k} of 2, in the order their lines entered (a note line "
        "enters at its notes commit's date; fresh16 F5)" for k in (2, 1)]
    assert made[0][0] == made[1][0] + 1
    _cli(remote.clone, "notes", "push", "origin")
    assert _effects(_fresh_clone(remote, tmp_path)) == standing


def test_notes_made_again_that_would_change_which_rerun_stands_are_refused(remote):
    # the safety net: were the two lines sent in one notes commit (as until 2026-12-08),
    # the push is refused, naming both lines, their entries and verdicts. The key said
    # not-reproduced, then reproduced (its last word): in one notes commit, history orders
    # neither and not-reproduced stands (since 2026-12-07, fresh17 F1's decision; until
    # then fresh16 F5's pair, reproduced dated ahead then not-reproduced, flipped so)
    _noted(remote.clone, bundle(RERUN_KEY, outcome="not-reproduced",
                                observedAt=_text(_at(90)),
                                timing={"latencyNs": {"mean": 33_500_000},
                                        "primaryStatistic": "mean"}), _at(90))
    _noted(remote.clone, bundle(RERUN_KEY, outcome="reproduced", observedAt=_text(_at(88))),
           _at(88))
    ours = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    store = Store(remote.clone)
    sent = str(notes_dated._as_one(store.repo, ours, None, "origin", int(time.time()),
                                   [], None))
    found = notes_made_again(store, "origin", None, ours, sent)
    # on BASE 6af42bf9: [] (each line judged alone keeps its effect)
    assert sorted((c.type, c.effect, c.becomes) for c in found) == [
        ("rerun", "superseded", "disagrees"), ("rerun", "verifies", "superseded")]
    assert {c.obj for c in found} == {run_blob(remote.clone)}
    assert {c.keyid for c in found} == {RERUN_ID}
    (was,) = [c for c in found if c.effect == "verifies"]
    assert was.reason == "trusted rerun key"
    assert re.fullmatch(r"superseded by the same key's later rerun \(not-reproduced, entered "
                        r"(\S+Z) with this one, history ordering neither: of one key's reruns "
                        r"of a run that entered together, not-reproduced stands whatever dates "
                        r"their payloads state, never upgrading the run to verified\)",
                        was.then), was.then
