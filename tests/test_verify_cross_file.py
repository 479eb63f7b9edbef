"""verify's cross-file fast path (``entries_clean``) says "nothing to report" only when
``check_entries`` reports nothing: names used twice, dangling references and references to
the wrong kind must all send the tree to the exact checks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore import verify
from kistore.digest import Digest
from kistore.model import REFERENCE_FIELDS
from kistore.schema import KINDS

_HEXES = [c * 64 for c in "0123456789"]
_REFS = [None, *(f"sha256:{h}" for h in _HEXES[:6]), "sha256:" + "f" * 64]

_manifest = st.tuples(
    st.sampled_from([*KINDS, None]),
    st.sampled_from([None, "a", "b", "c"]),
    st.tuples(*[st.sampled_from(_REFS) for _ in REFERENCE_FIELDS]))


def _entries(manifests: list[verify.Manifest]) -> dict[Digest, verify.Entry]:
    return {Digest(h): verify.Entry(
        Digest(h), kind, name, {f: r for f, r in zip(REFERENCE_FIELDS, refs, strict=True)
                                if r is not None}, True, True)
        for h, kind, name, refs in manifests}


@settings(max_examples=1500, deadline=None)
@given(st.lists(_manifest, max_size=len(_HEXES)))
def test_entries_clean_agrees_with_check_entries(drawn):
    """Random trees of paired manifests: the fast answer is the exact one."""
    manifests = [(h, *m) for h, m in zip(_HEXES, drawn, strict=False)]
    assert verify.entries_clean(manifests) == (verify.check_entries(_entries(manifests)) == [])


def _tree(**run_refs: str) -> list[verify.Manifest]:
    none = (None,) * len(REFERENCE_FIELDS)
    refs = tuple(run_refs.get(f) for f in REFERENCE_FIELDS)
    return [("1" * 64, "Workload", "w", none), ("2" * 64, "BenchmarkProtocol", "p", none),
            ("3" * 64, "BenchmarkRun", "r", refs)]


def test_clean_tree_is_clean():
    assert verify.entries_clean(_tree(workloadDigest="sha256:" + "1" * 64,
                                      protocolDigest="sha256:" + "2" * 64))


def test_dangling_reference_goes_to_the_exact_checks():
    manifests = _tree(workloadDigest="sha256:" + "9" * 64)
    assert not verify.entries_clean(manifests)
    assert [f.rule.id for f in verify.check_entries(_entries(manifests))] == ["KI201"]


def test_reference_to_the_wrong_kind_goes_to_the_exact_checks():
    manifests = _tree(workloadDigest="sha256:" + "2" * 64)  # a protocol, not a workload
    assert not verify.entries_clean(manifests)
    assert [f.rule.id for f in verify.check_entries(_entries(manifests))] == ["KI202"]


def test_name_used_twice_goes_to_the_exact_checks():
    manifests = [*_tree(), ("4" * 64, "Workload", "w", (None,) * len(REFERENCE_FIELDS))]
    assert not verify.entries_clean(manifests)
    assert [f.rule.id for f in verify.check_entries(_entries(manifests))] == ["KI205"]
