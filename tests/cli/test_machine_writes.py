"""Every command says whether it writes (kistore.cli._machine.writes), where it is written.

An ``OSError`` that stops a command that writes the store, an export or a site says
"nothing was left half-written"; one that writes nothing does not (review r85 F21). The
commands that write nothing were a hand list of names beside the commands (tidy88): a
new command could be left out of it unseen.
"""

from __future__ import annotations

import click
import pytest

from kistore.cli import main
from kistore.cli._machine import WRITES, os_error_said, writes_nothing


def _leaves(command: click.Command, path: tuple[str, ...] = ()):
    context = click.Context(main)
    if isinstance(command, click.Group):
        for name in command.list_commands(context):
            yield from _leaves(command.get_command(context, name), (*path, name))
    else:
        yield " ".join(path), command


def test_every_command_is_marked_as_writing_or_not():
    leaves = dict(_leaves(main))
    assert len(leaves) >= 29 and "site serve" in leaves
    unmarked = [name for name, command in leaves.items()
                if not isinstance(getattr(command, WRITES, None), bool)]
    assert unmarked == []  # mark each with @writes(True) or @writes(False), outermost


def test_the_commands_that_write_nothing_are_those_of_the_list_they_replace():
    quiet = {name for name, command in _leaves(main) if getattr(command, WRITES) is False}
    assert quiet == {"attestations", "cat", "cite", "compare", "digest", "ls", "rank", "show",
                     "site serve", "site verify"}


@pytest.mark.parametrize(("args", "nothing"), [
    (["rank", "--at", "HEAD", "BenchmarkRun/x"], True),
    (["site", "serve", "out", "--port", "8000"], True),
    (["site", "build", "out"], False),
    (["add", "x.json"], False),
    (["no-such-command"], False),  # unknown: taken to write
    ([], False),
    (None, False),
])
def test_what_an_os_error_says_follows_the_mark(args, nothing):
    assert writes_nothing(args) is nothing
    said = os_error_said(OSError(98, "Address already in use"), args)
    assert said == "Address already in use" + ("" if nothing else
                                                "; nothing was left half-written")
