"""The export directory: ``_manifest.json``, the ``--since`` state, and what may be in it.

Layout (docs/export.md)::

    OUT/_manifest.json                 commit, kistore version, every file with its sha256
    OUT/_state/<table>.tsv.gz          key and fingerprint of every current row (--since)
    OUT/runs/source=.../hardware=.../part-00000.parquet
    OUT/groups/part-00000.parquet
    OUT/attestations/part-00000.parquet
    OUT/manifests/kind=.../part-00000.parquet

``_manifest.json`` is the export's table of contents: a file under a table directory that
it does not list is not part of the export (an interrupted ``--since`` leaves such files,
and the next refuses until they are removed). It holds no wall-clock time, so two exports
of one commit are byte-identical.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.canonical_fast import loads_lenient
from ..core.errors import InputError, StoreStateError
from .columns import TABLES
from .writers import file_sha256

MANIFEST = "_manifest.json"
STATE_DIR = "_state"
FORMAT = "kistore-export-1"
"""The export layout's version: ``--since`` continues only an export of this version."""


def state_path(table: str) -> str:
    """Return where a table's ``--since`` state lives, relative to the export directory."""
    return f"{STATE_DIR}/{table}.tsv.gz"


def write_state(root: Path, table: str, items: Iterator[tuple[str, bytes]]) -> str:
    """Write ``key<TAB>fingerprint hex`` lines, gzip with no name or time: deterministic.

    Returns:
        The file's hex SHA-256.
    """
    path = root / state_path(table)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                mtime=0, compresslevel=1) as f:
        lines: list[str] = []
        for key, fp in items:
            lines.append(f"{key}\t{fp.hex()}\n")
            if len(lines) >= 10_000:
                f.write("".join(lines).encode())
                lines = []
        f.write("".join(lines).encode())
    return file_sha256(path)


def read_state(root: Path, table: str) -> Iterator[tuple[str, bytes]]:
    """Yield the ``(key, fingerprint)`` pairs :func:`write_state` wrote.

    Raises:
        InputError: a line is not ``key<TAB>32 hex``.
    """
    path = root / state_path(table)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            key, _, fp = line.rstrip("\n").partition("\t")
            try:
                yield key, bytes.fromhex(fp)
            except ValueError:
                raise InputError(f"line {number} is not KEY<TAB>FINGERPRINT",
                                 file=str(path)) from None


def write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    """Write ``_manifest.json`` (sorted keys, 2-space indent, final newline), atomically."""
    data = (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
    temp = root / f".{MANIFEST}.tmp"
    temp.write_bytes(data)
    os.replace(temp, root / MANIFEST)


def read_manifest(root: Path) -> dict[str, Any]:
    """Return a previous export's ``_manifest.json``, checked against what is on disk.

    Checks: it parses, is of :data:`FORMAT`; every file it lists (data and state) has the
    SHA-256 it records; no file under a table or state directory is unlisted.

    Raises:
        InputError: ``root`` holds no export of this layout; its ``_manifest.json`` does not
            parse (not JSON, not UTF-8, or nested past what the parser reads: a clear error,
            never a ``RecursionError``); a file is missing, changed or unlisted (each
            named, with what to do).
    """
    path = root / MANIFEST
    try:
        manifest = loads_lenient(path.read_bytes())
    except FileNotFoundError:
        raise InputError(f"no {MANIFEST} here: --since continues an export made by "
                         "`kistore export`; give its directory", file=str(root)) from None
    except ValueError as e:  # UnicodeDecodeError too; a file nested 3,000 deep
        raise InputError(f"not the JSON `kistore export` writes ({e}): this directory holds "
                         "no export --since can continue; make a full export into a new "
                         "directory (or remove this one first)", file=str(path)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(f"not a {FORMAT} export (format {manifest.get('format')!r}); make "
                         "a full export into a new directory", file=str(path))
    listed = {f["path"]: f["sha256"] for f in [*manifest["files"], *manifest["state"]]}
    problems = []
    for rel, expected in sorted(listed.items()):
        try:
            found = file_sha256(root / rel)
        except FileNotFoundError:
            problems.append(f"{rel}: listed in {MANIFEST} but missing")
            continue
        if found != expected:
            problems.append(f"{rel}: its sha256 is {found}, not the {expected} {MANIFEST} "
                            "records")
    for rel in sorted(set(files_under(root)) - set(listed)):
        problems.append(f"{rel}: not listed in {MANIFEST} (left by an interrupted export?)")
    if problems:
        raise InputError(f"the export in {root} does not match its {MANIFEST}: "
                         + "; ".join(problems[:5]) + (" ..." if len(problems) > 5 else "")
                         + "; restore or remove those files, or make a full export into a "
                         "new directory")
    return manifest


def files_under(root: Path) -> Iterator[str]:
    """Yield the path (relative, ``/``-separated) of every file under the table directories."""
    for top in (*TABLES, STATE_DIR):
        base = root / top
        for dirpath, _, filenames in os.walk(base):
            for name in filenames:
                yield Path(dirpath, name).relative_to(root).as_posix()


def check_new(out: Path) -> None:
    """Refuse to write a full export over anything: ``out`` must be absent or empty.

    Raises:
        InputError: ``out`` is a file, or a directory that holds something.
    """
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise InputError("exists and is not a directory; choose a new directory",
                         file=str(out))
    if out.is_dir() and any(out.iterdir()):
        hint = (" (it holds an export: add what changed with --since REV)"
                if (out / MANIFEST).exists() else "")
        raise InputError(f"exists and is not empty{hint}; choose a new directory",
                         file=str(out))


def require_parent(out: Path) -> None:
    """Refuse an export whose parent directory does not exist (no surprise trees of dirs).

    Raises:
        InputError: the parent is missing.
    """
    if not out.absolute().parent.is_dir():
        raise InputError(f"the directory {out.absolute().parent} does not exist; create "
                              "it first", file=str(out))


class ExportedMeanwhile(StoreStateError):
    """Something was written into ``OUT`` while an export into it (absent or empty) ran.

    A full export is renamed into place at its end; two exports into one new directory
    at once both find it empty, and the one that renames second failed with the raw
    "Directory not empty" (fresh05 LOW: a sequential second export is told what is there).
    Nothing of this export is written; ``OUT`` keeps what the other wrote.

    Args:
        out: the export's directory.
    """

    def __init__(self, out: Path) -> None:
        if (out / MANIFEST).is_file():
            what = ("another `kistore export` wrote an export here while this one was "
                    "writing it")
            fix = ("that export is whole: use it, add what changed to it with --since REV, "
                   "or choose a new directory")
        else:
            what = "files were written here while this export was writing it"
            fix = "choose a new directory, or empty this one and export again"
        super().__init__(f"{what} (the directory was empty when this export began); "
                         f"nothing of this export was written; {fix}", file=str(out))


def install_new(temp: Path, out: Path) -> None:
    """Rename a finished full export ``temp`` into ``out``, which must be absent or empty.

    Args:
        temp: the export written beside ``out``.
        out: the export's directory (absent, or an empty directory: removed first).

    Raises:
        ExportedMeanwhile: ``out`` holds something now (another export finished first).
        OSError: the rename failed otherwise (the caller names it).
    """
    try:
        with contextlib.suppress(FileNotFoundError):
            out.rmdir()  # an empty directory named as the target
        os.rename(temp, out)
    except OSError as e:
        if e.errno in (errno.ENOTEMPTY, errno.EEXIST) and out.is_dir() and any(out.iterdir()):
            raise ExportedMeanwhile(out) from None
        raise
