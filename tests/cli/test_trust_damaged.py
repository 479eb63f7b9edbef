"""A damaged ``store/trust/keys.json`` in the work tree is said by every query (reviewer r92 F14).

A merge conflict or an edit cut off in the trust file made every key untrusted, so
``rank``/``compare``/``show`` silently put back every run a maintainer withdrew (stderr
empty). As a bad kistore.toml is: every query now warns on stderr, naming the file, why
it is invalid, what that does to the answers and what to do; ``--at HEAD`` reads the
committed file.

Since 2026-12-07 (fresh14 F15) a work tree whose ``HEAD`` holds a valid trust file is
judged by ``HEAD``'s file (and the work tree's revocations) instead, said after the
answer (tests/cli/test_trust_in_work_tree.py); with none in ``HEAD`` the invalid work-tree
file still trusts no key, as before.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from kistore.attest import signing
from kistore.core.layout import TRUST_FILE

from ..prs import KISTORE
from ..sparse import MAINTAINER
from .test_notes_only_grow import index  # noqa: F401 (a fixture)


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The kistore CLI in a process of its own (a warning is said once a process)."""
    return subprocess.run([KISTORE, "--store", str(root), *args], capture_output=True,
                          text=True, check=False)


def fast_rank_of(root: Path, *at: str) -> tuple[int | None, str]:
    """``rank slow --all``'s rank of ``fast`` (withdrawn: None) and the command's stderr."""
    done = run(root, "rank", "BenchmarkRun/slow", "--all", "--json", *at)
    assert done.returncode == 0, done.stderr
    return {r["name"]: r["rank"] for r in json.loads(done.stdout)}["fast"], done.stderr


DAMAGES = [b'{"keys": [\n', b"<<<<<<< HEAD\n{}\n=======\n"]
READABLE = [b'{"keys": [{}]}\n', b'{"keys": [], "extra": 1}\n']
"""Invalid files that still read as JSON: every revocation in them is read (since
2026-12-07, fresh17 F5, :data:`DAMAGES` in a work tree whose HEAD holds a valid file are
refused: test_fresh17_f5_a_revocation_the_work_tree_cannot_read_refuses_the_answers)."""


@pytest.mark.parametrize("damage", READABLE)
def test_r92_f14_a_damaged_trust_file_is_said_by_every_query(
        index, damage):  # noqa: F811 (index: a fixture)
    """Since 2026-12-07 (fresh14 F15) judged by HEAD's file, which is valid: said so."""
    root = Path(index.root)
    assert fast_rank_of(root) == (None, "")  # the maintainer withdrew fast
    (root / TRUST_FILE).write_bytes(damage)

    rank, stderr = fast_rank_of(root)

    assert rank is None  # HEAD's file is judged by: the withdrawal is applied ...
    said = re.compile(  # ... and said so, once, after the answer (before: stderr empty)
        rf"^warning: {re.escape(TRUST_FILE)} in the work tree is invalid \({re.escape(TRUST_FILE)}"
        rf"[^\n]*\): these answers judge attestations by HEAD's {re.escape(TRUST_FILE)} \(1 "
        r"key\(s\)\) and the work tree's revocations, as no commit may delete it, leave it "
        r"invalid, or remove or narrow a key's entry \(KI410; `kistore verify` reports it\); "
        rf"restore it with `git checkout HEAD -- {re.escape(TRUST_FILE)}`\n\Z", re.M)  # last
    assert said.search(stderr), stderr
    for args in (("compare", "BenchmarkRun/slow", "BenchmarkRun/fast"),
                 ("show", "BenchmarkRun/fast")):
        done = run(root, *args)
        assert done.returncode == 0, done.stderr
        assert said.search(done.stderr), (args, done.stderr)
    assert fast_rank_of(root, "--at", "HEAD") == (None, "")  # the committed file: as before


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_trust_file_head_lacks_trusts_no_key(
        index, damage):  # noqa: F811 (index: a fixture)
    """HEAD holds no trust file to judge by: the invalid work-tree file trusts no key, as before."""
    root = Path(index.root)
    subprocess.run(["git", "rm", "-q", TRUST_FILE], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "no trust"], cwd=root,
                   check=True)
    (root / TRUST_FILE).parent.mkdir(parents=True, exist_ok=True)
    (root / TRUST_FILE).write_bytes(damage)

    rank, stderr = fast_rank_of(root)

    assert rank is not None  # no key is trusted: the withdrawal is not applied ...
    said = re.compile(  # ... and said so, once (before: stderr empty)
        rf"^warning: {re.escape(TRUST_FILE)} in the work tree is invalid \({re.escape(TRUST_FILE)}"
        r"[^\n]*\): no key is trusted until it is fixed, so no maintainer's withdrawal is "
        r"applied and no rerun verifies a run in these answers; fix the file \(`kistore "
        rf"verify` reports it, KI309; `git checkout -- {re.escape(TRUST_FILE)}` undoes an "
        r"uncommitted edit\), or ask with `--at HEAD`\n\Z")
    assert said.search(stderr), stderr


def revoked_in(root: Path, how: str) -> bytes:
    """HEAD's trust file with the maintainer's ``revokedAt`` between conflict markers or cut off.

    ``conflict``: two branches edited the key's entry, one revoking it (fresh17 F5);
    ``cut``: the file ends right after the ``revokedAt`` line.
    """
    entry = json.loads((root / TRUST_FILE).read_bytes())["keys"][0]
    entry.pop("comment", None)
    head = "{\n  \"keys\": [\n    {\n" + "".join(
        f"      {json.dumps(k)}: {json.dumps(v)},\n" for k, v in entry.items())
    revoked = '      "revokedAt": "2026-02-01T00:00:00Z",\n'
    if how == "cut":
        return (head + revoked).encode()
    return (head + '<<<<<<< HEAD\n      "comment": "v2"\n=======\n' + revoked
            + '      "comment": "v1"\n>>>>>>> br2\n    }\n  ]\n}\n').encode()


UNREAD = {
    "conflict": "holds merge-conflict markers (`<<<<<<<`): a merge conflict, which `git "
                "status` shows as unmerged",
    "cut": "does not read as JSON (an edit cut off?)"}
FIX = {
    "conflict": f"resolve the conflict (keep every `revokedAt`), then `git add {TRUST_FILE}`, "
                "or `git merge --abort`",
    "cut": f"finish the edit, or restore it with `git checkout HEAD -- {TRUST_FILE}` (then "
           "make a pending `kistore trust add` or `revoke` again)"}


@pytest.mark.parametrize("how", ["conflict", "cut"])
def test_fresh17_f5_a_revocation_the_work_tree_cannot_read_refuses_the_answers(
        index, how, tmp_path):  # noqa: F811 (index: a fixture)
    """A revocation between conflict markers or cut off was lost: answers are refused."""
    root = Path(index.root)
    (root / TRUST_FILE).write_bytes(revoked_in(root, how))
    problem = re.escape(f"({TRUST_FILE}:") + r"[^\n]*\)"
    said = (rf"^error: {re.escape(TRUST_FILE)}: the work tree's file {re.escape(UNREAD[how])} "
            rf"{problem}: a revocation written in it cannot be read, so nothing is judged by "
            rf"the work tree's trust; {re.escape(FIX[how])}")

    for args in (("rank", "BenchmarkRun/slow", "--all"), ("show", "BenchmarkRun/fast"),
                 ("attestations", "BenchmarkRun/fast")):
        done = run(root, *args)
        # on BASE dbfd98fe: exit 0, the maintainer's withdrawal applied (its revocation
        # lost) and "judge attestations by HEAD's ... and the work tree's revocations"
        assert (done.returncode, done.stdout) == (1, ""), (args, done.stderr)
        assert re.fullmatch(said + r"; or ask with `--at HEAD`\n", done.stderr), done.stderr
    assert fast_rank_of(root, "--at", "HEAD") == (None, "")  # the committed file: as before

    key = tmp_path / "maintainer"
    key.write_bytes(signing.private_key_bytes(MAINTAINER))
    notes_before = subprocess.run(["git", "rev-parse", "refs/notes/kistore"], cwd=root,
                                  capture_output=True, text=True, check=True).stdout
    done = run(root, "attest", "BenchmarkRun/slow", "--type", "withdrawal", "-m", "x",
               "--key", str(key))
    assert done.returncode == 1, done.stderr  # on BASE: written, exit 0
    assert re.fullmatch(said + r"; nothing was written\n", done.stderr), done.stderr
    assert subprocess.run(["git", "rev-parse", "refs/notes/kistore"], cwd=root,
                          capture_output=True, text=True, check=True).stdout == notes_before


WRITER = {
    "conflict": "holds merge-conflict markers (`<<<<<<<`): a merge conflict, which `git status` "
                "shows as unmerged; resolve it (keep every `revokedAt`), then `git add "
                f"{TRUST_FILE}`, or `git merge --abort`",
    "cut": f"does not read as JSON (an edit cut off?) ({TRUST_FILE}:8:1:/keys/0: expected a "
           "string object key: the text is cut off inside an object, complete it): a "
           "revocation written in it cannot be read; finish the edit, or restore it with `git "
           f"checkout HEAD -- {TRUST_FILE}` (then make a pending `kistore trust add` or "
           "`revoke` again)"}
"""How ``trust add``/``revoke`` say a file that does not read as JSON, and the way on."""


@pytest.mark.parametrize("how", ["conflict", "cut"])
def test_fresh17_f6_trust_revoke_over_a_file_that_does_not_read_as_json_says_so(
        index, tmp_path, how):  # noqa: F811 (index: a fixture)
    """`trust revoke`/`add` said "write the key in double quotes" of a conflict marker (F6),
    and gave a file cut off the parser's message alone (trust06 left it: trust07)."""
    root = Path(index.root)
    damaged = revoked_in(root, how)
    (root / TRUST_FILE).write_bytes(damaged)
    pub = tmp_path / "maintainer.pub"
    pub.write_text(signing.public_key_line(MAINTAINER.public_key()) + "\n")
    for args in (("revoke", str(pub)), ("add", str(pub), "--role", "rerun")):
        done = run(root, "trust", *args)
        assert (done.returncode, done.stdout) == (1, ""), done.stderr
        assert done.stderr == (
            f"error: {TRUST_FILE}: the work tree's trust file {WRITER[how]}, then run `kistore "
            f"trust {args[0]}` again; nothing was written\n")
        assert (root / TRUST_FILE).read_bytes() == damaged


@pytest.mark.parametrize("how", ["conflict", "cut"])
def test_trust07_trust_list_and_export_refuse_a_file_that_does_not_read_as_json(
        index, how):  # noqa: F811 (index: a fixture)
    """They listed HEAD's entries, saying the work tree's revocations were applied (trust06)."""
    root = Path(index.root)
    committed = run(root, "trust", "list", "--at", "HEAD")
    exported = run(root, "trust", "export", "--allowed-signers", "-", "--at", "HEAD")
    (root / TRUST_FILE).write_bytes(revoked_in(root, how))
    problem = re.escape(f"({TRUST_FILE}:") + r"[^\n]*\)"
    said = (rf"^error: {re.escape(TRUST_FILE)}: the work tree's file {re.escape(UNREAD[how])} "
            rf"{problem}: a revocation written in it cannot be read, so nothing is judged by "
            rf"the work tree's trust; {re.escape(FIX[how])}; or ask with `--at HEAD`\n")

    for args in (("list",), ("export", "--allowed-signers", "-")):
        done = run(root, "trust", *args)
        # before: exit 0, HEAD's entries, "and the work tree's revocations" (not read)
        assert (done.returncode, done.stdout) == (1, ""), (args, done.stderr)
        assert re.fullmatch(said, done.stderr), done.stderr
    assert run(root, "trust", "list", "--at", "HEAD").stdout == committed.stdout
    assert run(root, "trust", "export", "--allowed-signers", "-", "--at",
               "HEAD").stdout == exported.stdout

