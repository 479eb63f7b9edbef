"""One module owns Unicode folding (kistore.core.folding), with two named policies.

KI229's product key (kistore.core.products) and KI226's source claim
(kistore.core.provenance) each folded Unicode on their own (NFKC + casefold), one keeping
whitespace, one dropping all but [a-z0-9], with nothing saying why they differ.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from kistore.core import folding
from kistore.core.products import VENDORS, product_key
from kistore.core.provenance import spelled


def test_both_policies_start_from_nfkc_casefold_nfkc():
    assert folding.folded("\uff2eVIDIA \ufb01 Stra\u00dfe") == "nvidia fi strasse"
    # casefold can leave a string out of NFKC; folded is in NFKC (the second pass)
    assert folding.folded("\u1e9e\u0345") == unicodedata.normalize(
        "NFKC", folding.folded("\u1e9e\u0345"))


def test_the_two_policies_differ_where_their_questions_differ():
    # one product name, spelled another way: case, whitespace amount, compatibility form
    assert folding.words(" NVIDIA\u00a0 H100\t80GB ") == "nvidia h100 80gb"
    # ... and punctuation runs too (reviewer r89 F7: 'H100-PCIe' opened a group of its own),
    # but not a version's dot, and letters of other scripts count: never two products made one
    assert folding.words("H100-PCIe") == folding.words("H100_PCIe") == "h100 pcie"
    assert folding.words("RTX 2.0 (SXM5)") == "rtx 2.0 sxm5"
    assert folding.words("A1\u041e\u041e") != folding.words("A1OO")  # Cyrillic O
    # a source named, whatever stands between its letters or over them
    for claim in ("Kernel-Bench", "kernel\u200bbench", " K\u00e9rnelBench",
                  "\uff4b\uff45\uff52\uff4e\uff45\uff4c\uff42\uff45\uff4e\uff43\uff48",
                  "kernel\u0435bench"):  # a Cyrillic letter between: dropped
        assert folding.ascii_alnum(claim) == "kernelbench", claim


@given(st.text())
def test_products_and_provenance_fold_through_the_one_module(text):
    parts = folding.words(text).split()
    vendor = len(parts) > 1 and parts[0] in VENDORS
    # the product key is the words, vendor dropped, with only spaces taken out between the
    # parts of a model number and ASCII look-alikes read (o for 0, l for I: reviewer r90 F4)
    assert product_key(text) == product_key(folding.words(text))
    look_alike = str.maketrans("ol", "0i", " ")
    assert product_key(text).translate(look_alike) == \
        "".join(parts[1:] if vendor else parts).translate(look_alike)
    assert spelled(text) == folding.ascii_alnum(text)
    # what the wide policy keeps, the narrow one keeps too (its letters and digits)
    assert folding.ascii_alnum(folding.words(text)) == folding.ascii_alnum(text)
