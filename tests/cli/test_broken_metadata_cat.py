"""A committed broken metadata file: `cat` prints the intact object, `--manifest` a template.

Reviewer fresh95 F9: with a metadata file HEAD holds broken (a duplicate key), `kistore cat
OBJ` (the object's bytes, intact) and `cat --manifest REF` (the README's template source)
exited 1 on the metadata file, and `show` advised `git checkout HEAD -- M`, which restores
nothing. Now `cat` prints the object, `--manifest` prints it with the metadata as far as it
parses (a warning naming the file), and the advice gives verify's two ways.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import PUBLISHED, git


@pytest.fixture
def broken(published):
    """The published run's metadata file committed with its title twice."""
    run = Digest.from_str(PUBLISHED["run"])
    meta = published / layout.metadata_path(run)
    meta.write_text(meta.read_text().replace('"title":', '"title":"x","title":', 1))
    git(published, "commit", "-qam", "bad meta", "--no-verify")
    return published, run


def _cli(root, *args):
    return CliRunner().invoke(main, ["--store", str(root), *args])


def test_cat_prints_the_intact_object(broken):
    root, run = broken
    done = _cli(root, "cat", run.hex[:8])
    assert done.exit_code == 0, done.output
    assert hashlib.sha256(done.stdout_bytes).hexdigest() == run.hex


def test_cat_manifest_prints_a_template_and_says_the_metadata_is_broken(broken, tmp_path):
    root, run = broken
    done = _cli(root, "cat", "--manifest", run.hex[:8])
    assert done.exit_code == 0, done.output
    assert done.stderr.startswith(f"warning: {layout.metadata_path(run)}:")
    assert "does not parse (duplicate object key 'title'" in done.stderr
    document = json.loads(done.stdout)
    assert list(document) == ["apiVersion", "kind", "metadata", "spec"]
    assert document["metadata"]["name"] == "sol-submission-20464"
    # the repair the advice names: the template, corrected, written with --update-metadata
    (tmp_path / "run.json").write_text(done.stdout)
    fixed = _cli(root, "add", "--update-metadata", str(tmp_path / "run.json"))
    assert fixed.exit_code == 0, fixed.output
    assert _cli(root, "show", run.hex[:8]).exit_code == 0


def test_the_advice_gives_the_way_that_works_and_the_name_points_at_the_digest(broken):
    root, run = broken
    shown = _cli(root, "show", run.hex[:8])
    assert shown.exit_code == 1
    path = layout.metadata_path(run)
    # HEAD holds the broken file: its checkout restores nothing, the rewrite is the fix
    # (break96 H3: both were offered; cat97)
    assert "write it again with `kistore add --update-metadata FILE`" in shown.output
    assert "git checkout" not in shown.output, shown.output
    by_name = _cli(root, "cat", "--manifest", "BenchmarkRun/sol-submission-20464")
    assert by_name.exit_code == 0, by_name.output  # fixk95: it failed resolving the name
    assert by_name.stdout == _cli(root, "cat", "--manifest", run.hex[:8]).stdout
    assert by_name.stderr.startswith(f"warning: {path}:")


def test_cat_metadata_prints_the_broken_file_as_stored_with_its_fault(broken):
    # fixk95: `cat --metadata` exited 1 and printed nothing; git's cat-file prints what is
    # there, and the broken bytes are what a user asking for the file wants to see
    root, run = broken
    stored = (root / layout.metadata_path(run)).read_bytes()
    assert b'"title":"x","title":' in stored
    for ref in (run.hex[:8], "BenchmarkRun/sol-submission-20464"):
        done = _cli(root, "cat", "--metadata", ref)
        assert done.exit_code == 0, done.output
        assert done.stdout_bytes == stored
        assert done.stderr.startswith(f"warning: {layout.metadata_path(run)}:1:")
        assert "the metadata file does not parse (duplicate object key 'title'" in done.stderr
        assert done.stderr.rstrip("\n").endswith("; printed anyway: the metadata file as stored")


def test_a_metadata_file_holding_no_name_is_named_by_its_names_file(published):
    # Read leniently, the file says no name: `cat` takes KIND/NAME's names file at its
    # word (cat97; it failed here, naming the commands by digest) and prints the name
    run = Digest.from_str(PUBLISHED["run"])
    meta = published / layout.metadata_path(run)
    meta.write_bytes(meta.read_bytes()[:20])  # cut short: not JSON at all
    git(published, "commit", "-qam", "cut", "--no-verify")
    by_name = _cli(published, "cat", "--manifest", "BenchmarkRun/sol-submission-20464")
    assert by_name.exit_code == 0, by_name.output
    raw = _cli(published, "cat", "--metadata", str(run))
    assert (raw.exit_code, raw.stdout_bytes) == (0, meta.read_bytes())
    template = _cli(published, "cat", "--manifest", str(run))
    assert template.exit_code == 0, template.output
    # the name the names file's, the rest the last committed version's that parses
    assert json.loads(template.stdout)["metadata"] == json.loads(git(
        published, "show", f"HEAD~:{layout.metadata_path(run)}"))
    assert template.stdout == by_name.stdout
