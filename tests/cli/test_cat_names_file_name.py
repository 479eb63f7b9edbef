"""`cat` of a run whose metadata file is broken: the name from its names file, the fix that works.

Reviewer last96 (LOW) and break96 (H3's note, L1); fixk95 "not done":

* `cat --manifest DIGEST` of a run whose metadata file was cut short printed `"name": ""`,
  though the names file (`store/names/KIND/XX/NAME`, holding the digest) knows the name;
  a file with the name twice gave the last one. Now the names file's name is printed, and
  with no name known none is (the warning says so), never an empty string.
* `cat --manifest KIND/NAME` of such a run failed resolving the name: it now resolves
  through the names file.
* `cat --metadata` of an emptied metadata file said "give a manifest": it says metadata
  file, what it should hold, and, for a committed run whose file is broken in the work
  tree only, the one fix that works (`git checkout HEAD -- PATH`); for a file HEAD holds
  broken, only the rewrite (the checkout restores nothing).
"""

from __future__ import annotations

import json
import subprocess

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import PUBLISHED, git

NAME = "sol-submission-20464"
NAMES_FILE = layout.name_path("BenchmarkRun", NAME)


def _cli(root, *args):
    return CliRunner().invoke(main, ["--store", str(root), *args])


@pytest.fixture
def run():
    return Digest.from_str(PUBLISHED["run"])


def _break(root, run, data: bytes, *, commit: bool) -> bytes:
    """Write ``data`` over the run's metadata file (committed if asked); the original bytes."""
    meta = root / layout.metadata_path(run)
    original = meta.read_bytes()
    meta.write_bytes(data)
    if commit:
        git(root, "commit", "-qam", "broken metadata", "--no-verify")
    return original


def test_a_file_cut_short_gives_the_names_file_s_name(published, run, tmp_path):
    original = _break(published, run, b'{"labels":{"worker":"x"},"name":"so', commit=True)
    assert original.startswith(b'{"labels":')
    done = _cli(published, "cat", "--manifest", run.hex[:8])
    assert done.exit_code == 0, done.output
    document = json.loads(done.stdout)
    # was {"name": ""}, then {"name": NAME} alone: the labels and title the cut lost are the
    # last committed version's that parses (cat97 left), the one before the break
    assert document["metadata"] == json.loads(original)
    before = git(published, "rev-parse", "HEAD~").strip()
    assert (f"printed anyway: the object as stored, with the metadata of commit {before[:12]}, "
            f"the last version of the file that parses; the name is its names file's, "
            f"{NAMES_FILE}; edit it as you mean it, then `kistore add --update-metadata FILE`"
            ) in done.stderr, done.stderr
    # by its name: resolved through the names file (fixk95: it failed), the same bytes
    by_name = _cli(published, "cat", "--manifest", f"BenchmarkRun/{NAME}")
    assert by_name.exit_code == 0, by_name.output
    assert by_name.stdout == done.stdout
    # the template takes: add --update-metadata writes it, and the run reads again
    (tmp_path / "run.json").write_text(done.stdout)
    fixed = _cli(published, "add", "--update-metadata", str(tmp_path / "run.json"))
    assert fixed.exit_code == 0, fixed.output
    assert (published / layout.metadata_path(run)).read_bytes() == original
    assert _cli(published, "show", f"BenchmarkRun/{NAME}").exit_code == 0


def test_a_second_name_in_a_broken_file_gives_way_to_the_names_file(published, run):
    _break(published, run, f'{{"name":"{NAME}","name":"other-name"}}'.encode(), commit=True)
    done = _cli(published, "cat", "--manifest", run.hex[:8])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["metadata"]["name"] == NAME  # was "other-name"
    assert (f"the name is its names file's, {NAMES_FILE} (the broken file reads "
            "'other-name')") in done.stderr, done.stderr


def test_no_name_known_is_said_not_printed_as_an_empty_string(published, run):
    _break(published, run, b'{"lab', commit=False)
    (published / NAMES_FILE).unlink()
    done = _cli(published, "cat", "--manifest", str(run))
    assert done.exit_code == 0, done.output
    metadata = json.loads(done.stdout)["metadata"]
    assert "name" not in metadata  # no "name": "" to add by mistake
    assert metadata["labels"] == {"worker": "external-prod-b200-modal-1"}  # HEAD's version
    assert ("; no name: the metadata file holds none and no names file holds this digest: "
            'write "name" into metadata, the name the manifest was added under') in done.stderr


def test_an_emptied_file_is_called_a_metadata_file_and_the_checkout_is_the_fix(published, run):
    path = layout.metadata_path(run)
    original = _break(published, run, b"", commit=False)  # HEAD holds it sound
    done = _cli(published, "cat", "--metadata", run.hex[:8])
    assert (done.exit_code, done.stdout_bytes) == (0, b"")
    assert done.stderr == (
        f"warning: {path}: the metadata file does not parse (empty file; expected one JSON "
        "value: the manifest's metadata (a JSON object holding at least its \"name\")); HEAD "
        f"holds it as kistore wrote it: restore it with `git checkout HEAD -- {path}`; "
        "printed anyway: the metadata file as stored (0 bytes)\n")
    assert "manifest (a JSON object)" not in done.stderr and "--update-metadata" not in done.stderr
    template = _cli(published, "cat", "--manifest", run.hex[:8])
    assert "--update-metadata" not in template.stderr, template.stderr
    # the fix as printed repairs it
    subprocess.run(["git", "checkout", "HEAD", "--", path], cwd=published, check=True)
    assert (published / path).read_bytes() == original
    assert _cli(published, "cat", "--metadata", run.hex[:8]).stdout_bytes == original


def test_a_file_head_holds_broken_is_written_again_not_checked_out(published, run):
    path = layout.metadata_path(run)
    _break(published, run, b"", commit=True)
    done = _cli(published, "cat", "--metadata", run.hex[:8])
    assert done.exit_code == 0, done.output
    assert "git checkout" not in done.stderr, done.stderr  # it restores the empty file
    assert (f"{path}: the metadata file does not parse (empty file; expected one JSON value: "
            "the manifest's metadata") in done.stderr
    assert "write it again with `kistore add --update-metadata FILE`" in done.stderr


def test_a_second_name_by_kind_and_name_resolves_through_the_names_file(published, run):
    # break97 M6: by KIND/NAME the second `name` was taken for the run's, and the names
    # file called untrusted (KI212); by digest it worked. Now as by digest: the file broken
    path = layout.metadata_path(run)
    original = _break(published, run, f'{{"name":"{NAME}","title":"r","name":"evil"}}'.encode(),
                      commit=False)  # HEAD holds it sound
    by_name = _cli(published, "cat", "--manifest", f"BenchmarkRun/{NAME}")
    assert by_name.exit_code == 0, by_name.output
    assert "KI212" not in by_name.stderr and "not trusted" not in by_name.stderr
    assert by_name.stderr.startswith(
        f"warning: {path}:1:44:/name: the metadata file does not parse (duplicate"), by_name.stderr
    assert "(the broken file reads 'evil')" in by_name.stderr
    assert by_name.stdout == _cli(published, "cat", "--manifest", run.hex[:8]).stdout
    assert json.loads(by_name.stdout)["metadata"] == json.loads(original)  # HEAD's
    shown = _cli(published, "show", f"BenchmarkRun/{NAME}")  # show calls it broken too
    assert shown.exit_code == 1 and "KI212" not in shown.stderr, shown.stderr
    assert f"{path}:1:44:/name: the metadata file does not parse (duplicate" in shown.stderr
    assert f"`git checkout HEAD -- {path}`" in shown.stderr
    # a file naming another name, parsing, still disagrees (a rename is no broken file)
    _break(published, run, b'{"name":"evil","title":"r"}', commit=False)
    renamed = _cli(published, "cat", "--manifest", f"BenchmarkRun/{NAME}")
    assert renamed.exit_code == 1 and "KI212 name-path-disagrees" in renamed.stderr
