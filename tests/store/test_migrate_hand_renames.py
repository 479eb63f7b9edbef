"""``kistore migrate`` refuses a name changed by hand, with the fix that works (last97 MED 2).

A names file written for a manifest whose committed name was edited is a second claim,
committed for good (KI208). Each refusal says the name to set back (and the commits to
drop); each printed fix is run as printed and must leave a store that migrates and
verifies.
"""

from __future__ import annotations

import json
import shlex
import subprocess

from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest
from kistore.git.pathlog import first_parent_changes, work_tree_changes

from ..check.test_names_paths import old_layout_store
from ..conftest import add_docs, commit_all, git, write_raw


def _rename(root, digest, name: str) -> None:
    """Set ``metadata.name`` of ``digest`` to ``name`` by hand (as a user's editor does)."""
    path = root / layout.metadata_path(digest)
    doc = json.loads(path.read_bytes())
    path.write_text(json.dumps({**doc, "name": name}, separators=(",", ":")))


def _migrate(root, *args: str):
    return CliRunner().invoke(main, ["--store", str(root), "migrate", *args])


def _run(root, output: str, starts: str) -> None:
    """Run the first command in backquotes of ``output`` starting with ``starts``, as printed."""
    command = next(c for c in output.split("`")[1::2] if c.startswith(starts))
    subprocess.run(shlex.split(command), cwd=root, check=True, capture_output=True)


def _two_runs(store, kit) -> tuple[Digest, Digest]:
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    fast = kit.run(protocol, env, impl, workload, latency=1000, name="fast")
    slow = kit.run(protocol, env, impl, workload, latency=2000, name="slow")
    add_docs(store, [protocol, env, workload, impl, fast, slow])
    return Digest.from_str(kit.digest(fast)), Digest.from_str(kit.digest(slow))


def test_an_uncommitted_rename_gets_the_checkout_with_commit_too(store, kit):
    """MED 2: `migrate --commit` said "commit them first (`git add store && git commit`)",
    which commits the rename the gate then refuses for good."""
    fast, _ = _two_runs(store, kit)
    _rename(store.root, fast, "renamed")
    plain, committing = _migrate(store.root), _migrate(store.root, "--commit")
    assert committing.exit_code == plain.exit_code == 1, committing.output
    assert committing.output == plain.output
    assert "commit them first" not in committing.output
    assert f"BenchmarkRun/renamed: {fast} is named by {layout.name_path('BenchmarkRun', 'fast')} " \
        "already; a name never moves (KI208), so no names file is written for another: " \
        f"restore its name (`git checkout HEAD -- {layout.metadata_path(fast)}`, or set " \
        "metadata.name back to 'fast')" in committing.output
    _run(store.root, committing.output, "git checkout")
    assert git(store.root, "status", "--porcelain") == ""
    assert _migrate(store.root, "--commit").exit_code == 0


def test_an_uncommitted_rename_in_a_store_before_names_gets_the_checkout(tmp_path, kit):
    store, manifests = old_layout_store(tmp_path, kit)
    _rename(store.root, manifests[0].digest, "renamed")
    done = _migrate(store.root, "--commit")
    assert done.exit_code == 1, done.output
    meta = layout.metadata_path(manifests[0].digest)
    assert f"BenchmarkProtocol/renamed: {manifests[0].digest} is committed as " \
        f"BenchmarkProtocol/p; a name never moves (KI208), so no names file is written for " \
        f"the new name: restore its name (`git checkout HEAD -- {meta}`, or set metadata.name " \
        "back to 'p')" in done.output
    assert "commit them first" not in done.output
    _run(store.root, done.output, "git checkout")
    assert _migrate(store.root, "--commit").exit_code == 0
    assert (store.root / layout.name_path("BenchmarkProtocol", "p")).exists()


def test_a_committed_rename_in_a_store_before_names_is_refused(tmp_path, kit):
    """MED 2b: the names file of the new name was written and committed (rc 0)."""
    store, manifests = old_layout_store(tmp_path, kit)
    _rename(store.root, manifests[0].digest, "renamed")
    rename = commit_all(store.root, "rename by hand")
    head = git(store.root, "rev-parse", "HEAD")
    done = _migrate(store.root, "--commit")
    assert done.exit_code == 1, done.output
    assert f"BenchmarkProtocol/renamed: {manifests[0].digest} was committed as " \
        f"BenchmarkProtocol/p and commit {rename[:12]} changed its metadata.name; a name " \
        "never moves (KI208), so no names file is written for the new name: drop it before " \
        f"anyone cites the manifest (`git rebase --onto {rename}~ {rename}`; it drops all else " \
        "it changed too), then migrate; setting metadata.name back to 'p' in a new commit " \
        "lets the migration go on, but the history keeps the change (`kistore verify` says " \
        "KI208)" in done.output
    assert git(store.root, "rev-parse", "HEAD") == head  # nothing written
    assert not (store.root / layout.NAMES_DIR).exists()
    _run(store.root, done.output, "git rebase")
    assert _migrate(store.root, "--commit").exit_code == 0
    assert (store.root / layout.name_path("BenchmarkProtocol", "p")).exists()
    assert CliRunner().invoke(main, ["--store", str(store.root), "verify"]).exit_code == 0


def test_a_committed_rename_set_back_migrates(tmp_path, kit):
    store, manifests = old_layout_store(tmp_path, kit)
    _rename(store.root, manifests[0].digest, "renamed")
    commit_all(store.root, "rename by hand")
    _rename(store.root, manifests[0].digest, "p")  # "set metadata.name back to 'p'"
    commit_all(store.root, "name set back")
    done = _migrate(store.root, "--commit")
    assert done.exit_code == 0, done.output
    assert f"{layout.name_path('BenchmarkProtocol', 'p')} {manifests[0].digest}" in done.stdout
    assert not (store.root / layout.name_path("BenchmarkProtocol", "renamed")).exists()


def test_a_committed_rename_onto_a_taken_name_says_the_rename(store, kit):
    """MED 2c: "drop one manifest from history" (KI205), not the rename's fix."""
    fast, slow = _two_runs(store, kit)
    _rename(store.root, fast, "slow")
    commit_all(store.root, "rename onto slow by hand")
    done = _migrate(store.root, "--commit")
    assert done.exit_code == 1, done.output
    assert "KI205" not in done.output
    rename = git(store.root, "rev-parse", "HEAD").strip()
    assert f"BenchmarkRun/slow: {fast} is named by {layout.name_path('BenchmarkRun', 'fast')} " \
        "already; a name never moves (KI208), so no names file is written for another: drop " \
        f"it before anyone cites the manifest (`git rebase --onto {rename}~ {rename}`; it " \
        "drops all else it changed too), then migrate; setting metadata.name back to 'fast' " \
        "in a new commit lets the migration go on" in done.output
    _run(store.root, done.output, "git rebase")
    assert _migrate(store.root, "--commit").exit_code == 0
    assert CliRunner().invoke(main, ["--store", str(store.root), "verify"]).exit_code == 0


def test_a_committed_rename_onto_a_taken_name_before_names(tmp_path, kit):
    store, manifests = old_layout_store(tmp_path, kit)
    other = Manifest.from_document(kit.protocol(name="q", version="2"))
    write_raw(store.root, layout.object_path(other.digest), other.object_bytes)
    write_raw(store.root, layout.metadata_path(other.digest), other.metadata_bytes)
    commit_all(store.root, "another protocol")
    _rename(store.root, other.digest, "p")
    rename = commit_all(store.root, "rename onto p by hand")
    done = _migrate(store.root, "--commit")
    assert done.exit_code == 1, done.output
    assert "KI205" not in done.output
    assert f"BenchmarkProtocol/p: {other.digest} was committed as BenchmarkProtocol/q and " \
        f"commit {rename[:12]} changed its metadata.name" in done.output
    _run(store.root, done.output, "git rebase")
    assert _migrate(store.root, "--commit").exit_code == 0
    assert CliRunner().invoke(main, ["--store", str(store.root), "verify"]).exit_code == 0


def test_the_history_of_every_metadata_file_is_one_log(tmp_path, kit):
    """names97 left: migrate read HEAD's metadata once per missing names file; the history
    of every metadata file is one `git log` (oldest first, a deletion as None)."""
    store, manifests = old_layout_store(tmp_path, kit)
    meta = layout.metadata_path(manifests[0].digest)
    first = git(store.root, "rev-parse", f"HEAD:{meta}").strip()
    _rename(store.root, manifests[0].digest, "renamed")
    one = commit_all(store.root, "rename")
    second = git(store.root, "rev-parse", f"HEAD:{meta}").strip()
    (store.root / meta).unlink()
    two = commit_all(store.root, "delete")
    changes = first_parent_changes(store.repo, "HEAD", layout.METADATA_DIR)
    added = git(store.root, "rev-parse", "HEAD~2").strip()
    assert changes[meta] == [(added, first), (one, second), (two, None)]
    assert sorted(changes) == sorted(layout.metadata_path(m.digest) for m in manifests)


def test_head_s_metadata_is_not_read_per_missing_names_file(tmp_path, kit, monkeypatch):
    """names97 left: migrate read HEAD's metadata once per missing names file (O(N) blob
    reads in a store made before names were paths); one `git diff` tells which the work
    tree holds otherwise, and only those are read."""
    from kistore.store._views import CommitView

    store, manifests = old_layout_store(tmp_path, kit)
    _rename(store.root, manifests[1].digest, "renamed")  # one edit in the work tree
    reads: list[str] = []
    real = CommitView.read

    def read(self, path, *args, **kwargs):
        reads.append(path)
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(CommitView, "read", read)
    assert _migrate(store.root).exit_code == 1
    assert [p for p in reads if p.startswith(layout.METADATA_DIR)] == [
        layout.metadata_path(manifests[1].digest)]
    edited = work_tree_changes(str(store.root), "HEAD", layout.METADATA_DIR)
    assert edited == {layout.metadata_path(manifests[1].digest)}
