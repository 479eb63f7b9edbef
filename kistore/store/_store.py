"""The store: a git work tree of content-addressed manifests (docs/design.md §3).

It owns the repository: ``init``, the atomic ``add`` path (work tree, and ``--commit``
straight into git objects), reading back with re-hashing, and resolving references (full
digest, unique hex prefix, ``KIND/NAME``).

Reads see the work tree by default (what was just added is visible before it is committed)
or a commit when asked ``at=REV``; both are a :class:`kistore.store.View`. What an add may
write is decided by :mod:`kistore.store.admission`, its work-tree files are written by
:mod:`kistore.git.writer`, and its commit is made by :mod:`kistore.git.commit`.

Write guarantees:

* object and metadata files are written to a temporary name and renamed into place; a
  failure part-way removes what this call created and restores what it replaced;
* ``commit=True`` builds blobs, trees and a commit first and moves the branch only then,
  with a compare-and-swap on its old value, retried on a concurrent update, so two writers
  never lose each other's manifests; the git index is updated for the written paths, so
  ``git status`` stays clean.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import stat
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import canonical, layout
from ..core.digest import (
    Digest,
    match_prefix,
    one_slip_away,
    parse_prefix,
    slip_said,
    two_digits_off,
)
from ..core.errors import (
    InputError,
    KistoreError,
    MeantError,
    MultipleErrors,
    ResolutionError,
    StoreStateError,
    one_line,
    printable,
)
from ..core.limits import Limits
from ..core.limits import check_manifest as limits_check
from ..core.model import Manifest
from ..core.schema import KINDS, NAME_RULE, nearest_kind, nearest_name
from ..core.settings import STORE_VERSION
from ..core.workers import cpus
from ..git.blobs import (
    ObjectUnreadable,
    damage,
    fetch_trees,
    libgit2_revision,
    missing_target,
    read_revision_guarded,
)
from ..git.config_guard import use_repository
from ..git.ids import blob_id
from ..git.lazy import pygit2  # imported on first use (~0.2 s)
from ..git.locks import index_lock
from ..git.opening import open_repository
from ..git.refs import RefsUnreadable, broken_dotgit, common_git_dir, git_dir_of
from ..git.sparse import SkipWorktree, git_only, skip_worktree
from ..index.freshness import is_racy, one_write, stat_key
from ..index.names import NameIndex, open_name_index
from . import _write_lock
from ._settled import WORK_TREE_WAIT_S, Settled, settled_at, writing_note
from ._views import CommitView, SparseWorkTreeView, StagedView, View, WorkTreeView

if TYPE_CHECKING:  # pragma: no cover - typing only: loaded when a commit indexes its rows
    from ..git.idents import Identities
    from ..git.pack import PackAhead
    from ..git.writer import FileStat
    from ..index import AddedDirs
    from ..index.index import Prepared
    from ._settings import Settings
    from .admission import AddResult
    from .migrate import ForwardWritten, GroupWritten, NameWritten, ObjectSkipped

SETTINGS_TEMPLATE = f"""\
# kistore store settings (https://kernelindex.dev). Reviewed like code.
[store]
version = {STORE_VERSION}

[limits]
# Sizes kistore refuses past, while reading (add, import, verify, check, the hooks).
# manifest-bytes = 1048576   # a manifest, bundle file or JSON Lines line; stored files
# source-bytes = 67108864    # one file `kistore import` reads
# string-length = 65536      # characters of any string in a manifest
# array-length = 10000       # items of any array in a manifest
# object-members = 1000      # members (keys) of any object in a manifest

[cite]
# Permalink template for `kistore cite`; {{commit}} and {{path}} are filled in.
# When unset, it is derived from the `origin` remote (GitHub, GitLab, Gitea forms).
# permalink = "https://github.com/OWNER/REPO/blob/{{commit}}/{{path}}"
"""
"""What ``kistore init`` writes to ``kistore.toml``: ``[store] version`` is
:data:`kistore.core.settings.STORE_VERSION`, the other settings commented out at their
defaults."""



WRITERS = 2
"""Child processes writing the work tree of a bulk ``--commit`` while this process packs
and commits (0: written here, before the commit). Each child takes whole shard
directories, closes the pipe ends it inherited and is drained before it is reaped, so a
parent killed or failing mid-write never leaves one blocked holding the write lock
(docs/speed.md). Measured side by side on a quiet 2-CPU disk, alternated: at 100,000
manifests two children 29.0 and 33.6 s, one 33.4 and 37.7 s (0.87x, 0.89x); at 20,000,
under load, 0.84x. One child against none: 7.5-8.4 s against 9.1-9.5 s at 20,000."""


AdmissionCheck = Callable[["Store", Sequence[Manifest]], "list[tuple[Digest, KistoreError]]"]
"""A rule of a layer above the store, asked before an add writes anything.

Called under the write lock with the store and the manifests the add would add (new
objects, each once); returns each problem with the digest of the manifest it is about
(the add places it where that manifest came from: file, line, JSON Pointer). A problem
that is an :class:`AdmissionWarning` refuses nothing: the add goes on and reports it in
that manifest's :attr:`AddResult.warnings`.

The store knows no rule of the layers above it: a caller hands :meth:`Store.add` the
checks it wants (``checks=``); ``kistore add`` and ``kistore import`` pass the query
layer's unit rule, :func:`kistore.query.units.units_admitted` (KI210), and its rank-outlier
warning, :func:`kistore.query.outlier_rules.outliers_admitted` (KI234, as a
:class:`GroupsCheck`)."""


class GroupsCheck:
    """An :data:`AdmissionCheck` that also reads which comparison group each run enters.

    :meth:`Store.add` calls ``check(store, manifests, groups)``, ``groups`` being run hex
    -> group directory of every run whose key the add's plan knows
    (:attr:`kistore.store.admission.AddPlan.groups`): the add's own runs, and the stored
    runs whose group file the add writes (an arriving protocol or environment completes
    their key; reviewer r90b F7). Called as a plain :data:`AdmissionCheck` (two
    arguments), ``groups`` is None: the add's own runs only.

    Args:
        check: the rule, ``(store, manifests, groups) -> [(digest, problem), ...]``.
    """

    def __init__(self, check: Callable[[Store, Sequence[Manifest], Mapping[str, str] | None],
                                       list[tuple[Digest, KistoreError]]]) -> None:
        self.check = check

    def __call__(self, store: Store, manifests: Sequence[Manifest]
                 ) -> list[tuple[Digest, KistoreError]]:
        """Run the rule without the plan's groups (the add's own runs only)."""
        return self.check(store, manifests, None)

METADATA_LISTED = 50
"""How many manifests whose metadata an add replaced its commit message lists."""

WRITES_BESIDE_HEAD = ("writes into the work tree and checks names against it, which lacks "
                      "every file HEAD holds")
"""What ``add``, ``import`` and ``migrate`` need of the work tree (a clone not checked
out would take a name HEAD gives another manifest: :meth:`Store.require_checkout_to_write`)."""


def no_work_tree(command: str, git_dir: str | os.PathLike[str]) -> str:
    """Return the refusal of a command that writes into a work tree, in a bare repository.

    Args:
        command: the command as typed (``kistore import``).
        git_dir: the bare repository's directory (named in the ``git clone`` to run).

    Returns:
        One line: what the command needs, and the clone to make and run it in.
    """
    return (f"this repository has no work tree (a bare repository): `{command}` writes the "
            "store's files into a work tree (and commits them from there with --commit); "
            f"clone it with one (`git clone {os.fspath(git_dir)} DIR`), run `{command}` in "
            "the clone, and push")


def _with_groups(check: GroupsCheck, groups: Mapping[str, str]) -> AdmissionCheck:
    """Return ``check`` as a plain :data:`AdmissionCheck` reading the add's ``groups``."""
    return lambda store, new: check.check(store, new, groups)


class AdmissionWarning(KistoreError):
    """A problem an :data:`AdmissionCheck` reports that does not refuse the add.

    E.g. a run agreeing with some runs of a comparison group that already states two units
    (KI217). Located like an error (file, line, JSON Pointer); ``Store.add`` returns it in
    the manifest's :attr:`AddResult.warnings`, ``kistore add`` and ``import`` print it.
    """


class ValueWarning(AdmissionWarning):
    """An :class:`AdmissionWarning` about one value, placed at its line and column.

    ``add`` names the value's line and column in a ``.json`` input beside its JSON Pointer
    (:func:`kistore.store.admission.locate`; reviewer break97 L7: KI221 named
    ``run.json:/spec/...`` where JSON Lines give a line): KI221's warnings, and KI230's and
    KI233's (:mod:`kistore.store.latency`, since 2026-12-07, msg03). Other problems keep
    ``FILE:/POINTER`` for such an input (extending it to them: a follow-up).
    """

    at_value = True


class AddInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM arrived after an add had landed: nothing was undone.

    A KeyboardInterrupt still (a caller that does not know it stops as on any interrupt),
    carrying what landed, so the CLI can say the add is whole instead of "Aborted!".

    Args:
        results: one :class:`AddResult` per distinct manifest, as :meth:`Store.add` returns.
        commit: the commit the branch holds (``--commit``), or None for a work-tree add.
    """

    def __init__(self, results: list[AddResult], commit: pygit2.Oid | None) -> None:
        super().__init__()
        self.results = results
        self.commit = commit



def _first_places(manifests: Sequence[Manifest], places: Sequence[Any]) -> dict[Digest, Any]:
    """Return each digest's place (``Store.add``'s ``places``) at its first copy.

    Args:
        manifests: an add's manifests, in input order.
        places: where each came from, in the same order.

    Returns:
        ``{digest: place}``: a digest given several times at the first (the copy the add
        stores: :func:`kistore.store.admission.plan_add` keeps it).
    """
    first: dict[Digest, Any] = {}
    for m, place in zip(manifests, places, strict=True):
        first.setdefault(m.digest, place)
    return first


def _first_copies(manifests: Iterable[Manifest]) -> dict[Digest, Manifest]:
    """Return each digest's first manifest, in input order: the copy an add stores."""
    first: dict[Digest, Manifest] = {}
    for m in manifests:
        first.setdefault(m.digest, m)
    return first

class Store:
    """A kistore store: a git repository holding ``kistore.toml`` and ``store/``.

    The work tree is the one git finds: the directory holding the nearest ``.git`` (a
    directory, a symbolic link to one, or a file naming one: a linked worktree, a ``git
    clone --separate-git-dir``), or ``core.worktree``'s. With ``path`` None and ``GIT_DIR``
    set, git's rule for the variables (:func:`_environment_repository`).

    Args:
        path: any directory inside the repository (default: the current directory), or a
            bare repository (then only ``at=REV`` reads work; the default is ``HEAD``).

    Raises:
        StoreStateError: when ``path`` is not inside a git repository, or the nearest
            ``.git`` above it leads to no git directory (which, what it holds, what to do:
            :func:`kistore.git.refs.broken_dotgit`); or ``GIT_DIR`` names no git
            directory, or ``GIT_WORK_TREE`` no directory.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        start = os.fspath(path) if path is not None else os.getcwd()
        self._repo: pygit2.Repository | None = None
        self._name_index: NameIndex | None = None
        self._parsed: dict[bytes, dict[str, Any]] = {}  # Store.settings: parses by bytes
        # Store.settings_file: the bytes read, by commit id ("" the work tree's, with its
        # change key): kistore.toml read once a process (site build read it 3-5 times)
        self._settings_read: dict[str, tuple[str, tuple[bytes, str]]] = {}
        self._linked: set[str] = set()  # the work views' record of symlinked directories
        self.heads_files: dict[str, str] = {}
        """Committed attestation files a work-tree answer read as ``HEAD`` holds them, the
        work tree having lost them: path -> how the work tree holds it (``missing``, ``a
        FIFO``, ...; :func:`kistore.attest.committed_here.files_as_committed`), for the
        command line to say (:mod:`kistore.cli._evidence_here`)."""
        self.unread_files: dict[str, str] = {}
        """New entries under ``store/attestations/`` a work-tree answer listed and left out,
        being no regular file: path -> what it is (``a FIFO``, ``a symbolic link``, ``a
        directory``, ...; :func:`kistore.attest.unread_files.record_unread`), for the
        command line to say (:mod:`kistore.cli._evidence_here`)."""
        # the work views' directory listings while an add checks, under its write lock
        # (one listing of a directory for the plan, the rules and the writer: issue 22)
        self._listings: dict[str, list[str]] | None = None
        # Store.settled answered HEAD in place of the work tree (an add held the lock):
        # Store.where then says so, not "leave out --at" to one who gave none (F14)
        self._head_for_work_tree = False
        self.uncommitted: tuple[str, ...] = ()
        """Files :meth:`init` wrote into an existing repository and left to commit."""
        self.initialised = False
        """True when :meth:`init` made the repository or wrote a file or directory of the
        store; False for a store already complete (``init --hooks`` only adds hooks)."""
        self.root: Path | None
        if path is None and "GIT_DIR" in os.environ:  # git's own rule, not the cwd's .git
            self._repo, self.root = _environment_repository()
            self.git_dir = Path(self._repo.path)
            use_repository(self.git_dir)  # its config files, before git (fresh14 F2)
            return
        plain = _plain_work_tree(start)
        if plain is not None:  # the common case, found without importing pygit2
            self.root = plain
            self.git_dir = git_dir_of(plain)  # .git, or a linked worktree's git directory
            use_repository(self.git_dir)  # its config files, before git (fresh14 F2)
            return
        failed: pygit2.GitError | None = None
        try:
            found = pygit2.discover_repository(start)
        except pygit2.GitError as e:  # a malformed .git file on the way up
            found, failed = None, e
        if found is None:
            # git stops at a .git that leads nowhere: name it (which, what it holds, what
            # to do), never "run `kistore init`", which fails on it too
            broken = _nearest_broken_dotgit(start)
            if broken is not None:
                raise StoreStateError(broken)
            if failed is not None:
                raise StoreStateError(f"git cannot open the repository around it: {failed}",
                                      file=start)
            raise StoreStateError(
                "not inside a git repository; run `kistore init PATH` or pass --store PATH",
                file=start,
            )
        self._repo = _open_around(start, found)
        workdir = self._repo.workdir
        self.root = Path(workdir) if workdir else None
        self.git_dir = Path(self._repo.path)
        use_repository(self.git_dir)  # its config files, before git (fresh14 F2)

    @property
    def repo(self) -> pygit2.Repository:
        """The pygit2 repository, opened on first use (a work-tree ``add`` never opens it)."""
        if self._repo is None:
            self._repo = open_repository(str(self.root))
        return self._repo

    def name_index(self) -> NameIndex:
        """Return the names of the derived index (``GIT_DIR/kistore/index.sqlite``).

        The file is opened on first use; when it cannot be (e.g. a read-only clone), reads
        scan the store instead (:meth:`kistore.index.names.NameIndex.usable`).
        """
        if self._name_index is None:
            self._name_index = open_name_index(self.git_dir)
        return self._name_index

    # -- creating --------------------------------------------------------------------

    @classmethod
    def init(cls, path: str | os.PathLike[str]) -> Store:
        """Create (or complete) a store at ``path``: git repo, settings, attributes, layout.

        ``path`` is the store's top directory: unless it is already the top of a git work
        tree, a new repository is created there, as ``git init PATH`` does (also inside
        another repository's work tree: the store is its own repository, never the
        enclosing one's).

        A new repository gets branch ``main``, git's ``pack.window`` set to
        :data:`kistore.git.pack.PACK_WINDOW` in its ``.git/config`` (so that ``git gc``
        deltifies the store's manifests against each other), and a first commit holding
        ``kistore.toml`` and ``.gitattributes`` and the default ranking policy
        ``store/policy/ranking.json``.
        In an existing repository missing files are written but not committed (kistore does
        not commit into a repository it did not create); the returned store's
        :attr:`uncommitted` names them, for the user to commit: until then a commit made
        there lacks them (``verify --at`` reports it). Running it twice changes nothing.

        Returns:
            The store; its :attr:`initialised` is False when it was complete already.

        Raises:
            InputError: ``path`` is a bare repository (a store needs a work tree); or, for a
                new repository, git names no author or committer for its first commit
                (:func:`kistore.git.idents.identities`): the repository just made is
                removed, and so are ``path`` and the directories above it that init made
                (fresh12 F3), never one that was there before: nothing is left.
            StoreStateError: ``path``'s ``.git`` is a file or symbolic link that leads to no
                git directory (:func:`kistore.git.refs.broken_dotgit`): nothing was written.
                Or a file init would write (``kistore.toml``, ``.gitattributes``,
                the ranking policy), or a directory above one (``store/``), or a directory
                or file the store's writes use (``store/names``, ``store/forward``,
                ``store/groups``, ``store/attestations``, ``store/trust``, its
                ``keys.json``), is a symbolic link or not what it should be: nothing was
                written
                (:func:`kistore.git.writer.refuse_links`).
        """
        root = Path(path)
        created = [d for d in (root, *root.parents) if not d.exists()]  # gone on refusal
        root.mkdir(parents=True, exist_ok=True)
        broken = broken_dotgit(root)
        if broken is not None:  # libgit2 said "internal error (AlreadyExistsError)"
            raise StoreStateError(f"cannot make a store here: {broken}")
        is_new = not _is_repository_top(root)
        known = None  # the first commit's author and committer, as git names them
        if is_new:  # as `git init PATH`: inside another repository's work tree too
            # Lazy: git.pack stays off the read paths (docs/speed.md, start-up).
            from ..git.idents import identities
            from ..git.pack import PACK_WINDOW

            repo = pygit2.init_repository(str(root), initial_head="main")
            # git's own delta window, wider: `git gc` packs the store in <= 800 bytes a
            # manifest (issue 22; kistore.git.pack.PACK_WINDOW says why).
            repo.config["pack.window"] = PACK_WINDOW
            try:  # asked of the new repository (its includeIf "gitdir:" counts), before a file
                known = identities(repo)
            except KistoreError:
                # Lazy: only where git names nobody for a new store's first commit.
                import shutil

                shutil.rmtree(repo.path)  # the repository just made: nothing is left
                for gone in created:  # deepest first; rmdir: only an empty one goes
                    try:
                        gone.rmdir()
                    except OSError:
                        break  # something else wrote there meanwhile: left as it is
                raise
        store = cls(root)
        assert store.root is not None
        # A link committed at store/, .gitattributes or kistore.toml of an existing
        # repository: init wrote through it, outside the repository (r70 F18).
        policy_file = f"{layout.POLICY_DIR}/ranking.json"
        # Lazy: git.writer stays off the read paths (docs/speed.md, start-up).
        from ..git.writer import refuse_links

        # And the directories only add, attest and trust write (review 2026-12-02, F17):
        # a link there is a store no add can write to, failing verify from its first commit.
        refuse_links(store.root, [layout.OBJECTS_DIR, layout.METADATA_DIR, layout.NAMES_DIR,
                                  layout.FORWARD_DIR, layout.GROUPS_DIR,
                                  layout.ATTESTATIONS_DIR, layout.TRUST_DIR],
                     [layout.SETTINGS_FILE, ".gitattributes", policy_file, layout.TRUST_FILE])
        written = []
        settings = store.root / layout.SETTINGS_FILE
        if not settings.exists():
            settings.write_text(SETTINGS_TEMPLATE, "utf-8")
            written.append(layout.SETTINGS_FILE)
        attributes = store.root / ".gitattributes"
        lines = attributes.read_text("utf-8").splitlines() if attributes.exists() else []
        if layout.GITATTRIBUTES_LINE not in lines:
            attributes.write_text("\n".join([*lines, layout.GITATTRIBUTES_LINE]) + "\n",
                                  "utf-8")
            written.append(".gitattributes")
        made = is_new or bool(written)
        for directory in (layout.OBJECTS_DIR, layout.METADATA_DIR):
            made = made or not (store.root / directory).is_dir()
            (store.root / directory).mkdir(parents=True, exist_ok=True)
        policy = store.root / policy_file
        if not policy.exists():  # the reviewed default ranking policy (kistore.query.policy)
            policy.parent.mkdir(parents=True, exist_ok=True)
            policy.write_bytes(_default_policy())
            written.append(policy_file)
        store.initialised = made or bool(written)
        if is_new and written:
            # git.commit loads logging (docs/speed.md, start-up).
            # Lazy: the write path: a read such as `kistore show` never writes.
            from ..git.commit import BranchCommit

            files = {p: (store.root / p).read_bytes() for p in written}
            BranchCommit(store.repo, store.root, known=known).run(files,
                                                                  "kistore init: new store")
        else:
            store.uncommitted = tuple(written)
        return store

    # -- reading ---------------------------------------------------------------------

    def view(self, at: str | None = None) -> View:
        """Return the work tree (``at=None``) or the commit ``at`` names as a :class:`View`.

        Raises:
            InputError: when ``at`` names no commit.
        """
        if at is None and self.root is not None:
            return self._work_view(self.root)
        view = CommitView(self.repo, self.commit(at or "HEAD"), self.name_index())
        rev = str(view.commit.id)
        # KI212's advice along this commit's history (catname98: `show --at REV` gave the
        # general `git checkout HEAD -- FILE`, which restores nothing of a committed rename)
        view.name_back = lambda kind, name, owner: self.name_back(kind, name, owner, rev)
        return view

    def settled(self, at: str | None = None, *, wait_s: float = WORK_TREE_WAIT_S) -> Settled:
        """Return the revision a read of ``at`` answers from once no add is writing it.

        The work tree (``at`` None) while git's ``.git/index.lock`` is held (an ``add
        --commit``, or a git command, is writing it) is waited for up to ``wait_s``, then
        read as ``HEAD``, with a note saying so (:mod:`kistore.store._settled`); a commit
        is answered as asked. The queries of the command line ask it (``ls``, ``rank``,
        ``show``, ``compare``, ``cat``, ``cite``, ``attestations``); ``export`` and
        ``site build`` read a commit (``--at``, default ``HEAD``) and never the work tree.

        Verifications do not: ``kistore verify`` (and ``check``, the hooks' gate) judge the
        files they are asked about, so answering for ``HEAD`` would report "ok" of files
        never checked; and ``git commit`` holds the index lock while its ``pre-commit`` hook
        runs, so each hook's check would wait ``wait_s`` and then check the wrong tree.

        Args:
            at: the revision asked for (None: the work tree).
            wait_s: how long a held lock is waited for, in seconds.

        A plain ``kistore add`` (or ``migrate``) takes no git lock but holds the store's
        write lock (:meth:`write_lock_held`) while it writes: the work tree is read then as
        it is, and the note warns that the answer may include that add in progress (review
        r75 F6). Free, that look is an ``open``, a ``flock`` and a ``close`` of the lock
        file (one failed ``open`` where no add ever ran): a few microseconds.

        Returns:
            :class:`Settled`: ``at``, or ``"HEAD"`` in place of the work tree while the lock
            stays held (its ``note`` names the lock file and how to remove a stale one);
            the work tree with a note while a kistore writer of this work tree holds the
            write lock. No work tree (a bare repository): ``at`` as asked.
        """
        settled = settled_at(None if self.root is None else self.git_dir, at, wait_s=wait_s)
        if at is None and settled.at is not None:
            self._head_for_work_tree = True
        elif at is None and self.root is not None:
            lock = self.write_lock_held()
            holder = self.write_lock_holder() if lock is not None else None
            if lock is not None and (holder is None or os.path.realpath(holder[1])
                                     == os.path.realpath(self.root)):  # not another worktree's
                return Settled(None, writing_note(lock))
        return settled

    def settled_view(self, at: str | None = None, *, wait_s: float = WORK_TREE_WAIT_S
                     ) -> tuple[View, str | None]:
        """Return :meth:`view` of the :meth:`settled` revision, and its note.

        Args:
            at: the revision asked for (None: the work tree).
            wait_s: as :meth:`settled`.

        Returns:
            ``(view, note)``: the work tree's view, ``HEAD``'s (``note`` says why) while an
            add writes the work tree, or the commit ``at``'s.

        Raises:
            InputError: ``at`` names no commit (or ``HEAD`` none, when the note is given).
        """
        settled = self.settled(at, wait_s=wait_s)
        return self.view(settled.at), settled.note

    def linked_dirs(self) -> list[str]:
        """Return the symlinked directories of the work tree this store's reads left out.

        A directory of the work tree that is a symbolic link is never read through or listed
        (:meth:`WorkTreeView.linked_dir`): what lies under it was read as absent, and the
        caller says so (the command line warns once, at the end of the command). Every
        work-tree view this store made records into one set; views made elsewhere keep
        their own (:attr:`WorkTreeView.linked`).

        Returns:
            The directories' repository paths (``store/metadata/sha256/6b``), sorted; empty
            when no read met one.
        """
        return sorted(self._linked)

    def work_tree_busy(self) -> bool:
        """Return True when git's ``.git/index.lock`` is held now (one ``lstat``).

        An answer read from the work tree that found files being written (they did not
        verify) can say why: an add began writing while it was read.
        """
        return self.root is not None and os.path.lexists(index_lock(self.git_dir))

    def write_lock_held(self) -> Path | None:
        """Return the store's write lock file when a kistore writer holds it now, else None.

        Every ``kistore add`` (a plain one too, which takes no git lock) and ``migrate``
        holds it from its checks until its last file is written (:meth:`_write_lock`): a
        ``verify`` of the work tree meanwhile read files caught between two writes (review
        R72-8). A writer killed holds nothing, so no stale lock is ever reported; a writer
        of another linked worktree of the repository holds the same lock
        (:func:`kistore.store._write_lock.held`).

        Returns:
            The lock file's path (``kistore-write.lock`` in the common git directory), or
            None: no writer, no work tree, or no such file (no add ever ran here).
        """
        if self.root is None:
            return None
        lock = self._write_lock_path()
        return lock if _write_lock.held(lock) else None

    def write_lock_holder(self) -> tuple[int, str] | None:
        """Return who holds the store's write lock, as the holder wrote it in the lock file.

        :meth:`_write_lock` writes ``<pid> <work tree>`` into the file once it holds the
        lock and empties it before letting go, so that a ``verify`` in another linked
        worktree of the repository (which shares the lock) can say the add is not in its
        own work tree. Call it while :meth:`write_lock_held` says held: a holder whose line
        is not there yet (between its ``flock`` and its write) is waited for, up to
        :data:`kistore.store._write_lock.HOLDER_WAIT_S` (:func:`kistore.store._write_lock.holder`).

        Returns:
            ``(process id, work tree path)`` of a live process; None when the file is
            absent, says no live holder (no holder, a killed one's line, or a kistore from
            before this, which writes none), or is not in that form.
        """
        return _write_lock.holder(self._write_lock_path())

    def _write_lock_path(self) -> Path:
        """Return ``kistore-write.lock`` in the git directory all worktrees share."""
        return common_git_dir(Path(self.git_dir)) / "kistore-write.lock"

    def not_checked_out(self) -> str | None:
        """Say where to read instead when the work tree lacks the store ``HEAD`` holds.

        A ``git clone --no-checkout`` (often with ``--filter=blob:none``) has a branch and
        no files: every work-tree answer would be "missing", though any commit answers
        (``--at``). A sparse checkout is not this: its view reads what it leaves out from
        ``HEAD``.

        Returns:
            None when there is no work tree, ``HEAD`` is unborn or holds no ``store/``, or
            the work tree has a ``store/`` folder; else the revision to name with ``--at``
            for the same answers: the current branch's upstream (``origin/main``) when it
            is at ``HEAD``'s commit, else ``HEAD`` (no upstream, or a branch ahead of or
            behind it: the upstream would answer for another commit).
        """
        if self.root is None or (self.root / layout.STORE_DIR).exists() or \
                self.skipped() is not None:
            return None
        repo = self.repo
        if repo.head_is_unborn or layout.STORE_DIR not in self.commit("HEAD").tree:
            return None
        if repo.head_is_detached:
            return "HEAD"
        branch = repo.branches.local.get(repo.head.shorthand)
        try:
            upstream = None if branch is None else branch.upstream
        except (KeyError, pygit2.GitError):  # a configured upstream that is not fetched
            upstream = None
        if upstream is None or upstream.target != repo.head.target:
            return "HEAD"
        return str(upstream.shorthand)

    def require_checkout(self, command: str | None = None, *, writes: str | None = None
                         ) -> None:
        """Refuse a work-tree command in a clone that is not checked out, saying what works.

        In a ``git clone --no-checkout`` (:meth:`not_checked_out`) every work-tree file is
        "missing": a command would report each (``verify``: a KI402 per object), answer
        nothing (``trust list``), or write files beside nothing (``attest --file``).

        Args:
            command: the command as the hint names it (``kistore verify``); None: the hint
                names its ``--at`` alone (the command was typed just before).
            writes: for a command that cannot answer from a commit, what it needs of the
                work tree (``reads the manifest ...``); the hint is then to check the files
                out, not ``--at``.

        Raises:
            StoreStateError: the work tree is not checked out: answer from the commit with
                ``--at`` the branch's upstream (or ``HEAD``), which gives the same answers, or
                check the files out first (``git checkout HEAD -- .``).
        """
        instead = self.not_checked_out()
        if instead is None:
            return
        where = (f"the work tree is not checked out (HEAD holds {layout.STORE_DIR}/, the work "
                 "tree has none)")
        checkout = "check the files out first with `git checkout HEAD -- .`"
        if writes is not None:
            raise StoreStateError(f"{where}: `{command}` {writes}: {checkout}")
        asked = f"{command} --at {instead}" if command else f"--at {instead}"
        raise StoreStateError(
            f"{where}: answer from the commit with `{asked}`, which gives the same answers (in "
            f"a blob-less clone it fetches only the files it reads), or {checkout}")

    def require_checkout_to_write(self, command: str) -> None:
        """Refuse a write into a work tree that lacks the store ``HEAD`` holds.

        :meth:`add` (``kistore add``), :meth:`migrate` (``kistore migrate``) and
        :func:`kistore.importers.run_import` (``kistore import``) ask it before anything
        is read or written: in a ``git clone --no-checkout`` they would write beside an
        empty work tree and check names against it, so a name ``HEAD`` gives another
        manifest would be taken. ``kistore add`` and ``import`` ask it too, before reading
        their input, so a refused command reads nothing.

        A bare repository (no work tree at all) is refused here too, naming ``command``
        and the clone to make (new-user review 2026-12-02: ``import`` and ``migrate`` said
        "`add` needs one", and none said what to do). It also refuses a store whose
        ``kistore.toml`` sets a ``[store] version`` other than the one this kistore writes
        (:data:`kistore.core.settings.STORE_VERSION`): a store of a newer kistore's layout
        is not written into by this one (:meth:`Settings.refuse_other_version`).

        Args:
            command: the command as the message names it (``kistore add``).

        Raises:
            StoreStateError: a bare repository: the command writes into a work tree; clone
                the repository with one (``git clone GIT_DIR DIR``) and run it there. Or the
                work tree is not checked out: the command :data:`WRITES_BESIDE_HEAD`; check
                the files out first (``git checkout HEAD -- .``); or ``[store] version`` is
                not this kistore's (the message names both versions and says to upgrade
                kistore).
        """
        if self.root is None:
            raise StoreStateError(no_work_tree(command, self.git_dir))
        self.require_checkout(command, writes=WRITES_BESIDE_HEAD)
        self.settings().refuse_other_version(command)

    def skipped(self) -> SkipWorktree | None:
        """Return the store paths a sparse checkout leaves out (None: not a sparse checkout).

        :func:`kistore.git.sparse.skip_worktree`: one ``stat`` unless sparse checkout is on.

        Raises:
            StoreStateError: it is on and git could not list its index.
        """
        return None if self.root is None else skip_worktree(self.git_dir, self.root)

    def _work_view(self, root: Path) -> WorkTreeView:
        """Return the work tree's view; in a sparse checkout files outside it as the index's.

        ``HEAD``'s, with any change staged there (:class:`StagedView`).
        """
        skipped = self.skipped()
        if skipped is None:
            return self._advising(WorkTreeView(root, self.name_index(), linked=self._linked,
                                               listings=self._listings))

        def head() -> View | None:
            if self.repo.head_is_unborn:
                return None
            if skipped.staged:
                return StagedView(self.repo, self.commit("HEAD"), skipped.staged)
            return CommitView(self.repo, self.commit("HEAD"))

        return self._advising(SparseWorkTreeView(root, skipped, head, self.name_index(),
                                                 linked=self._linked))

    def _advising(self, view: WorkTreeView) -> WorkTreeView:
        """Return the work tree's ``view`` given the store's answers its advice asks for.

        What HEAD holds and its history (:meth:`head_has`, :meth:`head_read`,
        :meth:`last_holding`, :meth:`name_back`) and git's index (:meth:`unmerged`): each
        asked only when a message says how to repair a file.
        """
        view.head_has, view.unmerged = self.head_has, self.unmerged
        view.last_holding = self.last_holding
        view.head_read = self.head_read
        view.name_back = self.name_back
        return view

    def limits(self, at: str | None = None) -> Limits:
        """Return the size limits the store's ``kistore.toml`` sets (``[limits]``).

        Read through :meth:`view`: from the work tree (in a sparse checkout that leaves the
        file out, as git's index holds it: ``HEAD``'s, or a change staged to it), or from
        the commit ``at`` (``HEAD`` in a bare repository): :meth:`settings`. A store
        without the file, the table or a commit uses :data:`kistore.core.limits.DEFAULT`
        (1 MiB a manifest).

        Raises:
            InputError: kistore.toml is not UTF-8 TOML, or ``[limits]`` holds an unknown key
                or a value that is not a positive integer (the work tree's file named by
                its path, a commit's by ``kistore.toml``); or it is there but not a regular
                file (a symlink is never followed, as git commits it: refused, not taken
                for no file).
            MultipleErrors: several keys of ``[limits]`` are bad (an ``InputError`` each).

        A table, or a key of ``[store]`` or ``[cite]``, kistore does not read is refused as
        a bad key is (:meth:`Settings.unread_problems`: ``[limit]`` meant to lower a limit
        lowers nothing), with its line and column.
        """
        limits, problems = self.limits_per_key(at)
        if len(problems) > 1:
            raise MultipleErrors(problems)
        if problems:
            raise problems[0]
        return limits

    def limits_per_key(self, at: str | None = None) -> tuple[Limits, list[KistoreError]]:
        """Return the size limits as :meth:`limits` reads them, each bad key at its default.

        What reads the store under a bad ``kistore.toml`` rather than refuse it (queries,
        ``verify``, which reports it: KI108): each valid key of ``[limits]`` applies, each
        bad one keeps its default (:meth:`kistore.core.limits.Limits.from_toml_per_key`).

        Returns:
            ``(limits, problems)``: the problems :meth:`limits` raises, one per bad key
            (file, JSON Pointer ``/limits/KEY``, what is wrong); a file that does not parse
            at all (not UTF-8 TOML, ``[limits]`` no table) is one problem, with every limit
            at its default. Then each table, and key of ``[store]`` or ``[cite]``, kistore
            does not read (:meth:`Settings.unread_problems`, placed at its line), which
            changes no limit. No problem: :meth:`limits`' limits.

        Raises:
            InputError: kistore.toml is not a regular file (:meth:`settings_file`: its
                settings are unknown, never taken for the defaults).
        """
        settings = self.settings(at)
        limits, problems = settings.limits_per_key()
        return limits, problems + settings.unread_problems()

    def version_problems(self, at: str | None = None) -> list[InputError]:
        """Return what a query says of the ``[store] version`` of :meth:`limits_per_key`'s file.

        :meth:`Settings.version_problems` (a newer kistore's store: answers may be
        misread) of the file the limits are read from.

        Args:
            at: a revision (a query ``--at REV``): its ``kistore.toml``, as its limits
                (review01 L5: the work tree's was read, so ``--at REV`` warned of an
                uncommitted edit and not of REV's own version); None: the work tree's
                (a bare repository's: ``HEAD``'s).

        Returns:
            Empty when the version is this kistore's, not set, or the file does not parse
            (its limits' problems say so).

        Raises:
            InputError: kistore.toml is not a regular file (as :meth:`limits_per_key`).
        """
        return self.settings(at).version_problems()

    def require_store(self, at: str | None = None) -> None:
        """Refuse a repository that is no store: neither ``kistore.toml`` nor ``store/``.

        What every reading command asks first (:meth:`kistore.cli.StoreContext.read_store`):
        ``ls`` in a git repository that ``kistore init`` never touched printed nothing and
        exited 0, ``rank``/``show`` said "no object with digest prefix ..." and ``verify``
        reported only ``.gitattributes`` (review 2026-12-03). A store that lost one of the
        two is still a store (``verify`` reports what it lacks).

        Args:
            at: what the command reads: the work tree (None) or a commit.

        Only names are looked at (a commit's trees, never a blob: a query at a commit
        whose kistore.toml blob is lost still answers, as it did).

        Raises:
            StoreStateError: neither is there, naming the repository (and the commit) and
                saying to run ``kistore init``. Nothing raised when there is no commit to
                read, or the work tree is a clone not checked out (:meth:`not_checked_out`):
                the command says those itself; nor when a commit or tree on the way is
                damaged or missing (the command's own read reports it, with its context).
        """
        work_tree = at is None and self.root is not None
        try:
            view = self.view(None if work_tree else at or "HEAD")
        except (InputError, ObjectUnreadable):  # no such commit, none yet, or damage: the
            return  # command's own reading says it (verify as a KI117 finding, with the pack)
        if view.modes_of([layout.SETTINGS_FILE]) or view.list_dir(layout.STORE_DIR):
            return
        if work_tree and self.not_checked_out() is not None:
            return
        where = str(self.root) if self.root is not None else str(self.git_dir)
        whose = "" if work_tree else f" at {at or 'HEAD'}"
        raise StoreStateError(
            f"a git repository, but not a kistore store: it holds no {layout.SETTINGS_FILE} "
            f"and no {layout.STORE_DIR}/ directory{whose}; `kistore init {where}` makes it "
            "one, or pass --store PATH of a store", file=where)

    def settings(self, at: str | None = None) -> Settings:
        """Return the store's ``kistore.toml``, read once and parsed once per distinct bytes.

        The file :meth:`settings_file` reads (the work tree's, else the commit ``at``'s),
        parsed into a :class:`kistore.store.Settings`, whose methods answer the limits, the
        problems KI108 reports and the store version. Bytes this store object parsed before
        (whichever file held them) are not parsed again: ``add --commit`` asks for the work
        tree's settings four times (the version twice, the limits, the committed-limits
        check) and HEAD's once, and parses once when the two files hold the same bytes. A caller
        holding the value passes it on rather than ask again (the gate: one read of each
        revision's file).

        Returns:
            The settings (no commit yet, or none at ``at``: the defaults); never raises for
            a bad file: its problems are kept (a file that is not a regular file:
            :attr:`Settings.unreadable`).
        """
        # Lazy: an answer from the index reads no setting (a fresh `rank`: issue 22)
        from ._settings import Settings

        try:
            data, file = self.settings_file(at)
        except InputError as e:  # not a regular file (settings_file raises nothing else)
            return Settings.not_regular(e, e.file or layout.SETTINGS_FILE)
        parsed = self._parsed.get(data or b"")
        if parsed is not None:  # the same bytes (the work tree's and HEAD's, most often)
            return Settings(data, file, parsed)
        # a commit's file (named kistore.toml, not by its path): its fix is a new commit
        committed = (at or "HEAD") if file == layout.SETTINGS_FILE else None
        settings = Settings.from_bytes(data, file, at=committed)
        if settings.parsed is not None:  # a bad file is parsed again: its errors name it
            if len(self._parsed) >= 8:  # a few revisions' files at most: keep it small
                self._parsed.clear()
            self._parsed[data or b""] = settings.parsed
        return settings

    def settings_file(self, at: str | None = None) -> tuple[bytes | None, str]:
        """Return the bytes of the store's ``kistore.toml`` and the name errors give it.

        Read through :meth:`view` as :meth:`limits` says: the work tree's file (named by
        its path), else the commit ``at``'s (``HEAD`` in a bare repository, or in a clone
        not checked out, :meth:`not_checked_out`; named ``kistore.toml``). Only a regular
        file is read: a symlink is never followed (git commits the path it holds, not the
        settings; in the work tree it may point anywhere).

        Read once a store object (a command: ``site build`` read HEAD's twice and the work
        tree's up to three times): a commit's bytes are kept by its id (they never
        change), the work tree's with the file's change key
        (:func:`~kistore.index.freshness.stat_key`, one ``lstat`` a call), and only while
        that key holds and the file was not changed within the last
        :data:`~kistore.index.freshness.RACY_NS` (a change in the same clock tick would
        keep its mtime: read again, as git reads a racily clean file). A sparse
        checkout's work-tree file, and no file, are read each time.

        Returns:
            ``(bytes, name)``; bytes None when there is no such file (or no commit yet).

        Raises:
            InputError: something other than a regular file is there (a symlink, a
                directory, a submodule, a FIFO): kistore would otherwise use the default
                settings while the store's own said otherwise; the error names the file and
                says to put the file itself in its place.
        """
        commit: str | None = None  # None: the work tree's
        key, change = "", None  # where the bytes are kept, and their change key (None: not)
        if at is None and self.root is not None:
            view = self.view(None)
            file = str(self.root / layout.SETTINGS_FILE)
            if type(view) is WorkTreeView:  # a sparse checkout's may read HEAD's instead
                change = _settled_change(file)
        else:
            commit = at or "HEAD"
            try:
                view = self.view(commit)
            except InputError:  # no commit yet (an empty bare repository)
                return None, layout.SETTINGS_FILE
            file = layout.SETTINGS_FILE
            if isinstance(view, CommitView):
                key, change = str(view.commit.id), ""  # a commit's bytes never change
        kept = self._settings_read.get(key)
        if change is not None and kept is not None and kept[0] == change:
            return kept[1]
        data = view.read(layout.SETTINGS_FILE)
        if data is not None:
            if change is not None:
                if len(self._settings_read) >= 8:  # a few revisions' files at most
                    self._settings_read.clear()
                self._settings_read[key] = (change, (data, file))
            return data, file
        mode = view.modes_of([layout.SETTINGS_FILE]).get(layout.SETTINGS_FILE)
        if mode is None and (view.list_dir(layout.SETTINGS_FILE) or (
                commit is None and os.path.isdir(file))):  # an empty one lists nothing
            mode = 0o040000
        if mode is None:
            if commit is None and self.not_checked_out() is not None:
                # a `git clone --no-checkout`: the store's settings are HEAD's, as a bare
                # repository reads them (the defaults answered otherwise than a checkout)
                return self.settings_file("HEAD")
            return None, file
        what = {0o120000: "a symlink", 0o040000: "a directory", 0o160000: "a submodule"
                }.get(mode, "a FIFO, socket or device")
        if commit is not None:
            what += f" in the commit {commit}"
            fix = "commit the file itself in its place"
        elif mode == 0o120000:
            fix = ("replace the link with the file (`cp --remove-destination \"$(readlink "
                   "kistore.toml)\" kistore.toml`) and commit that")
        else:
            fix = "put a regular kistore.toml in its place"
        raise InputError(
            f"{what}, not a regular file: kistore reads its settings only from a regular "
            "file (it never follows a symlink: git commits the path a link holds, not the "
            f"settings) and will not use the defaults in their place; {fix}", file=file)

    def commit(self, rev: str) -> pygit2.Commit:
        """Return the commit a revision names (``HEAD``, a branch, a tag, an id).

        Raises:
            InputError: when ``rev`` names no commit.
            ObjectUnreadable: the commit (or a commit on the way, ``HEAD~2``) is damaged, or
                missing (the branch points at a commit the repository lacks).
            StoreStateError: a ``--filter=tree:0`` clone could not fetch the commit's trees
                (:func:`kistore.git.blobs.fetch_trees`).
        """
        read_revision_guarded(self.repo, rev)  # a cut loose commit: libgit2 loops (F3)
        try:  # a name not UTF-8 given as its id: pygit2 cannot encode it (upd98)
            named = self.repo.revparse_single(libgit2_revision(self.repo, rev) or rev)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as e:
            damaged = damage(e) if isinstance(e, pygit2.GitError) else None
            if damaged is not None and not str(e).startswith(("revspec", "invalid")):
                raise damaged from e  # named, but damaged (the repository is: git fsck)
            gone = missing_target(self.repo, rev)
            if gone is not None:
                raise gone from None  # a branch pointing at a commit not here (r72-11)
            unborn = self._unborn_head(rev)
            raise InputError(unborn or (
                f"no commit named '{one_line(rev)}' in this repository: give a branch, a tag "
                "or a commit id (`git log --oneline` lists commits)")) from None
        try:
            commit = named.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            raise InputError(
                f"{rev!r} names a {named.type_str} ({str(named.id)[:12]}), not a commit: "
                "give a branch, a tag or a commit id") from None
        fetch_trees(self.repo, [str(commit.tree_id)])  # a tree:0 clone's: in one fetch
        return commit

    def _unborn_head(self, rev: str) -> str | None:
        """Say why ``HEAD`` names no commit when its branch has none yet, else None.

        A ``git init --bare`` without ``-b main`` points ``HEAD`` at ``master`` (or
        ``init.defaultBranch``); a push of ``main`` leaves it unborn (review 2026-12-02,
        F27). The message names the unborn branch, the branches there are, and the two
        ways on: ``--at BRANCH``, or ``git symbolic-ref HEAD refs/heads/BRANCH``.

        Args:
            rev: the revision that named no commit.

        Returns:
            The message, or None when ``rev`` is not ``HEAD`` or ``HEAD`` is not unborn.
        """
        if rev != "HEAD":
            return None
        try:
            if not self.repo.head_is_unborn:
                return None
            target = str(self.repo.references["HEAD"].target)
            branches = sorted(self.repo.branches.local)
        except (KeyError, ValueError, pygit2.GitError):
            return None
        shown = printable(target.removeprefix("refs/heads/"))
        if not branches:
            return (f"HEAD names the branch {shown!r}, which has no commit yet, and this "
                    "repository has no branch with a commit: push or commit one first")
        one = printable(branches[0])
        return (f"HEAD names the branch {shown!r}, which has no commit yet (an unborn branch: "
                "a `git init --bare` without `-b main` makes one); the branches here are "
                f"{', '.join(printable(b) for b in branches)}: give one (`--at {one}`), or "
                f"point HEAD at it (`git symbolic-ref HEAD refs/heads/{one}`)")

    def resolve(self, ref: str, *, at: str | None = None, nameless: bool = False) -> Digest:
        """Resolve what a person typed to one stored digest.

        Args:
            ref: a full digest, a unique prefix of at least 8 hex digits (``sha256:``
                optional), or ``KIND/NAME`` (e.g. ``BenchmarkRun/sol-submission-20464``).
            at: revision to read, or None for the work tree.
            nameless: ``KIND/NAME`` also names a manifest whose metadata file is missing or
                holds no name, through its names file (:meth:`View.named`): for a command
                that reads the intact object (``cat``).

        ``KIND/NAME`` is answered from its names file (``store/names/KIND/XX/NAME``), one
        path read, then checked against the owner's metadata and object; a store without
        ``store/names/`` (never migrated) asks the index's names instead.

        Raises:
            ResolutionError: nothing matches, or a prefix matches several objects (the
                message lists the candidates).
            NamesFileDisagrees: the names file of ``KIND/NAME`` names a manifest of
                another kind or name, or holds no digest (KI212): not trusted.
            InputError: ``ref`` has none of the three forms (a kind in another case, such
                as ``benchmarkrun/NAME``, is answered "did you mean BenchmarkRun/NAME?").
        """
        view = self.view(at)
        kind, slash, name = ref.partition("/")
        if slash and kind in KINDS and not layout.is_name(name.lower()):  # `..`, `a/b`: none
            # (upper case is answered below: "names are lowercase", with the name meant)
            meant = _meant_name(view, kind, name)
            raise InputError(  # (not "no such name: reindex", which cannot help, r89 F8)
                f"{ref!r} is not a reference: {name!r} is not a valid name (lower-case "
                "letters, digits, '.' and '-', starting and ending with a letter or digit)"
                + (f"; did you mean {kind}/{meant}?" if meant else ""))
        if slash and kind in KINDS and view.has_names_files():
            # names as paths: one names file, checked against its owner (no index opened)
            digest = view.named(kind, name, nameless=nameless)
            if digest is None:
                raise ResolutionError(f"no {kind} named {name!r} {self.where(at)}")
            return digest
        if slash and kind in KINDS:  # a store never migrated: the index's names
            digest = view.name_owners([(kind, name)]).get((kind, name))
            if digest is not None and view.name_index is not None and view.scope == "work" and \
                    not _has_name(view, digest, name):  # its metadata was rewritten in place
                with contextlib.suppress(sqlite3.Error):  # derived: the next sync re-reads
                    view.name_index.forget(view.scope, digest)
                digest = view.name_owners([(kind, name)]).get((kind, name))
            if digest is None:
                raise ResolutionError(f"no {kind} named {name!r} {self.where(at)}")
            return digest
        prefix = parse_prefix(ref)
        if prefix is None and ref != ref.lower() and parse_prefix(ref.lower()) is not None:
            raise InputError(f"{ref!r} is not a reference: digests are lower-case hex: "
                             f"{ref.lower()}")  # as some tools print them (r89 F8)
        if prefix is None:
            near = nearest_kind(kind) if slash else None
            if near is not None and near.casefold() == kind.casefold():
                # `benchmarkrun/NAME`: kinds are spelt in CamelCase (review r88 F9)
                raise InputError(f"{ref!r} is not a reference: {kind!r} is not a kind; "
                                 f"{_meant_ref(view, near, name)}")
            held = _kinds_naming(view, ref) if not slash else []
            if held:  # a bare name: say whose it is (review r85 F21)
                named = " and ".join(f"{kind}/{ref}" for kind in held)
                raise InputError(f"{ref!r} is not a reference but a name: give KIND/NAME "
                                 f"({named})")
            pathed = _meant_by_path(view, ref) if not near else None
            raise InputError(
                f"{ref!r} is not a reference: give a digest (sha256:<64 hex>), a prefix of at "
                f"least 8 hex digits, or KIND/NAME with KIND one of {', '.join(KINDS)}"
                + (f" ({_meant_ref(view, near, name)})" if near else "")
                + (f" (did you mean {pathed}?)" if pathed else "")
            )
        if len(prefix) == 64 and view.scope == "work":
            digest = Digest(prefix)
            # its two files are read next (read, show): one fetch in a partial clone where
            # they lie outside a sparse checkout, not a lazy `git cat-file` each
            view.prefetch((layout.object_path(digest), layout.metadata_path(digest)))
            if view.has_object(digest):
                return digest  # a whole digest: one stat, not a listing of its shard
        candidates = _shard_digests(view, prefix)
        if at is not None and not any(d.hex.startswith(prefix) for d in candidates):
            # the commit read, as the by-name form says it (fresh00 LOW)
            raise ResolutionError(f"no object with digest prefix {prefix} {self.where(at)}")
        return match_prefix(prefix, candidates)

    def kinds_naming(self, name: str, *, at: str | None = None) -> list[str]:
        """Return the kinds of which a manifest named ``name`` is stored, in :data:`KINDS` order.

        Args:
            name: a name (``sol-kernel-3-submission-42126``).
            at: revision to read, or None for the work tree.

        Returns:
            Each kind holding ``name`` (a names file each where names are paths, else the
            index's names); damaged names files are passed over (the lookup of
            ``KIND/NAME`` itself reports them).
        """
        return _kinds_naming(self.view(at), name)

    def meant_reference(self, text: str, kind: str) -> tuple[Digest, str] | None:
        """Return the one stored manifest of ``kind`` a reference written in a manifest means.

        A run's ``*Digest`` field must hold the whole digest (it is what the run's own
        digest, and any signature over it, covers), but people write it as they type a
        reference on the command line: a prefix (``sha256:134b31b5``), ``KIND/NAME``, a
        bare name, in upper case; or they copy it with one hex digit wrong. Each is read
        as :meth:`resolve` reads a command line's reference (one module owns that), after
        NFKC (a fullwidth ``３`` is ``3``) and with every white space taken out (a stray
        space, ``sha256: 134b...``: no digest or name holds one); a digest that names
        nothing is tried one slip away (:func:`kistore.core.digest.one_slip_away`: a
        digit wrong, one extra, one left out, a non-hex character where a digit was, two
        adjacent digits swapped; at most 1,023 stats, only when a run was refused or
        recorded dangling), then two digits off among the stored digests sharing its
        first two (:func:`kistore.core.digest.two_digits_off`: one listing of that
        shard; a typo in those two is not found). Never applied: the caller offers it,
        and only the one match (reviewer r90b F6; r91 F2: the space, extra, non-hex and
        fullwidth digits were not tried; r92 F4: a swap and two wrong digits).

        Args:
            text: what the field holds.
            kind: the kind the field names (``Workload`` for ``workloadDigest``).

        Returns:
            ``(digest, name)`` of the one manifest of ``kind`` in the work tree so read, or
            None when none or several are (or ``text`` already names one exactly).
        """
        written, text = text, "".join(unicodedata.normalize("NFKC", text).split())
        if self.root is None or not text:
            return None
        view = self.view(None)
        lowered = text.lower()
        written_kind, slash, name = text.partition("/")
        tries = [text] if text == lowered and not slash else [lowered]
        if slash:
            near = written_kind if written_kind in KINDS else nearest_kind(written_kind)
            tries = [f"{near}/{name.lower().strip()}"] if near == kind else []
        elif parse_prefix(lowered) is None:
            tries = [f"{kind}/{lowered}"]  # a bare name
        found: set[Digest] = set()
        for ref in tries:
            with contextlib.suppress(KistoreError, sqlite3.Error, OSError):
                found.add(self.resolve(ref))
        if not found and not slash:
            hex_written = lowered.removeprefix("sha256:")
            found = {d for hex_ in one_slip_away(hex_written)
                     if view.has_object(d := Digest(hex_))}
            if not found and len(hex_written) == 64:  # two digits off: one listing
                shard = f"{layout.OBJECTS_DIR}/{hex_written[:2]}"
                stored = [layout.digest_from_path(f"{shard}/{leaf}")
                          for leaf in view.list_dir(shard)]
                found = {Digest(h) for h in two_digits_off(
                    hex_written, [d.hex for d in stored if d is not None])}
        if len(found) != 1:
            return None
        digest = found.pop()
        if str(digest) == written:
            return None
        try:
            manifest = view.manifest(digest, schema=False)
        except (KistoreError, OSError):
            return None
        return (digest, manifest.name) if manifest.kind == kind else None

    def meant_references(self, problems: Sequence[KistoreError]) -> list[KistoreError]:
        """Add to each refused reference of a run the stored manifest it likely means.

        Args:
            problems: an add's problems; those carrying a reference (a
                :class:`~kistore.core.errors.SchemaError` with ``written``, a
                :class:`~kistore.core.errors.ResolutionError` with ``missing``) get "did
                you mean sha256:<64 hex> (KIND/NAME)?" (:meth:`meant_reference`), the
                digest in full, to be written by hand, as their suggestion
                (:meth:`~kistore.core.errors.MeantError.suggest`: before the advice); the
                others are left as they are.

        Returns:
            ``problems``, as a list (changed in place). Each reference is looked up once,
            and at most :data:`MEANT_ASKED` of them (a bulk add of 10,000 runs naming one
            missing environment costs one search, not 10,000).
        """
        # Lazy: the reference fields' kinds, only when a refused add is reported.
        from ..core.model import REFERENCE_KINDS

        asked: dict[tuple[str, str], tuple[Digest, str] | None] = {}
        for problem in problems:
            written = getattr(problem, "written", None)
            pairs = [written] if written else list(getattr(problem, "missing", ()))
            said = []
            for field_name, text in pairs:
                kind = REFERENCE_KINDS.get(field_name)
                if kind and (kind, text) not in asked and len(asked) < MEANT_ASKED:
                    asked[kind, text] = self.meant_reference(text, kind)
                meant = asked.get((kind or "", text))
                if meant is not None:
                    said.append(f"{field_name}: did you mean {meant[0]} ({kind}/{meant[1]})?")
            if said and isinstance(problem, MeantError):  # before its advice, said once
                problem.suggest(f"{'; '.join(said)} (write the whole digest there yourself: "
                                "kistore never rewrites a manifest, whose digest is what its "
                                "contributor signs)")
        return list(problems)

    def refuse_output_inside(self, out: str | os.PathLike[str], *,
                             writes: Collection[str] = (), inside_work_tree: bool = False) -> None:
        """Refuse an output directory (an export, a site) inside ``store/`` or the git dir.

        Everything under ``store/`` is the layout's (``verify`` reports any other file as
        KI110) and ``.git`` is git's: written there, an export or a site would break the
        store it was made from (new-user review 2026-12-02 F22). Links are resolved first.
        Elsewhere in the work tree, unless ``inside_work_tree``, an output git does not
        ignore is refused too: its files (a site is thousands) are untracked, one ``git
        add -A`` commits them beside the store, and the gate, which judges ``store/``,
        lets them through (reviewer r85 F8). So is one outside this work tree but inside
        the work tree of another store that encloses it (its nearest git work tree holds
        ``kistore.toml`` or ``store/objects``: a store made inside a kistore clone, and
        ``site build ../public`` written into the clone, fresh98 LOW); a git work tree
        that is no store is not judged (a home directory kept in git would refuse every
        output). The directory a refusal suggests is outside every such work tree.

        Args:
            out: the directory the command would write (it may not exist yet).
            writes: files the command writes under ``out`` (relative): git must ignore
                each for ``out`` to be accepted inside the work tree
                (:func:`kistore.git.ignored.output_ignored`); empty: not checked.
            inside_work_tree: accept ``out`` anywhere in the work tree but ``store/``.

        Raises:
            InputError: ``out`` is, or is inside, the work tree's ``store/`` directory or
                the repository's git directory; or (``writes`` given, ``inside_work_tree``
                not) it is inside the work tree, or another store's enclosing it, and git
                does not ignore what it would write there. Nothing was written.
            StoreStateError: git could not be run to ask what it ignores.
        """
        target = Path(os.path.realpath(out))
        kept = [(Path(os.path.realpath(self.git_dir)), "the repository's git directory")]
        if self.root is not None:
            kept.append((Path(os.path.realpath(self.root / layout.STORE_DIR)),
                         f"the store's {layout.STORE_DIR}/ directory, which holds only its "
                         "layout's files (`kistore verify` would report each new one)"))
        for directory, what in kept:
            if target == directory or directory in target.parents:
                raise InputError(f"is inside {what}; choose a directory outside it",
                                 file=str(out))
        if self.root is None or inside_work_tree or not writes:
            return
        root = Path(os.path.realpath(self.root))
        whose, ignores = "the store's git work tree", ".gitignore"
        if target != root and root not in target.parents:
            outer = _enclosing_store(target)
            if outer is None or outer == root:
                return
            root, whose = outer, "the git work tree of another store,"
            ignores = str(outer / ".gitignore")
        # Lazy: runs `git check-ignore`, only for an output inside the work tree.
        from ..git.ignored import output_ignored

        rel = target.relative_to(root).as_posix()
        if output_ignored(root, "" if rel == "." else rel, writes):
            return
        example = "" if rel == "." else f" (such as {_outside_stores(root, target.name)})"
        ignore = "" if rel == "." else f"have git ignore it (a line `/{rel}/` in " \
            f"{ignores}), or "
        raise InputError(
            f"is inside {whose} {root} and git does not ignore it: the "
            "files written there would be untracked, one `git add -A` would commit them "
            "beside the store, and `kistore check` judges only store/. Write it outside "
            f"the work tree{example}, or {ignore}pass --inside-work-tree to write it "
            "here anyway; nothing was written", file=str(out))

    def where(self, at: str | None) -> str:
        """Return where an answer was looked for, for a message that found nothing.

        Args:
            at: the revision asked about, or None for the work tree (``"at HEAD"`` in a
                bare repository).

        Returns:
            ``"in the work tree"``, or ``"at REV (commit <12 hex>); it may have come
            later: leave out --at to ask the work tree"`` (a revision's store is the store
            as it was); ``HEAD`` read in place of the work tree by :meth:`settled` (no
            ``--at`` given, an add held the lock): that the answer is ``HEAD``'s because an
            add was writing, and to ask again when it is done.

        Raises:
            InputError: ``at`` names no commit (:meth:`commit`).
        """
        if at is None:
            return "in the work tree" if self.root is not None else "at HEAD"
        if at == "HEAD" and self._head_for_work_tree:  # no --at given: HEAD in its place
            return (f"at HEAD (commit {str(self.commit(at).id)[:12]}), read in place of the "
                    "work tree while an add was writing it: it may be in the work tree, not "
                    "committed yet; ask again when the add is done")
        return (f"at {at} (commit {str(self.commit(at).id)[:12]}); it may have come later: "
                "leave out --at to ask the work tree")

    def read(self, ref: str | Digest, *, at: str | None = None, schema: bool = True
             ) -> Manifest:
        """Return the stored manifest ``ref`` names, re-hashed on read.

        ``schema=False``: not checked against its schema again, for a digest the derived
        index holds a record of (:meth:`View.manifest`).

        Raises:
            ResolutionError, InputError: as :meth:`resolve`.
            VerificationError: the stored bytes do not hash to their name.
        """
        digest = ref if isinstance(ref, Digest) else self.resolve(ref, at=at)
        return self.view(at).manifest(digest, schema=schema)

    # -- writing ---------------------------------------------------------------------

    def add(
        self,
        manifests: Sequence[Manifest],
        *,
        allow_dangling: bool = False,
        update_metadata: bool = False,
        commit: bool = False,
        message: str | Callable[[Sequence[AddResult]], str] | None = None,
        origins: Mapping[Digest, Any] | None = None,
        places: Sequence[Any] | None = None,
        checks: Sequence[AdmissionCheck] = (),
        on_landed: Callable[[str | None], None] | None = None,
        refused: Sequence[KistoreError] = (),
        withdrawn: Callable[[Iterable[str]], set[str]] | None = None,
    ) -> list[AddResult]:
        """Add manifests to the store, all or nothing.

        Args:
            manifests: validated manifests (see :func:`kistore.store.inputs.read_inputs`).
            allow_dangling: record runs whose referenced digests are neither stored nor in
                this batch (``verify`` then reports them as unresolved).
            update_metadata: replace the metadata of an already stored object when it differs.
            commit: also write blobs, trees and a commit on the current branch (moved with
                a compare-and-swap) and stage the written paths, leaving ``git status`` clean.
            message: commit message, used as given; or a function of the results (one
                :class:`AddResult` each) returning its first line; default (None): a
                summary of what this commit adds or changes (``kistore add: KIND/NAME,
                ...``; a manifest stored already is not named, unless its add completed
                group files, low01). With a function or the default, a commit that
                replaces metadata says so: ``; metadata replaced on N manifests`` on the
                first line, and a body listing them (``KIND/NAME DIGEST``, at most 50).
            origins: where each manifest came from, named in error messages: a file name,
                or a :class:`kistore.store.inputs.Located` (file, line, pointer of the manifest
                inside the file, e.g. ``/run`` in a bundle).
            places: where each of ``manifests`` came from, in their order (as ``origins``'
                values; None: ``origins``'); a digest given again with other metadata is
                refused at each copy's own place
                (:func:`kistore.store.admission.plan_add`), and every other problem of
                that digest at its first copy's, the one the add would store (fresh02 G4:
                "already stored with other metadata ... given 'tri-first'" was placed at
                the third copy, ``origins`` holding the last one's place).
            checks: the rules of the layers above the store to ask before anything is
                written (:data:`AdmissionCheck`), each under the write lock with the new
                manifests. Default none: the store's own rules (bytes, schema, names,
                metadata, references; and the warning of a run stating another primary
                statistic than its protocol, KI218, :func:`kistore.store.statistics.
                statistics_admitted`; KI227, of a run observed before 2000, and the
                refusal of one observed after the clock,
                :func:`kistore.store.observed.observed_admitted`; of an
                environment whose GPU product differs from a stored spelling only in case,
                spacing, punctuation or a vendor name, KI229, :func:`kistore.store.
                products.products_admitted`; the refusal of a run claiming a source record
                another run of its group claims, KI232, :func:`kistore.store.claims.
                claims_admitted`; the warnings of a run stating a latency under 100 ns,
                KI230, or whose latencyNs.mean and latency_ms disagree, KI233,
                :func:`kistore.store.latency.latency_admitted`; the refusal of a
                SOL-ExecBench run whose board is not its workload's definition, KI238,
                :func:`kistore.store.boards.boards_admitted`; the refusal of an
                Implementation whose author prints as nothing, KI254, and the warnings of
                an author or provider that may print as another's, KI251, KI253 and KI219,
                :func:`kistore.store.labels.labels_admitted`) always apply,
                but a rule of the query layer only when passed. ``kistore add`` and ``import`` pass
                ``(kistore.query.units.units_admitted,)``; a Python caller adding runs of
                a family ranked with a ``unitPointer`` should too, or a run whose unit
                disagrees with its group's lands (``check`` and ``verify`` still report
                it, KI210, and ``rank`` fails for its group).
            on_landed: called once the add has landed, with the commit's id (hex; None
                without ``commit``): every file is in place and, with ``commit``, the
                branch holds it, so nothing is undone from then on. Called while Ctrl-C
                and SIGTERM are held (over the branch move), so a handler it installs is
                the one they reach: ``kistore add`` installs one that only notes them,
                and no interrupt can then stop it between the landing and its report.
                Not called when nothing was written.
            refused: problems of inputs left out of ``manifests`` (a file failing its
                schema, :func:`kistore.store.inputs.read_inputs_apart`): nothing is
                written, and they are raised with every refusal of ``manifests``, which
                are checked all the same (reviewer r85 F2: the other files' problems came
                only on the next try).
            withdrawn: of some stored runs (64 hex digits each), those a trusted
                maintainer withdrew (:func:`kistore.attest.evidence.withdrawn_runs`:
                ``kistore add`` and ``import`` pass it; the store reads no attestation):
                KI232 leaves them out, so the record's own run replaces a withdrawn
                claimant (reviewer r90 F6); None: no run is taken for withdrawn.

        Returns:
            One :class:`AddResult` per distinct manifest, in input order. Adding what is
            already stored is a no-op reported as ``unchanged``. What a rule of
            ``checks`` warned of (an :class:`AdmissionWarning`, e.g. KI217), or the
            store's own KI218, is in the manifest's :attr:`AddResult.warnings`.

        Writers on one clone take turns (a lock under the git directory), so the name and
        metadata checks and the write are one step: two concurrent adds can never both
        claim one name, nor silently replace each other's metadata.

        Raises:
            MultipleErrors: every refusal found, before anything is written: a digest whose
                stored metadata differs (a
                :class:`~kistore.core.errors.MetadataConflictError`, the difference shown)
                unless ``update_metadata``; a committed name changed (a name never moves,
                even with ``update_metadata``); a ``metadata.name`` already used by another
                manifest of the same kind; dangling references (each missing digest listed) unless
                ``allow_dangling``; what a rule of ``checks`` finds (e.g. a run whose unit
                disagrees with its comparison group's, KI210); ``refused``, first.
            StoreStateError: no work tree, a work tree not checked out (a ``git clone
                --no-checkout``: :meth:`require_checkout_to_write`, before anything is
                read), a file to write that git ignores (KI119,
                :meth:`_check_not_ignored`), or the branch kept moving under a concurrent
                writer; the store is left as it was.
            KeyboardInterrupt: Ctrl-C or SIGTERM before the add landed: it was undone.
            AddInterrupted: (a ``KeyboardInterrupt``) one after it landed: nothing was
                undone; it carries the results and the commit. Past ``on_landed``, only
                what its handler raises.
        """
        self.require_checkout_to_write("kistore add")  # a clone not checked out
        names = self.name_index()
        names.usable()  # opened (a file to start again is reset) before the write lock
        landed: list[str | None] = []  # the commit, once the add has landed

        def note(commit: str | None) -> None:
            landed.append(commit)
            if on_landed is not None:
                on_landed(commit)

        results: list[AddResult] | None = None
        try:
            # one look at each directory written, before and after, for both its records
            with names.resets_deferred(), self._write_lock(), one_write():
                results = self._add(manifests, allow_dangling=allow_dangling,
                                    update_metadata=update_metadata, commit=commit,
                                    message=message, origins=origins, places=places,
                                    checks=checks, on_landed=note, refused=refused,
                                    withdrawn=withdrawn)
        except KeyboardInterrupt as e:
            if isinstance(e, AddInterrupted) or not landed or results is None:
                raise
            # landed, and _add returned: the interrupt came as the lock was let go
            commit_id = pygit2.Oid(hex=landed[0]) if landed[0] is not None else None
            raise AddInterrupted(results, commit_id) from None
        return results

    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        """Hold the store's write lock, as :meth:`add` does, while writing the work tree.

        For another writer of ``store/`` (``kistore drop``, :mod:`kistore.store.drop`): a
        concurrent add waits for it, and it for the add.

        Side effects:
            As :meth:`_write_lock`: the lock file in the git directory says ``<pid> <work
            tree>`` while held.
        """
        with self._write_lock():
            yield

    @contextlib.contextmanager
    def _write_lock(self) -> Iterator[None]:
        """Hold the store's write lock (``flock`` on ``kistore-write.lock`` in the git dir).

        In the git directory all worktrees share: adds from two linked worktrees of one
        repository take turns too (they may commit to one branch). Held, the file says
        ``<pid> <work tree>`` (:meth:`write_lock_holder`), and is emptied before it is let
        go; a holder killed leaves its line, written over by the next
        (:func:`kistore.store._write_lock.hold`).
        """
        with _write_lock.hold(self._write_lock_path(), str(self.root or self.git_dir)):
            yield

    def _add(
        self,
        manifests: Sequence[Manifest],
        *,
        allow_dangling: bool,
        update_metadata: bool,
        commit: bool,
        message: str | Callable[[Sequence[AddResult]], str] | None,
        origins: Mapping[Digest, Any] | None,
        checks: Sequence[AdmissionCheck],
        on_landed: Callable[[str | None], None] | None,
        places: Sequence[Any] | None = None,
        refused: Sequence[KistoreError] = (),
        withdrawn: Callable[[Iterable[str]], set[str]] | None = None,
    ) -> list[AddResult]:
        """:meth:`add` under the write lock."""
        if places is not None:  # a digest given again: its problems at its first copy
            origins = {**(origins or {}), **_first_places(manifests, places)}
        # git.commit loads logging; admission and migrate are large (docs/speed.md).
        # Lazy: the write path: a read such as `kistore show` never writes.
        from ..git.commit import BranchCommit, check_ready
        from .admission import PlanRefused, plan_add
        from .boards import boards_admitted
        from .claims import claims_admitted
        from .labels import labels_admitted
        from .latency import latency_admitted
        from .observed import observed_admitted
        from .products import products_admitted
        from .statistics import statistics_admitted

        # the store's own rules (KI218, KI227, KI229, KI230, KI232, KI233, KI238, KI251,
        # KI253, KI254), always;
        # KI232's with the group directories the plan computed (below)
        checks = (statistics_admitted, observed_admitted, products_admitted, claims_admitted,
                  latency_admitted, boards_admitted, labels_admitted, *checks)
        if allow_dangling:  # a dangling reference a slip off a stored manifest: said
            checks = (*checks, dangling_near)
        if self.root is None:
            raise StoreStateError(no_work_tree("kistore add", self.git_dir))
        known = check_ready(self.repo) if commit else None  # git's author and committer
        if commit:
            self._check_head_attributes()
            self._check_committed_limits(manifests)
        # nothing writes the work tree's store/ until this add does (the write lock): each
        # directory is listed once for its plan, its rules and its writer
        listings: dict[str, list[str]] = {}
        self._listings = listings
        view = self._work_view(self.root)
        head = self._head_read()  # HEAD's files, read on demand (one tree for both uses)
        ahead = _pack_ahead(manifests) if commit else None  # while the checks below run
        try:
            try:
                try:
                    plan = plan_add(view, manifests, allow_dangling=allow_dangling,
                                    update_metadata=update_metadata, commit=commit,
                                    origins=origins, head_holds=self._head_holds(head),
                                    head_read=head, landed=self._last_landed,
                                    places=places)
                except PlanRefused as first:  # both passes' problems in one refusal (low00)
                    second = self._second_pass(_planned(checks, first.plan, withdrawn),
                                               manifests, first.plan.checked, origins)
                    raise MultipleErrors([*first.problems, *second]) from None
                results, files, written = plan.results, plan.files, plan.written
                if checks:
                    warned = self._admit(_planned(checks, plan, withdrawn), manifests,
                                         plan.checked, origins)
                    results = [dataclasses.replace(r, warnings=(*r.warnings, *warned[r.digest]))
                               if r.digest in warned else r for r in results]
                if update_metadata:  # fresh96 F8: a run's new metadata, as at add
                    self._admit_metadata(manifests, results, origins)
            except MultipleErrors as e:  # the refused inputs' problems first
                raise MultipleErrors(self.meant_references([*refused, *e.problems])) from None
            if refused:  # the other inputs passed: the refused ones' problems alone
                raise MultipleErrors(self.meant_references(refused))
            if not files:
                if commit:  # a re-run after an add killed past its branch move: its index
                    BranchCommit(self.repo, self.root).repair_index()
                return results
            # the views from here on (this one too) list again: the add writes
            self._listings = view.listings = None
            self._check_not_ignored(files)
            dirs = _dirs_before(self, view, files, commit)  # the last look before a write
            in_step = _names_before(self, view, files)
            stats, oid, prepared, blobs = self._write(files, commit=commit,
                                               message=self._message(message, results),
                                               results=results,
                                               manifests=[w[0] for w in written],
                                               on_landed=on_landed, ahead=ahead,
                                               work_tree_only=plan.work_tree_only,
                                               listed=listings, known=known)
        finally:
            self._listings = None
            if ahead is not None:
                ahead.close()
        try:  # landed: an interrupt from here on undoes nothing
            for path in plan.stale:  # never committed: nothing else holds it (best effort)
                with contextlib.suppress(OSError):
                    os.unlink(self.root / path)
            self._record_names(view, written, stats, in_step)
            if oid is not None:
                self._index_commit(oid, _committed(files, plan.work_tree_only),
                                   prepared[0] if prepared else None)
            ids = _blob_ids(written, files, blobs)
            _record_files(view, written, stats, ids)
            _record_dirs(self, view, dirs, stats, ids, oid, blobs)
        except KeyboardInterrupt:
            raise AddInterrupted(results, oid) from None
        return results

    def _check_not_ignored(self, files: Mapping[str, bytes]) -> None:
        """Refuse an add that would write a file git ignores (KI119; reviewer r82 F8).

        ``git add store`` (what README says after a plain ``add``) skips an ignored file
        without a word and ``git status`` does not show it: the commit would lack the
        object, and the pull request fail on other files. ``add --commit`` would commit
        it, but the work tree's rule stays for every later add. Asked of git itself, one
        ``git check-ignore`` for every file (:func:`kistore.git.ignored.ignored_paths`: the
        work tree's ``.gitignore`` files, ``.git/info/exclude``, ``core.excludesFile``
        however it is configured, the environment's ``GIT_CONFIG_*`` too), and only when
        :func:`kistore.git.ignored.may_ignore` finds a rule that may match.

        Raises:
            StoreStateError: an ignore file git reads is a FIFO or another file that is
                not a regular one (:func:`kistore.git.attr_guard.refuse_blocking_ignores`:
                git would wait on it for ever); git ignores a file the add would write
                (the first three named, each with the rule that ignores it: source, line
                and pattern, as ``git check-ignore -v`` reports it; and how many more); or
                git could not be asked; nothing was written.
        """
        # Lazy: the write path only (a read such as `kistore show` never asks).
        from ..git.attr_guard import refuse_blocking_add_attributes, refuse_blocking_ignores
        from ..git.ignored import ignored_paths, may_ignore, path_dirs

        common = common_git_dir(Path(self.git_dir))
        if self.root is not None:  # git status would wait on a FIFO there (fresh14 F3)
            refuse_blocking_add_attributes(Path(self.root), common, path_dirs(files))
        if self.root is None or not may_ignore(
                Path(self.root), Path(self.git_dir), common, files):
            return  # no rule git reads could ignore them: no git process is started
        refuse_blocking_ignores(Path(self.root), common, path_dirs(files),
                                "`git check-ignore` of the files this add writes")
        ignored = ignored_paths(Path(self.root), files)
        if ignored:
            shown = ", ".join(f"{m.path} (by {m.rule()})" for m in ignored[:3]) + (
                f" and {len(ignored) - 3} more" if len(ignored) > 3 else "")
            raise StoreStateError(
                f"git ignores {shown}, which this add would write: `git add store` would "
                "leave it out of the commit without a word, and `git status` would not show "
                "it (KI119). Remove the rule that matches it (`git check-ignore -v "
                "--no-index PATH` names the .gitignore line, .git/info/exclude or "
                "core.excludesFile), then add again; nothing was written")

    def _check_committed_limits(self, manifests: Sequence[Manifest]) -> None:
        """Refuse an ``add --commit`` that fits only limits the work tree has not committed.

        The gate holds what a commit adds to the limits the commit's own ``kistore.toml``
        sets (:func:`kistore.check.gate.check_range`); ``add --commit`` leaves
        ``kistore.toml`` as HEAD has it, so a limit raised in the work tree and not committed
        made a commit the gate then refused (new-user review 2026-12-02 F15). Each manifest
        is checked against HEAD's limits only when the work tree's raise one: the common
        add, with the file as committed, pays one read of HEAD's ``kistore.toml`` (the work
        tree's was parsed already when ``add`` read its input: :meth:`settings` keeps it;
        HEAD's is parsed only when it holds other bytes).

        Raises:
            StoreStateError: a manifest passes a limit HEAD's ``kistore.toml`` commits (each
                named, with what it passes); nothing was written.
        """
        here, committed = self.limits_per_key()[0], self.limits_per_key("HEAD")[0]
        if all(h <= c for h, c in zip(here, committed, strict=True)):
            return
        past = [f"{m.kind}/{m.name}: {e.message}" for m in manifests
                for e in limits_check(m.document, m.object_bytes, m.metadata_bytes, committed,
                                file=None)]
        if past:
            shown = "; ".join(past[:3]) + (f"; and {len(past) - 3} more" if len(past) > 3
                                           else "")
            raise StoreStateError(
                f"{shown}. These fit the work tree's kistore.toml [limits], not the ones HEAD "
                "commits, which `kistore check` holds a commit's files to: commit the change "
                "to kistore.toml first, in its own reviewed change, then `add --commit`; or "
                "add without --commit; nothing was written")

    def _admit(self, checks: Sequence[AdmissionCheck], manifests: Sequence[Manifest],
               checked: Collection[str], origins: Mapping[Digest, Any] | None
               ) -> dict[Digest, list[str]]:
        """Run ``checks`` on the manifests an add would add; raise what they find.

        Args:
            checks: the admission checks (:data:`AdmissionCheck`).
            manifests: the add's manifests.
            checked: hex digests of those it checks as new
                (:attr:`kistore.store.admission.AddPlan.checked`: those it adds, and
                with ``--commit`` those HEAD lacks).
            origins: where each manifest came from, as :meth:`add`'s.

        Returns:
            Each :class:`AdmissionWarning` found (located, one line), by manifest digest.

        Raises:
            MultipleErrors: every problem, each placed where its manifest came from;
                nothing is written.
        """
        # Lazy: the write path (admission is large, docs/speed.md).
        from .admission import locate

        new = list(_first_copies(m for m in manifests if m.digest.hex in checked).values())
        warned: dict[Digest, list[str]] = {}
        if not new:
            return warned
        problems = []
        for check in checks:
            for digest, problem in check(self, new):
                locate(problem, (origins or {}).get(digest))
                if isinstance(problem, AdmissionWarning):
                    warned.setdefault(digest, []).append(problem.format())
                else:
                    problems.append(problem)
        if problems:
            raise MultipleErrors(problems)
        return warned

    def _second_pass(self, checks: Sequence[AdmissionCheck], manifests: Sequence[Manifest],
                     checked: Collection[str], origins: Mapping[Digest, Any] | None
                     ) -> list[KistoreError]:
        """Return what :meth:`_admit` refuses of ``checked``, raising nothing; [] when none.

        The first pass refused other manifests of the add: these are what it did not, so
        a refusal of the second pass is said beside the first's, not after it is fixed.
        """
        if not checks or not checked:
            return []
        try:
            self._admit(checks, manifests, checked, origins)
        except MultipleErrors as e:
            return e.problems
        return []

    def _admit_metadata(self, manifests: Sequence[Manifest], results: Sequence[AddResult],
                        origins: Mapping[Digest, Any] | None) -> None:
        """Refuse runs whose metadata ``--update-metadata`` replaces with another board (KI238).

        Raises:
            MultipleErrors: each such run, placed where it came from; nothing is written.
        """
        # Lazy: the write path (admission is large, docs/speed.md).
        from .admission import locate
        from .boards_metadata import metadata_boards_admitted

        updated = {r.digest for r in results
                   if r.status == "metadata-updated" and r.kind == "BenchmarkRun"}
        if not updated:
            return
        runs = list(_first_copies(m for m in manifests if m.digest in updated).values())
        problems = metadata_boards_admitted(self, runs)
        for digest, problem in problems:
            locate(problem, (origins or {}).get(digest))
        if problems:
            raise MultipleErrors([problem for _, problem in problems])

    def _write(self, files: Mapping[str, bytes], *, commit: bool, message: str,
               results: list[AddResult], manifests: Sequence[Manifest] = (),
               on_landed: Callable[[str | None], None] | None = None,
               ahead: PackAhead | None = None, work_tree_only: Collection[str] = (),
               listed: Mapping[str, Collection[str]] | None = None,
               known: Identities | None = None,
               ) -> tuple[Mapping[str, FileStat], pygit2.Oid | None, list[Prepared],
                          Mapping[str, pygit2.Oid]]:
        """Write ``files`` into the work tree, all or nothing, and commit them when asked.

        Under the write lock, after the checks. Files go to temporary names and are renamed
        into place; any failure or Ctrl-C before the branch moved undoes them. In a sparse
        checkout a commit writes a new file outside the checkout to git only
        (:meth:`_git_only`): its blob, and an index entry with the skip-worktree bit.

        Args:
            files: repository path -> exact bytes.
            commit: also commit them on the current branch (``add --commit``, section 3.2).
            message: the commit message.
            results: what to report should an interrupt arrive once the commit landed.
            manifests: the validated manifests whose files ``files`` holds (their index
                rows are made from them, not parsed again: :meth:`_index_prepare`).
            on_landed: as :meth:`add`'s.
            ahead: blob ids and pack entries being made meanwhile (:func:`_pack_ahead`),
                for the commit's pack.
            work_tree_only: paths of ``files`` written but left out of the commit
                (:attr:`kistore.store.admission.AddPlan.work_tree_only`).
            listed: directory -> the names it held when this add's checks listed it (under
                its write lock, after :func:`~kistore.git.writer.refuse_links`'s look:
                none is a link), listed again by neither the stale temporaries' sweep nor
                the writer.
            known: the commit's author and committer as :func:`kistore.git.commit.
                check_ready` named them (None: asked when it commits).

        Returns:
            The :data:`FileStat` of each file written, the new commit (None without
            ``commit``), the index's rows of ``files`` when a bulk commit made them
            while the files were written (:meth:`_index_prepare`; else empty), and the
            git blob id of each file the commit holds (empty without ``commit``).

        Raises:
            AddInterrupted: Ctrl-C or SIGTERM arrived after the commit landed.
            StoreStateError: as :meth:`add`.
        """
        # A read never writes (docs/speed.md, "Start-up, third pass").
        # Lazy: the write path (git.commit loads logging; git.writer, core.workers).
        from ..git.commit import BranchCommit, interrupts_deferred
        from ..git.writer import FileBatch, refuse_links, remove_stale_temps

        assert self.root is not None
        committed = _committed(files, work_tree_only)
        skip = self._git_only(committed) if commit else frozenset()
        on_disk = {path: data for path, data in files.items() if path not in skip} \
            if skip else files
        directories = {rel.rpartition("/")[0] for rel in on_disk}
        refuse_links(self.root, directories)  # before anything is written or removed
        remove_stale_temps(self.root, directories, listed)  # killed adds
        batch = FileBatch(self.root, on_disk, listed)
        told = False  # on_landed was called without a commit
        landed = None if on_landed is None else (lambda oid: on_landed(str(oid)))
        committer = BranchCommit(self.repo, self.root, landed, known) if commit else None
        prepared: list[Prepared] = []  # the index's rows of `files`, made while they are written
        # With --commit, git's index lock is held while the files are written, too: until
        # staged they are untracked, and a `git stash -u` or `git add -A` would take them.
        with committer.index_held(committed.keys()) if committer else contextlib.nullcontext():
            try:
                if committer is not None and len(on_disk) >= _pack_threshold() and WRITERS:
                    # Child processes write the work-tree files while this one builds the
                    # git objects, then parses them for the index's rows: they overlap on a
                    # second core. The branch moves only once every file is in place.
                    batch.start(processes=WRITERS)

                    def before_move() -> None:
                        prepared.extend(self._index_prepare(committed, manifests))
                        batch.wait()

                    committer.run(committed, message, before_move=before_move,
                                  stats=batch.stats, ahead=ahead, skip=skip)
                else:
                    batch.run()
                    if committer is not None:
                        committer.run(committed, message, stats=batch.stats, ahead=ahead,
                                      skip=skip)
                    elif on_landed is not None:  # every file in place: nothing to undo
                        with interrupts_deferred():
                            told = True
                            on_landed(None)
            except KeyboardInterrupt:
                if not (committer.landed if committer is not None else told):
                    with interrupts_deferred():  # a second Ctrl-C must not stop the undo
                        batch.undo()
                    raise
                # Ctrl-C held during the branch move, delivered once it had landed: the add
                # is whole; only the index's names (derived) are left for the next sync.
                raise AddInterrupted(results, committer.oid if committer else None) from None
            except BaseException:
                if not (committer.landed if committer is not None else told):
                    with interrupts_deferred():
                        batch.undo()
                raise
        if committer is None:
            return batch.stats, None, prepared, {}
        return batch.stats, committer.oid, prepared, committer.blobs

    def _git_only(self, files: Mapping[str, bytes]) -> frozenset[str]:
        """Return the paths of ``files`` a commit writes to git only, not to the work tree.

        In a cone-mode sparse checkout, the new files outside it (:func:`kistore.git.sparse.
        git_only`): ``git status`` stays clean, the checkout stays sparse, and ``git
        sparse-checkout disable`` writes them with the committed bytes. Empty outside a
        sparse checkout (one ``stat``, :meth:`skipped`).

        Raises:
            StoreStateError: as :meth:`skipped`.
        """
        if self.root is None or self.skipped() is None:
            return frozenset()
        return git_only(self.git_dir, self.root, files)

    def migrate(self, *, commit: bool = False, message: str | None = None,
                on_landed: Callable[[str | None], None] | None = None,
                ) -> list[NameWritten | ForwardWritten | GroupWritten | ObjectSkipped]:
        """Write every names file, forward record and group file the work tree lacks.

        ``kistore migrate``.

        A store whose manifests were added before names were paths (docs/design.md §3) has
        no ``store/names/``; this writes each manifest's file through the add's write path,
        under the write lock, all or nothing. Running it again writes nothing.

        Args:
            commit: also commit the files, as ``add --commit`` does.
            message: the commit message (default: says what was written).
            on_landed: as :meth:`add`'s.

        Returns:
            One :class:`kistore.store.migrate.NameWritten` per names file written, then one
            :class:`kistore.store.migrate.ForwardWritten` per forward record, then one
            :class:`kistore.store.migrate.GroupWritten` per group file, then one
            :class:`kistore.store.migrate.ObjectSkipped` per object file whose bytes do not
            hash to its name (KI101: renamed by hand or edited), for which nothing was
            written (empty: nothing was missing, and nothing was committed).

        Raises:
            MultipleErrors: a committed manifest's name changed by hand (in the work tree,
                or by a commit: :func:`kistore.store.migrate.plan_names`, judged before
                ``--commit``'s uncommitted refusal, whose advice would commit the edit), a
                name two manifests hold, or a names file, forward record or group file that
                holds other bytes; nothing is written.
            StoreStateError: no work tree, a work tree not checked out
                (:meth:`require_checkout_to_write`), or the ``--commit`` path refuses (see
                :meth:`add`).
        """
        # git.commit loads logging; admission and migrate are large (docs/speed.md).
        # Lazy: the write path: a read such as `kistore show` never writes.
        from ..git.commit import check_ready
        from ._renames import CommittedNames
        from .migrate import plan_names, plan_runs, uncommitted

        self.require_checkout_to_write("kistore migrate")  # bare, or not checked out
        assert self.root is not None  # a bare repository was refused just above
        self.name_index().usable()
        with self._write_lock():
            view = self._work_view(self.root)
            known = check_ready(self.repo) if commit else None
            if commit:
                self._check_head_attributes()
            head = self.head_or_none()
            holds = self._head_holds() if commit else None
            # a name edited by hand is refused first: committing the edit (the uncommitted
            # refusal's advice) would make it a rename for good (last97 MED 2)
            wanted = plan_names(view, holds,
                                CommittedNames(self.repo, str(self.root), head).moved)
            if commit:
                self._refuse_uncommitted(uncommitted(view, head))
            skipped: dict[str, ObjectSkipped] = {}
            forward, groups = plan_runs(view, holds, skipped)  # each object read once
            if not wanted and not forward and not groups:
                return list(skipped.values())
            files = {w.path: layout.name_record(w.digest) for w in wanted}
            files.update((w.path, w.data) for w in forward)
            files.update((w.path, w.data) for w in groups)
            said = [f"{len(wanted)} names file(s) under {layout.NAMES_DIR}/ (names as paths)"
                    ] if wanted else []
            said += [f"{len(forward)} forward record(s) under {layout.FORWARD_DIR}/ (dangling "
                     "references as paths)"] if forward else []
            said += [f"{len(groups)} group file(s) under {layout.GROUPS_DIR}/ (comparison "
                     "groups as paths)"] if groups else []
            text = message or f"kistore migrate: {'; '.join(said)}"
            _, oid, _, _ = self._write(files, commit=commit, message=text, results=[],
                                    on_landed=on_landed, known=known)
            try:  # landed: an interrupt from here on undoes nothing
                if oid is not None:
                    self._index_commit(oid, files)
            except KeyboardInterrupt:
                raise AddInterrupted([], oid) from None
            return [*wanted, *forward, *groups, *skipped.values()]

    def head_or_none(self) -> View | None:
        """Return HEAD's view, or None when the branch has no commit yet."""
        try:
            return self.view("HEAD")
        except InputError:
            return None

    def head_has(self, path: str) -> bool | None:
        """Return whether ``HEAD``'s tree has a file at ``path`` (its bytes unread).

        Asked by messages about a damaged or unwanted file: one ``HEAD`` holds comes back
        with ``git checkout``, one only a plain add wrote goes with ``kistore drop``
        (:func:`kistore.core.restore.restore_advice`). Opens git: for error paths only.

        Returns:
            False on a branch with no commit yet; None when git cannot tell (a damaged
            repository, a file past the size limit).
        """
        try:
            head = self.head_or_none()
            return head is not None and head.read(path) is not None
        except (KistoreError, OSError, pygit2.GitError):
            return None

    def head_read(self, path: str) -> bytes | None:
        """Return ``HEAD``'s bytes at ``path``: None when it holds none or git cannot tell.

        Asked by messages about a damaged metadata file (:meth:`View.metadata_restorable`:
        would ``git checkout HEAD -- PATH`` repair it?). Opens git: for error paths only.
        Raises nothing.
        """
        try:
            head = self.head_or_none()
            return None if head is None else head.read(path)
        except (KistoreError, OSError, pygit2.GitError):
            return None

    def last_holding(self, path: str, digest: Digest) -> str | None:
        """Return the last commit holding ``digest``'s bytes at ``path`` when HEAD holds others.

        An object edited in a committed commit: ``git checkout HEAD -- PATH`` brings back
        the edit, not the object (reviewer fresh95 F4: ``show`` advised it, then, once
        followed, advised it again). Asked by messages about a damaged or missing object
        file: the first-parent versions of ``path`` (git's path-limited log, one blob read
        a version) until one whose bytes hash to ``digest``; the commit before the next
        version (the edit's parent) is named. Opens git: for error paths only.

        Args:
            path: the object file's repository path.
            digest: the manifest it is the object of (its bytes' sha256).

        Returns:
            That commit's id (40 hex digits); None when HEAD holds the bytes, or holds no
            file there, or no version holds them, or git cannot tell.

        Raises nothing: git errors on the way answer None (an error path's advice only).
        """
        # Lazy: a damaged object's message only (test_cli_startup holds what a query loads).
        import hashlib

        # Lazy: as above; git's path-limited log, on this error path only.
        from ..git.pathlog import first_parent_versions

        try:
            newer: str | None = None
            for commit, blob in first_parent_versions(self.repo, "HEAD", path):
                data = None if blob is None else self.repo[blob].read_raw()
                if data is not None and hashlib.sha256(data).hexdigest() == digest.hex:
                    if newer is None:
                        return None  # HEAD holds them
                    parents = getattr(self.repo[newer], "parents", None)
                    return str(parents[0].id) if parents else None
                if newer is None and blob is None:
                    return None  # HEAD holds no file there: git's checkout of HEAD fails
                newer = commit
        except (KistoreError, OSError, KeyError, ValueError, pygit2.GitError):
            return None
        return None

    def name_back(self, kind: str, name: str, owner: Digest, rev: str | None = None
                  ) -> str | None:
        """Return how to put back ``KIND/NAME``, which ``owner``'s metadata no longer says.

        :func:`kistore.store.name_back.name_back` along HEAD's history, or the commit
        ``rev``'s (a commit view's; None: the work tree's) (break97 M3: a committed rename
        was told `git checkout HEAD -- FILE`, which restores nothing). Opens git: for error
        paths only. None when no committed version agreed; raises nothing.
        """
        # Lazy: git's path-limited log, on this error path only.
        from .name_back import name_back

        return name_back(self.repo, kind, name, owner, rev)

    def unmerged(self, path: str) -> bool:
        """Return whether git's index holds ``path`` unmerged (stages 1-3: a merge's conflict).

        Asked by messages about a damaged file (:func:`kistore.core.restore.restore_advice`):
        ``git checkout -- PATH`` fails on such a path. Opens git: for error paths only.

        Returns:
            False too when git cannot tell (no index, a damaged one).
        """
        try:
            conflicts = self.repo.index.conflicts
            return conflicts is not None and path in conflicts
        except (KistoreError, OSError, pygit2.GitError):
            return False

    @staticmethod
    def _refuse_uncommitted(pending: Sequence[Digest]) -> None:
        """Refuse ``migrate --commit`` while the work tree holds manifests HEAD does not.

        Raises:
            StoreStateError: ``pending`` is not empty (the first five named, then how many
                more); nothing was written.
        """
        if not pending:
            return
        shown = ", ".join(str(d) for d in pending[:5]) + (
            f" and {len(pending) - 5} more" if len(pending) > 5 else "")
        raise StoreStateError(
            f"{len(pending)} manifest(s) in the work tree are not committed (HEAD lacks their "
            f"object or metadata file, or holds other bytes): {shown}. A migration commit "
            "would hold names files and group files for them, which `kistore verify --at "
            "HEAD` and the gate refuse (KI212, KI216): commit them first (`git add store && "
            "git commit`, or add them again with `kistore add --commit FILE`), or remove "
            "them, or run `kistore migrate` without --commit; nothing was written")

    def _index_prepare(self, files: Mapping[str, bytes], manifests: Sequence[Manifest] = ()
                       ) -> list[Prepared]:
        """Return ``[Index.prepare(files, manifests)]``; ``[]`` when it fails (derived data).

        Whatever goes wrong here, the add goes on: :meth:`_index_commit` makes the rows
        from the files themselves.
        """
        # Lazy: only a commit writes query rows; a work-tree add starts without loading them.
        from ..index.index import Index

        try:
            return [Index(self).prepare(files, manifests)]
        except Exception:  # noqa: BLE001 - derived data never fails an add
            return []

    def _index_commit(self, oid: pygit2.Oid, files: Mapping[str, bytes],
                      prepared: Prepared | None = None) -> None:
        """Bring the index's query rows to the commit an add just landed (:meth:`Index.advance`).

        The rows of what the add wrote are made from the bytes in hand, so the next query
        does not read them back (100,000 manifests: ~30 s). Derived data: when the index
        cannot be written, or described another tree than the commit's parent, it is left
        for the next query to update, as before.

        Args:
            oid: the commit the branch holds now.
            files: path -> bytes the commit wrote.
            prepared: :meth:`_index_prepare` of ``files`` (None: made now).
        """
        # Lazy: only a commit writes query rows; a work-tree add starts without loading them.
        from ..index.index import DAMAGE, Index

        commit = self.repo[oid]
        if not isinstance(commit, pygit2.Commit):
            return
        parent = str(commit.parents[0].tree_id) if commit.parents else None
        if parent == str(commit.tree_id):
            return  # a re-run: HEAD held it all, no new commit
        try:
            Index(self).advance(parent, commit.tree, files, prepared)
        except (OSError, *DAMAGE):
            return  # rolled back: the next query updates the index from git

    def _check_head_attributes(self) -> None:
        """Refuse ``--commit`` when git may convert store/: HEAD's or this clone's attributes.

        After ``kistore init .`` in an existing repository, until its files are committed:
        each commit made then fails ``verify --at`` (KI113) though the work tree verifies.
        The clone's own ``.git/info/attributes`` wins over ``.gitattributes``: a line there
        such as ``store/** text eol=crlf`` converted the files the commit checks out
        (``verify`` reports it: KI116; before, it blamed the names files, KI212).

        Raises:
            StoreStateError: with the commands to commit them, or the line of
                ``.git/info/attributes`` to remove.
        """
        # the KI113 check loads findings and rules: a query's start-up loads neither
        # Lazy: only the `--commit` path checks the attributes.
        from ..core.gitattributes import INFO_ATTRIBUTES
        from ..git.attributes import check_clone_info_attributes

        found = check_clone_info_attributes(self.repo)
        if found and found[0].line is None:  # a FIFO, a device, too large: not read
            raise StoreStateError(
                f"this repository's {INFO_ATTRIBUTES} {found[0].message}; nothing was written. "
                "Remove it or make it a small regular file (it is this repository's own, never "
                "committed), then `git checkout -- store/` to restore any file it converted "
                "(`kistore verify` reports it: KI116)", file=INFO_ATTRIBUTES)
        if found:
            raise StoreStateError(
                f"this repository's {INFO_ATTRIBUTES} lets git convert store/ (`{found[0].found}`"
                ", which wins over .gitattributes' store/** line); nothing was "
                "written. Remove that line (the file is this repository's own, never committed), "
                "then `git checkout -- store/` to restore any file it converted (`kistore "
                "verify` reports it: KI116)", file=INFO_ATTRIBUTES, line=found[0].line)
        if self.repo.head_is_unborn:
            return
        tree = self.commit("HEAD").tree
        entry = tree[".gitattributes"] if ".gitattributes" in tree else None
        data = (self.repo.odb.read(entry.id)[1]
                if entry is not None and entry.type_str == "blob" else None)
        # Lazy: only the `--commit` path checks HEAD's .gitattributes (as above).
        from ..core.gitattributes import check_gitattributes

        found = check_gitattributes(data)
        if found:
            raise StoreStateError(
                f"HEAD's .gitattributes does not stop git converting store/ ({found[0].message}"
                "); nothing was written. If kistore init's files are not committed yet, commit "
                f"them first: git add {INIT_FILES} && git commit -m 'kistore init' -- "
                f"{INIT_FILES}; otherwise correct that line and commit it (`kistore verify "
                "--at HEAD` reports it: KI113)", file=".gitattributes")

    @staticmethod
    def _message(message: str | Callable[[Sequence[AddResult]], str] | None,
                 results: list[AddResult]) -> str:
        """Return the commit message (see :meth:`add`'s ``message``)."""
        if isinstance(message, str) and message:
            return message
        if callable(message):
            text = message(results)
        else:
            # what this commit adds or changes: a manifest stored already (committed by an
            # add that took the write lock first, low01) is not this commit's news
            named = [r for r in results if r.status != "unchanged" or r.completed] or results
            summary = ", ".join(_subject_part(r) for r in named[:3])
            more = f" and {len(named) - 3} more" if len(named) > 3 else ""
            text = f"kistore add: {summary}{more}"
        replaced = [r for r in results if r.status == "metadata-updated"]
        if not replaced:
            return text
        listed = [f"{r.kind}/{r.name} {r.digest}" for r in replaced[:METADATA_LISTED]]
        if len(replaced) > METADATA_LISTED:
            listed.append(f"and {len(replaced) - METADATA_LISTED} more")
        return (f"{text}; metadata replaced on {len(replaced)} "
                f"manifest{'s' * (len(replaced) != 1)}\n\n"
                "Metadata replaced (--update-metadata):\n" + "\n".join(listed))

    def _head_holds(self, read: Callable[[str], bytes | None] | None = None
                    ) -> Callable[[str, bytes], bool]:
        """Return ``holds(path, data)``: True when HEAD's tree has exactly ``data`` at ``path``.

        ``add --commit`` of a manifest whose files are in the work tree but not committed
        (an earlier plain ``add``, or an add killed after writing) commits them; a killed
        add may have left the object file without its metadata, or the other way round.

        Args:
            read: a :meth:`_head_read` reader to share (one HEAD tree opened for both);
                None: a new one. No commit yet: nothing is held.
        """
        read = read or self._head_read()
        return lambda path, data: read(path) == data

    def _last_landed(self, path: str) -> bytes | None:
        """Return the bytes of the last version of ``path`` along HEAD's history that parses.

        :func:`kistore.store.landed.last_measure`: asked by an add only of a committed
        object whose metadata HEAD holds broken or not at all (last96 1b). None when no
        version parses, or there is no commit. Raises ObjectUnreadable (a damaged history).
        """
        # Lazy: git's path-limited log, on this rare path only (test_cli_startup)
        from .landed import last_measure

        found = last_measure(self.repo, "HEAD", path)
        return found.data if found is not None else None

    def _head_read(self) -> Callable[[str], bytes | None]:
        """Return ``read(path)``: HEAD's bytes at ``path``, None where HEAD has none.

        HEAD's tree is opened on the first read (an add that asks none opens nothing); no
        commit yet: every read is None. Raises nothing but what reading HEAD's objects
        raises (a damaged repository: :class:`~kistore.core.errors.StoreStateError`).
        """
        head: View | None = None

        def read(path: str) -> bytes | None:
            nonlocal head
            if head is None:
                try:
                    head = self.view("HEAD")
                except InputError:  # no commit yet
                    return None
            return head.read(path)

        return read

    def _record_names(self, view: WorkTreeView, written: list[tuple[Manifest, str, str]],
                      stats: Mapping[str, FileStat], in_step: dict[str, dict[str, int]]
                      ) -> None:
        """Tell the index's names what ``add`` just wrote, so the next query need not list it.

        Args:
            view: the work tree written to.
            written: each manifest written with its object and metadata paths.
            stats: the :data:`FileStat` of each file this add wrote (others are stat-ed).
            in_step: :func:`_names_before` of the add.

        The shard keys recorded are those after this write of the directories that were in
        step before it and list as the add left them
        (:func:`kistore.index._names_added.keys_after_add`); the other directories written
        lose their rows, and the next sync lists them (issue 22).
        """
        # Lazy: the names' add rows are the write path's; a query never loads them.
        from ..index._names_added import keys_after_add

        name_index = view.name_index
        if name_index is None or not written or self.root is None:
            return
        rows = []
        root = f"{view.root}/"
        for m, object_path, metadata_path in written:
            try:
                object_key = stat_key(stats.get(object_path) or os.stat(root + object_path))
                metadata_key = stat_key(stats.get(metadata_path) or
                                        os.stat(root + metadata_path))
            except OSError:
                return
            rows.append((m.digest, object_key, metadata_key, m.kind, m.name))
        inodes = {path: stat[2] for path, stat in stats.items()}
        keys, stale = keys_after_add(self.root, in_step, inodes)
        try:
            name_index.record("work", rows, keys, stale)
        except sqlite3.Error:  # a derived cache (disk full?): the next sync re-reads
            return              # these shards, whose keys it does not have


def _blob_ids(written: list[tuple[Manifest, str, str]], files: Mapping[str, bytes],
              blobs: Mapping[str, pygit2.Oid]) -> dict[str, str]:
    """Return the git blob id (hex) of each manifest file an add wrote.

    Args:
        written: each manifest written with its object and metadata paths.
        files: path -> the bytes written there.
        blobs: the ids the add's commit hashed (:attr:`kistore.git.commit.BranchCommit.
            blobs`; empty without ``--commit``): taken as they are, the rest hashed here.
    """
    ids: dict[str, str] = {}
    for _, object_path, metadata_path in written:
        for path in (object_path, metadata_path):
            oid, data = blobs.get(path), files.get(path)
            if oid is not None:
                ids[path] = str(oid)
            elif data is not None:
                ids[path] = blob_id(data).hex()
    return ids


def _record_files(view: WorkTreeView, written: list[tuple[Manifest, str, str]],
                  stats: Mapping[str, FileStat], ids: Mapping[str, str]) -> None:
    """Tell the index's file check which blobs the manifest files ``add`` wrote hold.

    So the next query proves them by stat data, not by reading them back
    (:func:`kistore.index.record_written`; issue 22). Only files written now, with the stat
    data their write reported; derived data: an index that cannot be written is left as is.

    Args:
        view: the work tree written to (its name index's file is the index).
        written: each manifest written with its object and metadata paths.
        stats: the :data:`FileStat` of each file written.
        ids: :func:`_blob_ids` of the files written.
    """
    # Lazy: the index's file check (catalogs, records) is a query's; only a write loads it here.
    from ..index import record_written

    name_index = view.name_index
    if name_index is None:
        return
    done = [(str(m.digest), stats[o], stats[md], ids[o], ids[md])
            for m, o, md in written if o in stats and md in stats and o in ids and md in ids]
    with contextlib.suppress(OSError, sqlite3.Error):
        record_written(name_index.db, done)


def _planned(checks: Sequence[AdmissionCheck], plan: Any,
             withdrawn: Callable[[Iterable[str]], set[str]] | None
             ) -> tuple[AdmissionCheck, ...]:
    """Return ``checks`` bound to the plan's comparison groups (KI232's and each GroupsCheck).

    Args:
        checks: the add's admission checks.
        plan: the :class:`kistore.store.admission.AddPlan` (its ``groups``).
        withdrawn: as :meth:`Store.add` takes it (KI232: a withdrawn run claims nothing).
    """
    # Lazy: the write path (claims reads the group files).
    from .claims import claims_admitted

    groups = plan.groups
    return tuple((lambda store, new: claims_admitted(store, new, groups, withdrawn))
                 if check is claims_admitted else
                 _with_groups(check, groups) if isinstance(check, GroupsCheck) else check
                 for check in checks)


def _manifest_dirs(files: Iterable[str]) -> set[str]:
    """Return the directories of ``files`` that hold an object or metadata file.

    That is, ``{path.rpartition("/")[0]}`` of each path :func:`kistore.core.layout.
    digest_from_path` takes for a manifest file, asked once an add of ``files`` for
    :func:`_dirs_before` and :func:`_names_before`: a path outside the object and metadata
    trees is passed over by its prefix, and one whose directory is found already is not
    matched again (issue 22: the pattern was matched twice for each of a bulk add's ~79,000
    paths at 20,000 manifests, ~0.2 s of its serial stretch).

    Args:
        files: repository paths (``/``-separated).

    Returns:
        The directories (``store/objects/sha256/XX``, ``store/metadata/sha256/XX``).
    """
    prefixes = (f"{layout.OBJECTS_DIR}/", f"{layout.METADATA_DIR}/")
    dirs: set[str] = set()
    for path in files:
        if path.startswith(prefixes):
            directory = path.rpartition("/")[0]
            if directory not in dirs and layout.digest_from_path(path) is not None:
                dirs.add(directory)
    return dirs


def _dirs_before(store: Store, view: WorkTreeView, files: Mapping[str, bytes], commit: bool
                 ) -> AddedDirs | None:
    """Return the shard directories ``files`` go into whose work-tree rows are in step now.

    Before an add's first write, under its lock (:func:`kistore.index.dirs_before_add`):
    :func:`_record_dirs` leaves them in step after it. With ``commit`` (the repository is
    opened anyway), also the directories the add creates, absent from the work tree and
    from ``HEAD``, with or without rows: so a store filled by ``add --commit`` after
    ``add --commit`` from ``kistore init`` on, with no query between them (the bench's
    chunks), keeps every row and its first query compares no directory (issue 22: 60 s
    at 1,000,000, every file of the store stated). None when there is nothing to keep (no
    index yet, an unborn branch, a sparse checkout, no manifest file written, no row and
    no directory an ``add --commit`` creates) or the index cannot be read: derived data,
    the add goes on.
    """
    name_index = view.name_index
    dirs = _manifest_dirs(files)
    if name_index is None or not dirs or store.root is None or store.skipped() is not None:
        return None
    # Lazy: the index's work-tree rows are a query's; only a write loads them here.
    from ..index import dirs_before_add, rows_of_dirs, shard_keys

    try:
        rows = rows_of_dirs(name_index.db, dirs)
        if not rows and not (commit and any(not os.path.lexists(os.path.join(store.root, d))
                                            for d in dirs)):
            return None  # nothing to keep: the repository is not opened (start-up)
        if store.repo.head_is_unborn:
            return None
        tree = store.repo.head.peel(pygit2.Commit).tree
        return dirs_before_add(store.root, str(tree.id), shard_keys(store.repo, tree, dirs),
                               rows)
    except (OSError, sqlite3.Error, pygit2.GitError, ObjectUnreadable):
        return None


def _names_before(store: Store, view: WorkTreeView, files: Mapping[str, bytes]
                  ) -> dict[str, dict[str, int]]:
    """Return the names' shard directories ``files`` go into whose rows are in step now.

    Before an add's first write, under its lock
    (:func:`kistore.index._names_added.names_before_add`): :meth:`Store._record_names`
    keeps them in step after it. Empty when there is no index, in a sparse checkout (its
    keys hold skipped files too), or when the index cannot be read: derived data, the add
    goes on.
    """
    # Lazy: the names' add rows are the write path's; a query never loads them.
    from ..index._names_added import names_before_add, shard_dir_at

    name_index = view.name_index
    # objects/XX, metadata/XX of each store/objects/sha256/XX, store/metadata/sha256/XX
    dirs = {shard_dir_at(directory) for directory in _manifest_dirs(files)}
    if name_index is None or not dirs or store.root is None or store.skipped() is not None:
        return {}
    try:
        return names_before_add(name_index, store.root, dirs)
    except (OSError, sqlite3.Error):
        return {}


def _record_dirs(store: Store, view: WorkTreeView, dirs: AddedDirs | None,
                 stats: Mapping[str, FileStat], ids: Mapping[str, str],
                 oid: pygit2.Oid | None, blobs: Mapping[str, pygit2.Oid]) -> None:
    """Record the rows of the directories :func:`_dirs_before` found in step, after the write.

    (:func:`kistore.index.record_added`.) With a commit (``oid``), a file is ``HEAD``'s
    when the commit holds it (``blobs``); without, when ``HEAD``'s tree holds its blob id
    (``ids``) at its path already. Derived data: nothing here fails the add.
    """
    name_index = view.name_index
    if dirs is None or not dirs.dirs or name_index is None or store.root is None:
        return
    # Lazy: the index's work-tree rows and tree reads are a query's; only a write loads them.
    from ..git.treediff import subtree
    from ..index import record_added, shard_keys

    repo = store.repo
    try:
        commit = repo[oid] if oid is not None else repo.head.peel(pygit2.Commit)
        if not isinstance(commit, pygit2.Commit):
            return
        base = str(commit.tree_id) if oid is None else \
            str(commit.parents[0].tree_id) if commit.parents else ""
        keys = shard_keys(repo, commit.tree, dirs.dirs)
        listings: dict[str, dict[str, str]] = {}

        def held(path: str) -> bool:
            if oid is not None:
                return path in blobs  # the commit holds exactly the bytes written
            rel, _, name = path.rpartition("/")
            if rel not in listings:  # HEAD's shard, read once
                listings[rel] = {str(e.name): str(e.id) for e in subtree(repo, keys[rel])} \
                    if keys[rel] else {}
            return listings[rel].get(name) == ids[path]

        written = {path: (stats[path][2], held(path)) for path in ids
                   if path in stats and path.rpartition("/")[0] in dirs.dirs}
        record_added(store.root, name_index.db, dirs, base, keys, written)
    except (OSError, sqlite3.Error, pygit2.GitError, ObjectUnreadable):
        return


PACK_AHEAD = 2000
"""From this many manifests on, an ``add --commit`` hashes and compresses their object and
metadata bytes for its pack in a child process while it checks them (:func:`_pack_ahead`)."""


def _pack_ahead(manifests: Sequence[Manifest]) -> PackAhead | None:
    """Start making the pack entries of ``manifests``' files on another CPU; None: not here.

    An ``add --commit`` of :data:`PACK_AHEAD` manifests or more, on a machine with more
    than one CPU, forks a :class:`kistore.git.pack.PackAhead` of every manifest's object and
    metadata bytes before its checks (``plan_add``, which reads the work tree on this
    CPU); its commit then packs those entries instead of hashing and compressing the
    blobs itself (the same bytes; docs/speed.md, "... bulk75"). The caller closes it.
    """
    if len(manifests) < PACK_AHEAD or cpus() < 2:
        return None
    # Lazy: the pack writer (zlib, struct) is the write path; a read never loads it.
    from ..git.pack import PackAhead

    ahead = PackAhead([data for m in manifests for data in (m.object_bytes, m.metadata_bytes)])
    ahead.start()
    return ahead


def _kinds_naming(view: View, name: str) -> list[str]:
    """Return the kinds of which a stored manifest is named ``name``, in :data:`KINDS` order.

    For the error of a bare name given as a reference (``show my-run-1``): one lookup per
    kind, a names file each where names are paths, else the index's names. Damaged names
    files are passed over here (the lookup of ``KIND/NAME`` itself reports them).
    """
    if view.has_names_files():
        held = []
        for kind in KINDS:
            with contextlib.suppress(KistoreError):
                if view.named(kind, name) is not None:
                    held.append(kind)
        return held
    owners = view.name_owners([(kind, name) for kind in KINDS])
    return [kind for kind in KINDS if (kind, name) in owners]


def _pack_threshold() -> int:
    """Files from which an add with ``--commit`` writes its work tree in child processes.

    :data:`kistore.git.commit.PACK_THRESHOLD` (from there on it also packs its blobs), or
    this module's ``PACK_THRESHOLD`` when a test set one.
    """
    value = globals().get("PACK_THRESHOLD")
    return int(value) if value is not None else int(__getattr__("PACK_THRESHOLD"))


def __getattr__(name: str) -> Any:
    """Return ``PACK_THRESHOLD`` (re-exported: the bench reads it) from the write path.

    Raises:
        AttributeError: any other name.
    """
    if name != "PACK_THRESHOLD":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # Lazy: git.commit (and logging) is the write path; a read never loads it (docs/speed.md).
    from ..git.commit import PACK_THRESHOLD

    return PACK_THRESHOLD


def _default_policy() -> bytes:
    """Return the shipped default ranking policy (read as data: no query import)."""
    # Lazy: `kistore init` only.
    from ..core.package_data import read_package_data

    return read_package_data("kistore.query", "default_policy.json")


def _plain_work_tree(start: str) -> Path | None:
    """Return the work tree around ``start`` when it is an ordinary one, else None.

    Ordinary: the nearest ``.git`` above ``start`` is a directory holding ``HEAD``, or the
    ``.git`` file of a linked worktree (``gitdir:`` naming a directory with ``HEAD`` and
    ``commondir``: :func:`kistore.git.refs.git_dir_of`); its config (and
    ``config.worktree``, which a sparse checkout uses) sets no ``core.worktree``, and no
    ``GIT_*`` variable redirects git. Everything else (bare repositories, submodules,
    GIT_DIR ...) is left to libgit2's discovery, so both always agree.
    """
    if any(k in os.environ for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES",
                                     "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_COMMON_DIR")):
        return None
    here = Path(os.path.abspath(start))
    for directory in (here, *here.parents):
        dotgit = directory / ".git"
        if os.path.lexists(dotgit):
            if dotgit.is_symlink():
                return None
            if dotgit.is_dir():
                git_dir = common = dotgit
            else:  # a linked worktree's .git file; not a submodule's (no commondir)
                try:
                    git_dir = git_dir_of(directory)
                    if not (git_dir / "commondir").is_file():
                        return None
                    common = common_git_dir(git_dir)
                except RefsUnreadable:  # git_dir_of's .git file, common_git_dir's commondir
                    return None
            if not (git_dir / "HEAD").is_file():
                return None
            try:  # a config not a regular file is never opened (a FIFO would hang): libgit2
                # opens the repository, after kistore.git.config_guard refuses it
                if not stat.S_ISREG(os.stat(common / "config").st_mode):
                    return None
                config = (common / "config").read_text("utf-8", errors="replace").lower()
                if "worktreeconfig" in config:  # `git sparse-checkout` sets it: read both
                    config = config.replace("worktreeconfig", "")
                    worktree = git_dir / "config.worktree"
                    if os.path.exists(worktree) and not stat.S_ISREG(os.stat(worktree).st_mode):
                        return None
                    with contextlib.suppress(FileNotFoundError):
                        config += worktree.read_text("utf-8", errors="replace").lower()
            except OSError:
                return None
            return None if "worktree" in config else directory
        if directory.name == ".git" or (directory / "HEAD").is_file():
            return None  # inside a git directory or a bare repository
    return None


def _enclosing_store(path: Path) -> Path | None:
    """Return the top of the git work tree nearest around ``path`` when it is a store's.

    The nearest directory at or above ``path`` holding a ``.git`` (a directory or a linked
    worktree's file) is the work tree ``git add -A`` there would add ``path`` to; it is a
    store's when it holds ``kistore.toml`` or ``store/objects/`` (a kistore clone, or one
    ``kistore init`` made). None when it is no store's, or there is none. Plain files only.
    """
    for directory in (path, *path.parents):
        if os.path.lexists(directory / ".git"):
            store = (directory / layout.SETTINGS_FILE).is_file() or \
                (directory / layout.OBJECTS_DIR).is_dir()
            return directory if store else None
    return None


def _outside_stores(root: Path, name: str) -> Path:
    """Return ``name`` beside the work tree ``root``, climbing out of stores enclosing it.

    What a refusal of an output inside a store's work tree suggests: beside ``root`` is
    not enough when ``root`` is itself inside another store's work tree (fresh98 LOW: the
    suggestion was again inside the kistore clone holding the store).
    """
    candidate = root.parent / name
    while (outer := _enclosing_store(candidate.parent)) is not None:
        candidate = outer.parent / name
    return candidate


def _open_around(start: str, found: str) -> pygit2.Repository:
    """Open the repository libgit2 found around ``start``, with the work tree git finds.

    Opened from ``start`` (libgit2 searches upward as git does), never from ``found``, the
    git directory: a git directory opened by itself takes its parent for the work tree
    (unless ``core.worktree`` names one), which is wrong for a ``.git`` file naming a
    directory elsewhere (``git clone --separate-git-dir``) and a ``.git`` symbolic link:
    kistore then said "the work tree is not checked out" and advised a checkout that
    changed nothing (fresh01 F6).

    Args:
        start: the directory the search started from.
        found: the git directory ``pygit2.discover_repository(start)`` returned.

    Returns:
        The repository; its ``workdir`` is the directory holding the ``.git`` found
        (``core.worktree``'s when set), None for a bare repository.

    Raises:
        NotOwned: another user owns it (:func:`kistore.git.opening.open_repository`).
    """
    try:
        return open_repository(start)
    except pygit2.GitError:  # start is no longer there, or not readable: as before
        return open_repository(found)


def _environment_repository() -> tuple[pygit2.Repository, Path | None]:
    """Open the repository ``GIT_DIR`` names, with the work tree git takes for it.

    git(1), "ENVIRONMENT": with ``GIT_DIR`` set git does not search; the work tree is
    ``GIT_WORK_TREE``, else ``core.worktree``, else none for a bare repository, else the
    current directory. Relative paths are taken from the current directory. The git
    processes kistore starts inherit both variables, so they read the same repository.
    kistore read the current directory's ``.git`` instead ("not inside a git repository",
    or another repository than its git children's: fresh01 F6).

    Returns:
        The repository and its work tree (None: a bare repository, no work tree given).

    Raises:
        StoreStateError: ``GIT_DIR`` names no git directory, or ``GIT_WORK_TREE`` no
            directory; the message names the variable, its value and what to do.
        NotOwned: another user owns it (:func:`kistore.git.opening.open_repository`).
    """
    named = os.environ["GIT_DIR"]
    git_dir = os.path.abspath(named)
    try:
        repo = open_repository(git_dir)
    except pygit2.GitError:
        raise StoreStateError(
            f"GIT_DIR={named} names no git directory ({git_dir}); unset GIT_DIR (kistore "
            "then finds the repository around the current directory, as git does) or set it "
            "to one", file=git_dir) from None
    tree = os.environ.get("GIT_WORK_TREE")
    if tree:
        if not os.path.isdir(tree):
            raise StoreStateError(
                f"GIT_WORK_TREE={tree} is not a directory; set it to the work tree of "
                f"{git_dir}, or unset it", file=os.path.abspath(tree))
        repo.workdir = os.path.abspath(tree)
    elif repo.workdir is not None and "core.worktree" not in repo.config:
        repo.workdir = os.getcwd()  # git: GIT_DIR alone makes the current directory the top
    workdir = repo.workdir
    return repo, (Path(workdir) if workdir else None)


def _nearest_broken_dotgit(start: str) -> str | None:
    """Say what is wrong with the nearest ``.git`` at or above ``start`` that leads nowhere.

    Returns:
        :func:`kistore.git.refs.broken_dotgit`'s sentence for the nearest such ``.git``, or
        None when the nearest ``.git`` is sound or there is none.
    """
    here = Path(os.path.abspath(start))
    for directory in (here, *here.parents):
        if os.path.lexists(directory / ".git"):
            broken = broken_dotgit(directory)
            if broken is not None or (directory / ".git").is_dir():
                return broken
    return None


def _meant_ref(view: View, kind: str, name: str) -> str:
    """Say which ``KIND/NAME`` a reference with a misspelt kind meant, never a refused name.

    ``benchmarkrun/Café`` was answered "did you mean BenchmarkRun/Café?", a reference
    then refused for its name (msg94 F1). The name offered is one a manifest can hold:
    the stored name meant (:func:`_meant_name`), or the name itself when valid; else the
    kind alone and what a name holds (never a name the store does not hold, as
    docs/queries.md says of a name no manifest can hold).

    Args:
        view: the view the reference is resolved in.
        kind: the kind meant.
        name: what was typed after the slash.

    Returns:
        ``did you mean BenchmarkRun/NAME?``, or ``did you mean BenchmarkRun? ('Café' is no
        valid name either, ...)``.
    """
    meant = _meant_name(view, kind, name) or (name if layout.is_name(name) else None)
    if meant is not None:
        return f"did you mean {kind}/{meant}?"
    return (f"did you mean {kind}? ({name!r} is no valid name either, and no stored name is "
            f"near it: {NAME_RULE})")


def _meant_name(view: View, kind: str, name: str) -> str | None:
    """Return the stored name a person meant by a name no manifest can hold, if one is stored.

    ``sol-kernel-3-submission-25504/`` (a trailing slash, as shells complete directories)
    and ``sol‐kernel‐3‐…`` (U+2010, U+2011, U+2013 hyphens, as word processors write) are
    no valid names; their nearest valid name (:func:`kistore.core.schema.nearest_name`:
    lower case, each run of other characters one ``-``, ends trimmed) is offered when
    ``kind`` holds it (reviewer r90 F8).

    Args:
        view: the view the reference is resolved in.
        kind: the kind asked for.
        name: what was typed after ``KIND/``.

    Returns:
        The stored name, or None when ``name`` is valid itself, none is near, no
        ``kind`` holds the near one, or the store cannot be asked (a damaged names file:
        the lookup then says so).
    """
    trimmed = name.strip().strip("/")
    near = trimmed if layout.is_name(trimmed) else nearest_name(trimmed)
    if near is None or near == name:
        return None
    return near if _holds_name(view, kind, near) else None


def _holds_name(view: View, kind: str, name: str) -> bool:
    """Return True when ``view`` holds ``KIND/NAME`` (its names file, else the index's names).

    False too when the store cannot be asked (a damaged names file: the lookup of
    ``KIND/NAME`` itself then says so). For a did-you-mean: only a stored name is offered.
    """
    try:
        if view.has_names_files():
            return view.named(kind, name) is not None
        return view.name_owners([(kind, name)]).get((kind, name)) is not None
    except (KistoreError, sqlite3.Error, OSError):
        return False


def _shard_digests(view: View, prefix: str) -> list[Digest]:
    """Return the digests of the object files in the shard of ``prefix`` (2+ hex digits)."""
    shard = f"{layout.OBJECTS_DIR}/{prefix[:2]}"
    return [d for leaf in view.list_dir(shard)
            if (d := layout.digest_from_path(f"{shard}/{leaf}")) is not None]


def _meant_by_path(view: View, ref: str) -> str | None:
    """Return the reference a person meant by a store path or ``/KIND/NAME``, if it is stored.

    People copy the paths ``verify`` and the errors print (``store/objects/sha256/38/
    4a96....json``, ``store/names/BenchmarkRun/df/NAME``, from the clone's top or as an
    absolute path), or write ``/BenchmarkRun/NAME`` (reviewer break96 L2, cat97: no
    did-you-mean). An object or metadata file's path means its digest, a names file's its
    ``KIND/NAME``; each offered only when the view holds it, never applied.

    Args:
        view: the view the reference is resolved in.
        ref: what was typed.

    A slash after any of them, or after a digest or prefix (``784df6cd/``: a shell's
    completion of a path adds one), is read without it (break97 L8: no did-you-mean).

    Returns:
        ``sha256:<hex>`` or ``KIND/NAME``; None when ``ref`` is none of those or the store
        holds nothing so named.
    """
    text = ref.strip()
    if text.endswith("/") and text.strip("/"):
        bare = text.rstrip("/")
        prefix = parse_prefix(bare)
        if prefix is None:
            return _meant_by_path(view, bare)
        try:  # a digest or prefix: the one stored object it names
            return str(match_prefix(prefix, _shard_digests(view, prefix)))
        except ResolutionError:
            return None
    top = text.rfind(layout.STORE_DIR + "/")
    if top >= 0 and (top == 0 or text[top - 1] == "/"):  # a path, from anywhere
        path = text[top:]
        digest = layout.digest_from_path(path)
        if digest is not None:
            return str(digest) if view.has_object(digest) else None
        parts = path.split("/")  # store/names/KIND/XX/NAME
        if len(parts) == 5 and f"{parts[0]}/{parts[1]}" == layout.NAMES_DIR and \
                parts[2] in KINDS and layout.is_name(parts[4]):
            return f"{parts[2]}/{parts[4]}" if _holds_name(view, parts[2], parts[4]) else None
        return None
    kind, slash, name = text.lstrip("/").partition("/")
    if text.startswith("/") and slash and kind in KINDS:
        meant = name if layout.is_name(name) else _meant_name(view, kind, name)
        return f"{kind}/{meant}" if meant and _holds_name(view, kind, meant) else None
    return None


def _has_name(view: View, digest: Digest, name: str) -> bool:
    """Return True when the work tree's metadata file of ``digest`` still says ``name``.

    The index's names trust directory and file stat data; one read checks its answer.
    """
    try:
        stored = canonical.loads(view.read(layout.metadata_path(digest)) or b"")["name"]
        return isinstance(stored, str) and stored == name
    except (KistoreError, KeyError, TypeError):
        return False


def dangling_near(store: Store, manifests: Sequence[Manifest]
                  ) -> list[tuple[Digest, KistoreError]]:
    """Warn of each dangling reference ``add --allow-dangling`` records a slip off a stored one.

    :meth:`Store.meant_reference` finds the stored manifest it likely means (reviewer r91
    F2: recorded silently; r92 F4: two digits swapped or two wrong, too).

    ``--allow-dangling`` records a run whose reference names nothing (its manifest comes
    later); a digest a slip off a stored manifest of the field's kind never will, and
    the run never ranks, so the add says so, recording it all the same (the option asked
    for that). At most :data:`MEANT_ASKED` distinct references are looked up.

    Args:
        store: the store added to.
        manifests: the manifests the add adds.

    Returns:
        ``(run digest, AdmissionWarning)`` per such reference, at ``/spec/FIELD``.
    """
    # Lazy: the reference fields' kinds, only for an add with --allow-dangling.
    from ..core.model import REFERENCE_FIELDS, REFERENCE_KINDS

    view = store.view(None)
    batch = {m.digest.hex for m in manifests}
    looked: dict[tuple[str, str], tuple[Digest, str] | None] = {}  # each reference once
    asked = 0
    warned: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        for field_name, ref in zip(REFERENCE_FIELDS, m.reference_hex, strict=False):
            kind = REFERENCE_KINDS[field_name]
            if not ref or ref in batch:
                continue
            if (kind, ref) not in looked:
                looked[kind, ref] = None
                if asked < MEANT_ASKED and not view.has_object(Digest(ref)):
                    asked += 1
                    looked[kind, ref] = store.meant_reference(f"sha256:{ref}", kind)
            meant = looked[kind, ref]
            if meant is not None:
                near = slip_said(ref, meant[0].hex)
                warned.append((m.digest, AdmissionWarning(
                    f"{field_name} sha256:{ref} names no stored {kind}, but "
                    f"{meant[0]} ({kind}/{meant[1]}) is {near}: did you mean it? "
                    "The run is recorded (--allow-dangling) and ranks only once a manifest "
                    "of that digest is added, which a digest so near a stored one will "
                    f"never be: if you meant {kind}/{meant[1]}, write its whole digest there "
                    "and add the run anew",
                    pointer=f"/spec/{field_name}")))
    return warned


MEANT_ASKED = 64
"""The distinct references one refused add looks up for a "did you mean" (each up to 1,023
stats and one shard listing: :meth:`Store.meant_reference`)."""


INIT_FILES = f".gitattributes {layout.SETTINGS_FILE} {layout.POLICY_DIR}/ranking.json"
"""The files ``kistore init`` writes, as a ``git add`` argument list."""


def _is_repository_top(root: Path) -> bool:
    """Return True when ``root`` is the top directory of an existing git work tree.

    Raises:
        InputError: ``root`` is a bare repository.
    """
    try:
        found = pygit2.discover_repository(str(root))
    except pygit2.GitError:  # a malformed .git above root: root gets its own, as `git init`
        return False
    if found is None:
        return False
    repo = _open_around(str(root), found)
    if repo.is_bare:
        if Path(found).resolve() == root.resolve():
            raise InputError(
                f"{root} is a bare repository: a store needs a work tree. Clone it (`git "
                f"clone {root} my-index`) and run `kistore init` in the clone; to make it a "
                f"server, copy kistore's hooks/pre-receive into {root}/hooks and set "
                "receive.fsckObjects and pack.window there (README, Hooks)")
        return False
    return repo.workdir is not None and Path(repo.workdir).resolve() == root.resolve()


def _committed(files: Mapping[str, bytes], work_tree_only: Collection[str]
               ) -> Mapping[str, bytes]:
    """Return the files of an add that its commit holds: ``files`` less ``work_tree_only``."""
    if not work_tree_only:
        return files
    return {path: data for path, data in files.items() if path not in work_tree_only}


def _settled_change(path: str) -> str | None:
    """Return a regular file's change key when its bytes may be kept, else None.

    None for no regular file (a symlink, a directory: :meth:`Store.settings_file` says
    why each time) and for one changed within :data:`~kistore.index.freshness.RACY_NS`,
    whose next change could leave the key as it is.
    """
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or is_racy(max(info.st_mtime_ns, info.st_ctime_ns)):
        return None
    return stat_key(info)


def _subject_part(result: AddResult) -> str:
    """Return what an add's default commit subject says of one manifest.

    ``KIND/NAME``; for a manifest stored already whose add wrote group files of earlier
    runs (:attr:`AddResult.completed`), those files: the subject was the same as that of
    the commit that added the manifest (fresh00b LOW: two identical subjects in `git log`).
    """
    if result.status == "unchanged" and result.completed:
        n = len(result.completed)
        return (f"group file{'s' * (n != 1)} of {n} earlier run{'s' * (n != 1)} completed by "
                f"{result.kind}/{result.name}")
    return f"{result.kind}/{result.name}"
