"""What an add or a migration commits is a store that verifies (review r75, findings 4, 5).

* An earlier run stored with ``--allow-dangling`` names a digest; the manifest of that digest
  must arrive as the kind the run's field names (KI202). ``add`` checked only the runs it
  added, so the wrong kind went in and ``verify``/``check`` failed ever after; now the add
  refuses, naming the earlier run, its file and field, and the kind expected.
* ``add --commit`` committed the group file of an earlier run that HEAD does not hold (it
  was added without ``--commit``): HEAD put into a comparison group a run it lacks (KI216).
  Now that group file is written in the work tree beside its run and left out of the
  commit; the run's own ``add --commit`` commits it. A run naming a manifest that only the
  work tree holds is refused by ``add --commit`` (HEAD would lack the manifest and the
  run's forward record, KI213).
* ``migrate --commit`` committed names files of manifests only the work tree held (KI212 at
  HEAD); now it refuses while any manifest is uncommitted, naming them.
"""

from __future__ import annotations

import json
from pathlib import Path

from kistore.cli import main
from kistore.core import layout
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, commit_all, git, group_files, snapshot, write_raw


def add_file(runner, root: Path, docs: list[dict], *args: str):
    path = root.parent / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return runner.invoke(main, ["--store", str(root), "add", *args, str(path)])


def head_files(root: Path) -> set[str]:
    return set(git(root, "ls-tree", "-r", "--name-only", "HEAD").split())


def clean(runner, root: Path, *args: str) -> None:
    done = runner.invoke(main, ["--store", str(root), *args])
    assert done.exit_code == 0, (args, done.output)


# -- finding 4: an earlier dangling reference answered with the wrong kind --------------------

def parts(store, kit: ManifestKit):
    """Committed protocol, environment, workload and implementation; a run whose
    workloadDigest names an ExecutionEnvironment not stored yet (committed, dangling)."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation(name="impl")
    add_docs(store, [protocol, env, workload, impl])
    trap = kit.environment("NVIDIA L40", name="late-env")
    run = kit.run(protocol, env, impl, workload, latency=5, name="waits")
    run["spec"]["workloadDigest"] = kit.digest(trap)
    add_docs(store, [run], allow_dangling=True)
    return run, trap


def test_add_refuses_a_manifest_answering_an_earlier_dangling_reference_with_another_kind(
        runner, store, kit):
    run, trap = parts(store, kit)
    root = Path(store.root)
    before, head = snapshot(root), git(root, "rev-parse", "HEAD")
    run_digest = kit.digest(run)
    run_file = layout.object_path(Manifest.from_document(run).digest)
    for args in ((), ("--commit",)):
        refused = add_file(runner, root, [trap], *args)
        assert refused.exit_code == 1, refused.output
        assert refused.stderr.splitlines()[0] == (
            f"error: {root.parent / 'docs.jsonl'}:1:1:/kind: ExecutionEnvironment late-env "
            f"({kit.digest(trap)}) answers the dangling reference of the earlier BenchmarkRun "
            f"waits ({run_digest}): {run_file}:/spec/workloadDigest names this digest and "
            "must name a Workload, not an ExecutionEnvironment (`kistore verify` would report "
            "KI202 on the run); a stored run never changes, so this manifest cannot be added "
            "while that run is stored: check which digest the run meant")
        assert snapshot(root) == before  # nothing written
        assert git(root, "rev-parse", "HEAD") == head
    clean(runner, root, "verify")


def test_the_right_kind_answering_an_earlier_dangling_reference_is_added(runner, store, kit):
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation(name="impl")
    workload = kit.workload(name="late-workload")
    add_docs(store, [protocol, env, impl])
    add_docs(store, [kit.run(protocol, env, impl, workload, latency=5, name="waits")],
             allow_dangling=True)
    done = add_file(runner, Path(store.root), [workload], "--commit")
    assert done.exit_code == 0, done.output
    clean(runner, Path(store.root), "verify", "--at", "HEAD")
    clean(runner, Path(store.root), "check", "HEAD~1..HEAD")


def test_a_bulk_add_finds_the_earlier_run_through_the_forward_shards(runner, store, kit,
                                                                     monkeypatch):
    from kistore.store import admission

    monkeypatch.setattr(admission, "BULK_LOOKUP", 2)  # the shard-listing path, with 3 arriving
    _, trap = parts(store, kit)
    refused = add_file(runner, Path(store.root),
                       [trap, kit.workload("other"), kit.implementation("other")])
    assert refused.exit_code == 1
    assert "answers the dangling reference of the earlier BenchmarkRun waits" in \
        refused.stderr


# -- finding 5: a commit holds only what HEAD can back --------------------------------------

def waiting_run(store, kit: ManifestKit):
    """A committed environment, workload and implementation; a new protocol (not stored),
    a run naming it, and the environment."""
    env, workload, impl = kit.environment(), kit.workload(), kit.implementation(name="impl")
    add_docs(store, [env, workload, impl])
    protocol = kit.protocol(name="proto-later")
    return protocol, kit.run(protocol, env, impl, workload, latency=5, name="waits"), env


def test_plain_add_then_add_commit_leaves_the_uncommitted_runs_group_file_in_the_work_tree(
        runner, store, kit):
    protocol, run, env = waiting_run(store, kit)
    root = Path(store.root)
    assert add_file(runner, root, [run], "--allow-dangling").exit_code == 0  # A: uncommitted
    done = add_file(runner, root, [protocol], "--commit")  # B
    assert done.exit_code == 0, done.output
    p, r = Manifest.from_document(protocol), Manifest.from_document(run)
    (group_path, record), = group_files([r], [p, Manifest.from_document(env)]).items()
    assert (root / group_path).read_bytes() == record  # the run's group, in the work tree
    assert group_path not in head_files(root)  # ... not in the commit
    assert git(root, "diff-tree", "-r", "--name-only", "--no-commit-id", "HEAD").split() == \
        sorted([layout.object_path(p.digest), layout.metadata_path(p.digest),
                layout.name_path(p.kind, p.name)])
    clean(runner, root, "verify", "--at", "HEAD")
    clean(runner, root, "check", "HEAD~1..HEAD")
    clean(runner, root, "verify")  # the work tree: the run with its group file
    # the run's own add --commit commits its group file with it
    done = add_file(runner, root, [run], "--commit")
    assert done.exit_code == 0, done.output
    assert group_path in head_files(root)
    # left untracked: the run's forward record from its plain add (a commit may add no record
    # of a reference its parent already answers, KI417)
    assert git(root, "status", "--porcelain", "-uall", "store") == \
        f"?? {layout.forward_path(p.digest, r.digest)}\n"
    clean(runner, root, "verify", "--at", "HEAD")
    clean(runner, root, "check", "HEAD~1..HEAD")


def test_add_commit_of_a_run_naming_an_uncommitted_manifest_is_refused(runner, store, kit):
    protocol, run, env = waiting_run(store, kit)
    root = Path(store.root)
    assert add_file(runner, root, [protocol]).exit_code == 0  # plain add: not committed
    before, head = snapshot(root), git(root, "rev-parse", "HEAD")
    refused = add_file(runner, root, [run], "--commit")
    assert refused.exit_code == 1
    assert refused.stderr.splitlines()[0] == (
        f"error: {root.parent / 'docs.jsonl'}:1:1:/spec: BenchmarkRun waits "
        f"({kit.digest(run)}) names manifests that are in the work tree but not committed: "
        f"protocolDigest={kit.digest(protocol)}; a commit holding the run without them fails "
        "`kistore verify --at HEAD` and the gate (KI213): commit them first (`kistore add "
        "--commit FILE` of their files, or `git add store && git commit`), or give their "
        "files to this same `add --commit`")
    assert snapshot(root) == before and git(root, "rev-parse", "HEAD") == head
    # as it says: both in one add --commit
    done = add_file(runner, root, [protocol, run], "--commit")
    assert done.exit_code == 0, done.output
    assert git(root, "status", "--porcelain", "store") == ""
    clean(runner, root, "verify", "--at", "HEAD")
    clean(runner, root, "check", "HEAD~1..HEAD")


def old_layout(store, kit: ManifestKit) -> list[Manifest]:
    """Committed manifests with no names files (a store from before names were paths)."""
    manifests = [Manifest.from_document(d) for d in (kit.protocol(name="p"),
                                                      kit.environment(name="e"))]
    for m in manifests:
        write_raw(Path(store.root), layout.object_path(m.digest), m.object_bytes)
        write_raw(Path(store.root), layout.metadata_path(m.digest), m.metadata_bytes)
    commit_all(Path(store.root), "before names were paths")
    return manifests


def test_migrate_commit_refuses_while_a_manifest_is_not_committed(runner, store, kit):
    old_layout(store, kit)
    root = Path(store.root)
    pending = Manifest.from_document(kit.environment("NVIDIA L4", name="pending-env"))
    write_raw(root, layout.object_path(pending.digest), pending.object_bytes)  # a plain add's
    write_raw(root, layout.metadata_path(pending.digest), pending.metadata_bytes)
    before, head = snapshot(root), git(root, "rev-parse", "HEAD")
    refused = runner.invoke(main, ["--store", str(root), "migrate", "--commit"])
    assert refused.exit_code == 1
    assert refused.stderr.splitlines()[0] == (
        f"error: 1 manifest(s) in the work tree are not committed (HEAD lacks their object "
        f"or metadata file, or holds other bytes): {pending.digest}. A migration commit would "
        "hold names files and group files for them, which `kistore verify --at HEAD` and the "
        "gate refuse (KI212, KI216): commit them first (`git add store && git commit`, or "
        "add them again with `kistore add --commit FILE`), or remove them, or run `kistore "
        "migrate` without --commit; nothing was written")
    assert snapshot(root) == before and git(root, "rev-parse", "HEAD") == head
    # metadata replaced without --commit counts too
    git(root, "add", "store")
    git(root, "commit", "-qm", "the pending one")
    changed = json.loads(pending.metadata_bytes)
    changed["title"] = "a new title"
    write_raw(root, layout.metadata_path(pending.digest),
              json.dumps(changed, separators=(",", ":"), sort_keys=True).encode())
    refused = runner.invoke(main, ["--store", str(root), "migrate", "--commit"])
    assert refused.exit_code == 1 and str(pending.digest) in refused.stderr
    git(root, "checkout", "--", "store")
    done = runner.invoke(main, ["--store", str(root), "migrate", "--commit"])
    assert done.exit_code == 0, done.output
    assert git(root, "status", "--porcelain", "store") == ""
    clean(runner, root, "verify", "--at", "HEAD")


def test_plain_migrate_still_writes_for_an_uncommitted_manifest(store, kit):
    old_layout(store, kit)
    root = Path(store.root)
    pending = Manifest.from_document(kit.environment("NVIDIA L4", name="pending-env"))
    write_raw(root, layout.object_path(pending.digest), pending.object_bytes)
    write_raw(root, layout.metadata_path(pending.digest), pending.metadata_bytes)
    written = Store(root).migrate()
    assert layout.name_path(pending.kind, pending.name) in {w.path for w in written}
