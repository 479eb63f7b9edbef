"""Every "Example:" of the query commands' --help runs as written, in the store that
`kistore --help`'s own example builds (the published record, from the clone's examples/)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import SUBCOMMANDS, main

from ..conftest import EXAMPLES

RUNNABLE = ["cat", "compare", "digest", "ls", "rank", "show"]
"""Commands whose examples read the store only. Others write (add, attest, trust ...),
need a remote (notes, cite's permalink) or a source's files."""


def examples(command) -> list[str]:
    """The example lines of a command's --help (``kistore ...``), as printed."""
    text = command.help or ""
    lines = text.split("Example:", 1)[1].splitlines() if "Example:" in text else []
    return [line.strip() for line in lines if line.strip().startswith("kistore ")]


@pytest.fixture(scope="module")
def my_index(tmp_path_factory):
    return build_my_index(tmp_path_factory.mktemp("examples"))


def build_my_index(top):
    """`kistore --help`'s example as written, from the top of a clone named ``kistore``.

    Its init made the store inside the clone (``my-index``), which README warns against:
    the site and exports README writes next were refused there (fresh01 F3). It is now
    README's first line, a store beside the clone.
    """
    clone = top / "kistore"
    clone.mkdir()
    (clone / "examples").symlink_to(EXAMPLES)
    init, add = examples(main)[:2]
    assert init == "kistore init ../my-index && cd ../my-index"
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert f"\n    {init}     # a store beside the clone, not in it\n" in readme
    subprocess.run([sys.executable, "-m", "kistore", "init", "../my-index"], cwd=clone,
                   check=True, capture_output=True)
    store = top / "my-index"
    assert add.startswith("kistore add --commit ../kistore/examples/*.bundle.json")
    subprocess.run(f"{shlex.quote(sys.executable)} -m {add}", shell=True, cwd=store,
                   check=True, capture_output=True)
    return store


def test_every_command_help_has_an_example_to_run():
    for name in RUNNABLE:
        assert examples(__import__(f"kistore.cli.{SUBCOMMANDS[name][0]}",
                                   fromlist=["_"]).__dict__[SUBCOMMANDS[name][1]]), name


@pytest.mark.parametrize("name", RUNNABLE)
def test_the_examples_run_as_written(runner, my_index, name, monkeypatch):
    """`compare 384a96d0 5f1c2e77` (no such object) and `ls --workload Workload/rmsnorm`
    (no such workload) exited 1 for a new user who typed them."""
    module, attribute, _ = SUBCOMMANDS[name]
    command = getattr(__import__(f"kistore.cli.{module}", fromlist=["_"]), attribute)
    monkeypatch.chdir(my_index)
    for line in examples(command):
        words = shlex.split(line.split("|")[0].split(">")[0])[1:]
        result = runner.invoke(main, words)
        assert result.exit_code == 0, (line, result.output)
        assert result.stdout, line
    assert os.getcwd() == str(my_index)


def test_the_signing_examples_run_as_written_in_turn(runner, tmp_path, monkeypatch):
    """key generate -> attest -> trust add: the examples named three different key files
    (~/.kistore/signing-key, ~/.kistore/k and k), and attest's first example was cut by a
    line continuation into one line with a run of spaces."""
    from kistore.cli.attest import attest, key, trust

    store = build_my_index(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(store)
    (store / "measured.json").write_text(
        '{"outcome": "reproduced", "environmentDigest": "sha256:f304afb2fedab4bbeadf8ac36a990ff517'
        'ab6e824dfe5a3ee0fe46259ff5e39f", "timing": {"latencyNs": {"mean": 13634148}, '
        '"primaryStatistic": "mean"}}')
    lines = examples(key)[:1] + examples(attest) + examples(trust.commands["add"])[:1]
    assert len(lines) == 5
    for line in lines:
        assert "  " not in line, line
        words = [os.path.expanduser(w) for w in shlex.split(line)[1:]]
        result = runner.invoke(main, words)
        assert result.exit_code == 0, (line, result.output)


def test_trust_add_of_a_key_file_that_is_not_there_says_so(runner, store_path):
    """It was read as a key line: "error: -: not an Ed25519 public key"."""
    result = runner.invoke(main, ["--store", str(store_path), "trust", "add", "ci-rerun.pub",
                                  "--role", "rerun"])
    assert result.exit_code == 1
    assert result.stderr == (
        "error: ci-rerun.pub: no such key file, and not an OpenSSH public-key line "
        "('ssh-ed25519 AAAA...'); give the .pub file `kistore key generate PATH` wrote, the "
        "line it printed, or - to read key lines from standard input\n")
