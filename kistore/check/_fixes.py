"""The fixes that name BASE or a commit: the branch's rebuild, a checkout from BASE.

A commit of a pull request that edits, renames or deletes stored bytes stays in the
history a later fixing commit is added to, and the gate and ``verify`` read that history
commit by commit (KI401-KI403): the fix that works drops the commits (``git rebase -i
BASE``). One wording for every finding that says it (reviewer r93b G1, rev95 item 1):
the gate's KI101 of an edit and a committed rename or copy (:mod:`.audit`), an object
edited then deleted (:mod:`._history`), a name a later commit of the range removes
(:mod:`.gate`), a copy or a case pair a commit of the branch brings (:func:`brought_fix`).

A fix run as written must run: git answers ``git checkout BASE`` with "fatal: invalid
reference: BASE" (reviewer fresh95 F6). A rule's hint says the word BASE (the rule is
``verify``'s too, which knows no range); the gate knows BASE and each of its rules builds
its fix from a :class:`Base` (its commit id; ``HEAD`` for a checkout where BASE is the
checked-out ``HEAD``, the pre-commit hook's), by the same function that wrote the hint
from :data:`HINT_BASE` (depth96: until then the gate rewrote the word in every finding's
text after the rules ran).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..core.findings import Finding

MERGE_BASE = "`git merge-base origin/main HEAD`"
"""How to find BASE outside a range (``verify``, which knows none)."""

REBASE_BASE = ("`git rebase -i BASE` (BASE: the commit the branch starts from, "
               f"{MERGE_BASE})")
"""The rebase a fix outside a range (``verify``, which knows no BASE) says."""


def rebase_command(base: str | None) -> str:
    """Return the rebase a fix names: ``git rebase -i BASE`` in backquotes.

    Args:
        base: the gate's BASE (full commit id: named whole, so the command runs as
            written, or ``"BASE"`` where the words around it say what BASE is), after
            ``--rebase-merges`` where the branch holds a merge (:attr:`Base.rebase_args`);
            None: :data:`REBASE_BASE`, which says how to find it.

    Returns:
        The command in backquotes. Raises nothing.
    """
    return f"`git rebase -i {base}`" if base else REBASE_BASE


@dataclass(frozen=True, slots=True)
class Base:
    """BASE as a fix names it: a commit's id, or the word a rule's hint says.

    Attributes:
        id: BASE's full commit id (40 hex digits), named whole so the command runs as
            written; ``"BASE"`` in a rule's hint (:data:`HINT_BASE`), where the words
            around it say what BASE is.
        checked_out: BASE is the work tree's checked-out ``HEAD`` (the pre-commit hook
            checks ``HEAD..STAGED``): a checkout names it ``HEAD``, a rebase its id. Never
            in a bare repository (a server's pre-receive), whose ``HEAD`` is the pushed
            branch's old tip while the pusher's holds the change.
        staged: HEAD of the range is the pre-commit hook's commit of the index (``check
            --staged``), on no branch: a fix restores the staged files from BASE, the
            checked-out ``HEAD`` (:func:`staged_fix`), never rebuilds a branch (fresh98
            MED 3: "drop commit X of the branch" named the hook's own commit, and the
            rebase it printed failed on the staged changes).
        rebase_from: the commit a rebase starts from when it is not :attr:`id` (full commit
            id; ``""``: :attr:`id`): the newest commit of HEAD's history a remote's main
            holds (:func:`.reach.rebase_start`), so that a push judged from a fork's stale
            main rewrites the branch's own commits only (fresh00b MED U1). Or a function
            of no argument returning it, called when a fix names the rebase
            (:attr:`rebase_id`): finding it reads every remote's main, which a range whose
            fixes name no rebase (a clean one) never needs (mend02); the caller makes it
            remember its answer.
        merges: the commits that rebase rewrites (``rebase_id..HEAD``) hold a merge (the
            branch merged upstream's main after the commit to drop): the rebase says
            ``--rebase-merges``, which makes each merge again (and keeps upstream's commits
            as they are) where a plain ``git rebase -i`` flattens it into the branch's line
            (rb00's leftover, hist01). Or a function of no argument returning it, called
            with :attr:`rebase_args` (it needs :attr:`rebase_id`: mend02's laziness).
    """

    id: str
    checked_out: bool = False
    staged: bool = False
    rebase_from: str | Callable[[], str] = ""
    merges: bool | Callable[[], bool] = False

    @property
    def rebase_id(self) -> str:
        """The commit a fix's ``git rebase -i`` names (full id, or the hint's ``BASE``).

        Calls :attr:`rebase_from` when it is a function (each time: the gate's remembers
        its answer, :func:`functools.cache`). Raises what that function raises.
        """
        start = self.rebase_from() if callable(self.rebase_from) else self.rebase_from
        return start or self.id

    @property
    def rebase_args(self) -> str:
        """What follows ``git rebase -i`` in a fix (:func:`rebase_command`'s ``base``).

        :attr:`rebase_id`, after ``--rebase-merges`` when :attr:`merges`.
        """
        merges = self.merges() if callable(self.merges) else self.merges
        return f"--rebase-merges {self.rebase_id}" if merges else self.rebase_id

    def rebase(self) -> str:
        """Return ``git rebase -i ARGS`` in backquotes (:attr:`rebase_args`); raises nothing."""
        return rebase_command(self.rebase_args)

    def onto(self) -> str:
        """Return ``git rebase ID`` in backquotes (a branch moved onto BASE); raises nothing."""
        return f"`git rebase {self.id}`"

    def checkout(self, path: str) -> str:
        """Return ``git checkout REV -- PATH`` in backquotes, REV BASE as a checkout names it.

        Args:
            path: the file restored (repository path), or the hint's placeholder (``FILE``).

        Returns:
            The command: REV is ``HEAD`` when :attr:`checked_out`, else :attr:`id`. Raises
            nothing.
        """
        return f"`git checkout {'HEAD' if self.checked_out else self.id} -- {path}`"


HINT_BASE = Base("BASE")
"""BASE as a rule's hint names it: the word (``git rebase -i BASE``)."""


def unread_remotes_said(findings: list[Finding], skipped: list[tuple[str, str]], base: Base
                        ) -> list[Finding]:
    """Say, in each fix whose ``git rebase`` starts at ``base``'s start, which remotes it left out.

    :func:`.reach.rebase_start` leaves out a remote whose main cannot be read (``skipped``):
    the start it gives may then be older than that remote's main, and the rebase may
    rewrite commits that main holds (fresh00b MED U1) without this clone knowing.

    Args:
        findings: the gate's findings.
        skipped: ``(remote, ref name)`` of each remote left out (empty: nothing to say).
        base: the gate's BASE; its :attr:`Base.rebase_id` is read only when ``skipped``
            holds one (it filled ``skipped``: it was read already).

    Returns:
        ``findings`` in their order, each fix naming ``git rebase ... START`` followed by
        the note: the refs left out, and the commands that set them again (``git
        update-ref -d REF``, ``git fetch REMOTE``: the remote shell-quoted). Raises nothing.
    """
    if not skipped:
        return findings
    start = base.rebase_id
    names = ", ".join(ref for _, ref in skipped)
    mend = "; ".join(f"`git update-ref -d {shlex.quote(ref)}`, then `git fetch "
                     f"{shlex.quote(remote)}`" for remote, ref in skipped)
    note = (f" (the rebase starts at {start[:12]} without {names}, which cannot be read: "
            "commits that remote's main holds are not known here, and may be among those "
            f"the rebase rewrites; {mend} sets it again, then check again)")
    named = re.compile(rf"`git rebase [^`]*{start}`")
    return [replace(f, fix=f.fix + note) if f.fix and named.search(f.fix) else f
            for f in findings]


def rebuild_without(rules: str, base: str | None, paths: str, *, plural: bool = False) -> str:
    """Return the part of a branch fix from "which is read commit by commit" to its ``; ``.

    Args:
        rules: the rules the history check reports the change under (``KI401``).
        base: as :func:`rebase_command` takes it.
        paths: the files to leave as they were.
        plural: the fix names several commits (``them``, ``those commits``).

    Returns:
        The clause, ending in ``; ``. Raises nothing.
    """
    it, commit = ("them", "those commits") if plural else ("it", "that commit")
    return (f"which is read commit by commit ({rules}), so rebuild the branch without {it}: "
            f"{rebase_command(base)}, and drop {commit} (or edit {it} to leave {paths} as it "
            "was); ")


def rebase_fix(what: str, commits: list[str], undo: str, change: str, rules: str,
               paths: str, base: str | None, then: str) -> str:
    """Return the branch's fix of a committed change: rebuild it without the commits.

    The one wording of the gate's KI101 of an edit (:func:`.audit.gate_fixes`) and of a
    committed rename or copy (the gate's and ``verify``'s), reviewer r93b G1.

    Args:
        what: what the commits did (``an object's bytes edited``).
        commits: their full ids (named by 12 digits).
        undo: what a later commit would do (``restoring them``).
        change: what that leaves in the history (``the edit``).
        rules: the rules the history check reports it under (``KI401``).
        paths: the files to leave as they were.
        base: the gate's BASE (full commit id); None: :data:`REBASE_BASE`.
        then: the last clause.

    Returns:
        The fix, one sentence. Raises nothing.
    """
    ids = ", ".join(c[:12] for c in commits)
    return (f"{what} in commit {ids} of the branch: {undo} in a later commit leaves {change} "
            f"in the history, {rebuild_without(rules, base, paths)}{then}")


def brought_fix(what: str, path: str, base: str, then: str, *, undo: str | None = None,
                restored: bool = True, merge: bool = False) -> str:
    """Return the gate's fix of a file a commit of the branch brings that must not be there.

    A copy of a stored file (KI101, KI110), one of a case pair (KI112), any file where the
    layout has none (KI110, KI111, KI114): KI110's ``rm`` in a later commit leaves the
    commit bringing it in main's history, and the gate judges every commit of a range
    (fresh99 H2, case99: a case pair; hist00: any such file, a ``rm`` in a later commit
    then passed, now it is refused). So, as KI112 says of a name a later commit removes:
    rebuild the branch. The later commit that removed (or mended) the file is left empty
    once the first is dropped, and git (2.39) stops the rebase there ("nothing to commit"):
    the fix says to drop it too or ``git rebase --skip`` it, as KI403's "and any later one
    moving it back" does (fresh00b LOW).

    Args:
        what: what the file is (``a copy of a stored object``).
        path: the file to take out (repository path).
        base: the gate's BASE (full commit id, :func:`rebase_command`).
        then: the last clause.
        undo: what takes it out at the ``edit`` stop, in backquotes; None: ``git rm -r
            PATH`` (a file the layout has no place for). A version of a file that stays
            (a metadata file, hist02) is replaced by the next version the branch brings:
            ``git checkout NEXT -- PATH``.
        restored: the later commit that changes the file again restores what the commit
            bringing it found there (or removes it), so dropping the commit leaves that one
            empty; False: it brings a version of its own, which dropping the commit would
            turn into a conflict, so the fix says ``edit`` alone (an amend that is never
            empty: the commit then holds that version).
        merge: the commit is a merge: ``git rebase -i --rebase-merges`` lists it as a
            ``merge`` line, which cannot be marked ``edit`` (git 2.39: "commit X is a merge
            but no -m option was given"), so the fix says to delete that line, or to add a
            ``break`` line after it, where git stops with the merge made (fresh06 L1).

    Returns:
        The fix, one sentence. Raises nothing.
    """
    undo = f"`git rm -r {path}`" if undo is None else undo
    lead = (f"{what}, brought by a commit of the branch: take it out of that commit, not in "
            "a later one, which leaves it in the history (a checkout of that commit meets it, "
            "and the gate judges every commit of a range, so it refuses that too): "
            f"{rebase_command(base)}, and ")
    stop, drop, kept = (
        ("add a `break` line after that merge's `merge` line (a `merge` line cannot be marked "
         "`edit`; git stops there, the merge made)", "delete that merge's `merge` line",
         "add a `break` line after it (a `merge` line cannot be marked `edit`; git stops "
         "there, the merge made)") if merge else
        ("mark that commit `edit`", "drop that commit", "mark it `edit`"))
    if not restored:
        return (f"{lead}{stop}, then {undo}, `git commit --amend`, `git rebase --continue`; "
                "the later commit that brought that version may be left empty: git stops "
                f"the rebase there (`git rebase --skip` it); {then}")
    return (f"{lead}{drop} "
            f"(or, when it holds other changes, {kept}, then {undo}, `git "
            f"commit --amend`, `git rebase --continue`), and any later one that only removes "
            "or restores it: kept, it is left empty and git stops the rebase there (`git "
            f"rebase --skip` it); {then}")


def staged_fix(what: str, paths: str, then: str) -> str:
    """Return the pre-commit hook's fix of a change staged (:attr:`Base.staged`): restore it.

    Args:
        what: what the staged change does (``an object's bytes edited``).
        paths: the files to restore, space-separated.
        then: the last clause.

    Returns:
        The fix, one sentence: ``git checkout HEAD -- PATHS`` restores the index and the
        work tree from the checked-out ``HEAD``. Raises nothing.
    """
    return (f"{what} in the changes staged for this commit (the pre-commit hook checks the "
            "index as a commit of its own, on no branch): restore the files as HEAD holds "
            f"them, in the index and the work tree, with `git checkout HEAD -- {paths}`; "
            f"{then}")


def edited_fix(path: str, before: str, edit: str, where: str = "HEAD") -> str:
    """Return ``verify``'s fix of an object edited in commit ``edit``: restore it from ``before``.

    ``git checkout HEAD -- PATH`` changes nothing where ``HEAD`` holds the edit (reviewer
    fresh95 F4): the commit before the edit holds the original bytes.

    Args:
        path: the object file.
        before: the commit before the edit, the last holding the original bytes (12 digits).
        edit: the commit that edited it (12 digits).
        where: the revision verified, which holds the edit (``HEAD``, or ``--at``'s).

    Returns:
        The fix: ``git checkout BEFORE -- PATH`` and a commit, or in a branch not yet
        merged the edit's commit dropped (``git rebase -i BASE``, BASE found by
        :data:`MERGE_BASE`). Raises nothing.
    """
    return (f"{where} holds the edited bytes, so `git checkout {where}` restores nothing: restore "
            f"the object's original bytes from {before}, the commit before the edit (the last "
            f"holding them): `git checkout {before} -- {path}`, and commit it. In a branch not "
            f"yet merged, drop the edit's commit instead ({edit}: {rebase_command('BASE')}, "
            f"BASE being {MERGE_BASE}): a restoring commit leaves the edit in the history, "
            "read commit by commit (KI401). Objects are never edited: add a new manifest instead")


def restored_fix(commits: list[str], where: str = "HEAD", rebase: str = REBASE_BASE,
                 held: str = "the object's original bytes", restoring: str = "the bytes",
                 one: str = "the edit's commit", *, listed: bool = False) -> str:
    """Return the fix of an object changed in ``commits`` whose bytes ``where`` holds again.

    Following the edit's fix ("restore ... and commit it") left ``verify`` red with the
    generic fix, a ``git checkout HEAD`` that changes nothing (reviewer break95 M1): the
    change stays in the history, read commit by commit, and only dropping it clears it.
    Every commit of the object's history on the branch is named: an edit, then a deletion,
    then a restore, dropped as "the edit and the restore" left the deletion, on which
    ``git rebase`` stopped (a modify/delete conflict: reviewer fresh96 F4).

    Args:
        commits: the commits that edited or deleted the object, in history order (12 or 40
            hex digits; named by 12).
        where: the revision verified (``HEAD``, or ``--at``'s).
        rebase: the rebase command in backquotes (the gate's, naming BASE's id; ``verify``:
            :data:`REBASE_BASE`, saying how to find BASE).
        held: what ``where`` holds again (a names file, a metadata file's annotations:
            KI208, KI432 at the gate, reviewer break96 M4).
        restoring: what the restoring commit brought back.
        one: the one commit's name, when ``commits`` holds one.
        listed: the last of ``commits`` is the restoring one (KI432's restore is itself a
            change of the annotation): it is named once, not again as "the commit
            restoring" (last96 item 6).

    Returns:
        The fix: drop those commits and the restoring one (saying that a dropped commit
        loses its other changes too: reviewer break97 M2), or, on a branch already merged,
        that the finding stays. Raises nothing.
    """
    ids = ", ".join(dict.fromkeys(c[:12] for c in commits))
    many = len(commits) > 1
    said = (f"the commits that changed it ({ids}{', the last restoring it' * listed}) stay"
            if many else f"{one} ({ids}) stays")
    drop = ("them" if many else "it") + ("" if listed else
                                          f" and the commit restoring {restoring}")
    return (f"{where} holds {held} again, but {said} in the history, "
            f"which is read commit by commit: in a branch not yet merged, drop "
            f"{drop} ({rebase}), which loses all else {'they' if many else 'it'} changed too "
            "(move any other change to a new commit first); on a "
            "branch already merged the history cannot change, and this error says so for good")
