"""KI229: a GPU product spelled another way than the store spells it (reviewer r86 F8).

Two ExecutionEnvironments stating ``NVIDIA H100 80GB HBM3`` and ``nvidia h100 80gb hbm3``
gave their runs two comparison keys, so comparable runs were never ranked together, and
nothing said so. ``add`` and the gate now warn, naming the stored spelling.
"""

from __future__ import annotations

import pytest

from kistore.check import _products, audit
from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest
from kistore.core.products import product_key, product_variants
from kistore.store import Store
from kistore.store import products as store_products

from ..conftest import add_docs, git

H100 = "NVIDIA H100 80GB HBM3"


@pytest.mark.parametrize("spelling", [
    "nvidia h100 80gb hbm3", "NVIDIA  H100\t80GB HBM3 ",
    "\uff2e\uff36\uff29\uff24\uff29\uff21 H100 80GB HBM3", "NVIDIA\u00a0H100 80GB HBM3"],
    ids=["case", "whitespace", "full-width", "no-break-space"])
def test_variants_fold_to_one_key(spelling):
    assert product_key(spelling) == product_key(H100) == "h100 80gb hbm3"
    assert product_variants(spelling, [(H100, "ExecutionEnvironment/h100 (sha256:e1)")]) == \
        [(H100, "ExecutionEnvironment/h100 (sha256:e1)")]


@pytest.mark.parametrize("spelling", ["H100 PCIe", "NVIDIA H100-PCIe", "nvidia_h100 pcie"])
def test_a_dropped_vendor_or_punctuation_is_a_variant(spelling):
    # r89 F7: these opened a new comparison group without a word
    assert product_key(spelling) == product_key("NVIDIA H100 PCIe") == "h100 pcie"
    assert product_key("NVIDIA") == "nvidia"  # a vendor alone stays a word
    assert product_key("NVIDIA H100 PCIe (Lambda)") != product_key("NVIDIA H100 PCIe")


def test_other_products_and_the_same_spelling_are_no_variants():
    stored = [(H100, "E/a (1)"), ("NVIDIA H100 PCIe", "E/b (2)"), ("NVIDIA H100 80GB", "E/c (3)")]
    assert product_variants(H100, stored) == []  # itself, and other products
    assert product_key("NVIDIA H100 PCIe") != product_key("NVIDIA H100 80GB HBM3")
    # two stored spellings of one product: both named, each with its first environment
    assert product_variants("nvidia h100 80gb hbm3", [
        ("NVIDIA H100 80GB HBM3", "E/z (9)"), ("NVIDIA H100 80GB HBM3", "E/a (1)"),
        ("Nvidia H100 80GB HBM3", "E/m (5)")]) == [
            ("NVIDIA H100 80GB HBM3", "E/a (1)"), ("Nvidia H100 80GB HBM3", "E/m (5)")]


def _head(store) -> str:
    return git(store.root, "rev-parse", "HEAD").strip()


def _hex(doc: dict) -> str:
    return Manifest.from_document(doc).digest.hex


def test_a_pull_request_adding_a_variant_spelling_is_warned_naming_the_stored_one(
        store, kit, monkeypatch):
    stored = kit.environment(H100, name="h100")
    protocol, workload, impl = kit.protocol(), kit.workload(), kit.implementation(name="i1")
    add_docs(store, [protocol, workload, impl, stored,
                     kit.run(protocol, stored, impl, workload, latency=10, name="r1")])
    base = _head(store)
    # PR 2: an environment whose product differs only in case, with a run (a doubled
    # space or a full-width letter is KI104 already: identifying text is plain)
    variant = kit.environment("nvidia h100 80gb hbm3", driver="570.1", name="h100-lower")
    impl2 = kit.implementation("p2", name="i2")
    monkeypatch.setattr(store_products, "products_admitted", lambda *a: [])  # past add
    add_docs(store, [variant, impl2, kit.run(protocol, variant, impl2, workload, latency=9,
                                             name="r2")])
    monkeypatch.undo()
    found = [f for f in check_range(store, f"{base}..{_head(store)}") if f.rule.id == "KI229"]
    assert len(found) == 1
    f = found[0]
    assert f.severity == "warning"
    assert (f.file, f.pointer) == (layout.object_path(Digest(_hex(variant))),
                                   "/spec/hardware/product")
    assert (f.expected, f.found) == (H100, "nvidia h100 80gb hbm3")
    assert f.message == (
        "hardware.product 'nvidia h100 80gb hbm3' differs only in case, spacing, punctuation, "
        "Unicode form, a leading vendor name or an ASCII look-alike from what the store spells "
        f"'NVIDIA H100 80GB HBM3' (ExecutionEnvironment/h100 (sha256:{_hex(stored)})): its "
        "runs get another comparison key and are never ranked with theirs; use 'NVIDIA H100 "
        "80GB HBM3', the store's most used spelling")  # the base's run; the range's never
    # counts (reviewer r90b F8: until 2026-12-04 "used as much as another, and stored before")


def test_the_same_spelling_another_product_or_runs_alone_are_not_warned(store, kit,
                                                                         monkeypatch):
    stored = kit.environment(H100, name="h100")
    add_docs(store, [stored])
    base = _head(store)
    add_docs(store, [kit.environment(H100, driver="570.1", name="h100-new-driver"),
                     kit.environment("NVIDIA H100 PCIe", name="pcie")])
    assert [f for f in check_range(store, f"{base}..{_head(store)}")
            if f.rule.id == "KI229"] == []
    # a range that adds no environment never reads the stored ones
    base = _head(store)
    protocol, workload, impl = kit.protocol(), kit.workload(), kit.implementation()
    add_docs(store, [protocol, workload, impl,
                     kit.run(protocol, stored, impl, workload, latency=10, name="r")])

    def listed(view):
        raise AssertionError("read every environment for a range of no environment")

    monkeypatch.setattr(_products, "stored_products", listed)
    assert [f for f in check_range(store, f"{base}..{_head(store)}")
            if f.rule.id == "KI229"] == []


def test_add_warns_and_adds_all_the_same(store, kit):
    add_docs(store, [kit.environment(H100, name="h100")])
    variant = kit.environment("Nvidia H100 80GB HBM3", name="h100-title")
    same_batch = kit.environment("NVIDIA B200", name="b200")
    other = kit.environment("nvidia b200", name="b200-lower")
    results = store.add([Manifest.from_document(d) for d in (variant, same_batch, other)],
                        commit=True)
    warned = {r.digest.hex: r.warnings for r in results}
    assert warned[_hex(variant)] == (
        "/spec/hardware/product: hardware.product 'Nvidia H100 80GB HBM3' differs only in "
        "case, spacing, punctuation, Unicode form, a leading vendor name or an ASCII look-alike "
        "from what the store spells 'NVIDIA H100 80GB HBM3' "
        "(ExecutionEnvironment/h100 (sha256:" + _hex(kit.environment(H100, name="h100"))
        + ")): its runs get another comparison key and are never ranked with theirs; use "
        "'NVIDIA H100 80GB HBM3', the store's most used spelling (KI229: added "
        "all the same; `check` warns too)",)  # the add's own environment is not counted
    # two spellings in one add: each names the other
    assert "'nvidia b200' (ExecutionEnvironment/b200-lower" in warned[_hex(same_batch)][0]
    assert "'NVIDIA B200' (ExecutionEnvironment/b200 " in warned[_hex(other)][0]
    assert git(store.root, "status", "--porcelain") == ""  # committed: added all the same


def test_verify_warns_once_per_pair_of_spellings_over_the_whole_store(store, kit,
                                                                      monkeypatch):
    # three spellings of one product (entered past add's warning, say before KI229), a
    # fourth environment repeating one of them, and another product spelled one way
    envs = [kit.environment(H100, name="h100"),
            kit.environment("nvidia h100 80gb hbm3", name="h100-lower"),
            kit.environment("Nvidia H100 80GB HBM3", name="h100-title"),
            kit.environment("nvidia h100 80gb hbm3", driver="570.1", name="h100-lower2"),
            kit.environment("NVIDIA B200", name="b200")]
    monkeypatch.setattr(store_products, "products_admitted", lambda *a: [])
    add_docs(store, envs)
    monkeypatch.undo()
    shown = {d["metadata"]["name"]: f"ExecutionEnvironment/{d['metadata']['name']} "
             f"(sha256:{_hex(d)})" for d in envs}
    for at in (None, "HEAD"):
        found = [f for f in audit.verify(store, at) if f.rule.id == "KI229"]
        # the spelling two environments state is the one advised (no runs to count), then
        # between two of one environment each, code-point order
        lower, title = "nvidia h100 80gb hbm3", "Nvidia H100 80GB HBM3"
        assert [(f.severity, f.expected, f.found, f.file, f.pointer) for f in found] == [
            ("warning", H100, title,
             layout.object_path(Digest(_hex(envs[2]))), "/spec/hardware/product"),
            ("warning", lower, H100,
             layout.object_path(Digest(_hex(envs[0]))), "/spec/hardware/product"),
            ("warning", lower, title,
             layout.object_path(Digest(_hex(envs[2]))), "/spec/hardware/product")]
        assert found[0].message == (
            f"{shown['h100-title']}: hardware.product 'Nvidia H100 80GB HBM3' differs only "
            "in case, spacing, punctuation, Unicode form, a leading vendor name or an ASCII "
            "look-alike from what the store spells 'NVIDIA H100 80GB "
            f"HBM3' ({shown['h100']}): its runs get another comparison key and are never "
            "ranked with theirs; use 'NVIDIA H100 80GB HBM3', one of the spellings used alike")
    # one spelling a product: nothing to say
    other = Store.init(store.root.parent / "other")
    add_docs(other, [envs[0], envs[4]])
    assert [f for f in audit.verify(other) if f.rule.id == "KI229"] == []
