"""KI232: one record of a source claimed by two runs (the rule and its words; pure, no I/O).

A run importing a source's record states that record's own id,
``spec.sourceNative.externalId`` (a SOL-ExecBench submission, or a local trace case), with
the source. One record has one result: two runs with other bytes claiming the same
``(source, externalId)`` (:func:`claim_of`: one normal form, shared with KI209) contradict
each other, and a copy stating a better score than the record's took rank #1 with a green
gate (reviewer r89 F6: ``sol-submission-25504`` with ``sol_score`` 0.9 above the imported
``sol-kernel-3-submission-25504``, 0.533). KI209 does not close it: a submission's name
may take three forms (``kistore.core.naming.EXTERNAL_ID_NAMES``), and the kernel number
in the imported form is no field of the run.

The benchmark is not part of the claim: one SOL-ExecBench submission id appears on several
boards, with other code measured on each (three ids of the real data do), but each board
is its own comparison group, and a claim is judged within its group (a copy leaving the
benchmark out or spelling it otherwise was "another record": reviewer r90 F1).

A run a trusted maintainer withdrew claims nothing any more: the callers leave withdrawn
runs out (their layers read attestations), so the route the hints give works: withdraw the
run that is not the source's, then add or import the record's own (reviewer r90 F6, F9).

Callers (``kistore/store/claims.py`` for ``add``/``import``, ``kistore/check/_claims.py``
for ``check``, pre-receive and ``verify``) compare a run's claim with the claims of the
other runs of its comparison group, where a copy would displace the record's run: one
directory listing of the tree (``store/groups/``), so the gate stays O(change).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from .comparison import stored_spec
from .findings import ERROR, WARNING, rule
from .naming import naming_source, record_id

CLAIMING_SOURCES = ("sol-execbench",)
"""The sources whose importers state a record's own id as ``externalId``, one per run.
Not ``flashinfer-trace``: its ``externalId`` is a trace's log file, which a new evaluation
of one trace line may share (its importer's tests import such a line as a new run)."""

POINTER = "/spec/sourceNative/externalId"
"""Where a run states the id it claims (the finding's JSON Pointer, on its object file)."""

WITHDRAW = "kistore attest {ref} --type withdrawal -m REASON --key KEY --file"
"""How a trusted maintainer withdraws a run claiming a record that is not its own: a
committed attestation file (``--file``), which the gate reads at the head it judges
(notes reach a CI checkout only when it fetches them)."""


WITHDRAW_FIRST = (
    "; a committed run claiming a source record (a sol-execbench externalId): a trusted "
    f"maintainer withdraws it first (`{WITHDRAW.format(ref='REF')}`, the file committed), "
    "since the corrected run claims the same record (KI232)")
"""What KI230's and KI233's fix add for a committed run (reviewer r90 F9: "add the
corrected run as a new object" was refused by KI232 for every SOL-ExecBench run)."""


def claim_fix(refs: list[str] | None = None) -> str:
    """Return KI232's fix, naming the stored runs (``refs``; None: ``REF``) to withdraw.

    Fits an add, an import, a pull request and a merge alike (reviewer r90 F6, F8, F9):
    the stored run may be the source's (then the new one is a second claim) or not (a
    copy landed first, or a committed run being corrected: withdrawn, it claims nothing
    and the record's own run goes in).
    """
    commands = " and ".join(f"`{WITHDRAW.format(ref=ref)}`" for ref in refs or ["REF"])
    return ("one record of a source has one result. If the run stored is not the "
            "source's (a copy that came first, or a committed run being corrected), a "
            f"trusted maintainer withdraws it first ({commands}; commit the file), then "
            "the add or import is run again; if it is the source's, the new run is a "
            "second one claiming its record (a run you measured yourself states no "
            "source's externalId). Not committed yet: `kistore drop DIGEST` the run not "
            "wanted; a branch or merge bringing both: leave one out of it")


CLAIMED_TWICE = rule("KI232", "external-id-claimed-twice", ERROR, claim_fix())

CLAIMED_TWICE_STORED = replace(CLAIMED_TWICE, severity=WARNING, hint=(
    "nothing to edit (objects are never edited nor removed): a trusted maintainer "
    f"withdraws the run that is not the source's (`{WITHDRAW.format(ref='REF')}`, the "
    "file committed), so rankings leave it out and KI232 no longer counts it"))
"""KI232 as ``verify`` reports it: a warning, since history may hold such a pair for good
(runs stored before 2026-12-04 must still verify); ``add``, ``import`` and the gate refuse
a new one (:data:`CLAIMED_TWICE`)."""

Claim = tuple[str, str]
"""``(source, record id)``, each in its normal form: the source of :data:`CLAIMING_SOURCES`
the stated one names read folded (:func:`kistore.core.naming.naming_source`), the id as
KI209 names runs by it (:func:`kistore.core.naming.record_id`)."""


def claim_of(spec: Any) -> Claim | None:
    """Return the source record a run's spec claims to be, or None.

    One normal form of a claim, shared with KI209 (reviewer r90 F1: each spelling below
    made a copy "another record", ranked #1 with a green gate): the source read folded
    (``sol-exec-bench``, ``SOL.ExecBench`` are ``sol-execbench``), the id in KI209's slug
    form (case, ``/`` or ``-``, a leading ``#``; ``20464`` and ``"20464"``; digits without
    leading zeros: ``025504`` is ``25504``). ``sourceNative.benchmark`` is not part of it:
    the comparison group a claim is judged in fixes the board (a copy leaving the benchmark
    out, or spelling it otherwise, claimed "another record").

    Args:
        spec: a BenchmarkRun's ``spec`` (parsed JSON, any shape).

    Returns:
        ``(source, id)`` when ``sourceNative.source`` names one of :data:`CLAIMING_SOURCES`
        and ``externalId`` is a string or an integer; None otherwise (no source, another
        source, no id).
    """
    native = spec.get("sourceNative") if isinstance(spec, dict) else None
    if not isinstance(native, dict):
        return None
    source = naming_source(native.get("source"))
    external = native.get("externalId")
    if (source not in CLAIMING_SOURCES or isinstance(external, bool)
            or not isinstance(external, str | int)):
        return None
    return (source, record_id(external))


def stored_claim(data: bytes | None, digest_hex: str) -> Claim | None:
    """Return the claim (:func:`claim_of`) of a stored run object's bytes, or None.

    What every reader of a stored run's claim uses (``verify``'s workers, the gate, ``add``
    for the stored runs of a group), so an object is judged alike by each. A run claiming
    nothing costs a byte search: bytes lacking ``"externalId"`` (:func:`may_claim`) are
    neither hashed nor parsed. Other bytes count only when they are the object of ``digest_hex``
    (:func:`kistore.core.comparison.stored_spec`: their sha256 is it, they parse, their kind
    is ``BenchmarkRun``): a tampered object (KI101) claims nothing, whatever its bytes say.

    Args:
        data: the object file's bytes, or None when there is none (or it was unreadable).
        digest_hex: the 64 hex digits its path names.

    Returns:
        The claim, or None.
    """
    if data is None or not may_claim(data):
        return None
    return claim_of(stored_spec(data, digest_hex, "BenchmarkRun"))


def may_claim(data: bytes) -> bool:
    """Whether a run object's canonical bytes may claim a record (else they claim none).

    Byte searches, no parse: False when the bytes lack ``"externalId"`` (canonical bytes,
    RFC 8785, escape nothing in it, and a claim needs that key); False too when they hold
    the key ``"source":`` once, its value a plain string (no escape) that names no
    claiming source as :func:`claim_of` reads it folded (:func:`kistore.core.naming.
    naming_source`): a ``flashinfer-trace`` run, whose ``externalId`` is a trace's log file,
    is not parsed (it was, once more in every ``add``: docs/speed.md, "KI232's prefilter").
    Sound: inside a string every ``"`` is escaped, so ``"source":`` occurs only as a key;
    held once, it is ``sourceNative``'s or there is none there (no claim either way). Not a
    list of source names to match: a source is claimed spelled otherwise too
    (``sol-exec-bench``, ``SOL.ExecBench``, reviewer r90 F1), which the fold decides. True
    says only "parse them": :func:`claim_of` decides.

    Args:
        data: an object's canonical bytes.
    """
    if b'"externalId"' not in data:
        return False
    for claiming in _CLAIMING:
        if claiming in data:
            return True  # a claiming source as its importer writes it (the common case)
    if data.count(_SOURCE_KEY) != 1:
        return True
    start = data.find(_SOURCE_KEY) + len(_SOURCE_KEY)
    end = data.find(b'"', start + 1)
    value = data[start + 1:end]
    if data[start:start + 1] != b'"' or end < 0 or b"\\" in value:
        return True  # not a plain string: parsed, claim_of decides
    return naming_source(value.decode("utf-8", "replace")) in CLAIMING_SOURCES


_SOURCE_KEY = b'"source":'
_CLAIMING = tuple(b'"source":"' + source.encode() + b'"' for source in CLAIMING_SOURCES)
"""Each claiming source's key and name as its importer writes them: True at once."""


def claim_message(claim: Claim, others: list[str]) -> str:
    """Return the finding's text: the claim, and the runs already claiming it.

    Args:
        claim: the run's :func:`claim_of`.
        others: each other run claiming it, shown as ``KIND/NAME (digest)`` or a digest.
    """
    source, external = claim
    return (f"claims to be {source} record {external!r} (its id as run names spell it), "
            f"which {', '.join(others)} already claims with other "
            "bytes: two runs claiming one record contradict each other (a copy with a "
            "better score would outrank the record's run)")


def claimed_with(runs: Iterable[tuple[str, str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Return, per run of one comparison group, the other runs claiming its record (KI232).

    What ``rank`` and ``show`` mark (reviewer r90 F8: a pair history holds, e.g. two pull
    requests each green alone and merged, was silent to readers; only ``verify`` warned).
    Pure and cheap: the specs the ranking read already, no other read.

    Args:
        runs: ``(digest, name, spec)`` of each run of the group still counted (a run a
            maintainer withdrew left out by the caller: it claims nothing).

    Returns:
        digest -> ``(digest, name)`` of each other run stating its :func:`claim_of`; a run
        whose claim no other states (or claiming nothing) is absent.
    """
    by_claim: dict[Claim, list[tuple[str, str]]] = {}
    for digest, name, spec in runs:
        native = spec.get("sourceNative") if isinstance(spec, dict) else None
        if isinstance(native, dict) and "externalId" in native:  # else claim_of says None
            claim = claim_of(spec)
            if claim is not None:
                by_claim.setdefault(claim, []).append((digest, name))
    return {digest: [other for other in members if other[0] != digest]
            for members in by_claim.values() if len(members) > 1 for digest, _ in members}


def claimed_with_said(runs: list[tuple[str, str]], *, page: bool) -> str:
    """Return the line ``rank`` and ``show`` print for runs claiming one record (KI232).

    Args:
        runs: ``(digest, name)`` of each run named (``rank``: every run of the record).
        page: the line is under one run's page (``show``), naming the others.
    """
    named = ", ".join(f"BenchmarkRun/{name} ({digest[:19]})" for digest, name in runs)
    what = (f"{named} {'claims' if len(runs) == 1 else 'claim'} this run's source record "
            "too" if page else f"{named} claim one source record")
    return (f"KI232: {what}: one is not the source's; a trusted maintainer withdraws it "
            f"(`{WITHDRAW.format(ref='REF')}`)")
