"""kistore.toml nested past what ``tomllib`` reads is invalid settings, never a crash.

Review r60 F24: ``foo = [[[...3000...]]]`` under ``[cite]`` crashed every command with a
RecursionError (``tomllib`` recurses once a level). :func:`kistore.store.parse_settings`
now refuses it as any other bad kistore.toml (an :class:`InputError`: KI108 in the gate,
the queries' "use the default limits" warning), at the line and column where the nesting
is deepest.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core.errors import InputError
from kistore.store import parse_settings
from kistore.store._settings import _deepest_nesting

MESSAGE = ("not valid TOML for kistore: arrays or inline tables nest {depth} levels deep, "
           "deeper than Python's TOML parser reads (a few hundred levels); flatten the value")


@pytest.mark.parametrize(("text", "depth", "line", "column"), [
    ("[cite]\nfoo = " + "[" * 3000 + "]" * 3000 + "\n", 3000, 2, 3006),
    ("a = 1\n\n[limits]\nx = " + "{ b = " * 1000 + "1" + " }" * 1000 + "\n", 1000, 4, 5999),
    ("[cite]\nfoo = " + "[" * 200_000 + "]" * 200_000 + "\n", 200_000, 2, 200_006),
    ("foo = " + "[" * 3000, 3000, 1, 3006),  # never closed: still too deep, not a syntax error
], ids=["arrays-in-cite", "inline-tables-in-limits", "200000", "unclosed"])
def test_settings_nested_past_the_parser_are_invalid_at_their_deepest_place(text, depth, line,
                                                                            column):
    with pytest.raises(InputError) as caught:
        parse_settings(text.encode(), file="kistore.toml")
    assert (caught.value.message, caught.value.file, caught.value.line, caught.value.column) \
        == (MESSAGE.format(depth=depth), "kistore.toml", line, column)
    assert str(caught.value) == f"kistore.toml:{line}:{column}: {MESSAGE.format(depth=depth)}"


def test_brackets_in_strings_and_comments_are_not_nesting():
    text = ("# [[[[[[ a comment\n[cite]\n"
            "s = \"[[[\\\"[[[\"\n"  # a basic string holding an escaped quote
            "t = '{{{'\n"
            "m = '''\n[[[[\n'''\n"  # a multi-line literal string spanning lines
            "n = \"\"\"\\\n[[[[\"\"\"\n"  # a multi-line basic string, a line-ending backslash
            "v = [ # [[[[\n  [1, [2]],\n]\n")
    assert tomllib.loads(text)["cite"]["v"] == [[1, [2]]]
    assert _deepest_nesting(text) == (3, 11, 7)  # the [ before 2, on the array's 2nd line


def test_settings_within_what_the_parser_reads_still_parse():
    deep = "[" * 300 + "]" * 300
    assert parse_settings(f"[cite]\nfoo = {deep}\n".encode(), file="kistore.toml") == {
        "cite": {"foo": json.loads(deep)}}


# -- property: the deepest place _deepest_nesting finds is the one the value was written with

SCALARS = st.integers(-5, 5) | st.text(alphabet="[]{}\"'#\\\n ab,=", max_size=6)
VALUES = st.recursive(SCALARS, lambda children: st.lists(children, max_size=3) | st.dictionaries(
    st.sampled_from(["a", "b", "c"]), children, max_size=3), max_leaves=12)


def depth_of(value: Any) -> int:
    if isinstance(value, list | dict):
        items = value.values() if isinstance(value, dict) else value
        return 1 + max((depth_of(v) for v in items), default=0)
    return 0


class Writer:
    """Writes a value as TOML, noting where the first container of depth ``deepest`` opens."""

    def __init__(self, deepest: int, draw: Any) -> None:
        self.out: list[str] = []
        self.size = 0
        self.deepest = deepest
        self.draw = draw
        self.opened: int | None = None

    def put(self, text: str) -> None:
        self.out.append(text)
        self.size += len(text)

    def value(self, value: Any, depth: int, multi_line: bool) -> None:
        if isinstance(value, list | dict):
            if depth + 1 == self.deepest and self.opened is None:
                self.opened = self.size
            if isinstance(value, dict):  # an inline table: one line
                self.put("{")
                for i, (key, item) in enumerate(value.items()):
                    self.put(("" if i == 0 else ", ") + f"{key} = ")
                    self.value(item, depth + 1, False)
                self.put("}")
                return
            self.put("[")
            for item in value:
                if multi_line:
                    self.put(self.draw(st.sampled_from(["", "\n  ", " # [{ \n"])))
                self.value(item, depth + 1, multi_line)
                self.put(",")
            self.put("]")
        elif isinstance(value, int):
            self.put(str(value))
        else:
            self.string(value, multi_line)

    def string(self, text: str, multi_line: bool) -> None:
        forms = ["basic"]
        if "'" not in text and "\n" not in text:
            forms.append("literal")
        if multi_line:
            forms.append("multi-line basic")
            if "'" not in text:
                forms.append("multi-line literal")
        form = self.draw(st.sampled_from(forms))
        escaped = json.dumps(text)[1:-1]
        self.put({"basic": f'"{escaped}"', "literal": f"'{text}'",
                  "multi-line basic": f'"""{escaped}"""',
                  "multi-line literal": f"'''\n{text}'''"}[form])


@settings(max_examples=400, deadline=None)
@given(value=VALUES, data=st.data())
def test_the_deepest_nesting_is_where_the_value_nests_deepest(value, data):
    deepest = depth_of(value)
    writer = Writer(deepest, data.draw)
    writer.put("# [[[ {{{ \" '\nfoo = ")
    writer.value(value, 0, data.draw(st.booleans()))
    writer.put("\n\n[cite]\npublisher = \"[x]\"\n")  # a table header: after, and shallow
    text = "".join(writer.out)
    assert tomllib.loads(text)["foo"] == value  # the text is the value, as TOML
    if deepest == 0:  # only the header nests: [cite]
        writer.opened = text.rindex("\n[cite]") + 1
        deepest = 1
    assert writer.opened is not None
    line = text.count("\n", 0, writer.opened) + 1
    column = writer.opened - text.rfind("\n", 0, writer.opened)
    assert _deepest_nesting(text) == (deepest, line, column), text


BOM = ("kistore.toml starts with a byte-order mark (U+FEFF); save it as UTF-8 without BOM")


def test_a_byte_order_mark_is_said_as_such(tmp_path):
    # review 2026-12-02 F17: a BOM (Windows Notepad's "UTF-8") was "Invalid statement" at 1:1
    data = b"\xef\xbb\xbf[store]\nversion = 1\n"
    with pytest.raises(InputError) as caught:
        parse_settings(data, file="kistore.toml")
    assert str(caught.value) == f"kistore.toml:1:1: {BOM}"
    assert parse_settings(data[3:], file="kistore.toml") == {"store": {"version": 1}}

    from click.testing import CliRunner

    from kistore.cli import main
    from kistore.store import Store

    store = Store.init(tmp_path / "s")
    (tmp_path / "s" / "kistore.toml").write_bytes(data)
    result = CliRunner().invoke(main, ["--store", str(tmp_path / "s"), "verify", "--json"])
    assert result.exit_code == 1, result.output
    (finding,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "KI108"]
    assert (finding["file"], finding["line"], finding["message"]) == ("kistore.toml", 1, BOM)
    assert store.root is not None
