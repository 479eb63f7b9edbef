"""A string wholly in one script other than Latin that prints as a Latin one (UTS #39 §4).

``НРЕ`` (three Cyrillic letters) prints as the Latin ``HPE`` and ``ΑΜΒ`` (Greek) as
``AMB``: a string of one script, which no mix of scripts says (UTS #39 §5.2,
:func:`kistore.core._plain_text.mixed_script`). Unicode Technical Standard #39 §4 says it
with a *skeleton*: the string in NFD, each character replaced by the prototype of its
confusables (``confusables.txt``: ``Н`` U+041D by ``H``), NFD again; two strings are
confusable when their skeletons are equal. Here the question is narrower, whether an
``author`` wholly of one script other than Latin has a skeleton of ASCII Latin letters (with
its ASCII digits, spaces and punctuation), a name another submitter may bear (KI253,
:mod:`kistore.store.labels`).

The data is the ``confusable-homoglyphs`` package's (3.3.1, MIT: Unicode's
``confusables.txt`` as JSON, each pair of a source and its prototype listed both ways:
:func:`_prototypes` reads the direction back). Loaded lazily, on the first string past the
ASCII fast path with a letter of a script other than Latin (~40 ms, 0.9 MB): ``rank``,
``add`` and ``check`` of ASCII authors never read it.

- **Marks** are dropped before the skeleton (fresh11 LOW 5): ``НРЕ́`` (an acute on ``Е``)
  and ``ЁО`` (``Ё`` is ``Е`` with U+0308 in NFD) print as ``HPE`` and ``EO`` with an accent
  a reader takes for a Latin one, while UTS #39's skeleton keeps the mark and is no ASCII.
- **Palochka** (U+04CF CYRILLIC SMALL LETTER PALOCHKA, ``ӏ``) is a vertical stroke, drawn as
  ``l`` or ``I`` with no dot; the table's prototype is ``i``, so ``аррӏе`` was said as
  ``appie`` (fresh11 LOW 6): it is said as ``l`` (:data:`_DRAWN`).
- **How often**: on Debian's hunspell dictionaries (2026-12-07, each word alone), Russian
  ``ru_RU`` 161 of 146,269 words are said (0.11%: ``ВВС``, ``Вегас``, ``Тарас``), 2.6%
  written in capitals; Greek ``el_GR`` 1,403 of 828,806 word forms (0.17%: ``Άννα``),
  3.7% in capitals. Each does print as Latin letters: a warning, not an error.
- **Not said**: a letter whose prototype is a non-ASCII Latin letter (``к``, U+043A, whose
  prototype is U+0138 LATIN SMALL LETTER KRA: ``кок`` is not ``kok`` here), or a digit
  (``З`` is ``3``: ``АЗС`` is not ``A3C``); look-alikes within Latin (``nvıdia`` with a
  dotless ``ı``, U+0131: one Latin string, and its skeleton is no test of a script); and a
  string that mixes scripts (UTS #39 §5.2: KI251 says it).
"""

from __future__ import annotations

import functools
import json
import unicodedata

_DRAWN = {"\u04cf": "l"}
"""Prototypes the confusables table gives otherwise than the letter is drawn: U+04CF
CYRILLIC SMALL LETTER PALOCHKA, a dotless vertical stroke, is ``i`` there (fresh11 LOW 6)."""

_LRM = "\u200e"
"""U+200E LEFT-TO-RIGHT MARK, which ``confusables.txt`` (so the package's JSON) puts round
each right-to-left character of its comments: not part of the character."""


@functools.cache
def _prototypes() -> dict[str, str]:
    """Return each character's confusables prototype when it is ASCII: ``{"Н": "H", ...}``.

    The package's ``confusables.json`` lists each pair of ``confusables.txt`` both ways
    (a source under its prototype and the prototype under its source). A prototype is never
    a source (skeletons are idempotent), so a character listed with one entry is a source
    whose prototype that entry is, unless it is the prototype of one source alone: the two
    then list each other, and the ASCII one is taken as the prototype (an ASCII letter's
    prototype is ASCII: ``I`` is ``l``, ``m`` is ``rn``). A character with more entries is a
    prototype itself. Only non-ASCII characters whose prototype is ASCII are kept.
    """
    # Lazy: the package's 0.9 MB table, only for a non-ASCII author of another script.
    from importlib import resources

    text = (resources.files("confusable_homoglyphs") / "confusables.json").read_text("utf-8")
    pairs: dict[str, list[dict[str, str]]] = json.loads(text)
    found: dict[str, str] = {}
    for source, entries in pairs.items():
        source = source.replace(_LRM, "")
        if len(entries) != 1 or len(source) != 1 or source.isascii():
            continue
        prototype = entries[0]["c"].replace(_LRM, "")
        if prototype.isascii():
            found[source] = prototype
    found.update(_DRAWN)
    return found


def latin_skeleton(value: str) -> tuple[str, int] | None:
    """Return the ASCII skeleton of ``value`` and its first letter's index, or None.

    The string's UTS #39 §4 skeleton with its marks dropped (the module docstring): NFD,
    combining marks (category M) dropped, each other non-ASCII character replaced by its
    ASCII prototype (:func:`_prototypes`), when every letter (category L) has one made of
    ASCII letters and there is a letter. The caller asks it of a string of one script other
    than Latin (:func:`looks_latin`).

    Args:
        value: a string (``str``, any length).

    Returns:
        (the skeleton, an ASCII ``str``; the 0-based index into ``value`` of its first
        letter): ``("HPE", 0)`` for ``"НРЕ"``, ``("EO", 0)`` for ``"ЁО"``; None when a
        letter has no ASCII letter for prototype (``Москва``: ``в``; ``АЗС``: ``З`` is
        ``3``) or there is no letter.

    Raises:
        Nothing of its own for any string. The first call reads the confusables table of
        the ``confusable-homoglyphs`` package (:func:`_prototypes`, cached): that package
        missing (a dependency of kistore) raises ``ModuleNotFoundError``, its file
        unreadable ``OSError``.
    """
    prototypes = _prototypes()
    out: list[str] = []
    first: int | None = None
    for c in unicodedata.normalize("NFD", value):
        category = unicodedata.category(c)
        if category[0] == "M":
            continue
        if c.isascii():
            out.append(c)
            continue
        found = prototypes.get(c)
        if category[0] == "L":
            if found is None or not found.isalpha():
                return None
        elif found is None:
            return None  # a non-ASCII digit, space or symbol: no Latin name
        out.append(found)
    skeleton = unicodedata.normalize("NFD", "".join(out))
    for i, c in enumerate(value):
        if unicodedata.category(c)[0] == "L":
            first = i
            break
    if first is None or not skeleton.isascii():
        return None
    return skeleton, first


def looks_latin(value: str) -> tuple[str, int] | None:
    """Return the Latin string ``value`` prints as, if wholly of one other script; else None.

    KI253's test: ``value`` is not ASCII, is of one script as UTS #39 §5.2 judges it
    (:func:`kistore.core._plain_text.mixed_script` finds no mix), none of its letters is of
    the Latin script (by Script_Extensions), and its skeleton is ASCII
    (:func:`latin_skeleton`). The confusables table is read only past the first three
    tests.

    Args:
        value: a string (an ``author``).

    Returns:
        (skeleton, an ASCII ``str``; 0-based index into ``value`` of its first letter):
        ``("HPE", 0)`` for ``НРЕ``, ``("AMB", 0)`` for Greek ``ΑΜΒ``; None for ``Москва``,
        ``АЗС``, an ASCII string or one with a Latin letter.

    Raises:
        Nothing of its own for any string; past the ASCII fast path it reads the Unicode
        tables of the ``fontTools`` and ``confusable-homoglyphs`` packages (dependencies of
        kistore), whose absence raises ``ModuleNotFoundError`` (:func:`latin_skeleton`).
    """
    if value.isascii():
        return None
    # Lazy: the rules of scripts, with fontTools' Unicode tables (past the ASCII fast path).
    from ._plain_text import mixed_script, script_extensions

    if mixed_script(value) is not None:
        return None
    letters = [c for c in value if unicodedata.category(c)[0] == "L"]
    if not letters or any("Latin" in script_extensions(c) for c in letters):
        return None
    return latin_skeleton(value)
