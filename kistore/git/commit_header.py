"""A commit object's header lines as git writes them, read from its raw bytes.

git writes a commit as ``tree``, ``parent`` lines, ``author``, ``committer``, optional
headers, a blank line and the message (git's ``commit_tree``; checked by ``git fsck``'s
``fsck_commit``). Other tools can write anything (``git hash-object -t commit --literally``),
and a push carries such a commit as it is. libgit2, which kistore reads history with,
refuses some: a commit with no ``author`` line, or ``committer`` before ``author`` (git
fsck ``missingAuthor``), stopped ``check BASE..HEAD`` with "no commit named 'pr'" and
pre-receive with "internal error (InvalidError: failed to parse signature)", and once in
a history ``verify``, ``export`` and ``site build`` with an internal error (reviewer r82
F1); so did an author or committer date of 20 digits (git fsck ``badDateOverflow``,
reviewer r84 F4). :func:`commit_fault` names what is wrong from the bytes, before libgit2
reads them.

This module is the one reader of a commit's raw header (:func:`header`): the gate's
KI225 and KI428 and the history walks of :mod:`kistore.git.blobs` take their lines, tree
and parents from it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple


class Header(NamedTuple):
    """A commit object's header lines, split as git's ``parse_commit_buffer`` reads them.

    The one reader of a commit's raw header: the gate's KI225 (:func:`commit_fault`),
    KI428's date lines (:mod:`kistore.check._dates`) and the history walks of
    :mod:`kistore.git.blobs` (its tree and parents) all take it from :func:`header`.

    Attributes:
        lines: the header lines, without their line ends (up to the blank line before
            the message; or up to the end, the last line end dropped, in a commit of
            headers only).
        terminated: the last header line ends in a line end (git fsck refuses one that
            does not: ``unterminatedHeader``).
        message: the bytes after the blank line (``b""`` when there is none).
    """

    lines: tuple[bytes, ...]
    terminated: bool
    message: bytes

    @property
    def tree(self) -> str | None:
        """The root tree's id (40 hex digits), or None when line 1 is not ``tree <id>``."""
        found = _TREE.fullmatch(self.lines[0])
        return found.group(1).decode() if found is not None else None

    @property
    def parents(self) -> tuple[str, ...]:
        """The ids of the ``parent <id>`` lines right after the tree line, in order.

        Those git and libgit2 read as parents; a ``parent`` line later among the headers
        (or in the message) is none. A malformed one ends the list
        (:func:`commit_fault` names it: ``badParentSha1``).
        """
        found = []
        for line in self.lines[1:]:
            parent = _PARENT.fullmatch(line)
            if parent is None:
                break
            found.append(parent.group(1).decode())
        return tuple(found)


def header(raw: bytes) -> Header:
    """Return a commit's header lines and message, split from its bytes.

    Args:
        raw: the commit object's bytes (without git's ``commit <size>\\0`` header).

    Returns:
        The :class:`Header` (any bytes split: whether they are as git writes them is
        :func:`commit_fault`'s).
    """
    head, blank, message = raw.partition(b"\n\n")
    terminated = bool(blank) or raw.endswith(b"\n")
    if not blank and terminated:
        head = raw[:-1]
    return Header(tuple(head.split(b"\n")), terminated, message)


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


_OID = rb"([0-9a-f]{40})"
_TREE = re.compile(rb"tree " + _OID)
_PARENT = re.compile(rb"parent " + _OID)


def commit_fault(raw: bytes | Header) -> Fault | None:
    """Return what libgit2 cannot parse, or git fsck refuses, in a commit's header lines.

    Checked in about git fsck's order (``verify_headers``, ``fsck_commit``): a NUL byte in
    the headers (``nulInHeader``), the first line ``tree <40 hex>``
    (``missingTree``, ``badTreeSha1``), each ``parent`` line (``badParentSha1``), then at
    least one ``author`` line (``missingAuthor``: none, or ``committer`` first) and a
    ``committer`` line after them (``missingCommitter``), each with an e-mail in ``<>``
    (``missingEmail``, ``badEmail``, ``badName``: libgit2 needs a ``<`` and a later
    ``>``) and a date libgit2 reads (``badDateOverflow``: more than a signed 64-bit
    number holds, reviewer r84 F4; ``badDate``: no digits where it reads one), and the
    last header line ending without a line end (``unterminatedHeader``: libgit2 parses
    it unless that line is the committer's). Other date shapes libgit2 reads (a leading
    zero, no time zone, a second author or committer line) are
    :mod:`kistore.check._dates`' (KI428), not judged here. A commit of headers only,
    ending in a line end (no blank line, no message), is as git fsck accepts it: no
    fault. A ``parent`` line naming a tree or blob is not seen in the bytes: the walks of
    :mod:`kistore.git.blobs` name it.

    Args:
        raw: the commit object's bytes (without git's ``commit <size>\\0`` header), or
            its :func:`header`.

    Returns:
        The first fault found, or None when the headers are as git writes them.
    """
    split = raw if isinstance(raw, Header) else header(raw)
    if any(b"\0" in line for line in split.lines):
        return Fault("a NUL byte in its header lines", "nulInHeader", False)
    lines = split.lines
    if split.tree is None:
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
        bad = _ident_fault(lines[at], "author", at)
        if bad is not None:
            return bad
        at += 1
    missing = _missing(lines, at, "committer", "author line", "missingCommitter")
    if missing is not None:
        return missing
    bad = _ident_fault(lines[at], "committer", at)
    if bad is not None:
        return bad
    if not split.terminated:  # libgit2 needs the committer line's line end, not a later one's
        return Fault("its last header line has no line end (and there is no blank line "
                     "before a message)", "unterminatedHeader", at == len(lines) - 1)
    return None


def _missing(lines: Sequence[bytes], at: int, who: str, after: str, fsck: str) -> Fault | None:
    """Return the fault of no ``who`` line at ``lines[at]`` (after ``after``), or None."""
    if at < len(lines) and lines[at].startswith(f"{who} ".encode()):
        return None
    found = "nothing" if at == len(lines) else f"`{_shown(lines[at])}`"
    return Fault(f"it has no {who} line after its {after} ({found} there), where git "
                 f"writes `{who} NAME <EMAIL> SECONDS +ZONE`", fsck, True)


def _ident_fault(line: bytes, who: str, at: int) -> Fault | None:
    """Return the fault of an author or committer line libgit2 cannot parse, or None.

    Args:
        line: the header line (``author ...``).
        who: its keyword, ``author`` or ``committer``.
        at: its index among the header lines (0: the tree line).
    """
    bad = _email_fault(line)
    if bad is not None:
        return Fault(f"its {who} line (line {at + 1}) has no e-mail in `<>`", bad, True)
    date = _date_fault(line)
    if date is not None:
        return Fault(f"its {who} line (line {at + 1}) has a date libgit2 cannot read "
                     f"(`{_shown(line[line.rfind(b'>') + 1:].strip())}`): {date[0]}",
                     date[1], True)
    return None


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


_INT64 = 1 << 63
"""libgit2 reads a date into a signed 64-bit number (``git__strntol64``)."""

_SPACE = b" \t\v\f\r"
"""What libgit2's number parser skips before a date (``git__isspace``; no line end here)."""


def _date_fault(line: bytes) -> tuple[str, str] | None:
    """Return (what is wrong, git fsck's id) of an ident line's date libgit2 refuses, or None.

    libgit2 (``git_signature__parse``) reads the date from the second byte after the last
    ``>`` (nothing there: date 0) with ``git__strntol64``: spaces, a sign, then decimal
    digits. No digit is its "invalid Unix timestamp" (git fsck ``badDate``), and so is a
    number past a signed 64-bit one (``badDateOverflow``; git's fsck refuses one past
    2^63 - 1 s too, and any ``-``). A commit holding either fails every libgit2 lookup and
    walk through it (reviewer r84 F4).
    """
    start = line.rfind(b">") + 2
    if start >= len(line):
        return None
    number = re.match(rb"[+-]?([0-9]*)", line[start:].lstrip(_SPACE))
    assert number is not None  # the pattern matches the empty string
    if not number.group(1):
        return "no number where a date in seconds since the epoch goes", "badDate"
    value = int(number.group())
    if not -_INT64 <= value < _INT64:
        return (f"past {_INT64 - 1} s since the epoch, the most a signed 64-bit number "
                "holds", "badDateOverflow")
    return None


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
    return first_line(header(raw).message)


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
