"""Stored numbers print as the manifest holds them (review r60, F16).

`rank` and `show` printed a stored 0.3 as ``0.29999999999999999`` (``%.17g``, to tell it
from a 0.30000000000000004 in the same group); `compare` printed both as ``0.3`` and said
``A / B = 1`` for runs ranked 1 and 2. Every value now prints in its shortest round-trip
form, and the ratio of two values that differ never reads 1.
"""

from __future__ import annotations

import json

from hypothesis import example, given
from hypothesis import strategies as st

from kistore.cli import main
from kistore.query.numbers import number_text, ratio_text, value_texts

from ..conftest import add_docs

POINT_THREE = 0.1 + 0.2  # 0.30000000000000004


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


def _point_three_group(store, kit, unit: str = "x"):
    """Runs t3 (0.30000000000000004) and t4 (0.3) in one group, ranked by val descending."""
    (store.root / "store/policy/ranking.json").write_text(json.dumps({"families": {
        "synthetic": {"comparison": "source-native", "metric": "/sourceNative/metrics/val",
                      "order": "descending", "unit": unit}}}))
    docs = kit.group_docs([{"metrics": {"val": POINT_THREE}}, {"metrics": {"val": 0.3}}],
                          run="t{i}")
    docs[-3]["metadata"]["name"], docs[-1]["metadata"]["name"] = "t3", "t4"
    add_docs(store, docs)
    return store


def test_rank_and_show_print_a_stored_point_three_as_0_3(runner, store, kit):
    _point_three_group(store, kit)
    ranked = run(runner, store.root, "rank", "BenchmarkRun/t4")
    assert ranked.exit_code == 0, ranked.output
    rows = [line.split()[:3] for line in ranked.output.splitlines()[1:]]
    assert rows == [["1", "0.30000000000000004", "x"], ["2", "0.3", "x"]]
    page = run(runner, store.root, "show", "BenchmarkRun/t4").output
    assert "rank 2 of 2 (source-native comparison, val descending): 0.3 x" in page
    assert "the value of #1 t3 (0.30000000000000004 x)" in page
    assert "0.29999999999999999" not in ranked.output + page


def test_compare_prints_both_values_and_a_ratio_that_is_not_1(runner, store, kit):
    _point_three_group(store, kit)
    result = run(runner, store.root, "compare", "BenchmarkRun/t4", "BenchmarkRun/t3")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].endswith(" rank 2 0.3 x") and lines[0].startswith("A: t4 sha256:")
    assert lines[1].endswith(" rank 1 0.30000000000000004 x")
    assert lines[2] == "A / B = 0.9999999999999998 (source-native comparison, val descending)"


def test_a_latency_column_pads_with_zeros_never_binary_digits(runner, store, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency in [("a", 3.3), ("b", 1.1 + 2.2), ("c", 1234)]:
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name)]
    add_docs(store, docs)
    ranked = run(runner, store.root, "rank", "BenchmarkRun/a")
    rows = [line.split()[:3] for line in ranked.output.splitlines()[1:]]
    assert rows == [["1", "3.3000000000000000", "ns"], ["2", "3.3000000000000003", "ns"],
                    ["3", "1,234.0000000000000000", "ns"]]


def test_value_texts_by_hand():
    assert value_texts([0.3, POINT_THREE, None], "x") == {0.3: "0.3",
                                                          POINT_THREE: "0.30000000000000004"}
    assert value_texts([1.0, 1.1, 1.04, 2], "ns") == {1.0: "1.00", 1.1: "1.10", 1.04: "1.04",
                                                      2: "2.00"}
    assert value_texts([372764, 1.5e-07], "ns") == {372764: "372,764.00000000",
                                                   1.5e-07: "0.00000015"}
    assert value_texts([1e22], "ns") == {1e22: "1e+22"}
    assert value_texts([123456789.0, 1e22], "score") == {123456789.0: "123456789",
                                                         1e22: "1e+22"}
    assert number_text(0.51252) == "0.51252"


def test_ratio_text_never_claims_1_for_values_that_differ():
    assert ratio_text(0.3, POINT_THREE) == "0.9999999999999998"
    assert ratio_text(2.0, 2.0) == "1"
    assert ratio_text(1.04, 1.0) == "1.04"
    # stored integers past 2**53 divide to exactly 1.0 (two distinct doubles never do)
    assert ratio_text(2**60 + 1, 2**60) == "1 (A and B differ past double precision)"


FINITE = st.floats(allow_nan=False, allow_infinity=False)


@given(st.lists(FINITE, min_size=1, max_size=6), st.sampled_from(["ns", "x", None]))
@example([2.0 ** -24], "ns")  # CI found it: fixed form rounded the binary value, ...062
def test_every_printed_value_parses_back_to_the_stored_value(values, unit):
    texts = value_texts(values, unit)
    assert set(texts) == set(values)
    for value, text in texts.items():
        assert float(text.replace(",", "")) == value, (value, text)
        if unit != "ns":
            assert text == number_text(value) and float(text) == float(repr(value))


@given(FINITE.filter(lambda v: v != 0), FINITE.filter(lambda v: v != 0))
def test_a_ratio_of_values_that_differ_never_reads_1(a, b):
    ratio = a / b
    if ratio != ratio or ratio in (float("inf"), float("-inf")):
        return
    text = ratio_text(a, b)
    assert (text == "1") == (a == b)
