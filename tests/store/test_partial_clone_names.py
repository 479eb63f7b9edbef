"""``KIND/NAME`` read in a partial clone (``git clone --filter=blob:none``) fetches a handful of
blobs: its names file, then the owner's metadata and object (issue 22).

Names are committed as paths (``store/names/KIND/XX/NAME`` holding the owner's digest), so
one answer about one name reads one names file and checks it against the owner's files,
never the commit's other files nor the derived index. These tests count the blobs the
clone holds before and after, as tests/check/test_partial_clone.py does for the gate.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import git
from ..partial import missing as _missing
from ..partial import serve_runs

KISTORE = str(Path(sys.executable).with_name("kistore"))


def _clone(tmp_path: Path, runs: int = 30) -> tuple[Path, dict[str, str], Path]:
    """A store of ``runs`` runs behind a server; a bare blob-less clone of it.

    Returns:
        (the clone, name -> digest of each run and of the workload, the full work tree).
    """
    server, work, _, docs, digests = serve_runs(tmp_path, runs)
    names = {d["metadata"]["name"]: digest for d, digest in zip(docs, digests, strict=True)}
    clone = tmp_path / "reader.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{server}",
        str(clone))
    return clone, names, work


def _kistore(clone: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([KISTORE, "--store", str(clone), *args], capture_output=True,
                          check=False)


def test_show_by_name_at_head_fetches_its_names_file_and_its_two_files(tmp_path):
    clone, names, _ = _clone(tmp_path)
    workload = "workload-3"  # ManifestKit names the third manifest it makes so
    before = _missing(clone)
    assert before > 150  # 63 manifests: objects, metadata and names files, none fetched
    done = _kistore(clone, "show", f"Workload/{workload}", "--at", "HEAD", "--json")
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["digest"] == names[workload]
    # the names file, the metadata file, the object file: nothing else of the store
    assert before - _missing(clone) == 3
    assert not (clone / "kistore").exists()  # no derived index was made or opened


def test_cat_of_a_run_by_name_fetches_three_blobs_and_a_miss_fetches_none(tmp_path):
    clone, names, work = _clone(tmp_path)
    before = _missing(clone)
    done = _kistore(clone, "cat", "BenchmarkRun/run-17", "--at", "HEAD")
    assert done.returncode == 0, done.stderr.decode()
    digest = Digest.from_str(names["run-17"])
    assert done.stdout == (work / layout.object_path(digest)).read_bytes()
    assert Digest.of(done.stdout) == digest
    assert before - _missing(clone) == 3
    after = _missing(clone)
    done = _kistore(clone, "cat", "BenchmarkRun/run-99", "--at", "HEAD")
    assert done.returncode == 1
    head = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    assert done.stderr.decode() == (
        f"error: no BenchmarkRun named 'run-99' at HEAD (commit {head[:12]}); it may have "
        "come later: leave out --at to ask the work tree\n")
    assert _missing(clone) == after  # a name with no names file: one tree lookup, no blob


def test_a_names_file_that_names_another_manifest_is_not_trusted(tmp_path):
    """A names file changed by hand (committed past the gate) names run-3 as run-2."""
    clone, names, work = _clone(tmp_path, runs=4)
    path = layout.name_path("BenchmarkRun", "run-2")
    (work / path).write_bytes(layout.name_record(Digest.from_str(names["run-3"])))
    git(work, "commit", "-q", "--no-verify", "-am", "run-2 names run-3, by hand")
    store = Store(work)
    done = _kistore(work, "show", "BenchmarkRun/run-2", "--at", "HEAD")
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().startswith(
        f"error: {path}: KI212 name-path-disagrees: the names file names {names['run-3']}, "
        "which is BenchmarkRun/run-3, not BenchmarkRun/run-2; it is not trusted.")
    assert store.resolve("BenchmarkRun/run-3", at="HEAD") == Digest.from_str(names["run-3"])
    # rank and compare refuse it as show does (they answered from the index, silently)
    for args in (["rank", "BenchmarkRun/run-2"], ["rank", "BenchmarkRun/run-2", "--at", "HEAD"],
                 ["compare", "BenchmarkRun/run-2", "BenchmarkRun/run-1"]):
        done = _kistore(work, *args)
        assert done.returncode == 1, args
        assert f"error: {path}: KI212 name-path-disagrees" in done.stderr.decode(), args
    assert _kistore(work, "rank", "BenchmarkRun/run-3").returncode == 0


def test_rank_and_a_run_page_in_a_blob_less_clone_fetch_what_they_read(tmp_path):
    # The query index of a commit reads every manifest: in a blob-less clone each blob it
    # lacks is fetched (it was an internal error: libgit2 cannot fetch, review 2026-12-01).
    clone, names, _ = _clone(tmp_path, runs=4)
    before = _missing(clone)
    done = _kistore(clone, "rank", "BenchmarkRun/run-2", "--at", "HEAD", "--json")
    assert done.returncode == 0, done.stderr.decode()
    assert "internal error" not in done.stderr.decode()
    ranked = json.loads(done.stdout)
    assert [(r["rank"], r["name"], r["latencyNs"]) for r in ranked] == [
        (i + 1, f"run-{i}", 10_000 + i) for i in range(4)]  # 10,000 ... 10,003 ns
    assert _missing(clone) < before
    shown = _kistore(clone, "show", "BenchmarkRun/run-3", "--at", "HEAD", "--json")
    assert shown.returncode == 0, shown.stderr.decode()
    assert json.loads(shown.stdout)["digest"] == names["run-3"]


def test_a_no_checkout_clone_says_so_and_names_the_at_that_answers(tmp_path):
    # review 2026-12-02: in `git clone --filter=blob:none --no-checkout`, `attestations
    # NAME` said "no BenchmarkRun named ...; run `kistore reindex`" and `show NAME` that the
    # object file is missing: both read the work tree, which has no files
    server, _, _, docs, digests = serve_runs(tmp_path, 3)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{server}",
        str(clone))
    said = ("error: the work tree is not checked out (HEAD holds store/, the work tree has "
            "none): answer from the commit with `--at {at}`, which gives the same answers "
            "(in a blob-less clone it fetches only the files it reads), or check the files "
            "out first with `git checkout HEAD -- .`\n")
    asks = [("attestations", "BenchmarkRun/run-1"), ("show", "BenchmarkRun/run-1"),
            ("show", digests[-1][7:19]), ("cat", "Workload/workload-3")]
    for args in asks:
        done = _kistore(clone, *args)
        assert (done.returncode, done.stdout, done.stderr.decode()) == (
            1, b"", said.format(at="origin/main")), args
    listed = _kistore(clone, "ls")  # refuses as show does (review r60 F13), not 9 "missing"
    assert (listed.returncode, listed.stdout, listed.stderr.decode()) == (
        1, b"", said.format(at="origin/main"))
    at_upstream = {args: _kistore(clone, *args, "--at", "origin/main") for args in asks}
    # review 2026-12-02: a branch ahead of its upstream is answered by HEAD, not origin/main
    head = git(clone, "rev-parse", "HEAD").strip()
    ahead = git(clone, "commit-tree", "-p", head, "-m", "ahead", f"{head}^{{tree}}").strip()
    git(clone, "update-ref", "refs/heads/main", ahead)
    done = _kistore(clone, "show", "BenchmarkRun/run-1")
    assert done.stderr.decode() == said.format(at="HEAD")
    git(clone, "update-ref", "refs/heads/main", head)
    git(clone, "update-ref", "--no-deref", "HEAD", git(clone, "rev-parse", "HEAD").strip())
    done = _kistore(clone, "show", "BenchmarkRun/run-1")  # detached: no upstream
    assert done.stderr.decode() == said.format(at="HEAD")
    git(clone, "checkout", "-q", "main")
    git(clone, "checkout", "-q", "HEAD", "--", ".")
    assert (clone / "store").is_dir()
    for args, answer in at_upstream.items():  # what the work tree answers once checked out
        assert answer.returncode == 0, (args, answer.stderr.decode())
        assert _kistore(clone, *args).stdout == answer.stdout, args
