"""`make demo` (scripts/demo.sh) also builds the site, verifies it and says where to open it.

Runs the script itself on the real data of ``shared/data``: the import, the ranked answer,
then ``kistore site build`` and ``kistore site verify``. Skipped, saying so, where
``shared/`` is not beside the checkout (set ``KISTORE_SHARED``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import DATA, ROOT


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA} (set KISTORE_SHARED)")
def test_demo_builds_the_site_and_prints_where_to_open_it(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path), "KISTORE_SHARED": str(DATA.parent),
           "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")], env=env, text=True,
                          capture_output=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [site] = re.findall(r"^demo site:  (\S+)$", done.stdout, re.M)
    assert f"open file://{site}/index.html" in done.stdout
    assert "every page equals a fresh build of commit" in done.stdout
    built = json.loads((Path(site) / "build.json").read_text())
    assert built["pages"] > 3000 and (Path(site) / "index.html").is_file()
    # the run the demo shows, by name: a page that redirects to its run page
    name = Path(site) / "names" / "sol-kernel-3-submission-25504" / "index.html"
    assert f"file://{name}" in done.stdout and name.is_file()
