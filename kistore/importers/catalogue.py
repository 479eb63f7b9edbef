"""Regenerate the catalogue of KernelBench run digests (rule KI226) from the upstream files.

``make catalogue`` (``python -P -m kistore.importers.catalogue DATA``) re-imports the
KernelBench timing files under ``DATA/kernelbench`` in memory (nothing is written to a
store), takes the digest of every BenchmarkRun the importer makes, and writes
:data:`kistore.core.provenance.CATALOGUE_FILE` with them added to the lines already there
(:func:`catalogue_text`: append-only, sorted). A change to the
importer that changes a run's bytes thus adds digests and removes none; the diff is
reviewed like code (the gate warns of it, KI429).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..core.provenance import CATALOGUE_FILE, KERNELBENCH
from . import plan_import
from .common import digest_of


def run_digests(paths: Sequence[str]) -> set[str]:
    """Return the digest of every BenchmarkRun ``kistore import kernelbench PATHS`` makes.

    Args:
        paths: KernelBench files or folders (``shared/data/kernelbench``).

    Returns:
        ``sha256:<hex>`` of each run (a file kistore does not know by its bytes makes none).

    Raises:
        KistoreError: as :func:`~kistore.importers.plan_import`, or a record that does not
            build (bad data in a known file: never for the real files).
    """
    made: set[str] = set()
    for record in plan_import(KERNELBENCH, paths).records:
        made.update(digest_of(d) for d in record.build() if d["kind"] == "BenchmarkRun")
    return made


def catalogue_text(kept: Iterable[str], made: Iterable[str]) -> str:
    """Return the catalogue file's text: every digest kept and made, sorted, one a line.

    Append-only: every line of ``kept`` (the file as it was) stays, so a run an earlier
    release's importer made still passes KI226 after its importer changes.

    Args:
        kept: the file's lines so far (``sha256:<hex>``; blank lines ignored).
        made: the run digests the importer makes now (``sha256:<hex>``).

    Returns:
        Sorted, deduplicated ``sha256:<hex>`` lines, each ending in a line feed.
    """
    lines = {line.strip() for line in kept if line.strip()} | set(made)
    return "".join(line + "\n" for line in sorted(lines))


def main(argv: Sequence[str]) -> int:
    """Rewrite the catalogue beside :mod:`kistore.core.provenance` (``make catalogue``).

    Args:
        argv: ``[DATA]``, the folder holding ``kernelbench/`` (``../shared/data``).

    Returns:
        The exit code: 0, or 2 for a wrong argument list.
    """
    if len(argv) != 1:
        print("usage: python -P -m kistore.importers.catalogue DATA  (the folder holding "
              "kernelbench/)", file=sys.stderr)
        return 2
    target = Path(__file__).resolve().parent.parent / "core" / CATALOGUE_FILE
    kept = target.read_text(encoding="ascii").splitlines() if target.exists() else []
    made = run_digests([str(Path(argv[0]) / KERNELBENCH)])
    text = catalogue_text(kept, made)
    target.write_text(text, encoding="ascii")
    print(f"{target}: {text.count(chr(10))} run digests ({len(made)} made now, "
          f"{len(set(text.split()) - made)} kept from earlier releases)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
