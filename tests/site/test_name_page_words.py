"""The name page says what holds of a name: it never moves (fresh05 LOW 6).

It said "A name can be corrected by a later commit", against README ("a committed name
never moves") and ``verify``, which reports a renamed committed name as KI208.
"""

from __future__ import annotations

import html
import re

from kistore.site.build import build_site

from ..conftest import ROOT, add_docs

SAID = ("A committed name never moves: no later commit may give it to other bytes "
        "(<code>kistore verify</code> reports a renamed name as KI208), so this page and the "
        "run's page keep pointing at this run. The digest is the identity of the bytes "
        "themselves.")


def test_the_name_page_says_a_name_never_moves(store, kit, tmp_path):
    add_docs(store, kit.group_docs([None]))
    build_site(store, tmp_path / "site")
    page = (tmp_path / "site" / "names" / "run-0" / "index.html").read_text()
    [muted] = re.findall(r'<p class="muted">(.*?)</p>', page, re.S)
    assert muted == SAID
    assert "corrected" not in html.unescape(page)


def test_readme_says_the_same():
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "a committed name never moves" in readme
    assert "a names file is never modified, renamed or deleted (KI208)" in readme
