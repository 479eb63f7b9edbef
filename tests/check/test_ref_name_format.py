"""``check --updates`` holds a REF to git-check-ref-format(1)'s rules, as git itself does.

last97 4: ``refs/heads//main``, ``refs/heads/./main``, ``refs/heads/../main`` and
``refs/heads/main/`` passed ``check --updates`` (rc 0), though ``receive-pack`` refuses
them ("funny refname") before its hooks run. :func:`ref_format_problem` is compared here
with ``git check-ref-format`` on names built from the characters its rules are about.
"""

from __future__ import annotations

import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check.update_lines import ref_format_problem

PIECES = [b"a", b"/", b".", b"lock", b"@", b"{", b"~", b"^", b":", b"?", b"*", b"[", b"\\",
          b"\x01", b"\x1f", b"\x7f", b"\xe9", b"\xff", b"-", b" "]
"""What names are built of: a letter, and every character a rule of git's is about."""


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6))
def test_a_name_is_refused_exactly_when_git_refuses_it(pieces):
    name = b"refs/" + b"".join(pieces)
    git_takes = subprocess.run(["git", "check-ref-format", name]).returncode == 0
    assert (ref_format_problem(name) is None) == git_takes, (name, ref_format_problem(name))


def test_what_git_hands_a_hook_is_taken():
    for name in (b"refs/heads/main", b"refs/heads/caf\xe9", b"refs/tags/v1.0",
                 b"refs/heads/@", b"refs/heads/a.b/c-d_e", b"refs/notes/kistore"):
        assert ref_format_problem(name) is None, name
