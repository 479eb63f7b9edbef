"""KI221 at `add` (break96 L7): a run whose ranked value is there but no number.

Only the gate said it (``check``'s KI221); `add` and `import` added the run without a word,
and a contributor learnt at the gate that `rank` would leave it unranked.
"""

from __future__ import annotations

import json

from ..conftest import git
from . import test_policy_arriving as arriving
from .test_policy_arriving import MEAN, rank_by_the_mean
from .test_rank_outlier_group import _cli

group = arriving.group  # the fixture: one group of three runs stating the source's mean


def test_add_warns_of_a_run_whose_ranked_value_is_a_string(group, tmp_path):
    """break96 L7: `add` said nothing of ``"0.00368"`` at the metric the policy ranks the
    family by; only the gate's KI221 did. Now `add` warns: which file and line, which JSON
    Pointer, what was expected; the run is added all the same."""
    store, kit, (protocol, env, work) = group
    rank_by_the_mean(store)
    impl = kit.implementation("proj-str", name="impl-str")
    path = tmp_path / "str.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, kit.run(
        protocol, env, impl, work, latency=3_700_000, name="str",
        native={"metrics": {"mean": "3.7"}}))))
    added = _cli(store, "add", str(path))
    [line] = [x for x in added.stderr.splitlines() if "KI221" in x]
    assert line == (
        f"warning: {path}:2:1:/spec{MEAN}: states \"3.7\" at {MEAN}, the value its family "
        "'synthetic' is ranked by, which is no number (expected a number, found \"3.7\"); "
        "state the ranked value as a JSON number (0.5, not \"0.5\"); as it is, `rank` "
        "leaves the run unranked (KI221: added all the same; `check` warns too)"), line
    assert "BenchmarkRun str" in added.stdout
    # a number there: nothing said
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, kit.run(
        protocol, env, impl, work, latency=3_700_000, name="num",
        native={"metrics": {"mean": 3.7}}))))
    assert "KI221" not in _cli(store, "add", str(path)).stderr


def _where(path, text: str) -> str:
    """Return ``PATH:LINE:COLUMN`` of the first ``text`` in the file (1-based, characters)."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return f"{path}:{number}:{line.index(text) + 1}"
    raise AssertionError(f"{text} not in {path}")


def test_a_json_file_s_warning_names_the_value_s_line_and_column(group, tmp_path):
    """break97 L7: KI221 of a run in a ``.json`` file named ``run.json:/spec/...`` without
    line:column, where JSON Lines give the line; now the value's own line and column, in a
    manifest file and in a bundle member."""
    store, kit, (protocol, env, work) = group
    rank_by_the_mean(store)
    impl = kit.implementation("proj-pretty", name="impl-pretty")
    run = kit.run(protocol, env, impl, work, latency=3_700_000, name="pretty",
                  native={"metrics": {"mean": "3.7"}})
    _cli(store, "add", str(_file(tmp_path / "impl.json", impl)))
    path = _file(tmp_path / "pretty.json", run)
    [line] = [x for x in _cli(store, "add", str(path)).stderr.splitlines() if "KI221" in x]
    where = _where(path, '"3.7"')
    assert line.startswith(f"warning: {where}:/spec{MEAN}: states \"3.7\" at {MEAN}"), line
    run["metadata"]["name"] = "bundled"
    run["spec"]["sourceNative"]["metrics"]["mean"] = "3.8"
    bundle = _file(tmp_path / "bundle.json", {"implementation": impl, "run": run})
    [line] = [x for x in _cli(store, "add", str(bundle)).stderr.splitlines() if "KI221" in x]
    where = _where(bundle, '"3.8"')
    assert line.startswith(f"warning: {where}:/run/spec{MEAN}: states \"3.8\""), line


def _file(path, document):
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def test_null_at_the_ranked_metric_is_no_value_in_one_wording(group, tmp_path):
    """break97 L7, decided: ``null`` is JSON's "no value", what a run stating it means, so
    no KI221 (at ``add`` or ``check``); ``rank`` says ``null at /M: no value``, a run
    without the key ``no value at /M``, each as it is."""
    store, kit, (protocol, env, work) = group
    rank_by_the_mean(store)
    base = git(store.root, "rev-parse", "HEAD").strip()
    docs = []
    for name, metrics in (("null", {"mean": None}), ("absent", {})):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=3_700_000, name=name,
                               native={"metrics": metrics})]
    path = tmp_path / "null.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    assert "KI221" not in _cli(store, "add", "--commit", str(path)).stderr
    assert "KI221" not in _cli(store, "check", f"{base}..HEAD").output
    ranked = _cli(store, "rank", "BenchmarkRun/null").stdout
    assert f"null [evidence: source-native]  (null at {MEAN}: no value)" in ranked, ranked
    assert f"absent [evidence: source-native]  (no value at {MEAN})" in ranked, ranked


def test_add_of_the_environment_completing_a_run_s_group_warns_for_it(group, tmp_path):
    """pol97 left: a run stored before its environment (``--allow-dangling``), its ranked
    value a string: the add of the environment puts it in its group, and the gate's KI221
    said so, ``add`` did not. Now ``add`` says it, on the environment's line, naming the
    run."""
    store, kit, (protocol, _, work) = group
    rank_by_the_mean(store)
    env = kit.environment(driver="560.35")
    impl = kit.implementation("proj-dang", name="impl-dang")
    path = tmp_path / "dang.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, kit.run(
        protocol, env, impl, work, latency=3_700_000, name="dang",
        native={"metrics": {"mean": "3.7"}}))))
    _cli(store, "add", "--allow-dangling", "--commit", str(path))
    base = git(store.root, "rev-parse", "HEAD").strip()
    run = json.loads(_cli(store, "show", "BenchmarkRun/dang", "--json").stdout)["digest"]
    envs = tmp_path / "env.jsonl"
    envs.write_text(json.dumps(env) + "\n")
    [line] = [x for x in _cli(store, "add", "--commit", str(envs)).stderr.splitlines()
              if "KI221" in x]
    assert line == (
        f"warning: {envs}:1:1: BenchmarkRun/dang ({run}), a stored run whose comparison group "
        f"this add completes, states \"3.7\" at {MEAN}, the value its family 'synthetic' is "
        "ranked by, which is no number (expected a number, found \"3.7\"); state the ranked "
        "value as a JSON number (0.5, not \"0.5\"); as it is, `rank` leaves the run unranked "
        "(KI221: added all the same; `check` warns too)"), line
    assert "warning KI221" in _cli(store, "check", f"{base}..HEAD").output  # as the gate
