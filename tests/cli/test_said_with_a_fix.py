"""Two errors that said what was wrong and no fix (msg95 4): a kistore.toml that is not
TOML, and a git object a note would annotate that git lacks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kistore.attest import notes, signing
from kistore.cli import main

from ..conftest import PUBLISHED, fixed_key

RUN_REF = "BenchmarkRun/sol-submission-20464"
TOML_HELP = ("correct the file at that line and column (TOML 1.0: https://toml.io/en/v1.0.0; "
             "`git diff kistore.toml` shows what changed since the last commit), then run "
             "the command again")


@pytest.mark.parametrize(("appended", "place", "what"), [
    ("[store\n", "2:7", "Expected ']' at the end of a table declaration"),  # replaces line 2
    ("x = [\n", "END", "Invalid value at the end of the file (a value, bracket or string "
                       "there is not finished)"),
])
def test_toml_that_does_not_parse_names_its_line_column_and_the_fix(runner, store, appended,
                                                                    place, what):
    toml = store.root / "kistore.toml"
    text = toml.read_text()
    if place == "END":  # the end of the document: its last line, past its last character
        text += appended
        place = f"{text.count(chr(10)) + 1}:1"
    else:
        text = text.replace("[store]\n", appended, 1)
    toml.write_text(text)
    example = Path(__file__).parents[2] / "examples/sol-execbench-submission-20464.bundle.json"
    added = runner.invoke(main, ["--store", str(store.root), "add", str(example)])
    assert (added.exit_code, added.stderr) == (
        1, f"error: {toml}:{place}: not valid TOML: {what}; {TOML_HELP}\n")
    verify = runner.invoke(main, ["--store", str(store.root), "verify"])
    assert f"kistore.toml:{place}: error KI108 settings-invalid: not valid TOML: {what}; " \
        f"{TOML_HELP}\n" in verify.stdout
    assert ("fix KI108 (1 finding): correct kistore.toml where the finding says (TOML 1.0: "
            "https://toml.io/en/v1.0.0; `git diff kistore.toml` shows what changed since the "
            "last commit); until then `add` and `import` refuse the store, while queries "
            "(with a warning) and `verify` use the default limits\n") in verify.stdout


@pytest.mark.parametrize("partial", [False, True])
def test_a_note_on_an_object_git_lacks_says_what_named_it_and_how_to_get_it(
        runner, record_store, store_path, tmp_path, monkeypatch, partial):
    """The object a note annotates is written just before (attach): a `git gc --prune=now`
    between the two is the way to meet it, stood in for by a write that writes nothing."""
    key = tmp_path / "k"
    key.write_bytes(signing.private_key_bytes(fixed_key(1)))
    missing = "0123456789abcdef0123456789abcdef01234567"
    monkeypatch.setattr(notes, "write_blob", lambda repo, data: missing)
    if partial:
        subprocess.run(["git", "-C", str(store_path), "config", "remote.origin.promisor",
                        "true"], check=True)
    result = runner.invoke(main, ["--store", str(store_path), "attest", RUN_REF, "--type",
                                  "note", "-m", "hello", "--key", str(key)])
    hexes = PUBLISHED["run"].removeprefix("sha256:")
    get = (f"this is a blob-less (partial) clone: `git cat-file -p {missing} >/dev/null` "
           "fetches it from the promisor remote (`git fetch --refetch` fetches every object "
           "again)" if partial else "`git fetch` brings it if a remote holds it")
    assert (result.exit_code, result.stderr) == (1, (
        f"error: no git object {missing} (the blob of store/objects/sha256/{hexes[:2]}/"
        f"{hexes[2:]}.json, which the note would annotate); {get}; if none holds it, the "
        "repository is damaged: `kistore verify` names what else is missing; it was written "
        "just before, so if a `git gc --prune=now` ran meanwhile, run the command again\n"))
