"""The attestation commands: key, attest, attestations, notes, trust (exit codes, messages)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess

import pygit2
import pytest

from kistore.attest import signing
from kistore.cli import attest as attest_cli
from kistore.cli import main

from ..conftest import PUBLISHED, fixed_key

RUN_REF = "BenchmarkRun/sol-submission-20464"
MEASURED = {"outcome": "reproduced", "environmentDigest": PUBLISHED["environment"],
            "timing": {"latencyNs": {"mean": 13_500_000}, "primaryStatistic": "mean"}}


def run(runner, store_path, *args, input=None):
    return runner.invoke(main, ["--store", str(store_path), *args], input=input)


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "k"
    path.write_bytes(signing.private_key_bytes(fixed_key(1)))
    return path


def test_key_generate_writes_0600_key_and_prints_line_and_keyid(runner, tmp_path):
    path = tmp_path / "signing-key"
    result = runner.invoke(main, ["key", "generate", str(path)])
    assert result.exit_code == 0, result.output
    line, keyid = result.output.splitlines()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert (tmp_path / "signing-key.pub").read_text() == line + "\n"
    private = signing.load_private_key(path.read_bytes())
    assert (signing.public_key_line(private.public_key()), signing.keyid(private.public_key())
            ) == (line, keyid)
    out = subprocess.run(["ssh-keygen", "-y", "-f", str(path)], capture_output=True, text=True,
                         check=True).stdout  # ssh-keygen reads the private key we wrote
    assert out.split()[:2] == line.split()


def test_key_generate_makes_a_missing_directory_private(runner, tmp_path):
    # A new-user report: the README's `kistore key generate ~/.kistore/k` failed with "No
    # such file or directory" on a machine without ~/.kistore.
    path = tmp_path / "home" / ".kistore" / "k"
    result = runner.invoke(main, ["key", "generate", str(path)])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert result.output.splitlines()[0] == path.with_suffix(".pub").read_text().strip()


def test_key_generate_never_overwrites(runner, key_file):
    before = key_file.read_bytes()
    result = runner.invoke(main, ["key", "generate", str(key_file)])
    assert result.exit_code == 1
    assert f"error: {key_file}: the file exists" in result.stderr
    assert key_file.read_bytes() == before


def test_key_generate_never_overwrites_an_existing_pub_file_either(runner, tmp_path):
    # breaker9: `echo x > k5.pub; kistore key generate k5` replaced k5.pub.
    import os
    import stat

    (tmp_path / "k5.pub").write_text("x\n")
    result = runner.invoke(main, ["key", "generate", str(tmp_path / "k5")])
    assert result.exit_code == 1
    assert f"error: {tmp_path / 'k5.pub'}: the file exists" in result.stderr
    assert (tmp_path / "k5.pub").read_text() == "x\n"
    assert not (tmp_path / "k5").exists()  # nothing half-written
    old = os.umask(0)  # breaker9: under umask 000 the .pub file was mode 0666
    try:
        assert runner.invoke(main, ["key", "generate", str(tmp_path / "k6")]).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "k6").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "k6.pub").stat().st_mode) == 0o644


def test_attest_reproduction_then_list_as_json(runner, record_store, store_path, key_file):
    result = run(runner, store_path, "attest", RUN_REF, "--type", "reproduction",
                 "--key", str(key_file))
    assert result.exit_code == 0, result.output
    keyid = signing.keyid(fixed_key(1).public_key())
    assert result.output.startswith(f"reproduction by {keyid} about {PUBLISHED['run']}: "
                                    "refs/notes/kistore:")
    listed = run(runner, store_path, "attestations", RUN_REF, "--json")
    assert listed.exit_code == 0, listed.output
    data = json.loads(listed.output)
    assert (data["evidenceLevel"], data["community"], data["withdrawn"]) == (
        "source-native", 1, False)
    (a,) = data["attestations"]
    assert {k: a[k] for k in ("type", "keyid", "valid", "source")} == {
        "type": "reproduction", "keyid": keyid, "valid": True, "source": "note"}
    text = run(runner, store_path, "attestations", RUN_REF)
    assert text.exit_code == 0
    assert "evidence:  source-native" in text.output
    assert f"reproduction {keyid} valid community, from note" in text.output


def test_community_line_counts_signers_and_says_so(runner, record_store, store_path):
    # break95 L3: "community: 2" above three valid community lines, from two signers
    from kistore.attest import notes

    from ..attest.test_attestation_evidence import RUN, bundle

    listed = run(runner, store_path, "attestations", RUN_REF)
    assert listed.output.splitlines()[2] == "community: 0 signers"
    notes.attach(record_store, RUN, bundle(fixed_key(3), "reproduction"))
    listed = run(runner, store_path, "attestations", RUN_REF)
    assert listed.output.splitlines()[2] == "community: 1 signer (of 1 community attestation)"
    notes.attach(record_store, RUN, bundle(fixed_key(3), "note"))
    notes.attach(record_store, RUN, bundle(fixed_key(4), "reproduction"))
    listed = run(runner, store_path, "attestations", RUN_REF)
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert lines[2] == "community: 2 signers (of 3 community attestations)"
    assert sum(" valid community, from note" in line for line in lines[3:]) == 3
    data = json.loads(run(runner, store_path, "attestations", RUN_REF, "--json").output)
    assert data["community"] == 2  # --json: the signers, as documented


def test_trusted_rerun_by_file_then_sync_verifies(runner, record_store, store_path, key_file,
                                                  tmp_path):
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", "rerun",
               "--valid-from", "2026-01-01").exit_code == 0
    predicate = tmp_path / "measured.json"
    predicate.write_text(json.dumps(MEASURED))
    result = run(runner, store_path, "attest", RUN_REF, "--type", "rerun", "--key",
                 str(key_file), "--predicate", str(predicate), "--file", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["source"] == "file" and (store_path / out["location"]).is_file()
    assert out["bundle"]["verificationMaterial"]["publicKey"] == signing.public_key_line(
        fixed_key(1).public_key())
    data = json.loads(run(runner, store_path, "attestations", RUN_REF, "--json").output)
    assert data["evidenceLevel"] == "verified"
    synced = run(runner, store_path, "notes", "sync")
    assert (synced.exit_code, synced.output) == (0, "1 attestation(s) attached, 0 already "
                                                    "present\n")
    data = json.loads(run(runner, store_path, "attestations", RUN_REF, "--json").output)
    (a,) = data["attestations"]  # one bundle, found twice (reviewer r85 F9)
    assert [p["source"] for p in a["places"]] == ["note", "file"]


def test_sync_of_a_file_by_a_key_revoked_since_leaves_it_a_file(runner, record_store,
                                                               store_path, key_file, tmp_path):
    # breaker9: a rerun file accepted while its key was trusted, the key then revoked:
    # `notes sync` attached it as a note, the server refused that note (KI411), and the
    # local notes ref holding it blocked every later `notes push`.
    keyid = signing.keyid(fixed_key(1).public_key())
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", "rerun",
               "--valid-from", "2026-01-01").exit_code == 0
    predicate = tmp_path / "measured.json"
    predicate.write_text(json.dumps(MEASURED))
    assert run(runner, store_path, "attest", RUN_REF, "--type", "rerun", "--key",
               str(key_file), "--predicate", str(predicate), "--file").exit_code == 0
    assert run(runner, store_path, "trust", "revoke", keyid).exit_code == 0
    synced = run(runner, store_path, "notes", "sync")
    assert synced.exit_code == 1
    assert "0 attestation(s) attached, 0 already present" in synced.output
    assert "not attached: a note made now would not count (key " in synced.stderr
    assert "refuses such a note (KI409, KI411)" in " ".join(synced.stderr.split())
    assert subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/notes/kistore"],
                          cwd=store_path, capture_output=True).returncode == 1  # no note


def test_rerun_without_measurement_is_refused_with_the_missing_fields(runner, record_store,
                                                                      store_path, key_file):
    result = run(runner, store_path, "attest", RUN_REF, "--type", "rerun", "--key", str(key_file))
    assert result.exit_code == 1
    assert ("error: --predicate FILE (not given):/environmentDigest: missing required field "
            "'environmentDigest'") in result.stderr
    assert "Traceback" not in result.output


def test_predicate_file_failing_its_schema_names_file_and_pointer(runner, record_store,
                                                                   store_path, key_file,
                                                                   tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({**MEASURED, "timing": {"latencyNs": {"mean": -1},
                                                       "primaryStatistic": "mean"}}))
    result = run(runner, store_path, "attest", RUN_REF, "--type", "rerun", "--key",
                 str(key_file), "--predicate", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {path}:/timing/latencyNs/mean: ")
    assert "-1 is less than the minimum of 1" in result.stderr


def test_predicate_file_names_every_missing_and_wrong_field_at_its_pointer(
        runner, record_store, store_path, key_file, tmp_path):
    """A new user read one missing field at a time; and a missing one had no pointer (the
    object lacking it, the top level: none at all)."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"timing": {"latencyNs": {"mean": -1}}, "outcome": "maybe",
                                "extra": 1}))
    result = run(runner, store_path, "attest", RUN_REF, "--type", "rerun", "--key",
                 str(key_file), "--predicate", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: {path}:/environmentDigest: missing required field 'environmentDigest' "
        "(Digest of the ExecutionEnvironment the measurement ran on): add it",
        f"error: {path}:/extra: unexpected key 'extra' in the top-level object; it allows "
        "only correctness, environmentDigest, observedAt, outcome, text, timing, uri: remove "
        "it or correct its spelling",
        f"error: {path}:/outcome: field 'outcome': expected one of \"reproduced\", "
        "\"not-reproduced\", found \"maybe\"",
        f"error: {path}:/timing/latencyNs/mean: field 'mean': -1 is less than the minimum of 1",
        f"error: {path}:/timing/primaryStatistic: missing required field 'primaryStatistic': "
        "add it",
        "error: 5 problems in all"]


def test_bad_predicate_file_names_file_and_pointer(runner, record_store, store_path, key_file,
                                                   tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text('{"timing": 1, "timing": 2}')
    result = run(runner, store_path, "attest", RUN_REF, "--type", "reproduction", "--key",
                 str(key_file), "--predicate", str(bad))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {bad}:1:")
    assert "duplicate object key 'timing'" in result.stderr


def test_unknown_type_is_a_usage_error(runner, record_store, store_path, key_file):
    result = run(runner, store_path, "attest", RUN_REF, "--type", "praise", "--key",
                 str(key_file))
    assert result.exit_code == 2
    assert "Invalid value for '--type'" in result.stderr


def test_encrypted_key_prompts_for_the_passphrase(runner, record_store, store_path, tmp_path,
                                                 monkeypatch):
    monkeypatch.setattr(attest_cli, "stdin_is_terminal", lambda: True)
    path = tmp_path / "enc"
    path.write_bytes(signing.private_key_bytes(fixed_key(5), b"s3cret"))
    ok = run(runner, store_path, "attest", RUN_REF, "--type", "note", "-m", "hello",
             "--key", str(path), input="s3cret\n")
    assert ok.exit_code == 0, ok.output
    assert "Passphrase for" in ok.stderr
    wrong = run(runner, store_path, "attest", RUN_REF, "--type", "note", "-m", "hello",
                "--key", str(path), input="nope\n")
    assert wrong.exit_code == 1
    assert f"error: {path}: wrong passphrase for the private key" in wrong.stderr


def test_trust_add_list_revoke(runner, store, store_path, key_file):
    keyid = signing.keyid(fixed_key(1).public_key())
    added = run(runner, store_path, "trust", "add", str(key_file), "--role", "rerun",
                "--role", "maintainer", "--valid-until", "2027-01-01")
    assert (added.exit_code, added.output) == (0, f"trusted {keyid} for maintainer, rerun\n")
    listed = run(runner, store_path, "trust", "list")
    assert listed.output == f"{keyid} maintainer,rerun validUntil=2027-01-01T00:00:00Z\n"
    revoked = run(runner, store_path, "trust", "revoke", keyid, "--at", "2026-05-01")
    assert (revoked.exit_code, revoked.output) == (0, f"revoked {keyid} from "
                                                      "2026-05-01T00:00:00Z\n")
    (entry,) = json.loads(run(runner, store_path, "trust", "list", "--json").output)
    assert entry["revokedAt"] == "2026-05-01T00:00:00Z"
    # breaker9: adding a role to the revoked key said "trusted ... for ...": it is not
    again = run(runner, store_path, "trust", "add", str(key_file), "--role", "rerun")
    assert again.exit_code == 0
    assert again.stdout == ""
    assert f"{keyid} now lists maintainer, rerun, but it was revoked at " \
        "2026-05-01T00:00:00Z: nothing it signs from then on counts" in again.stderr
    line = signing.public_key_line(fixed_key(2).public_key())
    assert run(runner, store_path, "trust", "add", line, "--role", "rerun").exit_code == 0
    unknown = run(runner, store_path, "trust", "revoke", "SHA256:nobody")
    assert unknown.exit_code == 1
    assert "no key SHA256:nobody in trust" in unknown.stderr


def test_r92_f11_trust_revoke_takes_the_key_file_trust_add_took(runner, store, store_path,
                                                                 key_file, tmp_path):
    # r92 F11: `trust revoke KEY.pub` said "no key KEY.pub in trust" of a trusted key
    keyid = signing.keyid(fixed_key(1).public_key())
    other = signing.keyid(fixed_key(2).public_key())
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", "maintainer"
               ).exit_code == 0
    both = tmp_path / "both.pub"  # one trusted key, one not: all or none
    both.write_text("".join(signing.public_key_line(fixed_key(i).public_key()) + "\n"
                            for i in (1, 2)))
    refused = run(runner, store_path, "trust", "revoke", str(both))
    assert refused.exit_code == 1 and f"key 2 of 2, {other}, is not in trust" in refused.stderr
    (entry,) = json.loads(run(runner, store_path, "trust", "list", "--json").output)
    assert "revokedAt" not in entry, entry  # nothing written
    revoked = run(runner, store_path, "trust", "revoke", str(key_file), "--at", "2026-05-01")
    assert (revoked.exit_code, revoked.output) == (0, f"revoked {keyid} from "
                                                      "2026-05-01T00:00:00Z\n")
    line = signing.public_key_line(fixed_key(1).public_key())  # the line form, again: earliest kept
    again = run(runner, store_path, "trust", "revoke", line, "--at", "2026-06-01", "--json")
    assert again.exit_code == 0 and json.loads(again.output)["revokedAt"] == \
        "2026-05-01T00:00:00Z"


def test_trust_add_refuses_what_is_not_a_key(runner, store, store_path):
    result = run(runner, store_path, "trust", "add", "ssh-rsa AAAA", "--role", "rerun")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: KEY:1:1: no Ed25519 key to trust: every key line was skipped (an RSA key "
        "(ssh-rsa): kistore trusts only Ed25519 keys (ssh-ed25519); make one with `ssh-keygen "
        "-t ed25519` or `kistore key generate`)\n")


def github_keys_file(tmp_path):
    """What https://github.com/USER.keys serves for a user with five keys: an RSA key first,
    two Ed25519 keys, a security key, an ECDSA key (OpenSSH lines, no comments)."""
    import base64
    import struct

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    def openssh(key) -> str:
        return key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                             serialization.PublicFormat.OpenSSH).decode()

    def ssh_string(data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + data

    raw = signing.raw_public_key(fixed_key(7).public_key())
    security_key = "sk-ssh-ed25519@openssh.com " + base64.b64encode(
        ssh_string(b"sk-ssh-ed25519@openssh.com") + ssh_string(raw) + ssh_string(b"ssh:")
    ).decode()
    lines = [openssh(rsa.generate_private_key(public_exponent=65537, key_size=2048)),
             signing.public_key_line(fixed_key(5).public_key()),
             signing.public_key_line(fixed_key(6).public_key()),
             security_key,
             openssh(ec.generate_private_key(ec.SECP256R1())),
             "",
             "# a comment, as authorized_keys allows",
             "not a key at all",
             signing.public_key_line(fixed_key(5).public_key())]
    path = tmp_path / "octocat.keys"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_trust_add_of_github_keys_trusts_every_ed25519_line_and_names_each_skipped_one(
        runner, store, store_path, tmp_path):
    # Issue 18: a USER.keys file trusted only its first line and said nothing; an RSA line
    # first gave `error: -: not an Ed25519 public key`.
    path = github_keys_file(tmp_path)
    five, six = (signing.keyid(fixed_key(n).public_key()) for n in (5, 6))
    from kistore.attest.sshsig import SshPublicKey

    fido = SshPublicKey.from_text(path.read_text().splitlines()[3]).keyid()  # verifiable now
    added = run(runner, store_path, "trust", "add", str(path), "--role", "rerun")
    assert added.exit_code == 0, added.output
    assert added.stdout == (f"trusted {five} for rerun ({path}:2)\n"
                            f"trusted {six} for rerun ({path}:3)\n"
                            f"trusted {fido} for rerun ({path}:4)\n")
    assert added.stderr.splitlines() == [
        f"warning: {path}:1: skipped: an RSA key (ssh-rsa): kistore trusts only Ed25519 keys "
        "(ssh-ed25519); make one with `ssh-keygen -t ed25519` or `kistore key generate`",
        f"warning: {path}:5: skipped: an ECDSA key (ecdsa-sha2-nistp256): kistore trusts only "
        "Ed25519 keys (ssh-ed25519); make one with `ssh-keygen -t ed25519` or `kistore key "
        "generate`",
        f"warning: {path}:8: skipped: not an OpenSSH public-key line (it starts 'not'); "
        "expected 'ssh-ed25519 AAAA... comment'",
        f"warning: {path}:9: skipped: the same key as line 2"]
    listed = json.loads(run(runner, store_path, "trust", "list", "--json").output)
    assert sorted(k["keyid"] for k in listed) == sorted([five, six, fido])
    again = run(runner, store_path, "trust", "add", "-", "--role", "maintainer", "--json",
                input=path.read_text())  # `curl .../USER.keys | kistore trust add - ...`
    assert again.exit_code == 0, again.output
    data = json.loads(again.stdout)
    assert [(k["keyid"], k["roles"]) for k in data["trusted"]] == [
        (five, ["maintainer", "rerun"]), (six, ["maintainer", "rerun"]),
        (fido, ["maintainer", "rerun"])]
    assert [(s["file"], s["line"]) for s in data["skipped"]] == [
        ("-", 1), ("-", 5), ("-", 8), ("-", 9)]


def test_notes_push_and_fetch_between_clones(runner, record_store, store_path, key_file,
                                             tmp_path):
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(store_path), str(origin)], check=True)
    subprocess.run(["git", "clone", "-q", str(origin), str(tmp_path / "b")], check=True)
    assert run(runner, store_path, "attest", RUN_REF, "--type", "reproduction", "--key",
               str(key_file)).exit_code == 0
    subprocess.run(["git", "remote", "add", "origin", str(origin)], cwd=store_path, check=True)
    pushed = run(runner, store_path, "notes", "push", "origin")
    assert (pushed.exit_code, pushed.output) == (
        0, "pushed refs/notes/kistore to origin, after merging the 0 attestation(s) origin "
        "had that this repository lacked\n")
    fetched = run(runner, tmp_path / "b", "notes", "fetch", "origin", "--json")
    assert fetched.exit_code == 0
    assert json.loads(fetched.output) == {"remote": "origin", "gained": 1, "kept": 0,
                                          "leftOut": 0, "rewritten": None}
    data = json.loads(run(runner, tmp_path / "b", "attestations", RUN_REF, "--json").output)
    assert data["community"] == 1


def test_notes_push_with_nothing_to_send_says_so(runner, record_store, store_path, key_file,
                                                tmp_path):
    # fresh12 F10: a second push said "pushed", and --json "pushed": true
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(store_path), str(origin)], check=True)
    assert run(runner, store_path, "attest", RUN_REF, "--type", "reproduction", "--key",
               str(key_file)).exit_code == 0
    subprocess.run(["git", "remote", "add", "origin", str(origin)], cwd=store_path, check=True)
    assert run(runner, store_path, "notes", "push", "origin").exit_code == 0
    tip = subprocess.run(["git", "rev-parse", "refs/notes/kistore"], cwd=origin, check=True,
                         capture_output=True, text=True).stdout.strip()
    again = run(runner, store_path, "notes", "push", "origin")
    assert (again.exit_code, again.output) == (
        0, "origin already holds refs/notes/kistore as this repository does: nothing pushed\n")
    data = run(runner, store_path, "notes", "push", "origin", "--json")
    assert data.exit_code == 0
    assert json.loads(data.output) == {"remote": "origin", "gained": 0, "kept": 0,
                                       "pushed": False, "redated": [], "effectChanged": [],
                                       "findings": []}
    assert subprocess.run(["git", "rev-parse", "refs/notes/kistore"], cwd=origin, check=True,
                          capture_output=True, text=True).stdout.strip() == tip


def test_notes_fetch_from_unknown_remote_exits_1(runner, record_store, store_path):
    result = run(runner, store_path, "notes", "fetch", "nowhere")
    assert result.exit_code == 1
    # said as kistore's, not git's raw "git fetch nowhere failed" (break96 L4, upd97)
    assert result.stderr == (
        "error: no remote 'nowhere' in this repository (it has no remote): name a remote it "
        "has or a URL (`git remote -v` lists its remotes with their URLs), or add this one "
        "first (`git remote add nowhere URL`)\n")


@pytest.mark.parametrize("args", [["key", "generate"], ["notes", "sync"], ["notes", "fetch"],
                                  ["notes", "push"], ["notes", "restore"], ["notes", "rebase"],
                                  ["trust", "add"], ["trust", "revoke"], ["trust", "list"]])
def test_every_subcommand_help_has_an_example(runner, args):
    result = runner.invoke(main, [*args, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output


def test_key_generate_encrypt_writes_a_passphrase_protected_openssh_key(runner, tmp_path,
                                                                         monkeypatch):
    monkeypatch.setattr(attest_cli, "stdin_is_terminal", lambda: True)
    path = tmp_path / "enc"
    result = runner.invoke(main, ["key", "generate", "--encrypt", str(path)],
                           input="pw-123\npw-123\n")
    assert result.exit_code == 0, result.output
    assert b"OPENSSH PRIVATE KEY" in path.read_bytes()
    with pytest.raises(signing.PassphraseRequired):
        signing.load_private_key(path.read_bytes())
    key = signing.load_private_key(path.read_bytes(), b"pw-123")
    assert signing.keyid(key.public_key()) == result.output.splitlines()[-1]


def test_attestation_commands_keep_heavy_imports_out_of_startup():
    import sys

    code = ("import sys, kistore.cli; "
            "print([m for m in ('pygit2', 'cryptography', 'jsonschema') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_attestations_exits_1_when_it_lists_an_invalid_one(runner, record_store, store_path,
                                                            key_file):
    # Issue 18: `attestations` listed an INVALID attestation and exited 0, so a script
    # reading the exit code took the run's attestations as fine.
    from kistore.attest import notes

    from ..attest.test_attestation_evidence import bundle, tampered

    notes.attach(record_store, record_store.resolve(RUN_REF), tampered(bundle(fixed_key(1))))
    said = (f"error: 1 of 1 attestation(s) about {PUBLISHED['run']} are invalid (INVALID "
            "above, with the reason); they count for nothing\n")
    text = run(runner, store_path, "attestations", RUN_REF)
    assert (text.exit_code, text.stderr) == (1, said)
    # msg95 3: a note line that does not verify is said as verify's KI301 says it
    keyid = signing.keyid(fixed_key(1).public_key())
    hexes = PUBLISHED["run"].removeprefix("sha256:")
    object_path = f"store/objects/sha256/{hexes[:2]}/{hexes[2:]}.json"
    blob = str(pygit2.hash(record_store.view().read(object_path)))
    lines = text.stdout.splitlines()
    assert lines[3:] == [
        f"rerun {keyid} INVALID invalid, from note: refs/notes/kistore:{blob}:1: line 1 of the "
        f"note on {object_path} (rerun by {keyid}) does not verify: signature does not verify over "
        "the payload under the bundled key",
        "  fix: it counts for nothing, and a push of notes holding it, at the tip or in their "
        "history, is refused (KI409): rebuild the notes without it on the remote's, `kistore "
        "notes rebase REMOTE` (REMOTE: where the notes are pushed, such as origin; it keeps "
        "this repository's lines that verify), then `kistore notes push REMOTE`; where the "
        "notes go "
        "to no remote, delete line 1 in the editor `git notes --ref=refs/notes/kistore edit "
        f"{blob}` opens; have its signer attest again with `kistore attest` if it was meant"]
    data = run(runner, store_path, "attestations", RUN_REF, "--json")
    assert (data.exit_code, data.stderr) == (1, said)
    assert json.loads(data.stdout)["attestations"][0]["valid"] is False


def test_attest_with_a_revoked_trusted_key_is_refused_and_writes_nothing(
        runner, record_store, store_path, key_file):
    # review 2026-12-01: it exited 0 without a word, and the attestation then listed as
    # not counted (and the gate refused it, KI411).
    keyid = signing.keyid(fixed_key(1).public_key())
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", "maintainer"
               ).exit_code == 0
    assert run(runner, store_path, "trust", "revoke", keyid).exit_code == 0
    before = sorted(p for p in (store_path / "store").rglob("*"))
    result = run(runner, store_path, "attest", RUN_REF, "--type", "dispute", "-m", "x",
                 "--key", str(key_file), "--file")
    assert result.exit_code == 1, result.output
    assert f"key {keyid} was revoked at " in result.stderr
    assert "the pull-request gate refuses it (KI411)" in result.stderr
    assert sorted(p for p in (store_path / "store").rglob("*")) == before
    assert "Traceback" not in result.output


def test_files_attached_by_notes_sync_are_each_one_attestation_everywhere_people_read(
        runner, record_store, store_path, tmp_path):
    # reviewer r85 F9: after the documented files, commit, `notes sync`, `show` said
    # "attestations: 7" of 4 bundles and listed each file twice (as a note and as a file);
    # the site's run page said "7 attestations"
    import re

    keys = []
    for number in (1, 2, 3):
        path = tmp_path / f"k{number}"
        path.write_bytes(signing.private_key_bytes(fixed_key(number)))
        keys.append(str(path))
    for args in (["--type", "reproduction", "--key", keys[0]],
                 ["--type", "note", "-m", "looks fine", "--key", keys[0]],
                 ["--type", "dispute", "-m", "what is wrong", "--key", keys[1]]):
        assert run(runner, store_path, "attest", RUN_REF, *args, "--file").exit_code == 0
    assert run(runner, store_path, "attest", RUN_REF, "--type", "rerun", "--key", keys[2],
               "--predicate", str(_measured(tmp_path))).exit_code == 0  # a note only
    subprocess.run(["git", "add", "store/attestations"], cwd=store_path, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "dispute"], cwd=store_path, check=True)
    synced = run(runner, store_path, "notes", "sync")
    assert (synced.exit_code, synced.output) == (0, "3 attestation(s) attached, 0 already "
                                                    "present\n")
    shown = run(runner, store_path, "show", RUN_REF)
    assert shown.exit_code == 0, shown.output
    assert "attestations: 4; evidence: source-native" in shown.output
    listed = run(runner, store_path, "attestations", RUN_REF)
    lines = [line for line in listed.output.splitlines() if " valid " in line]
    assert sorted(line.split()[0] + " " + line.split()[5].rstrip(":;") for line in lines) == [
        "dispute note+file", "note note+file", "reproduction note+file", "rerun note"]
    data = json.loads(run(runner, store_path, "attestations", RUN_REF, "--json").output)
    assert data["community"] == 3
    files = sorted(str(p.relative_to(store_path))
                   for p in (store_path / "store/attestations").rglob("*.json"))
    filed = sorted(p["location"] for a in data["attestations"] for p in a["places"]
                   if p["source"] == "file")
    assert filed == files and len(data["attestations"]) == 4
    assert all(a["places"][0]["source"] == "note" for a in data["attestations"])
    site = tmp_path / "site"
    assert run(runner, store_path, "site", "build", str(site)).exit_code == 0
    page = (site / f"runs/{PUBLISHED['run'][7:23]}/index.html").read_text()
    assert "· 4 attestations, 3 community signers." in " ".join(page.split())
    assert len(re.findall(r"<td><code>refs/notes/kistore:", page)) == 4
    assert sum(page.count(f"<code>{f}</code>") for f in files) == 3
    # export keeps a row per place; docs/export.md's count is of distinct bundles
    from ..export.conftest import duck

    out = tmp_path / "out"
    assert run(runner, store_path, "export", str(out)).exit_code == 0
    assert duck(out, "SELECT count(*), count(DISTINCT bundleDigest) FROM {attestations}") == [
        (7, 4)]
    assert duck(out, "SELECT subject, count(DISTINCT bundleDigest) FROM {attestations} "
                     "GROUP BY subject") == [(PUBLISHED["run"], 4)]


def _measured(tmp_path):
    path = tmp_path / "measured.json"
    path.write_text(json.dumps(MEASURED))
    return path


def test_a_withdrawal_by_an_untrusted_key_says_it_withdraws_nothing(runner, record_store,
                                                                      store_path, key_file):
    """Reviewer r86 F22: attest printed success; the run stayed ranked, said only by show."""
    result = run(runner, store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                 "I say so", "--key", str(key_file))
    assert result.exit_code == 0, result.output
    keyid = signing.keyid(fixed_key(1).public_key())
    assert result.stderr == (
        f"warning: this withdrawal does not withdraw the run: it counts as community (key "
        f"{keyid} is not in store/trust/keys.json: a community attestation); `kistore "
        f"attestations {PUBLISHED['run']}` lists it\n")


def test_a_withdrawal_by_a_trusted_maintainer_says_nothing_more(runner, record_store,
                                                               store_path, key_file):
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", "maintainer",
               "--valid-from", "2026-01-01").exit_code == 0
    result = run(runner, store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                 "harness bug", "--key", str(key_file))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


@pytest.mark.parametrize(("type_name", "field"), [("note", "text"), ("dispute", "reason"),
                                                  ("withdrawal", "reason")])
def test_a_note_without_its_text_is_sent_to_m(runner, record_store, store_path, key_file,
                                              type_name, field):
    """Reviewer r86 F1: the error named `--predicate FILE (not given)`, not -m."""
    result = run(runner, store_path, "attest", RUN_REF, "--type", type_name, "--key",
                 str(key_file))
    assert result.exit_code == 1
    assert result.stderr == (f"error: a {type_name} needs its {field}: give -m/--message TEXT "
                             f"(or a --predicate FILE holding \"{field}\")\n")


@pytest.mark.parametrize("as_file", [False, True])
def test_attest_past_the_manifest_bytes_limit_is_refused_and_writes_nothing(
        runner, record_store, store_path, key_file, as_file):
    # last session's note (r91): attest wrote a note line the push gate then refused (KI409)
    settings = store_path / "kistore.toml"
    settings.write_text(settings.read_text().replace("[limits]\n",
                                                     "[limits]\nmanifest-bytes = 2000\n"))
    assert "manifest-bytes = 2000" in settings.read_text()
    before = sorted(p for p in (store_path / "store").rglob("*"))
    result = run(runner, store_path, "attest", RUN_REF, "--type", "note", "-m", "x" * 1500,
                 "--key", str(key_file), *(["--file"] if as_file else []))
    assert result.exit_code == 1, result.output
    size = int(result.stderr.split("a note line of ")[1].split(" bytes")[0].replace(",", ""))
    assert size > 2000  # 1,500 characters of text, base64 in the payload: ~3 KB
    assert result.stderr.startswith(
        f"error: not written: the signed attestation is a note line of {size:,} bytes, more "
        "than the limit of 2,000 bytes (manifest-bytes) an attestation bundle may hold (one "
        "`kistore attest` writes is ~1 KB); the push gate refuses such a note line and such "
        "a file (KI409): shorten -m/--message or the predicate"), result.stderr
    assert sorted(p for p in (store_path / "store").rglob("*")) == before
    assert subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/notes/kistore"],
                          cwd=store_path, capture_output=True).returncode == 1
    small = run(runner, store_path, "attest", RUN_REF, "--type", "note", "-m", "x" * 10,
                "--key", str(key_file), *(["--file"] if as_file else []))
    assert small.exit_code == 0, small.output  # ~1 KB: within the limit


def test_r92b_trust_revoke_says_what_a_key_argument_is_and_what_was_revoked(
        runner, store, store_path, key_file, tmp_path):
    keyid = signing.keyid(fixed_key(1).public_key())
    other = signing.keyid(fixed_key(2).public_key())
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", "maintainer"
               ).exit_code == 0
    trusted = (store_path / "store/trust/keys.json").read_bytes()
    # F1: a path that is not there, or a directory, is no "key not in trust"
    hint = ("; give a keyid (SHA256:..., `kistore trust list` shows them), the .pub file "
            "`trust add` took, an OpenSSH line or - for standard input\n")
    for given, said in ((str(tmp_path / "nonexist.pub"), "no such file"),
                        ("../nonexist", "no such file"), ("k9.pub", "no such file"),
                        (str(tmp_path), "a directory, not a key file")):
        done = run(runner, store_path, "trust", "revoke", given)
        assert (done.exit_code, done.stderr) == (1, f"error: {given}: {said}{hint}"), given
    # F2: an empty KEY is no path: no "`.` for this directory"
    # (r93 F9: blank space alone said "no key   in trust")
    for command, given in (("revoke", ""), ("add", ""), ("revoke", " "), ("add", "\t ")):
        done = run(runner, store_path, "trust", command, given, *(
            ["--role", "rerun"] if command == "add" else []))
        assert done.exit_code == 2 and "for this directory" not in done.output, done.output
        keyid_said = "a keyid (SHA256:...), " if command == "revoke" else ""
        what = "is empty" if given == "" else "is blank space alone"
        assert (f"{what}: give {keyid_said}a .pub file, an OpenSSH line ('ssh-ed25519 "
                "AAAA...') or - for standard input") in done.output, done.output
    # F3: all or none, said: the key not trusted by its line, nothing revoked, the other kept
    both = tmp_path / "both.pub"
    both.write_text("".join(signing.public_key_line(fixed_key(i).public_key()) + f" k{i}\n"
                            for i in (1, 2)))
    refused = run(runner, store_path, "trust", "revoke", str(both))
    assert (refused.exit_code, refused.stderr) == (1, (
        f"error: {both}:2 (k2): key 2 of 2, {other}, is not in trust (store/trust/keys.json); "
        f"nothing was revoked (all or none): {keyid} ({both}:1 (k1)) left trusted as before; "
        "revoke it by keyid; `kistore trust list` shows the keys\n"))
    assert (store_path / "store/trust/keys.json").read_bytes() == trusted
    # F4: an RSA line beside the key is named, as `trust add` names it
    mixed = tmp_path / "k1r1.pub"
    mixed.write_text(signing.public_key_line(fixed_key(1).public_key()) + "\n"
                     "ssh-rsa AAAAB3NzaC1yc2E r1\n")
    revoked = run(runner, store_path, "trust", "revoke", str(mixed), "--at", "2026-05-01")
    assert (revoked.exit_code, revoked.stdout) == (0, f"revoked {keyid} from "
                                                      "2026-05-01T00:00:00Z\n")
    assert revoked.stderr.startswith(f"warning: {mixed}:2: skipped: an RSA key (ssh-rsa): "
                                     "kistore trusts only Ed25519 keys"), revoked.stderr


# F4 (fresh-user review msg94): without a terminal a passphrase prompt printed Python's
# GetPassWarning, echoed the pipe, and ended in click's bare "Aborted!" (exit 1).
NO_TERMINAL_SIGN = ("the private key is encrypted and its passphrase is asked on a terminal, "
                    "and standard input is not one: set KISTORE_KEY_PASSPHRASE to the "
                    "passphrase (in CI, from a secret)")


def test_an_encrypted_key_without_a_terminal_says_to_set_the_variable(
        runner, record_store, store_path, tmp_path, monkeypatch):
    monkeypatch.delenv("KISTORE_KEY_PASSPHRASE", raising=False)
    path = tmp_path / "enc"
    path.write_bytes(signing.private_key_bytes(fixed_key(5), b"s3cret"))
    refused = run(runner, store_path, "attest", RUN_REF, "--type", "note", "-m", "hello",
                  "--key", str(path), input="s3cret\n")  # a pipe is not a terminal
    assert refused.exit_code == 1
    assert refused.stderr == f"error: {path}: {NO_TERMINAL_SIGN}\n"
    assert refused.stdout == ""
    monkeypatch.setenv("KISTORE_KEY_PASSPHRASE", "s3cret")
    ok = run(runner, store_path, "attest", RUN_REF, "--type", "note", "-m", "hello",
             "--key", str(path))
    assert ok.exit_code == 0, ok.output
    assert "Passphrase" not in ok.stderr


def test_an_encrypted_key_under_dev_null_is_one_error_in_a_real_process(
        record_store, store_path, tmp_path):
    # The real streams: getpass's GetPassWarning and click's "Aborted!" came from them.
    import sys

    path = tmp_path / "enc"
    path.write_bytes(signing.private_key_bytes(fixed_key(5), b"s3cret"))
    env = {k: v for k, v in os.environ.items() if k != "KISTORE_KEY_PASSPHRASE"}
    with open(os.devnull, "rb") as devnull:
        done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(store_path),
                               "attest", RUN_REF, "--type", "note", "-m", "hello", "--key",
                               str(path)], stdin=devnull, capture_output=True, text=True,
                              env=env)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", f"error: {path}: {NO_TERMINAL_SIGN}\n")


def test_key_generate_encrypt_takes_the_passphrase_variable(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE_KEY_PASSPHRASE", "pw-env")
    path = tmp_path / "enc"
    result = runner.invoke(main, ["key", "generate", "--encrypt", str(path)])
    assert result.exit_code == 0, result.output
    assert "Passphrase" not in result.stderr
    with pytest.raises(signing.PassphraseRequired):
        signing.load_private_key(path.read_bytes())
    key = signing.load_private_key(path.read_bytes(), b"pw-env")
    assert signing.keyid(key.public_key()) == result.output.splitlines()[-1]


def test_key_generate_encrypt_without_a_terminal_or_variable_writes_nothing(
        runner, tmp_path, monkeypatch):
    monkeypatch.delenv("KISTORE_KEY_PASSPHRASE", raising=False)
    path = tmp_path / "enc"
    result = runner.invoke(main, ["key", "generate", "--encrypt", str(path)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {path}: --encrypt asks for the new key's passphrase on a terminal, and "
        "standard input is not one: set KISTORE_KEY_PASSPHRASE to the passphrase (in CI, "
        "from a secret); nothing was written\n")
    assert not path.exists() and not path.with_suffix(".pub").exists()
    monkeypatch.setenv("KISTORE_KEY_PASSPHRASE", "")
    empty = runner.invoke(main, ["key", "generate", "--encrypt", str(path)])
    assert empty.exit_code == 1
    assert "KISTORE_KEY_PASSPHRASE is set but empty" in empty.stderr
    assert not path.exists()


# break94 #3, #4: CI gives an empty value for a secret it cannot provide (a pull request
# from a fork); `attest` said "cannot read the private key (... password was not
# provided.)" and advised making a new key. A wrong value was told "type it again".
def _encrypted_keys(tmp_path):
    from cryptography.hazmat.primitives import serialization

    openssh = tmp_path / "enc"
    openssh.write_bytes(signing.private_key_bytes(fixed_key(5), b"s3cret"))
    pem = tmp_path / "enc.pem"
    pem.write_bytes(fixed_key(6).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"s3cret")))
    return openssh, pem


def test_an_empty_passphrase_variable_says_so_not_make_a_key(
        runner, record_store, store_path, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE_KEY_PASSPHRASE", "")
    before = run(runner, store_path, "attestations", RUN_REF).stdout
    for path in _encrypted_keys(tmp_path):
        refused = run(runner, store_path, "attest", RUN_REF, "--type", "note", "-m", "hello",
                      "--key", str(path))
        assert (refused.exit_code, refused.stdout) == (1, "")
        assert refused.stderr == (
            f"error: {path}: KISTORE_KEY_PASSPHRASE is set but empty (what CI gives for a "
            "secret it cannot provide, as in a pull request from a fork): set it to the "
            "passphrase of this key; nothing was written\n")
    assert run(runner, store_path, "attestations", RUN_REF).stdout == before  # no note


def test_a_wrong_passphrase_variable_names_the_variable(
        runner, record_store, store_path, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE_KEY_PASSPHRASE", "not-it")
    for path in _encrypted_keys(tmp_path):
        refused = run(runner, store_path, "attest", RUN_REF, "--type", "note", "-m", "hello",
                      "--key", str(path))
        assert refused.exit_code == 1
        assert refused.stderr == (
            f"error: {path}: wrong passphrase for the private key: the value of "
            "KISTORE_KEY_PASSPHRASE is not its passphrase; set the variable to the right one "
            "(in CI, the secret's value)\n")
        assert "type it" not in refused.stderr and "not-it" not in refused.stderr


def test_key_generate_without_encrypt_warns_when_the_variable_is_set(
        runner, tmp_path, monkeypatch):
    """Warned, not obeyed: the flag decides (docs/attestations.md says why)."""
    monkeypatch.setenv("KISTORE_KEY_PASSPHRASE", "pw-env")
    path = tmp_path / "plain"
    result = runner.invoke(main, ["key", "generate", "--json", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "warning: KISTORE_KEY_PASSPHRASE is set, but the key is written without a passphrase: "
        "give --encrypt to protect it with the variable's (the variable alone encrypts "
        "nothing)\n")
    assert "pw-env" not in result.output
    signing.load_private_key(path.read_bytes())  # unencrypted, as without the variable
    monkeypatch.delenv("KISTORE_KEY_PASSPHRASE")
    quiet = runner.invoke(main, ["key", "generate", str(tmp_path / "other")])
    assert (quiet.exit_code, quiet.stderr) == (0, "")


def _trusted_committed(runner, store_path, key_file, role):
    """Trust ``key_file`` for ``role`` from 2026-01-01, committed (as a merged trust PR)."""
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", role,
               "--valid-from", "2026-01-01").exit_code == 0
    subprocess.run(["git", "add", "store/trust"], cwd=store_path, check=True)
    subprocess.run(["git", "commit", "-qm", "trust"], cwd=store_path, check=True)


def _notes_and_files(store_path):
    """What attest may write: the notes ref's tip and the attestation files."""
    tip = subprocess.run(["git", "for-each-ref", "refs/notes"], cwd=store_path, check=True,
                         capture_output=True, text=True).stdout
    return tip, sorted((store_path / "store").rglob("attestations/**/*.json"))


@pytest.mark.parametrize(("type_name", "role", "has", "other", "says"), [
    ("withdrawal", "maintainer", "rerun", "dispute", "-m WHY"),
    ("rerun", "rerun", "maintainer", "reproduction", "--predicate FILE")])
@pytest.mark.parametrize("where", [[], ["--file"]])
def test_fresh98_a_role_the_trusted_key_lacks_is_refused_and_nothing_written(
        runner, record_store, store_path, key_file, tmp_path, type_name, role, has, other,
        says, where):
    # fresh98 LOW: written, exit 0 and a warning; then listed INVALID not-counted, verify
    # failed (KI302) and `notes push` refused every attestation (KI411)
    _trusted_committed(runner, store_path, key_file, has)
    before = _notes_and_files(store_path)
    given = ["-m", "harness bug"] if type_name == "withdrawal" else [
        "--predicate", str(_measured(tmp_path))]
    result = run(runner, store_path, "attest", RUN_REF, "--type", type_name, *given,
                 "--key", str(key_file), *where)
    assert result.exit_code == 1, result.output
    keyid = signing.keyid(fixed_key(1).public_key())
    line = signing.public_key_line(fixed_key(1).public_key())
    assert result.stderr == (
        f"error: the {type_name} about {RUN_REF} was not written: a {type_name} counts only "
        f"when signed by a key store/trust/keys.json trusts for {role}, and key {keyid} is "
        f"trusted for {has}, not {role}; "
        "written, it would be listed as not counted (KI302: `kistore verify` fails on it) "
        "and the push gate refuses it (KI411). Sign it with a key store/trust/keys.json "
        f"trusts for {role} (`kistore trust list`); to have this key trusted for {role} "
        f"too: `kistore trust add '{line}' --role {role}` in a reviewed pull request of its "
        f"own, then attest; or say it as a {other}, which any key may sign and which counts "
        f"as community: `kistore attest {RUN_REF} --type {other} {says} --key KEY`\n")
    assert _notes_and_files(store_path) == before
    assert "Traceback" not in result.output


def test_fresh98_the_same_withdrawal_by_a_key_not_in_trust_is_written_as_community(
        runner, record_store, store_path, key_file, tmp_path):
    # both halves of the model: the key trusted for rerun alone is refused; a key the
    # trust file does not list signs a community attestation, which counts as one
    # (listed valid, verify passes), and is written
    stranger = tmp_path / "stranger"
    stranger.write_bytes(signing.private_key_bytes(fixed_key(3)))
    _trusted_committed(runner, store_path, key_file, "rerun")
    refused = run(runner, store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                  "harness bug", "--key", str(key_file))
    assert refused.exit_code == 1 and "was not written: a withdrawal counts only" in refused.stderr
    result = run(runner, store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                 "harness bug", "--key", str(stranger))
    assert result.exit_code == 0, result.output
    keyid = signing.keyid(fixed_key(3).public_key())
    assert "it counts as community (key " in result.stderr
    listed = run(runner, store_path, "attestations", RUN_REF)
    assert listed.exit_code == 0, listed.output
    assert (f"withdrawal {keyid} valid community, from note: key {keyid} is not in "
            "store/trust/keys.json: a community attestation; reason: harness bug"
            ) in listed.stdout, listed.stdout
    verified = run(runner, store_path, "verify")
    assert "KI302" not in verified.output and "KI301" not in verified.output


def test_fresh98_a_file_renamed_off_its_hash_lists_its_type_key_and_the_mv_back(
        runner, record_store, store_path, key_file):
    # it listed `? ? INVALID invalid, from file: the file is not the canonical bundle its
    # name says`: the bundle parses, and says what it is
    import shlex

    assert run(runner, store_path, "attest", RUN_REF, "--type", "dispute", "-m", "timer",
               "--key", str(key_file), "--file").exit_code == 0
    (own,) = (store_path / "store/attestations").rglob("*.json")
    moved = own.with_name("0" * 64 + ".json")
    own.rename(moved)
    keyid = signing.keyid(fixed_key(1).public_key())
    rel_own, rel_moved = (str(p.relative_to(store_path)) for p in (own, moved))
    listed = run(runner, store_path, "attestations", RUN_REF)
    assert listed.exit_code == 1
    assert (f"dispute {keyid} INVALID invalid, from file: sha256 of the file is not its "
            "name: a bundle that verifies, named as another's (renamed); rename it back with "
            f"`mv {rel_moved} {rel_own}` (KI305)\n") in listed.stdout, \
        listed.stdout
    data = json.loads(run(runner, store_path, "attestations", RUN_REF, "--json").stdout)
    (judged,) = data["attestations"]
    assert (judged["type"], judged["keyid"], judged["valid"]) == ("dispute", keyid, False)
    command = listed.stdout.split("rename it back with `")[1].split("`")[0]
    subprocess.run(shlex.split(command), cwd=store_path, check=True)  # as printed
    again = run(runner, store_path, "attestations", RUN_REF)
    assert again.exit_code == 0 and f"dispute {keyid} valid community" in again.stdout


def test_fresh98_an_attestation_file_changed_lists_what_it_claims_and_why(
        runner, record_store, store_path, key_file):
    assert run(runner, store_path, "attest", RUN_REF, "--type", "dispute", "-m", "timer",
               "--key", str(key_file), "--file").exit_code == 0
    (path,) = (store_path / "store/attestations").rglob("*.json")
    data = path.read_bytes()
    sig = data.index(b'"sig":"') + len(b'"sig":"') + 10
    changed = data[:sig] + (b"B" if data[sig:sig + 1] != b"B" else b"C") + data[sig + 1:]
    path.write_bytes(changed)
    keyid = signing.keyid(fixed_key(1).public_key())
    listed = run(runner, store_path, "attestations", RUN_REF)
    assert listed.exit_code == 1
    digest = hashlib.sha256(changed).hexdigest()
    assert (f"dispute {keyid} INVALID invalid, from file: the file's bytes changed after it "
            f"was written (tampered or corrupt): their sha256 is {digest[:12]}..., not its "
            "name; `kistore verify` says how to restore it (KI305)\n") in listed.stdout, \
        listed.stdout
