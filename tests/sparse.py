"""Sparse clones of a small store, as ``git sparse-checkout`` makes them (issue 22).

docs/speed.md ("Ten million manifests") has contributors work in a blob-less, sparse
clone. :func:`sparse_clone` makes one of a store with one comparison group (the ``group``
fixture's manifests) in each of git's three ways: non-cone patterns, cone mode with a full
index, and cone mode with a sparse index (sparse directory entries, the ``sdir`` extension).
Only the shards of one manifest (``KEPT``: the run named ``slow``) are in the checkout.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from click.testing import CliRunner

from kistore.attest import attestation, notes, signing
from kistore.attest.trust import add_key
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from .conftest import commit_all, fixed_key, git, redate_history, store_file

MAINTAINER = fixed_key(2)
"""The maintainer :func:`trust_maintainer` trusts: its withdrawals (:func:`withdraw`) count."""

MODES = ("no-cone", "cone", "cone-sparse-index")
"""How :func:`sparse_clone` sets the checkout (``git sparse-checkout set ...``)."""

WIDE = {"cone-trust": ("--cone", "--no-sparse-index", "store/trust"),
        "no-cone-objects": ("--no-cone", "/*", "!/store/", "/store/objects/",
                            "/store/metadata/"),
        "cone-sparse-index-trust": ("--cone", "--sparse-index", "store/trust")}
"""Checkouts that leave a whole store directory out (``git sparse-checkout set ARGS``):
``store/trust`` only (cone mode, with a full index and with a sparse index), and the object
and metadata files only (non-cone: ``store/attestations/`` and the rest are out)."""


def shard_dirs(digest: str) -> list[str]:
    """The object and metadata shard directories of ``digest`` (repository paths)."""
    return [store_file(digest, base).rpartition("/")[0] for base in ("objects", "metadata")]


def sparse_clone(source: Path, target: Path, mode: str, kept: str) -> Path:
    """Clone ``source`` to ``target`` with only ``kept``'s shard directories checked out.

    Args:
        source: a store (a git work tree) with a commit on ``main``.
        target: where the clone goes.
        mode: one of :data:`MODES`.
        kept: the digest whose two shard directories are in the checkout.

    Returns:
        ``target``.
    """
    git(source.parent, "clone", "-q", "--no-checkout", str(source), str(target))
    dirs = shard_dirs(kept)
    if mode == "no-cone":
        git(target, "sparse-checkout", "set", "--no-cone", "/*",
            "!/store/objects/sha256/*/", "!/store/metadata/sha256/*/",
            *(f"/{d}/" for d in dirs))
    elif mode == "cone":
        git(target, "sparse-checkout", "set", "--cone", "--no-sparse-index", *dirs)
    else:
        git(target, "sparse-checkout", "set", "--cone", "--sparse-index", *dirs)
    git(target, "checkout", "-q", "main")
    return target


def sparse_clone_set(source: Path, target: Path, *args: str) -> Path:
    """Clone ``source`` to ``target`` checked out by ``git sparse-checkout set ARGS``.

    Args:
        source: a store (a git work tree) with a commit on ``main``.
        target: where the clone goes.
        args: the patterns and options (one of :data:`WIDE`'s values).

    Returns:
        ``target``.
    """
    git(source.parent, "clone", "-q", "--no-checkout", str(source), str(target))
    git(target, "sparse-checkout", "set", *args)
    git(target, "checkout", "-q", "main")
    return target


def skipped(root: Path) -> set[str]:
    """The paths ``git ls-files -t --sparse`` marks skip-worktree (``S``)."""
    listed = git(root, "ls-files", "-t", "-z", "--sparse").split("\0")
    return {line[2:] for line in listed if line.startswith("S ")}


def trust_maintainer(store: Store) -> None:
    """Trust :data:`MAINTAINER` as a maintainer in ``store`` and commit that.

    The history is then dated 2026-01-01, so that the key counts before anything attested
    later (:func:`withdraw`'s statements are made 2026-07-10).
    """
    add_key(store.root, signing.public_key_line(MAINTAINER.public_key()), ["maintainer"])
    commit_all(store.root, "trust")
    redate_history(store.root, "2026-01-01T00:00:00Z")


def withdraw(store: Store, subject: Digest, *, as_file: bool) -> str:
    """Withdraw the run ``subject`` (a harness bug) by :data:`MAINTAINER`'s signed statement.

    Args:
        store: the store (its work tree's or ``HEAD``'s object is attested).
        subject: the run's digest.
        as_file: an attestation file under ``store/attestations/`` (uncommitted), else a
            note on the object's blob.

    Returns:
        Where it went (:func:`kistore.attest.notes.attach`): the file's repository path, or
        the note's.
    """
    statement = attestation.make_statement(
        subject, layout.object_path(subject), "withdrawal",
        {"reason": "harness bug", "createdAt": "2026-07-10T00:00:00Z"})
    return notes.attach(store, subject,
                        attestation.sign_statement(statement, MAINTAINER).to_bytes(),
                        as_file=as_file)


def answers(root: Path, queries: Sequence[tuple[str, ...]]) -> list[tuple[int, str, str]]:
    """Run each of ``queries`` (``kistore --store ROOT QUERY``): exit code, stdout, stderr."""
    found = []
    for query in queries:
        result = CliRunner().invoke(main, ["--store", str(root), *query])
        found.append((result.exit_code, result.stdout, result.stderr))
    return found
