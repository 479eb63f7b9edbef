"""Citation output formats: plain text, BibTeX, CSL-JSON and CITATION.cff (docs/design.md §7).

Owns writing a :class:`kistore.cite.citation.Citation` for each consumer, valid for it: BibTeX
that parses (one ``@misc`` entry with a key stable per digest), a CSL-JSON list of CSL items
(CSL-JSON data schema), and a complete ``CITATION.cff`` (CFF 1.2.0 schema). Pure: no git,
no I/O; the citation's facts come from :mod:`kistore.cite.citation`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..core.errors import one_line

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .citation import Citation

FORMATS = ("text", "bibtex", "csl-json", "cff")
"""Every output format :func:`render` writes."""

def render(citation: Citation, fmt: str = "text") -> str:
    """Write a citation in one of :data:`FORMATS`; the text ends with a newline.

    * ``text``: a reference line, then one labelled line per field.
    * ``bibtex``: one ``@misc`` entry (classic BibTeX and biblatex both read it).
    * ``csl-json``: a JSON list of one CSL item of type ``dataset`` (CSL-JSON schema).
    * ``cff``: a complete ``CITATION.cff`` (CFF 1.2.0; no access date, CFF has none).

    Raises:
        ValueError: ``fmt`` is not one of :data:`FORMATS`.
    """
    writers = {"text": to_text, "bibtex": to_bibtex, "csl-json": to_csl_json, "cff": to_cff}
    if fmt not in writers:
        raise ValueError(f"unknown citation format {fmt!r}; use one of {', '.join(FORMATS)}")
    return writers[fmt](citation)


def to_text(c: Citation) -> str:
    """Write plain text: ``AUTHORS (YEAR). TITLE [Data set]. PUBLISHER. PERMALINK`` + fields.

    Without an access date (``accessed`` None) the ``accessed:`` line is left out. A
    withdrawn run (:attr:`Citation.withdrawn`) says ``(withdrawn: REASON)`` after
    ``[Data set]`` and has a ``status:`` line (:func:`withdrawn_note`). When
    the object landed on the first-parent line in another commit than the one that first
    added it (:attr:`Citation.landed`), the ``published:`` line names that commit.

    A person reads this text (the terminal, the site's cite block), so each line is
    escaped as ``show`` escapes manifest values (:func:`kistore.core.errors.one_line`): a
    title, author or publisher holding a line break, another control or a bidirectional
    control prints it as ``\\n``, ``\\x0d``, ``\\u202e``, never as a line a submitter wrote
    ("rank 1", "digest: sha256:<another>"; reviewer r83 F4). The machine formats keep the
    text exact in their own syntax.
    """
    lines = [
        f"{names(c.authors)} ({c.published.year}). {c.title} [Data set]{_withdrawn_mark(c)}. "
        f"{c.publisher}. {c.permalink}",
        f"  digest:    {c.digest}",
        f"  kind:      {c.kind}/{c.name}",
        f"  blob:      {c.blob}",
        f"  commit:    {c.commit} (first added the object)",
        f"  published: {c.published.date().isoformat()} ({_dated_by(c)}, UTC)",
        *([f"  accessed:  {c.accessed.isoformat()}"] if c.accessed else []),
        *([f"  status:    {withdrawn_note(c)}"] if c.withdrawn is not None else []),
    ]
    return "\n".join(one_line(line) for line in lines) + "\n"


def withdrawn_note(c: Citation) -> str:
    """Say that a cited run is withdrawn, for a note; "" when it is not.

    Returns:
        ``Withdrawn by the index maintainers: REASON`` (without ``: REASON`` when the
        withdrawal gives none), as signed: each format escapes it in its own syntax.
    """
    if c.withdrawn is None:
        return ""
    reason = c.withdrawn[1]
    return "Withdrawn by the index maintainers" + (f": {reason}" if reason else "")


def _withdrawn_mark(c: Citation) -> str:
    """`` (withdrawn: REASON)`` for a withdrawn run's reference line, else ""."""
    if c.withdrawn is None:
        return ""
    return f" (withdrawn: {c.withdrawn[1]})" if c.withdrawn[1] else " (withdrawn)"


def _dated_by(c: Citation) -> str:
    """Say whose date ``published`` is: ``commit date``, or the commit that landed it."""
    if c.landed is None:
        return "commit date"
    return f"date of commit {c.landed}, which brought it onto the first-parent line"


def _landed_note(c: Citation, sep: str = ", ") -> str:
    """Return ``SEP + published by commit X`` when :attr:`Citation.landed` is set, else ""."""
    return f"{sep}published by commit {c.landed}" if c.landed is not None else ""


_BIBTEX_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                  "dec")


def to_bibtex(c: Citation) -> str:
    r"""Write one ``@misc`` entry, keyed :attr:`Citation.key`.

    Fields: ``author`` (each name braced, so it is never split into given/family),
    ``title`` (double-braced, so styles keep its capitals), ``howpublished`` (``\\url{}``)
    and ``url`` (the permalink), ``year``/``month`` (published), ``urldate`` (accessed;
    left out when the citation has no access date),
    ``publisher``, ``note`` (digest, blob, commit, and the commit whose date is published
    when it is another; first, for a withdrawn run, ``Withdrawn by the index maintainers:
    REASON.``: ``note``, not biblatex's ``addendum``, so that classic BibTeX styles print
    it too). Text is LaTeX-escaped.
    """
    url = _bibtex_url(c.permalink)
    fields = [
        ("author", " and ".join(f"{{{_latex(a)}}}" for a in c.authors)),
        ("title", f"{{{_latex(c.title)}}}"),
        ("howpublished", f"\\url{{{url}}}"),
        ("url", url),
        ("year", str(c.published.year)),
        ("month", None),
        ("urldate", c.accessed.isoformat() if c.accessed else None),
        ("publisher", _latex(c.publisher)),
        ("note", _latex(_first(withdrawn_note(c), ". ")
                        + f"{c.kind} {c.name}, digest {c.digest}, git blob {c.blob}, "
                        f"first added in commit {c.commit}{_landed_note(c)}")),
    ]
    lines = [f"@misc{{{c.key},"]
    for name, value in fields:
        if name == "urldate" and value is None:
            continue  # no access date: the reader adds the date they read it
        if name == "month":  # a standard macro, unbraced, as every style expects
            lines.append(f"  {name:<12} = {_BIBTEX_MONTHS[c.published.month - 1]},")
        else:
            lines.append(f"  {name:<12} = {{{value}}},")
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join([*lines, "}"]) + "\n"


def to_csl_json_item(c: Citation) -> dict[str, Any]:
    """Return one CSL item (type ``dataset``) as a dict, per the CSL-JSON data schema.

    ``accessed`` is left out when the citation has no access date. A withdrawn run has
    ``"status": "withdrawn"`` and its note starts ``Withdrawn by the index maintainers:
    REASON``.
    """
    item: dict[str, Any] = {
        "id": c.key,
        "type": "dataset",
        "title": c.title,
        "author": [{"literal": a} for a in c.authors],
        "publisher": c.publisher,
        "genre": c.kind,
        "URL": c.permalink,
        "issued": {"date-parts": [[c.published.year, c.published.month, c.published.day]]},
        "accessed": {"date-parts": [[c.accessed.year, c.accessed.month, c.accessed.day]]}
        if c.accessed else None,
        "number": str(c.digest),
        "version": c.commit,
        # The digest, blob and commit live in fields every CSL-JSON schema version knows
        # (CSL 1.0.2's "custom" would be refused by older consumers).
        "note": _first(withdrawn_note(c), "; ")
                + f"digest {c.digest}; git blob {c.blob}; first added in commit {c.commit}"
                f"{_landed_note(c, '; ')}",
    }
    if c.accessed is None:  # no access date: the reader adds the date they read it
        del item["accessed"]
    if c.withdrawn is not None:  # CSL's "status": the publication status, as a style prints it
        item["status"] = "withdrawn"
    return item


def _first(text: str, sep: str) -> str:
    """Return ``text + sep`` when ``text`` says something, else ""."""
    return text + sep if text else ""


def to_csl_json(c: Citation) -> str:
    """Write CSL-JSON: a list holding one item (:func:`to_csl_json_item`), indented."""
    return json.dumps([to_csl_json_item(c)], indent=2, ensure_ascii=False) + "\n"


def to_cff(c: Citation) -> str:
    """Write a complete ``CITATION.cff`` (CFF 1.2.0).

    Type ``dataset``, the permalink as ``url``, the first commit as ``commit``, the digest
    (and the permalink) as ``identifiers``, the authors as entities (``name``). CFF 1.2.0
    has no status field: a withdrawn run's ``message`` and ``abstract`` say ``Withdrawn by
    the index maintainers: REASON``, and ``withdrawn`` is among its ``keywords``.

    Written by hand rather than by a YAML library: the document has a fixed shape, and every
    scalar is a YAML double-quoted string (JSON string syntax is valid YAML), so titles with
    ``:``, ``#`` or quotes, and dates (which must stay strings for the CFF schema), are safe.
    """
    q = _yaml_str
    message = "If you use this result, please cite it using these metadata."
    if c.withdrawn is not None:
        message = (f"{withdrawn_note(c)}. If you use this result, cite it as a withdrawn "
                   "result using these metadata.")
    lines = [
        "# CITATION.cff for one KernelIndex object, written by `kistore cite --format cff`.",
        'cff-version: "1.2.0"',
        f"message: {q(message)}",
        'type: "dataset"',
        f"title: {q(c.title)}",
        *([f"abstract: {q(withdrawn_note(c))}"] if c.withdrawn is not None else []),
        "authors:",
        *(f"  - name: {q(a)}" for a in c.authors),
        f"date-released: {q(c.published.date().isoformat())}",
        f"url: {q(c.permalink)}",
        f"commit: {q(c.commit)}",
        "identifiers:",
        '  - type: "other"',
        f"    value: {q(str(c.digest))}",
        f"    description: {q('SHA-256 digest of the RFC 8785 canonical bytes of {apiVersion, kind, spec}')}",  # noqa: E501
        '  - type: "url"',
        f"    value: {q(c.permalink)}",
        f"    description: {q(f'The object file at the commit that first added it (git blob {c.blob})')}",  # noqa: E501
        "keywords:",
        f"  - {q(c.publisher)}",
        *([f"  - {q(c.kind)}"] if c.kind != c.publisher else []),
        *(['  - "withdrawn"'] if c.withdrawn is not None else []),
    ]
    return "\n".join(lines) + "\n"


def names(authors: tuple[str, ...]) -> str:
    """Join author names for a line of text: ``A``, ``A and B``, ``A, B and C``."""
    if len(authors) < 2:
        return "".join(authors)
    return ", ".join(authors[:-1]) + " and " + authors[-1]


_LATEX_SPECIAL = {
    # Classic BibTeX counts braces even after a backslash, so \{ would unbalance a field:
    # braces are written as the brace-balanced \textbraceleft{} / \textbraceright{}.
    "\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
    "%": r"\%", "&": r"\&", "#": r"\#",
    "_": r"\_", "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def _latex(text: str) -> str:
    """Escape LaTeX's special characters so any title reads back as written.

    Characters that are not printable (controls, line separators) become a space.
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) if ch.isprintable() else " " for ch in text)


def _bibtex_url(url: str) -> str:
    """Percent-encode braces, backslashes and spaces, which would unbalance a BibTeX value."""
    return "".join({"{": "%7B", "}": "%7D", "\\": "%5C", " ": "%20"}.get(ch, ch) for ch in url)


def _yaml_str(text: str) -> str:
    """Quote ``text`` as a YAML 1.2 double-quoted scalar.

    JSON string syntax is a subset of YAML's; characters YAML may not hold raw (DEL, C1
    controls, line separators, ...) are escaped on top.
    """
    return "".join(
        ch if ch.isprintable() else (f"\\u{ord(ch):04x}" if ord(ch) < 0x10000
                                     else f"\\U{ord(ch):08x}")
        for ch in json.dumps(text, ensure_ascii=False)
    )
