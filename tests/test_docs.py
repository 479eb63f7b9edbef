"""The docs cannot rot: every test, rule id and section they cite exists.

docs/threats.md names, for each attack, the rule that catches it and the tests that prove
it; docs/design.md names the tests that hold its claims; the code cites docs/design.md by
section (``docs/design.md §3``). A renamed test, a removed rule or a renumbered section
fails here, naming the citation.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest

import kistore
from kistore.core.findings import RULES

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
CODE = sorted((ROOT / "kistore").rglob("*.py"))

TEST_CITATION = re.compile(r"(tests/[\w/]+\.py)::(\w+)(?:\[([^\]\s]+)\])?")
RULE_ID = re.compile(r"\bKI\d{3}\b")
SECTION_CITATION = re.compile(r"docs/([\w-]+\.md) §(\d+)((?:, §\d+)*)")
ANCHOR_LINK = re.compile(r"\]\(((?:docs/)?[\w-]+\.md)#([\w-]+)\)")
CODE_CITATION = re.compile(r"`((?:kistore/)?[a-z_]+/[a-z_]+\.py)` `([A-Za-z_][\w.]*)")
"""``path.py` `name``: a file under kistore/ and a function, class or constant in it."""


def _text(path: Path) -> str:
    return path.read_text("utf-8")


@cache
def _defined(test_file: str) -> tuple[frozenset[str], str]:
    """Return the test functions (module level or in a class) of a file, and its source."""
    source = _text(ROOT / test_file)
    names = frozenset(node.name for node in ast.walk(ast.parse(source))
                      if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))
    return names, source


def _cited_tests(path: Path) -> list[tuple[str, str, str | None]]:
    return [m.groups() for m in TEST_CITATION.finditer(_text(path))]


def _all_rules() -> dict[str, object]:
    """Import every kistore module (rules register on import) and return the registry."""
    for module in pkgutil.walk_packages(kistore.__path__, "kistore."):
        if module.name != "kistore.__main__":  # it runs the command line on import
            importlib.import_module(module.name)
    return dict(RULES)


def _slug(heading: str) -> str:
    """Return the anchor GitHub gives a Markdown heading (``3. The store`` -> ``3-the-store``)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(doc: Path) -> set[str]:
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", _text(doc), re.M)}


def _sections(doc: Path) -> set[str]:
    """Return the numbers of the ``## N. Title`` sections of a doc."""
    return set(re.findall(r"^## (\d+)\. ", _text(doc), re.M))


def _module_names(path: Path) -> dict[str, set[str]]:
    """Return each top-level name of a module, with the names defined in it if a class."""
    names: dict[str, set[str]] = {}
    for node in ast.parse(_text(path)).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names[node.name] = set()
        elif isinstance(node, ast.ClassDef):
            names[node.name] = {n.name for n in ast.walk(node)
                                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
            fields = [n for n in node.body if isinstance(n, ast.Assign | ast.AnnAssign)]
            names[node.name] |= {t.id for n in fields
                                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                                 if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update({t.id: set() for t in targets if isinstance(t, ast.Name)})
    return names


def test_slug_is_githubs():
    assert _slug("3. The store") == "3-the-store"
    assert _slug("3.1 `kistore add FILE` (work tree)") == "31-kistore-add-file-work-tree"


def test_threats_cites_tests_and_rules():
    text = _text(ROOT / "docs" / "threats.md")
    assert len(_cited_tests(ROOT / "docs" / "threats.md")) >= 100
    assert len(set(RULE_ID.findall(text))) >= 30


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_cited_test_exists(doc):
    missing = []
    for file, name, param in _cited_tests(doc):
        if not (ROOT / file).is_file():
            missing.append(f"{file} (no such file)")
            continue
        names, source = _defined(file)
        if name not in names:
            missing.append(f"{file}::{name}")
        elif param is not None and not re.search(rf"\b{re.escape(param)}\b", source):
            missing.append(f"{file}::{name}[{param}] (no parameter {param} in the file)")
    assert not missing, f"{doc.name} cites tests that do not exist: {missing}"


def test_every_rule_id_in_threats_is_registered():
    rules = _all_rules()
    cited = set(RULE_ID.findall(_text(ROOT / "docs" / "threats.md")))
    assert cited - set(rules) == set(), "docs/threats.md cites rule ids no code registers"


def test_no_citation_of_the_absent_design_page():
    stale = [f"{path.relative_to(ROOT)}:{number}"
             for path in [*CODE, *DOCS]
             for number, line in enumerate(_text(path).splitlines(), 1)
             if "DESIGN §" in line or "DESIGN.md" in line]
    assert not stale, f"cite docs/design.md sections instead of DESIGN.md: {stale}"


def test_every_section_citation_names_a_section():
    wrong = []
    for path in [*CODE, *DOCS]:
        for m in SECTION_CITATION.finditer(_text(path)):
            doc = ROOT / "docs" / m.group(1)
            numbers = [m.group(2), *re.findall(r"§(\d+)", m.group(3))]
            if not doc.is_file():
                wrong.append(f"{path.relative_to(ROOT)}: {m.group(0)} (no such doc)")
                continue
            wrong += [f"{path.relative_to(ROOT)}: {m.group(0)} (no section {n})"
                      for n in numbers if n not in _sections(doc)]
    assert not wrong, wrong


def test_every_anchor_link_names_a_heading():
    wrong = []
    for path in DOCS:
        for m in ANCHOR_LINK.finditer(_text(path)):
            target = (path.parent / m.group(1)) if path.parent.name == "docs" else (
                ROOT / m.group(1))
            if not target.is_file() or m.group(2) not in _anchors(target):
                wrong.append(f"{path.relative_to(ROOT)}: {m.group(1)}#{m.group(2)}")
    assert not wrong, f"links to headings that do not exist: {wrong}"


RELATIVE_LINK = re.compile(r"\]\((?![a-z]+:)([^)\s#]*)(?:#([^)\s]+))?\)")
"""A Markdown link (or image) to a file of the repository, with an optional heading anchor."""


def test_every_relative_link_names_a_file_and_a_heading():
    """Links in any form (``speed.md#x``, ``../README.md``, ``examples/README.md``, an image,
    ``#x`` on the same page) lead to a file that exists and, with an anchor, a heading it has:
    README's speed table links docs/speed.md's sections by anchor (branch readme94), and a
    section moved from README kept a README-relative link that led nowhere from docs/."""
    wrong = []
    for path in [*DOCS, ROOT / "examples" / "README.md"]:
        text = re.sub(r"```.*?```|`[^`\n]*`", "", _text(path), flags=re.S)  # code is not links
        for m in RELATIVE_LINK.finditer(text):
            target = (path.parent / m.group(1)).resolve() if m.group(1) else path
            if not target.exists():
                wrong.append(f"{path.relative_to(ROOT)}: {m.group(0)[2:-1]} (no such file)")
            elif m.group(2) and target.suffix == ".md" and m.group(2) not in _anchors(target):
                wrong.append(f"{path.relative_to(ROOT)}: {m.group(0)[2:-1]} (no such heading)")
    assert not wrong, f"links that lead nowhere: {wrong}"

def test_the_code_cites_design_sections():
    cited = [path for path in CODE if SECTION_CITATION.search(_text(path))]
    assert len(cited) >= 20


def test_every_function_design_names_is_where_it_says():
    """docs/design.md names each step as `file.py` `function`: both must exist."""
    wrong = []
    pairs = CODE_CITATION.findall(_text(ROOT / "docs" / "design.md"))
    assert len(pairs) >= 60
    for file, name in pairs:
        path = ROOT / (file if file.startswith("kistore/") else f"kistore/{file}")
        if not path.is_file():
            wrong.append(f"{file} (no such file)")
            continue
        top, _, member = name.partition(".")
        names = _module_names(path)
        if top not in names or (member and member not in names[top]):
            wrong.append(f"{file} {name}")
    assert not wrong, f"docs/design.md names what is not there: {wrong}"


def test_every_public_name_design_lists_is_in_the_package_all():
    """Each ``Public names (`__all__`): ...`` sentence of docs/design.md lists names the
    package's ``__all__`` holds (a subset: the paragraph names the main ones)."""
    text = _text(ROOT / "docs" / "design.md")
    found = re.findall(r"^\*\*`(\w+)/`\*\* -- (.*?)(?=^\*\*`|^## )", text, re.M | re.S)
    checked = 0
    for package, paragraph in found:
        listed = re.search(r"Public names \(`__all__`\):(.*?)(?:\.\s|\.\.\.|$)", paragraph,
                           re.S)
        if listed is None:
            continue
        names = set(re.findall(r"`(\w+)`", listed.group(1)))
        exported = set(importlib.import_module(f"kistore.{package}").__all__)
        assert names <= exported, (package, names - exported)
        checked += 1
    assert checked >= 8


def test_the_readme_says_how_far_ahead_check_lets_a_commit_be_dated():
    # fresh12 F16: the Citation section said "more than a day ahead"; KI438 refuses past
    # COMMIT_AHEAD (five minutes)
    from kistore.core.times import COMMIT_AHEAD

    text = " ".join((ROOT / "README.md").read_text().split())
    assert COMMIT_AHEAD == 300
    assert "a day ahead" not in text
    assert ("`kistore check` refuses commits dated more than five minutes ahead of its "
            "clock, KI438, or more than a day behind their parent, KI428)") in text
