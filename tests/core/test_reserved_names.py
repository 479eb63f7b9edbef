"""Names Windows reserves (CON, NUL, COM1, ...) are refused: a names file is never freed.

New-user review 2026-12-02 F19: ``con``, ``aux.txt``, ``nul``, ``com1`` were accepted and
became names files that Git for Windows cannot check out, in every clone, for good.
"""

from __future__ import annotations

import hashlib

import pytest

from kistore.check import audit
from kistore.check.gate import check_range
from kistore.core import canonical, layout
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.core.schema import check_manifest, reserved_on_windows

from ..conftest import commit_all, git, store_file, write_raw

RESERVED = ["con", "prn", "aux", "nul", "com1", "com9", "lpt1", "lpt9", "lpt0", "aux.txt",
            "nul.tar.gz", "con.1", "CON", "Aux.Txt"]
FREE = ["console", "com0", "com10", "lpt", "auxiliary", "con-1", "nul-x", "a.con", "prn2",
        "icon", "comm1"]

MESSAGE = ("is a device name Windows reserves (CON, PRN, AUX, NUL, COM1-COM9, LPT0-LPT9, "
           "with or without an extension): Git for Windows cannot check out its names file, "
           "and a name is never freed; choose another name")


@pytest.mark.parametrize("name", RESERVED)
def test_reserved(name):
    assert reserved_on_windows(name)


@pytest.mark.parametrize("name", FREE)
def test_free(name):
    assert not reserved_on_windows(name)


def _workload(name: str) -> dict:
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
            "metadata": {"name": name}, "spec": {"definition": "gemm",
                                                 "suite": {"name": "synthetic"}}}


def test_check_manifest_says_where_and_why():
    (error,) = check_manifest(_workload("aux.txt"), file="w.json")
    assert (error.file, error.pointer) == ("w.json", "/metadata/name")
    assert str(error.message) == f"'aux.txt' {MESSAGE}"
    assert check_manifest(_workload("auxiliary")) == []


def test_add_refuses_it(store, store_path):
    with pytest.raises(KistoreError, match=r"'nul' is a device name Windows reserves"):
        store.add([Manifest.from_document(_workload("nul"))])
    assert not (store_path / "store" / "names").exists()


def test_verify_and_the_gate_report_one_committed_past_the_hooks(store, store_path):
    base = git(store_path, "rev-parse", "HEAD").strip()
    doc = _workload("con")
    object_bytes = canonical.dumps({k: doc[k] for k in ("apiVersion", "kind", "spec")})
    digest = "sha256:" + hashlib.sha256(object_bytes).hexdigest()
    write_raw(store_path, store_file(digest), object_bytes)
    write_raw(store_path, store_file(digest, "metadata"), canonical.dumps(doc["metadata"]))
    write_raw(store_path, layout.name_path("Workload", "con"), f"{digest}\n".encode())
    commit_all(store_path, "a reserved name, past the hooks")
    expected = (store_file(digest, "metadata"), "/name", f"'con' {MESSAGE}")
    for findings in (audit.verify(store), audit.verify(store, "HEAD"),
                     check_range(store, f"{base}..HEAD")):
        assert [(f.file, f.pointer, f.message) for f in findings
                if f.rule.id == "KI104"] == [expected]
