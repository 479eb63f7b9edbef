"""Read and write errors that named no file name it and say what to do (fresh01 F4).

``add /proc/self/mem`` said "error: Input/output error" (a read's error carries no file
name); ``add /`` met a directory of ``/proc`` removed while it walked and said
"/proc/PID: No such file or directory", as if the path given were wrong; ``ls >
/dev/full`` said "error: No space left on device", naming no stream.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from kistore.store import inputs

from ..conftest import add_docs
from ..query.test_query_cli import run


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux's /proc")
def test_add_of_a_file_that_cannot_be_read_names_it(runner, store):
    result = run(runner, store.root, "add", "/proc/self/mem")
    assert (result.exit_code, result.stderr) == (1, (
        "error: /proc/self/mem: cannot be read (Input/output error); nothing was read from "
        "it: give a regular file holding manifests (copy what you meant to add into one), "
        "or check the disk it is on\n"))


def test_add_of_a_directory_whose_subdirectory_vanishes_says_so(runner, store, kit, tmp_path,
                                                                monkeypatch):
    top = tmp_path / "in"
    (top / "gone").mkdir(parents=True)
    (top / "kept").mkdir()
    (top / "kept" / "w.json").write_text(json.dumps(kit.workload()))
    walk = os.walk

    def removed_while_walked(path, **kwargs):  # as a process of /proc that ends
        listing = walk(path, **kwargs)
        first = next(listing)  # top listed, "gone" among its directories
        shutil.rmtree(top / "gone")
        yield first
        yield from listing

    monkeypatch.setattr(inputs.os, "walk", removed_while_walked)
    result = run(runner, store.root, "add", str(top))
    assert (result.exit_code, result.stderr) == (1, (
        f"error: {top / 'gone'}: is a directory that was listed in {top} but is gone: "
        "something removed it while the directory was read (under /proc, a process that "
        "ended); run the add again when nothing changes there, or give a narrower "
        "directory that holds only manifests\n"))
    assert not (store.root / "store" / "objects").exists() or not any(
        (store.root / "store" / "objects").rglob("*.json"))  # nothing was added


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("form", [[], ["--json"]])
def test_ls_to_a_full_disk_names_standard_output(store, kit, form):
    add_docs(store, kit.group_docs([None]))
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "kistore", "ls", *form], cwd=store.root,
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert (done.returncode, done.stderr) == (1, (
        "error: standard output could not be written (No space left on device): the "
        "command's answer was cut short; send the output to a file on a disk with room, or "
        "to a pipe\n"))
