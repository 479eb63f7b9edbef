"""Size limits (kistore.core.limits): enforced while reading, in add, import, check and verify.

Issue 18: `kistore add /dev/zero` grew to 23 GB and was killed; a 200 MB manifest was
accepted, and then `ls` took 5 s and `show` printed 200 MB; a 5,000-digit integer was
echoed whole in the error.
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core.errors import InputError, MultipleErrors
from kistore.core.limits import (
    DEFAULT,
    Limits,
    read_lines_bounded,
    read_stream_bounded,
)
from kistore.store import Store

from ..conftest import BUNDLE, PUBLISHED, commit_all, git, store_file

KISTORE = [sys.executable, "-m", "kistore"]


class Endless(io.RawIOBase):
    """A stream that never ends (as /dev/zero), counting the bytes it handed out."""

    def __init__(self, head: bytes = b"", fill: bytes = b"0") -> None:
        self.head, self.fill, self.served = head, fill, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = len(buffer)
        data = (self.head[self.served:self.served + n] if self.served < len(self.head)
                else b"")
        data += self.fill * (n - len(data))
        buffer[:n] = data
        self.served += n
        return n


def limited(store_path: Path, **limits: int) -> None:
    """Write a [limits] table into the store's kistore.toml (work tree)."""
    table = "".join(f"{k.replace('_', '-')} = {v}\n" for k, v in limits.items())
    settings = store_path / "kistore.toml"
    assert settings.read_text().count("\n[limits]\n") == 1  # `kistore init` writes the table
    settings.write_text(settings.read_text().replace("\n[limits]\n", "\n[limits]\n" + table))


def invoke(runner, store_path, *args, **kwargs):
    return runner.invoke(main, ["--store", str(store_path), *args], **kwargs)


def small_memory() -> None:  # a process that read /dev/zero without a limit dies fast
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_an_endless_input_is_read_only_to_the_limit_plus_one_byte():
    stream = Endless()
    with pytest.raises(InputError, match=r"the input holds more than the limit of 1,000 bytes "
                                         r"\(manifest-bytes\); nothing past it was read"):
        read_stream_bounded(stream, 1000, file="/dev/zero")
    assert stream.served == 1001


def test_an_endless_json_lines_line_is_read_only_to_the_limit_past_the_last_newline():
    first = b'{"a": 1}\n{"b": 2}\n'
    stream = Endless(first, b"x")
    with pytest.raises(InputError) as caught:
        read_lines_bounded(stream, 100, file="runs.jsonl")
    assert caught.value.line == 3
    assert caught.value.format().startswith(
        "runs.jsonl:3:1: line 3 holds more than the limit of 100 bytes")
    assert stream.served == len(first) + 101


def test_json_lines_keep_every_line_within_the_limit():
    data = b"".join(b'{"n": %d}\n' % i for i in range(10_000))
    assert read_lines_bounded(io.BytesIO(data), 20, file="f.jsonl") == data
    with pytest.raises(InputError, match="line 10001 holds more than the limit of 20 bytes"):
        read_lines_bounded(io.BytesIO(data + b'{"long": "' + b"x" * 30 + b'"}\n'), 20,
                           file="f.jsonl")


def test_kistore_add_dev_zero_stops_at_once(store_path):
    done = subprocess.run([*KISTORE, "--store", str(store_path), "add", "/dev/zero"],
                          capture_output=True, text=True, timeout=120, preexec_fn=small_memory)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr == (
        "error: /dev/zero: the input holds more than the limit of 1,048,576 bytes "
        "(manifest-bytes); nothing past it was read; for more manifests than fit, use JSON "
        "Lines (a .jsonl file, or - for standard input): one manifest a line, each line "
        "within the limit; raise [limits] manifest-bytes in kistore.toml if this size is "
        "meant\n")
    assert not (store_path / "store" / "objects").exists() or \
        not any((store_path / "store" / "objects").rglob("*.json"))


def test_kistore_add_of_endless_stdin_stops_at_once(store_path):
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run([*KISTORE, "--store", str(store_path), "add", "-"], stdin=zero,
                              capture_output=True, text=True, timeout=120,
                              preexec_fn=small_memory)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.startswith(
        "error: -: the input holds more than the limit of 1,048,576 bytes")


def test_json_lines_on_stdin_have_no_total_limit_only_a_limit_a_line(runner, store_path):
    limited(store_path, manifest_bytes=1500)
    bundle = json.loads(BUNDLE.read_text())
    lines = "".join(json.dumps(bundle[k]) + "\n" for k in ("protocol", "environment", "run"))
    assert len(lines) > 1500  # more than the limit in all, each line within it
    result = invoke(runner, store_path, "add", "--allow-dangling", "-", input=lines)
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 3
    too_long = lines + json.dumps({**bundle["run"], "padding": "x" * 3000}) + "\n"
    result = invoke(runner, store_path, "add", "--allow-dangling", "-", input=too_long)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: -:4:1: line 4 holds more than the limit of 1,500 bytes")


def test_a_manifest_past_the_configured_limits_is_refused_at_its_pointer(runner, store_path,
                                                                        tmp_path):
    limited(store_path, string_length=100, array_length=3)
    run = json.loads(BUNDLE.read_text())["run"]
    run["metadata"]["title"] = "t" * 101
    run["metadata"]["labels"] = {"k": "v"}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    result = invoke(runner, store_path, "add", "--allow-dangling", str(path))
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {path}:/metadata/title: a string of 101 characters, more than the limit of "
        "100 (string-length); its first 40 characters: 'tttttttttttttttttttttttttttttttttttttttt'; "
        "raise [limits] string-length in kistore.toml if this size is "
        "meant\n")
    workload = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
                "metadata": {"name": "w"},
                "spec": {"suite": {"name": "S"}, "definition": "gemm",
                         "cases": [{"n": i} for i in range(4)]}}
    path.write_text(json.dumps(workload))
    result = invoke(runner, store_path, "add", str(path))
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"error: {path}:/spec/cases: an array of 4 items, more than the limit of 3 "
        "(array-length); raise [limits] array-length in kistore.toml if this size is meant\n")
    assert not any((store_path / "store" / "objects").rglob("*.json"))


def test_a_manifest_whose_canonical_bytes_pass_the_limit_is_refused():
    from kistore.core.model import Manifest

    bundle = json.loads(BUNDLE.read_text())
    sizes = {k: len(Manifest.from_document(v).object_bytes) for k, v in bundle.items()}
    assert sizes["run"] > 500 and sizes["protocol"] > 500 and sizes["environment"] < 500
    with pytest.raises(MultipleErrors) as caught:
        read_inputs_from_bytes(json.dumps(bundle).encode(), Limits(manifest_bytes=500))
    assert [p.format() for p in caught.value.problems] == [
        f"b.json:/{key}/spec: its object in canonical form is {sizes[key]} bytes, more than "
        "the limit of 500 (manifest-bytes); raise [limits] manifest-bytes in kistore.toml if "
        "this size is meant" for key in ("run", "protocol")]


def read_inputs_from_bytes(data: bytes, limits: Limits):
    from kistore.store.inputs import parse_manifests

    return parse_manifests(data, file="b.json", limits=limits)


def test_a_5000_digit_integer_is_quoted_in_80_characters_not_echoed_whole(runner, tmp_path):
    run = BUNDLE.read_text().replace('"mean": 13634148', '"mean": ' + "9" * 5000)
    path = tmp_path / "big.json"
    path.write_text(run)
    result = runner.invoke(main, ["digest", str(path)])
    assert result.exit_code == 1
    assert "9" * 57 not in result.stderr
    assert result.stderr.endswith(": integer 999999999999999999999999999999999999999999999999"
                                  "99999999... (5,000 characters) is outside +/-(2**53 - 1); "
                                  "write it in a larger unit, or as a string where the "
                                  "schema takes one\n")
    for field, value in (("observedAt", "z" * 5000), ("status", "y" * 5000)):
        document = json.loads(BUNDLE.read_text())["run"]
        document["spec"][field] = value
        path.write_text(json.dumps(document))
        result = runner.invoke(main, ["digest", str(path)])
        assert result.exit_code == 1
        assert len(result.stderr) < 400, result.stderr


def test_import_reads_a_source_file_only_to_its_limit(runner, store_path, tmp_path):
    limited(store_path, source_bytes=1000)
    source = tmp_path / "baseline_time_torch.json"
    source.write_text(json.dumps({"level1": {f"{i}_x.py": {} for i in range(100)}}))
    result = invoke(runner, store_path, "import", "kernelbench", str(source))
    assert result.exit_code == 1
    assert (f"error: {source}: the input holds {source.stat().st_size:,} bytes, more than "
            "the limit of 1,000 (source-bytes); not read; raise [limits] source-bytes in "
            "kistore.toml if this size is meant\n") in result.stderr  # by its size (res02)
    done = subprocess.run([*KISTORE, "--store", str(store_path), "import", "kernelbench",
                           "/dev/zero"], capture_output=True, text=True, timeout=120,
                          preexec_fn=small_memory)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def _padded() -> dict:
    """The published environment named ``padded``, its product 807 characters long: its
    object (1,008 bytes) is past a limit of 700 or 900 bytes, within 4096."""
    env = json.loads(BUNDLE.read_text())["environment"]
    env["metadata"]["name"] = "padded"
    env["spec"]["hardware"]["product"] = "NVIDIA " + "H" * 800
    return env


def _only_ki106(runner, store_path: Path, commands: list[list[str]], path: str, size: int,
                limit: int) -> None:
    """Each of ``commands`` fails with one error: KI106 of ``path`` (``size`` bytes) past
    ``limit`` (manifest-bytes), and no other finding on what was not read."""
    for args in commands:
        result = invoke(runner, store_path, *args)
        assert result.exit_code == 1, (args, result.output)
        errors = [line for line in result.output.splitlines() if " error " in line]
        assert errors == [
            f"{path}: error KI106 file-too-large: the file holds {size:,} bytes, more than "
            f"the limit of {limit} (manifest-bytes) (expected at most {limit} bytes, found "
            f"{size:,} bytes)"], (args, result.output)


def test_limits_in_kistore_toml_are_checked(runner, store_path):
    limited(store_path, manifest_byte=10)
    result = invoke(runner, store_path, "add", str(BUNDLE))
    assert (result.exit_code, result.stderr) == (1, (
        f"error: {store_path / 'kistore.toml'}:/limits/manifest-byte: unknown limit "
        "'manifest-byte'; the limits are manifest-bytes, source-bytes, string-length, "
        "array-length, object-members\n"))
    assert Limits.from_toml({"array-length": 5}) == Limits(array_length=5)
    with pytest.raises(InputError, match="string-length must be a positive integer, found 0"):
        Limits.from_toml({"string-length": 0})
    assert DEFAULT == Limits(1 << 20, 64 << 20, 65_536, 10_000)


def test_a_manifest_committed_past_the_limit_fails_verify_and_check_and_is_left_out_of_ls(
        runner, published):
    # What `add` refuses can still be committed past the hooks: the gate and verify must
    # refuse it without reading it whole, and queries must leave it out.
    base = git(published, "rev-parse", "HEAD").strip()
    limited(published, manifest_bytes=700)
    commit_all(published, "limit")
    base = git(published, "rev-parse", "HEAD").strip()
    env = _padded()
    from kistore.core.model import Manifest

    manifest = Manifest.from_document(env)  # default limits: 1 MiB
    for path, data in ((store_file(str(manifest.digest)), manifest.object_bytes),
                       (store_file(str(manifest.digest), "metadata"), manifest.metadata_bytes)):
        (published / path).parent.mkdir(parents=True, exist_ok=True)
        (published / path).write_bytes(data)
    commit_all(published, "past the hooks")
    path = store_file(str(manifest.digest))
    for args in (["verify"], ["verify", "--at", "HEAD"], ["check", f"{base}..HEAD"]):
        result = invoke(runner, published, *args)
        assert result.exit_code == 1, (args, result.output)
        size = len(manifest.object_bytes)
        assert (f"{path}: error KI106 file-too-large: the file holds {size:,} bytes"
                + ", more than the limit of 700 (manifest-bytes) (expected") in result.output, \
            (args, result.output)
    listed = invoke(runner, published, "ls", "--kind", "ExecutionEnvironment")
    assert listed.exit_code == 0, listed.output
    assert "padded" not in listed.stdout
    assert f"warning: {path}: the object file holds {size:,} bytes, more than the limit of " \
        "700" in listed.stderr


SETTINGS_HINT = (
    "fix kistore.toml: [limits] takes only manifest-bytes, string-length, array-length, "
    "object-members and source-bytes, each a positive integer (leave a key out for its "
    "default); until then `add` and `import` refuse the store, while queries (with a "
    "warning) and `verify` read each bad key as its default and go on")


def test_verify_reports_a_bad_limit_as_ki108_and_goes_on_under_the_valid_ones(
        runner, published):
    # units60: `verify` stopped with an error at a bad [limits] key (and checked nothing);
    # now it reports KI108 on kistore.toml (what is wrong, the fix) and checks the store
    # under the file's valid keys, each bad one at its default: here manifest-bytes = 900
    # still finds the padded environment past it (KI106).
    env = _padded()
    from kistore.core.model import Manifest

    manifest = Manifest.from_document(env)
    for path, data in ((store_file(str(manifest.digest)), manifest.object_bytes),
                       (store_file(str(manifest.digest), "metadata"), manifest.metadata_bytes)):
        (published / path).parent.mkdir(parents=True, exist_ok=True)
        (published / path).write_bytes(data)
    commit_all(published, "past the hooks")
    limited(published, manifest_bytes=900, string_length=0)  # in the work tree
    padded = store_file(str(manifest.digest))
    message = "string-length must be a positive integer, found 0"
    done = invoke(runner, published, "verify", "--json")
    assert done.exit_code == 1, done.output
    report = json.loads(done.stdout)
    assert report["ok"] is False and "errors" not in report
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["file"], f.get("pointer")) for f in errors] == [
        ("KI106", padded, None), ("KI108", "kistore.toml", "/limits/string-length")]
    assert errors[1]["message"] == message and errors[1]["hint"] == SETTINGS_HINT
    text = invoke(runner, published, "verify")
    assert text.exit_code == 1
    lines = text.stdout.splitlines()
    assert f"kistore.toml:7:1:/limits/string-length: error KI108 settings-invalid: {message}" \
        in lines  # at the key's line (gate60, r60 F14)
    assert any(line.startswith(f"{padded}: error KI106 file-too-large:") for line in lines)
    assert lines[-1].startswith("FAILED: store at work tree: 2 errors")
    github = invoke(runner, published, "verify", "--format", "github")
    assert github.exit_code == 1
    assert ("::error file=kistore.toml,line=7,col=1,title=KI108 settings-invalid::"
            "/limits/string-length: "
            f"KI108 settings-invalid: {message}. Fix: {SETTINGS_HINT}") in \
        github.stdout.splitlines()
    # from Python: the same finding, after the contents
    from kistore.check.audit import verify

    found = [(f.rule.id, f.file, f.pointer, f.message) for f in verify(Store(published))
             if f.severity == "error"]
    assert found == [("KI106", padded, None, errors[0]["message"]),
                     ("KI108", "kistore.toml", "/limits/string-length", message)]
    # a file that is not TOML at all: KI108 with the parse error, every limit its default
    (published / "kistore.toml").write_text("[limits\n")
    done = invoke(runner, published, "verify", "--json")
    assert done.exit_code == 1
    errors = [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]
    settings = [f for f in errors if f["rule"] in ("KI106", "KI108")]  # 1 MiB: read whole
    assert [(f["rule"], f["file"]) for f in settings] == [("KI108", "kistore.toml")]
    assert settings[0]["message"].startswith("not valid TOML: ")


def test_a_pull_request_cannot_raise_its_own_limit_when_checked_from_its_merge(
        runner, published):
    # review 2026-12-01: the workflow checks `HEAD^1..HEAD` from a checkout of the merge,
    # whose kistore.toml is the pull request's: a PR raising manifest-bytes passed the gate
    limited(published, manifest_bytes=700)
    commit_all(published, "limit")
    base = git(published, "rev-parse", "HEAD").strip()
    settings = published / "kistore.toml"  # the pull request raises it ...
    settings.write_text(settings.read_text().replace("manifest-bytes = 700",
                                                     "manifest-bytes = 4096"))
    env = _padded()
    (published.parent / "padded.json").write_text(json.dumps(env))  # ... to add this
    added = invoke(runner, published, "add", str(published.parent / "padded.json"))
    assert added.exit_code == 0, added.output
    commit_all(published, "raise the limit and add a big environment")
    result = invoke(runner, published, "check", f"{base}..HEAD")  # from the merge's checkout
    assert result.exit_code == 1, result.output
    assert "error KI106 file-too-large" in result.output
    assert "more than the limit of 700 (manifest-bytes)" in result.output
    # the limit, once merged on its own, is the store's: the same content passes after it
    git(published, "reset", "-q", "--soft", "HEAD~1")
    git(published, "restore", "--staged", "store")
    git(published, "commit", "-qm", "raise the limit", "--", "kistore.toml")
    # that commit raises the limit and holds nothing else: the big environment is not in it
    assert git(published, "diff", "--name-only", "HEAD~1", "HEAD") == "kistore.toml\n"
    assert Store(published).limits("HEAD~1").manifest_bytes == 700
    assert Store(published).limits("HEAD").manifest_bytes == 4096
    base = git(published, "rev-parse", "HEAD").strip()
    git(published, "add", "store")
    git(published, "commit", "-qm", "add a big environment")
    result = invoke(runner, published, "check", f"{base}..HEAD")
    assert result.exit_code == 0, result.output


def test_an_object_past_the_limit_in_a_range_is_one_ki106_not_a_names_file_finding(
        runner, published):
    # review 2026-12-02: its names file was reported too, as KI212 "(no kind)/padded",
    # because the object is not read past the limit: noise beside the KI106
    limited(published, manifest_bytes=900)  # the run (802 bytes) fits
    commit_all(published, "limit")
    base = git(published, "rev-parse", "HEAD").strip()
    settings = published / "kistore.toml"
    settings.write_text(settings.read_text().replace("manifest-bytes = 900",
                                                     "manifest-bytes = 4096"))
    env = _padded()
    (published.parent / "padded.json").write_text(json.dumps(env))
    added = invoke(runner, published, "add", str(published.parent / "padded.json"))
    assert added.exit_code == 0, added.output
    settings.write_text(settings.read_text().replace("manifest-bytes = 4096",
                                                     "manifest-bytes = 900"))
    commit_all(published, "a big environment, with its names file, past the limit")
    from kistore.core.model import Manifest

    manifest = Manifest.from_document(env)
    path = store_file(str(manifest.digest))
    size = len(manifest.object_bytes)
    _only_ki106(runner, published, [["check", f"{base}..HEAD"], ["verify"],
                                    ["verify", "--at", "HEAD"]], path, size, 900)


def test_a_run_past_the_limit_is_one_ki106_not_findings_on_its_records(runner, published):
    # its forward records and group file said "has no object file" (KI214, KI216): it has
    # one, only not read
    limited(published, manifest_bytes=700)
    commit_all(published, "limit: the published run (802 bytes) is past it")
    _only_ki106(runner, published, [["verify"], ["verify", "--at", "HEAD"]],
                store_file(PUBLISHED["run"]), 802, 700)


def _too_long(case: str, env: dict) -> tuple[str, str]:
    """Make ``env`` hold a value past the default limits; return (limit key, its pointer)."""
    if case == "string":
        env["spec"]["hardware"]["product"] = "NVIDIA " + "H" * 70_000
        return "string_length", "/spec/hardware/product"
    env["spec"]["hardware"]["clocks"] = {"mhz": [1] * 10_001}
    return "array_length", "/spec/hardware/clocks/mhz"


@pytest.mark.parametrize("case", ["string", "array"])
def test_a_value_past_the_limits_committed_past_add_is_one_ki107(runner, published, case):
    # review 2026-12-02: `add` refuses a 70,000-character string or a 10,001-item array,
    # but one committed by hand (or under a raised limit, since lowered) passed check and
    # verify: the rules must hold over the whole history
    base = git(published, "rev-parse", "HEAD").strip()
    settings = published / "kistore.toml"
    before = settings.read_text()
    env = json.loads(BUNDLE.read_text())["environment"]
    env["metadata"]["name"] = "padded"
    key, pointer = _too_long(case, env)
    (published.parent / "padded.json").write_text(json.dumps(env))
    refused = invoke(runner, published, "add", str(published.parent / "padded.json"))
    assert refused.exit_code != 0, refused.output
    limited(published, **{key: 100_000})  # raised to add it, lowered again to commit it
    added = invoke(runner, published, "add", str(published.parent / "padded.json"))
    assert added.exit_code == 0, added.output
    settings.write_text(before)
    commit_all(published, "a value past the limits, past add")
    from kistore.core.model import Manifest

    unlimited = Limits(string_length=1 << 30, array_length=1 << 30)
    path = store_file(str(Manifest.from_document(env, limits=unlimited).digest))
    # the string's length said once, and an excerpt marked as one (it said "70,007
    # characters" of the value, then "(70,009 characters)" of its cut repr)
    what = ("a string of 70,007 characters, more than the limit of 65,536 (string-length); "
            f"its first 40 characters: 'NVIDIA {'H' * 33}'; raise [limits] string-length in "
            "kistore.toml if this size is meant"
            if case == "string" else
            "an array of 10,001 items, more than the limit of 10,000 (array-length); raise "
            "[limits] array-length in kistore.toml if this size is meant")
    for args in (["check", f"{base}..HEAD"], ["verify"], ["verify", "--at", "HEAD"]):
        result = invoke(runner, published, *args)
        assert result.exit_code == 1, (args, result.output)
        errors = [line for line in result.output.splitlines() if " error " in line]
        assert len(errors) == 1, (args, result.output)
        assert errors[0] == f"{path}:{pointer}: error KI107 value-too-long: {what}", \
            (args, errors)


def test_lowering_string_length_below_a_stored_string_fails_verify(runner, published):
    assert invoke(runner, published, "verify").exit_code == 0
    limited(published, string_length=25)  # the published titles are longer
    result = invoke(runner, published, "verify")
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if " error " in line]
    assert errors and all(" error KI107 value-too-long: a string of " in line
                          and "more than the limit of 25 (string-length)" in line
                          for line in errors), result.output
    title = (f"{store_file(PUBLISHED['environment'], 'metadata')}:/title: error KI107 "
             "value-too-long: a string of 37 characters, more than the limit of 25 "
             "(string-length): 'SOL-ExecBench NVIDIA B200, stack v1.1'; raise [limits] "
             "string-length in kistore.toml if this size is meant")
    assert title in errors, result.output


def test_values_within_the_limits_pass_check_and_verify(runner, published):
    # a string and an array at their limits (and a file long enough to be walked)
    base = git(published, "rev-parse", "HEAD").strip()
    env = json.loads(BUNDLE.read_text())["environment"]
    env["metadata"]["name"] = "at-the-limits"
    env["spec"]["hardware"]["product"] = "H" * 65_536
    env["spec"]["hardware"]["clocks"] = {"mhz": [1] * 10_000}
    (published.parent / "at.json").write_text(json.dumps(env))
    added = invoke(runner, published, "add", str(published.parent / "at.json"))
    assert added.exit_code == 0, added.output
    commit_all(published, "values at the limits")
    for args in (["check", f"{base}..HEAD"], ["verify"], ["verify", "--at", "HEAD"]):
        result = invoke(runner, published, *args)
        assert result.exit_code == 0, (args, result.output)


def test_within_value_limits_walks_only_files_long_enough_and_agrees_with_the_finding():
    from kistore.check._rules import check_value_limits
    from kistore.core import canonical
    from kistore.core.limits import within_value_limits

    limits = Limits(string_length=8, array_length=3)
    short = canonical.dumps({"a": "x" * 8})  # 14 bytes: could hold a 9-character string
    assert within_value_limits(short, limits)
    assert check_value_limits("f.json", json.loads(short), len(short), limits) == []
    long = canonical.dumps({"a": ["x" * 9, [1, 2, 3, 4]]})
    assert not within_value_limits(long, limits)
    found = check_value_limits("f.json", json.loads(long), len(long), limits)
    assert [(f.rule.id, f.file, f.pointer) for f in found] == [
        ("KI107", "f.json", "/a/0"), ("KI107", "f.json", "/a/1")]
    assert found[0].message.startswith("a string of 9 characters, more than the limit of 8 "
                                       "(string-length): 'xxxxxxxxx'; raise [limits] "
                                       "string-length in kistore.toml")
    assert found[1].message.startswith("an array of 4 items, more than the limit of 3 "
                                       "(array-length); raise [limits] array-length")
    tiny = canonical.dumps(["x" * 9])  # 13 bytes, more than 8: walked
    assert not within_value_limits(tiny, limits)
    few = canonical.dumps([1, 2])  # 5 bytes: not walked at all
    assert within_value_limits(few, limits)


def test_a_symlinked_kistore_toml_is_refused_by_name_not_read_as_the_defaults(
        runner, published):
    """A symlink in kistore.toml's place (to a file inside the repository) was read as no
    file: the defaults applied in silence, 1 MiB where the store said 700 bytes. kistore
    never follows it (git commits the path a link holds, not the settings): the work tree's
    and a commit's are refused, naming the file and what to do."""
    from kistore.cite.citation import read_cite_settings

    limited(published, manifest_bytes=700)
    settings = published / "kistore.toml"
    (published / "settings.toml").write_bytes(settings.read_bytes())
    settings.unlink()
    settings.symlink_to("settings.toml")
    said = (f"error: {settings}: a symlink, not a regular file: kistore reads its settings "
            "only from a regular file (it never follows a symlink: git commits the path a "
            "link holds, not the settings) and will not use the defaults in their place; "
            "replace the link with the file (`cp --remove-destination \"$(readlink "
            "kistore.toml)\" kistore.toml`) and commit that\n")
    for args in (["verify"], ["add", str(BUNDLE)]):  # (a query takes the defaults, as for
        result = invoke(runner, published, *args)    # a bad file: manifest_limit)
        assert (result.exit_code, result.stderr) == (1, said), args
    with pytest.raises(InputError, match="a symlink, not a regular file") as raised:
        read_cite_settings(Store(published))
    assert raised.value.file == str(settings)
    commit_all(published, "kistore.toml as a symlink")
    said_at = ("error: kistore.toml: a symlink in the commit HEAD, not a regular file: "
               "kistore reads its settings only from a regular file (it never follows a "
               "symlink: git commits the path a link holds, not the settings) and will not "
               "use the defaults in their place; commit the file itself in its place\n")
    with pytest.raises(InputError) as raised:
        Store(published).limits("HEAD")  # what `--at HEAD` reads (`check`'s BASE, `cite`)
    assert (raised.value.file, f"error: {raised.value}\n") == ("kistore.toml", said_at)
    with pytest.raises(InputError, match="a symlink in the commit HEAD"):
        read_cite_settings(Store(published), "HEAD")
    bare = published.parent / "bare.git"  # no work tree: verify reads HEAD's settings
    git(published.parent, "clone", "-q", "--bare", str(published), str(bare))
    result = invoke(runner, bare, "verify")
    assert (result.exit_code, result.stderr) == (1, said_at)
    settings.unlink()  # the file itself in its place: read, its limit applies again
    settings.write_bytes((published / "settings.toml").read_bytes())
    assert Store(published).limits().manifest_bytes == 700
    assert Store(published).limits("HEAD~1") == DEFAULT  # before the link: no limit set


def test_a_kistore_toml_that_is_a_directory_or_fifo_is_refused_by_name(store_path):
    settings = store_path / "kistore.toml"
    settings.unlink()
    os.mkfifo(settings)
    with pytest.raises(InputError, match=": a FIFO, socket or device, not a regular file"):
        Store(store_path).limits()
    settings.unlink()
    settings.mkdir()
    (settings / "x").write_text("")
    with pytest.raises(InputError, match=": a directory, not a regular file") as raised:
        Store(store_path).limits()
    assert raised.value.file == str(settings)
    assert "put a regular kistore.toml in its place" in str(raised.value)
    (settings / "x").unlink()  # an empty directory is no file either (review 2026-12-02 F9)
    with pytest.raises(InputError, match=": a directory, not a regular file"):
        Store(store_path).limits()
    settings.rmdir()  # absent: the defaults
    assert Store(store_path).limits() == DEFAULT


def test_add_commit_parses_kistore_toml_once(runner, store_path, monkeypatch):
    # the version check, the limits add reads its input under, and --commit's check of
    # HEAD's committed limits ask for the settings five times: one parse (Store.settings)
    import tomllib

    parses = []
    original = tomllib.loads

    def counted(text, **kw):
        parses.append(text)
        return original(text, **kw)

    monkeypatch.setattr(tomllib, "loads", counted)
    result = invoke(runner, store_path, "add", "--commit", "--allow-dangling", str(BUNDLE))
    assert result.exit_code == 0, result.output
    assert parses == [(store_path / "kistore.toml").read_text()]


@pytest.mark.parametrize(("extra", "pointer", "message"), [
    # review r70 F4: `[limit]` meant to lower a limit lowered nothing, and add said nothing
    ("[limit]\nmanifest-bytes = 100\n", "/limit", "unknown table [limit] (did you mean "
     "[limits]?): kistore reads only [store], [limits], [cite] and would ignore it"),
    ("[Limits]\nmanifest-bytes = 100\n", "/Limits", "unknown table [Limits] (did you mean "
     "[limits]?): kistore reads only [store], [limits], [cite] and would ignore it"),
    # F3: a key of [store] or [cite] kistore does not read
    ("[cite.extra]\nurl = \"u\"\n", "/cite/extra", "unknown key 'extra' in [cite]: kistore "
     "reads only permalink, publisher there and would ignore it"),
])
def test_a_table_or_key_kistore_does_not_read_makes_add_refuse_and_queries_warn(
        runner, store_path, extra, pointer, message):
    settings = store_path / "kistore.toml"
    settings.write_text(settings.read_text() + extra)
    line = settings.read_text().count("\n") - 1  # the table's header, or the key
    said = f"{settings}:{line}:1:{pointer}: {message}"
    refused = invoke(runner, store_path, "add", str(BUNDLE))
    assert (refused.exit_code, refused.stderr) == (1, f"error: {said}\n")
    assert not list((store_path / "store" / "objects" / "sha256").iterdir())
    settings.write_text(settings.read_text().removesuffix(extra))
    added = invoke(runner, store_path, "add", "--allow-dangling", str(BUNDLE))
    assert added.exit_code == 0, added.stderr
    settings.write_text(settings.read_text() + extra)
    listed = subprocess.run([*KISTORE, "--store", str(store_path), "ls"], capture_output=True,
                            text=True, check=False)
    assert listed.returncode == 0 and PUBLISHED["run"][:8] in listed.stdout
    assert listed.stderr == (
        f"warning: {said} (ignored); queries use the file's other limits until kistore.toml "
        "is fixed: correct or remove each key named (`kistore verify` reports it, KI108; "
        "`add` refuses it)\n")
