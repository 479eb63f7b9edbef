"""first_commits (one history walk for many objects) agrees with first_commit per object;
citations without an access date (a static page's) leave the field out of every format."""

from __future__ import annotations

import datetime as dt
import json

import pygit2

from kistore.cite.citation import Citation, first_commit, first_commits
from kistore.cite.formats import render
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest
from kistore.store import Store

from .test_citation import commit_all, git, new_store


def _workload(name: str) -> Manifest:
    return Manifest.from_document({
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
        "metadata": {"name": name}, "spec": {"suite": {"name": "bulk"}, "definition": name}})


def _add(path, *names: str) -> None:
    Store(path).add([_workload(n) for n in names])


def test_first_commits_equals_first_commit_on_a_branchy_history(tmp_path):
    path = new_store(tmp_path / "store", remote=None)
    _add(path, "a1", "a2")
    c1 = commit_all(path, "a", day=1)
    git(path, "checkout", "-q", "-b", "side")
    _add(path, "b1")
    s1 = commit_all(path, "side b", day=2)
    _add(path, "both")  # added on both branches, identical bytes
    s2 = commit_all(path, "side both", day=3)
    git(path, "checkout", "-q", "main")
    _add(path, "c1")
    m1 = commit_all(path, "main c", day=4)
    _add(path, "both")
    m2 = commit_all(path, "main both", day=5)
    git(path, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge side", "side", day=6)
    repo = pygit2.Repository(str(path))
    head = repo.revparse_single("HEAD")
    wanted = {}
    for name in ("a1", "a2", "b1", "both", "c1"):
        file = layout.object_path(_workload(name).digest)
        wanted[file] = str(head.tree[file].id)
    bulk = first_commits(repo, wanted, head)
    assert {p: str(c.id) for p, c in bulk.items()} == {
        p: str(first_commit(repo, p, blob, head).id) for p, blob in wanted.items()}
    by_name = {n: str(bulk[layout.object_path(_workload(n).digest)].id)
               for n in ("a1", "a2", "b1", "both", "c1")}
    assert by_name["a1"] == by_name["a2"] == c1
    assert (by_name["b1"], by_name["c1"]) == (s1, m1)
    assert by_name["both"] in (s2, m2)  # whichever the walk visits first, as first_commit
    # commits since a known one: the walk leaves out its history
    since = first_commits(repo, {layout.object_path(_workload("c1").digest):
                                 wanted[layout.object_path(_workload("c1").digest)]},
                          head, hide=c1)
    assert [str(c.id) for c in since.values()] == [m1]
    # a file no commit holds (or holds with other bytes) is left out
    assert first_commits(repo, {"store/objects/sha256/00/x.json": "0" * 40}, head) == {}


CITATION = Citation(
    digest=Digest.from_str("sha256:" + "ab" * 32), kind="BenchmarkRun", name="run-1",
    title="A run", path="store/objects/sha256/ab/" + "ab" * 31 + ".json", blob="1" * 40,
    commit="2" * 40, published=dt.datetime(2026, 7, 14, 8, tzinfo=dt.UTC), accessed=None,
    permalink="https://github.com/o/r/blob/" + "2" * 40 + "/store/x.json", authors=("A",),
    publisher="KernelIndex")


def test_a_citation_without_access_date_leaves_the_field_out_of_every_format():
    assert "accessed" not in render(CITATION, "text")
    assert "urldate" not in render(CITATION, "bibtex")
    assert "accessed" not in json.loads(render(CITATION, "csl-json"))[0]
    assert CITATION.to_json()["accessed"] is None
    dated = CITATION._replace(accessed=dt.date(2026, 11, 29))
    assert "  accessed:  2026-11-29" in render(dated, "text")
    assert "urldate      = {2026-11-29}" in render(dated, "bibtex")
    # everything else is the same text
    assert render(dated, "bibtex").replace("  urldate      = {2026-11-29},\n", "") == \
        render(CITATION, "bibtex")
