"""Answers: ``rank`` (a run's comparison group, ranked) and ``ls`` (listings).

Every answer is read from a catalog of one view -- the work tree by default, or commit
``at`` for an answer that never changes -- and from the ranking policy of that same view.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..attest.levels import SOURCE_NATIVE, Evidence
from ..core import layout
from ..core.digest import Digest, is_digest
from ..core.errors import InputError, ResolutionError, VerificationError, with_article
from ..core.schema import KINDS
from ..index.catalog import Catalog, committed_fix, damage, limit_key
from ..index.groups import listings_tree, open_group_catalog
from ..index.index import open_catalog
from ..index.records import Record
from ..index.warm import HeadAttested, OutsideCheckout, maybe_attested
from .listing import check_kind
from .policy import RankingPolicy, load_policy
from .ranking import Ranking, rank_group

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store, View


class NoComparisonGroup(InputError):
    """A run whose protocol or environment is not in the store: it cannot be ranked."""


def find(store: Store, catalog: Catalog, ref: str, *, at: str | None = None) -> Record:
    """Resolve what a person typed (digest, 8+ hex prefix, ``KIND/NAME``) to a record.

    ``KIND/NAME`` is one question: its names file gives the digest, checked against its
    owner's metadata and object (:meth:`kistore.store.View.named`: a names file that
    disagrees is refused), then the catalog gives that digest's record (an index lookup by
    digest, not a second lookup of the name). A store without names files, a name with
    no names file, or an owner whose files are damaged is looked up in the catalog by
    name (which names the damaged file); a miss is confirmed by the index's names
    (:meth:`kistore.store.View.find_name`, O(changed shards)); a name written into a
    metadata file in place is found after ``kistore reindex``, and the error for a miss
    says so.

    Raises:
        ResolutionError: nothing matches, or a prefix is ambiguous.
        InputError: ``ref`` has none of the three forms.
        VerificationError: ``ref`` names a manifest whose object or metadata file is
            missing or corrupt; the message names the file and how to restore it; or its
            names file disagrees with its owner (:class:`kistore.store.NamesFileDisagrees`).
    """
    kind, slash, name = ref.partition("/")
    if slash and kind in KINDS:
        view = store.view(at)
        owner = None
        if view.has_names_files():
            with contextlib.suppress(ResolutionError):  # damaged owner files: said below
                owner = view.named(kind, name)  # a names file that disagrees: KI212
        if owner is not None:  # the names file's digest, then the index's record of it
            record = _record(store, catalog, owner, at)
            if record is None:
                raise _left_out(view, catalog, owner, ref)
            if record.kind == kind and record.name == name:
                return record
            raise ResolutionError(f"no {kind} named {name!r} {store.where(at)}")
        record = catalog.named(kind, name)
        if record is not None:
            return record
        lost = catalog.lost(kind, name)  # committed under this name, unreadable here
        if lost is not None:
            raise unreadable_error(store.view(at), Digest.from_str(lost), ref)
        found = store.view(at).find_name(kind, name)
        record = _record(store, catalog, found, at) if found is not None else None
        if found is not None and record is None:
            raise _left_out(store.view(at), catalog, found, ref)
        if record is None or record.name != name:
            raise ResolutionError(f"no {kind} named {name!r} {store.where(at)}")
        return record
    digest = store.resolve(ref, at=at)
    record = _record(store, catalog, digest, at)
    if record is None:
        raise _left_out(store.view(at), catalog, digest, str(digest))
    return record


def _record(store: Store, catalog: Catalog, digest: Digest, at: str | None) -> Record | None:
    """Return the catalog's record of ``digest``; when it has none, why not is checked.

    A manifest whose files read well has a record: when the catalog has none, the catalog
    is asked again (:meth:`~kistore.index.catalog.Catalog.recheck`: the index rebuilds rows
    deleted or edited from outside kistore). None when the files themselves are damaged.
    """
    record = catalog.record(str(digest))
    if record is None and not damage(store.view(at), digest)[0]:
        record = catalog.recheck(str(digest))
    return record


def _left_out(view: View, catalog: Catalog, digest: Digest, ref: str) -> VerificationError:
    """:func:`unreadable_error` of a manifest without a record, and why the catalog skipped it."""
    skipped = catalog.skipped().get(str(digest))
    return unreadable_error(view, digest, ref, committed=skipped is not None, skipped=skipped)


def unreadable_error(view: View, digest: Digest, ref: str, *, committed: bool = False,
                     skipped: tuple[str, str] | None = None) -> VerificationError:
    """Return the error for a stored manifest a query cannot read: which file, what to do.

    Args:
        view: the view the query reads (:meth:`kistore.store.Store.view`).
        digest: the manifest's digest.
        ref: what the person typed, repeated in the message.
        committed: the commit answered (``HEAD`` for the work tree) holds the file so: the
            index build skipped it (:meth:`~.catalog.Catalog.skipped`), and ``git
            checkout`` would only restore the same bytes.
        skipped: the index's ``(path, problem)`` of it (:meth:`~.catalog.Catalog.skipped`),
            said when its files read well here: a file past ``[limits] manifest-bytes``
            (KI106), which the index does not read.

    Returns:
        A :class:`~kistore.core.errors.VerificationError` at the bad file (its path holds the
        digest), e.g. ``store/objects/sha256/95/4b...json: BenchmarkRun/x: the object file
        is corrupt: its sha256 is ...; restore it with `git checkout HEAD -- store/objects/...`,
        and run `kistore verify` to find any other damaged file`` (a file HEAD lacks, from a
        plain add: ```kistore drop DIGEST` removes the files of its add ...``).
    """
    path, problem = damage(view, digest)
    if not path and skipped is not None:  # sound bytes the index left out: past a limit
        path, problem = skipped
        committed = True
    if not path:  # both files read well now: changed while being read
        named = "" if ref == str(digest) else f" ({digest})"
        return VerificationError(f"{ref}{named} could not be read; run `kistore verify`")
    role = "object" if path.startswith(layout.OBJECTS_DIR) else "metadata"
    said = "" if ref == str(digest) else f"{ref}: "  # the path names the digest already
    if committed:
        fix = committed_fix(path, problem)
    else:
        fix = view.damage_fix(path, digest)
    return VerificationError(f"{said}the {role} file {problem}; {fix}", file=path)


def find_run(store: Store, catalog: Catalog, ref: str, *, at: str | None = None) -> Record:
    """Like :func:`find`, for a BenchmarkRun with a comparison key.

    Raises:
        InputError: ``ref`` is another kind.
        NoComparisonGroup: the run's protocol or environment is not in the store (it then
            belongs to no comparison group).
    """
    record = find(store, catalog, ref, at=at)
    if record.kind != "BenchmarkRun":
        raise InputError(f"{ref} is {with_article(record.kind)}, not a BenchmarkRun; give a run")
    if record.comparison_key is None:
        raise NoComparisonGroup(f"run {record.name} ({record.digest}) is in no comparison "
                                f"group: {no_group_reason(catalog, record)}")
    return record


def no_group_reason(catalog: Catalog, record: Record) -> str:
    """Say why a run has no comparison key: which of its protocol and environment is missing.

    A manifest the index left out as past a ``[limits]`` setting (KI106, KI107) is in the
    store: adding it again is refused (past the same limit), so the reason names the
    file, the value or size past the limit, the rule and the limit to raise
    (:func:`kistore.index.catalog.committed_fix`), not "add them".

    Args:
        catalog: the catalog the run was found in (its :meth:`~Catalog.record` and
            :meth:`~Catalog.skipped`).
        record: a run's record whose ``comparison_key`` is None.

    Returns:
        One clause per reference not answered, joined by ``; ``: ``its protocol D is in the
        store but left out by a limit: PATH has ... (string-length); `kistore verify`
        reports KI107; it is left out while the limit stands: raise [limits] string-length
        in kistore.toml if this length is meant``; ``its environment D is in the store but
        does not verify: PATH ...; run `kistore verify``` (a file damaged as committed);
        ``its protocol D is left out: its file in the work tree does not verify or was
        deleted (named above)`` (the CLI's warning names it); ``its protocol D is not in
        the store; add it``. When neither is missing, what was said before of both.
    """
    skipped = catalog.skipped()
    gone = {*catalog.unreadable, *catalog.deleted()}
    said = []
    for role, digest in (("protocol", record.protocol), ("environment", record.environment)):
        if digest is None or catalog.record(digest) is not None:
            continue
        if digest in skipped:
            path, problem = skipped[digest]
            if limit_key(problem) is not None:
                said.append(f"its {role} {digest} is in the store but left out by a limit: "
                            f"{path} {problem}; {committed_fix(path, problem)}")
            else:
                said.append(f"its {role} {digest} is in the store but does not verify: "
                            f"{path} {problem}; run `kistore verify`")
        elif digest in gone:
            said.append(f"its {role} {digest} is left out: its file in the work tree does "
                        "not verify or was deleted (named above)")
        else:
            said.append(f"its {role} {digest} is not in the store; add it")
    return "; ".join(said) or (f"its protocol {record.protocol} or environment "
                               f"{record.environment} is not in the store; add them")


def names_listing_answers(store: Store, at: str | None) -> bool:
    """Return True when ``KIND/NAME`` without a names file at ``at`` is no such name, said so.

    Where the catalog :func:`find` looks a name up in (the query index of ``at``) would
    be built for that one answer in a blob-less clone (:func:`kistore.index.groups.
    listings_tree`: every blob of the store fetched), and the commit keeps its names as
    paths (``store/names/``): the names listing answers a miss, as it answers a hit, and
    nothing more is fetched. Like the group listings, it trusts what the gate and
    ``verify`` keep right (KI2xx): a name written into a metadata file in place is found
    only by building the index (``kistore reindex``, or a full clone).

    Args:
        store: a :class:`kistore.store.Store`.
        at: the revision asked, or None for the work tree (always False).

    Raises:
        InputError: ``at`` names no commit.
    """
    return listings_tree(store, at) is not None and store.view(at).has_names_files()


def run_catalog(store: Store, refs: Sequence[str | Digest], at: str | None = None) -> Catalog:
    """Return the catalog a rank, run page or comparison of the runs ``refs`` reads.

    The query index of the view (:func:`~kistore.index.index.open_catalog`), except in a
    blob-less clone (``git clone --filter=blob:none``) asked about a commit whose index
    is not built: there the runs' comparison groups are read from their committed
    listings (:func:`~kistore.index.groups.open_group_catalog`), fetching the groups'
    blobs, the manifests they reference, the ranking policy and ``kistore.toml`` (not the
    store's every blob, as building the index would), and with them what judging their
    evidence reads next (:func:`evidence_map`): the note blobs and trust file versions
    with the runs asked, each member's attestation files with the members. Same answers
    either way.

    Args:
        store: a :class:`kistore.store.Store`.
        refs: the runs (digest, prefix, ``BenchmarkRun/NAME``, or a :class:`Digest`).
        at: revision, or None for the work tree.

    Raises:
        ResolutionError, InputError: in a blob-less clone, a reference that does not
            resolve (:meth:`kistore.store.Store.resolve`); ``at`` names no commit.
        StoreStateError: a blob-less clone whose remote cannot give the blobs.
    """
    def digests() -> list[Digest]:
        return [r if isinstance(r, Digest) else store.resolve(r, at=at) for r in refs]

    def judging() -> list[str]:
        # Lazy: judging loads notes and trust (~10 ms); only a partial clone's page asks.
        from ..attest.evidence import judging_blobs

        return judging_blobs(store, at)

    views: list[View] = []  # the commit's, made once for every member

    def attestation_files(run: Digest) -> list[str]:
        if not views:
            views.append(store.view(at))
        folder = layout.attestation_dir(run)
        return [f"{folder}/{leaf}" for leaf in sorted(views[0].list_dir(folder))]

    found = open_group_catalog(store, at, digests,
                               prefetch=(layout.POLICY_FILE, layout.SETTINGS_FILE),
                               also=judging, alongside=attestation_files)
    return found if found is not None else open_catalog(store, at)


def evidence_map(store: Store, records: list[Record], *, at: str | None = None,
                 annotated: frozenset[str] | None = None,
                 outside: OutsideCheckout | None = None,
                 notes_at: str | None = None,
                 committed: HeadAttested | None = None) -> dict[str, Evidence]:
    """Return each run's evidence (digest string -> evidence), reading attestations once.

    Args:
        store: a :class:`kistore.store.Store`.
        records: the runs (a comparison group).
        at: revision, or None for the work tree.
        annotated: for the work tree, the object blob ids that carry a note
            (:attr:`Catalog.annotated`); runs with neither a note nor an attestation
            folder then get the empty evidence without notes being read. None: unknown.
        outside: with ``annotated``, in a sparse checkout, the files outside it
            (:attr:`Catalog.outside`): a run whose object file or attestation folder is
            outside the checkout is looked for in ``HEAD``, as git holds it.
        notes_at: the notes commit read (``kistore site build --notes-at``, a query's
            ``--notes-at``); None: the tip of ``refs/notes/kistore``, which ``annotated``
            must be of.
        committed: with ``annotated``, the runs ``HEAD``'s tree holds attestation files
            of (:attr:`Catalog.committed`): a run whose folder the work tree lost is judged
            by ``HEAD``'s files (fresh14 F15); None: the work tree's folders alone.

    Returns:
        The :func:`kistore.attest.evidence.evidence_for` answer of every run, computed in one pass
        by :func:`kistore.attest.evidence.evidence_for_many`.
    """
    digests = [Digest.from_str(r.digest) for r in records]
    asked = digests
    if at is None and annotated is not None and store.root is not None:
        asked = maybe_attested(store.root, digests, annotated, outside, committed)
    found: dict[Digest, Evidence] = {}
    if asked:
        # judging loads notes, findings and the KI3xx rules (~10 ms of start-up, docs/speed.md)
        # Lazy: a group none of whose runs may be attested judges nothing.
        from ..attest.evidence import evidence_for_many

        found = evidence_for_many(store, asked, at=at, notes_at=notes_at)
    return {str(d): found.get(d) or Evidence() for d in digests}


def rank(store: Store, ref: str, *, at: str | None = None, comparison: str | None = None,
         min_evidence: str = SOURCE_NATIVE, catalog: Catalog | None = None,
         policy: RankingPolicy | None = None, notes_at: str | None = None
         ) -> tuple[Record, Ranking]:
    """Rank the comparison group of run ``ref``.

    Args:
        store: a :class:`kistore.store.Store`.
        ref: the run (digest, prefix or ``BenchmarkRun/NAME``).
        at: revision, or None for the work tree.
        comparison: ``measured`` or ``source-native``; None for the policy's choice.
        min_evidence: weakest evidence level ranked (``verified`` keeps verified runs).
        catalog: a catalog of the same view (default: :func:`open_catalog`).
        policy: the ranking policy of the same view, when the caller read it (a command
            reads ``store/policy/ranking.json`` once); None: read here.
        notes_at: the notes commit whose attestations judge the runs (a commit id, or
            ``NO_NOTES``: :func:`kistore.attest.notes_at.notes_asked`, ``--notes-at``);
            None: the tip of ``refs/notes/kistore``.

    Returns:
        The run's record and its group's :class:`Ranking`.

    Raises:
        ResolutionError, InputError: as :func:`find_run`; a policy unit mismatch or an
            unknown comparison or evidence level.
    """
    catalog = catalog or open_catalog(store, at)
    record = find_run(store, catalog, ref, at=at)
    key = record.comparison_key
    assert key is not None and record.family is not None
    policy = policy or load_policy(store.view(at))
    chosen = policy.comparison(record.family, record.statistic or "mean", comparison)
    group = catalog.group(key)
    # the catalog's annotated blobs are the tip's: a notes commit named may annotate others
    evidence = evidence_map(store, group, at=at, outside=catalog.outside, notes_at=notes_at,
                            annotated=catalog.annotated if notes_at is None else None,
                            committed=catalog.committed)
    return record, rank_group(key, group, chosen, evidence, min_evidence=min_evidence)


def list_manifests(store: Store, *, kind: str | None = None, workload: str | None = None,
                   hardware: str | None = None, at: str | None = None,
                   catalog: Catalog | None = None) -> list[Record]:
    """List stored manifests, in (kind, name, digest) order.

    Args:
        store: a :class:`kistore.store.Store`.
        kind: only this kind.
        workload: a workload reference (digest, prefix, ``Workload/NAME``): the workload
            and its runs. A full digest also finds runs of a workload not in the store.
        hardware: a GPU product as the driver names it (``NVIDIA B200``): environments
            with it and runs on them.
        at: revision, or None for the work tree.
        catalog: a catalog of the same view (default: :func:`open_catalog`).

    Raises:
        InputError: an unknown kind; a workload reference that does not resolve.
    """
    check_kind(kind)
    catalog = catalog or open_catalog(store, at)
    workload_digest = None
    if is_digest(workload):  # a full digest may name a workload the store lacks (dangling)
        workload_digest = workload
    elif workload is not None:
        workload_digest = find(store, catalog, workload, at=at).digest
    return catalog.records(kind=kind, workload=workload_digest, hardware=hardware)
