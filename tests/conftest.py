"""Shared fixtures: a fresh git-backed store per test, the published record, a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests" / "vectors"
SHARED = Path(os.environ.get("KISTORE_SHARED", ROOT.parent / "shared"))
"""The shared folder beside the clone (its data/ and examples/); absent on a GitHub runner."""
EXAMPLES = ROOT / "examples"
BUNDLE = EXAMPLES / "sol-execbench-submission-20464.bundle.json"
"""The published record, kept in the repository (a copy of shared/examples' file)."""
PUBLISHED = json.loads((VECTORS / "published-digests.json").read_text())["digests"]

# Real `git` in tests needs an identity; never depend on the machine's global config.
for key, value in {
    "GIT_AUTHOR_NAME": "kistore tests", "GIT_AUTHOR_EMAIL": "tests@kistore.invalid",
    "GIT_COMMITTER_NAME": "kistore tests", "GIT_COMMITTER_EMAIL": "tests@kistore.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}.items():
    os.environ.setdefault(key, value)


def read_archive_member(archive: str, member: str) -> bytes:
    """Read one file from a wheel or sdist that `make install` put in .venv/test-schemas."""
    import sys
    import tarfile
    import zipfile

    path = Path(os.environ.get("KISTORE_TEST_SCHEMAS", Path(sys.prefix) / "test-schemas")) / archive
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `make install` (it downloads {archive})")
    if archive.endswith(".whl"):
        return zipfile.ZipFile(path).read(member)
    with tarfile.open(path) as tar:
        extracted = tar.extractfile(member)
        assert extracted is not None
        return extracted.read()


def findings_lines(output: str) -> list[str]:
    """The lines of a text report of `verify` or `check` without its ``fix KI...`` lines.

    For tests about the findings themselves; tests/check/test_fix_lines.py holds the fix
    lines to their own text.
    """
    return [line for line in output.splitlines() if not line.startswith("fix KI")]


def git(cwd: Path, *args: str) -> str:
    """Run the real git binary and return its stdout."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def next_second(repo: Path | None = None) -> None:
    """Wait until the clock reads a whole second after the one it reads now.

    Git dates commits (so the entry of an attestation, a trust change, a reflog entry) in
    whole seconds, and entries of one second are unordered on purpose (judged together: a
    note line in a trust commit's own second is a community attestation,
    docs/attestations.md); on an idle machine two steps of a test fall in one second. A
    test that orders two time-dependent steps calls this between them, and only there
    (each call costs up to a second).

    Args:
        repo: wait instead until the clock is past the newest committer second of this
            repository's ``main`` and ``refs/notes/*`` (no wait when they are older; a
            commit dated ahead by the test is waited for).
    """
    import time

    newest = int(time.time()) if repo is None else max(
        int(t) for t in git(repo, "log", "--format=%ct", "main", "--glob=refs/notes").split())
    while (left := newest + 1.01 - time.time()) > 0:
        time.sleep(left)


def note_taken_out_and_back(root: Path, blob: str) -> tuple[str, bytes]:
    """Remove the ``refs/notes/kistore`` note on ``blob`` and add it back, as two notes commits.

    The history a push could bring before the gate judged every notes commit (KI408,
    reviewer fresh01 F8): the middle commit lacks lines its history held.

    Returns:
        The middle notes commit (40 hex) and the note's bytes.
    """
    note = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob], cwd=root,
                          check=True, capture_output=True).stdout
    git(root, "notes", "--ref", "kistore", "remove", blob)
    middle = git(root, "rev-parse", "refs/notes/kistore").strip()
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-F", "-", blob], cwd=root,
                   input=note, check=True, capture_output=True)
    return middle, note


def write_tree(repo, placed: dict[str, Any]) -> Any:
    """Write the git tree holding each blob id of ``placed`` at its ``/``-path; return its id.

    Directories are made as the paths need them (entries of mode 100644 and 040000), with
    pygit2's TreeBuilder: a hand-made notes tree (fan-out forms), say.
    """
    # Lazy: pygit2 loads only for the tests that build trees.
    import pygit2

    root: dict = {}
    for path, oid in placed.items():
        *dirs, leaf = path.split("/")
        node = root
        for name in dirs:
            node = node.setdefault(name, {})
        node[leaf] = oid

    def write(node: dict) -> Any:
        builder = repo.TreeBuilder()
        for name, child in node.items():
            if isinstance(child, dict):
                builder.insert(name, write(child), pygit2.GIT_FILEMODE_TREE)
            else:
                builder.insert(name, child, pygit2.GIT_FILEMODE_BLOB)
        return builder.write()

    return write(root)


def python_c(code: str, *args: str, check: bool = True,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -c CODE ARGS`` in a fresh interpreter (this one's), capturing its text.

    What a start-up test needs: no module of this process loaded there, real signals.
    ``check``: a non-zero exit raises (``CalledProcessError``); ``env``: the whole
    environment (default: this process's).
    """
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, check=check, env=env)


def reader_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a reader running a doc's commands: this kistore first on PATH.

    A fresh HOME (under ``tmp_path``) whose git config only names ``main`` the default
    branch, a git identity, and none of this process's ``GIT_*`` or ``KISTORE*`` settings.
    """
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "KISTORE"))}
    return env | {
        "HOME": str(home), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "A Reader",
        "GIT_AUTHOR_EMAIL": "reader@example.org", "GIT_COMMITTER_NAME": "A Reader",
        "GIT_COMMITTER_EMAIL": "reader@example.org"}


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    from kistore.store import Store

    path = tmp_path / "store"
    Store.init(path)
    return path


@pytest.fixture
def store(store_path: Path):
    from kistore.store import Store

    return Store(store_path)


@pytest.fixture
def bundle() -> dict:
    return json.loads(BUNDLE.read_text())


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def snapshot(path: Path) -> dict[str, bytes]:
    """Every file under a work tree (outside .git), for byte-for-byte comparisons."""
    return {
        str(p.relative_to(path)): p.read_bytes()
        for p in sorted(path.rglob("*")) if p.is_file() and ".git" not in p.parts
    }


DATA = SHARED / "data"
"""The real public data (shared/data/{sol-execbench,flashinfer-trace,kernelbench})."""

NO_DATA = (f"needs the real data of shared/data ({DATA} is absent: a clone alone, e.g. on a "
           "GitHub runner, has only the repository; set KISTORE_SHARED to the shared folder)")
"""Why a test that imports the real data is skipped where the data is absent."""

requires_data = pytest.mark.skipif(not DATA.is_dir(), reason=NO_DATA)
"""Mark of a test that reads shared/data: skipped, saying why, where it is absent."""

IMPORTED_RUNS = {"sol-execbench": 63 + 17, "flashinfer-trace": 172, "kernelbench": 750}
"""Runs each source imports from shared/data (stated in README, 'Importing real data').

SOL-ExecBench: 63 leaderboard rows + 17 local evaluator trace lines (runs/)."""


@pytest.fixture(scope="session")
def imported_store(tmp_path_factory):
    """A fresh store with all three sources of shared/data imported and committed (read-only)."""
    if not DATA.is_dir():
        pytest.skip(NO_DATA)
    from kistore.importers import import_files
    from kistore.store import Store

    path = tmp_path_factory.mktemp("imported") / "store"
    store = Store.init(path)
    for source in IMPORTED_RUNS:
        import_files(store, source, [str(DATA / source)], commit=True)
    return Store(path)


# -- attestations: fixed test keys and a store holding the published record -------------

def fixed_key(n: int):
    """A fixed Ed25519 private key (seed = 32 bytes of ``n``): the same in every run."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(bytes([n]) * 32)


@pytest.fixture
def record_store(store):
    """A store with the published record committed (run, protocol, environment)."""
    from kistore.store.inputs import read_inputs

    store.add([x.manifest for x in read_inputs([str(BUNDLE)])], allow_dangling=True, commit=True)
    return store


@pytest.fixture
def run_digest():
    from kistore.core.digest import Digest

    return Digest.from_str(PUBLISHED["run"])


# -- verify / check / hooks helpers ------------------------------------------------------

def commit_all(path: Path, message: str = "change") -> str:
    """Stage everything and commit past any hooks (as a careless or hostile pusher would)."""
    git(path, "add", "-A")
    git(path, "commit", "-q", "--no-verify", "-m", message)
    return git(path, "rev-parse", "HEAD").strip()


def redate_history(path: Path, date: str) -> str:
    """Rewrite the (linear) history of HEAD with every commit dated ``date``; return the tip.

    Entry times never run backwards (a commit is no older than its ancestors), so a test of
    what "entered before" a past instant needs the whole history to predate it.
    """
    env = {**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    parent: list[str] = []
    for commit in git(path, "rev-list", "--reverse", "HEAD").split():
        tree = git(path, "rev-parse", f"{commit}^{{tree}}").strip()
        made = subprocess.run(["git", "commit-tree", tree, *parent, "-m", "redated"], cwd=path,
                              env=env, check=True, capture_output=True, text=True)
        parent = ["-p", made.stdout.strip()]
    git(path, "reset", "-q", "--soft", parent[1])
    return parent[1]


def store_file(digest: str, base: str = "objects") -> str:
    """Repository path of the object (or metadata) file of ``sha256:<hex>``."""
    hex_ = digest.removeprefix("sha256:")
    return f"store/{base}/sha256/{hex_[:2]}/{hex_[2:]}.json"


def latency_group(kit, latencies: dict[str, float]) -> list[dict]:
    """One comparison group's documents: a protocol, an environment, a workload, then per
    ``name: latency`` an implementation ``impl-NAME`` (project ``proj-NAME``) and its run
    ``NAME`` stating that mean latency (ns)."""
    parts = [kit.protocol(), kit.environment(), kit.workload()]
    docs = list(parts)
    for name, latency in latencies.items():
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(*parts[:2], impl, parts[2], latency=latency, name=name)]
    return docs


def rank_time_descending(root: Path, family: str = "synthetic") -> None:
    """Write (not commit) a ranking policy ranking ``family`` by its mean latency descending:
    the slowest first, KI236's warning."""
    path = root / "store/policy/ranking.json"
    policy = json.loads(path.read_text())
    policy["families"][family] = {"comparison": "source-native",
                                  "metric": "/timing/latencyNs/mean",
                                  "order": "descending", "unit": "ns"}
    path.write_text(json.dumps(policy))


def group_files(manifests, stored=()) -> dict[str, bytes]:
    """The group file each run of ``manifests`` has, its protocol and environment among
    ``manifests`` or ``stored`` (both Manifests): path -> bytes, computed by the core rules
    (:mod:`kistore.core.comparison`), not by the writers under test."""
    from kistore.core import comparison, layout
    from kistore.core.model import REFERENCE_FIELDS

    by_hex = {m.digest.hex: m for m in [*stored, *manifests]}

    def spec(ref, kind):
        m = by_hex.get(ref[7:])
        return comparison.stored_spec(m.object_bytes if m else None, ref[7:], kind)

    found = {}
    for m in manifests:
        if m.kind != "BenchmarkRun":
            continue
        refs = {f: f"sha256:{h}" for f, h in zip(REFERENCE_FIELDS, m.reference_hex, strict=False)
                if h}
        obj = comparison.run_key_object(
            refs, spec(refs["protocolDigest"], "BenchmarkProtocol"),
            spec(refs["environmentDigest"], "ExecutionEnvironment"))
        if obj is not None:
            found[layout.group_path(comparison.comparison_key(obj), m.digest)] = \
                layout.group_record(obj)
    return found


def write_raw(root: Path, rel: str, data: bytes) -> None:
    """Write bytes at a repository path, bypassing kistore (how tampering happens)."""
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_bytes(data)


def other_environment(bundle: dict, product: str = "NVIDIA H100") -> dict:
    """A valid ExecutionEnvironment manifest that is not in the published record."""
    env = json.loads(json.dumps(bundle["environment"]))
    env["spec"]["hardware"]["product"] = product
    env["metadata"]["name"] = "env-" + product.lower().replace(" ", "-")
    return env


@pytest.fixture
def published(record_store, store_path: Path) -> Path:
    """The path of a store holding the published record, committed (see record_store)."""
    return store_path


class ManifestKit:
    """Builds small synthetic manifests for query tests (each with a unique name)."""

    API = "kernelindex.dev/v1alpha1"

    def __init__(self) -> None:
        self.count = 0

    def _doc(self, kind: str, name: str | None, spec: dict) -> dict:
        self.count += 1
        return {"apiVersion": self.API, "kind": kind,
                "metadata": {"name": name or f"{kind.lower()}-{self.count}"}, "spec": spec}

    @staticmethod
    def digest(doc: dict) -> str:
        from kistore.core.model import Manifest

        return str(Manifest.from_document(doc).digest)

    def protocol(self, family: str = "synthetic", statistic: str = "mean", *,
                 version: str = "1", key_fields: list | None = None, name: str | None = None):
        comparability: dict = {"family": family}
        if key_fields is not None:
            comparability["keyFields"] = key_fields
        return self._doc("BenchmarkProtocol", name, {
            "harness": {"name": "synthetic harness", "version": version},
            "measurement": {"primaryStatistic": statistic},
            "comparability": comparability})

    def environment(self, product: str = "NVIDIA H100", *, driver: str = "550.54",
                    name: str | None = None):
        return self._doc("ExecutionEnvironment", name, {
            "hardware": {"vendor": "nvidia", "product": product},
            "software": {"driver": driver}})

    def implementation(self, project: str = "proj", *, role: str | None = None,
                       name: str | None = None):
        spec: dict = {"project": project}
        if role is not None:
            spec["role"] = role
        return self._doc("Implementation", name, spec)

    def workload(self, definition: str = "rmsnorm", *, name: str | None = None):
        return self._doc("Workload", name, {"suite": {"name": "synthetic"},
                                            "definition": definition})

    def run(self, protocol: dict, environment: dict, implementation: dict, workload: dict, *,
            latency: dict | float | None = None, status: str = "passed",
            native: dict | None = None, name: str | None = None,
            observed: str = "2026-01-01T00:00:00Z"):
        timing: dict = {"primaryStatistic": protocol["spec"]["measurement"]["primaryStatistic"]}
        if isinstance(latency, dict):
            timing["latencyNs"] = latency
        elif latency is not None:
            timing["latencyNs"] = {timing["primaryStatistic"]: latency}
        spec: dict = {"status": status, "timing": timing, "observedAt": observed,
                      "workloadDigest": self.digest(workload),
                      "protocolDigest": self.digest(protocol),
                      "environmentDigest": self.digest(environment),
                      "implementationDigest": self.digest(implementation)}
        if native is not None:
            spec["sourceNative"] = {"source": "synthetic", **native}
        return self._doc("BenchmarkRun", name, spec)

    def group_docs(self, natives: list[dict | None], *, run: str = "run-{i}") -> list[dict]:
        """One comparison group: a protocol, an environment, a workload, then per item of
        ``natives`` an implementation ``impl-I`` (project ``proj-I``) and its run (named
        ``run`` formatted with ``i``, latency ``10 + I`` ns, ``sourceNative`` the item)."""
        protocol, env, workload = self.protocol(), self.environment(), self.workload()
        docs = [protocol, env, workload]
        for i, native in enumerate(natives):
            impl = self.implementation(f"proj-{i}", name=f"impl-{i}")
            docs += [impl, self.run(protocol, env, impl, workload, latency=10 + i,
                                    name=run.format(i=i), native=native)]
        return docs


@pytest.fixture
def kit() -> ManifestKit:
    return ManifestKit()


def add_past_a_refusal(store, monkeypatch, docs, refused, *, rule: str, finds_nothing):
    """Add ``docs``, then the ``refused`` documents with the ``rule`` add asks (a dotted
    name) answering ``finds_nothing``: manifests committed by hand, or before their rule.

    Returns:
        The commit before ``refused`` (a range's base), as 40 hex digits.
    """
    add_docs(store, docs)
    base = git(store.root, "rev-parse", "HEAD").strip()
    with monkeypatch.context() as m:
        m.setattr(rule, finds_nothing)
        add_docs(store, refused)
    return base


def add_docs(store, docs, *, commit: bool = True, allow_dangling: bool = False):
    """Add parsed manifests to a store (committed by default); return their digests."""
    from kistore.core.model import Manifest

    manifests = [Manifest.from_document(d) for d in docs]
    store.add(manifests, commit=commit, allow_dangling=allow_dangling)
    return [str(m.digest) for m in manifests]


@pytest.fixture
def group(store, kit):
    """A store with one comparison group (query tests): fast (10 ns), slow (30 ns), a
    reference (100 ns) and a failed run."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency, role, status in [("fast", 10, None, "passed"),
                                        ("slow", 30, None, "passed"),
                                        ("ref", 100, "reference", "passed"),
                                        ("broken", 1, None, "incorrect")]:
        impl = kit.implementation(f"proj-{name}", role=role, name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name,
                               status=status)]
    add_docs(store, docs)
    return store


@pytest.fixture
def disk_full_on_write(monkeypatch):
    """Make the Nth work-tree file write fail with ENOSPC; returns the list of paths tried.

    Patched on :mod:`kistore.writer`, so forked writer children inherit it.
    """
    from kistore.git import writer

    original = writer._write
    calls: list[str] = []

    def arm(n: int) -> list[str]:
        def write(path, data, **options):
            calls.append(path)
            if len(calls) == n:
                raise OSError(28, "No space left on device")
            return original(path, data, **options)

        monkeypatch.setattr(writer, "_write", write)
        return calls

    return arm


def _handlers() -> dict:
    import signal

    return {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)}


_PYTEST_HANDLERS = _handlers()  # as pytest set them, before any test ran the CLI


_TAKEN = ("SIGINT", "SIGTERM", "SIGALRM")


def _signal_state_left() -> list[str]:
    """What differs from pytest's own signal state: handlers, the SIGALRM timer, the mask."""
    import signal

    left = [f"{signal.Signals(number).name}'s handler {signal.getsignal(number)!r}"
            for number, handler in _PYTEST_HANDLERS.items()
            if signal.getsignal(number) is not handler]
    if signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
        left.append(f"an armed SIGALRM timer {signal.getitimer(signal.ITIMER_REAL)}")
    held = {s.name for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])} & set(_TAKEN)
    if held:
        left.append(f"{sorted(held)} blocked")
    deferred = sys.modules.get("kistore.git.commit")
    if deferred is not None and deferred._CAUGHT:
        left.append(f"interrupts_deferred's noted signals {deferred._CAUGHT}")
    return left


def _signal_state_reset() -> None:
    import signal

    signal.setitimer(signal.ITIMER_REAL, 0)
    for number, handler in _PYTEST_HANDLERS.items():
        signal.signal(number, handler)
    deferred = sys.modules.get("kistore.git.commit")
    if deferred is not None:
        deferred._CAUGHT.clear()
    # last: a signal pending meanwhile (a run stopped by SIGTERM) meets pytest's own handler
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [getattr(signal, name) for name in _TAKEN])


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """Each test starts with pytest's own SIGINT, SIGTERM and SIGALRM handlers, no SIGALRM
    timer, none of them blocked and no signal noted by ``interrupts_deferred``, and must end
    so. A command run in this process (CliRunner) gives them back when it ends
    (``kistore.cli._given_back``); a test that sets one itself puts it back. Left behind,
    a SIGTERM handler of the CLI's turned the SIGTERM that stopped a CI run into one test's
    exit 130 and the run went on (ci152), and an armed timer raised KeyboardInterrupt in a
    later test: what is left fails the test that left it, by name."""
    _signal_state_reset()
    hook = sys.unraisablehook  # pytest's: a command's (kistore.core.signals) is given back
    yield
    left = _signal_state_left()
    if sys.unraisablehook is not hook:
        left.append(f"sys.unraisablehook {sys.unraisablehook!r}")
        sys.unraisablehook = hook
    _signal_state_reset()
    assert not left, f"this test left in the process: {'; '.join(left)}"


@pytest.fixture
def blob_reads(monkeypatch):
    """Return ``count(module, by="path")``: record each blob ``module.read_blob_within`` reads.

    ``count`` wraps the ``read_blob_within`` that ``module`` imported from
    :mod:`kistore.git.blobs` (its calls only: each module holds its own name) and returns
    the list it appends to, a call an item: the ``path`` the caller gave (None when it gave
    none), or with ``by="oid"`` the blob id's hex. For tests that a blob is read once, or
    not through libgit2 at all.
    """

    def count(module, by: str = "path") -> list:
        reads: list = []
        real = module.read_blob_within

        def counted(repo, oid, limit, path=None):
            reads.append(path if by == "path" else str(oid))
            return real(repo, oid, limit, path)

        monkeypatch.setattr(module, "read_blob_within", counted)
        return reads

    return count


@pytest.fixture
def whole_reads(monkeypatch) -> list[str]:
    """Start recording each object read whole; return the list of their ids (hex).

    A loose file inflated past its header (:func:`kistore.git.blobs._inflated`), or an
    object libgit2 reads through ``repo.odb.read`` (a packed one). For tests that a blob
    past a limit is known by its header alone (fresh03 H3).
    """
    import pygit2

    from kistore.git import blobs

    seen: list[str] = []
    real_inflated = blobs._inflated

    def inflated(file, hex_, *args):
        seen.append(hex_)
        return real_inflated(file, hex_, *args)

    monkeypatch.setattr(blobs, "_inflated", inflated)
    real_odb = pygit2.Repository.odb

    class Odb:
        def __init__(self, odb):
            self.odb = odb

        def __getattr__(self, name):
            return getattr(self.odb, name)

        def __contains__(self, oid):
            return oid in self.odb

        def read(self, oid):
            seen.append(str(oid))
            return self.odb.read(oid)

    monkeypatch.setattr(pygit2.Repository, "odb",
                        property(lambda repo: Odb(real_odb.__get__(repo))))
    return seen


@pytest.fixture
def file_reads(monkeypatch) -> dict[str, int]:
    """Start recording the bytes read of each file; return ``{absolute path: bytes read}``.

    Reads through ``os.open``/``os.read`` (the work tree's view) and ``Path.open``/
    ``Path.read_bytes`` (the query index's freshness hash). For tests that a work-tree file
    past the bound is known by its ``fstat`` alone, never read (fresh03 H3).
    """
    read: dict[str, int] = {}
    fds: dict[int, str] = {}
    real_open, real_read, real_close = os.open, os.read, os.close

    def counted(path: str, data: bytes) -> bytes:
        read[path] = read.get(path, 0) + len(data)
        return data

    def open_(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        fds[fd] = os.path.abspath(os.fspath(path)) if "dir_fd" not in kwargs else "?"
        return fd

    def read_(fd, count):
        data = real_read(fd, count)
        return counted(fds[fd], data) if fd in fds else data

    def close_(fd):
        fds.pop(fd, None)
        return real_close(fd)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "read", read_)
    monkeypatch.setattr(os, "close", close_)
    real_read_bytes, real_path_open = Path.read_bytes, Path.open

    class Counted:
        def __init__(self, file, path):
            self.file, self.path = file, path

        def __getattr__(self, name):
            return getattr(self.file, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return self.file.__exit__(*exc)

        def read(self, *args):
            data = self.file.read(*args)
            return counted(self.path, data) if isinstance(data, bytes) else data

    def path_open(self, mode="r", *args, **kwargs):
        file = real_path_open(self, mode, *args, **kwargs)
        return Counted(file, str(self.absolute())) if "b" in mode and "r" in mode else file

    monkeypatch.setattr(Path, "read_bytes",
                        lambda self: counted(str(self.absolute()), real_read_bytes(self)))
    monkeypatch.setattr(Path, "open", path_open)
    return read


@pytest.fixture
def shards_listed(monkeypatch):
    """Start recording each shard directory a work-tree view lists; return the list.

    For tests that a lookup reads no shard that did not change (O(changed shards)).
    """
    from kistore.store._views import WorkTreeView

    listed: list[str] = []
    real = WorkTreeView.file_keys

    def file_keys(self, shard_dir):
        listed.append(shard_dir)
        return real(self, shard_dir)

    monkeypatch.setattr(WorkTreeView, "file_keys", file_keys)
    return listed


@pytest.fixture
def extra_keys_kept(monkeypatch):
    """Hold every finding made in this process during the test to one meaning per ``extra`` key.

    Each :class:`kistore.core.findings.Finding` built (directly or by
    :func:`dataclasses.replace`) is kept; at the end, any whose ``extra`` breaks
    :func:`kistore.core.extra_keys.extra_problems` (an ``entered`` that is not a notes
    commit's id, an ``enteredAt`` that is not a time) fails the test, naming rule and key.
    Use it as ``pytestmark = pytest.mark.usefixtures("extra_keys_kept")`` in a module whose
    scenarios make the rules' findings in process; findings of a ``kistore`` or hook
    subprocess are not seen. Yields the list of findings kept.
    """
    from kistore.core.extra_keys import extra_problems
    from kistore.core.findings import Finding

    made: list[Finding] = []
    init = Finding.__init__

    def kept(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Finding, "__init__", kept)
    yield made
    broken = [f"{f.rule.id}: {said}" for f in made for said in extra_problems(f.extra)]
    assert not broken, "\n".join(broken)
