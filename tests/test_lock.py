"""The lock: ``make install`` installs constraints.txt's exact versions (deps98).

On 2026-12-05 a fresh install got cryptography 51.0.1, whose types failed ``make lint``
(mypy) on main with no change of ours: pyproject.toml bounds no dependency from above (a
library should not), so every CI run tested whatever was released that day. constraints.txt
pins every package of the install; these tests hold it to pyproject.toml's ranges, to the
install's whole closure (nothing missing, nothing stale), and hold the Makefile to using it
(``make test-latest`` alone goes without it).
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "constraints.txt"
NPM_LOCK = ROOT / "constraints-npm.txt"
AJV = ("ajv-formats@3.0.1 ajv@8.20.0 fast-deep-equal@3.1.3 fast-uri@3.1.9 "
       "json-schema-traverse@1.0.0 require-from-string@2.0.2")
"""Ajv's lock as ``make install`` passes it to npm (a moved pin changes this line too)."""
EXTRAS = ("export", "test", "lint")
"""The extras ``make install`` installs (``make bench``'s tools are not locked)."""
PIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+")
"""One line of the lock: a name and its exact version, nothing else (no range, no marker)."""


def pins(text: str) -> dict[NormalizedName, Version]:
    """The lock's pins by canonical name; a line that is no exact pin or a second pin of a
    name fails the test that reads it."""
    found: dict[NormalizedName, Version] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        assert PIN.fullmatch(line), f"constraints.txt: {line!r} is no NAME==VERSION pin"
        name, version = line.split("==")
        assert canonicalize_name(name) not in found, f"constraints.txt pins {name} twice"
        found[canonicalize_name(name)] = Version(version)
    return found


def requirements() -> list[Requirement]:
    """pyproject.toml's requirements of what ``make install`` installs, the build's too."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = [*project["build-system"]["requires"], *project["project"]["dependencies"]]
    for extra in EXTRAS:
        listed += project["project"]["optional-dependencies"][extra]
    return [Requirement(r) for r in listed]


def closure() -> set[NormalizedName]:
    """Every distribution kistore with :data:`EXTRAS` needs here, read from the installed
    packages' metadata (markers judged for this interpreter)."""
    seen: set[tuple[NormalizedName, frozenset[str]]] = set()
    todo = [(canonicalize_name("kistore"), frozenset(EXTRAS))]
    while todo:
        name, extras = todo.pop()
        for line in metadata.distribution(name).requires or []:
            req = Requirement(line)
            if req.marker is not None and not any(
                    req.marker.evaluate({"extra": extra}) for extra in extras or {""}):
                continue
            key = (canonicalize_name(req.name), frozenset(req.extras))
            if key not in seen:
                seen.add(key)
                todo.append(key)
    return {name for name, _ in seen}


def test_the_lock_pins_every_requirement_within_pyprojects_range():
    locked = pins(LOCK.read_text())
    assert {"pip", "setuptools", "cryptography", "mypy"} <= set(locked)  # pip: make install
    for req in requirements():
        name = canonicalize_name(req.name)
        assert name in locked, f"constraints.txt does not pin {req.name} ({req})"
        assert req.specifier.contains(locked[name], prereleases=True), (req, locked[name])
    # ... and the reader refuses what is no exact pin, which pip would take as a range
    for bad in ("cryptography>=50", "cryptography==50.*", "cryptography",
                "cryptography==50.0.2 ; python_version < '4'"):
        with pytest.raises(AssertionError, match="is no NAME==VERSION pin"):
            pins(f"# the lock\n{bad}\n")
    with pytest.raises(AssertionError, match="pins PyYAML twice"):
        pins("pyyaml==6.0.4\nPyYAML==6.0.4\n")
    assert pins("# c\nJinja2==3.1.6\nruamel.yaml==0.19.1\n") == {
        "jinja2": Version("3.1.6"), "ruamel-yaml": Version("0.19.1")}


def test_ajvs_lock_pins_ajv_and_all_it_needs_each_once_by_exact_version():
    lines = [x for x in NPM_LOCK.read_text().splitlines() if x and not x.startswith("#")]
    names = [x.rpartition("@")[0] for x in lines]
    assert " ".join(lines) == AJV  # what make install passes to npm
    assert all(re.fullmatch(r"(@[a-z0-9._-]+/)?[a-z0-9._-]+@\d+\.\d+\.\d+", x) for x in lines)
    assert len(set(names)) == len(names) and {"ajv", "ajv-formats"} <= set(names)
    # what ajv and ajv-formats need, where npm put them (make install's .venv/npm)
    modules = Path(sys.prefix) / "npm" / "node_modules"
    if not (modules / "ajv" / "package.json").is_file():
        pytest.skip("no Ajv in this venv (make install puts it there when npm is there)")
    needed = {"ajv", "ajv-formats"}
    for name in ("ajv", "ajv-formats"):
        needed |= set(json.loads((modules / name / "package.json").read_text())
                      .get("dependencies", {}))
    assert set(names) == needed


def test_the_lock_is_exactly_what_the_install_needs():
    locked = pins(LOCK.read_text())
    installed: dict[NormalizedName, Version | None] = {}
    for name in locked:
        try:
            installed[name] = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            installed[name] = None
    if installed != locked:  # make test-latest's venv, or one made before the lock changed
        moved = sorted(f"{n} {installed[n]} (locked {v})" for n, v in locked.items()
                       if installed[n] != v)
        pytest.skip(f"this venv is not the lock's ({', '.join(moved[:3])}): the closure is "
                    "judged in the venv make install makes")
    # every package the install needs is pinned, and every pin is one it needs (pip: the
    # Makefile upgrades it under the lock first)
    assert set(locked) == closure() | {"pip"}


def dry_run(tmp_path: Path, *args: str) -> list[str]:
    """The commands ``make -n ARGS`` would run in ``tmp_path``, given a copy of the files the
    install reads, backslash-continued lines joined and spaces collapsed."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed (apt-get install make)")
    for name in ("Makefile", "pyproject.toml", "constraints.txt", "constraints-npm.txt"):
        if not (tmp_path / name).exists():  # a second run keeps the times the test set
            shutil.copy(ROOT / name, tmp_path / name)
    done = subprocess.run(["make", "-n", *args], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    return [" ".join(line.split()) for line in done.stdout.replace("\\\n", " ").splitlines()]


def test_make_install_installs_the_lock_and_a_changed_lock_installs_again(tmp_path):
    ran = dry_run(tmp_path, "install")
    pip = [line for line in ran if "/pip install" in line]
    assert pip == [
        ".venv/bin/pip install --quiet --upgrade -c constraints.txt pip",
        ".venv/bin/pip install --quiet --upgrade --upgrade-strategy eager -c constraints.txt "
        "--build-constraint constraints.txt -e '.[export,test,lint]'"]
    assert ("if command -v npm >/dev/null 2>&1; then npm install --silent --no-audit --no-fund "
            f"--save-exact --prefix .venv/npm {AJV}; fi") in ran
    # installed after the lock's last change: nothing to do; the lock changed: install again
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / ".installed").touch()
    assert not any("/pip install" in line for line in dry_run(tmp_path, "install"))
    now = (tmp_path / ".venv" / ".installed").stat().st_mtime
    for lock in ("constraints.txt", "constraints-npm.txt"):  # each lock, one at a time
        now += 10
        os.utime(tmp_path / lock, (now, now))
        assert sum("/pip install" in line for line in dry_run(tmp_path, "install")) == 2, lock
        os.utime(tmp_path / ".venv" / ".installed", (now + 1, now + 1))  # installed again


def test_make_test_latest_installs_the_newest_releases_without_the_lock(tmp_path):
    ran = dry_run(tmp_path, "test-latest")
    pip = [line for line in ran if "/pip install" in line]
    assert pip == [".venv-latest/bin/pip install --quiet --upgrade pip",
                   ".venv-latest/bin/pip install --quiet --upgrade --upgrade-strategy eager "
                   "-e '.[export,test,lint]'"]
    assert ("if command -v npm >/dev/null 2>&1; then npm install --silent --no-audit --no-fund "
            "--save-exact --prefix .venv-latest/npm ajv@8 ajv-formats@3; fi") in ran
    assert ".venv-latest/bin/mypy kistore" in ran
    assert ".venv-latest/bin/python -P -m pytest -q" in ran
    assert not any("constraints" in line for line in ran)
