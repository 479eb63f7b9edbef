"""One look at the 512 shard directories per answer (issue 22, start-up, third pass): the
names' keys and the work-tree comparison of one `show` or `rank` judge the same listing;
outside such an answer every call looks again, so nothing a later write did is hidden."""

from __future__ import annotations

import os

from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.index import freshness

from ..conftest import add_docs
from .test_query_warm import new_run, ranks, settle


def counted_scandirs(monkeypatch) -> list[str]:
    """Record each shard base :func:`freshness.shard_dirs` lists."""
    looked: list[str] = []
    real = os.scandir

    def scandir(path):
        if str(path).endswith(("objects/sha256", "metadata/sha256")):
            looked.append(str(path))
        return real(path)

    monkeypatch.setattr(freshness.os, "scandir", scandir)
    return looked


def test_show_and_rank_look_at_the_shards_once(store, kit, monkeypatch):
    world = {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    settle(store.root)
    runner = CliRunner()
    for args in (["rank", "BenchmarkRun/a"], ["show", "BenchmarkRun/a"]):
        first = runner.invoke(main, ["--store", str(store.root), *args])
        assert first.exit_code == 0, first.output
        looked = counted_scandirs(monkeypatch)
        again = runner.invoke(main, ["--store", str(store.root), *args])
        assert again.exit_code == 0 and again.output == first.output
        assert sorted(looked) == sorted(os.path.join(str(store.root), base) for base in
                                        (layout.OBJECTS_DIR, layout.METADATA_DIR)), args
        monkeypatch.undo()


def test_outside_one_scan_each_call_looks_again(store, kit, monkeypatch):
    """A shard directory made after the first look: seen by the next call, unless both are
    in one block (one answer), and by the first call after the block."""
    world = {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    top = os.fspath(store.root)
    shards = {rel for rel, _, _ in freshness.shard_dirs(top)[1]}
    new = next(f"{layout.OBJECTS_DIR}/{a}{b}" for a in "0123456789abcdef"
               for b in "0123456789abcdef" if f"{layout.OBJECTS_DIR}/{a}{b}" not in shards)
    with freshness.one_scan():
        before = freshness.shard_dirs(top)
        os.mkdir(os.path.join(top, new))
        assert freshness.shard_dirs(top) is before  # one answer, one look
        assert new not in {rel for rel, _, _ in before[1]}
    now, entries = freshness.shard_dirs(top)
    assert (new, True) in {(rel, is_dir) for rel, is_dir, _ in entries}
    assert now >= before[0]


def test_a_run_copied_in_between_two_answers_is_ranked(store, kit, monkeypatch):
    """Files copied in by hand after one `rank` (a shard directory's mtime moves): the next
    `rank` sees them (its own look, not the last answer's)."""
    world = {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    settle(store.root)
    with freshness.one_scan():
        assert ranks(store.root) == [("a", 1)]
    add_docs(store, new_run(kit, world, "b", 10), commit=False)
    with freshness.one_scan():
        assert ranks(store.root) == [("b", 1), ("a", 2)]
