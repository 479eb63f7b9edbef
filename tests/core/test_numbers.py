"""One test of a JSON number for every layer (closing29 "Found and not mended" 2).

``rank`` ranked by ``query.policy.rankable_number`` while five other modules (one in
``core``, which cannot import ``query``) kept their own ``isinstance`` copies: one could
have come to call a number what ``rank`` leaves unranked. The test lives in
:mod:`kistore.core.numbers`; no other module spells it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kistore
from kistore.core import canonical
from kistore.core.numbers import is_number
from kistore.query.policy import Comparison


@pytest.mark.parametrize("value", [0, -1.5, 10**300, 1e-7, 2.5])
def test_numbers_are_numbers(value):
    assert is_number(value)


@pytest.mark.parametrize("value", [None, True, False, "0.5", "", [1], {"a": 1}])
def test_the_rest_are_not(value):
    assert not is_number(value)


@given(st.recursive(st.none() | st.booleans() | st.integers(-(2**53 - 1), 2**53 - 1) | st.text()
                    | st.floats(-1e15, 1e15),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=5))
def test_a_number_is_what_parses_from_a_json_number_and_what_rank_ranks(value):
    """Parsed back from its canonical bytes, a value is a number exactly when its JSON text
    is one (RFC 8259 §6: a leading ``-`` or digit), and ``rank`` takes it exactly then."""
    parsed = canonical.loads(canonical.dumps(value), file="value.json")
    text = canonical.dumps(parsed).decode()
    assert is_number(parsed) == bool(re.match(r"-?[0-9]", text))
    ranked = Comparison("source-native", "f", "/m", "ascending").value({"m": parsed})[0]
    assert (ranked is not None) == is_number(parsed)


_SPELLED = re.compile(r"isinstance\([^()]*,\s*(?:int \| float|float \| int|\(int, float\)|"
                      r"_NUMBER)\)")
"""``isinstance(v, int | float)``, the copy each module kept (beside ``not isinstance(v,
bool)``)."""


def test_no_module_but_core_numbers_spells_the_test():
    package = Path(kistore.__file__).parent
    found = [f"{path.relative_to(package)}:{n}" for path in sorted(package.rglob("*.py"))
             if path.name != "numbers.py" or path.parent.name != "core"
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if _SPELLED.search(line)]
    assert found == [], found
