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
a styled letter (``\u210cenry``, a black-letter ``H`` of the Common script:
:func:`kistore.core.text_fields.styled_letter_said`); each is added all the same: a name
may be written so on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import Manifest
from ..core.text_fields import mixed_script, mixed_script_said, styled_letter_said
from ._store import AdmissionWarning

POINTER = "/spec/author"


def labels_admitted(_store: object, manifests: Sequence[Manifest]
                    ) -> list[tuple[Digest, KistoreError]]:
    """Warn of each new Implementation whose ``author`` mixes scripts (UTS #39 §5.2).

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
    return problems


def mixed_label_said(label: str) -> str | None:
    """Say how a label mixes scripts, or None when it does not.

    Args:
        label: an ``author`` as stored.

    Returns:
        ``'Qin Liu @ UСD' holds U+0421 CYRILLIC CAPITAL LETTER ES at character 12, of the
        Cyrillic script, after U+0051 LATIN CAPITAL LETTER Q at character 1, of the Latin
        script: ...`` with why it matters; for a label of one script so that holds a
        styled letter, ``'\u210cenry' holds U+210C BLACK-LETTER CAPITAL H at character 1, a
        styled form of U+0048 LATIN CAPITAL LETTER H (...): ...``; None for a label of one
        script (or of one set UTS #39 "highly restrictive" allows) with no styled letter.
    """
    mixed = mixed_script(label)
    if mixed is None:
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
