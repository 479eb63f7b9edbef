"""What makes a string look like another one: whitespace, invisible characters, stray marks.

The rules :func:`kistore.core.text_fields.identifying_problems` adds to its category C and
NFC/NFKC rules (KI104), and what to write instead (:func:`plain`). Pure; only
:mod:`unicodedata`, whose tables are Python's (Unicode 14.0 in Python 3.11, 15.0 in 3.12).

- **One kind of whitespace** (:func:`other_whitespace`): U+0020 SPACE is the only
  whitespace an identifying string may hold. Every other character Python's
  :meth:`str.isspace` calls whitespace is refused wherever it stands: general category Zs,
  Zl or Zp (U+00A0, U+1680 OGHAM SPACE MARK, U+2000-U+200A, U+2028 LINE SEPARATOR, U+2029
  PARAGRAPH SEPARATOR, U+202F, U+205F, U+3000) or bidirectional class WS, B or S (the
  controls U+0009-U+000D, U+001C-U+001F, U+0085). That is every code point of Unicode's
  ``White_Space`` property (PropList.txt, which :mod:`unicodedata` does not expose) and
  the four information separators U+001C-U+001F besides, all category C anyway. Some
  (U+00A0, U+3000) were refused already as not NFKC; U+1680, U+2028 and U+2029 have no
  compatibility mapping and were not.
- **Default-ignorable code points** (:func:`default_ignorable`): characters a renderer
  draws as nothing unless it supports them, from Unicode's ``Default_Ignorable_Code_Point``
  property (UAX #44 §5.3; the ranges of ``DerivedCoreProperties.txt``, Unicode 15.1, which
  :mod:`unicodedata` does not expose). Most are category Cf, refused already; the others
  are not "Other" at all: variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF, Mn), the
  Mongolian free variation selectors (Mn), the combining grapheme joiner U+034F (Mn),
  Khmer inherent vowels U+17B4-U+17B5 (Mn), and the Hangul fillers U+115F, U+1160, U+3164
  and U+FFA0 (Lo).
- **A combining mark belongs to a letter of a script that writes it** (:func:`stray_mark`):
  a character of general category M (Mn, Mc, Me) is refused unless its base (the nearest
  character before it that is not a mark) is a letter (category L) outside ASCII, and it
  is not an enclosing mark (Me). The string must also be in NFC (the schema's rule), and
  NFC makes each accented ASCII letter Unicode encodes (``é``, ``ñ``, Vietnamese ``ệ``) one
  code point; so a mark left on an ASCII letter is one no orthography needs a code point
  for, drawn over a plain ``H`` or ``A`` (``H\\u0336100``, a struck-through ``H``), and a
  mark on a digit, a space, punctuation or a symbol (``A100\\u0301``) or at the start is
  decoration, not writing. Marks on the letters of other scripts (Devanagari vowel signs
  and virama, Thai tone marks, Hebrew points, Arabic harakat) and on non-ASCII Latin
  letters with no precomposed form (Yoruba ``ẹ́``, Navajo ``ą́``) are how those are
  written, and pass. Enclosing marks (U+20DD COMBINING ENCLOSING CIRCLE, the keycap
  U+20E3) draw a frame round their base and are no script's letters: refused everywhere.
- **Scripts as UTS #39 "highly restrictive"** (:func:`script`, :func:`mixed_script`):
  the restriction level of UTS #39 (Unicode Security Mechanisms) §5.2, simplified in how
  a character's script is found. Each letter (category L) and each decimal digit outside
  ASCII (Nd) belongs to the script that begins its Unicode name (``LATIN CAPITAL LETTER
  A``: Latin; ``CYRILLIC CAPITAL LETTER A``: Cyrillic; ``CJK UNIFIED IDEOGRAPH-4E00``:
  Han; ``ARABIC-INDIC DIGIT ONE``: Arabic); every other character (spaces, punctuation,
  symbols, ASCII digits, combining marks) is Common or Inherited and ignored. A string is
  accepted when its scripts are one script, or are all within one of the three sets
  §5.2 names (:data:`HIGHLY_RESTRICTIVE`): Latin + Han + Hiragana + Katakana (Latin with
  Japanese, ``Latn`` + ``Jpan``), Latin + Han + Bopomofo (with Chinese, ``Hanb``), Latin
  + Han + Hangul (with Korean, ``Kore``). So real names such as ``摩尔线程 MTT S80``,
  ``昇腾 910B`` or ``東京エレクトロン`` pass, while Latin with Cyrillic or Greek (the
  scripts of look-alike letters, ``NVIDIA В200``), Hiragana with Hangul, or Cyrillic with
  Han do not. A set is allowed exactly when each two of its scripts are (each set above
  holds Latin and Han; Hiragana/Katakana, Bopomofo and Hangul share none), so the check
  is pairwise (:func:`one_writing_system`). Not done: UTS #39's confusable skeletons
  (§4), which would also catch look-alikes within one script (``nvıdia`` with a dotless
  ``ı``, U+0131, is one Latin string); a symbol or emoji is Common and passes.
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


CONTROL_NAMES = {
    0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED", 0x0B: "LINE TABULATION",
    0x0C: "FORM FEED", 0x0D: "CARRIAGE RETURN", 0x1C: "INFORMATION SEPARATOR FOUR",
    0x1D: "INFORMATION SEPARATOR THREE", 0x1E: "INFORMATION SEPARATOR TWO",
    0x1F: "INFORMATION SEPARATOR ONE", 0x85: "NEXT LINE",
}
"""The whitespace controls' names, which :func:`unicodedata.name` does not give (controls
have none): their ``control`` aliases of Unicode's ``NameAliases.txt``, which
:func:`unicodedata.lookup` reads back."""


def char_name(c: str) -> str:
    """Return the Unicode name of ``c``, or for a whitespace control its alias; else ``""``.

    Args:
        c: one character.

    Returns:
        ``LATIN CAPITAL LETTER A``; ``CHARACTER TABULATION`` for U+0009
        (:data:`CONTROL_NAMES`); ``""`` for another control or an unassigned code point.
    """
    return unicodedata.name(c, "") or CONTROL_NAMES.get(ord(c), "")


def other_whitespace(c: str) -> bool:
    """Whether ``c`` is whitespace other than U+0020 SPACE (the module's first rule).

    Args:
        c: one character.

    Returns:
        True when :meth:`str.isspace` holds (category Zs, Zl or Zp, or bidirectional class
        WS, B or S) and ``c`` is not ``" "``: a tab, U+00A0, U+1680, U+2028, U+3000 ...
    """
    return c != " " and c.isspace()


def stray_mark(value: str) -> tuple[int, str] | None:
    """Return the first combining mark of ``value`` no script writes there, and why.

    The rule of the module docstring: a mark (category M) passes only on a base letter
    (the nearest character before it that is not a mark) of category L outside ASCII, and
    never when it is an enclosing mark (Me).

    Args:
        value: a string (in NFC, for the rule to mean what the docstring says).

    Returns:
        (0-based index of the mark, a phrase that says what is wrong: ``"an enclosing
        mark (Unicode category Me), which frames its base"``, ``"a combining mark with no
        letter before it"``, ``"a combining mark on U+0030 DIGIT ZERO, not a letter"``,
        ``"a combining mark on U+0048 LATIN CAPITAL LETTER H, an ASCII letter"``); None
        when every mark passes (or there is none).
    """
    base: str | None = None
    for i, c in enumerate(value):
        category = unicodedata.category(c)
        if category[0] != "M":
            base = c
            continue
        if category == "Me":
            return i, "an enclosing mark (Unicode category Me), which frames its base"
        if base is None:
            return i, "a combining mark with no letter before it"
        name = char_name(base)
        named = f"U+{ord(base):04X}{' ' + name if name else ''}"
        if unicodedata.category(base)[0] != "L":
            return i, f"a combining mark on {named}, not a letter"
        if base.isascii():
            return i, f"a combining mark on {named}, an ASCII letter"
    return None


def plain(value: str) -> str:
    """Return what to write instead of ``value``: it with every refused character mended.

    Each run of whitespace becomes one U+0020 SPACE and edge whitespace goes; category C
    and default-ignorable characters are dropped; a run of superscripts or subscripts
    becomes ``^`` or ``_`` and their NFKC form (``b200²``: ``b200^2``, not ``b2002``, a
    different name); NFKC; refused marks (:func:`stray_mark`) are dropped; repeated to a
    fixed point. A mix of scripts is left as it is (which letter was meant is not known):
    the result can still be refused for that alone (``H100 µ``: ``H100 μ``, Greek beside
    Latin), and :func:`kistore.core.text_fields.identifying_problems` then suggests nothing.

    Args:
        value: a string.

    Returns:
        The mended string (``"A\\tB"``: ``"A B"``; ``"A100\\u0301"``: ``"A100"``); ``""``
        when nothing visible is left.
    """
    for _ in range(4):  # each pass reaches a fixed point at once in practice
        kept = "".join(c for c in " ".join(value.split())
                       if unicodedata.category(c)[0] != "C" and not default_ignorable(c))
        fixed = " ".join(unicodedata.normalize("NFKC", _raised_and_lowered(kept)).split())
        while (stray := stray_mark(fixed)) is not None:
            fixed = fixed[:stray[0]] + fixed[stray[0] + 1:]
        if fixed == value:
            break
        value = fixed
    return value


_MARKERS = {"<super>": "^", "<sub>": "_"}
"""The compatibility tags of superscripts and subscripts (UnicodeData.txt decomposition
field), and the ASCII that says "raised" or "lowered" in plain text (``m^2``, ``H_2O``)."""


def _raised_and_lowered(value: str) -> str:
    """Return ``value`` with each run of superscripts (subscripts) as ``^`` (``_``) and it.

    ``"b200²"``: ``"b200^2"``; ``"x²³"``: ``"x^²³"`` (NFKC then reads ``x^23``); other
    characters unchanged. NFKC alone would glue the digit on (``b2002``).
    """
    if value.isascii():
        return value
    out: list[str] = []
    previous = ""
    for c in value:
        tag = unicodedata.decomposition(c).partition(" ")[0]
        marker = _MARKERS.get(tag, "")
        if marker and marker != previous:
            out.append(marker)
        previous = marker
        out.append(c)
    return "".join(out)


_SPLIT = str.maketrans("-", " ")

_SCRIPT_ALIASES = {"Cjk": "Han", "Ideographic": "Han"}
"""First words of names that are not their script's name: ``CJK UNIFIED IDEOGRAPH-4E00``,
``CJK COMPATIBILITY IDEOGRAPH-F900`` and ``IDEOGRAPHIC ITERATION MARK`` (U+3005, U+3006)
are Han (Scripts.txt)."""

HIGHLY_RESTRICTIVE = (frozenset({"Latin", "Han", "Hiragana", "Katakana"}),
                      frozenset({"Latin", "Han", "Bopomofo"}),
                      frozenset({"Latin", "Han", "Hangul"}))
"""The sets of scripts UTS #39 §5.2 "Highly Restrictive" lets share a string besides one
script alone: Latin with Japanese (``Jpan``), Chinese (``Hanb``) or Korean (``Kore``)
writing, as its augmented script sets (§5.1) define them."""

EAST_ASIAN = frozenset({"Han", "Hiragana", "Katakana", "Bopomofo", "Hangul"})
"""The scripts of :data:`HIGHLY_RESTRICTIVE` other than Latin: East Asian writing."""


def script(c: str) -> str | None:
    """Return the script of ``c`` by the first word of its Unicode name, or None (Common).

    Args:
        c: one character.

    Returns:
        For a letter (category L) or a decimal digit outside ASCII (Nd): the first word of
        its name, up to a space or hyphen, capitalised (``Latin``, ``Cyrillic``, ``Greek``,
        ``Hiragana``, ``Arabic``); ``EXTENDED`` is skipped (``EXTENDED ARABIC-INDIC DIGIT
        ONE``: Arabic); ``CJK`` and ``IDEOGRAPHIC`` are ``Han``. None for every other
        character (Common or Inherited: spaces, punctuation, symbols, marks, ``0``-``9``)
        and for a letter without a name.
    """
    category = unicodedata.category(c)
    if category[0] != "L" and (category != "Nd" or c.isascii()):
        return None
    words = unicodedata.name(c, "").translate(_SPLIT).split()
    if words[:1] == ["EXTENDED"]:
        words = words[1:]
    if not words:
        return None
    first = words[0].capitalize()
    return _SCRIPT_ALIASES.get(first, first)


def one_writing_system(first: str, other: str) -> bool:
    """Whether the scripts ``first`` and ``other`` may share a string (:func:`mixed_script`).

    Args:
        first: a script name of :func:`script`.
        other: another.

    Returns:
        True when they are the same, or both in one set of :data:`HIGHLY_RESTRICTIVE`
        (Latin with Han or Katakana; Hiragana with Katakana; Han with Hangul); False
        otherwise (Hiragana with Hangul, Latin with Cyrillic, Cyrillic with Han).
    """
    return first == other or any(first in kin and other in kin for kin in HIGHLY_RESTRICTIVE)


def mixed_script(value: str) -> tuple[int, int] | None:
    """Return where ``value`` mixes scripts: (one letter's index, other script's), or None.

    Args:
        value: a string.

    Returns:
        The 0-based indices of the first character of a script and of the first character
        after it whose script may not share a string with that one
        (:func:`one_writing_system`); None when all its letters and digits are of one
        script, or of one set of :data:`HIGHLY_RESTRICTIVE` (or it has none).
    """
    seen: dict[str, int] = {}  # script -> index of its first character
    for i, c in enumerate(value):
        if c.isascii() and not c.isalpha():
            continue  # the common case: ASCII digits, spaces, punctuation
        found = script(c)
        if found is None or found in seen:
            continue
        for other, first in seen.items():
            if not one_writing_system(other, found):
                return first, i
        seen[found] = i
    return None


def east_asian(name: str) -> bool:
    """Whether the script ``name`` is of East Asian writing (:data:`EAST_ASIAN`).

    Args:
        name: a script name of :func:`script`.

    Returns:
        True for ``Han``, ``Hiragana``, ``Katakana``, ``Hangul`` and ``Bopomofo``.
    """
    return name in EAST_ASIAN
