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

With ``--block NAME`` it writes instead one package's requirement of a lock read on
stdin, as pip reads it, in the form above: ``make install`` installs pip from it first
(mend02: a ``sed`` range cut it from constraints.txt, which a lock with CRLF line ends
cut after its first line). That mode reads no index and needs only the standard library
(it runs in the venv just made, before anything is installed there).

Errors: exit 2 with the pin and what is wrong on stderr, nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.request
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the hashing mode's; --block runs where packaging is not installed
    from packaging.tags import Tag

PYPI = "https://pypi.org/simple"
"""The index whose files CI installs (pip's default index)."""
ACCEPT = "application/vnd.pypi.simple.v1+json"
"""PEP 691's media type: the simple API's project page as JSON, with each file's hashes."""
PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9.+!_-]+)")
"""One pin as ``pip freeze`` writes it: a name and its exact version, nothing else."""
HASH = re.compile(r"--hash=sha256:(?P<digest>[0-9a-f]{64})")
"""One ``--hash`` option of a lock's requirement, as :func:`hashed` writes it."""
COMMENT = re.compile(r"(^|\s+)#.*$")
"""A comment in a requirements file: pip's own rule (``pip._internal.req.req_file``)."""


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
    # Lazy: the hashing mode's; --block runs in a venv where packaging is not installed.
    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        canonicalize_name,
        parse_sdist_filename,
        parse_wheel_filename,
    )
    from packaging.version import Version

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
    url = f"{index.rstrip('/')}/{normalized(name)}/"
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
    # Lazy: the hashing mode's; --block runs in a venv where packaging is not installed.
    from packaging.tags import sys_tags

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


def normalized(name: str) -> str:
    """Return a project name as PEP 503 compares it (``Pip``, ``ruamel.yaml``: ``ruamel-yaml``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(lines: Iterable[str]) -> Iterator[str]:
    """Yield a requirements file's requirements, one a logical line, as pip joins them.

    pip's rules (``pip._internal.req.req_file``): a line ending in a backslash continues on
    the next, a comment line ends a continued one, a comment (``#`` at the start or after
    a space) is no part of the requirement. Line ends ``\\n`` and ``\\r\\n`` alike (a lock
    saved on Windows, mend02); spaces collapsed. Empty requirements are left out.
    """
    joined: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line.endswith("\\") and not COMMENT.match(line):
            joined.append(line[:-1])
            continue
        joined.append(" " + line if COMMENT.match(line) else line)
        requirement = " ".join(COMMENT.sub("", "".join(joined)).split())
        joined = []
        if requirement:
            yield requirement
    requirement = " ".join(COMMENT.sub("", "".join(joined)).split())
    if requirement:  # a last line ending in a backslash
        yield requirement


def block(lines: Iterable[str], name: str) -> str:
    """Return ``name``'s requirement in a lock: its pin and its hashes, as :func:`hashed` writes.

    Args:
        lines: the lock's lines (constraints.txt).
        name: the project (any spelling: ``Pip``; ``pip-tools`` is another project).

    Returns:
        ``NAME==VERSION \\`` and one ``    --hash=sha256:HEX`` line per digest, in the
        lock's order, ending in a newline.

    Raises:
        LockError: the lock pins ``name`` not once, or not as ``NAME==VERSION`` followed by
            ``--hash=sha256:`` options only, or with none.
    """
    found = []
    for requirement in requirements(lines):
        pin, _, rest = requirement.partition(" ")
        if "==" in pin and normalized(pin.partition("==")[0]) == normalized(name):
            found.append((pin, rest.split()))
    if len(found) != 1:
        raise LockError(f"the lock pins {name} {len(found)} times: once is what pip installs")
    [(pin, options)] = found
    if PIN.fullmatch(pin) is None or not options or not all(
            HASH.fullmatch(option) for option in options):
        raise LockError(f"{pin}: the lock's requirement is no NAME==VERSION pin followed by "
                        f"--hash=sha256: options only ({' '.join(options) or 'no hash'})")
    return " \\\n".join([pin, *(f"    {option}" for option in options)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Read pins on stdin, write the hashed lock on stdout; 0, or 2 with the reason.

    With ``--block NAME``: read a lock on stdin, write ``NAME``'s requirement
    (:func:`block`).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-url", default=PYPI, help=f"a PEP 691 index ({PYPI})")
    parser.add_argument("--block", metavar="NAME",
                        help="write NAME's requirement of the lock on stdin (no index read)")
    args = parser.parse_args(argv)
    try:
        if args.block:
            sys.stdout.write(block(sys.stdin, args.block))
            return 0
        text = "\n".join(hashed(sys.stdin, args.index_url))
    except (LockError, OSError) as error:
        print(f"hash_lock: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
