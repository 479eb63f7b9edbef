"""A names file copied or renamed by hand (``NAME.bak``): one cause, one advice (r93b G9).

KI110 said "move or remove it" of a copy; a rename also gave KI211 on the manifest's
metadata ("run `kistore migrate`") and, at the gate, KI208 on the deleted names file. Now
the file is told what it is, as an object file is: a copy of names file X (``rm`` it), or
names file X renamed (``mv`` it back; committed: drop the commit).
"""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.store import Store

from ..conftest import add_docs, commit_all, git


@pytest.fixture
def named(tmp_path, kit):
    root = tmp_path / "store"
    Store.init(root)
    protocol, env, workload, impl = (kit.protocol(), kit.environment(), kit.workload(),
                                     kit.implementation())
    run = kit.run(protocol, env, impl, workload, latency=5000, name="kept")
    add_docs(Store(root), [protocol, env, workload, impl, run])
    return root, layout.name_path("BenchmarkRun", "kept"), kit.digest(run)


def _verify(root, monkeypatch) -> list[dict]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["verify", "--json"])
    return [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]


def test_g9_a_copy_of_a_names_file_is_one_ki110_saying_rm(named, monkeypatch):
    root, own, digest = named
    shutil.copy(root / own, root / f"{own}.bak")
    errors = _verify(root, monkeypatch)
    assert [(f["rule"], f["file"]) for f in errors] == [("KI110", f"{own}.bak")]
    assert errors[0]["message"] == (
        f"not a path of the store layout; a copy of names file {own} (the same bytes: "
        f"BenchmarkRun/kept is {digest})")
    assert errors[0]["hint"].startswith(f"a copy of a names file: remove it with `rm {own}.bak`")
    base = git(root, "rev-parse", "HEAD").strip()
    head = commit_all(root, "a backup")
    found = check_range(Store(root), f"{base}..{head}")
    assert [(f.rule.id, f.file, f.extra.get("names_file")) for f in found] == [
        ("KI110", f"{own}.bak", own)]
    # the work tree's `rm` in a later commit leaves the copy in that commit, which the
    # gate judges (hist00): refused, naming it; the branch's fix, as the gate says it
    assert f"`git rebase -i {base}`, and drop that commit" in found[0].fix
    (root / f"{own}.bak").unlink()
    fixed = commit_all(root, "remove the backup")
    [later] = [f for f in check_range(Store(root), f"{base}..{fixed}") if f.severity == "error"]
    assert (later.rule.id, later.file) == ("KI110", f"{own}.bak")
    assert f"(commit {head[:12]} brings it; a later commit of the range removes it" \
        in later.message
    git(root, "reset", "-q", "--hard", base)  # the commit dropped: the branch passes
    assert check_range(Store(root), f"{base}..HEAD") == []


def test_g9_a_renamed_names_file_is_one_ki110_saying_mv(named, monkeypatch):
    root, own, digest = named
    shutil.move(root / own, root / f"{own}.bak")
    errors = _verify(root, monkeypatch)  # no KI211 on the metadata ("kistore migrate")
    assert [(f["rule"], f["file"]) for f in errors] == [("KI110", f"{own}.bak")]
    assert f"`mv {own}.bak {own}`" in errors[0]["hint"]
    base = git(root, "rev-parse", "HEAD").strip()
    head = commit_all(root, "a rename")
    found = check_range(Store(root), f"{base}..{head}")  # no KI208, no KI211
    assert [(f.rule.id, f.file) for f in found] == [("KI110", f"{own}.bak")]
    assert f"in commit {head[:12]} of the branch" in found[0].fix
    assert f"`git rebase -i {base}`" in found[0].fix  # BASE named (fresh95 F6)
    # the advice followed: the branch without the commit passes
    git(root, "reset", "-q", "--hard", base)
    assert check_range(Store(root), f"{base}..HEAD") == []
