"""Every public function and class of kistore has a docstring, and one that raises says so.

The house style (/work/shared/STYLE.md, "Docstrings"): every public name says what goes in
and out and every error raised. ruff's D rules hold the first for module-level names; this
holds it with no ``noqa`` way round (a method without one passes only when it overrides a
kistore base class's documented method), and holds the second where it can be read from
the code: a public function or method whose own body raises (``raise X``; not a bare
re-raise, not an abstract method's ``NotImplementedError``, not a click command, whose
docstring is its ``--help``) names it in its docstring (``Raises:``, "raises ...").

Left out (doc01): "Raises nothing" of every public function (1,129 public functions and
methods at b1992eea + doc01 say neither, most raising nothing: to be read one by one, not
required by a test), and the 68 public-named closures without a docstring.

Parsed with :mod:`ast`, nothing imported.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted((ROOT / "kistore").rglob("*.py"))
RAISES = re.compile(r"\braise", re.IGNORECASE)
""""Raises:", "raises", "Raises nothing", "is raised": a docstring that speaks of it."""

_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class _Class:
    """A class as read: its bases' simple names and which methods carry a docstring."""

    bases: list[str]
    documented: set[str] = field(default_factory=set)


def _public(name: str) -> bool:
    return not name.startswith("_")


def _overload(node: _Function) -> bool:
    return any((d.id if isinstance(d, ast.Name) else getattr(d, "attr", "")) == "overload"
               for d in node.decorator_list)


def _command(node: _Function) -> bool:
    """Whether a click decorator makes ``node`` a command (``@group.command(...)``)."""
    for d in node.decorator_list:
        call = d.func if isinstance(d, ast.Call) else d
        if (call.attr if isinstance(call, ast.Attribute) else getattr(call, "id", "")) in (
                "command", "group"):
            return True
    return False


def _own_raise(node: _Function) -> ast.Raise | None:
    """Return the first ``raise X`` of ``node``'s own body (not of a nested def or class)."""
    pending: list[ast.AST] = list(node.body)
    while pending:
        x = pending.pop(0)
        if isinstance(x, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(x, ast.Raise) and x.exc is not None:
            raised = x.exc.func if isinstance(x.exc, ast.Call) else x.exc
            if not (isinstance(raised, ast.Name) and raised.id == "NotImplementedError"):
                return x
        pending.extend(ast.iter_child_nodes(x))
    return None


def _base_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _classes(paths: list[Path]) -> dict[str, list[_Class]]:
    """Return every class of ``paths`` by simple name (one name may be several classes)."""
    found: dict[str, list[_Class]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(_Class(
                    [_base_name(b) for b in node.bases],
                    {n.name for n in node.body
                     if isinstance(n, _Function) and ast.get_docstring(n) is not None}))
    return found


def _inherited(classes: dict[str, list[_Class]], bases: list[str], method: str) -> bool:
    """Whether a kistore class among ``bases`` (or theirs) documents ``method``."""
    pending, seen = list(bases), set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for cls in classes.get(name, []):
            if method in cls.documented:
                return True
            pending += cls.bases
    return False


def _problems(path: Path, root: Path, classes: dict[str, list[_Class]]) -> list[str]:
    """Return "FILE:LINE NAME: what is missing" for each public name of a module."""
    where = path.relative_to(root)
    found = []

    def function(node: _Function, qualified: str, bases: list[str] | None) -> None:
        doc = ast.get_docstring(node)
        if doc is None:
            if not _overload(node) and not (
                    bases is not None and _inherited(classes, bases, node.name)):
                found.append(f"{where}:{node.lineno} {qualified}: no docstring")
        elif not _command(node) and (raised := _own_raise(node)) is not None \
                and not RAISES.search(doc):
            found.append(f"{where}:{node.lineno} {qualified}: raises at line "
                         f"{raised.lineno}, its docstring does not say so")

    def body(nodes: list[ast.stmt], prefix: str, bases: list[str] | None) -> None:
        for node in nodes:
            if isinstance(node, ast.If | ast.Try):  # a name defined under a test
                body([*node.body, *node.orelse,
                      *[s for h in getattr(node, "handlers", []) for s in h.body]],
                     prefix, bases)
            elif isinstance(node, ast.ClassDef) and _public(node.name):
                if ast.get_docstring(node) is None:
                    found.append(f"{where}:{node.lineno} {prefix}{node.name}: no docstring")
                body(node.body, f"{prefix}{node.name}.", [_base_name(b) for b in node.bases])
            elif isinstance(node, _Function) and _public(node.name):
                function(node, f"{prefix}{node.name}", bases)

    body(ast.parse(path.read_text(encoding="utf-8")).body, "", None)
    return found


@pytest.fixture(scope="module")
def classes() -> dict[str, list[_Class]]:
    return _classes(MODULES)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_public_name_has_a_docstring_that_says_what_it_raises(path, classes):
    assert _problems(path, ROOT, classes) == []


def test_the_check_sees_what_is_missing(tmp_path):
    module = tmp_path / "kistore" / "m.py"
    module.parent.mkdir()
    module.write_text(
        "import click\n"
        "class Base:\n    '''Doc.'''\n    def read(self):\n        '''Doc.'''\n"
        "        raise NotImplementedError\n"
        "class Child(Base):\n    '''Doc.'''\n    def read(self):\n        return 1\n"
        "    def write(self):\n        return 2\n"
        "class Bare:\n    pass\n"
        "def quiet():\n    '''Return 1.'''\n    return 1\n"
        "def loud(x):\n    '''Return x.'''\n    if x:\n        raise ValueError(x)\n"
        "def said(x):\n    '''Return x.\n\n    Raises:\n        ValueError: x.\n    '''\n"
        "    raise ValueError(x)\n"
        "def again():\n    '''Re-raise.'''\n    try:\n        pass\n    except OSError:\n"
        "        raise\n"
        "def outer():\n    '''Return f.'''\n    def inner():\n        raise OSError\n"
        "    return inner\n"
        "@click.command()\ndef cmd():\n    '''Help text.'''\n    raise click.UsageError('x')\n"
        "def _private():\n    raise OSError\n")
    found = _problems(module, tmp_path, _classes([module]))
    assert found == [
        "kistore/m.py:11 Child.write: no docstring",
        "kistore/m.py:13 Bare: no docstring",
        "kistore/m.py:18 loud: raises at line 21, its docstring does not say so",
    ]
