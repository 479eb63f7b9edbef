"""Attestations: keys, DSSE envelopes, in-toto statements, trust, notes, evidence.

Modules, in the order data flows: :mod:`.signing` (Ed25519 and OpenSSH keys, keyids, DSSE
PAE), :mod:`.sshsig` (SSH public keys incl. FIDO ``sk`` keys, SSHSIG signatures,
``ssh-keygen -Y sign``), :mod:`.attestation` (in-toto Statement v1 in a DSSE envelope,
bundles), :mod:`.trust` (``store/trust/keys.json``), :mod:`.allowed_signers` (trust as an
OpenSSH allowed_signers file), :mod:`.notes` (the two transports: git notes
and ``store/attestations/`` files), :mod:`.levels` (evidence level names, a run's
:class:`Evidence`, whether notes were fetched: what a reader shows without judging),
:mod:`.evidence` (judging bundles with trust: evidence levels, KI3xx), :mod:`.sync`
(``notes sync``). See docs/design.md §5.
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from .attestation import Bundle as Bundle
    from .attestation import verify_bundle as verify_bundle
    from .evidence import check_attestations as check_attestations
    from .evidence import evidence_for as evidence_for
    from .evidence import evidence_for_many as evidence_for_many
    from .evidence import judge as judge
    from .evidence import judging_blobs as judging_blobs
    from .evidence import prefetch_evidence as prefetch_evidence
    from .levels import SOURCE_NATIVE as SOURCE_NATIVE
    from .levels import VERIFIED as VERIFIED
    from .levels import Evidence as Evidence
    from .notes import Seen as Seen
    from .notes import attach as attach
    from .notes import collect as collect
    from .notes import fetch as fetch
    from .notes import push as push
    from .sync import SyncResult as SyncResult
    from .trust import Trust as Trust
    from .trust import add_key as add_key
    from .trust import load_trust as load_trust
    from .trust import revoke_key as revoke_key

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "attestation": ["Bundle", "verify_bundle"],
    "evidence": ["check_attestations", "evidence_for", "evidence_for_many", "judge",
                 "judging_blobs", "prefetch_evidence"],
    "levels": ["Evidence", "SOURCE_NATIVE", "VERIFIED"],
    "notes": ["Seen", "attach", "collect", "fetch", "push"],
    "sync": ["SyncResult"],
    "trust": ["Trust", "add_key", "load_trust", "revoke_key"],
})
