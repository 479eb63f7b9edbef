"""What an attestation says is shown, and held to prose's rules; a rerun must agree to verify.

Review r75 F10: a dispute's reason (a note's text, a withdrawal's reason) was shown by no
output (``attestations``, ``show``, the site, ``export``), and ESC or U+202E in it was
signed and stored without a word. F18: a trusted rerun saying ``reproduced`` with 1 ns
against the run's 13.6 ms made the run ``verified``. Now the text is printed everywhere
(escaped), ``attest`` refuses a control or bidi character in it and ``verify`` reports a
stored one (KI312), and a ``reproduced`` rerun whose latency is more than a factor of 2
off the run's does not verify it (KI311).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.attest import attestation, notes, signing
from kistore.attest.evidence import evidence_for
from kistore.attest.trust import add_key
from kistore.check.audit import verify
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import MultipleErrors

from ..conftest import add_docs, commit_all, fixed_key, redate_history

RERUN_KEY, COMMUNITY_KEY = fixed_key(1), fixed_key(3)


@pytest.fixture
def group(store, kit):
    """One run ``c`` (30 ns mean) in a store trusting RERUN_KEY for reruns: (store, c, env)."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj-c", name="impl-c")
    run = kit.run(protocol, env, impl, workload, latency=30, name="c")
    add_docs(store, [protocol, env, workload, impl, run])
    add_key(store.root, signing.public_key_line(RERUN_KEY.public_key()), ["rerun"])
    commit_all(store.root, "trust")
    redate_history(store.root, "2026-01-01T00:00:00Z")
    return store, Digest.from_str(kit.digest(run)), kit.digest(env)


def _sign(subject: Digest, type_name: str, predicate: dict, key) -> bytes:
    statement = attestation.make_statement(subject, layout.object_path(subject), type_name,
                                           predicate)
    return attestation.sign_statement(statement, key).to_bytes()


def _rerun(subject: Digest, env: str, mean: float) -> bytes:
    return _sign(subject, "rerun", {
        "outcome": "reproduced", "observedAt": "2026-07-10T06:41:58Z",
        "environmentDigest": env,
        "timing": {"latencyNs": {"mean": mean}, "primaryStatistic": "mean"}}, RERUN_KEY)


def cli(runner, store, *args):
    return runner.invoke(main, ["--store", str(store.root), *args])


# -- F18: a reproduction must agree within a factor of 2 ---------------------------------

@pytest.mark.parametrize(("mean", "verified"), [
    (31, True), (60, True), (15, True),  # 2x and 1/2x are inside, both included
    (60.001, False), (14.999, False), (1, False), (3e9, False)])
def test_a_reproduced_rerun_verifies_only_within_a_factor_of_two(group, mean, verified):
    store, run, env = group
    notes.attach(store, run, _rerun(run, env, mean))
    found = evidence_for(store, run)
    assert found.level == ("verified" if verified else "source-native")
    [judged] = found.attestations
    assert judged["effect"] == ("verifies" if verified else "out-of-tolerance")
    ki311 = [f for f in verify(store) if f.rule.id == "KI311"]
    assert [f.severity for f in ki311] == ([] if verified else ["warning"])


def test_the_finding_and_show_say_how_far_off(group, runner):
    store, run, env = group
    notes.attach(store, run, _rerun(run, env, 1))
    why = ("trusted rerun key, but it measured 1 ns (mean), the run 30 ns: a ratio of "
           "0.03333x, outside [0.5, 2]; a measurement that far off does not reproduce the "
           "run, so it does not verify it")
    [judged] = evidence_for(store, run).attestations
    assert judged["reason"] == why
    [finding] = [f for f in verify(store) if f.rule.id == "KI311"]
    assert finding.message.endswith(f"(note): {why}")
    assert finding.rule.name == "rerun-outside-tolerance"
    shown = cli(runner, store, "show", "BenchmarkRun/c")
    assert shown.exit_code == 0, shown.output
    assert f"out-of-tolerance, from note: {why}" in shown.stdout
    assert "evidence: source-native" in shown.stdout
    listed = cli(runner, store, "attestations", "BenchmarkRun/c")
    assert (listed.exit_code, listed.stdout.splitlines()[1]) == (0, "evidence:  source-native")


# -- F10: a dispute's reason, a note's text ------------------------------------------------

REASON = "timer excludes sync"


def _dispute(subject: Digest, reason: str) -> bytes:
    return _sign(subject, "dispute", {"reason": reason, "createdAt": "2026-07-10T00:00:00Z"},
                 COMMUNITY_KEY)


def test_a_dispute_s_reason_is_shown_everywhere(group, runner, tmp_path):
    store, run, _ = group
    notes.attach(store, run, _dispute(run, REASON))
    notes.attach(store, run, _sign(run, "note", {"text": "see issue 12",
                                                 "createdAt": "2026-07-10T00:00:00Z"},
                                   COMMUNITY_KEY))
    listed = cli(runner, store, "attestations", "BenchmarkRun/c")
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    assert any(line.startswith("dispute SHA256:") and line.endswith(
        f" valid community, from note; reason: {REASON}") for line in lines), lines
    assert any(line.endswith(" valid community, from note; text: see issue 12") for line in lines)
    data = json.loads(cli(runner, store, "attestations", "BenchmarkRun/c", "--json").stdout)
    assert sorted((a["type"], a["text"]) for a in data["attestations"]) == [
        ("dispute", REASON), ("note", "see issue 12")]
    shown = cli(runner, store, "show", "BenchmarkRun/c")
    assert f"; reason: {REASON}" in shown.stdout
    page = json.loads(cli(runner, store, "show", "BenchmarkRun/c", "--json").stdout)
    assert REASON in [a["text"] for a in page["attestations"]]
    site = tmp_path / "site"
    assert cli(runner, store, "site", "build", str(site)).exit_code == 0
    [run_dir] = [p for p in (site / "runs").iterdir() if p.is_dir()]
    assert f'<span class="says">{REASON}</span>' in (run_dir / "index.html").read_text()
    twin = json.loads((run_dir / "index.json").read_text())
    assert REASON in [a["text"] for a in twin["data"]["attestations"]]
    out = tmp_path / "export"
    assert cli(runner, store, "export", str(out)).exit_code == 0
    from ..export.conftest import duck

    assert duck(out, "select type, text from {attestations} order by type") == [
        ("dispute", REASON), ("note", "see issue 12")]


HOSTILE = "x \x1b[2J \u202eevil"
REFUSED = ("'x \\x1b[2J \\u202eevil' holds U+001B at character 3, a control character "
           "(free text may hold line feeds, no other control): remove it")


def test_attest_refuses_a_text_holding_esc_or_bidi(group, runner, tmp_path):
    store, run, _ = group
    with pytest.raises(MultipleErrors) as caught:
        attestation.make_statement(run, layout.object_path(run), "dispute",
                                   {"reason": HOSTILE, "createdAt": "2026-07-10T00:00:00Z"})
    assert [(p.pointer, p.message) for p in caught.value.problems] == [("/reason", REFUSED)]
    key = tmp_path / "k"
    assert cli(runner, store, "key", "generate", str(key)).exit_code == 0
    done = cli(runner, store, "attest", "BenchmarkRun/c", "--type", "dispute", "-m", HOSTILE,
               "--key", str(key))
    assert done.exit_code == 1, done.output
    assert done.stderr == f"error: -m/--message:/reason: {REFUSED}\n"
    bidi = cli(runner, store, "attest", "BenchmarkRun/c", "--type", "note", "-m",
               "fine \u202eevil", "--key", str(key))
    assert bidi.exit_code == 1 and "U+202E" in bidi.stderr and "bidirectional" in bidi.stderr
    assert evidence_for(store, run).attestations == ()  # nothing signed, nothing stored


def test_a_stored_hostile_text_is_ki312_and_printed_escaped(group, runner, monkeypatch,
                                                            tmp_path):
    store, run, _ = group
    notes.attach(store, run, _hostile_dispute(monkeypatch, run))
    [finding] = [f for f in verify(store) if f.rule.id == "KI312"]
    assert finding.severity == "error" and finding.rule.name == "attestation-text-refused"
    assert finding.message.endswith(f"(note): its text /reason: {REFUSED}")
    listed = cli(runner, store, "attestations", "BenchmarkRun/c")
    line = [s for s in listed.stdout.splitlines() if s.startswith("dispute")][0]
    assert line.endswith("; reason: x \\x1b[2J \\u202eevil") and "\x1b" not in listed.stdout
    shown = cli(runner, store, "show", "BenchmarkRun/c")
    assert "\x1b" not in shown.stdout and "\u202e" not in shown.stdout
    site = tmp_path / "site"
    assert cli(runner, store, "site", "build", str(site)).exit_code == 0
    [run_dir] = [p for p in (site / "runs").iterdir() if p.is_dir()]
    html = (run_dir / "index.html").read_text()
    assert "\x1b" not in html and "\u202e" not in html
    assert '<span class="says">x \\x1b[2J \\u202eevil</span>' in html


def _hostile_dispute(monkeypatch, run: Digest) -> bytes:
    with monkeypatch.context() as m:  # signed by another tool: kistore refuses to sign it
        m.setattr(attestation, "text_problems", lambda predicate, file=None: [])
        return _dispute(run, HOSTILE)


def test_the_gate_refuses_such_a_note_line_and_such_a_file(group, monkeypatch):
    from kistore.check.gate import check_range, check_updates
    from kistore.core.layout import NOTES_REF

    from ..conftest import git

    store, run, _ = group
    data = _hostile_dispute(monkeypatch, run)
    notes.attach(store, run, data)
    tip = git(store.root, "rev-parse", NOTES_REF).strip()
    said = [(f.rule.id, f.message) for f in check_updates(store, [("0" * 40, tip, NOTES_REF)])
            if f.severity == "error"]
    assert said == [("KI409", f"line 1 of the note: dispute's reason: {REFUSED}")]
    base = git(store.root, "rev-parse", "HEAD").strip()
    notes.attach(store, run, data, as_file=True)
    commit_all(store.root, "a pull request's attestation file")
    found = [(f.rule.id, f.file) for f in check_range(store, f"{base}..HEAD")
             if f.severity == "error"]
    assert found == [("KI312", notes.attestation_path(run, data))]


class _OneRun:
    """A view holding one run object, whatever path is asked (rerun_disagreement reads it)."""

    def __init__(self, mean: float) -> None:
        self.data = json.dumps({"kind": "BenchmarkRun", "spec": {"timing": {
            "primaryStatistic": "mean", "latencyNs": {"mean": mean}}}}).encode()

    def read(self, path, limit=None):
        return self.data


_LATENCY = st.floats(min_value=1e-3, max_value=1e12, allow_nan=False, allow_infinity=False)


@given(_LATENCY, _LATENCY)
def test_a_rerun_disagrees_exactly_when_its_ratio_is_outside_half_to_two(ours, theirs):
    from kistore.attest.subjects import rerun_disagreement

    view = _OneRun(ours)  # the subject its bytes' digest: edited bytes are not read
    said = rerun_disagreement(view, Digest.of(view.data), {"timing": {
        "primaryStatistic": "mean", "latencyNs": {"mean": theirs}}})
    assert (said is None) == (0.5 <= theirs / ours <= 2.0)


# -- review r88 F12: the ratio said exactly, above the range as below, and what is superseded --

def _attest_rerun(runner, store, run, env, tmp_path, mean, outcome="reproduced",
                  observed="2026-07-10T06:41:58Z"):
    key = tmp_path / "rerun-key"
    key.write_bytes(signing.private_key_bytes(RERUN_KEY))
    predicate = tmp_path / f"rerun-{mean}.json"
    predicate.write_text(json.dumps({
        "outcome": outcome, "observedAt": observed, "environmentDigest": env,
        "timing": {"latencyNs": {"mean": mean}, "primaryStatistic": "mean"}}))
    return cli(runner, store, "attest", str(run), "--type", "rerun", "--outcome", outcome,
               "--predicate", str(predicate), "--key", str(key))


@pytest.mark.parametrize(("mean", "ratio"), [
    (14.999992, "0.4999997x"),  # below: it read "0.5x, outside [0.5, 2]"
    (60.000008, "2.0000003x"),  # above: attest warned of nothing
])
def test_attest_warns_of_a_rerun_just_outside_the_range_with_its_exact_ratio(
        group, runner, tmp_path, mean, ratio):
    store, run, env = group
    result = _attest_rerun(runner, store, run, env, tmp_path, mean)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(
        f"warning: this rerun does not verify the run: it counts as out-of-tolerance "
        f"(trusted rerun key, but it measured {mean:,.10g} ns (mean), the run 30 ns: a ratio "
        f"of {ratio}, outside [0.5, 2]; ")


def test_a_later_rerun_of_the_same_key_names_the_rerun_it_supersedes(group, runner, tmp_path):
    store, run, env = group
    # no wait between them (until 2026-12-07 it slept past each second: of reruns entered in
    # one second, the line whose bytes sorted last stood); the dates they state order them
    first = _attest_rerun(runner, store, run, env, tmp_path, 14.999992)
    second = _attest_rerun(runner, store, run, env, tmp_path, 60.000008,
                           observed="2026-07-10T06:41:59Z")
    third = _attest_rerun(runner, store, run, env, tmp_path, 90, outcome="not-reproduced",
                          observed="2026-07-10T06:42:00Z")
    assert [r.exit_code for r in (first, second, third)] == [0, 0, 0]
    # the second: the same outcome (both stand): its own warning, no other rerun named
    assert "a ratio of 2.0000003x, outside [0.5, 2]" in second.stderr
    assert "note:" not in second.stderr
    # the third: not reproduced (it disagrees: no warning of its own); the two earlier
    # ones of the same key are superseded, each named (it read "counts as superseded
    # (superseded by the same key's later rerun (not-reproduced, ...))" of itself)
    notes_said = [line for line in third.stderr.splitlines() if line.startswith("note: ")]
    assert [line.rpartition(", measured ")[2] for line in notes_said] == [
        "14.999992 ns): what a key said last stands, so that one no longer counts",
        "60.000008 ns): what a key said last stands, so that one no longer counts"]
    assert "counts as superseded" not in third.stderr  # it was said of itself
