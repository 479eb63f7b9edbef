"""The ``.gitattributes`` guard: stored bytes are hashed bytes, so git must never convert them.

An object file's SHA-256 is its name only while git writes it back byte for byte. A
``.gitattributes`` line ``store/** -text -eol -filter -ident -working-tree-encoding`` turns
off every conversion (end of line, filters, encodings); a later line that sets one again
for paths under ``store/`` wins, since git applies the last matching line. Pure; no I/O:
``kistore verify`` (:mod:`kistore.check.audit`) and ``add --commit``
(:mod:`kistore.store`) both read the file and ask here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from .findings import ERROR, Finding, rule
from .layout import GITATTRIBUTES_LINE

__all__ = ["GITATTRIBUTES_LINE", "GITATTRIBUTES_MISSING", "INFO_ATTRIBUTES",
           "INFO_ATTRIBUTES_CONVERT", "check_gitattributes", "check_info_attributes",
           "not_regular_gitattributes"]

GITATTRIBUTES_MISSING = rule(
    "KI113", "gitattributes-missing", ERROR,
    f"add the line `{GITATTRIBUTES_LINE}` to .gitattributes (`kistore init .` writes it)")
INFO_ATTRIBUTES_CONVERT = rule(
    "KI116", "info-attributes-convert", ERROR,
    "remove the line from .git/info/attributes (this repository's own attributes, never "
    "committed, which win over .gitattributes), then restore the converted files: `git "
    "checkout -- store/` (`git add --renormalize store/` first if they were staged)")

INFO_ATTRIBUTES = ".git/info/attributes"
"""How findings name the clone's own attributes file (``$GIT_COMMON_DIR/info/attributes``)."""


def not_regular_gitattributes(kind: str) -> Finding:
    """Return KI113 for a work tree whose top ``.gitattributes`` is not a regular file.

    One finding, whichever check sees it first (``verify``'s read of the file and its
    work-tree status both do: fresh14 F3 had two), with its own fix: the line is not to be
    added to it, the committed file is to be put back (``git checkout`` writes over a FIFO).

    Args:
        kind: what it is (``a FIFO``, ``a directory``, ...).

    Returns:
        The finding. Raises nothing.
    """
    return Finding(GITATTRIBUTES_MISSING, f"not a regular file ({kind}): git cannot read it, "
                   "and `git status` waits on a FIFO for ever; what the work tree changes in "
                   "committed objects was not checked", file=".gitattributes",
                   expected="a regular file", found=kind,
                   fix="put the store's .gitattributes back: `git checkout HEAD -- "
                   ".gitattributes` (a directory there: `rm -r .gitattributes` first)")


def check_gitattributes(data: bytes | None) -> list[Finding]:
    """Check that ``.gitattributes`` turns off every conversion under ``store/`` (docs/rules.md).

    Args:
        data: the bytes of the repository's top-level ``.gitattributes``, None when absent.

    Returns:
        KI113 when no line ``store/** ...`` unsets ``text``, ``eol`` and ``filter`` as git
        reads the committed file (a C-quoted ``"store/**"`` counts, and ``/store/**``; a
        line 1 starting with a byte order mark or a line of 2,048 bytes or more does not), or
        when a later line that may match paths under ``store/`` sets a converting attribute
        again (git applies the last matching line: ``store/objects/** working-tree-encoding=
        UTF-16`` would re-encode every object in new clones). A pattern may match under
        either of git's case rules: ``STORE/** text`` counts, since git matches it to
        ``store/`` case-insensitively in a clone with ``core.ignorecase=true`` (what ``git
        clone`` sets on macOS and Windows), while the guard line must be ``store/**`` as
        written, to hold on a case-sensitive file system too.
    """
    guarded, missed = None, ""
    for number, raw in enumerate((data or b"").split(b"\n"), 1):
        line = _line_git_reads(raw, number)
        if line is None:
            continue
        if line.guard:
            guarded = number
        missed = missed or line.ignored
        converting = [w for w in line.states if _converts(w)] if line.applies else []
        # Either case rule: a clone on macOS or Windows has core.ignorecase=true (r81 F7)
        if guarded is not None and converting and _may_match_store(line.pattern.lower()):
            where = "" if _may_match_store(line.pattern) else IGNORECASE
            return [Finding(GITATTRIBUTES_MISSING, f"line {number} sets "
                            f"{' '.join(converting)} for {line.pattern} after the store/** "
                            f"line, so git would convert stored bytes{where}",
                            file=".gitattributes",
                            line=number, column=1, expected="no conversion under store/",
                            found=line.text.strip(_BLANK),
                            # the guard line is there (line `guarded`): adding it again
                            # would not help, taking the override out does (fresh14 F3)
                            fix=f"delete line {number} of .gitattributes (the store/** line, "
                            f"line {guarded}, then holds)")]
    if guarded is not None:
        return []
    return [Finding(GITATTRIBUTES_MISSING, "nothing stops end-of-line or filter conversion of "
                    f"store/{f' ({missed})' if missed else ''}", file=".gitattributes",
                    expected=GITATTRIBUTES_LINE,
                    found="no such line git reads" if missed else "no such line")]


def check_info_attributes(data: bytes | None, *, ignorecase: bool = False,
                          macros: Sequence[bytes] = ()) -> list[Finding]:
    """Check that the clone's ``.git/info/attributes`` converts nothing under ``store/``.

    git reads ``$GIT_DIR/info/attributes`` before every ``.gitattributes`` and lets it win
    (gitattributes(5), "the highest precedence"): a line ``store/** text eol=crlf`` or
    ``* filter=lfs`` there converts stored bytes on checkout and ``git add`` whatever the
    committed guard line says (KI113 checks that one), and ``verify`` then blamed the bytes
    (KI101, KI105) or the names files (KI212), not the cause. The file is this clone's
    only: never committed, so never the gate's to see.

    Args:
        data: the file's bytes, None when absent (a UTF-8 byte order mark before line 1
            is skipped, as git skips it reading the file).
        ignorecase: the repository's ``core.ignorecase`` (git's default in a clone on macOS
            or Windows): git then matches patterns case-insensitively, so ``STORE/**``
            converts ``store/`` too (r71 F1).
        macros: the other files whose macro definitions (``[attr]kt text eol=crlf``) git
            honours, lowest precedence first: ``core.attributesFile``, then the top-level
            ``.gitattributes`` (gitattributes(5), "DEFINING MACRO ATTRIBUTES"). Those of
            ``data`` itself win over them, and every one over git's built-in ``binary``.
            A line ``store/** kt`` sets what ``kt`` stands for (r71 F2).

    Returns:
        KI116 for the first line that may match paths under ``store/`` and sets a
        converting attribute (``text``, ``eol``, ``filter``, ``ident``,
        ``working-tree-encoding``, ``crlf``; ``!text`` too; directly or through a macro),
        unless a later ``store/**`` line unsets them all again and sets none (git applies
        the last matching line); else empty.
    """
    # git reads these as files (attr.c ``read_attr_from_file``), skipping a UTF-8 byte
    # order mark before line 1: `\ufeffstore/** text` converts store/ (CI, 2026-12-03)
    data = (data or b"").removeprefix(_BOM.encode())
    defined = _macros([*(m.removeprefix(_BOM.encode()) for m in macros), data])
    found: Finding | None = None
    for number, raw in enumerate(data.split(b"\n"), 1):
        line = _line_git_reads(raw, number)
        if line is None or _macro_name(line.pattern) is not None:
            continue  # a definition matches no path
        pattern = line.pattern.lower() if ignorecase else line.pattern
        states = _expand(line.states, defined)
        converting = [w for w in line.states if _converts(w)]
        for word in line.states:  # a macro: `kt (eol=crlf text)`
            through = sorted(w for w in _expand([word], defined) if _converts(w) and w != word)
            if word in defined and through:
                converting.append(f"{word} ({' '.join(through)})")
        if pattern in _GUARDED and _UNSET_ALL <= states and not converting:
            found = None  # every converting attribute unset again after it
            continue
        if found is None and converting and _may_match_store(pattern):
            found = Finding(INFO_ATTRIBUTES_CONVERT, f"line {number} sets "
                            f"{' '.join(converting)} for {line.pattern}, and this repository's "
                            "own attributes win over .gitattributes' store/** line, so git "
                            "converts stored bytes on checkout", file=INFO_ATTRIBUTES,
                            line=number, column=1, expected="no conversion under store/",
                            found=line.text.strip(_BLANK))
    return [] if found is None else [found]


_BUILTIN_MACROS = {"binary": ["-diff", "-merge", "-text"]}
"""git's own macro (attr.c ``builtin_attr``), below every file's."""

_MACRO_PREFIX = "[attr]"

_ATTRIBUTE_NAME = re.compile(r"[A-Za-z0-9_.][-A-Za-z0-9_.]*")
"""A valid attribute or macro name (attr.c ``attr_name_valid``)."""


def _macro_name(pattern: str) -> str | None:
    """Return the name a ``[attr]NAME`` line defines; None for a pattern (or a bad name)."""
    if len(pattern) <= len(_MACRO_PREFIX) or not pattern.startswith(_MACRO_PREFIX):
        return None
    name = re.split(f"[{_BLANK}]", pattern[len(_MACRO_PREFIX):].lstrip(_BLANK))[0]
    return name if _ATTRIBUTE_NAME.fullmatch(name) else None


def _macros(files: Sequence[bytes]) -> dict[str, list[str]]:
    """Map each macro ``files`` define (lowest precedence first) to its settings.

    As git's ``determine_macros``: the highest-precedence definition wins, and within a
    file the last line. A line git ignores as too long (:data:`_MAX_LINE`) still counts
    when it might be read without its CR.
    """
    defined = dict(_BUILTIN_MACROS)
    for data in files:
        for raw in data.split(b"\n"):
            if len(raw.removesuffix(b"\r")) >= _MAX_LINE:
                continue
            parsed = _split(raw.decode("utf-8", "replace"))
            name = None if parsed is None else _macro_name(parsed[0])
            if parsed is not None and name is not None:
                defined[name] = parsed[1]
    return defined


def _expand(states: list[str], defined: dict[str, list[str]]) -> set[str]:
    """Return ``states`` with every macro set on them replaced by what it stands for, too.

    Only a macro set plainly (``kt``; not ``-kt``, ``!kt`` or ``kt=x``) expands, and within
    it others it sets (attr.c ``macroexpand_one``). A set, not git's order: a line that
    both unsets and sets an attribute counts as setting it, which may only over-report.
    """
    out: set[str] = set()
    todo, seen = list(states), set()
    while todo:
        word = todo.pop()
        out.add(word)
        if word in defined and word not in seen:  # each macro once: a cycle ends
            seen.add(word)
            todo.extend(defined[word])
    return out


class _Line(NamedTuple):
    """One line of ``.gitattributes`` as git reads it (:func:`_line_git_reads`)."""

    text: str
    """The line, decoded (UTF-8, bad bytes replaced)."""
    pattern: str
    """Its pattern (C-unquoted when quoted)."""
    states: list[str]
    """Its attribute settings."""
    guard: bool
    """A ``store/**`` line unsetting ``text``, ``eol`` and ``filter`` that git reads from the
    committed file."""
    ignored: str
    """Why git does not read a ``store/**`` guard written on this line ("" when it does, or
    the line is no guard): too long, or line 1 starting with a byte order mark."""
    applies: bool
    """git may apply the line's settings (in the work tree's file or the committed one), so
    whatever conversion it sets counts; False for a guard line."""


def _line_git_reads(raw: bytes, number: int) -> _Line | None:
    """Return line ``number`` (1-based; ``raw``: its bytes, no LF) as git reads it.

    Returns:
        None for a blank line or a comment; else the :class:`_Line`: whether it is a guard
        git reads from the committed file, and if it is written as one but git does not
        read it, why (git's attr.c ignores a line of :data:`_MAX_LINE` bytes or more, CR and
        byte order mark counted in the committed file; ``read_attr_from_buf`` does not skip
        a BOM, so ``\ufeffstore/**`` matches nothing there).
    """
    text = raw.decode("utf-8", "replace")
    parsed = _split(text)
    if parsed is None:
        return None
    pattern, states = parsed
    guards = {"-text", "-eol", "-filter"} <= set(states)
    if len(raw) >= _MAX_LINE:  # git reads no such line from the committed file
        ignored = (f"line {number} is {len(raw):,} bytes long and git ignores a line of "
                   f"{_MAX_LINE:,} bytes or more"
                   if guards and pattern.removeprefix(_BOM) in _GUARDED else "")
        shortest = raw.removesuffix(b"\r")  # the work tree's file: without CR and BOM
        if number == 1:
            shortest = shortest.removeprefix(_BOM.encode())
        return _Line(text, pattern, states, False, ignored, len(shortest) < _MAX_LINE)
    if pattern in _GUARDED and guards:
        return _Line(text, pattern, states, True, "", False)
    if number == 1 and pattern.removeprefix(_BOM) in _GUARDED and guards:
        return _Line(text, pattern, states, False, (
            "line 1 starts with a UTF-8 byte order mark, which git skips in the work tree's "
            "file but not in the committed one that a new clone checks out with (`git "
            "check-attr --cached`), so there the line matches nothing; save .gitattributes "
            "without it"), False)
    return _Line(text, pattern, states, False, "", True)


IGNORECASE = (" in a clone with core.ignorecase=true (git's default on macOS and Windows), "
               "where git matches patterns case-insensitively")
"""Why a pattern matching ``store/`` only case-insensitively still counts (KI113, KI119)."""

_GUARDED = ("store/**", "/store/**")
"""Patterns of a guard line: in the top-level file a leading ``/`` only anchors the pattern
there, which ``store/**`` already is (gitignore's rule, which gitattributes follows)."""

_CONVERTING = ("text", "eol", "filter", "ident", "working-tree-encoding", "crlf")

_UNSET_ALL = {"-" + a for a in _CONVERTING if a != "crlf"}
"""A guard line that unsets every converting attribute (``crlf`` is ``text``'s old name)."""

_BLANK = " \t\r\n"
"""What separates a pattern and its attributes (git's attr.c ``blank``): no other space."""

_BOM = "\ufeff"
"""A UTF-8 byte order mark: git skips it at the start of the work tree's file only (attr.c
``read_attr_from_file``; ``read_attr_from_buf``, which reads the index and commits, does not)."""

_MAX_LINE = 2048
"""git ignores a line of this many bytes or more (attr.c ``ATTR_MAX_LINE_LENGTH``, with a
warning); read from the index a trailing CR and a BOM count too."""

_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34}
"""The one-letter escapes of a C-quoted pattern (git's quote.c ``unquote_c_style``)."""


def _split(line: str) -> tuple[str, list[str]] | None:
    """Return ``(pattern, attribute settings)`` of one line; None for a blank or comment.

    As git's attr.c ``parse_attr_line``: a pattern starting with ``"`` is C-unquoted when
    it is a well-formed quoted string (the settings follow the closing quote, blank or
    not); otherwise the pattern runs to the first blank (quote included).
    """
    text = line.lstrip(_BLANK)
    if not text or text.startswith("#"):
        return None
    if text.startswith('"'):
        unquoted = _unquote(text)
        if unquoted is not None:
            return unquoted[0], _words(unquoted[1])
    words = _words(text)
    return words[0], words[1:]


def _words(text: str) -> list[str]:
    """Split at runs of git's blanks only."""
    return [w for w in re.split(f"[{_BLANK}]+", text) if w]


def _unquote(text: str) -> tuple[str, str] | None:
    """C-unquote the quoted string ``text`` starts with: (its value, the text after it).

    None when it is not one git accepts (an unknown escape, no closing quote): git then
    takes the pattern as written.
    """
    out = bytearray()
    i = 1
    while i < len(text):
        char = text[i]
        if char == '"':
            return out.decode("utf-8", "replace"), text[i + 1:]
        if char != "\\":
            out += char.encode("utf-8", "surrogateescape")
            i += 1
            continue
        escape = text[i + 1:i + 2]
        if escape in _ESCAPES:
            out.append(_ESCAPES[escape])
            i += 2
        elif re.fullmatch("[0-3][0-7][0-7]", text[i + 1:i + 4]):
            out.append(int(text[i + 1:i + 4], 8))
            i += 4
        else:
            return None
    return None


def _converts(word: str) -> bool:
    """Return True for an attribute setting that may convert bytes (``text``, ``eol=crlf``).

    ``!text`` counts too: it makes ``text`` unspecified again, so ``core.autocrlf`` applies.
    """
    if word.startswith("-"):
        return False
    return word.lstrip("!").partition("=")[0] in _CONVERTING


def _may_match_store(pattern: str) -> bool:
    """Return True unless a .gitattributes pattern plainly names a directory outside ``store/``.

    Anything git might still match under ``store/`` counts: quoted or escaped patterns,
    globs in the first path component (``s[t]ore/**``, ``st*/**``), basename patterns.
    """
    if pattern.startswith('"') or "\\" in pattern:
        return True
    first, slash, _ = pattern.lstrip("/").partition("/")
    if not slash or any(c in first for c in "*?["):
        return True
    return first == "store"
