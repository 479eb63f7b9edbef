"""KI104's text rules: which strings of a manifest are identifying, which prose, and why.

Owns :data:`TEXT_FIELDS`, the one table of the strings of each kind that are checked as
text (by JSON Pointer pattern), and :func:`identifying_problems`, which applies it:
identifying strings (names, keys, versions, a comparison key's parts) must be plain text
(NFC and NFKC, no invisible or control character, single U+0020 spaces, scripts as UTS #39
"highly restrictive" allows: :mod:`kistore.core._plain_text`); prose (descriptions,
titles, notes) may hold no control but LINE FEED and no bidirectional control.
:func:`kistore.core.schema.check_manifest` reports these beside the JSON Schema's
findings, as KI104 (review73 F8: the rules were applied to six fields, by a list beside
the schema code).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .canonical import escape_pointer
from .errors import SchemaError, shorten

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Callable


_EVERY_KIND_PROSE = ("/metadata/title", "/metadata/description", "/metadata/labels/@",
                     "/metadata/labels/*", "/metadata/annotations/@", "/metadata/annotations/*")
"""The metadata strings every kind has: prose (``metadata.name`` has its schema pattern)."""

TEXT_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "Workload": {
        "identifying": ("/spec/suite/name", "/spec/suite/version", "/spec/suite/collection",
                        "/spec/definition", "/spec/opType", "/spec/tags/*", "/spec/dtypes/*",
                        "/spec/reference/language", "/spec/reference/path",
                        "/spec/sourceNative/source"),
        "prose": ("/spec/description",),
    },
    "BenchmarkProtocol": {
        "identifying": ("/spec/harness/name", "/spec/harness/version", "/spec/harness/revision",
                        "/spec/measurement/timer", "/spec/measurement/primaryStatistic",
                        "/spec/correctness/reference", "/spec/correctness/comparator",
                        "/spec/comparability/family"),
        "prose": ("/spec/measurement/notes", "/spec/correctness/notes",
                  "/spec/comparability/notes"),
    },
    "ExecutionEnvironment": {
        "identifying": ("/spec/hardware/vendor", "/spec/hardware/product",
                        "/spec/hardware/architecture", "/spec/software/driver",
                        "/spec/software/cuda", "/spec/software/os", "/spec/software/python",
                        "/spec/software/libraries/@", "/spec/software/libraries/*",
                        "/spec/provider"),
        "prose": (),
    },
    "Implementation": {
        "identifying": ("/spec/project", "/spec/revision", "/spec/language", "/spec/framework",
                        "/spec/source/url", "/spec/source/path", "/spec/artifacts/*/name",
                        "/spec/sourceNative/source"),
        "prose": ("/spec/author", "/spec/description"),
    },
    "BenchmarkRun": {
        "identifying": ("/spec/timing/primaryStatistic", "/spec/sourceNative/source",
                        "/spec/sourceNative/benchmark", "/spec/sourceNative/externalId",
                        "/spec/sourceNative/metrics/@"),
        "prose": (),
    },
}
"""The one table of which strings of a manifest are checked as text, per kind, by JSON
Pointer pattern (RFC 6901; ``*`` stands for every member of an object or item of an
array, ``@`` for every key of an object); :func:`identifying_problems` applies it.

- ``identifying``: strings that name or key something: a comparison key's family, GPU
  product and statistic; a suite, problem, harness, project, library and its version; a
  source's benchmark and external id (a run's name is made from it); a metric's key (a
  column of every export, the key a ranking policy's pointer reads). They must be plain
  text (:func:`_identifying_problem`): one script set, no invisible or compatibility
  character, single U+0020 spaces, or one thing becomes two that print alike
  (``sоl_score`` with a Cyrillic ``о`` a second DuckDB column beside ``sol_score``).
- ``prose``: free text shown to people (descriptions, notes, titles, an author, labels and
  annotations, keys and values): any script and character but a control
  character other than LINE FEED and a bidirectional control (:func:`prose_problem`).
  The metadata fields of every kind (:data:`_EVERY_KIND_PROSE`) are prose too.

Not listed, so not checked as text: source code (a workload's ``reference.source``, which
holds tabs and newlines as its language does) and the values a source keeps as it wrote
them (``cases``, ``axes``, ``inputs``, ``clocks``, ``tolerance``, a run's ``correctness``,
a metric's value: data, not text; the canonical-form vectors of ``conformance/`` hold a
tab, U+001F and DEL there). ``metadata.name`` is held to a plain ASCII pattern by its schema
(:func:`kistore.core.schema.check_manifest` says it in words)."""

_CATEGORY = {"Cc": "a control character", "Cf": "an invisible format character",
             "Cs": "a surrogate", "Co": "a private-use character",
             "Cn": "an unassigned code point"}
"""The Unicode general categories "Other" (C*), which no identifying string may hold."""


def _identifying_problem(value: str, *, advise: bool = True) -> str | None:
    """Return why ``value`` may not be an identifying string (:func:`identifying_problems`).

    None when it may. With ``advise``, the message ends in the string to write
    (:func:`kistore.core._plain_text.plain`) only when that string is accepted itself
    (review73 F5: ``H100 µ`` was told to write ``H100 μ``, Greek beside Latin); else it
    says why there is none.
    """
    if value.isascii() and value.isprintable() and value == value.strip() \
            and "  " not in value:
        return None  # the common case, no Unicode tables: U+0020-U+007E, single spaces
    # Lazy: only a non-ASCII or refused identifying string needs the Unicode tables (~2 ms).
    import unicodedata

    # Lazy: the rules of whitespace, scripts, marks and invisible characters, with the tables.
    from . import _plain_text as text

    def at(i: int) -> str:
        return char_at(value, i)

    why = ("identifying strings must be plain text, or one GPU, name or key becomes "
           "two that print alike")
    def write() -> str:
        return _advice(value, text.plain(value)) if advise else "refused"
    if value != value.strip():
        i = 0 if value[0].isspace() else len(value) - 1
        edge = "leading" if i == 0 else "trailing"
        return f"{value!r} holds {at(i)}, {edge} whitespace ({why}): {write()}"
    for i in range(1, len(value)):
        if value[i].isspace() and value[i - 1].isspace():
            return (f"{value!r} holds {at(i)}, whitespace after whitespace (one U+0020 SPACE "
                    f"between words; {why}): {write()}")
    unseen = _unseen(value)
    if unseen is not None:
        n, what, detail = unseen
        fix = _LATER_FIX if what == UNKNOWN_HERE else write()
        return f"{value!r} holds {at(n)}, {what} ({detail}; {why}): {fix}"
    if not unicodedata.is_normalized("NFC", value):
        nfc = unicodedata.normalize("NFC", value)
        said = f"{value!r} is not in Unicode NFC (identifying strings must be, or one GPU, " \
            "name or key becomes two)"
        if advise and _identifying_problem(nfc, advise=False) is None:
            return f"{said}: write {nfc!r} ({' '.join(f'U+{ord(c):04X}' for c in nfc)})"
        return f"{said}: {write()}"
    if not unicodedata.is_normalized("NFKC", value):
        i = next(i for i in range(len(value))
                 if not unicodedata.is_normalized("NFKC", value[:i + 1]))
        return (f"{value!r} holds {at(i)}, a compatibility form (not in Unicode NFKC; {why}): "
                f"{write()}")
    stray = text.stray_mark(value)
    if stray is not None:
        return (f"{value!r} holds {at(stray[0])}, {stray[1]} (a combining mark must belong "
                f"to a non-ASCII letter, as in the writing of its script; {why}): {write()}")
    mixed = text.mixed_script(value)
    if mixed is not None:
        return _mixed_script_problem(value, *mixed)
    return None


_LATER_FIX = ("its category and normal forms cannot be judged on this Python: run kistore on "
              "a Python whose unicodedata.unidata_version assigns it, or write the name "
              "without it")
"""KI104's fix for a code point of :data:`UNKNOWN_HERE` (U+0CF3 on Python 3.11)."""


def _unseen(value: str, passes: Callable[[str], bool] = lambda _c: False
            ) -> tuple[int, str, str] | None:
    """Return KI104's first whitespace or invisible character of ``value`` and what it is.

    The one owner of these predicates, in KI104's order (:func:`_identifying_problem`):
    whitespace but U+0020 SPACE (:func:`kistore.core._plain_text.other_whitespace`), a
    character of Unicode category C (Cf: U+200B ZERO WIDTH SPACE, U+200D, U+00AD SOFT
    HYPHEN ...), a ``Default_Ignorable_Code_Point`` (variation selectors, Hangul fillers:
    :func:`kistore.core._plain_text.default_ignorable`), a character drawn as an empty cell
    (U+2800 BRAILLE PATTERN BLANK, U+1D159, U+FFFC: :func:`kistore.core._plain_text.
    blank_looking`; U+2800 refused here since 2026-12-07, fresh16 F8, until then as an
    author only, KI254; the others since fresh17 F2); an ``author``'s
    warning (:func:`kistore.store.labels.author_problems`) asks the same predicates of each
    character.

    Args:
        value: a string past the ASCII fast path.
        passes: characters not looked at (an author's line feeds, said by KI219).

    Returns:
        (0-based index, what it is: ``"an invisible format character"``, the Unicode
        property that says so: ``"Unicode category Cf"``); None when there is none.
    """
    # Lazy: the Unicode tables, only for a string past the ASCII fast path.
    import unicodedata

    # Lazy: the rules of whitespace and invisible characters, with the tables.
    from . import _plain_text as text

    if (n := _first(value, lambda c: not passes(c) and text.other_whitespace(c))) is not None:
        return (n, "whitespace other than U+0020 SPACE",
                "the only whitespace allowed, one between words")
    if (n := _first(value, lambda c: not passes(c)
                    and unicodedata.category(c)[0] == "C")) is not None:
        return n, *category_said(value[n])
    if (n := _first(value, lambda c: not passes(c) and text.default_ignorable(c))) is not None:
        return n, "an invisible character", "Unicode Default_Ignorable_Code_Point"
    if (n := _first(value, lambda c: not passes(c) and text.blank_looking(c))) is not None:
        return n, DRAWN_BLANK, drawn_blank_why(value[n])
    return None


DRAWN_BLANK = "a character drawn as an empty cell"
"""What KI104 (:func:`_unseen`) and KI251 (:func:`kistore.store.labels.author_problems`) call
a character of :data:`kistore.core._plain_text.BLANK_LOOKING` (U+2800 BRAILLE PATTERN BLANK,
U+1D159 MUSICAL SYMBOL NULL NOTEHEAD, U+FFFC OBJECT REPLACEMENT CHARACTER)."""


def drawn_blank_why(c: str) -> str:
    """Say why a character of :data:`DRAWN_BLANK` is one (its Unicode category, as printed).

    Args:
        c: a character :func:`kistore.core._plain_text.blank_looking` holds.

    Returns:
        ``Unicode category So, yet it prints as a space does``.
    """
    # Lazy: the Unicode tables, only for a string that holds one.
    import unicodedata

    return f"Unicode category {unicodedata.category(c)}, yet it prints as a space does"


def _advice(value: str, fix: str) -> str:
    """Return what :func:`_identifying_problem` tells to write instead of ``value``.

    ``fix`` is ``value`` mended (:func:`kistore.core._plain_text.plain`): ``write 'FIX'``
    when it is accepted; else (only a mix of scripts can remain) no string, and why.
    """
    # Lazy: the one predicate of a blank string (KI254's too), with the Unicode tables.
    from ._plain_text import prints_as_nothing

    if not fix or prints_as_nothing(value):
        return "write the name in visible characters"
    if _identifying_problem(fix, advise=False) is None:
        return f"write {fix!r}"
    return (f"write it in one script ({fix!r}, it with that character mended, mixes "
            f"scripts)")


def _first(value: str, holds: Callable[[str], bool]) -> int | None:
    """Return the 0-based index of the first character of ``value`` that ``holds``, or None."""
    return next((i for i, c in enumerate(value) if holds(c)), None)


def mixed_script(value: str) -> tuple[int, int] | None:
    """Return where ``value`` mixes scripts UTS #39 "highly restrictive" keeps apart, or None.

    :func:`kistore.core._plain_text.mixed_script` (its Unicode tables loaded on first use),
    for a rule outside this module that says such a mix in its own words with
    :func:`mixed_script_said` (an Implementation's ``author``: :mod:`kistore.store.labels`).

    Args:
        value: a string.

    Returns:
        The 0-based indices of a character of a script and of the first character after
        it of a script that may not share a string with that one; None when its
        characters are of one script or of one set UTS #39 §5.2 allows, each by its
        Unicode Script_Extensions, Common and Inherited going with every script (U+02BB,
        the Hawaiian ʻokina, and U+00B5 MICRO SIGN are Common: fresh08 M4).
    """
    # Lazy: the rules of scripts, with the Unicode tables.
    from ._plain_text import mixed_script as found

    return found(value)


def mixed_script_said(value: str, first: int, other: int) -> str:
    """Say which two characters of ``value`` are of scripts that may not share a string.

    The one wording of a mix of scripts: KI104's refusal of an identifying string
    (:func:`identifying_problems`) and ``add``'s warning of an ``author``
    (:mod:`kistore.store.labels`) each add why it matters to them.

    Args:
        value: the string.
        first: the 0-based index of the first character of one script
            (:func:`mixed_script`).
        other: the 0-based index of a later character of a script that may not share a
            string with it.

    Returns:
        ``'Qin Liu @ UСD' holds U+0421 CYRILLIC CAPITAL LETTER ES at character 12, of the
        Cyrillic script, after U+0051 LATIN CAPITAL LETTER Q at character 1, of the Latin
        script`` (positions 1-based; ``repr`` escapes what does not print).
    """
    # Lazy: the rules of scripts, with the Unicode tables.
    from ._plain_text import scripts_said

    theirs, ours = scripts_said(value[other]), scripts_said(value[first])
    return (f"{value!r} holds {char_at(value, other)}, of the {theirs} script, after "
            f"{char_at(value, first)}, of the {ours} script")


_LINE_BREAKS = "\n\u2028\u2029"
"""The line breaks prose admits, which KI219 says of an ``author`` (a citation's line)."""


def prose_refuses(c: str) -> bool:
    """Whether an author's character ``c`` is another rule's than KI251's (an author's rules).

    :func:`kistore.store.labels.author_problems` leaves it to that rule.

    Args:
        c: one character.

    Returns:
        True for a line break (U+000A, U+2028, U+2029: KI219's) and for what prose refuses
        (a control but LINE FEED, a bidirectional control: KI104's, :data:`_NOT_PROSE`).
    """
    return c in _LINE_BREAKS or _NOT_PROSE.match(c) is not None


UNKNOWN_HERE = "a code point this Python's Unicode data does not assign"
"""What KI104 (:func:`_unseen`) and KI251 call a code point of category Cn to Python's
:mod:`unicodedata` that the newer Unicode data kistore reads scripts from assigns
(:func:`kistore.core._plain_text.assigned_later`): not "unassigned" (fresh17 F9: U+0CF3 was
called an unassigned code point while its script was said to be Kannada)."""


def category_said(c: str) -> tuple[str, str]:
    """Say what a character of Unicode general category "Other" (C*) is, as KI104 does.

    Args:
        c: a character of category ``Cf``, ``Cc``, ``Cs``, ``Co`` or ``Cn``.

    Returns:
        (what it is, the data that says so): ``("an invisible format character", "Unicode
        category Cf")`` (:data:`_CATEGORY`); for a code point Python's Unicode data leaves
        unassigned and fontTools' newer data gives a script, :data:`UNKNOWN_HERE` and
        ``Unicode category Cn in Unicode 14.0.0, Python's unicodedata, by which kistore
        judges characters; Unicode 18.0.0, whose scripts kistore reads from fontTools,
        assigns it to the Kannada script``.
    """
    # Lazy: the Unicode tables, only for a character of category C.
    import unicodedata

    # Lazy: fontTools' scripts, with the tables.
    from . import _plain_text as text

    category = unicodedata.category(c)
    script = text.assigned_later(c)
    if script is None:
        return _CATEGORY.get(category, category), f"Unicode category {category}"
    newer = f"Unicode {text.scripts_version()}" if text.scripts_version() else \
        "newer Unicode data"
    return UNKNOWN_HERE, (
        f"Unicode category {category} in Unicode {unicodedata.unidata_version}, Python's "
        f"unicodedata, by which kistore judges characters; {newer}, whose scripts kistore "
        f"reads from fontTools, assigns it to the {script} script")


def line_break_said(what: str, value: str) -> str | None:
    """Say the first line break of a string a citation prints within one line (KI219), or None.

    The one wording of KI219: ``check`` says it of a title and an ``author``
    (:func:`kistore.check._rules.cited_text_findings`), ``add`` of an ``author``
    (:func:`kistore.store.labels.labels_admitted`, since fresh12 F4).

    Args:
        what: the field as the message names it (``"title"``, ``"author"``).
        value: its value.

    Returns:
        ``the author holds U+2028 LINE SEPARATOR at character 4: a citation prints it within
        one line (escaped, as \\n); written raw it would read as lines of the citation``
        (U+000A LINE FEED, U+2028, U+2029; 1-based); None when it holds none. Raises
        nothing.
    """
    i = _first(value, lambda c: c in _LINE_BREAKS)
    if i is None:
        return None
    return (f"the {what} holds {char_at(value, i)}: a citation prints it within one line "
            "(escaped, as \\n); written raw it would read as lines of the citation")


def char_at(value: str, i: int) -> str:
    """Name character ``i`` (0-based) of ``value`` for a message.

    Args:
        value: a string.
        i: a 0-based index into it.

    Returns:
        ``U+0421 CYRILLIC CAPITAL LETTER ES at character 12`` (1-based; a control by its
        alias, :func:`kistore.core._plain_text.char_name`). Raises IndexError past the end.
    """
    # Lazy: the Unicode names, with the tables.
    from ._plain_text import char_name

    name = char_name(value[i])
    return f"U+{ord(value[i]):04X}{' ' + name if name else ''} at character {i + 1}"


def _mixed_script_problem(value: str, first: int, other: int) -> str:
    """Return the finding of a mix of scripts (:func:`mixed_script`).

    ``first`` and ``other`` are the 0-based indices of two characters of ``value`` whose
    scripts may not share a string. Retyping is the advice only between alphabets with
    look-alikes (Latin, Cyrillic, Greek...), not when one script is East Asian.
    """
    # Lazy: the rules of scripts, with the Unicode tables.
    from ._plain_text import east_asian, script_extensions, scripts_said

    theirs, ours = scripts_said(value[other]), scripts_said(value[first])
    said = f"{mixed_script_said(value, first, other)} (letters of one script, or Latin with " \
        "Japanese, Chinese or Korean writing"
    if any(east_asian(name) for c in (value[first], value[other])
           for name in script_extensions(c)):
        # No letter of the one is a look-alike of the other's: retyping is no advice.
        return (f"{said}, so that no letter passes for a look-alike of another script's, such "
                f"as a Cyrillic \u0412 in a Latin name): write the whole string in {ours} "
                f"with no {theirs} letter or in {theirs} with no {ours} letter (a GPU, name "
                f"or key as its vendor or source prints it; ASCII digits, spaces and "
                f"punctuation go with any script, and as UTS #39 \"highly restrictive\" "
                f"allows, Latin and Han go with Hiragana and Katakana (Japanese), with Hangul "
                f"(Korean) or with Bopomofo (Chinese))")
    return (f"{said}: a look-alike of another script makes one GPU, name or key two "
            f"that print alike): retype character {other + 1} in the {ours} script, or write "
            f"the whole string in one script")


def identifying_problems(document: Any, *, file: str | None = None) -> list[SchemaError]:
    """Return an error per string of a manifest that :data:`TEXT_FIELDS` refuses.

    Identifying strings enter comparison keys, names and columns: two environments whose
    ``hardware.product`` differ only in normalisation (``é`` as one code point, or ``e``
    and a combining accent), in an invisible character (``NVIDIA\\u200b B200``), an edge
    space (``NVIDIA B200 ``) or a compatibility form (fullwidth ``ＮＶＩＤＩＡ``) would be two
    GPUs, two comparison groups that print alike, with no warning (new-user review
    2026-12-02 F16). Such strings are refused: each must hold no character of Unicode
    category C (control Cc, format Cf such as U+200B, surrogate, private use, unassigned:
    normalisation is stable only for assigned code points), no leading or trailing
    whitespace, and equal its NFKC form (hence its NFC form); and the rules of
    :mod:`kistore.core._plain_text`: no whitespace but single U+0020 SPACEs (not a tab,
    U+1680, U+2028 or U+2029), no default-ignorable character, no character drawn as an
    empty cell (U+2800 BRAILLE PATTERN BLANK, since fresh16 F8; U+1D159 MUSICAL SYMBOL
    NULL NOTEHEAD and U+FFFC, since fresh17 F2), no combining mark but one
    on a non-ASCII letter (not ``A100\u0301`` nor ``H\u0336100``), scripts as UTS #39's
    "highly restrictive" level allows (one script, or Latin with Han and Kana, with Han
    and Bopomofo, or with Han and Hangul). The message names the first offending character
    (code point, name, 1-based position) and, when there is one that passes, the string to
    write. Prose (:data:`TEXT_FIELDS`) may hold no control character but LINE FEED and no
    bidirectional control (review73 F8: a raw tab reached the site's HTML).

    Args:
        document: a parsed manifest (its ``kind`` picks the fields, :data:`TEXT_FIELDS`).
        file: file name to put in each error.

    Returns:
        A :class:`SchemaError` per string (or key) refused, at its JSON Pointer (a key's
        error at the pointer of its member), sorted by pointer; empty otherwise.
    """
    kind = document.get("kind") if isinstance(document, dict) else None
    errors = []
    for pattern, prose, literal in _TEXT_PATTERNS.get(kind, ()) if isinstance(kind, str) else ():
        if literal:  # most fields: no wildcard, one lookup per key
            value: Any = document
            for part in pattern:
                value = value.get(part) if isinstance(value, dict) else None
            if not isinstance(value, str):
                continue
            found: Any = ((pattern, value, False),)
        else:
            found = _strings_at(document, pattern)
        for path, value, is_key in found:
            problem = prose_problem(value) if prose else _identifying_problem(value)
            if problem is not None:
                pointer = "".join(f"/{escape_pointer(str(part))}" for part in path)
                errors.append(SchemaError(f"the key {problem}" if is_key else problem,
                                          file=file, pointer=pointer))
    return sorted(errors, key=lambda e: e.pointer or "")


def _strings_at(document: Any, pattern: tuple[str, ...]
                ) -> list[tuple[tuple[str | int, ...], str, bool]]:
    """Return ``(path, string, is a key)`` for each string ``pattern`` reaches in ``document``.

    ``pattern`` is a :data:`TEXT_FIELDS` pointer split at ``/``: keys, ``*`` (every member
    or item) or, last, ``@`` (every key of the object, at its member's path). ``path`` is
    the keys and indices from the root (a JSON Pointer once escaped).
    """
    nodes: list[tuple[tuple[str | int, ...], Any]] = [((), document)]
    for head in pattern:
        if head == "@":
            return [((*path, key), key, True) for path, value in nodes
                    if isinstance(value, dict) for key in value]
        reached: list[tuple[tuple[str | int, ...], Any]] = []
        for path, value in nodes:
            if head != "*":
                if isinstance(value, dict) and head in value:
                    reached.append(((*path, head), value[head]))
            elif isinstance(value, dict):
                reached.extend(((*path, key), member) for key, member in value.items())
            elif isinstance(value, list):
                reached.extend(((*path, i), item) for i, item in enumerate(value))
        if not reached:
            return []
        nodes = reached
    return [(path, value, False) for path, value in nodes if isinstance(value, str)]


_TEXT_PATTERNS = {
    kind: tuple((tuple(p.split("/")[1:]), prose, "*" not in p and "@" not in p)
                for prose, patterns in ((False, fields["identifying"]),
                                        (True, fields["prose"] + _EVERY_KIND_PROSE))
                for p in patterns)
    for kind, fields in TEXT_FIELDS.items()}
""":data:`TEXT_FIELDS` with each pattern split once (verify asks it of every manifest),
whether it is prose, and whether it is literal (no ``*`` nor ``@``)."""

_NOT_PROSE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                        "\u2066-\u2069]")
"""What prose may not hold: a control character (general category Cc, U+0000-U+001F and
U+007F-U+009F, fixed by Unicode's stability policy) but U+000A LINE FEED, and a character
of Unicode's ``Bidi_Control`` property (PropList.txt: U+061C, U+200E, U+200F,
U+202A-U+202E, U+2066-U+2069), which reorders the text shown around it
(CVE-2021-42574, "Trojan Source")."""


def prose_problem(value: str) -> str | None:
    """Return why ``value`` may not be free text (:data:`TEXT_FIELDS` ``prose``), or None.

    The one rule of free text kistore stores: a manifest's prose, and an attestation's
    text (a note's ``text``, a dispute's or withdrawal's ``reason``:
    :func:`kistore.attest.attestation.text_problems`, KI312).

    Args:
        value: the text.

    Returns:
        None when it may be stored; else one sentence naming the first character of
        :data:`_NOT_PROSE` (a control but LINE FEED, a bidirectional control), its
        1-based position, and what to do (the value itself shortened, ``repr`` escaped).
    """
    found = _NOT_PROSE.search(value)
    if found is None:
        return None
    # Lazy: the Unicode names of characters, with the tables, only for a refusal.
    from ._plain_text import char_name

    c = found.group()
    name = char_name(c)
    what = ("a control character (free text may hold line feeds, no other control)"
            if ord(c) < 0xA0 else
            "a bidirectional control, which reorders the text shown around it")
    return (f"{shorten(repr(value))} holds U+{ord(c):04X}{' ' + name if name else ''} at "
            f"character {found.start() + 1}, {what}: "
            f"{'replace it by a space' if c.isspace() else 'remove it'}")


def odd_characters_said(value: str, *, most: int = 3) -> str | None:
    """Name the characters of ``value`` that are not printable ASCII, or None when none is.

    For a message that quotes a found string where ASCII values were expected (a kind, an
    enum's value, a pattern's): ``"BenchmarkRun\\u200b"`` and ``"pa\\u0455sed"`` print as
    the expected word, so each such character is named as KI104 names it (fresh09 L2).

    Args:
        value: the found string.
        most: how many characters to name; the rest are counted.

    Returns:
        ``U+200B ZERO WIDTH SPACE at character 13`` (1-based), several joined by ``, ``,
        then ``and N more characters not printable ASCII`` past ``most``; None when
        ``value`` is all U+0020-U+007E.
    """
    odd = [i for i, c in enumerate(value) if not " " <= c <= "~"]
    if not odd:
        return None
    said = ", ".join(char_at(value, i) for i in odd[:most])
    rest = len(odd) - most
    return said + (f" and {rest} more character{'s' if rest > 1 else ''} not printable "
                   "ASCII" if rest > 0 else "")
