"""A metadata file edited by hand is blamed on itself, with its fix (msg94 F14).

`show` and `rank` named the object file (`store/objects/...:/metadata/bogus`, "the object
file does not match its schema ... restore it with `git checkout HEAD --
store/objects/...`"), and `verify`'s fix was KI104's "fix the manifest ... and add it
again". Metadata is kept beside the object, not derived from it: nothing rebuilds it, so
the fix is git's copy or `kistore add --update-metadata`.
"""

from __future__ import annotations

import json

from kistore.check._rules import METADATA_FIX, METADATA_RESTORE, METADATA_REWRITE
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.restore import metadata_advice

from ..conftest import PUBLISHED, git

RUN = Digest.from_str(PUBLISHED["run"])
META = layout.metadata_path(RUN)
# HEAD holds it as kistore wrote it: the checkout alone (cat97; fresh95 F9 gave both ways
# where HEAD may hold it broken: that case says the rewrite alone)
RESTORE = metadata_advice(META, head_sound=True)


def _edit(store_path, data: bytes) -> None:
    (store_path / META).write_bytes(data)


def test_show_and_rank_name_the_edited_metadata_file(runner, record_store, store_path):
    before = json.loads((store_path / META).read_bytes())
    _edit(store_path, json.dumps({"bogus": 1, **before}, ensure_ascii=False,
                                 separators=(",", ":"), sort_keys=True).encode())
    shown = runner.invoke(main, ["--store", str(store_path), "show", "BenchmarkRun/"
                                 "sol-submission-20464"])
    assert shown.exit_code == 1 and shown.stdout == ""
    assert shown.stderr == (
        f"error: {META}:/bogus: the metadata file does not match its schema (unexpected key "
        "'bogus' in the object at /metadata; it allows only annotations, description, labels, "
        "name, title: remove it or correct its spelling); it changed after kistore wrote it, "
        f"the object is not at fault: {RESTORE}\n")
    ranked = runner.invoke(main, ["--store", str(store_path), "rank", "384a96d0"])
    assert ranked.exit_code == 1
    assert ranked.stderr.startswith(
        f"error: {META}: the metadata file does not match its schema (unexpected key 'bogus'")
    assert RESTORE in ranked.stderr
    assert "store/objects/" not in shown.stderr + ranked.stderr


def test_verify_gives_an_edited_metadata_file_its_fix(runner, record_store, store_path):
    _edit(store_path, b'{"name": "sol-submission-20464", "title": 7}')  # spaced, a number
    result = runner.invoke(main, ["--store", str(store_path), "verify", "--json"])
    assert result.exit_code == 1
    findings = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["file"], f.get("pointer")) for f in findings] == [
        ("KI104", META, "/title"), ("KI103", META, None)]
    # HEAD holds it as kistore wrote it: the checkout alone (cat97 left: both repairs were
    # offered, the rewrite too, which add judges against HEAD's file)
    assert {f["hint"] for f in findings} == {METADATA_RESTORE}
    assert "add it again" not in METADATA_RESTORE and "--update-metadata" not in METADATA_RESTORE
    assert "HEAD holds it as kistore wrote it: restore it with `git checkout HEAD -- PATH`" \
        in METADATA_RESTORE
    text = runner.invoke(main, ["--store", str(store_path), "verify"])
    assert f"fix KI104 (1 finding): {METADATA_RESTORE}\n" in text.stdout
    _edit(store_path, b'{"name":"sol-submission-20464"')  # cut off: KI102
    cut = runner.invoke(main, ["--store", str(store_path), "verify"])
    assert f"fix KI102 (1 finding): {METADATA_RESTORE}\n" in cut.stdout
    # committed so, HEAD holds the broken bytes: the rewrite alone, in the work tree and at HEAD
    git(store_path, "commit", "-qam", "cut", "--no-verify")
    for at in ([], ["--at", "HEAD"]):
        committed = runner.invoke(main, ["--store", str(store_path), "verify", *at])
        assert f"fix KI102 (1 finding): {METADATA_REWRITE}\n" in committed.stdout, at
        assert "git checkout HEAD" not in METADATA_REWRITE
        assert "write it again with `kistore add --update-metadata FILE`" in METADATA_REWRITE
    assert METADATA_FIX not in committed.stdout
