"""A static link checker for a built site: every relative link resolves to a file (and id).

Reads each ``index.html`` with the standard library's HTML parser and collects every
``href``/``src`` (and a meta refresh's URL). A relative link must name an existing file
under the site (its ``#fragment``, when given, an ``id`` in that file); an absolute path
(``/...``) or a ``file:`` URL is an error (the site must work from any prefix); ``http(s):``
and ``data:`` URLs are external and returned for the caller to judge.
"""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        for name in ("href", "src"):
            if values.get(name) is not None:
                self.links.append(values[name] or "")
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "refresh":
            content = values.get("content") or ""
            if "url=" in content:
                self.links.append(content.split("url=", 1)[1].strip())


def parse(path: Path) -> _Collector:
    collector = _Collector()
    collector.feed(path.read_text("utf-8"))
    return collector


def check_site(out: Path) -> tuple[list[str], set[str], int]:
    """Check every link of every page under ``out``.

    Returns:
        ``(problems, external URLs, links checked)``; each problem names the page and link.
    """
    pages = sorted(out.rglob("index.html"))
    parsed = {p: parse(p) for p in pages}
    problems: list[str] = []
    external: set[str] = set()
    checked = 0
    for page, collector in parsed.items():
        here = page.parent.relative_to(out).as_posix()
        for link in collector.links:
            checked += 1
            parts = urlsplit(link)
            if parts.scheme in ("http", "https", "data", "mailto"):
                external.add(link if parts.scheme != "data" else "data:")
                continue
            if parts.scheme or parts.netloc or link.startswith("/"):
                problems.append(f"{page.relative_to(out)}: not relative: {link}")
                continue
            if not parts.path and parts.fragment:
                if parts.fragment not in collector.ids:
                    problems.append(f"{page.relative_to(out)}: no id {parts.fragment}")
                continue
            target = posixpath.normpath(posixpath.join(here, unquote(parts.path)))
            if target.startswith(".."):
                problems.append(f"{page.relative_to(out)}: leaves the site: {link}")
                continue
            path = out / target
            if not path.is_file():
                problems.append(f"{page.relative_to(out)}: broken: {link}")
                continue
            if parts.fragment:
                ids = parsed[path].ids if path in parsed else parse(path).ids
                if parts.fragment not in ids:
                    problems.append(f"{page.relative_to(out)}: {link}: no such id")
    return problems, external, checked
