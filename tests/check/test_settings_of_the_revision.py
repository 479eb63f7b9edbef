"""kistore.toml as ``verify`` and the gate read it: one read a revision, one checker, the
revision's own file.

Review of 2026-12-02: ``verify --at REV`` reported KI108 from the checking repository's work
tree, not from REV's file; ``verify`` read the file twice (``[limits]``, then the tables and
``[cite]``), the gate HEAD's up to five times; and ``[store] version = 2`` (a store of a
newer kistore) was taken silently, and written into.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from kistore.check import audit, gate, verify
from kistore.check._settings import CITE_FIX, TABLE_FIX, settings_findings
from kistore.cli import main
from kistore.core.settings import STORE_FIX, STORE_VALUE_FIX
from kistore.store import Settings, Store

from ..conftest import BUNDLE, git

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


def _count_reads(monkeypatch) -> list:
    """Return the list each ``Store.settings_file(at)`` call appends its ``at`` to."""
    reads = []
    original = Store.settings_file

    def counted(self, at=None):
        reads.append(at)
        return original(self, at)

    monkeypatch.setattr(Store, "settings_file", counted)
    return reads

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
    reads = _count_reads(monkeypatch)
    found = [(f.pointer, f.line, f.hint) for f in audit.check_settings(store, None)]
    assert reads == [None]
    hint = found[2][2]  # the rule's own, about [limits]
    assert found == [("/cite/publisher", 6, CITE_FIX), ("/limit", 7, TABLE_FIX),
                     ("/limits/array-length", 10, hint), ("/limits/string-length", 11, hint)]
    assert audit.CHECKERS.count(audit.check_settings) == 1


def test_the_gate_reads_each_revisions_settings_once(published, monkeypatch):
    base = git(published, "rev-parse", "HEAD").strip()
    commit_settings(published, BAD + "[limit]\nx = 1\n", "bad settings")
    reads = _count_reads(monkeypatch)
    found = gate.check_range(Store(published), f"{base}..HEAD")
    head = git(published, "rev-parse", "HEAD").strip()
    # the checking repository's, HEAD's and BASE's: once each (HEAD's was read 5 times)
    assert sorted(reads, key=str) == sorted([None, head, base], key=str)
    assert [(f.rule.id, f.pointer, f.line) for f in found] == [
        ("KI108", "/limits/string-length", 6), ("KI108", "/limit", 7)]


@pytest.mark.parametrize(("store_table", "message", "fix"), [
    ("[store]\nversion = 2\n", "[store] version = 2: a store of version 2 is written by a "
     "newer kistore; this kistore reads and writes store version 1 only and will not write "
     "into it", STORE_FIX),
    # F20 (review 2026-12-02): a typo is never "upgrade kistore": set the integer 1
    ("[store]\nversion = 0\n", "[store] version = 0: a store of version 0 is written by no "
     "kistore release; this kistore reads and writes store version 1 only and will not "
     "write into it", STORE_VALUE_FIX),
    ('[store]\nversion = "1"\n', "[store] version must be the integer 1, found '1'; this "
     "kistore reads and writes store version 1", STORE_VALUE_FIX),
    ("[store]\nversion = 1.0\n", "[store] version must be the integer 1, found 1.0; this "
     "kistore reads and writes store version 1", STORE_VALUE_FIX),
])
def test_a_store_version_this_kistore_does_not_write_is_ki108(runner, published, store_table,
                                                              message, fix):
    base = git(published, "rev-parse", "HEAD").strip()
    commit_settings(published, "# settings\n" + store_table, "another store version")
    expected = [("KI108", "error", "/store/version", 3, 1, message)]
    found = gate.check_range(Store(published), f"{base}..HEAD")
    assert settings_found(found) == expected
    assert found[0].hint == fix
    assert settings_found(verify(Store(published))) == expected
    add = runner.invoke(main, ["--store", str(published), "add", str(BUNDLE)])
    assert add.exit_code == 1 and add.stderr.endswith(f"; {fix}; nothing was written\n")
    assert ("upgrade kistore" in add.stderr) == (fix == STORE_FIX)
    result = runner.invoke(main, ["--store", str(published), "verify"])
    assert result.exit_code == 1
    assert f"kistore.toml:3:1:/store/version: error KI108 settings-invalid: {message}" \
        in result.stdout


def test_add_and_import_refuse_to_write_into_a_store_of_a_newer_version(runner, published,
                                                                       tmp_path):
    commit_settings(published, TOP.replace("version = 1", "version = 2"), "version 2")
    before = git(published, "status", "--porcelain")
    told = refused(published)
    for args, cmd in ((["add", "--commit", str(BUNDLE)], "add"),
                      (["import", "kernelbench", str(tmp_path)], "import"),
                      (["migrate"], "migrate")):
        result = runner.invoke(main, ["--store", str(published), *args])
        assert (result.exit_code, result.stdout) == (1, ""), args
        assert result.stderr == told.format(cmd=cmd)
    assert git(published, "status", "--porcelain") == before
    # reading goes on: a query, and verify (which reports it)
    assert runner.invoke(main, ["--store", str(published), "ls"]).exit_code == 0


def refused(published) -> str:
    """What a write into ``published`` at version 2 prints ({cmd} left to fill in)."""
    return (f"error: {published / 'kistore.toml'}:/store/version: [store] version = 2: a "
            "store of version 2 is written by a newer kistore; this kistore reads and "
            "writes store version 1 only and will not write into it: kistore {cmd} refuses "
            f"to write; {STORE_FIX}; nothing was written\n")


def written(published) -> tuple[str, str]:
    """The work tree's status and the notes ref's listing: what a write would change."""
    return (git(published, "status", "--porcelain"),
            git(published, "notes", "--ref", "kistore", "list"))


def test_attest_and_trust_refuse_to_write_into_a_store_of_a_newer_version(runner, published,
                                                                         tmp_path):
    # they wrote notes, attestation files and store/trust into it, as add no longer did
    key = tmp_path / "k"
    assert runner.invoke(main, ["key", "generate", str(key)]).exit_code == 0
    trusted = runner.invoke(main, ["--store", str(published), "trust", "add", f"{key}.pub",
                                   "--role", "rerun"])
    assert trusted.exit_code == 0, trusted.output
    keyid = trusted.stdout.split()[1]
    git(published, "add", "-A")
    git(published, "commit", "-qm", "trust a key")
    commit_settings(published, TOP.replace("version = 1", "version = 2"), "version 2")
    before = written(published)
    told = refused(published)
    for args, cmd in (
            (["attest", "384a96d0", "--type", "reproduction", "--key", str(key)], "attest"),
            (["attest", "384a96d0", "--type", "note", "--message", "m", "--key", str(key),
              "--file"], "attest"),
            (["trust", "add", f"{key}.pub", "--role", "rerun"], "trust add"),
            (["trust", "revoke", keyid], "trust revoke")):
        result = runner.invoke(main, ["--store", str(published), *args])
        assert (result.exit_code, result.stdout) == (1, ""), args
        assert result.stderr == told.format(cmd=cmd)
    assert written(published) == before
    # reading goes on
    listed = runner.invoke(main, ["--store", str(published), "trust", "list"])
    assert listed.exit_code == 0 and keyid in listed.stdout


def test_notes_sync_fetch_and_push_refuse_a_store_of_a_newer_version(runner, published,
                                                                    tmp_path):
    # they write refs/notes/kistore as attest does (review leftover: they did not refuse)
    key = tmp_path / "k"
    assert runner.invoke(main, ["key", "generate", str(key)]).exit_code == 0
    filed = runner.invoke(main, ["--store", str(published), "attest", "384a96d0", "--type",
                                 "note", "--message", "m", "--key", str(key), "--file"])
    assert filed.exit_code == 0, filed.output  # a file sync would attach as a note
    git(published, "add", "-A")
    git(published, "commit", "-qm", "an attestation file")
    commit_settings(published, TOP.replace("version = 1", "version = 2"), "version 2")
    before = written(published)
    told = refused(published)
    for args in (["sync"], ["fetch", str(published)], ["push", str(published)], ["restore"]):
        result = runner.invoke(main, ["--store", str(published), "notes", *args])
        assert (result.exit_code, result.stdout) == (1, ""), args
        assert result.stderr == told.format(cmd=f"notes {args[0]}")
    assert written(published) == before
    commit_settings(published, TOP, "version 1 again")
    synced = runner.invoke(main, ["--store", str(published), "notes", "sync"])
    assert (synced.exit_code, synced.stdout) == (0, "1 attestation(s) attached, 0 already "
                                                    "present\n")


def test_init_writes_the_one_store_version_constant(tmp_path):
    import tomllib

    from kistore.core.settings import STORE_VERSION
    from kistore.store._store import SETTINGS_TEMPLATE

    Store.init(tmp_path / "s")
    text = (tmp_path / "s" / "kistore.toml").read_text()
    assert text == SETTINGS_TEMPLATE and "\n[store]\nversion = 1\n\n[limits]\n" in text
    assert tomllib.loads(text) == {"store": {"version": STORE_VERSION}, "limits": {},
                                   "cite": {}} and STORE_VERSION == 1
    # the template's placeholders are the permalink's, not the f-string's
    assert '# permalink = "https://github.com/OWNER/REPO/blob/{commit}/{path}"\n' in text


def test_a_store_without_a_version_is_this_versions():
    for text in (b"", b"[limits]\n", b"[store]\n"):
        assert settings_findings(Settings.from_bytes(text, "kistore.toml")) == []
        Settings.from_bytes(text, "kistore.toml").refuse_other_version("kistore add")


def test_the_checking_repositorys_settings_with_two_bad_keys_are_two_ki109_not_an_error(
        published):
    # own_limits caught InputError, not MultipleErrors: two bad keys in the checking
    # repository's own file stopped the gate with an error (the case KI109 was made for)
    base = git(published, "rev-parse", "HEAD").strip()
    (published / "NOTES").write_text("x\n")
    git(published, "add", "NOTES")
    git(published, "commit", "-qm", "an unrelated change")
    (published / "kistore.toml").write_text(BAD + "array-length = 0\n")  # not committed
    found = gate.check_range(Store(published), f"{base}..HEAD")
    whose = "the work tree's kistore.toml (the checking repository's own settings)"
    rest = ("; this check holds the range to the default limits (and to BASE's and HEAD's "
            "committed ones)")
    assert settings_found(found) == [
        ("KI109", "warning", "/limits/string-length", 6, 1,
         f"{whose} does not parse: {BAD_MESSAGE}{rest}"),
        ("KI109", "warning", "/limits/array-length", 7, 1,
         f"{whose} does not parse: array-length must be a positive integer, found 0{rest}")]


def test_queries_of_a_store_of_a_newer_version_warn_each_time(runner, published):
    # F29 (review 2026-12-02): docs/design.md says this kistore "may misread" a version 2
    # store that queries still read; each query now says so, once, the index warm or cold
    commit_settings(published, TOP.replace("version = 1", "version = 2"), "version 2")
    said = (f"warning: {published / 'kistore.toml'}:3:1:/store/version: [store] version = 2: a "
            "store of version 2 is written by a newer kistore; this kistore reads and writes "
            "store version 1 only and will not write into it: queries read it as store "
            f"version 1 and may misread it; {STORE_FIX}\n")
    for _ in range(2):  # the second query finds the index built under the same settings
        result = ls(published)
        assert result.returncode == 0, result.stderr
        assert result.stderr == said
    commit_settings(published, TOP.replace("version = 1", 'version = "1"'), "typo")
    typo = ls(published)
    assert typo.returncode == 0 and typo.stderr == (
        f"warning: {published / 'kistore.toml'}:3:1:/store/version: [store] version must be the "
        "integer 1, found '1'; this kistore reads and writes store version 1: queries read "
        f"it as store version 1 and may misread it; {STORE_VALUE_FIX}\n")
    commit_settings(published, TOP, "version 1 again")
    assert ls(published).stderr == ""


def test_a_query_at_a_revision_warns_of_that_revisions_store_version_not_the_work_trees(
        published):
    # review01 L5: docs/queries.md says "With --at REV nothing is read from the work tree",
    # yet `--at REV` warned of the work tree's [store] version (an uncommitted edit), and
    # not of REV's own
    newer = commit_settings(published, TOP.replace("version = 1", "version = 2"), "v2")
    older = commit_settings(published, TOP, "version 1 again")
    (published / "kistore.toml").write_text(TOP.replace("version = 1", "version = 3"))
    assert ls(published, "--at", older).stderr == ""  # on BASE 440899c7: version 3 said
    assert ls(published, "--at", newer).stderr == (
        "warning: kistore.toml:3:1:/store/version: [store] version = 2: a "
        "store of version 2 is written by a newer kistore; this kistore reads and writes "
        "store version 1 only and will not write into it: queries read it as store "
        f"version 1 and may misread it; {STORE_FIX}\n")
    assert "version = 3" in ls(published).stderr  # the work tree's, read without --at


def ls(root, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``kistore ls ARGS`` in a process of its own (its warnings go to stderr once each)."""
    return subprocess.run([sys.executable, "-m", "kistore", "--store", str(root), "ls", *args],
                          capture_output=True, text=True, check=False)
