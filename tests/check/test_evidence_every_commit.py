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
    name = "trust-entry-removed" if change is drop_key_entry else "append-only-file-removed"
    assert code != 0 and f"KI410 {name}" in output, output
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


# -- fresh02: what else a commit can take away and a later one put back ------------------


def refused_then_dropped(remote: Remote, finding: dict, base: str, *drop: str) -> None:
    """The server refuses the push (KI410); the fix run as printed leaves a clean range."""
    code, output = push(remote)
    assert code != 0 and f"error KI410 {finding['name']}: " in output, output
    run_fix(remote, finding["hint"], *drop)
    assert gate(remote, base) == []


def dated_commits(remote: Remote, *changes) -> list[str]:
    """Commit each ``change(clone)`` in turn, each dated an hour after the last (KI428)."""
    made = []
    for hours, change in enumerate(changes, start=2):
        change(remote.clone)
        git(remote.clone, "add", "-A")
        when = soon(hours)
        subprocess.run(["git", "commit", "-qm", f"change {hours}"], cwd=remote.clone,
                       check=True, capture_output=True,
                       env={**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when})
        made.append(git(remote.clone, "rev-parse", "HEAD").strip())
    return made


def restore(*rels: str, rev: str = "origin/main"):
    """A change putting ``rels`` back as ``rev`` (the server's main) holds them, byte for byte."""
    return lambda clone: git(clone, "checkout", "-q", rev, "--", *rels)


def edit_json(rel: str, edit):
    """A change editing the document at ``rel`` by ``edit(doc)`` (indented, as by hand)."""
    def change(clone):
        doc = json.loads((clone / rel).read_text())
        edit(doc)
        (clone / rel).write_text(json.dumps(doc, indent=2) + "\n")
    return change


def edit_trust(edit):
    return edit_json(TRUST, edit)


def the_entry(doc) -> dict:
    [entry] = [k for k in doc["keys"] if k["keyid"] == KEYID]
    return entry


UNKNOWN = ("/keys/0/extra: unexpected key 'extra' in the object at /keys/0; it allows only "
           "comment, keyid, publicKey, revokedAt, roles, validFrom, validUntil: remove it or "
           "correct its spelling")
RESTORED = ("; a later commit of the range puts it back (HEAD holds it again), but commit "
            "{c} stays in the history, where `rank --at`, `ls --at` and a checkout of it "
            "answer without it")


NARROWS = ("commit {c} narrows the entry of key " + KEYID + " in the trust file ({said}): at "
           "that commit what the key signed before counts no more for what was taken (a "
           "withdrawal it signed stops withdrawing its run), and a key's trust is never "
           "narrowed after the fact, as its entry is never removed (trust ends by a "
           "revocation, `kistore trust revoke`, which KI412 keeps)")
REWRITES = ("commit {c} rewrites this attestation file (its name is the sha256 of the bytes "
            "written, and an attestation file is never changed): at that commit it no longer "
            "verifies (KI305 there) and what it says counts for nothing (a run it withdraws "
            "ranks again there)")


def twice(clone):
    text = (clone / TRUST).read_text()
    (clone / TRUST).write_text(text.replace('{\n  "keys"', '{\n  "keys": [],\n  "keys"', 1))


@pytest.mark.parametrize("change, why", [
    (edit_trust(lambda d: d["keys"][0].update(extra=1)), UNKNOWN),
    (edit_trust(lambda d: d["keys"].append(d["keys"][0])),
     f"/keys/1: key {KEYID} is listed twice; merge the entries"),
    (twice, "/keys: duplicate object key 'keys'; a key may appear once: delete one of them"),
], ids=["unknown-property", "key-listed-twice", "duplicate-json-key"])
def test_a_trust_file_made_invalid_and_restored_is_refused(remote, change, why):
    # fresh02 G7: only a file without a `keys` list was "unreadable"; a schema-invalid one
    # trusts no key all the same (KI309 at that commit), and passed with 0 findings
    base = remote.main()
    first, second = dated_commits(remote, change, restore(TRUST))
    assert git(remote.clone, "diff", "--stat", base, "HEAD") == ""
    assert not withdrawn_at(remote, first)  # at that commit the withdrawal counts not
    [finding] = gate(remote, base)
    assert (finding["rule"], finding["file"], finding["extra"]) == ("KI410", TRUST, {
        "commit": first, "parent": base, "change": why, "restored": True})
    assert finding["message"] == (
        f"commit {first[:12]} leaves the trust file invalid ({why}): at that commit no key "
        "is trusted (KI309 there), so every maintainer withdrawal and trusted rerun stops "
        "counting there" + RESTORED.format(c=first[:12]))
    assert finding["hint"].startswith(
        f"HEAD holds a valid trust file again, but the commits that changed it ({first[:12]}, "
        f"{second[:12]}, the last restoring it) stay in the history")
    code, output = push(remote)
    assert code != 0 and "KI410 trust-file-made-invalid" in output, output
    run_fix(remote, finding["hint"], first, second)
    assert git(remote.clone, "rev-parse", "HEAD").strip() == base
    assert gate(remote, base) == []


def withdrawn_at(remote: Remote, commit: str) -> bool:
    """Whether ``attestations --at commit`` says the run is withdrawn."""
    said = remote.kistore("attestations", PUBLISHED["run"], "--at", commit, "--json",
                          check=False)
    return bool(json.loads(said.stdout)["withdrawn"])


def test_a_policy_made_invalid_and_restored_is_refused(remote):
    # fresh02 G7 addendum: at that commit every `kistore rank` fails (KI206)
    base = remote.main()
    bogus = edit_policy(lambda d: d.update(bogus=1))
    first, second = dated_commits(remote, bogus, restore(POLICY))
    why = ("/bogus: unexpected key 'bogus' in the top-level object; it allows "
           "only description, families: remove it or correct its spelling")
    [finding] = gate(remote, base)
    assert (finding["file"], finding["extra"]) == (POLICY, {
        "commit": first, "parent": base, "change": why, "restored": True})
    assert finding["message"] == (
        f"commit {first[:12]} leaves the ranking policy invalid ({why}): at that commit "
        "every `kistore rank` fails (KI206 there)" + RESTORED.format(c=first[:12]))
    run_fix(remote, finding["hint"], first, second)
    assert gate(remote, base) == []


def edit_policy(edit):
    return edit_json(POLICY, edit)


def attestation_path(remote: Remote) -> str:
    [path] = git(remote.clone, "ls-files", "store/attestations").split()
    return path


def gutted(path: str):
    def change(clone):
        (clone / path).chmod(0o644)
        (clone / path).write_text("{}\n")
    return change


def reformatted(path: str):
    def change(clone):
        doc = json.loads((clone / path).read_text())
        (clone / path).chmod(0o644)
        (clone / path).write_text(json.dumps(doc, indent=1))
    return change


@pytest.mark.parametrize("how", [gutted, reformatted], ids=["emptied", "reformatted"])
def test_an_attestation_file_rewritten_and_restored_is_refused(remote, how):
    # fresh02 G7b: the withdrawal stopped counting at the middle commit; 0 findings
    base = remote.main()
    path = attestation_path(remote)
    was = git(remote.clone, "rev-parse", f"HEAD:{path}").strip()
    first, second = dated_commits(remote, how(path), restore(path))
    now = git(remote.clone, "rev-parse", f"{first}:{path}").strip()
    assert not withdrawn_at(remote, first)
    [finding] = gate(remote, base)
    assert (finding["file"], finding["expected"], finding["found"], finding["extra"]) == (
        path, f"blob {was}", f"blob {now}",
        {"commit": first, "parent": base, "change": "rewritten", "restored": True})
    assert finding["message"] == REWRITES.format(c=first[:12]) + RESTORED.format(c=first[:12])
    refused_then_dropped(remote, finding, base, first, second)


def test_an_attestation_file_made_executable_and_back_is_refused(remote):
    # the mode: KI114 at every commit already (not said again as KI410)
    base = remote.main()
    path = attestation_path(remote)
    first, _ = dated_commits(remote, lambda c: (c / path).chmod(0o755), restore(path))
    [finding] = gate(remote, base)
    assert (finding["rule"], finding["file"]) == ("KI114", path)
    assert finding["message"].startswith(
        f"an executable file (mode 100755) under store/ (commit {first[:12]} brings it; a "
        "later commit of the range replaces it")


def test_a_broken_attestation_file_mended_is_no_removal(remote):
    # the file as written is what is kept: a commit restoring it takes nothing away (its
    # breaking commit is what the gate names, once)
    base = remote.main()
    path = attestation_path(remote)
    first, second = dated_commits(remote, gutted(path), restore(path))
    assert [f["extra"]["commit"] for f in gate(remote, base)] == [first]
    assert [f["extra"]["commit"] for f in gate(remote, first)] == []


NARROWINGS = {
    "role": (lambda d: the_entry(d).update(roles=["rerun"]), "roles maintainer -> rerun"),
    "until": (lambda d: the_entry(d).update(validUntil="2026-01-01T00:00:00Z"),
              "validUntil none -> 2026-01-01T00:00:00Z, before the change"),
    "from": (lambda d: the_entry(d).update(validFrom=soon(30)), None),
}


def narrowed_said(remote: Remote, name: str, commit: str) -> str:
    said = NARROWINGS[name][1]
    if said is None:  # validFrom: set later than the key's first start
        later = git(remote.clone, "show", f"{commit}:{TRUST}")
        said = (f"validFrom none (from when it entered the trust file, {first_start(remote)}) "
                f"-> {the_entry(json.loads(later))['validFrom']}")
    return said


@pytest.mark.parametrize("name", sorted(NARROWINGS))
def test_a_key_s_entry_narrowed_and_restored_is_refused(remote, name):
    # fresh02 G1: a role dropped, validUntil set in the past, validFrom moved later
    # un-withdrew the run at that commit; done and undone in two commits: 0 findings
    base = remote.main()
    first, second = dated_commits(remote, edit_trust(NARROWINGS[name][0]), restore(TRUST))
    assert not withdrawn_at(remote, first)
    said = narrowed_said(remote, name, first)
    errors = gate(remote, base)
    assert len(errors) == 1, [(f["rule"], f["message"]) for f in errors]
    [finding] = errors
    assert (finding["file"], finding["extra"]) == (TRUST, {
        "commit": first, "parent": base, "keyid": KEYID, "change": said, "restored": True})
    assert finding["message"] == NARROWS.format(c=first[:12], said=said) + RESTORED.format(
        c=first[:12])
    refused_then_dropped(remote, finding, base, first, second)


def test_a_key_s_entry_narrowed_in_one_commit_is_refused_as_removing_it_is(remote):
    # it was KI413-KI415 info only: a retroactive revocation that a later commit could undo
    base = remote.main()
    [first] = dated_commits(remote, edit_trust(NARROWINGS["role"][0]))
    [finding] = gate(remote, base)
    assert finding["message"] == NARROWS.format(c=first[:12], said="roles maintainer -> rerun")
    assert finding["hint"] == (
        f"key {KEYID}'s entry narrowed in commit {first[:12]} of the branch: putting it back "
        "in a later commit leaves the change in the history, " + finding["hint"].split(
            "leaves the change in the history, ", 1)[1])
    assert f"`kistore trust revoke {KEYID}`" in finding["hint"]
    run_fix(remote, finding["hint"], first)
    remote.kistore("trust", "revoke", KEYID, "--at", "2026-01-01T00:00:00Z")  # the way
    git(remote.clone, "commit", "-qam", "revoke the maintainer from the start of 2026")
    assert gate(remote, base) == []


def test_an_expiry_set_ahead_takes_nothing_back(remote):
    # a validUntil after the change leaves what the key signed before counting: no finding
    base = remote.main()
    dated_commits(remote, edit_trust(lambda d: the_entry(d).update(validUntil=soon(40))))
    assert gate(remote, base) == []
    assert withdrawn(remote)


def side_merge(remote: Remote, change) -> tuple[str, str]:
    """Merge a side line from main's parent, its resolution ``change``d; return base, merge."""
    clone = remote.clone
    base = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "checkout", "-q", "-b", "side", "HEAD~1")
    (clone / "side.txt").write_text("side\n")
    git(clone, "add", "side.txt")
    git(clone, "commit", "-qm", "side")
    git(clone, "checkout", "-q", "main")
    git(clone, "merge", "-q", "--no-ff", "--no-commit", "side")
    change(clone)
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "merge side")
    return base, git(clone, "rev-parse", "HEAD").strip()


def test_a_merge_removing_a_file_and_a_restore_name_each_rightly(remote):
    # fresh02 G2: the fix called the restoring commit "the commit that removed it"
    path = attestation_path(remote)
    base, merge = side_merge(remote, lambda c: git(c, "rm", "-q", path))
    [restoring] = dated_commits(remote, restore(path))
    [finding] = gate(remote, base)
    assert (finding["file"], finding["extra"]["commit"]) == (path, merge)
    assert finding["hint"].startswith(
        f"HEAD holds this file again, but the commits that changed it ({merge[:12]}, "
        f"{restoring[:12]}, the last restoring it) stay in the history")


def test_a_merge_removing_a_key_s_entry_is_said_once(remote):
    # fresh02 G3: once per parent, two identical findings
    base, merge = side_merge(remote, drop_key_entry)
    [finding] = gate(remote, base)
    assert finding["extra"] == {"commit": merge, "parent": base, "keyid": KEYID,
                                "restored": False}


def test_a_policy_flipped_and_restored_is_warned_of(remote):
    # fresh02 G1 addendum: the net diff empty, KI415 listed nothing, 0 findings; at the
    # middle commit `rank --at` ranked the family upside down
    base = remote.main()
    flip = edit_policy(lambda d: d["families"]["sol_execbench_leaderboard"].update(
        order="ascending"))
    first, second = dated_commits(remote, flip, restore(POLICY))
    done = remote.kistore("check", f"{base}..HEAD", "--json")
    [finding] = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI410"]
    said = "sol_execbench_leaderboard: order ascending (HEAD: order descending)"
    assert (finding["severity"], finding["file"], finding["extra"]) == (
        "warning", POLICY, {"commit": first})
    assert finding["message"] == (
        f"commit {first[:12]} ranks by a policy neither BASE nor HEAD holds ({said}): the "
        "net diff a reviewer reads does not show it, yet `rank --at`, `export --at` and "
        "`site build --at` that commit rank by it")
    assert finding["hint"].startswith(
        f"squash the commits that changed the policy ({first[:12]}, {second[:12]})")
    # one commit changing it is KI415's info, as before: no warning
    git(remote.clone, "reset", "-q", "--hard", first)
    done = remote.kistore("check", f"{base}..HEAD", "--json")
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]
            if f["severity"] != "info"] == []


def test_verify_warns_of_each_door_landed_past_the_hook(remote):
    # history pushed where no hook ran: `verify` names each commit (a warning: history is
    # never rewritten), and HEAD's answers hold
    path, base = attestation_path(remote), remote.main()
    doors = [edit_trust(lambda d: d["keys"][0].update(extra=1)), restore(TRUST, rev=base),
             gutted(path), restore(path, rev=base), edit_trust(NARROWINGS["role"][0]),
             restore(TRUST, rev=base)]
    landed = []
    for hours, change in enumerate(doors, start=2):
        assert remote.pr(f"door {hours}", change, hook=False, date=soon(hours)).accepted
        landed.append(remote.main())
    assert withdrawn(remote)
    verified = remote.kistore("verify", "--json", check=False)
    found = [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI410"]
    assert [(f["severity"], f["file"], f["extra"]["commit"], f["extra"].get("change"))
            for f in found] == [
        ("warning", TRUST, landed[4], "roles maintainer -> rerun"),
        ("warning", path, landed[2], "rewritten"),
        ("warning", TRUST, landed[0], UNKNOWN)]
    assert all(f["hint"].startswith("nothing to do at HEAD, which holds it again") for f in found)


def test_a_key_s_entry_narrowed_and_restored_two_commits_later_is_reported_once(remote):
    # review01 L11: validFrom moved later in C1, an unrelated C2, restored in C3: KI435
    # looked back one commit only, and said the restore again (KI435 beside KI410)
    base = remote.main()
    first, _middle, _third = dated_commits(
        remote, edit_trust(NARROWINGS["from"][0]),
        lambda c: (c / "unrelated.txt").write_text("unrelated\n"), restore(TRUST))
    said = narrowed_said(remote, "from", first)
    # on BASE 440899c7: [KI410 on C1, KI435 on C3]
    errors = gate(remote, base)
    assert [(f["rule"], f["extra"]["commit"]) for f in errors] == [("KI410", first)]
    [finding] = errors
    assert (finding["file"], finding["extra"]) == (TRUST, {
        "commit": first, "parent": base, "keyid": KEYID, "change": said, "restored": True})
    assert finding["message"] == NARROWS.format(c=first[:12], said=said) + RESTORED.format(
        c=first[:12])
    code, output = push(remote)
    assert code != 0 and "KI410 trust-entry-narrowed" in output, output
    assert "KI435" not in output
