"""A commit's header lines read from its bytes: what libgit2 cannot parse (reviewer r82 F1).

A commit with no ``author`` line, or ``committer`` before ``author`` (git fsck
``missingAuthor``), written by ``git hash-object --literally``, made libgit2 fail every
lookup and walk through it: ``check`` said "no commit named 'pr'", pre-receive "internal
error". :func:`commit_fault` names the fault from the bytes; these tests hold it to git
fsck's words and to libgit2's own parser (a fault is ``fatal`` exactly when libgit2 refuses
the commit). An author or committer date past a signed 64-bit number (git fsck
``badDateOverflow``) or with no digits (``badDate``) is one too (reviewer r84 F4), and
:func:`header` is the one split of a commit's header every reader takes.
"""

from __future__ import annotations

import re
import subprocess

import pygit2
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.git.commit_header import commit_fault, header, subject

from ..conftest import git

TREE = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # the empty tree
PARENT = "parent " + "1" * 40
AUTHOR = "author t <t@x> 1700000000 +0000"
COMMITTER = "committer t <t@x> 1700000000 +0000"


def raw(*lines: str, message: str | None = "subject\n") -> bytes:
    """A commit's bytes: header lines, then a blank line and the message (None: none)."""
    head = "\n".join(lines) + "\n"
    return (head if message is None else head + "\n" + message).encode()


CASES = [  # (bytes, git fsck's message id or None, libgit2 refuses it)
    (raw(TREE, AUTHOR, COMMITTER), None, False),
    (raw(TREE, PARENT, AUTHOR, COMMITTER, "encoding VISCII"), None, False),
    (raw(TREE, AUTHOR, COMMITTER, message=None), None, False),  # headers only: fsck-clean
    (raw(TREE, AUTHOR, AUTHOR, COMMITTER), None, False),  # KI428's, not this module's
    (raw(TREE, COMMITTER), "missingAuthor", True),  # reviewer r82 F1
    (raw(TREE, PARENT, COMMITTER, AUTHOR), "missingAuthor", True),  # committer first
    (raw(TREE, AUTHOR), "missingCommitter", True),
    (raw(TREE, AUTHOR, "encoding x", COMMITTER), "missingCommitter", True),
    (raw(TREE, "author t t@x 1700000000 +0000", COMMITTER), "missingEmail", True),
    (raw(TREE, AUTHOR, "committer t <t@x 1700000000 +0000"), "badEmail", True),
    (raw(TREE, "author t >x< 1700000000 +0000", COMMITTER), "badName", True),
    (raw(AUTHOR, COMMITTER), "missingTree", True),
    (raw("tree 4b825dc", AUTHOR, COMMITTER), "badTreeSha1", True),
    (raw(TREE, "parent 12", AUTHOR, COMMITTER), "badParentSha1", True),
    (raw(TREE, AUTHOR, COMMITTER, message=None) + b"msg", "unterminatedHeader", False),
    (raw(TREE, AUTHOR, COMMITTER, message=None).rstrip(b"\n"), "unterminatedHeader", True),
    # reviewer r84 F4: libgit2's "invalid Unix timestamp"; 2^63 - 1 is the last it reads
    (raw(TREE, AUTHOR, "committer t <t@x> 99999999999999999999 +0000"), "badDateOverflow",
     True),
    (raw(TREE, "author t <t@x> 9223372036854775808 +0000", COMMITTER), "badDateOverflow", True),
    (raw(TREE, AUTHOR, "committer t <t@x> 9223372036854775807 +0000"), None, False),
    (raw(TREE, AUTHOR, "committer t <t@x> abc +0000"), "badDate", True),
]


NOT_PARSED_BY_GIT = {"missingTree", "badTreeSha1", "badParentSha1"}
"""Faults git's own commit parser refuses: fsck says "object could not be parsed", no id."""


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    return pygit2.Repository(str(tmp_path))


def _libgit2_refuses(repo, data: bytes) -> bool:
    oid = repo.odb.write(pygit2.enums.ObjectType.COMMIT, data)
    try:
        repo[oid].peel(pygit2.Commit).author  # noqa: B018 - the parse is the test
    except (pygit2.GitError, ValueError):
        return True
    return False


@pytest.mark.parametrize("data, fsck, fatal", CASES)
def test_each_fault_is_git_fscks_and_fatal_as_libgit2_says(repo, tmp_path, data, fsck, fatal):
    fault = commit_fault(data)
    assert (fault and fault.fsck) == fsck
    assert (fault is not None and fault.fatal) is fatal is _libgit2_refuses(repo, data)
    oid = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin"],
                         cwd=tmp_path, input=data, capture_output=True, check=True
                         ).stdout.decode().strip()
    said = subprocess.run(["git", "fsck", "--strict", "--no-dangling"], cwd=tmp_path,
                          capture_output=True, text=True)
    found = re.findall(rf"(?:error|warning) in commit {oid}: (\w+):", said.stderr)
    if fsck is None:
        assert found == [] or found == ["multipleAuthors"], said.stderr
    elif fsck in NOT_PARSED_BY_GIT:  # git cannot read it either: no message id then
        assert found[:1] == [fsck] or f"{oid}: object could not be parsed" in said.stderr, (
            said.stderr)
    else:
        assert found[:1] == [fsck], said.stderr


def test_the_message_names_what_is_there():
    fault = commit_fault(raw(TREE, PARENT, COMMITTER, AUTHOR))
    assert fault is not None
    assert fault.what == (
        "it has no author line after its tree and parent lines (`committer t <t@x> "
        "1700000000 +0000` there), where git writes `author NAME <EMAIL> SECONDS +ZONE`")
    assert subject(raw(TREE, COMMITTER, message="fix: x\nbody\n")) == "fix: x"
    assert subject(raw(TREE, COMMITTER, message="")) == "no message"
    assert subject(raw(TREE, COMMITTER, message=None)) == "no message"


LINES = st.sampled_from([TREE, PARENT, AUTHOR, COMMITTER, "encoding UTF-8", "x y",
                         "author t t@x 1 +0000", "committer <t@x> 1 +0000", "tree 12",
                         "parent zz", "author ", "committer t >x< 1 +0000",
                         "author t <t@x> 99999999999999999999 +0000", "committer t <t@x> x",
                         "committer t <t@x> -9223372036854775809 +0000", "author t <t@x>  "])


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.
                                               function_scoped_fixture])
@example(lines=[TREE, COMMITTER, AUTHOR], message="m\n", cut=False)
@example(lines=[TREE, AUTHOR, "author t <t@x> 99999999999999999999 +0000", COMMITTER],
         message="m\n", cut=False)  # libgit2 reads every author line's date (r84 F4)
@given(st.lists(LINES, min_size=1, max_size=6), st.sampled_from(["m\n", "", None]),
       st.booleans())
def test_fatal_is_exactly_what_libgit2_refuses(repo, lines, message, cut):
    """Any order of well- and ill-formed header lines: ``fatal`` agrees with libgit2."""
    data = raw(*lines, message=message)
    if cut:
        data = data.rstrip(b"\n")
    fault = commit_fault(data)
    assert (fault is not None and fault.fatal) is _libgit2_refuses(repo, data), fault


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.
                                               function_scoped_fixture])
@example(date="99999999999999999999 +0000", who="committer")  # reviewer r84 F4
@example(date="-9223372036854775808 +0000", who="author")  # the least libgit2 reads
@example(date="\t+", who="author")
@given(st.text(alphabet="0123456789+- \tx", max_size=24),
       st.sampled_from(["author", "committer"]))
def test_a_date_is_fatal_exactly_when_libgit2_refuses_it(repo, date, who):
    """Any bytes after an ident's ``>``: fatal (a date fault) agrees with libgit2."""
    line = f"{who} t <t@x>{date}"
    data = raw(TREE, line if who == "author" else AUTHOR,
               line if who == "committer" else COMMITTER)
    fault = commit_fault(data)
    assert (fault is not None and fault.fatal) is _libgit2_refuses(repo, data), fault


def test_the_overflow_is_named_in_the_message():
    fault = commit_fault(raw(TREE, AUTHOR, "committer A <a@b> 99999999999999999999 +0000"))
    assert fault == (
        "its committer line (line 3) has a date libgit2 cannot read (`99999999999999999999 "
        "+0000`): past 9223372036854775807 s since the epoch, the most a signed 64-bit "
        "number holds", "badDateOverflow", True)


def test_the_header_is_split_once_as_git_reads_it():
    """Tree, parents (those after the tree line only), lines, line end and message."""
    other = "parent " + "2" * 40
    split = header(raw(TREE, PARENT, other, AUTHOR, COMMITTER, "parent " + "3" * 40,
                       message=f"subject\n{other}\n"))
    assert split.tree == "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    assert split.parents == ("1" * 40, "2" * 40)  # not the late header, not the message
    assert split.lines[3:5] == (AUTHOR.encode(), COMMITTER.encode())
    assert (split.terminated, split.message) == (True, f"subject\n{other}\n".encode())
    only = header(raw(TREE, AUTHOR, COMMITTER, message=None))  # headers only: no blank line
    assert (only.lines[-1], only.terminated, only.message) == (COMMITTER.encode(), True, b"")
    cut = header(raw(TREE, AUTHOR, COMMITTER, message=None).rstrip(b"\n"))
    assert (cut.lines[-1], cut.terminated) == (COMMITTER.encode(), False)
    assert header(raw("tree 12", AUTHOR, COMMITTER)).tree is None
