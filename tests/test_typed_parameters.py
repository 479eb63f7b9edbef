"""No ``Any`` for a store, view, repository or tree parameter, in any package (issue 16 item 4).

tests/index/test_interfaces.py held the index alone, and the branches merged after it
brought 66 such parameters back elsewhere; this holds every module of kistore.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TYPED = {"store", "view", "repo", "tree"}
MODULES = sorted((ROOT / "kistore").rglob("*.py"))


def _untyped(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                if arg.arg in TYPED and (arg.annotation is None
                                         or ast.unparse(arg.annotation) == "Any"):
                    found.append(f"{node.name}({arg.arg}) at line {node.lineno}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_store_view_repo_or_tree_parameter_is_any(path):
    assert _untyped(path) == []


def test_the_check_sees_an_any_parameter(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from typing import Any\n\ndef f(store: Any, tree) -> None: ...\n"
                      "def g(repo: 'pygit2.Repository') -> None: ...\n")
    assert _untyped(module) == ["f(store) at line 3", "f(tree) at line 3"]
