"""KI218 before an add writes: a run stating another primary statistic than its protocol.

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
  read per run listed. Warned on the protocol, naming each run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core import layout
from ..core.comparison import stored_spec
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import REFERENCE_FIELDS, Manifest, metadata_name
from ..core.statistics import (
    RUN_POINTER,
    STATISTIC_DISAGREES,
    disagreement,
    named,
    protocol_statistic,
    run_statistic,
)
from ._store import AdmissionWarning

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store
    from ._views import View

_PROTOCOL = REFERENCE_FIELDS.index("protocolDigest")

PROTOCOL_POINTER = "/spec/measurement/primaryStatistic"
"""Where a protocol states its statistic (the warning's JSON Pointer on an added protocol)."""


def statistics_admitted(store: Store, manifests: Sequence[Manifest]
                        ) -> list[tuple[Digest, KistoreError]]:
    """KI218 warnings for the runs and protocols an add would add.

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
    """
    view = store.view(None)
    batch = {m.digest.hex: m for m in manifests}
    protocols: dict[str, tuple[str, str | None] | None] = {}  # hex -> (statistic, name)

    def protocol(hex_: str) -> tuple[str, str | None] | None:
        if hex_ not in protocols:
            m = batch.get(hex_)
            if m is not None:
                stat = protocol_statistic(m.spec) if m.kind == "BenchmarkProtocol" else None
                protocols[hex_] = None if stat is None else (stat, m.name)
            else:
                protocols[hex_] = _stored_protocol(view, hex_)
        return protocols[hex_]

    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        if m.kind == "BenchmarkRun" and len(m.reference_hex) > _PROTOCOL \
                and m.reference_hex[_PROTOCOL]:
            hex_ = m.reference_hex[_PROTOCOL]
            known = protocol(hex_)
            said = None if known is None else _said(
                named(m.kind, m.name, str(m.digest)), stated(m),
                named("BenchmarkProtocol", known[1], f"sha256:{hex_}"), known[0])
            if said is not None:
                problems.append((m.digest, AdmissionWarning(said, pointer=RUN_POINTER)))
        elif m.kind == "BenchmarkProtocol":
            known = protocol(m.digest.hex)
            if known is None:
                continue
            for run_hex in _earlier_runs(view, m.digest):
                if run_hex in batch:
                    continue  # judged as a run of the batch
                run = _stored_run(view, run_hex)
                said = None if run is None or run[0] != m.digest.hex else _said(
                    named("BenchmarkRun", run[2], f"sha256:{run_hex}"), run[1],
                    named(m.kind, m.name, str(m.digest)), known[0])
                if said is not None:
                    problems.append((m.digest, AdmissionWarning(said,
                                                                pointer=PROTOCOL_POINTER)))
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


def _said(run: str, run_stat: str | None, protocol: str, protocol_stat: str) -> str | None:
    """Return the warning's words (None when the two agree, or the run states no statistic)."""
    message = None if run_stat is None else disagreement(run, run_stat, protocol,
                                                         protocol_stat)
    if message is None:
        return None
    return (f"{message}; {STATISTIC_DISAGREES.hint} ({STATISTIC_DISAGREES.id}: added all "
            "the same; `check` and `verify` warn too)")


def _stored_protocol(view: View, hex_: str) -> tuple[str, str | None] | None:
    """Return a stored protocol's (statistic, name), or None: absent, tampered, another kind."""
    digest = Digest(hex_)
    spec = stored_spec(view.read(layout.object_path(digest)), hex_, "BenchmarkProtocol")
    stat = protocol_statistic(spec)
    return None if stat is None else (stat, metadata_name(view.read(layout.metadata_path(digest))))


def _earlier_runs(view: View, protocol: Digest) -> list[str]:
    """Return the runs (hex) whose forward records say they named ``protocol`` while missing."""
    return sorted(leaf for leaf in view.list_dir(layout.forward_dir(protocol))
                  if len(leaf) == 64 and all(c in "0123456789abcdef" for c in leaf))


def _stored_run(view: View, hex_: str) -> tuple[str | None, str | None, str | None] | None:
    """Return a stored run's (protocol hex, statistic, name), or None when it is no run."""
    digest = Digest(hex_)
    spec = stored_spec(view.read(layout.object_path(digest)), hex_, "BenchmarkRun")
    if spec is None:
        return None
    ref = spec.get("protocolDigest")
    protocol_hex = ref[7:] if isinstance(ref, str) and ref.startswith("sha256:") else None
    return protocol_hex, run_statistic(spec), metadata_name(view.read(layout.metadata_path(digest)))
