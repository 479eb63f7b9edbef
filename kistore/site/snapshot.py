"""The store at one commit, as the site reads it: records, groups, rankings, manifests.

A :class:`Snapshot` answers everything a page needs from one commit, reading lazily and
once: the query index's records (:func:`kistore.index.index.open_catalog`), the ranking
policy of that commit, each comparison group ranked (:func:`kistore.query.ranking.
rank_group`), evidence levels (:func:`kistore.query.answers.evidence_map`, asked once
for every run a build renders), manifests re-hashed on read, and the commit that first
added each run (:func:`kistore.cite.citation.first_commits`, one history walk).

Reads the store, never writes it (the derived index under ``.git/kistore/`` may be
brought up to date, as every query does).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..attest.evidence import Evidence
from ..core import layout
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError, StoreStateError
from ..core.model import Manifest
from ..index.index import open_catalog
from ..index.records import Record
from ..query.answers import evidence_map
from ..query.policy import load_policy
from ..query.ranking import Ranking, rank_group

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

NAME = re.compile(r"^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$")
"""A metadata name as ``schemas/common.json`` allows it (safe as one path segment)."""

SOURCE = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
"""A ``sourceNative.source`` as the run schema allows it (any length: a long one names its
page's directory in the short form, :func:`kistore.site.pages.source_path`)."""

NO_SOURCE = "_unspecified"
"""The page of runs that name no source (``_`` never starts a source name)."""

SHORT = 16
"""Hex digits of a digest that name its page's directory (``runs/384a96d0ed687458/``)."""


class Snapshot:
    """One commit of a store, read for the site.

    Args:
        store: a :class:`kistore.store.Store`.
        commit: the pygit2 Commit to read.
        comparison: ``measured`` or ``source-native`` to rank every group so; None for the
            ranking policy's choice.
        notes_at: the notes commit whose attestations are read (a commit id, or
            :data:`kistore.git.notes.NO_NOTES`); None: the tip of ``refs/notes/kistore``.

    Attributes:
        rev: the commit id (40 hex).
        view: the :class:`kistore.store.View` of the commit.
        records: every readable manifest's record, by digest string.
        runs: the runs' records, in digest order.
        groups: comparison key -> its runs (digest order).
        ungrouped: runs with no comparison key (a protocol or environment not in the store).
        workloads: workload digest -> runs naming it (digest order), for every workload that
            is stored or named by a run.
        sources: source id -> runs (``sourceNative.source``; :data:`NO_SOURCE` for none).
        names: run name -> record.
        skipped: manifests the index left out as damaged: digest -> (path, problem).

    Raises:
        StoreStateError: two runs, groups or workloads share the first :data:`SHORT` hex
            digits of their digest (their pages would share a directory).
    """

    def __init__(self, store: Store, commit: Any, *, comparison: str | None = None,
                 notes_at: str | None = None) -> None:
        self.store = store
        self.notes_at = notes_at
        self.commit = commit
        self.rev = str(commit.id)
        self.comparison = comparison
        self.view = store.view(self.rev)
        self.catalog = open_catalog(store, self.rev)
        self.skipped = dict(self.catalog.skipped())
        records = self.catalog.records()
        self.records: dict[str, Record] = {r.digest: r for r in records}
        self.runs = sorted((r for r in records if r.kind == "BenchmarkRun"),
                           key=lambda r: r.digest)
        self.groups: dict[str, list[Record]] = {}
        self.ungrouped: list[Record] = []
        self.workloads: dict[str, list[Record]] = {
            r.digest: [] for r in records if r.kind == "Workload"}
        self.sources: dict[str, list[Record]] = {}
        self.names = {r.name: r for r in self.runs}
        for run in self.runs:
            if run.comparison_key is not None:
                self.groups.setdefault(run.comparison_key, []).append(run)
            else:
                self.ungrouped.append(run)
            if isinstance(run.workload, str):
                self.workloads.setdefault(run.workload, []).append(run)
            self.sources.setdefault(source_of(run), []).append(run)
        self.workloads = dict(sorted(self.workloads.items()))
        self.groups = dict(sorted(self.groups.items()))
        self.sources = dict(sorted(self.sources.items()))
        for label, digests in (("runs", [r.digest for r in self.runs]),
                               ("comparison groups", list(self.groups)),
                               ("workloads", list(self.workloads))):
            _check_unique_short(label, digests)
        self.policy = load_policy(self.view)
        self._rankings: dict[str, Ranking | str] = {}
        self._evidence: dict[str, Evidence] = {}
        self._runs: OrderedDict[str, Manifest | None] = OrderedDict()
        self._shared: dict[str, Manifest | None] = {}

    # -- rankings and evidence ---------------------------------------------------------

    def prime_evidence(self, runs: Iterable[Record]) -> None:
        """Read the evidence of ``runs`` (one pass over notes and attestation files).

        Runs already read are skipped; call it with every run a build will show before
        asking :meth:`ranking` or :meth:`evidence`, so attestations are read once.
        """
        wanted = list({r.digest: r for r in runs if r.digest not in self._evidence}.values())
        if wanted:
            self._evidence.update(evidence_map(self.store, wanted, at=self.rev,
                                               notes_at=self.notes_at))

    def evidence(self, run: Record) -> Evidence:
        """Return a run's evidence (read now if :meth:`prime_evidence` did not)."""
        if run.digest not in self._evidence:
            self.prime_evidence([run])
        return self._evidence[run.digest]

    def ranking(self, key: str) -> Ranking | str:
        """Return comparison group ``key`` ranked, or why it cannot be (one line).

        The comparison is the policy's for the group's family and primary statistic (of
        its first run by digest), or the snapshot's ``comparison``. A group that cannot be
        ranked (runs disagreeing in the unit of the ranked value, no source-native metric
        for its family) is shown with the reason instead of failing the whole site.
        """
        if key not in self._rankings:
            runs = self.groups[key]
            self.prime_evidence(runs)
            first = runs[0]
            try:
                chosen = self.policy.comparison(first.family or "", first.statistic or "mean",
                                                self.comparison)
                self._rankings[key] = rank_group(
                    key, runs, chosen, {r.digest: self._evidence[r.digest] for r in runs})
            except InputError as e:
                self._rankings[key] = e.message
        return self._rankings[key]

    # -- manifests ---------------------------------------------------------------------

    def manifest(self, digest: str | None) -> Manifest | None:
        """Return a stored manifest (re-hashed on read), or None when absent or unreadable.

        Runs are kept in a small LRU cache, other kinds (shared by many runs) for the
        snapshot's life.
        """
        if not isinstance(digest, str):
            return None
        record = self.records.get(digest)
        cache = self._runs if record is not None and record.kind == "BenchmarkRun" \
            else self._shared
        if digest in cache:
            if cache is self._runs:
                self._runs.move_to_end(digest)
            return cache[digest]
        found: Manifest | None
        try:
            found = self.view.manifest(Digest.from_str(digest))
        except KistoreError:
            found = None  # dangling or damaged: the page shows its digest only
        cache[digest] = found
        if len(self._runs) > 256:
            self._runs.popitem(last=False)
        return found

    def required(self, digest: str) -> Manifest:
        """Return a manifest the catalog lists at this commit, or the error reading it says.

        The catalog (the index) lists a run without reading its object; a page of it needs
        the object itself. A blob damaged since the index was built (review 2026-12-02 F26:
        the page asserted and the build ended in "internal error") stops the build here.

        Args:
            digest: the manifest's digest string (``sha256:`` + 64 hex).

        Returns:
            The manifest, re-hashed on read (:meth:`manifest`).

        Raises:
            KistoreError: what the read says: the git object cannot be read
                (:class:`kistore.git.blobs.ObjectUnreadable`, naming the path, the object
                and `git fsck`), or the object is absent or does not verify.
        """
        found = self.manifest(digest)
        if found is None:  # read again, to raise what the cached miss swallowed
            return self.view.manifest(Digest.from_str(digest))
        return found

    def related(self, run: Manifest) -> dict[str, Manifest | None]:
        """Return the manifests a run references, by field (None: not in the store)."""
        return {field: self.manifest(str(digest))
                for field, digest in run.references().items()}


def source_of(run: Record) -> str:
    """Return the source id a run names (``sourceNative.source``), or :data:`NO_SOURCE`."""
    native = run.spec.get("sourceNative")
    source = native.get("source") if isinstance(native, dict) else None
    return source if isinstance(source, str) and SOURCE.match(source) else NO_SOURCE


def short(digest: str) -> str:
    """Return the first :data:`SHORT` hex digits of a digest string (a page directory)."""
    return digest.removeprefix("sha256:")[:SHORT]


def _check_unique_short(label: str, digests: list[str]) -> None:
    seen: dict[str, str] = {}
    for digest in digests:
        other = seen.setdefault(short(digest), digest)
        if other != digest:
            raise StoreStateError(
                f"two {label} share the first {SHORT} hex digits of their digests ({other} "
                f"and {digest}), so their pages would share a directory; the site cannot "
                "be built until kistore names pages by more digits (report this)")


def object_path(digest: str) -> str:
    """Return the repository path of a manifest's object file."""
    return layout.object_path(Digest.from_str(digest))
