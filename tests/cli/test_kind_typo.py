"""Reviewer r87 (low): a kind mistyped got the list of kinds but no "did you mean".

``kistore ls --kind workload`` and ``kistore show workload/NAME`` now name the kind that was
likely meant, as a mistyped command or name does (:func:`kistore.core.schema.nearest_kind`).
"""

from __future__ import annotations

import pytest

from kistore.cli import main
from kistore.core.schema import nearest_kind

KINDS_LISTED = ("'Workload', 'BenchmarkProtocol', 'ExecutionEnvironment', 'Implementation', "
                "'BenchmarkRun'")


@pytest.mark.parametrize(("typed", "meant"), [
    ("workload", "Workload"), ("BENCHMARKRUN", "BenchmarkRun"), ("Run", "BenchmarkRun"),
    ("environment", "ExecutionEnvironment"), ("Implementaton", "Implementation"),
    ("Workloads", "Workload"), ("protocol", "BenchmarkProtocol"),
    ("Benchmark", None),  # in two kinds: no guess
    ("xyz", None), ("Workload", None)])
def test_nearest_kind(typed, meant):
    assert nearest_kind(typed) == meant


def test_ls_kind_typo_says_the_kind_meant(runner, store):
    result = runner.invoke(main, ["--store", str(store.root), "ls", "--kind", "workload"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '--kind': 'workload' is not one of {KINDS_LISTED} "
        "(did you mean Workload?)")
    far = runner.invoke(main, ["--store", str(store.root), "ls", "--kind", "xyz"])
    assert far.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '--kind': 'xyz' is not one of {KINDS_LISTED}.")


def test_a_reference_with_a_kind_typo_says_the_reference_meant(runner, store):
    result = runner.invoke(main, ["--store", str(store.root), "show", "workload/rmsnorm"])
    assert (result.exit_code, result.stderr) == (1, (  # r88 F9's words, merged after
        "error: 'workload/rmsnorm' is not a reference: 'workload' is not a kind; did you mean "
        "Workload/rmsnorm?\n"))
