"""KI234/KI235 at the gate for a run whose group file is older than the run (break94).

The gate judged only the runs whose group file a range adds. A group file added before
its run (by hand, past the hook: a base broken by KI216) made the pull request adding the
run itself add no group file, and a run 1,000x ahead of its group landed unsaid. The run
object the range adds is looked up in its group (two path lookups: O(change)).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from kistore.core import layout

from ..prs import Remote
from .test_history_names import metadata_file


def _add(remote: Remote, docs: list[dict]) -> None:
    path = remote.clone.parent / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    remote.kistore("add", "--allow-dangling", str(path))


def _untracked(clone: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "store"], cwd=clone,
        capture_output=True, text=True, check=True).stdout
    return sorted(out.split())


def _set_aside(clone: Path, paths: list[str], where: Path) -> None:
    for rel in paths:
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(clone / rel), str(where / rel))


def _put_back(where: Path, paths: list[str]):
    def change(clone: Path) -> None:
        for rel in paths:
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(where / rel), str(clone / rel))
    return change


def test_a_run_whose_group_file_landed_first_is_judged_when_it_lands(published, tmp_path, kit):
    remote = Remote(published, tmp_path)
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency in (("real-1", 3_680_000), ("real-2", 3_810_000)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name)]
    assert remote.pr("a group of two real runs", lambda c: _add(remote, docs)).accepted

    impl = kit.implementation("proj-slip", name="impl-slip")
    slip = kit.run(protocol, env, impl, workload, latency=3_700, name="slip")  # us as ns
    _add(remote, [impl, slip])
    new = _untracked(remote.clone)
    [group_file] = [p for p in new if p.startswith(layout.GROUPS_DIR + "/")]
    rest = [p for p in new if p != group_file]
    aside = tmp_path / "aside"
    _set_aside(remote.clone, new, aside)

    # the group file alone, past the hook (the gate refuses it: KI216, no such run)
    assert remote.pr("the slip's group file", _put_back(aside, [group_file]),
                     hook=False).accepted
    # then the run itself, by a pull request that adds no group file
    pushed = remote.pr("the slip", _put_back(aside, rest))
    assert pushed.accepted, pushed.output  # a warning: an honest fast kernel exists
    assert "warning KI234 rank-outlier: would rank #1 of its comparison group" in pushed.output
    assert "with 3,700 ns, 995x better than" in pushed.output, pushed.output
    assert metadata_file(remote, kit.digest(slip)).exists()
