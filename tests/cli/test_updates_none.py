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
