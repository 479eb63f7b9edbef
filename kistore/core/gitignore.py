"""The ``.gitignore`` guard: no committed ignore rule may match a path under ``store/``.

git skips an ignored file on ``git add store`` and does not list it in ``git status`` or
``git clean -n``: a ``.gitignore`` line ``store/objects/sha256/d*/`` (reviewer r82 F8) left
the object files ``kistore add`` wrote out of the contributor's commit, silently, and the
pull request failed on other files (KI214, KI216) without naming the cause. So KI119: a
committed ``.gitignore`` (the root one, or one under ``store/``) may hold no line that
matches a path under ``store/``, under either of git's case rules (a clone on macOS or
Windows has ``core.ignorecase=true``: ``STORE/`` matches ``store/`` there, as KI113 reads
``.gitattributes``). A nested ``.gitignore`` elsewhere (``docs/.gitignore``) reaches no
path under ``store/``; ``.git/info/exclude`` and ``core.excludesFile`` are a clone's own,
never committed (``verify`` and ``add`` ask git about those: :mod:`kistore.git.ignored`).

Lines are read as git's ``dir.c`` reads them (a UTF-8 byte order mark skipped, ``#``
comments, a trailing CR, trailing spaces unless escaped, ``!`` negations, a trailing
``/`` for directories only, a pattern without ``/`` matching a name at any depth, one with
``/`` anchored to the file's directory) and matched as git's ``wildmatch.c`` matches
(``*``, ``?``, ``[...]`` with ranges, ``!``/``^`` and ``[:class:]``, ``**`` around a
``/``, ``\\`` escapes), not on one path but on every path the store's layout can hold
(:data:`_COMPONENTS`): a line is refused when some store path, or a directory above one,
could match it. Pure; no I/O. :func:`line_ignores` matches one concrete path the same
way (held to ``git check-ignore`` by the tests).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .findings import ERROR, Finding, rule
from .gitattributes import IGNORECASE
from .layout import STORE_DIR
from .schema import KINDS

GITIGNORE_STORE = rule(
    "KI119", "gitignore-store", ERROR,
    "remove the line, or anchor it where no store path is (`/build/` rather than `build/`, "
    "`/*.log` rather than `*.log`): git add and git status skip an ignored file, so a file "
    "`kistore add` writes under store/ would be left out of the commit without a word")

GITIGNORE = ".gitignore"

_Set = frozenset[str] | None
"""The characters one position of a path may hold; None: any character (``/`` too)."""

_Element = tuple[_Set, bool]
"""One position of a path language: its characters, and whether it repeats (0 or more)."""


def _word(text: str) -> list[_Element]:
    return [(frozenset(c), False) for c in text]


_HEX = frozenset("0123456789abcdef")
_LOWER_DIGIT = frozenset(string.ascii_lowercase + string.digits)
_NAME_INNER = _LOWER_DIGIT | frozenset(".-")


def _hex(count: int, suffix: str = "") -> list[_Element]:
    return [(_HEX, False)] * count + _word(suffix)


_DIRECTORIES: tuple[list[_Element], ...] = (
    *(_word(w) for w in (STORE_DIR, "objects", "metadata", "sha256", "names", "forward",
                         "groups", "attestations", "trust", "policy")),
    *(_word(kind) for kind in KINDS), _hex(2), _hex(62))
"""Each directory name the layout holds (:mod:`kistore.core.layout`): its own directories,
a kind's names directory (``BenchmarkRun``: :data:`kistore.core.schema.KINDS`), a shard
(2 hex), a forward, group or attestation directory (62 hex)."""

_FILES: tuple[list[_Element], ...] = (
    _hex(62, ".json"), _hex(64), _hex(64, ".json"), _word("keys.json"), _word("ranking.json"),
    [(_LOWER_DIGIT, False)],
    [(_LOWER_DIGIT, False), (_NAME_INNER, True), (_LOWER_DIGIT, False)])
"""Each file name the layout holds: an object or metadata file, a forward or group record,
an attestation, the trust and policy files, a names file (``metadata.name``)."""

_COMPONENTS = (_DIRECTORIES, _FILES)

_UNDER_STORE: tuple[list[_Element], ...] = (
    _word(STORE_DIR), [*_word(STORE_DIR + "/"), (None, True)])
"""Every path under ``store/`` as an anchored pattern sees it: ``store``, or ``store/``
then anything (a ``*`` there may match a ``/`` only where the pattern says ``**``)."""


def check_gitignore(path: str, data: bytes | None) -> list[Finding]:
    """KI119 for each line of a committed ``.gitignore`` that may match a path under ``store/``.

    Args:
        path: the file's repository path (``.gitignore``, ``docs/.gitignore``).
        data: its bytes (None: absent).

    Returns:
        One finding per such line (1-based ``line``, the line as ``found``), naming the
        case rule it needs when it matches only with ``core.ignorecase=true``; none for a
        file whose directory is neither the root nor under ``store/`` (it reaches no store
        path), for comments, blank lines and negations (``!``: they ignore nothing).
    """
    base = path.rpartition("/")[0]
    if base and base != STORE_DIR and not base.startswith(STORE_DIR + "/"):
        return []
    findings = []
    for number, line in _lines(data or b""):
        if line.negated:
            continue
        for ignorecase in (False, True):
            if _may_match_store(line, base, ignorecase):
                where = IGNORECASE if ignorecase else ""  # KI113's words for it
                findings.append(Finding(
                    GITIGNORE_STORE, f"line {number} ({line.text!r}) may match paths under "
                    f"store/{where}: git add would skip them", file=path, line=number,
                    column=1, expected="no ignore rule over store/", found=line.text))
                break
    return findings


def line_ignores(text: str, base: str, path: str, ignorecase: bool = False) -> bool:
    """Whether one ``.gitignore`` line ignores the file ``path``, as git decides.

    The file, or a directory above it (git does not look into an ignored directory), is
    matched by the line (a negation ignores nothing).

    Args:
        text: the line (no newline).
        base: the ``.gitignore``'s directory (``""``: the root).
        path: a file's repository path.
        ignorecase: git's ``core.ignorecase``.
    """
    parsed = _parse(text)
    if parsed is None or parsed.negated or (base and not path.startswith(base + "/")):
        return False
    parts = path.split("/")
    below = len(base.split("/")) + 1 if base else 1  # the file's own directory is not below
    return any(_matches(parsed, base, [_word("/".join(parts[:i]))], i < len(parts),
                        ignorecase) for i in range(below, len(parts) + 1))


class _Line(NamedTuple):
    """A pattern line as git's ``dir.c`` reads it."""

    text: str
    """The line as written (decoded, trailing CR and unescaped spaces dropped)."""
    pattern: str
    """Its pattern: no ``!``, no trailing ``/``."""
    negated: bool
    directories: bool
    """A trailing ``/``: it matches directories only."""
    basename: bool
    """No ``/`` in it: it matches a name at any depth below its file's directory."""


def _lines(data: bytes) -> list[tuple[int, _Line]]:
    """Return the pattern lines of a ``.gitignore``, numbered (git's ``add_patterns``)."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    found = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        parsed = _parse(raw.decode("utf-8", "surrogateescape"))
        if parsed is not None:
            found.append((number, parsed))
    return found


def _parse(raw: str) -> _Line | None:
    """One line (no LF) as git reads it; None for a blank line or a comment."""
    if not raw or raw.startswith("#"):
        return None
    text = _trim(raw.removesuffix("\r"))
    negated = text.startswith("!")
    pattern = text[1:] if negated else text
    directories = pattern.endswith("/")
    pattern = pattern.removesuffix("/") if directories else pattern
    if not pattern:
        return None
    return _Line(text, pattern, negated, directories, "/" not in pattern)


def _trim(text: str) -> str:
    """Drop trailing spaces not escaped by a ``\\`` (git's ``trim_trailing_spaces``)."""
    end = len(text)
    while end and text[end - 1] == " ":
        backslashes = len(text[:end - 1]) - len(text[:end - 1].rstrip("\\"))
        if backslashes % 2:
            break
        end -= 1
    return text[:end]


def _may_match_store(line: _Line, base: str, ignorecase: bool) -> bool:
    """Whether ``line`` of the ``.gitignore`` in ``base`` may match a path under ``store/``."""
    if base:  # under store/ (check_gitignore leaves out the others): any line reaches one
        return True
    if line.basename:
        return any(_matches(line, "", languages, is_dir, ignorecase)
                   for is_dir, languages in zip((True, False), _COMPONENTS, strict=True)
                   if is_dir or not line.directories)
    return _matches(line, "", list(_UNDER_STORE), True, ignorecase)


def _matches(line: _Line, base: str, languages: Sequence[list[_Element]], is_dir: bool,
             ignorecase: bool) -> bool:
    """Whether ``line`` matches some path of ``languages`` (directories if ``is_dir``).

    git's ``match_basename`` (a pattern without ``/``: the last component) and
    ``match_pathname`` (the path below ``base``, its literal prefix compared first).
    """
    if line.directories and not is_dir:
        return False
    pattern = line.pattern
    below: list[list[_Element] | None]
    if line.basename:
        tokens, pathname = _tokens(pattern, False), False
        below = [_after_last_slash(lang) for lang in languages]
    else:
        pattern = pattern.removeprefix("/")
        prefix = _literal_prefix(pattern)
        # git compares the part before the first special character as a string, then
        # wildmatches the rest: a ``**`` it starts with reads as at a pattern's start
        tokens = [("lit", c) for c in pattern[:prefix]] + _tokens(pattern[prefix:], True)
        pathname = True
        below = [_below(lang, base) for lang in languages]
    if any(t[0] == "never" for t in tokens):
        return False
    return any(lang is not None and _match(tokens, lang, pathname, ignorecase)
               for lang in below)


def _after_last_slash(language: list[_Element]) -> list[_Element]:
    """Return the last component of a path (a language of components is one already)."""
    slashes = [i for i, (chars, _) in enumerate(language) if chars == frozenset("/")]
    return language[slashes[-1] + 1:] if slashes else language


def _below(language: list[_Element], base: str) -> list[_Element] | None:
    """Return the path relative to ``base`` (None: not below it)."""
    if not base:
        return language
    head = _word(base + "/")
    return language[len(head):] if language[:len(head)] == head else None


_SPECIAL = re.compile(r"[*?\[\\]")


def _literal_prefix(pattern: str) -> int:
    """Length of the pattern before its first special character (git's ``simple_length``)."""
    found = _SPECIAL.search(pattern)
    return len(pattern) if found is None else found.start()


_Token = tuple[Any, ...]
"""One token of a pattern: its kind (``"lit"``, ``"elit"``, ``"any"``, ``"class"``,
``"star"``, ``"jump"``, ``"never"``), then what it holds."""


def _tokens(pattern: str, pathname: bool) -> list[_Token]:
    """Return a wildmatch pattern as tokens: ``lit``, ``any``, ``class``, ``star``, ``jump``.

    ``("never",)`` when git's wildmatch would abort (a class without ``]``, an unknown
    ``[:class:]``, a trailing ``\\``): the pattern matches nothing.
    """
    tokens: list[_Token] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern):
                return [("never",)]
            tokens.append(("elit", pattern[i + 1]))
            i += 2
        elif c == "?":
            tokens.append(("any",))
            i += 1
        elif c == "*":
            j = i
            while j < len(pattern) and pattern[j] == "*":
                j += 1
            if not pathname:
                tokens.append(("star", True))
            elif j - i >= 2 and (i == 0 or pattern[i - 1] == "/") and (
                    j == len(pattern) or pattern[j] == "/" or pattern[j:j + 2] == "\\/"):
                if j < len(pattern) and pattern[j] == "/":  # "**/": also nothing at all
                    tokens += [("jump", 3), ("star", True), ("lit", "/")]
                    j += 1
                else:
                    tokens.append(("star", True))
            else:
                tokens.append(("star", False))
            i = j
        elif c == "[":
            parsed = _class(pattern, i)
            if parsed is None:
                return [("never",)]
            token, i = parsed
            tokens.append(token)
        else:
            tokens.append(("lit", c))
            i += 1
    return tokens


_CLASSES: dict[str, Callable[[str], bool]] = {
    "alnum": str.isalnum, "alpha": str.isalpha, "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127, "digit": str.isdigit,
    "graph": lambda c: 33 <= ord(c) <= 126, "lower": str.islower,
    "print": lambda c: 32 <= ord(c) <= 126, "punct": lambda c: c in string.punctuation,
    "space": lambda c: c in " \t\n\r\f\v", "upper": str.isupper,
    "xdigit": lambda c: c in string.hexdigits}
"""wildmatch's ``[:name:]`` classes (ASCII ``ctype``; a name not here aborts the match)."""


def _class(pattern: str, start: int) -> tuple[_Token, int] | None:
    """Parse the ``[...]`` at ``start``: (token, index after it); None: wildmatch aborts.

    As git's ``wildmatch.c``: ``!`` or ``^`` first negates; the first item may be ``]``;
    ``a-z`` a range (a ``-`` first or last is itself); ``\\`` escapes; ``[:alpha:]``.
    """
    items: list[tuple[str, ...]] = []
    i = start + 1
    negated = i < len(pattern) and pattern[i] in "!^"
    i += negated
    prev = ""
    first = True
    while True:
        if i >= len(pattern):
            return None
        c = pattern[i]
        if c == "]" and not first:
            return ("class", negated, tuple(items)), i + 1
        first = False
        if c == "\\":
            if i + 1 >= len(pattern):
                return None
            c = pattern[i + 1]
            items.append(("char", c))
            prev, i = c, i + 2
        elif c == "-" and prev and i + 1 < len(pattern) and pattern[i + 1] != "]":
            high = pattern[i + 1]
            i += 2
            if high == "\\":
                if i >= len(pattern):
                    return None
                high = pattern[i]
                i += 1
            items.append(("range", prev, high))
            prev = ""
        elif c == "[" and pattern[i + 1:i + 2] == ":":
            end = pattern.find("]", i + 2)
            if end < 0:
                return None
            if pattern[end - 1] != ":" or end - 1 < i + 2:
                items.append(("char", "["))  # no ":]": a plain "[" (git reads on)
                prev, i = "[", i + 1
                continue
            name = pattern[i + 2:end - 1]
            if name not in _CLASSES:
                return None
            items.append(("named", name))
            prev, i = "", end + 1
        else:
            items.append(("char", c))
            prev, i = c, i + 1


def _in_class(token: _Token, char: str, ignorecase: bool) -> bool:
    """Whether ``char`` (already lower case under ``ignorecase``) is in a class token."""
    _, negated, items = token
    matched = False
    for item in items:
        if item[0] == "char":
            matched = matched or char == item[1]
        elif item[0] == "range":
            low, high = item[1], item[2]
            matched = matched or low <= char <= high or (
                ignorecase and char.islower() and low <= char.upper() <= high)
        else:
            test = _CLASSES[item[1]]
            matched = matched or test(char) or (
                ignorecase and item[1] == "upper" and char.islower())
    return bool(matched != negated)


def _char_ok(token: _Token, chars: _Set, pathname: bool, ignorecase: bool) -> bool:
    """Whether one position holding ``chars`` can give a character ``token`` takes."""
    kind = token[0]
    if chars is None:  # any character at all
        pool = set(_ANY)
        if kind == "lit" or kind == "elit":
            return True
    else:
        pool = {c.lower() for c in chars} if ignorecase else set(chars)
    if kind == "lit":
        return (token[1].lower() if ignorecase else token[1]) in pool
    if kind == "elit":  # escaped: git compares it as written (wildmatch.c lowers only the text)
        return token[1] in pool
    if pathname:
        pool.discard("/")
    if kind == "any":
        return bool(pool)
    return any(_in_class(token, c, ignorecase) for c in pool)


_ANY = frozenset(c for c in string.printable if c not in "\n\r\x0b\x0c")
"""The characters a position of any character stands for (a class is asked of each)."""


def _match(tokens: list[_Token], language: list[_Element], pathname: bool,
           ignorecase: bool) -> bool:
    """Whether ``tokens`` match some string of ``language`` (an automaton product)."""
    n, m = len(tokens), len(language)
    seen: set[tuple[int, int]] = set()
    pending = [(0, 0)]
    while pending:
        i, j = pending.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if j < m and language[j][1]:  # a repeating position may hold nothing
            pending.append((i, j + 1))
        if i == n:
            if j == m:
                return True
            continue
        token = tokens[i]
        if token[0] == "jump":
            pending += [(i + 1, j), (i + token[1], j)]
            continue
        if token[0] == "star":
            pending.append((i + 1, j))
        if j == m:
            continue
        chars, repeats = language[j]
        after = j if repeats else j + 1
        if token[0] == "star":
            if _star_takes(chars, token[1], pathname):
                pending.append((i, after))
        elif _char_ok(token, chars, pathname, ignorecase):
            pending.append((i + 1, after))
    return False


def _star_takes(chars: _Set, crosses: bool, pathname: bool) -> bool:
    """Whether a ``*`` takes a character of ``chars``.

    Any but ``/`` under ``WM_PATHNAME``, unless it ``crosses`` (a ``**`` that may match ``/``).
    """
    if chars is None or crosses or not pathname:
        return True
    return bool(chars - {"/"})
