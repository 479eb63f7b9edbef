"""The shard trees a 1-manifest pull request's gate reads (issue 22, gate99).

At 1,000,000 manifests a shard tree (``store/objects/sha256/XX``, ``store/metadata/...``,
``store/names/KIND/XX``) holds ~3,900 entries, ~370 KB, and each read of one costs its
inflate, its delta chain and libgit2's hash: what is left of the gate's cost at scale
(docs/speed.md). This pins which shard trees the gate of a run reads and why, so that a
rule reading one more (or the same one again) shows here:

* the diff: the four shards the run writes (object, metadata, names, group), at HEAD and
  at BASE;
* its four references (KI201, KI202, KI218, KI238, the comparison key): each one's object
  shard, never its metadata shard (:func:`kistore.check._focus.entry_at`: a name is read
  only for a message);
* the other runs of its comparison group (KI232): each one's object shard.
"""

from __future__ import annotations

import re
from collections import Counter

import pygit2
from pygit2.repository import BaseRepository

from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.model import Manifest

from ..conftest import add_docs, git
from .test_claims import BOARD, _native

SHARD = re.compile(r"store/(?:objects|metadata|groups)/sha256/[0-9a-f]{2}|store/names/[^/]+/[^/]+")
"""A shard tree's path: the level that grows with the store (its entries are the files)."""


def _trees(root, rev: str) -> dict[str, str]:
    """Map each shard tree id of ``rev`` to ``REV:PATH``."""
    listed = git(root, "ls-tree", "-r", "-t", rev).splitlines()
    return {oid: f"{rev}:{path}" for mode, kind, oid, path in
            (line.replace("\t", " ").split(" ", 3) for line in listed)
            if kind == "tree" and SHARD.fullmatch(path)}


def shard_reads(store, spec: str, monkeypatch) -> tuple[list, Counter]:
    """Run the gate of ``spec``; return its findings and each shard tree asked for, counted.

    The repository is packed first, as a clone is (a loose tree is read by kistore's own
    guard, not libgit2). Every read of an object by id is counted: a lookup (``repo[oid]``:
    a pygit2 object) and a raw read (``repo.odb.read``: the diff's listings), each tree
    named ``REV:PATH`` at the range's HEAD (``H``) or BASE (``B``). A count is of asks, not
    of reads from the pack: libgit2 keeps a tree read once in its cache
    (:data:`kistore.git.opening.TREE_CACHE_LIMIT`), a raw read's for a lookup too (not the
    other way round: docs/speed.md, gate99).
    """
    git(store.root, "repack", "-adq")
    git(store.root, "prune-packed")
    base, head = spec.split("..")
    named = {**_trees(store.root, base), **_trees(store.root, head)}
    rename = {base: "B", head: "H"}
    read: Counter = Counter()

    def seen(oid) -> None:
        where = named.get(str(oid))
        if where is not None:
            rev, _, path = where.partition(":")
            read[f"{rename[rev]}:{path}"] += 1

    lookup = pygit2.Repository.git_object_lookup_prefix

    def looked_up(self, key):
        seen(key)
        return lookup(self, key)

    class Odb:  # repo.odb, its raw reads counted
        def __init__(self, odb):
            self.odb = odb

        def read(self, oid):
            seen(oid)
            return self.odb.read(oid)

        def __contains__(self, oid):
            return oid in self.odb

        def __getattr__(self, name):
            return getattr(self.odb, name)

    odb = pygit2.Repository.odb
    monkeypatch.setattr(BaseRepository, "git_object_lookup_prefix", looked_up)
    monkeypatch.setattr(BaseRepository, "odb", property(lambda repo: Odb(odb.__get__(repo))))
    try:
        findings = check_range(store, spec)
    finally:
        monkeypatch.undo()
    return findings, read


def _shard(directory: str, digest_hex: str, rev: str = "H") -> str:
    return f"{rev}:{directory}/{digest_hex[:2]}"


def test_a_run_reads_its_shards_its_references_objects_and_its_groups_runs(
        store, kit, monkeypatch):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload(BOARD)
    impl = kit.implementation("p", name="i")
    members = [kit.run(protocol, env, impl, workload, latency=10_000 + i,
                       name=f"sol-submission-{2000 + i}", native=_native(str(2000 + i), 0.5))
               for i in range(3)]
    add_docs(store, [protocol, env, workload, impl, *members])
    base = git(store.root, "rev-parse", "HEAD").strip()
    new = kit.run(protocol, env, impl, workload, latency=20_000, name="sol-submission-3000",
                  native=_native("3000", 0.6))
    add_docs(store, [new])
    head = git(store.root, "rev-parse", "HEAD").strip()
    run = Manifest.from_document(new)
    refs = [Manifest.from_document(d).digest.hex for d in (protocol, env, workload, impl)]
    others = [Manifest.from_document(d).digest.hex for d in members]
    names_dir = layout.name_path("BenchmarkRun", "sol-submission-3000").rsplit("/", 1)[0]
    [group_file] = [p for p in git(store.root, "diff", "--name-only", base, head).split()
                    if p.startswith(layout.GROUPS_DIR)]
    written = [f"{layout.OBJECTS_DIR}/{run.digest.hex[:2]}",
               f"{layout.METADATA_DIR}/{run.digest.hex[:2]}", names_dir,
               group_file.rsplit("/", 2)[0]]
    present = {"B": set(_trees(store.root, base).values()),
               "H": set(_trees(store.root, head).values())}
    expected = {f"{rev}:{path}" for path in written for rev in ("H", "B")
                if f"{base if rev == 'B' else head}:{path}" in present[rev]}
    expected |= {_shard(layout.OBJECTS_DIR, h) for h in refs + others}

    findings, read = shard_reads(store, f"{base}..{head}", monkeypatch)

    assert findings == []
    assert set(read) == expected
    assert not {_shard(layout.METADATA_DIR, h) for h in refs + others} - {
        _shard(layout.METADATA_DIR, run.digest.hex)} & set(read)  # names only for messages
    # at most: the four written shards at HEAD and BASE, four references, three runs (here
    # fewer: a shard the run writes may be new, or one of another manifest's)
    assert len(read) <= 8 + 4 + 3


def test_a_reference_named_in_a_finding_has_its_name_read_then(store, kit, monkeypatch):
    """KI218 names the run's protocol: its metadata file is read for that message, and no
    other reference's."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload(BOARD)
    impl = kit.implementation("p", name="i")
    add_docs(store, [protocol, env, workload, impl])
    base = git(store.root, "rev-parse", "HEAD").strip()
    odd = kit.run(protocol, env, impl, workload, latency=20_000, name="odd-statistic")
    odd["spec"]["timing"] = {"primaryStatistic": "median", "latencyNs": {"median": 20_000}}
    add_docs(store, [odd])
    head = git(store.root, "rev-parse", "HEAD").strip()
    protocol_hex = Manifest.from_document(protocol).digest.hex
    run_hex = Manifest.from_document(odd).digest.hex

    findings, read = shard_reads(store, f"{base}..{head}", monkeypatch)

    [said] = [f for f in findings if f.rule.id == "KI218"]
    assert f"BenchmarkProtocol/{protocol['metadata']['name']} (sha256:{protocol_hex})" \
        in said.message
    assert {p for p in read if p.startswith(f"H:{layout.METADATA_DIR}/")} == {
        _shard(layout.METADATA_DIR, protocol_hex), _shard(layout.METADATA_DIR, run_hex)}
