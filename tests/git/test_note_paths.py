"""git/notes.py: which paths of a notes tree git reads otherwise than kistore (KI424, r78 F2).

git reads the note on an object at every fan-out form of its id (``abcd...``,
``ab/cd...``, ``ab/cd/ef...``) and concatenates them; kistore reads one. A tree placing
each object at one form, at any depth, is canonical; a second form of one object is found
whether the push adds it beside an unchanged note or adds both.
"""

from __future__ import annotations

import pygit2
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kistore.git.notes import (
    bad_note_paths,
    changed_notes,
    note_changes,
    note_paths,
    note_tree,
)

from ..conftest import write_tree

IDS = st.lists(st.text("0123456789abcdef", min_size=40, max_size=40), min_size=1,
               max_size=6, unique=True)
DEPTH = st.integers(0, 3)


def form(annotated: str, depth: int) -> str:
    """The path of the note on ``annotated`` under ``depth`` fan-out directories."""
    return "/".join([*(annotated[2 * i:2 * i + 2] for i in range(depth)),
                     annotated[2 * depth:]])


def build(repo: pygit2.Repository, placed: dict[str, pygit2.Oid]) -> pygit2.Tree:
    """Write the tree holding each blob at its path (directories as needed)."""
    return repo[write_tree(repo, placed)]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> pygit2.Repository:
    """One bare repository for every example (trees are content-addressed: none clash)."""
    return pygit2.init_repository(str(tmp_path_factory.mktemp("notes")), bare=True)


@settings(max_examples=60, deadline=None)
@given(ids=IDS, depths=st.lists(DEPTH, min_size=6, max_size=6), which=st.integers(0, 5),
       second=DEPTH)
def test_one_form_each_is_canonical_and_a_second_form_is_found(repo, ids, depths, which,
                                                               second):
    note = repo.create_blob(b"line\n")
    placed = {form(obj, depths[i]): note for i, obj in enumerate(ids)}
    tree = build(repo, placed)
    assert bad_note_paths(repo, None, tree) == []
    for i, obj in enumerate(ids):
        assert note_paths(repo, tree, obj) == [form(obj, depths[i])]
    obj = ids[which % len(ids)]
    first = depths[which % len(ids)]
    if second == first:
        return
    doubled = build(repo, {**placed, form(obj, second): repo.create_blob(b"hidden\n")})
    paths = tuple(sorted([form(obj, first), form(obj, second)]))
    for old in (None, tree):  # the whole tree; what a push beside an unchanged note changes
        found = bad_note_paths(repo, old, doubled)
        assert [(b.annotated, b.paths) for b in found] == [(obj, paths)]
        assert found[0].reason.startswith(f"the notes tree annotates {obj} at 2 paths (")


def test_a_path_git_reads_otherwise_is_named_and_an_unchanged_one_is_not_judged(repo):
    note = repo.create_blob(b"line\n")
    obj = "8a483ed84dcfee5e78f3cf2ae81ebda6cb81b795"
    stray = build(repo, {obj: note, "README": note})
    assert [b.path for b in bad_note_paths(repo, None, stray)] == ["README"]
    more = build(repo, {obj: note, "README": note, obj.replace("8a", "9a", 1): note,
                        obj.upper().replace("8A", "7A", 1): note})
    assert [b.path for b in bad_note_paths(repo, stray, more)] == [
        obj.upper().replace("8A", "7A", 1)]  # README unchanged: O(change) reads it no more


@settings(max_examples=60, deadline=None)
@given(ids=IDS, before=st.lists(st.tuples(DEPTH, st.integers(0, 2)), min_size=6, max_size=6),
       after=st.lists(st.tuples(DEPTH, st.integers(0, 2)), min_size=6, max_size=6))
def test_changed_notes_is_what_flattening_both_trees_tells(repo, ids, before, after):
    # each object noted (or not: 0) with one of two blobs, at any fan-out form on each side:
    # a note moved to another form with its blob is no change (git fans out as notes grow)
    blobs = [None, repo.create_blob(b"one\n"), repo.create_blob(b"two\n")]

    def tree(side: list[tuple[int, int]]) -> pygit2.Tree:
        return build(repo, {form(obj, depth): blobs[which] for obj, (depth, which)
                            in zip(ids, side, strict=False) if blobs[which] is not None})

    old, new = tree(before), tree(after)
    was, now = note_tree(repo, old), note_tree(repo, new)
    expected = {obj: (was.get(obj), now.get(obj)) for obj in sorted(was.keys() | now.keys())
                if was.get(obj) != now.get(obj)}
    assert changed_notes(repo, old, new) == expected
    assert changed_notes(repo, None, new) == {obj: (None, blob) for obj, blob in
                                              sorted(now.items())}


@settings(max_examples=60, deadline=None)
@given(ids=IDS, before=st.lists(st.tuples(DEPTH, st.integers(0, 3)), min_size=6, max_size=6),
       after=st.lists(st.tuples(DEPTH, st.integers(0, 3)), min_size=6, max_size=6),
       stray=st.booleans())
@example(  # CI, 2026-12-05: a note moved from a flat path beside a fan-out dir, same blob
    ids=["0" * 40, "0" * 39 + "1", "0" * 39 + "2", "1" + "0" * 39, "1" + "0" * 38 + "1"],
    before=[(0, 0), (0, 0), (0, 0), (1, 1), (0, 1), (0, 0)],
    after=[(0, 0), (0, 0), (0, 0), (0, 0), (1, 1), (0, 0)], stray=False)
def test_note_changes_is_bad_note_paths_and_the_notes_changed_notes_adds(repo, ids, before,
                                                                         after, stray):
    """rev95 item 3: one walk where two diffs were made. Its paths are bad_note_paths'; its
    notes, each note changed_notes gives a blob after (moved with its blob: no change), on
    a path naming an object id (an executable one too: git reads it)."""
    blobs = [None, repo.create_blob(b"one\n"), repo.create_blob(b"two\n"),
             repo.create_blob(b"three\n")]

    def tree(side: list[tuple[int, int]], junk: bool) -> pygit2.Tree:
        placed = {form(obj, depth): blobs[which] for obj, (depth, which)
                  in zip(ids, side, strict=False) if blobs[which] is not None}
        return build(repo, {**placed, **({"junk.txt": blobs[3]} if junk else {})})

    old, new = tree(before, False), tree(after, stray)
    # one note made executable (mode 100755): a note to git, a KI424 path to kistore
    entries = {e.name: e for e in new}
    if ids[0] in entries and entries[ids[0]].type_str == "blob":
        builder = repo.TreeBuilder(new)
        builder.insert(ids[0], entries[ids[0]].id, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)
        new = repo[builder.write()]
    for parent in (old, None):
        changes = note_changes(repo, parent, new)
        assert changes.bad == bad_note_paths(repo, parent, new)
        assert changes.notes == {obj: now for obj, (_was, now)
                                 in changed_notes(repo, parent, new).items()
                                 if now is not None and obj != "junk.txt"}
