"""``kistore reindex --check``: the kept index compared with a fresh build, row by row."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import rfc8785

from kistore.cli import main
from kistore.index import _database as database
from kistore.index import _rows as rows
from kistore.index import freshness
from kistore.index.names import _row
from kistore.store import Store

from ..conftest import BUNDLE, DATA, git, requires_data

DOCS = json.loads(BUNDLE.read_text())


def digest_of(doc: dict) -> str:
    """The manifest's digest, computed here: SHA-256 of RFC 8785 bytes (rfc8785 package)."""
    body = {k: doc[k] for k in ("apiVersion", "kind", "spec")}
    return "sha256:" + hashlib.sha256(rfc8785.dumps(body)).hexdigest()


RUN = digest_of(DOCS["run"])
ENV = digest_of(DOCS["environment"])
RUN_NAME = f"BenchmarkRun/{DOCS['run']['metadata']['name']}"
PRODUCT = DOCS["environment"]["spec"]["hardware"]["product"]


def run(runner, root: Path, *args: str):
    return runner.invoke(main, ["--store", str(root), *args])


def check(runner, root: Path, *args: str):
    database.disconnect()  # as a fresh process: no connection of an earlier command kept
    return run(runner, root, "reindex", "--check", *args)


def kept(root: Path) -> sqlite3.Connection:
    database.disconnect()
    return sqlite3.connect(root / ".git" / "kistore" / "index.sqlite", isolation_level=None)


def tampered(runner, root: Path, sql: str, params: tuple) -> str:
    """Run ``sql`` on the kept index, then the check; return its first difference line."""
    with kept(root) as conn:
        conn.execute(sql, params)
    result = check(runner, root)
    assert result.exit_code == 1, result.output
    return result.stdout.splitlines()[1]


def follow(runner, root: Path) -> None:
    """What brings a kept index in step with git: a query, and a lookup by name."""
    assert run(runner, root, "ls").exit_code == 0
    assert run(runner, root, "show", RUN_NAME).exit_code in (0, 1)  # 1: no such name here


def added(runner, root: Path, *args: str) -> Path:
    result = run(runner, root, "add", "--allow-dangling", *args, str(BUNDLE))
    assert result.exit_code == 0, result.output
    return root


def test_digests_computed_here_are_the_published_ones():
    assert (RUN, ENV) == ("sha256:384a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6",
                          "sha256:f304afb2fedab4bbeadf8ac36a990ff517ab6e824dfe5a3ee0fe46259ff5e39f")


def test_an_index_after_add_agrees(runner, store_path):
    added(runner, store_path)
    result = check(runner, store_path)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"the index {store_path}/.git/kistore/index.sqlite agrees "
                                    "with the store: 0 query rows of tree ")
    assert "3 names (work tree)" in result.stdout
    assert not list((store_path / ".git" / "kistore").glob("check-*"))  # the build is gone


def test_an_index_after_add_commit_agrees_without_a_query(runner, store_path):
    added(runner, store_path, "--commit")
    result = check(runner, store_path, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    head = git(store_path, "rev-parse", "HEAD^{tree}").strip()
    assert found["agrees"] is True and found["tree"] == found["indexTree"] == head
    assert found["counts"] == {"records": 3, "skipped": 0, "names": 3, "commit names": 0}
    assert found["differences"] == []


@requires_data
def test_an_index_after_import_agrees(runner, store_path):
    board = DATA / "sol-execbench/leaderboard/kernel-121/leaderboard-snapshot.json"
    result = run(runner, store_path, "import", "--commit", "sol-execbench", str(board))
    assert result.exit_code == 0, result.output
    result = check(runner, store_path, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["counts"]["records"] == 33  # 15 runs, 15 impls, 3 more


def test_a_deleted_query_row_is_named(runner, store_path):
    added(runner, store_path, "--commit")
    with kept(store_path) as conn:
        conn.execute("DELETE FROM records WHERE id = (SELECT id FROM digests WHERE digest = ?)",
                     (bytes.fromhex(RUN[7:]),))
    result = check(runner, store_path)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].endswith("differs from the store in 1 row(s):")
    assert lines[1].startswith(f"records {RUN} {RUN_NAME}: missing from the index; the store "
                               'gives {"comparison_key":')
    assert lines[2].startswith("run `kistore reindex` to rebuild it from the store")
    assert run(runner, store_path, "reindex").exit_code == 0
    assert check(runner, store_path).exit_code == 0


def test_an_edited_query_row_is_named_sealed_or_not(runner, store_path):
    added(runner, store_path, "--commit")
    with kept(store_path) as conn:
        conn.execute("UPDATE records SET hardware = 'NVIDIA H200' WHERE id = "
                     "(SELECT id FROM digests WHERE digest = ?)", (bytes.fromhex(RUN[7:]),))
    result = check(runner, store_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[1] == (
        f"records {RUN} {RUN_NAME}: the index's row cannot be trusted: "
        '"it does not match its listing seal"')
    # the same edit with both seals recomputed, as someone who read kistore's code would
    with kept(store_path) as conn:
        row = conn.execute(f"{rows.SELECT} WHERE r.id = {rows.DIGEST_ID}",
                           (bytes.fromhex(RUN[7:]),)).fetchone()
        values = row[:12]
        conn.execute("UPDATE records SET seal = ?, lseal = ? WHERE id = "
                     "(SELECT id FROM digests WHERE digest = ?)",
                     (rows.record_seal(values), rows._list_seal(values), bytes.fromhex(RUN[7:])))
    result = check(runner, store_path, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["differences"] == [{
        "table": "records", "digest": RUN, "name": RUN_NAME, "field": "hardware",
        "index": '"NVIDIA H200"', "store": json.dumps(PRODUCT), "stale": False}]
    assert PRODUCT != "NVIDIA H200"


def test_extra_rows_are_named(runner, store_path, monkeypatch):
    monkeypatch.setattr(freshness, "RACY_NS", 0)  # a sync writes the names' summary
    added(runner, store_path, "--commit")
    follow(runner, store_path)  # the summary answers the next sync: nothing reads the rows
    ghost = hashlib.sha256(b"no such manifest").hexdigest()
    with kept(store_path) as conn:
        conn.execute("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     _row("work", ghost, "1", "2", "Workload", "ghost"))
        values = (f"sha256:{ghost}", "store/objects/sha256/x", "made up")
        conn.execute("INSERT INTO skipped VALUES (?, ?, ?, ?)", (*values, database.seal(values)))
    result = check(runner, store_path)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[1:3] == [
        f"names (work) sha256:{ghost} Workload/ghost: in the index, not in the store (a fresh "
        'build): "Workload/ghost"',
        f"skipped sha256:{ghost} store/objects/sha256/x: in the index, not in the store (a "
        'fresh build): {"path":"store/objects/sha256/x","problem":"made up"}']


def test_an_extra_name_row_is_stale_until_the_summary_answers(runner, store_path,
                                                              monkeypatch):
    """A row in a shard no key covers is listed by the next sync the summary does not
    answer (fresh15 F6): stale after an add, which drops the summary; behind a summary that
    answers, nothing reads it again: a difference, not stale."""
    monkeypatch.setattr(freshness, "RACY_NS", 0)  # a sync writes the names' summary
    added(runner, store_path, "--commit")
    ghost = hashlib.sha256(b"no such manifest").hexdigest()
    assert ghost[:2] not in {RUN[7:9], ENV[7:9]}  # a shard with no directory
    line = (f"names (work) sha256:{ghost} Workload/ghost: in the index, not in the store (a "
            'fresh build): "Workload/ghost"')
    insert = ("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
              _row("work", ghost, "1", "2", "Workload", "ghost"))
    with kept(store_path) as conn:
        conn.execute(*insert)
    result = check(runner, store_path)
    assert (result.exit_code, result.stdout.splitlines()[1]) == (1, f"{line} (stale)")
    follow(runner, store_path)  # the sync drops the row and writes the summary
    assert check(runner, store_path).exit_code == 0
    with kept(store_path) as conn:
        conn.execute(*insert)
    result = check(runner, store_path)
    assert (result.exit_code, result.stdout.splitlines()[1]) == (1, line)


def test_an_edited_name_row_is_named(runner, store_path):
    added(runner, store_path)
    assert tampered(runner, store_path, "UPDATE names SET name = 'renamed' WHERE digest = ?",
                    (ENV[7:],)) == (
        f"names (work) {ENV} ExecutionEnvironment/renamed: the index's row cannot be trusted: "
        '"does not match its seal"')


def test_a_stale_index_after_reset_hard_is_named_until_a_query(runner, store_path):
    added(runner, store_path, "--commit")
    git(store_path, "reset", "-q", "--hard", "HEAD~1")  # the index still describes the add
    result = check(runner, store_path)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert f"records {RUN} {RUN_NAME}: in the index, not in the store (a fresh build): " \
        '{"comparison_key":' in "\n".join(lines)
    assert all(line.endswith("(stale)") for line in lines[1:-1]) and len(lines) == 2 + 6
    head = git(store_path, "rev-parse", "HEAD^{tree}").strip()
    assert lines[-1] == (
        "the index is behind git (its query rows describe tree "
        f"{git(store_path, 'rev-parse', 'HEAD@{1}^{tree}').strip()}, HEAD's is {head}: any "
        "query (`kistore ls`) updates them; a store directory changed since its names were "
        "read: the next query or lookup by name (`kistore ls`, `kistore show KIND/NAME`, "
        "`kistore add`) reads them again), or run `kistore reindex`")
    result = run(runner, store_path, "ls")  # lists nothing: the query rows and names follow
    assert (result.exit_code, result.stdout) == (0, "")
    assert check(runner, store_path).exit_code == 0


def test_checkout_of_another_branch_and_pull_keep_it_in_step(runner, store_path, tmp_path):
    git(store_path, "checkout", "-q", "-b", "other")
    added(runner, store_path, "--commit")
    assert check(runner, store_path).exit_code == 0
    git(store_path, "checkout", "-q", "main")
    follow(runner, store_path)
    result = check(runner, store_path)
    assert result.exit_code == 0, result.output
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(store_path), str(clone))
    follow(runner, clone)
    git(store_path, "merge", "-q", "--ff-only", "other")
    git(clone, "pull", "-q", "--ff-only")
    follow(runner, clone)
    result = check(runner, clone, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["counts"]["records"] == 3


def test_a_bare_repository_is_checked_at_head(runner, store_path, tmp_path):
    added(runner, store_path, "--commit")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(store_path), str(bare))
    assert run(runner, bare, "reindex").exit_code == 0
    result = check(runner, bare)
    assert result.exit_code == 0, result.output
    assert "3 names (HEAD)" in result.stdout


def test_the_commit_scope_is_checked_against_its_trees(runner, store_path):
    added(runner, store_path, "--commit")
    # what a lookup by name at a commit does in a store without store/names/ (pre-migrate)
    assert len(Store(store_path).view("HEAD").names()) == 3
    result = check(runner, store_path, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["counts"]["commit names"] == 3
    assert tampered(runner, store_path, "DELETE FROM names WHERE scope = 'commit' AND "
                    "digest = ?", (RUN[7:],)) == (
        f"names (commit) {RUN} {RUN_NAME}: missing from the index; the store gives "
        f'"{RUN_NAME}"')


def test_no_index_yet_no_store_and_a_bad_revision_exit_2(runner, store_path, tmp_path):
    result = check(runner, store_path)
    assert result.exit_code == 2
    assert result.stderr == (f"error: {store_path}/.git/kistore/index.sqlite: there is no index "
                             "to check yet; any query (`kistore ls`) or `kistore reindex` "
                             "builds it\n")
    assert not (store_path / ".git" / "kistore").exists()
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    result = check(runner, nowhere)
    assert result.exit_code == 2 and result.stderr.startswith("error: ")
    assert "Traceback" not in result.output
    added(runner, store_path)
    result = check(runner, store_path, "--at", "no-such-rev")
    assert result.exit_code == 2 and "no-such-rev" in result.stderr
    assert "Traceback" not in result.output


def test_a_file_that_is_not_an_index_differs(runner, store_path):
    added(runner, store_path)
    database.disconnect()
    (store_path / ".git" / "kistore" / "index.sqlite").write_bytes(b"not sqlite" * 100)
    result = check(runner, store_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[1].startswith(
        f"index {store_path}/.git/kistore/index.sqlite: file: the index holds \"not an index: ")


def test_rows_made_under_other_limits_are_stale_until_a_query(runner, store_path):
    added(runner, store_path, "--commit")
    settings = store_path / "kistore.toml"
    settings.write_text(settings.read_text().replace("[limits]", "[limits]\nstring-length = 5",
                                                     1))
    result = check(runner, store_path, "--json")
    assert result.exit_code == 1
    found = json.loads(result.stdout)
    assert found["stale"] is True and found["tree"] == found["indexTree"]
    assert {(d["table"], d["digest"], d["field"]) for d in found["differences"]} == {
        *(("records", d, "row") for d in (RUN, ENV, digest_of(DOCS["protocol"]))),
        *(("skipped", d, "row") for d in (RUN, ENV, digest_of(DOCS["protocol"])))}
    assert check(runner, store_path).stdout.splitlines()[-1] == (
        "the index is behind git (its query rows were made under other [limits] of "
        "kistore.toml: any query (`kistore ls`) reads them again), or run `kistore reindex`")
    assert run(runner, store_path, "ls").exit_code == 0
    assert check(runner, store_path).exit_code == 0


def test_an_index_grown_by_two_adds_agrees_though_its_dictionary_differs(runner, store_path,
                                                                         tmp_path):
    """Rows compressed with another dictionary than a fresh build's are decoded, not
    compared as bytes: the first add's manifest chose the kept index's dictionary."""
    first = tmp_path / "protocol.json"
    first.write_text(json.dumps(DOCS["protocol"]))
    assert run(runner, store_path, "add", "--commit", str(first)).exit_code == 0
    added(runner, store_path, "--commit")
    with kept(store_path) as conn:
        before = conn.execute("SELECT bytes FROM dictionary").fetchone()[0]
    result = check(runner, store_path, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["counts"]["records"] == 3
    assert run(runner, store_path, "reindex").exit_code == 0
    with kept(store_path) as conn:
        assert conn.execute("SELECT bytes FROM dictionary").fetchone()[0] != before
    with kept(store_path) as conn:  # and a forged row is still told apart from the others
        conn.execute("UPDATE digests SET digest = ?, seal = ? WHERE digest = ?",
                     (b"\1" * 32, database.seal((999, b"\1" * 32)), bytes.fromhex(ENV[7:])))
    result = check(runner, store_path)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    env_name = f"ExecutionEnvironment/{DOCS['environment']['metadata']['name']}"
    assert lines[1] == (f"records sha256:{'01' * 32} {env_name}: the index's row cannot be "
                        'trusted: "its listing digest differs from its digest"')
    assert lines[2].startswith(f"records {RUN} {RUN_NAME}: the index's row cannot be trusted: "
                               '"a row that does not match its seal: ')  # it names the env
    assert lines[3].startswith(f"records {ENV} {env_name}: missing from the index; the store "
                               f'gives {{"hardware":"{PRODUCT}"')


def test_a_git_dir_it_cannot_write_is_said_and_exits_2(runner, store_path, monkeypatch):
    """A read-only .git (as root, a chmod does not stop writes: the refusal is simulated)."""
    from kistore.index import agree

    added(runner, store_path)
    top = store_path / ".git" / "kistore"

    def refuse(prefix, dir):
        raise PermissionError(13, "Permission denied", str(Path(dir) / f"{prefix}x"))

    monkeypatch.setattr(agree.tempfile, "mkdtemp", refuse)
    result = check(runner, store_path)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (  # after the progress bar's label
        f"error: {top}/check-x: cannot check the index here ([Errno 13] Permission denied: "
        f"'{top}/check-x'); the fresh build is written under .git/kistore/ and deleted after: "
        "run it where .git is writable")


def test_a_directory_at_the_index_path_is_named_by_reindex_and_check(runner, store_path):
    """review 2026-12-02, F11: "internal error" from reindex; --check advised a query."""
    added(runner, store_path)
    database.disconnect()
    path = store_path / ".git" / "kistore" / "index.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.mkdir()
    result = run(runner, store_path, "reindex")
    assert result.exit_code == 1, result.output
    assert "internal error" not in result.output
    assert result.stderr.splitlines()[-1] == (
        f"error: {path}: the index file is a directory, which kistore does not open or "
        f"replace; the index is derived (deleting it loses nothing): remove it (`rm -r "
        f"{path}`) and run `kistore reindex`; nothing was left half-written")
    result = check(runner, store_path)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {path}: the index file is a directory, which kistore does not open or "
        f"replace; the index is derived (deleting it loses nothing): remove it (`rm -r "
        f"{path}`) and run `kistore reindex`\n")
    database.disconnect()
    assert run(runner, store_path, "ls").exit_code == 0  # answered by reading the store
    assert path.is_dir()
    path.rmdir()
    assert run(runner, store_path, "reindex").exit_code == 0
    assert check(runner, store_path).exit_code == 0


def test_a_link_at_the_index_file_or_directory_is_not_written_through(runner, store_path,
                                                                     tmp_path):
    """review 2026-12-02, F24: a query created the index at the link's target, outside .git."""
    added(runner, store_path)
    database.disconnect()
    directory = store_path / ".git" / "kistore"
    path = directory / "index.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    target = tmp_path / "outside"
    target.mkdir()
    path.symlink_to(target / "created.sqlite")
    said = (f"the index file is a symbolic link, which kistore does not write through; the "
            f"index is derived (deleting it loses nothing): remove the link (`rm {path}`) and "
            "run `kistore reindex`")
    assert run(runner, store_path, "ls").exit_code == 0  # answered by reading the store
    database.disconnect()
    result = run(runner, store_path, "reindex")
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[-1] == (
        f"error: {path}: {said}; nothing was left half-written")
    result = check(runner, store_path)
    assert result.exit_code == 2
    assert result.stderr == f"error: {path}: {said}\n"
    assert sorted(target.iterdir()) == []  # nothing made at the link's target
    assert path.is_symlink()
    path.unlink()
    # the directory a link: its target gets no index, no lock file
    moved = tmp_path / "moved-kistore"
    directory.rename(moved)
    directory.symlink_to(moved)
    before = sorted(p.name for p in moved.iterdir())
    database.disconnect()
    assert run(runner, store_path, "ls").exit_code == 0
    database.disconnect()
    result = run(runner, store_path, "reindex")
    assert result.exit_code == 1, result.output
    assert f"error: {directory}: the index directory is a symbolic link" in result.stderr
    assert sorted(p.name for p in moved.iterdir()) == before
    directory.unlink()
    database.disconnect()
    assert run(runner, store_path, "reindex").exit_code == 0
    assert path.is_file() and not path.is_symlink()


def test_json_errors_are_one_json_document(runner, store_path):
    """review 2026-12-02, F12: --check --json printed nothing on stdout for any error."""
    path = store_path / ".git" / "kistore" / "index.sqlite"
    result = check(runner, store_path, "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {"ok": False, "errors": [{
        "message": "there is no index to check yet; any query (`kistore ls`) or `kistore "
                   "reindex` builds it", "file": str(path), "pointer": None, "line": None,
        "column": None}]}
    assert result.stderr.startswith(f"error: {path}: there is no index to check yet")
    added(runner, store_path)
    result = check(runner, store_path, "--json", "--at", "no-such-rev")
    assert result.exit_code == 2
    (error,) = json.loads(result.stdout)["errors"]
    assert error["message"].startswith("no commit named 'no-such-rev' in this repository")
    assert error["message"] in result.stderr


def test_a_git_dir_it_cannot_write_is_a_json_document_too(runner, store_path, monkeypatch):
    # Lazy: the module whose temporary directory is refused.
    from kistore.index import agree

    added(runner, store_path)

    def refuse(prefix, dir):
        raise PermissionError(13, "Permission denied", str(dir))

    monkeypatch.setattr(agree.tempfile, "mkdtemp", refuse)
    result = check(runner, store_path, "--json")
    assert result.exit_code == 2
    (error,) = json.loads(result.stdout)["errors"]
    assert error["file"] == str(store_path / ".git" / "kistore")
    assert error["message"].startswith("cannot check the index here ([Errno 13] Permission")
    assert result.stderr.splitlines()[-1] == f"error: {error['file']}: {error['message']}"


def test_a_damaged_index_is_a_difference_that_says_to_reindex(runner, store_path):
    # r75 finding 13: a flipped byte in a name (text that is not UTF-8) exited 2 with
    # "cannot check the index here ...: run it where .git is writable"
    added(runner, store_path, "--commit")
    follow(runner, store_path)
    with kept(store_path) as conn:
        conn.execute("UPDATE names SET name = CAST(X'73ff6c' AS TEXT)")
    path = f"{store_path}/.git/kistore/index.sqlite"
    result = check(runner, store_path)
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[1:] == [
        f"index {path}: file: the index holds \"damaged: its rows cannot be read (Could not "
        "decode to UTF-8 column 'name' with text 's\ufffdl')\", the store gives "
        "\"a kistore-index-10 index\"",
        f"the index file is damaged: run `kistore reindex` to rebuild it from the store "
        f"(deleting {path} loses nothing)"]
    assert "writable" not in result.output
    assert run(runner, store_path, "reindex").exit_code == 0
    assert check(runner, store_path).exit_code == 0


def test_names_whose_directories_a_stash_took_are_stale_until_a_lookup(runner, store_path):
    """fresh15 F6: an add's names kept with no shard row, their directories gone (`git stash
    -u`): the next sync lists those shards, so they are stale, never "a bug in kistore"."""
    added(runner, store_path)
    assert run(runner, store_path, "ls").exit_code == 0  # the query rows: HEAD's
    with kept(store_path) as conn:
        conn.execute("DELETE FROM name_shards")  # as an add left shards not in step
    for top in ("objects", "metadata", "names"):
        shutil.rmtree(store_path / "store" / top)
    result = check(runner, store_path)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 2 + 3 and all(line.endswith("(stale)") for line in lines[1:-1])
    assert f"names (work) {RUN} {RUN_NAME}: in the index, not in the store (a fresh build): " \
        f'"{RUN_NAME}" (stale)' in lines
    assert lines[-1] == (
        "the index is behind git (a store directory changed since its names were read: the "
        "next query or lookup by name (`kistore ls`, `kistore show KIND/NAME`, `kistore "
        "add`) reads them again), or run `kistore reindex`")
    follow(runner, store_path)
    assert check(runner, store_path).exit_code == 0
