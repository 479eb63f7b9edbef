"""Subcommand ``kistore site``: build, verify and preview the static site (docs/site.md)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from . import INSIDE_WORK_TREE
from ._adding import Landing, interrupt_says
from ._attestations_here import (
    NOTES_AT_HELP,
    WITHOUT_ATTESTATIONS,
    require_attestations,
    require_notes_whole,
)
from ._context import StoreContext
from ._machine import emit_json, writes

pass_ctx = click.make_pass_decorator(StoreContext)


@contextlib.contextmanager
def _pages_bar() -> Iterator[Callable[[int, int], None]]:
    """Yield a progress callback drawing a bar on stderr once the page count is known."""
    bars: list[Any] = []

    def step(done: int, total: int) -> None:
        if not bars:
            bars.append(click.progressbar(length=total, label="pages", file=sys.stderr,
                                          show_pos=True, hidden=not sys.stderr.isatty()))
            bars[0].__enter__()
        bars[0].update(done)

    try:
        yield step
    finally:
        if bars:
            bars[0].__exit__(None, None, None)


@click.group()
def site() -> None:
    """Build, verify and preview the static site of a commit (HTML + JSON).

    \b
    Example:
      kistore site build ../public
      kistore site verify ../public
      kistore site serve ../public
    """


@writes(True)
@site.command()
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--at", "at", metavar="REV", default="HEAD", show_default=True,
              help="Build the site of this commit.")
@click.option("--notes-at", "notes_at", metavar="REV",
              help=f"Show {NOTES_AT_HELP}, as a page's footer names it.")
@click.option("--permalink", metavar="TEMPLATE",
              help="Permalink template for citations, e.g. "
                   "'https://github.com/OWNER/REPO/blob/{commit}/{path}' (default: [cite] "
                   "permalink of kistore.toml, else the origin remote's).")
@click.option("--comparison", type=click.Choice(["measured", "source-native"]),
              help="Rank every group this way instead of by the ranking policy.")
@click.option("--full", is_flag=True,
              help="Ignore the build cache: gather and render every page again.")
@WITHOUT_ATTESTATIONS
@INSIDE_WORK_TREE
@click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")
@pass_ctx
def build(ctx: StoreContext, out: Path, at: str, notes_at: str | None,
          permalink: str | None, comparison: str | None, full: bool,
          without_attestations: bool, inside_work_tree: bool, as_json: bool) -> None:
    """Write the static site of a commit under OUT: HTML pages and their JSON twins.

    A run page per run, a leaderboard per comparison group, a page per workload, per
    source and per run name, a compare page per run (against #1 of its group), and an
    index; each with index.json beside index.html. Every page states its commit and is
    byte-identical when built again; a rebuild writes only pages whose bytes changed.
    Every page states its store commit and its notes commit: `--at X --notes-at N` writes
    it again, byte for byte. Layout: docs/site.md. A clone without refs/notes/kistore (git
    clone does not fetch it: no withdrawal or verification is here) whose commit trusts a
    key is refused unless --without-attestations or --notes-at (notes named: nothing is
    asked of the remote). OUT inside the store's git work tree is refused
    unless git ignores it (or --inside-work-tree): `git add -A` would commit the site's
    thousands of files beside the store.

    \b
    Example:
      kistore site build ../public
      kistore site build ../public --at v2026.07 --permalink \\
          'https://github.com/OWNER/REPO/blob/{commit}/{path}'
      kistore site build ../page --at 357c36351a2b --notes-at 5d1e0c9a8f47
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..site.build import build_site

    store = ctx.read_store(at or "HEAD")
    if notes_at is None:  # named notes are a rebuild's: whether newer ones exist is moot
        require_attestations(store, without_attestations, "build the site", at or "HEAD")
        # lines the notes tip lacks (fresh05 MED 3): refused, as stale notes are (M3)
        require_notes_whole(store, without_attestations, "build the site", at or "HEAD")
    # Ctrl-C and SIGTERM are held over the install (kistore.site.install): before it the
    # site is as it was (exit 130); from it on they are only noted, and said (exit 0).
    landing = Landing()
    with interrupt_says(f"before the new site was installed: {out} is as it was (nothing of "
                        "this build is in it); build again to update it"), \
            _pages_bar() as step:
        report = build_site(store, out, at=at, permalink=permalink, comparison=comparison,
                            full=full, progress=step, inside_work_tree=inside_work_tree,
                            on_installed=lambda done: landing.landed(done.commit),
                            notes_at=notes_at)
    if report.skipped:
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..index.catalog import committed_fix, limit_key

        for digest, (path, problem) in sorted(report.skipped.items()):
            # past a [limits] setting: which one raises it (KI106, KI107)
            fix = f"; {committed_fix(path, problem)}" if limit_key(problem) else ""
            click.echo(f"warning: {path}: {problem}; left out of the site ({digest}){fix}",
                       err=True)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    if landing.late:
        click.echo(f"interrupted after the new site was installed: {out} is the whole site "
                   f"of commit {report.commit}; nothing was undone", err=True)
    if as_json:
        emit_json(report.to_json())
        return
    click.echo(f"built {report.pages} pages of commit {report.commit} in {out}: "
               f"{report.rendered} rendered, {len(report.written)} files written, "
               f"{len(report.removed)} removed")
    # Lazy: for this hint only (msg94 F6: a path with a space was printed unquoted).
    import shlex

    click.echo(f"open {(out / 'index.html').resolve().as_uri()} or run `kistore site serve "
               f"{shlex.quote(str(out))}`")


@writes(False)
@site.command()
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--at", "at", metavar="REV",
              help="Compare with a build of this commit (default: the commit the site names).")
@click.option("--notes-at", "notes_at", metavar="REV",
              help="Compare with a build showing this notes commit's attestations (default: "
                   "the notes commit the site names; `none`: no notes).")
@click.option("--json", "as_json", is_flag=True, help="Print the differences as JSON.")
@pass_ctx
def verify(ctx: StoreContext, out: Path, at: str | None, notes_at: str | None,
           as_json: bool) -> None:
    """Check that every page under OUT equals a fresh build; exit 1 listing differences.

    The site is built again in memory, from the commit, notes commit and parameters its
    build.json names (or --at, --notes-at), and every file is compared byte for byte: a
    page that differs, is missing, or should not be there is listed, one a line.

    \b
    Example:
      kistore site verify public
      kistore site verify public --at HEAD --notes-at refs/notes/kistore  # up to date?
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..site.build import verify_site

    store = ctx.store()
    with _pages_bar() as step:
        build, differences = verify_site(store, out, at=at, progress=step, notes_at=notes_at)
    commit = at or build["commit"]
    noted = build.get("notes")
    notes = notes_at or (noted if isinstance(noted, str) else "none")
    of = f"commit {commit} " + ("with no notes" if notes == "none" else f"with notes {notes}")

    def short_id(rev: str) -> str:  # a commit id as `--at` shows it; a name as given
        return rev[:12] if len(rev) == 40 and all(c in "0123456789abcdef" for c in rev) \
            else rev
    if as_json:
        emit_json({"out": str(out), "commit": commit, "notes": notes, "ok": not differences,
                   "differences": [d.to_json() for d in differences]})
    else:
        said = {"differs": "writes other bytes", "missing": "has it",
                "unexpected": "has no such file",
                "symbolic link": "has a folder or file here, never a link; `site build` "
                                 "refuses to write through it",
                "leftover": "has none: a stopped build's staging directory; the next `site "
                            "build` removes it"}
        for d in differences:
            click.echo(f"{out / d.path}: {d.problem} (a fresh build of {commit[:12]} "
                       f"{said.get(d.problem, '')})", err=True)
        if not differences:
            click.echo(f"{out}: every page equals a fresh build of {of}")
        else:
            extra = any(d.problem == "unexpected" for d in differences)
            click.echo(f"{out}: {len(differences)} file(s) differ from a fresh build of {of}; "
                       + ("remove the files it has no such file of, then " if extra else "")
                       + f"rebuild with `kistore site build {out} --at {commit[:12]} "
                       f"--notes-at {short_id(notes)} --full` "
                       "(--full: a page edited by hand keeps its cache key, so an incremental "
                       "build would leave it)", err=True)
    if differences:
        sys.exit(1)


@writes(False)
@site.command()
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port on 127.0.0.1 (0: any free port).")
def serve(out: Path, port: int) -> None:
    """Preview the site under OUT on http://127.0.0.1:PORT/ (loopback only; Ctrl-C stops).

    \b
    Example:
      kistore site serve public --port 8000
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..site.serve import serve as run

    run(out, port, ready=lambda url: click.echo(f"serving {out} at {url} (Ctrl-C stops)",
                                                err=True))


COMMANDS = [site]
