"""Every command that takes ``--json`` prints one JSON document on stdout for every error.

New-user review 2026-12-02 (F7): only ls/rank/show/verify/check printed ``{"ok": false,
"errors": [...]}`` on an error; ``add --json``, ``import --json``, ``export --json``,
``attestations --json`` and ``digest --json`` printed nothing on stdout (exit 1), and a
usage error (``ls --kind Bogus --json``, exit 2) only click's usage text. The group says
every error so (:func:`kistore.cli.machine_report`): the tests below walk every command
of the CLI, so a command added later is held to it too.
"""

from __future__ import annotations

import json

import click
import pytest

from kistore.cli import main
from kistore.cli._machine import github_error

ERROR_KEYS = {"message", "file", "pointer", "line", "column"}


def json_commands() -> list[list[str]]:
    """Every command of the CLI (subcommands of groups too) that takes ``--json``."""
    found = []

    def walk(command: click.Command, ctx: click.Context, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                walk(sub, click.Context(sub, parent=ctx, info_name=name), [*path, name])
        elif any(isinstance(p, click.Option) and "--json" in p.opts for p in command.params):
            found.append(path)

    walk(main, click.Context(main, info_name="kistore"), [])
    return found


COMMANDS = json_commands()


def test_the_walk_finds_the_json_commands():
    named = {" ".join(c) for c in COMMANDS}
    assert {"add", "import", "export", "attestations", "digest", "ls", "rank", "show",
            "verify", "check", "site build", "key generate", "trust list"} <= named


def required_arguments(path: list[str]) -> int:
    command: click.Command = main
    ctx = click.Context(main, info_name="kistore")
    for name in path:
        assert isinstance(command, click.Group)
        sub = command.get_command(ctx, name)
        assert sub is not None
        command, ctx = sub, click.Context(sub, parent=ctx, info_name=name)
    return sum(isinstance(p, click.Argument) and p.required for p in command.params)


def error_document(result) -> dict:
    """The one JSON document on stdout, checked for the shape every error document has."""
    doc = json.loads(result.stdout)
    assert doc["ok"] is False and doc["errors"], result.stdout
    for error in doc["errors"]:
        assert set(error) == ERROR_KEYS, error
        assert isinstance(error["message"], str) and error["message"]
    return doc


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_json_command_prints_a_json_document_for_a_usage_error(runner, path):
    result = runner.invoke(main, [*path, "--json", "--no-such-option"])
    assert result.exit_code == 2, result.output
    (error,) = error_document(result)["errors"]
    assert error == {"message": "No such option '--no-such-option'.", "file": None,
                     "pointer": None, "line": None, "column": None}
    assert "Error: No such option '--no-such-option'." in result.stderr  # click's usage text


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_json_command_prints_a_json_document_when_it_fails(runner, tmp_path, path):
    (tmp_path / "a-file").write_text("")
    missing = str(tmp_path / "a-file" / "nosuch")  # no file, and no directory to write in
    args = ["--store", str(tmp_path / "no-store"), *path,
            *[missing] * required_arguments(path), "--json"]
    result = runner.invoke(main, args)
    assert result.exit_code in (1, 2), result.output
    doc = error_document(result)
    if result.exit_code == 1:  # the same problems stderr says, one "error:" line each
        said = [line[len("error: "):] for line in result.stderr.splitlines()
                if line.startswith("error: ")]
        assert len(said) == len(doc["errors"])
        for line, error in zip(said, doc["errors"], strict=True):
            assert line.endswith(error["message"]) and (
                error["file"] is None or line.startswith(error["file"]))


def test_the_reviewers_commands_print_their_errors_as_json(runner, store, tmp_path):
    root = str(store.root)
    bad = tmp_path / "bad1.json"
    bad.write_text('{"a":1}')
    missing = str(tmp_path / "nonexistent")  # under tmp_path: a /nonexistent made by hand broke it
    cases = [
        (["add", "--json", missing], 1, {
            "message": "no such file or directory; check the path (give - to read standard "
                       "input)", "file": missing, "pointer": None, "line": None, "column": None}),
        (["add", "--json", str(bad)], 1, {
            "message": "a manifest's kind must be one of Workload, BenchmarkProtocol, "
                       "ExecutionEnvironment, Implementation, BenchmarkRun; it has none",
            "file": str(bad), "pointer": "/kind", "line": None, "column": None}),
        (["import", "--json", "kernelbench", missing], 1, {
            "message": "no such file or directory", "file": missing, "pointer": None,
            "line": None, "column": None}),
        (["export", str(tmp_path / "e"), "--json", "--at", "nosuch"], 1, {
            "message": "no commit named 'nosuch' in this repository: give a branch, a tag or "
                       "a commit id (`git log --oneline` lists commits)",
            "file": None, "pointer": None, "line": None, "column": None}),
        (["digest", "--json", missing], 1, {
            "message": "no such file or directory; check the path (give - to read standard "
                       "input)", "file": missing, "pointer": None, "line": None, "column": None}),
        (["ls", "--kind", "Bogus", "--json", "--at", "HEAD"], 2, {
            "message": "Invalid value for '--kind': 'Bogus' is not one of 'Workload', "
                       "'BenchmarkProtocol', 'ExecutionEnvironment', 'Implementation', "
                       "'BenchmarkRun'.", "file": None, "pointer": None, "line": None,
            "column": None}),
    ]
    for args, code, error in cases:
        result = runner.invoke(main, ["--store", root, *args])
        assert result.exit_code == code, (args, result.output)
        assert error_document(result)["errors"] == [error], args
        assert error["message"] in result.stderr, args  # the human message stays
    attestations = runner.invoke(main, ["--store", root, "attestations", "nosuch", "--json"])
    assert attestations.exit_code == 1
    (error,) = error_document(attestations)["errors"]
    assert error["message"].startswith("'nosuch' is not a reference: give a digest")


def test_a_parse_error_says_its_column_as_text_does(runner, store, tmp_path):
    """Minified and JSON Lines input is all on line 1: without the column the JSON error
    lost the position text gives as ``FILE:1:COL:`` (reviewer r88 F13)."""
    bad = tmp_path / "nan.json"
    bad.write_text('{"kind": "Workload", "spec": {"x": NaN}}')  # N is character 36
    result = runner.invoke(main, ["--store", str(store.root), "add", "--json", str(bad)])
    assert result.exit_code == 1
    (error,) = error_document(result)["errors"]
    assert (error["file"], error["line"], error["column"]) == (str(bad), 1, 36)
    assert f"{bad}:1:36:" in result.stderr
    assert (github_error("NaN", "m.json", 1, 36)
            == "::error file=m.json,line=1,col=36,title=kistore::NaN")


def test_json_lines_and_github_formats_get_their_own_form(runner, store):
    root = str(store.root)
    jsonl = runner.invoke(main, ["--store", root, "ls", "--kind", "Bogus", "--format", "jsonl"])
    assert jsonl.exit_code == 2
    assert len(jsonl.stdout.splitlines()) == 1
    assert json.loads(jsonl.stdout)["errors"][0]["message"].startswith(
        "Invalid value for '--kind'")
    github = runner.invoke(main, ["--store", root, "check", "--format", "github", "--bogus"])
    assert github.exit_code == 2
    assert github.stdout == "::error title=kistore::No such option '--bogus'.\n"


def test_an_error_a_command_reports_itself_is_printed_once(runner, store):
    result = runner.invoke(main, ["--store", str(store.root), "verify", "--json", "--at",
                                  "nosuch"])
    assert result.exit_code == 1
    doc = error_document(result)  # one document: json.loads refuses two
    assert doc["checked"] == "store at nosuch" and doc["findings"] == []
    assert len(doc["errors"]) == 1


def test_an_internal_error_is_a_json_document_too(runner, store, monkeypatch):
    from kistore.store import Store

    def broken(self, *args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(Store, "view", broken)
    result = runner.invoke(main, ["--store", str(store.root), "ls", "--json", "--at", "HEAD"])
    assert result.exit_code == 1, result.output
    (error,) = error_document(result)["errors"]
    assert error["message"].startswith(
        "internal error: this is a bug in kistore, not a problem with your input "
        "(ZeroDivisionError: a bug)")
    assert f"error: {error['message']}" in result.stderr


def test_an_option_value_spelled_dash_dash_json_asks_for_no_json(runner, store):
    result = runner.invoke(main, ["--store", str(store.root), "ls", "--workload", "--json",
                                  "--bogus"])
    assert result.exit_code == 2
    assert result.stdout == ""  # the workload named "--json": text output, click's usage text
    assert "No such option '--bogus'" in result.stderr


@pytest.mark.parametrize("file_format", ["jsonl", "csv", "parquet"])
def test_export_file_format_asks_for_no_json(runner, store, tmp_path, file_format):
    """r79 F7: ``export --format jsonl`` (the *file* format) printed the error as JSON on
    stdout, as if ``--json`` were given; csv and parquet printed nothing."""
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("")
    args = ["--store", str(store.root), "export", str(full), "--format", file_format]
    result = runner.invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert result.stderr == f"error: {full}: exists and is not empty; choose a new directory\n"
    asked = runner.invoke(main, [*args, "--json"])  # --json still asks for the document
    assert asked.exit_code == 1
    assert error_document(asked)["errors"] == [{
        "message": "exists and is not empty; choose a new directory", "file": str(full),
        "pointer": None, "line": None, "column": None}]
