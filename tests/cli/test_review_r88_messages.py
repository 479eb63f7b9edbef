"""Review r88: messages that named the wrong cause or no fix, now saying what to do."""

from __future__ import annotations

import pytest

from kistore.cli import main

from .test_cli_names import add_fast_and_slow


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


@pytest.mark.parametrize(("ref", "said"), [
    # F9: names are lowercase; the capitals were compared as written and matched nothing
    ("BenchmarkRun/FAST", "no BenchmarkRun named 'FAST' in the work tree; names are lowercase; "
                          "did you mean BenchmarkRun/fast?"),
    # F9: a kind in lowercase was "not a reference" with no word of the kind meant
    ("benchmarkrun/fast", "'benchmarkrun/fast' is not a reference: 'benchmarkrun' is not a "
                          "kind; did you mean BenchmarkRun/fast?"),
])
@pytest.mark.parametrize("command", ["show", "rank"])
def test_a_reference_in_the_wrong_case_gets_the_spelling_meant(runner, store, kit, command,
                                                               ref, said):
    add_fast_and_slow(store, kit)
    result = run(runner, store.root, command, ref)
    assert (result.exit_code, result.stderr) == (1, f"error: {said}\n")


def test_trust_add_of_a_file_with_no_key_is_one_error_not_one_a_line(runner, store, tmp_path):
    """F11: `trust add /etc/passwd` printed "no Ed25519 key to trust" once per line."""
    passwd = tmp_path / "passwd"
    passwd.write_text("".join(f"user{i}:x:{1000 + i}:{1000 + i}::/home/u:/bin/sh\n"
                              for i in range(5)) + "ssh-rsa AAAA\n")
    result = run(runner, store.root, "trust", "add", str(passwd), "--role", "rerun")
    assert result.exit_code == 1
    [error] = result.stderr.splitlines()
    assert error.startswith(f"error: {passwd}: no Ed25519 key to trust: none of its 6 lines "
                            "holds one (line 1: not an OpenSSH public-key line (it starts "
                            "'user0:x:1000:1000::/home/u:/bin/sh'); ")
    assert "; line 3: not an OpenSSH public-key line (it starts 'user2:x:" in error
    assert "line 4" not in error
    assert error.endswith("; and 3 more lines); give an OpenSSH Ed25519 public key (a line "
                          "`ssh-ed25519 AAAA...`, such as ~/.ssh/id_ed25519.pub or `kistore key "
                          "generate`'s .pub file)")
    assert error.endswith("; give an OpenSSH Ed25519 public key (a line `ssh-ed25519 AAAA...`, "
                          "such as ~/.ssh/id_ed25519.pub or `kistore key generate`'s .pub file)")
    assert not (store.root / "store/trust/keys.json").exists() or \
        "user" not in (store.root / "store/trust/keys.json").read_text()
