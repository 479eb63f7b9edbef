"""Ref names and configuration entries that are not UTF-8, read through pygit2 without a crash.

git takes a ref name (or a remote's name, a configuration key or value) of any bytes its
rules allow: ``git branch caf<0xE9>``, ``git remote add r<0xE9> URL``, ``git config
user.name`` in Latin-1. pygit2 1.21 names such a ref with a surrogate escape (byte 0xE9 as
U+DCE9) when it lists refs, and finds one that exists by that name; but

* for a name that does **not** exist, ``references.get``, ``references[...]``, ``in
  references``, ``lookup_reference`` and ``lookup_reference_dwim`` raise
  ``UnicodeDecodeError`` while writing their ``KeyError`` (last96: an internal error in
  ``pre-receive``);
* ``revparse_single`` raises ``UnicodeEncodeError`` for any such name, one that exists too
  (``kistore check main..caf<0xE9>`` said "no commit named");
* iterating ``repo.config`` raises ``UnicodeDecodeError`` at an entry whose key is not
  UTF-8 (``remote.r<0xE9>.url``), ending the iteration: every command that asked whether the
  clone is a partial one (``verify``, ``ls``, ``check``, the ``pre-push`` hook) stopped
  with an internal error (upd98).

Every reader of a ref by a name a person or a hook gave, and of the configuration's
entries, goes through here: :func:`reference`, :func:`resolve_name`,
:func:`config_entries`. A name is held as pygit2 holds it (surrogate escapes); messages
print it with :func:`kistore.core.errors.printable`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ..core.errors import not_text
from .lazy import pygit2


def reference(repo: pygit2.Repository, name: str) -> pygit2.Reference | None:
    """Return the reference ``name`` (a full name, or ``HEAD``), or None when there is none.

    ``repo.references.get``, but a name that is not UTF-8 and names no ref is None, not
    pygit2's UnicodeDecodeError.

    Args:
        repo: the repository.
        name: the ref's full name (a byte that is not UTF-8 as a surrogate escape).

    Returns:
        The reference, or None. Raises nothing for a name of any bytes.
    """
    try:
        return repo.references.get(name)
    except UnicodeError:  # pygit2 saying "no such ref" of a name not UTF-8
        return None


def resolve_name(repo: pygit2.Repository, name: str) -> pygit2.Reference | None:
    """Return the direct reference a short or full name resolves to as git does, or None.

    git-rev-parse(1)'s order (``lookup_reference_dwim``: ``NAME``, ``refs/NAME``,
    ``refs/tags/NAME``, ``refs/heads/NAME``, ``refs/remotes/NAME``...), followed through
    symbolic refs.

    Args:
        repo: the repository.
        name: a ref name as typed (``caf<0xE9>``, ``origin/main``, ``HEAD``), a byte that
            is not UTF-8 as a surrogate escape.

    Returns:
        The resolved reference, or None when the name resolves to none (or is no valid
        ref name). Raises nothing.
    """
    try:
        return repo.lookup_reference_dwim(name).resolve()
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None  # UnicodeError is a ValueError: a name not UTF-8 that is no ref


class ConfigEntry(NamedTuple):
    """One configuration entry, each field a byte that is not UTF-8 as a surrogate escape.

    Attributes:
        name: its key (section and name lowercased, as git gives them).
        value: its value; None for a key with no ``=``.
    """

    name: str
    value: str | None


def config_entries(repo: pygit2.Repository) -> Iterator[ConfigEntry]:
    """Yield every entry of the repository's configuration (all levels), as git lists them.

    ``for entry in repo.config``, but an entry whose key is not UTF-8 is yielded (from its
    raw bytes) rather than ending the iteration with UnicodeDecodeError, and a value that
    is not UTF-8 is read too.

    Args:
        repo: the repository.

    Yields:
        :class:`ConfigEntry` per entry. An entry whose raw bytes this pygit2 does not
        expose is left out (the rest are still read). Raises nothing pygit2's decoding
        raises.
    """
    entries = iter(repo.config)
    while True:
        try:
            entry = next(entries)
        except StopIteration:
            return
        except UnicodeDecodeError:  # its key is not UTF-8: read from the raw entry
            raw = _raw_entry(entries)
            if raw is not None:
                yield raw
            continue
        yield ConfigEntry(entry.name, _text(entry.raw_value))


def _raw_entry(entries: object) -> ConfigEntry | None:
    """Return the entry pygit2's iterator could not decode, from its C entry, or None.

    pygit2 1.21's iterator (``_c_entry_ptr``) still points at it: ``git_config_next``
    filled it before the key's decoding failed; the next ``next`` moves past it.
    """
    try:
        # Lazy: pygit2's cffi handle, only for a config entry whose key is not UTF-8.
        from pygit2.ffi import ffi

        c_entry = entries._c_entry_ptr[0]  # type: ignore[attr-defined]
        name = ffi.string(c_entry.name)
        value = None if c_entry.value == ffi.NULL else ffi.string(c_entry.value)
    except (AttributeError, ImportError, TypeError):  # another pygit2: left out
        return None
    return ConfigEntry(_text(name) or "", _text(value))


def _text(raw: bytes | None) -> str | None:
    """Return ``raw`` decoded as UTF-8, a byte that is not as a surrogate escape."""
    return None if raw is None else raw.decode("utf-8", "surrogateescape")


def create_ref(repo: pygit2.Repository, name: str, oid: pygit2.Oid, message: str) -> bool:
    """Create the ref ``name`` at ``oid``, only if it does not exist (compare-and-swap).

    pygit2 cannot create a ref whose name is not UTF-8 (``references.create`` raises
    UnicodeEncodeError for a surrogate escape): ``kistore add --commit`` on such an unborn
    branch (``git checkout --orphan caf<0xE9>``) was an internal error (upd98). Such a
    name is created by ``git update-ref NAME OID ZERO`` (git refuses when it exists).

    Args:
        repo: the repository.
        name: the full ref name (a byte that is not UTF-8 as a surrogate escape).
        oid: the commit it is to name.
        message: the reflog message.

    Returns:
        True when created; False when it exists already or could not be created (another
        writer made it, or holds its lock). Raises nothing.
    """
    # Lazy: subprocess and the child environment only for this rare name.
    import os
    import subprocess

    # Lazy: as above (git_environment reads the environment once it is asked).
    from .child import git_environment

    if not not_text(name):
        try:
            repo.references.create(name, oid)
        except (pygit2.GitError, pygit2.AlreadyExistsError, ValueError, OSError):
            return False
        return True
    zero = "0" * len(str(oid))
    done = subprocess.run(
        [b"git", b"--git-dir", os.fsencode(repo.path), b"update-ref", b"-m",
         message.encode("utf-8", "surrogateescape"), name.encode("utf-8", "surrogateescape"),
         str(oid).encode(), zero.encode()],
        capture_output=True, env=git_environment(), check=False)
    return done.returncode == 0
