"""docs/contributing.md runs as written: its manifests add cleanly and the run ranks in its group.

The doc's ``json FILE`` blocks are written to files and its ``sh`` blocks run, in order, in
one bash session (``set -e``) in a stand-in for a clone of this repository: a fresh store
holding what the doc reuses from this repository's own ``store/`` (the protocol, the
environment, the workload, the group's runs and their implementations, copied with
``kistore cat --manifest``, as the doc tells a contributor to), with an ``origin`` to push
to. No real data is needed: this repository's ``store/`` is part of the checkout.
"""

from __future__ import annotations

import json
import re
import subprocess

from .conftest import ROOT, reader_env

DOC = (ROOT / "docs" / "contributing.md").read_text()
FILES = dict(re.findall(r"```json (\S+)\n(.*?)```", DOC, re.DOTALL))
COMMANDS = [line for block in re.findall(r"```sh\n(.*?)```", DOC, re.DOTALL)
            for line in block.splitlines() if line.strip()]
RUN = json.loads(FILES["run.json"])
GROUP = tuple(f"BenchmarkRun/kernelbench-h100-pcie-lambdalabs-{variant}-level1-1-square-matrix-"
              "multiplication" for variant in ("eager", "compile-inductor-default"))
"""The runs already in the doc's comparison group in this repository's store/."""


def kistore(cwd, env, *args: str) -> str:
    done = subprocess.run(["kistore", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
    return done.stdout


def seeded_clone(tmp_path, env):
    """A committed store holding what the doc reuses, pushed to a bare ``origin``."""
    seed = tmp_path / "seed"
    seed.mkdir()
    spec = RUN["spec"]
    refs = [spec["protocolDigest"], spec["environmentDigest"], spec["workloadDigest"], *GROUP]
    for i, ref in enumerate(refs):
        text = kistore(ROOT, env, "cat", "--manifest", ref)
        (seed / f"{i}.json").write_text(text)
        implementation = json.loads(text)["spec"].get("implementationDigest")
        if implementation:
            (seed / f"{i}-implementation.json").write_text(
                kistore(ROOT, env, "cat", "--manifest", implementation))
    clone = tmp_path / "clone"
    kistore(tmp_path, env, "init", str(clone))
    kistore(clone, env, "add", "--commit", "-m", "the reused manifests", str(seed))
    for args in (["init", "-q", "--bare", "-b", "main", str(tmp_path / "origin.git")],
                 ["-C", str(clone), "remote", "add", "origin", str(tmp_path / "origin.git")],
                 ["-C", str(clone), "push", "-q", "origin", "main"]):
        subprocess.run(["git", *args], env=env, check=True)
    return clone


def test_the_doc_holds_two_manifests_and_its_commands():
    assert sorted(FILES) == ["impl.json", "run.json"]
    assert any(c.startswith("kistore add --commit") and c.endswith("impl.json run.json")
               for c in COMMANDS)
    assert "kistore check origin/main..HEAD" in COMMANDS


def test_the_contributed_run_adds_cleanly_and_ranks_in_the_intended_group(tmp_path):
    env = reader_env(tmp_path)
    clone = seeded_clone(tmp_path, env)
    for name, text in FILES.items():
        (clone / name).write_text(text)
    script = "set -euo pipefail\n" + "".join(f"echo '>>> {i}'\n{c}\n"
                                            for i, c in enumerate(COMMANDS))
    done = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert "Traceback" not in done.stdout + done.stderr
    outputs = dict(zip(COMMANDS, re.split(r"^>>> \d+\n", done.stdout, flags=re.M)[1:],
                       strict=True))
    # the digest the doc writes into run.json is impl.json's, as `kistore digest` prints it
    assert outputs["kistore digest impl.json"] == \
        f"{RUN['spec']['implementationDigest']} Implementation example-tiled-matmul\n"
    # the template is the stored run as `add` takes it
    template = json.loads((clone / "template.json").read_text())
    assert list(template) == ["apiVersion", "kind", "metadata", "spec"]
    assert template["metadata"]["name"] == GROUP[0].split("/")[1]
    assert "ok: origin/main..HEAD: 0 errors, 0 warnings" in done.stdout
    # in its group, ranked #1 of 3: the group this repository's store/ holds (its listing,
    # store/groups/KEY/, is the runs seeded above: the doc's "two runs" is the store's own)
    page = json.loads(kistore(clone, env, "show", "--json",
                              f"BenchmarkRun/{RUN['metadata']['name']}"))
    assert (page["rank"], page["groupSize"], page["value"]) == (1, 3, 3520000)
    key = page["comparisonKey"].removeprefix("sha256:")
    listed = sorted(p.name for p in (ROOT / "store/groups/sha256" / key[:2] / key[2:]).iterdir())
    runs = json.loads(kistore(clone, env, "ls", "--kind", "BenchmarkRun", "--json"))
    assert listed == sorted(r["digest"].removeprefix("sha256:") for r in runs
                            if r["digest"] != page["digest"])
    assert subprocess.run(["git", "-C", str(tmp_path / "origin.git"), "rev-parse",
                           "refs/heads/add-example-tiled-matmul"], env=env,
                          capture_output=True).returncode == 0


ERRORS = [row.split(" | ")[0].removeprefix("| ") for row in
          DOC.split("## Common errors", 1)[1].split("\n\n", 1)[1].splitlines()[2:]
          if row.startswith("| `")]
"""The first cell of each row of the doc's "Common errors" table, in order."""


def _mistakes(clone, env) -> list[tuple[list[str], dict]]:
    """What the table's rows come from, in its order: (files to add, run.json as changed)."""
    spec = RUN["spec"]
    shown = clone / "shown.json"
    shown.write_text(kistore(clone, env, "show", "--json", spec["protocolDigest"]))
    edits = [
        ([str(shown)], {}),
        (["run.json"], {}),
        (["impl.json", "run.json"], {"environmentDigest": spec["environmentDigest"][:15]}),
        (["impl.json", "run.json"], {"metadata": GROUP[0].split("/")[1]}),
        (["impl.json", "run.json"], {"timing": {**spec["timing"],
                                                "latencyNs": {**spec["timing"]["latencyNs"],
                                                              "mean": 0}}}),
        (["impl.json", "run.json"], {"observedAt": "2026-11-30 14:05"}),
        (["impl.json", "run.json"], {"timing": {**spec["timing"], "primaryStatistic": "min"}}),
        (["impl.json", "run.json"], {"timing": {**spec["timing"], "latencyNs": {
            k: v // 1000 for k, v in spec["timing"]["latencyNs"].items()}}}),  # us as ns
        (["impl.json", "run.json"], {"timing": {**spec["timing"], "latencyNs": {
            k: v * 1000 for k, v in spec["timing"]["latencyNs"].items()}}}),  # 1,000x slower
    ]
    changed = []
    for files, edit in edits:
        run = json.loads(FILES["run.json"])
        name = edit.pop("metadata", None)
        run["spec"] |= edit
        if name:
            run["metadata"]["name"] = name
        changed.append((files, run))
    return changed


def test_each_common_error_is_the_message_add_prints(tmp_path):
    env = reader_env(tmp_path)
    clone = seeded_clone(tmp_path, env)
    (clone / "impl.json").write_text(FILES["impl.json"])
    mistakes = _mistakes(clone, env)
    assert len(ERRORS) == len(mistakes), ERRORS
    for cell, (files, run) in zip(ERRORS, mistakes, strict=True):
        (clone / "run.json").write_text(json.dumps(run))
        done = subprocess.run(["kistore", "add", *files], cwd=clone, env=env,
                              capture_output=True, text=True)
        warned = cell.startswith("`warning:")
        assert done.returncode == (0 if warned else 1), (cell, done.stderr)
        said = done.stderr.replace("`", "")
        for quoted in re.findall(r"`([^`]*)`", cell):
            for fragment in quoted.split("..."):
                assert fragment.strip() in said, (fragment, said)
        subprocess.run(["git", "clean", "-qfd", "store"], cwd=clone, env=env, check=True)
