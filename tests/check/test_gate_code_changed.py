"""KI429: a range that changes what the gate runs gets a warning (review r80 F5).

The CI gate judges a pull request with the BASE branch's kistore, so PR 1 changing only
``kistore/check/gate.py`` (a return that is off except under ``pull_request_target``) got
0 findings; once merged, that code judged PR 2, whose tampered object got "ok". The gate
cannot judge its own next version; it now tells the reviewer that a range changes it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kistore.check import _gate_code
from kistore.check.gate import check_range
from kistore.cli import main as cli
from kistore.core.findings import WARNING
from kistore.store import Store

from ..conftest import commit_all, git

BACKDOOR = ('def check_range(store, spec):\n    import os\n'
            '    if os.environ.get("GITHUB_EVENT_NAME") == "pull_request_target":\n'
            '        return []\n')


@pytest.fixture
def repo(published) -> Path:
    """The published store, holding a kistore/ tree, a Makefile and a workflow (as this
    repository does), committed."""
    (published / "kistore" / "check").mkdir(parents=True)
    (published / "kistore" / "check" / "gate.py").write_text("def check_range(store, spec):\n")
    (published / "Makefile").write_text("install:\n\tpip install -e .\n")
    (published / ".github" / "workflows").mkdir(parents=True)
    (published / ".github" / "workflows" / "pull-request.yml").write_text("on: push\n")
    commit_all(published, "the gate's code")
    return published


def ki429(path: Path, base: str = "HEAD~1"):
    found = check_range(Store(path), f"{base}..HEAD")
    return [f for f in found if f.rule.id == "KI429"], found


def test_pr1_changing_only_the_gates_code_is_flagged_for_review(repo, runner, monkeypatch):
    (repo / "kistore" / "check" / "gate.py").write_text(BACKDOOR)
    commit_all(repo, "gate: tidy")
    [finding], found = ki429(repo)
    assert found == [finding]  # nothing else: a warning, never an error
    assert finding.rule.severity == WARNING
    assert finding.file == "kistore/check/gate.py"
    assert finding.message == (
        "the range changes what the gate installs or runs (1 file: kistore/check/gate.py): "
        "it takes effect for the next pull request, judged by review alone")
    assert finding.extra == {"paths": ["kistore/check/gate.py"], "count": 1}
    # the CLI: warned, exit 0 (this repository's own pull requests all get it)
    monkeypatch.chdir(repo)
    done = runner.invoke(cli, ["check", "HEAD~1..HEAD"])
    assert done.exit_code == 0, done.output
    assert ("kistore/check/gate.py: warning KI429 gate-code-changed: the range changes what "
            "the gate installs or runs") in done.output
    assert "0 errors, 1 warning, 0 info" in done.output


@pytest.mark.parametrize("change, paths", [
    (lambda r: (r / "Makefile").write_text("install:\n\tcurl x | sh\n"), ["Makefile"]),
    (lambda r: (r / "pyproject.toml").write_text("[project]\nname = 'x'\n"),
     ["pyproject.toml"]),
    # the lock make install installs (deps98): a pin moved runs that release in the gate
    (lambda r: (r / "constraints.txt").write_text("cryptography==51.0.1\n"),
     ["constraints.txt"]),
    # Ajv's lock (deps00): npm ci installs package-lock.json's tarballs, package.json's names
    (lambda r: (r / "package-lock.json").write_text('{"lockfileVersion": 3}\n'),
     ["package-lock.json"]),
    (lambda r: (r / "package.json").write_text('{"dependencies": {"ajv": "8.99.0"}}\n'),
     ["package.json"]),
    (lambda r: (r / ".github" / "workflows" / "pull-request.yml").unlink(),
     [".github/workflows/pull-request.yml"]),  # a deletion counts
    (lambda r: (r / "hooks").mkdir() or (r / "hooks" / "pre-receive").write_text("exit 0\n"),
     ["hooks/pre-receive"]),
    (lambda r: (r / "schemas").mkdir() or (r / "schemas" / "BenchmarkRun.json").write_text("{}"),
     ["schemas/BenchmarkRun.json"]),
    (lambda r: (r / ".ci").mkdir() or (r / ".ci" / "run").write_text("true\n"), [".ci/run"]),
    (lambda r: shutil.rmtree(r / "kistore") or (r / "kistore").write_text("a file now\n"),
     ["kistore", "kistore/check/gate.py"]),  # a directory replaced by a file
    # reviewer r81 F3: make reads GNUmakefile first; python -m venv .venv keeps a .pth
    (lambda r: (r / "GNUmakefile").write_text("include Makefile\ninstall:\n\ttrue\n"),
     ["GNUmakefile"]),
    (lambda r: (r / ".venv" / "lib").mkdir(parents=True) or (r / ".venv" / "lib" / "zz.pth"
                                                              ).write_text("import os\n"),
     [".venv/lib/zz.pth"]),
    (lambda r: (r / "MANIFEST.in").write_text("include x\n"), ["MANIFEST.in"]),
    # reviewer r82 F3: `python -m venv`/`-m compileall` at the root import the root first
    (lambda r: (r / "compileall.py").write_text("import os\n"), ["compileall.py"]),
    (lambda r: (r / "venv").mkdir() or (r / "venv" / "__main__.py").write_text("import os\n"),
     ["venv/__main__.py"]),
    (lambda r: (r / "ensurepip").mkdir() or (r / "ensurepip" / "__init__.py").write_text(""),
     ["ensurepip/__init__.py"]),
    (lambda r: (r / "py_compile.cpython-311.pyc").write_bytes(b"\x00"),
     ["py_compile.cpython-311.pyc"]),
    (lambda r: (r / "helper.py").write_text("x = 1\n"), ["helper.py"]),  # any root module
    # reviewer r81 F3: the hook other stores' pre-commit runs
    (lambda r: (r / ".pre-commit-hooks.yaml").write_text("- id: kistore-verify\n"),
     [".pre-commit-hooks.yaml"]),
], ids=["Makefile", "pyproject", "lock", "npm-lock", "npm-package", "workflow-deleted", "hooks",
        "schemas", "ci", "dir-to-file", "GNUmakefile", "venv-pth", "manifest-in", "root-compileall",
        "root-venv-main", "root-ensurepip", "root-pyc", "root-any-py", "pre-commit-hooks"])
def test_each_place_the_gate_installs_or_runs_counts(repo, change, paths):
    change(repo)
    commit_all(repo, "change")
    [finding], _ = ki429(repo)
    assert finding.extra["paths"] == paths


def test_a_store_or_docs_change_says_nothing(repo, bundle):
    (repo / "README.md").write_text("kistore/ Makefile\n")  # names in prose, not paths
    (repo / "docs").mkdir()
    (repo / "docs" / "kistore.md").write_text("x\n")
    (repo / "kistore.toml").write_text((repo / "kistore.toml").read_text() + "\n")
    (repo / "examples").mkdir()
    (repo / "examples" / "run.json").write_text(json.dumps(bundle))
    (repo / "examples" / "venv.py").write_text("x = 1\n")  # below the root: never imported
    (repo / "tests").mkdir()  # a root directory no standard module is named as
    (repo / "tests" / "__init__.py").write_text("")
    commit_all(repo, "docs and settings")
    assert ki429(repo)[0] == []


def test_many_files_are_named_up_to_the_cap_and_counted(repo):
    for i in range(_gate_code.SHOWN + 2):
        (repo / "kistore" / f"m{i:02}.py").write_text(f"x = {i}\n")
    commit_all(repo, "twelve modules")
    [finding], _ = ki429(repo)
    assert finding.extra["count"] == 12
    named = ", ".join(f"kistore/m{i:02}.py" for i in range(10))
    assert f"(12 files: {named} and 2 more)" in finding.message


def test_a_two_commit_range_that_restores_the_code_says_nothing(repo):
    base = git(repo, "rev-parse", "HEAD").strip()
    gate = repo / "kistore" / "check" / "gate.py"
    before = gate.read_text()
    gate.write_text(BACKDOOR)
    commit_all(repo, "backdoor")
    gate.write_text(before)
    commit_all(repo, "undo")
    # the net change is what lands and what judges the next pull request
    assert ki429(repo, base)[0] == []


def test_a_root_module_deleted_counts_too(repo):
    (repo / "compileall.py").write_text("import os\n")
    commit_all(repo, "add")
    (repo / "compileall.py").unlink()
    commit_all(repo, "remove")
    [finding], _ = ki429(repo)
    assert finding.extra["paths"] == ["compileall.py"]


def test_the_makefile_runs_python_modules_without_the_root_on_sys_path():
    """Reviewer r82 F3's other half: each ``python -m`` of the Makefile runs with ``-P``.

    ``-P`` (Python 3.11+, as ``requires-python``) leaves the working directory off
    ``sys.path``, so a root ``compileall.py`` is not what ``make install`` runs.
    """
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    runs = [line.strip() for line in makefile.splitlines()
            if line.startswith("\t") and " -m " in line and " -m bench" not in line]
    assert runs[:3] == ["$(PYTHON) -P -m venv $(VENV)",  # make install, the gate job's
                        "$(BIN)/python -P -m compileall -q kistore",
                        "$(BIN)/python -P -m pytest -q"], runs  # make test
    assert all(" -P -m " in line for line in runs), runs


def test_the_script_make_install_takes_pips_pin_with_is_gate_code(repo):
    # mend02: `make install` runs scripts/hash_lock.py --block pip before pip installs
    # anything: a change to it changes the pip the next job installs; other scripts are not
    (repo / "scripts").mkdir()
    (repo / "scripts" / "hash_lock.py").write_text("print('pip==26.3')\n")
    (repo / "scripts" / "other.py").write_text("print('a tool')\n")
    commit_all(repo, "scripts")
    [finding], _ = ki429(repo)
    assert finding.extra == {"paths": ["scripts/hash_lock.py"], "count": 1}
    (repo / "scripts" / "other.py").write_text("print('another tool')\n")
    commit_all(repo, "another script")
    assert ki429(repo) == ([], [])
