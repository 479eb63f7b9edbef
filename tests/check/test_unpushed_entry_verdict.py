"""``check --unpushed`` says KI439 of unpushed notes as KI440, a warning (fresh07 M8, ki437b).

A maintainer attests offline, before the key's trust lands; the trust lands; the note is
still unpushed. Its notes commit is dated before the key's start, so judged at that date it
is a community attestation, at the clock a withdrawal: KI439 for a push of the notes made
now. ``check --unpushed origin`` (the pre-commit framework's push hook, told nothing of
what is pushed) judged ``refs/notes/kistore`` so and refused a push of branches, which does
not send the notes; ``kistore notes push origin`` dates them at its push, where both
verdicts agree. So there it is KI440, a warning naming that command (ki437b's fourth
commit, which had no test). Real hooks, a bare server with ``pre-receive``; the dates are
minutes apart, well inside KI437's ten minutes behind, whatever the machine's speed.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess

import pytest

from kistore.core import layout
from kistore.core.digest import Digest

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git, next_second
from ..prs import KISTORE, Remote
from .test_history_names import add_group
from .test_history_trust_effects import MAINTAINER_ID, trust_maintainer
from .test_trust_entry_backdated import _commit, _date, _push_main


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def test_a_line_judged_otherwise_at_its_date_is_a_warning_of_check_unpushed(remote, kit):
    # the key's start: its trust commit's date, held up to its ancestors' (the published
    # store's, made just now); the note is dated five minutes before it
    start = dt.datetime.fromtimestamp(int(git(remote.clone, "log", "-1", "--format=%ct")),
                                      dt.UTC)
    digests = add_group(remote, kit, {"a": 10, "b": 20})
    _commit(remote, "group", _date(start))
    trust_maintainer(remote)(remote.clone)
    _commit(remote, "trust the maintainer key", _date(start))
    assert _push_main(remote)[0] == 0
    run = Digest.from_str(digests["a"])
    blob = git(remote.clone, "rev-parse", f"HEAD:{layout.object_path(run)}").strip()
    offline = start - dt.timedelta(minutes=5)  # attested before the trust landed
    subprocess.run(["git", "notes", "--ref", "refs/notes/kistore", "append", "-m",
                    bundle(MAINTAINER_KEY, "withdrawal", subject=run).decode(), blob],
                   cwd=remote.clone, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": _date(offline)})
    next_second(remote.clone)  # the check's clock past the start's second: a withdrawal there
    said = subprocess.run([KISTORE, "check", "--unpushed", "origin"], cwd=remote.clone,
                          capture_output=True, text=True, env={**os.environ, "KISTORE": KISTORE})
    # with KI439 left out of _unpushed_clock.as_warnings: rc 1, "error KI439 ..."
    assert said.returncode == 0, said.stdout + said.stderr
    lines = [line.strip() for line in said.stdout.splitlines() if " KI4" in line
             and not line.lstrip().startswith("fix ")]
    assert len(lines) == 1, said.stdout
    assert lines[0].startswith(
        f"refs/notes/kistore:{blob}: warning KI440 unpushed-notes-off-clock: the withdrawal by "
        f"{MAINTAINER_ID} on {run} enters the repository at its notes commit's date, "
        f"{_date(offline)}, ")
    assert lines[0].endswith(
        f"every reader judges it there: community (key {MAINTAINER_ID} is trusted from "
        f"{_date(start)}; the attestation entered the repository at {_date(offline)}, before: "
        "a community attestation), not withdraws as at this push's clock (a warning here: a "
        "push of branches does not send refs/notes/kistore, and `kistore notes push origin` "
        "dates them at its push)"), lines[0]
    assert ("fix KI440 (1 finding): push the notes with `kistore notes push origin`: it makes "
            "them again dated at its push, with the same lines") in said.stdout
