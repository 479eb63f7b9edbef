"""A committed run's `metadata.name` edited by hand: the work-tree queries say so (fresh03 H4).

`sed -i` of the name made `rank` list the run and `show` answer under the new name with
stderr empty, while `verify` reported three errors (a name never moves). The answer stays
the work tree's (what every work-tree query answers); one line on stderr names the file,
both names and the way back (`kistore.cli._renamed_here`).
"""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout

from ..conftest import git


def _kistore(store, *args: str):
    result = CliRunner().invoke(main, ["--store", str(store.root), *args])
    assert result.exit_code == 0, result.output
    return result


def _warning(path: str, new: str, old: str = "slow") -> str:
    return (f"warning: {path}: the work tree names it BenchmarkRun/{new}, HEAD "
            f"BenchmarkRun/{old} (its metadata edited by hand): answered as "
            f"BenchmarkRun/{new}, which `kistore verify` refuses (a name never moves: KI211, "
            f"KI212); restore it with `git checkout HEAD -- {path}`\n")


def _rename(store, how: str) -> tuple[str, str, str]:
    """Give ``slow`` another name in its work-tree metadata file: ``sed -i`` (a new file
    renamed over it) or in place (same length: the directory's mtime does not move)."""
    digest = store.view("HEAD").find_name("BenchmarkRun", "slow")
    path = layout.metadata_path(digest)
    file = store.root / path
    data = file.read_bytes()
    assert data.count(b'"name":"slow"') == 1
    new = "slow2" if how == "sed -i" else "slox"
    rewrite(file, data.replace(b'"name":"slow"', f'"name":"{new}"'.encode()), how)
    return str(digest), path, new


def rewrite(file, edited: bytes, how: str) -> None:
    """Write ``edited`` to ``file`` as ``sed -i`` does (a new file renamed over it) or in
    place (``how`` "in place": its directory's mtime does not move)."""
    if how == "sed -i":
        (file.parent / "sedXYZ").write_bytes(edited)
        os.replace(file.parent / "sedXYZ", file)
    else:
        with open(file, "r+b") as f:
            f.write(edited)
            f.truncate()


@pytest.mark.parametrize("how", ["sed -i", "in place"])
def test_rank_show_and_compare_say_a_name_edited_in_the_work_tree(group, how):
    _kistore(group, "rank", "BenchmarkRun/fast")  # the index built, every file seen clean
    digest, path, new = _rename(group, how)
    warning = _warning(path, new)

    ranked = _kistore(group, "rank", "BenchmarkRun/fast")
    assert f" {digest[:19]} {new} [" in ranked.stdout  # answered from the work tree
    assert ranked.stderr == warning
    for ref in (digest[7:15], *([f"BenchmarkRun/{new}"] if how == "sed -i" else [])):
        shown = _kistore(group, "show", ref)
        assert shown.stdout.startswith(f"{new}: {new}\n"), shown.stdout
        assert shown.stderr == warning
    compared = _kistore(group, "compare", digest[7:15], "BenchmarkRun/fast", "--json")
    assert compared.stderr == warning
    listed = _kistore(group, "ls", "--kind", "BenchmarkRun")
    # `ls` checks shard directories, not files (kistore.index._fresh): `sed -i` moved the
    # directory's mtime, so the file is read; in place, it is only when the directory is
    # within the racy window (this test's seconds), else listed as HEAD's index has it,
    # under HEAD's name: the warning goes with the new name, never without it
    lists_new = f"{digest} BenchmarkRun {new}\n" in listed.stdout
    assert lists_new or (how == "in place" and f"{digest} BenchmarkRun slow\n" in listed.stdout)
    assert listed.stderr == (warning if lists_new else "")

    at_head = _kistore(group, "rank", "BenchmarkRun/fast", "--at", "HEAD")
    assert (f" {digest[:19]} slow [" in at_head.stdout, at_head.stderr) == (True, "")
    verified = CliRunner().invoke(main, ["--store", str(group.root), "verify"])
    assert verified.exit_code == 1 and "KI211" in verified.stdout  # what the warning says

    git(group.root, "checkout", "HEAD", "--", path)  # the fix it gives
    ranked = _kistore(group, "rank", "BenchmarkRun/fast")
    assert (f" {digest[:19]} slow [" in ranked.stdout, ranked.stderr) == (True, "")


def test_a_title_edited_in_the_work_tree_is_answered_without_a_word(group):
    """Metadata other than the name may be corrected (KI405): verify accepts it."""
    digest = group.view("HEAD").find_name("BenchmarkRun", "slow")
    file = group.root / layout.metadata_path(digest)
    assert file.read_bytes() == b'{"name":"slow"}'
    file.write_bytes(b'{"name":"slow","title":"Corrected"}')
    shown = _kistore(group, "show", "BenchmarkRun/slow", "--json")
    assert shown.stderr == ""
    assert json.loads(shown.stdout)["title"] == "Corrected"
    assert _kistore(group, "rank", "BenchmarkRun/fast").stderr == ""


def test_many_renamed_runs_are_counted_past_three(store, kit):
    from ..conftest import add_docs

    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for i in range(5):
        impl = kit.implementation(f"proj-{i}", name=f"impl-{i}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=100 + i, name=f"r{i}")]
    add_docs(store, docs)
    paths = []
    for i in range(5):
        digest = store.view("HEAD").find_name("BenchmarkRun", f"r{i}")
        path = layout.metadata_path(digest)
        file = store.root / path
        file.write_bytes(file.read_bytes().replace(f'"name":"r{i}"'.encode(),
                                                   f'"name":"q{i}"'.encode()))
        paths.append((str(digest), path, i))
    lines = _kistore(store, "rank", paths[0][0][7:15]).stderr.splitlines()
    said = [_warning(path, f"q{i}", f"r{i}").rstrip("\n")
            for _, path, i in sorted(paths)][:3]
    assert lines == [*said, "warning: 2 more manifest(s) of this answer are named otherwise "
                     "in the work tree than in HEAD: `kistore verify` lists them"]
