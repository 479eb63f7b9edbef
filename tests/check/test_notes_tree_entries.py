"""KI423 on notes trees: a note named twice passed the pre-receive gate (review r80 F4).

r80's repro 04: a notes tree holding the annotated blob's id twice, a garbage note first and
the honest one second; repro 04b: two fan-out subtrees both named ``8a`` (the id's first two
digits), the garbage note in the first. libgit2 (and so the gate) read the last entry of a
name and saw the honest note unchanged; git serves both (the unchecked line first), and every
kistore reader afterwards called the object doubly annotated. Now the gate reads every notes
tree a push brings raw, first (``check --updates``, pre-receive), and ``verify`` every tree of
the notes ref's tip.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kistore.attest import notes
from kistore.check import audit
from kistore.check.gate import check_updates
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.layout import NOTES_REF
from kistore.store import Store

from ..attest.test_attestation_evidence import RUN, STRANGER, bundle
from ..conftest import PUBLISHED, git
from .test_tree_entries_gate import _server_and_clone

# every finding made here keeps one meaning per extra key (`entered`: a commit id)
pytestmark = pytest.mark.usefixtures("extra_keys_kept")

KISTORE = str(Path(sys.executable).with_name("kistore"))


def _raw_tree(root: Path, entries: list[tuple[bytes, bytes, str]]) -> str:
    data = b"".join(mode + b" " + name + b"\0" + bytes.fromhex(oid) for mode, name, oid in entries)
    return subprocess.run(["git", "hash-object", "-t", "tree", "-w", "--literally", "--stdin"],
                          cwd=root, input=data, capture_output=True,
                          check=True).stdout.decode().strip()


def _honest_notes(store, root: Path) -> tuple[str, str, str, str]:
    """Attach an honest note; return (notes tip, annotated blob, honest note blob, garbage)."""
    notes.attach(store, RUN, bundle(STRANGER, "reproduction"))
    tip = git(root, "rev-parse", NOTES_REF).strip()
    annotated = git(root, "rev-parse",
                    f"HEAD:{layout.object_path(Digest.from_str(PUBLISHED['run']))}").strip()
    honest = git(root, "rev-parse", f"{NOTES_REF}:{annotated}").strip()
    garbage = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root,
                             input=b"this is not an attestation\n", capture_output=True,
                             check=True).stdout.decode().strip()
    return tip, annotated, honest, garbage


def _notes_commit(root: Path, tree: str, parent: str) -> str:
    return git(root, "commit-tree", tree, "-p", parent, "-m", "notes").strip()


def _shapes(root: Path, annotated: str, honest: str, garbage: str) -> dict[str, tuple[str, str]]:
    """r80's trees: name -> (tree id, path of the entry KI423 names, in the notes tree)."""
    name = annotated.encode()
    flat = _raw_tree(root, [(b"100644", name, garbage), (b"100644", name, honest)])
    fan, rest = name[:2], name[2:]
    first = _raw_tree(root, [(b"100644", rest, garbage)])
    second = _raw_tree(root, [(b"100644", rest, honest)])
    fanned = _raw_tree(root, [(b"40000", fan, first), (b"40000", fan, second)])
    return {"duplicate-entry": (flat, annotated), "duplicate-fanout": (fanned, annotated[:2])}


@pytest.mark.parametrize("shape", ["duplicate-entry", "duplicate-fanout"])
def test_the_gate_refuses_a_notes_tree_with_a_name_twice(record_store, store_path, shape):
    tip, annotated, honest, garbage = _honest_notes(record_store, store_path)
    tree, path = _shapes(store_path, annotated, honest, garbage)[shape]
    pushed = _notes_commit(store_path, tree, tip)
    git(store_path, "update-ref", "refs/notes/probe", pushed)
    served = git(store_path, "notes", "--ref=probe", "show", annotated)
    assert served.startswith("this is not an attestation\n")  # git serves the garbage first
    findings = check_updates(record_store, [(tip, pushed, NOTES_REF)])
    assert [(f.rule.id, f.file, f.extra["fsck"]) for f in findings] == [
        ("KI423", f"{NOTES_REF}:{path}", "duplicateEntries")]
    assert findings[0].message.startswith(
        f"commit {pushed[:12]}: tree the root tree of {NOTES_REF} ({tree[:12]}) has an entry "
        f"{path!r} (git fsck: duplicateEntries): a second entry of this name")


def test_verify_reports_such_a_notes_tip(record_store, store_path):
    tip, annotated, honest, garbage = _honest_notes(record_store, store_path)
    tree, _ = _shapes(store_path, annotated, honest, garbage)["duplicate-fanout"]
    git(store_path, "update-ref", NOTES_REF, _notes_commit(store_path, tree, tip))
    found = [(f.file, f.extra.get("fsck")) for f in audit.check_notes_and_attestations(
        record_store) if f.rule.id == "KI423"]
    assert found == [(f"{NOTES_REF}:{annotated[:2]}", "duplicateEntries")]


def test_an_honest_notes_push_passes(record_store, store_path):
    tip, *_ = _honest_notes(record_store, store_path)
    assert check_updates(record_store, [("0" * 40, tip, NOTES_REF)]) == []
    assert [f for f in audit.check_notes_and_attestations(record_store)
            if f.rule.id == "KI423"] == []


def test_pre_receive_refuses_the_r80_push(published, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    tip, annotated, honest, garbage = _honest_notes(Store(clone), clone)
    accepted = subprocess.run(["git", "push", "origin", NOTES_REF], cwd=clone,
                              capture_output=True, text=True)
    assert accepted.returncode == 0, accepted.stderr
    tree, _ = _shapes(clone, annotated, honest, garbage)["duplicate-entry"]
    pushed = subprocess.run(["git", "push", "origin", f"{_notes_commit(clone, tree, tip)}:"
                             f"{NOTES_REF}"], cwd=clone, capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"remote: {NOTES_REF}:{annotated}: error KI423 tree-entry-invalid" in pushed.stderr
    assert git(server, "rev-parse", NOTES_REF).strip() == tip
