"""A pull by URL counts as branches fetched since the notes (reviewer r92 F6).

``git pull ../srv.git main`` (the canonical remote's URL for its name) moves no
remote-tracking ref: the canonical branch's commits came, its notes did not, and ``site
build`` published a run withdrawn there, ranked, exit 0, no word. Now a local branch's
reflog entry of such a pull, or a ``FETCH_HEAD`` of the remote's URL whose commit a local
branch took, says the notes stale. The maintainer's own commits, a merge of a local
branch and a pull of a fork's URL do not.

Real ``git clone``s of the ``group`` store (the index, ``origin``), whose fastest run is
withdrawn by a trusted maintainer's note; the index then withdraws ``slow`` too.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from kistore.attest import attestation, notes
from kistore.core import layout
from kistore.store import Store

from ..conftest import git
from ..sparse import withdraw
from .test_notes_forks import refused
from .test_notes_freshness import STRANGER, clone_of, fast_rank, index, kistore, run_of

__all__ = ["index"]  # the fixture, used by name

PULLED = re.compile(
    r"warning: notes last fetched from origin \S+Z; (?P<how>.+) brought origin's commits "
    r"into this repository's branches since \(\S+Z\), by its URL \(no branch of origin moved, and "
    r"no notes came\): run `kistore notes fetch origin`\n")

UNASKED = re.compile(
    r"warning: could not ask origin whether its refs/notes/kistore moved since its notes "
    r"were last fetched here \(\S+Z\): .*gone\.git.*; attestations made there since would "
    r"not be here if they came as notes alone \(a withdrawal moves no branch\) or with "
    r"commits merged here from a fetch by its URL that FETCH_HEAD no longer names \(a later "
    r"fetch replaced it\): `kistore notes fetch origin` before publishing to be sure\n")


def slow_rank(clone: Path) -> tuple[int | None, str]:
    """``rank slow --all``'s rank of ``slow`` and its stderr."""
    result = kistore(clone, "rank", "BenchmarkRun/slow", "--all", "--json")
    assert result.exit_code == 0, result.output
    return {r["name"]: r["rank"] for r in json.loads(result.stdout)}["slow"], result.stderr


def fetched_clone(index, tmp_path: Path) -> tuple[Path, str]:
    """A clone whose notes were fetched; then the index commits and withdraws ``slow``.

    Returns the clone and the index's path as the clone's ``git pull`` takes it (relative
    to the clone's top, as in the finding: ``git pull ../srv.git main``).
    """
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    git(index.root, "commit", "-q", "--allow-empty", "-m", "later")
    withdraw(index, run_of(index, "slow"), as_file=False)
    return clone, os.path.relpath(index.root, clone)


def test_r92_f6_a_pull_by_url_is_stale_notes_and_publishing_is_refused(index, tmp_path):
    clone, url = fetched_clone(index, tmp_path)
    git(clone, "pull", "-q", "--ff-only", url, "main")
    assert git(clone, "rev-parse", "HEAD") == git(index.root, "rev-parse", "HEAD")
    rank, stderr = slow_rank(clone)
    assert rank == 1  # withdrawn at origin, not here
    said = PULLED.fullmatch(stderr)  # before: nothing said
    assert said and said["how"] == f"`git pull -q --ff-only {url} main`", stderr
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert built.exit_code == 1, built.output  # before: built, exit 0, slow ranked
    assert built.stderr == (f"error: refusing to build the site: {stderr[9:-1]} and build "
                            "the site again (attestations the remote gained since, a "
                            "withdrawal among them, are not here: a withdrawn run would be "
                            "ranked), or pass --without-attestations to build the site with "
                            "the notes as last fetched\n")
    assert not (tmp_path / "site").exists()

    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0  # the way out
    rank, stderr = slow_rank(clone)
    assert rank is None and stderr.startswith("warning: BenchmarkRun/slow is withdrawn by ")
    assert "notes last fetched" not in stderr
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, "")


def test_r92_f6_a_fetch_by_url_merged_with_no_reflog_is_told_by_fetch_head(index, tmp_path):
    clone, url = fetched_clone(index, tmp_path)
    git(clone, "config", "core.logAllRefUpdates", "false")
    (clone / ".git/logs/refs/heads/main").unlink()  # no reflog to tell by
    git(clone, "fetch", "-q", url, "main")
    assert fast_rank(clone) == (None, "")  # fetched, not merged: nothing published has it
    git(clone, "merge", "-q", "--ff-only", "FETCH_HEAD")
    rank, stderr = slow_rank(clone)
    said = PULLED.fullmatch(stderr)
    assert rank == 1 and said, stderr
    assert said["how"] == f"a fetch of {url.removesuffix('.git')}"
    assert kistore(clone, "site", "build", str(tmp_path / "site")).exit_code == 1


def test_r92_f6_own_commits_a_local_merge_and_a_fork_s_url_are_no_pull(index, tmp_path):
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    # the maintainer's own commits: kistore's and git's, and a merge of a local branch
    run = json.loads(kistore(clone, "cat", "--manifest", "BenchmarkRun/slow").stdout)
    run["metadata"]["name"] = "slower"
    run["spec"]["timing"]["latencyNs"]["mean"] = 31
    (tmp_path / "slower.json").write_text(json.dumps(run))
    added = kistore(clone, "add", "--commit", str(tmp_path / "slower.json"))
    assert added.exit_code == 0, added.output
    git(clone, "checkout", "-q", "-b", "topic")
    git(clone, "commit", "-q", "--allow-empty", "-m", "topic work")
    git(clone, "checkout", "-q", "main")
    git(clone, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    # a contributor's fork pulled by its URL (GitHub's "merge locally"): origin did not move
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(clone), str(fork))
    work = tmp_path / "fork-work"
    git(tmp_path, "clone", "-q", str(fork), work.name)
    git(work, "commit", "-q", "--allow-empty", "-m", "a contribution")
    git(work, "push", "-q", "origin", "main")
    git(clone, "pull", "-q", "--no-rebase", "--ff-only", "../fork.git", "main")
    assert git(clone, "rev-parse", "HEAD") == git(fork, "rev-parse", "main")
    # and a fetch of origin's URL that brings nothing new
    git(clone, "fetch", "-q", os.path.relpath(index.root, clone), "main")
    assert fast_rank(clone) == (None, "")
    assert slow_rank(clone) == (1, "")  # slower (31 ns) is #2
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, "")

    # the same clone, once it pulls origin's new commits by URL: said
    git(index.root, "commit", "-q", "--allow-empty", "-m", "later")
    withdraw(index, run_of(index, "slow"), as_file=False)
    git(clone, "pull", "-q", "--no-rebase", "--no-edit",
        os.path.relpath(index.root, clone), "main")
    assert PULLED.fullmatch(slow_rank(clone)[1])


def test_r92b_f8_a_notes_only_withdrawal_is_asked_for_at_publishing(index, tmp_path):
    # pushed as notes alone (no branch commit): `git pull` says "Already up to date", no
    # query can tell offline; `site build` asks origin (git ls-remote) and refuses
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    withdraw(index, run_of(index, "slow"), as_file=False)  # origin's notes move, no branch
    git(clone, "pull", "-q", "--ff-only", "origin", "main")
    assert slow_rank(clone) == (1, "")  # a query: offline, as documented
    refused(clone, tmp_path, re.compile(  # before: built, slow #1
        r"\Aerror: refusing to (build the site|export): origin's refs/notes/kistore moved "
        r"since its notes were last fetched here \(\S+Z\) \(attestations pushed there as "
        r"notes alone, a withdrawal among them, move no branch, and they are not here: a "
        r"withdrawn run would be ranked\): run `kistore notes fetch origin` and (build the "
        r"site|export) again, or pass --without-attestations to (build the site|export) "
        r"with the notes as last fetched\n\Z"))
    without = kistore(clone, "site", "build", str(tmp_path / "site0"), "--without-attestations")
    assert (without.exit_code, without.stderr) == (0, "")  # asked nothing: as last fetched

    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0  # the way out
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, "")
    assert slow_rank(clone)[0] is None

    # a remote that cannot be asked (offline, gone): said, and built as last fetched
    git(clone, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    built = kistore(clone, "site", "build", str(tmp_path / "site2"))
    assert built.exit_code == 0 and UNASKED.fullmatch(built.stderr), built.output


def test_r92_f10_a_git_clone_bare_server_judges_its_pushed_notes_as_the_canonical_ones(
        index, tmp_path):
    # the server made with `git clone --bare` has an `origin`: its notes, which every clone
    # pushes to it, were taken for "only this clone's own", and site build was refused
    # offering --without-attestations (which publishes withdrawn runs ranked)
    server = tmp_path / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(server))
    clone = tmp_path / "c4"
    git(tmp_path, "clone", "-q", str(server), clone.name)
    git(clone, "remote", "add", "idx", str(index.root))
    assert kistore(clone, "notes", "fetch", "idx").exit_code == 0  # the withdrawal of fast
    assert kistore(clone, "notes", "push", "origin").exit_code == 0
    assert git(server, "rev-parse", "refs/notes/kistore") == \
        git(clone, "rev-parse", "refs/notes/kistore")

    assert fast_rank(server) == (None, "")  # withdrawn, nothing to warn of
    built = kistore(server, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output
    assert json.loads((tmp_path / "site" / "build.json").read_text())["notes"] == \
        git(server, "rev-parse", "refs/notes/kistore").strip()

    # a bare clone that holds no notes is still told to fetch them
    bare = tmp_path / "backup.git"
    git(tmp_path, "clone", "-q", "--bare", str(server), str(bare))
    refused = kistore(bare, "site", "build", str(tmp_path / "site2"))
    assert refused.exit_code == 1
    assert "refs/notes/kistore is not in this repository" in refused.stderr
    assert "run `kistore notes fetch origin`" in refused.stderr


def test_r93_f7_a_server_that_lost_its_notes_is_given_them_back_by_a_push(index, tmp_path):
    # origin's refs/notes/kistore deleted (restored from a backup without it): the refusal
    # said "moved ... not here" and named `notes fetch`, which fetches nothing: a loop
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    held = git(clone, "rev-parse", "refs/notes/kistore")
    git(index.root, "update-ref", "-d", "refs/notes/kistore")
    lost = re.compile(
        r"\Aerror: refusing to (build the site|export): origin holds no refs/notes/kistore "
        r"now, though its notes were fetched here \(\S+Z\): they were removed or replaced "
        r"there \(a fetch brings nothing back\): run `kistore notes push origin`, which puts "
        r"this repository's notes back, and (build the site|export) again\n\Z")
    refused(clone, tmp_path, lost)
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0  # brings nothing
    refused(clone, tmp_path, lost)  # the same words: not the fetch again

    assert kistore(clone, "notes", "push", "origin").exit_code == 0  # the way out said
    assert git(index.root, "rev-parse", "refs/notes/kistore") == held
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output
    assert fast_rank(clone) == (None, "")  # origin's withdrawal of fast still applied


def noted(store: Store, text: str) -> None:
    """A community note on ``slow`` in ``store``'s ``refs/notes/kistore``: its notes move."""
    subject = run_of(store, "slow")
    statement = attestation.make_statement(subject, layout.object_path(subject), "note",
                                           {"text": text, "createdAt": "2026-07-11T00:00:00Z"})
    notes.attach(store, subject, attestation.sign_statement(statement, STRANGER).to_bytes())


def test_r93_f6_notes_pushed_with_plain_git_are_not_moved(index, tmp_path):
    # `git push origin refs/notes/kistore` writes no tracking ref: origin's tip, this
    # clone's own, was refused as "moved ... not here"
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    withdraw(Store(clone), run_of(index, "slow"), as_file=False)
    git(clone, "push", "-q", "origin", "refs/notes/kistore")
    assert git(index.root, "rev-parse", "refs/notes/kistore") == \
        git(clone, "rev-parse", "refs/notes/kistore")
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output  # before: refused
    assert slow_rank(clone)[0] is None

    # origin's tip an ancestor of this clone's (a later attestation not pushed yet): held
    noted(Store(clone), "ran it too")
    built = kistore(clone, "site", "build", str(tmp_path / "site2"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output
    # origin's tip moved past this clone's (another maintainer's note): still refused
    noted(index, "ran it as well")
    moved = kistore(clone, "site", "build", str(tmp_path / "site3"))
    assert moved.exit_code == 1 and "origin's refs/notes/kistore moved since" in moved.stderr


def test_r93_f9_a_fetch_of_a_dot_git_path_is_named_as_it_exists(index, tmp_path):
    # git writes `../srv` in FETCH_HEAD for `git fetch ../srv.git`: a path that does not exist
    server = tmp_path / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(server))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), clone.name)
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    git(index.root, "commit", "-q", "--allow-empty", "-m", "later")
    git(index.root, "push", "-q", str(server), "main")
    git(clone, "fetch", "-q", "../srv.git", "main")
    assert "\t../srv\n" in (clone / ".git/FETCH_HEAD").read_text().replace(" of ", "\t")
    git(clone, "merge", "-q", "--ff-only", "FETCH_HEAD")
    stderr = slow_rank(clone)[1]  # origin held no notes: "(it held none then)"
    assert "; a fetch of ../srv.git brought origin's commits into this repository's branches " \
        "since" in stderr, stderr  # before: "a fetch of ../srv"


def test_r93_f2_unasked_words_name_a_merged_fetch_by_url_a_later_fetch_hid(index, tmp_path):
    # `git fetch URL main && git merge FETCH_HEAD`, then a fork's fetch rewrites FETCH_HEAD:
    # the URL pull is no longer seen; with origin unreachable the build's warning said only
    # notes-alone pushes could be missing, though branches moved
    clone, url = fetched_clone(index, tmp_path)
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(clone), str(fork))
    git(clone, "fetch", "-q", url, "main")
    git(clone, "merge", "-q", "--ff-only", "FETCH_HEAD")
    git(clone, "fetch", "-q", "../fork.git", "main")
    rank, stderr = slow_rank(clone)  # withdrawn at origin: was not seen offline
    assert rank == 1 and MERGED.fullmatch(stderr), stderr  # the reflog's merge remembers it
    git(clone, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert built.exit_code == 1, built.output  # before: built, exit 0, slow ranked
    assert built.stderr.startswith(f"error: refusing to build the site: {stderr[9:-1]}")

    # a merge FETCH_HEAD still names (a fork's, by its URL) is told by it: not stale
    (tmp_path / "again").mkdir()
    fresh, _url = fetched_clone(index, tmp_path / "again")
    git(fresh, "fetch", "-q", str(fork), "main")
    git(fresh, "merge", "-q", "--ff-only", "FETCH_HEAD")
    assert "notes" not in slow_rank(fresh)[1]


MERGED = re.compile(
    r"warning: notes last fetched from origin \S+Z; a `git merge FETCH_HEAD` brought commits "
    r"into this repository's branches since \(\S+Z\) from a fetch FETCH_HEAD no longer names \(a "
    r"later fetch replaced it\), so whose they were cannot be told here: if origin's \(its "
    r"URL\), its notes are stale: run `kistore notes fetch origin`\n")


def test_g5_a_first_notes_push_by_plain_git_lets_publishing_pass(index, tmp_path):
    # a server holding no notes; the clone's first `git push origin refs/notes/kistore`:
    # `site build` was refused ("holds only this clone's own attestations") until a
    # `kistore notes fetch`, though the server held exactly this clone's notes
    server = tmp_path / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(server))
    assert git(server, "for-each-ref", "refs/notes") == ""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), clone.name)
    withdraw(Store(clone), run_of(index, "slow"), as_file=False)
    git(clone, "push", "-q", "origin", "refs/notes/kistore")
    # msg95 6: queries cannot tell the push (no tracking ref, no remote asked): said why
    _, stderr = slow_rank(clone)
    assert stderr.splitlines(keepends=True)[0] == (
        "warning: refs/notes/kistore holds only this repository's own attestations: no "
        "remote's notes were fetched into it (git clone and git pull do not fetch them; a "
        "remote holding none makes this repository the only holder: `kistore notes push "
        "REMOTE` gives it yours; a plain `git push` of them leaves no trace here, no "
        "tracking ref, and queries "
        "ask no remote: `kistore notes fetch REMOTE` records them as the remote's): the "
        "remote's attestations (withdrawals, reruns) are not applied to this answer; "
        "`kistore notes fetch origin` fetches them\n")
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output  # before: refused
    assert git(clone, "rev-parse", "refs/notes/remotes/origin/kistore") == \
        git(server, "rev-parse", "refs/notes/kistore")  # recorded as a notes push records
    rank, stderr = slow_rank(clone)  # queries offline: the notes count as fetched now
    assert rank is None and "notes" not in stderr, stderr

    # a server whose notes this clone does not hold: refused, the fetch named, as before
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(server), other.name)
    noted(Store(other), "ran it too")
    git(other, "push", "-q", "-f", "origin", "refs/notes/kistore")
    third = tmp_path / "third"
    git(tmp_path, "clone", "-q", str(server), third.name)
    noted(Store(third), "mine")
    refused = kistore(third, "site", "build", str(tmp_path / "site3"))
    assert refused.exit_code == 1
    assert "holds only this repository's own attestations" in refused.stderr
    assert "run `kistore notes fetch origin`" in refused.stderr


def test_g8_a_forced_notes_push_to_a_server_without_hooks_is_said_by_the_fetch(index, tmp_path):
    # a server without kistore's hooks (a mirror): `git push -f origin refs/notes/kistore`
    # of an unrelated notes history drops the maintainer's withdrawal of fast there; the
    # next `kistore notes fetch` kept it here, but said nothing of the rewrite
    server = tmp_path / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(server))
    git(index.root, "push", "-q", str(server), "refs/notes/kistore")
    seen = git(server, "rev-parse", "refs/notes/kistore")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), clone.name)
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(server), other.name)
    noted(Store(other), "mine alone")  # a notes history of its own: no withdrawal
    git(other, "push", "-q", "-f", "origin", "refs/notes/kistore")
    tip = git(server, "rev-parse", "refs/notes/kistore")

    fetched = kistore(clone, "notes", "fetch", "origin")
    assert fetched.exit_code == 0, fetched.output
    fast = git(clone, "rev-parse", f"HEAD:{layout.object_path(run_of(index, 'fast'))}").strip()
    assert (f"warning: origin's refs/notes/kistore was rewritten since its notes were last "
            f"fetched here (a forced push, which a server running kistore's hooks/pre-receive "
            f"refuses): its tip {tip[:12]} does not descend from {seen[:12]}, the tip last "
            f"seen; 1 notes commit(s) of that history are gone from it ({seen[:12]}), and "
            f"with them 1 attestation line(s) on 1 note(s): refs/notes/kistore:{fast} (on "
            f"sha256:{run_of(index, 'fast').hex}); this repository keeps them (notes only grow, "
            "KI408): `kistore notes push origin` gives them back to origin, and tell its "
            "maintainer (install hooks/pre-receive there)\n") == fetched.stderr
    assert fast_rank(clone)[0] is None  # still withdrawn here
    assert kistore(clone, "notes", "fetch", "origin").stderr == ""  # said once by a fetch
    verified = kistore(clone, "verify")  # verify says it until origin has them back
    assert (f"refs/notes/remotes/origin/kistore: warning KI313 notes-history-rewritten: "
            f"{fetched.stderr[9:-1]}\n") in verified.stdout, verified.stdout
    assert kistore(clone, "notes", "push", "origin").exit_code == 0
    assert seen in git(server, "rev-list", "refs/notes/kistore")  # given back
    assert "KI313" not in kistore(clone, "verify").stdout
