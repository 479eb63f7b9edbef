"""What ``add``'s rules read of one BenchmarkRun alone, found once, where its spec is parsed.

An add judges each new run by rules that need the run and nothing else: its
contradictions (KI222-KI224, KI228), its name against its source's record (KI209), a
claim of KernelBench's data its importer does not make (KI226), a latency that reads as
another unit (KI230, KI233), the board it states (KI238's half) and the source record it
claims (KI232's half). Each rule used to parse the run's spec again, in the add's one
serial stretch (issue 22: ~5 parses a run, ~55 us a run of the parent's CPU at 20,000).
:class:`RunFacts` holds those answers; :func:`facts_of` finds them once a run and keeps
them on the manifest (small: most are None or empty). A bulk add of JSON Lines finds them
in its parse workers (:mod:`kistore.store.inputs`), where each document is parsed anyway,
on every CPU: :func:`plain` and :func:`restored` carry them between processes.

Two rules needing the batch and the ranking policy, KI221 (a ranked value that is no
number) and KI234 (a run far ahead of its group), read a run's ``spec`` too; each run's
share of them, the spec cut to the top-level keys the policy's ranking reads
(:attr:`RunFacts.ranked`), is found here as well once the add names those keys
(:func:`keeping_ranked`, before its input is parsed): the add then neither parses each
run's spec again in its serial stretch nor keeps every run's parsed document until it
ends (issue 22: kilobytes a run at 100,000 and more).

The rules themselves stay where they are (:mod:`kistore.store.admission`,
:mod:`kistore.store.latency`, :mod:`kistore.store.boards`, :mod:`kistore.store.claims`), and
so do their words: the answers are those the same functions give on the same spec (the
canonical bytes parsed again, so numbers read as they always did: ``1.0`` as ``1``).
Rules needing the batch or the store (references, names, groups, units, outliers) are not
here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from ..core.boards import Board, board_of, may_state_board, reads_metadata
from ..core.claims import Claim, claim_of, may_claim
from ..core.contradictions import (
    Contradiction,
    implausible_latencies,
    latency_units_disagree,
    run_contradictions,
)
from ..core.model import Manifest
from ..core.naming import external_id_disagreement
from ..core.provenance import UnprovenClaim, catalogue, unproven_claim
from ..core.statistics import latency_names


class RunFacts(NamedTuple):
    """The answers of the per-run rules of ``add`` for one BenchmarkRun.

    Attributes:
        contradictions: :func:`~kistore.core.contradictions.run_contradictions` (KI222,
            KI223, KI224, KI228).
        id_disagreement: :func:`~kistore.core.naming.external_id_disagreement` with its
            name (KI209), None when they agree.
        unproven: :func:`~kistore.core.provenance.unproven_claim` (KI226), None for a run
            of the catalogue or one claiming nothing it cannot prove.
        latencies: :func:`~kistore.core.contradictions.implausible_latencies` (KI230).
        latency_slip: :func:`~kistore.core.contradictions.latency_units_disagree` (KI233).
        board: :func:`~kistore.core.boards.board_of` of the run with its name and, when
            read, its metadata (KI238); None when it states none.
        claim: :func:`~kistore.core.claims.claim_of` (KI232), None when it claims nothing.
        ranked: the spec cut to the keys :func:`keeping_ranked` named when the facts were
            found (what KI221 and KI234 read of a run: :func:`ranked_spec`); None when
            no keys were named (no add asked, or the store has no readable policy).
        latency_names: :func:`~kistore.core.statistics.latency_names` (KI252): the
            statistics a passed run's ``timing.latencyNs`` states, None for another run.
    """

    contradictions: tuple[Contradiction, ...]
    id_disagreement: str | None
    unproven: UnprovenClaim | None
    latencies: tuple[Contradiction, ...]
    latency_slip: Contradiction | None
    board: Board | None
    claim: Claim | None
    ranked: dict[str, Any] | None = None
    latency_names: tuple[str, ...] | None = None


_ranked_keys: Callable[[], frozenset[str] | None] | frozenset[str] | None = None
"""The keys :attr:`RunFacts.ranked` keeps: a callable until first asked (the policy is
read only by an add that finds some run's facts), then its answer; None: none kept."""


@contextmanager
def keeping_ranked(keys: Callable[[], frozenset[str] | None]) -> Iterator[None]:
    """Keep each run's spec cut to ``keys()`` on the facts found inside the block.

    Args:
        keys: returns the top-level ``spec`` keys KI221 and KI234 read under the store's
            ranking policy (:func:`kistore.query.outlier_rules.ranked_keys`), or None
            without a readable policy. Called once, when the first run's facts are found
            or before a parse forks its workers (:func:`ranked_keys_now`), never when no
            run is parsed.

    Side effects:
        Module state, restored when the block ends: facts found after it keep no cut.
    """
    global _ranked_keys
    before, _ranked_keys = _ranked_keys, keys
    try:
        yield
    finally:
        _ranked_keys = before


def ranked_keys_now() -> frozenset[str] | None:
    """Return the keys :func:`keeping_ranked` named, asking its callable once (None: none).

    A parse calls it before it forks its workers, so each worker inherits the answer
    instead of reading the policy again.
    """
    global _ranked_keys
    if callable(_ranked_keys):
        _ranked_keys = _ranked_keys()
    return _ranked_keys


def ranked_spec(run: Manifest) -> dict[str, Any]:
    """Return what KI221 and KI234 read of a run's spec: its cut when it is enough, else whole.

    The cut (:attr:`RunFacts.ranked`) holds every key ranking reads of a run that states no
    contradiction and no unproven claim (:func:`kistore.query.outlier_rules.ranked_keys`,
    as ``verify`` judges them); of another run, or one whose facts hold no cut, the spec is
    parsed for this look and not kept (:meth:`~kistore.core.model.Manifest.passing_spec`).

    Args:
        run: a valid BenchmarkRun manifest.

    Returns:
        The spec or its cut; the caller must not change it.
    """
    cut = clean_cut(run)
    return run.passing_spec() if cut is None else cut


def clean_cut(run: Manifest) -> dict[str, Any] | None:
    """Return a run's cut (:attr:`RunFacts.ranked`) when it stands for the run in ranking.

    That is, when the run states no contradiction and no unproven claim: the cut then
    states none either (it holds some of the spec's top-level keys, whole, and each
    contradiction and claim is of values present), so ranking it alone excludes it only
    by its status (:func:`kistore.query.outlier_rules._arrival`'s ``clean``).

    Args:
        run: a valid BenchmarkRun manifest.

    Returns:
        The cut, which the caller must not change; None when the run has no such cut.
    """
    found = facts_of(run)
    if found.ranked is not None and not found.contradictions and found.unproven is None:
        return found.ranked
    return None


def facts_of(run: Manifest) -> RunFacts:
    """Return a BenchmarkRun's :class:`RunFacts`, found on first use and kept on it.

    Args:
        run: a valid BenchmarkRun manifest; what a parse worker found for it
            (:func:`restored`) is used as is.

    Returns:
        The facts: from the run's spec parsed from its canonical bytes, once.
    """
    kept = run.facts
    if isinstance(kept, RunFacts):
        return kept
    found = _found(run) if kept is None else _rebuilt(kept)  # else plain, from a worker
    object.__setattr__(run, "facts", found)
    return found


def attach(run: Manifest) -> None:
    """Find a run's facts now (where its input is parsed), and keep them on it.

    Side effects:
        ``run.facts`` is set; a manifest of another kind is left as it is.
    """
    if run.kind == "BenchmarkRun" and run.facts is None:
        object.__setattr__(run, "facts", _found(run))


def plain(run: Manifest) -> tuple[Any, ...] | None:
    """Return a run's facts as plain tuples and strings (:mod:`marshal`), None when not found.

    :func:`restored` takes them back in the process that receives the manifest.
    """
    found = run.facts
    if not isinstance(found, RunFacts):
        return None
    return (tuple(tuple(c) for c in found.contradictions), found.id_disagreement,
            None if found.unproven is None else tuple(found.unproven),
            tuple(tuple(c) for c in found.latencies),
            None if found.latency_slip is None else tuple(found.latency_slip),
            found.board, found.claim, found.ranked, found.latency_names)


def restored(run: Manifest, values: tuple[Any, ...] | None) -> Manifest:
    """Keep on ``run`` what :func:`plain` gave of it in another process; return ``run``.

    Kept as received and rebuilt on first use (:func:`facts_of`): a run no rule asks about
    (already stored) costs nothing more.
    """
    if values is not None:
        object.__setattr__(run, "facts", values)
    return run


def _rebuilt(values: tuple[Any, ...]) -> RunFacts:
    """Return the :class:`RunFacts` of :func:`plain`'s values."""
    (contradictions, disagreement, unproven, latencies, slip, board, claim, ranked,
     names) = values
    return RunFacts(tuple(Contradiction(*c) for c in contradictions), disagreement,
                    None if unproven is None else UnprovenClaim(*unproven),
                    tuple(Contradiction(*c) for c in latencies),
                    None if slip is None else Contradiction(*slip),
                    None if board is None else tuple(tuple(pair) for pair in board),
                    None if claim is None else tuple(claim), ranked,
                    None if names is None else tuple(names))


def _found(run: Manifest) -> RunFacts:
    """Return a run's facts from its spec (parsed once) and, where a rule reads it, metadata."""
    spec = run.passing_spec()  # not kept on the run (issue 22: memory)
    board = None
    if may_state_board(run.object_bytes):  # else no board, and no metadata parsed
        metadata = run.passing_metadata() if reads_metadata(spec) else None
        board = board_of(run.kind, spec, run.name, metadata)
    unproven = None
    if run.digest.hex not in catalogue():  # the annotations are the claims it may make
        unproven = unproven_claim(run.digest.hex, spec, json.loads(run.metadata_bytes)
                                  if b'"annotations"' in run.metadata_bytes else None)
    keys = ranked_keys_now()
    return RunFacts(tuple(run_contradictions(spec)), external_id_disagreement(spec, run.name),
                    unproven, tuple(implausible_latencies(spec)), latency_units_disagree(spec),
                    board, claim_of(spec) if may_claim(run.object_bytes) else None,
                    None if keys is None else {k: v for k, v in spec.items() if k in keys},
                    latency_names(spec))
