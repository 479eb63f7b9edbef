"""The git layer: packs, tree diffs, git's index, work-tree writes, commits and notes trees.

Knows git's formats and pygit2 (imported on first use, :mod:`.lazy`), nothing of
manifests beyond the store's layout (core). Modules: :mod:`.ids` (blob ids), :mod:`.pack`
(packfiles), :mod:`.treediff` (``git diff-tree`` reading only changed subtrees),
:mod:`._gitindex` and :mod:`._pending_index` (git's index under its lock), :mod:`.writer`
(atomic work-tree writes with undo), :mod:`.commit` (trees, commits, compare-and-swap branch moves),
:mod:`.notes` (which objects a notes ref annotates), :mod:`.quarantine` (objects a push
is still bringing in, inside ``pre-receive``), :mod:`.locks` (git's lock-file names),
:mod:`.realdirs` (a symbolic link or a file on the way to a work-tree directory),
:mod:`._loose` (every object and private-ref write, made again when a ``git gc`` beside
broke it).
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from .commit import PACK_THRESHOLD as PACK_THRESHOLD
    from .commit import BranchCommit as BranchCommit
    from .commit import check_ready as check_ready
    from .ids import blob_id as blob_id
    from .notes import annotated_blobs as annotated_blobs
    from .notes import note_tree as note_tree
    from .quarantine import admit_quarantine as admit_quarantine
    from .treediff import changed_files as changed_files
    from .writer import FileBatch as FileBatch
    from .writer import atomic_write as atomic_write

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "commit": ["BranchCommit", "PACK_THRESHOLD", "check_ready"],
    "notes": ["annotated_blobs", "note_tree"],
    "ids": ["blob_id"],
    "quarantine": ["admit_quarantine"],
    "treediff": ["changed_files"],
    "writer": ["FileBatch", "atomic_write"],
})
