"""fresh14 F12's repro: ``attest --file`` of a rerun beside the same key's uncommitted one.

Two reruns by one trusted key written as files, not-reproduced first (rr4) and reproduced
next (rr3): until 2026-12-07 the second ``attest`` said "this rerun does not verify the
run: it counts as superseded (superseded by the same key's later rerun (not-reproduced,
...))" whenever the first file's name sorted last (both "entered" now), and once both were
committed in one commit ``show`` kept the earlier ``not-reproduced``. The later-signed one
stands now (:func:`kistore.attest.evidence.rerun_order`), and every reader agrees.
"""

from __future__ import annotations

import hashlib
import json
import re

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


SUPERSEDES = re.compile(
    r"note: this rerun supersedes the same key's earlier rerun \(not-reproduced, entered "
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z, measured 9,900,000 ns\): what a key said last "
    r"stands, so that one no longer counts\n")


def _name(predicate: dict) -> str:
    return hashlib.sha256(bundle(RERUN_KEY, **predicate)).hexdigest()


def test_attest_of_a_later_rerun_beside_an_uncommitted_one_supersedes_it(
        runner, trusted, tmp_path):
    # the dates signed: rr4 observed before rr3; rr4's file name sorts last (until
    # 2026-12-07 the name decided, and rr3 was told it "counts as superseded" by rr4)
    rr4 = {**RR4, "observedAt": "2026-07-10T06:41:00Z"}
    rr3 = next(p for v in range(100) if _name(rr4) > _name(
        p := {**_rr3(v), "observedAt": "2026-07-10T06:41:30Z"}))
    first = _attest(runner, trusted, tmp_path, rr4, "rr4")
    assert (first.exit_code, first.stderr) == (0, "")
    second = _attest(runner, trusted, tmp_path, rr3, "rr3")
    assert second.exit_code == 0, second.output
    assert second.stdout.endswith(f"/{_name(rr3)}.json\n")
    assert SUPERSEDES.fullmatch(second.stderr), second.stderr
    assert "counts as superseded" not in second.stderr
    shown = _committed_both_verify(runner, trusted, tmp_path)
    assert re.search(
        r"\n  rerun \S+ valid superseded, from file: superseded by the same key's later rerun "
        r"\(reproduced, entered (\S+Z) with this one; its payload is dated later, "
        r"2026-07-10T06:41:30Z\)\n", shown), shown


def test_attest_of_a_rerun_signed_now_supersedes_the_uncommitted_one(
        runner, trusted, tmp_path):
    # fresh14's very commands: observedAt filled in by attest, the later one signed later
    first = _attest(runner, trusted, tmp_path, RR4, "rr4")
    assert (first.exit_code, first.stderr) == (0, "")
    second = _attest(runner, trusted, tmp_path, _rr3(0), "rr3")
    assert second.exit_code == 0, second.output
    assert SUPERSEDES.fullmatch(second.stderr), second.stderr
    _committed_both_verify(runner, trusted, tmp_path)


def _committed_both_verify(runner, store, tmp_path) -> str:
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
    assert effects == [("not-reproduced", "superseded"), ("reproduced", "verifies")]
    ranked = run(runner, store, "rank", str(RUN), "--at", "HEAD", "--json", "--all")
    assert ranked.exit_code == 0, ranked.output
    levels = {r["digest"]: r["evidenceLevel"] for r in json.loads(ranked.stdout)}
    out = tmp_path / "export"
    exported = run(runner, store, "export", str(out))
    assert exported.exit_code == 0, exported.output
    rows = duck(out, "SELECT digest, evidenceLevel FROM {runs}")
    assert dict(rows)[str(RUN)] == levels[str(RUN)] == "verified"
    assert "\nattestations: 2; evidence: verified\n" in shown.stdout
    return shown.stdout
