"""A work tree's trust file that is not ``HEAD``'s is judged by ``HEAD``'s (fresh14 F15).

A work tree whose ``store/trust/keys.json`` was deleted, emptied to ``{"keys": []}``,
replaced by a FIFO, a symbolic link (even to the same bytes) or a directory, cut off, left
with conflict markers, or had an entry removed or a role dropped, made ``rank`` and
``show`` rank the withdrawn run and drop ``verified``, most of them without a word. No
commit can make these states (KI410), so the work tree's answers now judge by ``HEAD``'s
file, plus the work tree's pending revocations (and its new keys, which count from their
commit), with one warning line after the answer; ``verify`` reports each state (KI410,
an error) and ``trust add``/``trust revoke`` refuse to write over a missing file, or
(fresh16 F2) one that removes or narrows an entry ``HEAD`` holds.

The store: ``fast`` withdrawn by a trusted maintainer's note, ``slow`` verified by a trusted
rerun key's reproduced rerun (a note), both keys trusted in one commit dated 2026-01-01.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kistore.attest import attestation, notes, signing
from kistore.attest.trust import add_key
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.layout import TRUST_FILE
from kistore.store import Store

from ..conftest import add_docs, commit_all, fixed_key, git, next_second, redate_history
from ..prs import KISTORE
from ..sparse import MAINTAINER, withdraw

RERUN = fixed_key(5)
"""The rerun farm's key, trusted for ``rerun``: its reproduced rerun verifies ``slow``."""

NEWCOMER = fixed_key(6)
"""A maintainer key only the work tree lists (a pending ``trust add``)."""

LATECOMER = fixed_key(7)
"""A maintainer key only the work tree lists, given a past ``validFrom`` (fresh16 F7)."""


def key_line(key) -> str:
    """The OpenSSH public-key line of a private key."""
    return signing.public_key_line(key.public_key())


def keyid(key) -> str:
    """The OpenSSH fingerprint of a private key."""
    return signing.keyid(key.public_key())


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The kistore CLI in a process of its own (a FIFO read would hang: a timeout)."""
    return subprocess.run([KISTORE, "--store", str(root), *args], capture_output=True,
                          text=True, check=False, timeout=120)


@pytest.fixture
def judged(store, kit) -> Store:
    """The group store of ``conftest.group`` with ``fast`` withdrawn and ``slow`` verified."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    runs = {}
    for name, latency in (("fast", 10), ("slow", 30), ("mid", 20)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        runs[name] = kit.run(protocol, env, impl, workload, latency=latency, name=name)
        docs += [impl, runs[name]]
    add_docs(store, docs)
    add_key(store.root, key_line(MAINTAINER), ["maintainer"], comment="m")
    add_key(store.root, key_line(RERUN), ["rerun"], comment="farm")
    commit_all(store.root, "trust")
    redate_history(store.root, "2026-01-01T00:00:00Z")
    withdraw(store, Digest.from_str(kit.digest(runs["fast"])), as_file=False)
    slow = Digest.from_str(kit.digest(runs["slow"]))
    statement = attestation.make_statement(slow, layout.object_path(slow), "rerun", {
        "outcome": "reproduced", "observedAt": "2026-07-10T06:41:58Z",
        "environmentDigest": kit.digest(env),
        "timing": {"latencyNs": {"mean": 30}, "primaryStatistic": "mean"}})
    notes.attach(store, slow, attestation.sign_statement(statement, RERUN).to_bytes())
    return store


def ranked(root: Path, *at: str) -> tuple[list[dict], str]:
    """``rank BenchmarkRun/slow --all --json``'s rows and stderr (exit 0)."""
    done = run(root, "rank", "BenchmarkRun/slow", "--all", "--json", *at)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def evidence_of(rows: list[dict]) -> dict[str, tuple[int | None, str]]:
    """Each run's rank and evidence level (``withdrawn`` for a withdrawn run)."""
    return {r["name"]: (r["rank"], "withdrawn" if r["withdrawn"] else r["evidenceLevel"])
            for r in rows}


def entry_removed(root: Path) -> None:
    """Remove the rerun key's entry (the maintainer's kept)."""
    doc = json.loads((root / TRUST_FILE).read_text())
    doc["keys"] = [k for k in doc["keys"] if k["keyid"] != keyid(RERUN)]
    (root / TRUST_FILE).write_text(json.dumps(doc, indent=2) + "\n")


def role_dropped(root: Path) -> None:
    """Give the maintainer's key the role ``rerun`` instead of ``maintainer``."""
    doc = json.loads((root / TRUST_FILE).read_text())
    for k in doc["keys"]:
        if k["keyid"] == keyid(MAINTAINER):
            k["roles"] = ["rerun"]
    (root / TRUST_FILE).write_text(json.dumps(doc, indent=2) + "\n")


def until_earlier(root: Path) -> None:
    """Give the maintainer's key a ``validUntil`` before now (HEAD's entry has none)."""
    doc = json.loads((root / TRUST_FILE).read_text())
    for k in doc["keys"]:
        if k["keyid"] == keyid(MAINTAINER):
            k["validUntil"] = "2026-02-01T00:00:00Z"
    (root / TRUST_FILE).write_text(json.dumps(doc, indent=2) + "\n")


def symlinked(root: Path) -> None:
    """A symbolic link to a copy of the very same bytes, outside the repository."""
    path = root / TRUST_FILE
    copy = root.parent / "keys.bak"
    copy.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(copy)


def replaced_by(make: Callable[[Path], None]) -> Callable[[Path], None]:
    """Remove the file, then make something else at its path."""
    def damage(root: Path) -> None:
        (root / TRUST_FILE).unlink()
        make(root / TRUST_FILE)
    return damage


STATES: dict[str, tuple[Callable[[Path], None], str]] = {
    "deleted": (lambda root: (root / TRUST_FILE).unlink(), "is missing"),
    "emptied": (lambda root: (root / TRUST_FILE).write_text('{"keys": []}\n'),
                "removes the entry of key {maintainer} (maintainer) that HEAD holds "
                "(and 1 more key entries removed or narrowed)"),
    "fifo": (replaced_by(os.mkfifo), "is a FIFO"),
    "symlink": (symlinked, "is a symbolic link (never read through)"),
    "directory": (replaced_by(os.mkdir), "is a directory"),
    "cut-off": (lambda root: (root / TRUST_FILE).write_text('{"keys": [\n'), "is invalid ("),
    "conflict": (lambda root: (root / TRUST_FILE).write_text(
        "<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> theirs\n"), "is invalid ("),
    "entry-removed": (entry_removed,
                      "removes the entry of key {rerun} (rerun) that HEAD holds"),
    "role-dropped": (role_dropped, "narrows the entry of key {maintainer} that HEAD holds "
                                   "(roles maintainer -> rerun)"),
    "until-earlier": (until_earlier, "narrows the entry of key {maintainer} that HEAD holds "
                                     "(validUntil none -> 2026-02-01T00:00:00Z, before the "
                                     "change)"),
}
"""Each state of the work tree's trust file: how it is made, and how the warning says it."""

RESTORE = f"git checkout HEAD -- {TRUST_FILE}"

TAKEN = ["emptied", "entry-removed", "role-dropped", "until-earlier"]
"""The states of :data:`STATES` of a valid file that removes or narrows HEAD's entries."""


def said(state: str) -> str:
    """The clause of :data:`STATES` for ``state``, keys filled in."""
    return STATES[state][1].format(maintainer=keyid(MAINTAINER), rerun=keyid(RERUN))


def warning(state: str) -> str:
    """The whole warning line (up to its cause's own words for an invalid file)."""
    fix = f"restore it with `{RESTORE}`"
    if state in TAKEN:
        fix += (" (then make a pending `kistore trust add` or `revoke` again); a key's trust "
                "ends with `kistore trust revoke KEY`, never by removing or narrowing its "
                "entry")
    return (f": these answers judge attestations by HEAD's {TRUST_FILE} (2 key(s)) and the "
            "work tree's revocations, as no commit may delete it, leave it invalid, or "
            "remove or narrow a key's entry (KI410; `kistore verify` reports it); " + fix)


UNREAD = ["cut-off", "conflict"]
"""The states of :data:`STATES` that do not read as JSON: since 2026-12-07 (fresh17 F5) a
revocation in them may be lost, so the work tree's answers are refused
(tests/cli/test_trust_damaged.py); ``verify`` still reports them (KI410)."""


@pytest.mark.parametrize("state", [s for s in STATES if s not in UNREAD])
def test_a_work_tree_trust_file_not_heads_is_judged_by_heads(judged, state):
    root = Path(judged.root)
    committed, quiet = ranked(root, "--at", "HEAD")
    assert quiet == ""
    assert evidence_of(committed) == {"fast": (None, "withdrawn"), "slow": (2, "verified"),
                                      "mid": (1, "source-native")}
    assert ranked(root) == (committed, "")  # the same file: the same answer, no word
    show_committed = run(root, "show", "BenchmarkRun/slow", "--at", "HEAD")
    STATES[state][0](root)

    rows, stderr = ranked(root)

    assert rows == committed  # before: fast ranked, slow source-native
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    start = f"warning: {TRUST_FILE} in the work tree {said(state)}"
    assert lines[0].startswith(start), lines[0]
    assert lines[0].endswith(warning(state)), lines[0]
    shown = run(root, "show", "BenchmarkRun/slow")
    assert (shown.returncode, shown.stdout) == (0, show_committed.stdout)
    assert shown.stderr == stderr
    fast = run(root, "show", "BenchmarkRun/fast")
    assert fast.returncode == 0 and "withdrawn" in fast.stdout, fast.stdout


def test_a_pending_revocation_counts_with_no_warning(judged):
    root = Path(judged.root)
    done = run(root, "trust", "revoke", keyid(MAINTAINER), "--at", "2026-02-01T00:00:00Z")
    assert done.returncode == 0, done.stderr

    rows, stderr = ranked(root)

    assert stderr == ""
    # the withdrawal entered after the revocation: it counts no more (not yet committed)
    assert evidence_of(rows)["fast"] == (1, "source-native")
    git(root, "checkout", "-q", "HEAD", "--", TRUST_FILE)
    assert evidence_of(ranked(root)[0])["fast"] == (None, "withdrawn")


def test_a_pending_revocation_in_a_file_cut_off_refuses_the_answers(judged):
    """Since 2026-12-07 (fresh17 F5): refused, as a file cut off inside the entry is."""
    root = Path(judged.root)
    assert run(root, "trust", "revoke", keyid(MAINTAINER), "--at",
               "2026-02-01T00:00:00Z").returncode == 0
    text = (root / TRUST_FILE).read_text()
    (root / TRUST_FILE).write_text(text[:text.index(keyid(RERUN))])  # cut after the revocation

    done = run(root, "rank", "BenchmarkRun/slow", "--all")

    assert (done.returncode, done.stdout) == (1, "")  # before: the revocation salvaged
    assert done.stderr.startswith(f"error: {TRUST_FILE}: the work tree's file does not read "
                                  "as JSON (an edit cut off?) ("), done.stderr


def test_a_pending_new_key_stays_community_and_a_widened_role_counts_from_its_commit(judged):
    root = Path(judged.root)
    (root.parent / "new.pub").write_text(key_line(NEWCOMER) + "\n")
    (root.parent / "farm.pub").write_text(key_line(RERUN) + "\n")
    assert run(root, "trust", "add", str(root.parent / "new.pub"), "--role",
               "maintainer").returncode == 0
    widened = run(root, "trust", "add", str(root.parent / "farm.pub"), "--role", "maintainer")
    assert widened.returncode == 0, widened.stderr
    digest = next(r["digest"] for r in ranked(root)[0] if r["name"] == "mid")
    for key in (NEWCOMER, RERUN):
        statement = attestation.make_statement(
            Digest.from_str(digest), layout.object_path(Digest.from_str(digest)),
            "withdrawal", {"reason": "harness bug", "createdAt": "2026-07-10T00:00:00Z"})
        notes.attach(judged, Digest.from_str(digest),
                     attestation.sign_statement(statement, key).to_bytes())

    rows, stderr = ranked(root)

    assert stderr == ""  # the file only widens HEAD's
    assert evidence_of(rows)["mid"] == (1, "source-native")  # neither withdrawal counts yet
    listed = run(root, "attestations", digest)
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr
    assert f"key {keyid(NEWCOMER)} is listed in the work tree's {TRUST_FILE} but no commit " \
           "adds it yet" in listed.stdout, listed.stdout
    # trust07 (fresh17 F9): "is trusted for rerun, not maintainer", as if the work tree did
    # not say it; in attest's refusal's words (test_attest_refuses_a_withdrawal_by_...)
    assert (f"key {keyid(RERUN)} is trusted for rerun, and only the work tree's {TRUST_FILE} "
            "adds maintainer, which no commit does yet: an uncommitted widening counts from "
            f"its commit (commit {TRUST_FILE} first)") in listed.stdout, listed.stdout


def test_a_pending_new_key_with_a_past_valid_from_counts_from_its_commit(judged):
    # fresh16 F7: `trust add KEY --role maintainer --valid-from 2026-01-01`, not committed,
    # made the key's withdrawal apply at once, unreviewed (`rank --at HEAD` ranked the run),
    # while an uncommitted widening of a committed key did not count
    root = Path(judged.root)
    (root.parent / "late.pub").write_text(key_line(LATECOMER) + "\n")
    added = run(root, "trust", "add", str(root.parent / "late.pub"), "--role", "maintainer",
                "--valid-from", "2026-01-01")
    assert (added.returncode, added.stdout) == (0, f"trusted {keyid(LATECOMER)} for "
                                                   "maintainer\n"), added.stderr
    digest = Digest.from_str(next(r["digest"] for r in ranked(root)[0] if r["name"] == "mid"))
    statement = attestation.make_statement(digest, layout.object_path(digest), "withdrawal", {
        "reason": "harness bug", "createdAt": "2026-07-10T00:00:00Z"})
    notes.attach(judged, digest, attestation.sign_statement(statement, LATECOMER).to_bytes())

    rows, stderr = ranked(root)

    assert stderr == ""  # the file only adds a key
    assert evidence_of(rows)["mid"] == (1, "source-native")  # before: withdrawn
    assert rows == ranked(root, "--at", "HEAD")[0]
    listed = run(root, "attestations", str(digest))
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr
    assert (f"key {keyid(LATECOMER)} is listed in the work tree's {TRUST_FILE} with "
            "validFrom 2026-01-01T00:00:00Z, but no commit adds it yet: a community "
            "attestation until the commit that does, which makes what the key signed that "
            "entered since its validFrom count (`kistore check` warns of it, KI442; commit "
            "the trust change first, then attest)") in listed.stdout, listed.stdout
    commit_all(root, "trust: a maintainer from 2026-01-01")
    assert evidence_of(ranked(root)[0])["mid"] == (None, "withdrawn")  # its validFrom decides


@pytest.mark.parametrize("state", list(STATES))
def test_verify_reports_each_state_as_ki410_with_its_fix(judged, state):
    root = Path(judged.root)
    STATES[state][0](root)

    done = run(root, "verify", "--json")

    found = [f for f in json.loads(done.stdout)["findings"]
             if f["rule"] == "KI410" and f.get("extra", {}).get("worktree")]
    assert done.returncode == 1
    assert found, done.stdout
    first = found[0]
    assert (first["severity"], first["file"]) == ("error", TRUST_FILE)
    assert first["message"].startswith(f"the work tree's {TRUST_FILE} {said(state)}".split(
        " (and ")[0]), first["message"]
    assert first["message"].endswith(
        ": no commit may delete it, leave it invalid, or remove or narrow a key's entry (the "
        "gate refuses it), and every query of the work tree judges attestations by HEAD's "
        "file and the work tree's revocations instead"), first["message"]
    assert first["hint"].startswith(f"restore it with `{RESTORE}`")
    name = {"cut-off": "trust-file-made-invalid", "conflict": "trust-file-made-invalid",
            "emptied": "trust-entry-removed", "entry-removed": "trust-entry-removed",
            "role-dropped": "trust-entry-narrowed", "until-earlier": "trust-entry-narrowed",
            }.get(state, "append-only-file-removed")
    assert first["name"] == name
    assert len(found) == (2 if state == "emptied" else 1)


def test_verify_of_a_widened_file_reports_no_ki410(judged):
    root = Path(judged.root)
    (root.parent / "new.pub").write_text(key_line(NEWCOMER) + "\n")
    assert run(root, "trust", "add", str(root.parent / "new.pub"), "--role",
               "rerun").returncode == 0
    done = run(root, "verify", "--json")
    assert [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI410"] == []


def refusal(state: str, command: str) -> str:
    """The whole refusal of ``trust COMMAND`` over the work tree's file in ``state``."""
    start = (f"error: {TRUST_FILE}: the work tree's trust file {said(state)}, while HEAD holds "
             f"it (2 key(s)): `kistore trust {command}` changes the work tree's file")
    if state not in TAKEN:
        return (f"{start}, and one written in its place would lack HEAD's keys, which no "
                f"commit may remove (KI410); restore it first with `{RESTORE}`, then run "
                "this again; nothing was written\n")
    return (f"{start} and would keep that, which no commit may do (KI410), while every query "
            f"judges by HEAD's entries; restore it first with `{RESTORE}` (then make a "
            "pending `kistore trust add` or `revoke` again), then run this again; a key's "
            "trust ends with `kistore trust revoke KEY`, never by removing or narrowing its "
            "entry; nothing was written\n")


@pytest.mark.parametrize("state", ["deleted", "directory", "fifo", "symlink", *TAKEN])
@pytest.mark.parametrize("command", ["add", "revoke"])
def test_trust_add_and_revoke_refuse_a_file_not_heads(judged, state, command):
    # fresh16 F2 (TAKEN): `trust add` wrote the given key alone over `{"keys": []}` (exit 0,
    # the gate then refused it, KI410) and kept a narrowing; `trust revoke` of a key every
    # query trusts said "no key ... in trust"
    root = Path(judged.root)
    (root.parent / "new.pub").write_text(key_line(NEWCOMER) + "\n")
    STATES[state][0](root)
    before = git(root, "status", "--porcelain")
    kept = (root / TRUST_FILE).read_bytes() if state in TAKEN else b""
    args = (["add", str(root.parent / "new.pub"), "--role", "rerun"] if command == "add"
            else ["revoke", keyid(RERUN)])

    done = run(root, "trust", *args)

    assert (done.returncode, done.stdout, done.stderr) == (1, "", refusal(state, command))
    assert git(root, "status", "--porcelain") == before
    assert state not in TAKEN or (root / TRUST_FILE).read_bytes() == kept


def test_pending_revocations_and_new_keys_are_written_on_and_the_gate_passes(judged):
    # fresh16 F2: what `trust revoke` and `trust add` leave pending (a revocation, a new
    # key) takes nothing from HEAD's file: the next `trust add`/`revoke` writes on
    root = Path(judged.root)
    (root.parent / "new.pub").write_text(key_line(NEWCOMER) + "\n")
    next_second()  # revoked after the notes entered: nothing reaches back (KI413)

    first = run(root, "trust", "revoke", keyid(MAINTAINER))
    second = run(root, "trust", "add", str(root.parent / "new.pub"), "--role", "maintainer")
    third = run(root, "trust", "revoke", keyid(RERUN))

    assert (first.returncode, first.stderr) == (0, ""), first.stderr
    assert first.stdout.startswith(f"revoked {keyid(MAINTAINER)} from "), first.stdout
    assert (second.returncode, second.stdout, second.stderr) == (
        0, f"trusted {keyid(NEWCOMER)} for maintainer\n", "")
    assert (third.returncode, third.stderr) == (0, ""), third.stderr
    assert third.stdout.startswith(f"revoked {keyid(RERUN)} from "), third.stdout
    doc = json.loads((root / TRUST_FILE).read_text())
    assert {k["keyid"]: "revokedAt" in k for k in doc["keys"]} == {
        keyid(MAINTAINER): True, keyid(RERUN): True, keyid(NEWCOMER): False}
    commit_all(root, "trust: revoke two keys, trust a new one")
    checked = run(root, "check", "HEAD~1..HEAD")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines()[-1] == "ok: HEAD~1..HEAD: 0 errors, 0 warnings, 1 info"


def test_attest_of_a_withdrawal_with_the_trust_file_deleted_says_no_false_community(
        judged, tmp_path):
    root = Path(judged.root)
    key_file = tmp_path / "m.key"
    key_file.write_bytes(signing.private_key_bytes(MAINTAINER))
    key_file.chmod(0o600)
    (root / TRUST_FILE).unlink()

    done = run(root, "attest", "BenchmarkRun/mid", "--type", "withdrawal", "-m", "bad",
               "--key", str(key_file))

    assert done.returncode == 0, done.stderr
    assert "community" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        f"warning: {TRUST_FILE} in the work tree is missing: "), done.stderr
    rows, _ = ranked(root)
    assert evidence_of(rows)["mid"] == (None, "withdrawn")


def test_trust_list_lists_heads_keys_and_warns(judged):
    root = Path(judged.root)
    (root / TRUST_FILE).unlink()
    done = run(root, "trust", "list")
    assert done.returncode == 0
    assert sorted(line.split()[0] for line in done.stdout.splitlines()) == sorted(
        [keyid(MAINTAINER), keyid(RERUN)])
    assert done.stderr.startswith(f"warning: {TRUST_FILE} in the work tree is missing: ")
    assert len(done.stderr.splitlines()) == 1


EXPIRED = fixed_key(8)
"""A maintainer key ``HEAD`` trusts until 2026-02-01 (expired)."""


def filed_withdrawal(store: Store, key, root: Path) -> str:
    """File (uncommitted) a withdrawal of ``mid`` signed by ``key``; return its path."""
    digest = Digest.from_str(next(r["digest"] for r in ranked(root)[0] if r["name"] == "mid"))
    statement = attestation.make_statement(digest, layout.object_path(digest), "withdrawal", {
        "reason": "harness bug", "createdAt": "2026-07-10T00:00:00Z"})
    return notes.attach(store, digest, attestation.sign_statement(statement, key).to_bytes(),
                        as_file=True)


def test_notes_sync_judges_a_narrowed_trust_file_by_heads(judged):
    # trust05: `notes sync` read the work tree's file as written: a validUntil narrowed in
    # the work tree left out the file of a key HEAD (and the server) trusts, exit 1
    root = Path(judged.root)
    filed_withdrawal(judged, MAINTAINER, root)
    until_earlier(root)

    done = run(root, "notes", "sync")

    assert (done.returncode, done.stdout) == (0, "1 attestation(s) attached, 0 already "
                                                 "present\n"), done.stderr
    assert done.stderr == (f"warning: {TRUST_FILE} in the work tree {said('until-earlier')}"
                           f"{warning('until-earlier')}\n")


def test_notes_sync_judges_an_emptied_trust_file_by_heads(judged):
    # trust05: with the file emptied, the file of a key HEAD says expired was attached as
    # a community note, which the server refuses (KI411) at every later `notes push`
    root = Path(judged.root)
    add_key(root, key_line(EXPIRED), ["maintainer"],
            valid_until=datetime(2026, 2, 1, tzinfo=UTC))
    commit_all(root, "trust: a maintainer until 2026-02-01")
    path = filed_withdrawal(judged, EXPIRED, root)
    (root / TRUST_FILE).write_text('{"keys": []}\n')

    done = run(root, "notes", "sync")

    assert (done.returncode, done.stdout) == (1, "0 attestation(s) attached, 0 already "
                                                 "present\n"), done.stderr
    # one line: a command that fails says no warning after it (wt01: never ahead of a failure)
    assert re.sub(r"repository at \S+Z\)", "repository at NOW)", done.stderr) == (
        f"error: {path}: not attached: a note made now would not count (key {keyid(EXPIRED)} "
        "expired at 2026-02-01T00:00:00Z; the attestation entered the repository at NOW); a "
        "server's pre-receive hook refuses such a note (KI409, KI411), which would block "
        "every later `kistore notes push`; the file attestation stays as it is\n")
    assert git(root, "notes", "--ref", "kistore", "list").count("\n") == 2  # fast, slow


def test_trust_export_of_an_emptied_or_narrowed_file_exports_heads_keys(judged):
    # trust05: `trust export` read the work tree's file as written: emptied, it exported no
    # key; narrowed, the narrowing; it now exports what `trust list` lists
    root = Path(judged.root)
    committed = run(root, "trust", "export", "--allowed-signers", "-", "--at", "HEAD")
    assert (committed.returncode, committed.stderr) == (0, "")
    assert run(root, "trust", "export", "--allowed-signers", "-").stdout == committed.stdout
    for state in ("emptied", "until-earlier"):
        git(root, "checkout", "-q", "HEAD", "--", TRUST_FILE)
        STATES[state][0](root)

        done = run(root, "trust", "export", "--allowed-signers", "-")

        assert (done.returncode, done.stdout) == (0, committed.stdout), state
        assert done.stderr == (f"warning: {TRUST_FILE} in the work tree {said(state)}"
                               f"{warning(state)}\n")
    written = run(root, "trust", "export", "--allowed-signers", str(root.parent / "signers"))
    assert written.stderr.splitlines()[0] == f"wrote 2 key(s) to {root.parent / 'signers'}"
    assert (root.parent / "signers").read_text() == committed.stdout


def test_trust_export_of_a_file_that_only_adds_exports_it_as_written(judged):
    root = Path(judged.root)
    (root.parent / "new.pub").write_text(key_line(NEWCOMER) + "\n")
    assert run(root, "trust", "add", str(root.parent / "new.pub"), "--role",
               "maintainer").returncode == 0

    done = run(root, "trust", "export", "--allowed-signers", "-")

    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.count(" namespaces=") == 3, done.stdout
    assert f"# {keyid(NEWCOMER)}:" in done.stdout


def pending_refusal(said: str, now: str) -> str:
    """``attest``'s whole refusal of a withdrawal of ``mid`` by a key pending in trust."""
    return (f"error: the withdrawal about BenchmarkRun/mid was not written: {said}; an "
            "uncommitted widening of trust counts from the commit that makes it, and a "
            f"withdrawal written now would be {now}. Commit the trust change first (`git add "
            f"{TRUST_FILE}`, `git commit`, in a reviewed pull request of its own), then attest; "
            "or say it as a dispute, which any key may sign and which counts as community: "
            "`kistore attest BenchmarkRun/mid --type dispute -m WHY --key KEY`\n")


@pytest.mark.parametrize("pending", ["new-key", "role-added"])
def test_attest_refuses_a_withdrawal_by_a_key_trusted_for_it_only_in_the_work_tree(
        judged, tmp_path, pending):
    # trust05: a committed rerun key given `--role maintainer` in the work tree had its
    # withdrawal refused ("... `kistore trust add KEY --role maintainer` in a reviewed pull
    # request of its own"), a new key's was written as community: neither counts as a
    # maintainer's before the trust commit, and both are refused now, naming that commit
    root = Path(judged.root)
    key = NEWCOMER if pending == "new-key" else RERUN
    (root.parent / "k.pub").write_text(key_line(key) + "\n")
    assert run(root, "trust", "add", str(root.parent / "k.pub"), "--role",
               "maintainer").returncode == 0
    key_file = tmp_path / "k.key"
    key_file.write_bytes(signing.private_key_bytes(key))
    key_file.chmod(0o600)
    before = git(root, "status", "--porcelain")

    done = run(root, "attest", "BenchmarkRun/mid", "--type", "withdrawal", "-m", "bad",
               "--key", str(key_file), "--file")

    said, now = {
        "new-key": (f"key {keyid(NEWCOMER)} is listed for maintainer in the work tree's "
                    f"{TRUST_FILE}, but no commit adds it yet",
                    "a community attestation, counting for the key only when that commit "
                    "gives it a validFrom before today (`kistore check` warns of that, KI442)"),
        "role-added": (f"key {keyid(RERUN)} is trusted for rerun, and only the work tree's "
                       f"{TRUST_FILE} adds maintainer, which no commit does yet",
                       "listed as not counted until then (KI302: `kistore verify` fails on "
                       "it), and the push gate refuses it (KI411)")}[pending]
    assert (done.returncode, done.stdout, done.stderr) == (1, "", pending_refusal(said, now))
    assert git(root, "status", "--porcelain") == before
    commit_all(root, "trust: a maintainer")
    next_second()  # the withdrawal enters after the trust commit's second
    written = run(root, "attest", "BenchmarkRun/mid", "--type", "withdrawal", "-m", "bad",
                  "--key", str(key_file), "--file")
    assert (written.returncode, written.stderr) == (0, ""), written.stderr
    assert evidence_of(ranked(root)[0])["mid"] == (None, "withdrawn")


def revoked_in_head(root: Path) -> None:
    """Commit a revocation of the rerun key from 2026-02-01 (before its rerun entered)."""
    done = run(root, "trust", "revoke", keyid(RERUN), "--at", "2026-02-01T00:00:00Z")
    assert done.returncode == 0, done.stderr
    commit_all(root, "trust: revoke the farm's key")


LIFTS = {"removed": (None, "none"), "later": ("2026-09-01T00:00:00Z", "2026-09-01T00:00:00Z")}
"""How the work tree lifts HEAD's revocation of the rerun key: its ``revokedAt`` removed or
moved later; and how the change is said (``revokedAt 2026-02-01T00:00:00Z -> SAID``)."""


def lift(root: Path, how: str) -> None:
    """Lift (``removed``) or move later (``later``) the rerun key's ``revokedAt``."""
    doc = json.loads((root / TRUST_FILE).read_text())
    for k in doc["keys"]:
        if k["keyid"] == keyid(RERUN):
            k.pop("revokedAt")
            if LIFTS[how][0] is not None:
                k["revokedAt"] = LIFTS[how][0]
    (root / TRUST_FILE).write_text(json.dumps(doc, indent=2) + "\n")


def lifted(how: str) -> str:
    """What the work tree's file does, as the warning and the refusal say it."""
    verb = "lifts the revocation" if how == "removed" else "moves later the revocation"
    return (f"{verb} of key {keyid(RERUN)} that HEAD holds (revokedAt 2026-02-01T00:00:00Z "
            f"-> {LIFTS[how][1]})")


@pytest.mark.parametrize("how", list(LIFTS))
@pytest.mark.parametrize("command", ["add", "revoke"])
def test_fresh17_f8_trust_add_and_revoke_refuse_a_lifted_revocation(judged, how, command):
    # fresh17 F8: `trust add` wrote on over the lifted revocation, exit 0, and `trust revoke`
    # wrote a revokedAt of now, later than HEAD's ("revoked ... from NOW", exit 0): the gate
    # and `verify` then refused the commit (KI412)
    root = Path(judged.root)
    revoked_in_head(root)
    (root.parent / "new.pub").write_text(key_line(NEWCOMER) + "\n")
    lift(root, how)
    kept = (root / TRUST_FILE).read_bytes()
    args = (["add", str(root.parent / "new.pub"), "--role", "rerun"] if command == "add"
            else ["revoke", keyid(RERUN)])

    done = run(root, "trust", *args)

    assert (done.returncode, done.stdout, done.stderr) == (1, "", (
        f"error: {TRUST_FILE}: the work tree's trust file {lifted(how)}, while HEAD holds it "
        f"(2 key(s)): `kistore trust {command}` changes the work tree's file and would keep "
        "that, which no commit may do (KI412), while every query judges by HEAD's revocation; "
        f"restore HEAD's revokedAt first with `{RESTORE}` (then make a pending `kistore trust "
        "add` or `revoke` again), then run this again; a revocation is never lifted or moved "
        "later (`kistore trust revoke KEY --at TIME` may move it earlier); nothing was "
        "written\n"))
    assert (root / TRUST_FILE).read_bytes() == kept


@pytest.mark.parametrize("how", list(LIFTS))
def test_fresh17_f8_the_queries_warn_of_a_lifted_revocation(judged, how):
    # fresh17 F8: the answers judged by HEAD's revocation (right), without a word
    root = Path(judged.root)
    revoked_in_head(root)
    committed, quiet = ranked(root, "--at", "HEAD")
    assert quiet == ""
    assert evidence_of(committed)["slow"] == (2, "source-native")  # the rerun: revoked key
    warned = (f"warning: {TRUST_FILE} in the work tree {lifted(how)}: these answers judge "
              f"attestations by HEAD's {TRUST_FILE} (2 key(s)) and the work tree's "
              "revocations, as no commit may lift a revocation or move it later (KI412; "
              f"`kistore verify` reports it); restore HEAD's revokedAt with `{RESTORE}` (then "
              "make a pending `kistore trust add` or `revoke` again); a revocation is never "
              "lifted or moved later: trust the holder's new key instead\n")
    lift(root, how)

    assert ranked(root) == (committed, warned)
    shown = run(root, "show", "BenchmarkRun/slow")
    assert (shown.returncode, shown.stderr) == (0, warned)
    listed = run(root, "trust", "list")
    assert (listed.returncode, listed.stderr) == (0, warned)
    assert f"{keyid(RERUN)} rerun revokedAt=2026-02-01T00:00:00Z\n" in listed.stdout
    verified = run(root, "verify", "--json")
    found = [(f["rule"], f["severity"]) for f in json.loads(verified.stdout)["findings"]
             if f["rule"] in ("KI410", "KI412")]
    assert found == [("KI412", "error")]  # said once, as KI412 (not KI410 besides)


def test_fresh17_f8_trust_revoke_never_moves_a_revocation_later(judged):
    # "a revocation is never moved later": `trust revoke` of a key already revoked keeps the
    # earlier time and says so (it said "revoked K from T", as if revoked now); an earlier
    # --at moves it earlier
    root = Path(judged.root)
    revoked_in_head(root)
    head = (root / TRUST_FILE).read_bytes()

    again = run(root, "trust", "revoke", keyid(RERUN))
    later = run(root, "trust", "revoke", keyid(RERUN), "--at", "2026-03-01")

    kept = (f"{keyid(RERUN)} is already revoked since 2026-02-01T00:00:00Z: kept (a revocation "
            "is never moved later; `--at` an earlier time moves it earlier)\n")
    assert (again.returncode, again.stdout, again.stderr) == (0, kept, "")
    assert (later.returncode, later.stdout, later.stderr) == (0, kept, "")
    assert (root / TRUST_FILE).read_bytes() == head
    earlier = run(root, "trust", "revoke", keyid(RERUN), "--at", "2026-01-15")
    assert (earlier.returncode, earlier.stdout, earlier.stderr) == (
        0, f"revoked {keyid(RERUN)} from 2026-01-15T00:00:00Z (moved earlier from "
           "2026-02-01T00:00:00Z)\n", "")
    assert ranked(root)[1] == ""  # an earlier revocation takes nothing from HEAD's
