"""Stored numbers print as the manifest holds them (review r60, F16; review r70, F8).

`rank` and `show` printed a stored 0.3 as ``0.29999999999999999`` (``%.17g``, to tell it
from a 0.30000000000000004 in the same group); `compare` printed both as ``0.3`` and said
``A / B = 1`` for runs ranked 1 and 2. Every value now prints in its shortest round-trip
form, and the ratio of two values that differ never reads 1.
"""

from __future__ import annotations

import csv
import json

import pytest
import rfc8785
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.cli import main
from kistore.query.numbers import (
    column,
    grouped_text,
    json_document,
    json_text,
    number_text,
    ratio_text,
    rounded_text,
    value_text,
)

from ..conftest import add_docs, git

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
    assert "rank 2 of 2 (by the source's own metric, val descending): 0.3 x" in page
    assert "the value of #1 t3 (0.30000000000000004 x)" in page
    assert "0.29999999999999999" not in ranked.output + page


def test_compare_prints_both_values_and_a_ratio_that_is_not_1(runner, store, kit):
    _point_three_group(store, kit)
    result = run(runner, store.root, "compare", "BenchmarkRun/t4", "BenchmarkRun/t3")
    assert result.exit_code == 0, result.output
    # each side ends with rank's marks (KI230: these runs state latencies under 100 ns)
    lines = [line.split("  (!) ")[0] for line in result.output.splitlines()]
    assert lines[0].endswith(" rank 2 0.3 x") and lines[0].startswith("A: t4 sha256:")
    assert lines[1].endswith(" rank 1 0.30000000000000004 x")
    assert lines[2] == "A / B = 0.9999999999999998 (by the source's own metric, val descending)"


def _latency_docs(kit, latencies):
    """One comparison group: run NAME with latency (ns) for each (name, latency)."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency in latencies:
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name)]
    return docs


def test_a_latency_column_lines_up_with_spaces_never_zeros(runner, store, kit):
    # review r70, F8: 3.3 printed 3.3000000000000000 beside a 16-decimal run
    add_docs(store, _latency_docs(kit, [("a", 3.3), ("b", 1.1 + 2.2), ("c", 1234)]))
    lines = run(runner, store.root, "rank", "BenchmarkRun/a").output.splitlines()[1:]
    assert [line.split()[:3] for line in lines] == [
        ["1", "3.3", "ns"], ["2", "3.3000000000000003", "ns"], ["3", "1,234", "ns"]]
    # the points (and the integer's end) in one column, padded with spaces
    assert [line[:28] for line in lines] == ["    1     3.3" + " " * 15,
                                             "    2     3.3000000000000003",
                                             "    3 1,234" + " " * 17]


def test_a_run_prints_the_same_latency_whatever_else_joins_its_group(runner, store, kit):
    # review r70, F8: `show` of a 1.1 ns run printed 1.1000000000000000 ns once another run
    # with 16 decimals was added, and 9,007,199,254,740,991.0000000000000000 ns
    docs = _latency_docs(kit, [("a", 1.1), ("big", 9007199254740991),
                               ("b", 1.0000000596046448)])
    add_docs(store, docs[:-2])
    before = run(runner, store.root, "show", "BenchmarkRun/a").output
    assert "measured: mean latency 1.1 ns (1.1e-6 ms)" in before.splitlines()
    add_docs(store, docs[-2:])
    after = run(runner, store.root, "show", "BenchmarkRun/a").output.splitlines()
    assert "measured: mean latency 1.1 ns (1.1e-6 ms)" in after
    assert "rank 2 of 3 (by measured latency, mean ascending): 1.1 ns (1.1e-6 ms)" in after
    assert "  1.1x the value of #1 b (1 ns (1e-6 ms))" in after  # 6 digits (r85 F13)
    big = run(runner, store.root, "show", "BenchmarkRun/big").output
    assert "measured: mean latency 9,007,199,254,740,991 ns (9.0072e+9 ms)" in big
    ranked = run(runner, store.root, "rank", "BenchmarkRun/a").output
    assert [line.split()[1] for line in ranked.splitlines()[1:]] == [
        "1", "1.1", "9,007,199,254,740,991"]


def test_scores_print_in_the_stored_canonical_form_not_python_repr(runner, store, kit):
    # review r70, F8: 1e-07 and 5.960464477539063e-08 for stored 1e-7, 5.960464477539063e-8
    (store.root / "store/policy/ranking.json").write_text(json.dumps({"families": {
        "synthetic": {"comparison": "source-native", "metric": "/sourceNative/metrics/val",
                      "order": "descending", "unit": "score"}}}))
    docs = kit.group_docs([{"metrics": {"val": v}} for v in (1e-7, 2.0**-24, 5e-324)],
                          run="s{i}")
    add_docs(store, docs)
    names = [d["metadata"]["name"] for d in docs if d["kind"] == "BenchmarkRun"]
    ranked = run(runner, store.root, "rank", f"BenchmarkRun/{names[0]}").output
    assert [line.split()[:3] for line in ranked.splitlines()[1:]] == [
        ["1", "1e-7", "score"], ["2", "5.960464477539063e-8", "score"],
        ["3", "5e-324", "score"]]
    page = run(runner, store.root, "show", f"BenchmarkRun/{names[1]}").output
    assert ": 5.960464477539063e-8 score" in page
    assert f"the value of #1 {names[0]} (1e-7 score)" in page
    compared = run(runner, store.root, "compare", f"BenchmarkRun/{names[0]}",
                   f"BenchmarkRun/{names[2]}").output.splitlines()
    compared = [line.split("  (!) ")[0] for line in compared]  # rank's marks (KI230: 10 ns)
    assert compared[0].endswith(" rank 1 1e-7 score")
    assert compared[1].endswith(" rank 3 5e-324 score")
    assert "e-07" not in ranked + page and "e-08" not in ranked + page


def test_numbers_by_hand():
    assert number_text(0.3) == "0.3" and number_text(POINT_THREE) == "0.30000000000000004"
    assert number_text(372764) == "372764" and number_text(1.0) == "1"
    assert number_text(1e-7) == "1e-7" and number_text(0.00001) == "0.00001"
    assert number_text(2.0**-24) == "5.960464477539063e-8" and number_text(5e-324) == "5e-324"
    assert number_text(1e21) == "1e+21" and number_text(1e20) == "100000000000000000000"
    assert number_text(-0.0) == "0" and number_text(0.51252) == "0.51252"
    assert grouped_text(16777217.000000004) == "16,777,217.000000004"
    assert grouped_text(123456789012.34567) == "123,456,789,012.34567"
    assert grouped_text(1.0000000596046448) == "1.0000000596046448"
    assert grouped_text(9007199254740991) == "9,007,199,254,740,991"
    assert grouped_text(-1234.5) == "-1,234.5" and grouped_text(1e22) == "1e+22"
    assert value_text(1234.5, "ns") == "1,234.5" and value_text(1234.5, "score") == "1234.5"
    assert value_text(123456789.0, None) == "123456789"
    assert column(["1", "1.04", "-", "1,234.5", "1e-7"]) == [
        "    1   ", "    1.04", "    -   ", "1,234.5 ", "    1e-7"]


def test_rounded_text_writes_exponents_as_stored_numbers_do():
    # review 2026-12-02: show's ms conversion wrote Python's 1.1e-06 beside the stored 1.1
    assert rounded_text(1.1e-6, 6, keep_zeros=False) == "1.1e-6"
    assert rounded_text(9007199254.740991, 6, keep_zeros=False) == "9.0072e+9"
    assert rounded_text(0.0012345, 6, keep_zeros=False) == "0.0012345"
    assert rounded_text(13.634148, 6, keep_zeros=False) == "13.6341"
    assert rounded_text(0.51252, 4) == "0.5125" and rounded_text(1, 3) == "1.00"
    assert rounded_text(1e-7, 1) == "1e-7" and rounded_text(100, 3) == "100"
    assert rounded_text(-2.5e21, 2) == "-2.5e+21" and rounded_text(0, 4) == "0.000"


def test_ratio_text_never_claims_1_for_values_that_differ():
    assert ratio_text(0.3, POINT_THREE) == "0.9999999999999998"
    assert ratio_text(2.0, 2.0) == "1"
    assert ratio_text(1.04, 1.0) == "1.04"
    # stored integers past 2**53 divide to exactly 1.0 (two distinct doubles never do)
    assert ratio_text(2**60 + 1, 2**60) == "1 (A and B differ past double precision)"


def test_a_ratio_of_1000_or_more_reads_whole_and_grouped_as_the_pages_write_it():
    # closing24's leftover: compare wrote "A / B = 1.051e+6" beside the mark's 1,051,136x
    assert ratio_text(3_700_000, 3.52) == "1,051,136"
    assert ratio_text(1000, 1) == "1,000" and ratio_text(999.94, 1) == "999.9"
    assert ratio_text(-3e6, 2) == "-1,500,000"
    assert ratio_text(1e20, 1) == "100,000,000,000,000,000,000"
    assert ratio_text(3.52, 3_700_000) == "9.514e-7"  # below 1: significant digits as before


FINITE = st.floats(allow_nan=False, allow_infinity=False)


@given(FINITE)
@example(2.0 ** -24)  # CI found it: fixed form rounded the binary value, ...062
@example(1.0000000596046448)  # review r70, F11: the site printed "1."
@example(16777217.000000004)
@example(123456789012.34567)
def test_every_value_prints_its_canonical_text_which_parses_back(value):
    text = number_text(value)
    assert float(text) == value, (value, text)
    assert text.encode() == rfc8785.dumps(value)  # the text the canonical bytes hold
    assert grouped_text(value).replace(",", "") == text
    assert value_text(value, "score") == text


@given(FINITE)
@example(1.0000000596046448)
@example(999999.95)
@example(5e-324)
def test_a_latency_prints_six_significant_digits_that_parse_back_near_it(value):
    """review r85 F13: a latency's text is rounded to 6 significant digits, never more off."""
    from kistore.query.numbers import latency_text

    text = value_text(value, "ns")
    assert text == latency_text(value)
    back = float(text.replace(",", ""))
    assert back == pytest.approx(value, rel=5e-6, abs=0)
    assert "e-0" not in text and "e+0" not in text and not text.endswith(".")


@given(st.lists(FINITE.map(lambda v: value_text(v, "ns")) | st.just("-"), max_size=6))
def test_a_column_pads_with_spaces_only_and_lines_up_the_points(texts):
    padded = column(texts)
    assert [t.strip() for t in padded] == texts
    assert len({len(t) for t in padded}) <= 1
    ends = {len(t) - len(t.lstrip()) + _point_of(t.strip()) for t in padded}
    assert len(ends) <= 1


def _point_of(text):
    return next((text.index(m) for m in ".e" if m in text), len(text))


@given(FINITE.filter(lambda v: v != 0), FINITE.filter(lambda v: v != 0))
def test_a_ratio_of_values_that_differ_never_reads_1(a, b):
    ratio = a / b
    if ratio != ratio or ratio in (float("inf"), float("-inf")):
        return
    text = ratio_text(a, b)
    assert (text == "1") == (a == b)


def _score_group(store, kit):
    """Runs s0, s1, s2 scored 1e-7, 2**-24, 5e-324 (latencies 1.0000000596046448 ...)."""
    (store.root / "store/policy/ranking.json").write_text(json.dumps({"families": {
        "synthetic": {"comparison": "source-native", "metric": "/sourceNative/metrics/val",
                      "order": "descending", "unit": "score"}}}))
    docs = kit.group_docs([{"metrics": {"val": v}} for v in (1e-7, 2.0**-24, 5e-324)],
                          run="s{i}")
    runs = [d for d in docs if d["kind"] == "BenchmarkRun"]
    for run_doc, latency in zip(runs, LATENCIES, strict=True):
        run_doc["spec"]["timing"]["latencyNs"] = {"mean": latency}
    runs[0]["spec"]["correctness"] = {"passed": True, "maxAbsoluteError": 0.00001,
                                      "rtol": [1e-7, 2.0**-24]}
    add_docs(store, docs)
    git(store.root, "add", "-A")
    git(store.root, "commit", "-qm", "rank by val")
    return store


LATENCIES = (1.0000000596046448, 16777217.000000004, 123456789012.34567)


def test_compare_and_show_print_field_values_as_stored(runner, store, kit):
    # review r70: compare's field diff printed Python's repr (1e-07, 5.960464477539063e-08)
    _score_group(store, kit)
    compared = run(runner, store.root, "compare", "BenchmarkRun/s0", "BenchmarkRun/s1")
    assert compared.exit_code == 0, compared.output
    assert ("  run/sourceNative/metrics/val: A 1e-7 | B 5.960464477539063e-8"
            in compared.output.splitlines())
    assert ("  run/timing/latencyNs/mean: A 1.0000000596046448 | B 16777217.000000004"
            in compared.output.splitlines())
    assert "  run/correctness/passed: A true | B (absent)" in compared.output.splitlines()
    shown = run(runner, store.root, "show", "BenchmarkRun/s0").output
    assert ("correctness: maxAbsoluteError 0.00001, passed true, rtol [1e-7, "
            "5.960464477539063e-8] (as the source reported it; checked by: ") in shown
    assert "e-07" not in compared.output + shown and "e-05" not in shown


def test_machine_outputs_hold_the_stored_doubles(runner, store, kit, tmp_path):
    """rank/show/compare --json and export JSONL/CSV: each number parses to the stored one.

    ``--json`` writes the canonical text (``1e-7``, as the manifests and the readable output
    do; it wrote Python's ``1e-07`` until 2026-12-02); export writes orjson's layout. No
    digit differs: a JSON or CSV reader gets the stored double.
    """
    _score_group(store, kit)
    text = run(runner, store.root, "rank", "BenchmarkRun/s0", "--json").output
    assert '"value": 1e-7,' in text and '"value": 5.960464477539063e-8,' in text
    assert "e-07" not in text and "e-08" not in text
    lines = run(runner, store.root, "rank", "BenchmarkRun/s0", "--format", "jsonl").output
    assert '"value":1e-7,' in lines and "e-07" not in lines
    ranked = json.loads(text)
    assert [(r["value"], r["latencyNs"]) for r in ranked] == list(zip(
        (1e-7, 2.0**-24, 5e-324), LATENCIES, strict=True))
    page = json.loads(run(runner, store.root, "show", "BenchmarkRun/s2", "--json").output)
    assert page["value"] == 5e-324 and page["latencyNs"] == LATENCIES[2]
    both = json.loads(run(runner, store.root, "compare", "BenchmarkRun/s0",
                          "BenchmarkRun/s1", "--json").output)
    assert (both["a"]["value"], both["b"]["value"]) == (1e-7, 2.0**-24)
    for fmt in ("jsonl", "csv"):
        out = tmp_path / fmt
        result = run(runner, store.root, "export", str(out), "--format", fmt)
        assert result.exit_code == 0, result.output
        [part] = (out / "runs").glob(f"*.{fmt}")
        if fmt == "jsonl":
            rows = [json.loads(line) for line in part.read_text().splitlines()]
            got = {r["name"]: (r["value"], r["latencyNs"]["mean"]) for r in rows}
        else:
            rows = list(csv.DictReader(part.open(encoding="utf-8")))
            got = {r["name"]: (float(r["value"]), float(r["latencyNs.mean"])) for r in rows}
        assert got == {"s0": (1e-7, LATENCIES[0]), "s1": (2.0**-24, LATENCIES[1]),
                       "s2": (5e-324, LATENCIES[2])}, fmt


KEYS = st.text(max_size=4)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | FINITE | st.integers(-(2**53) + 1, 2**53 - 1) | KEYS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=6)


def test_json_document_is_json_dumps_with_numbers_as_stored():
    value = {"z": [1e-7, 1.0, 0.00001, 2**60 + 1, -0.0], "a": {}, "é": [], "b": [{"k": None}],
             3: True}
    assert json_document(value) == (
        '{\n  "z": [\n    1e-7,\n    1,\n    0.00001,\n    1152921504606846977,\n    0\n  ],\n'
        '  "a": {},\n  "é": [],\n  "b": [\n    {\n      "k": null\n    }\n  ],\n'
        '  "3": true\n}')
    assert json_document(value, indent=None, ensure_ascii=True) == (
        '{"z":[1e-7,1,0.00001,1152921504606846977,0],"a":{},"\\u00e9":[],"b":[{"k":null}],'
        '"3":true}')
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        json_document({"x": {1}})


# a recursive strategy: generation took over the health check's limit on a loaded machine
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES, st.sampled_from([None, 2, 0]), st.booleans())
def test_json_document_parses_back_and_is_json_dumps_but_for_numbers(value, indent, ascii_):
    text = json_document(value, indent=indent, ensure_ascii=ascii_)
    assert json.loads(text, parse_int=float) == value  # the same doubles
    # the layout is json.dumps's: its text once each number is written as stored
    numbers: list[str] = []

    def mark(v):
        if isinstance(v, dict):
            return {k: mark(x) for k, x in v.items()}
        if isinstance(v, list):
            return [mark(x) for x in v]
        if isinstance(v, int | float) and not isinstance(v, bool):
            numbers.append(number_text(v))
            return f"@@{len(numbers) - 1}@@"  # longer than any generated string
        return v

    same = json.dumps(mark(value), indent=indent, ensure_ascii=ascii_,
                      separators=(",", ":") if indent is None else None)
    for i, number in enumerate(numbers):
        same = same.replace(f'"@@{i}@@"', number, 1)
    assert text == same


# a recursive strategy: generation took over the health check's limit on a loaded machine
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES)
@example({"rtol": 1e-05, "x": [5e-324, True, None, "é"]})
def test_json_text_parses_back_and_writes_numbers_as_stored(value):
    text = json_text(value)
    assert json.loads(text, parse_int=float) == value  # numbers read as doubles
    if not isinstance(value, dict | list):
        assert text == (number_text(value) if isinstance(value, int | float)
                        and not isinstance(value, bool) else json.dumps(value,
                                                                        ensure_ascii=False))
    assert json_text({"rtol": 1e-05, "x": [5e-324, True, None, "é"]}) == (
        '{"rtol": 0.00001, "x": [5e-324, true, null, "é"]}')


def test_show_names_the_runs_tied_with_it_and_never_says_1x_for_a_slower_run(
        runner, store, kit):
    # reviewer r83: "rank 2 of 4" said nothing of the run tied with it, and 10.0002 ns
    # against #1's 10.0001 ns read "1x the value of #1"
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency in [("a", 10.0001), ("b", 10.0002), ("c", 10.0002), ("d", 12.0)]:
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name)]
    add_docs(store, docs)
    page = run(runner, store.root, "show", "BenchmarkRun/c").output.splitlines()
    assert page[page.index(next(x for x in page if x.startswith("rank "))):][:2] == [
        "rank 2 of 4, tied with b (by measured latency, mean ascending): 10.0002 ns "
        "(1.00002e-5 ms)",
        "  1.000009999900001x the value of #1 a (10.0001 ns (1.00001e-5 ms))"]
    alone = run(runner, store.root, "show", "BenchmarkRun/d").output
    assert "rank 4 of 4 (by measured latency" in alone and "tied" not in alone
    assert "  1.2x the value of #1 a (10.0001 ns" in alone


def test_latencies_print_to_six_significant_digits_right_aligned_json_exact(
        runner, store, kit):
    """review r85 F13: FlashInfer means printed with 17 digits (``42,860.831780213484 ns``),
    the value column not lined up by magnitude."""
    values = [("f1", 42860.831780213484), ("f2", 42989.69733403158),
              ("f3", 12015667.70706663)]
    add_docs(store, _latency_docs(kit, values))
    ranked = run(runner, store.root, "rank", "BenchmarkRun/f1")
    assert ranked.exit_code == 0, ranked.output
    assert [line[:24] for line in ranked.output.splitlines()[1:]] == [
        "    1       42,860.8 ns ",
        "    2       42,989.7 ns ",
        "    3   12,015,668   ns "]  # the points (and the integer's end) in one column
    page = run(runner, store.root, "show", "BenchmarkRun/f2").output.splitlines()
    assert "measured: mean latency 42,989.7 ns (0.0429897 ms)" in page
    assert "  1.003x the value of #1 f1 (42,860.8 ns (0.0428608 ms))" in page
    compared = run(runner, store.root, "compare", "BenchmarkRun/f3", "BenchmarkRun/f1")
    assert compared.output.splitlines()[0].endswith(" rank 3 12,015,668 ns (12.0157 ms)")
    exact = json.loads(run(runner, store.root, "rank", "BenchmarkRun/f1", "--json").output)
    assert [row["value"] for row in exact] == [v for _, v in values]


def test_latency_text_by_hand():
    from kistore.query.numbers import distinct_texts, latency_text

    assert [latency_text(v) for v in (42860.831780213484, 12015667.70706663, 1.1, 1234, 0,
                                      0.30000000000000004, 1.0000000596046448, 999999.95,
                                      0.000123456789, 1e-7, 9007199254740991)] == [
        "42,860.8", "12,015,668", "1.1", "1,234", "0", "0.3", "1", "1,000,000", "0.000123457",
        "1e-7", "9,007,199,254,740,991"]
    # two values that differ never print alike: those print exact
    assert distinct_texts([3.3, 1.1 + 2.2, 1234.0], "ns") == [
        "3.3", "3.3000000000000003", "1,234"]
    assert distinct_texts([0.3, POINT_THREE], "score") == ["0.3", "0.30000000000000004"]
