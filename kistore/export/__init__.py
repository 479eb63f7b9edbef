"""Data out (DESIGN §7c): the store at one commit as tables for DuckDB, pandas and Spark.

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

from .columns import TABLES
from .pipeline import ExportResult, export
from .writers import FORMATS

__all__ = ["FORMATS", "TABLES", "ExportResult", "export"]
