"""``KIND/NAME`` is one question: the names file's digest, then the index's record of it.

`query/answers.find` read the names file and its owner's two files (``View.named``), then
asked the index for the same name again (review 2026-12-01): now the index is asked for
the record of the digest the names file holds, never for the name; a names file that
disagrees with its owner is still refused (KI212).
"""

from __future__ import annotations

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.index.catalog import Catalog
from kistore.index.index import IndexCatalog, open_catalog
from kistore.query.answers import find
from kistore.store import NamesFileDisagrees

from ..conftest import add_docs


class Counting(Catalog):
    """A catalog that counts the lookups it is asked, answering from ``base``."""

    def __init__(self, base: Catalog) -> None:
        self.base = base
        self.asked: list[tuple[str, tuple[str, ...]]] = []

    def __getattr__(self, attr: str):
        if attr == "base":
            raise AttributeError(attr)
        method = getattr(self.base, attr)

        def counted(*args, **kwargs):
            self.asked.append((attr, args))
            return method(*args, **kwargs)
        return counted

    def record(self, digest):  # noqa: D102
        self.asked.append(("record", (digest,)))
        return self.base.record(digest)

    def named(self, kind, name):  # noqa: D102
        self.asked.append(("named", (kind, name)))
        return self.base.named(kind, name)

    def group(self, key):  # noqa: D102
        return self.base.group(key)

    def records(self, **kw):  # noqa: D102
        return self.base.records(**kw)

    def listing(self, **kw):  # noqa: D102
        return self.base.listing(**kw)

    def referencing(self, digests):  # noqa: D102
        return self.base.referencing(digests)


@pytest.mark.parametrize("at", [None, "HEAD"])
def test_a_name_is_looked_up_once_by_its_digest(store, kit, at):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=30, name="one")
    digests = add_docs(store, [protocol, env, workload, impl, run])
    catalog = Counting(open_catalog(store, at))
    record = find(store, catalog, "BenchmarkRun/one", at=at)
    assert (record.digest, record.kind, record.name) == (digests[4], "BenchmarkRun", "one")
    # the names file holds the digest: one record lookup, no lookup of the name
    assert catalog.asked == [("record", (digests[4],))]
    assert store.view(at).read(layout.name_path("BenchmarkRun", "one")) == \
        layout.name_record(Digest.from_str(digests[4]))


def test_the_index_is_not_asked_the_name_a_names_file_answers(store, kit, monkeypatch):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    digests = add_docs(store, [protocol, env, workload])
    catalog = open_catalog(store, "HEAD")

    def refuse(self, kind, name):
        raise AssertionError(f"the index was asked {kind}/{name} again")

    monkeypatch.setattr(IndexCatalog, "named", refuse)
    assert find(store, catalog, f"Workload/{workload['metadata']['name']}", at="HEAD"
                ).digest == digests[2]


def test_a_names_file_swapped_by_hand_is_still_refused(store, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impls = [kit.implementation(f"p{i}", name=f"impl-{i}") for i in range(2)]
    runs = [kit.run(protocol, env, impls[i], workload, latency=10 + i, name=f"run-{i}")
            for i in range(2)]
    digests = add_docs(store, [protocol, env, workload, *impls, *runs])
    path = layout.name_path("BenchmarkRun", "run-0")
    (store.root / path).write_bytes(layout.name_record(Digest.from_str(digests[6])))
    catalog = Counting(open_catalog(store))
    with pytest.raises(NamesFileDisagrees) as caught:
        find(store, catalog, "BenchmarkRun/run-0")
    assert caught.value.file == path
    assert f"names {digests[6]}, which is BenchmarkRun/run-1, not BenchmarkRun/run-0" in \
        str(caught.value)
    assert catalog.asked == []  # refused before the index is asked anything
    assert find(store, catalog, "BenchmarkRun/run-1").digest == digests[6]
