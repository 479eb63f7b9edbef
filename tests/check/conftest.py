"""Fixtures of tests/check: a remote taking pull requests, and an imported run landed on it."""

from __future__ import annotations

import json

import pytest

from ..conftest import ManifestKit
from ..prs import Remote

LICENSE = "kernelindex.dev/license"
CAUTION = "UNCLEAR: internal testing only; do not republish"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    """A bare remote running ``hooks/pre-receive`` on the published store, and a clone."""
    return Remote(published, tmp_path)


def add_imported_run(remote: Remote, kit: ManifestKit) -> str:
    """Add one run whose metadata carries an importer's annotations; return its digest."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=10, name="fast")
    run["metadata"]["annotations"] = {LICENSE: CAUTION, "kernelindex.dev/source": "lab-a",
                                      "team": "a"}
    path = remote.clone.parent / "group.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (protocol, env, workload, impl, run)))
    remote.kistore("add", str(path))
    return kit.digest(run)


@pytest.fixture
def landed_import(remote: Remote, kit: ManifestKit) -> str:
    """Land an imported run (:func:`add_imported_run`) on ``remote``'s main through a pull
    request the gate accepts; return its digest."""
    digest = ""

    def first(clone) -> None:
        nonlocal digest
        digest = add_imported_run(remote, kit)

    assert remote.pr("an imported run", first).accepted
    return digest
