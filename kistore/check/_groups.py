"""Comparison groups as paths: each run whose comparison key is known is a file of the tree.

Which runs share a comparison key (docs/design.md §6) was known only to the derived query
index, so a run page in a blob-less clone had to fetch every run. Each run R whose key K is
known is therefore a file :func:`kistore.core.layout.group_path`
(``store/groups/sha256/<XX>/<62 hex of K>/<64 hex of R>``) holding
:func:`kistore.core.layout.group_record` of its key object (sha256 of the bytes = K): a
group's members are one tree listing (docs/design.md §3).

A run's key is known when :func:`kistore.core.comparison.run_key_object` of its references
and the specs of its stored protocol and environment (:func:`kistore.core.comparison.
stored_spec`: untampered, of their kinds) is not None. This module holds the two rules that
keep the group files and the runs in step; both are pure (the caller reads the files and
computes the keys), and their loop, both ways, is the names files' and forward records'
(:func:`kistore.check._both_ways.check_both_ways`):

* KI215 ``group-path-missing``: a run whose key is known has no group file at its path;
* KI216 ``group-path-disagrees``: a group file whose run has no object or is no run, whose
  run's key is not known or is another key than its directory's, or whose bytes are not
  exactly the key object's canonical bytes.

A group file is never modified, renamed or deleted (KI410, :func:`kistore.check.lineage.
names_kept`); a path under ``store/groups/`` off the layout is KI110.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from ..core import layout
from ..core.comparison import group_file
from ..core.digest import Digest
from ..core.findings import ERROR, Finding, rule
from ._both_ways import ABSENT, Absent, check_both_ways

GROUP_MISSING = rule(
    "KI215", "group-path-missing", ERROR,
    "a run whose comparison key K is known (its protocol, and environment when the key "
    "names the hardware, are stored) has the file store/groups/sha256/XX/<62 hex of K>/<64 "
    "hex of the run> holding its key object's canonical bytes. Two pull requests merged, "
    "one bringing the run and the other the protocol or environment that completes its key "
    "(each green alone): `kistore migrate --commit` writes and commits every missing one, run "
    "in the branch bringing the protocol or environment, rebased onto main (so does `kistore "
    "add --commit` of that manifest there, stored already). Else `kistore add` writes "
    "it with the run or with the protocol or environment that completes the key; an add or "
    "import interrupted (killed) while writing: run the same `kistore add`/`kistore import` "
    "again, which writes what it lacks. Never delete such a file")
GROUP_DISAGREES = rule(
    "KI216", "group-path-disagrees", ERROR,
    "a group file holds exactly the RFC 8785 bytes of its run's key object, whose sha256 is "
    "the key its directory names, and its run is a stored BenchmarkRun whose key is known: "
    "remove a group file no add writes, restore one changed by hand (`git checkout HEAD -- PATH`)")


class Member(NamedTuple):
    """One manifest as the group rules see it.

    Attributes:
        hex: its digest's 64 hex digits.
        is_run: it has an object file, of kind BenchmarkRun.
        key_object: its key object when its comparison key is known, else None.
    """

    hex: str
    is_run: bool
    key_object: Mapping[str, str] | None


_PREFIX = layout.GROUPS_DIR + "/"
_CUT = len(_PREFIX)


def is_group_path(path: str) -> bool:
    """Whether ``path`` is a group file path of the layout (:func:`layout.group_from_path`)."""
    return path.startswith(_PREFIX) and layout.is_group_path(path)


class Expected(NamedTuple):
    """A run's group file (:func:`expected_file`): its key's hex, path and exact bytes."""

    key_hex: str
    path: str
    data: bytes


KeyCache = dict[tuple[tuple[str, str], ...], tuple[str, bytes]]
"""Key object items -> (key hex, group file bytes): made once per group (:func:`expected_file`)."""


def expected_file(run_hex: str, key_object: Mapping[str, str], cache: KeyCache) -> Expected:
    """Return the group file a run with a known key has: its key, path and exact bytes.

    :func:`kistore.core.layout.group_path` and :func:`kistore.core.layout.group_record`
    (a test holds them equal), made without a digest object a run: the key and bytes once
    per group.

    Args:
        run_hex: the run's 64 hex digits.
        key_object: its key object.
        cache: shared across calls (the runs of one group share key and bytes).
    """
    items = tuple(key_object.items())
    found = cache.get(items)
    if found is None:  # made once a process: KI234 asks for the same keys (group_file)
        digest, record = group_file(key_object)
        found = cache[items] = digest.hex, record
    key, data = found
    return Expected(key, f"{_PREFIX}{key[:2]}/{key[2:]}/{run_hex}", data)


def check_group_files(members: Iterable[Member], present: Iterable[str],
                      read: Callable[[str], bytes | None], *,
                      focus: Callable[[str], bool] | None = None,
                      focus_digests: set[str] | None = None) -> list[Finding]:
    """KI215 and KI216 over one tree: group files and runs must agree, both ways.

    Args:
        members: the manifests known (whole tree: every run; a gate: those it read), by hex;
            every run a present group file names must be among them to be judged found.
        present: the group file paths of the tree (:func:`is_group_path`) among those known,
            regular files or not.
        read: the bytes of a group file path, or None when it is no regular file (KI111
            says so); called at most once per path.
        focus: report only about group paths this is true of, and about the runs of
            ``focus_digests`` (a gate); None: everything.
        focus_digests: with ``focus``, the hex digests of the runs to judge: those the range
            touches, and those whose key a protocol or environment it adds completes.

    Returns:
        KI215 per run whose key is known and whose group path is absent; KI216 per group
        path whose run is no stored run, whose run's key is unknown or another, or whose
        bytes are not :func:`kistore.core.layout.group_record` of the run's key object.
        Unsorted.
    """
    by_hex = {m.hex: m for m in members}
    cache: KeyCache = {}
    made: dict[int, tuple[str, str, bytes]] = {}  # by key object: runs of a group share one
    expected = {}
    for m in by_hex.values():
        if m.is_run and m.key_object is not None:
            group = made.get(id(m.key_object))
            if group is None:
                first = expected_file(m.hex, m.key_object, cache)
                group = made[id(m.key_object)] = (
                    first.key_hex, first.path[:-64], first.data)
            expected[m.hex] = Expected(group[0], group[1] + m.hex, group[2])

    def lacks(need: Expected, held: bytes | None | Absent) -> Finding | None:
        if held is not ABSENT:
            return None  # present: judged as a file (KI216)
        run = Digest(need.path[-64:])
        return Finding(
            GROUP_MISSING, f"{run}'s comparison key is known, and {need.path} does not "
            "record it in its group", file=layout.object_path(run), pointer="/spec",
            expected=f"{need.path} holding {need.data.decode('utf-8', 'replace')}",
            found="no such file", extra={"group_path": need.path})

    def disagrees(path: str, data: bytes, _held: bytes | None) -> Finding | None:
        return _disagreement(path, data, by_hex, expected)

    return check_both_ways(present, read, _same, disagrees,
                           ((e.path, h, e) for h, e in expected.items()), lacks,
                           focus=focus, focus_digests=focus_digests)


def _same(data: bytes) -> bytes:
    """Return a group file's bytes as they are (judged against the run's key object)."""
    return data


def _disagreement(path: str, data: bytes, by_hex: Mapping[str, Member],
                  expected: Mapping[str, Expected]) -> Finding | None:
    """KI216 for one group file (its bytes), or None when it agrees."""
    run_hex = path[-64:]
    wanted = expected.get(run_hex)
    if wanted is not None and wanted.path == path and wanted.data == data:
        return None  # the common case: nothing built
    key, run = Digest(path[_CUT:_CUT + 2] + path[_CUT + 3:_CUT + 65]), Digest(run_hex)
    member = by_hex.get(run_hex)
    if member is None or not member.is_run:
        return Finding(GROUP_DISAGREES, f"puts {run} in comparison group {key}, but {run} has "
                       "no object file of a BenchmarkRun: a group file is written only for "
                       "a stored run", file=path, expected=layout.object_path(run),
                       found="no such run", extra={"run": str(run)})
    if wanted is None:
        return Finding(GROUP_DISAGREES, f"puts {run} in comparison group {key}, but {run}'s "
                       "comparison key is not known (its protocol, or the environment its "
                       "key names, is not stored): its group file is written when they "
                       "arrive", file=path, expected="no group file yet",
                       found="a group file", extra={"run": str(run)})
    if wanted.path != path:
        return Finding(GROUP_DISAGREES, f"puts {run} in comparison group {key}, but its "
                       f"comparison key is sha256:{wanted.key_hex}", file=path,
                       expected=wanted.path, found=path, extra={"run": str(run)})
    return Finding(GROUP_DISAGREES, "a group file holds exactly its run's key object as "
                   "RFC 8785 canonical bytes (its sha256 is the key its directory names)",
                   file=path, expected=wanted.data.decode("utf-8", "replace"),
                   found=repr(data[:400]), extra={"run": str(run)})
