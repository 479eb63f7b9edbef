"""fresh00 M1: a pull request adds a run, then ``git rm``s it: each fix names the right commit.

At the gate a group file and a names file the range both adds and deletes are fixed by
dropping the deleting commit to keep the run (KI208 gave the rename advice), or both
commits when it is not wanted (hist03, fresh04 M3: the adding commit named as bringing
it); the pre-commit hook's KI208 restores the staged deletion from ``HEAD`` (it named
its own commit of the index and a ``git rebase -i HEAD`` git refuses on staged changes).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import ROOT, ManifestKit, add_docs, commit_all, git


def _added_run(store_path, kit: ManifestKit) -> tuple[str, list[str]]:
    """Commit a group, then one more run; return BASE and the run's files (object first)."""
    p, e, i, w = kit.protocol(), kit.environment(), kit.implementation(), kit.workload()
    runs = [kit.run(p, e, i, w, latency=10 + n, name=f"run-{n}") for n in range(2)]
    store = Store(store_path)
    add_docs(store, [p, e, i, w, runs[0]])
    base = git(store_path, "rev-parse", "HEAD").strip()
    before = set(git(store_path, "ls-files").split())
    [digest] = add_docs(store, [runs[1]])
    files = sorted(set(git(store_path, "ls-files").split()) - before)
    obj = layout.object_path(Digest.from_str(digest))
    return base, [obj] + [f for f in files if f != obj]


def test_a_run_added_then_removed_is_fixed_by_dropping_the_deleting_commit(store_path, kit):
    base, files = _added_run(store_path, kit)
    adding = git(store_path, "rev-parse", "HEAD").strip()
    assert any(f.startswith(layout.GROUPS_DIR + "/") for f in files)
    assert any(f.startswith(layout.NAMES_DIR + "/") for f in files)
    git(store_path, "rm", "-q", *files)
    deleting = commit_all(store_path, "remove the run")
    found = check_range(Store(store_path), f"{base}..{deleting}")
    fixes = {f.rule.id: f.fix for f in found if f.rule.id in ("KI208", "KI410")}
    assert set(fixes) == {"KI208", "KI410"}, [f.format() for f in found]
    for rule, fix in fixes.items():
        # BASE holds none of the files: both commits are named, the adding one as bringing
        # them (hist03, fresh04 M3), and dropping the deleting one alone keeps the run
        assert f"the range brought it and removed it again (commits {adding[:12]}, " \
            f"{deleting[:12]})" in fix, (rule, fix)
        assert f"Wanted: drop {deleting[:12]} alone, which removed it" in fix, (rule, fix)
        assert f"`git rebase -i {base}`" in fix, (rule, fix)
    assert "keep its metadata.name" not in fixes["KI208"]
    # run as printed, the run wanted: drop the deleting commit; the range then only adds it
    command = re.search(r"`(git rebase -i [0-9a-f]{40})`", fixes["KI208"]).group(1)
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i -e 's/^pick {deleting[:7]}/drop "
           f"{deleting[:7]}/'"}
    subprocess.run(command.split(), cwd=store_path, env=env, check=True, capture_output=True)
    assert git(store_path, "rev-parse", "HEAD").strip() == adding
    found = check_range(Store(store_path), f"{base}..HEAD")
    assert [f.format() for f in found if f.rule.severity == "error"] == []


def test_pre_commit_s_ki208_of_a_staged_deletion_restores_it_from_head(store_path, kit):
    _base, files = _added_run(store_path, kit)
    head = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "config", "core.hooksPath", str(ROOT / "hooks"))
    git(store_path, "rm", "-q", *files)
    kistore = str(Path(sys.executable).with_name("kistore"))  # as tests/check/test_hooks.py
    committed = subprocess.run(["git", "commit", "-m", "remove the run"], cwd=store_path,
                               capture_output=True, text=True,
                               env={**os.environ, "KISTORE": kistore})
    assert committed.returncode == 1
    fixes = [line for line in committed.stderr.splitlines()
             if line.startswith(("fix KI208", "fix KI410", "fix KI402"))]
    assert len(fixes) == 3, committed.stderr
    for line in fixes:
        assert "rebase" not in line and "of the branch" not in line, line
        assert "`git checkout HEAD -- " in line, line
    names = [f for f in files if f.startswith(layout.NAMES_DIR + "/")]
    [ki208] = [line for line in fixes if line.startswith("fix KI208")]
    assert f"`git checkout HEAD -- {names[0]}`" in ki208
    # run as printed: each file named is back as HEAD holds it, in the index too (KI402's
    # names the metadata file deleted beside the object: mend02; it showed as KI204 after)
    for line in fixes:
        [command] = re.findall(r"`(git checkout HEAD -- [^`]+)`", line)
        subprocess.run(command.split(), cwd=store_path, check=True, capture_output=True)
    assert git(store_path, "status", "--porcelain") == ""
    assert git(store_path, "rev-parse", "HEAD").strip() == head


def test_pre_commit_restores_an_object_and_its_metadata_file_deleted_together(store_path,
                                                                               kit):
    # mend02 (fix00's leftover): `git rm` of an object and its metadata file was told KI402
    # and `git checkout HEAD -- OBJECT`; the metadata file's absence showed only then, as
    # KI204 on the next commit. One hook run now says both; its fix, run as printed, is all
    p, e, i, w = kit.protocol(), kit.environment(), kit.implementation(), kit.workload()
    *_, run = add_docs(Store(store_path), [p, e, i, w, kit.run(p, e, i, w, name="run-0")])
    digest = Digest.from_str(run)
    obj, meta = layout.object_path(digest), layout.metadata_path(digest)
    git(store_path, "config", "core.hooksPath", str(ROOT / "hooks"))
    git(store_path, "rm", "-q", obj, meta)
    (store_path / "NOTES.md").write_text("notes\n")
    git(store_path, "add", "NOTES.md")
    kistore = str(Path(sys.executable).with_name("kistore"))

    def commit() -> subprocess.CompletedProcess:
        return subprocess.run(["git", "commit", "-q", "-m", "notes"], cwd=store_path,
                              capture_output=True, text=True,
                              env={**os.environ, "KISTORE": kistore})

    refused = commit()
    assert refused.returncode == 1
    errors = [line for line in refused.stderr.splitlines() if " error " in line]
    assert len(errors) == 1 and errors[0].startswith(f"{obj}: error KI402 object-deleted: "
                                                     "deleted in commit "), refused.stderr
    assert errors[0].endswith(f"(kistore pre-commit: staged changes); its metadata file "
                              f"{meta} is deleted too")
    [fix] = [line for line in refused.stderr.splitlines() if line.startswith("fix KI402")]
    assert fix == (
        "fix KI402 (1 finding): an object deleted, and its metadata file with it in the "
        "changes staged for this commit (the pre-commit hook checks the index as a commit of "
        "its own, on no branch): restore the files as HEAD holds them, in the index and the "
        f"work tree, with `git checkout HEAD -- {obj} {meta}`; objects are never deleted (a "
        "withdrawal is an attestation)")
    # run as printed: the next commit passes (aa20cc99: KI204 of the metadata file then)
    git(store_path, *re.search(r"`git (checkout HEAD -- [^`]+)`", fix).group(1).split())
    done = commit()
    assert done.returncode == 0, done.stderr
    assert git(store_path, "show", "--name-only", "--format=", "HEAD").split() == ["NOTES.md"]
