"""A trust commit dated back before a note its key signed while untrusted (fresh02 G8, KI434).

A key without ``validFrom`` counts from the committer date of the first-parent commit that
lists it (:func:`kistore.attest.trust_history.listed_since`). A note line is not ordered
with main's history: it enters at its notes commit's date. So a key holder who pushes a
withdrawal as a note while nobody trusts the key (community: the gate accepts it), then
pushes straight to main a trust commit dated just after its parent, so before the note
entered, had the withdrawal count, though docs/attestations.md promises "a withdrawal
signed by a key nobody trusted yet does not take effect when the trust pull request lands".
The pre-receive hook, which has the push's clock, refuses that move of main (KI434); a
trust commit dated now, or a note pushed after the trust landed, is accepted. Each test
pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

import pytest

from kistore.attest import notes
from kistore.check.gate import check_updates
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git, next_second
from ..prs import KISTORE, Remote
from .test_history_names import add_group
from .test_history_trust_effects import MAINTAINER_ID, ranked_names, trust_maintainer

# every finding made here keeps one meaning per extra key (`entered`: a commit id)
pytestmark = pytest.mark.usefixtures("extra_keys_kept")


def _date(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _group(remote: Remote, kit, when: dt.datetime) -> Digest:
    """Land a comparison group fast/mid/slow dated ``when``; return the digest of ``fast``."""
    digests: dict[str, str] = {}
    group = remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30})), date=_date(when))
    assert group.accepted, group.output
    return Digest.from_str(digests["fast"])


def _withdraw_as_note(remote: Remote, run: Digest) -> None:
    """The maintainer key withdraws ``run`` in a note, pushed to the server (accepted).

    The note enters in a second after every commit of main: a key's start is clamped up to
    its ancestors' times (the published store's, made by the fixture this second), and a
    note in the start's own second is unordered with it (community either way: no KI434).
    On a machine quick enough for the fixture, the group and the note to share one second
    (ci165), the backdated trust commit was accepted.
    """
    next_second(remote.clone)
    notes.attach(Store(remote.clone), run, bundle(MAINTAINER_KEY, "withdrawal", subject=run))
    pushed = remote.push("refs/notes/kistore")
    assert pushed.accepted, pushed.output


def _effects(remote: Remote, name: str) -> list[str]:
    done = remote.kistore("attestations", f"BenchmarkRun/{name}", "--json")
    return [a["effect"] for a in json.loads(done.stdout)["attestations"]]


def test_a_trust_commit_dated_before_a_note_its_key_signed_untrusted_is_refused(remote, kit):
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit, now - dt.timedelta(minutes=10))
    # the key nobody trusts signs a withdrawal, pushed as a note: community, accepted
    _withdraw_as_note(remote, fast)
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    before = remote.main()
    # the trust commit dated a second after its parent: minutes before the note entered
    backdated = now - dt.timedelta(minutes=10) + dt.timedelta(seconds=1)
    pushed = remote.pr("trust the maintainer key", trust_maintainer(remote),
                       date=_date(backdated))
    # on BASE 4f2e66b4: accepted (KI413 "community -> withdraws" as info), and `fast`
    # left the ranking
    assert (pushed.accepted, ranked_names(remote)) == (False, ["fast", "mid", "slow"])
    assert remote.main() == before
    refused = git(remote.clone, "rev-parse", "ORIG_HEAD").strip()  # the pushed commit
    # its time: its committer date, or an ancestor's when later (the seed's commits)
    start = max(int(t) for t in git(remote.clone, "log", "--format=%ct", refused).split())
    assert ("remote: store/trust/keys.json:/keys/0: error KI434 trust-entry-backdated: "
            f"refs/heads/main: commit {refused[:12]} trusts key {MAINTAINER_ID} (no "
            "validFrom) from the commit's time, "
            f"{_date(dt.datetime.fromtimestamp(start, dt.UTC))} (its committer date, held to "
            "its ancestors'), ") in pushed.output
    assert (f"the withdrawal that key signed on {fast} (refs/notes/kistore:") in pushed.output
    assert ("before the key was trusted, would stop being a community attestation and count "
            "(withdraws)") in pushed.output
    assert "fix KI434 (1 finding): make the trust commit again with the committer dated now " \
        "(`git commit --amend --no-edit`" in pushed.output
    assert _effects(remote, "fast") == ["community"]


def _commit(remote: Remote, message: str, date: str | None = None) -> None:
    """Commit everything in the clone (past any local hook), committer dated ``date``."""
    git(remote.clone, "add", "-A")
    dated = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {}
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", message], cwd=remote.clone,
                   check=True, capture_output=True, env={**os.environ, **dated})


def _push_main(remote: Remote):
    done = subprocess.run(["git", "push", "origin", "HEAD:main"], cwd=remote.clone,
                          capture_output=True, text=True, env={**os.environ, "KISTORE": KISTORE})
    return done.returncode, done.stderr


@pytest.mark.parametrize("fix", ["amend", "merge"])
def test_the_fixes_it_names_land_the_trust_and_the_note_stays_community(remote, kit, fix):
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit, now - dt.timedelta(minutes=10))
    _withdraw_as_note(remote, fast)
    backdated = _date(now - dt.timedelta(minutes=10) + dt.timedelta(seconds=1))
    if fix == "amend":  # refused as it is; `git commit --amend --no-edit` dates it now
        trust_maintainer(remote)(remote.clone)
        _commit(remote, "trust the maintainer key", backdated)
        refused = _push_main(remote)
        assert refused[0] != 0 and "KI434" in refused[1]
        git(remote.clone, "commit", "-q", "--amend", "--no-edit", "--no-verify")
    else:  # the same commit on a branch, landed by a merge made now
        git(remote.clone, "checkout", "-q", "-b", "trust")
        trust_maintainer(remote)(remote.clone)
        _commit(remote, "trust the maintainer key", backdated)
        git(remote.clone, "checkout", "-q", "main")
        git(remote.clone, "merge", "-q", "--no-ff", "--no-verify", "-m", "merge trust",
            "trust")
    returncode, output = _push_main(remote)
    assert returncode == 0, output
    assert "KI434" not in output
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    assert _effects(remote, "fast") == ["community"]


def test_a_trust_commit_dated_before_the_push_with_no_note_meanwhile_is_accepted(remote, kit):
    # honest: the trust commit was made five minutes before the push, and the key's
    # holder attests after it landed: the note counts (it withdraws)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit, now - dt.timedelta(minutes=10))
    pushed = remote.pr("trust the maintainer key", trust_maintainer(remote),
                       date=_date(now - dt.timedelta(minutes=5)))
    assert pushed.accepted, pushed.output
    assert "KI434" not in pushed.output
    _withdraw_as_note(remote, fast)
    assert _effects(remote, "fast") == ["withdraws"]
    assert ranked_names(remote) == ["mid", "slow"]


def test_a_trust_commit_dated_now_after_a_note_is_accepted_and_the_note_stays_community(
        remote, kit):
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fast = _group(remote, kit, now - dt.timedelta(minutes=10))
    _withdraw_as_note(remote, fast)
    pushed = remote.pr("trust the maintainer key", trust_maintainer(remote))  # dated now
    assert pushed.accepted, pushed.output
    assert "KI434" not in pushed.output
    assert _effects(remote, "fast") == ["community"]
    assert ranked_names(remote) == ["fast", "mid", "slow"]


def test_only_a_note_entered_after_the_trust_commit_and_before_the_push_is_named(remote, kit):
    # in-process, at the second's edges: notes dated one second before the trust commit's
    # time, in its second (unordered: a community attestation either way), one second
    # after it, and after the push's clock; the third counts as of before the push, and so
    # does the fourth: the server held it before the push, whatever its date says (it was
    # not named until fresh07 H1, when KI437 let a note be dated minutes ahead)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    clock, trusted = now + dt.timedelta(hours=2), now + dt.timedelta(hours=1)
    digests: dict[str, str] = {}
    digests.update(add_group(remote, kit, {"a": 10, "b": 20, "c": 30, "d": 40}))
    _commit(remote, "group", _date(now + dt.timedelta(minutes=10)))
    old = git(remote.clone, "rev-parse", "HEAD").strip()
    trust_maintainer(remote)(remote.clone)
    _commit(remote, "trust the maintainer key", _date(trusted))
    new = git(remote.clone, "rev-parse", "HEAD").strip()
    for name, when in (("a", trusted - dt.timedelta(seconds=1)), ("b", trusted),
                       ("c", trusted + dt.timedelta(seconds=1)),
                       ("d", clock + dt.timedelta(seconds=1))):
        run = Digest.from_str(digests[name])
        line = bundle(MAINTAINER_KEY, "withdrawal", subject=run).decode()
        blob = git(remote.clone, "rev-parse", f"HEAD:{layout.object_path(run)}").strip()
        subprocess.run(["git", "notes", "--ref", "refs/notes/kistore", "append", "-m", line,
                        blob], cwd=remote.clone, check=True, capture_output=True,
                       env={**os.environ, "GIT_COMMITTER_DATE": _date(when)})
    found = [f for f in check_updates(Store(remote.clone), [(old, new, "refs/heads/main")],
                                      protected={"refs/heads/main"}, now=clock)
             if f.rule.id == "KI434"]
    assert [(f.extra["subject"], f.extra["enteredAt"], f.extra["effect"], f.extra["commit"],
             f.extra["start"], f.pointer) for f in found] == [
        (digests["c"], _date(trusted + dt.timedelta(seconds=1)), "withdraws", new,
         _date(trusted), "/keys/0"),
        (digests["d"], _date(clock + dt.timedelta(seconds=1)), "withdraws", new,
         _date(trusted), "/keys/0")]
    assert f" 1 hour before this push ({_date(clock)}): " in found[0].message
    # judged by a pre-push hook (the pushing clone's notes, which the server may lack): none
    assert not [f for f in check_updates(Store(remote.clone), [(old, new, "refs/heads/main")],
                                         protected={"refs/heads/main"}, now=clock,
                                         held=[old]) if f.rule.id == "KI434"]
