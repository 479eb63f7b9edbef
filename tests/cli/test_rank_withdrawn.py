"""A withdrawn run that ``rank``, ``show`` and ``compare`` would let a reader take as sound.

``rank REF`` with REF withdrawn listed the group without REF and without a word, and a
withdrawn reference run stayed "reference, never ranked", its value the baseline of every
"x reference" ratio of ``show`` (reviewer r83 F2). Now each says so, naming the withdrawal
(its key and reason); the answers on stdout are unchanged but for that mark.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml
from click.testing import CliRunner

from kistore.cli import main

from ..cite.test_citation_formats import CFF, CSL, parse_bibtex
from ..sparse import trust_maintainer, withdraw

WITHDRAWAL = r"withdrawn by SHA256:[A-Za-z0-9+/]{43}: harness bug"


def kistore(store, *args: str):
    result = CliRunner().invoke(main, ["--store", str(store.root), *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def withdrawn(group):
    """The ``group`` store (fast 10 ns, slow 30 ns, ref 100 ns a reference, broken) with
    ``fast`` and the reference ``ref`` withdrawn by a trusted maintainer's notes."""
    trust_maintainer(group)
    for name in ("fast", "ref"):
        subject = group.view("HEAD").find_name("BenchmarkRun", name)
        assert subject is not None
        withdraw(group, subject, as_file=False)
    return group


def test_rank_of_a_withdrawn_run_says_it_is_withdrawn_and_not_listed(withdrawn):
    result = kistore(withdrawn, "rank", "BenchmarkRun/fast")
    assert re.fullmatch(
        rf"warning: BenchmarkRun/fast is {WITHDRAWAL}: it is not ranked, not listed "
        rf"\(--all lists it\)\nwarning: reference run ref is {WITHDRAWAL}: its value is no "
        r"baseline\n", result.stderr), result.stderr
    assert " fast " not in result.stdout
    assert "(reference, never ranked; withdrawn)" in result.stdout


def test_rank_all_lists_the_withdrawn_run_and_says_so(withdrawn):
    result = kistore(withdrawn, "rank", "BenchmarkRun/fast", "--all")
    assert re.match(rf"warning: BenchmarkRun/fast is {WITHDRAWAL}: it is not ranked, listed "
                    "with --all\n", result.stderr), result.stderr
    # msg95 1: these runs name no source, and the row says so as show does
    assert re.search(r"^\s+- .* fast \[evidence: source-native \(as submitted, no source "
                     r"named\)\]  \(withdrawn\)$", result.stdout, re.M)


def test_rank_of_a_withdrawn_reference_says_its_value_is_no_baseline(withdrawn):
    result = kistore(withdrawn, "rank", "BenchmarkRun/ref")
    assert re.fullmatch(rf"warning: BenchmarkRun/ref is {WITHDRAWAL}: it is not ranked, a "
                        r"reference run: listed, its value no baseline\n", result.stderr)
    assert ("ref [evidence: source-native (as submitted, no source named)]  (reference, "
            "never ranked; withdrawn)") in result.stdout


def test_rank_json_marks_the_withdrawn_reference(withdrawn):
    rows = json.loads(kistore(withdrawn, "rank", "BenchmarkRun/slow", "--json").stdout)
    ref = next(r for r in rows if r["name"] == "ref")
    assert (ref["withdrawn"], ref["reason"]) == (True, "reference, never ranked; withdrawn")
    assert [r["name"] for r in rows if r["rank"] is not None] == ["slow"]


def test_show_says_a_reference_ratio_is_against_a_withdrawn_result(withdrawn):
    shown = kistore(withdrawn, "show", "BenchmarkRun/slow").stdout
    line = next(x for x in shown.splitlines() if x.startswith("  x reference "))
    assert re.fullmatch(r"  x reference proj-ref: 3\.333x by latency \(the reference's "
                        r"100 ns \(0\.0001 ms\) / this run's 30 ns \(3e-5 ms\)\); the reference is "
                        rf"{WITHDRAWAL}: a withdrawn result, no baseline", line), line
    data = json.loads(kistore(withdrawn, "show", "BenchmarkRun/slow", "--json").stdout)
    assert re.fullmatch(WITHDRAWAL, data["references"][0]["withdrawal"])


def test_compare_with_a_withdrawn_run_says_so(withdrawn):
    result = kistore(withdrawn, "compare", "BenchmarkRun/slow", "BenchmarkRun/fast")
    assert re.fullmatch(rf"warning: B, fast, is {WITHDRAWAL}: A / B compares with a "
                        r"withdrawn result\n", result.stderr), result.stderr
    assert "A / B = 3" in result.stdout


def test_a_group_with_no_withdrawal_warns_of_none(group):
    assert kistore(group, "rank", "BenchmarkRun/fast").stderr == ""
    assert kistore(group, "compare", "BenchmarkRun/slow", "BenchmarkRun/fast").stderr == ""
    shown = kistore(group, "show", "BenchmarkRun/slow").stdout
    assert "x reference proj-ref: 3.333x by latency (the reference's 100 ns (0.0001 ms) / " \
           "this run's 30 ns (3e-5 ms))\n" in shown


def test_compare_of_a_withdrawn_run_says_why_it_is_unranked(withdrawn):
    """Reviewer r86 F18: compare's text, JSON and the site's compare page named no withdrawal."""
    result = kistore(withdrawn, "compare", "BenchmarkRun/fast", "BenchmarkRun/slow")
    first = result.stdout.splitlines()[0]
    assert re.fullmatch(rf"A: fast sha256:[0-9a-f]{{64}} not ranked \({WITHDRAWAL}\) "
                        r"10 ns \(1e-5 ms\)", first), first
    data = json.loads(kistore(withdrawn, "compare", "BenchmarkRun/fast", "BenchmarkRun/slow",
                              "--json").stdout)
    assert (data["a"]["withdrawn"], data["a"]["reason"]) == (True, "withdrawn")
    assert re.fullmatch(WITHDRAWAL, data["a"]["withdrawal"])
    assert (data["b"]["withdrawn"], data["b"]["reason"], data["b"]["withdrawal"]) == (
        False, None, None)


def test_the_site_compare_page_of_a_withdrawn_run_says_so(withdrawn, tmp_path):
    from kistore.site.build import build_site

    out = tmp_path / "site"
    build_site(withdrawn, out)
    fast = withdrawn.view("HEAD").find_name("BenchmarkRun", "fast")
    page = (out / "runs" / str(fast)[7:23] / "compare" / "index.html").read_text()
    assert '<span class="badge withdrawn">withdrawn</span>' in page
    said = re.search(r'<p class="unranked">A is not ranked: (.*?)</p>', page)
    assert said is not None, page
    assert re.fullmatch(rf"{WITHDRAWAL}; A ÷ B compares with a withdrawn result\.", said[1])
    twin = json.loads((out / "runs" / str(fast)[7:23] / "compare" / "index.json").read_text())
    assert twin["data"]["a"]["withdrawn"] is True


def test_cite_of_a_withdrawn_run_warns_and_cites_it_all_the_same(withdrawn):
    """Reviewer r86 F24: a clean citation of a withdrawn result, without a word."""
    withdrawn.repo.remotes.create("origin", "https://github.com/example/index.git")
    result = kistore(withdrawn, "cite", "BenchmarkRun/fast", "--accessed", "2026-12-04")
    assert re.search(rf"^warning: BenchmarkRun/fast is {WITHDRAWAL}: the citation says it is "
                     r"withdrawn; cite it as a withdrawn result$", result.stderr, re.M), \
        result.stderr
    assert result.stdout.startswith("KernelIndex (2026). fast [Data set] (withdrawn: harness "
                                    "bug). KernelIndex. https://github.com/example/index/blob/")
    assert result.stdout.endswith(
        "\n  accessed:  2026-12-04\n  status:    Withdrawn by the index maintainers: harness "
        "bug\n")
    quiet = kistore(withdrawn, "cite", "BenchmarkRun/slow", "--accessed", "2026-12-04")
    assert "withdrawn" not in quiet.stderr + quiet.stdout.lower()
    assert "status:" not in quiet.stdout


def _cited(store, name: str, fmt: str) -> str:
    if "origin" not in store.repo.remotes.names():
        store.repo.remotes.create("origin", "https://github.com/example/index.git")
    return kistore(store, "cite", f"BenchmarkRun/{name}", "--format", fmt).stdout


def test_cite_of_a_withdrawn_run_says_so_in_every_format(withdrawn):
    """Reviewer r87: the warning went to stderr and a pasted citation hid it. Each format
    carries the withdrawal, stays valid for its consumer, and a run not withdrawn is as
    before."""
    entry = parse_bibtex(_cited(withdrawn, "fast", "bibtex")).entries[0]
    assert entry["note"].startswith("Withdrawn by the index maintainers: harness bug. "
                                    "BenchmarkRun fast, digest sha256:")
    assert not parse_bibtex(_cited(withdrawn, "slow", "bibtex")).entries[0]["note"] \
        .startswith("Withdrawn")
    items = json.loads(_cited(withdrawn, "fast", "csl-json"))
    CSL.validate(items)
    assert items[0]["status"] == "withdrawn"
    assert items[0]["note"].startswith("Withdrawn by the index maintainers: harness bug; "
                                       "digest sha256:")
    sound = json.loads(_cited(withdrawn, "slow", "csl-json"))
    assert "status" not in sound[0] and sound[0]["note"].startswith("digest sha256:")
    cff = yaml.safe_load(_cited(withdrawn, "fast", "cff"))
    CFF.validate(cff)
    assert cff["message"] == ("Withdrawn by the index maintainers: harness bug. If you use "
                              "this result, cite it as a withdrawn result using these "
                              "metadata.")
    assert cff["abstract"] == "Withdrawn by the index maintainers: harness bug"
    assert cff["keywords"][-1] == "withdrawn"
    clean = yaml.safe_load(_cited(withdrawn, "slow", "cff"))
    CFF.validate(clean)
    assert "abstract" not in clean and "withdrawn" not in clean["keywords"]
    facts = json.loads(kistore(withdrawn, "cite", "BenchmarkRun/fast", "--json").stdout)
    assert re.fullmatch(r"SHA256:[A-Za-z0-9+/]{43}", facts["withdrawn"]["keyid"])
    assert facts["withdrawn"]["reason"] == "harness bug"
    assert "withdrawn" not in json.loads(
        kistore(withdrawn, "cite", "BenchmarkRun/slow", "--json").stdout)


def test_an_invalid_withdrawal_does_not_mark_the_citation(group):
    """A withdrawal signed by a key the store does not trust is no withdrawal: the citation
    is the plain one."""
    subject = group.view("HEAD").find_name("BenchmarkRun", "fast")
    assert subject is not None
    withdraw(group, subject, as_file=False)  # the maintainer's key is not in keys.json
    assert "withdrawn" not in _cited(group, "fast", "text").lower()


def test_the_site_cite_block_of_a_withdrawn_run_says_so(withdrawn, tmp_path):
    """The run page's cite block (its four formats and JSON twin) says it, as ``cite``."""
    from kistore.site.build import build_site

    withdrawn.repo.remotes.create("origin", "https://github.com/example/index.git")
    out = tmp_path / "site"
    build_site(withdrawn, out)
    cited = {}
    for name in ("fast", "slow"):
        digest = withdrawn.view("HEAD").find_name("BenchmarkRun", name)
        twin = json.loads((out / "runs" / str(digest)[7:23] / "index.json").read_text())
        cited[name] = twin["data"]["citation"]
    assert cited["fast"]["available"] is True
    assert cited["fast"]["withdrawn"]["reason"] == "harness bug"
    assert "[Data set] (withdrawn: harness bug). KernelIndex." in cited["fast"]["formats"]["text"]
    assert json.loads(cited["fast"]["formats"]["csl-json"])[0]["status"] == "withdrawn"
    assert "withdrawn" not in cited["slow"]
    assert "withdrawn" not in json.dumps(cited["slow"]["formats"])
