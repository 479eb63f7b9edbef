"""A new entry under store/attestations/ that is no regular file is named by the queries.

A FIFO, a symbolic link or a directory where an attestation file belongs is read as no
file (never opened, never followed): ``notes sync`` and ``verify`` named it, but
``kistore attestations``, ``rank`` and ``show`` passed it over without a word (fresh16 F7).
They now give the same answer and say, in one warning line after it, which entry was left
out, what it is and what to do; the exit stays 0.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.store import Store

QUERIES = (["attestations", "BenchmarkRun/fast"], ["attestations", "BenchmarkRun/fast", "--json"],
           ["rank", "BenchmarkRun/ref"], ["rank", "BenchmarkRun/ref", "--json", "--all"],
           ["show", "BenchmarkRun/fast"], ["show", "BenchmarkRun/fast", "--json"])
"""Each query of ``fast``'s evidence."""

WRITE = ("write the bundle as a regular file (`kistore attest --file`) to count it")


def _run(root, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--store", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def _entry(store: Store, name: str = "fast", seed: bytes = b"x") -> str:
    """A bundle's path in run ``name``'s attestation folder (the folder made)."""
    digest = store.view("HEAD").find_name("BenchmarkRun", name)
    assert digest is not None
    folder = layout.attestation_dir(digest)
    (store.root / folder).mkdir(parents=True, exist_ok=True)
    return f"{folder}/{hashlib.sha256(seed).hexdigest()}.json"


def _make(full, kind: str, tmp_path) -> None:
    if kind == "fifo":
        os.mkfifo(full)
    elif kind == "symlink":  # to a file: never read through
        (tmp_path / "target.json").write_text("{}")
        full.symlink_to(tmp_path / "target.json")
    else:
        full.mkdir()


SAID = {
    "fifo": "a FIFO, not a regular file: kistore never opens it (a FIFO waits for a writer for "
            "ever; `kistore verify` reports it, KI111); these answers left it out: remove it "
            "(`rm {path}`)",
    "symlink": "a symbolic link, not a regular file: kistore never follows one under store/ "
               "(`kistore verify` reports it, KI111); these answers left it out: remove it "
               "(`rm {path}`)",
    "directory": "a directory, not a regular file: an attestation file holds one bundle "
                 "(`kistore verify` reports it, KI110); these answers left it out: move it "
                 "out of store/",
}
"""What the warning says of each kind, before ``, and`` + :data:`WRITE`."""


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory"])
def test_a_query_names_a_new_entry_that_is_no_file(group, tmp_path, kind):
    clean = {tuple(q): _run(group.root, *q) for q in QUERIES}
    assert all(code == 0 and err == "" for code, _, err in clean.values())
    path = _entry(group)
    _make(group.root / path, kind, tmp_path)
    warning = f"warning: {path}: {SAID[kind].format(path=path)}, and {WRITE}\n"
    for query in QUERIES:
        # before: the answer, exit 0 and not a word of the entry
        assert _run(group.root, *query) == (0, clean[tuple(query)][1], warning), query
    assert _run(group.root, "rank", "BenchmarkRun/ref", "--at", "HEAD")[2] == ""


def test_a_fifo_is_never_opened(group):
    path = _entry(group)
    os.mkfifo(group.root / path)
    done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(group.root),
                           "attestations", "BenchmarkRun/fast"],
                          capture_output=True, text=True, timeout=120)  # a hang: TimeoutExpired
    assert (done.returncode, done.stderr) == (
        0, f"warning: {path}: {SAID['fifo'].format(path=path)}, and {WRITE}\n")


def test_several_entries_are_one_line(group, tmp_path):
    paths = sorted([_entry(group, "fast", b"a"), _entry(group, "fast", b"b"),
                    _entry(group, "slow", b"c"), _entry(group, "ref", b"d")])
    for path, kind in zip(paths, ["fifo", "symlink", "directory", "fifo"], strict=True):
        _make(group.root / path, kind, tmp_path)
    code, _, err = _run(group.root, "rank", "BenchmarkRun/ref")
    assert (code, err) == (0, (
        f"warning: 4 entries under store/attestations/ are no regular files ({paths[0]}: a "
        f"FIFO; {paths[1]}: a symbolic link; {paths[2]}: a directory; and 1 more): these "
        "answers left them out (kistore never opens nor follows one; `kistore verify` reports "
        "each); remove them (a directory: move it out of store/), and write each bundle as a "
        "regular file (`kistore attest --file`) to count it\n"))


def test_a_regular_new_file_is_not_named(group):
    path = _entry(group)
    (group.root / path).write_text("{}")  # a defective bundle: judged, not "left out"
    assert "left it out" not in _run(group.root, "attestations", "BenchmarkRun/fast")[2]
