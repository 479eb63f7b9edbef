"""Loose-object writes retried when a concurrent ``prune-packed`` removed their directory."""

from __future__ import annotations

import pygit2
import pytest

from kistore.git import _loose

_VANISHED = "failed to rename lockfile to '.git/objects/d3/0520': No such file or directory"


def _failing(times: int, error: Exception):
    calls = []

    def write():
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "oid"

    return write, calls


@pytest.mark.parametrize("error", [OSError(_VANISHED), pygit2.GitError(_VANISHED)])
def test_a_vanished_fan_out_directory_is_written_again(error):
    write, calls = _failing(2, error)
    assert _loose.written(write) == "oid"
    assert len(calls) == 3


def test_another_error_is_raised_at_once():
    write, calls = _failing(1, pygit2.GitError("failed to write object: No space left on device"))
    with pytest.raises(pygit2.GitError, match="No space left"):
        _loose.written(write)
    assert len(calls) == 1


def test_a_directory_that_keeps_vanishing_is_given_up():
    write, calls = _failing(100, OSError(_VANISHED))
    with pytest.raises(OSError, match="No such file"):
        _loose.written(write)
    assert len(calls) == _loose.ATTEMPTS
