"""`kistore site build` / `verify`: layout, determinism, per-page commits, incremental
rebuilds, escaping, the published record's page, JSON twins, and the CLI's answers."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import subprocess
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.site.build import BUILD_FILE, CACHE_FILE, build_site, verify_site
from kistore.store import Store

from ..conftest import SHARED, git
from .conftest import files
from .demo import PERMALINK, PUBLISHED, XSS_AUTHOR, XSS_TITLE, add_run, build_demo_store
from .links import check_site

RUN = "runs/384a96d0ed687458/"
COMMIT_META = re.compile(r'<meta name="kistore-commit" content="([0-9a-f]{40})">')


def page_dirs(out: Path) -> set[str]:
    return {p.parent.relative_to(out).as_posix() for p in out.rglob("index.html")}


def twin(out: Path, page: str) -> dict:
    return json.loads((out / page / "index.json").read_text())


def commits(store: Store) -> dict[str, str]:
    """Commit id by subject line (the demo store's commits have unique subjects)."""
    log = git(store.root, "log", "--format=%H %s")
    return {line.split(" ", 1)[1]: line.split(" ", 1)[0] for line in log.splitlines()}


def test_demo_site_has_every_page_with_its_twin(demo_store, demo_site):
    dirs = page_dirs(demo_site)
    kinds: dict[str, int] = {}
    for d in dirs:
        kinds[d.split("/")[0] + ("/compare" if d.endswith("/compare") else "")] = \
            kinds.get(d.split("/")[0] + ("/compare" if d.endswith("/compare") else ""), 0) + 1
    # 14 runs; the orphan (protocol not in the store) has no group and no compare page
    assert kinds == {".": 1, "runs": 14, "runs/compare": 13, "names": 14, "groups": 4,
                     "workloads": 3, "sources": 3}
    assert {"sources/demo-source", "sources/sol-execbench", "sources/_unspecified",
            "names/sol-submission-20464", RUN.rstrip("/"),
            "workloads/d47d94513f5c675b"} <= dirs  # the published record's dangling workload
    for d in dirs:
        data = twin(demo_site, d)
        assert data["kistoreSite"] == 1 and data["site"] == "KernelIndex demo"
        assert data["path"] == ("" if d == "." else d + "/")
    assert {p.name for p in demo_site.iterdir() if p.is_file()} == {
        "index.html", "index.json", "site.css", "site.js", BUILD_FILE, CACHE_FILE}
    # the index lists workloads with what tells one of a definition from another
    assert [(w["label"], w["cases"]) for w in twin(demo_site, ".")["data"]["workloads"]] == [
        ("gemm_n_4096_k_4096", "3 cases"), ("softmax_1024", None),
        ("025_moe_expert_parallel_execution_backward", None)]
    assert '>gemm_n_4096_k_4096</a> <span class="muted">3 cases</span>' in \
        (demo_site / "index.html").read_text()
    build = json.loads((demo_site / BUILD_FILE).read_text())
    assert build["commit"] == commits(demo_store)["c-settings"]
    assert build["parameters"] == {"permalink": PERMALINK, "comparison": None}
    assert build["notes"] is None and build["pages"] == 52


def test_same_commit_gives_byte_identical_site(demo_store, demo_site, tmp_path):
    again = tmp_path / "again"
    report = build_site(demo_store, again)
    assert report.rendered == report.pages == 52
    assert files(again) == files(demo_site)
    assert (again / CACHE_FILE).read_bytes() == (demo_site / CACHE_FILE).read_bytes()


def test_no_wall_clock_in_pages(demo_site):
    """Dates on pages come from the data: manifests and commits, never the build's clock."""
    import datetime as dt

    today = dt.datetime.now(dt.UTC).date().isoformat()
    for name, content in files(demo_site).items():
        assert today.encode() not in content, name
    run = (demo_site / RUN / "index.html").read_text()
    assert '<span class="accessed" data-accessed>the date you read this</span>' in run


def test_every_page_states_its_commit_and_that_commit_rebuilds_it(demo_store, demo_site,
                                                                   tmp_path):
    ids = commits(demo_store)
    stated = {}
    for d in page_dirs(demo_site):
        page = (demo_site / d / "index.html").read_text()
        [meta] = COMMIT_META.findall(page)
        assert f'<code class="commit" id="page-commit">{meta}</code>' in page
        assert twin(demo_site, d)["commit"] == meta
        stated[d] = meta
    # kistore.toml changed last (the site's name is on every page): every page is of HEAD
    assert set(stated.values()) == {ids["c-settings"]}
    # one more run in the H100 GEMM group: pages it does not touch keep their commit
    store = build_demo_store(tmp_path / "store")
    add_run(store, "gemm-new", 110_000)
    out = tmp_path / "site"
    build_site(store, out)
    new = commits(store)["add gemm-new"]
    group = twin(out, "runs/" + _short(store, "gemm-first"))["data"]["links"]["group"]
    assert twin(out, group.removesuffix("index.html"))["commit"] == new
    softmax = "runs/" + _short(store, "softmax-a")
    assert twin(out, softmax)["commit"] == ids["c-settings"]
    # and a build at the stated commit writes that page byte for byte
    old = tmp_path / "old"
    build_site(store, old, at=ids["c-settings"])
    for name in ("index.html", "index.json"):
        assert (old / softmax / name).read_bytes() == (out / softmax / name).read_bytes()


def _short(store: Store, name: str) -> str:
    return str(store.read(f"BenchmarkRun/{name}").digest)[7:23] + "/"


def test_links_are_relative_and_none_is_broken(demo_site):
    problems, external, checked = check_site(demo_site)
    assert problems == []
    assert checked > 500
    # outside the site: only permalinks (from the trusted template) and data: downloads
    assert external - {"data:"}
    assert all(url.startswith("https://github.com/example/kernelindex/blob/")
               for url in external - {"data:"})
    for name, content in files(demo_site).items():
        if name.endswith(".html"):
            assert b'href="/' not in content and b'src="/' not in content, name
            assert b"file://" not in content, name


def test_script_in_a_title_renders_as_text(demo_store, demo_site):
    xss = str(demo_store.read("BenchmarkRun/gemm-xss").digest)[7:23]
    page = (demo_site / "runs" / xss / "index.html").read_text()
    assert f'<h1 id="title">{html.escape(XSS_TITLE, quote=False)}</h1>' in page
    assert "&lt;img src=x onerror=&#34;alert(2)&#34;&gt;" in page and XSS_AUTHOR not in page
    for name, content in files(demo_site).items():
        if not name.endswith(".html"):
            continue
        text = content.decode()
        assert "<script>alert" not in text and "<img src=x" not in text, name
        assert "<b>bold</b>" not in text, name
        # the only script is the site's own, optional one
        assert re.findall(r"<script[^>]*>", text) == [
            f'<script src="{"../" * name.count("/")}site.js" defer>'], name
    assert twin(demo_site, f"runs/{xss}")["data"]["title"] == XSS_TITLE  # data as it is


PUBLISHED_SUMMARY = "SOL score 0.5125 · 1.04x the reference · 16 of 16 cases faster"
"""Item 4 of the published run page (shared/examples/run-page.md), as it writes it."""


def test_the_published_summary_line_is_the_published_pages():
    page = SHARED / "examples" / "run-page.md"
    if not page.is_file():
        pytest.skip(f"needs the published run page, {page} (set KISTORE_SHARED)")
    [item] = re.findall(r"^4\. \*\*Source summary line\*\*: (.*?) \(from", page.read_text(),
                        re.S | re.M)
    assert " ".join(item.split()) == PUBLISHED_SUMMARY


def test_published_record_page_shows_digest_protocol_environment_bytes_and_cite(
        demo_store, demo_site):
    page = (demo_site / RUN / "index.html").read_text()
    assert f'<code class="digest full" id="run-digest">{PUBLISHED["run"]}</code>' in page
    assert "SOL-ExecBench evaluation stack v1.1" in page  # protocol: harness and version
    assert "harness_reported" in page and "sol_execbench_leaderboard" in page
    assert "NVIDIA B200" in page and "sm_100" in page  # environment
    # item 4 of the published page, its "x" written "×"; the score rounded there, while the
    # standing line prints the stored 0.51252 exactly
    summary = [item["text"] for item in twin(demo_site, RUN)["data"]["summary"]]
    assert " · ".join(summary) == PUBLISHED_SUMMARY.replace("x the", "× the")
    # and which baseline the source's ratio is against (fresh05 LOW 10): the group holds no
    # reference run to name
    assert "<span>SOL score 0.5125</span> · <span>1.04× the reference</span> <small " \
        "class=\"muted\">(the source&#39;s avg_speedup, against its own baseline)</small> · " \
        "<span>16 of 16 cases faster</span>" in page
    assert "sol_score, higher first</span>\n        · value 0.51252 score" in page
    # the canonical manifest, byte for byte: unescaped, it hashes to the digest
    shown = dict(re.findall(r'<pre class="canonical" data-digest="(sha256:[0-9a-f]{64})">'
                            r"(.*?)</pre>", page, re.S))
    assert set(shown) == set(PUBLISHED.values())
    for digest, text in shown.items():
        assert "sha256:" + hashlib.sha256(html.unescape(text).encode()).hexdigest() == digest
    assert html.unescape(shown[PUBLISHED["run"]]).encode() == \
        demo_store.view("HEAD").object_bytes(demo_store.resolve(PUBLISHED["run"]))
    # the cite block: permalink to the first-adding commit, digest, access date
    first = commits(demo_store)["b-published"]
    link = PERMALINK.format(commit=first, path="store/objects/sha256/38/"
                            "4a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6.json")
    assert f'<a class="permalink" href="{link}">' in page
    assert f"commit <code>{first}</code>" in page
    data = twin(demo_site, RUN)["data"]
    assert data["citation"]["permalink"] == link and data["citation"]["accessed"] is None
    assert "urldate" not in data["citation"]["formats"]["bibtex"]
    assert data["workload"]["inStore"] is False and data["implementation"]["inStore"] is False
    assert "The workload is not in the store" in page
    assert "implementation not in the store" in page
    assert (data["rank"], data["groupSize"], data["comparison"]["name"]) == (2, 2,
                                                                            "source-native")


def test_run_twin_agrees_with_kistore_show(runner, demo_store, demo_site):
    for name in ("gemm-tie-a", "gemm-novalue", "sol-submission-20464", "gemm-torch"):
        result = runner.invoke(main, ["--store", str(demo_store.root), "show",
                                      f"BenchmarkRun/{name}", "--json"])
        assert result.exit_code == 0, result.output
        shown = json.loads(result.stdout)
        data = twin(demo_site, "runs/" + _short(demo_store, name))["data"]
        for field in ("digest", "rank", "groupSize", "value", "unit", "reason",
                      "evidenceLevel", "comparisonKey", "references", "ratioToFirst"):
            if field == "references":
                assert [r["digest"] for r in data[field]] == [r["digest"] for r in
                                                              shown[field]]
            else:
                assert data[field] == shown[field], (name, field)


def test_group_page_shows_ties_unranked_and_reference_rows(demo_store, demo_site):
    group = twin(demo_site, "runs/" + _short(demo_store, "gemm-first"))["data"]["links"]["group"]
    data = twin(demo_site, group.removesuffix("index.html"))["data"]
    assert [(r["name"], r["rank"]) for r in data["ranked"]] == [
        ("gemm-first", 1), *sorted([("gemm-tie-a", 2), ("gemm-tie-b", 2)],
                                   key=lambda x: str(demo_store.read(
                                       f"BenchmarkRun/{x[0]}").digest)),
        ("gemm-fourth", 4), ("gemm-xss", 5)]
    assert [r["name"] for r in data["references"]] == ["gemm-torch"]
    assert {r["name"]: r["reason"] for r in data["unranked"] + data["excluded"]} == {
        "gemm-novalue": "no value at /timing/latencyNs/mean", "gemm-wrong": "status incorrect"}
    assert data["ranked"][1]["ratioToFirst"] == 1.2
    # every row carries its evidence badge; the tie is shown as two rows ranked 2
    page = (demo_site / group).read_text()
    rows = len(data["ranked"]) + len(data["references"]) + len(data["unranked"]) + \
        len(data["excluded"])
    # gemm-fourth names no source: its badge's title says so (msg95 1)
    assert page.count('<span class="badge ev-source-native" title="evidence level">') == rows - 1
    assert page.count('<span class="badge ev-source-native" title="evidence level: ') == 1
    assert page.count('<td class="num" data-value="2">2</td>') == 2


def test_a_run_without_a_value_says_it_has_no_ranked_value(demo_store, demo_site):
    # the standing line said "value no value" (the value macro's "no value" after "value")
    page = (demo_site / "runs" / _short(demo_store, "gemm-novalue") / "index.html").read_text()
    assert "no value at /timing/latencyNs/mean; 5 ranked in its" in page
    assert "mean, lower first</span>\n        · no ranked value · observed" in page
    assert "value no value" not in page
    first = (demo_site / "runs" / _short(demo_store, "gemm-first") / "index.html").read_text()
    assert "mean, lower first</span>\n        · value 100 µs · observed" in first


def test_run_in_no_group_says_so(demo_store, demo_site):
    orphan = _short(demo_store, "gemm-orphan")
    data = twin(demo_site, "runs/" + orphan)["data"]
    assert data["comparisonKey"] is None and data["links"]["compare"] is None
    assert data["problem"].startswith("in no comparison group")
    assert not (demo_site / "runs" / orphan / "compare").exists()
    assert "in no comparison group" in (demo_site / "runs" / orphan / "index.html").read_text()


def test_name_page_redirects_to_the_run(demo_site):
    page = (demo_site / "names/sol-submission-20464/index.html").read_text()
    assert f'<meta http-equiv="refresh" content="0; url=../../{RUN}index.html">' in page
    assert twin(demo_site, "names/sol-submission-20464")["data"]["digest"] == PUBLISHED["run"]


def test_rebuild_after_one_added_manifest_writes_only_changed_pages(fresh_demo, tmp_path):
    out = tmp_path / "site"
    first = build_site(fresh_demo, out)
    assert first.rendered == 52
    before = files(out)
    stats = {n: (out / n).stat() for n in before}
    add_run(fresh_demo, "gemm-new", 110_000)
    second = build_site(fresh_demo, out)
    after = files(out)
    changed = {n for n in after if before.get(n) != after[n]}
    assert sorted(second.written) == sorted(changed)
    # pages of the run's group (8 runs + the new one, their compare pages, the group),
    # the new run's name, its workload, its source, and the index; nothing else
    assert second.rendered == 23 and second.pages == 55
    assert len(changed) == 2 * 23 + 1  # + build.json
    gemm = twin(out, "runs/" + _short(fresh_demo, "gemm-first"))["data"]["links"]["workload"]
    softmax = "runs/" + _short(fresh_demo, "softmax-a")
    assert not {n for n in changed if n.startswith(softmax)}
    # exactly which pages: every run of the new run's group (ranks and ratios moved), its
    # compare page, the group, the new name page, the workload, the source and the index
    group_key = twin(out, "runs/" + _short(fresh_demo, "gemm-new"))["data"]["comparisonKey"]
    members = [d for d in page_dirs(out) if d.startswith("runs/") and "/compare" not in d
               and twin(out, d)["data"]["comparisonKey"] == group_key]
    assert len(members) == 9
    expected = {f"{d}/" for d in members} | {f"{d}/compare/" for d in members} | {
        f"groups/{group_key[7:23]}/", "names/gemm-new/", gemm.removesuffix("index.html"),
        "sources/demo-source/", ""}
    assert {n.rsplit("/", 1)[0] + "/" if "/" in n else "" for n in changed} - {""} \
        == expected - {""}
    assert {"index.html", "index.json", "build.json"} <= changed
    assert {n for n in changed if n.startswith(("sources/", "workloads/"))} == {
        f"{d}index.{x}" for x in ("html", "json")
        for d in ("sources/demo-source/", gemm.removesuffix("index.html"))}
    for name, st in stats.items():
        if name not in changed:
            assert (out / name).stat().st_mtime_ns == st.st_mtime_ns, name
    # and the incrementally built site is exactly a fresh build
    assert files(out) == files(_fresh(fresh_demo, tmp_path / "fresh"))
    assert verify_site(fresh_demo, out)[1] == []
    # a build with nothing new renders nothing and writes nothing
    third = build_site(fresh_demo, out)
    assert (third.rendered, third.written) == (0, [])


def _fresh(store: Store, out: Path) -> Path:
    build_site(store, out)
    return out


def test_deleting_the_cache_costs_time_not_bytes(fresh_demo, tmp_path):
    out = tmp_path / "site"
    build_site(fresh_demo, out)
    (out / CACHE_FILE).unlink()
    again = build_site(fresh_demo, out)
    assert again.rendered == 52 and again.written == []
    full = build_site(fresh_demo, out, full=True)
    assert full.rendered == 52 and full.written == []


def test_a_page_no_longer_produced_is_removed(fresh_demo, tmp_path):
    out = tmp_path / "site"
    build_site(fresh_demo, out)
    stray = out / "runs" / "0000000000000000"
    stray.mkdir()
    (stray / "index.html").write_text("old")
    assert verify_site(fresh_demo, out)[1][0].problem == "unexpected"
    report = build_site(fresh_demo, out, full=True)  # without a cache: the tree is scanned
    assert "runs/0000000000000000/index.html" in report.removed and not stray.exists()


def run_cli(runner, store: Store, *args: str):
    return runner.invoke(main, ["--store", str(store.root), "site", *args])


def test_cli_build_and_verify(runner, fresh_demo, tmp_path):
    out = tmp_path / "public"
    result = run_cli(runner, fresh_demo, "build", str(out))
    assert result.exit_code == 0, result.output
    head = commits(fresh_demo)["c-settings"]
    assert f"built 52 pages of commit {head} in {out}: 52 rendered, 107 files written" in \
        result.output
    assert (out / "index.html").resolve().as_uri() in result.output
    result = run_cli(runner, fresh_demo, "verify", str(out))
    assert result.exit_code == 0, result.output
    assert f"every page equals a fresh build of commit {head}" in result.output
    # tampered, missing and extra files are each listed; exit 1
    page = out / RUN / "index.html"
    page.write_text(page.read_text().replace("Rank 2", "Rank 1"))
    (out / RUN / "index.json").unlink()
    (out / "runs/ffffffffffffffff").mkdir()
    (out / "runs/ffffffffffffffff/index.html").write_text("x")
    (out / "evil.html").write_text("<script>evil()</script>")  # not a page's name: still seen
    (out / "x").mkdir()
    (out / "x" / "y.html").write_text("a")
    result = run_cli(runner, fresh_demo, "verify", str(out), "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["differences"] == [
        {"path": f"{RUN}index.html", "problem": "differs"},
        {"path": f"{RUN}index.json", "problem": "missing"},
        {"path": "evil.html", "problem": "unexpected"},
        {"path": "runs/ffffffffffffffff/index.html", "problem": "unexpected"},
        {"path": "x/y.html", "problem": "unexpected"}]
    result = run_cli(runner, fresh_demo, "verify", str(out))
    assert result.exit_code == 1
    assert f"{out / RUN / 'index.html'}: differs" in result.stderr
    assert f"5 file(s) differ from a fresh build of commit {head}" in result.stderr
    advised = f"kistore site build {out} --at {head[:12]} --notes-at none --full"
    assert advised in result.stderr and "remove the files" in result.stderr
    # the advice works: the extra files removed, the full build puts the edited page back
    for extra in ("evil.html", "x/y.html"):
        (out / extra).unlink()
    assert run_cli(runner, fresh_demo, "build", str(out), "--at", head[:12], "--notes-at",
                   "none", "--full").exit_code == 0
    result = run_cli(runner, fresh_demo, "verify", str(out))
    assert result.exit_code == 0, result.output


def test_cli_verify_at_head_says_a_site_is_stale(runner, fresh_demo, tmp_path):
    out = tmp_path / "public"
    assert run_cli(runner, fresh_demo, "build", str(out)).exit_code == 0
    add_run(fresh_demo, "gemm-new", 110_000)
    assert run_cli(runner, fresh_demo, "verify", str(out)).exit_code == 0  # of its commit
    result = run_cli(runner, fresh_demo, "verify", str(out), "--at", "HEAD")
    assert result.exit_code == 1 and "differ from a fresh build" in result.stderr


def test_cli_refuses_a_directory_that_is_not_a_site(runner, fresh_demo, tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = run_cli(runner, fresh_demo, "build", str(out))
    assert result.exit_code == 1
    assert f"error: {out}: is not empty and holds no build.json: it is not a kistore site" \
        in result.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    result = run_cli(runner, fresh_demo, "verify", str(out))
    assert result.exit_code == 1 and "not a kistore site: cannot read build.json" in \
        result.stderr


def test_a_build_json_nested_3000_deep_is_not_a_site_not_a_crash(runner, fresh_demo,
                                                                  tmp_path):
    # a bare json.loads raised RecursionError: "internal error" and a traceback
    out = tmp_path / "public"
    out.mkdir()
    (out / BUILD_FILE).write_bytes(b"[" * 3000 + b"]" * 3000)
    result = run_cli(runner, fresh_demo, "verify", str(out))
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"error: {out / BUILD_FILE}: not a kistore site: cannot "
                                    "read build.json (nesting deeper than ")
    assert "build one with `kistore site build OUT`" in result.stderr


def test_a_cache_nested_3000_deep_is_no_cache_the_build_rewrites_it(fresh_demo, tmp_path):
    out = tmp_path / "site"
    build_site(fresh_demo, out)
    cache = (out / CACHE_FILE).read_bytes()
    (out / CACHE_FILE).write_bytes(b"[" * 3000 + b"]" * 3000)
    again = build_site(fresh_demo, out)  # raised RecursionError
    assert again.rendered == 52 and again.written == []
    assert (out / CACHE_FILE).read_bytes() == cache


def test_cli_unknown_revision_is_an_error(runner, fresh_demo, tmp_path):
    result = run_cli(runner, fresh_demo, "build", str(tmp_path / "x"), "--at", "nope")
    assert result.exit_code == 1 and "nope" in result.stderr
    assert not (tmp_path / "x").exists()


def test_cli_site_help_has_examples(runner):
    for command in ("build", "verify", "serve"):
        result = runner.invoke(main, ["site", command, "--help"])
        assert result.exit_code == 0 and "Example:" in result.output
    result = runner.invoke(main, ["site", "build"])
    assert result.exit_code == 2 and "Missing argument 'OUT'" in result.output


def test_permalink_option_is_recorded_and_verify_uses_it(fresh_demo, tmp_path):
    out = tmp_path / "site"
    template = "https://git.example.org/index/-/blob/{commit}/{path}"
    build_site(fresh_demo, out, permalink=template)
    assert json.loads((out / BUILD_FILE).read_text())["parameters"]["permalink"] == template
    assert twin(out, RUN)["data"]["citation"]["permalink"].startswith(
        "https://git.example.org/index/-/blob/")
    assert verify_site(fresh_demo, out)[1] == []


def test_without_a_permalink_the_cite_block_says_why(tmp_path):
    store = build_demo_store(tmp_path / "store")
    settings = store.root / "kistore.toml"
    settings.write_text(settings.read_text().replace("permalink = ", "# permalink = "))
    subprocess.run(["git", "commit", "-qam", "no permalink"], cwd=store.root, check=True)
    out = tmp_path / "site"
    build_site(store, out)
    cite = twin(out, RUN)["data"]["citation"]
    assert cite["available"] is False and "no [cite] permalink" in cite["reason"]
    assert cite["commit"] == commits(store)["b-published"]
    assert "No permalink:" in (out / RUN / "index.html").read_text()


@pytest.mark.parametrize("comparison", ["measured"])
def test_comparison_option_ranks_every_group_that_way(fresh_demo, tmp_path, comparison):
    out = tmp_path / "site"
    build_site(fresh_demo, out, comparison=comparison)
    data = twin(out, RUN)["data"]
    assert data["comparison"]["name"] == "measured" and data["unit"] == "ns"
    assert verify_site(fresh_demo, out)[1] == []


def _data_uri(page: str, download: str) -> bytes:
    [b64] = re.findall(rf'<a download="{re.escape(download)}" href="data:[^;]+;charset=utf-8;'
                       r'base64,([A-Za-z0-9+/=]+)">', page)
    return base64.b64decode(b64)


def test_published_record_page_has_every_section_of_the_published_page(demo_store, demo_site):
    """shared/examples/run-page.md, section by section, in its order, with its values."""
    page = (demo_site / RUN / "index.html").read_text()
    # 1-4: header, primary measurement, standing line with "Compare with #1", summary
    assert '<p class="kicker">Run <code>384a96d0</code> · KernelIndex demo</p>' in page
    assert '<span class="big">13.6 ms</span>' in page
    assert '<span class="what">mean latency · 13,634,148 ns</span>' in page
    assert '<span class="rank-badge">Rank 2</span> of 2 in its <a href="../../groups/' in page
    assert "by the source&#39;s own metric: sol_score, higher first" in page
    # the day in UTC, as the export's observedAt (fresh05 LOW 4), the stored time on hover
    assert ('<time datetime="2026-07-10T06:41:58.611Z" title="2026-07-10T06:41:58.611Z">'
            "2026-07-10 UTC</time>") in page
    assert 'href="../../runs/384a96d0ed687458/compare/index.html">Compare with #1</a>' in page
    # 5-15: the sections, in the published page's order
    ids = re.findall(r'<section id="([a-z-]+)"', page)
    assert ids == ["identity", "correctness", "workload", "measurements", "protocol",
                   "environment", "artifacts", "replications", "manifest", "cite", "report"]
    identity = page.split('<section id="identity"')[1].split("</section>")[0]
    for value in ("20464", PUBLISHED["run"], "sol-execbench", "025_moe_expert_parallel_"
                  "execution_backward", "sha256:4f11a075d5d6"):
        assert value in identity, value
    # item 5's words (fresh98 LOW): revision `submission-20464`, a suite of 16 cases,
    # external id `submission/20464`; each saying where it comes from
    assert ('<th scope="row">Revision</th><td>submission-20464 <span class="muted">(the '
            "source's submission: the implementation states no revision)</span>") in identity
    assert ("(a suite of 16 cases by the run's <code>fast_1_total</code>, mean latency)"
            in identity)
    assert ('<th scope="row">External id</th><td><code>submission/20464</code> <span '
            'class="muted">(stored as <code>20464</code>)</span>') in identity
    assert twin(demo_site, RUN)["data"]["identity"] == {
        "externalId": "submission/20464", "revision": "submission-20464",
        "revisionFrom": "submission", "cases": 16}
    assert twin(demo_site, RUN)["data"]["externalId"] == "20464"  # as stored, as `show`
    assert "The source did not publish a correctness result or policy" in page
    assert "None published (the implementation is not in the store)." in page
    assert "never change the evidence level: only a controlled rerun signed by a key " \
        "trusted for reruns makes a run <em>verified</em>" in page
    assert f"kistore attest {PUBLISHED['run']} --type dispute" in page
    # 16: footer: the workload's results and their JSON twin, this run as JSON
    assert ('<a href="../../workloads/d47d94513f5c675b/index.html">All results for 025_moe_'
            'expert_parallel_execution_backward</a> <a href="../../workloads/d47d94513f5c675b/'
            'index.json">→ JSON</a>') in page
    # downloads: the stored bytes, and citations that name the digest
    stored = demo_store.view("HEAD").object_bytes(demo_store.resolve(PUBLISHED["run"]))
    assert _data_uri(page, "384a96d0ed68.json") == stored
    bib = _data_uri(page, "kernelindex-384a96d0ed68.bib").decode()
    assert bib.startswith("@misc{kernelindex:384a96d0ed68,") and PUBLISHED["run"] in bib
    [csl] = json.loads(_data_uri(page, "kernelindex-384a96d0ed68.json"))
    assert csl["id"] == "kernelindex:384a96d0ed68" and "accessed" not in csl
    assert PUBLISHED["run"] in _data_uri(page, "CITATION.cff").decode()


def test_compare_workload_index_and_source_pages(demo_store, demo_site):
    """Each kind of page beside the run page, with the values it must show."""
    tie, first = _short(demo_store, "gemm-tie-a"), _short(demo_store, "gemm-first")
    # compare: the run against #1 of its group, the ratio, what differs (by JSON Pointer)
    data = twin(demo_site, f"runs/{tie}compare")["data"]
    assert (data["a"]["name"], data["a"]["rank"], data["b"]["name"], data["b"]["rank"]) == (
        "gemm-tie-a", 2, "gemm-first", 1)
    assert data["ratio"] == 1.2 and data["isFirst"] is False
    assert {"section": "run", "pointer": "/timing/latencyNs/mean", "a": 120000,
            "b": 100000} in data["differences"]
    page = (demo_site / f"runs/{tie}compare/index.html").read_text()
    assert "/timing/latencyNs/mean" in page and "1.20×" in page
    assert f'href="../../../runs/{first}index.html"' in page
    # workload: one group per GPU (same protocol), each with its #1; the run in no group
    gemm = twin(demo_site, "runs/" + first)["data"]["links"]["workload"]
    data = twin(demo_site, gemm.removesuffix("index.html"))["data"]
    assert [(g["hardware"], g["runs"], g["groupSize"], g["first"]["name"])
            for g in data["groups"]] == [("NVIDIA B200", 2, 2, "gemm-b200-a"),
                                         ("NVIDIA H100 80GB HBM3", 8, 5, "gemm-first")]
    assert [r["name"] for r in data["ungrouped"]] == ["gemm-orphan"]
    assert (data["title"], data["cases"], data["runs"]) == ("GEMM N=4096 K=4096", "3 cases", 11)
    page = (demo_site / gemm).read_text()
    assert page.count('href="../../groups/') >= 2 and "gemm-orphan" in page
    # index: counts, sources, GPUs
    data = twin(demo_site, ".")["data"]
    assert data["counts"] == {"runs": 14, "groups": 4, "workloads": 3, "sources": 3,
                              "BenchmarkProtocol": 2, "ExecutionEnvironment": 3,
                              "Implementation": 5, "Workload": 2}
    assert [(s["source"], s["runs"], s["workloads"], s["groups"]) for s in data["sources"]] == [
        ("_unspecified", 1, 1, 1), ("demo-source", 11, 2, 3), ("sol-execbench", 2, 1, 1)]
    assert [(g["product"], g["runs"], g["groups"]) for g in data["gpus"]] == [
        ("NVIDIA B200", 4, 2), ("NVIDIA H100 80GB HBM3", 10, 2)]
    page = (demo_site / "index.html").read_text()
    assert '<a href="sources/demo-source/index.html">demo-source</a>' in page
    # a source: its workloads with their run counts
    data = twin(demo_site, "sources/demo-source")["data"]
    assert (data["runs"], data["groups"]) == (11, 3)
    assert [(w["label"], w["runs"]) for w in data["workloads"]] == [
        ("gemm_n_4096_k_4096", 10), ("softmax_1024", 1)]


def test_a_build_never_writes_through_a_symlinked_folder_in_the_site(
        runner, demo_store, demo_site, tmp_path):
    # r70 F10: with OUT/groups a symlink to a folder elsewhere, `site build` wrote the group
    # pages there (outside OUT). Now it refuses, writing nothing, and `site verify` says it.
    from .conftest import copy_site

    out = copy_site(demo_site, tmp_path / "site")
    elsewhere = tmp_path / "elsewhere"
    (out / "groups").rename(elsewhere)
    (out / "groups").symlink_to(elsewhere)
    for page in elsewhere.rglob("index.html"):
        page.write_text("stale")  # every group page must be written again
    before, site_before = files(elsewhere), files(out)
    result = run_cli(runner, demo_store, "build", str(out))
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"error: {out / 'groups'}: groups is a symbolic link inside the site's directory: a "
        f"build writes only inside it, never through a link; remove the link (`rm "
        f"{out / 'groups'}`) and build again (nothing was written)\n")
    assert files(elsewhere) == before and files(out) == site_before
    result = run_cli(runner, demo_store, "verify", str(out))
    assert result.exit_code == 1, result.output
    assert f"{out / 'groups'}: symbolic link (a fresh build of" in result.stderr
    assert "never a link; `site build` refuses to write through it)" in result.stderr


def test_an_incremental_build_replaces_a_linked_page_and_refuses_a_linked_page_folder(
        runner, demo_store, demo_site, tmp_path):
    # F18 (review 2026-12-02): an incremental build kept both (exit 0, "0 files written")
    from .conftest import copy_site

    out = copy_site(demo_site, tmp_path / "site")
    page = sorted(out.glob("runs/*/index.html"))[0]
    kept = page.read_bytes()
    secret = tmp_path / "secret"
    secret.write_text("not the site's")
    page.unlink()
    page.symlink_to(secret)
    result = run_cli(runner, demo_store, "build", str(out))
    assert result.exit_code == 0, result.output
    assert not page.is_symlink() and page.read_bytes() == kept  # replaced, as --full does
    assert secret.read_text() == "not the site's"
    folder = sorted(p for p in out.glob("runs/*/*") if p.is_dir())[0]
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere)
    rel = folder.relative_to(out).as_posix()
    result = run_cli(runner, demo_store, "build", str(out))
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(
        f"error: {folder}: {rel} is a symbolic link inside the site's directory")
