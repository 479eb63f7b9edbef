"""The "Cite this record" block of a run page (docs/design.md §7), for every run at once.

A citation names the commit that *first added* the run's object file; the site finds it for
every run in one history walk (:func:`kistore.cite.citation.first_commits`), and the commit
that brought it onto the built commit's first-parent line, whose date the citation
publishes, in one first-parent walk (:func:`kistore.git.landing.landing_commits`), and
builds each block with :func:`kistore.cite.citation.citation_of`. A page is written before
anyone reads it, so its citation has no access date: the page states "the date you read
this" (filled in by the browser when it runs the optional script) and the BibTeX, CSL-JSON
and CFF texts leave the field out.

The permalink template is fixed for a build (:func:`permalink_template`) and recorded in
``build.json``, so ``kistore site verify`` rebuilds with the same one.

In a shallow clone (a CI checkout of depth 1), a run whose object file a commit on the
clone's edge holds has no known first-adding commit: an older one, cut off, may have added
it (review r78 F7: every page named the edge commit), even when the walk finds a later
re-add inside the history the clone has (r79 F4). Its block gives no permalink and no first
commit, and says why (:func:`kistore.cite.citation.shallow_doubt`, ``kistore cite``'s rule);
:meth:`Citations.shallow_warning` is the build's one warning.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..cite.citation import (
    FORGE_TEMPLATES,
    citation_of,
    first_commits,
    origin_url,
    parse_remote,
    read_cite_settings,
    shallow_cut,
    shallow_doubt,
)
from ..cite.formats import render
from ..cite.main_lines import unpushed
from ..core import layout
from ..core.digest import Digest
from ..core.errors import InputError, StoreStateError
from ..core.settings import template_fields
from ..core.times import commit_text, out_of_range
from ..git.blobs import lookup
from ..git.landing import landing_commits

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store


def permalink_template(store: Store, rev: str, given: str | None) -> str | None:
    """Return the permalink template a build uses, with ``{base}`` already filled in.

    In order: ``given`` (``kistore site build --permalink``), ``[cite] permalink`` of
    ``kistore.toml`` at ``rev``, the template of the ``origin`` remote's forge (GitHub,
    GitLab, Gitea) with its URL; None when there is none (each cite block then says so).

    Raises:
        InputError: ``given`` is not a template ``kistore cite`` takes (KI108's message:
            :func:`kistore.core.settings.template_fields`, which refuses a link that is not
            ``https:``/``http:``, review r78 F5); ``kistore.toml`` at ``rev`` is not valid
            (as :func:`kistore.cite.citation.read_cite_settings`).
    """
    if given:
        template_fields(given, file="--permalink")
        return given
    settings = read_cite_settings(store, rev)
    if "permalink" in settings:  # refused as `cite` and the gate (KI108) refuse it
        template_fields(settings["permalink"])
        return settings["permalink"]
    remote = parse_remote(origin_url(store) or "")
    if remote is None or remote.forge is None:
        return None
    base = remote.base.replace("{", "{{").replace("}", "}}")
    return FORGE_TEMPLATES[remote.forge].replace("{base}", base)


@dataclass
class Citations:
    """Builds the cite blocks of one build.

    Attributes:
        template: the permalink template (:func:`permalink_template`), or None.
        publisher: ``[cite] publisher`` at the built commit.
        first_added: run digest -> id of the commit that first added its object file (only
            the commits known to be the first: none on a shallow clone's edge).
        cut: run digest -> why its first-adding commit is not known (a commit on a shallow
            clone's edge holds its object file: :func:`kistore.cite.citation.shallow_doubt`).
        landed: run digest -> id of the commit that brought its object file onto the built
            commit's first-parent line (its date is published), for the runs of
            :attr:`first_added`.
    """

    template: str | None
    publisher: str
    first_added: dict[str, str]
    cut: dict[str, str]
    landed: dict[str, str]

    @classmethod
    def of(cls, store: Store, commit: Any, template: str | None, blobs: dict[str, str],
           runs: list[str], known: dict[str, str] | None = None,
           known_head: str | None = None) -> Citations:
        """Find the first-adding and the landing commit of every run; read the publisher.

        Args:
            store: the store.
            commit: the pygit2 Commit built from (history is walked from it).
            template: the permalink template (:func:`permalink_template`).
            blobs: digest -> git blob id of every object file at ``commit``.
            runs: the digests of the runs to cite.
            known: first-adding commits found by an earlier build at ``known_head``, an
                ancestor of ``commit``: an object keeps its first-adding commit while
                history only grows, and an object new since then was first added by a
                commit since then (objects are never deleted), so only those commits are
                walked. A fresh build (``kistore site verify``) walks all of history and
                would show any difference.
            known_head: the commit ``known`` was found from. (Landing commits are found
                again each build: one first-parent walk.)
        """
        known = known or {}
        found = {d: known[d] for d in runs if d in known}
        wanted = {layout.object_path(Digest.from_str(d)): d for d in runs
                  if d not in found and d in blobs}
        if wanted:
            hide = known_head if known and known_head else None
            commits = first_commits(store.repo, {p: blobs[d] for p, d in wanted.items()},
                                    commit, hide=hide)
            found.update({wanted[p]: str(c.id) for p, c in commits.items()})
        edge = shallow_cut(store.repo, commit)
        cut = {d: why for d in found if edge and d in blobs and (why := shallow_doubt(
            store.repo, edge, layout.object_path(Digest.from_str(d)), blobs[d])) is not None}
        settings = read_cite_settings(store, str(commit.id))
        first_added = {d: c for d, c in found.items() if d not in cut}
        paths = {layout.object_path(Digest.from_str(d)): d for d in first_added if d in blobs}
        landed = landing_commits(store.repo, {p: blobs[d] for p, d in paths.items()}, commit)
        return cls(template, settings["publisher"], first_added, cut,
                   {paths[p]: str(c.id) for p, c in landed.items()})

    def shallow_warning(self) -> str | None:
        """Return the build's one warning about runs cut off by a shallow clone, or None.

        Returns:
            How many run pages give no permalink or first-adding commit, why, and the fix
            (``git fetch --unshallow``; CI: a full checkout), as ``site build`` prints it;
            None when every run's first-adding commit is known.
        """
        if not self.cut:
            return None
        total = len(self.cut) + len(self.first_added)
        return (f"this is a shallow clone: {len(self.cut)} of {total} run pages give no "
                "permalink and no first-adding commit (its history stops at a commit that "
                "holds their objects, and an older one may have added them); run `git fetch "
                "--unshallow` (CI: check out the whole history, e.g. actions/checkout with "
                "fetch-depth: 0) and build again")

    def push_warnings(self, store: Store, at: str | None) -> list[str]:
        """Return the build's warnings of permalinks to commits no remote's main line holds.

        ``kistore cite`` warns of one such citation (fresh05 LOW 9: the site said nothing
        of them): a commit on no remote-tracking branch (its permalink leads nowhere until
        pushed), or only on branches that are no remote's main line (a pull request's: a
        squash or rebase merge lands the object in another commit). One warning each, with
        how many run pages and the fix; none without a permalink template (no page links).

        Args:
            store: the store built from.
            at: ``site build --at`` as typed (:func:`kistore.cite.main_lines.unpushed`).

        Returns:
            Up to two warnings, as ``site build`` prints them.
        """
        if self.template is None or not self.first_added:
            return []
        judged = unpushed(store, set(self.first_added.values()), at)
        main = judged.mains[0] if judged.mains else "REMOTE/MAIN"
        warnings = []
        for commits, said in ((judged.nowhere, "on no remote-tracking branch (`git branch -r "
                               "--contains` lists none): {links} nowhere until pushed; push "
                               "the branch (then `git fetch`) and build again before you "
                               "publish the site"),
                              (judged.off_main, "only on branches that are no remote's main "
                               f"line ({', '.join(judged.mains) or 'none known'}): a squash "
                               "or rebase merge lands the objects in other commits, and these "
                               "may leave the server, so {links} may move or lead nowhere; "
                               "build the site after they land: `git fetch`, then `kistore "
                               f"site build OUT --at {main}`")):
            if not commits:
                continue
            pages = sum(1 for c in self.first_added.values() if c in commits)
            shown = ", ".join(c[:12] for c in sorted(commits)[:3])
            more = f" and {len(commits) - 3} more" if len(commits) > 3 else ""
            cited = "a commit" if len(commits) == 1 else f"{len(commits)} commits"
            links = "its permalink leads" if pages == 1 else "their permalinks lead"
            if commits is judged.off_main:
                links = "its permalink" if pages == 1 else "their permalinks"
            warnings.append(f"{pages} of {len(self.first_added)} run pages "
                            f"{'cites' if pages == 1 else 'cite'} {cited} ({shown}{more}) "
                            + said.replace("{links}", links))
        return warnings

    def date_warnings(self, repo: pygit2.Repository) -> list[str]:
        """Return one warning per published commit dated outside years 1970-9999 (KI428).

        The published commit of a run is its landing commit (:attr:`landed`; the
        first-adding commit in a linear history). Such a date (git takes any) is read
        clamped (:func:`kistore.core.times.commit_datetime`): the run pages it dates say
        ``published`` 9999-12-31 (or 1970-01-01), not the date the commit claims. One
        commit lookup per distinct commit.

        Args:
            repo: the repository the commits are in.

        Returns:
            ``commit ID, which first added N run(s), has a committer date of ...`` (``which
            brought N run(s) onto the first-parent line`` when it is not their first-adding
            commit), in commit id order; empty when every date is representable.
        """
        counts = Counter((self.landed.get(d, c), self.landed.get(d, c) == c)
                         for d, c in self.first_added.items())
        warnings = []
        for (commit_id, added), count in sorted(counts.items()):
            commit: Any = repo[commit_id]
            problem = out_of_range(commit.commit_time)
            if problem is not None:
                did = "first added" if added else "brought onto the first-parent line"
                warnings.append(f"commit {commit_id}, which {did} {count} run(s), has a "
                                f"committer date of {problem} on their pages' citations "
                                "(KI428)")
        return warnings

    def block(self, snap: Any, manifest: Any, withdrawn: tuple[str, str] | None = None
              ) -> dict[str, Any]:
        """Return the cite block's data for a run (its JSON twin's ``citation``).

        Args:
            snap: the snapshot the page is built from.
            manifest: the run.
            withdrawn: ``(KEYID, REASON)`` of the maintainer withdrawal that applies to the
                run (:func:`kistore.attest.levels.withdrawal`), or None: every format then
                says it is withdrawn (:attr:`kistore.cite.citation.Citation.withdrawn`).

        Returns:
            With a permalink: ``available`` true, the citation's facts
            (:meth:`kistore.cite.citation.Citation.to_json`, ``accessed`` null), and
            ``formats``: ``text``, ``bibtex``, ``csl-json`` and ``cff`` texts. Without one:
            ``available`` false, ``reason``, and the digest, path, blob and commit a
            reader can cite by hand. ``shallow`` is true for a run in :attr:`cut` (its
            ``commit`` null: not known).

        Raises:
            ObjectUnreadable: the first-adding commit is damaged or gone (its object file's
                path named).
        """
        digest = str(manifest.digest)
        commit_id = self.first_added.get(digest)
        facts: dict[str, Any] = {"digest": digest, "commit": commit_id,
                                 "shallow": digest in self.cut}
        if digest in self.cut:
            return {**facts, "available": False,
                    "reason": f"{self.cut[digest]} and build the site again"}
        if commit_id is None:
            return {**facts, "available": False, "reason": "the run is in no commit"}
        path = layout.object_path(manifest.digest)
        first: Any = lookup(snap.store.repo, commit_id, path)  # a commit first_commits found
        landed_id = self.landed.get(digest, commit_id)
        landing: Any = lookup(snap.store.repo, landed_id, path) if landed_id != commit_id \
            else first
        try:
            citation = citation_of(snap.view, manifest, first, template=self.template,
                                   remote=None, publisher=self.publisher, accessed=None,
                                   landing=landing)._replace(withdrawn=withdrawn)
        except (StoreStateError, InputError) as e:
            return {**facts, "available": False, "reason": e.message, "path": path,
                    "published": commit_text(landing.commit_time)}
        return {**facts, **citation.to_json(), "available": True,
                "formats": {fmt: render(citation, fmt)
                            for fmt in ("text", "bibtex", "csl-json", "cff")}}
