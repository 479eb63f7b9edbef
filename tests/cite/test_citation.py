"""kistore.cite.citation: the commit that first added an object, permalinks, errors, the CLI."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.cite.citation import (
    FORGE_TEMPLATES,
    Remote,
    cite,
    parse_remote,
    permalink,
    short_citation,
)
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import InputError, ResolutionError, StoreStateError
from kistore.store import Store
from kistore.store.inputs import read_inputs

from ..conftest import BUNDLE, PUBLISHED

RUN = Digest.from_str(PUBLISHED["run"])
RUN_PATH = layout.object_path(RUN)
GITHUB = "git@github.com:kernelindex/kernelindex.git"
SETTINGS = """\
# kistore store settings (test store with fixed bytes, so commit ids are stable)
[store]
version = 1
"""
ATTRIBUTES = "store/** -text -eol -filter -ident -working-tree-encoding\n"
T0 = 1783900800  # 2026-07-13T00:00:00Z: the first commit; each later one is a day on


def at_day(day: int) -> str:
    """A git date (epoch seconds, UTC) ``day`` days after T0, at 08:00."""
    return f"@{T0 + day * 86400 + 8 * 3600} +0000"


def git(path: Path, *args: str, day: int = 0) -> str:
    """Run the real git with a fixed identity and dates: the same history, the same ids."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "kistore tests", "GIT_AUTHOR_EMAIL": "tests@kistore.invalid",
           "GIT_COMMITTER_NAME": "kistore tests", "GIT_COMMITTER_EMAIL": "tests@kistore.invalid",
           "GIT_AUTHOR_DATE": at_day(day), "GIT_COMMITTER_DATE": at_day(day)}
    return subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def commit_all(path: Path, message: str, day: int) -> str:
    """Stage everything and commit it on ``day``; return the commit id."""
    git(path, "add", "-A")
    git(path, "commit", "-q", "--no-gpg-sign", "-m", message, day=day)
    return git(path, "rev-parse", "HEAD")


def side_branch_merged(path: Path, *, side_day: int, main_day: int, merge_day: int) -> str:
    """Add BUNDLE on a branch ``side``, commit other work on main, merge side into main.

    Each commit on the day given; return the side commit's id (the object's introducer).
    """
    git(path, "checkout", "-q", "-b", "side")
    add(path, BUNDLE)
    side = commit_all(path, "add the record on a branch", day=side_day)
    git(path, "checkout", "-q", "main")
    (path / "README.md").write_text("main work\n")
    commit_all(path, "main work", day=main_day)
    git(path, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge side", "side",
        day=merge_day)
    return side


def new_store(path: Path, *, remote: str | None = GITHUB, cite_table: str = "") -> Path:
    """A store whose first commit (day 0) holds fixed settings bytes and nothing else."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / layout.SETTINGS_FILE).write_text(SETTINGS + cite_table)
    (path / ".gitattributes").write_text(ATTRIBUTES)
    commit_all(path, "init", day=0)
    if remote is not None:
        git(path, "remote", "add", "origin", remote)
    return path


def add(path: Path, *files: Path, update_metadata: bool = False) -> None:
    """Add manifests to the work tree (the pull-request path), not committing."""
    located = read_inputs([str(f) for f in files])
    Store(path).add([x.manifest for x in located], allow_dangling=True,
                    update_metadata=update_metadata)


def retitled_run(tmp_path: Path, title: str) -> Path:
    """The published run with another metadata title (same object, same digest)."""
    bundle = json.loads(BUNDLE.read_text())
    bundle["run"]["metadata"]["title"] = title
    path = tmp_path / f"run-{abs(hash(title))}.json"
    path.write_text(json.dumps(bundle["run"]))
    return path


def published_store(tmp_path: Path, **kwargs) -> tuple[Path, str]:
    """Day 0: init; day 1: the published record (C1). Returns (path, C1)."""
    path = new_store(tmp_path / "store", **kwargs)
    add(path, BUNDLE)
    return path, commit_all(path, "add the published record", day=1)


def first_added_by_git(path: Path, file: str) -> str:
    """The real git's answer: the oldest commit that added ``file`` (test oracle)."""
    return git(path, "log", "--diff-filter=A", "--format=%H", "--reverse", "--", file
               ).splitlines()[0]


def run_cli(runner, path: Path, *args: str):
    return runner.invoke(main, ["--store", str(path), "cite", *args])


# -- the commit that first added the object ----------------------------------------


def test_cite_names_the_commit_that_first_added_the_object_not_head(tmp_path):
    path, c1 = published_store(tmp_path)
    (path / "README.md").write_text("later work\n")
    commit_all(path, "unrelated change", day=2)
    add(path, retitled_run(tmp_path, "Corrected title"), update_metadata=True)
    commit_all(path, "metadata correction", day=3)
    git(path, "checkout", "-q", "-b", "side")
    (path / "NOTES.md").write_text("side work\n")
    commit_all(path, "side work", day=4)
    git(path, "checkout", "-q", "main")
    (path / "README.md").write_text("more work\n")
    commit_all(path, "more work", day=5)
    git(path, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge side", "side", day=6)
    head = git(path, "rev-parse", "HEAD")
    assert head != c1

    citation = cite(Store(path), "384a96d0", accessed=dt.date(2026, 11, 29))

    assert citation.commit == c1 == first_added_by_git(path, RUN_PATH)
    assert citation.title == "Corrected title"  # metadata as of now; identity as of C1
    assert citation.published == dt.datetime(2026, 7, 14, 8, 0, tzinfo=dt.UTC)
    assert citation.blob == git(path, "rev-parse", f"{c1}:{RUN_PATH}")
    assert citation.permalink == (
        f"https://github.com/kernelindex/kernelindex/blob/{c1}/{RUN_PATH}")
    assert citation.accessed == dt.date(2026, 11, 29)


def test_a_retitle_changes_the_cited_text_not_the_permalink_and_at_gives_the_old_text(
        tmp_path, runner):
    # Reviewer r88 F1: a title change (KI405) changes the text `cite` prints; the permalink
    # still pins C1, whose metadata file holds the title as first published, and
    # `cite --at C1` prints the text as it was then (docs/threats.md).
    path, c1 = published_store(tmp_path)
    first = json.loads(git(path, "show", f"{c1}:{layout.metadata_path(RUN)}"))
    add(path, retitled_run(tmp_path, "WITHDRAWN: fabricated result"), update_metadata=True)
    commit_all(path, "retitle", day=3)
    now = run_cli(runner, path, "384a96d0")
    then = run_cli(runner, path, "--at", c1, "384a96d0")
    assert now.exit_code == then.exit_code == 0, now.output + then.output
    permalink = f"https://github.com/kernelindex/kernelindex/blob/{c1}/{RUN_PATH}"
    assert "WITHDRAWN: fabricated result" in now.stdout and permalink in now.stdout
    assert first["title"] in then.stdout and permalink in then.stdout
    assert "WITHDRAWN" not in then.stdout


def test_object_added_on_a_side_branch_cites_the_side_commit_not_the_merge(tmp_path):
    path = new_store(tmp_path / "store")
    s1 = side_branch_merged(path, side_day=1, main_day=2, merge_day=3)

    citation = cite(Store(path), "BenchmarkRun/sol-submission-20464")

    assert citation.commit == s1 == first_added_by_git(path, RUN_PATH)
    # published: the merge's date, where it landed on main (r81 F1), not the side commit's
    assert citation.landed == git(path, "rev-parse", "HEAD")
    assert citation.published.date() == dt.date(2026, 7, 16)


def test_cite_at_rev_walks_history_from_that_rev(tmp_path):
    path, c1 = published_store(tmp_path)
    (path / "README.md").write_text("later\n")
    c2 = commit_all(path, "later", day=2)
    store = Store(path)
    assert cite(store, "384a96d0", at=c2).commit == c1
    with pytest.raises(ResolutionError, match="no object with digest prefix 384a96d0") as no:
        cite(store, "384a96d0", at=f"{c1}~1")
    # fresh00 LOW: the commit read is named, as for KIND/NAME ("it may have come later")
    before = git(path, "rev-parse", f"{c1}~1").strip()
    assert str(no.value).endswith(f"no object with digest prefix 384a96d0 at {c1}~1 (commit "
                                  f"{before[:12]}); it may have come later: leave out --at "
                                  "to ask the work tree")


def test_earlier_commit_with_forged_bytes_at_the_path_is_not_cited(tmp_path):
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    real = (path / RUN_PATH).read_bytes()
    (path / RUN_PATH).write_bytes(real.replace(b"passed", b"failed"))
    commit_all(path, "forged bytes under the run's name", day=1)
    (path / RUN_PATH).write_bytes(real)
    c2 = commit_all(path, "the real bytes", day=2)
    assert cite(Store(path), "384a96d0").commit == c2


def test_shallow_clone_cut_after_the_first_commit_is_refused_not_misdated(tmp_path):
    path, c1 = published_store(tmp_path)
    (path / "README.md").write_text("later\n")
    c2 = commit_all(path, "later", day=2)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{path}", str(shallow))
    git(shallow, "remote", "set-url", "origin", GITHUB)
    with pytest.raises(StoreStateError, match=f"shallow clone.*stops at {c2}.*--unshallow"):
        cite(Store(shallow), "384a96d0")
    git(shallow, "fetch", "-q", "--unshallow", f"file://{path}", "main")
    assert cite(Store(shallow), "384a96d0").commit == c1


def test_uncommitted_object_is_refused_with_how_to_commit(tmp_path):
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    with pytest.raises(ResolutionError, match=r"not committed\?\): commit it"):
        cite(Store(path), "384a96d0")


def test_citing_in_a_bare_clone_reads_settings_from_the_commit(tmp_path):
    template = '[cite]\npermalink = "https://example.org/ki/{commit}/{path}"\n'
    path, c1 = published_store(tmp_path, remote=None, cite_table=template)
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(path), str(bare))
    citation = cite(Store(bare), "384a96d0")
    assert citation.commit == c1
    assert citation.permalink == f"https://example.org/ki/{c1}/{RUN_PATH}"


# -- permalinks ------------------------------------------------------------------------


@pytest.mark.parametrize(("url", "base", "forge"), [
    ("git@github.com:kernelindex/kernelindex.git", "https://github.com/kernelindex/kernelindex",
     "github"),
    ("ssh://git@github.com/kernelindex/kernelindex.git",
     "https://github.com/kernelindex/kernelindex", "github"),
    ("https://github.com/kernelindex/kernelindex", "https://github.com/kernelindex/kernelindex",
     "github"),
    ("https://user@github.com/kernelindex/kernelindex.git/",
     "https://github.com/kernelindex/kernelindex", "github"),
    ("git@gitlab.com:group/sub/index.git", "https://gitlab.com/group/sub/index", "gitlab"),
    ("ssh://git@gitlab.example.org:2222/group/index.git",
     "https://gitlab.example.org/group/index", "gitlab"),
    ("https://gitea.example.org:3000/ki/index.git", "https://gitea.example.org:3000/ki/index",
     "gitea"),
    ("git@codeberg.org:ki/index.git", "https://codeberg.org/ki/index", "gitea"),
    ("http://git.example.org/ki/index.git", "http://git.example.org/ki/index", None),
])
def test_remote_forms_give_the_web_base(url, base, forge):
    remote = parse_remote(url)
    assert remote is not None
    assert (remote.base, remote.forge) == (base, forge)


@pytest.mark.parametrize("url", ["", "/srv/git/index.git", "../index", "file:///srv/index.git",
                                 "https://github.com/only-owner", "git@github.com:/abs.git"])
def test_local_or_pathless_remotes_are_not_web_repositories(url):
    assert parse_remote(url) is None


_segment = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,20}", fullmatch=True).filter(
    lambda s: not s.endswith(".git") and s not in (".", ".."))


@given(host=st.sampled_from(["github.com", "gitlab.com", "codeberg.org"]), owner=_segment,
       repo=_segment, suffix=st.sampled_from(["", ".git"]))
def test_every_remote_form_of_one_repository_gives_the_same_base(host, owner, repo, suffix):
    forms = [f"git@{host}:{owner}/{repo}{suffix}", f"ssh://git@{host}/{owner}/{repo}{suffix}",
             f"https://{host}/{owner}/{repo}{suffix}"]
    bases = {parse_remote(url).base for url in forms}
    assert bases == {f"https://{host}/{owner}/{repo}"}


def test_forge_templates_place_commit_and_path():
    c, p = "a" * 40, RUN_PATH
    expected = {
        "github": f"https://h.example/o/r/blob/{c}/{p}",
        "gitlab": f"https://h.example/o/r/-/blob/{c}/{p}",
        "gitea": f"https://h.example/o/r/src/commit/{c}/{p}",
    }
    for forge in FORGE_TEMPLATES:
        remote = Remote("x", "h.example", "https://h.example/o/r", forge)
        assert permalink(None, remote, commit=c, path=p) == expected[forge]


def test_template_from_kistore_toml_wins_over_the_remote(tmp_path):
    table = ('[cite]\npermalink = "{base}/-/blob/{commit}/{path}?blob={blob}&d={digest}"\n'
             'publisher = "Kernel Lab"\n')
    path, c1 = published_store(tmp_path, cite_table=table)
    citation = cite(Store(path), "384a96d0")
    blob = git(path, "rev-parse", f"{c1}:{RUN_PATH}")
    assert citation.permalink == (f"https://github.com/kernelindex/kernelindex/-/blob/{c1}/"
                                  f"{RUN_PATH}?blob={blob}&d={RUN}")
    assert citation.publisher == "Kernel Lab"
    assert citation.authors == ("Kernel Lab",)


@pytest.mark.parametrize(("template", "message"), [
    ("https://h/o/r/blob/main/{path}", "lacks {commit}: a permalink must name the commit"),
    ("https://h/o/r/blob/{commit}", "lacks {path}"),
    ("https://h/{owner}/{commit}/{path}", "unknown placeholder {owner}"),
    # review r70 F5: it said "unknown placeholder {commit}", then listed {commit} as allowed
    ("https://h/{commit:.7}/{path}", "format spec not allowed in {commit:.7}; write {commit} "
     "alone"),
    ("https://h/{commit}/{path!r}", "format spec not allowed in {path!r}"),
    ("https://h/{commit/{path}", "not a valid template"),
])
def test_template_that_could_move_or_is_malformed_is_refused(template, message):
    with pytest.raises(InputError, match="kistore.toml") as caught:
        permalink(template, None, commit="a" * 40, path=RUN_PATH)
    assert message in caught.value.message


def test_template_with_base_but_no_remote_is_refused():
    with pytest.raises(StoreStateError, match="uses {base} but there is no `origin` remote"):
        permalink("{base}/blob/{commit}/{path}", None, commit="a" * 40, path=RUN_PATH)


# -- errors through the CLI ------------------------------------------------------------


def test_cli_text_output_and_exit_0(runner, tmp_path):
    path, c1 = published_store(tmp_path)
    result = run_cli(runner, path, "384a96d0", "--accessed", "2026-11-29")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("KernelIndex (2026). Proud Wren @ NVIDIA")
    assert f"  commit:    {c1} (first added the object)" in lines
    assert "  accessed:  2026-11-29" in lines


def test_cli_json_gives_the_facts(runner, tmp_path):
    path, c1 = published_store(tmp_path)
    result = run_cli(runner, path, "BenchmarkRun/sol-submission-20464", "--json",
                     "--accessed", "2026-11-29")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["commit"] == c1
    assert data["digest"] == str(RUN)
    assert data["key"] == "kernelindex:384a96d0ed68"
    assert data["published"] == "2026-07-14T08:00:00Z"
    assert data["accessed"] == "2026-11-29"


def test_cite_warns_when_the_commit_is_on_no_remote_tracking_branch(runner, tmp_path):
    # Issue 18: cite printed a permalink to a commit never pushed, with no word of it.
    path, c1 = published_store(tmp_path)
    result = run_cli(runner, path, "384a96d0", "--accessed", "2026-11-29")
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"warning: commit {c1} is on no remote-tracking branch (`git branch -r --contains` "
        "lists none): the permalink leads nowhere until it is pushed; push it (then `git "
        "fetch`) before you publish this citation\n")
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    git(path, "push", "-q", str(server), "main:main")
    git(path, "fetch", "-q", str(server), "+refs/heads/*:refs/remotes/mirror/*")
    assert Store(path).repo.references.get("refs/remotes/mirror/main") is not None
    result = run_cli(runner, path, "384a96d0", "--accessed", "2026-11-29")
    assert result.exit_code == 0 and result.stderr == "", result.output


def test_cite_warns_when_the_commit_is_on_a_pull_request_branch_only(runner, tmp_path):
    # fresh01 F2: cited on a pushed pull-request branch, the PR's commit was named with no
    # word; after a squash merge the run is in another commit, and the PR's is on no ref
    # of the server.
    template = '\n[cite]\npermalink = "https://example.org/r/{commit}/{path}"\n'
    server = tmp_path / "server.git"
    store = new_store(tmp_path / "store", remote=None, cite_table=template)
    git(tmp_path, "clone", "-q", "--bare", str(store), str(server))
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(server), str(alice))
    git(alice, "checkout", "-q", "-b", "feat", "origin/main")
    add(alice, BUNDLE)
    pr = commit_all(alice, "add the published record", day=1)
    git(alice, "push", "-q", "origin", "feat")
    git(alice, "fetch", "-q")
    assert git(alice, "branch", "-r", "--contains", pr).split() == ["origin/feat"]
    said = (f"warning: commit {pr} is on origin/feat only, not on a remote's main line "
            "(origin/main): a squash or rebase merge lands the object in another commit, "
            "and this one may leave the server, so the permalink may move or lead nowhere; "
            "cite it after it lands: `git fetch`, then `kistore cite {ref} --at "
            "origin/main`\n")
    result = run_cli(runner, alice, "BenchmarkRun/sol-submission-20464", "--accessed",
                     "2026-11-29")
    assert result.exit_code == 0, result.output
    assert f"https://example.org/r/{pr}/{RUN_PATH}" in result.stdout
    assert result.stderr == said.format(ref="BenchmarkRun/sol-submission-20464")
    # the squash merge, the branch deleted: the PR's commit is on no ref of the server
    git(alice, "checkout", "-q", "main")
    git(alice, "merge", "-q", "--squash", "feat")
    squash = commit_all(alice, "squash feat", day=2)
    git(alice, "push", "-q", "origin", "main", ":feat")
    git(alice, "fetch", "-q", "--prune")
    assert git(server, "for-each-ref", "--contains", pr) == ""
    git(alice, "checkout", "-q", "feat")  # still on the branch: the warning stands
    result = run_cli(runner, alice, "384a96d0", "--accessed", "2026-11-29")
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"warning: commit {pr} is on no remote-tracking branch (`git "
                             "branch -r --contains` lists none): the permalink leads nowhere "
                             "until it is pushed; push it (then `git fetch`) before you "
                             "publish this citation\n")
    # what the warning advised: the commit main holds, and no warning
    result = run_cli(runner, alice, "384a96d0", "--at", "origin/main", "--accessed",
                     "2026-11-29")
    assert result.exit_code == 0, result.output
    assert (f"https://example.org/r/{squash}/{RUN_PATH}" in result.stdout, result.stderr) == (
        True, "")
    # a remote fetched without its HEAD: its main is the main line
    git(alice, "remote", "set-head", "origin", "--delete")
    git(alice, "checkout", "-q", "main")
    result = run_cli(runner, alice, "384a96d0", "--accessed", "2026-11-29")
    assert (result.exit_code, result.stderr) == (0, "")


def test_cli_unknown_ref_exit_1(runner, tmp_path):
    path, _ = published_store(tmp_path)
    result = run_cli(runner, path, "00000000")
    assert result.exit_code == 1
    assert result.stderr == "error: no object with digest prefix 00000000\n"
    result = run_cli(runner, path, "BenchmarkRun/nope")
    assert result.exit_code == 1
    assert result.stderr == (  # as every other command says it (explaining_misses)
        "error: no BenchmarkRun named 'nope' in the work tree; if a metadata file was edited in "
        "place to give it this name, run `kistore reindex` to read every file again\n")


def test_cli_ambiguous_prefix_exit_1_lists_candidates(runner, tmp_path):
    path, _ = published_store(tmp_path)
    twin = "384a96d0" + "f" * 56  # shares 8 hex digits with the run; only its name matters
    (path / layout.object_path(Digest(twin))).write_bytes(b"{}")
    result = run_cli(runner, path, "384a96d0")
    assert result.exit_code == 1
    assert result.stderr == (f"error: digest prefix 384a96d0 is ambiguous: {RUN}, "
                             f"sha256:{twin}; type more digits\n")


def test_cli_store_without_remote_or_template_exit_1_says_how_to_set_it(runner, tmp_path):
    path, _ = published_store(tmp_path, remote=None)
    result = run_cli(runner, path, "384a96d0")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: kistore.toml: cannot build a permalink: kistore.toml sets no [cite] permalink "
        "and there is no `origin` remote on a web host; add under [cite]: "
        'permalink = "https://HOST/OWNER/REPO/blob/{commit}/{path}"\n')


def test_cli_at_an_old_commit_names_the_kistore_toml_it_read(runner, tmp_path):
    # fresh00 LOW: `[cite] permalink` just added to the work tree's kistore.toml, `cite --at
    # OLD` said "kistore.toml sets no [cite] permalink ... add under [cite]" (the line added)
    path, c1 = published_store(tmp_path, remote=None)
    with (path / layout.SETTINGS_FILE).open("a") as settings:
        settings.write('[cite]\npermalink = "https://example.org/ki/{commit}/{path}"\n')
    assert run_cli(runner, path, "384a96d0").exit_code == 0  # the work tree's counts
    result = run_cli(runner, path, "384a96d0", "--at", c1[:7])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: kistore.toml at {c1[:7]}: cannot build a "
                                    "permalink: kistore.toml sets no [cite] permalink")
    assert (f"With --at {c1[:7]} the kistore.toml read is commit {c1[:12]}'s, not the work "
            "tree's: a [cite] permalink set since counts only without --at; with it, an "
            "`origin` remote on a web host gives the link\n") in result.stderr


def test_cli_unknown_host_exit_1_says_how_to_set_it(runner, tmp_path):
    path, _ = published_store(tmp_path, remote="https://git.example.org/ki/index.git")
    result = run_cli(runner, path, "384a96d0")
    assert result.exit_code == 1
    assert "host git.example.org is not a known forge" in result.stderr
    assert 'permalink = "{base}/blob/{commit}/{path}"' in result.stderr


def test_cli_repository_without_commits_exit_1(runner, tmp_path):
    path = tmp_path / "empty"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / layout.SETTINGS_FILE).write_text(SETTINGS)
    add(path, BUNDLE)
    result = run_cli(runner, path, "384a96d0")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: the repository has no commit yet")


@pytest.mark.parametrize(("args", "message"), [
    (["--accessed", "29/11/2026"], "'29/11/2026' does not match the format '%Y-%m-%d'"),
    (["--format", "ris"], "'ris' is not one of 'text', 'bibtex', 'csl-json', 'cff'"),
    (["--json", "--format", "bibtex"], "do not combine it with --format"),
])
def test_cli_usage_errors_exit_2(runner, tmp_path, args, message):
    path, _ = published_store(tmp_path)
    result = run_cli(runner, path, "384a96d0", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("Usage: main cite [OPTIONS] REF")
    assert message in result.stderr


def test_cli_malformed_cite_setting_exit_1(runner, tmp_path):
    path, _ = published_store(tmp_path, cite_table="[cite]\npublisher = 3\n")
    result = run_cli(runner, path, "384a96d0")
    assert result.exit_code == 1
    assert result.stderr == ("error: kistore.toml: [cite] publisher must be a non-empty string, "
                             "found 3\n")
    # a revision's alike (Store.settings of the commit)
    result = run_cli(runner, path, "384a96d0", "--at", "HEAD")
    assert (result.exit_code, result.stderr) == (1, "error: kistore.toml: [cite] publisher "
                                                    "must be a non-empty string, found 3\n")


# -- authors and the run page line ----------------------------------------------------


def implementation_file(tmp_path: Path, author: str) -> Path:
    doc = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Implementation",
           "metadata": {"name": "proud-wren"},
           "spec": {"project": "moe-backward", "author": author}}
    path = tmp_path / "implementation.json"
    path.write_text(json.dumps(doc))
    return path


def test_author_comes_from_the_implementation_when_stored(tmp_path):
    path = new_store(tmp_path / "store")
    impl = implementation_file(tmp_path, "Proud Wren")
    bundle = json.loads(BUNDLE.read_text())
    impl_digest = read_inputs([str(impl)])[0].manifest.digest
    bundle["run"]["spec"]["implementationDigest"] = str(impl_digest)
    run = tmp_path / "run.json"
    run.write_text(json.dumps(bundle))
    add(path, impl, run)
    commit_all(path, "run with its implementation", day=1)
    store = Store(path)
    run_digest = store.resolve("BenchmarkRun/sol-submission-20464")
    assert cite(store, run_digest).authors == ("Proud Wren",)
    assert cite(store, impl_digest).authors == ("Proud Wren",)
    assert cite(store, "BenchmarkProtocol/sol-execbench-leaderboard-v1-1").authors == (
        "KernelIndex",)


def test_short_citation_is_the_run_page_line(tmp_path):
    path, c1 = published_store(tmp_path)
    line = short_citation(Store(path), RUN)
    assert line == (
        "Cite: KernelIndex (2026). Proud Wren @ NVIDIA · 025_moe_expert_parallel_execution_"
        "backward · B200. KernelIndex. https://github.com/kernelindex/kernelindex/blob/"
        f"{c1}/{RUN_PATH} ({RUN})")


def test_short_citation_says_why_there_is_no_permalink_yet(tmp_path):
    path = new_store(tmp_path / "store", remote=None)
    add(path, BUNDLE)
    store = Store(path)
    assert short_citation(store, RUN).startswith(
        f"Cite: {RUN} (no permalink yet: the object file is in no commit reachable from")
    commit_all(path, "commit it", day=1)
    assert short_citation(store, RUN).startswith(
        f"Cite: {RUN} (no permalink yet: cannot build a permalink")
    with pytest.raises(ResolutionError):
        short_citation(store, Digest("0" * 64))


def test_an_access_date_before_the_published_date_is_warned(runner, tmp_path):
    """review r85 F21: `--accessed 2026-11-29` (README's example) of an object published
    2026-12-03 was printed without a word."""
    path, _ = published_store(tmp_path)  # published 2026-07-14
    result = run_cli(runner, path, "384a96d0", "--accessed", "2026-07-13")
    assert result.exit_code == 0, result.output
    assert "  accessed:  2026-07-13" in result.stdout.splitlines()
    assert result.stderr.splitlines()[-1] == (
        "warning: the access date 2026-07-13 (--accessed) is before the published date "
        "2026-07-14: no one read it there then; give the date you read it (the default is "
        "today, UTC)")
    result = run_cli(runner, path, "384a96d0", "--accessed", "2026-07-14")
    assert "the access date" not in result.stderr
