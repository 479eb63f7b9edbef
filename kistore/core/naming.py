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

    Args:
        spec: the run's ``spec`` (parsed JSON).
        name: its ``metadata.name``.

    Returns:
        None when the name agrees, or the run has no source of :data:`EXTERNAL_ID_NAMES`
        or no ``externalId``; else one line naming the forms expected.
    """
    native = spec.get("sourceNative") if isinstance(spec, dict) else None
    if not isinstance(native, dict) or not isinstance(name, str):
        return None
    forms = EXTERNAL_ID_NAMES.get(native.get("source"))  # type: ignore[arg-type]
    external = native.get("externalId")
    if forms is None or not isinstance(external, str | int) or isinstance(external, bool):
        return None
    ident = _ident(external)
    heads = _any_head(native.get("source"), forms)  # type: ignore[arg-type]
    if heads is not None:  # one fullmatch for every form, as any(_agrees(...)) answers
        cut = len(name) - len(ident)
        if cut >= 0 and name[cut:] == ident and heads.fullmatch(name, 0, cut) is not None:
            return None
    elif any(_agrees(form, ident, name) for form in forms):
        return None
    shown = " or ".join(repr(form.format(id=ident).replace("[0-9]+", "N")) for form in forms)
    return (f"{native['source']} run {native['externalId']!r} must be named {shown}, "
            f"not {name!r}")


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
