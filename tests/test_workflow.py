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

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # PyYAML: a test dependency (pyproject.toml), so a missing one fails

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "pull-request.yml"
BASE_SHA = "${{ github.event.pull_request.base.sha || github.event.merge_group.base_sha }}"


def workflow() -> dict[Any, Any]:
    doc = yaml.safe_load(WORKFLOW.read_text())
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the bare key `on` as True
    return doc


def gate_steps() -> list[dict[str, Any]]:
    return workflow()["jobs"]["gate"]["steps"]


def test_the_gate_runs_on_pull_request_target_and_in_the_merge_queue_only():
    doc = workflow()
    assert "pull_request_target" in doc["on"]
    assert doc["jobs"]["gate"]["if"] == (
        "github.event_name == 'pull_request_target' || github.event_name == 'merge_group'")
    # the test job runs the pull request's own code: never with the base's token
    assert doc["jobs"]["test"]["if"] == ("github.event_name == 'pull_request' || "
                                         "github.event_name == 'push' || "
                                         "github.event_name == 'merge_group'")


def test_the_gate_installs_the_base_branchs_code_and_never_checks_out_the_pull_request():
    steps = gate_steps()
    checkouts = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
    assert [s["with"]["ref"] for s in checkouts] == [BASE_SHA]
    assert checkouts[0]["with"]["persist-credentials"] is False
    runs = [(i, s["run"]) for i, s in enumerate(steps) if "run" in s]
    install = next(i for i, run in runs if run.strip() == "make install")
    fetch = next(i for i, run in runs if "refs/pull/" in run)
    check = next(i for i, run in runs if "kistore check" in run)
    assert steps.index(checkouts[0]) < install < fetch < check
    assert steps[fetch]["if"] == "github.event_name == 'pull_request_target'"
    # the pull request's commits arrive as objects: nothing after the fetch checks out,
    # installs or runs a file of the work tree but the base's installed kistore
    assert "refs/pull/${PR_NUMBER}/merge:refs/remotes/gate/head" in steps[fetch]["run"]
    # GitHub updates the merge ref asynchronously: only a merge of the head in the event
    # is judged (review r79 F5)
    assert '"$(git rev-parse gate/head^2)" != "$PR_HEAD_SHA"' in steps[fetch]["run"]
    assert steps[fetch]["env"]["PR_HEAD_SHA"] == "${{ github.event.pull_request.head.sha }}"
    # judged as it would land: against the base's tip, the merge included (review r78 F6)
    assert "git update-ref refs/remotes/gate/base gate/head^1" in steps[fetch]["run"]
    after = " ".join(run for i, run in runs if i > fetch)
    for word in ("checkout", "switch", "make", "pip", "python", "worktree", "reset"):
        assert word not in after, word
    assert steps[check]["run"].strip() == (
        '.venv/bin/kistore check --format github "gate/base..gate/head"')
    assert "if" not in steps[check]  # both events end in the same check


@pytest.mark.parametrize("job", ["gate", "landed"])
def test_the_gate_has_a_read_only_token_no_secrets_no_cache_no_injection(job):
    doc = workflow()
    assert doc["permissions"] == {"contents": "read"}
    assert doc["jobs"][job]["permissions"] == {"contents": "read"}
    steps = doc["jobs"][job]["steps"]
    text = yaml.safe_dump(doc["jobs"][job])
    assert "secrets." not in text
    assert not any("cache" in str(s.get("uses", "")) or "cache" in s.get("with", {})
                   for s in steps)
    # pull request data reaches a shell only through env, never spliced into a script
    assert all("${{" not in s["run"] for s in steps if "run" in s)


# Review r80 F1, F2, F7: a green gate was judged against the main of its moment. Two pull
# requests each green on their own moved a citation (KI425) or broke main's verify (KI215,
# KI202) once both merged, and a pull request retargeted to main kept the green it got
# against another branch. tests/check/test_pr_sequences.py runs those sequences locally.

def test_the_gate_re_runs_when_the_base_branch_is_edited_and_judges_only_main():
    on = workflow()["on"]
    assert on["pull_request_target"] == {
        "types": ["opened", "synchronize", "reopened", "edited"], "branches": ["main"]}
    first = gate_steps()[0]  # before anything is checked out or installed
    assert first["env"]["BASE_REF"] == (
        "${{ github.event.pull_request.base.ref || github.event.merge_group.base_ref }}")
    assert '"${BASE_REF#refs/heads/}" != "main"' in first["run"]
    assert "exit 1" in first["run"]


def test_the_merge_queue_gates_the_exact_commits_that_will_land():
    on = workflow()["on"]
    assert on["merge_group"] == {"types": ["checks_requested"], "branches": ["main"]}
    steps = gate_steps()
    queue = next(s for s in steps if s.get("if") == "github.event_name == 'merge_group'")
    assert queue["env"] == {
        "QUEUE_REF": "${{ github.event.merge_group.head_ref }}",
        "QUEUE_HEAD_SHA": "${{ github.event.merge_group.head_sha }}",
        "QUEUE_BASE_SHA": "${{ github.event.merge_group.base_sha }}"}
    assert '"+${QUEUE_REF}:refs/remotes/gate/head"' in queue["run"]
    assert '"$(git rev-parse gate/head)" != "$QUEUE_HEAD_SHA"' in queue["run"]
    # base_sha..head_sha: every pull request queued ahead of this one is in the base
    assert 'git update-ref refs/remotes/gate/base "$QUEUE_BASE_SHA"' in queue["run"]
    assert steps.index(queue) < next(i for i, s in enumerate(steps)
                                     if "kistore check" in s.get("run", ""))


def test_a_push_to_main_is_checked_against_the_main_it_landed_on():
    doc = workflow()
    assert doc["on"]["push"] == {"branches": ["main"]}
    job = doc["jobs"]["landed"]
    assert job["if"] == ("github.event_name == 'push' && github.event.before != "
                         "'0000000000000000000000000000000000000000'")
    steps = job["steps"]
    checkout = steps[0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["ref"] == "${{ github.event.before }}"  # the judge's code
    assert checkout["with"]["fetch-depth"] == 0
    check = steps[-1]
    assert check["env"] == {"BEFORE": "${{ github.event.before }}",
                            "AFTER": "${{ github.event.after }}"}
    assert ('.venv/bin/kistore check --format github $landed "${BEFORE}..${AFTER}" || {'
            in check["run"])
    # a move of main, judged as one (KI430, KI431), by a kistore that knows the option
    assert ('if .venv/bin/kistore check --help | grep -q -- "--landed"; then '
            'landed="--landed"; fi') in check["run"]
    assert "::error::main took" in check["run"] and "exit 1" in check["run"]
    assert "this job cannot undo the push" in check["run"]


def test_the_landed_job_s_script_passes_landed_to_this_kistore(tmp_path):
    # the step's own lines, run against this checkout's kistore: the option is found
    run = workflow()["jobs"]["landed"]["steps"][-1]["run"]
    probe = next(line for line in run.splitlines() if "--help" in line).strip()
    kistore = Path(sys.executable).with_name("kistore")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "kistore").symlink_to(kistore)
    done = subprocess.run(["bash", "-c", f'landed=""\n{probe}\necho "[$landed]"'],
                          cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout == "[--landed]\n"


def test_the_docs_require_the_gate_as_a_workflow_not_a_check_name():
    """Reviewer r81 F6: a check is required by name, and a pull request's own workflow (run
    on ``pull_request``) can define a job named ``gate``; the docs say to require the
    base's workflow instead, and the one ``gate`` job here runs only as the base's."""
    jobs = {path.name: (yaml.safe_load(path.read_text()) or {}).get("jobs", {})
            for path in (ROOT / ".github" / "workflows").glob("*.y*ml")}
    assert [name for name, found in jobs.items() if "gate" in found] == ["pull-request.yml"]
    assert "pull_request" not in workflow()["jobs"]["gate"]["if"].replace(
        "pull_request_target", "")
    threats = " ".join((ROOT / "docs" / "threats.md").read_text().split())
    readme = " ".join((ROOT / "README.md").read_text().split())
    for text in (threats, readme):
        assert '"Require workflows to pass before merging" naming' in text
        assert "`.github/workflows/pull-request.yml`" in text and "`refs/heads/main`" in text
        assert "`pull_request_target`" in text
    assert "**So require the gate as a workflow, not as a name**" in threats
    assert "make `gate` a required status check" not in threats + readme


@pytest.mark.parametrize("job", ["gate", "landed"])
def test_the_gate_fetches_the_attestation_notes_before_it_checks(job):
    """Reviewer r86 F23: actions/checkout fetches no refs/notes/*, so a pull request trusting
    a key was judged without the attestations it makes count (KI413-KI415 never shown)."""
    steps = workflow()["jobs"][job]["steps"]
    runs = [(i, s["run"]) for i, s in enumerate(steps) if "run" in s]
    install = next(i for i, run in runs if run.strip() == "make install")
    notes = next(i for i, run in runs if "refs/notes/kistore" in run)
    check = next(i for i, run in runs if "kistore check" in run)
    assert install < notes < check
    assert "if" not in steps[notes]  # both events of the gate, and every push to main
    assert ('git fetch --no-tags origin "+refs/notes/kistore:refs/notes/kistore"'
            in steps[notes]["run"])
    # and the tracking ref `kistore notes fetch` writes: readers count notes fetched by it
    # (notes88, reviewer r86 F21), so `kistore verify` in the job says no "not fetched"
    assert '"+refs/notes/kistore:refs/notes/remotes/origin/kistore"' in steps[notes]["run"]
    # a remote without notes (none ever pushed) is no failure
    assert "git ls-remote --exit-code origin refs/notes/kistore" in steps[notes]["run"]


PINNED = re.compile(r"(?P<action>[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)@(?P<sha>[0-9a-f]{40})")
"""A ``uses:`` an action at a full commit sha (a tag or branch is moved by its owner)."""
RELEASE = re.compile(r"\s*(- )?uses: (?P<uses>\S+)  # (?P<release>v\d+\.\d+\.\d+)")
"""A ``uses:`` line of the workflow's text: the reference and, in its comment, the release
(``# v4.3.1``) whose commit it is, what a reader and an upgrade go by."""


def pinned(uses: str) -> bool:
    """Whether a step's ``uses`` names its action by a full commit sha (deps00)."""
    return PINNED.fullmatch(uses) is not None


def test_every_action_is_pinned_to_a_full_commit_sha_its_release_in_a_comment():
    """A tag such as ``actions/checkout@v4`` runs whatever its owner points it at that day,
    in the gate job too (which holds the base repository's token); a sha runs the reviewed
    commit (deps00). The comment names the release so an upgrade is read, not guessed."""
    steps = [s for job in workflow()["jobs"].values() for s in job["steps"] if "uses" in s]
    assert len(steps) == 7  # checkout, setup-python (each job) and setup-node
    assert all(pinned(s["uses"]) for s in steps), [s["uses"] for s in steps]
    lines = [x for x in WORKFLOW.read_text().splitlines() if re.match(r"\s*(- )?uses:", x)]
    found = [RELEASE.match(x) for x in lines]
    assert all(found), lines
    assert {m["uses"]: m["release"] for m in found if m} == {
        "actions/checkout@34e114876b0b11c390a56381ad16ebd13914f8d5": "v4.3.1",
        "actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065": "v5.6.0",
        "actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020": "v4.4.0"}
    # what is no pin: a tag, a branch, a short sha, a sha in capitals
    for bad in ("actions/checkout@v4", "actions/checkout@main", "actions/checkout@34e1148",
                "actions/checkout@34E114876B0B11C390A56381AD16EBD13914F8D5"):
        assert not pinned(bad), bad
