"""A commit object's header lines as git writes them, read from its raw bytes.

git writes a commit as ``tree``, ``parent`` lines, ``author``, ``committer``, optional
headers, a blank line and the message (git's ``commit_tree``; checked by ``git fsck``'s
``fsck_commit``). Other tools can write anything (``git hash-object -t commit --literally``),
and a push carries such a commit as it is. libgit2, which kistore reads history with,
refuses some: a commit with no ``author`` line, or ``committer`` before ``author`` (git
fsck ``missingAuthor``), stopped ``check BASE..HEAD`` with "no commit named 'pr'" and
pre-receive with "internal error (InvalidError: failed to parse signature)", and once in
a history ``verify``, ``export`` and ``site build`` with an internal error (reviewer r82
F1). :func:`commit_fault` names what is wrong from the bytes, before libgit2 reads them.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Fault(NamedTuple):
    """What is wrong with a commit's header lines.

    Attributes:
        what: in words, e.g. ``"it has no author line after its tree and parent lines"``.
        fsck: git fsck's message id for it (``missingAuthor``, ``unterminatedHeader``...).
        fatal: True when libgit2 cannot parse the commit at all (every lookup and walk
            through it fails); False when it parses it but git fsck refuses it.
    """

    what: str
    fsck: str
    fatal: bool


_OID = rb"[0-9a-f]{40}"
_TREE = re.compile(rb"tree " + _OID)
_PARENT = re.compile(rb"parent " + _OID)


def commit_fault(raw: bytes) -> Fault | None:
    """Return what libgit2 cannot parse, or git fsck refuses, in a commit's header lines.

    Checked in about git fsck's order (``verify_headers``, ``fsck_commit``): a NUL byte in
    the headers (``nulInHeader``), the first line ``tree <40 hex>``
    (``missingTree``, ``badTreeSha1``), each ``parent`` line (``badParentSha1``), then at
    least one ``author`` line (``missingAuthor``: none, or ``committer`` first) and a
    ``committer`` line after them (``missingCommitter``), each with an e-mail in ``<>``
    (``missingEmail``, ``badEmail``, ``badName``: libgit2 needs a ``<`` and a later
    ``>``), and the last header line
    ending without a line end (``unterminatedHeader``: libgit2 parses it unless that line
    is the committer's). Dates and a second author
    or committer line are :mod:`kistore.check._dates`' (KI428), not judged here. A commit
    of headers only, ending in a line end (no blank line, no message), is as git fsck
    accepts it: no fault.

    Args:
        raw: the commit object's bytes (without git's ``commit <size>\\0`` header).

    Returns:
        The first fault found, or None when the headers are as git writes them.
    """
    header, blank, _ = raw.partition(b"\n\n")
    terminated = bool(blank) or raw.endswith(b"\n")
    if not blank and terminated:
        header = raw[:-1]
    if b"\0" in header:
        return Fault("a NUL byte in its header lines", "nulInHeader", False)
    lines = header.split(b"\n")
    if not _TREE.fullmatch(lines[0]):
        return Fault("its first line is not `tree <40 hex digits>`",
                     "missingTree" if not lines[0].startswith(b"tree ") else "badTreeSha1",
                     True)
    at = 1
    while at < len(lines) and lines[at].startswith(b"parent "):
        if not _PARENT.fullmatch(lines[at]):
            return Fault(f"its line {at + 1} is not `parent <40 hex digits>`",
                         "badParentSha1", True)
        at += 1
    missing = _missing(lines, at, "author", "tree and parent lines", "missingAuthor")
    if missing is not None:
        return missing
    while at < len(lines) and lines[at].startswith(b"author "):
        bad = _email_fault(lines[at])
        if bad is not None:
            return Fault(f"its author line (line {at + 1}) has no e-mail in `<>`", bad, True)
        at += 1
    missing = _missing(lines, at, "committer", "author line", "missingCommitter")
    if missing is not None:
        return missing
    bad = _email_fault(lines[at])
    if bad is not None:
        return Fault(f"its committer line (line {at + 1}) has no e-mail in `<>`", bad, True)
    if not terminated:  # libgit2 needs the committer line's line end, not a later one's
        return Fault("its last header line has no line end (and there is no blank line "
                     "before a message)", "unterminatedHeader", at == len(lines) - 1)
    return None


def _missing(lines: list[bytes], at: int, who: str, after: str, fsck: str) -> Fault | None:
    """Return the fault of no ``who`` line at ``lines[at]`` (after ``after``), or None."""
    if at < len(lines) and lines[at].startswith(f"{who} ".encode()):
        return None
    found = "nothing" if at == len(lines) else f"`{_shown(lines[at])}`"
    return Fault(f"it has no {who} line after its {after} ({found} there), where git "
                 f"writes `{who} NAME <EMAIL> SECONDS +ZONE`", fsck, True)


def _email_fault(line: bytes) -> str | None:
    """Return git fsck's id for an ident line libgit2 cannot parse, or None.

    libgit2 needs a ``<`` and, after the last one, a ``>``; git fsck (``fsck_ident``) calls
    a line with no ``<`` ``missingEmail``, one whose first bracket is ``>`` ``badName`` and
    one with no ``>`` after the ``<`` ``badEmail``.
    """
    start = line.rfind(b"<")
    if start >= 0 and line.rfind(b">") > start:
        return None
    brackets = re.search(rb"[<>]", line)
    if start < 0:
        return "missingEmail"
    return "badName" if brackets is not None and brackets.group() == b">" else "badEmail"


def _shown(line: bytes) -> str:
    """Return a header line for a message: decoded (bad bytes replaced), at most 60 chars."""
    text = line.decode("utf-8", "replace")
    return text if len(text) <= 60 else text[:59] + "…"


def subject(raw: bytes) -> str:
    """Return a commit's first message line from its bytes (at most 60 characters).

    Args:
        raw: the commit object's bytes.

    Returns:
        The line (UTF-8, undecodable bytes replaced), or ``no message``.
    """
    return first_line(raw.partition(b"\n\n")[2])


def first_line(message: bytes) -> str:
    """Return a commit message's first line as a finding names it (at most 60 characters).

    From bytes: pygit2's ``commit.message`` decodes with the commit's ``encoding`` header,
    where git writes any name (``VISCII``: LookupError), and an empty message has no first
    line (reviewer r82 F1).

    Args:
        message: the message bytes (``commit.raw_message``, or what follows the headers).

    Returns:
        The line (UTF-8, undecodable bytes replaced), or ``no message``.
    """
    lines = message.decode("utf-8", "replace").splitlines()
    return lines[0][:60] if lines and lines[0] else "no message"
