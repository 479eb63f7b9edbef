"""Names two manifests share: refuse ``KIND/NAME`` that names both, warn where answers show one.

A ``metadata.name`` is unique per kind (docs/design.md §3; ``kistore verify``: KI205). ``add``
refuses a taken name, but a metadata file edited in place, or manifests placed by hand,
can give two manifests of one kind one name. Then ``KIND/NAME`` names both: like git's
"short object ID is ambiguous", a command refuses it and lists the candidates
(:func:`refuse_shared_names`); and an answer that shows such a name says so on stderr
(:func:`warn_shared_names`), naming both digests and files and what to do.

Both ask the index's names about the names in question only
(:meth:`kistore.store.View.shared_names`: O(changed shards)), never the whole store, and
for the work tree; a commit (``--at REV``) only where the command looks the name up in the
index's commit scope of names anyway (``show``, ``cat``, ``cite``, ``attestations``): a commit's
names passed the gate's KI205, and filling that scope for a new commit reads its files.
A name written into a metadata file in place, in a shard directory that did not change,
reaches the index once ``kistore reindex`` has read every file (:mod:`kistore.index.names`);
an answer that shows both manifests still warns, from the names it shows.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import click

from ..core import layout
from ..core.digest import Digest
from ..core.errors import InputError, ResolutionError
from ..core.schema import KINDS

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

FIX = ("a name must be unique per kind (`kistore verify`: KI205): restore a metadata file "
       "edited by hand with `git checkout HEAD -- FILE`; a name never moves (KI208), so the "
       "pull request that added the later one gives its own manifest another name before it "
       "lands")
"""What to do about a shared name, said after the candidates."""


def refuse_incomplete_names(refs: Sequence[str | None]) -> None:
    """Refuse ``KIND/`` with no name: say the reference is incomplete and show its forms.

    It used to be looked up as the empty name: "no BenchmarkRun named ''".

    Raises:
        InputError: ``'BenchmarkRun/' is incomplete: ...`` with the three forms a
            reference takes and how to list the names; exit code 1.
    """
    for ref in refs:
        key = _name_key(ref)
        if key is not None and not key[1]:
            kind = key[0]
            raise InputError(
                f"{ref!r} is incomplete: no name after '{kind}/'; give {kind}/NAME "
                f"(`kistore ls --kind {kind}` lists the names), a digest (sha256:<64 hex>), "
                "or a prefix of at least 8 hex digits")


def refuse_shared_names(store: Store, refs: Sequence[str | None], at: str | None, *,
                        commits: bool = False) -> None:
    """Refuse a ``KIND/NAME`` reference that two or more manifests answer to.

    Args:
        store: the :class:`kistore.store.Store` asked.
        refs: what the person typed (None entries, digests and prefixes are skipped).
        at: the revision asked; a commit (not None) is checked only with ``commits``.
        commits: check commit ``at`` too, when it has no names files (a store never
            migrated: the caller looks ``KIND/NAME`` up in the index's commit scope of
            names anyway; a rank, answered from the query index, does not make it). A
            commit with names files answers ``KIND/NAME`` from its names file alone.

    Raises:
        ResolutionError: ``REF is ambiguous: 2 BenchmarkRun manifests are named 'x':`` then
            each candidate's digest and metadata file, and what to do; exit code 1.
    """
    keys = [key for ref in refs if (key := _name_key(ref)) is not None]
    if not keys or (at is None and store.root is None) or (at is not None and not commits):
        return
    if at is not None and store.view(at).has_names_files():
        # names as paths: the names file decides, checked against its owner's metadata
        # (Store.resolve; KI212 if they disagree). Asking the index's names of a commit
        # would read every metadata file of it the first time (a partial clone: fetch them).
        return
    shared = _shared_names(store, keys, at)
    for ref in refs:
        key = _name_key(ref)
        if key in shared:
            kind, name = key
            raise ResolutionError(
                f"{ref} is ambiguous: {len(shared[key])} {kind} manifests are named "
                f"{name!r}: {_listed(shared[key])}; give the digest (or an 8+ hex prefix) of "
                f"the one you mean; {FIX}")


def warn_shared_names(store: Store, shown: Iterable[Any], at: str | None) -> None:
    """Say on stderr which names an answer shows are held by two or more manifests.

    Args:
        store: the :class:`kistore.store.Store` answered from.
        shown: what the answer shows: records or manifests (each with ``kind``, ``name``
            and ``digest``), or None entries (skipped).
        at: the revision answered. For the work tree (None) the index's names are
            brought up to date (whatever the answer shows) and asked about each name
            shown; for a commit only names the answer itself shows twice are named.
    """
    # counted first: a set per name shown cost ~5 us a manifest (`ls` of 100,000 runs)
    items = [item for item in shown if item is not None]
    counts = Counter(map(attrgetter("kind", "name"), items))
    shared: dict[tuple[str, str], list[Digest]] = {}
    if at is None and store.root is not None:
        # asked even when nothing is shown (an `ls` that lists nothing): the work tree's
        # names follow it as the query rows just did, and `reindex --check` finds them
        # current after any query, not only after one that showed a name (~5 ms: a stat
        # of every shard directory). Many names: ask for every shared name of the store
        # (one pass; usually none).
        asked = list(counts) if len(counts) <= _ASK_EACH else None
        shared = {key: holders for key, holders in _shared_names(store, asked, None).items()
                  if key in counts}
    seen: dict[tuple[str, str], set[str]] = {
        key: {str(d) for d in holders} for key, holders in shared.items()}
    for item in items:
        key = (item.kind, item.name)
        if counts[key] > 1 or key in seen:
            seen.setdefault(key, set()).add(str(item.digest))
    for (kind, name), digests in sorted(item for item in seen.items() if len(item[1]) > 1):
        click.echo(f"warning: {len(digests)} {kind} manifests are named {name!r}: "
                   f"{_listed(sorted(Digest.from_str(d) for d in digests))}; "
                   f"`{kind}/{name}` names none of them; {FIX}", err=True)


_ASK_EACH = 2_000
"""Up to this many names shown, :func:`warn_shared_names` asks about each; more, about every
shared name of the store (the index's names answer both with one pass over their SQL index)."""

_SYNCED: weakref.WeakKeyDictionary[Any, set[str | None]] = weakref.WeakKeyDictionary()
"""The revisions (None: the work tree) whose names in the index this command has brought up to
date, per store: once is enough."""


def _shared_names(store: Store, keys: list[tuple[str, str]] | None, at: str | None
                  ) -> dict[tuple[str, str], list[Digest]]:
    """Return :meth:`kistore.store.View.shared_names` of the work tree or commit ``at``.

    ``keys`` None asks about every shared name.
    The catalog is synced once per store and revision in a command.
    """
    synced = _SYNCED.setdefault(store, set())
    shared = store.view(at).shared_names(keys, sync=at not in synced)
    synced.add(at)
    return shared


def _name_key(ref: str | None) -> tuple[str, str] | None:
    """``(kind, name)`` of a ``KIND/NAME`` reference, else None."""
    kind, slash, name = (ref or "").partition("/")
    return (kind, name) if slash and kind in KINDS else None


def _listed(digests: Iterable[Digest]) -> str:
    """``sha256:1234abcd5678 (store/metadata/...json) and ...``: each digest and its file."""
    items = [f"{str(d)[:19]} ({layout.metadata_path(d)})" for d in digests]
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else items[0]
