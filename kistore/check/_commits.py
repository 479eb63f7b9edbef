"""KI225: a commit whose header lines are not as git writes them (reviewer r82 F1).

``git hash-object -t commit --literally`` (or any tool) writes a commit with no ``author``
line, ``committer`` before ``author`` (git fsck ``missingAuthor``), an ident with no
``<EMAIL>``, a last header line with no line end (``unterminatedHeader``). libgit2, which
kistore reads history with, cannot parse most of them: ``check main..pr`` said "no commit
named 'pr'", pre-receive "internal error (InvalidError ...)", and once such a commit was
in a history, ``verify``, ``export`` and the site stopped with an internal error. So did an
author or committer date libgit2 cannot read (20 digits: git fsck ``badDateOverflow``), and
a ``parent`` line naming a tree, in ``check`` and ``verify --at`` (reviewer r84 F4).

The git layer reads commit bytes before libgit2 parses them and raises
:class:`kistore.git.blobs.CommitUnparsable` for one libgit2 cannot parse
(:func:`kistore.git.commit_header.commit_fault`); :func:`unparsable_finding` is its
finding, for the gate and ``verify``. :func:`commit_findings` judges the commits a range
brings that libgit2 did parse (``unterminatedHeader``, ``nulInHeader``): git's fsck refuses
them, as KI423 refuses such trees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..core.findings import ERROR, Finding, rule
from ..git.commit_header import Header, commit_fault, first_line

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..git.blobs import CommitUnparsable

COMMIT_MALFORMED = rule(
    "KI225", "commit-malformed", ERROR,
    "make the commit again with git (`git commit`, `git commit-tree`: both write the tree, "
    "parent, author and committer lines as git reads them) and rebuild the commits after it "
    "on top (`git rebase`); a history holding a commit libgit2 cannot parse cannot be "
    "checked, exported or shown by kistore")


def unparsable_finding(error: CommitUnparsable) -> Finding:
    """Return KI225 for a commit libgit2 cannot parse, met reading a history.

    Args:
        error: what the git layer raised (the commit's id and what is wrong).

    Returns:
        The finding (an error): the commit, what is wrong, git fsck's id, and that nothing
        of the history was checked past it (``extra``: ``commit``).
    """
    return Finding(
        COMMIT_MALFORMED, f"commit {error.oid} cannot be read by libgit2: {error.reason}; "
        "the history holding it cannot be walked, so nothing of it was checked",
        file=error.path, extra={"commit": error.oid})


def commit_findings(headers: Mapping[str, Header]) -> list[Finding]:
    """Return KI225 for each commit of a range whose header lines git's fsck refuses.

    Args:
        headers: the header (:func:`kistore.git.commit_header.header`) of each of the
            range's commits (libgit2 parsed them), by the commit's id.

    Returns:
        One error per commit at fault (``unterminatedHeader``, ``nulInHeader``: those
        libgit2 parses), naming the commit, its first message line and git fsck's id.
    """
    found = []
    for oid, split in headers.items():
        fault = commit_fault(split)
        if fault is not None:
            found.append(Finding(
                COMMIT_MALFORMED, f"commit {oid} (\"{first_line(split.message)}\"): "
                f"{fault.what} (git fsck: {fault.fsck})",
                extra={"commit": oid, "fsck": fault.fsck}))
    return found
