"""After ``add``, the first query proves the store's files by stat data, reading none of them.

Issue 22: the first ``rank`` after ten chunked ``add --commit`` of 100,000 took 852 s at
1,000,000 manifests: every file of each shard directory an add touched was read and
hashed to prove it ``HEAD``'s, because the add recorded nothing about the files it wrote
and a commit to a shard voided the rows of every other file there (``manifest_stat`` was
keyed by the shards' tree ids). Now the add records the blob ids of the files it wrote
(:func:`kistore.index._fresh.record_written`) and a row holds its files' own blob ids: these
tests count the files the freshness check reads (none), and hold it to finding an in-place
rewrite of a file the add wrote, and of one it did not write in a shard it wrote to.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time

import pytest

from kistore.cli import main
from kistore.core import layout
from kistore.core.model import Manifest
from kistore.index import _database, _fresh, freshness
from kistore.query.answers import list_manifests
from kistore.store import Store, _store

from ..conftest import add_docs, git
from .test_query_warm import new_run, ranks


@pytest.fixture
def world(kit, monkeypatch):
    """A protocol, environment and workload; nothing written counts as racy."""
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    return {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}


@pytest.fixture
def reads(monkeypatch):
    """The work-tree files the freshness check reads and hashes (repository paths)."""
    seen: list[str] = []
    real = _fresh.blob_id_of_file

    def counted(path):
        seen.append(str(path))
        return real(path)

    monkeypatch.setattr(_fresh, "blob_id_of_file", counted)
    return seen


def shard_of(doc: dict) -> str:
    return str(Manifest.from_document(doc).digest)[7:9]


def runs_into(kit, world, shards: set[str], count: int) -> list[dict]:
    """``count`` runs (each after its implementation), the first with a file in ``shards``.

    So the add writes into a shard directory that holds a file it does not write. Run
    ``nNNNN`` has latency 40 + NNNN: slower than the first store's ``b`` (10) and ``a`` (30).
    """
    docs: list[dict] = []
    for i in range(5000):
        pair = new_run(kit, world, f"n{i:04d}", 40 + i)
        if not docs and not shards & {shard_of(d) for d in pair}:
            continue
        docs += pair
        if len(docs) >= 2 * count:
            return docs
    raise AssertionError("no run landed in the shards asked for")  # 5,000 draws of 1/256


def metadata_path(root, digest: str):
    return root / "store/metadata/sha256" / digest[7:9] / f"{digest[9:]}.json"


def rewrite_in_place(path, old: bytes, new: bytes) -> None:
    """Rewrite ``path`` through ``open(path, "r+b")``, same size, its mtime put back.

    Its directory's mtime does not move; only the file's ctime does (no user can set it).
    """
    assert len(old) == len(new)
    before = os.stat(path)
    time.sleep(0.02)  # past the file system's clock tick: the ctime must move
    data = path.read_bytes()
    assert old in data
    with open(path, "r+b") as f:
        f.write(data.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)
    assert after.st_ctime_ns != before.st_ctime_ns


def stat_rows(root) -> dict[str, bytes]:
    conn = _database.connection(_database.index_path(root / ".git"))
    return {f"sha256:{raw.hex()}": seen for raw, seen in conn.execute(
        "SELECT digest, seen FROM manifest_stat")}


@pytest.fixture
def grown(store, kit, world, monkeypatch, request):
    """A committed store of one group, queried, then grown by an add of 12 runs.

    Param ``bulk``: the add writes its files in child processes (as one of 64 files or
    more does); ``worktree``: ``add`` without --commit, then ``git commit`` of its files.
    Returns the store's root, the first store's digests and the added ones.
    """
    old = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                           *new_run(kit, world, "b", 10)])
    assert ranks(store.root) == [("b", 1), ("a", 2)]  # the first query records their rows
    docs = runs_into(kit, world, {old[4][7:9]}, 12)  # run a's shard: [..., impl-a, a, ...]
    if request.param == "bulk":
        monkeypatch.setattr("kistore.store._store.PACK_THRESHOLD", 1, raising=False)
    new = add_docs(store, docs, commit=request.param != "worktree")
    if request.param == "worktree":
        git(store.root, "add", "store")
        git(store.root, "commit", "-q", "-m", "the add's files")
    assert old[4][7:9] in {d[7:9] for d in new}  # run a's shard holds added files
    return store.root, old, new


ADDS = ["bulk", "single-process", "worktree"]


def run_names(root, new: list[str]) -> list[str]:
    """The added runs' names, fastest first (``new_run`` gives [implementation, run])."""
    return sorted((json.loads(metadata_path(root, d).read_bytes())["name"] for d in new[1::2]),
                  key=lambda name: int(name[1:]))


@pytest.mark.parametrize("grown", ADDS, indirect=True)
def test_first_queries_after_an_add_read_no_manifest_file(grown, reads, runner):
    root, old, new = grown
    assert set(new) <= set(stat_rows(root))  # the add recorded every file it wrote
    added = run_names(root, new)
    assert len(added) == 12
    ranked = [("b", 1), ("a", 2), *((name, i + 3) for i, name in enumerate(added))]
    assert ranks(root, "BenchmarkRun/b") == ranked
    listed = [r.name for r in list_manifests(Store(root), kind="BenchmarkRun")]
    assert listed == sorted(["a", "b", *added])
    shown = runner.invoke(main, ["--store", str(root), "show", f"BenchmarkRun/{added[0]}"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith(f"{added[0]}: {added[0]}\n  digest ")
    cli = runner.invoke(main, ["--store", str(root), "rank", "BenchmarkRun/b"])
    assert cli.exit_code == 0, cli.output
    assert reads == []  # no file read back to prove it HEAD's (before: every file of a shard)


@pytest.mark.parametrize("grown", ADDS, indirect=True)
def test_added_file_rewritten_in_place_after_the_add_is_still_found(grown):
    root, old, new = grown
    first = run_names(root, new)[0]
    digest = next(d for d in new[1::2] if json.loads(
        metadata_path(root, d).read_bytes())["name"] == first)
    renamed = "z" + first[1:]
    assert digest in stat_rows(root)  # recorded by the add: its stat data must not pass
    rewrite_in_place(metadata_path(root, digest), f'"name":"{first}"'.encode(),
                     f'"name":"{renamed}"'.encode())
    assert ranks(root, "BenchmarkRun/b")[:3] == [("b", 1), ("a", 2), (renamed, 3)]


@pytest.mark.parametrize("grown", ADDS, indirect=True)
def test_untouched_file_of_a_touched_shard_rewritten_in_place_is_still_found(grown):
    """Run ``a``, which the add did not write, renamed ``c`` in place in a shard it wrote to."""
    root, old, new = grown
    assert old[4] in stat_rows(root)  # seen clean before the add's commit to its shard
    rewrite_in_place(metadata_path(root, old[4]), b'"name":"a"', b'"name":"c"')
    assert ranks(root, "BenchmarkRun/b")[:3] == [("b", 1), ("c", 2), (run_names(root, new)[0], 3)]
    assert "c" in {r.name for r in list_manifests(Store(root), kind="BenchmarkRun")}


def test_a_shard_of_saved_rows_is_looked_up_not_the_whole_table_read(tmp_path):
    """4,000 digests (a shard directory's files at 1,000,000 manifests) are looked up by
    key: a pass over the table of a million rows cost 2.6 s of a rank after one add."""
    conn = sqlite3.connect(":memory:")
    conn.execute(_database.TABLES["manifest_stat"])
    rows = [(i.to_bytes(32, "big"), b"%32d" % i) for i in range(0, 8000, 2)]  # even ones
    conn.executemany("INSERT INTO manifest_stat VALUES (?, ?)", rows)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    asked = [f"sha256:{i:064x}" for i in range(4000)]
    found = _fresh.FileCheck(tmp_path, conn, None)._saved(asked)  # type: ignore[arg-type]
    assert found == {f"sha256:{i:064x}": b"%32d" % i for i in range(0, 4000, 2)}
    assert len(statements) == 8  # 500 keys a statement
    assert all("WHERE digest IN" in s for s in statements)


@pytest.mark.parametrize("count", [4000, _fresh.SCAN_FROM])
def test_a_row_edited_to_hold_no_bytes_is_a_miss_not_a_traceback(tmp_path, count):
    """``seen`` is sliced in two: a number or text put there from outside is no row."""
    conn = sqlite3.connect(":memory:")
    conn.execute(_database.TABLES["manifest_stat"])
    conn.executemany("INSERT INTO manifest_stat VALUES (?, ?)", [
        ((1).to_bytes(32, "big"), 7), ((2).to_bytes(32, "big"), "text"),
        ("sha256:03", b"x" * 32), ((4).to_bytes(32, "big"), b"y" * 32)])
    asked = [f"sha256:{i:064x}" for i in range(count)]
    found = _fresh.FileCheck(tmp_path, conn, None)._saved(asked)  # type: ignore[arg-type]
    assert found == {f"sha256:{4:064x}": b"y" * 32}


# -- the touched directories' rows (worktree table), recorded by the add -----------------

MANIFEST_FILE = re.compile(r"store/(objects|metadata)/sha256/[0-9a-f]{2}/[0-9a-f]{62}\.json$")


@pytest.fixture
def lstats(monkeypatch):
    """The manifest files ``os.lstat`` is asked about (repository paths, in order)."""
    seen: list[str] = []
    real = os.lstat

    def counted(path, *args, **kwargs):
        found = MANIFEST_FILE.search(os.fspath(path))
        if found is not None:
            seen.append(found[0])
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", counted)
    return seen


def worktree_rows(root) -> dict[str, tuple[int, str, str]]:
    conn = _database.connection(_database.index_path(root / ".git"))
    return {d: (m, t, c) for d, m, t, c in conn.execute(
        "SELECT dir, mtime_ns, tree, changed FROM worktree WHERE dir != '*'")}


def touched_dirs(new: list[str]) -> set[str]:
    return {f"store/{base}/sha256/{d[7:9]}" for d in new for base in ("objects", "metadata")}


def files_of(digests) -> set[str]:
    return {f"store/{base}/sha256/{d[7:9]}/{d[9:]}.json" for d in digests
            for base in ("objects", "metadata")}


@pytest.fixture
def added(store, kit, world, monkeypatch, request):
    """A committed store of one group, listed, then grown by an add of 12 runs.

    Params as ``grown``'s, but ``worktree`` is an add without --commit left uncommitted
    (no ``git commit``: HEAD then holds other shard trees than the add recorded against).
    Returns the store's root, the first store's digests, the added ones and the param.
    """
    old = listed_store(store, kit, world)
    docs = runs_into(kit, world, {old[4][7:9]}, 12)
    if request.param == "bulk":
        monkeypatch.setattr("kistore.store._store.PACK_THRESHOLD", 1, raising=False)
    new = add_docs(store, docs, commit=request.param != "worktree")
    assert old[4][7:9] in {d[7:9] for d in new}
    return store.root, old, new, request.param


def listed_store(store, kit, world) -> list[str]:
    """Commit a protocol, environment, workload and runs a, b; list them (rows recorded)."""
    old = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                           *new_run(kit, world, "b", 10)])
    assert [r.name for r in list_manifests(Store(store.root), kind="BenchmarkRun")] == ["a", "b"]
    return old


@pytest.mark.parametrize("added", ADDS, indirect=True)
def test_the_add_records_the_rows_of_the_directories_it_wrote(added):
    root, old, new, kind = added
    rows, dirs = worktree_rows(root), touched_dirs(new)
    for rel in dirs:  # each row holds the directory's mtime after the add
        assert rows[rel][0] == os.stat(root / rel).st_mtime_ns, rel
    head = git(root, "rev-parse", "HEAD^{tree}").strip()
    keys = {rel: git(root, "rev-parse", f"{head}:{rel}").strip() for rel in dirs
            if rel[-2:] in {d[7:9] for d in old}}  # HEAD's shard trees (the old shards)
    assert all(rows[rel][1] == key for rel, key in keys.items())
    if kind == "worktree":  # uncommitted: each added file differs from HEAD, in both folders
        differ = {rel: sorted(d for d in new if d[7:9] == rel[-2:]) for rel in dirs}
        assert {rel: json.loads(rows[rel][2]) for rel in dirs} == differ
    else:
        assert all(rows[rel][2] == "[]" for rel in dirs)


@pytest.mark.parametrize("added", ADDS, indirect=True)
def test_the_first_listing_after_an_add_stats_no_manifest_file(added, lstats, reads, runner):
    """``ls`` checks the work tree per directory: the add's rows answer for those it wrote."""
    root, old, new, kind = added
    listed = runner.invoke(main, ["--store", str(root), "ls", "--kind", "BenchmarkRun"])
    assert listed.exit_code == 0, listed.output
    names = [line.split()[2] for line in listed.output.splitlines()]
    assert names == sorted(["a", "b", *run_names(root, new)])
    if kind == "worktree":  # the added files differ from HEAD: read from the work tree
        lstats = [path for path in lstats if path not in files_of(new)]
    assert lstats == []  # before: every file the touched directories kept, run a's included
    assert reads == []


def rename_over(path, old: bytes, new: bytes) -> None:
    """Replace ``path`` by a new file renamed over it (``sed -i``): a new inode, same name."""
    data = path.read_bytes()
    assert old in data
    temporary = path.with_name("edit.tmp")
    temporary.write_bytes(data.replace(old, new))
    os.replace(temporary, path)


FOREIGN = ["renamed-over", "removed", "added-beside"]


def foreign_write(root, old: list[str], how: str) -> None:
    """Change run ``a``'s metadata directory as another writer would (not through kistore)."""
    path = metadata_path(root, old[4])
    if how == "renamed-over":
        rename_over(path, b'"name":"a"', b'"name":"c"')
    elif how == "removed":
        path.unlink()
    else:  # a file of another name in the same directory (a copy of a's, renamed "c")
        copy = path.with_name("0" * 62 + ".json")
        copy.write_bytes(path.read_bytes().replace(b'"name":"a"', b'"name":"c"'))


@pytest.mark.parametrize("how", FOREIGN)
@pytest.mark.parametrize("kind", ADDS)
def test_a_write_between_the_adds_write_and_its_record_leaves_the_row_stale(
        store, kit, world, monkeypatch, how, kind):
    """Another writer's change to a directory the add wrote into, after the add's files
    were written and before it recorded the rows, is never hidden behind the new mtime."""
    old = listed_store(store, kit, world)
    shard = metadata_path(store.root, old[4]).parent

    def racing(*args, **kwargs):
        foreign_write(store.root, old, how)
        return real(*args, **kwargs)

    # before the records' one look after the write (freshness.one_write): the names' first
    real = _store.Store._record_names
    monkeypatch.setattr(_store.Store, "_record_names", racing)
    if kind == "bulk":
        monkeypatch.setattr(_store, "PACK_THRESHOLD", 1, raising=False)
    new = add_docs(store, runs_into(kit, world, {old[4][7:9]}, 3), commit=kind != "worktree")
    rows = worktree_rows(store.root)
    rel = str(shard.relative_to(store.root))
    assert rows[rel][0] != os.stat(shard).st_mtime_ns  # left stale: the query compares it
    assert all(rows[r][0] == os.stat(store.root / r).st_mtime_ns
               for r in touched_dirs(new) - {rel})  # the other directories: recorded
    names = [r.name for r in list_manifests(Store(store.root), kind="BenchmarkRun")]
    added_names = run_names(store.root, new)
    if how == "renamed-over":
        assert names == sorted(["c", "b", *added_names])
    elif how == "removed":
        assert names == sorted(["b", *added_names])
    else:  # the copy holds no valid manifest for its name: still, the directory is compared
        assert "0" * 62 + ".json" in os.listdir(shard)
        assert names == sorted(["a", "b", *added_names])



@pytest.fixture
def racy_add(store, kit, world, monkeypatch, request):
    """``added``, but every mtime the add leaves is within the racy window (its 2 s)."""
    old = listed_store(store, kit, world)
    monkeypatch.setattr(freshness, "RACY_NS", 10**12)  # everything written is "now"
    if request.param == "bulk":
        monkeypatch.setattr(_store, "PACK_THRESHOLD", 1, raising=False)
    new = add_docs(store, runs_into(kit, world, {old[4][7:9]}, 3),
                   commit=request.param != "worktree")
    return store.root, old, new, request.param


@pytest.mark.parametrize("racy_add", ADDS, indirect=True)
def test_a_racy_directory_is_recorded_with_its_listing_and_trusted_by_it(
        racy_add, lstats, reads, runner):
    """As git compares a racily clean entry's content: a directory written within the
    racy window is trusted while it lists the same names, inodes, ctimes and sizes: each of
    its entries is stated (an inode freed by one rename-over and reused by the next listed
    as before, an A-B-A the names' property test found), no file read, no other stated."""
    root, old, new, kind = racy_add
    rows = worktree_rows(root)
    for rel in touched_dirs(new):
        mtime, tree, _ = rows[rel]
        assert mtime == os.stat(root / rel).st_mtime_ns
        assert re.fullmatch(r"([0-9a-f]{40})?#[0-9a-f]{32}", tree), tree
    listed = runner.invoke(main, ["--store", str(root), "ls", "--kind", "BenchmarkRun"])
    assert [line.split()[2] for line in listed.output.splitlines()] == \
        sorted(["a", "b", *run_names(root, new)])
    racy = touched_dirs(old) | touched_dirs(new)  # every write of the fixture is racy
    assert lstats and all(path.rsplit("/", 1)[0] in racy for path in lstats)
    assert reads == []


def run_beside(kit, world, old: list[str], shards: set[str]) -> Manifest:
    """Run ``c`` of run ``a``'s implementation, its digest in one of ``shards``."""
    impl = kit.implementation("proj-a", name="impl-a")
    assert str(Manifest.from_document(impl).digest) == old[3]  # run a's, as stored
    for latency in range(50, 5050):  # 5,000 draws of a few shards in 256
        run = Manifest.from_document(kit.run(world["protocol"], world["env"], impl,
                                             world["workload"], latency=latency, name="c"))
        if run.digest.hex[:2] in shards:
            return run
    raise AssertionError("no run landed in the shards asked for")


@pytest.mark.parametrize("how", FOREIGN)
@pytest.mark.parametrize("racy_add", ADDS, indirect=True)
def test_a_write_hidden_behind_a_racy_rows_mtime_is_found(racy_add, how, runner, kit, world):
    """A write in the same clock tick as the add's (here: the mtimes put back) keeps the
    directories' mtimes; their listings differ, so the rows are not trusted.

    ``added-beside`` writes a whole manifest (run ``c``: object and metadata files) into a
    shard the add wrote: a row trusted by its mtime alone would leave it out of ``ls``.
    """
    root, old, new, _ = racy_add
    if how == "added-beside":
        run = run_beside(kit, world, old, {d[7:9] for d in new})
        paths = [root / layout.object_path(run.digest), root / layout.metadata_path(run.digest)]
        data = [run.object_bytes, run.metadata_bytes]
    else:
        paths = [metadata_path(root, old[4])]
    shards = [path.parent for path in paths]
    before = [os.stat(shard) for shard in shards]
    if how == "added-beside":
        for path, content in zip(paths, data, strict=True):
            path.write_bytes(content)
    else:
        foreign_write(root, old, how)
    for shard, was in zip(shards, before, strict=True):
        os.utime(shard, ns=(was.st_atime_ns, was.st_mtime_ns))
        row = worktree_rows(root)[str(shard.relative_to(root))]
        assert (os.stat(shard).st_mtime_ns, "#" in row[1]) == (row[0], True)  # racy row
    listed = runner.invoke(main, ["--store", str(root), "ls", "--kind", "BenchmarkRun"])
    names = [line.split()[2] for line in listed.output.splitlines()
             if line.startswith("sha256:")]  # a removed file is warned of too
    expected = {"renamed-over": ["b", "c"], "removed": ["b"], "added-beside": ["a", "b", "c"]}
    assert names == sorted([*expected[how], *run_names(root, new)])


@pytest.mark.parametrize("added", ADDS, indirect=True)
def test_a_write_into_a_recorded_directory_after_the_add_is_found(added, runner):
    root, old, new, _ = added
    time.sleep(0.02)  # past the file system's clock tick (RACY_NS is 0 here)
    rename_over(metadata_path(root, old[4]), b'"name":"a"', b'"name":"c"')
    listed = runner.invoke(main, ["--store", str(root), "ls", "--kind", "BenchmarkRun"])
    assert listed.exit_code == 0, listed.output
    assert [line.split()[2] for line in listed.stdout.splitlines()] == \
        sorted(["b", "c", *run_names(root, new)])
    # a committed name edited so is said (fresh03 H4: kistore.cli._renamed_here)
    assert listed.stderr.startswith(
        f"warning: {metadata_path(root, old[4]).relative_to(root)}: the work tree names it "
        "BenchmarkRun/c, HEAD BenchmarkRun/a (its metadata edited by hand)"), listed.stderr


# -- a store built by several `add --commit` from `kistore init` on, no query between ------
#
# Issue 22: the first `rank` after the `--million` bench's ten `add --commit` of 100,000 took
# 60 s (258x a warm one), and as long after one add of all of them. No query ran between the
# adds, so the index held no `worktree` row, and an add keeps only the rows it finds in step:
# none, chunk after chunk, although the first created every directory it wrote. The first
# query then compared each of the 512 directories with HEAD and stated both files of every
# manifest they keep (~2,000,000 `lstat` at 1,000,000). Now an `add --commit` starts the row
# of each directory it creates (absent from the work tree and from HEAD), and each later
# chunk finds it in step.

SHARD_DIR = re.compile(r"store/(objects|metadata)/sha256/[0-9a-f]{2}$")


@pytest.fixture
def listings(monkeypatch):
    """The shard directories listed (``os.scandir``, ``os.listdir``), repository paths."""
    seen: list[str] = []

    def counting(real):
        def counted(path=".", *args, **kwargs):
            found = SHARD_DIR.search(os.fspath(path)) if not isinstance(path, int) else None
            if found is not None:
                seen.append(found[0])
            return real(path, *args, **kwargs)
        return counted

    monkeypatch.setattr(os, "scandir", counting(os.scandir))
    monkeypatch.setattr(os, "listdir", counting(os.listdir))
    return seen


def shards(digests: list[str]) -> set[str]:
    return {d[7:9] for d in digests}


def chunk(kit, world, prefix: str, count: int, into: set[str]) -> list[dict]:
    """``count`` runs named ``PREFIX-N`` (each after its implementation), the first pair
    with a file in one of the shards ``into`` (a directory an earlier chunk created)."""
    docs: list[dict] = []
    for i in range(5000):
        pair = new_run(kit, world, f"{prefix}-{i}", 40 + i)
        if not docs and into and not into & {str(Manifest.from_document(d).digest)[7:9]
                                              for d in pair}:
            continue
        docs += pair
        if len(docs) >= 2 * count:
            return docs
    raise AssertionError("no run landed in the shards asked for")  # 5,000 draws


@pytest.fixture(params=["bulk", "single-process"])
def chunked(store, kit, world, monkeypatch, request):
    """``kistore init``, then three ``add --commit`` of 8 runs each (the world in the
    first), no query between them; the second and third write into directories the first
    created. Param ``bulk``: each add writes its files in child processes (as an add of 64
    files or more does). Returns the store's root and each chunk's digests."""
    if request.param == "bulk":
        monkeypatch.setattr(_store, "PACK_THRESHOLD", 1, raising=False)
    added: list[list[str]] = []
    for i in range(3):
        earlier = shards([d for c in added for d in c])
        docs = chunk(kit, world, f"c{i}", 8, earlier)
        added.append(add_docs(store, [*world.values(), *docs] if i == 0 else docs))
    return store.root, added


def run_count(root) -> int:
    return len(list_manifests(Store(root), kind="BenchmarkRun"))


def test_each_chunk_keeps_the_rows_of_the_directories_the_chunks_wrote(chunked):
    root, added = chunked
    rows = worktree_rows(root)
    for rel in touched_dirs([d for c in added for d in c]):  # every chunk's: in step
        assert rows[rel] == (os.stat(root / rel).st_mtime_ns,
                             git(root, "rev-parse", f"HEAD:{rel}").strip(), "[]"), rel


def test_the_first_queries_after_the_chunks_list_and_state_only_what_they_answer(
        chunked, listings, lstats, reads, runner):
    """``ls`` lists no shard directory and states no manifest file (before: every
    directory listed, both files of every manifest stated); ``show`` of the last chunk's
    run lists none either and reads no file (the adds recorded them)."""
    root, added = chunked
    listed = runner.invoke(main, ["--store", str(root), "ls", "--kind", "BenchmarkRun"])
    assert listed.exit_code == 0, listed.output
    assert len(listed.output.splitlines()) == 24
    assert (listings, lstats, reads) == ([], [], [])
    run = added[2][1]  # the last chunk's first run: [implementation, run, ...]
    name = json.loads(metadata_path(root, run).read_bytes())["name"]
    shown = runner.invoke(main, ["--store", str(root), "show", f"BenchmarkRun/{name}"])
    assert shown.exit_code == 0, shown.output
    assert (listings, reads) == ([], [])  # states the files of the records it answers


@pytest.mark.parametrize("how", FOREIGN)
def test_a_write_between_two_chunks_is_found_by_the_first_query(store, kit, world, how):
    """A directory the first chunk created, changed by hand before the second writes
    into it (a name renamed over, removed, a file added beside), is not in step for the
    second chunk: its row stays stale and the query compares it."""
    first = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                             *new_run(kit, world, "b", 10)])
    shard = metadata_path(store.root, first[4]).parent  # run a's metadata directory
    foreign_write(store.root, first, how)
    second = add_docs(store, chunk(kit, world, "n", 3, {first[4][7:9]}))
    rel = str(shard.relative_to(store.root))
    assert rel in touched_dirs(second)
    assert worktree_rows(store.root).get(rel, (None,))[0] != os.stat(shard).st_mtime_ns
    names = [r.name for r in list_manifests(Store(store.root), kind="BenchmarkRun")]
    ours = [json.loads(metadata_path(store.root, d).read_bytes())["name"] for d in second[1::2]]
    expected = {"renamed-over": ["b", "c"], "removed": ["b"], "added-beside": ["a", "b"]}
    assert names == sorted([*expected[how], *ours])


def test_a_directory_made_by_hand_before_the_first_add_is_compared(store, kit, world):
    """A shard directory that exists before the add creates it (a run written by hand,
    uncommitted) has no row to keep and is not new: the add starts no row for it, and
    the query finds the hand-written run."""
    hand = Manifest.from_document(new_run(kit, world, "hand", 5)[1])
    docs = chunk(kit, world, "c", 8, set())
    for path, data in ((f"store/objects/sha256/{hand.digest.hex[:2]}/"
                        f"{hand.digest.hex[2:]}.json", hand.object_bytes),
                       (f"store/metadata/sha256/{hand.digest.hex[:2]}/"
                        f"{hand.digest.hex[2:]}.json", hand.metadata_bytes)):
        (store.root / path).parent.mkdir(parents=True, exist_ok=True)
        (store.root / path).write_bytes(data)
    add_docs(store, [*world.values(), *docs])
    rows = worktree_rows(store.root)
    assert f"store/metadata/sha256/{hand.digest.hex[:2]}" not in rows
    assert run_count(store.root) == 9  # the 8 added and the hand-written one


def test_a_checkout_of_an_earlier_chunk_after_the_chunks_is_answered(chunked):
    """The rows the chunks kept are of the last chunk's shard trees: after ``git checkout``
    of the commit before it (its files gone from the work tree), the query compares."""
    root, _ = chunked
    git(root, "checkout", "-q", "HEAD~1")
    assert run_count(root) == 16  # the first two chunks' runs
    git(root, "checkout", "-q", "-")
    assert run_count(root) == 24
