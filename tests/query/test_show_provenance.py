"""`kistore show` says where a run's data came from and on what terms, as the run page does.

fresh00c M1: the text run page left out the licence (``UNCLEAR ... do not republish``), the
upstream commit and the source file that the site's Provenance and Licence sections show,
and printed KernelBench's ``observedAt`` (the date of the upstream commit) as if measured.
"""

from __future__ import annotations

import html
import re

from kistore.cli import main
from kistore.site.build import build_site
from kistore.site.pages import run_path

from ..conftest import add_docs

UNCLEAR = ("UNCLEAR: NVIDIA leaderboard API responses; no licence or terms of use found. "
           "Internal testing only; do not republish")
BASIS = ("date of upstream commit 0123abc that last changed the file; the file records no "
         "measurement time")


def _annotated(doc: dict, **annotations: str) -> dict:
    doc["metadata"]["annotations"] = {f"kernelindex.dev/{k.replace('_', '-')}": v
                                      for k, v in annotations.items()}
    return doc


def _store(store, kit) -> list[str]:
    """A run stating an unclear licence, upstream, file and observed-at basis; a bare copy."""
    protocol, env = kit.protocol(), kit.environment()
    work = _annotated(kit.workload("board-3", name="board-3"), license="Apache-2.0")
    impl = kit.implementation("proj-3", name="proj-3")
    imported = _annotated(
        kit.run(protocol, env, impl, work, latency=3_680_000, name="imported"),
        source="some-board", license=UNCLEAR, upstream="github.com/o/board@0123abc",
        source_file="some-board/board_3.json", observed_at_basis=BASIS)
    other = kit.workload("board-4", name="board-4")
    bare = kit.run(protocol, env, impl, other, latency=3_600_000, name="bare")
    return add_docs(store, [protocol, env, work, impl, imported, other, bare])


def test_show_states_licence_upstream_file_and_the_observed_basis(runner, store, kit):
    _store(store, kit)
    result = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/imported"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    observed = next(line for line in lines if line.startswith("  observed "))
    assert observed.endswith(f" ({BASIS})"), observed
    assert f"  licence         (!) rights unclear {UNCLEAR} (stated by this run)" in lines
    assert ("  licence         Apache-2.0 (stated by its Workload board-3, which this run "
            "names)") in lines
    assert "  upstream        github.com/o/board@0123abc" in lines
    assert "  source file     some-board/board_3.json" in lines


def test_show_of_a_run_recording_none_says_so_and_no_basis(runner, store, kit):
    _store(store, kit)
    result = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/bare"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  licence         none recorded" in lines
    assert not [line for line in lines if line.startswith(("  upstream", "  source file"))]
    observed = next(line for line in lines if line.startswith("  observed "))
    assert "(" not in observed  # no basis recorded: the time alone


def test_the_run_page_says_the_licence_in_show_s_words_and_the_observed_basis(store, kit,
                                                                             tmp_path,
                                                                             runner):
    digests = _store(store, kit)
    build_site(store, tmp_path / "site")
    page = html.unescape((tmp_path / "site" / run_path(digests[4]) / "index.html").read_text())
    standing = page[page.index('id="standing"'):]
    standing = standing[:standing.index("</p>", standing.index('class="meta"'))]
    assert f"({BASIS})" in standing, standing
    shown = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/imported"])
    said = [line.removeprefix("  licence         ") for line in shown.output.splitlines()
            if line.startswith("  licence ")]
    row = page[page.index('<tr id="licences">'):]
    row = row[:row.index("</tr>")]
    plain = " ".join(re.sub(r"<[^>]*>", " ", row).split())  # the page's words, tags aside
    assert len(said) == 2
    for line in said:
        assert " ".join(line.split()) in plain, (line, plain)
