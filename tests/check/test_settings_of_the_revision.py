"""kistore.toml as the gate reads it: once a revision (HEAD's was read up to five times)."""

from __future__ import annotations

from kistore.check import gate
from kistore.store import Store

from ..conftest import git

TOP = "# kistore store settings\n[store]\nversion = 1\n\n"
"""Four lines before ``[limits]`` (line 5), as ``kistore init`` writes them."""

BAD = TOP + "[limits]\nstring-length = 0\n"
"""Settings with one bad key, ``/limits/string-length`` on line 6."""

BAD_MESSAGE = "string-length must be a positive integer, found 0"


def settings_found(findings) -> list[tuple]:
    return [(f.rule.id, f.severity, f.pointer, f.line, f.column, f.message)
            for f in findings if f.file == "kistore.toml"]


def commit_settings(root, text: str, message: str) -> str:
    (root / "kistore.toml").write_text(text)
    git(root, "commit", "-qam", message)
    return git(root, "rev-parse", "HEAD").strip()


def test_the_gate_reads_each_revisions_settings_once(published, monkeypatch):
    base = git(published, "rev-parse", "HEAD").strip()
    commit_settings(published, BAD + "[limit]\nx = 1\n", "bad settings")
    reads = []
    original = Store.settings_file

    def counted(self, at=None):
        reads.append(at)
        return original(self, at)

    monkeypatch.setattr(Store, "settings_file", counted)
    found = gate.check_range(Store(published), f"{base}..HEAD")
    head = git(published, "rev-parse", "HEAD").strip()
    # the checking repository's, HEAD's and BASE's: once each (HEAD's was read 5 times)
    assert sorted(reads, key=str) == sorted([None, head, base], key=str)
    assert [(f.rule.id, f.pointer, f.line) for f in found] == [
        ("KI108", "/limits/string-length", 6), ("KI108", "/limit", 7)]
