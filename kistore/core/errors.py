"""Every exception kistore raises.

One root, :class:`KistoreError`, and three families by who is at fault:

* :class:`InputError` -- the caller's bytes or arguments are wrong (bad JSON, a manifest
  that fails its schema, an unknown or ambiguous reference).
* :class:`VerificationError` -- stored bytes or signatures do not check out.
* :class:`StoreStateError` -- the repository is not in a state that allows the operation
  (no store here, a concurrent writer won the race too often, a metadata conflict).
* :class:`InstallationError` -- kistore itself is broken where it runs (a schema file that
  is damaged, a dependency that is missing): nothing the input can fix; exit code 2.

Each error carries its fields (``file``, ``pointer``, ``line``, ``column``) and builds its
message from them as ``FILE[:LINE:COL]:/json/pointer: message``, the one-line form the CLI
prints. An error may bundle several problems (``problems``): the CLI prints one line each.

This module imports nothing of kistore.
"""

from __future__ import annotations

import copy
from typing import Any


class KistoreError(Exception):
    """Root of every kistore error.

    Args:
        message: what is wrong and, where known, what to do about it.
        file: the file (or ``-`` for stdin, or a store path) the problem is in.
        pointer: RFC 6901 JSON Pointer of the offending value, ``""`` for the whole document.
        line: 1-based line in the file's text, when the problem has a place in the text.
        column: 1-based column (in characters) on that line.
        rule_id: the id of the rule whose check raised it (``KI226``), where one did.
    """

    exit_code = 1
    """The command line's exit status for this error (1: invalid input or verification)."""

    origin: Any = None
    """Where an add placed this problem: the ``origins`` value of its manifest
    (:func:`kistore.store.admission.locate`), else None. An import gives each manifest its
    records there, so that a refusal is told at the source record and, under
    ``--skip-invalid``, that record is left out (:mod:`kistore.importers._refused`)."""

    rule_id: str | None = None
    """The id of the rule whose check raised this problem (``KI226``), else None. An import
    reads who is at fault from it (:data:`kistore.core.findings.NOT_THE_VALUES`): the
    source's record, the store's state or kistore's own files, each with its advice."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        pointer: str | None = None,
        line: int | None = None,
        column: int | None = None,
        rule_id: str | None = None,
    ) -> None:
        self.message = message
        if rule_id is not None:
            self.rule_id = rule_id
        self.file = file
        self.pointer = pointer
        self.line = line
        self.column = column
        super().__init__(self.format())

    @property
    def problems(self) -> list[KistoreError]:
        """The individual problems this error stands for (itself, unless it bundles many)."""
        return [self]

    def format(self) -> str:
        """Return the one-line form ``FILE[:LINE:COL]:/pointer: message``.

        Control characters (from keys, values or file names in the input) are written as
        escapes: an error message must not drive the reader's terminal.
        """
        where = []
        if self.file is not None:
            place = one_line(self.file)  # a newline in a path would split FILE:LINE:COL
            if self.line is not None:
                place += f":{self.line}:{self.column or 1}"
            where.append(place)
        if self.pointer:  # the root pointer "" adds nothing to the file name
            where.append(one_line(self.pointer))
        line = ":".join(where + [" " + self.message]) if where else self.message
        return printable(line)


_CONTROL_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))
                    if c != 0x0A}
"""C0 controls but newline, DEL and C1 controls -> ``\\xNN``."""


_ESCAPED_LINE_ESCAPES = {**_CONTROL_ESCAPES, 0x0A: "\\n",
                         **{c: f"\\u{c:04x}" for c in (0x061C, 0x200E, 0x200F, 0x2028, 0x2029,
                                                         *range(0x202A, 0x202F),
                                                         *range(0x2066, 0x206A))}}
"""As :data:`_CONTROL_ESCAPES`, and newline, U+2028 LINE SEPARATOR and U+2029 PARAGRAPH
SEPARATOR (line breaks to Unicode and to :meth:`str.splitlines`, which prose may hold), and
every bidirectional control prose may not hold (:data:`kistore.core.text_fields._NOT_PROSE`):
the marks U+061C, U+200E, U+200F, the embeddings and overrides U+202A-U+202E, the isolates
U+2066-U+2069."""

_LINE_ESCAPES = {**_ESCAPED_LINE_ESCAPES, ord("\\"): "\\\\"}
"""As :data:`_ESCAPED_LINE_ESCAPES`, and a backslash -> two: the escapes are then the only
single backslashes, and the escaping is injective."""


def one_line(text: str, *, escaped: bool = False) -> str:
    """Return a value from a manifest safe to print as part of one line of a terminal page.

    As :func:`printable`, and a newline or U+2028/U+2029 (a title holding one could print
    a fake "evidence level: verified" line under it) and the Unicode bidirectional controls
    (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, which reorder the text around
    them) are escaped too, as ``\\u202e``; and a backslash as two (``\\\\``), so that the
    escapes are the only backslashes printed: a title holding the two characters ``\\n``
    prints ``\\\\n``, one holding a line feed ``\\n`` (text84 leftover). Two different
    texts (without lone surrogates: no manifest string holds one, the parser refuses
    them) never print alike.

    Args:
        text: one line of ``show``/``compare`` output, built from manifest values.
        escaped: ``text`` already writes its values in a notation whose backslashes are
            escapes (JSON, ``repr``): its backslashes are left as they are (doubling them
            would print ``\\\\n`` for JSON's ``\\n``).

    Returns:
        ``text`` itself when it holds none of them, else the escaped form.
    """
    return printable(text.translate(_ESCAPED_LINE_ESCAPES if escaped else _LINE_ESCAPES))


def with_article(word: str) -> str:
    """Return ``word`` after its indefinite article: ``an ExecutionEnvironment``, ``a Workload``.

    Args:
        word: a kind name (or any word whose first letter decides the article).

    Returns:
        ``"an WORD"`` before a vowel letter, else ``"a WORD"``.
    """
    return f"{'an' if word[:1] in 'AEIOUaeiou' else 'a'} {word}"


def not_text(value: str) -> bool:
    """Whether ``value`` holds a surrogate escape (a byte that is not UTF-8), not text.

    A name git holds as bytes (a ref ``refs/heads/caf<0xE9>``, a remote, a path) reaches
    Python decoded with ``surrogateescape``: pygit2 cannot take it back
    (:mod:`kistore.git.names`), and JSON cannot say it (:meth:`kistore.core.findings.Finding.
    to_json`'s ``KEY_hex``).

    Args:
        value: any string.

    Returns:
        True when it cannot be encoded as UTF-8. Raises nothing.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def printable(text: str) -> str:
    """Return ``text`` safe to write to a terminal: controls and non-UTF-8 bytes as escapes.

    A file name may hold control characters (ESC sequences that recolour, move the cursor or
    retitle the reader's terminal) or bytes that are not UTF-8 (they reach Python as
    surrogate escapes, byte 0xFF as U+DCFF, and printed as is raised UnicodeEncodeError in
    ``kistore ls`` and ``verify``). C0 controls but newline, DEL and C1 controls are
    written as backslash, ``x`` and two hex digits; a non-UTF-8 byte likewise; any other
    lone surrogate as backslash, ``u`` and four.

    Args:
        text: a message, a path, a finding's line.

    Returns:
        ``text`` itself when it has neither, else the escaped form.
    """
    text = text.translate(_CONTROL_ESCAPES)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file name makes (e.g. from a JSON escape)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


QUOTE_WIDTH = 80
"""Most characters of a value an error message quotes (a 5,000-digit integer was echoed)."""


def shorten(text: str, width: int = QUOTE_WIDTH, *, length: int | None = None) -> str:
    """Return ``text`` for quoting in a message: whole, or cut to about ``width`` characters.

    Args:
        text: the value as it would be quoted (e.g. its ``repr`` or JSON text).
        width: most characters kept whole.
        length: the value's own length, said when it is cut; default ``len(text)``. Give it
            for a quoted value: ``repr`` of 254 letters is 256 characters with its quotes
            (reviewer r85 F1).

    Returns:
        ``text`` when at most ``width`` characters; else its first ``width - 24`` characters,
        ``...`` and how long it was (``1234567... (5,000 characters)``).
    """
    if len(text) <= width:
        return text
    return f"{text[:width - 24]}... ({len(text) if length is None else length:,} characters)"


class InputError(KistoreError):
    """The caller's input is wrong: fix the file or the arguments and retry."""


class AdvisedError(InputError):
    """An input error whose advice to the value's author is kept apart from the problem.

    Args:
        message: what is wrong (:attr:`problem`).
        advice: what the value's author can write instead (:attr:`advice`), said after
            ``; ``; ``""`` for none. An import leaves it out: the value is a source's
            record's, not the person's to rewrite (:mod:`kistore.importers`, fresh01 F1:
            "write it in a larger unit" was said of a third party's latency).
        **where: ``file``, ``pointer``, ``line``, ``column`` as :class:`KistoreError`.
    """

    def __init__(self, message: str, *, advice: str = "", **where: Any) -> None:
        self.problem, self.advice = message, advice
        super().__init__(f"{message}; {advice}" if advice else message, **where)


class ParseError(AdvisedError):
    """Bytes that are not strict JSON as kistore accepts it (see :mod:`kistore.core.canonical`)."""

    number_at: str | None = None
    """For ``NaN``/``Infinity`` where a manifest's schema takes a number and also null or
    nothing: the value's JSON Pointer in its manifest (``/spec/sourceNative/metrics/x``),
    so that a ranking policy ranking runs by it can say "a number" only
    (:func:`kistore.query.policy.ranked_number_advice`)."""


class TrailingDataError(ParseError):
    """More text after one whole JSON value (two manifests in a file meant to hold one).

    Its own class so that a reader of several kinds of input (:mod:`kistore.store.inputs`) can
    say what is right where it was found: a bundle or a ``.jsonl`` name for a file, one
    manifest a line for JSON Lines.
    """


class EncodingError(ParseError):
    """Bytes that are not UTF-8: which byte, at which byte offset, and what to do.

    Args:
        byte: the first byte that does not decode (0-255).
        offset: its 0-based byte offset in the file.
        fix: what to do about it (e.g. re-encode the file as UTF-8).
        file, pointer, line, column: where, as for :class:`KistoreError`.

    A reader that parses a file a line at a time (JSON Lines) moves the offset from the
    line's to the file's with :meth:`in_line`.
    """

    def __init__(self, byte: int, offset: int, fix: str, *, file: str | None = None,
                 pointer: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.byte = byte
        self.offset = offset
        self.fix = fix
        self.line_offset: int | None = None
        self.line_number: int | None = None
        super().__init__(self._describe(), file=file, pointer=pointer, line=line,
                         column=column)

    def _describe(self) -> str:
        place = f"byte offset {self.offset}"
        if self.line_offset is not None:
            place += f" of the file (byte {self.line_offset} of line {self.line_number})"
        return f"invalid UTF-8 byte 0x{self.byte:02x} at {place}; {self.fix}"

    def in_line(self, number: int, line_start: int) -> None:
        """Say where the byte is in the file, for bytes that were line ``number`` alone.

        Args:
            number: the 1-based line number.
            line_start: the byte offset in the file where that line begins.
        """
        if self.line_offset is None:
            self.line_offset, self.line_number = self.offset, number
            self.offset += line_start
        self.message = self._describe()
        self.args = (self.format(),)


class CanonicalFormError(AdvisedError):
    """A JSON value that has no RFC 8785 canonical form kistore will produce."""


class MeantError(InputError):
    """An input error a "did you mean" may follow, said before the error's own advice.

    The message is formed from its parts (:attr:`message`): what is wrong, then the
    suggestion (:meth:`suggest`) when one is found, then the advice, ``else ADVICE`` after
    a suggestion (reviewer r91 F2: the did-you-mean first; the store used to cut the advice
    off the message's text and append it again).

    Args:
        message: what is wrong, without the advice.
        advice: what to do when nothing stored is meant (``add them first, or pass
            --allow-dangling ...``); ``""`` for none.
        **where: ``file``, ``pointer``, ``line``, ``column`` as :class:`KistoreError`.
    """

    def __init__(self, message: str, *, advice: str = "", **where: Any) -> None:
        self.problem, self.advice, self.meant = message, advice, ""
        super().__init__(message, **where)

    @property
    def message(self) -> str:
        """The problem; the suggestion; the advice (``else`` after one): formed, not kept."""
        advice = f"else {self.advice}" if self.meant and self.advice else self.advice
        return "; ".join(part for part in (self.problem, self.meant, advice) if part)

    @message.setter
    def message(self, problem: str) -> None:
        """Set by :class:`KistoreError`'s constructor: the problem (the parts say the rest)."""
        self.problem = problem

    def suggest(self, meant: str) -> None:
        """Say ``meant`` (a "did you mean ...?") after the problem and before the advice.

        Args:
            meant: the suggestion's text, without a leading ``"; "``.
        """
        self.meant = meant
        self.args = (self.format(),)


class SchemaError(MeantError):
    """A manifest that does not validate against the JSON Schema of its kind."""

    written: tuple[str, str] | None = None
    """``(field, text)`` when a run's reference field (``workloadDigest``) holds text that is
    no digest (``sha256:134b31b5``, ``Workload/NAME``): the store may say which stored
    manifest it likely means (:meth:`kistore.store.Store.meant_references`)."""


class ResolutionError(MeantError):
    """A digest reference that does not resolve, or a prefix that is ambiguous."""

    missing: tuple[tuple[str, str], ...] = ()
    """``(field, sha256:<hex>)`` per reference of a run nothing holds (a dangling reference
    refused): the store may say which stored manifest each likely means
    (:meth:`MeantError.suggest`, before the error's ``advice``)."""


class VerificationError(KistoreError):
    """Stored bytes, digests or signatures that do not check out."""


class StoreStateError(KistoreError):
    """The repository is not in a state that allows the operation."""


class InstallationError(KistoreError):
    """kistore's own files or dependencies are broken where it runs: reinstall it.

    A schema ``$ref`` that resolves to nothing, a schema file that is not JSON, or a
    declared dependency (``rfc3339-validator``) that cannot be imported. Validation fails
    closed: nothing is accepted unchecked. Exit code 2, as a usage error: no input is at
    fault.
    """

    exit_code = 2


class UnansweredError(KistoreError):
    """A question asked on the terminal got no answer: end of input (Ctrl-D) at the prompt.

    Exit code 2, as a usage error: nothing was wrong with the input, it was not given
    (click said only "Aborted!", exit 1: msg95 2).
    """

    exit_code = 2


class ConflictError(StoreStateError):
    """The operation would overwrite something that must not change silently."""


class MetadataConflictError(ConflictError):
    """A conflict that replacing stored metadata resolves, when that is what the caller means.

    An object already stored with other metadata, or a name held by manifests not yet
    committed. ``Store.add(update_metadata=True)`` replaces the metadata (a committed name
    still never moves). The message names no option: each command line adds its own.
    """


def with_fix(error: KistoreError, fix: str) -> KistoreError:
    """Return a copy of ``error`` (same class, place and fields) whose message ends with ``fix``.

    Args:
        error: one problem (not a :class:`MultipleErrors`).
        fix: what to do, a clause in lower case, no final period; joined with ``"; "``.
    """
    fixed = copy.copy(error)
    fixed.message = f"{error.message}; {fix}"
    fixed.args = (fixed.format(),)
    return fixed


class MultipleErrors(KistoreError):
    """Several independent problems found in one operation; nothing was written.

    Args:
        errors: the problems, in the order found. Must not be empty.
    """

    def __init__(self, errors: list[KistoreError]) -> None:
        if not errors:
            raise ValueError("MultipleErrors needs at least one error")
        self.errors = [p for e in errors for p in e.problems]
        super().__init__(f"{len(self.errors)} problem(s)")

    @property
    def problems(self) -> list[KistoreError]:
        """Each bundled problem, flattened."""
        return list(self.errors)

    def format(self) -> str:
        """Return one line per problem."""
        return "\n".join(e.format() for e in getattr(self, "errors", []))
