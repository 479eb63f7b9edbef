"""The lock: ``make install`` installs constraints.txt's exact versions, by hash (deps98, deps00).

On 2026-12-05 a fresh install got cryptography 51.0.1, whose types failed ``make lint``
(mypy) on main with no change of ours: pyproject.toml bounds no dependency from above (a
library should not), so every CI run tested whatever was released that day. constraints.txt
pins every package of the install; these tests hold it to pyproject.toml's ranges, to the
install's whole closure (nothing missing, nothing stale), and hold the Makefile to using it
(``make test-latest`` alone goes without it). Since 2026-12-06 (deps00) each pin carries the
SHA-256 of the archives pip may take for it and the install runs in pip's hash-checking
mode, and Ajv comes from package-lock.json by ``npm ci`` (each tarball's SHA-512).
"""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement
from packaging.tags import Tag
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "constraints.txt"
EXTRAS = ("export", "test", "lint")
"""The extras ``make install`` installs (``make bench``'s tools are not locked)."""
PIN = re.compile(r"(?P<pin>[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+)"
                 r"(?P<hashes>(?: --hash=sha256:[0-9a-f]{64})+)")
"""One requirement of the lock, its backslash-continued lines joined: a name and its exact
version (no range, no marker), then one ``--hash=sha256:`` or more (64 lower-case hex)."""
INSTALL_FILES = ("Makefile", "pyproject.toml", "constraints.txt", "package.json",
             "package-lock.json")
"""The files ``make install`` reads (the dry runs below copy them)."""


def pins(text: str) -> dict[NormalizedName, Version]:
    """The lock's pins by canonical name; a requirement that is no exact pin with its hashes,
    or a second pin of a name, fails the test that reads it."""
    found: dict[NormalizedName, Version] = {}
    for line in text.replace("\\\n", " ").splitlines():  # a continued line is one requirement
        line = " ".join(line.split())
        if not line or line.startswith("#"):
            continue
        match = PIN.fullmatch(line)
        assert match, f"constraints.txt: {line!r} is no NAME==VERSION pin with its hashes"
        name, version = match["pin"].split("==")
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
    # ... and the reader refuses what is no exact pin, which pip would take as a range, and
    # a pin without a hash, which hash-checking mode refuses (so would the install)
    digest = "--hash=sha256:" + "0" * 64
    for bad in (f"cryptography>=50 {digest}", f"cryptography==50.* {digest}",
                f"cryptography {digest}", f"cryptography==50.0.2 ; python_version < '4' {digest}",
                "cryptography==50.0.2", "cryptography==50.0.2 --hash=sha256:00",
                "cryptography==50.0.2 --hash=md5:" + "0" * 32,
                "cryptography==50.0.2 --hash=sha256:" + "A" * 64):
        with pytest.raises(AssertionError, match="is no NAME==VERSION pin with its hashes"):
            pins(f"# the lock\n{bad}\n")
    with pytest.raises(AssertionError, match="pins PyYAML twice"):
        pins(f"pyyaml==6.0.4 {digest}\nPyYAML==6.0.4 {digest}\n")
    assert pins(f"# c\nJinja2==3.1.6 \\\n    {digest} \\\n    {digest}\n"
                f"ruamel.yaml==0.19.1 {digest}\n") == {
        "jinja2": Version("3.1.6"), "ruamel-yaml": Version("0.19.1")}


def test_every_pin_of_the_lock_carries_its_archives_hashes():
    """Hash-checking mode refuses the whole install if one requirement lacks a hash; each
    digest is listed once per pin and is a SHA-256 (64 hex digits)."""
    text = LOCK.read_text()
    requirements = [" ".join(x.split()) for x in text.replace("\\\n", " ").splitlines()
                    if x.strip() and not x.startswith("#")]
    assert len(requirements) == len(pins(text)) == 64
    for requirement in requirements:
        digests = re.findall(r"--hash=sha256:([0-9a-f]{64})", requirement)
        assert digests and len(set(digests)) == len(digests), requirement
    # pip itself: make install takes its requirement out (hash_lock.py --block) first
    block = hash_lock().block(text.splitlines(keepends=True), "pip")
    assert block.startswith("pip==26.3 \\\n    --hash=sha256:")
    assert pins(block) == {"pip": Version("26.3")}


def hash_lock() -> ModuleType:
    """scripts/hash_lock.py, which make lock runs (scripts/ is no package)."""
    spec = importlib.util.spec_from_file_location("hash_lock", ROOT / "scripts" / "hash_lock.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_lock_hashes_the_wheels_this_platform_installs_and_the_sdist():
    """The archives of a PEP 691 page hash_lock.py keeps: of the pinned release, each wheel
    whose tags this interpreter installs and the sdist; nothing of another version, project,
    platform or format. Hand-made page, hand-picked tags."""
    module = hash_lock()
    tags = frozenset({Tag("cp311", "cp311", "manylinux_2_17_x86_64"),
                      Tag("cp311", "abi3", "manylinux_2_28_x86_64"),
                      Tag("py3", "none", "any")})

    def page(*names: str) -> list[dict]:
        return [{"filename": n, "hashes": {"sha256": f"{i:064x}"}} for i, n in enumerate(names)]

    files = page("cryptography-50.0.2.tar.gz",                                           # 0
                 "cryptography-50.0.2-cp311-abi3-manylinux_2_28_x86_64.whl",             # 1
                 "cryptography-50.0.2-cp311-abi3-manylinux_2_28_aarch64.whl",            # 2
                 "cryptography-50.0.2-cp311-abi3-macosx_10_9_universal2.whl",            # 3
                 "cryptography-50.0.2-cp311-cp311-manylinux_2_17_x86_64."
                 "manylinux2014_x86_64.whl",                                             # 4
                 "cryptography-50.0.1-cp311-abi3-manylinux_2_28_x86_64.whl",             # 5
                 "cryptography-50.0.1.tar.gz",                                           # 6
                 "cryptography-50.0.2-py2.7.egg",                                        # 7
                 "cryptography_vectors-50.0.2.tar.gz")                                   # 8
    assert module.archives(files, "Cryptography", "50.0.2", tags) == [
        f"{0:064x}", f"{1:064x}", f"{4:064x}"]
    assert module.archives(page("PyYAML-6.0.4-py3-none-any.whl"), "pyyaml", "6.0.4",
                           tags) == [f"{0:064x}"]
    with pytest.raises(module.LockError, match="no wheel for this platform and no sdist"):
        module.archives(files[2:4], "cryptography", "50.0.2", tags)
    with pytest.raises(module.LockError, match="gives no SHA-256 for cryptography-50.0.2.tar"):
        module.archives([{"filename": "cryptography-50.0.2.tar.gz", "hashes": {"md5": "0"}}],
                        "cryptography", "50.0.2", tags)
    # comments pass through; a line that is no pin stops the lock before a file is written
    assert list(module.hashed(["# the lock\n", "\n"], "https://index.invalid")) == [
        "# the lock", ""]
    with pytest.raises(module.LockError, match="'-e .' is no NAME==VERSION pin"):
        list(module.hashed(["-e ."], "https://index.invalid"))


def test_ajvs_lock_is_npm_cis_each_package_once_by_exact_version_and_integrity():
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert package["private"] is True  # never published by mistake
    assert package["dependencies"] == {"ajv": "8.20.0", "ajv-formats": "3.0.1"}  # exact
    assert lock["lockfileVersion"] == 3
    assert lock["packages"][""]["dependencies"] == package["dependencies"]  # npm ci's check
    locked = {path.removeprefix("node_modules/"): entry
              for path, entry in lock["packages"].items() if path}
    assert all(re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", e["integrity"])
               for e in locked.values())
    versions = {name: entry["version"] for name, entry in locked.items()}
    assert versions == {"ajv": "8.20.0", "ajv-formats": "3.0.1", "fast-deep-equal": "3.1.3",
                        "fast-uri": "3.1.9", "json-schema-traverse": "1.0.0",
                        "require-from-string": "2.0.2"}
    # nothing more than ajv and ajv-formats need (each package's dependencies, as locked)
    needed = set(package["dependencies"])
    for name in ("ajv", "ajv-formats"):
        needed |= set(locked[name].get("dependencies", {}))
    assert set(locked) == needed
    # where npm ci put them (make install's .venv/npm): the lock's versions
    modules = Path(sys.prefix) / "npm" / "node_modules"
    if not (modules / "ajv" / "package.json").is_file():
        pytest.skip("no Ajv in this venv (make install puts it there when npm is there)")
    assert {name: json.loads((modules / name / "package.json").read_text())["version"]
            for name in versions} == versions


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
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    stated = {canonicalize_name(Requirement(r).name) for r in project}
    if not stated <= {canonicalize_name(Requirement(r).name)
                      for r in metadata.distribution("kistore").requires or []}:
        pytest.skip("this venv's kistore was installed from another pyproject.toml (a "
                    "dependency added since): the closure is judged in the venv make install "
                    "makes")
    # every package the install needs is pinned, and every pin is one it needs (pip: the
    # Makefile upgrades it under the lock first)
    assert set(locked) == closure() | {"pip"}


def dry_run(tmp_path: Path, *args: str) -> list[str]:
    """The commands ``make -n ARGS`` would run in ``tmp_path``, given a copy of the files the
    install reads, backslash-continued lines joined and spaces collapsed."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed (apt-get install make)")
    for name in INSTALL_FILES:
        if not (tmp_path / name).exists():  # a second run keeps the times the test set
            shutil.copy(ROOT / name, tmp_path / name)
    done = subprocess.run(["make", "-n", *args], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    return [" ".join(line.split()) for line in done.stdout.replace("\\\n", " ").splitlines()]


NPM_CI = ("if command -v npm >/dev/null 2>&1; then rm -rf .venv/npm && mkdir -p .venv/npm && "
          "cp package.json .venv/npm/ && cp package-lock.json .venv/npm/ && npm ci --silent "
          "--no-audit --no-fund --ignore-scripts --prefix .venv/npm ; fi")
"""How ``make install`` installs Ajv: npm ci of the committed lock, no install scripts."""


PIP_BLOCK = ".venv/bin/python -P scripts/hash_lock.py --block pip < constraints.txt > " \
    ".venv/pip-lock.txt"
"""How ``make install`` writes the requirement it installs pip from (mend02: was a sed range)."""


def test_make_install_installs_the_lock_by_hash_and_a_changed_lock_installs_again(tmp_path):
    ran = dry_run(tmp_path, "install")
    pip = [line for line in ran if "/pip " in line]
    assert pip == [
        ".venv/bin/pip install --quiet --require-hashes --no-deps -r .venv/pip-lock.txt",
        ".venv/bin/pip install --quiet --require-hashes --no-deps -r constraints.txt",
        ".venv/bin/pip install --quiet --no-deps --no-build-isolation -e .",
        ".venv/bin/pip check",
        ".venv/bin/pip download --quiet --require-hashes --no-deps --no-build-isolation "
        "-d .venv/test-schemas -r .venv/test-schemas.txt"]
    assert PIP_BLOCK in ran
    assert ran.index(PIP_BLOCK) < ran.index(pip[0])
    schemas = next(line for line in ran if "> .venv/test-schemas.txt" in line)
    assert schemas.count("--hash=sha256:") == 3 and "cffconvert==2.0.0 " in schemas
    assert NPM_CI in ran
    assert not any("npm install" in line for line in ran)
    # installed after the locks' last change: nothing to do; a lock changed: install again
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / ".installed").touch()
    assert not any("/pip install" in line for line in dry_run(tmp_path, "install"))
    now = (tmp_path / ".venv" / ".installed").stat().st_mtime
    for lock in ("constraints.txt", "package.json", "package-lock.json"):  # one at a time
        now += 10
        os.utime(tmp_path / lock, (now, now))
        assert sum("/pip install" in line for line in dry_run(tmp_path, "install")) == 3, lock
        os.utime(tmp_path / ".venv" / ".installed", (now + 1, now + 1))  # installed again


def test_make_install_installs_pip_from_exactly_pips_pin_with_all_its_hashes(tmp_path):
    """mend02: the Makefile cut pip's requirement out of the lock with a sed range
    (`sed -n '/^pip==/,/[^\\]$/p'`), which in a lock saved with CRLF line ends stops after
    the first hash line, its backslash left continuing nothing. The command `make -n install`
    prints that writes .venv/pip-lock.txt is run here, in a venv holding the standard
    library alone (it runs before anything is installed), against the lock and variants."""
    line = next(x for x in dry_run(tmp_path, "install") if x.endswith("> .venv/pip-lock.txt"))
    done = subprocess.run([sys.executable, "-m", "venv", "--without-pip", ".venv"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "hash_lock.py", tmp_path / "scripts")
    text = LOCK.read_text()
    [pip] = re.findall(r"^pip==26\.3(?: \\\n    --hash=sha256:[0-9a-f]{64})+$", text, re.M)
    assert pip.count("--hash=") == 2  # every wheel and the sdist (make lock)

    def written(lock: str) -> tuple[int, str, str]:
        (tmp_path / "constraints.txt").write_bytes(lock.encode())
        ran = subprocess.run(["sh", "-c", line], cwd=tmp_path, capture_output=True, text=True)
        return ran.returncode, (tmp_path / ".venv" / "pip-lock.txt").read_text(), ran.stderr

    assert written(text) == (0, pip + "\n", "")
    assert written(text.replace("\n", "\r\n")) == (0, pip + "\n", "")  # sed: one hash
    tools = "pip-tools==7.4.1 \\\n    --hash=sha256:" + "1" * 64 + "\n"
    noted = text.replace(pip + "\n", tools + pip + "\n# pip's own pin, above\n")
    assert written(noted) == (0, pip + "\n", "")
    failed, _, said = written(text.replace(pip + "\n", ""))  # no pip: make stops there
    assert (failed, said) == (2, "hash_lock: the lock pins pip 0 times: once is what pip "
                                 "installs\n")
    failed, _, said = written(text.replace(pip, "pip==26.3"))  # no hash
    assert (failed, said) == (2, "hash_lock: pip==26.3: the lock's requirement is no "
                                 "NAME==VERSION pin followed by --hash=sha256: options only "
                                 "(no hash)\n")


def test_make_test_latest_installs_the_newest_releases_without_the_lock(tmp_path):
    ran = dry_run(tmp_path, "test-latest")
    pip = [line for line in ran if "/pip install" in line]
    assert pip == [".venv-latest/bin/pip install --quiet --upgrade pip",
                   ".venv-latest/bin/pip install --quiet --upgrade --upgrade-strategy eager "
                   "-e '.[export,test,lint]'"]
    assert ("if command -v npm >/dev/null 2>&1; then rm -rf .venv-latest/npm && mkdir -p "
            ".venv-latest/npm && cp package.json .venv-latest/npm/ && npm install --save-exact "
            "--silent --no-audit --no-fund --ignore-scripts --prefix .venv-latest/npm "
            "ajv@8 ajv-formats@3; fi") in ran
    assert ".venv-latest/bin/mypy kistore" in ran
    assert ".venv-latest/bin/python -P -m pytest -q" in ran
    assert not any("constraints" in line or "package-lock" in line for line in ran)


def test_make_lock_writes_the_hashes_and_ajvs_lock_from_the_latest_venv(tmp_path):
    (tmp_path / ".venv-latest").mkdir()
    (tmp_path / ".venv-latest" / ".installed").touch()
    ran = dry_run(tmp_path, "lock")
    assert ("{ grep '^#' constraints.txt; .venv-latest/bin/pip freeze --all --exclude-editable "
            "| grep -v -e '^#' -e '^-e '; } | .venv-latest/bin/python -P scripts/hash_lock.py "
            "> constraints.txt.new") in ran
    assert ("if [ -f .venv-latest/npm/package-lock.json ]; then cp .venv-latest/npm/"
            "package.json .venv-latest/npm/package-lock.json .; fi") in ran


def test_make_test_prints_the_versions_of_the_unpinned_debian_packages(tmp_path):
    """Debian's packages are not pinned (its archive moves): make test says in the CI log
    which versions of each the run got (deps00), so a failure after an update reads so."""
    assert re.search(r"^test: .*\bversions\b", (ROOT / "Makefile").read_text(), re.M)
    ran = dry_run(tmp_path, "versions")
    assert any(line.startswith("dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\\n' "
                               "chromium chromium-driver jq npm nodejs openssh-client git make")
               for line in ran), ran
    done = subprocess.run(["make", "-s", "versions"], cwd=tmp_path, capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("system packages (Debian's, not pinned):\n")
    if shutil.which("dpkg-query") and shutil.which("make", path="/usr/bin"):
        assert re.search(r"^  make \S+$", done.stdout, re.M), done.stdout  # make runs it
