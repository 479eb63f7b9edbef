"""A range that raises ``[limits]`` is a warning per key (KI426); past a ceiling, KI108.

Review r78 F9: a pull request "tidying" ``kistore.toml`` to ``manifest-bytes =
1000000000`` and ``string-length = 1000000000`` passed the gate with 0 findings; the next
one added a 20 MB manifest, also with 0 findings. Objects are never deleted, so the limit
could then never come down again (KI106 on the stored file).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from kistore.check import gate
from kistore.check.audit import verify
from kistore.cli import main
from kistore.core.limits import CEILING, DEFAULT, Limits
from kistore.store import Store

from ..conftest import commit_all, findings_lines, git

REPO = Path(__file__).resolve().parents[2]
"""This repository: itself a store (its ``store/`` and ``kistore.toml``)."""


def write_limits(root: Path, table: str) -> str:
    """Make ``[limits]`` of the work tree's kistore.toml hold ``table``; commit; return HEAD."""
    (root / "kistore.toml").write_text(f"[store]\nversion = 1\n\n[limits]\n{table}")
    return commit_all(root, "tidy kistore.toml")


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def test_the_reviewers_thousandfold_raise_is_refused_as_past_the_ceiling(runner, published):
    # the exact change of the review: on main it got 0 findings
    base = head(published)
    write_limits(published, "manifest-bytes = 1000000000\nstring-length = 1000000000\n")
    result = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert result.exit_code == 1
    assert findings_lines(result.output) == [
        "kistore.toml:5:1:/limits/manifest-bytes: error KI108 settings-invalid: "
        "manifest-bytes = 1,000,000,000 is above its ceiling of 16,777,216: no public index "
        "needs more (docs/rules.md KI108); keep it at or below the ceiling",
        "kistore.toml:6:1:/limits/string-length: error KI108 settings-invalid: "
        "string-length = 1,000,000,000 is above its ceiling of 1,048,576: no public index "
        "needs more (docs/rules.md KI108); keep it at or below the ceiling",
        f"FAILED: {base}..HEAD: 2 errors, 0 warnings, 0 info"]
    # verify says the same of the store, and add refuses it (a bad key: its default applies)
    assert [(f.rule.id, f.pointer) for f in verify(Store(published))
            if f.severity == "error"] == [("KI108", "/limits/manifest-bytes"),
                                          ("KI108", "/limits/string-length")]
    assert Store(published).settings().limits_per_key()[0] == DEFAULT


def test_each_ceiling_is_the_largest_value_taken():
    for name, ceiling in zip(Limits._fields, CEILING, strict=True):
        key = name.replace("_", "-")
        limits, problems = Limits.from_toml_per_key({key: ceiling})
        assert (getattr(limits, name), problems) == (ceiling, [])
        limits, [problem] = Limits.from_toml_per_key({key: ceiling + 1})
        assert (limits, problem.pointer) == (DEFAULT, f"/limits/{key}")
        assert problem.message.startswith(f"{key} = {ceiling + 1:,} is above its ceiling of "
                                          f"{ceiling:,}")
    assert CEILING == Limits(16 << 20, 1 << 30, 1 << 20, 160_000, 16_000)


def test_raising_limits_below_the_ceiling_is_a_warning_per_key(runner, published):
    base = head(published)
    write_limits(published, "# bigger\nmanifest-bytes = 2097152\nstring-length = 1000\n"
                 "array-length = 20000\n")
    result = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert result.exit_code == 0  # a warning: a reviewed raise may be meant
    assert findings_lines(result.output) == [
        "kistore.toml:6:1:/limits/manifest-bytes: warning KI426 limit-raised: the range "
        "raises [limits] manifest-bytes from 1,048,576 to 2,097,152 (the default is "
        "1,048,576): a manifest up to the new size can land after the merge, and the limit "
        "cannot be lowered below it again",
        "kistore.toml:8:1:/limits/array-length: warning KI426 limit-raised: the range raises "
        "[limits] array-length from 10,000 to 20,000 (the default is 10,000): a manifest up "
        "to the new size can land after the merge, and the limit cannot be lowered below it "
        "again",
        f"ok: {base}..HEAD: 0 errors, 2 warnings, 0 info"]  # string-length went down: no word
    [raised, _] = gate.check_range(Store(published), f"{base}..HEAD")
    assert raised.extra == {"base": 1_048_576, "head": 2_097_152, "default": 1_048_576}


def test_removing_a_lowered_key_raises_it_to_its_default(published):
    write_limits(published, "string-length = 1000\n")
    base = head(published)
    write_limits(published, "")  # the default applies again: a raise, said
    [raised] = gate.check_range(Store(published), f"{base}..HEAD")
    assert (raised.rule.id, raised.pointer, raised.line, raised.extra) == (
        "KI426", "/limits/string-length", 4,  # not set at HEAD: the [limits] table's line
        {"base": 1000, "head": 65_536, "default": 65_536})
    # keeping, lowering, or setting a key to what applied already: nothing said
    base = head(published)
    write_limits(published, "string-length = 65536\narray-length = 5000\n")
    assert gate.check_range(Store(published), f"{base}..HEAD") == []


def test_this_repositorys_store_is_far_below_every_ceiling():
    # the ceilings bound what a public index may ever need: the real store holds files of
    # ~16 KB, a thousandth of the manifest-bytes ceiling
    sizes = [int(line.split()[3]) for line in subprocess.run(
        ["git", "ls-tree", "-r", "-l", "HEAD", "store/objects", "store/metadata"], cwd=REPO,
        check=True, capture_output=True, text=True).stdout.splitlines()]
    assert len(sizes) > 1000
    assert max(sizes) * 1000 < CEILING.manifest_bytes
    assert max(sizes) * 50 < CEILING.string_length  # no string is longer than its file
    assert Store(REPO).settings().limit_problems() == []
