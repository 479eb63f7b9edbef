"""Subcommand ``kistore cite``: a citation that never changes meaning (docs/design.md §7)."""

from __future__ import annotations

import datetime as dt
import shlex
from typing import TYPE_CHECKING

import click

from ..cite.formats import FORMATS
from ._answers import explaining_misses
from ._context import StoreContext, settled_work_tree
from ._machine import emit_json, writes

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..cite.citation import Citation
    from ..index.records import Record
    from ..query.ranking import Ranking
    from ..store import Store

pass_ctx = click.make_pass_decorator(StoreContext)


@writes(False)
@click.command()
@click.argument("ref")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text, bibtex (@misc), csl-json (a list of CSL items) or cff (CITATION.cff).")
@click.option("--accessed", type=click.DateTime(formats=["%Y-%m-%d"]), metavar="YYYY-MM-DD",
              help="Access date to record (default: today, UTC).")
@click.option("--at", "at", metavar="REV",
              help="Cite as of this commit (history is walked from it; default HEAD).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the citation's facts as one JSON object (not with --format).")
@pass_ctx
@settled_work_tree
def cite(ctx: StoreContext, ref: str, fmt: str, accessed: dt.datetime | None, at: str | None,
         as_json: bool) -> None:
    """Cite a stored object by the commit that first added it. REF: digest, 8+ hex, KIND/NAME.

    Prints the title, the full digest, the git blob id of the object file, the commit that
    first added it (found in history, so later commits and metadata edits never move it),
    a permalink to the object file at that commit, the published date (the date of the
    commit that brought it onto the first-parent line, UTC: that commit itself in a linear
    history, else the merge) and the access date; warns (stderr) when that commit is on no
    remote-tracking branch, as a commit never pushed has no permalink yet, when it is on
    no remote's main line (a pull request's branch: a squash or rebase merge gives the
    object another commit; cite it after it lands, `--at origin/main`; the main line is
    the branch origin/HEAD names, else the remote's only branch, else its
    init.defaultBranch, main or master; when none tells, a note says how to set it), when the
    access date is before the published date, and when the run is likely in another unit
    (marked as `kistore rank` marks it: KI234, KI230; check it before citing). The permalink
    template is [cite] permalink in kistore.toml, else derived from the origin remote
    (GitHub, GitLab, Gitea).

    \b
    Example:
      kistore cite BenchmarkRun/sol-submission-20464
      kistore cite 384a96d0 --format bibtex --accessed 2026-11-29
      kistore cite 384a96d0 --format cff > CITATION.cff
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..cite.citation import cite as build
    from ..cite.citation import render, settings_read_at
    from ..core.errors import StoreStateError

    if as_json and fmt != "text":
        raise click.UsageError("--json prints the citation's facts; do not combine it with "
                               "--format (use --format csl-json for CSL-JSON)")
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from .names import warn_shared_names

    store = ctx.read_store(at)
    with explaining_misses(store, [ref], at, names_at_commits=True):
        try:
            citation = build(store, ref, at=at, accessed=accessed.date() if accessed else None)
        except StoreStateError as e:
            raise settings_read_at(store, e, at) from e
    warn_shared_names(store, [citation], at)
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..cite.main_lines import remote_branches_holding

    held = remote_branches_holding(store, citation.commit)
    if not held:
        click.echo(f"warning: commit {citation.commit} is on no remote-tracking branch (`git "
                   "branch -r --contains` lists none): the permalink leads nowhere until it "
                   "is pushed; push it (then `git fetch`) before you publish this citation",
                   err=True)
    else:
        _warn_off_main(store, ref, citation.commit, held, at)
    if citation.date_problem is not None:
        which = (f"commit {citation.landed}, which brought the object onto the first-parent "
                 "line" if citation.landed else
                 f"commit {citation.commit}, which first added the object")
        click.echo(f"warning: {which}, has a committer date of {citation.date_problem} "
                   "(KI428): the published date is not the commit's own", err=True)
    if citation.blank_title is not None:
        _warn_blank_title(citation)
    published = citation.published.date()
    if citation.accessed is not None and citation.accessed < published:
        click.echo(f"warning: the access date {citation.accessed.isoformat()} (--accessed) is "
                   f"before the published date {published.isoformat()}: no one read it there "
                   "then; give the date you read it (the default is today, UTC)", err=True)
    ranked = _ranked(store, citation, at)  # once: its withdrawal and its marks both read it
    citation = _withdrawn(store, citation, at, ranked)
    _check_before_citing(store, citation, at, ranked)
    if as_json:
        emit_json(citation.to_json())
    else:
        click.echo(render(citation, fmt), nl=False)


def _warn_blank_title(citation: Citation) -> None:
    """Warn (stderr) that the citation names the object by its name: its title is blank.

    A ``metadata.title`` that prints as nothing (``''``, ``' '``, ``'\u2800'``: prose, so
    KI104 takes it) was cited as an empty title, ``Cite: X (2026). . ...`` (fresh16 F8 left,
    fresh17); :func:`kistore.cite.citation.cited_title` puts the name there instead.
    """
    # Lazy: the words of a blank string, with the Unicode tables, only for one.
    from ..core.errors import one_line
    from ..store.labels import blank_held

    title = citation.blank_title or ""
    said = blank_held(title) or f"{title!r} is empty"
    click.echo(one_line(
        f"warning: {citation.kind}/{citation.name}: its metadata.title {said}: the citation "
        f"names it by its name, {citation.name}, instead; to cite it by a title, write one in "
        "visible characters in the manifest's metadata and `kistore add --update-metadata "
        "FILE`"), err=True)


def _warn_off_main(store: Store, ref: str, commit: str, held: list[str], at: str | None
                   ) -> None:
    """Warn on stderr when the cited commit is on no remote's main line (fresh01 F2).

    A citation made on a pushed pull-request branch named the branch's commit with no
    word: after a squash or rebase merge the run is in another commit, and the branch's,
    deleted, is on no ref of the server (its permalink leads nowhere once the server
    collects it). The main lines are :func:`kistore.cite.main_lines.remote_main_lines`'s;
    when a remote holding the commit has none known here (no ``R/HEAD`` fetched, several
    branches, none named main: fresh02 G5), one note says so and how to set it, instead
    of a warning no ``--at`` could silence.

    Args:
        store: the store cited from.
        ref: the reference as typed (named in the advice).
        commit: the commit cited (40 hex).
        held: the remote-tracking branches holding it (not empty).
        at: ``--at`` as typed (a remote-tracking branch it names counts as its remote's
            main line when that is not known).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..cite.main_lines import off_main

    off = off_main(store, held, at)
    if off is None:
        return
    on = f"commit {commit} is on {', '.join(held)}"
    if off.advice is None:
        remotes = sorted(off.unknown)
        first = remotes[0]
        which = " or ".join(f"{r}'s" for r in remotes)
        fetched = "; ".join(f"{r} has {', '.join(off.unknown[r])}" for r in remotes)
        click.echo(f"note: {on}; which branch is {which} main line is not known here (no "
                   f"`refs/remotes/{first}/HEAD`: `git clone` sets it, `git remote add` and "
                   f"`git fetch` do not; {fetched}, none named main or master), so whether "
                   "a squash or rebase merge will land the object in another commit cannot "
                   f"be told; set it with `git remote set-head {first} --auto` (asks the "
                   f"server) or `git remote set-head {first} BRANCH`, or cite with `--at "
                   f"{first}/BRANCH`, the main line", err=True)
        return
    click.echo(f"warning: {on} only, not on a remote's main line ({', '.join(off.mains)}): "
               "a squash or rebase merge lands the object in another commit, and this one "
               "may leave the server, so the permalink may move or lead nowhere; cite it "
               "after it lands: `git fetch`, then `kistore cite "
               f"{shlex.quote(ref)} --at {off.advice}`", err=True)


def _ranked(store: Store, citation: Citation, at: str | None) -> tuple[Record, Ranking] | None:
    """Rank a cited run's comparison group once, as of the revision cited from.

    What ``show`` answers of a run, asked once (until 2026-12-05 ``cite`` read the run's
    attestations for its withdrawal and again for its group's ranking, and the manifest
    again for its caveats): ``--at``, default ``HEAD`` (the history cited ends there).

    Returns:
        :func:`kistore.query.answers.rank`'s ``(record, ranking)``; None for another kind
        or a run that cannot be ranked there (in no group, a group whose units disagree).
    """
    if citation.kind != "BenchmarkRun":
        return None
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import KistoreError
    from ..query.answers import rank

    try:
        return rank(store, str(citation.digest), at=at or "HEAD")
    except KistoreError:  # not ranked: no group to judge it in
        return None


def _withdrawn(store: Store, citation: Citation, at: str | None,
               ranked: tuple[Record, Ranking] | None) -> Citation:
    """Mark a withdrawn run's citation so, warning on stderr (reviewer r86 F24, r87).

    ``rank``, ``show`` and ``compare`` said so and ``cite`` gave a clean citation: every
    format now says it (:attr:`Citation.withdrawn`), and stderr warns. The permalink and
    commit are unchanged: a later withdrawal does not move them. The run's evidence is
    its row's in ``ranked`` (:func:`_ranked`), read no second time; a run not ranked there
    has its attestations read as of the revision cited from.
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..attest.levels import withdrawal_words
    from ..cite.citation import marked_withdrawn
    from ..core.errors import KistoreError, one_line

    evidence = None
    if ranked is not None:
        ranking, digest = ranked[1], str(citation.digest)
        evidence = next((row.evidence for rows in (ranking.ranked, ranking.unranked,
                                                   ranking.references, ranking.excluded)
                         for row in rows if row.record.digest == digest), None)
    try:
        citation = marked_withdrawn(store, citation, at or "HEAD", evidence=evidence)
    except KistoreError as e:  # a history libgit2 cannot read: the citation stands (git log)
        click.echo(one_line(f"warning: whether {citation.kind}/{citation.name} is withdrawn "
                            f"could not be told: {e.message}"), err=True)
        return citation
    if citation.withdrawn is not None:
        said = withdrawal_words(*citation.withdrawn)
        click.echo(one_line(f"warning: {citation.kind}/{citation.name} is {said}: the "
                            "citation says it is withdrawn; cite it as a withdrawn result"),
                   err=True)
    return citation


def _check_before_citing(store: Store, citation: Citation, at: str | None,
                         ranked: tuple[Record, Ranking] | None) -> None:
    """Warn on stderr of a run's likely unit slip before its citation (reviewer r90b F3).

    The marks ``rank``, ``show`` and the site's run page carry (KI234: the group's #1 100x
    or more ahead of its #2; KI230: a latency under 100 ns), in their words
    (:func:`kistore.query.outliers.citing_caveats`); the citation itself is unchanged. The
    group is ranked as of the cited revision (``--at``, default ``HEAD``: ``ranked``,
    :func:`_ranked`, whose record's spec is read, not the object again); a run that cannot
    be ranked there (in no group, a group whose units disagree) gets only KI230's caveat.
    """
    if citation.kind != "BenchmarkRun":
        return
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import one_line
    from ..query.outliers import citing_caveats, ranking_outliers

    if ranked is not None:
        outlier, spec = ranking_outliers(ranked[1]).get(str(citation.digest)), ranked[0].spec
    else:
        outlier, spec = None, store.read(citation.digest, at=at or "HEAD", schema=False).spec
    for said in citing_caveats(outlier, citation.name, spec):
        click.echo(one_line(f"warning: {citation.kind}/{citation.name}: (!) {said}"), err=True)


COMMANDS = [cite]
