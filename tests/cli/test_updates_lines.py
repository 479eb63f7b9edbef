"""``check --updates`` on lines git may hand it, and on lines it never would (last96 4).

git takes a ref name of any bytes ``git check-ref-format`` allows: a branch
``refs/heads/x<0xFF>`` pushed to a server with ``hooks/pre-receive`` (or from a clone with
``hooks/pre-push``) stopped the push with "internal error (UnicodeDecodeError)". A line
whose OLD was no hex id was "internal error (InvalidError: zzzz)", and a REF outside
``refs/`` (``main``, which git never hands a hook) was taken as given. Now the lines are
read as bytes (:mod:`kistore.check.update_lines`): such a ref is judged as any other and
named with its byte escaped; a line git would not write is a usage error (exit 2) naming
its number and what was expected.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.check._refs import REPLACE_REF_PUSHED
from kistore.check.update_lines import PRE_PUSH
from kistore.cli import main
from kistore.cli.verify import check
from kistore.core.findings import Finding

from ..check.test_tree_entries_gate import _server_and_clone
from ..conftest import ROOT, git

KISTORE = str(Path(sys.executable).with_name("kistore"))
ZERO = "0" * 40
ODD = b"x\xff"
"""A branch name git takes that is not UTF-8."""


def updates(store: Path, data: bytes, *more: str) -> tuple[int, str]:
    """Run ``check --updates -`` fed ``data``; return (exit status, everything printed)."""
    done = CliRunner().invoke(main, ["--store", str(store), "check", "--updates", "-", *more],
                              input=data)
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    return done.exit_code, done.output


def push(clone: Path, *args: bytes | str) -> subprocess.CompletedProcess[bytes]:
    """Run ``git push`` in ``clone`` (bytes: a ref name need not be UTF-8), KISTORE set."""
    return subprocess.run(["git", "push", *args], cwd=clone, capture_output=True,
                          env={**os.environ, "KISTORE": KISTORE})


@pytest.fixture
def server(published: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A bare server with hooks/pre-receive, and a clone of it with hooks/pre-push."""
    bare, clone = _server_and_clone(published, tmp_path)
    shutil.copy(ROOT / "hooks" / "pre-push", clone / ".git" / "hooks" / "pre-push")
    return bare, clone


def commit(clone: Path, name: str) -> str:
    """Commit a file ``name`` (outside store/) in ``clone``; return the commit's id."""
    (clone / name).write_text(f"{name}\n")
    git(clone, "add", name)
    git(clone, "commit", "-q", "--no-verify", "-m", name)
    return git(clone, "rev-parse", "HEAD").strip()


def test_a_branch_not_utf8_is_pushed_through_both_hooks(server):
    bare, clone = server
    tip = commit(clone, "notes.txt")
    done = push(clone, "origin", b"HEAD:refs/heads/" + ODD)
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    assert done.returncode == 0, said
    assert "internal error" not in said and "Traceback" not in said, said
    # the pre-push hook's answer (its stdout), then the server's ("remote: " on stderr)
    assert done.stdout.decode().splitlines()[-1] == (
        "ok: 1 ref update(s): 0 errors, 0 warnings, 0 info"), said
    assert "remote: ok: 1 ref update(s): 0 errors, 0 warnings, 0 info" in said, said
    listed = subprocess.run(["git", "for-each-ref", "--format=%(objectname) %(refname)"],
                            cwd=bare, capture_output=True, check=True).stdout
    assert f"{tip} ".encode() + b"refs/heads/" + ODD + b"\n" in listed


def test_a_tag_not_utf8_moved_is_refused_by_name_escaped(server):
    bare, clone = server
    first = commit(clone, "a.txt")
    subprocess.run(["git", "tag", b"t" + ODD, first], cwd=clone, check=True)
    assert push(clone, "origin", b"refs/tags/t" + ODD).returncode == 0
    commit(clone, "b.txt")
    subprocess.run(["git", "tag", "-f", b"t" + ODD, "HEAD"], cwd=clone, check=True,
                   capture_output=True)
    done = push(clone, "--no-verify", "-f", "origin", b"refs/tags/t" + ODD)  # the server's
    said = done.stderr.decode("utf-8", "replace")
    assert done.returncode != 0, said
    assert "internal error" not in said, said
    assert (f"remote: (store): error KI407 protected-ref-rewritten: move {first[:12]}.."
            in said), said
    assert " of refs/tags/tx\\xff refused: a tag is a permalink" in said, said
    assert subprocess.run(["git", "rev-parse", b"refs/tags/t" + ODD], cwd=bare,
                          capture_output=True).stdout.decode().strip() == first


def test_a_ref_not_utf8_on_stdin_is_judged_as_any_other(published):
    head = git(published, "rev-parse", "HEAD").strip()
    for line in (f"{ZERO} {head} ".encode() + b"refs/heads/" + ODD,  # created
                 f"{head} {ZERO} ".encode() + b"refs/heads/" + ODD):  # deleted
        status, said = updates(published, line + b"\n")
        assert (status, said.splitlines()[-1]) == (
            0, "ok: 1 ref update(s): 0 errors, 0 warnings, 0 info"), said
    status, said = updates(published, f"{ZERO} {head} ".encode() + b"refs/replace/" + ODD)
    assert status == 1, said
    assert said.startswith("(store): error KI419 replace-ref-pushed: refs/replace/x\\xff: "
                           "a replace ref makes git"), said


def test_a_ref_not_utf8_is_given_losslessly_in_json(published):
    """break97 L4: ``--json`` gave ``"refs/heads/caf\\udce9"``, which jq reads as ``caf`` and
    U+FFFD: ``extra.ref_hex`` holds the name's bytes."""
    head = git(published, "rev-parse", "HEAD").strip()
    name = b"refs/replace/caf\xe9"
    status, said = updates(published, f"{ZERO} {head} ".encode() + name, "--json")
    assert status == 1, said
    [finding] = json.loads(said)["findings"]
    assert finding["rule"] == "KI419"
    assert finding["extra"]["ref_hex"] == "726566732f7265706c6163652f636166e9"
    assert bytes.fromhex(finding["extra"]["ref_hex"]) == name
    # a UTF-8 name has none: its JSON string is the name
    status, said = updates(published, f"{ZERO} {head} refs/replace/café".encode(), "--json")
    [finding] = json.loads(said)["findings"]
    assert finding["extra"]["ref"] == "refs/replace/café" and "ref_hex" not in finding["extra"]


def test_every_string_of_extra_not_utf8_gets_its_bytes():
    odd = "x\udcff"
    done = Finding(REPLACE_REF_PUSHED, "m", extra={"ref": odd, "refs": ["a", odd], "n": 1,
                                                    "ok": "é"}).to_json()
    assert done["extra"] == {"ref": odd, "refs": ["a", odd], "n": 1, "ok": "é",
                             "ref_hex": "78ff", "refs_hex": ["61", "78ff"]}


@pytest.mark.parametrize(("line", "error"), [
    (b"zzzz {new} refs/heads/main",
     "--updates line 2: OLD 'zzzz' is not an object id: expected 40 hex digits (64 in a "
     "SHA-256 repository), all zeros for none (a ref created or deleted)"),
    (b"{old} {new}x refs/heads/main",
     "--updates line 2: NEW '{new}x' is not an object id: expected 40 hex digits"),
    (b"{old} {new} main",
     "--updates line 2: REF 'main' is not a full ref name: expected one starting with "
     "refs/ (refs/heads/main; git resolves what a push names before its hooks run)"),
    (b"{old} {new} refs/",
     "--updates line 2: REF 'refs/' names no ref after refs/: expected a full ref name "
     "(refs/heads/main)"),  # break97 L2: "expected one starting with refs/" of refs/
    # last97 4: names git's receive-pack refuses before its hooks run passed (rc 0)
    (b"{old} {new} refs/heads//main",
     "--updates line 2: REF 'refs/heads//main' is no ref name git hands a hook: an empty "
     "component ('//') (git check-ref-format; receive-pack refuses such a name before its "
     "hooks run)"),
    (b"{old} {new} refs/heads/./main",
     "--updates line 2: REF 'refs/heads/./main' is no ref name git hands a hook: a "
     "component starting with '.' ('.')"),
    (b"{old} {new} refs/heads/../main",
     "--updates line 2: REF 'refs/heads/../main' is no ref name git hands a hook: '..'"),
    (b"{old} {new} refs/heads/main/",
     "--updates line 2: REF 'refs/heads/main/' is no ref name git hands a hook: a '/' at "
     "its end"),
    (b"{old} {new} refs/heads/x.lock",
     "--updates line 2: REF 'refs/heads/x.lock' is no ref name git hands a hook: a "
     "component ending with '.lock' ('x.lock')"),
    (b"{old} {new} refs/heads/a\x1bb",
     "--updates line 2: REF 'refs/heads/a\\x1bb' is no ref name git hands a hook: a "
     "control character (\\x1b)"),
    (b"{old} {new} refs/heads/a@{1}",
     "--updates line 2: REF 'refs/heads/a@{{1}}' is no ref name git hands a hook: '@{{'"),
    (b"{old} {new} refs/heads/caf\xe9:x",
     "--updates line 2: REF 'refs/heads/caf\\xe9:x' is no ref name git hands a hook: a "
     "':'"),
    (b"\x00\xff",
     "--updates line 2: '\\x00\\xff' has 1 field(s); expected 'OLD NEW REF' (two object "
     "ids and a full ref name, as git gives a pre-receive hook)"),
    (b"{old} {new}",
     "--updates line 2: '{old} {new}' has 2 field(s); expected 'OLD NEW REF'"),
    (b"a" * 64 + b" {new} refs/heads/x",
     "--updates line 2: OLD " + "a" * 64 + " is 64 hex digits, a SHA-256 id, while this "
     "repository's ids are SHA-1's (40 hex digits)"),
])
def test_a_line_git_never_writes_is_a_usage_error_naming_it(published, line, error):
    old, new = git(published, "rev-parse", "HEAD~1", "HEAD").split()
    good = f"{old} {new} refs/heads/main\n".encode()
    line = line.replace(b"{old}", old.encode()).replace(b"{new}", new.encode())
    error = error.format(old=old, new=new)
    status, said = updates(published, good + line + b"\r\n" + good)
    assert status == 2, said
    assert "internal error" not in said, said
    assert said.splitlines()[-1].startswith(f"Error: {error}"), said


def test_a_long_garbage_line_is_quoted_cut(published):
    status, said = updates(published, b"\n\n" + b"g" * 5_000_000 + b" x y z\n")
    assert status == 2
    assert said.splitlines()[-1] == ("Error: --updates line 3: '" + "g" * 136 + "'... (5,000,006 "
                                     "characters) has 4 field(s); expected 'OLD NEW REF' (two "
                                     "object ids and a full ref name, as git gives a "
                                     "pre-receive hook)" + PRE_PUSH)


def test_lines_as_git_may_write_them_are_read(published):
    old, new = git(published, "rev-parse", "HEAD~1", "HEAD").split()
    # CRLF, two spaces, a tab, upper-case hex, blank lines: read as the one update they say
    data = f"\n{old.upper()}  {new}\trefs/heads/main\r\n\n".encode()
    status, said = updates(published, data, "--json")
    assert status == 0, said
    assert '"checked": "1 ref update(s)"' in said


def test_a_pre_push_line_as_git_gives_it_is_refused_saying_how_to_give_one(published):
    """last97 4: ``check --help`` showed ``check --updates - --remote "$1"`` for a pre-push
    hook, which git hands ``LOCAL_REF LOCAL_SHA REMOTE_REF REMOTE_SHA``: every push was
    refused as "has 4 field(s)", with a pre-receive-only word."""
    old, new = git(published, "rev-parse", "HEAD~1", "HEAD").split()
    status, said = updates(published, f"refs/heads/main {new} refs/heads/main {old}\n".encode())
    assert status == 2, said
    assert said.splitlines()[-1] == (
        f"Error: --updates line 1: 'refs/heads/main {new} refs/heads/main {old}' has 4 "
        "field(s); expected 'OLD NEW REF' (two object ids and a full ref name, as git gives "
        "a pre-receive hook); git hands a pre-push hook 4 (LOCAL_REF LOCAL_SHA REMOTE_REF "
        "REMOTE_SHA): give each as 'REMOTE_SHA LOCAL_SHA REMOTE_REF', as hooks/pre-push does "
        "(`while read -r _ l r o; do echo \"$o $l $r\"; done | kistore check --updates - "
        "--remote \"$1\"`)"), said


def test_the_help_s_pre_push_hook_runs_as_written(server):
    """The pre-push lines of ``check --help``, written as a hook, pass a clean push of a
    non-UTF-8 branch and stop a push of a ref the gate refuses."""
    bare, clone = server
    text = check.help or ""
    start = text.index("# in a pre-push hook")
    lines = text[start:].splitlines()[1:3]
    assert lines[1].strip() == 'kistore check --updates - --remote "$1"', lines
    hook = clone / ".git" / "hooks" / "pre-push"
    hook.write_text('#!/usr/bin/env bash\nset -euo pipefail\nkistore() { "$KISTORE" '
                    '--store "$(git rev-parse --show-toplevel)" "$@"; }\n'
                    + "\n".join(lines) + "\n")
    commit(clone, "notes.txt")
    done = push(clone, "origin", b"HEAD:refs/heads/" + ODD)
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    assert done.returncode == 0, said
    assert done.stdout.decode().splitlines()[-1] == (
        "ok: 1 ref update(s): 0 errors, 0 warnings, 0 info"), said
    tip = git(clone, "rev-parse", "HEAD").strip()
    done = push(clone, "origin", f"{tip}:refs/replace/{tip}")
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    assert done.returncode != 0, said
    assert "error KI419 replace-ref-pushed" in done.stdout.decode(), said
    assert "remote:" not in said, said  # the clone's hook stopped it, not the server


IDS = ["{old}", "{new}", ZERO, "f" * 40, "zz", "g" * 40, "a" * 64, ""]
REFS = ["refs/heads/main", "refs/heads/x\udcff", "refs/tags/v1", "refs/notes/kistore",
        "refs/replace/{new}", "main", "HEAD", "refs/", ""]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(IDS), st.sampled_from(IDS), st.sampled_from(REFS),
                          st.binary(max_size=3), st.sampled_from([b" ", b"  ", b"\t"])),
                max_size=3))
def test_no_line_is_an_internal_error(published, lines):
    old, new = git(published, "rev-parse", "HEAD~1", "HEAD").split()
    data = b"".join(
        sep.join(f.format(old=old, new=new).encode("utf-8", "surrogateescape")
                 for f in (a, b, ref)) + junk + b"\n"
        for a, b, ref, junk, sep in lines)
    status, said = updates(published, data)
    assert status in (0, 1, 2), said
    assert "internal error" not in said and "Traceback" not in said, said
