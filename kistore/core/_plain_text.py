"""What makes a string look like another one: whitespace, invisible characters, stray marks.

The rules :func:`kistore.core.text_fields.identifying_problems` adds to its category C and
NFC/NFKC rules (KI104), and what to write instead (:func:`plain`). Pure; :mod:`unicodedata`,
whose tables are Python's (Unicode 14.0 in Python 3.11, 15.0 in 3.12), and for scripts
fontTools' (Unicode 18.0 in the lock's 4.68.0).

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
- **Drawn blank** (:func:`blank_looking`, :data:`BLANK_LOOKING`): the characters of the
  usual list of "invisible characters" (:data:`INVISIBLE_LISTED`, invisible-characters.com's)
  that are neither whitespace, category C nor default-ignorable, yet print as an empty cell,
  as a space does: U+2800 BRAILLE PATTERN BLANK (category So, of the Braille script), U+1D159
  MUSICAL SYMBOL NULL NOTEHEAD and U+FFFC OBJECT REPLACEMENT CHARACTER (So). U+2800 is
  refused in an identifying string since 2026-12-07 (fresh16 F8: it was KI254's alone,
  refused as an author only, and ``project`` ``'\u2800'`` labelled a row by nothing), the
  other two since fresh17 F2 (the list was U+2800 alone, written by hand). What a string
  prints as (:func:`printed`) and whether it prints as nothing (:func:`prints_as_nothing`,
  the one predicate KI104 and KI254 share) are built on :func:`word_break` (whitespace,
  drawn blank) and :func:`invisible` (category C, default-ignorable).
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
- **Scripts as UTS #39 "highly restrictive"** (:func:`script_extensions`,
  :func:`mixed_script`): the restriction level of UTS #39 (Unicode Security Mechanisms)
  §5.2, with §5.1's resolved script set. A character's scripts are its Unicode
  ``Script_Extensions`` property (UAX #24; ``ScriptExtensions.txt`` and ``Scripts.txt``),
  read from the fontTools package (:mod:`fontTools.unicodedata`; Unicode 18.0 with the
  lock's fontTools 4.68.0, 16.0 with 4.60, the oldest pyproject.toml admits: not Python's
  :mod:`unicodedata`, whose version, ``unicodedata.unidata_version``, is 14.0 in 3.11 and
  has no script property). Common and Inherited characters (spaces, ASCII digits and
  punctuation, U+02BB the Hawaiian ʻokina, U+00B5 MICRO SIGN, U+210C BLACK-LETTER CAPITAL
  H, many combining marks) count with every script, and so, here, does Unknown (an
  unassigned or private-use code point, refused in an identifying string anyway); a
  character used by a few scripts counts with each (U+30FC KATAKANA-HIRAGANA PROLONGED
  SOUND MARK: Hiragana and Katakana; U+00B7 MIDDLE DOT: Latin, Greek, Han and others;
  U+0301 COMBINING ACUTE ACCENT in Unicode 18.0: Latin, Greek, Cyrillic and others). Han
  is augmented with Japanese, Korean and Han with Bopomofo, Hiragana and Katakana with
  Japanese, Hangul with Korean, Bopomofo with Han with Bopomofo (§5.1). A string is
  accepted when the intersection of its characters' sets is not empty (one script: U+3005
  IDEOGRAPHIC ITERATION MARK is Han, so ``佐々木`` is), or
  when that of its characters not of Latin holds Japanese, Korean or Han with Bopomofo
  (Latin + Han + Hiragana + Katakana, Latin + Han + Bopomofo, Latin + Han + Hangul:
  :data:`HIGHLY_RESTRICTIVE`), as ICU's ``uspoof_getRestrictionLevel`` computes it. So
  ``摩尔线程 MTT S80``, ``昇腾 910B``, ``東京エレクトロン``, ``さくらインターネット`` and
  ``Hawaiʻi Compute`` pass, while Latin with Cyrillic or Greek (the scripts of look-alike
  letters, ``NVIDIA В200``), Hiragana with Hangul, or Cyrillic with Han do not. Messages
  name scripts by Unicode's names (``Latin``, ``Cyrillic``, ``Hiragana or Katakana``).
  Until 2026-12-07 (fresh08 M4) a letter's script was the first word of its Unicode name:
  U+02BB was the "Modifier script" and ``Hawaiʻi Compute`` was refused. Not done here:
  UTS #39's identifier profile and confusable skeletons (§4), which would also catch
  look-alikes within one script (``nvıdia`` with a dotless ``ı``, U+0131, is one Latin
  string) and a whole string in another script (``НРЕ``, Cyrillic: said of an ``author``
  only, KI253, :mod:`kistore.core._look_alike`); a symbol or emoji is Common and passes.
- **Styled letters** (:func:`styled_letter`): a letter or digit whose compatibility
  decomposition is a font variant (``<font>``: mathematical bold ``𝐐``, black-letter
  ``ℌ``), a fullwidth or halfwidth form (``<wide>``: ``Ｕ``; ``<narrow>``: ``ｱ``), a circled
  letter (``<circle>``: ``Ⓐ``) or a superscript or subscript (``<super>``, ``<sub>``)
  prints as a plain letter drawn otherwise, though its script is Common or the plain
  letter's. Identifying strings refuse them as not NFKC; an ``author`` is warned of them
  (:mod:`kistore.store.labels`, KI251; the last four since 2026-12-07, fresh10 MED 3).
"""

from __future__ import annotations

import functools
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
code points). Unchanged since Unicode 14.0 (which added U+180F). Python's :mod:`unicodedata` does
not expose the property; ``tests/core/test_blank_glyph_data.py`` holds this table to the
``\\p{Default_Ignorable_Code_Point}`` of the regular expressions of jsonschema-rs (a runtime
dependency, whose Rust ``regex`` crate compiles Unicode's tables in) over every code point,
and prints the ranges to write here when they differ."""


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


def invisible(c: str) -> bool:
    """Whether ``c`` prints as nothing at all, not even a space.

    Args:
        c: one character.

    Returns:
        True for a character of Unicode category C (U+200B ZERO WIDTH SPACE, U+00AD, a
        control, an unassigned code point) or a ``Default_Ignorable_Code_Point``
        (:func:`default_ignorable`: U+3164 HANGUL FILLER, U+FE0F, U+034F).
    """
    return unicodedata.category(c)[0] == "C" or default_ignorable(c)


INVISIBLE_LISTED = (
    0x0009, 0x000A, 0x000B, 0x000C, 0x000D, 0x0020, 0x00A0, 0x00AD, 0x034F, 0x061C,
    0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, *range(0x2000, 0x2010), 0x202F, 0x205F,
    *range(0x2060, 0x2066), *range(0x206A, 0x2070), 0x2800, 0x3000, 0x3164, 0xFEFF, 0xFFA0,
    0xFFFC, 0x1D159, *range(0x1D173, 0x1D17B), 0xE0020,
)
"""The code points of the usual list of "invisible characters", invisible-characters.com's
(github.com/flopp/invisible-characters, ``characters.json``, read 2026-12-07): what people
paste as a blank name. Left out: its entries U+1D000, U+1D0F0, U+1D100, U+1D129, U+1D130,
U+1D13F, U+1D140, U+1D145 and U+1D150, which that file calls Glagolitic letters or a
beam but are Byzantine and Western musical symbols drawn visibly (their Unicode names).
Most are covered by Unicode's own properties (``White_Space``, category C,
``Default_Ignorable_Code_Point``); :data:`BLANK_LOOKING` is the rest. To refresh: copy the
file's codes here, drop entries whose Unicode name differs from the file's, and run
``tests/core/test_blank_glyph_data.py`` (it also reads the fonts-dejavu glyphs drawn with
no outline, and checks :data:`DEFAULT_IGNORABLE` and whitespace against the Unicode data
compiled into jsonschema-rs)."""

BLANK_LOOKING = frozenset(c for c in map(chr, INVISIBLE_LISTED)
                          if not (c.isspace() or invisible(c)))
"""Characters drawn as an empty cell that are neither whitespace nor of Unicode category C nor
``Default_Ignorable_Code_Point``: the entries of :data:`INVISIBLE_LISTED` that Unicode's
properties (as this Python's :mod:`unicodedata` and :data:`DEFAULT_IGNORABLE` hold them) do
not cover, so built from that list, not by hand. With Python 3.11: U+2800 BRAILLE PATTERN
BLANK (category So, the usual "invisible name" of chat services beside U+3164 HANGUL FILLER;
fresh15 F3), U+FFFC OBJECT REPLACEMENT CHARACTER (So; DejaVu Sans Mono draws it with no
outline) and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (So; since 2026-12-07, fresh17 F2: it
passed as a provider, project, GPU product and author where U+2800 was refused). The one
list: KI104 refuses them in an identifying string (:mod:`kistore.core.text_fields`), KI254
and KI251 read them in an author (:mod:`kistore.store.labels`), all through
:func:`blank_looking`."""


def blank_looking(c: str) -> bool:
    """Whether ``c`` prints as an empty cell yet is no whitespace nor invisible to Unicode.

    Args:
        c: one character.

    Returns:
        True for a character of :data:`BLANK_LOOKING` (U+2800 BRAILLE PATTERN BLANK,
        U+1D159 MUSICAL SYMBOL NULL NOTEHEAD, U+FFFC OBJECT REPLACEMENT CHARACTER).
    """
    return c in BLANK_LOOKING


def word_break(c: str) -> bool:
    """Whether ``c`` prints as an empty cell, a break between words as a space is.

    Args:
        c: one character.

    Returns:
        True for whitespace (:meth:`str.isspace`: U+0020, U+00A0, U+3000, a line break, a
        tab) and for a character drawn blank though neither whitespace nor invisible to
        Unicode (:func:`blank_looking`: U+2800 BRAILLE PATTERN BLANK).
    """
    return c.isspace() or blank_looking(c)


def printed(value: str) -> str:
    """Return what a web page prints of ``value``, as text: the string a reader sees.

    Each word break (:func:`word_break`: whitespace, U+2800) a space, each invisible
    character (:func:`invisible`) nothing, words joined by one U+0020 SPACE, none at
    either end, in Unicode NFC. :func:`kistore.store.labels.printed` calls it past its
    ASCII fast path.

    Args:
        value: a string as stored.

    Returns:
        ``'НРЕ'`` for ``'  НРЕ\\u200b '``; ``'Qin Liu'`` for ``'Qin\\u2800Liu'``; ``''`` for
        ``'\\u2800 \\u3164'``.
    """
    kept = "".join(" " if word_break(c) else "" if invisible(c) else c for c in value)
    return " ".join(unicodedata.normalize("NFC", kept).split())


def prints_as_nothing(value: str) -> bool:
    """Whether ``value`` prints no letter: the one predicate of a blank string.

    Every character is a word break (:func:`word_break`: whitespace, U+2800 BRAILLE
    PATTERN BLANK), invisible (:func:`invisible`: category C, ``Default_Ignorable``, U+3164
    HANGUL FILLER) or a combining mark (category M) with no letter to carry it, drawn alone
    as a floating accent or on a dotted circle (``'\\u0301'``, ``'\\u2800\\u0301'``: since
    2026-12-07, fresh16 F7). KI254 refuses an author so (:func:`kistore.store.labels.blank_said`);
    KI104 refuses each such character of an identifying string
    (:mod:`kistore.core.text_fields`) and, when the string is wholly so, tells to write the
    name in visible characters.

    Args:
        value: a string (``''`` prints as nothing: a caller that takes an empty string as
            none says so itself).

    Returns:
        True when :func:`printed` is empty or holds only combining marks (and the spaces
        between them).
    """
    return all(c == " " or unicodedata.category(c)[0] == "M" for c in printed(value))


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

    Each run of word breaks (whitespace, U+2800 BRAILLE PATTERN BLANK: :func:`word_break`)
    becomes one U+0020 SPACE and edge ones go; category C and default-ignorable characters
    (:func:`invisible`) are dropped; a run of superscripts or subscripts
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
        kept = " ".join("".join(" " if word_break(c) else "" if invisible(c) else c
                                for c in value).split())
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


HIGHLY_RESTRICTIVE = (frozenset({"Latin", "Han", "Hiragana", "Katakana"}),
                      frozenset({"Latin", "Han", "Bopomofo"}),
                      frozenset({"Latin", "Han", "Hangul"}))
"""The sets of scripts UTS #39 §5.2 "Highly Restrictive" lets share a string besides one
script alone: Latin with Japanese (``Jpan``), Chinese (``Hanb``) or Korean (``Kore``)
writing, as its augmented script sets (§5.1) define them."""

EAST_ASIAN = frozenset({"Han", "Hiragana", "Katakana", "Bopomofo", "Hangul"})
"""The scripts of :data:`HIGHLY_RESTRICTIVE` other than Latin: East Asian writing."""

_ANY = frozenset({"Zyyy", "Zinh", "Zzzz"})
"""Script codes that go with every script (UTS #39 §5.1: Common and Inherited; and Unknown,
an unassigned or private-use code point, of which no script can be said)."""

_AUGMENTED = {"Hani": ("Hanb", "Jpan", "Kore"), "Hira": ("Jpan",), "Kana": ("Jpan",),
              "Hang": ("Kore",), "Bopo": ("Hanb",)}
"""UTS #39 §5.1's augmented script sets: Han is also written in Japanese (``Jpan``), Korean
(``Kore``) and Chinese with Bopomofo (``Hanb``); Hiragana and Katakana in Japanese;
Hangul in Korean; Bopomofo in ``Hanb``."""

_WRITINGS = frozenset({"Hanb", "Jpan", "Kore"})
"""The writing systems of §5.2 "Highly Restrictive" that Latin may join."""


@functools.lru_cache(maxsize=4096)
def _augmented(c: str) -> frozenset[str] | None:
    """Return the augmented Script_Extensions of ``c`` as ISO 15924 codes, or None for all.

    fontTools' data (:func:`script_extensions`), with :data:`_AUGMENTED`'s codes added
    (``{"Hani", "Hanb", "Jpan", "Kore"}`` for a Han character); None for a character that
    goes with every script (:data:`_ANY`). Cached: a name repeats its letters.
    """
    # Lazy: fontTools' tables (~10 ms) only for a string past the ASCII fast path.
    from fontTools import unicodedata as ucd

    codes = frozenset(ucd.script_extension(c))
    if codes & _ANY:
        return None
    return codes.union(*(_AUGMENTED[code] for code in codes if code in _AUGMENTED))


def script_extensions(c: str) -> frozenset[str]:
    """Return the Script_Extensions of ``c``: the scripts it is written in, by Unicode's names.

    The ``Script_Extensions`` property (UAX #24; Unicode's ``ScriptExtensions.txt``, and for
    a code point it does not list, the ``Script`` of ``Scripts.txt``) as the fontTools
    package ships it (:mod:`fontTools.unicodedata`; the lock's fontTools 4.68.0 follows
    Unicode 18.0, while Python's own :mod:`unicodedata` is 14.0 in 3.11).

    Args:
        c: one character.

    Returns:
        The long names of Unicode's ``Script`` property values (PropertyValueAliases.txt,
        underscores as spaces): ``{"Latin"}``; ``{"Common"}`` for U+02BB (the Hawaiian
        ʻokina), U+00B5 MICRO SIGN, U+210C BLACK-LETTER CAPITAL H, spaces, ASCII digits and
        punctuation; ``{"Hiragana", "Katakana"}`` for U+30FC; ``{"Inherited"}`` or the
        scripts a mark is used with for a combining mark; ``{"Unknown"}`` for an unassigned
        or private-use code point.
    """
    # Lazy: fontTools' tables (~10 ms), only for a string past the ASCII fast path.
    from fontTools import unicodedata as ucd

    return frozenset(ucd.script_name(code) for code in ucd.script_extension(c))


def _sets(value: str) -> list[tuple[int, frozenset[str]]]:
    """Return (index, augmented Script_Extensions codes) per character of ``value`` of a script.

    Left out: Common, Inherited and Unknown characters (UTS #39 §5.1: those go with all).
    """
    return [(i, found) for i, c in enumerate(value)
            if not (c.isascii() and not c.isalpha())  # ASCII digits, spaces, punctuation
            and (found := _augmented(c)) is not None]


def _one_writing(sets: list[frozenset[str]]) -> bool:
    """Whether characters of these augmented Script_Extensions may share a string (§5.2).

    UTS #39 "Highly Restrictive", as ICU's ``uspoof_getRestrictionLevel`` computes it: their
    resolved script set (the intersection of the sets) is not empty ("single script"), or
    the resolved set of those without Latin holds Japanese, Korean or Han with Bopomofo.
    """
    if not sets or frozenset.intersection(*sets):
        return True
    others = [s for s in sets if "Latn" not in s]
    return not others or bool(frozenset.intersection(*others) & _WRITINGS)


def mixed_script(value: str) -> tuple[int, int] | None:
    """Return where ``value`` mixes scripts: (one letter's index, other script's), or None.

    UTS #39 §5.1-5.2 "Highly Restrictive" (module docstring): each character counts with
    the scripts of its Script_Extensions (:func:`script_extensions`), a Common, Inherited or
    Unknown one with every script.

    Args:
        value: a string.

    Returns:
        The 0-based indices of two characters: the first character after which the string
        is no longer of one script or one set of :data:`HIGHLY_RESTRICTIVE` (``other``), and
        the first character before it that may not share a string with it alone
        (``first``); when no one character may not (three characters of two scripts each,
        no script common to all), the first character of a script. None when the string is
        of one script, or of one set of :data:`HIGHLY_RESTRICTIVE` (or of none).
    """
    if value.isascii():
        return None  # ASCII letters are all Latin
    sets = _sets(value)
    every: frozenset[str] | None = None  # the resolved script set so far (None: all)
    others: frozenset[str] | None = None  # ... of the characters not of Latin
    for n, (i, found) in enumerate(sets):
        every = found if every is None else every & found
        if "Latn" not in found:
            others = found if others is None else others & found
        if every or others is None or others & _WRITINGS:
            continue
        first = next((j for j, s in sets[:n] if not _one_writing([s, found])), sets[0][0])
        return first, i
    return None


def assigned_later(c: str) -> str | None:
    """Return the script of ``c`` when only Unicode data newer than Python's assigns it.

    Python's :mod:`unicodedata` (Unicode 14.0 in 3.11) calls a code point assigned since
    unassigned (category Cn), while the scripts come from fontTools' newer data (18.0 with
    the lock's 4.68.0): U+0CF3 KANNADA SIGN COMBINING ANUSVARA ABOVE RIGHT, of Unicode 15.0,
    is Cn to the one and Kannada to the other (fresh17 F9).

    Args:
        c: one character.

    Returns:
        The script's Unicode name (``Kannada``) for a code point of category Cn here that
        fontTools' ``Scripts.txt`` gives a script; None for any other (an assigned one, or
        one unassigned in both: Unknown there).
    """
    if unicodedata.category(c) != "Cn":
        return None
    # Lazy: fontTools' tables (~10 ms), only for an unassigned code point.
    from fontTools import unicodedata as ucd

    code = ucd.script(c)
    return None if code == "Zzzz" else ucd.script_name(code)


@functools.cache
def scripts_version() -> str:
    """Return the Unicode version of fontTools' script data: ``18.0.0``, or ``""`` if unsaid.

    Read from the header fontTools keeps of the ``Scripts.txt`` it was built from
    (``# Scripts-18.0.0.txt``), which the package names in no attribute.
    """
    # Lazy: only for a message that names the version (a rare refusal).
    import re
    from pathlib import Path

    # Lazy: fontTools' tables, only for a message that names their version.
    from fontTools.unicodedata import Scripts

    try:
        head = Path(Scripts.__file__ or "").read_text(encoding="utf-8")[:2000]
    except (OSError, UnicodeDecodeError):
        return ""
    found = re.search(r"Scripts-(\d+(?:\.\d+)*)\.txt", head)
    return found.group(1) if found else ""


def scripts_said(c: str) -> str:
    """Name the scripts of ``c`` for a message: ``Latin``, ``Hiragana or Katakana``.

    Args:
        c: one character.

    Returns:
        Its Script_Extensions (:func:`script_extensions`), sorted, joined by ``or``.
    """
    names = sorted(script_extensions(c))
    return " or ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} or {names[-1]}"


_STYLES = ("<font>", "<wide>", "<narrow>", "<circle>", "<super>", "<sub>")
"""The compatibility tags (UnicodeData.txt decomposition field) of a styled copy of another
character: a font variant (mathematical bold, italic, script, black-letter, double-struck:
U+1D400-U+1D7FF, U+210C ...), a fullwidth or halfwidth form (U+FF21; U+FF71 HALFWIDTH
KATAKANA LETTER A), a circled one (U+24B6 CIRCLED LATIN CAPITAL LETTER A) and a superscript
or subscript (U+00B2, U+1D43 MODIFIER LETTER SMALL A, U+2090). Since 2026-12-07 (fresh10 MED
3) the last four too: until then ``Ⓠin Liu`` and ``ᵠin`` were said of nothing. Not
``<compat>`` (U+00B5 MICRO SIGN, the ligature U+FB01), ``<fraction>`` nor ``<noBreak>``
(U+00A0 is said as a space other than U+0020)."""


def styled_letter(value: str) -> int | None:
    """Return the index of the first styled letter or digit of ``value``, or None.

    A character whose compatibility decomposition is one letter or digit (category L or N)
    with a tag of :data:`_STYLES`: a font variant (``ℌ``, U+210C, of ``H``; ``𝐐``,
    U+1D410, of ``Q``), a fullwidth or halfwidth form (``Ｕ``, U+FF35, of ``U``; ``ｱ``,
    U+FF71, of ``ア``), a circled letter (``Ⓐ``, U+24B6, category So) or a superscript or
    subscript (``ᵃ``, ``²``, ``₁``). It prints as a plain letter drawn otherwise, while its
    script is Common (``ℌ``, ``𝐐``, ``Ⓐ``) or the letter's own (``Ｕ``): no mix of scripts
    says it. Identifying strings refuse it as not NFKC; an ``author``
    (:mod:`kistore.store.labels`) is warned of it. U+00B5 MICRO SIGN (``<compat>``) and
    U+2122 TRADE MARK SIGN (``<super>`` of two letters) are none.

    Args:
        value: a string.
    """
    if value.isascii():
        return None
    return next((i for i, c in enumerate(value) if _styled_form_of(c) is not None), None)


def _styled_form_of(c: str) -> str | None:
    """Return the letter or digit ``c`` is a styled form of (:data:`_STYLES`), or None."""
    tag, _, code = unicodedata.decomposition(c).partition(" ")
    if tag not in _STYLES or " " in code:
        return None
    plain = chr(int(code, 16))
    return plain if unicodedata.category(plain)[0] in "LN" else None


def styled_said(c: str) -> str:
    """Say which character the styled ``c`` (:func:`styled_letter`) is a form of.

    Returns:
        ``a styled form of U+0048 LATIN CAPITAL LETTER H (Unicode's compatibility
        decomposition <font>)``.
    """
    tag = unicodedata.decomposition(c).partition(" ")[0]
    plain = _styled_form_of(c) or c
    return (f"a styled form of U+{ord(plain):04X} {char_name(plain)} (Unicode's compatibility "
            f"decomposition {tag})")


def east_asian(name: str) -> bool:
    """Whether the script ``name`` is of East Asian writing (:data:`EAST_ASIAN`).

    Args:
        name: a script name of :func:`script_extensions`.

    Returns:
        True for ``Han``, ``Hiragana``, ``Katakana``, ``Hangul`` and ``Bopomofo``.
    """
    return name in EAST_ASIAN
