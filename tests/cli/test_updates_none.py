"""``check --updates -`` of no line says so (reviewer break96 M3).

git rejects a push that is not a fast-forward itself, before its hooks run, and hands the
pre-push hook no line for that ref: the hook printed a bare "ok: 0 ref update(s)" above
git's "! [rejected]", and the only advice on screen was git's `git pull`, which does nothing
for notes. Now a note follows, naming `kistore notes push REMOTE` for the notes ref.
"""

from __future__ import annotations

from click.testing import CliRunner

from kistore.cli import main


def test_no_update_is_said_with_the_command_that_pushes_notes(published):
    done = CliRunner().invoke(main, ["--store", str(published), "check", "--updates", "-"],
                              input="")
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[-2:] == [
        "ok: 0 ref update(s): 0 errors, 0 warnings, 0 info",
        "note: git handed no ref update to check; git rejects a push that is not a "
        "fast-forward itself, before its hooks run: for refs/notes/kistore, `kistore notes "
        "push REMOTE` merges the remote's notes and pushes"], done.output


def _push_nothing(tmp_path, published, monkeypatch, *, notes_here: bool):
    """A real `git push` with nothing to send, through hooks/pre-push (fresh99b LOW)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from ..conftest import ROOT, git

    monkeypatch.setenv("KISTORE", str(Path(sys.executable).with_name("kistore")))
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(bare))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    git(clone, "config", "core.hooksPath", str(ROOT / "hooks"))
    if notes_here:  # a notes commit the server lacks: what the note is for
        git(clone, "notes", "--ref", "kistore", "add", "-m", "not pushed", "HEAD")
    done = subprocess.run(["git", "push", "origin", "main"], cwd=clone, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert "Everything up-to-date" in done.stderr
    shutil.rmtree(bare)
    return done.stdout + done.stderr


def test_a_push_with_nothing_to_send_says_no_notes_note(tmp_path, published, monkeypatch):
    # low00 (fresh99b LOW): the note about non-fast-forward notes pushes was said in a push
    # of nothing, where this clone's notes are the server's (here: neither has any)
    said = _push_nothing(tmp_path, published, monkeypatch, notes_here=False)
    assert "ok: 0 ref update(s): 0 errors, 0 warnings, 0 info" in said, said
    assert "git handed no ref update" not in said, said


def test_a_push_with_nothing_to_send_says_the_note_when_notes_differ(tmp_path, published,
                                                                      monkeypatch):
    said = _push_nothing(tmp_path, published, monkeypatch, notes_here=True)
    assert "note: git handed no ref update to check;" in said, said
    assert "`kistore notes push origin` merges" in said, said  # its name (fresh00b LOW)


def test_the_note_names_a_remote_as_a_shell_takes_it(published):
    # mend02: built with the name, not by replacing the word REMOTE in a fixed text; a
    # name holding that word, and a space, is quoted whole; notes here, and no such remote
    # to ask (whether they differ is not known): the note is said
    from ..conftest import git

    git(published, "notes", "--ref", "kistore", "add", "-m", "not pushed", "HEAD")
    done = CliRunner().invoke(main, ["--store", str(published), "check", "--updates", "-",
                                     "--remote", "REMOTE two"], input="")
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[-1] == (
        "note: git handed no ref update to check; git rejects a push that is not a "
        "fast-forward itself, before its hooks run: for refs/notes/kistore, `kistore notes "
        "push 'REMOTE two'` merges the remote's notes and pushes"), done.output
