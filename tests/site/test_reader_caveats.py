"""What a reader of the site is told beside the numbers (fresh05 LOW 4, 5, 9, 10).

LOW 4: the run page printed the observed day as stated (a run's local day, no zone) while
the export's ``observedAt`` is UTC: another day for a run stated near midnight.
LOW 5: the group page of a workload not in the store ranked with none of the caveat
``rank`` and ``show`` print. LOW 9: a build's permalinks named commits no remote holds,
without the warning ``kistore cite`` prints. LOW 10: "1.02× the reference" was the
source's scoring-baseline ratio beside a group "Reference Implementation" the run is
0.998× of, and the page rendered none of the per-reference ratios ``show`` prints.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.site import summary
from kistore.site.build import build_site

from ..export.conftest import duck
from .conftest import build
from .demo import add_run, digest, push_to_server, run

RUN = "runs/384a96d0ed687458/"
"""The published record's page (its workload and implementation were never published)."""


def _twin(out: Path, page: str) -> dict:
    return json.loads((out / page / "index.json").read_text())


def _page(out: Path, page: str) -> str:
    return html.unescape((out / page / "index.html").read_text())


@pytest.mark.parametrize(("stated", "said"), [
    ("2026-11-30T23:30:00.123456789-05:00",
     "2026-12-01 UTC (2026-11-30 at the run's stated offset -05:00)"),
    ("2026-12-01T00:30:00+02:00", "2026-11-30 UTC (2026-12-01 at the run's stated offset +02:00)"),
    ("2026-07-10T06:41:58Z", "2026-07-10 UTC"),
    ("2026-07-10T06:41:58+02:00", "2026-07-10 UTC"),
    ("2026-07-10t06:41:58z", "2026-07-10 UTC"),
    ("9999-12-31T23:59:59-12:00", "9999-12-31 (as stated, offset -12:00)"),
    ("2026-07-10", "-"), (None, "-")])
def test_the_observed_day_is_utc_and_says_the_stated_day_when_it_differs(stated, said):
    assert summary.observed_day(stated) == said


def test_the_run_page_observed_day_is_the_exports_utc_day(runner, fresh_demo, tmp_path):
    late = add_run(fresh_demo, "gemm-late", 110_000,
                   extra={"observedAt": "2026-11-30T23:30:00.123456789-05:00"})
    out = tmp_path / "site"
    build_site(fresh_demo, out)
    page = (out / "runs" / late[7:23] / "index.html").read_text()
    assert ('observed <time datetime="2026-11-30T23:30:00.123456789-05:00" '
            'title="2026-11-30T23:30:00.123456789-05:00">2026-12-01 UTC (2026-11-30 at the '
            "run&#39;s stated offset -05:00)</time>") in page
    exported = tmp_path / "export"
    done = runner.invoke(main, ["--store", str(fresh_demo.root), "export", str(exported)])
    assert done.exit_code == 0, done.output
    assert duck(exported, "SELECT strftime(observedAt AT TIME ZONE 'UTC', '%Y-%m-%d') "
                          "FROM {runs} WHERE name = 'gemm-late'") == [("2026-12-01",)]


def test_the_group_of_a_workload_not_stored_says_rank_and_shows_caveat(demo_site):
    data = _twin(demo_site, RUN)["data"]
    group = data["links"]["group"].removesuffix("index.html")
    workload = data["workload"]["digest"]
    said = (f"the workload {workload} is not in this store, so the group holds only the runs "
            "of it stored here; other runs of the same workload elsewhere are not ranked "
            "with it")
    twin = _twin(demo_site, group)["data"]
    assert twin["caveats"] == [
        said, "run sol-submission-20464 names an Implementation this store does not hold: "
        "its project and role are unknown, so it ranks as a candidate (a reference "
        "implementation's run would rank as one)"]
    page = _page(demo_site, group)
    assert f'<span class="badge warn">(!) caveat</span> {said}</p>' in page
    # a group whose workload and implementations are stored says none
    gemm = _twin(demo_site, _twin(demo_site, "runs/" + digest(run(
        "gemm-first", "triton-a", 100_000, title="Fast GEMM on H100"))[7:23] + "/")[
            "data"]["links"]["group"].removesuffix("index.html"))
    assert gemm["data"]["caveats"] == []


def test_the_run_page_of_a_workload_not_stored_says_the_caveat_at_its_rank(demo_site):
    """fresh09 L1: "Rank 1 of 1" / "#1 of its group" said with no caveat on the run page."""
    data = _twin(demo_site, RUN)["data"]
    workload = data["workload"]["digest"]
    said = (f"the workload {workload} is not in this store, so the group holds only the runs "
            "of it stored here; other runs of the same workload elsewhere are not ranked "
            "with it")
    assert (data["rank"], data["groupSize"], data["groupCaveat"]) == (2, 2, said)
    page = _page(demo_site, RUN)
    standing = page[page.index('id="standing"'):page.index('<p class="meta">')]
    assert (f'Rank 2</span> of 2 in its <a href="../../{data["links"]["group"]}">comparison '
            f'group</a></p><p class="outlier group-caveat"><span class="badge warn">(!) caveat'
            f"</span> {said}</p>") in re.sub(r">\s+<", "><", standing)
    # a run whose workload is stored says none
    gemm = "runs/" + digest(run("gemm-first", "triton-a", 100_000,
                                title="Fast GEMM on H100"))[7:23] + "/"
    assert _twin(demo_site, gemm)["data"]["groupCaveat"] is None
    assert "stored here" not in _page(demo_site, gemm)


def test_the_run_page_names_the_baseline_of_each_ratio(demo_site):
    first = "runs/" + digest(run("gemm-first", "triton-a", 100_000,
                                 title="Fast GEMM on H100"))[7:23] + "/"
    data = _twin(demo_site, first)["data"]
    [ref] = data["references"]
    assert ref["speedup"] == 2.0  # the reference's 200,000 ns / this run's 100,000 ns
    # the source states 1.5 (its own baseline): no reference run of the group gives it
    assert data["summary"][0] == {
        "label": "x reference", "text": "1.50× the reference",
        "against": "the source's speedup, against its own baseline: none of this group's "
                   "reference runs gives that ratio"}
    page = _page(demo_site, first)
    assert ("<span>1.50× the reference</span> <small class=\"muted\">(the source's speedup, "
            "against its own baseline: none of this group's reference runs gives that "
            "ratio)</small> · <span>100 trials</span>") in page
    assert ('<p class="muted" id="reference-ratios">Against each reference run of its group, '
            "by latency (the reference's latency / this run's: above 1×, this run is "
            f'faster): <a href="../../{ref["href"]}">{ref["project"]}</a> 2.00×</p>') in page
    # the section order of the published page (shared/examples/run-page.md) is kept
    at = [page.index(s) for s in ('id="standing"', 'id="source-summary"',
                                  'id="reference-ratios"', 'id="identity"')]
    assert at == sorted(at)


@pytest.mark.parametrize(("stated", "against"), [
    (1.019, "the source's avg_speedup, against SOL-ExecBench Scoring Baseline"),
    (1.0191, "the source's avg_speedup, against SOL-ExecBench Scoring Baseline"),
    (1.05, "the source's avg_speedup, against its own baseline: none of this group's "
           "reference runs gives that ratio")])
def test_a_stated_speedup_names_the_reference_run_that_gives_it(stated, against):
    # submission 25504 of the demo (make demo): its avg_speedup 1.019 is the Scoring
    # Baseline's 380,895 ns / its 373,792 ns, while the Reference Implementation is faster
    refs = [{"name": "b", "project": "SOL-ExecBench SOL Bound", "speedup": 307661 / 373792},
            {"name": "r", "project": "SOL-ExecBench Reference Implementation",
             "speedup": 372990 / 373792},
            {"name": "s", "project": "SOL-ExecBench Scoring Baseline",
             "speedup": 380895 / 373792}]
    spec = {"sourceNative": {"metrics": {"avg_speedup": stated}}}
    [item] = summary.source_summary(spec, refs)
    assert item["against"] == against
    assert summary.source_summary(spec, [])[0]["against"] == (
        "the source's avg_speedup, against its own baseline")


PUSHED = "https://github.com/example/kernelindex/blob/{commit}/{path}"


def _git(path: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=path, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_permalinks_to_commits_no_remote_holds_are_warned_of_once(runner, fresh_demo,
                                                                   tmp_path):
    made = dict(line.split(" ", 1)[::-1] for line in _git(
        fresh_demo.root, "log", "--format=%H %s").splitlines())
    firsts = sorted({made["a-catalog"], made["b-published"]})
    built = build(runner, fresh_demo, tmp_path / "s1")
    assert built.exit_code == 0, built.output
    nowhere = [line for line in built.stderr.splitlines() if "remote-tracking" in line]
    assert nowhere == [
        f"warning: 14 of 14 run pages cite 2 commits ({firsts[0][:12]}, {firsts[1][:12]}) "
        "on no remote-tracking branch (`git branch -r --contains` lists none): their "
        "permalinks lead nowhere until pushed; push the branch (then `git fetch`) and "
        "build again before you publish the site"]
    # pushed to a server's main: nothing to say
    branch = push_to_server(fresh_demo, tmp_path / "server.git")
    built = build(runner, fresh_demo, tmp_path / "s2", "--permalink", PUSHED)
    assert built.exit_code == 0, built.output
    assert "remote" not in built.stderr, built.stderr
    # a run added on a pull request's branch, pushed there only: the off-main warning
    late = add_run(fresh_demo, "gemm-pr", 110_000)
    head = _git(fresh_demo.root, "rev-parse", "HEAD")
    _git(fresh_demo.root, "push", "-q", "origin", "HEAD:refs/heads/pr-1")
    _git(fresh_demo.root, "fetch", "-q", "origin")
    built = build(runner, fresh_demo, tmp_path / "s3", "--permalink", PUSHED)
    assert built.exit_code == 0, built.output
    assert [line for line in built.stderr.splitlines() if "remote" in line] == [
        f"warning: 1 of 15 run pages cites a commit ({head[:12]}) only on branches that "
        f"are no remote's main line (origin/{branch}): a squash or rebase merge lands the "
        "objects in other commits, and these may leave the server, so its permalink may "
        "move or lead nowhere; build the site after they land: `git fetch`, then `kistore "
        f"site build OUT --at origin/{branch}`"]
    assert late  # the run the warning counts
