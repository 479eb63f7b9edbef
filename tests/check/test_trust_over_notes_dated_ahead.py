"""A trust push over a note the server held, dated ahead of the push (fresh07 H1, KI434).

KI437 lets a pushed notes commit be dated up to five minutes after the server's clock, and a
note line enters at its notes commit's date. A withdrawal signed by a key nobody trusted,
pushed in a notes commit dated four minutes ahead, was accepted (community), and the push
of the key's trust a minute later was accepted too: the line's date was after the trust
commit's, so KI434 saw nothing, and the withdrawal counted though the server held it before
the key was trusted. The server knows better: a line it holds before a push entered before
that push, so KI434 judges it no later than the push's clock. Judged in-process with the
clock given (no test here depends on the machine's speed).
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


def _note(remote, run: Digest, when: dt.datetime) -> None:
    """Append a withdrawal of ``run`` by the maintainer key as a note dated ``when``."""
    line = bundle(MAINTAINER_KEY, "withdrawal", subject=run).decode()
    blob = git(remote.clone, "rev-parse", f"HEAD:{layout.object_path(run)}").strip()
    subprocess.run(["git", "notes", "--ref", "refs/notes/kistore", "append", "-m", line, blob],
                   cwd=remote.clone, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": _date(when)})


def _ki434(remote, old: str, new: str, clock: dt.datetime) -> list:
    return [f for f in check_updates(Store(remote.clone), [(old, new, "refs/heads/main")],
                                     protected={"refs/heads/main"}, now=clock)
            if f.rule.id == "KI434"]


def _setup(remote, kit, now: dt.datetime, *trust_args: str, trusted: dt.datetime):
    digests = add_group(remote, kit, {"a": 10, "b": 20})
    _commit(remote, "group", _date(now))
    old = git(remote.clone, "rev-parse", "HEAD").strip()
    trust_maintainer(remote, *trust_args)(remote.clone)
    _commit(remote, "trust the maintainer key", _date(trusted))
    return digests, old, git(remote.clone, "rev-parse", "HEAD").strip()


def test_a_held_note_dated_after_the_push_is_judged_at_the_push(remote, kit):
    # notes first (dated 4 minutes ahead of the server, which KI437 lets in), then the
    # trust commit, dated a minute before the push: the line was held before the push
    now = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=1)
    clock = now + dt.timedelta(minutes=2)
    trusted = clock - dt.timedelta(minutes=1)
    digests, old, new = _setup(remote, kit, now, trusted=trusted)
    ahead = clock + dt.timedelta(minutes=4)
    _note(remote, Digest.from_str(digests["a"]), ahead)
    found = _ki434(remote, old, new, clock)
    run = layout.object_path(Digest.from_str(digests["a"]))
    blob = git(remote.clone, "rev-parse", f"HEAD:{run}").strip()
    # on BASE 440899c7: [] (the line's date, after the trust commit's, was believed)
    assert [(f.extra["subject"], f.extra["enteredAt"], f.extra["effect"], f.extra["start"],
             f.pointer) for f in found] == [
        (digests["a"], _date(ahead), "withdraws", _date(trusted), "/keys/0")]
    assert found[0].message == (
        f"refs/heads/main: commit {new[:12]} trusts key {MAINTAINER_ID} (no validFrom) from "
        f"the commit's time, {_date(trusted)}: the withdrawal that key signed on "
        f"{digests['a']} (refs/notes/kistore:{blob}) was held by this server before this "
        f"push ({_date(clock)}), so made before the "
        f"key was trusted, but its notes commit is dated {_date(ahead)}, 4 minutes after "
        "this push, and every reader dates it there, after the key's start: it would stop "
        "being a community attestation and count (withdraws)")
    assert found[0].fix == (
        f"set the key's validFrom in store/trust/keys.json after {_date(ahead)} (`kistore "
        "trust add KEY.pub --role ROLE --valid-from "
        f"{_date(ahead + dt.timedelta(seconds=1))}` on a clone without the entry), or wait "
        "until after it and make the trust commit again dated then (`git commit --amend "
        "--no-edit`), and push that; the attestation stays a community attestation: to "
        "make it count, its signer attests again once the trust has landed")
    # the fix: the trust commit made again after the line's date is accepted, and the
    # line stays a community attestation
    git(remote.clone, "reset", "-q", "--hard", old)
    trust_maintainer(remote)(remote.clone)
    _commit(remote, "trust the maintainer key", _date(ahead + dt.timedelta(seconds=1)))
    again = git(remote.clone, "rev-parse", "HEAD").strip()
    assert _ki434(remote, old, again, ahead + dt.timedelta(seconds=2)) == []


def test_a_new_key_whose_valid_from_falls_before_a_held_note_dated_ahead_is_refused(
        remote, kit):
    # the same with the key added with a validFrom a minute after the push's clock, before
    # the line's date: the line was held before the key's start
    now = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=1)
    clock = now + dt.timedelta(minutes=2)
    start = clock + dt.timedelta(minutes=1)
    ahead = clock + dt.timedelta(minutes=4)
    digests, old, new = _setup(remote, kit, now, "--valid-from", _date(start),
                               trusted=clock - dt.timedelta(minutes=1))
    _note(remote, Digest.from_str(digests["a"]), ahead)
    found = _ki434(remote, old, new, clock)
    # on BASE 440899c7: [] (a key with a validFrom is not KI434's)
    assert [(f.extra["enteredAt"], f.extra["start"], f.expected, f.found) for f in found] == [
        (_date(ahead), _date(start), f"key {MAINTAINER_ID} counting from after {_date(ahead)}",
         f"counting from {_date(start)}")]
    assert found[0].message.startswith(
        f"refs/heads/main: store/trust/keys.json trusts key {MAINTAINER_ID} from its "
        f"validFrom, {_date(start)}, 1 minute after this push: the withdrawal that key signed "
        f"on {digests['a']} ")
    # fresh08 M1: no "wait and commit again": the validFrom, kept, is what counts
    assert found[0].fix == (
        f"set the key's validFrom in store/trust/keys.json after {_date(ahead)} (`kistore "
        "trust add KEY.pub --role ROLE --valid-from "
        f"{_date(ahead + dt.timedelta(seconds=1))}` on a clone without the entry), and push "
        "that; the attestation stays a community attestation: to make it count, its signer "
        "attests again once the trust has landed")
    # a validFrom after the line's date: no finding (the line stays community)
    git(remote.clone, "reset", "-q", "--hard", old)
    trust_maintainer(remote, "--valid-from", _date(ahead + dt.timedelta(seconds=1)))(
        remote.clone)
    _commit(remote, "trust the maintainer key", _date(clock - dt.timedelta(minutes=1)))
    assert _ki434(remote, old, git(remote.clone, "rev-parse", "HEAD").strip(), clock) == []


def test_trust_first_is_not_ki434s(remote, kit):
    # the reverse order: the trust lands with no note held (the note pushed later enters
    # then: its push is judged by KI411 and KI439, tests/check/test_notes_entry_verdict.py)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=1)
    clock = now + dt.timedelta(minutes=2)
    digests, old, new = _setup(remote, kit, now, trusted=clock - dt.timedelta(minutes=1))
    assert _ki434(remote, old, new, clock) == []
