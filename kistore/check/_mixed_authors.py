"""KI251 and KI253 in ``check``: a manifest the range adds whose author or provider misleads.

A leaderboard labels a row with its Implementation's ``author``, and ``Qin Liu @ U\\u0421D``
(a Cyrillic ``С`` among Latin letters) prints exactly as another submitter's ``Qin Liu @
UCD`` (fresh05 LOW 7). ``kistore add`` warns of it (:mod:`kistore.store.labels`), but
someone doing that on purpose writes the JSON by hand, or ignores the warning: the pull
request's check said nothing, so its reviewer never saw it (review01 M4). The words are
the add's (:func:`kistore.store.labels.mixed_label_said`, UTS #39 §5.2 "highly
restrictive" by Unicode's Script_Extensions; and a styled letter, such as a black-letter
``\u210c``, in an author of one script; since 2026-12-07 an invisible character, another
space or an accent not in NFC, fresh10 MED 3; since fresh12 F4 a U+0020 SPACE at either end
or after another, in an ASCII author too). KI253 (conf01, since 2026-12-07) says an
author wholly of one script other than Latin that prints as Latin letters (``НРЕ`` as
``HPE``: :func:`kistore.store.labels.looks_latin_label_said`), and (conf02) an
ExecutionEnvironment's ``provider`` so (``НРЕ`` passing for the Latin ``HPE``); KI104 refuses
a provider's mixes and invisible or styled characters already (an identifying string), so
KI251 is not said of it (:data:`kistore.store.labels.LABELS`). Warnings, as there: a name
may be written so on purpose.

Judged where a range adds an Implementation or an ExecutionEnvironment (``check
BASE..HEAD``, ``--landed``, ``--updates``): found through the names files the range adds
(``store/names/KIND/XX/NAME``: every manifest has one, KI211), so a range of runs
alone reads nothing more. ``verify`` does not repeat it for stored ones (one the reviewer
let in is meant).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core import layout
from ..core.findings import WARNING, Finding, rule
from ..store import View
from ..store.labels import LABELS, label_problems
from ._products import specs_added

AUTHOR_MIXES_SCRIPTS = rule(
    "KI251", "author-mixes-scripts", WARNING,
    "if the mixed, styled or invisible writing is not meant, retype the author in one script, "
    "plain letters and U+0020 spaces: objects are never edited, so add the corrected "
    "Implementation as a new object and drop this one from the branch (`kistore drop DIGEST` "
    "before committing, or rewrite the branch without it); a name written so on purpose "
    "stays (a warning)")

AUTHOR_LOOKS_LATIN = rule(
    "KI253", "author-looks-latin", WARNING,
    "if the author (or an environment's provider) is not meant to pass for the Latin name it "
    "prints as, write it as it is known in Latin letters, or with a letter that does not look "
    "Latin: objects are never edited, so add the corrected manifest as a new object and drop "
    "this one from the branch (`kistore drop DIGEST` before committing, or rewrite the branch "
    "without it); a name written so on purpose stays (a warning)")

_RULES = {r.id: r for r in (AUTHOR_MIXES_SCRIPTS, AUTHOR_LOOKS_LATIN)}
"""The two rules by id, as :func:`kistore.store.labels.label_problems` names them."""


def range_authors(view: View, before: View, changed: Iterable[str]) -> list[Finding]:
    """KI251 and KI253 (warnings) for the manifests a range adds whose author or provider misleads.

    Args:
        view: the range's head.
        before: its base.
        changed: the repository paths the range adds, changes or deletes.

    Returns:
        For each field of :data:`kistore.store.labels.LABELS` (an Implementation's
        ``spec.author``, an ExecutionEnvironment's ``spec.provider``), one warning per
        manifest of its kind whose object the range adds (its names file among ``changed``,
        its object absent at the base) and whose value has a U+0020 SPACE at either end or
        after another, or, not ASCII, mixes scripts, holds an invisible character or a styled
        letter (KI251, the author only:
        :func:`kistore.store.labels.mixed_label_said`), and one per such manifest whose value
        is wholly of one script other than Latin and prints as Latin letters (KI253:
        :func:`kistore.store.labels.looks_latin_label_said`), on its object at the field's
        pointer (``/spec/author``, ``/spec/provider``; the message quotes the value and names
        the letters by code point). An object too large to read (KI106) or not the object of
        its digest (KI101) is left to those rules. Raises nothing but what reading the trees
        raises.
    """
    findings = []
    for label in LABELS:
        for digest, spec in specs_added(view, before, changed, label.kind):
            value = None if spec is None else spec.get(label.field)
            for rule_id, said in label_problems(label, value):
                findings.append(Finding(_RULES[rule_id], said, file=layout.object_path(digest),
                                        pointer=label.pointer))
    return findings
