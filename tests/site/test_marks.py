"""Every page that shows a rank marks a likely unit slip, in ``rank``'s words (reviewer r90b).

F3: a merged 3.52 "ns" run (KI230) far ahead of its group (KI234) was marked on its own run
page only: the group's leaderboard, its ``index.json`` and the workload page's "#1" listed
it with no mark, and the ratios read ``1.00e+3×``. F12: a policy ranking a time descending
(KI236, a warning the gate lets land) was said on no page.
"""

from __future__ import annotations

import json
import re

import pytest

from kistore.cli import main
from kistore.core.model import Manifest

from ..conftest import git, latency_group, rank_time_descending

KI230_ROW = "latencyNs mean 3.52 < 100 ns: likely ms or us written as ns (KI230)"
KI234_ROW = "1,051,136x ahead of #3: see below (KI234)"  # 3,700,000 / 3.52, the median run "a"
KI234_US_ROW = "1,051x ahead of #3: see below (KI234)"  # 3,700,000 / 3,520: a slip too (r90b F2)


def page(site, path: str, name: str = "index.html") -> str:
    return (site / path / name).read_text()


@pytest.fixture
def slipped(store, kit, runner, tmp_path):
    """The reviewer's group: two runs of ~3.7 ms, one in us as ns (3,520), one in ms as ns
    (3.52, #1); both slips are marked against the median run, #3 "a" (3,700,000 ns); the site
    built. Returns (site, digests, store)."""
    docs = latency_group(kit, {"a": 3_700_000, "b": 3_800_000, "us-a": 3_520,
                               "ms-as-ns": 3.52})
    added = store.add([Manifest.from_document(d) for d in docs], commit=True)
    digests = {m.name: str(m.digest) for m in added if m.kind == "BenchmarkRun"}
    digests["workload"] = str(added[2].digest)
    site = tmp_path / "site"
    built = runner.invoke(main, ["--store", str(store.root), "site", "build", str(site)])
    assert built.exit_code == 0, built.output
    return site, digests, store


def _hex(digest: str) -> str:
    return digest.removeprefix("sha256:")[:16]


def _group_dir(site, digests) -> str:
    run = json.loads(page(site, f"runs/{_hex(digests['a'])}", "index.json"))
    return run["data"]["links"]["group"].removesuffix("index.html")


def test_the_leaderboard_marks_its_rows_as_rank_does(slipped):
    site, digests, _ = slipped
    group = _group_dir(site, digests)
    html = page(site, group)
    first = html.index("ms-as-ns</div>")
    second = html.index("us-a</div>")
    row = html[first:second]
    assert (f'<div class="mark"><span class="badge warn">(!)</span> {KI234_ROW}</div>'
            f'<div class="mark"><span class="badge warn">(!)</span> '
            f'{KI230_ROW.replace("<", "&lt;")}</div>') in row
    assert (f'us-a</div><div class="mark"><span class="badge warn">(!)</span> {KI234_US_ROW}'
            '</div>') in html
    assert html.count('<div class="mark">') == 3  # "a" and "b" are plausible
    assert ('id="outlier"><span class="badge warn">(!)</span> KI234 rank-outlier: ms-as-ns '
            '(3.52 ns) is 1,051,136x better than #3 a with 3,700,000 ns, the group&#39;s median '
            'run: a value 100x or more ahead is what a value in another unit reads as') in html
    assert ('<p class="outlier"><span class="badge warn">(!)</span> KI234 rank-outlier: us-a '
            '(3,520 ns) is 1,051x better than #3 a with 3,700,000 ns') in html
    assert "check it before citing</p>" in html
    # the ÷ #1 column: whole and grouped, never 1.00e+3×; and as the mark writes the ratio
    # (3,700,000 / 3.52 = 1,051,136.4: "1,051,136x ahead", was "1,050,000×" beside it, r92 F7)
    assert re.findall(r">([^<>]*×)</td>", html) == ["1.00×", "1,000×", "1,051,136×",
                                                     "1,079,545×"]
    assert "e+" not in html
    data = json.loads(page(site, group, "index.json"))["data"]
    ranked = data["ranked"]
    assert [r["name"] for r in ranked] == ["ms-as-ns", "us-a", "a", "b"]
    median = {"digest": digests["a"], "name": "a", "value": 3_700_000, "rank": 3}
    assert ranked[0]["outlier"] == {"rule": "KI234", "ratio": 3_700_000 / 3.52, "factor": 100,
                                    "over": median}
    assert ranked[1]["outlier"] == {"rule": "KI234", "ratio": 3_700_000 / 3_520, "factor": 100,
                                    "over": median}
    assert ranked[0]["implausibleLatency"] == {
        "rule": "KI230", "pointer": "/spec/timing/latencyNs/mean",
        "said": "latencyNs mean 3.52 < 100 ns"}
    assert ranked[0]["marks"] == [KI234_ROW, KI230_ROW]
    assert ranked[1]["marks"] == [KI234_US_ROW]
    assert [(r["outlier"], r["implausibleLatency"], r["marks"]) for r in ranked[2:]] == [
        (None, None, [])] * 2
    assert [o["said"][:66] for o in data["outliers"]] == [
        "KI234 rank-outlier: ms-as-ns (3.52 ns) is 1,051,136x better than #",
        "KI234 rank-outlier: us-a (3,520 ns) is 1,051x better than #3 a wit"]
    assert data["policyCaveats"] == []


def test_the_workload_page_marks_its_first(slipped):
    site, digests, _ = slipped
    workload = f"workloads/{_hex(digests['workload'])}"
    html = page(site, workload)
    assert ('ms-as-ns</a><div class="mark"><span class="badge warn">(!)</span> 1,051,136x '
            'ahead of #3 (KI234)</div><div class="mark"><span class="badge warn">(!)</span> '
            'latencyNs mean 3.52 &lt; 100 ns: likely ms or us written as ns (KI230)</div>') \
        in html
    groups = json.loads(page(site, workload, "index.json"))["data"]["groups"]
    assert groups[0]["first"]["marks"] == ["1,051,136x ahead of #3 (KI234)", KI230_ROW]


def test_the_run_page_says_the_lead_as_rank_does(slipped):
    site, digests, _ = slipped
    html = page(site, f"runs/{_hex(digests['ms-as-ns'])}")
    assert ('id="outlier"><span class="badge warn">(!) 1,051,136x ahead of #3</span> KI234 '
            'rank-outlier: ms-as-ns (3.52 ns) is 1,051,136x better than #3 a with 3,700,000 '
            'ns') in html
    assert ">a</a>)</p>" in html and "(#3: <a href=" in html  # the median run, linked
    assert "e+3" not in html
    assert ('this run states latencyNs mean 3.52 &lt; 100 ns: shorter than any GPU kernel '
            'runs; likely milliseconds or microseconds written as nanoseconds, check it before '
            'citing (KI230)</p>') in html
    data = json.loads(page(site, f"runs/{_hex(digests['ms-as-ns'])}", "index.json"))["data"]
    assert data["outlier"]["mark"] == "1,051,136x ahead of #3"


def test_a_time_ranked_descending_is_said_on_the_group_page(slipped, runner):
    """F12: KI236 lets the policy land; the group page then says it above the leaderboard."""
    site, digests, store = slipped
    rank_time_descending(store.root)
    git(store.root, "commit", "-qam", "rank by latency, descending")
    out = site.parent / "site2"
    built = runner.invoke(main, ["--store", str(store.root), "site", "build", str(out)])
    assert built.exit_code == 0, built.output
    group = _group_dir(out, digests)
    said = ("store/policy/ranking.json:/families/synthetic/order: family synthetic ranks "
            "/timing/latencyNs/mean, whose name says it is a time (in ns), descending: `rank` "
            "would put the slowest run of each group first (KI236 policy-time-ranked-"
            "descending, a warning of `kistore verify` and the gate: rank a time `\"order\": "
            "\"ascending\"` (the fastest first); keep `descending` only for a metric where "
            "more time is better (time saved), and say so in the pull request)")
    assert json.loads(page(out, group, "index.json"))["data"]["policyCaveats"] == [said]
    assert ('<p class="outlier policy-caveat"><span class="badge warn">(!) ranking policy</span> '
            + said.replace('"', "&#34;") + "</p>") in page(out, group)
    assert json.loads(page(site, group, "index.json"))["data"]["policyCaveats"] == []
