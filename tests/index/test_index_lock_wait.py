"""A rebuild that waits for the index lock says who holds it (robust75, item 5).

Every process that opened the index holds its lock shared until it exits; ``kistore
reindex`` (and a reset) takes it exclusively, so it waits for all of them. A test run or
notebook that had queried a Store of the repository made a ``reindex`` child wait past
60 s saying only "indexing": it now says at once which process it waits for (its id, read
from /proc/locks), the lock file and what to do, and goes on when that process lets go.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.index import _database as database

from ..conftest import BUNDLE


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="process ids from /proc/locks")
def test_a_reindex_waiting_for_this_process_names_it_and_goes_on_once_it_lets_go(
        store_path: Path):
    subprocess.run([sys.executable, "-m", "kistore", "--store", str(store_path), "add",
                    "--commit", "--allow-dangling", str(BUNDLE)], check=True, capture_output=True)
    listed = CliRunner().invoke(main, ["--store", str(store_path), "ls"])  # opens the index
    assert listed.exit_code == 0 and "BenchmarkRun" in listed.stdout, listed.output
    lock = store_path / ".git" / "kistore" / "index.sqlite.lock"
    assert os.getpid() in _holders_of(lock)
    child = subprocess.Popen([sys.executable, "-m", "kistore", "--store", str(store_path),
                              "reindex"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        assert child.stderr is not None
        said = ""
        deadline = time.monotonic() + 60
        while "note: waiting" not in said and time.monotonic() < deadline:
            ready, _, _ = select.select([child.stderr], [], [], deadline - time.monotonic())
            if ready:  # a whole line: each of kistore's stderr lines ends with one
                said += child.stderr.readline()
        assert (f"note: waiting for process {os.getpid()} to exit: it opened the index and "
                f"holds {lock} until it exits (another kistore command, or a Python process "
                "holding a kistore Store); a rebuild of the index waits for every process "
                "that reads it. End it, or press Ctrl-C here (nothing is written yet)"
                ) in said, said
        assert child.poll() is None  # still waiting
        database.disconnect()  # this process lets go of the index (and its lock)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert "indexed 3 manifests" in out + err


def _holders_of(lock: Path) -> list[int]:
    """Every process holding a flock on ``lock``, this one too (the oracle of the note)."""
    st = os.stat(lock)
    holders = []
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and \
                int(fields[5].split(":")[2]) == st.st_ino:
            holders.append(int(fields[4]))
    return holders
