"""Notes whose subjects a remote lacks: checked by ``kistore notes push`` before it pushes.

A note annotates an object file's blob by id; a notes push sends the notes, never the
object. A note on a run added only on an unpushed branch (or a local commit the server
never received) is about an object the server lacks: its pre-receive hook refuses the
whole notes update (KI409), and so every later ``kistore notes push``, a maintainer's
withdrawal too (reviewer r85 F24). :func:`subjects_missing` names such notes first, so
that the push is refused here with the fix, never half-done, and no note is dropped.

Kept apart from :mod:`kistore.attest.notes` (the transports), which calls it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import layout
from ..core.digest import Digest
from ..core.layout import NOTES_REF
from ..git.blobs import read_blob
from ..git.notes import note_tree, notes_tree
from ..git.remote_config import refuse_blocking_remote_config

if TYPE_CHECKING:  # pragma: no cover - typing only
    import subprocess

    import pygit2

__all__ = ["subjects_missing", "unsent_message"]

_HEX = re.compile(r"[0-9a-f]{40}")
"""An annotated object id as a canonical note path spells it (SHA-1)."""

_PATHS_ASKED = 256
"""Object paths named to ``git ls-tree`` at most; more list the whole objects folder."""


def subjects_missing(repo: pygit2.Repository, remote: str, theirs: str | None,
                     ours: str | None = None) -> list[str]:
    """Return the annotated objects of notes we would push that ``remote``'s branches lack.

    Only notes new or changed since the remote's notes (``theirs``) are asked about: the
    remote's gate judged the others. An object counts as present when it is the blob at
    its object path (``store/objects/sha256/XX/REST.json``) in the tree of a branch or
    tag tip ``git ls-remote`` lists; a tip this clone lacks is fetched first (objects
    only, no ref moves).

    Args:
        repo: the clone.
        remote: a remote name or URL (not starting with ``-``: the caller refused that).
        theirs: the remote's notes commit as fetched, or None when it has none.
        ours: the notes commit to push (None: ``refs/notes/kistore``'s tip).

    Returns:
        Annotated object ids (hex), sorted; empty when the remote holds every subject.
        A note on what this clone holds as no blob (or a path that is no object id, KI424)
        is left to the server to judge.

    Raises:
        StoreStateError: ``git ls-remote`` failed (the fetch just before succeeded).
    """
    if ours is None:
        ref = repo.references.get(NOTES_REF)
        if ref is None:
            return []
        ours = str(ref.target)
    after = note_tree(repo, notes_tree(repo, ours, NOTES_REF))
    before = {} if theirs is None else note_tree(repo, notes_tree(repo, theirs, NOTES_REF))
    paths: dict[str, str] = {}  # annotated object -> its object path
    for obj, blob in after.items():
        if before.get(obj) == blob or not _HEX.fullmatch(obj):  # KI424 names a bad path
            continue
        target = repo.get(obj)
        if target is None or target.type_str != "blob":  # the gate judges what this is
            continue
        paths[obj] = layout.object_path(Digest.of(read_blob(repo, obj, f"{NOTES_REF}:{obj}")))
    if not paths:
        return []
    missing = dict(paths)
    for tip in _remote_tips(repo, remote):
        asked = sorted(set(missing.values()))  # many: the whole folder (argv stays short)
        listed = _git(repo, "ls-tree", "-r", "--full-tree", tip, "--",
                      *(asked if len(asked) <= _PATHS_ASKED else [layout.OBJECTS_DIR]))
        present = {line.split("\t", 1)[1]: line.split()[2]
                   for line in listed.stdout.splitlines() if "\t" in line}
        missing = {obj: path for obj, path in missing.items() if present.get(path) != obj}
        if not missing:
            break
    return sorted(missing)


def unsent_message(repo: pygit2.Repository, remote: str, missing: list[str]) -> str:
    """Return why a notes push was refused and the two ways on, naming each note.

    Args:
        repo: the clone (each note's subject digest is read from its object).
        remote: as given to ``kistore notes push``.
        missing: :func:`subjects_missing`'s answer (not empty).
    """
    typed = shlex.quote(remote)  # the commands run as printed (a path with a space)
    named = []
    for obj in missing:
        subject = Digest.of(read_blob(repo, obj, f"{NOTES_REF}:{obj}"))
        named.append(f"{NOTES_REF}:{obj} (on {subject})")
    return (f"{remote} lacks the subject of {len(missing)} note(s) to push: "
            + ", ".join(named) + f"; its pre-receive hook would refuse the whole notes update "
            "(KI409), nothing was pushed. The run is on a branch or commit not yet on "
            f"{remote}: push it first (`git push {typed} BRANCH`, then `kistore notes push "
            f"{typed}`), or remove the note(s) (`git notes --ref kistore remove "
            + " ".join(missing) + f"`, then `kistore notes rebase {typed}`: the removal is "
            "one in the notes history a push brings, which the hook refuses too, KI408); "
            "your notes are unchanged")


def _remote_tips(repo: pygit2.Repository, remote: str) -> list[str]:
    """Return the commit ids of ``remote``'s branches and tags, fetching those we lack."""
    refuse_blocking_remote_config(Path(repo.path), remote)  # its git-upload-pack would wait
    listed = _git(repo, "ls-remote", "--heads", "--tags", remote)
    tips = list(dict.fromkeys(line.split()[0] for line in listed.stdout.splitlines()
                              if line.strip() and not line.endswith("^{}")))
    lacking = [tip for tip in tips if repo.get(tip) is None]
    if lacking:  # objects only: FETCH_HEAD and the remote-tracking refs stay as they are
        _git(repo, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, *lacking,
             check=False)
    return [tip for tip in tips if repo.get(tip) is not None]


def _git(repo: pygit2.Repository, *args: str, check: bool = True
         ) -> subprocess.CompletedProcess[str]:
    # Lazy: notes imports this module; its git runner raises StoreStateError as wanted
    from .notes import _git as run

    return run(repo, *args, check=check)
