"""Names as paths (issue 22): every taken name is a committed file, and it never changes.

``verify`` holds the names files and the metadata to each other (KI211, KI212); the gate
refuses a pull request that claims a name without its manifest, claims a taken one, or
changes a names file (KI208). The sequences are pushed one pull request at a time to a
bare remote running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from kistore.check import verify
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import MultipleErrors
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import PUBLISHED, ManifestKit, commit_all, git, write_raw
from ..prs import Remote

RUN = Digest.from_str(PUBLISHED["run"])
PROTOCOL = Digest.from_str(PUBLISHED["protocol"])
ENVIRONMENT = Digest.from_str(PUBLISHED["environment"])
RUN_NAMES = "store/names/BenchmarkRun/df/sol-submission-20464"
"""The published run's names file; df: sha256(b"sol-submission-20464") starts 0xdf."""


def found(findings, *rules):
    return sorted((f.rule.id, f.file) for f in findings if f.rule.id in rules)


def test_the_published_runs_names_file_is_where_its_name_hashes(published):
    assert hashlib.sha256(b"sol-submission-20464").hexdigest().startswith("df")
    assert (published / RUN_NAMES).read_bytes() == \
        b"sha256:384a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6\n"
    assert git(published, "ls-files", "-s", RUN_NAMES).startswith("100644 ")
    assert not [f for f in verify(Store(published)) if f.severity == "error"]


def test_a_missing_names_file_is_ki211_on_the_metadata(published):
    (published / RUN_NAMES).unlink()
    findings = verify(Store(published))
    assert found(findings, "KI211", "KI212") == [("KI211", layout.metadata_path(RUN))]
    f = next(f for f in findings if f.rule.id == "KI211")
    assert f.expected == f"{RUN_NAMES} holding {RUN}" and f.found == "no such file"
    assert f.pointer == "/name"


@pytest.mark.parametrize("tamper, why", [
    (lambda d: d[:-1], "no newline"),
    (lambda d: d + b"x", "trailing junk"),
    (lambda d: d + b"\n", "a second line"),
    (lambda d: d[:-1] + b"\r\n", "CR LF"),
    (lambda d: d.upper(), "upper case"),
    (lambda d: b"", "empty"),
], ids=["no-newline", "trailing-junk", "two-lines", "crlf", "upper", "empty"])
def test_a_names_file_of_other_bytes_is_ki212(published, tamper, why):
    path = published / RUN_NAMES
    path.write_bytes(tamper(path.read_bytes()))
    findings = verify(Store(published))
    assert found(findings, "KI211", "KI212") == [("KI212", RUN_NAMES)], why


def test_a_names_file_holding_the_digest_of_another_kind_is_ki212_and_ki211(published):
    (published / RUN_NAMES).write_bytes(layout.name_record(PROTOCOL))
    findings = verify(Store(published))
    assert found(findings, "KI211", "KI212") == [
        ("KI211", layout.metadata_path(RUN)), ("KI212", RUN_NAMES)]
    disagrees = next(f for f in findings if f.rule.id == "KI212")
    assert disagrees.expected == "BenchmarkRun/sol-submission-20464"
    assert disagrees.found == "BenchmarkProtocol/sol-execbench-leaderboard-v1-1"


def test_a_names_file_for_a_name_no_manifest_has_is_ki212(published):
    squat = layout.name_path("BenchmarkRun", "squatted")
    write_raw(published, squat, layout.name_record(Digest("ab" * 32)))
    findings = verify(Store(published))
    assert found(findings, "KI211", "KI212", "KI110") == [("KI212", squat)]
    # the same name claimed for a real manifest of that kind is still no claim: the
    # manifest is named otherwise
    write_raw(published, squat, layout.name_record(RUN))
    assert found(verify(Store(published)), "KI211", "KI212") == [("KI212", squat)]


def test_a_names_path_off_the_layout_is_ki110(published):
    for path in ["store/names/BenchmarkRun/00/sol-submission-20464",  # wrong shard
                 "store/names/Nonsense/df/sol-submission-20464",      # no such kind
                 "store/names/BenchmarkRun/df/sol-submission-20464.json"]:
        write_raw(published, path, layout.name_record(RUN))
        findings = verify(Store(published))
        assert ("KI110", path) in found(findings, "KI110"), path
        (published / path).unlink()


def test_add_writes_the_names_file_and_refuses_a_name_whose_file_holds_another_digest(
        store, store_path, kit):
    protocol = kit.protocol(name="p")
    m = Manifest.from_document(protocol)
    store.add([m])
    path = store_path / layout.name_path("BenchmarkProtocol", "p")
    assert path.read_bytes() == f"{m.digest}\n".encode()
    before = path.stat().st_mtime_ns
    store.add([m])  # again: a no-op
    assert path.stat().st_mtime_ns == before
    # a names file squatting a name no manifest holds yet still holds it
    squat = store_path / layout.name_path("Workload", "w")
    write_raw(store_path, layout.name_path("Workload", "w"), layout.name_record(m.digest))
    with pytest.raises(MultipleErrors) as refused:
        store.add([Manifest.from_document(kit.workload(name="w"))])
    # it names a protocol, not a Workload called w: a bogus names file, and said so
    assert (f"Workload name 'w' is held by the names file {layout.name_path('Workload', 'w')}"
            f", but it names {m.digest}, which is no stored Workload of that name"
            in str(refused.value))
    assert "KI212" in str(refused.value) and "already used" not in str(refused.value)
    assert squat.read_bytes() == layout.name_record(m.digest)
    # a digest with no manifest at all: the same words
    write_raw(store_path, layout.name_path("Workload", "w"), layout.name_record(
        Digest("ab" * 32)))
    with pytest.raises(MultipleErrors, match=f"but it names sha256:{'ab' * 32}, which is no "
                       "stored Workload"):
        store.add([Manifest.from_document(kit.workload(name="w"))])
    # an uncommitted squat deleted: the add goes through
    squat.unlink()
    w = Manifest.from_document(kit.workload(name="w"))
    assert [r.status for r in store.add([w])] == ["added"]
    assert squat.read_bytes() == layout.name_record(w.digest)


def test_add_says_already_used_when_the_names_file_is_right(store, kit):
    first = Manifest.from_document(kit.workload(name="w"))
    store.add([first])
    second = Manifest.from_document(kit.workload("gemm", name="w"))
    assert second.digest != first.digest
    with pytest.raises(MultipleErrors, match=f"Workload name 'w' is already used by "
                       f"{first.digest}"):
        store.add([second])


def test_add_writes_a_names_file_missing_beside_a_stored_manifest(store, store_path, kit):
    m = Manifest.from_document(kit.protocol(name="p"))
    store.add([m])
    path = store_path / layout.name_path("BenchmarkProtocol", "p")
    path.unlink()
    # uncommitted, its names file missing: what an add killed before that file leaves, so
    # checked and written again as new (reviewer r83 F1)
    assert [r.status for r in store.add([m])] == ["added"]
    assert path.read_bytes() == layout.name_record(m.digest)
    store.add([m], commit=True)
    path.unlink()  # a committed manifest's: only the names file is written back
    assert [r.status for r in store.add([m])] == ["unchanged"]
    assert path.read_bytes() == layout.name_record(m.digest)


# -- the migration -------------------------------------------------------------------------

def old_layout_store(tmp_path, kit: ManifestKit):
    """A store whose manifests were committed before names were paths (no store/names/)."""
    store = Store.init(tmp_path / "old")
    docs = [kit.protocol(name="p"), kit.environment(name="e"), kit.workload(name="w")]
    manifests = [Manifest.from_document(d) for d in docs]
    for m in manifests:
        write_raw(store.root, layout.object_path(m.digest), m.object_bytes)
        write_raw(store.root, layout.metadata_path(m.digest), m.metadata_bytes)
    commit_all(store.root, "before names were paths")
    return Store(store.root), manifests


def test_migrate_writes_every_missing_names_file_once_and_its_commit_verifies(
        tmp_path, kit, runner):
    from kistore.cli import main

    store, manifests = old_layout_store(tmp_path, kit)
    root = store.root
    assert sorted(f.rule.id for f in verify(store) if f.severity == "error") == ["KI211"] * 3
    done = runner.invoke(main, ["--store", str(root), "migrate", "--commit"])
    assert done.exit_code == 0, done.output
    expected = sorted(f"{layout.name_path(m.kind, m.name)} {m.digest}" for m in manifests)
    assert done.stdout.splitlines() == expected
    assert "3 names file(s) written and committed" in done.stderr
    assert git(root, "status", "--porcelain") == ""
    committed = git(root, "diff-tree", "-r", "--name-only", "--no-commit-id", "HEAD").split()
    assert committed == sorted(layout.name_path(m.kind, m.name) for m in manifests)
    for m in manifests:
        assert (root / layout.name_path(m.kind, m.name)).read_bytes() == \
            f"{m.digest}\n".encode()
    again = runner.invoke(main, ["--store", str(root), "migrate", "--commit"])
    assert again.exit_code == 0 and again.stdout == ""
    assert "0 names file(s) written" in again.stderr
    assert git(root, "rev-list", "--count", "HEAD").strip() == "3"  # init, old, migrate
    for args in (["verify"], ["verify", "--at", "HEAD"], ["check", "HEAD~1..HEAD"]):
        checked = runner.invoke(main, ["--store", str(root), *args])
        assert checked.exit_code == 0, (args, checked.output)


def test_migrate_without_commit_then_with_commit_commits_what_the_first_wrote(
        tmp_path, kit, runner):
    from kistore.cli import main

    store, manifests = old_layout_store(tmp_path, kit)
    first = runner.invoke(main, ["--store", str(store.root), "migrate"])
    assert first.exit_code == 0 and len(first.stdout.splitlines()) == 3
    assert git(store.root, "status", "--porcelain") == "?? store/names/\n"
    second = runner.invoke(main, ["--store", str(store.root), "migrate", "--commit"])
    assert len(second.stdout.splitlines()) == 3, second.output
    assert git(store.root, "status", "--porcelain") == ""


def test_migrate_refuses_a_name_two_manifests_hold_and_writes_nothing(tmp_path, kit, runner):
    from kistore.cli import main

    store, manifests = old_layout_store(tmp_path, kit)
    twin = Manifest.from_document(kit.protocol(name="p", version="2"))
    write_raw(store.root, layout.object_path(twin.digest), twin.object_bytes)
    write_raw(store.root, layout.metadata_path(twin.digest), twin.metadata_bytes)
    done = runner.invoke(main, ["--store", str(store.root), "migrate"])
    assert done.exit_code == 1
    assert "BenchmarkProtocol/p is held by 2 manifests" in done.output
    # no dead end: renaming a committed one is KI208 for ever, and the words say so
    assert "a committed name never moves (KI208)" in done.output
    assert "cannot be migrated without rewriting its history" in done.output
    # the store says what to do; the command line which command does it
    assert done.output.rstrip("\n").endswith(
        "one not yet committed can take another metadata.name (added again with its "
        "metadata replaced), then migrate; `kistore add --update-metadata FILE` replaces its "
        "metadata")
    assert not (store.root / layout.NAMES_DIR).exists()


# -- pull requests ---------------------------------------------------------------------------

@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def put(root, m: Manifest, *, names: bool = True) -> None:
    """Write a manifest's files by hand (as a pull request's author may)."""
    write_raw(root, layout.object_path(m.digest), m.object_bytes)
    write_raw(root, layout.metadata_path(m.digest), m.metadata_bytes)
    if names:
        write_raw(root, layout.name_path(m.kind, m.name), layout.name_record(m.digest))


def add_again_renamed(store_path, runner, m: Manifest, base: str) -> None:
    """The taken name's fix, last step: add ``m`` again as ``x-second``, with ``kistore add
    --commit``; the gate then passes ``BASE..HEAD``."""
    from kistore.check.gate import check_range
    from kistore.cli import main

    renamed = json.loads(json.dumps(m.document))
    renamed["metadata"]["name"] = "x-second"
    (store_path.parent / "b.json").write_text(json.dumps(renamed))
    result = runner.invoke(main, ["--store", str(store_path), "add", "--commit",
                                  str(store_path.parent / "b.json")])
    assert result.exit_code == 0, result.output
    assert [f.rule.id for f in check_range(Store(store_path), f"{base}..HEAD")
            if f.rule.severity == "error"] == []


def two_workloads(kit: ManifestKit) -> tuple[Manifest, Manifest]:
    return (Manifest.from_document(kit.workload("rmsnorm", name="x")),
            Manifest.from_document(kit.workload("gemm", name="x")))


def test_a_taken_name_claimed_by_rewriting_its_names_file_is_refused(remote, kit):
    a, b = two_workloads(kit)
    assert remote.pr("A named x", lambda c: put(c, a)).accepted
    before = remote.main()
    second = remote.pr("B named x, names file rewritten", lambda c: put(c, b))
    assert not second.accepted
    path = layout.name_path("Workload", "x")
    assert f"{path}: error KI208 name-changed: commit" in second.output
    assert "rewrites this names file" in second.output
    assert "error KI205 name-not-unique" in second.output
    assert remote.main() == before


def test_a_taken_name_claimed_without_a_names_file_is_refused(remote, kit):
    a, b = two_workloads(kit)
    assert remote.pr("A named x", lambda c: put(c, a)).accepted
    second = remote.pr("B named x, no names file", lambda c: put(c, b, names=False))
    assert not second.accepted
    assert f"{layout.metadata_path(b.digest)}:/name: error KI211 name-path-missing: " \
           f"Workload/x is taken: {layout.name_path('Workload', 'x')} names {a.digest}" \
           in second.output


def test_a_new_manifest_without_its_names_file_is_refused(remote, kit):
    a, _ = two_workloads(kit)
    pushed = remote.pr("A, no names file", lambda c: put(c, a, names=False))
    assert not pushed.accepted
    assert "error KI211 name-path-missing: Workload/x has no names file" in pushed.output


def test_deleting_or_renaming_a_names_file_is_refused(remote, kit):
    a, _ = two_workloads(kit)
    assert remote.pr("A named x", lambda c: put(c, a)).accepted
    path = layout.name_path("Workload", "x")
    deleted = remote.pr("drop the names file", lambda c: (c / path).unlink())
    assert not deleted.accepted
    assert f"{path}: error KI208 name-changed: commit" in deleted.output
    assert "deletes this names file" in deleted.output
    assert "error KI211 name-path-missing: Workload/x has no names file" in deleted.output

    def move(clone):
        moved = layout.name_path("Workload", "x2")
        (clone / moved).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(clone / path, clone / moved)

    renamed = remote.pr("move the names file", move)
    assert not renamed.accepted
    assert "deletes this names file" in renamed.output
    assert f"{layout.name_path('Workload', 'x2')}: error KI212 name-path-disagrees" in \
        renamed.output


def test_a_names_file_claiming_a_name_no_manifest_has_is_refused(remote):
    squat = layout.name_path("BenchmarkRun", "sol-submission-99999")
    pushed = remote.pr("squat", lambda c: write_raw(c, squat, layout.name_record(
        Digest("ab" * 32))))
    assert not pushed.accepted
    assert f"{squat}: error KI212 name-path-disagrees: claims " \
           "BenchmarkRun/sol-submission-99999 for sha256:" + "ab" * 32 in pushed.output
    # nor by naming an existing manifest of another name
    named = remote.pr("squat with a real digest", lambda c: write_raw(
        c, squat, layout.name_record(RUN)))
    assert not named.accepted
    assert "which is BenchmarkRun/sol-submission-20464" in named.output


def test_a_names_file_added_for_a_manifest_already_there_is_accepted(remote):
    # the migration's own pull request: names files for manifests committed before
    def drop_and_commit(clone):
        (clone / RUN_NAMES).unlink()

    assert remote.pr("an old-layout run", drop_and_commit, hook=False).accepted
    restored = remote.pr("migrate", lambda c: write_raw(c, RUN_NAMES, layout.name_record(RUN)))
    assert restored.accepted, restored.output


def test_two_branches_claiming_one_name_merged_is_refused(remote, kit):
    # Each side alone claims a free name; the merge takes B's names file over A's.
    a, b = two_workloads(kit)
    clone = remote.clone
    base = git(clone, "rev-parse", "HEAD").strip()
    assert remote.pr("A named x", lambda c: put(c, a)).accepted
    git(clone, "checkout", "-q", "-b", "side", base)
    put(clone, b)
    commit_all(clone, "B named x")
    git(clone, "checkout", "-q", "main")
    git(clone, "merge", "-q", "--no-edit", "-X", "theirs", "side")
    assert (clone / layout.name_path("Workload", "x")).read_bytes() == \
        layout.name_record(b.digest)
    pushed = remote.pr("merge", lambda c: None)
    assert not pushed.accepted
    assert f"{layout.name_path('Workload', 'x')}: error KI208 name-changed" in pushed.output
    # the words say what happened: two claims joined, not a names file edited by hand
    assert "joins two claims of this names file" in pushed.output
    assert "give one side's manifest another metadata.name" in pushed.output


def test_renaming_an_uncommitted_manifest_moves_its_names_file(store, store_path, kit):
    m = Manifest.from_document(kit.protocol(name="before"))
    store.add([m])
    renamed = Manifest.from_document({**m.document, "metadata": {"name": "after"}})
    store.add([renamed], update_metadata=True)
    assert not (store_path / layout.name_path("BenchmarkProtocol", "before")).exists()
    assert (store_path / layout.name_path("BenchmarkProtocol", "after")).read_bytes() == \
        layout.name_record(m.digest)
    assert not [f for f in verify(Store(store_path)) if f.severity == "error"]


def test_the_gate_refuses_a_change_to_a_store_never_migrated(published):
    # review 2026-12-01 F2: on a base without names files, a second claim on a name passed.
    import shutil

    from kistore.check.gate import check_range

    from ..conftest import commit_all, git

    shutil.rmtree(published / "store" / "names")
    shutil.rmtree(published / "store" / "forward", ignore_errors=True)
    base = commit_all(published, "as a store made before names were paths")
    (published / "kistore.toml").write_text((published / "kistore.toml").read_text() + "\n")
    head = commit_all(published, "any change")
    found = check_range(Store(published), f"{base}..{head}")
    assert [(f.rule.id, f.file) for f in found] == [("KI211", "store/names")]
    assert "`kistore migrate --commit`" in found[0].message
    git(published, "reset", "-q", "--hard", base)
    assert Store(published).migrate(commit=True)
    migrated = git(published, "rev-parse", "HEAD").strip()
    assert check_range(Store(published), f"{base}..{migrated}") == []


@pytest.mark.parametrize("stray", ["symlink", "file"])
def test_a_store_with_no_manifests_gets_what_verify_says_of_a_stray_path_not_migrate(
        store_path, stray):
    # review r60 F21: a symlink or stray file under store/objects of a store holding no
    # manifest got "this store has manifests ... run `kistore migrate --commit`", though
    # migrate writes nothing there: the advice looped, and the real problem was never named.
    from kistore.check.gate import check_range

    base = git(store_path, "rev-parse", "HEAD").strip()
    path, expected = {
        "symlink": ("store/objects/sha256/b7", {("KI110", "store/objects/sha256/b7"),
                                                ("KI111", "store/objects/sha256/b7")}),
        "file": ("store/objects/sha256/zz/junk.json",
                 {("KI110", "store/objects/sha256/zz/junk.json")}),
    }[stray]
    (store_path / path).parent.mkdir(parents=True, exist_ok=True)
    if stray == "file":
        (store_path / path).write_text("{}")
    else:
        (store_path / path).symlink_to("/nonexistent")
    head = commit_all(store_path, "a stray path, past the hooks")
    gate = check_range(Store(store_path), f"{base}..{head}")
    at_head = verify(Store(store_path), head)
    assert {(f.rule.id, f.file) for f in gate} == {
        (f.rule.id, f.file) for f in at_head if f.severity == "error"} == expected
    assert Store(store_path).migrate() == []  # what the old advice sent the user to


def test_a_symlink_named_as_an_object_file_is_no_manifest_to_migrate(store_path):
    # an object file's name, but a symlink: verify's KI111, never "made before names were paths"
    from kistore.check.gate import check_range

    base = git(store_path, "rev-parse", "HEAD").strip()
    path = "store/objects/sha256/b7/" + "0" * 62 + ".json"
    (store_path / path).parent.mkdir(parents=True)
    (store_path / path).symlink_to("/nonexistent")
    head = commit_all(store_path, "a symlink where an object file goes")
    found = {(f.rule.id, f.file) for f in check_range(Store(store_path), f"{base}..{head}")}
    assert ("KI111", path) in found
    assert ("KI211", "store/names") not in found


@pytest.mark.parametrize("batch", [1024, 1], ids=["mixed-batches", "plain-batches"])
@pytest.mark.parametrize("workers", [1, 2])
def test_names_files_confirmed_by_the_workers_find_what_the_parent_alone_found(
        published, monkeypatch, batch, workers):
    """The workers read each manifest's names file (audit._names_confirmed); the findings
    are those of the parent reading every names file itself, for every kind of damage."""
    from kistore.check import audit

    protocol_names = layout.name_path("BenchmarkProtocol", "sol-execbench-leaderboard-v1-1")
    environment_names = next(str(p.relative_to(published)) for p in
                             (published / "store/names/ExecutionEnvironment").rglob("*")
                             if p.is_file())
    (published / environment_names).unlink()                                  # KI211
    (published / RUN_NAMES).write_bytes(layout.name_record(RUN)[:-1])        # KI212 bytes
    write_raw(published, layout.name_path("BenchmarkRun", "squat"),           # KI212: owner
              layout.name_record(PROTOCOL))                                   # is confirmed
    write_raw(published, layout.name_path("BenchmarkRun", "nobody"),
              layout.name_record(Digest("ab" * 32)))                          # KI212: no one
    write_raw(published, "store/names/BenchmarkRun/00/sol-submission-20464",  # KI110
              layout.name_record(RUN))
    assert (published / protocol_names).read_bytes() == layout.name_record(PROTOCOL)
    monkeypatch.setattr(audit, "_BATCH", batch)

    def rules(findings):
        return sorted((f.rule.id, f.file, f.message) for f in findings)

    confirmed = rules(verify(Store(published), workers=workers))
    monkeypatch.setattr(audit, "_names_confirmed", lambda *args: None)
    assert confirmed == rules(verify(Store(published), workers=workers))
    assert [(r, f) for r, f, _ in confirmed if r in ("KI110", "KI211", "KI212")] == sorted([
        ("KI211", layout.metadata_path(ENVIRONMENT)), ("KI212", RUN_NAMES),
        ("KI212", layout.name_path("BenchmarkRun", "squat")),
        ("KI212", layout.name_path("BenchmarkRun", "nobody")),
        ("KI110", "store/names/BenchmarkRun/00/sol-submission-20464")])
    snap = audit.snapshot(Store(published))
    monkeypatch.undo()
    assert audit._names_confirmed(snap, PROTOCOL.hex, "BenchmarkProtocol",
                                  "sol-execbench-leaderboard-v1-1") == protocol_names
    assert audit._names_confirmed(snap, RUN.hex, "BenchmarkRun", "sol-submission-20464") is None
    assert audit._names_confirmed(snap, RUN.hex, "BenchmarkProtocol",
                                  "sol-execbench-leaderboard-v1-1") is None  # another digest


@pytest.mark.parametrize("workers", [1, 2])
def test_names_files_of_a_commit_are_confirmed_by_blob_id_and_tampered_ones_still_fail(
        published, monkeypatch, blob_reads, workers):
    """``verify --at``: a names file whose blob id is the record's is confirmed without
    reading its blob; one of other bytes has another blob id (equal ids are equal bytes),
    so the parent reads it and reports it, as when it reads every names file itself."""
    from kistore.check import audit
    from kistore.git.pack import blob_id
    from kistore.store import _views

    protocol_names = layout.name_path("BenchmarkProtocol", "sol-execbench-leaderboard-v1-1")
    (published / RUN_NAMES).write_bytes(layout.name_record(RUN) + b" ")      # KI212 bytes
    write_raw(published, layout.name_path("BenchmarkRun", "squat"),           # KI212: owner
              layout.name_record(PROTOCOL))                                   # is confirmed
    commit_all(published, "tamper with names files")
    (published / RUN_NAMES).write_bytes(layout.name_record(RUN))  # the work tree is not read

    def rules(findings):
        return sorted((f.rule.id, f.file, f.message) for f in findings)

    read = blob_reads(_views, by="oid")
    confirmed = rules(verify(Store(published), "HEAD", workers=workers))
    if workers == 1:  # the pool's reads are in other processes
        # confirmed by blob id: read once, by KI229's reading of the environments alone
        # (kistore.check._products.check_products), never by the names check
        assert read.count(blob_id(layout.name_record(ENVIRONMENT)).hex()) == 1
        assert blob_id(layout.name_record(RUN) + b" ").hex() in read  # the parent reads it
    monkeypatch.setattr(audit, "_names_confirmed", lambda *args: None)
    assert confirmed == rules(verify(Store(published), "HEAD", workers=workers))
    assert [(r, f) for r, f, _ in confirmed if r in ("KI211", "KI212")] == sorted([
        ("KI212", RUN_NAMES), ("KI212", layout.name_path("BenchmarkRun", "squat"))])
    monkeypatch.undo()
    snap = audit.snapshot(Store(published), "HEAD")
    assert audit._names_confirmed(snap, PROTOCOL.hex, "BenchmarkProtocol",
                                  "sol-execbench-leaderboard-v1-1") == protocol_names
    assert audit._names_confirmed(snap, RUN.hex, "BenchmarkRun", "sol-submission-20464") is None
    assert snap.holds(protocol_names, layout.name_record(PROTOCOL))
    assert not snap.holds(protocol_names, layout.name_record(PROTOCOL)[:-1])
    assert not snap.holds(protocol_names, layout.name_record(RUN))


def test_a_range_deleting_store_names_is_the_deletion_not_an_old_store(published):
    # review r75 F14: BASE holds store/names/, the range deletes it: that was "made before
    # names were paths ... land `kistore migrate --commit` first", the wrong way to send a
    # reviewer. It is a KI208 per names file deleted (and KI211 per manifest left nameless).
    from kistore.check.gate import check_range

    base = git(published, "rev-parse", "HEAD").strip()
    deleted = sorted(str(p.relative_to(published))
                     for p in (published / layout.NAMES_DIR).rglob("*") if p.is_file())
    assert len(deleted) == 3  # the published record: a run, its protocol, its environment
    shutil.rmtree(published / layout.NAMES_DIR)
    head = commit_all(published, "drop names")

    found = check_range(Store(published), f"{base}..{head}")

    assert sorted(f.file for f in found if f.rule.id == "KI208") == deleted
    assert {f.rule.id for f in found} == {"KI208", "KI211"}
    assert ("KI211", "store/names") not in {(f.rule.id, f.file) for f in found}
    assert not any("migrate" in f.message for f in found)
    first = next(f for f in found if f.rule.id == "KI208")
    assert first.message == (f"commit {head[:12]} deletes this names file: a names file is "
                             "never modified, renamed or deleted (a name never moves, nor goes "
                             "to another manifest)")


@pytest.mark.parametrize("stored_later", [False, True],
                         ids=["stored-digest-first", "stored-digest-later"])
@pytest.mark.parametrize("names", [False, True], ids=["names-file-left", "names-file-rewritten"])
def test_a_taken_names_fix_is_the_arriving_manifests_and_runs_as_printed(
        store, store_path, kit, runner, names, stored_later):
    """fresh99 M3: every finding's fix says to rename the manifest the range adds (never
    the stored one, never `kistore migrate`), drop its commit, restore the names file.
    low00 (fresh99b LOW): each is filed under a path the range brings, never the stored
    manifest's metadata file (KI205 is told on the later digest: both orders)."""
    import os
    import re
    import subprocess

    from kistore.check.gate import check_range
    a, b = two_workloads(kit)
    if (str(a.digest) > str(b.digest)) != stored_later:
        a, b = b, a  # a is stored, b arrives
    store.add([a], commit=True)
    base = git(store_path, "rev-parse", "HEAD").strip()
    put(store_path, b, names=names)
    head = commit_all(store_path, "B named x")
    found = [f for f in check_range(Store(store_path), f"{base}..{head}")
             if f.rule.id in ("KI205", "KI208", "KI211")]
    assert sorted(f.rule.id for f in found) == sorted(["KI205", "KI211"] + ["KI208"] * names)
    path = layout.name_path("Workload", "x")
    for f in found:
        assert f.fix is not None and "run `kistore migrate`" not in f.fix, f
        assert f"drop commit {head[:12]} (`git rebase -i {base}`, mark it `drop`)" in f.fix
        assert "another metadata.name" in f.fix, f.fix
        assert b.digest.hex[2:] in f.fix + f.file, f.fix
        assert "add the manifest again" in f.fix, f.fix
        assert f.file in (layout.metadata_path(b.digest), path), f  # what the range brings
        if f.rule.id == "KI205":
            assert f.message == f"Workload name 'x' is also used by {a.digest}"
        if f.rule.id == "KI211" and names:
            assert f.message == (f"Workload/x is taken: {a.digest} holds it (stored before the "
                                 f"range), and the range rewrote its names file {path} to "
                                 "name this manifest"), f.message
            assert (f.expected, f.found) == (f"{path} holding {a.digest}", str(b.digest))
        if f.rule.id == "KI211" and not names:
            assert f.message == f"Workload/x is taken: {path} names {a.digest}, not this manifest"
        if f.rule.id in ("KI205", "KI211"):
            assert f.fix.startswith(f"this manifest takes the name {a.digest} holds"), f.fix
        assert (f"`git checkout {base} -- {path}`" in f.fix) is names
    command = re.search(r"`(git rebase -i [0-9a-f]{40})`", found[0].fix).group(1)
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i -e 's/^pick /drop /'"}
    subprocess.run(command.split(), cwd=store_path, env=env, check=True, capture_output=True)
    add_again_renamed(store_path, runner, b, base)
