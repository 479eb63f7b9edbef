"""KI229 after reviewer r90 F4: ASCII slips folded, products kept apart, the advice weighed.

``PCle`` (a lower-case L for the I of PCIe), ``H1OO`` (letters O), ``80 GB``, ``B-200``,
``L40-S`` and a trailing period each opened a comparison group of their own without a word;
and the advice named the spelling first in code-point order (``H100 PCIe``, one run),
not the one the store's runs use (``NVIDIA H100 PCIe``).
"""

from __future__ import annotations

import itertools

import pytest

from kistore.check import audit
from kistore.check.gate import check_range
from kistore.core.model import Manifest
from kistore.core.products import product_key, product_variants

from ..conftest import add_docs, git

APART = ["H100", "H100 NVL", "H200", "H100 PCIe", "A100 40GB", "A100 80GB", "L40", "L40S",
         "GH200", "GB200", "B200", "MI300X", "MI300A", "MI325X", "H100 80GB HBM3",
         "H100 SXM5 80GB", "A10G", "A10", "RTX 4090", "RTX 4090 Ti", "RTX 4090 D"]
"""GPU products that are not one product: no spelling rule may fold two together."""


@pytest.mark.parametrize(("first", "second"), list(itertools.combinations(APART, 2)))
def test_different_products_keep_different_keys(first, second):
    for vendor in ("", "NVIDIA ", "AMD "):
        assert product_key(vendor + first) != product_key(vendor + second)
        assert product_key(vendor + first) != product_key(second)


@pytest.mark.parametrize(("slip", "stored", "key"), [
    ("NVIDIA H100 PCle", "NVIDIA H100 PCIe", "h100 pcie"),       # l for I
    ("NVIDIA H1OO PCIe", "NVIDIA H100 PCIe", "h100 pcie"),       # letters O for zeros
    ("NVIDIA H1O0 PCIe", "NVIDIA H100 PCIe", "h100 pcie"),
    ("AMD Instinct MI3OOX", "AMD Instinct MI300X", "instinct mi300x"),
    ("NVIDIA H100 80 GB HBM3", "NVIDIA H100 80GB HBM3", "h100 80gb hbm3"),
    ("NVIDIA A100-SXM4-80 GB", "NVIDIA A100-SXM4-80GB", "a100 sxm4 80gb"),
    ("NVIDIA B-200", "NVIDIA B200", "b200"), ("B 200", "NVIDIA B200", "b200"),
    ("NVIDIA L40-S", "NVIDIA L40S", "l40s"), ("MI300-X", "MI300X", "mi300x"),
    ("NVIDIA GB-200", "NVIDIA GB200", "gb200"),
    ("NVIDIA H100 PCIe.", "NVIDIA H100 PCIe", "h100 pcie"),    # a trailing period
    ("NVIDIA H100 PCI-E", "NVIDIA H100 PCIe", "h100 pcie"),
])
def test_ascii_slips_fold_to_the_stored_spelling(slip, stored, key):
    assert product_key(slip) == product_key(stored) == key
    assert [s for s, _ in product_variants(slip, [(stored, "E/a (1)")])] == [stored]


def test_a_dot_inside_a_word_stays_a_version():
    assert product_key("RTX 2.0") != product_key("RTX 20")
    assert product_key("RTX 2.0.") == product_key("RTX 2.0") == "rtx 2.0"


def test_the_advice_weighs_runs_then_environments_then_age_never_code_points():
    stored = [("H100 PCIe", "E/h (1)"), ("NVIDIA H100 PCIe", "E/n (2)")]
    # code-point order alone would say 'H100 PCIe' (reviewer r90 F4)
    assert product_variants("nvidia h100 pcie", stored, {"NVIDIA H100 PCIe": 84,
                                                           "H100 PCIe": 1})[0][0] \
        == "NVIDIA H100 PCIe"
    assert product_variants("nvidia h100 pcie", stored, {"H100 PCIe": 3})[0][0] == "H100 PCIe"
    two = [*stored, ("NVIDIA H100 PCIe", "E/n2 (3)")]
    assert product_variants("nvidia h100 pcie", two)[0][0] == "NVIDIA H100 PCIe"
    assert product_variants("nvidia h100 pcie", stored, older={"NVIDIA H100 PCIe"})[0][0] \
        == "NVIDIA H100 PCIe"


def _runs(kit, env, n, tag, *, first=True):
    """``n`` runs on ``env`` (and the protocol and workload they name, ``first``)."""
    protocol, workload = kit.protocol(name="p"), kit.workload(name="w")
    impls = [kit.implementation(f"{tag}{i}", name=f"{tag}-i{i}") for i in range(n)]
    return [*([protocol, workload] if first else []), *impls, *(
        kit.run(protocol, env, impl, workload, latency=10 + i, name=f"{tag}-r{i}")
        for i, impl in enumerate(impls))]


def _warning(store, doc):
    [result] = store.add([Manifest.from_document(doc)])
    return result.warnings[0]


def test_r90_f4_add_advises_the_spelling_most_runs_use(store, kit):
    many = kit.environment("NVIDIA H100 PCIe", name="lambda")
    add_docs(store, [many, *_runs(kit, many, 3, "n")])
    one = kit.environment("H100 PCIe", driver="570.1", name="bare")
    add_docs(store, [one, *_runs(kit, one, 1, "b", first=False)])   # warned, added all the same
    warned = _warning(store, kit.environment("nvidia h100 pcie", driver="580", name="lower"))
    assert warned.endswith("use 'NVIDIA H100 PCIe', the store's most used spelling (KI229: "
                           "added all the same; `check` warns too)"), warned
    assert "'H100 PCIe' (ExecutionEnvironment/bare" in warned
    # the majority spelling itself, in a new environment: keep it
    git(store.root, "reset", "-q", "--hard")
    git(store.root, "clean", "-qfd")
    warned = _warning(store, kit.environment("NVIDIA H100 PCIe", driver="590", name="again"))
    assert warned.endswith("keep 'NVIDIA H100 PCIe', the store's most used spelling (KI229: "
                           "added all the same; `check` warns too)"), warned


def test_r90_f4_an_uncommitted_spelling_is_not_advised_over_a_committed_one(store, kit):
    add_docs(store, [kit.environment("NVIDIA H100 PCIe", name="lambda")])
    add_docs(store, [kit.environment("AMD H100 PCIe", driver="1", name="amd")], commit=False)
    warned = _warning(store, kit.environment("nvidia h100 pcie", driver="2", name="lower"))
    assert "use 'NVIDIA H100 PCIe', used as much as another, and stored before" in warned, \
        warned


def test_r90_f4_check_and_verify_advise_by_runs(store, kit):
    few = kit.environment("H100 PCIe", name="bare")
    many = kit.environment("NVIDIA H100 PCIe", driver="570.1", name="lambda")
    add_docs(store, [few, many, *_runs(kit, many, 3, "n"),
                     *_runs(kit, few, 1, "b", first=False)])
    [pair] = [f for f in audit.verify(store) if f.rule.id == "KI229"]
    assert (pair.expected, pair.found) == ("NVIDIA H100 PCIe", "H100 PCIe")
    base = git(store.root, "rev-parse", "HEAD").strip()
    add_docs(store, [kit.environment("NVIDIA H1OO PCle", driver="580", name="slip")])
    [found] = [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == "KI229"]
    assert (found.expected, found.found) == ("NVIDIA H100 PCIe", "NVIDIA H1OO PCle")
    assert found.message.endswith("use 'NVIDIA H100 PCIe', the store's most used spelling")


def test_r90b_f8_the_advice_counts_the_base_runs_never_the_change_own(store, kit):
    # reviewer r90b F8: 250 stored runs on one spelling, a pull request of 300 on a
    # variant: the gate counted the head's runs and told the 300 to keep the misspelling
    stored = kit.environment("NVIDIA H100 80GB HBM3", name="modal")
    add_docs(store, [stored, *_runs(kit, stored, 250, "s")])
    base = git(store.root, "rev-parse", "HEAD").strip()
    slip = kit.environment("NVIDIA H100 80 GB HBM3", driver="580", name="mine")
    [result, *_] = store.add([Manifest.from_document(d) for d in
                              [slip, *_runs(kit, slip, 300, "m", first=False)]], commit=True)
    assert result.warnings[0].startswith("/spec/hardware/product: hardware.product 'NVIDIA H100 "
                                         "80 GB HBM3'")
    assert "use 'NVIDIA H100 80GB HBM3', the store's most used spelling (KI229" in \
        result.warnings[0]
    [found] = [f for f in check_range(store, f"{base}..HEAD") if f.rule.id == "KI229"]
    assert (found.expected, found.found) == ("NVIDIA H100 80GB HBM3", "NVIDIA H100 80 GB HBM3")
    assert found.message.endswith("use 'NVIDIA H100 80GB HBM3', the store's most used spelling")
    # merged, the store counts 300 on the variant: verify (the whole store) says so
    [pair] = [f for f in audit.verify(store) if f.rule.id == "KI229"]
    assert (pair.expected, pair.found) == ("NVIDIA H100 80 GB HBM3", "NVIDIA H100 80GB HBM3")
