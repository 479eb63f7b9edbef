"""pre-push and a stale copy of the remote's main: KI433, or no guess at all (hist01).

hist00 gave ``check --unpushed`` KI433 (a new ref judged from ``refs/remotes/REMOTE/main``
fetched before the ref's newest commit, through a merge); kistore's own ``pre-push``
(``check --updates --remote``) judged the same push from the same stale copy and said ok,
silently, while the server's ``pre-receive`` refused KI425. pre-push now says KI433 too. And
where the push carries the remote's main itself, git hands the hook that branch's real tip
on the remote (``remote_sha``, from the remote's own advertisement): every ref of the push is
then judged from it, with no guess, and the KI425 the server would refuse is said here.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

from ..conftest import git
from .test_pr_sequences import main as main  # noqa: F401 - the fixture
from .test_unpushed_destination import KISTORE, ROOT, stale_release


def _with_pre_push(path: Path) -> None:
    hook = path / ".git" / "hooks" / "pre-push"
    shutil.copy(ROOT / "hooks" / "pre-push", hook)
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)


def _push(path: Path, *refspecs: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "push", "server", *refspecs], cwd=path, capture_output=True,
                          text=True)


def _own(output: str) -> str:
    """The pre-push hook's lines (the server's are prefixed `remote:`)."""
    return "\n".join(line for line in output.splitlines() if not line.startswith("remote:"))


def test_pre_push_warns_of_a_stale_main_and_the_server_refuses(main, kit, tmp_path,
                                                                monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    path, server, m0, _ = stale_release(main, kit, tmp_path)
    _with_pre_push(path)
    before = git(server, "rev-parse", "refs/heads/main")
    pushed = _push(path, "release")
    own = " ".join(_own(pushed.stderr + pushed.stdout).split())
    assert "warning KI433 remote-main-may-be-stale: refs/heads/release is judged from " \
        f"{m0[:12]}, where it leaves refs/remotes/server/main" in own, pushed.stderr
    assert "KI425" not in own  # judged from the stale copy: the guess is all it can say
    assert pushed.returncode != 0 and "KI425" in pushed.stderr  # the server's refusal
    assert "refs/heads/release" not in git(server, "for-each-ref")
    assert git(server, "rev-parse", "refs/heads/main") == before


def test_a_push_carrying_the_remote_main_is_judged_from_its_real_tip(main, kit, tmp_path,
                                                                     monkeypatch):
    """`release` with a fast-forward of main (one commit on prA's merge, the server's real
    main, which this clone's copy does not say): git hands pre-push main's real tip, and
    release is judged from it: KI425 here, no KI433, nothing sent."""
    monkeypatch.setenv("KISTORE", KISTORE)
    path, server, _, _ = stale_release(main, kit, tmp_path)
    real = git(server, "rev-parse", "refs/heads/main").strip()
    git(path, "branch", "next", real)
    git(path, "checkout", "-q", "next")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--no-verify",
        "--allow-empty", "-m", "main: next")
    git(path, "checkout", "-q", "release")
    _with_pre_push(path)
    pushed = _push(path, "release", "next:main")
    own = _own(pushed.stderr + pushed.stdout)
    assert pushed.returncode != 0
    assert "error KI425 citation-moved" in own, pushed.stderr
    assert "KI433" not in own
    assert "remote:" not in pushed.stderr  # refused before anything was sent
    assert git(server, "rev-parse", "refs/heads/main").strip() == real


def test_after_the_fetch_pre_push_refuses_as_the_server_does(main, kit, tmp_path,
                                                             monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    path, _, _, _ = stale_release(main, kit, tmp_path)
    git(path, "fetch", "-q", "server")
    _with_pre_push(path)
    pushed = _push(path, "release")
    own = _own(pushed.stderr + pushed.stdout)
    assert pushed.returncode != 0 and "error KI425 citation-moved" in own, pushed.stderr
    assert "KI433" not in own and "remote:" not in pushed.stderr
