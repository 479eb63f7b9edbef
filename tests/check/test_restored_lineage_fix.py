"""KI432 and KI208 on a file a later commit restored: the fix that works (break96 M4).

An annotation edited then put back, a names file deleted then put back: HEAD holds the file
as BASE does, and the fix said `git checkout BASE -- PATH`, which leaves nothing to commit,
or "keep its metadata.name", which it is. The commits stay in the history, read commit by
commit: dropping them is the fix, as KI401's and KI402's say after a restore.
"""

from __future__ import annotations

import json
import os
import subprocess

from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import add_docs, git


def _committed_run(store, kit) -> Digest:
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=10, name="fast")
    run["metadata"]["annotations"] = {"kernelindex.dev/source": "lab-a"}
    add_docs(store, [protocol, env, workload, impl, run])
    return Digest.from_str(kit.digest(run))


def _errors(root, base: str) -> list[dict]:
    done = CliRunner().invoke(main, ["--store", str(root), "check", f"{base}..HEAD", "--json"])
    return [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]


def _drop_all(root, base: str) -> None:
    """Follow the fix: `git rebase -i BASE`, every commit of the branch dropped."""
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=root, check=True, env={
        **os.environ, "GIT_SEQUENCE_EDITOR": "sed -i -e 's/^pick/drop/'"})


def test_an_annotation_edited_then_restored_is_fixed_by_dropping_the_commits(store, kit):
    digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(digest)
    held = (store.root / path).read_bytes()
    (store.root / path).write_bytes(held.replace(b"lab-a", b"mylab"))
    git(store.root, "commit", "-qam", "edit source")
    edit = git(store.root, "rev-parse", "HEAD").strip()
    git(store.root, "checkout", base, "--", path)
    git(store.root, "commit", "-qm", "restore source")
    back = git(store.root, "rev-parse", "HEAD").strip()
    errors = _errors(store.root, base)
    assert sorted(f["rule"] for f in errors) == ["KI432", "KI432"], errors
    for f in errors:
        assert f["hint"].startswith(
            f"HEAD holds this metadata file as BASE does again, but the commits that changed "
            f"it ({edit[:12]}, {back[:12]}) stay in the history, which is read commit by "
            f"commit: in a branch not yet merged, drop them and the commit restoring it "
            f"(`git rebase -i {base}`)"), f["hint"]
    _drop_all(store.root, base)
    assert _errors(store.root, base) == []


def test_a_names_file_deleted_then_restored_is_fixed_by_dropping_the_commits(store, kit):
    digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    names = layout.name_path("BenchmarkRun", "fast")
    assert (store.root / names).read_bytes() == layout.name_record(digest)
    git(store.root, "rm", "-q", names)
    git(store.root, "commit", "-qm", "delete name")
    gone = git(store.root, "rev-parse", "HEAD").strip()
    git(store.root, "checkout", base, "--", names)
    git(store.root, "commit", "-qm", "restore name")
    errors = _errors(store.root, base)
    assert [f["rule"] for f in errors] == ["KI208"], errors
    assert errors[0]["hint"].startswith(
        f"HEAD holds this names file as BASE does again, but the commit that deleted it "
        f"({gone[:12]}) "
        "stays in the history, which is read commit by commit: in a branch not yet merged, "
        f"drop it and the commit restoring the file (`git rebase -i {base}`)"), errors[0]
    _drop_all(store.root, base)
    assert _errors(store.root, base) == []
