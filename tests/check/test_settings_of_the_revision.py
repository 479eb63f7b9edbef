"""kistore.toml as ``verify`` and the gate read it: one read a revision, one checker, the
revision's own file.

Review of 2026-12-02: ``verify --at REV`` reported KI108 from the checking repository's work
tree, not from REV's file; ``verify`` read the file twice (``[limits]``, then the tables and
``[cite]``), the gate HEAD's up to five times.
"""

from __future__ import annotations

from kistore.check import audit, gate, verify
from kistore.check._settings import CITE_FIX, TABLE_FIX
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


def test_verify_at_a_revision_reports_that_revisions_bad_settings(published):
    # REV's kistore.toml is bad, the work tree's good: KI108 is REV's (it was none)
    bad = commit_settings(published, BAD, "bad settings")
    commit_settings(published, TOP, "good again")
    found = settings_found(verify(Store(published), bad))
    assert found == [("KI108", "error", "/limits/string-length", 6, 1, BAD_MESSAGE)]
    assert settings_found(verify(Store(published))) == []


def test_verify_at_a_good_revision_does_not_report_the_work_trees_bad_settings_as_its_own(
        published):
    # REV's kistore.toml is good, the work tree's bad: no KI108 of REV (there was one); the
    # work tree's limits still hold REV's files, so a KI109 warning says they are bad
    good = git(published, "rev-parse", "HEAD").strip()
    (published / "kistore.toml").write_text(BAD)  # not committed
    found = verify(Store(published), good)
    assert settings_found(found) == [
        ("KI109", "warning", "/limits/string-length", 6, 1,
         "the work tree's kistore.toml (the checking repository's own settings) does not "
         f"parse: {BAD_MESSAGE}; verify holds the files of {good} to its valid limits, each "
         "bad one at its default")]
    # the work tree itself: its own KI108, no KI109
    assert settings_found(verify(Store(published))) == [
        ("KI108", "error", "/limits/string-length", 6, 1, BAD_MESSAGE)]


def test_verify_at_a_revision_with_the_work_trees_bytes_says_it_once(published):
    head = commit_settings(published, BAD, "bad settings")
    assert settings_found(verify(Store(published), head)) == [
        ("KI108", "error", "/limits/string-length", 6, 1, BAD_MESSAGE)]


def test_one_checker_reads_the_file_once_and_orders_its_findings_by_line(published,
                                                                          monkeypatch):
    text = (TOP + '[cite]\npublisher = ""\n[limit]\nx = 1\n'
            '[limits]\narray-length = "x"\nstring-length = 0\n')
    (published / "kistore.toml").write_text(text)
    store = Store(published)
    reads = []
    original = Store.settings_file

    def counted(self, at=None):
        reads.append(at)
        return original(self, at)

    monkeypatch.setattr(Store, "settings_file", counted)
    found = [(f.pointer, f.line, f.hint) for f in audit.check_settings(store, None)]
    assert reads == [None]
    hint = found[2][2]  # the rule's own, about [limits]
    assert found == [("/cite/publisher", 6, CITE_FIX), ("/limit", 7, TABLE_FIX),
                     ("/limits/array-length", 10, hint), ("/limits/string-length", 11, hint)]
    assert audit.CHECKERS.count(audit.check_settings) == 1


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
