"""Forward references as paths (issue 22): each dangling reference of a run is a file.

``add --allow-dangling`` (work tree, ``--commit``, import) and ``migrate`` write
``store/forward/sha256/<XX>/<62 hex of D>/<64 hex of R>`` holding the run's fields that
name ``D``; ``verify`` holds records and runs to each other (KI213, KI214), a record never
changes (KI410), and the gate finds the runs a new manifest answers by listing one
directory (never the tree).
"""

from __future__ import annotations

import shutil

import pytest

from kistore.check import verify
from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import MultipleErrors
from kistore.core.model import Manifest
from kistore.store import CommitView, Store, admission

from ..conftest import PUBLISHED, ManifestKit, add_docs, commit_all, git, write_raw

RUN = Digest.from_str(PUBLISHED["run"])


def found(findings, *rules):
    return sorted((f.rule.id, f.file, f.pointer) for f in findings if f.rule.id in rules)


def _dangling(kit: ManifestKit, *, swap: bool = False):
    """Protocol and implementation stored; workload and environment not (yet)."""
    p, e, i, w = kit.protocol(), kit.environment(), kit.implementation(), kit.workload()
    run = kit.run(p, e, i, w, latency=10, name="dangling-run")
    if swap:  # an environment's digest where the workload goes
        run["spec"]["workloadDigest"] = kit.digest(e)
    return p, e, i, w, run


def _hex(doc) -> str:
    return Manifest.from_document(doc).digest.hex


def test_an_add_writes_a_record_per_missing_digest_by_hand(store_path, kit):
    p, e, i, w, run = _dangling(kit, swap=True)
    store = Store(store_path)
    add_docs(store, [p, i, run], allow_dangling=True)
    r, d = _hex(run), _hex(e)
    forward = store_path / "store" / "forward" / "sha256"
    written = sorted(str(f.relative_to(store_path)) for f in forward.rglob("*") if f.is_file())
    # one file: the environment's digest (named twice by the run), none for p and i (stored)
    assert written == [f"store/forward/sha256/{d[:2]}/{d[2:]}/{r}"]
    assert (store_path / written[0]).read_bytes() == b"environmentDigest\nworkloadDigest\n"
    assert git(store_path, "status", "--porcelain") == ""  # committed with the run
    assert not [f for f in verify(store) if f.severity == "error"]


def test_work_tree_and_commit_write_the_same_bytes(tmp_path, kit):
    p, e, i, w, run = _dangling(kit)
    trees = []
    for commit in (False, True):
        root = tmp_path / str(commit)
        store = Store.init(root)
        add_docs(store, [p, run], commit=commit, allow_dangling=True)
        trees.append({str(f.relative_to(root)): f.read_bytes()
                      for f in (root / "store").rglob("*") if f.is_file()})
    assert trees[0] == trees[1]
    records = {k: v for k, v in trees[0].items() if k.startswith("store/forward/")}
    assert sorted(records.values()) == [b"environmentDigest\n", b"implementationDigest\n",
                                        b"workloadDigest\n"]


def test_the_published_run_records_its_missing_references(published):
    spec = Store(published).view().manifest(RUN).document["spec"]
    missing = {f: spec[f] for f in ("workloadDigest", "implementationDigest",
                                    "protocolDigest", "environmentDigest")
               if not (published / layout.object_path(Digest.from_str(spec[f]))).exists()}
    assert missing  # the published record is a run with dangling references
    for field_name, ref in missing.items():
        path = published / layout.forward_path(Digest.from_str(ref), RUN)
        assert field_name in path.read_text().split()
    findings = verify(Store(published))
    assert not [f for f in findings if f.severity == "error"]
    assert not found(findings, "KI110", "KI213", "KI214")


def test_a_missing_record_is_ki213_on_the_run(store_path, kit):
    p, e, i, w, run = _dangling(kit)
    store = Store(store_path)
    add_docs(store, [p, i, run], allow_dangling=True)
    path = layout.forward_path(Digest(_hex(w)), Digest(_hex(run)))
    (store_path / path).unlink()
    findings = verify(store)
    obj = layout.object_path(Digest(_hex(run)))
    assert found(findings, "KI213", "KI214") == [("KI213", obj, "/spec/workloadDigest")]
    f = next(f for f in findings if f.rule.id == "KI213")
    assert f.expected == f"{path} listing workloadDigest" and f.found == "no such file"
    assert found(verify(store, "HEAD"), "KI213") == []  # committed: HEAD still has it
    assert found(findings, "KI410") == []  # the work tree: no commit removed it yet
    commit_all(store_path, "remove a forward record")
    assert found(verify(store), "KI410") == [("KI410", path, None)]


@pytest.mark.parametrize("data, why", [
    (b"workloadDigest", "no newline"),
    (b"workloadDigest\r\n", "CR LF"),
    (b"workloadDigest\nworkloadDigest\n", "twice"),
    (b"environmentDigest\n", "another field"),
    (b"environmentDigest\nworkloadDigest\n", "a field too many"),
    (b"", "empty"),
])
def test_a_record_that_disagrees_is_ki214(store_path, kit, data, why):
    p, e, i, w, run = _dangling(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, run], allow_dangling=True)  # only the workload is missing
    path = layout.forward_path(Digest(_hex(w)), Digest(_hex(run)))
    assert (store_path / path).read_bytes() == b"workloadDigest\n"
    write_raw(store_path, path, data)
    findings = verify(store)
    assert [x[:2] for x in found(findings, "KI214")] == [("KI214", path)], why
    if data != b"environmentDigest\nworkloadDigest\n":  # the field is listed no longer
        assert [x[0] for x in found(findings, "KI213")] == ["KI213"]


def test_a_forged_record_of_no_run_is_ki214_and_not_outside_the_layout(store_path, kit):
    store = Store(store_path)
    path = layout.forward_path(Digest("ab" * 32), Digest("cd" * 32))
    write_raw(store_path, path, b"workloadDigest\n")
    findings = verify(store)
    assert found(findings, "KI110", "KI214") == [("KI214", path, None)]
    bad = "store/forward/sha256/ab/" + "ab" * 31 + "/not-a-run"
    write_raw(store_path, bad, b"workloadDigest\n")
    assert ("KI110", bad, None) in found(verify(store), "KI110")


def test_a_rewritten_record_is_ki410_in_the_gate_and_verify(store_path, kit):
    p, e, i, w, run = _dangling(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, run], allow_dangling=True)
    base = git(store_path, "rev-parse", "HEAD").strip()
    path = layout.forward_path(Digest(_hex(w)), Digest(_hex(run)))
    write_raw(store_path, path, b"implementationDigest\nworkloadDigest\n")
    head = commit_all(store_path, "rewrite a record")
    assert ("KI410", path, None) in found(check_range(store, f"{base}..{head}"), "KI410")
    assert ("KI410", path, None) in found(verify(store), "KI410")


def test_migrate_writes_the_records_an_add_would(store_path, kit):
    p, e, i, w, run = _dangling(kit)
    store = Store(store_path)
    add_docs(store, [p, run], allow_dangling=True, commit=False)
    forward = store_path / "store" / "forward"
    before = {str(f.relative_to(store_path)): f.read_bytes()
              for f in forward.rglob("*") if f.is_file()}
    shutil.rmtree(forward)  # a store from before forward records (never committed)
    commit_all(store_path, "a store of the earlier layout")
    assert [x[0] for x in found(verify(store), "KI213")] == ["KI213"] * 3
    written = store.migrate(commit=True)
    assert sorted(w.path for w in written) == sorted(before)
    after = {str(f.relative_to(store_path)): f.read_bytes()
             for f in forward.rglob("*") if f.is_file()}
    assert after == before
    assert store.migrate(commit=True) == []  # idempotent
    assert not [f for f in verify(store) if f.severity == "error"]


@pytest.mark.parametrize("swap, expected", [(True, ["KI202"]), (False, [])],
                         ids=["wrong-kind", "right-kind"])
def test_a_pull_request_answering_a_dangling_reference_never_lists_the_tree(
        store_path, kit, monkeypatch, swap, expected):
    """A Workload or ExecutionEnvironment arriving: its forward directory names the runs."""
    p, e, i, w, run = _dangling(kit, swap=swap)
    store = Store(store_path)
    add_docs(store, [p, i, run], allow_dangling=True)
    base = git(store_path, "rev-parse", "HEAD").strip()
    if swap:  # `add` refuses it (review r75 F4): the gate is for whoever writes past it
        with pytest.raises(MultipleErrors, match="answers the dangling reference"):
            add_docs(store, [e])
        monkeypatch.setattr(admission, "_answered_with_wrong_kind", lambda *args: [])
    add_docs(store, [e])  # the environment arrives (where the workload goes when swapped)
    monkeypatch.undo()
    head = git(store_path, "rev-parse", "HEAD").strip()
    whole = check_range(store, f"{base}..{head}", whole_tree=True)

    def listed(*args, **kwargs):
        raise AssertionError("the gate listed every file of the tree")

    monkeypatch.setattr(CommitView, "files", listed)
    fast = check_range(store, f"{base}..{head}")
    assert [(f.rule.id, f.file, f.pointer) for f in fast] == \
        [(f.rule.id, f.file, f.pointer) for f in whole]
    assert [f.rule.id for f in fast if f.severity == "error"] == expected
    if swap:  # on the arriving environment, the one file the pull request can leave out
        f = next(f for f in fast if f.rule.id == "KI202")
        assert (f.file, f.pointer) == (layout.object_path(Digest(_hex(e))), "/kind")
        assert (f.expected, f.found) == ("Workload", "ExecutionEnvironment")
        assert f.extra == {"run": f"sha256:{_hex(run)}", "field": "workloadDigest"}
        assert (f"{layout.object_path(Digest(_hex(run)))}:/spec/workloadDigest names this "
                "digest and must name a Workload, not an ExecutionEnvironment") in f.message


def test_a_record_for_a_stored_digest_is_ki417_in_the_gate_and_verify(store_path, kit):
    # The workload is stored first: a record of it added later was never a dangling one.
    p, e, i, w, run = _dangling(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i, w, run])
    base = git(store_path, "rev-parse", "HEAD").strip()
    path = layout.forward_path(Digest(_hex(w)), Digest(_hex(run)))
    write_raw(store_path, path, b"workloadDigest\n")  # the bytes KI214 asks for
    head = commit_all(store_path, "a forged record")
    findings = check_range(store, f"{base}..{head}")
    assert found(findings, "KI214", "KI417") == [("KI417", path, None)]
    ki417 = next(f for f in findings if f.rule.id == "KI417")
    assert f"already stores {layout.object_path(Digest(_hex(w)))}" in ki417.message
    assert ki417.extra["commit"] == head and ki417.extra["parent"] == base
    assert found(verify(store), "KI417") == [("KI417", path, None)]


def test_a_record_then_its_target_in_a_later_commit_or_a_merge_is_fine(store_path, kit):
    p, e, i, w, run = _dangling(kit)
    store = Store(store_path)
    add_docs(store, [p, e, i])
    base = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "checkout", "-q", "-b", "side")
    add_docs(store, [run], allow_dangling=True)  # the record: w is missing here
    git(store_path, "checkout", "-q", "main")
    add_docs(store, [w])  # main gets the workload meanwhile
    git(store_path, "merge", "-q", "--no-edit", "side")
    head = git(store_path, "rev-parse", "HEAD").strip()
    path = layout.forward_path(Digest(_hex(w)), Digest(_hex(run)))
    assert (store_path / path).read_bytes() == b"workloadDigest\n"
    assert found(check_range(store, f"{base}..{head}"), "KI417") == []
    assert not [f for f in verify(store) if f.severity == "error"]
