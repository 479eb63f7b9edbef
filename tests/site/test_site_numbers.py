"""The site prints numbers as stored, by the CLI's one rule (review r70, F11).

The run page's Measurements column "Exact" and the hero line "mean latency · X" printed a
latency rounded to three decimals, zeros stripped (``1. ns`` for a stored
1.0000000596046448, ``16,777,217. ns``, ``123,456,789,012.346 ns``), and scores on the run
page and the group table printed 6 significant digits (``4.94066e-324`` for a stored
``5e-324``). Both now print :mod:`kistore.query.numbers`' text, as ``show`` does.
"""

from __future__ import annotations

import html
import json
import re

from hypothesis import example, given
from hypothesis import strategies as st

from kistore.cli import main
from kistore.site import render, summary
from kistore.site.build import build_site

from ..conftest import add_docs, git

# name: (stored mean latency in ns, its text; stored score, its text)
RUNS = {
    "one": (1.0000000596046448, "1.0000000596046448 ns", 5e-324, "5e-324"),
    "big": (16777217.000000004, "16,777,217.000000004 ns", 2.0**-24, "5.960464477539063e-8"),
    "huge": (123456789012.34567, "123,456,789,012.34567 ns", 1e-7, "1e-7"),
    "plain": (123456789.123, "123,456,789.123 ns", 0.51252, "0.51252"),
}


def _site(store, kit, tmp_path):
    """A store of RUNS in one group ranked by score (committed), and its site."""
    (store.root / "store/policy/ranking.json").write_text(json.dumps({"families": {
        "synthetic": {"comparison": "source-native", "metric": "/sourceNative/metrics/val",
                      "order": "descending", "unit": "score"}}}))
    git(store.root, "commit", "-qam", "rank by val")
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, (latency, _, score, _) in RUNS.items():
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, name=name,
                               latency={"mean": latency, "min": latency},
                               native={"metrics": {"val": score}})]
    digests = dict(zip([d["metadata"]["name"] for d in docs], add_docs(store, docs),
                       strict=True))
    out = tmp_path / "site"
    build_site(store, out)
    return out, {name: digests[name] for name in RUNS}


def _run_page(out, digest):
    return html.unescape((out / "runs" / digest[7:23] / "index.html").read_text())


def test_exact_column_and_hero_line_print_the_stored_digits(store, kit, tmp_path):
    out, digests = _site(store, kit, tmp_path)
    for name, (_, text, _, _) in RUNS.items():
        page = _run_page(out, digests[name])
        assert f'<span class="what">mean latency · {text}</span>' in page, name
        measurements = page.split('<section id="measurements"')[1].split("</section>")[0]
        exact = re.findall(r'<td class="num">([^<]*)</td></tr>', measurements)
        assert exact == [text, text], name  # mean and min: the Exact column
    for bad in ("1. ns", "16,777,217. ns", "123,456,789,012.346 ns"):
        assert all(bad not in _run_page(out, d) for d in digests.values()), bad


def test_scores_on_run_pages_and_the_group_table_print_as_stored(store, kit, tmp_path):
    out, digests = _site(store, kit, tmp_path)
    for name, (_, _, _, text) in RUNS.items():
        assert f"· value {text} score" in _run_page(out, digests[name]), name
    [group] = (out / "groups").glob("*/index.html")
    cells = re.findall(r'<td class="num" data-value="[^"]*">([^<]*)</td>',
                       group.read_text())
    assert [c for c in cells if c.endswith(" score")] == [
        "0.51252 score", "1e-7 score", "5.960464477539063e-8 score", "5e-324 score"]
    pages = "".join(_run_page(out, d) for d in digests.values()) + group.read_text()
    assert "4.94066e-324" not in pages and "5.96046e-08" not in pages


def test_the_site_and_show_print_a_run_alike(runner, store, kit, tmp_path):
    """A score prints as stored on both; a latency too on the site, whose exact line sits
    under its rounded one, while `show` rounds it to 6 significant digits, whole ns kept
    (review r85 F13)."""
    out, digests = _site(store, kit, tmp_path)
    shown = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/huge"])
    assert "measured: mean latency 123,456,789,012 ns (123457 ms)" in shown.output
    assert ": 1e-7 score" in shown.output
    page = _run_page(out, digests["huge"])
    assert "mean latency · 123,456,789,012.34567 ns" in page and "value 1e-7 score" in page


def test_the_source_summary_prints_stored_counts_and_a_rounded_score():
    # the SOL score is the readable line's (4 significant digits, as the published page);
    # counts and unknown metrics as stored
    spec = {"sourceNative": {"metrics": {"sol_score": 5e-324, "fast_1_count": 1e6,
                                         "fast_1_total": 2e6, "num_trials": 1234567}}}
    assert [i["text"] for i in summary.source_summary(spec, [])] == [
        "SOL score 4.941e-324", "1000000 of 2000000 cases faster", "1234567 trials"]
    spec = {"sourceNative": {"metrics": {"tiny": 2.0**-24, "x": 0.30000000000000004}}}
    assert [i["text"] for i in summary.source_summary(spec, [])] == [
        "tiny 5.960464477539063e-8", "x 0.30000000000000004"]


POSITIVE = st.floats(min_value=5e-324, allow_infinity=False)


@given(POSITIVE)
@example(1.0000000596046448)
@example(16777217.000000004)
@example(123456789012.34567)
@example(5e-324)
def test_every_finite_positive_double_prints_digits_that_parse_back(value):
    exact = summary.exact_ns(value)
    assert exact.endswith(" ns") and float(exact[:-3].replace(",", "")) == value
    assert float(summary.number(value)) == value


def test_table_cells_and_compare_diffs_print_numbers_as_stored():
    # the `value` filter of correctness, environment and compare-page cells: json.dumps
    # wrote Python's repr (1e-05, 1e-07)
    assert render.value_text(1e-7) == "1e-7" and render.value_text(0.00001) == "0.00001"
    assert render.value_text(2.0**-24) == "5.960464477539063e-8"
    assert render.value_text(True) == "true" and render.value_text("fp16") == "fp16"
    assert render.value_text(None) == "-"
    assert render.compact({"rtol": 1e-05, "atol": [5e-324, 1e-7]}) == (
        '{"atol": [5e-324, 1e-7], "rtol": 0.00001}')
