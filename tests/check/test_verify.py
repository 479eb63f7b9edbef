"""kistore.check._rules (pure checks) and kistore.check.audit (verify over a store): each rule
fires on a fixture that breaks it, with the exact file, place and values; clean bytes yield
nothing."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check import _rules as verify
from kistore.check import audit
from kistore.cli import main
from kistore.core import canonical, canonical_fast, schema
from kistore.core.canonical_fast import _loads_if_plainly_canonical as plainly_canonical
from kistore.core.digest import Digest
from kistore.core.findings import RULES, exit_code
from kistore.core.gitattributes import check_gitattributes
from kistore.store import Store

from ..conftest import (
    PUBLISHED,
    ROOT,
    commit_all,
    git,
    other_environment,
    store_file,
    write_raw,
)

PROTOCOL = store_file(PUBLISHED["protocol"])


def ids(findings) -> list[tuple[str, str | None]]:
    return [(f.rule.id, f.file) for f in findings]


def path_of(data: bytes) -> str:
    return store_file("sha256:" + hashlib.sha256(data).hexdigest())


# -- pure checks on bytes ---------------------------------------------------------------

def test_canonical_object_named_by_its_digest_has_no_findings(bundle):
    data = canonical.dumps({k: bundle["protocol"][k] for k in ("apiVersion", "kind", "spec")})
    assert path_of(data) == PROTOCOL  # the published digest, hand-checked in vectors
    assert verify.check_object_bytes(PROTOCOL, data).findings == []


def test_one_byte_edit_is_object_digest_mismatch(bundle):
    data = canonical.dumps({k: bundle["protocol"][k] for k in ("apiVersion", "kind", "spec")})
    tampered = data.replace(b"v1.1", b"v1.2", 1)
    [finding] = verify.check_object_bytes(PROTOCOL, tampered).findings
    assert finding.rule.id == "KI101" and finding.rule.name == "object-digest-mismatch"
    assert finding.expected == PUBLISHED["protocol"]
    assert finding.found == "sha256:" + hashlib.sha256(tampered).hexdigest()


def test_other_spacing_is_not_canonical_with_line_and_column():
    data = b'{"apiVersion":"kernelindex.dev/v1alpha1",\n "kind": "Workload","spec":{}}'
    [finding] = verify.check_object_bytes(path_of(data), data).findings
    assert finding.rule.id == "KI103"
    # first difference: the newline after the first comma, byte 41, line 1 column 42
    assert (finding.line, finding.column) == (1, 42)
    assert finding.message == "bytes differ from the RFC 8785 form at byte 41"
    assert finding.expected == repr('"kind":"Work') and finding.found == repr('\n "kind": "W')


def test_first_difference_counts_lines_and_characters():
    assert verify.first_difference(b'{\n  "\xc3\xa9":1}', b'{"\xc3\xa9":1}') == (1, 2, 1)
    assert verify.first_difference(b'{"a":\n\n 1}', b'{"a":1}') == (1, 6, 5)
    assert verify.first_difference(b'{"\xc3\xa9":\n2}', b'{"\xc3\xa9":2}') == (1, 6, 6)
    assert verify.first_difference(b"[1]", b"[1]\n") == (1, 4, 3)


def test_crlf_line_ends_are_reported_with_their_line():
    data = b'{\r\n"apiVersion":"kernelindex.dev/v1alpha1","kind":"Workload","spec":{}}'
    findings = verify.check_object_bytes(path_of(data), data).findings
    assert [f.rule.id for f in findings] == ["KI105", "KI103"]
    assert findings[0].line == 1 and findings[0].found == "CR LF"


def test_parse_error_carries_line_column_and_pointer():
    data = b'{"apiVersion":"x",\n "kind":"Workload","kind":"Workload"}'
    [finding] = verify.check_object_bytes(path_of(data), data).findings
    assert finding.rule.id == "KI102"
    assert (finding.line, finding.column, finding.pointer) == (2, 20, "/kind")
    assert "duplicate object key 'kind'" in finding.message


def test_metadata_inside_an_object_is_schema_invalid():
    data = canonical.dumps({"apiVersion": "a", "kind": "Workload", "metadata": {}, "spec": {}})
    [finding] = verify.check_object_bytes(path_of(data), data).findings
    assert (finding.rule.id, finding.pointer) == ("KI104", "/metadata")


def test_schema_findings_go_to_the_file_that_holds_the_value(bundle):
    env = other_environment(bundle)
    env["spec"]["hardware"]["vendor"] = 7
    obj = {k: env[k] for k in ("apiVersion", "kind", "spec")}
    findings = verify.check_manifest_pair("o.json", "m.json", obj, {"name": "Bad Name"})
    assert [(f.rule.id, f.file, f.pointer) for f in findings] == [
        ("KI104", "m.json", "/name"), ("KI104", "o.json", "/spec/hardware/vendor")]
    # missing metadata: the object part is still checked, metadata requirements are not
    findings = verify.check_manifest_pair("o.json", "m.json", obj, None)
    assert [(f.file, f.pointer) for f in findings] == [("o.json", "/spec/hardware/vendor")]


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=5), st.integers(-(2**53) + 1, 2**53 - 1)
                       | st.text(max_size=8), max_size=5), st.data())
def test_any_flipped_byte_of_a_canonical_object_is_caught(spec, data):
    """Tampering with any byte of a stored object is never silent."""
    document = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload", "spec": spec}
    raw = canonical.dumps(document)
    path = path_of(raw)
    assert [f for f in verify.check_object_bytes(path, raw).findings if f.rule.id != "KI104"
            ] == []
    index = data.draw(st.integers(0, len(raw) - 1))
    flipped = raw[:index] + bytes([raw[index] ^ data.draw(st.integers(1, 255))]) + raw[index + 1:]
    rules = {f.rule.id for f in verify.check_object_bytes(path, flipped).findings}
    assert "KI101" in rules


# -- paths ------------------------------------------------------------------------------

def test_layout_paths():
    ok = store_file(PUBLISHED["run"])
    assert verify.check_layout_path(ok) == []
    attestation = ok.replace("objects", "attestations").removesuffix(".json") + \
        "/" + "a" * 64 + ".json"
    for allowed in ("store/trust/keys.json", "store/policy/ranking.json", attestation):
        assert verify.check_layout_path(allowed) == [], allowed
    for bad in ("store/attestations/any/name.jsonl", attestation.replace("a" * 64, "A" * 64),
                attestation + ".tmp", "store/attestations/README.md"):
        assert ids(verify.check_layout_path(bad)) == [("KI110", bad)], bad
    assert ids(verify.check_layout_path(ok, 0o100755)) == [("KI114", ok)]
    assert verify.check_layout_path("README.md", 0o120000) == []  # outside store/: not ours
    upper = ok.replace("38/4a", "38/4A")
    for bad in (upper, "store/objects/sha256/38/x.json", "store/notes.txt", ok + ".tmp",
                "store/objects/sha256/384a96d0ed68745873c797f08184670795010f215daabb29f4d68b6975"
                "7854f6.json"):
        assert ids(verify.check_layout_path(bad)) == [("KI110", bad)], bad
    assert ids(verify.check_layout_path("store/policy/x", 0o160000)) == [
        ("KI111", "store/policy/x"), ("KI110", "store/policy/x")]
    assert ids(verify.check_layout_path("store", 0o120000)) == [("KI111", "store"),
                                                                ("KI110", "store")]
    assert verify.check_layout_path("storehouse/x", 0o120000) == []


def test_unread_policy_and_trust_files_are_outside_the_layout():
    # kistore reads only policy/ranking.json and trust/keys.json: any other file there would
    # look reviewed while nothing honours it (a second policy, a second trust list).
    for bad in ("store/policy/other.json", "store/policy/ranking.json/ranking.json",
                "store/policy/Ranking.json", "store/trust/keys2.json", "store/trust/keys.toml",
                "store/trust/keys.json/keys.json", "store/trust", "store/policy"):
        assert ids(verify.check_layout_path(bad)) == [("KI110", bad)], bad


def test_case_collisions_name_both_paths():
    findings = verify.check_case_collisions(
        ["store/policy/foo.json", "store/policy/Foo.json", "docs/A", "docs/a"])
    assert ids(findings) == [("KI112", "store/policy/foo.json")]
    assert findings[0].extra == {"collides_with": "store/policy/Foo.json"}


def test_gitattributes_must_stop_conversion():
    line = b"store/** -text -eol -filter -ident -working-tree-encoding\n"
    assert check_gitattributes(b"* text=auto\n" + line) == []
    assert ids(check_gitattributes(b"store/** -text\n")) == [("KI113", ".gitattributes")]
    assert ids(check_gitattributes(None)) == [("KI113", ".gitattributes")]


# -- cross-file rules over a real store -------------------------------------------------

def verify_ids(path: Path, at: str | None = None) -> list[tuple[str, str | None]]:
    return ids(audit.verify(Store(path), at))


def test_published_store_verifies_with_dangling_references_as_warnings(published):
    findings = audit.verify(Store(published))
    run = store_file(PUBLISHED["run"])
    assert [(f.rule.id, f.file, f.pointer) for f in findings] == [
        ("KI201", run, "/spec/implementationDigest"), ("KI201", run, "/spec/workloadDigest"),
        ("KI308", None, None)]  # info: which attestations were seen from where
    assert exit_code(findings) == 0
    assert audit.verify(Store(published), "HEAD") == findings


def test_reference_to_wrong_kind(published, bundle, tmp_path):
    run = json.loads(json.dumps(bundle["run"]))
    run["spec"]["workloadDigest"] = PUBLISHED["environment"]
    run["metadata"]["name"] = "misdirected"
    data = canonical.dumps({k: run[k] for k in ("apiVersion", "kind", "spec")})
    write_raw(published, path_of(data), data)
    write_raw(published, path_of(data).replace("objects", "metadata"),
              canonical.dumps(run["metadata"]))
    findings = [f for f in audit.verify(Store(published)) if f.rule.id == "KI202"]
    assert [(f.file, f.pointer, f.expected, f.found) for f in findings] == [
        (path_of(data), "/spec/workloadDigest", "Workload", "ExecutionEnvironment")]


def test_object_without_metadata(published):
    meta = store_file(PUBLISHED["environment"], "metadata")
    (published / meta).unlink()
    assert ("KI204", store_file(PUBLISHED["environment"])) in verify_ids(published)


def test_name_used_twice_in_one_kind(published, bundle):
    env = other_environment(bundle)
    env["metadata"]["name"] = bundle["environment"]["metadata"]["name"]
    data = canonical.dumps({k: env[k] for k in ("apiVersion", "kind", "spec")})
    write_raw(published, path_of(data), data)
    meta_path = path_of(data).replace("objects", "metadata")
    write_raw(published, meta_path, canonical.dumps(env["metadata"]))
    first, second = sorted([PUBLISHED["environment"], "sha256:" + hashlib.sha256(data).hexdigest()])
    [finding] = [f for f in audit.verify(Store(published)) if f.rule.id == "KI205"]
    assert finding.file == store_file(second, "metadata") and finding.pointer == "/name"
    assert finding.message == (
        f"ExecutionEnvironment name 'sol-execbench-b200-v1-1' is also used by {first}")


def test_parse_error_in_metadata(published):
    meta = store_file(PUBLISHED["protocol"], "metadata")
    (published / meta).write_bytes(b'{"name": }')
    findings = [f for f in audit.verify(Store(published)) if f.rule.id == "KI102"]
    assert [(f.file, f.line, f.column) for f in findings] == [(meta, 1, 10)]


def test_a_metadata_file_that_does_not_parse_is_one_finding_not_a_names_cascade(published):
    # review 2026-12-02 F17: KI212 "claims ... which is BenchmarkProtocol/(no name)" followed
    # the metadata file's own KI102
    meta = store_file(PUBLISHED["protocol"], "metadata")
    (published / meta).write_bytes(b'{"x":')
    errors = [(f.rule.id, f.file) for f in audit.verify(Store(published))
              if f.severity == "error" and f.rule.id != "KI401"]  # the edit in the work tree
    assert errors == [("KI102", meta)]


def test_missing_gitattributes_is_reported(published):
    (published / ".gitattributes").unlink()
    assert ("KI113", ".gitattributes") in verify_ids(published)


def test_stray_file_in_the_layout(published):
    write_raw(published, "store/objects/sha256/38/.tmp123", b"x")
    assert ("KI110", "store/objects/sha256/38/.tmp123") in verify_ids(published)


def test_every_problem_is_reported_not_just_the_first(published):
    for digest in PUBLISHED.values():
        path = published / store_file(digest)
        path.write_bytes(path.read_bytes() + b" ")
    findings = audit.verify(Store(published))
    assert sorted(f.file for f in findings if f.rule.id == "KI101") == sorted(
        store_file(d) for d in PUBLISHED.values())
    # each edit is one cause: no rule judges the edited bytes (fresh98 MED 4: KI103 too)
    assert sum(f.rule.id == "KI103" for f in findings) == 0


def test_verify_at_reads_git_not_the_work_tree(published):
    (published / PROTOCOL).write_bytes(b"garbage")
    assert ("KI101", PROTOCOL) in verify_ids(published)
    assert [i for i in verify_ids(published, "HEAD") if i[0] not in ("KI201", "KI308")] == []


def test_verify_works_in_a_bare_clone(published, tmp_path):
    (published / PROTOCOL).write_bytes(b"{}")
    commit_all(published, "corrupt")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(bare))
    findings = audit.verify(Store(bare))
    assert ("KI101", PROTOCOL) in ids(findings) and ("KI401", PROTOCOL) in ids(findings)
    result = CliRunner().invoke(main, ["--store", str(bare), "verify"])
    assert result.exit_code == 1
    # it used to say "store at work tree", which a bare repository does not have
    assert "FAILED: store at HEAD (a bare repository): " in result.output
    result = CliRunner().invoke(main, ["--store", str(bare), "verify", "--json"])
    assert json.loads(result.stdout)["checked"] == "store at HEAD (a bare repository)"


def test_verify_json_of_a_bare_repository_it_cannot_verify_says_so(tmp_path):
    # review 2026-12-02: the report of an error said "store at work tree" there too
    bare = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    result = CliRunner().invoke(main, ["--store", str(bare), "verify", "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert (report["checked"], report["ok"], report["findings"]) == (
        "store at HEAD (a bare repository)", False, [])
    # F27 (review 2026-12-02): an empty repository's HEAD names an unborn branch
    assert report["errors"][0]["message"].startswith("HEAD names the branch ")
    assert report["errors"][0]["message"].endswith(
        "which has no commit yet, and this repository has no branch with a commit: push or "
        "commit one first")
    result = CliRunner().invoke(main, ["--store", str(bare), "verify", "--format", "github"])
    assert result.exit_code == 1
    assert result.stdout.startswith("::error title=kistore::HEAD names the branch ")


def test_a_pool_of_workers_finds_exactly_what_one_process_finds(published, bundle,
                                                                 monkeypatch):
    monkeypatch.setattr(audit, "CHUNK", 1)  # every manifest its own task: order must hold
    (published / PROTOCOL).write_bytes(b'{"kind":"Workload"}')
    (published / store_file(PUBLISHED["environment"], "metadata")).unlink()
    # KI103 and KI104 of an intact object's metadata (the edited protocol's bytes are KI101
    # alone since fresh98 MED 4)
    (published / store_file(PUBLISHED["run"], "metadata")).write_bytes(b'{"name": 5}')
    env = other_environment(bundle)
    data = json.dumps({k: env[k] for k in ("apiVersion", "kind", "spec")}).encode()
    write_raw(published, path_of(data), data)
    commit_all(published, "damage")
    store = Store(published)
    for at in (None, "HEAD"):
        alone = audit.check_contents(audit.snapshot(store, at), workers=1)
        pooled = audit.check_contents(audit.snapshot(store, at), workers=2)
        assert pooled == alone
        assert {"KI101", "KI103", "KI104", "KI204"} <= {f.rule.id for f in alone}


def test_verify_workers_end_on_sigterm_even_when_the_cli_catches_it(published):
    # A worker inherited the CLI's SIGTERM handler (an interrupt): the pool's terminate
    # could not end an idle worker and the parent waited on it for ever (seen in the suite).
    import multiprocessing
    import os
    import signal

    from kistore.cli import _terminated

    previous = signal.signal(signal.SIGTERM, _terminated)
    audit._worker_snapshot = audit.snapshot(Store(published))
    try:
        with multiprocessing.get_context("fork").Pool(
                1, audit._reopen_worker_snapshot, (os.getpid(),)) as pool:
            assert pool.apply(signal.getsignal, (signal.SIGTERM,)) == signal.SIG_DFL
            assert pool.apply(signal.getsignal, (signal.SIGINT,)) == signal.SIG_IGN
    finally:
        audit._worker_snapshot = None
        signal.signal(signal.SIGTERM, previous)


def test_extra_checkers_run_after_the_contents_check(published):
    from kistore.core.findings import Finding

    seen = []

    def checker(store, at):
        seen.append(at)
        return [Finding(RULES["KI101"], "from a plug-in", file="x")]

    findings = audit.verify(Store(published), "HEAD", checkers=[checker])
    assert seen == ["HEAD"] and findings[-1].message == "from a plug-in"


# -- docs/rules.md documents every rule -------------------------------------------------

def test_every_rule_has_a_row_in_docs_rules():
    import kistore.check.gate  # noqa: F401 - registers the gate's rules

    text = (ROOT / "docs" / "rules.md").read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| (KI\d{3}) \| ([a-z-]+) \|", text,
                                                        re.M)}
    for rule in RULES.values():
        if rule.id.startswith(("KI1", "KI2", "KI4")):
            assert rows.get(rule.id) == rule.name, rule.id


def test_digest_type_is_used_for_references():
    entry = verify.entry_from(Digest("0" * 64), {"kind": "BenchmarkRun", "spec": {
        "workloadDigest": "sha256:" + "1" * 64, "protocolDigest": "not a digest"}}, None,
        has_object=True, has_metadata=False)
    assert entry.references == {"workloadDigest": "sha256:" + "1" * 64}


# -- the fast paths never say "fine" when the exact path would not ----------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=6)
    | st.sampled_from(["\ud800", "\U0001f600", "1.0", "e-5", "\u2028"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=4) | st.sampled_from(["\U0001f600", "\uffff", "a"]),
                      children, max_size=4),
    max_leaves=12)


@settings(max_examples=500, deadline=None)
@given(_json_values, st.sampled_from(["orjson", "canonicaljson", "spaced", "canonical"]),
       st.data())
def test_fast_canonical_paths_agree_with_the_exact_one(value, style, data):
    """Bytes either fast test accepts are exactly the bytes kistore.canonical accepts."""
    import canonicaljson
    import orjson
    import rfc8785

    try:
        if style == "orjson":
            raw = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        elif style == "canonicaljson":
            raw = canonicaljson.encode_canonical_json(value)
        elif style == "spaced":
            raw = json.dumps(value, sort_keys=True).encode("utf-8", "surrogatepass")
        else:
            raw = canonical.dumps(value)
    except (ValueError, TypeError, UnicodeError, orjson.JSONEncodeError,
            canonical.CanonicalFormError):
        return
    if data.draw(st.booleans()) and raw:  # tampered bytes
        i = data.draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + data.draw(st.sampled_from([b"", b" ", b"1", b"0", b'"', b"\xff"])) \
            + raw[i + 1:]
    for fast_path in (plainly_canonical, canonical_fast.loads_if_canonical):
        fast = fast_path(raw)
        if fast is not None:
            assert canonical.is_canonical(raw), raw
            assert fast == canonical.loads(raw), raw
            assert rfc8785.dumps(fast) == raw, raw


def test_fast_canonical_path_declines_what_the_strict_parser_rejects():
    for raw in (b'{"a":1,"a":1}', b"[9007199254740993]", b"[1.0]", b"[1e-7]", b"[NaN]",
                b'["\\ud800"]', b"\xef\xbb\xbf{}", b"[" * 65 + b"]" * 65,
                b'{"\xf0\x9f\x98\x80":1}', b"[-9007199254740993]", b'{"a":12345678901234567.5}'):
        assert plainly_canonical(raw) is None, raw
    # a fraction's 17 digits are no big integer: such floats (common in results) stay fast
    raw = canonical.dumps([0.15764724456512623, -0.0001234567890123456])
    assert plainly_canonical(raw) == json.loads(raw)
    for raw in (b"[0.000012]", b"[-0.000001,0.00000999]", b'["0.0000120",0.000012]'):
        assert plainly_canonical(raw) == json.loads(raw), raw
    for raw in (b"[0.0000120]", b"[0.0000001]", b'["0.000012",0.000012]'):
        assert plainly_canonical(raw) is None, raw  # not canonical, or not provably
    assert plainly_canonical(b'{"a":[1,2.5,"x"]}') == {"a": [1, 2.5, "x"]}


def test_published_objects_take_the_fast_paths(bundle):
    for name in ("run", "protocol", "environment"):
        document = bundle[name]
        raw = canonical.dumps({k: document[k] for k in ("apiVersion", "kind", "spec")})
        assert plainly_canonical(raw) == json.loads(raw), name
        assert schema._fast_validator(f"{document['kind']}.json").is_valid(document), name


def test_verify_at_an_unknown_revision_is_a_clear_error(runner, published):
    from kistore.cli import main

    result = runner.invoke(main, ["--store", str(published), "verify", "--at", "nope"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: no commit named 'nope'")
    assert "Traceback" not in result.output


def test_a_symlinked_store_directory_is_reported(published, tmp_path):
    import shutil

    shutil.move(published / "store", tmp_path / "elsewhere")
    (published / "store").symlink_to(tmp_path / "elsewhere")
    assert ("KI111", "store") in verify_ids(published)
    commit_all(published, "store is a symlink")
    assert ("KI111", "store") in verify_ids(published, "HEAD")


_number_texts = st.one_of(
    st.integers().map(str),
    st.integers(-2**60, 2**60).map(lambda i: f"{i}.0"),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f"{f:.17g}"),
    st.floats(allow_nan=False, allow_infinity=False).map(canonical.es6_number),
    st.floats(-1e-3, 1e-3).map(canonical.es6_number),  # 0.000012: Python writes 1.2e-05
    st.floats(1e-8, 1e-3).map(lambda f: f'"{canonical.es6_number(f)}"'),
    st.from_regex(r"\A-?[0-9]{1,25}(\.[0-9]{1,25})?([eE][-+]?[0-9]{1,4})?\Z"))


@settings(max_examples=600, deadline=None)
@given(st.lists(_number_texts, min_size=1, max_size=6), st.data())
def test_fast_canonical_paths_agree_on_numbers(texts, data):
    """Both fast paths (number hooks, orjson) accept only what the exact path calls canonical."""
    raw = ("[" + ",".join(texts) + "]").encode()
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(raw) - 1))
        flip = data.draw(st.sampled_from([b"", b"0", b"9", b".", b"e", b"-", b"+"]))
        raw = raw[:i] + flip + raw[i + 1:]
    for fast_path in (plainly_canonical, canonical_fast.loads_if_canonical):
        fast = fast_path(raw)
        if fast is not None:
            assert canonical.is_canonical(raw), raw
            assert fast == canonical.loads(raw), raw


def test_verify_does_not_wait_for_ever_on_a_fifo_at_gitattributes(published):
    # breaker9: `rm .gitattributes; mkfifo .gitattributes; kistore verify` blocked in
    # libgit2's open of the FIFO (git status reads attributes to filter files), and
    # ignored Ctrl-C and SIGTERM.
    import os
    import subprocess
    import sys

    os.remove(published / ".gitattributes")
    os.mkfifo(published / ".gitattributes")
    for path in (published / "store").rglob("*.json"):
        os.utime(path)  # stat data changed: git must read the file, through its filters
    done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(published),
                           "verify"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    # one finding (fresh14 F3: its read and git's status each gave one), its own fix
    kinds = [line for line in done.stdout.splitlines() if "KI113" in line]
    assert kinds == [
        ".gitattributes: error KI113 gitattributes-missing: not a regular file (a FIFO): git "
        "cannot read it, and `git status` waits on a FIFO for ever; what the work tree "
        "changes in committed objects was not checked (expected a regular file, found a "
        "FIFO)",
        "fix KI113 (1 finding): put the store's .gitattributes back: `git checkout HEAD -- "
        ".gitattributes` (a directory there: `rm -r .gitattributes` first)"]
