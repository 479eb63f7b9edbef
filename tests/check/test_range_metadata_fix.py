"""A range's fix of a metadata file not as kistore writes it names BASE, not HEAD (last97 1d).

A metadata file emptied in one commit and written back pretty-printed in the next: the gate
said KI103 with "restore it with `git checkout HEAD -- PATH` if HEAD holds it as kistore
wrote it": HEAD is the commit holding the bad bytes, so that checkout restores nothing.
BASE holds the file as kistore wrote it: the fix names BASE's id, and run as printed (with
a commit) the range passes.
"""

from __future__ import annotations

import json
import re
import subprocess

from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import add_docs, git


def _committed(store, kit) -> tuple[str, str]:
    """Commit a workload; return (BASE's id, its metadata file's path)."""
    doc = kit.workload("a", name="wa")
    [digest] = add_docs(store, [doc])
    return (git(store.root, "rev-parse", "HEAD").strip(),
            layout.metadata_path(Digest.from_str(digest)))


def _commit(store, message: str) -> None:
    git(store.root, "commit", "-qam", message)


def _metadata_findings(store, base: str, path: str):
    return [f for f in check_range(store, f"{base}..HEAD") if f.file == path]


def test_a_pretty_printed_metadata_file_s_fix_names_base(store, kit):
    base, path = _committed(store, kit)
    file = store.root / path
    held = file.read_bytes()
    file.write_bytes(b"")
    _commit(store, "empty")
    file.write_text(json.dumps(json.loads(held), indent=2))
    _commit(store, "pretty")
    found = _metadata_findings(store, base, path)
    [finding] = [f for f in found if f.rule.id == "KI103"]
    assert "git checkout HEAD" not in finding.hint, finding.hint
    assert finding.hint == (
        "a metadata file changed after kistore wrote it (the object is not at fault: "
        "metadata is kept beside it, not derived from it, so no command rebuilds it): "
        f"BASE ({base[:12]}) holds it as kistore wrote it: restore it with `git checkout "
        f"{base} -- {path}` and commit it"), finding.hint
    # run as printed: HEAD holds BASE's bytes again; the two commits that broke the file
    # stay in the history, and each is said of its version since hist02 (fresh03 H1)
    command = re.search(r"`(git checkout [^`]+)`", finding.hint).group(1)
    subprocess.run(command.split(), cwd=store.root, check=True)
    _commit(store, "restored")
    assert file.read_bytes() == held
    empty, pretty = (git(store.root, "rev-parse", rev).strip() for rev in ("HEAD~2", "HEAD~1"))
    assert [(f.rule.id, f.extra.get("commit")) for f in _metadata_findings(
        store, base, path)] == [("KI102", f"commit {empty[:12]}"),
                                ("KI103", f"commit {pretty[:12]}")]


def test_a_file_base_lacks_is_written_again(store, kit):
    base = git(store.root, "rev-parse", "HEAD").strip()
    _ignored, path = _committed(store, kit)
    file = store.root / path
    file.write_text(json.dumps(json.loads(file.read_bytes()), indent=2))
    _commit(store, "pretty")
    [finding] = _metadata_findings(store, base, path)
    assert finding.rule.id == "KI103", finding
    assert "git checkout" not in finding.hint, finding.hint
    assert finding.hint.endswith(
        "write it again with `kistore add --update-metadata FILE` (FILE: the manifest holding "
        "the metadata wanted: `kistore cat --manifest DIGEST` prints one, with the last "
        "committed metadata that parses)"), finding.hint
