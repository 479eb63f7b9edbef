"""kistore.check.gate and `kistore check`: the range rules, ref-update policy, output formats."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from kistore.check import gate
from kistore.cli import main
from kistore.cli.verify import github_annotation
from kistore.core.findings import RULES, Finding
from kistore.store import Store

from ..conftest import PUBLISHED, commit_all, git, other_environment, store_file, write_raw
from ..prs import soon

ZERO = "0" * 40


def invoke(runner, root, *args, input=None):
    return runner.invoke(main, ["--store", str(root), *args], input=input)


def add_env(runner, root, tmp_path, product="NVIDIA H100", *extra):
    from ..conftest import BUNDLE

    path = tmp_path / f"{product.replace(' ', '_')}.json"
    path.write_text(json.dumps(other_environment(json.loads(BUNDLE.read_text()), product)))
    result = invoke(runner, root, "add", "--commit", *extra, str(path))
    assert result.exit_code == 0, result.output
    return result.output.split()[0]


def head(root) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def test_metadata_edit_is_information_listing_changed_fields(runner, published, bundle, tmp_path):
    base = head(published)
    env = json.loads(json.dumps(bundle["environment"]))
    env["metadata"]["title"] = "B200 (corrected)"
    path = tmp_path / "env.json"
    path.write_text(json.dumps(env))
    assert invoke(runner, published, "add", "--update-metadata", "--commit",
                  str(path)).exit_code == 0
    result = invoke(runner, published, "check", f"{base}..HEAD", "--json")
    assert result.exit_code == 0, result.output
    [finding] = json.loads(result.output)["findings"]
    assert (finding["rule"], finding["severity"]) == ("KI405", "info")
    assert finding["file"] == store_file(PUBLISHED["environment"], "metadata")
    assert finding["message"] == ('metadata changed: /title: stored "SOL-ExecBench NVIDIA B200, '
                                  'stack v1.1", given "B200 (corrected)"')


def test_metadata_edit_line_escapes_bidi_controls_as_the_ki104_line_does(runner, published):
    # review r75 F15: ESC was escaped on the KI405 line but U+202E/U+202C printed raw, so
    # a reviewer's terminal or CI log showed the label reordered ("ok exe.png").
    base = head(published)
    meta = published / store_file(PUBLISHED["environment"], "metadata")
    doc = json.loads(meta.read_bytes())
    doc.setdefault("labels", {})["note"] = "ok \u202egnp.exe\u202c \u200f\u001b[31mRED"
    meta.write_text(json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":")))
    commit_all(published, "a label with bidi controls, past the hooks")
    result = invoke(runner, published, "check", f"{base}..HEAD")
    assert result.exit_code == 1  # KI104: prose holds no bidirectional control
    [line] = [x for x in result.output.splitlines() if "KI405" in x]
    assert line == (f"{store_file(PUBLISHED['environment'], 'metadata')}: info KI405 "
                    'metadata-updated: metadata changed: /labels: stored (absent), given '
                    '{"note": "ok \\u202egnp.exe\\u202c \\u200f\\u001b[31mRED"}')
    assert not any(c in result.output for c in "\u202e\u202c\u200f\x1b")
    assert "\\u202e" in next(x for x in result.output.splitlines() if "KI104" in x)


def test_metadata_edit_that_also_changes_the_object_is_refused(runner, published):
    base = head(published)
    meta = published / store_file(PUBLISHED["protocol"], "metadata")
    meta.write_bytes(meta.read_bytes().replace(b"SOL", b"Sol", 1))
    obj = published / store_file(PUBLISHED["protocol"])
    obj.write_bytes(obj.read_bytes().replace(b"v1.1", b"v2.0", 1))
    commit_all(published, "edit both")
    findings = gate.check_range(Store(published), f"{base}..HEAD")
    assert {(f.rule.id, f.file) for f in findings} >= {
        ("KI401", store_file(PUBLISHED["protocol"])), ("KI101", store_file(PUBLISHED["protocol"])),
        ("KI405", store_file(PUBLISHED["protocol"], "metadata"))}


def test_re_adding_an_identical_manifest_is_a_no_op(runner, published, tmp_path):
    # main got the manifest in a commit of its own; a pull request forked before it adds
    # the same bytes, committed later (an earlier committer time would move the object's
    # citation to the pull request: KI425, tests/check/test_citation_moved.py; a date past
    # tomorrow is KI428), and merges main in
    fork = head(published)
    digest = add_env(runner, published, tmp_path, "NVIDIA H100", "-m", "on main")
    git(published, "checkout", "-q", "-b", "pr", fork)
    assert add_env(runner, published, tmp_path, "NVIDIA H100", "-m", "same, on pr") == digest
    subprocess.run(["git", "commit", "-q", "--amend", "--no-edit", "--no-gpg-sign"],
                   cwd=published, check=True, env={**os.environ,
                                                   "GIT_COMMITTER_DATE": soon(2)})
    git(published, "merge", "-q", "--no-edit", "main")
    result = invoke(runner, published, "check", "main..pr", "--json")
    assert result.exit_code == 0, result.output
    [finding] = json.loads(result.output)["findings"]
    assert (finding["rule"], finding["file"]) == ("KI406", store_file(digest))


def test_a_range_that_rewrites_history_is_refused(runner, published, tmp_path):
    add_env(runner, published, tmp_path)
    old = head(published)
    git(published, "reset", "-q", "--hard", "HEAD~1")
    add_env(runner, published, tmp_path, "NVIDIA A100")
    result = invoke(runner, published, "check", f"{old}..HEAD")
    assert result.exit_code == 1
    assert f" KI404 base-not-an-ancestor: {old} ({old[:12]}) is not an ancestor of HEAD" in (
        result.output)
    assert "has 1 commit(s) the branch lacks since they forked at " in result.output
    assert (f"rebase onto it (`git rebase {old}`) or merge {old} into the branch, and check "
            "again" in result.output)


def test_a_branch_whose_commit_landed_by_cherry_pick_is_told_to_rebase(runner, published,
                                                                         tmp_path):
    # fresh00 M2: a pull request landed by "Rebase and merge" (a cherry-pick) and then
    # extended; KI404's first advice, a merge of main, led straight into KI425 (the merge
    # re-adds the landed objects under the branch's own commit). Patch ids tell.
    fork = head(published)
    git(published, "checkout", "-q", "-b", "pr")
    add_env(runner, published, tmp_path, "NVIDIA H100", "-m", "add c")
    landed = head(published)
    git(published, "checkout", "-q", "main")
    subprocess.run(["git", "cherry-pick", "--no-gpg-sign", landed], cwd=published,
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": soon(2)})
    assert head(published) not in (fork, landed)
    git(published, "checkout", "-q", "pr")
    add_env(runner, published, tmp_path, "NVIDIA A100", "-m", "add d")
    _told_to_rebase_and_rebased(runner, published, fork, landed=1)


def test_a_branch_whose_commits_landed_squashed_is_told_to_rebase(runner, published,
                                                                    tmp_path):
    # fresh00b Q1: "Squash and merge" lands two commits as one: no patch id matches, but
    # main holds every object the branch's commits add; a merge of main would re-add them.
    fork = head(published)
    git(published, "checkout", "-q", "-b", "pr")
    add_env(runner, published, tmp_path, "NVIDIA H100", "-m", "add c")
    add_env(runner, published, tmp_path, "NVIDIA A100", "-m", "add d")
    git(published, "checkout", "-q", "main")
    subprocess.run(["git", "merge", "-q", "--squash", "pr"], cwd=published, check=True,
                   capture_output=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "c and d"],
                   cwd=published, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": soon(2)})
    git(published, "checkout", "-q", "pr")
    add_env(runner, published, tmp_path, "NVIDIA L4", "-m", "add e")
    _told_to_rebase_and_rebased(runner, published, fork, landed=2)  # git drops c and d


def _told_to_rebase_and_rebased(runner, published, fork: str, landed: int) -> None:
    """``check main..pr`` refuses (KI404) saying main holds ``landed`` of the branch's
    commits and advising the rebase only; the rebase run as printed leaves the branch's one
    new commit, which checks clean."""
    result = invoke(runner, published, "check", "main..pr")
    assert result.exit_code == 1
    assert ("main has 1 commit(s) the branch lacks since they forked at "
            f"{fork[:12]}, and holds the change of {landed} commit(s) of the branch "
            "already" in result.output)
    assert "rebase onto it (`git rebase main`), which leaves those commits out" in (
        result.output)
    assert "fix KI404 (1 finding): rebase onto main (`git rebase main`), not a merge" in (
        result.output)  # the fix line too, not "or merge" (fresh00b LOW)
    subprocess.run(["git", "rebase", "-q", "main"], cwd=published, check=True,
                   capture_output=True)  # the advice, as printed
    assert git(published, "rev-list", "--count", "main..pr").strip() == "1"
    again = invoke(runner, published, "check", "main..pr")
    assert again.exit_code == 0, again.output


def test_a_branch_merely_behind_base_is_told_so(runner, published, tmp_path):
    add_env(runner, published, tmp_path)
    add_env(runner, published, tmp_path, "NVIDIA A100")
    tip = head(published)
    result = invoke(runner, published, "check", f"{tip}..HEAD~2", "--json")
    assert result.exit_code == 1
    [finding] = json.loads(result.output)["findings"]
    assert (finding["rule"], finding["found"]) == ("KI404", "a branch behind it")
    assert "the branch is 2 commit(s) behind" in finding["message"]
    assert "adds none: there is nothing to merge" in finding["message"]


def test_bad_ranges(runner, published):
    result = invoke(runner, published, "check", "HEAD")
    assert result.exit_code == 2 and "not a range" in result.output
    result = invoke(runner, published, "check", "nope..HEAD")
    assert result.exit_code == 1 and "no commit named 'nope'" in result.stderr
    result = invoke(runner, published, "check")
    assert result.exit_code == 2
    assert "give one of BASE..HEAD, --updates FILE or --unpushed REMOTE" in result.output
    result = invoke(runner, published, "check", "--updates", "-", input="a b\n")
    assert result.exit_code == 2 and "OLD NEW REF" in result.output


def test_check_runs_in_a_bare_repository(runner, published, tmp_path):
    base = head(published)
    write_raw(published, "store/objects/sha256/zz.json", b"{}")
    commit_all(published)
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(bare))
    result = invoke(runner, bare, "check", f"{base}..HEAD")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "store/objects/sha256/zz.json: error KI110 path-outside-layout: not a path of the "
        "store layout: move or remove it (a .NAME.PID.N.tmp file is a temporary file of a "
        "killed `kistore add`: delete it, or the next add into its directory removes it)")


def test_pre_existing_problems_outside_the_range_are_not_blamed_on_it(runner, published,
                                                                      tmp_path):
    write_raw(published, "store/stray.txt", b"x")
    commit_all(published, "old mistake")
    base = head(published)
    add_env(runner, published, tmp_path)
    result = invoke(runner, published, "check", f"{base}..HEAD")
    assert result.exit_code == 0, result.output


def test_github_annotations_mark_file_line_and_column(runner, published):
    base = head(published)
    data = b'{"apiVersion":"kernelindex.dev/v1alpha1",\n"kind":"Workload","spec":{}}'
    import hashlib
    path = store_file("sha256:" + hashlib.sha256(data).hexdigest())
    write_raw(published, path, data)
    write_raw(published, path.replace("objects", "metadata"), b'{"name":"w"}')
    commit_all(published)
    result = invoke(runner, published, "check", f"{base}..HEAD", "--format", "github")
    assert result.exit_code == 1
    lines = [x for x in result.output.splitlines() if "KI103" in x]
    assert lines == [
        f"::error file={path},line=1,col=42,title=KI103 bytes-not-canonical::KI103 "
        "bytes-not-canonical: bytes differ from the RFC 8785 form at byte 41 (expected "
        "'\"kind\":\"Work', found '\\n\"kind\":\"Wor'). Fix: " + RULES["KI103"].hint]


def test_github_annotation_escaping():
    finding = Finding(RULES["KI101"], "50% bad\nreally", file="a,b:c.json", line=3, column=4)
    assert github_annotation(finding) == (
        "::error file=a%2Cb%3Ac.json,line=3,col=4,title=KI101 object-digest-mismatch::KI101 "
        "object-digest-mismatch: 50%25 bad%0Areally. Fix: " + RULES["KI101"].hint)
    info = Finding(RULES["KI201"], "m")
    assert github_annotation(info).startswith("::warning title=KI201 reference-unresolved::")


def test_json_summary(runner, published):
    result = invoke(runner, published, "verify", "--json")
    data = json.loads(result.output)
    assert result.exit_code == 0
    # 2 warnings: the published run's two unresolved references; 1 info: KI308, which
    # attestations verify saw from where (none here)
    assert (data["ok"], data["counts"], data["checked"]) == (
        True, {"error": 0, "warning": 2, "info": 1}, "store at work tree")
    assert [f["rule"] for f in data["findings"] if f["severity"] == "info"] == ["KI308"]


# -- ref updates (pre-receive / pre-push policy) ---------------------------------------

@pytest.fixture
def pushed(runner, published, tmp_path):
    """The published store with one more environment; returns (old tip, new tip)."""
    old = head(published)
    add_env(runner, published, tmp_path)
    return old, head(published)


def rules(findings):
    return [f.rule.id for f in findings]


def test_fast_forward_of_main_is_checked_and_accepted(published, pushed):
    old, new = pushed
    assert gate.check_updates(Store(published), [(old, new, "refs/heads/main")]) == []


def test_non_fast_forward_of_main_is_refused(published, pushed):
    old, new = pushed
    [finding] = gate.check_updates(Store(published), [(new, old, "refs/heads/main")])
    assert finding.rule.id == "KI407"
    assert finding.message == f"non-fast-forward update {new[:12]}..{old[:12]} of " \
                              "refs/heads/main refused"


def test_deleting_main_or_notes_is_refused_other_branches_may_go(published, pushed):
    old, new = pushed
    store = Store(published)
    assert rules(gate.check_updates(store, [(new, ZERO, "refs/heads/main")])) == ["KI407"]
    assert rules(gate.check_updates(store, [(new, ZERO, gate.NOTES_REF)])) == ["KI407"]
    assert gate.check_updates(store, [(new, ZERO, "refs/heads/topic")]) == []


def test_a_refused_notes_update_names_kistore_notes_push_and_main_keeps_the_rules_fix(
        published, pushed):
    """fresh96 L10: a plain non-fast-forward push of the notes ref is told the command that
    merges; the main branch keeps KI407's own fix, and a deletion of either is never fixed
    by pushing."""
    old, new = pushed
    store = Store(published)
    [notes] = gate.check_updates(store, [(new, old, gate.NOTES_REF)])
    assert notes.rule.id == "KI407"
    assert notes.fix is not None and notes.fix.startswith(
        "send refs/notes/kistore with `kistore notes push REMOTE`: it fetches the remote's "
        "notes, merges this repository's lines onto them and pushes a fast-forward")
    [main] = gate.check_updates(store, [(new, old, "refs/heads/main")])
    assert main.fix is None and main.rule.hint.startswith("push only fast-forward updates")
    # fresh99 LOW: "merge" with its direction; merging the remote tip in gives KI430
    assert ("merge this branch into it (`git checkout --detach origin/main && git merge "
            "--no-ff main && git push origin HEAD:main`); not `git merge origin/main` on this "
            "branch") in main.rule.hint
    [deleted] = gate.check_updates(store, [(new, ZERO, gate.NOTES_REF)])
    assert deleted.fix is None


def test_force_push_of_a_topic_branch_is_checked_from_where_it_left_main(published, pushed):
    old, new = pushed
    git(published, "update-ref", "refs/heads/main", old)
    findings = gate.check_updates(Store(published), [(old, new, "refs/heads/topic"),
                                                     (ZERO, new, "refs/heads/other")])
    assert findings == []


def test_new_branch_with_a_bad_object_is_refused(published, pushed):
    old, new = pushed
    (published / store_file(PUBLISHED["protocol"])).write_bytes(b"{}")
    bad = commit_all(published, "bad")
    git(published, "update-ref", "refs/heads/main", old)
    found = {(f.rule.id, f.file) for f in gate.check_updates(
        Store(published), [(ZERO, bad, "refs/heads/topic")])}
    assert ("KI401", store_file(PUBLISHED["protocol"])) in found


def test_updates_from_stdin_via_cli(runner, published, pushed):
    old, new = pushed
    result = invoke(runner, published, "check", "--updates", "-",
                    input=f"{new} {old} refs/heads/main\n{old} {new} refs/heads/x\n")
    assert result.exit_code == 1
    assert "KI407 protected-ref-rewritten" in result.output
    assert result.output.splitlines()[-1] == "FAILED: 2 ref update(s): 1 error, 0 warnings, 0 info"


def _ki401(runner, root, rev_range: str) -> list[str]:
    result = invoke(runner, root, "check", rev_range, "--json")
    assert result.exit_code == 1, result.output
    return [f["message"] for f in json.loads(result.output)["findings"] if f["rule"] == "KI401"]


def test_a_change_merged_from_a_branch_is_reported_once_at_its_own_commit(runner, published):
    # Found running the pull-request workflow's command on a merge (HEAD^1..HEAD): one
    # tampered object gave KI401 twice, at the tampering commit and again at the merge.
    base = head(published)
    git(published, "checkout", "-q", "-b", "pr")
    obj = published / store_file(PUBLISHED["protocol"])
    obj.write_bytes(obj.read_bytes().replace(b"v1.1", b"v2.0", 1))
    commit_all(published, "tamper")
    git(published, "checkout", "-q", "main")
    git(published, "merge", "-q", "--no-ff", "-m", "merge pr", "pr")
    assert head(published) != base
    [message] = _ki401(runner, published, "HEAD^1..HEAD")
    assert message.startswith("modified in commit ") and message.endswith("(tamper)")


@pytest.mark.parametrize("side_has_it", [True, False], ids=["both-sides", "one-side"])
def test_a_merge_that_changes_an_object_itself_is_reported_at_the_merge(
        runner, published, side_has_it):
    # An "evil merge": the merge commit's own tree changes an object neither side changed.
    protocol = store_file(PUBLISHED["protocol"])
    if not side_has_it:  # the side branch forks before the object was added
        git(published, "checkout", "-q", "--orphan", "pr")
        git(published, "rm", "-q", "-r", "--cached", "store")
        git(published, "clean", "-q", "-fd", "store")
        git(published, "commit", "-q", "--allow-empty", "-m", "unrelated side")
    else:
        git(published, "checkout", "-q", "-b", "pr")
        git(published, "commit", "-q", "--allow-empty", "-m", "side")
    git(published, "checkout", "-q", "-f", "main")
    git(published, "merge", "-q", "--no-commit", "--no-ff", "--allow-unrelated-histories",
        "-s", "ours", "pr")
    obj = published / protocol
    obj.write_bytes(obj.read_bytes().replace(b"v1.1", b"v2.0", 1))
    git(published, "add", protocol)
    git(published, "commit", "-q", "--no-verify", "-m", "evil merge")
    [message] = _ki401(runner, published, "HEAD^1..HEAD")  # once, however many parents
    assert message.startswith("modified in commit ") and "(evil merge)" in message


def test_a_branch_that_rewrote_commits_base_holds_is_not_told_a_forge_landed_them(
        runner, published, tmp_path):
    # fresh12 F11: `git rebase -i` rewording commits origin/main held was blamed on a forge
    # ("a pull request landed by GitHub's "Rebase and merge" ..."): nothing landed them
    fork = head(published)
    add_env(runner, published, tmp_path, "NVIDIA H100", "-m", "add c")
    add_env(runner, published, tmp_path, "NVIDIA A100", "-m", "add d")
    git(published, "branch", "pub")  # what the server holds
    picked = git(published, "rev-list", "--reverse", f"{fork}..HEAD").split()
    git(published, "reset", "-q", "--hard", fork)
    subprocess.run(["git", "cherry-pick", "--no-gpg-sign", *picked], cwd=published,
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": soon(2)})  # made again, later
    result = invoke(runner, published, "check", "pub..main")
    assert result.exit_code == 1
    assert (f"pub has 2 commit(s) the branch lacks since they forked at {fork[:12]}, and "
            "holds the change of 2 commit(s) of the branch already, under other commits (the "
            "branch made them again after pub's, with the same change: it rewrote commits pub "
            "holds, by `git rebase -i` or `git commit --amend`; nothing landed them): rebase "
            "onto it (`git rebase pub`), which leaves those commits out, and check again"
            ) in result.output, result.output
    assert "GitHub" not in result.output
