"""The ranking policy: which comparison ranks each comparability family (docs/design.md §6).

The policy is a reviewed file in the store, ``store/policy/ranking.json``, validated by
``schemas/RankingPolicy.json``. Example::

    {"families": {"sol_execbench_leaderboard": {"comparison": "source-native",
        "metric": "/sourceNative/metrics/sol_score", "order": "descending", "unit": "score"}}}

Two comparisons exist:

* ``measured`` -- ``spec.timing.latencyNs[S]`` with S the protocol's primary statistic,
  ascending, unit ``ns``. Every family not listed ranks this way.
* ``source-native`` -- the run-spec value at ``metric`` (an RFC 6901 JSON Pointer) in the
  declared ``order``; its unit is ``unit``, or each run's value at ``unitPointer``.

kistore ships a default (:data:`DEFAULT_POLICY`); ``kistore init`` writes it into a new store
and a store without the file uses it. Reads only; the store is never written here.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from ..attest.levels import SOURCE_NATIVE
from ..core import canonical
from ..core.errors import InputError, KistoreError, MultipleErrors, with_fix
from ..core.layout import POLICY_FILE
from ..core.numbers import is_number
from ..core.package_data import read_package_data
from ..core.policy_metric import check_policy_document

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Iterable

    from ..store import View

MEASURED = "measured"
COMPARISONS = (MEASURED, SOURCE_NATIVE)
ASCENDING = "ascending"
DESCENDING = "descending"


@cache
def default_policy_bytes() -> bytes:
    """Return the bytes of the shipped default policy (``kistore/query/default_policy.json``).

    Read beside this module (one ``open``: kistore installed as files, or a checkout); only
    where the package is not plain files (a zip import) through its loader.

    Raises:
        OSError: the file is missing from the installation.
    """
    return read_package_data("kistore.query", "default_policy.json")


def shown_value(value: Any, limit: int = 40) -> str:
    """Return a JSON value as a person reads it in one message: its JSON, cut at ``limit``.

    Args:
        value: any JSON value (a run's misstated ranked value, say).
        limit: the most characters kept before ``...``.

    Returns:
        ``json.dumps(value)`` (non-ASCII escaped: no control or bidi character printed),
        ``...`` ending it when it was longer than ``limit``.
    """
    # Lazy: a message for a misstated value only, not on every rank's start-up.
    import json

    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit] + "..."


class Comparison(NamedTuple):
    """How one comparison group is ordered.

    A named tuple, not a frozen dataclass: making one costs ~2 ms of start-up (its methods
    are compiled), on every run page and ``rank`` (docs/speed.md).

    Attributes:
        name: ``measured`` or ``source-native``.
        family: the comparability family it applies to.
        metric: JSON Pointer into the run spec of the ranked value (measured:
            ``/timing/latencyNs/<statistic>``).
        order: ``ascending`` (lower first) or ``descending`` (higher first).
        unit: the value's unit when fixed (``ns`` for measured), else None.
        unit_pointer: JSON Pointer into the run spec where each run states the unit.
    """

    name: str
    family: str
    metric: str
    order: str
    unit: str | None = None
    unit_pointer: str | None = None

    def value(self, spec: dict[str, Any]) -> tuple[float | None, str | None]:
        """Return ``(value, unit)`` of a run spec; value None when missing or not a number.

        A number: :func:`kistore.core.numbers.is_number`, the one test KI245-KI247 count a
        metric as held by, so the gate never calls "held" what ``rank`` leaves unranked
        (fresh96 F1).
        """
        value = resolve_pointer(spec, self.metric)
        if not is_number(value):
            value = None
        unit = self.unit
        if self.unit_pointer is not None:
            found = resolve_pointer(spec, self.unit_pointer)
            unit = found if isinstance(found, str) else None
        return value, unit  # as stored: an integral latency stays an integer in --json

    def misstated_value(self, spec: dict[str, Any]) -> Any:
        """Return what a run spec states at :attr:`metric` when it is there but no number.

        None when the value is a number, or nothing (or JSON ``null``) is there. A string
        such as ``"0.5"``, a boolean, an array or an object is returned as found: ``rank``
        leaves the run unranked and says why; ``check`` warns of an added run (KI221).
        """
        value = resolve_pointer(spec, self.metric)
        return None if value is None or is_number(value) else value

    def unranked_said(self, spec: dict[str, Any]) -> str:
        """Say why a run holding no number at :attr:`metric` ranks nothing, as ``rank`` does.

        One wording for every place a run is shown unranked for it (``rank``'s rows, KI415's
        and KI247's lists, KI245's example): ``"0.5" at /M is not a number`` (KI221 warns of
        it), ``null at /M: no value`` for JSON ``null`` (reviewer break97 L7: it read as a
        missing key's, while KI245 said "null"; no KI221: ``null`` is JSON's "no value",
        what a run stating it means, as one without the key), else ``no value at /M``.
        """
        stated = self.misstated_value(spec)
        if stated is not None:
            return f"{shown_value(stated)} at {self.metric} is not a number"
        if holds_null(spec, self.metric):
            return f"null at {self.metric}: no value"
        return f"no value at {self.metric}"

    def judged_unit(self, spec: dict[str, Any]) -> str | None:
        """Return the unit of a run that must agree with its group's, or None.

        A run's unit is judged (KI210, and ``rank``'s refusal of a group mixing units) when
        the run can be compared: it states a value (a number at :attr:`metric`) and its
        status is ``passed``. A run of another status is never ranked, and a run with no
        value has nothing to compare, so neither breaks its group, whatever unit it states.
        """
        if spec.get("status") != "passed":
            return None
        value, unit = self.value(spec)
        return unit if value is not None else None

    def misstated_unit(self, spec: dict[str, Any]) -> Any:
        """Return what a comparable run states at :attr:`unit_pointer` when it is no string.

        None when the policy has no ``unitPointer``, the run is not compared (see
        :meth:`judged_unit`), or it states a string or nothing there (nothing:
        :meth:`lacks_unit`). A number such as ``1`` is no unit (``"1"`` would be): such a
        run is left unranked ("no unit"), and KI210 refuses it.
        """
        if self.unit_pointer is None or spec.get("status") != "passed":
            return None
        if self.value(spec)[0] is None:
            return None
        found = resolve_pointer(spec, self.unit_pointer)
        return None if found is None or isinstance(found, str) else found

    def lacks_unit(self, spec: dict[str, Any]) -> bool:
        """Return True when a comparable run states no unit at :attr:`unit_pointer`.

        False when the policy has no ``unitPointer`` or the run is not compared (see
        :meth:`judged_unit`). True when the run states nothing (or JSON ``null``) there:
        ``rank`` leaves it unranked ("no unit at ..."), and KI210 refuses it, as it
        refuses a unit that is no string (:meth:`misstated_unit`).
        """
        if self.unit_pointer is None or spec.get("status") != "passed":
            return False
        if self.value(spec)[0] is None:
            return False
        return resolve_pointer(spec, self.unit_pointer) is None

    def to_json(self) -> dict[str, Any]:
        """Return the comparison as data (for ``--json``)."""
        data = {"name": self.name, "family": self.family, "metric": self.metric,
                "order": self.order, "unit": self.unit}
        if self.unit_pointer is not None:
            data["unitPointer"] = self.unit_pointer
        return data


class RankingPolicy(NamedTuple):
    """A parsed, schema-valid ranking policy.

    A named tuple, not a frozen dataclass: making one costs ~2 ms of start-up (its methods
    are compiled), on every run page and ``rank`` (docs/speed.md).

    Attributes:
        families: family name to its entry (``comparison``, ``metric``, ``order``, ...).
        source: where it was read from (``store/policy/ranking.json`` or the default).
    """

    families: dict[str, dict[str, Any]]
    source: str

    def comparison(self, family: str, statistic: str, which: str | None = None) -> Comparison:
        """Return the comparison for a group.

        Args:
            family: the protocol's comparability family.
            statistic: the protocol's primary statistic (for ``measured``).
            which: ``measured`` or ``source-native`` to ask for one; None for the one the
                policy declares (``measured`` for unlisted families).

        Raises:
            InputError: ``source-native`` asked for a family the policy declares no metric
                for, or ``which`` is not a comparison name.
        """
        entry = self.families.get(family, {})
        chosen = which or entry.get("comparison", MEASURED)
        if chosen == MEASURED:
            return Comparison(MEASURED, family, f"/timing/latencyNs/{statistic}", ASCENDING, "ns")
        if chosen != SOURCE_NATIVE:
            raise InputError(f"unknown comparison {chosen!r}; expected one of "
                             f"{', '.join(COMPARISONS)}")
        if "metric" not in entry:
            raise InputError(
                f"family {family!r} has no source-native metric in {self.source}; rank it "
                f"'measured', or declare its metric in {POLICY_FILE} by a reviewed change",
                file=self.source)
        return Comparison(SOURCE_NATIVE, family, entry["metric"], entry.get("order", ASCENDING),
                          entry.get("unit"), entry.get("unitPointer"))


def parse_policy(data: bytes, *, file: str) -> RankingPolicy:
    """Parse and validate policy bytes against ``schemas/RankingPolicy.json``.

    Args:
        data: the file's bytes (strict JSON).
        file: its name, for messages.

    Raises:
        ParseError: not strict JSON.
        MultipleErrors: every schema violation, each with its JSON Pointer.
    """
    document = canonical.loads(data, file=file)
    if data != default_policy_bytes():  # the shipped default is checked by a test, not per query

        findings = check_policy_document(document, file=file)
        if findings:
            raise MultipleErrors(list(findings))
    return RankingPolicy(dict(document["families"]), file)


HEAD_POLICY = f"HEAD:{POLICY_FILE}"
"""The :attr:`RankingPolicy.source` of ``HEAD``'s policy, read for a work tree whose file
is there but no regular file (:func:`load_policy`)."""


def load_policy(view: View) -> RankingPolicy:
    """Return the policy of a store view: its ``store/policy/ranking.json`` or the default.

    In the work tree, a policy file that is there but no regular file (a FIFO, a symbolic
    link: never read) is not taken for an absent one: the answers rank by ``HEAD``'s file,
    as they judge by ``HEAD``'s trust file (fresh17 F7: they ranked by the shipped
    default, not the store's reviewed policy). Its source is then :data:`HEAD_POLICY`.

    Args:
        view: a :class:`kistore.store.View` (work tree or commit).

    Raises:
        ParseError, MultipleErrors: the store's policy file is not valid.
    """
    data, source = view.read(POLICY_FILE), POLICY_FILE
    if data is None:
        data, source = _held_in_head(view), HEAD_POLICY
    if data is None:
        return parse_policy(default_policy_bytes(), file="kistore default policy")
    try:
        return parse_policy(data, file=source)
    except KistoreError as e:  # msg94 F9: each said what is wrong, none what to do
        said = [*e.problems[:-1], with_fix(e.problems[-1], POLICY_FIX)]  # said once, last
        raise (said[0] if len(said) == 1 else MultipleErrors(said)) from None


def _held_in_head(view: View) -> bytes | None:
    """Return ``HEAD``'s policy bytes when the work tree's file is there but no regular file.

    Returns:
        None at a commit, when nothing is at the path (absent: the default, as documented),
        or when ``HEAD`` holds no policy file.
    """
    if view.scope != "work" or view.head_read is None:
        return None
    # Lazy: the index's words of a file kind, only when no policy file was read.
    from ..index.catalog import not_regular

    if not_regular(view, POLICY_FILE) is None:
        return None
    return view.head_read(POLICY_FILE)


POLICY_FIX = (f"correct {POLICY_FILE} as docs/queries.md, \"Comparisons and the ranking "
              "policy\", says (a family takes `comparison` measured, or source-native with "
              "`metric`, a JSON Pointer into the run's spec, and `order`, ascending or "
              f"descending), or restore the committed one: `git checkout HEAD -- {POLICY_FILE}`")
"""What to do about a store's ranking policy that does not parse or validate."""


def ranked_number_advice(view: View, problems: Iterable[KistoreError]) -> None:
    """Tell a ``NaN`` at a metric the policy ranks runs by to write a number, and only that.

    The schema takes anything in ``sourceNative.metrics`` (so :mod:`kistore.store.inputs`
    says "a number, or null, or leave the field out"), but a run stating null or nothing
    at the metric its family ranks by is never ranked (reviewer r90b F5).

    Args:
        view: the store view whose policy is read (:func:`load_policy`; a policy that does
            not load changes nothing: ``verify`` says why, KI206).
        problems: an input's problems; each :class:`~kistore.core.errors.ParseError` with
            ``number_at`` equal to ``/spec`` + a source-native family's ``metric`` gets the
            words "write a number: the ranking policy ranks the runs of family F by M; a
            run stating null or nothing there is not ranked" (changed in place).
    """
    problems = [p for p in problems if getattr(p, "number_at", None)]
    if not problems:
        return
    try:
        policy = load_policy(view)
    except KistoreError:
        return
    ranked: dict[str, list[str]] = {}
    for family, entry in sorted(policy.families.items()):
        metric = entry.get("metric")
        if entry.get("comparison", MEASURED) == SOURCE_NATIVE and isinstance(metric, str):
            ranked.setdefault(f"/spec{metric}", []).append(family)
    for problem in problems:
        at = getattr(problem, "number_at", None) or ""
        if at in ranked:
            bad = problem.message.split(" is not JSON", 1)[0]
            problem.message = (
                f"{bad} is not JSON; write a number: the ranking policy ranks the runs of "
                f"family {' and '.join(ranked[at])} by {at.removeprefix('/spec')}; a run "
                "stating null or nothing there is not ranked")
            problem.args = (problem.format(),)


@lru_cache(maxsize=1024)
def _tokens(pointer: str) -> tuple[str, ...]:
    """:func:`kistore.core.canonical.pointer_tokens` of a pointer, unescaped once a process.

    A policy names a few pointers and ``verify`` resolves them in every run (KI234 read
    137,575 values at 100,000 manifests, each pointer split and unescaped anew: ~0.15 s).
    """
    return tuple(canonical.pointer_tokens(pointer))


def holds_null(document: Any, pointer: str) -> bool:
    """Return whether ``document`` holds JSON ``null`` at ``pointer`` (not: nothing there).

    :func:`resolve_pointer` answers None for both; ``rank`` and KI245 say them apart.
    """
    parent, _, token = pointer.rpartition("/")
    node = resolve_pointer(document, parent) if pointer else None
    key = canonical.unescape_pointer(token)
    if isinstance(node, list):
        return key.isdigit() and int(key) < len(node) and node[int(key)] is None
    return isinstance(node, dict) and key in node and node[key] is None


def resolve_pointer(document: Any, pointer: str) -> Any:
    """Return the value at an RFC 6901 JSON Pointer, or None when there is none."""
    if pointer == "":
        return document
    node = document
    for token in _tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node
