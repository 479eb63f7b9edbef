"""Names: how importers make a ``metadata.name``, and the names a source's external id fixes.

Pure (no I/O). A ``KIND/NAME`` is how people cite and link a manifest, so for an imported
run the name is not free text: it is made from the source's own id of the record
(``spec.sourceNative.externalId``), and a run whose name disagrees with that id would
put one submission's name on another's numbers. :func:`external_id_disagreement` says
when that is so; the importers make names with :func:`slug`, and a test holds every run
they import to it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from .folding import ascii_alnum

_NOT_NAME = re.compile(r"[^a-z0-9.]+")


def slug(*parts: Any, dots: bool = True) -> str:
    """Join parts into a metadata name: lowercase, ``[a-z0-9.-]``, no leading/trailing ``-``.

    Args:
        parts: strings or numbers; each becomes lowercase with every run of other
            characters replaced by one ``-``, after accented letters lose their accents
            (NFKD, combining marks dropped: ``Ünïcödé`` is ``unicode``, not ``n-c-d``).
        dots: keep ``.`` (False turns ``v1.1`` into ``v1-1``, as published names do).

    Returns:
        A name matching ``^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`` (``common.json#/$defs/name``).
    """
    words = []
    for part in parts:
        text = _ascii_folded(str(part)).lower()
        if not dots:
            text = text.replace(".", "-")
        word = _NOT_NAME.sub("-", text).strip("-.")
        if word:
            words.append(word)
    return re.sub(r"-{2,}", "-", "-".join(words))


def _ascii_folded(text: str) -> str:
    """Return ``text`` in NFKD with its combining marks dropped (``é`` -> ``e``, ``ﬁ`` -> ``fi``).

    Letters with no such decomposition (``ß``, ``ø``, CJK) stay, and :func:`slug` then
    turns them into ``-`` as before.
    """
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text)
                   if not unicodedata.combining(c))


EXTERNAL_ID_NAMES: dict[str, tuple[str, ...]] = {
    "sol-execbench": (r"sol-kernel-[0-9]+-submission-{id}", r"sol-submission-{id}",
                      r"sol-local-{id}"),
}
"""Per ``sourceNative.source``: the forms a run's name takes, ``{id}`` standing for
:func:`slug` of its ``externalId`` (leaderboard submissions as imported and as the
published record names them, local evaluator runs).
Sources not listed (their importers name runs by other fields) are not checked."""


def external_id_disagreement(spec: Any, name: Any) -> str | None:
    """Say how a BenchmarkRun's name disagrees with its source's external id, if it does.

    The source is read folded (:func:`naming_source`: ``sol-exec-bench`` is
    ``sol-execbench``, as KI226 reads a source's name), the id in its normal form
    (:func:`record_id`: ``#25504``, ``025504`` and ``25504`` are one id, and so are a
    path's case and its ``/`` or ``-``), the same form KI232 compares claims by.

    Args:
        spec: the run's ``spec`` (parsed JSON).
        name: its ``metadata.name``.

    Returns:
        None when the name agrees, or the run has no source of :data:`EXTERNAL_ID_NAMES`;
        else one line naming the forms expected. A run of such a source stating no
        ``externalId`` (or no string or integer) disagrees when its name has one of the
        forms all the same: the name claims a record the run does not state (reviewer
        r90 F1: ``sol-local-25504``, source ``sol-execbench``, no id, passed every rule).
    """
    native = spec.get("sourceNative") if isinstance(spec, dict) else None
    if not isinstance(native, dict) or not isinstance(name, str):
        return None
    source = naming_source(native.get("source"))
    if source is None:
        return None
    forms = EXTERNAL_ID_NAMES[source]
    external = native.get("externalId")
    if not isinstance(external, str | int) or isinstance(external, bool):
        if _named_as_record(source, forms).fullmatch(name) is None:
            return None
        return (f"{native['source']} run {name!r} has the name of a record ("
                f"{_shown_forms(forms, 'ID')}) but states no externalId: name it otherwise "
                "(a run you measured yourself), or state the record's id")
    ident = record_id(external)
    heads = _any_head(source, forms)
    if heads is not None:  # one fullmatch for every form, as any(_agrees(...)) answers
        cut = len(name) - len(ident)
        if cut >= 0 and name[cut:] == ident and heads.fullmatch(name, 0, cut) is not None:
            return None
    elif any(_agrees(form, ident, name) for form in forms):
        return None
    return (f"{native['source']} run {native['externalId']!r} must be named "
            f"{_shown_forms(forms, ident)}, not {name!r}")


def _shown_forms(forms: tuple[str, ...], ident: str) -> str:
    """Return the forms with ``{id}`` as ``ident`` and a kernel number as ``N``, quoted."""
    return " or ".join(repr(form.format(id=ident).replace("[0-9]+", "N")) for form in forms)


_BY_KEY = {ascii_alnum(source): source for source in EXTERNAL_ID_NAMES}


def naming_source(source: Any) -> str | None:
    """Return the source of :data:`EXTERNAL_ID_NAMES` a ``sourceNative.source`` names, or None.

    Read as KI226 reads a source's name (:func:`kistore.core.folding.ascii_alnum`: NFKC,
    case folded, accents split off, only ASCII letters and digits kept), so
    ``sol-exec-bench``, ``SOL_ExecBench`` and ``sol.execbench`` are ``sol-execbench``
    (reviewer r90 F1: a copy stating ``sol-exec-bench`` claimed a record unseen).

    Args:
        source: the stated source (any JSON value).
    """
    return _BY_KEY.get(ascii_alnum(source)) if isinstance(source, str) else None


def record_id(external: str | int) -> str:
    """Return an external id's normal form: what KI209 names a run by and KI232 compares.

    :func:`slug` of the id (case, ``/`` or ``-``, a leading ``#``: one id), and an id of
    digits without its leading zeros (``025504`` is submission ``25504``; ``0`` stays).

    Args:
        external: ``sourceNative.externalId`` (a string or an integer).
    """
    ident = _ident(external)
    return (ident.lstrip("0") or "0") if ident.isdigit() else ident


_NAMED: dict[str, re.Pattern[str]] = {}
"""A source of :data:`EXTERNAL_ID_NAMES` -> one pattern of its forms with any id."""


def _named_as_record(source: str, forms: tuple[str, ...]) -> re.Pattern[str]:
    """Return the alternation of ``forms`` with ``{id}`` any non-empty text, compiled once."""
    if source not in _NAMED:
        _NAMED[source] = re.compile("|".join(f"(?:{form.format(id='.+')})" for form in forms))
    return _NAMED[source]


_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9.]*[a-z0-9])?")
"""A text :func:`slug` leaves as it is (one part, dots kept)."""


def _ident(external: str | int) -> str:
    """Return :func:`slug` of an external id, without its two substitutions when it is one.

    Most ids are digits already (``"20464"``); a test holds this equal to :func:`slug`.
    """
    text = str(external)
    return text if _SLUG.fullmatch(text) is not None else slug(external)


_HEADS: dict[str, re.Pattern[str] | None] = {}
"""A source of :data:`EXTERNAL_ID_NAMES` -> the alternation of its forms' parts before
``{id}``, compiled once (None when a form does not end in ``{id}``)."""


def _any_head(source: str, forms: tuple[str, ...]) -> re.Pattern[str] | None:
    """Return one pattern fullmatching what any of ``forms`` allows before ``{id}``, or None.

    A name agrees with some form ending in ``{id}`` when it ends in the id and the rest
    fullmatches that form's head (:func:`_agrees`); with every form so, that is one
    fullmatch of the heads' alternation (a test holds the two equal). None: some form
    has ``{id}`` elsewhere, or not at all; :func:`_agrees` judges each then.
    """
    if source not in _HEADS:
        heads = [head for head, placeholder, tail in (f.partition("{id}") for f in forms)
                 if placeholder and not tail]
        _HEADS[source] = re.compile("|".join(  # the heads hold no braces: format as _agrees
            f"(?:{head.format()})" for head in heads)) if len(heads) == len(forms) else None
    return _HEADS[source]


_PREFIXES: dict[str, re.Pattern[str]] = {}
"""A form ending in ``{id}`` -> its part before ``{id}``, compiled once."""


def _agrees(form: str, ident: str, name: str) -> bool:
    """Whether ``name`` fullmatches ``form`` with ``{id}`` standing for ``ident`` (literally).

    A form ending in ``{id}`` (every form of :data:`EXTERNAL_ID_NAMES`) is judged as: the
    name ends in ``ident`` and what comes before fullmatches the form's prefix, compiled
    once; the same answer as compiling the form per id (a test holds the two equal), which
    cost ~0.5 ms a run in ``verify`` once the distinct ids outnumbered ``re``'s cache.
    """
    _, placeholder, tail = form.partition("{id}")
    if not placeholder or tail:  # {id} not at the end: the form as written, per id
        return re.fullmatch(form.format(id=re.escape(ident)), name) is not None
    prefix = _PREFIXES.get(form)
    if prefix is None:
        prefix = _PREFIXES[form] = re.compile(form.format(id=""))  # head, braces unescaped
    cut = len(name) - len(ident)
    return cut >= 0 and name[cut:] == ident and prefix.fullmatch(name, 0, cut) is not None
