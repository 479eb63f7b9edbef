"""An author wholly in one script other than Latin that prints as Latin letters (KI253).

conf01: ``НРЕ`` (Cyrillic) printed on a leaderboard as ``HPE`` and no rule said it: one
script, so no mix (KI251). UTS #39 §4's skeleton with marks dropped (fresh11 LOW 5) and
the palochka drawn as ``l`` (fresh11 LOW 6): :mod:`kistore.core._look_alike`.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.core import _look_alike
from kistore.core._look_alike import latin_skeleton, looks_latin
from kistore.store.labels import labels_admitted, looks_latin_label_said, mixed_label_said


@pytest.mark.parametrize(("author", "skeleton"), [
    ("\u041d\u0420\u0415", "HPE"),  # НРЕ, Cyrillic
    ("\u0391\u039c\u0392", "AMB"),  # ΑΜΒ, Greek
    ("\u13bb\u13e2\u13ac", "HPE"),  # ᎻᏢᎬ, Cherokee
    ("\u041d\u0420\u0415\u0301", "HPE"),  # НРЕ́: fresh11 LOW 5, the mark dropped
    ("\u0401\u041e", "EO"),  # ЁО: Ё is Е with U+0308 in NFD
    ("\u0430\u0440\u0440\u04cf\u0435", "apple"),  # аррӏе: fresh11 LOW 6, not 'appie'
    ("\u0421\u041e\u041c\u0415 2", "COME 2"),  # ASCII digits and spaces go with it
])
def test_an_author_wholly_of_another_script_that_prints_as_latin(author, skeleton):
    assert looks_latin(author) == (skeleton, 0)


@pytest.mark.parametrize("author", [
    "\u041c\u043e\u0441\u043a\u0432\u0430",  # Москва: в looks like no Latin letter
    "\u0410\u0417\u0421",  # АЗС: З looks like the digit 3, not a letter
    "\u043a\u043e\u043a",  # кок: к's prototype is U+0138 KRA, not ASCII (missed, documented)
    "\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432",  # Иван Петров
    "\u041d\u0420\u0415 Lab",  # a mix of scripts: KI251's
    "n\u0432\u0131dia", "nv\u0131dia",  # within Latin: not this rule's
    "\u5c71\u7530", "HPE", "",
])
def test_other_authors_do_not(author):
    assert looks_latin(author) is None


def test_the_message_names_the_script_the_first_letter_and_the_skeleton():
    # conf01: on BASE 04156861 nothing said it (no such function, no KI253)
    assert looks_latin_label_said("\u041d\u0420\u0415") == (
        "'\u041d\u0420\u0415' is written wholly in the Cyrillic script, yet each of its letters "
        "looks like a Latin one, U+041D CYRILLIC CAPITAL LETTER EN at character 1 first (as "
        "'H'): its skeleton (Unicode TS #39 §4, marks dropped) is 'HPE', that of the Latin "
        "letters it prints as, and a leaderboard shows the author as the row's label, where it "
        "can pass for a Latin author's")


def test_the_palochka_is_said_as_l():
    assert latin_skeleton("\u04cf") == ("l", 0)


@given(st.text(alphabet=st.characters(max_codepoint=0x7E), max_size=40))
def test_an_ascii_author_is_never_said(author):
    assert looks_latin(author) is None


class _Implementation:
    kind = "Implementation"
    digest = "sha256:" + "0" * 64

    def __init__(self, author: str) -> None:
        self.spec = {"author": author}


@pytest.mark.parametrize("author", [
    "Qin Liu @ UCD", "Jos\u00e9 M\u00fcller", "\u0418\u0432\u0430\u043d Petrov",
    "\u5c71\u7530 Taro", "\u00b5Kernel Lab"])
def test_the_confusables_table_is_read_only_for_an_author_of_another_script(author):
    # ASCII authors, Latin ones with accents, mixes (KI251) and Han with Latin never load it:
    # an add or a rank of them costs what it did.
    _look_alike._prototypes.cache_clear()
    labels_admitted(None, [_Implementation(author)])  # type: ignore[list-item]
    assert _look_alike._prototypes.cache_info().currsize == 0
    labels_admitted(None, [_Implementation("\u041d\u0420\u0415")])  # type: ignore[list-item]
    assert _look_alike._prototypes.cache_info().currsize == 1


@given(st.text(max_size=30))
def test_any_author_is_said_or_not_without_raising(author):
    for said in (looks_latin_label_said(author), mixed_label_said(author)):
        assert said is None or said.startswith(repr(author))
