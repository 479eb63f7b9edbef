"""KI218 and KI252 before an add writes: a run's statistic against its protocol's.

KI218: a run stating another primary statistic than its protocol. KI252: a run whose
``timing.latencyNs`` lacks the statistic ranking reads (its protocol's, KI218), warned for
each added run (:func:`unstated_admitted`) and each earlier run an added protocol answers
(:func:`unstated_earlier`, on KI218's read of that run).

:meth:`kistore.store.Store.add` asks :func:`statistics_admitted` with the new manifests
(an :data:`kistore.store.AdmissionCheck` it always runs). Nothing is refused: each
disagreement is an :class:`kistore.store.AdmissionWarning`, which ``kistore add`` and
``import`` print and ``check`` and ``verify`` report too (:mod:`kistore.core.statistics`
owns the rule and its words). Two ways a run and its protocol meet:

* a run the batch adds, whose protocol is in the batch or stored in the work tree: one
  read of that protocol's object (and metadata, for its name), once per protocol;
* a protocol the batch adds, which earlier runs named while it was missing (``add
  --allow-dangling``): those runs are the ones its forward directory lists
  (:func:`kistore.core.layout.forward_dir`), as the gate finds them; one listing, and one
  read per run listed, which judges KI252 too. Warned on the protocol, naming each run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..core import layout
from ..core.comparison import stored_spec
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import REFERENCE_FIELDS, Manifest, lenient_object, metadata_name, name_in
from ..core.statistics import (
    LATENCY_POINTER,
    RUN_POINTER,
    STATISTIC_DISAGREES,
    STATISTIC_UNSTATED,
    disagreement,
    latency_names,
    named,
    protocol_statistic,
    run_statistic,
    unstated,
)
from ._store import AdmissionWarning, ValueWarning
from .run_facts import facts_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store
    from ._views import View

PROTOCOL_POINTER = "/spec/measurement/primaryStatistic"
"""Where a protocol states its statistic (the warning's JSON Pointer on an added protocol)."""


def statistics_admitted(store: Store, manifests: Sequence[Manifest]
                        ) -> list[tuple[Digest, KistoreError]]:
    """KI218 and KI252 warnings for the runs and protocols an add would add.

    Args:
        store: the store added to (its work tree).
        manifests: the manifests the add would add (new objects).

    Returns:
        ``(run digest, AdmissionWarning)`` per added run whose ``timing.primaryStatistic``
        differs from its protocol's ``measurement.primaryStatistic`` (the protocol in the
        batch or stored; at ``/spec/timing/primaryStatistic``), and ``(protocol digest,
        AdmissionWarning)`` per earlier stored run the added protocol's forward records
        list that disagrees with it (at ``/spec/measurement/primaryStatistic``). Each
        message names the run, the protocol, both statistics and the one ranking uses.
        KI252 of each such earlier run follows its KI218 (``(protocol digest,
        ValueWarning)`` at the same pointer, from the same read: :func:`unstated_earlier`).
        Then KI252, ``(run digest, ValueWarning)`` per added passed run whose
        ``timing.latencyNs`` lacks the statistic ranking reads (:func:`unstated_admitted`).
    """
    targets: dict[str, tuple[str, str | None] | None] = {}
    found = referenced_admitted(store, manifests, _PROTOCOL_STATISTIC, targets,
                                earlier=unstated_earlier)
    return found + unstated_admitted(store, manifests, targets)


def unstated_earlier(run: str, spec: Any, protocol: str, statistic: str) -> list[KistoreError]:
    """KI252 of an earlier stored run an added protocol answers (added ``--allow-dangling``).

    Called by :func:`referenced_admitted` on the run it read for KI218 (the protocol's
    forward records list it, and it names the protocol): nothing is read again.

    Args:
        run: the run as the message names it (``BenchmarkRun/NAME (sha256:...)``).
        spec: the run's parsed ``spec``.
        protocol: the added protocol as the message names it.
        statistic: the protocol's ``measurement.primaryStatistic``.

    Returns:
        One :class:`~kistore.store.ValueWarning` at the protocol's
        ``/spec/measurement/primaryStatistic`` (``add`` gives its line and column in a
        ``.json`` input) when the run is passed and its ``timing.latencyNs`` states
        statistics but not ``statistic``; else none. Nothing is refused, and nothing is
        raised (the run is not read again).
    """
    names = latency_names(spec)
    said = None if names is None else unstated(run, names, run_statistic(spec), protocol,
                                               statistic)
    return [] if said is None else [ValueWarning(_unstated_said(said), pointer=PROTOCOL_POINTER)]


def _unstated_said(said: str) -> str:
    """Return KI252's warning of ``said`` (the rule's words): its fix and that it is added."""
    return (f"{said}; {STATISTIC_UNSTATED.hint} ({STATISTIC_UNSTATED.id}: added all the same; "
            "`check` and `verify` warn too)")


def unstated_admitted(store: Store, manifests: Sequence[Manifest],
                      targets: dict[str, tuple[str, str | None] | None]
                      ) -> list[tuple[Digest, KistoreError]]:
    """KI252 warnings: added runs whose ``timing.latencyNs`` lacks the statistic ranking reads.

    Ranking reads the protocol's ``measurement.primaryStatistic`` (KI218), so a run stating
    latencies but not that one ranks nowhere a family is ranked by measured latency
    (:func:`kistore.core.statistics.unstated`). A run that is not ``passed``, or states no
    ``timing.latencyNs``, is not judged (:func:`kistore.core.statistics.latency_names`).

    Args:
        store: the store added to (its work tree).
        manifests: the manifests the add would add (new objects).
        targets: what KI218 read of each protocol (hex -> (statistic, name), None when
            absent, tampered or another kind: :func:`referenced_admitted`); a protocol it did
            not read is read here (the batch's, or one read of the stored object).

    Returns:
        ``(run digest, ValueWarning)`` at ``/spec/timing/latencyNs`` (``add`` gives its line
        and column in a ``.json`` input), naming the run, its protocol, the statistics it
        states and the one ranking reads; for a protocol not stored (nor in the batch), the
        run's own statistic is judged. Nothing is refused.

    Raises:
        FileTooLarge: a stored protocol's object or metadata file in the work tree holds
            more than 16 MiB (:meth:`kistore.store.View.read`'s bound; kistore writes none
            so large, ``verify`` says KI106).
    """
    view = store.view(None)
    batch = {m.digest.hex: m for m in manifests}
    index = REFERENCE_FIELDS.index("protocolDigest")
    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        if m.kind != "BenchmarkRun" or len(m.reference_hex) <= index \
                or not m.reference_hex[index]:
            continue
        names = facts_of(m).latency_names
        if names is None:
            continue
        hex_ = m.reference_hex[index]
        own = stated(m)
        if hex_ not in targets:
            other = batch.get(hex_)
            targets[hex_] = (_stored_target(view, hex_, _PROTOCOL_STATISTIC) if other is None
                             else _batch_target(other))
        known = targets[hex_]
        if known is None and (hex_ in batch
                              or view.read(layout.object_path(Digest(hex_))) is not None):
            continue  # another kind, tampered, or stating no statistic: KI202, KI101 say it
        said = unstated(named(m.kind, m.name, str(m.digest)), names, own,
                        f"sha256:{hex_}" if known is None
                        else named("BenchmarkProtocol", known[1], f"sha256:{hex_}"),
                        None if known is None else known[0])
        if said is not None:
            problems.append((m.digest, ValueWarning(_unstated_said(said),
                                                    pointer=LATENCY_POINTER)))
    return problems


def _batch_target(m: Manifest) -> tuple[str, str | None] | None:
    """Return a batch manifest's (statistic, name) when it is a protocol stating one."""
    value = protocol_statistic(m.spec) if m.kind == "BenchmarkProtocol" else None
    return None if value is None else (value, m.name)


V = TypeVar("V")
"""The value a :class:`Referenced` rule compares (a statistic's text, a board's pairs)."""


@dataclass(frozen=True, slots=True)
class Referenced(Generic[V]):
    """A value a run states that the manifest one of its references names must state too.

    KI218 (a run's statistic, its protocol's) and KI238 (a SOL-ExecBench run's board, its
    workload's definition: :mod:`kistore.store.boards`), judged by
    :func:`referenced_admitted`.

    Attributes:
        field: the run's reference field (``protocolDigest``).
        kind: the kind the referenced manifest must be.
        run_value: the value an added run states (None: nothing judged).
        target_value: the value the referenced manifest's spec states (None: nothing).
        stored_run_value: the value a stored run's spec states, given its metadata (a
            dict, empty when unreadable; None: nothing).
        judge: the problem's words (run named, its value, target named, its value), None
            when the two agree.
        problem: the warning or refusal of those words at a JSON Pointer.
        run_pointer: where a run states its value.
        target_pointer: where the referenced manifest states its value.
        pointer_of: where a run's value disagreeing with a target's is wrong (the run's
            value, the target's), when that depends on them; None: ``run_pointer``.
    """

    field: str
    kind: str
    run_value: Callable[[Manifest], V | None]
    target_value: Callable[[Any], V | None]
    stored_run_value: Callable[[Any, dict[str, Any]], V | None]
    judge: Callable[[str, V, str, V], str | None]
    problem: Callable[[str, str], KistoreError]
    run_pointer: str
    target_pointer: str
    pointer_of: Callable[[V, V], str] | None = None


def referenced_admitted(store: Store, manifests: Sequence[Manifest], rule_: Referenced[V],
                        targets: dict[str, tuple[V, str | None] | None] | None = None,
                        earlier: Callable[[str, Any, str, V], list[KistoreError]] | None = None
                        ) -> list[tuple[Digest, KistoreError]]:
    """Judge what an add would add by ``rule_``: each run against what it names, both ways.

    Args:
        store: the store added to (its work tree).
        manifests: the manifests the add would add (new objects).
        rule_: the value judged and its words.
        targets: filled with what each referenced manifest read states: hex -> (value,
            name), None when it states none (or is absent, tampered or another kind), for
            a caller that reads the same manifests after (KI238's Implementation check
            reads each Workload once: :mod:`kistore.store.boards`); None: kept here only.
        earlier: another rule judged on each earlier stored run read for ``rule_`` (one
            naming the added manifest), from the same read: given the run as named, its
            parsed ``spec``, the added manifest as named and its value, it returns problems
            on the added manifest, after ``rule_``'s of that run (KI252:
            :func:`unstated_earlier`); None: none.

    Returns:
        ``(run digest, problem at rule_.run_pointer or where rule_.pointer_of says)``
        per added run whose value differs
        from the manifest its ``rule_.field`` names (in the batch or stored: one read of
        it, once per manifest), and ``(target digest, problem at rule_.target_pointer)``
        per earlier stored run that the added manifest's forward records list and that
        disagrees with it.
    """
    view = store.view(None)
    batch = {m.digest.hex: m for m in manifests}
    read: dict[str, tuple[V, str | None] | None] = {} if targets is None else targets
    index = REFERENCE_FIELDS.index(rule_.field)

    def target(hex_: str) -> tuple[V, str | None] | None:
        if hex_ not in read:
            m = batch.get(hex_)
            if m is not None:
                value = rule_.target_value(m.spec) if m.kind == rule_.kind else None
                read[hex_] = None if value is None else (value, m.name)
            else:
                read[hex_] = _stored_target(view, hex_, rule_)
        return read[hex_]

    def judged(run: str, value: V | None, named_target: str, known: V) -> str | None:
        return None if value is None else rule_.judge(run, value, named_target, known)

    def at(value: V, known: V) -> str:
        return rule_.run_pointer if rule_.pointer_of is None else rule_.pointer_of(value,
                                                                                    known)

    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        if m.kind == "BenchmarkRun" and len(m.reference_hex) > index \
                and m.reference_hex[index]:
            value = rule_.run_value(m)
            hex_ = m.reference_hex[index]
            known = None if value is None else target(hex_)
            said = None if known is None else judged(
                named(m.kind, m.name, str(m.digest)), value,
                named(rule_.kind, known[1], f"sha256:{hex_}"), known[0])
            if said is not None and value is not None and known is not None:
                problems.append((m.digest, rule_.problem(said, at(value, known[0]))))
        elif m.kind == rule_.kind:
            known = target(m.digest.hex)
            if known is None:
                continue
            for run_hex in earlier_runs(view, m.digest):
                if run_hex in batch:
                    continue  # judged as a run of the batch
                run = _stored_run(view, run_hex, rule_)
                if run is None or run[0] != m.digest.hex:
                    continue
                run_named = named("BenchmarkRun", run[2], f"sha256:{run_hex}")
                target_named = named(m.kind, m.name, str(m.digest))
                said = judged(run_named, run[1], target_named, known[0])
                if said is not None:
                    problems.append((m.digest, rule_.problem(said, rule_.target_pointer)))
                if earlier is not None:
                    problems += [(m.digest, p) for p in earlier(run_named, run[3],
                                                                target_named, known[0])]
    return problems


_KEY = b'"primaryStatistic":'


def stated(run: Manifest) -> str | None:
    """Return a run's ``timing.primaryStatistic``, from its canonical bytes when they say it.

    Parsing a run's document to read one string cost ~40 us a run (a 100,000-run import:
    seconds). In canonical bytes (RFC 8785) a key is ``"primaryStatistic":`` exactly, and
    inside a string every ``"`` is escaped (``\\"``), so those bytes occur only as a key:
    when they occur once, that is ``timing``'s (the schema requires it), and its value is
    the string after them. Otherwise (another object holding such a key, a value with an
    escape) the spec is parsed (:func:`kistore.core.statistics.run_statistic`).

    Args:
        run: a valid BenchmarkRun manifest.

    Returns:
        The statistic, or None when the run states none.
    """
    data = run.object_bytes
    if data.count(_KEY) == 1:
        start = data.find(_KEY) + len(_KEY)
        end = data.find(b'"', start + 1)
        value = data[start + 1:end]
        if data[start:start + 1] == b'"' and end > start and b"\\" not in value:
            return value.decode("utf-8")
    return run_statistic(run.spec)


def _said(run: str, run_stat: str, protocol: str, protocol_stat: str) -> str | None:
    """Return the warning's words (None when the two agree)."""
    message = disagreement(run, run_stat, protocol, protocol_stat)
    if message is None:
        return None
    return (f"{message}; {STATISTIC_DISAGREES.hint} ({STATISTIC_DISAGREES.id}: added all "
            "the same; `check` and `verify` warn too)")


def _stored_target(view: View, hex_: str, rule_: Referenced[V]
                   ) -> tuple[V, str | None] | None:
    """Return a stored manifest's (value, name), or None: absent, tampered, another kind."""
    digest = Digest(hex_)
    value = rule_.target_value(stored_spec(view.read(layout.object_path(digest)), hex_,
                                           rule_.kind))
    return None if value is None else (
        value, metadata_name(view.read(layout.metadata_path(digest))))


def earlier_runs(view: View, protocol: Digest) -> list[str]:
    """Return the runs (hex) whose forward records say they named ``protocol`` while missing.

    Any manifest a run may name (a workload too: :mod:`kistore.store.boards`).
    """
    return sorted(leaf for leaf in view.list_dir(layout.forward_dir(protocol))
                  if len(leaf) == 64 and all(c in "0123456789abcdef" for c in leaf))


def _stored_run(view: View, hex_: str, rule_: Referenced[V]
                ) -> tuple[str | None, V | None, str | None, dict[str, Any]] | None:
    """Return a stored run's (referenced hex, value, name, spec), or None when it is no run."""
    digest = Digest(hex_)
    spec = stored_spec(view.read(layout.object_path(digest)), hex_, "BenchmarkRun")
    if spec is None:
        return None
    ref = spec.get(rule_.field)
    target_hex = ref[7:] if isinstance(ref, str) and ref.startswith("sha256:") else None
    metadata = lenient_object(view.read(layout.metadata_path(digest)))
    return target_hex, rule_.stored_run_value(spec, metadata), name_in(metadata), spec


_PROTOCOL_STATISTIC: Referenced[str] = Referenced(
    "protocolDigest", "BenchmarkProtocol", stated, protocol_statistic,
    lambda spec, _name: run_statistic(spec), _said,
    lambda said, pointer: AdmissionWarning(said, pointer=pointer), RUN_POINTER,
    PROTOCOL_POINTER)
"""KI218 as :func:`referenced_admitted` judges it: a run's statistic, its protocol's."""
