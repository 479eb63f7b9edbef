"""The README's examples run as written, in order, from a fresh clone (issue 18, item 7).

Every indented line of README.md that starts with ``kistore`` or ``git`` is an example; they
run in one bash session (``set -e``: the first failing example fails the test) in a copy of
what a clone holds (README.md and examples/), with a fresh HOME and this kistore on PATH.
Lines that read the real data (``../../shared/data``, the shared folder beside the clone)
run only where it is; elsewhere they are left out, as the data is not in a clone.
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


def test_the_readme_examples_run_as_written_from_a_fresh_clone(tmp_path):
    # Issue 18: `kistore digest manifest.json` (no such file) and `--at v1` (no such tag)
    # failed as written; the add example read ../shared, which a clone does not have.
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copy(ROOT / "README.md", clone)
    shutil.copytree(ROOT / "examples", clone / "examples")
    lines = examples((ROOT / "README.md").read_text())
    assert len(lines) >= 20, lines
    if DATA.is_dir():
        (tmp_path / "shared").symlink_to(DATA.parent)
    else:
        lines = [x for x in lines if "shared/data" not in x]
    script = "set -euo pipefail\n" + "".join(
        f"echo '>>> {x.replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'\n{x}\n"
        for x in lines)
    env = reader_env(tmp_path)
    done = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    ran = [x.removeprefix(">>> ") for x in done.stdout.splitlines() if x.startswith(">>> ")]
    assert ran == lines
    assert "Traceback" not in done.stdout + done.stderr
