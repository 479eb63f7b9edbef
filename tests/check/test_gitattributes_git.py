"""KI113 against git's own reading of ``.gitattributes`` (``git check-attr``).

The guard line counts when git honours it where it matters: in the work tree's file and in
the committed one a new clone checks out with (``git check-attr --cached``). A C-quoted
pattern (``"store/**" -text ...``) is honoured by both and passes; a UTF-8 byte order mark
is skipped by the first reading only (git 2.39 attr.c ``read_attr_from_buf`` keeps it), so
a line 1 starting with one is still KI113, now saying why.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.core.gitattributes import check_gitattributes, check_info_attributes

from ..conftest import git

GUARD = b" -text -eol -filter -ident -working-tree-encoding"
PATH = "store/objects/sha256/ab/" + "c" * 62 + ".json"
ATTRS = ("text", "eol", "filter", "ident", "working-tree-encoding", "crlf")


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("attrs") / "repo"
    root.mkdir()
    git(root, "init", "-q")
    return root


def _git_reads(root: Path, data: bytes, *, ignorecase: bool | None = None,
               ) -> tuple[dict[str, str], dict[str, str]]:
    """``{attribute: value}`` of PATH as git reads ``data``: the work tree's file, the index's
    (with ``core.ignorecase`` as given, true being git's default in a clone on macOS and
    Windows; None: the repository's own setting)."""
    (root / ".gitattributes").write_bytes(data)
    git(root, "add", ".gitattributes")
    found = []
    config = [] if ignorecase is None else ["-c", f"core.ignorecase={str(ignorecase).lower()}"]
    for cached in ([], ["--cached"]):
        out = subprocess.run(["git", *config, "check-attr", "-z", *cached, *ATTRS, "--", PATH],
                             cwd=root, capture_output=True, text=True, check=True).stdout
        items = out.split("\0")  # PATH NUL attribute NUL value NUL, per attribute
        found.append({items[i + 1]: items[i + 2] for i in range(0, len(items) - 2, 3)})
    return found[0], found[1]


def _protected(values: dict[str, str]) -> bool:
    """What the guard line asks of git: no conversion of PATH at all."""
    return all(values[a] == "unset" for a in ("text", "eol", "filter")) and all(
        values[a] in ("unset", "unspecified") for a in ("ident", "working-tree-encoding",
                                                        "crlf"))


CASES = [
    (b"store/**" + GUARD + b"\n", True),
    (b"/store/**" + GUARD + b"\n", True),  # anchored: the same files (was KI113)
    (b'"/store/**"' + GUARD + b"\n", True),
    (b"\xef\xbb\xbf/store/**" + GUARD + b"\n", False),
    (b"//store/**" + GUARD + b"\n", False),  # kept out: not one of the guard's spellings
    (b'"store/**"' + GUARD + b"\n", True),  # quoted: was "found no such line"
    (b'"stor\\145/**"' + GUARD + b"\n", True),  # an octal escape
    (b'"store/**"-text -eol -filter\n', True),  # settings right after the closing quote
    (b"* text=auto\r\nstore/**" + GUARD + b"\r\n", True),  # CRLF
    (b"\xef\xbb\xbfstore/**" + GUARD + b"\n", False),  # the index's reading keeps the BOM
    (b'"store\\q/**"' + GUARD + b"\n", False),  # not a quoted string git accepts
    (b"store/** -text\x0c-eol -filter\n", False),  # a form feed separates no words for git
    (b"store/** -text -eol -filter" + b" " * 2030 + b"\n", False),  # 2,057 bytes: ignored
    (b"store/**" + GUARD + b'\n"store/objects/**" text\n', False),  # quoted, re-enabled
]


@pytest.mark.parametrize(("data", "ok"), CASES)
def test_ki113_agrees_with_git_check_attr(repo, data, ok):
    work_tree, index = _git_reads(repo, data)
    assert (_protected(work_tree) and _protected(index)) == ok
    assert (check_gitattributes(data) == []) == ok


def test_a_byte_order_mark_is_named_in_the_finding(repo):
    data = b"\xef\xbb\xbfstore/**" + GUARD + b"\n"
    work_tree, index = _git_reads(repo, data)
    assert work_tree["text"] == "unset" and index["text"] == "unspecified"
    [finding] = check_gitattributes(data)
    assert finding.message == (
        "nothing stops end-of-line or filter conversion of store/ (line 1 starts with a "
        "UTF-8 byte order mark, which git skips in the work tree's file but not in the "
        "committed one that a new clone checks out with (`git check-attr --cached`), so "
        "there the line matches nothing; save .gitattributes without it)")
    assert finding.found == "no such line git reads"


def test_a_quoted_line_that_re_enables_text_is_named(repo):
    data = b"store/**" + GUARD + b'\n"store/objects/**" text\n'
    [finding] = check_gitattributes(data)
    assert (finding.line, finding.found) == (2, '"store/objects/**" text')
    assert finding.message == ("line 2 sets text for store/objects/** after the store/** line, "
                               "so git would convert stored bytes")


TOKENS = ["store/**", "/store/**", "/", '"store/**"', '"stor\\145/**"', "store/objects/**",
          "*.json", "*", "STORE/**", "Store/objects/**", "DOCS/**",
          "-text", "-eol", "-filter", "text", "eol=crlf", "!text", "-ident", "filter=x",
          " ", " ", "\t", "\r", "\x0c", "\ufeff", "#", '"', "\\", "\n", "\n"]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.booleans(), st.lists(st.sampled_from(TOKENS), max_size=14))
@example(guarded=True, tokens=["STORE/**", " ", "text"])  # r81 F7: passed on int80
def test_a_file_ki113_passes_protects_the_store_in_both_of_git_s_readings(repo, guarded,
                                                                        tokens):
    """No false pass: what KI113 accepts, git honours in both readings, under either case
    rule (``core.ignorecase``)."""
    data = (b"store/**" + GUARD + b"\n" if guarded else b"") + "".join(tokens).encode()
    if check_gitattributes(data) == []:
        for ignorecase in (False, True):
            work_tree, index = _git_reads(repo, data, ignorecase=ignorecase)
            assert _protected(work_tree) and _protected(index), (data, ignorecase)


CASE_CASES = [
    (b"STORE/** text eol=crlf\n", False),  # r81 F7: converted every file on macOS, Windows
    (b"Store/objects/** working-tree-encoding=UTF-16\n", False),
    (b'"STORE/**" text\n', False),
    (b"/STORE/objects/** eol=crlf\n", False),
    (b"DOCS/** text eol=crlf\n", True),  # matches nothing in store/ under either rule
    (b"Stores/** text\n", True),
    (b"STORE/** -text -eol\n", True),  # unsets only
]


@pytest.mark.parametrize(("line", "ok"), CASE_CASES)
def test_ki113_judges_a_later_line_under_either_case_rule(repo, line, ok):
    """Reviewer r81 F7: git matches ``STORE/**`` to ``store/`` when ``core.ignorecase`` is
    true (what ``git clone`` sets on a case-insensitive file system), so the line after the
    guard converts every store file there while Linux CI saw nothing: KI113 refuses it."""
    data = b"store/**" + GUARD + b"\n" + line
    assert all(_protected(v) for v in _git_reads(repo, data, ignorecase=False))
    assert all(_protected(v) for v in _git_reads(repo, data, ignorecase=True)) is ok
    assert (check_gitattributes(data) == []) is ok


def test_a_line_matching_store_only_case_insensitively_says_where():
    [finding] = check_gitattributes(b"store/**" + GUARD + b"\nSTORE/** text eol=crlf\n")
    assert (finding.rule.id, finding.line, finding.found) == (
        "KI113", 2, "STORE/** text eol=crlf")
    assert finding.message == (
        "line 2 sets text eol=crlf for STORE/** after the store/** line, so git would convert "
        "stored bytes in a clone with core.ignorecase=true (git's default on macOS and "
        "Windows), where git matches patterns case-insensitively")


def test_a_guard_line_in_another_case_guards_nothing_on_linux(repo):
    """The guard must hold under both rules: ``STORE/**`` protects nothing case-sensitively."""
    data = b"STORE/**" + GUARD + b"\n"
    assert not _protected(_git_reads(repo, data)[0])
    assert _protected(_git_reads(repo, data, ignorecase=True)[0])
    [finding] = check_gitattributes(data)
    assert (finding.rule.id, finding.found) == ("KI113", "no such line")


def _git_reads_info(root: Path, data: bytes) -> dict[str, str]:
    """``{attribute: value}`` of PATH in the work tree, the guard committed and ``data`` as
    the clone's ``.git/info/attributes`` (which git reads first and lets win)."""
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_bytes(data)
    try:
        return _git_reads(root, b"store/**" + GUARD + b"\n")[0]
    finally:
        (root / ".git" / "info" / "attributes").unlink()


INFO_CASES = [
    (b"", True),
    (b"# store/** text eol=crlf\n", True),
    (b"store/** text eol=crlf\n", False),  # the review's case: KI212 blamed the names files
    (b"* filter=lfs\n", False),
    (b"*.json text\n", False),
    (b"* !text\n", False),  # unspecified again: core.autocrlf applies
    (b"store/objects/** working-tree-encoding=UTF-16\n", False),
    (b"docs/** text eol=crlf\n", True),
    (b"store/** -text -eol\n", True),
    (b"store/** text eol=crlf\nstore/**" + GUARD + b"\n", True),  # unset again after it
    (b"store/** text eol=crlf\nstore/**" + GUARD + b" text\n", False),  # set last: wins
    (b"\xef\xbb\xbfstore/** text\n", False),  # git skips a BOM reading the file
    (b'\xef\xbb\xbf"store/**"text\n', False),  # CI's hypothesis draw, 2026-12-03
]


@pytest.mark.parametrize(("data", "ok"), INFO_CASES)
def test_ki116_agrees_with_git_check_attr(repo, data, ok):
    """New-user review 2026-12-02: the clone's info/attributes wins over the guard line."""
    assert _protected(_git_reads_info(repo, data)) is ok
    assert (check_info_attributes(data) == []) is ok


def test_ki116_names_the_line_and_what_it_sets():
    data = b"# ours\ndocs/** text\nstore/** text eol=crlf\n"
    [finding] = check_info_attributes(data)
    assert (finding.rule.id, finding.file, finding.line, finding.found) == (
        "KI116", ".git/info/attributes", 3, "store/** text eol=crlf")
    assert finding.message == (
        "line 3 sets text eol=crlf for store/**, and this repository's own attributes win over "
        ".gitattributes' store/** line, so git converts stored bytes on checkout")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TOKENS), max_size=14))
@example(tokens=["\ufeff", '"store/**"', "text"])  # CI drew it: git skips the BOM there
@example(tokens=["\ufeff", "store/**", " ", "text"])
def test_an_info_attributes_file_ki116_passes_protects_the_store(repo, tokens):
    """No false pass: what KI116 accepts beside the guard line, git honours."""
    data = "".join(tokens).encode()
    if check_info_attributes(data) == []:
        assert _protected(_git_reads_info(repo, data)), data


@pytest.mark.parametrize(("data", "sensitive", "insensitive"), [
    (b"STORE/** text eol=crlf\n", True, False),  # the review's case
    (b"Store/Objects/** working-tree-encoding=UTF-16\n", True, False),
    (b"store/** text eol=crlf\nSTORE/**" + GUARD + b"\n", False, True),  # unset again
    (b"STORE/**" + GUARD + b"\n", True, True),
])
def test_ki116_matches_case_insensitively_under_core_ignorecase(tmp_path, data, sensitive,
                                                                insensitive):
    """r71 F1: with ``core.ignorecase=true`` (git's default on macOS and Windows) git
    matches ``STORE/**`` to ``store/``; KI116 reads the setting from the repository."""
    import pygit2

    from kistore.git.attributes import check_clone_info_attributes

    git(tmp_path, "init", "-q")
    for ignorecase, ok in (("false", sensitive), ("true", insensitive)):
        git(tmp_path, "config", "core.ignorecase", ignorecase)
        assert _protected(_git_reads_info(tmp_path, data)) is ok
        (tmp_path / ".git" / "info" / "attributes").write_bytes(data)
        assert (check_clone_info_attributes(pygit2.Repository(str(tmp_path))) == []) is ok
    [finding] = check_info_attributes(b"STORE/** text eol=crlf\n", ignorecase=True)
    assert (finding.line, finding.found) == (1, "STORE/** text eol=crlf")


MACRO_CASES = [  # (the committed .gitattributes' macros, core.attributesFile's, info, ok)
    (b"[attr]kt text eol=crlf\n", b"", b"store/** kt\n", False),  # the review's case
    (b"", b"", b"[attr]kt text eol=crlf\nstore/** kt\n", False),
    (b"", b"", b"[attr]kt text eol=crlf\n", True),  # a definition alone matches no path
    (b"", b"[attr]kt text eol=crlf\n", b"store/** kt\n", False),  # core.attributesFile
    (b"[attr]kt text eol=crlf\n", b"", b"[attr]kt -text\nstore/** kt\n", True),  # info wins
    (b"[attr]a b\n[attr]b eol=crlf\n", b"", b"store/** a\n", False),  # nested
    (b"[attr]a b\n[attr]b a eol=crlf\n", b"", b"store/** b\n", False),  # a cycle ends
    (b"[attr]kt text eol=crlf\n", b"", b"store/** -kt !kt kt=x\n", True),  # only `kt` expands
    (b"", b"", b"store/** binary\n", True),  # git's own: -diff -merge -text
    (b"[attr]binary text\n", b"", b"store/** binary\n", False),  # redefined
    (b"[attr]g" + GUARD + b"\n", b"", b"* text\nstore/** g\n", True),  # unset again
    (b"[attr]g" + GUARD + b"\n", b"", b"* text\nstore/** g text\n", False),
]


@pytest.mark.parametrize(("committed", "global_", "info", "ok"), MACRO_CASES)
def test_ki116_expands_macros_as_git_does(tmp_path, committed, global_, info, ok):
    """r71 F2: ``store/** kt`` in info/attributes converts when ``kt`` is a macro that
    does, defined in the top-level .gitattributes, core.attributesFile or the file itself."""
    import pygit2

    from kistore.git.attributes import check_clone_info_attributes

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (tmp_path / "global").write_bytes(global_)
    git(root, "config", "core.attributesFile", str(tmp_path / "global"))
    (root / ".gitattributes").write_bytes(committed + b"store/**" + GUARD + b"\n")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_bytes(info)
    out = subprocess.run(["git", "check-attr", "-z", *ATTRS, "--", PATH], cwd=root,
                         capture_output=True, text=True, check=True).stdout.split("\0")
    assert _protected({out[i + 1]: out[i + 2] for i in range(0, len(out) - 2, 3)}) is ok
    found = check_clone_info_attributes(pygit2.Repository(str(root)))
    assert (found == []) is ok, found


def test_ki116_names_the_macro_and_what_it_sets():
    [finding] = check_info_attributes(b"store/** kt\n", macros=[b"[attr]kt text eol=crlf\n"])
    assert (finding.line, finding.found) == (1, "store/** kt")
    assert finding.message.startswith("line 1 sets kt (eol=crlf text) for store/**, ")
