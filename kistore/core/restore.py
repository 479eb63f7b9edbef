"""What to tell a person to do about a stored file that is damaged or unwanted.

A file ``HEAD`` holds comes back with ``git checkout -- PATH``; a file only a plain
``kistore add`` wrote (never committed) has no copy in git, so that command fails on it
(reviewer r85 F3): ``kistore drop DIGEST`` removes that add's files instead, and the
corrected manifest is added again, under the same name if wanted. One owner of the
wording, for ``show``, ``add`` and ``verify``.
"""

from __future__ import annotations

from .digest import Digest


def restore_advice(path: str, digest: Digest | None, in_head: bool | None) -> str:
    """Return how to restore or take back the stored file ``path``.

    Args:
        path: the file's repository path (``store/objects/sha256/...``).
        digest: the manifest it belongs to (named in ``kistore drop``), or None when the
            path names none (then only git's way is said).
        in_head: whether ``HEAD`` holds ``path``; None when the caller cannot tell cheaply
            (both ways are said, each with when it applies).

    Returns:
        A clause to follow "; " in a message, starting in lower case, no final period.
    """
    checkout = f"restore it with `git checkout -- {path}`"
    if digest is None or in_head:
        return checkout
    drop = (f"`kistore drop {digest}` removes the files of its add (never committed: git has "
            "no copy), then add the corrected manifest again")
    if in_head is False:
        return drop
    return f"{checkout} if HEAD holds it; if it was added without --commit, {drop}"
