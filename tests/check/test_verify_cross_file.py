"""verify's cross-file fast paths: ``entries_clean`` says "nothing to report" only when
``check_entries`` reports nothing (names used twice, dangling references, references to
the wrong kind, runs stating another statistic than their protocol, KI218, passed runs whose
``timing.latencyNs`` lacks their protocol's statistic, KI252, and SOL-ExecBench
runs stating another board than their workload's definition, KI238, must all
send the tree to the exact checks), and the streamed pairing of
object and metadata files makes the units and path findings the dict of pairs made."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check import _rules as verify
from kistore.core.digest import Digest
from kistore.core.model import REFERENCE_FIELDS
from kistore.core.schema import KINDS

_HEXES = [c * 64 for c in "0123456789"]
_REFS = [None, *(f"sha256:{h}" for h in _HEXES[:6]), "sha256:" + "f" * 64]

_manifest = st.tuples(
    st.sampled_from([*KINDS, None]),
    st.sampled_from([None, "a", "b", "c"]),
    st.tuples(*[st.sampled_from(_REFS) for _ in REFERENCE_FIELDS]),
    st.sampled_from([None, "mean", "median"]),
    st.sampled_from([None, "b1", "b2"]),
    st.sampled_from([None, ("mean",), ("median",), ("max", "mean"), ("median", "min")]))


Manifest = tuple[str, "str | None", "str | None", tuple["str | None", ...], "str | None",
                 "str | None", "tuple[str, ...] | None"]


def _stated(kind: str | None, statistic: str | None) -> str | None:
    """A statistic as verify learns it: only runs and protocols state one."""
    return statistic if kind in ("BenchmarkRun", "BenchmarkProtocol") else None


def _board(kind: str | None, board: str | None) -> tuple[tuple[str, str], ...] | None:
    """A board as verify learns it: only (SOL-ExecBench) runs and workloads state one."""
    return (("board", board),) if kind in ("BenchmarkRun", "Workload") and board is not None \
        else None


def _latency(kind: str | None, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """Latency statistics as verify learns them: only (passed) runs state them."""
    return names if kind == "BenchmarkRun" else None


def _clean(manifests: list[Manifest]) -> bool:
    columns = [list(c) for c in zip(*manifests, strict=True)] if manifests else [[]] * 7
    columns[4] = [_stated(k, s) for k, s in zip(columns[1], columns[4], strict=True)]
    columns[5] = [_board(k, b) for k, b in zip(columns[1], columns[5], strict=True)]
    columns[6] = [_latency(k, n) for k, n in zip(columns[1], columns[6], strict=True)]
    return verify.entries_clean(*columns)


def _entries(manifests: list[Manifest]) -> dict[Digest, verify.Entry]:
    return {Digest(h): verify.Entry(
        Digest(h), kind, name, {f: r for f, r in zip(REFERENCE_FIELDS, refs, strict=True)
                                if r is not None}, True, True, statistic=_stated(kind, statistic),
        board=_board(kind, board), latency=_latency(kind, latency))
        for h, kind, name, refs, statistic, board, latency in manifests}


@settings(max_examples=1500, deadline=None)
@given(st.lists(_manifest, max_size=len(_HEXES)))
def test_entries_clean_agrees_with_check_entries(drawn):
    """Random trees of paired manifests: the fast answer is the exact one."""
    manifests = [(h, *m) for h, m in zip(_HEXES, drawn, strict=False)]
    assert _clean(manifests) == (verify.check_entries(_entries(manifests)) == [])


def _tree(statistic: str = "mean", latency: tuple[str, ...] | None = ("mean",),
          **run_refs: str) -> list[Manifest]:
    none = (None,) * len(REFERENCE_FIELDS)
    refs = tuple(run_refs.get(f) for f in REFERENCE_FIELDS)
    return [("1" * 64, "Workload", "w", none, None, "b1", None),
            ("2" * 64, "BenchmarkProtocol", "p", none, "mean", None, None),
            ("3" * 64, "BenchmarkRun", "r", refs, statistic, "b1", latency)]


def test_clean_tree_is_clean():
    assert _clean(_tree(workloadDigest="sha256:" + "1" * 64,
                                      protocolDigest="sha256:" + "2" * 64))


def test_dangling_reference_goes_to_the_exact_checks():
    manifests = _tree(workloadDigest="sha256:" + "9" * 64)
    assert not _clean(manifests)
    assert [f.rule.id for f in verify.check_entries(_entries(manifests))] == ["KI201"]


def test_reference_to_the_wrong_kind_goes_to_the_exact_checks():
    manifests = _tree(workloadDigest="sha256:" + "2" * 64)  # a protocol, not a workload
    assert not _clean(manifests)
    assert [f.rule.id for f in verify.check_entries(_entries(manifests))] == ["KI202"]


def test_name_used_twice_goes_to_the_exact_checks():
    manifests = [*_tree(), ("4" * 64, "Workload", "w", (None,) * len(REFERENCE_FIELDS), None,
                            None, None)]
    assert not _clean(manifests)
    assert [f.rule.id for f in verify.check_entries(_entries(manifests))] == ["KI205"]


def test_run_stating_another_statistic_than_its_protocol_goes_to_the_exact_checks():
    manifests = _tree("median", protocolDigest="sha256:" + "2" * 64)
    assert not _clean(manifests)
    [finding] = verify.check_entries(_entries(manifests))
    assert (finding.rule.id, finding.severity, finding.pointer, finding.expected,
            finding.found) == ("KI218", "warning", "/spec/timing/primaryStatistic", "mean",
                               "median")
    assert finding.message == (
        f"BenchmarkRun/r (sha256:{'3' * 64}) states timing.primaryStatistic 'median' but its "
        f"protocol BenchmarkProtocol/p (sha256:{'2' * 64}) measures 'mean' "
        "(measurement.primaryStatistic); ranking uses the protocol's 'mean', not the run's: "
        "the run is in the protocol's 'mean' comparison group, and a family ranked by "
        "measured latency reads its timing.latencyNs.mean")
    assert _clean(_tree("mean", protocolDigest="sha256:" + "2" * 64))


def test_run_lacking_its_protocol_s_statistic_goes_to_the_exact_checks():
    """KI252 in verify (stat06): from the latency names each unit's check learnt."""
    manifests = _tree("mean", ("median", "min"), protocolDigest="sha256:" + "2" * 64)
    assert not _clean(manifests)
    [finding] = verify.check_entries(_entries(manifests))
    assert (finding.rule.id, finding.severity, finding.file, finding.pointer, finding.expected,
            finding.found, finding.extra) == (
        "KI252", "warning", f"store/objects/sha256/33/{'3' * 62}.json",
        "/spec/timing/latencyNs", "mean", "median, min", {"protocol": f"sha256:{'2' * 64}"})
    assert finding.message == (
        f"BenchmarkRun/r (sha256:{'3' * 64}) states timing.primaryStatistic 'mean', the "
        f"statistic its protocol BenchmarkProtocol/p (sha256:{'2' * 64}) measures, but no "
        "'mean' in timing.latencyNs (it states median, min): in a family ranked by measured "
        "latency (the default), `rank` reads timing.latencyNs.mean and lists this run "
        "unranked (a family the ranking policy ranks by its source's own metric does not "
        "read timing.latencyNs)")
    # stating it among others, or no latencies at all (None: not passed, or none stated)
    for latency in (("max", "mean"), None):
        assert _clean(_tree("mean", latency, protocolDigest="sha256:" + "2" * 64))


def test_run_stating_another_board_than_its_workload_goes_to_the_exact_checks():
    manifests = _tree(workloadDigest="sha256:" + "1" * 64)
    manifests[2] = (*manifests[2][:5], "b2", ("mean",))  # the run's sourceNative.benchmark
    assert not _clean(manifests)
    [finding] = verify.check_entries(_entries(manifests))  # verify: a warning
    assert (finding.rule.id, finding.severity, finding.pointer, finding.expected,
            finding.found, finding.file) == (
        "KI238", "warning", "/spec/sourceNative/benchmark", "b1", "b2",
        f"store/objects/sha256/33/{'3' * 62}.json")
    assert finding.message == (
        f"BenchmarkRun/r (sha256:{'3' * 64}) states sourceNative.benchmark 'b2' but its "
        f"workload Workload/w (sha256:{'1' * 64}) is 'b1': a SOL-ExecBench run is ranked in "
        "its workload's comparison group, so this run would rank on another board than it "
        "was measured on")
    digests = {Digest("3" * 64)}  # a gate: the run arrives, an error
    [finding] = verify.check_entries(_entries(manifests), digests, digests)
    assert (finding.rule.id, finding.severity) == ("KI238", "error")
    # the workload arriving after the run (its reference dangled): the gate's error too
    [finding] = verify.check_entries(_entries(manifests), {Digest("1" * 64)},
                                     {Digest("1" * 64)})
    assert (finding.rule.id, finding.severity, finding.file) == (
        "KI238", "error", f"store/objects/sha256/33/{'3' * 62}.json")


# -- audit._unit_chunks: pairing streamed a unit at a time, as the dict of pairs did -----

_SHARD_NAMES = [f"{h[:2]}/{h[2:]}.json" for h in ("0" * 64, "0" * 63 + "1", "a" * 64)]
_store_path = st.one_of(
    st.builds("{}/{}".format, st.sampled_from(["store/objects/sha256", "store/metadata/sha256",
                                                "store/objects/sha512", "store/metadata"]),
              st.sampled_from([*_SHARD_NAMES, "0a/short.json", "README"])),
    st.sampled_from(["store/trust/keys.json", "store/policy/ranking.json", "store/x",
                     "store/attestations/a.json"]))
_mode = st.sampled_from([0o100644, 0o100644, 0o100755, 0o120000, 0o160000])


class _Modes:
    """A snapshot of nothing but paths and modes (pairing reads no file)."""

    def __init__(self, modes: dict[str, int]) -> None:
        self.modes = modes


_plain_path = st.builds("{}/{}".format, st.sampled_from(["store/objects/sha256",
                                                         "store/metadata/sha256"]),
                        st.sampled_from(_SHARD_NAMES))


@settings(max_examples=800, deadline=None)
@given(st.dictionaries(st.one_of(_store_path, _plain_path, _plain_path), _mode, max_size=12),
       st.integers(1, 4), st.integers(1, 5), st.booleans())
def test_unit_chunks_pair_as_the_dict_of_pairs_did(modes, chunk, batch, everything):
    from kistore.check import audit

    # everything=True pairs runs of plain paths a batch at a time (audit._plain_units)
    saved = audit.CHUNK, audit._BATCH
    audit.CHUNK, audit._BATCH = chunk, batch
    try:
        findings: list = []
        units: list = []
        yielded = [u for c in audit._unit_chunks(_Modes(modes), lambda p: True, findings, units,
                                                 everything=everything)
                   for u in c]
    finally:
        audit.CHUNK, audit._BATCH = saved
    files: dict[str, list] = {}  # the pairing before units were streamed
    expected_findings = []
    for path, mode in modes.items():
        paired = audit._pair_key(path)
        if paired is None or mode != verify.REGULAR:  # 100755 too (KI114)
            expected_findings += verify.check_layout_path(path, mode)
            if paired is None:
                continue
        files.setdefault(paired[0], [None, None])[paired[1]] = path
    expected = sorted((h, o, m, o is not None, m is not None) for h, (o, m) in files.items())
    assert yielded == units
    assert sorted(units) == expected
    assert findings == expected_findings


def test_a_path_holding_a_newline_is_not_paired_as_two_objects():
    from kistore.check import audit

    first, second = (f"store/objects/sha256/{name}" for name in _SHARD_NAMES[:2])
    modes = {f"{first}\n{second}": 0o100644}
    findings: list = []
    units: list = []
    list(audit._unit_chunks(_Modes(modes), lambda p: True, findings, units, everything=True))
    assert units == [] and [f.rule.id for f in findings] == ["KI110"]
