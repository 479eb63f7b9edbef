"""kistore.git.present.holds: whether a repository holds an object, from its files alone.

The oracle is git itself (``git cat-file --batch-check``): over every object of a packed
repository and random ids near them (same first byte: the fan-out's bucket, so the binary
search runs), ``holds`` says what git says.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.git.present import holds


def run(cwd: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, check=True).stdout


@pytest.fixture(scope="module")
def packed(tmp_path_factory) -> tuple[Path, list[str]]:
    """A repository of 60 commits (180 objects), all packed, and every object's id."""
    root = tmp_path_factory.mktemp("packed")
    run(root, "init", "-q")
    for n in range(60):
        (root / "f.txt").write_text(f"{n}\n")
        run(root, "add", "f.txt")
        run(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", str(n))
    run(root, "gc", "-q")
    assert not list((root / ".git" / "objects").glob("??/*"))
    ids = run(root, "rev-list", "--all", "--objects").split()
    return root, [i for i in ids if len(i) == 40]


def git_holds(root: Path, oids: list[str]) -> list[bool]:
    said = run(root, "cat-file", "--batch-check=%(objectname)", stdin="\n".join(oids) + "\n")
    return [not line.endswith(" missing") for line in said.splitlines()]


def test_every_packed_object_is_held_and_a_loose_one_too(packed, tmp_path):
    root, ids = packed
    assert len(ids) == 180
    assert all(holds(root / ".git", oid) for oid in ids)
    assert not holds(root / ".git", "0" * 40) and not holds(root / ".git", "f" * 40)
    loose = run(root, "hash-object", "-w", "--stdin", stdin="new\n").strip()
    assert holds(root / ".git", loose)
    (root / ".git" / "objects" / loose[:2] / loose[2:]).unlink()
    assert not holds(root / ".git", loose)


@settings(max_examples=200, deadline=None)
@given(pick=st.integers(0, 179), tail=st.binary(min_size=19, max_size=19))
def test_holds_says_what_git_says(packed, pick, tail):
    root, ids = packed
    near = ids[pick][:2] + tail.hex()  # same fan-out bucket as a held object
    for oid in (ids[pick], near):
        assert holds(root / ".git", oid) == git_holds(root, [oid])[0]


def test_an_alternate_is_read_and_a_cut_index_says_no(packed, tmp_path):
    root, ids = packed
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--shared", str(root), str(clone)], check=True)
    assert not list((clone / ".git" / "objects" / "pack").glob("*.idx"))
    assert all(holds(clone / ".git", oid) for oid in ids[:20])
    copy = tmp_path / "copy"
    subprocess.run(["git", "clone", "-q", "--no-local", str(root), str(copy)], check=True)
    idx = next((copy / ".git" / "objects" / "pack").glob("*.idx"))
    idx.chmod(0o644)
    idx.write_bytes(idx.read_bytes()[:500])  # the fan-out table cut: it cannot say
    assert not holds(copy / ".git", ids[0])
