"""The store: layout, idempotent add, refusals, atomicity, --commit, concurrency."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import subprocess
import sys
import textwrap
from unittest import mock

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import (
    MetadataConflictError,
    MultipleErrors,
    ResolutionError,
    StoreStateError,
)
from kistore.core.model import Manifest
from kistore.git import _gitindex as gitindex
from kistore.git.commit import BranchCommit
from kistore.store import AddInterrupted, Store

from ..conftest import PUBLISHED, git, group_files, snapshot


def manifests(bundle):
    return [Manifest.from_document(d) for d in bundle.values()]


def workload(name="w", definition="gemm"):
    return Manifest.from_document({
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
        "metadata": {"name": name}, "spec": {"suite": {"name": "S"}, "definition": definition}})


def test_init_writes_settings_attributes_and_first_commit(store_path):
    assert (store_path / "kistore.toml").is_file()
    assert "store/** -text" in (store_path / ".gitattributes").read_text()
    assert git(store_path, "log", "--format=%s").strip() == "kistore init: new store"
    assert git(store_path, "status", "--porcelain") == ""
    Store.init(store_path)  # twice: no change
    assert git(store_path, "status", "--porcelain") == ""


def test_init_in_an_existing_repository_says_which_files_to_commit(tmp_path, runner):
    # A new-user report: `kistore init .` in a repository left kistore.toml,
    # .gitattributes and the ranking policy uncommitted, silently; the commits `add
    # --commit` made there then failed `kistore verify --at HEAD`.
    from kistore.cli import main

    git(tmp_path, "init", "-q", "-b", "main")
    result = runner.invoke(main, ["init", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "commit the new files before adding: git add kistore.toml .gitattributes " \
        "store/policy/ranking.json && git commit -m 'kistore init' -- kistore.toml " \
        ".gitattributes store/policy/ranking.json" in result.stderr
    (tmp_path / "mine.txt").write_text("staged by the user, not for kistore's commit")
    git(tmp_path, "add", "mine.txt")
    git(tmp_path, "add", "kistore.toml", ".gitattributes", "store/policy/ranking.json")
    git(tmp_path, "commit", "-q", "-m", "kistore init", "--", "kistore.toml",
        ".gitattributes", "store/policy/ranking.json")
    assert git(tmp_path, "status", "--porcelain") == "A  mine.txt\n"  # left staged
    again = runner.invoke(main, ["init", str(tmp_path)])
    assert again.exit_code == 0 and "commit the new files" not in again.stderr


def test_add_commit_before_init_files_are_committed_is_refused(tmp_path, runner, bundle):
    # breaker9: after `kistore init .` in a repository, an add --commit before committing
    # kistore's files made commits whose .gitattributes let git convert store/: `verify
    # --at HEAD` failed (KI113) while `kistore verify` said ok.
    from kistore.cli import main

    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "theirs")
    assert runner.invoke(main, ["init", str(tmp_path)]).exit_code == 0
    (tmp_path / "p.json").write_text(json.dumps(bundle["protocol"]))
    refused = runner.invoke(main, ["--store", str(tmp_path), "add", "--commit",
                                   str(tmp_path / "p.json")])
    assert refused.exit_code == 1
    assert "HEAD's .gitattributes does not stop git converting store/ (nothing stops " \
        "end-of-line or filter conversion of store/); nothing was written. If kistore " \
        "init's files are not committed yet, commit them first: git add " \
        ".gitattributes kistore.toml store/policy/ranking.json && git commit -m 'kistore " \
        "init' -- .gitattributes kistore.toml store/policy/ranking.json" in \
        " ".join(refused.output.split())
    assert git(tmp_path, "log", "--format=%s").strip() == "theirs"
    git(tmp_path, "add", ".gitattributes", "kistore.toml", "store/policy/ranking.json")
    git(tmp_path, "commit", "-q", "-m", "kistore init")
    added = runner.invoke(main, ["--store", str(tmp_path), "add", "--commit",
                                 str(tmp_path / "p.json")])
    assert added.exit_code == 0, added.output
    at_head = runner.invoke(main, ["--store", str(tmp_path), "verify", "--at", "HEAD"])
    assert at_head.exit_code == 0, at_head.output
    # a later line turning conversion on again: the refusal names it (review 2026-12-01)
    with (tmp_path / ".gitattributes").open("a") as f:
        f.write("* text=auto\n")
    git(tmp_path, "commit", "-q", "-am", "text=auto")
    (tmp_path / "p.json").write_text(json.dumps(bundle["environment"]))
    refused = runner.invoke(main, ["--store", str(tmp_path), "add", "--commit",
                                   str(tmp_path / "p.json")])
    assert refused.exit_code == 1
    said = " ".join(refused.output.split())
    assert "sets text=auto for * after the store/** line, so git would convert stored " \
        "bytes" in said and "otherwise correct that line and commit it" in said


def test_add_commit_refuses_a_clone_whose_info_attributes_converts_store(store_path, runner,
                                                                         bundle):
    # New-user review 2026-12-02: `store/** text eol=crlf` in .git/info/attributes (this
    # clone's own attributes, which win over .gitattributes) was checked by neither `add
    # --commit` nor `verify`; after a checkout `verify` blamed the names files (KI212).
    from kistore.cli import main

    (store_path / "p.json").write_text(json.dumps(bundle["protocol"]))
    added = runner.invoke(main, ["--store", str(store_path), "add", "--commit",
                                 str(store_path / "p.json")])
    assert added.exit_code == 0, added.output
    head = git(store_path, "rev-parse", "HEAD")
    (store_path / ".git" / "info").mkdir(exist_ok=True)
    (store_path / ".git" / "info" / "attributes").write_text("store/** text eol=crlf\n")
    (store_path / "e.json").write_text(json.dumps(bundle["environment"]))
    for command in (["add", "--commit", str(store_path / "e.json")], ["migrate", "--commit"]):
        refused = runner.invoke(main, ["--store", str(store_path), *command])
        assert refused.exit_code == 1, refused.output
        assert refused.stderr == (
            "error: .git/info/attributes:1:1: this repository's .git/info/attributes lets git "
            "convert store/ (`store/** text eol=crlf`, which wins over .gitattributes' "
            "store/** line); "
            "nothing was written. Remove that line (the file is this repository's own, never "
            "committed), then `git checkout -- store/` to restore any file it converted "
            "(`kistore verify` reports it: KI116)\n"), command
        assert git(store_path, "rev-parse", "HEAD") == head
    # what a checkout did then: the names file holds CRLF; verify says the real cause
    names = next(p for p in (store_path / layout.NAMES_DIR).rglob("*") if p.is_file())
    names.unlink()
    git(store_path, "checkout", "--", "store/")
    assert names.read_bytes().endswith(b"\r\n")
    verified = runner.invoke(main, ["--store", str(store_path), "verify"])
    assert verified.exit_code == 1
    assert ".git/info/attributes:1:1: error KI116 info-attributes-convert: line 1 sets text " \
        "eol=crlf for store/**, and this repository's own attributes win over .gitattributes' " \
        "store/** line, so git converts stored bytes on checkout" in verified.stdout
    assert "KI212" in verified.stdout  # the effect, still reported beside its cause
    at_head = runner.invoke(main, ["--store", str(store_path), "verify", "--at", "HEAD"])
    assert at_head.exit_code == 0, at_head.output  # the commit is sound: no conversion there
    (store_path / ".git" / "info" / "attributes").write_text("")
    git(store_path, "checkout", "--", "store/")
    added = runner.invoke(main, ["--store", str(store_path), "add", "--commit",
                                 str(store_path / "e.json")])
    assert added.exit_code == 0, added.output


def test_ki116_neither_hangs_on_a_fifo_nor_reads_dev_zero_at_info_attributes(store_path,
                                                                           bundle):
    # r71 F23: `mkfifo .git/info/attributes` hung `verify` and `add --commit`; a symlink
    # there to /dev/zero made them read without end (1.1 GB in 6 s). git follows a
    # symlink there, so one to a small regular file is read and judged.
    info = store_path / ".git" / "info" / "attributes"
    info.parent.mkdir(exist_ok=True)
    (store_path / "p.json").write_text(json.dumps(bundle["protocol"]))

    def kistore(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kistore", "--store", str(store_path),
                               *args], capture_output=True, text=True, timeout=120)

    head = git(store_path, "rev-parse", "HEAD")
    not_regular = ("is not a regular file (a FIFO, a device or a directory, or a symbolic "
                   "link to one): git's checkout would wait on it or read it without end, "
                   "and a line there may convert store/")
    big = store_path.parent / "big"
    big.write_bytes(b"# x\n" * (1 << 18) + b"#\n")  # 1 MiB + 2 bytes of comments
    for make, said in ((lambda: os.mkfifo(info), not_regular),
                       (lambda: info.symlink_to("/dev/zero"), not_regular),
                       (lambda: info.symlink_to(big), "is more than 1,048,576 bytes, too "
                        "large to check; git reads it whole, so a line there may convert "
                        "store/")):
        make()
        verified = kistore("verify")
        assert verified.returncode == 1, verified.stderr
        assert f".git/info/attributes: error KI116 info-attributes-convert: {said}" \
            in verified.stdout
        refused = kistore("add", "--commit", str(store_path / "p.json"))
        assert refused.returncode == 1
        assert refused.stderr == (
            f"error: .git/info/attributes: this repository's .git/info/attributes {said}; "
            "nothing was written. Remove it or make it a small regular file (it is this "
            "repository's own, never committed), then `git checkout -- store/` to restore any "
            "file it converted (`kistore verify` reports it: KI116)\n")
        assert git(store_path, "rev-parse", "HEAD") == head
        info.unlink()
    small = store_path.parent / "small"
    small.write_text("store/** text eol=crlf\n")
    info.symlink_to(small)  # followed, as git follows it
    assert "error KI116 info-attributes-convert: line 1 sets text eol=crlf for store/**" \
        in kistore("verify").stdout
    small.write_text("# nothing\n")
    added = kistore("add", "--commit", str(store_path / "p.json"))
    assert added.returncode == 0, added.stderr


def test_add_commit_refuses_info_attributes_that_convert_through_a_macro(store_path, runner,
                                                                         bundle):
    # r71 F2: `[attr]kt text eol=crlf` committed in .gitattributes, `store/** kt` in the
    # clone's info/attributes: git converts store/, and add --commit accepted it.
    from kistore.cli import main

    attributes = store_path / ".gitattributes"
    attributes.write_bytes(b"[attr]kt text eol=crlf\n" + attributes.read_bytes())
    git(store_path, "commit", "-qam", "macro")
    (store_path / ".git" / "info").mkdir(exist_ok=True)
    (store_path / ".git" / "info" / "attributes").write_text("store/** kt\n")
    (store_path / "p.json").write_text(json.dumps(bundle["protocol"]))
    head = git(store_path, "rev-parse", "HEAD")
    refused = runner.invoke(main, ["--store", str(store_path), "add", "--commit",
                                   str(store_path / "p.json")])
    assert refused.exit_code == 1, refused.output
    assert "lets git convert store/ (`store/** kt`, which wins" in refused.stderr
    assert git(store_path, "rev-parse", "HEAD") == head


def test_init_of_a_directory_inside_another_repository_makes_its_own(tmp_path, runner):
    # breaker9: `kistore init my-index` inside any git work tree wrote kistore.toml,
    # .gitattributes and store/ at the top of the ENCLOSING repository, left my-index
    # empty, and the next add --commit committed onto the enclosing repository's branch.
    from kistore.cli import main

    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "theirs.txt").write_text("the enclosing project")
    git(tmp_path, "add", "theirs.txt")
    git(tmp_path, "commit", "-q", "-m", "theirs")
    result = runner.invoke(main, ["init", str(tmp_path / "my-index")])
    assert result.exit_code == 0, result.output
    assert f"initialised kistore store in {tmp_path / 'my-index'}" in result.output
    assert (tmp_path / "my-index" / ".git").is_dir()
    assert not (tmp_path / "kistore.toml").exists() and not (tmp_path / "store").exists()
    assert git(tmp_path / "my-index", "log", "--format=%s").strip() == "kistore init: new store"
    assert git(tmp_path, "log", "--format=%s").strip() == "theirs"


@pytest.mark.parametrize(("link", "target"), [
    ("store", "dir"), (".gitattributes", "file"), ("kistore.toml", "missing")])
def test_init_in_a_repository_never_writes_through_a_committed_link(
        tmp_path, runner, link, target):
    # r70 F18: init wrote store/objects, store/policy/ranking.json, the .gitattributes
    # line and kistore.toml wherever a committed link pointed, outside the repository.
    from kistore.cli import main

    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    if target == "dir":
        outside.mkdir()
    elif target == "file":
        outside.write_text("*.bin binary\n")
    os.symlink(outside, repo / link)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a link")
    before = sorted(p.name for p in tmp_path.iterdir())
    result = runner.invoke(main, ["init", str(repo)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"error: {link} is a symbolic link (to {str(outside)!r})")
    assert "nothing was written" in result.stderr and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    if target == "dir":
        assert list(outside.iterdir()) == []
    elif target == "file":
        assert outside.read_text() == "*.bin binary\n"
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize("link", ["store/names", "store/forward", "store/groups",
                                  "store/trust", "store/attestations", "store/trust/keys.json"])
def test_init_refuses_a_committed_link_where_the_store_writes_later(tmp_path, runner, link):
    # F17 (review 2026-12-02): init succeeded, leaving a store no add could write to
    from kistore.cli import main

    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / link).parent.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    outside.mkdir()
    os.symlink(outside, repo / link)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a link")
    result = runner.invoke(main, ["init", str(repo)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"error: {link} is a symbolic link (to {str(outside)!r})")
    assert "nothing was written" in result.stderr
    assert git(repo, "status", "--porcelain") == "" and list(outside.iterdir()) == []


def test_init_of_a_bare_repository_says_it_needs_a_work_tree(tmp_path, runner):
    # breaker9: an AssertionError traceback.
    from kistore.cli import main

    git(tmp_path, "init", "-q", "--bare", "bare1.git")
    result = runner.invoke(main, ["init", str(tmp_path / "bare1.git")])
    assert result.exit_code == 1
    assert f"{tmp_path / 'bare1.git'} is a bare repository: a store needs a work tree. " \
        "Clone it" in result.output
    assert f"to make it a server, copy kistore's hooks/pre-receive into " \
        f"{tmp_path / 'bare1.git'}/hooks and set receive.fsckObjects and pack.window there " \
        "(README, Hooks)" in " ".join(result.output.split())  # fresh96 L1
    assert "Traceback" not in result.output


def test_add_writes_objects_whose_sha256_is_their_name(store, store_path, bundle):
    results = store.add(manifests(bundle), allow_dangling=True)
    assert [str(r.digest) for r in results] == list(PUBLISHED.values())
    assert {r.status for r in results} == {"added"}
    for digest in PUBLISHED.values():
        path = store_path / layout.object_path(Digest.from_str(digest))
        assert "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest() == digest
        assert (store_path / layout.metadata_path(Digest.from_str(digest))).is_file()


def test_object_path_layout():
    d = Digest.from_str(PUBLISHED["run"])
    assert layout.object_path(d) == (
        "store/objects/sha256/38/4a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6.json"
    )
    assert layout.digest_from_path(layout.object_path(d)) == d
    assert layout.digest_from_path("store/objects/sha256/38/x.json") is None


def test_second_add_is_a_noop(store, store_path, bundle):
    store.add(manifests(bundle), allow_dangling=True)
    before = snapshot(store_path)
    results = store.add(manifests(bundle))  # dangling refs no longer matter: nothing new
    assert {r.status for r in results} == {"unchanged"}
    assert snapshot(store_path) == before


def test_dangling_references_are_listed_and_nothing_written(store, store_path, bundle):
    before = snapshot(store_path)
    with pytest.raises(MultipleErrors) as caught:
        store.add(manifests(bundle))
    message = str(caught.value.errors[0])
    assert "sha256:d47d94513f5c675b789f3851d7d997fa78b96c7c470a92d881b865eff3f8db68" in message
    assert "sha256:37aa4849b9d6402dab11456373d6cc5cdaa3af49d3f4a10974f6df331158ff9f" in message
    assert snapshot(store_path) == before


def test_other_metadata_is_refused_with_the_difference(store, bundle):
    store.add(manifests(bundle), allow_dangling=True)
    changed = copy.deepcopy(bundle["protocol"])
    changed["metadata"]["title"] = "Renamed"
    with pytest.raises(MultipleErrors) as caught:
        store.add([Manifest.from_document(changed)])
    assert '/title: stored "SOL-ExecBench evaluation stack v1.1", given "Renamed"' in str(
        caught.value.errors[0])
    # the store names the conflict, not a command line's option (each command adds its own)
    [conflict] = caught.value.errors
    assert isinstance(conflict, MetadataConflictError)
    assert conflict.message == (
        f"{Manifest.from_document(changed).digest} is already stored with other metadata "
        '(/title: stored "SOL-ExecBench evaluation stack v1.1", given "Renamed")')
    [result] = store.add([Manifest.from_document(changed)], update_metadata=True)
    assert result.status == "metadata-updated"
    assert store.read(PUBLISHED["protocol"]).title == "Renamed"


def test_name_is_unique_per_kind(store):
    store.add([workload("w", "a")])
    with pytest.raises(MultipleErrors) as caught:
        store.add([workload("w", "b")])
    assert "already used by" in str(caught.value.errors[0])


def test_failure_part_way_leaves_the_store_as_before(store, store_path, bundle,
                                                     disk_full_on_write):
    store.add([Manifest.from_document(bundle["protocol"])])
    before = snapshot(store_path)
    calls = disk_full_on_write(3)
    with pytest.raises(OSError):
        store.add(manifests(bundle), allow_dangling=True)
    assert len(calls) >= 3
    assert snapshot(store_path) == before


def test_failed_commit_rolls_back_the_work_tree(store, store_path, bundle):
    before = snapshot(store_path)
    head = git(store_path, "rev-parse", "HEAD")
    with mock.patch.object(BranchCommit, "run", side_effect=StoreStateError("lost the race")), \
            pytest.raises(StoreStateError):
        store.add(manifests(bundle), allow_dangling=True, commit=True)
    assert snapshot(store_path) == before
    assert git(store_path, "rev-parse", "HEAD") == head
    assert not (store_path / ".git" / "index.lock").exists()


def test_commit_path_is_byte_identical_to_work_tree_path(tmp_path, bundle):
    a, b = Store.init(tmp_path / "a"), Store.init(tmp_path / "b")
    a.add(manifests(bundle), allow_dangling=True)
    b.add(manifests(bundle), allow_dangling=True, commit=True, message="add record")
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    for m in manifests(bundle):  # the names file too, on both paths
        path = layout.name_path(m.kind, m.name)
        assert snapshot(tmp_path / "b")[path] == f"{m.digest}\n".encode()
    assert git(tmp_path / "b", "status", "--porcelain") == ""
    assert git(tmp_path / "b", "log", "-1", "--format=%s").strip() == "add record"
    # The committed blobs are the work-tree bytes.
    git(tmp_path / "a", "add", "-A")
    tree_a = git(tmp_path / "a", "write-tree").strip()
    tree_b = git(tmp_path / "b", "rev-parse", "HEAD^{tree}").strip()
    assert tree_a == tree_b


def test_reads_see_work_tree_and_at_rev(store, store_path, bundle):
    store.add([Manifest.from_document(bundle["protocol"])], commit=True)
    first = git(store_path, "rev-parse", "HEAD").strip()
    store.add([Manifest.from_document(bundle["environment"])])  # not committed
    assert store.read(PUBLISHED["environment"]).kind == (
        "ExecutionEnvironment")
    with pytest.raises(ResolutionError):
        store.read(PUBLISHED["environment"], at=first)
    assert store.read("BenchmarkProtocol/sol-execbench-leaderboard-v1-1", at=first).digest == (
        Digest.from_str(PUBLISHED["protocol"]))


def test_resolve_prefix_and_ambiguity(store, bundle):
    store.add(manifests(bundle), allow_dangling=True)
    assert str(store.resolve("384a96d0")) == PUBLISHED["run"]
    assert str(store.resolve("sha256:6383f624")) == PUBLISHED["protocol"]
    with pytest.raises(ResolutionError):
        store.resolve("00000000")


def test_a_whole_digest_resolves_by_one_stat_and_misses_as_a_prefix_does(store, bundle,
                                                                          monkeypatch):
    """A whole digest in the work tree is its object file or nothing: no listing of its
    shard when the file is there; when it is not, the same answer as any prefix."""
    store.add(manifests(bundle), allow_dangling=True)
    run = PUBLISHED["run"]
    view = store.view(None)
    listed = []
    real = type(view).list_dir
    monkeypatch.setattr(type(view), "list_dir",
                        lambda self, path: listed.append(path) or real(self, path))
    assert str(store.resolve(run)) == run
    assert str(store.resolve(run.removeprefix("sha256:"))) == run
    assert listed == []
    missing = "sha256:" + run[7:9] + "0" * 62
    with pytest.raises(ResolutionError, match=f"no object with digest prefix {missing[7:]}$"):
        store.resolve(missing)
    assert listed == [f"{layout.OBJECTS_DIR}/{run[7:9]}"]


def test_ambiguous_prefix_lists_candidates(store):
    found = {}
    i = 0
    while True:  # two digests sharing 8 hex digits would take ~2**16 tries; 2 suffice
        m = workload(f"w{i}", f"d{i}")
        found.setdefault(m.digest.hex[:2], []).append(m)
        i += 1
        if any(len(v) == 2 for v in found.values()):
            break
    pair = next(v for v in found.values() if len(v) == 2)
    store.add(pair)
    from kistore.core.digest import match_prefix
    with pytest.raises(ResolutionError) as caught:
        match_prefix(pair[0].digest.hex[:2], [p.digest for p in pair])
    assert all(str(p.digest) in str(caught.value) for p in pair)


def test_tampered_object_fails_on_read(store, store_path, bundle):
    store.add([Manifest.from_document(bundle["protocol"])])
    path = store_path / layout.object_path(Digest.from_str(PUBLISHED["protocol"]))
    path.write_bytes(path.read_bytes().replace(b"v1.1", b"v1.2"))
    from kistore.core.errors import VerificationError
    with pytest.raises(VerificationError) as caught:
        store.read(PUBLISHED["protocol"])
    assert "corrupt" in str(caught.value)


WRITER = textwrap.dedent("""
    import sys
    from kistore.core.model import Manifest
    from kistore.store import Store
    store = Store(sys.argv[1])
    for i in range(int(sys.argv[3])):
        m = Manifest.from_document({
            "apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
            "metadata": {"name": f"{sys.argv[2]}-{i}"},
            "spec": {"suite": {"name": "S"}, "definition": f"{sys.argv[2]}-{i}"}})
        store.add([m], commit=True)
""")


def test_concurrent_committers_lose_nothing(store_path):
    n = 15
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(store_path), who, str(n)])
             for who in ("alpha", "beta")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    tree = git(store_path, "ls-tree", "-r", "--name-only", "HEAD", "store/objects")
    assert len(tree.split()) == 2 * n
    assert len(git(store_path, "rev-list", "HEAD").split()) == 2 * n + 1
    assert git(store_path, "status", "--porcelain") == ""


SAME_NAME = textwrap.dedent("""
    import sys
    from kistore.core.errors import MultipleErrors
    from kistore.core.model import Manifest
    from kistore.store import Store
    store = Store(sys.argv[1])
    for i in range(int(sys.argv[3])):
        m = Manifest.from_document({
            "apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
            "metadata": {"name": f"contested-{i}"},
            "spec": {"suite": {"name": "S"}, "definition": f"{sys.argv[2]}-{i}"}})
        try:
            store.add([m], commit=True)
            print("won", i)
        except MultipleErrors:
            print("lost", i)
""")


def test_concurrent_adds_cannot_both_claim_a_name(store_path):
    n = 12
    procs = [subprocess.Popen([sys.executable, "-c", SAME_NAME, str(store_path), who, str(n)],
                              stdout=subprocess.PIPE, text=True) for who in ("alpha", "beta")]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    wins = [line for out in outs for line in out.splitlines() if line.startswith("won")]
    assert sorted(wins) == sorted(f"won {i}" for i in range(n))  # exactly one winner each
    metadata = git(store_path, "ls-tree", "-r", "--name-only", "HEAD", "store/metadata")
    assert len(metadata.split()) == n
    assert git(store_path, "status", "--porcelain") == ""


def test_commit_picks_up_what_a_plain_add_left_uncommitted(store, store_path, bundle):
    store.add([Manifest.from_document(bundle["protocol"])])
    [result] = store.add([Manifest.from_document(bundle["protocol"])], commit=True)
    assert result.status == "added"  # HEAD lacked it: this add committed it (r88 F2b)
    [again] = store.add([Manifest.from_document(bundle["protocol"])], commit=True)
    assert again.status == "unchanged"  # HEAD holds it now
    assert git(store_path, "status", "--porcelain") == ""
    assert layout.object_path(Digest.from_str(PUBLISHED["protocol"])) in git(
        store_path, "ls-tree", "-r", "--name-only", "HEAD")


def test_readding_over_a_corrupt_object_is_refused(store, store_path, bundle):
    store.add([Manifest.from_document(bundle["protocol"])])
    path = store_path / layout.object_path(Digest.from_str(PUBLISHED["protocol"]))
    path.write_bytes(path.read_bytes().replace(b"v1.1", b"v1.2"))
    with pytest.raises(MultipleErrors) as caught:
        store.add([Manifest.from_document(bundle["protocol"])])
    assert "is corrupt" in str(caught.value.errors[0])


def test_corrupt_stored_metadata_is_a_clear_conflict(store, store_path, bundle):
    store.add([Manifest.from_document(bundle["protocol"])])
    meta = store_path / layout.metadata_path(Digest.from_str(PUBLISHED["protocol"]))
    meta.write_bytes(b"{bad")
    with pytest.raises(MultipleErrors) as caught:
        store.add([Manifest.from_document(bundle["protocol"])])
    assert "stored metadata file is not valid JSON" in str(caught.value.errors[0])


def test_commit_view_reads_what_a_root_lookup_finds(published):
    """CommitView's cached subtree lookups give what ``tree[path]`` gives, path by path."""
    import pygit2

    from kistore.store import Store

    from ..conftest import commit_all, write_raw

    write_raw(published, "store/attestations/x/file.json", b"{}")
    write_raw(published, "notes.txt", b"not a tree")
    commit_all(published, "a file at the top and a deeper one")
    store = Store(published)
    view = store.view("HEAD")
    tree = store.commit("HEAD").tree
    paths: list[str] = []

    def walk(t: pygit2.Tree, prefix: str) -> None:
        for e in t:
            paths.append(prefix + e.name)
            if e.type == pygit2.GIT_OBJECT_TREE:
                walk(store.repo[e.id], prefix + e.name + "/")

    walk(tree, "")
    paths += ["nope", "store/nope/x.json", "notes.txt/inside", "store/objects/sha256/zz/a.json"]
    for path in paths:
        try:
            entry = tree[path]
            expected = bytes(store.repo[entry.id].data) if entry.type_str == "blob" else None
        except KeyError:
            expected = None
        assert view.read(path) == expected, path
        directory = path.rpartition("/")[0]
        if directory in paths and tree[directory].type_str == "tree":
            assert sorted(view.list_dir(directory)) == sorted(
                e.name for e in store.repo[tree[directory].id]), path


def bulk_batch(count: int = 40) -> list[Manifest]:
    """Enough manifests for --commit to pack them and write the work tree from a child."""
    from bench.generate import manifests as generated
    from kistore.store import PACK_THRESHOLD

    batch = [Manifest.from_document(d) for d in generated(count)]
    assert 2 * len(batch) >= PACK_THRESHOLD
    return batch


def test_bulk_commit_path_is_byte_identical_to_work_tree_path_names_files_too(tmp_path):
    # From PACK_THRESHOLD files on, --commit packs the blobs and forked children write the
    # work tree: the names files go the same way as objects and metadata.
    batch = bulk_batch()
    a, b = Store.init(tmp_path / "a"), Store.init(tmp_path / "b")
    a.add(batch, allow_dangling=True)
    b.add(batch, allow_dangling=True, commit=True, message="bulk")
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    names = sorted(p for p in snapshot(tmp_path / "b") if p.startswith("store/names/"))
    assert names == sorted(layout.name_path(m.kind, m.name) for m in batch)
    git(tmp_path / "a", "add", "-A")
    assert git(tmp_path / "a", "write-tree") == git(tmp_path / "b", "rev-parse", "HEAD^{tree}")
    assert git(tmp_path / "b", "status", "--porcelain") == ""


def test_disk_full_while_the_child_writes_moves_no_branch_and_leaves_no_file(
        store, store_path, disk_full_on_write):
    before = snapshot(store_path)
    head = git(store_path, "rev-parse", "HEAD")
    disk_full_on_write(30)
    with pytest.raises(OSError, match="No space left"):
        store.add(bulk_batch(), commit=True, message="bulk")
    assert snapshot(store_path) == before
    assert git(store_path, "rev-parse", "HEAD") == head
    assert not (store_path / ".git" / "index.lock").exists()
    assert git(store_path, "status", "--porcelain") == ""


def test_failed_commit_while_the_child_writes_undoes_its_files(store, store_path):
    before = snapshot(store_path)
    head = git(store_path, "rev-parse", "HEAD")
    lost = StoreStateError("lost the race")
    with mock.patch("kistore.git.commit._raw_tree", side_effect=lost), \
            pytest.raises(StoreStateError):
        store.add(bulk_batch(), commit=True, message="bulk")
    assert snapshot(store_path) == before
    assert git(store_path, "rev-parse", "HEAD") == head
    assert not (store_path / ".git" / "index.lock").exists()


def test_bulk_commit_records_names_so_the_next_add_finds_them(store, store_path):
    batch = bulk_batch()
    store.add(batch, commit=True, message="bulk")
    again = store.add(batch, commit=True)
    assert {r.status for r in again} == {"unchanged"}
    run = next(m for m in batch if m.kind == "BenchmarkRun")
    assert store.resolve(f"BenchmarkRun/{run.name}") == run.digest
    assert git(store_path, "log", "-1", "--format=%s").strip() == "bulk"


def _index_stats(store_path) -> dict[str, tuple[int, ...]]:
    """Map each staged path to the stat data its git index entry records, as git shows it:
    (ctime s, ctime ns, mtime s, mtime ns, dev, ino, uid, gid, size); zeros: no stat data."""
    entries: dict[str, list[int]] = {}
    path = ""
    for line in git(store_path, "ls-files", "--debug", "store").splitlines():
        if not line.startswith(" "):
            path = line
            entries[path] = []
        else:  # "  ctime: 1764461234:123456789", "  dev: 2049\tino: 12", ...
            for field in line.split("\t"):
                name, _, value = field.strip().partition(":")
                if name in ("ctime", "mtime"):
                    entries[path] += [int(v) for v in value.strip().split(":")]
                elif name in ("dev", "ino", "uid", "gid", "size"):
                    entries[path].append(int(value))
    return {p: tuple(v) for p, v in entries.items()}


def _stat_as_git_records_it(path) -> tuple[int, ...]:
    st = path.stat()
    u32 = 0xFFFFFFFF
    return (*divmod(st.st_ctime_ns, 10**9), *divmod(st.st_mtime_ns, 10**9), st.st_dev & u32,
            st.st_ino & u32, st.st_uid, st.st_gid, st.st_size)


@pytest.mark.parametrize("bulk", [False, True], ids=["few-files", "bulk-packed"])
def test_commit_stages_the_files_exact_stat_data_so_git_status_need_not_rehash(
        store, store_path, bundle, bulk):
    batch = bulk_batch() if bulk else [Manifest.from_document(bundle["protocol"])]
    store.add(batch, commit=True, message="stat data")
    recorded = _index_stats(store_path)
    written = [layout.object_path(m.digest) for m in batch] + [
        layout.metadata_path(m.digest) for m in batch]
    assert {p: recorded[p] for p in written} == {
        p: _stat_as_git_records_it(store_path / p) for p in written}
    assert git(store_path, "status", "--porcelain") == ""


def test_a_file_edited_in_place_after_the_add_shows_as_modified(store, store_path):
    # Same size, same inode: only the times tell git (the entry's stat data) to look again.
    batch = bulk_batch()
    store.add(batch, commit=True, message="bulk")
    rel = layout.metadata_path(batch[0].digest)
    with open(store_path / rel, "r+b") as f:
        f.write(b"[")
    assert git(store_path, "status", "--porcelain") == f" M {rel}\n"


def test_staging_a_file_edited_since_the_commit_keeps_the_committed_blob(store, store_path,
                                                                           bundle):
    m = Manifest.from_document(bundle["protocol"])
    store.add([m], commit=True)
    rel = layout.object_path(m.digest)
    committed = store.repo.index[rel].id
    (store_path / rel).write_bytes(b"edited meanwhile")
    with gitindex.IndexUpdate(store_path / ".git" / "index") as update:
        gitindex.stage(update.index, {rel: committed}, {}, store_path)
    assert store.repo.index[rel].id == committed
    assert git(store_path, "status", "--porcelain") == f" M {rel}\n"


def _state(store_path) -> tuple[str, str, str, dict[str, bytes], list[str]]:
    """HEAD, the git index (as ls-files --stage), git status, every work-tree file, and
    git's lock and kistore's scratch files (none may be left)."""
    leftovers = sorted(p.name for p in (store_path / ".git").glob("*")
                       if p.name.endswith(".lock") and p.name != "kistore-write.lock"
                       or p.name.startswith("kistore-index"))
    return (git(store_path, "rev-parse", "HEAD"), git(store_path, "ls-files", "--stage"),
            git(store_path, "status", "--porcelain"), snapshot(store_path), leftovers)


@pytest.mark.parametrize("bulk", [False, True], ids=["few-files", "bulk-with-writer-child"])
def test_an_index_that_cannot_be_written_commits_nothing_and_changes_nothing(
        store, store_path, bundle, bulk):
    # A new-user test: a split index ('link', which libgit2 cannot write), a sparse index
    # or a leftover .git/index.lock made the add commit first and fail to stage after.
    batch = bulk_batch() if bulk else [Manifest.from_document(bundle["protocol"])]
    git(store_path, "update-index", "--split-index")
    before = _state(store_path)
    with pytest.raises(StoreStateError, match=r"nothing was written.*split"):
        store.add(batch, commit=True, message="never")
    assert _state(store_path) == before


def test_a_stale_index_lock_refuses_the_add_before_any_file_is_written(
        store, store_path, bundle, monkeypatch):
    # A new-user test: a crashed git's .git/index.lock was found only after every file was
    # written and packed.
    monkeypatch.setattr("kistore.git.commit.INDEX_WAIT_S", 0.1)
    (store_path / ".git" / "index.lock").write_bytes(b"")
    before = _state(store_path)
    with pytest.raises(StoreStateError, match=r"index\.lock: this lock file exists: .* if no "
                       r"git command is running, delete the file and run `git reset -q` .* "
                       r"nothing was written"):
        store.add(bulk_batch(), commit=True, message="never")
    assert _state(store_path) == before
    assert not [p for p in (store_path / "store" / "objects").rglob("*") if p.is_file()]


def test_a_stale_branch_lock_is_named_not_called_a_busy_branch(
        store, store_path, bundle, monkeypatch):
    # A new-user test: a leftover .git/refs/heads/main.lock gave "the branch kept moving
    # under concurrent writers" after 18 s of retries.
    monkeypatch.setattr("kistore.git.commit.CAS_ATTEMPTS", 2)
    lock = store_path / ".git" / "refs" / "heads" / "main.lock"
    lock.write_bytes(b"")
    before = _state(store_path)
    with pytest.raises(StoreStateError, match=r"refs/heads/main\.lock: this lock file exists: "
                       r"another git "
                       r"command is updating refs/heads/main, or one crashed"):
        store.add([Manifest.from_document(bundle["protocol"])], commit=True, message="never")
    lock.unlink()
    assert _state(store_path) == before


def test_a_branch_switched_during_the_add_is_not_committed_to(store, store_path, monkeypatch):
    # A new-user test: `git checkout -b other` during an add --commit; kistore committed to
    # main and left 3,000 staged entries in other's index.
    batch = bulk_batch()
    real = gitindex.stage

    def switched(*args, **kwargs):
        result = real(*args, **kwargs)
        git(store_path, "symbolic-ref", "HEAD", "refs/heads/other")
        return result

    monkeypatch.setattr(gitindex, "stage", switched)
    main_before = git(store_path, "rev-parse", "main")
    staged_before = git(store_path, "ls-files", "--stage")
    layout_before = sorted((store_path / "store").rglob("*"))
    with pytest.raises(StoreStateError, match="HEAD was switched from refs/heads/main to "
                       "refs/heads/other during the add .* nothing was committed"):
        store.add(batch, commit=True, message="never")
    assert git(store_path, "rev-parse", "main") == main_before
    assert git(store_path, "ls-files", "--stage") == staged_before
    # no file and no new directory left (the 500 shard directories used to stay, empty)
    assert sorted((store_path / "store").rglob("*")) == layout_before


@pytest.mark.parametrize("command", [["commit", "-q", "-m", "only mine"], ["reset", "-q"],
                                     ["stash", "-q"]], ids=["commit", "reset", "stash"])
def test_no_git_command_takes_or_drops_the_staged_entries_before_the_branch_moves(
        store, store_path, monkeypatch, command):
    # A new-user test: the index lock was released between staging and the move; a user's
    # `git commit` then committed kistore's 1,000 staged files under the user's message
    # (and kistore made no commit of its own), `git reset` left them staged as deleted.
    batch = bulk_batch()
    (store_path / "mine.txt").write_text("mine")
    git(store_path, "add", "mine.txt")
    real = BranchCommit._move
    refused = []

    def meanwhile(self, *args, **kwargs):
        done = subprocess.run(["git", *command], cwd=store_path, capture_output=True,
                              text=True)
        refused.append(done.returncode != 0)  # git says "index.lock exists" (stash: nothing)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(BranchCommit, "_move", meanwhile)
    store.add(batch, commit=True, message="kistore's own")
    assert refused == [True]
    assert git(store_path, "log", "-1", "--format=%s").strip() == "kistore's own"
    assert git(store_path, "status", "--porcelain") == "A  mine.txt\n"
    committed = set(git(store_path, "diff-tree", "-r", "--name-only", "HEAD~1", "HEAD").split())
    assert committed == {layout.object_path(m.digest) for m in batch} | {
        layout.metadata_path(m.digest) for m in batch} | {
        layout.name_path(m.kind, m.name) for m in batch} | set(group_files(batch))


@pytest.mark.parametrize("size", ["one", "bulk"])
@pytest.mark.parametrize("command", [["stash", "-u"], ["add", "-A"]],
                         ids=["stash -u", "add -A"])
def test_no_git_command_takes_the_files_while_add_commit_writes_them(
        store, store_path, monkeypatch, command, size):
    # A new-user test: before staging, the files being written were untracked and git's
    # index was not locked. A `git stash -u` then took them (the add exited 0 and its files
    # were gone: KI402 in verify); a `git add -A` + commit held objects without metadata.
    from kistore.git.writer import FileBatch

    batch = bulk_batch() if size == "bulk" else bulk_batch()[:1]
    (store_path / "mine.txt").write_text("mine")
    hook = "wait" if size == "bulk" else "run"  # the parallel writer, or the inline one
    real = getattr(FileBatch, hook)
    refused = []

    def meanwhile(self, *args, **kwargs):
        result = real(self, *args, **kwargs)  # every file is written, none staged yet
        done = subprocess.run(["git", *command], cwd=store_path, capture_output=True,
                              text=True)
        refused.append(done.returncode != 0)  # add: "Unable to create '.git/index.lock'"
        return result

    monkeypatch.setattr(FileBatch, hook, meanwhile)
    store.add(batch, commit=True, message="kistore's own")
    assert refused == [True]  # (git 2.39's stash says nothing)
    assert git(store_path, "log", "-1", "--format=%s").strip() == "kistore's own"
    assert git(store_path, "status", "--porcelain") == "?? mine.txt\n"
    assert git(store_path, "stash", "list") == ""
    committed = set(git(store_path, "diff-tree", "-r", "--name-only", "HEAD~1", "HEAD").split())
    assert committed == {layout.object_path(m.digest) for m in batch} | {
        layout.metadata_path(m.digest) for m in batch} | {
        layout.name_path(m.kind, m.name) for m in batch} | set(group_files(batch))
    assert not (store_path / ".git" / "index.lock").exists()


@pytest.mark.parametrize("size", ["one", "bulk"])
def test_a_new_branch_switched_to_while_add_commit_writes_gets_no_commit(
        store, store_path, monkeypatch, size):
    # A new-user test: `git switch -c feature` needs no index change, so it succeeds
    # under kistore's index lock; the add then committed onto `feature`, not `main`.
    from kistore.git.writer import FileBatch

    batch = bulk_batch() if size == "bulk" else bulk_batch()[:1]
    before = _state(store_path)
    hook = "wait" if size == "bulk" else "run"
    real = getattr(FileBatch, hook)

    def meanwhile(self, *args, **kwargs):
        result = real(self, *args, **kwargs)
        git(store_path, "switch", "-q", "-c", "feature")
        return result

    monkeypatch.setattr(FileBatch, hook, meanwhile)
    with pytest.raises(StoreStateError, match="HEAD was switched from refs/heads/main to "
                       "refs/heads/feature during the add .* nothing was committed"):
        store.add(batch, commit=True, message="never")
    assert git(store_path, "rev-parse", "feature") == before[0]  # no commit on either
    git(store_path, "switch", "-q", "main")
    assert _state(store_path) == before


def test_ctrl_c_before_the_branch_moves_takes_back_the_staged_entries(
        store, store_path, monkeypatch):
    batch = bulk_batch()
    before = _state(store_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(BranchCommit, "_move", interrupted)  # after staging, before the swap
    with pytest.raises(KeyboardInterrupt):
        store.add(batch, commit=True, message="never")
    assert _state(store_path) == before


def test_ctrl_c_after_the_branch_moved_keeps_the_commit_its_files_and_the_index(
        store, store_path, monkeypatch):
    # A new-user test: SIGINT right after the ref moved deleted all 40,000 committed files
    # and left them staged as deleted.
    batch = bulk_batch()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "_record_names", interrupted)  # the step after the move
    with pytest.raises(AddInterrupted) as landed:
        store.add(batch, commit=True, message="landed")
    assert git(store_path, "log", "-1", "--format=%s").strip() == "landed"
    assert str(landed.value.commit) == git(store_path, "rev-parse", "HEAD").strip()
    assert [r.digest for r in landed.value.results] == [m.digest for m in batch]
    assert git(store_path, "status", "--porcelain") == ""
    for m in batch:
        path = layout.object_path(m.digest)
        assert (store_path / path).read_bytes() == m.object_bytes


def test_a_rerun_commits_the_object_a_killed_add_left_without_its_metadata(
        store, store_path, bundle):
    # A new-user test: the object file alone in the work tree (what a SIGKILL between the
    # two writes leaves) made the re-run commit the metadata without the object.
    m = Manifest.from_document(bundle["protocol"])
    obj = store_path / layout.object_path(m.digest)
    obj.parent.mkdir(parents=True, exist_ok=True)
    obj.write_bytes(m.object_bytes)
    [result] = store.add([m], commit=True, message="both")
    assert result.status == "added"  # it was "metadata-updated", its checks skipped (r83 F1)
    committed = git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert {layout.object_path(m.digest), layout.metadata_path(m.digest)} <= set(committed)
    assert git(store_path, "status", "--porcelain") == ""


def test_an_index_that_cannot_be_written_does_not_fail_the_add(store, bundle,
                                                                      monkeypatch):
    import sqlite3

    from kistore.index.names import NameIndex

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(NameIndex, "record", full)
    m = Manifest.from_document(bundle["protocol"])
    [result] = store.add([m], commit=True)
    assert result.status == "added"
    monkeypatch.undo()
    assert store.resolve(f"{m.kind}/{m.name}") == m.digest


_KILLED_ADD = r"""
import os, signal, sys
from kistore.store.inputs import read_inputs
from kistore.store import Store

real, renamed = os.replace, []

def rename_or_die(src, dst):  # the second file is written, then the process is killed
    if renamed:
        os.kill(os.getpid(), signal.SIGKILL)
    renamed.append(dst)
    real(src, dst)

os.replace = rename_or_die
Store(sys.argv[1]).add([x.manifest for x in read_inputs([sys.argv[2]])])
"""


def kit_bundle(kit, path):
    """Write a protocol, an environment and a workload as one bundle file; return its path."""
    import json

    docs = {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}
    path.write_text(json.dumps(docs))
    return path


def test_temp_files_of_a_killed_add_are_removed_by_the_next_add(store, runner, tmp_path, kit):
    """The attack: SIGKILL an ``add`` mid-write. Its ``.NAME.PID.N.tmp`` file stayed under
    store/ and ``verify`` failed (KI110) until someone deleted it by hand."""
    from kistore.cli import main

    source = kit_bundle(kit, tmp_path / "bundle.json")
    killed = subprocess.run([sys.executable, "-c", _KILLED_ADD, str(store.root), str(source)],
                            capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr
    temps = sorted(p.relative_to(store.root).as_posix()
                   for p in (store.root / "store").rglob(".*.tmp"))
    assert len(temps) == 1 and temps[0].endswith(".1.tmp")  # .NAME.PID.N.tmp
    result = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert result.exit_code == 1
    assert f"{temps[0]}: error KI110 path-outside-layout" in result.output
    assert "(a .NAME.PID.N.tmp file is a temporary file of a killed `kistore add`: delete " \
        "it, or the next add into its directory removes it)" in \
        result.output
    result = runner.invoke(main, ["--store", str(store.root), "add", str(source)])
    assert result.exit_code == 0, result.output
    assert not list((store.root / "store").rglob(".*.tmp"))
    result = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert result.exit_code == 0, result.output


def test_stale_temp_files_go_by_the_write_lock_not_by_pid(store, tmp_path, kit):
    """Under the write lock no other writer can be mid-write in the clone, so a temp file
    named with a live PID (a reused one: here this very process) is stale too; one in a
    shard the add does not write stays (no scan of the store per add)."""
    from kistore.store.inputs import read_inputs

    located = read_inputs([str(kit_bundle(kit, tmp_path / "bundle.json"))])
    touched = {layout.object_path(x.manifest.digest).rpartition("/")[0] for x in located}
    mine = store.root / sorted(touched)[0] / f".x.json.{os.getpid()}.7.tmp"
    fallback = store.root / sorted(touched)[-1] / ".x.json.ab_Cd9z1.tmp"
    untouched = next(f"store/objects/sha256/{h:02x}" for h in range(256)
                     if f"store/objects/sha256/{h:02x}" not in touched)
    elsewhere = store.root / untouched / f".x.json.{os.getpid()}.8.tmp"
    for path in (mine, fallback, elsewhere):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half a file")
    not_ours = mine.parent / "notes.tmp"
    not_ours.write_bytes(b"not of our naming pattern")
    store.add([x.manifest for x in located])
    assert not mine.exists() and not fallback.exists()
    assert elsewhere.exists() and not_ours.exists()


def test_add_commit_is_refused_during_an_unfinished_merge(store, store_path, bundle):
    # A new-user test: add --commit committed over a conflicted merge (MERGE_HEAD present).
    (store_path / ".git" / "MERGE_HEAD").write_text(git(store_path, "rev-parse", "HEAD"))
    before = _state(store_path)
    with pytest.raises(StoreStateError, match=r"git merge is in progress.*git merge --abort"):
        store.add([Manifest.from_document(bundle["protocol"])], commit=True)
    assert _state(store_path) == before


def test_sigterm_mid_write_undoes_the_add_like_ctrl_c(store_path, tmp_path):
    # A new-user test: SIGTERM (timeout, a cancelled CI job) ended the add on the spot and
    # left 1,411 manifests in the work tree of an add that never finished.
    import signal
    import time

    from bench.generate import write_jsonl

    source = tmp_path / "many.jsonl"
    write_jsonl(source, 5000)
    before = _state(store_path)
    add = subprocess.Popen([sys.executable, "-c", "from kistore.cli import main; main()",
                            "--store", str(store_path),
                            "add", "--commit", str(source)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    objects = store_path / "store" / "objects"
    deadline = time.monotonic() + 120
    while add.poll() is None and time.monotonic() < deadline:
        if any(objects.rglob("*.json")):  # the write has begun
            break
        time.sleep(0.002)
    add.send_signal(signal.SIGTERM)
    _, err = add.communicate(timeout=120)
    assert "Traceback" not in err
    if add.returncode == 130:  # interrupted: all undone, and said so
        assert err.startswith("interrupted "), err
        assert "nothing was added" in err
        assert _state(store_path) == before
    else:  # the signal came after the branch moved: the add is whole
        assert add.returncode == 0, err
        assert git(store_path, "status", "--porcelain") == ""
        assert len(git(store_path, "ls-files", "store/objects").split()) == 5000


@pytest.mark.parametrize("owner, step", [(gitindex, "stage"), (BranchCommit, "_move")],
                         ids=["stage", "move"])
def test_ctrl_c_during_staging_or_the_move_arrives_after_the_bookkeeping(
        store, store_path, monkeypatch, owner, step):
    # A new-user test: SIGINT/SIGTERM unblocked inside the move replaced its `return True`
    # (the commit landed, its files were undone) or landed inside staging (not taken back).
    import os
    import signal

    batch = bulk_batch()
    real = getattr(owner, step)

    def interrupted(*args, **kwargs):
        result = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C at the worst moment: right after it
        return result

    monkeypatch.setattr(owner, step, interrupted)
    with pytest.raises(AddInterrupted):
        store.add(batch, commit=True, message="landed")
    assert git(store_path, "log", "-1", "--format=%s").strip() == "landed"
    assert git(store_path, "status", "--porcelain") == ""


@pytest.mark.parametrize("owner, step", [(gitindex, "stage"), (BranchCommit, "_move")],
                         ids=["stage", "move"])
def test_ctrl_c_taken_by_another_thread_still_waits_for_the_bookkeeping(
        store, store_path, monkeypatch, owner, step):
    # The signal mask holds SIGINT for the thread that set it only: with another thread
    # alive (a process pool's manager thread; in the suite, a test's server thread) the
    # kernel handed Ctrl-C to that thread, and Python raised it inside the deferred block.
    import os
    import signal
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    batch = bulk_batch()
    real = getattr(owner, step)

    def interrupted(*args, **kwargs):
        result = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)  # this thread blocks it: the other one takes it
        return result

    monkeypatch.setattr(owner, step, interrupted)
    try:
        with pytest.raises(AddInterrupted):
            store.add(batch, commit=True, message="landed")
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C was raised inside the deferred block, before its bookkeeping")
    finally:
        stop.set()
        other.join()
    assert git(store_path, "log", "-1", "--format=%s").strip() == "landed"
    assert git(store_path, "status", "--porcelain") == ""


def test_a_rerun_whose_files_head_already_holds_makes_no_empty_commit(store, store_path):
    # A new-user test: after an interrupted add whose commit had landed, the re-run wrote
    # the files again and committed a tree identical to its parent's.
    batch = bulk_batch()
    store.add(batch, commit=True, message="landed")
    head = git(store_path, "rev-parse", "HEAD")
    git(store_path, "rm", "-q", "-r", "--cached", "store/objects", "store/metadata")
    for m in batch:
        (store_path / layout.object_path(m.digest)).unlink()
    store.add(batch, commit=True, message="again")
    assert git(store_path, "rev-parse", "HEAD") == head
    assert git(store_path, "status", "--porcelain") == ""


def test_a_concurrent_git_add_is_never_lost(store_path, tmp_path):
    # A new-user test: kistore read the index, then wrote it back over `git add`s that had
    # succeeded meanwhile (it held only its own lock, not git's index.lock).
    import time

    from bench.generate import write_jsonl

    source = tmp_path / "many.jsonl"
    write_jsonl(source, 3000)
    add = subprocess.Popen([sys.executable, "-c", "from kistore.cli import main; main()",
                            "--store", str(store_path), "add", "--commit", str(source)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    added = []
    number = 0
    while add.poll() is None:
        number += 1
        name = f"user-{number}.txt"
        (store_path / name).write_text(name)
        staged = subprocess.run(["git", "-C", str(store_path), "add", name],
                                capture_output=True)
        if staged.returncode == 0:  # git said it is staged: it must stay staged
            added.append(name)
        time.sleep(0.001)
    assert add.wait() == 0, add.stderr.read() if add.stderr else ""
    staged_now = set(git(store_path, "ls-files").split())
    assert added and not [n for n in added if n not in staged_now]
    assert git(store_path, "status", "--porcelain", "store") == ""


AFTER_THE_LANDING = [(False, "_record_names"), (False, "_write_lock"),
                     (True, "_record_names"), (True, "_index_commit"), (True, "_write_lock")]
"""Steps of an add after its files are in place (and committed): a signal there undoes nothing
(``_write_lock``: as the lock is let go; an add without ``--commit`` makes no commit to index)."""


@pytest.mark.parametrize(("commit", "step"), AFTER_THE_LANDING,
                         ids=[f"{'commit' if c else 'work-tree'}-{step}"
                              for c, step in AFTER_THE_LANDING])
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_ctrl_c_after_the_add_landed_says_so_and_exits_0(store, runner, tmp_path, kit,
                                                          monkeypatch, commit, signame, step):
    # New-user tests: Ctrl-C after the add had landed printed "Aborted!" with exit 1,
    # though every file was in place (and committed); then (review 2026-12-02 F-sig-2) a
    # Ctrl-C 1 ms after the branch moved said "nothing was added ... the branch did not
    # move" (exit 130) of a committed add, the interrupt landing between the write and
    # the add's return (releasing the write lock, say).
    import signal

    from kistore.cli import main

    real = getattr(Store, step)

    if step == "_write_lock":
        @contextlib.contextmanager
        def patched(self, *args, **kwargs):
            with real(self, *args, **kwargs):
                yield
            os.kill(os.getpid(), getattr(signal, signame))  # as the lock is let go
    else:
        def patched(self, *args, **kwargs):
            os.kill(os.getpid(), getattr(signal, signame))
            return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, step, patched)
    source = kit_bundle(kit, tmp_path / "bundle.json")
    result = runner.invoke(main, ["--store", str(store.root), "add", str(source),
                                  *(["--commit"] if commit else [])])
    assert result.exit_code == 0, result.output
    where = (f"committed as {git(store.root, 'rev-parse', 'HEAD').strip()}" if commit
             else "in the work tree")
    assert f"interrupted after the add had landed: all 3 manifests are stored and {where}; " \
        "nothing was undone" in result.output
    assert len(result.stdout.splitlines()) == 3
    monkeypatch.undo()
    assert runner.invoke(main, ["--store", str(store.root), "verify"]).exit_code == 0


@pytest.mark.parametrize("commit", [False, True], ids=["work-tree", "commit"])
def test_an_interrupt_as_the_write_lock_is_let_go_is_add_interrupted(store, store_path, kit,
                                                                     monkeypatch, commit):
    # A Python caller (no on_landed): the interrupt came after _add had returned, as the
    # lock was let go, and left as a plain KeyboardInterrupt, which means "undone".
    import signal

    real = Store._write_lock

    @contextlib.contextmanager
    def letting_go(self):
        with real(self):
            yield
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(Store, "_write_lock", letting_go)
    manifests = [Manifest.from_document(kit.protocol()), Manifest.from_document(kit.workload())]
    with pytest.raises(AddInterrupted) as caught:
        store.add(manifests, commit=commit)
    assert [r.status for r in caught.value.results] == ["added", "added"]
    head = git(store_path, "rev-parse", "HEAD").strip()
    assert (str(caught.value.commit) if commit else caught.value.commit) == \
        (head if commit else None)
    monkeypatch.undo()
    assert [r.status for r in store.add(manifests)] == ["unchanged", "unchanged"]


_CTRL_C_IN_A_FINALISER = r"""
import os, signal, sys, time
from kistore.cli import main
from kistore.git import writer


class Finalised:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100_000):  # the handler runs here, inside __del__
            pass


real = writer.FileBatch.run


def run(self, *args, **kwargs):
    result = real(self, *args, **kwargs)
    Finalised()  # collected at once: its __del__ runs
    time.sleep(0.5)  # before the commit: an interrupt now undoes the add
    return result


writer.FileBatch.run = run
sys.argv = ["kistore", "--store", sys.argv[1], "add", "--commit", sys.argv[2]]
main()
"""


def test_a_ctrl_c_inside_a_finaliser_still_undoes_the_add(store_path, tmp_path, kit):
    # Review 2026-12-02 F-sig-3: a Ctrl-C that landed in a finaliser (pygit2's Index.__del__)
    # printed "Exception ignored in ... Traceback ... KeyboardInterrupt" and was lost: the
    # add went on and exited 0. It comes back 10 ms later, as SIGTERM's always did.
    before = _state(store_path)
    source = kit_bundle(kit, tmp_path / "bundle.json")
    add = subprocess.run([sys.executable, "-c", _CTRL_C_IN_A_FINALISER, str(store_path),
                          str(source)], capture_output=True, text=True, cwd=tmp_path)
    assert add.returncode == 130, add.stderr
    assert add.stderr == ("interrupted before the add landed: nothing was added; any files it "
                          "had written were removed, and the branch did not move\n")
    assert _state(store_path) == before


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_landed_add_prints_keeps_exit_0(store, runner, tmp_path, kit,
                                                            monkeypatch, signame):
    # A new-user test: a signal about 0.1 s after the add had landed (while it printed or
    # exited) ended it with exit 130 or 143 and no word, though every manifest was stored.
    import signal

    import click

    from kistore.cli import main

    real_echo = click.echo

    def echo(message=None, *args, **kwargs):
        if message and "BenchmarkProtocol" in str(message):
            os.kill(os.getpid(), getattr(signal, signame))  # as the results are printed
        real_echo(message, *args, **kwargs)

    monkeypatch.setattr(click, "echo", echo)
    source = kit_bundle(kit, tmp_path / "bundle.json")
    result = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(source)])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 3
    assert git(store.root, "status", "--porcelain") == ""


def test_a_second_ctrl_c_does_not_stop_the_undo_half_way(store, store_path, monkeypatch):
    # A new-user attack: Ctrl-C twice; the second interrupted the undo of the first and left
    # thousands of untracked store files and a temp file behind.
    import os
    import signal

    from kistore.git.writer import FileBatch

    batch = bulk_batch()
    before = _state(store_path)
    real_undo = FileBatch.undo

    def impatient(self):
        os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, as the undo starts
        real_undo(self)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # the first Ctrl-C, before the branch moves

    monkeypatch.setattr(FileBatch, "undo", impatient)
    monkeypatch.setattr(BranchCommit, "_move", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.add(batch, commit=True, message="never")
    assert _state(store_path) == before


def test_adds_from_two_worktrees_of_one_repository_take_turns(store, store_path, tmp_path):
    # A new-user test: the write lock lived in each worktree's own git directory, so adds
    # from a linked worktree on the same branch ran at once and both claimed one name.
    import fcntl
    import time

    linked = tmp_path / "linked"
    git(store_path, "worktree", "add", "-q", "-b", "other", str(linked))
    manifest = tmp_path / "one.json"
    from bench.generate import manifests as generated

    manifest.write_text(json.dumps(next(iter(generated(5)))))
    with open(store_path / ".git" / "kistore-write.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the main worktree's add is running
        add = subprocess.Popen([sys.executable, "-c", "from kistore.cli import main; main()",
                                "--store", str(linked), "add", "--commit", str(manifest)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2)
        waited = add.poll() is None  # it waits for the lock instead of writing
        fcntl.flock(lock, fcntl.LOCK_UN)
    out, err = add.communicate(timeout=120)
    assert waited, (out, err)
    assert add.returncode == 0, err
    assert not (store_path / ".git" / "worktrees" / "linked" / "kistore-write.lock").exists()


def test_a_later_upper_case_store_line_is_refused_by_check_and_add_commit(store_path, runner,
                                                                          bundle):
    # Reviewer r81 F7: `STORE/** text eol=crlf` appended after the guard got "ok" from
    # `check` and `add --commit`; git matches it to store/ in every clone with
    # core.ignorecase=true (macOS, Windows), where verify then failed with 1,444 errors.
    from kistore.cli import main

    base = git(store_path, "rev-parse", "HEAD").strip()
    with (store_path / ".gitattributes").open("a") as f:
        f.write("STORE/** text eol=crlf\n")
    git(store_path, "commit", "-q", "-am", "attributes: tidy")
    line = len((store_path / ".gitattributes").read_text().splitlines())
    checked = runner.invoke(main, ["--store", str(store_path), "check", f"{base}..HEAD"])
    assert checked.exit_code == 1, checked.output
    assert f".gitattributes:{line}:1: error KI113" in checked.output
    (store_path / "p.json").write_text(json.dumps(bundle["protocol"]))
    refused = runner.invoke(main, ["--store", str(store_path), "add", "--commit",
                                   str(store_path / "p.json")])
    assert refused.exit_code == 1
    assert f"line {line} sets text eol=crlf for STORE/** after the store/** line, so git " \
        "would convert stored bytes in a clone with core.ignorecase=true" in \
        " ".join(refused.output.split())
    assert git(store_path, "log", "-1", "--format=%s").strip() == "attributes: tidy"


def test_metadata_differing_only_in_unicode_normalisation_is_told_so(store, bundle):
    # fresh03 H6: stored "café", given "café" (NFC, then NFD) printed alike
    protocol = copy.deepcopy(bundle["protocol"])
    protocol["metadata"]["title"] = "caf\u00e9"
    store.add([Manifest.from_document(protocol)], allow_dangling=True)
    protocol["metadata"]["title"] = "cafe\u0301"
    with pytest.raises(MultipleErrors) as caught:
        store.add([Manifest.from_document(protocol)])
    [conflict] = caught.value.errors
    assert conflict.message == (
        f"{Manifest.from_document(protocol).digest} is already stored with other metadata "
        '(/title: stored "caf\\u00e9", given "cafe\\u0301" (one text in two Unicode '
        "normalisations: stored NFC, given NFD))")
