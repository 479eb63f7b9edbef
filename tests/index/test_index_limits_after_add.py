"""An add that builds the index keeps the limits its rows were made under (issue 22).

A ``kistore add --commit`` into a store whose index was empty (the bulk add of a new
store) indexed every manifest under the store's ``[limits]`` but did not record them:
the next query took the missing record for "the limits changed" and read the size of
every manifest's file again (100,000 manifests: "note: [limits] changed for the query
index ... reading the size of the files of 100,000 manifests once", 490 s), with nothing
in kistore.toml changed. The add now records the limits, as a rebuild does; a real
change of ``[limits]`` is still read again.
"""

from __future__ import annotations

import pytest

from kistore.index import _database as database
from kistore.index import index as index_module
from kistore.store import Store

from ..conftest import ManifestKit, add_docs
from .test_index_limits import padded, ranked, set_limit  # noqa: F401 - the fixture


@pytest.fixture
def sized(monkeypatch) -> list[int]:
    """Record each read of every manifest's file size (:func:`._build.oversized`): its bound."""
    bounds: list[int] = []
    real = index_module.oversized

    def counting(repo, tree, bound):
        bounds.append(bound)
        return real(repo, tree, bound)

    monkeypatch.setattr(index_module, "oversized", counting)
    return bounds


def held(store) -> dict[str, str | None]:
    conn = database.connection(database.index_path(store.git_dir))
    try:
        return {key: database.get_meta(conn, key) for key in ("tree", "limit", "values")}
    finally:
        conn.close()


def test_a_bulk_add_then_one_add_never_reads_every_size_again(runner, tmp_path, sized):
    Store.init(tmp_path / "store")
    store = Store(tmp_path / "store")
    kit = ManifestKit()
    docs = kit.group_docs([{} for _ in range(3)])
    add_docs(store, docs)  # into a new store: the index is built by the add
    head = str(store.commit("HEAD").tree.id)
    assert held(store) == {"tree": head, "limit": "1048576", "values": "65536 10000 1000"}
    assert ranked(runner, store.root) == (["run-0", "run-1", "run-2"], "")
    assert sized == []  # the limits the add recorded hold: no size read
    protocol, env, workload, impl = docs[:4]  # one manifest more: a run of impl-0
    add_docs(store, [kit.run(protocol, env, impl, workload, latency=5, name="run-3")])
    assert ranked(runner, store.root) == (["run-3", "run-0", "run-1", "run-2"], "")
    assert sized == []


def test_a_real_change_of_the_limits_after_an_add_is_still_read(runner, padded,  # noqa: F811
                                                                sized):
    store, big, _ = padded  # built by its add, as above
    assert ranked(runner, store.root)[0] == ["run-0", "run-1", "run-2"]
    assert sized == []
    set_limit(store, 1000)
    assert ranked(runner, store.root)[0] == ["run-0", "run-2"]
    assert sized == [1000]  # manifest-bytes lowered: each file's size read once
    assert held(store)["limit"] == "1000"
