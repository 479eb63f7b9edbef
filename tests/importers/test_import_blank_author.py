"""``import`` refuses a record whose username prints as nothing, as ``add`` does (KI254).

fresh13 MED 2: an Implementation whose author is only spaces or invisible characters was
added with a warning; now KI254 refuses it wherever it enters. The SOL-ExecBench importer
writes a board row's ``username`` as the Implementation's ``author``: a row of ``'   '`` is
refused at its record, and ``--skip-invalid`` leaves that row out (no record of the shared
data is one: 0 KI254 on an import of all three sources).
"""

from __future__ import annotations

import json
import shutil

import pytest

from kistore.core.errors import MultipleErrors
from kistore.importers import import_files

from ..conftest import DATA, requires_data

BOARD = "leaderboard/kernel-3/leaderboard_snapshot.json"


def _blank_row(tmp_path):
    """Copy the SOL-ExecBench data with board 3's fourth row's username blank; its path."""
    data = tmp_path / "data" / "sol-execbench"
    shutil.copytree(DATA / "sol-execbench", data)
    for p in data.rglob("*"):
        p.chmod(0o644 if p.is_file() else 0o755)
    board = data / BOARD
    value = json.loads(board.read_text())
    value["response"]["data"]["rankings"][3]["username"] = "   "
    board.write_text(json.dumps(value))
    return data


@requires_data
def test_import_refuses_a_blank_username_and_skip_invalid_leaves_it_out(store, tmp_path):
    # on BASE b1992eea the row was imported, its author '   ', with a KI251 warning
    data = _blank_row(tmp_path)
    with pytest.raises(MultipleErrors) as caught:
        import_files(store, "sol-execbench", [str(data)])
    [problem] = caught.value.problems
    said = ("kernel 3 submission 42667: its Implementation 'sol-kernel-3-submission-42667' is "
            "refused at /spec/author, the record's \"   \": '   ' prints as nothing, holding "
            "only U+0020 SPACE at characters 1, 2 and 3: a leaderboard shows the author as the "
            "row's label, and a blank one names no one (KI254, an error: the gate refuses it "
            "too); the record is the source's and cannot be imported as it is: --skip-invalid "
            "leaves it out; report it upstream")  # not the advice to an author: "write ..."
    assert (problem.file, problem.pointer, problem.rule_id, problem.message) == (
        (data / BOARD).as_posix(), "/response/data/rankings/3/username", "KI254", said)
    report = import_files(store, "sol-execbench", [str(data)], skip_invalid=True)
    assert report.runs == 63 + 17 - 1
    [skipped] = report.skipped
    assert (skipped.pointer, skipped.message) == ("/response/data/rankings/3/username", said)
