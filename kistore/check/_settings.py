"""``kistore.toml`` in the gate and ``verify``: every KI108 of one file, and on which line.

KI108 findings carried no line, though the TOML error named one ("at line 5, column 8") and
a bad key has one (review r60 F14): ``check --format github`` then annotated the file, not
the changed line. :func:`settings_place` finds it: from the parse error's own words, else by
a line-wise look for the key a JSON Pointer names (the file parsed, or the error would have
been the parse error's).

:func:`settings_findings` reports, from one parse (:class:`kistore.store.Settings`), each
bad key of ``[limits]`` (or the one parse error), a table kistore does not read (F18:
``[limit]`` lowered nothing, silently), a ``[store] version`` this kistore does not
write, and a ``[cite]`` that ``kistore cite`` would
refuse (F25: the gate passed ``{foo}`` in the permalink template, then ``cite`` failed
and ``export`` left every permalink empty), with ``cite``'s own message
(:mod:`kistore.core.settings`). :func:`check_settings` is ``verify``'s checker of it; the
gate calls :func:`settings_findings` on the range's HEAD.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..core import layout
from ..core.errors import KistoreError, shorten
from ..core.findings import WARNING, Finding, Rule, rule
from ..core.limits import DEFAULT
from ..core.settings import STORE_FIX, STORE_VALUE_FIX, TABLES, cite_table, template_fields
from ..store import TOML_HELP, committed_help, settings_place
from ._fixes import HINT_BASE, Base
from ._rules import CHECKING_SETTINGS_INVALID, SETTINGS_INVALID

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Settings, Store

CITE_FIX = ("fix [cite] in kistore.toml as `kistore cite` asks: permalink = a template of "
            "{base}, {commit}, {path}, {blob} and {digest} holding {commit} and {path}, "
            "publisher = a non-empty string (docs/citation.md)")
"""The fix of KI108 on ``[cite]`` (the rule's hint is about ``[limits]``)."""

TABLE_FIX = (f"rename the table to the one meant ({', '.join(f'[{t}]' for t in TABLES)}) or "
             "remove it: kistore reads no other, so its settings would do nothing")
"""The fix of KI108 on a table kistore does not read."""

OWN_FIX = ("fix the checking repository's kistore.toml (the work tree's; a bare "
           "repository's: HEAD's): `verify` holds the files of any revision to its limits")
"""The fix of ``verify --at``'s KI109 (the rule's hint is the gate's)."""

KEY_FIX = ("rename the key to the one meant ([store] takes version; [cite] takes permalink "
           "and publisher) or remove it: kistore reads no other, so it would do nothing")
"""The fix of KI108 on a key of ``[store]`` or ``[cite]`` kistore does not read."""

PARSE_FIX = (f"correct kistore.toml where the finding says ({TOML_HELP}); until then `add` "
             "and `import` refuse the store, while queries (with a warning) and `verify` use "
             "the default limits")
"""The fix of KI108 on a file that does not parse (the rule's hint is about ``[limits]``)."""


def parse_fix(settings: Settings) -> str:
    """Return KI108's fix of a file that does not parse: :data:`PARSE_FIX`, or a commit's.

    A committed file (``verify --at``, the gate's commits) is not seen with ``git diff``
    nor corrected by an edit alone (fresh07 L4): a new commit corrects it, and ``git show
    REV:kistore.toml`` shows it (:func:`kistore.store.committed_help`). Raises nothing.
    """
    if settings.at is None:
        return PARSE_FIX
    return (f"correct kistore.toml where the finding says, in a new commit "
            f"({committed_help(settings.at)}); until then the commits holding it are read "
            "with the default limits (queries warn, `verify` uses them)")


_FIXES = {"table": TABLE_FIX, "key": KEY_FIX, "store": STORE_FIX,
          "store-value": STORE_VALUE_FIX, "cite": CITE_FIX}
"""The fix of each kind of :meth:`kistore.store.Settings.other_problems`."""


def _permalink_hint(base: Base) -> str:
    """Return KI422's hint, its checkout naming ``base`` (:class:`._fixes.Base`); raises nothing."""
    return ("review the new [cite] permalink like code: every citation (`kistore cite`, export, "
            "the site) links there after the merge; keep BASE's unless the store has really "
            f"moved ({base.checkout(layout.SETTINGS_FILE)} undoes it)")


PERMALINK_CHANGED = rule("KI422", "cite-permalink-changed", WARNING, _permalink_hint(HINT_BASE))


def permalink_changed(base: Settings, head: Settings, named: Base) -> list[Finding]:
    """KI422 when a range changes ``[cite] permalink`` of ``kistore.toml`` (review r75 F16).

    The template makes the permalink of every citation ``kistore cite``, ``export`` and
    the site write; without one, they derive it from the remote's URL. A pull request that
    sets, changes or removes it re-points every citation, perhaps to another host: valid,
    so no KI108, but never silent. Two values the gate parsed already: O(1).

    Args:
        base: BASE's settings (:meth:`kistore.store.Store.settings`).
        head: HEAD's.
        named: BASE as the fix's checkout names it (:class:`._fixes.Base`; the gate's).

    Returns:
        One warning on ``kistore.toml`` at ``/cite/permalink`` (its line at HEAD, or the
        file's when HEAD removes it) naming both templates and hosts; empty when the
        template is the same, or when either file's ``[cite]`` is one KI108 refuses.
    """
    try:
        before, after = (cite_table(s.parsed or {}).get("permalink") for s in (base, head))
        if after is not None:
            template_fields(after)
    except KistoreError:  # a [cite] that cite refuses: settings_findings says it (KI108)
        return []
    if before == after:
        return []
    line, column = settings_place(head.data, "/cite/permalink", "") if after else (None, None)
    return [Finding(
        PERMALINK_CHANGED, f"the range changes [cite] permalink from {_template(before)} to "
        f"{_template(after)}: every citation links to {_host(after)} after the merge, not "
        f"{_host(before)}", file=layout.SETTINGS_FILE, pointer="/cite/permalink", line=line,
        column=column, extra={"base": before, "head": after}, fix=_permalink_hint(named))]


def _raised_hint(base: Base) -> str:
    """Return KI426's hint, its checkout naming ``base`` (:class:`._fixes.Base`); raises nothing."""
    return ("review a raised limit like code: once merged, a manifest up to the new size can "
            "land, and since objects are never deleted the limit can never be lowered below it "
            "again; keep BASE's value unless a real manifest needs more "
            f"({base.checkout(layout.SETTINGS_FILE)} undoes it)")


LIMIT_RAISED = rule("KI426", "limit-raised", WARNING, _raised_hint(HINT_BASE))


def limits_raised(base: Settings, head: Settings, named: Base) -> list[Finding]:
    """KI426 per ``[limits]`` key a range raises in ``kistore.toml`` (review r78 F9).

    A raised limit is valid (below its ceiling: no KI108), but it is the first half of a
    two-step: the next pull request adds a manifest the old limit refused, and once it is
    stored the limit cannot come down again (KI106 on the stored file). So a raise is never
    silent: setting a key BASE left out above its default counts, as does removing a key
    BASE set below its default. Each value is the one that applies (a bad key: its default,
    whose KI108 is :func:`settings_findings`'), but BASE's value past its ceiling is BASE's
    as stated (:meth:`kistore.store.Settings.stated_limits`: setting the ceiling then lowers
    it). Two files the gate parsed already: O(1).

    Args:
        base: BASE's settings (:meth:`kistore.store.Store.settings`).
        head: HEAD's.
        named: BASE as the fix's checkout names it (:class:`._fixes.Base`; the gate's).

    Returns:
        One warning per raised key, in the order of :class:`kistore.core.limits.Limits`, on
        ``kistore.toml`` at ``/limits/KEY`` (its line at HEAD; else the line of HEAD's
        ``[limits]``, or none), naming the
        old value, the new value and the default (``extra``: ``base``, ``head``,
        ``default``); empty when no limit goes up.
    """
    before, after = base.stated_limits() or DEFAULT, head.limits_per_key()[0]
    findings = []
    for name, old, new, default in zip(DEFAULT._fields, before, after, DEFAULT, strict=True):
        if new <= old:
            continue
        key = name.replace("_", "-")
        pointer = f"/limits/{key}"
        line, column = settings_place(head.data, pointer, "")
        if line is None:  # removed at HEAD: the [limits] table's line, if any
            line, column = settings_place(head.data, "/limits", "")
        findings.append(Finding(
            LIMIT_RAISED, f"the range raises [limits] {key} from {old:,} to {new:,} (the "
            f"default is {default:,}): a manifest up to the new size can land after the "
            "merge, and the limit cannot be lowered below it again", file=layout.SETTINGS_FILE,
            pointer=pointer, line=line, column=column,
            extra={"base": old, "head": new, "default": default}, fix=_raised_hint(named)))
    return findings


def _template(value: str | None) -> str:
    """Return a permalink template as a message quotes it, or what citations use without one."""
    return shorten(repr(value)) if value else "none (derived from the remote's URL)"


def _host(value: str | None) -> str:
    """Return the host a permalink template links to, as a message names it."""
    if not value or value.startswith("{base}"):
        return "the remote's host"
    try:
        host = urlsplit(value).hostname
    except ValueError:
        host = None
    return shorten(repr(host)) if host else shorten(repr(value))


def check_settings(store: Store, at: str | None = None) -> list[Finding]:
    """Return KI108 for the ``kistore.toml`` of the revision ``verify`` checks (KI109 beside).

    One of :data:`kistore.check.audit.CHECKERS`: :func:`settings_findings` of the file at
    ``at`` (``verify --at REV``: REV's, the settings that revision holds, not the checking
    repository's). The stored files are held to the checking repository's limits
    (:func:`kistore.check.audit.checking_limits`: its work tree's file, or ``HEAD``'s in a
    bare repository): when that file is another and its ``[limits]`` is bad, one KI109
    warning per problem says so (its bad keys keep their defaults for this check).

    Args:
        store: the store (a bare repository is fine).
        at: the revision verified (None: the work tree's file, ``HEAD``'s in a bare
            repository).

    Returns:
        The findings, KI108 ordered by line, then KI109; empty when both files are good.
    """
    checked = store.settings(at)
    findings = settings_findings(checked)
    if at is None:
        return findings
    own = store.settings(None)
    if own.data == checked.data and own.unreadable is None and checked.unreadable is None:
        return findings  # the same bytes: KI108 said it all
    problems = own.limit_problems()
    whose = ("this repository's own kistore.toml (HEAD's)" if store.root is None else
             "the work tree's kistore.toml (the checking repository's own settings)")
    return findings + [settings_finding(
        CHECKING_SETTINGS_INVALID, f"{whose} does not parse: {p.message}; verify holds the "
        f"files of {at} to its valid limits, each bad one at its default", own.data, p,
        fix=OWN_FIX) for p in problems]


def settings_findings(settings: Settings) -> list[Finding]:
    """Return KI108 on ``kistore.toml`` for everything wrong with one parsed file.

    Args:
        settings: the file, read and parsed once (:meth:`kistore.store.Store.settings`).

    Returns:
        Each bad key of ``[limits]`` (JSON Pointer ``/limits/KEY``), or the one problem of a
        file that does not parse or is not a regular file; then, for a file that parses,
        per top-level key not in :data:`kistore.core.settings.TABLES` (``[limit]``: "did
        you mean [limits]?"), a ``[store] version`` this kistore does not write
        (:func:`kistore.core.settings.store_problems`), and per ``[cite]`` value ``kistore
        cite`` refuses (its message), each with its fix. Each at its JSON Pointer, line and column
        (:func:`settings_place`), ordered by line (a finding with no line first); empty
        when the file is good.
    """
    findings = [settings_finding(SETTINGS_INVALID, p.message, settings.data, p,
                                 fix=parse_fix(settings) if p in settings.parse_error else None)
                for p in settings.limit_problems()]
    findings += [settings_finding(SETTINGS_INVALID, p.message, settings.data, p,
                                  fix=_FIXES[kind])
                 for p, kind in settings.other_problems()]
    return sorted(findings, key=lambda f: (f.line or 0, f.column or 0))


def settings_finding(rule: Rule, message: str, data: bytes | None, problem: KistoreError,
                     *, fix: str | None = None) -> Finding:
    """Return a finding on ``kistore.toml`` (bytes ``data``) about one settings problem.

    At the problem's JSON Pointer, and its line and column: its own, else where
    :func:`settings_place` finds them.

    Args:
        rule: KI108 (the file checked) or KI109 (the checking repository's).
        message: the finding's message.
        data: the file's bytes (None: not placed).
        problem: the problem (its pointer, and its line when the parse error had one).
        fix: the fix, when not the rule's hint.
    """
    line, column = (problem.line, problem.column) if problem.line is not None else \
        settings_place(data, problem.pointer, problem.message)
    return Finding(rule, message, file=layout.SETTINGS_FILE, pointer=problem.pointer,
                   line=line, column=column, fix=fix)
