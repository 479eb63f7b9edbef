"""A bad notes line, from the advice to the way out (reviewer fresh95 F3).

A garbage line added with ``git notes append`` (which writes a blank line before it): verify
named "line 2" (counting non-blank lines) while the editor ``git notes edit`` opens shows it
at line 3, and ``kistore attestations`` said ``:1:1``. Once the line was deleted at the tip,
every ``notes push`` was still refused (KI409: the line is in the history it brings) with
the same "edit OBJ and delete it" advice, already done; a path off the note paths added and
removed again (KI424) was advised with ``OBJ: junk.txt``. Now the line numbers are the
editor's, and a refusal for history alone names ``kistore notes rebase REMOTE``, which
rebuilds the notes on the remote's tip with the lines this clone added since.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess

import pytest

from kistore.attest import notes
from kistore.attest.notes import editor_line
from kistore.core import layout
from kistore.store import Store

from ..attest.test_attestation_evidence import RUN, STRANGER, bundle
from ..check.test_notes_gate_history import _tree_with, notes_git, run_blob
from ..conftest import git
from ..prs import KISTORE, Remote, _env

GARBAGE = b"this is garbage"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    """The server holds one community reproduction; the clone fetched it and made a note."""
    remote = Remote(published, tmp_path)
    notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "reproduction"))
    assert remote.push("refs/notes/kistore").accepted
    kistore(remote, "notes", "fetch", "origin")
    notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "note"))  # this clone's own
    return remote


def kistore(remote: Remote, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """The CLI in the clone, its pushes judged by the server's hook (which runs $KISTORE)."""
    done = subprocess.run([KISTORE, *args], cwd=remote.clone, capture_output=True, text=True,
                          env={**_env(), "KISTORE": KISTORE})
    assert not check or done.returncode == 0, done.stdout + done.stderr
    return done


def note_text(remote: Remote, blob: str) -> bytes:
    return subprocess.run(["git", "notes", "--ref", "kistore", "show", blob],
                          cwd=remote.clone, check=True, capture_output=True).stdout


def server_history(remote: Remote) -> str:
    """Every note blob's bytes the server's notes history holds."""
    return git(remote.bare, "log", "-p", "refs/notes/kistore")


@pytest.mark.parametrize(("data", "line"), [
    (b"a\n\nb\n", 3), (b"a\nb", 2), (b"\n\n a\nb\n", 4), (b"a\r\nb\n", 2)])
def test_a_line_is_numbered_as_the_editor_shows_it(data, line):
    assert editor_line(data, b"b") == line
    assert editor_line(data, b"c") is None


def test_a_garbage_line_is_named_at_the_editor_s_line_and_the_way_out_rebuilds(remote):
    blob = run_blob(remote.clone)
    notes_git(remote.clone, "append", blob, data=GARBAGE)
    text = note_text(remote, blob)
    assert text.split(b"\n")[2:4] == [b"", GARBAGE]  # git's blank line: the editor's line 3
    number = text.split(b"\n").index(GARBAGE) + 1
    assert number == 4

    verified = kistore(remote, "verify", check=False)
    assert verified.returncode == 1
    assert (f"refs/notes/kistore:{blob}:4:1: error KI301 attestation-invalid: line 4 of the "
            f"note on {layout.object_path(RUN)} is not an attestation bundle: at column 1: "
            ) in verified.stdout, verified.stdout
    assert (f"delete line 4 in the editor `git notes --ref=refs/notes/kistore edit {blob}` "
            "opens") in verified.stdout.replace("\n  ", " ")
    listed = kistore(remote, "attestations", RUN.hex[:12], check=False)
    assert (f"? ? INVALID invalid, from note: refs/notes/kistore:{blob}:4: line 4 of the note "
            f"on {layout.object_path(RUN)} is not an attestation bundle: at column 1: "
            "unexpected character 't'") in listed.stdout, listed.stdout
    assert ":1:1" not in listed.stdout

    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    # fresh98 MED 2: the line entered in a notes commit origin lacks, so the rebuild is
    # said first (the edit, said here until then, was refused again: below)
    assert "To leave a line out" not in refused.stderr
    assert ("which origin lacks and this push brings, so deleting them at the tip (an edit "
            "of the note) leaves them in the history the push sends, refused again: `kistore "
            "notes rebase origin` rebuilds") in refused.stderr, refused.stderr
    # the old advice, followed: the line deleted in the editor (the note written without it)
    notes_git(remote.clone, "add", "-f", blob, data=text.replace(b"\n\n" + GARBAGE, b""))
    assert kistore(remote, "verify", check=False).returncode == 0

    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert "error KI409 notes-line-invalid: notes commit" in refused.stderr
    # break95 L2: the finding named `kistore notes rebase REMOTE`, literally
    assert ("push a notes history without that commit (`kistore notes rebase origin` rebuilds "
            "a repository's notes on origin's without it; `kistore notes fetch` of a fork takes "
            "its lines, not its history)") in refused.stderr, refused.stderr
    assert "REMOTE" not in refused.stderr
    assert "To leave a line out" not in refused.stderr  # done already: no edit removes it
    assert ("the refused line or path is in the history of refs/notes/kistore only (its tip no "
            "longer holds it), so no edit takes it out: `kistore notes rebase origin` "
            "rebuilds refs/notes/kistore on origin's notes tip and adds back each line "
            "this repository holds that origin's notes lack (signatures are over the bundles: "
            "they stay valid), then `kistore notes push origin` again (this holds while the "
            "notes commits origin lacks are dated within a minute of this machine's clock: a "
            "push sends their history, as it is or, from the first dated ahead of the clock, "
            "made again one by one dated at the push with the same lines; a `kistore notes "
            "push origin` more than a minute after the earliest of them is dated sends them "
            "made again as one notes commit dated then, holding the tip's lines only (KI437), "
            "so an edit at the tip is then enough and a line taken back is not sent); nothing "
            "was pushed, your notes are unchanged"
            ) in refused.stderr, refused.stderr
    assert remote.push("refs/notes/kistore").accepted is False  # the server says the same

    old = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    served = git(remote.bare, "rev-parse", "refs/notes/kistore").strip()
    rebased = kistore(remote, "notes", "rebase", "origin")
    assert rebased.stdout == (
        f"rebuilt refs/notes/kistore on origin's notes ({served[:12]}) with 1 attestation "
        f"line(s) this repository holds that origin's notes lack, on refs/notes/kistore:{blob} "
        f"(on {RUN}); the old tip {old[:12]} stays in git: `git update-ref "
        f"refs/notes/kistore {old}` puts it back; `kistore notes push origin` sends them\n")
    tip = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    assert git(remote.clone, "rev-parse", f"{tip}^").strip() == served
    assert note_text(remote, blob) == text.replace(b"\n\n" + GARBAGE, b"")  # the same lines

    pushed = kistore(remote, "notes", "push", "origin")
    assert pushed.returncode == 0, pushed.stderr
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == tip
    assert GARBAGE.decode() not in server_history(remote)
    again = kistore(remote, "notes", "rebase", "origin")
    assert again.stdout == ("refs/notes/kistore is origin's notes tip: nothing to "
                            "rebuild\n")


def test_a_path_off_the_note_paths_in_history_only_is_advised_the_rebuild(remote):
    base = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    junk_in = git(remote.clone, "commit-tree", _tree_with(remote.clone, base, "junk.txt",
                                                          b"junk\n"), "-p", base, "-m",
                  "junk").strip()
    junk_out = git(remote.clone, "commit-tree", f"{base}^{{tree}}", "-p", junk_in,
                   "-m", "unjunk").strip()
    git(remote.clone, "update-ref", "refs/notes/kistore", junk_out)

    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert "error KI424 notes-path-not-canonical: notes commit" in refused.stderr
    assert "junk.txt)" not in refused.stderr and "To leave a line out" not in refused.stderr
    assert "`kistore notes rebase origin` rebuilds refs/notes/kistore" in refused.stderr
    assert "REMOTE" not in refused.stderr  # break95 L2: the finding names origin too
    hooked = subprocess.run(  # the pre-push hook's call: the remote is git's $1
        [KISTORE, "check", "--updates", "-", "--remote", "my fork"], cwd=remote.clone,
        input=f"{base} {junk_out} refs/notes/kistore\n", capture_output=True, text=True,
        env=_env())
    assert hooked.returncode == 1
    assert ("without that commit (`kistore notes rebase 'my fork'` rebuilds a repository's notes "
            "on my fork's without it;") in hooked.stdout, hooked.stdout

    rebased = kistore(remote, "notes", "rebase", "origin", "--json")
    assert json.loads(rebased.stdout)["added"] == 1
    assert kistore(remote, "notes", "push", "origin").returncode == 0
    assert "junk" not in git(remote.bare, "log", "--stat", "refs/notes/kistore")


def test_a_line_that_does_not_verify_is_not_added_back(remote):
    blob = run_blob(remote.clone)
    notes_git(remote.clone, "append", blob, data=GARBAGE)  # kept at the tip, this time
    rebased = kistore(remote, "notes", "rebase", "origin")
    assert "with 1 attestation line(s)" in rebased.stdout
    assert rebased.stderr.startswith(
        f"warning: 1 attestation line(s) this repository's notes held on refs/notes/kistore:{blob}"
        f" (on {RUN}) left out: "), rebased.stderr
    assert GARBAGE not in note_text(remote, blob)
    assert kistore(remote, "notes", "push", "origin").returncode == 0


def test_the_rebuild_is_on_the_remote_s_notes_as_they_are_now(remote, tmp_path):
    # fixg96 4: rebase rebuilt on the notes as last fetched; it fetches first now, as
    # notes push does
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote.bare), str(other))
    later = bundle(STRANGER, "dispute")
    subprocess.run([KISTORE, "notes", "fetch", "origin"], cwd=other, check=True,
                   capture_output=True)
    notes.attach(Store(other), RUN, later)
    pushed = subprocess.run([KISTORE, "notes", "push", "origin"], cwd=other,
                            capture_output=True, text=True, env={**_env(), "KISTORE": KISTORE})
    assert pushed.returncode == 0, pushed.stderr
    served = git(remote.bare, "rev-parse", "refs/notes/kistore").strip()
    assert git(remote.clone, "rev-parse", "refs/notes/remotes/origin/kistore").strip() != served

    old = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    rebased = json.loads(kistore(remote, "notes", "rebase", "origin", "--json").stdout)
    assert (rebased["base"], rebased["old"], rebased["added"], rebased["gained"]) == \
        (served, old, 1, 1)  # the other clone's line fetched, ours added back on it
    tip = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    assert git(remote.clone, "rev-parse", f"{tip}^").strip() == served
    held = note_text(remote, run_blob(remote.clone))
    assert later in held and bundle(STRANGER, "note") in held
    assert kistore(remote, "notes", "push", "origin").returncode == 0


def test_notes_rebuilt_for_a_remote_holding_none_start_from_an_empty_root(published,
                                                                          tmp_path):
    # fixg96 4: a remote with no notes was refused, "no notes tip to rebuild on"
    remote = Remote(published, tmp_path)
    blob = run_blob(remote.clone)
    notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "note"))
    text = note_text(remote, blob)
    notes_git(remote.clone, "append", blob, data=GARBAGE)  # then deleted: history only
    notes_git(remote.clone, "add", "-f", blob, data=text)
    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1 and "`kistore notes rebase origin`" in refused.stderr

    old = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    rebased = kistore(remote, "notes", "rebase", "origin")
    assert rebased.stdout == (
        "rebuilt refs/notes/kistore from an empty root (origin holds no notes) with 1 "
        f"attestation line(s) this repository holds, on refs/notes/kistore:{blob} (on {RUN}); "
        f"the old tip {old[:12]} stays in git: `git update-ref refs/notes/kistore {old}` "
        "puts it back; `kistore notes push origin` sends them\n")
    tip = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    assert git(remote.clone, "rev-list", "--count", tip).strip() == "1"  # no parent
    assert note_text(remote, blob) == text
    assert kistore(remote, "notes", "push", "origin").returncode == 0
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == tip
    assert GARBAGE.decode() not in server_history(remote)


def test_neither_side_holding_notes_rebuilds_nothing(published, tmp_path):
    remote = Remote(published, tmp_path)
    done = kistore(remote, "notes", "rebase", "origin")
    assert done.stdout == "origin holds no notes, nor does this repository: nothing to rebuild\n"
    assert git(remote.clone, "for-each-ref", "refs/notes/kistore") == ""


def printed_rebase(refused: subprocess.CompletedProcess[str]) -> list[str]:
    """The `kistore notes rebase ...` the refusal's last line names, as a command to run."""
    (command,) = set(re.findall(r"`kistore (notes rebase [^`]+)`", refused.stderr.splitlines()[-1]))
    return shlex.split(command)


def test_an_empty_root_no_line_of_ours_would_stay_in_leaves_no_notes(published, tmp_path):
    # notes01's leftover: refused, "no line would stay", while a refused push named it
    remote = Remote(published, tmp_path)
    blob = run_blob(remote.clone)
    notes_git(remote.clone, "add", blob, data=GARBAGE)
    old = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    done = kistore(remote, "notes", "rebase", "origin")
    assert done.stdout == (
        "origin holds no notes, and no line of refs/notes/kistore would stay (each is left "
        "out: they do not verify (KI409 notes-line-invalid)): deleted refs/notes/kistore, "
        "as origin holds none; "
        "this repository's notes are origin's, nothing is left to push; the old tip "
        f"{old[:12]} stays in git until `git gc` prunes it: `git update-ref "
        f"refs/notes/kistore {old}` puts it back\n")
    assert done.stderr.startswith(
        f"warning: 1 attestation line(s) this repository's notes held on refs/notes/kistore:"
        f"{blob} (on {RUN}) left out: "), done.stderr
    assert git(remote.clone, "for-each-ref", "refs/notes/") == ""
    pushed = kistore(remote, "notes", "push", "origin")
    assert pushed.stdout == ("nothing to push: neither this repository nor origin holds notes "
                             "(refs/notes/kistore)\n")
    assert git(remote.bare, "for-each-ref", "refs/notes/") == ""
    git(remote.clone, "update-ref", "refs/notes/kistore", old)  # as printed: it is back
    assert GARBAGE in note_text(remote, blob)


def test_a_clone_whose_only_line_is_taken_back_is_told_nothing_is_left_to_push(published,
                                                                                tmp_path):
    # notes01's leftover: origin holds no notes, the clone's one line added and taken
    # back: the push named `kistore notes rebase origin`, which refused ("no line would stay")
    remote = Remote(published, tmp_path)
    blob = run_blob(remote.clone)
    notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "note"))
    notes_git(remote.clone, "remove", blob)
    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert "error KI408 notes-line-removed: notes commit " in refused.stderr, refused.stderr
    old = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    done = kistore(remote, *printed_rebase(refused))  # run as printed
    assert done.stdout == (
        "origin holds no notes, and no line of refs/notes/kistore would stay (its tip holds "
        "none): deleted refs/notes/kistore, as origin holds none; this repository's notes are "
        f"origin's, nothing is left to push; the old tip {old[:12]} stays in git until `git "
        f"gc` prunes it: `git update-ref refs/notes/kistore {old}` puts it back\n")
    assert done.stderr == ""
    pushed = kistore(remote, "notes", "push", "origin")
    assert pushed.stdout == ("nothing to push: neither this repository nor origin holds notes "
                             "(refs/notes/kistore)\n")
    assert git(remote.bare, "for-each-ref", "refs/notes/") == ""
    unpushed = kistore(remote, "check", "--unpushed", "origin")  # the pre-push hook's view
    assert unpushed.returncode == 0


def test_a_clone_whose_own_line_is_taken_back_is_reset_to_the_remote_s_notes(remote):
    # origin holds notes: the rebuild wrote nothing and said "rebuilt ... with 0
    # attestation line(s) ...; `kistore notes push origin` sends them"
    blob = run_blob(remote.clone)
    served = git(remote.bare, "rev-parse", "refs/notes/kistore").strip()
    notes_git(remote.clone, "add", "-f", blob,
              data=git(remote.bare, "notes", "--ref", "kistore", "show", blob).encode())
    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert "error KI408 notes-line-removed: notes commit " in refused.stderr, refused.stderr
    old = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    done = kistore(remote, *printed_rebase(refused))
    assert done.stdout == (
        f"reset refs/notes/kistore to origin's notes tip ({served[:12]}): origin's notes hold "
        "every line of this repository's; this repository's notes are origin's, nothing is "
        f"left to push; the old tip {old[:12]} stays in git: `git update-ref "
        f"refs/notes/kistore {old}` puts it back\n")
    assert git(remote.clone, "rev-parse", "refs/notes/kistore").strip() == served
    assert kistore(remote, "notes", "push", "origin").returncode == 0
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == served
    assert kistore(remote, "check", "--unpushed", "origin").returncode == 0


def test_a_note_at_both_its_paths_at_the_tip_is_advised_the_rebuild_not_a_removal(remote):
    """fresh96 F9: this clone's note (two valid lines) put at its fan-out path as well, same
    blob. The advice was "`git notes remove OBJ` when it is the note's only line", which
    drops both valid attestations; done as now said, the server holds both, at one path."""
    blob = run_blob(remote.clone)
    tip = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    note = git(remote.clone, "rev-parse", f"{tip}:{blob}").strip()
    lines = note_text(remote, blob)
    assert len(lines.splitlines()) == 2  # origin's reproduction and this clone's note
    fan = subprocess.run(["git", "mktree"], cwd=remote.clone, check=True, capture_output=True,
                         input=f"100644 blob {note}\t{blob[2:]}\n".encode()).stdout.decode()
    listing = (git(remote.clone, "ls-tree", f"{tip}^{{tree}}")
               + f"040000 tree {fan.strip()}\t{blob[:2]}\n")
    tree = subprocess.run(["git", "mktree"], cwd=remote.clone, input=listing.encode(),
                          check=True, capture_output=True).stdout.decode().strip()
    doubled = git(remote.clone, "commit-tree", tree, "-p", tip, "-m", "doubled").strip()
    git(remote.clone, "update-ref", "refs/notes/kistore", doubled)

    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert (f"refs/notes/kistore:{blob}: error KI424 notes-path-not-canonical: the notes "
            f"tree annotates {blob} at 2 paths") in refused.stderr, refused.stderr
    assert "git notes --ref kistore remove" not in refused.stderr
    assert "To leave a line out" not in refused.stderr
    assert (f"the tip of refs/notes/kistore holds notes at paths git and kistore read apart "
            f"({blob} at {blob[:2]}/{blob[2:]} and {blob}): no line there need be wrong, and "
            "`git notes remove` would drop every line of the note, valid attestations too: "
            "`kistore notes rebase origin` rebuilds refs/notes/kistore on origin's notes tip "
            "with one path per object and adds back each line this repository holds that origin's "
            "notes lack (signatures are over the bundles: they stay valid), then `kistore "
            "notes push origin` again; nothing was pushed, your notes are unchanged"
            ) in refused.stderr, refused.stderr
    assert ("rebase REMOTE` rewrites them on REMOTE's with one path per object and this "
            "repository's lines") in refused.stderr  # KI424's own fix says it too

    # done as said: a clean state, both valid lines kept, one path on both sides
    assert json.loads(kistore(remote, "notes", "rebase", "origin", "--json").stdout)[
        "added"] == 1  # this clone's own note (origin holds the reproduction)
    assert kistore(remote, "verify").returncode == 0
    assert kistore(remote, "notes", "push", "origin").returncode == 0
    for repo in (remote.clone, remote.bare):
        paths = git(repo, "ls-tree", "-r", "--name-only", "refs/notes/kistore").split()
        assert paths == [blob], paths
        served = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob], cwd=repo,
                                check=True, capture_output=True).stdout
        assert sorted(served.splitlines()) == sorted(lines.splitlines())
    listed = kistore(remote, "attestations", RUN.hex[:12]).stdout
    assert "INVALID" not in listed and listed.count("valid community, from note") == 2, listed


def test_verify_s_fix_of_a_tampered_line_of_origin_s_notes_runs_as_printed(remote):
    # fresh00 M3: verify's KI301 fix said first "delete line 1 in the editor"; done, the
    # push was refused (KI409: the line is in the history it brings; KI408: origin's good
    # line deleted). The rebuild on the remote's notes, said first now, is what works.
    import re

    blob = run_blob(remote.clone)
    served = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob],
                            cwd=remote.bare, check=True, capture_output=True).stdout
    text = note_text(remote, blob)
    [theirs] = served.splitlines()
    assert theirs in text.splitlines()
    notes_git(remote.clone, "add", "-f", blob, data=text.replace(theirs, GARBAGE))
    verified = kistore(remote, "verify", check=False)
    assert verified.returncode == 1
    [fix] = [line for line in verified.stdout.splitlines() if line.startswith("fix KI301")]
    commands = re.findall(r"`([^`]+)`", fix)
    assert commands[:2] == ["kistore notes rebase REMOTE", "kistore notes push REMOTE"], fix
    for command in commands[:2]:  # as printed, REMOTE the one the notes are pushed to
        kistore(remote, *command.replace("REMOTE", "origin").split()[1:])
    assert kistore(remote, "verify").returncode == 0
    now = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob],
                         cwd=remote.bare, check=True, capture_output=True).stdout
    assert theirs in now.splitlines() and GARBAGE not in now
    assert note_text(remote, blob) == text  # origin's line back, this clone's own kept
