"""Documents already checked against their schema: ``show`` or ``cat`` of one compiles none.

``kistore show KIND/NAME`` of a kind other than BenchmarkRun opens no query index, so
nothing there vouches for the bytes it prints, and checking them compiled the kind's
schema with jsonschema-rs in every fresh process (~40 ms of CPU, a third of ``python -c
"import click"``; docs/speed.md, "Start-up, second pass"). A document that passed is
recorded here, by its bytes: the next ``show`` of the same bytes skips the compile. ``cat``
takes the same marks (since 2026-12-05; before, it checked the schema in every process).

A mark is an empty file ``.git/kistore/checked/XX/REST``, named by the 32-byte BLAKE2b of
:func:`kistore.core.schema.checker_id` (the checking code and every shipped schema) and
of the object's and the metadata file's exact bytes, each with its length. So a mark
vouches for those bytes under that checker only: a metadata file edited in place, an
object file replaced, a schema or kistore changed, all give another name, and the
document is checked again. Like the index beside it, a mark is derived state that
kistore alone writes under ``.git``; deleting the directory loses nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core import hashes
from ..core.schema import checker_id

DIRECTORY = "checked"
"""The marks' directory under ``.git/kistore/``."""


def _mark(git_dir: Path | str, object_bytes: bytes, metadata_bytes: bytes) -> str:
    """Return the path of the mark of these bytes under the current checker."""
    digest = hashes.blake2b(checker_id(), digest_size=32)
    digest.update(b"%d:" % len(object_bytes))
    digest.update(object_bytes)
    digest.update(b"%d:" % len(metadata_bytes))
    digest.update(metadata_bytes)
    name = digest.hexdigest()
    return os.path.join(os.fspath(git_dir), "kistore", DIRECTORY, name[:2], name[2:])


def is_checked(git_dir: Path | str, object_bytes: bytes, metadata_bytes: bytes) -> bool:
    """Return True when these exact bytes passed :func:`kistore.core.schema.check_manifest`.

    Args:
        git_dir: the repository's git directory (:attr:`kistore.store.Store.git_dir`).
        object_bytes: the object file's bytes, as read.
        metadata_bytes: the metadata file's bytes, as read.

    Returns:
        True when :func:`record_checked` recorded the same bytes under the same checker
        (one ``stat``); False otherwise, then check them.

    Raises:
        InstallationError: kistore's schemas cannot be read (:func:`checker_id`).
    """
    return os.path.isfile(_mark(git_dir, object_bytes, metadata_bytes))


def record_checked(git_dir: Path | str, object_bytes: bytes, metadata_bytes: bytes) -> None:
    """Record that these exact bytes passed the schema check (call only after they did).

    Marks are kept beside the derived index: a repository without ``.git/kistore/`` (one
    only read, e.g. ``show --at`` in a blob-less clone) gets no directory from a ``show``,
    and one kistore cannot write (read-only) records nothing. The mark only saves a later
    check, which then runs again.

    Args:
        git_dir: the repository's git directory.
        object_bytes: the object file's bytes that were checked.
        metadata_bytes: the metadata file's bytes that were checked.

    Raises:
        InstallationError: kistore's schemas cannot be read (:func:`checker_id`).
    """
    if not os.path.isdir(os.path.join(os.fspath(git_dir), "kistore")):
        return
    path = _mark(git_dir, object_bytes, metadata_bytes)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
    except OSError:
        pass
