"""KI410's findings are named for what the commit did, and a policy flip pushed to main is refused.

fresh06 L5: every narrowing, invalid trust file and policy flip was reported as "KI410
append-only-file-removed", so a reader scanning names took it for a deleted file. The id
stays KI410 (ids are stable); the name now says what the commit did.

fresh06 L4: a policy whose ``order`` is flipped in one commit and restored in the next is
a KI410 warning, as a policy edit is reviewed; pushed straight to main, where no one
reviews, a warning was a pass and main held a commit at which ``rank --at`` ranked the
family upside down. ``check --updates`` of a protected branch (pre-receive) refuses it.
Pushes go to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ..conftest import git
from .test_evidence_every_commit import (
    NARROWINGS,
    POLICY,
    TRUST,
    attestation_path,
    drop_key_entry,
    edit_policy,
    edit_trust,
    gutted,
    remote,  # noqa: F401 (a trusted maintainer, its withdrawal)
    restore,
)


def _commits(server, *changes) -> list[str]:
    """Commit each ``change(clone)`` in turn (dated now: the gate's clock); return them."""
    made = []
    for n, change in enumerate(changes):
        change(server.clone)
        git(server.clone, "add", "-A")
        git(server.clone, "commit", "-q", "--no-verify", "-m", f"change {n}")
        made.append(git(server.clone, "rev-parse", "HEAD").strip())
    return made


def _findings(server, *args: str) -> list[dict]:
    done = server.kistore(*args, "--json", check=False)
    return [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI410"]


def _invalid_policy(clone) -> None:
    (clone / POLICY).write_text("{\n")


@pytest.mark.parametrize("change, name, path", [
    (edit_trust(NARROWINGS["role"][0]), "trust-entry-narrowed", TRUST),
    (edit_trust(lambda d: d["keys"][0].update(extra=1)), "trust-file-made-invalid", TRUST),
    (drop_key_entry, "trust-entry-removed", TRUST),
    (_invalid_policy, "policy-made-invalid", POLICY),
    (lambda c: git(c, "rm", "-q", TRUST), "append-only-file-removed", TRUST),
], ids=["narrowed", "trust-invalid", "entry-removed", "policy-invalid", "deleted"])
def test_each_taking_away_is_named_for_what_it_did(remote, change, name, path):  # noqa: F811
    base = remote.main()
    first, _ = _commits(remote, change, restore(path))
    # on BASE 440899c7: each named "append-only-file-removed"
    [finding] = _findings(remote, "check", f"{base}..HEAD")
    assert (finding["name"], finding["severity"], finding["file"], finding["extra"]["commit"]
            ) == (name, "error", path, first)
    pushed = remote.push("HEAD:main")
    assert not pushed.accepted
    assert f"error KI410 {name}: commit {first[:12]} " in pushed.output
    # landed where no hook ran: `verify` names it alike, as a warning
    assert remote.push("HEAD:main", hook=False).accepted
    [said] = _findings(remote, "verify")
    assert (said["name"], said["severity"], said["extra"]["commit"]) == (name, "warning", first)


def test_an_attestation_file_rewritten_is_named_so(remote):  # noqa: F811
    base, path = remote.main(), attestation_path(remote)
    first, _ = _commits(remote, gutted(path), restore(path))
    [finding] = _findings(remote, "check", f"{base}..HEAD")
    assert (finding["name"], finding["file"], finding["extra"]["change"]) == (
        "attestation-file-rewritten", path, "rewritten")


def test_a_policy_flipped_and_restored_is_refused_on_a_push_to_main(remote):  # noqa: F811
    base = remote.main()
    flip = edit_policy(lambda d: d["families"]["sol_execbench_leaderboard"].update(
        order="ascending"))
    first, second = _commits(remote, flip, restore(POLICY))
    said = "sol_execbench_leaderboard: order ascending (HEAD: order descending)"
    message = (f"commit {first[:12]} ranks by a policy neither BASE nor HEAD holds ({said}): "
               "the net diff a reviewer reads does not show it, yet `rank --at`, `export "
               "--at` and `site build --at` that commit rank by it")
    # the pull request's check: a warning for its reviewer, named for what it says
    # (on BASE 440899c7: "warning KI410 append-only-file-removed")
    [warned] = _findings(remote, "check", f"{base}..HEAD")
    assert (warned["name"], warned["severity"], warned["message"]) == (
        "policy-held-by-neither-end", "warning", message)
    assert warned["hint"].endswith("; on a branch already merged the history cannot change, "
                                   "and this warning says so for good")
    # pushed straight to main, no review: refused (on BASE 440899c7: accepted)
    pushed = remote.push("HEAD:main")
    assert not pushed.accepted, pushed.output
    assert (f"{POLICY}: error KI410 policy-held-by-neither-end: {message}; pushed to the "
            "protected branch, it lands with no review (a pull request's check warns of it, "
            "for its reviewer): refused") in pushed.output
    assert (f"fix KI410 (1 finding): squash the commits that changed the policy "
            f"({first[:12]}, {second[:12]}) so that each commit of the branch ranks as BASE "
            f"or HEAD does (`git rebase -i {base}`, `squash` or `fixup` them into the last), "
            "or drop the ones the range undoes, then push again") in pushed.output
    assert remote.main() == base
    # the fix as printed: both dropped (the range undoes them); the push is accepted
    subprocess.run(["git", "rebase", "-i", base], cwd=remote.clone, check=True,
                   capture_output=True, env={**os.environ,
                                             "GIT_SEQUENCE_EDITOR": "sed -i -e s/^pick/drop/"})
    assert git(remote.clone, "rev-parse", "HEAD").strip() == base
    (remote.clone / "NOTES.md").write_text("notes\n")
    _commits(remote, lambda c: None)
    assert remote.push("HEAD:main").accepted
