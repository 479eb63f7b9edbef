"""What a publishing command reads of the clone, it reads once (task tidy95).

``site build`` and ``export`` read what the clone holds of the notes
(:func:`kistore.attest.levels.notes_here`) three times: is it lacking, is it stale, did the
remote's move (one ``site build``, each a directory listing and a few files). ``kistore
notes push`` read ``kistore.toml`` three times and took its ``[limits]`` apart twice: its
version, then the note line limit of the fetch's judge and of the gate's. Each is now read
once and passed down; a counter on the one reader holds it so.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kistore.attest import levels
from kistore.store import Store

from ..conftest import git
from .test_publish_without_notes import FETCH, clone, kistore  # noqa: F401 (its fixture)


@pytest.fixture
def reads(monkeypatch) -> Counter[str]:
    """Count calls of the one reader of the notes state and of ``kistore.toml``'s bytes."""
    counted: Counter[str] = Counter()
    notes_here, settings_file = levels.notes_here, Store.settings_file

    def counting_notes_here(store):
        counted["notes"] += 1
        return notes_here(store)

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
    assert pushed.stdout.startswith("pushed refs/notes/kistore to origin")
    # the version, the fetch's line limit, the gate's line limit: one read (was 3)
    assert reads["kistore.toml"] == 1
    assert git(clone, "rev-parse", "refs/notes/kistore") == git(
        clone, "rev-parse", "refs/notes/remotes/origin/kistore")
