"""hooks/: real `git commit` and `git push` against a real bare repository running the hooks.

A server (bare repository with hooks/pre-receive) and a contributor's clone: a good push is
accepted; a tampered, deleted or rewritten push is refused and the server's refs stay put.
pre-commit and pre-push stop the same damage before it leaves the clone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kistore.store.hooks import HookRunner, hook_script, running_kistore

from ..conftest import BUNDLE, PUBLISHED, ROOT, git, other_environment, store_file

HOOKS = ROOT / "hooks"
KISTORE = str(Path(sys.executable).with_name("kistore"))
PROTOCOL = store_file(PUBLISHED["protocol"])


@pytest.fixture(autouse=True)
def kistore_env(monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)


def run_git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


def kistore(cwd: Path, *args: str) -> None:
    subprocess.run([KISTORE, *args], cwd=cwd, check=True, capture_output=True)


def add_env(clone: Path, product: str) -> None:
    path = clone.parent / f"{product.replace(' ', '_')}.json"
    path.write_text(json.dumps(other_environment(json.loads(BUNDLE.read_text()), product)))
    kistore(clone, "add", "--commit", str(path))


@pytest.fixture
def server(published, tmp_path) -> Path:
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(bare))
    shutil.copy(HOOKS / "pre-receive", bare / "hooks" / "pre-receive")
    return bare


@pytest.fixture
def clone(server, tmp_path) -> Path:
    path = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), str(path))
    return path


def server_main(server: Path) -> str:
    return git(server, "rev-parse", "refs/heads/main").strip()


def test_pre_receive_accepts_a_good_push(server, clone):
    add_env(clone, "NVIDIA H100")
    pushed = run_git(clone, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "ok: 1 ref update(s): 0 errors" in pushed.stderr
    assert server_main(server) == git(clone, "rev-parse", "HEAD").strip()


def test_pre_receive_refuses_a_tampered_object(server, clone):
    before = server_main(server)
    (clone / PROTOCOL).write_bytes((clone / PROTOCOL).read_bytes().replace(b"v1.1", b"v1.2"))
    git(clone, "commit", "-q", "--no-verify", "-am", "tamper")
    pushed = run_git(clone, "push", "origin", "main")
    assert pushed.returncode != 0
    assert f"remote: {PROTOCOL}: error KI101 object-digest-mismatch" in pushed.stderr
    assert f"remote: {PROTOCOL}: error KI401 object-modified" in pushed.stderr
    assert "pre-receive hook declined" in pushed.stderr
    assert server_main(server) == before


def test_pre_receive_refuses_a_deleted_object(server, clone):
    before = server_main(server)
    git(clone, "rm", "-q", PROTOCOL)
    git(clone, "commit", "-q", "--no-verify", "-m", "delete")
    pushed = run_git(clone, "push", "origin", "main")
    assert pushed.returncode != 0
    assert f"remote: {PROTOCOL}: error KI402 object-deleted" in pushed.stderr
    assert server_main(server) == before


def test_pre_receive_refuses_a_rewrite_of_main_but_checks_topic_branches(server, clone):
    before = server_main(server)
    git(clone, "commit", "-q", "--amend", "--no-verify", "-m", "rewritten")
    pushed = run_git(clone, "push", "--force", "origin", "main")
    assert pushed.returncode != 0
    assert "error KI407 protected-ref-rewritten: non-fast-forward update" in pushed.stderr
    assert server_main(server) == before
    topic = run_git(clone, "push", "origin", "HEAD:refs/heads/topic")
    assert topic.returncode == 0, topic.stderr


def test_pre_receive_refuses_a_merge_s_ours_that_drops_what_main_added(server, clone):
    # The attack: a branch from before main's last add, merged with `-s ours`, so the
    # merge's tree lacks that add; `check origin/main..HEAD` said "0 errors" and the push
    # landed. Now the merge is reported as the deletion it is, and the push is refused.
    add_env(clone, "NVIDIA H100")
    assert run_git(clone, "push", "origin", "main").returncode == 0
    before = server_main(server)
    git(clone, "checkout", "-q", "-b", "pr", "origin/main~1")
    git(clone, "commit", "-q", "--allow-empty", "--no-verify", "-m", "my PR work")
    git(clone, "merge", "-q", "-s", "ours", "--no-verify", "-m", "Merge main", "origin/main")
    checked = subprocess.run([KISTORE, "check", "origin/main..HEAD"], cwd=clone,
                             capture_output=True, text=True)
    assert checked.returncode == 1
    assert "error KI402 object-deleted: deleted in commit" in checked.stdout + checked.stderr
    pushed = run_git(clone, "push", "origin", "HEAD:main")
    assert pushed.returncode != 0
    assert "error KI402 object-deleted" in pushed.stderr
    assert "pre-receive hook declined" in pushed.stderr
    assert server_main(server) == before


def _attest(clone: Path, key_number: int) -> None:
    from kistore.attest import notes
    from kistore.store import Store

    from ..attest.test_attestation_evidence import RUN, bundle
    from ..conftest import fixed_key

    notes.attach(Store(clone), RUN, bundle(fixed_key(key_number), "reproduction"))


def test_pre_receive_refuses_a_rewrite_of_the_notes(server, clone):
    _attest(clone, 3)
    assert run_git(clone, "push", "origin", "refs/notes/kistore").returncode == 0
    git(clone, "update-ref", "-d", "refs/notes/kistore")
    _attest(clone, 4)
    pushed = run_git(clone, "push", "--force", "origin", "refs/notes/kistore")
    assert pushed.returncode != 0
    assert "refs/notes/kistore refused" in pushed.stderr


def test_pre_receive_refuses_a_garbage_note(server, clone):
    git(clone, "notes", "--ref=kistore", "add", "-m", "not an attestation", "HEAD")
    pushed = run_git(clone, "push", "origin", "refs/notes/kistore")
    assert pushed.returncode != 0
    assert "KI409 notes-line-invalid" in pushed.stderr
    assert "Traceback" not in pushed.stderr


def test_pre_receive_refuses_a_backdated_note_by_a_revoked_key(server, clone):
    # The attack as a key's holder runs it: the key is revoked on the server's main; in a
    # clone they attest, rewrite the notes commit with a date before the revocation on the
    # same parent, and push the notes. The server judges a new line at its own clock.
    from kistore.attest import notes
    from kistore.store import Store

    from ..attest.test_attestation_evidence import RERUN_KEY, RUN, STRANGER, bundle, keyid

    kistore(clone, "trust", "add", "--role", "rerun", _public_key_file(clone, RERUN_KEY))
    kistore(clone, "trust", "revoke", keyid(RERUN_KEY), "--at", "2026-01-01")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "--no-verify", "-m", "revoke")
    notes.attach(Store(clone), RUN, bundle(STRANGER, "reproduction"))
    pushed = run_git(clone, "push", "origin", "main", "refs/notes/kistore")
    assert pushed.returncode == 0, pushed.stderr
    before = git(server, "rev-parse", "refs/notes/kistore").strip()
    notes.attach(Store(clone), RUN, bundle(RERUN_KEY, observedAt="2025-11-30T00:00:00Z"))
    tree = git(clone, "rev-parse", "refs/notes/kistore^{tree}").strip()
    parent = git(clone, "rev-parse", "refs/notes/kistore^").strip()
    backdated = subprocess.run(
        ["git", "commit-tree", tree, "-p", parent, "-m", "x"], cwd=clone, check=True,
        capture_output=True, text=True,
        env={**os.environ, "GIT_COMMITTER_DATE": "2025-12-01T12:00:00Z"}).stdout.strip()
    git(clone, "update-ref", "refs/notes/kistore", backdated)
    pushed = run_git(clone, "push", "origin", "refs/notes/kistore")
    assert pushed.returncode != 0
    assert "error KI411 new-attestation-key-not-trusted: a new rerun attestation by" in \
        pushed.stderr
    assert "was revoked at 2026-01-01T00:00:00Z" in pushed.stderr
    assert git(server, "rev-parse", "refs/notes/kistore").strip() == before
    # `kistore notes push` says the server's reason; it said "origin kept moving while
    # pushing ... run it again" after retrying a refusal as a race (breaker8).
    from kistore.core.errors import StoreStateError

    with pytest.raises(StoreStateError, match="KI411 new-attestation-key-not-trusted"):
        notes.push(Store(clone), "origin")


def _redate_notes(clone: Path, when: str) -> str:
    """Commit refs/notes/kistore's tree again, on its parents, dated ``when``; return it."""
    tree = git(clone, "rev-parse", "refs/notes/kistore^{tree}").strip()
    parents = git(clone, "log", "-1", "--format=%P", "refs/notes/kistore").split()
    made = subprocess.run(
        ["git", "commit-tree", tree, *(a for p in parents for a in ("-p", p)), "-m", "notes"],
        cwd=clone, check=True, capture_output=True, text=True,
        env={**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when}).stdout.strip()
    git(clone, "update-ref", "refs/notes/kistore", made)
    return made


def test_pre_receive_refuses_a_notes_commit_dated_ahead(server, clone):
    # reviewer r81 F5: a notes commit dated 2 days ahead passed (`0 errors`); once the clock
    # came within a day of it, every notes line added on top of it entered at its date, and
    # a maintainer's withdrawal was judged as entered after the key expired
    now = int(time.time())
    _attest(clone, 3)
    ahead = _redate_notes(clone, f"@{now + 2 * 86400 + 60} +0000")
    pushed = run_git(clone, "push", "origin", "refs/notes/kistore")
    assert pushed.returncode != 0
    assert f"error KI428 commit-date-implausible: commit {ahead[:12]}: its committer date " \
        in pushed.stderr
    assert "lies in the future" in pushed.stderr
    assert run_git(server, "rev-parse", "--verify", "-q", "refs/notes/kistore").stdout == ""
    # the same notes, committed now, pass
    _redate_notes(clone, f"@{now} +0000")
    pushed = run_git(clone, "push", "origin", "refs/notes/kistore")
    assert pushed.returncode == 0, pushed.stderr


def test_a_notes_commit_dated_ahead_that_landed_is_not_judged_again(server, clone):
    # KI428 judges the notes commits a push brings only: one dated ahead that landed past
    # the gate (a host without the hook) does not refuse every later notes push
    from kistore.check.gate import check_updates
    from kistore.store import Store

    now = int(time.time())
    _attest(clone, 3)
    landed = _redate_notes(clone, f"@{now + 30 * 86400} +0000")
    _attest(clone, 4)
    later = git(clone, "rev-parse", "refs/notes/kistore").strip()
    found = check_updates(Store(clone), [(landed, later, "refs/notes/kistore")])
    assert [f.format() for f in found if f.rule.severity == "error"] == []
    found = check_updates(Store(clone), [("0" * 40, later, "refs/notes/kistore")])
    # pushed whole (no notes on the server yet), the landed commit is judged, and refused
    assert sorted((f.extra["commit"], f.extra["date"]) for f in found
                  if f.rule.id == "KI428") == [(landed, "author"), (landed, "committer")]


def _public_key_file(clone: Path, key) -> str:
    from kistore.attest import signing

    path = clone.parent / "rerun.pub"
    path.write_text(signing.public_key_line(key.public_key()) + "\n")
    return str(path)


def test_pre_commit_refuses_staged_damage_and_allows_good_commits(clone):
    git(clone, "config", "core.hooksPath", str(HOOKS))
    (clone / PROTOCOL).write_bytes(b'{"kind": "Workload"}')
    git(clone, "add", PROTOCOL)
    committed = run_git(clone, "commit", "-m", "tamper")
    assert committed.returncode == 1
    assert f"{PROTOCOL}: error KI101 object-digest-mismatch" in committed.stderr
    assert f"{PROTOCOL}: error KI401 object-modified" in committed.stderr
    git(clone, "checkout", "HEAD", "--", PROTOCOL)
    (clone / "notes.txt").write_text("outside the store")
    git(clone, "add", "notes.txt")
    committed = run_git(clone, "commit", "-m", "a note")
    assert committed.returncode == 0, committed.stdout + committed.stderr


def test_pre_commit_s_fix_of_a_staged_object_edit_restores_the_file_and_drops_no_commit(clone):
    # fresh98 MED 3: the fix said to drop "commit X of the branch" with `git rebase -i HEAD`:
    # X was the hook's own commit of the index, on no branch, and the rebase failed on the
    # staged changes ("cannot rebase: Your index contains uncommitted changes")
    git(clone, "config", "core.hooksPath", str(HOOKS))
    original = (clone / PROTOCOL).read_bytes()
    edited = original.replace(b"1", b"2", 1)
    assert edited != original
    (clone / PROTOCOL).write_bytes(edited)
    git(clone, "add", PROTOCOL)
    committed = run_git(clone, "commit", "-m", "one byte")
    assert committed.returncode == 1
    fixes = [line for line in committed.stderr.splitlines() if line.startswith("fix KI")]
    said = [line for line in fixes if line.startswith(("fix KI101", "fix KI401"))]
    assert len(said) == 2, committed.stderr
    for line in said:
        assert f"`git checkout HEAD -- {PROTOCOL}`" in line, line
        assert "rebase" not in line and "of the branch" not in line, line
    run_git(clone, *f"checkout HEAD -- {PROTOCOL}".split())  # as printed
    assert (clone / PROTOCOL).read_bytes() == original
    assert run_git(clone, "status", "--porcelain", "--", PROTOCOL).stdout == ""
    (clone / "notes.txt").write_text("outside the store")
    git(clone, "add", "notes.txt")
    committed = run_git(clone, "commit", "-m", "a note")
    assert committed.returncode == 0, committed.stdout + committed.stderr


def test_pre_push_refuses_before_anything_leaves(tmp_path, published, clone):
    plain = tmp_path / "plain.git"  # a server with no hooks at all
    git(tmp_path, "clone", "-q", "--bare", str(published), str(plain))
    git(clone, "remote", "add", "plain", str(plain))
    git(clone, "config", "core.hooksPath", str(HOOKS))
    os.symlink("../objects", clone / "store" / "link.json")
    git(clone, "add", "store/link.json")
    git(clone, "commit", "-q", "--no-verify", "-m", "symlink")
    pushed = run_git(clone, "push", "plain", "main")
    assert pushed.returncode != 0
    assert "store/link.json: error KI111 not-a-regular-file" in pushed.stdout
    assert "failed to push" in pushed.stderr
    assert git(plain, "rev-parse", "main") != git(clone, "rev-parse", "HEAD")


def test_pre_push_checks_a_branch_not_checked_out_pushed_to_an_empty_remote(tmp_path, clone):
    # Issue 18: pre-push resolved a new ref's base against the local main, which in the
    # pushing clone is what is pushed: `git push empty main` passed a tampered main.
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(empty))
    git(clone, "remote", "add", "empty", str(empty))
    git(clone, "config", "core.hooksPath", str(HOOKS))
    git(clone, "checkout", "-q", "-b", "topic")
    git(clone, "rm", "-q", PROTOCOL)
    git(clone, "commit", "-q", "--no-verify", "-m", "delete the protocol")
    git(clone, "checkout", "-q", "main")
    (clone / PROTOCOL).write_bytes(b'{"kind": "Workload"}')
    git(clone, "commit", "-q", "--no-verify", "-am", "tamper main")
    for ref, expected in (("topic", "KI402 object-deleted"), ("main", "KI101 object-digest")):
        pushed = run_git(clone, "push", "empty", ref)
        assert pushed.returncode != 0, (ref, pushed.stdout)
        assert f"{PROTOCOL}: error {expected}" in pushed.stdout
    assert run_git(empty, "rev-parse", "-q", "--verify", "topic").returncode != 0
    assert run_git(empty, "rev-parse", "-q", "--verify", "main").returncode != 0


def test_pre_push_checks_every_ref_of_a_push_of_several(clone):
    # Issue 18: `git push origin main topic` must check topic as well as main.
    git(clone, "config", "core.hooksPath", str(HOOKS))
    git(clone, "checkout", "-q", "-b", "topic")
    git(clone, "rm", "-q", PROTOCOL)
    git(clone, "commit", "-q", "--no-verify", "-m", "delete the protocol")
    git(clone, "checkout", "-q", "main")
    git(clone, "commit", "-q", "--allow-empty", "--no-verify", "-m", "a good commit")
    pushed = run_git(clone, "push", "origin", "main", "topic")
    assert pushed.returncode != 0
    assert "ok:" not in pushed.stdout
    assert f"{PROTOCOL}: error KI402 object-deleted" in pushed.stdout
    assert "2 ref update(s)" in pushed.stdout
    good = run_git(clone, "push", "origin", "main")
    assert good.returncode == 0, good.stdout + good.stderr


def test_pre_commit_on_the_very_first_commit_verifies_the_staged_tree(tmp_path):
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "core.hooksPath", str(HOOKS))
    (repo / ".gitattributes").write_text(
        "store/** -text -eol -filter -ident -working-tree-encoding\n")
    (repo / "store" / "policy").mkdir(parents=True)
    policy = (ROOT / "kistore" / "query" / "default_policy.json").read_bytes()
    (repo / "store" / "policy" / "Ranking.json").write_bytes(policy)
    (repo / "store" / "policy" / "ranking.json").write_bytes(policy)
    git(repo, "add", "-A")
    committed = run_git(repo, "commit", "-m", "first")
    assert committed.returncode == 1
    assert "store/policy/ranking.json: error KI112 path-case-collision" in committed.stderr
    assert "FAILED: store at " in committed.stderr
    git(repo, "rm", "-q", "--cached", "store/policy/Ranking.json")
    committed = run_git(repo, "commit", "-m", "first")
    assert committed.returncode == 0, committed.stderr


def _pre_commit_entry(hook_id: str) -> list[str]:
    """The `entry` of one hook in .pre-commit-hooks.yaml, split as pre-commit splits it."""
    import shlex

    lines = (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines()
    start = lines.index(f"- id: {hook_id}")
    entry = next(line for line in lines[start:] if line.startswith("  entry: "))
    return shlex.split(entry.removeprefix("  entry: "))


def _run_framework_hook(clone: Path, remote: str, **pre_commit_env: str
                        ) -> subprocess.CompletedProcess:
    """Run the framework's kistore-check-push entry as pre-commit runs it for a push.

    ``pre_commit_env`` is what pre-commit 4.7 sets (``PRE_COMMIT_FROM_REF`` ...): only for
    the first pushed ref, and neither FROM nor TO when that ref is new and starts at a root.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRE_COMMIT_")}
    env["PATH"] = f"{Path(KISTORE).parent}{os.pathsep}{env['PATH']}"
    env |= {"PRE_COMMIT_REMOTE_NAME": remote, **pre_commit_env}
    return subprocess.run(_pre_commit_entry("kistore-check-push"), cwd=clone, env=env,
                          capture_output=True, text=True)


def test_pre_commit_framework_push_hook_checks_a_first_push_and_a_range(clone):
    # Found running pre-commit 4.7: it sets PRE_COMMIT_FROM_REF/TO_REF only when the remote
    # holds an ancestor of what is pushed; a first push ran `kistore check ..` and failed.
    base = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "rm", "-q", store_file(PUBLISHED["protocol"]))
    git(clone, "commit", "-q", "--no-verify", "-m", "delete the protocol")
    done = _run_framework_hook(clone, "origin", PRE_COMMIT_FROM_REF=base,
                               PRE_COMMIT_TO_REF=git(clone, "rev-parse", "HEAD").strip())
    assert done.returncode == 1, done.stdout + done.stderr
    assert "KI402 object-deleted" in done.stdout
    git(clone, "reset", "-q", "--hard", base)
    done = _run_framework_hook(clone, "origin", PRE_COMMIT_TO_REF=base)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith("ok: 0 local ref(s) with commits origin lacks: 0 errors, 0 "
                                "warnings, 0 info\n")


def test_pre_commit_framework_push_hook_checks_another_branch_pushed_to_an_empty_remote(
        clone, tmp_path):
    # Issue 18: `git push empty topic` with main checked out: pre-commit sets no range (the
    # pushed history starts at a root commit) and the hook verified HEAD, the clean main.
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(empty))
    git(clone, "remote", "add", "empty", str(empty))
    git(clone, "checkout", "-q", "-b", "topic")
    git(clone, "rm", "-q", store_file(PUBLISHED["protocol"]))
    git(clone, "commit", "-q", "--no-verify", "-m", "delete the protocol")
    git(clone, "checkout", "-q", "main")
    done = _run_framework_hook(clone, "empty", PRE_COMMIT_LOCAL_BRANCH="refs/heads/topic",
                               PRE_COMMIT_REMOTE_BRANCH="refs/heads/topic")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "KI402 object-deleted" in done.stdout
    assert "2 local ref(s) with commits empty lacks" in done.stdout  # main and topic


def _unpushed(runner, root: Path, remote: str, *fmt: str):
    from kistore.cli import main

    return runner.invoke(main, ["--store", str(root), "check", "--unpushed", remote, *fmt])


def _json_error(done) -> str:
    """The one error of a ``check --json`` that could not run (its report on stdout)."""
    report = json.loads(done.stdout)
    assert (report["ok"], report["findings"], len(report["errors"])) == (False, [], 1)
    return report["errors"][0]["message"]


def test_unpushed_in_a_repository_that_is_no_store_is_an_error(runner, tmp_path):
    # units60: a clone of a repository holding no store said "ok: 0 local ref(s)": a
    # pre-push hook passed having checked nothing.
    origin = tmp_path / "plain"
    origin.mkdir()
    git(origin, "init", "-q")
    (origin / "README").write_text("not a store\n")
    git(origin, "add", "README")
    git(origin, "commit", "-qm", "a repository, not a store")
    plain = tmp_path / "plain-clone"
    git(tmp_path, "clone", "-q", str(origin), str(plain))
    said = (f"{plain} is no kistore store: neither its work tree nor HEAD holds store/, so "
            "there is nothing for the gate to check; run `kistore check --unpushed` in a "
            "store's clone (or name it with `--store PATH`), or make this repository a "
            "store with `kistore init`")
    done = _unpushed(runner, plain, "origin")
    assert (done.exit_code, done.stdout, done.stderr) == (1, "", f"error: {said}\n")
    for fmt in (["--json"], ["--format", "json"]):
        done = _unpushed(runner, plain, "origin", *fmt)
        assert done.exit_code == 1
        assert _json_error(done) == said


def test_unpushed_naming_no_remote_of_the_repository_is_an_error(runner, clone, server):
    # units60: a misspelt remote has no remote-tracking refs: every local history was
    # checked whole and said ok, as if measured against that remote.
    said = ("no remote 'orign' in this repository (its remotes: origin): what a push could "
            "send is measured against a remote's remote-tracking refs; name one of its "
            "remotes (`git remote -v` lists them), or add this one (`git remote add orign "
            "URL`, then `git fetch orign`)")
    done = _unpushed(runner, clone, "orign")
    assert (done.exit_code, done.stdout, done.stderr) == (1, "", f"error: {said}\n")
    done = _unpushed(runner, clone, "orign", "--json")
    assert done.exit_code == 1 and _json_error(done) == said
    # a remote's name, or a URL or path as `git push URL` hands a pre-push hook: checked
    for remote, refs in (("origin", 0), (str(server), 1), (f"file://{server}", 1)):
        done = _unpushed(runner, clone, remote)
        assert done.exit_code == 0, (remote, done.output)
        assert done.stdout.splitlines()[-1].startswith(
            f"ok: {refs} local ref(s) with commits {remote} lacks: 0 errors"), remote


def test_pre_commit_framework_push_hook_checks_every_ref_of_a_push_of_several(clone):
    # Issue 18: `git push origin main topic` hands the hook main's range only; topic was
    # tampered and passed.
    main = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "checkout", "-q", "-b", "topic")
    git(clone, "rm", "-q", store_file(PUBLISHED["protocol"]))
    git(clone, "commit", "-q", "--no-verify", "-m", "delete the protocol")
    git(clone, "checkout", "-q", "main")
    git(clone, "commit", "-q", "--allow-empty", "--no-verify", "-m", "a good commit")
    done = _run_framework_hook(clone, "origin", PRE_COMMIT_FROM_REF=main,
                               PRE_COMMIT_TO_REF=git(clone, "rev-parse", "HEAD").strip(),
                               PRE_COMMIT_LOCAL_BRANCH="refs/heads/main")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "KI402 object-deleted" in done.stdout
    git(clone, "branch", "-q", "-D", "topic")  # fixed (deleted): main alone passes
    done = _run_framework_hook(clone, "origin", PRE_COMMIT_FROM_REF=main,
                               PRE_COMMIT_TO_REF=git(clone, "rev-parse", "HEAD").strip())
    assert done.returncode == 0, done.stdout + done.stderr


def test_init_hooks_installs_hooks_that_refuse_a_tampered_commit_and_push(tmp_path):
    # Issue 18: `kistore init` offered no way to install the hooks a store needs.
    made = subprocess.run([KISTORE, "init", "--hooks", "idx"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    store = tmp_path / "idx"
    hooks = store / ".git" / "hooks"
    assert made.stdout.splitlines()[:3] == [
        f"initialised kistore store in {store}",
        f"installed hook {hooks / 'pre-commit'}", f"installed hook {hooks / 'pre-push'}"]
    # The executable KISTORE, unless this test runs code from another tree (PYTHONPATH at a
    # worktree): then the hooks run that code (test_init_hooks_run_the_code_that_installed_them)
    runner = running_kistore()
    for name in ("pre-commit", "pre-push"):
        installed = (hooks / name).read_text()
        assert os.access(hooks / name, os.X_OK)
        header = 1 if runner.executable else 3
        if runner.executable:
            assert installed.splitlines()[1] == (
                f'KISTORE="${{KISTORE:-{KISTORE}}}"  # kistore init --hooks')
        else:
            assert installed.splitlines()[2].startswith(
                f'kistore_installed() {{ PYTHONPATH={runner.code}"')
        assert installed.splitlines()[1 + header:] == \
            (HOOKS / name).read_text().splitlines()[1:]
    again = subprocess.run([KISTORE, "init", "--hooks", "idx"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert again.stdout.splitlines()[1:3] == [f"unchanged hook {hooks / 'pre-commit'}",
                                             f"unchanged hook {hooks / 'pre-push'}"]
    env = {k: v for k, v in os.environ.items() if k != "KISTORE"}  # the installed default
    kistore(store, "add", "--commit", "--allow-dangling", str(BUNDLE))
    (store / PROTOCOL).write_bytes(b'{"kind": "Workload"}')
    git(store, "add", PROTOCOL)
    committed = subprocess.run(["git", "commit", "-m", "tamper"], cwd=store, env=env,
                               capture_output=True, text=True)
    assert committed.returncode == 1
    assert f"{PROTOCOL}: error KI101 object-digest-mismatch" in committed.stderr
    git(store, "commit", "-q", "--no-verify", "-m", "tamper past the hook")
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    pushed = subprocess.run(["git", "push", str(server), "main"], cwd=store, env=env,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"{PROTOCOL}: error KI101 object-digest-mismatch" in pushed.stdout
    assert subprocess.run(["git", "rev-parse", "-q", "--verify", "main"], cwd=server,
                          capture_output=True).returncode != 0  # nothing left the clone


def test_init_hooks_run_the_code_that_installed_them(tmp_path):
    # break95 L1: `python -m kistore init --hooks` with PYTHONPATH at another tree wrote the
    # venv's `kistore` into the hooks: the pre-commit then ran the venv's code, silently.
    other = tmp_path / "other"  # another tree: a copy of this code that says it ran
    shutil.copytree(ROOT / "kistore", other / "kistore",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(HOOKS, other / "hooks")
    (other / "kistore" / "__main__.py").write_text(
        'import sys\nsys.stderr.write("the copy ran\\n")\nfrom ._entry import run\n\nrun()\n')
    env = {k: v for k, v in os.environ.items() if k not in ("KISTORE", "PYTHONPATH")}
    made = subprocess.run([sys.executable, "-P", "-m", "kistore", "init", "--hooks", "s"],
                          cwd=tmp_path, capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(other)})
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[-1] == (
        f"the hooks run this kistore: PYTHONPATH={other} {sys.executable} -P -m kistore "
        "(KISTORE=/path/to/kistore runs another)")
    store = tmp_path / "s"
    for name in ("pre-commit", "pre-push"):
        assert (store / ".git" / "hooks" / name).read_text().splitlines()[1:4] == [
            "# kistore init --hooks: unless KISTORE is set, run the kistore that installed "
            "this hook: its Python, its code first on PYTHONPATH",
            f'kistore_installed() {{ PYTHONPATH={other}"${{PYTHONPATH:+:$PYTHONPATH}}" '
            f'exec {sys.executable} -P -m kistore "$@"; }}',
            'KISTORE="${KISTORE:-kistore_installed}"']
    (store / "README").write_text("x\n")
    git(store, "add", "README")
    committed = subprocess.run(["git", "commit", "-m", "readme"], cwd=store, env=env,
                               capture_output=True, text=True)  # no PYTHONPATH, no KISTORE
    assert committed.returncode == 0, committed.stderr
    assert committed.stderr.splitlines()[0] == "the copy ran"
    assert committed.stderr.splitlines()[1].startswith("ok: HEAD..")
    (store / PROTOCOL).parent.mkdir(parents=True)
    (store / PROTOCOL).write_bytes(b'{"kind": "Workload"}')
    git(store, "add", PROTOCOL)
    refused = subprocess.run(["git", "commit", "-m", "tamper"], cwd=store, env=env,
                             capture_output=True, text=True)
    assert refused.returncode == 1  # the gate's refusal is the hook's exit status
    assert refused.stderr.startswith("the copy ran\n")


def test_installed_hook_quotes_the_python_and_code_it_names():
    runner = HookRunner(None, "/opt/py thon/bin/python", "/src/it's here")
    assert runner.describe() == \
        "PYTHONPATH='/src/it'\"'\"'s here' '/opt/py thon/bin/python' -P -m kistore"
    script = hook_script("pre-push", runner).decode()
    assert script.splitlines()[2] == (
        "kistore_installed() { PYTHONPATH='/src/it'\"'\"'s here'\"${PYTHONPATH:+:$PYTHONPATH}\" "
        "exec '/opt/py thon/bin/python' -P -m kistore \"$@\"; }")
    executable = hook_script("pre-push", HookRunner("/venv/bin/kistore", "/venv/bin/python",
                                                    "/src"))
    assert executable.decode().splitlines()[1] == \
        'KISTORE="${KISTORE:-/venv/bin/kistore}"  # kistore init --hooks'


def test_hooks_run_the_console_script_only_when_it_imports_the_installing_code(monkeypatch):
    import kistore.store.hooks as hooks

    code = Path(hooks.__file__).resolve().parents[2]
    beside = Path(sys.executable).with_name("kistore")
    monkeypatch.setattr(hooks, "_default_kistore", lambda python: code)
    assert running_kistore() == HookRunner(str(beside), sys.executable, str(code))
    monkeypatch.setattr(hooks, "_default_kistore", lambda python: code / "elsewhere")
    assert running_kistore() == HookRunner(None, sys.executable, str(code))
    monkeypatch.setattr(hooks, "_default_kistore", lambda python: None)  # not installed
    assert running_kistore() == HookRunner(None, sys.executable, str(code))


def test_init_hooks_never_replaces_a_hook_of_the_users(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main", "mine")
    hook = tmp_path / "mine" / ".git" / "hooks" / "pre-push"
    hook.write_text("#!/bin/sh\necho mine\n")
    done = subprocess.run([KISTORE, "init", "--hooks", "mine"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr == (f"error: {hook}: a different pre-push hook is there already: "
                           "nothing was installed; move it away (or merge the two by hand) and "
                           "run `kistore init --hooks` again\n")
    assert hook.read_text() == "#!/bin/sh\necho mine\n"
    assert not (hook.parent / "pre-commit").exists()


def test_unpushed_names_the_ref_whose_commits_carry_each_finding(runner, clone):
    # reviewer r85 F12: a clean branch's push was refused for another branch's tampering,
    # "FAILED: 3 local ref(s) with commits origin lacks", and no finding named the branch.
    git(clone, "checkout", "-q", "-b", "pr-t2")
    (clone / PROTOCOL).write_bytes((clone / PROTOCOL).read_bytes().replace(b"v1.1", b"v1.2"))
    git(clone, "commit", "-q", "--no-verify", "-am", "tamper")
    tampered = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "checkout", "-q", "main")
    git(clone, "checkout", "-q", "-b", "feature1")
    git(clone, "commit", "-q", "--allow-empty", "--no-verify", "-m", "a clean commit")
    clean = git(clone, "rev-parse", "HEAD").strip()
    done = _unpushed(runner, clone, "origin")
    assert done.exit_code == 1, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == f"refs/heads/feature1: ok (in the commits origin lacks from {clean[:12]})"
    assert lines[1] == ("refs/heads/pr-t2: 2 error(s), 0 warning(s), 0 info in the commits "
                        f"origin lacks from {tampered[:12]}:")
    assert lines[2].startswith(f"  {PROTOCOL}: error KI101 object-digest-mismatch")
    assert lines[3].startswith(f"  {PROTOCOL}: error KI401 object-modified")
    assert lines[-2].startswith("FAILED: 2 local ref(s) with commits origin lacks: 2 errors")
    assert lines[-1] == (
        "note: errors in refs/heads/pr-t2: every local ref with commits origin lacks is "
        "judged, not only the refs this push sends (the pre-commit framework hands its push "
        "hook only the first pushed ref); refs/heads/feature1 carries no error but waits for "
        "it; fix it as the fix lines above say, or use kistore's own pre-push hook (`kistore "
        "init --hooks .`), which judges exactly the refs pushed and leaves every other ref as "
        "it is")
    # low00: no destructive command as the way out (fresh99b: `git branch -D main`)
    assert "git branch -D" not in done.output
    fixes = [line for line in lines if line.startswith("fix KI")]
    assert fixes and lines.index(fixes[0]) < len(lines) - 1, done.output  # "above" holds
    report = json.loads(_unpushed(runner, clone, "origin", "--json").stdout)
    assert [f["extra"]["refs"] for f in report["findings"]] == [["refs/heads/pr-t2"]] * 2
    git(clone, "branch", "-q", "-D", "pr-t2")  # the user's own choice: then the push passes
    done = _unpushed(runner, clone, "origin")
    assert done.exit_code == 0, done.output
    assert "note:" not in done.stdout


def test_unpushed_says_a_finding_two_refs_carry_once(runner, clone):
    # check_unpushed groups each finding under the first ref carrying it, once; the text
    # lines are that grouping (they compared every finding again, tidy88)
    git(clone, "checkout", "-q", "-b", "pr-t2")
    (clone / PROTOCOL).write_bytes((clone / PROTOCOL).read_bytes().replace(b"v1.1", b"v1.2"))
    git(clone, "commit", "-q", "--no-verify", "-am", "tamper")
    tampered = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "checkout", "-q", "-b", "pr-t3")
    git(clone, "commit", "-q", "--allow-empty", "--no-verify", "-m", "on top of it")
    done = _unpushed(runner, clone, "origin")
    assert done.exit_code == 1, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == ("refs/heads/pr-t2: 2 error(s), 0 warning(s), 0 info in the commits "
                        f"origin lacks from {tampered[:12]}:")
    assert [line[:60] for line in lines[1:3]] == [
        f"  {PROTOCOL}: error KI101 object-digest-mismatch"[:60],
        f"  {PROTOCOL}: error KI401 object-modified"[:60]]
    assert lines[3] == ("refs/heads/pr-t3: 2 error(s), 0 warning(s), 0 info in the commits "
                        f"origin lacks from {tampered[:12]} (2 said above):")
    assert lines[4].startswith("fix KI101")
    report = json.loads(_unpushed(runner, clone, "origin", "--json").stdout)
    assert [f["extra"]["refs"] for f in report["findings"]] == [
        ["refs/heads/pr-t2", "refs/heads/pr-t3"]] * 2


def test_unpushed_strict_makes_a_shallow_clones_warning_an_error_once(runner, server,
                                                                      tmp_path):
    # --strict was applied to the findings and again to each ref's (tidy88): now in
    # check_unpushed, once; the ref's header counts the error the findings hold
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{server}", str(shallow))
    git(shallow, "checkout", "-q", "-b", "feature1")
    git(shallow, "commit", "-q", "--allow-empty", "--no-verify", "-m", "a clean commit")
    plain = json.loads(_unpushed(runner, shallow, "origin", "--json").stdout)
    strict = _unpushed(runner, shallow, "origin", "--strict")
    said = json.loads(_unpushed(runner, shallow, "origin", "--strict", "--json").stdout)
    shallow_said = [f for f in plain["findings"] if f["rule"] == "KI416"]
    assert shallow_said and {f["severity"] for f in shallow_said} == {"warning"}
    assert [(f["rule"], f["severity"]) for f in said["findings"] if f["rule"] == "KI416"] == \
        [("KI416", "error")] * len(shallow_said)
    assert strict.exit_code == 1 and said["ok"] is False
    assert f"refs/heads/feature1: {len(shallow_said)} error(s)" in strict.stdout
