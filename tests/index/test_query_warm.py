"""A warm work-tree query reads git without pygit2, and still sees every change.

Each change a store can see -- a commit, a notes change, a work-tree edit, a branch switch
-- is made, then the group is ranked twice: once to bring the caches up to date, and once
with pygit2 forbidden, which must give the same hand-computed ranks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest

from kistore.index import freshness, warm
from kistore.query.answers import rank
from kistore.store import Store

from ..attest.test_query_evidence import MAINTAINER_KEY, attach
from ..conftest import add_docs, git

SINCE = datetime(2026, 1, 1, tzinfo=UTC)

FORBID = "pygit2 was opened by a query whose caches are warm"


@pytest.fixture
def world(kit, monkeypatch):
    """A protocol, environment and workload; directories count as settled at once."""
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    return {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}


def new_run(kit, world, name, latency):
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    return [impl, kit.run(world["protocol"], world["env"], impl, world["workload"],
                          latency=latency, name=name)]


def ranks(path, ref="BenchmarkRun/a"):
    _, ranking = rank(Store(path), ref)
    return [(row.record.name, row.rank) for row in ranking.ranked]


def warm_ranks(path, monkeypatch, ref="BenchmarkRun/a", *, attested=False):
    """Rank once to refresh the caches, then again with pygit2 forbidden; both must agree.

    A group with an attested run still reads its notes and files through pygit2
    (``attested=True``): only the answer is compared then.
    """
    first = ranks(path, ref)
    with monkeypatch.context() as m:
        if not attested:
            m.setattr(Store, "repo", property(lambda self: pytest.fail(FORBID)))
        assert ranks(path, ref) == first
    return first


def settle(root):
    """Date every directory under store/ 10 s back, as if written long ago (not racy)."""
    past = time.time_ns() - 10**10
    for directory, _, _ in os.walk(root / "store"):
        os.utime(directory, ns=(past, past))


@pytest.mark.parametrize("where", ["main", "linked-worktree"])
def test_warm_rank_as_a_fresh_process_imports_no_pygit2(store, kit, world, tmp_path, where):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    root = store.root
    if where == "linked-worktree":  # found through its .git file, refs read via commondir
        root = tmp_path / "linked"
        git(store.root, "worktree", "add", "-q", str(root), "-b", "linked")
    settle(root)
    code = ("import json, sys\n"
            "from kistore.cli import main\n"
            "try:\n"
            "    main(['--store', sys.argv[1], 'rank', 'BenchmarkRun/a', '--json'])\n"
            "except SystemExit as e:\n"
            "    code = e.code\n"
            "print(json.dumps({'exit': code, 'pygit2': 'pygit2' in sys.modules}),"
            " file=sys.stderr)\n")

    def fresh():
        done = subprocess.run([sys.executable, "-c", code, str(root)],
                              capture_output=True, text=True, check=True)
        rows = [(r["name"], r["rank"]) for r in json.loads(done.stdout)]
        return rows, json.loads(done.stderr.strip().splitlines()[-1])

    assert fresh() == ([("b", 1), ("a", 2)], {"exit": 0, "pygit2": True})  # cold: caches
    assert fresh() == ([("b", 1), ("a", 2)], {"exit": 0, "pygit2": False})  # warm


def test_commit_is_seen_by_the_next_warm_rank(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    assert warm_ranks(store.root, monkeypatch) == [("a", 1)]
    add_docs(store, new_run(kit, world, "b", 10))
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    add_docs(store, new_run(kit, world, "c", 20))
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("c", 2), ("a", 3)]


def test_commit_made_by_git_itself_is_seen(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    assert warm_ranks(store.root, monkeypatch) == [("a", 1)]
    add_docs(store, new_run(kit, world, "b", 10), commit=False)
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    git(store.root, "add", "store")
    git(store.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "b")
    git(store.root, "pack-refs", "--all")  # HEAD's branch now lives in packed-refs only
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]


def test_notes_change_is_seen_by_the_next_warm_rank(store, kit, world, monkeypatch):
    from kistore.attest import signing
    from kistore.attest.trust import add_key

    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    # trusted since before the attestation (a key without validFrom would count only
    # from the commit adding it: trust is not retroactive)
    add_key(store.root, signing.public_key_line(MAINTAINER_KEY.public_key()), ["maintainer"],
            valid_from=SINCE)
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    # a maintainer withdraws b (a note, not a commit): a moves up
    attach(store, digests[-1], MAINTAINER_KEY, "withdrawal", digests[1])
    assert warm_ranks(store.root, monkeypatch, attested=True) == [("a", 1)]
    git(store.root, "update-ref", "-d", warm.NOTES_REF)  # the notes go away again
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]


def test_caches_nested_3000_deep_are_misses_not_a_recursion_error(store, kit, world,
                                                                 monkeypatch):
    # warm.py read its own sealed caches with a bare json.loads: a value of 3,000 "["
    # (the seal is a plain BLAKE2b: whoever writes the file can make one) was a traceback
    import sqlite3

    from kistore.attest import signing
    from kistore.attest.trust import add_key
    from kistore.index._database import index_path, seal, set_meta

    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    add_key(store.root, signing.public_key_line(MAINTAINER_KEY.public_key()), ["maintainer"],
            valid_from=SINCE)
    attach(store, digests[-1], MAINTAINER_KEY, "withdrawal", digests[1])
    assert warm_ranks(store.root, monkeypatch, attested=True) == [("a", 1)]
    deep = "[" * 3000 + "]" * 3000
    with pytest.raises(RecursionError):
        json.loads(deep)
    conn = sqlite3.connect(index_path(store.git_dir))
    with conn:
        set_meta(conn, annotated=deep)
        shards = [s for (s,) in conn.execute("SELECT shard FROM shard_listings")]
        conn.executemany("UPDATE shard_listings SET listing = ?, seal = ? WHERE shard = ?",
                         [(deep, seal((s, deep)), s) for s in shards])
    conn.close()
    assert ranks(store.root) == [("a", 1)]  # listed again, as any damaged cache
    with pytest.raises(ValueError, match="not a JSON object of names"):
        warm.unpack_listing(deep)
    with pytest.raises(ValueError, match="not a JSON object of names"):
        warm.unpack_listing("5")


def test_work_tree_edits_are_seen_by_the_next_warm_rank(store, kit, world, monkeypatch):
    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    add_docs(store, new_run(kit, world, "c", 5), commit=False)
    assert warm_ranks(store.root, monkeypatch) == [("c", 1), ("b", 2), ("a", 3)]
    b = digests[-1]
    (store.root / "store/objects/sha256" / b[7:9] / f"{b[9:]}.json").unlink()
    assert warm_ranks(store.root, monkeypatch) == [("c", 1), ("a", 2)]


def test_branch_switch_is_seen_by_the_next_warm_rank(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    git(store.root, "branch", "only-a")
    add_docs(store, new_run(kit, world, "b", 10))
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    git(store.root, "checkout", "-q", "only-a")
    assert warm_ranks(store.root, monkeypatch) == [("a", 1)]
    git(store.root, "checkout", "-q", "--detach", "main")
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]


def test_withdrawal_filed_in_the_work_tree_is_never_skipped(store, kit, world, monkeypatch):
    """A run with an attestation folder (a pull request's file, no note) is read in full."""
    from kistore.attest import attestation, notes, signing
    from kistore.attest.trust import add_key
    from kistore.core import layout
    from kistore.core.digest import Digest

    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    # trusted since before the attestation (a key without validFrom would count only
    # from the commit adding it: trust is not retroactive)
    add_key(store.root, signing.public_key_line(MAINTAINER_KEY.public_key()), ["maintainer"],
            valid_from=SINCE)
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    subject = Digest.from_str(digests[-1])
    statement = attestation.make_statement(
        subject, layout.object_path(subject), "withdrawal",
        {"reason": "harness bug", "createdAt": "2026-07-10T00:00:00Z"})
    notes.attach(store, subject, attestation.sign_statement(statement, MAINTAINER_KEY)
                 .to_bytes(), as_file=True)
    assert list((store.root / layout.ATTESTATIONS_DIR).rglob("*.json"))
    assert not (store.git_dir / warm.NOTES_REF).exists()
    assert warm_ranks(store.root, monkeypatch, attested=True) == [("a", 1)]


def test_notes_on_other_groups_leave_a_warm_rank_without_pygit2(store, kit, world, monkeypatch):
    other = {**world, "workload": kit.workload("softmax")}
    digests = add_docs(store, [*world.values(), other["workload"],
                               *new_run(kit, world, "a", 30), *new_run(kit, other, "x", 1)])
    attach(store, digests[-1], MAINTAINER_KEY, "withdrawal", digests[1])
    assert warm_ranks(store.root, monkeypatch) == [("a", 1)]


def test_notes_ref_is_the_one_kistore_notes_writes():
    from kistore.attest import notes

    assert warm.NOTES_REF == notes.NOTES_REF


def test_a_linked_worktree_is_ranked_warm_from_its_own_refs(store, kit, world, tmp_path,
                                                             monkeypatch):
    # its .git file and commondir are read as files (kistore.git.refs): warm, no pygit2
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    linked = tmp_path / "linked"
    git(store.root, "worktree", "add", "-q", str(linked), "-b", "linked")
    assert (Store(linked).git_dir / "commondir").exists()
    assert warm_ranks(linked, monkeypatch) == [("b", 1), ("a", 2)]
    add_docs(Store(linked), new_run(kit, world, "c", 5))  # commits to its branch
    assert warm_ranks(linked, monkeypatch) == [("c", 1), ("b", 2), ("a", 3)]
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]  # main: not moved
    git(store.root, "pack-refs", "--all")
    git(store.root, "merge", "-q", "--ff-only", "linked")  # main moves; linked reads the same
    assert warm_ranks(store.root, monkeypatch) == [("c", 1), ("b", 2), ("a", 3)]
    assert warm_ranks(linked, monkeypatch) == [("c", 1), ("b", 2), ("a", 3)]


def test_an_amended_commit_is_seen_by_the_next_warm_rank(store, kit, world, monkeypatch):
    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    b = digests[-1]
    git(store.root, "rm", "-q", f"store/objects/sha256/{b[7:9]}/{b[9:]}.json")
    git(store.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--amend",
        "-m", "without b")
    assert warm_ranks(store.root, monkeypatch) == [("a", 1)]


def test_freshly_written_directories_are_compared_without_pygit2(store, kit, world,
                                                                 monkeypatch):
    """A work-tree add re-compares its shard with HEAD's listing, cached by shard tree id."""
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    digests = add_docs(store, new_run(kit, world, "c", 20), commit=False)
    settle(store.root)  # every directory gets a new mtime: none is cached any more
    with monkeypatch.context() as m:
        m.setattr(Store, "repo", property(lambda self: pytest.fail(FORBID)))
        assert ranks(store.root) == [("b", 1), ("c", 2), ("a", 3)]
    assert len(digests) == 2


def test_reindex_keeps_the_work_tree_cache_so_the_next_rank_reads_no_file(store, kit, world,
                                                                         monkeypatch, runner):
    import sqlite3

    from kistore.cli import main
    from kistore.index._database import index_path

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    before = sqlite3.connect(index_path(store.git_dir)).execute(
        "SELECT dir, mtime_ns, tree FROM worktree ORDER BY dir").fetchall()
    assert before
    result = runner.invoke(main, ["--store", str(store.root), "reindex"])
    assert result.exit_code == 0, result.output
    assert "indexed 7 manifests" in result.output
    after = sqlite3.connect(index_path(store.git_dir)).execute(
        "SELECT dir, mtime_ns, tree FROM worktree ORDER BY dir").fetchall()
    assert after == before
    with monkeypatch.context() as m:  # every directory still cached: git is not asked
        m.setattr(Store, "repo", property(lambda self: pytest.fail(FORBID)))
        assert ranks(store.root) == [("b", 1), ("a", 2)]


def rewrite_in_place(path, offset, data):
    """Overwrite bytes of a file where it is (``open(path, "r+b")``): no rename, so its
    directory's mtime stays; then put the file's old mtime back, as ``touch -d`` would."""
    before = path.stat()
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)
        f.truncate()
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_object_rewritten_in_place_is_not_ranked_from_a_warm_cache(store, kit, world,
                                                                   monkeypatch, runner):
    """The attack: ``dd conv=notrunc`` into an object file; the shard directory's mtime
    is unchanged, so a cache keyed by it alone kept ranking the damaged run first."""

    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]  # every cache warm
    b = digests[-1]
    path = store.root / "store/objects/sha256" / b[7:9] / f"{b[9:]}.json"
    data = path.read_bytes()
    rewrite_in_place(path, 10, data[10:].replace(b"BenchmarkRun", b"BenchmarkRux", 1))
    assert ranks(store.root) == [("a", 1)]
    path.write_bytes(data)  # put back: ranked again
    assert ranks(store.root) == [("b", 1), ("a", 2)]


def test_ls_checks_the_work_tree_per_shard_directory_not_per_file(store, kit, world,
                                                                  monkeypatch, runner):
    """`ls` lists from the index's listing rows, checked per shard directory: a file
    rewritten in place in a directory whose mtime did not change is listed as HEAD's
    index has it (stating both files of every manifest cost more than the listing), while
    an answer about the manifest (`rank`, `list_manifests`) reads it and leaves it out. A
    file added or removed changes its directory, and `ls` sees it."""
    from kistore.cli import main
    from kistore.query.answers import list_manifests

    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    b = digests[-1]
    path = store.root / "store/objects/sha256" / b[7:9] / f"{b[9:]}.json"
    data = path.read_bytes()
    rewrite_in_place(path, 10, data[10:].replace(b"BenchmarkRun", b"BenchmarkRux", 1))

    def listed():
        result = runner.invoke(main, ["--store", str(store.root), "ls", "--kind",
                                      "BenchmarkRun"])
        assert result.exit_code == 0, result.output
        return [line.split()[2] for line in result.stdout.splitlines()]

    assert listed() == ["a", "b"]
    assert [r.name for r in list_manifests(Store(store.root), kind="BenchmarkRun")] == ["a"]
    assert ranks(store.root) == [("a", 1)]
    path.unlink()  # the shard directory changes: seen without reading a file
    result = runner.invoke(main, ["--store", str(store.root), "ls", "--kind", "BenchmarkRun"])
    assert [line.split()[2] for line in result.stdout.splitlines()] == ["a"]
    assert f"1 manifest(s) in the work tree do not verify and are left out: {b}" in \
        result.stderr
    path.write_bytes(data)  # put back (a new file: its directory changes again)
    assert listed() == ["a", "b"]
    assert ranks(store.root) == [("b", 1), ("a", 2)]


def test_metadata_rewritten_in_place_is_not_listed_from_a_warm_cache(store, kit, world,
                                                                     monkeypatch):
    """The same attack on a metadata file: the new name is listed, the old one is gone."""
    from kistore.query.answers import list_manifests

    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]

    def names():
        return [r.name for r in list_manifests(Store(store.root), kind="BenchmarkRun")]

    assert names() == ["a", "b"]
    b = digests[-1]
    path = store.root / "store/metadata/sha256" / b[7:9] / f"{b[9:]}.json"
    rewrite_in_place(path, 0, path.read_bytes().replace(b'"name":"b"', b'"name":"z"'))
    assert names() == ["a", "z"]
    assert ranks(store.root, "BenchmarkRun/a") == [("z", 1), ("a", 2)]


NOT_NAMED = ("no BenchmarkRun named '{}' in the work tree; if a metadata file was edited in "
             "place to give it this name, run `kistore reindex` to read every file again")


def test_show_by_a_name_rewritten_in_place_is_not_resolved_from_the_name_catalog(
        store, kit, world, monkeypatch, runner):
    """`show BenchmarkRun/b` kept showing the run whose metadata now says "z"."""
    from kistore.cli import main

    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    settle(store.root)
    show = ["--store", str(store.root), "show"]
    result = runner.invoke(main, [*show, "BenchmarkRun/b"])
    assert result.exit_code == 0 and result.stdout.startswith("b:"), result.output
    b = digests[-1]
    path = store.root / "store/metadata/sha256" / b[7:9] / f"{b[9:]}.json"
    rewrite_in_place(path, 0, path.read_bytes().replace(b'"name":"b"', b'"name":"z"'))
    result = runner.invoke(main, [*show, "BenchmarkRun/b"])
    assert result.exit_code == 1
    assert result.stderr == disagrees("b", b, "z")  # the names file is not trusted silently
    result = runner.invoke(main, ["--store", str(store.root), "reindex"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, [*show, "BenchmarkRun/z"])  # the catalog has read it again
    assert result.exit_code == 0 and result.stdout.startswith("z:"), result.output


def disagrees(name: str, digest: str, found: str) -> str:
    """The error for ``BenchmarkRun/NAME`` whose names file names a manifest now ``found``.

    Renamed in the work tree only: HEAD's metadata file still says ``name``, and the fix
    is its checkout, naming the file (break97 M3: ``FILE`` was said, whatever held).
    """
    from kistore.core import layout
    from kistore.core.digest import Digest

    meta = layout.metadata_path(Digest.from_str(digest))
    return (f"error: {layout.name_path('BenchmarkRun', name)}: KI212 name-path-disagrees: the "
            f"names file names {digest}, which is BenchmarkRun/{found}, not BenchmarkRun/"
            f"{name}; it is not trusted. Run `kistore verify` to see every disagreement; "
            f"HEAD's metadata file still says {name!r}: restore it with `git checkout HEAD -- "
            f"{meta}`, or give the digest (or an 8+ hex prefix) of the manifest you mean\n")


def test_show_and_rank_by_a_new_name_written_in_place_say_how_to_find_it(store, kit, world,
                                                                         monkeypatch, runner):
    """A metadata file renamed in place (same directory mtime, the file's old mtime put
    back, same size) was unreachable by its new name until the next add: the name catalog
    and the index of HEAD both still had the old name. A miss then compared every file's
    stat key (~1 s at 20,000 manifests, on every mistyped name); it now says to run
    `kistore reindex`, after which the new name is found."""
    from kistore.cli import main

    # microseconds: rank marks a ranked run under 100 ns (KI230) at the end of its row
    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30_000),
                               *new_run(kit, world, "b", 10_000)])
    settle(store.root)
    show = ["--store", str(store.root), "show"]
    result = runner.invoke(main, [*show, "BenchmarkRun/b"])  # every cache warm
    assert result.exit_code == 0 and result.stdout.startswith("b:"), result.output
    b = digests[-1]
    path = store.root / "store/metadata/sha256" / b[7:9] / f"{b[9:]}.json"
    rewrite_in_place(path, 0, path.read_bytes().replace(b'"name":"b"', b'"name":"z"'))
    for command in ("show", "rank"):
        result = runner.invoke(main, ["--store", str(store.root), command, "BenchmarkRun/z"])
        assert (result.exit_code, result.stderr) == (1, f"error: {NOT_NAMED.format('z')}\n")
    result = runner.invoke(main, ["--store", str(store.root), "reindex"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, [*show, "BenchmarkRun/z"])
    assert result.exit_code == 0 and result.stdout.startswith("z:"), result.output
    result = runner.invoke(main, ["--store", str(store.root), "rank", "BenchmarkRun/z"])
    assert result.exit_code == 0, result.output
    assert [line.split(" [evidence:")[0].split()[-1]  # the name, before its evidence
            for line in result.stdout.splitlines()[1:]] == ["z", "a"], result.stdout
    result = runner.invoke(main, [*show, "BenchmarkRun/b"])
    assert (result.exit_code, result.stderr) == (1, disagrees("b", b, "z"))


def test_reindex_rebuilds_the_names_too(store, kit, world, runner):
    """`kistore reindex` rebuilt the query index but kept a stale name catalog."""
    from kistore.cli import main

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    settle(store.root)
    names = store.view().names()
    name_index = store.name_index()
    with name_index.db:
        name_index.db.execute("DELETE FROM names WHERE kind = 'BenchmarkRun'")  # unsealable
    assert set(store.view().names()) != set(names)
    result = runner.invoke(main, ["--store", str(store.root), "reindex"])
    assert result.exit_code == 0, result.output
    assert f"names: {len(names)} (work tree)" in result.stdout
    assert Store(store.root).view().names() == names


def test_a_name_not_found_reads_no_shard_that_did_not_change(store, kit, world, request):
    """A mistyped KIND/NAME listed every shard and stat'ed every file again (O(store):
    ~1 s at 20,000 manifests, ~5 s at 100,000): only changed shards are read now."""
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    settle(store.root)
    view = store.view()
    assert view.find_name("BenchmarkRun", "a") is not None  # the catalog is in step
    listed = request.getfixturevalue("shards_listed")  # from here on
    assert view.find_name("BenchmarkRun", "no-such-run") is None
    assert listed == []


def test_shard_listings_are_packed_as_bytes_and_read_back_alike():
    """HEAD's shard listings were JSON text: 230 B a manifest of the index."""
    from kistore.index.warm import pack_listing, unpack_listing

    listing = {f"{'ab' * 31}.json": "12" * 20, f"{'0f' * 31}.json": "fe" * 20}
    packed = pack_listing(listing)
    assert packed == bytes.fromhex("ab" * 31 + "12" * 20 + "0f" * 31 + "fe" * 20)
    assert unpack_listing(packed) == listing and list(unpack_listing(packed)) == list(listing)
    for odd in ({"README": "12" * 20}, {f"{'ab' * 31}.json": "12" * 32}, {}):  # stray, SHA-256
        stored = pack_listing(odd)
        assert unpack_listing(stored) == odd
    assert pack_listing({}) == b"" and unpack_listing(b"") == {}


def test_a_shard_listing_is_read_once_per_query(store, kit, world, monkeypatch):
    """The first query after a bulk add hashes both files of every manifest against
    HEAD's listing of its shard: it read, sealed and unpacked that listing again for each
    file (20,000 manifests: 40,000 reads of 512 listings, most of the query's time)."""
    from kistore.core import layout
    from kistore.core.digest import Digest
    from kistore.index import _database as database

    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    tree = Store(store.root).commit("HEAD").tree
    directory, _, leaf = layout.object_path(Digest.from_str(digests[-1])).rpartition("/")
    conn = database.connection(database.index_path(store.git_dir))

    def head():
        return warm.HeadTree(Store(store.root), conn, str(tree.id), lambda: tree)

    want = {e.name: str(e.id) for e in tree[directory]}
    assert leaf in want and head().listing(head().shard(directory)) == want  # now cached
    unpacked = []
    real = warm.unpack_listing
    monkeypatch.setattr(warm, "unpack_listing", lambda v: unpacked.append(v) or real(v))
    one = head()
    shard = one.shard(directory)
    assert [one.listing(shard) for _ in range(3)] == [want] * 3
    assert len(unpacked) == 1  # the cached row, read once by this HeadTree


def test_a_listing_is_what_records_give(store, kit, world, monkeypatch):
    """`Catalog.listing` (what `ls` reads) equals the records' own fields, for the index of
    HEAD, the work tree overlaid with an uncommitted run, and a scan, with every filter."""
    from kistore.index.catalog import MemoryCatalog
    from kistore.index.index import open_catalog
    from kistore.index.records import Listed

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    add_docs(store, new_run(kit, world, "c", 20), commit=False)  # work tree only
    workload = str(Store(store.root).resolve("Workload/" + world["workload"]["metadata"]["name"]))
    hardware = world["env"]["spec"]["hardware"]["product"]
    for at in (None, "HEAD"):
        catalogs = [open_catalog(Store(store.root), at),
                    MemoryCatalog.from_view(Store(store.root).view(at))]
        for catalog in catalogs:
            for filters in ({}, {"kind": "BenchmarkRun"}, {"workload": workload},
                            {"hardware": hardware}, {"kind": "Workload"},
                            {"kind": "BenchmarkRun", "hardware": "none such"}):
                want = [Listed.of(r) for r in catalog.records(**filters)]
                assert catalog.listing(**filters) == want, (at, type(catalog), filters)
                assert [e[:3] for e in catalog.listing(**filters, details=False)] == \
                    [e[:3] for e in want]
        names = [e.name for e in catalogs[0].listing(kind="BenchmarkRun")]
        assert names == (["a", "b", "c"] if at is None else ["a", "b"])


def test_a_listing_row_edited_with_sqlite3_is_not_listed(store, kit, world, runner):
    """`ls` checks each listing row against its listing seal: an edited name, hardware or
    workload is never shown; the index is rebuilt and the store's names listed."""
    import sqlite3

    from kistore.cli import main
    from kistore.index import _database as database

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])

    def listed(*args):
        result = runner.invoke(main, ["--store", str(store.root), "ls", *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    before = listed("--kind", "BenchmarkRun", "--json")
    for statement in ("UPDATE records SET name = 'z' WHERE name = 'b'",
                      "UPDATE records SET hardware = 'a lie' WHERE hardware IS NOT NULL",
                      "UPDATE records SET workload = NULL"):
        for at in ((), ("--at", "HEAD")):
            database.disconnect()
            conn = sqlite3.connect(database.index_path(store.git_dir))
            with conn:
                conn.execute(statement)
            conn.close()
            assert listed("--kind", "BenchmarkRun", "--json", *at) == before, statement
    # each row is checked, not only the first one the index's probe decodes
    from kistore.index import _rows

    database.disconnect()
    conn = database.connection(database.index_path(store.git_dir))
    codec = _rows.Codec.of(conn)
    found = conn.execute(f"{_rows.LIST} WHERE r.kind = ? ORDER BY r.kind, r.name, r.digest",
                         (_rows.RUN,)).fetchall()
    assert [e.name for e in codec.list_all(found)] == ["a", "b"]
    for column, value in ((0, "sha256:" + "0" * 64), (2, "z"), (3, None), (4, "a lie"),
                          (5, None)):
        edited = [*found[:-1], (*found[-1][:column], value, *found[-1][column + 1:])]
        with pytest.raises(database.Damaged):
            codec.list_all(edited)
