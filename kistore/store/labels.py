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
``Qin Liu @ UCD`` with no word. Each is added all the same: a name may be written so on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import Manifest
from ..core.text_fields import (
    hidden_character_said,
    mixed_script,
    mixed_script_said,
    styled_letter_said,
)
from ._store import AdmissionWarning

POINTER = "/spec/author"


def labels_admitted(_store: object, manifests: Sequence[Manifest]
                    ) -> list[tuple[Digest, KistoreError]]:
    """Warn of each new Implementation whose ``author`` may print as another's.

    As KI251 says in ``check`` (:func:`mixed_label_said`: a mix of scripts, UTS #39 §5.2; an
    invisible character; a styled letter) and as KI253 says (:func:`looks_latin_label_said`:
    wholly in one script other than Latin, printing as Latin letters); one warning per rule.

    An :data:`kistore.store.AdmissionCheck`: its first argument, the store added to, is
    not read (the rule reads each Implementation alone); ``manifests`` are the manifests
    the add would add (new objects).

    Returns:
        ``(implementation digest, AdmissionWarning)`` at ``/spec/author`` per such
        Implementation: which character is of which script, after which of which, and
        what to do; each is added all the same. ASCII authors (the common case) are not
        looked into further.
    """
    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        if m.kind != "Implementation":
            continue
        author = m.spec.get("author")
        if not isinstance(author, str) or author.isascii():
            continue
        said = mixed_label_said(author)
        if said is not None:
            problems.append((m.digest, AdmissionWarning(
                f"{said}; if that is not meant, retype it in one script and plain letters: "
                f"while this add is not committed, `kistore drop {m.digest}` takes it back "
                "and you add the corrected file; once committed, add the corrected "
                "Implementation as a new object (added all the same: a name may be written so "
                "on purpose)",
                pointer=POINTER)))
        looks = looks_latin_label_said(author)
        if looks is not None:
            problems.append((m.digest, AdmissionWarning(
                f"{looks}; if it is not meant to pass for that Latin name, write it as it is "
                "known in Latin letters, or with a letter that does not look Latin: while "
                f"this add is not committed, `kistore drop {m.digest}` takes it back and you "
                "add the corrected file; once committed, add the corrected Implementation as "
                "a new object (added all the same: a name may be written so on purpose)",
                pointer=POINTER)))
    return problems


def looks_latin_label_said(label: str) -> str | None:
    """Say how a label wholly in one script other than Latin prints as a Latin one (KI253).

    :func:`kistore.core._look_alike.looks_latin`: of one script by UTS #39 §5.2, no Latin
    letter, and a skeleton (UTS #39 §4, marks dropped) of ASCII letters. ``НРЕ`` (Cyrillic)
    prints as ``HPE``, another submitter's name, and no mix of scripts says it (KI251).
    The confusables table is read only for such a label (not for an ASCII one).

    Args:
        label: an ``author`` as stored.

    Returns:
        ``'НРЕ' is written wholly in the Cyrillic script, yet each of its letters looks like a
        Latin one, U+041D CYRILLIC CAPITAL LETTER EN at character 1 first ('H'): its skeleton
        (Unicode TS #39 §4, marks dropped) is 'HPE', ...`` with why it matters; None
        otherwise (``Москва``, ``АЗС``, an ASCII label, a mix of scripts).
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
            "the Latin letters it prints as, and a leaderboard shows the author as the row's "
            "label, where it can pass for a Latin author's")


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
        invisible format character (Unicode category Cf): ...``; None for a label of one
        script (or of one set UTS #39 "highly restrictive" allows) with none of these.
    """
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
