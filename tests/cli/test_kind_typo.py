"""Reviewer r87 (low): a kind mistyped got the list of kinds but no "did you mean".

``kistore ls --kind workload`` and ``kistore show workload/NAME`` now name the kind that was
likely meant, as a mistyped command or name does (:func:`kistore.core.schema.nearest_kind`).
"""

from __future__ import annotations

import pytest

from kistore.cli import main
from kistore.core.schema import nearest_kind

KINDS_LISTED = ("'Workload', 'BenchmarkProtocol', 'ExecutionEnvironment', 'Implementation', "
                "'BenchmarkRun'")


@pytest.mark.parametrize(("typed", "meant"), [
    ("workload", "Workload"), ("BENCHMARKRUN", "BenchmarkRun"), ("Run", "BenchmarkRun"),
    ("environment", "ExecutionEnvironment"), ("Implementaton", "Implementation"),
    ("Workloads", "Workload"), ("protocol", "BenchmarkProtocol"),
    ("Benchmark", None),  # in two kinds: no guess
    ("xyz", None), ("Workload", None)])
def test_nearest_kind(typed, meant):
    assert nearest_kind(typed) == meant


def test_ls_kind_typo_says_the_kind_meant(runner, store):
    result = runner.invoke(main, ["--store", str(store.root), "ls", "--kind", "workload"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '--kind': 'workload' is not one of {KINDS_LISTED} "
        "(did you mean Workload?)")
    far = runner.invoke(main, ["--store", str(store.root), "ls", "--kind", "xyz"])
    assert far.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '--kind': 'xyz' is not one of {KINDS_LISTED}.")


def test_a_reference_with_a_kind_typo_says_the_reference_meant(runner, store):
    result = runner.invoke(main, ["--store", str(store.root), "show", "workload/rmsnorm"])
    assert (result.exit_code, result.stderr) == (1, (  # r88 F9's words, merged after
        "error: 'workload/rmsnorm' is not a reference: 'workload' is not a kind; did you mean "
        "Workload/rmsnorm?\n"))


_INVALID = ("is not a valid name (lower-case letters, digits, '.' and '-', starting and ending "
            "with a letter or digit)")


@pytest.mark.parametrize("typed", [
    "BenchmarkRun/r-90/", "BenchmarkRun/r\u201090", "BenchmarkRun/r\u201190",
    "BenchmarkRun/r\u201390", "BenchmarkRun/R-90/"])
def test_r90_f8_a_name_with_a_slash_or_another_hyphen_says_the_stored_name(runner, store,
                                                                        kit, typed):
    from ..conftest import add_docs

    add_docs(store, [kit.run(kit.protocol(), kit.environment(), kit.implementation(),
                             kit.workload(), latency=10, name="r-90")], allow_dangling=True)
    result = runner.invoke(main, ["--store", str(store.root), "show", typed])
    name = typed.split("/", 1)[1]
    assert (result.exit_code, result.stderr) == (1, (
        f"error: {typed!r} is not a reference: {name!r} {_INVALID}; did you mean "
        "BenchmarkRun/r-90?\n"))
    # a kind in the plural, with the slash: both mended
    plural = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRuns/r-90/"])
    assert plural.stderr.endswith("(did you mean BenchmarkRun/r-90?)\n"), plural.stderr


def test_r90_f8_no_name_is_offered_that_the_store_does_not_hold(runner, store):
    result = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/r\u201091"])
    assert result.stderr == (f"error: 'BenchmarkRun/r\u201091' is not a reference: "
                             f"'r\u201091' {_INVALID}\n")


def _stored_run(store, kit, name: str):
    """Add a run named ``name`` (its references dangling); return its digest."""
    from kistore.core.digest import Digest

    from ..conftest import add_docs

    [digest] = add_docs(store, [kit.run(kit.protocol(), kit.environment(),
                                        kit.implementation(), kit.workload(), latency=10,
                                        name=name)], allow_dangling=True)
    return Digest.from_str(digest)


def test_a_store_path_or_a_leading_slash_says_the_reference_meant(runner, store, kit):
    # break96 L2 (cat97): a path copied from `verify` or an error, or `/KIND/NAME`, was
    # answered with the three forms and no "did you mean"
    from kistore.core import layout
    from kistore.core.digest import Digest

    run = _stored_run(store, kit, "r-90")
    digest = str(run)
    names = layout.name_path("BenchmarkRun", "r-90")
    for typed, meant in (
            ("/BenchmarkRun/r-90", "BenchmarkRun/r-90"),
            ("//BenchmarkRun/r-90/", "BenchmarkRun/r-90"),
            (names, "BenchmarkRun/r-90"),
            (f"./{layout.object_path(run)}", digest),
            (str(store.root / layout.metadata_path(run)), digest)):
        for command in ("cat", "show"):
            result = runner.invoke(main, ["--store", str(store.root), command, typed])
            assert result.exit_code == 1
            assert result.stderr.startswith(f"error: {typed!r} is not a reference: give a "
                                             "digest"), result.stderr
            assert result.stderr.endswith(f"(did you mean {meant}?)\n"), result.stderr
        assert runner.invoke(main, ["--store", str(store.root), "cat", meant]).exit_code == 0
    # nothing stored so: no guess
    for typed in ("/BenchmarkRun/r-91", layout.name_path("BenchmarkRun", "r-91"),
                  layout.object_path(Digest("0" * 64))):
        result = runner.invoke(main, ["--store", str(store.root), "cat", typed])
        assert result.exit_code == 1 and "did you mean" not in result.stderr, result.stderr


def test_a_path_or_digest_with_a_slash_after_it_says_the_reference_meant(runner, store, kit):
    # break97 L8: `.../X.json/`, `store/names/KIND/XX/NAME/` and `784df6cd/` (a shell's
    # completion adds the slash) got no did-you-mean; `KIND/NAME/` did
    from kistore.core import layout

    run = _stored_run(store, kit, "r-92")
    digest = str(run)
    names = layout.name_path("BenchmarkRun", "r-92")
    for typed, meant in (
            (f"{layout.object_path(run)}/", digest),
            (f"{layout.metadata_path(run)}//", digest),
            (f"{names}/", "BenchmarkRun/r-92"),
            (f"{run.hex[:8]}/", digest),
            (f"{digest}/", digest)):
        result = runner.invoke(main, ["--store", str(store.root), "cat", typed])
        assert result.exit_code == 1
        assert result.stderr.startswith(f"error: {typed!r} is not a reference: give a "
                                        "digest"), result.stderr
        assert result.stderr.endswith(f"(did you mean {meant}?)\n"), result.stderr
    # nothing stored so, or a slash alone: no guess
    for typed in (f"{'0' * 8}/", f"{layout.name_path('BenchmarkRun', 'r-93')}/", "/", "//"):
        result = runner.invoke(main, ["--store", str(store.root), "cat", typed])
        assert result.exit_code == 1 and "did you mean" not in result.stderr, result.stderr
