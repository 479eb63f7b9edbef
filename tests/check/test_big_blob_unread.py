"""The gate refuses a blob past ``[limits] manifest-bytes`` by its header size, never reading it.

fresh03 H3: a 1 GB file of zeros at an object path (a ~1 MB push) cost ``kistore check
BASE..HEAD`` and the pre-receive hook 47 s and 2 GB of memory before KI106: four of the
gate's reads inflated the loose blob whole (the contents check, the focus entry, the
arrivals' references, KI227's run read with no limit). Each now takes the size from the
object header (:func:`kistore.git.blobs.read_blob_within`); KI106 says the same words.
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main
from kistore.core.limits import DEFAULT

from ..conftest import commit_all, git

LIMIT = DEFAULT.manifest_bytes
PATH = "store/objects/sha256/ab/" + "d" * 62 + ".json"


def _added(root, size: int, *, packed: bool) -> tuple[str, str]:
    """Commit ``size`` zero bytes at PATH (then gone from the work tree); (base, blob id)."""
    base = git(root, "rev-parse", "HEAD").strip()
    (root / PATH).parent.mkdir(parents=True, exist_ok=True)
    (root / PATH).write_bytes(b"\0" * size)
    commit_all(root, "big")
    (root / PATH).unlink()
    if packed:
        git(root, "gc", "-q")
    return base, git(root, "rev-parse", f"HEAD:{PATH}").strip()


@pytest.mark.parametrize("packed", [False, True])
def test_a_blob_one_byte_past_the_limit_is_refused_and_never_read(
        runner, published, whole_reads, packed):
    base, blob = _added(published, LIMIT + 1, packed=packed)
    result = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD",
                                  "--json"])
    assert result.exit_code == 1
    too_large = [f for f in json.loads(result.output)["findings"] if f["rule"] == "KI106"]
    assert [(f["file"], f["message"]) for f in too_large] == [(
        PATH, "the file holds 1,048,577 bytes, more than the limit of 1,048,576 "
              "(manifest-bytes)")]
    assert blob not in whole_reads


def test_a_blob_at_the_limit_is_read(runner, published, whole_reads):
    """The record above is no blind one: a blob within the limit is read (and is no JSON)."""
    base, blob = _added(published, LIMIT, packed=False)
    result = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD",
                                  "--json"])
    assert result.exit_code == 1
    rules = {f["rule"] for f in json.loads(result.output)["findings"]}
    assert "KI106" not in rules
    assert blob in whole_reads
