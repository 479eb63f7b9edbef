"""Comparison groups as paths (issue 22): each run whose comparison key is known is a file.

``add`` (work tree, ``--commit``, import) writes
``store/groups/sha256/<XX>/<62 hex of K>/<64 hex of R>`` holding the run's key object's
RFC 8785 bytes (sha256 = K) when the key becomes known: with the run, or with the protocol
or environment that completes it (found through the forward records). ``migrate`` writes
every missing one; ``verify`` holds group files and runs to each other (KI215, KI216), a
group file never changes (KI410), and the gate judges an arriving protocol's earlier runs
without listing the tree.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from kistore.check import verify
from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest
from kistore.store import CommitView, Store

from ..conftest import ManifestKit, add_docs, commit_all, git, group_files, write_raw


def found(findings, *rules):
    return sorted((f.rule.id, f.file, f.pointer) for f in findings if f.rule.id in rules)


def errors(findings):
    return sorted((f.rule.id, f.file) for f in findings if f.severity == "error")


def _hex(doc) -> str:
    return Manifest.from_document(doc).digest.hex


def _group(kit: ManifestKit):
    p, e, i, w = kit.protocol(), kit.environment(), kit.implementation(), kit.workload()
    runs = [kit.run(p, e, i, w, latency=10 + n, name=f"run-{n}") for n in range(2)]
    return p, e, i, w, runs


def _key_bytes(p, w) -> bytes:
    """The key object of the kit's runs, written out: family, product, statistic, digests."""
    return (b'{"family":"synthetic","hardwareProduct":"NVIDIA H100","primaryStatistic":'
            b'"mean","protocolDigest":"sha256:' + _hex(p).encode() +
            b'","workloadDigest":"sha256:' + _hex(w).encode() + b'"}')


def _group_tree(root) -> dict[str, bytes]:
    base = root / layout.GROUPS_DIR
    return {str(f.relative_to(root)): f.read_bytes() for f in sorted(base.rglob("*"))
            if f.is_file()} if base.exists() else {}


def test_an_add_writes_each_runs_group_file_by_hand(store_path, kit):
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w, *runs])
    data = _key_bytes(p, w)
    key = hashlib.sha256(data).hexdigest()
    assert _group_tree(store_path) == {
        f"store/groups/sha256/{key[:2]}/{key[2:]}/{_hex(r)}": data for r in runs}
    assert git(store_path, "status", "--porcelain") == ""  # committed with the runs
    # every member shares one blob
    blobs = {git(store_path, "rev-parse", f"HEAD:{p}").strip() for p in _group_tree(store_path)}
    assert len(blobs) == 1
    assert not errors(verify(store))


def test_work_tree_and_commit_write_the_same_bytes(tmp_path, kit):
    p, e, i, w, runs = _group(kit)
    trees = []
    for commit in (False, True):
        root = tmp_path / str(commit)
        store = Store.init(root)
        add_docs(store, [p, runs[0]], commit=commit, allow_dangling=True)  # key unknown
        assert _group_tree(root) == {}
        add_docs(store, [e, runs[1]], commit=commit, allow_dangling=True)  # now known
        trees.append({str(f.relative_to(root)): f.read_bytes()
                      for f in (root / "store").rglob("*") if f.is_file()})
    assert trees[0] == trees[1]
    expected = group_files([Manifest.from_document(d) for d in (p, e, *runs)])
    assert {k: v for k, v in trees[0].items() if k.startswith("store/groups/")} == expected
    assert len(expected) == 2


def test_a_late_protocol_writes_the_earlier_runs_group_files(store_path, kit):
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [e, i, w, *runs], allow_dangling=True)  # the protocol is missing
    assert _group_tree(store_path) == {}
    assert not errors(verify(store))
    add_docs(store, [p])
    data = _key_bytes(p, w)
    key = hashlib.sha256(data).hexdigest()
    assert _group_tree(store_path) == {
        f"store/groups/sha256/{key[:2]}/{key[2:]}/{_hex(r)}": data for r in runs}
    assert not errors(verify(store))


def test_a_key_without_the_hardware_needs_no_environment(store_path, kit):
    p = kit.protocol(key_fields=["family", "primaryStatistic", "workloadDigest"])
    e, i, w = kit.environment(), kit.implementation(), kit.workload()
    run = kit.run(p, e, i, w, latency=3)
    store = Store(store_path)
    add_docs(store, [p, i, w, run], allow_dangling=True)  # no environment: key still known
    data = (b'{"family":"synthetic","primaryStatistic":"mean","workloadDigest":"sha256:' +
            _hex(w).encode() + b'"}')
    key = hashlib.sha256(data).hexdigest()
    assert _group_tree(store_path) == {
        f"store/groups/sha256/{key[:2]}/{key[2:]}/{_hex(run)}": data}
    add_docs(store, [e])  # arrives later: the key does not change, nothing is written
    assert len(_group_tree(store_path)) == 1
    assert not errors(verify(store))


def test_a_missing_group_file_is_ki215_on_the_run(store_path, kit):
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w, *runs])
    path = next(iter(group_files([Manifest.from_document(d) for d in (p, e, runs[0])])))
    (store_path / path).unlink()
    findings = verify(store)
    obj = layout.object_path(Digest(_hex(runs[0])))
    assert found(findings, "KI215", "KI216") == [("KI215", obj, "/spec")]
    assert found(verify(store, "HEAD"), "KI215") == []  # committed: HEAD still has it
    commit_all(store_path, "remove a group file")
    assert found(verify(store), "KI410") == [("KI410", path, None)]


@pytest.mark.parametrize("change", ["bytes", "newline", "other-group", "no-run", "unknown"])
def test_a_group_file_that_disagrees_is_ki216(store_path, kit, change):
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w, runs[0]])
    good = next(iter(group_files([Manifest.from_document(d) for d in (p, e, runs[0])])))
    data = (store_path / good).read_bytes()
    key = Digest(hashlib.sha256(data).hexdigest())
    if change == "bytes":  # same key path, other bytes (not canonical)
        path, written = good, json.dumps(json.loads(data), indent=1).encode()
    elif change == "newline":
        path, written = good, data + b"\n"
    elif change == "other-group":  # the run put in another group, bytes of that group
        other = {"family": "other"}
        written = layout.group_record(other)
        path = layout.group_path(Digest(hashlib.sha256(written).hexdigest()),
                                 Digest(_hex(runs[0])))
    elif change == "no-run":  # a run that is not stored
        path, written = layout.group_path(key, Digest(_hex(runs[1]))), data
    else:  # a stored run whose protocol is missing: its key is not known
        q = kit.protocol(family="late")
        late = kit.run(q, e, i, w, latency=4, name="late")
        add_docs(store, [late], allow_dangling=True)
        path, written = layout.group_path(key, Digest(_hex(late))), data
    write_raw(store_path, path, written)
    findings = verify(store)
    assert [x[:2] for x in found(findings, "KI216")] == [("KI216", path)]
    assert found(findings, "KI110") == []
    if change == "other-group":  # its own group file is still there: no KI215
        assert found(findings, "KI215") == []


def test_paths_off_the_layout_under_store_groups_are_ki110(store_path):
    store = Store(store_path)
    for bad in ("store/groups/sha256/ab/" + "ab" * 31 + "/not-a-run",
                "store/groups/sha256/ab/" + "ab" * 31 + "/" + "cd" * 32 + ".json",
                "store/groups/README"):
        write_raw(store_path, bad, b"{}")
        assert ("KI110", bad, None) in found(verify(store), "KI110"), bad


def test_migrate_writes_the_group_files_an_add_would(store_path, kit):
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w, *runs], commit=False)
    before = _group_tree(store_path)
    assert len(before) == 2
    shutil.rmtree(store_path / "store" / "groups")  # a store from before group files
    commit_all(store_path, "a store of the earlier layout")
    assert [x[0] for x in found(verify(store), "KI215")] == ["KI215"] * 2
    written = store.migrate(commit=True)
    assert sorted(w.path for w in written) == sorted(before)
    assert _group_tree(store_path) == before
    assert store.migrate(commit=True) == []  # idempotent
    assert not errors(verify(store))


def test_the_gate_refuses_a_run_without_its_group_file_and_a_rewritten_one(store_path, kit):
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w, runs[0]])
    base = git(store_path, "rev-parse", "HEAD").strip()
    add_docs(store, [runs[1]], commit=False)
    path = next(iter(group_files([Manifest.from_document(runs[1])],
                                 [Manifest.from_document(d) for d in (p, e)])))
    (store_path / path).unlink()
    head = commit_all(store_path, "a run without its group file")
    assert found(check_range(store, f"{base}..{head}"), "KI215") == [
        ("KI215", layout.object_path(Digest(_hex(runs[1]))), "/spec")]
    git(store_path, "reset", "-q", "--hard", base)
    first = next(iter(group_files([Manifest.from_document(runs[0])],
                                  [Manifest.from_document(d) for d in (p, e)])))
    (store_path / first).unlink()
    head = commit_all(store_path, "a group file deleted")
    assert found(check_range(store, f"{base}..{head}"), "KI410") == [("KI410", first, None)]


@pytest.mark.parametrize("with_files", [True, False], ids=["with-group-files", "without"])
def test_a_late_protocol_in_a_pull_request_never_lists_the_tree(
        store_path, kit, monkeypatch, with_files):
    """The protocol arrives: its forward directory names the runs whose key it completes."""
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [e, i, w, *runs], allow_dangling=True)
    base = git(store_path, "rev-parse", "HEAD").strip()
    add_docs(store, [p], commit=False)
    if not with_files:  # a hand-made pull request: the protocol alone
        shutil.rmtree(store_path / "store" / "groups")
    head = commit_all(store_path, "the protocol arrives")
    whole = check_range(store, f"{base}..{head}", whole_tree=True)

    def listed(*args, **kwargs):
        raise AssertionError("the gate listed every file of the tree")

    monkeypatch.setattr(CommitView, "files", listed)
    fast = check_range(store, f"{base}..{head}")
    assert [(f.rule.id, f.file, f.pointer) for f in fast] == \
        [(f.rule.id, f.file, f.pointer) for f in whole]
    expected = [] if with_files else sorted(
        ("KI215", layout.object_path(Digest(_hex(r)))) for r in runs)
    assert errors(fast) == expected


def test_the_checkers_group_file_is_the_layouts():
    """check/_groups.py builds paths without digest objects: the layout's, all the same."""
    from kistore.check._groups import expected_file, is_group_path
    from kistore.core.comparison import comparison_key

    obj = {"family": "f", "workloadDigest": "sha256:" + "2" * 64}
    got = expected_file("cd" * 32, obj, {})
    key = hashlib.sha256(layout.group_record(obj)).hexdigest()
    assert got.path == layout.group_path(Digest(key), Digest("cd" * 32))
    assert (got.key_hex, got.data) == (key, layout.group_record(obj))
    assert key == comparison_key(obj).hex  # the key every writer and the index compute
    assert is_group_path(got.path) and not is_group_path(got.path + "x")


def test_the_gate_refuses_a_change_to_a_store_made_before_group_files(store_path, kit):
    # review 2026-12-01 F2: a store without store/groups/ took a pull request, and a
    # blob-less clone then ranked its run 1 of 1 (a full clone: 1 of 3)
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w, *runs])
    git(store_path, "rm", "-rq", "store/groups")
    git(store_path, "commit", "-qm", "a store from before group files")
    base = git(store_path, "rev-parse", "HEAD").strip()
    add_docs(store, [kit.run(p, e, i, w, latency=99, name="run-late")])
    head = git(store_path, "rev-parse", "HEAD").strip()
    [finding] = check_range(store, f"{base}..{head}")
    assert (finding.rule.id, finding.file) == ("KI215", layout.GROUPS_DIR)
    assert finding.message.startswith("2 run(s) with a known comparison key have no group")
    assert "`kistore migrate --commit`" in finding.message
    # migrated, the same change passes
    git(store_path, "reset", "-q", "--hard", base)
    store.migrate(commit=True)
    base = git(store_path, "rev-parse", "HEAD").strip()
    add_docs(store, [kit.run(p, e, i, w, latency=99, name="run-late")])
    assert not errors(check_range(store, f"{base}..HEAD"))


def test_a_store_whose_runs_have_no_known_key_needs_no_group_files(store_path, kit):
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [e, i, w])  # the protocol never arrives: no run's key is known
    base = git(store_path, "rev-parse", "HEAD").strip()
    add_docs(store, runs, allow_dangling=True)
    assert not (store_path / "store/groups").exists()
    assert not errors(check_range(store, f"{base}..HEAD"))


def test_add_refuses_a_run_named_against_its_source_as_verify_would(store_path, kit):
    # review 2026-12-01 F7: add --commit committed a run verify then refused (KI209)
    from kistore.core.errors import KistoreError

    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w])
    head = git(store_path, "rev-parse", "HEAD").strip()
    run = runs[0]
    run["spec"]["sourceNative"] = {"source": "sol-execbench", "externalId": "20464"}
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [run])
    assert "/metadata/name" in str(refused.value) and "sol-submission-20464" in str(
        refused.value)
    assert git(store_path, "rev-parse", "HEAD").strip() == head
    assert git(store_path, "status", "--porcelain") == ""
    run["metadata"]["name"] = "sol-submission-20464"
    add_docs(store, [run])
    assert not errors(verify(store))


def test_a_group_file_deleted_in_a_commit_gets_the_rebase_that_clears_it(store_path, kit):
    """fresh99 M4: KI410's fix at the gate drops the commit; run as printed, the range is ok."""
    import os
    import re
    import subprocess
    p, e, i, w, runs = _group(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w, runs[0]])
    base = git(store_path, "rev-parse", "HEAD").strip()
    first = next(iter(group_files([Manifest.from_document(runs[0])],
                                  [Manifest.from_document(d) for d in (p, e)])))
    (store_path / first).unlink()
    head = commit_all(store_path, "a group file deleted")
    [ki410] = [f for f in check_range(store, f"{base}..{head}") if f.rule.id == "KI410"]
    # the hint's checkout fails there: the commit deleted the file
    assert f"`git rebase -i {base}`, and drop that commit" in ki410.fix
    assert f"commit {head[:12]} of the branch" in ki410.fix
    assert "git checkout HEAD" not in ki410.fix
    command = re.search(r"`(git rebase -i [0-9a-f]{40})`", ki410.fix).group(1)
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i -e 's/^pick /drop /'"}
    subprocess.run(command.split(), cwd=store_path, env=env, check=True, capture_output=True)
    now = git(store_path, "rev-parse", "HEAD").strip()
    assert now == base  # the commit dropped
    assert (store_path / first).exists()
    # restored in a later commit instead: the fix names both commits and drops them
    (store_path / first).unlink()
    deleting = commit_all(store_path, "a group file deleted")
    git(store_path, "checkout", base, "--", first)
    restoring = commit_all(store_path, "restored")
    [ki410] = [f for f in check_range(store, f"{base}..{restoring}") if f.rule.id == "KI410"]
    assert f"({deleting[:12]}, {restoring[:12]}, the last restoring it)" in ki410.fix
    assert f"`git rebase -i {base}`" in ki410.fix


def _two_pull_requests(store_path, kit: ManifestKit):
    """fresh99 M1's setup: pr-c brings a run dangling on its environment, pr-d the
    environment; pr-c is merged into the trunk. Returns the group, the trunk, its tip."""
    p, e, i, w, runs = _group(kit)
    add_docs(Store(store_path), [p, i, w])
    trunk = git(store_path, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(store_path, "checkout", "-q", "-b", "pr-c")
    add_docs(Store(store_path), [runs[0]], allow_dangling=True)  # its environment dangles
    git(store_path, "checkout", "-q", trunk)
    git(store_path, "checkout", "-q", "-b", "pr-d")
    add_docs(Store(store_path), [e])
    git(store_path, "checkout", "-q", trunk)
    git(store_path, "merge", "-q", "--no-ff", "--no-edit", "pr-c")
    return (p, e, i, w, runs), trunk, git(store_path, "rev-parse", "HEAD").strip()


def test_two_green_pull_requests_merged_get_migrate_as_ki215s_fix(store_path, kit, runner):
    """fresh99 M1: a run from one PR, its environment from another: the fix run as printed.

    ``kistore migrate --commit`` writes and commits the group file (so does ``kistore
    add`` of the environment, stored already on the rebased branch, since low00: below).
    """
    from kistore.cli import main
    (p, e, i, w, runs), trunk, landed = _two_pull_requests(store_path, kit)
    git(store_path, "merge", "-q", "--no-ff", "--no-edit", "pr-d")
    [ki215] = [f for f in check_range(Store(store_path), f"{landed}..HEAD")
               if f.rule.id == "KI215"]
    assert ki215.file == layout.object_path(Digest(_hex(runs[0])))
    assert ki215.hint.index("`kistore migrate --commit`") < ki215.hint.index("kistore add")
    assert "Two pull requests merged" in ki215.hint
    # the fix as printed, in the branch bringing the environment, rebased onto main
    git(store_path, "reset", "-q", "--hard", landed)
    git(store_path, "checkout", "-q", "pr-d")
    git(store_path, "rebase", "-q", landed)
    result = runner.invoke(main, ["--store", str(store_path), "migrate", "--commit"])
    assert result.exit_code == 0, result.output
    assert found(check_range(Store(store_path), f"{landed}..HEAD"), "KI215") == []
    git(store_path, "checkout", "-q", trunk)
    git(store_path, "merge", "-q", "--no-ff", "--no-edit", "pr-d")
    assert errors(check_range(Store(store_path), f"{landed}..HEAD")) == []


@pytest.mark.parametrize("commit", [False, True], ids=["add", "add-commit"])
def test_the_add_of_a_stored_environment_writes_the_group_file_its_key_completes(
        store_path, kit, runner, tmp_path, commit):
    """low00 (fixm99's "noticed"): KI215 after two green pull requests; the environment is
    stored already on the rebased branch, and `kistore add` of it now writes the run's
    group file (atomically, as any add: `migrate` was the only way), and says so."""
    from kistore.cli import main
    (p, e, i, w, runs), trunk, landed = _two_pull_requests(store_path, kit)
    git(store_path, "checkout", "-q", "pr-d")
    git(store_path, "rebase", "-q", landed)
    tip = git(store_path, "rev-parse", "HEAD").strip()
    assert [rule for rule, _ in errors(check_range(Store(store_path), f"{landed}..HEAD"))] \
        == ["KI215"]
    run_hex = _hex(runs[0])
    key = hashlib.sha256(_key_bytes(p, w)).hexdigest()  # the key object, written out
    path = f"{layout.group_dir(Digest(key))}/{run_hex}"
    env = tmp_path / "env.json"
    env.write_text(json.dumps(e))
    done = runner.invoke(main, ["--store", str(store_path), "add", "--json",
                                *(["--commit"] if commit else []), str(env)])
    assert done.exit_code == 0, done.output
    [result] = json.loads(done.stdout)
    assert (result["status"], result["completed"]) == ("unchanged", [path])
    assert done.stderr == (
        f"note: ExecutionEnvironment/{e['metadata']['name']} is stored already; it completes "
        "the comparison key of 1 earlier run(s) lacking their group file, and this add "
        f"{'wrote and committed' if commit else 'wrote'} it: {path}\n")
    assert (store_path / path).read_bytes() == _key_bytes(p, w)
    if commit:  # fresh00b LOW: not the subject of the commit that added the environment
        assert git(store_path, "log", "-1", "--format=%s").strip() == (
            "kistore add: group file of 1 earlier run completed by "
            f"ExecutionEnvironment/{e['metadata']['name']}")
    if not commit:
        assert git(store_path, "rev-parse", "HEAD").strip() == tip
        git(store_path, "add", "store")
        git(store_path, "commit", "-q", "-m", "the group file")
    assert git(store_path, "status", "--porcelain") == ""
    assert found(check_range(Store(store_path), f"{landed}..HEAD"), "KI215") == []
    assert errors(check_range(Store(store_path), f"{landed}..HEAD")) == []
    again = runner.invoke(main, ["--store", str(store_path), "add", "--json", str(env)])
    assert json.loads(again.stdout)[0]["completed"] == [] and again.stderr == ""
