"""The cheap tests before each name check never hide a name the check refuses (properties).

``_paths`` runs KI115 only on names whose collision key holds ``git`` and KI118 only on
names :data:`kistore.check._paths._MAYBE_WINDOWS_INVALID` matches; ``tree_entries`` reads
a name as ``.gitmodules`` and kin only when :data:`kistore.core.tree_entries._MAYBE_SPECIAL`
matches its bytes. A prefilter that missed one would let that name pass in silence.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check._paths import _MAYBE_WINDOWS_INVALID
from kistore.core import git_names
from kistore.core.git_names import name_key
from kistore.core.tree_entries import _MAYBE_SPECIAL

PIECES = [".git", "git~1", ".gitmodules", "gitmod~1", "gi7eba~1", ".mailmap", "maba30~1",
          "gitatt~1", ".gitignore", "CON", "aux", "nul", "COM1", "lpt9", "conin$", "x", "~"]
CHARACTERS = list(". :\\<>\"|?*~$1290gitGITxé\u200c\u200d\u206f\ufeff\u0130\x01\x1f\t")
names = st.lists(st.one_of(st.sampled_from(PIECES), st.text(st.sampled_from(CHARACTERS),
                                                            max_size=3)),
                 min_size=1, max_size=4).map("".join).filter(lambda n: "/" not in n)


@settings(max_examples=400, deadline=None)
@given(names)
def test_prefilters_keep_every_name_the_checks_refuse(name):
    if git_names.is_dotgit(name):
        assert "git" in name_key(name)
    if git_names.windows_problem(name) is not None:
        assert _MAYBE_WINDOWS_INVALID.search(name)
    if git_names.special_file(name) is not None:
        assert _MAYBE_SPECIAL.search(name.encode("utf-8", "surrogateescape"))
