"""A committed attestation file the work tree lost is read as HEAD holds it (fresh14 F15).

No commit may remove or change a committed attestation file (KI410). A work tree whose
withdrawal file was moved out, whose folder was removed, or that holds a FIFO, a symbolic
link, a directory or other bytes in its place ranked the withdrawn run again and showed it
``attestations: none``, without a word, while ``--at HEAD`` said withdrawn. A work-tree
answer now judges such a file as ``HEAD`` holds it, says so in one line after the answer,
and ``verify`` reports each as KI410 of the work tree (an error).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.store import Store

from ..conftest import commit_all, snapshot
from ..sparse import trust_maintainer, withdraw

STATES = ("moved-out", "folder-removed", "fifo", "symlink", "directory", "changed")
"""What the work tree holds in place of the committed withdrawal file."""

HELD = {"moved-out": "missing from the work tree", "folder-removed": "missing from the work tree",
        "fifo": "a FIFO in the work tree", "symlink": "a symbolic link in the work tree",
        "directory": "a directory in the work tree", "changed": "changed in the work tree"}
"""How the warning says each state."""

WHY = ("no commit may remove or change a committed attestation file: KI410, the gate "
       "refuses it; `kistore verify` reports it")


def _run(root, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--store", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def _withdrawn(store: Store, *names: str) -> dict[str, str]:
    """Withdraw each run of ``names`` by a trusted maintainer's file; return name -> path."""
    paths = {}
    for name in names:
        digest = store.view("HEAD").find_name("BenchmarkRun", name)
        assert digest is not None
        paths[name] = withdraw(store, digest, as_file=True)
    return paths


@pytest.fixture
def committed(group):
    """The ``group`` store with ``fast`` withdrawn by a committed file; its path."""
    trust_maintainer(group)  # dated before the bundle: the key counts
    path = _withdrawn(group, "fast")["fast"]
    commit_all(group.root, "withdraw fast")
    return group, path


def _damage(root, path: str, state: str, tmp_path) -> None:
    """Leave the work tree's ``path`` (a committed file) in ``state``."""
    full = root / path
    data = full.read_bytes()
    if state == "folder-removed":
        shutil.rmtree(full.parent)
        return
    full.unlink()
    if state == "moved-out":
        assert full.parent.is_dir()  # the folder kept, empty
    elif state == "fifo":
        os.mkfifo(full)
    elif state == "symlink":  # to a copy of the very same bytes: never read through
        (tmp_path / "copy.json").write_bytes(data)
        full.symlink_to(tmp_path / "copy.json")
    elif state == "directory":
        full.mkdir()
    elif state == "changed":
        full.write_bytes(data.replace(b"{", b"{ ", 1))


def _ranks(stdout: str) -> dict[str, tuple[int | None, str | None]]:
    return {r["name"]: (r["rank"], r["reason"]) for r in json.loads(stdout)}


@pytest.mark.parametrize("state", STATES)
def test_a_work_tree_answer_judges_the_file_as_head_holds_it(committed, tmp_path, state):
    store, path = committed
    before = _run(store.root, "rank", "BenchmarkRun/ref", "--json", "--all")
    assert _ranks(before[1])["fast"] == (None, "withdrawn")
    _damage(store.root, path, state, tmp_path)
    warning = (f"warning: {path}: committed in HEAD, {HELD[state]}: these answers judge it "
               f"as HEAD holds it ({WHY}); restore it with `git checkout HEAD -- {path}`\n")
    for query in (["rank", "BenchmarkRun/ref", "--json", "--all"], ["rank", "BenchmarkRun/ref"],
                  ["show", "BenchmarkRun/fast", "--json"], ["show", "BenchmarkRun/fast"]):
        code, out, err = _run(store.root, *query)
        at_head = _run(store.root, *query, "--at", "HEAD")
        assert (code, err) == (0, warning), query
        assert at_head == (0, out, ""), query
    assert _ranks(_run(store.root, "rank", "BenchmarkRun/ref", "--json", "--all")[1])["fast"] == (
        None, "withdrawn")
    page = json.loads(_run(store.root, "show", "BenchmarkRun/fast", "--json")[1])
    assert page["withdrawn"] is True
    assert [(a["effect"], a["location"]) for a in page["attestations"]] == [("withdraws", path)]


def test_more_than_three_files_name_three_and_a_count(group):
    trust_maintainer(group)
    paths = _withdrawn(group, "fast", "slow", "ref", "broken")
    commit_all(group.root, "withdraw all four")
    for path in paths.values():
        (group.root / path).unlink()
    shown = sorted(paths.values())
    code, out, err = _run(group.root, "rank", "BenchmarkRun/ref", "--json", "--all")
    assert code == 0
    assert out == _run(group.root, "rank", "BenchmarkRun/ref", "--json", "--all", "--at",
                       "HEAD")[1]
    assert {name: reason for name, (_, reason) in _ranks(out).items()} == {
        "fast": "withdrawn", "slow": "withdrawn", "ref": "reference, never ranked; withdrawn",
        "broken": "status incorrect"}
    withdrawn_ref, said = err.splitlines(keepends=True)  # ref itself is withdrawn: said first
    assert withdrawn_ref.startswith("warning: BenchmarkRun/ref is withdrawn by ")
    assert said == (
        f"warning: 4 attestation files committed in HEAD are not in the work tree as committed "
        f"({shown[0]}: missing from the work tree; {shown[1]}: missing from the work tree; "
        f"{shown[2]}: missing from the work tree; and 1 more): these answers judge them as "
        f"HEAD holds them ({WHY}); restore them with `git checkout HEAD -- store/attestations`\n")
    (group.root / shown[3]).write_bytes(b"x")  # the others restored: one file of other bytes
    for path in shown[:2]:
        subprocess.run(["git", "-C", str(group.root), "checkout", "HEAD", "--", path],
                       check=True)
    code, _, err = _run(group.root, "rank", "BenchmarkRun/ref")
    assert code == 0
    assert err.splitlines(keepends=True)[1:] == [
        f"warning: 2 attestation files committed in HEAD are not in the work tree as committed "
        f"({shown[2]}: missing from the work tree; {shown[3]}: changed in the work tree): these "
        f"answers judge them as HEAD holds them ({WHY}); restore them with "
        f"`git checkout HEAD -- {shown[2]} {shown[3]}`\n"]


def test_a_new_file_not_committed_still_counts(committed):
    store, path = committed
    (store.root / path).unlink()
    slow = _withdrawn(store, "slow")["slow"]  # in the work tree only
    code, out, err = _run(store.root, "rank", "BenchmarkRun/ref", "--json", "--all")
    assert code == 0
    assert _ranks(out)["fast"] == (None, "withdrawn")
    assert _ranks(out)["slow"] == (None, "withdrawn")
    at_head = _run(store.root, "rank", "BenchmarkRun/ref", "--json", "--all", "--at", "HEAD")
    assert _ranks(at_head[1])["slow"] == (1, None)
    assert err.count("\n") == 1 and err.startswith(f"warning: {path}: committed in HEAD")
    assert slow not in err


def test_a_clean_work_tree_warns_of_nothing(committed):
    store, _ = committed
    assert _run(store.root, "rank", "BenchmarkRun/ref")[2] == ""
    assert _run(store.root, "show", "BenchmarkRun/fast")[2].count("warning:") == 0


VERIFIED = {"moved-out": ("append-only-file-removed", "no file", "missing"),
            "folder-removed": ("append-only-file-removed", "no file", "missing"),
            "fifo": ("append-only-file-removed", "a FIFO", "a FIFO"),
            "symlink": ("append-only-file-removed", "a symbolic link", "a symbolic link"),
            "directory": ("append-only-file-removed", "a directory", "a directory"),
            "changed": ("attestation-file-rewritten", None, "changed")}


@pytest.mark.parametrize("state", STATES)
def test_verify_reports_ki410_of_the_work_tree(committed, tmp_path, state):
    store, path = committed
    blob = subprocess.run(["git", "-C", str(store.root), "rev-parse", f"HEAD:{path}"],
                          capture_output=True, text=True, check=True).stdout.strip()
    _damage(store.root, path, state, tmp_path)
    code, out, _ = _run(store.root, "verify", "--json")
    assert code == 1
    found = [f for f in json.loads(out)["findings"] if f.get("rule") == "KI410"]
    name, shown, held = VERIFIED[state]
    if shown is None:
        shown = "blob " + subprocess.run(
            ["git", "hash-object", str(store.root / path)], capture_output=True, text=True,
            check=True).stdout.strip()
    said = HELD[state]
    assert found == [{
        "rule": "KI410", "name": name, "severity": "error",
        "hint": f"restore it (`git checkout HEAD -- {path}`)",
        "message": f"committed in HEAD, {said}: an attestation file, once committed, is never "
                   "removed or changed (the gate refuses such a commit); every query of the "
                   "work tree judges it as HEAD holds it, and warns",
        "file": path, "expected": f"blob {blob}", "found": shown,
        "extra": {"worktree": True, "held": held}}]
    subprocess.run(["git", "-C", str(store.root), "checkout", "HEAD", "--", path], check=True)
    _, out, _ = _run(store.root, "verify", "--json")
    assert [f for f in json.loads(out)["findings"] if f.get("rule") == "KI410"] == []


@pytest.mark.parametrize("state", ["folder-removed", "fifo", "changed"])
def test_export_and_site_build_read_head_alike(committed, tmp_path, state):
    """``export`` and ``site build`` read a commit (HEAD), never the work tree: byte-equal."""
    store, path = committed

    def published(tag: str) -> dict[str, bytes]:
        out = tmp_path / tag
        out.mkdir()
        exported = _run(store.root, "export", str(out / "export"), "--format", "csv")
        assert exported[0] == 0, exported
        assert _run(store.root, "site", "build", str(out / "site"))[0] == 0
        return snapshot(out)

    clean = published("clean")
    _damage(store.root, path, state, tmp_path)
    damaged = published("damaged")
    assert damaged == clean
    assert any(b"withdrawn" in data for data in clean.values())


@pytest.mark.parametrize("up", [1, 4])
def test_a_fifo_in_place_of_a_folder_on_its_way_is_named(committed, up):
    # fresh17 F9: a FIFO where the file's folder (or store/attestations itself) should be
    # was said "missing from the work tree"; a symbolic link there is warn_linked's to say
    store, path = committed
    folder = path.rsplit("/", up)[0]
    assert folder in (path.rpartition("/")[0], "store/attestations")
    shutil.rmtree(store.root / folder)
    os.mkfifo(store.root / folder)
    warning = (f"warning: {path}: committed in HEAD, a FIFO in place of its folder {folder} in "
               f"the work tree: these answers judge it as HEAD holds it ({WHY}); restore it "
               f"with `git checkout HEAD -- {path}`\n")
    code, out, err = _run(store.root, "rank", "BenchmarkRun/ref", "--json", "--all")
    assert (code, err) == (0, warning)
    assert out == _run(store.root, "rank", "BenchmarkRun/ref", "--json", "--all", "--at",
                       "HEAD")[1]
