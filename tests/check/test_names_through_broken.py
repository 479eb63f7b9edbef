"""A committed name and licence annotation kept through a metadata file that does not parse.

last96 1b: commit 1 truncates (or empties, or writes ``{``) a run's metadata file, commit 2
writes it with another ``name`` and ``kernelindex.dev/license`` "CC0-1.0". KI208 and KI432
compared each commit with its parent and skipped a side that did not parse; the contents
check saw only HEAD's final, valid file: ``check BASE..HEAD``, pre-receive and ``verify``
said ok. The gate now compares BASE's version of each changed metadata file with HEAD's
too, ``verify`` each version with the last version of that path that parsed, and ``add
--update-metadata`` judges against the last committed version that parses.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import add_docs, git
from .conftest import CAUTION, LICENSE

POINTER = "/annotations/kernelindex.dev~1license"
BREAKS = {"truncated": lambda held: held[:30], "empty": lambda held: b"",
          "brace": lambda held: b"{"}


def _committed_run(store, kit) -> tuple[dict, Digest]:
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=10, name="fast")
    run["metadata"]["annotations"] = {LICENSE: CAUTION, "kernelindex.dev/source": "lab-a"}
    add_docs(store, [protocol, env, workload, impl, run])
    return run, Digest.from_str(kit.digest(run))


def _commit(root, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def _rewrite(root, digest: Digest, name: str = "renamed", licence: str = "CC0-1.0") -> None:
    """Write the run's metadata as `add --update-metadata` would: another name and licence."""
    doc = {"annotations": {LICENSE: licence, "kernelindex.dev/source": "lab-a"},
           "name": name}
    metadata = root / layout.metadata_path(digest)
    metadata.parent.mkdir(parents=True, exist_ok=True)
    metadata.write_bytes(json.dumps(doc, separators=(",", ":"), sort_keys=True).encode())
    if name != "fast":
        names = root / layout.name_path("BenchmarkRun", name)
        names.parent.mkdir(parents=True, exist_ok=True)
        names.write_bytes(layout.name_record(digest))


def _findings(root, *args: str) -> list[dict]:
    done = CliRunner().invoke(main, ["--store", str(root), *args, "--json"])
    return json.loads(done.stdout)["findings"]


def _errors(root, spec: str) -> list[dict]:
    return [f for f in _findings(root, "check", spec) if f["severity"] == "error"]


def _moved(findings: list[dict], path: str) -> tuple[list[dict], list[dict]]:
    """The KI208 of the name and the KI432 of the licence on ``path``."""
    names = [f for f in findings if f["rule"] == "KI208" and f.get("file") == path
             and f.get("pointer") == "/name"]
    licence = [f for f in findings if f["rule"] == "KI432" and f.get("file") == path
               and f.get("pointer") == POINTER]
    return names, licence


@pytest.mark.parametrize("breaking", sorted(BREAKS))
def test_a_broken_commit_between_does_not_let_a_name_and_licence_move(store, kit, breaking):
    _, digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(digest)
    held = (store.root / path).read_bytes()
    (store.root / path).write_bytes(BREAKS[breaking](held))
    broken = _commit(store.root, "break metadata")
    # the broken commit alone: the contents check refuses it
    assert any(f["rule"] == "KI102" and f.get("file") == path
               for f in _errors(store.root, f"{base}..HEAD")), breaking
    _rewrite(store.root, digest)
    _commit(store.root, "rewrite metadata")
    errors = _errors(store.root, f"{base}..HEAD")
    names, licence = _moved(errors, path)
    assert len(names) == 1 and len(licence) == 1, errors
    assert names[0]["expected"] == "fast" and names[0]["found"] == "renamed", names
    assert licence[0]["expected"] == repr(CAUTION) and licence[0]["found"] == "'CC0-1.0'"
    assert f"BASE ({base[:12]})" in names[0]["message"], names[0]["message"]
    assert broken[:12] in names[0]["hint"] and f"`git rebase -i {base}`" in names[0]["hint"]
    # history: verify compares the new version with the last one that parsed
    history = _findings(store.root, "verify")
    names, licence = _moved(history, path)
    assert [f["severity"] for f in names] == ["error"], history
    assert [f["severity"] for f in licence] == ["warning"], history
    assert "last version of this file that parses" in names[0]["message"], names[0]
    # the committed names file of the old name: kept, never "remove a names file"
    [claim] = [f for f in history if f["rule"] == "KI212"]
    assert claim["file"] == layout.name_path("BenchmarkRun", "fast"), claim
    assert claim["hint"].startswith(
        "this names file holds the name 'fast' the manifest was committed under, which "
        f"commit {names[0]['extra']['commit'][:12]} moved (KI208 on {path}): keep it, a "
        "names file is never removed; "), claim["hint"]
    # the printed fix: drop the commits
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=store.root, check=True, env={
        **os.environ, "GIT_SEQUENCE_EDITOR": "sed -i -e 's/^pick/drop/'"})
    assert _errors(store.root, f"{base}..HEAD") == []


def test_the_second_commit_alone_on_base_is_refused(store, kit):
    _, digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    _rewrite(store.root, digest)
    _commit(store.root, "rewrite metadata")
    names, licence = _moved(_errors(store.root, f"{base}..HEAD"), layout.metadata_path(digest))
    assert len(names) == 1 and len(licence) == 1


def test_a_metadata_file_deleted_then_added_again_keeps_its_name_and_licence(store, kit):
    _, digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(digest)
    git(store.root, "rm", "-q", path)
    gone = _commit(store.root, "delete metadata")
    _rewrite(store.root, digest)
    back = _commit(store.root, "add it again renamed")
    errors = _errors(store.root, f"{base}..HEAD")
    names, licence = _moved(errors, path)
    assert len(names) == 1 and len(licence) == 1, errors
    assert gone[:12] in names[0]["hint"] and back[:12] in names[0]["hint"], names[0]["hint"]
    history = _findings(store.root, "verify")
    names, licence = _moved(history, path)
    assert len(names) == 1 and len(licence) == 1, history
    assert back[:12] in names[0]["message"], names[0]


def _committed_then(store, kit, *versions) -> tuple[str, str]:
    """Commit the run, then each of ``versions`` of its metadata file (a function of the
    committed bytes), a commit each; return BASE (the run's commit) and the file's path."""
    _, digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(digest)
    held = (store.root / path).read_bytes()
    for i, version in enumerate(versions):
        (store.root / path).write_bytes(version(held))
        _commit(store.root, f"version {i}")
    return base, path


def test_three_commits_two_broken_between(store, kit):
    base, path = _committed_then(store, kit, BREAKS["truncated"], BREAKS["empty"])
    _rewrite(store.root, layout.digest_from_path(path))
    _commit(store.root, "rewrite")
    errors = _errors(store.root, f"{base}..HEAD")
    names, licence = _moved(errors, path)
    assert len(names) == 1 and len(licence) == 1, errors
    names, licence = _moved(_findings(store.root, "verify"), path)
    assert len(names) == 1 and len(licence) == 1


def test_a_broken_commit_between_that_restores_the_file_is_fine_at_the_gate(store, kit):
    """Broken, then put back as BASE holds it: the net change is none; the broken commit
    stays in the history (KI102 was its own), no KI208 or KI432 is made up."""
    base, path = _committed_then(store, kit, BREAKS["truncated"], lambda held: held)
    errors = _errors(store.root, f"{base}..HEAD")
    assert _moved(errors, path) == ([], []), errors
    assert _moved(_findings(store.root, "verify"), path) == ([], [])


def test_pre_receive_refuses_the_pair(remote, landed_import):
    landed = remote.main()
    path = layout.metadata_path(Digest.from_str(landed_import))
    held = (remote.clone / path).read_bytes()
    (remote.clone / path).write_bytes(held[:40])
    _commit(remote.clone, "truncate metadata")

    def rename(clone):
        doc = json.loads(held)
        doc["name"], doc["annotations"][LICENSE] = "renamed", "CC0-1.0"
        (clone / path).write_bytes(json.dumps(doc, separators=(",", ":"),
                                              sort_keys=True).encode())
        names = clone / layout.name_path("BenchmarkRun", "renamed")
        names.parent.mkdir(parents=True, exist_ok=True)
        names.write_bytes(layout.name_record(Digest.from_str(landed_import)))

    pushed = remote.pr("rename and relicense", rename)
    assert not pushed.accepted, pushed.output
    assert f"{path}:/name: error KI208" in pushed.output, pushed.output
    assert f"{path}:{POINTER}: error KI432" in pushed.output, pushed.output
    assert remote.main() == landed


def _update_metadata(root, run: dict, **metadata) -> tuple[int, str]:
    doc = json.loads(json.dumps(run))
    doc["metadata"].update(metadata)
    manifest = root.parent / "m.json"
    manifest.write_text(json.dumps(doc))
    done = CliRunner().invoke(main, ["--store", str(root), "add", "--update-metadata",
                                     str(manifest)])
    return done.exit_code, done.output


@pytest.mark.parametrize("breaking", ["truncated", "empty", "deleted"])
def test_update_metadata_judges_against_the_last_committed_version_that_parses(
        store, kit, breaking):
    run, digest = _committed_run(store, kit)
    path = layout.metadata_path(digest)
    held = (store.root / path).read_bytes()
    if breaking == "deleted":
        git(store.root, "rm", "-q", path)
    else:
        (store.root / path).write_bytes(BREAKS[breaking](held))
    _commit(store.root, "break metadata")
    code, out = _update_metadata(store.root, run, name="renamed")
    assert code == 1 and "a name never moves" in out and "'renamed'" in out, out
    relicensed = {**run["metadata"]["annotations"], LICENSE: "CC0-1.0"}
    code, out = _update_metadata(store.root, run, annotations=relicensed)
    assert code == 1 and "KI432" in out and "'CC0-1.0'" in out, out
    assert git(store.root, "status", "--porcelain") == ""
    code, out = _update_metadata(store.root, run, title="a title")
    assert code == 0, out


def _drop_named(root, base: str, named: list[str]) -> None:
    """Follow a fix naming commits to drop: `git rebase -i BASE`, those commits dropped."""
    script = " ".join(f"-e 's/^pick {c[:7]}/drop {c[:7]}/'" for c in named)
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=root, check=True, env={
        **os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i {script}"})


def _break(root, path: str, how: str) -> None:
    if how == "deleted":
        git(root, "rm", "-q", path)
    else:
        (root / path).write_bytes(b"")


@pytest.mark.parametrize("how", ["empty", "deleted"])
def test_a_change_between_two_broken_versions_undone_by_head_is_refused(store, kit, how):
    """break97 H1: empty (or delete) the metadata file, write another name and licence,
    empty (delete) it again, restore it: BASE and HEAD agree and each commit's parent did
    not parse, so the gate, pre-receive and `check --landed` said ok while `verify` of the
    pushed branch failed for good. The gate now compares a version whose parent does not
    parse with the last one that does, in the range or BASE's."""
    _, digest = _committed_run(store, kit)
    root = store.root
    base = git(root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(digest)
    held = (root / path).read_bytes()
    commits = []
    for step in ("break", "rewrite", "break", "restore"):
        if step == "break":
            _break(root, path, how)
        elif step == "rewrite":
            (root / path).parent.mkdir(parents=True, exist_ok=True)  # git rm emptied it
            (root / path).write_text(json.dumps(
                {"annotations": {LICENSE: "Apache-2.0", "kernelindex.dev/source": "lab-a"},
                 "name": "stolen-name"}))
        else:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(held)
        commits.append(_commit(root, step))
    names, licence = _moved(_errors(root, f"{base}..HEAD"), path)
    # the change, not the restore (its fix names it: hist03, fresh04 L2)
    assert [(f["expected"], f["found"]) for f in names] == [("fast", "stolen-name")], names
    assert len(licence) == 1, licence
    ids = ", ".join(c[:12] for c in commits)
    for f in names + licence:  # every commit that changed the file, named once: drop them
        assert f["hint"].startswith(f"HEAD holds this metadata file as BASE does again, but "
                                    f"the commits that changed it ({ids}, the last restoring "
                                    "it) stay in the history"), f["hint"]
    _drop_named(root, base, commits)  # the fix, run as printed
    assert _errors(root, f"{base}..HEAD") == []


def test_a_licence_changed_after_a_broken_version_then_restored_names_the_change(store, kit):
    """break97 H2: empty the file, change the licence, restore it: KI432 named only the
    restoring commit (expected and found swapped) and dropping it, as its fix said, left a
    branch changing the licence. The change is found on its commit now, and the fix names
    all three."""
    _, digest = _committed_run(store, kit)
    root = store.root
    base = git(root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(digest)
    held = (root / path).read_bytes()
    (root / path).write_bytes(b"")
    emptied = _commit(root, "empty")
    doc = json.loads(held)
    doc["annotations"][LICENSE] = "Apache-2.0"
    (root / path).write_text(json.dumps(doc))
    changed = _commit(root, "relicence")
    (root / path).write_bytes(held)
    restored = _commit(root, "restore")
    _, licence = _moved(_errors(root, f"{base}..HEAD"), path)
    # the change alone: the restore is its fix, named there (hist03, fresh04 L2)
    assert [(f["extra"]["commit"], f["expected"], f["found"]) for f in licence] == [
        (changed, repr(CAUTION), "'Apache-2.0'")]
    assert f"({emptied[:12]}, {changed[:12]}, {restored[:12]}, the last restoring it)" \
        in licence[0]["hint"], licence[0]["hint"]
    _drop_named(root, base, [emptied, changed, restored])
    assert _errors(root, f"{base}..HEAD") == []
