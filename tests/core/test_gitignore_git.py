"""KI119 against git's own reading of ``.gitignore`` (``git check-ignore``), property-style.

:func:`kistore.core.gitignore.line_ignores` (one path) must say what ``git check-ignore``
says of store paths, under both case rules, for patterns built of the pieces that matter
(globs, classes, ``**``, escapes, trailing spaces and slashes); and a line
:func:`~kistore.core.gitignore.check_gitignore` lets pass must ignore none of them (it
judges every path the layout can hold, not those: the soundness that matters).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.core.gitignore import check_gitignore, line_ignores

from ..conftest import git

HEX = "0123456789abcdef"
PIECES = ["store", "objects", "sha256", "names", "metadata", "BenchmarkRun", "Store", "STORE",
          "/", "/", "*", "*", "**", "?", "[0-9a-f]", "[!a-f]", "[^0-9]", "[[:xdigit:]]",
          "[[:upper:]]", "[A-Z]", "[A]", "[]a]", "[a-", "d", "a", "0", "b", ".json", "json",
          "\\*", "\\a", "\\A", "-", ".", " ", "\\ ", "!", "#", "x", "keys", "sol-"]


def _hex(n: int) -> st.SearchStrategy[str]:
    return st.text(HEX, min_size=n, max_size=n)


PATHS = st.one_of(
    st.builds(lambda d, a, b: f"store/{d}/sha256/{a}/{b}.json",
              st.sampled_from(["objects", "metadata"]), _hex(2), _hex(62)),
    st.builds(lambda k, a, n: f"store/names/{k}/{a}/{n}",
              st.sampled_from(["BenchmarkRun", "Workload"]), _hex(2),
              st.from_regex(r"[a-z0-9][a-z0-9.-]{0,8}[a-z0-9]", fullmatch=True)),
    st.builds(lambda d, a, b, c: f"store/{d}/sha256/{a}/{b}/{c}",
              st.sampled_from(["forward", "groups"]), _hex(2), _hex(62), _hex(64)),
    st.sampled_from(["store/trust/keys.json", "store/policy/ranking.json"]))


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ignore")
    git(root, "init", "-q")
    return root


def _git_ignores(root: Path, base: str, line: str, paths: list[str], ignorecase: bool
                 ) -> set[str]:
    for old in root.rglob(".gitignore"):
        old.unlink()
    (root / base).mkdir(parents=True, exist_ok=True)
    (root / base / ".gitignore").write_bytes(line.encode("utf-8", "surrogateescape") + b"\n")
    done = subprocess.run(["git", "-c", f"core.ignorecase={str(ignorecase).lower()}",
                           "check-ignore", "--no-index", "--stdin"], cwd=root,
                          input="\n".join(paths) + "\n", capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return set(done.stdout.splitlines())


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join),
       base=st.sampled_from(["", "", "", "store", "store/names"]),
       paths=st.lists(PATHS, min_size=1, max_size=4, unique=True))
@example(line="store/objects/sha256/d*/", base="",
         paths=["store/objects/sha256/df/" + "0" * 62 + ".json"])  # r82's line
@example(line="STORE/", base="", paths=["store/trust/keys.json"])
@example(line="[A]*", base="store", paths=["store/policy/ranking.json"])
@example(line="**/sha256/**", base="", paths=["store/trust/keys.json"])
@example(line="a**/b", base="", paths=["store/trust/keys.json"])
def test_one_line_is_read_as_git_check_ignore_reads_it(repo, line, base, paths):
    for ignorecase in (False, True):
        said = _git_ignores(repo, base, line, paths, ignorecase)
        assert {p for p in paths if line_ignores(line, base, p, ignorecase)} == said, \
            (line, base, ignorecase)
        if not check_gitignore(f"{base}/.gitignore".lstrip("/"), line.encode()):
            assert said == set(), (line, base, ignorecase)  # passed: ignores no store path


@pytest.mark.parametrize(("data", "expected"), [
    (b"store/objects/sha256/d*/\n", [(1, "")]),  # r82 F8's line
    (b"*.json\n", [(1, "")]), (b"/store\n", [(1, "")]), (b"**/sha256\n", [(1, "")]),
    (b"STORE/\n", [(1, " in a clone with core.ignorecase=true")]),
    (b"benchmarkrun/\n", [(1, " in a clone with core.ignorecase=true")]),
    (b"# comment\n!store/\n\n/*.log\n.venv\n__pycache__/\nbuild/\n*.egg-info/\n", []),
    (b"\xef\xbb\xbf*.json\r\n", [(1, "")]),  # git skips the BOM and the CR
    (b"*.json\\ \n", []),  # an escaped trailing space: the name ends in a space, none does
])
def test_lines_over_store_are_ki119(data, expected):
    found = check_gitignore(".gitignore", data)
    assert [(f.line, " in a clone with core.ignorecase=true" if "ignorecase=true" in f.message
             else "") for f in found] == expected
    assert all(f.rule.id == "KI119" and f.severity == "error" and f.file == ".gitignore"
               for f in found)


def test_the_message_names_the_line():
    [finding] = check_gitignore(".gitignore", b"build/\nstore/objects/sha256/d*/\n")
    assert finding.message == ("line 2 ('store/objects/sha256/d*/') may match paths under "
                               "store/: git add would skip them")
    assert (finding.line, finding.found) == (2, "store/objects/sha256/d*/")


def test_a_nested_gitignore_elsewhere_reaches_no_store_path_and_one_in_store_any():
    assert check_gitignore("docs/.gitignore", b"*\n") == []
    assert [f.line for f in check_gitignore("store/names/.gitignore", b"x\n!y\n")] == [1]


def test_the_repositorys_own_gitignore_passes():
    assert check_gitignore(".gitignore", (Path(__file__).parents[2] / ".gitignore"
                                          ).read_bytes()) == []
