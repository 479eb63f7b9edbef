"""The store layout: where each file lives under ``store/`` (docs/design.md §3). Pure; no I/O.

::

    kistore.toml
    store/objects/sha256/38/4a96d0...54f6.json    canonical bytes of {apiVersion, kind, spec}
    store/metadata/sha256/38/4a96d0...54f6.json   canonical bytes of that manifest's metadata
    store/names/BenchmarkRun/df/sol-submission-20464  "sha256:<hex>\\n": who owns that name
    store/forward/sha256/ab/<62 hex of D>/<64 hex of R>  "workloadDigest\\n": run R names
                                                  D, which had no object when R was added
    store/groups/sha256/cd/<62 hex of K>/<64 hex of R>  the RFC 8785 bytes of run R's
                                                  comparison key object, whose sha256 is K
    store/attestations/...                        signed attestation bundles from pull requests
    store/trust/keys.json                         who may sign what
    store/policy/ranking.json                     reviewed query policy

Paths are POSIX strings relative to the repository root, as git tree paths are.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from . import hashes
from .digest import Digest

STORE_DIR = "store"
OBJECTS_DIR = "store/objects/sha256"
METADATA_DIR = "store/metadata/sha256"
NAMES_DIR = "store/names"
FORWARD_DIR = "store/forward/sha256"
GROUPS_DIR = "store/groups/sha256"
ATTESTATIONS_DIR = "store/attestations"
TRUST_DIR = "store/trust"
POLICY_DIR = "store/policy"
TRUST_FILE = f"{TRUST_DIR}/keys.json"
POLICY_FILE = f"{POLICY_DIR}/ranking.json"
GITATTRIBUTES_LINE = "store/** -text -eol -filter -ident -working-tree-encoding"
"""The ``.gitattributes`` line ``kistore init`` writes: stored bytes are hashed bytes, never
converted (checked by :mod:`kistore.core.gitattributes`)."""
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


@functools.cache
def _attestation_path() -> re.Pattern[str]:
    """Return the pattern of an attestation file's path (compiled on first use)."""
    return re.compile(
        re.escape(ATTESTATIONS_DIR) + r"/sha256/[0-9a-f]{2}/[0-9a-f]{62}/[0-9a-f]{64}\.json")


def attestation_dir(subject: Digest) -> str:
    """Return ``store/attestations/sha256/XX/REST``: the attestation files about ``subject``.

    Args:
        subject: the digest of the manifest they are about (split 2/62 as object paths).

    Returns:
        A repository path (POSIX, no trailing ``/``).
    """
    return f"{ATTESTATIONS_DIR}/sha256/{subject.hex[:2]}/{subject.hex[2:]}"


def is_attestation_path(path: str) -> bool:
    """Whether ``path`` is ``store/attestations/sha256/XX/REST/<64 hex>.json``.

    The one form an attestation file takes (the subject's digest split 2/62, then the
    sha256 of the file): anything else under ``store/attestations/`` would look reviewed
    while nothing reads it.
    """
    return _attestation_path().fullmatch(path) is not None


def digest_from_path(path: str) -> Digest | None:
    """Return the digest an object or metadata path names, or None for any other path.

    Accepts exactly the paths :func:`object_path` and :func:`metadata_path` produce.
    """
    found = _manifest_path().fullmatch(path)  # one match (an add asks it of every path)
    # The pattern admits 2 + 62 lowercase hex digits only: Digest's grammar, not checked
    # again (a bulk add of 100,000 asks ~2,200,000 paths; the second match was a third
    # of the call: docs/speed.md, bulk98).
    return Digest._checked(found[1] + found[2]) if found is not None else None


@functools.cache
def _manifest_path() -> re.Pattern[str]:
    """Return the pattern of an object or metadata path (compiled on first use).

    Its groups: the shard (2 hex) and the rest of the digest (62 hex).
    """
    return re.compile(
        rf"(?:{re.escape(OBJECTS_DIR)}|{re.escape(METADATA_DIR)})/([0-9a-f]{{2}})/([0-9a-f]{{62}})"
        rf"{re.escape(SUFFIX)}")


_HEX = frozenset("0123456789abcdef")


def is_shard_name(name: str) -> bool:
    """Return True for a shard directory's name: two lowercase hex digits (``38``).

    Anything else found in ``store/objects/sha256`` or ``store/metadata/sha256`` (a name
    that is not UTF-8, ``tmp``, ``XY``) holds no manifest: ``verify`` reports it as KI110
    path-outside-layout, and readers that list shards skip it.
    """
    return len(name) == 2 and name[0] in _HEX and name[1] in _HEX


def is_leaf_name(name: str) -> bool:
    """Return True for a manifest file's name in a shard: 62 lowercase hex digits + ``.json``."""
    return len(name) == 62 + len(SUFFIX) and name.endswith(SUFFIX) and \
        _HEX.issuperset(name[:62])


_NAME = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?")
"""``metadata.name`` (``schemas/common.json`` ``$defs/name``): lowercase letters, digits,
``-`` and ``.``, starting and ending with a letter or digit, at most 253 characters. No
``/``, no upper case: a name is one path component, and no two names are one file on a
case-insensitive file system."""

_KIND = re.compile(r"[A-Z][A-Za-z]{0,63}")
"""A kind as a path component (``BenchmarkRun``): which kinds exist is the schemas' to say
(:data:`kistore.core.schema.KINDS`), checked by ``verify``, not here (this module stays free
of the schema loader)."""


def is_name(name: object) -> bool:
    """Return True when ``name`` is a string a ``metadata.name`` may be (the schema's pattern)."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def name_shard(name: str) -> str:
    """Return the two hex digits that shard a name: the first byte of sha256 of its UTF-8.

    256 shards per kind, so that no git tree of the names grows past a few thousand
    entries at 1,000,000 runs (a tree is read whole to look one entry up).
    """
    return hashes.sha256(name.encode("utf-8")).hexdigest()[:2]


def name_path(kind: str, name: str) -> str:
    """Return ``store/names/<Kind>/<XX>/<name>``: the file that says who owns ``KIND/NAME``.

    The file holds exactly :func:`name_record` of the owning manifest's digest, as git keeps
    a ref as a file holding a commit id: a taken name is a path that exists, so a pull
    request can claim a name only by adding that path, and a second claim would modify it
    (refused, as any change to a names file is: KI208).

    Args:
        kind: the manifest's kind (``BenchmarkRun``).
        name: its ``metadata.name`` (:func:`is_name`).

    Raises:
        ValueError: ``kind`` or ``name`` cannot be a path component of the layout.
    """
    if _KIND.fullmatch(kind) is None or not is_name(name):
        raise ValueError(f"no names path for kind {kind!r} and name {name!r}")
    return f"{NAMES_DIR}/{kind}/{name_shard(name)}/{name}"


def name_from_path(path: str) -> tuple[str, str] | None:
    """Return ``(kind, name)`` for a path :func:`name_path` produces, else None.

    The shard must be the name's own (:func:`name_shard`); a kind is any capitalised word
    (whether the schemas know it is ``verify``'s question).
    """
    if not path.startswith(NAMES_DIR + "/"):
        return None
    parts = path[len(NAMES_DIR) + 1 :].split("/")
    if len(parts) != 3:
        return None
    kind, shard, name = parts
    if _KIND.fullmatch(kind) is None or not is_name(name) or shard != name_shard(name):
        return None
    return kind, name


def name_record(digest: Digest) -> bytes:
    """Return the exact bytes of a names file: ``sha256:<64 hex>`` and a newline."""
    return f"{digest}\n".encode("ascii")


_RECORD = re.compile(rb"sha256:[0-9a-f]{64}\n")


def digest_from_record(data: bytes) -> Digest | None:
    """Return the digest a names file's bytes hold, or None unless exactly :func:`name_record`.

    No other byte is allowed: no missing newline, no second line, no upper-case hex, no
    carriage return.
    """
    if _RECORD.fullmatch(data) is None:
        return None
    return Digest(data[7:71].decode("ascii"))


REFERENCE_FIELD_NAMES = ("workloadDigest", "protocolDigest", "environmentDigest",
                         "implementationDigest")
"""The reference fields of a BenchmarkRun's spec (:data:`kistore.core.model.REFERENCE_FIELDS`,
kept here too: this module imports nothing of the model). A test holds the two equal."""

@functools.cache
def _forward_path() -> re.Pattern[str]:
    """Return the pattern of a forward record's path (compiled on first use)."""
    return re.compile(
        re.escape(FORWARD_DIR) + r"/([0-9a-f]{2})/([0-9a-f]{62})/([0-9a-f]{64})")


def forward_dir(target: Digest) -> str:
    """Return ``store/forward/sha256/<XX>/<62 hex>``: the records of runs naming ``target``.

    Listing this one directory of a tree says which runs were added while ``target`` had
    no object (a lookup of two tree levels, never a read of every run).
    """
    return f"{FORWARD_DIR}/{target.hex[:2]}/{target.hex[2:]}"


def forward_path(target: Digest, run: Digest) -> str:
    """Return ``store/forward/sha256/<XX>/<62 hex of target>/<64 hex of run>``.

    The file that records that the run ``run`` references ``target`` while ``target`` has
    no object in the store (a dangling reference, ``add --allow-dangling``); it holds
    :func:`forward_record` of the run's fields that name ``target``. Written once, never
    changed or removed (also after ``target`` arrives), as a names file.

    Args:
        target: the referenced digest, absent from the store.
        run: the BenchmarkRun's digest.
    """
    return f"{forward_dir(target)}/{run.hex}"


def forward_from_path(path: str) -> tuple[Digest, Digest] | None:
    """Return ``(target, run)`` for a path :func:`forward_path` produces, else None."""
    match = _forward_path().fullmatch(path)
    if match is None:
        return None
    shard, rest, run = match.groups()
    return Digest(shard + rest), Digest(run)


def forward_record(fields: Iterable[str]) -> bytes:
    """Return the exact bytes of a forward record: the fields, sorted, one per line.

    Each line ends in ``\\n`` (``b"workloadDigest\\n"``).

    Raises:
        ValueError: no field, or one that is not a reference field of a run
            (:data:`REFERENCE_FIELD_NAMES`).
    """
    chosen = sorted(set(fields))
    if not chosen or not set(chosen) <= set(REFERENCE_FIELD_NAMES):
        raise ValueError(f"no forward record of fields {chosen!r}")
    return "".join(f"{f}\n" for f in chosen).encode("ascii")


def fields_from_record(data: bytes) -> tuple[str, ...] | None:
    """Return the fields a forward record's bytes list, or None unless well formed.

    Well formed: exactly :func:`forward_record` of them (sorted, distinct, each line ending
    in ``\\n``).
    """
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    fields = tuple(text.split("\n")[:-1])
    try:
        return fields if forward_record(fields) == data else None
    except ValueError:
        return None


@functools.cache
def _group_path() -> re.Pattern[str]:
    """Return the pattern of a group record's path (compiled on first use)."""
    return re.compile(
        re.escape(GROUPS_DIR) + r"/([0-9a-f]{2})/([0-9a-f]{62})/([0-9a-f]{64})")


def group_dir(key: Digest) -> str:
    """Return ``store/groups/sha256/<XX>/<62 hex>``: the runs of comparison group ``key``.

    Listing this one directory of a tree says which runs share the comparison key ``key``
    (:func:`kistore.core.comparison.comparison_key`): a run page or ranking in a blob-less
    clone lists it instead of reading every run.
    """
    return f"{GROUPS_DIR}/{key.hex[:2]}/{key.hex[2:]}"


def group_path(key: Digest, run: Digest) -> str:
    """Return ``store/groups/sha256/<XX>/<62 hex of key>/<64 hex of run>``.

    The file that says the run ``run`` is in the comparison group ``key``; it holds
    :func:`group_record` of the run's key object, so its sha256 is ``key`` and every
    member of one group shares one git blob. Written by the add that makes the run's key
    known (the run's own, or that of the protocol or environment it lacked), never changed
    or removed, as a names file.

    Args:
        key: the run's comparison key (the digest of its key object's canonical bytes).
        run: the BenchmarkRun's digest.
    """
    return f"{group_dir(key)}/{run.hex}"


def is_group_path(path: str) -> bool:
    """Whether ``path`` is exactly a path :func:`group_path` produces (no digest is built)."""
    return _group_path().fullmatch(path) is not None


def group_from_path(path: str) -> tuple[Digest, Digest] | None:
    """Return ``(key, run)`` for a path :func:`group_path` produces, else None."""
    match = _group_path().fullmatch(path)
    if match is None:
        return None
    shard, rest, run = match.groups()
    return Digest(shard + rest), Digest(run)


def group_record(key_object: dict[str, str]) -> bytes:
    """Return the exact bytes of a group file: the RFC 8785 canonical bytes of the key object.

    ``sha256sum`` of the file is the comparison key its directory names
    (:func:`kistore.core.comparison.comparison_key` of the same object), so a group file is
    checkable with coreutils, and every run of a group holds the same bytes (one blob).

    Args:
        key_object: a run's key object (:func:`kistore.core.comparison.key_object`): field
            name -> string value.

    Raises:
        CanonicalFormError: a value with no canonical form (never for a key object).
    """
    # Only writers and verify ask for a group file's bytes; this module is on every
    # command's start-up path, and canonical loads canonicaljson.
    # Lazy: canonical (canonicaljson) is not loaded by reads that never write a group file.
    from . import canonical

    return canonical.dumps(key_object)
