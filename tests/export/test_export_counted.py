"""The export's ``attestations.counted``: whether an attestation counts, beside ``valid``.

att00 separated "valid" (the bundle verifies) from "counted" (it takes part in the evidence)
in ``kistore attestations`` and its ``--json``; the export had ``valid`` and ``effect`` only,
so a reader had to know which effects count (att01).
"""

from __future__ import annotations

import json

import pytest

from kistore.attest.evidence import COUNTED

from ..conftest import git, store_file
from .conftest import MAINTAINER_KEY, attach, cli, duck, export_ok

NOTE_LINE = "this line is no attestation bundle"


@pytest.fixture
def judged(fixture, kit):
    """The fixture's trusted rerun (verifies) and withdrawal (withdraws), plus on ``h100-a``
    a rerun by the maintainer-only key (valid, not counted) and a line that is no bundle
    (invalid, not counted)."""
    d = fixture.digests
    attach(fixture.store, d["h100-a"], MAINTAINER_KEY, "rerun", d["h100"])
    blob = git(fixture.store.root, "rev-parse", f"HEAD:{store_file(d['h100-a'])}").strip()
    git(fixture.store.root, "notes", "--ref=refs/notes/kistore", "append", "-m", NOTE_LINE,
        blob)
    return fixture


EXPECTED = [  # subject, type, valid, counted, effect
    ("b200-a", "withdrawal", True, True, "withdraws"),
    ("h100-a", None, False, False, "invalid"),
    ("h100-a", "rerun", True, False, "not-counted"),
    ("h100-c", "rerun", True, True, "verifies"),
]


def _named(fixture, rows) -> list[tuple]:
    names = {digest: name for name, digest in fixture.digests.items()}
    return sorted(((names[r[0]], *r[1:]) for r in rows), key=lambda r: (r[0], r[1] or ""))


def test_parquet_says_counted_apart_from_valid_as_the_command_does(runner, judged, tmp_path):
    out = tmp_path / "out"
    export_ok(runner, judged.store, out)
    rows = duck(out, "SELECT subject, type, valid, counted, effect FROM {attestations}")
    assert _named(judged, rows) == EXPECTED
    # the command's --json says the same of every attestation, and counted is COUNTED
    listed = cli(runner, judged.store, "attestations", judged.digests["h100-a"], "--json")
    said = sorted((a["type"] or "", a["valid"], a["counted"], a["effect"])
                  for a in json.loads(listed.stdout)["attestations"])
    assert said == [("", False, False, "invalid"), ("rerun", True, False, "not-counted")]
    assert all((effect in COUNTED) == counted for *_, counted, effect in EXPECTED)


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_text_formats_write_counted_after_valid(runner, judged, tmp_path, fmt):
    out = tmp_path / "out"
    export_ok(runner, judged.store, out, "--format", fmt)
    text = (out / "attestations" / f"part-00000.{fmt}").read_text(encoding="utf-8")
    if fmt == "jsonl":
        rows = [json.loads(line) for line in text.splitlines()]
        got = [(r["subject"], r["type"], r["valid"], r["counted"], r["effect"]) for r in rows]
    else:
        header, *lines = text.splitlines()
        assert ",valid,counted,effect," in header
        got = duck(out, f"SELECT subject, type, valid, counted, effect FROM read_csv("
                        f"'{out}/attestations/part-00000.csv')")
    assert _named(judged, got) == EXPECTED
    manifest = json.loads((out / "_manifest.json").read_text())
    columns = [c["name"] for c in manifest["tables"]["attestations"]["columns"]]
    assert columns[columns.index("valid"):columns.index("valid") + 3] == [
        "valid", "counted", "effect"]
    assert {"name": "counted", "type": "boolean"} in manifest["tables"]["attestations"][
        "columns"]
