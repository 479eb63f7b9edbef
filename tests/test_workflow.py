"""This repository's CI gate runs the BASE branch's kistore, never the pull request's.

Review r78 F6: ``.github/workflows/pull-request.yml`` checked out GitHub's merge of the pull
request, ran ``make install`` from it and gated the store with the kistore it had just
installed: a pull request changing one line of ``kistore/check/gate.py`` beside a tampered
object passed its own gate. The gate job now runs on ``pull_request_target`` (GitHub takes
the workflow from the base branch), installs the base's code and fetches the pull request
as git objects only. What can be checked offline is the workflow's text: these tests parse
it (PyYAML) and hold the gate job to that shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml  # PyYAML: a test dependency (pyproject.toml), so a missing one fails

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "pull-request.yml"
BASE_SHA = "${{ github.event.pull_request.base.sha }}"


def workflow() -> dict[Any, Any]:
    doc = yaml.safe_load(WORKFLOW.read_text())
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the bare key `on` as True
    return doc


def gate_steps() -> list[dict[str, Any]]:
    return workflow()["jobs"]["gate"]["steps"]


def test_the_gate_runs_on_pull_request_target_only():
    doc = workflow()
    assert "pull_request_target" in doc["on"]
    assert doc["jobs"]["gate"]["if"] == "github.event_name == 'pull_request_target'"
    # the test job runs the pull request's own code: never with the base's token
    assert doc["jobs"]["test"]["if"] == "github.event_name != 'pull_request_target'"


def test_the_gate_installs_the_base_branchs_code_and_never_checks_out_the_pull_request():
    steps = gate_steps()
    checkouts = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
    assert [s["with"]["ref"] for s in checkouts] == [BASE_SHA]
    assert checkouts[0]["with"]["persist-credentials"] is False
    runs = [(i, s["run"]) for i, s in enumerate(steps) if "run" in s]
    install = next(i for i, run in runs if run.strip() == "make install")
    fetch = next(i for i, run in runs if "git fetch" in run)
    check = next(i for i, run in runs if "kistore check" in run)
    assert steps.index(checkouts[0]) < install < fetch < check
    # the pull request's commits arrive as objects: nothing after the fetch checks out,
    # installs or runs a file of the work tree but the base's installed kistore
    assert "refs/pull/${PR_NUMBER}/merge" in steps[fetch]["run"]
    # GitHub updates the merge ref asynchronously: only a merge of the head in the event
    # is judged (review r79 F5)
    assert '"$(git rev-parse pull/merge^2)" != "$PR_HEAD_SHA"' in steps[fetch]["run"]
    assert steps[fetch]["env"]["PR_HEAD_SHA"] == "${{ github.event.pull_request.head.sha }}"
    after = " ".join(run for i, run in runs if i > fetch)
    for word in ("checkout", "switch", "make", "pip", "python", "worktree", "reset"):
        assert word not in after, word
    # judged as it would land: against the base's tip, the merge included (review r78 F6)
    assert steps[check]["run"].strip() == (
        '.venv/bin/kistore check --format github "pull/merge^1..pull/merge"')


def test_the_gate_has_a_read_only_token_no_secrets_no_cache_no_injection():
    doc = workflow()
    assert doc["permissions"] == {"contents": "read"}
    assert doc["jobs"]["gate"]["permissions"] == {"contents": "read"}
    steps = gate_steps()
    text = yaml.safe_dump(doc["jobs"]["gate"])
    assert "secrets." not in text
    assert not any("cache" in str(s.get("uses", "")) or "cache" in s.get("with", {})
                   for s in steps)
    # pull request data reaches a shell only through env, never spliced into a script
    assert all("${{" not in s["run"] for s in steps if "run" in s)
