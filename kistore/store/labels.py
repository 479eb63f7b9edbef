"""Before an add writes: an Implementation's ``author`` that mixes scripts (a warning).

:meth:`kistore.store.Store.add` asks :func:`labels_admitted` with the new manifests (an
:data:`kistore.store.AdmissionCheck` it always runs). A leaderboard names a row by its
Implementation's ``author`` (else its ``project``), and tells apart two Implementations
that share that label (:func:`kistore.site.summary.told_apart`). ``project`` is an
identifying string, refused when it mixes scripts (KI104:
:mod:`kistore.core.text_fields`); ``author`` is free text (a person's name in any
writing), so ``Qin Liu @ U\\u0421D``, a Cyrillic ``С`` among Latin letters, was added
with no word and printed exactly as another submitter's ``Qin Liu @ UCD``, beside it and
not told apart (fresh05 LOW 7). Such a label is said here, as Unicode Technical Standard
#39 §5.2 judges a string ("highly restrictive": one script, or Latin with Han and Kana,
Han and Bopomofo, or Han and Hangul, each character by its Unicode Script_Extensions:
:func:`kistore.core.text_fields.mixed_script`), and so is a label of one script that holds
a styled letter (``\u210cenry``, a black-letter ``H`` of the Common script; a circled,
superscript, subscript or halfwidth one: :func:`kistore.core.text_fields.styled_letter_said`),
and, since 2026-12-07 (fresh10 MED 3), a label that holds a character KI104 refuses in a name
as invisible: whitespace but U+0020 (U+00A0 ...), a format character (U+200B ZERO WIDTH
SPACE, U+200C, U+200D, U+00AD SOFT HYPHEN), a default-ignorable one (a variation selector,
U+3164 HANGUL FILLER) or an accent not in NFC
(:func:`kistore.core.text_fields.hidden_character_said`): ``Qin\\u200b Liu @ UCD`` printed as
``Qin Liu @ UCD`` with no word; and, since fresh12 F4, first of all, a U+0020 SPACE at either
end or after another (:func:`kistore.core.text_fields.spacing_said`), ASCII or not: ``'HPE '``
printed on the site as another author's ``HPE``. Each is added all the same: a name may be
written so on purpose. A line break in an author is KI219's, said here in ``check``'s words.

KI253 (since 2026-12-07) says an author wholly of one script other than Latin that prints as
Latin letters (``НРЕ`` as ``HPE``), and (conf02) an ExecutionEnvironment's ``provider`` so;
the provider is an identifying string, whose mixes, invisible, non-NFC and styled characters
KI104 refuses already, so KI251 is not said of it (:data:`LABELS`, the one list of fields).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import Manifest
from ..core.text_fields import (
    hidden_character_said,
    line_break_said,
    mixed_script,
    mixed_script_said,
    spacing_said,
    styled_letter_said,
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
"""The fields KI251 and KI253 judge, the one list ``add`` and ``check`` read
(:func:`labels_admitted`, :mod:`kistore.check._mixed_authors`)."""


def label_problems(label: Label, value: object) -> list[tuple[str, str]]:
    """Return what KI251 and KI253 say of ``value`` as the field ``label``.

    Args:
        label: the field (:data:`LABELS`).
        value: the field's value as the spec holds it (not a string: nothing said).

    Returns:
        ``[(rule id, message)]``: ``("KI251", mixed_label_said(...))`` when ``label.mixes``
        and it is said, then ``("KI253", looks_latin_label_said(...))`` when said; empty for
        an ASCII value with no space at either end or beside another (no Unicode table
        read). A line break is KI219's (:func:`labels_admitted`). Raises nothing.
    """
    if not isinstance(value, str) or (value.isascii() and spacing_said(value) is None):
        return []
    said: list[tuple[str, str]] = []
    if label.mixes and (mixed := mixed_label_said(value)) is not None:
        said.append(("KI251", mixed))
    if (looks := looks_latin_label_said(value, label)) is not None:
        said.append(("KI253", looks))
    return said


def labels_admitted(_store: object, manifests: Sequence[Manifest]
                    ) -> list[tuple[Digest, KistoreError]]:
    """Warn of each new manifest whose author or provider may print as another's.

    As KI251 says in ``check`` (:func:`mixed_label_said`: a mix of scripts, UTS #39 §5.2; an
    invisible character; a styled letter) of an Implementation's ``author``, and as KI253
    says (:func:`looks_latin_label_said`: wholly in one script other than Latin, printing
    as Latin letters) of it and of an ExecutionEnvironment's ``provider`` (:data:`LABELS`);
    and as KI219 says in ``check`` of a line break in an ``author``
    (:func:`kistore.core.text_fields.line_break_said`: its one owner, so KI251 does not say
    it; fresh12 F4); one warning per rule and field.

    An :data:`kistore.store.AdmissionCheck`: its first argument, the store added to, is
    not read (the rule reads each manifest alone); ``manifests`` are the manifests
    the add would add (new objects).

    Returns:
        ``(digest, AdmissionWarning)`` at the field's pointer (``/spec/author``,
        ``/spec/provider``) per such manifest and rule: which character is of which script,
        after which of which, or what it prints as, and what to do; each is added all the
        same. ASCII values (the common case) are not looked into further.
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
                found.append(("KI219", breaks))
            for rule_id, said in found:
                if rule_id == "KI251":
                    advice = ("if that is not meant, retype it in one script, plain letters "
                              "and single U+0020 spaces between words")
                elif rule_id == "KI219":
                    advice = f"write the {label.field} on one line"
                else:
                    advice = ("if it is not meant to pass for that Latin name, write it as "
                              "it is known in Latin letters, or with a letter that does not "
                              "look Latin")
                problems.append((m.digest, AdmissionWarning(
                    f"{said}; {advice}: while this add is not committed, `kistore drop "
                    f"{m.digest}` takes it back and you add the corrected file; once "
                    f"committed, add the corrected {m.kind} as a new object (added all the "
                    "same: a name may be written so on purpose)",
                    pointer=label.pointer)))
    return problems


def looks_latin_label_said(label: str, field: Label = AUTHOR) -> str | None:
    """Say how a label wholly in one script other than Latin prints as a Latin one (KI253).

    :func:`kistore.core._look_alike.looks_latin`: of one script by UTS #39 §5.2, no Latin
    letter, and a skeleton (UTS #39 §4, marks dropped) of ASCII letters. ``НРЕ`` (Cyrillic)
    prints as ``HPE``, another submitter's name, and no mix of scripts says it (KI251).
    The confusables table is read only for such a label (not for an ASCII one).

    Args:
        label: an ``author`` (or another field of :data:`LABELS`) as stored.
        field: the field it is (:data:`AUTHOR`, :data:`PROVIDER`): where it prints, the
            message's end.

    Returns:
        ``'НРЕ' is written wholly in the Cyrillic script, yet each of its letters looks like a
        Latin one, U+041D CYRILLIC CAPITAL LETTER EN at character 1 first ('H'): its skeleton
        (Unicode TS #39 §4, marks dropped) is 'HPE', ...`` with why it matters (character
        positions 1-based); None otherwise (``Москва``, ``АЗС``, an ASCII label, a mix of
        scripts).

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

    found = None if label.isascii() else looks_latin(label)
    if found is None:
        return None
    skeleton, first = found
    alike = latin_skeleton(label[first])
    like = "" if alike is None else f" (as {alike[0]!r})"
    return (f"{label!r} is written wholly in the {scripts_said(label[first])} script, yet "
            f"each of its letters looks like a Latin one, {char_at(label, first)} first"
            f"{like}: its skeleton (Unicode TS #39 §4, marks dropped) is {skeleton!r}, that of "
            f"the Latin letters it prints as, and {field.shown}")


def mixed_label_said(label: str) -> str | None:
    """Say how a label mixes scripts, or None when it does not.

    Args:
        label: an ``author`` as stored.

    Returns:
        ``'Qin Liu @ UСD' holds U+0421 CYRILLIC CAPITAL LETTER ES at character 12, of the
        Cyrillic script, after U+0051 LATIN CAPITAL LETTER Q at character 1, of the Latin
        script: ...`` with why it matters; for a label of one script so that holds a
        styled letter, ``'\u210cenry' holds U+210C BLACK-LETTER CAPITAL H at character 1, a
        styled form of U+0048 LATIN CAPITAL LETTER H (...): ...``; for one that holds a
        character KI104 refuses in a name as whitespace other than U+0020, invisible or not in
        NFC (:func:`kistore.core.text_fields.hidden_character_said`, since 2026-12-07, fresh10
        MED 3), ``'Qin\\u200b Liu @ UCD' holds U+200B ZERO WIDTH SPACE at character 4, an
        invisible format character (Unicode category Cf): ...``; first of all, for a U+0020
        SPACE at either end or after another (:func:`kistore.core.text_fields.spacing_said`,
        fresh12 F4), ``'HPE ' holds U+0020 SPACE at character 4, trailing whitespace (...): a
        leaderboard ... prints as 'HPE', ...``; None for a label of one script (or of one set
        UTS #39 "highly restrictive" allows) with none of these (a line break: KI219's).
    """
    spaced = spacing_said(label)
    if spaced is not None:
        shown = " ".join(word for word in label.split(" ") if word)
        return (f"{spaced}: a leaderboard shows the author as the row's label, and a web page "
                "prints a space at either end as nothing and two in a row as one, so it prints "
                f"as {shown!r}, differing only as text from an author written so (KI104 refuses "
                "it in a name)")
    mixed = mixed_script(label)
    if mixed is None:
        hidden = hidden_character_said(label)
        if hidden is not None:
            return (f"{hidden}: a leaderboard shows the author as the row's label, and a "
                    "character that prints as nothing, as a plain space or as the same letter "
                    "otherwise encoded can make it print as another author's, differing only "
                    "as text (KI104 refuses it in a name)")
        styled = styled_letter_said(label)
        if styled is None:
            return None
        return (f"{styled}: a leaderboard shows the author as the row's label, and a letter "
                "drawn in another style can make it print as another author's (one script "
                "by Unicode TS #39 §5.2, but not in plain letters)")
    return (f"{mixed_script_said(label, *mixed)}: a leaderboard shows the author as the "
            "row's label, and a letter of one script that looks like another's can make it "
            "print as another author's (Unicode TS #39 §5.2 allows one script, or Latin with "
            "Japanese, Chinese or Korean writing)")
