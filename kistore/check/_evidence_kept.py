"""Attestation files, the trust file and the ranking policy, judged at every commit (KI410).

The gate compared these files at BASE and at HEAD only (``gate._removed_evidence``): two
commits, one deleting ``store/trust/keys.json`` and the next restoring it byte for byte
(or removing one unrevoked key's entry and putting it back), had an empty net diff and
passed ``check`` and pre-receive with no finding, yet main's history then held a commit
at which no key was trusted, and every key counted from the restoring commit, so every
earlier maintainer withdrawal stopped counting and withdrawn runs ranked again (fresh01
F7). The same held for a withdrawal file or the policy deleted and restored: a commit at
which ``rank --at`` ranks the withdrawn run, or falls back to the shipped policy.

So, as objects (KI401, KI402) and names files (KI208) are, these files are judged commit
by commit, each commit against each parent: a commit that deletes one (or makes the trust
file unreadable, which trusts no key), or removes a key's entry from the trust file, is
KI410 whatever a later commit does (a revocation is how trust ends: ``kistore trust
revoke``, KI412 keeps it). A merge is held to what it changes itself. The cost follows the
change: three subtree ids a commit and parent, and only a commit whose ``store/trust``,
``store/policy`` or ``store/attestations`` tree differs from its parent's is read further.

:func:`evidence_kept` is the gate's (one call in :func:`kistore.check.gate.check_range`),
:func:`check_evidence_history` ``verify``'s (warnings: history is never rewritten, and
what HEAD answers holds, a key counting from its first start:
:func:`kistore.attest.trust_history.added`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..attest.notes import parse_attestation_path
from ..attest.trust_history import ever_revoked, keyids_in
from ..core import layout
from ..core.canonical_fast import loads_lenient
from ..core.findings import WARNING, Finding
from ..git import treediff
from ..git.blobs import read_blob
from ..git.pathlog import blob_at
from ._fixes import REBASE_BASE, Base, rebase_fix, restored_fix, staged_fix
from ._history import ancestry
from .lineage import APPEND_ONLY_REMOVED, changing_commits

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

EVIDENCE_REMOVED_IN_HISTORY = replace(APPEND_ONLY_REMOVED, severity=WARNING)
"""KI410 of a commit of the history as ``verify`` reports it: history is never rewritten,
and the answers at HEAD hold (a key counts from its first start, an attestation file from
the first commit holding it)."""

DIRECTORIES = (layout.TRUST_DIR, layout.POLICY_DIR, layout.ATTESTATIONS_DIR)
"""The directories whose files are judged: the trust file's, the policy's, the attestations'."""


@dataclass(frozen=True, slots=True)
class Removal:
    """One thing a commit took away from the reviewed evidence.

    Attributes:
        commit: the commit (40 hex digits).
        parent: the parent it is compared with (40 hex digits).
        path: the file (repository path).
        keyid: the key whose entry the commit removed from the trust file; ``""``: the
            file itself was deleted (or, the trust file, made unreadable: ``unreadable``).
        unreadable: the commit's trust file does not parse (it trusts no key).
    """

    commit: str
    parent: str
    path: str
    keyid: str = ""
    unreadable: bool = False


def removals(repo: pygit2.Repository, commits: Iterable[Any]) -> list[Removal]:
    """Return what each commit deletes of the evidence files or removes from the trust file.

    Args:
        repo: the ``pygit2.Repository``.
        commits: the commits judged (``pygit2.Commit``), each against each parent.

    Returns:
        One :class:`Removal` per attestation file (on the layout's path), policy file or
        trust file a commit deletes (or leaves no regular file at), per key whose entry it
        removes from the trust file (keys read leniently, as
        :func:`kistore.attest.trust_history.keyids_in` reads them), and per trust file it
        leaves unreadable; in the order of ``commits``. A merge's difference from one
        parent that another parent holds too is that side's, when the two parents' merge
        base held what the merge lacks (reported in that side's history).

    Raises:
        ObjectUnreadable: a tree or blob read on the way is damaged.
    """
    found: list[Removal] = []
    keys: dict[str, set[str] | None] = {}
    bases: dict[tuple[str, str], Any] = {}

    def keyids(blob: str | None) -> set[str] | None:  # None: no readable trust file
        if blob is None:
            return None
        if blob not in keys:
            data = read_blob(repo, blob, layout.TRUST_FILE)
            keys[blob] = keyids_in(data) if _readable(data) else None
        return keys[blob]

    def merge_base(parent: Any, other: Any) -> Any:
        pair = (str(parent.id), str(other.id))
        if pair not in bases:
            found_base = repo.merge_base(parent.id, other.id)
            bases[pair] = None if found_base is None else repo[found_base].tree
        return bases[pair]

    for commit in commits:
        for parent in commit.parents:
            others = [o for o in commit.parents if o.id != parent.id]
            for directory in DIRECTORIES:
                old = treediff.subtree_id(repo, parent.tree, directory)
                new = treediff.subtree_id(repo, commit.tree, directory)
                if old is None or old == new:
                    continue
                for path in sorted(treediff.changed_leaves(repo, old, new, directory + "/",
                                                           added=False)):
                    if not _judged(path):
                        continue
                    was, now = (blob_at(repo, c.tree, path) for c in (parent, commit))
                    if was is None:
                        continue
                    if now is None:
                        if not any(_theirs(repo, blob_at(repo, o.tree, path) is None,
                                           merge_base(parent, o), path) for o in others):
                            found.append(Removal(str(commit.id), str(parent.id), path))
                        continue
                    if path != layout.TRUST_FILE:
                        continue  # an edit: the policy's is reviewed (KI413-KI415), an
                        # attestation file's is the contents check's (its name is its hash)
                    before, after = keyids(was), keyids(now)
                    if before and after is None:
                        found.append(Removal(str(commit.id), str(parent.id), path,
                                             unreadable=True))
                        continue
                    for keyid in sorted((before or set()) - (after or set())):
                        if not any(_theirs(repo, keyid not in (keyids(blob_at(
                                               repo, o.tree, path)) or set()),
                                           merge_base(parent, o), path, keyid, keyids)
                                   for o in others):
                            found.append(Removal(str(commit.id), str(parent.id), path,
                                                 keyid))
    return found


def _judged(path: str) -> bool:
    """Whether ``path`` is a file judged here: the trust file, the policy, an attestation file.

    An attestation file on the layout's path only: a file off it is KI110's.
    """
    return path in (layout.TRUST_FILE, layout.POLICY_FILE) or (
        path.startswith(layout.ATTESTATIONS_DIR + "/") and parse_attestation_path(path)
        is not None)


def _readable(data: bytes) -> bool:
    """Whether one version of the trust file reads as an object with a ``keys`` list."""
    try:
        doc = loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(doc, dict) and isinstance(doc.get("keys"), list)


def _theirs(repo: pygit2.Repository, other_lacks: bool, base_tree: Any, path: str,
            keyid: str = "", keyids: Any = None) -> bool:
    """Whether a merge's lack of ``path`` (or of ``keyid``'s entry) is another parent's.

    That parent lacks it too and the merge base held it: that side removed it, and its
    own commits say so. Otherwise (the base lacked it) the merge dropped what one side
    added: the merge's own removal.
    """
    if not other_lacks or base_tree is None:
        return False
    held = blob_at(repo, base_tree, path)
    if held is None:
        return False
    return not keyid or keyid in (keyids(held) or set())


def evidence_kept(store: Store, commits: list[Any], base: Base, ends: tuple[Any, Any]
                  ) -> list[Finding]:
    """KI410 per commit of a range that deletes an evidence file or removes a key's entry.

    What the net diff shows (a file HEAD lacks: :func:`kistore.check.gate._removed_evidence`;
    a revoked key HEAD no longer lists: KI412, :func:`.lineage.revocations_kept`) is said
    there, once; this says the rest: a file or key entry a later commit put back (HEAD
    holds it again, the net diff is empty) and an unrevoked key's entry HEAD lacks.

    Args:
        store: the :class:`kistore.store.Store` checked.
        commits: the range's commits (``pygit2.Commit``), newest first.
        base: the gate's BASE (:class:`._fixes.Base`): the fixes name it.
        ends: BASE's and HEAD's commits (``pygit2.Commit``).

    Returns:
        KI410 findings on the file (``extra``: ``commit``, ``parent``, ``keyid`` for a key's
        entry, ``restored``), each fix the branch's: drop the commits that changed the file
        (``git rebase -i BASE``), or in the pre-commit hook restore the staged file.

    Raises:
        ObjectUnreadable: a tree or blob read on the way is damaged.
    """
    repo = store.repo
    found = removals(repo, commits)
    if not found:
        return []
    head_tree = ends[1].tree
    head_keys = _keys_at(repo, head_tree)
    revoked: dict[str, Any] | None = None
    told = []
    for removal in found:
        held = blob_at(repo, head_tree, removal.path) is not None
        restored = held and (removal.keyid in (head_keys or set()) if removal.keyid else
                             head_keys is not None if removal.unreadable else True)
        if not held or (removal.unreadable and not restored):
            continue  # HEAD lacks the file (the net diff's KI410) or its own is unreadable
            # (KI309 at HEAD)
        if removal.keyid and not restored:
            if revoked is None:
                revoked = ever_revoked(repo, str(ends[0].id), _range_versions(repo, commits))
            if removal.keyid in revoked:
                continue  # a revoked key's entry gone from HEAD: KI412 says it
        told.append(replace(_finding(removal, restored, "range"),
                            fix=_gate_fix(repo, commits, removal, restored, base)))
    return told


def check_evidence_history(store: Store, at: str | None = None) -> list[Finding]:
    """KI410 (a warning) per commit of the history of ``at`` that removed evidence.

    ``verify``'s: a store whose history landed before the gate judged every commit (a
    delete-and-restore of the trust file pushed through the old gate, fresh01 F7) is told
    which commit did what; what HEAD answers holds regardless (a key counts from the
    first commit that trusted it, an attestation file from the first commit holding it).
    Said elsewhere and left out here: the policy HEAD lacks (KI207), a revoked key's entry
    HEAD lacks (KI412). Every commit of the history is read against each parent (three
    subtree ids; more only where the evidence directories differ): O(history), as the
    name check (:func:`.lineage.check_names`).

    Args:
        store: a :class:`kistore.store.Store`.
        at: a revision, or None for ``HEAD`` (the work tree's own changes are the
            contents check's).

    Returns:
        The warnings, oldest commit last (history order, newest first); none in a
        repository without commits.
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    head = store.commit(at or "HEAD")
    found = removals(repo, ancestry(repo, head))
    if not found:
        return []
    where = at or "HEAD"
    head_keys = _keys_at(repo, head.tree)
    revoked = None
    told = []
    for removal in found:
        held = blob_at(repo, head.tree, removal.path) is not None
        restored = held and (removal.keyid in (head_keys or set()) if removal.keyid else
                             head_keys is not None if removal.unreadable else True)
        if not restored and removal.path == layout.POLICY_FILE:
            continue  # KI207 says the policy is missing
        if removal.keyid and not restored:
            revoked = ever_revoked(repo, str(head.id)) if revoked is None else revoked
            if removal.keyid in revoked:
                continue  # KI412
        finding = _finding(removal, restored, "history")
        told.append(replace(finding, rule=EVIDENCE_REMOVED_IN_HISTORY,
                            fix=_history_fix(removal, restored, where)))
    return told


def _keys_at(repo: pygit2.Repository, tree: pygit2.Tree) -> set[str] | None:
    """Return the keyids the trust file of ``tree`` lists, or None (none, or unreadable)."""
    blob = blob_at(repo, tree, layout.TRUST_FILE)
    if blob is None:
        return None
    data = read_blob(repo, blob, layout.TRUST_FILE)
    return keyids_in(data) if _readable(data) else None


def _range_versions(repo: pygit2.Repository, commits: list[Any]) -> list[tuple[str, bytes]]:
    """Return ``(commit id, bytes)`` of the trust file each commit of the range holds."""
    versions = []
    for commit in commits:
        blob = blob_at(repo, commit.tree, layout.TRUST_FILE)
        if blob is not None:
            versions.append((str(commit.id), read_blob(repo, blob, layout.TRUST_FILE)))
    return versions


_DONE = {layout.TRUST_FILE: "deletes the trust file: at that commit no key is trusted, so "
                            "every maintainer withdrawal and trusted rerun stops counting there",
         layout.POLICY_FILE: "deletes the ranking policy: at that commit `kistore rank` falls "
                             "back to the shipped default policy"}
"""What a commit deleting the trust file or the policy did, as the message says it."""


def _finding(removal: Removal, restored: bool, seen: str) -> Finding:
    """Return the KI410 finding of ``removal`` (its fix left to the caller).

    Args:
        removal: what the commit took away.
        restored: HEAD holds it again.
        seen: ``"range"`` (the gate) or ``"history"`` (``verify``): how the message ends.
    """
    who = f"commit {removal.commit[:12]}"
    if removal.keyid:
        done = (f"removes the entry of key {removal.keyid} from the trust file: at that "
                "commit what the key signed counts for nothing, and a key's entry is never "
                "removed (trust ends by a revocation, `kistore trust revoke`, which KI412 "
                "keeps)")
    elif removal.unreadable:
        done = ("leaves the trust file unreadable (no object with a `keys` list): at that "
                "commit no key is trusted")
    else:
        done = _DONE.get(removal.path, "deletes this attestation file: at that commit what "
                                       "it says counts for nothing (a run it withdraws ranks "
                                       "again there)")
    if restored:
        later = ("a later commit of the range puts it back (HEAD holds it again), but" if
                 seen == "range" else "a later commit put it back, and what HEAD answers "
                 "holds (a key counts from the first commit that trusted it), but")
        done += (f"; {later} {who} stays in the history, where `rank --at`, `ls --at` and a "
                 "checkout of it answer without it")
    what = (f"key {removal.keyid} listed" if removal.keyid else "a readable trust file"
            if removal.unreadable else "the file")
    return Finding(APPEND_ONLY_REMOVED, f"{who} {done}", file=removal.path,
                   expected=what, found="no entry" if removal.keyid else
                   "an unreadable file" if removal.unreadable else "no file",
                   extra={"commit": removal.commit, "parent": removal.parent,
                          **({"keyid": removal.keyid} if removal.keyid else {}),
                          "restored": restored})


def _gate_fix(repo: pygit2.Repository, commits: list[Any], removal: Removal,
              restored: bool, base: Base) -> str:
    """Return the gate's fix of ``removal``: drop the commits of the branch that did it."""
    what = (f"key {removal.keyid}'s entry removed" if removal.keyid else
            "the trust file made unreadable" if removal.unreadable else "this file deleted")
    revoke = ("to stop trusting a key, revoke it in a new commit instead: `kistore trust "
              f"revoke {removal.keyid}` (nothing it signs from then counts; `--at` an earlier "
              "time ends it earlier)") if removal.keyid else (
              "attestation files, the trust file and the policy are never deleted")
    if base.staged:
        return staged_fix(what, removal.path, revoke)
    changed = [str(c.id) for c in reversed(changing_commits(repo, commits, removal.path))]
    if restored:
        held = (f"key {removal.keyid}'s entry" if removal.keyid else
                "a readable trust file" if removal.unreadable else "this file")
        return restored_fix(changed or [removal.commit], "HEAD", base.rebase(), held,
                            "it", "the commit that removed it", listed=len(changed) > 1)
    return rebase_fix(what, [removal.commit], "putting it back", "the removal", "KI410",
                      removal.path, base.rebase_args, revoke)


def _history_fix(removal: Removal, restored: bool, where: str) -> str:
    """Return ``verify``'s fix of ``removal`` (no BASE known: :data:`._fixes.REBASE_BASE`)."""
    drop = (f"in a branch not yet merged, drop the commits that removed and restored it "
            f"({REBASE_BASE}); on a branch already merged history cannot change, and this "
            "warning says so for good")
    if restored:
        return f"nothing to do at {where}, which holds it again: {drop}"
    if removal.keyid:
        return (f"nothing to do: the key counts for nothing at {where}. Adding it back "
                "(`kistore trust add`) makes it count from the first commit that trusted it, "
                "so what it signed meanwhile counts too (the gate lists it, KI427); "
                + drop)
    return (f"restore it from the commit before the deletion: `git checkout "
            f"{removal.parent[:12]} -- {removal.path}`, and commit it (an attestation file "
            "counts from the first commit that held it); " + drop)
