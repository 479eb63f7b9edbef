"""The index's parameters are typed (issue 16 item 4): no ``Any`` for a store, view,
repository or tree; the store layer above is named by Protocols (kistore/index/interfaces.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import kistore.index
from kistore.index import interfaces
from kistore.store import Store, View

PACKAGE = Path(kistore.index.__file__).parent
TYPED = {"store", "view", "repo", "tree", "head", "old", "new", "source"}


def test_no_store_view_repo_or_tree_parameter_is_any():
    untyped = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for arg in [*node.args.args, *node.args.kwonlyargs]:
                    if arg.arg in TYPED and (arg.annotation is None or
                                             ast.unparse(arg.annotation) == "Any"):
                        untyped.append(f"{path.name}:{node.lineno} {node.name}({arg.arg})")
    assert untyped == []


def test_the_store_layer_satisfies_the_protocols(store):
    # structurally, at run time too: the members the index uses are there
    for member in ("root", "git_dir", "repo", "commit", "view"):
        assert hasattr(Store, member) or hasattr(store, member), member
    for member in ("scope", "read", "digests"):
        assert hasattr(View, member), member
    assert set(kistore.index.__all__) >= {"IndexedStore", "StoreView"}
    assert interfaces.IndexedStore.__doc__ and interfaces.StoreView.__doc__
