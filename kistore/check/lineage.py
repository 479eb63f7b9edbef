"""Rules over the whole history, not one range: what a sequence of pull requests cannot undo.

A public index is fed by many small pull requests; a rule checked only inside one range
can be undone by two ranges that each pass (issue #17). This module holds the rules whose
subject is the history itself, read incrementally so the gate stays O(change):

* **A revocation is permanent** (KI412): a key revoked by any version of
  ``store/trust/keys.json`` along the first-parent history must stay listed with a
  ``revokedAt`` no later than its earliest one. Only the trust file's own versions are read
  (:func:`kistore.attest.trust_history.ever_revoked`, git's path-limited log), and the gate
  reads them only when a range changes the trust file.
* **A name never moves** (KI208): a metadata file's ``name`` never changes, and a names
  file (``store/names/KIND/XX/NAME``, holding the owner's digest) is never modified,
  renamed or deleted. Names are unique per kind at every commit (KI205, KI211) and objects
  are never deleted (KI402), so a name, once given, is held by its object forever and can
  never be given to another. The gate reads only the metadata files and names
  directories each commit of the range changes.
* **Provenance stays** (KI432): a landed metadata file's ``kernelindex.dev/*`` annotations
  (the licence, source, upstream and source file its importer recorded) are never changed,
  added or removed, read in the same walk as the names (review r88 F1: a pull request
  relicensed an imported run with ``add --update-metadata`` and the gate said info KI405).
* **A group file stays** (KI410): a file under ``store/groups/`` (a run's membership of its
  comparison group, :mod:`kistore.check._groups`) is never modified, renamed or deleted
  either; adding one is the contents check's (KI215, KI216).
* **A forward record stays** (KI410): a file under ``store/forward/`` (a run's reference to
  a digest the store lacked, :mod:`kistore.check._forward`) is never modified, renamed or
  deleted, checked the same way; and a commit adds one only while the digest it names is
  dangling (KI417): its parent holds no object of that digest. A record of a reference that
  was never dangling is no record of anything, and could never be removed again.

:func:`check_revocations` and :func:`check_names` are :data:`kistore.check.audit.CHECKERS`
(``verify``); :func:`revocations_kept` and :func:`names_kept` are the gate's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..attest.trust import format_time, load_trust
from ..attest.trust_history import ever_revoked
from ..core import layout
from ..core.canonical import escape_pointer
from ..core.canonical_fast import loads_lenient
from ..core.errors import KistoreError, one_line
from ..core.findings import ERROR, WARNING, Finding, rule
from ..core.layout import TRUST_FILE
from ..core.provenance import ABSENT, provenance_changes, quoted_annotation
from ..git import treediff
from ..git.blobs import read_blob, read_loose_history
from ..git.lazy import pygit2  # imported on first use (~0.2 s)
from ..git.pathlog import blob_at, first_parent_versions
from ..store.landed import Landed, last_measure, measure
from ._fixes import (
    HINT_BASE,
    REBASE_BASE,
    Base,
    rebase_fix,
    rebuild_without,
    restored_fix,
    staged_fix,
)
from ._gap_openings import commit_openings, landed_gaps
from ._history import ancestry
from ._lineage_fixes import blob_entry, lineage_fixes, undo_said_once
from ._side_renames import merged_rename

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

HISTORY_SHALLOW = rule(
    "KI416", "history-shallow", WARNING,
    "fetch the whole history (`git fetch --unshallow`) and check again; CI: clone with "
    "fetch-depth 0")
REVOCATION_LIFTED = rule(
    "KI412", "trust-revocation-lifted", ERROR,
    "a revocation is permanent: keep the revoked key's entry with its revokedAt (an earlier "
    "time is fine); never remove it or move it later, and trust the holder's new key instead")
APPEND_ONLY_REMOVED = rule(
    "KI410", "append-only-file-removed", ERROR,
    "attestation files, the trust file, the ranking policy, forward records and group files "
    "are reviewed evidence: answer an attestation with another (a dispute), revoke a key "
    "with `kistore trust revoke`, edit store/policy/ranking.json; never delete them, nor "
    "change a forward record or group file (in the work tree, restore it: `git checkout "
    "HEAD -- PATH`; a commit of the branch that changed it stays in the history, read "
    "commit by commit: drop that commit, `git rebase -i BASE`)")
FORWARD_NOT_DANGLING = rule(
    "KI417", "forward-record-not-dangling", ERROR,
    "a forward record is written only for a reference to a digest the store lacks: remove "
    "the record from the commit (`git rm PATH`; after a rebase onto a branch that stores "
    "the digest, `kistore add` writes none)")
NAME_MOVED = rule(
    "KI208", "name-changed", ERROR,
    "a KIND/NAME is how people cite and link an object: keep its metadata.name (correct the "
    "title or other metadata instead); a new name means a new manifest")
def _provenance_hint(base: Base, path: str = "FILE") -> str:
    """Return KI432's hint, its checkout of ``path`` naming ``base`` (:class:`._fixes.Base`).

    Raises nothing.
    """
    return ("a landed manifest's kernelindex.dev/* annotations say where it came from and "
            "under which licence, as its importer recorded them: keep them as they are "
            f"({base.checkout(path)} restores the file); a wrong licence or source is the "
            "maintainers' to answer, with a withdrawal signed by a trusted maintainer key that "
            "says why (`kistore attest REF --type withdrawal -m WHY`), never by editing the "
            "metadata")


PROVENANCE_CHANGED = rule("KI432", "provenance-annotation-changed", ERROR,
                          _provenance_hint(HINT_BASE))
PROVENANCE_CHANGED_IN_HISTORY = replace(PROVENANCE_CHANGED, severity=WARNING)
"""KI432 as ``verify`` reports it: history is never rewritten, and until 2026-12-04 ``import
--update-metadata`` was the documented way to correct an import's provenance."""


def revocations_kept(store: Store, base: Any, head: Any, commits: Iterable[Any]) -> list[Finding]:
    """KI412 for each key ever revoked that the trust file at ``head`` no longer revokes.

    Args:
        store: a :class:`kistore.store.Store`.
        base: the range's base commit (``pygit2.Commit``): its first-parent history's
            versions of the trust file count.
        head: the range's head commit.
        commits: the commits of the range; the trust file each holds counts too (a
            revocation made and undone inside one range was still made).

    Returns:
        KI412 findings on ``store/trust/keys.json``.
    """
    repo = store.repo
    more = []
    for commit in commits:
        blob = blob_at(repo, commit.tree, layout.TRUST_FILE)
        if blob is not None:
            more.append((str(commit.id), read_blob(repo, blob)))
    return _held(store, str(head.id), ever_revoked(repo, str(base.id), more))


def check_revocations(store: Store, at: str | None = None) -> list[Finding]:
    """KI412 for ``verify``: the trust file of ``at`` (or the work tree) against its history.

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for the work tree (its file counts as the newest version).

    Returns:
        KI412 findings; none in a repository without commits.
    """
    repo = store.repo
    if at is None:
        if repo.head_is_unborn:
            return []
        rev = str(repo.head.target)
        data = store.view(None).read(layout.TRUST_FILE)
        more = [("", data)] if data is not None else []
    else:
        rev, more = str(store.commit(at).id), []
    return _held(store, at, ever_revoked(repo, rev, more))


def _held(store: Store, at: str | None, revoked: dict[str, Any]) -> list[Finding]:
    """KI412 for each of ``revoked`` the trust file of ``at`` does not revoke as early."""
    if not revoked:
        return []
    try:
        trust = load_trust(store.view(at))
    except KistoreError:  # an unreadable trust file trusts no key (KI309 says so)
        return []
    findings = []
    for keyid, old in sorted(revoked.items()):
        since = format_time(old.revoked_at)
        where = f" (commit {old.commit[:12]})" if old.commit else ""
        key = trust.keys.get(keyid)
        if key is None:
            findings.append(Finding(
                REVOCATION_LIFTED, f"key {keyid} was revoked at {since}{where}; its entry is "
                "gone, so adding the key back later would trust it again", file=TRUST_FILE,
                expected=f"an entry revoked at {since}", found="no entry",
                extra={"keyid": keyid, "commit": old.commit}))
        elif key.revoked_at is None or key.revoked_at > old.revoked_at:
            found = "no revocation" if key.revoked_at is None else format_time(key.revoked_at)
            findings.append(Finding(
                REVOCATION_LIFTED, f"key {keyid} was revoked at {since}{where}; the trust "
                f"file makes that {found}", file=TRUST_FILE, expected=since, found=found,
                extra={"keyid": keyid, "commit": old.commit}))
    return findings


def names_kept(repo: pygit2.Repository, commits: Iterable[Any], base: Base | None = None,
               ends: tuple[Any, Any] | None = None,
               edits: Iterable[tuple[str, str, str]] = ()) -> list[Finding]:
    """KI208 for each metadata file given another ``name``, each names file changed; KI432.

    KI432 (an error) for each ``kernelindex.dev/*`` annotation (:func:`kistore.core.
    provenance.is_provenance_key`) a commit changes, adds or removes in a metadata file its
    parent holds: the provenance of a landed manifest stays, as its name does.

    A names file (``store/names/``) may be added, never modified, renamed or deleted; so
    may a forward record (``store/forward/``: KI410) and a group file (``store/groups/``:
    KI410).

    Each commit is compared with each of its parents, reading only the metadata shards
    and names directories that differ (:func:`kistore.git.treediff.changed_leaves`); a
    merge that takes one side's metadata is held to the other side's name too, so a rename
    on a branch is reported however it reaches ``main``.

    Args:
        repo: the ``pygit2.Repository``.
        commits: the commits to check (``pygit2.Commit``).
        base: the gate's BASE, which KI432's fix restores the file from (its hint's
            ``git checkout BASE -- FILE`` with the id and the file); None: the hint.
        ends: the root trees of BASE and HEAD (the gate's): a file HEAD holds as BASE does
            again (a later commit restored it) gets the fix that works there, dropping the
            commits (:func:`._fixes.restored_fix`), not a checkout that changes nothing
            (reviewer break96 M4).
        edits: the gate's metadata files the range changes, ``(path, BASE's blob, HEAD's
            blob)``: each is compared end to end too, BASE's version with HEAD's, whatever
            lies between (:func:`_end_to_end`: a commit that broke or deleted the file let
            the next one rename and relicense with each commit passing, last96 1b).

    Returns:
        KI208 findings, one per (metadata file, old name, new name) and per (names file,
        blob before, blob after), naming the commit; KI432 findings, one per (metadata
        file, annotation, old value, new value).
    """
    commits = list(commits)
    lookback = _range_lookback(repo, commits)
    found, deleted = _walk(repo, commits, base, lookback)
    found = _told_once(found, _re_added(repo, _range_additions(commits, sorted(deleted)),
                                        lookback, base))
    # A change through a broken version that HEAD still holds is said once, end to end
    # (BASE's version against HEAD's, its fix naming every commit between); the walk's
    # comparisons with an earlier version stand where HEAD holds BASE's again (break97 H1).
    ends_found = _end_to_end(repo, commits, edits, base,
                             [f for f in found if "since" not in f.extra])
    covered = {_field(f) for f in ends_found}
    found = [f for f in found if "since" not in f.extra or _field(f) not in covered]
    found += ends_found
    if base is None or ends is None or not found:  # no fix: the rebase start unread (mend02)
        return found
    found = undo_said_once(found, commits)  # a restore is the fix, not a cause (fresh04 L2)
    def changing(path: str) -> list[str]:
        return _past_addition(path, list(reversed(changing_commits(repo, commits, path))))

    return _append_only_fixes(lineage_fixes(repo, found, base.rebase(), *ends,
                                            changing=changing), base, ends, changing)


def _past_addition(path: str, commits: list[Any]) -> list[str]:
    """Return the ids of ``commits`` (oldest first) from the first that does not add ``path``.

    A range that adds a file and deletes it later (a run added, then ``git rm``'d) changed
    it in both commits, but only the later deleted it: a fix naming the adding commit as one
    that "deleted" it, and dropping it, throws away the pull request (fresh00 M1). A commit
    adds the file when none of its parents holds it; one restoring it after a deletion
    comes later and stays named. Raises nothing but what reading the trees raises.
    """
    first = next((n for n, c in enumerate(commits)
                  if any(blob_entry(p.tree, path) is not None for p in c.parents)),
                 len(commits))
    return [str(c.id) for c in commits[first:]]


def _append_only_fixes(found: list[Finding], base: Base, ends: tuple[Any, Any],
                       changing: Callable[[str], list[str]]) -> list[Finding]:
    """Give the gate's KI410 of a group file or forward record a commit changed a fix that runs.

    The hint's ``git checkout HEAD -- PATH`` fails on a branch whose commit deleted the
    file ("did not match any file(s) known to git"), and restoring it from BASE in a later
    commit leaves the deletion in the history, read commit by commit as KI401's edit is
    (fresh99 M4): the commit is dropped (``git rebase -i BASE``); the pre-commit hook's
    staged change is restored from HEAD (:func:`._fixes.staged_fix`), as is a names file's
    (KI208) there, whose fix otherwise dropped the hook's own commit (fresh00 M1a).

    Args:
        found: the walk's findings (KI410, KI208 among them).
        base: the gate's BASE.
        ends: the root trees of BASE and HEAD.
        changing: every commit of the range that changed a path, oldest first.

    Returns:
        ``found`` in its order, each such KI410 with its fix. Raises nothing but what
        reading the trees raises.
    """
    told = []
    for f in found:
        if base.staged and f.rule is NAME_MOVED and f.file and f.file.startswith(
                layout.NAMES_DIR + "/"):
            # the hook's commit of the index is on no branch (fresh00 M1a, as fresh98 MED 3)
            f = replace(f, fix=staged_fix(
                f"a names file {'deleted' if f.found == 'no file' else 'changed'}", f.file,
                "a name never moves nor is freed, so a names file is never changed or deleted"))
        elif f.rule is APPEND_ONLY_REMOVED and f.file and "commit" in f.extra:
            path = f.file
            kind = ("group file" if path.startswith(layout.GROUPS_DIR + "/")
                    else "forward record")
            what = f"a {kind} {'deleted' if f.found == 'no file' else 'changed'}"
            then = f"a {kind} is never changed or deleted"
            commits = changing(path) or [str(f.extra["commit"])]
            was, held = (blob_entry(tree, path) for tree in ends)
            if base.staged:
                fix = staged_fix(what, path, then)
            elif held is not None and held == was:
                fix = restored_fix(commits, "HEAD", base.rebase(), f"this {kind} as BASE does",
                                   "the file", "the commit that changed it",
                                   listed=len(commits) > 1)
            else:
                fix = rebase_fix(what, commits, "restoring it", "the change", "KI410", path,
                                 base.rebase_args, then)
            f = replace(f, fix=fix)
        told.append(f)
    return told


def _re_added(repo: pygit2.Repository, additions: Iterable[tuple[Any, str, str]],
              lookback: Callable[[Any, str], Landed | None], base: Base | None = None
              ) -> list[Finding]:
    """KI208, KI432 of each metadata file a commit adds again after a deletion.

    The walk compares each commit with its parent, and an added file has no parent's
    version: a file deleted, then added again with another name and licence, passed
    (last96 1b). Each addition is compared with the last version before it that parses.
    One pass for the gate and ``verify``; only where the additions come from differs
    (:func:`_range_additions`, :func:`_history_additions`), each asked only of the paths
    a commit deleted (rare: the walk lists them).

    Args:
        repo: the ``pygit2.Repository``.
        additions: ``(commit, path, blob)`` per commit adding metadata file ``path``
            (its blob id, 40 hex) that its first parent lacks: the ``pygit2.Commit``, the
            repository path, the blob it adds.
        lookback: ``last(parent, path)``: the last version of ``path`` along the first
            parent's history that parses (the gate's is bounded to the range and BASE,
            :func:`_range_lookback`; ``verify``'s reads the whole path history,
            :func:`kistore.store.landed.last_measure`), or None (none parses: nothing said).
        base: as :func:`names_kept` takes it (None: ``verify``, the hint).

    Returns:
        KI432 and KI208 findings (:func:`_moved`, its message naming the version compared
        with), on the commit adding the file again, in the order of ``additions``. An
        addition that holds no string name is the contents check's: nothing said.

    Raises:
        ObjectUnreadable: a blob or tree read on the way is damaged (KI117's words).
    """
    found = []
    for commit, path, blob in additions:
        new = _metadata(repo, blob)
        since = lookback(commit.parents[0], path) if _name(new) is not None else None
        if since is not None:
            found += _moved(commit, path, since.doc, new, base, since)
    return found


def _range_additions(commits: list[Any], deleted: list[str]
                     ) -> Iterator[tuple[Any, str, str]]:
    """Yield the gate's additions (:func:`_re_added`): ``(commit, path, blob)``.

    Each commit of the range with a parent that adds a path of ``deleted`` its first
    parent lacks, commits outer, paths inner.
    """
    for commit in commits:
        if not commit.parents:
            continue
        for path in deleted:
            now = blob_entry(commit.tree, path)
            if now is not None and blob_entry(commit.parents[0].tree, path) is None:
                yield commit, path, now[0]


def _history_additions(repo: pygit2.Repository, head: str, deleted: list[str]
                       ) -> Iterator[tuple[Any, str, str]]:
    """Yield ``verify``'s additions (:func:`_re_added`): ``(commit, path, blob)``.

    Each version of a path of ``deleted`` along ``head``'s first-parent history (git's
    path-limited log) that follows a deletion, paths outer, newest first.
    """
    for path in deleted:
        versions = first_parent_versions(repo, head, path)
        for i, (commit, blob) in enumerate(versions[:-1]):
            if blob is not None and versions[i + 1][1] is None:
                yield repo[commit], path, blob


def _range_lookback(repo: pygit2.Repository, commits: list[Any]
                    ) -> Callable[[Any, str], Landed | None]:
    """Return the gate's ``lookback``: the last version that parses, bounded to the range.

    A commit whose parent's version of a metadata file does not parse (or is gone) is
    compared with the newest version along the first parents that does, looked for among
    the range's commits and then in the first commit outside it (BASE): a change made
    between two broken versions and undone by HEAD passed both the walk and the end to end
    comparison (reviewer break97 H1, H2). Reads one blob per commit walked, only for such a
    file: O(change).
    """
    in_range = {str(c.id) for c in commits}

    def last(parent: Any, path: str) -> Landed | None:
        commit = parent
        while True:
            entry = blob_entry(commit.tree, path)
            if entry is not None:
                data = read_blob(repo, entry[0], path)
                doc = measure(data)
                if doc is not None:
                    return Landed(str(commit.id), data, doc)
            if str(commit.id) not in in_range or not commit.parents:
                return None  # BASE's did not parse either: it landed so (verify's)
            commit = commit.parents[0]

    return last


def _walk(repo: pygit2.Repository, commits: list[Any], base: Base | None,
          lookback: Callable[[Any, str], Landed | None] | None = None,
          gaps: list[tuple[Any, Any]] | None = None) -> tuple[list[Finding], set[str]]:
    """KI208, KI432, KI410, KI417 of each commit against each parent (:func:`names_kept`).

    Args:
        repo: the ``pygit2.Repository``.
        commits: the commits to check.
        base: as :func:`names_kept` takes it.
        lookback: ``last(parent, path)``: the last version of a metadata file along the
            parent's history that parses, asked when the parent's version does not (each
            version is compared with the last that parsed): ``verify``'s reads the whole
            path history (:func:`kistore.store.landed.last_measure`), the gate's the range
            and BASE (:func:`_range_lookback`); None: such a side is skipped.
        gaps: ``verify``'s: ``(commit, digest)`` is added to it for each metadata gap a
            commit opens (:func:`._gap_openings.commit_openings`), read in this walk, not
            a second one (the gate reads them in :mod:`._metadata_gaps`); None: not read.

    Returns:
        The findings, and the metadata paths a commit deleted (a later one may add the
        file again: :func:`_re_added`).
    """
    findings: dict[tuple[str, str, str, str], Finding] = {}
    bases: dict[tuple[str, str], Any] = {}
    deleted: set[str] = set()
    for commit in commits:
        for finding in [*_names_files_kept(repo, commit, bases),
                        *_names_files_kept(repo, commit, bases, layout.FORWARD_DIR),
                        *_names_files_kept(repo, commit, bases, layout.GROUPS_DIR)]:
            findings.setdefault(_key(finding), finding)
        new = treediff.subtree_id(repo, commit.tree, layout.METADATA_DIR)
        for parent in commit.parents:
            old = treediff.subtree_id(repo, parent.tree, layout.METADATA_DIR)
            if old is None or old == new:
                continue
            # a metadata file added or deleted says nothing of its name (KI402 is history's)
            changes = treediff.changed_leaves(repo, old, new, layout.METADATA_DIR + "/",
                                              added=False)
            for path, (was, now) in sorted(changes.items()):
                if now is None:
                    deleted.add(path)
                if was is None or now is None:
                    continue
                old_doc, new_doc = _metadata(repo, was[0]), _metadata(repo, now[0])
                since = None
                if lookback is not None and _name(old_doc) is None and new_doc:
                    since = lookback(parent, path)  # the parent's does not parse (1b)
                    old_doc = since.doc if since is not None else old_doc
                for finding in _moved(commit, path, old_doc, new_doc, base, since):
                    # a merge's rename: the side commit that made it (rename99's leftover)
                    told = [finding] if finding.rule is not NAME_MOVED or \
                        len(commit.parents) < 2 or since is not None else merged_rename(
                            repo, commit, parent, path, (was[0], now[0]), finding, base)
                    for one in told:
                        findings.setdefault(_key(one), one)
        if gaps is not None:
            gaps.extend((commit, digest) for digest in commit_openings(repo, commit))
    return list(findings.values()), deleted


def _key(finding: Finding) -> tuple[str, str, str, str]:
    """Return the key a lineage finding is told once by: (file, pointer, was, is).

    The one key of the three comparisons (the walk, :func:`_re_added`, :func:`_end_to_end`):
    a names file's finding has no pointer, its blobs as was and is. Its first two fields
    are the field changed (:func:`_field`).
    """
    return (finding.file or "", finding.pointer or "", finding.expected or "",
            finding.found or "")


def _field(finding: Finding) -> tuple[str, ...]:
    """Return the field a finding is of, (file, pointer): :func:`_key`'s first two.

    The end to end comparison is said of a field only where the walk said nothing of it,
    and takes the place of the walk's findings on it that compared with an earlier
    version (``since``).
    """
    return _key(finding)[:2]


def _told_once(found: list[Finding], more: Iterable[Finding]) -> list[Finding]:
    """Return ``found`` and each of ``more`` whose :func:`_key` none before has, in order."""
    told = {_key(f) for f in found}
    for f in more:
        if _key(f) not in told:
            told.add(_key(f))
            found.append(f)
    return found


def _moved(commit: Any, path: str, old: dict[str, Any] | None, new: dict[str, Any] | None,
           base: Base | None, since: Landed | None = None, *, through: str = "",
           fix: str | None = None) -> list[Finding]:
    """KI432 per ``kernelindex.dev/*`` annotation and KI208 of the name ``new`` changes.

    The one finding builder of the three comparisons (the walk, :func:`_re_added`,
    :func:`_end_to_end`): the provenance of a landed manifest stays, as its name does.

    Args:
        commit: the ``pygit2.Commit`` writing ``new`` (named in the message).
        path: the metadata file's repository path.
        old: the version it is compared with (None: unreadable, the contents check's
            KI102/KI104: nothing said).
        new: the commit's (None: the same).
        base: as :func:`names_kept` takes it: KI432's fix restores the file from it
            (:func:`_provenance_hint`); None: the rule's hint.
        since: the version ``old`` is when it is not the parent's (the parent's did not
            parse or was gone): the message says so, naming its commit, and ``extra``
            holds it (``since``: its commit id).
        through: the message's whole subject instead of ``commit X`` (the gate's end to
            end comparison, :func:`_end_to_end`); with neither, in the pre-commit hook
            (``base.staged``) ``the staged metadata file PATH (the index)``, not the
            hook's own commit of the index.
        fix: the fix of every finding instead (the end to end comparison's); None: as
            above.

    Returns:
        The findings, KI432 first: one per annotation changed, added or removed, at its
        pointer (``/annotations/kernelindex.dev~1license``), old and new value quoted;
        then KI208 at ``/name``. Raises nothing.
    """
    if old is None or new is None:
        return []
    # the pre-commit hook's commit of the index is one the user never sees: the staged
    # file is what changed (msg05, fresh10 LOW 6)
    who = through or (f"the staged metadata file {one_line(path)} (the index)"
                      if base is not None and base.staged else f"commit {str(commit.id)[:12]}")
    said = "" if since is None else (
        f" (compared with the last version of this file that parses, commit "
        f"{since.commit[:12]}'s: the version before it does not parse, or is gone)")
    more = {} if since is None else {"since": since.commit}
    found = []
    for key, was, now in provenance_changes(old, new):
        quoted = [quoted_annotation(v) for v in (was, now)]
        what = "adds" if was is ABSENT else "removes" if now is ABSENT else "changes"
        found.append(Finding(
            PROVENANCE_CHANGED, f"{who} {what} the provenance annotation {one_line(key)!r} "
            f"of a landed manifest's metadata ({quoted[0]} -> {quoted[1]}): its licence and "
            f"source are its importer's record, not a pull request's to edit{said}",
            file=path, pointer="/annotations/" + escape_pointer(key), expected=quoted[0],
            found=quoted[1], extra={"commit": str(commit.id), "annotation": key, **more},
            fix=fix if fix is not None or base is None else _provenance_hint(base, path)))
    before, after = _name(old), _name(new)
    if before is not None and after is not None and before != after:
        found.append(Finding(
            NAME_MOVED, f"{who} renames {before!r} to {after!r}: a name never moves{said}",
            file=path, pointer="/name", expected=before, found=after,
            extra={"commit": str(commit.id), **more}, fix=fix))
    return found


def _end_to_end(repo: pygit2.Repository, commits: list[Any],
                edits: Iterable[tuple[str, str, str]], base: Base | None,
                found: list[Finding]) -> list[Finding]:
    """KI208 and KI432 of BASE's version of each changed metadata file against HEAD's.

    Each commit against its parent skips a side that does not parse, or a file deleted
    and added again: a commit between that broke or deleted the file let the next one
    write another name and licence with every check green (last96 1b). BASE's and HEAD's
    blobs are read (a path lookup each, given by the net diff): O(change). Said only where
    the walk found nothing on that file and field; a BASE whose version does not parse
    is ``verify``'s (it landed so).

    Args:
        repo: the ``pygit2.Repository``.
        commits: the range's commits (the ones that changed the file are named to drop).
        edits: ``(path, BASE's blob, HEAD's blob)`` per metadata file the range changes.
        base: the gate's BASE (None: no findings; the hint has no BASE to compare).
        found: the walk's findings.

    Returns:
        The findings, their fix the branch's: drop the commits that changed the file.
    """
    if base is None:
        return []
    told = {_field(f) for f in found if f.rule in (NAME_MOVED, PROVENANCE_CHANGED)}
    more = []
    for path, was, now in edits:
        old, new = (_metadata(repo, blob) for blob in (was, now))
        if _name(old) is None or _name(new) is None or not [
                f for f in _moved(commits[0], path, old, new, None)
                if _field(f) not in told]:
            continue  # the usual case: a title edited; the commits are looked up only now
        changed = changing_commits(repo, commits, path)
        head = changed[0] if changed else commits[0]
        fix = ("a name never moves and a landed manifest's kernelindex.dev/* annotations "
               f"stay: the branch changed this file in {_commits(changed)} (breaking or deleting "
               "it between), and a later commit restoring the name and annotations leaves "
               "the change in the history, "
               + rebuild_without("KI208, KI432", base.rebase_args, path,
                                 plural=len(changed) > 1)
               + "keep the name and annotations as BASE holds them (correct the title or "
               "other metadata instead)")
        more += [f for f in _moved(head, path, old, new, base, through=(
            f"between BASE ({base.id[:12]}) and HEAD the range, through "
            f"{_commits(changed)},"), fix=fix) if _field(f) not in told]
    return more


def _commits(changed: list[Any]) -> str:
    """Return ``commit A`` or ``commits A, B`` of commits given newest first (12 digits)."""
    ids = ", ".join(str(c.id)[:12] for c in reversed(changed))
    return f"commit{'s' * (len(changed) > 1)} {ids}"


def changing_commits(repo: pygit2.Repository, commits: list[Any], path: str) -> list[Any]:
    """Return the range's commits (newest first) whose ``path`` differs from each parent's.

    Args:
        repo: the ``pygit2.Repository``.
        commits: the range's commits (``pygit2.Commit``), newest first.
        path: a repository path.

    Returns:
        Those commits, in the order given. Raises nothing but what reading trees raises.
    """
    return [c for c in commits
            if all(blob_entry(p.tree, path) != blob_entry(c.tree, path) for p in c.parents)]


def _off_layout(path: str, directory: str) -> bool:
    """Whether ``path`` (below ``directory``) is no path the layout gives a file there.

    Such a file (``NAME.bak``) was never a names file, forward record or group file: its
    arrival was the contents check's (KI110, with ``rm`` as its fix, reviewer r93b G9), so
    taking it away again in a later commit changes none (as :func:`._history._was_object`
    holds an object path's, r92 F12).
    """
    parse = {layout.NAMES_DIR: layout.name_from_path, layout.FORWARD_DIR:
             layout.forward_from_path, layout.GROUPS_DIR: layout.group_from_path}[directory]
    return parse(path) is None


def _names_files_kept(repo: pygit2.Repository, commit: Any, bases: dict[tuple[str, str], Any],
                      directory: str = layout.NAMES_DIR) -> list[Finding]:
    """KI208 for each names file (``store/names/``) ``commit`` modifies, renames or deletes.

    With ``directory`` :data:`kistore.core.layout.FORWARD_DIR`: KI410 for each forward
    record it modifies, renames or deletes (a record is as append-only as a names file);
    with :data:`kistore.core.layout.GROUPS_DIR`, KI410 for each group file.

    A names file, once committed, never changes (a name never moves, nor is given to
    another manifest): only additions are allowed. A merge is held to what it changes
    itself, as :func:`kistore.check._history.history_findings` holds it for objects: a
    difference from one parent that another parent already has is that side's (reported in
    its history) only when the two parents' merge base held the path; otherwise (both sides
    added the path with other digests, or a side never had it) it is the merge's own.
    """
    new = treediff.subtree_id(repo, commit.tree, directory)
    names = directory == layout.NAMES_DIR
    groups = directory == layout.GROUPS_DIR
    found = []
    for parent in commit.parents:
        old = treediff.subtree_id(repo, parent.tree, directory)
        if old == new or (old is None and (names or groups)):
            continue  # a first names or groups directory only adds (the contents check's)
        others = [p for p in commit.parents if p.id != parent.id]
        # a names or group file added is the contents check's: not listed, and a
        # directory only this commit has not read (a new comparison group's)
        for path, (was, now) in sorted(treediff.changed_leaves(
                repo, old, new, directory + "/", added=not (names or groups)).items()):
            if was is None:
                # added: a name claimed, a group joined (the contents check judges them),
                # or a record
                if not names and not groups and \
                        not any(blob_entry(o.tree, path) == now for o in others):
                    found += _not_dangling(commit, parent, path)
                continue
            if others and _another_sides(repo, path, now, parent, others, bases):
                continue
            if _off_layout(path, directory):
                continue  # never a names file nor a record (a `.bak` copy: KI110 said `rm`)
            what = "deletes" if now is None else (
                f"changes the mode of ({was[1]:o} -> {now[1]:o})" if was[0] == now[0]
                else "rewrites")
            said = ("this names file: a names file is never modified, renamed or deleted (a "
                    "name never moves, nor goes to another manifest)") if names else (
                    "this group file: a group file is never modified, renamed or deleted "
                    "(a run's comparison group is read from it)") if groups else (
                    "this forward record: a record is never modified, renamed or deleted "
                    "(the gate finds the runs a new manifest answers by it)")
            if now is not None and was[0] != now[0] and any(
                    blob_entry(o.tree, path) == now for o in others):
                # Both sides added the path (the base lacked it): two claims, one kept.
                what, said = ("joins two claims of", (
                    "this names file: its parents added it with different digests and the "
                    "merge keeps one; a name has one owner, so before merging give one "
                    "side's manifest another metadata.name") if names else (
                    "this group file: its parents added it with different bytes and the "
                    "merge keeps one; write it from the merged run instead") if groups else (
                    "this forward record: its parents added it with different bytes and "
                    "the merge keeps one; write the record from the merged run instead"))
            found.append(Finding(
                NAME_MOVED if names else APPEND_ONLY_REMOVED,
                f"commit {str(commit.id)[:12]} {what} {said}", file=path,
                expected=f"blob {was[0]}",
                found="no file" if now is None else f"blob {now[0]}",
                extra={"commit": str(commit.id), "parent": str(parent.id)}))
    return found


def _not_dangling(commit: Any, parent: Any, path: str) -> list[Finding]:
    """KI417 when ``commit`` adds the forward record ``path`` though ``parent`` stores its target.

    A merge is held to it only for a record no other parent has (checked by the caller):
    a branch that recorded a dangling reference and then merges the target's arrival is
    fine.
    """
    parsed = layout.forward_from_path(path)
    if parsed is None or blob_entry(parent.tree, layout.object_path(parsed[0])) is None:
        return []
    target, run = parsed
    return [Finding(
        FORWARD_NOT_DANGLING, f"commit {str(commit.id)[:12]} adds a forward record of run "
        f"{run} for {target}, but its parent {str(parent.id)[:12]} already stores "
        f"{layout.object_path(target)}: the reference is not dangling", file=path,
        expected="no record (the target is stored)", found="a record",
        extra={"commit": str(commit.id), "parent": str(parent.id), "target": str(target)})]


def _another_sides(repo: pygit2.Repository, path: str, merged: Any, parent: Any,
                   others: list[Any], bases: dict[tuple[str, str], Any]) -> bool:
    """Whether a merge's difference from ``parent`` at ``path`` is another parent's own.

    Args:
        repo: the ``pygit2.Repository``.
        path: the names file's repository path.
        merged: the merge's (blob id, mode) there, or None.
        parent: the parent the difference is from.
        others: the other parents.
        bases: a cache of merge-base trees, by pair of commit ids.
    """
    for other in others:
        if blob_entry(other.tree, path) != merged:
            continue
        key = (str(parent.id), str(other.id))
        if key not in bases:
            base = repo.merge_base(parent.id, other.id)
            bases[key] = repo[base].peel(pygit2.Commit).tree if base is not None else None
        if bases[key] is not None and blob_entry(bases[key], path) is not None:
            return True
    return False


def check_names(store: Store, at: str | None = None) -> list[Finding]:
    """KI208 and KI432 for ``verify``: every commit of the history of ``at`` (or ``HEAD``).

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for ``HEAD``.

    Returns:
        KI208 findings, and KI432 as warnings (history is never rewritten; see
        :data:`PROVENANCE_CHANGED_IN_HISTORY`); none in a repository without commits. A
        name or annotation changed and put back by a later commit is said once, as the
        gate says it (:func:`._lineage_fixes.undo_said_once`): the change's finding, whose
        fix names every commit that changed the file, the restoring one among them. Then
        a KI204 warning per metadata gap a commit opened and a later one closed
        (:func:`._gap_openings.landed_gaps`, judged in the same walk: fresh04 H2).
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    head = store.commit(at or "HEAD")
    def lookback(parent: Any, path: str) -> Landed | None:
        return last_measure(repo, str(parent.id), path)

    commits = list(ancestry(repo, head))
    gaps: list[tuple[Any, Any]] = []
    found, deleted = _walk(repo, commits, None, lookback, gaps)
    found = _told_once(found, _re_added(
        repo, _history_additions(repo, str(head.id), sorted(deleted)), lookback))
    found = lineage_fixes(repo, found, REBASE_BASE, None, head.tree, at or "HEAD")
    # a restore is the fix, not a cause (fresh04 L2), left out once each fix is built from
    # the findings' commits, so the restoring commit stays named in it
    found = undo_said_once(found, commits)
    return [replace(f, rule=PROVENANCE_CHANGED_IN_HISTORY) if f.rule is PROVENANCE_CHANGED
            else f for f in found] + landed_gaps(repo, commits, gaps, head)


def _metadata(repo: pygit2.Repository, blob: str) -> dict[str, Any] | None:
    """Return the object a metadata blob holds, or None when it holds no JSON object."""
    try:
        doc = loads_lenient(read_blob(repo, blob))
    except (ValueError, UnicodeDecodeError):
        return None  # unreadable metadata is the contents check's (KI102/KI104)
    return doc if isinstance(doc, dict) else None


def _name(doc: dict[str, Any] | None) -> str | None:
    """Return the ``name`` a metadata object holds, or None when it holds no string name."""
    name = doc.get("name") if doc is not None else None
    return name if isinstance(name, str) else None


def check_shallow(store: Store, at: str | None = None) -> list[Finding]:
    """KI416 in a shallow clone: history before its boundary was not checked.

    A shallow clone (CI's default depth 1) lacks the commits before its boundary, so the
    rules over history (objects never modified or deleted, KI401-KI403; names never moved,
    KI208; revocations kept, KI412) saw only part of it: "0 errors" there does not mean
    the history is sound. ``kistore verify --strict`` and ``check --strict`` make this an
    error (:func:`strict`).

    Args:
        store: a :class:`kistore.store.Store`.
        at: unused (the clone is shallow or not, whatever revision is read).

    Returns:
        One KI416 warning naming the boundary commits, or nothing in a full clone.
    """
    repo = store.repo
    if not repo.is_shallow:
        return []
    try:
        with open(f"{repo.path}/shallow", encoding="ascii") as f:
            boundary = sorted(line.strip() for line in f if line.strip())
    except OSError:
        boundary = []
    shown = ", ".join(b[:12] for b in boundary[:5]) + (" ..." if len(boundary) > 5 else "")
    return [Finding(HISTORY_SHALLOW, "a shallow clone: history before its boundary "
                    f"({shown or 'unknown'}) was not checked (objects, names, revocations)",
                    extra={"boundary": boundary})]


def shallow_cut(store: Store, base: Any, head: Any, base_rev: str, head_rev: str
                ) -> Finding | None:
    """KI416 (an error) when ``base`` is out of ``head``'s reach only because the clone is shallow.

    In a depth-1 clone of both branches a pull request's tip is a boundary commit: its
    parent, the tip of the target branch, is in the clone, but the boundary hides the link,
    so ``base`` looks like no ancestor of ``head`` (review r75 F7: KI404 "the range rewrites
    it" for a legitimate one-commit pull request). When the commits of ``head`` that
    ``base`` does not reach include a boundary commit, whether ``base`` is an ancestor
    cannot be told here: nothing of the range is checked, and the finding says to fetch
    more history. An error, not a warning: the range was not checked at all.

    Args:
        store: a :class:`kistore.store.Store`.
        base: BASE's ``pygit2.Commit``.
        head: HEAD's, not a descendant of ``base`` here.
        base_rev: BASE as the user wrote it (``origin/main``).
        head_rev: HEAD as the user wrote it.

    Returns:
        One KI416 error naming the boundary commits met, or None (a full clone, or HEAD's
        history is whole here: then BASE really is no ancestor, KI404).
    """
    shallow = check_shallow(store)
    if not shallow:
        return None
    boundary = set(shallow[0].extra["boundary"])
    read_loose_history(store.repo, head.id)  # libgit2 loops on a cut loose commit (F3)
    walker = store.repo.walk(head.id)
    walker.hide(base.id)
    met = sorted(str(c.id) for c in walker if str(c.id) in boundary)
    if not met:
        return None
    return Finding(
        replace(HISTORY_SHALLOW, severity=ERROR),
        f"{base_rev} ({str(base.id)[:12]}) is not in the history of {head_rev} "
        f"({str(head.id)[:12]}) this repository holds: it is shallow and that history stops "
        f"at {', '.join(m[:12] for m in met[:5])} before reaching it, so whether the range "
        "rewrites history cannot be told and nothing of the range was checked: fetch more "
        "history (`git fetch --unshallow`, or `git fetch --deepen=N` until BASE is reached) "
        "and check again",
        expected=f"{base_rev} in the history of {head_rev}",
        found=f"a shallow boundary at {met[0][:12]}",
        fix="fetch more history and check again: `git fetch --unshallow` (or "
        "`git fetch --deepen=N origin` until BASE is reached); CI: fetch depth 0",
        extra={"base": str(base.id), "head": str(head.id), "boundary": met})


def strict(findings: list[Finding]) -> list[Finding]:
    """Return ``findings`` with KI416 (a shallow clone) as an error (``--strict``)."""
    upgraded = replace(HISTORY_SHALLOW, severity=ERROR)
    return [replace(f, rule=upgraded) if f.rule.id == HISTORY_SHALLOW.id else f
            for f in findings]
