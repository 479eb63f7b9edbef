"""A remote's notes never remove a line this clone holds; a notes-less remote is asked again.

Reviewer r90 F11: ``kistore notes fetch R`` took R's notes history as it came, removals
included: a fork or mirror whose notes commit removed the maintainer's withdrawal (one
``git notes remove`` and a push, where no pre-receive hook runs) removed it here too, as a
fast-forward, or in a real merge (``cat_sort_uniq`` settles conflicts only, and a removal
against an unchanged note is none), and ``notes push R`` did the same to the pushing clone.
Now every line held before is kept, in one notes commit on top, and the command says so.

Reviewer r90 F10: a remote a ``notes fetch`` found holding no notes was taken as fetched
for good: notes it gained later (a withdrawal, with the trust commit that makes it count)
were never asked for, and nothing warned after the ``git pull`` that brought the trust.
Now that fetch counts at its time, and branches fetched since are warned of.

Real ``git clone``s of the ``group`` store, whose run ``fast`` a trusted maintainer withdraws
with a note (``index``, as in ``test_notes_freshness``).
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
from pathlib import Path

import pytest

from kistore.attest import attestation, notes
from kistore.core import canonical, layout
from kistore.store import Store

from ..conftest import git, next_second
from ..sparse import trust_maintainer, withdraw
from .test_notes_freshness import (
    STRANGER,
    clone_of,
    fast_rank,
    kistore,
    out,
    run_of,
)

STALE_NONE = re.compile(r"warning: notes last fetched from origin \d{4}-\d\d-\d\dT\d\d:\d\d:"
                        r"\d\dZ \(it held none then\); the branches were fetched since "
                        r"\(\d{4}-[^)]*Z\): run `kistore notes fetch origin`\n")


@pytest.fixture
def index(group) -> Store:
    """The index: ``fast`` withdrawn by the maintainer's note."""
    trust_maintainer(group)
    withdraw(group, run_of(group, "fast"), as_file=False)
    return group


def fast_blob(clone: Path) -> str:
    """The git blob of ``fast``'s object file: what its note annotates."""
    digest = run_of(Store(clone), "fast")
    return out(clone, "hash-object", f"store/objects/sha256/{digest.hex[:2]}/{digest.hex[2:]}.json")


def fork_removing_the_withdrawal(index: Store, tmp_path: Path) -> Path:
    """A hook-less fork of the index whose notes commit, on top of the index's, removes it."""
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(fork))
    git(fork, "fetch", "-q", str(index.root), "refs/notes/kistore:refs/notes/kistore")
    blob = out(fork, "notes", "--ref", "kistore", "list").split()[1]
    git(fork, "-c", "user.name=E", "-c", "user.email=e@example.org", "notes", "--ref",
        "kistore", "remove", blob)
    assert out(fork, "notes", "--ref", "kistore", "list") == ""
    return fork


def is_ancestor(clone: Path, commit: str, of: str) -> bool:
    """Whether ``commit`` is ``of`` or one of its ancestors, in ``clone``."""
    return git_status(clone, "merge-base", "--is-ancestor", commit, of) == 0


def git_status(cwd: Path, *args: str) -> int:
    """git's exit status."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True).returncode


def kept_warning(clone: Path, remote: str, *, pushing: bool = False) -> str:
    """What ``notes fetch``/``notes push`` say on stderr when REMOTE removed the withdrawal."""
    back = (f"this push gives them back to {remote} when {remote} accepts it" if pushing else
            f"`kistore notes push {remote}` gives them back to {remote} when it accepts it")
    return (f"warning: {remote}'s notes removed 1 attestation line(s) this repository holds, on 1 "
            f"note(s): refs/notes/kistore:{fast_blob(clone)} (on {run_of(Store(clone), 'fast')}"
            f"); kept here, as notes only grow (KI408): a removal in {remote}'s notes history "
            f"is never applied. {remote} lacks them: {back}\n")


def withdrawal_line(clone: Path) -> str:
    """The note on ``fast`` in the clone: the maintainer's withdrawal, one line."""
    lines = out(clone, "notes", "--ref", "kistore", "show", fast_blob(clone)).splitlines()
    assert len(lines) == 1 and '"predicateType"' not in lines[0]  # a DSSE envelope line
    return lines[0]


def fetched_clone(index: Store, tmp_path: Path, fork: Path) -> tuple[Path, str]:
    """A clone that fetched the index's notes (``fast`` withdrawn), the fork as ``fork``."""
    clone = clone_of(index, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    assert fast_rank(clone) == (None, "")
    git(clone, "remote", "add", "fork", str(fork))
    return clone, withdrawal_line(clone)


def test_a_fork_fast_forwarding_over_a_removal_removes_nothing_here(index, tmp_path):
    fork = fork_removing_the_withdrawal(index, tmp_path)
    clone, line = fetched_clone(index, tmp_path, fork)
    before = out(clone, "rev-parse", "refs/notes/kistore")

    fetched = kistore(clone, "notes", "fetch", "fork")
    assert fetched.exit_code == 0, fetched.output
    assert fetched.stdout == "0 attestation(s) gained from fork\n"  # never "-1"
    assert fetched.stderr == kept_warning(clone, "fork")
    assert fast_rank(clone) == (None, "")  # still withdrawn
    assert withdrawal_line(clone) == line
    # the fork brings no line: nothing written, and its notes history is not ours (r91 F10)
    assert out(clone, "rev-parse", "refs/notes/kistore") == before
    assert not is_ancestor(clone, out(fork, "rev-parse", "refs/notes/kistore"), before)

    again = kistore(clone, "notes", "fetch", "fork", "--json")  # its tip was taken whole
    assert (again.exit_code, again.stderr) == (0, "")
    assert json.loads(again.stdout) == {"remote": "fork", "gained": 0, "kept": 0, "leftOut": 0,
                                        "rewritten": None}
    assert kistore(clone, "notes", "fetch", "origin").stderr == ""  # nothing removed there

    pushed = kistore(clone, "notes", "push", "fork")  # what the warning says: back there
    assert (pushed.exit_code, pushed.stderr) == (0, ""), pushed.output
    assert out(fork, "notes", "--ref", "kistore", "show", fast_blob(clone)) == line
    assert out(clone, "rev-parse", "refs/notes/kistore") == before  # the push moved none of ours


def test_a_merge_with_a_removal_against_an_unchanged_note_removes_nothing_here(index,
                                                                               tmp_path):
    fork = fork_removing_the_withdrawal(index, tmp_path)
    clone, line = fetched_clone(index, tmp_path, fork)
    slow = run_of(Store(clone), "slow")  # our own note since: the histories diverge
    statement = attestation.make_statement(slow, layout.object_path(slow), "note", {
        "text": "ran it too", "createdAt": "2026-07-11T00:00:00Z"})
    notes.attach(Store(clone), slow, attestation.sign_statement(statement, STRANGER).to_bytes())
    ours = out(clone, "rev-parse", "refs/notes/kistore")

    fetched = kistore(clone, "notes", "fetch", "fork", "--json")
    assert fetched.exit_code == 0, fetched.output
    assert json.loads(fetched.stdout) == {"remote": "fork", "gained": 0, "kept": 1, "leftOut": 0,
                                          "rewritten": None}
    assert fetched.stderr == kept_warning(clone, "fork")
    assert fast_rank(clone) == (None, "")
    assert withdrawal_line(clone) == line
    # nothing gained: nothing written; before, git's merge with the fork's history (r91 F10)
    assert out(clone, "rev-parse", "refs/notes/kistore") == ours
    assert len(out(clone, "notes", "--ref", "kistore", "list").splitlines()) == 2


def test_a_notes_push_to_a_fork_removing_a_line_keeps_it_and_gives_it_back(index, tmp_path):
    fork = fork_removing_the_withdrawal(index, tmp_path)
    clone, line = fetched_clone(index, tmp_path, fork)
    theirs = out(fork, "rev-parse", "refs/notes/kistore")

    pushed = kistore(clone, "notes", "push", "fork")
    assert pushed.exit_code == 0, pushed.output
    assert pushed.stdout == ("pushed refs/notes/kistore to fork, after merging the 0 "
                             "attestation(s) fork had that this repository lacked\n")
    assert pushed.stderr == kept_warning(clone, "fork", pushing=True)
    assert fast_rank(clone) == (None, "")
    # the fork's new tip: a merge of ours and its own, made for the push; ours did not move
    # onto it, so the fork's notes history stays out of ours (r91 F10)
    ours = out(clone, "rev-parse", "refs/notes/kistore")
    pushed_tip = out(fork, "rev-parse", "refs/notes/kistore")
    assert out(fork, "rev-parse", f"{pushed_tip}^@").splitlines() == [ours, theirs]
    assert not is_ancestor(clone, theirs, ours)
    assert out(fork, "notes", "--ref", "kistore", "show", fast_blob(clone)) == line
    again = kistore(clone, "notes", "fetch", "fork", "--json")  # what it holds is ours
    assert (again.exit_code, json.loads(again.stdout)["gained"], again.stderr) == (0, 0, "")


def test_a_remote_found_without_notes_is_asked_again_after_a_later_pull(group, tmp_path):
    # r90 F10: the remote's later withdrawal (and the trust that makes it count) arrived
    # with a `git pull`; the record of the fetch that found no notes silenced every warning
    trust_maintainer(group)  # the index, trusting the maintainer, with no notes yet
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(group.root), str(server))
    reader = tmp_path / "reader"
    git(tmp_path, "clone", "-q", str(server), "reader")
    assert kistore(reader, "notes", "fetch", "origin").exit_code == 0  # none there
    assert fast_rank(reader) == (1, "")

    next_second()  # the record's time and the pull's, in whole seconds apart
    maintainer = tmp_path / "maintainer"
    git(tmp_path, "clone", "-q", str(server), "maintainer")
    withdraw(Store(maintainer), run_of(Store(maintainer), "fast"), as_file=False)
    assert kistore(maintainer, "notes", "push", "origin").exit_code == 0
    git(maintainer, "commit", "-q", "--allow-empty", "-m", "later")
    git(maintainer, "push", "-q", "origin", "HEAD")
    git(reader, "pull", "-q", "--ff-only", "origin")  # git pull fetches no notes

    rank, stderr = fast_rank(reader)
    assert rank == 1 and STALE_NONE.fullmatch(stderr), stderr  # warned, not silent
    assert STALE_NONE.fullmatch(kistore(reader, "show", "BenchmarkRun/fast").stderr)
    # site build and export refuse, as for notes fetched before the branches were (r90b F9)
    said = STALE_NONE.fullmatch(stderr)[0][len("warning: "):-1]
    built = kistore(reader, "site", "build", str(tmp_path / "site"))
    assert built.exit_code == 1, built.output
    assert built.stderr.startswith(f"error: refusing to build the site: {said} and build the "
                                   "site again"), built.stderr
    exported = kistore(reader, "export", str(tmp_path / "out"))
    assert exported.exit_code == 1, exported.output
    assert exported.stderr.startswith(f"error: refusing to export: {said} and export again")

    fetched = kistore(reader, "notes", "fetch", "origin")
    assert (fetched.stdout, fetched.stderr) == ("1 attestation(s) gained from origin\n", "")
    assert not (reader / ".git/kistore/notes-none/origin").exists()
    assert fast_rank(reader) == (None, "")  # withdrawn, nothing to warn of


def test_notes_restore_puts_back_what_a_fetch_before_the_fix_removed(index, tmp_path):
    fork = fork_removing_the_withdrawal(index, tmp_path)
    clone, line = fetched_clone(index, tmp_path, fork)
    git(clone, "fetch", "-q", "fork", "refs/notes/kistore:refs/notes/kistore")  # as before
    assert out(clone, "notes", "--ref", "kistore", "list") == ""
    assert fast_rank(clone)[0] == 1  # the withdrawal gone, and no fetch brings it back
    assert kistore(clone, "notes", "fetch", "origin").stdout == \
        "0 attestation(s) gained from origin\n"

    old = out(clone, "rev-parse", "refs/notes/kistore")
    served = out(clone, "rev-parse", "refs/notes/remotes/origin/kistore")
    restored = kistore(clone, "notes", "restore")
    assert (restored.exit_code, restored.stderr) == (0, ""), restored.output
    # the fork's removal, which origin lacks, would be refused by a push to origin (KI408
    # per notes commit, fresh01 F8): the notes are origin's again, which hold the line
    assert restored.stdout == (
        f"1 attestation line(s) restored on 1 note(s): refs/notes/kistore:{fast_blob(clone)} "
        f"(on {run_of(Store(clone), 'fast')}); written on origin's notes as last fetched "
        f"({served[:12]}), with this repository's lines, not on this repository's notes "
        f"history: its notes commit {old[:12]}, which origin lacks, removed lines, and a "
        "notes push refuses every notes commit it brings that removes a line (notes only "
        f"grow, KI408); the old tip {old[:12]} stays in git: `git update-ref "
        f"refs/notes/kistore {old}` puts it back; `kistore notes push origin` gives them to "
        "origin\n")
    assert withdrawal_line(clone) == line
    assert fast_rank(clone) == (None, "")
    assert out(clone, "rev-parse", "refs/notes/kistore") == served
    again = kistore(clone, "notes", "restore", "--json")
    assert json.loads(again.stdout) == {"restored": 0, "notes": [], "leftOut": 0}


def forged(line: str) -> str:
    """``line`` (a DSSE bundle) with its statement's reason changed: its signature fails."""
    bundle = json.loads(line)
    payload = json.loads(base64.b64decode(bundle["dsseEnvelope"]["payload"]))
    payload["predicate"]["reason"] = "evil"
    bundle["dsseEnvelope"]["payload"] = base64.b64encode(canonical.dumps(payload)).decode()
    return canonical.dumps(bundle).decode()


def fork_adding(index: Store, tmp_path: Path, *lines: str) -> Path:
    """A hook-less fork of the index whose notes commit appends ``lines`` to ``fast``'s note."""
    fork = tmp_path / "evil.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(fork))
    git(fork, "fetch", "-q", str(index.root), "refs/notes/kistore:refs/notes/kistore")
    blob = out(fork, "notes", "--ref", "kistore", "list").split()[1]
    for line in lines:  # from a file: a line of 1 MiB is past the argument list's size
        (tmp_path / "line").write_text(line)
        git(fork, "-c", "user.name=E", "-c", "user.email=e@example.org", "notes", "--ref",
            "kistore", "append", "-F", str(tmp_path / "line"), blob)
    return fork


def left_out_warning(clone: Path, held: str, why: str) -> str:
    """What a fetch (or restore) says of one line on ``fast``'s note it left out."""
    return (f"warning: 1 attestation line(s) {held} on refs/notes/kistore:{fast_blob(clone)} "
            f"(on {run_of(Store(clone), 'fast')}) left out: {why} (KI409 notes-line-invalid); "
            "this repository's notes take in only lines that verify, as a notes push must "
            "send\n")


def test_a_fetch_leaves_out_a_forged_line_and_a_push_still_works(index, tmp_path):
    # r90b F11: a fork appends a forged line (reason changed, signature kept) to the
    # maintainer's withdrawal; the fetch took it in, and it could never leave again
    line = out(Path(index.root), "notes", "--ref", "kistore", "show",
               fast_blob(Path(index.root)))
    fork = fork_adding(index, tmp_path, forged(line), "not a bundle")
    clone, line = fetched_clone(index, tmp_path, fork)
    theirs = out(fork, "rev-parse", "refs/notes/kistore")
    before = out(clone, "rev-parse", "refs/notes/kistore")

    fetched = kistore(clone, "notes", "fetch", "fork")
    assert fetched.exit_code == 0, fetched.output
    assert fetched.stdout == "0 attestation(s) gained from fork\n"
    warning, = fetched.stderr.splitlines(keepends=True)  # one line for the one note
    assert warning.startswith(
        f"warning: 2 attestation line(s) fork's notes held on refs/notes/kistore:"
        f"{fast_blob(clone)} (on {run_of(Store(clone), 'fast')}) left out: ")
    assert warning.endswith(": not canonical bundle bytes (what `kistore attest` writes) (KI409 "
                            "notes-line-invalid) (and 1 other reason(s)); this repository's "
                            "notes take in only lines that verify, as a notes push must send\n")
    assert withdrawal_line(clone) == line  # the forged and the garbage lines are not here
    # nothing gained: nothing written, and the fork's history (its forged lines) is not
    # reachable from ours (r91 F10; before, our tip was a commit on top of the fork's)
    assert out(clone, "rev-parse", "refs/notes/kistore") == before
    assert not is_ancestor(clone, theirs, before)
    assert kistore(clone, "verify").exit_code == 0
    again = kistore(clone, "notes", "fetch", "fork")  # judged again: still left out
    assert (again.exit_code, again.stdout, again.stderr) == (
        0, "0 attestation(s) gained from fork\n", fetched.stderr)

    pushed = kistore(clone, "notes", "push", "origin")  # not refused (KI409)
    assert pushed.exit_code == 0, pushed.output
    restored = kistore(clone, "notes", "restore", "--json")  # the history never held them
    assert restored.exit_code == 0, restored.output
    assert json.loads(restored.stdout) == {"restored": 0, "notes": [], "leftOut": 0}
    assert withdrawal_line(clone) == line
    assert kistore(clone, "verify").exit_code == 0


def test_a_first_fetch_leaves_out_a_forged_line_and_keeps_the_good_one(index, tmp_path):
    line = out(Path(index.root), "notes", "--ref", "kistore", "show",
               fast_blob(Path(index.root)))
    fork = fork_adding(index, tmp_path, forged(line))
    clone = clone_of(index, tmp_path / "clone")
    git(clone, "remote", "add", "fork", str(fork))

    fetched = kistore(clone, "notes", "fetch", "fork")
    assert fetched.exit_code == 0, fetched.output
    assert fetched.stdout == "1 attestation(s) gained from fork\n"  # the good one
    head, why = fetched.stderr.split(" left out: ")
    assert head + " left out: " == left_out_warning(clone, "fork's notes held", "").split(
        " (KI409 notes-line-invalid)")[0]
    assert "signature does not verify" in why and why.endswith(
        " (KI409 notes-line-invalid); this repository's notes take in only lines that verify, "
        "as a notes push must send\n")
    assert withdrawal_line(clone) == line
    rank, stderr = fast_rank(clone)  # withdrawn; a fork's notes alone are not the index's
    assert rank is None and stderr.startswith(  # (r91 F4)
        "warning: the notes of origin, the canonical remote, were never fetched into this "
        "repository, only those of fork: ")


def test_notes_restore_leaves_out_a_line_that_does_not_verify(index, tmp_path):
    line = out(Path(index.root), "notes", "--ref", "kistore", "show",
               fast_blob(Path(index.root)))
    bad = forged(line)
    fork = fork_adding(index, tmp_path, bad)
    clone, line = fetched_clone(index, tmp_path, fork)
    # as a fetch before the fix did: the forged line taken in, then cut by hand (KI409's advice)
    git(clone, "fetch", "-q", "fork", "+refs/notes/kistore:refs/notes/kistore")
    assert bad in out(clone, "notes", "--ref", "kistore", "show", fast_blob(clone))
    git(clone, "-c", "user.name=E", "-c", "user.email=e@example.org", "notes", "--ref",
        "kistore", "add", "-f", "-m", line, fast_blob(clone))

    restored = kistore(clone, "notes", "restore")
    assert restored.exit_code == 0, restored.output
    # fresh10 LOW 2: it said "refs/notes/kistore holds every line its history held"
    assert restored.stdout == ("0 attestation line(s) restored: the 1 line(s) its history "
                               "held that refs/notes/kistore lacks do not verify (KI409 "
                               "notes-line-invalid), and stay out (said above)\n")
    warning, = restored.stderr.splitlines(keepends=True)
    assert warning.startswith(
        f"warning: 1 attestation line(s) its history held on refs/notes/kistore:"
        f"{fast_blob(clone)} (on {run_of(Store(clone), 'fast')}) left out: ")
    assert "signature does not verify" in warning
    assert withdrawal_line(clone) == line
    assert kistore(clone, "verify").exit_code == 0


def test_a_fetch_keeping_a_removed_line_and_leaving_out_a_bad_one_writes_one_commit(index,
                                                                                     tmp_path):
    # one pass over the notes the merge changed: the withdrawal the fork removed is put back
    # and its garbage line on another note left out, in one notes commit on top of the fork's
    fork = fork_removing_the_withdrawal(index, tmp_path)
    slow = run_of(index, "slow")
    slow_blob = out(fork, "rev-parse", f"HEAD:{layout.object_path(slow)}")
    statement = attestation.make_statement(slow, layout.object_path(slow), "note", {
        "text": "ran it too", "createdAt": "2026-07-11T00:00:00Z"})
    good = attestation.sign_statement(statement, STRANGER).to_bytes().decode()
    for line in (good, "not a bundle"):
        git(fork, "-c", "user.name=E", "-c", "user.email=e@example.org", "notes", "--ref",
            "kistore", "append", "-m", line, slow_blob)
    clone, line = fetched_clone(index, tmp_path, fork)
    before = out(clone, "rev-parse", "refs/notes/kistore")

    fetched = kistore(clone, "notes", "fetch", "fork", "--json")
    assert fetched.exit_code == 0, fetched.output
    assert json.loads(fetched.stdout) == {"remote": "fork", "gained": 1, "kept": 1, "leftOut": 1,
                                          "rewritten": None}
    assert fetched.stderr == (
        f"warning: 1 attestation line(s) fork's notes held on refs/notes/kistore:{slow_blob} "
        f"(on {slow}) left out: not canonical bundle bytes (what `kistore attest` writes) "
        "(KI409 notes-line-invalid); this repository's notes take in only lines that verify, "
        "as a notes push must send\n" + kept_warning(clone, "fork"))
    assert withdrawal_line(clone) == line
    assert out(clone, "notes", "--ref", "kistore", "show", slow_blob) == good
    tip = out(clone, "rev-parse", "refs/notes/kistore")
    assert out(clone, "rev-parse", f"{tip}^@") == before  # one commit of ours, on ours
    assert out(clone, "log", "-1", "--format=%s", tip) == (
        "kistore: take 1 attestation line(s) from the notes of fork, not its notes history "
        "(fork is not the canonical remote); keep 1 attestation line(s) the notes of fork "
        "removed (notes only grow, KI408); leave out 1 attestation line(s) the notes of fork "
        "held that may not enter (KI409 notes-line-invalid)")
    assert kistore(clone, "verify").exit_code == 0
    assert kistore(clone, "notes", "push", "origin").exit_code == 0


def padded(line: str, size: int) -> str:
    """``line`` with its signature's keyid padded to ``size`` bytes: outside what is signed,
    so the bundle still verifies."""
    bundle = json.loads(line)
    signature = bundle["dsseEnvelope"]["signatures"][0]
    signature["keyid"] = "k" * (size - len(line) + len(signature.get("keyid", "")))
    return canonical.dumps(bundle).decode()


def test_a_fetch_leaves_out_a_line_past_the_manifest_bytes_limit(index, tmp_path):
    # r90b F11's last paragraph: a 20 MB line was "1 attestation(s) gained"; a line padded
    # outside its signature still verifies, so only a size limit keeps it out
    line = out(Path(index.root), "notes", "--ref", "kistore", "show",
               fast_blob(Path(index.root)))
    big = padded(line, (1 << 20) + 100)
    assert len(big) == (1 << 20) + 100
    fork = fork_adding(index, tmp_path, big)
    clone, line = fetched_clone(index, tmp_path, fork)

    fetched = kistore(clone, "notes", "fetch", "fork")
    assert fetched.exit_code == 0, fetched.output
    assert fetched.stdout == "0 attestation(s) gained from fork\n"
    assert fetched.stderr == left_out_warning(
        clone, "fork's notes held", "a note line of 1,048,676 bytes, more than the limit of "
        "1,048,576 bytes (manifest-bytes) an attestation bundle may hold (one `kistore "
        "attest` writes is ~1 KB); not read further")
    assert withdrawal_line(clone) == line
    # the push gate holds a line to the same limit (a server's pre-receive: KI409)
    from kistore.check.gate import note_line_problems

    store = Store(clone)
    blob = fast_blob(clone)
    assert note_line_problems(store.repo, None, blob, big.encode())[1] == [
        "a note line of 1,048,676 bytes, more than the limit of 1,048,576 bytes "
        "(manifest-bytes) an attestation bundle may hold (one `kistore attest` writes is "
        "~1 KB); not read further"]
    assert note_line_problems(store.repo, None, blob, padded(line, 4000).encode())[1] == []


def test_the_note_line_limit_is_the_store_s_manifest_bytes(index, tmp_path):
    line = out(Path(index.root), "notes", "--ref", "kistore", "show",
               fast_blob(Path(index.root)))
    fork = fork_adding(index, tmp_path, padded(line, 3000))  # verifies: within 1 MiB
    clone, line = fetched_clone(index, tmp_path, fork)
    (clone / "kistore.toml").write_text("[limits]\nmanifest-bytes = 2000\n")

    fetched = kistore(clone, "notes", "fetch", "fork")
    assert fetched.exit_code == 0, fetched.output
    assert fetched.stderr == left_out_warning(
        clone, "fork's notes held", "a note line of 3,000 bytes, more than the limit of 2,000 "
        "bytes (manifest-bytes) an attestation bundle may hold (one `kistore attest` writes "
        "is ~1 KB); not read further")
    other = clone_of(index, tmp_path / "other")  # the default limit: it verifies, it enters
    git(other, "remote", "add", "fork", str(fork))
    assert kistore(other, "notes", "fetch", "fork").stdout == \
        "2 attestation(s) gained from fork\n"
