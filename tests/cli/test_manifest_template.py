"""A stored manifest as a template (reviewer r85 F16): `cat --manifest` prints what `add` takes,
and `add` of `show --json` output says what it was given and which command prints a manifest.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.cli import main
from kistore.cli.core import add_able
from kistore.core.model import Manifest
from kistore.store.inputs import parse_manifests

from ..conftest import BUNDLE, PUBLISHED, snapshot
from ..core.test_canonical import json_values

SHOWN = ("as `kistore show --json` prints it, not a manifest: `kistore add` takes {apiVersion, "
         "kind, metadata, spec} and computes the digest; `kistore cat --manifest REF` prints "
         "a stored manifest to copy and edit (docs/contributing.md)")

WORKLOAD = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
            "spec": {"suite": {"name": "demo"}, "definition": "rmsnorm",
                     "sourceNative": {"source": "demo", "tolerance": 1e-7, "shape": [4096, 1.0]}},
            "metadata": {"title": "RMSNorm · 4096", "name": "rmsnorm-4096"}}
"""Keys out of order, a small float and an integral one: printed as the canonical bytes are."""


def run(runner, store_path, *args, input=None):
    return runner.invoke(main, ["--store", str(store_path), *args], input=input)


def test_cat_manifest_prints_the_manifest_add_takes_keys_in_order_numbers_as_stored(
        runner, store_path, tmp_path):
    source = tmp_path / "w.json"
    source.write_text(json.dumps(WORKLOAD))
    added = run(runner, store_path, "add", str(source))
    assert added.exit_code == 0, added.output
    digest = added.output.split()[0]
    shown = run(runner, store_path, "cat", "--manifest", "Workload/rmsnorm-4096")
    assert shown.exit_code == 0, shown.output
    assert shown.output == (
        '{\n'
        '  "apiVersion": "kernelindex.dev/v1alpha1",\n'
        '  "kind": "Workload",\n'
        '  "metadata": {\n'
        '    "name": "rmsnorm-4096",\n'
        '    "title": "RMSNorm · 4096"\n'
        '  },\n'
        '  "spec": {\n'
        '    "definition": "rmsnorm",\n'
        '    "sourceNative": {\n'
        '      "shape": [\n'
        '        4096,\n'
        '        1\n'
        '      ],\n'
        '      "source": "demo",\n'
        '      "tolerance": 1e-7\n'
        '    },\n'
        '    "suite": {\n'
        '      "name": "demo"\n'
        '    }\n'
        '  }\n'
        '}\n')
    # its digest is the stored one: what `add` of the printed text would store
    again = run(runner, store_path, "digest", "-", input=shown.output)
    assert again.exit_code == 0, again.output
    assert again.stdout == f"{digest} Workload rmsnorm-4096\n"


def test_cat_manifest_of_each_published_manifest_adds_to_the_same_digest(
        runner, record_store, store_path, tmp_path):
    other = tmp_path / "other"
    assert runner.invoke(main, ["init", str(other)]).exit_code == 0
    for digest in PUBLISHED.values():
        text = run(runner, store_path, "cat", "--manifest", digest[7:15]).output
        added = run(runner, other, "add", "--allow-dangling", "-", input=text)
        assert added.exit_code == 0, added.output
        assert added.output.split()[0] == digest
    # metadata too: the other store's metadata files are the same bytes
    assert {k: v for k, v in snapshot(other).items() if k.startswith("store/metadata/")} == \
        {k: v for k, v in snapshot(store_path).items() if k.startswith("store/metadata/")}


def test_cat_manifest_and_metadata_together_is_a_usage_error(runner, record_store, store_path):
    result = run(runner, store_path, "cat", "--manifest", "--metadata", "BenchmarkRun/"
                 "sol-submission-20464")
    assert result.exit_code == 2
    assert "--metadata and --manifest exclude each other" in result.output


def test_adding_show_json_of_a_manifest_says_it_is_not_one_and_writes_nothing(
        runner, record_store, store_path, tmp_path):
    shown = run(runner, store_path, "show", "--json",
                "BenchmarkProtocol/sol-execbench-leaderboard-v1-1")
    assert shown.exit_code == 0, shown.output
    page = tmp_path / "protocol.json"
    page.write_text(shown.output)
    before = snapshot(store_path)
    for command in ("add", "digest"):
        result = run(runner, store_path, command, str(page))
        assert result.exit_code == 1
        assert result.output == (f"error: {page}:/digest: this is a stored BenchmarkProtocol "
                                 f"with its digest, {SHOWN}\n")
    assert snapshot(store_path) == before


def test_adding_a_run_page_is_one_error_not_one_per_page_field(runner, record_store,
                                                               store_path, tmp_path):
    # until now: 33 errors, one per page field, as if the page were a bundle
    shown = run(runner, store_path, "show", "--json", "BenchmarkRun/sol-submission-20464")
    assert shown.exit_code == 0, shown.output
    assert {"rank", "manifest", "digest"} <= set(json.loads(shown.stdout))
    page = tmp_path / "run.json"
    page.write_text(shown.stdout)  # `show --json > run.json`: its warning is on stderr
    result = run(runner, store_path, "add", str(page))
    assert result.exit_code == 1
    assert result.output == f"error: {page}:/digest: this is a run page, {SHOWN}\n"


def test_a_bundle_member_from_show_json_is_named_at_its_pointer(runner, record_store,
                                                                store_path, tmp_path):
    bundle = json.loads(BUNDLE.read_text())
    shown = json.loads(run(runner, store_path, "show", "--json",
                           "ExecutionEnvironment/sol-execbench-b200-v1-1").output)
    bundle["environment"] = shown
    path = tmp_path / "b.json"
    path.write_text(json.dumps(bundle))
    result = run(runner, store_path, "add", "--allow-dangling", str(path))
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"error: {path}:/environment/digest: this is a stored ExecutionEnvironment with its "
        f"digest, {SHOWN}")


@settings(max_examples=200, deadline=None)
@given(native=st.dictionaries(st.text(max_size=6), json_values, max_size=4),
       title=st.text(st.characters(exclude_categories=["Cc", "Cf", "Cs"]), max_size=40))
def test_what_cat_manifest_prints_parses_back_to_the_same_object_and_metadata(native, title):
    document = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
                "metadata": {"name": "w", "title": title},
                "spec": {"suite": {"name": "s"}, "definition": "d",
                         "sourceNative": {**native, "source": "demo"}}}
    stored = Manifest.from_document(document)
    [again] = parse_manifests(add_able(stored), file="-")
    assert again.manifest.digest == stored.digest
    assert again.manifest.object_bytes == stored.object_bytes
    assert again.manifest.metadata_bytes == stored.metadata_bytes
