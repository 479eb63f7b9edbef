"""KI232 in ``check`` (an error) and ``verify`` (a warning): two runs claiming one record.

:mod:`kistore.core.claims` owns the rule and its words; :mod:`kistore.store.claims` reads a
comparison group's claims. The gate judges each run the range puts in a group
(:func:`kistore.store.arrivals.runs_arriving`: by a group file it adds, a run it adds, or an
earlier run its new protocol or environment completes) against the other runs of that group
at HEAD: one listing per group, O(change); a run claiming no record (no ``sol-execbench``
``externalId``) reads no other run (a blob-less clone fetches nothing more); each arriving
run's object is read once here. ``verify`` judges every group of the
tree from the claims its contents check read from each object (:func:`judge_claims`: no
object read again) and the group files it lists.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ..attest.evidence import withdrawn_runs
from ..core import layout
from ..core.claims import (
    CLAIMED_TWICE,
    CLAIMED_TWICE_STORED,
    POINTER,
    Claim,
    claim_message,
    stored_claim,
)
from ..core.digest import Digest
from ..core.findings import Finding, Rule
from ..store import View
from ..store.arrivals import runs_arriving
from ..store.claims import Withdrawn, members_claims, read_manifest, shown_run

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


def range_claims(view: View, changed: Iterable[str],
                 withdrawn: Withdrawn | None = None, *, before: View) -> list[Finding]:
    """KI232 (errors) for the runs a range puts in a comparison group.

    Args:
        view: the range's head.
        changed: the repository paths the range adds, changes or deletes.
        withdrawn: which runs a trusted maintainer withdrew (the gate passes
            :func:`kistore.attest.evidence.withdrawn_runs` at the head: the head's
            ``store/attestations/`` files, and notes as this clone has them): a withdrawn
            run claims nothing, so the record's own run may replace it; None: none is.
        before: the range's base (a run whose group file is older than the run arrives
            with its object, and one BASE holds with its group file: reviewer break94).

    Returns:
        One error per run arriving in a group (:func:`~kistore.store.arrivals.runs_arriving`)
        whose claim (:func:`kistore.core.claims.claim_of`) another run of its group at the
        head states
        (one the range leaves as it was, or one it adds whose digest sorts first), on the
        run's object at ``/spec/sourceNative/externalId``, naming those runs.
    """
    arriving = {layout.group_dir(key): {run.hex for run in runs}
                for key, runs in runs_arriving(before, view, changed).items()}
    known: dict[str, Claim | None] = {}  # each arriving run's object read once
    findings = []
    for directory, new in sorted(arriving.items()):
        for hex_ in new:
            known[hex_] = stored_claim(read_manifest(view, layout.object_path(
                Digest.from_str(f"sha256:{hex_}"))), hex_)
        if any(known[hex_] is not None for hex_ in new):  # else no other run is read
            # the arriving runs too: one whose group file is missing (KI215's) is in it
            listed = {h for h in view.list_dir(directory) if len(h) == 64}
            members = ((directory, h) for h in sorted(listed | new))
            findings += _group_findings(view, members_claims(view, members, known), new,
                                        CLAIMED_TWICE, withdrawn)
    return findings


def _group_findings(view: View, groups: Mapping[str, Mapping[Claim, list[str]]],
                    judged: set[str] | None, rule: Rule,
                    withdrawn: Withdrawn | None) -> list[Finding]:
    """Return a finding per run of ``judged`` (None: every run) claiming a claimed record.

    A run ``withdrawn`` names (asked only of the runs of a record two or more claim)
    claims nothing: neither reported nor named.

    ``groups``: :func:`kistore.store.claims.members_claims`. A run is reported when a run
    not judged, or a judged one sorting before it, claims the same record of its group
    (every run is judged: each run claiming a record another claims, so the record's own
    run is not singled out as the copy); the message names them (their metadata files
    read from ``view``).
    """
    findings = []
    for _, claims in sorted(groups.items()):
        for claim, stating in claims.items():
            members = stating
            if len(stating) > 1 and withdrawn is not None:
                out = withdrawn(stating)
                members = [h for h in stating if h not in out]
            for i, hex_ in enumerate(members):
                if judged is not None and hex_ not in judged:
                    continue
                others = members[:i] + [h for h in members[i + 1:]
                                        if judged is None or h not in judged]
                if others:
                    findings.append(Finding(
                        rule, claim_message(claim, [shown_run(view, h) for h in others]),
                        file=layout.object_path(Digest.from_str(f"sha256:{hex_}")),
                        pointer=POINTER,
                        extra={"claimedBy": [f"sha256:{h}" for h in others]}))
    return findings


def judge_claims(view: View, group_paths: Iterable[str],
                 known: Mapping[str, Claim | None],
                 withdrawn: Withdrawn | None = None) -> list[Finding]:
    """KI232 (warnings) for ``verify``, from what its contents check read.

    Args:
        view: the tree verified (a member ``known`` lacks is read from it, and the
            metadata files of the runs a finding names).
        group_paths: the paths under ``store/groups/`` of the tree, as the contents check
            listed them (one that is no group file path, :func:`kistore.core.layout.
            is_group_path`, is left out: KI216's).
        known: run hex -> its claim (:func:`kistore.core.claims.stored_claim` of the object's
            bytes as the contents check read them; None: it claims nothing): such a run's
            object is not read again. A run absent (its object not read whole) is read.
        withdrawn: which runs a trusted maintainer withdrew: a pair of which one is
            withdrawn is no finding (the rankings leave that one out already).

    Returns:
        As :func:`check_claims`.
    """
    members = []  # (path, its directory, its run) of each run that may claim a record
    unknown: list[tuple[str, str]] = []  # members whose object is read here
    for path in group_paths:
        directory, _, hex_ = path.rpartition("/")
        claim = known.get(hex_, _UNREAD)
        if claim is None:
            continue  # a run claiming nothing is skipped
        if claim is _UNREAD:
            if not layout.is_group_path(path):
                continue
            unknown.append((directory, hex_))
        members.append((path, directory, hex_))
    # A finding needs two runs of one group claiming one record: a record one run alone
    # claims (~all of them: 94,984 of 100,000 runs claim one in the bench's store, each
    # its own) is no member's business. Those runs are left out before the sorting and
    # grouping, which cost ~0.5 s a verify at 100,000 (docs/speed.md, ver94), and before
    # their paths are held to the layout (a regular expression each: ver99).
    read = members_claims(view, unknown, {})  # each read once, kept for below
    stating = Counter(c for c in known.values() if c is not None)
    stating.update(c for claims in read.values() for c, hexes in claims.items() for _ in hexes)
    told = {**known, **{h: c for claims in read.values() for c, hexes in claims.items()
                        for h in hexes}}
    told.update((h, None) for _, h in unknown if h not in told)
    shared = [(d, h) for p, d, h in members if (c := told[h]) is not None and stating[c] > 1
              and layout.is_group_path(p)]
    return _group_findings(view, members_claims(view, shared, told), None,
                           CLAIMED_TWICE_STORED, withdrawn)


_UNREAD = object()
"""A run :func:`judge_claims` is not told the claim of (its object is read there)."""


def check_claims(store: Store, at: str | None = None) -> list[Finding]:
    """KI232 (warnings) for ``verify``: every run of a group claiming another's record.

    :func:`judge_claims` of the group files listed here, every member's object read here.
    ``verify`` calls :func:`judge_claims` itself with the claims its contents check read
    (no object read twice).

    Args:
        store: the store.
        at: revision, or None for the work tree.

    Returns:
        One warning per run of a comparison group whose claim another run of the group
        states (each of a pair: which is the source's is not the store's to say), naming
        the others.
    """
    view = store.view(at)
    paths = []
    for shard in sorted(view.list_dir(layout.GROUPS_DIR)):
        for rest in sorted(view.list_dir(f"{layout.GROUPS_DIR}/{shard}")):
            directory = f"{layout.GROUPS_DIR}/{shard}/{rest}"
            paths += [f"{directory}/{h}" for h in view.list_dir(directory) if len(h) == 64]
    return judge_claims(view, paths, {}, withdrawn_runs(store, at=at))
