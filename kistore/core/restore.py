"""What to tell a person to do about a stored file that is damaged or unwanted.

A file ``HEAD`` holds comes back with ``git checkout HEAD -- PATH`` (from ``HEAD``, not
from git's index: after ``git add`` or ``commit -a`` the index holds the edit, and
``git checkout -- PATH`` restored nothing, reviewer r86 F7); a file only a plain
``kistore add`` wrote (never committed) has no copy in git, so that command fails on it
(reviewer r85 F3): ``kistore drop DIGEST`` removes that add's files instead, and the
corrected manifest is added again, under the same name if wanted. A file a merge left
unmerged (git's index holds its stages 1-3) fails ``git checkout -- PATH`` too ("path is
unmerged", reviewer r85 F22): one side is taken, or the metadata written again, then
``git add PATH``. An object file renamed by hand (``mv`` to another name in its shard)
holds the bytes of a digest whose own object file is then missing: it is renamed back
(:func:`renamed_advice`, reviewer r90 F7: it was called "never committed: git has no copy"
and the advice dropped it). One owner of the wording, for ``show``, ``add`` and ``verify``.
"""

from __future__ import annotations

from . import layout
from .digest import Digest


def restore_advice(path: str, digest: Digest | None, in_head: bool | None, *,
                   unmerged: bool = False, holder: str | None = None,
                   head_sound: bool | None = None) -> str:
    """Return how to restore or take back the stored file ``path``.

    Args:
        path: the file's repository path (``store/objects/sha256/...``).
        digest: the manifest it belongs to (named in ``kistore drop``), or None when the
            path names none (then only git's way is said).
        in_head: whether ``HEAD`` holds ``path``; None when the caller cannot tell cheaply
            (both ways are said, each with when it applies).
        unmerged: whether git's index holds ``path`` unmerged (a merge stopped on a
            conflict in it); then only the ways that work on such a path are said.
        holder: the last commit holding the object's bytes, where HEAD holds an edit of
            them (a checkout of HEAD restores the edit: reviewer fresh95 F4); None: HEAD
            holds them, or the caller did not ask.
        head_sound: for ``digest``'s metadata file: whether HEAD holds a sound copy of it
            to restore (:func:`metadata_advice`); None: not asked.

    Returns:
        A clause to follow "; " in a message, starting in lower case, no final period.
    """
    if unmerged:
        rewrite = (" or write the metadata wanted with `kistore add --update-metadata FILE` "
                   "(FILE: the manifest holding it),"
                   if digest is not None and path == layout.metadata_path(digest) else "")
        return (f"a merge is in progress and {path} is unmerged (both sides changed it), so "
                f"`git checkout -- {path}` fails: take one side with `git checkout --ours "
                f"{path}` or `git checkout --theirs {path}`,{rewrite} then `git add {path}` "
                "(a file merged by hand is not canonical: KI103)")
    if holder is not None:
        return (f"HEAD holds edited bytes at {path} (an edit committed), so `git checkout "
                f"HEAD` restores the edit: restore the original from {holder[:12]}, the last "
                f"commit holding them, with `git checkout {holder[:12]} -- {path}`, and commit "
                "it (in a branch not yet merged, drop the edit's commit instead: `git rebase "
                "-i BASE`, BASE being `git merge-base origin/main HEAD`)")
    if digest is not None and in_head is not False and path == layout.metadata_path(digest):
        return metadata_advice(path, head_sound=head_sound)  # HEAD may hold it broken
    checkout = f"restore it with `git checkout HEAD -- {path}`"
    if digest is None or in_head:
        return checkout
    drop = (f"`kistore drop {digest}` removes the files of its add (never committed: git has "
            "no copy), then add the corrected manifest again")
    if in_head is False:
        return drop
    return f"{checkout} if HEAD holds it; if it was added without --commit, {drop}"


def metadata_advice(path: str, *, committed: bool = False,
                    head_sound: bool | None = None) -> str:
    """Return how to repair a stored metadata file that changed after kistore wrote it.

    One wording for ``verify`` (KI102-KI104's fix on a metadata file), the queries and
    ``show``/``cat`` (reviewer fresh95 F9: the queries said ``git checkout HEAD -- PATH``
    alone, which restores nothing when HEAD holds the broken file). A metadata file is kept
    beside its object, not derived from it, so no command rebuilds it: git has the bytes
    kistore wrote only if a commit holds them, else the metadata is written again. Where
    the caller knows which holds, only the way that works is said (reviewer break96 H3:
    the rewrite was offered for a file HEAD holds sound, and ``add --update-metadata``
    judges a committed object's new metadata against HEAD's, refusing the template
    ``cat --manifest`` prints of a broken file).

    Args:
        path: the metadata file's repository path.
        committed: the file was read from a commit (HEAD holds it so): only the rewrite
            is said.
        head_sound: True: HEAD holds other bytes there that parse, so only the checkout
            is said; False: HEAD holds the same bytes or others no sounder (only the
            rewrite); None: not known (both, each with when it applies).

    Returns:
        A clause to follow "; " or ": ", starting in lower case, no final period.

    Raises nothing.
    """
    rewrite = ("write it again with `kistore add --update-metadata FILE` (FILE: the manifest "
               "holding the metadata wanted: `kistore cat --manifest DIGEST` prints one, "
               "with the last committed metadata that parses)")
    if committed or head_sound is False:
        return rewrite
    if head_sound:
        return (f"HEAD holds it as kistore wrote it: restore it with `git checkout HEAD -- "
                f"{path}`")
    return (f"restore it with `git checkout HEAD -- {path}` if HEAD holds it as kistore "
            f"wrote it, else {rewrite}")


def renamed_advice(path: str, holds: Digest, over: Digest | None = None) -> str:
    """Return how to put back an object file renamed by hand.

    Args:
        path: the misnamed object file's repository path.
        holds: the digest its bytes hash to, whose own object file is missing while its
            metadata file is there (the caller checked).
        over: the stored manifest whose object file ``path`` is (its metadata file is
            there, the caller checked): the rename wrote over it (reviewer r91 F5: "nothing
            else is to be written" was said, its object lost); None: ``path`` is no stored
            manifest's.

    Returns:
        A clause to follow "; ", starting in lower case, no final period: ``its bytes are
        those of sha256:..., whose own object file store/objects/... is missing (a file
        renamed by hand): rename it back with `mv PATH OWN_PATH` (from the top of the
        clone)``; with ``over``, then ``; it was renamed over the object file of sha256:...,
        whose metadata is stored: once it is renamed back,`` :func:`restore_advice`.
    """
    own = layout.object_path(holds)
    said = (f"its bytes are those of {holds}, whose own object file {own} is missing (a file "
            f"renamed by hand): rename it back with `mv {path} {own}` (from the top of the "
            "clone)")
    if over is None:
        return said
    return (f"{said}; it was renamed over the object file of {over}, whose metadata is stored: "
            f"once it is renamed back, {restore_advice(path, over, None)}")
