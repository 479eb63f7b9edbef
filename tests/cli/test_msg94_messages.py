"""A fresh user's findings on errors and messages (review msg94), each pinned as it now is."""

from __future__ import annotations

from kistore.cli import main


def run(runner, store_path, *args, input=None):
    return runner.invoke(main, ["--store", str(store_path), *args], input=input)


def test_a_jsonl_syntax_error_names_its_line_and_column(runner, store_path, tmp_path):
    # msg94 F9 (second half): found already said on main; pinned so it stays said
    bad = tmp_path / "runs.jsonl"
    bad.write_text('{"apiVersion": "kernelindex.dev/v1alpha1"}\n{"kind": 1,,}\n')
    result = run(runner, store_path, "add", str(bad))
    assert result.exit_code == 1
    assert f"error: {bad}:2:12: expected a string object key: write the key in double " \
           "quotes\n" in result.stderr
    assert "nothing was added" in result.stderr and "Traceback" not in result.output


def test_site_builds_hint_quotes_a_path_with_a_space(runner, record_store, store_path,
                                                      tmp_path):
    # msg94 F6: `kistore site serve /tmp/my site` was printed, which serves /tmp/my
    out = tmp_path / "my site"
    result = run(runner, store_path, "site", "build", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        f"open {(out / 'index.html').resolve().as_uri()} or run `kistore site serve "
        f"'{out}'`")
    assert "%20" in result.stdout  # the URI, already quoted its own way
