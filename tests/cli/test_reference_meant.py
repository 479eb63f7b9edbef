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
    pattern = "is not a digest: 'sha256:' and 64 lower-case hex digits (0-9, a-f)"
    for written in (digest[:15], "Workload/rmsnorm-big", "workload/rmsnorm-big",
                    "rmsnorm-big", digest.upper().replace("SHA256", "sha256"), digest[7:]):
        result = _add(runner, store, tmp_path, run, written)
        assert result.exit_code == 1, written
        lower = "; write it in lower case" if written == digest.upper().replace(
            "SHA256", "sha256") else ""
        assert result.stderr == (
            f"error: {tmp_path / 'run.json'}:/spec/workloadDigest: field 'workloadDigest': "
            f"{written!r} {pattern}{lower}; {meant}\n"), written
    # one hex digit wrong: the dangling reference is refused, and the one stored neighbour named
    wrong = digest[:-1] + ("0" if digest[-1] != "0" else "1")
    result = _add(runner, store, tmp_path, run, wrong)
    assert result.exit_code == 1
    # at the field (fresh98: it said /spec, a malformed digest's error /spec/workloadDigest)
    assert result.stderr.startswith(f"error: {tmp_path / 'run.json'}:/spec/workloadDigest: "
                                    "BenchmarkRun "), result.stderr
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
        "is added, which a digest so near a stored one will never be: if you meant "
        "Workload/rmsnorm-big, "
        "write its whole digest there and add the run anew\n")
    # a reference far from any stored one is recorded as before, unsaid
    doc["spec"]["workloadDigest"] = "sha256:" + "0" * 64
    doc["metadata"]["name"] = "far"
    path.write_text(json.dumps(doc))
    result = runner.invoke(main, ["--store", str(store.root), "add", "--allow-dangling",
                                  str(path)])
    assert (result.exit_code, result.stderr) == (0, "")


def _swapped(hex_: str, at: int) -> str:
    """``hex_`` with its digits ``at`` and ``at + 1`` swapped (they must differ)."""
    assert hex_[at] != hex_[at + 1]
    return hex_[:at] + hex_[at + 1] + hex_[at] + hex_[at + 2:]


def _two_off(hex_: str, first: int, second: int) -> str:
    """``hex_`` with digits ``first`` and ``second`` each changed (never to themselves)."""
    out = list(hex_)
    for i in (first, second):
        out[i] = "0" if out[i] != "0" else "1"
    return "".join(out)


def test_r92_f4_two_swapped_or_two_wrong_digits_are_offered_and_warned_of(
        runner, stored, tmp_path):
    # reviewer r92 F4: refused with no did-you-mean, and --allow-dangling recorded it silently
    store, run = stored
    digest = run["spec"]["workloadDigest"]
    hex_ = digest[7:]
    at = next(i for i in range(30, 63) if hex_[i] != hex_[i + 1])
    first = next(i for i in range(63) if hex_[i] != hex_[i + 1])  # a swap anywhere: any shard
    meant = f"workloadDigest: did you mean {digest} (Workload/rmsnorm-big)? {_WHOLE}"
    cases = {"sha256:" + _swapped(hex_, at): "the same with two adjacent digits swapped",
             "sha256:" + _swapped(hex_, first): "the same with two adjacent digits swapped",
             "sha256:" + _two_off(hex_, 62, 63): "two digits away",  # 62 of 64 right
             "sha256:" + _two_off(hex_, 5, 40): "two digits away"}
    for i, (written, near) in enumerate(cases.items()):
        result = _add(runner, store, tmp_path, run, written)
        assert result.exit_code == 1, written
        assert result.stderr.endswith(
            f"workloadDigest={written}; {meant}; else add them first, or pass --allow-dangling "
            "to record the run anyway\n"), (written, result.stderr)
        doc = json.loads(json.dumps(run))
        doc["spec"]["workloadDigest"] = written
        doc["metadata"]["name"] = f"dangling-{i}"
        path = tmp_path / "run.json"
        path.write_text(json.dumps(doc))
        done = runner.invoke(main, ["--store", str(store.root), "add", "--allow-dangling",
                                    str(path)])
        assert done.exit_code == 0, done.output
        assert done.stderr.startswith(
            f"warning: {path}:/spec/workloadDigest: workloadDigest {written} names no stored "
            f"Workload, but {digest} (Workload/rmsnorm-big) is {near}: did you mean it? "), \
            done.stderr
    # two wrong in the first two digits (another shard), four wrong: nothing offered
    for far in ("sha256:" + _two_off(hex_, 0, 1),
                "sha256:" + _two_off(_two_off(hex_, 9, 20), 30, 31)):
        result = _add(runner, store, tmp_path, run, far)
        assert result.exit_code == 1 and "did you mean" not in result.stderr, result.stderr


def test_r92_f4_verify_and_check_name_the_stored_manifest_a_dangling_reference_is_near(
        runner, stored, tmp_path):
    # reviewer r92 F4: only `add` said it; a committed run one slip off was KI201 bare
    store, run = stored
    digest = run["spec"]["workloadDigest"]
    hex_ = digest[7:]
    at = next(i for i in range(63) if hex_[i] != hex_[i + 1])
    swapped = "sha256:" + _swapped(hex_, at)
    doc = json.loads(json.dumps(run))
    doc["spec"]["workloadDigest"] = swapped
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    added = runner.invoke(main, ["--store", str(store.root), "add", "--allow-dangling",
                                 "--commit", str(path)])
    assert added.exit_code == 0, added.output
    said = (f"warning KI201 reference-unresolved: {swapped} is not in the store; {digest} "
            "(Workload/rmsnorm-big) is the same with two adjacent digits swapped: did you mean "
            "it? This one will never resolve: the run ranks only once a run with the whole "
            "digest written there is added")
    for args in (["verify"], ["check", "HEAD~1..HEAD"]):
        done = runner.invoke(main, ["--store", str(store.root), *args])
        assert done.exit_code == 0, done.output
        assert [line.split(": ", 1)[1] for line in done.output.splitlines()
                if "KI201" in line and line.startswith("store/")] == [said], done.output
    findings = json.loads(runner.invoke(main, ["--store", str(store.root), "verify",
                                               "--json"]).stdout)["findings"]
    assert [f["extra"] for f in findings if f["rule"] == "KI201"] == [
        {"reference": swapped, "meant": digest}]
