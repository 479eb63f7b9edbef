"""The site lists workloads in reading order: numbers as numbers (fresh00c L3).

Text order listed KernelBench's ``100_HingeLoss`` before ``10_3D_tensor...`` and mixed its
levels; :func:`kistore.site.pages.natural_key` reads each run of digits as its number.
"""

from __future__ import annotations

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from kistore.site.build import build_site
from kistore.site.pages import natural_key

from ..conftest import add_docs


def test_numbers_sort_as_numbers_then_text_breaks_ties():
    names = ["100_HingeLoss", "10_3D_tensor", "2_Matmul", "10_Conv", "1_x", None, "01_x"]
    assert sorted(names, key=natural_key) == [
        None, "01_x", "1_x", "2_Matmul", "10_3D_tensor", "10_Conv", "100_HingeLoss"]
    assert sorted(["level10", "level2", "level1"], key=natural_key) == [
        "level1", "level2", "level10"]


@given(st.lists(st.text(alphabet=st.characters(codec="utf-8"), max_size=8), max_size=8))
def test_the_order_is_total_and_the_same_whatever_the_input_order(names):
    once = sorted(names, key=natural_key)
    assert sorted(reversed(names), key=natural_key) == once  # no two keys equal unless texts
    assert all(natural_key(a) <= natural_key(b) for a, b in itertools.pairwise(once))


@given(st.lists(st.integers(min_value=0, max_value=10**6), max_size=12))
def test_numbered_names_sort_by_their_number(numbers):
    names = [f"{n}_op" for n in numbers]
    assert sorted(names, key=natural_key) == [f"{n}_op" for n in sorted(numbers)]


def test_a_source_page_lists_10_before_100(store, kit, tmp_path):
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation("p")
    docs = [protocol, env, impl]
    for definition in ("100_HingeLoss", "10_3D_tensor", "2_Matmul"):
        work = kit.workload(definition, name=f"w-{definition.lower().replace('_', '-')}")
        docs += [work, kit.run(protocol, env, impl, work, latency=1_000,
                               native={"source": "some-board", "externalId": definition},
                               name=f"r-{definition.lower().replace('_', '-')}")]
    add_docs(store, docs)
    build_site(store, tmp_path / "site")
    twin = json.loads((tmp_path / "site" / "sources" / "some-board" / "index.json").read_text())
    assert [w["label"] for w in twin["data"]["workloads"]] == [
        "2_Matmul", "10_3D_tensor", "100_HingeLoss"]
    index = json.loads((tmp_path / "site" / "index.json").read_text())
    assert [w["label"] for w in index["data"]["workloads"]] == [
        "2_Matmul", "10_3D_tensor", "100_HingeLoss"]
