"""Core subcommands: ``init``, ``add``, ``digest``, ``show``, ``cat``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import one_line
from . import refuse_empty
from ._adding import Landing, ReadingLine, interrupt_says, metadata_option_hint, undone_add
from ._answers import (
    explaining_misses,
    ranking_policy,
    warn_implementation_missing,
    warn_unreadable,
)
from ._context import StoreContext, collector_off, one_look, settled_work_tree
from ._machine import emit_json, writes
from ._notes_at import NOTES_AT, notes_read
from ._renamed_here import SHOW_OTHER_READS, SHOW_READS, warn_provenance_edited, warn_renamed

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..core.model import Manifest
    from ..index.catalog import Catalog
    from ..query.policy import RankingPolicy
    from ..store import AdmissionCheck, Store

pass_ctx = click.make_pass_decorator(StoreContext)


@writes(True)
@click.command()
@click.argument("path", default=".", type=click.Path(file_okay=False), callback=refuse_empty)
@click.option("--hooks", "with_hooks", is_flag=True,
              help="Also install kistore's git hooks: pre-commit (the gate on what a commit "
              "adds) and pre-push (the gate on every pushed ref).")
def init(path: str, with_hooks: bool) -> None:
    """Create a store: a git repository with kistore.toml, .gitattributes and store/.

    PATH is the store's top directory; unless it is already the top of a git work tree,
    a new repository is made there (also inside another repository), with git's
    pack.window set to 50 (git gc packs the manifests smaller). With --hooks, the
    pre-commit and pre-push hooks are written to .git/hooks, running this kistore (a
    different hook already there is never replaced).

    \b
    Example:
      kistore init my-index
      kistore init --hooks .
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import printable
    from ..store import Store

    store = Store.init(path)
    if store.initialised:
        click.echo(printable(f"initialised kistore store in {store.root}"))
    else:  # run again, or `init --hooks .` in a store: say what it did, not "initialised"
        done = "only its hooks are installed" if with_hooks else "nothing was written"
        click.echo(printable(f"{store.root} is a kistore store already: {done}"))
    if with_hooks:
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..store.hooks import install_hooks, running_kistore

        runner = running_kistore()
        for hook, status in install_hooks(store, runner):
            click.echo(printable(f"{status} hook {hook}"))
        if runner.executable is None:  # say it: not the `kistore` a reader would expect
            click.echo(printable(f"the hooks run this kistore: {runner.describe()} "
                                 "(KISTORE=/path/to/kistore runs another)"))
    if store.uncommitted:  # an existing repository: kistore does not commit into it
        # Lazy: shlex for this message only (every command imports this module).
        import shlex

        files = " ".join(shlex.quote(f) for f in store.uncommitted)
        click.echo(f"commit the new files before adding: git add {files} && "
                   f"git commit -m 'kistore init' -- {files}", err=True)


@writes(True)
@click.command()
@click.argument("files", nargs=-1, required=True, callback=refuse_empty)
@click.option("--allow-dangling", is_flag=True,
              help="Record runs whose references are not in the store (verify reports them).")
@click.option("--update-metadata", is_flag=True,
              help="Replace the stored metadata of an object that is already present.")
@click.option("--commit", "do_commit", is_flag=True,
              help="Also commit the new files on the current branch (git status stays clean).")
@click.option("-m", "--message", help="Commit message for --commit.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of lines.")
@pass_ctx
@collector_off  # a batch: millions of acyclic dicts (~15% of parsing 10,000 manifests)
def add(ctx: StoreContext, files: tuple[str, ...], allow_dangling: bool, update_metadata: bool,
        do_commit: bool, message: str | None, as_json: bool) -> None:
    """Add manifests: files, bundles, JSON Lines, directories, or - for stdin.

    Prints one line per manifest: DIGEST KIND NAME. Adding what is already stored
    changes nothing and prints the same digest, but for the group files a stored
    protocol or environment completes for earlier runs that lack them (written, and
    said on stderr). Nothing is written unless every manifest is valid.

    With --commit, the commit's author and committer are the ones git names (`git var
    GIT_AUTHOR_IDENT`, `git var GIT_COMMITTER_IDENT`: GIT_AUTHOR_NAME/EMAIL and the
    rest, every git config git reads, `git -c`, user.useConfigOnly); where git names none,
    the add is refused with git's reason before anything is written.
    It is dated by this machine's clock: GIT_AUTHOR_DATE and GIT_COMMITTER_DATE are
    ignored, since a commit's date is when its files entered the store (a date ahead is
    refused by the gate, KI438; one set back gains nothing).

    \b
    Example:
      kistore add --allow-dangling --commit record.bundle.json
      cat runs.jsonl | kistore add -
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..store.run_facts import keeping_ranked

    def ranked() -> frozenset[str] | None:
        # Lazy: the policy's modules load only once some run's facts are found.
        from ..query.outlier_rules import ranked_keys

        return ranked_keys(ctx.store())

    # each run's share of KI221 and KI234 found where it is parsed (issue 22)
    with keeping_ranked(ranked):
        _add(ctx, files, allow_dangling, update_metadata, do_commit, message, as_json)


def _add(ctx: StoreContext, files: tuple[str, ...], allow_dangling: bool,
         update_metadata: bool, do_commit: bool, message: str | None, as_json: bool) -> None:
    """``kistore add``'s work (:func:`add`), each run's ranked share kept as it is parsed."""
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import MultipleErrors
    from ..store.inputs import read_inputs_apart

    if message and not do_commit:
        raise click.UsageError("-m/--message needs --commit")
    store = ctx.store()
    store.require_checkout_to_write("kistore add")  # Store.add refuses too: before reading
    reading = ReadingLine()
    with interrupt_says("while reading the input: nothing was added or written"):
        try:
            located, refused = read_inputs_apart(files, store.limits(), reading)
        finally:
            reading.done()
    if refused:
        # Lazy: the policy is read only for a refused input's NaN at a metric.
        from ..query.policy import ranked_number_advice

        ranked_number_advice(store.view(), refused)
    if refused and not located:
        raise MultipleErrors(store.meant_references(refused))
    # Lazy: attestations read only when a claim meets another's (KI232), a run 100x ahead (KI234)
    from ..attest.evidence import withdrawn_runs

    checks: tuple[AdmissionCheck, ...] = ()
    kinds = {x.manifest.kind for x in located}
    if kinds & {"BenchmarkRun", "ExecutionEnvironment", "BenchmarkProtocol"}:
        # the environment or protocol completing a stored run's key: judged too (r90b F7)
        # Lazy: a run is judged against its group (KI234) when such manifests are added.
        from ..query.above_zero import above_zero_admitted
        from ..query.outlier_rules import outliers_check
        from ..query.ranked_values import values_check

        # and for its ranked value (KI221), a stored run so completed too (pol97 left);
        # a time of 0 or below refused (KI237)
        checks = (values_check, above_zero_admitted, outliers_check(withdrawn_runs(store)))
    if "BenchmarkRun" in kinds:
        # a run is judged against its group's unit (KI210)
        # Lazy: only when runs are added.
        from ..query.units import units_admitted

        checks = (units_admitted, *checks)

    landing = Landing()
    with interrupt_says(undone_add("add", commit=do_commit,
                                          update_metadata=update_metadata)), \
            metadata_option_hint("pass --update-metadata to replace it"):
        results = store.add([x.manifest for x in located], allow_dangling=allow_dangling,
                            update_metadata=update_metadata, commit=do_commit,
                            message=message, origins={x.manifest.digest: x for x in located},
                            places=located,
                            checks=checks, on_landed=landing.landed, refused=refused,
                            # a withdrawn claimant of a source record blocks no run (KI232)
                            withdrawn=withdrawn_runs(store))
        landing.landed(landing.commit)  # nothing was written, or it landed: print it all
    landing.say("add", len(results))
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import printable

    for r in results:  # what an admission check warned of (KI217): added all the same
        for line in r.warnings:
            click.echo(printable(f"warning: {line}"), err=True)
    for r in results:  # a stored manifest's add that wrote files after all (low00)
        if r.completed:
            done = "wrote and committed" if do_commit else "wrote"
            click.echo(printable(
                f"note: {r.kind}/{r.name} is stored already; it completes the comparison key "
                f"of {len(r.completed)} earlier run(s) lacking their group file, and this add "
                f"{done} it: {', '.join(r.completed)}"), err=True)
    if as_json:
        # the warnings too (KI217, KI218): a script reads them here, not on stderr (F21)
        emit_json([{"digest": str(r.digest), "kind": r.kind, "name": r.name, "status": r.status,
                    "warnings": list(r.warnings), "completed": list(r.completed)}
                   for r in results])
    elif results:  # one write: a bulk add prints 100,000 lines
        click.echo("\n".join(f"{r.digest} {r.kind} {r.name}" for r in results))


@writes(True)
@click.command()
@click.option("--commit", "do_commit", is_flag=True,
              help="Also commit the files written on the current branch, as add --commit.")
@click.option("-m", "--message", help="Commit message for --commit.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of lines.")
@pass_ctx
def migrate(ctx: StoreContext, do_commit: bool, message: str | None, as_json: bool) -> None:
    """Write what a store of an earlier layout lacks: names, forward records, groups.

    Each manifest's name is a file store/names/KIND/XX/NAME holding its digest; each
    reference of a run to a digest with no object is a file
    store/forward/sha256/XX/REST/RUN listing the fields that name it; each run whose
    comparison key K is known is a file store/groups/sha256/XX/<rest of K>/RUN holding the
    key object (its sha256 is K). Prints one line per file written: PATH DIGEST (a record
    or group file: the run's digest); nothing when every file is there (running it again
    changes nothing). Nothing is written when a name is held twice, or a names file, record
    or group file holds other bytes (each is listed). An object file whose bytes do not
    hash to its name (renamed by hand, or edited: KI101) is skipped, named on stderr with
    what to do (the `mv` back for a renamed one): nothing is written for it.

    \b
    Example:
      kistore migrate --commit
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..store import ForwardWritten, GroupWritten, ObjectSkipped

    if message and not do_commit:
        raise click.UsageError("-m/--message needs --commit")
    store = ctx.store()
    undone = ", and the branch did not move" if do_commit else ""
    landing = Landing()
    with interrupt_says(f"before the migration landed: nothing was written{undone}"), \
            metadata_option_hint("`kistore add --update-metadata FILE` replaces its "
                                 "metadata"):
        done = store.migrate(commit=do_commit, message=message, on_landed=landing.landed)
        landing.landed(landing.commit)  # nothing was written, or it landed: print it all
    written = [w for w in done if not isinstance(w, ObjectSkipped)]
    for skipped in (w for w in done if isinstance(w, ObjectSkipped)):  # KI101: r90b F4
        click.echo(f"warning: {skipped.message()}", err=True)
    landing.say("migration", len(written))
    names = [w for w in written if not isinstance(w, ForwardWritten | GroupWritten)]
    forward = [w for w in written if isinstance(w, ForwardWritten)]
    groups = [w for w in written if isinstance(w, GroupWritten)]
    if as_json:
        emit_json([{"path": w.path, "digest": str(w.digest), "kind": w.kind, "name": w.name}
                   for w in names] +
                  [{"path": w.path, "digest": str(w.run), "kind": "BenchmarkRun",
                    "target": str(w.target), "fields": w.data.decode("ascii").split()}
                   for w in forward] +
                  [{"path": w.path, "digest": str(w.run), "kind": "BenchmarkRun",
                    "comparisonKey": str(w.key)} for w in groups])
        return
    if written:
        click.echo("\n".join([f"{w.path} {w.digest}" for w in names] +
                             [f"{w.path} {w.run}" for w in forward] +
                             [f"{w.path} {w.run}" for w in groups]))
    where = " and committed" if do_commit and written else ""
    more = [f"{len(forward)} forward record(s)"] if forward else []
    more += [f"{len(groups)} group file(s)"] if groups else []
    records = "".join(f" and {m}" for m in more)
    click.echo(f"{len(names)} names file(s){records} written{where}", err=True)


@writes(False)
@click.command()
@click.argument("files", nargs=-1, required=True, callback=refuse_empty)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of lines.")
@pass_ctx
def digest(ctx: StoreContext, files: tuple[str, ...], as_json: bool) -> None:
    """Print the digest of each manifest without storing or checking it against a store.

    The digest is sha256 of the RFC 8785 canonical bytes of {apiVersion, kind, spec}.
    Each manifest is parsed and held to its schema and the size limits only, not to what
    add checks against a store (a name taken, references, a source's naming rule): add
    may still refuse a manifest digest prints (text output says so on stderr). Inside a
    store, its kistore.toml [limits] apply; elsewhere the default limits.

    \b
    Example:
      kistore digest ../kistore/examples/sol-execbench-submission-20464.bundle.json
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..store.inputs import read_inputs

    found = read_inputs(files, ctx.limits())
    if as_json:
        emit_json([{"digest": str(x.manifest.digest), "kind": x.manifest.kind,
                    "name": x.manifest.name, "file": x.file, "pointer": x.pointer}
                   for x in found])
    else:
        for x in found:
            click.echo(f"{x.manifest.digest} {x.manifest.kind} {x.manifest.name}")
        click.echo("note: digests of canonical bytes, each manifest held to its schema only: "
                   "not checked against a store (names taken, references, a source's naming "
                   "rule), so `kistore add` may still refuse one", err=True)


@writes(False)
@click.command()
@click.argument("ref")
@click.option("--at", "at", metavar="REV", help="Read the store as of this commit.")
@click.option("--comparison", type=click.Choice(["measured", "source-native"]),
              help="For a run: rank by this comparison instead of the policy's.")
@NOTES_AT
@click.option("--json", "as_json", is_flag=True,
              help="Print the manifest and digest (a run: its page) as JSON; not what `add` "
              "takes: `cat --manifest REF` prints that.")
@pass_ctx
@settled_work_tree
@one_look
def show(ctx: StoreContext, ref: str, at: str | None, comparison: str | None,
         notes_at: str | None, as_json: bool) -> None:
    """Show a stored manifest. REF: digest, 8+ hex prefix, or KIND/NAME.

    A BenchmarkRun is shown as the index page: identity, primary measurement, rank N of M
    in its comparison group, ratio to #1, correctness, protocol, environment, attestations
    and evidence level, ending with its citation line. Other kinds are shown as stored.

    \b
    Example:
      kistore show BenchmarkRun/sol-submission-20464
      kistore show BenchmarkProtocol/sol-execbench-leaderboard-v1-1 --json
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.digest import Digest
    from ..core.errors import ResolutionError

    store = ctx.read_store(at)
    notes = notes_read(store, notes_at, at)  # a bad one is refused whatever the kind
    catalog = None
    with explaining_misses(store, [ref], at, names_at_commits=True):
        try:  # schema-checked below unless the index vouches for it (no schema compiled)
            manifest = store.read(ref, at=at, schema=False)
        except ResolutionError:
            # Lazy: only a run's page, or this fallback, needs the derived index.
            from ..index.index import open_catalog
            from ..query.answers import find, names_listing_answers

            if "/" not in ref or names_listing_answers(store, at):
                raise  # a blob-less clone's names listing says no such name: no index built

            # KIND/NAME with no names file: renamed in place, or its files are damaged (or
            # a store never migrated); the query layer finds the first and names the
            # damaged file for the second
            catalog = open_catalog(store, at)
            manifest = store.read(Digest.from_str(find(store, catalog, ref, at=at).digest),
                                  at=at, schema=False)
    if manifest.kind == "BenchmarkRun" and catalog is None:
        # Lazy: only a run's page needs the derived index (the rank of its group).
        from ..query.answers import run_catalog

        catalog = run_catalog(store, [manifest.digest], at)
    if catalog is None or catalog.record(str(manifest.digest)) is None:
        manifest = _schema_checked(store, manifest, at)  # not indexed: check its schema
    if catalog is not None:  # its name, or a referenced one's, edited in the work tree
        warn_renamed(catalog, [manifest.digest, *manifest.references().values()])
    edited = [manifest.digest, *manifest.references().values()]
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from .names import warn_shared_names

    warn_shared_names(store, [manifest], at)
    note = None
    if catalog is not None and manifest.kind == "BenchmarkRun":
        policy = ranking_policy(store, at)  # its rank is by that policy, as `rank` says
        if notes_at is None:  # named notes are read as named: when fetched is moot
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from ._attestations_here import warn_notes_lacking, warn_notes_stale

            warn_notes_stale(store)  # its evidence is of notes fetched before the branches
            warn_notes_lacking(store, at)  # lines the notes tip lacks (fresh05 MED 3)
        note = _show_run(store, catalog, manifest, at, comparison, as_json, policy, notes)
        if note is None:  # the page printed: its KI432 of the work tree said after it
            if at is None:  # (fresh12 F6: said ahead of a KI103 that answered nothing)
                warn_provenance_edited(store, catalog, edited, SHOW_READS)
            return
    if at is None:  # a kernelindex.dev/* annotation edited in the work tree (KI432)
        warn_provenance_edited(store, catalog if catalog is not None else _probed(
            store, manifest), edited, SHOW_OTHER_READS)
    if as_json:
        emit_json({"digest": str(manifest.digest), **manifest.document})
        return
    click.echo(f"digest:   {manifest.digest}")
    click.echo(f"kind:     {manifest.kind}")
    click.echo(f"name:     {manifest.name}")
    click.echo(f"title:    {one_line(manifest.title)}")
    if note:
        click.echo(f"note:     {note}")
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.numbers import json_document

    click.echo(json_document(manifest.spec))  # numbers as stored: 1e-7, never 1e-07


def _probed(store: Store, manifest: Manifest) -> Catalog | None:
    """Return the work tree's query index with ``manifest``'s files checked against ``HEAD``.

    For ``show`` of a kind other than a run, which reads no catalog: the index's stat check
    (:class:`kistore.index._fresh.CheckedCatalog`) tells whether its files are still
    ``HEAD``'s without opening git (as a run's page does), so that an annotation edited in
    the work tree is said (KI432). None when the index cannot be opened (a blob-less clone,
    a bare repository): nothing is said then.
    """
    # Lazy: only `show` of another kind than a run opens the index here.
    from ..core.errors import KistoreError
    from ..index.index import open_catalog

    try:
        catalog = open_catalog(store, None)
        catalog.record(str(manifest.digest))  # checked by stat data: read again if edited
    except (KistoreError, OSError):
        return None
    return catalog


def _show_run(store: Store, catalog: Catalog, manifest: Manifest, at: str | None,
              comparison: str | None, as_json: bool, policy: RankingPolicy | None,
              notes_at: str | None = None) -> str | None:
    """Print the run page of ``manifest`` and its citation line; return None once printed.

    ``policy``: the view's ranking policy as the command read it (None: the page reads it).
    ``notes_at``: the notes commit read (``--notes-at``: :func:`._notes_at.notes_read`);
    None: the tip.

    Returns:
        None when the page was printed; else why the run has no page (no comparison
        group: its protocol or environment is not in the store), for ``show`` to print the
        manifest as stored with that note.
    """
    # Lazy: the query and cite layers load for a run's page only (`show Workload/X` does not).
    from ..cite.citation import short_citation
    from ..query.answers import NoComparisonGroup
    from ..query.page import run_page

    try:
        page = run_page(store, str(manifest.digest), at=at, comparison=comparison,
                        catalog=catalog, policy=policy, notes_at=notes_at)
    except NoComparisonGroup as e:
        warn_unreadable(store, catalog, at)  # e.g. its protocol's file was deleted
        return e.message
    warn_unreadable(store, catalog, at)
    warn_implementation_missing([page.row])  # as `rank` says it (reviewer r87)
    # Lazy: the query layer loads for a run's page only (`show Workload/X` does not).
    from ..query.never_numbers import ranking_said

    if (never := ranking_said(page.ranking, page.row.record.digest)) is not None:
        click.echo(f"warning: {never}", err=True)  # KI249, as `rank` says it
    implementation = manifest.references().get("implementationDigest")
    indexed = all(catalog.record(str(d)) is not None
                  for d in (manifest.digest, implementation) if d is not None)
    citation = short_citation(store, manifest.digest, at=at, schema=not indexed)
    if as_json:
        emit_json({**page.to_json(), "citation": citation, "manifest": manifest.document})
    else:
        listed = None
        if any(a.get("effect") == "invalid" for a in page.row.evidence.attestations):
            # a bad note line's number and fix, said as verify and `attestations` say it
            # Lazy: the attestations are read again on this path only (fixg96 3).
            from ..attest.evidence import judged_many, listed_attestations

            listed = listed_attestations(
                judged_many(store, [manifest.digest], at=at, notes_at=notes_at)[
                    manifest.digest])
        for line in page.lines(listed):
            click.echo(line)
        # the index page ends with how to cite it: one line whatever the title holds
        click.echo(one_line(citation))
    return None


@writes(False)
@click.command()
@click.argument("ref")
@click.option("--at", "at", metavar="REV", help="Read the store as of this commit.")
@click.option("--metadata", is_flag=True, help="Print the metadata file instead of the object.")
@click.option("--manifest", "whole", is_flag=True,
              help="Print the whole manifest (apiVersion, kind, metadata, spec), indented: "
              "what `kistore add` takes, to copy and edit.")
@pass_ctx
@settled_work_tree
def cat(ctx: StoreContext, ref: str, at: str | None, metadata: bool, whole: bool) -> None:
    """Print the exact stored bytes of an object (re-hashed before printing).

    The object is {apiVersion, kind, spec}, whose sha256 is its digest; --metadata prints
    the metadata file beside it. --manifest prints both as one manifest, the form `kistore
    add` takes (docs/contributing.md): a template for a manifest of your own (`show --json`
    prints a page, with the digest, which `add` refuses).

    \b
    Example:
      kistore cat 384a96d0 | sha256sum
      kistore cat --manifest BenchmarkRun/sol-submission-20464 > run.json
    """
    if metadata and whole:
        raise click.UsageError("--metadata and --manifest exclude each other: --manifest "
                               "prints the metadata inside the manifest")
    # Lazy: the one error a cat answers by itself (below), and the layout of its paths.
    from ..core import layout
    from ..core.errors import KistoreError
    from ..core.schema import KINDS

    store = ctx.read_store(at)
    with explaining_misses(store, [ref], at, names_at_commits=True):
        # KIND/NAME through its names file even when the metadata says no name (fixk95)
        digest = store.resolve(ref, at=at, nameless=True)
        try:
            manifest = _schema_checked(store, store.read(digest, at=at, schema=False), at)
        except KistoreError as e:
            # a broken metadata file: the object is intact, and is what `cat` prints
            # (reviewer fresh95 F9: `cat OBJ` and the README's template source failed on it)
            if not (e.file or "").startswith(layout.METADATA_DIR + "/"):
                raise
            kind, slash, name = ref.partition("/")
            _object_alone(store, digest, at, e, whole, metadata,
                          name if slash and kind in KINDS else None)
            return
    if whole:
        data = add_able(manifest)
    else:
        data = manifest.metadata_bytes if metadata else manifest.object_bytes
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _object_alone(store: Store, digest: Any, at: str | None, error: Any, whole: bool,
                  metadata: bool, named: str | None) -> None:
    """Print an object whose metadata file is broken: its bytes, or its manifest as it holds it.

    ``cat --metadata`` prints the broken file's bytes as stored, after a warning naming the
    fault, and exits 0, as ``git cat-file`` prints what is there: a user asking for the
    file wants to see what is wrong in it (it exited 1, printing nothing: fixk95).

    Args:
        store: the store read.
        digest: the manifest's :class:`~kistore.core.digest.Digest`.
        at: the revision read (None: the work tree).
        error: what reading its metadata raised (said on stderr, with the fix that works:
            :meth:`kistore.store.View.restore_advice`).
        whole: ``--manifest``: the template :func:`kistore.store.broken_metadata.
            manifest_template` builds (the object, the last committed metadata that parses,
            the name its names file gives), after a warning naming the broken file and
            where the template's metadata and name came from.
        metadata: ``--metadata``: the metadata file's bytes, after that warning.
        named: the name the person typed (``KIND/NAME``, resolved through its names file),
            or None (a digest).

    Raises:
        VerificationError, ResolutionError: the object's own bytes are missing or corrupt.
        KistoreError: ``error`` again, for ``--metadata`` of a metadata file not there.
    """
    # Lazy: this error path only.
    from ..core import layout
    from ..query.numbers import json_document
    from ..store.broken_metadata import manifest_template

    view = store.view(at)
    said = one_line(error.format())
    if metadata:
        data = view.read(layout.metadata_path(digest))
        if data is None:  # missing, not broken: nothing to print
            raise error
        click.echo(f"warning: {said}; printed anyway: the metadata file as stored"
                   + ("" if data else " (0 bytes)"), err=True)
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    if whole:  # the template, from the store's word on its name and metadata
        template = manifest_template(store, digest, at, named)
        click.echo(f"warning: {said}; printed anyway: the object as stored, {template.told}",
                   err=True)
        data = (json_document(template.document) + "\n").encode()
    else:
        data = view.object_bytes(digest)  # re-hashed: a corrupt object is still refused
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _schema_checked(store: Store, manifest: Manifest, at: str | None) -> Manifest:
    """Return ``manifest`` (read unchecked) once its schema passed: before, or now.

    A mark (:mod:`kistore.index.checked`) says these exact bytes passed under this
    kistore's schemas, so the next ``show`` or ``cat`` of them compiles no schema (~40 ms
    of a fresh process: docs/speed.md); without one the object is read again with its
    schema checked, and marked.

    Raises:
        ParseError, MultipleErrors: the stored bytes no longer pass their schema.
        VerificationError, ResolutionError: as :meth:`kistore.store.View.manifest`.
    """
    # Lazy: a document no index vouches for (`cat`, the show of another kind) only.
    from ..index.checked import is_checked, record_checked

    if is_checked(store.git_dir, manifest.object_bytes, manifest.metadata_bytes):
        return manifest
    manifest = store.view(at).manifest(manifest.digest)
    record_checked(store.git_dir, manifest.object_bytes, manifest.metadata_bytes)
    return manifest


def add_able(manifest: Manifest) -> bytes:
    """Return ``manifest`` as the JSON document ``kistore add`` takes, indented, UTF-8.

    Args:
        manifest: a stored manifest (its bytes already re-hashed by the read).

    Returns:
        ``{apiVersion, kind, metadata, spec}`` in that order, two spaces an indent, numbers
        as the canonical bytes hold them (``1e-7``), and a final newline. Adding these bytes
        gives ``manifest.digest`` again (the digest hashes apiVersion, kind and spec only).
    """
    # Lazy: numbers as stored (1e-7, never 1e-07) only for this output.
    from ..query.numbers import json_document

    document = manifest.document
    ordered = {key: document[key] for key in ("apiVersion", "kind", "metadata", "spec")}
    return (json_document(ordered) + "\n").encode("utf-8")


COMMANDS = [init, add, migrate, digest, show, cat]
