"""Which pages a site has, what each is made from, and the data each shows.

:func:`plan` lists every page of a snapshot with its commit (the newest commit that changed
a file it is made from, :mod:`.history`) and a cache key; :func:`page_data` gathers the
data one page shows -- the same object its JSON twin holds and its template renders.

Pages (directories relative to the site root, each with ``index.html`` and
``index.json``):

==================================  =========================================================
``""`` (the root)                   index: sources, GPUs, workloads, counts, the build commit
``runs/<16 hex>/``                  a run: the sections of the published run page
``runs/<16 hex>/compare/``          the run against rank 1 of its comparison group
``names/<name>/``                   a run's name: redirects to its run page
``groups/<16 hex of the key>/``     a comparison group's leaderboard
``workloads/<16 hex>/``             a workload: its groups (one per GPU and protocol)
``sources/<source>/``               a source's workloads
==================================  =========================================================
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..attest.evidence import Evidence
from ..attest.levels import withdrawal
from ..check import caveat_said, family_of, ranking_caveats
from ..core import canonical, layout
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.licences import run_licences
from ..core.pathnames import component
from ..core.words import workload_not_stored_said
from ..index.records import Record
from ..query.outliers import (
    Outlier,
    implausible_latency,
    implausible_said,
    outlier_caveat,
    outlier_mark,
    ranking_outlier,
    ranking_outliers,
    row_marks,
)
from ..query.page import RunPage, compare_pages
from ..query.policy import ASCENDING, MEASURED, Comparison
from ..query.ranking import Ranking, Row
from . import citing, summary
from .history import POLICY, SETTINGS, TRUST, Touches, manifest_key
from .snapshot import NAME, NO_SOURCE, Snapshot, short, source_of

FORMAT = 1
"""The version of the JSON twins' shape (``kistoreSite`` in every ``index.json``)."""


@dataclass(frozen=True, slots=True)
class Page:
    """One page of the site.

    Attributes:
        kind: ``index``, ``run``, ``compare``, ``name``, ``group``, ``workload`` or
            ``source``.
        ident: what it is about: a run digest (run, compare), a run name, a comparison
            key, a workload digest, a source id, or ``""`` (index).
        path: its directory relative to the site root (``""`` or ending in ``/``).
        commit: the commit it states (40 hex): the newest commit on the built commit's
            first-parent chain that changed a file the page is made from; the built commit
            itself for the index.
        extra: what else its bytes depend on, for its cache key: the commit that first
            added a run (its citation), the note blobs of the runs it shows, and the commit
            that landed the run on the first-parent line (its published date).
        notes: the notes commit it states (40 hex): the newest commit on the first-parent
            chain of the notes read (``refs/notes/kistore``) that changed the note of a run
            whose attestations it shows; the notes read for the index; None when no such
            commit is (no note of those runs was ever on the chain, or it shows none).
    """

    kind: str
    ident: str
    path: str
    commit: str
    extra: tuple[Any, ...] = ()
    notes: str | None = None

    @property
    def root(self) -> str:
        """Return the relative prefix from this page to the site root (``../../``)."""
        return "../" * self.path.count("/")

    def key(self, generator: str, parameters: dict[str, Any]) -> str:
        """Return the page's cache key: a SHA-256 over everything its bytes depend on.

        Args:
            generator: the templates and code that write pages (:func:`.render.generator`).
            parameters: the build's parameters (permalink template, comparison).
        """
        blob = json.dumps([generator, parameters, self.kind, self.ident, self.path,
                           self.commit, self.notes, list(self.extra)], sort_keys=True,
                          separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(blob.encode()).hexdigest()


def run_path(digest: str) -> str:
    """Return the directory of a run's page."""
    return f"runs/{short(digest)}/"


def group_path(key: str) -> str:
    """Return the directory of a comparison group's page."""
    return f"groups/{short(key)}/"


def workload_path(digest: str) -> str:
    """Return the directory of a workload's page."""
    return f"workloads/{short(digest)}/"


def source_path(source: str) -> str:
    """Return the directory of a source's page: ``sources/<source>/``.

    A source longer than 128 characters is named in its short form
    (:func:`kistore.core.pathnames.component`: its first 64 characters, ``~`` -- which no
    source contains -- and 16 hex digits of its SHA-256), so every source fits one
    directory name.
    """
    return f"sources/{component(source)}/"


def name_path(name: str) -> str:
    """Return the directory of a run name's page (a redirect to the run)."""
    return f"names/{name}/"


# -- the plan ---------------------------------------------------------------------------

Stamp = tuple[int, str] | None
"""``(position on the chain, commit)`` of the newest change, or None."""


def _newest(*stamps: Stamp) -> Stamp:
    found = [s for s in stamps if s is not None]
    return max(found) if found else None


def plan(snap: Snapshot, touches: Touches, first_added: dict[str, str],
         notes: dict[str, str], landed: dict[str, str] | None = None, *,
         notes_tip: str | None = None, noted_at: dict[str, tuple[int, str]] | None = None
         ) -> list[Page]:
    """List every page of the snapshot, each with its commit and what else it depends on.

    Cheap: no manifest is read; each page's commit comes from :class:`.history.Touches`
    of the manifests, policy, trust and settings it is made from:

    * a run: itself and the four manifests it references, its whole comparison group
      (its rank depends on every member) with theirs, the policy, trust and settings;
    * a compare page and a group page: the group (with references), policy, trust,
      settings; a name page: the run and settings;
    * a workload page: every group and run it lists; a source page: its runs and their
      workloads (no ranking is on it);
    * the index: the built commit itself (it states it).

    Args:
        snap: the snapshot.
        touches: when each source key last changed.
        first_added: run digest -> commit id that first added its object file.
        notes: run digest -> note blob id, for runs with notes (a page showing a run's
            evidence depends on its note).
        landed: run digest -> commit id that brought its object file onto the built
            commit's first-parent line (its citation's published date), or None.
        notes_tip: the notes commit read (the index states it), or None.
        noted_at: run digest -> ``(position, notes commit)`` of the newest commit on the
            notes chain that changed its note (:func:`.history.notes_changed`); a page
            showing runs' attestations states the newest of theirs (:attr:`Page.notes`).

    Returns:
        The pages in a fixed order (index, groups, runs, compare, names, workloads,
        sources).
    """
    def stamp(keys: Iterable[str]) -> Stamp:
        best: Stamp = None
        for key in keys:
            found = touches.keys.get(key)
            if found is not None and (best is None or found > best):
                best = found
        return best

    common = stamp([SETTINGS, TRUST])
    own = {r.digest: stamp(own_keys(r)) for r in snap.runs}
    group_stamp: dict[str, Stamp] = {}
    group_notes: dict[str, tuple[Any, ...]] = {}
    for key, runs in snap.groups.items():
        group_stamp[key] = _newest(common, stamp([POLICY]), *(own[r.digest] for r in runs))
        group_notes[key] = _notes(runs, notes)

    def commit_of(s: Stamp) -> str:
        return s[1] if s is not None else snap.rev

    noted_at = noted_at or {}

    def notes_of(runs: Iterable[Record]) -> str | None:
        found = _newest(*(noted_at.get(r.digest) for r in runs))
        return found[1] if found is not None else None

    group_noted = {key: notes_of(runs) for key, runs in snap.groups.items()}
    pages = [Page("index", "", "", snap.rev, (_notes(snap.runs, notes),), notes_tip)]
    pages += [Page("group", key, group_path(key), commit_of(group_stamp[key]),
                   (group_notes[key],), group_noted[key]) for key in snap.groups]
    for run in snap.runs:
        grouped = run.comparison_key
        s = group_stamp[grouped] if grouped is not None else _newest(common, own[run.digest])
        shown = group_notes[grouped] if grouped is not None else _notes([run], notes)
        pages.append(Page("run", run.digest, run_path(run.digest), commit_of(s),
                          (first_added.get(run.digest), shown,
                           *((landed.get(run.digest),) if landed else ())),
                          group_noted[grouped] if grouped is not None else notes_of([run])))
    pages += [Page("compare", r.digest, run_path(r.digest) + "compare/",
                   commit_of(group_stamp[r.comparison_key]), (group_notes[r.comparison_key],),
                   group_noted[r.comparison_key])
              for r in snap.runs if r.comparison_key is not None]
    pages += [Page("name", r.name, name_path(r.name),
                   commit_of(stamp([manifest_key(r.digest), SETTINGS])))
              for r in snap.runs if NAME.match(r.name)]
    for digest, runs in snap.workloads.items():
        keys = {r.comparison_key for r in runs if r.comparison_key is not None}
        s = _newest(common, stamp([manifest_key(digest)]), *(group_stamp[k] for k in keys),
                    *(own[r.digest] for r in runs if r.comparison_key is None))
        pages.append(Page("workload", digest, workload_path(digest), commit_of(s),
                          (_notes(runs, notes),), notes_of(runs)))
    for source, runs in snap.sources.items():
        # no ranking on it: its runs, its workloads' manifests, and for a workload not in
        # the store, the runs that name it (they give its label)
        listed = {r.workload for r in runs if isinstance(r.workload, str)}
        s = _newest(common, *(own[r.digest] for r in runs),
                    stamp(manifest_key(w) for w in listed),
                    *(own[r.digest] for w in sorted(listed) if w not in snap.records
                      for r in snap.workloads.get(w, [])))
        pages.append(Page("source", source, source_path(source), commit_of(s)))
    return pages


def own_keys(run: Record) -> list[str]:
    """Return the source keys of a run and of the four manifests it references."""
    refs = (run.digest, run.workload, run.protocol, run.environment, run.implementation)
    return [manifest_key(d) for d in refs if isinstance(d, str)]


def _notes(runs: Iterable[Record], notes: dict[str, str]) -> tuple[Any, ...]:
    if not notes:
        return ()
    return tuple((r.digest, notes[r.digest]) for r in runs if r.digest in notes)


def runs_shown(snap: Snapshot, page: Page) -> list[Record]:
    """Return the runs whose evidence ``page`` shows (read before rendering, in one pass)."""
    if page.kind in ("run", "compare"):
        run = snap.records[page.ident]
        return snap.groups[run.comparison_key] if run.comparison_key else [run]
    if page.kind == "group":
        return snap.groups[page.ident]
    return []


# -- the data of each page --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Context:
    """What every page's data may need beyond the snapshot.

    Attributes:
        site: the site's name (``[cite] publisher``, default ``KernelIndex``).
        citations: builds a run's citation block (:mod:`.citing`).
        notes_tip: the notes commit read (index only), or None.
    """

    site: str
    citations: citing.Citations
    notes_tip: str | None = None


def page_data(snap: Snapshot, page: Page, ctx: Context) -> dict[str, Any]:
    """Return the JSON twin of a page: the envelope and the data the page shows.

    The envelope: ``kistoreSite`` (:data:`FORMAT`), ``page`` (its kind), ``path`` (its
    directory), ``commit`` (:attr:`Page.commit`), ``notes`` (:attr:`Page.notes`), ``site``
    (the site's name) and ``data``.
    Paths inside ``data`` (``href`` fields) are relative to the site root.
    """
    builders = {"index": _index, "run": _run, "compare": _compare, "name": _name,
                "group": _group, "workload": _workload, "source": _source}
    return {"kistoreSite": FORMAT, "page": page.kind, "path": page.path,
            "commit": page.commit, "notes": page.notes, "site": ctx.site,
            "data": builders[page.kind](snap, page, ctx)}


def _run_page(snap: Snapshot, run: Record) -> tuple[RunPage, str | None]:
    """Return a run's :class:`RunPage` and, when its group cannot be ranked, why not."""
    manifest = snap.required(run.digest)  # a blob damaged since the index: its error
    related = snap.related(manifest)
    evidence = snap.evidence(run)
    if run.comparison_key is None:
        reason = ("in no comparison group: its protocol or environment is not in the store "
                  f"({run.protocol}, {run.environment})")
        return RunPage(manifest, run, _alone(run, evidence, reason), _row(run, evidence,
                                                                            reason),
                       related), reason
    ranking = snap.ranking(run.comparison_key)
    if isinstance(ranking, str):
        return RunPage(manifest, run, _alone(run, evidence, ranking),
                       _row(run, evidence, ranking), related), ranking
    row = ranking.row(run.digest)
    assert row is not None
    return RunPage(manifest, run, ranking, row, related), None


def _row(run: Record, evidence: Evidence, reason: str) -> Row:
    return Row(run, None, None, None, evidence, reason, None)


def _alone(run: Record, evidence: Evidence, reason: str) -> Ranking:
    """Return a ranking of nothing, for a run that cannot be ranked (its row is excluded)."""
    comparison = Comparison(MEASURED, run.family or "",
                            f"/timing/latencyNs/{run.statistic or 'mean'}", ASCENDING, "ns")
    return Ranking(run.comparison_key or "", comparison, [], [], [],
                   [_row(run, evidence, reason)])


def _run(snap: Snapshot, page: Page, ctx: Context) -> dict[str, Any]:
    run = snap.records[page.ident]
    rp, problem = _run_page(snap, run)
    data = rp.to_json()
    manifest = rp.manifest
    grouped = run.comparison_key is not None and problem is None
    if not grouped:
        data["comparison"] = None
    data["problem"] = problem
    data["labels"] = manifest.metadata.get("labels") or {}
    data["annotations"] = manifest.metadata.get("annotations") or {}
    # its Implementation's and Workload's too: a copy cannot drop their caution (fixk95)
    data["licences"] = _licences(manifest, rp.related)
    data["summary"] = summary.source_summary(manifest.spec, data["references"])
    data["identity"] = summary.identity(manifest.spec, data["implementation"])
    data["community"] = rp.row.evidence.community
    # at its rank, as the group page says it: "Rank 1 of 1" of the runs here (fresh09 L1)
    data["groupCaveat"] = workload_not_stored_said(data["workload"]["digest"]) \
        if grouped and not data["workload"]["inStore"] else None
    data["artifacts"] = _artifacts(rp.related.get("implementationDigest"))
    first = data["first"]
    if first is not None:
        first["href"] = run_path(first["digest"]) + "index.html"
    for ref in data["references"]:
        ref["href"] = run_path(ref["digest"]) + "index.html"
    if (outlier := rp.outlier()) is not None:  # KI234: this #1 is far ahead of #2
        data["outlier"]["over"]["href"] = run_path(outlier.best) + "index.html"
        data["outlier"].update(mark=outlier_mark(outlier), said=outlier_caveat(outlier, run.name))
    if data["implausibleLatency"] is not None:  # KI230, in the words of `show`
        data["implausibleLatency"]["caveat"] = implausible_said(data["implausibleLatency"]["said"])
    data["links"] = {
        "json": run_path(run.digest) + "index.json",
        "group": group_path(run.comparison_key) + "index.html" if run.comparison_key else None,
        "compare": (run_path(run.digest) + "compare/index.html"
                    if run.comparison_key else None),
        "workload": workload_path(run.workload) + "index.html"
        if isinstance(run.workload, str) else None,
        "workloadJson": workload_path(run.workload) + "index.json"
        if isinstance(run.workload, str) else None,
        "name": name_path(run.name) + "index.html" if NAME.match(run.name) else None,
        "source": source_path(source_of(run)) + "index.html",
    }
    data["manifests"] = [_canonical(role, m, digest) for role, m, digest in (
        ("run", manifest, run.digest),
        *((field.removesuffix("Digest"), rp.related.get(field), manifest.spec.get(field))
          for field in ("protocolDigest", "environmentDigest", "workloadDigest",
                        "implementationDigest")))]
    data["citation"] = ctx.citations.block(snap, manifest, withdrawal(rp.row.evidence))
    return data


def _canonical(role: str, manifest: Any, digest: Any) -> dict[str, Any]:
    """One manifest of the run page's "Canonical manifest" section, byte for byte."""
    if manifest is None:
        return {"role": role, "digest": digest, "inStore": False, "kind": None,
                "name": None, "canonical": None, "metadata": None}
    return {"role": role, "digest": str(manifest.digest), "inStore": True,
            "kind": manifest.kind, "name": manifest.name,
            "canonical": manifest.object_bytes.decode("utf-8"),
            "metadata": manifest.metadata_bytes.decode("utf-8")}


def _artifacts(implementation: Any) -> dict[str, Any]:
    spec = implementation.spec if implementation is not None else {}
    return {"inStore": implementation is not None, "source": spec.get("source"),
            "artifacts": spec.get("artifacts") or []}


def _compare(snap: Snapshot, page: Page, ctx: Context) -> dict[str, Any]:
    run = snap.records[page.ident]
    a, problem = _run_page(snap, run)
    first = a.ranking.first
    data: dict[str, Any] = {"run": {"digest": run.digest, "name": run.name,
                                    "title": a.manifest.title,
                                    "href": run_path(run.digest) + "index.html"},
                            "group": group_path(_key_of(run)) + "index.html",
                            "problem": problem, "isFirst": False, "comparison": None}
    if first is None:
        data["problem"] = problem or "nothing is ranked in this comparison group"
        return data
    data["isFirst"] = first.record.digest == run.digest
    b = a if data["isFirst"] else _run_page(snap, first.record)[0]
    result = compare_pages(a, b).to_json()
    for side, rp in (("a", a), ("b", b)):
        result[side].update(title=rp.manifest.title, namedSource=rp.record.named_source,
                            href=run_path(rp.record.digest) + "index.html",
                            licences=_licences(rp.manifest, rp.related))  # break97 L9
    data.update(result)
    return data


def _key_of(run: Record) -> str:
    """Return a grouped run's comparison key (for its group page's path)."""
    assert run.comparison_key is not None
    return run.comparison_key


def _name(snap: Snapshot, page: Page, ctx: Context) -> dict[str, Any]:
    run = snap.names[page.ident]
    return {"name": run.name, "kind": run.kind, "digest": run.digest,
            "href": run_path(run.digest) + "index.html"}


def _licences(run: Any, related: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the licences a run's page, its leaderboard row and its compare sides state.

    :func:`kistore.core.licences.run_licences`: the run's own, then its Implementation's
    and Workload's (``related``: reference field -> manifest, None when not stored); each
    ``{license, kind, name, digest, own, unclear}``. One builder for every page listing a
    run (cat97: the leaderboard showed no ``(!) rights unclear`` where the run page did;
    break97 L9: nor did the workload page's #1 and the compare pages).
    """
    return [said.to_json() for said in run_licences(run, related)]


class _Stating(NamedTuple):
    """What :func:`kistore.core.licences.run_licences` reads of a run: a row's stand-in."""

    metadata: dict[str, Any]
    kind: str
    name: str
    digest: str


def _row_licences(snap: Snapshot, record: Record) -> list[dict[str, Any]]:
    """Return a leaderboard row's licences (:func:`_licences`), as the run's page states them.

    The run's metadata file alone is read (its object, which a page re-hashes, holds no
    licence): 0.05 ms of CPU a row, where reading the whole manifest took 0.27 ms
    (medians of 7, this repository's store, 1,003 runs; a build is ~3 ms a page); its
    Implementation and Workload come from the snapshot's cache of shared manifests,
    which the run pages read anyway. Raises nothing: a metadata file that cannot be read states
    nothing here (the catalog lists no such run; its own page would say why).
    """
    try:
        metadata = canonical.loads(
            snap.view.read(layout.metadata_path(Digest.from_str(record.digest))) or b"")
    except KistoreError:
        metadata = None
    related = {field: snap.manifest(digest) for field, digest in (
        ("implementationDigest", record.implementation), ("workloadDigest", record.workload))}
    return _licences(_Stating(metadata if isinstance(metadata, dict) else {}, record.kind,
                              record.name, record.digest), related)


def _row_json(snap: Snapshot, row: Row, first: Row | None,
              outlier: Outlier | None = None) -> dict[str, Any]:
    """Return a leaderboard row: ``rank --json``'s, with its author, page, ratio to #1, marks.

    ``outlier`` (KI234, the row's own :class:`~kistore.query.outliers.Outlier` data, on a
    marked row only) and
    ``implausibleLatency`` (KI230) as ``rank --json`` has them,
    ``marks``: the words ``rank`` ends the row with (:func:`row_marks`; reviewer r90b F3:
    the leaderboard listed a 3.52 "ns" run #1 with no mark), and ``licences`` as the run's
    page has them (:func:`_row_licences`; an ``UNCLEAR`` one is cautioned on the row).
    """
    data = row.to_json()
    data["outlier"] = (outlier.to_json() if outlier is not None
                       and outlier.digest == row.record.digest else None)
    data["implausibleLatency"] = implausible_latency(row.record.spec)
    data["marks"] = row_marks(row, outlier)
    data["licences"] = _row_licences(snap, row.record)
    impl = snap.records.get(row.record.implementation or "")
    data["author"] = impl.spec.get("author") if impl is not None else None
    data["href"] = run_path(row.record.digest) + "index.html"
    data["namedSource"] = row.record.named_source  # its evidence said "as submitted" if not
    data["ratioToFirst"] = (row.value / first.value if first is not None and first.value
                            and row.value is not None else None)
    return data


def _group(snap: Snapshot, page: Page, ctx: Context) -> dict[str, Any]:
    runs = snap.groups[page.ident]
    ranking = snap.ranking(page.ident)
    head = runs[0]
    data: dict[str, Any] = {
        "key": page.ident, "keyObject": head.key_object, "family": head.family,
        "statistic": head.statistic, "hardware": head.hardware,
        "workload": _workload_brief(snap, head.workload),
        "protocol": _protocol_brief(snap, head.protocol), "runs": len(runs),
    }
    data["policyCaveats"] = [caveat_said(f) for f in ranking_caveats(
        {"families": snap.policy.families}) if family_of(f) == head.family]  # KI231, KI236
    data["caveats"] = group_caveats(data["workload"], [
        r for r in runs if r.implementation and r.role is None])  # fresh05 LOW 5
    if isinstance(ranking, str):
        data.update(comparison=None, error=ranking, groupSize=0, ranked=[], unranked=[],
                    outliers=[],
                    references=[], excluded=[
                        {**_row_json(snap, _row(r, snap.evidence(r), ranking), None)}
                        for r in runs])
        return _tell_apart(snap, data)
    first, outliers = ranking.first, ranking_outliers(ranking)
    data.update(comparison=ranking.comparison.to_json(), error=None,
                groupSize=ranking.group_size,
                outliers=[{**outliers[row.record.digest].to_json(),
                           "said": outlier_caveat(outliers[row.record.digest], row.record.name)}
                          for row in ranking.ranked if row.record.digest in outliers],
                **{part: [_row_json(snap, row, first, outliers.get(row.record.digest))
                          for row in rows]
                   for part, rows in (
                    ("ranked", ranking.ranked), ("unranked", ranking.unranked),
                    ("references", ranking.references), ("excluded", ranking.excluded))})
    return _tell_apart(snap, data)


def group_caveats(workload: dict[str, Any], unknown: list[Record]) -> list[str]:
    """Say what ``rank`` and ``show`` warn of a group, for its leaderboard (fresh05 LOW 5).

    Args:
        workload: the group's workload as lists show it (:func:`_workload_brief`).
        unknown: the group's runs naming an Implementation the store does not hold (its
            record's ``role`` is None then: :func:`kistore.index.records.describe`).

    Returns:
        Up to two lines: the workload not in the store (``rank``'s and ``show``'s caveat,
        word for word: other runs of it are not ranked with these), and how many runs
        rank as candidates for want of their Implementation (``rank``'s warning: a
        reference implementation's run would rank as one).
    """
    said = []
    if not workload["inStore"]:
        said.append(workload_not_stored_said(workload["digest"]))
    if unknown:
        said.append(f"run {unknown[0].name} names an Implementation this store does not "
                    "hold: its project and role are unknown, so it ranks as a candidate"
                    if len(unknown) == 1 else
                    f"{len(unknown)} runs name Implementations this store does not hold: "
                    "their project and role are unknown, so they rank as candidates")
        said[-1] += " (a reference implementation's run would rank as one)"
    return said


def _tell_apart(snap: Snapshot, data: dict[str, Any]) -> dict[str, Any]:
    """Set each row's ``toldApart``: what tells its Implementation apart, else None.

    Only a row whose Implementation shares its shown label (author, else project) with
    another one of the group gets words (:func:`summary.told_apart`).
    """
    rows = [row for part in ("ranked", "unranked", "references", "excluded")
            for row in data[part]]
    shown: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for row in rows:
        impl = snap.records.get(row.get("implementation") or "")
        if impl is not None:
            shown[impl.digest] = (str(row.get("author") or row.get("project") or row["name"]),
                                  impl.name, impl.spec)
    said = summary.told_apart(shown)
    for row in rows:
        row["toldApart"] = said.get(row.get("implementation") or "")
    return data


def _workload_brief(snap: Snapshot, digest: str | None) -> dict[str, Any]:
    """Return a workload as lists show it.

    Its ``label`` is its definition, else what its runs call it
    (``sourceNative.benchmark``), else its short digest.
    """
    record = snap.records.get(digest or "")
    spec: dict[str, Any] = record.spec if record is not None else {}
    suite: dict[str, Any] = spec["suite"] if isinstance(spec.get("suite"), dict) else {}
    label = spec.get("definition")
    if not isinstance(label, str):
        named = sorted({b for r in snap.workloads.get(digest or "", [])
                        if isinstance(b := (r.spec.get("sourceNative") or {}).get("benchmark"),
                                      str)})
        label = named[0] if named else str(digest)[:19]
    return {"digest": digest, "inStore": record is not None,
            "name": record.name if record is not None else None,
            "definition": spec.get("definition"), "label": label, "cases": cases_text(spec),
            "suite": suite.get("name"),
            "collection": suite.get("collection"),
            "href": workload_path(digest) + "index.html" if digest else None}


def cases_text(spec: dict[str, Any]) -> str | None:
    """Say what tells a workload from others of its definition: its cases.

    One case: its axes, sorted by name (``"M=176"``); several: ``"16 cases"``; none listed,
    or a case without axes: None. Many workloads share one definition (FlashInfer Trace
    has one per captured shape), so lists show this beside the label.
    """
    cases = spec.get("cases")
    if not isinstance(cases, list) or not cases:
        return None
    if len(cases) > 1:
        return f"{len(cases)} cases"
    axes = cases[0].get("axes") if isinstance(cases[0], dict) else None
    if not isinstance(axes, dict) or not axes:
        return None
    return ", ".join(f"{k}={v}" for k, v in sorted(axes.items()))


def natural_key(text: str | None) -> tuple[Any, ...]:
    """Return the sort key of a name read as people read it: numbers as numbers.

    Each run of digits compares as its number, the rest as text (``M=8`` before ``M=64``,
    ``10_HingeLoss`` before ``100_HingeLoss``: fresh00c L3, where text order listed
    ``100_`` before ``10_``); the text itself breaks the ties numbers leave (``01`` and
    ``1``), so the order is total and the same on every build. None sorts first.
    """
    if text is None:
        return ((), "")
    parts = re.split(r"(\d+)", text)  # the digit runs at odd places (Unicode \d: int reads them)
    return (tuple((0, int(part), "") if odd % 2 else (1, 0, part)
                  for odd, part in enumerate(parts) if part), text)


def _protocol_brief(snap: Snapshot, digest: str | None) -> dict[str, Any]:
    record = snap.records.get(digest or "")
    spec: dict[str, Any] = record.spec if record is not None else {}
    harness: dict[str, Any] = spec["harness"] if isinstance(spec.get("harness"), dict) else {}
    return {"digest": digest, "inStore": record is not None,
            "name": record.name if record is not None else None,
            "harness": harness.get("name"), "version": harness.get("version")}


def _group_brief(snap: Snapshot, key: str) -> dict[str, Any]:
    runs = snap.groups[key]
    ranking = snap.ranking(key)
    head = runs[0]
    first = ranking.first if not isinstance(ranking, str) else None
    outlier = ranking_outlier(ranking) if not isinstance(ranking, str) else None
    return {"key": key, "href": group_path(key) + "index.html", "hardware": head.hardware,
            "protocol": _protocol_brief(snap, head.protocol), "runs": len(runs),
            "comparison": ranking.comparison.name if not isinstance(ranking, str) else None,
            "error": ranking if isinstance(ranking, str) else None,
            "groupSize": ranking.group_size if not isinstance(ranking, str) else 0,
            "first": {"digest": first.record.digest, "name": first.record.name,
                      "value": first.value, "unit": first.unit,
                      "href": run_path(first.record.digest) + "index.html",
                      "marks": row_marks(first, outlier, below=False),  # KI234, KI230 (r90b F3)
                      "licences": _row_licences(snap, first.record)}  # its caution (break97 L9)
            if first is not None else None}


def _workload(snap: Snapshot, page: Page, ctx: Context) -> dict[str, Any]:
    runs = snap.workloads[page.ident]
    manifest = snap.manifest(page.ident)
    keys = sorted({r.comparison_key for r in runs if r.comparison_key is not None})
    groups = [_group_brief(snap, k) for k in keys]
    groups.sort(key=lambda g: (g["hardware"] or "", g["protocol"]["name"] or "", g["key"]))
    return {
        **_workload_brief(snap, page.ident),
        "title": manifest.title if manifest is not None else None,
        "spec": manifest.spec if manifest is not None else None,
        "json": workload_path(page.ident) + "index.json",
        "runs": len(runs), "groups": groups,
        "ungrouped": [{"digest": r.digest, "name": r.name, "status": r.status,
                       "href": run_path(r.digest) + "index.html"}
                      for r in runs if r.comparison_key is None],
    }


def _workload_rows(snap: Snapshot, items: Iterable[tuple[str, list[Record]]]
                   ) -> Iterator[dict[str, Any]]:
    for digest, runs in items:
        brief = _workload_brief(snap, digest)
        yield {**brief, "runs": len(runs),
               "groups": len({r.comparison_key for r in runs if r.comparison_key}),
               "hardware": sorted({r.hardware for r in runs if r.hardware})}


def _by_label(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Workload rows in reading order: suite, collection, label, cases, digest.

    Collection, label and cases by :func:`natural_key` (numbers as numbers: KernelBench's
    ``level1`` ``10_...`` before ``100_...``).
    """
    return sorted(rows, key=lambda w: (w["suite"] or "~", natural_key(w["collection"]),
                                       natural_key(w["label"]), natural_key(w["cases"]),
                                       w["digest"]))


def _source(snap: Snapshot, page: Page, ctx: Context) -> dict[str, Any]:
    runs = snap.sources[page.ident]
    by_workload: dict[str, list[Record]] = {}
    for r in runs:
        by_workload.setdefault(r.workload or "", []).append(r)
    return {"source": page.ident, "unspecified": page.ident == NO_SOURCE, "runs": len(runs),
            "groups": len({r.comparison_key for r in runs if r.comparison_key}),
            "workloads": _by_label(_workload_rows(snap, sorted(
                (d, rs) for d, rs in by_workload.items() if d)))}


def _index(snap: Snapshot, page: Page, ctx: Context) -> dict[str, Any]:
    counts = {"runs": len(snap.runs), "groups": len(snap.groups),
              "workloads": len(snap.workloads), "sources": len(snap.sources)}
    for kind in ("Workload", "BenchmarkProtocol", "ExecutionEnvironment", "Implementation"):
        counts[kind] = sum(1 for r in snap.records.values() if r.kind == kind)
    gpus: dict[str, dict[str, Any]] = {}
    for r in snap.runs:
        product = r.hardware or "(environment not in the store)"
        entry = gpus.setdefault(product, {"product": product, "runs": 0, "groups": set()})
        entry["runs"] += 1
        if r.comparison_key:
            entry["groups"].add(r.comparison_key)
    return {
        "commit": snap.rev, "notes": ctx.notes_tip, "counts": counts,
        "sources": [{"source": s, "unspecified": s == NO_SOURCE,
                     "href": source_path(s) + "index.html", "runs": len(rs),
                     "workloads": len({r.workload for r in rs if r.workload}),
                     "groups": len({r.comparison_key for r in rs if r.comparison_key})}
                    for s, rs in snap.sources.items()],
        "gpus": [{"product": g["product"], "runs": g["runs"], "groups": len(g["groups"])}
                 for g in sorted(gpus.values(), key=lambda g: g["product"])],
        "workloads": _by_label(_workload_rows(snap, snap.workloads.items())),
        "skipped": [{"digest": d, "path": p, "problem": why}
                    for d, (p, why) in sorted(snap.skipped.items())],
    }
