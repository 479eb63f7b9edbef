"""A ``git clone --no-checkout`` of a store: one clear error naming what works, for every command.

Review 2026-12-02 (F6): ``show``, ``cat``, ``attestations`` and ``cite`` already said the work
tree is not checked out and named the ``--at`` that answers the same; still wrong were
``verify`` (a KI113 and a KI402 per object), ``trust list`` (no keys, exit 0, where a full
clone lists them), ``attest`` (told to use ``--at``, which it has not), and ``rank`` and
``compare`` (the ranking-policy warning printed before the error).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, git
from ..query.test_query_cli import run

NOT_CHECKED_OUT = ("error: the work tree is not checked out (HEAD holds store/, the work tree "
                   "has none): ")
AT = ("answer from the commit with `{asked}`, which gives the same answers (in a blob-less "
      "clone it fetches only the files it reads), or check the files out first with `git "
      "checkout HEAD -- .`\n")
CHECKOUT = "check the files out first with `git checkout HEAD -- .`\n"


@pytest.fixture
def clones(tmp_path, runner) -> tuple[Path, Path, Path]:
    """A store of two runs with a trusted key; a full clone and a ``--no-checkout`` clone of it.

    Returns:
        (the full clone, the clone not checked out, the private key file).
    """
    docs = ManifestKit().group_docs([None, None])
    work = tmp_path / "work"
    Store.init(work)
    add_docs(Store(work), docs)
    key = tmp_path / "k"
    assert run(runner, work, "key", "generate", str(key)).exit_code == 0
    trusted = run(runner, work, "trust", "add", f"{key}.pub", "--role", "rerun")
    assert trusted.exit_code == 0, trusted.output
    git(work, "add", "store/trust")
    git(work, "commit", "-qm", "trust a rerun key")
    git(work, "branch", "-M", "main")
    full, bare = tmp_path / "full", tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(work), str(full))
    git(tmp_path, "clone", "-q", "--no-checkout", str(work), str(bare))
    assert not (bare / "store").exists() and (full / "store").is_dir()
    return full, bare, key


def test_verify_is_one_error_naming_verify_at_the_upstream(runner, clones):
    full, clone, _ = clones
    said = NOT_CHECKED_OUT + AT.format(asked="kistore verify --at origin/main")
    done = run(runner, clone, "verify")
    assert (done.exit_code, done.stdout, done.stderr) == (1, "", said)
    # --json: one JSON document all the same (a script reads `.ok`), the error on stderr too
    done = run(runner, clone, "verify", "--json")
    assert (done.exit_code, done.stderr) == (1, said)
    assert json.loads(done.stdout) == {
        "checked": "store at work tree", "ok": False,
        "counts": {"error": 0, "warning": 0, "info": 0}, "findings": [],
        "errors": [{"message": said.removeprefix("error: ").rstrip("\n"), "file": None,
                    "pointer": None, "line": None, "column": None}]}
    bad = run(runner, full, "verify", "--at", "no-such-rev", "--json")  # any error alike
    assert bad.exit_code == 1 and bad.stderr.startswith("error: ")
    report = json.loads(bad.stdout)
    assert (report["ok"], report["findings"], len(report["errors"])) == (False, [], 1)
    assert bad.stderr == f"error: {report['errors'][0]['message']}\n"
    at = run(runner, clone, "verify", "--at", "origin/main", "--json")
    assert at.exit_code == 0, at.output  # what it names works, and finds what a checkout finds
    checked_out = run(runner, full, "verify", "--json")
    assert json.loads(at.stdout)["counts"] == json.loads(checked_out.stdout)["counts"]


def test_trust_list_says_so_instead_of_listing_no_key(runner, clones):
    full, clone, _ = clones
    listed = run(runner, full, "trust", "list")
    assert listed.exit_code == 0 and " rerun" in listed.stdout  # one key, for rerun
    done = run(runner, clone, "trust", "list")
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr == NOT_CHECKED_OUT + AT.format(
        asked="kistore trust list --at origin/main")
    at = run(runner, clone, "trust", "list", "--at", "origin/main")
    assert (at.exit_code, at.stdout) == (0, listed.stdout)
    exported = run(runner, clone, "trust", "export", "--allowed-signers", "-")
    assert exported.exit_code == 1 and exported.stderr == NOT_CHECKED_OUT + AT.format(
        asked="kistore trust export --allowed-signers FILE --at origin/main")


def test_attest_and_trust_changes_say_to_check_out_not_at(runner, clones, tmp_path):
    _, clone, key = clones
    refs_before = git(clone, "for-each-ref")
    for file in ([], ["--file"]):
        done = run(runner, clone, "attest", "BenchmarkRun/run-1", "--type", "note", "-m", "hi",
                   "--key", str(key), *file)
        assert (done.exit_code, done.stdout) == (1, ""), file
        assert done.stderr == NOT_CHECKED_OUT + (
            "`kistore attest` reads the manifest, what it references and the trust file "
            "from the work tree (and with --file writes there): ") + CHECKOUT, file
    for args in (["add", f"{key}.pub", "--role", "maintainer"], ["revoke", "SHA256:x"]):
        done = run(runner, clone, "trust", *args)
        assert done.exit_code == 1, args
        assert done.stderr == NOT_CHECKED_OUT + (
            f"`kistore trust {args[0]}` changes store/trust/keys.json in the work tree: "
            ) + CHECKOUT, args
    assert not (clone / "store").exists()  # nothing written beside nothing
    assert git(clone, "for-each-ref") == refs_before  # no note either


def test_rank_and_compare_say_it_first_and_alone(runner, clones):
    full, clone, _ = clones
    said = NOT_CHECKED_OUT + AT.format(asked="--at origin/main")
    for args in (["rank", "BenchmarkRun/run-1"], ["compare", "BenchmarkRun/run-1"],
                 ["compare", "BenchmarkRun/run-1", "BenchmarkRun/run-0"]):
        done = run(runner, clone, *args)
        assert (done.exit_code, done.stdout, done.stderr) == (1, "", said), args
        at = run(runner, clone, *args, "--at", "origin/main")
        assert at.exit_code == 0, (args, at.output)
        assert at.stdout == run(runner, full, *args).stdout, args


def test_check_json_is_one_document_when_it_cannot_run(runner, clones, tmp_path):
    """``check --json`` (a range, --updates, --unpushed) reports the error as verify does."""
    full, _, _ = clones
    missing = f"{'0' * 40} {'1' * 40} refs/heads/main\n"  # a new commit that is not there
    not_store = tmp_path / "plain"
    not_store.mkdir()
    git(not_store, "init", "-q")
    cases = [  # (store, arguments, what `checked` names)
        (full, ["no-such-rev..HEAD"], "no-such-rev..HEAD"),
        (full, ["--updates", "-"], "1 ref update(s)"),
        (tmp_path / "nowhere", ["--unpushed", "origin"], "local refs with commits origin lacks"),
        (not_store, ["HEAD..HEAD"], "HEAD..HEAD"),
    ]
    for store, args, checked in cases:
        for fmt in (["--json"], ["--format", "json"]):
            done = runner.invoke(main, ["--store", str(store), "check", *args, *fmt],
                                 input=missing)
            assert done.exit_code == 1 and done.stderr.startswith("error: "), (args, done.output)
            report = json.loads(done.stdout)
            assert report == {
                "checked": checked, "ok": False,
                "counts": {"error": 0, "warning": 0, "info": 0}, "findings": [],
                "errors": report["errors"]}, args
            assert len(report["errors"]) >= 1
            said = done.stderr.splitlines()  # each error on stderr as usual, once
            assert len(said) == len(report["errors"])
            assert all(e["message"] in line for e, line in zip(report["errors"], said, strict=True))
        text = runner.invoke(main, ["--store", str(store), "check", *args],
                             input=missing)
        assert (text.exit_code, text.stdout) == (1, ""), args  # text: stderr only, as before


def test_the_limits_are_the_committed_settings_not_the_defaults(runner, clones, tmp_path):
    # Review 2026-12-02 (second): with the work tree's kistore.toml absent, a clone not
    # checked out used the default limits, so `--at origin/main` (named as giving "the same
    # answers") left out and kept other runs than the checkout and a bare clone.
    full, _, _ = clones
    toml = full / "kistore.toml"
    toml.write_text(toml.read_text().replace("# string-length = 65536", "string-length = 4"))
    git(full, "commit", "-qam", "a lower string-length")
    clone = tmp_path / "clone2"
    git(tmp_path, "clone", "-q", "--no-checkout", str(full), str(clone))
    assert Store(clone).limits() == Store(full).limits() == Store(clone).limits("HEAD")
    assert Store(clone).limits().string_length == 4
    # and the query index is keyed by those bytes (a change to HEAD's file is seen)
    from kistore.index.index import settings_key

    committed = git(clone, "show", "HEAD:kistore.toml").encode()
    assert settings_key(Store(clone)) == \
        "work:" + hashlib.blake2b(committed, digest_size=16).hexdigest()
    ranked = run(runner, clone, "rank", "BenchmarkRun/run-1", "--at", "origin/main")
    checked_out = run(runner, full, "rank", "BenchmarkRun/run-1")
    assert (ranked.exit_code, ranked.stdout, ranked.stderr) == \
        (checked_out.exit_code, checked_out.stdout, checked_out.stderr)
    # the lowered limit is what left them out
    assert "(string-length); `kistore verify` reports KI107" in ranked.stderr


def test_add_import_and_migrate_say_to_check_out(runner, clones, tmp_path):
    # Review 2026-12-02 (second): `add` (without --commit) and `import` wrote into the empty
    # work tree, and a name HEAD gives another manifest was taken by a new digest.
    full, clone, _ = clones
    manifest = tmp_path / "other.json"  # never read: the refusal comes first
    manifest.write_text(run(runner, full, "cat", "BenchmarkRun/run-1").stdout)
    writes = ("writes into the work tree and checks names against it, which lacks every "
              "file HEAD holds: ")
    for args, command in ((["add", "--allow-dangling", str(manifest)], "add"),
                          (["import", "kernelbench", str(tmp_path)], "import"),
                          (["migrate"], "migrate")):
        done = run(runner, clone, *args)
        assert (done.exit_code, done.stdout) == (1, ""), args
        assert done.stderr == NOT_CHECKED_OUT + f"`kistore {command}` {writes}" + CHECKOUT
    assert not (clone / "store").exists()


def test_the_store_refuses_add_import_and_migrate_from_python(clones, tmp_path):
    # Review 2026-12-02 (units60): only the command line refused them; Store.add,
    # run_import and Store.migrate called from Python wrote beside the empty work tree
    # (and took a name HEAD gives another manifest). The store refuses, with the message
    # `kistore` prints, before reading or writing anything.
    from kistore.core.errors import StoreStateError
    from kistore.core.model import Manifest
    from kistore.importers import plan_import, run_import

    full, clone, _ = clones
    writes = ("the work tree is not checked out (HEAD holds store/, the work tree has none): "
              "`kistore {}` writes into the work tree and checks names against it, which "
              "lacks every file HEAD holds: check the files out first with `git checkout "
              "HEAD -- .`")
    other = ManifestKit().implementation("proj-other", name="run-1-impl")
    head = git(clone, "rev-parse", "HEAD")
    store = Store(clone)
    for commit in (False, True):
        with pytest.raises(StoreStateError) as refused:
            store.add([Manifest.from_document(other)], commit=commit)
        assert str(refused.value) == writes.format("add")
        with pytest.raises(StoreStateError) as refused:
            store.migrate(commit=commit)
        assert str(refused.value) == writes.format("migrate")
    empty = tmp_path / "nothing"
    empty.mkdir()
    with pytest.raises(StoreStateError) as refused:
        run_import(store, "kernelbench", plan_import("kernelbench", [str(empty)]))
    assert str(refused.value) == writes.format("import")
    assert sorted(p.name for p in clone.iterdir()) == [".git"]  # nothing written
    assert git(clone, "rev-parse", "HEAD") == head
    # checked out, the same calls work
    assert [r.status for r in Store(full).add([Manifest.from_document(other)])] == ["added"]


# -- review 2026-12-02: machine output when a command cannot run (one helper, every format) --

def test_rank_show_and_compare_print_one_json_error_document(runner, clones):
    _, clone, _ = clones
    said = NOT_CHECKED_OUT + AT.format(asked="--at origin/main")
    error = {"message": said.removeprefix("error: ").rstrip("\n"), "file": None,
             "pointer": None, "line": None, "column": None}
    for args in (["rank", "BenchmarkRun/run-0", "--json"],
                 ["show", "BenchmarkRun/run-0", "--json"],
                 ["compare", "BenchmarkRun/run-0", "--json"]):
        done = run(runner, clone, *args)
        assert (done.exit_code, done.stderr) == (1, said), args
        assert json.loads(done.stdout) == {"ok": False, "errors": [error]}, args
    # JSON Lines: the same document, as one line
    done = run(runner, clone, "rank", "BenchmarkRun/run-0", "--format", "jsonl")
    assert done.exit_code == 1
    assert done.stdout == json.dumps({"ok": False, "errors": [error]},
                                     separators=(",", ":")) + "\n"
    # text: nothing on stdout, as before
    done = run(runner, clone, "rank", "BenchmarkRun/run-0")
    assert (done.exit_code, done.stdout, done.stderr) == (1, "", said)


def test_verify_format_github_prints_one_error_command(runner, clones):
    _, clone, _ = clones
    said = NOT_CHECKED_OUT + AT.format(asked="kistore verify --at origin/main")
    done = run(runner, clone, "verify", "--format", "github")
    assert (done.exit_code, done.stderr) == (1, said)
    assert done.stdout == ("::error title=kistore::" + said.removeprefix("error: ")
                           .rstrip("\n")) + "\n"


def test_check_of_a_malformed_range_reports_the_usage_error_in_every_format(runner, clones):
    full, _, _ = clones
    message = ("Invalid value for BASE..HEAD: 'foo' is not a range; write BASE..HEAD, e.g. "
               "origin/main..HEAD")
    done = run(runner, full, "check", "foo", "--json")
    assert done.exit_code == 2  # still a usage error, said on stderr as click says it
    assert done.stderr.endswith(f"Error: {message}\n")
    assert json.loads(done.stdout) == {
        "checked": "foo", "ok": False, "counts": {"error": 0, "warning": 0, "info": 0},
        "findings": [], "errors": [{"message": message, "file": None, "pointer": None,
                                    "line": None, "column": None}]}
    done = run(runner, full, "check", "foo", "--format", "github")
    assert (done.exit_code, done.stdout) == (2, f"::error title=kistore::{message}\n")
    done = run(runner, full, "check", "foo")
    assert (done.exit_code, done.stdout) == (2, "")


def test_ls_says_it_first_and_alone_as_rank_does(runner, clones):
    # Review r60 (F13): `ls`, `ls --json` and `ls --format jsonl` answered an empty store
    # with exit 0 (and a warning), so `kistore ls --json | jq length` read 0 and success.
    full, clone, _ = clones
    said = NOT_CHECKED_OUT + AT.format(asked="--at origin/main")
    error = {"ok": False, "errors": [{"message": said.removeprefix("error: ").rstrip("\n"),
                                      "file": None, "pointer": None, "line": None, "column": None}]}
    printed = {"--json": json.dumps(error, indent=2) + "\n",  # words60's error document
               "jsonl": json.dumps(error, separators=(",", ":")) + "\n"}
    for args in (["ls"], ["ls", "--json"], ["ls", "--format", "jsonl"],
                 ["ls", "--kind", "BenchmarkRun"], ["ls", "--workload", "Workload/nope"]):
        done = run(runner, clone, *args)
        out = next((printed[a] for a in args if a in printed), "")
        assert (done.exit_code, done.stderr) == (1, said), args
        assert json.loads(done.stdout) == error if out else done.stdout == "", args
        if "--workload" not in args:  # what it names works, and answers as a checkout
            at = run(runner, clone, *args, "--at", "origin/main")
            assert at.exit_code == 0, (args, at.output)
            assert at.stdout == run(runner, full, *args).stdout != "", args


def test_add_import_and_migrate_in_a_bare_repository_name_themselves_and_the_clone(
        runner, clones, tmp_path):
    # New-user review 2026-12-02: in a bare repository `import` said "this repository has
    # no work tree; `add` needs one" (after reading its input), `add` and `migrate` the
    # same of themselves, and none said what to do.
    full, _, _ = clones
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(full), str(bare))
    records = tmp_path / "records.json"
    records.write_text("not read: refused before its input is")
    for command, args in (("add", [str(records)]), ("add", ["--commit", str(records)]),
                          ("import", ["sol-execbench", str(records)]),
                          ("import", ["--commit", "sol-execbench", str(records)]),
                          ("migrate", []), ("migrate", ["--commit"])):
        done = run(runner, bare, command, *args)
        assert (done.exit_code, done.stdout) == (1, ""), (command, args, done.output)
        assert done.stderr == (
            "error: this repository has no work tree (a bare repository): "
            f"`kistore {command}` writes the store's files into a work tree (and commits "
            f"them from there with --commit); clone it with one (`git clone {bare} DIR`), "
            f"run `kistore {command}` in the clone, and push\n"), (command, args)
    assert git(bare, "log", "--format=%s", "-1").strip() == "trust a rerun key"
