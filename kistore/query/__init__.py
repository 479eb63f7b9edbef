"""The query layer (docs/design.md §6): which runs are comparable, how they rank, the run page.

Reads the store and the derived index (:mod:`kistore.index`), never writes the store.
:mod:`.policy` (which comparison ranks a family, ``store/policy/ranking.json``),
:mod:`.ranking` (competition ranking of one comparison group, pure), :mod:`.answers`
(``rank`` and ``ls``), :mod:`.page` (``show`` and ``compare``).
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from .answers import NoComparisonGroup as NoComparisonGroup
    from .answers import find as find
    from .answers import list_manifests as list_manifests
    from .answers import rank as rank
    from .page import compare as compare
    from .page import run_page as run_page
    from .policy import RankingPolicy as RankingPolicy
    from .policy import load_policy as load_policy

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "answers": ["NoComparisonGroup", "find", "list_manifests", "rank"],
    "page": ["compare", "run_page"],
    "policy": ["RankingPolicy", "load_policy"],
})
