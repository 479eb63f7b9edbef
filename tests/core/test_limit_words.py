"""One wording of "N bytes, more than the limit of M" (kistore.core.limits.past_limit).

``add`` (a manifest's canonical bytes), ``verify`` and ``check`` (KI106 on a stored file,
a lowering range's too), the query index's ``skipped`` list (a file a query leaves out) and
an input read to its limit each worded it their own way (review 2026-12-02); they now all
say it through :func:`kistore.core.limits.past_limit`.
"""

from __future__ import annotations

from kistore.core.limits import (
    Limits,
    LongValue,
    bytes_past_limit,
    check_manifest_bytes,
    check_value,
    file_too_large,
    past_limit,
    too_large,
    walk_bound,
)
from kistore.index.catalog import limit_key, too_long
from kistore.index.catalog import too_large as left_out_too_large
from kistore.store import FileTooLarge


def test_one_function_words_a_size_past_a_limit():
    assert past_limit("1,308 bytes", 700, "manifest-bytes") == (
        "1,308 bytes, more than the limit of 700 (manifest-bytes)")
    assert bytes_past_limit(1308, 700) == "1,308 bytes, more than the limit of 700 (manifest-bytes)"
    assert bytes_past_limit(None, 1 << 20, "source-bytes") == (
        "more than the limit of 1,048,576 bytes (source-bytes)")
    assert file_too_large(1308, 700) == (
        "the file holds 1,308 bytes, more than the limit of 700 (manifest-bytes)")


def test_add_verify_the_index_and_an_input_say_it_alike():
    [error] = check_manifest_bytes(b"x" * 1308, b"{}", Limits(manifest_bytes=700),
                                   file="a.json")
    assert error.message == (
        "its object in canonical form is 1,308 bytes, more than the limit of 700 "
        "(manifest-bytes); raise [limits] manifest-bytes in kistore.toml if this size is meant")
    assert FileTooLarge("store/objects/x", 700, 1308).message == file_too_large(1308, 700)
    assert FileTooLarge("store/objects/x", 700).message == (
        "the file holds more than the limit of 700 bytes (manifest-bytes)")
    assert left_out_too_large(1308, 700) == (
        "holds 1,308 bytes, more than the limit of 700 (manifest-bytes); `kistore verify` "
        "reports KI106")
    assert too_large(700, "manifest-bytes", what="line 3") == (
        "line 3 holds more than the limit of 700 bytes (manifest-bytes); nothing past it was "
        "read; raise [limits] manifest-bytes in kistore.toml if this size is meant")


def test_the_index_reads_the_limit_back_from_its_words():
    assert limit_key(left_out_too_large(1308, 700)) == "manifest-bytes"
    # a JSON Pointer holding "(" or ")" is not taken for the key
    value = LongValue("/spec/a(b)", "a string of 9 characters", 8, "string-length", "")
    assert too_long(value) == (
        "has a string of 9 characters at /spec/a(b), more than the limit of 8 "
        "(string-length); `kistore verify` reports KI107")
    assert limit_key(too_long(value)) == "string-length"
    assert limit_key("has a string at /x (nothing); `kistore verify` reports KI107") is None


def test_walk_bound_is_one_bound_with_or_without_the_limits_held():
    low, high = Limits(string_length=1000, array_length=500), Limits()
    assert walk_bound(low) == walk_bound(low, None) == 999  # 2 * 500 - 1 < 1000
    assert walk_bound(low, high) == 999
    assert walk_bound(high, low) is None  # raised: no file can newly pass
    assert walk_bound(Limits(string_length=10), Limits()) == 10


NUL = "\\x00"  # how repr writes U+0000


def test_a_long_value_is_said_once_with_an_excerpt_marked_as_one():
    # review 2026-12-02: "a string of 158 characters ... 'xxx...' (160 characters)"
    limits = Limits(string_length=100)
    value = {"spec": {"note": "abc" + "x" * 155, "k" * 101: 1, "ctl": "\x00" * 101}}
    assert [(e.pointer, e.message) for e in check_value(value, limits, file="a.json")] == [
        ("/spec", "an object key of 101 characters, more than the limit of 100 "
         f"(string-length); its first 40 characters: '{'k' * 40}'; raise [limits] "
         "string-length in kistore.toml if this size is meant"),
        ("/spec/ctl", "a string of 101 characters, more than the limit of 100 (string-length); "
         f"its first 40 characters: '{NUL * 40}'; raise [limits] string-length in "
         "kistore.toml if this size is meant"),
        ("/spec/note", "a string of 158 characters, more than the limit of 100 "
         f"(string-length); its first 40 characters: 'abc{'x' * 37}'; raise [limits] "
         "string-length in kistore.toml if this size is meant")]
    # a string short enough to quote is quoted whole, however its repr is escaped
    [short] = check_value(["\x00" * 30], Limits(string_length=20), file=None)
    assert short.message.startswith(
        f"a string of 30 characters, more than the limit of 20 (string-length): "
        f"'{NUL * 30}'; ")
