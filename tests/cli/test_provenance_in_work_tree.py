"""KI432 of the work tree: a committed `kernelindex.dev/*` annotation edited, not committed.

The gate refuses a commit that changes a landed manifest's provenance annotation (KI432),
and `verify` warns of one in the history; but a hand edit of a committed metadata file's
licence in the work tree was answered by `show`, `rank` and `compare` as the source's own,
and `verify` said nothing. Now `verify` warns (KI432) and each query says it on stderr,
naming the file, the annotation, HEAD's value and the work tree's, what the answer did with
it (fresh12 F5: `rank` and `compare` read no annotation; `show` prints the work tree's
value where it prints one), and the way back, once the answer is made (fresh12 F6)
(`kistore.store.provenance_here`, `kistore.cli._renamed_here.warn_provenance_edited`,
`kistore.check._provenance_here`). `export` and `site build` read a commit (HEAD by
default), never the work tree: they publish HEAD's annotation byte for byte.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.licences import LICENSE_ANNOTATION

from ..conftest import add_docs
from .test_renamed_in_work_tree import rewrite

UNCLEAR = "UNCLEAR: no LICENSE found; do not republish"


def _kistore(store, *args: str, code: int = 0):
    result = CliRunner().invoke(main, ["--store", str(store.root), *args])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def licensed(store, kit):
    """A group of two runs, ``fast`` and ``slow``, each with the importer's annotations."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency in (("fast", 10), ("slow", 30)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        run = kit.run(protocol, env, impl, workload, latency=latency, name=name)
        run["metadata"]["annotations"] = {LICENSE_ANNOTATION: UNCLEAR,
                                          "kernelindex.dev/source": "synthetic"}
        docs += [impl, run]
    add_docs(store, docs)
    return store


def _relicense(store, name: str = "slow", how: str = "sed -i") -> tuple[str, str]:
    """Edit run ``name``'s licence in its work-tree metadata file to ``CC0-1.0``; return
    its digest and metadata path. ``sed -i``: a new file renamed over it; ``in place``:
    rewritten where it is (its directory's mtime unchanged)."""
    digest = store.view("HEAD").find_name("BenchmarkRun", name)
    path = layout.metadata_path(digest)
    file = store.root / path
    data = file.read_bytes()
    edited = data.replace(UNCLEAR.encode(), b"CC0-1.0")
    assert edited != data
    rewrite(file, edited, how)
    return str(digest), path


def _canonical(meta: dict) -> str:
    """RFC 8785 JSON of plain metadata (ASCII strings): sorted keys, no spaces."""
    return json.dumps(meta, separators=(",", ":"), sort_keys=True)


KI432_SAID = ("no commit may make the edit (KI432: a committed manifest's kernelindex.dev/* "
              "annotations are its importer's record and never change; the gate refuses it, "
              "`kistore verify` warns of it)")

RANK_READS = "`rank` reads no kernelindex.dev/* annotation: its answer is what HEAD's value gives"
COMPARE_READS = ("`compare` reads no kernelindex.dev/* annotation: its answer is what HEAD's "
                 "value gives")
SHOW_READS = ("`show` prints the work tree's value where it prints the annotation (a licence, "
              "upstream or source file line; `--json`'s metadata); the run's source, rank and "
              "evidence read no annotation: they are what HEAD's value gives")
SHOW_OTHER_READS = ("`show` prints the work tree's value where it prints the annotation "
                    "(`--json`'s metadata)")


def _said(path: str, key: str, was: str, now: str, reads: str, verb: str = "changes") -> str:
    return (f"warning: {path}: the work tree {verb} the provenance annotation '{key}' ({was} in "
            f"HEAD, {now} in the work tree, not committed): {reads}; {KI432_SAID}; restore it "
            f"with `git checkout HEAD -- {path}`\n")


def _warning(path: str, reads: str = RANK_READS) -> str:
    return _said(path, LICENSE_ANNOTATION, f"'{UNCLEAR}'", "'CC0-1.0'", reads)


@pytest.mark.parametrize("how", ["sed -i", "in place"])
def test_show_rank_and_compare_say_a_licence_edited_in_the_work_tree(licensed, how):
    before = _kistore(licensed, "rank", "BenchmarkRun/fast")  # the index built, all clean
    assert before.stderr == ""
    digest, path = _relicense(licensed, how=how)

    ranked = _kistore(licensed, "rank", "BenchmarkRun/fast")
    assert ranked.stderr == _warning(path)
    shown = _kistore(licensed, "show", "BenchmarkRun/slow")
    # the licence line prints the work tree's value, as the warning says
    assert "  licence         CC0-1.0 (stated by this run)\n" in shown.stdout
    assert shown.stderr == _warning(path, SHOW_READS)
    compared = _kistore(licensed, "compare", "BenchmarkRun/slow", "BenchmarkRun/fast", "--json")
    assert compared.stderr == _warning(path, COMPARE_READS)
    # `--at REV` reads a commit: nothing to say
    for args in (("rank", "BenchmarkRun/fast"), ("show", "BenchmarkRun/slow"),
                 ("compare", "BenchmarkRun/slow", "BenchmarkRun/fast")):
        assert _kistore(licensed, *args, "--at", "HEAD").stderr == ""
    # the other run's answers read no edited file: nothing said of it
    assert _kistore(licensed, "show", "BenchmarkRun/fast").stderr == ""


def test_show_of_another_kind_says_it_too(store, kit):
    workload = kit.workload(name="w")
    workload["metadata"]["annotations"] = {LICENSE_ANNOTATION: UNCLEAR}
    digest = add_docs(store, [workload])[0]
    path = layout.metadata_path(Digest.from_str(digest))
    file = store.root / path
    file.write_bytes(file.read_bytes().replace(UNCLEAR.encode(), b"CC0-1.0"))
    assert _kistore(store, "show", "Workload/w").stderr == _warning(path, SHOW_OTHER_READS)
    assert _kistore(store, "show", "Workload/w", "--at", "HEAD").stderr == ""


def test_an_annotation_added_or_removed_is_said_so(licensed):
    digest = licensed.view("HEAD").find_name("BenchmarkRun", "slow")
    path = layout.metadata_path(digest)
    file = licensed.root / path
    meta = json.loads(file.read_bytes())
    del meta["annotations"][LICENSE_ANNOTATION]
    meta["annotations"]["kernelindex.dev/upstream"] = "github.com/x/y"
    file.write_text(_canonical(meta))
    said = _kistore(licensed, "show", "BenchmarkRun/slow").stderr.splitlines()
    assert [line[:line.index("): ") + 1] for line in said] == [
        f"warning: {path}: the work tree removes the provenance annotation "
        f"'kernelindex.dev/license' ('{UNCLEAR}' in HEAD, (absent) in the work tree, not "
        "committed)",
        f"warning: {path}: the work tree adds the provenance annotation "
        "'kernelindex.dev/upstream' ((absent) in HEAD, 'github.com/x/y' in the work tree, not "
        "committed)"]


def test_a_title_edited_in_the_work_tree_is_not_said(licensed):
    digest = licensed.view("HEAD").find_name("BenchmarkRun", "slow")
    file = licensed.root / layout.metadata_path(digest)
    meta = json.loads(file.read_bytes())
    meta["title"] = "a title, corrected (KI405)"
    file.write_text(_canonical(meta))
    assert _kistore(licensed, "rank", "BenchmarkRun/fast").stderr == ""
    assert _kistore(licensed, "show", "BenchmarkRun/slow").stderr == ""


def test_verify_warns_of_the_edit_with_heads_value_and_the_checkout(licensed):
    digest, path = _relicense(licensed)
    result = _kistore(licensed, "verify", "--json")
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "KI432"]
    assert found == [{
        "rule": "KI432", "name": "provenance-annotation-changed", "severity": "warning",
        "file": path, "pointer": "/annotations/kernelindex.dev~1license",
        "message": f"the work tree changes the provenance annotation 'kernelindex.dev/license' "
                   f"('{UNCLEAR}' in HEAD, 'CC0-1.0' in the work tree, not committed): a "
                   "committed manifest's kernelindex.dev/* annotations are its importer's "
                   "record (where it came from, under which licence) and never change; the "
                   "queries of the work tree answer with the edited value, and the gate "
                   "refuses the commit",
        "expected": f"'{UNCLEAR}'", "found": "'CC0-1.0'",
        "hint": f"restore the committed metadata file (`git checkout HEAD -- {path}`); a wrong "
               "licence or source is the maintainers' to answer, with a withdrawal signed by "
               "a trusted maintainer key that says why (`kistore attest REF --type "
               "withdrawal -m WHY`), never by editing the metadata",
        "extra": {"annotation": "kernelindex.dev/license", "worktree": True}}]
    # a commit is read as committed: nothing of the work tree
    at_head = _kistore(licensed, "verify", "--at", "HEAD", "--json")
    assert [f for f in json.loads(at_head.stdout)["findings"] if f["rule"] == "KI432"] == []


def test_the_files_git_status_names_give_the_same_finding(licensed):
    """Without the blob ids verify's workers read (a .gitattributes under store/), git's
    status of the metadata files says which to compare."""
    from kistore.check._provenance_here import worktree_provenance

    digest, path = _relicense(licensed, how="in place")
    read = [f.to_json() for f in worktree_provenance(licensed, None)]
    assert [(f["file"], f["pointer"], f["expected"], f["found"]) for f in read] == [
        (path, "/annotations/kernelindex.dev~1license", f"'{UNCLEAR}'", "'CC0-1.0'")]


def test_verify_of_a_clean_work_tree_says_no_ki432(licensed):
    result = _kistore(licensed, "verify", "--json")
    assert [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "KI432"] == []


def test_a_clean_work_tree_reads_nothing_for_it(licensed, monkeypatch):
    """The clean case costs a set intersection: no metadata compared, no module loaded."""
    from kistore.store import provenance_here

    _kistore(licensed, "rank", "BenchmarkRun/fast")  # the index built
    asked: list[list[str]] = []
    real = provenance_here.provenance_edits
    monkeypatch.setattr(provenance_here, "provenance_edits",
                        lambda store, paths: asked.append(list(paths)) or real(store, paths))
    _kistore(licensed, "rank", "BenchmarkRun/fast")
    _kistore(licensed, "compare", "BenchmarkRun/slow", "BenchmarkRun/fast")
    _kistore(licensed, "show", "BenchmarkRun/slow")
    assert asked == []
    _digest, path = _relicense(licensed)
    _kistore(licensed, "rank", "BenchmarkRun/fast")
    assert asked == [[path]]  # only the file the answer read again


def test_export_and_site_publish_heads_annotation_byte_for_byte(licensed, tmp_path):
    """`export` and `site build` read a commit (HEAD by default), never the work tree."""
    from kistore.site.build import build_site
    from kistore.site.pages import run_path

    digest, path = _relicense(licensed)
    committed = licensed.view("HEAD").read(path)
    assert committed is not None and UNCLEAR.encode() in committed
    out = tmp_path / "export"
    _kistore(licensed, "export", str(out), "--format", "jsonl")
    rows = [json.loads(line) for line in
            (out / "manifests" / "part-00000.jsonl").read_text().splitlines()]
    [row] = [r for r in rows if r["digest"] == digest]
    assert row["metadata"].encode() == committed  # HEAD's bytes, not the work tree's
    site = tmp_path / "site"
    build_site(licensed, site)
    twin = json.loads((site / run_path(digest) / "index.json").read_text())
    assert twin["data"]["annotations"][LICENSE_ANNOTATION] == UNCLEAR
    assert "CC0-1.0" not in (site / run_path(digest) / "index.html").read_text()


def test_a_source_claim_edited_in_the_work_tree_is_said_as_ranked(licensed):
    """fresh12 F5: a `kernelindex.dev/source` edited to claim KernelBench. `verify` calls the
    claim KI226 (an error), while `rank`, `compare` and `show` rank the run by its object,
    as HEAD does: the warning said "answered with the work tree's value", untrue of them."""
    ranked_before = _kistore(licensed, "rank", "BenchmarkRun/fast", "--json").stdout
    page_before = json.loads(_kistore(licensed, "show", "BenchmarkRun/slow", "--json").stdout)
    digest = licensed.view("HEAD").find_name("BenchmarkRun", "slow")
    path = layout.metadata_path(digest)
    file = licensed.root / path
    meta = json.loads(file.read_bytes())
    meta["annotations"]["kernelindex.dev/source"] = "kernelbench"
    file.write_text(_canonical(meta))

    found = json.loads(_kistore(licensed, "verify", "--json", code=1).stdout)["findings"]
    assert [(f["rule"], f["severity"], f["file"]) for f in found if f["rule"] == "KI226"] == [
        ("KI226", "error", path)]
    ranked = _kistore(licensed, "rank", "BenchmarkRun/fast", "--json")
    assert ranked.stdout == ranked_before  # HEAD's answer: the claim is not read
    said = [_said(path, "kernelindex.dev/source", "'synthetic'", "'kernelbench'", reads)
            for reads in (RANK_READS, COMPARE_READS, SHOW_READS)]
    assert ranked.stderr == said[0]
    assert _kistore(licensed, "compare", "BenchmarkRun/slow",
                    "BenchmarkRun/fast").stderr == said[1]
    shown = _kistore(licensed, "show", "BenchmarkRun/slow", "--json")
    assert shown.stderr == said[2]
    page = json.loads(shown.stdout)
    assert (page["rank"], page["source"], page["evidenceLevel"]) == (
        page_before["rank"], page_before["source"], page_before["evidenceLevel"])
    assert page["manifest"]["metadata"]["annotations"]["kernelindex.dev/source"] == "kernelbench"


def test_no_warning_ahead_of_a_failure_that_makes_it_moot(licensed):
    """fresh12 F6: an edit saved not in canonical form (an editor's save): `show` printed
    the KI432 warning, then failed with KI103, exit 1; nothing was answered. Now the
    failure is said alone; `rank` leaves the run out, and says nothing of its annotation."""
    digest = licensed.view("HEAD").find_name("BenchmarkRun", "slow")
    path = layout.metadata_path(digest)
    file = licensed.root / path
    meta = json.loads(file.read_bytes())
    meta["annotations"][LICENSE_ANNOTATION] = "CC0-1.0"
    file.write_text(json.dumps(meta, indent=2, sort_keys=True))
    damaged = (f"{path}: the metadata file is not in canonical form (RFC 8785; `kistore "
               "verify`: KI103); HEAD holds it as kistore wrote it: restore it with `git "
               f"checkout HEAD -- {path}`")
    failed = ", and run `kistore verify` to find any other damaged file\n"
    for args in (("show", "BenchmarkRun/slow"), ("show", "BenchmarkRun/slow", "--json")):
        assert _kistore(licensed, *args, code=1).stderr == f"error: {damaged}{failed}"
    compared = _kistore(licensed, "compare", "BenchmarkRun/slow", "BenchmarkRun/fast", code=1)
    assert compared.stderr == f"error: {path}: BenchmarkRun/slow: {damaged[len(path) + 2:]}{failed}"
    ranked = _kistore(licensed, "rank", "BenchmarkRun/fast")
    assert ranked.stderr == (
        f"warning: 1 manifest(s) in the work tree do not verify and are left out: {digest}; "
        f"run `kistore verify`\nwarning: {damaged}\n")
