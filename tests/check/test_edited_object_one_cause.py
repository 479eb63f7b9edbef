"""An object's edited bytes are one cause, with one advice: no content rule judges them.

fresh98 MED 4: a one-byte edit of the published run's committed object (``13634148`` ->
``13734148``, its ``timing.latencyNs.mean``) made ``verify``, the gate and the pre-commit
hook say KI233 (latency units disagree) beside KI101 and KI401, with KI233's fix: add a
corrected run and have a maintainer withdraw this one (KI232). One cause:
``git checkout HEAD -- PATH`` (KI101's and KI401's fix) puts everything right. The edited
bytes are not the manifest the file names, so no other rule judges them: not the content
rules (KI102-KI104, KI222-KI233), not the references and key read from them (KI201, KI213,
KI215), and not a run's group file whose key reads an edited protocol or environment (KI216).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.cli import main

from ..conftest import PUBLISHED, ROOT, commit_all, git, store_file

RUN = store_file(PUBLISHED["run"])
ENVIRONMENT = store_file(PUBLISHED["environment"])
EDITED = "sha256:5c8356c80877f5b85185761e2eb96cd7f4ea6a2e807efb7421c22365c879f0fc"
"""sha256 of the run's object with ``13634148`` -> ``13734148`` (computed with sha256sum)."""


def _edit(root: Path, path: str = RUN, old: bytes = b"13634148", new: bytes = b"13734148"
          ) -> None:
    data = (root / path).read_bytes()
    assert data.count(old) == 1  # one value: latencyNs.mean (latency_ms is 13.634148)
    (root / path).write_bytes(data.replace(old, new))


def _said(result) -> list[tuple[str, str | None, str | None]]:
    return [(f["rule"], f.get("file"), f.get("pointer"))
            for f in json.loads(result.stdout)["findings"] if f["rule"] != "KI308"]


def _run(root: Path, monkeypatch, *args: str):
    monkeypatch.chdir(root)
    return CliRunner().invoke(main, [*args, "--format", "json"])


def test_verify_of_a_one_byte_edit_says_ki101_and_ki401_alone(published, monkeypatch):
    _edit(published)
    result = _run(published, monkeypatch, "verify")
    assert result.exit_code == 1
    assert _said(result) == [("KI101", RUN, None), ("KI401", RUN, None)]  # no KI233, KI201
    (ki101,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "KI101"]
    assert ki101["found"] == EDITED
    assert ki101["expected"] == PUBLISHED["run"]
    # the one advice, followed, leaves nothing but the run's own dangling references
    git(published, "checkout", "HEAD", "--", RUN)
    result = _run(published, monkeypatch, "verify")
    assert result.exit_code == 0
    assert [r for r, _, _ in _said(result)] == ["KI201", "KI201"]


def test_gate_and_verify_at_of_a_committed_one_byte_edit_say_ki101_and_ki401_alone(
        published, monkeypatch):
    base = git(published, "rev-parse", "HEAD").strip()
    _edit(published)
    head = commit_all(published, "a slower run")
    result = _run(published, monkeypatch, "check", f"{base}..{head}")
    assert result.exit_code == 1
    assert _said(result) == [("KI101", RUN, None), ("KI401", RUN, None)]
    result = _run(published, monkeypatch, "verify", "--at", head)  # the commit's bytes
    assert result.exit_code == 1
    assert _said(result) == [("KI101", RUN, None), ("KI401", RUN, None)]


@pytest.mark.parametrize(("old", "new", "rule"), [
    (b'"sol_score":0.51252', b'"sol_score":1.7', "KI223"),  # out of [0, 1]
    (b'"spec":{', b'"spec": {', "KI103"),  # not canonical
    (b'"spec":{', b'"spec":{,', "KI102"),  # not JSON
    (b'"workloadDigest":"sha256:d47d', b'"workloadDigest":"sha256:d57d', "KI213"),
])
def test_no_rule_judges_an_objects_edited_bytes(published, monkeypatch, old, new, rule):
    """Each of these edits gave its own rule and fix beside KI101 and KI401 (the workload
    digest's typo: KI213 and KI215, advising forward records and a group file for it)."""
    _edit(published, old=old, new=new)
    result = _run(published, monkeypatch, "verify")
    assert result.exit_code == 1
    assert _said(result) == [("KI101", RUN, None), ("KI401", RUN, None)], rule


def test_an_edited_environment_leaves_its_runs_group_file_unjudged(published, monkeypatch):
    """The run's key reads its environment: while those bytes are edited the key is not
    known, and KI216 said "remove a group file no add writes" of the run's group file."""
    _edit(published, ENVIRONMENT, b'"NVIDIA B200"', b'"NVIDIA B100"')
    result = _run(published, monkeypatch, "verify")
    assert result.exit_code == 1
    assert [(r, f) for r, f, _ in _said(result) if r != "KI201"] == [
        ("KI101", ENVIRONMENT), ("KI401", ENVIRONMENT)]


def test_pre_commit_hook_of_a_staged_one_byte_edit_says_ki101_and_ki401_alone(
        published, monkeypatch):
    kistore = str(Path(sys.executable).with_name("kistore"))
    monkeypatch.setenv("KISTORE", kistore)
    git(published, "config", "core.hooksPath", str(ROOT / "hooks"))
    _edit(published)
    git(published, "add", RUN)
    committed = subprocess.run(["git", "commit", "-m", "one byte"], cwd=published,
                               capture_output=True, text=True)
    assert committed.returncode == 1
    said = [line.split(": ")[1].split()[1] for line in committed.stderr.splitlines()
            if line.startswith("store/")]
    assert said == ["KI101", "KI401"], committed.stderr
    fixes = [line.split()[1] for line in committed.stderr.splitlines()
             if line.startswith("fix ")]
    assert fixes == ["KI101", "KI401"], committed.stderr
