"""The source-native summary line and how pages write numbers (pure)."""

from __future__ import annotations

import pytest

from kistore.site import render, summary


def test_sol_summary_reads_as_the_published_page():
    spec = {"sourceNative": {"source": "sol-execbench", "metrics": {
        "sol_score": 0.51252, "latency_ms": 13.634148, "avg_speedup": 1.0439,
        "fast_1_count": 16, "fast_1_total": 16}}}
    assert [i["text"] for i in summary.source_summary(spec, [])] == [
        "SOL score 0.5125", "1.04× the reference", "16 of 16 cases faster"]


@pytest.mark.parametrize(("score", "text"), [
    (0.51252, "SOL score 0.5125"), (0.5, "SOL score 0.5000"), (0.99996, "SOL score 1.000"),
    (1, "SOL score 1.000"), (12345.6, "SOL score 1.235e+4"), (5e-324, "SOL score 4.941e-324"),
    (0.00012346, "SOL score 0.0001235"), (1e-7, "SOL score 1.000e-7")])
def test_the_summary_score_is_rounded_to_4_significant_digits(score, text):
    # the readable line: 4 significant digits, zeros kept, as the ratio beside it keeps
    # them (1.00×); an exponent as the stored numbers write one (e-7, never Python's e-07)
    spec = {"sourceNative": {"metrics": {"sol_score": score}}}
    assert summary.source_summary(spec, []) == [{"label": "SOL score", "text": text}]


def test_without_a_stated_speedup_the_first_reference_ratio_is_used():
    refs = [{"name": "r", "project": "SOL bound", "speedup": None},
            {"name": "b", "project": "Baseline", "speedup": 0.5}]
    assert summary.source_summary({}, refs) == [
        {"label": "x reference", "text": "0.500× the reference (Baseline)"}]


def test_unknown_metrics_are_listed_by_name_at_most_four():
    spec = {"sourceNative": {"source": "x", "metrics": {
        "a": 1, "b": "text", "c": 2.5, "d": True, "e": 3, "f": 4, "g": 5}}}
    assert [i["text"] for i in summary.source_summary(spec, [])] == ["a 1", "c 2.5", "e 3",
                                                                      "f 4"]
    assert summary.source_summary({"sourceNative": "not an object"}, []) == []


@pytest.mark.parametrize(("ns", "text"), [
    (13634148, "13.6 ms"), (373792, "374 µs"), (43076.83, "43.1 µs"), (950, "950 ns"),
    (1.5e9, "1.50 s"), (0, "0 ns"), (None, "-"), (True, "-")])
def test_latency(ns, text):
    assert summary.latency(ns) == text


@pytest.mark.parametrize(("ns", "text"), [
    (13634148, "13,634,148 ns"), (43076.83323794562, "43,076.83323794562 ns"),
    (1.0000000596046448, "1.0000000596046448 ns"), (None, "-")])
def test_exact_ns(ns, text):
    assert summary.exact_ns(ns) == text


def test_ratio_number_and_digests():
    assert summary.ratio(1) == "1.00×" and summary.ratio(0.21799) == "0.218×"
    assert summary.ratio(1e-7) == "1.00e-7×" and summary.ratio(123456) == "123,456×"
    assert summary.ratio(999.6) == "1,000×" and summary.ratio(1.05e6) == "1,050,000×"
    # reviewer r92 F7: whole as KI234's mark and `show` write it, not 3 digits (1,050×)
    assert summary.ratio(3_680_000 / 3_520) == "1,045×"
    assert summary.ratio(3_810_000 / 3_520) == "1,082×"
    assert summary.ratio(999.4) == "999×"
    assert summary.ratio(None) == "-" and summary.number(0.512521) == "0.512521"
    assert summary.number(5e-324) == "5e-324" and summary.number(1e-7) == "1e-7"
    assert render.short_digest("sha256:" + "ab" * 32) == "sha256:abababababab"
    assert render.short_digest(None) == "-"
    assert render.date("2026-07-10T06:41:58.611Z") == "2026-07-10"
    assert render.data_uri("a b&<\n") == "data:text/plain;charset=utf-8;base64,YSBiJjwK"


def test_templates_autoescape_every_value():
    env = render.environment()
    assert env.autoescape is True
    out = env.from_string("<p title='{{ x }}'>{{ x }}</p>").render(x="'><script>x</script>")
    assert out == ("<p title='&#39;&gt;&lt;script&gt;x&lt;/script&gt;'>"
                   "&#39;&gt;&lt;script&gt;x&lt;/script&gt;</p>")


def test_cases_text_tells_workloads_of_one_definition_apart():
    from kistore.site.pages import cases_text, natural_key

    assert cases_text({"cases": [{"axes": {"M": 176, "B": 2}}]}) == "B=2, M=176"
    assert cases_text({"cases": [{"axes": {"M": 1}}, {"axes": {"M": 16}}]}) == "2 cases"
    assert cases_text({"cases": [{"uuid": "x"}]}) is None
    assert cases_text({"cases": []}) is None and cases_text({}) is None
    shown = ["M=64", "M=8", "M=176", "M=1"]
    assert sorted(shown, key=natural_key) == ["M=1", "M=8", "M=64", "M=176"]


def test_identity_says_a_board_submission_in_the_published_pages_words():
    from kistore.site.summary import identity

    board = {"sourceNative": {"source": "sol-execbench", "externalId": "22034",
                              "metrics": {"fast_1_count": 15, "fast_1_total": 16}}}
    assert identity(board, {"inStore": True, "project": "SOL-ExecBench submission 22034"}) == {
        "externalId": "submission/22034", "revision": "submission-22034",
        "revisionFrom": "submission", "cases": 16}
    # an Implementation's own revision wins; another source's id is shown as stored
    assert identity(board, {"revision": "abc123"})["revision"] == "abc123"
    local = {"sourceNative": {"source": "sol-execbench", "externalId": "r1/kernel-3/a",
                              "metrics": {"fast_1_total": 2.5}}}
    assert identity(local, {}) == {"externalId": "r1/kernel-3/a", "revision": None,
                                   "revisionFrom": None, "cases": None}
    other = {"sourceNative": {"source": "kernelbench", "externalId": "7"}}
    assert identity(other, {})["externalId"] == "7" and identity({}, {})["externalId"] is None
