"""A run page publishes the date its run landed on the first-parent line (r81 F1, r82 F4)."""

from __future__ import annotations

import json

import pytest

from kistore.cite.citation import cite, render
from kistore.cli import main
from kistore.store import Store

from ..cite.test_landing import old_fork_merged, orphan_root_merged
from .conftest import build


@pytest.mark.parametrize("shape", [orphan_root_merged, old_fork_merged])
def test_the_run_page_publishes_the_merge_date_cite_gives(runner, tmp_path, shape):
    path, added, merge = shape(tmp_path)
    store = Store(path)
    out = tmp_path / "site"
    result = build(runner, store, out)
    assert result.exit_code == 0, result.output
    (page,) = (out / "runs").glob("*/index.json")
    block = json.loads(page.read_text())["data"]["citation"]
    cited = cite(store, "BenchmarkRun/sol-submission-20464")
    assert (block["commit"], block["landed"], block["published"]) == (
        added, merge, "2027-08-17T08:00:00Z")
    assert block["formats"] == {fmt: render(cited._replace(accessed=None), fmt)
                                for fmt in ("text", "bibtex", "csl-json", "cff")}
    assert block["formats"]["text"].startswith("KernelIndex (2027). ")
    assert f"date of commit {merge}, which brought it onto the first-parent line" in \
        block["formats"]["text"]
    html = (page.parent / "index.html").read_text()
    assert f"by commit <code>{merge}</code>, which brought it onto the first-parent line" \
        in html
    assert "Published 2027-08-17 · " in html  # the footer


def test_a_site_built_from_the_pull_request_then_from_main_publishes_the_merge_date(
        runner, tmp_path):
    """Built from the pull request first (the run lands there at its own commit), then,
    incrementally, from main after the merge: the page publishes the merge's date, as a
    fresh build does (``site verify``)."""
    path, added, merge = old_fork_merged(tmp_path)
    store = Store(path)
    out = tmp_path / "site"
    assert build(runner, store, out, "--at", "pr").exit_code == 0
    (page,) = (out / "runs").glob("*/index.json")
    before = json.loads(page.read_text())["data"]["citation"]
    assert (before["commit"], before.get("landed"), before["published"]) == (
        added, None, "2026-07-15T08:00:00Z")
    result = build(runner, store, out)
    assert result.exit_code == 0, result.output
    after = json.loads(page.read_text())["data"]["citation"]
    assert (after["commit"], after["landed"], after["published"]) == (
        added, merge, "2027-08-17T08:00:00Z")
    verified = runner.invoke(main, ["--store", str(path), "site", "verify", str(out)])
    assert verified.exit_code == 0, verified.output
