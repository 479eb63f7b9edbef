"""What `show` and `rank` print for people (issue 18, item 7).

Each was misleading: "x reference" ratios were latency ratios printed beside scores,
unlabelled; `correctness: -` for a run its source marked passed; attestation lines printed
Python literals (`valid True, reason ,`); `rank` printed 1.0 and 1.1 ns both as "1 ns" while
ranking them apart; a run whose workload is not in the store was "rank 1 of 1" with no caveat.
"""

from __future__ import annotations

from kistore.cli import main
from kistore.query.page import attestation_text

from ..conftest import BUNDLE, PUBLISHED, add_docs


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


def test_show_labels_the_reference_ratio_a_latency_ratio(runner, group):
    out = run(runner, group.root, "show", "BenchmarkRun/slow").output
    assert ("  x reference proj-ref: 3.333x by latency (the reference's 100 ns (0.0001 ms) / "
            "this run's 30 ns (3e-5 ms))") in out.splitlines()


def test_show_says_the_status_where_the_source_recorded_no_correctness(runner, group):
    out = run(runner, group.root, "show", "BenchmarkRun/slow").output
    line = next(x for x in out.splitlines() if x.startswith("correctness:"))
    # the group's runs name no source: the status is their submitter's (review r85 F7)
    assert line.startswith("correctness: passed (as submitted: the run's status; it names no "
                           "source and records no correctness measures; checked by: ")
    assert "correctness: -" not in out


def test_attestation_lines_print_no_python_literals():
    judged = {"type": "reproduction", "keyid": "SHA256:abc", "valid": True,
              "effect": "community", "reason": "", "source": "note"}
    assert attestation_text(judged) == "reproduction SHA256:abc valid community, from note"
    bad = {**judged, "valid": False, "effect": "invalid", "reason": "signature does not verify",
           "type": None}
    assert attestation_text(bad) == ("? SHA256:abc INVALID invalid, from note: signature does not "
                                     "verify")


def test_rank_prints_enough_digits_to_tell_ranked_values_apart(runner, store, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency in [("a", 1.0), ("b", 1.1), ("c", 1.04), ("d", 2)]:
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name)]
    add_docs(store, docs)
    result = run(runner, store.root, "rank", "BenchmarkRun/a")
    assert result.exit_code == 0, result.output
    rows = [line.split()[:3] for line in result.output.splitlines()[1:]]
    assert rows == [["1", "1", "ns"], ["2", "1.04", "ns"], ["3", "1.1", "ns"], ["4", "2", "ns"]]
    page = run(runner, store.root, "show", "BenchmarkRun/b").output
    assert "rank 3 of 4 (by measured latency, mean ascending): 1.1 ns" in page
    assert "the value of #1 a (1 ns" in page


def test_a_run_whose_workload_is_missing_is_ranked_with_a_caveat(runner, store_path):
    assert run(runner, store_path, "add", "--allow-dangling", "--commit",
               str(BUNDLE)).exit_code == 0
    shown = run(runner, store_path, "show", PUBLISHED["run"]).output.splitlines()
    ranked = run(runner, store_path, "rank", PUBLISHED["run"]).stdout.splitlines()
    assert shown[shown.index(next(x for x in shown if x.startswith("rank 1 of 1"))) + 1
                 ].startswith("  caveat: the workload sha256:d47d94513f5c")
    assert ranked[1].startswith("caveat: the workload sha256:d47d94513f5c")
