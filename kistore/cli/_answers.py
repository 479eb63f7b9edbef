"""What an answer of the work tree left out, and why a reference it lacks may be meant.

:func:`warn_unreadable` names the manifests an answer left out as damaged (or being written
by an add); :func:`explaining_misses` turns "not found" into what to do when the work tree
lacks what ``HEAD`` holds; :func:`warn_implementation_missing` names a ranked run whose
Implementation the store lacks. The commands that answer from the store (``ls``, ``rank``,
``show``, ``cat``, ...) call them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..core.errors import KistoreError
    from ..query.policy import RankingPolicy
    from ..query.ranking import Row
    from ..store import Store, View


def warn_unreadable(store: Store, catalog: object, at: str | None = None) -> None:
    """Say on stderr which manifests an answer left out because their files are damaged.

    Damaged in the work tree: an object or metadata file that does not verify, or a
    committed manifest whose object file was deleted from the work tree (``kistore
    verify``: KI402). Damaged as committed: a manifest the index build skipped (its
    ``skipped`` list: non-canonical bytes, KI103; a spec its schema refuses, KI104; ...),
    as a push that skipped the hooks can leave it. For each, one summary line, then one
    line per damaged file (the first few) naming what is wrong with it and what to do.
    Call after the answer: the work tree's catalog finds damaged files as it reads them.

    Args:
        store: the :class:`kistore.store.Store` answered from.
        catalog: the catalog the answer came from (its ``unreadable`` digests, the
            manifests its overlay of the work tree removed: :func:`deleted_from_work_tree`,
            and its ``skipped()`` ones).
        at: the revision answered, or None for the work tree.
    """
    unreadable = sorted({*getattr(catalog, "unreadable", ()), *deleted_from_work_tree(catalog)})
    skipped = getattr(catalog, "skipped", None)
    committed = {d: why for d, why in (skipped() if callable(skipped) else {}).items()
                 if d not in unreadable}
    instead = store.not_checked_out() if unreadable and at is None else None
    if instead is not None:  # a `git clone --no-checkout`: not damage, no files at all
        click.echo(f"warning: the work tree is not checked out: {len(unreadable)} committed "
                   f"manifest(s) are left out; `--at {instead}` answers from the commit",
                   err=True)
    elif unreadable and at is None and store.work_tree_busy():
        # an add --commit began writing while this answer was read: its files, not damage
        click.echo(f"warning: the work tree changed while this answer was read (an add or a "
                   f"git command holds .git/index.lock now): {len(unreadable)} manifest(s) "
                   "being written were left out; ask again when it is done", err=True)
    elif unreadable:
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..core.digest import Digest
        from ..index.catalog import damage

        view = store.view(at)
        unreadable = _one_per_rename(view, unreadable)
        shown = ", ".join(unreadable[:3]) + (" ..." if len(unreadable) > 3 else "")
        click.echo(f"warning: {len(unreadable)} manifest(s) in the work tree do not verify and "
                   f"are left out: {shown}; run `kistore verify`", err=True)
        for digest in unreadable[:3]:
            path, problem = damage(view, Digest.from_str(digest))
            if path:
                role = "object" if path.startswith("store/objects/") else "metadata"
                advice = view.restore_advice(path, Digest.from_str(digest))
                click.echo(f"warning: {path}: the {role} file {problem}; {advice}", err=True)
    if committed:
        listed = sorted(committed)
        shown = ", ".join(listed[:3]) + (" ..." if len(listed) > 3 else "")
        verify = f"kistore verify --at {at}" if at else "kistore verify"
        click.echo(f"warning: {len(listed)} manifest(s) committed at {at or 'HEAD'} do not "
                   f"verify and are left out: {shown}; run `{verify}`", err=True)
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..index.catalog import committed_fix

        for digest in listed[:3]:
            path, problem = committed[digest]
            role = "object" if path.startswith("store/objects/") else "metadata"
            click.echo(f"warning: {path}: the {role} file {problem}; "
                       f"{committed_fix(path, problem)}", err=True)


def _one_per_rename(view: View, unreadable: list[str]) -> list[str]:
    """Return ``unreadable`` without the file names an object file renamed by hand took.

    One manifest renamed (``mv ...cc.json ...cd.json``) leaves two digests no query reads:
    its own, whose object file is missing, and the one the new name says, a file with no
    metadata whose bytes are the first's. Both were counted and said, with one ``mv``
    (fresh98: "2 manifest(s) ... left out: ...cc, ...cd"); the second is no manifest.
    Reads the object file of each left out digest with no metadata file, only.

    Args:
        view: the :class:`kistore.store.View` answered from.
        unreadable: the digests (``sha256:<64 hex>``) left out, sorted.

    Returns:
        Those digests in order, without each whose object file, with no metadata file
        beside it, holds the bytes of another of them (a rename over another stored
        object leaves that one's metadata there: it is lost too, and counted).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core import layout
    from ..core.digest import Digest
    from ..core.errors import KistoreError

    left = set(unreadable)

    def renamed(text: str) -> bool:
        digest = Digest.from_str(text)
        try:
            if view.read(layout.metadata_path(digest)) is not None:
                return False
            data = view.read(layout.object_path(digest))
        except KistoreError:  # too large, unreadable: said as it is
            return False
        return data is not None and str(Digest.of(data)) in left - {text}

    return [d for d in unreadable if not renamed(d)]


def ranking_policy(store: Store, at: str | None) -> RankingPolicy | None:
    """Read the view's ranking policy once for a command; say on stderr when it is the default.

    ``rank``, ``compare`` and ``show`` of a run (its rank) say it alike (reviewer r85 F14:
    ``show`` ranked by the same default and said nothing), and pass the policy down
    (``policy=`` of :func:`kistore.query.answers.rank`), which reads it no more. They also
    warn of each family whose declared ``unit`` contradicts its metric's name (KI231: the
    values would be printed in the wrong unit) and of each ranking a time descending (KI236:
    the slowest run first), :func:`kistore.check.ranking_caveats` (until 2026-12-04 only
    ``verify`` and the gate said so).

    Returns:
        The policy (:func:`kistore.query.policy.load_policy`); None when the store's file
        is not valid: the answer reads it again and refuses it where it always did (after
        the run is resolved).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import KistoreError
    from ..core.layout import POLICY_FILE
    from ..query.policy import HEAD_POLICY, load_policy

    try:
        policy = load_policy(store.view(at))
    except KistoreError:
        return None
    if policy.source == HEAD_POLICY:  # fresh17 F7: a FIFO or symlink is not "no file"
        # Lazy: the index's words of a file kind, only for this warning.
        from ..index.catalog import not_regular

        said = not_regular(store.view(at), POLICY_FILE)
        click.echo(f"warning: {POLICY_FILE} {said}: ranked by HEAD's {POLICY_FILE}, as "
                   f"committed; restore it with `git checkout HEAD -- {POLICY_FILE}`",
                   err=True)
    elif policy.source != POLICY_FILE:
        click.echo(f"warning: no {POLICY_FILE} here: ranked by kistore's shipped default "
                   "policy (`kistore verify` reports KI207 if the store's history had one)",
                   err=True)
        return policy
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..check import caveat_said, ranking_caveats

    for f in ranking_caveats({"families": policy.families}):  # KI231 (r88 F10), KI236 (r90b)
        click.echo(f"warning: {caveat_said(f)}", err=True)
    return policy


def deleted_from_work_tree(catalog: object) -> list[str]:
    """Return the digests of committed manifests a work-tree answer left out as deleted.

    The work tree's catalog is ``HEAD``'s index overlaid with what changed in the work tree
    (:class:`kistore.query.catalog.OverlayCatalog`, inside a
    :class:`kistore.query.fresh.CheckedCatalog`): a manifest whose object file is gone is
    overlaid as removed, and is not among the catalog's ``unreadable`` digests (those have
    an object file that does not verify). Only manifests ``HEAD``'s index holds count:
    objects are never deleted, so each is damage to restore with ``git checkout``.

    Args:
        catalog: the catalog an answer came from (:meth:`kistore.query.catalog.Catalog.
            deleted`); anything else has nothing deleted.

    Returns:
        Digest strings, sorted; empty when nothing was deleted or the catalog is not the
        work tree's.
    """
    deleted = getattr(catalog, "deleted", None)
    return list(deleted()) if callable(deleted) else []


@contextlib.contextmanager
def explaining_misses(store: Store, refs: Sequence[str | None], at: str | None, *,
                      names_at_commits: bool = False) -> Iterator[None]:
    """Say why a reference the work tree does not resolve may still be meant, and what to do.

    Before the block, ``KIND/`` with no name is refused as incomplete, and a ``KIND/NAME``
    among ``refs`` that two manifests of the work tree (or, with ``names_at_commits``, of
    commit ``at``) answer to is refused, listing both (:mod:`kistore.cli.names`).
    Within the block, a :class:`~kistore.core.errors.ResolutionError` about the work tree
    becomes, for the first of ``refs`` that the work tree does not resolve:

    * a digest or prefix of a committed manifest whose object file was deleted: the
      :func:`kistore.query.answers.unreadable_error` of it (``the object file is missing;
      restore it with `git checkout HEAD -- PATH```), as ``KIND/NAME`` already gets;
    * a ``KIND/NAME`` no manifest holds: the same "no KIND named ..." with how to find a
      name written into a metadata file in place, which a lookup does not see
      (:meth:`kistore.store.View.find_name`): ``kistore reindex``; but one whose names
      file names an owner with an unreadable file keeps its error, which names the owner
      and the commands that read it (:meth:`kistore.store.View.named`).

    Args:
        store: the :class:`kistore.store.Store` asked.
        refs: what the person typed (None entries are skipped).
        at: the revision asked; only the work tree (None) is explained.
        names_at_commits: the command resolves ``KIND/NAME`` through the index's names at
            any revision (:meth:`kistore.store.Store.resolve`), so checking a commit's
            names reads nothing more (``show``, ``cat``, ``cite``, ``attestations``).

    Before the block, when ``refs`` names anything, and for any error about the work tree
    within it, a clone that is not checked out (``git clone --no-checkout``) is refused,
    saying that ``--at`` the branch's upstream gives the same answers
    (:meth:`kistore.store.Store.require_checkout`): first and alone, before any warning
    the block would print.

    Raises:
        InputError: ``KIND/`` with no name.
        StoreStateError: the work tree is not checked out.
        VerificationError: a digest or prefix the work tree lacks and ``HEAD`` holds.
        ResolutionError: a ``KIND/NAME`` two manifests hold, listing them; a ``KIND/NAME``
            not found, with the hint; else the original error.
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import KistoreError, ResolutionError
    from .names import refuse_incomplete_names, refuse_shared_names

    refuse_incomplete_names(refs)
    if at is None and any(ref is not None for ref in refs):
        store.require_checkout()  # first and alone: before any warning the block prints
    refuse_shared_names(store, refs, at, commits=names_at_commits)
    try:
        yield
    except KistoreError as e:
        if at is not None or store.root is None:
            raise
        store.require_checkout()  # a `git clone --no-checkout`: every file is "missing"
        if not isinstance(e, ResolutionError):
            raise
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..core.layout import NAMES_DIR
        from ..core.schema import KINDS

        for ref in refs:
            kind, slash, name = (ref or "").partition("/")
            if ref is None or (slash and kind not in KINDS):
                continue
            if slash:
                if store.view().find_name(kind, name) is None:
                    renamed = _renamed_owner(store, kind, name)
                    if renamed is not None:
                        raise renamed from None
                    if (e.file or "").startswith(f"{NAMES_DIR}/"):
                        raise  # its names file names an owner unreadable: said, with the fix
                    raise ResolutionError(_no_such_name(store, kind, name)) from None
                continue
            if _work_tree_matches(store, ref):
                continue  # the work tree has it, or several (an ambiguous prefix): as it failed
            renamed = _renamed_digest(store, ref)
            if renamed is not None:
                raise renamed from None
            try:
                digest = store.resolve(ref, at="HEAD")
            except KistoreError:  # not committed either (or no HEAD): the original stands
                continue
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from ..query.answers import unreadable_error

            raise unreadable_error(store.view(None), digest, str(digest)) from None
        raise


def _renamed_owner(store: Store, kind: str, name: str) -> KistoreError | None:
    """Return the error for a ``KIND/NAME`` whose object file was renamed by hand, if so.

    Its names file (``store/names/KIND/XX/NAME``) gives a digest whose own object file is
    missing while another object file holds its bytes (:meth:`kistore.store.View.
    find_renamed`): the lookup failed for that, and ``kistore reindex`` changes nothing
    (reviewer r90b F4), so the ``mv`` that puts it back is said
    (:func:`kistore.query.answers.unreadable_error`). None otherwise.
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core import layout
    from ..query.answers import unreadable_error

    if not layout.is_name(name):
        return None
    view = store.view()
    owner = layout.digest_from_record(view.read(layout.name_path(kind, name)) or b"")
    if owner is None or view.find_renamed(owner) is None:
        return None
    return unreadable_error(view, owner, f"{kind}/{name}")


def _renamed_digest(store: Store, ref: str) -> KistoreError | None:
    """Return the error for a full digest whose object file was renamed by hand, if so.

    A plain add's object (not in ``HEAD``) ``mv``-ed to another name: the ``mv`` back is
    said (:meth:`kistore.store.View.find_renamed`, reviewer r90b F4), not "no object with
    digest prefix". None otherwise (a prefix too: which digest it meant is not known).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.digest import Digest, is_digest
    from ..query.answers import unreadable_error

    if not is_digest(ref):
        return None
    view = store.view()
    digest = Digest.from_str(ref)
    return None if view.find_renamed(digest) is None else unreadable_error(view, digest, ref)


def _no_such_name(store: Store, kind: str, name: str) -> str:
    """Say that the work tree holds no ``KIND/NAME``, and what was likely meant.

    First the same name held by another kind (``Workload/NAME`` of a run's name: the run,
    :meth:`kistore.store.Store.kinds_naming`), then the longest name of ``kind`` the name
    starts with, to a ``-`` or ``.`` (``Workload/sol-kernel-3`` for
    ``Workload/sol-kernel-3-submission-42126``: a run's name begins with its workload's),
    then names close to it (a typo, as git suggests a command); three at most (reviewer
    r90b F6: an unrelated ``sol-kernel-121`` was offered alone). Names are lowercase, so a
    name in capitals is compared in lowercase, and the answer says names are lowercase.
    With none, a metadata file edited in place to give it this name is what ``kistore
    reindex`` would find (the names lookup re-reads only shard directories that changed,
    docs/speed.md), so that is said.
    """
    # Lazy: difflib loads only to suggest a name after a miss.
    import difflib

    lowered = name.lower()
    held = [held for held_kind, held in store.view().names([kind]) if held_kind == kind]
    others = [f"{other}/{lowered}" for other in store.kinds_naming(lowered) if other != kind]
    starts = sorted((h for h in held if lowered.startswith(h) and lowered[len(h):][:1] in
                     ("-", ".")), key=len, reverse=True)[:1]
    # names are lowercase (the schema's pattern): SOL-KERNEL-1 is looked up as sol-kernel-1
    close = difflib.get_close_matches(lowered, held, n=3, cutoff=0.6)
    meant = list(dict.fromkeys([*others, *(f"{kind}/{c}" for c in [*starts, *close])]))[:3]
    if meant:
        cased = "; names are lowercase" if name != lowered else ""
        return (f"no {kind} named {name!r} in the work tree{cased}; did you mean "
                f"{' or '.join(meant)}?")
    return (f"no {kind} named {name!r} in the work tree; if a metadata file was edited in "
            "place to give it this name, run `kistore reindex` to read every file again")


def _work_tree_matches(store: Store, ref: str) -> bool:
    """Return True when an object file of the work tree matches digest or prefix ``ref``.

    Then a failed resolution was not about a deleted file: the prefix is ambiguous, or
    the object is there. (Resolving again to find out took an ambiguous prefix whose other
    match was not committed for a deleted file: "could not be read; run kistore verify".)
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.digest import parse_prefix
    from ..core.layout import OBJECTS_DIR, digest_from_path

    prefix = parse_prefix(ref)
    if prefix is None:
        return False
    shard = f"{OBJECTS_DIR}/{prefix[:2]}"
    return any(leaf.startswith(prefix[2:]) and digest_from_path(f"{shard}/{leaf}") is not None
               for leaf in store.view().list_dir(shard))  # not NAME.json.bak (r91 F5)


def warn_implementation_missing(rows: Iterable[Row]) -> None:
    """Say on stderr which ranked runs name no Implementation the store holds.

    The one place these words are: ``rank`` says them of each row it shows, ``show`` of the
    run it shows (until 2026-12-04 ``show`` said only "(not in the store)" beside the
    digest, and nothing of the role).

    Such a run (added with ``--allow-dangling``, pending in the work tree or committed) is
    ranked as a candidate: its project and role are unknown, so a reference
    implementation's run would be ranked too (reviewer r87: it ranked without a word). A
    record's role is None exactly then (:func:`kistore.index.records.describe`: the
    implementation's ``role``, ``candidate`` when it states none).

    Args:
        rows: the rows the answer shows (``show``: the run's own row of its group).
    """
    missing = [row.record for row in rows if row.rank is not None
               and row.record.implementation and row.record.role is None]
    if len(missing) == 1:
        r = missing[0]
        click.echo(f"warning: BenchmarkRun/{r.name} ({r.digest}) is ranked, but its "
                   f"implementationDigest {r.implementation} names no Implementation "
                   "this store holds: its project and role are unknown (a reference "
                   "implementation's run would rank as a candidate); add that "
                   "Implementation, or check the run's implementationDigest", err=True)
    elif missing:  # once, with a count (msg94 F10: ~400 characters a run, 22 times a board)
        shown = ", ".join(f"BenchmarkRun/{r.name}" for r in missing[:MISSING_SHOWN])
        more = f" and {len(missing) - MISSING_SHOWN} more" if len(missing) > MISSING_SHOWN \
            else ""
        click.echo(f"warning: {len(missing)} ranked runs ({shown}{more}) have an "
                   "implementationDigest naming no Implementation this store holds: their "
                   "project and role are unknown (a reference implementation's run would "
                   "rank as a candidate); add those Implementations, or check the runs' "
                   "implementationDigest (`kistore show RUN` names each)", err=True)


MISSING_SHOWN = 3
"""How many runs the one warning of many runs without their Implementation names."""
