"""KI254, KI251 and KI253 in ``check``: a manifest the range adds whose author or provider misleads.

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
may be written so on purpose. Since fresh13 (2026-12-07) KI251 names every problem of an
author, not the first only, and KI253 judges an author as it prints (``'  НРЕ\u200b '`` as
``НРЕ``), so both are said of it; KI251 is named ``author-prints-as-another`` (it was
``author-mixes-scripts``, untrue of a space at either end). KI254 (an error, as in ``add``)
refuses an author that prints as nothing (``'    '``, ``'\u200b'``, ``'\u2800'``, and since
fresh16 F7 an accent on no letter, ``'\u0301'``), as KI104 refuses a blank ``provider`` or
``project``, by one predicate (:func:`kistore.core._plain_text.prints_as_nothing`; U+2800 in
a project or provider since fresh16 F8); ``verify`` says it of a stored one as a warning
(:data:`AUTHOR_BLANK_STORED`).

Judged where a range adds an Implementation or an ExecutionEnvironment (``check
BASE..HEAD``, ``--landed``, ``--updates``): found through the names files the range adds
(``store/names/KIND/XX/NAME``: every manifest has one, KI211), so a range of runs
alone reads nothing more. ``verify`` does not repeat KI251 and KI253 for stored ones (one the
reviewer let in is meant).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..core import layout
from ..core.findings import ERROR, WARNING, Finding, rule
from ..store import View
from ..store.labels import AUTHOR, LABELS, blank_said, label_problems
from ._products import specs_added

_DROP = ("objects are never edited, so add the corrected {kind} as a new object and drop this "
         "one from the branch (`kistore drop DIGEST` before committing, or rewrite the branch "
         "without it)")
"""How a manifest the range adds is corrected, the end of each rule's fix here."""

AUTHOR_PRINTS_AS_ANOTHER = rule(
    "KI251", "author-prints-as-another", WARNING,
    "if the writing is not meant, write the author as it prints, in plain letters of one "
    "script and single U+0020 spaces between words: " + _DROP.format(kind="Implementation")
    + "; a name written so on purpose stays (a warning)")
"""KI251 (named ``author-mixes-scripts`` until fresh13 LOW 3: a space at either end is no
mix of scripts). Each finding's own fix (:attr:`Finding.fix`) says what to write for the
problems it names (:attr:`kistore.store.labels.LabelSaid.fix`)."""

AUTHOR_LOOKS_LATIN = rule(
    "KI253", "author-looks-latin", WARNING,
    "if the author (or an environment's provider) is not meant to pass for the Latin name it "
    "prints as, write it as it is known in Latin letters, or with a letter that does not look "
    "Latin: objects are never edited, so add the corrected manifest as a new object and drop "
    "this one from the branch (`kistore drop DIGEST` before committing, or rewrite the branch "
    "without it); a name written so on purpose stays (a warning)")

AUTHOR_BLANK = rule(
    "KI254", "author-blank", ERROR,
    "write the author's name in visible letters, or leave `author` out (an Implementation with "
    "no author, or an empty one, is labelled by its `project`): "
    + _DROP.format(kind="Implementation"))
"""KI254 of an Implementation a range adds whose author prints as nothing (fresh13 MED 2)."""

AUTHOR_BLANK_STORED = replace(AUTHOR_BLANK, severity=WARNING, hint=(
    "an object is never edited: add an Implementation with the author's name (or none) as a "
    "new object and name it in new runs; this one stays, landed before KI254 refused it (a "
    "warning)"))
""":data:`AUTHOR_BLANK` as ``verify`` says it of a stored Implementation (a warning: the
store's history may hold one added before the rule, and an object is never edited)."""

_RULES = {r.id: r for r in (AUTHOR_PRINTS_AS_ANOTHER, AUTHOR_LOOKS_LATIN, AUTHOR_BLANK)}
"""The rules by id, as :func:`kistore.store.labels.label_problems` names them."""


def range_authors(view: View, before: View, changed: Iterable[str]) -> list[Finding]:
    """KI254, KI251 and KI253 for the manifests a range adds whose author or provider misleads.

    Args:
        view: the range's head.
        before: its base.
        changed: the repository paths the range adds, changes or deletes.

    Returns:
        For each field of :data:`kistore.store.labels.LABELS` (an Implementation's
        ``spec.author``, an ExecutionEnvironment's ``spec.provider``), per manifest of its
        kind whose object the range adds (its names file among ``changed``, its object
        absent at the base), what :func:`kistore.store.labels.label_problems` says: KI254
        (an error) of an author that prints as nothing; else KI251 (a warning, the author
        only), naming every U+0020 SPACE at either end or after another, invisible,
        non-NFC or styled character and a mix of scripts; and KI253 (a warning) of a value
        that prints as Latin letters while wholly of another script; on its object at the
        field's pointer (``/spec/author``, ``/spec/provider``), KI251 and KI254 each with
        its own fix (what to write for what it holds; KI253's is its rule's hint). An
        object too large to read (KI106) or not the object of its digest (KI101) is left to
        those rules. Raises nothing but what reading the trees raises.
    """
    findings = []
    for label in LABELS:
        for digest, spec in specs_added(view, before, changed, label.kind):
            value = None if spec is None else spec.get(label.field)
            for said in label_problems(label, value):
                fix = None  # KI253: its rule's hint, which names a provider too
                if said.rule_id != AUTHOR_LOOKS_LATIN.id:  # what to write, for what it holds
                    fix = f"{said.fix}: {_DROP.format(kind=label.kind)}" + (
                        "" if said.rule_id == AUTHOR_BLANK.id
                        else "; a name written so on purpose stays (a warning)")
                findings.append(Finding(_RULES[said.rule_id], said.said,
                                        file=layout.object_path(digest),
                                        pointer=label.pointer, fix=fix))
    return findings


def blank_author_findings(object_path: str, document: Any) -> list[Finding]:
    """KI254 (a warning) of a stored Implementation whose author prints as nothing.

    ``verify`` (and ``check`` of a manifest a range changes) reads every manifest through
    :func:`kistore.check._rules.check_manifest_pair`; a range that adds the Implementation
    says it as an error instead (:func:`range_authors`, :func:`one_blank_author`).

    Args:
        object_path: repository path of the object file.
        document: the parsed object.

    Returns:
        One :data:`AUTHOR_BLANK_STORED` finding at ``/spec/author`` when ``document`` is an
        Implementation whose author is blank (:func:`kistore.store.labels.blank_said`),
        else none.
    """
    spec = document.get("spec") if isinstance(document, dict) else None
    if not isinstance(spec, dict) or document.get("kind") != AUTHOR.kind:
        return []
    author = spec.get(AUTHOR.field)
    said = blank_said(author) if isinstance(author, str) else None
    return [] if said is None else [
        Finding(AUTHOR_BLANK_STORED, said, file=object_path, pointer=AUTHOR.pointer)]


def one_blank_author(findings: list[Finding]) -> list[Finding]:
    """Drop the stored-author warning of an Implementation the range adds (KI254, once).

    Args:
        findings: a range's findings.

    Returns:
        ``findings`` without each :data:`AUTHOR_BLANK_STORED` warning on a file that holds
        an :data:`AUTHOR_BLANK` error (:func:`range_authors`), in their order.
    """
    refused = {f.file for f in findings if f.rule is AUTHOR_BLANK}
    return [f for f in findings if not (f.rule is AUTHOR_BLANK_STORED and f.file in refused)]
