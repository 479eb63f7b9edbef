"""The pull-request gate: what a commit range adds to a store, and whether it may land.

``kistore check BASE..HEAD`` is :func:`check_range` (docs/design.md §4): every check ``verify``
makes, applied to the files the range adds or changes (cross-file checks still see the
whole tree at ``HEAD``), plus the rules about the range itself: no commit in it modifies,
renames or deletes an object, and ``BASE`` is an ancestor of ``HEAD`` (a range that rewrites
history is refused), an attestation file it adds is judged at this machine's clock (KI411:
its commit date is the key holder's to write), a revocation in the trust file is never
lifted, moved later or removed, judged against every version the trust file ever had
(KI412), and no commit renames an object (KI208): :mod:`kistore.check.lineage`; no commit is
dated outside years 1970-9999 or more than a day past this machine's clock, nor (committer
date) more than a day before its parent (KI428: :mod:`kistore.check._dates`). Metadata
edits and re-added identical manifests are reported as information. Everything is read
from git objects, never the work tree, so the gate runs in a bare repository (a
``pre-receive`` hook).

:func:`check_updates` applies the gate to the ref updates a push brings (the lines git
hands ``pre-receive``), and refuses non-fast-forward updates of protected refs, a
protected branch's update whose new first-parent line leaves out its old tip (KI430,
KI431: :mod:`._first_parent`), any
``refs/replace/`` ref and a ref naming no commit (:mod:`._refs`, KI419, KI420).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import cache, partial
from typing import TYPE_CHECKING, Any

from ..attest.attestation import Bundle, text_problems, verify_bundle
from ..attest.evidence import (
    COMMUNITY,
    DISAGREES,
    NOT_COUNTED,
    VERIFIES,
    WITHDRAWS,
    check_attestations,
    judged_among,
    withdrawn_runs,
)
from ..attest.levels import canonical_remote, remote_ref
from ..attest.notepaths import path_findings
from ..attest.notes import (
    ATTESTATIONS_SHA256,
    Seen,
    bundle_copies,
    editor_line,
    lines_of,
    note_lines,
    parse_attestation_path,
)
from ..attest.subjects import subject_problem
from ..attest.trust import load_trust
from ..attest.trust_history import held, trust_blobs
from ..core import canonical, layout
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError, StoreStateError
from ..core.findings import ERROR, INFO, Finding, Rule, rule
from ..core.layout import NOTES_REF
from ..core.limits import DEFAULT, Limits
from ..core.times import commit_text
from ..git import treediff
from ..git.blobs import (
    CommitUnparsable,
    ObjectUnreadable,
    fetch_blobs,
    head_commit,
    is_partial_clone,
    lookup,
    loose_object,
    read_blob,
    read_loose_history,
    read_revision_guarded,
    ref_commit,
)
from ..git.commit_header import header
from ..git.config_guard import ConfigRefused
from ..git.first_added import first_commits
from ..git.lazy import pygit2  # imported on first use (~0.2 s)
from ..git.names import reference
from ..git.note_blobs import read_note
from ..git.notes import changed_notes, note_blob, notes_tree
from ..git.pathlog import blob_at
from ..git.quarantine import admit_quarantine, received_damage
from ..git.range_guard import LooseVerdict, damage_named, line_to
from ..git.refs import RefFileRefused
from ..git.remotes import remote_names
from ..store.admission import metadata_difference
from ..store.migrate import plan_groups
from ._added_removed import added_then_removed
from ._backdated import backdated_trust
from ._claims import range_claims
from ._commit_clock import commits_ahead
from ._commits import commit_findings, unparsable_finding
from ._dates import make_again, range_dates

# re-exported: `kistore notes push` says KI439's way out
from ._entry_verdict import ENTRY_VERDICT_DIFFERS as ENTRY_VERDICT_DIFFERS
from ._entry_verdict import entry_times, judged_at_entry
from ._every_commit import LAYOUT_RULES, every_commit, stays_in_history
from ._evidence_kept import evidence_kept, pushed_unreviewed
from ._first_parent import FIRST_PARENT_LINE_BROKEN, first_parent_findings
from ._fixes import HINT_BASE, Base, brought_fix, staged_fix, unread_remotes_said
from ._focus import range_paths
from ._gate_code import gate_code_changed
from ._groups import GROUP_MISSING
from ._history import OBJECT_DELETED, ancestry, check_history, history_findings, objects_tree
from ._ignored import range_gitignores
from ._lowered import (
    lowered_limits,
    own_limits,
    reads_settings_of,
)
from ._metadata_gaps import metadata_gaps
from ._metadata_versions import metadata_versions
from ._mixed_authors import one_blank_author, range_authors
from ._names import NAME_PATH_DISAGREES, NAME_PATH_MISSING
from ._names_moved import NAMES_FILE
from ._notes_clock import notes_off_clock
from ._notes_history import (
    BroughtNotes,
    Removal,
    brought_notes,
    entered_in,
    history_blobs,
    history_lines,
    history_paths,
    lost_lines,
    rebase_advice,
    removal_blobs,
    removals,
    restore_advice,
    said,
    stuck_advice,
)
from ._notes_size import oversized_notes
from ._observed import range_observed
from ._paths import walk_judge
from ._policy import check_policy
from ._pre_trust_notes import pre_trust_made_again, pre_trust_notes
from ._products import range_products
from ._redated import EffectChanged, effects_made_again
from ._refs import (
    REF_NOT_FAST_FORWARD,
    REPLACE_REFS_PRESENT,
    TAGS_PREFIX,
    ZERO,
    check_replace_refs,
    fast_forward_fix,
    protected_refs,
    pushed_ref_problem,
    stale_alias,
    symbolic_target,
    tag_rewritten,
    update_name,
)
from ._root_versions import root_versions
from ._rules import (
    CHECKING_SETTINGS_INVALID,
    FILE_TOO_LARGE,
    METADATA_FIX,
    NEW_FILE_TOO_LARGE,
    PATH_CASE_COLLISION,
    SETTINGS_INVALID,
    VALUE_TOO_LONG,
    range_metadata_fix,
    sort_key,
)
from ._settings import limits_raised, permalink_changed, settings_findings
from ._stale import merges_between, stale_main, stale_tracking
from ._taken import names_one_cause, taken_name_fixes
from ._trees import TREE_ENTRY_INVALID, new_tree_findings, rebuild_fix

# re-exported: `kistore notes push` says KI442 of a line it sent (fresh15 F2)
from ._widened_past import PRE_TRUST_COUNTS as PRE_TRUST_COUNTS
from ._widened_past import pre_trust_counted, widened_past
from .audit import GITATTRIBUTES, check_contents, checking_limits, gate_fixes, one_cause
from .lineage import (
    APPEND_ONLY_REMOVED,
    NAME_MOVED,
    changing_commits,
    check_shallow,
    names_kept,
    revocations_kept,
    shallow_cut,
)
from .reach import landing_tips, push_base, rebase_start

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Files, Settings, Store, View

BASE_NOT_ANCESTOR = rule(
    "KI404", "base-not-an-ancestor", ERROR,
    "rebase onto BASE (`git rebase BASE`: it leaves out commits BASE already has under "
    "other ids, a pull request landed by rebase or cherry-pick) or merge BASE into the "
    "branch; never rewrite commits BASE already has")
METADATA_UPDATED = rule(
    "KI405", "metadata-updated", INFO,
    "nothing to fix: metadata may be corrected; reviewers see what changed")
ALREADY_PRESENT = rule(
    "KI406", "manifest-already-present", INFO,
    "nothing to fix: re-adding an identical manifest is a no-op")


def _citation_hint(base: Base) -> str:
    """Return KI425's hint, the rebase naming ``base`` (:class:`._fixes.Base`); raises nothing."""
    return (f"rebase the branch onto BASE ({base.onto()}) instead of merging BASE into it, or "
            "drop the commit that re-adds the object: a citation names the commit that first "
            "added an object, and must never move")


CITATION_MOVED = rule("KI425", "citation-moved", ERROR, _citation_hint(HINT_BASE))
RangeChecker = Callable[["Store", str, str, set[str]], list[Finding]]
"""A further check of a range, ``checker(store, base id, head id, changed paths)``, of a
layer above this one, which the caller of :func:`check_range` passes (``checkers=``):
``kistore check`` passes :func:`kistore.query.impact.trust_and_policy_effects` (what a
change to trust or policy does to evidence and rankings, KI413-KI415) and
:func:`kistore.query.group_rules.units_agree` (KI210), and
:func:`kistore.query.outlier_rules.range_outliers` (KI234)."""

_HEX = re.compile(r"[0-9a-f]{40}")
"""A full commit id as a hook gives it (40 lowercase hex digits)."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""A placeholder entry time: :func:`_judged_now` judges new attestations at the clock."""


def parse_range(spec: str) -> tuple[str, str]:
    """Split ``BASE..HEAD`` into its two revisions.

    Raises:
        InputError: when ``spec`` is not two revisions joined by exactly two dots.
    """
    base, sep, head = spec.partition("..")
    if not sep or not base or not head or head.startswith("."):
        raise InputError(f"{spec!r} is not a range; write BASE..HEAD, e.g. origin/main..HEAD")
    return base, head


def check_range(store: Store, spec: str, *, whole_tree: bool = False,
                checkers: Sequence[RangeChecker] = (), now: datetime | None = None,
                landed: bool = False, verdict: LooseVerdict | None = None,
                staged: bool = False) -> list[Finding]:
    """Check what the commits in ``BASE..HEAD`` add to the store (the pull-request gate).

    Costs what the range changes: the cross-file rules look up single paths of ``HEAD``'s
    tree (:mod:`._focus`), never a listing of every file.

    Args:
        store: a :class:`kistore.store.Store` (a bare repository is fine).
        spec: ``BASE..HEAD``, any revisions git understands.
        whole_tree: list and read every file of ``HEAD`` for the cross-file rules instead
            (the same findings, at O(store); tests compare the two).
        checkers: the rules of the layers above this one to apply too (each
            :data:`RangeChecker`, after this module's); default none: the check layer's
            rules only. ``kistore check`` passes the query layer's (KI210, KI413-KI415).
        now: the checking clock KI428 holds commit dates to (aware); None: this machine's.
        landed: the range is a move of the protected branch from ``BASE`` to ``HEAD``
            (the workflow's ``landed`` job: ``check --landed``; :func:`check_updates`
            applies the same rules to a protected branch itself), not a pull request's
            branch: ``BASE`` must be on ``HEAD``'s first-parent line (KI430) and
            that line's new commits dated no earlier than ``BASE`` minus a day (KI431,
            :mod:`._first_parent`). False: a branch that merged ``BASE`` in is normal.
        verdict: the guard's verdict on the loose object files
            (:class:`kistore.git.range_guard.LooseVerdict`) of the gate run this range
            belongs to (:func:`check_updates`: one a push); None: one made here, for every
            walk of this range (the files are scanned once a run, not once a walk).
        staged: ``HEAD`` is the pre-commit hook's commit of the index on the checked-out
            ``BASE`` (``check --staged``): an object edit's fix restores the staged files
            (``git checkout HEAD -- PATH``) instead of dropping a commit of the branch
            (:attr:`._fixes.Base.staged`).

    Returns:
        KI428 per commit of the range whose author or committer date lies outside years
        1970-9999 or more than a day past ``now``, or whose committer date lies more than
        a day before a parent's (:mod:`._dates`); one KI438 when a commit's committer
        date lies more than five minutes past ``now`` (:mod:`._commit_clock`). With
        ``landed``: KI430 when ``BASE`` is
        not on ``HEAD``'s first-parent line, else KI431 per commit of that line after
        ``BASE`` dated more than a day before it. KI404 alone when ``BASE`` is not an
        ancestor of ``HEAD``; KI416 alone (an error) when it cannot be told because a
        shallow clone's boundary is in ``HEAD``'s history
        (:func:`.lineage.shallow_cut`). KI225 and KI423 alone (errors), one per commit
        of the range whose header lines git's fsck refuses (:func:`._commits.commit_findings`)
        and one per entry git's fsck refuses of a tree a commit of the range brings (an
        entry whose object is not of the type its mode names too)
        (:func:`._trees.new_tree_findings`), when there is one. Otherwise: KI401-KI403 for
        any commit in the range that modifies, renames or deletes an object; every KI1xx and
        KI2xx finding about a path the range adds or changes under ``store/`` (or
        ``.gitattributes``); KI115, KI118 and KI112 per name a commit of the range brings,
        anywhere in the tree, found on KI423's walk (:func:`._paths.walk_judge`; one a
        later commit removes says so: :func:`_removed_since`); KI110, KI111, KI114 of each
        file under ``store/`` a commit brings where the layout has none, and KI101 of each
        one at an object's path ``BASE`` lacks whose bytes are another digest's, that
        ``HEAD`` does not hold so (:mod:`._every_commit`: the commit stays in the
        history); of each version of a metadata file a commit brings that ``HEAD`` does
        not hold, what ``HEAD``'s would be told (KI102-KI107, KI104 of the schema:
        :mod:`._metadata_versions`), and of each version of the top ``.gitattributes``,
        ``.gitignore`` and ``kistore.toml`` likewise (KI113, KI119, KI108, KI106/KI107 of a
        lowered limit: :mod:`._root_versions`), each naming its commit; KI204 of each
        commit at which an object's metadata file goes missing and a later one brings it
        back (:mod:`._metadata_gaps`); the KI402, KI208 and KI410 of files the range both
        brings and removes said once per rule, their fix dropping both commits
        (:mod:`._added_removed`); KI119 per line of a
        ``.gitignore`` the range adds or changes that may match a path under ``store/``
        (:func:`._ignored.range_gitignores`); KI405 (info) per metadata file changed,
        naming the changed fields; KI406 (info) per object a commit re-added that
        ``BASE`` already holds; KI425 per such object whose first-adding commit (what
        citations name, :mod:`kistore.git.first_added`) is another at ``HEAD`` than at ``BASE``;
        KI410 per attestation, trust or policy file deleted; KI411 per attestation file
        added whose key the trust file at ``BASE`` or ``HEAD`` does not accept now; KI412
        per key any earlier version of the trust file revoked (along BASE's first-parent history,
        or in the range) that HEAD's no longer revokes as early (:mod:`.lineage`); KI208 per
        metadata file a commit of the range renames. The range's files are held to the
        checking limits (:func:`.audit.checking_limits`) and to HEAD's committed ones (what
        ``verify`` holds them to after the merge); KI106/KI107 on them carry the fix for a
        file not yet stored (:data:`._rules.NEW_FILE_TOO_LARGE`). When HEAD's
        ``kistore.toml`` lowers a limit below BASE's, KI106/KI107 per stored file of HEAD
        past it too (:func:`._lowered.lowered_limits`; a walk of HEAD's files paid only then).
        KI108 on ``kistore.toml`` for each bad key when HEAD's settings do not parse
        (``add`` and ``import`` would refuse the store after the merge, and queries and
        ``verify`` read each bad key as its default), when its ``[cite]`` is one ``kistore
        cite`` refuses, its ``[store] version`` is not this kistore's, or per table kistore
        does not read (:func:`._settings.settings_findings`, one parse of HEAD's file), each
        at its line; and when the range deletes the ``kistore.toml`` BASE holds
        (:func:`_settings_deleted`). KI422 (a warning) when it sets, changes or removes
        ``[cite] permalink`` (:func:`._settings.permalink_changed`); KI426 (a warning) per
        ``[limits]`` key it raises (:func:`._settings.limits_raised`). KI109 (a warning)
        when the checking repository's own settings do not parse: the range is then held
        to the default limits (and to BASE's and HEAD's committed ones), unless that file
        is HEAD's, whose KI108 says it (:func:`._lowered.own_limits`). KI229 (a warning)
        per ExecutionEnvironment it adds whose GPU product differs from another spelling
        of HEAD only in case, spacing, punctuation, Unicode form or a leading vendor name
        (:func:`._products.range_products`).
        KI232 per run it puts in a comparison group while another run of that group claims
        the same source record (:func:`._claims.range_claims`).
        KI429 (a warning)
        when it adds, changes or deletes a file the gate installs or runs (``kistore/``,
        ``Makefile``, the workflows: :func:`._gate_code.gate_code_changed`).

    Raises:
        InputError: a malformed range or a revision that names no commit.
        CommitUnparsable: a commit the range's walks read is one libgit2 cannot parse (no
            author line...), or a loose one of HEAD's or BASE's history
            (:mod:`kistore.git.range_guard`); ``kistore check`` reports it as KI225
            (:func:`kistore.check.audit.stopped_finding`).
    """
    base_rev, head_rev = parse_range(spec)
    repo = store.repo
    admit_quarantine(repo)
    base, head = store.commit(base_rev), store.commit(head_rev)
    # the loose commits read before libgit2 walks any (a cut one loops it: F3), and a walk's
    # failure named (one it cannot parse stopped descendant_of with an internal error: KI225
    # now, reviewer r82 F1): the range's cost, not HEAD's whole history (gate96), the
    # loose files scanned once for every walk of the run (upd97)
    verdict = LooseVerdict(repo) if verdict is None else verdict
    verdict.guard((head.id, base.id))
    descends = line_to(repo, head.id, base.id) is not None  # a line of commits on BASE
    if not descends:  # libgit2 says (a merge, a rewrite)
        with damage_named(repo, head.id, base.id):
            descends = bool(repo.descendant_of(head.id, base.id))
    if not descends:
        cut = shallow_cut(store, base, head, base_rev, head_rev)
        if cut is not None:  # a shallow clone's boundary on the way: not known to rewrite
            return [cut]
        why, fix = _behind(repo, base.id, head.id, base_rev)
        return [Finding(
            BASE_NOT_ANCESTOR, f"{base_rev} ({str(base.id)[:12]}) is not an ancestor of "
            f"{head_rev} ({str(head.id)[:12]}): {why}", fix=fix,
            expected=f"{head_rev} to contain {base.id}",
            found=("a branch behind it" if repo.descendant_of(base.id, head.id)
                   else "diverged history"),
            extra={"base": str(base.id), "head": str(head.id)})]
    commits = list(ancestry(repo, head, hide=base, verdict=verdict))
    # KI423 first, read raw: libgit2 cannot parse some such trees (an empty name), and
    # git and kistore read different files from the others, so nothing else is judged
    # (so for a commit git's fsck refuses: KI225); on the same walk KI115, KI118 and
    # KI112 of each name a commit brings (r82 F6)
    # every fix names BASE by its id, as git takes it (fresh95 F6), HEAD in pre-commit
    # a rebase starts after any commit a remote's main holds (a fork's stale main as BASE:
    # U1); found when a fix first names it, once (it reads every remote's main: mend02),
    # a remote whose main cannot be read left out and said in the fixes naming the rebase;
    # whether the rebase makes a merge again (--rebase-merges: hist01) asked with it
    skipped: list[tuple[str, str]] = []
    start = cache(partial(rebase_start, repo, str(base.id), str(head.id), skipped))
    named = Base(str(base.id), _is_head(repo, base), staged=staged, rebase_from=start,
                 merges=cache(lambda: _rewrites_merge(repo, commits, start())))
    objects: list[tuple[str, str, str]] = []  # each object file a commit brings (KI101)
    walked = [replace(f, fix=rebuild_fix(named)) if f.rule is TREE_ENTRY_INVALID else f
              for f in new_tree_findings(repo, commits,
                                         judge=partial(walk_judge, objects=objects))]
    headers = {str(c.id): header(c.read_raw()) for c in commits}  # read once: KI225, KI428
    malformed = commit_findings(headers) + [f for f in walked if f.rule is TREE_ENTRY_INVALID]
    if malformed:
        return sorted(malformed, key=sort_key)
    unmigrated = _unmigrated(store, base.tree, head.tree) or _ungrouped(store, base, head)
    if unmigrated is not None:
        return [unmigrated]
    # each kistore.toml read and parsed once: the checking repository's, BASE's, HEAD's
    own_settings, head_settings = store.settings(), store.settings(str(head.id))
    own, warned = own_limits(store, own_settings)  # the defaults, and KI109
    findings = history_findings(repo, commits, base=named)  # KI401-KI403
    dated = [replace(f, fix=make_again(named))  # KI428
             for f in range_dates(repo, commits, now, headers)]
    findings += dated + commits_ahead(commits, now, named, _committer_dated(dated))  # KI438
    if landed:  # KI430, KI431: main's first-parent line only grows
        findings += first_parent_findings(base, head, commits, spec, now, landed=True)
    store_changes = _store_changes(repo, base.tree, head.tree)  # read once: shard trees
    changed, metadata_edits = _changed_paths(store_changes)
    base_settings = store.settings(str(base.id))
    committed = (base_settings.valid_limits(), head_settings.valid_limits())
    files = _range_files(store, str(base.id), str(head.id), changed, whole_tree, committed,
                         own)
    findings += [_new_file_fix(f) for f in check_contents(files, focus=changed, base=named)]
    # lowered from what BASE states, a value past its ceiling too (reviewer r79 F9)
    findings += lowered_limits(store, str(head.id), changed, base_settings.stated_limits(),
                               committed[1], head_settings.data)
    # KI108: [limits] (add refuses the store), tables, [store] version, [cite]
    findings += settings_findings(head_settings)
    findings += _settings_deleted(base_settings, head_settings, named)
    findings += permalink_changed(base_settings, head_settings, named)  # KI422
    findings += limits_raised(base_settings, head_settings, named)  # KI426
    findings += _own_settings(own_settings, head_settings, warned)
    findings += [_metadata_update(repo, path, old, new) for path, old, new in metadata_edits]
    re_added = _re_added(repo, commits, base.tree)
    findings += _already_present(re_added)
    findings += _citations_moved(repo, re_added, base, head, named)  # KI425
    findings += range_observed(repo, base, head, changed, verdict, files.limit)  # KI227
    findings += range_products(store.view(str(head.id)), store.view(str(base.id)),
                               changed)  # KI229
    findings += range_authors(store.view(str(head.id)), store.view(str(base.id)),
                              changed)  # KI254, KI251, KI253
    findings = one_blank_author(findings)  # KI254 an error of an author the range adds
    findings += range_claims(store.view(str(head.id)), changed,  # KI232
                             withdrawn_runs(store, at=str(head.id)),
                             before=store.view(str(base.id)))
    findings += _special_files(store, str(head.id), changed)
    findings += _removed_evidence(store_changes)
    findings += evidence_kept(store, commits, named, (base, head), now)  # KI410 at each commit
    findings += widened_past(store, commits, named, head)  # KI435 at each commit
    findings += pre_trust_counted(store, commits, head)  # KI442 at each commit
    findings += _new_files_untrusted(store, base, head, changed)
    findings += names_kept(repo, commits, named, (base.tree, head.tree), metadata_edits)
    # KI115, KI118, KI112
    findings += [_removed_since(repo, head.tree, f, named) for f in walked
                 if f.rule not in LAYOUT_RULES and not _collision_at_head(repo, head.tree, f)]
    findings += range_gitignores(repo, base.tree, head.tree, store_changes)  # KI119
    findings += gate_code_changed(repo, base.tree, head.tree)  # KI429
    if _trust_touched(repo, base, commits):
        findings += revocations_kept(store, base, head, commits)
    for checker in checkers:
        findings += checker(store, str(base.id), str(head.id), changed)
    findings += check_shallow(store) + check_replace_refs(store)
    # an object renamed by hand: its KI101's `mv` alone, as verify says it (fix91's leftover:
    # the gate also said KI203, KI204, KI215, each advising to write or remove a file)
    # an object edited, then deleted: KI401 names both commits (history_findings), no
    # KI203 (one_cause, r93b G2)
    findings = one_cause(gate_fixes(findings, named), base=named)
    findings = _metadata_fixes(store, findings, named)
    findings = names_one_cause(findings, findings)  # a deleted names file: KI208's fix
    # a name taken: the arriving manifest's fix, on the stored one's findings too (fresh99 M3)
    findings = taken_name_fixes(findings, named, (base.tree, head.tree), lambda path: [
        str(c.id) for c in reversed(changing_commits(repo, commits, path))],
        {str(c.id): i for i, c in enumerate(reversed(commits))})
    if named.staged:  # an object deleted with its metadata: both restored at once (mend02)
        findings = [_deleted_with_metadata(f, store_changes) for f in findings]
    else:  # a copy, a case pair: out of the commit bringing it (case99)
        findings = [_brought(repo, base.tree, f, named) for f in findings]
        # a file outside the layout, or no object's bytes, in a commit but not at HEAD
        # (hist00): after the fixes above, which are of HEAD's files
        findings = _one_cause_brought(findings, every_commit(
            repo, walked, objects, store_changes, (base.tree, head.tree), named, commits))
        # each version of a metadata file a commit brings, as HEAD's are judged (hist02)
        findings += metadata_versions(store, objects, store_changes, (base.tree, head.tree),
                                      named, commits, (files.limit, files.value_limits))
        # an object's metadata file missing at a commit (KI204 there: fresh04 H2), HEAD's
        # KI204 of one the range deleted fixed in the commit deleting it (hist03)
        findings = metadata_gaps(repo, findings, commits, (base.tree, head.tree), named)
        # files brought and removed again: drop both commits, said once a rule (fresh04 M3)
        findings = added_then_removed(repo, findings, commits, (base.tree, head.tree), named)
        # KI113, KI119, KI108, KI106/KI107 of the top files' versions (hist02)
        findings += root_versions(store, commits, (base.tree, head.tree), named,
                                  base_settings.stated_limits())
    return sorted(unread_remotes_said(findings, skipped, named), key=sort_key)


def _one_cause_brought(findings: list[Finding], brought: list[Finding]) -> list[Finding]:
    """Return ``findings`` and ``brought`` (:func:`._every_commit.every_commit`'s), one cause.

    A names file a commit of the range brings wrong (KI212 of that commit) and a later one
    deletes or rewrites is KI208 of the later commit too, whose fix (drop the later commit)
    leaves the wrong record at HEAD: the KI212's fix (take it out of the commit bringing
    it, and drop the later one left empty) is the one that works, and the KI208 is left out.
    """
    wrong = {f.file for f in brought if f.rule is NAME_PATH_DISAGREES}
    return [f for f in findings if not (f.rule is NAME_MOVED and f.file in wrong)] + brought


def _rewrites_merge(repo: pygit2.Repository, commits: list[Any], start: str) -> bool:
    """Whether a merge of the range is one a fix's rebase from ``start`` makes again.

    ``commits``: the range's (``BASE..HEAD``); ``start``: where the rebase starts
    (:func:`.reach.rebase_start`, BASE or a later commit a remote's main holds). A merge
    ``start`` reaches is upstream's, landed, and no rebase from ``start`` touches it. One
    ancestry question per merge of the range (none for a line of commits).
    """
    return any(len(c.parent_ids) > 1 and str(c.id) != start
               and not repo.descendant_of(start, c.id) for c in commits)


def _pair_then(other: str) -> str:
    """Return the last clause of the fix of a case pair's brought file beside ``other``.

    Another name fits a file whose name is free (outside ``store/``: ``readme.md`` beside
    ``README.md``); an object's or a metadata file's name is its digest, a names file's the
    ``metadata.name`` it records (lower case, as every name under ``store/``), which
    ``other`` holds already: its copy has no name to take (fresh00b LOW, low01: "give it
    another name").
    """
    if layout.digest_from_path(other) is not None:
        return ("nothing else is to be written or removed for it: an object's or metadata "
                f"file's name is its digest, and {other} holds that name already")
    if other.startswith(layout.NAMES_DIR + "/"):
        return ("nothing else is to be written or removed for it: a names file's name is "
                f"the metadata.name it records, in lower case, and {other} holds that name "
                "already")
    if (other + "/").startswith(layout.STORE_DIR + "/"):
        return ("nothing else is to be written or removed for it: every name under store/ "
                f"is the layout's, in lower case, and {other} holds that name already")
    return "or, to keep it, give it a name no other path of its directory has in any case"


def _brought(repo: pygit2.Repository, base_tree: Any, finding: Finding, base: Base
             ) -> Finding:
    """Give a copy's KI101/KI110 and a KI112 the branch's fix (:func:`._fixes.brought_fix`).

    Their work tree's fix (``rm`` the copy; rename or remove one of the pair) in a later
    commit of the branch leaves the commit bringing the file in the history: refused for a
    case pair (KI112 reads every commit), a stray file in main's history for any other
    copy (fresh99 H2). A copy written over another object's file keeps its own fix (it
    restores that object: :func:`.audit.one_cause`). Of a pair, the path to take out is
    the one ``BASE`` lacks (the contents check names the later in code point order, which
    may be the stored file: one lookup in ``BASE``'s tree). Raises ObjectUnreadable only
    for a damaged tree of ``BASE`` on the way.
    """
    if finding.rule is PATH_CASE_COLLISION and finding.file:
        path, other = finding.file, finding.extra["collides_with"]
        if treediff.entry_at(repo, base_tree, path) is not None and \
                treediff.entry_at(repo, base_tree, other) is None:
            path, other = other, path  # the stored one is BASE's: the other is brought
        return replace(finding, fix=brought_fix(
            f"{path}, colliding with {other}", path, base.rebase_args, _pair_then(other)))
    if finding.extra.get("copy") and "over" not in finding.extra and finding.file:
        what = ("a copy of a names file" if NAMES_FILE in finding.extra
                else "a copy of a stored object")
        return replace(finding, fix=brought_fix(
            what, finding.file, base.rebase_args,
            "nothing else is to be written or removed for it"))
    return finding


def _deleted_with_metadata(finding: Finding, changes: dict[str, treediff.Change]) -> Finding:
    """Return the pre-commit hook's KI402 naming the object's metadata file staged deleted too.

    ``git rm`` of an object and its metadata file was told KI402 and to restore the object
    alone (:func:`._history._fix`): the metadata file's absence showed only once the object
    was back, as KI204 on a second commit attempt (fix00's leftover). Its KI402 now says
    the metadata file went too and restores both. A finding of another rule, or a KI402
    whose metadata file the staged changes keep, is returned as it is.

    Args:
        finding: one of the hook's findings (its range ``HEAD..STAGED``).
        changes: the range's net change under ``store/`` (:func:`_store_changes`).

    Returns:
        ``finding``, or a KI402 whose message adds ``; its metadata file META is deleted
        too`` and whose fix (:func:`._fixes.staged_fix`) checks both files out of ``HEAD``
        (``extra["metadata"]``: META). Raises nothing.
    """
    if finding.rule.id != OBJECT_DELETED.id or not finding.file:
        return finding
    digest = layout.digest_from_path(finding.file)
    if digest is None or finding.file != layout.object_path(digest):
        return finding
    meta = layout.metadata_path(digest)
    before, after = changes.get(meta, (None, None))
    if before is None or after is not None:  # HEAD held none, or the index holds it still
        return finding
    return replace(
        finding, message=f"{finding.message}; its metadata file {meta} is deleted too",
        extra={**finding.extra, "metadata": meta},
        fix=staged_fix("an object deleted, and its metadata file with it",
                       f"{finding.file} {meta}",
                       "objects are never deleted (a withdrawal is an attestation)"))


def _metadata_fixes(store: Store, findings: list[Finding], base: Base) -> list[Finding]:
    """Give each finding with :data:`._rules.METADATA_FIX` the range's fix, naming BASE.

    That fix says ``git checkout HEAD -- PATH``, which in a range restores nothing: HEAD is
    the commit holding the bad bytes (last97 1d). One read of BASE's file per such finding
    (:func:`._rules.range_metadata_fix`).
    """
    view = store.view(base.id)
    return [replace(f, fix=range_metadata_fix(f.file, base, view.read(f.file)))
            if f.fix == METADATA_FIX and f.file else f for f in findings]


def _is_head(repo: pygit2.Repository, commit: Any) -> bool:
    """Whether ``commit`` is the checked-out ``HEAD`` of a work tree (the pre-commit hook's BASE).

    A bare repository (a server's pre-receive, where HEAD is the branch's old tip, BASE) is
    never: the person reading the fix is in a clone whose HEAD holds the pushed commits.
    """
    try:
        return not repo.is_bare and not repo.head_is_unborn and repo.head.target == commit.id
    except pygit2.GitError:  # a detached or broken HEAD in a bare server: name the id
        return False


def _unmigrated(store: Store, base: pygit2.Tree, tree: pygit2.Tree) -> Finding | None:
    """KI211 for the store when HEAD holds manifests but no ``store/names/`` at all.

    Only when BASE has none either: a range that deletes the ``store/names/`` BASE holds
    is that deletion, a KI208 per names file (:func:`.lineage.names_kept`), not a store
    made before names were paths (review r75 F14: migrate was the wrong advice).

    The gate answers "is this name taken" by looking up one names file: in a store made
    before names were paths there is none to look up, and a second claim on a name would
    pass (review 2026-12-01 F2). Such a store fails ``verify`` too (KI211 on every
    manifest); ``kistore migrate --commit`` writes the names files and forward records.

    A manifest is an object file where the layout puts one (:func:`_holds_manifest`):
    anything else under ``store/objects`` (a symlink, a stray file) in a store with no
    manifests yet is left to the range's own checks, which say what ``verify --at HEAD``
    says (KI110, KI111); migrate could not help it (review r60 F21: the advice looped).
    """
    objects = treediff.subtree_id(store.repo, tree, layout.OBJECTS_DIR)
    if (objects is None or any(treediff.subtree_id(store.repo, t, layout.NAMES_DIR) is not None
                               for t in (tree, base))
            or not _holds_manifest(store.repo, objects)):
        return None
    return Finding(NAME_PATH_MISSING, "this store has manifests but no store/names/: it was "
                   "made before names were paths, and the gate cannot tell a taken name; "
                   "land the commit `kistore migrate --commit` makes first, then this change",
                   file=layout.NAMES_DIR)


def _holds_manifest(repo: pygit2.Repository, objects: pygit2.Oid) -> bool:
    """Whether the ``store/objects/sha256`` tree ``objects`` holds one object file.

    An object file: a regular file named by 62 hex digits and ``.json`` in a shard folder
    named by two (:func:`kistore.core.layout.is_shard_name`, ``is_leaf_name``). Stops at
    the first: one listing of one shard in a store with manifests.
    """
    for shard in treediff.subtree(repo, objects):
        if shard.type_str != "tree" or not layout.is_shard_name(shard.name or ""):
            continue
        if any(leaf.type_str == "blob" and _kind(leaf.filemode) == 0o100644
               and layout.is_leaf_name(leaf.name or "")
               for leaf in treediff.subtree(repo, shard.id)):
            return True
    return False


def _ungrouped(store: Store, base: pygit2.Commit, head: pygit2.Commit) -> Finding | None:
    """KI215 for the store when BASE has no ``store/groups/`` and HEAD lacks group files.

    The gate checks the group files of the runs a range touches; a store made before
    comparison groups were paths has none for its earlier runs, and a reader of a
    blob-less clone trusts a group's listing as complete (review 2026-12-01 F2: a rank of
    1 of 1 where a full clone said 1 of 4). So while BASE has manifests and no
    ``store/groups/``, each group file BASE's runs already needed
    (:func:`kistore.store.migrate.plan_groups` of BASE) must be in HEAD: the range is
    ``kistore migrate --commit``'s commit, or brings it. The runs whose key the range
    itself completes are the range's own checks' (per run, KI215). That look is O(store),
    paid only until a store's first group file lands.
    """
    if (treediff.subtree_id(store.repo, base.tree, layout.OBJECTS_DIR) is None
            or treediff.subtree_id(store.repo, base.tree, layout.GROUPS_DIR) is not None):
        return None
    try:
        needed = plan_groups(store.view(str(base.id)))
    except KistoreError:
        return None  # a group file holding other bytes: the range's own checks say so
    head_view = store.view(str(head.id))
    missing = [w for w in needed if head_view.read(w.path) != w.data]
    if not missing:
        return None
    return Finding(GROUP_MISSING, f"{len(missing)} run(s) with a known comparison key have "
                   "no group file: this store was made before comparison groups were "
                   "paths, and a blob-less clone would rank from an incomplete group; land "
                   "the commit `kistore migrate --commit` makes first, then this change",
                   file=layout.GROUPS_DIR)


def _behind(repo: pygit2.Repository, base: pygit2.Oid, head: pygit2.Oid, base_rev: str
            ) -> tuple[str, str | None]:
    """Say why a range's BASE is not in HEAD: a branch left behind, or a rewritten history.

    A branch that forked from BASE's history and was not updated since (BASE moved on)
    needs a merge or a rebase, not an apology for rewriting anything; a HEAD sharing no
    history with BASE, or whose fork point BASE's first-parent line never passed, rewrote it.

    Returns:
        ``(why, fix)``: KI404's message after "is not an ancestor of HEAD: ", and its fix
        when the rule's own (rebase or merge) would mislead: a branch whose commits BASE
        holds already (:func:`_landed_again`) must rebase, since a merge re-adds their
        objects (KI425; fresh00 M2, fresh00b Q1); None otherwise.
    """
    for tip in (base, head):  # libgit2 loops on a cut loose commit (F3)
        read_loose_history(repo, tip)
    fork = repo.merge_base(base, head)
    if fork is None:
        return "the two share no history (the range rewrites it)", None
    if fork == head:  # HEAD is in BASE's history: behind, with nothing of its own
        walker = repo.walk(base)
        walker.hide(head)
        return (f"the branch is {sum(1 for _ in walker)} commit(s) behind {base_rev} and "
                "adds none: there is nothing to merge; commit the change on top of "
                f"{base_rev} (`git rebase {base_rev}` or `git merge {base_rev}` first)"), None
    walker = repo.walk(base)
    walker.hide(fork)
    lacked = list(walker)
    landed, rewritten = _landed_again(repo, lacked, head, fork)
    if landed:  # a merge of BASE would re-add their objects under the branch's commits
        return (f"{base_rev} has {len(lacked)} commit(s) the branch lacks since they forked "
                f"at {str(fork)[:12]}, and holds the change of {landed} commit(s) of the "
                f"branch already, under other commits ({_how_held(base_rev, landed, rewritten)}"
                f"): rebase onto it (`git rebase {base_rev}`), which leaves those commits out, "
                "and check "
                f"again; a merge of {base_rev} into the branch would add their objects a "
                "second time (KI425)"), (
                f"rebase onto {base_rev} (`git rebase {base_rev}`), not a merge: git leaves "
                "out the commits whose change it holds (a commit left empty stops the "
                "rebase: `git rebase --skip` it)")
    return (f"{base_rev} has {len(lacked)} commit(s) the branch lacks since they forked at "
            f"{str(fork)[:12]}: rebase onto it (`git rebase {base_rev}`) or merge "
            f"{base_rev} into the branch, and check again; commits of {base_rev} rewritten "
            "on the branch are refused either way"), None


def _how_held(base_rev: str, landed: int, rewritten: int) -> str:
    """Say how BASE holds ``landed`` of the branch's commits' change (KI404's parenthesis).

    ``rewritten`` of them were made again on the branch after BASE's copies
    (:func:`_landed_again`): a rewrite of the branch's own, not a forge's landing (fresh12
    F11: ``git rebase -i`` of published commits was blamed on "Rebase and merge").
    """
    forge = ("a pull request landed by GitHub's \"Rebase and merge\", \"Squash and merge\" "
             "or a cherry-pick")
    rewrite = (f"the branch made them again after {base_rev}'s, with the same change: it "
               f"rewrote commits {base_rev} holds, by `git rebase -i` or `git commit --amend`; "
               "nothing landed them")
    if not rewritten:
        return forge
    if rewritten == landed:
        return rewrite
    return (f"{landed - rewritten} of them: {forge}; {rewritten}: "
            f"{rewrite.replace('made them', 'made those')}")


LANDED_AGAIN_LIMIT = 256
"""Commits of each side :func:`_landed_again` compares at most: the message's hint only,
on a range already refused (a branch thousands of commits apart gets the plain advice)."""


def _landed_again(repo: pygit2.Repository, lacked: list[pygit2.Commit], head: pygit2.Oid,
                  fork: pygit2.Oid) -> tuple[int, int]:
    """Count the branch's commits whose change BASE holds under other commits.

    A commit counts when BASE has one of the same change (equal patch ids, git's
    ``patch-id``: a hash of the diff against the first parent, ignoring whitespace and line
    numbers, as ``git cherry`` compares: a rebase or cherry-pick landing), or when every
    object file it adds is in BASE's tree already (a squash landing, whose one commit
    carries several commits' change: no patch id matches). Merges are left out (they have
    no single change).

    Args:
        repo: the repository.
        lacked: the commits BASE has since the fork point (newest first: BASE itself first).
        head: the branch's tip.
        fork: where the branch and BASE forked.

    Returns:
        ``(held, rewritten)``: how many of the branch's commits since ``fork`` BASE holds
        so, and how many of those have an equal patch id in BASE whose every commit is
        committer-dated before the branch's (made again on the branch after BASE had it: a
        history rewritten, not a landing, which dates BASE's copy at the landing; fresh12
        F11); ``(0, 0)`` when either side holds more than :data:`LANDED_AGAIN_LIMIT`
        commits. Raises nothing of its own.
    """
    walker = repo.walk(head)
    walker.hide(fork)
    ours = list(walker)
    if not lacked or len(ours) > LANDED_AGAIN_LIMIT or len(lacked) > LANDED_AGAIN_LIMIT:
        return 0, 0
    theirs: dict[pygit2.Oid, int] = {}  # patch id -> its latest commit's date in BASE
    for c in lacked:
        patch = _patch_id(repo, c)
        if patch is not None:
            theirs[patch] = max(theirs.get(patch, c.commit_time), c.commit_time)
    base_tree = lacked[0].tree
    held = rewritten = 0
    for c in ours:
        if len(c.parent_ids) != 1:
            continue
        patch = _patch_id(repo, c)
        if patch in theirs:
            held += 1
            rewritten += c.commit_time > theirs[patch]
        elif _objects_held(repo, c, base_tree):
            held += 1
    return held, rewritten


def _patch_id(repo: pygit2.Repository, commit: pygit2.Commit) -> pygit2.Oid | None:
    """Return the patch id of a one-parent commit's change (None for a merge or a root)."""
    if len(commit.parent_ids) != 1:
        return None
    return repo.diff(commit.parents[0], commit).patchid


def _objects_held(repo: pygit2.Repository, commit: pygit2.Commit, tree: pygit2.Tree) -> bool:
    """Say whether a one-parent commit adds object files and ``tree`` holds each of them."""
    added = [d.new_file.path for d in repo.diff(commit.parents[0], commit).deltas
             if d.status == pygit2.enums.DeltaStatus.ADDED
             and d.new_file.path.startswith(layout.OBJECTS_DIR + "/")]
    return bool(added) and all(path in tree for path in added)


def _range_files(store: Store, base: str, head: str, changed: set[str], whole_tree: bool,
                 committed: tuple[Limits | None, Limits | None], own: Limits) -> Files:
    """Return the files of ``head`` the contents check reads (:func:`._focus.range_paths`).

    With ``whole_tree``, every file of ``head`` instead. Their value limits are the checking
    ones (the checking repository's, held to ``base``'s) held to ``head``'s committed ones
    as well: a pre-receive hook's checking limits are the receiver's, and a range that
    lowers a limit must not bring a file past it (``verify`` fails it after the merge).
    ``committed``: BASE's and HEAD's committed limits (None: invalid,
    :meth:`kistore.store.Settings.valid_limits`); ``own``: the checking repository's
    (:func:`._lowered.own_limits`).
    """
    at_base, at_head = committed
    view = store.view(head)
    limits = checking_limits(store, base, committed=DEFAULT if at_base is None else at_base,
                             own=own)
    if at_head is not None:  # what verify holds them to after the merge
        limits = Limits(*map(min, limits, at_head))
    limit = limits.manifest_bytes
    files = view.files(limit) if whole_tree else \
        view.files_of(range_paths(view, store.view(base), changed, limit), limit)
    files.value_limits = limits
    return files


def _new_file_fix(finding: Finding) -> Finding:
    """Give KI106/KI107 on a file the range adds or edits the fix for a file not yet stored.

    The rule's hint is for a committed file (keep the limit: it is never deleted); a file a
    pull request brings can still be left out of it.
    """
    if finding.rule not in (FILE_TOO_LARGE, VALUE_TOO_LONG):
        return finding
    key = "manifest-bytes" if finding.rule is FILE_TOO_LARGE else finding.extra["limit"]
    return replace(finding, fix=NEW_FILE_TOO_LARGE.format(key=key))


def _removed_since(repo: pygit2.Repository, head_tree: Any, finding: Finding,
                   base: Base) -> Finding:
    """Say so in a finding about a path a commit of the range brings that ``HEAD`` lacks.

    A name added by one commit and removed by a later one stays in the history: a checkout
    of that commit (``git bisect``, ``git checkout OLD``) writes or refuses it there. The
    rebase named is ``base``'s (:attr:`._fixes.Base.rebase_args`, a full commit id, so it runs
    as written).
    """
    if finding.file is None or treediff.entry_at(repo, head_tree, finding.file) is not None:
        return finding
    return replace(finding, message=stays_in_history(finding.message, finding.extra["commit"],
                                                     base.rebase_args))


def _collision_at_head(repo: pygit2.Repository, head_tree: Any, finding: Finding) -> bool:
    """Whether the walk's KI112 is of two files under ``store/`` that ``HEAD`` still holds.

    Those :func:`._rules.check_case_collisions` reports on ``HEAD``'s files (the contents
    check), in its words: the walk's would say it twice. A pair one of whose files a later
    commit removes is the walk's alone (case99).
    """
    if finding.rule is not PATH_CASE_COLLISION or not (finding.file or "").startswith(
            layout.STORE_DIR + "/"):
        return False
    held = [treediff.entry_at(repo, head_tree, path)
            for path in (finding.file or "", finding.extra["collides_with"])]
    return all(isinstance(entry, pygit2.Blob) for entry in held)


def _trust_touched(repo: pygit2.Repository, base: Any, commits: list[Any]) -> bool:
    """Whether any commit of the range holds another trust file than ``base`` (one lookup each)."""
    before = blob_at(repo, base.tree, layout.TRUST_FILE)
    return any(blob_at(repo, c.tree, layout.TRUST_FILE) != before for c in commits)


NEW_ATTESTATION_UNTRUSTED = rule(
    "KI411", "new-attestation-key-not-trusted", ERROR,
    "a key store/trust/keys.json has revoked, that has expired, or that is not (yet) trusted "
    "for the attestation's role cannot add attestations: sign with a key trusted now, or "
    "leave the attestation out")
def _judged_now(store: Store, seen: Iterable[Any], trust_revs: Iterable[str],
                copies: bool = False) -> list[Finding]:
    """Refuse attestations entering now by a key trust does not accept now (KI411).

    An attestation new to the repository enters it now, whatever dates its commit or its
    payload carry (both written by the key's holder): it is judged at this machine's clock
    against the trust file of every revision in ``trust_revs`` (the target branch before
    and after the update), so a revoked key cannot add evidence by backdating a commit.
    The first revision of ``trust_revs`` is the trust as it was before the change: an
    attestation by a key it does not trust for the role, which counts under a later one
    (the change trusts its key, F19 of the 2026-12-01 review), is refused as well. Other
    community keys (not in trust) and invalid bundles are left to the other checks.

    ``copies`` (new note lines): each is judged with its bundle's committed file copies at
    each revision (:func:`kistore.attest.notes.bundle_copies`, :func:`kistore.attest.
    evidence.judged_among`), as every reader judges it: a line whose file copy entered
    before the key's revocation counts, and is not refused (until 2026-12-07 it was, judged
    alone). An attestation file the range adds is judged alone (False): its own commit's
    date is the pusher's to write.
    """
    return _judged_under(store, seen, _trusts_at(store, trust_revs), copies)


def _trusts_at(store: Store, trust_revs: Iterable[str]) -> list[tuple[str, Any]]:
    """Return ``(rev, trust)`` for each revision whose trust file parses (KI411's reading).

    Each trust is held to every revocation of the file's history (:func:`kistore.attest.
    trust_history.held`); a revision whose trust file is invalid is left out (KI309 says
    it). Raises nothing else than what reading a revision's view raises.
    """
    trusts = []
    for rev in dict.fromkeys(trust_revs):
        try:  # with every revocation of the file's history, should one have been lifted
            trusts.append((rev, held(store, rev, load_trust(store.view(rev)))))
        except (ConfigRefused, RefFileRefused):  # a FIFO git config or ref file: fails with it
            raise
        except KistoreError:  # an invalid trust file is reported as KI309
            continue
    return trusts


def _judged_under(store: Store, seen: Iterable[Any], trusts: list[tuple[str, Any]],
                  copies: bool) -> list[Finding]:
    """:func:`_judged_now` under trusts :func:`_trusts_at` read (KI411's one judge).

    Returns:
        KI411 findings, one per attestation of ``seen`` refused. Raises nothing of its own.
    """
    now = datetime.now(UTC)
    findings = []
    for item in seen:
        verdicts = [judged_among(replace(item, entered_at=now),
                                 bundle_copies(store, item, rev) if copies else [], trust)
                    for rev, trust in trusts]
        if not verdicts:  # no revision's trust file parses (KI309 says so): no key to judge
            continue
        refused = next((j for j in verdicts if j.effect == NOT_COUNTED), None)
        if refused is not None:
            findings.append(Finding(
                NEW_ATTESTATION_UNTRUSTED, f"a new {refused.type} attestation by "
                f"{refused.keyid} cannot enter now: {refused.reason}", file=item.location,
                extra={"keyid": refused.keyid, "type": refused.type}))
        elif verdicts[0].effect == COMMUNITY and any(j.effect in COUNTING for j in verdicts):
            # Trust is reviewed on its own: a key the same change trusts would otherwise
            # withdraw or verify runs in the pull request that makes it a maintainer.
            counted = next(j for j in verdicts if j.effect in COUNTING)
            findings.append(Finding(
                NEW_ATTESTATION_UNTRUSTED, f"a new {counted.type} attestation by "
                f"{counted.keyid} would count only under the trust this change makes (the "
                "trust file before it does not trust the key): land the trust change on its "
                "own, then the attestation",
                file=item.location,
                extra={"keyid": counted.keyid, "type": counted.type},
                # the rule's fix ("sign with a key trusted now") contradicted this (fresh95 F13)
                fix="land the trust change on its own first (a pull request changing "
                    f"{layout.TRUST_FILE} alone), then the attestation in the next"))
    return findings


COUNTING = (WITHDRAWS, VERIFIES, DISAGREES)
"""Effects by which an attestation changes a run's evidence level or its ranking."""


def _new_files_untrusted(store: Store, base: Any, head: Any, changed: set[str]) -> list[Finding]:
    """KI411 for each attestation file the range adds whose key trust does not accept now."""
    seen = []
    for path in sorted(changed):
        parsed = parse_attestation_path(path) if path.startswith(ATTESTATIONS_SHA256) else None
        if parsed is None or path in base.tree:
            continue
        try:
            data = read_blob(store.repo, head.tree[path].id)
        except KeyError:  # the range deletes it (KI410)
            continue
        seen.append(Seen(bytes(data), parsed[0], "file", path, _EPOCH))
    return _judged_now(store, seen, [str(base.id), str(head.id)]) if seen else []


def _removed_evidence(store_changes: dict[str, treediff.Change]) -> list[Finding]:
    """Attestation files, the trust file and the ranking policy the range deletes (KI410).

    Deleting the policy would make ``rank`` fall back to the shipped default unreviewed.
    A forward record modified, renamed or deleted is KI410 too, found commit by commit
    (:func:`kistore.check.lineage.names_kept`, which ``verify`` runs as well). A file
    replaced by another type (a symlink, a directory) is deleted as git's diff
    reports it: the file is gone.
    """
    findings = []
    for path, (was, now) in store_changes.items():
        if was is None or (now is not None and _kind(was[1]) == _kind(now[1])):
            continue
        if path.startswith(layout.ATTESTATIONS_DIR + "/") or path in (layout.TRUST_FILE,
                                                                       layout.POLICY_FILE):
            why = (" (`kistore rank` would fall back to the shipped default policy)"
                   if path == layout.POLICY_FILE else "")
            findings.append(Finding(APPEND_ONLY_REMOVED, f"the range deletes this file{why}",
                                    file=path))
    return findings


def _store_changes(repo: pygit2.Repository, base_tree: pygit2.Tree, head_tree: pygit2.Tree
                   ) -> dict[str, treediff.Change]:
    """Files under ``store/`` and ``.gitattributes`` that differ between two root trees.

    :func:`kistore.git.treediff.changed_leaves`: unchanged shards are not read (libgit2's
    ``diff_to_tree`` read every shard of both trees, 0.4 s a diff at 100,000 manifests).
    """
    changes = treediff.changed_leaves(repo, treediff.subtree_id(repo, base_tree, layout.STORE_DIR),
                                      treediff.subtree_id(repo, head_tree, layout.STORE_DIR),
                                      layout.STORE_DIR + "/")
    before, after = _top_entry(base_tree), _top_entry(head_tree)
    if before != after:
        changes[GITATTRIBUTES] = (before, after)
    return changes


def _top_entry(tree: pygit2.Tree) -> treediff.Entry | None:
    """Return (id, mode) of the root ``.gitattributes`` unless absent or a directory."""
    try:
        entry = tree[GITATTRIBUTES]
    except KeyError:
        return None
    return None if entry.type_str == "tree" else (str(entry.id), entry.filemode)


def _kind(mode: int) -> int:
    """Return the kind of file a git mode names: 0o100644 for either regular mode, else itself."""
    return 0o100644 if mode in (0o100644, 0o100755) else mode


def _special_files(store: Store, head: str, changed: set[str]) -> list[Finding]:
    """Check the attestation, trust and policy files the range adds or changes, at HEAD.

    Attestation files must verify (KI301-KI305), a changed trust file must be valid (KI309),
    a changed policy file too (KI206); community/trusted attestations are not repeated here.
    """
    findings: list[Finding] = []
    if layout.POLICY_FILE in changed:
        findings += check_policy(store, head)
    attestations = layout.ATTESTATIONS_DIR + "/"
    if layout.TRUST_FILE in changed or any(p.startswith(attestations) for p in changed):
        trust_file = layout.TRUST_FILE
        findings += [f for f in check_attestations(store, head)
                     if f.severity != INFO and (f.file in changed or f.file == trust_file)]
    return findings


def _changed_paths(store_changes: dict[str, treediff.Change]
                   ) -> tuple[set[str], list[tuple[str, str, str]]]:
    """Paths under store/ (or .gitattributes) the net diff touches, and metadata edits.

    An edit is a metadata file whose bytes or mode changed and stayed a regular file:
    (path, blob id before, blob id after, as 40 hex digits).
    """
    changed: set[str] = set()
    edits = []
    for path, (was, now) in store_changes.items():
        changed.add(path)
        if (was is not None and now is not None and _kind(was[1]) == _kind(now[1]) == 0o100644
                and path.startswith(layout.METADATA_DIR + "/")):
            edits.append((path, was[0], now[0]))
    return changed, edits


def _metadata_update(repo: pygit2.Repository, path: str, old: Any, new: Any) -> Finding:
    """KI405 for a metadata file the range edits: each changed field, old and new value.

    The values are a pull request's text: a bidirectional control in one (U+202E) would
    reorder the reviewer's terminal or CI log, so :func:`metadata_difference` escapes the
    line as ``show`` escapes manifest values (:func:`kistore.core.errors.one_line`;
    review r75 F15).
    """
    try:
        what = metadata_difference(read_blob(repo, old), read_blob(repo, new))
    except InputError:  # bad bytes are reported by the contents check
        what = "bytes changed"
    return Finding(METADATA_UPDATED, f"metadata changed: {what}", file=path)


def _re_added(repo: pygit2.Repository, commits: Iterable[Any], base_tree: pygit2.Tree
              ) -> list[tuple[str, str, Any]]:
    """Objects a commit in the range adds that ``base_tree`` already holds, byte for byte.

    Each commit is compared with its first parent (a root commit with nothing: an orphan
    history merged in adds all it holds), reading only the ``store/objects/sha256``
    subtrees that differ.

    Returns:
        ``(path, blob, commit)`` per such addition: the object file's path, its git blob
        id (40 hex) and the pygit2 commit that adds it, in the order of ``commits``.
    """
    found = []
    for commit in commits:
        parents = commit.parents
        old = objects_tree(repo, parents[0].tree) if parents else None
        new = objects_tree(repo, commit.tree)
        if new is None or (old is not None and old.id == new.id):
            continue
        added = treediff.changed_leaves(repo, old.id if old is not None else None, new.id,
                                        layout.OBJECTS_DIR + "/")
        for path, (was, now) in added.items():
            if was is not None or now is None:
                continue
            try:
                same = str(base_tree[path].id) == now[0]
            except KeyError:
                same = False
            if same:
                found.append((path, now[0], commit))
    return found


def _already_present(re_added: Iterable[tuple[str, str, Any]]) -> list[Finding]:
    """KI406 (info) per object a commit of the range re-adds (:func:`_re_added`).

    A merge that takes the object, byte for byte, from a parent other than its first
    re-adds nothing: ``git merge main`` on a branch brings what main added since the fork,
    which BASE holds (fresh00 LOW: every such object was listed as a re-add, 8 lines of
    noise); a side branch's own re-add is told at that side commit. KI425 still weighs
    them all (:func:`_citations_moved`).
    """
    return [Finding(ALREADY_PRESENT, f"commit {str(commit.id)[:12]} re-adds an object the "
                    "base already holds (no-op)", file=path) for path, blob, commit in re_added
            if not any(_holds(parent.tree, path, blob) for parent in commit.parents[1:])]


def _holds(tree: pygit2.Tree, path: str, blob: str) -> bool:
    """Whether ``tree`` holds git blob ``blob`` (40 hex) at ``path``."""
    try:
        return str(tree[path].id) == blob
    except KeyError:
        return False


def _citations_moved(repo: pygit2.Repository, re_added: Iterable[tuple[str, str, Any]],
                     base: pygit2.Commit, head: pygit2.Commit, named: Base) -> list[Finding]:
    """KI425 per re-added object whose first-adding commit differs at ``head`` and ``base``.

    The first-adding commit is what every citation names (``kistore cite``, the site,
    export's ``firstCommit``): :func:`kistore.git.first_added.first_commits`, the same
    rule, from ``base`` and from ``head``. Only an object the range re-adds can move (the
    rule picks the earliest of the commits introducing the bytes, and only a new one can
    come first), so only those are walked for: two walks of history when the range
    re-adds any (a re-add, or main merged into the branch as its second parent: against
    the first, the merge adds what main added since the fork), none otherwise. A re-add
    that moves nothing stays KI406 (info) alone. ``named``: BASE as the fix names it.
    """
    wanted = {path: blob for path, blob, _ in re_added}
    if not wanted:
        return []
    before = first_commits(repo, wanted, base)
    after = first_commits(repo, wanted, head)
    findings = []
    for path in sorted(wanted):
        old, new = before.get(path), after.get(path)
        if old is None or new is None or old.id == new.id:
            continue
        # equal times: the rule's tie goes to the smaller commit id (fresh00 LOW: "an
        # earlier committer time" beside two equal ones)
        why = ("an earlier committer time" if new.commit_time < old.commit_time else
               "the same committer time and a smaller commit id, which wins the tie")
        findings.append(Finding(
            CITATION_MOVED, f"the range moves this object's citation from commit "
            f"{str(old.id)[:12]} ({commit_text(old.commit_time)}), which first added it, to "
            f"commit {str(new.id)[:12]} ({commit_text(new.commit_time)}), which adds the same "
            f"bytes with {why}: `kistore cite`, the site and export would "
            "name it from then on", file=path, expected=f"first added by {old.id}",
            found=f"first added by {new.id}", extra={"old": str(old.id), "new": str(new.id)},
            fix=_citation_hint(named)))
    return findings


def check_updates(store: Store, updates: Iterable[tuple[str, str, str]],
                  protected: set[str] | None = None,
                  held: list[str] | None = None,
                  checkers: Sequence[RangeChecker] = (),
                  now: datetime | None = None,
                  settings: Settings | None = None,
                  remote: str | None = None) -> list[Finding]:
    """Apply the gate to the ref updates of one push (``pre-receive``/``pre-push``).

    Each update is judged as one of the ref it moves: in the receiving repository
    (``pre-receive``) a pushed symbolic ref moves its target, at any depth
    (:func:`._refs.symbolic_target`; reviewer r84 F1), so a push to ``refs/heads/master``
    -> ``refs/heads/main`` is held to main's rules, and findings name it as
    ``refs/heads/main (pushed as refs/heads/master, a symbolic ref to it)``.

    Args:
        store: the receiving (or pushing) :class:`kistore.store.Store`.
        updates: ``(old, new, ref)`` per updated ref, as git hands ``pre-receive`` on stdin;
            an all-zero id means the ref is created (old) or deleted (new).
        protected: refs that only fast-forward and are never deleted (default
            :func:`protected_refs` of ``remote``: in a pushing clone, the remote's default
            branch, never the branch checked out there).
        held: for ``pre-push``, run in the pushing clone: the commits the remote holds (its
            remote-tracking refs, :func:`kistore.check.reach.remote_tips`). A pushed ref
            whose commits ``held`` and its old tip all reach is not checked; any other is
            checked from the base the receiver takes (:func:`kistore.check.reach.
            push_base`: its old tip, or where it leaves that or the remote's main, read
            from ``refs/remotes/REMOTE/`` of ``remote``). None (``pre-receive``): local
            branches are the receiver's, and a new ref is checked from where it left its
            old tip or a protected branch.
        checkers: handed to each :func:`check_range` (the rules of the layers above).
        now: the push's clock (aware), read once for every ref: KI428's dates, and the
            floor of KI431; None: this machine's clock when the call starts.
        settings: this repository's own ``kistore.toml`` (:meth:`kistore.store.Store.
            settings`), as a caller that read it already holds it (``kistore notes push``:
            one read a command); None: read here when ``refs/notes/kistore`` is pushed
            (its KI409 line limit, :func:`note_line_limit`).
        remote: the pushing clone's name (or URL) for the remote (``pre-push``'s
            ``--remote``, ``kistore notes push REMOTE``), named in the fixes of KI409 and
            KI424 for a notes commit between the tips, and whose remote-tracking ``HEAD``
            names the protected default branch; None (``pre-receive``): ``REMOTE``.

    Returns:
        KI407 for a non-fast-forward update or deletion of a protected ref (through a
        symbolic ref too) or of an existing tag (:func:`._refs.tag_rewritten`), and for
        an update through a symbolic ref to a protected ref whose old value is not that
        ref's (:func:`._refs.stale_alias`). For a
        protected branch's update: KI430 when its old tip is not on the new tip's
        first-parent line, else KI431 per commit of that line after it dated more than a
        day before ``now`` (:mod:`._first_parent`; not for ``refs/notes/kistore``); when
        OLD is on the line and ``held`` is None (``pre-receive``), KI434 per note line the
        server held that a trust commit of the segment, dated before ``now``, makes count
        as of before the push (:mod:`._backdated`). For
        ``refs/notes/kistore``: KI423 alone for a notes tree the push brings that git's
        fsck refuses (:func:`._trees.new_tree_findings`); else KI424 for a path the push
        adds or changes that git reads otherwise than kistore (a second fan-out path for an
        annotated object beside the one kistore reads, a name not of lowercase hex, any other entry:
        :mod:`kistore.attest.notepaths`), KI408 for any attestation line the push removes,
        KI409 for a new line that is not a bundle verifying against the object it annotates,
        KI411 for a new line whose key the trust file of a protected branch (as it is, and
        as this push sets it) revokes, has expired or does not trust for its role at this
        machine's clock (dates in the pushed commits are the pusher's to write), KI442 (a
        warning) for a new line that entered before the commit first trusting its key and
        counts by that commit's past ``validFrom`` (:mod:`._pre_trust_notes`), KI428 for
        a notes commit the push brings dated as :func:`._dates.range_dates` refuses. For any
        ref under ``refs/replace/`` created or updated: KI419; for any other ref whose
        value is not a commit or an annotated tag of one, and for ``refs/notes/kistore``
        naming no commit itself: KI420 alone (:func:`._refs.pushed_ref_problem`). For any
        other ref (branches, tags, other namespaces): the findings of
        :func:`check_range` from the old tip (from the merge base for a new or force-pushed
        ref), or of a whole-history check of the new tip when there is no base (with several
        refs pushed, each of these names its ref first: :func:`_of_ref`). KI109 (this
        repository's own settings do not parse) once, however many refs are checked.

    A commit libgit2 cannot parse (no author line: git fsck ``missingAuthor``) brought by
    any ref: KI225 alone (:func:`._commits.unparsable_finding`), the push refused whole
    (reviewer r82 F1: "internal error (InvalidError ...)").

    A git object that cannot be read stops the check (the error raised); inside a
    ``pre-receive`` hook it is said as the server's copy, which only the server's operator
    can repair (:func:`kistore.git.quarantine.received_damage`, break96 M5).

    Raises:
        InputError: when an id names no commit.
        ObjectUnreadable: a git object the check reads is damaged or missing.
    """
    updates = list(updates)
    try:
        return _check_updates(store, updates, protected, held, checkers, now, settings,
                              remote)
    except CommitUnparsable as e:  # libgit2 walks nothing through it: the other refs wait
        return [unparsable_finding(e)]
    except ObjectUnreadable as e:  # in pre-receive: the server's copy, not the pusher's
        said = received_damage(e, [ref for _old, _new, ref in updates])
        if said is e:
            raise
        raise said from e


def _check_updates(store: Store, updates: Iterable[tuple[str, str, str]],
                   protected: set[str] | None, held: list[str] | None,
                   checkers: Sequence[RangeChecker], now: datetime | None,
                   settings: Settings | None = None,
                   remote: str | None = None) -> list[Finding]:
    """:func:`check_updates` but for a commit libgit2 cannot parse, which it raises.

    Raises:
        CommitUnparsable: a commit a ref brings (or its history holds) is one.
    """
    protected = protected_refs(store, remote) if protected is None else protected
    repo = store.repo
    admit_quarantine(repo)
    now = now or datetime.now(UTC)  # one clock for the whole push
    aimed = _aimed(repo, updates, held)
    verdict = LooseVerdict(repo)  # the loose files scanned once a push, for every walk
    several = len({ref for _old, _new, ref, _pushed in aimed}) > 1  # say whose (break96 L5)
    findings: list[Finding] = []
    judged: set[tuple[str, str, str]] = set()
    landing: list[str] | None = None  # pre-push: the remote's main, read once
    real: list[str] = []  # pre-push: the remote's main as this push's remote_sha says it
    for old, new, ref, pushed in aimed:
        if (old, new, ref) in judged:  # git hands a symbolic ref and its target both
            continue
        judged.add((old, new, ref))
        name = update_name(ref, pushed)
        if ref != pushed and ref in protected:
            stale = stale_alias(repo, old, ref, pushed)  # KI407: judged from a tip it lacks
            if stale is not None:
                findings.append(stale)
                continue
        for oid in (old, new):  # libgit2 loops on a cut loose commit (F3): said here
            if oid != ZERO and _HEX.fullmatch(oid):
                loose_object(repo, oid, name)
        if new != ZERO and _HEX.fullmatch(new):
            # a commit libgit2 cannot parse (no author line): KI225, not its InvalidError
            # from repo.get (reviewer r82 F1)
            read_revision_guarded(repo, new)
        if new != ZERO and repo.get(new) is None:
            raise InputError(f"{name}: no object {new} in this repository; check --updates "
                             "takes the OLD NEW REF lines git gives a hook")
        if new != ZERO:  # the loose commits it brings, before libgit2's walks (F3, KI225):
            verdict.guard((new,))  # the push's cost, not its history's (gate96)
        # a walk that fails on a damaged packed commit is named as the whole read names it
        with damage_named(repo, *([new] if new != ZERO else [])):
            if old != ZERO and repo.get(old) is None:  # pre-push: the remote moved, not fetched
                if ref in protected:
                    findings.append(Finding(
                        REF_NOT_FAST_FORWARD, f"{name} is at {old[:12]}, which this repository "
                        "does not have: fetch and merge it before pushing",
                        extra={"ref": ref, "old": old},
                        fix=fast_forward_fix(ref, new)))
                    continue
                old = ZERO
            refused = None if new == ZERO else pushed_ref_problem(repo, new, ref)
            if refused is not None:  # KI419 refs/replace/, KI420 a blob: before any walk of it
                findings.append(refused)
                continue
            fast_forward = (old == ZERO or (new != ZERO and repo.descendant_of(new, old))
                            or old == new)
            if ref in protected and (new == ZERO or not fast_forward):
                what = ("deletion" if new == ZERO
                        else f"non-fast-forward update {old[:12]}..{new[:12]}")
                findings.append(Finding(REF_NOT_FAST_FORWARD, f"{what} of {name} refused",
                                        extra={"ref": ref, "old": old, "new": new,
                                               "pushed": pushed}, fix=fast_forward_fix(ref, new)))
                continue
            if ref.startswith(TAGS_PREFIX) and old not in (ZERO, new):  # permalinks (r88 F7)
                rewritten = tag_rewritten(store, old, new, name)
                if rewritten is not None:
                    findings.append(rewritten)
                    continue
            if new == ZERO:
                continue
            if ref == NOTES_REF:
                findings += _notes_update(store, old, new, _trust_revs(
                    store, [(o, n, r) for o, n, r, _ in aimed], protected), now, settings, remote,
                    verdict, held)
                continue
            new = str(store.commit(new).id)  # an annotated tag: check the commit it names
            if old != ZERO:
                try:
                    old = str(store.commit(old).id)
                except InputError:
                    old = ZERO
                fast_forward = old == new or repo.descendant_of(new, old)
            if held is not None:  # pre-push: local branches are not what the remote has,
                # but BASE is the receiver's: from OLD, not from the oldest commit it lacks
                # (fresh99 H1: a citation moved by the second of two merges, KI425)
                if landing is None:  # the remote's real main where the push carries it
                    real = _pushed_mains(repo, aimed, protected)
                    landing = real + [tip for tip in (landing_tips(repo, remote) if remote
                                                      else []) if tip not in real]
                sent = push_base(repo, new, old if old != ZERO else None, held, landing)
                if sent is None:
                    continue
                base = sent[0]
                # KI433: judged from this clone's copy of the remote's main (a new ref, a
                # force-push), fetched before the ref's newest commit, through a merge
                tracking = (stale_tracking(repo, remote, new) if remote and landing and not real
                            and base is not None and base != (old if old != ZERO else None)
                            else None)
                if tracking is not None and base is not None and merges_between(store, base,
                                                                                new):
                    findings.append(stale_main(name, tracking, base, remote or ""))
            elif old != ZERO and fast_forward:
                base = old
            else:
                base = _merge_base(store, new, old, protected)
            found = (whole_history(store, new, now) if base is None else
                     check_range(store, f"{base}..{new}", checkers=checkers, now=now,
                                 verdict=verdict))
            if ref in protected:  # pushed: no reviewer reads it first (fresh06 L4)
                found = pushed_unreviewed(found)
            findings += _of_ref(found, name) if several else found
            if ref in protected and ref.startswith("refs/heads/") and old != ZERO:
                # a protected branch's move: OLD stays on its first-parent line (KI430), and
                # nothing lands on it dated more than a day before this push (KI431)
                tip, was = store.commit(new), store.commit(old)
                walked = ancestry(repo, tip, hide=was, verdict=verdict)
                line = first_parent_findings(was, tip, walked, name, now)
                findings += line
                if held is None and not any(f.rule is FIRST_PARENT_LINE_BROKEN for f in line):
                    # pre-receive: a key trusted from before this push over notes held
                    # meanwhile (KI434; the pushing clone's notes are not the server's)
                    findings += backdated_trust(store, was, tip, name, now)
    # KI109, KI421: this repository's, not a ref's
    return _once(findings, CHECKING_SETTINGS_INVALID, REPLACE_REFS_PRESENT)


def _pushed_mains(repo: pygit2.Repository, aimed: list[tuple[str, str, str, str]],
                  protected: set[str]) -> list[str]:
    """Return the remote's real tips of the protected branches a ``pre-push`` carries.

    git hands ``pre-push`` each pushed ref's tip on the remote as the remote advertised it
    for this push (``remote_sha``), not as this clone last fetched it: where the push moves
    the remote's main too, that old tip is where its ``pre-receive`` judges every new ref
    from (hist01: no guess, no KI433). Those this clone has (one it lacks is KI407's
    "fetch first"), in the order pushed, each once. Raises nothing.
    """
    tips: list[str] = []
    for old, _new, ref, _pushed in aimed:
        if ref in protected and ref.startswith("refs/heads/") and old != ZERO \
                and _HEX.fullmatch(old) and old in repo and old not in tips:
            tips.append(old)
    return tips


def _aimed(repo: pygit2.Repository, updates: Iterable[tuple[str, str, str]],
           held: list[str] | None) -> list[tuple[str, str, str, str]]:
    """Return ``(old, new, ref, pushed)`` per update: ``ref`` is what the push moves.

    In the receiving repository (``held`` None: ``pre-receive``) a pushed symbolic ref
    moves its target (:func:`._refs.symbolic_target`, reviewer r84 F1). A ``pre-push``
    hook's names are the remote's, of whose symbolic refs this clone knows nothing: each
    is taken as pushed.
    """
    return [(old, new, pushed if held is not None else symbolic_target(repo, pushed), pushed)
            for old, new, pushed in updates]


def _of_ref(findings: list[Finding], name: str) -> list[Finding]:
    """Return the findings of one ref's range, each message naming the ref (break96 L5).

    A push of several refs printed each range's findings one after the other, and two
    refs failing read as one list ("FAILED: 2 ref update(s): 2 errors"), none saying which
    ref carries it. KI109 and KI421 are this repository's, said once for all
    (:func:`_once`): not named.

    Args:
        findings: what :func:`check_range` (or :func:`whole_history`) found for the ref.
        name: the ref as findings name it (:func:`._refs.update_name`).

    Returns:
        The findings, ``NAME: `` before each message, ``extra.ref`` set (unless set).
        Raises nothing.
    """
    return [f if f.rule in (CHECKING_SETTINGS_INVALID, REPLACE_REFS_PRESENT) else
            replace(f, message=f"{name}: {f.message}", extra={"ref": name, **f.extra})
            for f in findings]


def _once(findings: list[Finding], *of: Rule) -> list[Finding]:
    """Return ``findings`` with each finding of the rules ``of`` kept once (its first)."""
    said: set[str] = set()
    kept = []
    for finding in findings:
        if finding.rule in of:
            if finding.format() in said:
                continue
            said.add(finding.format())
        kept.append(finding)
    return kept


NOTES_LINE_REMOVED = rule(
    "KI408", "notes-line-removed", ERROR,
    "notes only grow: `kistore notes rebase REMOTE` rebuilds a repository's notes on REMOTE's, "
    "which hold the removed line(s), with the repository's own lines, then push again (a "
    "withdrawal is answered by another attestation; lines a fetch removed here before "
    "kistore kept them: `kistore notes restore`)")
NOTES_LINE_INVALID = rule(
    "KI409", "notes-line-invalid", ERROR,
    "push only attestation bundles that verify against the object they annotate "
    "(`kistore attest` writes them)")


_SUBJECT_NOT_HERE = (
    "the note's subject object {obj} is not in this repository: the run it is about was "
    "added on a branch or commit this server never received. Push that commit first, then "
    "`kistore notes push` again; or remove the note (`git notes --ref kistore remove {obj}`), "
    "rebuild the notes without it (`kistore notes rebase REMOTE`: the removal is one in the "
    "notes history a push brings, KI408) and push the notes")
"""KI409's message for a note on an object the server lacks (one finding per note)."""


def _fetch_changed_notes(repo: pygit2.Repository, before: dict[str, str],
                         after: dict[str, str], trust: list[str]) -> None:
    """Fetch what :func:`_notes_update` reads that a partial clone lacks, in one ``git fetch``.

    The blobs of every note the push changes (old and new), the objects its new lines
    annotate (libgit2 cannot fetch one; read as missing, an annotated object file would
    make every new line on it KI409) and ``trust`` (the trust file's versions that judge
    the new lines). An annotated id the remote lacks too fails that fetch: the rest is
    then fetched alone, and the object is missing here as it is in a full clone.

    Raises:
        StoreStateError: the promisor remote could not give the note blobs.
    """
    changed = [obj for obj, blob in after.items() if before.get(obj) != blob]
    notes = {after[obj] for obj in changed} | {
        blob for obj, blob in before.items() if after.get(obj) != blob}
    try:
        fetch_blobs(repo, [*notes, *trust, *changed])
    except StoreStateError:
        if not changed:
            raise
        fetch_blobs(repo, [*notes, *trust])


def _trust_revs(store: Store, updates: list[tuple[str, str, str]], protected: set[str]
                ) -> list[str]:
    """Return the commits whose trust file judges new notes: protected branches, as pushed too."""
    repo = store.repo
    revs = _branch_tips(repo, protected)
    revs += [new for _old, new, ref in updates
             if ref in protected and ref.startswith("refs/heads/") and new != ZERO]
    return revs


def _branch_tips(repo: pygit2.Repository, refs: Iterable[str]) -> list[str]:
    """Return the commit ids of the branches (``refs/heads/*``) of ``refs`` that exist.

    Read through the guard (:func:`kistore.git.blobs.ref_commit`).

    Raises:
        ObjectUnreadable: a branch's commit is damaged or missing (named with the branch).
    """
    tips = [ref_commit(repo, r) for r in sorted(refs) if r.startswith("refs/heads/")]
    return [str(tip.id) for tip in tips if tip is not None]


def _notes_update(store: Store, old: str, new: str, trust_revs: list[str],
                  now: datetime | None, settings: Settings | None,
                  remote: str | None = None, verdict: LooseVerdict | None = None,
                  held_tips: list[str] | None = None) -> list[Finding]:
    """Check a push of ``refs/notes/kistore``: every old line stays, every new line verifies.

    First every notes tree the push brings, read raw (KI423 alone when one holds an entry
    git's fsck refuses: a name twice, two fan-out subtrees of one name, out of order),
    then its tree's shape (KI424): every path it changes is a note path git reads as
    kistore does, and no object it annotates has a second path (an unchanged one too).

    Notes are append-only evidence: removing a line would silently undo a withdrawal or a
    rerun in every clone that fetches; an unreadable or unverifiable line would fail
    ``verify`` everywhere. A new line whose key trust (at ``trust_revs``) does not accept
    now is refused (KI411): its notes commit's date is the pusher's to write. Every notes
    commit the push brings (and no older one) is held to KI428's dates
    (:func:`._dates.range_dates`, at ``now``, the push's clock branches are judged at;
    None: this machine's). A line is held to the ``manifest-bytes`` of ``settings``, this
    repository's ``kistore.toml`` (:func:`note_line_limit`; None: read here, after the
    one fetch of a blob-less clone, which brings its blob with the notes'). ``remote``:
    the pushing clone's name for the remote, named in the fix of a history finding.
    ``verdict``: the push's guard verdict for the walk of the notes commits it brings.
    ``held_tips``: in a pushing clone, the commits the remote holds (:func:`check_updates`'
    ``held``): a new line its key's trust commit makes count from before it is warned
    (KI442, :func:`._pre_trust_notes.pre_trust_notes`) only when the remote holds that
    commit; None (``pre-receive``): whenever.

    A refused line at the tip that the history's judgment refuses too (on a stored object)
    names the brought notes commit it entered in (``extra.entered``), and its fix is the
    rebuild, as KI408's is: deleted at the tip, such a line stays in that commit, which
    the push still sends (reviewer fresh98 MED 2).
    """
    repo = store.repo
    # KI423 first: every notes tree the push brings, read raw (a name twice, two fan-out
    # subtrees of one name: libgit2 reads the last, git serves both; review r80 F4)
    tip = lookup(repo, new, NOTES_REF).peel(pygit2.Commit)
    brought = list(ancestry(repo, tip, None if old == ZERO else lookup(
        repo, old, NOTES_REF).peel(pygit2.Commit), verdict))
    malformed = new_tree_findings(repo, brought, f"{NOTES_REF}:", fix=rebase_advice(remote))
    if malformed:
        return sorted(malformed, key=sort_key)
    # KI428 on the notes commits the push brings, at the clock branches are judged at: a
    # notes commit dated ahead became believed once the clock came within a day of it, and
    # every line added since then "entered" at its date (reviewer r81 F5)
    dated = range_dates(repo, brought, now, fix=f"{rebase_advice(remote)}, on a machine "
                        "whose clock is right")
    # KI437: ... and dated at the push, within minutes: a line enters at its notes commit's
    # date, which a day's tolerance let the pusher choose (fresh06 H2, H3, M1)
    dated += notes_off_clock(brought, now or datetime.now(UTC), remote, {
        f.extra["commit"] for f in dated if f.extra.get("date") == "committer"})
    fresh: list[Seen] = []
    view = store.view(trust_revs[-1]) if trust_revs else None  # main as pushed, or as it is

    # KI424: a path git reads otherwise, or a second path for one object (whose lines
    # the checks below, reading one path an object, never see): the paths the push changes
    old_tree = None if old == ZERO else notes_tree(repo, old, NOTES_REF)
    shape = path_findings(repo, old_tree, notes_tree(repo, new, NOTES_REF))
    # ... and every path a notes commit between the tips adds, removed again before the
    # tip: every clone fetching the notes fetches it (reviewer break94 F1); one said at
    # the tip is said there alone (kept apart from ``shape``: it exempts no tip line)
    walked = brought_notes(repo, brought, str(tip.id))  # each commit diffed once
    # KI408 in every brought commit: each holds every line of each of its parents' notes
    # (fresh01 F8: a line removed, then added back, passed the tip-to-tip check)
    removed = removals(repo, brought)
    passed = [f for f in history_paths(walked, NOTES_REF, remote)
              if f.file not in {at_tip.file for at_tip in shape}]
    # the notes the push changes, read through their fan-out paths (`ab/cdef...`, as git
    # writes past some 50-100 notes) by a diff of the two trees: its cost follows the
    # change, not the notes held (a key of no object id: KI424 says it)
    # (an object KI424 names, at two paths, is KI424's alone: its lines are read at neither)
    doubled = {f.file[len(NOTES_REF) + 1:] for f in shape if f.file}
    changed = {obj: sides for obj, sides in changed_notes(
        repo, old_tree, notes_tree(repo, new, NOTES_REF)).items()
        if _HEX.fullmatch(obj) and obj not in doubled}
    before = {obj: was for obj, (was, _now) in changed.items() if was is not None}
    after = {obj: now for obj, (_was, now) in changed.items() if now is not None}
    if is_partial_clone(repo):  # a pre-push hook in a blob-less clone: what is read, in one
        _fetch_changed_notes(repo, before, after,
                             [*(blob for rev in trust_revs for blob in trust_blobs(store, rev)),
                              *(_settings_blob(store) if settings is None else []),
                              *history_blobs(walked), *removal_blobs(removed)])
    limit = note_line_limit(store.settings() if settings is None else settings)
    # a note blob past the bound, by its header: said alone, nothing of it read (fresh03 H3)
    oversized = oversized_notes(repo, NOTES_LINE_INVALID, NOTES_REF, before, after, walked,
                                remote)
    if oversized:
        return dated + shape + passed + oversized

    def note(obj: str, blob: str) -> bytes:  # guarded: libgit2 loops on a cut loose blob
        return read_note(repo, blob, f"{NOTES_REF}:{obj}")

    def stuck(obj: str, line: bytes) -> dict[str, Any]:
        """Return where a refused tip line no edit takes out entered, and its fix (kwargs)."""
        entered = entered_in(repo, walked, obj, line, NOTES_REF)
        return {"extra": {"entered": entered}, "fix": stuck_advice(remote, entered)}

    findings: list[Finding] = []
    for obj, blob in sorted(after.items()):
        if before.get(obj) == blob:
            continue
        data = note(obj, blob)
        lines = lines_of(data)
        had = set(lines_of(note(obj, before[obj]))) if obj in before else set()
        if data != b"".join(line + b"\n" for line in sorted(set(lines))) or not all(
                canonical.is_canonical(line) for line in lines):
            # only sorting wanted (an edit mends it), or a line the history refuses too;
            # a line that verifies is judged for trust as well, said in this one refusal
            bad, why = None, ""
            for line in dict.fromkeys(lines):
                if line in had:
                    continue
                subject, refused = _refused_in_history(repo, view, obj, line, limit)
                if refused and bad is None:  # the first named: the rebuild drops them all
                    bad = line
                    number = editor_line(data, line)  # found by its number (notes99)
                    why = f"; line {number} of it is refused too: {refused[0]}"
                elif not refused and subject is not None:
                    fresh.append(Seen(line, subject, "note", f"{NOTES_REF}:{obj}", _EPOCH))
            findings.append(Finding(
                NOTES_LINE_INVALID, "the note is not sorted, unique lines of canonical "
                "bundle bytes (what `kistore attest` and `git notes merge -s cat_sort_uniq` "
                f"write){why}", file=f"{NOTES_REF}:{obj}",
                **({} if bad is None else stuck(obj, bad))))
            continue
        for line in lines:
            if line in had:
                continue
            subject, problems = note_line_problems(repo, view, obj, line, limit)
            # A refused line on a stored object is refused by the history's judgment too,
            # in the notes commit it entered in, once deleted at the tip (fresh98 MED 2);
            # one on an object not here is judged there as bytes alone (`git notes remove`)
            where = stuck(obj, line) if problems and subject is not None else {}
            # the line's number, as the editor (`git notes edit`) shows it: a reader of the
            # refusal finds the line (notes99: the tip's KI409 named the note alone)
            number = editor_line(data, line) if subject is not None else None
            if number is not None:
                where = {**where, "extra": {**where.get("extra", {}), "line": number}}
            findings += [Finding(NOTES_LINE_INVALID, problem if number is None else
                                 f"line {number} of the note: {problem}",
                                 file=f"{NOTES_REF}:{obj}", **where) for problem in problems]
            if subject is None:  # one finding per note (reviewer r85 F24)
                break
            if not problems:
                fresh.append(Seen(line, subject, "note", f"{NOTES_REF}:{obj}", _EPOCH))
    for obj, blob in sorted(before.items()):
        if after.get(obj) == blob:  # the same note: every line kept (no blob read)
            continue
        kept = set(lines_of(note(obj, after[obj]))) if obj in after else set()
        lost = [line for line in lines_of(note(obj, blob)) if line not in kept]
        if lost:  # no edit here puts them back: the remote's notes hold them (fresh98)
            findings.append(Finding(NOTES_LINE_REMOVED, f"the push removes {len(lost)} "
                                    f"attestation line(s) from the note on {obj}",
                                    file=f"{NOTES_REF}:{obj}", fix=restore_advice(remote)))
    refused_lines: set[tuple[str, bytes]] = set()
    findings += [f for f in _history_findings(repo, view, walked, old, new, limit, remote,
                                              refused_lines)
                 if f.file not in {f"{NOTES_REF}:{obj}" for obj in doubled}]
    said_at_tip = {f.file or "" for f in findings if f.rule is NOTES_LINE_REMOVED} | {
        f"{NOTES_REF}:{obj}" for obj in doubled}
    findings += _removed_in_history(repo, removed, new, said_at_tip, refused_lines, remote)
    untrusted = _judged_now(store, fresh, trust_revs, copies=True) if fresh else []
    if fresh and trust_revs:  # KI439: judged at the entry readers give it (fresh07 M7)
        was = None if old == ZERO else lookup(repo, old, NOTES_REF).peel(pygit2.Commit)
        times = entry_times(repo, brought, was)
        findings += judged_at_entry(store, fresh, trust_revs[-1], now or datetime.now(UTC),
                                    walked, times, was, pushing=remote is not None)
        # KI442: a line its key's trust commit makes count from before it (fresh15 F2)
        findings += pre_trust_notes(store, [s for s in fresh if s.location not in {
            f.file for f in untrusted}], trust_revs[-1], walked, times, held_tips, remote)
    return dated + shape + passed + findings + untrusted


def _removed_in_history(repo: pygit2.Repository, removed: list[Removal], new: str,
                        said_at_tip: set[str], refused: set[tuple[str, bytes]],
                        remote: str | None) -> list[Finding]:
    """KI408 per note a brought notes commit drops a line of, beside one of its parents.

    Notes only grow in every notes commit a push brings, as from tip to tip (reviewer
    fresh01 F8): a first notes commit removing a withdrawal line and a second adding it
    back passed, and ``export --notes-at`` / ``site build --notes-at`` of the first read
    the run un-withdrawn. A line a signer took back before the push is a removal too (the
    notes commit holding it is published with the push). One finding per note, at its
    first removal (oldest first); a note the tip's KI408 names, and a line KI409 refuses
    in the history (garbage added, then deleted), are said there alone.

    Args:
        repo: the receiving (or pushing) repository.
        removed: :func:`._notes_history.removals` of the brought commits.
        new: the pushed tip (40 hex).
        said_at_tip: the ``REF:OBJ`` files already named (the tip's KI408, KI424's).
        refused: ``(obj, line)`` per history line KI409 refused (:func:`_history_findings`).
        remote: the remote pushed to, named in the fix (:func:`._notes_history.rebase_advice`).

    Returns:
        KI408 errors naming the commit (``extra.commit``), the parent (``extra.parent``)
        and the first lost line's number in the parent's note (``extra.line``).

    Raises:
        ObjectUnreadable: a note blob or tree on the way is damaged or missing.
    """
    tip = notes_tree(repo, new, NOTES_REF)
    findings = []
    named = set(said_at_tip)
    for lost in lost_lines(repo, removed, NOTES_REF):
        where, file = lost.removal, f"{NOTES_REF}:{lost.removal.obj}"
        lines = [(n, line) for n, line in lost.lines if (where.obj, line) not in refused]
        if file in named or not lines:
            continue
        named.add(file)
        blob = note_blob(repo, tip, where.obj)
        at_tip = set() if blob is None else set(lines_of(read_note(repo, blob, file)))
        again = ("the pushed tip holds them again" if all(line in at_tip for _, line in lines)
                 else "a line taken back before the push is a removal too")
        number, line = lines[0]
        findings.append(Finding(
            NOTES_LINE_REMOVED,
            f"notes commit {where.commit[:12]}, in the history this push brings, removes "
            f"{len(lines)} attestation line(s) of the note on {where.obj} that its parent "
            f"{where.parent[:12]} held (line {number} there: {said(line)}); {again}, yet "
            f"`--notes-at {where.commit[:12]}` (`site build`, `export`) would read the note "
            "without them: notes only grow in every notes commit", file=file,
            extra={"commit": where.commit, "parent": where.parent, "line": number},
            fix=f"{rebase_advice(remote)}; then push again"))
    return findings


def _history_findings(repo: pygit2.Repository, view: View | None,
                      walked: list[BroughtNotes], old: str, new: str, limit: int,
                      remote: str | None, refused: set[tuple[str, bytes]] | None = None
                      ) -> list[Finding]:
    """KI409 per line a notes commit between the push's tips holds that no tip does.

    A fork's notes history that added a garbage line and removed it again in a later
    commit passed the tip-to-tip checks above, and every clone fetching the index's notes
    fetched that history, garbage included (:mod:`._notes_history`). Each such line is
    judged as a line at the tip is (:func:`note_line_problems`, canonical bytes); one that
    would enter there is not KI409's (a line its signer took back before pushing: its
    removal is KI408's, :func:`_removed_in_history`). ``remote``:
    the remote pushed to, named in the fix (:func:`._notes_history.rebase_advice`).
    ``refused``: filled with ``(obj, line)`` per line refused (KI408 in the history says
    them no more: :func:`_removed_in_history`).
    """
    findings = []
    for found in history_lines(repo, walked, None if old == ZERO else old, new, NOTES_REF):
        if not _HEX.fullmatch(found.obj):
            continue  # a path that names no object: KI424 says it
        problems = _refused_in_history(repo, view, found.obj, found.line, limit)[1]
        if problems:
            if refused is not None:
                refused.add((found.obj, found.line))
            findings.append(Finding(
                NOTES_LINE_INVALID,
                f"notes commit {found.commit[:12]}, in the history this push brings, holds "
                f"as line {found.number} of the note on {found.obj} a line the pushed tip "
                f"no longer holds ({said(found.line)}): {problems[0]}; the tips' checks "
                "never read it, yet every clone fetching these notes would fetch it: "
                f"{rebase_advice(remote)}", file=f"{NOTES_REF}:{found.obj}",
                extra={"commit": found.commit, "line": found.number}))
    return findings


def _refused_in_history(repo: pygit2.Repository, view: View | None, obj: str, line: bytes,
                        limit: int) -> tuple[Digest | None, list[str]]:
    """Judge ``line`` of the note on ``obj`` as the gate does when a brought commit holds it.

    :func:`note_line_problems`, a line on an object this repository lacks judged as bytes
    alone (is it a bundle), and canonical bundle bytes; trust is not judged (a valid line
    its signer took back before the push is KI408's, a removal: :func:`_removed_in_history`).

    Returns:
        ``(subject, problems)``: the line's subject (None: ``obj`` is not here) and why it
        is refused (empty: let be). Raises what :func:`note_line_problems` raises.
    """
    subject, problems = note_line_problems(repo, view, obj, line, limit)
    if subject is None:  # on an object this server lacks: judged as bytes alone
        problems = _bundle_problems(obj, line)
    if not problems and not canonical.is_canonical(line):
        problems = ["not canonical bundle bytes (what `kistore attest` writes)"]
    return subject, problems


def _bundle_problems(obj: str, line: bytes) -> list[str]:
    """Why ``line`` is no attestation bundle at all (a line on an object not here)."""
    try:
        Bundle.from_bytes(line, file=f"{NOTES_REF}:{obj}")
    except KistoreError as e:
        return [e.message]
    return []


def note_line_problems(repo: pygit2.Repository, view: View | None, obj: str, line: bytes,
                       limit: int = DEFAULT.manifest_bytes) -> tuple[Digest | None, list[str]]:
    """KI409's judgment of one new line of the note on ``obj`` (what the push gate refuses).

    Args:
        repo: the repository holding the annotated object.
        view: the store as the line is judged against (a withdrawal of a Workload, a rerun
            on another GPU: KI310); None: not judged so.
        obj: the annotated object's id.
        line: the note line (one bundle's bytes).
        limit: most bytes a line may hold (``[limits] manifest-bytes``, which bounds a
            bundle file too: :func:`line_too_large`).

    Returns:
        ``(subject, problems)``: the digest the line is about (None when ``obj`` is not in
        this repository, whose one problem is :data:`_SUBJECT_NOT_HERE`) and why the line
        cannot enter: it is past ``limit`` (nothing else is read of it), its bundle does
        not parse or verify against the subject, its subject is of the wrong kind, its text
        holds control characters (KI312); empty when none.
    """
    target = repo.get(obj)
    if target is None:  # not "copied onto another subject" (reviewer r85 F24)
        return None, [_SUBJECT_NOT_HERE.format(obj=obj)]
    # notes annotate object-file blobs; anything else is about no manifest at all
    subject = Digest.of(bytes(target.data)) if isinstance(target, pygit2.Blob) \
        else Digest("0" * 64)
    too_large = line_too_large(line, limit)
    if too_large:
        return subject, [too_large]
    try:
        statement = verify_bundle(Bundle.from_bytes(line, file=f"{NOTES_REF}:{obj}"), subject)
    except KistoreError as e:
        return subject, [e.message]
    problem = subject_problem(view, statement.type, subject, statement.predicate) \
        if view is not None else None
    if problem:
        return subject, [problem]
    return subject, [f"{statement.type}'s {(e.pointer or '/')[1:]}: {e.message}"
                     for e in text_problems(statement.predicate)]  # ESC, bidi (KI312)


def note_line_judge(store: Store, settings: Settings) -> Callable[[str, bytes], str | None]:
    """Return KI409's judgment of a note line a fetch would take in (reviewer r90b F11).

    A line the push gate would refuse (:func:`note_line_problems`, judged against the
    store at its protected branches' last tip, as a notes push is; and a line that is not
    canonical bundle bytes), once taken in by ``kistore notes fetch``, could never be
    dropped (notes only grow) and blocked every later ``notes push`` (KI409). A line on an
    object this clone lacks is not judged (its branch is not fetched yet): the push says so.
    A line that passes and that the canonical remote's notes (as last fetched) lack is
    judged for its key as the push gate judges a new line, by the same judge (KI411,
    :func:`_judged_under` under the trust of the protected branches' tips, at this
    machine's clock): a withdrawal by a key the trust file revoked, taken from a fork, was
    "gained" and refused every later ``notes push`` (fresh14 F5). A line those notes hold
    entered there and is not new at a push: it is not judged for its key, nor is any line
    when no remote is canonical (a repository with no remote pushes nowhere).

    Args:
        store: the clone.
        settings: its ``kistore.toml`` as the command read it (:meth:`kistore.store.Store.
            settings`: once a command), whose ``manifest-bytes`` bounds a line.

    Returns:
        ``judge(obj, line)``: why the line is left out (one sentence ending with its rule,
        ``(KI409 notes-line-invalid)`` or ``(KI411 new-attestation-key-not-trusted)``: the
        tag :func:`kistore.attest.notes.left_out_rules` reads), or None when it may enter.

    Raises:
        What :meth:`kistore.store.Store.view` of the last protected tip raises (nothing for
        a readable one); ``judge`` raises what :func:`note_line_problems` does for the line's
        object, and what reading the canonical remote's note on it raises.
    """
    repo = store.repo
    tips = _branch_tips(repo, protected_refs(store))
    view = store.view(tips[-1]) if tips else None
    limit = note_line_limit(settings)  # as the push gate holds it

    def judge(obj: str, line: bytes) -> str | None:
        if repo.get(obj) is None:
            return None
        too_large = line_too_large(line, limit)  # before parsing it
        if too_large:
            return too_large + invalid
        if not canonical.is_canonical(line):
            return "not canonical bundle bytes (what `kistore attest` writes)" + invalid
        subject, problems = note_line_problems(repo, view, obj, line, limit)
        if problems or subject is None:
            return "; ".join(problems) + invalid if problems else None
        return refused_at_push(obj, line, subject)

    def refused_at_push(obj: str, line: bytes, subject: Digest) -> str | None:
        # KI411 as a push to the canonical remote judges a new line (fresh14 F5): a line
        # its notes (as last fetched) hold already is not new there, and is not judged
        if index is None:
            return None
        tip = _ref_tip(repo, remote_ref(index))  # as last fetched: a fetch moves it
        if (tip, obj) not in held_there:  # each note read once, however many lines gained
            held_there[tip, obj] = set() if tip is None else set(
                note_lines(repo, obj, remote_ref(index)))
        if line in held_there[tip, obj]:
            return None
        if not trusts:
            trusts.append(_trusts_at(store, tips))
        refused = _judged_under(store, [Seen(line, subject, "note", f"{NOTES_REF}:{obj}",
                                             _EPOCH)], trusts[0], copies=True)
        return "; ".join(f.message for f in refused) + untrusted if refused else None

    invalid, untrusted = (f" ({r.id} {r.name})" for r in (NOTES_LINE_INVALID,
                                                          NEW_ATTESTATION_UNTRUSTED))
    index = canonical_remote(remote_names(repo))  # whose notes a push is judged by
    trusts: list[list[tuple[str, Any]]] = []  # read once, at the first line judged for it
    held_there: dict[tuple[str | None, str], set[bytes]] = {}
    return judge


def _ref_tip(repo: pygit2.Repository, name: str) -> str | None:
    """Return the commit id ref ``name`` names (40 hex), or None when there is no such ref."""
    ref = reference(repo, name)
    return None if ref is None else str(ref.target)


def note_line_limit(settings: Settings) -> int:
    """Return the most bytes a note line may hold here (KI409).

    The checking repository's ``[limits] manifest-bytes``, read key by key, as KI106
    holds stored files to it; the default when its ``kistore.toml`` is not a regular file.

    Args:
        settings: the checking repository's ``kistore.toml`` (:meth:`kistore.store.Store.
            settings` with no revision: the work tree's, a bare repository's ``HEAD``'s),
            read by the caller once a command and passed on, never read again here.

    Returns:
        The limit in bytes.

    Raises nothing: a ``kistore.toml`` whose limits cannot be read gives the default.
    """
    try:
        return int(settings.limits_per_key()[0].manifest_bytes)
    except KistoreError:  # not a regular file: its settings unknown
        return DEFAULT.manifest_bytes


def _settings_blob(store: Store) -> list[str]:
    """Return the blob of the ``kistore.toml`` :func:`note_line_limit` reads from git, if any.

    A repository without a work tree reads its ``HEAD``'s; one with a work tree, the file.
    """
    if store.root is not None:
        return []
    head = head_commit(store.repo)
    found = None if head is None else blob_at(store.repo, head.tree, layout.SETTINGS_FILE)
    return [] if found is None else [found]


def line_too_large(line: bytes, limit: int) -> str | None:
    """Say why a note line past ``limit`` bytes cannot enter; None when it is within it.

    A note line is one attestation bundle, held to ``[limits] manifest-bytes`` as a bundle
    file is (1 MiB by default). An attestation ``kistore attest`` writes is ~1 KB (a
    withdrawal with a 10,000-character reason, the longest text a predicate's schema
    takes, ~55 KB); a line past the limit is no attestation, or one padded outside what
    its signature covers (a ``keyid``): reviewer r90b F11's 20 MB line was taken in by a
    fetch as "1 attestation gained", and notes never shrink.

    Args:
        line: the note line.
        limit: the limit in bytes.

    Returns:
        ``a note line of N bytes, more than the limit of M (manifest-bytes) ...``, or None.
    """
    if len(line) <= limit:
        return None
    return (f"a note line of {len(line):,} bytes, more than the limit of {limit:,} bytes "
            "(manifest-bytes) an attestation bundle may hold (one `kistore attest` writes is "
            "~1 KB); not read further")


def _merge_base(store: Store, new: str, old: str, protected: set[str]) -> str | None:
    """Return where a new or force-pushed branch left its old tip or a protected branch."""
    repo = store.repo
    candidates = [old] if old != ZERO else []
    candidates += _branch_tips(repo, protected)
    for other in candidates:
        oid = repo.merge_base(new, other)
        if oid is not None:
            return str(oid)
    return None


def whole_history(store: Store, rev: str, now: datetime | None = None) -> list[Finding]:
    """Return every contents and history finding of commit ``rev``: the gate with no base.

    What a first push to an empty remote, or a branch starting at a root commit, is checked
    with: everything ``rev``'s tree holds and all of its history, its files held to the
    checking limits and to ``rev``'s committed ones (what ``verify`` holds them to there);
    KI428 for every commit of its history dated as :func:`._dates.range_dates` refuses,
    and KI438 for one dated more than five minutes past ``now`` (:mod:`._commit_clock`);
    KI108 when ``rev``'s ``kistore.toml`` does not parse or holds what
    :func:`._settings.settings_findings` refuses; KI109 as :func:`check_range` says.
    ``now``: the checking clock KI428 holds the dates to (aware); None: this machine's.
    """
    head = store.commit(rev)
    own_settings, head_settings = store.settings(), store.settings(str(head.id))
    own, warned = own_limits(store, own_settings)  # the defaults, and KI109
    limits = checking_limits(store, own=own)
    committed = head_settings.valid_limits()
    if committed is not None:
        limits = Limits(*map(min, limits, committed))
    files = store.view(str(head.id)).files(limits.manifest_bytes)
    files.value_limits = limits
    findings = check_contents(files) + _own_settings(own_settings, head_settings, warned)
    # KI108: [limits] (add refuses the store), tables, [store] version, [cite]
    findings += settings_findings(head_settings)
    history = list(ancestry(store.repo, head))
    dated = range_dates(store.repo, history, now,  # KI428
                        fix=make_again(None))  # from the root: nothing to rebase onto
    findings += dated + commits_ahead(history, now, None, _committer_dated(dated))  # KI438
    return findings + check_history(store, rev)


def _committer_dated(dated: Iterable[Finding]) -> set[str]:
    """Return the ids of the commits KI428 findings name for their committer date."""
    return {f.extra["commit"] for f in dated if f.extra.get("date") == "committer"}


def _settings_deleted(base: Settings, head: Settings, named: Base) -> list[Finding]:
    """KI108 when the range deletes the ``kistore.toml`` BASE holds (review r70 F3).

    A store's settings hold over its whole history, as a lowered limit is refused below a
    stored file: a pull request that removes the reviewed file puts every limit, ``[cite]``
    and the ``[store] version`` back to their defaults, silently. Two blob lookups the gate
    made already (BASE's and HEAD's file): O(1), not a walk.

    Args:
        base: BASE's settings (:meth:`kistore.store.Store.settings`).
        head: HEAD's.
        named: BASE as the fix's checkout names it (:class:`._fixes.Base`).

    Returns:
        One KI108 on ``kistore.toml`` when BASE has the file and HEAD has none (a HEAD file
        that is not a regular file is :func:`._settings.settings_findings`'), or when HEAD's
        file drops the ``[store]`` table BASE's has (:func:`_store_table_removed`); else
        empty.
    """
    if base.data is None or head.unreadable is not None:
        return []
    if head.data is not None:
        return _store_table_removed(base, head)
    return [Finding(
        SETTINGS_INVALID, "the range deletes kistore.toml, which BASE holds: every limit, "
        "[cite] and the [store] version would fall back to their defaults without a word",
        file=layout.SETTINGS_FILE, expected="kistore.toml kept (its settings changed in "
        "place, each change reviewed)", found="no kistore.toml at HEAD",
        fix=f"restore it ({named.checkout(layout.SETTINGS_FILE)}, then commit) and change the "
        "settings in the file itself; a store's settings hold over its whole history")]


def _store_table_removed(base: Settings, head: Settings) -> list[Finding]:
    """KI108 when HEAD's ``kistore.toml`` drops the ``[store]`` table BASE's holds (F3).

    A file without ``[store]`` is read as store version 1, silently: one pull request
    removing the table passed, and the next (or a kistore of another version) relied on
    it. Only a removal is refused; a store that never had the table is left as it is.
    """
    if base.parsed is None or head.parsed is None:  # a parse error: KI108 says it
        return []
    if not isinstance(base.parsed.get("store"), dict) or "store" in head.parsed:
        return []
    return [Finding(
        SETTINGS_INVALID, "the range removes the [store] table of kistore.toml, which BASE "
        "holds: without it the store's version is read as 1 without a word",
        file=layout.SETTINGS_FILE, pointer="/store", expected="[store] kept (version = 1)",
        found="no [store] table at HEAD",
        fix="put the table back (`[store]` then `version = 1`, as `kistore init` writes it) "
        "and commit; a store's settings hold over its whole history")]


def _own_settings(own: Settings, head: Settings, warned: list[Finding]) -> list[Finding]:
    """Return ``warned`` (KI109 of the checking repository's settings) unless HEAD's KI108 says it.

    In CI the checking repository's ``kistore.toml`` is the range's HEAD's (a checkout of
    the pull request): when HEAD's settings fail, its KI108 on the same file is the one
    finding to make.
    """
    if warned and head.valid_limits() is None and reads_settings_of(own, head):
        return []
    return warned


def notes_made_again(store: Store, remote: str, theirs: str | None, ours: str, sent: str,
                     now: datetime | None = None) -> list[EffectChanged]:
    """Return each line whose effect the notes commits made again change (fresh12 F7).

    ``kistore notes push`` (its commits made again dated at the push, KI437) and ``kistore
    notes rebase REMOTE`` (this repository's lines written again in notes commits dated
    now) move each line's entry to now: judged here against the trust file of the
    protected branch, as the gate judges a notes push (:func:`._redated.
    effects_made_again`).

    Args:
        store: the pushing (or rebuilding) clone.
        remote: as given to the command (whose default branch is the protected one).
        theirs: the remote's notes tip the commit made again is built on (None: none).
        ours: this clone's notes tip, whose history dates each line as readers do now.
        sent: the notes commit made again.
        now: the clock (aware); None: this machine's.

    Returns:
        :class:`._redated.EffectChanged` per line; empty when no protected branch exists.

    Raises:
        ObjectUnreadable: a notes commit, tree or blob on the way is damaged or missing.
    """
    revs = _branch_tips(store.repo, protected_refs(store, remote))
    if not revs:
        return []
    return effects_made_again(store, theirs, ours, sent, revs[-1], now or datetime.now(UTC))


def pre_trust_made_again_of(store: Store, remote: str, command: str, theirs: str | None,
                            ours: str, sent: str, now: datetime | None = None
                            ) -> list[Finding]:
    """Return KI442 of each line made again after the commit trusting its key (fresh17 F12).

    :func:`notes_made_again`'s lines that count at both entries, but entered here before
    the commit first listing their key (its past ``validFrom`` making them count) and made
    again enter after it, where no later check holds them before it
    (:func:`._pre_trust_notes.pre_trust_made_again`).

    Args:
        store: the pushing (or rebuilding) clone.
        remote: as given to the command (whose default branch is the protected one).
        command: ``push`` or ``rebase`` (``kistore notes COMMAND REMOTE``), as said.
        theirs: the remote's notes tip the commit made again is built on (None: none).
        ours: this clone's notes tip, whose history dates each line as readers do now.
        sent: the notes commit made again.
        now: the clock (aware); None: this machine's.

    Returns:
        The KI442 warnings; empty when no protected branch exists.

    Raises:
        ObjectUnreadable: a notes commit, tree or blob on the way is damaged or missing.
    """
    revs = _branch_tips(store.repo, protected_refs(store, remote))
    if not revs:
        return []
    return pre_trust_made_again(store, theirs, ours, sent, revs[-1], now or datetime.now(UTC),
                                remote, command)
