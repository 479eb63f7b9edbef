"""Whether a clone holds the attestations a publishing command would print (reviewer r83 F11).

``git clone`` does not fetch ``refs/notes/kistore``, where attestations live: in such a
clone ``site build`` and ``export`` saw no withdrawal, no verification, and published a
withdrawn run ranked #1 and empty attestation columns without a word (``show`` and
``verify`` warn). :func:`require_attestations` refuses there, with the fetch command, unless
``--without-attestations`` (:data:`WITHOUT_ATTESTATIONS`) says to publish without them; it
then warns. Which repositories lack the notes is :func:`kistore.attest.levels.notes_lacking`'s rule:
one with a remote into which no remote's notes were fetched (``kistore notes fetch`` writes
``refs/notes/remotes/R/kistore``; a local ``refs/notes/kistore`` made by one ``kistore
attest`` before any fetch does not count, reviewer r86 F21). A store with no remote
(a fresh local store, ``make demo``) has nowhere to fetch notes from and is never refused.
Nor is a clone whose published commit trusts no key (no ``store/trust/keys.json``, or
one listing none): only a trusted key's attestation withdraws or verifies a run, so the
notes could change no rank or evidence level there; it is warned that community
attestations are left out, with the fetch command. Notes fetched before the branches of
their remote were (``git pull`` never fetches notes) are warned of by
:func:`warn_notes_stale` (reviewer r86 F2), and publishing is refused on them as on
lacking notes, where a key is trusted (reviewer r90b F9). Notes that moved at the remote
with no branch (a withdrawal pushed as notes alone) are asked for at publishing time only
(:func:`_require_unmoved`, one ``git ls-remote``; reviewer r92b F8). Notes this clone
attested and pushed with plain git (no tracking ref written) are asked for the same way,
once, and then count as fetched (:func:`_pushed_by_git`; reviewer G5, and break94 F5
where no key is trusted). What the clone holds of the notes is read once a command
(:func:`kistore.attest.levels.notes_here`) and passed to each of these questions: it was
read three times by one ``site build`` (lacking, stale, moved at the remote).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..core.errors import StoreStateError, printable
from ..core.layout import NOTES_REF

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..attest.levels import NotesHere
    from ..store import Store

WITHOUT_ATTESTATIONS = click.option(
    "--without-attestations", is_flag=True,
    help=f"Publish even when this repository lacks {NOTES_REF} (git clone does not fetch it), "
         "or fetched it before its branches (git pull does not), or the remote's notes "
         "moved since (asked with git ls-remote; this flag asks nothing), or its notes lack "
         "a line their history, reflog or the remote held (KI315): withdrawn runs "
         "are then ranked and no run is verified, or not those of attestations made since. "
         "Without it, such a clone whose commit trusts a key is refused.")
"""The flag of ``site build`` and ``export`` that publishes a clone lacking the notes."""

NOTES_AT_HELP = (f"the attestations of this notes commit (default: the tip of {NOTES_REF}; "
                 "`none`: no notes)")
"""The words of ``--notes-at`` in ``site build``'s and ``export``'s help, after the verb
(`none`: :data:`kistore.attest.notes_at.NOTES_NONE`, not imported here: ``--help`` loads
no store code)."""


def fetch_command(store: Store, here: NotesHere | None = None) -> str:
    """Return the command that fetches the notes from the remote to fetch them from.

    Args:
        store: a :class:`kistore.store.Store` with at least one remote.
        here: what :func:`kistore.attest.levels.notes_here` read of it, when the caller
            holds it (read here otherwise).

    Returns:
        ``kistore notes fetch REMOTE``: REMOTE is the one whose notes were fetched last,
        else ``upstream`` (a fork layout), else ``origin``, else the first by name
        (:func:`kistore.attest.levels.notes_remote`). Not ``git fetch REMOTE
        refs/notes/kistore:refs/notes/kistore``, which readers cannot tell from a local
        attestation (it writes no ``refs/notes/remotes/R/kistore``) and which replaces
        the clone's own notes rather than merging them.

    Raises:
        OSError: with ``here`` None, as :func:`kistore.attest.levels.notes_here`.
    """
    # Lazy: a publishing or ranking run in a clone without notes only.
    from ..attest.levels import notes_remote

    return f"kistore notes fetch {printable(notes_remote(store, here) or 'origin')}"


def trusts_a_key(store: Store, at: str | None) -> bool:
    """Whether the trust file at ``at`` lists a key (whose attestations could count).

    Args:
        store: the store.
        at: the published revision (None: the work tree).

    Returns:
        True when ``store/trust/keys.json`` at ``at`` lists a key; False without the file,
        with no key in it, or when it cannot be read or parsed: the judges then trust no
        key either (:class:`kistore.attest.trust.Trust`), and the command goes on to name
        the damage as it reads (a missing git object, KI117), not this refusal.
    """
    # Lazy: the trust file is read on a publishing run only.
    from ..attest.trust import load_trust
    from ..core.errors import KistoreError

    try:
        return bool(load_trust(store.view(at)).keys)
    except KistoreError:
        return False


def notes_missing(store: Store, at: str | None, here: NotesHere | None = None
                  ) -> tuple[str, bool] | None:
    """Say whether this clone lacks its remote's notes, why, and whether they could count.

    The one test behind :func:`require_attestations` and :func:`warn_notes_missing`; it
    reads plain files only (no libgit2: a warm ``rank`` in a clone without notes pays none
    unless a warning is printed, which names the fetch command, :func:`fetch_command`).

    Args:
        store: the store answered or published from.
        at: the revision answered from (None: the work tree); its trust file decides.
        here: as :func:`fetch_command` takes it.

    Returns:
        None when a remote's notes were fetched here or there is nowhere to fetch them from
        (no remote: :func:`kistore.attest.levels.notes_lacking`); else why they are lacking
        (:data:`kistore.attest.levels.ABSENT` or ``LOCAL_ONLY``) and whether ``at`` trusts a
        key (:func:`trusts_a_key`; False: the notes hold only community attestations, which
        change no rank or evidence level).

    Raises:
        OSError: with ``here`` None, as :func:`kistore.attest.levels.notes_here`.
    """
    # Lazy: plain files first (kistore.git.refs): a warm query loads no libgit2.
    from ..attest.levels import notes_lacking

    why = notes_lacking(store, here)
    if why is None:
        return None
    return why, trusts_a_key(store, at)


def require_attestations(store: Store, without: bool, doing: str, at: str) -> None:
    """Refuse to publish from a clone that lacks its remote's notes, or warn with the flag.

    Notes fetched before the branches of their remote were (``git pull`` after ``kistore
    notes fetch``: :func:`kistore.attest.levels.notes_stale`) are refused the same way
    where ``at`` trusts a key (reviewer r90b F9): a withdrawal the remote's notes gained
    with the branches (its maintainer's key trusted by the commit pulled) was published
    as #1 with one warning, while a clone that never fetched the notes was refused. The
    clone cannot tell whether the remote's notes changed: the fetch tells, and is cheap.

    Args:
        store: the store published from.
        without: ``--without-attestations`` was given: warn on stderr instead of refusing.
        doing: what the command does, for the messages (``build the site``, ``export``).
        at: the published revision (its trust file decides whether notes could count).

    Raises:
        StoreStateError: the repository has a remote, the trust file at ``at`` lists a key
            (:func:`trusts_a_key`), ``without`` is False (exit 1), and no remote's notes
            were fetched into it (:func:`notes_missing`) or they were fetched before the
            branches were, or the remote's notes moved since (:func:`_require_unmoved`);
            the message says why, what that does, the fetch command and the flag.
    """
    # Lazy: plain files (the notes transport only when the remote is asked).
    from ..attest.levels import LOCAL_ONLY, notes_here

    # once: lacking, stale and moved are all asked of it; the remotes as git names them
    here = notes_here(store, ask_git=True)
    missing = notes_missing(store, at, here)
    if missing is not None and not without and missing[0] == LOCAL_ONLY and \
            _pushed_by_git(store, here):
        # the remote's notes are this clone's: pushed with plain git (G5); asked where no
        # key is trusted too, whose warning told to fetch what was there (break94 F5).
        # Recorded as fetched just now from the remote just asked, which holds them: not
        # stale, not moved (`here` is as before the record: not read again for that)
        return
    if missing is None:
        _require_fresh(store, without, doing, at, here)
        return
    why, trusted = missing
    fetch = fetch_command(store, here)
    # msg94 F8: notes attested here and never fetched are published; "community
    # attestations are left out" was said, then they were exported
    own = why == LOCAL_ONLY
    kept = "; this repository's own attestations are published" if own else ""
    whose = "the remote's " if own else ""
    if not trusted:
        click.echo(f"warning: {why}: {whose}community attestations are left out (no key is "
                   f"trusted at {printable(at)}, so none could withdraw or verify a run)"
                   f"{kept}; `{fetch}` fetches them", err=True)
        return
    lacking = (f"{why}, so the remote's attestations are not here: a withdrawn run would be "
               "ranked and no run verified")
    if not without:
        raise StoreStateError(
            f"refusing to {doing}: {lacking}; run `{fetch}` and {doing} again, or pass "
            f"--without-attestations to {doing} without them (as when the remote has no "
            f"{NOTES_REF} either: no attestation was ever made)")
    click.echo(f"warning: {doing} without {whose}attestations (--without-attestations): "
               f"{lacking}{kept}; `{fetch}` fetches them", err=True)


def _pushed_by_git(store: Store, here: NotesHere) -> bool:
    """Whether the remote to fetch from holds this clone's notes, pushed with plain git.

    A first ``git push origin refs/notes/kistore`` to a remote holding none leaves this
    clone's notes ``LOCAL_ONLY`` (no tracking ref): publishing was refused until a notes
    fetch (reviewer G5). One ``git ls-remote`` tells, and records it
    (:func:`kistore.attest.notes.adopt_pushed`).
    """
    # Lazy: the notes transport on a publishing run of such a clone only.
    from ..attest.levels import notes_remote
    from ..attest.notes import adopt_pushed

    remote = notes_remote(store, here)
    return remote is not None and adopt_pushed(store, remote)


def _require_fresh(store: Store, without: bool, doing: str, at: str, here: NotesHere
                   ) -> None:
    """:func:`require_attestations` where the notes were fetched: refuse them stale.

    Where ``at`` trusts no key the notes could change no rank: warned, as queries are;
    the remote is asked all the same, and notes that moved there are warned of (the
    community attestations made since are left out: reviewer fresh95 F7, README's
    promise; they were published stale without a word). ``here``: what
    :func:`kistore.attest.levels.notes_here` read (not read again).
    """
    # Lazy: plain files only, read on a publishing run.
    from ..attest.levels import notes_stale

    stale = notes_stale(store, here)
    if stale is None:
        if not without:
            _require_unmoved(store, doing, at, trusts_a_key(store, at), here)
        return
    if not trusts_a_key(store, at):
        click.echo(f"warning: {printable(stale)}", err=True)
        return
    said = printable(stale)
    if not without:
        raise StoreStateError(
            f"refusing to {doing}: {said} and {doing} again (attestations the remote gained "
            "since, a withdrawal among them, are not here: a withdrawn run would be ranked), "
            f"or pass --without-attestations to {doing} with the notes as last fetched")
    click.echo(f"warning: {doing} with the notes as last fetched (--without-attestations): "
               f"{said}", err=True)


def _require_unmoved(store: Store, doing: str, at: str, trusted: bool, here: NotesHere
                     ) -> None:
    """Refuse to publish when the remote's notes moved since they were fetched (network).

    A withdrawal pushed as notes alone moves no branch: nothing offline tells it, and a
    clone whose ``git pull`` said "Already up to date" published the withdrawn run ranked
    (reviewer r92b F8). The remote is asked once
    (:func:`kistore.attest.notes.remote_notes_moved`); one that cannot be asked (offline,
    it would prompt) is warned of, and the build goes on with the notes as last fetched.
    ``--without-attestations`` asks nothing (:func:`_require_fresh`). ``here``: what
    :func:`kistore.attest.levels.notes_here` read (not read again). Where ``at`` trusts
    no key (``trusted`` False) nothing could withdraw or verify a run: notes that moved
    are warned of, never refused, and a remote that cannot be asked is not said.

    Raises:
        StoreStateError: the remote's ``refs/notes/kistore`` is not the one last fetched
            here, nor one this clone's notes hold: the fetch command and the flag are
            named; or the remote holds none though this clone fetched and holds notes
            (reviewer r93 F7: the fetch left the refusal, the flag published withdrawn
            runs): ``kistore notes push REMOTE`` is named, which puts them back.
    """
    # Lazy: the notes transport (and a git child) on a publishing run only.
    import shlex

    # Lazy: as above.
    from ..attest.notes import remote_notes_moved
    from ..core.times import utc_text

    asked = remote_notes_moved(store, here)
    if asked is None or asked.moved is False or (asked.moved is None and not trusted):
        return
    remote = printable(asked.remote)
    typed = printable(shlex.quote(asked.remote))  # in a command: it runs as printed
    when = "" if asked.fetched is None else f" ({utc_text(int(asked.fetched))})"
    if not trusted:
        click.echo(
            f"warning: {remote} holds no {NOTES_REF} now, though its notes were fetched "
            f"here{when}: `kistore notes push {typed}` puts this repository's back"
            if asked.removed else
            f"warning: {remote}'s {NOTES_REF} moved since its notes were last fetched "
            f"here{when}: community attestations made there since are left out (no key is "
            f"trusted at {printable(at)}, so none could withdraw or verify a run); `kistore "
            f"notes fetch {typed}` fetches them", err=True)
        return
    if asked.moved is None:
        click.echo(f"warning: could not ask {remote} whether its {NOTES_REF} moved since "
                   f"its notes were last fetched here{when}: {printable(asked.why)}; "
                   f"attestations made there since would not be here if they came as notes "
                   f"alone (a withdrawal moves no branch) or with commits merged here from a "
                   f"fetch by its URL that FETCH_HEAD no longer names (a later fetch "
                   f"replaced it): `kistore notes fetch {typed}` before publishing to be "
                   f"sure", err=True)
        return
    if asked.removed:
        raise StoreStateError(
            f"refusing to {doing}: {remote} holds no {NOTES_REF} now, though its notes were "
            f"fetched here{when}: they were removed or replaced there (a fetch brings "
            f"nothing back): run `kistore notes push {typed}`, which puts this repository's "
            f"notes back, and {doing} again")
    raise StoreStateError(
        f"refusing to {doing}: {remote}'s {NOTES_REF} moved since its notes were last "
        f"fetched here{when} (attestations pushed there as notes alone, a withdrawal among "
        f"them, move no branch, and they are not here: a withdrawn run would be ranked): "
        f"run `kistore notes fetch {typed}` and {doing} again, or pass "
        f"--without-attestations to {doing} with the notes as last fetched")


def warn_notes_missing(store: Store, at: str | None) -> None:
    """Warn on stderr that a ranking answer lacks the remote's notes, or has them as of old.

    ``rank`` and ``compare`` answered from a plain ``git clone`` as if no run were withdrawn
    or verified, without a word (reviewer r85 F15; ``show`` says so on its attestations
    line). Said where :func:`require_attestations` would refuse to publish: a remote, no
    remote's notes fetched, and a trusted key at ``at`` (else the notes could change no
    rank). Else :func:`warn_notes_stale`. Then :func:`warn_notes_lacking`.

    Args:
        store: the store queried.
        at: the revision answered from (None: the work tree).
    """
    # Lazy: plain files only, read where an answer is printed.
    from ..attest.levels import notes_here

    here = notes_here(store)  # once: lacking, then stale or the remote to fetch from
    missing = notes_missing(store, at, here)
    if missing is None:
        warn_notes_stale(store, here)
        warn_notes_lacking(store, at)  # lines the tip lacks that count (fresh05 MED 3)
        return
    why, trusted = missing
    if trusted:
        click.echo(f"warning: {why}: the remote's attestations (withdrawals, reruns) are not "
                   f"applied to this answer; `{fetch_command(store, here)}` fetches them",
                   err=True)
    warn_notes_lacking(store, at)


def warn_notes_stale(store: Store, here: NotesHere | None = None) -> None:
    """Warn on stderr, once, when the notes were fetched before their remote's branches were.

    ``git pull`` never fetches notes (reviewer r86 F2): what the clone holds of a withdrawal
    may be older than the runs it reads. Told offline from file times
    (:func:`kistore.attest.levels.notes_stale`, which says what is compared); nothing is
    said when they cannot tell.

    Args:
        store: the store read.
        here: as :func:`fetch_command` takes it.

    Returns:
        None; the warning is printed. Raises nothing (:func:`kistore.attest.levels.
        notes_stale` answers None when it cannot tell).
    """
    # Lazy: plain files only, read where an answer is printed.
    from ..attest.levels import notes_stale

    stale = notes_stale(store, here)
    if stale is not None:
        click.echo(f"warning: {printable(stale)}", err=True)


def require_notes_whole(store: Store, without: bool, doing: str, at: str) -> None:
    """Refuse to publish a notes tip that lacks a line that counts (fresh07 M3).

    A notes ref moved back behind its tracking ref (or a line removed here) published the
    withdrawn run as #1, ``"withdrawn": false``, exit 0, with a warning on stderr a CI
    publisher never reads, while the milder case (the remote's notes moved since the
    fetch, :func:`_require_unmoved`) is refused: both are now.

    Args:
        store: the store published from.
        without: ``--without-attestations``: warn on stderr and publish the tip as it is.
        doing: what the command does (``build the site``, ``export``).
        at: the published revision (its trust judges the lines).

    Raises:
        StoreStateError: :func:`kistore.attest.tip_lacking.lacking` found lines and
            ``without`` is False: each part said, with the command that puts them back and
            the flag (exit 1; nothing is written).
    """
    # Lazy: plain files only unless the notes moved since they were last found whole.
    from ..attest.tip_lacking import lacking, lacking_said
    from ..core.errors import KistoreError

    try:
        found = lacking(store, at)
    except KistoreError:  # a damaged or unreachable note: the build's own reads say it
        return
    if found is None:
        return
    said = lacking_said(store, at, found)
    if not without:
        raise StoreStateError(
            f"refusing to {doing}: " + "; ".join(printable(m) for _w, m, _f in said)
            + f"; then {doing} again, or pass --without-attestations to {doing} with the "
            "notes as they are")
    for _where, message, _fix in said:
        click.echo(f"warning: {doing} with the notes as they are (--without-attestations): "
                   f"{printable(message)}", err=True)


def warn_notes_lacking(store: Store, at: str | None) -> None:
    """Warn on stderr for each attestation line that counts which the notes tip lacks.

    A withdrawal removed from this clone's notes (``git notes remove``), or the notes ref
    moved back past it, was read as never made by every query and publisher, without a
    word (fresh05 MED 3): :func:`kistore.attest.tip_lacking.lacking` finds the lines the
    tip's own history held, and those a remote's notes as last fetched hold; each part is
    said with the command that puts them back (``kistore notes restore``, ``kistore notes
    fetch R``). Called where the tip is read (no ``--notes-at``: a named notes commit is
    said by :func:`kistore.attest.notes_at.lost_warning`). One file read when nothing was
    lacking at the same tips before (no git library loaded).

    Args:
        store: the store read.
        at: the revision answered from or published (None: the work tree): its trust
            judges the lines, its metadata names the runs.
    """
    # Lazy: plain files only unless the notes moved since they were last found whole.
    from ..attest.tip_lacking import lacking, lacking_said
    from ..core.errors import KistoreError

    try:
        found = lacking(store, at)
    except KistoreError:  # a damaged or unreachable note: the answer's own reads say it
        return
    if found is not None:
        for _where, message, _fix in lacking_said(store, at, found):
            click.echo(f"warning: {printable(message)}", err=True)
