"""Which runs a range puts in which comparison groups: one answer for the gate's group rules.

A run arrives in comparison group K between BASE and HEAD when HEAD puts it in K and BASE
did not. The gate's rules that judge a run against the other runs of its group (KI232 claims,
:mod:`kistore.check._claims`; KI210/KI217 units and KI221 values,
:mod:`kistore.query.group_rules`; KI234/KI235 outliers, :mod:`kistore.query.outlier_rules`)
each ask :func:`runs_arriving`, so none of them misses a way in that another sees:

1. a group file the range adds (``store/groups/sha256/<XX>/<62 hex of K>/<64 hex of R>``,
   :func:`kistore.core.layout.group_path`, held at HEAD): R arrives in K, the group its path
   names (no read: a run whose own key is another is KI216's). A run object BASE held
   already enters this way when its group file comes after it (a run landed without its
   group file past the hook, KI215 at that base).
2. a run object the range adds (absent at BASE), and each earlier run a forward record of a
   manifest the range adds names (:func:`kistore.core.layout.forward_dir`: a new protocol or
   environment completes its key): the run arrives in the group of its key at HEAD,
   computed as every writer of group files computes it
   (:class:`kistore.core.comparison.RunKeys`), unless BASE gave it that key already. Its
   group file may be older than the run (reviewer break94: a group file landed first, past
   the hook, a base KI216 broke, and the pull request adding the run itself added no group
   file), or missing (KI215's): the run arrives all the same, since rankings group runs by
   their keys.

Cost, O(change): the group files of 1 are paths of the change (one lookup each, at HEAD);
each candidate of 2 that 1 does not name has its object read (one that is no
``BenchmarkRun`` is told by its bytes, unparsed), its protocol and environment read once for
all of them, one listing of the forward directory of each object the range adds; no group is
listed. The gate asks it four times a range (KI232, KI210, KI221, KI234): the answer for
two commits and one change is kept, the last one only (:data:`_LAST`), so it is computed
once (a range of 1,000 runs and 1,000 implementations: ~35 ms of CPU a computation).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ..core import layout
from ..core.comparison import RunKeys, stored_spec
from ..core.digest import Digest, is_digest
from ..core.model import REFERENCE_FIELDS
from ._views import CommitView
from .claims import read_manifest

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._views import View

_RUN = b'"kind":"BenchmarkRun"'
"""What the canonical bytes of every run object hold (RFC 8785: no space after a colon): an
object without it is no run, and is not parsed (gate95 measured ~37 us a manifest parsed)."""


_LAST: list[tuple[tuple[str, str, frozenset[str]], dict[Digest, set[Digest]]]] = []
"""The last answer for two commits (:class:`CommitView` both: a commit id names its files
for good) and a change, with what it was asked of."""


def runs_arriving(before: View, after: View, changed: Iterable[str]
                  ) -> dict[Digest, set[Digest]]:
    """Return the runs a range puts in comparison groups, by group (see the module's rules).

    Args:
        before: the range's base (BASE).
        after: its head (HEAD).
        changed: the repository paths the range adds, changes or deletes.

    Returns:
        comparison key K -> the digests of the runs that are in K at ``after`` and were not
        at ``before``: by a group file the range adds, by a run object it adds, or by a
        manifest it adds that completes an earlier run's key. A run with no object at
        ``after``, a tampered one or one whose key is unknown there arrives in no group by
        rule 2 (other rules say what is amiss: KI101, KI201, KI216). The caller's own
        copy: changing it changes no later answer.
    """
    paths = frozenset(changed)
    asked = _asked(before, after, paths)
    if asked is not None and _LAST and _LAST[0][0] == asked:
        return {key: set(runs) for key, runs in _LAST[0][1].items()}
    arriving = _arriving(before, after, paths)
    if asked is not None:
        _LAST[:] = [(asked, {key: set(runs) for key, runs in arriving.items()})]
    return arriving


def _asked(before: View, after: View, paths: frozenset[str]
           ) -> tuple[str, str, frozenset[str]] | None:
    """Return what an answer is kept under: two commit ids and the change; None: not kept.

    Only two :class:`CommitView` (a work tree, or a staged index, changes under the same
    view).
    """
    if type(before) is not CommitView or type(after) is not CommitView:
        return None
    return str(before.commit.id), str(after.commit.id), paths


def _arriving(before: View, after: View, paths: frozenset[str]) -> dict[Digest, set[Digest]]:
    """:func:`runs_arriving`, computed."""
    arriving: dict[Digest, set[Digest]] = {}
    grouped = {found for path in paths if (found := layout.group_from_path(path)) is not None}
    held = after.modes_of(layout.group_path(key, run) for key, run in grouped)
    for key, run in grouped:
        if layout.group_path(key, run) in held:
            arriving.setdefault(key, set()).add(run)
    named = {run for runs in arriving.values() for run in runs}
    added = [d for path in paths if (d := layout.digest_from_path(path)) is not None
             and path == layout.object_path(d)]
    at_base = before.modes_of(layout.object_path(d) for d in added)
    new = [d for d in added if layout.object_path(d) not in at_base]
    completed = {Digest(leaf) for d in new for leaf in after.list_dir(layout.forward_dir(d))
                 if len(leaf) == 64}
    keys = RunKeys(lambda hex_: read_manifest(after, layout.object_path(Digest(hex_))))
    old_keys = RunKeys(lambda hex_: read_manifest(before, layout.object_path(Digest(hex_))))
    for run in sorted((set(new) | completed) - named, key=str):
        references = _references(after, run)
        group = keys.group(references) if references is not None else None
        if references is None or group is None:
            continue
        if run not in new and (old := old_keys.group(references)) is not None \
                and old[0] == group[0]:
            continue  # BASE put it there: a reference the key does not read completed it
        arriving.setdefault(group[0], set()).add(run)
    return arriving


def _references(view: View, run: Digest) -> Mapping[str, str] | None:
    """Return a stored run's reference fields (field -> ``sha256:<hex>``), or None.

    None when ``view`` holds no object of ``run``, a tampered one (its sha256 is another),
    one that does not parse, or one that is no BenchmarkRun.
    """
    data = read_manifest(view, layout.object_path(run))
    if data is None or _RUN not in data:
        return None
    spec = stored_spec(data, run.hex, "BenchmarkRun")
    if spec is None:
        return None
    return {f: v for f in REFERENCE_FIELDS if isinstance(v := spec.get(f), str) and is_digest(v)}
