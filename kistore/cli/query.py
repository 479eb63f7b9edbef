"""Query subcommands: ``rank``, ``compare``, ``ls``, ``reindex`` (``show`` is in core)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import one_line
from ._answers import (
    explaining_misses,
    ranking_policy,
    warn_implementation_missing,
    warn_unreadable,
)
from ._context import StoreContext, one_look, settled_work_tree
from ._formats import format_options, output_format
from ._machine import emit_json, emit_jsonl, report_error, writes
from ._notes_at import NOTES_AT, notes_read
from ._renamed_here import COMPARE_READS, RANK_READS, warn_provenance_edited, warn_renamed

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..query.ranking import Row
    from ..store import Store

pass_ctx = click.make_pass_decorator(StoreContext)

COMPARISON = click.option(
    "--comparison", type=click.Choice(["measured", "source-native"]),
    help="Rank by this comparison instead of the one the ranking policy declares.")
EVIDENCE = click.option(
    "--evidence", "min_evidence", type=click.Choice(["source-native", "verified"]),
    default="source-native", show_default=True,
    help="Rank only runs with at least this evidence level.")
AT = click.option("--at", "at", metavar="REV", help="Answer as of this commit.")
JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


@writes(False)
@click.command()
@click.argument("ref")
@COMPARISON
@EVIDENCE
@click.option("--all", "show_all", is_flag=True,
              help="Also list runs not ranked for their status, withdrawal or evidence.")
@AT
@NOTES_AT
@format_options
@pass_ctx
@settled_work_tree
@one_look
def rank(ctx: StoreContext, ref: str, comparison: str | None, min_evidence: str,
         show_all: bool, at: str | None, notes_at: str | None, fmt: str | None,
         as_json: bool) -> None:
    """Rank the comparison group of run REF (digest, 8+ hex prefix, or BenchmarkRun/NAME).

    Ranked: status passed, not withdrawn, not a reference implementation. Ties share a
    rank (1, 2, 2, 4). Runs without the ranked value are listed with no rank; reference
    runs are listed apart.

    \b
    Example:
      kistore rank BenchmarkRun/sol-submission-20464
      kistore rank 384a96d0 --comparison measured --json
      kistore rank 384a96d0 --format jsonl | jq -c 'select(.rank <= 3)'
      kistore rank 384a96d0 --at HEAD --notes-at none
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.answers import rank as rank_group
    from ..query.answers import run_catalog

    fmt = output_format(fmt, as_json)
    store = ctx.read_store(at)
    notes = notes_read(store, notes_at, at)
    with explaining_misses(store, [ref], at):  # not checked out: said first, and alone
        catalog = run_catalog(store, [ref], at)  # a blob-less clone: the group's listing
        policy = ranking_policy(store, at)
        with _warning_before_no_group(store, catalog, at):
            asked, ranking = rank_group(store, ref, at=at, comparison=comparison,
                                        min_evidence=min_evidence, catalog=catalog,
                                        policy=policy, notes_at=notes)
    warn_unreadable(store, catalog, at)  # after: answers are checked as they are read
    shown = [row.record.digest for row in ranking.rows(include_excluded=True)]
    warn_renamed(catalog, shown)
    warn_provenance_edited(store, catalog, shown, RANK_READS)  # KI432 of the work tree
    if notes_at is None:  # named notes are read as named: whether more were fetched is moot
        # Lazy: `rank --help` imports no other module (tests/cli/test_cli_startup.py).
        from ._attestations_here import warn_notes_missing

        warn_notes_missing(store, at)
    _warn_withdrawn(ref, asked.digest, ranking.rows(include_excluded=True), show_all)
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.never_numbers import ranking_said

    if (never := ranking_said(ranking)) is not None:  # KI249: the policy's pointer, said
        click.echo(f"warning: {never}", err=True)
    rows = ranking.rows(include_excluded=show_all)
    # Lazy: `rank --help` imports no other module (tests/cli/test_cli_startup.py).
    from .names import warn_shared_names

    warn_shared_names(store, [row.record for row in rows], at)
    warn_implementation_missing(rows)
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.claims import claimed_with, claimed_with_said
    from ..query.outliers import (
        implausible_latency,
        marks_said,
        outlier_line,
        ranking_outliers,
        row_marks,
    )

    outliers = ranking_outliers(ranking)  # KI234: runs far ahead of the group's reference
    claimed = claimed_with((row.record.digest, row.record.name, row.record.spec)  # KI232
                           for row in ranking.rows(include_excluded=True)
                           if not row.evidence.withdrawn)
    if fmt != "text":
        data = [{**row.to_json(), "comparison": ranking.comparison.name,
                 "metric": ranking.comparison.metric,
                 "outlier": outlier.to_json()
                 if (outlier := outliers.get(row.record.digest)) is not None else None,
                 "implausibleLatency": implausible_latency(row.record.spec)}
                | ({"claimedWith": [d for d, _ in claimed[row.record.digest]]}
                   if row.record.digest in claimed else {}) for row in rows]
        (emit_json if fmt == "json" else emit_jsonl)(data)
        return
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.words import comparison_said, evidence_said

    c = ranking.comparison
    click.echo(f"comparison group {ranking.key}: {ranking.group_size} ranked "
               f"{comparison_said(c.name, c.metric)}, {c.metric} {c.order} "
               f"({c.unit or 'unit per run'})")
    workload = (rows[0].record.key_object or {}).get("workloadDigest") if rows else None
    if workload and catalog.record(workload) is None:
        click.echo(f"caveat: the workload {workload} is not in this store, so the group holds "
                   "only the runs of it stored here")
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.numbers import column, distinct_texts

    units = {row.unit for row in rows if row.value is not None}
    unit = c.unit or (units.pop() if len(units) == 1 else None)
    # each value's own text (latencies rounded, never two values alike); the column lines
    # up on the points with spaces, never zeros
    texts = iter(distinct_texts([row.value for row in rows if row.value is not None], unit))
    values = column(["-" if row.value is None else next(texts) for row in rows])
    for row, value in zip(rows, values, strict=True):
        rank_text = str(row.rank) if row.rank is not None else "-"
        marks = row_marks(row, outliers.get(row.record.digest))  # KI234, KI230
        note = marks_said(marks) if marks else f"  ({row.reason})" if row.reason else ""
        click.echo(f"{rank_text:>5} {value:>14} {row.unit or '':<5} {row.record.digest[:19]} "
                   f"{row.record.name} "
                   f"[{evidence_said(row.evidence.level, named_source=row.record.named_source)}]"
                   f"{note}")
    for row in ranking.ranked:
        if (outlier := outliers.get(row.record.digest)) is not None:
            click.echo(one_line(f"(!) {outlier_line(outlier, row.record.name)}"))
    said: set[tuple[str, ...]] = set()
    names = {row.record.digest: row.record.name for row in ranking.rows(include_excluded=True)}
    for digest, others in sorted(claimed.items()):  # one line a record, under the table
        runs = sorted([(digest, names[digest]), *others])
        if tuple(d for d, _ in runs) not in said:
            said.add(tuple(d for d, _ in runs))
            click.echo(claimed_with_said(runs, page=False))


@writes(False)
@click.command()
@click.argument("a")
@click.argument("b", required=False)
@COMPARISON
@AT
@NOTES_AT
@JSON
@pass_ctx
@settled_work_tree
def compare(ctx: StoreContext, a: str, b: str | None, comparison: str | None, at: str | None,
            notes_at: str | None, as_json: bool) -> None:
    """Compare run A with run B (default: rank 1 of A's comparison group).

    Lists each differing field of the runs, their environments and implementations, and
    the ratio of their ranked values (A / B).

    \b
    Example:
      kistore compare 1974422a 612e0706
      kistore compare 1974422a
      kistore compare 384a96d0 --comparison measured --json
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.answers import run_catalog
    from ..query.page import compare as compare_runs

    store = ctx.read_store(at)
    notes = notes_read(store, notes_at, at)
    with explaining_misses(store, [a, b], at):  # not checked out: said first, and alone
        # a blob-less clone: A's group (which holds its #1) and B's, from their listings
        catalog = run_catalog(store, [a] if b is None else [a, b], at)
        policy = ranking_policy(store, at)
        with _warning_before_no_group(store, catalog, at):
            result = compare_runs(store, a, b, at=at, comparison=comparison,
                                  catalog=catalog, policy=policy, notes_at=notes)
    warn_unreadable(store, catalog, at)
    warn_renamed(catalog, [result.a.record.digest, result.b.record.digest])
    warn_provenance_edited(store, catalog, [result.a.record.digest, result.b.record.digest],
                           COMPARE_READS)
    if notes_at is None:  # named notes are read as named: whether more were fetched is moot
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ._attestations_here import warn_notes_missing

        warn_notes_missing(store, at)
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from .names import warn_shared_names

    warn_shared_names(store, [result.a.record, result.b.record], at)
    for label, page in (("A", result.a), ("B", result.b)):
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..attest.levels import withdrawal_said

        said = withdrawal_said(page.row.evidence)
        if said is not None and (label == "A" or page.record.digest != result.a.record.digest):
            click.echo(one_line(f"warning: {label}, {page.record.name}, is {said}: A / B "
                                "compares with a withdrawn result"), err=True)
    if b is None and result.a.record.digest == result.b.record.digest:
        click.echo(f"note: {a} is rank 1 of its comparison group, so it was compared with "
                   "itself; give B to compare it with another run (`kistore rank "
                   f"{a}` lists the group)", err=True)
    if as_json:
        emit_json(result.to_json())
    else:
        for line in result.lines():
            click.echo(line)


class _KindChoice(click.Choice[str]):
    """``--kind``: one of the five kinds; a typo is told the kind it likely means."""

    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        """Click's message (every kind listed), with "did you mean KIND?" when one is near.

        Args:
            value: what was typed.
            ctx: the command's context.

        Returns:
            E.g. ``'workload' is not one of 'Workload', ... (did you mean Workload?)``.
        """
        # Lazy: `kistore ls --help` loads no schema code (tests/cli/test_cli_startup.py).
        from ..core.schema import nearest_kind

        said = super().get_invalid_choice_message(value, ctx)
        near = nearest_kind(str(value))
        return f"{said[:-1]} (did you mean {near}?)" if near else said


@writes(False)
@click.command(name="ls")
@click.option("--kind", type=_KindChoice(["Workload", "BenchmarkProtocol",
                                          "ExecutionEnvironment", "Implementation",
                                          "BenchmarkRun"]), help="Only this kind.")
@click.option("--workload", metavar="REF",
              help="Only this workload and its runs (digest, 8+ hex prefix or Workload/NAME; a "
                   "full digest also finds runs of a workload not in the store).")
@click.option("--hardware", metavar="PRODUCT",
              help="Only environments with this GPU product and runs on them (the exact "
                   "product name, e.g. \"NVIDIA B200\").")
@AT
@format_options
@pass_ctx
@settled_work_tree
def ls(ctx: StoreContext, kind: str | None, workload: str | None, hardware: str | None,
       at: str | None, fmt: str | None, as_json: bool) -> None:
    """List stored manifests: DIGEST KIND NAME, by kind then name.

    \b
    Example:
      kistore ls --kind BenchmarkRun --hardware "NVIDIA B200"
      kistore ls --kind BenchmarkProtocol --json
      kistore ls --kind BenchmarkRun --format jsonl | jq -r .name
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..index.index import open_catalog
    from ..query.listing import list_entries

    fmt = output_format(fmt, as_json)
    store = ctx.read_store(at)
    if at is None:  # a `git clone --no-checkout`: said first and alone, as rank and show do
        store.require_checkout()
    catalog = open_catalog(store, at)
    with explaining_misses(store, [workload], at):
        found = list_entries(store, catalog, kind=kind, workload=workload, hardware=hardware,
                             at=at, details=fmt != "text")
    warn_unreadable(store, catalog, at)  # after: answers are checked as they are read
    warn_renamed(catalog, [r.digest for r in found])
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from .names import warn_shared_names

    warn_shared_names(store, found, at)
    if not found and hardware is not None:
        _say_products(catalog, hardware)
    if fmt != "text":
        data = [{"digest": r.digest, "kind": r.kind, "name": r.name, "workload": r.workload,
                 "hardware": r.hardware, "comparisonKey": r.comparison_key} for r in found]
        (emit_json if fmt == "json" else emit_jsonl)(data)
        return
    if found:  # one write: a line at a time cost ~15 us each (100,000 runs: 1.5 s)
        click.echo("\n".join(f"{r.digest} {r.kind} {r.name}" for r in found))


@writes(True)
@click.command()
@click.option("--at", "at", metavar="REV", default="HEAD", show_default=True,
              help="Index this commit's tree.")
@click.option("--check", is_flag=True,
              help="Write nothing: compare the kept index with what a rebuild would hold, "
                   "and print each difference (exit 0: they agree, 1: they differ, 2: "
                   "it cannot compare).")
@JSON
@pass_ctx
def reindex(ctx: StoreContext, at: str, check: bool, as_json: bool) -> None:
    """Rebuild the derived SQLite index under .git/kistore/ from scratch.

    Rebuilds the query rows of a commit's tree and the names (KIND/NAME -> digest) of the
    work tree, in the one index file (.git/kistore/index.sqlite). It is a cache: deleting
    it loses nothing, and commands update it themselves. Use this after changing
    kistore, after editing store files by hand, or to time a full build. Manifests of the
    tree that do not verify (e.g. bytes not in canonical form, KI103, or a spec their
    schema refuses, KI104) are left out of the query rows and listed, as every query then
    warns.

    With --check nothing of the index is written: what a rebuild would hold is built
    into a temporary file under .git/kistore/ (deleted after) and compared with the kept
    index row by row, by content: the query rows, the skipped list and the names (of the
    work tree, and of the last commit read with --at). Each difference names its table,
    digest and KIND/NAME, what the index holds and what the store gives; exit 1 when
    there is any (a "stale" one: git moved since the last query, which catches up by
    itself), 2 when it cannot compare: no store, no commit REV, no index yet (or a
    directory or a link where it belongs), or an object of the store git cannot read
    (as `kistore verify --at REV` then reports). With --json every error is one JSON
    document too: {"ok": false, "errors": [...]}.

    \b
    Example:
      kistore reindex
      kistore reindex --check
      kistore reindex --check --json | jq '.differences[] | .table + " " + .name'
    """
    if check:
        _check_index(ctx, at, as_json)
        return
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..index.index import Index, count_objects

    store = ctx.read_store(at)
    tree = store.commit(at).tree
    index = Index(store)
    total = count_objects(store.repo, tree)
    with click.progressbar(length=total, label="indexing", show_pos=True,
                           file=sys.stderr) as bar:
        conn = index.rebuild(tree, progress=bar.update, keep_work_tree_cache=True)
    count = conn.execute("SELECT count(*) FROM records").fetchone()[0]
    skipped = conn.execute("SELECT digest, path, problem FROM skipped ORDER BY digest"
                           ).fetchall()
    name_index = store.name_index()
    names = None
    if name_index is not None:
        with click.progressbar(length=total, label="naming", show_pos=True,
                               file=sys.stderr) as bar:
            names = name_index.rebuild(store.view(), progress=bar.update)
    if as_json:
        emit_json({"path": str(index.path), "tree": str(tree.id), "manifests": count,
                   "names": names, "skipped": [{"digest": d, "path": path, "problem": why}
                                               for d, path, why in skipped]})
    else:
        click.echo(f"indexed {count} manifests of tree {tree.id} into {index.path}")
        for _, path, why in skipped:
            click.echo(f"skipped {path}: {why}")
        if names is not None:
            click.echo(f"names: {names} ({'work tree' if store.root else 'HEAD'})")


_SHOWN = 160
"""Characters of a value a difference line shows (``--json`` gives it whole)."""


def _check_index(ctx: StoreContext, at: str, as_json: bool) -> None:
    """``kistore reindex --check``: compare the kept index with a fresh build; exit 0, 1 or 2.

    Raises:
        click.exceptions.Exit: 1 when they differ; 2 when it cannot run (no store, no
            commit ``at``, no index yet, an object git cannot read, a ``.git`` it cannot
            write the fresh build in, an index locked past SQLite's timeout), after saying
            why on stderr (and, with ``as_json``, in one JSON error document on stdout).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    import sqlite3

    # Lazy: as above (the index and its errors load with the store).
    from ..core.errors import KistoreError, shorten
    from ..index.agree import compare, kept_index
    from ..index.index import count_objects

    try:
        store = ctx.read_store(at)
        tree = store.commit(at).tree
        kept_index(store.git_dir)  # before the bar: nothing to build for
        total = count_objects(store.repo, tree)
        # one bar: the manifests indexed, then the object files named (as reindex's two)
        with click.progressbar(length=2 * total, label="checking", show_pos=True,
                               file=sys.stderr) as bar:
            found = compare(store, tree, store.view(), progress=bar.update,
                            naming=bar.update)
    except KistoreError as e:  # nothing to compare: it could not run (exit 2)
        # one JSON document for --json, as every other command (review 2026-12-02, F12)
        report_error("json" if as_json else None, e)
        for problem in e.problems:
            click.echo(f"error: {problem.format()}", err=True)
        raise click.exceptions.Exit(2) from None
    except (OSError, sqlite3.OperationalError) as e:  # e.g. a read-only .git: cannot run
        file = str(e.filename) if isinstance(e, OSError) and e.filename else None
        message = (f"cannot check the index here ({e}); the fresh build is written under "
                   ".git/kistore/ and deleted after: run it where .git is writable")
        if as_json:
            emit_json({"ok": False, "errors": [{"message": message, "file": file,
                                                "pointer": None, "line": None,
                                                "column": None}]})
        click.echo(f"error: {file + ': ' if file else ''}{message}", err=True)
        raise click.exceptions.Exit(2) from None
    where = "work tree" if found.scope == "work" else "HEAD"
    if as_json:
        emit_json({"path": str(found.path), "agrees": found.agrees, "stale": found.stale,
                   "tree": found.tree, "indexTree": found.kept_tree, "names": where,
                   "counts": found.counts,
                   "differences": [{"table": d.table, "digest": d.digest, "name": d.name,
                                    "field": d.field, "index": d.in_index, "store": d.in_store,
                                    "stale": d.stale} for d in found.differences]})
    elif found.agrees:
        counts = found.counts
        click.echo(f"the index {found.path} agrees with the store: {counts['records']} query "
                   f"rows of tree {found.tree} ({at}), {counts['skipped']} skipped, "
                   f"{counts['names']} names ({where}), {counts['commit names']} names of "
                   "the last commit read with --at")
    else:
        lines = [f"the index {found.path} differs from the store in "
                 f"{len(found.differences)} row(s):"]
        for d in found.differences:
            label = f"{d.table} {d.digest}" + (f" {d.name}" if d.name else "")
            if d.field == "seal":
                says = f"the index's row cannot be trusted: {shorten(d.in_index or '', _SHOWN)}"
            elif d.in_index is None:
                says = ("missing from the index; the store gives "
                        f"{shorten(d.in_store or '', _SHOWN)}")
            elif d.in_store is None:
                says = (f"in the index, not in the store (a fresh build): "
                        f"{shorten(d.in_index, _SHOWN)}")
            else:
                says = (f"{d.field}: the index holds {shorten(d.in_index, _SHOWN)}, the store "
                        f"gives {shorten(d.in_store, _SHOWN)}")
            lines.append(f"{label}: {says}" + (" (stale)" if d.stale else ""))
        if found.stale:
            behind = []
            if found.kept_tree != found.tree:
                behind.append(f"its query rows describe tree {found.kept_tree}, {at}'s is "
                              f"{found.tree}: any query (`kistore ls`) updates them")
            elif any(d.stale and not d.table.startswith("names") for d in found.differences):
                behind.append("its query rows were made under other [limits] of "
                              "kistore.toml: any query (`kistore ls`) reads them again")
            if any(d.stale and d.table.startswith("names") for d in found.differences):
                behind.append("a store directory changed since its names were read: the "
                              "next query or lookup by name (`kistore ls`, `kistore show "
                              "KIND/NAME`, `kistore add`) reads them again")
            lines.append(f"the index is behind git ({'; '.join(behind)}), or run `kistore "
                         "reindex`")
        elif any(d.table == "index" and (d.in_index or "").startswith('"damaged')
                 for d in found.differences):
            lines.append("the index file is damaged: run `kistore reindex` to rebuild it from "
                         f"the store (deleting {found.path} loses nothing)")
        else:
            lines.append("run `kistore reindex` to rebuild it from the store (deleting "
                         f"{found.path} loses nothing); unless the file was edited outside "
                         "kistore, this is a bug in kistore: please report what this prints")
        click.echo("\n".join(lines))
    if not found.agrees:
        raise click.exceptions.Exit(1)


COMMANDS: list[click.Command] = [rank, compare, ls, reindex]


def _say_products(catalog: Any, hardware: str) -> None:
    """Say on stderr which GPU products the store has, when ``--hardware`` matched none.

    ``--hardware`` matches the product exactly, as the driver names it (``NVIDIA B200``);
    ``B200`` listed nothing, and said nothing.
    """
    products = sorted({r.hardware for r in catalog.records(kind="ExecutionEnvironment")
                       if r.hardware})
    known = ", ".join(repr(p) for p in products[:10]) + (" ..." if len(products) > 10 else "")
    click.echo(f"note: no environment has the GPU product {hardware!r} (matched exactly, as "
               f"the driver names it); products here: {known or 'none'}", err=True)


def _warn_withdrawn(ref: str, digest: str, rows: list[Row], show_all: bool) -> None:
    """Say on stderr which runs of a ranking are withdrawn that a reader would take as sound.

    The run ``rank`` was asked about (REF), when it is withdrawn: left out of the ranking
    unless ``--all``, it vanished from the answer without a word; and each withdrawn
    reference run, still listed with the references, whose value is no baseline (reviewer
    r83 F2). Each line names the withdrawal (its key and reason).

    Args:
        ref: what was asked (as typed).
        digest: its run's digest.
        rows: every row of the ranking (``include_excluded=True``).
        show_all: ``--all`` was given (the withdrawn REF is listed then).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..attest.levels import withdrawal_said

    withdrawn = [(row, said) for row in rows if (said := withdrawal_said(row.evidence))]
    for row, said in withdrawn:
        if row.record.digest == digest:
            listed = ("a reference run: listed, its value no baseline" if row.record.is_reference
                      else "listed with --all" if show_all else "not listed (--all lists it)")
            click.echo(one_line(f"warning: {ref} is {said}: it is not ranked, {listed}"),
                       err=True)
    for row, said in withdrawn:
        if row.record.is_reference and row.record.digest != digest:
            click.echo(one_line(f"warning: reference run {row.record.name} is {said}: its "
                                "value is no baseline"), err=True)


@contextlib.contextmanager
def _warning_before_no_group(store: Store, catalog: Any, at: str | None) -> Iterator[None]:
    """Before "in no comparison group", name the damaged files the catalog found.

    A run's protocol or environment whose object file was deleted or corrupted leaves the
    run without a comparison key; the error alone says "not in the store; add them".
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.answers import NoComparisonGroup

    try:
        yield
    except NoComparisonGroup:
        warn_unreadable(store, catalog, at)
        raise
