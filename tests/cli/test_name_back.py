"""KI212 of a names file whose manifest's metadata was renamed: the way back that works.

break97 M3: after a committed rename of a run's metadata `name`, `show KIND/OLDNAME` said
"restore ... with `git checkout HEAD -- FILE`", a no-op there (HEAD holds the rename). The
message now names the commit before the rename, the last where the names file and the
metadata agreed, and the checkout of that version; run as printed, it repairs the store.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess

from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import PUBLISHED, git

NAME = "sol-submission-20464"
RUN = Digest.from_str(PUBLISHED["run"])
META = layout.metadata_path(RUN)


def _cli(root, *args):
    return CliRunner().invoke(main, ["--store", str(root), *args])


def _rename(root, new: str) -> None:
    doc = json.loads((root / META).read_bytes())
    doc["name"] = new
    (root / META).write_bytes(json.dumps(doc, ensure_ascii=False, separators=(",", ":"),
                                         sort_keys=True).encode())


def test_a_rename_in_the_work_tree_is_restored_from_head(published):
    _rename(published, "renamed-run")
    shown = _cli(published, "show", f"BenchmarkRun/{NAME}")
    assert shown.exit_code == 1
    assert (f"KI212 name-path-disagrees: the names file names {RUN}, which is "
            f"BenchmarkRun/renamed-run, not BenchmarkRun/{NAME}; it is not trusted. Run "
            f"`kistore verify` to see every disagreement; HEAD's metadata file still says "
            f"'{NAME}': restore it with `git checkout HEAD -- {META}`, or give the digest"
            ) in shown.stderr, shown.stderr


def test_a_committed_rename_names_the_commit_before_it_and_its_checkout_works(published):
    agreed = git(published, "rev-parse", "HEAD").strip()
    original = (published / META).read_bytes()
    _rename(published, "renamed-run")
    git(published, "commit", "-qam", "rename by hand", "--no-verify")
    renamed = git(published, "rev-parse", "HEAD").strip()
    git(published, "commit", "-q", "--allow-empty", "-m", "later")  # HEAD is past it
    shown = _cli(published, "show", f"BenchmarkRun/{NAME}")
    assert shown.exit_code == 1
    assert "git checkout HEAD --" not in shown.stderr, shown.stderr  # a no-op here
    assert (f"commit {renamed[:12]} renamed it in its metadata file (a committed name never "
            f"moves, KI208); '{NAME}' is the name it was added under: put it back with "
            f"`git checkout {agreed} -- {META}` (that file as of commit {agreed[:12]}, the "
            f"last where it and the names file agreed) or set \"name\" back to '{NAME}' in "
            "it, then commit") in shown.stderr, shown.stderr
    # the fix as printed repairs it
    command = re.search(r"`(git checkout [^`]+)`", shown.stderr).group(1)
    subprocess.run(shlex.split(command), cwd=published, check=True)
    assert (published / META).read_bytes() == original
    git(published, "commit", "-qam", "put the name back")
    assert _cli(published, "show", f"BenchmarkRun/{NAME}").exit_code == 0


def test_a_names_file_pointing_elsewhere_keeps_the_general_advice(published):
    # the names file, not the metadata, changed: no version of the metadata says the
    # other name, so no commit is named
    other = layout.name_path("BenchmarkRun", "another-name")
    (published / other).parent.mkdir(parents=True, exist_ok=True)
    (published / other).write_bytes(f"{RUN}\n".encode())
    shown = _cli(published, "show", "BenchmarkRun/another-name")
    assert shown.exit_code == 1
    assert ("restore a names or metadata file changed by hand with `git checkout HEAD -- "
            "FILE`") in shown.stderr, shown.stderr
