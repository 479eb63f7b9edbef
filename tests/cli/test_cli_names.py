"""Names two manifests share (a metadata file edited in place, files placed by hand):
``KIND/NAME`` naming both is refused with the candidates; answers that show one warn."""

from __future__ import annotations

import os
import time

import pytest

from kistore.cli import main
from kistore.core import layout
from kistore.store import Store

from ..conftest import add_docs, git


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


def add_fast_and_slow(store, kit) -> None:
    """Commit runs ``fast`` (10 ns) and ``slow`` (30 ns) of one comparison group."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency in (("fast", 10), ("slow", 30)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name)]
    add_docs(store, docs)


@pytest.fixture
def twins(store, kit):
    """Runs ``fast`` and ``slow`` in one group, committed; then slow's metadata file is
    edited by hand to say ``fast`` (saved as editors do: a new file renamed over it).
    Returns (root, fast, slow)."""
    add_fast_and_slow(store, kit)
    fast, slow = (Store(store.root).resolve(f"BenchmarkRun/{n}") for n in ("fast", "slow"))
    meta = store.root / layout.metadata_path(slow)
    meta.with_suffix(".tmp").write_bytes(b'{"name":"fast"}')
    os.replace(meta.with_suffix(".tmp"), meta)
    return store.root, fast, slow


def candidates(fast, slow) -> str:
    first, second = sorted([fast, slow])
    return (f"{str(first)[:19]} ({layout.metadata_path(first)}) and {str(second)[:19]} "
            f"({layout.metadata_path(second)})")


FIX = ("a name must be unique per kind (`kistore verify`: KI205): restore a metadata file "
       "edited by hand with `git checkout HEAD -- FILE`; a name never moves (KI208), so the "
       "pull request that added the later one gives its own manifest another name before it "
       "lands")


def test_show_refuses_a_name_two_runs_share_and_lists_both(runner, twins):
    """`show BenchmarkRun/fast` showed one of the two silently (the larger digest)."""
    root, fast, slow = twins
    result = run(runner, root, "show", "BenchmarkRun/fast")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"error: BenchmarkRun/fast is ambiguous: 2 BenchmarkRun manifests are named 'fast': "
        f"{candidates(fast, slow)}; give the digest (or an 8+ hex prefix) of the one you "
        f"mean; {FIX}\n")


@pytest.mark.parametrize("args", [("cat", "BenchmarkRun/fast"), ("rank", "BenchmarkRun/fast"),
                                  ("compare", "BenchmarkRun/fast"),
                                  ("compare", "BenchmarkRun/slow", "BenchmarkRun/fast"),
                                  ("cite", "BenchmarkRun/fast"),
                                  ("attestations", "BenchmarkRun/fast")])
def test_every_command_refuses_an_ambiguous_name(runner, twins, args):
    root, fast, slow = twins
    result = run(runner, root, *args)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: BenchmarkRun/fast is ambiguous: 2 BenchmarkRun "
                                    f"manifests are named 'fast': {candidates(fast, slow)}")


def warning(fast, slow) -> str:
    return (f"warning: 2 BenchmarkRun manifests are named 'fast': {candidates(fast, slow)}; "
            f"`BenchmarkRun/fast` names none of them; {FIX}")


def renamed(slow) -> str:
    """What an answer showing ``slow`` says first: HEAD names it otherwise (fresh03 H4)."""
    path = layout.metadata_path(slow)
    return (f"warning: {path}: the work tree names it BenchmarkRun/fast, HEAD "
            "BenchmarkRun/slow (its metadata edited by hand): answered as BenchmarkRun/fast, "
            "which `kistore verify` refuses (a name never moves: KI211, KI212); restore it "
            f"with `git checkout HEAD -- {path}`")


def test_show_rank_compare_ls_cite_warn_about_a_shared_name(runner, twins):
    root, fast, slow = twins
    with open(root / "kistore.toml", "a") as f:
        f.write('permalink = "https://example.org/ki/{commit}/{path}"\n')
    for args in (("show", str(slow)), ("show", str(fast)[:15]), ("rank", str(slow)),
                 ("compare", str(slow)), ("ls",), ("ls", "--kind", "BenchmarkRun"),
                 ("cite", str(fast))):
        result = run(runner, root, *args)
        assert result.exit_code == 0, (args, result.output)
        lines = result.stderr.splitlines()
        if args[0] == "cite":  # and: a run of 10 ns (KI230), the commit not pushed
            assert lines.pop().startswith("warning: BenchmarkRun/fast: (!) latencyNs mean 10 "
                                          "< 100 ns: shorter than any GPU kernel runs"), lines
            assert lines.pop().startswith("warning: commit "), lines
        # an answer showing slow (renamed over in the work tree) says that first
        shows_slow = args[0] != "cite" and args[1:2] != (str(fast)[:15],)
        assert lines == [*([renamed(slow)] if shows_slow else []), warning(fast, slow)], args
    # only names the answer shows: an environment listed alone has no twin
    result = run(runner, root, "ls", "--kind", "ExecutionEnvironment")
    assert (result.exit_code, result.stderr) == (0, "")


def test_restored_as_the_message_says_the_name_resolves_and_nothing_is_warned(runner, twins):
    root, fast, slow = twins
    git(root, "checkout", "--", layout.metadata_path(slow))
    result = run(runner, root, "show", "BenchmarkRun/fast", "--json")
    assert (result.exit_code, result.stderr) == (0, "")
    assert '"digest": "' + str(fast) in result.stdout
    result = run(runner, root, "rank", str(slow))
    assert (result.exit_code, result.stderr) == (0, "")


def settle(root):
    """Date every directory under store/ 10 s back (not racy: the catalog trusts them)."""
    past = time.time_ns() - 10**10
    for directory, _, _ in os.walk(root / "store"):
        os.utime(directory, ns=(past, past))


def test_a_rank_warns_from_what_it_shows_when_the_name_catalog_missed_the_edit(
        runner, store, kit):
    """An in-place edit in a shard directory that did not change is not in the name
    catalog until `kistore reindex` (no whole-store stat a query); a rank that shows both
    runs still names both, from its own rows."""
    add_fast_and_slow(store, kit)
    settle(store.root)
    fast, slow = (Store(store.root).resolve(f"BenchmarkRun/{n}") for n in ("fast", "slow"))
    Store(store.root).view().names()  # the name catalog synced (resolve reads names files)
    meta = store.root / layout.metadata_path(slow)
    directory = os.stat(meta.parent)
    meta.write_bytes(b'{"name":"fast"}')
    os.utime(meta.parent, ns=(directory.st_atime_ns, directory.st_mtime_ns))
    assert Store(store.root).view().shared_names([("BenchmarkRun", "fast")]) == {}
    result = run(runner, store.root, "rank", str(fast))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [renamed(slow), warning(fast, slow)]
    run(runner, store.root, "reindex")  # as the README says: now the catalog knows
    assert Store(store.root).view().shared_names([("BenchmarkRun", "fast")]) == {
        ("BenchmarkRun", "fast"): sorted([fast, slow])}


def test_the_ambiguity_check_reads_no_shard_that_did_not_change(runner, twins, request):
    """A KIND/NAME lookup costs O(changed shards); the check must not bring back a
    whole-store scan (a miss used to cost ~1 s at 20,000 manifests)."""
    root, _, _ = twins
    settle(root)
    assert run(runner, root, "ls").exit_code == 0  # the catalog is in step
    listed = request.getfixturevalue("shards_listed")  # from here on
    for ref in ("BenchmarkRun/no-such-run", "BenchmarkRun/slow", "BenchmarkRun/fast"):
        assert run(runner, root, "show", ref).exit_code == 1
    assert run(runner, root, "show", "Workload/workload-3").exit_code == 0
    assert listed == []


def test_shared_names_of_every_name_and_of_many_keys(twins):
    root, fast, slow = twins
    view = Store(root).view()
    both = {("BenchmarkRun", "fast"): sorted([fast, slow])}
    assert view.shared_names() == both
    many = [("BenchmarkRun", f"run-{n}") for n in range(300)] + [("BenchmarkRun", "fast")]
    assert view.shared_names(many) == both  # looked up 500 at a time
    huge = [("BenchmarkRun", f"run-{n}") for n in range(2_100)]
    assert view.shared_names([*huge, ("BenchmarkRun", "fast")]) == both  # one index pass
    assert view.shared_names(huge) == {}
    assert view.shared_names([("BenchmarkRun", "slow")]) == {}
    view.catalog = None  # no catalog (a read-only clone): a scan finds the same
    assert view.shared_names() == both


@pytest.mark.parametrize("args", [("show", "BenchmarkRun/"), ("cat", "BenchmarkRun/"),
                                  ("rank", "BenchmarkRun/"), ("compare", "BenchmarkRun/"),
                                  ("cite", "BenchmarkRun/"), ("attestations", "BenchmarkRun/"),
                                  ("compare", "BenchmarkRun/fast", "BenchmarkRun/")])
def test_a_kind_with_no_name_is_an_incomplete_reference(runner, twins, args):
    """`show BenchmarkRun/` said "no BenchmarkRun named ''"."""
    result = run(runner, twins[0], *args)
    assert result.exit_code == 1
    assert result.stderr == (
        "error: 'BenchmarkRun/' is incomplete: no name after 'BenchmarkRun/'; give "
        "BenchmarkRun/NAME (`kistore ls --kind BenchmarkRun` lists the names), a digest "
        "(sha256:<64 hex>), or a prefix of at least 8 hex digits\n")


def test_ls_of_a_workload_with_no_name_is_an_incomplete_reference(runner, twins):
    result = run(runner, twins[0], "ls", "--workload", "Workload/")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: 'Workload/' is incomplete: no name after "
                                    "'Workload/'; give Workload/NAME")


@pytest.mark.parametrize("command", ["show", "cat", "cite", "attestations"])
def test_a_name_two_committed_runs_share_is_answered_by_its_names_file(runner, twins, command):
    """Committed past the gate (no hook): `show --at HEAD` gave the larger digest. A commit
    keeps names as paths: `fast` is the manifest its names file names (that manifest's
    metadata agrees), found without reading the commit's other files; `slow`'s names file
    names a manifest whose metadata now says `fast`, and is not trusted (KI212)."""
    from ..conftest import commit_all

    root, fast, slow = twins
    commit_all(root, "rename slow by hand")
    result = run(runner, root, command, "BenchmarkRun/fast", "--at", "HEAD")
    if command == "cite":  # resolved; this store has no remote to build a permalink from
        assert "cannot build a permalink" in result.stderr, result.output
    else:
        assert result.exit_code == 0, result.output
    if command == "cat":
        assert result.stdout_bytes == (root / layout.object_path(fast)).read_bytes()
    result = run(runner, root, command, "BenchmarkRun/slow", "--at", "HEAD")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"error: {layout.name_path('BenchmarkRun', 'slow')}: KI212 name-path-disagrees: the "
        f"names file names {slow}, which is BenchmarkRun/fast, not BenchmarkRun/slow; it is "
        "not trusted.")
