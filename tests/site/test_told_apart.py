"""A group table tells apart Implementations that would show under one label (fresh00 LOW).

KernelBench's eager and torch.compile runs are two Implementations both of project
"PyTorch": the group page showed "PyTorch" twice, the rows told apart only by the run
name in small print.
"""

from __future__ import annotations

import html

from kistore.cli import main
from kistore.site import summary

from ..conftest import EXAMPLES

BUNDLE = EXAMPLES / "kernelbench-level1-1-h100-pcie.bundle.json"


def test_kernelbench_eager_and_compile_rows_say_their_framework(runner, published, tmp_path):
    added = runner.invoke(main, ["--store", str(published), "add", "--commit", str(BUNDLE)])
    assert added.exit_code == 0, added.output
    out = tmp_path / "site"
    built = runner.invoke(main, ["--store", str(published), "site", "build", str(out)])
    assert built.exit_code == 0, built.output
    pages = [p.read_text() for p in (out / "groups").glob("*/index.html")]
    page = next(html.unescape(p) for p in pages if "PyTorch" in p)
    told = page.split('<span class="told-apart">')[1:]
    assert sorted(t.split("</span>")[0] for t in told) == [
        "torch (eager)", "torch.compile (backend inductor, mode default)"]


def test_the_first_field_that_differs_else_the_name_and_alone_nothing():
    shown = {
        "a": ("PyTorch", "impl-a", {"project": "PyTorch", "framework": "torch (eager)"}),
        "b": ("PyTorch", "impl-b", {"project": "PyTorch", "framework": "torch.compile"}),
        "c": ("Triton", "impl-c", {"project": "Triton", "revision": "1"}),
        "d": ("Ada", "impl-d", {"author": "Ada", "revision": "x"}),
        "e": ("Ada", "impl-e", {"author": "Ada", "revision": "x"}),
    }
    assert summary.told_apart(shown) == {
        "a": "torch (eager)", "b": "torch.compile", "d": "impl-d", "e": "impl-e"}
