"""kistore.core.folding.ascii_alnum: a short text folded once a process (ver99).

``verify`` folds each run's ``sourceNative.source`` three times (KI209, KI232, KI238);
100,000 runs state a handful of sources. What it returns is the fold, kept or not.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from kistore.core import folding


def _fold(text: str) -> str:
    return folding._NOT_ASCII_ALNUM.sub("", unicodedata.normalize("NFKD", folding.folded(text)))


@given(st.text(max_size=300))
def test_the_kept_answer_is_the_fold(text):
    assert folding.ascii_alnum(text) == _fold(text)
    assert folding.ascii_alnum(text) == _fold(text)  # kept, or folded again when long


def test_a_short_text_is_folded_once_and_a_long_one_each_time(monkeypatch):
    calls: list[str] = []
    folded = folding.folded

    def counted(text: str) -> str:
        calls.append(text)
        return folded(text)

    monkeypatch.setattr(folding, "folded", counted)
    monkeypatch.setattr(folding, "_ALNUM_OF", {})
    for _ in range(3):
        assert folding.ascii_alnum("SOL_Exec-Bénch") == "solexecbench"
    assert calls == ["SOL_Exec-Bénch"]
    long = "x" * (folding._ALNUM_KEPT_LENGTH + 1)
    for _ in range(2):
        assert folding.ascii_alnum(long) == long
    assert calls == ["SOL_Exec-Bénch", long, long]  # never kept: no large key held


def test_the_kept_texts_are_bounded(monkeypatch):
    monkeypatch.setattr(folding, "_ALNUM_OF", {})
    monkeypatch.setattr(folding, "_ALNUM_KEPT", 3)
    for text in ("a", "b", "c", "d"):
        folding.ascii_alnum(text)
    assert list(folding._ALNUM_OF) == ["d"]  # full at three: started again
