"""What makes a string look like another one: invisible characters and mixed scripts.

The rules :func:`kistore.core.schema.identifying_problems` adds to its category C,
whitespace and NFC/NFKC rules (KI104). Pure; only :mod:`unicodedata`, whose tables are
Python's (Unicode 14.0 in Python 3.11, 15.0 in 3.12).

- **Default-ignorable code points** (:func:`default_ignorable`): characters a renderer
  draws as nothing unless it supports them, from Unicode's ``Default_Ignorable_Code_Point``
  property (UAX #44 §5.3; the ranges of ``DerivedCoreProperties.txt``, Unicode 15.1, which
  :mod:`unicodedata` does not expose). Most are category Cf, refused already; the others
  are not "Other" at all: variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF, Mn), the
  Mongolian free variation selectors (Mn), the combining grapheme joiner U+034F (Mn),
  Khmer inherent vowels U+17B4-U+17B5 (Mn), and the Hangul fillers U+115F, U+1160, U+3164
  and U+FFA0 (Lo).
- **One script a string** (:func:`script`, :func:`mixed_script`): a simplified form of
  UTS #39's "single script" restriction level (§5.2): each letter (category L) and each
  decimal digit outside ASCII (Nd) belongs to the script that begins its Unicode name
  (``LATIN CAPITAL LETTER A``: Latin; ``CYRILLIC CAPITAL LETTER A``: Cyrillic;
  ``CJK UNIFIED IDEOGRAPH-4E00``: CJK; ``ARABIC-INDIC DIGIT ONE``: Arabic); every other
  character (spaces, punctuation, symbols, ASCII digits, combining marks) is Common or
  Inherited. A string's letters and digits must all be of one script. Unlike UTS #39's
  "highly restrictive" level, no combination is allowed (not Latin with Han, Hiragana and
  Katakana, nor Han with Hangul): identifying strings (GPU products, families, statistics)
  are Latin in every source so far, and a rule with no exceptions is one to check by eye.
"""

from __future__ import annotations

import unicodedata

DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""The ``Default_Ignorable_Code_Point`` ranges (inclusive), Unicode 15.1
``DerivedCoreProperties.txt``, adjacent lines merged (U+180B-U+180D, U+180E, U+180F; U+2060-
U+2064, U+2065, U+2066-U+206F; U+E0000-U+E0FFF, of tags, variation selectors and reserved
code points). Unchanged since Unicode 14.0 (which added U+180F)."""


def default_ignorable(c: str) -> bool:
    """Whether the character ``c`` is a Unicode ``Default_Ignorable_Code_Point``.

    Args:
        c: one character.

    Returns:
        True for a code point in :data:`DEFAULT_IGNORABLE` (U+FE0F, U+180E, U+115F, U+3164,
        U+200B ...).
    """
    point = ord(c)
    return any(low <= point <= high for low, high in DEFAULT_IGNORABLE)


_SPLIT = str.maketrans("-", " ")


def script(c: str) -> str | None:
    """Return the script of ``c`` by the first word of its Unicode name, or None (Common).

    Args:
        c: one character.

    Returns:
        For a letter (category L) or a decimal digit outside ASCII (Nd): the first word of
        its name, up to a space or hyphen, capitalised (``Latin``, ``Cyrillic``, ``Greek``,
        ``Cjk``, ``Hiragana``, ``Arabic``); ``EXTENDED`` is skipped (``EXTENDED
        ARABIC-INDIC DIGIT ONE``: Arabic). None for every other character (Common or
        Inherited: spaces, punctuation, symbols, marks, ``0``-``9``) and for a letter
        without a name.
    """
    category = unicodedata.category(c)
    if category[0] != "L" and (category != "Nd" or c.isascii()):
        return None
    words = unicodedata.name(c, "").translate(_SPLIT).split()
    if words[:1] == ["EXTENDED"]:
        words = words[1:]
    return words[0].capitalize() if words else None


def mixed_script(value: str) -> tuple[int, int] | None:
    """Return where ``value`` mixes scripts: (first letter's index, other script's), or None.

    Args:
        value: a string.

    Returns:
        The 0-based indices of the first character with a script (:func:`script`) and of
        the first character whose script differs from it; None when all its letters and
        digits are of one script (or it has none).
    """
    first: int | None = None
    first_script = None
    for i, c in enumerate(value):
        if c.isascii() and not c.isalpha():
            continue  # the common case: ASCII digits, spaces, punctuation
        found = script(c)
        if found is None:
            continue
        if first is None:
            first, first_script = i, found
        elif found != first_script:
            return first, i
    return None
