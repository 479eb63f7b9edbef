"""fresh14 F6: a rerun whose ``timing`` contradicts itself (KI228) verified its run.

A rerun predicate's ``timing`` has the shape of a BenchmarkRun's ``spec.timing`` and lifts
the run to ``verified``, yet ``min`` 20,000,000 above ``max`` 10, "1 trial" with three
values, was written by ``attest`` (exit 0), counted (``evidence: verified``) and passed
``verify``. It is now held to KI228 as a run is (:func:`kistore.attest.subjects.
timing_contradiction`): ``attest`` refuses it, evidence does not count it, and ``verify``
and the gate report it (KI310, the rerun not fitting its subject).
"""

from __future__ import annotations

import json

from kistore.attest import notes
from kistore.attest.evidence import SOURCE_NATIVE, VERIFIED, check_attestations, evidence_for
from kistore.attest.subjects import timing_contradiction

from ..cli.test_attestation_cli import MEASURED, RUN_REF, _notes_and_files, key_file, run
from .test_attestation_evidence import RERUN_KEY, RUN, bundle, only, trusted

__all__ = ["key_file", "trusted"]  # fixtures, used by name

FRESH14 = {"latencyNs": {"mean": 3700000, "min": 20000000, "max": 10},
           "primaryStatistic": "mean", "trials": 1}
SAID = (
    "the rerun's timing contradicts itself (KI228, which refuses such a run): the rerun states "
    "1 trial (/timing/trials) and latencyNs max 10, mean 3700000, min 20000000 "
    "(/timing/latencyNs): the min, max, mean, median, geomean and percentiles of one trial are "
    "all its one latency, and these differ by more than rounding gives (1 ns, and a relative "
    "1e-09); it verifies no run: its signer attests again with the statistics measured")


def test_the_rule_is_the_runs():
    assert timing_contradiction(FRESH14) == SAID
    assert timing_contradiction(MEASURED["timing"]) is None
    # of 2 trials: fresh14 F1's bound, the rerun's pointers
    two = {"latencyNs": {"mean": 3700000, "min": 3700000, "max": 9000000},
           "primaryStatistic": "mean", "trials": 2}
    assert timing_contradiction(two) == (
        "the rerun's timing contradicts itself (KI228, which refuses such a run): the rerun "
        "states mean 3700000 ns (/timing/latencyNs/mean) of 2 trials (/timing/trials) from min "
        "3700000 ns to max 9000000 ns (/timing/latencyNs/min, /timing/latencyNs/max): the mean "
        "of n trials lies in [min + (max - min) / n, max - (max - min) / n] (a trial at each "
        "end, the others anywhere between), here [6,345,000, 6,355,000] ns (each value read as "
        "rounded to its last nonzero digit, but to no fewer than 3 significant digits, and at "
        "least 1 ns); it verifies no run: its signer attests again with the statistics "
        "measured")


def test_a_self_contradicting_rerun_does_not_verify_and_is_reported(trusted):
    """On BASE 08d9480b: VERIFIED, and no finding."""
    notes.attach(trusted, RUN, bundle(RERUN_KEY, timing={
        **FRESH14, "latencyNs": {**FRESH14["latencyNs"], "mean": 13_500_000}}))
    evidence = evidence_for(trusted, RUN)
    assert evidence.level == SOURCE_NATIVE and evidence.level != VERIFIED
    assert only(evidence)["effect"] != "verifies"
    assert SAID.replace("3700000", "13500000") in only(evidence)["reason"]
    found = [f for f in check_attestations(trusted) if f.rule.id == "KI310"]
    assert len(found) == 1 and SAID.replace("3700000", "13500000") in found[0].message


def test_attest_refuses_it(runner, record_store, store_path, key_file, tmp_path):
    predicate = tmp_path / "rr.json"
    predicate.write_text(json.dumps({**MEASURED, "timing": FRESH14}))
    before = _notes_and_files(store_path)
    result = run(runner, store_path, "attest", RUN_REF, "--type", "rerun", "--predicate",
                 str(predicate), "--key", str(key_file))
    assert result.exit_code == 1, result.output
    assert result.stderr == f"error: {predicate}: {RUN_REF}: {SAID}\n"
    assert _notes_and_files(store_path) == before
