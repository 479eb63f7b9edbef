"""A FIFO git config refused where trust history is read: the command's error (fresh16 F3).

With ``$GIT_CONFIG_SYSTEM`` or ``$GIT_CONFIG_GLOBAL`` a FIFO, the guard refused before git
ran, but ``rank``, ``show``, ``attestations`` and ``attest`` took the refusal for an
invalid ``store/trust/keys.json``: no key trusted, a maintainer's withdrawal unapplied (the
withdrawn run ranked), exit 0; ``check BASE..HEAD`` died with an IndexError. Now each
fails with the guard's own message, exit 1, writing nothing. Each runs as a child with a
timeout, so a hang fails the test.
"""

from __future__ import annotations

import os

import pytest

from kistore.attest import signing
from tests.conftest import commit_all
from tests.git.test_attr_guard import _env
from tests.git.test_config_guard import _refusal
from tests.git.test_ignore_guard import _refused
from tests.sparse import MAINTAINER, trust_maintainer, withdraw

_COMMANDS = [("rank", "BenchmarkRun/fast", "--all"), ("show", "BenchmarkRun/fast"),
             ("attestations", "BenchmarkRun/fast"), ("check", "HEAD~1..HEAD"),
             ("attest", "BenchmarkRun/slow", "--type", "withdrawal", "-m", "harness bug",
              "--key", "KEY"),
             ("attest", "BenchmarkRun/slow", "--type", "withdrawal", "-m", "harness bug",
              "--key", "KEY", "--file")]
"""What fresh16 F3 saw answer without a trusted key (``check`` with an IndexError)."""

_WHICH = {"GIT_CONFIG_SYSTEM": "the system git config ($GIT_CONFIG_SYSTEM)",
          "GIT_CONFIG_GLOBAL": "the global git config ($GIT_CONFIG_GLOBAL)"}


@pytest.fixture
def withdrawn(group):
    """The ``group`` store with a trusted maintainer's withdrawal of ``fast``, a committed
    file (the last commit adds it)."""
    trust_maintainer(group)
    subject = group.view("HEAD").find_name("BenchmarkRun", "fast")
    assert subject is not None
    withdraw(group, subject, as_file=True)
    commit_all(group.root, "withdrawal")
    return group.root


@pytest.mark.parametrize("variable", sorted(_WHICH))
@pytest.mark.parametrize("which", range(len(_COMMANDS)))
def test_a_fifo_git_config_is_the_commands_error(withdrawn, tmp_path, variable, which):
    key = tmp_path / "k"
    key.write_bytes(signing.private_key_bytes(MAINTAINER))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    env = _env(tmp_path, **{variable: str(fifo)})
    env.pop("GIT_CONFIG_NOSYSTEM", None)
    args = tuple(str(key) if a == "KEY" else a for a in _COMMANDS[which])
    _refused(withdrawn, env, args, _refusal(str(fifo), fifo, _WHICH[variable],
                                             f" or unset {variable}"))


def test_without_the_fifo_the_withdrawal_counts(withdrawn, tmp_path):
    """The same store answers as it should once the variable names a regular file."""
    # Lazy: the child's helper, as the refused tests use.
    from tests.git.test_attr_guard import _run

    done = _run(withdrawn, _env(tmp_path), "rank", "BenchmarkRun/fast", "--all")
    assert done.returncode == 0, done.stderr
    assert "(withdrawn)" in done.stdout
    checked = _run(withdrawn, _env(tmp_path), "check", "HEAD~1..HEAD")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_judged_under_no_readable_trust_judges_nothing(withdrawn):
    """No revision's trust file read (KI309 says why): KI411 has no key to judge by."""
    # Lazy: the gate's private judge, asked directly.
    from kistore.check.gate import _judged_under
    from kistore.store import Store

    assert _judged_under(Store(withdrawn), ["an attestation"], [], False) == []
