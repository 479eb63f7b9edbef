"""KI428: commit dates kistore can believe, and readers that never crash on one it cannot.

Review r79 F2: a commit dated year 10000 passed the gate, then ``verify``, ``export``, the
site, ``attestations`` and ``cite`` stopped with "internal error (ValueError: year 10000 is
out of range)" for good. F6: one commit dated 2099 made every later attestation file enter
the repository in 2099, so a withdrawal by a maintainer key valid until 2030 did not count.
F8: a commit dated 2001 became the citation's year.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kistore.attest import notes, signing
from kistore.attest.evidence import evidence_for
from kistore.attest.trust import add_key
from kistore.check._dates import range_dates
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core.findings import ERROR, WARNING
from kistore.core.times import commit_datetime, commit_text, out_of_range
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RUN, bundle
from ..cite.test_citation import T0, add, commit_all, git, new_store
from ..conftest import BUNDLE
from ..prs import Remote

YEAR_10000 = 253402300800  # 10000-01-01T00:00:00Z, `GIT_COMMITTER_DATE='@253402300800 +0000'`
DAY = 86400
NOW = dt.datetime.fromtimestamp(T0 + 30 * DAY, dt.UTC)  # the checking clock: 2026-08-12


def commit_dated(path: Path, message: str, committer: int, author: int | None = None) -> str:
    """Stage everything and commit it with the committer (and author) time given."""
    git(path, "add", "-A")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "GIT_COMMITTER_DATE": f"@{committer} +0000",
           "GIT_AUTHOR_DATE": f"@{committer if author is None else author} +0000"}
    subprocess.run(["git", "commit", "-q", "--allow-empty", "--no-gpg-sign", "-m", message],
                   cwd=path, env=env, check=True, capture_output=True)
    return git(path, "rev-parse", "HEAD")


def pr_dated(tmp_path: Path, committer: int, author: int | None = None) -> tuple[Path, str]:
    """A store (init on day 0, a README on day 1) and a branch ``pr`` adding the record in
    one commit dated as given; return the store and that commit."""
    path = new_store(tmp_path / "store")
    (path / "README.md").write_text("main\n")
    commit_all(path, "main work", day=1)
    git(path, "checkout", "-q", "-b", "pr")
    add(path, BUNDLE)
    return path, commit_dated(path, "add a run", committer, author)


def ki428(findings):
    return [f for f in findings if f.rule.id == "KI428"]


# -- the gate -------------------------------------------------------------------------


def test_a_commit_dated_year_10000_is_refused_naming_it(tmp_path):
    path, pr = pr_dated(tmp_path, YEAR_10000, author=T0 + DAY)

    findings = check_range(Store(path), "main..pr", now=NOW)

    [finding] = ki428(findings)
    assert finding.rule.severity == ERROR and finding.rule.name == "commit-date-implausible"
    assert finding.message == (
        f"commit {pr[:12]}: its committer date 253402300800 s since the epoch lies outside "
        "years 1970-9999, which kistore can represent (Python's datetime stops at 9999; git "
        "writes no date before 1970): kistore reads it as 9999-12-31T23:59:59Z")
    assert (finding.expected, finding.found) == ("a date in years 1970-9999",
                                                 "253402300800 s since the epoch")
    assert finding.extra == {"commit": pr, "date": "committer", "seconds": YEAR_10000}
    assert "git commit --amend --reset-author --no-edit" in finding.hint
    result = CliRunner().invoke(main, ["--store", str(path), "check", "main..pr"])
    assert result.exit_code == 1, result.output
    assert "error KI428 commit-date-implausible" in result.output


def test_a_future_author_date_is_refused_too(tmp_path):
    path, pr = pr_dated(tmp_path, T0 + 2 * DAY, author=int(NOW.timestamp()) + DAY + 1)

    [finding] = ki428(check_range(Store(path), "main..pr", now=NOW))

    assert finding.message.startswith(
        f"commit {pr[:12]}: its author date 2026-08-13T00:00:01Z ({T0 + 31 * DAY + 1} s since "
        "the epoch) lies in the future: after this machine's clock (2026-08-12T00:00:00Z) by "
        "more than a day")
    assert finding.expected == "a date no later than 2026-08-13T00:00:00Z"


def test_the_advice_works_a_commit_made_again_passes(tmp_path):
    path, _ = pr_dated(tmp_path, YEAR_10000)
    git(path, "reset", "-q", "--soft", "HEAD^")  # then commit again, dated now (NOW - 1 h)
    commit_dated(path, "add a run", int(NOW.timestamp()) - 3600)
    assert ki428(check_range(Store(path), "main..pr", now=NOW)) == []


def test_a_pull_request_backdated_before_its_parent_is_refused(tmp_path):
    # r79 F8: both dates 2001 on a parent of 2026-07-14: the citation said 2001
    backdated = 978307200  # 2001-01-01T00:00:00Z
    path, pr = pr_dated(tmp_path, backdated)

    [finding] = ki428(check_range(Store(path), "main..pr", now=NOW))

    parent = git(path, "rev-parse", "main")
    assert finding.message == (
        f"commit {pr[:12]}: its committer date 2001-01-01T00:00:00Z (978307200 s since the "
        f"epoch) is earlier than that of its parent {parent[:12]} (2026-07-14T08:00:00Z) by "
        "more than a day: a commit is not made before the commit it is built on, and its "
        "date would become the publication date of what it adds (docs/citation.md)")
    assert finding.expected == "a committer date no earlier than 2026-07-13T08:00:00Z"


@pytest.mark.parametrize(("offset", "refused"), [
    (DAY, False), (DAY + 1, True), (0, False), (-DAY, False), (-DAY - 1, True)])
def test_the_tolerance_is_one_day(tmp_path, offset, refused):
    # ahead of the clock (offset from NOW), or behind the parent (offset from day 1, 08:00)
    if offset >= 0:
        when = int(NOW.timestamp()) + offset
    else:
        when = T0 + DAY + 8 * 3600 + offset
    path, _ = pr_dated(tmp_path, when)
    assert bool(ki428(check_range(Store(path), "main..pr", now=NOW))) is refused


def test_a_sequence_of_pull_requests_each_passing_stays_within_a_day_of_its_clock(tmp_path):
    # PR1 dated the clock + 23 h passes; PR2 dated PR1 + 23 h is refused at the same clock
    # and passes only once the clock has moved on: no chain of passing pull requests
    # reaches further ahead than one day past the clock that checked its last commit
    clock = int(NOW.timestamp())
    path, _ = pr_dated(tmp_path, clock + 23 * 3600)
    assert ki428(check_range(Store(path), "main..pr", now=NOW)) == []
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--ff-only", "pr")
    git(path, "checkout", "-q", "-b", "pr2")
    (path / "README.md").write_text("two\n")
    commit_dated(path, "second", clock + 46 * 3600)
    assert len(ki428(check_range(Store(path), "main..pr2", now=NOW))) == 2  # both dates
    later = NOW + dt.timedelta(hours=23)
    assert ki428(check_range(Store(path), "main..pr2", now=later)) == []


@settings(max_examples=60, deadline=None)
@example(parent=253_402_041_599, delta=-86401, ahead=0)  # the wrapped write above
@given(parent=st.one_of(st.integers(0, 2 ** 33),  # and around the end of year 9999
                        st.integers(253402300799 - 3 * DAY, 253402300799 + 3 * DAY)),
       delta=st.integers(-3 * DAY, 3 * DAY), ahead=st.integers(-3 * DAY, 3 * DAY))
def test_range_dates_property(tmp_path_factory, parent, delta, ahead):
    # in a bare repository: a parent at `parent`, a child `delta` later; the clock `ahead`
    # seconds before the child's date. KI428 iff a date of the child is out of range or
    # more than a day past the clock, or it is more than a day before its parent (or the
    # clock, when the parent is dated later)
    child_time = parent + delta
    clock = child_time - ahead
    if child_time < 0 or not 0 <= clock <= 253402300799:
        return
    repo = pygit2.init_repository(str(tmp_path_factory.mktemp("r")), bare=True)
    tree = repo.TreeBuilder().write()

    def made(when, parents):
        # raw bytes: pygit2's create_commit writes a time past 2106 modulo 2**32 (seen in a
        # draw: parent 253,402,041,599 written as 4,293,938,431)
        lines = [f"tree {tree}", *(f"parent {p}" for p in parents),
                 f"author t <t@x> {when} +0000", f"committer t <t@x> {when} +0000", "", "m", ""]
        return repo[repo.write(pygit2.GIT_OBJECT_COMMIT, "\n".join(lines).encode())]

    first = made(parent, [])
    child = made(child_time, [first.id])
    found = range_dates(repo, [child], dt.datetime.fromtimestamp(clock, dt.UTC))
    wrong = child_time > 253402300799 or ahead > DAY  # (a) or (b): author and committer
    behind = child_time < min(parent, clock) - DAY  # (c): a parent past the clock, at it
    assert len(found) == 2 * wrong + behind
    assert {f.extra["commit"] for f in found} <= {str(child.id)}


# -- readers of a stored year-10000 commit ----------------------------------------------


@pytest.fixture(scope="module")
def year_10000(tmp_path_factory) -> Path:
    """A store whose run was committed with a committer date in year 10000 (landed anyway)."""
    path, _ = pr_dated(tmp_path_factory.mktemp("y"), YEAR_10000, author=T0 + DAY)
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--ff-only", "pr")
    return path


def run_cli(path: Path, *args: str):
    return CliRunner().invoke(main, ["--store", str(path), *args])


def test_verify_warns_about_the_commit_and_finishes(year_10000):
    result = run_cli(year_10000, "verify", "--json")
    assert result.exit_code == 0, result.output
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "KI428"]
    commit = git(year_10000, "rev-parse", "HEAD")
    assert [(f["severity"], f["extra"]) for f in found] == [
        (WARNING, {"commit": commit, "date": "committer", "seconds": YEAR_10000})]
    assert "history is never rewritten" in found[0]["hint"]


def test_cite_and_show_clamp_the_date_and_say_so(year_10000):
    cited = run_cli(year_10000, "cite", str(RUN), "--accessed", "2026-12-03")
    assert cited.exit_code == 0, cited.output
    commit = git(year_10000, "rev-parse", "HEAD")
    assert (f"warning: commit {commit}, which first added the object, has a committer date "
            "of 253402300800 s since the epoch, past 9999-12-31T23:59:59Z (the last second "
            "kistore can represent), read as 9999-12-31T23:59:59Z (KI428)") in cited.output
    assert "published: 9999-12-31 (commit date, UTC)" in cited.output
    shown = run_cli(year_10000, "show", str(RUN))
    assert shown.exit_code == 0, shown.output
    assert f"(9999; commit {commit[:12]}'s date 253402300800 s since the epoch" in shown.output


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_export_clamps_added_at_and_warns(year_10000, tmp_path, fmt):
    result = run_cli(year_10000, "export", str(tmp_path / "out"), "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "has a committer date of 253402300800 s since the epoch" in result.output
    if fmt == "jsonl":
        [runs] = (tmp_path / "out" / "runs").glob("*.jsonl")
        [row] = [json.loads(line) for line in runs.read_text().splitlines()]
        assert row["addedAt"] == "9999-12-31T23:59:59Z"


def test_attestations_and_the_site_finish(year_10000, tmp_path):
    assert run_cli(year_10000, "attestations", str(RUN)).exit_code == 0
    built = run_cli(year_10000, "site", "build", str(tmp_path / "site"))
    assert built.exit_code == 0, built.output
    commit = git(year_10000, "rev-parse", "HEAD")
    assert (f"warning: commit {commit}, which first added 1 run(s), has a committer date of "
            "253402300800 s since the epoch, past 9999-12-31T23:59:59Z") in built.output


def test_the_guarded_reader_clamps():
    assert commit_datetime(YEAR_10000) == dt.datetime(9999, 12, 31, 23, 59, 59,
                                                      tzinfo=dt.UTC)
    assert commit_datetime(-5) == dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    assert commit_text(T0) == "2026-07-13T00:00:00Z" and out_of_range(T0) is None
    assert out_of_range(-1) == ("-1 s since the epoch, before 1970-01-01T00:00:00Z (the "
                                "first second kistore can represent), read as "
                                "1970-01-01T00:00:00Z")


# -- entry times (r79 F6) -------------------------------------------------------------


def test_a_future_commit_does_not_push_later_entry_times_into_the_future(record_store):
    # a maintainer key valid until 2030; one commit dated 2099 lands; then a withdrawal
    # file, committed today: it enters today, and counts (it entered in 2099 before)
    root = record_store.root
    add_key(root, signing.public_key_line(MAINTAINER_KEY.public_key()), ["maintainer"],
            valid_from=dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
            valid_until=dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    today = int(dt.datetime.now(dt.UTC).timestamp())
    commit_dated(root, "trust a maintainer until 2030", today - 60)
    (root / "README.md").write_text("from the future\n")
    commit_dated(root, "dated 2099", 4070908800)  # 2099-01-01T00:00:00Z
    path = notes.attach(record_store, RUN, bundle(MAINTAINER_KEY, "withdrawal"), as_file=True)
    commit_dated(root, "withdraw", today)

    entered = notes.files_entered(record_store.repo, record_store.repo.head.peel())
    assert entered[path] == dt.datetime.fromtimestamp(today, dt.UTC)
    assert evidence_for(record_store, RUN).withdrawn


def test_the_pre_receive_hook_refuses_a_push_dated_year_10000_or_2099(published, tmp_path):
    # r79 repro 02b: the push was `remote: ok: ... 0 errors`, and `verify` on the server
    # crashed from then on
    remote = Remote(published, tmp_path)
    before = remote.main()

    def change(clone):
        (clone / "README.md").write_text("a change\n")

    for date in ("@253402300800 +0000", "2099-01-01T00:00:00Z"):
        pushed = remote.pr("dated far ahead", change, date=date)
        assert not pushed.accepted, pushed.output
        assert "error KI428 commit-date-implausible" in pushed.output
        assert remote.main() == before
    assert remote.pr("dated now", change).accepted


def test_a_future_commit_that_landed_anyway_does_not_refuse_every_later_pull_request(
        tmp_path):
    # a 2099 commit landed past the gate (a host without the hook): the next honest pull
    # request, dated now, is earlier than its parent, and must still pass
    path, _ = pr_dated(tmp_path, 4070908800)  # 2099-01-01T00:00:00Z
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--ff-only", "pr")
    git(path, "checkout", "-q", "-b", "pr2")
    (path / "README.md").write_text("honest\n")
    commit_dated(path, "honest", int(NOW.timestamp()))
    assert ki428(check_range(Store(path), "main..pr2", now=NOW)) == []
    (path / "README.md").write_text("backdated\n")
    backdated = commit_dated(path, "two days back", int(NOW.timestamp()) - 2 * DAY - 1)
    [finding] = ki428(check_range(Store(path), "main..pr2", now=NOW))
    assert finding.extra["commit"] == backdated
    assert finding.expected == "a committer date no earlier than 2026-08-11T00:00:00Z"


# -- a date line git cannot read (reviewer r81 F2) ----------------------------------------


@pytest.mark.parametrize(("committer", "git_ct"), [
    (b"committer t <t@x> 1796312100", ""),  # no time zone: git fsck missingTimezone
    (b"committer t <t@x> 1796312100 +0000 >1000000000 +0000", "1000000000"),  # badDate
    (b"committer t <t@x> 01796312100 +0000", None),  # zeroPaddedDate
])
def test_a_date_line_git_cannot_read_is_ki428(tmp_path, committer, git_ct):
    # git and libgit2 read different dates from such a line (git's %ct empty, or the later
    # field), so the site said "first added 1970-01-01" where cite said 2001, and cite and
    # show stopped with "internal error (ValueError: invalid literal for int())"
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    tree = repo.TreeBuilder().write()

    def written(line: bytes):
        raw = b"tree %s\nauthor t <t@x> 1796312100 +0000\n%s\n\nm\n" % (str(tree).encode(), line)
        return repo[repo.write(pygit2.GIT_OBJECT_COMMIT, raw)]

    good, bad = written(b"committer t <t@x> 1796312100 +0000"), written(committer)
    now = dt.datetime.fromtimestamp(1796312100, dt.UTC)
    assert range_dates(repo, [good], now) == []
    [finding] = range_dates(repo, [bad], now)
    assert (finding.rule.id, finding.severity, finding.found) == ("KI428", ERROR, "committer")
    assert finding.message == (
        f"commit {str(bad.id)[:12]}: its committer line does not read as git writes one "
        "(`NAME <EMAIL> SECONDS +ZONE`; git fsck: badDate, missingTimezone or zeroPaddedDate):"
        " git and libgit2 read different dates from it")
    if git_ct is not None:  # what git itself reads: not libgit2's number
        shown = subprocess.run(["git", "--git-dir", str(tmp_path / "r"), "show", "-s",
                                "--format=%ct", str(bad.id)], capture_output=True, text=True,
                               check=True).stdout.strip()
        assert shown == git_ct and str(bad.commit_time) != shown  # libgit2 reads another


def test_cite_asks_libgit2_when_git_prints_no_date(tmp_path):
    # first_commit_by_git split `%H %ct %P` of a commit whose %ct is empty, took a parent's
    # id for the time, and cite stopped with an internal error: it now leaves it to libgit2
    from kistore.cite.citation import first_commit_by_git

    path = tmp_path / "w"
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=path, input=b"x",
                          capture_output=True, check=True).stdout.decode().strip()
    tree = subprocess.run(["git", "mktree"], cwd=path, input=f"100644 blob {blob}\tf\n",
                          capture_output=True, text=True, check=True).stdout.strip()
    first = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin"], cwd=path,
        input=f"tree {tree}\nauthor t <t@x> 1796312100 +0000\ncommitter t <t@x> "
              "1796312100\n\nm\n".encode(), capture_output=True, check=True).stdout.decode()
    git(path, "update-ref", "HEAD", first.strip())
    assert first_commit_by_git(path, path / ".git", "f", blob) is None


def test_two_committer_lines_are_ki428(tmp_path):
    # Reviewer r81 F11: libgit2 read the first committer line (now: the gate passed), git
    # the last (2001: cite said "KernelIndex (2001)"); git fsck --strict says nothing
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    raw = (b"tree %s\nauthor t <t@x> 1796312100 +0000\ncommitter t <t@x> 1796312100 +0000\n"
           b"committer t <t@x> 978307200 +0000\n\nm\n" % str(repo.TreeBuilder().write()).encode())
    commit = repo[repo.write(pygit2.GIT_OBJECT_COMMIT, raw)]
    assert commit.commit_time == 1796312100  # libgit2's reading
    [finding] = range_dates(repo, [commit], dt.datetime.fromtimestamp(1796312100, dt.UTC))
    assert finding.message == (
        f"commit {str(commit.id)[:12]}: it has 2 committer lines, where git writes one: git "
        "reads the last and libgit2 the first, so they read different dates")
