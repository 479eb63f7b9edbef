"""The store layout: where each file lives under ``store/`` (docs/design.md §3). Pure; no I/O.

::

    kistore.toml
    store/objects/sha256/38/4a96d0...54f6.json    canonical bytes of {apiVersion, kind, spec}
    store/metadata/sha256/38/4a96d0...54f6.json   canonical bytes of that manifest's metadata
    store/attestations/...                        signed attestation bundles from pull requests
    store/trust/keys.json                         who may sign what
    store/policy/ranking.json                     reviewed query policy

Paths are POSIX strings relative to the repository root, as git tree paths are.
"""

from __future__ import annotations

from .digest import Digest, is_digest

STORE_DIR = "store"
OBJECTS_DIR = "store/objects/sha256"
METADATA_DIR = "store/metadata/sha256"
ATTESTATIONS_DIR = "store/attestations"
TRUST_DIR = "store/trust"
POLICY_DIR = "store/policy"
TRUST_FILE = f"{TRUST_DIR}/keys.json"
POLICY_FILE = f"{POLICY_DIR}/ranking.json"
SETTINGS_FILE = "kistore.toml"
NOTES_REF = "refs/notes/kistore"
"""Where attestation notes live: a git notes ref on the blobs of object files
(docs/design.md §5)."""
SUFFIX = ".json"


def object_path(digest: Digest) -> str:
    """Return ``store/objects/sha256/XX/REST.json`` for a digest (XX = first 2 hex digits)."""
    return f"{OBJECTS_DIR}/{digest.hex[:2]}/{digest.hex[2:]}{SUFFIX}"


def metadata_path(digest: Digest) -> str:
    """Return ``store/metadata/sha256/XX/REST.json`` for a digest."""
    return f"{METADATA_DIR}/{digest.hex[:2]}/{digest.hex[2:]}{SUFFIX}"


def digest_from_path(path: str) -> Digest | None:
    """Return the digest an object or metadata path names, or None for any other path.

    Accepts exactly the paths :func:`object_path` and :func:`metadata_path` produce.
    """
    for base in (OBJECTS_DIR, METADATA_DIR):
        if path.startswith(base + "/"):
            rest = path[len(base) + 1 :]
            shard, _, leaf = rest.partition("/")
            if len(shard) == 2 and leaf.endswith(SUFFIX) and "/" not in leaf:
                text = "sha256:" + shard + leaf[: -len(SUFFIX)]
                return Digest.from_str(text) if is_digest(text) else None
    return None
