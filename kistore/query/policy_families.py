"""KI250: a ranking-policy entry under a family no protocol of the store has (fresh96 F5).

``store/policy/ranking.json`` is keyed by comparability family, the ``family`` a
BenchmarkProtocol states. An entry under a misspelt key (``kernelbench_timimg``) ranks
nothing: ``rank`` goes on ranking the family as before, and until 2026-12-05 the gate said
not a word (no group changed order, so not even KI415), leaving the reviewer of "rank
KernelBench by its own mean" a green check for a change that did nothing, and the entry
waiting to rank, unreviewed, a protocol later named so. :func:`unknown_families` judges
each entry a change adds or changes against the families HEAD's protocols state, from the
catalog :func:`kistore.query.impact.trust_and_policy_effects` already scans for a policy
change: no read of its own.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable
from typing import Any

from ..core.canonical import escape_pointer
from ..core.findings import ERROR, Finding, rule
from ..core.layout import POLICY_FILE
from .policy import RankingPolicy, default_policy_bytes, parse_policy

POLICY_FAMILY_UNKNOWN = rule(
    "KI250", "policy-family-unknown", ERROR,
    "key the entry by the family its protocols state (the message names the closest; "
    "`kistore show PROTOCOL` shows a protocol's `comparability.family`), or add the entry "
    "in the change that adds the family's first protocol, or later")

SHOWN = 8
"""Known families a KI250 message lists (the rest are counted)."""


def protocol_families(specs: Iterable[dict[str, Any]]) -> set[str]:
    """Return the comparability families BenchmarkProtocol specs state.

    Args:
        specs: BenchmarkProtocol specs (parsed JSON; schema-valid ones state
            ``comparability.family``, a string).

    Returns:
        Each ``comparability.family`` that is a string.
    """
    found = set()
    for spec in specs:
        comparability = spec.get("comparability")
        family = comparability.get("family") if isinstance(comparability, dict) else None
        if isinstance(family, str):
            found.add(family)
    return found


def unknown_families(before: RankingPolicy, after: RankingPolicy,
                     protocols: Collection[str]) -> list[Finding]:
    """KI250 per family entry a policy change adds or changes that no protocol has.

    Args:
        before: BASE's ranking policy.
        after: HEAD's.
        protocols: the families HEAD's protocols state (:func:`protocol_families`).

    Returns:
        One error on ``store/policy/ranking.json`` at ``/families/F`` per family ``F`` whose
        entry differs between the two ends and is there at HEAD, when neither a protocol of
        HEAD nor the shipped default policy (the entry ``kistore init`` writes before any
        protocol is added) names ``F``; naming the closest known family (did-you-mean,
        ``difflib``) and the known ones. An entry equal at both ends is not the change's;
        a removed one ranks nothing either way. ``extra``: ``family``, ``known``.
    """
    known = set(protocols) | set(_shipped_families())
    findings = []
    for family, entry in sorted(after.families.items()):
        if family in known or before.families.get(family) == entry:
            continue
        guess = difflib.get_close_matches(family, sorted(known), n=1)
        named = sorted(known)
        listed = ", ".join(named[:SHOWN]) + (
            f", ... ({len(named) - SHOWN} more)" if len(named) > SHOWN else "")
        findings.append(Finding(
            POLICY_FAMILY_UNKNOWN,
            f"family {family} is the family of no protocol of the store"
            + (f"; did you mean {guess[0]}?" if guess else ":")
            + f" the entry ranks nothing, and `rank` ranks that family's groups as before "
            f"(known families: {listed or 'none'})",
            file=POLICY_FILE, pointer=f"/families/{escape_pointer(family)}",
            expected="a family a protocol of the store states", found=family,
            extra={"family": family, "known": named}))
    return findings


def _shipped_families() -> list[str]:
    """Return the families of the shipped default policy (``kistore init`` writes it)."""
    return list(parse_policy(default_policy_bytes(), file="kistore default policy").families)
