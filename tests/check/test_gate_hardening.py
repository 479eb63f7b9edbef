"""The gate and verify against what a pusher can slip past a naive check (named by attack)."""

from __future__ import annotations

from kistore.attest import notes
from kistore.check import audit
from kistore.check.gate import check_range, check_updates
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.gitattributes import check_gitattributes
from kistore.core.layout import NOTES_REF

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RERUN_KEY, RUN, STRANGER, bundle
from ..conftest import PUBLISHED, commit_all, git, redate_history

GUARD = b"store/** -text -eol -filter -ident -working-tree-encoding\n"


def ids(findings):
    return sorted({f.rule.id for f in findings if f.severity == "error"})


def test_gitattributes_line_that_re_encodes_objects_is_caught():
    data = GUARD + b"store/objects/** working-tree-encoding=UTF-16\n"
    [finding] = check_gitattributes(data)
    assert (finding.rule.id, finding.line) == ("KI113", 2)
    assert check_gitattributes(GUARD + b"docs/*.md text\n") == []
    assert ids(check_gitattributes(GUARD + b"*.json text eol=crlf\n")) == ["KI113"]


def test_broken_ranking_policy_fails_verify_and_check(record_store, store_path):
    base = git(store_path, "rev-parse", "HEAD").strip()
    (store_path / "store/policy/ranking.json").write_text('{"families": {"x": {"order": 1}}}')
    commit_all(store_path, "bad policy")
    assert "KI206" in ids(audit.verify(record_store))
    assert "KI206" in ids(check_range(record_store, f"{base}..HEAD"))
    (store_path / "store/policy/ranking.json").write_text("{not json")
    commit_all(store_path, "worse policy")
    [finding] = [f for f in audit.check_policy(record_store) if f.rule.id == "KI206"]
    assert (finding.file, finding.line, finding.column) == ("store/policy/ranking.json", 1, 2)


def test_tampered_attestation_file_in_a_pull_request_is_refused(record_store, store_path):
    base = git(store_path, "rev-parse", "HEAD").strip()
    good = bundle(STRANGER, "reproduction")
    forged = good.replace(b'"payload":"', b'"payload":"A', 1)
    path = notes.attestation_path(RUN, forged)
    (store_path / path).parent.mkdir(parents=True, exist_ok=True)
    (store_path / path).write_bytes(forged)
    commit_all(store_path, "forged attestation")
    assert "KI301" in ids(check_range(record_store, f"{base}..HEAD"))


def test_invalid_trust_file_in_a_pull_request_is_refused(record_store, store_path):
    base = git(store_path, "rev-parse", "HEAD").strip()
    (store_path / "store/trust").mkdir(parents=True, exist_ok=True)
    (store_path / "store/trust/keys.json").write_text('{"keys": [')
    commit_all(store_path, "broken trust")
    assert "KI309" in ids(check_range(record_store, f"{base}..HEAD"))


def _notes_tip(path) -> str:
    return git(path, "rev-parse", NOTES_REF).strip()


def test_push_that_deletes_an_attestation_note_is_refused(record_store, store_path):
    notes.attach(record_store, RUN, bundle(MAINTAINER_KEY, "withdrawal"))
    old = _notes_tip(store_path)
    blob = git(store_path, "rev-parse",
               f"HEAD:{layout.object_path(Digest.from_str(PUBLISHED['run']))}").strip()
    git(store_path, "notes", "--ref=kistore", "remove", blob)
    new = _notes_tip(store_path)
    assert ids(check_updates(record_store, [(old, new, NOTES_REF)])) == ["KI408"]


def test_push_of_a_garbage_note_line_is_refused(record_store, store_path):
    blob = git(store_path, "rev-parse",
               f"HEAD:{layout.object_path(Digest.from_str(PUBLISHED['run']))}").strip()
    git(store_path, "notes", "--ref=kistore", "add", "-m", "not json", blob)
    new = _notes_tip(store_path)
    assert ids(check_updates(record_store, [("0" * 40, new, NOTES_REF)])) == ["KI409"]


def test_push_of_a_good_note_line_passes(record_store, store_path):
    notes.attach(record_store, RUN, bundle(STRANGER, "reproduction"))
    new = _notes_tip(store_path)
    assert ids(check_updates(record_store, [("0" * 40, new, NOTES_REF)])) == []


def test_tag_pointing_at_a_tampered_commit_is_checked(record_store, store_path):
    base = git(store_path, "rev-parse", "HEAD").strip()
    obj = store_path / layout.object_path(Digest.from_str(PUBLISHED["protocol"]))
    obj.write_bytes(obj.read_bytes().replace(b"v1.1", b"v1.2"))
    bad = commit_all(store_path, "tamper")
    git(store_path, "reset", "-q", "--hard", base)  # the receiving side's main: before it
    found = ids(check_updates(record_store, [(base, bad, "refs/heads/main")]))
    assert "KI401" in found
    assert ids(check_updates(record_store, [("0" * 40, bad, "refs/tags/v9")])) == found
    assert ids(check_updates(record_store, [("0" * 40, bad, "refs/kistore/x")])) == found


def test_unknown_commit_in_a_push_is_an_input_error(record_store):
    import pytest

    from kistore.core.errors import InputError
    with pytest.raises(InputError, match="no object deadbeef"):
        check_updates(record_store, [("0" * 40, "deadbeef" * 5, "refs/heads/x")])


def test_deleting_a_withdrawal_file_in_a_pull_request_is_refused(record_store, store_path):
    withdrawal = bundle(MAINTAINER_KEY, "withdrawal")
    path = notes.attestation_path(RUN, withdrawal)
    (store_path / path).parent.mkdir(parents=True, exist_ok=True)
    (store_path / path).write_bytes(withdrawal)
    base = commit_all(store_path, "withdraw")
    git(store_path, "rm", "-q", "-r", "store/attestations")
    commit_all(store_path, "undo the withdrawal")
    found = [(f.rule.id, f.file) for f in check_range(record_store, f"{base}..HEAD")
             if f.severity == "error"]
    assert found == [("KI410", path)]


def test_non_canonical_rewrite_of_a_note_is_refused(record_store, store_path):
    notes.attach(record_store, RUN, bundle(STRANGER, "reproduction"))
    old = _notes_tip(store_path)
    blob = git(store_path, "rev-parse",
               f"HEAD:{layout.object_path(Digest.from_str(PUBLISHED['run']))}").strip()
    line = git(store_path, "notes", "--ref=kistore", "show", blob).splitlines()[0]
    git(store_path, "notes", "--ref=kistore", "add", "-f", "-m", f"{line}\n{line}  ", blob)
    assert ids(check_updates(record_store, [(old, _notes_tip(store_path), NOTES_REF)])) == [
        "KI409"]


def test_annotated_tag_on_a_good_commit_passes_and_on_a_bad_one_is_checked(record_store,
                                                                           store_path):
    base = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "tag", "-a", "-m", "release", "v1", "HEAD")
    tag = git(store_path, "rev-parse", "v1").strip()
    assert ids(check_updates(record_store, [("0" * 40, tag, "refs/tags/v1")])) == []
    obj = store_path / layout.object_path(Digest.from_str(PUBLISHED["protocol"]))
    obj.write_bytes(obj.read_bytes().replace(b"v1.1", b"v1.2"))
    commit_all(store_path, "tamper")
    git(store_path, "tag", "-a", "-m", "bad", "v2", "HEAD")
    bad_tag = git(store_path, "rev-parse", "v2").strip()
    git(store_path, "reset", "-q", "--hard", base)
    assert "KI401" in ids(check_updates(record_store, [("0" * 40, bad_tag, "refs/tags/v2")]))


def test_gitattributes_bypasses_are_caught():
    for line in (b'"store/**" text', b"s[t]ore/** eol=crlf", b"st*/** text",
                 b"store/** !text", b"* text=auto"):
        assert ids(check_gitattributes(GUARD + line + b"\n")) == ["KI113"], line


def test_deleting_the_ranking_policy_in_a_pull_request_is_refused(record_store, store_path):
    # Without the file, `rank` silently falls back to the shipped default: a pull request
    # could swap the reviewed policy out without anyone reviewing a policy change.
    base = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "rm", "-q", "store/policy/ranking.json")
    commit_all(store_path, "drop the policy")
    found = [(f.rule.id, f.file) for f in check_range(record_store, f"{base}..HEAD")
             if f.severity == "error"]
    assert found == [("KI207", "store/policy/ranking.json"),  # and how to restore it
                     ("KI410", "store/policy/ranking.json")]


def test_turning_the_ranking_policy_into_a_directory_is_refused(record_store, store_path):
    base = git(store_path, "rev-parse", "HEAD").strip()
    policy = store_path / "store/policy/ranking.json"
    data = policy.read_bytes()
    policy.unlink()
    policy.mkdir()
    (policy / "ranking.json").write_bytes(data)
    commit_all(store_path, "policy as a directory")
    found = sorted((f.rule.id, f.file) for f in check_range(record_store, f"{base}..HEAD")
                   if f.severity == "error")
    assert found == [("KI110", "store/policy/ranking.json/ranking.json"),
                     ("KI207", "store/policy/ranking.json"),
                     ("KI410", "store/policy/ranking.json")]


def test_verify_reports_a_store_whose_history_had_a_policy_but_its_tree_lacks_one(
        record_store, store_path):
    had_it = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "rm", "-q", "store/policy/ranking.json")  # staged: the work tree lacks it
    [finding] = [f for f in audit.verify(record_store) if f.rule.id == "KI207"]
    assert (finding.file, finding.extra) == ("store/policy/ranking.json",
                                             {"last_commit": had_it})
    assert f"commit {had_it[:12]} has the reviewed ranking policy" in finding.message
    commit_all(store_path, "drop the policy")
    dropped = git(store_path, "rev-parse", "HEAD").strip()
    for at in (None, "HEAD"):
        assert "KI207" in ids(audit.verify(record_store, at)), at
    assert "KI207" not in ids(audit.verify(record_store, had_it))  # it had the file then
    git(store_path, "checkout", "-q", had_it, "--", "store/policy/ranking.json")  # the fix
    assert "KI207" not in ids(audit.verify(record_store))
    assert dropped != had_it


def test_store_that_never_had_a_policy_is_not_reported(tmp_path):
    # An older store without store/policy/ranking.json in any commit: the default applies.
    from kistore.store import Store

    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / ".gitattributes").write_bytes(GUARD)
    commit_all(tmp_path, "a store before policies existed")
    assert audit.check_policy(Store(tmp_path)) == []


def test_cli_refuses_and_reports_a_deleted_policy(runner, record_store, store_path):
    from kistore.cli import main

    base = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "rm", "-q", "store/policy/ranking.json")
    commit_all(store_path, "drop the policy")
    check = runner.invoke(main, ["--store", str(store_path), "check", f"{base}..HEAD"])
    assert check.exit_code == 1
    assert ("store/policy/ranking.json: error KI410 append-only-file-removed: the range "
            "deletes this file (`kistore rank` would fall back to the shipped default policy)"
            ) in check.output
    verify = runner.invoke(main, ["--store", str(store_path), "verify"])
    assert verify.exit_code == 1
    assert "store/policy/ranking.json: error KI207 policy-missing: commit " in verify.output


# -- a revoked key cannot add evidence by backdating ---------------------------------------

def _trust_rerun_key_revoked(store, store_path, revoked_at: str | None) -> str:
    """Commit a trust file with RERUN_KEY for rerun (revoked at ``revoked_at``); return HEAD."""
    from kistore.attest import signing
    from kistore.attest.trust import add_key, parse_time, revoke_key

    add_key(store.root, signing.public_key_line(RERUN_KEY.public_key()), ["rerun"])
    if revoked_at is not None:
        revoke_key(store.root, signing.keyid(RERUN_KEY.public_key()),
                   at=parse_time(revoked_at))
    return commit_all(store_path, "trust")


def _commit_dated(store_path, date: str, message: str) -> None:
    import os
    import subprocess

    git(store_path, "add", "-A")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", message], cwd=store_path,
                   check=True, env={**os.environ, "GIT_COMMITTER_DATE": date,
                                    "GIT_AUTHOR_DATE": date})


def test_push_of_a_backdated_notes_commit_by_a_revoked_key_is_refused(record_store,
                                                                       store_path):
    # The attack: the leaked key's holder attests after the revocation, rewrites the notes
    # commit with a date before it (and an observedAt before it), and pushes the notes.
    from ..attest.test_attestation_evidence import _backdate_notes_tip

    _trust_rerun_key_revoked(record_store, store_path, "2026-01-01")
    notes.attach(record_store, RUN, bundle(STRANGER, "reproduction"))
    old = _notes_tip(store_path)
    notes.attach(record_store, RUN, bundle(RERUN_KEY, observedAt="2025-11-30T00:00:00Z"))
    _backdate_notes_tip(store_path, "2025-12-01T00:00:00Z")
    found = [f for f in check_updates(record_store, [(old, _notes_tip(store_path), NOTES_REF)])
             if f.severity == "error"]
    # KI428 too (since reviewer r81 F5): the notes commit is dated a year before its parent
    assert [f.rule.id for f in found] == ["KI428", "KI411"]
    assert "is earlier than that of its parent" in found[0].message
    assert "a new rerun attestation by SHA256:" in found[1].message
    assert "was revoked at 2026-01-01T00:00:00Z" in found[1].message


def test_push_of_a_note_by_a_key_the_pushed_main_revokes_is_refused(record_store, store_path):
    # The revocation lands in the same push as the note: the pushed main's trust judges too.
    _trust_rerun_key_revoked(record_store, store_path, None)
    main_before = git(store_path, "rev-parse", "HEAD").strip()
    notes.attach(record_store, RUN, bundle(RERUN_KEY))
    new_notes = _notes_tip(store_path)
    assert ids(check_updates(record_store, [("0" * 40, new_notes, NOTES_REF)])) == []
    main_after = _trust_rerun_key_revoked(record_store, store_path, "2026-01-01")
    git(store_path, "update-ref", "refs/heads/main", main_before)  # the server's main
    updates = [(main_before, main_after, "refs/heads/main"), ("0" * 40, new_notes, NOTES_REF)]
    assert ids(check_updates(record_store, updates)) == ["KI411"]


def test_push_of_a_note_by_a_trusted_key_passes(record_store, store_path):
    _trust_rerun_key_revoked(record_store, store_path, None)
    notes.attach(record_store, RUN, bundle(RERUN_KEY))
    assert ids(check_updates(record_store, [("0" * 40, _notes_tip(store_path), NOTES_REF)])) \
        == []


def test_pull_request_adding_a_backdated_attestation_file_by_a_revoked_key_is_refused(
        record_store, store_path):
    # The same attack by the pull-request transport, on a history whose every date (and the
    # payload's) is before the revocation, so no date in the repository gives it away: the
    # file enters the store now, and the gate judges it now.
    _trust_rerun_key_revoked(record_store, store_path, "2026-01-01")
    base = redate_history(store_path, "2025-11-01T00:00:00Z")
    notes.attach(record_store, RUN, bundle(RERUN_KEY, observedAt="2025-11-30T00:00:00Z"),
                 as_file=True)
    _commit_dated(store_path, "2025-12-01T00:00:00Z", "rerun")
    found = [f for f in check_range(record_store, f"{base}..HEAD") if f.severity == "error"]
    assert [(f.rule.id, f.file.startswith("store/attestations/")) for f in found] == [
        ("KI411", True)]


def test_pull_request_lifting_a_revocation_is_refused(record_store, store_path):
    # Deleting revokedAt by hand would re-validate everything the key signed after it.
    import json

    base = _trust_rerun_key_revoked(record_store, store_path, "2026-01-01")
    trust = store_path / "store/trust/keys.json"
    doc = json.loads(trust.read_text())
    del doc["keys"][0]["revokedAt"]
    trust.write_text(json.dumps(doc, indent=2) + "\n")
    commit_all(store_path, "unrevoke")
    found = [f for f in check_range(record_store, f"{base}..HEAD") if f.severity == "error"]
    assert [(f.rule.id, f.expected, f.found) for f in found] == [
        ("KI412", "2026-01-01T00:00:00Z", "no revocation")]
