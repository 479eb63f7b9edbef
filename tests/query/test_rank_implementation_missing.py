"""Reviewer r87 (low): a run naming an Implementation the store lacks ranked without a word.

Added with ``--allow-dangling`` (pending in the work tree, or committed), such a run ranks
as a candidate with no project and no role: a reference implementation's run would rank
too. ``kistore rank`` now says so on stderr, naming the run and the digest, and ``kistore
show`` of such a run says it in the same words (it said only "(not in the store)").
"""

from __future__ import annotations

import json

from kistore.cli import main

from ..conftest import add_docs


def _with_ghost(store, kit, name: str, *, commit: bool) -> tuple[dict, dict]:
    """Commit a group's run "stored" (1000 ns), then add run ``name`` (500 ns) naming an
    Implementation the store lacks, with ``--allow-dangling``; return it and the ghost."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl, ghost = kit.implementation(name="impl"), kit.implementation("ghost", name="ghost")
    add_docs(store, [protocol, env, workload, impl,
                     kit.run(protocol, env, impl, workload, latency=1000, name="stored")])
    run = kit.run(protocol, env, ghost, workload, latency=500, name=name)
    add_docs(store, [run], commit=commit, allow_dangling=True)
    return run, ghost


def test_rank_says_which_ranked_run_names_no_stored_implementation(runner, store, kit):
    pending, ghost = _with_ghost(store, kit, "pending", commit=False)
    for args in ([], ["--json"]):
        result = runner.invoke(main, ["--store", str(store.root), "rank", *args,
                                      "BenchmarkRun/stored"])
        assert result.exit_code == 0, result.output
        assert result.stderr.splitlines() == [
            f"warning: BenchmarkRun/pending ({kit.digest(pending)}) is ranked, but its "
            f"implementationDigest {kit.digest(ghost)} names no Implementation this store "
            "holds: its project and role are unknown (a reference implementation's run "
            "would rank as a candidate); add that Implementation, or check the run's "
            "implementationDigest"]
    rows = json.loads(result.stdout)
    assert [(r["name"], r["rank"], r["role"]) for r in rows] == [
        ("pending", 1, None), ("stored", 2, "candidate")]
    # the implementation arrives: nothing to say
    add_docs(store, [ghost], commit=False)
    result = runner.invoke(main, ["--store", str(store.root), "rank", "BenchmarkRun/stored"])
    assert (result.exit_code, result.stderr) == (0, "")


def test_show_says_it_of_the_run_in_the_same_words(runner, store, kit):
    dangling, ghost = _with_ghost(store, kit, "dangling", commit=True)
    said = (f"warning: BenchmarkRun/dangling ({kit.digest(dangling)}) is ranked, but its "
            f"implementationDigest {kit.digest(ghost)} names no Implementation this store "
            "holds: its project and role are unknown (a reference implementation's run "
            "would rank as a candidate); add that Implementation, or check the run's "
            "implementationDigest")
    for args in ([], ["--json"]):
        result = runner.invoke(main, ["--store", str(store.root), "show", *args,
                                      "BenchmarkRun/dangling"])
        assert result.exit_code == 0, result.output
        assert result.stderr.splitlines() == [said]
        ranked = runner.invoke(main, ["--store", str(store.root), "rank", *args,
                                      "BenchmarkRun/dangling"])
        assert ranked.stderr.splitlines() == [said]  # one module's words, both commands
    # a run whose implementation is stored: nothing to say
    result = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/stored"])
    assert (result.exit_code, result.stderr) == (0, "")


def test_many_such_runs_are_said_once_with_a_count(runner, store, kit):
    # msg94 F10: ~400 characters a run, once per run of the group (a board: 22 times)
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    add_docs(store, [protocol, env, workload])
    ghosts = [kit.run(protocol, env, kit.implementation(f"ghost{i}", name=f"ghost{i}"),
                      workload, latency=100 * (i + 1), name=f"run-{i}") for i in range(5)]
    add_docs(store, ghosts, allow_dangling=True)
    result = runner.invoke(main, ["--store", str(store.root), "rank", "BenchmarkRun/run-0"])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "warning: 5 ranked runs (BenchmarkRun/run-0, BenchmarkRun/run-1, BenchmarkRun/run-2 "
        "and 2 more) have an implementationDigest naming no Implementation this store holds: "
        "their project and role are unknown (a reference implementation's run would rank as "
        "a candidate); add those Implementations, or check the runs' implementationDigest "
        "(`kistore show RUN` names each)\n")
