"""Every attributes and ignore file git may read, looked at (never opened) before git is asked.

git and libgit2 read the attributes files before they compare a work-tree file with the
index or a commit (``git status``, ``git diff``, libgit2's status: the filters a file
passes through are attributes). They open each one and read it: a FIFO there makes the
read wait for ever, inside git's C code, where Ctrl-C does not reach (fifo02, attr03,
fresh11 M3). The files (gitattributes(5); libgit2's ``attr_setup``):

- a ``.gitattributes`` in each directory of the work tree: every directory under
  ``store/`` on disk (:func:`_store_directories`), and each other directory ``HEAD``'s tree
  holds (:func:`_tree_directories`, one ``stat`` each);
- ``$GIT_COMMON_DIR/info/attributes``;
- outside the repository: ``core.attributesFile`` as git reads it (its includes,
  ``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_*`` and ``-c`` count: :func:`_configured`), else its
  default ``$XDG_CONFIG_HOME/git/attributes`` (``~/.config/git/attributes``); git's system
  file ``/etc/gitattributes`` (unless ``GIT_ATTR_NOSYSTEM``) and libgit2's,
  ``gitattributes`` in its system search path.

:func:`refuse_blocking_attributes` stats them all (``os.stat``: a symbolic link is
judged by what it names) and refuses, naming the first that is not a regular file, what
it is and how to remove it. It costs a walk of ``store/``'s directories (a ``stat`` of
each, the few that hold directories listed), one ``stat`` per other directory and a ``git
config`` child (about a third of a clean libgit2 status of the same work tree: docs/speed.md;
its answer kept for the process while git's config files are unchanged,
:func:`kistore.git.config_files.kept`):
asked only right before git compares the work tree (verify's work-tree status,
``migrate``'s ``git diff``), never on verify's fast path, which asks git nothing.
The ignore files (gitignore(5)) are looked at in the same walk (fresh12 F9: a FIFO
there made ``add``, ``import`` and ``verify`` wait for ever): a ``.gitignore`` beside each
``.gitattributes`` above, ``$GIT_COMMON_DIR/info/exclude`` and ``core.excludesFile`` (the
same ``git config`` child), else ``$XDG_CONFIG_HOME/git/ignore``.
:func:`refuse_blocking_ignores` looks only at those an ``add`` makes git read (the
``.gitignore`` of the directories on its paths and the files outside the work tree).
What it does not cover: ``git status`` or ``git commit`` typed by hand wait on such a file
all the same, inside git, before any hook runs (docs/threats.md).

``verify`` asks twice, the ignore files before ``git ls-files`` (KI119) and every file
before git's status: within :func:`walking_once` the work tree is walked once a command
(doc01), the second asking replaying the directories the first listed and stat'ing only
the files it did not.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..core import layout
from ..core.errors import StoreStateError
from ..core.file_kinds import kind_at
from .child import git_environment
from .config_files import kept, xdg_config_home
from .lazy import pygit2 as _pygit2  # imported on first use
from .refs import RefsUnreadable, common_git_dir, git_dir_of

if TYPE_CHECKING:
    import pygit2

__all__ = ["Blocking", "blocking_attributes", "refuse_blocking_add_attributes",
           "refuse_blocking_attributes", "refuse_blocking_ignores", "walking_once"]

_ATTRIBUTES = ".gitattributes"
_IGNORE = ".gitignore"
_SETTINGS = {"core.attributesfile": "core.attributesFile",
             "core.excludesfile": "core.excludesFile"}


@dataclass(frozen=True)
class Blocking:
    """An attributes or ignore file git would read that is not a regular file.

    Attributes:
        path: the file as said to the user (a repository path for a file of the work
            tree, ``.git/info/attributes``, else absolute).
        full: the file's absolute path (for ``rm``).
        kind: what it is (``a FIFO``, ``a socket``, ``a directory``, ...).
        origin: for ``core.attributesFile`` or ``core.excludesFile``, where git found
            the setting (``file:PATH`` or ``command line:``), else None.
        setting: that setting's name (``core.excludesFile``), else None.
    """

    path: str
    full: Path
    kind: str
    origin: str | None = None
    setting: str | None = None

    @property
    def ignore(self) -> bool:
        """True for an ignore file (``.gitignore``, ``info/exclude``, ``core.excludesFile``)."""
        return (self.setting == "core.excludesFile" if self.setting is not None
                else self.full.name in (_IGNORE, "exclude", "ignore"))


def _judge(full: Path, shown: str, origin: str | None = None,
           setting: str | None = None) -> Blocking | None:
    """Return :class:`Blocking` when ``full`` exists and is not a regular file (a stat)."""
    kind = kind_at(full, follow=True)  # None: absent, a broken link, unreadable: git reads
    return Blocking(shown, full, kind, origin, setting) if kind else None  # nothing either


def _store_directories(workdir: Path) -> Iterator[str]:
    """Yield ``store/`` and each directory under it whose ``.gitattributes`` git may read.

    Absolute paths, in the order they are looked at. A directory's ``.gitattributes`` and
    ``.gitignore`` are stat'ed, never looked for in a listing: a directory whose link count
    says it holds no subdirectory (``st_nlink == 2``, as ext4, xfs and tmpfs count: the
    shards of objects, metadata and names) is not listed at all, which halves the walk; one
    counted otherwise (btrfs counts 1) is listed. Symbolic links to directories are not
    followed (git does not either).
    """
    pending = [os.path.join(os.fspath(workdir), layout.STORE_DIR)]
    while pending:
        directory = pending.pop()
        yield directory
        try:
            listing = os.scandir(directory)
        except OSError:  # absent, not a directory, unreadable
            continue
        entries: list[tuple[str, bool]] = []  # (path, leaf), the listing closed before a yield
        with listing:
            for entry in listing:
                if not entry.is_dir(follow_symlinks=False):
                    continue
                try:
                    entries.append((entry.path,
                                    entry.stat(follow_symlinks=False).st_nlink == 2))
                except OSError:
                    continue
        for path, leaf in entries:
            if leaf:
                yield path
            else:
                pending.append(path)


def _judge_str(directory: str, top: str, names: tuple[str, ...] = (_ATTRIBUTES, _IGNORE),
               regular: set[str] | None = None) -> Blocking | None:
    """Return :func:`_judge` of ``directory``'s ``names``, said from ``top``.

    ``names``: ``.gitattributes`` and ``.gitignore`` unless told; the first not a regular file.
    ``regular``: files (absolute) already found regular or absent, not stat'ed again; each
    such file stat'ed here is added to it (None: none kept).
    """
    for name in names:
        full = os.path.join(directory, name)
        if regular is not None and full in regular:
            continue
        if kind_at(full, follow=True):  # None: absent (nearly always), no Path made
            return _judge(Path(full), Path(os.path.relpath(full, top)).as_posix())
        if regular is not None:
            regular.add(full)
    return None


def _tree_directories(workdir: Path, tree: pygit2.Tree | None) -> Iterator[str]:
    """Yield the top of the work tree and each directory ``tree`` holds outside ``store/``.

    Absolute paths, in the order they are looked at (one ``stat`` per file asked of each,
    blobs not read).

    Args:
        workdir: the top of the work tree.
        tree: ``HEAD``'s tree, or None (an unborn branch: only the top is looked at).
    """
    pending: list[tuple[str, pygit2.Tree | None]] = [("", tree)]
    while pending:
        prefix, node = pending.pop()
        yield os.path.join(workdir, prefix)
        if node is None:
            continue
        for entry in node:
            name = entry.name
            if entry.type_str != "tree" or name is None or (
                    not prefix and name == layout.STORE_DIR):
                continue
            try:
                sub = cast("pygit2.Tree", node[name])  # pygit2 types it as an Object
            except (KeyError, _pygit2.GitError):  # a missing tree: said by those who read it
                continue
            pending.append((f"{prefix}{name}/", sub))


@dataclass
class _Walk:
    """One walk of the work tree's directories, replayed to each later asking (doc01).

    Attributes:
        directories: the walk itself, not yet run past :attr:`seen`.
        seen: the directories it yielded so far, in order.
        regular: the files (absolute) found regular or absent so far.
    """

    directories: Iterator[str]
    seen: list[str] = field(default_factory=list)
    regular: set[str] = field(default_factory=set)

    def __iter__(self) -> Iterator[str]:
        """Yield :attr:`seen`, then the walk's next directories (each kept in :attr:`seen`)."""
        i = 0
        while True:
            if i == len(self.seen):
                directory = next(self.directories, None)
                if directory is None:
                    return
                self.seen.append(directory)
            yield self.seen[i]
            i += 1


@dataclass
class _Once:
    """What :func:`walking_once` keeps for its block.

    Attributes:
        walks: the walk of each (work tree, ``HEAD``'s tree id).
        configured: :func:`_configured`'s answer for each work tree.
    """

    walks: dict[tuple[str, str | None], _Walk] = field(default_factory=dict)
    configured: dict[str, dict[str, tuple[Path, str]]] = field(default_factory=dict)


_ONCE: ContextVar[_Once | None] = ContextVar("kistore_attr_guard_once", default=None)
"""Within :func:`walking_once`, what it keeps; else None (each asking walks anew)."""


@contextmanager
def walking_once() -> Iterator[None]:
    """Walk the work tree once for every asking of the guard within (one command).

    ``verify`` asks :func:`refuse_blocking_attributes` of the ignore files (``git
    ls-files``, KI119) and, when git's status is asked, of every file: the second asking
    replays the directories the first listed (no directory listed, no tree read again) and
    stat's only the files the first did not find regular or absent; ``git config`` is run
    once. Keyed on the work tree and ``HEAD``'s tree id; the answers and their order are
    those of a walk of their own. Nothing is kept past the block: a file made between two
    commands is seen by the next.

    Yields:
        None. Raises nothing of its own.
    """
    token = _ONCE.set(_Once())
    try:
        yield
    finally:
        _ONCE.reset(token)


def _work_tree_files(workdir: Path, tree: pygit2.Tree | None, names: tuple[str, ...]
                     ) -> Blocking | None:
    """Return the first ``names`` file of the work tree's directories not a regular file.

    The directories of ``tree`` outside ``store/`` (:func:`_tree_directories`), then
    ``store/``'s (:func:`_store_directories`); within :func:`walking_once`, walked once.
    """
    top = os.fspath(workdir)
    once = _ONCE.get()
    if once is None:
        for directory in _directories(workdir, tree):
            if (found := _judge_str(directory, top, names)) is not None:
                return found
        return None
    key = (top, None if tree is None else str(tree.id))
    walk = once.walks.get(key)
    if walk is None:
        walk = once.walks[key] = _Walk(_directories(workdir, tree))
    for directory in walk:
        if (found := _judge_str(directory, top, names, walk.regular)) is not None:
            return found
    return None


def _directories(workdir: Path, tree: pygit2.Tree | None) -> Iterator[str]:
    """Yield every directory whose ``.gitattributes`` and ``.gitignore`` git may read."""
    yield from _tree_directories(workdir, tree)
    yield from _store_directories(workdir)


def _configured(workdir: Path, git_dir: Path | None) -> dict[str, tuple[Path, str]]:
    """Return ``core.attributesFile`` and ``core.excludesFile`` as git reads them.

    :func:`_asked` once per process while git's config files and the environment are
    unchanged (:func:`kistore.git.config_files.kept`, keyed on the files
    :func:`kistore.git.config_files.config_files` finds for ``git_dir``); asked anew when
    ``git_dir`` is None (not known here).
    """
    if git_dir is None:
        return _asked(workdir)[0]
    return kept(git_dir, ("core.attributesFile", os.fspath(workdir)),
                lambda: _asked(workdir))


def _asked(workdir: Path) -> tuple[dict[str, tuple[Path, str]], bool]:
    """Return ``core.attributesFile`` and ``core.excludesFile`` as git reads them, asked of git.

    One ``git config --show-origin -z --path --get-regexp`` child for both, run at the top
    of the work tree: the repository's config, the global and system files, includes,
    ``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n`` and ``git -c``
    (``GIT_CONFIG_PARAMETERS``) all count, as for any git command kistore runs; the last
    value set wins, as in git. A relative value is read from the top of the work tree.
    git itself is asked, not the files' text read here: its answer is exact where a
    reading of ours would have to follow git's quoting and escapes, ``includeIf``'s
    ``onbranch:`` and ``hasconfig:`` conditions, ``%(prefix)/``, ``git -c``'s own quoting,
    its refusal of a file it cannot parse and its spelling of each origin (``.git/config``
    from the top of a work tree), every one said in a refusal; and kept, it costs one child
    per process, not one per asking.

    Returns:
        ``{setting: (file, origin)}`` keyed by the setting's name as written in docs
        (``core.excludesFile``), a setting unset absent, both when git cannot be run; and
        whether to keep the answer (False when git could not be run).
    """
    try:
        done = subprocess.run(
            ["git", "-C", os.fspath(workdir), "config", "--show-origin", "-z", "--path",
             "--get-regexp", r"^core\.(attributesfile|excludesfile)$"],
            capture_output=True, env=git_environment())
    except OSError:  # no git command: only libgit2 reads, and it reads the same files
        return {}, False
    if done.returncode != 0:
        return {}, True
    parts = done.stdout.split(b"\0")
    found: dict[str, tuple[Path, str]] = {}
    for origin, pair in zip(parts[0::2], parts[1::2], strict=False):
        key, _, value = pair.partition(b"\n")
        setting = _SETTINGS.get(os.fsdecode(key).lower())
        if setting is not None and value:
            found[setting] = (workdir / os.fsdecode(value), os.fsdecode(origin))
    return found, True


def _outside(workdir: Path, git_dir: Path | None, attributes: bool = True
             ) -> list[tuple[Path, str | None, str | None]]:
    """Return every attributes and ignore file outside the repository git or libgit2 may read.

    Each with the origin of ``core.attributesFile`` or ``core.excludesFile`` and the
    setting's name (None, None for the defaults). ``attributes`` False: the ignore file only.
    """
    once = _ONCE.get()
    known = None if once is None else once.configured.get(os.fspath(workdir))
    configured = _configured(workdir, git_dir) if known is None else known
    if once is not None:
        once.configured[os.fspath(workdir)] = configured
    files: list[tuple[Path, str | None, str | None]] = []
    for setting, default in (("core.attributesFile", "attributes"),
                             ("core.excludesFile", "ignore")):
        if not attributes and default == "attributes":
            continue
        if setting in configured:
            path, origin = configured[setting]
            files.append((path, origin, setting))
        else:
            files.append((xdg_config_home() / "git" / default, None, None))
    if not attributes:
        return files
    if os.environ.get("GIT_ATTR_NOSYSTEM", "").lower() not in ("1", "true", "yes", "on"):
        files.append((Path("/etc/gitattributes"), None, None))  # git's ($(prefix)/etc: /usr)
    search = _pygit2.option(_pygit2.enums.Option.GET_SEARCH_PATH,
                            _pygit2.enums.ConfigLevel.SYSTEM)
    for directory in (search or "").split(os.pathsep):  # libgit2's (it ignores NOSYSTEM)
        if directory and (Path(directory) / "gitattributes", None, None) not in files:
            files.append((Path(directory) / "gitattributes", None, None))
    return files


def _repository_files(common_dir: Path, attributes: bool = True) -> Blocking | None:
    """Return ``info/attributes`` or ``info/exclude`` of ``common_dir`` when not a regular file."""
    for name, shown in ((("attributes", ".git/info/attributes"),) if attributes else ()) + (
            ("exclude", ".git/info/exclude"),):
        found = _judge(common_dir / "info" / name, shown)
        if found is not None:
            return found
    return None


def _outside_files(workdir: Path, git_dir: Path | None, attributes: bool = True
                   ) -> Blocking | None:
    """Return the first file of :func:`_outside` that is not a regular file."""
    for path, origin, setting in _outside(workdir, git_dir, attributes):
        found = _judge(path, os.fspath(path), origin, setting)
        if found is not None:
            return found
    return None


def blocking_attributes(repo: pygit2.Repository, attributes: bool = True
                        ) -> Blocking | None:
    """Return the first attributes or ignore file git may read that is not a regular file.

    Looked at in git's order of reading, the files outside the repository last (see the
    module's docstring); each only stat'ed, never opened.

    Args:
        repo: a repository with a work tree (a bare one: only ``info/attributes``,
            ``info/exclude`` and the files outside).
        attributes: False: the ignore files only (for ``git ls-files``, which reads no
            attributes: a FIFO ``.gitattributes`` stays KI113's finding there).

    Returns:
        The file (:class:`Blocking`), or None when every one is a regular file or absent.

    Raises:
        RefsUnreadable: the repository's ``commondir`` file is there but cannot be read
            (:func:`kistore.git.refs.common_git_dir`). Nothing else: a file that cannot be
            stat'ed, a ``HEAD`` or tree that cannot be read, and a ``git config`` that
            cannot run are each taken as nothing to look at (git reads nothing there
            either, or says it itself).
    """
    workdir = Path(repo.workdir) if repo.workdir else None
    if workdir is not None:
        try:
            tree = None if repo.head_is_unborn else repo.head.peel(_pygit2.Tree)
        except _pygit2.GitError:  # HEAD unreadable: said by those who read it
            tree = None
        names = (_ATTRIBUTES, _IGNORE) if attributes else (_IGNORE,)
        found = _work_tree_files(workdir, tree, names)
        if found is not None:
            return found
    return (_repository_files(common_git_dir(Path(repo.path)), attributes)
            or _outside_files(workdir or Path(repo.path), Path(repo.path), attributes))


def refuse_blocking_attributes(repo: pygit2.Repository, asking: str,
                               attributes: bool = True, *, writes: bool = True) -> None:
    """Refuse, before git is asked, when an attributes or ignore file would make it wait.

    Args:
        repo: the repository.
        asking: what kistore was about to ask git, for the message (``git's status of
            the work tree``).
        attributes: False: the ignore files only (:func:`blocking_attributes`).
        writes: whether the command may write (the message then says "nothing was
            written"); False for one that only reads, ``verify``, ``check``, ``rank``
            (fresh13 9: ``verify`` said "nothing was written", though it never writes).

    Raises:
        StoreStateError: :func:`blocking_attributes` found a file (exit status 1); the
            message names it, what it is, and the fix (``rm PATH``; for
            ``core.attributesFile`` or ``core.excludesFile`` also the config file setting
            it and how to unset it).
    """
    _refuse(blocking_attributes(repo, attributes), asking, writes)


def refuse_blocking_ignores(root: Path, common_dir: Path, dirs: Iterable[str],
                            asking: str) -> None:
    """Refuse, before ``git check-ignore`` is asked, when an ignore file would make it wait.

    For ``add``: no store walk, no libgit2.

    Args:
        root: the work tree's root.
        common_dir: the repository's common git directory (``info/exclude``).
        dirs: repository directories (POSIX, ``""`` the root) whose ``.gitignore`` git
            reads.
        asking: what kistore was about to ask git, for the message.

    Raises:
        StoreStateError: a ``.gitignore`` of ``dirs``, ``info/exclude``,
            ``core.excludesFile`` (else ``$XDG_CONFIG_HOME/git/ignore``) is not a regular
            file (exit status 1; the message as :func:`refuse_blocking_attributes`').
    """
    top = os.fspath(root)
    for directory in sorted(dirs):
        found = _judge_str(os.path.join(top, directory), top, (_IGNORE,))
        if found is not None:
            _refuse(found, asking)
    try:
        git_dir: Path | None = git_dir_of(root)
    except RefsUnreadable:  # git says what is wrong there
        git_dir = None
    _refuse(_repository_files(common_dir, attributes=False)
            or _outside_files(root, git_dir, attributes=False), asking)


def refuse_blocking_add_attributes(root: Path, common_dir: Path, dirs: Iterable[str]) -> None:
    """Refuse an ``add`` when an attributes file git reads for its files is not a regular file.

    ``add`` asks git nothing of attributes, but ``git status`` and ``git add store``, the
    next steps, read them and wait on a FIFO for ever (fresh14 F3: a FIFO top
    ``.gitattributes`` let ``add`` and ``add --commit`` go on without a word). Looked at:
    the ``.gitattributes`` of each directory on the paths (the top one among them) and
    ``info/attributes``, a ``stat`` each; not the files outside the repository, which
    ``verify`` looks at (:func:`refuse_blocking_attributes`: a ``git config`` child).

    Args:
        root: the work tree's root.
        common_dir: the repository's common git directory (``info/attributes``).
        dirs: repository directories (POSIX, ``""`` the root) on the add's paths.

    Raises:
        StoreStateError: one is not a regular file (exit status 1): the message names it,
            what it is and the fix (the top ``.gitattributes``: ``git checkout HEAD --
            .gitattributes``, which writes over it; another: ``rm PATH``).
    """
    top = os.fspath(root)
    found = None
    for directory in sorted(dirs):
        found = _judge_str(os.path.join(top, directory), top, (_ATTRIBUTES,))
        if found is not None:
            break
    found = found or _judge(common_dir / "info" / "attributes", ".git/info/attributes")
    if found is None:
        return
    if found.path != _ATTRIBUTES:
        fix = f"remove it (`rm {_quoted(found.full)}`)"
    else:  # git checkout writes over a FIFO, not over a directory
        first = f", after `rm -r {_ATTRIBUTES}`" if found.kind == "a directory" else ""
        fix = f"put the store's back (`git checkout HEAD -- {_ATTRIBUTES}`{first})"
    raise StoreStateError(
        f"an attributes file git reads is {found.kind}, not a regular file: git opens and "
        "reads it before it compares a work-tree file, so `git status` and `git add store` "
        f"would wait for ever on the files this add writes; nothing was written. "
        f"{fix[0].upper()}{fix[1:]}, then run the command again", file=found.path)


def _refuse(found: Blocking | None, asking: str, writes: bool = True) -> None:
    """Raise the refusal of :func:`refuse_blocking_attributes` for ``found`` (None: return).

    ``writes``: say "nothing was written" (False: a command that only reads).
    """
    if found is None:
        return
    fix = f"remove it (`rm {_quoted(found.full)}`)"
    what = f"an {'ignore' if found.ignore else 'attributes'} file git reads"
    if found.origin is not None:
        what = f"{found.setting} ({_said_origin(found.origin)})"
        if found.origin.startswith("file:"):
            fix += (" or stop naming it (`git config --file "
                    f"{_quoted(Path(found.origin[len('file:'):]))} --unset "
                    f"{found.setting}`)")
        else:
            fix += " or stop setting it there"
    before = ("lists or adds a work-tree file" if found.ignore
              else "compares a work-tree file")
    raise StoreStateError(
        f"{what} is {found.kind}, not a regular file: git opens and reads it before it "
        f"{before}, and would wait for ever; {asking} was not asked"
        f"{', nothing was written' if writes else ''}. {fix[0].upper()}{fix[1:]}, then run "
        "the command again",
        file=found.path)


def _said_origin(origin: str) -> str:
    """Return where git found a setting, in words (``set in FILE``, ``set by git -c ...``)."""
    if origin.startswith("file:"):
        return f"set in {origin[len('file:'):]}"
    if origin.startswith("command line:"):
        return "set by `git -c` or a GIT_CONFIG_* environment variable"
    return f"set in {origin}"


def _quoted(path: Path) -> str:
    """Return ``path`` as a shell word (quoted only when it needs it)."""
    # Lazy: shlex only when a refusal is said.
    import shlex

    return shlex.quote(os.fspath(path))
