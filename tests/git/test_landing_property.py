"""The landing commit never moves as main moves on (kistore.git.landing; r81 F1, r82 F4).

Property over small random histories whose first-parent line only grows (what the
pre-receive hook allows main): commits on main, pull requests forked from any older main
commit (or parentless), dated whatever their author likes, with main merged into them or
not, re-adding bytes main already holds or not, each merged by a merge commit dated now.
After every step, every object's landing commit is the one it had (once it had one), its
date never goes back, and the libgit2 walk, the bulk walks and the ``git`` children agree.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pygit2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.cite.citation import first_and_landing_by_git
from kistore.core import layout
from kistore.git.landing import landing_commit, landing_commits, object_landing_commits

NOW = 1_800_000_000
"""Main's first commit; each later main commit is an hour on (the forge's clock)."""

step = st.one_of(
    st.tuples(st.just("direct"), st.booleans()),
    st.tuples(st.just("pull"), st.integers(0, 6),             # fork this far back on main
              st.integers(-400, 0),                           # its author's date, in days
              st.booleans(),                                  # main merged into it first
              st.booleans(),                                  # parentless (an orphan root)
              st.booleans()),                                 # re-adds an object main holds
)


def object_file(n: int) -> tuple[str, bytes]:
    """The n-th object: its store path and bytes (the digest is not checked here)."""
    data = b'{"n":%d}' % n
    hex_ = hashlib.sha256(data).hexdigest()
    return f"{layout.OBJECTS_DIR}/{hex_[:2]}/{hex_[2:]}.json", data


class History:
    """A repository built commit by commit, main's first-parent line growing only."""

    def __init__(self, path: Path) -> None:
        self.repo = pygit2.init_repository(str(path), initial_head="main")
        self.path = path
        self.main: list[pygit2.Oid] = []
        self.clock = NOW
        self.objects = 0

    def commit(self, files: dict[str, bytes], parents: list[pygit2.Oid], when: int,
               ref: str | None = None) -> pygit2.Oid:
        index = pygit2.Index()
        for name, data in files.items():
            index.add(pygit2.IndexEntry(name, self.repo.create_blob(data),
                                        pygit2.enums.FileMode.BLOB))
        tree = index.write_tree(self.repo)
        who = pygit2.Signature("t", "t@example.invalid", when, 0)
        return self.repo.create_commit(ref, who, who, "c", tree, parents)

    def files(self, commit: pygit2.Oid | None) -> dict[str, bytes]:
        if commit is None:
            return {}
        tree = self.repo[commit].peel(pygit2.Tree)
        return {f"{layout.OBJECTS_DIR}/{shard.name}/{leaf.name}": leaf.data
                for shard in self.repo[tree[layout.OBJECTS_DIR].id] for leaf in shard} \
            if layout.OBJECTS_DIR in tree else {}

    def new_object(self) -> dict[str, bytes]:
        self.objects += 1
        return dict([object_file(self.objects)])

    def on_main(self, files: dict[str, bytes], parents: list[pygit2.Oid]) -> None:
        self.clock += 3600
        self.main.append(self.commit(files, parents, self.clock, "refs/heads/main"))

    def apply(self, op: tuple) -> None:
        tip = self.main[-1] if self.main else None
        if op[0] == "direct" or tip is None:
            self.on_main({**self.files(tip), **(self.new_object() if op[-1] else {})},
                         [tip] if tip else [])
            return
        _, back, days, update, orphan, readd = op
        fork = None if orphan else self.main[max(0, len(self.main) - 1 - back)]
        new = dict([next(iter(self.files(tip).items()))]) if readd and self.files(tip) \
            else self.new_object()
        side = self.commit({**self.files(fork), **new}, [fork] if fork else [],
                           self.clock + days * 86400)
        if update:  # "Update branch": main merged into the pull request, dated by its author
            side = self.commit({**self.files(tip), **self.files(side)}, [side, tip],
                               self.clock + days * 86400 + 60)
        self.on_main({**self.files(tip), **self.files(side)}, [tip, side])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=6))
def test_the_landing_commit_never_moves_as_main_moves_on(tmp_path_factory, steps):
    history = History(tmp_path_factory.mktemp("landing"))
    history.apply(("direct", True))
    landed: dict[tuple[str, str], tuple[str, int]] = {}
    for op in steps:
        history.apply(op)
        repo, head = history.repo, history.repo[history.main[-1]]
        held = {p: str(pygit2.hash(d)) for p, d in history.files(history.main[-1]).items()}
        bulk = landing_commits(repo, held, head)
        walked: dict[tuple[str, str], str] = {}
        for path, blob, commit in object_landing_commits(repo, head):
            walked.setdefault((path, blob), str(commit.id))
        for path, blob in held.items():
            one = landing_commit(repo, path, blob, head)
            assert one is not None and str(one.id) == str(bulk[path].id) == walked[path, blob]
            now = (str(one.id), one.commit_time)
            assert landed.setdefault((path, blob), now) == now  # never moves
            by_git = first_and_landing_by_git(history.path, Path(repo.path), path, blob,
                                              str(head.id))
            if by_git is not None:  # None: several introducers, libgit2 answers
                assert (by_git[1].id, by_git[1].commit_time) == now
            # the forge dated it: main's clock, never a pull request author's
            assert one.commit_time > NOW and str(one.id) in {str(c) for c in history.main}
