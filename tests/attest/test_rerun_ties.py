"""One key's reruns of one run that entered together: which stands (fresh14 F12).

A key's latest rerun of a run stands (:func:`kistore.attest.evidence.judge_all`), by entry
time. Entry times have whole seconds and are shared: every file of one commit, every line
of one notes commit, every uncommitted file. Until 2026-12-07 such a tie went to the one
read last: the file whose name (its bundle's SHA-256), or the note line whose base64, sorted
last, so a rerun farm's later ``reproduced`` was superseded by its earlier
``not-reproduced`` about half the time. Now (:func:`kistore.attest.evidence.rerun_order`):
history (a file's commits; since 2026-12-07, fresh17 F1, a note line's notes commits too),
then ``not-reproduced`` whatever the payloads' dates (since 2026-12-07, fresh17 F1's
decision: until then the payload dated later stood, so a squash of a key's reruns or a
payload dated ahead could upgrade a run), then the payload's signed date, then the bundle's
SHA-256; whatever the read order.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.attest import evidence, notes, signing
from kistore.attest.evidence import (
    SOURCE_NATIVE,
    VERIFIED,
    Judgement,
    evidence_for,
    judge_all,
    trust_or_empty,
)
from kistore.attest.notes import Seen
from kistore.attest.trust import add_key, format_time, parse_time, revoke_key
from kistore.core import layout

from ..conftest import git, redate_history
from .test_attestation_evidence import (  # noqa: F401 (a fixture)
    RERUN_KEY,
    RUN,
    bundle,
    keyid,
    trusted,
)

ENTRY = parse_time("2026-03-01T12:00:00Z")
"""When the tied reruns enter (their commit's, or notes commit's, date)."""


def _at(seconds: float) -> str:
    return format_time(ENTRY + timedelta(seconds=seconds))


def _rerun(outcome: str, observed: str, variant: int = 0) -> bytes:
    """A rerun by RERUN_KEY; ``variant`` changes its bytes (its mean, within tolerance)."""
    return bundle(RERUN_KEY, outcome=outcome, observedAt=observed,
                  timing={"latencyNs": {"mean": 13_500_000 + variant},
                          "primaryStatistic": "mean"})


def _name(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()  # a file's name


def _sorting(first: tuple, second: tuple, *, second_last: bool) -> tuple[bytes, bytes]:
    """Return two reruns (``(outcome, observedAt)`` each) whose file names sort as asked."""
    a = _rerun(*first)
    for variant in range(1, 200):
        b = _rerun(*second, variant)
        if (_name(a) < _name(b)) == second_last:
            return a, b
    raise AssertionError("no variant sorts so")  # pragma: no cover


def _commit(root, date: str, message: str) -> str:
    git(root, "add", "-A")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", message], cwd=root, check=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date})
    return git(root, "rev-parse", "HEAD").strip()


def _files(store, date: str, *bundles: bytes) -> str:
    for data in bundles:
        notes.attach(store, RUN, data, as_file=True)
    return _commit(store.root, date, "reruns")


def _effects(store, at=None) -> tuple[str, dict[str, tuple[str, str]]]:
    """The run's level and ``{outcome: (effect, reason)}`` of its reruns."""
    found = evidence_for(store, RUN, at=at)
    return found.level, {a["outcome"]: (a["effect"], a["reason"]) for a in found.attestations}


def _superseded(outcome: str, why: str) -> tuple[str, str]:
    return ("superseded", f"superseded by the same key's later rerun ({outcome}, entered "
                          f"{format_time(ENTRY)} with this one{why})")


TIE = (", history ordering neither: of one key's reruns of a run that entered together, "
       "not-reproduced stands whatever dates their payloads state, never upgrading the run to "
       "verified")
"""How a superseded ``reproduced`` of a tie history does not order says why."""


def _stands(outcome: str) -> tuple[str, str]:
    if outcome == "reproduced":
        return "verifies", "trusted rerun key"
    return "disagrees", f"trusted rerun key, outcome {outcome}"


# -- two files in one commit: not-reproduced stands, whatever their names and dates -----

@pytest.mark.parametrize("later", ["reproduced", "not-reproduced"])
@pytest.mark.parametrize("later_sorts_last", [True, False])
def test_of_two_files_in_one_commit_not_reproduced_stands(trusted, later,  # noqa: F811
                                                          later_sorts_last):
    earlier = "not-reproduced" if later == "reproduced" else "reproduced"
    first, second = _sorting((earlier, _at(-50)), (later, _at(-20)),
                             second_last=later_sorts_last)
    _files(trusted, format_time(ENTRY), first, second)
    level, effects = _effects(trusted)
    # on BASE 548a13da: the file whose name sorted last stood; on BASE fb53db7b the one
    # whose payload is dated later: a "reproduced" signed later verified the run
    assert level == SOURCE_NATIVE
    assert effects == {"not-reproduced": _stands("not-reproduced"),
                       "reproduced": _superseded("not-reproduced", TIE)}
    assert _effects(trusted, "HEAD") == (level, effects)


# -- two lines of one notes commit: not-reproduced stands, whatever their bytes and dates -

@pytest.mark.parametrize("later_sorts_last", [True, False])
def test_of_two_note_lines_in_one_notes_commit_not_reproduced_stands(
        trusted, later_sorts_last):  # noqa: F811
    # a line's bytes sort by its payload's base64, whose order its date decides first
    first = _rerun("not-reproduced", _at(-50))
    _later, second = next((at, data) for at in (_at(-50 + s / 10) for s in range(1, 400))
                         if ((data := _rerun("reproduced", at)) > first) == later_sorts_last)
    blob = git(trusted.root, "rev-parse", f"HEAD:{layout.object_path(RUN)}").strip()
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-m",
                    f"{first.decode()}\n{second.decode()}", blob], cwd=trusted.root,
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": format_time(ENTRY)})
    level, effects = _effects(trusted)
    # on BASE 548a13da: the line whose bytes (base64) sorted last stood; on BASE fb53db7b
    # the "reproduced", signed later (a squash of a key's reruns could so upgrade the run)
    assert level == SOURCE_NATIVE
    assert effects == {"not-reproduced": _stands("not-reproduced"),
                       "reproduced": _superseded("not-reproduced", TIE)}


# -- a parent and a child commit in one second: history decides, not the dates -----------

@pytest.mark.parametrize("child", ["reproduced", "not-reproduced"])
def test_of_a_parent_and_a_child_commit_in_one_second_the_child_stands(trusted,  # noqa: F811
                                                                      child):
    parent = "not-reproduced" if child == "reproduced" else "reproduced"
    # the child's rerun is dated before the parent's, and its name sorts first
    first, second = _sorting((parent, _at(-20)), (child, _at(-50)), second_last=False)
    older = _files(trusted, format_time(ENTRY), first)
    newer = _files(trusted, format_time(ENTRY), second)
    level, effects = _effects(trusted)
    assert level == (VERIFIED if child == "reproduced" else SOURCE_NATIVE)
    assert effects == {child: _stands(child), parent: _superseded(
        child, f", in commit {newer[:12]}, which follows this one's ({older[:12]}) in history")}


# -- a notes commit and its child in one second: history decides, as for files -----------
# fresh17 F1: two `kistore attest` in one second wrote a notes commit and its child of one
# date; the parent's line was read as the later one when its payload was dated later.

def _note_line(store, line: bytes, date: str) -> str:
    """Add ``line`` to the note on the run in a notes commit of its own dated ``date``,
    as ``kistore attest`` does (the note's lines sorted); return the notes commit."""
    blob = git(store.root, "rev-parse", f"HEAD:{layout.object_path(RUN)}").strip()
    held = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob], cwd=store.root,
                          capture_output=True).stdout.splitlines()
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-", blob],
                   cwd=store.root, input=b"".join(x + b"\n" for x in sorted({*held, line})),
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": date})
    return git(store.root, "rev-parse", "refs/notes/kistore").strip()


@pytest.mark.parametrize("child", ["reproduced", "not-reproduced"])
def test_of_a_notes_commit_and_its_child_in_one_second_the_child_stands(
        trusted, child):  # noqa: F811
    parent = "not-reproduced" if child == "reproduced" else "reproduced"
    # the child's payload is dated before the parent's (a farm's observedAt is when it
    # measured), and its base64 sorts first
    first, second = _sorting((parent, _at(-20)), (child, _at(-50)), second_last=False)
    older = _note_line(trusted, first, format_time(ENTRY))
    newer = _note_line(trusted, second, format_time(ENTRY))
    level, effects = _effects(trusted)
    # on BASE fb53db7b: the parent's line stood by its payload's later date ("its payload is
    # dated later"): a farm's later "reproduced" left the run source-native
    assert level == (VERIFIED if child == "reproduced" else SOURCE_NATIVE)
    assert effects == {child: _stands(child), parent: _superseded(
        child, f", in notes commit {newer[:12]}, which follows this one's ({older[:12]}) in "
        "the notes history")}


def test_notes_commits_of_one_second_apart_in_history_are_not_ordered(trusted):  # noqa: F811
    # two notes branches of one second, each adding one rerun, merged: neither line's
    # notes commit descends from the other's, so history orders neither
    first, second = _sorting(("not-reproduced", _at(-50)), ("reproduced", _at(-20)),
                             second_last=False)
    base = git(trusted.root, "rev-parse", "refs/notes/kistore").strip() if subprocess.run(
        ["git", "rev-parse", "-q", "--verify", "refs/notes/kistore"], cwd=trusted.root,
        capture_output=True).returncode == 0 else None
    one = _note_line(trusted, first, format_time(ENTRY))
    if base is None:
        git(trusted.root, "update-ref", "-d", "refs/notes/kistore")
    else:
        git(trusted.root, "update-ref", "refs/notes/kistore", base)
    other = _note_line(trusted, second, format_time(ENTRY))
    subprocess.run(["git", "notes", "--ref", "kistore", "merge", "-s", "union", one],
                   cwd=trusted.root, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": format_time(ENTRY)})
    assert git(trusted.root, "rev-parse", "refs/notes/kistore^2").strip() == one
    assert other != one
    level, effects = _effects(trusted)
    # on BASE fb53db7b: the "reproduced" signed later stood, verified
    assert (level, effects) == (SOURCE_NATIVE, {
        "not-reproduced": _stands("not-reproduced"),
        "reproduced": _superseded("not-reproduced", TIE)})


def test_history_decides_also_when_the_key_has_a_valid_from(record_store):
    # a key with validFrom: the trust needs no history for it, and still orders by it
    redate_history(record_store.root, "2026-01-01T00:00:00Z")
    add_key(record_store.root, signing.public_key_line(RERUN_KEY.public_key()), ["rerun"],
            valid_from=parse_time("2026-01-01"))
    _commit(record_store.root, "2026-01-01T00:00:00Z", "trust")
    first, second = _sorting(("reproduced", _at(-20)), ("not-reproduced", _at(-50)),
                             second_last=False)
    _files(record_store, format_time(ENTRY), first)
    _files(record_store, format_time(ENTRY), second)
    level, effects = _effects(record_store)
    assert (level, effects["not-reproduced"][0], effects["reproduced"][0]) == (
        SOURCE_NATIVE, "disagrees", "superseded")


# -- a full tie of the dates: not-reproduced stands, never upgrading the run -------------
# A payload dated a day ahead counts as dated five minutes after its entry: unclamped, the
# day-ahead "reproduced" would be the later; clamped, it ties with the latest date an honest
# clock could give, and the tie is conservative.

@pytest.mark.parametrize(("reproduced_at", "not_reproduced_at", "reproduced_sorts_last"), [
    (-30, -30, True), (-30, -30, False), (86_400, 300, False)])
def test_at_equal_signed_dates_not_reproduced_stands(trusted, reproduced_at,  # noqa: F811
                                                     not_reproduced_at, reproduced_sorts_last):
    first, second = _sorting(("not-reproduced", _at(not_reproduced_at)),
                             ("reproduced", _at(reproduced_at)),
                             second_last=reproduced_sorts_last)
    _files(trusted, format_time(ENTRY), first, second)
    level, effects = _effects(trusted)
    assert level == SOURCE_NATIVE
    assert effects == {"not-reproduced": _stands("not-reproduced"),
                       "reproduced": _superseded("not-reproduced", TIE)}


@pytest.mark.parametrize("ahead", [240, 86_400])
def test_a_reproduced_dated_ahead_never_stands_over_a_tied_not_reproduced(
        trusted, ahead):  # noqa: F811
    # a skewed (or lying) payload date: the "reproduced" claims to be measured after the
    # "not-reproduced", which entered with it
    first, second = _sorting(("reproduced", _at(ahead)), ("not-reproduced", _at(-50)),
                             second_last=False)
    _files(trusted, format_time(ENTRY), first, second)
    level, effects = _effects(trusted)
    # on BASE fb53db7b: the "reproduced" (counted at most five minutes ahead) stood, verified
    assert level == SOURCE_NATIVE
    assert effects == {"not-reproduced": _stands("not-reproduced"),
                       "reproduced": _superseded("not-reproduced", TIE)}


# -- a revoked key's rerun in the tie never stands -----------------------------------------

def test_a_rerun_dated_after_its_keys_revocation_never_stands(trusted):  # noqa: F811
    # the revocation, planned for ENTRY + 2 min, was recorded before the reruns entered
    revoke_key(trusted.root, keyid(RERUN_KEY), at=ENTRY + timedelta(minutes=2))
    _commit(trusted.root, _at(-3600), "revoke")
    # dated after the revocation: not counted, though its date is the latest of the three
    revoked = _rerun("reproduced", _at(180), 7)
    # of the two that count, the one dated later stands; the earlier one's name sorts last
    early, late = _sorting(("reproduced", _at(-50)), ("not-reproduced", _at(-20)),
                           second_last=False)
    _files(trusted, format_time(ENTRY), revoked, early, late)
    found = evidence_for(trusted, RUN)
    effects = sorted((a["outcome"], a["effect"]) for a in found.attestations)
    # on BASE 548a13da: the earlier "reproduced" (its name sorting last) stood, verified
    assert (found.level, effects) == (SOURCE_NATIVE, [
        ("not-reproduced", "disagrees"), ("reproduced", "not-counted"),
        ("reproduced", "superseded")])


# -- uncommitted files: both "entered" now: not-reproduced stands -----------------------

@pytest.mark.parametrize("later_sorts_last", [True, False])
def test_of_two_uncommitted_files_not_reproduced_stands(trusted, later_sorts_last):  # noqa: F811
    now = datetime.now(UTC)
    first, second = _sorting(("not-reproduced", format_time(now - timedelta(seconds=50))),
                             ("reproduced", format_time(now - timedelta(seconds=20))),
                             second_last=later_sorts_last)
    notes.attach(trusted, RUN, first, as_file=True)
    notes.attach(trusted, RUN, second, as_file=True)
    found = evidence_for(trusted, RUN)
    # on BASE fb53db7b: the "reproduced" signed later stood, verified
    assert found.level == SOURCE_NATIVE
    assert {a["outcome"]: a["effect"] for a in found.attestations} == {
        "reproduced": "superseded", "not-reproduced": "disagrees"}


# -- the order is the same whatever order the statements are read in ----------------------

def test_the_standing_rerun_is_the_same_under_every_read_order(trusted):  # noqa: F811
    older = _files(trusted, format_time(ENTRY), _rerun("reproduced", _at(-90), 1))
    newer = _files(trusted, format_time(ENTRY), _rerun("reproduced", _at(-90), 2))
    trust = trust_or_empty(trusted, None)[0]
    view = trusted.view()
    when = ENTRY
    statements = [  # (label, Seen): all entered at ENTRY
        ("note-nr", Seen(_rerun("not-reproduced", _at(-30)), RUN, "note", "n:1", when)),
        ("note-r", Seen(_rerun("reproduced", _at(-20), 3), RUN, "note", "n:2", when)),
        ("note-r-same-date", Seen(_rerun("reproduced", _at(-30), 4), RUN, "note", "n:3", when)),
        ("parent", Seen(_rerun("reproduced", _at(60), 5), RUN, "file", "f:1", when,
                        entered_in=(older,))),
        ("child", Seen(_rerun("not-reproduced", _at(-60)), RUN, "file", "f:2", when,
                       entered_in=(newer,))),
    ]
    # history first: "child" is after "parent"; then not-reproduced over reproduced, and
    # of one outcome the latest date: "note-nr" (-30 s) over "child" (-60 s), and of the
    # reproduced ones "parent" (+60 s), then "note-r" (-20 s), then "note-r-same-date"
    expected = ["note-r-same-date", "note-r", "parent", "child", "note-nr"]

    @settings(max_examples=60, deadline=None)
    @given(st.permutations(statements))
    def same(order):
        judged = judge_all([s for _, s in order], trust, view)
        places = {label: j.place for (label, _), j in zip(order, judged, strict=True)}
        assert sorted(places, key=places.__getitem__) == expected
        effects = {label: j.effect for (label, _), j in zip(order, judged, strict=True)}
        assert effects == {"note-r": "superseded", "note-r-same-date": "superseded",
                           "parent": "superseded", "note-nr": "disagrees",
                           "child": "disagrees"}

    same()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["reproduced", "not-reproduced"]),
                          st.integers(-120, 86_400)), min_size=2, max_size=6),
       st.randoms(use_true_random=False))
def test_rerun_order_of_one_tie_is_its_outcome_then_date_then_bytes(drawn, rnd):
    reruns = [Judgement("rerun", "k", True, "verifies", "", "note", f"n:{i}", ENTRY,
                        outcome=outcome, bundle=f"{i:02d}",
                        signed=ENTRY + timedelta(seconds=seconds))
              for i, (outcome, seconds) in enumerate(drawn)]
    shuffled = list(reruns)
    rnd.shuffle(shuffled)
    expected = sorted(reruns, key=lambda r: (r.outcome != "reproduced",
                                             min(r.signed, ENTRY + timedelta(minutes=5)),
                                             r.bundle))
    assert [reruns[i] for i in evidence.rerun_order(reruns)] == expected
    assert [shuffled[i] for i in evidence.rerun_order(shuffled)] == expected
