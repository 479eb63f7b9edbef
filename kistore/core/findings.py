"""Findings: what ``verify`` and ``check`` report, one per problem, each with a stable rule.

A :class:`Finding` is data, not an exception: checks return lists of them and never stop at
the first. Rules are registered once (:func:`rule`) with a stable id (``KI101``), a
kebab-case name, a severity and a fix hint, and are documented in ``docs/rules.md``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import not_text, one_line, printable

ERROR = "error"
WARNING = "warning"
INFO = "info"


@dataclass(frozen=True, slots=True)
class Rule:
    """A kind of problem ``verify``/``check`` can find.

    Attributes:
        id: stable id, ``KI`` + 3 digits (never reused for another meaning).
        name: stable kebab-case name, e.g. ``object-digest-mismatch``.
        severity: ``error`` (exit 1), ``warning`` or ``info`` (exit 0).
        hint: how to fix it, in one sentence.
    """

    id: str
    name: str
    severity: str
    hint: str


RULES: dict[str, Rule] = {}


def rule(id: str, name: str, severity: str, hint: str) -> Rule:
    """Register and return a rule. Ids and names must be unique.

    Raises:
        ValueError: when the id or name is already registered for another rule.
    """
    new = Rule(id, name, severity, hint)
    old = RULES.get(id)
    if old is not None and old != new:
        raise ValueError(f"rule {id} registered twice")
    if any(r.name == name and r.id != id for r in RULES.values()):
        raise ValueError(f"rule name {name} registered twice")
    RULES[id] = new
    return new


STORE = "store"
""":attr:`Fault.who` of a rule refusing a manifest for what the store holds already."""
KISTORE = "kistore"
""":attr:`Fault.who` of a rule refusing a manifest for kistore's own files being stale."""


@dataclass(frozen=True, slots=True)
class Fault:
    """Who is at fault when a rule refuses a manifest whose values are right.

    Attributes:
        who: :data:`STORE` (what the store holds: the refusal's own message says the fix)
            or :data:`KISTORE` (kistore's own files: :attr:`fix` says what to do).
        fix: what to do, for :data:`KISTORE`; ``""`` for :data:`STORE`.
    """

    who: str
    fix: str = ""


NOT_THE_VALUES: dict[str, Fault] = {
    # kistore's catalogue of KernelBench runs (kistore/core/kernelbench_runs.txt) lacks a
    # run its own importer makes: the importer changed without `make catalogue` (KI226's fix)
    "KI226": Fault(KISTORE, (
        "its catalogue of the KernelBench runs its importer makes "
        "(kistore/core/kernelbench_runs.txt) lacks this run: the importer changed without "
        "`make catalogue`; run `make catalogue` in kistore's source tree, review the added "
        "lines and import again (an installed kistore: report it to kistore's maintainers)")),
    "KI202": Fault(STORE),  # a stored run names the arriving digest as another kind
    "KI210": Fault(STORE),  # the stored runs of its comparison group state another unit
    "KI213": Fault(STORE),  # it names manifests in the work tree not committed (add --commit)
    "KI232": Fault(STORE),  # a stored run claims the same record of the source
    # the store's ranking policy ranks the family by a pointer to the record's object or word
    # (/sourceNative/metrics): the record is right, the policy's metric never a number there
    "KI249": Fault(STORE),
}
"""Who is at fault, by rule id (:attr:`~kistore.core.errors.KistoreError.rule_id`), when an
add-time rule refuses a manifest an importer built whose values are the source record's
and right: the store's state (a stored run's claim, a group's unit, a reference's kind, an
uncommitted reference, a policy metric naming no number of the record: KI249) or kistore's
own files (KI226). Every other rule (KI209,
KI222-KI224, KI227, KI228, KI233, KI238; a schema, a number) refuses the manifest's own
values: its author's to correct, and for ``kistore import`` the source record's, which
cannot be imported as it is. :func:`kistore.importers.common.import_advice` says each its
advice (adv01: "report it upstream" was said of KI226's stale catalogue)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found, located as exactly as it can be.

    Attributes:
        rule: the rule it breaks.
        message: what is wrong, e.g. "sha256 of the file is X".
        file: repository path of the file (None when not about one file).
        pointer: JSON Pointer inside the file, when the problem is in a value.
        line: 1-based line in the file's text, when known.
        column: 1-based column, when known.
        expected: what should have been there.
        found: what was there.
        extra: further data for ``--json`` consumers.
        fix: how to fix this one finding, when it differs from its rule's hint (KI106 on
            a file a pull request adds: leave it out; on a committed file, which is never
            deleted: keep the limit); None: the rule's hint. Read it as :attr:`hint`.
    """

    rule: Rule
    message: str
    file: str | None = None
    pointer: str | None = None
    line: int | None = None
    column: int | None = None
    expected: str | None = None
    found: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    fix: str | None = None

    @property
    def hint(self) -> str:
        """How to fix it: :attr:`fix`, else the rule's hint (one sentence)."""
        return self.fix if self.fix is not None else self.rule.hint

    @property
    def severity(self) -> str:
        """The rule's severity."""
        return self.rule.severity

    def format(self) -> str:
        """One line: ``FILE[:LINE:COL][:POINTER]: SEVERITY KI101 name: message (expected ...)``."""
        place = one_line(self.file) if self.file else "(store)"  # one line per finding
        if self.line is not None:
            place += f":{self.line}:{self.column or 1}"
        if self.pointer:
            place += f":{one_line(self.pointer)}"
        text = f"{place}: {self.severity} {self.rule.id} {self.rule.name}: {self.message}"
        if self.expected is not None or self.found is not None:
            text += f" (expected {self.expected}, found {self.found})"
        return printable(text)

    def to_json(self) -> dict[str, Any]:
        """Return the finding as a JSON object (``rule``, ``name``, ``severity``, ``hint``, ...).

        A string of ``extra`` (or a list of them) that is not UTF-8 text -- a ref name
        ``refs/heads/caf<0xE9>`` held as a surrogate escape -- gets a sibling ``KEY_hex``:
        its bytes in lowercase hex (a list: one a string), so a reader recovers the name
        (break97 L4: ``jq`` read ``"caf\\udce9"`` as ``caf`` and U+FFFD). ``extra.ref_hex``
        is the ref's. Only then: a UTF-8 name has no ``_hex``.
        """
        data = asdict(self)
        data.pop("rule")
        data.pop("fix")
        if self.extra:
            data["extra"] = {**self.extra, **_lossless(self.extra)}
        return {"rule": self.rule.id, "name": self.rule.name, "severity": self.severity,
                "hint": self.hint, **{k: v for k, v in data.items() if v not in (None, {})}}


def _lossless(extra: dict[str, Any]) -> dict[str, Any]:
    """Return ``KEY_hex`` for each string (or list of strings) of ``extra`` not UTF-8 text."""
    added: dict[str, Any] = {}
    for key, value in extra.items():
        texts = value if isinstance(value, list) else [value]
        if all(isinstance(t, str) for t in texts) and any(map(not_text, texts)):
            try:
                hexes = [t.encode("utf-8", "surrogateescape").hex() for t in texts]
            except UnicodeEncodeError:  # a lone surrogate no byte makes: no bytes to give
                continue
            added[f"{key}_hex"] = hexes if isinstance(value, list) else hexes[0]
    return added


def fix_lines(findings: list[Finding]) -> list[str]:
    """Return how to fix the findings, as text output says it: one line per rule.

    ``fix KI101 (2 findings): restore the object's ...``: each error's and warning's rule
    once, in the order the findings first name it, with its :attr:`Finding.hint`; info
    findings need no fix. A thousand KI201 warnings print one line, not a thousand
    (reviewer r85 F5: the text output, and so the git hooks, printed no fix at all). Hints
    of one rule that differ (a fix naming its file: ``rm store/objects/...``) share the
    rule's line, numbered in first order, each once: ``fix KI110 (2 findings): (1) ...;
    (2) ...`` (until 2026-12-05 a line each, so one check printed ``fix KI110`` twice);
    of several refs' findings, each numbered hint names its refs (:func:`_numbered`).

    Args:
        findings: the findings, in the order they are printed.

    Returns:
        The lines (none when no finding is an error or a warning).
    """
    counts: dict[str, int] = {}
    # rule id -> its distinct hints, in first order -> the refs of their findings
    hints: dict[str, dict[str, dict[str, None]]] = {}
    for f in findings:
        if f.severity != INFO:
            counts[f.rule.id] = counts.get(f.rule.id, 0) + 1
            refs = hints.setdefault(f.rule.id, {}).setdefault(one_line(f.hint), {})
            if isinstance(f.extra.get("ref"), str):
                refs[f.extra["ref"]] = None
    return [printable(f"fix {rule_id} ({n} finding{'s' if n != 1 else ''}): "
                      + _numbered(hints[rule_id]))
            for rule_id, n in counts.items()]


def _numbered(hints: dict[str, dict[str, None]]) -> str:
    """Return one hint as it is, several as ``(1) A; (2) B``.

    When the findings are of more than one ref (``extra.ref``: a push of several, in
    ``check --updates``), each hint says whose: ``(1) for refs/heads/a: A; (2) for
    refs/heads/b: B``, or ``for refs/heads/a, refs/heads/b: A`` (break97 L3: two refs'
    fixes, each naming a commit, did not say which ref was which).
    """
    several = len({ref for refs in hints.values() for ref in refs}) > 1
    said = [(f"for {', '.join(refs)}: " if several and refs else "") + hint
            for hint, refs in hints.items()]
    return said[0] if len(said) == 1 else "; ".join(
        f"({i}) {hint}" for i, hint in enumerate(said, 1))


def exit_code(findings: list[Finding]) -> int:
    """Return 1 when any finding is an error, else 0 (a function of the findings only)."""
    return 1 if any(f.severity == ERROR for f in findings) else 0
