"""The fixes of a name taken or without its names file (KI205, KI211, KI212): one owner.

At the gate, a taken name's fix is on the manifest that arrives, never on the one stored.
A pull request adding a manifest under a name a stored manifest holds is refused with
KI205 (two manifests of one name; said on the later digest, sorted) and KI211 (a names
file not holding the manifest's digest). Said on the stored manifest, those fixes told the
innocent one to take "another metadata.name" (a rename, KI208), and KI211's led with
``kistore migrate``, which refuses a name two manifests hold (fresh99 M3). The gate knows
which of the two BASE holds: each such finding gets the fix of the arriving one, the commit
adding it dropped (a later rename is a name change too, KI208, read commit by commit) and
the manifest added again under another name; a names file the range rewrote is restored
by that drop, or from BASE (``git checkout BASE -- PATH``).

The other cause of a name taken, or left without its names file, is a committed rename or
deletion (KI208, whose fix :mod:`._lineage_fixes` builds): :func:`names_one_cause` gives the
KI205, KI211 and KI212 it explains that fix, at the gate and in ``verify``. This module
owns rewriting those rules' fixes; the gate and ``verify`` call it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..core import layout
from ..core.digest import Digest
from ..core.findings import Finding
from ._fixes import Base
from ._lineage_fixes import blob_entry

_RULES = ("KI205", "KI211")


def taken_name_fixes(findings: list[Finding], base: Base, ends: tuple[Any, Any],
                     adding: Callable[[str], list[str]],
                     order: dict[str, int] | None = None) -> list[Finding]:
    """Give each KI205, KI211 (and KI208 of its names file) of a name taken the arriving one's fix.

    Args:
        findings: the gate's findings.
        base: the gate's BASE.
        ends: the root trees (``pygit2.Tree``) of BASE and HEAD.
        adding: ``adding(path)``: the commits of the range (full ids, oldest first) that
            changed the repository path.
        order: each commit of the range (full id) to its place, oldest first (0): of two
            manifests the range both adds, the one a later commit adds arrives
            (:func:`_first_owner`); None: only a manifest BASE stores holds the name.

    Returns:
        ``findings`` in their order; a KI205 or KI211 between a manifest BASE stores and
        one it lacks with the fix that works, said on the arriving manifest's metadata
        file (one said on the stored one's is moved there, :func:`_filed_on_arriving`),
        and the KI208 of the names file the range rewrote for it.
        Raises nothing but what reading the trees raises.
    """
    names = {frozenset((_digest(f), str(f.extra["owner"]))): str(f.extra["names_path"])
             for f in findings if f.rule.id == "KI211" and "owner" in f.extra}
    rewrites = {path: pair for pair, path in names.items()}
    told = []
    for f in findings:
        other = f.extra.get("other" if f.rule.id == "KI205" else "owner")
        mine = _digest(f)
        if f.rule.id == "KI208" and f.file in rewrites and f.found != "no file":
            # the names file the arriving manifest rewrote: "keep its metadata.name" said
            # nothing of the manifest to rename
            mine, other = sorted(rewrites[f.file])
        if f.rule.id in (*_RULES, "KI208") and other and mine:
            stored = [d for d in (mine, str(other))
                      if blob_entry(ends[0], layout.object_path(Digest.from_str(d)))]
            held_at = ""  # the commit of the range adding the name's first owner, if so
            if not stored and order is not None:  # both in the range (fresh00b MED N1)
                held_at, first = _first_owner(mine, str(other), adding, order)
                stored = [first] if first else []
            if len(stored) == 1:
                arriving = str(other) if stored[0] == mine else mine
                path = names.get(frozenset((mine, str(other))))
                refile = f.rule.id != "KI208" and mine == stored[0] and (
                    f.rule.id == "KI205" or _rewrites(path, ends, adding, held_at) != [])
                f = dataclasses.replace(f, fix=_fix(
                    stored[0], arriving, path, base, ends, adding, held_at,
                    here=f.rule.id != "KI208" and (arriving == mine or refile)))
                if refile:  # said where the pull request's files are (fresh99b LOW)
                    f = _filed_on_arriving(f, stored[0], arriving, held_at)
        told.append(f)
    return told


def _first_owner(one: str, two: str, adding: Callable[[str], list[str]],
                 order: dict[str, int]) -> tuple[str, str]:
    """Return ``(commit, digest)``: which of two manifests the range adds came first.

    A pull request adding a run under a name, then a second run renamed by hand onto it
    (its own names file rewritten to name it): KI211 was said on the first, innocent one,
    with ``kistore migrate`` as its fix, which refuses a name two manifests hold (fresh00b
    MED N1). The one a later commit of the range adds arrives and is the one to fix.

    Args:
        one: one manifest's digest (``sha256:...``).
        two: the other's.
        adding: as :func:`taken_name_fixes` takes it.
        order: as :func:`taken_name_fixes` takes it.

    Returns:
        The first commit adding the earlier manifest (full id) and its digest; ``("",
        "")`` when one commit adds both (neither came first) or a commit is not known.
    """
    firsts = [adding(layout.object_path(Digest.from_str(d)))[:1] for d in (one, two)]
    if not all(firsts) or any(f[0] not in order for f in firsts):
        return "", ""
    (a,), (b,) = firsts
    if order[a] == order[b]:
        return "", ""
    return (a, one) if order[a] < order[b] else (b, two)


def _rewritten(path: str | None, ends: tuple[Any, Any]) -> bool:
    """Whether the range changed the names file ``path`` (BASE's blob is not HEAD's)."""
    return path is not None and path != "" and \
        blob_entry(ends[0], path) != blob_entry(ends[1], path)


def _rewrites(path: str | None, ends: tuple[Any, Any], adding: Callable[[str], list[str]],
              held_at: str) -> list[str]:
    """Return the commits of the range that rewrote the names file ``path`` (full ids).

    ``held_at`` is "" when BASE stores the name's owner: then every commit changing the
    file, if the range changed it at all. Else the owner's own commit, ``held_at``, wrote
    the file, and only the commits after it, which wrote it over, rewrote it.
    """
    if not path:
        return []
    if not held_at:
        return adding(path) if _rewritten(path, ends) else []
    changed = adding(path)
    return changed[changed.index(held_at) + 1:] if held_at in changed else changed


def _filed_on_arriving(f: Finding, held: str, arriving: str, held_at: str = "") -> Finding:
    """Return KI205 or KI211 said on the stored manifest's file, said on the arriving one's.

    KI205 is told on the later digest (sorted), and KI211 on the manifest whose names file
    names another (the stored one's, when the range rewrote it): either may be the stored
    one's metadata file, which a review of the pull
    request never sees among the files it brings, and which nothing is to change in
    (fresh99b LOW, low00). Said on the arriving manifest's metadata file, each names the
    stored one as the holder of the name (``held_at``: the commit of the range that added
    it, when BASE lacks it).
    """
    metadata = layout.metadata_path(Digest.from_str(arriving))
    if f.rule.id == "KI205":
        name = f.extra.get("name")
        return dataclasses.replace(
            f, file=metadata, message=f.message.replace(arriving, held),
            extra={**f.extra, "other": held, "name": name})
    path = str(f.extra.get("names_path", ""))
    kind_name = layout.name_from_path(path)
    shown = "/".join(kind_name) if kind_name else path
    return dataclasses.replace(
        f, file=metadata,
        message=(f"{shown} is taken: {held} holds it ({_since(held_at)}), and the "
                 f"range rewrote its names file {path} to name this manifest"),
        expected=f"{path} holding {held}", found=arriving,
        extra={**f.extra, "owner": held, "rewritten": True})


def _digest(f: Finding) -> str:
    """Return the digest (``sha256:...``) of the manifest a finding's file is of, or ``""``."""
    digest = layout.digest_from_path(f.file or "")
    return str(digest) if digest is not None else ""


def _since(held_at: str) -> str:
    """Say where the name's owner comes from: BASE (``held_at`` ""), or a commit of the range."""
    return (f"added earlier, by commit {held_at[:12]} of the range" if held_at
            else "stored before the range")


def _fix(held: str, arriving: str, path: str | None, base: Base, ends: tuple[Any, Any],
         adding: Callable[[str], list[str]], held_at: str = "", *, here: bool) -> str:
    """Return the fix of ``arriving`` taking the name ``held`` holds (names file ``path``).

    ``held_at``: the commit of the range adding ``held`` ("" when BASE stores it), whose
    names file a drop restores, not BASE's.
    """
    metadata = layout.metadata_path(Digest.from_str(arriving))
    rewrites = _rewrites(path, ends, adding, held_at)
    rewritten = rewrites != []
    path = path or ""  # none when no KI211 named it: then never rewritten
    who = ("this manifest" if here else
           f"the manifest the range adds, {arriving} ({metadata}), takes the name {held} "
           f"holds ({_since(held_at)}), which keeps it; so")
    if here:
        who += f" takes the name {held} holds ({_since(held_at)}); so"
    if base.staged:
        restore = f"restore the names file ({base.checkout(path)}) and " if rewritten else ""
        return (f"{who} {restore}give your manifest another metadata.name (it is not "
                "committed yet: add it again with the new name)")
    commits = list(dict.fromkeys(
        adding(layout.object_path(Digest.from_str(arriving))) + rewrites))
    ids = ", ".join(c[:12] for c in commits) or "that adds it"
    restore = (f"; dropping it restores the names file {path} as BASE holds it (else "
               f"{base.checkout(path)})" if rewritten and not held_at else
               f"; dropping it restores the names file {path} as commit {held_at[:12]} wrote "
               f"it (else `git checkout {held_at} -- {path}`)" if rewritten else "")
    return (f"{who} give your manifest another metadata.name in the commit that adds it "
            f"(a later rename is a name change, KI208, and `kistore migrate` refuses a name "
            f"two manifests hold): drop commit {ids} ({base.rebase()}, mark it `drop`)"
            f"{restore}, then add the manifest again with the new metadata.name "
            "(`kistore add --commit FILE`)")


def names_one_cause(contents: list[Finding], history: list[Finding]) -> list[Finding]:
    """Give KI205, KI211 and KI212 that a committed KI208 explains that KI208's fix.

    KI211 of a names file a commit deleted: ``kistore migrate``, its own fix, wrote the
    file again, and the gate still read the deletion (last96 item 3). KI211 of the new
    name a commit gave a manifest (onto another's name, or none): ``kistore migrate``
    refuses to write it, naming the rename (last97 MED 2c); KI205 of that name, taken by
    another manifest, says the same (its ``git checkout HEAD -- FILE`` restores nothing
    once the rename is committed: lineage98). KI212 of the names
    file of a name a commit moved (the metadata's KI208, its old name this file's): "remove
    a names file no manifest owns" would delete a committed one, a second KI208.

    Args:
        contents: the contents findings (KI211, KI212 among them).
        history: the history's (KI208 with its fix).

    Returns:
        ``contents`` in their order. Raises nothing.
    """
    deleted = {f.file: f.fix for f in history
               if f.rule.id == "KI208" and f.found == "no file" and f.fix is not None}
    renamed = {(f.file, f.expected): f for f in history
               if f.rule.id == "KI208" and f.pointer == "/name"}
    renamed_to = {(f.file, f.found): f for f in renamed.values()}
    if not deleted and not renamed:
        return contents
    told = []
    for f in contents:
        named = layout.name_from_path(str(f.extra.get("names_path", "")))
        if f.rule.id == "KI211" and f.extra.get("names_path") in deleted:
            f = dataclasses.replace(f, fix=deleted[f.extra["names_path"]])
        elif f.rule.id == "KI211" and named is not None and (
                moved := renamed_to.get((f.file, named[1]))) is not None:
            # the new name of a rename (onto a name taken, or none): `kistore migrate`
            # refuses to write its names file, naming the rename (last97 MED 2c)
            f = dataclasses.replace(f, fix=_renamed_onto(moved, "this manifest", "this file"))
        elif f.rule.id == "KI205" and (moved := _onto_taken(f, renamed_to)) is not None:
            # a rename onto a name taken: KI205's "git checkout HEAD -- FILE" restores
            # nothing once the rename is committed (lineage98: KI211 said the rename)
            f = dataclasses.replace(f, fix=_renamed_onto(moved, *(
                ("this manifest", "this file") if moved.file == f.file else
                (f"the manifest of {moved.file}", "that file"))))
        elif f.rule.id == "KI212" and f.extra.get("owner") and f.file:
            named = layout.name_from_path(f.file)
            moved = renamed.get((layout.metadata_path(Digest.from_str(f.extra["owner"])),
                                 named[1] if named else None))
            if moved is not None:
                f = dataclasses.replace(f, fix=(
                    f"this names file holds the name {moved.expected!r} the manifest was "
                    f"committed under, which commit {str(moved.extra['commit'])[:12]} moved "
                    f"(KI208 on {moved.file}): keep it, a names file is never removed; "
                    f"{moved.fix or moved.rule.hint}"))
        told.append(f)
    return told


def _renamed_onto(moved: Finding, manifest: str, where: str) -> str:
    """Return the fix of the new name ``moved`` (a KI208 of ``/name``) gave ``manifest``."""
    commit = str(moved.extra["commit"])
    return (f"{moved.found!r} is the name commit {commit[:12]} gave {manifest} in place of "
            f"{moved.expected!r} (KI208 on {where}): a name never moves, so no names file is "
            "written for it (`kistore migrate` refuses too): "
            + (moved.fix or f"set metadata.name back to {moved.expected!r} and commit, or, "
               f"in a branch not yet merged, drop that commit (`git rebase --onto {commit}~ "
               f"{commit}`, which drops all else it changed too)"))


def _onto_taken(finding: Finding, renamed_to: dict[tuple[str | None, Any], Finding]
                ) -> Finding | None:
    """Return the KI208 that moved one of KI205 ``finding``'s two manifests onto its name.

    KI205 is told on the later digest's metadata file, which need not be the renamed one:
    both files are asked (the finding's and its ``other``'s).
    """
    name = finding.extra.get("name")
    other = finding.extra.get("other")
    files = [finding.file] + ([layout.metadata_path(Digest.from_str(str(other)))]
                              if other else [])
    return next((renamed_to[(file, name)] for file in files if (file, name) in renamed_to),
                None)
