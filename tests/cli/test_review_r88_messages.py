"""Review r88: messages that named the wrong cause or no fix, now saying what to do."""

from __future__ import annotations

import pytest

from kistore.cli import main

from .test_cli_names import add_fast_and_slow


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


@pytest.mark.parametrize(("ref", "said"), [
    # F9: names are lowercase; the capitals were compared as written and matched nothing
    ("BenchmarkRun/FAST", "no BenchmarkRun named 'FAST' in the work tree; names are lowercase; "
                          "did you mean BenchmarkRun/fast?"),
    # F9: a kind in lowercase was "not a reference" with no word of the kind meant
    ("benchmarkrun/fast", "'benchmarkrun/fast' is not a reference: 'benchmarkrun' is not a "
                          "kind; did you mean BenchmarkRun/fast?"),
])
@pytest.mark.parametrize("command", ["show", "rank"])
def test_a_reference_in_the_wrong_case_gets_the_spelling_meant(runner, store, kit, command,
                                                               ref, said):
    add_fast_and_slow(store, kit)
    result = run(runner, store.root, command, ref)
    assert (result.exit_code, result.stderr) == (1, f"error: {said}\n")
