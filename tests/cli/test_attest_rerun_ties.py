"""fresh14 F12's repro: ``attest --file`` of a rerun beside the same key's uncommitted one.

Two reruns by one trusted key written as files, not-reproduced first (rr4) and reproduced
next (rr3): until 2026-12-07 the second ``attest`` said "this rerun does not verify the
run: it counts as superseded (superseded by the same key's later rerun (not-reproduced,
...))" whenever the first file's name sorted last (both "entered" now), and once both were
committed in one commit ``show`` kept the earlier ``not-reproduced``. fresh14 F12 had the
later-signed one stand; since 2026-12-07 (fresh17 F1's decision) two reruns no history
orders (uncommitted files, files of one commit) leave the key's ``not-reproduced``
standing whatever their payloads' dates, so a squash or a skewed payload date never
upgrades a run (:func:`kistore.attest.evidence.rerun_order`): the second ``attest`` says
so, whatever the names sort, and every reader agrees.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from kistore.attest import signing
from kistore.cli import main

from ..attest.test_attestation_evidence import RERUN_KEY, RUN, bundle, trusted
from ..conftest import PUBLISHED, git
from ..export.conftest import duck

__all__ = ["trusted"]  # the fixture, used by name

RR4 = {"outcome": "not-reproduced", "environmentDigest": PUBLISHED["environment"],
       "timing": {"latencyNs": {"mean": 9_900_000}, "primaryStatistic": "mean", "trials": 100}}


def _rr3(variant: int) -> dict:
    return {"outcome": "reproduced", "environmentDigest": PUBLISHED["environment"],
            "timing": {"latencyNs": {"mean": 13_500_000 + variant}, "primaryStatistic": "mean",
                       "trials": 100}}


def run(runner, store, *args):
    return runner.invoke(main, ["--store", str(store.root), *args])


def _attest(runner, store, tmp_path, predicate: dict, name: str):
    key = tmp_path / "rerun-key"
    key.write_bytes(signing.private_key_bytes(RERUN_KEY))
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(predicate))
    return run(runner, store, "attest", str(RUN), "--type", "rerun", "--key", str(key),
               "--predicate", str(path), "--file")


TIE = (r" with this one, history ordering neither: of one key's reruns of a run that entered "
       r"together, not-reproduced stands whatever dates their payloads state, never upgrading "
       r"the run to verified")

SUPERSEDED = re.compile(
    r"warning: this rerun does not verify the run: it counts as superseded \(superseded by "
    r"the same key's later rerun \(not-reproduced, entered "
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z" + TIE + r"\)\); `kistore attestations "
    + str(RUN) + r"` lists it\n")


def _name(predicate: dict) -> str:
    return hashlib.sha256(bundle(RERUN_KEY, **predicate)).hexdigest()


@pytest.mark.parametrize("rr4_sorts_last", [True, False])
def test_attest_of_a_reproduced_beside_an_uncommitted_not_reproduced_is_superseded(
        runner, trusted, tmp_path, rr4_sorts_last):
    # the dates signed: rr4 observed before rr3; whichever file name sorts last
    rr4 = {**RR4, "observedAt": "2026-07-10T06:41:00Z"}
    rr3 = next(p for v in range(100) if (_name(rr4) > _name(
        p := {**_rr3(v), "observedAt": "2026-07-10T06:41:30Z"})) == rr4_sorts_last)
    first = _attest(runner, trusted, tmp_path, rr4, "rr4")
    assert (first.exit_code, first.stderr) == (0, "")
    second = _attest(runner, trusted, tmp_path, rr3, "rr3")
    assert second.exit_code == 0, second.output
    assert second.stdout.endswith(f"/{_name(rr3)}.json\n")
    # on BASE fb53db7b: "note: this rerun supersedes the same key's earlier rerun", and
    # committed in one commit the "reproduced" verified the run
    assert SUPERSEDED.fullmatch(second.stderr), second.stderr
    shown = _committed_neither_verifies(runner, trusted, tmp_path)
    assert re.search(
        r"\n  rerun \S+ valid superseded, from file: superseded by the same key's later rerun "
        r"\(not-reproduced, entered (\S+Z)" + TIE + r"\)\n", shown), shown


def test_attest_of_a_rerun_signed_now_beside_the_uncommitted_one_is_superseded(
        runner, trusted, tmp_path):
    # fresh14's very commands: observedAt filled in by attest, the later one signed later
    first = _attest(runner, trusted, tmp_path, RR4, "rr4")
    assert (first.exit_code, first.stderr) == (0, "")
    second = _attest(runner, trusted, tmp_path, _rr3(0), "rr3")
    assert second.exit_code == 0, second.output
    assert SUPERSEDED.fullmatch(second.stderr), second.stderr
    _committed_neither_verifies(runner, trusted, tmp_path)


def _committed_neither_verifies(runner, store, tmp_path) -> str:
    """Commit both files in one commit: ``show``, ``rank --at HEAD`` and ``export`` agree.

    Returns ``show``'s output.
    """
    git(store.root, "add", "store/attestations")
    git(store.root, "commit", "-q", "--no-verify", "-m", "two reruns one commit")
    shown = run(runner, store, "show", str(RUN))
    assert shown.exit_code == 0, shown.output
    listed = run(runner, store, "attestations", str(RUN), "--json")
    effects = sorted((a["outcome"], a["effect"]) for a in json.loads(listed.stdout)[
        "attestations"])
    assert effects == [("not-reproduced", "disagrees"), ("reproduced", "superseded")]
    ranked = run(runner, store, "rank", str(RUN), "--at", "HEAD", "--json", "--all")
    assert ranked.exit_code == 0, ranked.output
    levels = {r["digest"]: r["evidenceLevel"] for r in json.loads(ranked.stdout)}
    out = tmp_path / "export"
    exported = run(runner, store, "export", str(out))
    assert exported.exit_code == 0, exported.output
    rows = duck(out, "SELECT digest, evidenceLevel FROM {runs}")
    assert dict(rows)[str(RUN)] == levels[str(RUN)] == "source-native"
    assert "\nattestations: 2; evidence: source-native\n" in shown.stdout
    return shown.stdout
