"""``site build`` and ``export`` in a clone that lacks ``refs/notes/kistore`` (reviewer r83 F11).

``git clone`` does not fetch the notes ref, where attestations live: such a clone built a
site ranking a withdrawn run #1 and exported empty attestation columns, silently. Now both
refuse, naming the ref and the fetch command, unless ``--without-attestations`` (then they
warn); after the fetch they publish the withdrawal. A store with no remote (a fresh local
store, ``make demo``) is never refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.store import Store

from ..conftest import git
from ..sparse import trust_maintainer, withdraw

FETCH = "kistore notes fetch origin"


def kistore(path: Path, *args: str):
    return CliRunner().invoke(main, ["--store", str(path), *args])


@pytest.fixture
def clone(group, tmp_path) -> Path:
    """A real ``git clone`` of the ``group`` store, whose fastest run is withdrawn by a note."""
    trust_maintainer(group)
    fast = group.view("HEAD").find_name("BenchmarkRun", "fast")
    assert fast is not None
    withdraw(group, fast, as_file=False)
    git(tmp_path, "clone", "-q", str(group.root), "clone")
    path = tmp_path / "clone"
    assert git(path, "for-each-ref", "refs/notes") == ""  # git clone left the notes behind
    return path


def exported(out: Path, table: str) -> list[dict]:
    """The rows of one JSON Lines table of an export."""
    return [json.loads(line) for line in
            (out / table / "part-00000.jsonl").read_text().splitlines()]


def site_rank(site: Path, name: str):
    """The rank the built site gives run ``name`` (its page's JSON twin)."""
    named = json.loads((site / "names" / name / "index.json").read_text())["data"]
    twin = json.loads((site / named["href"]).with_name("index.json").read_text())
    return twin["data"]["rank"], twin["data"]["withdrawn"]


@pytest.mark.parametrize("command", [["site", "build"], ["export"]])
def test_a_clone_without_the_notes_is_refused_with_the_fetch_command(clone, tmp_path, command):
    out = tmp_path / "out"
    result = kistore(clone, *command, str(out))
    assert result.exit_code == 1, result.output
    doing = "build the site" if command == ["site", "build"] else "export"
    assert result.stderr == (
        f"error: refusing to {doing}: refs/notes/kistore is not in this repository (no note "
        "was made here, and git clone and git fetch do not fetch notes), so the remote's "
        "attestations are not here: a withdrawn run would be "
        f"ranked and no run verified; run `{FETCH}` and {doing} again, or pass "
        f"--without-attestations to {doing} without them (as when the remote has no "
        "refs/notes/kistore either: no attestation was ever made)\n")
    assert not out.exists()  # nothing written


def test_after_the_fetch_the_site_does_not_rank_the_withdrawn_run(clone, tmp_path):
    assert kistore(clone, *FETCH.split()[1:]).exit_code == 0
    result = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    assert "refs/notes/kistore" not in result.stderr
    assert site_rank(tmp_path / "site", "fast") == (None, True)
    assert site_rank(tmp_path / "site", "slow") == (1, False)


def test_after_the_fetch_the_export_lists_the_withdrawal(clone, tmp_path):
    assert kistore(clone, *FETCH.split()[1:]).exit_code == 0
    result = kistore(clone, "export", str(tmp_path / "out"), "--format", "jsonl")
    assert result.exit_code == 0, result.output
    rows = exported(tmp_path / "out", "attestations")
    assert [(r["type"], r["source"], r["text"]) for r in rows] == [
        ("withdrawal", "note", "harness bug")]
    withdrawn = {r["name"]: r["withdrawn"] for r in exported(tmp_path / "out", "runs")}
    assert withdrawn == {"fast": True, "slow": False, "ref": False, "broken": False}


def test_with_the_flag_the_site_is_built_and_says_what_it_lacks(clone, tmp_path):
    result = kistore(clone, "site", "build", str(tmp_path / "site"), "--without-attestations")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(
        "warning: build the site without attestations (--without-attestations): "
        "refs/notes/kistore is not in this repository (no note was made here, and git clone and "
        "git fetch do not fetch notes)")
    assert f"`{FETCH}` fetches them" in result.stderr
    assert site_rank(tmp_path / "site", "fast") == (1, False)  # what was asked for
    build = json.loads((tmp_path / "site" / "build.json").read_text())
    assert build["notes"] is None


def test_with_the_flag_the_export_is_written_and_says_what_it_lacks(clone, tmp_path):
    result = kistore(clone, "export", str(tmp_path / "out"), "--format", "jsonl",
                     "--without-attestations")
    assert result.exit_code == 0, result.output
    assert "warning: export without attestations (--without-attestations): " \
           "refs/notes/kistore is not in this repository" in result.stderr
    assert exported(tmp_path / "out", "attestations") == []  # the table, of no rows
    assert not any(r["withdrawn"] for r in exported(tmp_path / "out", "runs"))


def test_a_store_with_no_remote_and_no_notes_is_not_refused(group, tmp_path):
    assert not (Path(group.git_dir) / layout.NOTES_REF).exists()
    for command in (["site", "build", str(tmp_path / "site")],
                    ["export", str(tmp_path / "out")]):
        result = kistore(group.root, *command)
        assert result.exit_code == 0, result.output
        assert "notes" not in result.stderr


def test_the_remote_named_is_the_clones_own(clone, tmp_path):
    git(clone, "remote", "rename", "origin", "upstream")
    result = kistore(clone, "export", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "run `kistore notes fetch upstream`" in result.stderr
    assert isinstance(Store(clone), Store)


def test_a_clone_whose_commit_trusts_no_key_is_built_with_a_warning(group, tmp_path):
    # only a trusted key's note withdraws or verifies: without one the notes change no rank
    git(tmp_path, "clone", "-q", str(group.root), "clone")
    for command in (["site", "build", str(tmp_path / "site")],
                    ["export", str(tmp_path / "out")]):
        result = kistore(tmp_path / "clone", *command)
        assert result.exit_code == 0, result.output
        assert result.stderr.startswith(
            "warning: refs/notes/kistore is not in this repository (no note was made here, and "
            "git clone and git fetch do not fetch notes): "
            "community attestations are left out (no key is trusted at HEAD, so none could "
            f"withdraw or verify a run); `{FETCH}` fetches them\n"), result.stderr


@pytest.mark.parametrize("command", [["rank"], ["compare"]])
def test_rank_and_compare_in_such_a_clone_warn_that_withdrawals_are_not_applied(clone,
                                                                               command):
    # reviewer r85 F15: the withdrawn run ranked #1 in rank and compare without a word
    warning = ("warning: refs/notes/kistore is not in this repository (no note was made here, "
               "and git clone and git fetch do not fetch notes): the remote's attestations "
               "(withdrawals, reruns) are not applied to "
               "this answer; "
               f"`{FETCH}` fetches them\n")
    result = kistore(clone, *command, "BenchmarkRun/slow")
    assert result.exit_code == 0, result.output
    assert warning in result.stderr
    assert kistore(clone, *FETCH.split()[1:]).exit_code == 0
    fetched = kistore(clone, *command, "BenchmarkRun/slow")
    assert fetched.exit_code == 0 and "refs/notes/kistore" not in fetched.stderr


def test_a_clone_with_only_its_own_notes_says_they_are_published(group, tmp_path):
    # msg94 F8: "community attestations are left out", then the export held this clone's own
    from kistore.attest import signing

    from ..conftest import fixed_key

    git(tmp_path, "clone", "-q", str(group.root), "clone")
    path = tmp_path / "clone"
    key = tmp_path / "k"
    key.write_bytes(signing.private_key_bytes(fixed_key(7)))
    attested = kistore(path, "attest", "BenchmarkRun/fast", "--type", "note", "-m", "mine",
                       "--key", str(key))
    assert attested.exit_code == 0, attested.output
    out = tmp_path / "out"
    result = kistore(path, "export", "--format", "jsonl", str(out))
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(
        "warning: refs/notes/kistore holds only this repository's own attestations: no "
        "remote's notes were fetched into it (git clone and git pull do not fetch them; a "
        "remote holding none makes this repository the only holder: `kistore notes push "
        "REMOTE` gives it yours; a plain `git push` of them leaves no trace here, no "
        "tracking ref, and queries "
        "ask no remote: `kistore notes fetch REMOTE` records them as the remote's): the "
        "remote's community attestations are left out (no key is trusted at "
        "HEAD, so none could withdraw or verify a run); this repository's own attestations are "
        f"published; `{FETCH}` fetches them\n"), result.stderr
    assert [row["effect"] for row in exported(out, "attestations")] == ["community"]


def test_a_first_plain_git_notes_push_with_no_key_trusted_is_published_without_a_warning(
        group, tmp_path):
    # break94 F5: the G5 ask (`git ls-remote`, recorded) ran only where a key is trusted;
    # with none, site build and export warned "holds only this clone's own attestations
    # ... `kistore notes fetch origin` fetches them", though the server held exactly these
    from kistore.attest import signing

    from ..conftest import fixed_key

    server = tmp_path / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(group.root), str(server))
    assert git(server, "for-each-ref", "refs/notes") == ""
    path = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), path.name)
    key = tmp_path / "k"
    key.write_bytes(signing.private_key_bytes(fixed_key(7)))
    attested = kistore(path, "attest", "BenchmarkRun/fast", "--type", "note", "-m", "mine",
                       "--key", str(key))
    assert attested.exit_code == 0, attested.output
    git(path, "push", "-q", "origin", "refs/notes/kistore")
    built = kistore(path, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, ""), built.output  # before: the warning
    assert git(path, "rev-parse", "refs/notes/remotes/origin/kistore") == \
        git(server, "rev-parse", "refs/notes/kistore")  # recorded, as with a key trusted
    out = tmp_path / "out"
    result = kistore(path, "export", "--format", "jsonl", str(out))
    assert result.exit_code == 0, result.output  # its one warning: no permalink (no web host)
    assert "notes" not in result.stderr and "attestations" not in result.stderr, result.stderr
    assert [row["effect"] for row in exported(out, "attestations")] == ["community"]
