"""KI227: a run observed after it entered the repository, or before 2000 (reviewer r85 F17).

``observedAt: 2099-01-01T00:00:00Z`` and ``1970-01-01T00:00:00Z`` were added, checked and
verified without a word. ``add`` judges against the clock; ``check`` and ``verify`` against
the committer time of the commit that first added the run.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.check._observed import check_observed
from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import canonical, layout
from kistore.core.errors import KistoreError
from kistore.core.findings import exit_code
from kistore.core.model import Manifest
from kistore.core.observed import EARLIEST, observed_problem, observed_seconds, run_observed
from kistore.core.times import utc_text

from ..conftest import add_docs, add_past_a_refusal, git

# every finding made here keeps one meaning per extra key (`entered`: a commit id)
pytestmark = pytest.mark.usefixtures("extra_keys_kept")

DAY = 86_400


def _text(seconds: int) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _docs(kit, observed: str, name: str = "late") -> list[dict]:
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    return [protocol, env, workload, impl,
            kit.run(protocol, env, impl, workload, latency=10_000, name=name, observed=observed)]


def test_observed_problem_bounds():
    entered = 1_780_000_000  # 2026-05-28T20:26:40Z
    assert observed_problem(entered + DAY, entered, "x") is None  # a day of clock skew
    assert observed_problem(EARLIEST, entered, "x") is None
    assert observed_problem(entered + DAY + 1, entered, "commit abc first added it") == (
        "the run says it was observed at 2026-05-29T20:26:41Z, more than a day after it "
        "entered the repository (2026-05-28T20:26:40Z: commit abc first added it): a "
        "measurement is not made after it is stored")
    assert observed_problem(0, entered, "x") == (
        "the run says it was observed at 1970-01-01T00:00:00Z, before 2000-01-01T00:00:00Z: "
        "no GPU ran such kernels then (1970-01-01 is the Unix epoch, a placeholder for a "
        "time not known)")


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00Z", "1969-07-20T20:17:00Z",
                                  "1999-12-31T23:59:59Z"])
def test_observed_problem_quotes_the_runs_own_time(text):
    # r89 F1: 0001-01-01 and 1969 were quoted as 1970-01-01 (commit_text clamps), and every
    # time before 2000 was explained as the Unix epoch
    said = observed_problem(observed_seconds({"observedAt": text}), 1_780_000_000, "x")
    assert said == (f"the run says it was observed at {text}, before 2000-01-01T00:00:00Z: "
                    "no GPU ran such kernels then")


@given(st.integers(min_value=0, max_value=253370764800),  # to 9998-12-31
       st.sampled_from(["Z", "+00:00", "+05:30", "-08:00"]), st.booleans())
def test_run_observed_reads_canonical_bytes_as_parsing_does(seconds, zone, extra_key):
    # the fast path (one "observedAt": key) and the parse agree, whatever the offset
    when = dt.datetime.fromtimestamp(seconds, dt.UTC)
    offset = dt.timedelta(0) if zone == "Z" else dt.datetime.strptime(
        zone, "%z").utcoffset()
    local = when.astimezone(dt.timezone(offset))  # type: ignore[arg-type]
    text = local.strftime("%Y-%m-%dT%H:%M:%S") + zone
    native = {"sourceNative": {"source": "s", "observedAt": "x"}} if extra_key else {}
    spec = {"observedAt": text, "status": "passed", **native}
    data = canonical.dumps({"apiVersion": "kistore.dev/v1alpha1", "kind": "BenchmarkRun",
                            "spec": spec})
    assert run_observed(data) == observed_seconds(spec) == seconds
    other = canonical.dumps({"apiVersion": "kistore.dev/v1alpha1", "kind": "Workload",
                             "spec": spec})
    assert run_observed(other) is None  # only a run's time is judged


@given(st.sampled_from(['"', "\\", "\n", "\u0000", "\u001f"]), st.booleans())
def test_an_escaped_observed_value_is_parsed_not_cut_at_the_escape(escape, before):
    # canonical bytes escape only '"', '\\' and control characters: such a value is read by
    # parsing the document (the fast path would cut it at its escaped quote), and reads as
    # the parse does: no date-time (the fallback had no test; tidy88)
    from kistore.core import observed as observed_module

    text = escape + "2026-01-01T00:00:00Z" if before else "2026-01-01T00:00:00Z" + escape
    spec = {"observedAt": text, "status": "passed"}
    data = canonical.dumps({"apiVersion": "kistore.dev/v1alpha1", "kind": "BenchmarkRun",
                            "spec": spec})
    assert b"\\" in data[data.find(b'"observedAt":"'):]  # escaped in the bytes
    parsed = []
    real = observed_module.loads_lenient

    def counted(raw):
        parsed.append(raw)
        return real(raw)

    observed_module.loads_lenient = counted
    try:
        assert run_observed(data) is None and observed_seconds(spec) is None
        assert parsed == [data]  # the fallback, once
        plain = canonical.dumps({"apiVersion": "kistore.dev/v1alpha1", "kind": "BenchmarkRun",
                                 "spec": {**spec, "observedAt": "2026-01-01T00:00:00Z"}})
        assert run_observed(plain) == 1767225600 and parsed == [data]  # the fast path
    finally:
        observed_module.loads_lenient = real


def test_add_refuses_a_run_observed_two_days_ahead(store, kit, runner, tmp_path):
    """Reviewer r87: ``observedAt: 2099-...`` was only a warning, the run added and ranked."""
    docs = _docs(kit, "2026-01-01T00:00:00Z")
    add_docs(store, docs[:4])
    for ahead in (_text(int(time.time()) + 2 * DAY), "2099-01-01T00:00:00Z"):
        late = _docs(kit, ahead)[4]
        with pytest.raises(KistoreError) as caught:
            store.add([Manifest.from_document(late)], commit=True)
        [problem] = caught.value.problems
        assert problem.pointer == "/spec/observedAt"
        assert re.fullmatch(
            rf"the run says it was observed at {ahead}, more than a day after it entered the "
            r"repository \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: this add, by this machine's clock\): "
            r"a measurement is not made after it is stored; state when the run was measured "
            r"\(RFC 3339\) and add it again \(KI227\)", problem.message), problem.message
        assert not (store.root / layout.object_path(Manifest.from_document(late).digest)).exists()
    path = tmp_path / "late.json"
    path.write_text(json.dumps(_docs(kit, "2099-01-01T00:00:00Z")[4]))
    done = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert done.exit_code == 1, done.output
    assert done.stderr.startswith(f"error: {path}:/spec/observedAt: the run says it was "
                                  "observed at 2099-01-01T00:00:00Z, more than a day after")
    assert done.stderr.rstrip().endswith("and add it again (KI227)")


def test_a_run_observed_ahead_committed_by_hand_is_an_error_in_check_a_warning_in_verify(
        store, kit, monkeypatch):
    base = git(store.root, "rev-parse", "HEAD").strip()
    docs = _docs(kit, "2099-01-01T00:00:00Z")
    add_past_a_refusal(store, monkeypatch, [], docs, rule="kistore.store.observed."
                       "observed_admitted", finds_nothing=lambda *a, **k: [])
    head = git(store.root, "rev-parse", "HEAD").strip()
    [error] = [f for f in check_range(store, f"{base}..{head}") if f.rule.id == "KI227"]
    assert (error.severity, error.pointer, error.extra["commit"]) == (
        "error", "/spec/observedAt", head)
    assert "2099-01-01T00:00:00Z, more than a day after it entered the repository (" \
           in error.message and f": commit {head[:12]} first added it)" in error.message
    assert "`kistore drop DIGEST` before it is committed" in error.hint
    [warning] = check_observed(store)
    assert (warning.severity, warning.message) == ("warning", error.message)
    assert exit_code(verify(store)) == 0


def test_a_sequence_of_pull_requests_cannot_land_a_run_observed_ahead(store, kit, monkeypatch):
    """PR1 adds a run observed 12 hours ahead of its commit (clock skew): passes. PR2 adds a
    run observed 2099 past ``add``: the gate refuses it. PR3 dates its commit 2099 so that
    the same run is no longer ahead of it: KI428 refuses the commit. What each gate passes,
    ``verify`` passes."""
    now = int(time.time())
    base = git(store.root, "rev-parse", "HEAD").strip()
    docs = _docs(kit, _text(now + DAY // 2), name="soon")
    add_docs(store, docs)
    pr1 = git(store.root, "rev-parse", "HEAD").strip()
    assert exit_code(check_range(store, f"{base}..{pr1}")) == 0
    assert check_observed(store) == [] and exit_code(verify(store)) == 0
    protocol, env, workload, impl = docs[:4]
    late = kit.run(protocol, env, impl, workload, latency=5, name="late",
                   observed="2099-01-01T00:00:00Z")
    add_past_a_refusal(store, monkeypatch, [], [late], rule="kistore.store.observed."
                       "observed_admitted", finds_nothing=lambda *a, **k: [])
    pr2 = git(store.root, "rev-parse", "HEAD").strip()
    assert [(f.rule.id, f.severity) for f in check_range(store, f"{pr1}..{pr2}")
            if f.severity == "error"] == [("KI227", "error")]
    git(store.root, "reset", "-q", "--hard", pr1)
    with monkeypatch.context() as m:
        m.setattr("kistore.store.observed.observed_admitted", lambda *a, **k: [])
        add_docs(store, [late], commit=False)
    git(store.root, "add", "store")
    env_2099 = {**os.environ, "GIT_COMMITTER_DATE": "2099-01-01T00:00:00Z",
                "GIT_AUTHOR_DATE": "2099-01-01T00:00:00Z"}
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "late"], cwd=store.root,
                   env=env_2099, check=True)
    pr3 = git(store.root, "rev-parse", "HEAD").strip()
    errors = {f.rule.id for f in check_range(store, f"{pr1}..{pr3}") if f.severity == "error"}
    assert errors == {"KI428"}  # the run is not ahead of its commit; the commit's date is


def test_a_run_observed_before_2000_is_added_with_advice_for_both_states(store, kit, runner,
                                                                         tmp_path):
    docs = _docs(kit, "1970-01-01T00:00:00Z", name="epoch")
    add_docs(store, docs[:4])
    digest = Manifest.from_document(docs[4]).digest
    path = tmp_path / "epoch.json"
    path.write_text(json.dumps(docs[4]))
    done = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert done.exit_code == 0, done.output
    assert (f"while this add is not committed, `kistore drop {digest}` takes it back and you "
            "add the corrected file; once committed, objects are never edited: add the "
            "corrected run as a new object (KI227: added all the same; `check` and `verify` "
            "warn too)") in done.stderr
    # the advice works: the uncommitted run is dropped, the corrected one added
    dropped = runner.invoke(main, ["--store", str(store.root), "drop", str(digest)])
    assert dropped.exit_code == 0, dropped.output
    assert not (store.root / layout.object_path(digest)).exists()
    docs[4]["spec"]["observedAt"] = "2026-01-01T00:00:00Z"
    path.write_text(json.dumps(docs[4]))
    again = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert again.exit_code == 0 and "KI227" not in again.stderr, again.output


def test_show_prints_when_the_run_was_observed(store, kit, runner, monkeypatch):
    add_docs(store, _docs(kit, "2026-01-01T00:00:00Z", name="plain"))
    shown = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/plain"])
    assert shown.exit_code == 0, shown.output
    assert "\n  status          passed\n  observed        2026-01-01T00:00:00Z\n" in shown.stdout
    protocol, env, workload, impl = _docs(kit, "x")[:4]
    late = kit.run(protocol, env, impl, workload, latency=5, name="late",
                   observed="2099-01-01T00:00:00Z")
    add_past_a_refusal(store, monkeypatch, [], [late], rule="kistore.store.observed."
                       "observed_admitted", finds_nothing=lambda *a, **k: [])
    shown = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/late"])
    assert shown.exit_code == 0, shown.output
    assert ("\n  observed        2099-01-01T00:00:00Z (more than a day after this machine's "
            "clock: a measurement is not made after it is stored, KI227)\n") in shown.stdout


def test_verify_later_judges_against_the_adding_commit_not_the_clock(store, kit):
    # the run claims yesterday: no longer ahead of the clock, but two days after the commit
    # that added it (dated three days ago): verify, later, still warns
    now = int(time.time())
    docs = _docs(kit, _text(now - DAY))
    add_docs(store, docs, commit=False)
    env = {**os.environ, "GIT_COMMITTER_DATE": f"@{now - 3 * DAY} +0000",
           "GIT_AUTHOR_DATE": f"@{now - 3 * DAY} +0000"}
    git(store.root, "add", "store")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "runs"], cwd=store.root,
                   env=env, check=True)
    [finding] = check_observed(store)
    assert finding.file.startswith("store/objects/sha256/")
    assert finding.extra["enteredAt"] == utc_text(now - 3 * DAY)  # a time; `entered`: a commit
    # and a run observed before 2000 is warned of whenever it entered
    docs = _docs(kit, "1970-01-01T00:00:00Z", "epoch")
    add_docs(store, docs[4:])
    said = sorted(f.message[:65] for f in check_observed(store))
    assert said == ["the run says it was observed at 1970-01-01T00:00:00Z, before 2000",
                    f"the run says it was observed at {_text(now - DAY)}, more than a"]


def test_a_plausible_run_is_not_warned_of(store, kit):
    results = store.add([Manifest.from_document(d)
                         for d in _docs(kit, "2026-01-01T00:00:00Z")], commit=True)
    assert not any(r.warnings for r in results)
    assert check_observed(store) == []


def test_verify_judges_the_times_its_contents_check_read_each_blob_read_once(
        store, kit, blob_reads):
    # verify's KI227 is check_observed's, from the bytes the contents check read: no run's
    # blob is read again (a commit's by its tree's blob id, the work tree's by the entry
    # the check made); an object whose work-tree bytes differ from the blob that first
    # added it is judged from that blob, read once (reviewer leftover, tidy88)
    from kistore.check import _observed
    from kistore.check.audit import verify

    now = int(time.time())
    add_docs(store, _docs(kit, _text(now - DAY)), commit=False)
    env = {**os.environ, "GIT_COMMITTER_DATE": f"@{now - 3 * DAY} +0000",
           "GIT_AUTHOR_DATE": f"@{now - 3 * DAY} +0000"}
    git(store.root, "add", "store")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "runs"], cwd=store.root,
                   env=env, check=True)
    alone = check_observed(store)
    assert len(alone) == 1
    reads = blob_reads(_observed)
    for at in (None, "HEAD"):
        found = [f for f in verify(store, at, workers=1) if f.rule.id == "KI227"]
        assert found == alone and reads == []
    path = alone[0].file
    (store.root / path).write_bytes((store.root / path).read_bytes() + b" ")  # KI101
    found = [f for f in verify(store, workers=1) if f.rule.id == "KI227"]
    assert found == alone and reads == [path]


def test_many_runs_before_2000_are_said_in_full_once_then_briefly(store, kit, runner,
                                                                  tmp_path):
    # msg94 F10: ~580 characters a run, once per run of an add of many old runs
    docs = _docs(kit, "1970-01-01T00:00:00Z", name="epoch")
    protocol, env, workload, impl = docs[:4]
    add_docs(store, docs[:4])
    runs = [kit.run(protocol, env, impl, workload, latency=10_000 + i, name=f"old-{i}",
                    observed="1970-01-01T00:00:00Z") for i in range(3)]
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    done = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert done.exit_code == 0, done.output
    digests = [Manifest.from_document(r).digest for r in runs]
    warned = done.stderr.splitlines()
    assert warned[0].endswith("(KI227: added all the same; `check` and `verify` warn too; 3 "
                              "runs of this add are so, each warned of)")
    assert f"`kistore drop {digests[0]}` takes it back" in warned[0]
    assert warned[1:] == [
        f"warning: {path}:{i + 1}:1:/spec/observedAt: observed at 1970-01-01T00:00:00Z, before "
        f"2000-01-01T00:00:00Z too: as the first such warning says (KI227; `kistore drop "
        f"{digests[i]}` takes it back while not committed)" for i in (1, 2)]
    assert len(warned[1]) < len(warned[0]) / 2
