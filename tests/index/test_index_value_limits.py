"""The query index follows ``[limits] string-length`` and ``array-length`` (KI107), as verify does.

Review F-lim-2: a manifest holding a string or an array past the limits in effect (which
``verify`` and ``check`` report as KI107, and ``add`` refuses) was still served by
``rank``, ``show`` and ``ls`` with no word. It is now left out, with a warning naming the
file, the JSON Pointer of the value, the limit, KI107 and what to do, like a manifest past
``manifest-bytes`` (tests/index/test_index_limits.py); the index records the limits its
rows were made under and reads again only the manifests a change may affect.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from kistore.core import layout, once
from kistore.core.digest import Digest
from kistore.core.errors import MultipleErrors
from kistore.core.limits import DEFAULT, Limits, long_values, walk_bound
from kistore.index import index as index_module
from kistore.index._database import index_path
from kistore.index.catalog import committed_fix, limit_key, too_long
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, git
from ..query.test_query_cli import run

SETTINGS = b"[store]\nversion = 1\n"
LOW = (1000, 50)
"""The committed limits: string-length, array-length."""
HIGH = (4096, 500)
"""The limits the long manifests were added under (past the hooks, as by hand)."""


def set_limits(store, strings, arrays, *, commit=False):
    """Write string-length and array-length into the store's kistore.toml (and commit it)."""
    (store.root / "kistore.toml").write_bytes(
        SETTINGS + f"[limits]\nstring-length = {strings}\narray-length = {arrays}\n".encode())
    if commit:
        git(store.root, "commit", "-qm", f"limits {strings} {arrays}", "kistore.toml")


@pytest.fixture
def long_store(tmp_path):
    """A store whose committed limits are :data:`LOW`, holding two runs past them.

    run-1 holds a 1,200-character string at /spec/sourceNative/note, run-2 a 60-item array
    at /spec/sourceNative/items: added under :data:`HIGH` (committed for the add, then
    lowered in a commit), as a manifest committed under a limit since lowered; the work
    tree's kistore.toml says :data:`HIGH` again, uncommitted.

    Returns:
        (the store, run-1's digest, run-2's digest).
    """
    docs = ManifestKit().group_docs([{"note": "x"}, {"note": "y" * 1200},
                                     {"items": list(range(60))}])
    Store.init(tmp_path / "store")
    store = Store(tmp_path / "store")
    set_limits(store, *HIGH, commit=True)  # add --commit holds to HEAD's limits (F15)
    digests = add_docs(store, docs)
    set_limits(store, *LOW, commit=True)
    set_limits(store, *HIGH)
    long_string, long_array = Digest.from_str(digests[6]), Digest.from_str(digests[8])
    # every other manifest is too short to hold a value past LOW: never walked
    sizes = {d: (store.root / layout.object_path(Digest.from_str(d))).stat().st_size
             for d in digests}
    assert sizes[str(long_string)] > 1200
    assert max(s for d, s in sizes.items() if d != str(long_string)) < 1000
    return store, long_string, long_array


def ranked(runner, root, *at):
    result = run(runner, root, "rank", "BenchmarkRun/run-0", "--json", *at)
    assert result.exit_code == 0, result.output
    return [r["name"] for r in json.loads(result.stdout)], result.stderr


def ranked_digest(runner, root):
    """The hex digest of run-0, the one run served under the committed limits."""
    result = run(runner, root, "rank", "BenchmarkRun/run-0", "--json")
    return json.loads(result.stdout)[0]["digest"].removeprefix("sha256:")


def string_problem(limit=1000):
    return (f"has a string of 1,200 characters at /spec/sourceNative/note, more than the "
            f"limit of {limit:,} (string-length); `kistore verify` reports KI107")


def array_problem(limit=50):
    return (f"has an array of 60 items at /spec/sourceNative/items, more than the limit of "
            f"{limit:,} (array-length); `kistore verify` reports KI107")


def left_out(digest, problem, key, *, at=""):
    """The two warning lines of a query that leaves ``digest`` out for ``problem``."""
    verify = f"kistore verify --at {at}" if at else "kistore verify"
    return [f"warning: 1 manifest(s) committed at {at or 'HEAD'} do not verify and are left "
            f"out: {digest}; run `{verify}`",
            f"warning: {layout.object_path(digest)}: the object file {problem}; it is left "
            f"out while the limit stands: raise [limits] {key} in kistore.toml if this length "
            "is meant"]


@pytest.fixture
def counted(monkeypatch):
    """The manifests each index update reads (a list per call that reads any)."""
    read: list[list[str]] = []
    real = index_module.read_manifests

    def counting(repo, tree, digests, *args, **kwargs):
        if digests:
            read.append(sorted(str(d) for d in digests))
        return real(repo, tree, digests, *args, **kwargs)

    monkeypatch.setattr(index_module, "read_manifests", counting)
    return read


def test_lowering_string_length_leaves_a_manifest_out_without_reindex(runner, long_store,
                                                                      counted):
    store, long_string, _ = long_store
    set_limits(store, 4096, 500)
    assert ranked(runner, store.root) == (["run-0", "run-1", "run-2"], "")
    counted.clear()
    set_limits(store, 1000, 500)  # only the string limit lowered
    names, warned = ranked(runner, store.root)
    assert names == ["run-0", "run-2"]
    assert warned.splitlines() == left_out(long_string, string_problem(), "string-length",
                                           at="")
    # read again: only the manifest with a file long enough to hold a 1,001-character string
    assert counted == [[str(long_string)]]
    # `--at HEAD` holds HEAD's files to HEAD's own [limits] (res02), the committed LOW ones
    # under which both long runs are left out, not to the work tree's uncommitted ones
    assert ranked(runner, store.root, "--at", "HEAD")[0] == ["run-0"]
    path = layout.object_path(long_string)
    shown = run(runner, store.root, "show", "BenchmarkRun/run-1")
    assert (shown.exit_code, shown.stdout) == (1, "")
    assert shown.stderr == (f"error: {path}: the object file {string_problem()}; it is left "
                            "out while the limit stands: raise [limits] string-length in "
                            "kistore.toml if this length is meant\n")
    listed = run(runner, store.root, "ls", "--kind", "BenchmarkRun")
    assert listed.exit_code == 0, listed.output
    assert "run-1" not in listed.stdout and "run-0" in listed.stdout
    verified = run(runner, store.root, "verify")
    assert verified.exit_code == 1
    assert f"{path}:/spec/sourceNative/note: error KI107 value-too-long" in verified.stdout
    # raised again: the manifest left out, and only it, is read again and comes back
    counted.clear()
    set_limits(store, 4096, 500)
    assert ranked(runner, store.root) == (["run-0", "run-1", "run-2"], "")
    assert counted == [[str(long_string)]]
    assert run(runner, store.root, "show", "BenchmarkRun/run-1").exit_code == 0
    # another edit of kistore.toml that keeps the limits reads nothing
    (store.root / "kistore.toml").write_bytes((store.root / "kistore.toml").read_bytes()
                                              + b"# a comment\n")
    counted.clear()
    assert ranked(runner, store.root) == (["run-0", "run-1", "run-2"], "")
    assert counted == []


def test_lowering_array_length_leaves_a_manifest_out_and_raising_brings_it_back(
        runner, long_store, counted):
    store, long_string, long_array = long_store
    set_limits(store, 4096, 500)
    assert ranked(runner, store.root)[0] == ["run-0", "run-1", "run-2"]
    set_limits(store, 4096, 50)
    names, warned = ranked(runner, store.root)
    assert names == ["run-0", "run-1"]
    assert warned.splitlines() == left_out(long_array, array_problem(), "array-length")
    shown = run(runner, store.root, "show", str(long_array))
    assert (shown.exit_code, shown.stdout) == (1, "")
    assert f"{array_problem()}; it is left out while the limit stands: raise [limits] " \
        "array-length in kistore.toml if this length is meant" in shown.stderr
    counted.clear()
    set_limits(store, 4096, 60)  # raised to exactly its length: it passes again
    assert ranked(runner, store.root) == (["run-0", "run-1", "run-2"], "")
    assert counted == [[str(long_array)]]  # a raise reads only what was left out
    # both lowered at once: both left out, each with its own rule and limit
    set_limits(store, *LOW)
    names, warned = ranked(runner, store.root)
    assert names == ["run-0"]
    lines = warned.splitlines()
    assert len(lines) == 3 and "2 manifest(s) committed at HEAD" in lines[0]
    assert sorted(lines[1:]) == sorted([left_out(long_string, string_problem(),
                                                 "string-length")[1],
                                        left_out(long_array, array_problem(),
                                                 "array-length")[1]])


def test_an_index_from_before_the_value_limits_were_recorded_is_brought_under_them(
        runner, long_store):
    store, long_string, long_array = long_store
    set_limits(store, *HIGH)
    assert ranked(runner, store.root)[0] == ["run-0", "run-1", "run-2"]
    with sqlite3.connect(index_path(store.git_dir)) as conn:  # as an earlier kistore left it
        conn.execute("DELETE FROM meta WHERE key IN ('values', 'settings')")
    conn.close()
    set_limits(store, 1000, 500)
    names, warned = ranked(runner, store.root)
    assert names == ["run-0", "run-2"]
    assert warned.splitlines() == left_out(long_string, string_problem(), "string-length")


def test_a_fresh_clone_leaves_the_same_manifests_out_and_says_why(runner, long_store,
                                                                  tmp_path):
    store, long_string, long_array = long_store
    set_limits(store, *LOW)  # as committed
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(store.root), str(clone))
    names, warned = ranked(runner, clone)
    assert names == ["run-0"]
    assert "2 manifest(s) committed at HEAD do not verify" in warned
    for ref, digest, problem, key in (("BenchmarkRun/run-1", long_string, string_problem(),
                                       "string-length"),
                                      ("BenchmarkRun/run-2", long_array, array_problem(),
                                       "array-length")):
        shown = run(runner, clone, "show", ref)
        assert (shown.exit_code, shown.stdout) == (1, ""), ref
        assert shown.stderr == (f"error: {layout.object_path(digest)}: the object file "
                                f"{problem}; it is left out while the limit stands: raise "
                                f"[limits] {key} in kistore.toml if this length is meant\n")
    bare = tmp_path / "bare.git"  # HEAD's kistore.toml: the limits of a bare repository
    git(tmp_path, "clone", "-q", "--bare", str(store.root), str(bare))
    assert ranked(runner, bare)[0] == ["run-0"]
    site = run(runner, clone, "site", "build", str(tmp_path / "site"))
    assert site.exit_code == 0, site.output
    assert sorted(line for line in site.stderr.splitlines() if "KI107" in line) == sorted(
        f"warning: {layout.object_path(digest)}: {problem}; left out of the site ({digest}); "
        f"it is left out while the limit stands: raise [limits] {key} in kistore.toml if this "
        "length is meant"
        for digest, problem, key in ((long_string, string_problem(), "string-length"),
                                     (long_array, array_problem(), "array-length")))
    pages = {str(p.relative_to(tmp_path / "site")) for p in (tmp_path / "site").rglob("*.html")}
    assert sorted(p for p in pages if p.startswith(("runs/", "names/")) and
                  not p.endswith("/compare/index.html")) == [
        "names/run-0/index.html", f"runs/{ranked_digest(runner, clone)[:16]}/index.html"]


def test_the_problem_names_the_value_the_limit_and_the_rule():
    limits = Limits(string_length=4, array_length=2)
    found = long_values({"spec": {"a~b": "x" * 5, "list": [1, 2, 3]}, "k" * 5: 1}, limits)
    assert [too_long(v) for v in found] == [
        "has an object key of 5 characters at \"\", more than the limit of 4 "
        "(string-length); `kistore verify` reports KI107",
        "has a string of 5 characters at /spec/a~0b, more than the limit of 4 "
        "(string-length); `kistore verify` reports KI107",
        "has an array of 3 items at /spec/list, more than the limit of 2 "
        "(array-length); `kistore verify` reports KI107"]
    assert [limit_key(too_long(v)) for v in found] == [
        "string-length", "string-length", "array-length"]
    assert limit_key("is not in canonical form (RFC 8785; `kistore verify`: KI103)") is None
    assert committed_fix("store/objects/x", too_long(found[2])).endswith(
        "raise [limits] array-length in kistore.toml if this length is meant")


def test_the_bounds_of_what_may_hold_a_value_past_the_limits():
    # 1,000 members take 5,001 bytes at least ({"":0,...}); 10,000 items 19,999
    assert walk_bound(DEFAULT) == 5_001
    assert walk_bound(DEFAULT._replace(object_members=8_000)) == 19_999
    assert walk_bound(Limits(string_length=1000, array_length=500)) == 999
    assert walk_bound(Limits(string_length=1000, array_length=500, object_members=100)) == 501
    members = Limits(object_members=100)
    assert walk_bound(members, DEFAULT) == 501  # only object-members was lowered
    assert walk_bound(DEFAULT, members) is None
    high, low = Limits(string_length=4096, array_length=500), Limits(string_length=1000,
                                                                     array_length=500)
    assert walk_bound(low, high) == 1000  # only the string limit was lowered
    assert walk_bound(high, low) is None  # raised: nothing can newly pass
    assert walk_bound(low, low) is None
    assert walk_bound(low._replace(array_length=50), low) == 99
    assert walk_bound(low, None) == walk_bound(low)


def test_a_bad_kistore_toml_is_said_once_and_its_valid_keys_answer(runner, long_store, caplog):
    # Second review 2026-12-02: with `string-length = 0` (which add and the gate refuse)
    # rank, show and ls answered silently under the default limits, which no file sets.
    # Then they said so, but still used every default: the file's valid `array-length =
    # 50` was ignored (units60). Now each key on its own: string-length keeps its default,
    # array-length 50 applies and leaves run-2 (a 60-item array) out.
    store, _, long_array = long_store
    set_limits(store, 0, 50)
    for _ in range(2):
        names, warned = ranked(runner, store.root)
        assert names == ["run-0", "run-1"]  # run-1's 1,200 characters: the default holds
        assert str(long_array) in warned
    # on the kistore.index logger (on stderr by Python's last resort in a command line),
    # once a process
    said = [r.getMessage() for r in caplog.records if r.name == "kistore.index"]
    assert said == [
        f"warning: {store.root / 'kistore.toml'}:/limits/string-length: string-length must "
        "be a positive integer, found 0 (string-length = 65536 applies, its default); "
        "queries use the file's other limits until kistore.toml is fixed: correct or remove "
        "each key named (`kistore verify` reports it, KI108; `add` refuses it)"]
    assert Store(store.root).limits_per_key()[0] == Limits(string_length=65_536,
                                                           array_length=50)


def test_each_bad_key_is_named_in_the_one_warning(runner, long_store, caplog):
    store, long_string, long_array = long_store
    (store.root / "kistore.toml").write_bytes(SETTINGS + b"[limits]\nstring-length = 1000\n"
                                              b"array-length = \"50\"\nstrng-length = 9\n")
    names, warned = ranked(runner, store.root)
    assert names == ["run-0", "run-2"]  # string-length 1000 applies; array-length: 10,000
    assert str(long_string) in warned and str(long_array) not in warned
    file = store.root / "kistore.toml"
    said = [r.getMessage() for r in caplog.records if r.name == "kistore.index"]
    assert said == [
        f"warning: {file}:/limits/array-length: array-length must be a positive integer, "
        "found '50' (array-length = 10000 applies, its default); "
        f"{file}:/limits/strng-length: unknown limit 'strng-length'; the limits are "
        "manifest-bytes, source-bytes, string-length, array-length, object-members "
        "(ignored); queries use "
        "the file's other limits until kistore.toml is fixed: correct or remove each key "
        "named (`kistore verify` reports it, KI108; `add` refuses it)"]
    # what refuses the file still refuses it, naming each bad key
    with pytest.raises(MultipleErrors) as refused:
        Store(store.root).limits()
    assert [p.pointer for p in refused.value.problems] == ["/limits/array-length",
                                                           "/limits/strng-length"]
    with pytest.raises(MultipleErrors):
        Limits.from_toml({"array-length": "50", "strng-length": 9})
    assert Limits.from_toml_per_key({"array-length": "50", "string-length": 7})[0] == \
        Limits(string_length=7)


def test_a_kistore_toml_that_is_no_toml_leaves_every_default(runner, long_store, caplog):
    store, _, _ = long_store
    (store.root / "kistore.toml").write_bytes(SETTINGS + b"[limits]\narray-length = 50\n[oops\n")
    names, _ = ranked(runner, store.root)
    assert names == ["run-0", "run-1", "run-2"]
    said = [r.getMessage() for r in caplog.records if r.name == "kistore.index"]
    assert len(said) == 1 and said[0].startswith(
        f"warning: {store.root / 'kistore.toml'}:5:6: not valid TOML: ")  # msg95 4: placed
    assert said[0].endswith("; queries use the default limits until kistore.toml is fixed "
                            "(`kistore verify` reports it; `add` refuses it)")


@pytest.mark.parametrize("key", ["string-length", "manifest-bytes"])
def test_a_protocol_left_out_by_a_limit_is_said_to_be_in_the_store(runner, tmp_path, key):
    # review 2026-12-02: rank and show said the run's protocol "is not in the store; add
    # them", and adding it again is refused (past the same limit)
    kit = ManifestKit()
    protocol, env, workload = kit.protocol(family="f" * 1200), kit.environment(), kit.workload()
    impl = kit.implementation(name="impl-0")
    docs = [protocol, env, workload, impl, kit.run(protocol, env, impl, workload, latency=10,
                                                    name="run-0")]
    Store.init(tmp_path / "store")
    store = Store(tmp_path / "store")
    set_limits(store, *HIGH)
    add_docs(store, docs)
    digest = Digest.from_str(ManifestKit.digest(protocol))
    path = layout.object_path(digest)
    size = (store.root / path).stat().st_size
    limit = "string-length = 1000" if key == "string-length" else f"manifest-bytes = {size - 1}"
    (store.root / "kistore.toml").write_bytes(SETTINGS + f"[limits]\n{limit}\n".encode())
    git(store.root, "add", "-A")
    git(store.root, "commit", "-qm", "a protocol past the limit")
    problem = (string_problem().replace("/spec/sourceNative/note", "/spec/comparability/family")
               if key == "string-length" else
               f"holds {size:,} bytes, more than the limit of {size - 1:,} (manifest-bytes); "
               "`kistore verify` reports KI106")
    what = "length" if key == "string-length" else "size"
    run_digest = ManifestKit.digest(docs[-1])
    said = (f"run run-0 ({run_digest}) is in no comparison group: its protocol {digest} is in "
            f"the store but left out by a limit: {path} {problem}; it is left out while the "
            f"limit stands: raise [limits] {key} in kistore.toml if this {what} is meant")
    for at in ([], ["--at", "HEAD"]):
        ranked = run(runner, store.root, "rank", "BenchmarkRun/run-0", *at)
        assert ranked.exit_code == 1, ranked.output
        assert ranked.stderr.splitlines()[-1] == f"error: {said}", at
        shown = run(runner, store.root, "show", "BenchmarkRun/run-0", *at)
        assert shown.exit_code == 0, shown.output
        assert f"note:     {said}\n" in shown.stdout, at
    (tmp_path / "protocol.json").write_text(json.dumps(protocol))
    again = run(runner, store.root, "add", str(tmp_path / "protocol.json"))
    assert again.exit_code == 1  # what "add them" asked is refused: the limit stands


def test_every_query_says_the_bad_kistore_toml_not_only_the_first(runner, long_store, caplog,
                                                                   monkeypatch):
    # Review r60 (F2): the warning came with the index update that parsed the file, so only
    # the first query after kistore.toml changed said it; later ones (other processes)
    # answered under the defaults in silence. Each command is its own process: the set of
    # what this process said is emptied before each, as a new process starts with it empty.
    store, _, _ = long_store
    set_limits(store, 0, 50)
    said = (f"warning: {store.root / 'kistore.toml'}:/limits/string-length: string-length "
            "must be a positive integer, found 0 (string-length = 65536 applies, its "
            "default); queries use the file's other limits until kistore.toml is fixed: "
            "correct or remove each key named (`kistore verify` reports it, KI108; `add` "
            "refuses it)")
    commands = (["rank", "BenchmarkRun/run-0"], ["rank", "BenchmarkRun/run-0"],
                ["show", "BenchmarkRun/run-0"], ["ls"], ["ls", "--json"],
                ["compare", "BenchmarkRun/run-0", "BenchmarkRun/run-1"])
    for args in commands:
        monkeypatch.setattr(once, "_SAID", set())
        caplog.clear()
        result = run(runner, store.root, *args)
        assert result.exit_code == 0, (args, result.output)
        assert [r.getMessage() for r in caplog.records if r.name == "kistore.index"] == \
            [said], args
    set_limits(store, *LOW)  # fixed: no query says it any more
    for args in commands[:2]:
        monkeypatch.setattr(once, "_SAID", set())
        caplog.clear()
        assert run(runner, store.root, *args).exit_code == 0
        assert [r for r in caplog.records if r.name == "kistore.index"] == [], args
