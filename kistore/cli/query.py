"""Query subcommands: ``rank``, ``compare``, ``ls``, ``reindex`` (``show`` is in core)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from . import (
    StoreContext,
    emit_json,
    emit_jsonl,
    explaining_misses,
    format_options,
    one_look,
    output_format,
    settled_work_tree,
    warn_unreadable,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
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


@click.command()
@click.argument("ref")
@COMPARISON
@EVIDENCE
@click.option("--all", "show_all", is_flag=True,
              help="Also list runs not ranked for their status, withdrawal or evidence.")
@AT
@format_options
@pass_ctx
@settled_work_tree
@one_look
def rank(ctx: StoreContext, ref: str, comparison: str | None, min_evidence: str,
         show_all: bool, at: str | None, fmt: str | None, as_json: bool) -> None:
    """Rank the comparison group of run REF (digest, 8+ hex prefix, or BenchmarkRun/NAME).

    Ranked: status passed, not withdrawn, not a reference implementation. Ties share a
    rank (1, 2, 2, 4). Runs without the ranked value are listed with no rank; reference
    runs are listed apart.

    \b
    Example:
      kistore rank BenchmarkRun/sol-submission-20464
      kistore rank 384a96d0 --comparison measured --json
      kistore rank 384a96d0 --format jsonl | jq -c 'select(.rank <= 3)'
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.answers import rank as rank_group
    from ..query.answers import run_catalog

    fmt = output_format(fmt, as_json)
    store = ctx.store()
    with explaining_misses(store, [ref], at):  # not checked out: said first, and alone
        catalog = run_catalog(store, [ref], at)  # a blob-less clone: the group's listing
        _warn_default_policy(store, at)
        with _warning_before_no_group(store, catalog, at):
            _, ranking = rank_group(store, ref, at=at, comparison=comparison,
                                    min_evidence=min_evidence, catalog=catalog)
    warn_unreadable(store, catalog, at)  # after: answers are checked as they are read
    rows = ranking.rows(include_excluded=show_all)
    # Lazy: `rank --help` imports no other module (tests/cli/test_cli_startup.py).
    from .names import warn_shared_names

    warn_shared_names(store, [row.record for row in rows], at)
    if fmt != "text":
        data = [{**row.to_json(), "comparison": ranking.comparison.name,
                 "metric": ranking.comparison.metric} for row in rows]
        (emit_json if fmt == "json" else emit_jsonl)(data)
        return
    c = ranking.comparison
    click.echo(f"comparison group {ranking.key}: {ranking.group_size} ranked, "
               f"{c.name} comparison, {c.metric} {c.order} ({c.unit or 'unit per run'})")
    workload = (rows[0].record.key_object or {}).get("workloadDigest") if rows else None
    if workload and catalog.record(workload) is None:
        click.echo(f"caveat: the workload {workload} is not in this store, so the group holds "
                   "only the runs of it stored here")
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.numbers import value_texts

    units = {row.unit for row in rows if row.value is not None}
    texts = value_texts([row.value for row in rows], c.unit or (units.pop() if len(units) == 1
                                                                else None))
    for row in rows:
        rank_text = str(row.rank) if row.rank is not None else "-"
        value = "-" if row.value is None else texts[row.value]
        note = f"  ({row.reason})" if row.reason else ""
        click.echo(f"{rank_text:>5} {value:>14} {row.unit or '':<5} {row.record.digest[:19]} "
                   f"{row.record.name} [{row.evidence.level}]{note}")


@click.command()
@click.argument("a")
@click.argument("b", required=False)
@COMPARISON
@AT
@JSON
@pass_ctx
@settled_work_tree
def compare(ctx: StoreContext, a: str, b: str | None, comparison: str | None, at: str | None,
            as_json: bool) -> None:
    """Compare run A with run B (default: rank 1 of A's comparison group).

    Lists each differing field of the runs, their environments and implementations, and
    the ratio of their ranked values (A / B).

    \b
    Example:
      kistore compare BenchmarkRun/sol-submission-20464
      kistore compare 384a96d0 --comparison measured --json
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.answers import run_catalog
    from ..query.page import compare as compare_runs

    store = ctx.store()
    with explaining_misses(store, [a, b], at):  # not checked out: said first, and alone
        # a blob-less clone: A's group (which holds its #1) and B's, from their listings
        catalog = run_catalog(store, [a] if b is None else [a, b], at)
        _warn_default_policy(store, at)
        with _warning_before_no_group(store, catalog, at):
            result = compare_runs(store, a, b, at=at, comparison=comparison,
                                  catalog=catalog)
    warn_unreadable(store, catalog, at)
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from .names import warn_shared_names

    warn_shared_names(store, [result.a.record, result.b.record], at)
    if b is None and result.a.record.digest == result.b.record.digest:
        click.echo(f"note: {a} is rank 1 of its comparison group, so it was compared with "
                   "itself; give B to compare it with another run (`kistore rank "
                   f"{a}` lists the group)", err=True)
    if as_json:
        emit_json(result.to_json())
    else:
        for line in result.lines():
            click.echo(line)


@click.command(name="ls")
@click.option("--kind", type=click.Choice(["Workload", "BenchmarkProtocol",
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
    store = ctx.store()
    if at is None:  # a `git clone --no-checkout`: said first and alone, as rank and show do
        store.require_checkout()
    catalog = open_catalog(store, at)
    with explaining_misses(store, [workload], at):
        found = list_entries(store, catalog, kind=kind, workload=workload, hardware=hardware,
                             at=at, details=fmt != "text")
    warn_unreadable(store, catalog, at)  # after: answers are checked as they are read
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


@click.command()
@click.option("--at", "at", metavar="REV", default="HEAD", show_default=True,
              help="Index this commit's tree.")
@JSON
@pass_ctx
def reindex(ctx: StoreContext, at: str, as_json: bool) -> None:
    """Rebuild the derived SQLite index under .git/kistore/ from scratch.

    Rebuilds the query rows of a commit's tree and the names (KIND/NAME -> digest) of the
    work tree, in the one index file (.git/kistore/index.sqlite). It is a cache: deleting
    it loses nothing, and commands update it themselves. Use this after changing
    kistore, after editing store files by hand, or to time a full build. Manifests of the
    tree that do not verify (e.g. bytes not in canonical form, KI103, or a spec their
    schema refuses, KI104) are left out of the query rows and listed, as every query then
    warns.

    \b
    Example:
      kistore reindex
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..index.index import Index, count_objects

    store = ctx.store()
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


def _warn_default_policy(store: Store, at: str | None) -> None:
    """Say on stderr when the view has no ranking policy, so the default is not used silently."""
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.layout import POLICY_FILE

    if store.view(at).read(POLICY_FILE) is None:
        click.echo(f"warning: no {POLICY_FILE} here: ranked by kistore's shipped default "
                   "policy (`kistore verify` reports KI207 if the store's history had one)",
                   err=True)


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
