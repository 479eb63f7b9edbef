"""``show``, ``cite`` and ``cat`` name a stored file that is no regular file (fresh17 F10).

A run whose metadata file is a FIFO is left out of ``rank`` and ``ls`` with KI111's warning,
and ``compare`` refuses it naming the FIFO; ``show`` and ``cite`` said "object ... has no
metadata file" (and "no object ... in the store" for an object file), which is false: the
file is there, as a FIFO, and HEAD holds it. Each command runs as a child killed after 20 s
(:func:`tests.git.test_ref_file_guard._kistore`): a hang fails, it never stalls the suite.
"""

from __future__ import annotations

import os

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from tests.conftest import PUBLISHED
from tests.git.test_ref_file_guard import _kistore

RUN = PUBLISHED["run"]
META = layout.metadata_path(Digest.from_str(RUN))
OBJECT = layout.object_path(Digest.from_str(RUN))


def _refusal(path: str, role: str, kind: str, head: str) -> str:
    """The refusal as ``compare`` says it (``head``: what restore_advice says first)."""
    return (f"error: {path}: the {role} file {kind}; {head}restore it with `git checkout "
            f"HEAD -- {path}`, and run `kistore verify` to find any other damaged file\n")


_FIFO = "is a FIFO, socket or device, not a regular file (`kistore verify`: KI111)"
_HELD = "HEAD holds it as kistore wrote it: "


@pytest.mark.parametrize("args", [("show", RUN), ("show", RUN[:15]),
                                  ("cite", RUN), ("compare", RUN, RUN)])
def test_a_fifo_metadata_file_is_named_not_called_missing(published, tmp_path, args):
    (published / META).unlink()
    os.mkfifo(published / META)
    done = _kistore(published, tmp_path, *args)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", _refusal(META, "metadata", _FIFO, _HELD))


@pytest.mark.parametrize("args", [("show", RUN), ("cite", RUN), ("cat", RUN)])
def test_a_fifo_object_file_is_named_not_called_absent(published, tmp_path, args):
    (published / OBJECT).unlink()
    os.mkfifo(published / OBJECT)
    done = _kistore(published, tmp_path, *args)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", _refusal(OBJECT, "object", _FIFO, ""))


def test_a_symlinked_metadata_file_is_named(published, tmp_path):
    copy = tmp_path / "copy.json"
    copy.write_bytes((published / META).read_bytes())
    (published / META).unlink()
    (published / META).symlink_to(copy)
    done = _kistore(published, tmp_path, "show", RUN)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", _refusal(
        META, "metadata", "is a symbolic link: the store keeps only regular files and never "
        "reads through a link (`kistore verify`: KI111)", _HELD))


def test_a_missing_metadata_file_is_still_called_missing(published, tmp_path):
    (published / META).unlink()
    done = _kistore(published, tmp_path, "cite", RUN)
    assert done.returncode == 1
    assert "FIFO" not in done.stderr and "symbolic link" not in done.stderr
