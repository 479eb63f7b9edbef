"""Before an add writes: an Implementation's ``author`` that prints as another's, or as nothing.

:meth:`kistore.store.Store.add` asks :func:`labels_admitted` with the new manifests (an
:data:`kistore.store.AdmissionCheck` it always runs). A leaderboard names a row by its
Implementation's ``author`` (else its ``project``), and tells apart two Implementations
that share that label (:func:`kistore.site.summary.told_apart`). ``project`` is an
identifying string, refused when it mixes scripts (KI104:
:mod:`kistore.core.text_fields`); ``author`` is free text (a person's name in any
writing), so ``Qin Liu @ U\\u0421D``, a Cyrillic ``С`` among Latin letters, was added
with no word and printed exactly as another submitter's ``Qin Liu @ UCD``, beside it and
not told apart (fresh05 LOW 7). KI251 (:func:`author_problems`, :func:`mixed_label_said`)
says each character of an author that makes it print as another's: a mix of scripts, as
Unicode Technical Standard #39 §5.2 judges a string ("highly restrictive": one script, or
Latin with Han and Kana, Han and Bopomofo, or Han and Hangul, each character by its Unicode
Script_Extensions: :func:`kistore.core.text_fields.mixed_script`); a styled letter
(``\u210cenry``, a black-letter ``H`` of the Common script; a circled, superscript,
subscript or halfwidth one: :func:`kistore.core._plain_text.styled_letter`); since
2026-12-07 (fresh10 MED 3) a character KI104 refuses in a name as invisible: whitespace but
U+0020 (U+00A0 ...), a format character (U+200B ZERO WIDTH SPACE, U+200C, U+200D, U+00AD
SOFT HYPHEN), a default-ignorable one (a variation selector, U+3164 HANGUL FILLER) or an
accent not in NFC; and, since fresh12 F4, a U+0020 SPACE at either end or after another,
ASCII or not: ``'HPE '`` printed on the site as another author's ``HPE``. Each is added all
the same: a name may be written so on purpose. A line break in an author is KI219's, said
here in ``check``'s words.

Since fresh13 (2026-12-07): every such character is said, in one warning with a fix that
covers them all (MED 1: ``'  НРЕ\\u200b '`` was said of its first space alone, and its
trailing space, its ZERO WIDTH SPACE and its look of ``HPE`` learnt one add at a time); the
words of each kind are true of it (LOW 3: a space alone was fixed by "retype it in one
script"); and an author that prints as nothing (``'    '``, ``'\\u200b'``) is refused,
KI254, an error, as a blank provider is refused by KI104 (MED 2: it was added, warned that
"it prints as ''"). Since fresh16 (2026-12-07) both rules decide a blank by one predicate,
:func:`kistore.core._plain_text.prints_as_nothing` (F8: a ``project`` or ``provider`` of
U+2800 BRAILLE PATTERN BLANK was added with no word; F7: an author of an accent on no
letter, ``'\\u0301'``, too).

KI253 (since 2026-12-07) says an author wholly of one script other than Latin that prints as
Latin letters (``НРЕ`` as ``HPE``), judged as it prints (:func:`printed`), and (conf02) an
ExecutionEnvironment's ``provider`` so; the provider is an identifying string, whose mixes,
invisible, non-NFC and styled characters KI104 refuses already, so KI251 is not said of it
(:data:`LABELS`, the one list of fields).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.digest import Digest
from ..core.errors import AdvisedError, KistoreError
from ..core.model import Manifest
from ..core.text_fields import (
    DRAWN_BLANK,
    category_said,
    drawn_blank_why,
    line_break_said,
    mixed_script,
    mixed_script_said,
    prose_refuses,
)
from ._store import AdmissionWarning

POINTER = "/spec/author"


@dataclass(frozen=True)
class Label:
    """A free-text or organisation field a manifest prints as who it is, and which warnings fit.

    Attributes:
        kind: the manifests' kind.
        pointer: the field's JSON Pointer in the object (``/spec/author``).
        mixes: KI251 is said of it (a mix of scripts, an invisible, non-NFC or styled
            character, a U+0020 SPACE at either end or beside another), and ``add`` says
            KI219 of a line break in it as ``check`` does (prose). False for an
            identifying string: KI104 refuses each of those as an error already (one
            script by the same UTS #39 §5.2 predicate, NFC, NFKC, no category C, no
            default-ignorable character, no whitespace but U+0020, single and inner:
            :mod:`kistore.core.text_fields`), so only KI253, which KI104 does not judge, is
            said.
        shown: where the field prints and as what (ends KI253's message).
    """

    kind: str
    pointer: str
    mixes: bool
    shown: str

    @property
    def field(self) -> str:
        """Return the field's name in ``spec`` (the pointer's last step)."""
        return self.pointer.rsplit("/", 1)[-1]


AUTHOR = Label("Implementation", POINTER, True,
               "a leaderboard shows the author as the row's label, where it can pass for a "
               "Latin author's")
"""An Implementation's ``author``: prose, the leaderboard's row label (KI251, KI253)."""

PROVIDER = Label("ExecutionEnvironment", "/spec/provider", False,
                 "the provider names the cloud or lab the machine came from (`kistore show` "
                 "prints it), where it can pass for a Latin-named provider's")
"""An ExecutionEnvironment's ``provider``: an identifying string (KI104), so KI253 only.
Its ``hardware.vendor`` is in no table: its schema pattern (``^[a-z0-9][a-z0-9-]*$``)
admits ASCII only, so KI104 refuses every case of both warnings there."""

LABELS = (AUTHOR, PROVIDER)
"""The fields KI254, KI251 (an author's) and KI253 judge, the one list ``add`` and ``check`` read
(:func:`labels_admitted`, :mod:`kistore.check._mixed_authors`)."""


SPACING, HIDDEN, NOT_NFC, STYLED, MIXED = "spacing", "hidden", "not-nfc", "styled", "mixed"
"""The kinds of :class:`Problem` KI251 says of an author (:func:`author_problems`)."""

_WHY = {
    SPACING: "a web page prints a space at either end as nothing and two in a row as one",
    HIDDEN: "an invisible character prints as nothing and other whitespace as a plain space",
    NOT_NFC: "an accent written as a mark of its own prints as the letter Unicode NFC "
             "composes",
    STYLED: "a letter drawn in another style reads as the plain one",
    MIXED: "a letter of one script that looks like another's passes for it (Unicode TS #39 "
           "§5.2 allows one script, or Latin with Japanese, Chinese or Korean writing)",
}
"""Why each kind of :class:`Problem` can make a label print as another author's."""

_MEND = {
    SPACING: "remove the spaces at either end, writing one U+0020 SPACE between words",
    HIDDEN: "delete each invisible character, writing other whitespace as a U+0020 SPACE",
    NOT_NFC: "write each accent composed with its letter (Unicode NFC)",
    STYLED: "write each styled letter as the plain one it is a form of",
    MIXED: "retype it in one script",
}
"""What the author writes instead, per kind of :class:`Problem` (KI251's fix)."""


@dataclass(frozen=True)
class Problem:
    """One kind of character of an author that KI251 says, with every place it stands.

    Attributes:
        kind: :data:`SPACING`, :data:`HIDDEN`, :data:`NOT_NFC`, :data:`STYLED` or
            :data:`MIXED`.
        at: the 0-based indices of its characters, ascending (for :data:`MIXED`, the
            first character of the other script).
        said: ``U+0020 SPACE at characters 1 and 2, leading whitespace`` (1-based).
    """

    kind: str
    at: tuple[int, ...]
    said: str


def _plain_ascii(value: str) -> bool:
    """Whether ``value`` is printable ASCII with single inner U+0020 spaces: nothing to say."""
    return value.isascii() and value.isprintable() and value == value.strip(" ") \
        and "  " not in value


def _places(value: str, at: Sequence[int]) -> str:
    """Say character ``value[at[0]]`` and its places: ``U+0020 SPACE at characters 1 and 2``."""
    # Lazy: the Unicode names, with the tables.
    from ..core._plain_text import char_name

    c = value[at[0]]
    name = char_name(c)
    numbers = [str(i + 1) for i in at]
    where = f"character {numbers[0]}" if len(numbers) == 1 else \
        f"characters {', '.join(numbers[:-1])} and {numbers[-1]}"
    return f"U+{ord(c):04X}{' ' + name if name else ''} at {where}"


def author_problems(value: str) -> list[Problem]:
    """Return every problem KI251 says of an author, one per kind and character, in order.

    Each character a web page prints otherwise than it is written, or that passes for
    another: a U+0020 SPACE leading, trailing or after another (KI104's order of an
    identifying string); whitespace but U+0020, a character of Unicode category C or a
    ``Default_Ignorable_Code_Point``, or one drawn as an empty cell (U+2800 BRAILLE PATTERN
    BLANK, since fresh16 F8: KI104's predicates,
    :func:`kistore.core._plain_text.other_whitespace`, ``default_ignorable``,
    ``blank_looking``); a character not in Unicode NFC (an accent NFC composes with its
    letter); a styled letter (:func:`kistore.core._plain_text.styled_letter`); and a mix of
    scripts (UTS #39 §5.2, :func:`kistore.core.text_fields.mixed_script`: its first
    character of another script, once; a U+2800 taken as the space it prints as, so
    ``'Qin\\u2800Liu'`` is said drawn blank, not a mix with the Braille script). A line
    break is KI219's, a control or bidirectional control KI104's: not said. Until fresh13
    (2026-12-07) only the first of these was said.

    Args:
        value: the author as stored.

    Returns:
        The problems, each kind of character once with all its places (same code point,
        same reason), ordered by their first place; empty when there is none (ASCII with
        single inner spaces: no Unicode table read).
    """
    if _plain_ascii(value):
        return []
    # Lazy: the Unicode tables, only for a string past the ASCII fast path.
    import unicodedata

    # Lazy: the rules of whitespace, invisible and styled characters, with the tables.
    from ..core import _plain_text as text

    lead = len(value) - len(value.lstrip(" "))
    trail = len(value) - len(value.rstrip(" "))
    found: dict[tuple[str, str, str], list[int]] = {}

    def add(kind: str, i: int, what: str) -> None:
        found.setdefault((kind, value[i], what), []).append(i)

    starter = 0
    for i, c in enumerate(value):
        if c == " ":
            if i < lead:
                add(SPACING, i, "leading whitespace")
            elif i >= len(value) - trail:
                add(SPACING, i, "trailing whitespace")
            elif value[i - 1] == " ":
                add(SPACING, i, "whitespace after whitespace")
        elif prose_refuses(c):
            pass  # KI219's, KI104's
        elif text.other_whitespace(c):
            add(HIDDEN, i, "whitespace other than U+0020 SPACE")
        elif unicodedata.category(c)[0] == "C":
            what, detail = category_said(c)
            add(HIDDEN, i, f"{what} ({detail})")
        elif text.default_ignorable(c):
            add(HIDDEN, i, "an invisible character (Unicode Default_Ignorable_Code_Point)")
        elif text.blank_looking(c):
            add(HIDDEN, i, f"{DRAWN_BLANK} ({drawn_blank_why(c)})")
        elif text.styled_letter(c) is not None:
            add(STYLED, i, text.styled_said(c))
        if unicodedata.combining(c) == 0:
            starter = i
        if not unicodedata.is_normalized("NFC", value[starter:i + 1]) \
                and unicodedata.is_normalized("NFC", value[starter:i]):
            nfc = unicodedata.normalize("NFC", value[starter:i + 1])
            span = f"character {i + 1}" if starter == i else \
                f"characters {starter + 1} {'and' if i == starter + 1 else 'to'} {i + 1}"
            writes = " ".join(f"U+{ord(n):04X} {text.char_name(n)}" for n in nfc)
            add(NOT_NFC, i, f"not in Unicode NFC (which writes {writes} for {span})")
    if NOT_NFC not in {kind for kind, _c, _what in found} \
            and not unicodedata.is_normalized("NFC", value):  # a starter composing (jamo)
        n = next(i for i in range(len(value))
                 if not unicodedata.is_normalized("NFC", value[:i + 1]))
        add(NOT_NFC, n, "not in Unicode NFC")
    problems = [Problem(kind, tuple(at), f"{_places(value, at)}, {what}")
                for (kind, _c, what), at in found.items()]
    # U+2800 is of the Braille script: said as drawn blank, not as a mix (fresh16 F8)
    mixed = mixed_script("".join(" " if text.blank_looking(c) else c for c in value))
    if mixed is not None:
        first, other = mixed
        problems.append(Problem(MIXED, (other,), mixed_script_said(value, first, other)
                                .removeprefix(f"{value!r} holds ")))
    return sorted(problems, key=lambda p: p.at[0])


def printed(value: str) -> str:
    """Return what a web page prints of ``value``: as text, the author it passes for.

    :func:`kistore.core._plain_text.printed` (the one owner), past an ASCII fast path: each
    whitespace character (U+0020, U+00A0, a line break ...) and each one drawn as an empty
    cell (U+2800 BRAILLE PATTERN BLANK) a word break, each other character of Unicode
    category C or ``Default_Ignorable_Code_Point`` nothing, words joined by one U+0020
    SPACE, none at either end, in Unicode NFC.

    Args:
        value: an author as stored.

    Returns:
        ``'НРЕ'`` for ``'  НРЕ\\u200b '``; ``''`` for ``'  \\u2800'`` (:func:`blank_said`).
    """
    if value.isascii() and value.isprintable():
        return " ".join(word for word in value.split(" ") if word)
    # Lazy: the Unicode tables, only for a string past the ASCII fast path.
    from ..core._plain_text import printed as shown

    return shown(value)


def prints_as_nothing(value: str) -> bool:
    """Whether the author ``value`` prints no letter (KI254), past an ASCII fast path.

    :func:`kistore.core._plain_text.prints_as_nothing`, the one predicate KI104 shares:
    only word breaks, invisible characters, and combining marks with no letter to carry
    them (``'    '``, ``'\\u2800'``, ``'\\u0301'``). ``''`` too: :func:`blank_said` takes an
    empty author as none.

    Args:
        value: an author as stored.
    """
    if value.isascii() and value.isprintable():
        return not value.strip(" ")
    # Lazy: the Unicode tables, only for a string past the ASCII fast path.
    from ..core._plain_text import prints_as_nothing as nothing

    return nothing(value)


KI251, KI253, KI254 = "KI251", "KI253", "KI254"
"""The rule ids :func:`label_problems` names (``check``'s rules:
:mod:`kistore.check._mixed_authors`)."""

_KI104 = ("in an identifying string, such as an Implementation's `project` or an environment's "
          "`provider`, as an error; an author is free text, so a warning")
"""Where KI104 refuses what KI251 says, and how (fresh13 LOW 3: it read "(KI104 refuses it
in a name)")."""


@dataclass(frozen=True)
class LabelSaid:
    """What one rule says of a label: the problem and the fix that covers all of it.

    Attributes:
        rule_id: :data:`KI251`, :data:`KI253`, :data:`KI254` (or ``KI219``: ``add`` only).
        said: the problem, quoting the label.
        fix: what its author writes instead (``add`` and ``check`` each end it in their
            words: drop the object, add a corrected one).
    """

    rule_id: str
    said: str
    fix: str


def label_problems(label: Label, value: object) -> list[LabelSaid]:
    """Return what KI254, KI251 and KI253 say of ``value`` as the field ``label``.

    Args:
        label: the field (:data:`LABELS`).
        value: the field's value as the spec holds it (not a string: nothing said).

    Returns:
        For an author (``label.mixes``): KI254 alone when it is blank, not empty but printed
        as nothing (:func:`blank_said`; an error); else KI251 when it holds any problem
        (:func:`mixed_label_said`, every one of them, fresh13 MED 1), then KI253 when what
        it prints as (:func:`printed`) is wholly of a script other than Latin and prints as
        Latin letters (:func:`looks_latin_label_said`). For a provider, KI253 of it as it
        is. Empty for an ASCII value with single inner spaces (no Unicode table read). A
        line break is KI219's (:func:`labels_admitted`). Raises nothing.
    """
    if not isinstance(value, str) or _plain_ascii(value):
        return []
    said: list[LabelSaid] = []
    if label.mixes:
        blank = blank_said(value)
        if blank is not None:
            return [LabelSaid(KI254, blank, "write the author's name in visible letters, or "
                              "leave `author` out (an Implementation with no author, or an "
                              "empty one, is labelled by its `project`)")]
        problems = author_problems(value)
        if problems:
            said.append(LabelSaid(KI251, _mixed_said(value, problems), _mend(value, problems)))
    looks = looks_latin_label_said(value, label)
    if looks is not None:
        said.append(LabelSaid(KI253, looks, (
            "if it is not meant to pass for that Latin name, write it as it is known in Latin "
            "letters, or with a letter that does not look Latin")))
    return said


def labels_admitted(_store: object, manifests: Sequence[Manifest]
                    ) -> list[tuple[Digest, KistoreError]]:
    """Refuse a blank author, and warn of each author or provider that may print as another's.

    As ``check`` says them (:func:`label_problems`): KI254 of an Implementation's blank
    ``author`` (an error: the add writes nothing; since fresh13 MED 2 it was added with a
    warning), KI251 (every problem of the author in one warning) and KI253 of the author
    and of an ExecutionEnvironment's ``provider`` (:data:`LABELS`); and KI219 of a line
    break in an ``author`` (:func:`kistore.core.text_fields.line_break_said`: its one owner,
    so KI251 does not say it; fresh12 F4); one problem per rule and field.

    An :data:`kistore.store.AdmissionCheck`: its first argument, the store added to, is
    not read (the rule reads each manifest alone); ``manifests`` are the manifests
    the add would add (new objects).

    Returns:
        ``(digest, problem)`` at the field's pointer (``/spec/author``, ``/spec/provider``)
        per such manifest and rule: an :class:`~kistore.core.errors.AdvisedError` (rule id
        KI254) refusing a blank author, else an :class:`AdmissionWarning` saying what is
        wrong, where, and what to write instead; a warned manifest is added all the same.
        ASCII values with single inner spaces (the common case) are not looked into further.
    """
    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        for label in LABELS:
            if m.kind != label.kind:
                continue
            value = m.spec.get(label.field)
            found = label_problems(label, value)
            if label.mixes and isinstance(value, str) \
                    and (breaks := line_break_said(label.field, value)) is not None:
                found.append(LabelSaid("KI219", breaks, f"write the {label.field} on one line"))
            for one in found:
                if one.rule_id == KI254:
                    problems.append((m.digest, AdvisedError(
                        f"{one.said} ({KI254}, an error: the gate refuses it too)", advice=one.fix,
                        pointer=label.pointer, rule_id=KI254)))
                    continue
                problems.append((m.digest, AdmissionWarning(
                    f"{one.said}; {one.fix}: while this add is not committed, `kistore drop "
                    f"{m.digest}` takes it back and you add the corrected file; once "
                    f"committed, add the corrected {m.kind} as a new object ({one.rule_id}, a "
                    "warning: added all the same, as a name may be written so on purpose)",
                    pointer=label.pointer)))
    return problems


def blank_said(value: str) -> str | None:
    """Say an author that prints as nothing (KI254), or None.

    Not empty (an empty author is as none: the site labels the row by its project, and
    ``cite`` names the publisher), yet :func:`printed` is empty: only spaces, other
    whitespace, line breaks, invisible characters or ones drawn as an empty cell (``'    '``,
    ``'\\u200b'``, ``'\\u2800'``), or combining marks with no letter to carry them
    (``'\\u0301'``, ``'\\u2800\\u0301'``, a floating accent: since fresh16 F7), by
    :func:`prints_as_nothing`, the predicate KI104 shares. fresh13 MED 2: it was added with a
    warning that it "prints as ''", a row labelled by nothing; fresh15 F3: ``'\\u2800'`` was
    added with no word; fresh16 F7: ``'\\u0301'`` was added with no word.

    Args:
        value: an author as stored.

    Returns:
        ``'  \\u200b' prints as nothing, holding only U+0020 SPACE at characters 1 and 2 and
        U+200B ZERO WIDTH SPACE at character 3: ...`` with why it matters; None otherwise.
    """
    held = blank_held(value)
    return None if held is None else (
        f"{held}: a leaderboard shows the author as the row's label, and a blank one names "
        "no one")


def blank_held(value: str) -> str | None:
    """Say a string that prints as nothing and each character it holds, or None.

    The words :func:`blank_said` (an author, KI254) and ``kistore cite`` (a blank
    ``metadata.title``, since fresh17) share.

    Args:
        value: a string as stored.

    Returns:
        ``'\u2800' prints as nothing, holding only U+2800 BRAILLE PATTERN BLANK at
        character 1`` (with ``but a combining mark on no letter, ...`` for a floating
        accent); None when ``value`` is empty or prints something
        (:func:`prints_as_nothing`).
    """
    if not value or not prints_as_nothing(value):
        return None
    kinds: dict[str, list[int]] = {}
    for i, c in enumerate(value):
        kinds.setdefault(c, []).append(i)
    held = [_places(value, at) for at in kinds.values()]
    listed = held[0] if len(held) == 1 else f"{', '.join(held[:-1])} and {held[-1]}"
    shown = printed(value)
    marks = len(shown.replace(" ", ""))
    mark = "" if not marks else (
        f" but {'a combining mark' if marks == 1 else 'combining marks'} on no letter, "
        "drawn alone as a floating accent or on a dotted circle")
    return f"{value!r} prints as nothing{mark}, holding only {listed}"


def looks_latin_label_said(label: str, field: Label = AUTHOR) -> str | None:
    """Say how a label wholly in one script other than Latin prints as a Latin one (KI253).

    :func:`kistore.core._look_alike.looks_latin`: of one script by UTS #39 §5.2, no Latin
    letter, and a skeleton (UTS #39 §4, marks dropped) of ASCII letters. ``НРЕ`` (Cyrillic)
    prints as ``HPE``, another submitter's name, and no mix of scripts says it (KI251).
    An author is judged as it prints (:func:`printed`: ``'  НРЕ\\u200b '`` as ``НРЕ``, said
    beside KI251 since fresh13 MED 1; a provider as it is: KI104 refuses it otherwise).
    The confusables table is read only for such a label (not for an ASCII one).

    Args:
        label: an ``author`` (or another field of :data:`LABELS`) as stored.
        field: the field it is (:data:`AUTHOR`, :data:`PROVIDER`): where it prints, the
            message's end.

    Returns:
        ``'НРЕ' is written wholly in the Cyrillic script, yet each of its letters looks like a
        Latin one, U+041D CYRILLIC CAPITAL LETTER EN at character 1 first ('H'): its skeleton
        (Unicode TS #39 §4, marks dropped) is 'HPE', ...`` with why it matters; for an author
        printed otherwise than written, ``'  НРЕ\\u200b ' prints as 'НРЕ', written wholly
        ...``; None otherwise (``Москва``, ``АЗС``, an ASCII label, a mix of scripts).

    Raises:
        Nothing of its own for any string; past the ASCII fast path it reads the Unicode
        tables of the ``fontTools`` and ``confusable-homoglyphs`` packages (dependencies of
        kistore), whose absence raises ``ModuleNotFoundError``
        (:func:`kistore.core._look_alike.looks_latin`).
    """
    # Lazy: the confusables table and fontTools' scripts, only past the ASCII fast path.
    from ..core._look_alike import latin_skeleton, looks_latin
    from ..core._plain_text import scripts_said
    from ..core.text_fields import char_at

    shown = printed(label) if field.mixes else label
    found = None if shown.isascii() else looks_latin(shown)
    if found is None:
        return None
    skeleton, first = found
    alike = latin_skeleton(shown[first])
    like = "" if alike is None else f" (as {alike[0]!r})"
    what = f"{label!r} is" if shown == label else f"{label!r} prints as {shown!r}, which is"
    return (f"{what} written wholly in the {scripts_said(shown[first])} script, yet "
            f"each of its letters looks like a Latin one, {char_at(shown, first)}"
            f"{' of it' if shown != label else ''} first{like}: its skeleton (Unicode TS #39 "
            f"§4, marks dropped) is {skeleton!r}, that of the Latin letters it prints as, and "
            f"{field.shown}")


def mixed_label_said(label: str) -> str | None:
    """Say every problem KI251 finds in an author, or None when there is none.

    Args:
        label: an ``author`` as stored.

    Returns:
        One message naming each problem of :func:`author_problems` (numbered when more than
        one: ``'  НРЕ\\u200b ' holds (1) U+0020 SPACE at characters 1 and 2, leading
        whitespace; (2) U+200B ZERO WIDTH SPACE at character 6, an invisible format
        character (Unicode category Cf); (3) U+0020 SPACE at character 7, trailing
        whitespace: a leaderboard shows the author as the row's label, and ...``), why each
        kind matters, what it prints as when that differs only as text, and what KI104 does
        of the same (``(KI104 refuses each of these in an identifying string, ...)``); None
        when there is none (a line break: KI219's).
    """
    problems = author_problems(label)
    return _mixed_said(label, problems) if problems else None


def _mixed_said(label: str, problems: Sequence[Problem]) -> str:
    """KI251's message of ``label``'s ``problems`` (:func:`mixed_label_said`)."""
    held = problems[0].said if len(problems) == 1 else "; ".join(
        f"({n}) {p.said}" for n, p in enumerate(problems, 1))
    kinds = _kinds(problems)
    why = [_WHY[kind] for kind in kinds]
    reasons = why[0] if len(why) == 1 else f"{'; '.join(why[:-1])}; and {why[-1]}"
    shown = printed(label)
    prints = f": it prints as {shown!r}, differing only as text from an author written so" \
        if shown != label and not {STYLED, MIXED} & set(kinds) else ""
    return (f"{label!r} holds {held}: a leaderboard shows the author as the row's label, "
            f"where {reasons}{prints} (KI104 refuses "
            f"{'this' if len(problems) == 1 else 'each of these'} {_KI104})")


def _kinds(problems: Sequence[Problem]) -> list[str]:
    """Return the kinds of ``problems``, each once, in :data:`_WHY`'s order."""
    held = {p.kind for p in problems}
    return [kind for kind in _WHY if kind in held]


def _mend(label: str, problems: Sequence[Problem]) -> str:
    """KI251's fix of ``label``: what to write, covering every one of ``problems``."""
    kinds = _kinds(problems)
    if not {STYLED, MIXED} & set(kinds):
        return f"if that is not meant, write it as it prints, {printed(label)!r}"
    mend = [_MEND[kind] for kind in kinds]
    return "if that is not meant, " + (
        mend[0] if len(mend) == 1 else "; ".join(mend))
