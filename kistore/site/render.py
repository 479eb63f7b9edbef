"""Writing pages: jinja2 templates (autoescaped) to HTML, data to the JSON twin.

Every string that comes from a manifest is untrusted input. Templates are rendered by an
environment with autoescaping on for every template (``<script>`` in a title becomes
``&lt;script&gt;``), ``StrictUndefined`` (a misspelt field fails the build instead of
printing nothing), and no ``|safe`` anywhere: the only markup is the templates' own.
Links are relative (``page.root`` + a path under the site root), so the site works from
any path prefix and from ``file://``. The one link made from data, a citation's permalink,
is an ``href`` only when it is an absolute ``https:``/``http:`` URL with a host (the test
``web_link``; :func:`kistore.cite.citation.permalink` refuses any other already), and
every page carries :data:`CSP` (base.html), so no script but ``site.js`` runs.

The bytes written are a pure function of the data: no time, no randomness, sorted JSON.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import jinja2
import orjson

from ..core.errors import one_line
from ..core.settings import web_link_problem
from ..core.words import NO_SOURCE, comparison_said, evidence_said, stated_by
from ..query.numbers import json_text
from . import pages, summary

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "object-src 'none'; base-uri 'none'; form-action 'none'")
"""The Content-Security-Policy of every page (a ``<meta http-equiv>`` in base.html, so it
holds wherever the files are served from): the site's own ``site.js`` and ``site.css``
only; no inline script, no plug-in, no ``<base>``, no form (review r78 F5)."""

STATIC = ("site.css", "site.js")
"""Files under ``kistore/site/static/`` copied to the site root."""


@cache
def environment() -> Any:
    """Return the jinja2 Environment of the site's templates (built once).

    Autoescaping is on for every template, undefined names raise, and blocks trim their
    own newlines (so the HTML stays readable).
    """
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("kistore.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # package data does not change while a build runs
    )
    env.filters.update(
        cases_text=pages.cases_text,
        latency=summary.latency, exact_ns=summary.exact_ns, number=summary.number,
        ratio=summary.ratio, short=short_digest, date=date, data_uri=data_uri,
        observed_day=summary.observed_day,
        compact=compact, value=value_text,
        visible=visible, comparison_said=comparison_said, evidence_said=evidence_said,
        stated_by=stated_by)
    env.globals["no_source"] = NO_SOURCE  # one label for a run's missing source (r85 F7)
    env.tests["web_link"] = lambda url: isinstance(url, str) and web_link_problem(url) is None
    env.globals["csp"] = CSP
    return env


def visible(value: Any) -> Any:
    """Return a string with controls, line breaks, bidi controls and backslashes escaped.

    For text a submitter wrote that a person reads (an attestation's text as signed; a
    title or author, which could otherwise break the page's lines or reorder them: reviewer
    r83 F4), as :func:`kistore.core.errors.one_line`; any other value (None) unchanged.
    """
    return one_line(value) if isinstance(value, str) else value


def render_html(template: str, page: Any, twin: dict[str, Any]) -> bytes:
    """Render one page's HTML from its JSON twin.

    Args:
        template: the template's file name (``run.html``).
        page: the :class:`kistore.site.pages.Page` (its ``root`` and ``path``).
        twin: the page's JSON twin (:func:`kistore.site.pages.page_data`).

    Returns:
        UTF-8 bytes, ending in a newline.
    """
    text: str = environment().get_template(template).render(
        root=page.root, page=page, twin=twin, d=twin["data"])
    return text.encode("utf-8")


def render_json(twin: dict[str, Any]) -> bytes:
    """Serialise a JSON twin: sorted keys, two-space indent, UTF-8, a final newline.

    orjson (a dependency already): the standard library's encoder runs in Python whenever
    it indents, and was a fifth of a build's time.
    """
    data: bytes = orjson.dumps(twin, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2
                        | orjson.OPT_APPEND_NEWLINE)
    return data


def static_files() -> dict[str, bytes]:
    """Return the site's static files (``site.css``, ``site.js``) by name."""
    folder = resources.files("kistore.site").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name in STATIC}


@cache
def generator() -> str:
    """Return what writes pages, as a string a page's cache key covers.

    ``kistore <version>`` and a SHA-256 over the site package's templates, static files
    and Python sources, :mod:`kistore.query.numbers` (which writes the pages' numbers),
    :mod:`kistore.core.words` (their words for a comparison, an evidence level, a missing
    source), and the words of the marks (:mod:`kistore.query.outliers`, KI234 and KI230;
    :mod:`kistore.check._policy`, KI231 and KI236; :mod:`kistore.core.contradictions`,
    KI230's few words): any change to them makes every page be written again.
    """
    try:
        release = version("kistore")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        release = "unknown"
    h = hashlib.sha256()
    package = resources.files("kistore.site")
    for folder, suffix in (("templates", ".html"), ("static", ""), ("", ".py")):
        base = package.joinpath(folder) if folder else package
        for entry in sorted(base.iterdir(), key=lambda e: e.name):
            if entry.is_file() and entry.name.endswith(suffix):
                h.update(f"{folder}/{entry.name}\0".encode() + entry.read_bytes() + b"\0")
    for module, file in (("kistore.query", "numbers.py"), ("kistore.core", "words.py"),
                         ("kistore.query", "outliers.py"), ("kistore.check", "_policy.py"),
                         ("kistore.core", "contradictions.py")):
        source = resources.files(module).joinpath(file)
        h.update(f"{module.removeprefix('kistore.')}/{file}\0".encode()
                 + source.read_bytes() + b"\0")
    return f"kistore {release} (site {h.hexdigest()[:12]})"


def short_digest(digest: Any, hexdigits: int = 12) -> str:
    """Write ``sha256:`` + the first ``hexdigits`` hex digits of a digest (``-`` if none)."""
    if not isinstance(digest, str):
        return "-"
    return digest[: len("sha256:") + hexdigits] if digest.startswith("sha256:") else digest


def date(text: Any) -> str:
    """Write the date part (``YYYY-MM-DD``) of an RFC 3339 time (``-`` if none)."""
    return text[:10] if isinstance(text, str) and len(text) >= 10 else "-"


def data_uri(text: str, media: str = "text/plain") -> str:
    """Return a ``data:`` URI holding ``text`` as UTF-8, base64 (a download needing no file).

    The bytes a browser saves are exactly ``text.encode("utf-8")`` (RFC 2397).
    """
    return f"data:{media};charset=utf-8;base64,{base64.b64encode(text.encode()).decode()}"


def compact(obj: Any) -> str:
    """Write a JSON value on one line (keys sorted), for values with no better form.

    :func:`kistore.query.numbers.json_text`: numbers as stored (``1e-7``, not ``1e-07``).
    """
    return json_text(obj)


def value_text(obj: Any) -> str:
    """Write a leaf value for a table cell: strings as they are, the rest as JSON."""
    if obj is None:
        return "-"
    return obj if isinstance(obj, str) else compact(obj)
