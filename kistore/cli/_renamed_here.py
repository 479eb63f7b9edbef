"""A committed manifest renamed by hand in the work tree, said by the queries (fresh03 H4).

``sed -i`` of a committed run's ``metadata.name`` made ``rank`` list it and ``show`` answer
under the new name with stderr empty, while ``verify`` called it three errors (KI209,
KI211, KI212: a name never moves) and ``show`` of the old name failed. A query of the work
tree answers what the work tree holds (uncommitted adds, ``add --update-metadata``
included): that is what a user who edited it expects to see, and answering one file from
``HEAD`` would be a second rule to learn. So the answer stays the work tree's and
:func:`warn_renamed` says, one line a file, what differs from ``HEAD`` and the way back.

It costs nothing a query did not pay: the work tree's catalog finds a file that is no
longer ``HEAD``'s by its stat data, as ``git status`` does through git's index
(:mod:`kistore.index._fresh`), and reads it again; only manifests so read are compared
with ``HEAD``'s record in the query index (:meth:`kistore.index.catalog.Catalog.renamed`).
A title or other metadata edited is not said: ``verify`` accepts it (KI405, a correction
waiting to be committed). A ``kernelindex.dev/*`` annotation edited is (KI432: the gate
refuses it, and ``verify`` warns of it): :func:`warn_provenance_edited` compares the
manifests so read again with ``HEAD``'s metadata files, annotation by annotation, and says
what the answer did with the edit (fresh12 F5: it said "answered with the work tree's
value" of a ``kernelindex.dev/source`` claim that ``rank`` never reads): ``rank`` and
``compare`` read no ``kernelindex.dev/*`` annotation, so their answer is what ``HEAD``'s
value gives (a run is ranked by its object; a source claim is ``verify``'s KI226), and
``show`` prints the work tree's value only where its page prints the annotation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import one_line

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

SAID_AT_MOST = 3
"""Files named one a line; more are counted in one line after them."""

RANK_READS = "`rank` reads no kernelindex.dev/* annotation: its answer is what HEAD's value gives"
"""What ``rank`` answers with of an annotation edited in the work tree (KI432): a run is
ranked by its object and the index's record, never by its metadata's annotations."""

COMPARE_READS = ("`compare` reads no kernelindex.dev/* annotation: its answer is what HEAD's "
                 "value gives")
"""What ``compare`` answers with of an annotation edited in the work tree, as ``rank``."""

SHOW_READS = ("`show` prints the work tree's value where it prints the annotation (a licence, "
              "upstream or source file line; `--json`'s metadata); the run's source, rank and "
              "evidence read no annotation: they are what HEAD's value gives")
"""What ``show`` of a run answers with: its page's licence, upstream and source file lines
(and ``--json``'s manifest) print the work tree's metadata; its source line is the object's
``sourceNative.source`` and its rank and evidence read no annotation."""

SHOW_OTHER_READS = ("`show` prints the work tree's value where it prints the annotation "
                    "(`--json`'s metadata)")
"""What ``show`` of another kind than a run answers with (its text prints no annotation)."""


def warn_renamed(catalog: Any, digests: Iterable[Any]) -> None:
    """Say on stderr which manifests an answer shows under a name the work tree changed.

    Args:
        catalog: the catalog answered from (:class:`kistore.index.catalog.Catalog`; only
            the work tree's names any).
        digests: the digests the answer shows (strings or :class:`Digest`), None skipped.

    Prints ``warning: PATH: the work tree names it KIND/NEW, HEAD KIND/OLD (...)`` per
    file, at most :data:`SAID_AT_MOST`, then a count of the rest. Raises nothing of its own.
    """
    found = catalog.renamed({str(d) for d in digests if d is not None})
    if not found:
        return
    # Lazy: the paths of a renamed manifest only (a warm answer loads nothing more).
    from ..core import layout
    from ..core.digest import Digest

    for digest, kind, then, now in found[:SAID_AT_MOST]:
        path = layout.metadata_path(Digest.from_str(digest))
        click.echo(one_line(
            f"warning: {path}: the work tree names it {kind}/{now}, HEAD {kind}/{then} (its "
            f"metadata edited by hand): answered as {kind}/{now}, which `kistore verify` "
            f"refuses (a name never moves: KI211, KI212); restore it with `git checkout "
            f"HEAD -- {path}`"), err=True)
    if len(found) > SAID_AT_MOST:
        click.echo(f"warning: {len(found) - SAID_AT_MOST} more manifest(s) of this answer "
                   "are named otherwise in the work tree than in HEAD: `kistore verify` "
                   "lists them", err=True)


def warn_provenance_edited(store: Store, catalog: Any, digests: Iterable[Any],
                           reads: str) -> None:
    """Say on stderr each ``kernelindex.dev/*`` annotation the answer's work tree edits (KI432).

    A committed manifest's provenance annotations never change (KI432: the gate refuses
    the commit), yet a query of the work tree answers what the work tree holds: a licence
    edited by hand, not committed, was shown as the source's own with no word. This says
    it, and what the answer did with it (``reads``): the queries answer from committed or
    validated data where they judge a run (its rank, source and evidence read no
    annotation), and ``show`` prints the work tree's metadata where it prints any.

    Costs nothing in a clean work tree: only manifests the answer already read again from
    the work tree (their files no longer ``HEAD``'s by stat data) are compared
    (:meth:`kistore.index.catalog.Catalog.uncommitted`); no file is read, no module
    imported, no child process started otherwise. A commit's catalog (``--at REV``)
    compares none.

    Args:
        store: the store answered from (:class:`kistore.store.Store`).
        catalog: the catalog answered from (:class:`kistore.index.catalog.Catalog`; only
            the work tree's finds any), or None (nothing is said).
        digests: the digests the answer shows (strings or :class:`Digest`), None skipped.
        reads: what the command answered with of the annotation, in its words
            (:data:`RANK_READS`, :data:`COMPARE_READS`, :data:`SHOW_READS`,
            :data:`SHOW_OTHER_READS`). Call it once the answer is made: a failure after
            it would make the warning moot (fresh12 F6).

    Prints ``warning: PATH: the work tree changes the provenance annotation 'KEY' ('OLD' in
    HEAD, 'NEW' in the work tree, not committed): READS; no commit may make the edit
    (KI432: ...); restore it with `git checkout HEAD -- PATH``` per annotation, at most
    :data:`SAID_AT_MOST`, then a count of the rest. Raises nothing of its own.
    """
    if catalog is None:
        return
    edited = catalog.uncommitted({str(d) for d in digests if d is not None})
    if not edited:
        return
    # Lazy: only an answer with a manifest read again from the work tree gets here.
    from ..core import layout
    from ..core.digest import Digest
    from ..store.provenance_here import edit_said, provenance_edits

    found = provenance_edits(store, [layout.metadata_path(Digest.from_str(d)) for d in edited])
    for edit in found[:SAID_AT_MOST]:
        click.echo(one_line(
            f"warning: {edit.path}: {edit_said(edit)}: {reads}; no commit may make the edit "
            "(KI432: a committed manifest's kernelindex.dev/* annotations are its importer's "
            "record and never change; the gate refuses it, `kistore verify` warns of it); "
            f"restore it with `git checkout HEAD -- {edit.path}`"), err=True)
    if len(found) > SAID_AT_MOST:
        click.echo(f"warning: {len(found) - SAID_AT_MOST} more kernelindex.dev/* annotation(s) "
                   "of this answer are edited in the work tree, not committed (KI432): "
                   "`kistore verify` lists them", err=True)
