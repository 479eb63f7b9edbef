"""Pure checks on stored bytes and paths: each returns findings, none raises or does I/O.

This module owns the rules ``kistore verify`` and ``kistore check`` apply to what they
read (docs/design.md §4): an object file's SHA-256 equals its name, its bytes are the RFC 8785
canonical form, it parses strictly and validates against its kind's schema together with
its metadata file, paths stay inside the layout, and the cross-file rules (metadata paired
with objects, names unique per kind, references resolved). It knows nothing of git or the
disk: :mod:`kistore.check.audit` reads files and feeds them here, :mod:`kistore.check._history`
checks the history of objects, and :mod:`kistore.check.gate` adds the rules about a pull
request's commit range.

Rule ids are stable (``docs/rules.md``): KI1xx bytes and paths, KI2xx references,
metadata and names, KI3xx attestations (elsewhere), KI4xx history and the gate.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from operator import itemgetter
from typing import Any, NamedTuple

from ..core import canonical, canonical_fast, layout
from ..core.boards import (
    BOARD_DISAGREES,
    BOARD_DISAGREES_STORED,
    Board,
    board_disagreements,
    board_finding_at,
    board_message,
    board_of,
    metadata_fields,
    with_implementation,
)
from ..core.claims import WITHDRAW_FIRST, Claim, claim_of, may_claim
from ..core.contradictions import (
    LATENCY_FLOOR_NS,
    LATENCY_UNITS_DISAGREE,
    implausible_latencies,
    latency_units_disagree,
    run_contradictions,
)
from ..core.digest import Digest, is_digest, one_slip_away, slip_said
from ..core.errors import CanonicalFormError, ParseError, one_line, shorten, with_article
from ..core.findings import ERROR, WARNING, Finding, Rule, rule
from ..core.git_names import name_key, name_keys
from ..core.limits import Limits, long_value_message, long_values, may_pass
from ..core.model import REFERENCE_FIELDS, REFERENCE_KINDS, wrong_kind, wrong_kind_answer
from ..core.naming import external_id_disagreement
from ..core.provenance import unproven_claim
from ..core.restore import metadata_advice
from ..core.schema import (
    KINDS,
    check_manifest,
    fast_validator,
    in_metadata_file,
    reserved_on_windows,
)
from ..core.statistics import (
    LATENCY_POINTER,
    RUN_POINTER,
    STATISTIC_DISAGREES,
    STATISTIC_UNSTATED,
    disagreement,
    latency_names,
    statistic_of,
    unstated,
)
from ..core.statistics import named as named_manifest
from ..core.text_fields import identifying_problems, line_break_said
from ..store.labels import prints_as_nothing
from ._fixes import HINT_BASE, Base
from ._mixed_authors import blank_author_findings

OBJECT_DIGEST_MISMATCH = rule(
    "KI101", "object-digest-mismatch", ERROR,
    "restore the object's original bytes from git (`git checkout HEAD -- PATH`), or, for an "
    "object never committed (a plain `kistore add`), `kistore drop DIGEST` and add the "
    "corrected manifest again; objects are never edited: add a new manifest instead")
JSON_PARSE_ERROR = rule(
    "KI102", "json-parse-error", ERROR,
    "restore the file from git, or re-add the manifest with `kistore add`")
NOT_CANONICAL = rule(
    "KI103", "bytes-not-canonical", ERROR,
    "write stored files only with `kistore add`, which writes RFC 8785 canonical bytes")
SCHEMA_INVALID = rule(
    "KI104", "schema-invalid", ERROR,
    "fix the manifest so it validates against schemas/KIND.json and add it again")
METADATA_CHANGED = (
    "a metadata file changed after kistore wrote it (the object is not at fault: metadata is "
    "kept beside it, not derived from it, so no command rebuilds it): ")
"""How :data:`METADATA_FIX` and :func:`range_metadata_fix` begin."""
METADATA_FIX = METADATA_CHANGED + metadata_advice("PATH")
"""The fix of KI102, KI103 and KI104 on a metadata file (msg94 F14: KI104's "add it again"
and KI103's "write stored files only with `kistore add`" said nothing a person could do):
both repairs, each with when it works. ``verify`` says the one that works
(:data:`METADATA_RESTORE` or :data:`METADATA_REWRITE`, :mod:`._metadata_fix`); the gate
:func:`range_metadata_fix`."""
METADATA_RESTORE = METADATA_CHANGED + metadata_advice("PATH", head_sound=True)
"""KI102-KI104's fix on a work-tree metadata file HEAD holds other bytes of that parse."""
METADATA_REWRITE = METADATA_CHANGED + metadata_advice("PATH", head_sound=False)
"""KI102-KI104's fix on a metadata file no checkout of HEAD repairs (HEAD holds it so, or
no such file, or the file was read from a commit)."""


def range_metadata_fix(path: str, base: Base, base_bytes: bytes | None) -> str:
    """Return the gate's :data:`METADATA_FIX` of ``path``: restore it from BASE, or rewrite it.

    In a range HEAD is the commit holding the bad bytes, so :data:`METADATA_FIX`'s
    ``git checkout HEAD -- PATH`` restores nothing (last97 1d): BASE's version, when
    kistore would have written it (strict, canonical JSON), is the one to check out and
    commit; else the file is written again.

    Args:
        path: the metadata file's repository path.
        base: the range's BASE (:class:`._fixes.Base`: its id, or ``HEAD`` in the
            pre-commit hook, whose checkout restores the staged file too).
        base_bytes: BASE's bytes at ``path``; None: BASE has no such file.

    Returns:
        The fix, one sentence. Raises nothing.
    """
    if base_bytes is None or check_metadata_bytes(path, base_bytes).findings:
        return METADATA_CHANGED + metadata_advice(path, committed=True)
    if base.checked_out:
        return METADATA_CHANGED + metadata_advice(path, head_sound=True)
    return (f"{METADATA_CHANGED}BASE ({base.id[:12]}) holds it as kistore wrote it: restore "
            f"it with {base.checkout(path)} and commit it")
CRLF_LINE_ENDS = rule(
    "KI105", "crlf-line-ends", ERROR,
    "a line-ending conversion rewrote stored bytes: keep `store/** -text -eol ...` in "
    ".gitattributes, unset core.autocrlf, and restore the file from git")
FILE_TOO_LARGE = rule(
    "KI106", "file-too-large", ERROR,
    "a committed file stays (objects are never deleted, KI402): keep [limits] "
    "manifest-bytes of kistore.toml at least its size (1 MiB by default; raise it again "
    "where a change lowered it)")
VALUE_TOO_LONG = rule(
    "KI107", "value-too-long", ERROR,
    "a committed file stays (objects are never deleted, KI402): keep [limits] string-length "
    "(65,536 characters by default), array-length (10,000 items) or object-members (1,000 "
    "members) of kistore.toml at least this value's size (raise it again where a change "
    "lowered it)")
SETTINGS_INVALID = rule(
    "KI108", "settings-invalid", ERROR,
    "fix kistore.toml: [limits] takes only manifest-bytes, string-length, array-length, "
    "object-members and source-bytes, each a positive integer (leave a key out for its "
    "default); until then `add` and `import` refuse the store, while queries (with a "
    "warning) and `verify` read each bad key as its default and go on")
CHECKING_SETTINGS_INVALID = rule(
    "KI109", "checking-settings-invalid", WARNING,
    "fix kistore.toml of the repository that runs the check (a server's: HEAD's, which a "
    "push that fixes it to that branch does, as the check lets one land); until then the "
    "gate holds ranges to the default limits and to BASE's and HEAD's committed ones")
NEW_FILE_TOO_LARGE = (
    "the change adds or edits this file: leave the file or the edit out of the change "
    "(`kistore add` refuses such a manifest), or raise [limits] {key} of kistore.toml in a "
    "reviewed change of its own if the size is meant")
"""The fix of KI106/KI107 on a file a range adds or edits, not yet committed to BASE
(:attr:`kistore.core.findings.Finding.fix`; ``{key}``: the limit's kistore.toml key)."""
PATH_OUTSIDE_LAYOUT = rule(
    "KI110", "path-outside-layout", ERROR,
    "move or remove the file: under store/ only objects/sha256/XX/REST.json, "
    "metadata/sha256/XX/REST.json, names/KIND/XX/NAME (XX: sha256 of the name), "
    "forward/sha256/XX/REST/<64 hex of a run>, groups/sha256/XX/REST/<64 hex of a run>, "
    "attestations/sha256/XX/REST/<sha256>.json, trust/keys.json and policy/ranking.json are "
    "allowed")
NOT_A_REGULAR_FILE = rule(
    "KI111", "not-a-regular-file", ERROR,
    "replace the symlink or submodule under store/ by a regular file, or remove it")
PATH_CASE_COLLISION = rule(
    "KI112", "path-case-collision", ERROR,
    "rename or remove one of the paths: they collide on case-insensitive file systems")
EXECUTABLE_FILE = rule(
    "KI114", "file-mode-executable", ERROR,
    "store files are data: `git update-index --chmod=-x PATH` (or `chmod -x`) and commit; "
    "only mode 100644 is allowed under store/")
GIT_OBJECT_UNREADABLE = rule(
    "KI117", "git-object-unreadable", ERROR,
    "the repository is damaged: run `git fsck` to list every damaged object, then restore "
    "them from another clone or the remote (clone again and copy your unpushed work over, "
    "or copy the object's pack or loose file from a clone that has it, then move a damaged "
    "pack, its .pack and .idx, out of .git/objects/pack/: git still reads it otherwise)")
REFERENCE_UNRESOLVED = rule(
    "KI201", "reference-unresolved", WARNING,
    "add the referenced manifest to the store; until then the run is recorded as dangling")
REFERENCE_WRONG_KIND = rule(
    "KI202", "reference-wrong-kind", ERROR,
    "point the field at a manifest of the kind it names (workloadDigest -> Workload, ...) in "
    "a run not yet merged (a new run object); a run already on the remote's main never "
    "changes: the manifest of the wrong kind came after it (two pull requests merged, one "
    "push of both), so leave the manifest the field names out of the pull request that "
    "brings it")
METADATA_WITHOUT_OBJECT = rule(
    "KI203", "metadata-without-object", ERROR,
    "add the object the metadata belongs to (`kistore add`), or remove the metadata file")
OBJECT_WITHOUT_METADATA = rule(
    "KI204", "object-without-metadata", ERROR,
    "restore the metadata file from git, or re-add the manifest with `kistore add`; an "
    "uncommitted leftover of a killed add goes with `kistore drop DIGEST`")
NAME_NOT_UNIQUE = rule(
    "KI205", "name-not-unique", ERROR,
    "names never move (KI208): the pull request adding the later manifest gives it another "
    "metadata.name before it lands (rewrite its commits); restore a hand-edited metadata "
    "file with `git checkout HEAD -- FILE`")

NAME_DISAGREES_WITH_SOURCE = rule(
    "KI209", "name-disagrees-with-source", ERROR,
    "name an imported run as its importer does, from its source's external id "
    "(spec.sourceNative.externalId), or fix the external id")

RUN_CONTRADICTS_ITSELF = rule(
    "KI222", "run-status-contradicts-itself", ERROR,
    "state the status the run's correctness check and its source found (`incorrect` for a "
    "numerical mismatch), or correct correctness.passed or sourceNative.status; objects are "
    "never edited: add the corrected run as a new object (a stored one is left out of "
    "rankings)")
METRIC_OUT_OF_RANGE = rule(
    "KI223", "metric-out-of-range", ERROR,
    "state the metric as its source published it, on its source's scale; objects are never "
    "edited: add the corrected run as a new object (a stored one is left out of rankings)")
METRIC_KEYS_DIFFER_IN_CASE = rule(
    "KI224", "metric-keys-differ-only-in-case", ERROR,
    "keep one spelling of each metric key (the source's own); objects are never edited: add "
    "the corrected run as a new object (a stored one is left out of rankings)")
LATENCY_STATISTICS_CONTRADICT = rule(
    "KI228", "latency-statistics-contradict", ERROR,
    "state the latency statistics as the trials gave them (min <= every statistic <= max, "
    "percentiles in order, p50 and median one value, a std no more than min, max and "
    "timing.trials allow; of one trial, every statistic its one latency and std 0): a unit "
    "or field mixed up (ms written as ns, min and max swapped) is the usual cause; objects "
    "are never edited: add the corrected run as a new object (a stored one is left out of "
    "rankings)")
LATENCY_BELOW_FLOOR = rule(
    "KI230", "latency-below-floor", WARNING,
    "state timing.latencyNs in nanoseconds (a 0.42 ms kernel is 420000, not 0.42); objects "
    f"are never edited: add the corrected run as a new object{WITHDRAW_FIRST}. A kernel "
    f"truly measured under {LATENCY_FLOOR_NS} ns: say how in the pull request (the run is "
    "ranked as stated)")
SOURCE_CLAIM_UNPROVEN = rule(
    "KI226", "source-claim-unproven", ERROR,
    "a run you measured yourself names no source, or its own: nothing spelling "
    "'kernelbench' (any case, separators, additions: 'kernelbench-v2' claims it too) in "
    "spec.sourceNative.source, nor in the kernelindex.dev/source, upstream, source-file or "
    "source-url annotations; KernelBench's data comes in with `kistore import kernelbench`. "
    "Objects are never edited: add the corrected run as a new object (a stored one is left "
    "out of rankings); a claim in the metadata only: `kistore add --update-metadata`")
CITED_TEXT_BREAKS_LINE = rule(
    "KI219", "cited-text-breaks-line", WARNING,
    "write the title (an implementation's author) on one line: a citation prints it within "
    "one line, where kistore shows a line break as an escape (\\n); change metadata.title with "
    "`kistore add --update-metadata` (an author is in the object: add a corrected "
    "implementation as a new object)")
_CONTRADICTION_RULES = {"KI222": RUN_CONTRADICTS_ITSELF, "KI223": METRIC_OUT_OF_RANGE,
                        "KI224": METRIC_KEYS_DIFFER_IN_CASE,
                        "KI228": LATENCY_STATISTICS_CONTRADICT}

ALLOWED_FILES = frozenset({layout.TRUST_FILE, layout.POLICY_FILE})
"""The only files of ``store/trust/`` and ``store/policy/``: kistore reads no other name
there, so another file (``policy/other.json``, ``trust/keys2.json``, a ``ranking.json/``
directory) would look reviewed while nothing honours it."""

FILE_MODES = {0o100644, 0o100755}
"""Git file modes of a regular file; a symlink is 0o120000, a submodule 0o160000."""

REGULAR = 0o100644
"""The one file mode allowed under ``store/`` (0o100755, executable, is KI114)."""

SPECIAL = 0o010000
"""The mode a work tree's FIFO, socket or device reads as (:data:`kistore.store._views.
SPECIAL_FILE`): never opened, and git cannot commit one."""

_MODE_NAMES = {0o120000: "a symlink", 0o160000: "a submodule (gitlink)", 0o040000: "a directory",
               SPECIAL: "a FIFO, socket or device"}

_SPECIAL_FIX = ("remove the FIFO, socket or device (`rm {path}`): kistore never opens it (a "
                "FIFO waits for a writer for ever) and git cannot commit one; put a regular "
                "file there if one was meant")
"""KI111's fix for a work tree's FIFO, socket or device (fresh12 F13: the rule's own fix
spoke of a symlink or submodule); ``{path}``: the path, quoted for a shell."""


def _special_fix(path: str) -> str:
    """Return :data:`_SPECIAL_FIX` for ``path`` (a repository path)."""
    # Lazy: a FIFO under store/ is rare; `verify`'s start-up does not pay for shlex.
    import shlex

    return _SPECIAL_FIX.format(path=shlex.quote(path))

_HASHED_KEYS = {"apiVersion", "kind", "spec"}


def check_layout_path(path: str, mode: int = 0o100644) -> list[Finding]:
    """Check that a path under ``store/`` is a regular file where the layout allows one.

    Args:
        path: repository path (POSIX), e.g. ``store/objects/sha256/38/4a96....json``.
        mode: git file mode (``0o100644`` regular, ``0o120000`` symlink, ``0o160000``
            submodule); work-tree readers map ``lstat`` to the same numbers.

    Returns:
        KI111 for a symlink or submodule, KI114 for an executable file (100755), KI110 for a
        path the layout (docs/design.md §3) does not have (under ``store/attestations/`` only
        :func:`kistore.core.layout.is_attestation_path` paths, under ``store/names/`` only
        :func:`kistore.core.layout.name_path` paths of a known kind, under ``store/forward/``
        only :func:`kistore.core.layout.forward_path` paths, under ``store/groups/`` only
        :func:`kistore.core.layout.group_path` paths). Paths outside ``store/``
        are not the store's business and yield nothing.
    """
    if not (path + "/").startswith(layout.STORE_DIR + "/"):  # store/ itself counts too
        return []
    findings = []
    if mode == 0o100755:
        findings.append(Finding(EXECUTABLE_FILE, "an executable file (mode 100755) under store/",
                                file=path, expected="100644", found="100755"))
    elif mode not in FILE_MODES:
        what = _MODE_NAMES.get(mode, f"mode {mode:o}")
        findings.append(Finding(NOT_A_REGULAR_FILE, f"{what} under store/", file=path,
                                expected="a regular file", found=what,
                                fix=_special_fix(path) if mode == SPECIAL else None))
    if not _in_layout(path):
        findings.append(Finding(PATH_OUTSIDE_LAYOUT, _outside_said(path, mode), file=path))
    return findings


_LAYOUT_DIRECTORY = re.compile(r"store/(objects|metadata|attestations|groups)(/sha256(/"
                               r"([0-9a-f]{2})(/[0-9a-f]{62})?)?)?")
"""A directory of the layout's object, metadata, attestation and group files (a shard's
too): a file at its path (``store/metadata/sha256/61`` a blob) is KI110 of its own words."""


def _outside_said(path: str, mode: int = 0o100644) -> str:
    """Return KI110's message for ``path``, a path the layout does not have.

    A file at the path of one of the layout's directories (fresh06 L3: a shard directory
    replaced by a file was told about a killed ``kistore add``'s temporary file) says what
    the directory holds, and what is there when it is no regular file (fresh17 F10: a FIFO
    at ``store/groups/sha256/4f``, a symbolic link at ``store/names``, were "not a path of
    the store layout ... a .NAME.PID.N.tmp file ..."); any other, the generic words. Raises
    nothing.

    Args:
        path: the repository path.
        mode: its git mode (as :func:`check_path_mode`'s).
    """
    directory = _LAYOUT_DIRECTORY.fullmatch(path)
    if path == layout.NAMES_DIR:
        held = "every one of the store's names files"
    elif directory is None:
        return ("not a path of the store layout: move or remove it (a .NAME.PID.N.tmp file "
                "is a temporary file of a killed `kistore add`: delete it, or the next add "
                "into its directory removes it)")
    else:
        held = _held_below(directory)
    if mode in FILE_MODES or mode not in _MODE_NAMES:
        what, remove = "a file", f"remove the file (`git rm {path}`)"
    else:  # a FIFO cannot be committed: the work tree's own
        what = _MODE_NAMES[mode]
        remove = f"remove it (`rm {path}`, or `git rm {path}` if it is committed)"
    return (f"{what} where the store layout has a directory: {path}/ holds {held}, and "
            f"{what} in its place leaves each of them missing: {remove} and put the "
            f"directory back (`git checkout COMMIT -- {path}`, COMMIT a commit that holds it)")


def _held_below(directory: re.Match[str]) -> str:
    """Return what a :data:`_LAYOUT_DIRECTORY` directory holds, in KI110's words."""
    files = {"objects": "object files", "metadata": "metadata files",
             "attestations": "attestation files", "groups": "group files"}[directory.group(1)]
    if directory.group(5):
        about = "of the comparison group" if directory.group(1) == "groups" else "about the object"
        return f"the {files} {about} sha256:{directory.group(4)}{directory.group(5)[1:]}"
    if directory.group(4):
        return f"the {files} of the digests starting {directory.group(4)}"
    return f"every one of the store's {files}"


def _in_layout(path: str) -> bool:
    if path in ALLOWED_FILES or layout.is_attestation_path(path):
        return True
    if path.startswith(_NAMES_PREFIX):
        parsed = layout.name_from_path(path)
        return parsed is not None and parsed[0] in KINDS
    if path.startswith(_FORWARD_PREFIX):
        return layout.forward_from_path(path) is not None
    if path.startswith(_GROUPS_PREFIX):
        return layout.group_from_path(path) is not None
    digest = layout.digest_from_path(path)
    return digest is not None and path in (layout.object_path(digest),
                                           layout.metadata_path(digest))


_NAMES_PREFIX = layout.NAMES_DIR + "/"
_FORWARD_PREFIX = layout.FORWARD_DIR + "/"
_GROUPS_PREFIX = layout.GROUPS_DIR + "/"


def check_case_collisions(paths: Iterable[str]) -> list[Finding]:
    """Find paths under ``store/`` that are one file on a case-insensitive file system.

    Case-insensitive or normalising (macOS, Windows): ``Foo.json`` and ``foo.json``;
    ``é`` as NFC and as NFD.

    Args:
        paths: every repository path of one tree.

    Returns:
        One KI112 finding per path that collides with an earlier one (in sorted order),
        naming both.
    """
    paths = list(paths)
    if len(set(name_keys(paths))) == len(set(paths)):
        return []  # no two differ only in case (sorting 40,000 paths cost 3x this test)
    seen: dict[str, str] = {}
    findings = []
    for path in sorted(paths):
        if not path.startswith(layout.STORE_DIR + "/"):
            continue
        key = name_key(path)
        first = seen.setdefault(key, path)
        if first != path:
            findings.append(Finding(
                PATH_CASE_COLLISION, f"collides with {first} on a case-insensitive or "
                "normalising file system (macOS, Windows)",
                file=path, extra={"collides_with": first}, fix=_copy_fix(path, first)))
    return findings


def _copy_fix(path: str, other: str) -> str | None:
    """Return the fix of a case pair under ``store/`` one path of which the layout lacks.

    Every name under ``store/`` is the layout's (a digest, a kind, a name's shard, a
    ``metadata.name``, all in lower case), so renaming either path is no fix: the one the
    layout lacks (KI110 names it too) is a copy, and goes; the other is the stored file
    (a names file's name is the ``metadata.name`` it records, low01). None (the rule's own
    fix, rename or remove one) when both or neither are the layout's.
    """
    laid = [p for p in (path, other) if _in_layout(p)]
    if len(laid) != 1:
        return None
    [kept] = laid
    copy = other if kept == path else path
    what = ("a names file's name is the metadata.name it records"
            if kept.startswith(_NAMES_PREFIX) else "every name under store/ is the layout's")
    return (f"remove {copy}, the path the layout does not have (KI110), and keep {kept}: "
            f"{what}, in lower case, so renaming either is no fix; nothing else is to be "
            "written or removed for it")


@dataclass(frozen=True, slots=True)
class Parsed:
    """What a stored file's checks learnt: its findings and, when it parsed, its value.

    Attributes:
        findings: every problem found in the file's own bytes.
        value: the parsed JSON value, or None when the bytes do not parse.
    """

    findings: list[Finding]
    value: Any


def check_object_bytes(path: str, data: bytes) -> Parsed:
    """Check an object file's bytes: digest == name, strict JSON, canonical, only hashed keys.

    Args:
        path: the object's repository path (names the digest it must hash to).
        data: the file's exact bytes.

    Returns:
        KI101 when ``sha256(data)`` is not the digest in ``path``; KI105 for CR LF line
        ends; KI102 when the bytes are not strict JSON (line:column and pointer of the
        problem); KI103 when they differ from RFC 8785 canonical bytes (line:column of the
        first differing character); KI104 when the object holds keys other than
        apiVersion, kind, spec.
    """
    findings = []
    found = Digest(hashlib.sha256(data).hexdigest())
    if layout.object_path(found) != path and (named := layout.digest_from_path(path)):
        findings.append(Finding(OBJECT_DIGEST_MISMATCH, "sha256 of the file is not its name",
                                file=path, expected=str(named), found=str(found)))
    parsed = _check_json_bytes(path, data)
    findings.extend(parsed.findings)
    if isinstance(parsed.value, dict):
        for key in sorted(parsed.value.keys() - _HASHED_KEYS):
            findings.append(Finding(
                SCHEMA_INVALID, f"an object holds only apiVersion, kind and spec, not {key!r} "
                "(metadata lives in its own file)", file=path,
                pointer=f"/{canonical.escape_pointer(key)}"))
    return Parsed(findings, parsed.value)


def check_metadata_bytes(path: str, data: bytes) -> Parsed:
    """Check a metadata file's bytes: strict JSON in canonical form.

    Args:
        path: the metadata file's repository path.
        data: its exact bytes.

    Returns:
        KI105, KI102 or KI103 findings as for objects (a metadata file has no digest);
        KI102 and KI103 with :data:`METADATA_FIX`.
    """
    parsed = _check_json_bytes(path, data)
    return Parsed([replace(f, fix=METADATA_FIX) if f.rule in (JSON_PARSE_ERROR, NOT_CANONICAL)
                   else f for f in parsed.findings], parsed.value)


def _check_json_bytes(path: str, data: bytes) -> Parsed:
    findings = []
    if b"\r" in data:
        line = data[: data.index(b"\r")].count(b"\n") + 1
        findings.append(Finding(CRLF_LINE_ENDS, "carriage return in stored bytes", file=path,
                                line=line, expected="no CR (canonical bytes have no line ends)",
                                found="CR LF"))
    value = canonical_fast.loads_if_canonical(data)
    if value is not None:
        return Parsed(findings, value)
    try:
        value = canonical.loads(data, file=path)
    except ParseError as e:
        findings.append(Finding(JSON_PARSE_ERROR, e.message, file=path, pointer=e.pointer,
                                line=e.line, column=e.column))
        return Parsed(findings, None)
    try:
        expected = canonical.dumps(value)
    except CanonicalFormError as e:
        findings.append(Finding(NOT_CANONICAL, e.message, file=path, pointer=e.pointer))
        return Parsed(findings, value)
    if expected != data:
        line, column, offset = first_difference(data, expected)
        findings.append(Finding(
            NOT_CANONICAL, f"bytes differ from the RFC 8785 form at byte {offset}", file=path,
            line=line, column=column, expected=_excerpt(expected, offset),
            found=_excerpt(data, offset)))
    return Parsed(findings, value)


def first_difference(data: bytes, expected: bytes) -> tuple[int, int, int]:
    """Locate the first byte where ``data`` differs from ``expected``.

    Returns:
        ``(line, column, offset)``: 1-based line and column (in characters) in ``data``'s
        text, and the 0-based byte offset.
    """
    offset = next((i for i, (a, b) in enumerate(zip(data, expected, strict=False)) if a != b),
                  min(len(data), len(expected)))
    before = data[:offset].decode("utf-8", "replace")
    return before.count("\n") + 1, len(before) - before.rfind("\n"), offset


def _excerpt(data: bytes, offset: int, width: int = 12) -> str:
    return repr(data[offset : offset + width].decode("utf-8", "replace"))


class Clean(NamedTuple):
    """What :func:`check_clean_pair` learns of a manifest with no finding.

    A tuple (it was a positional 7-tuple; review: fields by name): its first five are
    what :func:`entry_from` would take from the parsed files.

    Attributes:
        kind: the manifest's kind.
        name: ``metadata.name``, None unless a string.
        references: the reference of each of :data:`kistore.core.model.REFERENCE_FIELDS`
            (None where there is none).
        statistic: the primary statistic a run or protocol states
            (:func:`kistore.core.statistics.statistic_of`; None for other kinds).
        board: the board a SOL-ExecBench run or a workload states
            (:func:`kistore.core.boards.board_of`, KI238; None for others).
        claim: the source record a run claims (:func:`kistore.core.claims.stored_claim` of
            the same bytes, from this parse: KI232's reader hashes and parses them no second
            time; None for none).
        spec: the object's ``spec`` as parsed (a dict: the kind's schema holds it; KI234's
            judge in ``verify`` reads a run's ranked values from it, no file parsed twice).
    """

    kind: str
    name: str | None
    references: tuple[str | None, ...]
    statistic: str | None
    board: Board | None
    claim: Claim | None
    spec: Any


def check_clean_pair(digest_hex: str, object_data: bytes, metadata_data: bytes
                     ) -> Clean | None:
    """Answer, fast, whether an object and its metadata file hold no finding at all.

    This is the common case of ``kistore verify`` in one call, with no finding built: it
    is the conjunction of :func:`check_object_bytes`, :func:`check_metadata_bytes` and
    :func:`check_manifest_pair` finding nothing, judged only by their fast paths
    (orjson canonical check, ``jsonschema-rs``). None means "run those checks", which
    decide; it never means "there is a finding".

    Args:
        digest_hex: the 64 hex digits the object's path names.
        object_data: the object file's bytes.
        metadata_data: the metadata file's bytes.

    Returns:
        A :class:`Clean` (kind, name, references, statistic, board, claim, spec), the first
        five as :func:`entry_from` would take them from the parsed files (name None unless a
        string; references in :data:`REFERENCE_FIELDS` order), or None.
    """
    if hashlib.sha256(object_data).hexdigest() != digest_hex:
        return None
    if b"\r" in object_data or b"\r" in metadata_data:
        return None
    obj = canonical_fast.loads_if_canonical(object_data)
    if type(obj) is not dict or not obj.keys() <= _HASHED_KEYS:
        return None
    metadata = canonical_fast.loads_if_canonical(metadata_data)
    validator = fast_validator(obj.get("kind"))
    if type(metadata) is not dict or validator is None:
        return None
    obj["metadata"] = metadata  # obj is this call's own parse: no copy needed
    if not validator.is_valid(obj):
        return None
    # Identifying strings live in the object's spec, prose in both files. Canonical bytes
    # hold no whitespace outside strings and escape every control (RFC 8785): ASCII bytes
    # with no backslash, no DEL, no space beside a quote and no two spaces in a row hold no
    # string the rules refuse (ASCII holds no invisible character and no second script).
    # Metadata holds only prose (and a name its pattern holds to ASCII): bytes with no
    # escape but \n, no DEL or C1 control and no bidirectional control hold no refused one.
    if not (object_data.isascii() and b"\\" not in object_data and b"\x7f" not in object_data
            and b'" ' not in object_data and b' "' not in object_data
            and b"  " not in object_data and _plain_prose(metadata_data)) \
            and identifying_problems(obj):
        return None
    name = metadata.get("name")
    if type(name) is str and reserved_on_windows(name):
        return None  # the exact path says why
    if _may_break_line(metadata_data) or (obj["kind"] == "Implementation"
                                          and _may_break_line(object_data)):
        return None  # a title or author may break a line (KI219): the slow path says
    if obj["kind"] == "Implementation" and type(obj.get("spec")) is dict \
            and isinstance(author := obj["spec"].get("author"), str) and author \
            and prints_as_nothing(author):
        return None  # a blank author (KI254): the slow path says
    spec = obj.get("spec")
    references: tuple[str | None, ...] = _NO_REFERENCES
    if obj["kind"] == "BenchmarkRun" and type(spec) is dict:
        # valid: the run's schema requires each field, a digest (common.json#/$defs/digest)
        references = tuple(map(spec.get, REFERENCE_FIELDS))
        if "sourceNative" in spec and external_id_disagreement(spec, name):
            return None
        if run_contradictions(spec) or implausible_latencies(spec) \
                or latency_units_disagree(spec):  # KI222-KI224, KI228, KI230, KI233:
            return None  # the slow path says which
        if unproven_claim(digest_hex, spec, metadata) is not None:  # KI226: likewise
            return None
    # KI232's claim as stored_claim reads it: these bytes hash to digest_hex and parse
    claim = claim_of(spec) if obj["kind"] == "BenchmarkRun" and may_claim(object_data) \
        else None
    return Clean(obj["kind"], name if type(name) is str else None, references,
                 statistic_of(obj["kind"], spec), board_of(obj["kind"], spec, name,
                                                                 metadata), claim, spec)


_NO_REFERENCES = (None,) * len(REFERENCE_FIELDS)

_ESCAPE_BUT_LF = re.compile(rb"\\[^n]")
_NOT_PROSE_UTF8 = re.compile(
    rb"\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


def _plain_prose(data: bytes) -> bool:
    """Whether canonical JSON bytes (RFC 8785, UTF-8) surely spell no string prose refuses.

    Prose (:data:`kistore.core.text_fields.TEXT_FIELDS`) may not hold a control but LINE FEED
    nor a bidirectional control. In canonical bytes a C0 control is an escape other than
    ``\\n`` (an escaped backslash or quote is taken for one too: False only sends the
    pair to the exact checks); DEL is the byte 7F; a C1 control (U+0080-U+009F) is C2
    80-9F; a bidirectional control (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)
    D8 9C, E2 80 8E/8F/AA-AE or E2 81 A6-A9, each looked for only at its lead byte
    (``find`` is a fast scan; a regular expression over every byte cost ~10 us a
    metadata file of the real data, whose titles hold ``·``).
    """
    if data.find(b"\x7f") >= 0 or (data.find(b"\\") >= 0 and _ESCAPE_BUT_LF.search(data)):
        return False
    if data.isascii():
        return True
    for lead in (b"\xc2", b"\xd8", b"\xe2"):
        at = data.find(lead)
        while at >= 0:
            if _NOT_PROSE_UTF8.match(data, at):
                return False
            at = data.find(lead, at + 1)
    return True
def check_value_limits(path: str, value: Any, size: int, limits: Limits) -> list[Finding]:
    """Check a parsed object or metadata file's strings, arrays and objects against the limits.

    What ``add`` refuses (:func:`kistore.core.limits.check_value`) must not pass once
    committed by hand, or under a limit since lowered. The walk is skipped when ``size``
    bytes cannot hold a value past the limits (:func:`kistore.core.limits.may_pass`).

    Args:
        path: repository path of the file.
        value: the file's parsed JSON value.
        size: the file's length in bytes.
        limits: the checking repository's limits (``string_length``, ``array_length``,
            ``object_members``).

    Returns:
        One KI107 finding per string (or key) longer than ``string_length`` characters,
        array longer than ``array_length`` items or object of more than
        ``object_members`` members, at its JSON Pointer, with the setting it passes in
        ``extra["limit"]`` (``string-length``, ``array-length`` or ``object-members``);
        empty otherwise.
    """
    if not may_pass(size, limits):
        return []
    return [Finding(VALUE_TOO_LONG, long_value_message(v), file=path, pointer=v.pointer,
                    extra={"limit": v.key})
            for v in long_values(value, limits)]


def check_manifest_pair(object_path: str, metadata_path: str, obj: Any, metadata: Any
                        ) -> list[Finding]:
    """Validate an object and its metadata together against the schema of the object's kind.

    Args:
        object_path: repository path of the object file.
        metadata_path: repository path of its metadata file.
        obj: the parsed object (``{apiVersion, kind, spec}``).
        metadata: the parsed metadata, or None when the metadata file is missing or does not
            parse (then only the object's part of the schema is checked).

    Returns:
        One KI104 finding per schema violation, placed in the file that holds the value:
        pointers under ``/metadata`` go to the metadata file (relative to its root); KI209
        when a run's name disagrees with its source's external id
        (:func:`kistore.core.naming.external_id_disagreement`); KI222, KI223 and KI224 when
        a run contradicts itself or its source's scale or states two metric keys that
        differ only in case (:func:`kistore.core.contradictions.
        run_contradictions`), on the object at the value's pointer; KI230 (a warning) when
        a run states a latency below :data:`kistore.core.contradictions.LATENCY_FLOOR_NS`
        (:func:`kistore.core.contradictions.implausible_latencies`); KI226 when a run
        claims KernelBench's data but its importer does not make it
        (:func:`kistore.core.provenance.unproven_claim`, the digest read from
        ``object_path``), at the first claim, in the object or the metadata file.
    """
    if not isinstance(obj, dict):
        return [Finding(SCHEMA_INVALID, "a manifest must be a JSON object", file=object_path,
                        pointer="")]
    document = {k: v for k, v in obj.items() if k in _HASHED_KEYS}
    document["metadata"] = metadata if metadata is not None else {"name": "placeholder"}
    findings = []
    for error in check_manifest(document):  # the compiled validator first (schema.py)
        pointer = error.pointer or ""
        in_metadata = in_metadata_file(pointer)
        if in_metadata is not None:
            if metadata is None:
                continue
            findings.append(Finding(SCHEMA_INVALID, error.message, file=metadata_path,
                                    pointer=in_metadata, fix=METADATA_FIX))
        else:
            findings.append(Finding(SCHEMA_INVALID, error.message, file=object_path,
                                    pointer=pointer))
    if document.get("kind") == "BenchmarkRun" and isinstance(metadata, dict):
        disagreement = external_id_disagreement(document.get("spec"), metadata.get("name"))
        if disagreement:
            findings.append(Finding(NAME_DISAGREES_WITH_SOURCE, disagreement,
                                    file=metadata_path, pointer="/name"))
    if document.get("kind") == "BenchmarkRun":
        findings += [Finding(_CONTRADICTION_RULES[c.rule], c.message, file=object_path,
                             pointer=c.pointer)
                     for c in run_contradictions(document.get("spec"))]
        findings += [Finding(LATENCY_BELOW_FLOOR, c.message, file=object_path,
                             pointer=c.pointer)
                     for c in implausible_latencies(document.get("spec"))]
        slip = latency_units_disagree(document.get("spec"))
        if slip is not None:
            findings.append(Finding(LATENCY_UNITS_DISAGREE, slip.message, file=object_path,
                                    pointer=slip.pointer))
        digest = layout.digest_from_path(object_path)
        unproven = unproven_claim(digest.hex if digest else None, document.get("spec"),
                                  metadata)
        if unproven is not None:
            findings.append(Finding(SOURCE_CLAIM_UNPROVEN, unproven.message,
                                    file=metadata_path if unproven.in_metadata else object_path,
                                    pointer=unproven.pointer))
    findings += blank_author_findings(object_path, document)  # KI254, a stored one: warning
    return findings + cited_text_findings(object_path, metadata_path, document, metadata)


def _may_break_line(data: bytes) -> bool:
    """Whether canonical JSON bytes may spell a string holding a line break prose may hold.

    LINE FEED, U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR (KI104 refuses every other
    control; :func:`kistore.core.text_fields.line_break_said` says them).

    RFC 8785 writes LF as the escape ``\\n`` and U+2028/U+2029 raw (UTF-8 E2 80 A8/A9);
    an escaped backslash before an ``n`` is taken for one too (True only sends the pair to
    the exact checks). Three scans: under 1 us a metadata file (the real data's, measured).
    """
    return b"\\n" in data or b"\xe2\x80\xa8" in data or b"\xe2\x80\xa9" in data


def cited_text_findings(object_path: str, metadata_path: str, document: Any, metadata: Any
                        ) -> list[Finding]:
    """KI219: a string a citation prints within one line holds a line break.

    A citation's reference line holds the manifest's ``metadata.title`` and, for an
    Implementation (and the runs that name it), ``spec.author``. KI104 admits a line feed,
    U+2028 and U+2029 in prose; printed raw they made lines of their own under the
    citation ("rank 1", "digest: sha256:<another>"; reviewer r83 F4). Every citation a
    person reads now shows them escaped (:func:`kistore.core.errors.one_line`); this
    warning tells the reviewer of a pull request (and ``verify``) that such a title was
    written. A warning: the schemas admit it and existing stores must still verify.

    Args:
        object_path: repository path of the object file.
        metadata_path: repository path of its metadata file.
        document: the parsed object (``kind``, ``spec``).
        metadata: the parsed metadata, or None.

    Returns:
        One KI219 finding per such string (``/title`` in the metadata file, ``/spec/author``
        in an Implementation's object), naming the first break and its 1-based position.
    """
    found = []
    if isinstance(metadata, dict):
        found.append((metadata_path, "/title", "title", metadata.get("title")))
    spec = document.get("spec") if isinstance(document, dict) else None
    if isinstance(document, dict) and document.get("kind") == "Implementation" \
            and isinstance(spec, dict):
        found.append((object_path, "/spec/author", "author", spec.get("author")))
    findings = []
    for path, pointer, what, value in found:
        said = line_break_said(what, value) if isinstance(value, str) else None
        if said is not None and isinstance(value, str):
            findings.append(Finding(
                CITED_TEXT_BREAKS_LINE, said,
                file=path, pointer=pointer, expected="one line", found=one_line(shorten(value))))
    return findings


@dataclass(frozen=True, slots=True)
class Entry:
    """One manifest as the cross-file checks see it (every field may be missing).

    Attributes:
        digest: the digest its object path names.
        kind: the object's ``kind`` when it parsed, else None.
        name: ``metadata.name`` when the metadata parsed, else None.
        references: spec field -> referenced digest text, for a BenchmarkRun.
        has_object: an object file exists for ``digest``.
        has_metadata: a metadata file exists for ``digest``.
        intact: False when the object's bytes were checked and do not hash to ``digest``
            (KI101): they are not that manifest, so no run's reference is judged by their
            kind (a gate, which looks up only what a range changes, could not find the
            runs naming it either).
        statistic: the primary statistic a run (``timing``) or protocol (``measurement``)
            states (:func:`kistore.core.statistics.statistic_of`), else None (KI218).
        board: the board a SOL-ExecBench run (``sourceNative.benchmark``) or a workload
            (``definition``) states (:func:`kistore.core.boards.board_of`), else None (KI238).
        latency: the statistics a passed run's ``timing.latencyNs`` states
            (:func:`kistore.core.statistics.latency_names`), else None (KI252).
        name_of: set when the metadata file was not read: the gate's lookup of a manifest
            a run references (:func:`kistore.check._focus.entry_at` with ``metadata=False``),
            whose kind, statistic and board its object states. Called when a message names
            the manifest (:func:`shown_name`); ``name`` is then None, so the entry claims no
            name in KI205's count (the gate finds who holds a name through its names files),
            and ``has_metadata`` is False (not looked up).
    """

    digest: Digest
    kind: str | None
    name: str | None
    references: Mapping[str, str]
    has_object: bool
    has_metadata: bool
    intact: bool = True
    statistic: str | None = None
    board: Board | None = None
    name_of: Callable[[], str | None] | None = None
    latency: tuple[str, ...] | None = None


def shown_name(entry: Entry) -> str | None:
    """Return the name a message shows for ``entry``: ``metadata.name``, read now if it was not.

    A manifest the gate looked up for a reference has its metadata file read only here, when
    a finding names it (:attr:`Entry.name_of`): a run's four references would otherwise read
    four metadata shard trees (~370 KB each at 1,000,000 manifests) for names no clean pull
    request shows (docs/speed.md, gate99).
    """
    return entry.name if entry.name_of is None else entry.name_of()




def entry_from(digest: Digest, obj: Any, metadata: Any, *, has_object: bool,
               has_metadata: bool) -> Entry:
    """Build the :class:`Entry` of one digest from whatever of its files parsed.

    Args:
        digest: the digest named by the object or metadata path.
        obj: the parsed object, or None.
        metadata: the parsed metadata, or None.
        has_object: whether an object file exists at all.
        has_metadata: whether a metadata file exists at all.
    """
    kind = obj.get("kind") if isinstance(obj, dict) else None
    kind = kind if kind in KINDS else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    spec = obj.get("spec") if isinstance(obj, dict) else None
    references = {}
    if kind == "BenchmarkRun" and isinstance(spec, dict):
        references = {f: spec[f] for f in REFERENCE_FIELDS if is_digest(spec.get(f))}
    return Entry(digest, kind, name if isinstance(name, str) else None, references,
                 has_object, has_metadata, statistic=statistic_of(kind, spec),
                 board=board_of(kind, spec, name, metadata),
                 latency=latency_names(spec) if kind == "BenchmarkRun" else None)


def check_entries(entries: Mapping[Digest, Entry], focus: set[Digest] | None = None,
                  arrived: set[Digest] | None = None, base: Base = HINT_BASE) -> list[Finding]:
    """Cross-file checks over every manifest of one tree.

    Args:
        entries: every digest that has an object or a metadata file in the tree.
        focus: report only findings about these digests (a gate checks what a range adds;
            names and references are still resolved against all ``entries``). None: all.
        arrived: with ``focus``, those of its digests whose object file the range adds
            (not only their metadata); None: all of ``focus``. KI218 is reported only on a
            run that arrives, or whose protocol arrives: what a range makes true, so a
            gate that reads only the earlier runs a new protocol's forward directory lists
            finds what a check of the whole tree finds.
        base: the gate's BASE, which KI238's fix on a stored run's metadata restores the
            file from (:func:`board_metadata_fix`); default: the word BASE.

    Returns:
        KI203/KI204 for unpaired files, KI205 for a ``(kind, name)`` used twice (reported
        on each later digest, naming the first), KI201 (warning) for a reference to a digest
        with no object (naming the one stored manifest a slip away, :func:`_stored_near`,
        with ``extra["meant"]``), KI202 for a reference to an object of another kind (with
        ``focus``, also on a focused manifest that a run outside it names in a dangling reference of
        another kind: reported on that manifest's ``/kind``, naming the run and field,
        :func:`_answered_with_wrong_kind`), KI218 (warning) for a run stating another
        primary statistic than the intact protocol it names (with ``focus``: a run of
        ``arrived``, or one whose protocol is of ``arrived``, such as an earlier run whose
        dangling reference the protocol answers), KI252 (warning) for a passed run whose
        ``timing.latencyNs`` lacks the statistic ranking reads, judged where KI218 is (and,
        with ``focus``, an arriving run whose protocol is not stored, by its own statistic:
        :func:`_statistic_unstated`), KI238 for a SOL-ExecBench run whose
        ``sourceNative.benchmark`` is not its intact workload's ``definition`` (an error
        with ``focus``, a run of ``arrived`` or one whose workload is of ``arrived``; a
        warning without: ``verify``, where history may hold one). Sorted by file.
    """
    if focus is not None and arrived is None:
        arrived = focus
    findings: list[Finding] = []
    owners: dict[tuple[str, str], Digest] = {}
    by_text = {str(d): e for d, e in entries.items()}  # references are digest text
    near: dict[str, Entry | None] = {}  # KI201's did-you-mean, each dangling reference once
    for digest in sorted(entries, key=lambda d: d.hex):
        e = entries[digest]
        if e.kind is not None and e.name is not None:
            owner = owners.setdefault((e.kind, e.name), digest)
            if owner != digest and (focus is None or digest in focus or owner in focus):
                findings.append(Finding(
                    NAME_NOT_UNIQUE, f"{e.kind} name {e.name!r} is also used by {owner}",
                    file=layout.metadata_path(digest), pointer="/name",
                    extra={"other": str(owner), "name": e.name}))
        if focus is not None and digest not in focus:
            # a manifest the range adds may be what an earlier run's dangling reference
            # names: it must be of the kind that field names (KI202 on the earlier run)
            for field_name, ref in e.references.items():
                target = by_text.get(ref)
                if (target is not None and target.digest in focus and target.has_object
                        and target.intact and target.kind is not None
                        and wrong_kind(field_name, target.kind)):
                    findings.append(_answered_with_wrong_kind(target, e, field_name))
            protocol = by_text.get(e.references.get("protocolDigest", ""))
            if protocol is not None and protocol.digest in arrived:  # type: ignore[operator]
                findings += _statistic_disagrees(e, protocol)
                findings += _statistic_unstated(e, protocol, e.references["protocolDigest"])
            workload = by_text.get(e.references.get("workloadDigest", ""))
            if workload is not None and workload.digest in arrived:  # type: ignore[operator]
                findings += _board_disagrees(e, workload, BOARD_DISAGREES, by_text)
            continue
        if e.has_metadata and not e.has_object:
            findings.append(Finding(
                METADATA_WITHOUT_OBJECT, f"no object file {layout.object_path(digest)}",
                file=layout.metadata_path(digest)))
        if e.has_object and not e.has_metadata:
            findings.append(Finding(
                OBJECT_WITHOUT_METADATA, f"no metadata file {layout.metadata_path(digest)}",
                file=layout.object_path(digest)))
        for field_name, ref in e.references.items():
            target = by_text.get(ref)
            pointer = f"/spec/{field_name}"
            if target is None or not target.has_object:
                if ref not in near and len(near) < MEANT_LOOKED:
                    near[ref] = _stored_near(ref, REFERENCE_KINDS.get(field_name), by_text)
                meant = near.get(ref)
                if field_name == "protocolDigest" and focus is not None \
                        and digest in arrived:  # type: ignore[operator]
                    findings += _statistic_unstated(e, None, ref)
                findings.append(Finding(
                    REFERENCE_UNRESOLVED, f"{ref} is not in the store" + (
                        f"; {meant.digest} ({meant.kind}/{shown_name(meant)}) is "
                        f"{slip_said(ref[7:], meant.digest.hex)}: did you mean it? This one "
                        "will never resolve: the run ranks only once a run with the whole "
                        "digest written there is added" if meant else ""),
                    file=layout.object_path(digest), pointer=pointer,
                    extra={"reference": ref, **({"meant": str(meant.digest)} if meant else {})}))
            elif (target.intact and target.kind is not None
                  and wrong_kind(field_name, target.kind)):
                findings.append(_wrong_kind(digest, field_name, ref, target.kind))
            elif field_name == "protocolDigest" and (
                    arrived is None or digest in arrived or target.digest in arrived):
                findings += _statistic_disagrees(e, target)
                findings += _statistic_unstated(e, target, ref)
            elif field_name == "workloadDigest" and focus is None:
                findings += _board_disagrees(e, target, BOARD_DISAGREES_STORED, by_text)
            elif field_name == "workloadDigest":  # arrived, or its metadata (title) changed
                stored = digest not in arrived and target.digest not in arrived  # type: ignore[operator]
                found = _board_disagrees(e, target, BOARD_DISAGREES, by_text,
                                         metadata_only=stored)
                if stored:
                    found = [replace(f, fix=board_metadata_fix(
                        e.board, target.board, layout.metadata_path(digest), base))
                        for f in found]
                findings += found
    return sorted(findings, key=sort_key)


MEANT_LOOKED = 64
"""The distinct dangling references one check looks up a near stored manifest for (KI201's
did-you-mean; each up to 1,023 lookups in memory, no listing: reviewer r92 F4)."""


def _stored_near(ref: str, kind: str | None, by_text: Mapping[str, Entry]) -> Entry | None:
    """Return the one stored manifest of ``kind`` a slip away from a dangling reference.

    ``add`` offers it when it refuses the run or records it dangling
    (:meth:`kistore.store.Store.meant_reference`); ``verify`` and the gate say it beside
    KI201 (reviewer r92 F4: only ``add`` did), from the entries they hold: one lookup per
    digest one slip away (:func:`kistore.core.digest.one_slip_away`: one digit wrong, two
    adjacent ones swapped), no listing of the store.

    Args:
        ref: the dangling reference, ``sha256:<64 hex>``.
        kind: the kind its field names.
        by_text: every entry of the tree by its digest text.

    Returns:
        The entry, when exactly one intact present manifest of ``kind`` is so near; None.
    """
    found = [e for h in one_slip_away(ref.removeprefix("sha256:"))
             if (e := by_text.get(f"sha256:{h}")) is not None and e.has_object and e.intact
             and e.kind == kind]
    return found[0] if len(found) == 1 else None


def board_metadata_fix(board: Board | None, definition: Board | None, path: str,
                       base: Base = HINT_BASE) -> str:
    """KI238's fix on a run the range does not add, whose metadata file it changes.

    Names the fields the range made state another board (r93b G4: a source URL edited to
    another kernel's leaderboard was told "keep the title as it was"): each is restored.

    Args:
        board: the run's :data:`~kistore.core.boards.Board` at HEAD.
        definition: its workload's.
        path: the run's metadata file.
        base: BASE, which the checkout restores ``path`` from (:class:`._fixes.Base`).

    Returns:
        The fix, naming each field to restore and the checkout. Raises nothing.
    """
    fields = metadata_fields(board or (), definition or ()) or ["title"]
    said = " and ".join(f"its {f}" for f in fields)
    urls = [f for f in fields if f != "title"]
    return ("the range changes this stored run's metadata so that it states another board or "
            f"shape than its workload's ({said}: KI238 reads {'them' if len(fields) > 1 else 'it'} "
            f"since 2026-12-05, r92 F3): restore {said} as imported ({base.checkout(path)})"
            + ("; where the run was retrieved from and imported from never changes (KI432)"
               if urls else ""))


def _statistic_disagrees(run: Entry, protocol: Entry) -> list[Finding]:
    """KI218 when ``run`` states another primary statistic than ``protocol``, its protocol.

    Only an intact, present BenchmarkProtocol counts (else KI201, KI202 or KI101 say what
    is wrong), and only when both state a statistic (the schema requires each).
    """
    if run.statistic == protocol.statistic:  # agreeing: no message, no name read for one
        return []
    return _stated_disagrees(run, protocol, "BenchmarkProtocol", (run.statistic,
                             protocol.statistic), disagreement, STATISTIC_DISAGREES,
                             RUN_POINTER)


def _statistic_unstated(run: Entry, protocol: Entry | None, ref: str) -> list[Finding]:
    """KI252 when ``run``'s ``timing.latencyNs`` lacks the statistic ranking reads.

    Where KI218 is judged (:func:`check_entries`): every run in ``verify``, at the gate a
    run the range adds or whose protocol it adds (an earlier run added dangling, found
    through the protocol's forward records); and at the gate an arriving run whose
    protocol is not stored.

    Args:
        run: the run's entry (judged when it is a passed run stating latencies).
        protocol: the entry its ``protocolDigest`` names, None when not in the tree (the
            run's own statistic is judged); judged only when an intact, present
            BenchmarkProtocol (else KI201, KI202 or KI101 say what is wrong).
        ref: the run's ``protocolDigest`` (``sha256:...``), named when not stored.

    Returns:
        The finding on the run's object at ``/spec/timing/latencyNs`` (``expected`` the
        statistic judged, ``found`` the statistics stated), or nothing.
    """
    if run.kind != "BenchmarkRun" or run.latency is None:
        return []
    if protocol is not None and (protocol.kind != "BenchmarkProtocol" or not (
            protocol.has_object and protocol.intact) or protocol.statistic is None):
        return []
    if protocol is not None and protocol.statistic in run.latency:
        return []  # stated: no message, no name read for one
    said = unstated(named_manifest("BenchmarkRun", shown_name(run), str(run.digest)),
                    run.latency, run.statistic, ref if protocol is None else named_manifest(
                        "BenchmarkProtocol", shown_name(protocol), str(protocol.digest)),
                    None if protocol is None else protocol.statistic)
    if said is None:
        return []
    judged = run.statistic if protocol is None else protocol.statistic
    return [Finding(STATISTIC_UNSTATED, said, file=layout.object_path(run.digest),
                    pointer=LATENCY_POINTER, expected=judged, found=", ".join(run.latency),
                    extra={"protocol": ref})]


def _board_disagrees(run: Entry, workload: Entry, rule_: Rule,
                     by_text: Mapping[str, Entry], *, metadata_only: bool = False
                     ) -> list[Finding]:
    """KI238 when ``run``'s board is not ``workload``'s (its benchmark, kernel or shape).

    Only an intact, present Workload counts (else KI201, KI202 or KI101 say what is wrong),
    and only what both state (:func:`kistore.core.boards.board_disagreements`), at the
    pointer, ``expected`` and ``found`` of :func:`kistore.core.boards.board_finding_at`.
    What the intact Implementation the run names (in ``by_text``, entries by digest text)
    states of its board counts as the run's (:func:`kistore.core.boards.with_implementation`,
    reviewer fresh95 F2). ``metadata_only``: neither the run nor its workload arrives, only
    the run's metadata changed (:func:`kistore.core.boards.board_message` says so).
    """
    implementation = by_text.get(run.references.get("implementationDigest", ""))
    if implementation is not None and implementation.intact and \
            implementation.kind == "Implementation" and implementation.board:
        run = replace(run, board=with_implementation(run.board, implementation.board))
    if run.board is None or workload.board is None or \
            not board_disagreements(run.board, workload.board):
        return []
    pointer, expected, found = board_finding_at(run.board, workload.board)
    return _stated_disagrees(run, workload, "Workload", (run.board, workload.board),
                             partial(board_message, metadata_only=metadata_only), rule_,
                             pointer, (expected, found))


def _stated_disagrees(run: Entry, target: Entry, kind: str,
                      stated: tuple[Any, Any],
                      message: Callable[[str, Any, str, Any], str | None], rule_: Rule,
                      pointer: str, shown: tuple[str | None, str | None] | None = None
                      ) -> list[Finding]:
    """One finding when a run states another value than the manifest it names (KI218, KI238).

    Args:
        run: the run's entry.
        target: the entry of the manifest its reference names.
        kind: the kind ``target`` must be (intact and present) to be judged.
        stated: the run's value and the target's (either None: nothing judged).
        message: the rule's words (run named, its value, target named, its value), None
            when the two agree.
        rule_: the rule reported.
        pointer: where the run states its value.
        shown: the finding's ``expected`` and ``found`` when not the two values (KI238's
            board pairs, shown as text); None: the values.

    Returns:
        The finding on the run's object at ``pointer`` (``expected`` the target's value,
        ``found`` the run's, ``extra`` the target's digest under its kind's field word),
        or nothing.
    """
    mine, theirs = stated
    if (run.kind != "BenchmarkRun" or target.kind != kind
            or not (target.has_object and target.intact) or mine is None or theirs is None):
        return []
    said = message(named_manifest("BenchmarkRun", shown_name(run), str(run.digest)), mine,
                   named_manifest(kind, shown_name(target), str(target.digest)), theirs)
    if said is None:
        return []
    field = "protocol" if kind == "BenchmarkProtocol" else kind.lower()
    expected, found = (theirs, mine) if shown is None else shown
    return [Finding(rule_, said, file=layout.object_path(run.digest), pointer=pointer,
                    expected=expected, found=found, extra={field: str(target.digest)})]


def _answered_with_wrong_kind(arriving: Entry, run: Entry, field_name: str) -> Finding:
    """KI202 on ``arriving``, a manifest the range adds that ``run``'s dangling reference names.

    ``run`` is an earlier run, outside the range, whose ``field_name`` names the arriving
    manifest's digest, of another kind than the field names. Reported where the pull
    request can act, on the arriving object's ``/kind`` (the run is committed and never
    changes: "point the field elsewhere" cannot be done), naming the run, its object file
    and field, in the words ``add``'s refusal uses (:func:`kistore.core.model.
    wrong_kind_answer`); ``extra`` holds the run's digest and the field.
    """
    kind = arriving.kind or ""
    where = f"{layout.object_path(run.digest)}:/spec/{field_name}"
    return Finding(
        REFERENCE_WRONG_KIND, wrong_kind_answer(
            named_manifest(kind, shown_name(arriving), str(arriving.digest)),
            named_manifest("BenchmarkRun", shown_name(run), str(run.digest)), where, kind),
        file=layout.object_path(arriving.digest), pointer="/kind",
        expected=REFERENCE_KINDS[field_name], found=kind,
        extra={"run": str(run.digest), "field": field_name}, fix=ANSWERED_WRONG_KIND_FIX)


ANSWERED_WRONG_KIND_FIX = (
    "leave this manifest out of the pull request: the earlier run naming its digest never "
    "changes")
"""The fix of KI202 on a manifest that answers an earlier run's dangling reference."""


def _wrong_kind(digest: Digest, field_name: str, ref: str, kind: str) -> Finding:
    """KI202: the run ``digest``'s ``field_name`` names ``ref``, a manifest of ``kind``."""
    return Finding(REFERENCE_WRONG_KIND, f"{ref} is {with_article(kind)}",
                   file=layout.object_path(digest),
                   pointer=f"/spec/{field_name}", expected=REFERENCE_KINDS[field_name],
                   found=kind)


def entries_clean(hexes: Sequence[str], kinds: Sequence[str | None],
                  names: Sequence[str | None],
                  references: Sequence[tuple[str | None, ...]],
                  statistics: Sequence[str | None],
                  boards: Sequence[Board | None] | None = None,
                  latencies: Sequence[tuple[str, ...] | None] | None = None) -> bool:
    """Answer, fast, whether :func:`check_entries` finds nothing in a tree of paired manifests.

    The cross-file checks of a clean store, without building an :class:`Entry` (and a
    :class:`~kistore.core.digest.Digest`) per manifest: every ``(kind, name)`` used once, every
    reference to an object of the kind its field names, every run stating the primary
    statistic its protocol states (KI218), every passed run stating latencies stating that
    one among them (KI252). Only for trees where every digest
    has both its object and its metadata file (else KI203/KI204 apply). False means "run
    :func:`check_entries`", which decides and words the findings; a test holds the two to
    the same answer.

    Args:
        hexes: every manifest's digest hex (64 digits), one per manifest.
        kinds: each one's kind as :attr:`Entry.kind` holds it.
        names: each one's name as :attr:`Entry.name` holds it.
        references: each one's references in :data:`REFERENCE_FIELDS` order, None where
            the field holds no digest (:attr:`Entry.references` as a tuple).
        statistics: each one's primary statistic as :attr:`Entry.statistic` holds it.
        boards: each one's board as :attr:`Entry.board` holds it (KI238); None: none states
            one.
        latencies: each one's latency statistics as :attr:`Entry.latency` holds it (KI252,
            what each unit's check learnt: nothing read for it); None: none states any.

    Returns:
        True when :func:`check_entries` of the same manifests (``focus=None``) returns no
        finding; False when it may return one.
    """
    keys = ["sha256:" + h for h in hexes]
    kind_of = dict(zip(keys, kinds, strict=True))
    named = [(k, n) for k, n in zip(kinds, names, strict=True) if k is not None and n is not None]
    if len(set(named)) != len(named):
        return False  # some (kind, name) is used twice: KI205
    missing = object()
    for i, expected in enumerate(_REFERENCED_KINDS):
        for ref in set(map(itemgetter(i), references)):  # each distinct target once
            if ref is None:
                continue
            kind = kind_of.get(ref, missing)
            if kind is missing or (kind is not None and kind != expected):
                return False  # KI201 unresolved or KI202 wrong kind
    # each distinct (protocol, statistic, latencies) a run states once: a protocol's own
    # statistic must match (KI218) and be among the latencies stated (KI252)
    statistic_of_manifest = dict(zip(keys, statistics, strict=True))
    for kind, ref, statistic, latency in set(zip(
            kinds, map(itemgetter(_PROTOCOL), references), statistics,
            [None] * len(kinds) if latencies is None else latencies, strict=True)):
        if kind != "BenchmarkRun" or ref is None:
            continue
        measured = statistic_of_manifest[ref]  # the protocol's
        if measured is not None and (statistic not in (None, measured)  # KI218
                                     or (latency is not None and measured not in latency)):
            return False  # KI218, or KI252: its latencies lack the protocol's statistic
    if boards is not None:  # KI238: each distinct (workload, board) a run states once
        board_of_manifest = dict(zip(keys, boards, strict=True))
        for kind, ref, impl, board in set(zip(
                kinds, map(itemgetter(_WORKLOAD), references),
                map(itemgetter(_IMPLEMENTATION), references), boards, strict=True)):
            theirs = board_of_manifest[ref] if kind == "BenchmarkRun" and ref is not None \
                else None
            if theirs is not None and impl is not None and kind_of.get(impl) == "Implementation":
                board = with_implementation(board, board_of_manifest[impl])  # fresh95 F2
            if board is not None and theirs is not None and \
                    board_disagreements(board, theirs):
                return False
    return True


_PROTOCOL = REFERENCE_FIELDS.index("protocolDigest")
_WORKLOAD = REFERENCE_FIELDS.index("workloadDigest")
_IMPLEMENTATION = REFERENCE_FIELDS.index("implementationDigest")


_REFERENCED_KINDS = tuple(REFERENCE_KINDS[f] for f in REFERENCE_FIELDS)


def sort_key(finding: Finding) -> tuple[str, int, int, str, str]:
    """Order findings by file, line, column, rule id, pointer (stable output)."""
    return (finding.file or "", finding.line or 0, finding.column or 0, finding.rule.id,
            finding.pointer or "")

