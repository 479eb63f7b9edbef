"""Values kept by the exact bytes parsed (index/kept.py), and the run page's [cite]
settings read through them (issue 22, start-up, third pass): the same bytes parse once;
other bytes, another parser, an edited or carried file are parsed again."""

from __future__ import annotations

import os
import sys

import pytest

from kistore.cite import citation
from kistore.cite.citation import read_cite_settings
from kistore.core.errors import InputError
from kistore.index import kept
from kistore.store import Store, _settings

from ..cite.test_citation import new_store

PARSER = b"parser v1"


def kept_files(git_dir) -> list[str]:
    """Every kept file under ``git_dir/kistore/kept``."""
    top = os.path.join(git_dir, "kistore", kept.DIRECTORY)
    return sorted(os.path.join(d, f) for d, _, files in os.walk(top) for f in files)


def test_a_value_is_kept_for_those_bytes_under_that_parser(tmp_path):
    git_dir = tmp_path / ".git"
    (git_dir / "kistore").mkdir(parents=True)
    kept.keep_value(git_dir, PARSER, b"a = 1\n", '{"a": 1}')
    assert kept.kept_value(git_dir, PARSER, b"a = 1\n") == '{"a": 1}'
    assert kept.kept_value(git_dir, PARSER, b"a = 2\n") is None  # other bytes
    assert kept.kept_value(git_dir, b"parser v2", b"a = 1\n") is None  # another parser
    [path] = kept_files(git_dir)
    with open(path, encoding="utf-8") as f:
        value, seal = f.read().splitlines()
    with open(path, "w", encoding="utf-8") as f:  # the value edited, its seal left
        f.write(f'{{"a": 2}}\n{seal}\n')
    assert kept.kept_value(git_dir, PARSER, b"a = 1\n") is None
    with open(path, "w", encoding="utf-8") as f:  # half-written
        f.write(value)
    assert kept.kept_value(git_dir, PARSER, b"a = 1\n") is None
    with pytest.raises(ValueError):
        kept.keep_value(git_dir, PARSER, b"a = 1\n", "two\nlines")


def test_nothing_is_kept_without_a_derived_index(tmp_path):
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    kept.keep_value(git_dir, PARSER, b"a = 1\n", "1")
    assert not (git_dir / "kistore").exists()
    assert kept.kept_value(git_dir, PARSER, b"a = 1\n") is None


def cite_store(tmp_path, table: str):
    path = new_store(tmp_path / "store", cite_table=table)
    store = Store(path)
    (store.git_dir / "kistore").mkdir(exist_ok=True)
    return path, store


def test_cite_settings_parse_once_per_bytes(tmp_path, monkeypatch):
    path, store = cite_store(tmp_path, '\n[cite]\npublisher = "  Kernel Lab "\n')
    assert read_cite_settings(store) == {"publisher": "Kernel Lab"}
    assert len(kept_files(store.git_dir)) == 1
    with monkeypatch.context() as m:  # the same bytes, another process: no TOML parsed
        m.setattr(_settings, "parse_settings", lambda *a, **k: pytest.fail("parsed again"))
        assert read_cite_settings(Store(path)) == {"publisher": "Kernel Lab"}
    settings = path / "kistore.toml"
    settings.write_text(settings.read_text().replace("Kernel Lab", "Other Lab")
                        + 'permalink = "https://example.org/{commit}/{path}"\n')
    assert read_cite_settings(store) == {
        "publisher": "Other Lab", "permalink": "https://example.org/{commit}/{path}"}


def test_a_kept_value_edited_by_hand_is_not_believed(tmp_path):
    _, store = cite_store(tmp_path, '\n[cite]\npublisher = "Kernel Lab"\n')
    assert read_cite_settings(store) == {"publisher": "Kernel Lab"}
    [path] = kept_files(store.git_dir)
    with open(path, encoding="utf-8") as f:
        _, seal = f.read().splitlines()
    with open(path, "w", encoding="utf-8") as f:
        f.write(f'{{"publisher": "Forged"}}\n{seal}\n')
    assert read_cite_settings(store) == {"publisher": "Kernel Lab"}


def test_a_kept_value_nested_3000_deep_is_a_miss(tmp_path):
    # the kept value was read with a bare json.loads: 3,000 "[" under a valid seal (a plain
    # BLAKE2b: whoever writes .git/kistore can make one) was a RecursionError traceback
    path, store = cite_store(tmp_path, '\n[cite]\npublisher = "Kernel Lab"\n')
    data = (path / "kistore.toml").read_bytes()
    kept.keep_value(store.git_dir, citation._code_id(), data, "[" * 3000 + "]" * 3000)
    assert kept.kept_value(store.git_dir, citation._code_id(), data) == "[" * 3000 + "]" * 3000
    assert read_cite_settings(Store(path)) == {"publisher": "Kernel Lab"}


def test_bad_settings_are_refused_every_time_and_never_kept(tmp_path):
    path, store = cite_store(tmp_path, "\n[cite]\npublisher = 3\n")
    for _ in range(2):
        with pytest.raises(InputError, match="publisher must be a non-empty string"):
            read_cite_settings(store)
    (path / "kistore.toml").write_text("[cite\n")
    for _ in range(2):
        with pytest.raises(InputError, match="not valid TOML"):
            read_cite_settings(store)
    assert kept_files(store.git_dir) == []


def test_a_run_page_parses_no_toml_the_second_time(tmp_path):
    """A fresh process's second citation of the same store loads no TOML parser."""
    import subprocess

    _, store = cite_store(tmp_path, '\n[cite]\npublisher = "Kernel Lab"\n')
    code = ("import sys\n"
            "from kistore.cite.citation import read_cite_settings\n"
            "from kistore.store import Store\n"
            "print(read_cite_settings(Store(sys.argv[1])), 'tomllib' in sys.modules)\n")
    said = [subprocess.run([sys.executable, "-c", code, str(store.root)], check=True,
                           capture_output=True, text=True).stdout for _ in range(2)]
    assert said == ["{'publisher': 'Kernel Lab'} True\n", "{'publisher': 'Kernel Lab'} False\n"]
