"""Reading inputs: JSON Lines parsed across CPUs give exactly what one process gives.

The parallel path (forked workers over ranges of lines) is forced on small inputs here by
lowering its thresholds; the messages for bad lines must be byte-identical to the
one-process messages (FILE:LINE:COL:/pointer: message), in input order.
"""

from __future__ import annotations

import json

import pytest

from bench.generate import manifests
from kistore.core.errors import MultipleErrors
from kistore.store import inputs


@pytest.fixture
def parallel(monkeypatch):
    """Parse any input of 8+ lines in worker processes, 3 lines a task, as if on 2 CPUs."""
    monkeypatch.setattr(inputs, "PARALLEL_LINES", 8)
    monkeypatch.setattr(inputs, "_CHUNK_LINES", 3)
    monkeypatch.setattr(inputs, "_cpus", lambda: 2)


def serial(data: bytes, file: str):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(inputs, "PARALLEL_LINES", 10**9)
        return inputs.parse_manifests(data, file=file)


def jsonl(n: int) -> bytes:
    return b"".join(json.dumps(d).encode() + b"\n" for d in manifests(n))


def errors_of(data: bytes, file: str) -> list[str]:
    with pytest.raises(MultipleErrors) as caught:
        inputs.parse_manifests(data, file=file)
    return [e.format() for e in caught.value.errors]


def test_parallel_parse_equals_one_process_parse(parallel):
    data = jsonl(40) + b"\n   \n"  # blank lines are skipped, not counted as manifests
    found = inputs.parse_manifests(data, file="runs.jsonl")
    expected = serial(data, "runs.jsonl")
    assert [(x.manifest, x.file, x.pointer, x.line) for x in found] == [
        (x.manifest, x.file, x.pointer, x.line) for x in expected]
    assert [x.manifest.document for x in found] == [x.manifest.document for x in expected]
    assert [x.line for x in found] == list(range(1, 41))


def test_bad_lines_deep_in_a_large_batch_are_reported_as_one_process_reports_them(parallel):
    # Line 2 is in the share this process parses itself, lines 37 and 39 in a worker's.
    lines = jsonl(40).splitlines(keepends=True)
    lines[1] = b"{not json\n"
    lines[36] = b'{"kind": "Workload", "a": 1, "a": 2}\n'   # line 37: duplicate key
    broken = json.loads(lines[38])
    broken["metadata"]["name"] = 7                           # line 39: schema violation
    lines[38] = json.dumps(broken).encode() + b"\n"
    data = b"".join(lines)
    found = errors_of(data, "big.jsonl")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(inputs, "PARALLEL_LINES", 10**9)
        assert found == errors_of(data, "big.jsonl")
    assert found[0].startswith("big.jsonl:2:2:")
    assert found[1] == ("big.jsonl:37:30:/a: duplicate object key 'a'; a key may appear once: "
                        "delete one of them")
    assert found[2].startswith("big.jsonl:39:1:/metadata/name: ")
    assert len(found) == 3


def test_no_worker_processes_falls_back_to_one_process(parallel, monkeypatch):
    import multiprocessing.context

    def refuse(*args, **kwargs):
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.context.ForkContext, "Process", refuse)
    data = jsonl(20)
    assert inputs.parse_manifests(data, file="x.jsonl") == serial(data, "x.jsonl")


def add(runner, store_path, *args, input=None):
    from kistore.cli import main

    return runner.invoke(main, ["--store", str(store_path), "add", *args], input=input)


def test_cli_add_names_a_bad_line_deep_in_a_large_batch_and_writes_nothing(
        parallel, runner, store_path, tmp_path):
    from ..conftest import snapshot

    lines = jsonl(40).splitlines(keepends=True)
    lines[33] = lines[33].replace(b'"apiVersion"', b'"apiVersion": 1, "apiVersion"', 1)
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"".join(lines))
    before = snapshot(store_path)
    result = add(runner, store_path, "--commit", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: {path}:34:19:/apiVersion: duplicate object key 'apiVersion'; "
        "a key may appear once: delete one of them"]
    assert snapshot(store_path) == before


def test_cli_add_reports_a_digest_twice_with_other_metadata_first_then(
        parallel, runner, store_path, tmp_path):
    docs = list(manifests(30))
    twin = json.loads(json.dumps(docs[3]))
    twin["metadata"]["title"] = "Other title"
    docs.append(twin)  # line 31: the same object as line 4, other metadata
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    result = add(runner, store_path, "--commit", str(path))
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {path}:31:1:/metadata: ")
    assert "appears twice in this input with different metadata" in line
    assert '/title: first "' in line and 'then "Other title"' in line


def test_cli_add_commit_of_a_large_batch_prints_every_manifest_and_leaves_git_clean(
        parallel, runner, store_path, tmp_path):
    from kistore.core.model import Manifest

    from ..conftest import git

    docs = list(manifests(40))
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    result = add(runner, store_path, "--commit", "-m", "bulk", str(path))
    assert result.exit_code == 0, result.output
    expected = [Manifest.from_document(d) for d in docs]
    assert result.output.splitlines() == [f"{m.digest} {m.kind} {m.name}" for m in expected]
    assert git(store_path, "status", "--porcelain") == ""
    assert git(store_path, "log", "-1", "--format=%s").strip() == "bulk"


def test_parse_workers_leave_ctrl_c_to_the_parent():
    # A Ctrl-C during a large add printed "Process ForkPoolWorker-1:" and a traceback from
    # each worker (found by a new-user test); the parent alone stops the pool.
    import multiprocessing
    import os
    import signal

    from kistore.core.workers import start_worker

    with multiprocessing.get_context("fork").Pool(1, start_worker, (os.getpid(),)) as p:
        assert p.apply(signal.getsignal, (signal.SIGINT,)) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


_KILL_A_WORKER = r"""
import json, os, signal, sys
from bench.generate import manifests
from kistore.store import inputs

inputs.PARALLEL_LINES, inputs._CHUNK_LINES, inputs._cpus = 8, 3, lambda: 2
parse = inputs._parse_shared_range

def killed(bounds):  # the worker's second task: as `kill -9` or the OOM killer would
    if bounds[0] >= 12:
        os.kill(os.getpid(), signal.SIGKILL)
    return parse(bounds)

inputs._parse_shared_range = killed
data = b"".join(json.dumps(d).encode() + b"\n" for d in manifests(30))
found = inputs.parse_manifests(data, file="x.jsonl")
print(json.dumps([[str(x.manifest.digest), x.line] for x in found]))
"""


def test_a_parse_worker_killed_mid_task_neither_hangs_nor_prints_a_traceback(tmp_path):
    """The attack: ``kill -9`` of one parse worker during a large add. The pool replaced
    the worker and waited forever for its lost answer (a BrokenPipeError traceback when
    stopped); now the parent parses the input itself, with the same result."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    result = subprocess.run([sys.executable, "-c", _KILL_A_WORKER], capture_output=True,
                            text=True, timeout=120, env=env, cwd=root)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    expected = [[str(x.manifest.digest), x.line] for x in serial(jsonl(30), "x.jsonl")]
    assert json.loads(result.stdout) == expected


def test_a_byte_order_mark_deep_in_json_lines_names_its_line():
    """A BOM on line 3501 (a BOM-saved file appended) was reported "at start of file"."""
    first = json.dumps(next(manifests(5))).encode()
    data = first + b"\n" * 3500 + b"\xef\xbb\xbf" + first + b"\n"
    assert errors_of(data, "runs.jsonl") == [
        "runs.jsonl:3501:1: byte-order mark (bytes EF BB BF) at the start of line 3501, not "
        "of the file (a file saved with a BOM was probably appended here): delete those 3 "
        "bytes"]
    assert errors_of(b"\xef\xbb\xbf" + first, "runs.jsonl") == [
        "runs.jsonl:1:1: byte-order mark at start of file; save the file as UTF-8 without BOM"]


def test_cli_add_names_both_lines_of_a_name_used_twice_in_one_file(runner, store_path,
                                                                   tmp_path, kit):
    """A name clash inside one input named only the second line, not the first user."""
    from kistore.core.model import Manifest

    docs = [kit.implementation("proj-a", name="same"), kit.implementation("proj-b", name="same")]
    path = tmp_path / "impls.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    result = add(runner, store_path, str(path))
    assert result.exit_code == 1
    first = Manifest.from_document(docs[0]).digest
    assert result.stderr.splitlines() == [
        f"error: {path}:2:1:/metadata/name: Implementation name {docs[0]['metadata']['name']!r} "
        f"is already used by {first} (first at {path}:1); names are unique per kind: choose "
        "another metadata.name"]


def test_cli_add_stdin_json_lines_reports_every_bad_line_not_a_jsonl_name_hint(
        runner, store_path):
    """Bad lines on stdin were hidden behind "extra data ... (JSON Lines need a .jsonl
    name)" at line 2: each bad line is now reported at its line and pointer."""
    good = json.dumps(next(manifests(5)))
    data = f'{good}\n{{"b": 2,}}\n{good[:40]}\n{{"a": 1, "a": 2}}\n'
    result = add(runner, store_path, "-", input=data)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: -:2:9: expected a string object key: remove the trailing comma before '}'",
        "error: -:3:16:/apiVersion: unterminated string; close it with '\"'",
        "error: -:4:10:/a: duplicate object key 'a'; a key may appear once: delete one of "
        "them",
        "error: 3 problems in all; nothing was added",
    ]


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("x.jsonl", '{"a": 1} {"b": 2}\n', ":1:10: a second JSON value on this line; JSON Lines "
     "hold one manifest a line: start a new line before it"),
    ("two.json", '{"a": 1}\n{"b": 2}\n', ":2:1: extra data after the JSON value; a JSON text "
     "holds one value: remove what follows it; for several manifests use a bundle (an object "
     "or array of manifests) or JSON Lines in a file named .jsonl or .ndjson"),
    ("-", '{"a": 1} {"b": 2}\n', ":1:10: extra data after the JSON value; a JSON text holds "
     "one value: remove what follows it; for JSON Lines on stdin, put each manifest whole on "
     "a line of its own"),
])
def test_cli_add_two_values_in_one_text_says_what_is_right_for_that_input(
        runner, store_path, tmp_path, name, text, expected):
    """The ".jsonl name" hint appeared inside a .jsonl file, where it is wrong, and on
    stdin, where no name can be given."""
    path = tmp_path / name
    if name == "-":
        result = add(runner, store_path, "-", input=text)
    else:
        path.write_text(text)
        result = add(runner, store_path, str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: {name if name == '-' else path}{expected}"]


def test_cli_add_stdin_pretty_printed_manifest_keeps_its_own_error(runner, store_path):
    """A multi-line manifest on stdin is not mistaken for JSON Lines."""
    result = add(runner, store_path, "-", input='{\n  "kind": "Workload",\n  "a": 1,\n}\n')
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: -:4:1: expected a string object key: remove the trailing comma before '}'"]


@pytest.mark.parametrize(("text", "found"), [
    ("null", "null"), ("3", "an integer"), ("2.5", "a number"), ('"x"', "a string"),
    ("true", "a boolean")])
def test_cli_add_of_a_value_that_is_no_object_says_what_it_found(runner, store_path,
                                                                  tmp_path, text, found):
    """Top-level `null` said "a manifest must be a JSON object" without what was found."""
    expected = f"a manifest must be a JSON object: expected an object, found {found}"
    result = add(runner, store_path, "-", input=text + "\n")
    assert (result.exit_code, result.stderr) == (1, f"error: -: {expected}\n")
    path = tmp_path / "one.json"
    path.write_text(text)
    result = add(runner, store_path, str(path))
    assert (result.exit_code, result.stderr) == (1, f"error: {path}: {expected}\n")
    result = add(runner, store_path, "-", input=f"[{text}]")
    assert (result.exit_code, result.stderr) == (1, f"error: -:/0: {expected}\n")


def test_cli_add_of_an_empty_array_says_it_holds_no_manifests(runner, store_path, tmp_path):
    """`[]` was an empty bundle: `kistore add` added nothing and said nothing (exit 0)."""
    expected = ("no manifests here: expected a manifest (an object) or an array of manifests, "
                "found an empty array")
    result = add(runner, store_path, "-", input="[]")
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: -: {expected}\n")
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(next(manifests(5))) + "\n[]\nnull\n")
    result = add(runner, store_path, str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: {path}:2:1: {expected}",
        f"error: {path}:3:1: a manifest must be a JSON object: expected an object, found null",
        "error: 2 problems in all; nothing was added"]


def test_an_invalid_utf8_byte_in_json_lines_is_placed_by_its_file_offset(runner, store_path,
                                                                           tmp_path):
    """In JSON Lines the byte offset of an invalid UTF-8 byte counted from the start of its
    line, not of the file: "at byte offset 16" on line 3 was byte 16 of line 3."""
    first = b'{"a": 1}\r\n'  # CRLF: the \r belongs to line 1
    data = first + b"\n" + b'{"apiVersion":"x\xe9"}\n' + b'{"kind":"\xff"}\n'
    fix = ("the file is not UTF-8 (Latin-1 or Windows-1252?): re-encode it as UTF-8, e.g. "
           "`iconv -f LATIN1 -t UTF-8`")
    third, fourth = len(first) + 1, len(first) + 1 + len(b'{"apiVersion":"x\xe9"}\n')
    assert data[third + 16] == 0xE9 and data[fourth + 9] == 0xFF  # the offsets named below
    expected = [
        ":1:1:/kind: a manifest's kind must be one of Workload, BenchmarkProtocol, "
        "ExecutionEnvironment, Implementation, BenchmarkRun; it has none",
        f":3:17:/apiVersion: invalid UTF-8 byte 0xe9 at byte offset {third + 16} of the file "
        f"(byte 16 of line 3); {fix}",
        f":4:10:/kind: invalid UTF-8 byte 0xff at byte offset {fourth + 9} of the file (byte 9 "
        f"of line 4); {fix}"]
    path = tmp_path / "runs.jsonl"
    path.write_bytes(data)
    assert errors_of(data, str(path)) == [f"{path}{e}" for e in expected]
    result = add(runner, store_path, "-", input=data)  # stdin: JSON Lines found by content
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [*(f"error: -{e}" for e in expected),
                                          f"error: {len(expected)} problems in all; nothing "
                                          "was added"]
    # one JSON text: the offset was the file's already, and says so as before
    assert errors_of(b'{"apiVersion":"x\xe9"}', "m.json") == [
        f"m.json:1:17:/apiVersion: invalid UTF-8 byte 0xe9 at byte offset 16; {fix}"]


def test_utf8_offsets_in_json_lines_parsed_by_workers_are_the_file_offsets(parallel):
    """The parallel path re-parses a worker's bad range in the parent: same file offsets."""
    good = jsonl(12).split(b"\n")
    good[9] = good[9].replace(b'"kind"', b'"k\xe9nd"', 1)
    data = b"\n".join(good)
    [line] = errors_of(data, "runs.jsonl")
    offset = data.index(b"\xe9")
    assert line.startswith("runs.jsonl:10:")
    assert f"invalid UTF-8 byte 0xe9 at byte offset {offset} of the file (byte " \
        f"{offset - data.index(good[9])} of line 10)" in line


def test_a_directory_walk_refuses_what_it_would_pass_over_unsaid(tmp_path):
    # review 2026-12-02 F17: `kistore add DIR` skipped a FIFO named x.json and a symlinked
    # directory without a word; a FIFO is never opened (no hang)
    import os
    from pathlib import Path

    bundle = Path(__file__).parents[2] / "examples" / "sol-execbench-submission-20464.bundle.json"
    top = tmp_path / "in"
    top.mkdir()
    (top / "real.json").write_bytes(bundle.read_bytes())
    (top / "link.json").symlink_to("real.json")  # a link to a file is read as the file
    assert len(inputs.read_inputs([str(top)])) == 6
    os.mkfifo(top / "pipe.json")
    (top / "broken.json").symlink_to(tmp_path / "nothing")
    (tmp_path / "elsewhere").mkdir()
    (top / "sub").symlink_to(tmp_path / "elsewhere")
    os.mkfifo(top / "pipe.txt")  # not named as a manifest: not read, not refused
    with pytest.raises(MultipleErrors) as caught:
        inputs.read_inputs([str(top)])
    assert [(e.file, e.message.split(":")[0]) for e in caught.value.errors] == [
        (str(top / "broken.json"), "a symbolic link to nothing (a broken link); remove it or "
                                   "fix its target"),
        (str(top / "pipe.json"), "a FIFO, socket or device, not a regular file"),
        (str(top / "sub"), "a symbolic link to a directory"),
    ]


@pytest.mark.parametrize("text", ['{\n  "kind": "Workload",\n  "name": "x"\n}\n',
                                  '\n[\n {"a": 1},\n {"b": 2}\n]\n'])
def test_pretty_printed_json_in_json_lines_is_one_error_saying_so(text):
    # reviewer r83: one error a line ("a second JSON value on this line", "cut off")
    found = errors_of(text.encode(), "p.jsonl")
    line = 2 if text.startswith("\n") else 1
    assert found == [
        f"p.jsonl:{line}:1: pretty-printed JSON (a value spread over several lines) where "
        "JSON Lines hold one manifest a line: write each manifest on one line (`jq -c . "
        "p.jsonl`), or give the value as a .json file (a manifest, or a bundle: an object "
        "or array of manifests)"]


def test_json_lines_with_one_bad_line_keep_their_errors_a_line():
    data = jsonl(5) + b"{\"a\": 1\n"
    found = errors_of(data, "x.jsonl")
    assert len(found) == 1 and found[0].startswith("x.jsonl:6:")


def _three_copies(run, field, tmp_path):
    """``run`` three times, its metadata ``field`` tri-first, tri-second, tri-third: a bundle
    (``/first`` ...) and JSON Lines (lines 1-3); returns both paths."""
    copies = {}
    for key in ("first", "second", "third"):
        copy = json.loads(json.dumps(run))
        copy["metadata"][field] = f"tri-{key}"
        copies[key] = copy
    one = tmp_path / "tri.json"
    one.write_text(json.dumps(copies, indent=1))
    lines = tmp_path / "tri.jsonl"
    lines.write_text("".join(json.dumps(d) + "\n" for d in copies.values()))
    return one, lines


def test_cli_add_places_each_copy_of_an_object_given_three_times_at_its_own_entry(
        runner, store_path, tmp_path):
    """fresh01 F5: both conflicts were placed at the third copy (``/third``, line 3), and
    the third was said to appear "twice"."""
    from kistore.core.model import Manifest

    from ..conftest import snapshot

    run = list(manifests(30))[5]
    one, lines = _three_copies(run, "title", tmp_path)
    digest = Manifest.from_document(run).digest
    before = snapshot(store_path)
    said = "{} appears {} in this input with different metadata (/title: first \"tri-first\", " \
           "then \"tri-{}\")"
    for path, second, third in ((one, "/second/", "/third/"), (lines, "2:1:/", "3:1:/")):
        result = add(runner, store_path, "--commit", "--allow-dangling", str(path))
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [
            f"error: {path}:{second}metadata: " + said.format(digest, "twice", "second"),
            f"error: {path}:{third}metadata: " + said.format(digest, "3 times", "third"),
            "error: 2 problems in all; nothing was added"]
        assert snapshot(store_path) == before


def test_cli_add_places_the_stored_copys_problems_at_the_first_entry(runner, store_path,
                                                                     tmp_path):
    """fresh02 G4: an object stored, given three times with other names: "already stored
    with other metadata (... given "tri-first")" and KI209's "not 'tri-first'" were placed
    at the third entry (``/third``, line 3), ``origins`` holding the last copy's place;
    they are the first copy's, the one the add would store."""
    from kistore.core.model import Manifest

    from ..conftest import EXAMPLES, snapshot

    bundle = EXAMPLES / "sol-execbench-submission-20464.bundle.json"
    assert add(runner, store_path, "--allow-dangling", str(bundle)).exit_code == 0
    run = json.loads(bundle.read_text())["run"]
    digest = Manifest.from_document(run).digest
    one, lines = _three_copies(run, "name", tmp_path)
    before = snapshot(store_path)
    again = "{} appears {} in this input with different metadata (/name: first \"tri-first\", " \
            "then \"tri-{}\")"
    for path, first, second, third in ((one, "/first/", "/second/", "/third/"),
                                       (lines, "1:1:/", "2:1:/", "3:1:/")):
        result = add(runner, store_path, "--allow-dangling", str(path))
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [
            f"error: {path}:{second}metadata: " + again.format(digest, "twice", "second"),
            f"error: {path}:{third}metadata: " + again.format(digest, "3 times", "third"),
            f"error: {path}:{first}metadata: {digest} is already stored with other metadata "
            "(/name: stored \"sol-submission-20464\", given \"tri-first\"); pass "
            "--update-metadata to replace it",
            f"error: {path}:{first}metadata/name: sol-execbench run '20464' must be named "
            "'sol-kernel-N-submission-20464' or 'sol-submission-20464' or 'sol-local-20464', "
            "not 'tri-first'",
            "error: 4 problems in all; nothing was added"]
        assert snapshot(store_path) == before
