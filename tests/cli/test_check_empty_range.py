"""``check`` of a range holding no commit says nothing was checked (reviewer r86 F19)."""

from __future__ import annotations

import re

from click.testing import CliRunner

from kistore.cli import main


def check(store, *args: str):
    return CliRunner().invoke(main, ["--store", str(store.root), "check", *args])


def test_a_range_of_one_commit_twice_says_nothing_was_checked(group):
    result = check(group, "HEAD..HEAD")
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok: HEAD..HEAD: 0 errors, 0 warnings, 0 info\n"
    assert re.fullmatch(
        r"note: HEAD and HEAD are one commit \([0-9a-f]{12}\): the range holds no commit, so "
        r"nothing was checked; a pull request's range is BASE..BRANCH, BASE the branch it "
        r"merges into \(upstream/main when origin is your fork\)\n", result.stderr)


def test_a_range_with_a_commit_says_no_such_thing(group):
    result = check(group, "HEAD~1..HEAD")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
