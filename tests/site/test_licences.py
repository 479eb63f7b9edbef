"""A run page states the licences of the run and of the Implementation and Workload it names.

fresh95 F2's side note (fixk95, "not done"): a run copied from an imported one (`cat
--manifest`, edited, added) keeps the imported Implementation, whose licence is "UNCLEAR ...
do not republish", and drops the run's own annotation (metadata is not hashed); the site
published it with no caution. Now the page (and its JSON twin) states each licence with the
manifest stating it, and a run's own licence hides none of its references'.
"""

from __future__ import annotations

import html
import json

from kistore.core.licences import LICENSE_ANNOTATION, Licence, licence_of, run_licences
from kistore.core.model import Manifest
from kistore.site.build import build_site
from kistore.site.pages import group_path, run_path, workload_path

from ..conftest import add_docs

UNCLEAR = ("UNCLEAR: NVIDIA leaderboard API responses; no licence or terms of use found. "
           "Internal testing only; do not republish")


def _licensed(doc: dict, text: str) -> dict:
    doc["metadata"]["annotations"] = {LICENSE_ANNOTATION: text,
                                      "kernelindex.dev/source": "sol-execbench"}
    return doc


def test_a_copy_without_the_annotation_still_states_its_implementation_s(store, kit, tmp_path):
    protocol, env = kit.protocol(), kit.environment()
    work = _licensed(kit.workload("board-3", name="sol-kernel-3"), "Apache-2.0")
    impl = _licensed(kit.implementation("proj-3", name="sol-kernel-3-submission-19169"),
                     UNCLEAR)
    imported = _licensed(kit.run(protocol, env, impl, work, latency=3_680_000,
                                 name="sol-kernel-3-submission-19169-b200"), UNCLEAR)
    copy = kit.run(protocol, env, impl, work, latency=3_600_000, name="my-copy")  # none
    own = _licensed(kit.run(protocol, env, impl, work, latency=3_700_000, name="relicensed"),
                    "MIT")  # a licence of its own hides nothing
    digests = add_docs(store, [protocol, env, work, impl, imported, copy, own])
    out = tmp_path / "site"
    build_site(store, out)

    def page(digest: str) -> tuple[list[dict], str]:
        twin = json.loads((out / run_path(digest) / "index.json").read_text())
        return twin["data"]["licences"], (out / run_path(digest) / "index.html").read_text()

    said, text = page(digests[5])
    assert said == [
        {"license": UNCLEAR, "kind": "Implementation", "name": "sol-kernel-3-submission-19169",
         "digest": digests[3], "own": False, "unclear": True},
        {"license": "Apache-2.0", "kind": "Workload", "name": "sol-kernel-3",
         "digest": digests[2], "own": False, "unclear": False}]
    row = text[text.index('<tr id="licences">'):]
    row = html.unescape(row[:row.index("</tr>")])
    assert (f'<span class="badge warn">(!) rights unclear</span> {UNCLEAR} <span class="muted">'
            "(stated by its Implementation sol-kernel-3-submission-19169, which this run "
            "names)</span>") in row, row
    assert "Apache-2.0 <span class=\"muted\">(stated by its Workload sol-kernel-3" in row

    said, _ = page(digests[4])  # the imported run: its own, the same text said once
    assert [(s["kind"], s["own"]) for s in said] == [("BenchmarkRun", True),
                                                     ("Workload", False)]
    said, text = page(digests[6])
    assert [(s["license"], s["own"]) for s in said] == [
        ("MIT", True), (UNCLEAR, False), ("Apache-2.0", False)]
    assert "(!) rights unclear" in text


def _board(kit) -> tuple[dict, ...]:
    """A protocol, environment, Apache-2.0 workload, UNCLEAR implementation and one of mine."""
    work = _licensed(kit.workload("board-3", name="sol-kernel-3"), "Apache-2.0")
    impl = _licensed(kit.implementation("proj-3", name="sol-kernel-3-submission-19169"),
                     UNCLEAR)
    return (kit.protocol(), kit.environment(), work, impl,
            kit.implementation("proj-mine", name="mine"))


def test_the_leaderboard_row_cautions_as_the_run_page_does(store, kit, tmp_path):
    # cat97 (break96 "noticed"): the group page said nothing of UNCLEAR licences (0
    # occurrences) where each run page said "(!) rights unclear"
    protocol, env, work, impl, mine = _board(kit)
    copy = kit.run(protocol, env, impl, work, latency=3_600_000, name="my-copy")
    own = kit.run(protocol, env, mine, work, latency=3_700_000, name="my-own")
    digests = add_docs(store, [protocol, env, work, impl, mine, copy, own])
    out = tmp_path / "site"
    build_site(store, out)
    run_twin = json.loads((out / run_path(digests[5]) / "index.json").read_text())["data"]
    group = out / group_path(run_twin["comparisonKey"])
    rows = {r["name"]: r for r in json.loads((group / "index.json").read_text())["data"]["ranked"]}
    assert rows["my-copy"]["licences"] == run_twin["licences"]  # one builder, the same words
    assert [s["unclear"] for s in rows["my-copy"]["licences"]] == [True, False]
    assert [s["license"] for s in rows["my-own"]["licences"]] == ["Apache-2.0"]  # no caution
    text = (group / "index.html").read_text()
    board = text[text.index('<table class="grid board sortable" id="ranked">'):]
    board = board[:board.index("</table>")]
    [copy_row] = [r for r in board.split("<tr") if "my-copy" in r]
    [own_row] = [r for r in board.split("<tr") if "my-own" in r]
    assert html.unescape(
        f'<div class="mark licence"><span class="badge warn">(!) rights unclear</span> {UNCLEAR} '
        '<span class="muted">(stated by its Implementation sol-kernel-3-submission-19169, '
        "which this run names)</span></div>") in html.unescape(copy_row), copy_row
    assert "Apache-2.0" not in copy_row  # the row cautions; the run page lists every licence
    assert "rights unclear" not in own_row and 'class="mark licence"' not in own_row
    # the run page's words are the macro's too: unchanged
    page = (out / run_path(digests[5]) / "index.html").read_text()
    assert (f'<span class="badge warn">(!) rights unclear</span> {html.escape(UNCLEAR)} '
            '<span class="muted">(stated by its Implementation') in page


def test_a_run_whose_references_state_none_has_no_licence_row(store, kit, tmp_path):
    docs = kit.group_docs([None])
    digests = add_docs(store, docs)
    out = tmp_path / "site"
    build_site(store, out)
    twin = json.loads((out / run_path(digests[-1]) / "index.json").read_text())
    assert twin["data"]["licences"] == []
    assert 'id="licences"' not in (out / run_path(digests[-1]) / "index.html").read_text()


def test_licence_of_reads_only_a_non_empty_string(kit):
    assert licence_of(None) is None
    assert licence_of({"annotations": {LICENSE_ANNOTATION: "  "}}) is None
    assert licence_of({"annotations": {LICENSE_ANNOTATION: 3}}) is None
    assert licence_of({"annotations": "x"}) is None
    assert licence_of({"annotations": {LICENSE_ANNOTATION: "MIT"}}) == "MIT"
    protocol, env, work = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation()
    run = Manifest.from_document(kit.run(protocol, env, impl, work, latency=1e6))
    related = {"implementationDigest": None,
               "workloadDigest": Manifest.from_document(_licensed(work, UNCLEAR))}
    [said] = run_licences(run, related)  # an Implementation not in the store: none of it
    assert said == Licence(UNCLEAR, "Workload", work["metadata"]["name"],
                           kit.digest(work), False)
    assert said.unclear


def test_the_workload_page_and_the_compare_pages_caution_too(store, kit, tmp_path):
    # break97 L9: the leaderboard row and the run page said "(!) rights unclear"; the
    # workload page (listing the group's #1), the #1's compare page and another run's
    # compare page against it said nothing
    protocol, env, work, impl, mine = _board(kit)
    first = _licensed(kit.run(protocol, env, impl, work, latency=3_600_000, name="fast-copy"),
                      "MIT")  # its own licence hides nothing
    own = kit.run(protocol, env, mine, work, latency=3_700_000, name="my-own")
    digests = add_docs(store, [protocol, env, work, impl, mine, first, own])
    out = tmp_path / "site"
    build_site(store, out)
    caution = html.unescape(
        f'<div class="mark licence"><span class="badge warn">(!) rights unclear</span> {UNCLEAR} '
        '<span class="muted">(stated by its Implementation sol-kernel-3-submission-19169, '
        "which this run names)</span></div>")
    run_twin = json.loads((out / run_path(digests[5]) / "index.json").read_text())["data"]
    workload = out / workload_path(digests[2])
    [group] = json.loads((workload / "index.json").read_text())["data"]["groups"]
    assert group["first"]["name"] == "fast-copy"
    assert group["first"]["licences"] == run_twin["licences"]  # one builder, the same words
    text = html.unescape((workload / "index.html").read_text())
    assert caution in text and text.count("rights unclear") == 1, text
    for digest in digests[5:]:  # the #1's own compare page, and the other run's against it
        compared = out / run_path(digest) / "compare"
        twin = json.loads((compared / "index.json").read_text())["data"]
        assert twin["b"]["licences"] == run_twin["licences"]
        text = html.unescape((compared / "index.html").read_text())
        assert caution in text, text
        sides = text[text.index('id="sides"'):text.index('id="differences"')]
        assert sides.count("rights unclear") == (2 if digest == digests[5] else 1)  # A is B
    own_twin = json.loads((out / run_path(digests[6]) / "compare" / "index.json").read_text())
    assert [s["unclear"] for s in own_twin["data"]["a"]["licences"]] == [False]  # Apache-2.0


def test_unclear_in_any_case_and_after_leading_space_is_cautioned():
    # break97 L9: `text.startswith("UNCLEAR")`: "Unclear: ..." or " UNCLEAR" written by a
    # contributor was not cautioned (importers write "UNCLEAR")
    def said(text: str) -> bool:
        return Licence(text, "Implementation", "x", "sha256:" + "0" * 64, False).unclear

    for text in ("UNCLEAR: internal", "Unclear: internal testing only", "unclear",
                 " UNCLEAR", "\tUnClEaR; do not republish", "UNCLEAR"):
        assert said(text), text
    for text in ("MIT", "Apache-2.0", "clear: UNCLEAR later", "not UNCLEAR", "UNCLEA"):
        assert not said(text), text
