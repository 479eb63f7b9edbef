"""KI232 in ``check`` (an error) and ``verify`` (a warning): two runs claiming one record.

:mod:`kistore.core.claims` owns the rule and its words; :mod:`kistore.store.claims` reads a
comparison group's claims. The gate judges each run whose group file the range adds (a run
it adds, or an earlier one its new protocol or environment puts in a group) against the
other runs of that group at HEAD: one listing per group, O(change); a run claiming no
record (no ``sol-execbench`` ``externalId``) reads no other run (a blob-less clone fetches
nothing more). ``verify`` judges every group of the tree (one more read of every run).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..core import layout
from ..core.claims import CLAIMED_TWICE, CLAIMED_TWICE_STORED, POINTER, claim_message, claim_of
from ..core.comparison import stored_spec
from ..core.digest import Digest
from ..core.findings import Finding, Rule
from ..store import View
from ..store.claims import group_claims, read_manifest, shown_run

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


def range_claims(view: View, changed: Iterable[str]) -> list[Finding]:
    """KI232 (errors) for the runs a range puts in a comparison group.

    Args:
        view: the range's head.
        changed: the repository paths the range adds, changes or deletes.

    Returns:
        One error per run whose group file is among ``changed`` and whose claim
        (:func:`kistore.core.claims.claim_of`) another run of its group at the head states
        (one the range leaves as it was, or one it adds whose digest sorts first), on the
        run's object at ``/spec/sourceNative/externalId``, naming those runs.
    """
    arriving: dict[str, set[str]] = {}
    for path in changed:
        parsed = layout.group_from_path(path)
        if parsed is not None:
            arriving.setdefault(layout.group_dir(parsed[0]), set()).add(parsed[1].hex)
    findings = []
    for directory, new in sorted(arriving.items()):
        if any(claim_of(stored_spec(read_manifest(view, layout.object_path(
                Digest.from_str(f"sha256:{hex_}"))), hex_, "BenchmarkRun")) is not None
               for hex_ in new):  # a run claiming nothing reads no other run of its group
            findings += _group_findings(view, directory, new, CLAIMED_TWICE)
    return findings


def _group_findings(view: View, directory: str, judged: set[str] | None,
                    rule: Rule) -> list[Finding]:
    """Return a finding per run of ``judged`` (None: every run) claiming a claimed record.

    A run is reported when a run not judged, or a judged one sorting before it, claims
    the same record (every run is judged: each run claiming a record another claims, so
    the record's own run is not singled out as the copy); the message names them.
    """
    findings = []
    for claim, members in group_claims(view, directory, "").items():
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


def check_claims(store: Store, at: str | None = None) -> list[Finding]:
    """KI232 (warnings) for ``verify``: every run of a group claiming another's record.

    Args:
        store: the store.
        at: revision, or None for the work tree.

    Returns:
        One warning per run of a comparison group whose claim another run of the group
        states (each of a pair: which is the source's is not the store's to say), naming
        the others.
    """
    view = store.view(at)
    findings = []
    for shard in sorted(view.list_dir(layout.GROUPS_DIR)):
        for rest in sorted(view.list_dir(f"{layout.GROUPS_DIR}/{shard}")):
            findings += _group_findings(view, f"{layout.GROUPS_DIR}/{shard}/{rest}", None,
                                        CLAIMED_TWICE_STORED)
    return findings
