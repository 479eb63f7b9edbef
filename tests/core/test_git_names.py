"""``kistore.core.git_names`` held to git itself: what ``git fsck`` calls .git, .gitmodules...

Each name is written as the one entry (a symbolic link) of a tree, and one ``git fsck`` over
all those trees says which it reports ``hasDotgit`` (any mode) and ``gitmodulesSymlink``,
``gitattributesSymlink``, ``gitignoreSymlink``, ``mailmapSymlink``: the lists below, and a
few hundred names built at random from the pieces those tests look for, are checked against
git, not against kistore's own reading (review r79 F1, r80's note on it).
"""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest

from kistore.core import tree_entries as te
from kistore.core.git_names import is_dotgit, special_file, windows_problem

SYMLINK_IDS = {"gitmodulesSymlink", "gitattributesSymlink", "gitignoreSymlink", "mailmapSymlink"}

DOTGIT = [".git", ".GIT", ".Git", ".git.", ".git .", ".git  ..", "git~1", "GIT~1",
          ".git::$INDEX_ALLOCATION", "GIT~1::$INDEX_ALLOCATION", ".git:x", ".git\\hooks",
          ".git\\hooks\\post-checkout", "hooks\\.git", "a\\b\\git~1", ".g\u200cit",
          ".git\u200d", "\ufeff.git", ".git. :x"]
"""r79 F1 (``repro/01``, ``01a``) and its neighbours: each is ``.git`` on some file system."""

NOT_DOTGIT = [".gitx", "git~2", "git~10", ".git-x", "x.git", ".gi", "git", ".git x", "gi~t1",
              ".g\u00eft", "\u0130.git"]
"""Close to ``.git`` and still another name for git."""

SYMLINKED = {
    ".gitmodules": "gitmodulesSymlink", ".GITMODULES": "gitmodulesSymlink",
    "gitmod~1": "gitmodulesSymlink", "GITMOD~4": "gitmodulesSymlink",
    "GI7EBA~1": "gitmodulesSymlink", "gi7eba~2": "gitmodulesSymlink",
    "gi7eb~12": "gitmodulesSymlink", ".gitmodules::$DATA": "gitmodulesSymlink",
    ".gitmodules ": "gitmodulesSymlink", ".gitmodules.": "gitmodulesSymlink",
    ".git\u200cmodules": "gitmodulesSymlink", "x\\.gitmodules": "gitmodulesSymlink",
    ".gitattributes": "gitattributesSymlink", ".GITATTRIBUTES": "gitattributesSymlink",
    "gitatt~1": "gitattributesSymlink", "gi7d29~1": "gitattributesSymlink",
    ".gitignore": "gitignoreSymlink", "GITIGN~2": "gitignoreSymlink",
    "gi250a~1": "gitignoreSymlink", ".mailmap": "mailmapSymlink",
    "MAILMA~1": "mailmapSymlink", "maba30~1": "mailmapSymlink",
}
"""r79 F1 (``repro/01b``) and r80's variants: symbolic links git's fsck reports."""

NOT_SYMLINKED = ["gitmod~5", "gitmodules", ".gitmodulesx", "gi7eba~0", "gi7ebb~1",
                 ".gitmodules\\x", "x\\.gitignore", "gitmodu~1", ".gitattribute"]
"""Close to them and not reported by git."""


def _fsck(tmp_path: Path, names: list[str]) -> list[set[str]]:
    """Return, per name, the fsck message ids git reports on a tree of that one symlink."""
    repo = tmp_path / "fsck.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=b"target",
                          capture_output=True, check=True).stdout.decode().strip()
    files = []
    for i, name in enumerate(names):
        path = tmp_path / f"tree{i}"
        path.write_bytes(b"120000 " + name.encode("utf-8", "surrogateescape") + b"\0"
                         + bytes.fromhex(blob))
        files.append(str(path))
    trees = subprocess.run(
        ["git", "hash-object", "-w", "-t", "tree", "--literally", "--stdin-paths"], cwd=repo,
        input="\n".join(files) + "\n", capture_output=True, text=True, check=True
    ).stdout.split()
    fsck = subprocess.run(["git", "fsck", "--no-dangling"], cwd=repo, capture_output=True,
                          text=True)
    said: dict[str, set[str]] = {}
    for tree, message in re.findall(r"(?:warning|error) in tree ([0-9a-f]{40}): (\w+):",
                                    fsck.stderr + fsck.stdout):
        said.setdefault(tree, set()).add(message)
    return [said.get(tree, set()) for tree in trees]


def _kistore_says(name: str) -> set[str]:
    """What kistore finds in the same tree: hasDotgit (KI115) and the symlink ids (KI423)."""
    entry = (te.SYMLINK_MODE, name.encode("utf-8", "surrogateescape"), b"\0" * 20)
    found = {problem for _, problem in te.entry_problems([entry]) if problem in SYMLINK_IDS}
    return found | ({"hasDotgit"} if is_dotgit(name) else set())


def test_the_lists_are_what_git_fsck_says(tmp_path):
    names = DOTGIT + NOT_DOTGIT + list(SYMLINKED) + NOT_SYMLINKED
    said = _fsck(tmp_path, names)
    git_says = {name: ids & (SYMLINK_IDS | {"hasDotgit"}) for name, ids in zip(
        names, said, strict=True)}
    # git's own answers first: the lists are git's, not kistore's
    assert [n for n in DOTGIT if "hasDotgit" not in git_says[n]] == []
    assert [n for n in NOT_DOTGIT if "hasDotgit" in git_says[n]] == []
    assert {n: git_says[n] for n in SYMLINKED} == {n: {i} for n, i in SYMLINKED.items()}
    assert {n: git_says[n] for n in NOT_SYMLINKED} == {n: set() for n in NOT_SYMLINKED}
    # then kistore's, name by name
    assert {n: _kistore_says(n) for n in names} == git_says


PIECES = [".git", "git~1", "GIT~", ".gitmodules", ".GitModules", "gitmod~", "gi7eba~", "GI7EB~",
          ".gitattributes", "gitatt~", "gi7d29~", ".gitignore", "gitign~", "gi250a~",
          ".mailmap", "mailma~", "MABA30~", "~", "x", ""]
TAILS = [".", " ", ":", "\\", "1", "2", "4", "5", "9", "0", "~", "x", "$", "\u200c", "\ufeff",
         "g", "i", "t", "\u00e9"]


def _random_name(rng: random.Random) -> str:
    name = ""
    for _ in range(rng.randint(1, 2)):
        name += ("\\" if name else "") + rng.choice(PIECES) + "".join(
            rng.choice(TAILS) for _ in range(rng.randint(0, 4)))
    if rng.random() < 0.2 and name:  # an ignorable code point anywhere
        at = rng.randrange(len(name) + 1)
        name = name[:at] + rng.choice("\u200c\u200d\u202a\u206f\ufeff") + name[at:]
    if rng.random() < 0.3:
        name = name.swapcase()
    return name


def test_random_names_are_read_as_git_fsck_reads_them(tmp_path):
    rng = random.Random(20261203)
    names = sorted({n for n in (_random_name(rng) for _ in range(800)) if n not in ("", ".", "..")
                    and "/" not in n})
    said = _fsck(tmp_path, names)
    differ = {n: (_kistore_says(n), ids & (SYMLINK_IDS | {"hasDotgit"}))
              for n, ids in zip(names, said, strict=True)
              if _kistore_says(n) != ids & (SYMLINK_IDS | {"hasDotgit"})}
    assert differ == {}
    assert sum(bool(ids & SYMLINK_IDS) for ids in said) > 50  # the pieces do hit
    assert sum("hasDotgit" in ids for ids in said) > 25


@pytest.mark.parametrize("name", ["GI7EBA~1", ".gitmodules", "gitmod~1", "x\\.gitmodules"])
def test_a_gitmodules_file_of_any_kind_is_refused(name):
    raw = name.encode()
    assert special_file(name) == ".gitmodules"
    assert te.entry_problems([(b"100644", raw, b"\0" * 20)]) == [(0, te.GITMODULES)]
    assert te.entry_problems([(te.SYMLINK_MODE, raw, b"\0" * 20)]) == [
        (0, te.GITMODULES_SYMLINK)]


def test_a_gitlink_is_refused_and_other_files_pass():
    entries = [(b"100644", b".gitattributes", b"\0" * 20), (b"100644", b".gitignore", b"\0" * 20),
               (b"160000", b"sub", b"\1" * 20), (b"100755", b"tool", b"\0" * 20)]
    assert te.entry_problems(entries) == [(2, te.SUBMODULE)]
    assert te.entry_problems([entries[0], entries[1], entries[3]]) == []


WINDOWS = {"aux.txt": "a reserved device name", "CON": "a reserved device name",
           "NUL.json": "a reserved device name", "com1": "a reserved device name",
           "LPT9.tar.gz": "a reserved device name", "prn  .x": "a reserved device name",
           "CONIN$": "a reserved device name", "conout$.log": "a reserved device name",
           "aux:stream": "a reserved device name", "notes:today": "the character ':'",
           "a<b": "the character '<'", "a>b": "the character '>'", 'say"hi"': "the character '\"'",
           "a|b": "the character '|'", "what?": "the character '?'", "*.md": "the character '*'",
           "tab\there": "the character '\\t'", "docs.": "a trailing dot or space",
           "readme ": "a trailing dot or space", "...": "a trailing dot or space",
           "ok\\aux": "a reserved device name",
           # reviewer r81 F4: LPT takes any digit; a backslash anywhere (CVE-2019-1354)
           "lpt0": "a reserved device name", "LPT0.log": "a reserved device name",
           "docs\\readme": "the character '\\\\'", "..\\..\\evil.txt": "the character '\\\\'"}
"""r79 F10's eight names and the rest of Git for Windows' ``is_valid_win32_path`` (read from
``compat/mingw.c``; not checkable against git here: Linux git does not apply it)."""


@pytest.mark.parametrize(("name", "problem"), sorted(WINDOWS.items()))
def test_names_git_for_windows_refuses(name, problem):
    assert windows_problem(name) == problem


@pytest.mark.parametrize("name", ["auxiliary", "CONSOLE", "com0", "LPT", "nul_", "con_in$",
                                  ".", "..", "a.b", ".hidden", "x~1", "caf\u00e9", "a b"])
def test_names_git_for_windows_checks_out(name):
    assert windows_problem(name) is None
