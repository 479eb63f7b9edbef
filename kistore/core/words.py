"""The words people read for a comparison, an evidence level and a missing source.

One module owns them, so ``rank``, ``show``, ``compare`` and the site say each one way
(review r85 F7, F19). ``source-native`` named two things on one ``rank`` line: the
comparison (the source's own metric) in the header and the evidence level (no trusted
rerun yet) on every row; a run that names no source was "as the source reported it", and
its missing source had three names on the site ("_unspecified", "no source", "not
stated"). Now:

* a comparison is said by what it ranks: "by measured latency", "by the source's own
  metric" (:func:`comparison_said`; the latter only of a metric under ``/sourceNative/``,
  fresh15 F4); ``measured`` and ``source-native`` stay the names of
  ``--comparison`` and of the ranking policy's ``comparison``;
* an evidence level is labelled as one: "evidence: source-native" (:func:`evidence_said`);
  the levels themselves, ``source-native`` and ``verified``, are DESIGN's and unchanged;
* a run that names no source is from "no source" (:data:`NO_SOURCE`), and what it states,
  its status included, is "as submitted" (:func:`stated_by`); its evidence level is said
  so wherever it is shown, ``rank`` rows and the site's tables included (msg95 1).

Imports nothing of kistore: the pure core, usable by every layer and the site's templates.
"""

from __future__ import annotations

COMPARISONS = {"measured": "measured latency", "source-native": "the source's own metric"}
"""What each comparison ranks by, as said to people (its name is the key)."""

NO_SOURCE = "no source"
"""The label of a run's source when it names none (``sourceNative.source`` absent)."""


def comparison_said(name: str, metric: str | None = None) -> str:
    """Return how a comparison is said: ``by measured latency``, ``by the source's own metric``.

    "The source's own metric" is said only of a metric under ``/sourceNative/`` (fresh15 F4:
    a ``source-native`` family of the ranking policy ranking ``/timing/latencyNs/std``, a
    field kistore's schema defines, was said to rank by "the source's own metric"). A
    ``source-native`` metric under ``/timing/latencyNs/`` is measured latency, named by its
    statistic (``by measured latency (p90)``); another outside ``/sourceNative/`` is the
    ranking policy's (``by the ranking policy's metric``).

    Args:
        name: the comparison's name (``measured`` or ``source-native``; another is said as
            ``by NAME``).
        metric: the comparison's metric, a JSON Pointer (RFC 6901) into the run's spec; None
            when not known (said by ``name`` alone).

    Returns:
        The phrase, lower case, no final period.
    """
    if name == "source-native" and metric is not None \
            and not metric.startswith("/sourceNative/"):
        tokens = metric.split("/")
        if len(tokens) == 4 and tokens[1:3] == ["timing", "latencyNs"]:
            return f"by {COMPARISONS['measured']} ({tokens[3]})"
        return "by the ranking policy's metric"
    return f"by {COMPARISONS.get(name, name)}"


AS_SUBMITTED = "as submitted, no source named"
"""What the level ``source-native`` is for a run that names no source (msg94 F13)."""

AS_SUBMITTED_SHORT = "as submitted"
""":data:`AS_SUBMITTED` in a table cell, whose title attribute says it whole (msg95 1)."""


def evidence_said(level: str, *, named_source: bool = True, withdrawn: bool = False,
                  short: bool = False) -> str:
    """Return an evidence level labelled as one: ``evidence: source-native``.

    ``source-native`` means no trusted rerun has reproduced the run: its numbers are its
    source's. A run that names no source has its submitter's, and "source: no source"
    beside a bare "evidence: source-native" read as a contradiction (msg94 F13): then the
    level is said with :data:`AS_SUBMITTED`.

    Args:
        level: ``source-native`` or ``verified`` (docs/design.md §5).
        named_source: False for a run that names no source (``sourceNative.source``
            absent); True (the default) says the level alone.
        withdrawn: say ``withdrawn`` in the same parentheses.
        short: say :data:`AS_SUBMITTED_SHORT` instead, for a table cell (the site's group
            and compare pages, which give the long form as the cell's title attribute).

    Returns:
        ``evidence: LEVEL``, or ``evidence: source-native (as submitted, no source named)``,
        ``evidence: LEVEL (withdrawn)``, ``... (as submitted, no source named; withdrawn)``;
        short: ``evidence: source-native (as submitted)``.

    Raises nothing.
    """
    as_submitted = AS_SUBMITTED_SHORT if short else AS_SUBMITTED
    notes = [as_submitted] if level == "source-native" and not named_source else []
    notes += ["withdrawn"] if withdrawn else []
    return f"evidence: {level}" + (f" ({'; '.join(notes)})" if notes else "")


def stated_by(source: str | None) -> str:
    """Return whose word a run's status and results are: its source's, or its submitter's.

    Args:
        source: the run's ``sourceNative.source``, or None when it names none.

    Returns:
        ``as the source reported it``, or ``as submitted`` for a run that names no source.
    """
    return "as the source reported it" if source else "as submitted"


def workload_not_stored_said(digest: str | None) -> str:
    """Say that a group's workload is not in the store, so its ranks are of the runs here.

    The one wording of the caveat ``show``, the site's group page and the run page at its
    rank say (fresh05 LOW 5, fresh09 L1: the run page said "Rank 1 of 1" with no caveat).

    Args:
        digest: the workload's digest, as the run states it.

    Returns:
        ``the workload sha256:... is not in this store, so the group holds only the runs
        of it stored here; other runs of the same workload elsewhere are not ranked with it``.
    """
    return (f"the workload {digest} is not in this store, so the group holds only the runs "
            "of it stored here; other runs of the same workload elsewhere are not ranked "
            "with it")
