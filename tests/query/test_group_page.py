"""A run page and ``rank`` in a blob-less clone read the run's group from its listing (issue 22).

In a ``git clone --filter=blob:none`` the query index of a commit is one fetch of every
blob of the store. A commit that lists each comparison group as paths
(``store/groups/sha256/XX/<62 hex of K>/<64 hex of run>``) lets ``show BenchmarkRun/X``,
``rank`` and ``compare`` read the group's members and what they reference, nothing else
(kistore/index/groups.py). These tests hold three things:

* the answer is byte for byte the one a full clone of the same server prints;
* the blobs fetched are exactly the group's files, the manifests they reference, the
  names file asked, the ranking policy and ``kistore.toml`` (named path by path);
* nothing is written as the commit's index, and a store without ``store/groups/``
  answers as before, saying so in one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.limits import DEFAULT
from kistore.index.catalog import MemoryCatalog
from kistore.index.groups import GroupCatalog, group_catalog, indexed
from kistore.query.answers import run_catalog
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, git
from ..partial import commit_groups, git_processes

KISTORE = str(Path(sys.executable).with_name("kistore"))


def _store(work: Path, *, groups: bool = True) -> dict[str, str]:
    """A store of four comparison groups (and a run in none) in ``work``; name -> digest.

    ``groups=False``: without ``store/groups/``, as a store written before group files.

    Group A (protocol p, NVIDIA H100, workload w1): runs a0-a4 on two H100 environments
    (other drivers: comparable), a reference run, a failed run and one without a value.
    Group B: p, B200, w1. Group C: p, H100, w2. Group N: protocol q, whose key leaves out
    its digest (``keyFields``), H100, w1. ``lost`` names a protocol not in the store.
    """
    kit = ManifestKit()
    p = kit.protocol(name="p")
    q = kit.protocol(key_fields=["family", "hardwareProduct", "primaryStatistic",
                                 "workloadDigest"], version="2", family="narrow", name="q")
    h1 = kit.environment(name="h100-a")
    h2 = kit.environment(driver="560.1", name="h100-b")
    b200 = kit.environment("NVIDIA B200", name="b200")
    w1, w2 = kit.workload(name="w1"), kit.workload("softmax", name="w2")
    docs = [p, q, h1, h2, b200, w1, w2]

    def run(name: str, protocol: dict, env: dict, workload: dict, latency: float | None,
            **extra: object) -> None:
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}",
                                  role=extra.pop("role", None))  # type: ignore[arg-type]
        docs.extend([impl, kit.run(protocol, env, impl, workload, latency=latency,
                                   name=name, **extra)])  # type: ignore[arg-type]

    for i, latency in enumerate([12, 10, 15, 10, 40]):
        run(f"a{i}", p, h1 if i % 2 else h2, w1, latency)
    run("a-ref", p, h1, w1, 90, role="reference")
    run("a-bad", p, h1, w1, 1, status="incorrect")
    run("a-none", p, h2, w1, None)
    for i in range(3):
        run(f"b{i}", p, b200, w1, 20 + i)
    for i in range(4):
        run(f"c{i}", p, h1, w2, 30 - i)
    for i in range(2):
        run(f"n{i}", q, h2, w1, 7 + i)
    Store.init(work)
    digests = add_docs(Store(work), docs)
    lost_protocol = kit.protocol(version="9", name="lost-protocol")
    impl = kit.implementation("proj-lost", name="impl-lost")
    lost = kit.run(lost_protocol, h1, impl, w1, latency=5, name="lost")
    digests += add_docs(Store(work), [impl, lost], allow_dangling=True)
    git(work, "branch", "-M", "main")
    if groups:
        commit_groups(work)  # what kistore's writers commit (nothing left to write then)
    elif (work / "store" / "groups").exists():  # a store as kistore wrote it before groups
        git(work, "rm", "-r", "-q", "store/groups")
        git(work, "commit", "-q", "--no-verify", "-m", "a store from before group files")
    return {d["metadata"]["name"]: digest
            for d, digest in zip([*docs, impl, lost], digests, strict=True)}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """The store behind a server that allows filters; (server, work tree, name -> digest)."""
    tmp = tmp_path_factory.mktemp("served")
    work = tmp / "work"
    names = _store(work)
    server = tmp / "server.git"
    git(tmp, "clone", "-q", "--bare", str(work), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    return server, work, names


@pytest.fixture(scope="module")
def full(served: tuple[Path, Path, dict[str, str]], tmp_path_factory: pytest.TempPathFactory
         ) -> Path:
    """A full bare clone of the server: what a reader with every blob has."""
    return _clone(served[0], tmp_path_factory.mktemp("full") / "full.git", blobs=True)


def _clone(server: Path, where: Path, *, blobs: bool) -> Path:
    """A bare clone of ``server`` over ``file://`` (as a remote reader has), with or without
    blobs."""
    filter_ = [] if blobs else ["--filter=blob:none"]
    git(where.parent, "clone", "-q", "--bare", *filter_, f"file://{server}", str(where))
    return where


def _kistore(clone: Path, *args: str, trace: Path | None = None
             ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"GIT_TRACE2_EVENT": str(trace)} if trace else {})}
    return subprocess.run([KISTORE, "--store", str(clone), *args], capture_output=True,
                          text=True, check=False, env=env)


def _missing_ids(repo: Path) -> set[str]:
    listing = git(repo, "rev-list", "--objects", "--all", "--missing=print")
    return {line[1:] for line in listing.splitlines() if line.startswith("?")}


def _paths_of(repo: Path, ids: set[str]) -> set[str]:
    """The paths of HEAD's tree whose blob is one of ``ids``."""
    out = set()
    for line in git(repo, "ls-tree", "-r", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        if meta.split()[2] in ids:
            out.add(path)
    return out


def _files(digests: list[str]) -> set[str]:
    return {p for d in digests for p in (layout.object_path(Digest.from_str(d)),
                                          layout.metadata_path(Digest.from_str(d)))}


def _group_of(work: Path, names: dict[str, str], run: str) -> tuple[list[str], list[str]]:
    """(the run's group members, every manifest they reference) by digest, from the work
    tree scanned whole: what the page should fetch and nothing more."""
    catalog = MemoryCatalog.from_view(Store(work).view("HEAD"))
    key = catalog.record(names[run]).comparison_key
    members = [r.digest for r in catalog.group(key)]
    refs = sorted({d for m in members for d in (catalog.record(m).workload,
                                                catalog.record(m).protocol,
                                                catalog.record(m).environment,
                                                catalog.record(m).implementation)})
    return members, refs


@pytest.mark.parametrize("run", ["a2", "b1", "n0"])
def test_a_run_page_in_a_blob_less_clone_is_the_full_clones_and_fetches_its_group(
        served, full, tmp_path, run):
    server, work, names = served
    clone = _clone(server, tmp_path / "reader.git", blobs=False)
    before = _missing_ids(clone)
    trace = tmp_path / "trace.json"
    shown = _kistore(clone, "show", f"BenchmarkRun/{run}", "--at", "HEAD", trace=trace)
    assert shown.returncode == 0, shown.stderr
    expected = _kistore(full, "show", f"BenchmarkRun/{run}", "--at", "HEAD")
    assert expected.returncode == 0, expected.stderr
    assert shown.stdout == expected.stdout  # byte for byte, citation line included
    assert shown.stderr == expected.stderr == ""
    assert "rank " in shown.stdout or "not ranked" in shown.stdout
    fetched = _paths_of(clone, before - _missing_ids(clone))
    members, refs = _group_of(work, names, run)
    assert fetched == (_files(members) | _files(refs) | {
        layout.name_path("BenchmarkRun", run), layout.POLICY_FILE, layout.SETTINGS_FILE})
    assert len(fetched) < len(before) / 2
    # one `git fetch` each: the names file (a `git cat-file` that git fetched for, before);
    # the run's object and metadata; the policy, kistore.toml and the run's references
    # (read from its bytes); the members; their references
    processes = git_processes(trace)
    assert processes["cat-file"] == 0
    assert processes["fetch"] == 1 + 4
    assert not (clone / "kistore").exists()  # no index written or opened
    assert (full / "kistore" / "index.sqlite").exists()


def test_its_json_page_rank_and_compare_are_the_full_clones(served, full, tmp_path):
    server, _, names = served
    for i, args in enumerate([
            ["show", "BenchmarkRun/a0", "--json"],
            ["show", names["a3"], "--comparison", "measured"],
            ["rank", "BenchmarkRun/a4", "--all"],
            ["rank", names["b2"][7:19], "--json"],
            ["rank", "BenchmarkRun/n1", "--evidence", "verified", "--format", "jsonl"],
            ["compare", "BenchmarkRun/a4"],
            ["compare", "BenchmarkRun/c1", "BenchmarkRun/b0", "--json"]]):
        clone = _clone(server, tmp_path / f"reader-{i}.git", blobs=False)
        before = len(_missing_ids(clone))
        got = _kistore(clone, *args, "--at", "HEAD")
        want = _kistore(full, *args, "--at", "HEAD")
        assert (got.returncode, got.stdout, got.stderr) == \
            (want.returncode, want.stdout, want.stderr), args
        assert got.returncode == 0, got.stderr
        assert before - len(_missing_ids(clone)) < before / 2, args
        assert not (clone / "kistore").exists()
    ranked = json.loads(_kistore(full, "rank", "BenchmarkRun/a0", "--at", "HEAD", "--json",
                                 "--all").stdout)
    tie = sorted(["a1", "a3"], key=lambda n: names[n])  # equal values: digest order
    assert [(r["rank"], r["name"]) for r in ranked] == [
        (1, tie[0]), (1, tie[1]), (3, "a0"), (4, "a2"), (5, "a4"), (None, "a-none"),
        (None, "a-ref"), (None, "a-bad")]


def test_a_bare_clone_without_at_and_a_run_in_no_group(served, full, tmp_path):
    server, _, names = served
    clone = _clone(server, tmp_path / "reader.git", blobs=False)
    # a bare repository answers as of HEAD; `lost` has no comparison group (its protocol
    # is not in the store): shown as stored, with the note, as a full clone shows it
    for args in (["show", "BenchmarkRun/b0"], ["show", "BenchmarkRun/lost"]):
        got, want = _kistore(clone, *args), _kistore(full, *args)
        assert (got.returncode, got.stdout, got.stderr) == \
            (want.returncode, want.stdout, want.stderr)
    assert "note:     run lost (" in got.stdout and "is in no comparison group" in got.stdout
    done = _kistore(clone, "rank", "BenchmarkRun/lost")
    assert done.returncode == 1
    assert "is in no comparison group" in done.stderr
    missing = _kistore(clone, "rank", "BenchmarkRun/nobody")
    assert missing.returncode == 1
    assert missing.stderr.startswith("error: no BenchmarkRun named 'nobody' at HEAD")
    assert not (clone / "kistore").exists()
    assert names["lost"] not in git(clone, "ls-tree", "-r", "--name-only", "HEAD",
                                    "store/groups")


def test_a_store_without_group_listings_answers_as_before_with_a_hint(tmp_path):
    work = tmp_path / "work"
    _store(work, groups=False)
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    full = _clone(server, tmp_path / "full.git", blobs=True)
    clone = _clone(server, tmp_path / "reader.git", blobs=False)
    got = _kistore(clone, "show", "BenchmarkRun/a2", "--at", "HEAD")
    want = _kistore(full, "show", "BenchmarkRun/a2", "--at", "HEAD")
    assert got.returncode == want.returncode == 0
    assert got.stdout == want.stdout
    assert got.stderr == (
        "note: HEAD has no store/groups/ (a store from before comparison groups were "
        "committed as paths): the run page reads every manifest of it, in this blob-less "
        "clone one fetch of every blob; `kistore migrate --commit` in a full clone adds "
        "them\n")
    manifests = {line.split()[2] for line in git(clone, "ls-tree", "-r", "HEAD",
                                                 "store/objects", "store/metadata")
                 .splitlines()}
    assert len(manifests) > 80
    assert not _missing_ids(clone) & manifests  # today's behaviour: every manifest fetched
    assert (clone / "kistore" / "index.sqlite").exists()


def test_a_listing_that_misses_the_run_is_not_trusted_and_a_stray_member_is_left_out(
        tmp_path):
    work = tmp_path / "work"
    names = _store(work)
    store = Store(work)
    catalog = MemoryCatalog.from_view(store.view("HEAD"))
    a_key = Digest.from_str(catalog.record(names["a0"]).comparison_key)
    b_key = Digest.from_str(catalog.record(names["b0"]).comparison_key)
    # b1 listed in group A by hand (committed past the gate): it is not ranked there
    stray = work / layout.group_path(a_key, Digest.from_str(names["b1"]))
    stray.write_bytes((work / layout.group_path(b_key, Digest.from_str(names["b1"])))
                      .read_bytes())
    # and c0's own group file removed: its listing cannot be trusted
    c_key = Digest.from_str(catalog.record(names["c0"]).comparison_key)
    git(work, "rm", "-q", layout.group_path(c_key, Digest.from_str(names["c0"])))
    git(work, "add", "store/groups")
    git(work, "commit", "-q", "--no-verify", "-m", "a stray group file; one removed")
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    full = _clone(server, tmp_path / "full.git", blobs=True)
    clone = _clone(server, tmp_path / "reader.git", blobs=False)
    got = _kistore(clone, "rank", "BenchmarkRun/a0", "--at", "HEAD", "--all")
    want = _kistore(full, "rank", "BenchmarkRun/a0", "--at", "HEAD", "--all")
    assert (got.returncode, got.stdout, got.stderr) == (0, want.stdout, "")
    assert "b1" not in got.stdout
    assert not (clone / "kistore").exists()
    got = _kistore(clone, "show", "BenchmarkRun/c0", "--at", "HEAD")
    want = _kistore(full, "show", "BenchmarkRun/c0", "--at", "HEAD")
    assert got.stdout == want.stdout
    path = layout.group_path(c_key, Digest.from_str(names["c0"]))
    assert got.stderr == (
        f"note: {path} is not in HEAD, though the run's comparison key is known: the group "
        "listing cannot be trusted, so the run page reads every manifest of it; `kistore "
        "verify --at HEAD` names what is missing\n")


def test_the_group_catalog_in_process_and_an_index_already_built(served, full, tmp_path):
    server, work, names = served
    clone = _clone(server, tmp_path / "reader.git", blobs=False)
    store = Store(clone)
    catalog = run_catalog(store, ["BenchmarkRun/c2"], "HEAD")
    assert isinstance(catalog, GroupCatalog)
    members, refs = _group_of(work, names, "c2")
    assert sorted(r.digest for r in catalog.group(catalog.keys[0])) == sorted(members)
    assert sorted(r.digest for r in catalog.records()) == sorted({*members, *refs})
    # the records are the index's: the same fields as a scan of the whole commit's
    whole = MemoryCatalog.from_view(Store(work).view("HEAD"))
    for r in catalog.records():
        assert r == whole.record(r.digest) and r.spec == whole.record(r.digest).spec
    # the names file and the run's two files were read resolving the name; then the
    # policy and kistore.toml with the run's references; the members; their references
    assert catalog.fetches == 3
    assert catalog.skipped() == {}
    tree = str(store.commit("HEAD").tree.id)
    assert not indexed(store.git_dir, tree)
    # once the index of HEAD is built (`kistore reindex`: every blob fetched), it answers
    assert _kistore(clone, "reindex", "--at", "HEAD").returncode == 0
    assert indexed(store.git_dir, tree)
    assert not isinstance(run_catalog(Store(clone), ["BenchmarkRun/c2"], "HEAD"),
                          GroupCatalog)
    # a full clone never reads listings: its index answers (or is built)
    assert not isinstance(run_catalog(Store(full), ["BenchmarkRun/c2"], "HEAD"),
                          GroupCatalog)
    # group_catalog itself reads a full clone too, fetching nothing
    full_store = Store(full)
    again = group_catalog(full_store.repo, full_store.commit("HEAD").tree,
                          [Digest.from_str(names["c2"])], limits=DEFAULT)
    assert again.fetches == 0
    assert sorted(r.digest for r in again.group(again.keys[0])) == sorted(members)


def test_a_damaged_member_is_skipped_as_the_index_skips_it(tmp_path):
    """A member whose object is not canonical (committed past the hooks): left out and
    named, as a full clone's index names it."""
    work = tmp_path / "work"
    names = _store(work)
    path = work / layout.object_path(Digest.from_str(names["b2"]))
    path.write_bytes(path.read_bytes().replace(b'{"apiVersion"', b'{ "apiVersion"'))
    git(work, "commit", "-q", "--no-verify", "-am", "b2 damaged by hand")
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    full = _clone(server, tmp_path / "full.git", blobs=True)
    clone = _clone(server, tmp_path / "reader.git", blobs=False)
    got = _kistore(clone, "rank", "BenchmarkRun/b0", "--at", "HEAD")
    want = _kistore(full, "rank", "BenchmarkRun/b0", "--at", "HEAD")
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout,
                                                        want.stderr)
    assert f"do not verify and are left out: {names['b2']}" in got.stderr
