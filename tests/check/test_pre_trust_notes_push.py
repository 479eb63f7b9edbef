"""KI442 of a notes push: a line that entered before the commit trusting its key (fresh15 F2).

A key's holder signs a withdrawal while nobody trusts the key (a community attestation), then
a commit trusts the key anew with a past ``validFrom``. Pushed notes first, the trust commit's
push warns KI442 (the server holds the line). Pushed the trust commit first, then the notes,
both pushes passed with no word on BASE 6af42bf9 (the notes push judged the line by KI411 and
KI439 only, whose verdicts agree: it withdraws), and the withdrawal took effect. Now the notes
push warns KI442 of the line: the server's ``pre-receive``, ``kistore check --unpushed`` and
``kistore notes push``, each once. Each test pushes to a bare server running
``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

import pytest

from kistore.attest import notes
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git, next_second
from ..prs import KISTORE, Remote
from .test_history_names import add_group
from .test_history_trust_effects import MAINTAINER_ID, trust_maintainer
from .test_trust_entry_backdated import _date, _effects

pytestmark = pytest.mark.usefixtures("extra_keys_kept")

EARLY = "2026-01-01T00:00:00Z"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def _time(remote: Remote, rev: str) -> str:
    return _date(dt.datetime.fromtimestamp(
        int(git(remote.clone, "log", "-1", "--format=%ct", rev).strip()), dt.UTC))


def _signed_untrusted(remote: Remote, kit) -> tuple[Digest, str, str]:
    """Land a group; sign a withdrawal of ``fast`` with the untrusted maintainer key as a
    note, not pushed. Return its subject, the annotated object and the line's entry time."""
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    fast = Digest.from_str(digests["fast"])
    next_second(remote.clone)
    notes.attach(Store(remote.clone), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast))
    [line] = git(remote.clone, "notes", "--ref=kistore", "list").splitlines()
    entered = _time(remote, "refs/notes/kistore")
    next_second(remote.clone)  # the trust commit a second after the line entered
    return fast, line.split()[1], entered


def _trusted_from_before(remote: Remote, kit) -> tuple[Digest, str, str, str, str]:
    """:func:`_signed_untrusted`, then the key trusted anew from ``EARLY``, main pushed (the
    notes not). Return the subject, the annotated object, the line's entry time, the trust
    commit and its time."""
    fast, obj, entered = _signed_untrusted(remote, kit)
    pushed = remote.pr("trust the maintainer key",
                       trust_maintainer(remote, "--valid-from", EARLY))
    assert pushed.accepted, pushed.output
    assert "KI442" not in pushed.output  # the server holds no such note yet
    commit = remote.main()
    start = _time(remote, commit)
    assert entered < start
    return fast, obj, entered, commit, start


def _said(fast: Digest, entered: str, commit: str, start: str) -> str:
    return (f"the withdrawal by key {MAINTAINER_ID} on {fast} entered the repository at "
            f"{entered} (its notes commit's date), before commit {commit[:12]} first trusted "
            f"the key (the commit's time {start}): a community attestation then, it counts "
            f"because that commit gave the key a validFrom before it ({EARLY}): what the key "
            "signed while nobody trusted it takes effect when the trust lands")


def _fix(obj: str, remote: str) -> str:
    return ("review it: if the key's holder signed the line and it should take effect, keep "
            "it; otherwise leave it out before it is pushed (`git notes --ref kistore edit "
            f"{obj}` and delete it, then `kistore notes rebase {remote}` and `kistore notes "
            f"push {remote}`) and have its signer attest again now that the key is trusted "
            "(the new line enters after the trust commit); a line already pushed stays "
            "(notes only grow, KI408)")


def test_notes_pushed_after_the_trust_commit_are_warned_by_the_server(remote, kit):
    # fresh15 F2: on BASE 6af42bf9 "remote: ok: 1 ref update(s): 0 errors, 0 warnings,
    # 0 info", and the withdrawal took effect
    fast, obj, entered, commit, start = _trusted_from_before(remote, kit)
    # `kistore check --unpushed` (the notes alone are unpushed): the same warning
    done = remote.kistore("check", "--unpushed", "origin", "--json")
    [finding] = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI442"]
    assert (finding["severity"], finding["file"], finding["message"]) == (
        "warning", f"refs/notes/kistore:{obj}", _said(fast, entered, commit, start))
    assert finding["extra"] == {"keyid": MAINTAINER_ID, "commit": commit, "validFrom": EARLY,
                                "enteredAt": entered, "refs": ["refs/notes/kistore"]}
    pushed = remote.push("refs/notes/kistore")
    assert pushed.accepted, pushed.output
    lines = [line.removeprefix("remote: ").rstrip() for line in pushed.output.splitlines()
             if line.startswith("remote: ")]
    assert lines == [
        f"refs/notes/kistore:{obj}: warning KI442 pre-trust-attestation-counts: "
        + _said(fast, entered, commit, start),
        f"fix KI442 (1 finding): {_fix(obj, 'REMOTE')}",
        "ok: 1 ref update(s): 0 errors, 1 warning, 0 info"]
    assert _effects(remote, "fast") == ["withdraws"]


def test_kistore_notes_push_after_the_trust_commit_warns(remote, kit):
    fast, obj, entered, commit, start = _trusted_from_before(remote, kit)
    done = subprocess.run([KISTORE, "notes", "push", "origin"], cwd=remote.clone,
                          capture_output=True, text=True, env={**os.environ, "KISTORE": KISTORE})
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("pushed refs/notes/kistore to origin, after merging the 0 "
                           "attestation(s) origin had that this repository lacked\n")
    assert done.stderr == (f"warning: {_said(fast, entered, commit, start)} (KI442 "
                           f"pre-trust-attestation-counts); {_fix(obj, 'origin')}\n")


def test_notes_pushed_before_the_trust_commit_are_warned_once(remote, kit):
    fast, obj, entered = _signed_untrusted(remote, kit)
    pushed = remote.push("refs/notes/kistore")  # a community attestation: no word
    assert pushed.accepted, pushed.output
    assert "KI442" not in pushed.output
    next_second(remote.clone)
    pushed = remote.pr("trust the maintainer key",
                       trust_maintainer(remote, "--valid-from", EARLY))
    assert pushed.accepted, pushed.output
    assert pushed.output.count("KI442") == 2  # the commit's warning and its fix line
    assert "remote: ok: 1 ref update(s): 0 errors, 1 warning, " in pushed.output
    assert _effects(remote, "fast") == ["withdraws"]


def test_trust_commit_and_notes_unpushed_are_warned_once(remote, kit):
    fast, obj, entered = _signed_untrusted(remote, kit)
    trust_maintainer(remote, "--valid-from", EARLY)(remote.clone)
    git(remote.clone, "add", "-A")
    git(remote.clone, "commit", "-q", "--no-verify", "-m", "trust the maintainer key")
    commit = git(remote.clone, "rev-parse", "HEAD").strip()
    # `check --unpushed`: the commit's KI442 (its range holds the line), not the line's too
    done = remote.kistore("check", "--unpushed", "origin", "--json")
    found = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI442"]
    assert [(f["file"], f["extra"]["commit"]) for f in found] == [
        ("store/trust/keys.json", commit)]
    # both in one push: refused (KI411: trust is reviewed on its own, before its key signs),
    # and the refused line is not warned of besides
    pushed = remote.push("HEAD:main", "refs/notes/kistore")
    assert not pushed.accepted
    assert f"remote: refs/notes/kistore:{obj}: error KI411 " in pushed.output
    assert "KI442" not in pushed.output


def test_a_line_signed_after_the_trust_commit_is_not_warned(remote, kit):
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    fast = Digest.from_str(digests["fast"])
    assert remote.pr("trust the maintainer key",
                     trust_maintainer(remote, "--valid-from", EARLY)).accepted
    next_second(remote.clone)
    notes.attach(Store(remote.clone), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast))
    pushed = remote.push("refs/notes/kistore")
    assert pushed.accepted, pushed.output
    assert "KI442" not in pushed.output
    assert _effects(remote, "fast") == ["withdraws"]
