"""KI221 at `add` (break96 L7): a run whose ranked value is there but no number.

Only the gate said it (``check``'s KI221); `add` and `import` added the run without a word,
and a contributor learnt at the gate that `rank` would leave it unranked.
"""

from __future__ import annotations

import json

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
