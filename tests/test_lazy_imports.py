"""Imports sit at the top of a module; one inside a function says why it waits.

A function-level import hides a dependency from the reader and from the layer contract's
first glance; it is kept only where start-up time needs it (`kistore --help` loads no
pygit2, cryptography, jsonschema or store code: tests/cli/test_cli_startup.py). Each such
import, or the first of a run of them, follows a comment that starts with "Lazy:".
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted((ROOT / "kistore").rglob("*.py"))


def _unexplained(path: Path, root: Path = ROOT) -> list[str]:
    """Return "FILE:LINE import ..." for each function-level import without a reason."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = []
    tree = ast.parse(text)
    imported = {number - 1 for node in ast.walk(tree)  # 0-based lines of every import,
                if isinstance(node, ast.Import | ast.ImportFrom)  # a wrapped one's all
                for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            above = node.lineno - 2
            while above >= 0 and above in imported:
                above -= 1  # a run of imports shares the comment above its first line
            if above < 0 or not lines[above].strip().startswith("# Lazy:"):
                found.append(f"{path.relative_to(root)}:{node.lineno} "
                             f"{lines[node.lineno - 1].strip()}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_function_level_import_says_why_it_is_lazy(path):
    assert _unexplained(path) == []


def test_a_run_of_wrapped_imports_shares_its_first_comment(tmp_path):
    module = tmp_path / "kistore" / "m.py"
    module.parent.mkdir()
    module.write_text("def f():\n    # Lazy: start-up.\n    from json import (\n        dumps,\n"
                      "        loads,\n    )\n    import os\n\n"
                      "def g():\n    x = (\n        1\n    )\n    import json\n    return x\n")
    assert _unexplained(module, tmp_path) == ["kistore/m.py:13 import json"]


def test_the_check_finds_an_unexplained_import(tmp_path):
    module = tmp_path / "kistore" / "m.py"
    module.parent.mkdir()
    module.write_text("def f():\n    # Lazy: start-up.\n    import json\n    import os\n\n"
                      "def g():\n    x = 1\n    import json\n    return x\n")
    assert [line.split(" ", 1)[1] for line in _unexplained(module, tmp_path)] == [
        "import json"]

