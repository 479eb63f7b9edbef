"""Data out (docs/export.md): the store at one commit as tables for DuckDB, pandas and Spark.

``kistore export OUT`` writes four tables -- ``runs``, ``groups``, ``attestations``,
``manifests`` -- as Parquet (partitioned, row groups), CSV or JSON Lines, verified while
read, documented column by column in docs/export.md. This package sits above the query and
citation layers, whose answers it writes (ranks as ``kistore rank`` gives them, first
commits and permalinks as ``kistore cite`` does), and below the command line.

Modules: :mod:`.pipeline` (the phases), :mod:`.columns` (the tables), :mod:`.derive`
(groups, ranks, evidence), :mod:`.reading` (verified reads of the commit), :mod:`.rows`,
:mod:`.scratch` (on-disk working state), :mod:`.writers` (Parquet, CSV, JSON Lines) and
:mod:`.outdir` (``_manifest.json``, ``--since``).
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from .columns import TABLES as TABLES
    from .pipeline import ExportResult as ExportResult
    from .pipeline import export as export
    from .writers import FORMATS as FORMATS

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "columns": ["TABLES"],
    "pipeline": ["ExportResult", "export"],
    "writers": ["FORMATS"],
})
