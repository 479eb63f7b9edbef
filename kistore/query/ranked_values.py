"""KI221, a run whose ranked value is there but no number: the rule, its words, and ``add``'s use.

A value that is never a number (an object, a word) is KI249's (:mod:`.never_numbers`), which
``add`` refuses here.

A source-native family ranks the value at its policy ``metric`` (a JSON Pointer into the
run spec); a run stating ``"0.5"`` there passes the schemas (source metrics are free-form)
and ``rank`` leaves it unranked (reviewer r83). :func:`kistore.query.group_rules.
values_are_numbers` says so at the gate of each run a range puts in a group;
:func:`values_admitted` (a :data:`kistore.store.AdmissionCheck` ``kistore add`` and
``import`` hand to the store) says it before the run lands: until 2026-12-05 ``add`` said
nothing and a contributor learnt it at the gate (reviewer break96 L7). It reads the policy
and the run's protocol only (no index), so ``add`` stays light.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..attest.levels import SOURCE_NATIVE
from ..core import canonical, layout
from ..core.digest import Digest, is_digest
from ..core.errors import InputError, KistoreError
from ..core.findings import WARNING, rule
from ..core.limits import DEFAULT
from ..core.model import metadata_name
from ..core.statistics import named
from ..store import AdmissionWarning, GroupsCheck, ValueWarning
from ..store.run_facts import ranked_spec
from .never_numbers import NEVER_A_NUMBER, never_a_number, run_said
from .policy import Comparison, RankingPolicy, resolve_pointer, shown_value
from .units import policy_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..core.model import Manifest
    from ..store import Store, View

VALUE_NOT_A_NUMBER = rule(
    "KI221", "ranked-value-not-a-number", WARNING,
    "state the ranked value as a JSON number (0.5, not \"0.5\"); as it is, `rank` leaves "
    "the run unranked")


def ranks_source_native(policy: RankingPolicy | None) -> bool:
    """Return whether a policy ranks some family by a source's own metric (else: no KI221).

    A measured latency is a number by the schema, so only such a family's runs can state
    their ranked value as no number.
    """
    return policy is not None and any(e.get("comparison") == SOURCE_NATIVE
                                      for e in policy.families.values())


def misstated(run: dict[str, Any], protocol: dict[str, Any] | None, policy: RankingPolicy
              ) -> tuple[Comparison, str, Any] | None:
    """Return how a run's family ranks and what it states there, when that is no number.

    Args:
        run: the run's spec.
        protocol: its protocol's spec (None: not stored, KI201's: nothing ranks it yet).
        policy: the ranking policy.

    Returns:
        ``(comparison, family, found)``, ``found`` the value as stated (parsed JSON), when
        the run states a string, boolean, array or object at the policy's metric (KI221's
        or, never a number, KI249's: :func:`kistore.query.never_numbers.never_a_number`);
        None when it states a number, nothing or ``null`` there, its protocol names no
        family, or the family has no metric.
    """
    family = resolve_pointer(protocol, "/comparability/family")
    if not isinstance(family, str):
        return None
    statistic = resolve_pointer(protocol, "/measurement/primaryStatistic")
    try:
        comparison = policy.comparison(family, statistic if isinstance(statistic, str)
                                       else "mean")
    except KistoreError:  # a family with no metric: KI206's or rank's to say
        return None
    stated = comparison.misstated_value(run)
    return None if stated is None else (comparison, family, stated)


def said(comparison: Comparison, family: str, found: str) -> str:
    """Return KI221's message: ``states "0.5" at /M, the value its family 'F' is ranked by ...``."""
    return (f"states {found} at {comparison.metric}, the value its family {family!r} is "
            "ranked by, which is no number")


def values_admitted(store: Store, manifests: Sequence[Manifest],
                    groups: Mapping[str, str] | None = None
                    ) -> list[tuple[Digest, KistoreError]]:
    """KI221 before an add writes: each run it puts in a group whose ranked value is no number.

    Args:
        store: the store added to (its work tree's ranking policy and protocols are read).
        manifests: the manifests the add would add (new objects; a protocol among them
            counts as stored).
        groups: run hex -> group directory of each run whose key the add's plan knows
            (:class:`kistore.store.GroupsCheck`): a stored run among them enters its group
            now (the add's protocol or environment completes its key) and is judged too,
            as the gate judges it (pol97 left: ``add`` said nothing of it, ``check`` did);
            None: the add's own runs only.

    Returns:
        ``(digest, AdmissionWarning)`` per such run, at ``/spec`` + the policy's metric
        (the add names the file and line the run came from), saying what it states, what
        was expected (a number) and what to do; a stored run's on the manifest completing
        its key, naming the run (``BenchmarkRun/NAME (sha256:...), a stored run whose
        comparison group this add completes, states ...``). Every such run is added all
        the same, but one stating a value that is never a number (an object, an array, a
        boolean, a word: :func:`kistore.query.never_numbers.never_a_number`), whose pair
        holds an :class:`kistore.core.errors.InputError` of KI249 instead (since
        2026-12-07, fresh17 F3: the gate refuses it too): the add is refused. Empty when no
        family ranks by a source's own metric.
    """
    runs = [m for m in manifests if m.kind == "BenchmarkRun"]
    pending = sorted(set(groups or ()) - {m.digest.hex for m in manifests})
    policy = policy_of(store, None) if runs or pending else None
    if policy is None or not ranks_source_native(policy):
        return []
    view = store.view(None)
    batch = {str(m.digest): m for m in manifests}
    judged: list[tuple[Digest, str | None, dict[str, Any]]] = [
        (m.digest, None, ranked_spec(m)) for m in runs]  # no run's parse kept (issue 22)
    for hex_ in pending:  # a stored run whose group file this add writes
        spec = spec_of(view, f"sha256:{hex_}", "BenchmarkRun")
        if spec is not None:
            judged.append((Digest(hex_), _name(view, Digest(hex_)), spec))
    problems: list[tuple[Digest, KistoreError]] = []
    for digest, name, spec in judged:
        ref = spec.get("protocolDigest")
        found = misstated(spec, (batch[ref].spec if ref in batch and batch[ref].kind ==
                                 "BenchmarkProtocol" else spec_of(view, ref,
                                                                  "BenchmarkProtocol")),
                          policy)
        if found is None:
            continue
        comparison, family, stated = found
        value = shown_value(stated)
        never = never_a_number(stated)
        text = (f"{run_said(comparison, family, stated, spec)}; {NEVER_A_NUMBER.hint} (KI249: "
                "nothing added; `check` and pre-receive refuse it too)" if never else
                f"{said(comparison, family, value)} (expected a number, found {value}); "
                f"{VALUE_NOT_A_NUMBER.hint} (KI221: added all the same; `check` warns too)")
        if str(digest) in batch:
            problems.append((digest, InputError(
                text, pointer="/spec" + comparison.metric, rule_id=NEVER_A_NUMBER.id)
                if never else ValueWarning(text, pointer="/spec" + comparison.metric)))
            continue
        completing = next(d for f in ("environmentDigest", "protocolDigest")
                          if (d := spec.get(f)) in batch)
        text = (f"{named('BenchmarkRun', name, str(digest))}, a stored run whose comparison "
                f"group this add completes, {text}")
        problems.append((Digest.from_str(completing), InputError(
            text, rule_id=NEVER_A_NUMBER.id) if never else AdmissionWarning(text)))
    return problems


values_check = GroupsCheck(values_admitted)
""":func:`values_admitted` as ``kistore add`` and ``import`` hand it to an add (with the
plan's groups: a stored run its protocol or environment completes is judged too)."""


def _name(view: View, digest: Digest) -> str | None:
    """Return a stored run's name (its metadata file's), None when unreadable."""
    try:
        return metadata_name(view.read(layout.metadata_path(digest), DEFAULT.manifest_bytes))
    except (KistoreError, OSError):
        return None


def spec_of(view: View, digest: Any, kind: str) -> dict[str, Any] | None:
    """Return the ``spec`` of the stored object ``digest`` when it is a ``kind``, else None.

    Unreadable, unparsable or missing objects are other rules' findings (KI101-KI117,
    KI201): None here.
    """
    if not isinstance(digest, str) or not is_digest(digest):
        return None
    try:
        document = canonical.loads(view.object_bytes(Digest.from_str(digest)))
    except (KistoreError, OSError):
        return None
    if not isinstance(document, dict) or document.get("kind") != kind:
        return None
    spec = document.get("spec")
    return spec if isinstance(spec, dict) else None

