"""KI250, and KI245 on the real data: policy changes that do nothing or unrank unsaid (fresh96).

F5: an entry under a family no protocol has (``kernelbench_timimg``) passed the gate with no
word, and `rank` went on ranking the family as before. F1: a metric every run of a family
holds as a string, a boolean or an object unranked the whole family with a green gate.
"""

from __future__ import annotations

import json

import pytest

from kistore.query.policy import RankingPolicy
from kistore.query.policy_families import protocol_families, unknown_families

from ..conftest import add_docs, git
from .test_rank_outlier_group import Board, _cli

POLICY = "store/policy/ranking.json"
MEAN = {"comparison": "source-native", "metric": "/timing/latencyNs/mean",
        "order": "ascending", "unit": "ns"}


@pytest.fixture
def board(store, kit, tmp_path):
    return Board(store, kit, tmp_path)


def _write(root, families: dict) -> None:
    path = root / POLICY
    policy = json.loads(path.read_text())
    policy["families"].update(families)
    path.write_text(json.dumps(policy, indent=2) + "\n")


def test_a_family_no_protocol_has_is_an_error_with_a_did_you_mean(board):
    base = board.head()
    _write(board.store.root, {"synthetik": MEAN})
    git(board.store.root, "commit", "-qam", "policy")
    checked = _cli(board.store, "check", f"{base}..HEAD", code=1).output
    assert checked.splitlines()[:2] == [
        f"{POLICY}:/families/synthetik: error KI250 policy-family-unknown: family synthetik "
        "is the family of no protocol of the store; did you mean synthetic? the entry ranks "
        "nothing, and `rank` ranks that family's groups as before (known families: "
        "sol_execbench_leaderboard, synthetic) (expected a family a protocol of the store "
        "states, found synthetik)",
        "fix KI250 (1 finding): key the entry by the family its protocols state (the "
        "message names the closest; `kistore show PROTOCOL` shows a protocol's "
        "`comparability.family`), or add the entry in the change that adds the family's "
        "first protocol, or later"], checked
    assert checked.endswith("FAILED: " f"{base}..HEAD: 1 error, 0 warnings, 0 info\n")
    data = json.loads(_cli(board.store, "check", f"{base}..HEAD", "--json", code=1).stdout)
    [found] = [f for f in data["findings"] if f["rule"] == "KI250"]
    assert found["extra"] == {"family": "synthetik",
                              "known": ["sol_execbench_leaderboard", "synthetic"]}


def test_the_pre_commit_hook_refuses_it(board):
    """pre-commit checks HEAD..STAGED, the same gate."""
    root = board.store.root
    _write(root, {"synthetik": MEAN})
    git(root, "add", POLICY)
    staged = git(root, "commit-tree", git(root, "write-tree").strip(), "-p", "HEAD", "-m",
                 "staged").strip()
    checked = _cli(board.store, "check", f"HEAD..{staged}", code=1).output
    assert "error KI250 policy-family-unknown: family synthetik" in checked


def test_a_family_whose_first_protocol_the_change_adds_is_known(board, kit):
    base = board.head()
    protocol = kit.protocol("newfamily")
    add_docs(board.store, [protocol], commit=False)
    _write(board.store.root, {"newfamily": MEAN})
    git(board.store.root, "add", "-A")
    git(board.store.root, "commit", "-qm", "protocol and policy")
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    assert "KI250" not in checked and "0 errors" in checked, checked


def test_an_entry_the_change_leaves_alone_is_not_its_to_answer(board):
    """An unknown family committed before (past the gate), then another entry changed."""
    _write(board.store.root, {"ghost": MEAN})
    git(board.store.root, "commit", "-qam", "before the rule")
    base = board.head()
    _write(board.store.root, {"synthetic": MEAN})
    git(board.store.root, "commit", "-qam", "policy")
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    assert "KI250" not in checked and "0 errors" in checked, checked


def test_the_shipped_family_and_protocol_families_are_known():
    before = RankingPolicy({}, "base")
    after = RankingPolicy({"sol_execbench_leaderboard": MEAN, "a": MEAN, "zzz": MEAN}, "head")
    assert [f.extra["family"] for f in unknown_families(before, after, {"a"})] == ["zzz"]
    found = unknown_families(before, after, set())  # `kistore init`'s entry: known
    assert [f.pointer for f in found] == ["/families/a", "/families/zzz"]
    assert "did you mean" not in found[1].message
    assert unknown_families(after, after, set()) == []  # nothing changed
    assert protocol_families([{"comparability": {"family": "f"}}, {"comparability": 3},
                              {}]) == {"f"}


def test_fresh96_on_the_real_data(imported_store, tmp_path):
    """F1's cases and F5, as fresh96 ran them on a clone of the real data's store."""
    from kistore.store import Store

    root = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(imported_store.root), str(root))
    store = Store(root)

    def change(families: dict) -> str:
        base = git(root, "rev-parse", "HEAD").strip()
        _write(root, {f: {"comparison": "source-native", "metric": m, "order": "ascending",
                          "unit": "x"} for f, m in families.items()})
        git(root, "commit", "-qam", "policy")
        return _cli(store, "check", f"{base}..HEAD", code=1).output

    said = change({"kernelbench_timing": "/sourceNative/metrics/hardware",
                   "sol_execbench_local": "/sourceNative/metrics/has_nan",
                   "sol_execbench_leaderboard": "/sourceNative/benchmark",
                   "flashinfer_trace": "/sourceNative/status"})
    errors = {line.split("/families/")[1].split("/")[0]: line for line in said.splitlines()
              if " error KI245 " in line}
    assert sorted(errors) == ["flashinfer_trace", "kernelbench_timing",
                              "sol_execbench_leaderboard", "sol_execbench_local"], said
    assert ("ranks /sourceNative/metrics/hardware, which no run of 500 of its comparison "
            "groups holds as a number (they hold strings there, e.g. \"NVIDIA H100 PCIe\")"
            ) in errors["kernelbench_timing"]
    assert ("ranks /sourceNative/metrics/has_nan, which no run of 17 of its comparison "
            "groups holds as a number (they hold booleans there, e.g. false)"
            ) in errors["sol_execbench_local"]
    assert "holds as a number (they hold strings there, e.g. \"PASSED\")" in errors[
        "flashinfer_trace"]
    assert "holds as a number (they hold strings there" in errors["sol_execbench_leaderboard"]
    assert "FAILED: " in said and "4 errors, 0 warnings, 1 info" in said

    git(root, "reset", "-q", "--hard", "HEAD~1")
    said = change({"kernelbench_timing": "/sourceNative/metrics",
                   "kernelbench_timimg": "/sourceNative/metrics/mean"})
    assert ("error KI245 policy-metric-held-by-no-run: family kernelbench_timing ranks "
            "/sourceNative/metrics, which no run of 500 of its comparison groups holds as a "
            "number (they hold objects there, e.g. {\"device\": \"cuda:0\"") in said, said
    assert ("error KI250 policy-family-unknown: family kernelbench_timimg is the family of no "
            "protocol of the store; did you mean kernelbench_timing?") in said
    assert "2 errors, 0 warnings, 1 info" in said, said
