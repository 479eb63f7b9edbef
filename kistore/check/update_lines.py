"""The ref update lines ``check --updates`` reads: ``OLD NEW REF``, as git hands a hook them.

git gives ``pre-receive`` one line a ref on stdin, ``<old-value> SP <new-value> SP
<ref-name> LF`` (githooks(5)); kistore's ``pre-push`` hook writes git's ``pre-push`` lines
in that order. The three fields are bytes: git takes a ref name of any bytes
``git check-ref-format`` allows, so a branch ``refs/heads/x<0xFF>`` is pushed as it is
(last96: read as UTF-8 text, such a line stopped every push with an internal error).

* A ref name is taken as pygit2 names refs: UTF-8, a byte that is not UTF-8 as a
  surrogate escape (byte 0xFF as U+DCFF), so the gate looks the ref up and judges it as
  any other; messages print the byte escaped (``\\xff``,
  :func:`kistore.core.errors.printable`).
* An object id is 40 hex digits (SHA-1) or 64 (SHA-256), all zeros for none (a ref
  created: OLD; deleted: NEW); the repository's hash decides which
  (:func:`same_width`). Read in lowercase, as git writes it.
* A ref name starts with ``refs/``: git resolves what a push names (``main``,
  ``HEAD:main``) to a full name before any hook runs, and ``receive-pack`` refuses any
  other ("funny refname"), so a line naming ``main`` is not git's. It also keeps
  git-check-ref-format(1)'s rules (:func:`ref_format_problem`): ``receive-pack`` refuses
  ``refs/heads//main``, ``refs/heads/../main`` or ``refs/heads/x.lock`` before its hooks
  run, so such a line is no push git makes (last97 4: they were judged and passed).
* git's ``pre-push`` hook is handed four fields, ``LOCAL_REF LOCAL_SHA REMOTE_REF
  REMOTE_SHA`` (githooks(5)); a line of four is refused saying how to give one
  (``REMOTE_SHA LOCAL_SHA REMOTE_REF``, what ``hooks/pre-push`` writes).

Anything else is the caller's mistake, said with the line's number and what was
expected (:class:`UpdateLineError`; ``check`` exits 2). Blank lines are skipped (a
trailing one, a hand-written list), and fields may be split by any ASCII white space (a
CRLF line end).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from ..core.errors import QUOTE_WIDTH, InputError, one_line

_ID = re.compile(rb"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")
"""An object id as a hook line gives it: SHA-1's 40 hex digits or SHA-256's 64."""

REFS = "refs/"
"""What every full ref name starts with (git-check-ref-format(1))."""

FORM = "'OLD NEW REF' (two object ids and a full ref name, as git gives a pre-receive hook)"
"""What a line must be, as the errors say it."""


class UpdateLineError(InputError):
    """A ``check --updates`` line that is not ``OLD NEW REF`` as git writes one (exit 2).

    Args:
        number: the line's number (1-based, blank lines counted).
        why: what is wrong and what was expected.
    """

    exit_code = 2

    def __init__(self, number: int, why: str) -> None:
        self.number = number
        super().__init__(f"--updates line {number}: {why}")


class UpdateLine(NamedTuple):
    """One ref update read from a line.

    Attributes:
        number: the line's number (1-based).
        old: the ref's value before (lowercase hex; all zeros: the push creates it).
        new: its value after (all zeros: the push deletes it).
        ref: the full ref name (a byte that is not UTF-8 as a surrogate escape).
    """

    number: int
    old: str
    new: str
    ref: str

    @property
    def update(self) -> tuple[str, str, str]:
        """``(old, new, ref)``, as :func:`kistore.check.gate.check_updates` takes it."""
        return self.old, self.new, self.ref


def read_updates(lines: Iterable[bytes]) -> list[UpdateLine]:
    """Read ``OLD NEW REF`` lines (each the bytes of one line, its end included or not).

    Args:
        lines: the input's lines, as a binary file yields them.

    Returns:
        One :class:`UpdateLine` a line that is not blank, in order.

    Raises:
        UpdateLineError: the first line that has not three fields, an id that is not 40
            or 64 hex digits, or a ref name outside ``refs/``; naming the line's number
            and the field, escaped and cut to a quotable length.
    """
    read = []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise UpdateLineError(number, f"{_said(line.strip(), LINE_WIDTH)} has "
                                          f"{len(fields)} field(s); expected {FORM}"
                                          + (PRE_PUSH if len(fields) == 4 else ""))
        old, new = (_object_id(number, name, value)
                    for name, value in (("OLD", fields[0]), ("NEW", fields[1])))
        ref = fields[2].decode("utf-8", "surrogateescape")  # as pygit2 names refs
        if ref == REFS:
            raise UpdateLineError(number, f"REF {_said(fields[2])} names no ref after "
                                          f"{REFS}: expected a full ref name (refs/heads/main)")
        if not ref.startswith(REFS):
            raise UpdateLineError(number, f"REF {_said(fields[2])} is not a full ref name: "
                                          f"expected one starting with {REFS} (refs/heads/"
                                          "main; git resolves what a push names before its "
                                          "hooks run)")
        problem = ref_format_problem(fields[2])
        if problem is not None:
            raise UpdateLineError(number, f"REF {_said(fields[2])} is no ref name git hands "
                                          f"a hook: {problem} (git check-ref-format; "
                                          "receive-pack refuses such a name before its "
                                          "hooks run)")
        read.append(UpdateLine(number, old, new, ref))
    return read


PRE_PUSH = ("; git hands a pre-push hook 4 (LOCAL_REF LOCAL_SHA REMOTE_REF REMOTE_SHA): "
            "give each as 'REMOTE_SHA LOCAL_SHA REMOTE_REF', as hooks/pre-push does "
            "(`while read -r _ l r o; do echo \"$o $l $r\"; done | kistore check --updates - "
            "--remote \"$1\"`)")
"""How to give a pre-push line, said of a line of four fields (last97 4: check --help's
pre-push example fed git's lines as they come, and every push was refused)."""

_FORBIDDEN = {
    "~": "a '~'", "^": "a '^'", ":": "a ':'", "?": "a '?'", "*": "a '*'", "[": "a '['",
    "\\": "a backslash",
}
"""Characters git-check-ref-format(1) allows nowhere in a ref name (rules 4, 5 and 10),
with how a message names each."""


def ref_format_problem(ref: bytes) -> str | None:
    """Say why ``ref`` breaks git-check-ref-format(1)'s rules, or None when it keeps them.

    The rules (git 2.39's ``refs.c`` ``check_refname_component``): no component empty
    (``//``, a leading or trailing ``/``), starting with ``.`` or ending with ``.lock``; no
    ``..`` nor ``@{`` anywhere; no ASCII control character (below 0x20, or 0x7F), space,
    ``~ ^ : ? * [`` or backslash; not ending with ``.``. A byte of 0x80 or above is allowed
    (a name need not be UTF-8).

    Args:
        ref: a full ref name as the line gives it (bytes, ``refs/`` first).

    Returns:
        The first rule broken, said for people (``an empty component ('//')``,
        ``a component ending with '.lock' ('x.lock')``...), or None.
    """
    text = ref.decode("utf-8", "surrogateescape")
    for char in text:
        if ord(char) < 0x20 or ord(char) == 0x7F:
            return f"a control character ({one_line(char)})"
        if char in _FORBIDDEN or char == " ":
            return _FORBIDDEN.get(char, "a space")
    if ".." in text:
        return "'..'"
    if "@{" in text:
        return "'@{'"
    if text.endswith("/"):
        return "a '/' at its end"
    if text.endswith("."):
        return "a '.' at its end"
    for component in text.split("/"):
        if not component:
            return "an empty component ('//')"
        if component.startswith("."):
            return f"a component starting with '.' ('{one_line(component)}')"
        if component.endswith(".lock"):
            return f"a component ending with '.lock' ('{one_line(component)}')"
    return None


def same_width(updates: Iterable[UpdateLine], width: int) -> None:
    """Refuse an object id of the other hash function than the repository's.

    Args:
        updates: :func:`read_updates`'s lines.
        width: the repository's ids' hex digits (40: SHA-1, 64: SHA-256,
            :func:`hex_width`).

    Raises:
        UpdateLineError: the first id of another width, naming its line and the
            repository's hash.
    """
    for update in updates:
        for name, value in (("OLD", update.old), ("NEW", update.new)):
            if len(value) != width:
                raise UpdateLineError(
                    update.number, f"{name} {value} is {len(value)} hex digits, a "
                    f"{_HASHES[len(value)]} id, while this repository's ids are "
                    f"{_HASHES[width]}'s ({width} hex digits)")


_HASHES = {40: "SHA-1", 64: "SHA-256"}
"""git's hash functions by their ids' hex digits."""


def hex_width(object_format: str) -> int:
    """Return the hex digits of an id under ``object_format`` (``sha1``: 40, ``sha256``: 64).

    Args:
        object_format: :func:`kistore.git.packs.object_format`'s answer.

    Returns:
        40 or 64. Raises nothing.
    """
    return 64 if object_format == "sha256" else 40


def _object_id(number: int, name: str, value: bytes) -> str:
    """Return ``value`` as a lowercase id, or raise :class:`UpdateLineError` naming ``name``."""
    if not _ID.fullmatch(value):
        raise UpdateLineError(number, f"{name} {_said(value)} is not an object id: expected "
                                      "40 hex digits (64 in a SHA-256 repository), all zeros "
                                      "for none (a ref created or deleted)")
    return value.decode("ascii").lower()


LINE_WIDTH = 2 * QUOTE_WIDTH
"""Most characters of a whole line quoted (two ids and a ref name are some 100)."""


def _said(value: bytes, width: int = QUOTE_WIDTH) -> str:
    """Return ``value`` quoted for a message, escaped and cut (a 5 MB line is no message).

    :func:`kistore.core.errors.one_line`: a byte that is not UTF-8 as ``\\xff``, a control
    character as ``\\x1b``, a backslash doubled; past ``width`` characters, the first ones
    quoted, then how many there were.
    """
    text = one_line(value.decode("utf-8", "surrogateescape"))
    if len(text) <= width:
        return f"'{text}'"
    return f"'{text[:width - 24]}'... ({len(text):,} characters)"
