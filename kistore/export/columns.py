"""The four exported tables, column by column: names, types, units, meanings, order.

One definition serves every writer (Parquet, CSV, JSON Lines) and docs/export.md, whose
column tables a test compares with :data:`TABLES`. Types are named as docs/export.md names
them; :func:`arrow_type` maps them onto Apache Arrow / Parquet types (pyarrow is imported
only there).

A row is staged as a list of JSON values in :attr:`Table.columns` order (what
:mod:`.rows` builds and :mod:`.scratch` keeps): strings, numbers as the manifest holds
them, booleans, null, and two objects -- ``latencyNs`` (statistic -> ns) and
``sourceNative`` (metric -> number). Timestamps are staged as RFC 3339 text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.pathnames import hashed_on

STRING = "string"
INT = "int64"
DOUBLE = "double"
BOOL = "boolean"
TIMESTAMP = "timestamp"
"""UTC, microseconds (``TIMESTAMP WITH TIME ZONE`` in DuckDB, ``timestamp`` in Spark)."""
LATENCY = "struct<statistic: double>"
"""One double field per latency statistic, in ns: the six named ones always
(:data:`NAMED_STATISTICS`), and each percentile ``pNN`` a run of the export states."""
NAMED_STATISTICS = ("mean", "median", "min", "max", "std", "geomean")
"""The statistics every ``latencyNs`` struct has, in this order, then ``pNN`` by NN."""
METRICS = "map<string, double>"
"""Metric name -> number (the source's own numeric metrics)."""


@dataclass(frozen=True, slots=True)
class Column:
    """One column of an exported table.

    Attributes:
        name: the column name, the same in every format (camelCase, as the manifests'
            JSON fields).
        type: one of :data:`STRING`, :data:`INT`, :data:`DOUBLE`, :data:`BOOL`,
            :data:`TIMESTAMP`, :data:`LATENCY`, :data:`METRICS`.
        unit: the unit of a number (``ns``), or "" for none.
        meaning: one line, as docs/export.md gives it.
    """

    name: str
    type: str
    unit: str
    meaning: str


@dataclass(frozen=True)
class Table:
    """One exported table.

    Attributes:
        name: the table (and directory) name.
        columns: every column, in staged-row order (partition columns included).
        partition: the columns the Parquet files are partitioned by, outermost first
            (``name=value`` directories; not stored inside the files).
        sort: the columns rows are sorted by inside each partition (a unique key).
        names: the column names, in staged-row order.
    """

    name: str
    columns: tuple[Column, ...]
    partition: tuple[str, ...]
    sort: tuple[str, ...]
    names: tuple[str, ...] = field(init=False)
    _positions: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(c.name for c in self.columns))
        object.__setattr__(self, "_positions", {n: i for i, n in enumerate(self.names)})

    def index(self, name: str) -> int:
        """Return the position of column ``name`` in a staged row.

        Raises:
            KeyError: no such column.
        """
        return self._positions[name]


def _c(name: str, type_: str, meaning: str, unit: str = "") -> Column:
    return Column(name, type_, unit, meaning)


GENERATION = _c("generation", INT, "the export that wrote the row: 0 for a full export, "
                "then 1, 2, ... for each `--since` export appended to it (the latest row per "
                "key is current)")

LANDING = (
    _c("landingCommit", STRING, "the commit that brought the object file onto the exported "
       "commit's first-parent line: the oldest commit of that line holding it (40 hex; "
       "`firstCommit` in a linear history, else the merge)"),
    _c("publishedAt", TIMESTAMP, "that commit's committer time (UTC): the published date "
       "`kistore cite` gives"),
)
"""Where a citation's published date comes from (:mod:`kistore.git.landing`)."""

RUNS = Table("runs", (
    _c("digest", STRING, "the run's digest, `sha256:<64 hex>`"),
    _c("name", STRING, "`metadata.name`"),
    _c("title", STRING, "`metadata.title` (null when none)"),
    _c("status", STRING, "`spec.status` (`passed`, `incorrect`, ...); only `passed` is ranked"),
    _c("observedAt", TIMESTAMP, "`spec.observedAt`, when the run was measured (UTC)"),
    _c("primaryStatistic", STRING, "`spec.timing.primaryStatistic` as the run states it"),
    _c("latencyNs", LATENCY, "`spec.timing.latencyNs`: fields `mean`, `median`, `min`, "
       "`max`, `std`, `geomean`, then each `pNN` some run states; null where a run has none. "
       "Each field is as the run states it, and `mean` is not one statistic across sources: "
       "KernelBench's is the arithmetic mean over `trials` runs, FlashInfer Trace's and "
       "SOL-ExecBench local runs' the harness's mean latency of one workload, and a "
       "SOL-ExecBench leaderboard run's (`source` `sol-execbench`, "
       "`sourceNative.metrics.sol_score` set) the board's `latency_ms`: the geometric mean of "
       "the per-workload latencies over the kernel's workloads, stored as `mean` as the "
       "published record states it (docs/importers.md)",
       "ns"),
    _c("trials", INT, "`spec.timing.trials` (null when not stated)"),
    _c("comparisonKey", STRING, "the comparison key (docs/queries.md); null when a "
       "referenced protocol or environment is not in the store"),
    _c("comparison", STRING, "the comparison the ranking policy ranks the run's family by: "
       "`measured` or `source-native` (what `kistore rank` shows)"),
    _c("rank", INT, "rank in the group by `comparison` (ties share: 1, 2, 2, 4); null when "
       "not ranked (see `unrankedReason`)"),
    _c("groupSize", INT, "number of ranked runs in the group by `comparison` (M in N of M)"),
    _c("value", DOUBLE, "the value ranked by `comparison`, in `unit`"),
    _c("unit", STRING, "unit of `value`: `ns` (measured) or the policy's (`score`)"),
    _c("unrankedReason", STRING, "why the run has no rank: `status incorrect`, `withdrawn`, "
       "`reference, never ranked`, `no value at ...`, `null at ...: no value`, `\"0.5\" at "
       "... is not a number`, `no unit at ...`, why its group could not be ranked, or, for a "
       "run in no comparison group (null `comparisonKey`), `in no comparison group: its "
       "protocol sha256:... is not in the store; add it` (what `kistore rank` says of it)"),
    _c("outlierRatio", DOUBLE, "KI234: on the run ranked 1 by `comparison` whose value beats "
       "the #2's by 100x or more, how many times (`kistore rank`'s `(!) 1,000x ahead of #2`: "
       "likely a value in another unit); null on every other run"),
    _c("implausibleLatency", STRING, "KI230: the lowest latency statistic the run states "
       "under 100 ns (`latencyNs mean 3.52 < 100 ns`: likely ms or us written as ns, as "
       "`kistore rank` marks it); null when none"),
    _c("measuredRank", INT, "rank by the measured comparison (latency at the protocol's "
       "primary statistic, lower first)"),
    _c("measuredGroupSize", INT, "ranked runs of the group by the measured comparison"),
    _c("measuredValue", DOUBLE, "latency at the protocol's primary statistic", "ns"),
    _c("sourceNativeRank", INT, "rank by the source-native comparison; null unless the "
       "policy declares one for the family"),
    _c("sourceNativeGroupSize", INT, "ranked runs of the group by the source-native "
       "comparison"),
    _c("sourceNativeValue", DOUBLE, "the source-native value ranked, in `sourceNativeUnit`"),
    _c("sourceNativeUnit", STRING, "unit of `sourceNativeValue` (e.g. `score`)"),
    _c("evidenceLevel", STRING, "`source-native` or `verified` (a trusted rerun reproduced "
       "it)"),
    _c("withdrawn", BOOL, "a trusted maintainer withdrew it (never ranked)"),
    _c("communityAttestations", INT, "valid community attestations, one per key"),
    _c("workloadDigest", STRING, "`spec.workloadDigest`"),
    _c("protocolDigest", STRING, "`spec.protocolDigest`"),
    _c("environmentDigest", STRING, "`spec.environmentDigest`"),
    _c("implementationDigest", STRING, "`spec.implementationDigest`"),
    _c("source", STRING, "`spec.sourceNative.source` (e.g. `kernelbench`); Parquet partition"),
    _c("hardware", STRING, "GPU product of the run's environment, as the driver names it "
       "(`NVIDIA B200`); Parquet partition"),
    _c("hardwareArchitecture", STRING, "`hardware.architecture` of the environment "
       "(`sm_100`)"),
    _c("workload", STRING, "`metadata.name` of the workload"),
    _c("implementation", STRING, "`metadata.name` of the implementation"),
    _c("project", STRING, "`spec.project` of the implementation"),
    _c("family", STRING, "the protocol's comparability family"),
    _c("externalId", STRING, "`spec.sourceNative.externalId`, the source's own id"),
    _c("sourceNative", METRICS, "the numeric metrics of `spec.sourceNative.metrics`, "
       "verbatim (other values: `manifests.object`)"),
    _c("firstCommit", STRING, "the commit that first added the run's object file (40 hex)"),
    _c("addedAt", TIMESTAMP, "that commit's committer time (UTC)"),
    _c("permalink", STRING, "the object file at `firstCommit` (`kistore cite`); null when "
       "the store has no permalink template and no known forge remote"),
    *LANDING,
    GENERATION,
), partition=("source", "hardware"), sort=("digest",))

GROUPS = Table("groups", (
    _c("comparisonKey", STRING, "the comparison key"),
    _c("comparison", STRING, "`measured` or `source-native`: one row per comparison the "
       "group is ranked by"),
    _c("policyComparison", BOOL, "true for the comparison the ranking policy chooses "
       "(what `kistore rank` shows)"),
    _c("family", STRING, "the protocol's comparability family"),
    _c("workloadDigest", STRING, "the key's workload digest (null when the protocol's "
       "`keyFields` leave it out)"),
    _c("workload", STRING, "`metadata.name` of that workload"),
    _c("hardware", STRING, "the key's GPU product"),
    _c("protocolDigest", STRING, "the key's protocol digest"),
    _c("primaryStatistic", STRING, "the key's primary statistic"),
    _c("metric", STRING, "JSON Pointer of the ranked value in a run's spec"),
    _c("order", STRING, "`ascending` (lower first) or `descending`"),
    _c("unit", STRING, "unit of the ranked values"),
    _c("size", INT, "ranked runs (M in N of M)"),
    _c("runs", INT, "every run of the group: ranked, unranked, references and excluded"),
    _c("firstDigest", STRING, "digest of the run ranked 1 (the lowest digest among ties); "
       "null when none is ranked"),
    _c("firstValue", DOUBLE, "its value, in `unit`"),
    _c("error", STRING, "why the group could not be ranked (its runs disagree in unit), "
       "else null"),
    GENERATION,
), partition=(), sort=("comparisonKey", "comparison"))

ATTESTATIONS = Table("attestations", (
    _c("subject", STRING, "digest of the manifest attested (usually a run)"),
    _c("bundleDigest", STRING, "`sha256:` of the attestation bundle's bytes (its identity)"),
    _c("type", STRING, "`reproduction`, `rerun`, `note`, `dispute`, `withdrawal`; for an "
       "invalid bundle, what it claims (null when unreadable)"),
    _c("keyid", STRING, "OpenSSH SHA-256 fingerprint of the signing key"),
    _c("valid", BOOL, "the bundle verifies (its signature good for its subject); whether "
       "it counts is `counted`, how is `effect`"),
    _c("counted", BOOL, "it counts toward the run's evidence (`kistore attestations "
       "--json`'s `counted`): `effect` is `community`, `verifies`, `withdraws` or "
       "`disagrees` (`kistore.attest.evidence.COUNTED`); false for an invalid one and for a "
       "valid one that does not count: `not-counted` (its key was not trusted for the "
       "role when it entered: lacking it, expired, revoked), `does-not-fit`, "
       "`superseded`, `out-of-tolerance` (added 2026-12-06)"),
    _c("effect", STRING, "`community`, `verifies`, `withdraws`, `disagrees`, "
       "`out-of-tolerance`, `superseded`, `does-not-fit`, `not-counted` or `invalid` "
       "(docs/attestations.md)"),
    _c("reason", STRING, "why, in one line (empty for a plain valid attestation)"),
    _c("outcome", STRING, "the predicate's `outcome` (reproduction, rerun), else null"),
    _c("text", STRING, "what it says in words, as signed: a dispute's or withdrawal's "
       "`reason`, a note's (or a reproduction's, a rerun's) `text`; null when it says none "
       "or does not verify"),
    _c("source", STRING, "`note` (refs/notes/kistore) or `file` (store/attestations/)"),
    _c("location", STRING, "`refs/notes/kistore:<blob>` or the file's path"),
    _c("enteredAt", TIMESTAMP, "when it first entered the repository (UTC); trust is "
       "judged at this time"),
    GENERATION,
), partition=(), sort=("subject", "bundleDigest", "source", "location"))

MANIFESTS = Table("manifests", (
    _c("digest", STRING, "`sha256:<64 hex>`"),
    _c("kind", STRING, "`Workload`, `BenchmarkProtocol`, `ExecutionEnvironment`, "
       "`Implementation` or `BenchmarkRun`; Parquet partition"),
    _c("apiVersion", STRING, "`apiVersion`"),
    _c("name", STRING, "`metadata.name`"),
    _c("title", STRING, "`metadata.title` (null when none)"),
    _c("object", STRING, "the object file's bytes as text: RFC 8785 JSON of "
       "`{apiVersion, kind, spec}`, whose SHA-256 is `digest`"),
    _c("metadata", STRING, "the metadata file's bytes as text: RFC 8785 JSON of "
       "`metadata`"),
    _c("firstCommit", STRING, "the commit that first added the object file (40 hex)"),
    _c("addedAt", TIMESTAMP, "that commit's committer time (UTC)"),
    _c("permalink", STRING, "the object file at `firstCommit`, or null"),
    *LANDING,
    GENERATION,
), partition=("kind",), sort=("digest",))

TABLES: dict[str, Table] = {t.name: t for t in (RUNS, GROUPS, ATTESTATIONS, MANIFESTS)}
"""Every exported table by name, in the order they are written."""

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
"""The directory value of a null partition column (Hive's; DuckDB and Spark read it as null)."""


def arrow_type(column: Column, statistics: list[str]) -> Any:
    """Return the pyarrow type of a column.

    Args:
        column: the column.
        statistics: the latency statistics of this export, in order (``latencyNs``'s
            struct fields).

    Raises:
        ModuleNotFoundError: pyarrow is not installed (the ``export`` extra).
    """
    # Lazy: pyarrow is optional (the `export` extra); CSV and JSON Lines need none.
    import pyarrow as pa

    simple = {STRING: pa.string(), INT: pa.int64(), DOUBLE: pa.float64(), BOOL: pa.bool_(),
              TIMESTAMP: pa.timestamp("us", tz="UTC"),
              METRICS: pa.map_(pa.string(), pa.float64())}
    if column.type == LATENCY:
        return pa.struct([(s, pa.float64()) for s in statistics])
    return simple[column.type]


def statistic_order(name: str) -> tuple[int, int]:
    """Sort key of a latency statistic: the named ones first, then ``pNN`` by NN."""
    if name in NAMED_STATISTICS:
        return 0, NAMED_STATISTICS.index(name)
    return 1, int(name[1:]) if name[1:].isdigit() else 0


def markdown(table: Table) -> str:
    """Return the table's columns as the Markdown table docs/export.md shows (a test checks).

    One row per column: name, type, unit, meaning; partition columns say so in their
    meaning.
    """
    lines = ["| column | type | unit | meaning |", "|---|---|---|---|"]
    for c in table.columns:
        lines.append(f"| `{c.name}` | `{c.type}` | {c.unit or ''} | {c.meaning} |")
    return "\n".join(lines) + "\n"


METRIC_MARK = "~"
"""What separates a metric key from the hash that tells it apart (:func:`metric_names`)."""


def metric_names(metrics: Iterable[str]) -> dict[str, str]:
    """Return the metric keys that JSON Lines writes under another name, and that name.

    DuckDB, Spark and Trino name columns and struct fields without case, so two metric keys
    of an export that are equal after :meth:`str.casefold` (``latency_ms`` of most runs,
    ``LATENCY_MS`` of one) would be one JSON Lines field (DuckDB refused the file), and were
    one CSV column while CSV had a column per key (DuckDB renamed the real one and read the
    other for every run): review r78 F8. CSV now writes the metrics as JSON text, keys as
    they are (review r85 F18). Of each such class one key keeps its spelling: the one
    written in its case-folded form (``latency_ms``) when the class has it, else the first
    in code-point order; each other key is written as ``KEY~H``, ``H`` the first 16 hex
    digits of the SHA-256 of the key (UTF-8), e.g. ``LATENCY_MS~ce467cc873d21bd0``. When
    that name is taken (equal after case folding to a key of the export, a literal
    ``LATENCY_MS~ce467cc873d21bd0``, or to a name given before), the mark and hash are added
    again, of the name so far, until the name is free: ``LATENCY_MS~ce467cc873d21bd0~H2``,
    ``H2`` of ``LATENCY_MS~ce467cc873d21bd0`` (review r79 F3: the export refused such keys,
    and every CSV and JSON Lines export of every later commit failed). Keys are named in
    code-point order, so the same keys give the same names. Parquet and CSV keep every key
    as it is (``sourceNative`` is a map; JSON text).

    Args:
        metrics: every ``sourceNative`` metric key of the export's runs.

    Returns:
        ``{key: written name}`` for the keys written under another name (empty when no two
        keys differ only in case). No two written names (keys kept and names given) are
        equal after case folding, whatever the keys.
    """
    classes: dict[str, list[str]] = {}
    for key in sorted(set(metrics)):
        classes.setdefault(key.casefold(), []).append(key)
    taken = set(classes)
    renamed: dict[str, str] = {}
    for folded, keys in sorted(classes.items()):
        kept = folded if folded in keys else keys[0]
        for key in keys:
            if key == kept:
                continue
            name = hashed_on(key, METRIC_MARK)
            while name.casefold() in taken:
                name = hashed_on(name, METRIC_MARK)
            taken.add(name.casefold())
            renamed[key] = name
    return renamed
