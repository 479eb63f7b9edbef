"""``attest`` judges what it writes at the entry time it will get (fresh06 M1, KI302).

A note line enters at its notes commit's date held up to its ancestors'. After a notes
commit dated ahead (23 hours: KI428's tolerance, before KI437), a maintainer whose key's
planned ``validUntil`` fell within those hours withdrew a run: ``attest`` judged it at the
clock, wrote it (exit 0, a warning "it counts as not-counted"), and it never counted;
``verify`` failed for good (KI302). docs: "`attest` refuses to write a rerun or withdrawal
the trust file's key may not sign (... expired: it would be listed as not counted, KI302
...)". Now it is refused, nothing written, the reason and the notes tip's date said.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess

import pygit2
import pytest

from kistore.attest import signing

from ..conftest import fixed_key
from .test_attestation_cli import RUN_REF, _notes_and_files, run


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "k"
    path.write_bytes(signing.private_key_bytes(fixed_key(1)))
    return path


def _date(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _redate_notes_tip(store_path, when: dt.datetime) -> None:
    def git(*args: str, env: dict[str, str] | None = None) -> str:
        return subprocess.run(["git", *args], cwd=store_path, check=True, capture_output=True,
                              text=True, env={**os.environ, **(env or {})}).stdout.strip()

    tip = git("rev-parse", "refs/notes/kistore")
    parents = git("rev-list", "--parents", "-n", "1", tip).split()[1:]
    made = git("commit-tree", f"{tip}^{{tree}}", *(a for p in parents for a in ("-p", p)),
               "-m", "notes", env={"GIT_COMMITTER_DATE": _date(when),
                                   "GIT_AUTHOR_DATE": _date(when)})
    git("update-ref", "refs/notes/kistore", made)


def test_a_withdrawal_that_would_enter_after_its_key_expires_is_refused(
        runner, record_store, store_path, key_file, tmp_path):
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    until = now + dt.timedelta(hours=2)
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", "maintainer",
               "--valid-from", "2026-01-01", "--valid-until", _date(until)).exit_code == 0
    subprocess.run(["git", "add", "store/trust"], cwd=store_path, check=True)
    subprocess.run(["git", "commit", "-qm", "trust"], cwd=store_path, check=True)
    stranger = tmp_path / "stranger"
    stranger.write_bytes(signing.private_key_bytes(fixed_key(3)))
    assert run(runner, store_path, "attest", RUN_REF, "--type", "dispute", "-m", "slow",
               "--key", str(stranger)).exit_code == 0  # anyone's community note ...
    ahead = now + dt.timedelta(hours=23)
    _redate_notes_tip(store_path, ahead)  # ... in a notes commit dated 23 hours ahead
    made = subprocess.run(["git", "rev-parse", "refs/notes/kistore"], cwd=store_path,
                          check=True, capture_output=True, text=True).stdout[:12]
    before = _notes_and_files(store_path)
    result = run(runner, store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                 "harness bug", "--key", str(key_file))
    # on BASE 6d3d3e30: exit 0, "warning: this withdrawal does not withdraw the run: it
    # counts as not-counted (key ... expired at ...)", and it was written
    assert result.exit_code == 1, result.output
    keyid = signing.keyid(fixed_key(1).public_key())
    # fresh08 M2: it said "key ... expired at T" before T; the key is valid until then, the
    # note would enter after it, and waiting does not help; fresh12 F8: the commit is named
    # (a line added: `kistore notes rebase` would not leave it out, so it is not offered)
    said = result.stderr
    assert said.startswith(
        f"error: the withdrawal about {RUN_REF} was not written: key {keyid} is valid until "
        f"{_date(until)}, after this machine's clock (")
    assert (f"), but a note written now would enter the repository at {_date(ahead)}, after "
            "that: refs/notes/kistore's tip is dated (or held to) "
            f"{_date(ahead)} by notes commit {made}, ahead of this machine's clock, and a "
            "note written on it "
            "enters no earlier (an entry time is never earlier than its history's); written, "
            "it would be listed as not counted (KI302: `kistore verify` fails on it). Waiting "
            "does not help: the key's validity ends before that date. Sign it with a key "
            "store/trust/keys.json trusts for maintainer then (`kistore trust list`), or have "
            "this key's validity changed by a reviewed pull request first") in said
    assert "expired" not in said
    assert _notes_and_files(store_path) == before
    assert "Traceback" not in result.output


@pytest.mark.parametrize("where", [[], ["--file"]])
def test_a_cut_loose_commit_under_the_tip_is_named_not_a_hang(
        runner, record_store, store_path, key_file, tmp_path, where):
    # entry_floor walked the notes tip's (or HEAD's) history with libgit2 alone: a loose
    # commit of it cut short made `attest` loop for ever (review F3's hang; on BASE 440899c7
    # still running after LIMIT seconds). Its walk is now the guarded one readers use.
    from .test_truncated_loose_object import LIMIT, cut, kistore

    stranger = tmp_path / "stranger"
    stranger.write_bytes(signing.private_key_bytes(fixed_key(3)))
    for text in ("slow", "slower"):  # two notes commits: the first is under the tip
        assert run(runner, store_path, "attest", RUN_REF, "--type", "dispute", "-m", text,
                   "--key", str(stranger)).exit_code == 0
    ref = "refs/notes/kistore" if not where else "HEAD"
    damaged = subprocess.run(["git", "rev-parse", f"{ref}~1"], cwd=store_path, check=True,
                             capture_output=True, text=True).stdout.strip()
    if where:  # HEAD's history: the record's commit, under a commit on top of it
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "on top"],
                       cwd=store_path, check=True)
        damaged = subprocess.run(["git", "rev-parse", "HEAD~1"], cwd=store_path, check=True,
                                 capture_output=True, text=True).stdout.strip()
    cut(store_path, damaged)
    before = _notes_and_files(store_path)
    status, out, err = kistore(store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                               "harness bug", "--key", str(key_file), *where)
    assert status is not None, f"still running after {LIMIT} s"
    assert status == 1, out + err
    assert f"git object {damaged} cannot be read (its loose object file is cut short" in err
    assert "Traceback" not in out + err and "internal error" not in err
    assert _notes_and_files(store_path) == before


def _trusted_until(runner, store_path, key_file, until: dt.datetime) -> None:
    """Trust ``key_file``'s key as maintainer until ``until``, committed."""
    assert run(runner, store_path, "trust", "add", str(key_file), "--role", "maintainer",
               "--valid-from", "2026-01-01", "--valid-until", _date(until)).exit_code == 0
    subprocess.run(["git", "add", "store/trust"], cwd=store_path, check=True)
    subprocess.run(["git", "commit", "-qm", "trust"], cwd=store_path, check=True)


def test_a_take_back_dated_ahead_is_named_with_notes_rebase_as_the_way_out(
        runner, record_store, store_path, key_file, tmp_path):
    # fresh12 F8: the refusal named neither the notes commit dated ahead (this repository's
    # own, never pushed) nor `kistore notes rebase`, which leaves it out
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    until = now + dt.timedelta(minutes=10)
    _trusted_until(runner, store_path, key_file, until)
    stranger = tmp_path / "stranger"
    stranger.write_bytes(signing.private_key_bytes(fixed_key(3)))
    assert run(runner, store_path, "attest", RUN_REF, "--type", "dispute", "-m", "mistake",
               "--key", str(stranger)).exit_code == 0
    blob = next(iter(pygit2.Repository(str(store_path)).notes("refs/notes/kistore"))
                ).annotated_id
    ahead = now + dt.timedelta(minutes=20)
    subprocess.run(["git", "notes", "--ref", "kistore", "remove", str(blob)], cwd=store_path,
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": _date(ahead)})  # taken back
    took = subprocess.run(["git", "rev-parse", "refs/notes/kistore"], cwd=store_path,
                          check=True, capture_output=True, text=True).stdout.strip()
    before = _notes_and_files(store_path)
    result = run(runner, store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                 "harness bug", "--key", str(key_file))
    assert result.exit_code == 1, result.output
    keyid = signing.keyid(fixed_key(1).public_key())
    assert re.sub(r"machine's clock \(\S+Z\)", "machine's clock (NOW)", result.stderr) == (
        f"error: the withdrawal about {RUN_REF} was not written: key {keyid} is valid until "
        f"{_date(until)}, after this machine's clock (NOW), but a note written now would "
        f"enter the repository at {_date(ahead)}, after that: refs/notes/kistore's tip is "
        f"dated (or held to) {_date(ahead)} by notes commit {took[:12]}, ahead of this "
        "machine's clock, and a note written on it enters no earlier (an entry time is never "
        "earlier than its history's); written, it would be listed as not counted (KI302: "
        "`kistore verify` fails on it). Waiting does not help: the key's validity ends before "
        "that date. `kistore notes rebase` (this repository has no remote) leaves out notes "
        f"commit {took[:12]} and the line(s) it took back, and keeps every other commit's "
        "date: run it, then attest again; or sign it with a key store/trust/keys.json trusts "
        "for maintainer then (`kistore trust list`), or have this key's validity changed by a "
        "reviewed pull request first\n")
    assert _notes_and_files(store_path) == before

    rebased = run(runner, store_path, "notes", "rebase")  # the way named: it then lands
    assert rebased.exit_code == 0, rebased.output
    result = run(runner, store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                 "harness bug", "--key", str(key_file))
    assert result.exit_code == 0, result.output


def test_with_a_remote_the_way_out_named_is_notes_rebase_remote(
        runner, record_store, store_path, key_file, tmp_path):
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    _trusted_until(runner, store_path, key_file, now + dt.timedelta(minutes=10))
    subprocess.run(["git", "remote", "add", "origin", str(tmp_path / "server.git")],
                   cwd=store_path, check=True)
    stranger = tmp_path / "stranger"
    stranger.write_bytes(signing.private_key_bytes(fixed_key(3)))
    assert run(runner, store_path, "attest", RUN_REF, "--type", "dispute", "-m", "slow",
               "--key", str(stranger)).exit_code == 0
    _redate_notes_tip(store_path, now + dt.timedelta(minutes=20))
    made = subprocess.run(["git", "rev-parse", "refs/notes/kistore"], cwd=store_path,
                          check=True, capture_output=True, text=True).stdout[:12]
    result = run(runner, store_path, "attest", RUN_REF, "--type", "withdrawal", "-m",
                 "harness bug", "--key", str(key_file))
    assert result.exit_code == 1, result.output
    assert (f"Waiting does not help: the key's validity ends before that date. `kistore notes "
            "rebase origin` rebuilds the notes on origin's, leaving out the notes commits it "
            f"lacks (notes commit {made} among them, if it was never pushed) and adding this "
            "repository's own lines back in notes commits dated now: run it, then attest "
            "again; or sign it with a key store/trust/keys.json trusts for maintainer then "
            "(`kistore trust list`)") in result.stderr, result.stderr
