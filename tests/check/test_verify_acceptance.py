"""Issue 5 acceptance: each way a store gets damaged is caught by the right rule, by
``verify`` (work tree and ``--at HEAD``) and by ``check BASE..HEAD``, naming the file.

Every case starts from a store holding the published record, damages it the way a careless
or hostile contributor would (with real git, committing past the hooks), and runs the CLI.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core import canonical

from ..conftest import PUBLISHED, commit_all, git, other_environment, store_file, write_raw

PROTOCOL = store_file(PUBLISHED["protocol"])
ENVIRONMENT = store_file(PUBLISHED["environment"])
RUN = store_file(PUBLISHED["run"])


def _named_by_own_digest(root: Path, data: bytes, metadata: dict) -> str:
    """Store bytes under the name their own sha256 gives (so only the rule under test fires)."""
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    write_raw(root, store_file(digest), data)
    write_raw(root, store_file(digest, "metadata"), canonical.dumps(metadata))
    return store_file(digest)


def one_byte_edit(root: Path, bundle: dict) -> dict:
    data = (root / PROTOCOL).read_bytes()
    (root / PROTOCOL).write_bytes(data.replace(b"v1.1", b"v1.2", 1))
    return {"verify": [("KI101", PROTOCOL)], "history": [("KI401", PROTOCOL)]}


def renamed_object(root: Path, bundle: dict) -> dict:
    target = store_file("sha256:" + "ab" * 32)
    (root / target).parent.mkdir(parents=True, exist_ok=True)
    os.replace(root / ENVIRONMENT, root / target)
    # KI204 on target and KI203 on the metadata: the rename explains them, so verify leaves
    # them out (reviewer r90b F4, tests/check/test_renamed_object_one_cause.py); once
    # committed, its KI403 too: KI101's fix names the commit (r92 F12)
    return {"verify": [("KI101", target)]}


def deleted_object(root: Path, bundle: dict) -> dict:
    (root / ENVIRONMENT).unlink()
    # one cause, one advice (r93b G2): KI402's restore, no KI203 "remove the metadata"
    return {"verify": [("KI402", ENVIRONMENT)], "history": [("KI402", ENVIRONMENT)]}


def metadata_without_object(root: Path, bundle: dict) -> dict:
    digest = "sha256:" + "cd" * 32
    write_raw(root, store_file(digest, "metadata"), b'{"name":"orphan"}')
    return {"verify": [("KI203", store_file(digest, "metadata"))]}


def non_canonical_object(root: Path, bundle: dict) -> dict:
    env = other_environment(bundle)
    data = json.dumps({k: env[k] for k in ("apiVersion", "kind", "spec")}, indent=1).encode()
    path = _named_by_own_digest(root, data, env["metadata"])
    return {"verify": [("KI103", path)]}


def schema_invalid_object(root: Path, bundle: dict) -> dict:
    env = other_environment(bundle)
    env["spec"]["hardware"]["vendor"] = 7
    data = canonical.dumps({k: env[k] for k in ("apiVersion", "kind", "spec")})
    path = _named_by_own_digest(root, data, env["metadata"])
    return {"verify": [("KI104", path)]}


def second_policy_and_trust_files(root: Path, bundle: dict) -> dict:
    write_raw(root, "store/policy/other.json", (root / "store/policy/ranking.json").read_bytes())
    write_raw(root, "store/trust/keys2.json", b'{"keys": []}')
    return {"verify": [("KI110", "store/policy/other.json"),
                       ("KI110", "store/trust/keys2.json")]}


def policy_file_turned_into_a_directory(root: Path, bundle: dict) -> dict:
    policy = (root / "store/policy/ranking.json").read_bytes()
    (root / "store/policy/ranking.json").unlink()
    write_raw(root, "store/policy/ranking.json/ranking.json", policy)
    return {"verify": [("KI110", "store/policy/ranking.json/ranking.json")]}


def symlink_under_store(root: Path, bundle: dict) -> dict:
    (root / "store/policy").mkdir(parents=True, exist_ok=True)  # init writes ranking.json
    os.symlink("../objects", root / "store/policy/objects.json")
    return {"verify": [("KI111", "store/policy/objects.json")]}


def case_collision(root: Path, bundle: dict) -> dict:
    write_raw(root, "store/policy/foo.json", b"{}")
    write_raw(root, "store/policy/Foo.json", b"{}")
    return {"verify": [("KI112", "store/policy/foo.json")]}


def crlf_object(root: Path, bundle: dict) -> dict:
    env = other_environment(bundle)
    text = json.dumps({k: env[k] for k in ("apiVersion", "kind", "spec")}, indent=1)
    path = _named_by_own_digest(root, text.replace("\n", "\r\n").encode(), env["metadata"])
    return {"verify": [("KI105", path), ("KI103", path)]}


CASES = [one_byte_edit, renamed_object, deleted_object, metadata_without_object,
         non_canonical_object, schema_invalid_object, symlink_under_store, case_collision,
         crlf_object, second_policy_and_trust_files, policy_file_turned_into_a_directory]


def rules_and_files(output: str) -> set[tuple[str, str]]:
    return {(f["rule"], f.get("file")) for f in json.loads(output)["findings"]}


def invoke(runner, root: Path, *args: str):
    return runner.invoke(main, ["--store", str(root), *args])


@pytest.mark.parametrize("damage", CASES, ids=lambda f: f.__name__)
def test_damage_is_caught_by_verify_and_check(runner, published, bundle, damage):
    base = git(published, "rev-parse", "HEAD").strip()
    expected = damage(published, bundle)
    history = set(expected.get("history", []))
    contents = set(expected["verify"])

    worktree = invoke(runner, published, "verify", "--json")
    assert worktree.exit_code == 1, worktree.output
    assert contents <= rules_and_files(worktree.output)

    commit_all(published, f"damage: {damage.__name__}")
    for args in (["verify", "--json"], ["verify", "--at", "HEAD", "--json"],
                 ["check", f"{base}..HEAD", "--json"]):
        result = invoke(runner, published, *args)
        assert result.exit_code == 1, (args, result.output)
        found = rules_and_files(result.output)
        assert contents | history <= found, (args, found)

    text = invoke(runner, published, "check", f"{base}..HEAD")
    assert text.exit_code == 1
    for rule_id, file in contents | history:
        assert any(line.startswith(file) and f" {rule_id} " in line
                   for line in text.output.splitlines()), (rule_id, file, text.output)
    assert text.output.splitlines()[-1].startswith(f"FAILED: {base}..HEAD: ")


def test_rewritten_old_commit_is_caught(runner, published, bundle, tmp_path):
    """A pull request that rewrites an old commit: check refuses the range, verify finds
    the changed bytes the rewrite smuggled in."""
    env = tmp_path / "env.json"
    env.write_text(json.dumps(other_environment(bundle)))
    assert invoke(runner, published, "add", "--commit", str(env)).exit_code == 0
    published_tip = git(published, "rev-parse", "HEAD").strip()
    # rewrite the commit that added the published record: one byte of the protocol changes
    git(published, "checkout", "-q", "HEAD~1")
    data = (published / PROTOCOL).read_bytes()
    (published / PROTOCOL).write_bytes(data.replace(b"v1.1", b"v1.9", 1))
    git(published, "commit", "-q", "--amend", "--no-verify", "-a", "-m", "add published record")
    git(published, "cherry-pick", published_tip)
    rewritten = git(published, "rev-parse", "HEAD").strip()

    check = invoke(runner, published, "check", f"{published_tip}..{rewritten}", "--json")
    assert check.exit_code == 1
    [finding] = json.loads(check.output)["findings"]
    assert finding["rule"] == "KI404"
    assert "is not an ancestor" in finding["message"]

    verify = invoke(runner, published, "verify", "--at", rewritten, "--json")
    assert verify.exit_code == 1
    assert ("KI101", PROTOCOL) in rules_and_files(verify.output)


def test_clean_pull_request_passes_check(runner, published, bundle, tmp_path):
    git(published, "checkout", "-q", "-b", "pr")
    for i, product in enumerate(["NVIDIA H100", "NVIDIA A100"]):
        path = tmp_path / f"env{i}.json"
        path.write_text(json.dumps(other_environment(bundle, product)))
        result = invoke(runner, published, "add", "--commit", str(path))
        assert result.exit_code == 0, result.output
    result = invoke(runner, published, "check", "main..pr")
    assert result.exit_code == 0, result.output
    assert result.output == "ok: main..pr: 0 errors, 0 warnings, 0 info\n"
    result = invoke(runner, published, "check", "main..pr", "--format", "github")
    assert result.exit_code == 0 and "::error" not in result.output


def test_verify_of_a_split_index_says_what_to_do_instead_of_a_traceback(tmp_path):
    # A new-user test: `kistore verify` crashed with "unsupported mandatory extension:
    # 'link'" (libgit2 cannot read a split index).
    from click.testing import CliRunner

    from kistore.cli import main
    from kistore.store import Store

    Store.init(tmp_path / "s")
    subprocess.run(["git", "-C", str(tmp_path / "s"), "update-index", "--split-index"],
                   check=True)
    result = CliRunner().invoke(main, ["--store", str(tmp_path / "s"), "verify"])
    assert result.exit_code == 1
    assert "split index is not supported" in result.output
    assert "Traceback" not in result.output
