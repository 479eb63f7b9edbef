"""The reviewed ranking policy file, as ``verify`` and the gate check it: KI206, KI207.

``store/policy/ranking.json`` decides how each comparability family ranks
(:mod:`kistore.query.policy` reads it; docs/design.md §6). A policy that is not strict JSON valid
against ``schemas/RankingPolicy.json`` makes every ``kistore rank`` fail (KI206); one
deleted after a commit had it makes ``rank`` fall back to the shipped default unreviewed
(KI207). :func:`check_policy` is one of :data:`kistore.check.audit.CHECKERS` and runs in
:mod:`kistore.check.gate` when a range changes the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core import canonical
from ..core.errors import KistoreError
from ..core.findings import ERROR, Finding, rule
from ..core.layout import POLICY_FILE
from ..core.schema import check_document
from ..git.treediff import entry_at
from ._history import ancestry

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

POLICY_INVALID = rule(
    "KI206", "policy-invalid", ERROR,
    "fix store/policy/ranking.json so it is strict JSON valid against "
    "schemas/RankingPolicy.json (every `kistore rank` fails until then)")

POLICY_MISSING = rule(
    "KI207", "policy-missing", ERROR,
    "restore the reviewed policy (`git checkout LAST_COMMIT -- store/policy/ranking.json`) and "
    "change it by editing it in a reviewed pull request, never by deleting it")



def check_policy(store: Store, at: str | None = None) -> list[Finding]:
    """Check the reviewed ranking policy ``store/policy/ranking.json`` of a view.

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for the work tree.

    Returns:
        KI206 for a policy file that is not strict JSON or fails
        ``schemas/RankingPolicy.json`` (one finding per problem, with its JSON Pointer);
        KI207 when the file is absent but a commit in the history of ``at`` (or ``HEAD``)
        had it: ``rank`` would silently use the shipped default instead of the reviewed
        policy. Nothing when the file is valid, or absent from the whole history (the
        shipped default applies).
    """
    data = store.view(at).read(POLICY_FILE)
    if data is None:
        return _policy_removed(store, at)
    try:
        problems: list[KistoreError] = list(check_document(
            canonical.loads(data, file=POLICY_FILE), "RankingPolicy.json", file=POLICY_FILE))
    except KistoreError as e:
        problems = e.problems
    return [Finding(POLICY_INVALID, p.message, file=POLICY_FILE, pointer=p.pointer,
                    line=p.line, column=p.column) for p in problems]


def _policy_removed(store: Store, at: str | None) -> list[Finding]:
    """KI207 naming the newest commit in the history of ``at`` that had the policy file."""
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    for commit in ancestry(repo, store.commit(at or "HEAD")):  # newest first; rare path
        entry = entry_at(repo, commit.tree, POLICY_FILE)  # guarded (a cut older tree)
        if entry is not None and entry.type_str == "blob":
            return [Finding(
                POLICY_MISSING, f"commit {str(commit.id)[:12]} has the reviewed ranking policy "
                "but this tree lacks it: `kistore rank` would fall back to the shipped default",
                file=POLICY_FILE, expected="the reviewed policy file", found="no file",
                extra={"last_commit": str(commit.id)})]
    return []
