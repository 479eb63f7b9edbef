"""KI251 and KI253 in ``check``: an Implementation the range adds whose ``author`` misleads.

A leaderboard labels a row with its Implementation's ``author``, and ``Qin Liu @ U\\u0421D``
(a Cyrillic ``С`` among Latin letters) prints exactly as another submitter's ``Qin Liu @
UCD`` (fresh05 LOW 7). ``kistore add`` warns of it (:mod:`kistore.store.labels`), but
someone doing that on purpose writes the JSON by hand, or ignores the warning: the pull
request's check said nothing, so its reviewer never saw it (review01 M4). The words are
the add's (:func:`kistore.store.labels.mixed_label_said`, UTS #39 §5.2 "highly
restrictive" by Unicode's Script_Extensions; and a styled letter, such as a black-letter
``\u210c``, in an author of one script; since 2026-12-07 an invisible character, another
space or an accent not in NFC, fresh10 MED 3). KI253 (conf01, since 2026-12-07) says an
author wholly of one script other than Latin that prints as Latin letters (``НРЕ`` as
``HPE``: :func:`kistore.store.labels.looks_latin_label_said`). Warnings, as there: a name
may be written so on purpose.

Judged where a range adds an Implementation (``check BASE..HEAD``, ``--landed``,
``--updates``): found through the names files the range adds
(``store/names/Implementation/XX/NAME``: every manifest has one, KI211), so a range of runs
alone reads nothing more. ``verify`` does not repeat it for stored ones (one the reviewer
let in is meant).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core import layout
from ..core.findings import WARNING, Finding, rule
from ..store import View
from ..store.labels import POINTER, looks_latin_label_said, mixed_label_said
from ._products import specs_added

KIND = "Implementation"

AUTHOR_MIXES_SCRIPTS = rule(
    "KI251", "author-mixes-scripts", WARNING,
    "if the mixed, styled or invisible writing is not meant, retype the author in one script, "
    "plain letters and U+0020 spaces: objects are never edited, so add the corrected "
    "Implementation as a new object and drop this one from the branch (`kistore drop DIGEST` "
    "before committing, or rewrite the branch without it); a name written so on purpose "
    "stays (a warning)")

AUTHOR_LOOKS_LATIN = rule(
    "KI253", "author-looks-latin", WARNING,
    "if the author is not meant to pass for the Latin name it prints as, write it as it is "
    "known in Latin letters, or with a letter that does not look Latin: objects are never "
    "edited, so add the corrected Implementation as a new object and drop this one from the "
    "branch (`kistore drop DIGEST` before committing, or rewrite the branch without it); a "
    "name written so on purpose stays (a warning)")


def range_authors(view: View, before: View, changed: Iterable[str]) -> list[Finding]:
    """KI251 and KI253 (warnings) for the Implementations a range adds whose ``author`` misleads.

    Args:
        view: the range's head.
        before: its base.
        changed: the repository paths the range adds, changes or deletes.

    Returns:
        One warning per Implementation whose object the range adds (its names file among
        ``changed``, its object absent at the base) whose ``spec.author``, not ASCII, mixes
        scripts, holds an invisible character or a styled letter (KI251:
        :func:`kistore.store.labels.mixed_label_said`), and one per such Implementation whose
        author is wholly of one script other than Latin and prints as Latin letters (KI253:
        :func:`kistore.store.labels.looks_latin_label_said`), on its object at
        ``/spec/author`` (the message quotes it and names the letters by code point).
        An object too large to read (KI106) or not the object of its digest (KI101) is
        left to those rules. Raises nothing but what reading the trees raises.
    """
    findings = []
    for digest, spec in specs_added(view, before, changed, KIND):
        author = None if spec is None else spec.get("author")
        if not isinstance(author, str) or author.isascii():
            continue
        said = mixed_label_said(author)
        if said is not None:
            findings.append(Finding(AUTHOR_MIXES_SCRIPTS, said, file=layout.object_path(digest),
                                    pointer=POINTER))
        looks = looks_latin_label_said(author)
        if looks is not None:
            findings.append(Finding(AUTHOR_LOOKS_LATIN, looks, file=layout.object_path(digest),
                                    pointer=POINTER))
    return findings
