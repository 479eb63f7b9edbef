"""Objects a push is still bringing in, made readable inside a ``pre-receive`` hook.

And what the hook cannot read said to the pusher (:func:`received_damage`): inside
``pre-receive`` (:func:`receiving`) a damaged object is the server's copy, which only its
operator can repair.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.errors import StoreStateError
from .blobs import CommitUnparsable, ObjectUnreadable

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def admit_quarantine(repo: pygit2.Repository) -> None:
    """Make objects a push is still bringing in readable (inside a ``pre-receive`` hook).

    git keeps pushed objects in a quarantine directory until ``pre-receive`` accepts them
    and tells the hook where through ``GIT_OBJECT_DIRECTORY``/``GIT_QUARANTINE_PATH``;
    libgit2 ignores those variables, so they are added as alternates of ``repo``'s object
    database. Outside a hook (no such variables) nothing happens. Idempotent per ``repo``.

    Args:
        repo: the ``pygit2.Repository`` to read pushed objects from.
    """
    admitted = repo.__dict__.setdefault("_kistore_admitted", set())
    for var in ("GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY"):
        path = os.environ.get(var)
        if path and os.path.isdir(path) and os.path.abspath(path) not in admitted:
            repo.odb.add_disk_alternate(os.path.abspath(path))
            admitted.add(os.path.abspath(path))


def receiving() -> str | None:
    """Return the quarantine directory of the push this process judges, or None.

    git sets ``GIT_QUARANTINE_PATH`` for a ``pre-receive`` hook only (git >= 2.11): set,
    this process runs in the receiving (server's) repository, and its reader is the
    pusher, who sees its output as ``remote:`` lines.
    """
    path = os.environ.get("GIT_QUARANTINE_PATH")
    return path if path and os.path.isdir(path) else None


def received_damage(error: ObjectUnreadable, refs: Sequence[str]) -> ObjectUnreadable:
    """Return ``error`` said to the pusher when it is met inside a ``pre-receive`` hook.

    A git object the hook cannot read is in the server's own copy (break96 M5), unless the
    push brought it (it is in the quarantine directory): git checks every object a push
    brings before the hook runs, so that is rare. The plain text ("the repository is
    damaged ... clone again from the remote") told the pusher, whose clone is whole, to
    repair their own, from the very remote that is damaged.

    Args:
        error: what the read raised (not a :class:`~.blobs.CommitUnparsable`: the gate says
            that one as KI225).
        refs: the refs the push updates, named in the message.

    Returns:
        :class:`ReceivedUnreadable` naming who can repair it; ``error`` itself outside a
        ``pre-receive`` hook (``pre-push``, ``check --updates`` by hand: the clone's own
        repository, whose text it is).
    """
    quarantine = receiving()
    if quarantine is None or isinstance(error, CommitUnparsable):
        return error
    return ReceivedUnreadable(error.oid, error.reason, error.path, tuple(refs),
                              pushed=error.oid != "?" and _holds(quarantine, error.oid))


def _holds(objects: str, oid: str) -> bool:
    """Whether the object directory ``objects`` (not its alternates) holds ``oid``."""
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    if os.path.exists(os.path.join(objects, oid[:2], oid[2:])):
        return True
    try:
        return oid in pygit2.Odb(objects)  # its packs' indexes: no object is read
    except (pygit2.GitError, ValueError):
        return False


class ReceivedUnreadable(ObjectUnreadable):
    """A git object a ``pre-receive`` hook cannot read, said to the pusher.

    Args:
        oid, reason, path: as :class:`~.blobs.ObjectUnreadable`'s.
        refs: the refs the push updates.
        pushed: the push brought the object (its quarantine holds it); False: it is the
            server's own copy, which only the server's operator can repair.
    """

    def __init__(self, oid: str, reason: str, path: str | None = None,
                 refs: tuple[str, ...] = (), pushed: bool = False) -> None:
        self.oid = oid
        self.reason = reason
        self.path = path
        self.refs = refs
        self.pushed = pushed
        what = "a git object" if oid == "?" else f"git object {oid}"
        named = ", ".join(refs[:3]) + (f" and {len(refs) - 3} more" if len(refs) > 3 else "")
        checking = f" (checking the push to {named})" if refs else ""
        if pushed:
            said = (f"{what}, which this push brings, cannot be read{checking} ({reason}): "
                    "the pushing clone's copy is damaged. Run `git fsck` there to list every "
                    "damaged object, restore them from another clone, and push again")
        else:
            said = (f"{what} cannot be read in the receiving repository, the server's own "
                    f"copy{checking} ({reason}): the server's repository is damaged, not what "
                    "this push brings, and nothing in the pushing clone can repair it. The "
                    "server's operator runs `git fsck` in the server's repository to list "
                    "every damaged object and restores each from a clone that has it (the "
                    "object's loose file or pack copied into the server's objects directory, "
                    "in place of the damaged file); then push again")
        StoreStateError.__init__(self, said, file=path)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle by the fields (a worker process raises it to its parent)."""
        return type(self), (self.oid, self.reason, self.path, self.refs, self.pushed)
