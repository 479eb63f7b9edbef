"""`add` of several files reports every file's problems in one run (reviewer r85 F2).

`kistore add good-but-dangling.json badname.json` printed only badname.json's schema error;
the other file's own refusal (its missing references) came only on the next try.
"""

from __future__ import annotations

import json

from kistore.cli import main


def test_add_reports_a_schema_error_and_another_files_store_refusal_together(
        runner, store_path, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=10, name="dangling")
    bad = kit.workload(name="Bad_Name")
    (store_path.parent / "run.json").write_text(json.dumps(run))
    (store_path.parent / "badname.json").write_text(json.dumps(bad))
    done = runner.invoke(main, ["--store", str(store_path), "add",
                                str(store_path.parent / "run.json"),
                                str(store_path.parent / "badname.json")])
    assert done.exit_code == 1, done.output
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"error: {store_path.parent / 'badname.json'}:")
    assert "/metadata/name" in lines[0]
    # the run's own refusal, in the same run: four references to nothing stored
    dangling = [line for line in lines if line.startswith(
        f"error: {store_path.parent / 'run.json'}:")]
    assert len(dangling) == 1 and "not in the store" in dangling[0], lines
    assert not any((store_path / "store").rglob("objects/**/*.json"))  # nothing written
    # the good file alone, with --allow-dangling: added; badname's error still refuses both
    done = runner.invoke(main, ["--store", str(store_path), "add", "--allow-dangling",
                                str(store_path.parent / "run.json"),
                                str(store_path.parent / "badname.json")])
    assert done.exit_code == 1 and len(done.stderr.splitlines()) == 1, done.output
    assert not any((store_path / "store").rglob("objects/**/*.json"))


def test_digest_says_it_checks_nothing_against_a_store(runner, store_path, kit):
    # F2: `digest` printed a digest, exit 0, for what `add` refuses: not a pre-check
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=10, name="dangling")
    path = store_path.parent / "run.json"
    path.write_text(json.dumps(run))
    done = runner.invoke(main, ["--store", str(store_path), "digest", str(path)])
    assert done.exit_code == 0, done.output
    assert done.stdout == f"{kit.digest(run)} BenchmarkRun dangling\n"
    assert done.stderr == (
        "note: digests of canonical bytes, each manifest held to its schema only: not "
        "checked against a store (names taken, references, a source's naming rule), so "
        "`kistore add` may still refuse one\n")
    help_text = " ".join(runner.invoke(main, ["digest", "--help"]).output.split())
    assert "without storing or checking it against a store" in help_text
