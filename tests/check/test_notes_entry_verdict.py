"""A new note line is judged at the entry time readers give it (fresh07 M7, KI439).

The server judged a new note line's key at its own clock (KI411), readers at the line's
notes commit's date, which KI437 lets be ten minutes behind the server's clock or one ahead.
A maintainer whose clock was eight minutes slow withdrew just after the key's trust landed:
the server accepted a withdrawal (valid at its clock) that every reader dates before the
key's start, a community attestation for good, with no word. Judged in-process with the
push's clock given (nothing here depends on the machine's speed).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess

import pytest

from kistore.check.gate import check_updates
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git
from ..prs import Remote
from .test_history_names import add_group
from .test_history_trust_effects import MAINTAINER_ID, trust_maintainer
from .test_trust_entry_backdated import _commit, _date

# every finding made here keeps one meaning per extra key (`entered`: a commit id)
pytestmark = pytest.mark.usefixtures("extra_keys_kept")


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _push_judged(remote, run: Digest, dated: dt.datetime, clock: dt.datetime) -> list:
    """A withdrawal of ``run`` in a notes commit dated ``dated``, judged as pushed at ``clock``."""
    had = subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/notes/kistore"],
                         cwd=remote.clone, capture_output=True, text=True).stdout.strip()
    old = had or "0" * 40  # the published store has no notes
    line = bundle(MAINTAINER_KEY, "withdrawal", subject=run).decode()
    blob = git(remote.clone, "rev-parse", f"HEAD:{layout.object_path(run)}").strip()
    subprocess.run(["git", "notes", "--ref", "refs/notes/kistore", "append", "-m", line, blob],
                   cwd=remote.clone, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": _date(dated)})
    new = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    return [f for f in check_updates(Store(remote.clone), [(old, new, "refs/notes/kistore")],
                                     protected={"refs/heads/main"}, now=clock)
            if f.rule.id in ("KI439", "KI411", "KI437")]


def _trusted(remote, kit, *trust_args: str) -> tuple[dict[str, str], dt.datetime]:
    """A group and the maintainer key's trust on main, the trust commit dated an hour ahead."""
    start = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=1)
    digests = add_group(remote, kit, {"a": 10, "b": 20})
    _commit(remote, "group", _date(start - dt.timedelta(minutes=30)))
    trust_maintainer(remote, *trust_args)(remote.clone)
    _commit(remote, "trust the maintainer key", _date(start))
    return digests, start


def test_a_withdrawal_dated_by_a_slow_clock_before_the_keys_start_is_refused(remote, kit):
    digests, start = _trusted(remote, kit)
    run = Digest.from_str(digests["a"])
    blob = git(remote.clone, "rev-parse", f"HEAD:{layout.object_path(run)}").strip()
    clock = start + dt.timedelta(seconds=4)
    slow = clock - dt.timedelta(minutes=8)  # within KI437's ten minutes behind
    found = _push_judged(remote, run, slow, clock)
    # on BASE 440899c7: [] (KI411 judged it at the clock: a trusted maintainer's, valid)
    assert [(f.rule.id, f.file, f.extra["enteredAt"], f.extra["effect"], f.extra["now"])
            for f in found] == [("KI439", f"refs/notes/kistore:{blob}", _date(slow),
                                 "community", "withdraws")]
    assert found[0].message == (
        f"the withdrawal by {MAINTAINER_ID} on {run} enters the repository at its notes "
        f"commit's date, {_date(slow)}, 8 minutes before this push's clock ({_date(clock)}), "
        f"and every reader judges it there: community (key {MAINTAINER_ID} is trusted from "
        f"{_date(start)}; the attestation entered the repository at {_date(slow)}, before: "
        "a community attestation), not withdraws as at this push's clock")
    # the server (no pushing clone) cannot tell a slow clock from a line signed before its
    # key's start: both are said, and no longer "wait that minute, then push" (fresh12 F7:
    # that push, made again, made the line count)
    assert "keyStart" not in found[0].extra
    assert found[0].hint == (
        "set this machine's clock right (NTP: `timedatectl set-ntp true`) and push the notes "
        "with `kistore notes push REMOTE`: it makes notes commits dated more than a minute "
        "off the clock again, dated at the push, so the line enters then; with the pushing "
        "machine's clock right, the line was signed on the other side of its key's start, and "
        "`kistore notes push REMOTE` refuses it, naming the ways out (`--enter-now`, "
        "attesting again, or leaving the line out)")


def test_a_line_dated_ahead_past_a_keys_valid_from_is_refused(remote, kit):
    # the other way: a key whose validFrom is half a minute after the push, and a line
    # dated fifty seconds ahead (KI437 lets it in: a minute since 2026-12-07, fresh08;
    # this test dated it four minutes ahead until then): community at the clock, a
    # withdrawal for readers
    start = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=1)
    digests, _ = _trusted(remote, kit, "--valid-from",
                          _date(start + dt.timedelta(seconds=30)))
    clock = start + dt.timedelta(seconds=4)
    found = _push_judged(remote, Digest.from_str(digests["a"]),
                         clock + dt.timedelta(seconds=50), clock)
    assert [(f.rule.id, f.extra["effect"], f.extra["now"]) for f in found] == [
        ("KI439", "withdraws", "community")]
    assert ", 50 seconds after this push's clock (" in found[0].message


def test_a_line_dated_at_the_push_is_judged_alike(remote, kit):
    digests, start = _trusted(remote, kit)
    clock = start + dt.timedelta(seconds=4)
    assert _push_judged(remote, Digest.from_str(digests["a"]),
                        clock - dt.timedelta(seconds=1), clock) == []


def test_the_distance_is_said_to_the_second(remote, kit):
    # msg05: KI439 said "8 minutes before this push's clock" of a line 8 minutes 30 seconds
    # behind it (whole units), where KI437 and KI438 say their distances to the second
    digests, start = _trusted(remote, kit)
    run = Digest.from_str(digests["a"])
    clock = start + dt.timedelta(seconds=4)
    slow = clock - dt.timedelta(minutes=8, seconds=30)  # within KI437's ten minutes behind
    found = _push_judged(remote, run, slow, clock)
    assert [f.rule.id for f in found] == ["KI439"]
    # on BASE b61742cb: "..., 8 minutes before this push's clock (...)"
    assert found[0].message == (
        f"the withdrawal by {MAINTAINER_ID} on {run} enters the repository at its notes "
        f"commit's date, {_date(slow)}, 8 minutes 30 seconds before this push's clock "
        f"({_date(clock)}), and every reader judges it there: community (key "
        f"{MAINTAINER_ID} is trusted from {_date(start)}; the attestation entered the "
        f"repository at {_date(slow)}, before: a community attestation), not withdraws as "
        "at this push's clock")
