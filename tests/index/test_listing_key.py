"""A racy directory's listing key sees a file renamed over on a reused inode (A-B-A).

``sed -i`` twice in one clock tick frees the file's first inode and may get it back: the
directory then listed the same names and inode numbers as before while a name in it had
changed, and the names missed it (found under load by tests/index/test_names_after_add.py).
The key now holds each entry's ctime and size too.
"""

from __future__ import annotations

import os

from kistore.index.freshness import listing, listing_key


def test_a_file_replaced_on_the_same_inode_number_changes_the_key(tmp_path):
    (tmp_path / "d").mkdir()
    path = tmp_path / "d" / "f.json"
    path.write_bytes(b'{"name":"seed"}')
    before = listing(os.fspath(tmp_path), "d")
    assert before is not None
    key = listing_key(os.fspath(tmp_path), "d", before)
    assert key == listing_key(os.fspath(tmp_path), "d", before)  # nothing changed: same key
    temporary = tmp_path / "d" / "edit.tmp"
    temporary.write_bytes(b'{"name":"r1-seed"}')
    os.replace(temporary, path)
    # what getdents says when the kernel hands the old inode number back: the same listing
    assert listing_key(os.fspath(tmp_path), "d", before) != key
