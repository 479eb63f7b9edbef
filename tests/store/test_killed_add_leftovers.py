"""What an add killed mid-write leaves, and the next add (reviewer r83 F1 and its LOW note).

An add writes each manifest's object, metadata and names file, then its forward records,
then the group files, each renamed into place whole (kistore/store/admission.py, the order
of ``AddPlan.files``; a bulk add's writer processes each take whole directories, so any
subset of them can be there). A SIGKILL leaves some of them in the work tree, uncommitted.
Each state is written here by hand, as such an add leaves it, and the next add must run
every check of the manifest (KI222, the missing references) or refuse saying what to do;
before, an object file without metadata made it "already stored": checks skipped,
committed with exit 0 as "metadata replaced (--update-metadata)".
"""

from __future__ import annotations

import itertools
import json
import subprocess

import pytest

from kistore.cli import main
from kistore.core import layout
from kistore.core.model import Manifest

from ..conftest import group_files, python_c, write_raw


def git(root, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def base(store, kit, runner, tmp_path):
    """A store whose HEAD holds a protocol, an environment, a workload and an implementation."""
    docs = {"p": kit.protocol(), "e": kit.environment(), "w": kit.workload(),
            "i": kit.implementation()}
    source = tmp_path / "base.json"
    source.write_text(json.dumps(docs))
    added = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(source)])
    assert added.exit_code == 0, added.output
    return docs


def run_file(kit, base, tmp_path, *, name="r", failed=False, implementation=None):
    """A run of ``base`` (its correctness check failed: KI222), as a file and a Manifest."""
    doc = kit.run(base["p"], base["e"], implementation or base["i"], base["w"], latency=10_000,
                  name=name)
    if failed:
        doc["spec"]["correctness"] = {"passed": False}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path, Manifest.from_document(doc)


def files_of(m: Manifest, base_manifests=()) -> dict[str, bytes]:
    """The files a whole add of run ``m`` writes, in its order: object, metadata, names
    file, group file."""
    return {layout.object_path(m.digest): m.object_bytes,
            layout.metadata_path(m.digest): m.metadata_bytes,
            layout.name_path(m.kind, m.name): layout.name_record(m.digest),
            **group_files([m], base_manifests)}


def leave(root, files: dict[str, bytes], which: str) -> None:
    """Write the files ``which`` names (O object, M metadata, N names file, G group file)."""
    for letter, (path, data) in zip("OMNG", files.items(), strict=True):
        if letter in which:
            write_raw(root, path, data)


def base_manifests(base):
    return [Manifest.from_document(d) for d in base.values()]


# every subset a kill can leave (a prefix in one process; any subset with writer processes)
STATES = ["".join(c) for n in range(1, 5) for c in itertools.combinations("OMNG", n)]


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("flags", [["--commit"], []])
def test_a_leftover_of_a_run_that_fails_ki222_is_refused_by_the_next_add(
        store, base, kit, runner, tmp_path, state, flags):
    path, m = run_file(kit, base, tmp_path, failed=True)
    leave(store.root, files_of(m, base_manifests(base)), state)
    head = git(store.root, "rev-parse", "HEAD")
    result = runner.invoke(main, ["--store", str(store.root), "add", *flags, str(path)])
    if state == "OMNG" and not flags:  # a whole plain add: re-adding it writes nothing
        assert result.exit_code == 0, result.output
        assert "BenchmarkRun r" in result.output
        return
    assert result.exit_code == 1, result.output
    assert (f"{path}:/spec/status: the run says status 'passed' but its correctness check "
            "says it failed (/spec/correctness/passed is false)") in result.output
    assert "(KI222)" in result.output and "--update-metadata" not in result.output
    assert git(store.root, "rev-parse", "HEAD") == head
    assert layout.object_path(m.digest) not in git(store.root, "ls-files", "store")


@pytest.mark.parametrize("state", STATES)
def test_add_commit_finishes_what_a_killed_add_left_and_verify_passes(
        store, base, kit, runner, tmp_path, state):
    path, m = run_file(kit, base, tmp_path)
    files = files_of(m, base_manifests(base))
    leave(store.root, files, state)
    result = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output == f"{m.digest} BenchmarkRun r\n"
    assert git(store.root, "log", "-1", "--format=%B").strip() == "kistore add: BenchmarkRun/r"
    committed = set(git(store.root, "ls-tree", "-r", "--name-only", "HEAD").split())
    assert set(files) <= committed
    assert git(store.root, "status", "--porcelain") == ""
    for rel, data in files.items():
        assert (store.root / rel).read_bytes() == data
    verified = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert verified.exit_code == 0, verified.output


@pytest.mark.parametrize("state", ["O", "OM", "OMG"])
def test_a_plain_add_finishes_a_leftover_and_reports_it_added(
        store, base, kit, runner, tmp_path, state):
    path, m = run_file(kit, base, tmp_path)
    files = files_of(m, base_manifests(base))
    leave(store.root, files, state)
    [result] = store.add([m])
    assert result.status == "added"  # it was "metadata-updated" (O) or "unchanged" (OM)
    for rel, data in files.items():
        assert (store.root / rel).read_bytes() == data
    verified = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert verified.exit_code == 0, verified.output


def dangling(kit, base, tmp_path, store):
    """A run naming an implementation no store holds; its files and its forward record."""
    impl = kit.implementation("absent", name="impl-absent")
    path, m = run_file(kit, base, tmp_path, implementation=impl)
    ref = layout.forward_path(Manifest.from_document(impl).digest, m.digest)
    return path, m, impl, ref


@pytest.mark.parametrize("state", ["O", "OM", "OMN", "OMNG"])
def test_a_leftover_run_with_a_missing_reference_needs_allow_dangling(
        store, base, kit, runner, tmp_path, state):
    path, m, impl, record = dangling(kit, base, tmp_path, store)
    leave(store.root, files_of(m, base_manifests(base)), state)  # killed before its record
    head = git(store.root, "rev-parse", "HEAD")
    result = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert result.exit_code == 1, result.output
    impl_digest = Manifest.from_document(impl).digest
    assert (f"BenchmarkRun r ({m.digest}) references digests that are not in the store nor "
            f"in this input: implementationDigest={impl_digest}; add them first, or pass "
            "--allow-dangling to record the run anyway") in result.output
    assert git(store.root, "rev-parse", "HEAD") == head
    # the advice, followed
    result = runner.invoke(main, ["--store", str(store.root), "add", "--commit",
                                  "--allow-dangling", str(path)])
    assert result.exit_code == 0, result.output
    assert (store.root / record).read_bytes() == layout.forward_record(["implementationDigest"])
    assert record in git(store.root, "ls-tree", "-r", "--name-only", "HEAD")
    verified = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert verified.exit_code == 0, verified.output


def test_a_whole_plain_add_let_dangle_is_committed_without_the_flag_again(
        store, base, kit, runner, tmp_path):
    # its forward record says the earlier add let it dangle: nothing to refuse
    path, m, _, record = dangling(kit, base, tmp_path, store)
    result = runner.invoke(main, ["--store", str(store.root), "add", "--allow-dangling",
                                  str(path)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert result.exit_code == 0, result.output
    assert record in git(store.root, "ls-tree", "-r", "--name-only", "HEAD")
    assert git(store.root, "status", "--porcelain") == ""


@pytest.mark.parametrize("state", ["OM", "OMN", "OMNG"])
def test_a_name_a_leftover_holds_is_refused_with_advice_that_works(
        store, base, kit, runner, tmp_path, state):
    # the LOW note of r83: "choose another name" was the only advice; the leftover's files
    # free the name once removed, which `kistore drop` does (reviewer r85 F3: the advice
    # was `git clean -f store/`, which deletes every pending add too)
    _, left = run_file(kit, base, tmp_path)
    leave(store.root, files_of(left, base_manifests(base)), state)
    other = kit.run(base["p"], base["e"], base["i"], base["w"], latency=12, name="r")
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other))
    result = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert result.exit_code == 1, result.output
    assert (f"BenchmarkRun name 'r' is already used by {left.digest}") in result.output
    assert (f"names are unique per kind: {left.digest} is in the work tree but not committed "
            "(added without --commit, or by an add killed before it committed: `git status "
            f"--short store` shows its files). If it is not wanted, `kistore drop {left.digest}` "
            "removes its files (and only them; `--dry-run` lists them first); then add "
            "again. Otherwise choose another metadata.name") in " ".join(result.output.split())
    assert "git clean" not in result.output
    dropped = runner.invoke(main, ["--store", str(store.root), "drop", str(left.digest)])
    assert dropped.exit_code == 0, dropped.output
    assert not (store.root / layout.object_path(left.digest)).exists()
    result = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert result.exit_code == 0, result.output
    assert git(store.root, "status", "--porcelain") == ""
    verified = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert verified.exit_code == 0, verified.output


def test_a_committed_owner_still_says_choose_another_name(store, base, kit, runner, tmp_path):
    path, _ = run_file(kit, base, tmp_path)
    assert runner.invoke(main, ["--store", str(store.root), "add", "--commit",
                                str(path)]).exit_code == 0
    other = kit.run(base["p"], base["e"], base["i"], base["w"], latency=12, name="r")
    path.write_text(json.dumps(other))
    result = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "names are unique per kind: choose another metadata.name" in text
    assert "git clean" not in text


@pytest.mark.parametrize("state", ["O", "OM", "N", "OMN"])
def test_verify_names_each_leftover_file(store, base, kit, runner, tmp_path, state):
    _, m = run_file(kit, base, tmp_path)
    leave(store.root, files_of(m, base_manifests(base)), state)
    result = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert result.exit_code == 1
    expected = {"O": ["KI204 object-without-metadata", "KI215 group-path-missing"],
                "OM": ["KI211 name-path-missing", "KI215 group-path-missing"],
                "N": ["KI212 name-path-disagrees"],
                "OMN": ["KI215 group-path-missing"]}[state]
    for rule in expected:
        assert f"error {rule}" in result.output, result.output


def test_a_whole_run_whose_key_this_add_completes_stays_unchanged(store, base, kit, runner,
                                                                 tmp_path):
    # its group file is missing because its environment arrives now, not because an add
    # was killed: it is not re-checked or reported added
    env = kit.environment("NVIDIA B200")
    run = Manifest.from_document(kit.run(base["p"], env, base["i"], base["w"], latency=3,
                                         name="later"))
    store.add([run], allow_dangling=True)
    results = store.add([Manifest.from_document(env), run])
    assert [r.status for r in results] == ["added", "unchanged"]
    [(path, data)] = group_files([run], [*base_manifests(base),
                                         Manifest.from_document(env)]).items()
    assert (store.root / path).read_bytes() == data
    verified = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert verified.exit_code == 0, verified.output


_KILLED_AFTER_FIRST_FILE = r"""
import os, signal, sys
from kistore.store.inputs import read_inputs
from kistore.store import Store

real, renamed = os.replace, []

def rename_or_die(src, dst):  # the first file is renamed into place, then SIGKILL
    if renamed:
        os.kill(os.getpid(), signal.SIGKILL)
    renamed.append(dst)
    real(src, dst)

os.replace = rename_or_die
Store(sys.argv[1]).add([x.manifest for x in read_inputs([sys.argv[2]])], commit=True)
"""


def test_a_real_sigkill_after_the_object_then_the_readme_steps_then_add_again(
        store, base, kit, runner, tmp_path):
    path, m = run_file(kit, base, tmp_path)
    killed = python_c(_KILLED_AFTER_FIRST_FILE, str(store.root), str(path), check=False)
    assert killed.returncode == -9, killed.stderr
    assert (store.root / layout.object_path(m.digest)).read_bytes() == m.object_bytes
    assert not (store.root / layout.metadata_path(m.digest)).exists()
    # README, "SIGKILL": delete the lock once no git command runs, `git reset -q`, add again
    (store.root / ".git" / "index.lock").unlink(missing_ok=True)
    git(store.root, "reset", "-q")
    result = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert result.exit_code == 0, result.output
    assert git(store.root, "log", "-1", "--format=%B").strip() == "kistore add: BenchmarkRun/r"
    assert set(files_of(m, base_manifests(base))) <= set(
        git(store.root, "ls-tree", "-r", "--name-only", "HEAD").split())
    verified = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert verified.exit_code == 0, verified.output


@pytest.mark.parametrize("state", [s for s in STATES if "O" in s])
def test_drop_removes_a_leftover_that_fails_its_checks_and_verify_passes_again(
        store, base, kit, runner, tmp_path, state):
    # add84's leftover: a killed add of a run failing KI222 kept `verify` failing, and
    # nothing but deleting files by hand took it away
    _, m = run_file(kit, base, tmp_path, failed=True)
    leave(store.root, files_of(m, base_manifests(base)), state)
    assert runner.invoke(main, ["--store", str(store.root), "verify"]).exit_code == 1
    dropped = runner.invoke(main, ["--store", str(store.root), "drop", str(m.digest)])
    assert dropped.exit_code == 0, dropped.output
    assert dropped.stdout.count(str(m.digest)) == len(state)  # one line per file it left
    assert git(store.root, "status", "--porcelain", "--untracked-files=all") == ""
    verified = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert verified.exit_code == 0, verified.output
