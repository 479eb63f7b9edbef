"""Evidence level of a run (DESIGN §5): ``source-native`` until a trusted rerun agrees.

This module is the seam between attestations and queries: queries ask
:func:`evidence_for` and never read attestations themselves.

Today no attestation support exists yet, so every run is ``source-native``, not withdrawn,
with no attestations: exactly right for a store without attestations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SOURCE_NATIVE = "source-native"
VERIFIED = "verified"


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the attestations about one run amount to.

    Attributes:
        level: ``source-native`` or ``verified``.
        withdrawn: True when a valid maintainer withdrawal applies (never ranked then).
        community: number of valid community attestations (counted, never raising level).
        attestations: a summary per attestation seen (type, keyid, valid, reason, source).
    """

    level: str = SOURCE_NATIVE
    withdrawn: bool = False
    community: int = 0
    attestations: list[dict[str, Any]] = field(default_factory=list)


def evidence_for(store: Any, digest: Any, *, at: str | None = None) -> Evidence:
    """Return the evidence for the run ``digest`` in ``store`` (work tree, or commit ``at``).

    Args:
        store: a :class:`kistore.store.Store`.
        digest: the run's :class:`kistore.digest.Digest`.
        at: revision, or None for the work tree.
    """
    return Evidence()
