"""The run page's first commit kept for HEAD's commit id (issue 22, branch page25).

What `git log` answered for an object file and blob is kept beside the index with the HEAD
id it was asked from; the next citation at that same HEAD starts no child. It is never
believed once HEAD has moved, once history could read otherwise (a replace ref, loose or
packed; a grafts file; a shallow cut; a variable pointing git elsewhere), or when the kept
file was edited: each of those asks git again and gets git's answer.
"""

from __future__ import annotations

import json
import os

import pytest

from kistore.cite import citation
from kistore.cite.citation import cite, first_commit
from kistore.git.blobs import ObjectUnreadable
from kistore.index import kept
from kistore.store import Store

from ..conftest import BUNDLE
from .test_citation import RUN, RUN_PATH, add, commit_all, git, new_store

TEMPLATE = '\n[cite]\npermalink = "https://example.org/r/{commit}/{path}"\n'
"""A permalink that does not use the remote: the only child a citation starts is git's
history listing (`log`), so the tests count exactly that."""


def children(monkeypatch) -> list[str]:
    """Record the git subcommand of every child the citation starts."""
    started: list[str] = []
    real = citation.subprocess.run

    def run(args, *rest, **kwargs):
        started.extend(a for a in args if a in ("log", "rev-list", "cat-file", "remote"))
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(citation.subprocess, "run", run)
    return started


def libgit2_first(path) -> str:
    """The commit libgit2's walk names for the run's object file at HEAD (the oracle)."""
    store = Store(path)
    blob = git(path, "rev-parse", f"HEAD:{RUN_PATH}")
    return str(first_commit(store.repo, RUN_PATH, blob, store.commit("HEAD")).id)


@pytest.fixture
def cited(tmp_path):
    """A store whose run was first added on day 1 (C1), HEAD one unrelated commit later."""
    path = new_store(tmp_path / "store", cite_table=TEMPLATE)
    add(path, BUNDLE)
    c1 = commit_all(path, "add the record", day=1)
    (path / "README.md").write_text("later\n")
    commit_all(path, "later", day=2)
    assert (path / ".git" / "kistore").is_dir()  # kept values live beside the index
    return path, c1


def test_the_second_citation_at_the_same_head_starts_no_child(cited, monkeypatch):
    path, c1 = cited
    started = children(monkeypatch)
    first = cite(Store(path), RUN)
    assert started == ["log"]
    second = cite(Store(path), RUN)
    assert started == ["log"]  # nothing more
    assert first == second
    assert second.commit == c1 == libgit2_first(path)
    assert second.published.isoformat() == "2026-07-14T08:00:00+00:00"
    assert second.permalink == f"https://example.org/r/{c1}/{RUN_PATH}"


def test_head_moved_asks_git_again_and_gets_the_new_history(cited, monkeypatch):
    """HEAD on another history, where the run was added by another commit: that commit,
    not the kept one; back on main: C1 again (each move asks git)."""
    path, c1 = cited
    init = git(path, "rev-list", "--max-parents=0", "HEAD")
    started = children(monkeypatch)
    assert cite(Store(path), RUN).commit == c1
    git(path, "checkout", "-q", "-b", "other", init)
    add(path, BUNDLE)
    c2 = commit_all(path, "the same record, added again on another history", day=5)
    assert c2 != c1
    assert cite(Store(path), RUN).commit == c2 == libgit2_first(path)
    git(path, "checkout", "-q", "main")
    assert cite(Store(path), RUN).commit == c1
    assert cite(Store(path), RUN).commit == c1
    assert started == ["log", "log", "log"]


def test_a_commit_on_top_asks_git_again(cited, monkeypatch):
    path, c1 = cited
    started = children(monkeypatch)
    cite(Store(path), RUN)
    (path / "NOTES.md").write_text("more\n")
    commit_all(path, "more", day=3)
    assert cite(Store(path), RUN).commit == c1
    assert cite(Store(path), RUN).commit == c1
    assert started == ["log", "log"]


def test_a_replace_ref_is_never_read_past(cited, monkeypatch):
    """`git replace` gives C1 another date: the kept answer is not believed while the
    replace ref exists, loose or packed, and git, asked again, still names the stored C1:
    kistore's git children ignore replace refs (GIT_NO_REPLACE_OBJECTS, review r75 F1;
    until 2026-12-03 the citation followed the replacement, and the site did not)."""
    path, c1 = cited
    started = children(monkeypatch)
    before = cite(Store(path), RUN)
    replaced = git(path, "commit-tree", f"{c1}^{{tree}}", "-p", f"{c1}~1", "-m", "replaced",
                   day=9)
    git(path, "replace", c1, replaced)
    as_git_says = citation.first_commit_by_git(path, path / ".git", RUN_PATH, before.blob)
    after = cite(Store(path), RUN)
    assert started == ["log", "log", "log"]  # the direct ask, and the citation's
    assert (after.commit, after.published) == (c1, before.published)  # not the stand-in's
    assert (as_git_says.id, as_git_says.commit_time) == (c1, before.published.timestamp())
    assert git(path, "show", "-s", "--format=%ct", c1) != str(
        as_git_says.commit_time)  # the git binary itself does read the replacement
    git(path, "pack-refs", "--all")  # packed: refs/replace/ may be empty or gone
    assert not list((path / ".git" / "refs" / "replace").glob("*"))
    assert cite(Store(path), RUN).published == after.published
    assert started == ["log", "log", "log", "log"]
    git(path, "replace", "-d", c1)
    assert cite(Store(path), RUN).published == before.published


def test_a_grafts_file_or_a_variable_pointing_git_elsewhere_is_not_read_past(
        cited, monkeypatch):
    path, _ = cited
    started = children(monkeypatch)
    cite(Store(path), RUN)
    grafts = path / ".git" / "info" / "grafts"
    grafts.write_text("")
    cite(Store(path), RUN)
    grafts.unlink()
    monkeypatch.setenv("GIT_REPLACE_REF_BASE", "refs/elsewhere/")
    cite(Store(path), RUN)
    assert started == ["log", "log", "log"]  # neither answer was kept
    monkeypatch.delenv("GIT_REPLACE_REF_BASE")
    cite(Store(path), RUN)  # the first answer, kept for this HEAD with neither
    assert started == ["log", "log", "log"]


def test_a_kept_answer_for_another_head_or_edited_is_not_believed(cited, monkeypatch):
    path, c1 = cited
    git_dir = path / ".git"
    started = children(monkeypatch)
    cite(Store(path), RUN)
    code = citation._code_id()
    blob = git(path, "rev-parse", f"HEAD:{RUN_PATH}")
    key = b"first commit\0%s\0%s" % (RUN_PATH.encode(), blob.encode())
    head = git(path, "rev-parse", "HEAD")
    c1_time = int(git(path, "show", "-s", "--format=%ct", c1))
    assert json.loads(kept.kept_value(git_dir, code, key)) == [head, c1, c1_time, c1, c1_time]
    forged = "f" * 40
    # a sealed value for another HEAD: git is asked (and the real answer kept again)
    kept.keep_value(git_dir, code, key, json.dumps([git(path, "rev-parse", "HEAD~1"),
                                                     forged, 0, forged, 0]))
    assert cite(Store(path), RUN).commit == c1
    # the value edited in place, its seal left: not believed either
    file = kept._path(git_dir, code, key)
    with open(file, encoding="utf-8") as f:
        value, seal = f.read().splitlines()
    with open(file, "w", encoding="utf-8") as f:
        f.write(value.replace(c1, forged) + "\n" + seal + "\n")
    assert cite(Store(path), RUN).commit == c1
    assert started == ["log", "log", "log"]
    assert cite(Store(path), RUN).commit == c1
    assert started == ["log", "log", "log"]


def test_a_shallow_clone_keeps_nothing_and_says_why_as_before(tmp_path, monkeypatch):
    path = new_store(tmp_path / "store", cite_table=TEMPLATE)
    add(path, BUNDLE)
    commit_all(path, "add the record", day=1)
    (path / "README.md").write_text("later\n")
    c2 = commit_all(path, "later", day=2)
    cite(Store(path), RUN)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{path}", str(shallow))
    (shallow / ".git" / "kistore").mkdir()
    for _ in range(2):
        with pytest.raises(citation.StoreStateError, match=f"stops at {c2}"):
            cite(Store(shallow), RUN)
    assert not any(files for _, _, files in os.walk(shallow / ".git" / "kistore"))


def test_a_kept_first_commit_that_is_gone_is_never_cited(cited, monkeypatch):
    """review r73 F3: the kept answer named a commit the repository no longer holds (its
    loose file deleted): a citation of a commit nobody can fetch. Checked before it is
    believed: git is asked again, and the history's damage is said, naming that commit."""
    path, c1 = cited
    started = children(monkeypatch)
    assert cite(Store(path), RUN).commit == c1
    (path / ".git" / "objects" / c1[:2] / c1[2:]).unlink()
    with pytest.raises(ObjectUnreadable, match=f"git object {c1} cannot be read \\(missing: "):
        cite(Store(path), RUN)
    assert started[0] == "log" and len(started) > 1  # asked again, not believed


def test_a_kept_first_commit_in_a_pack_is_believed(cited, monkeypatch):
    """The check reads pack indexes too: after `git gc` (every object packed, none loose),
    the kept answer still starts no child."""
    path, c1 = cited
    cite(Store(path), RUN)
    git(path, "gc", "-q")
    assert not (path / ".git" / "objects" / c1[:2] / c1[2:]).exists()
    started = children(monkeypatch)
    assert cite(Store(path), RUN).commit == c1
    assert started == []
