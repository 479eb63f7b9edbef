"""Which ref a push moves, which refs are protected, and refs that make git serve other bytes.

git honours ``refs/replace/*`` in every command by default: a replace ref whose name is a
stored blob (or tree, or commit) and whose value is another object makes ``git show``,
``git archive``, ``git checkout``, ``git log`` and every mirror (``git clone --mirror``
fetches ``refs/replace/*``) serve the other object's bytes in its place, while kistore,
reading through libgit2, which ignores them, says all is well (review r75 F1). The rules:

* **KI419** (error, ``check --updates``): a push creating or updating a ref under
  ``refs/replace/`` is refused, whatever its value (a blob, a tree, or a commit that
  deletes nothing yet moves which commit ``git log`` says added an object). Deleting one
  is allowed: that undoes it.
* **KI420** (error, ``check --updates``): a pushed ref (other than under ``refs/replace/``)
  whose value is not a commit or an annotated tag of one (a tag of a blob or a tree): the
  gate has no history to check for it. ``refs/notes/kistore`` must name a notes commit
  itself (git's notes read no tag): a blob, a tree or a tag there is refused the same way
  (reviewer r92 F13: "internal error").
* **KI421** (warning, ``verify``, ``verify --at`` and ``check``): the repository holds
  refs under ``refs/replace/``: git and kistore read different bytes there.

kistore's own ``git`` children never honour replace refs (:mod:`kistore.git.child`).

A push names refs, and git moves what they resolve to: in the receiving repository a
symbolic ref ``refs/heads/master`` -> ``refs/heads/main`` makes a push to ``master`` move
``main`` (and a deletion of ``master`` delete ``main``), while ``pre-receive`` is handed
``refs/heads/master`` (reviewer r84 F1: a reshaped first-parent line and a force-push of
main to its root each printed ``ok``). So ``check --updates`` judges each update as one of
the ref it moves (:func:`symbolic_target`, any depth), protected when that ref is
(:func:`protected_refs`, KI407 and KI430/KI431 apply), and refuses one whose old value is
not what that protected ref holds (:func:`stale_alias`, KI407).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.findings import ERROR, WARNING, Finding, rule
from ..core.layout import NOTES_REF
from ..git.blobs import lookup
from ..git.names import reference
from ..git.notes import notes_ref_problem

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

ZERO = "0" * 40
"""The object id git uses for 'no commit' (a created or deleted ref)."""

SYMREF_DEPTH = 5
"""Symbolic refs git follows at most to find the ref an update moves (``SYMREF_MAXDEPTH``
in git's ``refs.h``): deeper, git refuses the update itself."""

REPLACE_PREFIX = "refs/replace/"
"""git's namespace of replace refs (git-replace(1)): ``refs/replace/<replaced object's id>``."""

REF_NOT_FAST_FORWARD = rule(
    "KI407", "protected-ref-rewritten", ERROR,
    "push only fast-forward updates of the main branch and refs/notes/kistore: "
    "fetch, then rebase onto the remote tip (`git rebase origin/main`, and push again) or "
    "merge this branch into it (`git checkout --detach origin/main && git merge --no-ff "
    "main && git push origin HEAD:main`); not `git merge origin/main` on this branch, whose "
    "merge has the remote tip as second parent (KI430: main's first-parent line broken); a "
    "tag is never moved nor "
    "deleted: tag the new commit under a new name")
REPLACE_REF_PUSHED = rule(
    "KI419", "replace-ref-pushed", ERROR,
    "push no refs/replace/ refs: stored objects are never replaced; drop it "
    "(`git replace -d ID`, or `git push origin --delete refs/replace/ID` where one landed) "
    "and add a corrected manifest as a new object, or withdraw a run with an attestation")
REF_NOT_A_COMMIT = rule(
    "KI420", "ref-not-a-commit", ERROR,
    "push only branches and tags of commits: a ref naming a blob or a tree has no history "
    "the gate can check; delete it (`git tag -d NAME`) and push a commit instead")
NOTES_REF_FIX = (
    f"push {NOTES_REF} only as `kistore notes push REMOTE` sends it, a notes commit on top "
    "of the remote's (`kistore notes fetch REMOTE` first when the push is refused); never a "
    f"blob, a tree or a tag (`git push REMOTE +OBJECT:{NOTES_REF}`): this ref is unchanged")
"""KI420's fix for :data:`NOTES_REF` (reviewer r92b F5: the branch/tag hint, "delete it
(`git tag -d NAME`)", was printed for a notes ref)."""
NOTES_FAST_FORWARD_FIX = (
    f"send {NOTES_REF} with `kistore notes push REMOTE`: it fetches the remote's notes, "
    "merges this repository's lines onto them and pushes a fast-forward (a plain `git push` of "
    "the notes ref does not merge, and --force is refused)")
"""KI407's fix for :data:`NOTES_REF` (fresh96 L10: the branch's "fetch, merge or rebase"
advice was printed for the notes ref, which `kistore notes push` merges itself)."""


def fast_forward_fix(ref: str, new: str) -> str | None:
    """Return KI407's fix for a refused update of ``ref`` when it differs from the rule's.

    Args:
        ref: the full name of the ref the update moves (``refs/heads/main``...).
        new: the commit the update sets it to (40 hex digits; :data:`ZERO`: a deletion).

    Returns:
        :data:`NOTES_FAST_FORWARD_FIX` for an update of :data:`NOTES_REF` that is not a
        deletion; None otherwise (the rule's own fix: fetch, merge or rebase; the protected
        refs are never deleted; tags never move). Raises nothing.
    """
    return NOTES_FAST_FORWARD_FIX if ref == NOTES_REF and new != ZERO else None


REPLACE_REFS_PRESENT = rule(
    "KI421", "replace-refs-present", WARNING,
    "git reads these replacements, kistore does not: delete them (`git replace -d ID`, or "
    "`git for-each-ref --format='delete %(refname)' refs/replace/ | git update-ref --stdin`) "
    "and refuse them on the server (hooks/pre-receive does, KI419)")


TAGS_PREFIX = "refs/tags/"
"""git's namespace of tags: permalinks (``kistore rank --at v1``, ``export --since v1``)."""


def tag_rewritten(store: Store, old: str, new: str, name: str) -> Finding | None:
    """KI407 for a deletion of an existing tag, or a move of it to another commit.

    A tag is a permalink: README's ``git tag v1`` then ``rank --at v1`` and ``export
    --since v1`` read it, so an answer "as of v1" must not change on the server without a
    word (reviewer r88 F7: ``git push -f origin v1`` and ``git push origin :v1`` were
    accepted). A move forward changes that answer as much as one back, so any move to
    another commit is refused, as git's own client refuses to clobber a tag unforced;
    another tag object of the same commit (a re-signed tag) is allowed.

    Args:
        store: the receiving (or pushing) store.
        old: the tag's value before the push (not :data:`ZERO`: a new tag is no rewrite).
        new: its value after (:data:`ZERO`: deleted).
        name: the ref as findings name it (:func:`update_name`).

    Returns:
        The KI407 finding, or None when the update is allowed or ``old`` or ``new`` names
        no commit (KI420 reports a tag of a blob or tree).
    """
    # Lazy: the commit reader (store) is loaded by the gate already.
    from ..core.errors import InputError

    if new == ZERO:
        what = "deletion"
    else:
        try:
            was, now = (str(store.commit(oid).id) for oid in (old, new))
        except InputError:
            return None
        if was == now:
            return None
        what = f"move {old[:12]}..{new[:12]}"
    return Finding(
        REF_NOT_FAST_FORWARD, f"{what} of {name} refused: a tag is a permalink (`kistore rank "
        "--at TAG` and `kistore export --since TAG` read it, and an answer as of it must not "
        "change); tag the new commit under a new name (`git tag NAME COMMIT && git push "
        "origin NAME`)", extra={"ref": name, "old": old, "new": new})


def protected_refs(store: Store, remote: str | None = None) -> set[str]:
    """Return the refs whose updates must fast-forward: the default branch and the notes.

    Args:
        store: the repository the check runs in.
        remote: None where the check runs in the receiving repository (``pre-receive``,
            ``check --updates`` without ``--remote``): there the default branch is what
            ``HEAD`` points at (in a bare repository, the branch clones check out), named
            as ``HEAD`` names it and followed through symbolic refs to the ref it resolves
            to (:func:`symbolic_target`). In a pushing clone (``pre-push``'s ``--remote``,
            ``kistore notes push REMOTE``): the remote's name or URL, and the default
            branch is the one ``refs/remotes/REMOTE/HEAD`` names (recorded by ``git clone``
            or ``git remote set-head``); the clone's own ``HEAD`` names whatever branch is
            checked out, and a force-push of a pull request's branch after a rebase is no
            rewrite of the remote's main (fresh00 H1).

    Returns:
        Full ref names: ``refs/heads/main`` and :data:`NOTES_REF` always, and the default
        branch as above (none more for a URL or a remote without a recorded ``HEAD``).
        Raises nothing.
    """
    refs = {"refs/heads/main", NOTES_REF}
    if remote is not None:
        tracking = f"refs/remotes/{remote}/"
        target = symbolic_target(store.repo, f"{tracking}HEAD")
        if target.startswith(tracking) and target != f"{tracking}HEAD":
            refs.add(f"refs/heads/{target.removeprefix(tracking)}")
        return refs
    head = store.repo.references.get("HEAD")
    if head is not None and isinstance(head.target, str):
        refs |= {head.target, symbolic_target(store.repo, "HEAD")}
    return refs


def symbolic_target(repo: pygit2.Repository, name: str) -> str:
    """Return the ref an update of ``name`` moves: ``name`` followed through symbolic refs.

    git's ``receive-pack`` updates (and deletes) what a pushed name resolves to, at any
    depth up to :data:`SYMREF_DEPTH`; a target need not exist yet (a push creates it).

    Args:
        repo: the receiving repository (its symbolic refs are the ones git follows).
        name: a full ref name as pushed (``refs/heads/master``) or ``HEAD``.

    Returns:
        The last name of the chain (``name`` itself when it is no symbolic ref): git
        resolves no deeper than :data:`SYMREF_DEPTH`, and refuses such an update itself.
    """
    for _ in range(SYMREF_DEPTH):
        ref = reference(repo, name)  # None: no such ref (or a name git would refuse)
        if ref is None or not isinstance(ref.target, str):
            break
        name = ref.target
    return name


def update_name(ref: str, pushed: str) -> str:
    """Return how findings name an update of ``ref`` pushed as ``pushed``.

    Returns:
        ``ref``, or for a symbolic ref (``pushed`` resolving to ``ref``,
        :func:`symbolic_target`) ``"REF (pushed as PUSHED, a symbolic ref to it)"``.
    """
    return ref if ref == pushed else f"{ref} (pushed as {pushed}, a symbolic ref to it)"


def stale_alias(repo: pygit2.Repository, old: str, ref: str, pushed: str) -> Finding | None:
    """KI407 when a push through a symbolic ref gives an old value ``ref`` does not hold.

    git hands the hook the old value the pusher saw for the name pushed; through a
    symbolic ref to a protected branch that must be the branch's own value, or the
    update is judged from a tip the branch does not have.

    Args:
        repo: the receiving repository, before the push moves anything.
        old: the old value the update line gives (40 hex digits; all zeros: none).
        ref: the protected ref ``pushed`` resolves to (:func:`symbolic_target`).
        pushed: the name pushed, a symbolic ref (not ``ref`` itself).

    Returns:
        The finding (``extra``: ``ref``, ``pushed``, ``old``, ``held``), or None when
        ``old`` is what ``ref`` holds (all zeros when ``ref`` does not exist yet).
    """
    current = reference(repo, ref)
    target = None if current is None else current.target
    held = ZERO if target is None or isinstance(target, str) else str(target)
    if old == held:
        return None
    return Finding(
        REF_NOT_FAST_FORWARD, f"{pushed} is a symbolic ref to {ref}, so this push moves "
        f"{ref}, but gives its old value as {old[:12]} while {ref} is at {held[:12]}: "
        f"push to {ref} itself, from its current tip",
        expected=f"old value {held}", found=old,
        extra={"ref": ref, "pushed": pushed, "old": old, "held": held})


def pushed_ref_problem(repo: pygit2.Repository, new: str, ref: str) -> Finding | None:
    """KI419 or KI420 for a ref a push creates or updates to ``new``, else None.

    Args:
        repo: the receiving (or pushing) repository; ``new`` is in it.
        new: the ref's new value, 40 hex digits (not all zeros: a deletion is fine).
        ref: the full ref name, e.g. ``refs/replace/<id>`` or ``refs/tags/v1``.

    Returns:
        KI419 for any ref under ``refs/replace/``; KI420 when ``new``, followed through
        annotated tags, is a blob or a tree, or for :data:`NOTES_REF` when ``new`` is not a
        commit itself (:func:`notes_ref_problem`); None for a commit or a tag of one (the
        gate's range check then applies).

    Raises:
        ObjectUnreadable: ``new`` (or a tag on the way) is damaged or missing.
    """
    if ref == NOTES_REF:
        what = notes_ref_problem(repo, new, ref)
        return None if what is None else Finding(
            REF_NOT_A_COMMIT, f"{ref} names {what} ({new[:12]}), not a notes commit: git's "
            "notes are a history of commits; push the notes ref as `kistore notes push` "
            "writes it", expected="a notes commit", found=what,
            extra={"ref": ref, "new": new}, fix=NOTES_REF_FIX)
    target = _peeled(repo, new)
    if ref.startswith(REPLACE_PREFIX):
        replaced = ref[len(REPLACE_PREFIX):]
        return Finding(
            REPLACE_REF_PUSHED, f"{ref}: a replace ref makes git (show, archive, checkout, "
            f"log, every mirror) serve {target.type_str} {new[:12]} in place of "
            f"{replaced[:12] or 'an object'}, while kistore reads the stored bytes",
            expected="no ref under refs/replace/", found=f"{ref} -> {new}",
            extra={"ref": ref, "new": new})
    if target.type_str == "commit":
        return None
    return Finding(
        REF_NOT_A_COMMIT, f"{ref} names a {target.type_str} ({str(target.id)[:12]}), not a "
        "commit or an annotated tag of one: the gate has no history to check",
        expected="a commit or an annotated tag of one", found=f"a {target.type_str}",
        extra={"ref": ref, "new": new})


def _peeled(repo: pygit2.Repository, oid: str) -> pygit2.Object:
    """Return the object ``oid`` names, followed through annotated tags, each read guarded."""
    target = lookup(repo, oid)
    seen = 0
    while target.type_str == "tag" and seen < 100:  # a tag's target, read through the guard
        target = lookup(repo, str(target.target))  # type: ignore[attr-defined]
        seen += 1
    return target


def check_replace_refs(store: Store, at: str | None = None) -> list[Finding]:
    """KI421 when the repository holds refs under ``refs/replace/``.

    git honours them (``git show``, ``archive``, ``checkout``, ``log``), kistore does not:
    the two read different bytes for each replaced object. One of
    :data:`kistore.check.audit.CHECKERS` (``verify``, ``verify --at``) and of the gate.

    Args:
        store: a :class:`kistore.store.Store`.
        at: unused (the refs are the repository's, whatever revision is read).

    Returns:
        One KI421 warning naming the replace refs (the first five, all in
        ``extra.refs``), or nothing when there are none.
    """
    refs = sorted(name for name in store.repo.references if name.startswith(REPLACE_PREFIX))
    if not refs:
        return []
    shown = ", ".join(refs[:5]) + (" ..." if len(refs) > 5 else "")
    return [Finding(
        REPLACE_REFS_PRESENT, f"this repository holds {len(refs)} replace ref(s) ({shown}): "
        "git serves the replacement's bytes for each replaced object (git show, archive, "
        "checkout, log), kistore the stored ones", extra={"refs": refs})]
