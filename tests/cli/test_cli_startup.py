"""Start-up cost of the CLI: `kistore --help` imports no command module and no heavy library.

The group is lazy (click's "lazy group" pattern): `--help` is written from the summaries in
`kistore.cli.SUBCOMMANDS`, and `kistore CMD` imports only CMD's module. These tests check
facts (which modules are imported, what the help says), never a time.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys

import click
import pytest
from click.testing import CliRunner

from kistore.cli import SUBCOMMANDS, main

from ..conftest import commit_all, python_c
from ..sparse import trust_maintainer, withdraw

HEAVY = ("pygit2", "jsonschema", "jsonschema_rs", "cryptography")
COMMAND_MODULES = sorted({f"kistore.cli.{module}" for module, _, _ in SUBCOMMANDS.values()})
# a command module, or a heavy library; not the root group's own private helpers
# (kistore.cli._machine, _context, ...: the group's error handling and ctx.obj)
_COMMAND_MODULE = ("def _command_module(m):\n"
                   "    return m.startswith('kistore.cli.') and \\\n"
                   "        not m.startswith('kistore.cli._')\n")


def _fresh(args: list[str], load_all: bool = False) -> tuple[int, str, list[str]]:
    """Run `kistore ARGS` in a fresh interpreter: exit code, stdout, imported kistore/heavy.

    With ``load_all``, every command is imported first (as an eager group would).
    """
    code = ("import sys\nfrom kistore.cli import main\n" + _COMMAND_MODULE
            + ("import click\nctx = click.Context(main)\n"
               "loaded = [main.get_command(ctx, name) for name in main.list_commands(ctx)]\n"
               if load_all else "") +
            "try:\n    main(sys.argv[1:], prog_name='kistore')\n"
            "except SystemExit as e:\n    code = e.code\n"
            "watched = [m for m in sys.modules if _command_module(m)\n"
            f"           or m.split('.')[0] in {HEAVY!r}]\n"
            "print('\\n@@', code, ' '.join(sorted(watched)))")
    done = python_c(code, *args, env={**os.environ, "COLUMNS": "80"})
    output, _, last = done.stdout.rpartition("\n@@ ")
    exit_code, *modules = last.split()
    return int(exit_code), output, modules


def test_help_imports_no_command_module_nor_pygit2_jsonschema_cryptography():
    exit_code, output, modules = _fresh(["--help"])
    assert exit_code == 0
    assert modules == []
    listed = [line.split()[0] for line in output.split("Commands:\n")[1].splitlines()]
    assert listed == sorted(SUBCOMMANDS)


def test_a_command_imports_only_its_own_module():
    exit_code, output, modules = _fresh(["rank", "--help"])
    assert exit_code == 0
    assert "Usage: kistore rank [OPTIONS] REF" in output
    assert modules == ["kistore.cli.query"]


def test_unknown_command_is_a_usage_error_that_imports_nothing():
    code = ("import sys\nfrom kistore.cli import main\n"
            "try:\n    main(['no-such-command'], prog_name='kistore')\n"
            "except SystemExit as e:\n    print('\\n@@', e.code, "
            "[m for m in sys.modules if m.startswith('kistore.cli.')\n"
            "    and not m.startswith('kistore.cli._')])")
    done = python_c(code)
    assert done.stdout.splitlines()[-1] == "@@ 2 []"
    assert "Error: No such command 'no-such-command'." in done.stderr


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_summary_is_the_commands_own_short_help(name):
    # --help prints the summary in place of the command; it must say what the command says
    # at every width click may cut it to.
    module, attribute, summary = SUBCOMMANDS[name]
    command = getattr(importlib.import_module(f"kistore.cli.{module}"), attribute)
    assert command.name == name
    assert command.short_help is None  # the summary stands for the docstring's first sentence
    for limit in (20, 45, 60, 10_000):
        assert (click.Command(name, help=summary).get_short_help_str(limit)
                == command.get_short_help_str(limit)), limit


def test_every_command_of_every_module_is_listed():
    listed = {}
    for module in COMMAND_MODULES:
        for command in importlib.import_module(module).COMMANDS:
            listed[command.name] = (module.rpartition(".")[2], command)
    assert sorted(listed) == sorted(SUBCOMMANDS)
    for name, (module, command) in listed.items():
        assert SUBCOMMANDS[name][0] == module
        assert getattr(importlib.import_module(f"kistore.cli.{module}"),
                       SUBCOMMANDS[name][1]) is command


def test_lazy_help_equals_the_help_of_the_loaded_commands():
    _, lazy_output, lazy_modules = _fresh(["--help"])
    _, eager_output, eager_modules = _fresh(["--help"], load_all=True)
    assert lazy_modules == [] and eager_modules == COMMAND_MODULES
    assert lazy_output == eager_output


def test_startup_speed_script_stays_runnable(tmp_path):
    """``python -m bench.startup_speed`` runs (one round, no timing asserted)."""
    from bench.startup_speed import main as startup_speed

    from ..conftest import ROOT

    result = CliRunner().invoke(startup_speed, ["-n", "1", "--run", "here", sys.executable,
                                                str(ROOT)])
    assert result.exit_code == 0, result.output
    assert "here: python -c 'import click'" in result.output
    assert "here: kistore --help" in result.output


# What an answer of `rank`, `show`, `cat` or `ls` from a warm index must not load (issue 22:
# a fresh process within 2x of `import click`): the heavy libraries, the layers no answer
# uses, and the modules a read never runs, each imported where it is used instead.
NOT_FOR_ANSWERS = (*HEAVY, "kistore.site", "kistore.export", "kistore.importers",
                   "kistore.check.audit", "kistore.check.gate", "kistore.git.packs",
                   "kistore.git.notes", "kistore.git.quarantine", "kistore.core.restore",
                   "kistore.core.text_fields", "kistore.store._settings",
                   # fresh14 F15: the work-tree trust file against HEAD's, for judging only
                   "kistore.attest.trust_here", "kistore.check._trust_here")


def _answered(store_root, args: list[str]) -> tuple[int, list[str]]:
    """Run `kistore --store ROOT ARGS` as the console script does: exit code, modules of
    :data:`NOT_FOR_ANSWERS` it imported."""
    code = ("import sys\nfrom kistore._entry import run\n"
            "try:\n    run()\nexcept SystemExit as e:\n    code = e.code\n"
            f"cut = {NOT_FOR_ANSWERS!r}\n"
            "loaded = sorted(m for m in sys.modules if m in cut or m.split('.')[0] in cut)\n"
            "print('\\n@@', code, ' '.join(loaded))")
    done = python_c(code, "--store", str(store_root), *args)
    exit_code, *modules = done.stdout.rpartition("\n@@ ")[2].split()
    return int(exit_code), modules


@pytest.mark.parametrize("args", [["rank", "BenchmarkRun/fast"], ["show", "BenchmarkRun/fast"],
                                  ["show", "Workload/"],
                                  ["cat", "BenchmarkRun/slow"], ["ls", "--kind", "BenchmarkRun"]],
                         ids=" ".join)
def test_an_answer_loads_no_schema_library_git_library_nor_other_layer(group, args):
    if args[-1] == "Workload/":  # the group's one workload, by its name
        listed = CliRunner().invoke(main, ["--store", str(group.root), "ls", "--kind", "Workload"])
        args = [*args[:-1], f"Workload/{listed.output.split()[2]}"]
    first, _ = _answered(group.root, args)  # warms the index and the schema marks
    assert first == 0
    exit_code, modules = _answered(group.root, args)
    assert exit_code == 0
    assert modules == []


def test_the_entry_freezes_what_was_loaded_before_the_command_and_all_after_it():
    # the collections while a command imports its modules, and the interpreter's shutdown,
    # walked every loaded module's objects (~5 + ~9 ms of a fresh show; issue 22)
    code = ("import atexit, gc, sys\nimport kistore.cli\nfrom kistore import _entry\n"
            "kept = []\n"
            "def command():\n"
            "    kept.append(gc.get_freeze_count())\n"
            "    kept.append([[i] for i in range(5000)])  # what a command makes and keeps\n"
            "    raise SystemExit(0)\n"
            "kistore.cli.main = command\n"
            "atexit.register(lambda: print(kept[0], gc.get_freeze_count()))\n"
            "_entry.run()\n")
    before, after = map(int, python_c(code).stdout.split())
    assert before > 10_000  # the interpreter's start, click and the command line
    assert after > before + 4_000  # and the 5,000 lists the command left


def test_a_removed_attestation_folder_is_found_through_the_index_cache(group):
    """The warm filter asks the index which runs HEAD holds a folder for: no pygit2.

    A committed attestation folder removed from the work tree is read as HEAD holds it
    (fresh14 F15); which runs have one is the index's ``head_attested`` cache, so the
    filter of a warm answer still imports no git library.
    """
    trust_maintainer(group)
    fast = group.view("HEAD").find_name("BenchmarkRun", "fast")
    path = withdraw(group, fast, as_file=True)
    commit_all(group.root, "withdraw fast")
    store = group
    assert _answered(store.root, ["rank", "BenchmarkRun/ref"])[0] == 0  # warms the index
    shutil.rmtree(store.root / path.rpartition("/")[0])
    code = ("import sys\nfrom kistore.store import Store\nfrom kistore.index import "
            "maybe_attested, open_catalog\nstore = Store(sys.argv[1])\n"
            "catalog = open_catalog(store, None)\nruns = [store.view(None).find_name("
            "'BenchmarkRun', n) for n in ('fast', 'slow', 'ref')]\n"
            "found = maybe_attested(store.root, runs, catalog.annotated, catalog.outside, "
            "catalog.committed)\nprint([str(d) for d in found], 'pygit2' in sys.modules)")
    assert python_c(code, str(store.root)).stdout.split("\n")[-2] == f"['{fast}'] False"
