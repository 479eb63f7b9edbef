"""Names as paths: each taken ``KIND/NAME`` is a file of the tree, and it agrees with the metadata.

A manifest's name is recorded in the store itself, at
:func:`kistore.core.layout.name_path` (``store/names/<Kind>/<XX>/<name>``), holding exactly
``sha256:<64 hex>\\n`` of the manifest that owns it (docs/design.md §3). A taken name is then
a path that exists, so a question about one name is a lookup of one path in a git tree, and
a second claim on a name changes a committed file (refused as any change to a names file
is: KI208, :func:`kistore.check.lineage.names_kept`).

This module holds the two rules that keep the names files and the metadata in step; both
are pure (the caller reads the files), and their loop, both ways, is the forward records'
too (:func:`kistore.check._both_ways.check_both_ways`):

* KI211 ``name-path-missing``: a manifest whose names file is absent or holds another digest;
* KI212 ``name-path-disagrees``: a names file that is not ``sha256:<hex>\\n``, or whose digest
  has no metadata file, or whose manifest has another kind or name than the path says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

from ..core import layout
from ..core.digest import Digest
from ..core.findings import ERROR, Finding, rule
from ..core.schema import KINDS
from ._both_ways import ABSENT, Absent, check_both_ways

NAME_PATH_MISSING = rule(
    "KI211", "name-path-missing", ERROR,
    "every manifest's name is a file store/names/KIND/XX/NAME holding its digest: run "
    "`kistore migrate` (`--commit` to commit what it writes), or add the manifest again with "
    "`kistore add`; if the file names another manifest, this one's name is taken (KI205): "
    "give it another metadata.name")
NAME_PATH_DISAGREES = rule(
    "KI212", "name-path-disagrees", ERROR,
    "a names file holds exactly `sha256:<64 hex>` and a newline, the digest of the manifest "
    "of that kind whose metadata.name is the file's name: remove a names file no manifest "
    "owns (a name cannot be claimed without its manifest; one no commit holds, left by an "
    "add killed before its object: `kistore drop KIND/NAME`), restore one changed by hand "
    "(`git checkout HEAD -- PATH`)")


class Named(NamedTuple):
    """One manifest as the names rules see it.

    Attributes:
        hex: its digest's 64 hex digits.
        kind: the object's kind, or None when the object is missing or holds none.
        name: ``metadata.name``, or None when the metadata is missing or holds no string.
        has_object: an object file exists.
        has_metadata: a metadata file exists.
    """

    hex: str
    kind: str | None
    name: str | None
    has_object: bool
    has_metadata: bool


_PREFIX = layout.NAMES_DIR + "/"


def is_names_path(path: str) -> bool:
    """Whether ``path`` lies under ``store/names/`` (in the layout or not)."""
    return path.startswith(_PREFIX)


def names_path_in_layout(path: str) -> bool:
    """Whether ``path`` is a names file the layout has: a known kind, a valid name, its shard."""
    parsed = layout.name_from_path(path)
    return parsed is not None and parsed[0] in KINDS


def owned_path(m: Named) -> str | None:
    """Return the names path a manifest must have, or None without a valid kind and name.

    Only a manifest with both its files, a known kind and a name the schema allows has one
    (the other cases are KI203, KI204, KI102 or KI104).
    """
    if not (m.has_object and m.has_metadata) or m.kind not in KINDS or \
            not layout.is_name(m.name):
        return None
    return layout.name_path(m.kind, m.name)  # type: ignore[arg-type]


def check_names_files(manifests: Iterable[Named], present: Iterable[str],
                      read: Callable[[str], bytes | None], *,
                      focus: Callable[[str], bool] | None = None,
                      focus_digests: set[str] | None = None,
                      confirmed: Mapping[str, str] | None = None) -> list[Finding]:
    """KI211 and KI212 over one tree: names files and manifests must agree, both ways.

    Args:
        manifests: every manifest of the tree (digest hex, kind, name, which files exist);
            one of ``confirmed`` may be left out unless a names file outside ``confirmed``
            holds its digest (the rules ask nothing else of it).
        present: every names path of the tree that is in the layout
            (:func:`names_path_in_layout`), regular file or not; those of ``confirmed`` may
            be left out (they are present).
        read: the bytes of a names path, or None when it is no regular file (a symlink is
            KI111 already); the only I/O, called at most once per path.
        focus: report only about names paths this is true of, and about the manifests of
            ``focus_digests`` (a gate); None: everything.
        focus_digests: with ``focus``, the hex digests whose manifests the range touches.
        confirmed: names path -> hex digest, for paths the caller found to be
            :func:`owned_path` of that manifest (in ``manifests``) and a regular file holding
            exactly :func:`kistore.core.layout.name_record` of it (``verify``'s workers
            read them). Neither rule can find anything about such a path or such a
            manifest, so they are not read or judged again. None: none.

    Returns:
        KI212 per names file that is not ``sha256:<hex>\\n``, whose digest has no metadata
        file, or whose manifest is of another kind or has another name than the path; KI211
        per manifest whose names path is absent, or holds another manifest's digest.
    """
    by_hex: dict[str, Named] = {}
    for m in manifests:
        by_hex[m.hex] = m
    confirmed = confirmed or {}
    confirmed_hexes = set(confirmed.values())

    def needs() -> Iterator[tuple[str, str, tuple[str, Named]]]:
        for m in by_hex.values():
            if m.hex in confirmed_hexes:
                continue  # its names path holds its record
            path = owned_path(m)
            if path is not None:
                yield path, m.hex, (path, m)

    return check_both_ways(
        present, read, layout.digest_from_record,
        lambda path, data, owner: name_disagreement(path, data, owner, by_hex), needs(), _lacks,
        focus=focus, focus_digests=focus_digests, settled=confirmed)


def name_disagreement(path: str, data: bytes, owner: Digest | None,
                      by_hex: Mapping[str, Named]) -> Finding | None:
    """KI212 for one names file, or None when it agrees.

    Args:
        path: the names file's path (in the layout: its kind and name are read from it).
        data: its bytes.
        owner: the digest they hold (:func:`kistore.core.layout.digest_from_record`), or
            None when they are no record.
        by_hex: the manifests the rule may ask about, by hex digest (``owner``'s at least,
            when it has one: absent, it has no metadata file).

    Returns:
        The finding, or None. Pure; raises nothing.
    """
    kind, name = layout.name_from_path(path) or ("", "")
    if owner is None:
        return Finding(NAME_PATH_DISAGREES, "a names file holds exactly one digest and a "
                       "newline", file=path, expected="sha256:<64 lowercase hex>\\n",
                       found=_shown(data))
    m = by_hex.get(owner.hex)
    if m is None or not m.has_metadata:
        return Finding(NAME_PATH_DISAGREES, f"claims {kind}/{name} for {owner}, which has no "
                       "metadata file: a name is taken only by a manifest", file=path,
                       expected=f"{layout.metadata_path(owner)}", found="no such file",
                       extra={"owner": str(owner)})
    if m.kind is None and m.has_object:
        # The object was not read, or holds no kind: past [limits] (KI106), not JSON, not
        # of the schema. Its own finding says so; only the metadata's name can be judged.
        if m.name is None or m.name == name:
            return None
        found = f"(object not read)/{m.name}"
    elif m.name is None:
        # The metadata file was not read or holds no name: past [limits] (KI106), not
        # JSON (KI102), of no schema (KI104). Its own finding says so; a KI212 "which is
        # KIND/(no name)" after it was a cascade (review 2026-12-02 F17).
        return None
    elif m.kind is not None and (m.kind, m.name) != (kind, name):
        found = f"{m.kind}/{m.name}"
    else:
        return None
    return Finding(
        NAME_PATH_DISAGREES, f"claims {kind}/{name} for {owner}, which is {found}",
        file=path, expected=f"{kind}/{name}", found=found, extra={"owner": str(owner)})


def _lacks(need: tuple[str, Named], owner: Digest | None | Absent) -> Finding | None:
    """KI211 for a manifest (and its names path) whose file is absent or holds ``owner``.

    None when the file holds this manifest's digest, or no digest (KI212 says so).
    """
    path, m = need
    metadata = layout.metadata_path(Digest(m.hex))
    if owner is ABSENT:
        return Finding(
            NAME_PATH_MISSING, f"{m.kind}/{m.name} has no names file {path}",
            file=metadata, pointer="/name", expected=f"{path} holding sha256:{m.hex}",
            found="no such file", extra={"names_path": path})
    if owner is not None and owner.hex != m.hex:
        return Finding(
            NAME_PATH_MISSING, f"{m.kind}/{m.name} is taken: {path} names {owner}, "
            "not this manifest", file=metadata, pointer="/name",
            expected=f"sha256:{m.hex}", found=str(owner),
            extra={"names_path": path, "owner": str(owner)})
    return None


def _shown(data: bytes, width: int = 80) -> str:
    """Show a names file's bytes as a short Python literal (``b'sha256:ab..\\r\\n'``)."""
    shown = repr(data[:width])
    return shown + (f" ... ({len(data)} bytes)" if len(data) > width else "")
