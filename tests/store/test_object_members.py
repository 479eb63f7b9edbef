"""``[limits] object-members``: no object of a manifest may hold more than 1,000 members.

Review r85 F18: one run whose ``spec.sourceNative.metrics`` held 9,000 keys (133 KB, within
every other limit: ``array-length`` capped arrays, nothing capped an object's keys) passed
``add``, the hooks and ``check``, and made the CSV export's runs table 9,065 columns wide.
The largest object of the real data has 11 members.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.core import canonical
from kistore.core.limits import CEILING, DEFAULT, Limits, check_manifest, long_values

from ..conftest import BUNDLE, PUBLISHED, commit_all, git, store_file
from .test_limits import invoke, limited

PAST = ("an object of {count:,} members, more than the limit of {limit:,} (object-members); "
        "raise [limits] object-members in kistore.toml if this size is meant")
"""What ``add``, ``check`` and ``verify`` say of an object past the limit."""


def _run_with_metrics(count: int, name: str = "many-metrics") -> dict:
    """The published run, renamed, with ``count`` source-native metrics ``m0``, ``m1``, ..."""
    run = json.loads(BUNDLE.read_text())["run"]
    run["metadata"]["name"] = name
    run["spec"]["sourceNative"] = {"source": "mine",
                                   "metrics": {f"m{i}": i for i in range(count)}}
    return run


def test_the_default_and_the_ceiling():
    # 11 members at most in shared/data's imports and store/ (sourceNative.metrics of a
    # sol-execbench run), 110 in a source file: the default is ~90 times the real maximum
    assert (DEFAULT.object_members, CEILING.object_members) == (1_000, 16_000)
    assert Limits.from_toml({"object-members": 50}) == Limits(object_members=50)


def test_the_r85_run_with_9000_metric_keys_is_refused_at_its_pointer(runner, store_path,
                                                                      tmp_path):
    path = tmp_path / "many.json"
    path.write_text(json.dumps(_run_with_metrics(9_000)))
    assert 130_000 < path.stat().st_size < 140_000  # within manifest-bytes (1 MiB)
    result = invoke(runner, store_path, "add", "--allow-dangling", str(path))
    assert (result.exit_code, result.stderr) == (1, (
        f"error: {path}:/spec/sourceNative/metrics: "
        f"{PAST.format(count=9_000, limit=1_000)}\n"))
    assert not any((store_path / "store" / "objects").rglob("*.json"))


def test_an_object_at_the_limit_is_taken_and_one_past_it_refused(runner, store_path,
                                                                 tmp_path):
    at, past = tmp_path / "at.json", tmp_path / "past.json"
    at.write_text(json.dumps(_run_with_metrics(1_000, "at")))
    labelled = _run_with_metrics(3, "past")
    labelled["metadata"]["labels"] = {f"l{i}": "x" for i in range(1_001)}  # metadata too
    past.write_text(json.dumps(labelled))
    refused = invoke(runner, store_path, "add", "--allow-dangling", str(past))
    assert (refused.exit_code, refused.stderr) == (1, (
        f"error: {past}:/metadata/labels: {PAST.format(count=1_001, limit=1_000)}\n"))
    taken = invoke(runner, store_path, "add", "--allow-dangling", str(at))
    assert taken.exit_code == 0, taken.output
    assert taken.stdout.endswith(" BenchmarkRun at\n")
    limited(store_path, object_members=1_001)  # raised: the labels pass
    assert invoke(runner, store_path, "add", "--allow-dangling", str(past)).exit_code == 0


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a shared machine
@given(st.dictionaries(st.text(max_size=3), st.integers(-9, 9), max_size=40),
       st.integers(1, 30), st.sampled_from(["", "/spec/x"]))
def test_an_object_is_refused_exactly_when_it_has_more_members_than_the_limit(
        members, limit, where):
    # whatever its keys, and however few bytes it takes: check_manifest skips the walk
    # of a manifest too short to hold a value past the limits (walk_bound), never one that
    # holds one
    limits = DEFAULT._replace(object_members=limit)
    document = members if not where else {"spec": {"x": members}}
    errors = check_manifest(document, canonical.dumps(document), b"{}", limits, file="m.json")
    if len(members) > limit:
        assert [(e.pointer, e.message) for e in errors] == [
            (where, PAST.format(count=len(members), limit=limit))]
    else:
        assert errors == []


def test_an_object_past_the_limit_is_not_walked_further():
    inner = {"deep": "x" * 70}
    value = {"a": {f"k{i}": inner for i in range(4)}, "b": inner}
    limits = Limits(string_length=50, object_members=3)
    assert [(v.pointer, v.key) for v in long_values(value, limits)] == [
        ("/a", "object-members"), ("/b/deep", "string-length")]


def test_a_stored_object_past_the_limit_is_reported_and_the_store_stays_usable(
        runner, published, tmp_path):
    # a run stored before the limit existed (here: under a raised limit, since lowered):
    # an object never changes, so verify reports it (KI107), queries leave it out with a
    # warning, and everything else answers as before
    settings_file = published / "kistore.toml"
    before = settings_file.read_text()
    base = git(published, "rev-parse", "HEAD").strip()
    path = tmp_path / "stored.json"
    path.write_text(json.dumps(_run_with_metrics(1_001, "stored")))
    limited(published, object_members=2_000)
    added = invoke(runner, published, "add", "--allow-dangling", str(path))
    assert added.exit_code == 0, added.output
    digest = added.stdout.split()[0]
    settings_file.write_text(before)
    commit_all(published, "a run with 1,001 metrics, before object-members")
    stored = f"{store_file(digest)}:/spec/sourceNative/metrics"
    for args in (["verify"], ["verify", "--at", "HEAD"], ["check", f"{base}..HEAD"]):
        result = invoke(runner, published, *args)
        assert result.exit_code == 1, (args, result.output)
        errors = [line for line in result.output.splitlines() if " error " in line]
        assert errors == [f"{stored}: error KI107 value-too-long: "
                          f"{PAST.format(count=1_001, limit=1_000)}"], (args, result.output)
    # the next pull request, which does not touch it, passes the gate
    stored_at = git(published, "rev-parse", "HEAD").strip()
    later = tmp_path / "later.json"
    later.write_text(json.dumps(_run_with_metrics(3, "later")))
    assert invoke(runner, published, "add", "--allow-dangling", str(later)).exit_code == 0
    commit_all(published, "a later run")
    gate = invoke(runner, published, "check", f"{stored_at}..HEAD")
    assert gate.exit_code == 0, gate.output
    listed = invoke(runner, published, "ls")
    assert listed.exit_code == 0, listed.output
    assert "BenchmarkRun stored" not in listed.stdout
    assert f"{PUBLISHED['run']} BenchmarkRun " in listed.stdout
    assert ("has an object of 1,001 members at /spec/sourceNative/metrics, more than the "
            "limit of 1,000 (object-members)") in listed.stderr
    shown = invoke(runner, published, "show", PUBLISHED["run"])
    assert shown.exit_code == 0, shown.output
    limited(published, object_members=1_001)  # what the KI107 hint says: keep the limit
    assert invoke(runner, published, "verify").exit_code == 0
    assert "BenchmarkRun stored" in invoke(runner, published, "ls").stdout
