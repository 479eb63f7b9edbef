"""KI425: a range that re-adds an object so that its citation would move is refused.

Review r78 F3: a pull request forked before an object was added re-adds the same manifest
(commit B) and merges main into itself (B's line the merge's first parent); main then
fast-forwards to it, or takes it with GitHub's merge commit. The gate said KI406 "no-op"
and every citation of the object (``kistore cite``, the site, export's ``firstCommit``)
named B from then on instead of A, the commit that first added it. The first-adding commit
is now the earliest introducer by committer time (:mod:`kistore.git.first_added`), which
no merge order changes; a re-add that would come first (an earlier committer time) is
refused, KI425.
"""

from __future__ import annotations

import datetime as dt

import pygit2
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.check.gate import check_range
from kistore.cite.citation import cite
from kistore.cli import main
from kistore.core.findings import ERROR
from kistore.core.model import Manifest
from kistore.store import Store

from ..cite.test_citation import RUN, RUN_PATH, add, at_day, commit_all, git, new_store
from ..conftest import BUNDLE


def pr_merging_main(tmp_path, re_add_day: int, smaller_id: bool = False
                    ) -> tuple[object, str, str]:
    """Main publishes the record (A, day 2); a branch forked before A re-adds it (B, on
    ``re_add_day``), then merges main into itself (day 5, first parent B's line).
    ``smaller_id``: B's message is amended until B's id sorts before A's (the ids are fixed,
    dates and identity being so: a deterministic few amends).

    Returns:
        (the store's path, A, B); the branch ``pr`` is checked out.
    """
    path = new_store(tmp_path / "store")
    (path / "README.md").write_text("main work\n")
    commit_all(path, "main work", day=1)
    add(path, BUNDLE)
    a = commit_all(path, "publish the record", day=2)
    git(path, "checkout", "-q", "-b", "pr", f"{a}^")
    add(path, BUNDLE)
    b = commit_all(path, "re-add the record", day=re_add_day)
    while smaller_id and b > a:
        git(path, "commit", "-q", "--amend", "--no-gpg-sign", "-m", f"re-add {b[:4]}",
            day=re_add_day)
        b = git(path, "rev-parse", "HEAD")
    git(path, "merge", "-q", "--no-edit", "--no-gpg-sign", "main", day=5)
    return path, a, b


def by_rule(findings, rule_id: str):
    return [f for f in findings if f.rule.id == rule_id]


def errors(findings):
    return [f for f in findings if f.rule.severity == ERROR]


def test_pr_merging_main_then_fast_forwarded_keeps_the_citation(tmp_path):
    # r78 repro 03: B (day 3) after A (day 2): the citation stays A's, the re-add is a no-op
    path, a, b = pr_merging_main(tmp_path, re_add_day=3)
    findings = check_range(Store(path), "main..pr")
    assert errors(findings) == []
    assert RUN_PATH in {f.file for f in by_rule(findings, "KI406")}
    assert by_rule(findings, "KI425") == []
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--ff-only", "pr")

    citation = cite(Store(path), RUN, accessed=dt.date(2026, 12, 1))

    assert citation.commit == a != b  # main's code named B here: the citation moved
    # the fast-forward made the branch's line main's first-parent line (A is now a second
    # parent), so the object landed on it at B (day 3): the published date is B's. Such an
    # update rewrites main's first-parent line, the pre-receive hook's to refuse
    # (docs/citation.md, "The published date"); the permalink stays A's.
    assert (citation.landed, citation.published) == (
        b, dt.datetime(2026, 7, 16, 8, 0, tzinfo=dt.UTC))
    assert cite(Store(path), RUN, at=a).commit == a


def test_pr_merging_main_taken_by_a_github_merge_commit_keeps_the_citation(tmp_path):
    # r78 repro 03b: main takes the branch with a merge commit (first parent main)
    path, a, b = pr_merging_main(tmp_path, re_add_day=3)
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "--no-edit", "--no-gpg-sign", "pr", day=6)

    findings = check_range(Store(path), "HEAD^1..HEAD")

    assert errors(findings) == [] and by_rule(findings, "KI425") == []
    assert RUN_PATH in {f.file for f in by_rule(findings, "KI406")}
    assert cite(Store(path), RUN).commit == a != b
    assert cite(Store(path), RUN, at="HEAD^1").commit == a


def test_a_re_add_at_the_same_committer_time_with_a_smaller_id_says_the_tie(tmp_path):
    """fresh00 LOW: equal committer times, the tie going to the smaller commit id, were
    worded "with an earlier committer time" between two equal times."""
    path, a, b = pr_merging_main(tmp_path, re_add_day=2, smaller_id=True)
    moved = {f.file: f for f in by_rule(check_range(Store(path), "main..pr"), "KI425")}[RUN_PATH]
    assert moved.message == (
        f"the range moves this object's citation from commit {a[:12]} (2026-07-15T08:00:00Z), "
        f"which first added it, to commit {b[:12]} (2026-07-15T08:00:00Z), which adds the same "
        "bytes with the same committer time and a smaller commit id, which wins the tie: "
        "`kistore cite`, the site and export would name it from then on")


def test_a_re_add_dated_before_the_first_add_is_refused(tmp_path):
    # the same branch, but B's committer time (a clock behind, or a forged date) is before A's:
    # B would be the earliest introducer, and every citation would name it
    path, a, b = pr_merging_main(tmp_path, re_add_day=1)

    findings = check_range(Store(path), "main..pr")

    moved = {f.file: f for f in by_rule(findings, "KI425")}
    assert RUN_PATH in moved
    finding = moved[RUN_PATH]
    assert finding.rule.severity == ERROR and finding.rule.name == "citation-moved"
    assert finding.extra == {"old": a, "new": b}
    assert finding.message == (
        f"the range moves this object's citation from commit {a[:12]} (2026-07-15T08:00:00Z), "
        f"which first added it, to commit {b[:12]} (2026-07-14T08:00:00Z), which adds the same "
        "bytes with an earlier committer time: `kistore cite`, the site and export would name "
        "it from then on")
    # BASE named by its commit, as git takes it (fresh95 F6)
    assert f"`git rebase {git(path, 'rev-parse', 'main').strip()}`" in finding.hint
    assert cite(Store(path), RUN, at="main").commit == a
    assert cite(Store(path), RUN, at="pr").commit == b  # what landing it would do

    # the command: exit 1, the rule named
    result = CliRunner().invoke(main, ["--store", str(path), "check", "main..pr"])
    assert result.exit_code == 1, result.output
    assert "KI425" in result.output

    # a GitHub merge commit of the same branch is refused the same way
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "--no-edit", "--no-gpg-sign", "pr", day=6)
    merged = check_range(Store(path), "HEAD^1..HEAD")
    assert {f.extra["new"] for f in by_rule(merged, "KI425")} == {b}


def test_the_advice_works_rebasing_the_branch_moves_nothing(tmp_path):
    path, a, b = pr_merging_main(tmp_path, re_add_day=1)
    git(path, "reset", "-q", "--hard", b)
    git(path, "rebase", "-q", "main", day=6)  # B's re-add is empty on top of main: dropped

    findings = check_range(Store(path), "main..pr")

    assert by_rule(findings, "KI425") == [] and errors(findings) == []


def test_an_independent_re_add_that_moves_nothing_stays_ki406_info(tmp_path):
    # a branch forked before A re-adds the record later (day 3) and is merged as it is
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    a = commit_all(path, "publish the record", day=2)
    git(path, "checkout", "-q", "-b", "pr", f"{a}^")
    add(path, BUNDLE)
    commit_all(path, "re-add the record", day=3)
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "--no-edit", "--no-gpg-sign", "pr", day=4)

    findings = check_range(Store(path), "HEAD^1..HEAD")

    assert errors(findings) == []
    assert RUN_PATH in {f.file for f in by_rule(findings, "KI406")}
    assert all(f.rule.severity == "info" for f in by_rule(findings, "KI406"))
    assert cite(Store(path), RUN).commit == a


def test_main_merged_into_the_branch_is_no_re_add_but_the_branch_s_own_re_add_is(tmp_path):
    # fresh00 LOW: `git merge main` on pr listed every object main brought as a KI406
    # "re-add" of the merge commit; BASE holds them and only the merge of BASE brings them
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    a = commit_all(path, "publish the record", day=2)
    git(path, "checkout", "-q", "-b", "pr", f"{a}^")
    (path / "README.md").write_text("branch work\n")
    commit_all(path, "branch work", day=3)
    git(path, "merge", "-q", "--no-edit", "--no-gpg-sign", "main", day=4)

    findings = check_range(Store(path), "main..pr")

    assert by_rule(findings, "KI406") == [] and errors(findings) == []
    # the branch's own re-add of an identical manifest keeps its KI406, at its commit only
    path, _, b = pr_merging_main(tmp_path / "readd", re_add_day=3)
    said = [f.message for f in by_rule(check_range(Store(path), "main..pr"), "KI406")]
    assert said and all(m.startswith(f"commit {b[:12]} re-adds") for m in said), said


def test_a_tie_in_time_goes_to_the_smaller_commit_id(tmp_path):
    # A and B both at day 2: the rule's tie-break, the same from every tip
    path, a, b = pr_merging_main(tmp_path, re_add_day=2)
    first = min(a, b)
    findings = check_range(Store(path), "main..pr")
    assert bool(by_rule(findings, "KI425")) == (first == b)
    assert cite(Store(path), RUN, at="pr").commit == first
    assert at_day(2) == git(path, "log", "-1", "--format=@%ct +0000", b)


# -- property: what the gate accepts never moves a citation ----------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A store's first commit and the files two workloads each add to it (disjoint)."""
    from ..conftest import ManifestKit

    path = new_store(tmp_path_factory.mktemp("moved") / "store")
    init = git(path, "rev-parse", "HEAD")
    store, kit, files, digests = Store(path), ManifestKit(), [], []
    for name in ("w-a", "w-b"):
        git(path, "reset", "-q", "--hard", init)
        manifest = Manifest.from_document(kit.workload(name, name=name))
        store.add([manifest])
        commit = commit_all(path, f"add {name}", day=1)
        diff = store.repo.diff(store.repo[init].tree, store.repo[commit].tree)
        files.append([(d.new_file.path, d.new_file.id, d.new_file.mode) for d in diff.deltas])
        digests.append(manifest.digest)
    git(path, "reset", "-q", "--hard", init)
    assert not {p for p, _, _ in files[0]} & {p for p, _, _ in files[1]}
    return path, init, files, digests


@st.composite
def histories(draw):
    """Up to six commits after the first (index 0): each one parent or a merge of two (in
    either order), each adding none, one or both workloads on day 1-4 (ties, and a re-add
    dated before the first add, included); and a BASE among the last commit's ancestors.

    Returns:
        ``([(parents, adds, day), ...], base)``: commit i+1 is the list's i-th.
    """
    n = draw(st.integers(2, 6))
    commits = []
    for i in range(1, n + 1):
        earlier = st.integers(0, i - 1)
        if i > 1 and draw(st.booleans()):
            first = draw(earlier)
            parents: tuple[int, ...] = (first, draw(earlier.filter(lambda x, f=first: x != f)))
        else:
            parents = (draw(earlier),)
        commits.append((parents, tuple(sorted(draw(st.sets(st.integers(0, 1))))),
                        draw(st.integers(1, 4))))
    ancestors, todo = set(), [n]
    while todo:
        i = todo.pop()
        if i not in ancestors:
            ancestors.add(i)
            todo.extend(commits[i - 1][0] if i else ())
    return commits, draw(st.sampled_from(sorted(ancestors - {n})))


R78_MERGE_MAIN = ([((0,), (), 1), ((1,), (0,), 2), ((1,), (0,), 3), ((3, 2), (), 4)], 2)
"""r78 repro 03: main adds at 2 (day 2); a branch from 1 re-adds at 3 (day 3) and merges main
(first parent its own line); BASE main (2), HEAD the merge."""
R78_GITHUB = ([((0,), (), 1), ((1,), (0,), 2), ((1,), (0,), 3), ((3, 2), (), 4),
               ((2, 4), (), 4)], 2)
"""r78 repro 03b: the same, taken by a merge commit whose first parent is main (2)."""
R78_BACKDATED = ([((0,), (), 2), ((1,), (0,), 3), ((1,), (0,), 2), ((3, 2), (), 4)], 2)
"""The same branch with the re-add dated before the first add: the gate must refuse it."""


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(history=R78_MERGE_MAIN)
@example(history=R78_GITHUB)
@example(history=R78_BACKDATED)
@given(history=histories())
def test_what_the_gate_accepts_never_moves_a_citation(template, history):
    path, init, files, digests = template
    store = Store(path)
    repo = store.repo
    commits, base = history
    ids, held = [pygit2.Oid(hex=init)], [set()]
    for i, (parents, adds, day) in enumerate(commits, start=1):
        holds = set(adds).union(*(held[p] for p in parents))
        index = pygit2.Index()
        index.read_tree(repo[init].tree)
        for k in sorted(holds):
            for file, oid, mode in files[k]:
                index.add(pygit2.IndexEntry(file, oid, mode))
        when = int(at_day(day)[1:].split()[0])
        sig = pygit2.Signature("kistore tests", "tests@kistore.invalid", when, 0)
        ids.append(repo.create_commit(None, sig, sig, f"commit {i}", index.write_tree(repo),
                                      [ids[p] for p in parents]))
        held.append(holds)
    head = str(ids[-1])
    findings = check_range(store, f"{ids[base]}..{head}")
    if errors(findings):  # KI428: a commit dated over a day before its parent
        assert {f.rule.id for f in errors(findings)} <= {"KI425", "KI428"}, findings
        return
    for k in sorted(held[base]):
        assert (cite(store, digests[k], at=str(ids[base])).commit
                == cite(store, digests[k], at=head).commit), (k, findings)
