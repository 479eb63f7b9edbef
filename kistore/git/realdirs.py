"""Whether each name on the way to a work-tree directory is a directory, not a symbolic link.

git commits a symbolic link as a blob of mode ``120000`` and checks it out as a link, so
a clone can hold ``store/metadata/sha256/6b -> /elsewhere`` (or a file where a directory
belongs). Anything that follows the path follows the link: a write lands outside the
repository (:func:`kistore.git.writer.refuse_links` refuses it, new-user review F20), a
read or a listing takes what lies behind it for the store's
(:meth:`kistore.store.WorkTreeView.linked_dir`, the index's shard listing: r70 F2).
:func:`first_not_dir` is the one look all three take: one ``lstat`` per name, nothing
followed. Paths only: no git, no pygit2 (a warm query imports this).
"""

from __future__ import annotations

import os
import stat
from collections.abc import MutableMapping

ABSENT = 0
"""The mode :func:`first_not_dir` gives a name that does not exist (no file type is 0)."""


def first_not_dir(top: str | os.PathLike[str], rel: str,
                  modes: MutableMapping[str, int] | None = None) -> tuple[str, int] | None:
    """Return the first name on the way to directory ``rel`` below ``top`` that is no directory.

    The names are looked at from the top down with ``lstat`` (a symbolic link's own mode,
    never its target's), ``store`` then ``store/metadata`` ... then ``rel`` itself.

    Args:
        top: the work tree's root; not looked at itself (it may be reached through links).
        rel: a ``/``-separated directory path relative to ``top``
            (``store/metadata/sha256/6b``).
        modes: ``{relative path: st_mode}`` of the names already looked at, read first and
            filled as names are looked at, for callers that look at many directories of one
            tree at one time (a view's reads, one add's checks). A name found absent is not
            kept (a write may make it). None: every name is looked at.

    Returns:
        None when ``rel`` and each directory above it below ``top`` is a directory (not a
        link to one). Else ``(path, mode)``: the first such name's relative path and its
        ``st_mode`` (``stat.S_ISLNK``: a symbolic link; a file, a FIFO ...), or
        :data:`ABSENT` when it does not exist (nor does anything below it).
    """
    base = os.path.join(os.fspath(top), "")
    end = -1
    while True:
        end = rel.find("/", end + 1)
        path = rel if end < 0 else rel[:end]
        mode = modes.get(path) if modes is not None else None
        if mode is None:
            try:
                mode = os.lstat(base + path).st_mode
            except (FileNotFoundError, NotADirectoryError):
                return path, ABSENT
            if modes is not None:
                modes[path] = mode
        if not stat.S_ISDIR(mode):
            return path, mode
        if end < 0:
            return None
