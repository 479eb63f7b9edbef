"""``kistore drop``: take back an add that was never committed (docs/design.md §3, "Dropping").

A plain ``kistore add`` writes a manifest's files into the work tree only. Until they are
committed nothing else holds them, so a contributor who notices a wrong value may remove
them and add the corrected manifest, under the same name. :func:`drop` removes exactly the
files an add writes for one manifest (:func:`manifest_files`) and nothing else; an object
``HEAD`` holds is never removed (objects are never deleted, KI402).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core import layout
from ..core.comparison import REFERENCE_KINDS, RunKeys
from ..core.digest import Digest
from ..core.errors import (
    ConflictError,
    KistoreError,
    MultipleErrors,
    ResolutionError,
    StoreStateError,
)
from ..core.model import REFERENCE_FIELDS, lenient_object
from ..core.schema import KINDS

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store
    from ._views import View

_KEPT_DEPTH = 3
"""Parents of a removed file with more path parts than this (``store/objects/sha256``,
``store/names/KIND``) are removed when left empty: git keeps no empty directory."""


@dataclasses.dataclass(frozen=True)
class Dropped:
    """One manifest :func:`drop` removed (or, in a dry run, would remove).

    Attributes:
        digest: the manifest's digest.
        kind: its ``kind``, or None when its object file does not parse.
        name: its ``metadata.name``, or None when its metadata file is missing or damaged.
        paths: the repository paths (POSIX) of its files, in the order they are removed.
    """

    digest: Digest
    kind: str | None
    name: str | None
    paths: tuple[str, ...]


def drop(store: Store, refs: Sequence[str], *, dry_run: bool = False) -> list[Dropped]:
    """Remove from the work tree the files earlier adds wrote for manifests HEAD lacks.

    Under the store's write lock (a concurrent ``add`` waits): each ref is resolved in the
    work tree, every refusal is found before anything is removed, then each manifest's
    files (:func:`manifest_files`) are unlinked and directories left empty removed.

    Args:
        store: a store with a work tree.
        refs: what the user typed: digests, prefixes of 8+ hex digits, or ``KIND/NAME``
            (:meth:`Store.resolve`); the same manifest twice counts once.
        dry_run: only say which files would be removed.

    Returns:
        One :class:`Dropped` per distinct manifest, in the order given.

    A ``KIND/NAME`` whose names file is all that is left (its digest has no object and no
    metadata file: an add killed between the two) drops that names file
    (:func:`_names_file_only`).

    Raises:
        ResolutionError, InputError: a ref names no stored manifest (:meth:`Store.resolve`)
            and is no names-file-only leftover.
        MultipleErrors: nothing was removed: a manifest whose object HEAD holds (committed
            objects stay, KI402), a names-file-only leftover HEAD holds (KI208), or one
            that a stored manifest not dropped with it references (each named).
        StoreStateError: no work tree, or not checked out; or a file could not be removed
            (the message names the files removed and those that remain).
    """
    store.require_checkout_to_write("kistore drop")  # a bare repository is refused there
    assert store.root is not None
    with store.write_lock():  # as add takes it: no add writes meanwhile
        view = store.view(None)
        head = store.head_or_none()
        wanted: list[Digest | Dropped] = []
        for ref in refs:
            try:
                wanted.append(store.resolve(ref))
            except ResolutionError:
                leftover = _names_file_only(view, ref)
                if leftover is None:
                    raise
                wanted.append(leftover)
        wanted = list(dict.fromkeys(wanted))
        digests = [d for d in wanted if isinstance(d, Digest)]
        problems: list[KistoreError] = [_committed(d) for d in digests
                                        if head is not None and head.has_object(d)]
        problems += [_committed_name(d) for d in wanted if isinstance(d, Dropped)
                     and head is not None and head.read(d.paths[0]) is not None]
        problems += _referenced(store, digests, head)
        if problems:
            raise MultipleErrors(problems)
        dropped = [_files(view, head, d) if isinstance(d, Digest) else d for d in wanted]
        if not dry_run:
            _remove(store, dropped)
    return dropped


def _names_file_only(view: View, ref: str) -> Dropped | None:
    """Return the names file ``KIND/NAME`` names when it is all that is left of a manifest.

    An add killed after writing the names file and before the object leaves it (reviewer
    drop85 leftover): ``KIND/NAME`` resolves to no manifest, and ``verify`` reports KI212
    ("a name is taken only by a manifest"). Such a file is dropped alone.

    Args:
        view: the work tree.
        ref: what the user typed.

    Returns:
        A :class:`Dropped` of the names file (its digest, kind, name); None when ``ref`` is
        not ``KIND/NAME``, there is no such names file, it holds no digest, or its digest
        has an object or a metadata file (then it is no names-file-only leftover).
    """
    kind, slash, name = ref.partition("/")
    if not slash or kind not in KINDS:
        return None
    try:
        path = layout.name_path(kind, name)
    except ValueError:
        return None
    owner = layout.digest_from_record(view.read(path) or b"")
    if owner is None or view.has_object(owner) or \
            view.read(layout.metadata_path(owner)) is not None:
        return None
    return Dropped(owner, kind, name, (path,))


def manifest_files(view: View, digest: Digest) -> tuple[str | None, str | None, list[str]]:
    """Return the files an add wrote for ``digest`` that are in the work tree now.

    Its object and metadata files; its names file, only when it names ``digest``; for a
    run, the forward record of each reference (:func:`kistore.core.layout.forward_path`)
    and its group file (:func:`kistore.core.layout.group_path`, the key computed as an add
    computes it). Nothing another manifest's add wrote.

    Args:
        view: the work tree.
        digest: a stored manifest.

    Returns:
        ``(kind, name, paths)``: kind and name as its files say them (None when unreadable),
        and the paths, the object's last (a drop stopped midway can be run again by digest).
    """
    object_path = layout.object_path(digest)
    data = view.read(object_path)
    doc = lenient_object(data)
    metadata_data = view.read(layout.metadata_path(digest))
    metadata = lenient_object(metadata_data)
    kind, name = doc.get("kind"), metadata.get("name")
    kind = kind if isinstance(kind, str) else None
    name = name if isinstance(name, str) and layout.is_name(name) else None
    paths = []  # forward records and group files: not read yet, looked for at the end
    read = []  # files read above, known to be there
    spec = doc.get("spec")
    keys = RunKeys(lambda hex_: view.read(layout.object_path(Digest(hex_))))
    if kind == "BenchmarkRun" and isinstance(spec, dict):
        for ref in dict.fromkeys(_references(spec).values()):
            with contextlib.suppress(ValueError):
                paths.append(layout.forward_path(Digest(ref[7:]), digest))
        paths += _group_file(keys, digest, spec)
    elif kind in REFERENCE_KINDS.values():
        # the add of a protocol or environment an earlier run named (dangling) wrote that
        # run's group file: its key could be computed from then on (reviewer r86 F15)
        for run in view.list_dir(layout.forward_dir(digest)):
            with contextlib.suppress(ValueError):
                run_spec = lenient_object(view.read(layout.object_path(Digest(run)))).get("spec")
                if isinstance(run_spec, dict):
                    paths += _group_file(keys, Digest(run), run_spec)
    if kind is not None and name is not None:
        with contextlib.suppress(ValueError):
            names_path = layout.name_path(kind, name)
            if layout.digest_from_record(view.read(names_path) or b"") == digest:
                read.append(names_path)
    elif kind in KINDS:  # no metadata (an add killed before it wrote one): no name known
        read += view.names_files_of(kind, digest)
    read += [p for p, held in ((layout.metadata_path(digest), metadata_data),
                               (object_path, data)) if held is not None]
    return kind, name, [p for p in paths if view.read(p) is not None] + read


def _references(spec: dict[str, object]) -> dict[str, str]:
    """Return a run spec's reference fields that hold a digest: field -> ``sha256:<hex>``."""
    return {f: v for f in REFERENCE_FIELDS
            if isinstance(v := spec.get(f), str) and v.startswith("sha256:")}


def _group_file(keys: RunKeys, run: Digest, spec: dict[str, object]) -> list[str]:
    """Return the group file of a run as an add computes it from the work tree, if any.

    Empty when its key cannot be computed (its protocol or environment is not stored).
    """
    group = keys.group(_references(spec))
    return [] if group is None else [layout.group_path(group[0], run)]


def _files(view: View, head: View | None, digest: Digest) -> Dropped:
    """Return :class:`Dropped` of ``digest``: its files the work tree holds and HEAD lacks."""
    kind, name, paths = manifest_files(view, digest)
    kept = [p for p in paths if head is None or head.read(p) is None]
    return Dropped(digest, kind, name, tuple(kept))


def _committed(digest: Digest) -> KistoreError:
    """Return the refusal of a manifest whose object HEAD holds."""
    return ConflictError(
        f"{digest} is committed (HEAD holds its object): a committed object stays in the "
        "store for good (objects are never deleted, KI402), and so does its name; add the "
        "corrected manifest as a new one, with another metadata.name",
        file=layout.object_path(digest))


def _committed_name(leftover: Dropped) -> KistoreError:
    """Return the refusal of a names-file-only leftover that HEAD holds (a committed name)."""
    return ConflictError(
        f"{leftover.kind}/{leftover.name} is committed (HEAD holds its names file, which names "
        f"{leftover.digest}, a manifest the store does not hold): a committed name never "
        "moves (KI208), and drop removes only what was never committed; add the manifest "
        "it names, or restore its files from git", file=leftover.paths[0])


def _referenced(store: Store, digests: Sequence[Digest], head: View | None
                ) -> list[KistoreError]:
    """Return a refusal per dropped manifest that an uncommitted manifest not dropped references.

    Asked of the work tree's catalog (HEAD's index with the uncommitted files over it),
    under the write lock: no run can be added meanwhile. A referrer ``HEAD`` holds does
    not count: ``HEAD`` holds it with that reference dangling (the dropped manifest is not
    committed), so the drop returns to a state ``HEAD`` had (KI201, a warning), and the
    advice "drop them in the same command" was refused for it (KI402; reviewer r86 F15).
    """
    # Lazy: the index loads only for a drop (a read such as `kistore show` never drops).
    from ..index.index import open_catalog

    wanted = {str(d) for d in digests}
    referrers: dict[str, list[str]] = {}
    for record in open_catalog(store, None).referencing(wanted):
        if record.digest in wanted:
            continue  # dropped in the same command
        if head is not None and head.has_object(Digest(record.digest[7:])):
            continue  # committed dangling: HEAD's own state
        targets = (record.workload, record.protocol, record.environment, record.implementation)
        for field_name, target in zip(REFERENCE_FIELDS, targets, strict=True):
            if target in wanted:
                referrers.setdefault(target, []).append(
                    f"{record.kind}/{record.name} ({record.digest}, {field_name})")
    return [ConflictError(
        f"{target} is referenced by {', '.join(sorted(named))}: dropping it would leave "
        "them dangling; drop them in the same command, or keep it",
        file=layout.object_path(Digest(target[7:])))
        for target, named in referrers.items()]


def _remove(store: Store, dropped: Sequence[Dropped]) -> None:
    """Unlink every path of ``dropped``, then the directories left empty.

    Raises:
        StoreStateError: a file could not be removed; the message lists what was removed
            and what remains (``kistore drop`` of the same digest removes the rest).
    """
    assert store.root is not None
    removed: list[str] = []
    paths = [p for d in dropped for p in d.paths]
    for i, path in enumerate(paths):
        try:
            os.unlink(store.root / path)
        except FileNotFoundError:
            pass  # gone meanwhile (by hand): nothing to remove
        except OSError as e:
            raise StoreStateError(
                f"could not remove it ({e.strerror}); removed: "
                f"{', '.join(removed) or 'nothing'}; still there: {', '.join(paths[i:])}. "
                "Fix the cause and run `kistore drop` again with the digest",
                file=path) from e
        removed.append(path)
        _prune(store, path)
    # the name index notices removed files by their directories' mtimes; forgetting the
    # digests makes sure a same-second removal is noticed too
    names = store.name_index()
    for d in dropped:
        with contextlib.suppress(sqlite3.Error, OSError):  # derived: a reindex rebuilds it
            names.forget("work", d.digest)


def _prune(store: Store, path: str) -> None:
    """Remove the parents of ``path`` left empty, never the layout's top directories."""
    assert store.root is not None
    parts = path.split("/")[:-1]
    while len(parts) > _KEPT_DEPTH:
        try:
            os.rmdir(store.root.joinpath(*parts))
        except OSError:  # not empty (or gone): its parents are not empty either
            return
        parts.pop()
