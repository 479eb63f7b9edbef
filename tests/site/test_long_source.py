"""A source longer than 100 characters gets its own page (r75 finding 11), short-named."""

from __future__ import annotations

import json

from kistore.site.build import build_site

from ..conftest import add_docs

LONG = "s" * 300
SHORT = "s" * 64 + "~2955c7328c57ca39"  # the first 64, ~, 16 hex of sha256("s" * 300)


def test_a_long_source_has_its_own_page_under_its_short_form(store, kit, tmp_path):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj")
    run = kit.run(protocol, env, impl, workload, latency=10, name="long-run",
                  native={"externalId": "x"})
    run["spec"]["sourceNative"]["source"] = LONG
    add_docs(store, [protocol, env, workload, impl, run])
    out = tmp_path / "site"
    build_site(store, out)
    assert sorted(p.name for p in (out / "sources").iterdir()) == [SHORT]
    page = (out / "sources" / SHORT / "index.html").read_text()
    assert f"<h1>{LONG}</h1>" in page and "no source" not in page
    data = json.loads((out / "sources" / SHORT / "index.json").read_text())["data"]
    assert data["source"] == LONG
    index = json.loads((out / "index.json").read_text())["data"]
    assert index["sources"][0]["href"] == f"sources/{SHORT}/index.html"
    run_pages = list((out / "runs").glob("*/index.html"))
    assert f'href="../../sources/{SHORT}/index.html"' in run_pages[0].read_text()
