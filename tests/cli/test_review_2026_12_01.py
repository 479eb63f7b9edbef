"""What a new user's review of main found (2026-12-01), each refused or escaped now.

`kistore init ""` made the current directory a store (there: /tmp); `add ''` walked every
file under the current directory; `key generate -` wrote a private key to a file named
"-"; a title holding a newline printed fake "evidence level: verified" and "rank 1" lines
at the top of `show`, and one holding OSC escapes retitled the reader's terminal.
"""

from __future__ import annotations

import pytest

from kistore.cli import main
from kistore.core.errors import MultipleErrors, one_line

from ..conftest import add_docs


@pytest.mark.parametrize("args", [
    ["init", ""],
    ["add", ""],
    ["add", "manifest.json", ""],
    ["digest", ""],
    ["import", "kernelbench", ""],
    ["--store", "", "ls"],
    ["key", "generate", ""],
], ids=lambda a: " ".join(repr(x) for x in a))
def test_an_empty_path_is_refused_and_touches_nothing(runner, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "is empty: give a path (`.` for this directory)" in result.output
    assert list(tmp_path.iterdir()) == []


def test_key_generate_refuses_dash_rather_than_write_a_file_named_dash(runner, tmp_path,
                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, ["key", "generate", "-"])
    assert result.exit_code == 2
    assert "- would be a file named '-'" in result.output
    assert list(tmp_path.iterdir()) == []


def test_one_line_escapes_newlines_controls_and_bidi_overrides():
    assert one_line("Honest Team\nrank 1 of 22") == "Honest Team\\nrank 1 of 22"
    assert one_line("\x1b]0;pwned\x07 \u202eevil") == "\\x1b]0;pwned\\x07 \\u202eevil"
    assert one_line("FlashInfer gemm: 1.2x, naïve") == "FlashInfer gemm: 1.2x, naïve"


def test_a_title_cannot_print_lines_of_its_own_on_the_run_page(runner, store, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=30, name="spoof")
    # a title may hold line feeds (prose); escapes and bidi controls add refuses (KI104,
    # review73 F8), and one_line escapes them in a store written by hand (test above)
    run["metadata"]["title"] = "Honest Team\nattestations: 3; evidence level: verified\n\x1b]0"
    with pytest.raises(MultipleErrors, match="holds U\\+001B at character 55"):
        add_docs(store, [protocol, env, workload, impl, run])
    run["metadata"]["title"] = "Honest Team\nattestations: 3; evidence level: verified\nx"
    add_docs(store, [protocol, env, workload, impl, run])
    page = runner.invoke(main, ["--store", str(store.root), "show", "BenchmarkRun/spoof"])
    assert page.exit_code == 0, page.output
    lines = page.stdout.splitlines()
    assert lines[0] == "spoof: Honest Team\\nattestations: 3; evidence level: verified\\nx"
    assert not any(line.startswith("attestations: 3") for line in lines)
