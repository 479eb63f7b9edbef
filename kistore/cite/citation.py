"""Citations that never change meaning: the commit that first added an object (docs/design.md §7).

Owns: finding the commit that *first* added an object's file by walking git history (not
HEAD, so later commits, merges and metadata corrections never move it), the permalink to
the object file at that commit (from ``kistore.toml`` ``[cite] permalink`` or derived from
the ``origin`` remote for GitHub, GitLab and Gitea), and writing the citation as plain
text, BibTeX, CSL-JSON and a complete ``CITATION.cff`` (CFF 1.2.0).

Leaves to others: resolving what a person typed (:meth:`kistore.store.Store.resolve`),
re-hashing object bytes on read (:class:`kistore.store.View`), and printing
(:mod:`kistore.cli.cite`). pygit2 is imported inside the functions that walk history, so
importing this module stays cheap.

Which commit first added an object is :mod:`kistore.git.first_added`'s rule (the earliest
introducer by committer time, then id; the pull-request gate holds the same rule, so it
lives below both): :func:`first_commit`, :func:`first_commits`, :func:`object_first_commits`
and :func:`shallow_boundary`, with its one shallow-clone rule :func:`shallow_doubt` (of
:func:`shallow_cut`), are its, named here too. Cost of :func:`first_commit`: one
walk of the commits reachable from the start commit and a sort by time, then one tree
lookup of the object's path per commit until the first that introduces the object's blob.

The published date is not that commit's: it is the date of the commit that brought the
object onto the start commit's first-parent line (:mod:`kistore.git.landing`, reviews r81
F1, r82 F4: a contributor dates their own commit, the forge dates the merge);
:attr:`Citation.landed` names that commit when it is another.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol
from urllib.parse import quote, urlsplit

from ..core import hashes, layout
from ..core.digest import Digest
from ..core.errors import InputError, ResolutionError, StoreStateError
from ..core.settings import cite_table, refuse_non_web_link, template_fields
from ..core.times import commit_datetime, out_of_range
from ..git import refs
from ..git.child import git_environment
from ..git.first_added import (
    beyond_shallow_edge,
    first_commit,
    first_commits,
    object_first_commits,
    shallow_boundary,
    shallow_cut,
    shallow_doubt,
)
from ..git.ids import blob_id
from ..git.landing import landing_by_git, landing_commit
from ..git.present import holds
from ..index.kept import keep_value, kept_value
from . import _origin
from .formats import FORMATS, names, render

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..attest.evidence import Evidence
    from ..core.model import Manifest
    from ..store import Store, View

KEY_PREFIX = "kernelindex"
"""BibTeX key and CSL id prefix: ``kernelindex:`` + the digest's first 12 hex digits."""

FORGE_TEMPLATES = {
    "github": "{base}/blob/{commit}/{path}",
    "gitlab": "{base}/-/blob/{commit}/{path}",
    "gitea": "{base}/src/commit/{commit}/{path}",
}
"""Permalink templates per forge; ``{base}`` is the repository's https URL."""

_FORGE_LABELS = {"github": "github", "gitlab": "gitlab", "gitea": "gitea", "forgejo": "gitea",
                 "codeberg": "gitea"}
"""Host name labels that identify a forge (github.com, gitlab.example.org, codeberg.org)."""

_SCP_LIKE = re.compile(r"^(?:[^@/:]+@)?(?P<host>[^@/:]+):(?P<path>[^/].*)$")
"""``git@host:owner/repo.git``: git's scp-like ssh syntax (no scheme, a colon, no slash
before it)."""

__all__ = ["FORMATS", "Citation", "Remote", "beyond_shallow_edge", "cite", "citation_of",
           "first_commit", "first_commits", "marked_withdrawn", "object_first_commits",
           "origin_url", "parse_remote", "permalink", "read_cite_settings",
           "render", "shallow_boundary", "shallow_cut", "shallow_doubt", "short_citation"]

_EXAMPLE_TEMPLATE = 'permalink = "https://HOST/OWNER/REPO/blob/{commit}/{path}"'


class Remote(NamedTuple):
    """A git remote URL understood as a web repository.

    A named tuple, not a frozen dataclass: making one costs ~2 ms of start-up (its methods
    are compiled), on every run page and ``rank`` (docs/speed.md).

    Attributes:
        url: the remote URL as configured.
        host: the host name, lowercase, without user or port.
        base: the repository's web URL, ``https://HOST/OWNER/REPO`` (``http`` only when the
            remote itself is plain http), without ``.git``.
        forge: ``github``, ``gitlab``, ``gitea`` or None when the host is not recognised.
    """

    url: str
    host: str
    base: str
    forge: str | None


class Citation(NamedTuple):
    """Everything a citation of one stored object says.

    A named tuple, not a frozen dataclass: making one costs ~2 ms of start-up (its methods
    are compiled), on every run page and ``rank`` (docs/speed.md).

    Attributes:
        digest: the object's digest.
        kind: the manifest kind.
        name: ``metadata.name``.
        title: ``metadata.title`` (or the name) as of the revision cited from.
        path: repository path of the object file, ``store/objects/sha256/XX/REST.json``.
        blob: git blob id (40 hex) of the object file: ``git hash-object`` of its bytes.
        commit: id (40 hex) of the commit that first added the object file.
        published: the committer time, in UTC, of the commit that brought the object file
            onto the cited commit's first-parent line (:mod:`kistore.git.landing`): the
            first-adding commit's own in a linear history, else the merge (squash, rebase)
            commit that landed it (reviews r81 F1, r82 F4: the contributor dates the
            first-adding commit).
        accessed: the access date (a calendar date, no time), or None when the citation
            is written before anyone reads it (a static page): each reader adds the date
            they read it, and every format leaves the field out.
        permalink: URL of the object file at ``commit``; never changes meaning.
        authors: author names, each a literal (an organisation or a person as written).
        publisher: the index that publishes the object (``[cite] publisher``).
        date_problem: None, or why ``published`` is not the commit's own date: git took a
            committer date outside years 1970-9999, read clamped
            (:func:`kistore.core.times.out_of_range`; ``kistore check`` refuses such
            commits, KI428); the CLI prints it as a warning.
        landed: None when the first-adding commit is on the first-parent line (its date is
            ``published``); else the id (40 hex) of the commit that brought the object
            onto it, whose date ``published`` is.
        withdrawn: None, or ``(KEYID, REASON)`` of the valid maintainer withdrawal that
            applies to the cited run (:func:`marked_withdrawn`; REASON as signed, ``""``
            when it says none): every format says so (reviewer r87: the citation of a
            withdrawn run read as a sound result once pasted).
        blank_title: None, or the ``metadata.title`` as stored when it prints as nothing
            (:func:`cited_title`: ``''``, ``' '``, ``'\u2800'``), which ``title`` replaces
            by the name; ``kistore cite`` warns of it.
    """

    digest: Digest
    kind: str
    name: str
    title: str
    path: str
    blob: str
    commit: str
    published: dt.datetime
    accessed: dt.date | None
    permalink: str
    authors: tuple[str, ...]
    publisher: str
    date_problem: str | None = None
    landed: str | None = None
    withdrawn: tuple[str, str] | None = None
    blank_title: str | None = None

    @property
    def key(self) -> str:
        """Stable BibTeX key and CSL id: ``kernelindex:`` + the digest's first 12 hex digits."""
        return f"{KEY_PREFIX}:{self.digest.short}"

    def to_json(self) -> dict[str, Any]:
        """Return the citation as a JSON object (dates as ``YYYY-MM-DD``, times RFC 3339 UTC).

        ``landed`` (the commit whose date ``published`` is) only when it is not ``commit``;
        ``withdrawn`` (``{"keyid": ..., "reason": ...}``) only for a withdrawn run.
        """
        facts: dict[str, Any] = {
            "key": self.key,
            "digest": str(self.digest),
            "kind": self.kind,
            "name": self.name,
            "title": self.title,
            "path": self.path,
            "blob": self.blob,
            "commit": self.commit,
            "permalink": self.permalink,
            "published": self.published.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "accessed": self.accessed.isoformat() if self.accessed else None,
            "authors": list(self.authors),
            "publisher": self.publisher,
        }
        if self.landed is not None:
            facts["landed"] = self.landed
        if self.withdrawn is not None:
            facts["withdrawn"] = {"keyid": self.withdrawn[0], "reason": self.withdrawn[1]}
        return facts


# -- building a citation --------------------------------------------------------------


def cite(store: Store, ref: str | Digest, *, at: str | None = None,
         accessed: dt.date | None = None, schema: bool = True) -> Citation:
    """Build the citation of one stored object.

    Args:
        store: the store.
        ref: a digest, a unique prefix of at least 8 hex digits, or ``KIND/NAME``.
        at: revision to cite from (the history walked ends there; title and settings are
            read there), or None for HEAD (title and settings from the work tree).
        accessed: the access date; today (UTC) when None.
        schema: check the object (and a run's implementation) against its schema; False
            for digests the derived index holds records of (:meth:`kistore.store.View.
            manifest`).

    Returns:
        The :class:`Citation`.

    Raises:
        ResolutionError: ``ref`` matches nothing or several objects; or the object is in the
            work tree but in no commit reachable from the start (not committed yet).
        InputError: ``ref`` has none of the reference forms; ``at`` names no commit; a
            ``[cite]`` setting is malformed.
        StoreStateError: the repository has no commit yet; or no permalink can be built
            (no ``[cite] permalink`` and no ``origin`` remote on a known forge).
        VerificationError: the object's bytes do not hash to its digest.
    """
    digest = ref if isinstance(ref, Digest) else store.resolve(ref, at=at)
    view = store.view(at)
    manifest = view.manifest(digest, schema=schema)
    path, blob = layout.object_path(digest), blob_id(manifest.object_bytes).hex()
    found: tuple[FirstCommit, FirstCommit | None] | None = None
    if at is None and store.root is not None:  # HEAD of a work tree: no libgit2 if it can
        found = _first_commit_kept_or_by_git(store.root, store.git_dir, path, blob)
    if found is None:
        start = _start_commit(store, at)
        found = (first_commit(store.repo, path, blob, start),
                 landing_commit(store.repo, path, blob, start))
    first, landing = found
    settings = read_cite_settings(store, at)
    template = settings.get("permalink")
    url = None
    if template is None or "{base}" in template:  # else the remote is not in the link
        url = _origin_url_by_git(store) if first_is_git(first) else origin_url(store)
    return citation_of(view, manifest, first, landing=landing, template=template,
                       remote=parse_remote(url or ""),
                       publisher=settings["publisher"],
                       accessed=accessed or dt.datetime.now(dt.UTC).date(), schema=schema)


def settings_read_at(store: Store, error: StoreStateError, at: str | None) -> StoreStateError:
    """Return ``error`` of :func:`cite` saying which commit's ``kistore.toml`` was read.

    ``cite --at OLD`` reads OLD's settings: a ``[cite] permalink`` just added to the work
    tree's does not count there, and the refusal said only that none was set (fresh00 LOW).
    ``show``'s Cite line keeps the plain words (its answer at a commit equals a checkout's).

    Args:
        store: the store cited from.
        error: what :func:`cite` raised.
        at: the ``--at`` revision, or None.

    Returns:
        ``error`` itself unless it is about :data:`kistore.core.layout.SETTINGS_FILE` and
        ``at`` is given; then a :class:`StoreStateError` naming the commit read. Raises
        what :meth:`Store.commit` raises for ``at`` (nothing: :func:`cite` read it already).
    """
    if at is None or error.file != layout.SETTINGS_FILE:
        return error
    return StoreStateError(
        f"{error.message}. With --at {at} the kistore.toml read is commit "
        f"{str(store.commit(at).id)[:12]}'s, not the work tree's: a [cite] permalink "
        "set since counts only without --at; with it, an `origin` remote on a web host "
        "gives the link", file=f"{layout.SETTINGS_FILE} at {at}")


def marked_withdrawn(store: Store, citation: Citation, at: str | None = None, *,
                     evidence: Evidence | None = None) -> Citation:
    """Return ``citation`` with :attr:`Citation.withdrawn` set when the run is withdrawn.

    A run is withdrawn when a valid maintainer withdrawal applies to it
    (:func:`kistore.attest.evidence.evidence_for`: the notes as they are now, attestation
    files and trust of the view ``at``); other kinds are never withdrawn. Not part of
    :func:`cite`: the run page's line (:func:`short_citation`) says it elsewhere and reads
    no attestation for it.

    Args:
        store: the store.
        citation: the citation (:func:`cite`).
        at: revision, or None for the work tree (as :func:`cite`).
        evidence: the run's evidence there when the caller has it (``kistore cite``: the
            row of its group's ranking); None: read here.

    Returns:
        The citation, with ``withdrawn`` ``(KEYID, REASON)`` when a withdrawal applies.

    Raises:
        KistoreError: the notes, attestation files or trust cannot be read (a history
            libgit2 cannot read).
    """
    if citation.kind != "BenchmarkRun":
        return citation
    # Lazy: a run's citation only (signature and note code).
    from ..attest.evidence import evidence_for
    from ..attest.levels import withdrawal

    if evidence is None:
        evidence = evidence_for(store, citation.digest, at=at)
    found = withdrawal(evidence)
    return citation if found is None else citation._replace(withdrawn=found)


def citation_of(view: View, manifest: Manifest, first: FirstCommit, *, template: str | None,
                remote: Remote | None, publisher: str, accessed: dt.date | None,
                schema: bool = True, landing: FirstCommit | None = None) -> Citation:
    """Build the citation of a manifest whose first-adding commit is already known.

    What :func:`cite` does after resolving and walking history; a caller citing many
    objects at once finds their commits with one walk (:func:`first_commits`) and calls
    this per object.

    Args:
        view: the view the manifest was read from (for the implementation's author).
        manifest: the cited manifest.
        first: the commit that first added its object file.
        template: the permalink template (``[cite] permalink``), or None to derive it
            from ``remote``.
        remote: the origin remote, or None.
        publisher: the publisher (``[cite] publisher``).
        accessed: the access date, or None to leave it to the reader (a static page).
        schema: check a run's implementation against its schema when it is read (as
            :func:`cite`).
        landing: the commit that brought the object file onto the first-parent line
            (:func:`kistore.git.landing.landing_commit`), whose date is published; None:
            ``first`` (none of the line holds it).

    Raises:
        InputError, StoreStateError: as :func:`permalink`.
    """
    path = layout.object_path(manifest.digest)
    blob = blob_id(manifest.object_bytes).hex()
    commit = str(first.id)
    dated = landing if landing is not None else first
    title, blank_title = cited_title(manifest)
    return Citation(
        digest=manifest.digest,
        kind=manifest.kind,
        name=manifest.name,
        title=title,
        path=path,
        blob=blob,
        commit=commit,
        published=commit_datetime(dated.commit_time),
        accessed=accessed,
        permalink=permalink(template, remote, commit=commit, path=path, blob=blob,
                            digest=manifest.digest),
        authors=_authors(view, manifest, publisher, schema=schema),
        publisher=publisher,
        date_problem=out_of_range(dated.commit_time),
        landed=str(dated.id) if str(dated.id) != commit else None,
        blank_title=blank_title,
    )


def cited_title(manifest: Manifest) -> tuple[str, str | None]:
    """Return the title a citation prints of ``manifest``, and the blank one it replaced.

    ``metadata.title``, or the name when there is none (:attr:`Manifest.title`); the name
    too when the title prints as nothing (``''``, ``' '``, ``'\u3164'``, ``'\u2800'``:
    :func:`kistore.core._plain_text.prints_as_nothing`, KI254's predicate), which a
    citation printed as an empty title (``Cite: X (2026). . ...``; fresh16 F8 left, fresh17).
    A title is prose, so KI104 takes a blank one; a citation names the object by something.

    Args:
        manifest: the cited manifest.

    Returns:
        (the title to print, None) or (the name, the blank title as stored).
    """
    title = manifest.title
    if title.isascii() and title.isprintable() and title.strip(" "):
        return title, None  # the common case, no Unicode tables
    # Lazy: the one predicate of a blank string, with the Unicode tables.
    from ..core._plain_text import prints_as_nothing

    return (manifest.name, title) if prints_as_nothing(title) else (title, None)


def short_citation(store: Store, digest: Digest, at: str | None = None, *,
                   schema: bool = True) -> str:
    """Return the one line the run page (``kistore show``) ends with.

    ``Cite: AUTHORS (YEAR). TITLE. PUBLISHER. PERMALINK (DIGEST)``. When the object cannot
    be cited yet (not committed, or no permalink configured) the line says why instead of
    failing, so the page still renders.

    Args:
        store: the store.
        digest: the object's digest (already resolved).
        at: revision, or None for HEAD / the work tree (as :func:`cite`).
        schema: as :func:`cite` (False: the derived index holds records of the run and of
            its implementation).

    Returns:
        One line, no trailing newline.

    Raises:
        ResolutionError: no object ``digest`` in the store.
        VerificationError: the object's bytes do not hash to ``digest``.
    """
    try:
        citation = cite(store, digest, at=at, schema=schema)
    except (StoreStateError, InputError) as e:
        if isinstance(e, ResolutionError) and not store.view(at).has_object(digest):
            raise
        return f"Cite: {digest} (no permalink yet: {e.message})"
    year = citation.published.year
    if citation.date_problem is not None:  # KI428: say the year is not the commit's own
        dated = citation.landed or citation.commit
        year_text = f"{year}; commit {dated[:12]}'s date {citation.date_problem}"
    else:
        year_text = str(year)
    return (f"Cite: {names(citation.authors)} ({year_text}). {citation.title}. "
            f"{citation.publisher}. {citation.permalink} ({citation.digest})")


class FirstCommit(Protocol):
    """What a citation needs of the commit that first added an object.

    A ``pygit2.Commit`` has both; so has :class:`GitCommit`.
    """

    @property
    def id(self) -> object:
        """The commit's id (``str()`` gives its hex)."""

    @property
    def commit_time(self) -> int:
        """The committer time, seconds since the epoch."""


class GitCommit(NamedTuple):
    """A commit as ``git log`` or ``git rev-list`` printed it: its hex id and committer time.

    A named tuple, not a dataclass: a frozen dataclass costs ~1.5 ms of start-up to make
    (its methods are compiled), on every run page.

    Attributes:
        id: the commit's hex id.
        commit_time: committer time, seconds since the epoch.
    """

    id: str
    commit_time: int


def first_commit_by_git(root: Path, git_dir: Path, path: str, blob: str,
                        start: str = "HEAD") -> GitCommit | None:
    """:func:`first_commit` from ``HEAD`` asked of the ``git`` command, without libgit2.

    :func:`first_and_landing_by_git`'s first answer (the same arguments and None).
    """
    found = first_and_landing_by_git(root, git_dir, path, blob, start)
    return found[0] if found is not None else None


def first_and_landing_by_git(root: Path, git_dir: Path, path: str, blob: str,
                             start: str = "HEAD") -> tuple[GitCommit, GitCommit] | None:
    """:func:`first_commit` and its landing commit, asked of ``git``, without libgit2.

    Importing pygit2 costs more CPU than the rest of a run page (``kistore show``,
    docs/speed.md); ``git`` answers instead, in the common case: a full (not shallow)
    clone whose history holds exactly one commit that introduces ``path`` with ``blob``
    (holds it, while none of its parents does). That commit is what :func:`first_commit`
    returns: the earliest introducer, and here the only one. ``git log --full-history --
    PATH`` lists every introducer (each differs from all its parents at ``path``). When no
    listed commit is a merge, one ``git log --raw`` child says what each held before and after
    (:func:`_first_commit_by_log`); otherwise ``git cat-file --batch-check`` says which
    commits and parents hold the blob (a second child).

    The landing commit (:func:`kistore.git.landing.landing_commit`, whose date a citation
    publishes) holds the file while its first parent does not, so ``git log`` lists it;
    when no listed commit is a merge it is an introducer, the one found. Otherwise the
    listed commits that hold the blob while their first parent does not are its
    candidates, and a third child, :func:`kistore.git.landing.landing_by_git`, finds the
    oldest of them on the first-parent line.

    Args:
        root: the work tree (``git -C``).
        git_dir: its git directory (a ``shallow`` file there: not answered here).
        path: the object file's repository path.
        blob: its git blob id (40 hex).
        start: where history is walked from: ``HEAD``, or the commit id ``HEAD`` was read
            as (then the answer is that commit's, whatever ``HEAD`` is by then).

    Returns:
        ``(introducing commit, landing commit)``; None when this cannot answer for certain
        (a shallow clone, no or several introducers, no landing commit, no ``git``, any
        error): the caller walks with libgit2.
    """
    # A run page whose first commit and remote URL are kept asks git nothing.
    # Lazy: subprocess (+ selectors, select: ~2 ms of start-up) only when git is asked.
    import subprocess

    if (git_dir / "shallow").exists():
        return None
    git = ["git", "-C", str(root), "-c", "core.quotePath=false"]
    answer = _first_commit_by_log(git, path, blob, start)
    if answer != "ask":  # no merge touches the file: it landed where it was introduced
        return (answer, answer) if isinstance(answer, GitCommit) else None
    try:
        listed = subprocess.run(
            [*git, "rev-list", "--full-history", "--no-commit-header",
             "--format=%H %ct %P", start, "--", path],
            capture_output=True, text=True, check=False, timeout=60, env=git_environment())
        if listed.returncode != 0:
            return None
        commits = [line.split() for line in listed.stdout.splitlines() if line.strip()]
        if any(len(c) < 2 or not c[1].isdigit() or len(c[1]) == 40 for c in commits):
            # a date git cannot read prints an empty %ct (fsck badDate; libgit2 reads a
            # number): the parents' ids would shift into it (reviewer r81 F2)
            return None
        asked = [f"{c}:{path}" for c, *_ in commits] + \
            [f"{p}:{path}" for _, _, *parents in commits for p in parents]
        checked = subprocess.run([*git, "cat-file", "--batch-check=%(objectname)"],
                                 input="\n".join(asked) + "\n", capture_output=True,
                                 text=True, check=False, timeout=60, env=git_environment())
    except (OSError, subprocess.SubprocessError):
        return None
    answers = checked.stdout.splitlines()
    if checked.returncode != 0 or len(answers) != len(asked):
        return None
    holds = dict(zip(asked, (a.strip() == blob for a in answers), strict=True))
    introducers = [GitCommit(c, int(t)) for c, t, *parents in commits
                   if holds[f"{c}:{path}"] and not any(holds[f"{p}:{path}"] for p in parents)]
    if len(introducers) != 1:
        return None
    landings = {c: int(t) for c, t, *parents in commits
                if holds[f"{c}:{path}"] and not (parents and holds[f"{parents[0]}:{path}"])}
    landed = landing_by_git(git, start, landings)
    return (introducers[0], GitCommit(*landed)) if landed is not None else None


_LOG_OPTIONS = ("--full-history", "--format=%x01%H %ct %P", "--raw", "--no-abbrev", "--root",
                "--no-renames", "--diff-merges=off", "--no-show-signature", "--no-notes",
                "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative")
"""``git log`` options of :func:`_first_commit_by_log`: every commit whose ``path`` differs
from a parent's, each with its ``--raw`` line (both blob ids in full, a root commit against
the empty tree), and nothing a user's configuration could add or change (signatures,
notes, colour, rename pairs, relative paths, merge diffs)."""


def _first_commit_by_log(git: list[str], path: str, blob: str, start: str = "HEAD"
                         ) -> GitCommit | str:
    """Find the one introducer of ``path`` with ``blob`` from one ``git log --raw`` child.

    Answers only when no listed commit is a merge: then each listed commit has exactly
    one ``--raw`` line for ``path``, whose old blob id is its parent's (zeros when the
    parent, or a root commit, has none) and whose new one is its own. The introducers are
    the listed commits whose new id is ``blob`` and old id is not; every introducer is
    listed (see :func:`first_commit_by_git`), so exactly one found is the answer.

    Args:
        git: the ``git -C ROOT -c ...`` command prefix.
        path: the object file's repository path.
        blob: its git blob id (40 hex).
        start: the commit history is listed from (``HEAD`` or a commit id).

    Returns:
        The introducer; ``"unsure"`` when the listing was read and holds no or several
        introducers (no other ``git`` command could find one either); ``"ask"`` when this
        cannot say (a merge touches ``path``, an unexpected line, ``git`` failed or is too
        old for an option): the caller asks ``git`` per commit.
    """
    # A run page whose first commit and remote URL are kept asks git nothing.
    # Lazy: subprocess (+ selectors, select: ~2 ms of start-up) only when git is asked.
    import subprocess

    try:
        log = subprocess.run([*git, "-c", "log.follow=false", "log", *_LOG_OPTIONS, start,
                              "--", path], capture_output=True, text=True, check=False,
                             timeout=60, env=git_environment())
    except (OSError, subprocess.SubprocessError):
        return "ask"
    if log.returncode != 0:
        return "ask"
    found: list[GitCommit] = []
    commits = 0
    current: tuple[str, int, bool] | None = None  # (id, time, its raw line seen)
    for line in log.stdout.splitlines():
        if line.startswith("\x01"):
            if current is not None and not current[2]:
                return "ask"
            fields = line[1:].split()
            if len(fields) not in (2, 3) or not fields[1].isdigit():
                return "ask"  # two or more parents: a merge
            current, commits = (fields[0], int(fields[1]), False), commits + 1
        elif line.startswith(":"):
            meta, tab, where = line.partition("\t")
            parts = meta.split()
            if current is None or current[2] or not tab or where != path or len(parts) != 5:
                return "ask"
            if parts[3] == blob and parts[2] != blob:
                found.append(GitCommit(current[0], current[1]))
            current = (current[0], current[1], True)
        elif line.strip():
            return "ask"
    if current is not None and not current[2]:
        return "ask"
    return found[0] if len(found) == 1 else "unsure"


_HISTORY_ENVIRONMENT = ("GIT_DIR", "GIT_COMMON_DIR", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE",
                        "GIT_SHALLOW_FILE")
"""Variables that would make ``git log`` read another repository or another history than
the commit graph of ``HEAD``'s id: set, no first commit is kept or believed."""


def _history_of(git_dir: Path) -> str | None:
    """Return ``HEAD``'s commit id when history from it is that id's alone, else None.

    What ``git log`` lists from a commit id is fixed by that id (a commit names its parents
    by id, and ids do not change), unless git is told to rewrite the graph: replace refs
    (``refs/replace/``, loose or packed), a grafts file, a shallow clone's cut, or one of
    :data:`_HISTORY_ENVIRONMENT`. Any of those, or ``HEAD`` unborn or not readable from plain
    files (:func:`kistore.git.refs.resolve`): None, and nothing is kept or believed.
    """
    if any(os.environ.get(name) for name in _HISTORY_ENVIRONMENT):
        return None
    if (os.path.lexists(git_dir / "shallow") or os.path.lexists(git_dir / "info" / "grafts")
            or _any_entry(git_dir / "refs" / "replace")):
        return None
    try:
        with open(git_dir / "packed-refs", "rb") as f:
            if b" refs/replace/" in f.read():
                return None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        return refs.resolve(git_dir, "HEAD")
    except refs.RefsUnreadable:
        return None


def _any_entry(directory: Path) -> bool:
    """Whether ``directory`` exists and holds anything (or cannot be listed)."""
    try:
        with os.scandir(directory) as entries:
            return next(entries, None) is not None
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True


def _first_commit_kept_or_by_git(root: Path, git_dir: Path, path: str, blob: str
                                 ) -> tuple[GitCommit, GitCommit] | None:
    """:func:`first_and_landing_by_git`, kept for ``HEAD``'s commit id (no child when kept).

    What ``git`` answered for ``(path, blob)`` from ``HEAD``'s commit is kept beside the
    index (:mod:`kistore.index.kept`, one file per object file and blob, holding the
    ``HEAD`` id it was asked from, then the first-adding and the landing commit's id and
    committer time; a value of another shape, as kept before landing commits, is a miss),
    and believed only while ``HEAD`` is that same commit and history from it is that id's
    alone (:func:`_history_of`), and the kept commits are still in the repository
    (:func:`kistore.git.present.holds`: a citation never names a commit the repository
    lacks, review r73 F3). ``HEAD`` moved, a replace ref, a graft or a shallow cut appeared,
    the commit is gone: ``git`` is asked again, from the id just read, and the new answer is
    kept only if nothing of that changed while it answered.

    Returns:
        As :func:`first_and_landing_by_git`.
    """
    code = _code_id()
    head = _history_of(git_dir) if code is not None else None
    if code is None or head is None:
        return first_and_landing_by_git(root, git_dir, path, blob)
    key = b"first commit\0%s\0%s" % (path.encode("utf-8"), blob.encode("ascii"))
    kept = kept_value(git_dir, code, key)
    if kept is not None:
        try:
            value = json.loads(kept)
        except (ValueError, RecursionError):  # damaged, even nested 3,000 deep: a miss
            value = None
        if (isinstance(value, list) and len(value) == 5 and value[0] == head
                and all(isinstance(value[i], str) and re.fullmatch(r"[0-9a-f]{40,64}", value[i])
                        and type(value[i + 1]) is int for i in (1, 3))
                and holds(git_dir, value[1])  # never cite a commit that is gone (r73 F3)
                and holds(git_dir, value[3])):
            return GitCommit(value[1], value[2]), GitCommit(value[3], value[4])
    found = first_and_landing_by_git(root, git_dir, path, blob, start=head)
    if found is not None and _history_of(git_dir) == head:
        first, landed = found
        keep_value(git_dir, code, key, json.dumps(
            [head, first.id, first.commit_time, landed.id, landed.commit_time]))
    return found


def __getattr__(name: str) -> Any:
    """``citation.subprocess``: the module, imported on first use (see :func:`cite`)."""
    if name == "subprocess":
        # Lazy: as in the functions that start git; kept reachable as this module's name.
        import subprocess

        return subprocess
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def first_is_git(first: FirstCommit) -> bool:
    """Whether ``first`` came from :func:`first_commit_by_git` (libgit2 not loaded for it)."""
    return isinstance(first, GitCommit)


def _origin_url_by_git(store: Store, name: str = "origin") -> str | None:
    """:func:`origin_url` asked of ``git remote get-url`` (no libgit2); None when absent.

    What git answered is kept under everything that decides it
    (:func:`kistore.cite._origin.origin_key`): the same configuration bytes, variables and
    ``git`` program again give it without a child.
    """
    code = _code_id()
    key: bytes | None = None
    state: str | None = None
    if name == "origin" and code is not None and store.root is not None:
        key, state = _origin.origin_key(store.root, store.git_dir, code)
        if key is None and state == _origin.SYSTEM_ASKED_ONCE:  # asked before: worth a key
            _origin.learn_system_file(store.git_dir, code)
            key, state = _origin.origin_key(store.root, store.git_dir, code)
        if key is not None:
            kept = _origin.kept_url(store.git_dir, code, key)
            if kept is not None:
                return kept[0]
    url, by_git = _remote_url_asked(store, name)
    if by_git and code is not None and store.root is not None:
        if key is None and state is None:
            _origin.asked_once(store.git_dir, code)
        elif key is not None and _origin.origin_key(store.root, store.git_dir, code)[0] == key:
            _origin.keep_url(store.git_dir, code, key, url)
    return url


def _remote_url_asked(store: Store, name: str) -> tuple[str | None, bool]:
    """Return (the remote's URL or None when absent, whether ``git`` answered it).

    ``git remote get-url`` answers; if it cannot (no ``git``, another failure), libgit2.
    """
    # A run page whose first commit and remote URL are kept asks git nothing.
    # Lazy: subprocess (+ selectors, select: ~2 ms of start-up) only when git is asked.
    import subprocess

    try:
        done = subprocess.run(["git", "-C", str(store.root), "remote", "get-url", name],
                              capture_output=True, text=True, check=False, timeout=60,
                              env=git_environment())
    except (OSError, subprocess.SubprocessError):
        return origin_url(store, name), False
    if done.returncode == 2 or (done.returncode != 0 and "No such remote" in done.stderr):
        return None, True
    if done.returncode != 0:
        return origin_url(store, name), False
    return done.stdout.strip() or None, True


# -- settings and permalinks ----------------------------------------------------------


def read_cite_settings(store: Store, at: str | None = None) -> dict[str, str]:
    """Return the ``[cite]`` table of ``kistore.toml`` (``publisher`` always, ``permalink``).

    ``permalink`` is present only when set. Settings are read from the work tree (what
    the same bytes gave is kept: :func:`_work_tree_cite_settings`), or from the commit
    ``at`` (or HEAD) when asked for a revision or when there is no work tree.

    Raises:
        InputError: kistore.toml is not TOML, ``[cite]`` is not a table, or a value is not a
            non-empty string; or it is not a regular file (a symlink:
            :meth:`kistore.store.Store.settings_file`).
    """
    if at is None and store.root is not None:
        return _work_tree_cite_settings(store)
    return store.settings(at or "HEAD").cite()


def _work_tree_cite_settings(store: Store) -> dict[str, str]:
    """:func:`read_cite_settings` of the work tree's ``kistore.toml``, parsed once per bytes.

    What the bytes gave is kept beside the index (:mod:`kistore.index.kept`, under
    :func:`_code_id`), so a run page whose ``kistore.toml`` is as before loads
    no TOML parser. Otherwise the file is read and parsed as every reader of it does
    (:meth:`kistore.store.Store.settings`, :meth:`kistore.store.Settings.cite`). Bytes that
    fail to parse are never kept: each read says why again.

    Raises:
        InputError: as :func:`read_cite_settings`.
    """
    data = store.settings_file()[0]  # a regular file only, as Store.limits reads it
    if data is None:
        return cite_table({})
    parser = _code_id()
    kept = kept_value(store.git_dir, parser, data) if parser is not None else None
    if kept is not None:
        try:
            value = json.loads(kept)
        except (ValueError, RecursionError):  # damaged, even nested 3,000 deep: a miss
            value = None
        if isinstance(value, dict) and isinstance(value.get("publisher"), str) and all(
                k in ("permalink", "publisher") and isinstance(v, str)
                for k, v in value.items()):
            return value
    result = store.settings().cite()
    if parser is not None:
        keep_value(store.git_dir, parser, data, json.dumps(result, sort_keys=True))
    return result


@functools.cache
def _code_id() -> bytes | None:
    """Return what identifies the code whose answers are kept here (32 bytes).

    The id under which :func:`_work_tree_cite_settings`'s parse and
    :func:`_first_commit_kept_or_by_git`'s answers are kept: the BLAKE2b of this module's
    source and of the Python version (its ``tomllib``); None when the source cannot be
    read (then nothing is kept).
    """
    try:
        with open(__file__, "rb") as f:
            source = f.read()
    except OSError:
        return None
    return hashes.blake2b(source + b"\0" + sys.version.encode(), digest_size=32).digest()


def origin_url(store: Store, name: str = "origin") -> str | None:
    """Return the URL of the remote ``name`` (default ``origin``), or None when absent."""
    try:
        url = store.repo.remotes[name].url
    except (KeyError, ValueError):
        return None
    return str(url) if url else None


def parse_remote(url: str) -> Remote | None:
    """Understand a git remote URL as a web repository.

    Accepts ``https://host/owner/repo(.git)``, ``http://...``, ``ssh://[user@]host[:port]/
    owner/repo(.git)``, ``git://host/owner/repo`` and the scp-like ``user@host:owner/repo.git``.
    The path needs at least two segments (GitLab subgroups keep all of theirs).

    Args:
        url: the remote URL as configured.

    Returns:
        The :class:`Remote`, or None when ``url`` is empty, local (``/path``, ``file://``)
        or has no owner/repo path.
    """
    url = url.strip()
    scp = _SCP_LIKE.match(url) if "://" not in url else None
    if scp:
        host, path, scheme, port = scp["host"], scp["path"], "ssh", None
    else:
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http", "ssh", "git", "git+ssh", "ssh+git"):
            return None
        host, path, scheme = parts.hostname or "", parts.path, parts.scheme
        try:
            port = parts.port if scheme in ("https", "http") else None
        except ValueError:
            return None
    path = path.strip("/").removesuffix(".git").strip("/")
    if not host or path.count("/") < 1 or any(not seg for seg in path.split("/")):
        return None
    web = "http" if scheme == "http" else "https"
    netloc = host.lower() + (f":{port}" if port else "")
    labels = host.lower().split(".")
    forge = next((_FORGE_LABELS[label] for label in labels if label in _FORGE_LABELS), None)
    return Remote(url=url, host=host.lower(), base=f"{web}://{netloc}/{path}", forge=forge)


def permalink(template: str | None, remote: Remote | None, *, commit: str, path: str,
              blob: str = "", digest: Digest | None = None) -> str:
    """Fill the permalink template for one object file at one commit.

    The template is ``[cite] permalink`` when set, else the one for the ``origin`` remote's
    forge (:data:`FORGE_TEMPLATES`). Placeholders: ``{base}`` (the remote's web URL),
    ``{commit}`` (40 hex), ``{path}`` (URL-quoted), ``{blob}``, ``{digest}``. A template must
    hold ``{commit}`` and ``{path}``: without a commit id the link would move with a branch.

    Raises:
        InputError: the template has an unknown placeholder, a format spec, or lacks
            ``{commit}`` or ``{path}``; or the link is not an absolute ``https:``/``http:``
            URL with a host (:func:`kistore.core.settings.refuse_non_web_link`).
        StoreStateError: no template and no remote on a known forge (the message says how to
            set ``[cite] permalink`` in kistore.toml); or ``{base}`` with no usable remote.
    """
    if template is None:
        if remote is None:
            raise StoreStateError(
                "cannot build a permalink: kistore.toml sets no [cite] permalink and there is "
                f"no `origin` remote on a web host; add under [cite]: {_EXAMPLE_TEMPLATE}",
                file=layout.SETTINGS_FILE,
            )
        if remote.forge is None:
            raise StoreStateError(
                f"cannot build a permalink: the origin remote's host {remote.host} is not a "
                "known forge (GitHub, GitLab, Gitea); add under [cite]: "
                'permalink = "{base}/blob/{commit}/{path}" (with the URL form your host uses)',
                file=layout.SETTINGS_FILE,
            )
        template = FORGE_TEMPLATES[remote.forge]
    fields = template_fields(template)
    if "base" in fields and remote is None:
        raise StoreStateError(
            "[cite] permalink uses {base} but there is no `origin` remote on a web host; write "
            "the repository URL into the template instead", file=layout.SETTINGS_FILE,
        )
    values = {"base": remote.base if remote else "", "commit": commit,
              "path": quote(path, safe="/"), "blob": blob, "digest": str(digest or "")}
    url = template.format_map(values)
    refuse_non_web_link(url, template)  # {base} from this clone's remote: judged here
    return url


# -- helpers --------------------------------------------------------------------------


def _start_commit(store: Store, at: str | None) -> pygit2.Commit:
    """Return the commit the history walk starts from: ``at``, or HEAD."""
    if at is not None:
        return store.commit(at)
    if store.repo.head_is_unborn:
        raise StoreStateError("the repository has no commit yet: commit the object before "
                              "citing it (`git commit` or `kistore add --commit`)")
    return store.commit("HEAD")


def _authors(view: View, manifest: Manifest, publisher: str, *, schema: bool = True
             ) -> tuple[str, ...]:
    """Return who to name as author.

    The implementation's ``spec.author`` when the object is an Implementation or a run
    whose implementation is stored; else the publisher.
    """
    implementation: Mapping[str, Any] | None = None
    if manifest.kind == "Implementation":
        implementation = manifest.spec
    elif manifest.kind == "BenchmarkRun":
        ref = manifest.references().get("implementationDigest")
        if ref is not None and view.has_object(ref):
            try:
                implementation = view.manifest(ref, schema=schema).spec
            except (InputError, StoreStateError):
                implementation = None  # unreadable: `kistore verify` reports it
    author = (implementation or {}).get("author")
    if isinstance(author, str) and author.strip():
        return (author.strip(),)
    return (publisher,)
