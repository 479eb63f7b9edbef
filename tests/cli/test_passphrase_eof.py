"""End of input (Ctrl-D) at a real passphrase prompt (msg95 2): one line naming what was
asked and how to give it without a terminal, exit 2 as a usage error; it was click's bare
"Aborted!", exit 1. Ctrl-C there stays "interrupted", 130.

Run on a pseudo-terminal (:mod:`pty`): the prompt reads ``/dev/tty`` (getpass), as it
does for a person, so no monkeypatched ``isatty`` stands in for it.
"""

from __future__ import annotations

import os
import pty
import sys
import time
from pathlib import Path

import pytest

from kistore.attest import signing
from kistore.cli import attest as attest_cli
from kistore.cli import main

from ..conftest import fixed_key

ROOT = Path(__file__).resolve().parents[2]


def on_a_terminal(args: list[str], key: bytes, cwd: Path) -> tuple[str, int]:
    """Run ``kistore ARGS`` on a pty, type KEY at its passphrase prompt; (output, status)."""
    env = {k: v for k, v in os.environ.items() if k != attest_cli.PASSPHRASE_ENV}
    env["PYTHONPATH"] = str(ROOT)
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(cwd)
        os.execve(sys.executable, [sys.executable, "-P", "-m", "kistore", *args], env)
    out, deadline = b"", time.monotonic() + 60
    while b"assphrase" not in out and time.monotonic() < deadline:
        out += os.read(fd, 4096)
    os.write(fd, key)
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return out.decode().replace("\r\n", "\n"), os.waitstatus_to_exitcode(status)


def test_ctrl_d_at_a_new_keys_passphrase_says_what_was_asked(tmp_path):
    key = tmp_path / "k"
    out, status = on_a_terminal(["key", "generate", "--encrypt", str(key)], b"\x04", tmp_path)
    assert (out, status) == (
        "Passphrase: \n"
        f"error: {key}: end of input (Ctrl-D) at the prompt for the new key's passphrase "
        "(--encrypt): type it there, or give it without a terminal in KISTORE_KEY_PASSPHRASE; "
        "nothing was written\n", 2)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_d_at_an_encrypted_keys_passphrase_says_what_was_asked(runner, tmp_path):
    store = tmp_path / "idx"
    assert runner.invoke(main, ["init", str(store)]).exit_code == 0
    added = runner.invoke(main, ["--store", str(store), "add", "--allow-dangling", "--commit",
                                 str(ROOT / "examples/sol-execbench-submission-20464.bundle.json")])
    assert added.exit_code == 0, added.output
    key = tmp_path / "enc"
    key.write_bytes(signing.private_key_bytes(fixed_key(5), b"s3cret"))
    out, status = on_a_terminal(["--store", str(store), "attest",
                                 "BenchmarkRun/sol-submission-20464",
                                 "--type", "note", "-m", "hi", "--key", str(key)],
                                b"\x04", tmp_path)
    assert (out, status) == (
        f"Passphrase for {key}: \n"
        f"error: {key}: end of input (Ctrl-D) at the prompt for the passphrase of this "
        "encrypted private key: type it there, or give it without a terminal in "
        "KISTORE_KEY_PASSPHRASE\n", 2)


def test_ctrl_c_at_the_prompt_is_an_interrupt(tmp_path):
    out, status = on_a_terminal(["key", "generate", "--encrypt", str(tmp_path / "k")],
                                b"\x03", tmp_path)
    assert (out.splitlines()[-1], status) == ("interrupted", 130)


@pytest.mark.parametrize("given", ["", "pw\n"])  # nothing typed; the confirmation not typed
def test_end_of_input_in_click_runner_too(runner, tmp_path, monkeypatch, given):
    monkeypatch.setattr(attest_cli, "stdin_is_terminal", lambda: True)
    monkeypatch.delenv(attest_cli.PASSPHRASE_ENV, raising=False)
    result = runner.invoke(main, ["key", "generate", "--encrypt", str(tmp_path / "k")],
                           input=given)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith(
        f"error: {tmp_path / 'k'}: end of input (Ctrl-D) at the prompt for the new key's")
