"""The query index follows ``[limits] manifest-bytes``: a file past it is left out, without reindex.

Review 2026-12-02 (F2): lowering the limit in kistore.toml (committed) was not seen by an
index built before: ``rank`` and ``show`` kept serving a manifest ``verify`` reported as
KI106, until ``kistore reindex``; and a fresh clone's ``show`` said the manifest "could
not be read", its digest twice, with no rule nor what to do. The index now records the
limit its rows were made under (and a key of the settings it was read from), and reads
again only the manifests a new limit changes.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.index import index as index_module
from kistore.index._database import index_path
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, git
from ..query.test_query_cli import run

SETTINGS = b"[store]\nversion = 1\n"


@pytest.fixture
def padded(tmp_path):
    """A committed store of three runs; run-1's object file is 1,000+ bytes, the others ~560.

    Returns:
        (the store, run-1's digest, the size of its object file).
    """
    docs = ManifestKit().group_docs([{"note": "y" * (700 if i == 1 else 1)} for i in range(3)])
    Store.init(tmp_path / "store")
    store = Store(tmp_path / "store")
    digests = add_docs(store, docs)
    big = Digest.from_str(digests[6])
    size = (store.root / layout.object_path(big)).stat().st_size
    assert size > 1000
    assert max((store.root / layout.object_path(Digest.from_str(d))).stat().st_size
               for d in digests if d != str(big)) < 700
    return store, big, size


def set_limit(store, limit, *, commit=True):
    """Write ``manifest-bytes = limit`` into the store's kistore.toml (and commit it)."""
    (store.root / "kistore.toml").write_bytes(
        SETTINGS + (f"[limits]\nmanifest-bytes = {limit}\n".encode() if limit else b""))
    if commit:
        git(store.root, "commit", "-qm", f"manifest-bytes = {limit}", "kistore.toml")


def ranked(runner, root, *at):
    result = run(runner, root, "rank", "BenchmarkRun/run-0", "--json", *at)
    assert result.exit_code == 0, result.output
    return [r["name"] for r in json.loads(result.stdout)], result.stderr


def too_large(big, size, limit):
    return (f"the object file holds {size:,} bytes, more than the limit of {limit:,} "
            "(manifest-bytes); `kistore verify` reports KI106; it is left out while the limit "
            "stands: raise [limits] manifest-bytes in kistore.toml if this size is meant")


def test_lowering_manifest_bytes_leaves_a_manifest_out_without_reindex(runner, padded,
                                                                      monkeypatch):
    store, big, size = padded
    assert ranked(runner, store.root) == (["run-0", "run-1", "run-2"], "")
    read: list[list[str]] = []
    real = index_module.read_manifests

    def counting(repo, tree, digests, *args, **kwargs):
        if digests:  # (the commit of kistore.toml changed no manifest: [] is read)
            read.append(sorted(str(d) for d in digests))
        return real(repo, tree, digests, *args, **kwargs)

    monkeypatch.setattr(index_module, "read_manifests", counting)
    set_limit(store, 1000)
    path = layout.object_path(big)
    for at in ([], ["--at", "HEAD"]):
        names, warned = ranked(runner, store.root, *at)
        assert names == ["run-0", "run-2"], at
        assert warned.splitlines() == [
            f"warning: 1 manifest(s) committed at HEAD do not verify and are left out: {big}; "
            f"run `kistore verify{' --at HEAD' if at else ''}`",
            f"warning: {path}: {too_large(big, size, 1000)}"], at
    # only the manifest past the new limit was read again (its size from its blob's header)
    assert read == [[str(big)]]
    shown = run(runner, store.root, "show", "BenchmarkRun/run-1")
    assert (shown.exit_code, shown.stdout) == (1, "")
    assert shown.stderr == f"error: {path}: {too_large(big, size, 1000)}\n"
    verified = run(runner, store.root, "verify")
    assert verified.exit_code == 1 and f"{path}: error KI106 file-too-large" in verified.stdout
    # raised again (not even committed): the manifest left out, and only it, is read again
    read.clear()
    set_limit(store, 4096, commit=False)
    assert ranked(runner, store.root) == (["run-0", "run-1", "run-2"], "")
    assert read == [[str(big)]]
    # another edit of kistore.toml that keeps the limit reads nothing
    (store.root / "kistore.toml").write_bytes((store.root / "kistore.toml").read_bytes()
                                              + b"# a comment\n")
    read.clear()
    assert ranked(runner, store.root) == (["run-0", "run-1", "run-2"], "")
    assert read == []


def test_an_index_from_before_the_limit_was_recorded_is_brought_under_it(runner, padded):
    store, big, size = padded
    assert ranked(runner, store.root)[0] == ["run-0", "run-1", "run-2"]
    with sqlite3.connect(index_path(store.git_dir)) as conn:  # as an earlier kistore left it
        conn.execute("DELETE FROM meta WHERE key IN ('limit', 'settings')")
    conn.close()
    set_limit(store, 1000)
    names, warned = ranked(runner, store.root)
    assert names == ["run-0", "run-2"]
    assert warned.splitlines()[1] == f"warning: {layout.object_path(big)}: " + too_large(
        big, size, 1000)


def test_a_fresh_clone_says_which_limit_leaves_a_manifest_out_and_what_to_do(
        runner, padded, tmp_path):
    store, big, size = padded
    set_limit(store, 1000)
    path = layout.object_path(big)
    said = f"error: {path}: {too_large(big, size, 1000)}\n"
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(store.root), str(clone))
    for ref in ("BenchmarkRun/run-1", str(big), str(big)[7:19]):
        shown = run(runner, clone, "show", ref)
        # said once: the rule, the limit and what to do; the digest only in the path
        assert (shown.exit_code, shown.stdout, shown.stderr) == (1, "", said), ref
    asked = run(runner, clone, "rank", str(big))
    assert (asked.exit_code, asked.stderr) == (1, said)
    bare = tmp_path / "bare.git"  # HEAD's kistore.toml: the limits of a bare repository
    git(tmp_path, "clone", "-q", "--bare", str(store.root), str(bare))
    assert ranked(runner, bare)[0] == ["run-0", "run-2"]
    assert run(runner, bare, "show", "BenchmarkRun/run-1").stderr == said
