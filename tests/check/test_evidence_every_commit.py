"""fresh01 F7: the trust file, the policy and attestation files judged at every commit (KI410).

Two commits, one deleting ``store/trust/keys.json`` (or removing one unrevoked key's entry,
or deleting the policy or a withdrawal file) and the next putting it back byte for byte,
had an empty net diff: ``check`` and pre-receive said ok, and every key then counted from
the restoring commit, so the maintainer's withdrawal stopped counting and the run ranked
again. Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.
Remote`); the printed fix is run, and the gate asked again.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess

import pytest

from kistore.attest import signing

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import PUBLISHED, git
from ..prs import Remote, soon
from .test_history_reruns import attest_file

TRUST = "store/trust/keys.json"
POLICY = "store/policy/ranking.json"
KEYID = signing.keyid(MAINTAINER_KEY.public_key())


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    """The server's main: a trusted maintainer key, then its withdrawal of the run."""
    remote = Remote(published, tmp_path)
    path = tmp_path / "maintainer.pub"
    path.write_text(signing.public_key_line(MAINTAINER_KEY.public_key()) + "\n")
    assert remote.pr("trust a maintainer", lambda c: remote.kistore(
        "trust", "add", str(path), "--role", "maintainer")).accepted
    assert remote.pr("withdraw the run", attest_file(remote, bundle(MAINTAINER_KEY, "withdrawal")),
                     date=soon(1)).accepted
    assert withdrawn(remote)
    return remote


def withdrawn(remote: Remote) -> bool:
    """Whether ``attestations`` says the run is withdrawn, and ``rank`` leaves it out."""
    said = json.loads(remote.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    ranked = remote.kistore("rank", PUBLISHED["run"], "--json", check=False)
    rows = json.loads(ranked.stdout) if ranked.returncode == 0 else []
    listed = any(PUBLISHED["run"] in json.dumps(row) for row in rows)
    assert said["withdrawn"] is not listed, (said, rows)
    return bool(said["withdrawn"])


def two_commits(remote: Remote, change) -> tuple[str, str, str]:
    """Commit ``change(clone)``, then the files as they were; return BASE and both commits."""
    clone = remote.clone
    base = git(clone, "rev-parse", "HEAD").strip()
    saved = {rel: (clone / rel).read_bytes() for rel in (TRUST, POLICY)}
    change(clone)
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "take it away")
    first = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "checkout", "-q", base, "--", "store")
    for rel, data in saved.items():
        (clone / rel).write_bytes(data)
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "put it back")
    assert git(clone, "diff", "--stat", base, "HEAD") == ""  # the net diff is empty
    return base, first, git(clone, "rev-parse", "HEAD").strip()


def push(remote: Remote) -> tuple[int, str]:
    """Push the clone's HEAD to the server's main (its pre-receive judges it)."""
    done = remote.push("HEAD:main")
    return done.returncode, done.output


def run_fix(remote: Remote, fix: str, *drop: str) -> None:
    """Run the fix's ``git rebase -i BASE`` as printed, dropping ``drop`` (commit ids)."""
    command = re.search(r"`(git rebase -i [0-9a-f]{40})`", fix).group(1)
    edits = " ".join(f"-e 's/^pick {c[:7]}/drop {c[:7]}/'" for c in drop)
    subprocess.run(command.split(), cwd=remote.clone, check=True, capture_output=True,
                   env={**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i {edits}"})


def gate(remote: Remote, base: str) -> list[dict]:
    done = remote.kistore("check", f"{base}..HEAD", "--json", check=False)
    return [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]


def drop_trust_file(clone) -> None:
    git(clone, "rm", "-q", TRUST)


def drop_key_entry(clone) -> None:
    doc = json.loads((clone / TRUST).read_text())
    doc["keys"] = [k for k in doc["keys"] if k.get("keyid") != KEYID]
    (clone / TRUST).write_text(json.dumps(doc, indent=2) + "\n")


def drop_policy(clone) -> None:
    git(clone, "rm", "-q", POLICY)


@pytest.mark.parametrize("change, said", [
    (drop_trust_file, "deletes the trust file: at that commit no key is trusted"),
    (drop_key_entry, f"removes the entry of key {KEYID} from the trust file"),
    (drop_policy, "deletes the ranking policy: at that commit `kistore rank` falls back"),
], ids=["trust-file", "key-entry", "policy"])
def test_taken_away_and_put_back_in_two_commits_is_refused(remote, change, said):
    base, first, second = two_commits(remote, change)
    errors = gate(remote, "origin/main")
    assert [(f["rule"], f["file"], f["extra"]["commit"]) for f in errors] == [
        ("KI410", POLICY if change is drop_policy else TRUST, first)], errors
    [finding] = errors
    assert finding["message"].startswith(f"commit {first[:12]} {said}")
    assert ("a later commit of the range puts it back (HEAD holds it again), but commit "
            f"{first[:12]} stays in the history") in finding["message"]
    assert f"({first[:12]}, {second[:12]}, the last restoring it)" in finding["hint"]
    code, output = push(remote)  # the server's pre-receive says the same
    assert code != 0 and "KI410 append-only-file-removed" in output, output
    assert git(remote.bare, "rev-parse", "main").strip() == base
    assert withdrawn(remote)
    run_fix(remote, finding["hint"], first, second)
    assert git(remote.clone, "rev-parse", "HEAD").strip() == base
    assert gate(remote, base) == []


def test_the_fresh01_sequence_landed_past_the_hook_keeps_the_withdrawal(remote):
    # history pushed before the fix: the deletion and the restore landed; every key counted
    # from the restore and the withdrawal was community (failed here before the fix)
    before = remote.main()
    git(remote.clone, "rm", "-q", TRUST)
    assert remote.pr("drop trust", lambda c: None, hook=False, date=soon(2)).accepted
    dropped = remote.main()
    assert not withdrawn(remote)  # at that commit no key is trusted
    git(remote.clone, "checkout", "-q", f"{dropped}~1", "--", TRUST)
    assert remote.pr("restore trust", lambda c: None, hook=False, date=soon(3)).accepted
    assert withdrawn(remote)  # the key counts from its first start, not from the restore
    said = json.loads(remote.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    assert [a["effect"] for a in said["attestations"]] == ["withdraws"]
    verified = remote.kistore("verify", "--json", check=False)
    found = [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI410"]
    assert [(f["severity"], f["file"], f["extra"]["commit"]) for f in found] == [
        ("warning", TRUST, dropped)]
    assert found[0]["hint"].startswith("nothing to do at HEAD, which holds it again")
    # the workflow's `landed` job says it of the move too
    landed = remote.kistore("check", "--landed", f"{before}..{remote.main()}", check=False)
    assert landed.returncode == 1
    assert f"error KI410 append-only-file-removed: commit {dropped[:12]} deletes the trust " \
           "file" in landed.stdout


def test_a_pull_request_merged_with_a_merge_commit_is_judged_commit_by_commit(remote):
    # GitHub's merge button: the range BASE..MERGE holds the branch's commits on a side line
    clone = remote.clone
    base = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "checkout", "-q", "-b", "topic")
    _, first, second = two_commits(remote, drop_trust_file)
    git(clone, "checkout", "-q", "main")
    git(clone, "merge", "-q", "--no-ff", "-m", "Merge pull request #7", "topic")
    [finding] = gate(remote, base)
    assert (finding["rule"], finding["extra"]["commit"]) == ("KI410", first)
    code, output = push(remote)
    assert code != 0 and "KI410" in output


def test_a_key_s_entry_removed_is_refused_revoking_it_is_not(remote):
    base = remote.main()
    git(remote.clone, "reset", "-q", "--hard", base)
    drop_key_entry(remote.clone)
    git(remote.clone, "commit", "-qam", "untrust the maintainer")
    removing = git(remote.clone, "rev-parse", "HEAD").strip()
    [finding] = gate(remote, base)
    assert finding["rule"] == "KI410" and finding["extra"] == {
        "commit": removing, "parent": base, "keyid": KEYID, "restored": False}
    assert f"`kistore trust revoke {KEYID}`" in finding["hint"]
    code, output = push(remote)
    assert code != 0 and "KI410" in output
    run_fix(remote, finding["hint"], removing)
    assert gate(remote, base) == []
    remote.kistore("trust", "revoke", KEYID)  # the way trust ends
    git(remote.clone, "commit", "-qam", "revoke the maintainer")
    assert gate(remote, base) == []


def test_a_withdrawal_file_deleted_and_restored_is_refused(remote):
    clone = remote.clone
    [path] = [p for p in git(clone, "ls-files", "store/attestations").split()]
    base, first, second = two_commits(remote, lambda c: git(c, "rm", "-q", path))
    [finding] = gate(remote, base)
    assert (finding["rule"], finding["file"]) == ("KI410", path)
    assert finding["message"].startswith(f"commit {first[:12]} deletes this attestation "
                                         "file: at that commit what it says counts for nothing")
    run_fix(remote, finding["hint"], first, second)
    assert gate(remote, base) == []


def first_start(remote: Remote) -> str:
    """The committer date (UTC) of the server's first commit trusting the key."""
    first = git(remote.bare, "log", "--format=%H", "--reverse", "main", "--", TRUST).split()[0]
    when = dt.datetime.fromisoformat(git(remote.bare, "log", "-1", "--format=%cI", first).strip())
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_key_removed_past_the_hook_and_added_again_keeps_its_first_start(remote):
    trusted_at = remote.kistore("attestations", PUBLISHED["run"], "--json").stdout
    assert remote.pr("untrust the maintainer", drop_key_entry, hook=False,
                     date=soon(2)).accepted
    assert not withdrawn(remote)
    path = remote.clone.parent / "maintainer.pub"
    again = remote.pr("trust the maintainer again", lambda c: remote.kistore(
        "trust", "add", str(path), "--role", "maintainer"), date=soon(3))
    assert again.accepted, again.output  # a re-add is reviewed: KI427 says what it does
    said = " ".join(again.output.replace("remote:", " ").split())
    assert (f"info KI427 key-newly-trusted: the range trusts key {KEYID} for maintainer: "
            f"valid from {first_start(remote)}, when it first entered the trust file (a key "
            "added again keeps its first start: what it signed since then counts), no "
            "expiry") in said, said
    assert ("attestations it signed that entered before this change now count: 1 withdrawal"
            in said), said
    assert withdrawn(remote)  # from its first start: the withdrawal counts again
    assert remote.kistore("attestations", PUBLISHED["run"], "--json").stdout == trusted_at


def test_pre_commit_restores_a_staged_key_entry_removal(remote):
    # as hooks/pre-commit runs it: the index as a commit on HEAD
    drop_key_entry(remote.clone)
    git(remote.clone, "add", TRUST)
    staged = git(remote.clone, "commit-tree", git(remote.clone, "write-tree").strip(), "-p",
                 "HEAD", "-m", "kistore pre-commit: staged changes").strip()
    done = remote.kistore("check", "--staged", f"HEAD..{staged}", "--json", check=False)
    [finding] = [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]
    assert finding["rule"] == "KI410" and finding["extra"]["keyid"] == KEYID
    assert f"`git checkout HEAD -- {TRUST}`" in finding["hint"]
    git(remote.clone, "checkout", "HEAD", "--", TRUST)
    staged = git(remote.clone, "commit-tree", git(remote.clone, "write-tree").strip(), "-p",
                 "HEAD", "-m", "kistore pre-commit: staged changes").strip()
    done = remote.kistore("check", "--staged", f"HEAD..{staged}", "--json", check=False)
    assert [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"] == []
