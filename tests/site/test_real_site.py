"""The site of this repository's own store (the real data, committed in ``store/``).

The store holds the published record (with its dangling workload and implementation) and
the three sources of ``shared/data`` as imported, so this needs no ``../shared``. Builds
the site of ``HEAD`` once, checks every link of every page, the published record's page
in a browser, and that a fresh build verifies. With ``KISTORE_SCREENSHOTS=docs`` (``make
screenshots``) the screenshots the README shows are written to ``docs/``.
"""

from __future__ import annotations

import hashlib
import os
from collections import deque
from urllib.parse import urldefrag

import pytest

from kistore.site.build import build_site, verify_site
from kistore.store import Store

from ..conftest import PUBLISHED, ROOT
from .browser import screenshot, serve
from .links import check_site

pytestmark = pytest.mark.skipif(not (ROOT / "store" / "objects").is_dir(),
                                reason="this checkout has no store/ (not a clone?)")

PUBLISHED_RUN = "runs/384a96d0ed687458/index.html"
SHOWCASE = "BenchmarkRun/sol-kernel-3-submission-25504"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    store = Store(ROOT)
    out = tmp_path_factory.mktemp("real-site") / "site"
    report = build_site(store, out)
    url, server = serve(out)
    yield store, out, report, url
    server.shutdown()


def test_real_site_every_link_resolves_and_a_fresh_build_verifies(real):
    store, out, report, _ = real
    assert report.pages > 3 * 1000 and report.skipped == {}
    problems, external, checked = check_site(out)
    assert problems == [] and checked > 50_000
    assert external <= {"data:"} or all(u.startswith("https://") for u in external - {"data:"})
    assert verify_site(store, out)[1] == []


def test_published_record_page_in_the_browser(browser, real):
    store, _, _, url = real
    browser.get(url + PUBLISHED_RUN)
    find = browser.find_element
    assert find("css selector", "#run-digest").text == PUBLISHED["run"]
    assert find("css selector", "#run-digest").text.startswith("sha256:384a96d0")
    assert "SOL-ExecBench evaluation stack v1.1" in find("css selector", "#protocol").text
    assert "NVIDIA B200" in find("css selector", "#environment").text
    pre = find("css selector", f'pre.canonical[data-digest="{PUBLISHED["run"]}"]')
    assert pre.is_displayed()
    text = pre.get_attribute("textContent")
    assert "sha256:" + hashlib.sha256(text.encode()).hexdigest() == PUBLISHED["run"]
    cite = find("css selector", "#cite")
    assert cite.is_displayed() and PUBLISHED["run"] in cite.text
    assert "First added in" in cite.text
    assert "not in the store" in find("css selector", "#workload").text
    assert browser.execute_script("return window.__kistoreAlerts") == []


def test_real_pages_open_in_the_browser(browser, real):
    """Follow links from the index, breadth first, for 60 pages: none is missing."""
    _, _, _, url = real
    queue, seen = deque([url + "index.html"]), set()
    while queue and len(seen) < 60:
        page = queue.popleft()
        if page in seen or page.endswith(".json"):
            continue
        seen.add(page)
        browser.get(page)
        assert "Error response" not in browser.title, page
        assert browser.find_elements("css selector", "h1"), page
        for href in browser.execute_script(
                "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"):
            target = urldefrag(href)[0]
            if target.startswith(url) and "/names/" not in target:
                queue.append(target)
    assert len(seen) == 60


def test_screenshots_for_the_readme(browser, real, tmp_path):
    store, out, _, url = real
    digest = str(store.read(SHOWCASE).digest)
    run_page = f"{url}runs/{digest[7:23]}/index.html"
    browser.get(run_page)
    group_page = browser.find_element("css selector", "#standing .rank a").get_attribute("href")
    target = ROOT / "docs" if os.environ.get("KISTORE_SCREENSHOTS") == "docs" else tmp_path
    for name, page, height in (("site-run.png", run_page, 2000),
                               ("site-group.png", group_page, 1500)):
        png = screenshot(browser, page, target / name, max_height=height)
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000
