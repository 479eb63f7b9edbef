"""The standard streams: a reader leaving part-way through one large write, closed streams.

r75 findings 3 and 19: ``ls | head -1`` exited 0 when ``ls`` wrote its answer in one
write the pipe took only part of (Python's writer returned the short count and raised
nothing); ``ls >&-`` and ``add - <&-`` said "internal error (AttributeError ...)". Each
command runs as a real process with a real pipe or a really closed descriptor.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import BROKEN_PIPE

from ..conftest import add_docs
from .test_truncated_loose_object import LIMIT

PIPE_HOLDS = 1 << 16
"""What a Linux pipe holds by default (64 KiB): an answer longer is written part by part."""


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """A store whose `ls` (plain and --json), a group's `rank --json` and one manifest's
    `show`/`cat` pass 200 KB."""
    from kistore.store import Store

    from ..conftest import ManifestKit

    path = tmp_path_factory.mktemp("big") / "store"
    Store.init(path)
    kit = ManifestKit()
    docs = [kit.implementation(f"listed-{i}", name=f"impl-{i:04d}-" + "x" * 240)
            for i in range(700)]
    workload = kit.workload("huge", name="huge")
    workload["spec"]["reference"] = {"language": "python", "source": ("𝑥" * 59 + "\n") * 1_000}
    group = kit.group_docs([None] * 500, run="grp-{i}")  # rank --json: ~260 KB
    add_docs(Store(path), [*docs, workload, *group])
    return path


def kistore_into(root: Path, *args: str, take: int, buffered: bool = False
                 ) -> tuple[int, str, int]:
    """Run kistore into a pipe this side reads ``take`` bytes of and then closes.

    ``buffered``: without PYTHONUNBUFFERED (stdout's buffered writer, not its raw file).

    Returns:
        (exit status, stderr, bytes read).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED" or not buffered}
    child = subprocess.Popen([sys.executable, "-m", "kistore", "--store", str(root), *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert child.stdout is not None and child.stderr is not None
    got = child.stdout.read(take)  # the command has started its write: it is blocked in it
    child.stdout.close()
    err = child.stderr.read().decode()
    return child.wait(timeout=LIMIT), err, len(got)


def test_the_answers_are_longer_than_a_pipe_holds(big):
    for args in (["ls"], ["ls", "--json"], ["rank", "BenchmarkRun/grp-0", "--json"],
                 ["show", "Workload/huge"],
                 ["show", "Workload/huge", "--json"], ["cat", "Workload/huge"]):
        done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(big), *args],
                              capture_output=True, timeout=LIMIT)
        assert done.returncode == 0, done.stderr
        assert len(done.stdout) > 3 * PIPE_HOLDS, args


@pytest.mark.parametrize("args", [["ls"], ["ls", "--json"], ["ls", "--format", "jsonl"],
                                  ["rank", "BenchmarkRun/grp-0", "--json"],
                                  ["show", "Workload/huge"],
                                  ["show", "Workload/huge", "--json"],
                                  ["cat", "Workload/huge"]])
@pytest.mark.parametrize("take", [1, PIPE_HOLDS // 2])
@pytest.mark.parametrize("buffered", [False, True])
def test_a_reader_leaving_during_one_large_write_is_141(big, args, take, buffered):
    status, err, got = kistore_into(big, *args, take=take, buffered=buffered)
    assert got == take
    assert (status, err) == (BROKEN_PIPE, ""), err  # was (0, ""): a cut answer as success


def shell(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                          timeout=LIMIT)


def ki(root: Path) -> str:
    return f'"{sys.executable}" -m kistore --store "{root}"'


@pytest.mark.parametrize("args", ["ls", "ls --json", "show Workload/huge", "cat Workload/huge",
                                  "attestations Workload/huge"])
def test_a_command_writing_to_a_closed_stdout_says_so_and_exits_1(big, args):
    done = shell(f"{ki(big)} {args} >&-; echo $?")
    assert done.stdout == "1\n"
    assert done.stderr.startswith("error: standard output is closed (`>&-`): the command's "
                                  "answer ("), done.stderr
    assert done.stderr.endswith(" bytes) was not written, though what it did is done; send "
                                "the output to a file or to /dev/null instead\n")
    assert "internal error" not in done.stderr


def test_a_closed_stdout_is_said_after_the_add_is_done(tmp_path, kit):
    from kistore.store import Store

    Store.init(tmp_path / "s")
    manifest = tmp_path / "w.json"
    import json

    manifest.write_text(json.dumps(kit.workload("w", name="w")))
    done = shell(f"{ki(tmp_path / 's')} add {manifest} >&-; echo $?")
    assert done.stdout == "1\n" and "standard output is closed" in done.stderr
    # what it did is done: the workload is in the store
    done = shell(f"{ki(tmp_path / 's')} ls")
    assert done.stdout.split()[1:] == ["Workload", "w"], done.stdout


def test_a_command_that_fails_with_a_closed_stdout_keeps_its_own_status(big):
    done = shell(f"{ki(big)} show ffffffff >&-; echo $?")
    assert done.stdout == "1\n"
    assert done.stderr.startswith("error: no object") or "ffffffff" in done.stderr, done.stderr
    assert "standard output is closed" not in done.stderr and "internal" not in done.stderr


@pytest.mark.parametrize("command", ["add -", "digest -"])
def test_reading_a_closed_stdin_says_so_and_exits_1(big, command):
    done = shell(f"{ki(big)} {command} <&-; echo $?")
    assert done.stdout == "1\n", done.stderr
    assert done.stderr == ("error: -: standard input is closed (`<&-`): there is nothing to "
                           "read; give the input as a file, or pipe it in\n")


def test_a_closed_stderr_is_no_crash(big):
    done = shell(f"{ki(big)} show ffffffff 2>&-; echo $?")
    assert done.stdout == "1\n" and done.stderr == ""
