"""No traceback, anywhere: every command and subcommand, with hostile arguments and files.

Issue 18: `kistore ls` with a non-UTF-8 file name under store/ raised UnicodeEncodeError; a
schema `$ref` that cannot be resolved offline and a missing rfc3339-validator gave
tracebacks. The commands are enumerated from the click group itself, so a command added
later is run here too. Each run fails the test on a traceback, on an exception click did not
turn into an exit, on kistore's own "internal error" line (a bug the CLI caught) and on an
exit status other than 0, 1, 2.
"""

from __future__ import annotations

import itertools
import json
import os
import socketserver
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kistore.cli import INTERNAL_ERROR, main
from kistore.core import schema

from ..conftest import BUNDLE, PUBLISHED, ROOT, fixed_key, git


def leaf_commands(group: click.Group = main, path: tuple[str, ...] = ()) -> list:
    """Every runnable command under ``group``: ``(("trust", "add"), command)``, hidden too."""
    ctx = click.Context(group)
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            found += leaf_commands(command, (*path, name))
        else:
            found.append(((*path, name), command))
    return found


COMMANDS = leaf_commands()
NAMES = [" ".join(path) for path, _ in COMMANDS]

NOT_UTF8 = os.fsdecode(b"bad-\xff\xfe")
"""A file name that is not UTF-8, as Python hands it over (surrogate escapes)."""

HOSTILE = [
    "", " ", "-", "--", "\n", "\x1b[31mred", NOT_UTF8, "9" * 5000, "x" * 70_000,
    "sha256:" + "g" * 64, "sha256:" + "A" * 64, "0" * 8, "deadbeef", "KIND/", "BenchmarkRun/",
    "BenchmarkRun/../../etc/passwd", "Workload/%00", "../../../../etc/passwd", "/dev/null",
    "HEAD~999", "HEAD..", "..HEAD", "a..b..c", "@{-1}", ":/nothing", "refs/notes/kistore",
    "2026-13-45", "-1", "1e309", "😀", "ssh-ed25519 AAAA", "ssh-rsa AAAAB3NzaC1yc2E=",
]
"""Argument and option values no command expects."""


@pytest.fixture(scope="module")
def hostile_world(tmp_path_factory):
    """A store holding the published record, plus hostile files beside it and inside it."""
    from kistore.attest import signing
    from kistore.store import Store
    from kistore.store.inputs import read_inputs

    top = tmp_path_factory.mktemp("hostile")
    store = Store.init(top / "store")
    store.add([x.manifest for x in read_inputs([str(BUNDLE)])], allow_dangling=True,
              commit=True)
    files = top / "files"
    files.mkdir()
    samples = {
        "empty.json": b"", "null.json": b"null", "garbage.json": b"\x00\xff\xfe garbage",
        "deep.json": b"[" * 100_000, "number.json": b'{"a": ' + b"9" * 5000 + b"}",
        "latin1.json": '{"kind": "caf\xe9"}'.encode("latin-1"), "bom.json": b"\xef\xbb\xbf{}",
        "lines.jsonl": b'{"a":1}\n\xff\n[' + b"1," * 20_000 + b"1]\n",
        "bundle.json": json.dumps({"x": {"kind": "BenchmarkRun"}}).encode(),
        "key.pub": b"ssh-rsa AAAAB3NzaC1yc2E= a@b\n\xff\n",
        "private.key": b"-----BEGIN OPENSSH PRIVATE KEY-----\ngarbage\n",
        os.fsencode(NOT_UTF8) + b".json": b"{",
    }
    for name, data in samples.items():
        (files / os.fsdecode(name)).write_bytes(data)
    (files / "dir.json").mkdir()
    key = files / "good.key"
    key.write_bytes(signing.private_key_bytes(fixed_key(9)))
    # damage inside the store: names outside the layout, not UTF-8, and a garbage metadata file
    root = top / "store" / "store"
    shard = root / "objects" / "sha256" / NOT_UTF8
    shard.mkdir(parents=True)
    (shard / "x.json").write_bytes(b"{}")
    (root / "metadata" / "sha256" / "38" / (NOT_UTF8 + ".json")).write_bytes(b"\xff")
    run = PUBLISHED["run"].removeprefix("sha256:")
    (root / "attestations" / "sha256" / run[:2] / run[2:]).mkdir(parents=True)
    (root / "attestations" / "sha256" / run[:2] / run[2:] / (NOT_UTF8 + ".json")
     ).write_bytes(b"not a bundle")
    git(top / "store", "remote", "add", "origin", str(top / "nowhere.git"))
    return top


PLAUSIBLE = {
    "ref": "BenchmarkRun/sol-submission-20464", "a": "BenchmarkRun/sol-submission-20464",
    "b": PUBLISHED["run"][:15], "files": str(BUNDLE), "range_": "HEAD..HEAD",
    "source": "kernelbench", "remote": "origin", "keyid": "SHA256:" + "A" * 43,
}
"""A sensible value for each argument, by its name (others get "x"), so one argument at a
time can be hostile while the command gets past the others."""


def hostile_files(world: Path) -> list[str]:
    return sorted(str(p) for p in (world / "files").iterdir())


def arguments(command: click.Command, world: Path) -> list[list[str]]:
    """The argument lists to run ``command`` with: each argument and option hostile in turn."""
    args = [p for p in command.params if isinstance(p, click.Argument)]
    options = [p for p in command.params if isinstance(p, click.Option)
               and not p.is_flag and p.name not in ("help",)]
    flags = [p.opts[0] for p in command.params if isinstance(p, click.Option) and p.is_flag
             and p.opts[0] != "--help"]

    def plausible(param: click.Parameter) -> str:
        if isinstance(param.type, click.Choice):
            return str(param.type.choices[0])
        if param.name in ("path",):
            return str(world / "out" / "made")
        if param.name in ("key_arg", "key_path"):
            return str(world / "files" / "good.key")
        return PLAUSIBLE.get(param.name or "", "x")

    def required(but: click.Option | None = None) -> list[str]:
        """Every required option with a plausible value (but the one made hostile)."""
        return [word for o in options if o.required and o is not but
                for word in (o.opts[0], plausible(o))]

    values = HOSTILE + hostile_files(world)
    runs: list[list[str]] = []
    base = [plausible(a) for a in args]
    for i, value in itertools.product(range(len(args)), values):
        runs.append([*base[:i], value, *base[i + 1:], *required()])
    for option, value in itertools.product(options, values[::3]):
        runs.append([*base, *required(option), option.opts[0], value])
    runs.append([*base, *required(), *flags])  # every flag at once
    return runs


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=NAMES)
def test_every_command_with_hostile_arguments_never_shows_a_traceback(hostile_world, path,
                                                                       monkeypatch):
    command = dict(COMMANDS)[path]
    # `site serve` with plausible arguments serves until stopped: here it returns at once.
    monkeypatch.setattr(socketserver.BaseServer, "serve_forever", lambda self, *a, **k: None)
    monkeypatch.chdir(hostile_world / "files")
    monkeypatch.setenv("HOME", str(hostile_world / "home"))
    monkeypatch.setenv("KISTORE_KEY_PASSPHRASE", "wrong")
    runner = CliRunner()
    store = str(hostile_world / "store")
    stdin = b"\xff\xfe not json\n" + b"0" * 10 + b"\n"
    failures = []
    for args in arguments(command, hostile_world):
        result = runner.invoke(main, ["--store", store, *path, *args], input=stdin)
        out = result.stdout_bytes.decode("utf-8", "replace") + \
            result.stderr_bytes.decode("utf-8", "replace")
        escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
        if escaped or "Traceback" in out or INTERNAL_ERROR in out or \
                result.exit_code not in (0, 1, 2):
            failures.append((args[:4], result.exit_code, repr(result.exception), out[-600:]))
    assert not failures, f"{len(failures)} hostile runs of kistore {' '.join(path)}: " \
                         f"{failures[:3]}"


def test_the_hostile_test_sees_every_command_including_nested_ones():
    assert {"add", "verify", "trust add", "trust revoke", "notes sync", "key generate"} <= \
        set(NAMES)
    assert len(NAMES) == len(set(NAMES)) >= 22


def test_a_non_utf8_file_name_under_store_is_the_layout_finding_not_a_crash(hostile_world):
    runner = CliRunner()
    store = str(hostile_world / "store")
    for args in (["ls"], ["rank", PUBLISHED["run"][:19]], ["show", PUBLISHED["run"][:19]]):
        result = runner.invoke(main, ["--store", store, *args])
        assert result.exit_code == 0, (args, result.output)
        assert "sha256:384a96d0" in result.stdout
    result = runner.invoke(main, ["--store", store, "verify"])
    assert result.exit_code == 1
    # the bytes that are not UTF-8 are shown escaped: printed raw they raised an error
    assert "store/objects/sha256/bad-\\xff\\xfe/x.json: error KI110 path-outside-layout" in \
        result.stdout
    as_json = runner.invoke(main, ["--store", store, "verify", "--json"])
    assert as_json.exit_code == 1
    files = {f.get("file") for f in json.loads(as_json.stdout)["findings"]}
    assert f"store/objects/sha256/{NOT_UTF8}/x.json" in files  # \udcff escapes, as JSON allows


ESC_NAME = "e\x1b[31mRED\x1b]0;pwned\x07"
"""A file name with terminal escape sequences: colour, and a window-title change."""
ESC_SHOWN = "e\\x1b[31mRED\\x1b]0;pwned\\x07"


def test_control_characters_in_a_file_name_reach_the_terminal_escaped(tmp_path):
    # Issue 18: a file name with ESC sequences under store/ reached the terminal raw in a
    # KI110 finding (verify, check, --format github) and in import's "ignored" notes.
    from kistore.store import Store
    from kistore.store.inputs import read_inputs

    store = Store.init(tmp_path / "s")
    store.add([x.manifest for x in read_inputs([str(BUNDLE)])], allow_dangling=True,
              commit=True)
    (tmp_path / "s" / "store" / "objects" / "sha256" / f"{ESC_NAME}.json").write_bytes(b"{}")
    git(tmp_path / "s", "add", "-A")
    git(tmp_path / "s", "commit", "-q", "--no-verify", "-m", "a hostile name")
    runner = CliRunner()
    for args in (["verify"], ["verify", "--format", "github"], ["check", "HEAD~1..HEAD"],
                 ["verify", "--at", "HEAD"]):
        result = runner.invoke(main, ["--store", str(tmp_path / "s"), *args])
        assert result.exit_code == 1, (args, result.output)
        assert "\x1b" not in result.output and "\x07" not in result.output, args
        assert f"store/objects/sha256/{ESC_SHOWN}.json" in result.output, args
        assert "KI110 path-outside-layout" in result.output
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / f"{ESC_NAME}.txt").write_text("not a timing file")
    result = runner.invoke(main, ["--store", str(tmp_path / "s"), "import", "kernelbench",
                                  str(folder)])
    assert result.exit_code == 1
    assert "\x1b" not in result.output
    assert f"{ESC_SHOWN}.txt: not an import format of kernelbench (ignored)" in result.stderr


@pytest.fixture
def fresh_schemas():
    """Forget every cached schema and validator before and after (a test breaks them)."""
    def forget():
        for cached in (schema._schema_dir, schema.load_schema, schema._validator,
                       schema._fast_validator):
            cached.cache_clear()
    forget()
    yield
    forget()


def test_an_unresolvable_schema_ref_names_the_ref_and_exits_2(tmp_path, fresh_schemas,
                                                               monkeypatch):
    import shutil

    broken = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas", broken)
    text = (broken / "BenchmarkRun.json").read_text()
    (broken / "BenchmarkRun.json").write_text(
        text.replace('"common.json#/$defs/dateTime"', '"common.json#/$defs/when"'))
    monkeypatch.setattr(schema, "_schema_dir", lambda: broken)
    result = CliRunner().invoke(main, ["digest", str(BUNDLE)])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {broken / 'BenchmarkRun.json'}:/properties/spec/properties/observedAt/$ref: "
        "$ref 'common.json#/$defs/when' cannot be resolved offline: kistore's schema files "
        "are damaged or incomplete; reinstall kistore (`pip install --force-reinstall "
        "kistore`)\n")


def test_a_missing_rfc3339_validator_fails_closed_with_a_message(tmp_path, fresh_schemas,
                                                                  monkeypatch):
    monkeypatch.setitem(sys.modules, "rfc3339_validator", None)  # import raises ImportError
    run = json.loads(BUNDLE.read_text())["run"]
    run["spec"]["observedAt"] = "2026-07-10T06:41:58+02:00"  # not the plain UTC form
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    result = CliRunner().invoke(main, ["digest", str(path)])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "error: the Python package rfc3339-validator is not installed, so `format: date-time` "
        "(observedAt, validFrom ...) cannot be checked and nothing is validated; install it "
        "(`pip install rfc3339-validator`), it is one of kistore's dependencies\n")


def test_an_unexpected_exception_is_one_line_that_says_it_is_a_bug(monkeypatch):
    from kistore.store import inputs

    def broken(paths, limits=None):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(inputs, "read_inputs", broken)
    result = CliRunner().invoke(main, ["digest", str(BUNDLE)])
    assert (result.exit_code, result.stderr) == (1, (
        f"error: {INTERNAL_ERROR} (ZeroDivisionError: division by zero); please report it "
        "with the command and what `kistore --debug ...` prints\n"))
    debug = CliRunner().invoke(main, ["--debug", "digest", str(BUNDLE)])
    assert isinstance(debug.exception, ZeroDivisionError)  # --debug: the traceback


def test_a_newline_in_a_file_name_never_splits_file_line_col(tmp_path):
    # A path with a newline printed raw made one error two lines, the second starting with
    # what looked like another FILE:LINE:COL (a CI annotation parser would take it).
    from kistore.store import Store

    store = Store.init(tmp_path / "s")
    bad = tmp_path / "a\nb.json"
    bad.write_bytes(b'{"kind": }')
    runner = CliRunner()
    added = runner.invoke(main, ["--store", str(store.root), "add", str(bad)])
    assert added.exit_code == 1, added.output
    said = [line for line in added.stderr.splitlines() if "a\\nb.json" in line]
    assert len(said) == 1, added.stderr
    assert said[0].startswith(f"error: {tmp_path}/a\\nb.json:1:10:"), added.stderr
    assert not any(line.startswith("b.json") for line in added.stderr.splitlines())
    (store.root / "store" / "objects" / "sha256" / "x\ny.json").write_bytes(b"{}")
    verified = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert verified.exit_code == 1
    line = next(x for x in verified.output.splitlines() if "KI110" in x)
    assert line.startswith("store/objects/sha256/x\\ny.json: error KI110"), verified.output


def test_a_ctrl_c_python_wrapped_while_making_a_class_is_an_interrupt_not_a_bug(monkeypatch):
    # Python 3.11 wraps what __set_name__ raises in RuntimeError: a SIGINT landing in a
    # dataclass definition, as a command lazily imported it, said "internal error", exit 1
    from kistore.store import inputs

    class Field:
        def __set_name__(self, owner, name):
            raise KeyboardInterrupt

    def interrupted(paths, limits=None):
        type("Settings", (), {"parse_error": Field()})

    monkeypatch.setattr(inputs, "read_inputs", interrupted)
    result = CliRunner().invoke(main, ["digest", str(BUNDLE)])
    assert (result.exit_code, result.stderr) == (130, "interrupted\n")
    assert "Error calling __set_name__" in str(  # so it is: the wrapper reached the command
        CliRunner().invoke(main, ["--debug", "digest", str(BUNDLE)]).exception)
