"""What a publishing command reads of the clone, it reads once (task tidy95).

``site build`` and ``export`` read what the clone holds of the notes
(:func:`kistore.attest.levels.notes_here`) three times: is it lacking, is it stale, did the
remote's move (one ``site build``, each a directory listing and a few files). ``kistore
notes push`` read ``kistore.toml`` three times and took its ``[limits]`` apart twice: its
version, then the note line limit of the fetch's judge and of the gate's. Each is now read
once and passed down; a counter on the one reader holds it so.

Task cost96: ``site build`` still read ``kistore.toml``'s bytes five times (HEAD's twice for
``[cite]``, the work tree's three times while the index caught up) and ``export`` four, and
both read the trust file twice (is a key trusted, then the evidence): each once now.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kistore.attest import levels, trust
from kistore.core import layout
from kistore.store import CommitView, Store, WorkTreeView, _store

from ..conftest import git
from .test_publish_without_notes import FETCH, clone, kistore  # noqa: F401 (its fixture)


@pytest.fixture
def reads(monkeypatch) -> Counter[str]:
    """Count calls of the one reader of the notes state and of ``kistore.toml``'s bytes."""
    counted: Counter[str] = Counter()
    notes_here, settings_file = levels.notes_here, Store.settings_file

    def counting_notes_here(store, *, ask_git=False):
        counted["notes"] += 1
        return notes_here(store, ask_git=ask_git)

    def counting_settings_file(self, at=None):
        counted["kistore.toml"] += 1
        return settings_file(self, at)

    monkeypatch.setattr(levels, "notes_here", counting_notes_here)
    monkeypatch.setattr(Store, "settings_file", counting_settings_file)
    return counted


@pytest.mark.parametrize("command", [["site", "build", "OUT"],
                                     ["export", "OUT", "--format", "jsonl"]])
def test_publishing_reads_the_notes_state_once(clone, tmp_path, reads, command):  # noqa: F811
    assert kistore(clone, *FETCH.split()[1:]).exit_code == 0
    reads.clear()
    # a key is trusted: lacking, then stale, then asked whether origin's moved (all no)
    published = kistore(clone, *(str(tmp_path / "out") if a == "OUT" else a for a in command))
    assert published.exit_code == 0, published.output
    assert "refs/notes/kistore" not in published.stderr  # fetched, current, unmoved
    assert reads["notes"] == 1  # was 3


def test_a_refusal_for_lacking_notes_reads_them_once(clone, tmp_path, reads):  # noqa: F811
    refused = kistore(clone, "export", str(tmp_path / "out"))
    assert refused.exit_code == 1
    assert f"run `{FETCH}` and export again" in refused.stderr  # the remote named from it
    assert reads["notes"] == 1  # was 2: lacking, then the remote to fetch from


def test_notes_push_reads_kistore_toml_once(clone, reads):  # noqa: F811
    assert kistore(clone, *FETCH.split()[1:]).exit_code == 0
    (Path(clone) / "kistore.toml").write_text("[limits]\nmanifest-bytes = 1048576\n")
    reads.clear()
    pushed = kistore(clone, "notes", "push", "origin")
    assert pushed.exit_code == 0, pushed.output
    # fetched just now: origin holds these notes (fresh12 F10: it said "pushed")
    assert pushed.stdout == ("origin already holds refs/notes/kistore as this repository "
                             "does: nothing pushed\n")
    # the version, the fetch's line limit, the gate's line limit: one read (was 3)
    assert reads["kistore.toml"] == 1
    assert git(clone, "rev-parse", "refs/notes/kistore") == git(
        clone, "rev-parse", "refs/notes/remotes/origin/kistore")


@pytest.fixture
def bytes_read(monkeypatch) -> Counter[tuple[str, str]]:
    """Count the reads of ``kistore.toml``'s and the trust file's bytes, by file and view."""
    counted: Counter[tuple[str, str]] = Counter()
    for view in (WorkTreeView, CommitView):
        def counting(self, path, limit=None, _read=view.read, _scope=view.scope):
            if path in (layout.SETTINGS_FILE, layout.TRUST_FILE):
                counted[path, _scope] += 1
            return _read(self, path, limit)

        monkeypatch.setattr(view, "read", counting)
    return counted


@pytest.mark.parametrize("command", [["site", "build", "OUT"],
                                     ["export", "OUT", "--format", "jsonl"]])
def test_publishing_reads_kistore_toml_and_the_trust_file_once(
        clone, tmp_path, bytes_read, monkeypatch, command):  # noqa: F811
    assert kistore(clone, *FETCH.split()[1:]).exit_code == 0
    # the clone's kistore.toml was checked out just now: as if a few seconds ago (a file
    # changed within 2 s is read every time: tests/store/test_settings_read_once.py)
    monkeypatch.setattr(_store, "is_racy", lambda changed_ns: False)
    trust._AT_COMMIT.clear()  # a process's: this one read HEAD's making the clone
    bytes_read.clear()
    published = kistore(clone, *(str(tmp_path / "out") if a == "OUT" else a for a in command))
    assert published.exit_code == 0, published.output
    assert dict(bytes_read) == {
        # HEAD's [cite] (site build: was 2), and the index's [limits] and [store] version
        # at HEAD too, read once (was the work tree's: 3 building it, then 1; doc02 L5)
        (layout.SETTINGS_FILE, "commit"): 1,
        (layout.TRUST_FILE, "commit"): 1}  # was 2: is a key trusted, then the evidence
