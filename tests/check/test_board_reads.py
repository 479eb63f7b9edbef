"""KI238 at add reads each stored manifest it judges once, and parses only what may state a
board (task cost96, item 1).

A batch of runs naming stored Implementations parsed each distinct one (the batch's own had
a bytes test already), and a Workload both KI238 checks asked of was read twice.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import KistoreError
from kistore.core.model import object_document
from kistore.store import boards, statistics

from ..conftest import ManifestKit, add_docs, git
from .test_board_rule import _sol_pair


@pytest.fixture
def parsed(monkeypatch) -> Counter:
    """Count stored manifests parsed by either KI238 check, by (kind, hex)."""
    counted: Counter = Counter()
    real = boards.stored_spec

    def counting(data, hex_, kind):
        counted[kind, hex_] += 1
        return real(data, hex_, kind)

    monkeypatch.setattr(boards, "stored_spec", counting)
    monkeypatch.setattr(statistics, "stored_spec", counting)
    return counted


def _hex(doc) -> str:
    return ManifestKit.digest(doc)[7:]


def test_a_stored_implementation_stating_no_board_is_not_parsed(store, kit, parsed):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload("rmsnorm")
    impl = kit.implementation("p", name="i")
    add_docs(store, [protocol, env, workload, impl])
    parsed.clear()
    runs = [kit.run(protocol, env, impl, workload, latency=1000 + i, name=f"r{i}")
            for i in range(3)]
    add_docs(store, runs)
    assert parsed["Implementation", _hex(impl)] == 0  # was 1: hashed and parsed for nothing


def test_a_workload_both_checks_ask_of_is_read_once(store, kit, parsed):
    protocol, env = kit.protocol(), kit.environment()
    board10, impl10 = _sol_pair(kit, 10, "010_attention", "sol-kernel-10-submission-7")
    add_docs(store, [protocol, env, board10, impl10])
    parsed.clear()
    run = kit.run(protocol, env, impl10, board10, latency=900, name="sol-submission-7",
                  native={"source": "sol-execbench", "externalId": "7",
                          "benchmark": "010_attention"})
    add_docs(store, [run])  # its own board: added
    assert parsed["Workload", _hex(board10)] == 1  # was 2: the run's board, its implementation's
    assert parsed["Implementation", _hex(impl10)] == 1  # it states one: read


def test_a_stored_implementation_written_by_hand_is_still_judged(store, kit):
    """Bytes not canonical (spaced, the key escaped): the bytes test must not miss them."""
    protocol, env = kit.protocol(), kit.environment()
    board3, impl3 = _sol_pair(kit, 3, "003_lm_head", "sol-kernel-3-submission-19169")
    board10, _ = _sol_pair(kit, 10, "010_attention", "sol-kernel-10-submission-7")
    add_docs(store, [protocol, env, board3, board10])
    text = json.dumps(object_document(impl3), indent=1).replace('"benchmark"',
                                                                '"\\u0062enchmark"')
    data = text.replace('"kernelId"', '"\\u006bernelId"').encode()
    assert b"benchmark" not in data and b"kernelId" not in data
    digest = Digest(hashlib.sha256(data).hexdigest())
    path = store.root / layout.object_path(digest)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    git(store.root, "add", str(path))
    git(store.root, "commit", "-q", "-m", "an Implementation committed by hand")
    copy = kit.run(protocol, env, impl3, board10, latency=900, name="sol-submission-999999",
                   native={"source": "sol-execbench", "externalId": "999999"})
    copy["spec"]["implementationDigest"] = f"sha256:{digest.hex}"
    with pytest.raises(KistoreError) as refused:
        add_docs(store, [copy])
    said = str(refused.value)
    assert "names an Implementation for '003_lm_head' (its sourceNative.benchmark)" in said
    assert said.endswith("(KI238)")
