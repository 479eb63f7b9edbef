"""The README's examples run as written, in order, from a fresh clone (issue 18, item 7).

Every indented line of README.md that starts with ``kistore`` or ``git`` is an example; they
run in one bash session (``set -e``: the first failing example fails the test) in a copy of
what a clone holds (README.md and examples/, in a folder named ``kistore`` as the README
says), with a fresh HOME and this kistore on PATH. Lines that read the real data
(``../shared/data``, the shared folder beside the clone) run only where it is; elsewhere
they are left out, as the data is not in a clone. They write nothing into the clone
(fresh98 LOW: the store, its server, the site and the exports were left in it).
"""

from __future__ import annotations

import shutil
import subprocess

from .conftest import DATA, ROOT, reader_env

EXAMPLE_STARTS = ("kistore ", "git ")
UNTIL_STOPPED = ("kistore site serve",)
"""Examples that run until stopped (a preview server): tests/site covers them."""


def examples(readme: str) -> list[str]:
    """Return the README's example command lines, in order (indented code, kistore or git)."""
    found = []
    for line in readme.splitlines():
        if line.startswith("    ") and line.strip().startswith(EXAMPLE_STARTS) and \
                not line.strip().startswith(UNTIL_STOPPED):
            found.append(line.strip())
    return found


def run_examples(tmp_path, lines: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``lines`` in one bash session (``set -euo pipefail``) in a copy of a clone.

    The copy holds README.md and examples/, with ``../shared`` beside it where the real data
    is; each line is echoed first (``>>> LINE``) so the output says which ran.
    """
    clone = tmp_path / "kistore"
    clone.mkdir()
    shutil.copy(ROOT / "README.md", clone)
    shutil.copytree(ROOT / "examples", clone / "examples")
    if DATA.is_dir():
        (tmp_path / "shared").symlink_to(DATA.parent)
    script = "set -euo pipefail\n" + "".join(
        f"echo '>>> {x.replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'\n{x}\n"
        for x in lines)
    return subprocess.run(["bash", "-c", script], cwd=clone, env=reader_env(tmp_path),
                          capture_output=True, text=True)


def test_the_readme_examples_run_as_written_from_a_fresh_clone(tmp_path):
    # Issue 18: `kistore digest manifest.json` (no such file) and `--at v1` (no such tag)
    # failed as written; the add example read ../shared, which a clone does not have.
    lines = examples((ROOT / "README.md").read_text())
    assert len(lines) >= 20, lines
    if not DATA.is_dir():
        lines = [x for x in lines if "shared/data" not in x]
    done = run_examples(tmp_path, lines)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    ran = [x.removeprefix(">>> ") for x in done.stdout.splitlines() if x.startswith(">>> ")]
    assert ran == lines
    assert "Traceback" not in done.stdout + done.stderr
    # what they wrote is beside the clone, nothing in it
    assert sorted(p.name for p in (tmp_path / "kistore").iterdir()) == ["README.md", "examples"]
    assert {"my-index", "my-index.git", "public", "out", "runs-csv"} <= {
        p.name for p in tmp_path.iterdir()}


def test_the_readme_examples_publish_once_a_key_is_trusted(tmp_path):
    """A new user who trusts the key the examples make (docs/attestations.md) then publishes.

    The citation example left ``origin`` at a placeholder GitHub URL, and ``site build`` and
    ``export``, which ask ``origin`` for its notes where a key is trusted, could not ask it:
    each warned to run ``kistore notes fetch origin``, which could not run either (reviewer
    fresh93: refused, with no way on). The example now puts the examples' server back.
    """
    lines = [x for x in examples((ROOT / "README.md").read_text()) if "shared/data" not in x]
    push = next(i for i, x in enumerate(lines) if x.startswith("kistore notes push origin"))
    lines[push + 1:push + 1] = [
        "kistore trust add ~/.kistore/k.pub --role rerun",
        "git add store/trust && git commit -q -m 'trust the key k for reruns'",
        "git push -q origin main"]
    done = run_examples(tmp_path, lines)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert "built " in done.stdout and "exported ../out" in done.stdout
    assert "could not ask origin" not in done.stderr, done.stderr[-3000:]
    assert "refusing" not in done.stderr, done.stderr[-3000:]


RETITLE = (
    "python -c 'import glob, json, os; p = next(f for f in glob.glob(\"store/metadata/sha256/*/"
    "*.json\") if json.load(open(f))[\"name\"] == \"sol-submission-20464\"); d = json.load("
    "open(p)); d[\"title\"] += \" (corrected)\"; os.chmod(p, 0o644); open(p, \"w\").write("
    "json.dumps(d, sort_keys=True, separators=(\",\", \":\"), ensure_ascii=False))'")
"""A reader's pull request: the run's title corrected in its metadata file (KI405, info)."""


def test_the_readme_gate_example_checks_a_range_with_a_commit(tmp_path):
    """``kistore check origin/main..HEAD`` of the README, run on a range that holds a commit.

    As written, the examples push ``main`` and check ``origin/main..HEAD`` at once: an empty
    range ("nothing was checked"), which passed whatever the gate did. A commit is made
    between the push and the check (a reader's change, not a README line), so the check
    has something to judge, and says what it judged.
    """
    lines = [x for x in examples((ROOT / "README.md").read_text()) if "shared/data" not in x]
    gate = lines.index("kistore check origin/main..HEAD     # the pull-request gate: what "
                       "the range adds")
    assert lines[gate - 1].startswith("kistore verify --at origin/main")
    lines[gate:gate] = [RETITLE, "git commit -q -am 'correct the run title'"]
    done = run_examples(tmp_path, lines[:gate + 3])
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    said = done.stdout.split(">>> kistore check origin/main..HEAD")[1]
    assert "info KI405 metadata-updated: " in said, said
    assert "/title: stored " in said and " (corrected)" in said, said
    # the run the edit touches is judged too: its references the first add let dangle
    assert said.count("warning KI201 reference-unresolved: sha256:") == 2, said
    assert "ok: origin/main..HEAD: 0 errors, 2 warnings, 1 info" in said, said
    assert "nothing was checked" not in done.stderr, done.stderr
