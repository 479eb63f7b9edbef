"""A bulk add refuses each manifest exactly as an add of that manifest alone refuses it.

Issue 22 makes the bulk add cheaper by sharing work between the runs of a batch (names
paths, directories, comparisons, key objects found once): sharing must never change a
verdict. Each example adds a batch of runs, some of them broken in one of the ways an add
refuses (a contradiction, a dangling reference, a reference to another kind, a name
taken, other metadata for a stored run), and holds every refusal the batch says of a run
to be, word for word, what an add of that run alone says; a run left whole is refused
for nothing. Every add here is refused, so nothing is ever written (checked).
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.generate import manifests
from kistore.core.errors import MultipleErrors
from kistore.core.model import Manifest
from kistore.query.outlier_rules import outliers_check
from kistore.query.ranked_values import values_check
from kistore.query.units import units_admitted
from kistore.store import admission

from ..conftest import snapshot

BROKEN = ("slipped", "dangling", "wrong-kind", "name-taken", "other-metadata")
"""How a run of a batch is broken (:func:`broken`)."""

CHECKS = (units_admitted, values_check, outliers_check(None))
"""The query layer's rules ``kistore add`` hands to an add of runs (KI210, KI221, KI234)."""


@pytest.fixture(scope="module")
def docs() -> list[dict]:
    return list(manifests(120))


@pytest.fixture
def stored(store, docs):
    """A store holding the generated referenced manifests and the first 10 runs, committed.

    Returns ``(store, referenced docs, stored run docs, the other ~100 run docs)``.
    """
    referenced = [d for d in docs if d["kind"] != "BenchmarkRun"]
    runs = [d for d in docs if d["kind"] == "BenchmarkRun"]
    store.add([Manifest.from_document(d) for d in referenced + runs[:10]], commit=True)
    return store, referenced, runs[:10], runs[10:]


def broken(how: str, run: dict, referenced: list[dict], stored_runs: list[dict]) -> dict:
    """Return ``run`` broken as ``how`` says (a copy)."""
    run = copy.deepcopy(run)
    if how == "slipped":  # KI222 (passed a check it failed), KI230 and KI233 (ms as ns)
        run["spec"]["timing"]["latencyNs"] = {"mean": 46, "median": 45, "min": 41, "max": 59}
        run["spec"]["status"], run["spec"]["correctness"]["passed"] = "passed", False
    elif how == "dangling":
        run["spec"]["workloadDigest"] = "sha256:" + "ab" * 32
    elif how == "wrong-kind":  # KI202: an Implementation's digest as its workload
        implementation = next(d for d in referenced if d["kind"] == "Implementation")
        run["spec"]["workloadDigest"] = str(Manifest.from_document(implementation).digest)
    elif how == "name-taken":
        run["metadata"]["name"] = stored_runs[0]["metadata"]["name"]
    elif how == "other-metadata":  # a stored run given again with another title
        run = copy.deepcopy(stored_runs[1])
        run["metadata"]["title"] = "another title"
    return run


def refusals(store, batch: list[Manifest], places: list[str]) -> dict[str, list[str]]:
    """Return what an add of ``batch`` refuses, by place (each manifest's own), formatted."""
    with pytest.raises(MultipleErrors) as refused:
        store.add(batch, origins=dict(zip((m.digest for m in batch), places, strict=True)),
                  checks=CHECKS)
    said: dict[str, list[str]] = {}
    for problem in refused.value.problems:
        said.setdefault(problem.file, []).append(problem.format())
    return {place: sorted(lines) for place, lines in said.items()}


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.sampled_from((None, *BROKEN)), min_size=6, max_size=6).filter(
    lambda hows: any(hows) and hows.count("other-metadata") <= 1))
def test_a_batch_refuses_each_run_as_an_add_of_it_alone_does(stored, store_path, hows):
    store, referenced, stored_runs, fresh_runs = stored
    before = snapshot(store_path)
    batch, places = [], []
    hows = [*hows, *[None] * (len(fresh_runs) - len(hows))]  # past BULK_LOOKUP: listings
    for i, how in enumerate(hows):
        doc = fresh_runs[i] if how is None else broken(how, fresh_runs[i], referenced,
                                                       stored_runs)
        batch.append(Manifest.from_document(doc))
        places.append(f"run{i}-{how or 'whole'}")
    assert len(batch) >= admission.BULK_LOOKUP
    together = refusals(store, batch, places)
    for m, place, how in zip(batch, places, hows, strict=True):
        if how is None:
            assert place not in together  # a whole run is refused for nothing
            continue
        alone = refusals(store, [m], [place])
        assert together.get(place) == alone[place], how
    assert set(together) == {p for p, how in zip(places, hows, strict=True) if how}
    assert snapshot(store_path) == before  # every add refused: nothing written


def test_each_way_of_breaking_a_run_is_refused(stored):
    store, referenced, stored_runs, fresh_runs = stored
    for i, how in enumerate(BROKEN):
        m = Manifest.from_document(broken(how, fresh_runs[i], referenced, stored_runs))
        said = refusals(store, [m], [how])[how]
        assert said, how
        expected = {"slipped": "(KI222)", "dangling": "references digests that are not in",
                    "wrong-kind": "is an Implementation, not a Workload",
                    "name-taken": "is already used by",
                    "other-metadata": "is already stored with other metadata"}[how]
        assert any(expected in line for line in said), (how, said)
