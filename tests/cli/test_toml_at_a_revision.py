"""A committed kistore.toml that does not parse, asked ``--at`` a revision (fresh07 L4).

``kistore rank 1974422a --at HEAD`` of a commit whose kistore.toml is ``[store`` advised
"`git diff kistore.toml` shows what changed since the last commit": the bad bytes are the
commit's, so that diff shows nothing, and no edit of the work tree changes what ``--at HEAD``
reads. A committed file's advice names ``git show REV:kistore.toml`` and a new commit; the
work tree's file keeps the edit's advice.
"""

from __future__ import annotations

import subprocess

import pytest

from kistore.cli import main

from ..conftest import BUNDLE, git
from ..prs import KISTORE

BAD = "[store\nversion = 1\n"
WHAT = "kistore.toml:1:7: not valid TOML: Expected ']' at the end of a table declaration; "
COMMITTED = ("this is kistore.toml as committed at {rev} (`git show {rev}:kistore.toml` shows "
             "it, `git log -p -- kistore.toml` the commits that changed it; TOML 1.0: "
             "https://toml.io/en/v1.0.0): a commit's files never change, so a new commit "
             "corrects it for the commits after it")
WORK_TREE = ("correct the file at that line and column (TOML 1.0: https://toml.io/en/v1.0.0; "
             "`git diff kistore.toml` shows what changed since the last commit), then run the "
             "command again")
QUERIES = ("; queries use the default limits until kistore.toml is fixed (`kistore verify` "
           "reports it; `add` refuses it)\n")
QUERIES_AT = ("; queries at {rev} use the default limits (`kistore verify --at {rev}` reports "
              "it, KI108)\n")
"""What a query ``--at REV`` says after the commit's fix (msg03: until 2026-12-07 it said
:data:`QUERIES`, "until kistore.toml is fixed", and ``verify`` and ``add``, of the work
tree)."""


@pytest.fixture
def committed_bad(runner, store_path):
    """A store with the published record, then a commit writing a kistore.toml of ``BAD``."""
    added = runner.invoke(main, ["--store", str(store_path), "add", "--allow-dangling",
                                 "--commit", str(BUNDLE)])
    assert added.exit_code == 0, added.output
    good = (store_path / "kistore.toml").read_text()
    (store_path / "kistore.toml").write_text(BAD)
    git(store_path, "commit", "-qam", "unparseable toml")
    return store_path, good


def kistore(store_path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process (a query warns of kistore.toml once a process)."""
    return subprocess.run([KISTORE, "--store", str(store_path), *args], capture_output=True,
                          text=True)


@pytest.mark.parametrize("command", [["rank", "BenchmarkRun/sol-submission-20464"], ["ls"]])
@pytest.mark.parametrize("rev", ["HEAD", "main"])
def test_a_bad_committed_file_is_advised_as_a_commit_s(runner, committed_bad, command, rev):
    store_path, good = committed_bad
    (store_path / "kistore.toml").write_text(good)  # the work tree's is good: no warning of it
    done = kistore(store_path, *command, "--at", rev)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines(True) if "kistore.toml" in line]
    assert said == [f"warning: {WHAT}{COMMITTED.format(rev=rev)}{QUERIES_AT.format(rev=rev)}"]
    assert "git diff" not in done.stderr  # before: the work tree's advice, nothing to diff
    plain = kistore(store_path, *command)
    assert plain.returncode == 0 and "kistore.toml" not in plain.stderr


def test_the_work_tree_s_bad_file_keeps_the_edit_s_advice(runner, committed_bad):
    store_path, _good = committed_bad
    done = kistore(store_path, "ls")
    assert done.stderr == f"warning: {store_path}/{WHAT}{WORK_TREE}{QUERIES}"


def test_verify_at_a_commit_says_the_commit_s_fix(runner, committed_bad):
    store_path, good = committed_bad
    (store_path / "kistore.toml").write_text(good)
    head = git(store_path, "rev-parse", "HEAD").strip()
    done = runner.invoke(main, ["--store", str(store_path), "verify", "--at", head])
    assert done.exit_code == 1
    assert (f"{WHAT.replace(': not', ': error KI108 settings-invalid: not')}"
            f"{COMMITTED.format(rev=head[:12])}\n") in done.stdout, done.stdout
    assert ("fix KI108 (1 finding): correct kistore.toml where the finding says, in a new "
            f"commit (`git show {head[:12]}:kistore.toml` shows it, `git log -p -- kistore.toml` "
            "the commits that changed it; TOML 1.0: https://toml.io/en/v1.0.0); until then the "
            "commits holding it are read with the default limits (queries warn, `verify` uses "
            "them)\n") in done.stdout, done.stdout


def test_a_bad_key_of_a_past_commit_is_advised_as_a_commit_s(runner, store_path):
    # msg03: `ls --at HEAD~1` of a commit whose [limits] misspelt a key, corrected in the
    # next commit, said "queries use the file's other limits until kistore.toml is fixed:
    # correct or remove each key named (`kistore verify` reports it, KI108; `add` refuses
    # it)": no edit of the work tree's file changes what a query at HEAD~1 reads
    good = (store_path / "kistore.toml").read_text()
    (store_path / "kistore.toml").write_text(good.replace("[limits]\n",
                                                          "[limits]\nstring-lenght = 100\n"))
    git(store_path, "commit", "-qam", "a misspelt limit")
    (store_path / "kistore.toml").write_text(good)
    git(store_path, "commit", "-qam", "the limit's name corrected")
    done = kistore(store_path, "ls", "--at", "HEAD~1")
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "warning: kistore.toml:/limits/string-lenght: unknown limit 'string-lenght'; the "
        "limits are manifest-bytes, source-bytes, string-length, array-length, "
        "object-members (ignored); queries at HEAD~1 use the file's other limits: this is "
        "kistore.toml as committed at HEAD~1 (`git show 'HEAD~1:kistore.toml'` shows it, "
        "`git log -p -- kistore.toml` the commits that changed it; TOML 1.0: "
        "https://toml.io/en/v1.0.0): a commit's files never change, so a new commit that "
        "corrects or removes each key named fixes it for the commits after it (`kistore "
        "verify --at 'HEAD~1'` reports it, KI108)\n")
    assert kistore(store_path, "ls").stderr == ""  # the work tree's file is the corrected one
