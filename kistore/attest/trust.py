"""Trust: which public keys may sign for which role, and when (docs/design.md §5).

Owns ``store/trust/keys.json`` (validated by ``schemas/trust-keys.json``)::

    {"keys": [{"keyid": "SHA256:...", "publicKey": "ssh-ed25519 AAAA...",
               "roles": ["rerun"], "comment": "CI rerun farm",
               "validFrom": "2026-01-01T00:00:00Z", "validUntil": "2027-01-01T00:00:00Z",
               "revokedAt": "2026-06-01T00:00:00Z"}]}

The file is reviewed like code (changed only by pull requests), so it is written as
indented JSON, keys sorted by keyid, one field a line. Keys are looked up by the OpenSSH
fingerprint computed from ``publicKey``; the ``keyid`` field is checked against it, never
believed. A key is usable for a role at time T when it holds the role, ``validFrom <= T``,
``T < validUntil`` and ``T < revokedAt``; T is when the attestation first entered the
repository (see :mod:`kistore.attest.notes`), not the wall clock, and for ``validUntil`` and
``revokedAt`` also any later date the signed payload states (its holder cannot sign a date
after the revocation and have it count). docs/attestations.md says which dates are trusted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import canonical
from ..core.errors import InputError, KistoreError, MultipleErrors, shorten
from ..core.layout import TRUST_FILE
from ..core.schema import check_document
from ..store import CommitView, atomic_write, refuse_links
from .sshsig import SshPublicKey

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import View

ROLES = ("rerun", "maintainer")


@dataclass(frozen=True, slots=True)
class TrustedKey:
    """One trusted public key.

    Attributes:
        keyid: OpenSSH SHA-256 fingerprint of ``public_key``.
        public_key: OpenSSH public-key line (``ssh-ed25519 AAAA...`` or
            ``sk-ssh-ed25519@openssh.com AAAA...``).
        roles: roles the key may sign for (``rerun``, ``maintainer``).
        valid_from: first instant the key counts (None: always).
        valid_until: instant from which it no longer counts (None: never expires).
        revoked_at: instant from which it no longer counts (None: not revoked).
        comment: who holds the key.
        added_in: the commit (40 hex digits) that added a key without ``validFrom`` to the
            trust file, whose trusted time ``valid_from`` then is
            (:func:`kistore.attest.trust_history.dated`); "" when ``valid_from`` is the
            file's own (or the key is not committed yet). Commit times have whole seconds:
            an attestation that entered in that same second counts only when it entered in
            a commit descending from this one (history order decides a tie of the clock).
        uncommitted: the key is listed by the work tree's trust file and no commit adds it
            yet (:func:`kistore.attest.trust_history.held` with ``at`` None): nothing judged
            now counts by it, since whatever enters now enters before the commit that will
            trust it. Also set (:func:`kistore.attest.trust_here.trust_here`) on a key with
            a ``validFrom`` that the work tree's file lists and ``HEAD``'s does not (since
            2026-12-07, fresh16 F7: one with a past ``validFrom`` counted at once,
            unreviewed, while an uncommitted widening of a committed key did not).
        stated_from: with ``uncommitted``, the work tree's file states the key's
            ``validFrom``: what the key would count for now is community, and the reason
            says that the commit adding it makes what the key signed since then count
            (``kistore check`` warns of it, KI442); what it would not count for (before
            its ``validFrom``, a role it lacks, expired or revoked) is said as before.
        pending: the roles the work tree's trust file adds to this committed entry, which
            no commit adds yet (:func:`kistore.attest.trust_here.trust_here`): an
            uncommitted widening counts from its commit, so the key is judged by its
            committed ``roles``, and an attestation needing one of these is said so
            (:func:`pending_widening`; since 2026-12-07, trust07: "trusted for rerun, not
            maintainer", as though the work tree did not say it).
    """

    keyid: str
    public_key: str
    roles: tuple[str, ...]
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    revoked_at: datetime | None = None
    comment: str | None = None
    added_in: str = ""
    uncommitted: bool = False
    stated_from: bool = False
    pending: tuple[str, ...] = ()

    def judge(self, role: str, when: datetime, signed: datetime | None = None,
              known: Sequence[datetime] | None = None) -> str | None:
        """Return why this key may not sign for ``role``, or None when it may.

        Args:
            role: the role the attestation's type needs.
            when: when the attestation entered the repository (UTC).
            signed: the latest date the signed payload itself states (``observedAt``,
                ``createdAt``), or None. The key's holder controls it, so it can only
                count against them: revocation and expiry are judged at the later of
                ``when`` and ``signed`` (a payload dated after the revocation was signed
                after it, whatever the commit dates say); ``validFrom`` at ``when`` alone
                (a payload dated in the future must not make a key valid early).
            known: the ``revokedAt`` values of this key the repository had recorded when
                the attestation entered (:mod:`kistore.attest.revocations_known`), or None
                (not known: ``revoked_at`` is). ``signed`` counts against those alone: a
                payload dated after a revocation recorded after the attestation entered
                was not signed after it (a rerun farm's clock hours ahead, and a later
                ``trust revoke`` at now un-counted its reruns: fresh06 M2). The entry
                time counts against ``revoked_at`` whatever was recorded.

        Returns:
            Why the key may not sign (one sentence naming the key and the time), or None.
            Raises nothing.
        """
        if role not in self.roles:
            return f"key {self.keyid} is trusted for {', '.join(self.roles)}, not {role}"
        entered = f"the attestation entered the repository at {format_time(when)}"
        latest = when
        if signed is not None and signed > when:
            latest = signed
            entered += f" and its signed payload is dated {format_time(signed)}"
        # Commit dates have whole seconds: one in the second a key was revoked (or expired)
        # may be after it, so that whole second counts as after (breaker8: a backdated
        # commit clamped to its parent at 06:31:55 passed a revocation at 06:31:55.358).
        if self.revoked_at is not None and latest >= _second(self.revoked_at) and (
                known is None or when >= _second(self.revoked_at)
                or any(latest >= _second(r) for r in known)):
            return f"key {self.keyid} was revoked at {format_time(self.revoked_at)}; {entered}"
        if self.valid_from is not None and when < self.valid_from:
            return (f"key {self.keyid} is valid from {format_time(self.valid_from)}; the "
                    f"attestation entered the repository at {format_time(when)}")
        if self.valid_until is not None and latest >= _second(self.valid_until):
            return f"key {self.keyid} expired at {format_time(self.valid_until)}; {entered}"
        return None

    def to_json(self) -> dict[str, Any]:
        """Return the key as its ``keys.json`` entry."""
        out: dict[str, Any] = {"keyid": self.keyid, "publicKey": self.public_key,
                               "roles": list(self.roles)}
        for name, value in (("validFrom", self.valid_from), ("validUntil", self.valid_until),
                            ("revokedAt", self.revoked_at)):
            if value is not None:
                out[name] = format_time(value)
        if self.comment:
            out["comment"] = self.comment
        return out


@dataclass(frozen=True, slots=True)
class Trust:
    """The trusted keys of a store, by keyid (OpenSSH fingerprint).

    Attributes:
        keys: keyid -> :class:`TrustedKey`.
        unreadable: why the trust file could not be used ("" when it could); an unreadable
            file trusts no key, and every judgement says why.
        follows: ``follows(commit, ancestor)``: whether ``commit`` is a proper descendant
            of ``ancestor`` (both 40 hex digits), for a key's ``added_in``; None: history is
            not known here, and an attestation in the key's own second does not count.
        known: ``known(keyid, entered, entered_in)``: the key's ``revokedAt`` values the
            repository had recorded when an attestation entered (at ``entered``, in the
            commits ``entered_in``), which its payload's date is judged against
            (:class:`kistore.attest.revocations_known.KnownRevocations`, set by
            :func:`kistore.attest.trust_history.held`); None: history is not known here,
            and the payload's date counts against every revocation.
    """

    keys: dict[str, TrustedKey] = field(default_factory=dict)
    unreadable: str = ""
    follows: Callable[[str, str], bool] | None = field(default=None, compare=False, repr=False)
    known: Callable[[str, datetime, tuple[str, ...]], list[datetime]] | None = field(
        default=None, compare=False, repr=False)

    def judge(self, keyid: str, role: str, when: datetime, signed: datetime | None = None,
              entered_in: tuple[str, ...] = ()) -> tuple[bool | None, str]:
        """Decide whether ``keyid`` may sign for ``role`` at ``when``.

        Args:
            keyid: the bundled key's OpenSSH fingerprint.
            role: ``rerun`` or ``maintainer``.
            when: when the attestation entered the repository (UTC).
            signed: the latest date its signed payload states, or None (see
                :meth:`TrustedKey.judge`).
            entered_in: the commits the attestation entered in (a file's,
                :attr:`kistore.attest.notes.Seen.entered_in`); empty for a note line. When
                ``when`` is the second of the commit that added the key (``added_in``),
                it counts only when every one of them descends from that commit.

        Returns:
            ``(None, reason)`` when the key is not in trust, or was not yet (the
            attestation entered before its ``validFrom``): a community attestation;
            ``(False, reason)`` when it is but may not sign for ``role`` then,
            ``(True, "")`` when it may.

        Raises nothing.
        """
        if self.unreadable:
            return None, (f"{TRUST_FILE} is invalid ({self.unreadable}): no key is trusted "
                          "until it is fixed; counted as a community attestation")
        key = self.keys.get(keyid)
        if key is None:
            return None, f"key {keyid} is not in {TRUST_FILE}: a community attestation"
        if key.uncommitted and not key.stated_from:  # one clock read against another
            # would decide it (fresh96 L7)
            return None, (f"key {keyid} is listed in the work tree's {TRUST_FILE} but no "
                          "commit adds it yet: it is trusted from the commit that does, and "
                          "an attestation entering before that commit is a community "
                          "attestation (commit the trust change first, then attest)")
        if key.valid_from is not None and when < key.valid_from:
            # trust is not retroactive: signed before the key was trusted, it is what it
            # was then, a community attestation (never an error, never an effect)
            return None, (f"key {keyid} is trusted from {format_time(key.valid_from)}; the "
                          f"attestation entered the repository at {format_time(when)}, "
                          "before: a community attestation")
        if key.added_in and when == key.valid_from and not self._after(key, entered_in):
            return None, (f"key {keyid} is trusted from {format_time(key.valid_from)}, the "
                          f"time of commit {key.added_in}, which added it; the attestation "
                          "entered the repository in that second, not after that commit in "
                          f"history ({_where(entered_in)}): a community attestation")
        known = None
        if (self.known is not None and key.revoked_at is not None and signed is not None
                and when < _second(key.revoked_at) <= signed):  # the payload's date alone
            known = self.known(keyid, when, entered_in)
        reason = key.judge(role, when, signed, known)
        if reason and role not in key.roles and role in key.pending:
            reason = (f"{pending_widening(keyid, key.roles, role)}: an uncommitted widening "
                      f"counts from its commit (commit {TRUST_FILE} first)")
        if reason:
            return False, reason
        if key.uncommitted and key.valid_from is not None:  # fresh16 F7: it would count
            return None, (f"key {keyid} is listed in the work tree's {TRUST_FILE} with "
                          f"validFrom {format_time(key.valid_from)}, but no commit adds it "
                          "yet: a community attestation until the commit that does, which "
                          "makes what the key signed that entered since its validFrom count "
                          "(`kistore check` warns of it, KI442; commit the trust change "
                          "first, then attest)")
        return True, ""

    def _after(self, key: TrustedKey, entered_in: tuple[str, ...]) -> bool:
        """Whether every commit of ``entered_in`` descends from the one that added ``key``.

        The clock ties (both in one second); history order is the truth then: what entered
        in a later commit on top of the trust commit counts, what entered in it, before
        it, beside it (a branch merged later) or in the notes history does not.
        """
        follows = self.follows
        return bool(entered_in) and follows is not None and all(
            c != key.added_in and follows(c, key.added_in) for c in entered_in)

    def to_bytes(self) -> bytes:
        """Return ``keys.json`` as reviewed text: indented JSON, keys sorted by keyid."""
        doc = {"keys": [self.keys[k].to_json() for k in sorted(self.keys)]}
        return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes, *, file: str = TRUST_FILE) -> Trust:
        """Parse and check ``keys.json``.

        Raises:
            ParseError: not strict JSON.
            MultipleErrors: schema violations, a ``keyid`` that is not the fingerprint of its
                ``publicKey``, or the same key listed twice.
        """
        doc = canonical.loads(data, file=file)
        problems = check_document(doc, "trust-keys.json", file=file)
        if problems:
            raise MultipleErrors(list(problems))
        keys: dict[str, TrustedKey] = {}
        errors: list[KistoreError] = []
        for i, entry in enumerate(doc["keys"]):
            try:
                actual = SshPublicKey.from_text(entry["publicKey"], file=file).keyid()
            except InputError as e:
                e.pointer = f"/keys/{i}/publicKey"
                errors.append(e)
                continue
            if actual != entry["keyid"]:
                errors.append(InputError(
                    f"keyid {entry['keyid']} is not the fingerprint of publicKey ({actual})",
                    file=file, pointer=f"/keys/{i}/keyid"))
            elif actual in keys:
                errors.append(InputError(f"key {actual} is listed twice; merge the entries",
                                         file=file, pointer=f"/keys/{i}"))
            else:
                keys[actual] = TrustedKey(
                    actual, entry["publicKey"], tuple(entry["roles"]),
                    _time(entry.get("validFrom")), _time(entry.get("validUntil")),
                    _time(entry.get("revokedAt")), entry.get("comment"))
        if errors:
            raise MultipleErrors(errors)
        return cls(keys)


def load_trust(view: View) -> Trust:
    """Return the trust of a store view (a :class:`kistore.store.View`); empty without a file.

    A commit's trust file is read once a process (:data:`_AT_COMMIT`): ``site build`` and
    ``export`` asked for it twice (is a key trusted, then each run's evidence).

    Raises:
        ParseError, MultipleErrors: as :meth:`Trust.from_bytes`.
    """
    # exactly a commit's view: a StagedView overlays changes staged in a sparse checkout
    commit = str(view.commit.id) if type(view) is CommitView else None
    if commit is not None and commit in _AT_COMMIT:
        data = _AT_COMMIT[commit]
    else:
        data = view.read(TRUST_FILE)
        if commit is not None:
            if len(_AT_COMMIT) >= 8:  # a few revisions a command at most: keep it small
                _AT_COMMIT.clear()
            _AT_COMMIT[commit] = data
    return Trust() if data is None else _parse_cached(data)


_AT_COMMIT: dict[str, bytes | None] = {}
"""Commit id -> its trust file's bytes (None: none there), as :func:`load_trust` read them.

A commit id names its tree, and so the file's bytes, in any repository: kept for the
process. A read that failed (a damaged blob, a partial clone's fetch) is not kept."""


@lru_cache(maxsize=8)
def _parse_cached(data: bytes) -> Trust:
    """Parse once per content: queries judge many runs against the same trust file."""
    return Trust.from_bytes(data)


def parse_trust(data: bytes) -> Trust:
    """Return :meth:`Trust.from_bytes` of ``data``, parsed once a process per content.

    Raises:
        ParseError, MultipleErrors: as :meth:`Trust.from_bytes`.
    """
    return _parse_cached(data)


def add_key(root: Path, key_text: str, roles: list[str], *, valid_from: datetime | None = None,
            valid_until: datetime | None = None, comment: str | None = None) -> TrustedKey:
    """Trust a public key for roles: write ``store/trust/keys.json`` in the work tree.

    A key already listed gets the union of its roles and the given window (fields left
    None keep their value); a revocation is never lifted here. The file is replaced
    atomically; commit it through a reviewed pull request. The entry written is
    :func:`entry_added`'s (``kistore trust add`` asks it first, to refuse a narrowing).

    Args:
        root: the store's work tree.
        key_text: an OpenSSH public-key line or PEM public key.
        roles: roles from :data:`ROLES`.
        valid_from: first instant the key counts.
        valid_until: instant it stops counting.
        comment: who holds it.

    Returns:
        The key as written.

    Raises:
        InputError: an unknown role, a window that ends before it starts, or no Ed25519
            (``ssh-ed25519`` or ``sk-ssh-ed25519@openssh.com``) key.
    """
    new = entry_added(root, key_text, roles, valid_from=valid_from, valid_until=valid_until,
                      comment=comment)
    _write(root, Trust({**_read_work_tree(root).keys, new.keyid: new}))
    return new


def entry_added(root: Path, key_text: str, roles: list[str], *,
                valid_from: datetime | None = None, valid_until: datetime | None = None,
                comment: str | None = None) -> TrustedKey:
    """Return the entry :func:`add_key` would write for a key, writing nothing.

    Args:
        root: the store's work tree (its trust file is read).
        key_text: an OpenSSH public-key line or PEM public key.
        roles: roles from :data:`ROLES`.
        valid_from: first instant the key counts, or None (kept).
        valid_until: instant it stops counting, or None (kept).
        comment: who holds it, or None (kept).

    Returns:
        The key's entry after the change: the work tree's entry (if any) with the union of
        its roles and these, and each given field replacing its value.

    Raises:
        InputError: as :func:`add_key`.
    """
    unknown = sorted(set(roles) - set(ROLES))
    if not roles or unknown:
        raise InputError(f"role must be one of {', '.join(ROLES)}, got {unknown or roles}")
    if valid_from and valid_until and valid_until <= valid_from:
        raise InputError("--valid-until must be later than --valid-from")
    public = SshPublicKey.from_text(key_text)
    keyid = public.keyid()
    old = _read_work_tree(root).keys.get(keyid)
    if old is None:
        return TrustedKey(keyid, public.line(), tuple(sorted(set(roles))),
                          valid_from, valid_until, None, comment)
    return replace(old, roles=tuple(sorted(set(old.roles) | set(roles))),
                   valid_from=valid_from or old.valid_from,
                   valid_until=valid_until or old.valid_until, comment=comment or old.comment)


def revoke_key(root: Path, keyid: str, *, at: datetime | None = None) -> TrustedKey:
    """Revoke a trusted key from ``at`` (default: now): attestations entering later do not count.

    A key already revoked keeps its earliest revocation time: revoking again with a later
    time changes nothing (it must never re-validate what was signed in between); an earlier
    time moves the revocation earlier.

    Returns:
        The key as now recorded.

    Raises:
        InputError: the key is not in ``store/trust/keys.json``.
    """
    return revoke_keys(root, [keyid], at=at)[0]


def revoke_keys(root: Path, keyids: list[str], *, at: datetime | None = None,
                named: list[str] | None = None) -> list[TrustedKey]:
    """Revoke several trusted keys from ``at`` (default: now), as :func:`revoke_key` one.

    All or none: every keyid is looked up before the file is written once (a key file of
    several keys, one of them not trusted, revokes nothing, and says so: reviewer r92b F3).

    Args:
        root: the work tree's top.
        keyids: ``SHA256:...`` keyids (OpenSSH fingerprints).
        at: the revocation instant (UTC); None: now.
        named: where each key was given, for the refusal (``both.pub:2 (k2)``), in
            ``keyids`` order; None: the keyids alone.

    Returns:
        Each key as now recorded, in ``keyids`` order.

    Raises:
        InputError: a key is not in ``store/trust/keys.json`` (nothing written). Several
            keys given: the first not trusted by its place (``key 2 of 2``) and name, how
            many more, that nothing was revoked, and the trusted ones left as they were.
    """
    trust = _read_work_tree(root)
    missing = [i for i, k in enumerate(keyids) if k not in trust.keys]
    if missing and len(keyids) == 1:
        raise InputError(f"no key {keyids[0]} in trust; `kistore trust list` shows the keys",
                         file=TRUST_FILE)
    if missing:
        where = named or keyids
        first, more = missing[0], len(missing) - 1
        kept = [f"{keyids[i]} ({where[i]})" for i in range(len(keyids)) if i not in missing]
        raise InputError(
            f"{where[first]}: key {first + 1} of {len(keyids)}, {keyids[first]}, is not in "
            f"trust ({TRUST_FILE})" + (f", nor {more} more of them" if more else "")
            + "; nothing was revoked (all or none)"
            + (f": {', '.join(kept)} left trusted as before; revoke "
               f"{'it' if len(kept) == 1 else 'them'} by keyid" if kept else "")
            + "; `kistore trust list` shows the keys")
    when = at or datetime.now(UTC)
    keys = dict(trust.keys)
    for keyid in keyids:
        old = keys[keyid]
        # Revoking again must never move a revocation later: that would quietly re-validate
        # everything signed between the two times.
        if old.revoked_at is None or old.revoked_at > when:
            keys[keyid] = replace(old, revoked_at=when)
    if keys != trust.keys:
        _write(root, Trust(keys))
    return [keys[k] for k in keyids]


def pending_widening(keyid: str, roles: Sequence[str], role: str) -> str:
    """Say that only the work tree's trust file adds ``role`` to a committed key's ``roles``.

    The words ``kistore attest``'s refusal (:func:`kistore.attest.trust_here.pending_role`)
    and the listing of an attestation by such a key (:meth:`Trust.judge`) share. Raises
    nothing.
    """
    return (f"key {keyid} is trusted for {', '.join(roles)}, and only the work tree's "
            f"{TRUST_FILE} adds {role}, which no commit does yet")


def revoked_before(root: Path, keyids: list[str]) -> dict[str, datetime]:
    """Return the ``revokedAt`` the work tree's trust file records of each of ``keyids``.

    What ``kistore trust revoke`` says of a key already revoked: it keeps the earlier time
    (:func:`revoke_keys`), and since 2026-12-07 (fresh17 F8) says so, rather than "revoked K
    from T" as if revoked now.

    Args:
        root: the work tree's top.
        keyids: ``SHA256:...`` keyids.

    Returns:
        keyid -> revocation instant (UTC), for each listed key that has one.

    Raises:
        ParseError, MultipleErrors: the file is invalid (as :func:`revoke_keys`).
        InputError: the file or ``store/trust`` is a symbolic link.
    """
    keys = _read_work_tree(root).keys
    found = {}
    for keyid in keyids:
        when = keys[keyid].revoked_at if keyid in keys else None
        if when is not None:
            found[keyid] = when
    return found


def comment_problem(comment: str) -> str | None:
    """Return why a key's ``comment`` may not be stored, or None (fresh14 F7).

    The comment says who holds the key, and ``kistore check`` prints it inside the one line
    a reviewer reads to approve trust (KI427). It is held to the rule of an attestation's
    text and a manifest's prose (:func:`kistore.core.text_fields.prose_problem`: no control
    character, no bidirectional control such as U+202E, which shows the rest of the line
    reversed), and, being one line, to no line break either (LINE FEED, U+2028, U+2029:
    it would write the reviewer's line for them).

    Args:
        comment: the comment.

    Returns:
        One sentence naming the first such character, its 1-based position and what to do;
        None when it may be stored. Raises nothing.
    """
    # Lazy: the text rules' tables, only for a comment.
    from ..core.text_fields import char_at, prose_problem

    problem = prose_problem(comment)
    if problem is not None:
        return problem
    breaks = [i for i, c in enumerate(comment) if c in "\n\u2028\u2029"]
    if not breaks:
        return None
    return (f"{shorten(repr(comment))} holds {char_at(comment, breaks[0])}, a line break: a "
            "key's comment is printed within one line (the gate's KI427 line a reviewer "
            "reads to approve trust), and written raw it would read as lines of its own: "
            "replace it by a space")


def parse_time(text: str) -> datetime:
    """Parse an RFC 3339 date-time, or a date (midnight UTC); naive times are taken as UTC.

    Raises:
        InputError: not a date or date-time, or an instant outside the years 1-9999 in
            UTC (``9999-12-31T23:59:59-12:00``: every comparison with it overflowed,
            review r78 F10).
    """
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"{text!r} is not an RFC 3339 date-time (e.g. 2026-07-10T06:41:58Z) "
                         "or a date (2026-07-10)") from None
    value = value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        value.astimezone(UTC)
    except OverflowError:
        raise InputError(f"{text!r} is outside the years 0001-9999 in UTC: give the time "
                         "in UTC (e.g. 9999-12-31T23:59:59Z)") from None
    return value


def format_time(value: datetime) -> str:
    """Format an instant as RFC 3339 UTC with a ``Z`` (``2026-07-10T06:41:58Z``)."""
    text = value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return text


def _time(text: str | None) -> datetime | None:
    return parse_time(text) if text is not None else None


def _read_work_tree(root: Path) -> Trust:
    # A committed link at store/trust or keys.json: never read through it (it would merge
    # keys from outside the repository) nor replace it (r70 F19); checked before reading.
    refuse_links(root, [], [TRUST_FILE])
    path = root / TRUST_FILE
    return Trust.from_bytes(path.read_bytes()) if path.exists() else Trust()


def _write(root: Path, trust: Trust) -> None:
    refuse_links(root, [], [TRUST_FILE])  # a committed link: never write out
    atomic_write(root / TRUST_FILE, trust.to_bytes())


def _where(entered_in: tuple[str, ...]) -> str:
    """Name where an attestation entered, for a judgement in its key's own second."""
    if not entered_in:
        return "a note line, or a file not yet committed: not ordered with the branch"
    return "entered in commit " + ", ".join(entered_in)


def _second(instant: datetime) -> datetime:
    """Return ``instant`` with its fraction of a second dropped (the second it falls in)."""
    return instant.replace(microsecond=0)
