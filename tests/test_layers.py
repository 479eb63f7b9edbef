"""The layer contract (docs/design.md) holds, and an upward import breaks it.

`make lint` runs import-linter with the contracts in pyproject.toml. These tests run the
same command on a copy of the package: unchanged it passes; with one upward import added
on purpose (even inside a function, as a lazy import would be) it fails and names it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(),
                                reason="import-linter is not installed (`make install` adds it)")


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "kistore", tmp_path / "kistore",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", "pyproject.toml"],
                          cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)


def _append(path: Path, code: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + code, encoding="utf-8")


def test_the_layers_hold_as_committed(tmp_path: Path) -> None:
    done = _lint(_copy(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 2 kept, 0 broken." in done.stdout


def test_an_upward_import_inside_a_function_breaks_the_contract(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _append(root / "kistore" / "core" / "digest.py",
            "\n\ndef _upward() -> object:\n    from ..cli import main\n\n    return main\n")
    done = _lint(root)
    assert done.returncode == 1
    assert "Layers: data flows one way BROKEN" in done.stdout
    assert "kistore.core.digest -> kistore.cli" in done.stdout


def test_the_store_importing_the_checks_breaks_the_contract(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _append(root / "kistore" / "store" / "_views.py", "\nfrom ..check import _rules  # noqa\n")
    done = _lint(root)
    assert done.returncode == 1
    assert "kistore.store._views -> kistore.check._rules" in done.stdout


def test_git_in_the_pure_core_breaks_the_contract(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _append(root / "kistore" / "core" / "canonical.py", "\nimport pygit2  # noqa\n")
    done = _lint(root)
    assert done.returncode == 1
    assert "The pure core needs no git, no keys and no CLI BROKEN" in done.stdout
    assert "kistore.core.canonical -> pygit2" in done.stdout
