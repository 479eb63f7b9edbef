"""The ``.gitattributes`` guard: stored bytes are hashed bytes, so git must never convert them.

An object file's SHA-256 is its name only while git writes it back byte for byte. A
``.gitattributes`` line ``store/** -text -eol -filter -ident -working-tree-encoding`` turns
off every conversion (end of line, filters, encodings); a later line that sets one again
for paths under ``store/`` wins, since git applies the last matching line. Pure; no I/O:
``kistore verify`` (:mod:`kistore.check.audit`) and ``add --commit``
(:mod:`kistore.store`) both read the file and ask here.
"""

from __future__ import annotations

from .findings import ERROR, Finding, rule
from .layout import GITATTRIBUTES_LINE

__all__ = ["GITATTRIBUTES_LINE", "GITATTRIBUTES_MISSING", "check_gitattributes"]

GITATTRIBUTES_MISSING = rule(
    "KI113", "gitattributes-missing", ERROR,
    f"add the line `{GITATTRIBUTES_LINE}` to .gitattributes (`kistore init .` writes it)")


def check_gitattributes(data: bytes | None) -> list[Finding]:
    """Check that ``.gitattributes`` turns off every conversion under ``store/`` (docs/rules.md).

    Args:
        data: the bytes of the repository's top-level ``.gitattributes``, None when absent.

    Returns:
        KI113 when no line ``store/** ...`` unsets ``text``, ``eol`` and ``filter``, or when
        a later line that may match paths under ``store/`` sets a converting attribute again
        (git applies the last matching line: ``store/objects/** working-tree-encoding=UTF-16``
        would re-encode every object in new clones).
    """
    guarded = None
    for number, line in enumerate((data or b"").decode("utf-8", "replace").splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "store/**" and {"-text", "-eol", "-filter"} <= set(words[1:]):
            guarded = number
            continue
        converting = [w for w in words[1:] if _converts(w)]
        if guarded is not None and converting and _may_match_store(words[0]):
            return [Finding(GITATTRIBUTES_MISSING, f"line {number} sets "
                            f"{' '.join(converting)} for {words[0]} after the store/** line, so "
                            "git would convert stored bytes", file=".gitattributes",
                            line=number, column=1, expected="no conversion under store/",
                            found=line.strip())]
    if guarded is not None:
        return []
    return [Finding(GITATTRIBUTES_MISSING, "nothing stops end-of-line or filter conversion of "
                    "store/", file=".gitattributes",
                    expected=GITATTRIBUTES_LINE,
                    found="no such line")]


_CONVERTING = ("text", "eol", "filter", "ident", "working-tree-encoding", "crlf")


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
