"""kistore's messages say "this repository", never "this clone" (low01 item 4).

A store made by ``kistore init`` and given a remote is no clone, yet `show`, `attestations`,
`site build`, the notes commands and `add` called it one ("this clone's own attributes",
"never fetched into this clone", ...). "This repository" is right in both cases. Docstrings
and comments may still speak of clones; the words a user reads may not.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLONE = re.compile(r"\bthis clone\b|\b(?:the|a|your) clone's (?:own|notes|name)\b")


def _said(path: Path) -> list[str]:
    """Each ``FILE:LINE text`` of a string literal (not a docstring) that says CLONE."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    return [f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and CLONE.search(node.value)]


def test_no_message_calls_this_repository_a_clone():
    assert [said for path in sorted((ROOT / "kistore").rglob("*.py"))
            for said in _said(path)] == []


def test_the_scan_finds_such_words_in_messages_not_in_docstrings(tmp_path, monkeypatch):
    module = tmp_path / "m.py"
    module.write_text('"""Words of this clone."""\n\n'
                      'def f():\n    """This clone\'s own."""\n'
                      '    return f"{1} holds only this clone\'s own lines"\n')
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert _said(module) == ['m.py:5 " holds only this clone\'s own lines"']
