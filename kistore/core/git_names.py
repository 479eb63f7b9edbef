"""Tree entry names that git, or some file system a checkout writes to, treats specially.

Pure (no I/O, no git). git's own tests of a name, read from git's ``path.c``, ``fsck.c``
and ``compat/mingw.c`` (not copied) and held to the real ``git fsck`` by the tests:

* :func:`is_dotgit`: a name that is ``.git`` on some file system (git's ``is_hfs_dotgit``
  and ``is_ntfs_dotgit``; fsck ``hasDotgit``). NTFS ignores trailing dots and spaces, ends a
  file name at ``:`` (``.git::$INDEX_ALLOCATION`` *is* the directory ``.git``: an alternate
  data stream, CVE-2019-1352), reads ``\\`` as a directory separator (a blob named
  ``.git\\hooks\\post-checkout`` is a hook there) and knows ``.git`` by its 8.3 short name
  ``git~1``; HFS+ ignores some code points (``.g\\u200cit``, CVE-2014-9390). Either
  spelling is ``.git`` on some machine: a checkout there writes into the repository's own
  ``.git`` (its hooks, its config).
* :func:`special_file`: which of ``.gitmodules``, ``.gitattributes``, ``.gitignore``,
  ``.mailmap`` a name is on some file system (``is_hfs_dotgitmodules``,
  ``is_ntfs_dotgitmodules``, ...): the same folding, and NTFS's regular short name (the
  first six characters, ``~1`` to ``~4``: ``gitmod~1``) or its hashed fallback
  (``gi7eba~1``). git's fsck refuses a ``.gitmodules`` that is a symbolic link
  (``gitmodulesSymlink``, an error) and warns of the other three (``gitattributesSymlink``,
  ``gitignoreSymlink``, ``mailmapSymlink``); git checkout refuses to write any of the four
  as a link.
* :func:`windows_problem`: why Git for Windows (``core.protectNTFS``, on by default) cannot
  check a name out (``is_valid_win32_path``): a reserved device name (``CON``, ``aux.txt``,
  ``NUL.json``, ``COM1``, ``LPT9``, ``CONIN$``), one of ``<>:"|?*`` or a control
  character, or a trailing dot or space.
* :func:`name_key`: the key under which two names are one file on a case-insensitive or
  normalising file system (APFS, HFS+, NTFS): ``Foo``/``foo``, NFC/NFD forms.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

HFS_IGNORED = frozenset(
    [0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF])
"""The code points HFS+ drops from a name when comparing (git's ``next_hfs_char``)."""

SPECIAL_FILES = {".gitmodules": "gi7eba", ".gitattributes": "gi7d29",
                 ".gitignore": "gi250a", ".mailmap": "maba30"}
"""The files git reads from a tree, each with the prefix of its hashed NTFS 8.3 short name
(git's ``is_ntfs_dotgitmodules`` and siblings, which name these prefixes)."""

_HFS_DROP = dict.fromkeys(HFS_IGNORED)


def _hfs_is(name: str, wanted: str) -> bool:
    """Whether ``name`` is ``wanted`` (``.`` and lowercase ASCII) on HFS+, to a ``/``.

    A byte that is no UTF-8 (decoded with ``surrogateescape``) ends the name, as git's
    ``next_hfs_char`` reads it.
    """
    first = _MALFORMED.split(name.translate(_HFS_DROP), maxsplit=1)[0].split("/", 1)[0]
    return first.isascii() and first.lower() == wanted


_MALFORMED = re.compile("[\udc80-\udcff]")


def _ntfs_name(name: str, ends: str = ":") -> str | None:
    """Return the NTFS file name ``name`` writes, compared as NTFS does.

    NTFS ends a file name at ``:`` (a stream follows; git's ``is_ntfs_dotgit`` also at
    ``\\`` and ``/``: ``ends``) and drops trailing dots and spaces; ASCII case is folded
    (lowercase returned). None when the name is not ASCII there (none of git's is).
    """
    head = re.split(f"[{re.escape(ends)}]", name, maxsplit=1)[0].rstrip(". ")
    return head.lower() if head.isascii() else None


def _ntfs_is(name: str, wanted: str, short_prefix: str) -> bool:
    """Whether the NTFS file ``name`` names is ``wanted`` (``.`` and a lowercase word).

    ``wanted`` itself, its regular 8.3 short name (the word's first six characters, ``~1``
    to ``~4``), or the hashed fall-back one: up to six characters of ``short_prefix``, a
    ``~``, a digit 1-9, then digits, eight characters in all (git's ``is_ntfs_dot_generic``,
    which reads to a ``:`` or the end, not past a ``\\``).
    """
    head = _ntfs_name(name)
    if head is None:
        return False
    word = wanted[1:7]
    if head == wanted or head in (f"{word}~1", f"{word}~2", f"{word}~3", f"{word}~4"):
        return True
    match = _FALLBACK_SHORT_NAME.fullmatch(head)
    return match is not None and len(head) == 8 and short_prefix.startswith(match.group(1))


_FALLBACK_SHORT_NAME = re.compile(r"([^~]{0,6})~[1-9][0-9]*")


def _after_backslashes(name: str) -> list[str]:
    """Return what follows each ``\\`` of ``name`` (git's ``fsck_tree`` reads each)."""
    return [name[i + 1:] for i, c in enumerate(name) if c == "\\"]


def is_dotgit(name: str) -> bool:
    """Whether a tree entry's name is ``.git`` on some file system (git fsck ``hasDotgit``).

    git's ``is_hfs_dotgit`` (code points HFS+ ignores dropped, ASCII case folded) or its
    ``is_ntfs_dotgit`` (``.git`` or ``git~1``, ASCII case folded, then nothing but dots and
    spaces up to the end, a ``:`` or a ``\\``) of the name or of any part after a ``\\``
    (a directory separator on Windows: fsck ``fsck_tree`` looks past each one).

    Args:
        name: one entry's name (no ``/``).

    Returns:
        True for ``.git``, ``.GIT``, ``.git.``, ``.git .``, ``git~1``, ``.g\\u200cit``,
        ``.git::$INDEX_ALLOCATION``, ``GIT~1:x``, ``.git\\hooks``, ``a\\.git``; else False.
    """
    if _hfs_is(name, ".git"):
        return True
    return any(_ntfs_name(part, ":\\/") in (".git", "git~1") for part in name.split("\\"))


def special_file(name: str) -> str | None:
    """Return which file git reads from a tree ``name`` is on some file system, if any.

    git's ``is_hfs_dot*`` and ``is_ntfs_dot*`` for ``.gitmodules``, ``.gitattributes``,
    ``.gitignore`` and ``.mailmap`` (:data:`SPECIAL_FILES`) of the name, and for
    ``.gitmodules`` also of what follows each ``\\`` in it (as git's ``fsck_tree``).

    Args:
        name: one entry's name (no ``/``; bytes that are no UTF-8 decoded with
            ``surrogateescape``).

    Returns:
        The file (``".gitmodules"``...), for ``.GITMODULES``, ``.gitmodules.``,
        ``.gitmodules::$DATA``, ``gitmod~1``, ``GI7EBA~1``, ``.git\\u200cmodules``,
        ``x\\.gitmodules``; else None.
    """
    for wanted, short in SPECIAL_FILES.items():
        if _hfs_is(name, wanted) or _ntfs_is(name, wanted, short):
            return wanted
    if any(_ntfs_is(rest, ".gitmodules", "gi7eba") for rest in _after_backslashes(name)):
        return ".gitmodules"
    return None


_RESERVED = re.compile(r"(?:CON|PRN|AUX|NUL|COM[1-9]|LPT[0-9]|CONIN\$|CONOUT\$) *(?:[.:]|$)",
                       re.IGNORECASE)
_INVALID_CHARACTER = re.compile(r'[<>:"|?*\x01-\x1f]')


def windows_problem(name: str) -> str | None:
    """Return why Git for Windows cannot check out a tree entry's name, if it cannot.

    Git for Windows' ``is_valid_win32_path`` with ``core.protectNTFS`` (its default): it
    refuses the whole checkout (``error: invalid path``) of a path with such a component.

    Args:
        name: one entry's name (no ``/``; a ``\\`` separates components on Windows).

    Returns:
        ``"a reserved device name"`` (``CON``, ``PRN``, ``AUX``, ``NUL``, ``COM1``-``COM9``,
            ``LPT0``-``LPT9`` (its ``is_valid_win32_path`` takes any digit after ``LPT``),
            ``CONIN$``, ``CONOUT$`` in any case, then only spaces up to the end, a ``.``
            (any extension) or a ``:``), ``"the character X"`` (one of ``<>:"|?*`` or a
            control character), ``"a trailing dot or space"`` (``.`` and ``..`` excepted),
            ``"the character '\\\\'"`` (a name holding a backslash, which Git for Windows
            refuses in any path since CVE-2019-1354: reviewer r81 F4); else None.
    """
    for part in name.split("\\"):
        if _RESERVED.match(part):
            return "a reserved device name"
        bad = _INVALID_CHARACTER.search(part)
        if bad:
            return f"the character {bad.group()!r}"
        if part.endswith((".", " ")) and part not in (".", ".."):
            return "a trailing dot or space"
    if "\\" in name:  # Git for Windows' verify_path refuses it (CVE-2019-1354)
        return "the character '\\\\'"
    return None


def name_key(name: str) -> str:
    """Return the key under which two names (or paths) are one file on some file system.

    Unicode canonical caseless matching (NFD, case fold, NFD again; Unicode §3.13), with
    the code points HFS+ ignores removed (:data:`HFS_IGNORED`): ``Foo``/``foo`` and NFC/NFD
    forms share a key.

    Args:
        name: a name or a ``/``-separated path (str; lone surrogates kept).

    Returns:
        The key (str): equal for two names that are one file on APFS, HFS+ or NTFS.
    """
    if name.isascii():
        return name.casefold()
    folded = unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())
    return folded.translate(_HFS_DROP)


def name_keys(names: Iterable[str]) -> list[str]:
    """Return :func:`name_key` of each of ``names`` (none holds a NUL, as no git name can).

    One call over the names joined by NUL: case folding and NFD map code points one by one
    or within a run of combining marks, and NUL starts a run, so the keys split apart
    again (a property test holds this to :func:`name_key`). A shard's ~4,000 names at
    1,000,000 manifests cost one call, not 4,000.
    """
    names = list(names)
    return name_key("\0".join(names)).split("\0") if names else []
