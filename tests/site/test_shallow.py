"""A site built in a shallow clone names no commit it cannot vouch for: review r78 F7.

In a depth-1 clone (CI's default checkout) ``site build`` named the clone's edge commit as
every run's first-adding commit, in the permalink, the text citation and the BibTeX, with
no warning, where ``kistore cite`` refuses and ``export`` leaves ``firstCommit`` null. Now
a run whose object file the history walk first finds on the edge gets no permalink and no
first commit (its page says why), ``site build`` warns once with the count and the fix,
``site verify`` agrees, and after ``git fetch --unshallow`` the next (incremental) build
gives every run the first-adding commit a full clone gives.
"""

from __future__ import annotations

import json
from pathlib import Path

from kistore.cli import main
from kistore.site.build import verify_site
from kistore.store import Store

from ..conftest import git
from .conftest import build, files
from .demo import add_run

NO_NOTES = ("warning: refs/notes/kistore is not in this repository (no note was made here, and "
        "git clone and git fetch do not fetch notes): "
            "community attestations are left out (no key is trusted at HEAD, so none could "
            "withdraw or verify a run); `kistore notes fetch origin` "
            "fetches them\n")
"""``site build``'s first warning in a clone of a store without notes (reviewer r83 F11)."""
WARNING = ("warning: this is a shallow clone: {cut} of {total} run pages give no permalink "
           "and no first-adding commit (its history stops at a commit that holds their "
           "objects, and an older one may have added them); run `git fetch --unshallow` (CI: "
           "check out the whole history, e.g. actions/checkout with fetch-depth: 0) and build "
           "again\n")


def citations(out: Path) -> dict[str, dict]:
    """Every run page's citation block (its JSON twin's), by run digest."""
    found = {}
    for page in (out / "runs").glob("*/index.json"):
        data = json.loads(page.read_text())["data"]
        found[data["citation"]["digest"]] = data["citation"]
    return found


def test_a_shallow_clone_cites_only_the_runs_its_history_reaches(runner, fresh_demo,
                                                                 tmp_path):
    late = add_run(fresh_demo, "late-run", 1.5)
    full_site = tmp_path / "full"
    assert build(runner, fresh_demo, full_site).exit_code == 0
    truth = citations(full_site)
    assert len(truth) == 15 and all(c["available"] for c in truth.values())
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{fresh_demo.root}", str(clone))
    edge = git(clone, "rev-parse", "HEAD~1").strip()
    assert edge == git(fresh_demo.root, "rev-parse", "HEAD~1").strip()  # c-settings
    shallow = Store(clone)
    out = tmp_path / "site"
    result = build(runner, shallow, out)
    assert result.exit_code == 0, result.output
    assert result.stderr == NO_NOTES + WARNING.format(cut=14, total=15)
    cited = citations(out)
    # the run added after the edge: cited as a full clone cites it
    assert cited.pop(late) == truth[late] and truth[late]["commit"] != edge
    for digest, block in cited.items():
        assert block == {
            "digest": digest, "commit": None, "shallow": True, "available": False,
            "reason": f"this is a shallow clone and its history stops at {edge}, which holds "
                      "the object: the commit that first added it may be older; run `git "
                      "fetch --unshallow` and build the site again"}, digest
    for path, content in files(out).items():  # the edge is no permalink, no BibTeX's
        assert f"/blob/{edge}/".encode() not in content, path
        assert b"@misc" not in content or path.startswith(f"runs/{late[7:23]}/"), path
    page = (out / "runs" / next(iter(cited))[7:23] / "index.html").read_text()
    assert "not known: the site was built in a shallow clone" in page
    assert 'class="permalink"' not in page
    # verify agrees: a fresh build of the same clone gives the same pages
    assert verify_site(shallow, out)[1] == []
    result = runner.invoke(main, ["--store", str(clone), "site", "verify", str(out)])
    assert result.exit_code == 0, result.output
    # the whole history fetched: the next build (incremental) cites every run as a full
    # clone does, with no warning, and equals a fresh build
    git(clone, "fetch", "-q", "--unshallow")
    result = build(runner, shallow, out)
    assert (result.exit_code, result.stderr) == (0, NO_NOTES)
    assert citations(out) == truth
    assert verify_site(Store(clone), out)[1] == []  # a new Store: libgit2 saw it shallow


def test_a_depth_1_clone_names_its_edge_commit_nowhere(runner, fresh_demo, tmp_path):
    # review r78 F7's reproduction: every permalink and BibTeX named the edge commit
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{fresh_demo.root}", str(clone))
    edge = git(clone, "rev-parse", "HEAD").strip()
    out = tmp_path / "site"
    result = build(runner, Store(clone), out)
    assert result.exit_code == 0 and result.stderr == NO_NOTES + WARNING.format(cut=14, total=14)
    assert all(c["commit"] is None and not c["available"] for c in citations(out).values())
    for path in (out / "runs").glob("*/index.html"):
        text = path.read_text()
        assert f"/blob/{edge}/" not in text and "@misc" not in text, path
