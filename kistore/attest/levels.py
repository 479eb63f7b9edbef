"""What a reader shows of a run's evidence without judging any attestation.

The evidence level names, the :class:`Evidence` of one run (a run with no attestation has
the default: ``source-native``, none counted), and whether this clone lacks the notes that
hold attestations (:func:`notes_not_fetched`). :mod:`.evidence` judges bundles into an
:class:`Evidence`; this module holds what ``rank`` and a run page need when no run of the
group may be attested, so they load no signature, note or finding code (issue 22:
start-up; docs/speed.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core.layout import NOTES_REF
from ..git.refs import RefsUnreadable, common_git_dir, resolve

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

SOURCE_NATIVE = "source-native"
VERIFIED = "verified"
WITHDRAWS = "withdraws"
"""The effect of a valid maintainer withdrawal (:mod:`.evidence` judges it so)."""

NOT_FETCHED = f"notes not fetched: run `kistore notes fetch` ({NOTES_REF} is not in this clone)"
"""What ``attestations``, ``show`` and ``verify`` say in a clone without the notes."""


class Evidence(NamedTuple):
    """What the attestations about one run amount to.

    A named tuple, not a frozen dataclass: making one costs ~1.5 ms of start-up (its
    methods are compiled), on every run page and ``rank`` (docs/speed.md).

    Attributes:
        level: ``source-native`` or ``verified``.
        withdrawn: True when a valid maintainer withdrawal applies (never ranked then).
        community: number of valid community attestations (counted, never raising level).
        attestations: a summary per attestation seen (type, keyid, valid, reason, source);
            a tuple, so that the default (none) is immutable too.
    """

    level: str = SOURCE_NATIVE
    withdrawn: bool = False
    community: int = 0
    attestations: tuple[dict[str, Any], ...] = ()


def notes_not_fetched(store: Store) -> str | None:
    """Return :data:`NOT_FETCHED` when this is a clone that lacks ``refs/notes/kistore``.

    Git does not fetch notes by default, so a fresh clone has none: its attestations are
    not "none", they are not here. A clone is a repository with a remote; a store with
    neither notes nor remotes has no notes to fetch, and None is returned for it.

    Args:
        store: a :class:`kistore.store.Store`.

    Returns:
        The message, or None when the notes ref is here (or there is nowhere to fetch it).
    """
    git_dir = Path(store.git_dir)
    try:  # plain files first: a warm query loads no libgit2 (kistore.git.refs)
        if resolve(git_dir, NOTES_REF) is not None:
            return None
        # a linked worktree's config is its common git directory's
        config = common_git_dir(git_dir) / "config"
        remotes = '[remote "' in config.read_text(errors="replace")
    except (RefsUnreadable, OSError):
        if NOTES_REF in store.repo.references:
            return None
        remotes = bool(list(store.repo.remotes))
    return NOT_FETCHED if remotes else None


def notes_remote(store: Store) -> str | None:
    """Return the remote to fetch the notes from: ``origin`` when there is one, else the first.

    Args:
        store: a :class:`kistore.store.Store`.

    Returns:
        A remote's name (by name order after ``origin``), or None when there is no remote
        (a store made here: its attestations are those made here, nothing to fetch).
    """
    names = sorted(remote.name or "" for remote in store.repo.remotes)
    if not names:
        return None
    return "origin" if "origin" in names else names[0]


def withdrawal_said(evidence: Evidence) -> str | None:
    """Name the withdrawal that applies to a run, for a line of text; None when none does.

    Args:
        evidence: the run's :class:`Evidence`.

    Returns:
        ``withdrawn by KEYID: REASON`` (the first valid withdrawal's key and what it says,
        as signed: the caller escapes the line, :func:`kistore.core.errors.one_line`), or
        ``withdrawn by KEYID`` when it says nothing; None when the run is not withdrawn.
    """
    found = withdrawal(evidence)
    return None if found is None else withdrawal_words(*found)


def withdrawal_words(keyid: str, reason: str) -> str:
    """Return ``withdrawn by KEYID: REASON`` (``withdrawn by KEYID`` for no reason)."""
    return f"withdrawn by {keyid}" + (f": {reason}" if reason else "")


def withdrawal(evidence: Evidence) -> tuple[str, str] | None:
    """Return the withdrawal that applies to a run: its key and what it says; None when none.

    Args:
        evidence: the run's :class:`Evidence`.

    Returns:
        ``(KEYID, REASON)`` of the first valid maintainer withdrawal (``?`` for a key not
        told, ``""`` for a reason not said; the reason as signed, unescaped), or None when
        the run is not withdrawn.
    """
    if not evidence.withdrawn:
        return None
    said = next((a for a in evidence.attestations if a.get("effect") == WITHDRAWS), {})
    return str(said.get("keyid") or "?"), str(said.get("text") or "")


TEXT_LABEL = {"dispute": "reason", "withdrawal": "reason"}
"""What an attestation's text is called where it is printed (``text`` for other types)."""


def attestation_text(judged: dict[str, Any]) -> str:
    """Return one attestation judgement (``attestations --json`` object) as a line of text.

    ``TYPE KEYID valid|INVALID EFFECT SOURCE[: REASON][; says: TEXT]``, as ``kistore
    attestations`` and ``show`` list them; ``?`` for a type or keyid an unreadable bundle
    lacks; SOURCE is each place the bundle was found (``note+file`` after ``kistore notes
    sync`` attached a file). ``TEXT`` is what the attestation says (a dispute's or
    withdrawal's ``reason``, a note's ``text``: ``; reason: timer excludes sync``), as
    signed: the caller escapes the line for the terminal (:func:`kistore.core.errors.one_line`).
    """
    valid = "valid" if judged.get("valid") else "INVALID"
    reason = judged.get("reason")
    text = judged.get("text")
    label = TEXT_LABEL.get(judged.get("type") or "", "text")
    places = judged.get("places") or [judged]
    source = "+".join(dict.fromkeys(str(p.get("source")) for p in places))
    return (f"{judged.get('type') or '?'} {judged.get('keyid') or '?'} {valid} "
            f"{judged.get('effect')} {source}" + (f": {reason}" if reason else "")
            + (f"; {label}: {text}" if text else ""))
