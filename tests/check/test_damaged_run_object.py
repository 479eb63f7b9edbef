"""Review r88 F5: one damaged run object is one problem, not three.

With a byte of a run's object file flipped (or the file replaced by a symbolic link),
``verify`` reported KI101 (or KI111) for it, and also KI214 for each forward record and
KI216 for its group file, each saying the run "has no object file ... found no such file":
the file is there, damaged, and the fix is to restore it, not to touch the records.
"""

from __future__ import annotations

import os

import pytest

from kistore.check import audit
from kistore.core import layout
from kistore.store import Store

from ..conftest import add_docs


@pytest.mark.parametrize("damage", ["flipped byte", "symbolic link"])
def test_a_damaged_run_object_is_reported_once_by_its_own_rule(store, kit, tmp_path, damage):
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation()
    unstored = kit.workload("other", name="other")  # a dangling reference: a forward record
    add_docs(store, [protocol, env, impl])
    add_docs(store, [kit.run(protocol, env, impl, unstored, latency=10, name="fast")],
             allow_dangling=True)
    fast = Store(store.root).resolve("BenchmarkRun/fast")
    assert list(store.root.glob(f"store/groups/**/{fast.hex}"))  # else this proves nothing
    assert list(store.root.glob(f"store/forward/**/{fast.hex}"))
    path = store.root / layout.object_path(fast)
    if damage == "flipped byte":
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
        own = "KI101"
    else:
        (tmp_path / "moved.json").write_bytes(path.read_bytes())
        path.unlink()
        os.symlink(tmp_path / "moved.json", path)
        own = "KI111"
    findings = audit.verify(Store(store.root))
    about = sorted({(f.rule.id, f.file) for f in findings})
    assert (own, layout.object_path(fast)) in about
    assert [f.message for f in findings if f.rule.id in ("KI214", "KI216")] == []
