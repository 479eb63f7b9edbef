"""The query commands: rank, show (run page), compare, ls, reindex -- exit codes and output."""

from __future__ import annotations

import json
import subprocess

import pytest

from kistore.cli import main
from kistore.core.restore import metadata_advice
from kistore.query.policy import POLICY_FIX, default_policy_bytes

from ..conftest import BUNDLE, PUBLISHED, ROOT, add_docs, git
from .test_query_comparison import VECTOR_KEY


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


SELF_NOTE = ("note: {0} is rank 1 of its comparison group, so it was compared with itself; "
             "give B to compare it with another run (`kistore rank {0}` lists the group)")


def test_rank_json_lists_ranked_then_references(runner, group):
    result = run(runner, group.root, "rank", "BenchmarkRun/slow", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [(r["name"], r["rank"], r["value"], r["unit"]) for r in rows] == [
        ("fast", 1, 10.0, "ns"), ("slow", 2, 30.0, "ns"), ("ref", None, 100.0, "ns")]
    assert {r["comparison"] for r in rows} == {"measured"}
    assert rows[0]["evidenceLevel"] == "source-native"
    assert rows[2]["reason"] == "reference, never ranked"


def test_rank_all_shows_excluded_runs_with_reason(runner, group):
    result = run(runner, group.root, "rank", "BenchmarkRun/fast", "--all")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "2 ranked by measured latency" in lines[0]
    assert lines[-1].strip().startswith("-") and "(status incorrect)" in lines[-1]


def test_show_run_page_text(runner, group):
    result = run(runner, group.root, "show", "BenchmarkRun/slow")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "rank 2 of 2 (by measured latency, mean ascending): 30 ns" in out
    assert "3x the value of #1 fast" in out
    assert "x reference proj-ref: 3.333x" in out
    assert "evidence: source-native" in out


def test_show_run_json_fields(runner, group):
    result = run(runner, group.root, "show", "BenchmarkRun/slow", "--json")
    assert result.exit_code == 0, result.output
    page = json.loads(result.output)
    assert page["rank"] == 2 and page["groupSize"] == 2
    assert page["ratioToFirst"] == 3.0
    assert page["comparison"]["name"] == "measured"
    assert page["evidenceLevel"] == "source-native"
    assert page["comparisonKey"].startswith("sha256:")
    assert page["references"][0]["speedup"] == pytest.approx(100 / 30)
    assert page["implementation"]["project"] == "proj-slow"


def test_show_published_record_source_native(runner, store_path):
    assert run(runner, store_path, "add", "--allow-dangling", "--commit",
               str(BUNDLE)).exit_code == 0
    result = run(runner, store_path, "show", PUBLISHED["run"][7:19], "--json")
    assert result.exit_code == 0, result.output
    page = json.loads(result.stdout)  # stderr: its implementation is not in the store
    assert page["comparisonKey"] == VECTOR_KEY
    assert (page["rank"], page["groupSize"], page["value"]) == (1, 1, 0.51252)
    assert page["comparison"]["name"] == "source-native"
    assert page["externalId"] == "20464"
    measured = run(runner, store_path, "show", "BenchmarkRun/sol-submission-20464",
                   "--comparison", "measured")
    assert measured.exit_code == 0
    assert "rank 1 of 1 (by measured latency, mean ascending): 13,634,148 ns" in measured.output


def test_show_other_kinds_as_before(runner, group, kit):
    result = run(runner, group.root, "show", "Workload/workload-3")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == "kind:     Workload"


def test_show_run_without_protocol_prints_manifest_and_note(runner, store, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation()
    add_docs(store, [env, workload, impl,
                     kit.run(protocol, env, impl, workload, latency=5, name="lone")],
             allow_dangling=True)
    result = run(runner, store.root, "show", "BenchmarkRun/lone")
    assert result.exit_code == 0, result.output
    assert "note:     run lone" in result.output and "is in no comparison group" in result.output
    rank = run(runner, store.root, "rank", "BenchmarkRun/lone")
    assert rank.exit_code == 1
    assert "is in no comparison group" in rank.output


def test_compare_defaults_to_first_and_lists_differences(runner, group):
    result = run(runner, group.root, "compare", "BenchmarkRun/slow", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["b"]["name"] == "fast" and data["ratio"] == 3.0 and data["sameGroup"]
    pointers = {(d["section"], d["pointer"]) for d in data["differences"]}
    assert pointers == {("run", "/timing/latencyNs/mean"), ("run", "/implementationDigest"),
                        ("implementation", "/project")}
    text = run(runner, group.root, "compare", "BenchmarkRun/slow", "BenchmarkRun/fast")
    assert text.exit_code == 0
    assert "A / B = 3 (by measured latency" in text.output


def test_ls_and_filters(runner, group):
    result = run(runner, group.root, "ls", "--kind", "BenchmarkRun")
    assert result.exit_code == 0, result.output
    assert [line.split()[2] for line in result.output.splitlines()] == [
        "broken", "fast", "ref", "slow"]
    none = run(runner, group.root, "ls", "--hardware", "NVIDIA B200", "--json")
    assert none.exit_code == 0 and json.loads(none.stdout) == []
    bad = run(runner, group.root, "ls", "--kind", "Nope")
    assert bad.exit_code == 2 and "Invalid value for '--kind'" in bad.output


def test_rank_errors_are_one_line_exit_1(runner, group):
    result = run(runner, group.root, "rank", "Workload/workload-3")
    assert result.exit_code == 1
    assert result.output.strip() == \
        "error: Workload/workload-3 is a Workload, not a BenchmarkRun; give a run"
    missing = run(runner, group.root, "rank", "BenchmarkRun/nope")
    assert missing.exit_code == 1 and "no BenchmarkRun named 'nope'" in missing.output
    native = run(runner, group.root, "rank", "BenchmarkRun/fast", "--comparison",
                 "source-native")
    assert native.exit_code == 1 and "has no source-native metric" in native.output


def test_bad_policy_file_is_reported_with_pointer(runner, group):
    policy = group.root / "store/policy/ranking.json"
    policy.write_text('{"families": {"synthetic": {"comparison": "fastest"}}}')
    result = run(runner, group.root, "rank", "BenchmarkRun/fast")
    assert result.exit_code == 1
    assert "store/policy/ranking.json:/families/synthetic/comparison:" in result.output
    # msg94 F9: what is wrong, then what to do
    assert result.stderr == (
        "error: store/policy/ranking.json:/families/synthetic/comparison: field 'comparison': "
        'expected one of "measured", "source-native", found "fastest"; ' + POLICY_FIX + "\n")
    assert "`git checkout HEAD -- store/policy/ranking.json`" in POLICY_FIX
    policy.write_text('{"families": {},}')  # a syntax error: its place, then the same fix
    broken = run(runner, group.root, "rank", "BenchmarkRun/fast")
    assert broken.stderr == ("error: store/policy/ranking.json:1:17: expected a string object "
                             "key: remove the trailing comma before '}'; " + POLICY_FIX + "\n")


def test_an_order_for_a_measured_family_is_refused_not_silently_ignored(runner, group):
    # Review of 2026-12-01: the reviewed file said "descending", rank ranked ascending.
    policy = group.root / "store/policy/ranking.json"
    policy.write_text(json.dumps({"families": {"synthetic": {
        "comparison": "measured", "order": "descending"}}}))
    result = run(runner, group.root, "rank", "BenchmarkRun/fast")
    assert result.exit_code == 1
    assert ("store/policy/ranking.json:/families/synthetic: field 'synthetic': 'measured' "
            "ranks spec.timing.latencyNs[primaryStatistic] ascending in ns: a metric, order or "
            "unit here would be read by a reviewer and ignored by rank.") in result.output
    verified = run(runner, group.root, "verify")
    assert verified.exit_code == 1 and "KI206 policy-invalid" in verified.output


def test_store_policy_changes_the_comparison(runner, group):
    policy = group.root / "store/policy/ranking.json"
    policy.write_text(json.dumps({"families": {"synthetic": {
        "comparison": "source-native", "metric": "/timing/latencyNs/mean",
        "order": "descending", "unit": "ns"}}}))
    result = run(runner, group.root, "rank", "BenchmarkRun/fast", "--json")
    assert [r["name"] for r in json.loads(result.stdout)][:2] == ["slow", "fast"]
    assert "(KI236 policy-time-ranked-descending" in result.stderr  # a time, descending
    at_head = run(runner, group.root, "rank", "BenchmarkRun/fast", "--json", "--at", "HEAD")
    assert [r["name"] for r in json.loads(at_head.output)][:2] == ["fast", "slow"]


def test_init_writes_the_default_policy(store_path):
    from kistore.query.policy import default_policy_bytes

    assert (store_path / "store/policy/ranking.json").read_bytes() == default_policy_bytes()


def test_default_policy_is_schema_valid():
    from kistore.core.schema import check_document
    from kistore.query.policy import default_policy_bytes

    assert check_document(json.loads(default_policy_bytes()), "RankingPolicy.json") == []


def test_reindex_reports_count(runner, group):
    result = run(runner, group.root, "reindex", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["manifests"] == 3 + 2 * 4


def test_query_commands_have_examples(runner):
    for name in ("rank", "compare", "ls", "reindex", "show"):
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0 and "Example:" in result.output, name


def test_store_without_policy_file_uses_the_shipped_default(runner, store_path):
    assert run(runner, store_path, "add", "--allow-dangling", str(BUNDLE)).exit_code == 0
    (store_path / "store/policy/ranking.json").unlink()
    result = run(runner, store_path, "rank", "BenchmarkRun/sol-submission-20464", "--json")
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert (row["comparison"], row["metric"], row["value"]) == (
        "source-native", "/sourceNative/metrics/sol_score", 0.51252)
    # not silently: the reviewed policy may have been deleted (verify: KI207)
    policy_said = (
        "warning: no store/policy/ranking.json here: ranked by kistore's shipped default "
        "policy (`kistore verify` reports KI207 if the store's history had one)\n")
    # the bundle's implementation is not stored (--allow-dangling): rank says so too
    assert result.stderr.startswith(policy_said)
    assert result.stderr[len(policy_said):].startswith(
        "warning: BenchmarkRun/sol-submission-20464 (sha256:384a96d0")
    compared = run(runner, store_path, "compare", "BenchmarkRun/sol-submission-20464")
    assert compared.exit_code == 0, compared.output
    assert compared.stderr.startswith("warning: no store/policy/ranking.json here")
    # show ranks the run by the same policy: it says so too (reviewer r85 F14)
    shown = run(runner, store_path, "show", "BenchmarkRun/sol-submission-20464")
    assert shown.exit_code == 0, shown.output
    # then that its implementation is not in the store (the bundle's run names one)
    assert shown.stderr.startswith(policy_said)
    assert shown.stderr[len(policy_said):].startswith(
        "warning: BenchmarkRun/sol-submission-20464 (sha256:384a96d0")
    (store_path / "store/policy/ranking.json").write_bytes(default_policy_bytes())
    for command in ("rank", "show"):
        result = run(runner, store_path, command, "BenchmarkRun/sol-submission-20464")
        assert result.exit_code == 0, command
        assert "no store/policy/ranking.json" not in result.stderr, command


def test_rank_compare_and_show_read_the_policy_once(runner, store_path, monkeypatch):
    # each read the policy file twice or three times (warning, rank, each run of compare)
    from kistore.store._views import WorkTreeView

    assert run(runner, store_path, "add", "--allow-dangling", str(BUNDLE)).exit_code == 0
    reads: list[str] = []
    real = WorkTreeView.read

    def counted(self, path, *args, **kwargs):
        reads.append(path)
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(WorkTreeView, "read", counted)
    for command in ("rank", "compare", "show"):
        reads.clear()
        result = run(runner, store_path, command, "BenchmarkRun/sol-submission-20464")
        assert result.exit_code == 0, result.output
        assert reads.count("store/policy/ranking.json") == 1, command
    # a policy that does not parse is refused by the answer, as before: no warning first
    (store_path / "store/policy/ranking.json").write_bytes(b"{")
    refused = run(runner, store_path, "rank", "BenchmarkRun/sol-submission-20464")
    assert refused.exit_code == 1 and "store/policy/ranking.json" in refused.stderr
    assert "shipped default" not in refused.stderr


def test_this_repository_commits_the_reviewed_default_policy():
    # reviewer r85 F14: this repository's own store had no policy file, so every `rank` in
    # a fresh clone warned; `kistore init` writes the shipped default, and so does it now
    assert (ROOT / "store/policy/ranking.json").read_bytes() == default_policy_bytes()


def test_rank_warns_about_a_corrupt_work_tree_run_it_leaves_out(runner, group, kit):
    from kistore.core import layout
    from kistore.core.digest import Digest
    from kistore.store import Store

    store = Store(group.root)
    fast = store.resolve("BenchmarkRun/fast")
    path = group.root / layout.object_path(fast)
    before = run(runner, group.root, "rank", "BenchmarkRun/slow", "--json")
    assert [r["name"] for r in json.loads(before.stdout) if r["rank"]] == ["fast", "slow"]
    path.write_bytes(path.read_bytes().replace(b'"passed"', b'"failed"'))
    after = run(runner, group.root, "rank", "BenchmarkRun/slow", "--json")
    assert after.exit_code == 0
    assert [r["name"] for r in json.loads(after.stdout) if r["rank"]] == ["slow"]
    object_path = layout.object_path(fast)
    assert after.stderr.splitlines() == [
        f"warning: 1 manifest(s) in the work tree do not verify and are left out: {fast}; "
        "run `kistore verify`",
        f"warning: {object_path}: the object file is corrupt: its sha256 is "
        f"{Digest.of(path.read_bytes())!s:.19}..., not the digest in its name; restore it "
        f"with `git checkout HEAD -- {object_path}`"]


def corrupt(group, name: str, top: str = "objects") -> tuple[str, str]:
    """Change one byte of a committed run's file in place; return its digest and path."""
    from kistore.core import layout
    from kistore.core.digest import Digest
    from kistore.store import Store

    digest = Store(group.root).resolve(f"BenchmarkRun/{name}")
    rel = (layout.object_path if top == "objects" else layout.metadata_path)(digest)
    path = group.root / rel
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"passed"', b'"failed"') if top == "objects"
                     else data[:-1])
    assert Digest.of(path.read_bytes()) != Digest.of(data)
    return str(digest), rel


def test_rank_show_compare_of_a_corrupt_run_name_the_file_and_how_to_restore_it(runner,
                                                                                group):
    """A corrupt object file made `rank BenchmarkRun/fast` say "no BenchmarkRun named
    'fast'", and `rank DIGEST` "in the store but unreadable", naming no file."""
    digest, rel = corrupt(group, "fast")
    from kistore.core.digest import Digest

    found = Digest.of((group.root / rel).read_bytes())
    fix = (f"the object file is corrupt: its sha256 is {found!s:.19}..., not the digest in "
           f"its name; restore it with `git checkout HEAD -- {rel}`, and run `kistore verify` to "
           "find any other damaged file")
    for args, ref in [(("rank", "BenchmarkRun/fast"), "BenchmarkRun/fast: "),
                      (("compare", "BenchmarkRun/fast"), "BenchmarkRun/fast: "),
                      # the digest once, in the path (review 2026-12-02), as `show` says it
                      (("rank", digest[7:19]), ""), (("compare", digest[7:19]), ""),
                      (("show", "BenchmarkRun/fast"), ""), (("show", digest[7:19]), "")]:
        result = run(runner, group.root, *args)
        assert result.exit_code == 1, args
        assert result.stderr.splitlines() == [f"error: {rel}: {ref}{fix}"], args


def test_show_of_a_metadata_file_a_merge_left_unmerged_gives_advice_that_works(runner, group):
    # reviewer r85 F22: two branches retitle one run; the merge stops on its metadata file,
    # and `show` advised `git checkout -- PATH`, which git refuses on an unmerged path.
    from kistore.core import layout
    from kistore.store import Store

    digest = Store(group.root).resolve("BenchmarkRun/fast")
    rel = layout.metadata_path(digest)
    git(group.root, "checkout", "-q", "-b", "meta-a")
    for branch, title in (("meta-a", "A"), ("meta-b", "B")):
        if branch == "meta-b":
            git(group.root, "checkout", "-q", "-b", branch, "HEAD~1")
        (group.root / rel).write_text(f'{{"name":"fast","title":"{title}"}}')
        git(group.root, "commit", "-q", "--no-verify", "-am", f"title {title}")
    merged = subprocess.run(["git", "merge", "-q", "meta-a"], cwd=group.root,
                            capture_output=True, text=True)
    assert merged.returncode == 1 and f"Merge conflict in {rel}" in merged.stdout
    result = run(runner, group.root, "show", "BenchmarkRun/fast")
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.endswith(
        f"; a merge is in progress and {rel} is unmerged (both sides changed it), so `git "
        f"checkout -- {rel}` fails: take one side with `git checkout --ours {rel}` or `git "
        f"checkout --theirs {rel}`, or write the metadata wanted with `kistore add "
        "--update-metadata FILE` (FILE: the manifest holding it), then `git add "
        f"{rel}` (a file merged by hand is not canonical: KI103), and run `kistore verify` "
        "to find any other damaged file")
    git(group.root, "checkout", "--theirs", rel)  # the advice works
    git(group.root, "add", rel)
    assert run(runner, group.root, "show", "BenchmarkRun/fast").exit_code == 0


def test_rank_and_show_of_a_run_with_a_corrupt_metadata_file_name_that_file(runner, group):
    digest, rel = corrupt(group, "fast", "metadata")
    for command in ("rank", "show"):
        result = run(runner, group.root, command, "BenchmarkRun/fast")
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [
            f"error: {rel}: BenchmarkRun/fast: the metadata file does not parse (expected ',' "
            "or '}' in object: the text is cut off, complete it or close with '}'); "
            f"{metadata_advice(rel, head_sound=True)}, and run `kistore verify` to find any "
            "other damaged file"]  # HEAD holds it sound: the checkout alone (cat97)
    result = run(runner, group.root, "show", digest[7:19])
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {rel}:1:")
    assert line.endswith(f"the metadata file does not parse (expected ',' or '}}' in object: "
                         f"the text is cut off, complete it or close with '}}'); "
                         f"{metadata_advice(rel, head_sound=True)}")


def test_show_and_compare_warn_about_corrupt_runs_they_leave_out(runner, group):
    """`rank` warned about a corrupt run it left out of the group; `show` and `compare`,
    which rank the same group, left it out silently."""
    digest, rel = corrupt(group, "fast")
    for args in (("show", "BenchmarkRun/slow"), ("compare", "BenchmarkRun/slow")):
        result = run(runner, group.root, *args)
        assert result.exit_code == 0, result.output
        assert result.stderr.splitlines()[0] == (
            f"warning: 1 manifest(s) in the work tree do not verify and are left out: "
            f"{digest}; run `kistore verify`")
        assert result.stderr.splitlines()[1].startswith(
            f"warning: {rel}: the object file is corrupt: its sha256 is ")
        # compare: slow is #1 once fast is left out, so it is compared with itself
        assert len(result.stderr.splitlines()) == (3 if args[0] == "compare" else 2)


def test_show_of_a_run_whose_object_file_is_cut_short_names_the_file(runner, group):
    """A truncated object file, once out of the name catalog, made `show` say "no
    BenchmarkRun named 'fast'"."""
    from kistore.core import layout
    from kistore.store import Store

    rel = layout.object_path(Store(group.root).resolve("BenchmarkRun/fast"))
    path = group.root / rel
    data = path.read_bytes()
    path.unlink()  # a new file: the name catalog reads it again (and finds no name)
    path.write_bytes(data[:50])
    result = run(runner, group.root, "show", "BenchmarkRun/fast")
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {rel}: BenchmarkRun/fast: the object file is corrupt: ")
    assert line.endswith(f"restore it with `git checkout HEAD -- {rel}`, and run `kistore verify` "
                         "to find any other damaged file")


def missing_file_warning(digest, rel: str) -> list[str]:
    """The two stderr lines for one manifest whose object file ``rel`` was deleted."""
    return [f"warning: 1 manifest(s) in the work tree do not verify and are left out: {digest}; "
            "run `kistore verify`",
            f"warning: {rel}: the object file is missing; restore it with `git checkout HEAD -- "
            f"{rel}`"]


def test_rank_compare_show_ls_warn_about_a_run_whose_object_file_was_deleted(runner, group):
    """A committed run whose object file was deleted from the work tree was left out of
    `rank`, `compare`, `show` and `ls` with no word (a corrupt one was warned about)."""
    from kistore.core import layout
    from kistore.store import Store

    fast = Store(group.root).resolve("BenchmarkRun/fast")
    rel = layout.object_path(fast)
    (group.root / rel).unlink()
    expected = missing_file_warning(fast, rel)
    for args in (("rank", "BenchmarkRun/slow"), ("compare", "BenchmarkRun/slow"),
                 ("show", "BenchmarkRun/slow"), ("ls", "--kind", "BenchmarkRun")):
        result = run(runner, group.root, *args)
        assert result.exit_code == 0, (args, result.output)
        itself = [SELF_NOTE.format("BenchmarkRun/slow")] if args[0] == "compare" else []
        assert result.stderr.splitlines() == expected + itself, args
        assert "fast" not in result.stdout.replace("#1 slow", ""), args
    ranked = run(runner, group.root, "rank", "BenchmarkRun/slow", "--json")
    assert [r["name"] for r in json.loads(ranked.stdout) if r["rank"]] == ["slow"]
    # both files gone (as `git rm` leaves it): the same warning
    (group.root / layout.metadata_path(fast)).unlink()
    result = run(runner, group.root, "rank", "BenchmarkRun/slow")
    assert (result.exit_code, result.stderr.splitlines()) == (0, expected)
    # restored as the warning says: no warning, and the run is ranked again
    import subprocess

    subprocess.run(["git", "checkout", "--", "store"], cwd=group.root, check=True)
    result = run(runner, group.root, "rank", "BenchmarkRun/slow", "--json")
    assert (result.exit_code, result.stderr) == (0, "")
    assert [r["name"] for r in json.loads(result.stdout) if r["rank"]] == ["fast", "slow"]


def test_a_manifest_added_and_deleted_before_any_commit_is_not_warned_about(runner, group,
                                                                            kit):
    """Only committed manifests are damage when deleted: an uncommitted one is just gone."""
    from kistore.core import layout

    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj-new", name="impl-new")
    new = kit.run(protocol, env, impl, workload, latency=20, name="new")
    add_docs(group, [impl, new], commit=False)
    digest = group.resolve("BenchmarkRun/new")
    (group.root / layout.object_path(digest)).unlink()
    (group.root / layout.metadata_path(digest)).unlink()
    result = run(runner, group.root, "rank", "BenchmarkRun/slow")
    assert (result.exit_code, result.stderr) == (0, "")


def test_a_digest_prefix_of_a_deleted_object_names_the_file_and_how_to_restore_it(runner,
                                                                                  group):
    """`show`, `rank`, `compare` and `cat` of a prefix whose object file was deleted said
    "no object with digest prefix ...", as if the store never had it."""
    from kistore.core import layout
    from kistore.store import Store

    fast = str(Store(group.root).resolve("BenchmarkRun/fast"))
    rel = layout.object_path(Store(group.root).resolve(fast))
    (group.root / rel).unlink()
    # the digest once, in the path (review 2026-12-02)
    line = (f"error: {rel}: the object file is missing; restore it with `git checkout "
            f"HEAD -- {rel}`, and run `kistore verify` to find any other damaged file")
    for args in (("show", fast[7:19]), ("rank", fast[7:19]), ("cat", fast),
                 ("compare", "BenchmarkRun/slow", fast[7:19]),
                 ("compare", fast[7:19], "BenchmarkRun/slow")):
        result = run(runner, group.root, *args)
        assert (result.exit_code, result.stderr.splitlines()) == (1, [line]), args
    # a prefix nobody ever stored is still just not found
    result = run(runner, group.root, "show", "00000000")
    assert (result.exit_code, result.stderr) == (
        1, "error: no object with digest prefix 00000000\n")
    # as of a commit, the store holds it: shown, no error
    result = run(runner, group.root, "show", fast[7:19], "--at", "HEAD", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["digest"] == fast


def test_a_run_whose_protocol_file_was_deleted_names_that_file(runner, group):
    """`rank` of a run whose protocol object file was deleted said only that the run is in
    no comparison group because its protocol "is not in the store; add them"."""
    from kistore.core import layout
    from kistore.core.digest import Digest

    protocol = Digest.from_str(group.read("BenchmarkRun/slow").spec["protocolDigest"])
    rel = layout.object_path(protocol)
    (group.root / rel).unlink()
    warning = missing_file_warning(protocol, rel)
    for args in (("rank", "BenchmarkRun/slow"), ("compare", "BenchmarkRun/slow")):
        result = run(runner, group.root, *args)
        assert result.exit_code == 1, args
        assert result.stderr.splitlines()[:2] == warning, args
        assert result.stderr.splitlines()[2].endswith(
            f"is in no comparison group: its protocol {protocol} is left out: its file in the "
            "work tree does not verify or was deleted (named above)"), args
    result = run(runner, group.root, "show", "BenchmarkRun/slow")
    assert (result.exit_code, result.stderr.splitlines()) == (0, warning)
    assert "note:     run slow" in result.stdout


@pytest.mark.parametrize("how", ["not canonical", "not valid"])
def test_rank_leaves_out_a_hand_placed_run_verify_refuses_and_says_why(runner, group, how):
    # A new-user attack: a copy of a run with a better score, written by hand under the
    # sha256 of its own bytes, ranked first with no warning though `verify` refuses it:
    # bytes not in canonical form (KI103; its "digest" is not the manifest's), or a spec
    # its schema refuses (KI104).
    from kistore.core import canonical, layout
    from kistore.core.digest import Digest
    from kistore.store import Store

    fast = Store(group.root).resolve("BenchmarkRun/fast")
    document = json.loads((group.root / layout.object_path(fast)).read_bytes())
    if how == "not canonical":
        data = json.dumps(document, indent=1).encode()
        problem = "is not in canonical form (RFC 8785; `kistore verify`: KI103)"
    else:
        document["spec"]["evil"] = 1
        data = canonical.dumps(document)
        problem = "does not match its schema ("
    digest = Digest.of(data)
    (group.root / layout.object_path(digest)).parent.mkdir(parents=True, exist_ok=True)
    (group.root / layout.object_path(digest)).write_bytes(data)
    (group.root / layout.metadata_path(digest)).parent.mkdir(parents=True, exist_ok=True)
    (group.root / layout.metadata_path(digest)).write_bytes(canonical.dumps({"name": "evil"}))
    result = run(runner, group.root, "rank", "BenchmarkRun/slow", "--json")
    assert result.exit_code == 0, result.output
    assert "evil" not in [r["name"] for r in json.loads(result.stdout)]
    assert f"warning: {layout.object_path(digest)}: the object file {problem}" in result.stderr


def test_a_symlink_in_place_of_an_object_file_is_not_followed(runner, group, tmp_path):
    # A new-user attack: `ln -s /dev/zero OBJECT` made `rank` read until it ran out of
    # memory; a FIFO made it hang. Only a regular file is a stored file (verify: KI111).
    from kistore.core import layout
    from kistore.store import Store

    fast = Store(group.root).resolve("BenchmarkRun/fast")
    path = group.root / layout.object_path(fast)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(path.read_bytes())  # the right bytes, but not in the store
    path.unlink()
    path.symlink_to(elsewhere)
    result = run(runner, group.root, "rank", "BenchmarkRun/slow", "--json")
    assert result.exit_code == 0, result.output
    assert [r["name"] for r in json.loads(result.stdout) if r["rank"]] == ["slow"]
    assert f"{layout.object_path(fast)}" in result.stderr


def test_verify_does_not_hang_on_a_fifo_in_place_of_an_object_file(group):
    import os
    import subprocess
    import sys

    from kistore.core import layout
    from kistore.store import Store

    fast = Store(group.root).resolve("BenchmarkRun/fast")
    path = group.root / layout.object_path(fast)
    path.unlink()
    os.mkfifo(path)
    done = subprocess.run([sys.executable, "-c", "from kistore.cli import main; main()",
                           "--store", str(group.root), "verify"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert layout.object_path(fast) in done.stdout + done.stderr


def test_ls_by_a_gpu_product_no_environment_has_names_the_products_there(runner, group):
    """`ls --hardware H100` listed nothing and said nothing (the product is matched exactly:
    `NVIDIA H100`)."""
    result = run(runner, group.root, "ls", "--hardware", "H100")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == ("note: no environment has the GPU product 'H100' (matched "
                             "exactly, as the driver names it); products here: 'NVIDIA H100'\n")
    result = run(runner, group.root, "ls", "--hardware", "NVIDIA H100")
    assert (result.exit_code, result.stderr) == (0, "") and result.stdout


def test_compare_of_the_first_run_says_it_was_compared_with_itself(runner, group):
    """It printed "A / B = 1 ... 0 differing field(s)" and nothing else."""
    result = run(runner, group.root, "compare", "BenchmarkRun/fast")
    assert result.exit_code == 0
    assert "0 differing field(s)" in result.stdout
    assert result.stderr == SELF_NOTE.format("BenchmarkRun/fast") + "\n"
    result = run(runner, group.root, "compare", "BenchmarkRun/slow")
    assert (result.exit_code, result.stderr) == (0, "")


def test_a_symlinked_object_file_is_said_to_be_a_link_not_missing(runner, group, tmp_path):
    # review 2026-12-02 F17: an object file replaced by a symlink to its own bytes was
    # "missing" (or "corrupt"): the store never reads through a link; say it is one
    from kistore.core import layout
    from kistore.store import Store

    fast = str(Store(group.root).resolve("BenchmarkRun/fast"))
    rel = layout.object_path(Store(group.root).resolve(fast))
    target = tmp_path / "object.json"
    target.write_bytes((group.root / rel).read_bytes())
    (group.root / rel).unlink()
    (group.root / rel).symlink_to(target)
    line = (f"error: {rel}: BenchmarkRun/fast: the object file is a symbolic link: the store "
            "keeps only regular files and never reads through a link (`kistore verify`: "
            f"KI111); restore it with `git checkout HEAD -- {rel}`, and run `kistore verify` to "
            "find any other damaged file")
    result = run(runner, group.root, "show", "BenchmarkRun/fast")
    assert (result.exit_code, result.stderr.splitlines()) == (1, [line])
