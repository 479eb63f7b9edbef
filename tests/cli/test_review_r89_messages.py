"""Reviewer r89 F8: messages that named the wrong cause or left out the fix."""

from __future__ import annotations

import copy

import pytest

from kistore.check._groups import GROUP_MISSING
from kistore.core.errors import InputError
from kistore.core.schema import check_manifest


@pytest.mark.parametrize("ref,name", [("BenchmarkRun/../../kistore.toml", "../../kistore.toml"),
                                      ("Workload/a/b", "a/b"), ("BenchmarkRun/-x", "-x")])
def test_an_invalid_name_is_said_to_be_one(group, ref, name):
    # not "no BenchmarkRun named ...: run `kistore reindex`", which cannot help
    with pytest.raises(InputError) as refused:
        group.resolve(ref)
    assert str(refused.value) == (
        f"{ref!r} is not a reference: {name!r} is not a valid name (lower-case letters, "
        "digits, '.' and '-', starting and ending with a letter or digit)")


def test_an_upper_case_digest_is_told_digests_are_lower_case(group):
    digest = str(group.resolve("BenchmarkRun/fast"))
    with pytest.raises(InputError) as refused:
        group.resolve(digest.upper())
    assert str(refused.value) == (f"{digest.upper()!r} is not a reference: digests are "
                                  f"lower-case hex: {digest}")
    with pytest.raises(InputError, match=f"lower-case hex: {digest[7:19]}$"):
        group.resolve(digest[7:19].upper())


def test_a_kind_typo_in_a_manifest_gets_a_did_you_mean(bundle):
    run = copy.deepcopy(bundle["run"])
    run["kind"] = "BenchmarkRuns"
    [found] = check_manifest(run)
    assert found.message.endswith('found "BenchmarkRuns"; did you mean \'BenchmarkRun\'?')


def test_a_misspelt_required_key_is_one_did_you_mean(bundle):
    run = copy.deepcopy(bundle["run"])
    run["metdata"] = run.pop("metadata")
    run["spec"]["statsu"] = run["spec"].pop("status")
    assert [(f.pointer, f.message) for f in check_manifest(run, file="r.json")] == [
        ("/metdata", "unexpected key 'metdata': did you mean 'metadata'? (a required field, "
                     "missing)"),
        ("/spec/statsu", "unexpected key 'statsu': did you mean 'status'? (a required "
                         "field, missing)")]


def test_a_missing_group_file_says_rerunning_the_add_repairs_it():
    assert "run the same `kistore add`/`kistore import` again" in GROUP_MISSING.hint
