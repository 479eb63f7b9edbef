"""kistore.core.package_data: the one reader of files shipped in kistore's packages."""

from __future__ import annotations

import hashlib
import sys

import pytest

from kistore.core.package_data import read_package_data

from ..conftest import ROOT


def test_reads_the_file_beside_the_package():
    data = read_package_data("kistore.query", "default_policy.json")
    assert data == (ROOT / "kistore/query/default_policy.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == hashlib.sha256(
        (ROOT / "store/policy/ranking.json").read_bytes()).hexdigest()  # the same, committed


def test_a_package_not_of_plain_files_is_read_through_its_loader(monkeypatch):
    # a zip import has no folder to open a file in: importlib.resources reads it
    monkeypatch.setattr(sys.modules["kistore.core"], "__file__", "/nowhere/__init__.py")
    text = read_package_data("kistore.core", "kernelbench_runs.txt").decode("ascii")
    assert text == (ROOT / "kistore/core/kernelbench_runs.txt").read_text("ascii")


def test_a_missing_file_is_an_os_error():
    with pytest.raises(OSError):
        read_package_data("kistore.core", "no_such_file.txt")
