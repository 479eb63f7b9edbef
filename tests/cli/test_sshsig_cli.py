"""Signing with the SSH key in ssh-agent (--key KEY.pub), and checking it without kistore.

The acceptance test of issue #21: the private key only in a running ssh-agent (its file
removed), `kistore attest --key KEY.pub` signs, `kistore verify` and
scripts/verify-store.sh pass, the commands of docs/attestations.md make `ssh-keygen -Y
verify` accept it, and one changed payload byte makes all three fail.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.attest import notes, sshsig
from kistore.cli import main
from kistore.git.pack import blob_id

from ..conftest import ROOT, commit_all, git
from ..sshsig_kit import (
    Small,
    flip_payload_byte,
    needs_ssh_keygen,
    replace_note,
    script,
    sk_key,
    ssh_agent,
)

pytestmark = needs_ssh_keygen
DOC = ROOT / "docs" / "attestations.md"
DOC_OBJECT = ("store/objects/sha256/38/"
              "4a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6.json")


@pytest.fixture
def small(store, kit) -> Small:
    return Small(store, kit)


@pytest.fixture
def agent_key(tmp_path):
    """An OpenSSH key whose private half is only in a private ssh-agent (the file is gone)."""
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f",
                    str(key)], check=True, timeout=60)
    with ssh_agent(tmp_path) as env:
        subprocess.run(["ssh-add", "-q", str(key)], env=env, check=True, timeout=60,
                       capture_output=True)
        key.unlink()
        yield key.with_suffix(".pub"), {"SSH_AUTH_SOCK": env["SSH_AUTH_SOCK"]}


def kistore(runner, small: Small, *args: str, env: dict | None = None):
    return runner.invoke(main, ["--store", str(small.path), *args], env=env)


def documented_commands() -> str:
    """The shell block of docs/attestations.md that checks one attestation with ssh-keygen."""
    text = DOC.read_text()
    match = re.search(r"<!-- verify-with-ssh-keygen:[^>]*-->\n```sh\n(.*?)```", text, re.S)
    assert match, "docs/attestations.md lost its ssh-keygen block"
    return match.group(1)


def run_documented_commands(small: Small, work: Path) -> subprocess.CompletedProcess:
    commands = documented_commands().replace(DOC_OBJECT, small.object_path(small.run))
    work.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    commands = commands.replace("allowed_signers", str(work / "allowed_signers"))
    for name in ("bundle.json", "payload", "pae", "sig"):
        commands = re.sub(rf"(?<![\w./-]){re.escape(name)}(?![\w.-])", str(work / name), commands)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=small.path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_attest_with_the_key_only_in_ssh_agent_verifies_everywhere(small, runner, agent_key,
                                                                    tmp_path):
    public, env = agent_key
    key = sshsig.SshPublicKey.from_text(public.read_text())
    result = kistore(runner, small, "attest", str(small.run), "--type", "reproduction",
                     "--key", str(public), env=env)
    blob = blob_id(small.store.view("HEAD").object_bytes(small.run)).hex()
    assert result.exit_code == 0, result.output
    assert result.stdout == (f"reproduction by {key.keyid()} about {small.run}: "
                             f"refs/notes/kistore:{blob}\n")
    (line,) = notes.note_lines(small.store.repo, blob)
    assert json.loads(line)["dsseEnvelope"]["signatures"][0]["sig"].startswith("U1NIU0lH")

    verified = kistore(runner, small, "verify")
    assert verified.exit_code == 0, verified.output
    assert (f"info KI306 attestation-community: reproduction by {key.keyid()} (note)"
            in verified.output)
    code, output = script(small.path)
    assert code == 0 and "1 SSHSIG checked with ssh-keygen" in output, output

    trusted = kistore(runner, small, "trust", "add", str(public), "--role", "rerun")
    assert trusted.exit_code == 0, trusted.output
    commit_all(small.path, "trust")
    checked = run_documented_commands(small, tmp_path / "doc")
    assert checked.returncode == 0, checked.stderr
    assert (f'Good "kernelindex-attestation" signature for {key.keyid()} with ED25519 key '
            f"{key.keyid()}") in checked.stdout + checked.stderr
    pae = (tmp_path / "doc" / "pae").read_bytes()
    assert pae.startswith(b"DSSEv1 28 application/vnd.in-toto+json ")
    by_role = subprocess.run(
        ["ssh-keygen", "-Y", "verify", "-f", str(tmp_path / "doc" / "allowed_signers"), "-I",
         "rerun", "-n", "kernelindex-attestation", "-s", str(tmp_path / "doc" / "sig")],
        input=pae, capture_output=True, timeout=60)
    assert by_role.returncode == 0, by_role.stderr

    # One payload byte changed: kistore, the script and the documented commands all refuse.
    replace_note(small, small.run, [flip_payload_byte(line)])
    refused = kistore(runner, small, "verify")
    assert refused.exit_code == 1
    assert (f"error KI301 attestation-invalid: line 1 of the note on "
            f"{small.object_path(small.run)} (reproduction by {key.keyid()}) does not verify: "
            "SSHSIG signature does not verify over these bytes under the bundled key"
            in refused.output)
    code, output = script(small.path)
    assert code == 1 and "ssh-keygen -Y verify refuses the signature" in output, output
    assert run_documented_commands(small, tmp_path / "doc").returncode != 0


def test_attest_with_a_public_key_and_no_agent_fails_and_stores_nothing(small, runner,
                                                                        agent_key):
    public, _ = agent_key
    result = kistore(runner, small, "attest", str(small.run), "--type", "reproduction",
                     "--key", str(public), env={"SSH_AUTH_SOCK": None})
    assert (result.exit_code, result.stderr) == (1, (
        f"error: {public}: ssh-keygen -Y sign could not sign (exit 255): no ssh-agent is "
        "reachable (SSH_AUTH_SOCK is not set); nor is there a private key file "
        f"{str(public)[:-4]} beside it; start one and add the key: `eval \"$(ssh-agent -s)\"`, "
        "then `ssh-add PRIVATE_KEY_FILE` (wherever the private key is), and run the command "
        "again; or give the private key file to --key (ssh-keygen said: No private key found "
        f"for public key \"{public}\")\n"))
    assert git(small.path, "for-each-ref", "refs/notes") == ""


@pytest.mark.parametrize("agent", ["none", "gone", "without"])
def test_a_key_not_in_the_agent_says_so_not_incorrect_passphrase(small, runner, tmp_path,
                                                                 agent):
    """msg95 5: the private key beside KEY.pub is encrypted (as a key kept in an agent is),
    the agent lacks it: ssh-keygen's "incorrect passphrase" was all that was said, though
    no passphrase was asked of anyone."""
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "pw", "-C", "alice", "-f",
                    str(key)], check=True, timeout=60)
    public = key.with_suffix(".pub")
    with ssh_agent(tmp_path) as env:  # running, holding no key
        sock = {"none": None, "gone": str(tmp_path / "gone.sock"),
                "without": env["SSH_AUTH_SOCK"]}[agent]
        # no controlling terminal, as in CI: on one, ssh-keygen would ask the passphrase
        result = subprocess.run(
            [sys.executable, "-P", "-m", "kistore", "--store", str(small.path), "attest",
             str(small.run), "--type", "reproduction", "--key", str(public)],
            env={k: v for k, v in {**os.environ, "PYTHONPATH": str(ROOT),
                                   "SSH_AUTH_SOCK": sock}.items() if v is not None},
            capture_output=True, text=True, timeout=120, start_new_session=True)
    lacks, start = {
        "none": ("no ssh-agent is reachable (SSH_AUTH_SOCK is not set)", True),
        "gone": (f"no ssh-agent answers at SSH_AUTH_SOCK={sock}", True),
        "without": (f"ssh-agent (SSH_AUTH_SOCK={sock}) does not hold this key", False)}[agent]
    assert (result.returncode, result.stderr) == (1, (
        f"error: {public}: ssh-keygen -Y sign could not sign (exit 255): {lacks}; ssh-keygen "
        f"then read the private key file {key}, which is encrypted, with no terminal to ask "
        "its passphrase on (its \"incorrect passphrase\": none was typed); "
        + ("start one and add the key: `eval \"$(ssh-agent -s)\"`, then " if start
           else "add the key: ")
        + f"`ssh-add {key}` (it asks the passphrase once), and run the command again; or give "
        "the private key file to --key (ssh-keygen said: Enter passphrase: Load key "
        f"\"{key}\": incorrect passphrase supplied to decrypt private key)\n"))
    assert git(small.path, "for-each-ref", "refs/notes") == ""


def test_attest_with_a_security_key_says_to_touch_it(small, runner, tmp_path):
    from ..conftest import fixed_key

    public = tmp_path / "id_ed25519_sk.pub"
    key = sk_key(fixed_key(4))
    public.write_text(key.line() + " yubikey\n")
    result = kistore(runner, small, "attest", str(small.run), "--type", "reproduction",
                     "--key", str(public), env={"SSH_AUTH_SOCK": None})
    assert result.exit_code == 1  # no such security key here
    assert result.stderr.startswith(
        f"signing with ssh-keygen -Y sign and the security key of {key.keyid()}: touch it if "
        "it blinks\nerror: ")


def test_attest_with_a_private_key_file_still_signs_raw_ed25519(small, runner, tmp_path):
    from kistore.attest import signing

    from ..conftest import fixed_key

    path = tmp_path / "k"
    path.write_bytes(signing.private_key_bytes(fixed_key(1)))
    result = kistore(runner, small, "attest", str(small.run), "--type", "reproduction",
                     "--key", str(path), "--json")
    assert result.exit_code == 0, result.output
    sig = json.loads(result.stdout)["bundle"]["dsseEnvelope"]["signatures"][0]["sig"]
    assert len(__import__("base64").b64decode(sig)) == 64


def test_trust_export_writes_allowed_signers(small, runner, tmp_path):
    from ..conftest import fixed_key

    key = sk_key(fixed_key(4))
    assert kistore(runner, small, "trust", "add", key.line(), "--role", "rerun",
                   "--comment", "yubikey").exit_code == 0
    out = tmp_path / "allowed_signers"
    result = kistore(runner, small, "trust", "export", "--allowed-signers", str(out))
    assert (result.exit_code, result.stderr) == (0, f"wrote 1 key(s) to {out}\n")
    assert out.read_text().endswith(
        f"# {key.keyid()}: yubikey\n{key.keyid()},rerun "
        f'namespaces="kernelindex-attestation" {key.line()}\n')
    printed = kistore(runner, small, "trust", "export", "--allowed-signers", "-")
    assert (printed.exit_code, printed.stdout) == (0, out.read_text())


def test_trust_export_to_an_unwritable_place_fails(small, runner, tmp_path):
    target = tmp_path / "no-such-dir" / "allowed_signers"
    result = kistore(runner, small, "trust", "export", "--allowed-signers", str(target))
    assert result.exit_code == 1
    assert result.stderr == f"error: {target}: cannot write: No such file or directory\n"
