"""The gate refuses a range whose kistore.toml lowers a limit below a stored file (KI106/KI107).

Review 2026-12-02 (new user, medium): a pull request lowering ``[limits] string-length`` to
30 passed ``kistore check origin/main..HEAD`` with 0 errors, and afterwards every
``kistore verify`` failed with 12,308 KI107. Rules of a store hold over its whole history:
the gate reports on each stored file what ``verify`` reports after the merge.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kistore.check import _lowered, gate
from kistore.check._rules import NEW_FILE_TOO_LARGE, check_value_limits
from kistore.cli import main
from kistore.core.errors import InputError
from kistore.core.findings import RULES
from kistore.core.limits import Limits, check_value
from kistore.store import Store

from ..conftest import BUNDLE, PUBLISHED, commit_all, git, other_environment, store_file
from ..partial import missing, serve_runs

TITLE = store_file(PUBLISHED["environment"], "metadata")
"""The published environment's metadata file: its title is 37 characters long."""


def invoke(runner, root, *args):
    return runner.invoke(main, ["--store", str(root), *args])


def set_limits(root: Path, **limits: int) -> str:
    """Set [limits] in the work tree's kistore.toml (as `sed` would), commit; return HEAD."""
    settings = root / "kistore.toml"
    table = "".join(f"{k.replace('_', '-')} = {v}\n" for k, v in limits.items())
    assert settings.read_text().count("\n[limits]\n") == 1  # `kistore init` writes the table
    settings.write_text(settings.read_text().replace("\n[limits]\n", "\n[limits]\n" + table))
    return commit_all(root, f"limits {limits}")


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def placed(findings) -> set[tuple[str, str | None, str | None]]:
    return {(f["rule"], f["file"], f.get("pointer")) for f in findings
            if f["severity"] == "error"}


def stored_sizes(root: Path) -> dict[str, int]:
    """Bytes of every object and metadata file at HEAD, from `git ls-tree -l`."""
    sizes = {}
    for line in git(root, "ls-tree", "-r", "-l", "HEAD", "store/objects", "store/metadata"
                    ).splitlines():
        meta, path = line.split("\t")
        sizes[path] = int(meta.split()[3])
    return sizes


def longest_string(root: Path) -> int:
    """Characters of the longest string (key or value) of any stored file at HEAD."""
    def walk(value) -> int:
        if isinstance(value, str):
            return len(value)
        if isinstance(value, dict):
            return max([0, *map(len, value), *map(walk, value.values())])
        if isinstance(value, list):
            return max([0, *map(walk, value)])
        return 0
    return max(walk(json.loads((root / path).read_bytes())) for path in stored_sizes(root))


def test_lowering_string_length_below_a_stored_title_fails_the_gate_as_verify_would(
        runner, published):
    base = head(published)
    set_limits(published, string_length=25)  # the published titles are longer
    result = invoke(runner, published, "check", f"{base}..HEAD", "--json")
    assert result.exit_code == 1, result.output
    found = json.loads(result.output)["findings"]
    [title] = [f for f in found if (f["file"], f.get("pointer")) == (TITLE, "/title")]
    assert (title["rule"], title["message"]) == ("KI107", (
        "kistore.toml lowers string-length from 65,536 to 25 in this range: a string of 37 "
        "characters, more than the limit of 25 (string-length): 'SOL-ExecBench NVIDIA B200, "
        "stack v1.1'; raise [limits] string-length in kistore.toml if this size is meant"))
    assert title["extra"] == {"limit": "string-length", "was": 65536}
    # a committed file is never deleted (KI402): the fix is to keep the limit
    assert title["hint"] == RULES["KI107"].hint
    assert "keep [limits] string-length" in title["hint"] and "remove" not in title["hint"]
    # exactly what verify reports once merged, file by file and pointer by pointer; and
    # one error on the change itself, kistore.toml's lowered key
    verified = invoke(runner, published, "verify", "--json")
    assert verified.exit_code == 1, verified.output
    assert placed(found) == placed(json.loads(verified.output)["findings"]) | {
        ("KI107", "kistore.toml", "/limits/string-length")}
    assert {f["rule"] for f in found if f["severity"] == "error"} == {"KI107"}
    assert all("remove the file" not in f["hint"]
               for f in json.loads(verified.output)["findings"])


def test_the_pre_receive_gate_of_a_bare_remote_refuses_the_lowering_too(
        runner, published, tmp_path):
    # the receiving repository's own kistore.toml (HEAD: main, not lowered) is what the
    # checking limits are; the pushed commit's lowering is what verify holds files to later
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(bare))
    base = head(published)
    env = other_environment(json.loads(BUNDLE.read_text()))
    env["metadata"]["title"] = "T" * 30  # and, in the same range, a title past the new limit
    (tmp_path / "long.json").write_text(json.dumps(env))
    assert invoke(runner, published, "add", str(tmp_path / "long.json")).exit_code == 0
    [added] = [p for p in git(published, "status", "--porcelain", "-uall").split()
               if p.startswith("store/metadata/")]
    lowering = set_limits(published, string_length=25)
    git(bare, "fetch", "-q", str(published), "HEAD:refs/heads/pr")
    findings = gate.check_updates(Store(bare), [(base, lowering, "refs/heads/pr")])
    by_place = {(f.rule.id, f.file, f.pointer): f for f in findings}
    assert by_place[("KI107", TITLE, "/title")].hint == RULES["KI107"].hint
    assert by_place[("KI107", added, "/title")].hint == NEW_FILE_TOO_LARGE.format(
        key="string-length")
    assert by_place[("KI107", added, "/title")].message.startswith(
        "a string of 30 characters, more than the limit of 25 (string-length)")
    assert Store(bare).limits().string_length == 65_536  # the receiver's are not lowered


def test_lowering_manifest_bytes_below_a_stored_file_is_ki106_on_each_such_file(
        runner, published):
    sizes = stored_sizes(published)
    limit = sorted(sizes.values())[-3]  # the two largest files are past it
    past = {path for path, size in sizes.items() if size > limit}
    assert past
    base = head(published)
    set_limits(published, manifest_bytes=limit)
    result = invoke(runner, published, "check", f"{base}..HEAD", "--json")
    assert result.exit_code == 1, result.output
    found = json.loads(result.output)["findings"]
    assert {(f["rule"], f["file"]) for f in found if f["severity"] == "error"} == {
        ("KI106", path) for path in past} | {("KI106", "kistore.toml")}
    [settings] = [f for f in found if f["file"] == "kistore.toml"]
    assert settings["message"] == (
        f"kistore.toml lowers manifest-bytes from 1,048,576 to {limit:,} in this range: "
        f"{len(past)} stored file(s) hold more bytes than it, each reported (KI106)")
    assert settings["extra"] == {"limit": "manifest-bytes", "was": 1 << 20, "files": len(past)}
    for f in found:
        if f["rule"] == "KI106" and f["file"] != "kistore.toml":
            size = sizes[f["file"]]
            assert f["message"] == (
                f"kistore.toml lowers manifest-bytes from 1,048,576 to {limit:,} in this "
                f"range: the file holds {size:,} bytes, more than the limit of {limit:,} "
                "(manifest-bytes)")
            assert (f["expected"], f["found"]) == (f"at most {limit:,} bytes", f"{size:,} bytes")
            assert f["hint"] == RULES["KI106"].hint
    verified = invoke(runner, published, "verify", "--json")
    said = {f["file"]: f["message"] for f in json.loads(verified.output)["findings"]
            if f["rule"] == "KI106"}
    # verify words the rule as check does, without the range's lowering
    assert said == {path: f"the file holds {sizes[path]:,} bytes, more than the limit of "
                    f"{limit:,} (manifest-bytes)" for path in past}
    assert {f["message"] for f in found if f["rule"] == "KI106" and f["file"] in past} == {
        f"kistore.toml lowers manifest-bytes from 1,048,576 to {limit:,} in this range: {m}"
        for m in said.values()}


def test_lowering_to_limits_every_stored_file_keeps_passes(runner, published):
    base = head(published)
    set_limits(published, manifest_bytes=max(stored_sizes(published).values()),
               string_length=longest_string(published), array_length=1000)
    result = invoke(runner, published, "check", f"{base}..HEAD")
    assert result.exit_code == 0, result.output
    assert invoke(runner, published, "verify").exit_code == 0


def test_raising_a_limit_or_leaving_it_passes_without_a_walk(runner, published, monkeypatch,
                                                             tmp_path):
    def no_walk(*_args):
        raise AssertionError("the stored files were walked")

    monkeypatch.setattr(_lowered, "_stored_files", no_walk)
    base = head(published)
    set_limits(published, string_length=100_000, manifest_bytes=2 << 20)
    # no walk, no error: a warning per raised key (KI426, review r78 F9)
    assert [(f.rule.id, f.pointer) for f in gate.check_range(Store(published), f"{base}..HEAD")
            ] == [("KI426", "/limits/string-length"), ("KI426", "/limits/manifest-bytes")]
    base = head(published)  # an ordinary pull request: a manifest, limits unchanged
    path = tmp_path / "env.json"
    path.write_text(json.dumps(other_environment(json.loads(BUNDLE.read_text()))))
    assert invoke(runner, published, "add", "--commit", str(path)).exit_code == 0
    assert gate.check_range(Store(published), f"{base}..HEAD") == []


def test_lowered_compares_base_and_head_limits():
    assert _lowered.lowered(Limits(), Limits(string_length=30, source_bytes=1)) == {
        "string_length": (65_536, 30)}  # source-bytes bounds imports, not stored files
    assert _lowered.lowered(None, Limits(array_length=9)) == {"array_length": (10_000, 9)}
    assert _lowered.lowered(Limits(manifest_bytes=5), Limits(manifest_bytes=9)) == {}
    assert _lowered.lowered(Limits(), None) == {}


@pytest.fixture
def two_prs(runner, published, tmp_path) -> tuple[Path, int]:
    """PR1 (branch pr1) lowers string-length to X, what every stored string keeps; PR2
    (branch pr2, forked before PR1) adds an environment whose title is X + 10 long."""
    limit = longest_string(published)
    git(published, "checkout", "-q", "-b", "pr2")
    env = other_environment(json.loads(BUNDLE.read_text()))
    env["metadata"]["title"] = "T" * (limit + 10)
    (tmp_path / "long.json").write_text(json.dumps(env))
    assert invoke(runner, published, "add", "--commit", str(tmp_path / "long.json")
                  ).exit_code == 0
    git(published, "checkout", "-q", "main")
    git(published, "checkout", "-q", "-b", "pr1")
    set_limits(published, string_length=limit)
    git(published, "checkout", "-q", "main")
    for branch in ("pr1", "pr2"):  # each passes alone
        result = invoke(runner, published, "check", f"main..{branch}")
        assert result.exit_code == 0, (branch, result.output)
    return published, limit


def _long_title(root: Path) -> str:
    [path] = [p for p in git(root, "diff", "--name-only", "main", "pr2").split()
              if p.startswith("store/metadata/")]
    return path


def _merged_error(runner, root: Path, first: str, then: str) -> dict:
    """Merge ``first`` (fast-forward), then ``then``; return ``check`` of that merge's one
    error, a KI107 at the long title of pr2's metadata file."""
    title = _long_title(root)
    git(root, "merge", "-q", "--ff-only", first)
    base = head(root)
    git(root, "merge", "-q", "--no-edit", then)
    result = invoke(runner, root, "check", f"{base}..HEAD", "--json")
    assert result.exit_code == 1, result.output
    [finding] = [f for f in json.loads(result.output)["findings"] if f["severity"] == "error"
                 and f["file"] != "kistore.toml"]  # on a lowering, kistore.toml's key too
    assert (finding["rule"], finding["file"], finding["pointer"]) == ("KI107", title, "/title")
    return finding


def test_a_lowering_merged_first_holds_a_later_pr_past_it(runner, two_prs):
    root, limit = two_prs
    finding = _merged_error(runner, root, "pr1", "pr2")
    assert finding["message"].startswith(f"a string of {limit + 10:,} characters, more than "
                                         f"the limit of {limit:,} (string-length)")
    # a file the change adds can be left out of it
    assert finding["hint"] == NEW_FILE_TOO_LARGE.format(key="string-length")
    assert placed([finding]) == placed(json.loads(
        invoke(runner, root, "verify", "--json").output)["findings"])


def test_a_lowering_merged_after_the_pr_past_it_is_refused(runner, two_prs):
    root, limit = two_prs
    finding = _merged_error(runner, root, "pr2", "pr1")
    assert finding["message"].startswith(
        f"kistore.toml lowers string-length from 65,536 to {limit:,} in this range: a string "
        f"of {limit + 10:,} characters")
    assert finding["hint"] == RULES["KI107"].hint  # stored at BASE: keep the limit


def test_a_lowering_range_in_a_blob_less_clone_reports_what_a_full_clone_does(tmp_path,
                                                                             monkeypatch):
    # CI clones with --filter=blob:none: the sizes the walk reads are fetched in one go
    server, work, _kit, _docs, _digests = serve_runs(tmp_path, runs=4)
    sizes = sorted(stored_sizes(work).values())
    lowering = set_limits(work, string_length=12, manifest_bytes=sizes[len(sizes) // 2])
    git(work, "push", "-q", str(server), "HEAD:main")
    full = gate.check_range(Store(work), f"{lowering}~1..{lowering}")
    assert {f.rule.id for f in full} == {"KI106", "KI107"}
    clone = tmp_path / "ci.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{server}",
        str(clone))
    assert missing(clone) > 0
    fetched: list[list[str]] = []

    def fetch_blobs(repo, oids):
        fetched.append(list(oids))
        return original(repo, fetched[-1])

    original = _lowered.fetch_blobs
    monkeypatch.setattr(_lowered, "fetch_blobs", fetch_blobs)
    partial = gate.check_range(Store(clone), "main~1..main")
    [ids] = fetched  # every size the walk needs, in one fetch
    assert len(ids) == len(stored_sizes(work))  # none was here: the clone has no blobs
    assert [(f.rule.id, f.file, f.pointer, f.message) for f in partial] == [
        (f.rule.id, f.file, f.pointer, f.message) for f in full]


def test_a_first_push_is_held_to_its_own_lowered_limits(runner, published, tmp_path):
    # a first push to an empty remote is checked whole: with the kistore.toml it brings
    set_limits(published, string_length=25)
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(empty))
    findings = gate.check_updates(Store(empty), [])  # nothing pushed: nothing found
    assert findings == []
    git(empty, "fetch", "-q", str(published), "HEAD:refs/heads/topic")
    new = head(published)
    findings = gate.check_updates(Store(empty), [(gate.ZERO, new, "refs/heads/topic")])
    assert ("KI107", TITLE, "/title") in {(f.rule.id, f.file, f.pointer) for f in findings}
    verified = invoke(runner, published, "verify", "--json")
    assert {(f.rule.id, f.file, f.pointer) for f in findings if f.severity == "error"} == {
        (f["rule"], f["file"], f.get("pointer")) for f in json.loads(verified.output)["findings"]
        if f["severity"] == "error"}


def test_a_ki107_finding_names_its_limit_in_extra():
    """The setting a value passes is data (``extra.limit``), not read back from the message."""
    value = {"a": "x" * 6, "b": [1, 2, 3], "c": ["y" * 9]}
    found = check_value_limits("f.json", value, 10_000, Limits(string_length=5, array_length=2))
    assert [(f.pointer, f.extra) for f in found] == [
        ("/a", {"limit": "string-length"}), ("/b", {"limit": "array-length"}),
        ("/c/0", {"limit": "string-length"})]
    # the same words as `kistore add`'s errors (check_value), one walk of long_values
    assert [f.message for f in found] == [e.message for e in check_value(
        value, Limits(string_length=5, array_length=2), file="f.json")]
    assert found[1].message == ("an array of 3 items, more than the limit of 2 (array-length); "
                                "raise [limits] array-length in kistore.toml if this size is "
                                "meant")


@pytest.mark.parametrize(("setting", "message", "pointer"), [
    ("string-length = 0", "string-length must be a positive integer, found 0",
     "/limits/string-length"),
    ('array-length = "10k"', "array-length must be a positive integer, found '10k'",
     "/limits/array-length"),
    ("strng-length = 30", "unknown limit 'strng-length'; the limits are manifest-bytes, "
     "source-bytes, string-length, array-length, object-members", "/limits/strng-length"),
])
def test_a_range_breaking_the_settings_is_ki108_on_kistore_toml(
        runner, published, tmp_path, setting, message, pointer):
    base = head(published)
    settings = published / "kistore.toml"
    good = settings.read_text()
    settings.write_text(good.replace("\n[limits]\n", f"\n[limits]\n{setting}\n"))
    broken = commit_all(published, "break [limits]")
    with pytest.raises(InputError):  # add and import refuse the store after the merge
        Store(published).limits(at=broken)
    # CI checking from BASE's checkout (its own settings parse): the range fails, on the file
    git(published, "checkout", "-q", base)
    result = invoke(runner, published, "check", f"{base}..{broken}", "--json")
    assert result.exit_code == 1, result.output
    found = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["file"], f["pointer"], f["message"]) for f in found] == [
        ("KI108", "kistore.toml", pointer, message)]
    assert found[0]["hint"] == RULES["KI108"].hint
    # a pre-receive hook in a bare remote (the receiver's settings parse) refuses it too
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(bare))
    git(bare, "fetch", "-q", str(published), f"{broken}:refs/heads/pr")
    findings = gate.check_updates(Store(bare), [(base, broken, "refs/heads/pr")])
    assert [(f.rule.id, f.file, f.message) for f in findings if f.severity == "error"] == [
        ("KI108", "kistore.toml", message)]
    # a range mending them in a later commit: HEAD's settings are valid, but the breaking
    # commit stays in main's history (a checkout of it: add and import refuse the store),
    # so it is said of that commit (hist02, fresh03 H1); a range that never breaks them
    # says nothing of them
    git(published, "checkout", "-q", broken)
    settings.write_text(good)
    fixed = commit_all(published, "fix [limits]")
    again = gate.check_range(Store(published), f"{base}..{fixed}")
    assert [(f.rule.id, f.pointer, f.extra["commit"]) for f in again
            if f.rule.id == "KI108"] == [("KI108", pointer, f"commit {broken[:12]}")]
    assert [f for f in gate.check_range(Store(published), f"{broken}..{fixed}")
            if f.rule.id == "KI108"] == []


def test_a_range_with_one_bad_key_beside_valid_ones_is_ki108_per_bad_key(
        runner, published):
    # units60: queries now read [limits] key by key (a valid key applies beside a bad
    # one); the gate still refuses a HEAD with any bad key, and names each.
    base = head(published)
    settings = published / "kistore.toml"
    settings.write_text(settings.read_text().replace(
        "\n[limits]\n", '\n[limits]\narray-length = 10\nstring-length = 0\nsource-bytes = "1"\n'))
    broken = commit_all(published, "break [limits]")
    git(published, "checkout", "-q", base)
    result = invoke(runner, published, "check", f"{base}..{broken}", "--json")
    assert result.exit_code == 1, result.output
    found = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["file"], f["pointer"], f["message"]) for f in found] == [
        ("KI108", "kistore.toml", "/limits/string-length",
         "string-length must be a positive integer, found 0"),
        ("KI108", "kistore.toml", "/limits/source-bytes",
         "source-bytes must be a positive integer, found '1'")]  # in line order (F14)


def test_a_first_push_breaking_the_settings_is_ki108_too(published, tmp_path):
    # a first push to an empty remote is checked whole (whole_history): its settings too
    settings = published / "kistore.toml"
    settings.write_text(settings.read_text().replace("\n[limits]\n",
                                                     "\n[limits]\nstring-length = 0\n"))
    broken = commit_all(published, "break [limits]")
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(empty))
    git(empty, "fetch", "-q", str(published), "HEAD:refs/heads/topic")
    findings = gate.check_updates(Store(empty), [(gate.ZERO, broken, "refs/heads/topic")])
    assert [(f.rule.id, f.file, f.pointer, f.message) for f in findings
            if f.severity == "error"] == [
        ("KI108", "kistore.toml", "/limits/string-length",
         "string-length must be a positive integer, found 0")]


def test_a_lowering_range_annotates_the_lowered_key_of_kistore_toml(runner, published):
    # review 2026-12-02: `check --format github` annotated the object files (no line: a
    # JSON Pointer) and nothing on kistore.toml, the change to undo
    base = head(published)
    set_limits(published, string_length=25)
    lines = (published / "kistore.toml").read_text().splitlines()
    line = lines.index("string-length = 25") + 1
    result = invoke(runner, published, "check", f"{base}..HEAD", "--format", "github")
    assert result.exit_code == 1, result.output
    annotations = [a for a in result.output.splitlines() if a.startswith("::error ")
                   and "file=kistore.toml" not in a]  # one a value: a file may have several
    files = {a.split("file=")[1].split(",")[0] for a in annotations}
    [settings] = [a for a in result.output.splitlines() if "file=kistore.toml" in a]
    assert settings == (
        f"::error file=kistore.toml,line={line},col=1,title=KI107 value-too-long::"
        "/limits/string-length: KI107 value-too-long: kistore.toml lowers string-length from "
        f"65,536 to 25 in this range: {len(files)} stored file(s) hold a value past it, each "
        f"reported (KI107). Fix: {RULES['KI107'].hint}")
    assert files and all("kistore.toml lowers string-length" in a for a in annotations)


def test_a_tiny_manifest_bytes_limits_manifests_only(runner, published):
    # review 2026-12-02 F17: `manifest-bytes = 10` stopped verify at .gitattributes
    # ("error: .gitattributes: the file holds 58 bytes, more than the limit of 10") and
    # made every names file a KI212 "found b''": the limit is for manifests
    sizes = stored_sizes(published)
    set_limits(published, manifest_bytes=10)
    for args in (["verify", "--json"], ["verify", "--at", "HEAD", "--json"],
                 ["check", "HEAD~1..HEAD", "--json"]):
        result = invoke(runner, published, *args)
        assert result.exit_code == 1, (args, result.output)
        report = json.loads(result.stdout)
        assert "errors" not in report, args  # findings, not an error that stops the check
        assert placed(report["findings"]) - {("KI106", "kistore.toml", "/limits/manifest-bytes")} \
            == {("KI106", path, None) for path in sizes}, args


def test_setting_the_ceiling_in_a_store_past_it_is_a_lowering_not_a_raise(
        runner, published, tmp_path, monkeypatch):
    # Reviewer r79 F9: a store that set a limit past today's ceiling before the ceilings
    # existed (2026-12-03) holds files up to it. Setting the ceiling lowered the limit
    # below such a file, yet the gate called it a raise from the default (KI426, a
    # warning) and let it through; verify then failed on the stored file for good.
    ceiling = 1 << 20
    monkeypatch.setattr("kistore.core.limits.CEILING",
                        Limits(16 << 20, 1 << 30, 4 << 20, 160_000))  # before 2026-12-03
    set_limits(published, manifest_bytes=3 << 20, string_length=2 * ceiling)
    env = other_environment(json.loads(BUNDLE.read_text()))
    env["spec"]["hardware"]["architecture"] = "T" * (ceiling + 10)  # no maxLength there
    (tmp_path / "long.json").write_text(json.dumps(env))
    added = invoke(runner, published, "add", "--commit", str(tmp_path / "long.json"))
    assert added.exit_code == 0, added.output
    monkeypatch.undo()  # today's ceilings: 2 * 1,048,576 is past string-length's
    added_paths = git(published, "show", "--name-only", "--format=", "HEAD").split()
    objects = [p for p in added_paths if p.startswith("store/objects/")]
    assert len(objects) == 1, added_paths
    long_object = objects[0]
    base = head(published)
    settings = published / "kistore.toml"
    settings.write_text(settings.read_text().replace(f"= {2 * ceiling}", f"= {ceiling}"))
    commit_all(published, "limits: the new ceiling")
    result = invoke(runner, published, "check", f"{base}..HEAD", "--json")
    assert result.exit_code == 1, result.output
    findings = json.loads(result.output)["findings"]
    assert "KI426" not in {f["rule"] for f in findings}  # not a raise from 65,536
    errors = {f["file"]: f for f in findings if f["severity"] == "error"}
    assert set(errors) == {long_object, "kistore.toml"}  # the file, and the key lowered
    error = errors[long_object]
    assert (error["rule"], error["file"], error["pointer"]) == ("KI107", long_object,
                                                               "/spec/hardware/architecture")
    assert error["message"].startswith(
        f"kistore.toml lowers string-length from {2 * ceiling:,} to {ceiling:,} in this "
        f"range: a string of {ceiling + 10:,} characters")
