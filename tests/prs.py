"""A public index fed by pull requests: a bare remote running ``hooks/pre-receive``.

Issue #17's attacks are sequences of pull requests that each pass on their own. A test
builds the history one pull request at a time with :class:`Remote`: each :meth:`Remote.pr`
edits a contributor's clone, commits (past any local hook, as a hostile contributor
would) and pushes to ``main`` of a bare repository whose ``pre-receive`` hook runs
``kistore check --updates``. A refused push leaves the server's ``main`` where it was and
the clone is reset to it, so the next pull request starts from what the index holds.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .conftest import ROOT, git

KISTORE = str(Path(sys.executable).with_name("kistore"))


@dataclass
class Push:
    """What one pull request's push did: git's exit code and what the hook printed."""

    returncode: int
    output: str

    @property
    def accepted(self) -> bool:
        return self.returncode == 0


STEP = 40
"""Seconds between two of :func:`soon`'s steps: seven steps stay within the five minutes
the gate lets a commit be dated past its clock (KI438, ``kistore.core.times.COMMIT_AHEAD``)."""


def soon(steps: int) -> str:
    """A git date ``steps`` times :data:`STEP` seconds from now (UTC, whole seconds).

    Later than the commits a test just made (a test's history in order, whole seconds
    apart), yet a commit dated so and pushed at once is within the five minutes past the
    clock the gate admits (KI438; until 2026-12-06 these were hours, within KI428's day,
    which let a commit dated 20 hours ahead pass: fresh06 L6). As a ``validFrom`` or
    ``validUntil``, any number of steps.
    """
    when = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(seconds=STEP * steps)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


class Remote:
    """A bare server repository with ``hooks/pre-receive`` and a contributor's clone of it.

    Args:
        seed: a committed store whose history the server starts from.
        where: a scratch directory (``tmp_path``).
    """

    def __init__(self, seed: Path, where: Path) -> None:
        self.bare = where / "server.git"
        git(where, "clone", "-q", "--bare", str(seed), str(self.bare))
        shutil.copy(ROOT / "hooks" / "pre-receive", self.bare / "hooks" / "pre-receive")
        self.clone = where / "clone"
        git(where, "clone", "-q", str(self.bare), str(self.clone))

    def kistore(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run the kistore CLI in the clone (``check``: fail the test on a non-zero exit)."""
        done = subprocess.run([KISTORE, *args], cwd=self.clone, capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"kistore {' '.join(args)}: {done.stdout}{done.stderr}")
        return done

    def pr(self, message: str, change: Callable[[Path], object], *, hook: bool = True,
           date: str | None = None) -> Push:
        """Make one pull request: ``change(clone)``, commit everything, push it to ``main``.

        ``hook=False`` pushes with the server's hook set aside: history that landed before
        the server ran the rule under test (or past it), which later pushes must face.
        ``date``: the commit's date (entry times have whole seconds, and a commit is never
        older than its ancestors: a later date keeps two pull requests' entries apart).

        Returns:
            The push's exit code and stderr (the hook's lines come as ``remote: ...``).
        """
        change(self.clone)
        git(self.clone, "add", "-A")
        dated = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {}
        subprocess.run(["git", "commit", "-q", "--allow-empty", "--no-verify", "-m", message],
                       cwd=self.clone, check=True, capture_output=True,
                       env={**_env(), **dated})
        hook_path = self.bare / "hooks" / "pre-receive"
        if not hook:
            hook_path.rename(hook_path.with_suffix(".off"))
        try:
            done = subprocess.run(["git", "push", "origin", "HEAD:main"], cwd=self.clone,
                                  capture_output=True, text=True,
                                  env={**_env(), "KISTORE": KISTORE})
        finally:
            if not hook:
                hook_path.with_suffix(".off").rename(hook_path)
        if done.returncode != 0:  # refused: start the next pull request from the server
            git(self.clone, "fetch", "-q", "origin")
            git(self.clone, "reset", "-q", "--hard", "origin/main")
            git(self.clone, "clean", "-qfdx", "store")
        return Push(done.returncode, done.stderr)

    def push(self, *refspecs: str, hook: bool = True) -> Push:
        """Push refs of the clone as they are (e.g. ``refs/notes/kistore``) to the server.

        ``hook=False``: with the server's hook set aside, as :meth:`pr` (a notes commit
        dated hours ahead, to order entries after main's commits dated so: the hook refuses
        it since KI437, and history that landed before then holds such commits).
        """
        hook_path = self.bare / "hooks" / "pre-receive"
        if not hook:
            hook_path.rename(hook_path.with_suffix(".off"))
        try:
            done = subprocess.run(["git", "push", "origin", *refspecs], cwd=self.clone,
                                  capture_output=True, text=True,
                                  env={**_env(), "KISTORE": KISTORE})
        finally:
            if not hook:
                hook_path.with_suffix(".off").rename(hook_path)
        return Push(done.returncode, done.stderr)

    def main(self) -> str:
        """Return the server's ``main`` commit id."""
        return git(self.bare, "rev-parse", "refs/heads/main").strip()

    def write_json(self, rel: str, doc: object) -> None:
        """Write indented JSON at a path of the clone (how a hand edit looks)."""
        path = self.clone / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2) + "\n")

    def read_json(self, rel: str) -> object:
        """Read a JSON file of the clone."""
        return json.loads((self.clone / rel).read_text())


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)
