"""Reviewer r90b F6: a run's reference written by hand gets the stored manifest it means.

A ``*Digest`` field written as a prefix, as ``KIND/NAME``, in upper case or with one hex
digit wrong got a bare regex error or "not in the store ... pass --allow-dangling" (a run
that never ranks). ``add`` now offers the one stored match, read as the command line reads a
reference (:meth:`kistore.store.Store.meant_reference`), never writing it in; and ``show
Workload/<a run's name>`` offers the run and the workload its name starts with before a
name merely close to it.
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main

from ..conftest import add_docs

_WHOLE = ("(write the whole digest there yourself: kistore never rewrites a manifest, whose "
          "digest is what its contributor signs)")


@pytest.fixture
def stored(store, kit):
    """A store holding Workload/rmsnorm-big and the protocol, environment, implementation."""
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation()
    workload = kit.workload(name="rmsnorm-big")
    add_docs(store, [protocol, env, impl, workload])
    return store, kit.run(protocol, env, impl, workload, latency=1000, name="rmsnorm-big-run-1")


def _add(runner, store, tmp_path, run: dict, written: str):
    doc = json.loads(json.dumps(run))
    doc["spec"]["workloadDigest"] = written
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    return runner.invoke(main, ["--store", str(store.root), "add", str(path)])


def test_a_reference_written_as_on_the_command_line_is_offered_whole(runner, stored,
                                                                     tmp_path):
    store, run = stored
    digest = run["spec"]["workloadDigest"]
    meant = f"workloadDigest: did you mean {digest} (Workload/rmsnorm-big)? {_WHOLE}"
    pattern = "does not match '^sha256:[0-9a-f]{64}$'"
    for written in (digest[:15], "Workload/rmsnorm-big", "workload/rmsnorm-big",
                    "rmsnorm-big", digest.upper().replace("SHA256", "sha256"), digest[7:]):
        result = _add(runner, store, tmp_path, run, written)
        assert result.exit_code == 1, written
        assert result.stderr == (
            f"error: {tmp_path / 'run.json'}:/spec/workloadDigest: field 'workloadDigest': "
            f"{written!r} {pattern}; {meant}\n"), written
    # one hex digit wrong: the dangling reference is refused, and the one stored neighbour named
    wrong = digest[:-1] + ("0" if digest[-1] != "0" else "1")
    result = _add(runner, store, tmp_path, run, wrong)
    assert result.exit_code == 1
    assert result.stderr.endswith(  # the did-you-mean before --allow-dangling (r91 F2)
        f"references digests that are not in the store nor in this input: workloadDigest="
        f"{wrong}; {meant}; else add them first, or pass --allow-dangling to record the run "
        "anyway\n"), result.stderr
    # nothing near: the words as before; a reference of another kind is never offered
    for far in ("sha256:" + "0" * 64, "BenchmarkProtocol/rmsnorm-big", "nothing-like-it"):
        result = _add(runner, store, tmp_path, run, far)
        assert result.exit_code == 1 and "did you mean" not in result.stderr, result.stderr
    assert store.meant_reference(run["spec"]["protocolDigest"][:15], "Workload") is None
    assert store.meant_reference(digest, "Workload") is None  # exact: nothing to mean


def test_show_of_a_kind_without_the_name_prefers_the_name_elsewhere_and_its_start(
        runner, stored):
    store, run = stored
    add_docs(store, [run])
    result = runner.invoke(main, ["--store", str(store.root), "show",
                                  "Workload/rmsnorm-big-run-1"])
    assert (result.exit_code, result.stderr) == (1, (
        "error: no Workload named 'rmsnorm-big-run-1' in the work tree; did you mean "
        "BenchmarkRun/rmsnorm-big-run-1 or Workload/rmsnorm-big?\n"))


def test_a_stray_space_an_extra_or_missing_or_non_hex_digit_or_a_fullwidth_one_is_offered(
        runner, stored, tmp_path):
    # reviewer r91 F2: each got the bare regex error, though the command line mends them
    store, run = stored
    digest = run["spec"]["workloadDigest"]
    hex_ = digest[7:]
    odd = "x" if hex_[10] != "x" else "y"
    meant = f"workloadDigest: did you mean {digest} (Workload/rmsnorm-big)? {_WHOLE}"
    for written in (digest + " ", " " + digest, "sha256: " + hex_, digest + "0",
                    "sha256:" + hex_[:10] + odd + hex_[11:], "sha256:" + hex_[:10] + hex_[11:],
                    "sha256:" + hex_[:10] + "Ａ" + hex_[11:],  # fullwidth, one letter off
                    "Workload/rmsnorm-ｂｉｇ", digest.replace("5", "５")):
        result = _add(runner, store, tmp_path, run, written)
        assert result.exit_code == 1, written
        assert result.stderr.endswith(f"; {meant}\n"), (written, result.stderr)
    # two slips: nothing offered (the one-slip search never guesses further)
    result = _add(runner, store, tmp_path, run, digest + "00")
    assert result.exit_code == 1 and "did you mean" not in result.stderr


def test_allow_dangling_records_a_digest_one_digit_off_and_warns(runner, stored, tmp_path):
    # reviewer r91 F2: following the first advice, --allow-dangling, was silent
    store, run = stored
    digest = run["spec"]["workloadDigest"]
    wrong = digest[:-1] + ("0" if digest[-1] != "0" else "1")
    doc = json.loads(json.dumps(run))
    doc["spec"]["workloadDigest"] = wrong
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    result = runner.invoke(main, ["--store", str(store.root), "add", "--allow-dangling",
                                  str(path)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"warning: {path}:/spec/workloadDigest: workloadDigest {wrong} names no stored "
        f"Workload, but {digest} (Workload/rmsnorm-big) is one digit away: did you mean it? "
        "The run is recorded (--allow-dangling) and ranks only once a manifest of that digest "
        "is added, which one digit off will never be: if you meant Workload/rmsnorm-big, "
        "write its whole digest there and add the run anew\n")
    # a reference far from any stored one is recorded as before, unsaid
    doc["spec"]["workloadDigest"] = "sha256:" + "0" * 64
    doc["metadata"]["name"] = "far"
    path.write_text(json.dumps(doc))
    result = runner.invoke(main, ["--store", str(store.root), "add", "--allow-dangling",
                                  str(path)])
    assert (result.exit_code, result.stderr) == (0, "")
