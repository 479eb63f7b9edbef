"""``compare``, ``cite`` and the policy's caveats carry ``rank``'s marks (reviewer r90b F3, F12).

F3: ``compare BenchmarkRun/ms-as-ns BenchmarkRun/us-a`` printed "rank 1 3.52 ns" and "A / B =
0.001" with no word of KI230 or KI234, and ``cite`` printed the citation with no warning,
while the site's badge says "check it before citing". F12: a policy ranking a time
descending (KI236, a warning the gate lets land) was said by no query, though KI231 was.
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main
from kistore.core.model import Manifest

from ..conftest import git, latency_group, rank_time_descending
from ..query.test_rank_outlier import HINT, WHY  # KI234's words, written once

MEDIAN = "#3 a with 3,700,000 ns, the group's median run"
KI234_LINE = (f"KI234 rank-outlier: ms-as-ns (3.52 ns) is 1,051,136x better than {MEDIAN}: "
              f"{WHY}; {HINT}")
KI234_US_LINE = f"KI234 rank-outlier: us-a (3,520 ns) is 1,051x better than {MEDIAN}: {WHY}; {HINT}"
KI230_ROW = "latencyNs mean 3.52 < 100 ns: likely ms or us written as ns (KI230)"
KI230_PAGE = ("latencyNs mean 3.52 < 100 ns: shorter than any GPU kernel runs; likely "
              "milliseconds or microseconds written as nanoseconds, check it before citing "
              "(KI230)")


@pytest.fixture
def slipped(store, kit):
    """Runs of ~3.7 ms, one in us as ns (3,520), one in ms as ns (3.52, #1): both far ahead of
    the group's median run, #3 "a" (reviewer r90b F2: a block of slips is marked)."""
    docs = latency_group(kit, {"a": 3_700_000, "b": 3_800_000, "us-a": 3_520,
                               "ms-as-ns": 3.52})
    store.add([Manifest.from_document(d) for d in docs], commit=True)
    return store


def _run(runner, store, *args):
    done = runner.invoke(main, ["--store", str(store.root), *args])
    assert done.exit_code == 0, done.output
    return done


def test_compare_marks_each_side_as_rank_marks_its_row(slipped, runner):
    done = _run(runner, slipped, "compare", "BenchmarkRun/ms-as-ns", "BenchmarkRun/us-a")
    lines = done.stdout.splitlines()
    assert lines[0].endswith(" rank 1 3.52 ns (3.52e-6 ms)  (!) 1,051,136x ahead of #3: see "
                             f"below (KI234)  (!) {KI230_ROW}")
    assert lines[1].endswith(" rank 2 3,520 ns (0.00352 ms)  (!) 1,051x ahead of #3: see below "
                             "(KI234)")  # a slip too: over 100x ahead of the median run
    assert lines[2] == "A / B = 0.001 (by measured latency, mean ascending)"
    assert lines[3:5] == [f"(!) {KI234_LINE}", f"(!) {KI234_US_LINE}"]
    data = json.loads(_run(runner, slipped, "compare", "BenchmarkRun/ms-as-ns",
                           "BenchmarkRun/us-a", "--json").stdout)
    assert data["a"]["outlier"]["ratio"] == 3_700_000 / 3.52
    assert data["a"]["outlier"]["rule"] == "KI234"
    assert data["a"]["implausibleLatency"]["said"] == "latencyNs mean 3.52 < 100 ns"
    assert data["b"]["outlier"]["ratio"] == 3_700_000 / 3_520
    assert data["b"]["implausibleLatency"] is None
    # B is the marked one (compared with #1 by default): its side is marked, said once
    lines = _run(runner, slipped, "compare", "BenchmarkRun/a").stdout.splitlines()
    assert lines[0].endswith(" rank 3 3,700,000 ns (3.7 ms)")
    assert lines[1].endswith(f"(!) 1,051,136x ahead of #3: see below (KI234)  (!) {KI230_ROW}")
    assert lines[2] == "A / B = 1,051,136 (by measured latency, mean ascending)"  # not 1.051e+6
    assert [line for line in lines if line.startswith("(!)")] == [f"(!) {KI234_LINE}"]
    plain = _run(runner, slipped, "compare", "BenchmarkRun/a", "BenchmarkRun/b").stdout
    assert "(!)" not in plain


def test_cite_warns_before_the_citation_which_is_unchanged(slipped, runner):
    settings = slipped.root / "kistore.toml"
    settings.write_text(settings.read_text().replace(
        "[cite]\n", '[cite]\npermalink = "https://example.org/o/r/blob/{commit}/{path}"\n'))
    git(slipped.root, "commit", "-qam", "permalink")
    done = _run(runner, slipped, "cite", "BenchmarkRun/ms-as-ns", "--accessed", "2026-12-31")
    warnings = [line for line in done.stderr.splitlines() if "(!)" in line]
    assert warnings == [f"warning: BenchmarkRun/ms-as-ns: (!) {KI234_LINE}; check it before "
                        "citing", f"warning: BenchmarkRun/ms-as-ns: (!) {KI230_PAGE}"]
    assert "(!)" not in done.stdout and "KI23" not in done.stdout
    assert done.stdout.startswith("KernelIndex (20") and " ms-as-ns [Data set]. " in done.stdout
    slip = _run(runner, slipped, "cite", "BenchmarkRun/us-a", "--accessed", "2026-12-31")
    assert [line for line in slip.stderr.splitlines() if "(!)" in line] == [
        f"warning: BenchmarkRun/us-a: (!) {KI234_US_LINE}; check it before citing"]
    other = _run(runner, slipped, "cite", "BenchmarkRun/b", "--accessed", "2026-12-31")
    assert "(!)" not in other.stderr  # plausible: nothing to check
    # the citation itself: the same lines as any run's, no caveat in it
    assert len(done.stdout.splitlines()) == len(other.stdout.splitlines()) == 7
    facts = json.loads(_run(runner, slipped, "cite", "BenchmarkRun/ms-as-ns", "--json").stdout)
    assert f"  digest:    {facts['digest']}\n" in done.stdout
    assert "KI23" not in json.dumps(facts)


KI236 = ("warning: store/policy/ranking.json:/families/synthetic/order: family synthetic ranks "
         "/timing/latencyNs/mean, whose name says it is a time (in ns), descending: `rank` "
         "would put the slowest run of each group first (KI236 policy-time-ranked-descending, "
         "a warning of `kistore verify` and the gate: rank a time `\"order\": \"ascending\"` "
         "(the fastest first); keep `descending` only for a metric where more time is better "
         "(time saved), and say so in the pull request)")


@pytest.mark.parametrize("args", [["rank", "BenchmarkRun/a"], ["show", "BenchmarkRun/a"],
                                  ["compare", "BenchmarkRun/a"],
                                  ["rank", "BenchmarkRun/a", "--json"]])
def test_a_time_ranked_descending_is_said_by_every_query_as_ki231_is(slipped, runner, args):
    rank_time_descending(slipped.root)
    done = _run(runner, slipped, *args)
    assert KI236 in done.stderr.splitlines(), done.stderr
    git(slipped.root, "commit", "-qam", "descending")  # lands (a warning): still said
    assert KI236 in _run(runner, slipped, *args).stderr.splitlines()


def test_rank_by_a_time_descending_puts_the_slowest_first_and_says_so(slipped, runner):
    rank_time_descending(slipped.root)
    done = _run(runner, slipped, "rank", "BenchmarkRun/a")
    assert done.stdout.splitlines()[1].split()[:2] == ["1", "3,800,000"]
    assert done.stderr.count("KI236") == 1
    git(slipped.root, "checkout", "-q", "--", "store/policy/ranking.json")
    ascending = _run(runner, slipped, "rank", "BenchmarkRun/a")
    assert "KI236" not in ascending.stderr
    assert ascending.stdout.splitlines()[1].split()[:2] == ["1", "3.52"]


def test_export_says_a_time_ranked_descending_as_rank_does(slipped, runner, tmp_path):
    # reviewer r91 F3: export's rank column ranked the slowest first, unsaid
    rank_time_descending(slipped.root)
    git(slipped.root, "commit", "-qam", "descending")
    done = runner.invoke(main, ["--store", str(slipped.root), "export", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
    assert KI236 in done.stderr.splitlines(), done.stderr


def test_a_ratio_past_the_largest_double_is_said_never_inf(store, kit, runner, tmp_path):
    # a quotient overflowing the doubles (9e15 / 5e-324) printed "inf" and "inf×"
    docs = kit.group_docs([{"metrics": {"score": 9e15}}, {"metrics": {"score": 5e-324}}])
    store.add([Manifest.from_document(d) for d in docs], commit=True)
    path = store.root / "store/policy/ranking.json"
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = {"comparison": "source-native", "order": "ascending",
                                       "metric": "/sourceNative/metrics/score", "unit": "score"}
    path.write_text(json.dumps(policy))
    git(store.root, "commit", "-qam", "rank by score, the lowest first")
    compared = _run(runner, store, "compare", "BenchmarkRun/run-0", "BenchmarkRun/run-1").stdout
    assert "A / B = more than 1.8e308 (by" in compared and "inf" not in compared, compared
    shown = _run(runner, store, "show", "BenchmarkRun/run-0").stdout
    assert "  more than 1.8e308x the value of #1 run-1 (" in shown, shown
    low = _run(runner, store, "compare", "BenchmarkRun/run-1", "BenchmarkRun/run-0").stdout
    assert "A / B = less than 5e-324 (not 0: past double precision) (by" in low, low
    site = tmp_path / "site"
    _run(runner, store, "site", "build", str(site))
    pages = "".join(p.read_text() for p in site.rglob("index.html"))
    assert ">more than 1.8e308×</td>" in pages and "inf×" not in pages
    data = [json.loads(p.read_text()) for p in site.rglob("groups/*/index.json")]
    assert [[r["ratioToFirst"] for r in d["data"]["ranked"]] for d in data] == [[1.0, None]]
    # (JSON holds no infinity: null there, as for a ratio unknown)
