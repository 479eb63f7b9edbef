"""The run page (``show``) and the side-by-side comparison (``compare``), docs/design.md §6.

:func:`run_page` gathers what the index page shows for one run; :meth:`RunPage.lines`
renders it as text lines (so a caller can append one, e.g. the citation) and
:meth:`RunPage.to_json` as data. :func:`compare` lists each differing field of two runs,
their environments and implementations, and the ratio of their ranked values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..attest.levels import SOURCE_NATIVE, notes_not_fetched, withdrawal_said
from ..attest.levels import attestation_text as attestation_text  # re-exported
from ..core.claims import claim_of, claimed_with, claimed_with_said
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError, one_line
from ..core.model import Manifest
from ..core.words import (
    NO_SOURCE,
    comparison_said,
    evidence_said,
    stated_by,
    workload_not_stored_said,
)
from ..index.catalog import Catalog
from ..index.index import open_catalog
from ..index.records import Record
from .answers import rank
from .numbers import distinct_texts, json_text, ratio_text, rounded_text, value_text
from .outliers import (
    Outlier,
    implausible_latency,
    implausible_said,
    marks_said,
    outlier_line,
    ranking_outliers,
    row_marks,
)
from .ranking import Ranking, Row

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Sequence

    from ..store import Store
    from .policy import Comparison, RankingPolicy


class RunPage(NamedTuple):
    """One run as the index page shows it.

    A named tuple, not a frozen dataclass: making one costs ~2 ms of start-up (its methods
    are compiled), on every run page and ``rank`` (docs/speed.md).

    Attributes:
        manifest: the run (re-hashed on read).
        record: its record (comparison key, hardware, role).
        ranking: its comparison group ranked.
        row: its row in that ranking.
        related: the referenced manifests by field (``workloadDigest`` ...), None if absent.
        notes_not_fetched: :data:`kistore.attest.levels.NOT_FETCHED` in a clone without the
            notes (its attestations are not "none", they are not here), else None.
    """

    manifest: Manifest
    record: Record
    ranking: Ranking
    row: Row
    related: dict[str, Manifest | None]
    notes_not_fetched: str | None = None

    def reruns(self) -> list[dict[str, Any]]:
        """Return each reproduction or rerun that states a measurement, beside the run's.

        Each: ``{"type", "keyid", "effect", "measuredNs", "runNs", "ratio"}``, ratio =
        the attestation's latency / the run's at its primary statistic (None without both).
        """
        return [{"type": a["type"], "keyid": a["keyid"], "effect": a["effect"],
                 "measuredNs": a.get("measuredNs"), "runNs": self.row.latency_ns,
                 "ratio": _ratio(a.get("measuredNs"), self.row.latency_ns)}
                for a in self.row.evidence.attestations if a.get("measuredNs") is not None]

    def outlier(self) -> Outlier | None:
        """Return KI234's :class:`~.outliers.Outlier` when this run is marked, else None.

        Marked: :data:`~.outliers.OUTLIER_FACTOR` or more ahead of its group's reference run
        (:func:`~.outliers.ranking_outliers`), a #1 or a run below it (reviewer r90b F2).
        """
        return ranking_outliers(self.ranking).get(self.record.digest)

    def implausible_latency(self) -> dict[str, str] | None:
        """Return KI230's finding on this run as data (:func:`implausible_latency`), or None."""
        return implausible_latency(self.manifest.spec)

    def ratio_to_first(self) -> float | None:
        """Return this run's ranked value / that of rank 1 (None when either lacks it)."""
        return _ratio(self.row.value, self.ranking.first.value if self.ranking.first else None)

    def reference_ratios(self) -> list[dict[str, Any]]:
        """Return, for each reference run, its latency divided by this run's ("x reference").

        A ratio above 1 means this run is that many times faster than the reference.
        ``withdrawal`` names a maintainer's withdrawal of the reference run
        (:func:`kistore.attest.levels.withdrawal_said`), None when there is none: the ratio
        is then against a withdrawn result, and the page says so (reviewer r83 F2).
        """
        return [{"name": ref.record.name, "project": ref.record.project,
                 "digest": ref.record.digest, "value": ref.value, "unit": ref.unit,
                 "latencyNs": ref.latency_ns, "speedup": _ratio(ref.latency_ns,
                                                                self.row.latency_ns),
                 "withdrawal": withdrawal_said(ref.evidence)}
                for ref in self.ranking.references]

    def claimed_with(self) -> list[tuple[str, str]]:
        """Return ``(digest, name)`` of each other run of the group claiming its record.

        None withdrawn (KI232: :func:`kistore.core.claims.claimed_with`); none when this
        run is withdrawn (it claims nothing).
        """
        if claim_of(self.manifest.spec) is None:
            return []
        return claimed_with((r.record.digest, r.record.name, r.record.spec)
                            for r in self.ranking.rows(include_excluded=True)
                            if not r.evidence.withdrawn).get(self.record.digest, [])

    def to_json(self) -> dict[str, Any]:
        """Return the page as data: digest, comparisonKey, rank, groupSize, evidenceLevel..."""
        spec, r, first = self.manifest.spec, self.record, self.ranking.first
        native = spec.get("sourceNative", {})
        return {
            "digest": r.digest, "name": r.name, "title": self.manifest.title,
            "status": r.status, "comparisonKey": r.comparison_key, "keyObject": r.key_object,
            "comparison": self.ranking.comparison.to_json(),
            "rank": self.row.rank, "groupSize": self.ranking.group_size,
            "value": self.row.value, "unit": self.row.unit, "reason": self.row.reason,
            "ratioToFirst": self.ratio_to_first(),
            "first": {"digest": first.record.digest, "name": first.record.name,
                      "value": first.value} if first else None,
            "outlier": outlier.to_json() if (outlier := self.outlier()) is not None else None,
            "implausibleLatency": self.implausible_latency(),
            "references": self.reference_ratios(),
            "primaryStatistic": r.statistic, "latencyNs": self.row.latency_ns,
            "timing": spec.get("timing"), "correctness": spec.get("correctness"),
            "observedAt": spec.get("observedAt"),
            "source": native.get("source"), "externalId": native.get("externalId"),
            "sourceNative": native or None,
            "evidenceLevel": self.row.evidence.level, "withdrawn": self.row.evidence.withdrawn,
            "attestations": list(self.row.evidence.attestations), "reruns": self.reruns(),
            "notesNotFetched": self.notes_not_fetched,
            "claimedWith": [{"digest": d, "name": n} for d, n in self.claimed_with()],
            **{k.removesuffix("Digest"): _related_json(k, self.related.get(k), spec)
               for k in ("implementationDigest", "workloadDigest", "protocolDigest",
                         "environmentDigest")},
        }

    def _tie(self) -> str:
        """``, tied with b`` (up to 3 names, then how many more) when others share the rank.

        Ties share a rank (competition ranking, lowest digest listed first); without this a
        reader saw "rank 2 of 4" and nothing of the run listed beside it (reviewer r83).
        """
        tied = [x.record.name for x in self.ranking.ranked
                if x.rank == self.row.rank and x.record.digest != self.record.digest]
        if not tied:
            return ""
        more = f" and {len(tied) - 3} more" if len(tied) > 3 else ""
        return f", tied with {', '.join(tied[:3])}{more}"

    def _basis(self) -> str:
        """Return `` (BASIS)`` when the run says what its ``observedAt`` is, else ``""``.

        KernelBench's files record no measurement time: its runs' ``observedAt`` is the date
        of the upstream commit that last changed the file, which the importer records in
        ``kernelindex.dev/observed-at-basis`` (fresh00c M1: ``show`` said only a time).
        """
        # Lazy: only the text page says it.
        from ..core.licences import OBSERVED_BASIS_ANNOTATION, annotation_of

        basis = annotation_of(self.manifest.metadata, OBSERVED_BASIS_ANNOTATION)
        return f" ({basis})" if basis is not None else ""

    def _provenance(self) -> list[str]:
        """Return the lines saying where the run's data came from and on what terms.

        What the site's run page says in its Provenance and Licence sections (fresh00c M1:
        ``show`` left out an ``Internal testing only; do not republish`` licence):

        * ``licence``, one line for each :func:`kistore.core.licences.run_licences` states,
          in the page's words (:meth:`~kistore.core.licences.Licence.said`), or
          ``none recorded``;
        * ``upstream`` (``repo@commit``) and ``source file``, when the run records them.
        """
        # Lazy: only the text page says these (``show --json`` has the metadata as is).
        from ..core.licences import UPSTREAM_ANNOTATION, annotation_of, run_licences
        from ..core.provenance import ANNOTATION

        metadata = self.manifest.metadata
        out = []
        said = [x.said() for x in run_licences(self.manifest, self.related)]
        out += [f"  licence         {x}" for x in said or ["none recorded"]]
        for label, key in (("upstream", UPSTREAM_ANNOTATION),
                           ("source file", ANNOTATION + "source-file")):
            value = annotation_of(metadata, key)
            if value is not None:
                out.append(f"  {label:<15} {value}")
        return out

    def lines(self, listed: Sequence[tuple[dict[str, Any], Any]] | None = None) -> list[str]:
        """Return the page as text lines (no trailing newlines), identity first.

        Args:
            listed: the run's attestations as ``kistore attestations`` lists them
                (:func:`kistore.attest.evidence.listed_attestations`: a note line that does
                not verify said as ``verify``'s KI301, its fix under it), which ``show``
                reads when one is invalid; None: those of the page's evidence, as judged.
        """
        d, r, row, ranking = self.to_json(), self.record, self.row, self.ranking
        impl, work = d["implementation"], d["workload"]
        comparison = ranking.comparison
        out = [f"{r.name}: {self.manifest.title}",
               f"  digest          {r.digest}",
               f"  implementation  {_named(impl, 'project')}"
               + (f" @ {impl['revision']}" if impl.get("revision") else "")
               + (f" by {impl['author']}" if impl.get("author") else ""),
               f"  workload        {_named(work, 'definition')}",
               f"  comparison key  {r.comparison_key}",
               f"                  {_key_text(r.key_object)}",
               f"  source          {d['source'] or NO_SOURCE}, external id "
               f"{d['externalId'] or '-'}",
               f"  status          {r.status}",
               f"  observed        {_observed(d['observedAt'])}{self._basis()}",
               *self._provenance()]
        if row.latency_ns is not None:
            out.append(f"measured: {r.statistic} latency {_ns(row.latency_ns)}")
        low = self.implausible_latency()
        if low is not None:
            out.append(f"  (!) {implausible_said(low['said'])}")
        named = _comparison_named(comparison)
        if row.rank is not None:
            first = ranking.first
            this, best = _values(row.value, first.value if first is not None else None,
                                 row.unit)
            out.append(f"rank {row.rank} of {ranking.group_size}{self._tie()} ({named}): "
                       f"{this}")
            outlier = self.outlier()
            if outlier is not None:
                out.append(f"  (!) {outlier_line(outlier, r.name)}")
            if first is not None and first.record.digest != r.digest:
                ratio = "-" if row.value is None or not first.value else ratio_text(
                    row.value, first.value)  # never "1x" for two values that differ
                out.append(f"  {ratio}x the value of #1 {first.record.name} ({best})")
        else:
            out.append(f"not ranked ({row.reason}); {ranking.group_size} ranked in the group "
                       f"({named})")
        if d["claimedWith"]:
            out.append("  " + claimed_with_said([(o["digest"], o["name"])
                                                  for o in d["claimedWith"]], page=True))
        if not work.get("inStore"):
            out.append(f"  caveat: {workload_not_stored_said(work.get('digest'))}")
        for ref in self.reference_ratios():
            ranked_by = "" if comparison.unit == "ns" and ref["unit"] == "ns" else (
                f"; its {_metric(comparison.metric)} {_value(ref['value'], ref['unit'])}"
                f", not part of this ratio")
            out.append(f"  x reference {ref['project'] or ref['name']}: "
                       f"{_fmt(ref['speedup'])}x by latency (the reference's "
                       f"{_ns(ref['latencyNs'])} / this run's {_ns(row.latency_ns)}"
                       f"{ranked_by})" + (f"; the reference is {ref['withdrawal']}: a "
                                          "withdrawn result, no baseline"
                                          if ref["withdrawal"] else ""))
        proto = d["protocol"]
        checked = _flat(proto.get("correctness")) if proto.get("inStore") else "-"
        if d["correctness"]:
            out.append(f"correctness: {_flat(d['correctness'])} ({stated_by(d['source'])}; "
                       f"checked by: {checked})")  # the submitter's claim (r88 F8)
        elif d["source"]:  # e.g. KernelBench's reference programs: the status is all it says
            out.append(f"correctness: {r.status} (the run's status; the source recorded no "
                       f"correctness measures; checked by: {checked})")
        else:  # a run that names no source: its status is its submitter's claim
            out.append(f"correctness: {r.status} ({stated_by(None)}: the run's status; it "
                       f"names no source and records no correctness measures; checked by: "
                       f"{checked})")
        out.append(f"protocol: {_named(proto, 'harness')}")
        if proto.get("inStore"):
            out.append(f"  measurement {_flat(proto.get('measurement'))}; comparability "
                       f"{_flat(proto.get('comparability'))}")
        env = d["environment"]
        out.append(f"environment: {_named(env, 'hardware')}"
                   + (f"; software {_flat(env.get('software'))}" if env.get("software") else ""))
        atts = d["attestations"]
        out.append(f"attestations: {len(atts) if atts else 'none'}; "
                   + evidence_said(d["evidenceLevel"], named_source=bool(d["source"]),
                                   withdrawn=d["withdrawn"]))
        for a, said in listed if listed is not None else [(a, None) for a in atts]:
            out.append("  " + attestation_text(a))
            if said is not None:
                out.append(f"    fix: {said.fix}")
        for rerun in d["reruns"]:
            out.append(f"  {rerun['type']} by {rerun['keyid']} ({rerun['effect']}): measured "
                       f"{_ns(rerun['measuredNs'])}, the run {_ns(rerun['runNs'])}"
                       + (f", ratio {_fmt(rerun['ratio'])}x" if rerun["ratio"] else ""))
        if d["notesNotFetched"]:
            out.append(f"  {d['notesNotFetched']}")
        return [one_line(line) for line in out]


def _observed(value: Any) -> str:
    """Say the run's ``observedAt`` as stated, and why it cannot be true when it cannot.

    Judged against this machine's clock (:func:`kistore.core.observed.observed_caveat`,
    KI227): ``2099-01-01T00:00:00Z (more than a day after this machine's clock: ...)``;
    ``-`` for no time.
    """
    if not isinstance(value, str):
        return "-"
    # Lazy: only a run page's text needs the clock.
    import time

    # Lazy: only a run page's text (the rule's module, its parser).
    from ..core.observed import observed_caveat, observed_seconds

    seconds = observed_seconds({"observedAt": value})
    caveat = None if seconds is None else observed_caveat(seconds, int(time.time()))
    return value + (f" ({caveat})" if caveat else "")


def run_page(store: Store, ref: str, *, at: str | None = None, comparison: str | None = None,
             min_evidence: str = SOURCE_NATIVE, catalog: Catalog | None = None,
             policy: RankingPolicy | None = None, notes_at: str | None = None) -> RunPage:
    """Gather the run page of run ``ref``.

    Args:
        store: a :class:`kistore.store.Store`.
        ref: the run (digest, prefix, ``BenchmarkRun/NAME``).
        at: revision, or None for the work tree.
        comparison: ``measured`` or ``source-native`` (None: the policy's).
        min_evidence: weakest evidence level ranked.
        catalog: a catalog of the same view (default: :func:`open_catalog`).
        policy: the ranking policy of the same view, when the caller read it; None: read
            (:func:`kistore.query.answers.rank`).
        notes_at: the notes commit read, as :func:`kistore.query.answers.rank` takes it;
            named, the page says nothing of notes not fetched (``notes_not_fetched`` None):
            the notes it read are the ones named, here or not, whatever is fetched later.

    Raises:
        ResolutionError, InputError: as :func:`kistore.query.answers.rank`.
        VerificationError: the run's stored bytes do not hash to its digest.
    """
    catalog = catalog or open_catalog(store, at)
    record, ranking = rank(store, ref, at=at, comparison=comparison,
                           min_evidence=min_evidence, catalog=catalog, policy=policy,
                           notes_at=notes_at)
    # the catalog's records were made from these same object bytes, schema-checked then
    manifest = store.read(Digest.from_str(record.digest), at=at, schema=False)
    row = ranking.row(record.digest)
    assert row is not None
    related: dict[str, Manifest | None] = {}
    for field, digest in manifest.references().items():
        try:
            related[field] = store.read(digest, at=at,
                                        schema=catalog.record(str(digest)) is None)
        except KistoreError:
            related[field] = None  # dangling: shown as its digest only
    return RunPage(manifest, record, ranking, row, related,
                   notes_not_fetched(store) if notes_at is None else None)


class RunComparison(NamedTuple):
    """Two runs side by side.

    A named tuple: every run page imports this module, and making a dataclass costs ~1.5 ms
    of start-up (docs/speed.md, "Start-up, third pass").

    Attributes:
        a: the first run's page.
        b: the second run's page.
        differences: each differing field: ``{"section", "pointer", "a", "b"}`` with
            section ``run``, ``environment`` or ``implementation``.
        ratio: a's ranked value divided by b's (None when either lacks one or they are in
            different comparison groups).
    """

    a: RunPage
    b: RunPage
    differences: list[dict[str, Any]]
    ratio: float | None

    def to_json(self) -> dict[str, Any]:
        """Return the comparison as data."""
        return {"a": _brief(self.a), "b": _brief(self.b),
                "sameGroup": self.a.record.comparison_key == self.b.record.comparison_key,
                "comparison": self.a.ranking.comparison.to_json(),
                "ratio": self.ratio, "differences": self.differences}

    def lines(self) -> list[str]:
        """Return the comparison as text lines."""
        data = self.to_json()
        a, b = self.a.row, self.b.row
        a_text, b_text = (_values(a.value, b.value, a.unit) if a.unit == b.unit
                          else (_value(a.value, a.unit), _value(b.value, b.unit)))
        out = [f"{label}: {page.record.name} {page.record.digest} {_rank(page.row)} {text}"
               + marks_said(row_marks(page.row, page.outlier()))  # KI234, KI230 as rank
               for label, page, text in (("A", self.a, a_text), ("B", self.b, b_text))]
        if not data["sameGroup"]:
            out.append("A and B are in different comparison groups: not comparable")
        else:
            ratio = ("-" if self.ratio is None or self.a.row.value is None
                     or self.b.row.value is None
                     else ratio_text(self.a.row.value, self.b.row.value))
            out.append(f"A / B = {ratio} ({_comparison_named(self.a.ranking.comparison)})")
        for page in (self.a, self.b)[:1 if self.a.record.digest == self.b.record.digest else 2]:
            if (outlier := page.outlier()) is not None:  # what the side's mark says below
                out.append(f"(!) {outlier_line(outlier, page.record.name)}")
        out.append(f"{len(self.differences)} differing field(s):")
        for diff in self.differences:
            out.append(f"  {diff['section']}{diff['pointer']}: A {_show(diff['a'])} | "
                       f"B {_show(diff['b'])}")
        return [one_line(line) for line in out]


def compare(store: Store, a: str, b: str | None = None, *, at: str | None = None,
            comparison: str | None = None, catalog: Catalog | None = None,
            policy: RankingPolicy | None = None, notes_at: str | None = None
            ) -> RunComparison:
    """Compare run ``a`` with run ``b`` (default: rank 1 of a's comparison group).

    Args:
        store: a :class:`kistore.store.Store`.
        a: the run (digest, prefix or ``BenchmarkRun/NAME``).
        b: the run to compare with, or None for rank 1 of ``a``'s group.
        at: revision, or None for the work tree.
        comparison: ``measured`` or ``source-native``; None for the policy's choice.
        catalog: a catalog of the same view (default: :func:`open_catalog`); pass one to
            read its ``unreadable`` manifests afterwards.
        policy: the ranking policy of the same view, when the caller read it (the
            command: once); None: each run's page reads it.
        notes_at: the notes commit read, as :func:`run_page` takes it.

    Raises:
        ResolutionError, InputError: as :func:`run_page`; no ``b`` given and nothing is
            ranked in a's group.
    """
    catalog = catalog or open_catalog(store, at)
    page_a = run_page(store, a, at=at, comparison=comparison, catalog=catalog, policy=policy,
                      notes_at=notes_at)
    if b is None:
        if page_a.ranking.first is None:
            raise InputError(f"nothing is ranked in the group of {a}; name the run to compare")
        b = page_a.ranking.first.record.digest
    page_b = run_page(store, b, at=at, comparison=comparison, catalog=catalog, policy=policy,
                      notes_at=notes_at)
    return compare_pages(page_a, page_b)


def compare_pages(page_a: RunPage, page_b: RunPage) -> RunComparison:
    """Compare two run pages already gathered (what :func:`compare` does after gathering).

    Pure: a caller holding many pages (the static site) compares them without ranking a
    group again.

    Args:
        page_a: the first run's page.
        page_b: the second run's page (e.g. rank 1 of ``page_a``'s group).

    Returns:
        The :class:`RunComparison`: every differing leaf of the runs' specs, of their
        environments and of their implementations (a manifest not in the store counts as
        empty), and the ratio of ranked values when both are in one comparison group.
    """
    differences = []
    for section, field in (("run", None), ("environment", "environmentDigest"),
                           ("implementation", "implementationDigest")):
        left, right = (_spec(p, field) for p in (page_a, page_b))
        for pointer in sorted(left.keys() | right.keys()):
            if left.get(pointer, _ABSENT) != right.get(pointer, _ABSENT):
                differences.append({"section": section, "pointer": pointer,
                                    "a": left.get(pointer), "b": right.get(pointer)})
    same = page_a.record.comparison_key == page_b.record.comparison_key
    ratio = _ratio(page_a.row.value, page_b.row.value) if same else None
    return RunComparison(page_a, page_b, differences, ratio)


_ABSENT = object()


def _spec(page: RunPage, field: str | None) -> dict[str, Any]:
    manifest = page.manifest if field is None else page.related.get(field)
    return _leaves(manifest.spec, "") if manifest is not None else {}


def _leaves(value: Any, pointer: str) -> dict[str, Any]:
    """Flatten a JSON value to ``{JSON Pointer: leaf value}`` (lists count as leaves)."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_leaves(v, f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}"))
        return out
    return {pointer: value}


def _brief(page: RunPage) -> dict[str, Any]:
    """One side of a comparison as data; ``reason`` and ``withdrawal`` say why it is unranked.

    A withdrawn run compared with #1 showed its ratio and no word of the withdrawal on the
    site's compare page and in ``compare --json`` (reviewer r86 F18).
    """
    row = page.row
    return {"digest": page.record.digest, "name": page.record.name, "rank": row.rank,
            "value": row.value, "unit": row.unit,
            "comparisonKey": page.record.comparison_key,
            "evidenceLevel": row.evidence.level, "reason": row.reason,
            "withdrawn": row.evidence.withdrawn, "withdrawal": withdrawal_said(row.evidence),
            "outlier": outlier.to_json() if (outlier := page.outlier()) is not None else None,
            "implausibleLatency": page.implausible_latency()}


def _related_json(field: str, manifest: Manifest | None, spec: dict[str, Any]
                  ) -> dict[str, Any]:
    if manifest is None:
        return {"digest": spec.get(field), "name": None, "inStore": False}
    return {"digest": str(manifest.digest), "name": manifest.name, "inStore": True,
            **manifest.spec}


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _fmt(x: float | None) -> str:
    """Write a ratio with 4 significant digits (``3.333``, ``1.2e-5``: :func:`rounded_text`)."""
    return "-" if x is None else rounded_text(x, 4, keep_zeros=False)


def _ns(ns: float | None, text: str | None = None) -> str:
    """``1,234.57 ns (0.00123457 ms)``: the latency, then its conversion to ms.

    The ns figure is :func:`value_text`'s (6 significant digits, whole ns kept; ``text``
    when given: an exact text that tells it from another shown beside it); the ms figure a
    readable conversion (6 significant digits, zeros stripped, an exponent written as the
    stored numbers write one: ``1.1e-6``, not Python's ``1.1e-06``; :func:`rounded_text`).
    """
    if ns is None:
        return "-"
    return (f"{text or value_text(ns, 'ns')} ns "
            f"({rounded_text(ns / 1e6, 6, keep_zeros=False)} ms)")


def _value(v: float | None, unit: str | None, text: str | None = None) -> str:
    if v is None:
        return "no value"
    return _ns(v, text) if unit == "ns" else f"{text or value_text(v, unit)} {unit or ''}".rstrip()


def _values(x: float | None, y: float | None, unit: str | None) -> tuple[str, str]:
    """Return the texts of two values shown side by side: never alike when they differ."""
    if x is None or y is None:
        return _value(x, unit), _value(y, unit)
    tx, ty = distinct_texts([x, y], unit)
    return _value(x, unit, tx), _value(y, unit, ty)


def _comparison_named(comparison: Comparison) -> str:
    """Return what a run page and a comparison of two runs say ranks them.

    ``by measured latency, latencyNs ascending``: :func:`kistore.core.words.
    comparison_said`, the metric's last JSON Pointer token, the order.
    """
    said = comparison_said(comparison.name, comparison.metric)
    return f"{said}, {_metric(comparison.metric)} {comparison.order}"


def _metric(pointer: str) -> str:
    return pointer.rsplit("/", 1)[-1]


def _named(data: dict[str, Any], field: str) -> str:
    if not data.get("inStore"):
        return f"{data.get('digest')} (not in the store)"
    shown = data.get(field)
    text = _flat(shown) if isinstance(shown, dict) else str(shown)
    return f"{text} [{data['name']}, {str(data['digest'])[:19]}]"


def _flat(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_flat(v)}" for k, v in value.items()) or "-"
    if value is None:
        return "-"
    return value if isinstance(value, str) else json_text(value)  # numbers as stored


def _show(value: Any) -> str:
    if value is None:
        return "(absent)"
    return value if isinstance(value, str) else json_text(value)  # numbers as stored


def _key_text(obj: dict[str, str] | None) -> str:
    return ", ".join(f"{k}={v[:19] if v.startswith('sha256:') else v}"
                     for k, v in (obj or {}).items())


def _rank(row: Any) -> str:
    """``rank N``, or ``not ranked (WHY)``: a reference, withdrawn or unranked run."""
    if row.rank is not None:
        return f"rank {row.rank}"
    why = withdrawal_said(row.evidence) or row.reason
    return f"not ranked ({why})" if why else "not ranked"
