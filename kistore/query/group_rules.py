"""Rules that need comparison groups and the ranking policy: checked before a run lands.

``rank_group`` refuses a group whose runs state different units for the ranked value
(a policy ``unitPointer``: each run says its unit): one such run makes ``rank``, ``show``
and ``compare`` fail for every run of its group, for good, since objects are never
deleted. So the gate refuses it when it arrives (KI210), and ``verify`` reports it:

* :func:`units_agree` (a :data:`kistore.check.gate.RangeChecker`): each run the
  range puts in a group (:func:`kistore.store.arrivals.runs_arriving`, which the gate's
  KI232 and KI234 ask too), against the other runs of its group at HEAD; and, when the
  range changes ``store/policy/``, every group of a family whose comparison changed;
* :func:`check_units` (a :data:`kistore.check.audit.Checker`): every group;
* :func:`values_are_numbers` (a :data:`kistore.check.gate.RangeChecker`): KI221, each
  run the range puts in a group whose ranked value is there but no number (a warning);
* :func:`kistore.query.units.units_admitted` (a :data:`kistore.store.AdmissionCheck`
  ``kistore add`` and ``import`` pass to the store): each run an add would add, against
  the other runs of its group in the work tree and in the batch, before anything is
  written.

The rule itself (``UNIT_DISAGREES``, :func:`group_units`) is :mod:`.units`', which
``add`` loads alone.

The gate, ``verify`` and the store sit below the query layer, so their callers pass these
rules explicitly: ``kistore check`` hands :func:`units_agree` to
:func:`kistore.check.gate.check_range` (``checkers=``), ``kistore verify``
:func:`check_units` to :func:`kistore.check.audit.verify` (after its own ``CHECKERS``).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.digest import Digest, is_digest
from ..core.findings import Finding
from ..index.catalog import Loaded, load_manifest
from ..index.index import open_catalog
from ..index.records import Record, describe
from ..store.arrivals import runs_arriving
from .never_numbers import NEVER_A_NUMBER, never_a_number, policy_never_numbers, run_said
from .policy import shown_value
from .ranked_values import VALUE_NOT_A_NUMBER, misstated, ranks_source_native, said, spec_of
from .units import group_units, policy_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..index.catalog import Catalog
    from ..store import Store, View

def _arriving(store: Store, base: str, head: str, changed: set[str]) -> set[str]:
    """Return the digests of the runs the range puts in comparison groups.

    :func:`kistore.store.arrivals.runs_arriving`: a run it adds (its group file older than
    it or not: reviewer break94), an earlier run whose group file it adds (the run landed
    first, past the hook), or one whose dangling reference a new manifest answers, its key
    now known (a new protocol or environment completes it: review 2026-12-01 F1).
    """
    return {str(run) for runs in runs_arriving(store.view(base), store.view(head),
                                               changed).values() for run in runs}


def values_are_numbers(store: Store, base: str, head: str, changed: set[str]
                       ) -> list[Finding]:
    """KI221 (warning) for each run the range puts in a group whose ranked value is no number.

    A source-native family ranks the value at its policy ``metric`` (a JSON Pointer into
    the run spec); a run stating ``"0.5"`` there passes the schemas (source metrics are
    free-form) and ``rank`` leaves it unranked (reviewer r83). O(change): one record per
    run the range puts in a group (:func:`_arriving`). A value that is never a number (an
    object, an array, a boolean, a word: since 2026-12-07, fresh17 F3) is KI249's error
    instead (:mod:`kistore.query.never_numbers`), and so, once per family, is a policy
    change ranking stored runs by such a value (:func:`kistore.query.never_numbers.
    policy_never_numbers`, O(store), only for a range changing the policy).

    Args:
        store: the store; its views at ``base`` and ``head`` are read.
        base: the commit id the range starts from.
        head: the commit id it ends at (a :data:`kistore.check.gate.RangeChecker`'s).
        changed: the paths the range changes; the runs it puts in groups are judged.

    Returns:
        A KI221 (or KI249) finding per such run, on its object file with the JSON Pointer
        of the value (``/spec`` + the metric); KI249's of a policy change, on the policy.
    """
    policy = policy_of(store, head) if changed else None
    if policy is None or not ranks_source_native(policy):
        return []  # a measured latency is a number by the schema
    added = _arriving(store, base, head, changed)
    view = store.view(head)
    findings = []
    for digest in sorted(added):
        # two object files, no catalog: in a partial clone one more blob (the protocol)
        run = spec_of(view, digest, "BenchmarkRun")
        if run is None:
            continue
        # no protocol stored (KI201) or not one (KI202): nothing ranks it yet
        found = misstated(run, spec_of(view, run.get("protocolDigest"), "BenchmarkProtocol"),
                          policy)
        if found is not None:
            comparison, family, stated = found
            never = never_a_number(stated)
            findings.append(Finding(
                NEVER_A_NUMBER if never else VALUE_NOT_A_NUMBER,
                run_said(comparison, family, stated, run) if never else
                said(comparison, family, shown_value(stated)),
                file=layout.object_path(Digest.from_str(digest)),
                pointer="/spec" + comparison.metric, expected="a number",
                found=shown_value(stated)))
    return findings + policy_never_numbers(store, base, head, changed, arriving=added)


def units_agree(store: Store, base: str, head: str, changed: set[str], *,
                whole_tree: bool = False) -> list[Finding]:
    """KI210 for each run the range puts in a group whose unit disagrees with its group's.

    O(change) (issue 22): each group a run enters (:func:`_arriving`) is read through its
    directory at HEAD (:func:`_group_at`: one tree lookup, then the runs it lists), never
    the whole store; a ranking policy change re-ranks every group of a family, so it alone reads
    the catalog of HEAD (O(store), paid only by a pull request changing the policy).

    Args:
        store: a :class:`kistore.store.Store`.
        base: the range's base commit id.
        head: its head commit id.
        changed: the paths the range changes.
        whole_tree: read each group from the catalog of every manifest at HEAD instead
            (O(store): the same findings; the property test of the gate compares the two,
            as :func:`kistore.check.gate.check_range`'s own ``whole_tree``).

    Returns:
        KI210 findings on the added runs' object files, with the JSON Pointer of the unit
        (or on the policy file, when a policy change makes an existing group disagree);
        KI217 (warning) on an added run agreeing with some runs of a group that already
        states several units. None when no family of an added run ranks with a
        ``unitPointer``.
    """
    policy_changed = any(p.startswith(layout.POLICY_DIR + "/") for p in changed)
    policy = policy_of(store, head) if changed else None
    if policy is None or not any("unitPointer" in e for e in policy.families.values()):
        return []
    added = _arriving(store, base, head, changed)
    if not added and not policy_changed:
        return []

    catalog = open_catalog(store, head, use_index=False) \
        if whole_tree or policy_changed else None
    if catalog is not None:
        record_of, group_of = catalog.record, catalog.group
    else:
        lookups = _Lookups(store.view(head), changed)
        record_of, group_of = lookups.record, partial(lookups.group, added=added)
    findings = []
    groups_done: set[str] = set()
    for digest in sorted(added):
        record = record_of(digest)
        if (record is None or record.kind != "BenchmarkRun" or record.comparison_key is None
                or record.comparison_key in groups_done):
            continue
        groups_done.add(record.comparison_key)
        # A group whose every unit is an added run's: on the run stating the rarest unit,
        # with its JSON Pointer (as when some of its runs were there before).
        findings += group_units(group_of(record.comparison_key), policy, added, None)
    if catalog is not None and policy_changed:
        for key, records in _groups(catalog).items():
            if key not in groups_done:
                findings += group_units(records, policy, None, layout.POLICY_FILE)
    return findings


class _Lookups:
    """The runs of HEAD's comparison groups, read by single-path lookups (issue 22).

    Each manifest is read and judged as the catalog's scan judges it
    (:func:`kistore.index.catalog.load_manifest`, validated: bytes that hash to the name,
    canonical, valid against the kind's schema, with metadata), once.

    Args:
        view: HEAD's view.
        changed: the paths the range changes (its group files, added or deleted, name
            runs a group's listing may no longer hold).
    """

    def __init__(self, view: View, changed: set[str]) -> None:
        self.view = view
        self._touched = {str(found[1]) for path in changed
                         if (found := layout.group_from_path(path)) is not None}
        self._records: dict[str, Record | None] = {}
        self._loaded: dict[str, Loaded | None] = {}

    def _load(self, digest: str) -> Loaded | None:
        if digest not in self._loaded:
            self._loaded[digest] = load_manifest(self.view, Digest.from_str(digest),
                                                 validate=True) if is_digest(digest) else None
        return self._loaded[digest]

    def _lookup(self, digest: str) -> tuple[str, dict[str, Any]] | None:
        loaded = self._load(digest)
        return None if loaded is None else (loaded[0], loaded[2])

    def record(self, digest: str) -> Record | None:
        """Return the record of a stored manifest, as the catalog of HEAD holds it, or None."""
        if digest not in self._records:
            loaded = self._load(digest)
            self._records[digest] = None if loaded is None else describe(
                digest, loaded[0], loaded[1], loaded[2], self._lookup)
        return self._records[digest]

    def group(self, key: str, added: set[str]) -> list[Record]:
        """Return the runs of comparison group ``key``, in digest order.

        Those its directory lists at HEAD, the runs ``added`` and those whose group file
        the range adds or deletes, each kept when its own references give it that key (a
        group file naming a run of another group is KI216's): the catalog's group, since a
        run with a known key and no group file is refused (KI215) before it lands.
        """
        listed = {f"sha256:{leaf}" for leaf in self.view.list_dir(
            layout.group_dir(Digest.from_str(key))) if len(leaf) == 64}
        found = (self.record(d) for d in sorted(listed | added | self._touched))
        return [r for r in found if r is not None and r.comparison_key == key]


def check_units(store: Store, at: str | None = None) -> list[Finding]:
    """KI210 for ``verify``: every comparison group whose runs disagree in unit."""
    policy = policy_of(store, at)
    if policy is None or not any("unitPointer" in e for e in policy.families.values()):
        return []

    catalog = open_catalog(store, at, use_index=False)
    findings = []
    for records in _groups(catalog).values():
        findings += group_units(records, policy, None, None)
    return findings


def _groups(catalog: Catalog) -> dict[str, list[Record]]:
    """Return the runs of ``catalog`` by comparison key (runs with a key and a family)."""
    groups: dict[str, list[Record]] = {}
    for record in catalog.records(kind="BenchmarkRun"):
        if record.comparison_key is not None and record.family is not None:
            groups.setdefault(record.comparison_key, []).append(record)
    return groups


