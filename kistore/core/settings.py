"""What ``kistore.toml`` may hold besides ``[limits]``: its tables and the ``[cite]`` table.

Pure (no I/O): the rules ``kistore cite`` applies to ``[cite]`` when it builds a permalink,
here so that the gate and ``verify`` (layers below ``cite``) refuse the same settings as
KI108 before they are merged (review r60 F25: a template ``cite`` refused passed the gate,
after which ``cite`` failed and ``export`` left every permalink empty), and the tables
kistore reads, so that a misspelled one (``[limit]``) is not silently ignored (F18), and
the ``[store] version`` this kistore writes (:func:`store_problems`: a store of a newer
version is not written into). :mod:`kistore.core.limits` owns ``[limits]``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any

from . import layout
from .errors import InputError, shorten

TABLES = ("store", "limits", "cite")
"""The tables of ``kistore.toml`` kistore reads: ``[store]`` (its format version),
``[limits]`` (:meth:`kistore.core.limits.Limits.from_toml`), ``[cite]`` (:func:`cite_table`)."""

STORE_VERSION = 1
"""The ``[store] version`` this kistore reads and writes (``kistore init`` writes it). A
store without it (no ``[store]``, or no ``version``) is taken as this version."""

STORE_FIX = ("upgrade kistore to a release that reads this store version (`pip install "
             "--upgrade kistore`); if the version was changed by hand, set [store] version = "
             f"{STORE_VERSION} again")
"""What to do about a ``[store] version`` of a newer kistore (an integer past
:data:`STORE_VERSION`)."""

STORE_VALUE_FIX = (f"set [store] version = {STORE_VERSION}, the integer {STORE_VERSION} (no "
                   "quotes, no decimal point): no kistore release writes a store of this "
                   "version, so upgrading kistore cannot help")
"""What to do about a ``[store] version`` no kistore writes (``"1"``, ``1.0``, ``0``, a
``[store]`` that is not a table): a typo, which upgrading cannot fix (review 2026-12-02,
F20)."""

DEFAULT_PUBLISHER = "KernelIndex"
"""Publisher (and author, when no implementation author is known) unless kistore.toml sets
``[cite] publisher``."""

CITE_KEYS = ("permalink", "publisher")
"""The keys of ``[cite]`` kistore reads."""

STORE_KEYS = ("version",)
"""The keys of ``[store]`` kistore reads."""

PLACEHOLDERS = ("base", "commit", "path", "blob", "digest")
"""Fields a ``[cite] permalink`` template may use. ``{commit}`` and ``{path}`` are required."""

_SAMPLE = {"base": "https://forge.example/owner/repo", "commit": "0" * 40,
           "path": "store/objects/sha256/00/00.json", "blob": "0" * 40,
           "digest": "sha256:" + "0" * 64}
"""Placeholder values of the shape a permalink gets (``{base}``: a remote's web URL, always
``https://HOST/PATH`` or ``http://...``), to judge the link a template makes before a
commit or a remote is known."""

LINK_FIX = ("write an absolute https:// (or http://) URL with a host, such as "
            "https://HOST/OWNER/REPO/blob/{commit}/{path} (docs/citation.md)")
"""What to do about a permalink template whose link is not a web link."""


def unknown_tables(settings: dict[str, Any], *, file: str = layout.SETTINGS_FILE
                   ) -> list[InputError]:
    """Return one error per top-level key of a parsed ``kistore.toml`` kistore does not read.

    A table kistore does not know is ignored by every reader: ``[limit]`` or ``[Limits]``
    meant to lower a limit would lower nothing, and nothing would say so.

    Args:
        settings: the parsed file (:func:`kistore.store.parse_settings`).
        file: the file's name, for the errors.

    Returns:
        Per key not in :data:`TABLES`, in file order: an :class:`InputError` at JSON Pointer
        ``/KEY`` naming the tables kistore reads and the nearest one when it looks like a
        misspelling (``[limit]``, ``[Limits]``: ``[limits]``).
    """
    return _unread(settings, TABLES, file=file, prefix="",
                   says=lambda key, near: (
                       f"unknown table [{shorten(key)}]"
                       f"{f' (did you mean [{near}]?)' if near else ''}: kistore reads only "
                       f"{', '.join(f'[{t}]' for t in TABLES)} and would ignore it"))


def _unread(mapping: dict[str, Any], known: tuple[str, ...], *, file: str, prefix: str,
            says: Callable[[str, str | None], str]) -> list[InputError]:
    """Return one error per key of ``mapping`` not in ``known``, in file order.

    Each says ``says(key, the nearest known name or None)``, at JSON Pointer
    ``PREFIX/KEY`` (RFC 6901 escapes).
    """
    unknown = [key for key in mapping if key not in known]
    if not unknown:
        return []
    # cite imports this module on every run page (docs/speed.md): difflib only when needed.
    # Lazy: difflib (heapq, a matcher) only for a file with a name kistore does not read.
    import difflib

    return [InputError(says(key, next(iter(difflib.get_close_matches(
                key.lower(), known, n=1, cutoff=0.6)), None)),
                       file=file, pointer=f"{prefix}/{key.replace('~', '~0').replace('/', '~1')}")
            for key in unknown]


def cite_table(settings: dict[str, Any], *, file: str = layout.SETTINGS_FILE
               ) -> dict[str, str]:
    """Return the ``[cite]`` table of a parsed ``kistore.toml`` (``publisher`` always).

    ``permalink`` is present only when set; values are stripped of surrounding blanks.

    Args:
        settings: the parsed file.
        file: the file's name, for errors.

    Raises:
        InputError: ``[cite]`` is not a table, or a value is not a non-empty string.
    """
    table = settings.get("cite", {})
    if not isinstance(table, dict):
        raise InputError("[cite] must be a table", file=file)
    result = {"publisher": DEFAULT_PUBLISHER}
    for key in ("permalink", "publisher"):
        value = table.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"[cite] {key} must be a non-empty string, found {value!r}",
                             file=file)
        result[key] = value.strip()
    return result


def template_fields(template: str, *, file: str = layout.SETTINGS_FILE) -> set[str]:
    """Check a ``[cite] permalink`` template and return the placeholders it uses.

    Args:
        template: the template (``https://host/o/r/blob/{commit}/{path}``).
        file: the settings file, for errors.

    Returns:
        The names of its placeholders (a subset of :data:`PLACEHOLDERS`).

    Raises:
        InputError: it is not a format string, uses a placeholder not in
            :data:`PLACEHOLDERS` (or a format spec or conversion), or lacks ``{commit}`` or
            ``{path}`` (without a commit id the link would move with a branch).
    """
    fields: set[str] = set()
    # Every run page loaded `string` (~3 M instructions, 1.5% of `import click`).
    # Lazy: only a store that sets a permalink template parses one.
    import string

    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as e:
        raise InputError(f"[cite] permalink {template!r} is not a valid template: {e}",
                         file=file) from None
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if field not in PLACEHOLDERS:
            raise InputError(
                f"[cite] permalink: unknown placeholder {{{shorten(field)}}}; use only "
                + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS), file=file)
        if spec or conversion:  # {commit:>10}, {path!r}: the value is inserted as it is
            written = f"{{{field}{'!' + conversion if conversion else ''}" \
                      f"{':' + spec if spec else ''}}}"
            raise InputError(
                f"[cite] permalink: format spec not allowed in {shorten(written)}; write "
                f"{{{field}}} alone: the placeholder is replaced by its value as it is",
                file=file)
        fields.add(field)
    missing = [f"{{{f}}}" for f in ("commit", "path") if f not in fields]
    if missing:
        raise InputError(
            f"[cite] permalink {template!r} lacks {' and '.join(missing)}: a permalink must "
            "name the commit and the object path, or it would change meaning later",
            file=file,
        )
    refuse_non_web_link(template.format_map(_SAMPLE), template, file=file)
    return fields


def refuse_non_web_link(url: str, template: str, *, file: str = layout.SETTINGS_FILE) -> None:
    """Refuse a permalink that is not a web link a page may carry (review r78 F5).

    A permalink becomes a clickable ``href`` on every run page of the site, and the
    ``url`` of every BibTeX, CSL-JSON and CFF text: ``javascript:...`` would run in the
    site's origin, ``data:`` would open what the template says. :func:`web_link_problem`
    says what is wrong.

    Args:
        url: the permalink made from ``template`` (with sample values, or real ones).
        template: the template, as the message quotes it.
        file: the settings file (or ``--permalink``), for the error.

    Raises:
        InputError: ``url`` is not an absolute ``https:``/``http:`` URL with a host, or
            holds what browsers read differently (the message says which, and the fix).
    """
    problem = web_link_problem(url)
    if problem is not None:
        raise InputError(f"[cite] permalink {shorten(repr(template))} does not make a web "
                         f"link: {problem}; {LINK_FIX}", file=file)


def web_link_problem(url: str) -> str | None:
    """Say why ``url`` is not an absolute ``https:``/``http:`` link to a host, or None.

    Parsed with :func:`urllib.parse.urlsplit` (RFC 3986), after refusing what a browser
    reads otherwise than that parse does (the WHATWG URL standard): whitespace and control
    characters (stripped or skipped: `` javascript:`` is a ``javascript:`` link), a
    backslash (read as ``/``: ``https:\\evil.example``), and user information
    (``https://forge.example@evil.example/`` goes to ``evil.example``).

    Args:
        url: the link.

    Returns:
        What is wrong, as a message says it; None for a good link.
    """
    # Lazy: urllib.parse only where a permalink template is judged (not on every page).
    from urllib.parse import urlsplit

    odd = next((c for c in url if c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0),
               None)
    if odd is not None:
        return f"it holds the character U+{ord(odd):04X} (whitespace or a control character)"
    if "\\" in url:
        return "it holds a backslash, which browsers read as /"
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port that is not a number in 0-65535: ValueError
    except ValueError as e:
        return f"it is not a URL ({e})"
    if parts.scheme not in ("https", "http"):
        scheme = f"the scheme {parts.scheme + ':'!r}" if parts.scheme else "no scheme"
        return f"it has {scheme}, not https: or http:"
    if "@" in parts.netloc:
        return ("it has user information (USER@HOST) before its host, which browsers "
                "leave for the host after the @")
    if not parts.hostname:
        return f"it has no host after {parts.scheme}://"
    return None


def cite_problems(settings: dict[str, Any], *, file: str = layout.SETTINGS_FILE
                  ) -> list[InputError]:
    """Return what ``kistore cite`` would refuse in a parsed ``kistore.toml``'s ``[cite]``.

    One error per bad key, each with ``cite``'s own message at the JSON Pointer of the
    value: ``/cite`` (not a table: the only error), ``/cite/permalink`` (not a non-empty
    string, or :func:`template_fields` refuses it), ``/cite/publisher`` (not a non-empty
    string). A bad ``publisher`` no longer hides a bad ``permalink`` (review r70 F5); a key
    ``[cite]`` does not read is :func:`table_key_problems`'. What depends on the clone rather than
    the file (``{base}`` with no ``origin`` remote) is not judged here.

    Args:
        settings: the parsed file.
        file: the file's name, for the errors.

    Returns:
        The errors, permalink's before publisher's; empty when ``cite`` accepts the table.
    """
    table = settings.get("cite", {})
    if not isinstance(table, dict):
        return [InputError("[cite] must be a table", file=file, pointer="/cite")]
    errors = []
    for key in CITE_KEYS:
        try:
            cite_table({"cite": {key: table[key]}} if key in table else {}, file=file)
            if key == "permalink" and key in table:
                template_fields(table[key].strip(), file=file)
        except InputError as e:
            errors.append(InputError(e.message, file=file, pointer=f"/cite/{key}"))
    return errors


def table_key_problems(settings: dict[str, Any], *, file: str = layout.SETTINGS_FILE
                       ) -> list[InputError]:
    """Return one error per key of ``[store]`` or ``[cite]`` kistore does not read.

    Args:
        settings: the parsed file.
        file: the file's name, for the errors.

    Returns:
        :func:`unknown_keys` of ``[store]`` (:data:`STORE_KEYS`), then of ``[cite]``
        (:data:`CITE_KEYS`); a table that is not a table is :func:`store_problems`' and
        :func:`cite_problems`' to report.
    """
    errors = []
    for name, known in (("store", STORE_KEYS), ("cite", CITE_KEYS)):
        table = settings.get(name)
        if isinstance(table, dict):
            errors += unknown_keys(table, name, known, file=file)
    return errors


def unknown_keys(table: dict[str, Any], name: str, known: tuple[str, ...], *,
                 file: str = layout.SETTINGS_FILE) -> list[InputError]:
    """Return one error per key of the table ``[name]`` that kistore does not read.

    Like :func:`unknown_tables`, one level down (review r70 F3): ``[store] layout = "x"``
    or ``[cite] publsher = ...`` would be ignored, and nothing would say so.

    Args:
        table: the parsed table.
        name: its name (``store``, ``cite``).
        known: the keys kistore reads in it.
        file: the file's name, for the errors.

    Returns:
        Per key not in ``known``, in file order: an :class:`InputError` at JSON Pointer
        ``/NAME/KEY`` naming the keys the table takes (and the nearest, when it looks like
        a misspelling).
    """
    return _unread(table, known, file=file, prefix=f"/{name}",
                   says=lambda key, near: (
                       f"unknown key {shorten(key)!r} in [{name}]"
                       f"{f' (did you mean {near}?)' if near else ''}: kistore reads only "
                       f"{', '.join(known)} there and would ignore it"))


def store_problems(settings: dict[str, Any], *, file: str = layout.SETTINGS_FILE
                   ) -> list[InputError]:
    """Return what is wrong with a parsed ``kistore.toml``'s ``[store] version`` for this kistore.

    A store whose version is not :data:`STORE_VERSION` was written by another kistore
    (``2``: a newer one, whose layout this one may misread or damage): ``add``, ``import``
    and ``migrate`` refuse to write into it (:meth:`kistore.store.Store.
    require_checkout_to_write`), and ``verify`` and the gate report it (KI108).

    Args:
        settings: the parsed file.
        file: the file's name, for the errors.

    Returns:
        At most one error, at JSON Pointer ``/store`` (not a table) or ``/store/version``
        (not an integer, or another version: naming it and :data:`STORE_VERSION`); empty
        when the version is this kistore's or not set.
    """
    table = settings.get("store")
    if table is None:
        return []
    if not isinstance(table, dict):
        return [InputError("[store] must be a table (version = 1)", file=file,
                           pointer="/store")]
    version = table.get("version", STORE_VERSION)
    if isinstance(version, bool) or not isinstance(version, int):
        return [InputError(f"[store] version must be the integer {STORE_VERSION}, found "
                           f"{shorten(repr(version))}; this kistore reads and writes store "
                           f"version {STORE_VERSION}", file=file, pointer="/store/version")]
    if version == STORE_VERSION:
        return []
    who = "a newer kistore" if version > STORE_VERSION else "no kistore release"
    return [InputError(f"[store] version = {version}: a store of version {version} is "
                       f"written by {who}; this kistore reads and writes store version "
                       f"{STORE_VERSION} only and will not write into it", file=file,
                       pointer="/store/version")]


def store_fix(settings: dict[str, Any]) -> str:
    """Return the fix of a parsed ``kistore.toml``'s ``[store] version`` (:func:`store_problems`).

    Args:
        settings: the parsed file.

    Returns:
        :data:`STORE_FIX` (upgrade kistore) for an integer version past
        :data:`STORE_VERSION`, a newer kistore's; else :data:`STORE_VALUE_FIX` (set it to
        the integer :data:`STORE_VERSION`): no release writes ``"1"``, ``1.0`` or ``0``.
    """
    table = settings.get("store")
    version = table.get("version") if isinstance(table, dict) else None
    newer = isinstance(version, int) and not isinstance(version, bool) \
        and version > STORE_VERSION
    return STORE_FIX if newer else STORE_VALUE_FIX


def committed_help(at: str) -> str:
    """Return how to see the ``kistore.toml`` committed at revision ``at`` (fresh07 L4).

    ``git diff kistore.toml`` (:data:`kistore.store._settings.TOML_HELP`) shows nothing
    of a committed file: ``rank --at HEAD`` of a bad committed file said it all the same.
    Here in the core since 2026-12-07 (msg03): a query's warning of a revision's file
    (:mod:`kistore.index`, below the store) says it too.

    Args:
        at: the revision as asked (``HEAD``, ``main~2``); a full commit id is cut to 12
            digits.

    Returns:
        ``git show REV:kistore.toml`` and ``git log -p -- kistore.toml``, then TOML's
        specification, shell-quoted as typed. Raises nothing.
    """
    rev = revision_said(at)
    return (f"`git show {shlex.quote(rev + ':kistore.toml')}` shows it, `git log -p -- "
            "kistore.toml` the commits that changed it; TOML 1.0: https://toml.io/en/v1.0.0")


def revision_said(at: str) -> str:
    """Return revision ``at`` as messages name it: a full commit id cut to 12 digits.

    Args:
        at: a revision as asked (``HEAD``, ``main~2``, a commit id of 40 lowercase hex).

    Returns:
        Its first 12 hex digits for a full commit id, else ``at`` unchanged. Raises nothing.
    """
    return at[:12] if re.fullmatch(r"[0-9a-f]{40}", at) else at
