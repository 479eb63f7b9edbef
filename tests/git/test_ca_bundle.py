"""The ``kistore`` command imports pygit2 without loading the CA bundle (task cost96, item 4).

pygit2's import parsed the system's CA bundle twice (~106 M instructions of every command
importing it: OpenSSL's default paths at libgit2's init, and ``pygit2.settings``), for a
TLS kistore never uses: its fetches and pushes run the ``git`` binary.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import kistore

from ..conftest import python_c

SOURCE = Path(kistore.__file__).parent

IMPORTED = """
import json, os, ssl, sys
from kistore.git import ca_bundle
if sys.argv[1] == "armed":
    ca_bundle.arm()
import pygit2
print(json.dumps([pygit2.settings.ssl_cert_file, os.environ.get("SSL_CERT_FILE"),
                  type(pygit2.__spec__.loader).__name__,
                  pygit2.__loader__ is pygit2.__spec__.loader,
                  any(isinstance(f, ca_bundle._WithoutBundle) for f in sys.meta_path),
                  ssl.get_default_verify_paths().cafile]))
"""


def _imported(mode: str, **env: str) -> list:
    base = {k: v for k, v in os.environ.items() if k != "SSL_CERT_FILE"}
    return json.loads(python_c(IMPORTED, mode, env=base | env).stdout)


def test_armed_pygit2_takes_no_bundle_and_the_environment_is_as_it_was():
    cert_file, variable, loader, same, left, _ = _imported("armed")
    assert cert_file is None  # libgit2 got no CA file: no bundle parsed
    assert variable is None  # unset before, unset after (no /dev/null left for git's children)
    assert loader == "SourceFileLoader" and same  # pygit2's own loader, not the wrapper
    assert not left  # the finder is gone once used


def test_a_users_ssl_cert_file_is_given_back(tmp_path):
    mine = tmp_path / "corporate-ca.pem"
    mine.write_text("not read by the import\n")
    cert_file, variable, *_ = _imported("armed", SSL_CERT_FILE=str(mine))
    assert (cert_file, variable) == (None, str(mine))  # git's children see the user's value


def test_unarmed_pygit2_loads_the_bundle_as_before():
    # a program importing kistore keeps pygit2's own set-up
    cert_file, variable, *_, default = _imported("plain")
    if default is None:
        pytest.skip("this machine has no default CA file: pygit2 loads none either way")
    assert (cert_file, variable) == (default, None)


def test_the_console_script_arms_it(tmp_path):
    from kistore.store import Store

    Store.init(tmp_path / "s")
    code = ("import atexit, sys\n"
            "sys.argv = ['kistore', '--store', sys.argv[1], 'verify']\n"
            "atexit.register(lambda: print('cafile', __import__('pygit2').settings.ssl_cert_file,"
            " file=sys.stderr))\n"
            "from kistore._entry import run\nrun()\n")
    ran = python_c(code, str(tmp_path / "s"), check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.splitlines()[-1] == "cafile None"  # verify imported pygit2, no bundle


NETWORK = re.compile(r"\bclone_repository\b|\bRemoteCallbacks\b|\.ls_remotes\(|"
                     r"\bremotes\[[^\]]*\]\s*\.\s*(?:fetch|push|connect)\b|"
                     r"\bremotes\.create(?:_anonymous)?\(")


def test_kistore_never_speaks_https_through_libgit2():
    # what makes leaving the bundle out safe: a fetch through libgit2 would need it back
    # (kistore.git.ca_bundle says how); every fetch and push runs the git binary
    used = [f"{path.relative_to(SOURCE)}: {m.group(0)}" for path in sorted(SOURCE.rglob("*.py"))
            if path.name != "ca_bundle.py"  # which names them to say so
            for m in NETWORK.finditer(path.read_text(encoding="utf-8"))]
    assert used == []
