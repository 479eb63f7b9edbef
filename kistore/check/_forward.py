"""Forward references as paths: each dangling reference of a run is a file of the tree.

A run may be added while a manifest it references is not in the store (``add
--allow-dangling``; ``verify`` says KI201). When that manifest arrives later it must be of
the kind the run's field names (KI202 on the earlier run), and finding the earlier runs must
not take a read of every run: each dangling reference is recorded where the arriving
manifest's digest leads, :func:`kistore.core.layout.forward_path`
(``store/forward/sha256/<XX>/<62 hex of D>/<64 hex of R>``, holding the run's fields that
name ``D``, sorted, one a line). The gate lists one directory per manifest a pull request
adds (docs/design.md §3, §4.2).

This module holds the two rules that keep the records and the runs in step; both are pure
(the caller reads the files):

* KI213 ``forward-reference-unrecorded``: a run's reference to a digest with no object file
  in the tree, and no record file listing that field;
* KI214 ``forward-reference-disagrees``: a record file whose bytes are not the sorted fields
  form, whose run has no object, or whose run does not name the digest in exactly those
  fields.

A record is never modified, renamed or deleted (KI410, :func:`kistore.check.lineage.
names_kept`), also once its digest has arrived.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from ..core import layout
from ..core.digest import Digest
from ..core.findings import ERROR, Finding, rule

FORWARD_UNRECORDED = rule(
    "KI213", "forward-reference-unrecorded", ERROR,
    "a run's reference to a digest the store does not hold is recorded in "
    "store/forward/sha256/XX/<62 hex of the digest>/<64 hex of the run>, holding the fields "
    "that name it: add the run with `kistore add --allow-dangling` (which writes it), or run "
    "`kistore migrate`; never delete such a file")
FORWARD_DISAGREES = rule(
    "KI214", "forward-reference-disagrees", ERROR,
    "a forward record holds the run's fields naming the digest of its directory, sorted, "
    "one a line ending in a newline, and its run exists: remove a record no run of the "
    "pull request makes, restore one changed by hand (`git checkout -- PATH`)")


class Run(NamedTuple):
    """One manifest as the forward rules see it.

    Attributes:
        hex: its digest's 64 hex digits.
        has_object: an object file exists.
        references: spec field -> referenced digest text (``sha256:<hex>``), for a run.
    """

    hex: str
    has_object: bool
    references: Mapping[str, str]


_PREFIX = layout.FORWARD_DIR + "/"


def is_forward_path(path: str) -> bool:
    """Whether ``path`` is a record path of the layout (:func:`layout.forward_from_path`)."""
    return path.startswith(_PREFIX) and layout.forward_from_path(path) is not None


def check_forward_files(runs: Iterable[Run], present: Iterable[str],
                        read: Callable[[str], bytes | None],
                        has_object: Callable[[str], bool], *,
                        focus: Callable[[str], bool] | None = None,
                        focus_digests: set[str] | None = None) -> list[Finding]:
    """KI213 and KI214 over one tree: forward records and runs must agree, both ways.

    Args:
        runs: the manifests known (whole tree: every one; a gate: those it read), by hex.
        present: the record paths of the tree (:func:`is_forward_path`) among those known,
            regular files or not.
        read: the bytes of a record path, or None when it is no regular file (KI111 says
            so); called at most once per path.
        has_object: whether a digest's hex has an object file in the tree; asked only for
            the references of runs reported about.
        focus: report only about record paths this is true of, and about the runs of
            ``focus_digests`` (a gate); None: everything.
        focus_digests: with ``focus``, the hex digests whose manifests the range touches.

    Returns:
        KI213 per (run, field) naming a digest with no object whose record path is absent
        or does not list the field; KI214 per record path whose bytes are not
        :func:`kistore.core.layout.forward_record` of its fields, whose run has no object,
        or whose run names its digest in other fields. Unsorted.
    """
    by_hex = {r.hex: r for r in runs}
    present = set(present)
    fields_at: dict[str, tuple[str, ...] | None] = {}

    def fields(path: str) -> tuple[str, ...] | None:
        if path not in fields_at:
            data = read(path)
            fields_at[path] = None if data is None else layout.fields_from_record(data)
        return fields_at[path]

    findings: list[Finding] = []
    for path in sorted(present):
        if focus is not None and not focus(path):
            continue
        finding = _disagreement(path, read, by_hex, fields_at)
        if finding is not None:
            findings.append(finding)
    for run in by_hex.values():
        if not run.has_object:
            continue
        for field_name, ref in sorted(run.references.items()):
            if focus is None and has_object(ref[7:]):
                continue  # the common case of a whole tree, without building a path
            target = Digest.from_str(ref)
            path = layout.forward_path(target, Digest(run.hex))
            if focus is not None and not focus(path) and run.hex not in (focus_digests or ()):
                continue
            if has_object(target.hex):
                continue
            if path in present:
                listed = fields(path)
                if listed is None and read(path) is None:
                    continue  # not a regular file: KI111
                if listed is not None and field_name in listed:
                    continue
                found = "a record without this field"
            else:
                found = "no such file"
            findings.append(Finding(
                FORWARD_UNRECORDED, f"{field_name} names {ref}, which is not in the store, "
                f"and {path} does not record it", file=layout.object_path(Digest(run.hex)),
                pointer=f"/spec/{field_name}", expected=f"{path} listing {field_name}",
                found=found, extra={"forward_path": path}))
    return findings


def _disagreement(path: str, read: Callable[[str], bytes | None], by_hex: Mapping[str, Run],
                  fields_at: dict[str, tuple[str, ...] | None]) -> Finding | None:
    """KI214 for one record file, or None when its run names its digest in its fields."""
    data = read(path)
    if data is None:
        fields_at[path] = None
        return None  # not a regular file: KI111 says so
    listed = layout.fields_from_record(data)
    fields_at[path] = listed
    target, run_digest = layout.forward_from_path(path)  # type: ignore[misc]
    if listed is None:
        return Finding(FORWARD_DISAGREES, "a forward record holds reference fields of a run, "
                       "sorted, one a line, each ending in a newline", file=path,
                       expected="e.g. workloadDigest\\n", found=repr(data[:80]))
    run = by_hex.get(run_digest.hex)
    if run is None or not run.has_object:
        return Finding(FORWARD_DISAGREES, f"records a reference of {run_digest}, which has no "
                       "object file: a record is written only with its run", file=path,
                       expected=layout.object_path(run_digest), found="no such file",
                       extra={"run": str(run_digest)})
    naming = tuple(sorted(f for f, ref in run.references.items() if ref == str(target)))
    if naming != listed:
        shown = ", ".join(naming) or "no field"
        return Finding(FORWARD_DISAGREES, f"lists {', '.join(listed)}, but {run_digest} names "
                       f"{target} in {shown}", file=path, expected=", ".join(naming) or
                       "(no record: the run does not name this digest)",
                       found=", ".join(listed), extra={"run": str(run_digest)})
    return None
