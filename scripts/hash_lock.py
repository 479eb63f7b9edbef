"""Write the lock's hashes: each ``NAME==VERSION`` pin with the SHA-256 of its archives.

``make lock`` pipes ``pip freeze`` (and the lock's comment lines) through this script to
write constraints.txt, which ``make install`` installs with ``pip install --require-hashes
-r`` (pip's hash-checking mode: an archive whose SHA-256 is not listed is refused, so a
file replaced on the index, or another file a mirror serves, fails the install).

Input (stdin): lines of ``NAME==VERSION`` (what ``pip freeze`` prints) and ``#`` comments;
a line of any other form is refused (exit 2). Output (stdout): each comment as it was, then
each pin in pip's requirements-file syntax, sorted as given::

    NAME==VERSION \\
        --hash=sha256:<64 hex digits> \\
        --hash=sha256:<64 hex digits>

The archives listed are those pip may pick for that release on the platform of the Python
running this script (run it with the venv's Python, which is CI's: CPython 3.11, Linux
x86_64): every wheel with a tag among :func:`packaging.tags.sys_tags` (every manylinux
level up to this machine's glibc, so a runner with an older glibc finds its pick listed
too), and the source distribution. Digests come from the index's JSON simple API (PEP 691;
``--index-url``, default PyPI's), as pip itself reads them. A pin with no such archive
(no compatible wheel and no sdist) is refused: pip could not install it either.

Errors: exit 2 with the pin and what is wrong on stderr, nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.request
from collections.abc import Iterable, Iterator
from typing import Any

from packaging.tags import Tag, sys_tags
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

PYPI = "https://pypi.org/simple"
"""The index whose files CI installs (pip's default index)."""
ACCEPT = "application/vnd.pypi.simple.v1+json"
"""PEP 691's media type: the simple API's project page as JSON, with each file's hashes."""
PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9.+!_-]+)")
"""One pin as ``pip freeze`` writes it: a name and its exact version, nothing else."""


class LockError(Exception):
    """A pin this script cannot hash (its message names the pin and why)."""


def archives(files: Iterable[dict[str, Any]], name: str, version: str,
             tags: frozenset[Tag]) -> list[str]:
    """Return the SHA-256 digests (hex, sorted) of the release's archives pip may install here.

    Args:
        files: the ``files`` of a PEP 691 project page (each with ``filename`` and
            ``hashes``).
        name: the project's name (any spelling).
        version: the pinned version.
        tags: the tags this interpreter installs (:func:`packaging.tags.sys_tags`).

    Returns:
        The digests of each wheel of that version whose tags meet ``tags`` and of each
        source distribution of it; a file of another version, project or platform is left
        out, as are files of another format (``.egg``, ``.exe``).

    Raises:
        LockError: no such archive, or one of them without a SHA-256 on the index.
    """
    wanted, found = (canonicalize_name(name), Version(version)), []
    for entry in files:
        filename = entry["filename"]
        try:
            if filename.endswith(".whl"):
                project, release, _, file_tags = parse_wheel_filename(filename)
                if not file_tags & tags:
                    continue
            else:
                project, release = parse_sdist_filename(filename)
        except (InvalidWheelFilename, InvalidSdistFilename):
            continue  # an egg, an installer, a name that is no archive pip installs
        if (project, release) != wanted:
            continue
        digest = entry.get("hashes", {}).get("sha256")
        if not digest:
            raise LockError(f"{name}=={version}: the index gives no SHA-256 for {filename}")
        found.append(digest)
    if not found:
        raise LockError(f"{name}=={version}: no wheel for this platform and no sdist on the "
                        "index: pip could not install it here")
    return sorted(set(found))


def project_files(index: str, name: str) -> list[dict[str, Any]]:
    """Return the ``files`` of ``name``'s PEP 691 page on ``index`` (network; OSError)."""
    url = f"{index.rstrip('/')}/{canonicalize_name(name)}/"
    request = urllib.request.Request(url, headers={"Accept": ACCEPT})
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310 - https index
        files: list[dict[str, Any]] = json.load(answer)["files"]
    return files


def hashed(lines: Iterable[str], index: str) -> Iterator[str]:
    """Yield the lock's lines, each pin followed by its ``--hash`` options (module doc).

    Raises:
        LockError: a line that is neither a comment nor a pin, or a pin :func:`archives`
            refuses.
    """
    tags = frozenset(sys_tags())
    for line in (x.rstrip("\n") for x in lines):
        if not line.strip() or line.startswith("#"):
            yield line
            continue
        pin = PIN.fullmatch(line.strip())
        if pin is None:
            raise LockError(f"{line!r} is no NAME==VERSION pin (pip freeze's form)")
        digests = archives(project_files(index, pin["name"]), pin["name"], pin["version"],
                           tags)
        yield " \\\n".join([line.strip(), *(f"    --hash=sha256:{d}" for d in digests)])


def main(argv: list[str] | None = None) -> int:
    """Read pins on stdin, write the hashed lock on stdout; 0, or 2 with the reason."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-url", default=PYPI, help=f"a PEP 691 index ({PYPI})")
    args = parser.parse_args(argv)
    try:
        text = "\n".join(hashed(sys.stdin, args.index_url))
    except (LockError, OSError) as error:
        print(f"hash_lock: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
