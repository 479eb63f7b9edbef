"""KI227 in ``check`` and ``verify``: a run observed after it entered the repository.

A run's ``observedAt`` is judged against the committer time of the commit that first added
its object (:mod:`kistore.git.first_added`, the rule citations follow), not against the
checking clock: a run added today claiming the day after tomorrow is an error when the
range is checked (the run enters with that range; reviewer r87) and a warning in every
``verify`` after (the history holds it, and runs stored before the rule must still
verify), also once the clock has passed that date (reviewer r85 F17). A run observed
before 2000 is a warning in both. :mod:`kistore.core.observed` owns the rules and their words;
``add`` judges against the clock (:mod:`kistore.store.observed`). ``verify`` of the work
tree judges the runs ``HEAD``'s history holds: one walk of history, one read per object.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.observed import POINTER, observed_problem, observed_rule, run_observed
from ..git.blobs import read_blob
from ..git.first_added import first_commits, object_first_commits

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store


def range_observed(repo: pygit2.Repository, base: pygit2.Commit, head: pygit2.Commit,
                   changed: Iterable[str]) -> list[Finding]:
    """KI227 for the runs ``BASE..HEAD`` adds: errors and warnings.

    Args:
        repo: the repository.
        base: the range's base commit.
        head: the range's head commit.
        changed: repository paths the range adds or changes (object files among them).

    Returns:
        One finding per added run: an error when its ``observedAt`` lies more than a day
        after the committer time of the range's commit that first adds it, a warning when
        it lies before 2000.
    """
    wanted = {}
    for path in changed:
        if path.startswith(layout.OBJECTS_DIR + "/") and path not in base.tree:
            try:
                wanted[path] = str(head.tree[path].id)
            except KeyError:
                continue
    found = first_commits(repo, wanted, head, hide=str(base.id)) if wanted else {}
    return list(_judged(repo, ((path, wanted[path], commit)
                               for path, commit in sorted(found.items())), entering=True))


def check_observed(store: Store, at: str | None = None) -> list[Finding]:
    """KI227 (warnings) for ``verify``: every run of the history read.

    Args:
        store: the store.
        at: revision, or None for ``HEAD`` (nothing for an unborn branch).

    Returns:
        One warning per run whose ``observedAt`` lies more than a day after the committer
        time of the commit that first added it (:func:`kistore.git.first_added.
        object_first_commits`), or before 2000.
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    seen: set[str] = set()
    firsts = []
    for path, blob, commit in object_first_commits(repo, store.commit(at or "HEAD")):
        if path not in seen:  # the first yield is the first-adding commit
            seen.add(path)
            firsts.append((path, blob, commit))
    return list(_judged(repo, firsts, entering=False))


def _judged(repo: pygit2.Repository, added: Iterable[tuple[str, str, Any]], *,
            entering: bool) -> Iterator[Finding]:
    """Yield KI227 per ``(object path, blob, adding commit)`` with a bad time.

    ``entering`` as :func:`kistore.core.observed.observed_rule`'s.
    """
    for path, blob, commit in added:
        try:
            observed = run_observed(read_blob(repo, blob, path))
        except KistoreError:  # a damaged object: the contents check says it (KI117)
            continue
        broken = None if observed is None else observed_rule(
            observed, commit.commit_time, entering=entering)
        if observed is not None and broken is not None:
            said = observed_problem(observed, commit.commit_time,
                                    f"commit {str(commit.id)[:12]} first added it")
            yield Finding(broken, str(said), file=path, pointer=POINTER,
                          extra={"commit": str(commit.id), "observed": observed,
                                 "entered": commit.commit_time})
