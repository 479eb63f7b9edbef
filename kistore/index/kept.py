"""Values parsed from a file's exact bytes, kept so that the next process need not parse them.

The run page's citation reads ``[cite]`` of ``kistore.toml`` on every ``kistore show`` of a
run; parsing TOML loads ``tomllib`` (~3-4 ms of a fresh process, docs/speed.md "Start-up,
third pass"). What a parser made of some bytes is kept here as a small file
``.git/kistore/kept/XX/REST``, named by the 32-byte BLAKE2b of the parser's id (its code, as
the caller says: e.g. its source and the Python version) and of the exact bytes parsed,
each with its length. The file holds the value (JSON text, one line) and, on a second
line, the BLAKE2b of the same id, bytes and value: a value edited in the file, or a file
carried from other bytes, does not match and is parsed again. Other bytes, another parser
or another kistore give another name. Like the index beside it, this is derived state that
kistore alone writes under ``.git``; deleting the directory loses nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core import hashes

DIRECTORY = "kept"
"""The kept values' directory under ``.git/kistore/``."""


def _hash(parser_id: bytes, data: bytes, value: str | None = None) -> str:
    """Return the hex BLAKE2b of the id, the bytes and (for a seal) the value, length-prefixed."""
    digest = hashes.blake2b(b"%d:" % len(parser_id) + parser_id, digest_size=32)
    digest.update(b"%d:" % len(data))
    digest.update(data)
    if value is not None:
        encoded = value.encode("utf-8")
        digest.update(b"%d:" % len(encoded) + encoded)
    return digest.hexdigest()


def _path(git_dir: Path | str, parser_id: bytes, data: bytes) -> str:
    """Return the path of the kept value of ``data`` under ``parser_id``."""
    name = _hash(parser_id, data)
    return os.path.join(os.fspath(git_dir), "kistore", DIRECTORY, name[:2], name[2:])


def kept_value(git_dir: Path | str, parser_id: bytes, data: bytes) -> str | None:
    """Return what :func:`keep_value` kept for these exact bytes under this parser, if intact.

    Args:
        git_dir: the repository's git directory (:attr:`kistore.store.Store.git_dir`).
        parser_id: what identifies the parser (its code); another id keeps another value.
        data: the exact bytes that were parsed.

    Returns:
        The value (one line of text, as kept); None when nothing is kept for them, or the
        file does not match its seal (edited, damaged, half-written): parse them then.
    """
    try:
        with open(_path(git_dir, parser_id, data), "rb") as f:
            text = f.read(1 << 16).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    value, newline, seal = text.rstrip("\n").rpartition("\n")
    if not newline or "\n" in value or seal != _hash(parser_id, data, value):
        return None
    return value


def keep_value(git_dir: Path | str, parser_id: bytes, data: bytes, value: str) -> None:
    """Keep ``value``, what the parser made of ``data``, for :func:`kept_value`.

    Kept only beside a derived index (``.git/kistore/`` exists: a repository only read
    gets no directory), and never when it cannot be written (read-only): the value then
    is parsed again next time.

    Args:
        git_dir: the repository's git directory.
        parser_id: what identifies the parser (:func:`kept_value`).
        data: the exact bytes parsed.
        value: one line of text (JSON, say) the parser made of them.

    Raises:
        ValueError: ``value`` holds a newline.
    """
    if "\n" in value:
        raise ValueError("a kept value is one line")
    if not os.path.isdir(os.path.join(os.fspath(git_dir), "kistore")):
        return
    path = _path(git_dir, parser_id, data)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(f"{value}\n{_hash(parser_id, data, value)}\n")
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
