"""``kistore site build`` and ``kistore site verify``: the site of one commit, on disk.

:func:`build_site` writes every page of a commit under ``OUT`` (see :mod:`.pages` for the
layout), plus ``site.css``, ``site.js`` and ``build.json`` (the commit, the notes tip and
the parameters built with). A file is written only when its bytes differ from what is on
disk, so an unchanged page keeps its file.

A build leaves ``OUT`` entirely the old site or entirely the new one. Every file a build
writes goes first to a staging directory beside ``OUT`` (``OUT.tmp-XXXXXXXX``, same
filesystem; inside ``OUT`` when it is a mount point); only when every page is rendered
does the install, the build's commit point, put them in place (:mod:`.install`): a fresh
build renames the staging directory to ``OUT`` (one rename), an incremental one writes a
journal, removes stale pages, renames each changed file into place (``build.json``, then
the cache, last). Ctrl-C and SIGTERM are held over the install, so they land before it
(``OUT`` as it was) or after it (the new site, whole, and the command says so); what
cannot be held (``kill -9``, a disk error while moving) leaves the journal, and the next
build finishes that install before anything else, and removes staging directories
stopped builds left. A damaged object met halfway (a fresh build once left ``groups/``
and ``index.html`` but no ``build.json``, and the retry was refused) leaves no
half-written site either.

A rebuild is incremental. ``OUT/.kistore-site-cache.json`` remembers, from the last build,
each page's cache key (:meth:`.pages.Page.key`: its commit, what else it depends on, the
generator and parameters), when each source last changed (:mod:`.history`) and each
run's first-adding commit. A page whose key is unchanged is neither gathered nor rendered;
the history walks read only the commits since the last build. Deleting the cache loses
nothing but time; ``--full`` ignores it.

:func:`verify_site` builds the site again in memory, from the commit and parameters
``build.json`` names (or ``at``), and lists every file that differs, is missing or should
not be there; it refuses a site whose install was cut short (a journal) and says to build.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..attest.notes import note_blobs
from ..attest.notes_at import NOTES_NONE as NOTES_NONE  # re-exported: its home moved
from ..attest.notes_at import lost_warning
from ..attest.notes_at import notes_commit as notes_commit
from ..core.canonical_fast import loads_lenient
from ..core.disk_errors import named
from ..core.errors import InputError
from ..git.commit import interrupts_deferred
from ..git.lazy import pygit2
from ..git.notes import NO_NOTES
from . import render
from .citing import Citations, permalink_template
from .history import Touches, last_changed, note_key, notes_changed, object_blobs
from .install import JOURNAL, install, read_journal, recover, remove_journal_temps
from .pages import FORMAT, Context, Page, page_data, plan, runs_shown
from .snapshot import Snapshot
from .staging import INSIDE, MARKER, discard, remove_leftovers, stage

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

BUILD_FILE = "build.json"
CACHE_FILE = ".kistore-site-cache.json"
_CACHE_FORMAT = 1
WRITES = ("index.html", "index.json", BUILD_FILE, CACHE_FILE, "site.css", "site.js",
          "runs/x/index.html")
"""Files every site has (one page deeper too): git must ignore them all for ``out`` to be
built inside the store's work tree (:meth:`kistore.store.Store.refuse_output_inside`)."""

TEMPLATES = {"index": "index.html", "run": "run.html", "compare": "compare.html",
             "name": "name.html", "group": "group.html", "workload": "workload.html",
             "source": "source.html"}

Progress = Callable[[int, int], None]
"""``progress(pages handled since the last call, pages in the site)``."""
Installed = Callable[["BuildReport"], None]
"""``on_installed(report)``: called the moment the new site is in place (signals held)."""


@dataclass
class BuildReport:
    """What a build did.

    Attributes:
        out: the site's directory.
        commit: the commit built from (40 hex).
        pages: how many pages the site has.
        rendered: how many pages were gathered and rendered (the others' cache keys were
            unchanged).
        written: files (relative to ``out``) written because their bytes changed.
        removed: files removed because no page has them any more.
        unchanged: files rendered whose bytes were already on disk.
        skipped: damaged manifests left out (digest -> (path, problem)).
        warnings: what the person should know of the pages built: runs a shallow clone
            cannot cite (:meth:`.citing.Citations.shallow_warning`).
    """

    out: Path
    commit: str
    pages: int = 0
    rendered: int = 0
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    made: set[str] = field(default_factory=set, repr=False)

    def to_json(self) -> dict[str, Any]:
        """Return the report as data (``kistore site build --json``)."""
        return {"out": str(self.out), "commit": self.commit, "pages": self.pages,
                "rendered": self.rendered, "written": self.written, "removed": self.removed,
                "unchanged": self.unchanged,
                "skipped": [{"digest": d, "path": p, "problem": why}
                            for d, (p, why) in sorted(self.skipped.items())],
                "warnings": self.warnings}


@dataclass
class _Prepared:
    """Everything a build or a verification computes before rendering."""

    snap: Snapshot
    pages: list[Page]
    ctx: Context
    parameters: dict[str, Any]
    touches: Touches
    citations: Citations
    notes_tip: str | None
    notes_touches: Touches | None = None

    def build_json(self) -> dict[str, Any]:
        return {"kistoreSite": FORMAT, "commit": self.snap.rev, "notes": self.notes_tip,
                "parameters": self.parameters, "generator": render.generator(),
                "pages": len(self.pages)}


def _prepare(store: Store, commit: Any, *, template: str | None, comparison: str | None,
             cache: dict[str, Any] | None, notes: Any) -> _Prepared:
    """Read the snapshot and plan every page (no page is gathered yet).

    Args:
        store: the store.
        commit: the pygit2 Commit built from.
        template: the permalink template, already resolved (:func:`permalink_template`).
        comparison: the comparison asked for, or None.
        cache: the last build's cache, or None.
        notes: the pygit2 Commit of the attestation notes read (:func:`notes_commit`), or
            None: none.
    """
    repo = store.repo
    notes_tip = None if notes is None else str(notes.id)
    snap = Snapshot(store, commit, comparison=comparison, notes_at=notes_tip or NO_NOTES)
    parameters = {"permalink": template, "comparison": comparison}
    known_head = cache.get("head") if cache else None
    ancestor = isinstance(known_head, str) and _is_ancestor(repo, known_head, snap.rev)
    known = None
    if cache and ancestor:
        try:
            known = Touches.from_json(cache["touches"])
        except (KeyError, TypeError, ValueError, IndexError):
            ancestor = False
    touches = last_changed(repo, commit, known)
    blobs = object_blobs(repo, commit.tree)
    noted = {} if notes is None else note_blobs(repo, notes)
    note_of = {r.digest: noted[blobs[r.digest]] for r in snap.runs
               if blobs.get(r.digest) in noted}
    notes_touches = None
    if notes is not None:  # an earlier build's walk of the notes chain, when it has one
        try:
            known_notes = Touches.from_json(cache["notesTouches"]) if cache else None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            known_notes = None
        notes_touches = notes_changed(repo, notes, known_notes)
    # per run: the newest notes commit of the chain that changed its object's note
    noted_at = {} if notes_touches is None else {
        r.digest: found for r in snap.runs if r.digest in blobs
        and (found := notes_touches.keys.get(note_key(blobs[r.digest]))) is not None}
    citations = Citations.of(store, commit, template, blobs, [r.digest for r in snap.runs],
                             known=cache.get("firstAdded") if cache and ancestor else None,
                             known_head=known_head if ancestor else None)
    pages = plan(snap, touches, citations.first_added, note_of, citations.landed,
                 notes_tip=notes_tip, noted_at=noted_at)
    ctx = Context(site=citations.publisher, citations=citations, notes_tip=notes_tip)
    return _Prepared(snap, pages, ctx, parameters, touches, citations, notes_tip,
                     notes_touches)


def _is_ancestor(repo: pygit2.Repository, old: str, new: str) -> bool:
    """Return True when commit ``old`` is ``new`` or an ancestor of it (False if it is gone)."""
    if old == new:
        return True
    try:
        return bool(repo.descendant_of(new, old))
    except (KeyError, ValueError, pygit2.GitError):
        return False


def _rendered(prep: _Prepared, pages: list[Page]) -> Iterator[tuple[Page, bytes, bytes]]:
    """Gather and render pages: ``(page, HTML bytes, JSON bytes)`` each."""
    snap = prep.snap
    wanted = []
    for page in pages:
        wanted.extend(runs_shown(snap, page))
        if page.kind == "workload":
            keys = {r.comparison_key for r in snap.workloads[page.ident] if r.comparison_key}
            for key in sorted(keys):
                wanted.extend(snap.groups[key])
    snap.prime_evidence(wanted)
    for page in pages:
        twin = page_data(snap, page, prep.ctx)
        yield page, render.render_html(TEMPLATES[page.kind], page, twin), \
            render.render_json(twin)


def _site_files(prep: _Prepared) -> dict[str, bytes]:
    """Return the files every build writes besides pages: static files, ``build.json``."""
    files = render.static_files()
    files[BUILD_FILE] = (json.dumps(prep.build_json(), sort_keys=True, indent=1) + "\n"
                         ).encode()
    return files


def build_site(store: Store, out: str | os.PathLike[str], *, at: str = "HEAD",
               permalink: str | None = None, comparison: str | None = None,
               full: bool = False, progress: Progress | None = None,
               on_installed: Installed | None = None,
               inside_work_tree: bool = False, notes_at: str | None = None) -> BuildReport:
    """Write the static site of commit ``at`` under ``out``.

    Args:
        store: a :class:`kistore.store.Store`.
        out: the site's directory; created when absent. An existing directory must be
            empty or hold a site (a ``build.json``).
        at: the commit (any revision git understands; default ``HEAD``).
        permalink: a permalink template for citations (``{commit}``, ``{path}`` ...), to
            use instead of ``kistore.toml``'s or the origin remote's.
        comparison: rank every group ``measured`` or ``source-native`` instead of by the
            ranking policy.
        full: ignore the build cache: gather and render every page (files whose bytes
            are unchanged are still left alone).
        progress: called with the number of pages handled since the last call and the
            number of pages (:data:`Progress`).
        on_installed: called with the report once the new site is in place, while SIGINT
            and SIGTERM are still held (:data:`Installed`): a handler it installs takes
            the ones that came during the install (the command line notes them and says
            the site is whole). Without it they are raised after the install, as
            ``KeyboardInterrupt`` from a build whose site is in place.
        inside_work_tree: build into the store's work tree even where git does not ignore
            ``out`` (else refused: reviewer r85 F8).
        notes_at: the notes commit whose attestations the pages show (a revision, or
            :data:`NOTES_NONE`); None: the tip of ``refs/notes/kistore`` now
            (:func:`notes_commit`). Every page states the notes commit it was made from
            beside its store commit, so ``--at X --notes-at N`` writes it byte for byte.

    Returns:
        A :class:`BuildReport`.

    Raises:
        InputError: ``at`` names no commit; ``notes_at`` names no notes commit; ``out``
            is inside ``store/`` or the git directory, or inside the work tree and not
            ignored by git (unless ``inside_work_tree``:
            :meth:`~kistore.store.Store.refuse_output_inside`), a file, or a non-empty
            directory that is not a site; ``kistore.toml`` at ``at`` is not valid.
        StoreStateError: two runs, groups or workloads share the first 16 hex digits of
            their digests.
        InstallCutShort: a move into ``out`` failed (a full disk): the next build
            finishes the install (:mod:`.install`).
        InstalledMeanwhile: ``out`` was absent or empty, and another build installed a
            site there while this one built (nothing of this one was installed).
        OSError: a file under ``out`` cannot be written.

    Side effects:
        First finishes an install a stopped build left (its journal) and removes staging
        directories and journal temporary files stopped builds left
        (:func:`.install.recover`, :func:`.staging.remove_leftovers`,
        :func:`.install.remove_journal_temps`). Writes ``out`` (pages, static files,
        ``build.json``, the cache), through a staging directory that is removed
        afterwards: when the build fails before its install, ``out`` is left as it was
        (absent, empty or the previous site), and Ctrl-C or SIGTERM is held over the
        install. May update the derived query index under ``.git/kistore/``. The store is
        not written.
    """
    out = Path(out)
    store.refuse_output_inside(out, writes=WRITES, inside_work_tree=inside_work_tree)
    if out.is_dir():
        recover(out)
    remove_leftovers(out)
    remove_journal_temps(out)
    _check_out(out)
    commit = store.commit(at)
    notes = notes_commit(store, notes_at)
    cache = None if full else _read_cache(out)
    template = permalink_template(store, str(commit.id), permalink)
    prep = _prepare(store, commit, template=template, comparison=comparison, cache=cache,
                    notes=notes)
    generator = render.generator()
    keys = {page.path: page.key(generator, prep.parameters)[:32] for page in prep.pages}
    old_keys: dict[str, str] = (cache or {}).get("pages", {})
    # A page whose key is unchanged is rendered again only when a file of it is gone; the
    # check is a stat per file on plain strings (pathlib's objects cost 3x the stats).
    # A page file or page folder replaced by a symbolic link is done again too, as --full
    # does (review 2026-12-02, F18): a file link is replaced, a folder link refused.
    base = os.fspath(out)
    islink = os.path.islink
    todo = [page for page in prep.pages
            if full or old_keys.get(page.path) != keys[page.path]
            or (page.path and islink(os.path.join(base, page.path.rstrip("/"))))
            or not _is_regular(os.path.join(base, page.path, "index.html"))
            or not _is_regular(os.path.join(base, page.path, "index.json"))]
    report = BuildReport(out, prep.snap.rev, len(prep.pages), len(todo),
                         skipped=prep.snap.skipped)
    shallow = prep.citations.shallow_warning()
    if shallow is not None:
        report.warnings.append(shallow)
    report.warnings += prep.citations.date_warnings(prep.snap.store.repo)
    report.warnings += prep.citations.push_warnings(store, at)  # as cite (fresh05 LOW 9)
    lost = lost_warning(store, notes_at, notes, prep.snap.rev)  # KI408 in its history (F8)
    if lost is not None:
        report.warnings.append(lost)
    produced = set(keys)
    stale = [p for p in old_keys if p not in produced] if cache is not None else \
        sorted(_page_dirs(out) - produced)
    site_files = _site_files(prep)
    # every page's top folder (`groups/`), and each folder of what is written or removed
    tops = {page.path.split("/", 1)[0] + "/" for page in prep.pages if "/" in page.path}
    _refuse_links(out, [*tops, *(page.path for page in todo), *stale, *site_files])
    fresh = not out.is_dir() or not any(out.iterdir())
    # What a shallow clone's history gives is not kept for the next build (no `head`: it
    # walks the history again, cheap in such a clone): its edge commit is each file's
    # last change and its runs' first-adding commits are not known (review r78 F7), and
    # after `git fetch --unshallow` the next build would keep those answers.
    cache_data = {"format": _CACHE_FORMAT,
                  "head": None if store.repo.is_shallow else prep.snap.rev,
                  "touches": prep.touches.to_json(),
                  "firstAdded": dict(sorted(prep.citations.first_added.items())),
                  "notesTouches": None if prep.notes_touches is None
                  else prep.notes_touches.to_json(),
                  "pages": dict(sorted(keys.items()))}
    try:
        staging = stage(out)
    except OSError as e:  # the staging's marker, on a full disk: say OUT (fresh05 LOW 2)
        raise named(e, out) from e
    try:
        for page, html, data in _rendered(prep, todo):
            for name, content in (("index.html", html), ("index.json", data)):
                _write_if_changed(out, staging.path, page.path + name, content, report)
            if progress:
                progress(1, len(prep.pages))
        if progress and len(todo) < len(prep.pages):
            progress(len(prep.pages) - len(todo), len(prep.pages))
        for name, content in site_files.items():
            _write_if_changed(out, staging.path, name, content, report)
        try:
            _write_cache(staging.path, cache_data)
        except OSError as e:
            raise named(e, out / CACHE_FILE, instead_of=staging.path) from e
        names = [n for n in (os.listdir(staging.path) if fresh else report.written)
                 if n not in (MARKER, CACHE_FILE)]
        moves = [*sorted(names, key=lambda rel: rel == BUILD_FILE), CACHE_FILE]
        # The commit point: a Ctrl-C or SIGTERM lands before it or after it, never inside.
        with interrupts_deferred():
            report.removed = install(staging, out, moves, stale, drop=[CACHE_FILE],
                                     fresh=fresh)
            if on_installed:
                on_installed(report)
    finally:  # after a failure before the install: OUT as it was, the staging removed
        discard(staging)
    return report


@dataclass(frozen=True, slots=True)
class Difference:
    """One file of a site that is not what a fresh build writes.

    Attributes:
        path: the file, relative to the site's directory.
        problem: ``differs``, ``missing``, ``unexpected`` (on disk, not in a fresh build),
            ``symbolic link`` (a link in the site: a build never writes through one) or
            ``leftover`` (``.kistore-staging-XXXXXXXX/``, a stopped build's staging
            directory: the next build removes it).
    """

    path: str
    problem: str

    def to_json(self) -> dict[str, str]:
        """Return the difference as data."""
        return {"path": self.path, "problem": self.problem}


def read_build(out: str | os.PathLike[str]) -> dict[str, Any]:
    """Return a site's ``build.json``.

    Raises:
        InputError: ``out`` has no readable ``build.json`` (not a kistore site): missing,
            not JSON, or nested past what the parser reads (a clear error, never a
            ``RecursionError``).
    """
    path = Path(out) / BUILD_FILE
    try:
        data = loads_lenient(path.read_bytes())
    except (OSError, ValueError) as e:
        raise InputError(f"not a kistore site: cannot read {BUILD_FILE} ({e}); build one "
                         "with `kistore site build OUT`", file=str(path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("commit"), str) \
            or not isinstance(data.get("parameters"), dict):
        raise InputError(f"not a kistore site: {BUILD_FILE} lacks commit and parameters",
                         file=str(path))
    return data


def verify_site(store: Store, out: str | os.PathLike[str], *, at: str | None = None,
                progress: Progress | None = None, notes_at: str | None = None
                ) -> tuple[dict[str, Any], list[Difference]]:
    """Check that every file of a site equals a fresh build; list the ones that do not.

    The fresh build is of the commit and the notes commit ``build.json`` names (or ``at``,
    ``notes_at``), with the parameters it names, made in memory (nothing is written; the
    cache is not used). Files compared:
    every page's ``index.html`` and ``index.json``, the static files and ``build.json``;
    any other file on disk (a page the fresh build lacks, a file put there by hand) but the
    build cache is ``unexpected``; a stopped build's staging directory inside ``out`` is
    one ``leftover``.

    Args:
        store: a :class:`kistore.store.Store` holding the commit.
        out: the site's directory.
        at: check against this commit instead of the one the site names.
        notes_at: check against this notes commit (:func:`notes_commit`: a revision, or
            :data:`NOTES_NONE`) instead of the one the site names.
        progress: called with the number of pages checked since the last call and the
            number of pages.

    Returns:
        ``(build.json as read, differences)``; no differences means the site is exactly
        the build of that commit.

    Raises:
        InputError: ``out`` is not a site; the commit or the notes commit is not in the
            store; the last build's install was cut short (its journal is there: build to
            finish it).
    """
    out = Path(out)
    if read_journal(out) is not None:
        raise InputError(
            "the install of the last build into this site was cut short (the build was "
            "killed, or a disk error stopped it): some pages are new, some old, and "
            f"{BUILD_FILE} may not say which; run `kistore site build {out}` to finish that "
            "install, then verify", file=str(out / JOURNAL))
    build = read_build(out)
    rev = at or build["commit"]
    try:
        commit = store.commit(rev)
    except InputError as e:
        raise InputError(f"the site was built from commit {rev}, which this store does not "
                         f"have ({e.message}); fetch it, or verify against another commit "
                         "with --at", file=str(out / BUILD_FILE)) from None
    said = build.get("notes")
    if notes_at is not None:
        notes = notes_commit(store, notes_at)
    else:  # the notes the site was built with (null: none)
        try:
            notes = notes_commit(store, said if isinstance(said, str) else NOTES_NONE)
        except InputError as e:
            raise InputError(f"the site was built with notes commit {said}, which this store "
                             f"does not have ({e.message}); `kistore notes fetch REMOTE` "
                             "fetches it, or verify against other notes with --notes-at",
                             file=str(out / BUILD_FILE)) from None
    params = build["parameters"]
    prep = _prepare(store, commit, template=params.get("permalink"),
                    comparison=params.get("comparison"), cache=None, notes=notes)
    differences: list[Difference] = []
    expected: set[str] = set()
    for page, html, data in _rendered(prep, prep.pages):
        for name, content in (("index.html", html), ("index.json", data)):
            expected.add(page.path + name)
            _compare(out, page.path + name, content, differences)
        if progress:
            progress(1, len(prep.pages))
    for name, content in _site_files(prep).items():
        expected.add(name)
        _compare(out, name, content, differences)
    expected.add(CACHE_FILE)  # the build's own, not served (OUT/.kistore-site-cache.json)
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*") if not p.is_dir()}
    links = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_symlink()}
    # a stopped build's staging directory: one line for it, not one per file in it
    left = {path.split("/", 1)[0] + "/" for path in on_disk - links
            if path.startswith(INSIDE) and "/" in path}
    for path in sorted(on_disk - expected - links):
        if path.split("/", 1)[0] + "/" not in left:
            differences.append(Difference(path, "unexpected"))
    differences += [Difference(path, "leftover") for path in sorted(left)]
    # a link in the site: a build refuses to write through one, and a server may follow it
    differences += [Difference(path, "symbolic link") for path in sorted(links)]
    return build, differences


# -- files ------------------------------------------------------------------------------


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise InputError("is a file; give a directory for the site", file=str(out))
    if out.is_dir() and any(out.iterdir()) and not (out / BUILD_FILE).is_file():
        raise InputError(f"is not empty and holds no {BUILD_FILE}: it is not a kistore site; "
                         "give a new or empty directory (nothing was written)", file=str(out))


def _refuse_links(out: Path, paths: Iterable[str]) -> None:
    """Refuse a build that would write or remove a file through a symlinked directory.

    ``OUT/groups -> /elsewhere`` made the build write pages outside ``OUT`` (r70 F10). Each
    directory on the way to each file the build writes or removes (``paths``, relative to
    ``out``; a page's path ends in ``/``) is ``lstat``-ed once; ``out`` itself is the
    user's choice and may be a link.

    Raises:
        InputError: such a directory is a symbolic link (nothing was written).
    """
    base, seen = os.fspath(out), set()
    for path in paths:
        directory = path.rstrip("/") if path.endswith("/") else path.rpartition("/")[0]
        while directory and directory not in seen:
            seen.add(directory)
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                if stat.S_ISLNK(os.lstat(os.path.join(base, directory)).st_mode):
                    raise InputError(
                        f"{directory} is a symbolic link inside the site's directory: a build "
                        "writes only inside it, never through a link; remove the link (`rm "
                        f"{os.path.join(base, directory)}`) and build again (nothing was "
                        "written)", file=os.path.join(base, directory))
            directory = directory.rpartition("/")[0]


def _is_regular(path: str) -> bool:
    """Return True when ``path`` is a regular file itself (one ``lstat``; a link is not)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _write_if_changed(out: Path, staging: str, rel: str, content: bytes,
                      report: BuildReport) -> None:
    """Write ``rel`` into ``staging`` when its bytes differ from ``out/rel``'s.

    Args:
        out: the site's directory (what is compared against; not written).
        staging: the build's staging directory (:func:`.staging.stage`).
        rel: the file, relative to both, ``/``-separated.
        content: the file's bytes.
        report: records ``rel`` as written, or counts it unchanged.

    Raises:
        OSError: ``rel`` could not be written (a full disk): named as it would be in
            ``out`` (:func:`kistore.core.disk_errors.named`), never by the staging.
    """
    try:
        with open(os.path.join(out, rel), "rb") as f:
            if f.read() == content:
                report.unchanged += 1
                return
    except FileNotFoundError:
        pass
    path = os.path.join(staging, rel)
    parent = os.path.dirname(path)
    if parent not in report.made:
        try:
            os.makedirs(parent, exist_ok=True)
        except OSError as e:
            raise named(e, os.path.dirname(os.path.join(out, rel)), instead_of=staging) from e
        report.made.add(parent)
    try:
        with open(path, "wb") as f:
            f.write(content)
    except OSError as e:  # named as in OUT, not the staging (fresh05 LOW 2: no name at all)
        raise named(e, os.path.join(out, rel), instead_of=staging) from e
    report.written.append(rel)


def _compare(out: Path, rel: str, content: bytes, differences: list[Difference]) -> None:
    try:
        if (out / rel).read_bytes() != content:
            differences.append(Difference(rel, "differs"))
    except FileNotFoundError:
        differences.append(Difference(rel, "missing"))


def _page_files(out: Path) -> set[str]:
    """Every ``index.html`` and ``index.json`` under ``out``, relative, ``/``-separated."""
    found = set()
    for name in ("index.html", "index.json"):
        for path in out.rglob(name):
            found.add(path.relative_to(out).as_posix())
    return found


def _page_dirs(out: Path) -> set[str]:
    """Every page directory under ``out`` (``""`` or ``runs/.../``)."""
    dirs = set()
    for rel in _page_files(out):
        parent = rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
        dirs.add(parent)
    return dirs


def _read_cache(out: Path) -> dict[str, Any] | None:
    """Return the build cache of a previous build, or None (build every page) when unusable.

    A cache that does not parse (even one nested 3,000 deep: ``loads_lenient`` raises a
    ``ValueError``, not a ``RecursionError``) is no cache: the build rewrites it.
    """
    try:
        data = loads_lenient((out / CACHE_FILE).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT:
        return None
    if not all(isinstance(data.get(k), dict) for k in ("touches", "firstAdded", "pages")):
        return None
    return data


def _write_cache(out: Path | str, data: dict[str, Any]) -> None:
    path = Path(out) / CACHE_FILE
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(data, separators=(",", ":")))
    os.replace(temp, path)


__all__ = ["BUILD_FILE", "CACHE_FILE", "BuildReport", "Difference", "build_site", "read_build",
           "verify_site"]
