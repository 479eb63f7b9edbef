"""The run page's attestation rows say "Counted" apart from "Valid" (att01).

att00 separated "valid" (the bundle verifies) from "counted" (it takes part in the evidence)
in ``kistore attestations``; the page showed Valid and Effect only, so a valid rerun by a
key lacking the rerun role read "Valid: yes" with nothing saying it counts for nothing.
"""

from __future__ import annotations

import json
import re

from kistore.attest import signing

from ..export.conftest import MAINTAINER_KEY, RERUN_KEY, attach
from ..export.conftest import build as export_store
from .conftest import build

HEAD = ('<thead><tr><th scope="col">Type</th><th scope="col">Signer key</th>'
        '<th scope="col">Valid</th><th scope="col">Counted</th><th scope="col">Effect</th>')


def _cells(page: str) -> list[list[str]]:
    """Each attestation row's first five cells, tags stripped."""
    body = page.split('<section id="replications"', 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr><td>(.*?)</tr>", body, re.DOTALL)
    return [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", "<td>" + r)][:5]
            for r in rows]


def test_a_valid_rerun_that_does_not_count_says_valid_yes_counted_no(runner, store, kit,
                                                                     tmp_path):
    fixture = export_store(store, kit)
    d = fixture.digests
    # on h100-c: the fixture's trusted rerun (counts), and one by the maintainer-only key
    attach(store, d["h100-c"], MAINTAINER_KEY, "rerun", d["h100"])
    out = tmp_path / "site"
    assert build(runner, store, out).exit_code == 0
    page = (out / "runs" / d["h100-c"][7:23] / "index.html").read_text(encoding="utf-8")
    assert HEAD in page
    rerun, maintainer = (signing.keyid(k.public_key()) for k in (RERUN_KEY, MAINTAINER_KEY))
    assert sorted(_cells(page)) == [
        ["rerun (reproduced)", maintainer, "yes", "no",
         f"not-counted key {maintainer} is trusted for maintainer, not rerun"],
        ["rerun (reproduced)", rerun, "yes", "yes", "verifies trusted rerun key"]]
    # the page's JSON twin carries the same judgement
    data = json.loads((out / "runs" / d["h100-c"][7:23] / "index.json").read_text())
    assert sorted((a["keyid"], a["valid"], a["counted"]) for a in data["data"][
        "attestations"]) == sorted([(rerun, True, True), (maintainer, True, False)])
