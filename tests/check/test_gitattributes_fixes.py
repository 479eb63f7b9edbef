"""KI113's fix line says what works for its cause (fresh14 F3).

A FIFO top ``.gitattributes`` was two KI113 findings (its read: "nothing stops ...", and
git's status check: "not a regular file") and the fix line said to add the guard line to
the FIFO; a ``.gitattributes`` holding the guard line and a later override got "add the
line", though it is there: deleting the override is what works. ``add`` and ``add
--commit`` went on with the FIFO without a word, and ``git status`` then waited on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ManifestKit, git, snapshot


def _verify(root: Path) -> list[str]:
    """``verify``'s KI113 lines (findings and fix), run as a child: a hang fails the test."""
    done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(root), "verify"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    return [line for line in done.stdout.splitlines() if "KI113" in line]


def test_an_override_after_the_guard_line_is_fixed_by_deleting_it(published):
    with (published / ".gitattributes").open("a") as attributes:
        attributes.write("store/objects/** text eol=crlf\n")
    assert _verify(published) == [
        ".gitattributes:2:1: error KI113 gitattributes-missing: line 2 sets text eol=crlf for "
        "store/objects/** after the store/** line, so git would convert stored bytes "
        "(expected no conversion under store/, found store/objects/** text eol=crlf)",
        "fix KI113 (1 finding): delete line 2 of .gitattributes (the store/** line, line 1, "
        "then holds)"]


def test_a_missing_guard_line_is_still_fixed_by_adding_it(published):
    (published / ".gitattributes").write_text("*.md text\n")
    assert _verify(published)[-1] == (
        "fix KI113 (1 finding): add the line `store/** -text -eol -filter -ident "
        "-working-tree-encoding` to .gitattributes (`kistore init .` writes it)")


def test_a_directory_at_gitattributes_is_one_finding(published):
    os.remove(published / ".gitattributes")
    (published / ".gitattributes").mkdir()
    assert _verify(published) == [
        ".gitattributes: error KI113 gitattributes-missing: not a regular file (a directory): "
        "git cannot read it, and `git status` waits on a FIFO for ever; what the work tree "
        "changes in committed objects was not checked (expected a regular file, found a "
        "directory)",
        "fix KI113 (1 finding): put the store's .gitattributes back: `git checkout HEAD -- "
        ".gitattributes` (a directory there: `rm -r .gitattributes` first)"]


def _add_refusal(path: str, fix: str) -> str:
    return (f"error: {path}: an attributes file git reads is a FIFO, not a regular file: git "
            "opens and reads it before it compares a work-tree file, so `git status` and "
            "`git add store` would wait for ever on the files this add writes; nothing was "
            f"written. {fix}, then run the command again\n")


@pytest.mark.parametrize("commit", [False, True])
@pytest.mark.parametrize("where", [".gitattributes", "store/.gitattributes",
                                   ".git/info/attributes"])
def test_add_refuses_a_fifo_attributes_file(published, tmp_path, commit, where):
    fifo = published / where
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    manifest = tmp_path / "w.json"
    manifest.write_text(json.dumps(ManifestKit().workload("a", name="wa")))
    before, head = snapshot(published), git(published, "rev-parse", "HEAD")
    done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(published), "add",
                           *(["--commit"] if commit else []), str(manifest)],
                          capture_output=True, text=True, timeout=120)
    fix = ("Put the store's back (`git checkout HEAD -- .gitattributes`)"
           if where == ".gitattributes" else f"Remove it (`rm {fifo}`)")
    expected = _add_refusal(where, fix)
    if commit and where == ".git/info/attributes":  # add --commit's KI116 refusal, before
        expected = (
            "error: .git/info/attributes: this repository's .git/info/attributes is not a "
            "regular file (a FIFO, a device or a directory, or a symbolic link to one): git's "
            "checkout would wait on it or read it without end, and a line there may convert "
            "store/; nothing was written. Remove it or make it a small regular file (it is "
            "this repository's own, never committed), then `git checkout -- store/` to "
            "restore any file it converted (`kistore verify` reports it: KI116)\n")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", expected)
    assert snapshot(published) == before
    assert git(published, "rev-parse", "HEAD") == head


def test_a_fifo_info_attributes_is_ki116_alone(published):
    # git's status check said KI113 of it too, with the top .gitattributes' fix
    fifo = published / ".git" / "info" / "attributes"
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(published), "verify"],
                          capture_output=True, text=True, timeout=120)
    said = [line for line in done.stdout.splitlines() if " KI11" in line]
    assert (done.returncode, said) == (1, [
        ".git/info/attributes: error KI116 info-attributes-convert: is not a regular file (a "
        "FIFO, a device or a directory, or a symbolic link to one): git's checkout would wait "
        "on it or read it without end, and a line there may convert store/ (expected a "
        "regular file of at most 1,048,576 bytes, found a FIFO)",
        "fix KI116 (1 finding): remove .git/info/attributes or make it a small regular file "
        "(this repository's own, never committed), then `git checkout -- store/`"])
