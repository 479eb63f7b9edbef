"""A push keeps the history order of one key's reruns that entered in one second (fresh17 F1).

Two ``kistore attest`` in one second write a notes commit and its child of one date: the
child's rerun is the key's later one, by history (:func:`kistore.attest.evidence.
rerun_order`). ``kistore notes push`` more than a minute later makes the notes commits a
remote lacks again, dated at the push (KI437); until 2026-12-07 it made both lines one
notes commit (fresh16 F5's fix split by entry time only, and both had one time), so history
no longer ordered them and the parent's ``not-reproduced``, its payload dated later, stood
on the server and in every clone. Now the lines history orders get a notes commit each, a
second apart, in that order.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import json
import os
import subprocess

from ..attest.test_attestation_evidence import RERUN_KEY, bundle
from ..check.test_notes_gate_history import run_blob
from ..conftest import git
from .test_notes_push_rerun_order import (  # noqa: F401 (remote: a fixture)
    _at,
    _cli,
    _effects,
    _made,
    _noted,
    _text,
    pushed_in_order,
    rebuilt_in_order,
    remote,
)

VERIFIED = ("verified", [("not-reproduced", "superseded"), ("reproduced", "verifies")])
"""The key's last word, the child's ``reproduced``, stands: the run is verified."""

NOT_VERIFIED = ("source-native", [("not-reproduced", "disagrees"),
                                  ("reproduced", "superseded")])
"""The key's ``not-reproduced`` stands: the run is not verified."""


def _one_second(clone, ago: int) -> None:
    """fresh17 F1: ``not-reproduced`` (its payload dated 1 s before the entry), then, in a
    child notes commit of the same second, ``reproduced`` (measured a minute earlier)."""
    _noted(clone, bundle(RERUN_KEY, outcome="not-reproduced", observedAt=_text(_at(ago + 1)),
                         timing={"latencyNs": {"mean": 33_500_000}, "primaryStatistic": "mean"}),
           _at(ago))
    _noted(clone, bundle(RERUN_KEY, outcome="reproduced", observedAt=_text(_at(ago + 60))),
           _at(ago))
    assert len(set(git(clone, "log", "-2", "--format=%ct", "refs/notes/kistore").split())) == 1


def test_a_push_keeps_the_order_of_a_notes_commit_and_its_child_of_one_second(
        remote, tmp_path):  # noqa: F811
    # on BASE fb53db7b: source-native already here; once made again in one commit
    # (fresh17 F1's push), the parent's not-reproduced stood on origin and in every clone
    pushed = pushed_in_order(remote, tmp_path, _one_second, VERIFIED)
    # each notes commit is made again by the one holding its line
    assert [(r["kept"], r["new"]) for r in json.loads(pushed.stdout)["redated"]] == [
        (False, git(remote.clone, "rev-parse", f"refs/notes/kistore{up}").strip())
        for up in ("", "~1")]


def test_a_rebuild_keeps_the_order_of_a_notes_commit_and_its_child_of_one_second(
        remote, tmp_path):  # noqa: F811
    # on BASE fb53db7b: written back in one notes commit: the parent's line stood
    rebuilt_in_order(remote, tmp_path, _one_second, VERIFIED)


def test_lines_of_one_notes_commit_are_made_again_as_one_commit(remote):  # noqa: F811
    # two reruns of one notes commit: history orders neither, and one commit keeps them as
    # they were
    lines = [bundle(RERUN_KEY, outcome="not-reproduced", observedAt=_text(_at(91)),
                    timing={"latencyNs": {"mean": 33_500_000}, "primaryStatistic": "mean"}),
             bundle(RERUN_KEY, outcome="reproduced", observedAt=_text(_at(150)))]
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-",
                    run_blob(remote.clone)], cwd=remote.clone,
                   input=b"".join(x + b"\n" for x in sorted(lines)), check=True,
                   capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": f"@{int(_at(90).timestamp())} +0000"})
    assert _effects(remote.clone) == NOT_VERIFIED
    pushed = _cli(remote.clone, "notes", "push", "origin", "--json")
    assert [r["kept"] for r in json.loads(pushed.stdout)["redated"]] == [False]
    assert _made(remote.bare, count=1)[0][1] == (
        "kistore: the notes origin lacks, made again at the push (a note line enters at its "
        "notes commit's date, KI437)")
    assert _effects(remote.clone) == NOT_VERIFIED
