"""``kistore.toml``'s bytes are read once a store object, never stale (task cost96, item 3).

:meth:`kistore.store.Store.settings_file` keeps a commit's bytes by its id, and the work
tree's by the file's change key while the file was not changed within the last 2 s (a
change in the same clock tick could keep mtime, ctime, size and inode: read again).
"""

from __future__ import annotations

import time
from collections import Counter

import pytest

from kistore.core import layout
from kistore.index import freshness
from kistore.store import CommitView, Store, WorkTreeView

from ..conftest import git

SETTINGS = "[limits]\nmanifest-bytes = 1000\n"
SAME_SIZE = "[limits]\nmanifest-bytes = 2000\n"


@pytest.fixture
def reads(monkeypatch) -> Counter[str]:
    counted: Counter[str] = Counter()
    for view in (WorkTreeView, CommitView):
        def counting(self, path, limit=None, _read=view.read, _scope=view.scope):
            if path == layout.SETTINGS_FILE:
                counted[_scope] += 1
            return _read(self, path, limit)

        monkeypatch.setattr(view, "read", counting)
    return counted


def _committed(store_path, text: str) -> None:
    (store_path / layout.SETTINGS_FILE).write_text(text)
    git(store_path, "commit", "-qam", "settings")


def test_a_file_changed_just_now_is_read_each_time(store_path, reads):
    (store_path / layout.SETTINGS_FILE).write_text(SETTINGS)
    store = Store(store_path)
    assert store.settings_file()[0] == store.settings_file()[0] == SETTINGS.encode()
    assert reads["work"] == 2  # within RACY_NS: a change now could keep its change key


def test_a_settled_file_is_read_once_and_a_change_is_seen(store_path, reads):
    assert freshness.RACY_NS == 2_000_000_000
    (store_path / layout.SETTINGS_FILE).write_text(SETTINGS)
    time.sleep(2.1)  # past RACY_NS
    store = Store(store_path)
    assert store.settings_file()[0] == store.settings_file()[0] == SETTINGS.encode()
    assert reads["work"] == 1
    (store_path / layout.SETTINGS_FILE).write_text(SAME_SIZE)  # same size, a new ctime
    assert store.settings_file()[0] == SAME_SIZE.encode()
    assert store.limits().manifest_bytes == 2000
    assert reads["work"] == 3  # changed just now: read again each time until it settles


def test_a_commits_file_is_read_once_by_its_id(store_path, reads):
    _committed(store_path, SETTINGS)
    store = Store(store_path)
    assert store.settings_file("HEAD")[0] == store.settings_file("HEAD")[0] == SETTINGS.encode()
    assert store.settings("HEAD").limits_per_key()[0].manifest_bytes == 1000
    assert reads["commit"] == 1
    _committed(store_path, SAME_SIZE)  # HEAD moves: another commit id, read
    assert store.limits("HEAD").manifest_bytes == 2000
    assert reads["commit"] == 2
