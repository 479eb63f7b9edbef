"""One word each for a comparison, an evidence level and a missing source (review r85 F7,
F19): the site says them as ``rank`` and ``show`` do (:mod:`kistore.core.words`)."""

from __future__ import annotations

import json
import re
from pathlib import Path


def run_page(site: Path, name: str) -> tuple[str, str]:
    """The directory and HTML of run NAME's page."""
    for twin in sorted((site / "runs").glob("*/index.json")):
        if json.loads(twin.read_text())["data"]["name"] == name:
            return twin.parent.relative_to(site).as_posix(), \
                (twin.parent / "index.html").read_text()
    raise AssertionError(f"no page of run {name}")


def test_a_run_that_names_no_source_says_no_source_and_as_submitted(demo_site):
    _, page = run_page(demo_site, "gemm-fourth")  # the demo's run with no sourceNative
    assert "as the source reported it" not in page
    correctness = page.split('<section id="correctness"')[1].split("</section>")[0]
    assert "as submitted, with these results:" in correctness
    assert "not stated" not in page.split('<section id="identity"')[1].split("</section>")[0]
    assert re.findall(r'>([^<>]*)</a>\s*</td></tr>', page.split(
        '<th scope="row">Source</th>')[1])[0] == "no source"
    # msg94 F13: not a bare "source-native" beside "no source"
    assert 'title="evidence level">evidence: source-native (as submitted, no source ' \
        'named)</span>' in page
    assert 'title="evidence level">evidence: source-native</span>' not in page
    index = (demo_site / "index.html").read_text()
    assert '<a href="sources/_unspecified/index.html">no source</a>' in index
    assert "_unspecified</" not in index
    source = (demo_site / "sources/_unspecified/index.html").read_text()
    assert '<span aria-current="page">no source</span>' in source


def test_a_run_of_a_source_keeps_the_sources_word(demo_site):
    _, page = run_page(demo_site, "gemm-first")
    assert "as the source reported it, with these results:" in page
    assert 'title="evidence level">evidence: source-native</span>' in page


def test_the_comparison_is_said_by_what_it_ranks(demo_site):
    _, page = run_page(demo_site, "gemm-first")
    assert "by measured latency: mean, lower first" in page
    assert "measured comparison" not in page


TABLE_BADGE = ('<span class="badge ev-source-native" title="evidence level: evidence: '
               'source-native (as submitted, no source named)">evidence: source-native '
               '(as submitted)</span>')
"""A table cell's badge of a run that names no source: short, its title the long form."""


def test_group_and_compare_tables_say_as_submitted_for_a_run_with_no_source(demo_site):
    """msg95 1: the group and compare pages said a bare "source-native" for the run whose
    own page says "as submitted, no source named"."""
    path, _ = run_page(demo_site, "gemm-fourth")
    twin = json.loads((demo_site / path / "index.json").read_text())["data"]
    group_html = (demo_site / twin["links"]["group"]).read_text()
    row = group_html.split("<div class=\"sub\">gemm-fourth")[1].split("</tr>")[0]
    assert TABLE_BADGE in row
    others = group_html.split("<div class=\"sub\">gemm-first")[1].split("</tr>")[0]
    assert '<span class="badge ev-source-native" title="evidence level">evidence: ' \
        'source-native</span>' in others
    compare = (demo_site / twin["links"]["compare"]).read_text()
    assert compare.count(TABLE_BADGE) == 1  # gemm-fourth's side, not #1's
    assert compare.count('title="evidence level">evidence: source-native</span>') == 1
