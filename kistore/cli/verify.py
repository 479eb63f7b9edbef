"""Verification subcommands: ``verify`` (the whole store) and ``check`` (the pull-request gate).

Both print findings (text, JSON, or GitHub annotations) and exit with
:func:`kistore.core.findings.exit_code` of them: 0 clean or only warnings/info, 1 any error.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import printable
from ..core.findings import ERROR, INFO, WARNING, Finding, exit_code, fix_lines
from ._context import StoreContext, collector_off
from ._formats import output_format
from ._machine import emit_json, github_escape, machine_errors, writes

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

pass_ctx = click.make_pass_decorator(StoreContext)

FORMATS = ("text", "json", "github")
_GITHUB_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def _format_option(command: Any) -> Any:
    command = click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
                           help="Output: text (default), json, or github (workflow annotations "
                           "::error file=...,line=...,col=...::message).")(command)
    return click.option("--json", "as_json", is_flag=True,
                        help="Same as --format json (not with another --format).")(command)


def report(findings: list[Finding], fmt: str | None, as_json: bool, checked: str,
           footer: str | None = None, lines: list[str] | None = None) -> None:
    """Print findings in the chosen format and exit with their exit code.

    The answer is written whole, in one write, in every format: a reader that leaves
    before the end of it (``| head -1``) meets text and JSON alike. An answer larger than
    the pipe holds, or a reader gone before it, is exit 141 (the root group's
    ``BrokenPipeError``); one the pipe held whole when the reader left ends with the
    findings' code (1 for an error finding), as ``seq 3 | head -1`` is 0: the writer is
    told of no reader leaving after its last write.

    Args:
        findings: what the checks returned.
        fmt: ``text``, ``json`` or ``github`` (None: text, or json with ``as_json``).
        as_json: the ``--json`` flag.
        checked: what was checked, for the summary (e.g. ``store at HEAD``).
        footer: a line said after the summary of the text format (``warning: ...``), to
            be read last; the findings carry it for the other formats.
        lines: the text format's lines of the findings, when not one a finding in order
            (``check --unpushed`` groups them under the ref that carries them); None: one
            line a finding (:meth:`Finding.format`).
    """
    fmt = "json" if as_json else (fmt or "text")
    counts = {s: sum(f.severity == s for f in findings) for s in (ERROR, WARNING, INFO)}
    code = exit_code(findings)
    if fmt == "json":
        emit_json({"checked": checked, "ok": code == 0, "counts": counts,
                   "findings": [f.to_json() for f in findings]})
    else:  # one write, as the JSON document is: a reader leaving meets both alike
        if fmt == "github" or lines is None:
            lines = [github_annotation(f) if fmt == "github" else f.format() for f in findings]
        if fmt == "text":  # github's annotations carry their fix ("Fix: ...")
            lines += fix_lines(findings)
        summary = ", ".join(f"{n} {s}{'s' if n != 1 and s != INFO else ''}"
                            for s, n in counts.items())
        lines.append(f"{'ok' if code == 0 else 'FAILED'}: {checked}: {summary}")
        if footer is not None:
            lines.append(footer)
        click.echo("\n".join(lines))
    click.get_current_context().exit(code)


def github_annotation(finding: Finding) -> str:
    """Return a GitHub Actions workflow command that marks the finding's file and line.

    The form is ``::error file=F,line=L,col=C,title=KI101 name::message`` (``warning`` or
    ``notice`` for other severities), with properties and message escaped as the runner
    requires (``%``, CR, LF; and ``:``, ``,`` inside properties).
    """
    props = []
    if finding.file:
        props.append(f"file={github_escape(finding.file, True)}")
        if finding.line is not None:
            props.append(f"line={finding.line}")
            props.append(f"col={finding.column or 1}")
    props.append(f"title={github_escape(f'{finding.rule.id} {finding.rule.name}', True)}")
    message = f"{finding.rule.id} {finding.rule.name}: {finding.message}"
    if finding.pointer:
        message = f"{finding.pointer}: {message}"
    if finding.expected is not None or finding.found is not None:
        message += f" (expected {finding.expected}, found {finding.found})"
    message += f". Fix: {finding.hint}"
    return printable(f"::{_GITHUB_LEVEL[finding.severity]} {','.join(props)}::"
                     f"{github_escape(message, False)}")


@writes(True)
@click.command()
@click.option("--at", "at", metavar="REV",
              help="Verify this commit, read straight from git (default: the work tree).")
@click.option("--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes checking files (default: one per CPU, at most 8, on machines "
              "with 2+ CPUs and stores of 4,000+ manifests).")
@click.option("--strict", is_flag=True,
              help="Fail (exit 1) in a shallow clone, whose early history was not checked.")
@_format_option
@pass_ctx
@collector_off  # 14 full collections were ~2.3 s of 11 s at 100,000 (docs/speed.md, ver93)
def verify(ctx: StoreContext, at: str | None, jobs: int | None, strict: bool,
           fmt: str | None, as_json: bool) -> None:
    """Verify the whole store offline and report every problem.

    Checks each object's sha256 against its name, canonical bytes, strict JSON, its
    kind's schema, metadata pairing, unique names, references (unresolved ones are
    warnings), the layout, and that no commit ever modified, renamed or deleted an
    object. Exit 0 when there is no error, 1 otherwise. Rules: docs/rules.md.

    \b
    Example:
      kistore verify
      kistore verify --at origin/main --json
      kistore verify --jobs 4
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..check.audit import CHECKERS, WORK_TREE_WRITTEN, FromParse, count_files, snapshot
    from ..check.audit import verify as run
    from ..query import above_zero, group_rules, outlier_rules

    output_format(fmt, as_json)  # --json beside --format github: a usage error (exit 2)
    with cannot_run(fmt, as_json, f"store at {at or 'work tree'}"):  # not a store at all
        store = ctx.read_store(at)
    where = at or ("work tree" if store.root is not None else "HEAD (a bare repository)")
    with cannot_run(fmt, as_json, f"store at {where}"):
        if at is None:  # a `git clone --no-checkout`: one error, not a KI402 per object
            store.require_checkout("kistore verify")
        try:
            snap = snapshot(store, at)
            with click.progressbar(length=count_files(snap), label="verifying",
                                   file=sys.stderr, hidden=not sys.stderr.isatty()) as bar:
                findings = run(store, at, snap=snap, progress=bar.update, workers=jobs,
                               # and comparison groups whose runs disagree in unit (KI210),
                               # or whose #1 is 100x ahead of the median run (KI234), judged
                               # from the runs the contents check parsed (none read twice)
                               # and a ranked time of 0 or below (KI237), from them too
                               checkers=(*CHECKERS, group_rules.check_units, FromParse(
                                   outlier_rules.ranked_keys, outlier_rules.outliers_parsed),
                                   FromParse(outlier_rules.ranked_keys,
                                             above_zero.parsed_not_above_zero)))
        except Exception as e:  # a damaged tree or commit stops it: KI117, said so
            findings = _damaged(e, store)
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..check.notes_ahead import notes_dated_ahead
    from ._attestations_here import warn_notes_stale

    # KI440: a local notes commit a server would refuse for its date (refs read, and a
    # walk of the notes commits no remote holds only when the notes tip is unpushed)
    findings = [*findings, *notes_dated_ahead(store.repo)]

    warn_notes_stale(store)  # KI308 judged notes fetched before the branches were
    # an add was writing while the work tree was read (KI418, first): said last too
    written = any(f.rule is WORK_TREE_WRITTEN for f in findings)
    report(_strict(findings) if strict else findings, fmt, as_json, f"store at {where}",
           footer=f"warning: {WORK_TREE_WRITTEN.hint}" if written else None)


def cannot_run(fmt: str | None, as_json: bool, checked: str) -> AbstractContextManager[None]:
    """Report the error that stops a check before it runs, in the chosen output format.

    :func:`kistore.cli.machine_errors` with ``verify``'s and ``check``'s report: with
    ``--json``, ``{"checked", "ok": false, "counts"`` of no finding, ``"findings": [],
    "errors": [{"message", "file", "pointer", "line", "column"}]}``; with ``--format github``, one
    ``::error`` line a problem. The error is still raised, with its exit status.

    Args:
        fmt: ``--format`` (None: text, or json with ``as_json``).
        as_json: the ``--json`` flag.
        checked: what was to be checked, for ``checked`` (``store at work tree``).

    Returns:
        The context manager.
    """
    return machine_errors("json" if as_json else fmt, {
        "checked": checked, "ok": False, "counts": {ERROR: 0, WARNING: 0, INFO: 0},
        "findings": []})


def _damaged(error: Exception, store: Store | None = None) -> list[Finding]:
    """Return the KI117 finding of the damaged git object that stopped a check.

    A tree or commit that cannot be read (a blob is reported where it is read, and the
    check goes on) leaves nothing below it to check: the check stops with one KI117
    finding, naming the object and the path it was read for, which says to run
    ``git fsck``. Anything else is raised again.

    Args:
        error: what the check raised.
        store: ``verify``'s store: its damaged pack files are said too (a flipped byte
            in a pack's trailer stops libgit2 reading any object of it), else None.

    Returns:
        ``[KI117]``, then a KI117 of each damaged pack file
        (:func:`kistore.check.audit.pack_findings`).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..check.audit import pack_findings, stopped_finding
    from ..git.blobs import damage
    from ..git.packs import check_packs

    damaged = damage(error)
    if damaged is None:
        raise error
    stopped = [stopped_finding(damaged)]
    return stopped + (pack_findings(store, check_packs(store.repo), stopped)
                      if store is not None else [])


def _strict(findings: list[Finding]) -> list[Finding]:
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..check.lineage import strict

    return strict(findings)


@writes(True)
@click.command()
@click.argument("range_", metavar="BASE..HEAD", required=False)
@click.option("--updates", type=click.File("rb"), metavar="FILE",
              help="Instead of a range, read ref updates 'OLD NEW REF' a line (as git gives "
              "pre-receive on stdin; - for stdin) and refuse non-fast-forward updates of the "
              "main branch and refs/notes/kistore.")
@click.option("--remote", metavar="REMOTE",
              help="With --updates in a pre-push hook (git's $1; its lines given as "
              "'REMOTE_SHA LOCAL_SHA REMOTE_REF'): the remote pushed to; "
              "what its remote-tracking refs reach is what it holds, and each pushed ref is "
              "checked from there (a URL: from the root).")
@click.option("--unpushed", metavar="REMOTE",
              help="Instead of a range, check every local branch, tag and HEAD holding "
              "commits REMOTE's remote-tracking refs lack, refs/notes/kistore holding notes "
              "commits REMOTE lacks, and tags REMOTE holds at another commit (asked with "
              "git ls-remote): all a push could send (the pre-commit framework's hook; it "
              "is handed only the first pushed ref).")
@click.option("--landed", is_flag=True,
              help="BASE..HEAD is a move of main from BASE to HEAD (a push that landed), not "
              "a pull request's branch: BASE must be on HEAD's first-parent line (KI430) "
              "and that line's new commits no older than BASE (KI431). --updates applies "
              "this to the main branch by itself.")
@click.option("--staged", is_flag=True,
              help="HEAD of the range is a commit of the staged changes made on the "
              "checked-out BASE (the pre-commit hook's): fixes restore files from BASE "
              "(`git checkout HEAD -- PATH`) instead of dropping commits of a branch.")
@click.option("--strict", is_flag=True,
              help="Fail (exit 1) in a shallow clone, whose early history was not checked.")
@_format_option
@pass_ctx
def check(ctx: StoreContext, range_: str | None, updates: Any, remote: str | None,
          unpushed: str | None, landed: bool, staged: bool, strict: bool, fmt: str | None,
          as_json: bool) -> None:
    """Check what the commits BASE..HEAD add (the pull-request gate).

    Everything verify checks, on the files the range adds or changes, plus: no
    object modified, renamed or deleted by any commit, BASE an ancestor of HEAD, no
    symlink, submodule or case collision under store/. Reads only git objects, so it
    works in a bare repository. Exit 0 when there is no error, 1 otherwise.

    \b
    Example:
      kistore check origin/main..HEAD
      kistore check --format github "$BASE_SHA..$HEAD_SHA"
      kistore check --landed "$BEFORE..$AFTER"  # after a push to main
      kistore check --updates -        # in a pre-receive hook
      # in a pre-push hook, git's lines reordered (hooks/pre-push does so):
      while read -r _ l r o; do echo "$o $l $r"; done |
        kistore check --updates - --remote "$1"
      kistore check --unpushed origin  # before a push: whatever it sends
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..check.gate import check_range, check_updates, parse_range
    from ..core.errors import InputError
    from ..git.opening import hashes_trusted
    from ..query import above_zero, group_rules, impact, outlier_rules

    # The query layer's rules of a range, which the gate (below it) cannot import: what a
    # trust or policy change does to evidence and rankings (KI413-KI415), and a run whose
    # unit disagrees with its group's (KI210), a ranked value that is no number (KI221),
    # a run 100x ahead of its group's median run (KI234), and a time of 0 or below (KI237).
    checkers = (impact.trust_and_policy_effects, group_rules.units_agree,
                group_rules.values_are_numbers, outlier_rules.range_outliers,
                above_zero.values_above_zero)

    output_format(fmt, as_json)  # --json beside --format github: a usage error (exit 2)
    with cannot_run(fmt, as_json, range_ or ""):  # a usage error too: exit 2, and a report
        if sum(x is not None for x in (range_, updates, unpushed)) != 1:
            raise click.UsageError("give one of BASE..HEAD, --updates FILE or --unpushed "
                                   "REMOTE")
        if remote is not None and updates is None:
            raise click.UsageError("--remote goes with --updates (a pre-push hook's lines)")
        if landed and range_ is None:
            raise click.UsageError("--landed goes with BASE..HEAD (--updates judges the "
                                   "main branch's moves so by itself)")
        if range_ is not None:
            try:
                parse_range(range_)
            except InputError as e:
                raise click.BadParameter(e.message, param_hint="BASE..HEAD") from None
    # The gate reads objects git hashed as they arrived: libgit2 need not hash them again
    # (hashes_trusted), for the whole command whichever way it is given its commits.
    with hashes_trusted():
        if unpushed is not None:
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from ..check.unpushed import check_unpushed, push_advice, verdict_lines

            with cannot_run(fmt, as_json, f"local refs with commits {unpushed} lacks"):
                findings, verdicts = check_unpushed(ctx.store(), unpushed, checkers=checkers,
                                                    strict=strict)
            advice = push_advice(verdicts, unpushed)
            report(findings, fmt, as_json,
                   f"{len(verdicts)} local ref(s) with commits {unpushed} lacks",
                   footer=f"note: {advice}" if advice else None,
                   lines=verdict_lines(verdicts, unpushed))
            return
        if updates is not None:
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from ..check.update_lines import UpdateLineError, hex_width, read_updates, same_width
            from ..git.packs import object_format

            with cannot_run(fmt, as_json, "ref updates"):
                try:  # bytes: git takes a ref name that is not UTF-8 (last96)
                    lines = read_updates(updates)
                except UpdateLineError as e:
                    raise click.UsageError(e.message) from None
            checked = f"{len(lines)} ref update(s)"
            with cannot_run(fmt, as_json, checked):
                store = ctx.store()
                try:
                    same_width(lines, hex_width(object_format(store.repo)))
                except UpdateLineError as e:
                    raise click.UsageError(e.message) from None
                held = None
                if remote is not None:
                    # Lazy: only with --remote; no store code for --help (as above).
                    from ..check.reach import remote_tips

                    held = remote_tips(store.repo, remote)
                findings = check_updates(store, [line.update for line in lines], held=held,
                                         checkers=checkers, remote=remote)
            if not lines:  # break96 M3: a bare "ok" above git's own rejection read as a pass
                report(_strict(findings) if strict else findings, fmt, as_json, checked,
                       footer=_no_updates(remote) if _notes_may_differ(ctx, remote) else None)
                return
        else:
            checked = range_ or ""
            with cannot_run(fmt, as_json, checked):
                try:
                    findings = check_range(ctx.store(), checked, checkers=checkers,
                                           landed=landed, staged=staged)
                except Exception as e:  # a damaged tree or commit stops it: KI117, said so
                    findings = _damaged(e)
                else:
                    _say_if_empty(ctx.store(), checked)
        report(_strict(findings) if strict else findings, fmt, as_json, checked)


def _no_updates(remote: str | None) -> str:
    """Return the note said after ``check --updates -`` of no line, naming ``remote``.

    Said for the pre-push hook of a push git rejected (break96 M3): git refuses a push that
    is not a fast-forward itself, before its hooks run. ``remote``: the pre-push hook's
    remote (fresh00b LOW: the note said ``REMOTE`` there), shell-quoted; None (``check
    --updates -`` by hand): the word ``REMOTE``. Raises nothing.
    """
    if remote is None:
        name = "REMOTE"
    else:
        # Lazy: only a push of no ref update reaches here.
        import shlex

        name = shlex.quote(remote)
    return ("note: git handed no ref update to check; git rejects a push that is not a "
            "fast-forward itself, before its hooks run: for refs/notes/kistore, `kistore "
            f"notes push {name}` merges the remote's notes and pushes")


def _notes_may_differ(ctx: StoreContext, remote: str | None) -> bool:
    """Whether :func:`_no_updates`'s note is to be said: the notes may be what git rejected.

    Only when this clone's notes differ from ``remote``'s, or that is not known (no
    ``--remote``: ``check --updates -`` by hand; or the remote could not be asked). A push
    with nothing to send hands the pre-push hook no line too, and the note was noise
    there (fresh99b LOW).
    """
    if remote is None:
        return True
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..attest.notes import notes_differ

    return notes_differ(ctx.store(), remote) is not False


def _say_if_empty(store: Store, range_: str) -> None:
    """Say on stderr that ``BASE..HEAD`` names one commit twice: nothing was checked.

    A contributor who pushed to their fork's main before running the guide's ``check
    origin/main..HEAD`` got a bare ``ok`` for a range of no commit (reviewer r86 F19).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..check.gate import parse_range

    base, head = parse_range(range_)
    commit = store.commit(head).id
    if store.commit(base).id == commit:
        click.echo(f"note: {base} and {head} are one commit ({str(commit)[:12]}): the range "
                   "holds no commit, so nothing was checked; a pull request's range is "
                   "BASE..BRANCH, BASE the branch it merges into (upstream/main when origin "
                   "is your fork)", err=True)


COMMANDS = [verify, check]
