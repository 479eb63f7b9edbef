"""Each version of a metadata file a range brings is judged as HEAD's is (hist02).

fresh03 H1: a metadata file given a duplicate key, non-canonical bytes or ``"title": 42`` in
one commit and restored byte for byte in the next passed ``kistore check``, pre-receive and
``check --landed`` with 0 findings, the contents check reading HEAD's files only; at that
commit ``rank --at`` left the run out and ``export --at`` exited 1.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.check import _metadata_versions, gate
from kistore.cli import main as cli
from kistore.store import Store

from ..conftest import PUBLISHED, commit_all, git, store_file
from .test_every_commit import _fix as brought
from .test_tree_entries_gate import _server_and_clone

KISTORE = str(Path(sys.executable).with_name("kistore"))

META = store_file(PUBLISHED["run"], "metadata")


def _later(base: str, first: str, done: str = "replaces") -> str:
    """The message's words after the rule's own: the commit bringing the bytes, the rebase."""
    return (f" (commit {first[:12]} brings it; a later commit of the range {done} it, but "
            "that commit stays in the history, where a checkout of it meets these bytes: "
            f"rebuild the range without it, e.g. `git rebase -i {base}`)")


def _fix(rules: str, base: str, later: str) -> str:
    """The fix of a version a later commit restores (drop the commit, or edit it): the
    branch's fix of a brought file (hist00's words), the next version checked out."""
    return brought(f"a version of a metadata file that does not pass ({rules})", META,
                   base).replace(f"`git rm -r {META}`", f"`git checkout {later} -- {META}`") \
        .replace("nothing else is to be written or removed for it",
                 "the version HEAD holds is judged as it is")


def _broken_then_restored(root: Path, broken: bytes) -> tuple[str, str, str]:
    """BASE, a commit writing ``broken`` over the run's metadata file, one restoring it."""
    base = git(root, "rev-parse", "HEAD").strip()
    kept = (root / META).read_bytes()
    (root / META).write_bytes(broken)
    first = commit_all(root, "break")
    (root / META).write_bytes(kept)
    return base, first, commit_all(root, "restore")


def _errors(root: Path, spec: str, **kw) -> list:
    return [f for f in gate.check_range(Store(root), spec, **kw) if f.severity == "error"]


def _title(root: Path, title: object) -> bytes:
    """The run's metadata file with ``title`` set, in canonical bytes (keys sorted)."""
    meta = json.loads((root / META).read_bytes())
    meta["title"] = title
    return json.dumps(meta, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()


def _duplicate(root: Path) -> bytes:
    data = (root / META).read_bytes()
    return data.replace(b'"name":', b'"name":"x","name":', 1)


def _spaced(root: Path) -> bytes:
    return (root / META).read_bytes().replace(b'":', b'": ', 1)


@pytest.mark.parametrize(("make", "rule", "message"), [
    (_duplicate, "KI102", "duplicate object key 'name'; a key may appear once: delete one of "
     "them"),
    (_spaced, "KI103", "bytes differ from the RFC 8785 form at byte 10"),
    (lambda root: _title(root, 42), "KI104", "field 'title': expected a string, found an integer"),
])
def test_a_metadata_file_broken_then_restored_is_refused_naming_its_commit(
        published, make, rule, message):
    base, first, second = _broken_then_restored(published, make(published))
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.file, error.extra["commit"]) == (
        rule, META, f"commit {first[:12]}")
    assert error.message == message + _later(base, first)
    assert error.fix == _fix(rule, base, second)
    # the same bytes at HEAD: the contents check's finding, said once, not as history
    [held] = _errors(published, f"{base}..{first}")
    assert (held.rule.id, held.file) == (rule, META) and "brings it" not in held.message
    # also when the range has landed (check --landed), and the run's answer at that commit
    landed = _errors(published, f"{base}..{second}", landed=True)
    assert [(f.rule.id, f.extra["commit"]) for f in landed] == [(rule, f"commit {first[:12]}")]


def _drop_and_skip(root: Path, fix: str, first: str) -> None:
    """The fix's rebase as printed: drop the commit bringing the version; git stops at the
    later one, left empty, and `git rebase --skip` (as the fix says) finishes."""
    [args] = re.findall(r"`git rebase -i ([^`]+)`", fix)[:1]
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i -e '/^pick {first[:7]}/s/^pick/drop/'"}
    stopped = subprocess.run(["git", "rebase", "-i", *args.split()], cwd=root, env=env,
                             capture_output=True, text=True)
    assert stopped.returncode != 0, stopped.stdout  # the restore, left empty, as said
    subprocess.run(["git", "rebase", "--skip"], cwd=root, check=True, env=env,
                   capture_output=True)


def test_exact_finding_line_of_the_cli_and_the_printed_fix_runs(published):
    """`kistore check` prints the finding; the fix as printed (drop the commit, skip the
    restore left empty) leaves BASE, and the gate then passes."""
    base, first, second = _broken_then_restored(published, _duplicate(published))
    said = CliRunner().invoke(cli, ["--store", str(published), "check", f"{base}..{second}"])
    [error] = _errors(published, f"{base}..{second}")
    assert said.exit_code == 1, said.output
    assert said.output.splitlines() == [
        f"{META}:1:62:/name: error KI102 json-parse-error: duplicate object key 'name'; a key "
        f"may appear once: delete one of them{_later(base, first)}",
        f"fix KI102 (1 finding): {_fix('KI102', base, second)}",
        f"FAILED: {base}..{second}: 1 error, 0 warnings, 0 info"]
    _drop_and_skip(published, error.fix, first)
    assert git(published, "rev-parse", "HEAD").strip() == base
    said = CliRunner().invoke(cli, ["--store", str(published), "check", f"{base}..HEAD"])
    assert said.exit_code == 0, said.output


def test_a_range_that_never_breaks_it_stays_clean(published):
    """Two valid titles in a row, and a valid one restored: 0 findings of these rules."""
    base = git(published, "rev-parse", "HEAD").strip()
    kept = (published / META).read_bytes()
    (published / META).write_bytes(_title(published, "first"))
    commit_all(published, "title one")
    (published / META).write_bytes(_title(published, "second"))
    commit_all(published, "title two")
    (published / META).write_bytes(kept)
    head = commit_all(published, "back")
    assert _errors(published, f"{base}..{head}") == []


def test_a_broken_version_mended_to_another_one_is_edited_not_dropped(published):
    """The next version is not what the commit found: dropping the commit would make the
    later one conflict; the fix's `edit` with that version's checkout runs, and passes."""
    base = git(published, "rev-parse", "HEAD").strip()
    (published / META).write_bytes(_title(published, 42))
    (published / "notes.txt").write_text("kept\n")
    first = commit_all(published, "break, and a note")
    (published / META).write_bytes(_title(published, "mended"))
    second = commit_all(published, "mend")
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.extra["commit"]) == ("KI104", f"commit {first[:12]}")
    assert f"`git rebase -i {base}`, and mark that commit `edit`, then `git checkout " \
        f"{second} -- {META}`, `git commit --amend`, `git rebase --continue`; the later " \
        "commit that brought that version may be left empty: git stops the rebase there " \
        "(`git rebase --skip` it);" in error.fix
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i -e '/^pick {first[:7]}/s/^pick/edit/'"}
    git_env = {"cwd": published, "env": env, "capture_output": True, "text": True}
    subprocess.run(["git", "rebase", "-i", base], check=True, **git_env)
    subprocess.run(["git", "checkout", second, "--", META], check=True, **git_env)
    subprocess.run(["git", "commit", "-q", "--amend", "--no-edit", "--no-verify"], check=True,
                   **git_env)
    stopped = subprocess.run(["git", "rebase", "--continue"], **git_env)
    assert stopped.returncode != 0  # "mend", left empty, as said
    subprocess.run(["git", "rebase", "--skip"], check=True, **git_env)
    assert (published / "notes.txt").read_text() == "kept\n"
    assert _errors(published, f"{base}..HEAD") == []


def test_pre_receive_refuses_the_break_then_restore_pushed_to_main(
        published, tmp_path, monkeypatch):
    """fresh03's exact sequence, pushed straight to main: the server's hook refuses it."""
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    base, first, _ = _broken_then_restored(clone, _duplicate(clone))
    pushed = subprocess.run(["git", "push", "origin", "HEAD:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"remote: {META}:1:62:/name: error KI102 json-parse-error: duplicate object key " \
        f"'name'; a key may appear once: delete one of them{_later(base, first)}" \
        in pushed.stderr, pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before


def _root_broken_then_restored(root: Path, name: str, broken: bytes) -> tuple[str, str, str]:
    """BASE, a commit writing ``broken`` as the top file ``name``, one restoring it."""
    base = git(root, "rev-parse", "HEAD").strip()
    kept = (root / name).read_bytes() if (root / name).exists() else None
    (root / name).write_bytes(broken)
    first = commit_all(root, f"break {name}")
    if kept is None:
        (root / name).unlink()
    else:
        (root / name).write_bytes(kept)
    return base, first, commit_all(root, f"restore {name}")


def test_gitattributes_converting_stored_bytes_in_one_commit_is_refused(published):
    """KI113 per commit: `store/** text eol=crlf` added, taken out by the next commit."""
    kept = (published / ".gitattributes").read_bytes()
    base, first, second = _root_broken_then_restored(
        published, ".gitattributes", kept + b"store/** text eol=crlf\n")
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.file, error.extra["commit"]) == (
        "KI113", ".gitattributes", f"commit {first[:12]}")
    assert error.message == ("line 2 sets text eol=crlf for store/** after the store/** "
                             "line, so git would convert stored bytes" + _later(base, first))
    assert error.fix == _fix("KI113", base, second).replace(
        "a metadata file", ".gitattributes").replace(META, ".gitattributes")
    _drop_and_skip(published, error.fix, first)
    assert git(published, "rev-parse", "HEAD").strip() == base
    assert _errors(published, f"{base}..HEAD") == []


def test_gitignore_over_store_in_one_commit_is_refused(published):
    """KI119 per commit: a `.gitignore` line over store/ added, removed by the next commit."""
    base, first, second = _root_broken_then_restored(
        published, ".gitignore", b"store/objects/sha256/ff/\n")
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.file, error.extra["commit"]) == (
        "KI119", ".gitignore", f"commit {first[:12]}")
    assert error.message == ("line 1 ('store/objects/sha256/ff/') may match paths under "
                             "store/: git add would skip them"
                             + _later(base, first, "removes"))
    assert "mark it `edit`, then `git rm -r .gitignore`, `git commit --amend`" in error.fix
    _drop_and_skip(published, error.fix, first)
    assert _errors(published, f"{base}..HEAD") == []
    # a .gitignore that ignores nothing under store/, changed twice: nothing said
    _, _, head = _root_broken_then_restored(published, ".gitignore", b"/build/\n")
    assert _errors(published, f"{base}..{head}") == []


def test_kistore_toml_broken_in_one_commit_is_refused(published):
    """KI108 per commit: TOML that does not parse, restored by the next commit."""
    base, first, second = _root_broken_then_restored(published, "kistore.toml", b"[[[\n")
    errors = _errors(published, f"{base}..{second}")
    assert [(f.rule.id, f.file, f.extra["commit"]) for f in errors] == [
        ("KI108", "kistore.toml", f"commit {first[:12]}")]
    assert errors[0].message == (  # the commit's file: no `git diff` shows it (fresh07 L4)
        "not valid TOML: Invalid initial character for a key part; this is kistore.toml as "
        f"committed at {first[:12]} (`git show {first[:12]}:kistore.toml` shows it, `git log "
        "-p -- kistore.toml` the commits that changed it; TOML 1.0: https://toml.io/en/v1.0.0): "
        "a commit's files never change, so a new commit corrects it for the commits after it"
        + _later(base, first))
    _drop_and_skip(published, errors[0].fix, first)
    assert _errors(published, f"{base}..HEAD") == []


def test_kistore_toml_lowering_a_limit_in_one_commit_is_refused(published):
    """KI106 per commit: `manifest-bytes = 300` in one commit, restored by the next; each
    stored file past it at that commit is said, naming the commit."""
    kept = (published / "kistore.toml").read_bytes()
    assert b"\n[limits]\n" in kept and b"\nmanifest-bytes" not in kept
    base, first, second = _root_broken_then_restored(
        published, "kistore.toml",
        kept.replace(b"\n[limits]\n", b"\n[limits]\nmanifest-bytes = 300\n"))
    errors = _errors(published, f"{base}..{second}")
    lowers = "kistore.toml lowers manifest-bytes from 1,048,576 to 300 in this range: "
    assert [(f.rule.id, f.file, f.message) for f in errors] == [
        ("KI106", "kistore.toml", f"{lowers}2 stored file(s) hold more bytes than it, each "
         "reported (KI106)" + _later(base, first)),
        ("KI106", store_file(PUBLISHED["run"]), f"{lowers}the file holds 802 bytes, more "
         "than the limit of 300 (manifest-bytes)" + _later(base, first)),
        ("KI106", errors[2].file, f"{lowers}the file holds 539 bytes, more than the limit "
         "of 300 (manifest-bytes)" + _later(base, first))]
    assert {f.extra["commit"] for f in errors} == {f"commit {first[:12]}"}
    assert "`git checkout " + second + " -- kistore.toml`" in errors[1].fix


def test_each_version_is_read_once_however_many_commits_bring_it(published, monkeypatch):
    """O(change): the same broken bytes brought twice are judged once and said of both
    commits; a range whose commits bring no metadata file judges none."""
    calls = []
    judge = _metadata_versions.check_unit
    monkeypatch.setattr(_metadata_versions, "check_unit",
                        lambda files, unit: calls.append(unit) or judge(files, unit))
    broken = _duplicate(published)
    base, first, _ = _broken_then_restored(published, broken)
    _, again, head = _broken_then_restored(published, broken)
    errors = _errors(published, f"{base}..{head}")
    assert [(f.rule.id, f.extra["commit"]) for f in errors] == [
        ("KI102", f"commit {first[:12]}"), ("KI102", f"commit {again[:12]}")]
    assert len(calls) == 1 and calls[0].metadata_path == META
    calls.clear()
    (published / "notes.txt").write_text("no metadata\n")
    later = commit_all(published, "a note")
    assert _errors(published, f"{head}..{later}") == [] and calls == []


def test_kistore_toml_made_a_symlink_in_one_commit_is_refused(published):
    # fresh04 H4: a symlink (not a regular file) in a middle commit, restored by the next
    base = git(published, "rev-parse", "HEAD").strip()
    kept = (published / "kistore.toml").read_bytes()
    (published / "kistore.toml").unlink()
    (published / "kistore.toml").symlink_to("/etc/passwd")
    first = commit_all(published, "symlink")
    (published / "kistore.toml").unlink()
    (published / "kistore.toml").write_bytes(kept)
    second = commit_all(published, "restore")
    errors = _errors(published, f"{base}..{second}")
    assert [(f.rule.id, f.file, f.extra["commit"]) for f in errors] == [
        ("KI108", "kistore.toml", f"commit {first[:12]}")]
    assert errors[0].message == (
        f"a symlink in the commit {first}, not a regular file: kistore reads its settings "
        "only from a regular file (it never follows a symlink: git commits the path a link "
        "holds, not the settings) and will not use the defaults in their place; commit the "
        "file itself in its place" + _later(base, first))
    _drop_and_skip(published, errors[0].fix, first)
    assert _errors(published, f"{base}..HEAD") == []
