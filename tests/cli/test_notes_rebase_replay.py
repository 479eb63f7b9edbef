"""``kistore notes rebase`` with no REMOTE replays the notes history (fresh10 HIGH 1).

It wrote the tip's notes into ONE notes commit made at the rebase, so every line kept that
the history after the mistake brought re-entered at now, and readers date a line by the
notes commit that brought it (KI437, KI438): a withdrawal signed by a key revoked since
stopped counting (the withdrawn run ranked first again), a withdrawal signed while its key
was untrusted counted after a later ``trust add``, and ``--dry-run --json`` said
``enteringNow: 0``. The history is now written again without the dropped lines, each
commit with its own author, committer, dates and message; a bare repository is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from kistore.attest import attestation, signing
from kistore.attest.trust import add_key, revoke_key
from kistore.core import layout
from kistore.store import Store

from ..conftest import commit_all, fixed_key, git, next_second
from ..sparse import MAINTAINER, trust_maintainer, withdraw
from .test_notes_tip_lacking import _note_by, ki315, run

LATE = fixed_key(11)
"""A key trusted only after its withdrawal entered (as a maintainer)."""

LOG = "%H%n%P%n%an <%ae> %ad%n%cn <%ce> %cd%n%B%n--"


def _blob(root, name: str) -> str:
    store = Store(root)
    digest = store.view("HEAD").find_name("BenchmarkRun", name)
    return git(root, "rev-parse", f"HEAD:{layout.object_path(digest)}").strip()


def _order(root) -> list[tuple[str, bool]]:
    done = run(root, "rank", "BenchmarkRun/fast", "--all", "--json")
    assert done.returncode == 0, done.stderr
    return [(row["name"], row["withdrawn"]) for row in json.loads(done.stdout)]


def _verdicts(root) -> list[tuple[str, str, str]]:
    done = run(root, "verify", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return sorted((f["rule"], f.get("file", ""), f["message"])
                  for f in json.loads(done.stdout)["findings"]
                  if f["rule"] != "KI315")


def _log(root, rev: str, count: int) -> list[list[str]]:
    """Each commit of ``rev``'s first-parent line: id, parents, author, committer, message."""
    text = git(root, "log", "--first-parent", f"-{count}", "--date=raw", f"--format={LOG}", rev)
    return [chunk.strip("\n").split("\n", 4) for chunk in text.split("\n--\n") if chunk.strip()]


@pytest.fixture
def replayable(group):
    """No remote: a note on fast (kept), a mistaken note on ref taken back with ``git notes
    remove``, then a trusted withdrawal of fast whose key is revoked after it entered, and
    a withdrawal of slow (by ``git notes``, dated +0530, another author) whose key is trusted
    only after it entered. Returns ``(root, the first notes commit, the tip)``."""
    trust_maintainer(group)
    root = group.root
    store = Store(root)
    _note_by(store, "fast", 8, "kept")
    first = git(root, "rev-parse", "refs/notes/kistore").strip()
    _note_by(store, "ref", 9, "by mistake")
    git(root, "notes", "--ref", "kistore", "remove", _blob(root, "ref"))
    withdraw(store, store.view("HEAD").find_name("BenchmarkRun", "fast"), as_file=False)
    slow = store.view("HEAD").find_name("BenchmarkRun", "slow")
    statement = attestation.make_statement(slow, layout.object_path(slow), "withdrawal",
                                           {"reason": "harness bug",
                                            "createdAt": "2026-07-10T00:00:00Z"})
    line = attestation.sign_statement(statement, LATE).to_bytes().decode()
    when = f"{int(time.time())} +0530"
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-m", line, _blob(root, "slow")],
                   cwd=root, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "Late Signer",
                        "GIT_AUTHOR_EMAIL": "late@example.org", "GIT_AUTHOR_DATE": when,
                        "GIT_COMMITTER_NAME": "Notes Keeper",
                        "GIT_COMMITTER_EMAIL": "keeper@example.org",
                        "GIT_COMMITTER_DATE": when})
    next_second()  # entered before the trust changes (a same-second entry is unordered)
    revoke_key(root, signing.keyid(MAINTAINER.public_key()))
    add_key(root, signing.public_key_line(LATE.public_key()), ["maintainer"])
    commit_all(root, "revoke the maintainer's key, trust the late one")
    next_second()  # the rebase after the trust commit
    return root, first, git(root, "rev-parse", "refs/notes/kistore").strip()


def test_notes_rebase_keeps_every_line_at_the_time_it_entered(replayable):
    root, first, tip = replayable
    # fast's withdrawal counts (entered before its key's revocation), slow's does not
    # (entered before its key was trusted)
    before = _order(root)
    assert before == [("slow", False), ("ref", False), ("broken", False), ("fast", True)]
    verdicts = _verdicts(root)
    assert len(ki315(root)) == 1  # the mistaken note on ref (a community note)
    old = _log(root, tip, 5)

    done = run(root, "notes", "rebase", "--json")
    assert (done.returncode, done.stderr) == (0, "")
    new = git(root, "rev-parse", "refs/notes/kistore").strip()
    # on BASE 04156861: fast ranked first again, slow withdrawn (one notes commit, now)
    assert _order(root) == before
    assert _verdicts(root) == verdicts
    assert json.loads(done.stdout) == {
        "dropped": 1, "notes": [_blob(root, "ref")], "old": tip, "new": new, "base": first,
        "enteringNow": 0, "replayed": [old[1][0], old[0][0]],
        "leftOut": [old[3][0], old[2][0]]}
    assert ki315(root) == []
    replayed = _log(root, new, 3)
    assert replayed[2][0] == first  # the history before the mistake, as it was
    assert [c[2:] for c in replayed[:2]] == [c[2:] for c in old[:2]]  # who, when, why
    assert "+0530" in replayed[0][3] and replayed[0][2].startswith("Late Signer ")
    assert replayed[0][1] == replayed[1][0] and replayed[1][1] == first
    assert git(root, "rev-parse", f"{new}^{{tree}}") == git(root, "rev-parse", f"{tip}^{{tree}}")


def test_notes_rebase_dry_run_says_what_the_run_does(replayable):
    root, first, tip = replayable
    dry = run(root, "notes", "rebase", "--dry-run", "--json")
    assert (dry.returncode, dry.stderr) == (0, "")
    assert git(root, "rev-parse", "refs/notes/kistore").strip() == tip  # nothing written
    would = json.loads(dry.stdout)
    done = json.loads(run(root, "notes", "rebase", "--json").stdout)
    assert (would.pop("dropped"), would.pop("wouldDrop"), done.pop("dropped")) == (0, 1, 1)
    assert (would.pop("new"), done.pop("new")) == (
        None, git(root, "rev-parse", "refs/notes/kistore").strip())
    assert would == done
    assert (done["enteringNow"], len(done["replayed"]), len(done["leftOut"])) == (0, 2, 2)


def test_notes_rebase_says_the_commits_written_again(replayable):
    root, first, tip = replayable
    old = _log(root, tip, 4)
    named = f"BenchmarkRun/ref (note by {signing.keyid(fixed_key(9).public_key())})"
    replay = (", 2 notes commit(s) of its history written again without them, each with its "
              "own author, committer, date and message, so every line kept keeps the time it "
              f"entered; 2 left out, holding nothing else ({old[3][0][:12]}, {old[2][0][:12]})")
    lines = ("1 attestation line(s) the notes history or reflog of refs/notes/kistore held "
             f"that its tip lacks: {named}")
    dry = run(root, "notes", "rebase", "--dry-run")
    assert (dry.returncode, dry.stderr) == (0, "")
    assert dry.stdout == (
        f"would drop {lines}{replay}; `kistore notes rebase` drops them (this repository has "
        "no remote configured: a line it pushed by URL, or to a remote since removed, stays "
        "there)\n")
    done = run(root, "notes", "rebase")
    assert (done.returncode, done.stderr) == (0, "")
    new = git(root, "rev-parse", "refs/notes/kistore").strip()
    assert done.stdout == (
        f"dropped {lines}; refs/notes/kistore is now {new[:12]}{replay}; the old tip "
        f"{tip[:12]} stays in git: `git update-ref refs/notes/kistore {tip}` puts it back\n")


BARE_REFUSED = (
    "error: this repository is bare (a server): its refs/notes/kistore moves only by "
    "a push that its pre-receive hook judges (notes only grow, KI408), so `kistore "
    "notes rebase` rewrites no notes here; nothing was written\n")


def _bare_server(root, tmp_path):
    """A bare clone of ``root`` holding its notes and no remote, as a server's own is."""
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(server))
    git(server, "fetch", "-q", str(root), "+refs/notes/kistore:refs/notes/kistore")
    git(server, "remote", "remove", "origin")
    return server


def _refused_in(where, server, tip, argsets):
    """Each ``kistore ARGS`` run in ``where`` refuses as a bare repository, no ref moved."""
    refs = git(server, "for-each-ref")
    for args in argsets:
        done = run(where, *args)
        assert (done.returncode, done.stdout, done.stderr) == (1, "", BARE_REFUSED)
    assert git(server, "for-each-ref") == refs
    assert git(server, "rev-parse", "refs/notes/kistore").strip() == tip


def test_notes_rebase_in_a_bare_repository_is_refused(replayable, tmp_path):
    root, _first, tip = replayable
    server = _bare_server(root, tmp_path)
    _refused_in(server, server, tip, (("notes", "rebase"), ("notes", "rebase", "--dry-run"),
                                      ("notes", "rebase", "origin")))


def test_notes_rebase_in_a_work_tree_of_a_bare_repository_is_refused(replayable, tmp_path):
    # fresh12 F14: `git worktree add` from the server's bare repository shares its refs
    root, _first, tip = replayable
    server = _bare_server(root, tmp_path)
    work = tmp_path / "work"
    git(server, "worktree", "add", "-q", str(work), "main")
    _refused_in(work, server, tip, (("notes", "rebase"), ("notes", "rebase", "--dry-run")))


def _refused_as_bare(where, server, tip, argsets, said: str) -> None:
    """As :func:`_refused_in`, each refusal ``said`` after the words all three share."""
    refs = git(server, "for-each-ref")
    for args in argsets:
        done = run(where, *args)
        assert (done.returncode, done.stdout, done.stderr) == (1, "", BARE_REFUSED.replace(
            " (notes only grow, KI408), so `kistore notes rebase` rewrites no notes here",
            said)), done.stderr
    assert git(server, "for-each-ref") == refs
    assert git(server, "rev-parse", "refs/notes/kistore").strip() == tip


@pytest.mark.parametrize("linked", [False, True])
def test_attest_and_notes_sync_in_a_bare_repository_are_refused_as_notes_rebase(
        replayable, tmp_path, linked):
    # fresh12 F15: `attest` wrote the server's refs/notes/kistore directly (exit 0, no
    # pre-receive judging it) where `notes rebase` refused, "moves only by a push"
    root, _first, tip = replayable
    server = _bare_server(root, tmp_path)
    where = server
    if linked:  # fresh12 F14's case: a linked work tree shares the server's refs
        where = tmp_path / "work"
        git(server, "worktree", "add", "-q", str(where), "main")
    key = tmp_path / "k"
    key.write_bytes(signing.private_key_bytes(fixed_key(3)))
    _refused_as_bare(where, server, tip, [
        ("attest", "BenchmarkRun/fast", "--type", "note", "-m", "on the server", "--key",
         str(key))],
        ", so `kistore attest` writes no note here: attest in a clone of it and send the note "
        "with `kistore notes push origin` there")
    _refused_as_bare(where, server, tip, [("notes", "sync")],
                     ", so `kistore notes sync` attaches no note here: run it in a clone of it "
                     "and send the notes with `kistore notes push origin` there")
    if not linked:  # --file: no work tree; it said "use a note instead", refused too
        done = run(where, "attest", "BenchmarkRun/fast", "--type", "note", "-m", "x", "--key",
                   str(key), "--file")
        assert (done.returncode, done.stdout, done.stderr) == (1, "", (
            "error: this repository has no work tree (a bare repository, a server): attest "
            "in a clone of it, with --file for a pull request, or as a note sent with "
            "`kistore notes push origin`; nothing was written\n"))


def test_ki315_fix_with_no_remote_names_both_ways(replayable):
    # fresh10 MED 4: the fix named the restore alone (and KI315's rule text, remotes)
    root, _first, _tip = replayable
    (_where, message, fix), = ki315(root)
    assert fix == ("run `kistore notes restore` (a line taken back by mistake), or `kistore "
                   "notes rebase` (a line you meant to take back, never pushed: this "
                   "repository has no remote)")
    assert message.endswith(
        "`kistore notes restore` puts them back (a line you meant to take back, never "
        "pushed: this repository has no remote configured, and `kistore notes rebase` drops "
        "them from its notes history for good)")
