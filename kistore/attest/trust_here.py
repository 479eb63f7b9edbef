"""The trust a work-tree answer judges by: ``HEAD``'s file, and what counts before a commit.

fresh14 F15: a work tree whose ``store/trust/keys.json`` was deleted, emptied to
``{"keys": []}``, replaced by a FIFO, a symbolic link (even to a copy of the same bytes) or
a directory, or had a key's entry removed or narrowed, made ``rank``, ``show``, ``compare``
and ``attestations`` judge every attestation a community one, without a word: a withdrawn
run ranked again and a verified run lost its level. Only a file cut off was warned of, and
it trusted no key either. No commit can make any of these states (the gate refuses each:
KI410), so such an answer was one main can never give.

Since 2026-12-07 (fresh14 F15), when the work tree's file is not ``HEAD``'s (its blob id
differs, or it is no regular file), the answers of the work tree judge by ``HEAD``'s file,
plus what counts before a commit: the work tree's revocations (read leniently from a file
that reads as JSON: a revocation is never lost; one that does not, conflict markers or an
edit cut off, refuses the answers since 2026-12-07, fresh17 F5: :func:`refuse_unread`) and
the keys only the work tree lists, each
counting from the commit that adds it, so nothing judged now counts by it (one without
``validFrom`` as :func:`kistore.attest.trust_history.dated` dates it; since 2026-12-07,
fresh16 F7, one with a ``validFrom`` is marked so too, :func:`uncommitted_entry`: a past
``validFrom`` made what the key signed count at once, unreviewed). A committed key's
entry widened in the work tree (a role added, an earlier ``validFrom``) counts from its
commit, as a new key does.
:func:`trust_here` says which state the work tree's file is in; the command line says
it once, after the answer (:func:`pending`), when the file is missing, not a regular
file, invalid, or removes or narrows what ``HEAD`` holds (:mod:`kistore.check._trust_here`),
and ``kistore verify`` reports it (KI410, an error).

With no ``HEAD`` (a branch without commits), no trust file in ``HEAD``, or ``HEAD``'s own
invalid, the work tree's file is read as it is, as before (a store's first trust change:
a key with a past ``validFrom`` still counts there before its commit; left as it was,
docs/attestations.md "Trust"). The cost on the attested path:
one tree lookup (``HEAD``'s blob id of the file) and one SHA-1 of the bytes already read;
when they agree, nothing else changes. A query of unattested runs never comes here.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, cast

from ..core.canonical_fast import loads_lenient
from ..core.errors import InputError, KistoreError
from ..core.file_kinds import DIRECTORY, FIFO, SYMLINK, kind_at
from ..core.layout import TRUST_FILE
from ..git.blobs import lookup
from ..git.ids import blob_id
from ..git.pathlog import blob_at
from ..git.treediff import subtree
from .trust import Trust, TrustedKey, load_trust, parse_trust, pending_widening
from .trust_history import revocations_in

if TYPE_CHECKING:  # pragma: no cover - typing only
    from pathlib import Path

    import pygit2

    from ..store import Store

NOT_REGULAR = {"link": "is a symbolic link (never read through)", "directory": "is a directory",
               "fifo": "is a FIFO", "other": "is not a regular file", "missing": "is missing"}
"""How :func:`trust_here`'s states of a work-tree file that cannot be read are said."""


class TrustHere:
    """The trust a work-tree answer judges by, and how the work tree's file stands to ``HEAD``'s.

    Attributes:
        trust: the :class:`kistore.attest.trust.Trust` to judge by (its keys undated: the
            caller dates them, :func:`kistore.attest.trust_history.dated`, and holds their
            revocations, :func:`~kistore.attest.trust_history.held`).
        state: ``""`` when the work tree's file is ``HEAD``'s (or there is none to hold it
            to: no commit, none in ``HEAD``, ``HEAD``'s invalid); else one of
            :data:`NOT_REGULAR`'s keys, ``invalid``, or ``changed`` (valid, other bytes:
            :mod:`kistore.check._trust_here` tells a removal or narrowing from a widening).
        invalid: why the work tree's file is invalid (``state`` ``invalid``), as its first
            problem says it.
        head: ``HEAD``'s trust file (None when ``state`` is ``""``).
        work: the work tree's, when valid and not ``HEAD``'s (``state`` ``changed``).
        unread: ``conflict`` (merge-conflict markers) or ``cut`` (no JSON at all: an edit
            cut off) when the work tree's invalid file does not read as JSON, so a
            revocation in it may be lost (fresh17 F5: :func:`refuse_unread`); else ``""``.

    A plain class, not a dataclass: made once a command, its class is made at import, and
    a dataclass's generated methods cost ~1.5 ms of each judging process (docs/speed.md).
    """

    __slots__ = ("head", "invalid", "state", "trust", "unread", "work")

    def __init__(self, trust: Trust, state: str = "", invalid: str = "",
                 head: Trust | None = None, work: Trust | None = None,
                 unread: str = "") -> None:
        self.trust = trust
        self.state = state
        self.invalid = invalid
        self.head = head
        self.work = work
        self.unread = unread


def trust_here(store: Store) -> TrustHere:
    """Return the trust a work-tree answer judges by (module docstring).

    Args:
        store: a :class:`kistore.store.Store`.

    Returns:
        The :class:`TrustHere`: its ``trust`` the work tree's file as read when it is
        ``HEAD``'s or ``HEAD``'s own is invalid; else ``HEAD``'s entries (each
        with the earlier of its ``revokedAt`` and the work tree's), plus the entries of
        the keys only the work tree's (valid) file lists, marked uncommitted
        (:func:`uncommitted_entry`).

    Raises:
        ParseError, MultipleErrors: the work tree's file is invalid and there is no valid
            ``HEAD`` file to judge by (as :func:`kistore.attest.trust.load_trust`).
        ObjectUnreadable: ``HEAD``'s tree or file cannot be read.
    """
    view = store.view(None)
    repo = store.repo
    if view.scope != "work" or store.root is None or repo.head_is_unborn:
        return TrustHere(load_trust(view))
    data = view.read(TRUST_FILE)  # None: absent, or no regular file (never read through)
    tip = cast("pygit2.Commit", lookup(repo, repo.head.target, "HEAD"))  # guarded
    committed = blob_at(repo, subtree(repo, tip.tree_id), TRUST_FILE)  # one tree lookup
    if committed is None or (data is not None and blob_id(data).hex() == committed):
        return TrustHere(Trust() if data is None else parse_trust(data))  # as before
    try:
        head = load_trust(store.view("HEAD"))
    except KistoreError:  # HEAD's own file is invalid: nothing valid to hold the work tree to
        return TrustHere(load_trust(view))
    state, invalid, work, unread = "changed", "", None, ""
    if data is None:
        state = not_regular(store.root / TRUST_FILE) or "other"
    else:
        try:
            work = parse_trust(data)
        except KistoreError as e:
            state, invalid = "invalid", first_problem(e)
            unread = "" if reads_as_json(data) else "conflict" if conflicted(data) else "cut"
    revoked = salvaged_revocations(data) if data else {}
    keys = {}
    for keyid, entry in head.keys.items():
        later = revoked.get(keyid)
        if later is not None and (entry.revoked_at is None or later < entry.revoked_at):
            entry = replace(entry, revoked_at=later)  # a pending revocation counts now
        widened = () if work is None or keyid not in work.keys else tuple(
            r for r in work.keys[keyid].roles if r not in entry.roles)
        if widened:  # counts from its commit; said so (trust07, fresh17 F9)
            entry = replace(entry, pending=widened)
        keys[keyid] = entry
    if work is not None:
        keys.update({k: uncommitted_entry(v) for k, v in work.keys.items()
                     if k not in head.keys})
    return TrustHere(Trust(keys), state, invalid, head, work, unread)


CUT_OFF = "does not read as JSON (an edit cut off?)"
"""How a work-tree trust file that does not read as JSON, and holds no conflict markers, is
said (after ``the work tree's file``): by the queries' refusal (:func:`refuse_unread`) and
``kistore trust add``/``revoke``'s."""

CUT_OFF_FIX = (f"finish the edit, or restore it with `git checkout HEAD -- {TRUST_FILE}` (then "
               "make a pending `kistore trust add` or `revoke` again)")
"""The way on from :data:`CUT_OFF` (``HEAD`` holding the file)."""


class TrustUnread(InputError):
    """The work tree's trust file does not read as JSON: its revocations cannot be read."""


def conflicted(data: bytes) -> bool:
    """Whether ``data`` holds a merge's conflict markers (a line starting ``<<<<<<<``)."""
    return data.startswith(b"<<<<<<<") or b"\n<<<<<<<" in data


def refuse_unread(here: TrustHere, *, at_head: bool = True) -> None:
    """Refuse a work-tree answer when the work tree's trust file does not read as JSON.

    fresh17 F5: a revocation between merge-conflict markers, or in an entry cut off after
    its ``revokedAt``, was not read, and the answers judged by ``HEAD``'s file while saying
    the work tree's revocations were applied (a revoked key's reruns stayed ``verified``,
    ``attest`` signed with it). Such a file is never judged by: the answer is refused.

    Args:
        here: :func:`trust_here`'s answer.
        at_head: offer ``--at HEAD`` (a query) as a way on; False for ``attest``.

    Raises:
        TrustUnread: ``here.unread`` is set; names the file, the conflict or the cut, the
            first problem, and what to do (exit 1).
    """
    if not here.unread:
        return
    if here.unread == "conflict":
        what = ("holds merge-conflict markers (`<<<<<<<`): a merge conflict, which `git "
                "status` shows as unmerged")
        fix = (f"resolve the conflict (keep every `revokedAt`), then `git add {TRUST_FILE}`, "
               "or `git merge --abort`")
    else:
        what, fix = CUT_OFF, CUT_OFF_FIX
    way = "; or ask with `--at HEAD`" if at_head else "; nothing was written"
    raise TrustUnread(
        f"the work tree's file {what} ({here.invalid}): a revocation written in it "
        f"cannot be read, so nothing is judged by the work tree's trust; {fix}{way}",
        file=TRUST_FILE)


def uncommitted_entry(entry: TrustedKey) -> TrustedKey:
    """Return the entry of a key only the work tree's trust file lists, as answers judge it.

    It counts from the commit that adds it (fresh16 F7): one without ``validFrom`` as
    :func:`kistore.attest.trust_history.dated` dates it (from its commit); one with a
    ``validFrom`` is marked ``uncommitted`` too (``stated_from``): a past ``validFrom``
    made what the key signed count at once, unreviewed, while an uncommitted widening of
    a committed key counts from its commit. Raises nothing.
    """
    if entry.valid_from is None:
        return entry
    return replace(entry, uncommitted=True, stated_from=True)


def pending_role(store: Store, keyid: str, role: str) -> tuple[str, bool]:
    """Say that only the work tree's trust file trusts ``keyid`` for ``role``.

    What ``kistore attest`` refuses a rerun or withdrawal for (since 2026-12-07, trust05):
    a key ``HEAD``'s file lacks, or lists without ``role``, which the work tree's file
    (valid, not ``HEAD``'s) lists with it: an uncommitted widening of trust counts from its
    commit (:func:`trust_here`). Until then the line was refused for a committed key
    (judged by ``HEAD``'s entry: not counted) and written as community for a new one,
    though both wait for the same commit. ``""`` too with no ``HEAD`` trust file to hold
    the work tree's to (a store's first trust change, read as written).

    Args:
        store: a :class:`kistore.store.Store`.
        keyid: the signing key's OpenSSH fingerprint.
        role: the role the attestation's type needs.

    Returns:
        ``(said, committed)``: ``key K is listed for ROLE in the work tree's
        store/trust/keys.json, but no commit adds it yet`` and False (a new key), ``key K
        is trusted for ROLES, and only the work tree's store/trust/keys.json adds ROLE,
        which no commit does yet`` and True (a committed key widened); ``("", False)``
        when nothing is pending.

    Raises:
        ObjectUnreadable: as :func:`trust_here`.
    """
    try:
        here = trust_here(store)
    except KistoreError:  # an invalid file HEAD cannot stand in for: nothing pending
        return "", False
    work = None if here.head is None or here.work is None else here.work.keys.get(keyid)
    if here.head is None or work is None or role not in work.roles:
        return "", False
    head = here.head.keys.get(keyid)
    if head is None:
        return (f"key {keyid} is listed for {role} in the work tree's {TRUST_FILE}, but no "
                "commit adds it yet"), False
    if role in head.roles:
        return "", False
    return pending_widening(keyid, head.roles, role), True


def not_regular(path: Path) -> str:
    """Return which of :data:`NOT_REGULAR`'s states the work tree's file at ``path`` is in.

    ``lstat`` alone (a FIFO is never opened, a link never followed).

    Returns:
        A key of :data:`NOT_REGULAR`; ``""`` for a regular file. Raises nothing.
    """
    kind = kind_at(path)
    return "missing" if kind is None else _STATES.get(kind, "other")


_STATES = {"": "", SYMLINK: "link", DIRECTORY: "directory", FIFO: "fifo"}
""":func:`kistore.core.file_kinds.kind_at`'s words as :data:`NOT_REGULAR`'s keys."""


def salvaged_revocations(data: bytes) -> dict[str, datetime]:
    """Return every revocation one version of ``keys.json`` records, even cut off or conflicted.

    :func:`kistore.attest.trust_history.revocations_in` of the whole file; when it does not
    read as JSON (an edit cut off, a merge's conflict markers), of each brace-delimited
    entry in it, one by one (an entry holds no braces): a revocation is never lifted, so
    one written anywhere in the file counts, the earliest of a key's.

    Returns:
        keyid -> revocation instant (UTC). Raises nothing.
    """
    found = revocations_in(data)
    if found or reads_as_json(data):
        return found
    for entry in _ENTRY.finditer(data):
        for keyid, when in revocations_in(b'{"keys": [' + entry.group() + b"]}").items():
            if keyid not in found or when < found[keyid]:
                found[keyid] = when
    return found


_ENTRY = re.compile(rb"\{[^{}]*\}")
"""One key's entry of a trust file: braces, and none within."""


def reads_as_json(data: bytes) -> bool:
    """Whether ``data`` reads as JSON at all (leniently: a schema's refusal is no matter)."""
    try:
        loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return False
    return True


def first_problem(error: KistoreError) -> str:
    """Return an invalid file's first problem as a message says it (where, what, how many)."""
    problems = error.problems
    said = problems[0].format()
    return said + (f"; and {len(problems) - 1} more problem(s)" if len(problems) > 1 else "")


_PENDING: list[tuple[Store, TrustHere]] = []
"""The work-tree trust file judged otherwise than as written, by the command running: the
command line says it once, after the answer (:func:`pending`)."""


def note(store: Store, here: TrustHere) -> None:
    """Keep ``here`` to be said after the answer (its state not ``""``). Raises nothing."""
    if here.state and all(h is not here for _s, h in _PENDING):
        _PENDING.append((store, here))


def pending() -> list[tuple[Store, TrustHere]]:
    """Return, and forget, what :func:`note` kept since the command began. Raises nothing."""
    found = list(_PENDING)
    _PENDING.clear()
    return found
