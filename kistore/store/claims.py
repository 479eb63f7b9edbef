"""KI232 before an add writes, and the claims of a comparison group ``add`` and ``check`` read.

:mod:`kistore.core.claims` owns the rule and its words. A run's claim
(``(source, benchmark, externalId)``) is compared with those of the other runs of its
comparison group: one listing of ``store/groups/sha256/XX/<62 hex of K>/`` (every run whose
key is known has its file there, KI215), then each member's object, read only when the
added run claims a record. A copy claiming a record in another group (another workload or
protocol) is ranked apart from the record's run and is not found this way.

:func:`claims_admitted` is an :data:`kistore.store.AdmissionCheck` :meth:`Store.add` always
runs: a new run claiming a record another run of its group (stored, or earlier in the same
add) claims with other bytes is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.claims import (
    CLAIMED_TWICE,
    POINTER,
    Claim,
    claim_fix,
    claim_message,
    stored_claim,
)
from ..core.comparison import REFERENCE_KINDS, comparison_key, run_key_object, stored_spec
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.limits import DEFAULT
from ..core.model import Manifest, metadata_name
from ..core.statistics import named
from ._views import FileTooLarge
from .run_facts import facts_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store
    from ._views import View


def read_manifest(view: View, path: str) -> bytes | None:
    """Return a file's bytes, or None when absent, past the manifest limit or unreadable.

    A damaged blob is KI117's to report, once (``verify`` reads every group's runs again).
    """
    try:
        return view.read(path, DEFAULT.manifest_bytes)
    except (FileTooLarge, KistoreError):  # past the limit, or unreadable: KI106's, KI117's
        return None


def shown_run(view: View, hex_: str) -> str:
    """Return a stored run as ``BenchmarkRun/NAME (sha256:...)`` (its metadata file's name)."""
    digest = Digest.from_str(f"sha256:{hex_}")
    name = metadata_name(read_manifest(view, layout.metadata_path(digest)))
    return named("BenchmarkRun", name, str(digest))


def group_claims(view: View, directory: str, skip: str,
                 known: Mapping[str, Claim | None] | None = None) -> dict[Claim, list[str]]:
    """Return the claims of the runs a group directory lists, but ``skip``'s.

    Args:
        view: the tree (a commit, or the work tree).
        directory: :func:`kistore.core.layout.group_dir` of the group.
        skip: the 64 hex digits of a run to leave out (the one judged).
        known: run hex -> its claim (None: it claims nothing) as a caller read it already
            (:func:`kistore.core.claims.stored_claim` of the object's bytes): not read
            again; every other member's object is read here.

    Returns:
        claim -> the 64 hex digits of each member run stating it, sorted. A member whose
        object is missing, tampered or no run is left out (KI216 says so).
    """
    return members_claims(view, ((directory, hex_) for hex_ in view.list_dir(directory)
                                 if hex_ != skip and len(hex_) == 64), known or {}
                          ).get(directory, {})


def members_claims(view: View, members: Iterable[tuple[str, str]],
                   known: Mapping[str, Claim | None]) -> dict[str, dict[Claim, list[str]]]:
    """Return the claims of some group members, by group directory.

    Args:
        view: the tree read for a member ``known`` lacks.
        members: ``(group directory, 64 hex digits of the run)`` per group file.
        known: run hex -> its claim (None: claims nothing) as already read: not read again.

    Returns:
        directory -> claim -> the hex of each member stating it, sorted; a group none of
        whose members claims anything is absent.
    """
    found: dict[str, dict[Claim, list[str]]] = {}
    for directory, hex_ in sorted(members):
        if hex_ in known:
            claim = known[hex_]
        else:
            claim = stored_claim(read_manifest(view, layout.object_path(
                Digest.from_str(f"sha256:{hex_}"))), hex_)
        if claim is not None:
            found.setdefault(directory, {}).setdefault(claim, []).append(hex_)
    return found


Withdrawn = Callable[[Iterable[str]], "set[str]"]
"""Of some runs (64 hex digits each), those a trusted maintainer withdrew (the attest
layer's :func:`kistore.attest.evidence.withdrawn_runs`; the store reads no attestation)."""


def claims_admitted(store: Store, manifests: Sequence[Manifest],
                    groups: Mapping[str, str] | None = None,
                    withdrawn: Withdrawn | None = None
                    ) -> list[tuple[Digest, KistoreError]]:
    """KI232 refusals for the runs an add would add.

    Args:
        store: the store added to (its work tree's group directories and runs are read,
            only for a run claiming a record).
        manifests: the manifests the add would add (new objects).
        groups: run hex -> its group directory, as the add's plan computed them
            (:attr:`kistore.store.admission.AddPlan.groups`: :meth:`Store.add` passes
            them; a run absent has no known key yet); None: each claiming run's key is
            computed here (its protocol and environment read from ``manifests`` or the
            work tree).
        withdrawn: which stored runs a trusted maintainer withdrew (of the hex digests
            given; ``kistore add`` and ``import`` pass :func:`kistore.attest.evidence.
            withdrawn_runs`): such a run claims nothing any more, so the record's own run
            replaces it (reviewer r90 F6, F9); None: none is.

    Returns:
        ``(run digest, InputError)`` per new run whose :func:`kistore.core.claims.claim_of`
        another run of its comparison group states (stored, or earlier in ``manifests``),
        at ``/spec/sourceNative/externalId``, naming those runs.
    """
    runs = [(m, claim) for m in manifests if m.kind == "BenchmarkRun"
            and (claim := facts_of(m).claim) is not None]  # found once a run
    view = store.view(None)
    pending = _pending_claims(view, manifests, groups)
    if not runs and not pending:
        return []
    if groups is None:
        groups = _group_dirs(view, [m for m, _ in runs], manifests)
    problems: list[tuple[Digest, KistoreError]] = []
    earlier: dict[tuple[str, Claim], list[str]] = {}
    stored: dict[str, dict[Claim, list[str]]] = {}
    judged: list[tuple[Digest, Claim, str, str | None]] = [
        (m.digest, claim, named("BenchmarkRun", m.name, str(m.digest)), None)
        for m, claim in runs]
    judged += [(digest, claim, shown_run(view, digest.hex), layout.object_path(digest))
               for digest, claim in pending]
    for digest, claim, shown, file in judged:
        directory = groups.get(digest.hex)
        if directory is None:
            continue  # no group yet: judged when the protocol or environment comes
        if directory not in stored:
            stored[directory] = group_claims(view, directory, "")
        claimants = [h for h in stored[directory].get(claim, ())
                     if h != digest.hex]  # itself, stored already (a metadata update)
        if claimants and withdrawn is not None:  # asked only of a record claimed
            out = withdrawn(claimants)
            claimants = [h for h in claimants if h not in out]
        others = [shown_run(view, h) for h in claimants]
        others += earlier.setdefault((directory, claim), [])
        if others:
            fix = claim_fix([f"sha256:{h}" for h in claimants] or None)
            completed = "" if file is None else (
                " (a stored run whose comparison group this add's protocol or environment "
                "completes)")
            problems.append((digest, InputError(
                f"{claim_message(claim, others)}{completed}; {fix} ({CLAIMED_TWICE.id}: the "
                "gate refuses it too)", file=file, pointer=POINTER, rule_id=CLAIMED_TWICE.id)))
        earlier[(directory, claim)].append(shown)
    return problems


def _pending_claims(view: View, manifests: Sequence[Manifest],
                    groups: Mapping[str, str] | None) -> list[tuple[Digest, Claim]]:
    """Return the claims of the stored runs whose comparison group the add completes.

    Those runs (``groups``' keys that are no manifest of the add: earlier runs an arriving
    protocol or environment gives a key, :attr:`kistore.store.admission.AddPlan.groups`)
    enter a group as the add writes their group file, so KI232 judges them as it judges
    the add's own runs (reviewer r90 F1: the add of the environment completing a copy's
    key wrote its group file unjudged; only ``check`` found it). Each object read once.
    """
    if not groups:
        return []
    batch = {m.digest.hex for m in manifests}
    found = []
    for hex_ in sorted(set(groups) - batch):
        claim = stored_claim(read_manifest(view, layout.object_path(
            Digest.from_str(f"sha256:{hex_}"))), hex_)
        if claim is not None:
            found.append((Digest.from_str(f"sha256:{hex_}"), claim))
    return found


def _group_dirs(view: View, runs: Sequence[Manifest], manifests: Sequence[Manifest]
                ) -> dict[str, str]:
    """Return run hex -> group directory of each of ``runs`` whose key is known.

    The key's protocol and environment read from ``manifests`` or, stored, from ``view``.
    """
    batch = {m.digest: m for m in manifests}

    def spec_of(digest: Digest, kind: str) -> dict[str, Any] | None:
        m = batch.get(digest)
        if m is not None:
            return m.spec if m.kind == kind else None
        return stored_spec(read_manifest(view, layout.object_path(digest)), digest.hex, kind)

    found = {}
    for m in runs:
        references = m.references()
        specs = {f: spec_of(references[f], kind) if f in references else None
                 for f, kind in REFERENCE_KINDS.items()}
        key_object = run_key_object({f: str(d) for f, d in references.items()},
                                    specs["protocolDigest"], specs["environmentDigest"])
        if key_object is not None:
            found[m.digest.hex] = layout.group_dir(comparison_key(key_object))
    return found
