"""KI427's start of a key said as readers at HEAD give it too (fresh07 L6).

A pull request's branch trusted a key without ``validFrom`` in a side commit, then merged
main, whose trust file held the key from an hour ahead, keeping its own entry. ``check
BASE..HEAD`` said (KI427) the key is "valid from" main's trust commit, when it entered BASE's
trust file; ``kistore attestations`` at HEAD counted it from the side commit, the first on
HEAD's own first-parent line listing it. Both are true where they apply (a merge into BASE
keeps BASE's line; HEAD's readers walk HEAD's): KI427 now says both.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess

from ..conftest import git
from ..prs import Remote, _env
from .test_history_trust_effects import MAINTAINER_ID, trust_maintainer
from .test_trust_widened_into_the_past import _date


def _commit(remote: Remote, message: str, when: dt.datetime, *args: str) -> str:
    """``git commit`` (or ``git merge``, ``args``) in the clone dated ``when``; its id."""
    stamp = _date(when)
    git(remote.clone, "add", "-A")
    subprocess.run(["git", *(args or ("commit", "-qam", message))], cwd=remote.clone,
                   check=True, capture_output=True,
                   env={**_env(), "GIT_COMMITTER_DATE": stamp, "GIT_AUTHOR_DATE": stamp})
    return git(remote.clone, "rev-parse", "HEAD").strip()


def test_a_branch_that_merged_base_over_its_own_entry_is_told_both_starts(published, tmp_path):
    remote = Remote(published, tmp_path)
    # dated seconds ahead of the published history (a commit is judged at the latest date
    # of it and its ancestors), well within KI438's minutes
    now = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(seconds=5)
    start = git(remote.clone, "rev-parse", "HEAD").strip()
    valid_from = _date(now + dt.timedelta(hours=1))
    trust_maintainer(remote, "--valid-from", valid_from)(remote.clone)
    base = _commit(remote, "trust the key from an hour ahead", now + dt.timedelta(seconds=10))
    git(remote.clone, "checkout", "-qb", "side", start)
    trust_maintainer(remote)(remote.clone)
    side = _commit(remote, "trust the key (no validFrom)", now + dt.timedelta(seconds=20))
    _commit(remote, "", now + dt.timedelta(seconds=30),
            "merge", "-q", "-s", "ours", "-m", "merge main, keeping our trust", base)

    done = remote.kistore("check", f"{base}..HEAD", "--json")
    [said] = [f["message"] for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI427"]
    assert said == (
        f"the range widens when key {MAINTAINER_ID} counts for maintainer (validFrom "
        f"{valid_from} -> none): valid from {_date(now + dt.timedelta(seconds=10))}, when it "
        "entered BASE's trust file (what it signed since then counts once the range is merged "
        "into BASE, whose first-parent line keeps that start; HEAD's own first-parent line "
        f"lists it from {_date(now + dt.timedelta(seconds=20))}, commit {side[:12]}, the start "
        "readers at HEAD such as `kistore attestations` give it), no expiry")

    # merged into BASE (first parent BASE): one start, BASE's, said as before
    git(remote.clone, "checkout", "-qb", "landed", base)
    _commit(remote, "", now + dt.timedelta(seconds=40),
            "merge", "-q", "--no-ff", "-m", "Merge pull request", "side")
    done = remote.kistore("check", f"{base}..HEAD", "--json", check=False)
    [said] = [f["message"] for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI427"]
    assert said.endswith(f"valid from {_date(now + dt.timedelta(seconds=10))}, when it entered "
                         "the trust file (what it signed since then counts), no expiry"), said
