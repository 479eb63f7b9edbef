"""Revocations over the whole history of ``store/trust/keys.json``: once revoked, always.

A revocation must outlive any sequence of pull requests: removing a revoked key's entry in
one and adding the key back without ``revokedAt`` in the next would each pass a check of
one range, and the key would sign again. :func:`ever_revoked` reads every version the trust
file had along the first-parent history of a commit (git's path-limited log,
:func:`kistore.git.pathlog.first_parent_versions`: one tree lookup per commit that changed
the file) and returns, per key, the earliest revocation any version recorded.
:mod:`kistore.check.lineage` holds the trust file of a commit to it (rule KI412).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.canonical_fast import loads_lenient
from ..core.errors import KistoreError
from ..git.blobs import fetch_blobs, read_blob, read_loose_history
from ..git.pathlog import first_parent_versions
from . import signing
from .notes import Clock, parents_first
from .trust import Trust, load_trust, parse_time

if TYPE_CHECKING:  # pragma: no cover - typing only
    from pathlib import Path

    import pygit2

    from ..store import Store


@dataclass(frozen=True, slots=True)
class Revocation:
    """The earliest revocation of one key found in the trust file's history.

    Attributes:
        keyid: the key's OpenSSH fingerprint (of its ``publicKey``; the entry's ``keyid``
            field when the key does not parse).
        revoked_at: the earliest ``revokedAt`` any version recorded (UTC).
        commit: the commit (40 hex digits) of the version that recorded it, or ``""`` for
            a version not yet committed.
    """

    keyid: str
    revoked_at: datetime
    commit: str


def revocations_in(data: bytes) -> dict[str, datetime]:
    """Return ``{keyid: revokedAt}`` of one version of ``keys.json``, however broken.

    Read leniently (any JSON, entries that do not validate, keys that do not parse): a
    version the gate would refuse today may still be in history, and what it revoked stays
    revoked. Entries without a readable ``revokedAt`` are left out.

    Args:
        data: the file's bytes.

    Returns:
        keyid -> revocation instant; empty when nothing in it reads as a revocation.
    """
    try:
        doc = loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return {}
    entries = doc.get("keys") if isinstance(doc, dict) else None
    found: dict[str, datetime] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("revokedAt"), str):
            continue
        try:
            when = parse_time(entry["revokedAt"])
        except KistoreError:
            continue
        keyid = entry.get("keyid")
        try:
            keyid = signing.keyid(signing.load_public_key(entry.get("publicKey", "")))
        except (KistoreError, TypeError, ValueError):
            pass
        if isinstance(keyid, str) and (keyid not in found or when < found[keyid]):
            found[keyid] = when
    return found


def ever_revoked(repo: pygit2.Repository, rev: str | None, more: Iterable[tuple[str, bytes]] = ()
                 ) -> dict[str, Revocation]:
    """Return every key any version of the trust file revoked, with its earliest revocation.

    Args:
        repo: the ``pygit2.Repository``.
        rev: the commit whose first-parent history is read (None: no history).
        more: further ``(commit id, bytes)`` versions to count (the commits of a range
            under check, a work-tree file), read like the history's.

    Returns:
        keyid -> :class:`Revocation`.

    Raises:
        InputError: ``rev`` names no commit.
        ObjectUnreadable: a version of the trust file (or a tree on its way) is damaged or
            missing (named with its path and id, not libgit2's ``KeyError``).
    """
    versions: list[tuple[str, bytes]] = []
    if rev is not None:
        for commit, blob in reversed(trust_versions(repo, rev)):
            if blob is not None:  # oldest first: a revocation is named where it began
                versions.append((commit, read_blob(repo, blob, layout.TRUST_FILE)))  # guarded
    versions += list(more)
    earliest: dict[str, Revocation] = {}
    parsed: dict[bytes, dict[str, datetime]] = {}
    for commit, data in versions:
        if data not in parsed:
            parsed[data] = revocations_in(data)
        for keyid, when in parsed[data].items():
            known = earliest.get(keyid)
            if known is None or when < known.revoked_at:
                earliest[keyid] = Revocation(keyid, when, commit)
    return earliest


def trust_versions(repo: pygit2.Repository, rev: str) -> list[tuple[str, str | None]]:
    """Return every version of the trust file along ``rev``'s first-parent history.

    :func:`kistore.git.pathlog.first_parent_versions` of ``store/trust/keys.json``, read
    once a commit id (shared with :func:`ever_revoked`, :func:`added` and
    :func:`trust_blobs`). A partial clone fetches the versions it lacks in one ``git
    fetch`` (libgit2 cannot fetch one; git would, one process a blob); nothing is fetched
    in a full clone.

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits; another revision is listed each time).

    Returns:
        ``(commit (40 hex digits), blob id or None)`` per first-parent commit that changed
        the file, newest first; None where that commit deletes it. Each blob is here.

    Raises:
        InputError: ``rev`` names no commit.
        StoreStateError: a partial clone whose remote could not give them.
    """
    versions = _listed(repo, rev)
    fetch_blobs(repo, (blob for _commit, blob in versions if blob is not None))
    return versions


def _listed(repo: pygit2.Repository, rev: str) -> list[tuple[str, str | None]]:
    """Return :func:`first_parent_versions` of the trust file at ``rev``.

    One ``git rev-list`` a process and commit id (:func:`ever_revoked`, :func:`listed_since`
    and :func:`trust_blobs` all read them); a revision that is no commit id (a branch,
    which may move) is listed each time.
    """
    key = (repo.path, rev)
    versions = _VERSIONS_CACHE.get(key)
    if versions is None:
        versions = first_parent_versions(repo, rev, layout.TRUST_FILE)
        if len(rev) == 40 and all(c in "0123456789abcdef" for c in rev):
            _VERSIONS_CACHE.clear()
            _VERSIONS_CACHE[key] = versions
    return versions


_VERSIONS_CACHE: dict[tuple[str, str], list[tuple[str, str | None]]] = {}


def trust_blobs(store: Store, at: str | None) -> list[str]:
    """Return the blob ids of every version of the trust file that judging at ``at`` reads.

    The versions along the first-parent history of ``at`` (``HEAD`` for the work tree),
    which :func:`held` and :func:`dated` read: a caller gathering a partial clone's
    fetches into one (``kistore attestations`` in a blob-less clone) fetches them with
    the rest. Listing them costs one ``git rev-list``, shared with those readers.

    Args:
        store: a :class:`kistore.store.Store`.
        at: a revision, or None for the work tree.

    Returns:
        Blob ids (40 hex digits), newest first; empty without history.

    Raises:
        InputError: ``at`` names no commit.
    """
    repo = store.repo
    if at is None:
        if repo.head_is_unborn:
            return []
        rev = str(repo.head.target)
    else:
        rev = str(store.commit(at).id)
    return [blob for _commit, blob in _listed(repo, rev) if blob is not None]


def listed_since(repo: pygit2.Repository, rev: str) -> dict[str, datetime]:
    """Return when each key of the trust file at ``rev`` was last added to it.

    A key without ``validFrom`` counts from the commit that first added it, never for the
    time before (trust is not retroactive): its start is the time of the oldest
    first-parent version of the file, up to ``rev``, that lists the key. A key removed and
    added again keeps that first start (since 2026-12-06, fresh01 F7: it counted from the
    second addition, so deleting the file in one commit and restoring it in the next made
    every key count from the restore, and every earlier maintainer withdrawal stopped
    counting; the gate now refuses the removal, KI410, and ``verify`` reports one in
    history: :mod:`kistore.check._evidence_kept`). A version's time
    is its commit's committer date, or a later ancestor's (as attestations are dated, by
    :class:`kistore.attest.notes.Clock`): a trust commit dated before the history it was
    built on gains nothing.

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits).

    Returns:
        keyid -> instant (UTC); keys not in the file at ``rev`` are absent.

    Raises:
        InputError: ``rev`` names no commit.
        ObjectUnreadable: a version of the trust file (or a tree on its way) is damaged or
            missing (named with its path and id, not libgit2's ``KeyError``).
    """
    return {keyid: when for keyid, (when, _commit) in added(repo, rev).items()}


def added(repo: pygit2.Repository, rev: str) -> dict[str, tuple[datetime, str]]:
    """Return :func:`listed_since` with the commit each key's start is the time of.

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits).

    Returns:
        keyid -> ``(instant (UTC), commit (40 hex digits))``: the oldest first-parent
        version listing the key, and its trusted time. Every version is read (each blob
        once): O(versions of the trust file).

    Raises:
        InputError, ObjectUnreadable: as :func:`listed_since`.
    """
    listed, first = _first_listed(repo, rev)
    return {keyid: first[keyid] for keyid in listed}


def first_listed(repo: pygit2.Repository, rev: str) -> dict[str, tuple[datetime, str]]:
    """Return when each key any first-parent version of the trust file lists first entered.

    :func:`added` of every key the file's history ever listed, the ones ``rev``'s file
    no longer lists included: a key added again counts from this start (KI427 says so of
    a range adding it back).

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits).

    Returns:
        keyid -> ``(instant (UTC), commit (40 hex digits))`` of the oldest version listing it.

    Raises:
        InputError, ObjectUnreadable: as :func:`listed_since`.
    """
    return _first_listed(repo, rev)[1]


def _first_listed(repo: pygit2.Repository, rev: str
                  ) -> tuple[set[str], dict[str, tuple[datetime, str]]]:
    """Return the keys ``rev``'s trust file lists, and :func:`first_listed` (cached a rev)."""
    cached = _SINCE_CACHE.get((repo.path, rev))
    if cached is not None:
        return cached
    versions = trust_versions(repo, rev)  # newest first
    times = commit_times(repo, rev) if versions else {}
    first: dict[str, tuple[datetime, str]] = {}
    listed: set[str] | None = None  # the keys of the version at ``rev``
    read: dict[str, set[str]] = {}
    for commit, blob in versions:  # back to the first version: the oldest listing wins
        if blob is None:
            keys: set[str] = set()
        elif blob in read:
            keys = read[blob]
        else:  # guarded: gone or cut
            keys = read[blob] = keyids_in(read_blob(repo, blob, layout.TRUST_FILE))
        if listed is None:
            listed = keys
        for keyid in keys:
            first[keyid] = (times[commit], commit)
    _SINCE_CACHE.clear()
    _SINCE_CACHE[(repo.path, rev)] = (listed or set(), first)
    return listed or set(), first


_SINCE_CACHE: dict[tuple[str, str], tuple[set[str], dict[str, tuple[datetime, str]]]] = {}


def commit_times(repo: pygit2.Repository, rev: str) -> dict[str, datetime]:
    """Return the trusted time of every commit reachable from ``rev``.

    A commit's committer date held to its ancestors' (:class:`kistore.attest.notes.Clock`,
    the time an attestation file entering at it is judged at, and a key added in it
    counts from).

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits).

    Returns:
        commit id (40 hex digits) -> instant (UTC). One walk of the whole history.

    Raises:
        KeyError: ``rev`` is not in ``repo``.
    """
    clock = Clock()
    read_loose_history(repo, rev)  # libgit2 loops on a cut loose commit (F3)
    return {str(c.id): clock.time_of(c) for c in repo.walk(repo[rev].id, parents_first())}


def keyids_in(data: bytes) -> set[str]:
    """Return the keyids one version of ``keys.json`` lists, read leniently.

    As :func:`revocations_in` reads it: any JSON; an entry whose key does not parse is
    named by its ``keyid`` field.
    """
    try:
        doc = loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return set()
    entries = doc.get("keys") if isinstance(doc, dict) else None
    found = set()
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        try:
            found.add(signing.keyid(signing.load_public_key(entry.get("publicKey", ""))))
        except (KistoreError, TypeError, ValueError):
            if isinstance(entry.get("keyid"), str):
                found.add(entry["keyid"])
    return found


def dated(store: Store, at: str | None, trust: Any) -> Any:
    """Return ``trust`` with each key lacking ``validFrom`` valid from the commit that added it.

    Args:
        store: a :class:`kistore.store.Store`.
        at: the revision ``trust`` was read from, or None for the work tree (a key the
            work tree's file lists but ``HEAD``'s does not is valid from now: it has not
            entered history yet).
        trust: the :class:`kistore.attest.trust.Trust` read there.

    Returns:
        A :class:`~kistore.attest.trust.Trust` whose keys all have a ``valid_from``: for
        a key without one, :func:`listed_since`, with the commit that added it
        (``added_in``) and ``follows`` to order what entered in that same second by
        history (commit times have whole seconds: a tie of the clock says nothing).
        ``follows`` is set whenever the file is readable, also when every key has a
        ``validFrom``: it orders one key's reruns that entered in one second too
        (:func:`kistore.attest.evidence.rerun_order`), and asks git only when called.
    """
    if trust.unreadable:
        return trust
    if all(k.valid_from is not None for k in trust.keys.values()):
        return replace(trust, follows=lambda c, a: bool(store.repo.descendant_of(c, a)))
    repo = store.repo
    now = datetime.now(UTC)
    if at is None:
        rev = None if repo.head_is_unborn else str(repo.head.target)
    else:
        rev = str(store.commit(at).id)
    since = added(repo, rev) if rev is not None else {}
    # An attestation that entered in the second the key was added counts only when history
    # puts it after the commit adding it (Trust.judge asks `follows`): a commit dated ahead
    # drags its descendants' times with it, and a note line, unordered with the branch,
    # may have entered before it (the CI flake of f91e0008: a tie was read as "before").
    keys = {k: v if v.valid_from is not None else replace(
                v, valid_from=since[k][0], added_in=since[k][1]) if k in since else replace(
                v, valid_from=now, uncommitted=at is None)
            for k, v in trust.keys.items()}
    return Trust(keys, follows=_follows(repo))


def _follows(repo: pygit2.Repository) -> Callable[[str, str], bool]:
    """Return ``follows(commit, ancestor)``: whether ``commit`` descends from ``ancestor``.

    Both were read by the history walks that dated them (:func:`added`,
    :func:`kistore.attest.notes.files_entered_in`), so both are here.
    """
    def follows(commit: str, ancestor: str) -> bool:
        return bool(repo.descendant_of(commit, ancestor))
    return follows


def held(store: Store, at: str | None, trust: Any) -> Any:
    """Return ``trust`` with every revocation its file's history ever made put back.

    The gate refuses a range that lifts a revocation (KI412), but history may have landed
    past it (a server without ``hooks/pre-receive``, a push with the hook set aside): a key
    revoked by any version of ``store/trust/keys.json`` along the first-parent history of
    ``at`` is revoked here at its earliest ``revokedAt``, whatever the file says now, so a
    key deleted and trusted again never makes a run ``verified`` (issue #17 item 1;
    ``verify`` reports the lifted revocation as KI412).

    Args:
        store: a :class:`kistore.store.Store`.
        at: the revision ``trust`` was read from, or None for the work tree (``HEAD``'s
            history; the work-tree file's own revocations are in ``trust`` already).
        trust: the :class:`kistore.attest.trust.Trust` read there.

    Returns:
        A :class:`~kistore.attest.trust.Trust`; ``trust`` itself when no key of it was
        revoked earlier than it says and none is revoked (or it is unreadable, or lists no
        key). When a key is revoked, with ``known``
        (:class:`kistore.attest.revocations_known.KnownRevocations`): a payload's date is
        judged against the revocations recorded when its attestation entered (fresh06 M2).

    Raises:
        InputError: ``at`` names no commit.
    """
    if trust.unreadable or not trust.keys:
        return trust
    repo = store.repo
    if at is None:
        rev = None if repo.head_is_unborn else str(repo.head.target)
    else:
        rev = str(store.commit(at).id)
    if rev is None:
        return trust
    cached = _REVOKED_CACHE.get((repo.path, rev))
    if cached is None:
        cached = ever_revoked(repo, rev)
        _REVOKED_CACHE.clear()
        _REVOKED_CACHE[(repo.path, rev)] = cached
    lifted = {k: r.revoked_at for k, r in cached.items() if k in trust.keys and (
        trust.keys[k].revoked_at is None or r.revoked_at < trust.keys[k].revoked_at)}
    if lifted:
        trust = replace(trust, keys={k: replace(v, revoked_at=lifted[k]) if k in lifted else v
                                     for k, v in trust.keys.items()})
    if any(k.revoked_at is not None for k in trust.keys.values()):
        # Lazy: revocations_known reads this module's history functions.
        from .revocations_known import KnownRevocations

        work_tree = store.root / layout.TRUST_FILE if at is None and store.root else None
        if work_tree is not None and not _regular(work_tree):  # a FIFO would wait for ever
            work_tree = None  # fresh14 F15: none of its revocations to read
        trust = replace(trust, known=KnownRevocations(repo, rev, work_tree))  # fresh06 M2
    return trust


_REVOKED_CACHE: dict[tuple[str, str], dict[str, Revocation]] = {}


def _regular(path: Path) -> bool:
    """Whether ``path`` is a regular file (``lstat``: a link is not followed). Raises nothing."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def readers_trust(store: Store, rev: str) -> Any | None:
    """Return the trust readers judge by at ``rev``: :func:`held` of :func:`dated`, or None.

    The trust file at ``rev`` (:func:`kistore.attest.trust.load_trust`), each key without
    ``validFrom`` valid from the commit that added it, every revocation of the file's
    history put back: what the notes push's judges read each line by (KI439, KI442, a
    line's effect made again).

    Args:
        store: a :class:`kistore.store.Store`.
        rev: a revision (a commit id or name).

    Returns:
        The :class:`~kistore.attest.trust.Trust`; None when the trust file does not parse
        (KI309 says it), or another kistore error stops reading it.
    """
    try:
        return held(store, rev, dated(store, rev, load_trust(store.view(rev))))
    except KistoreError:
        return None
