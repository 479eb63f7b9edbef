"""KI227 in ``check`` and ``verify``: a run observed after it entered the repository.

A run's ``observedAt`` is judged against the committer time of the commit that first added
its object (:mod:`kistore.git.first_added`, the rule citations follow), not against the
checking clock: a run added today claiming the day after tomorrow is an error when the
range is checked (the run enters with that range; reviewer r87) and a warning in every
``verify`` after (the history holds it, and runs stored before the rule must still
verify), also once the clock has passed that date (reviewer r85 F17). A run observed
before 2000 is a warning in both. :mod:`kistore.core.observed` owns the rules and their
words; ``add`` judges against the clock (:mod:`kistore.store.observed`). ``verify`` of the work tree
judges the runs ``HEAD``'s history holds: one walk of history (:func:`first_added`, while
its workers check files), and the times its contents check read from each object
(:func:`judge_observed`): a blob is read here only when the check did not read those
bytes (an object since modified or deleted, one without a metadata file), and never past
the store's ``[limits] manifest-bytes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.limits import DEFAULT
from ..core.observed import POINTER, observed_problem, observed_rule, run_observed
from ..core.times import commit_text
from ..git.blobs import read_blob_within
from ..git.first_added import first_commits, object_first_commits
from ..git.range_guard import LooseVerdict

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store


def range_observed(repo: pygit2.Repository, base: pygit2.Commit, head: pygit2.Commit,
                   changed: Iterable[str], verdict: LooseVerdict | None = None,
                   limit: int | None = None) -> list[Finding]:
    """KI227 for the runs ``BASE..HEAD`` adds, against the commit adding each: errors, warnings.

    Args:
        repo: the repository.
        base: the range's base commit.
        head: the range's head commit.
        changed: repository paths the range adds or changes (object files among them).
        verdict: the gate run's guard verdict (:class:`kistore.git.range_guard.
            LooseVerdict`) for the walk of the range; None: a scan of its own.
        limit: most bytes of an added run's blob read (the gate's checking ``[limits]
            manifest-bytes``: a larger blob is the contents check's KI106, its size taken
            from its header and its bytes never read, fresh03 H3); None: any.

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
    found = first_commits(repo, wanted, head, hide=str(base.id), verdict=verdict) \
        if wanted else {}
    return list(_judged(repo, ((path, wanted[path], commit)
                               for path, commit in sorted(found.items())), limit=limit,
                           entering=True))


Added = tuple[str, str, Any]
"""An object file as a commit first added it: repository path, blob id (40 hex), commit."""


def check_observed(store: Store, at: str | None = None, *, limit: int | None = None
                   ) -> list[Finding]:
    """KI227 (warnings) for ``verify``: every run of the history read.

    :func:`judge_observed` of :func:`first_added`, every blob read here. ``verify`` calls
    the two itself, with the times its contents check read (no blob read twice).

    Args:
        store: the store.
        at: revision, or None for ``HEAD`` (nothing for an unborn branch).
        limit: most bytes of a blob read (None: the store's ``[limits] manifest-bytes``).

    Returns:
        One warning per run whose ``observedAt`` lies more than a day after the committer
        time of the commit that first added it (:func:`kistore.git.first_added.
        object_first_commits`), or before 2000.
    """
    if limit is None:
        limit = (store.settings().valid_limits() or DEFAULT).manifest_bytes
    return judge_observed(store.repo, first_added(store, at), {}, limit)


def first_added(store: Store, at: str | None = None) -> list[Added]:
    """Return each object file of the history of ``at`` with the commit that first added it.

    One walk (:func:`kistore.git.first_added.object_first_commits`); no blob is read.

    Args:
        store: the store.
        at: revision, or None for ``HEAD`` (nothing for an unborn branch).

    Returns:
        One :data:`Added` per object path, the first-adding commit's blob and commit.

    Raises:
        InputError: ``at`` names no commit.
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
    return firsts


def judge_observed(repo: pygit2.Repository, firsts: Iterable[Added],
                   known: Mapping[str, tuple[str | None, int | None]], limit: int | None
                   ) -> list[Finding]:
    """KI227 (warnings) of the runs ``firsts`` added, each judged against its adding commit.

    Args:
        repo: the repository.
        firsts: :func:`first_added`.
        known: object path -> (the blob id of the bytes read, or None when not known; the
            run's ``observedAt`` in seconds read from them, or None): what ``verify``'s
            contents check read. A path whose first-added blob is that blob is not read.
        limit: most bytes of a blob read here (a larger one is the contents check's
            KI106); None: any.

    Returns:
        One warning per run whose ``observedAt`` lies more than a day after the committer
        time of the commit that first added it, or before 2000.
    """
    return list(_judged(repo, firsts, known, limit, entering=False))


def _judged(repo: pygit2.Repository, added: Iterable[Added],
            known: Mapping[str, tuple[str | None, int | None]] | None = None,
            limit: int | None = None, *, entering: bool) -> Iterator[Finding]:
    """Yield KI227 per ``(object path, blob, adding commit)`` whose run's time is implausible.

    A blob ``known`` holds the time of is not read; another is read up to ``limit`` bytes.
    ``entering`` as :func:`kistore.core.observed.observed_rule`'s.
    """
    for path, blob, commit in added:
        said_blob, observed = (known or {}).get(path, (None, None))
        if said_blob != blob:
            try:
                data = read_blob_within(repo, blob, limit, path)
            except KistoreError:  # a damaged object: the contents check says it (KI117)
                continue
            if isinstance(data, int):  # past the limit: the contents check's KI106
                continue
            observed = run_observed(data)
        broken = None if observed is None else observed_rule(
            observed, commit.commit_time, entering=entering)
        if observed is not None and broken is not None:
            said = observed_problem(observed, commit.commit_time,
                                    f"commit {str(commit.id)[:12]} first added it")
            yield Finding(broken, str(said), file=path, pointer=POINTER,
                          extra={"commit": str(commit.id), "observed": observed,
                                 "enteredAt": commit_text(commit.commit_time)})
