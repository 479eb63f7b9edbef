"""Any sequence of store operations leaves the kept index agreeing with a fresh build.

A property test of ``kistore reindex --check`` (:mod:`kistore.index.agree`): random
sequences of what a person does to a small store (add a manifest of a random kind, to the
work tree or with ``--commit``; a query; delete a stored file from the work tree; check out
an earlier commit; ``kistore reindex``), each followed by the check through the CLI.

* The check never reports a difference that is not stale: the kept index is either what a
  fresh build holds or behind git where the next query catches up (docs/design.md §6.4,
  "Checking the index against the store").
* After a query it agrees: ``ls``, ``rank`` and ``show`` of a run bring the query rows
  up to date, and every work-tree query the work tree's names, whatever it shows (an
  ``ls`` that lists nothing too); ``show`` of another kind reads no query row, which may
  stay behind (stale). After a ``reindex`` it agrees, and after an add when it agreed
  before (an add records what it wrote).
* A query's answer from the kept index is its answer from a fresh one (the kept
  ``.git/kistore`` moved aside for the second run).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.cli import main
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.index import _database as database
from kistore.store import Store

from ..conftest import ManifestKit, git

KINDS = ("protocol", "environment", "implementation", "workload", "run")

ADD = st.tuples(st.just("add"), st.sampled_from(KINDS), st.booleans())
QUERY = st.tuples(st.just("query"), st.sampled_from(("ls", "ls-runs", "rank", "show")),
                  st.integers(0, 9))
DELETE = st.tuples(st.just("delete"), st.sampled_from(("objects", "metadata")),
                   st.integers(0, 9))
CHECKOUT = st.tuples(st.just("checkout"), st.integers(1, 3), st.booleans())
REINDEX = st.tuples(st.just("reindex"))
OPERATIONS = st.lists(st.one_of(ADD, ADD, QUERY, QUERY, DELETE, CHECKOUT, REINDEX),
                      min_size=1, max_size=8)

AGREES_AFTER = {"query", "reindex"}
"""Operations after which the kept index agrees outright (not only stale): a query that read
the query rows (:meth:`Person.query`); after an add it agrees when it agreed before."""


class Person:
    """One store and what a person does to it, through the library or the CLI."""

    def __init__(self, root: Path) -> None:
        self.root = root
        Store.init(root)
        self.kit = ManifestKit()
        self.latest: dict[str, dict] = {}
        self.names: list[tuple[str, str]] = []  # (KIND, NAME) of every manifest added
        self.runner = CliRunner()

    def cli(self, *args: str):
        database.disconnect()  # as a fresh process: no connection of an earlier command
        return self.runner.invoke(main, ["--store", str(self.root), *args])

    def doc(self, kind: str) -> dict:
        kit, latest = self.kit, self.latest
        if kind == "run":
            refs = {k: latest.get(k) or getattr(kit, k)() for k in KINDS[:4]}
            return kit.run(refs["protocol"], refs["environment"], refs["implementation"],
                           refs["workload"], latency=10 + kit.count)
        n = str(kit.count)  # a spec of its own: a new manifest, never one stored already
        return {"protocol": lambda: kit.protocol(version=n),
                "environment": lambda: kit.environment(driver=n),
                "implementation": lambda: kit.implementation(f"proj-{n}"),
                "workload": lambda: kit.workload(f"rmsnorm-{n}")}[kind]()

    def add(self, kind: str, commit: bool) -> None:
        doc = self.doc(kind)
        database.disconnect()
        try:
            Store(self.root).add([Manifest.from_document(doc)], commit=commit,
                                 allow_dangling=True)
        except KistoreError:  # e.g. add --commit on a detached HEAD: refused, nothing written
            assert commit
            return
        self.latest[kind] = doc
        self.names.append((doc["kind"], doc["metadata"]["name"]))

    def query_args(self, which: str, n: int) -> list[str]:
        runs = [name for kind, name in self.names if kind == "BenchmarkRun"]
        if which == "ls":
            return ["ls", "--json"]
        if which == "ls-runs":  # often lists nothing: the names follow all the same
            return ["ls", "--kind", "BenchmarkRun", "--json"]
        if which == "rank" and runs:
            return ["rank", f"BenchmarkRun/{runs[n % len(runs)]}"]
        if which == "show" and self.names:
            kind, name = self.names[n % len(self.names)]
            return ["show", f"{kind}/{name}"]
        return ["ls"]

    def query(self, which: str, n: int) -> bool:
        """Ask, from the kept index and from a fresh one; return whether the query read the
        query rows (``show`` of a kind other than a run prints the manifest alone:
        docs/design.md §6.2; it looks the name up, so the names follow all the same)."""
        args = self.query_args(which, n)
        kept = self.cli(*args)
        fresh = self.fresh(*args)
        assert (kept.exit_code, kept.stdout) == (fresh.exit_code, fresh.stdout), args
        return args[0] != "show" or args[1].startswith("BenchmarkRun/")

    def fresh(self, *args: str):
        """Answer ``args`` from a fresh index: the kept one moved aside, then put back."""
        kistore = self.root / ".git" / "kistore"
        aside = Path(tempfile.mkdtemp(dir=self.root.parent)) / "kistore"
        database.disconnect()
        if kistore.exists():
            kistore.rename(aside)
        try:
            return self.cli(*args)
        finally:
            database.disconnect()
            shutil.rmtree(kistore, ignore_errors=True)
            if aside.exists():
                aside.rename(kistore)

    def delete(self, top: str, n: int) -> None:
        files = sorted((self.root / "store" / top).rglob("*.json"))
        if files:
            files[n % len(files)].unlink()

    def checkout(self, back: int, detach: bool) -> None:
        commits = git(self.root, "rev-list", "HEAD").split()
        target = commits[min(back, len(commits) - 1)]
        branch = ["--detach"] if detach else ["-B", "main"]
        subprocess.run(["git", "checkout", "-q", *branch, target], cwd=self.root,
                       check=False, capture_output=True)  # a conflict: nothing checked out

    def reindex(self) -> None:
        result = self.cli("reindex")
        assert result.exit_code == 0, result.output

    def check(self) -> dict:
        result = self.cli("reindex", "--check", "--json")
        assert result.exit_code in (0, 1), result.output
        found = json.loads(result.stdout)
        assert found["agrees"] is (result.exit_code == 0)
        return found


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(OPERATIONS)
# an `ls` that lists nothing (the one manifest's object file deleted) left the names stale
@example([("add", "protocol", False), ("delete", "objects", 0), ("query", "ls", 0)])
# `show` of a protocol reads no query row: they stay behind the checkout (stale), not the names
@example([("add", "protocol", True), ("add", "protocol", False), ("checkout", 1, False),
          ("query", "show", 1)])
def test_any_operations_leave_an_index_that_agrees_or_catches_up(tmp_path, operations):
    with tempfile.TemporaryDirectory(dir=tmp_path) as top:
        person = Person(Path(top) / "store")
        person.cli("ls")  # the kept index exists from here on
        agreed = True
        for op in operations:
            rows_read = getattr(person, op[0])(*op[1:])
            found = person.check()
            if op[0] in AGREES_AFTER and rows_read is not False or \
                    (op[0] == "add" and agreed):
                assert found["agrees"], (op, found["differences"])
            else:  # behind git at most: every difference is one the next query catches up
                assert all(d["stale"] for d in found["differences"]), (op, found)
            if op[0] == "query":  # whatever it read, the work tree's names are current
                assert not [d for d in found["differences"] if d["table"] == "names (work)"]
            agreed = found["agrees"]
        person.query("ls", 0)
        assert person.check()["agrees"]
