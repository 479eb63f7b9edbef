"""A SIGINT or SIGTERM the parent left ignored stays ignored for the whole command (fresh03 H7).

A non-interactive shell starts ``cmd &`` with SIGINT ignored (as ``nohup`` and some
supervisors do with other signals): the Unix convention is that such a program leaves it
ignored. ``kistore add --commit`` honoured it in some phases and not in others: the
command line took SIGTERM whatever it was, the held-signals block of the write noted
SIGINT and undid the add (exit 130), the landed add noted it and said "interrupted after
the add had landed". Each child here starts with the signal ignored (set in the child
before it runs Python, as a shell does) and sends it to itself at one moment of an add; the
add must run to its end, exit 0, say nothing more, and leave a whole store.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import main

from ..conftest import git

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

# argv: MOMENT SIGNAL STORE INPUT. The signal is sent (to this process) at MOMENT: before
# run(); as the input is read; each time a write holds signals (interrupts_deferred); as
# the add lands (Landing.landed); after run() returned (atexit).
SENT_AT = r"""
import atexit, contextlib, os, signal, sys

moment, number = sys.argv[1], getattr(signal, sys.argv[2])
assert signal.getsignal(number) is signal.SIG_IGN  # inherited so


def send():
    os.kill(os.getpid(), number)


if moment == "start":
    send()
elif moment == "reading":
    from kistore.store import inputs

    real_read = inputs.read_inputs_apart

    def reading(*args, **kwargs):
        send()
        return real_read(*args, **kwargs)

    inputs.read_inputs_apart = reading
elif moment == "writing":
    from kistore.git import commit

    real_deferred = commit.interrupts_deferred

    @contextlib.contextmanager
    def deferred():
        with real_deferred():
            send()
            yield

    commit.interrupts_deferred = deferred
elif moment == "landed":
    from kistore.cli import _adding

    real_landed = _adding.Landing.landed

    def landed(self, commit):
        real_landed(self, commit)
        send()

    _adding.Landing.landed = landed
elif moment == "exit":
    atexit.register(send)
sys.argv = ["kistore", "--store", sys.argv[3], "add", "--commit", sys.argv[4]]
from kistore._entry import run

run()
"""


def one_run(kit, tmp_path: Path) -> tuple[Path, list[dict]]:
    """Write one run and the four manifests it names to ``tmp_path/in.jsonl``.

    Returns:
        The file, and the five documents in it (in order).
    """
    protocol, environment = kit.protocol(), kit.environment()
    workload, impl = kit.workload(), kit.implementation()
    docs = [protocol, environment, workload, impl,
            kit.run(protocol, environment, impl, workload, latency=5000)]
    manifests = tmp_path / "in.jsonl"
    manifests.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return manifests, docs


def _ignoring(number: int):
    def ignore() -> None:  # in the child, before it runs Python: inherited, as from a shell
        signal.signal(number, signal.SIG_IGN)

    return ignore


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("moment", ["start", "reading", "writing", "landed", "exit"])
def test_a_signal_inherited_as_ignored_leaves_an_add_to_land_whole(
        moment, name, store_path: Path, kit, tmp_path, runner):
    manifests, docs = one_run(kit, tmp_path)
    before = git(store_path, "rev-parse", "HEAD").strip()
    done = subprocess.run([sys.executable, "-c", SENT_AT, moment, name, str(store_path),
                           str(manifests)], capture_output=True, text=True, timeout=300,
                          preexec_fn=_ignoring(getattr(signal, name)))
    # BASE: SIGTERM from "reading" on: 130, "interrupted ..."; SIGINT while a write held
    # signals: 130 and the add undone; as it landed: "interrupted after the add had landed"
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert sorted(line.split()[0] for line in done.stdout.splitlines()) == sorted(
        kit.digest(d) for d in docs)
    assert git(store_path, "rev-parse", "HEAD~1").strip() == before  # one commit landed
    assert git(store_path, "status", "--porcelain") == ""
    verified = runner.invoke(main, ["--store", str(store_path), "verify"])
    assert verified.exit_code == 0, verified.output


# argv: STORE. SIGALRM inherited ignored; a real Ctrl-C handled in a finaliser while ``ls``
# starts (its echo, by SIGALRM, interrupts the command), and a SIGALRM sent (by someone
# else, meant ignored) as the command says it was interrupted.
ALARM_IGNORED = r"""
import ctypes, itertools, operator, os, signal, sys, time
import click
import kistore.cli

assert signal.getsignal(signal.SIGALRM) is signal.SIG_IGN  # inherited so
raise_ = getattr(ctypes.CDLL(None), "raise")


class Dying:
    def __del__(self):
        pass


real_root_end = kistore.cli._escape_unencodable_output


def root_end():
    list(itertools.starmap(operator.call, [(raise_, signal.SIGINT), ([Dying()].clear,)]))
    time.sleep(1)
    real_root_end()


kistore.cli._escape_unencodable_output = root_end
real_echo = click.echo


def echo(message=None, *args, **kwargs):
    if message == "interrupted":
        os.kill(os.getpid(), signal.SIGALRM)
    real_echo(message, *args, **kwargs)


click.echo = echo
sys.argv = ["kistore", "--store", sys.argv[1], "ls"]
from kistore._entry import run

run()
"""


def test_a_sigalrm_inherited_as_ignored_stays_ignored_after_an_echo(store_path: Path):
    # sig03 (sig02's leftover): BASE's echo took SIGALRM for the rest of the command, so
    # the SIGALRM the parent left ignored raised a second interrupt in the report of the
    # first: (1, '', '\nAborted!\n')
    done = subprocess.run([sys.executable, "-c", ALARM_IGNORED, str(store_path)],
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=_ignoring(signal.SIGALRM))
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "interrupted\n")
