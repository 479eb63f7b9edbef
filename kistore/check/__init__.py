"""Checks of a store: pure rules, verify, history, policy, the pull-request gate.

:mod:`._rules` (pure checks of bytes and paths, KI1xx-KI2xx), :mod:`.audit` (``kistore
verify`` over a work tree or commit), :mod:`._history` (objects are append-only, KI401-KI403),
:mod:`._policy` (the reviewed ranking policy file), :mod:`.gate` (``kistore check
BASE..HEAD`` and pre-receive, KI4xx), :mod:`.reach` (what a remote holds, for pre-push),
:mod:`.unpushed` (``check --unpushed``: every local ref a push could send). See
docs/design.md §4.
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from ._policy import caveat_said as caveat_said
    from ._policy import family_of as family_of
    from ._policy import ranking_caveats as ranking_caveats
    from ._policy import unit_contradictions as unit_contradictions
    from .audit import snapshot as snapshot
    from .audit import verify as verify
    from .gate import check_range as check_range
    from .gate import check_updates as check_updates
    from .gate import parse_range as parse_range
    from .unpushed import check_unpushed as check_unpushed

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "_policy": ["caveat_said", "family_of", "ranking_caveats", "unit_contradictions"],
    "audit": ["snapshot", "verify"],
    "gate": ["check_range", "check_updates", "parse_range"],
    "unpushed": ["check_unpushed"],
})
