"""`rank`, `show` and `compare` take `--notes-at REV` as `site build` and `export` do.

fresh03 H2: README called a tag a permalink, so that an answer "as of v1" does not change;
but attestations live in `refs/notes/kistore` (no part of a commit) and were read at their
tip whatever `--at`, so a withdrawal made later changed `rank --at v1`, and no option read
the notes as they were. `--at T --notes-at N` now answers the same bytes whatever is
attested since; the option's words, errors and warning are `site build`'s and `export`'s
(`kistore.attest.notes_at`).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core.layout import NOTES_REF, object_path

from ..conftest import git, note_taken_out_and_back
from ..sparse import trust_maintainer, withdraw

QUERIES = {"rank": ("rank", "BenchmarkRun/fast"),
           "rank --json": ("rank", "BenchmarkRun/fast", "--all", "--json"),
           "show": ("show", "BenchmarkRun/slow"),
           "show --json": ("show", "BenchmarkRun/slow", "--json"),
           "compare": ("compare", "BenchmarkRun/slow", "BenchmarkRun/fast"),
           "compare --json": ("compare", "BenchmarkRun/slow", "--json")}

GIVE = (f"give a commit of {NOTES_REF} (`git log --oneline {NOTES_REF}` lists them), or "
        "`none`")


def _kistore(store, *args: str):
    return CliRunner().invoke(main, ["--store", str(store.root), *args])


def _answers(store, *extra: str) -> dict[str, tuple[int, str, str]]:
    found = {}
    for label, query in QUERIES.items():
        done = _kistore(store, *query, *extra)
        found[label] = (done.exit_code, done.stdout, done.stderr)
    return found


@pytest.fixture
def pinned(group):
    """``group`` with a trusted maintainer, tag ``v1``, ``slow`` withdrawn by a note, and
    that notes commit (``group.pinned``, 40 hex)."""
    trust_maintainer(group)
    git(group.root, "tag", "v1")
    withdraw(group, group.view("HEAD").find_name("BenchmarkRun", "slow"), as_file=False)
    group.pinned = git(group.root, "rev-parse", NOTES_REF).strip()
    return group


def test_an_answer_at_a_tag_and_a_notes_commit_is_the_same_after_a_later_withdrawal(pinned):
    store, notes = pinned, pinned.pinned
    before = _answers(store, "--at", "v1", "--notes-at", notes[:12])
    assert all(code == 0 for code, _, _ in before.values()), before
    assert before == _answers(store, "--at", "v1")  # nothing attested since: the tip
    assert " slow " not in before["rank"][1]  # withdrawn at that notes commit
    assert json.loads(before["show --json"][1])["withdrawn"] is True

    withdraw(store, store.view("HEAD").find_name("BenchmarkRun", "fast"), as_file=False)
    assert git(store.root, "rev-parse", NOTES_REF).strip() != notes
    after = _answers(store, "--at", "v1", "--notes-at", notes[:12])
    assert after == before  # every byte, stdout and stderr
    for ref in (notes, NOTES_REF + "@{1}"):  # a full id, a ref's reflog: one notes commit
        assert _answers(store, "--at", "v1", "--notes-at", ref) == before

    tip = _answers(store, "--at", "v1")  # without --notes-at: the tip, fast withdrawn since
    assert tip["rank"] != before["rank"]
    assert tip["rank"][2].startswith("warning: BenchmarkRun/fast is withdrawn by "), tip
    assert " fast " not in tip["rank"][1] and " fast " in before["rank"][1]
    assert [row["withdrawn"] for row in json.loads(tip["rank --json"][1])] != \
        [row["withdrawn"] for row in json.loads(before["rank --json"][1])]
    assert tip["show --json"] != before["show --json"]  # #1 moved: its ratio to #1 too
    assert tip["compare --json"] != before["compare --json"]  # B: rank 1 is slow now


def test_notes_at_none_reads_no_attestation(pinned):
    ranked = _kistore(pinned, "rank", "BenchmarkRun/fast", "--notes-at", "none", "--json")
    assert ranked.exit_code == 0, ranked.output
    rows = {row["name"]: row for row in json.loads(ranked.stdout)}
    assert rows["slow"]["withdrawn"] is False and rows["slow"]["rank"] == 2
    shown = json.loads(_kistore(pinned, "show", "BenchmarkRun/slow", "--notes-at", "none",
                                "--json").stdout)
    assert (shown["withdrawn"], shown["attestations"], shown["rank"]) == (False, [], 2)


@pytest.mark.parametrize("query", ["rank", "show", "compare"])
def test_a_bad_notes_at_is_refused_with_the_words_of_site_build_and_export(pinned, query,
                                                                            tmp_path):
    head = git(pinned.root, "rev-parse", "HEAD").strip()
    said = {"no-such-rev": ("error: --notes-at no-such-rev: no commit named 'no-such-rev' in "
                            f"this repository: {GIVE}\n"),
            "HEAD": (f"error: --notes-at HEAD: commit {head[:12]} is not a notes commit (its "
                     "tree holds '.gitattributes'; a notes tree holds only object ids, in "
                     f"hex): {GIVE}\n")}
    for rev, error in said.items():
        done = _kistore(pinned, *QUERIES[query], "--notes-at", rev)
        assert (done.exit_code, done.stdout, done.stderr) == (1, "", error)
        as_json = _kistore(pinned, *QUERIES[query], "--notes-at", rev, "--json")
        assert as_json.exit_code == 1
        assert json.loads(as_json.stdout)["errors"][0]["message"] == \
            error.removeprefix("error: ").rstrip("\n")
        # one module's words: the publishing commands say the same
        for publish in (["export", str(tmp_path / "out"), "--format", "jsonl"],
                        ["site", "build", str(tmp_path / "site")]):
            published = _kistore(pinned, *publish, "--notes-at", rev)
            assert (published.exit_code, published.stderr) == (1, error)


def test_notes_at_a_commit_lacking_a_line_its_history_held_warns_as_export_does(pinned):
    """fresh01 F8's warning (a line removed in one notes commit and added back in the next),
    printed by the queries as `site build` and `export` print it, and nothing else differs."""
    store = pinned
    slow = store.view("HEAD").find_name("BenchmarkRun", "slow")
    blob = git(store.root, "rev-parse", f"HEAD:{object_path(slow)}").strip()
    middle, _ = note_taken_out_and_back(store.root, blob)
    warning = (f"warning: --notes-at {middle[:12]}: notes commit {middle[:12]} lacks 1 "
               "attestation line(s) an earlier notes commit of its history held: "
               "BenchmarkRun/slow (1 line(s)). Notes only grow (KI408; a push that removed a "
               "line in one notes commit and added it back in the next passed the gate "
               "before 2026-12-06): what is read at it (a withdrawal or a rerun gone) is a "
               "state the rules refuse. Read as asked, for a page or export that names it; "
               f"for the attestations as they count, leave out --notes-at (the tip of "
               f"{NOTES_REF}) or give a later notes commit that holds the lines\n")
    lacking = _answers(store, "--notes-at", middle[:12])
    unnoted = _answers(store, "--notes-at", "none")
    for label, (code, out, err) in lacking.items():
        assert code == 0 and err.startswith(warning), (label, err)
        assert (out, err.removeprefix(warning)) == unnoted[label][1:], label  # read as asked
    tip = _answers(store, "--notes-at", NOTES_REF)
    assert not any("--notes-at" in err for _, _, err in tip.values()), tip
    assert tip == _answers(store)


def test_the_option_is_worded_as_site_builds_and_exports(runner):
    for query in ("rank", "show", "compare"):
        text = " ".join(runner.invoke(main, [query, "--help"]).stdout.split())
        assert ("--notes-at REV Answer with the attestations of this notes commit (default: "
                f"the tip of {NOTES_REF}; `none`: no notes): `--at X --notes-at N` answers "
                "alike later, whatever is attested since.") in text, text
    text = " ".join(runner.invoke(main, ["export", "--help"]).stdout.split())
    assert (f"--notes-at REV Export the attestations of this notes commit (default: the tip "
            f"of {NOTES_REF}; `none`: no notes)") in text
