"""The gate and a kistore.toml that does not parse, or that kistore would refuse later.

Review r60 (new user): a server whose own (HEAD's) kistore.toml was invalid refused every
push, the one fixing it too, with an error that read as a complaint about the pushed commit
(F6); in CI, whose work tree is the range's HEAD, an invalid kistore.toml stopped the gate
before it could report KI108 (F1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kistore.check import gate, verify
from kistore.check._rules import SETTINGS_INVALID
from kistore.check._settings import CITE_FIX, KEY_FIX, TABLE_FIX
from kistore.cli import main
from kistore.core.settings import unknown_tables
from kistore.store import Store, settings_place

from ..conftest import PUBLISHED, findings_lines, git
from ..prs import Remote

WARNED = ("kistore.toml:6:1:/limits/string-length: warning KI109 checking-settings-invalid: "
          "this repository's own kistore.toml (HEAD's: on a server, the server's settings, "
          "not the pushed commit's) does not parse: string-length must be a positive "
          "integer, found 0; this check holds the range to the default limits (and to "
          "BASE's and HEAD's committed ones)")
"""What a server whose HEAD sets ``string-length = 0`` says of its own settings."""


def set_line(root: Path, line: str | None) -> None:
    """Put ``line`` first in the work tree's [limits] table (None: take the bad one out)."""
    settings = root / "kistore.toml"
    text = settings.read_text()
    if line is None:
        settings.write_text(text.replace("[limits]\nstring-length = 0\n", "[limits]\n"))
    else:
        settings.write_text(text.replace("\n[limits]\n", f"\n[limits]\n{line}\n", 1))


def hook_lines(output: str) -> list[str]:
    """The findings and summary the server's pre-receive hook printed (git prefixes them
    ``remote: ``), without the fix lines (tests/check/test_fix_lines.py)."""
    return [line.removeprefix("remote: ").rstrip() for line in output.splitlines()
            if line.startswith("remote: ") and not line.startswith("remote: fix KI")]


def test_a_server_whose_own_settings_fail_lands_the_push_that_fixes_them(published, tmp_path):
    set_line(published, "string-length = 0")  # landed before the hook ran (or by an admin)
    git(published, "commit", "-qam", "settings the server's kistore cannot parse")
    remote = Remote(published, tmp_path)
    bad = remote.main()
    # a push keeping them bad is refused, for the pushed commit's settings (KI108: the
    # server's are the same bytes, and KI109 would say it twice) ...
    keeps = remote.pr("an unrelated change", lambda c: (c / "NOTES").write_text("x\n"))
    assert not keeps.accepted
    assert hook_lines(keeps.output) == [
        "kistore.toml:6:1:/limits/string-length: error KI108 settings-invalid: "
        "string-length must be a positive integer, found 0",
        "FAILED: 1 ref update(s): 1 error, 0 warnings, 0 info"]
    assert remote.main() == bad
    # ... and the push that fixes them lands, the server saying whose settings failed
    fixes = remote.pr("fix [limits]", lambda c: set_line(c, None))
    assert fixes.accepted, fixes.output
    assert hook_lines(fixes.output) == [WARNED, "ok: 1 ref update(s): 0 errors, 1 warning, 0 info"]
    assert remote.main() == git(remote.clone, "rev-parse", "HEAD").strip() != bad
    # the server's settings parse again: nothing more is said of them
    later = remote.pr("another change", lambda c: (c / "NOTES").write_text("y\n"))
    assert later.accepted
    assert hook_lines(later.output) == ["ok: 1 ref update(s): 0 errors, 0 warnings, 0 info"]


def test_a_push_of_two_refs_says_once_that_the_servers_settings_fail(published, tmp_path):
    set_line(published, "string-length = 0")
    git(published, "commit", "-qam", "settings the server's kistore cannot parse")
    remote = Remote(published, tmp_path)
    set_line(remote.clone, None)
    git(remote.clone, "commit", "-qam", "fix [limits]")
    git(remote.clone, "branch", "topic")
    pushed = remote.push("HEAD:main", "topic:topic")
    assert pushed.accepted, pushed.output
    assert hook_lines(pushed.output) == [WARNED,
                                         "ok: 2 ref update(s): 0 errors, 1 warning, 0 info"]


KI108_ANNOTATION = (
    "::error file=kistore.toml,line=6,col=1,title=KI108 settings-invalid::/limits/"
    "string-length: KI108 "
    "settings-invalid: string-length must be a positive integer, found 0. Fix: "
    + SETTINGS_INVALID.hint)


def test_ci_checking_the_range_from_its_own_head_reports_ki108_as_a_clean_checkout_does(
        runner, published):
    # F1: the workflow checks HEAD^1..HEAD in a checkout of the pull request: the invalid
    # kistore.toml it brings is the checking repository's own. The gate could not run
    # ("error: ..." on stderr, no annotation); it reports the finding as from BASE's checkout.
    base = git(published, "rev-parse", "HEAD").strip()
    set_line(published, "string-length = 0")
    git(published, "commit", "-qam", "break [limits]")
    broken = git(published, "rev-parse", "HEAD").strip()
    in_ci = runner.invoke(main, ["--store", str(published), "check", "--format", "github",
                                 f"{base}..{broken}"])
    assert (in_ci.exit_code, in_ci.stdout.splitlines(), in_ci.stderr) == (
        1, [KI108_ANNOTATION, f"FAILED: {base}..{broken}: 1 error, 0 warnings, 0 info"], "")
    git(published, "checkout", "-q", base)
    clean = runner.invoke(main, ["--store", str(published), "check", "--format", "github",
                                 f"{base}..{broken}"])
    assert (clean.exit_code, clean.stdout, clean.stderr) == (1, in_ci.stdout, "")
    # --json: the finding, not an error that stopped the check
    git(published, "checkout", "-q", broken)
    as_json = json.loads(runner.invoke(main, ["--store", str(published), "check", "--json",
                                              f"{base}..{broken}"]).stdout)
    assert "errors" not in as_json
    assert [(f["rule"], f["file"], f["pointer"], f["line"], f["column"])
            for f in as_json["findings"]] == [("KI108", "kistore.toml", "/limits/string-length",
                                               6, 1)]


def test_a_work_tree_whose_settings_differ_from_heads_says_it_checked_with_the_defaults(
        runner, published):
    # a local check (pre-push, --unpushed) from a work tree whose uncommitted kistore.toml
    # does not parse: the range is checked, with KI109 saying which limits held it
    base = git(published, "rev-parse", "HEAD").strip()
    (published / "NOTES").write_text("x\n")
    git(published, "add", "NOTES")
    git(published, "commit", "-qm", "a change")
    set_line(published, "string-length = 0")  # not committed
    result = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert (result.exit_code, findings_lines(result.stdout)) == (0, [
        "kistore.toml:6:1:/limits/string-length: warning KI109 checking-settings-invalid: the work "
        "tree's kistore.toml (the checking repository's own settings) does not parse: "
        "string-length must be a positive integer, found 0; this check holds the range to "
        "the default limits (and to BASE's and HEAD's committed ones)",
        f"ok: {base}..HEAD: 0 errors, 1 warning, 0 info"])


TEMPLATE_TOP = "# kistore store settings\n[store]\nversion = 1\n\n"
"""Four lines before ``[limits]`` (line 5), as ``kistore init`` writes them."""


@pytest.mark.parametrize(("settings", "pointer", "place"), [
    # F14's own case: a table header left open (tomllib's "at line 5, column 8")
    (TEMPLATE_TOP + "[limits\n", None, (5, 8)),
    (TEMPLATE_TOP + "[limits]\n# a comment\nstring-length = 0\n", "/limits/string-length",
     (7, 1)),
    (TEMPLATE_TOP + '[limits]\n  "array-length" = "x"\n', "/limits/array-length", (6, 3)),
    # keys of the root table, before any header
    ("# top\nlimits.strng-length = 30\n[store]\n", "/limits/strng-length", (2, 1)),
    ("limits = 3\n[store]\nversion = 1\n", "/limits", (1, 1)),
    # an inline table: the line of the table's key, the nearest the look can tell
    ("\nlimits = { manifest-bytes = 0 }\n[store]\nversion = 1\n", "/limits/manifest-bytes",
     (2, 1)),
])
def test_ki108_carries_the_line_of_the_setting_at_fault(runner, published, settings, pointer,
                                                         place):
    # F14: the finding had no line, so --json had none and the annotation sat on the file
    base = git(published, "rev-parse", "HEAD").strip()
    (published / "kistore.toml").write_text(settings)
    git(published, "commit", "-qam", "break kistore.toml")
    result = runner.invoke(main, ["--store", str(published), "check", "--json", f"{base}..HEAD"])
    found = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f.get("pointer"), f["line"], f["column"]) for f in found] == [
        ("KI108", pointer, *place)]
    github = runner.invoke(main, ["--store", str(published), "check", "--format", "github",
                                  f"{base}..HEAD"])
    assert github.stdout.startswith(
        f"::error file=kistore.toml,line={place[0]},col={place[1]},title=KI108 ")


def test_settings_place_is_none_where_the_key_is_not_found():
    assert settings_place(b"[limits]\n", "/limits/string-length", "x") == (None, None)
    assert settings_place(None, "/limits/string-length", "x") == (None, None)
    assert settings_place(b"[cite]\nstring-length = 0\n", "/limits/string-length", "x") == (
        None, None)
    assert settings_place(b"[limits]\nstring-length = 0\n", "", "x") == (None, None)


def test_settings_place_finds_a_limits_key_under_limits_only():
    # what the gate's finding on a lowered limit carries (_lowered._on_settings)
    text = (b'[store]\nversion = 1\nstring-length = 3\n\n[limits]  # sizes\n'
            b'manifest-bytes = 9\n"string-length" = 4\n[other]\narray-length = 5\n')
    assert settings_place(text, "/limits/string-length", "") == (7, 1)
    assert settings_place(text, "/limits/manifest-bytes", "") == (6, 1)
    assert settings_place(text, "/limits/array-length", "") == (None, None)  # [other]'s
    assert settings_place(b"limits.array-length = 5\n", "/limits/array-length", "") == (1, 1)
    assert settings_place(None, "/limits/array-length", "") == (None, None)


def cite_refusal(runner, root: Path) -> str:
    """What `kistore cite` says of the work tree's [cite] (its message, after the file)."""
    result = runner.invoke(main, ["--store", str(root), "cite", PUBLISHED["run"]])
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    return line.removeprefix("error: kistore.toml: ")


@pytest.mark.parametrize(("cite", "pointer", "line"), [
    # F25's own: an unknown placeholder (export then left every permalink empty)
    ('permalink = "https://x/{commit}/{foo}"', "/cite/permalink", 6),
    ('permalink = "https://x/{commit}"', "/cite/permalink", 6),         # lacks {path}
    ('permalink = "https://x/{commit}/{path!r}"', "/cite/permalink", 6),
    ('permalink = "https://x/{commit/{path}"', "/cite/permalink", 6),  # not a template
    ('publisher = ""', "/cite/publisher", 6),
])
def test_a_cite_table_that_cite_refuses_is_ki108_with_cites_message(
        runner, published, cite, pointer, line):
    base = git(published, "rev-parse", "HEAD").strip()
    settings = published / "kistore.toml"
    settings.write_text(TEMPLATE_TOP + f"[cite]\n{cite}\n")
    git(published, "commit", "-qam", "a [cite] cite refuses")
    said = cite_refusal(runner, published)
    expected = [("KI108", "kistore.toml", pointer, line, said, CITE_FIX)]
    # the gate refuses the range (it passed, and cite failed after the merge) ...
    found = [(f.rule.id, f.file, f.pointer, f.line, f.message, f.hint)
             for f in gate.check_range(Store(published), f"{base}..HEAD")]
    assert found == expected
    # ... and verify says the same of the store
    assert [(f.rule.id, f.file, f.pointer, f.line, f.message, f.hint)
            for f in verify(Store(published)) if f.severity == "error"] == expected


def test_a_cite_table_cite_accepts_is_no_finding(published):
    base = git(published, "rev-parse", "HEAD").strip()
    (published / "kistore.toml").write_text(
        TEMPLATE_TOP + '[cite]\npermalink = "https://h/o/r/blob/{commit}/{path}?d={digest}"\n'
        'publisher = "Index"\n')
    git(published, "commit", "-qam", "a [cite] cite accepts")
    # no KI108; setting the permalink re-points every citation: KI422 says so (r75 F16)
    assert [f.rule.id for f in gate.check_range(Store(published), f"{base}..HEAD")] == [
        "KI422"]
    assert [f for f in verify(Store(published)) if f.rule.id == "KI108"] == []


def test_a_range_re_pointing_the_permalink_to_another_host_is_a_warning(runner, published):
    # review r75 F16: `permalink = "https://evil.example/{commit}/{path}"` passed with 0
    # findings and re-pointed every citation's permalink
    def settings(permalink: str) -> None:
        (published / "kistore.toml").write_text(
            TEMPLATE_TOP + f'[cite]\npermalink = "{permalink}"\n')
        git(published, "commit", "-qam", "cite")

    settings("https://github.com/o/r/blob/{commit}/{path}")
    base = git(published, "rev-parse", "HEAD").strip()
    settings("https://evil.example/{commit}/{path}")
    result = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert result.exit_code == 0  # a warning: a store may move; reviewers must see it
    assert findings_lines(result.output) == [
        "kistore.toml:6:1:/cite/permalink: warning KI422 cite-permalink-changed: the range "
        "changes [cite] permalink from 'https://github.com/o/r/blob/{commit}/{path}' to "
        "'https://evil.example/{commit}/{path}': every citation links to 'evil.example' "
        "after the merge, not 'github.com'",
        "ok: " + f"{base}..HEAD: 0 errors, 1 warning, 0 info"]
    # removing it falls back to the remote's URL: said too; the same template: nothing
    changed = git(published, "rev-parse", "HEAD").strip()
    (published / "kistore.toml").write_text(TEMPLATE_TOP)
    git(published, "commit", "-qam", "no cite")
    [removed] = gate.check_range(Store(published), f"{changed}..HEAD")
    assert (removed.rule.id, removed.line, removed.message) == (
        "KI422", None, "the range changes [cite] permalink from "
        "'https://evil.example/{commit}/{path}' to none (derived from the remote's URL): "
        "every citation links to the remote's host after the merge, not 'evil.example'")
    (published / "kistore.toml").write_text(
        TEMPLATE_TOP + '[cite]\npublisher = "Index"\n')
    git(published, "commit", "-qam", "a publisher, no permalink")
    assert gate.check_range(Store(published), "HEAD~1..HEAD") == []


@pytest.mark.parametrize(("table", "message"), [
    # F18: a misspelled table lowered nothing, and nothing said so
    ("[limit]\nmanifest-bytes = 300\n", "unknown table [limit] (did you mean [limits]?): "
     "kistore reads only [store], [limits], [cite] and would ignore it"),
    ("[Limits]\nmanifest-bytes = 300\n", "unknown table [Limits] (did you mean [limits]?): "
     "kistore reads only [store], [limits], [cite] and would ignore it"),
    ("[cites]\npublisher = \"X\"\n", "unknown table [cites] (did you mean [cite]?): "
     "kistore reads only [store], [limits], [cite] and would ignore it"),
    ("[tool]\nx = 1\n", "unknown table [tool]: kistore reads only [store], [limits], [cite] "
     "and would ignore it"),
])
def test_a_table_kistore_does_not_read_is_ki108(published, table, message):
    base = git(published, "rev-parse", "HEAD").strip()
    settings = published / "kistore.toml"
    settings.write_text(settings.read_text() + "\n" + table)
    lines = settings.read_text().count("\n")
    git(published, "commit", "-qam", "a settings table kistore does not read")
    name = table[1:table.index("]")]
    expected = [("KI108", "kistore.toml", f"/{name}", lines - 1, message, TABLE_FIX)]
    found = [(f.rule.id, f.file, f.pointer, f.line, f.message, f.hint)
             for f in gate.check_range(Store(published), f"{base}..HEAD")]
    assert found == expected
    assert [(f.rule.id, f.file, f.pointer, f.line, f.message, f.hint)
            for f in verify(Store(published)) if f.severity == "error"] == expected


def test_the_tables_kistore_reads_are_every_table_its_readers_read():
    # [store] (its version), [limits] (Limits.from_toml), [cite] (cite_table): each is known
    settings = {"store": {"version": 1}, "limits": {}, "cite": {}}
    assert unknown_tables(settings) == []
    assert [e.pointer for e in unknown_tables({**settings, "a/b": 1, "c~d": {}})] == [
        "/a~1b", "/c~0d"]


def test_each_bad_cite_key_and_each_key_kistore_does_not_read_is_one_ki108(published):
    # review r70 F5: a bad permalink was hidden by an empty publisher ("one finding per bad
    # key"); F3: a key of [store] or [cite] kistore does not read was accepted silently
    base = git(published, "rev-parse", "HEAD").strip()
    (published / "kistore.toml").write_text(
        "[store]\nversion = 1\nlayout = \"x\"\n[cite]\n"
        'permalink = "https://x/{commit:>10}/{path}"\npublisher = ""\npublsher = "X"\n')
    git(published, "commit", "-qam", "bad [cite], unknown keys")
    expected = [
        ("/store/layout", 3, "unknown key 'layout' in [store]: kistore reads only version "
         "there and would ignore it", KEY_FIX),
        ("/cite/permalink", 5, "[cite] permalink: format spec not allowed in {commit:>10}; "
         "write {commit} alone: the placeholder is replaced by its value as it is", CITE_FIX),
        ("/cite/publisher", 6, "[cite] publisher must be a non-empty string, found ''",
         CITE_FIX),
        ("/cite/publsher", 7, "unknown key 'publsher' in [cite] (did you mean publisher?): "
         "kistore reads only permalink, publisher there and would ignore it", KEY_FIX)]
    assert [(f.pointer, f.line, f.message, f.hint)
            for f in gate.check_range(Store(published), f"{base}..HEAD")] == expected
    assert [(f.pointer, f.line, f.message, f.hint) for f in verify(Store(published))
            if f.rule.id == "KI108"] == expected


def test_a_range_that_deletes_kistore_toml_is_ki108(published):
    # review r70 F3: a push that `git rm kistore.toml` landed with no finding: every limit,
    # [cite] and the [store] version silently back to their defaults
    base = git(published, "rev-parse", "HEAD").strip()
    git(published, "rm", "-q", "kistore.toml")
    git(published, "commit", "-qm", "no settings")
    found = [(f.rule.id, f.file, f.pointer, f.line, f.found)
             for f in gate.check_range(Store(published), f"{base}..HEAD")]
    assert found == [("KI108", "kistore.toml", None, None, "no kistore.toml at HEAD")]
    # a range that leaves it alone, or a BASE without one, says nothing of it
    deleted = git(published, "rev-parse", "HEAD").strip()
    git(published, "commit", "-q", "--allow-empty", "-m", "later")
    assert gate.check_range(Store(published), f"{deleted}..HEAD") == []
    # restoring it is fine
    git(published, "checkout", "-q", base, "--", "kistore.toml")
    git(published, "commit", "-qm", "settings back")
    assert gate.check_range(Store(published), f"{base}..HEAD") == []


def test_a_range_that_removes_the_store_table_is_ki108_and_the_next_one_is_held_to_it(
        published):
    # review 2026-12-02 F3: a kistore.toml with no [store] table is read as version 1
    # silently; one pull request removing the table must not pass for the next to rely on
    text = (published / "kistore.toml").read_text()
    assert text.count("[store]\nversion = 1\n") == 1  # as `kistore init` writes it
    base = git(published, "rev-parse", "HEAD").strip()
    (published / "kistore.toml").write_text(text.replace("[store]\nversion = 1\n", ""))
    git(published, "commit", "-qam", "PR 1: no [store] table")
    first = [(f.rule.id, f.file, f.pointer, f.found)
             for f in gate.check_range(Store(published), f"{base}..HEAD")]
    assert first == [("KI108", "kistore.toml", "/store", "no [store] table at HEAD")]
    # the second pull request, on top of the first (merged past the gate), is checked
    # against its own BASE, which has no table: nothing new to say; the two together are
    # still refused
    merged = git(published, "rev-parse", "HEAD").strip()
    (published / "kistore.toml").write_text(text.replace("[store]\nversion = 1\n", "")
                                            + "\n# PR 2\n")
    git(published, "commit", "-qam", "PR 2: relies on the default version")
    assert gate.check_range(Store(published), f"{merged}..HEAD") == []
    assert [f.rule.id for f in gate.check_range(Store(published), f"{base}..HEAD")] == [
        "KI108"]
    # putting the table back is fine
    (published / "kistore.toml").write_text(text)
    git(published, "commit", "-qam", "the table back")
    assert gate.check_range(Store(published), f"{base}..HEAD") == []


def test_ci_checkout_of_a_broken_kistore_toml_gives_heads_ki108_and_checks_the_range(
        runner, published):
    # review r70 F13: in CI's checkout of the pull request (the work tree's kistore.toml is
    # HEAD's), `check --json` aborted with plain errors (no line, no KI108), reported only
    # the [limits] problems and checked nothing else (findings: [])
    base = git(published, "rev-parse", "HEAD").strip()
    (published / "kistore.toml").write_text(
        '[store]\nversion = 1\n\n[limits]\nmanifest-byte = 100\narray-length = "x"\n[limit]\n'
        '[cite]\npermalink = "https://x/{commit}/{pth}"\n')
    junk = published / "store" / "objects" / "sha256" / "ab" / "junk.json"
    junk.parent.mkdir(parents=True, exist_ok=True)
    junk.write_text("{}\n")
    git(published, "add", "-A")
    git(published, "commit", "-qm", "bad settings, a stray file", "--no-verify")
    result = runner.invoke(main, ["--store", str(published), "check", "--json",
                                  f"{base}..HEAD"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert "errors" not in report
    assert [(f["rule"], f["file"], f.get("line"), f.get("pointer"))
            for f in report["findings"]] == [
        ("KI108", "kistore.toml", 5, "/limits/manifest-byte"),
        ("KI108", "kistore.toml", 6, "/limits/array-length"),
        ("KI108", "kistore.toml", 7, "/limit"),
        ("KI108", "kistore.toml", 9, "/cite/permalink"),
        ("KI110", "store/objects/sha256/ab/junk.json", None, None)]  # the rest is checked
