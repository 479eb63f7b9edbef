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
(the caller reads the files), and their loop, both ways, is the names files' too
(:func:`kistore.check._both_ways.check_both_ways`):

* KI213 ``forward-reference-unrecorded``: a run's reference to a digest with no object file
  in the tree, and no record file listing that field;
* KI214 ``forward-reference-disagrees``: a record file whose bytes are not the sorted fields
  form, whose run has no object, or whose run does not name the digest in exactly those
  fields.

A record is never modified, renamed or deleted (KI410, :func:`kistore.check.lineage.
names_kept`), also once its digest has arrived.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

from ..core import layout
from ..core.digest import Digest
from ..core.findings import ERROR, Finding, rule
from ._both_ways import ABSENT, Absent, check_both_ways

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
    "pull request makes, restore one changed by hand (`git checkout HEAD -- PATH`)")


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

    def needs() -> Iterator[tuple[str, str, tuple[str, str, str, str]]]:
        for run in by_hex.values():
            if not run.has_object:
                continue
            for field_name, ref in sorted(run.references.items()):
                if focus is None and has_object(ref[7:]):
                    continue  # the common case of a whole tree, without building a path
                target = Digest.from_str(ref)
                path = layout.forward_path(target, Digest(run.hex))
                yield path, run.hex, (path, run.hex, field_name, ref)

    def lacks(need: tuple[str, str, str, str], listed: tuple[str, ...] | None | Absent
              ) -> Finding | None:
        path, run_hex, field_name, ref = need
        if has_object(Digest.from_str(ref).hex) or (
                listed is not ABSENT and listed is not None and field_name in listed):
            return None
        return Finding(
            FORWARD_UNRECORDED, f"{field_name} names {ref}, which is not in the store, "
            f"and {path} does not record it", file=layout.object_path(Digest(run_hex)),
            pointer=f"/spec/{field_name}", expected=f"{path} listing {field_name}",
            found="no such file" if listed is ABSENT else "a record without this field",
            extra={"forward_path": path})

    return check_both_ways(
        present, read, layout.fields_from_record,
        lambda path, data, listed: _disagreement(path, data, listed, by_hex), needs(), lacks,
        focus=focus, focus_digests=focus_digests)


def _disagreement(path: str, data: bytes, listed: tuple[str, ...] | None,
                  by_hex: Mapping[str, Run]) -> Finding | None:
    """KI214 for one record file (its bytes, the fields they list), or None when it agrees."""
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
