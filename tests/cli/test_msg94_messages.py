"""A fresh user's findings on errors and messages (review msg94), each pinned as it now is."""

from __future__ import annotations

import pytest

from kistore.cli import main


def run(runner, store_path, *args, input=None):
    return runner.invoke(main, ["--store", str(store_path), *args], input=input)


def test_a_jsonl_syntax_error_names_its_line_and_column(runner, store_path, tmp_path):
    # msg94 F9 (second half): found already said on main; pinned so it stays said
    bad = tmp_path / "runs.jsonl"
    bad.write_text('{"apiVersion": "kernelindex.dev/v1alpha1"}\n{"kind": 1,,}\n')
    result = run(runner, store_path, "add", str(bad))
    assert result.exit_code == 1
    assert f"error: {bad}:2:12: expected a string object key: write the key in double " \
           "quotes\n" in result.stderr
    assert "nothing was added" in result.stderr and "Traceback" not in result.output


def test_site_builds_hint_quotes_a_path_with_a_space(runner, record_store, store_path,
                                                      tmp_path):
    # msg94 F6: `kistore site serve /tmp/my site` was printed, which serves /tmp/my
    out = tmp_path / "my site"
    result = run(runner, store_path, "site", "build", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        f"open {(out / 'index.html').resolve().as_uri()} or run `kistore site serve "
        f"'{out}'`")
    assert "%20" in result.stdout  # the URI, already quoted its own way


def _rsa_pem() -> bytes:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


ATTEST = ["attest", "BenchmarkRun/sol-submission-20464", "--type", "note", "-m", "x"]
"""An attestation the tests below ask for, with a key or predicate that cannot serve."""


@pytest.mark.parametrize(("name", "pem", "said"), [
    ("rsa", True, "the key is RSA, expected Ed25519 (attestations are signed with Ed25519 "
     "only): make one with `kistore key generate PATH` or `ssh-keygen -t ed25519`"),
    ("no-such-key", False, "cannot read the key: No such file or directory; give the path of "
     "your private key file, or of a public key KEY.pub whose private half is in ssh-agent "
     "(`kistore key generate PATH` makes a key)")])
def test_a_key_that_cannot_sign_says_what_to_do(runner, record_store, store_path, tmp_path,
                                                name, pem, said):
    # msg94 F2/F5: two of the CLI's worst five errors with no fix (an RSA key, none there)
    key = tmp_path / name
    if pem:
        key.write_bytes(_rsa_pem())
    result = run(runner, store_path, *ATTEST, "--key", str(key))
    assert (result.exit_code, result.stderr) == (1, f"error: {key}: {said}\n")


def test_a_predicate_not_an_object_says_what_to_do(runner, record_store, store_path,
                                                    tmp_path):
    # msg94 F2/F5: another of the worst five
    key = tmp_path / "k"
    runner.invoke(main, ["key", "generate", str(key)])
    predicate = tmp_path / "p.json"
    predicate.write_text("[1]")
    listed = run(runner, store_path, *ATTEST, "--key", str(key), "--predicate", str(predicate))
    assert (listed.exit_code, listed.stderr) == (1, (
        f"error: {predicate}: the predicate must be a JSON object of the predicate's fields "
        '(`{"outcome": "reproduced", "timing": ...}`: schemas/predicate-TYPE.json, '
        "docs/attestations.md)\n"))


def test_a_wrong_passphrase_says_what_to_do(tmp_path):
    from kistore.attest import signing

    from ..conftest import fixed_key

    data = signing.private_key_bytes(fixed_key(3), b"right")
    with pytest.raises(signing.PassphraseRequired) as caught:
        signing.load_private_key(data, b"wrong", file="k")
    assert caught.value.format() == ("k: wrong passphrase for the private key: type it "
                                     "again, or set KISTORE_KEY_PASSPHRASE to the right one")


def test_trust_add_in_a_bare_repository_says_where_to_run_it(runner, record_store, store_path,
                                                             tmp_path):
    import subprocess

    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(store_path), str(bare)], check=True)
    key = tmp_path / "k"
    runner.invoke(main, ["key", "generate", str(key)])
    result = runner.invoke(main, ["--store", str(bare), "trust", "add", f"{key}.pub",
                                  "--role", "rerun"])
    assert (result.exit_code, result.stderr) == (1, (
        "error: this repository has no work tree (a bare repository), and the trust file is "
        "changed in one: run it in a clone (`git clone REPO`), then commit "
        "store/trust/keys.json and open a pull request\n"))


def test_a_did_you_mean_offers_only_a_name_a_manifest_can_hold(runner, record_store,
                                                               store_path):
    # msg94 F1: `show benchmarkrun/Café` said "did you mean BenchmarkRun/Café?", which is
    # then refused for its name
    from kistore.core import layout
    from kistore.core.schema import NAME_RULE

    said = {ref: run(runner, store_path, "show", ref).stderr for ref in (
        "benchmarkrun/Café", "benchmarkrun/東京", "benchmarkrun/sol-submissión-20464")}
    for ref in ("benchmarkrun/Café", "benchmarkrun/東京"):
        name = ref.partition("/")[2]
        assert said[ref] == (
            f"error: {ref!r} is not a reference: 'benchmarkrun' is not a kind; did you mean "
            f"BenchmarkRun? ({name!r} is no valid name either, and no stored name is near it: "
            f"{NAME_RULE})\n")
    assert said["benchmarkrun/sol-submissión-20464"].endswith(
        "did you mean BenchmarkRun/sol-submission-20464?\n")  # the stored one it meant
    for text in said.values():
        offered = text.rpartition("did you mean ")[2].split("?")[0]
        kind, _, name = offered.partition("/")
        assert kind == "BenchmarkRun" and (not name or layout.is_name(name))
    valid = run(runner, store_path, "show", "benchmarkrun/cafe")  # a valid name: offered
    assert valid.stderr.endswith("did you mean BenchmarkRun/cafe?\n")
