"""A range that lowers a limit: the stored files of ``HEAD`` past it (KI106, KI107).

Rules of a store hold over its whole history, and ``verify`` holds every stored file to the
limits of ``kistore.toml`` (:func:`kistore.check.audit.checking_limits`). A pull request
that lowers ``[limits] manifest-bytes``, ``string-length``, ``array-length`` or
``object-members`` below what a file already stored holds changed nothing under ``store/``,
so the gate's per-file checks (what the range adds or changes) saw nothing, and after the
merge every ``verify`` failed
(review 2026-12-02: 12,308 KI107 of a store whose string-length was lowered to 30).

:func:`lowered_limits` compares ``BASE``'s and ``HEAD``'s parsed ``[limits]``; only when
``HEAD`` lowers one of the four does it walk ``HEAD``'s object and metadata files, and
reports on each file past a lowered limit what ``verify`` would report after the merge.
The ordinary pull request reads ``kistore.toml`` once a revision (BASE's and HEAD's, each
read and parsed once by the gate and passed here: :class:`kistore.store.Settings`). The
walk reads each file's size from its blob's header (:func:`kistore.git.blobs.blob_size`),
never its bytes, and parses only a file long enough to hold a string, array or object past a
lowered limit (:func:`kistore.core.limits.may_pass`): lowering ``string-length`` to 30
parses most of a store, lowering it to 8,192 none of ``shared/data``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..core import layout
from ..core.findings import Finding
from ..core.limits import DEFAULT, Limits, file_too_large, may_pass
from ..git.blobs import blob_size, fetch_blobs, is_partial_clone, read_blob
from ..git.treediff import shard_leaves
from ..store import settings_place
from ._rules import (
    CHECKING_SETTINGS_INVALID,
    FILE_TOO_LARGE,
    check_metadata_bytes,
    check_object_bytes,
    check_value_limits,
)
from ._settings import settings_finding

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Settings, Store

LOWERABLE = ("manifest_bytes", "string_length", "array_length", "object_members")
"""The limits stored files are held to (``source_bytes`` bounds what ``import`` reads)."""

_UNBOUNDED = sys.maxsize
"""A limit no file reaches: the walk's value of each limit the range does not lower."""


def own_limits(store: Store, settings: Settings) -> tuple[Limits, list[Finding]]:
    """Return the checking repository's own limits, or the defaults and why when they fail.

    A gate's checking limits are the repository's that runs it (:func:`kistore.check.
    audit.checking_limits`): a server's are its HEAD's committed ``kistore.toml``. When
    they do not parse, refusing to check (as before) refused every push, the one fixing
    the file too, with an error that read as a complaint about the pushed commit (review
    r60 F6); and in CI, whose work tree is the range's HEAD, the gate could not run at all
    to report HEAD's KI108 (F1). So the gate checks with :data:`kistore.core.limits.DEFAULT`
    (still held to BASE's and HEAD's committed limits) and says so.

    Args:
        store: the checking repository.
        settings: its ``kistore.toml`` (:meth:`kistore.store.Store.settings` of None: a bare
            repository's is HEAD's), read once by the caller.

    Returns:
        ``(limits, [])`` when its settings parse; else ``(DEFAULT, findings)``: one KI109
        warning per problem, on ``kistore.toml``, naming whose file it is (the server's, or
        the work tree's) and the parse error.
    """
    limits = settings.valid_limits()
    if limits is not None:
        return limits, []
    if store.root is None or store.not_checked_out() is not None:
        whose = ("this repository's own kistore.toml (HEAD's: on a server, the server's "
                 "settings, not the pushed commit's)")
    else:
        whose = "the work tree's kistore.toml (the checking repository's own settings)"
    return DEFAULT, [settings_finding(
        CHECKING_SETTINGS_INVALID, f"{whose} does not parse: {p.message}; this check "
        "holds the range to the default limits (and to BASE's and HEAD's committed ones)",
        settings.data, p) for p in settings.limit_problems()]


def reads_settings_of(own: Settings, head: Settings) -> bool:
    """Whether the checking repository's ``kistore.toml`` holds the bytes ``head``'s does.

    CI checks a pull request from a checkout of it: its own settings are then the range's
    HEAD's, and HEAD's KI108 says all that :func:`own_limits`' KI109 would.

    Args:
        own: the checking repository's settings.
        head: the range's HEAD's.
    """
    if own.unreadable is not None or head.unreadable is not None:
        return False  # not a regular file: own_limits says so
    return own.data == head.data


def lowered(base: Limits | None, head: Limits | None) -> dict[str, tuple[int, int]]:
    """Return each stored-file limit ``head`` sets lower than ``base``: field -> (was, now).

    Args:
        base: BASE's limits (None, invalid: taken as the defaults).
        head: HEAD's limits (None, invalid: nothing is lowered; the settings are refused
            elsewhere, KI108).
    """
    if head is None:
        return {}
    base = base if base is not None else Limits()
    return {name: (getattr(base, name), getattr(head, name)) for name in LOWERABLE
            if getattr(head, name) < getattr(base, name)}


def lowered_limits(store: Store, head: str, changed: set[str], base_limits: Limits | None,
                   head_limits: Limits | None, head_settings: bytes | None) -> list[Finding]:
    """Return KI106/KI107 for each file of ``head`` past a limit the range lowers.

    Args:
        store: the store (a bare repository is fine).
        head: the range's HEAD commit id.
        changed: paths the range adds or changes (checked with the range's limits already,
            :func:`kistore.check.gate.check_range`; not walked again).
        base_limits: BASE's committed limits (:meth:`kistore.store.Settings.valid_limits`;
            None: invalid).
        head_limits: HEAD's committed limits (None: invalid).
        head_settings: the bytes of HEAD's ``kistore.toml`` (the caller read them once), for
            the line of a lowered key.

    Returns:
        Empty, without a walk, when HEAD's ``[limits]`` lowers none of ``manifest-bytes``,
        ``string-length``, ``array-length`` and ``object-members`` below BASE's. Otherwise
        per object or metadata file of HEAD (not in ``changed``): KI106 when its blob holds
        more bytes than a lowered ``manifest-bytes``; else KI107 per string, array or object
        past a lowered ``string-length``/``array-length``/``object-members``, at its JSON
        Pointer. Each message names the change of the limit; the hint (the rule's) says to
        keep the limit: a committed file is never deleted.

    Raises:
        StoreStateError: a partial clone could not fetch the blobs it needs (their sizes).
    """
    changes = lowered(base_limits, head_limits)
    if not changes:
        return []
    walk = Limits(**{name: changes[name][1] if name in changes else _UNBOUNDED
                     for name in LOWERABLE})
    repo = store.repo
    files = [(path, oid) for path, oid in _stored_files(repo, store.commit(head).tree)
             if path not in changed]
    sizes = {oid: blob_size(repo, oid) for _path, oid in files}
    missing = [oid for oid, size in sizes.items() if size is None]
    if missing and is_partial_clone(repo):  # one fetch, then their headers
        fetch_blobs(repo, missing)
        sizes.update((oid, blob_size(repo, oid)) for oid in missing)
    said = {name: f"kistore.toml lowers {name.replace('_', '-')} from {was:,} to {now:,} "
            f"in this range" for name, (was, now) in changes.items()}
    findings: list[Finding] = []
    for path, oid in files:
        size = sizes[oid]
        if size is None:  # not even the promisor remote has it: the contents check says so
            continue
        if size > walk.manifest_bytes:
            findings.append(Finding(
                FILE_TOO_LARGE, f"{said['manifest_bytes']}: "
                f"{file_too_large(size, walk.manifest_bytes)}", file=path,
                expected=f"at most {walk.manifest_bytes:,} bytes", found=f"{size:,} bytes",
                extra={"limit": "manifest-bytes", "was": changes["manifest_bytes"][0]}))
            continue
        if not may_pass(size, walk):
            continue
        data = read_blob(repo, oid)
        parse = check_object_bytes if path.startswith(layout.OBJECTS_DIR + "/") \
            else check_metadata_bytes
        value = parse(path, data).value
        if value is None:  # not JSON: verify says so (KI102), already at BASE
            continue
        for finding in check_value_limits(path, value, size, walk):
            name = finding.extra["limit"].replace("-", "_")
            findings.append(Finding(
                finding.rule, f"{said[name]}: {finding.message}", file=path,
                pointer=finding.pointer, extra={**finding.extra, "was": changes[name][0]}))
    return findings + _on_settings(head_settings, findings, said, changes)


def _on_settings(data: bytes | None, findings: list[Finding], said: dict[str, str],
                 changes: dict[str, tuple[int, int]]) -> list[Finding]:
    """Return one finding on ``kistore.toml`` per lowered limit that stored files pass.

    The files' findings are on object and metadata files (with no line: a JSON Pointer);
    the change to undo is in ``kistore.toml`` (``check --format github`` annotated nothing
    there). Each is the files' rule (KI106, KI107: an error, as theirs), at JSON Pointer
    ``/limits/KEY`` and the line of that key in HEAD's ``kistore.toml`` when it is found
    (:func:`kistore.store.settings_place`: a line-wise look, not a TOML parse: the file parsed
    already, or the range would be KI108).

    Args:
        data: the bytes of HEAD's ``kistore.toml``.
        findings: the files' findings (:func:`lowered_limits`).
        said: per lowered field, how its message begins (``kistore.toml lowers ...``).
        changes: per lowered field, (was, now).
    """
    past: dict[str, tuple[Finding, set[str]]] = {}
    for finding in findings:
        key = finding.extra["limit"]
        past.setdefault(key, (finding, set()))[1].add(finding.file or "")
    if not past:
        return []
    out = []
    for key, (first, files) in sorted(past.items()):
        name = key.replace("-", "_")
        what = "more bytes than it" if first.rule is FILE_TOO_LARGE else "a value past it"
        out.append(Finding(
            first.rule, f"{said[name]}: {len(files):,} stored file(s) hold {what}, each "
            f"reported ({first.rule.id})", file=layout.SETTINGS_FILE, pointer=f"/limits/{key}",
            line=settings_place(data, f"/limits/{key}", "")[0],
            extra={"limit": key, "was": changes[name][0], "files": len(files)}))
    return out


def _stored_files(repo: pygit2.Repository, tree: pygit2.Tree) -> list[tuple[str, str]]:
    """Return (path, blob id) of every object and metadata file of ``tree``, by tree walk."""
    found = []
    for top in (layout.OBJECTS_DIR, layout.METADATA_DIR):
        # a file where the folder should be yields nothing: KI110, not a stored file
        found += [(path, str(leaf.id)) for path, leaf in shard_leaves(repo, tree, top)
                  if leaf.type_str == "blob"]
    return found
