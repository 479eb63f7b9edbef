"""Issue #17, item 6: identifying strings are NFC, so one GPU never becomes two groups.

Each test pushes its pull requests in turn to a bare remote running ``hooks/pre-receive``.
"""

from __future__ import annotations

import hashlib
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check._rules import check_clean_pair
from kistore.core import canonical
from kistore.core.text_fields import identifying_problems

from ..conftest import ManifestKit
from ..prs import Remote
from .test_history_breakage import add_file, write_manifests

NFC = unicodedata.normalize("NFC", "NVIDIA Tésla Å")  # one script (Latin)
NFD = unicodedata.normalize("NFD", NFC)


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def test_environment_differing_only_in_normalisation_is_refused(remote, kit: ManifestKit):
    # The attack: two environments whose hardware.product differ only in NFC vs NFD were
    # stored and ranked as two comparison groups, with no warning.
    assert NFC != NFD
    assert remote.pr("an NFC product", lambda c: add_file(
        remote, [kit.environment(NFC, name="env-nfc")])).accepted
    nfd_env = kit.environment("NVIDIA H100", name="env-nfd")
    nfd_env["spec"]["hardware"]["product"] = NFD
    refused = add_file(remote, [nfd_env], check=False)
    assert refused.returncode == 1
    assert f"/spec/hardware/product: {NFD!r} is not in Unicode NFC" in refused.stderr
    assert f"write {NFC!r} (U+004E" in refused.stderr
    pushed = remote.pr("the same GPU in NFD", lambda c: write_manifests(remote, [nfd_env]))
    assert not pushed.accepted
    assert "error KI104 schema-invalid" in pushed.output
    assert f"is not in Unicode NFC (identifying strings must be, or one GPU, name or key " \
           f"becomes two): write {NFC!r}" in pushed.output


def test_identifying_strings_of_each_kind_are_held_to_nfc(kit: ManifestKit):
    protocol = kit.protocol(family=NFD, statistic="m\u0065\u0301an")
    assert [e.pointer for e in identifying_problems(protocol)] == [
        "/spec/comparability/family", "/spec/measurement/primaryStatistic"]
    assert identifying_problems(kit.protocol(family=NFC)) == []
    assert identifying_problems(kit.environment("NVIDIA H100")) == []


WHY = ("identifying strings must be plain text, or one GPU, name or key becomes "
       "two that print alike")
LOOKALIKES = {  # new-user review 2026-12-02 F16: each printed exactly like "NVIDIA B200"
    "NVIDIA\u200b B200": "'NVIDIA\\u200b B200' holds U+200B ZERO WIDTH SPACE at character 7, "
                         f"an invisible format character (Unicode category Cf; {WHY}): "
                         "write 'NVIDIA B200'",
    "NVIDIA B200 ": "'NVIDIA B200 ' holds U+0020 SPACE at character 12, trailing whitespace "
                    f"({WHY}): write 'NVIDIA B200'",
    "\uff2e\uff36\uff29\uff24\uff29\uff21 B200":
        "'\uff2e\uff36\uff29\uff24\uff29\uff21 B200' holds U+FF2E FULLWIDTH LATIN CAPITAL "
        "LETTER N at character 1, a compatibility form (not in Unicode NFKC; "
        f"{WHY}): write 'NVIDIA B200'",
}


@pytest.mark.parametrize("product", list(LOOKALIKES), ids=["zwsp", "trailing", "fullwidth"])
def test_lookalike_gpu_is_refused_by_add_and_the_gate(remote, kit: ManifestKit, product):
    env = kit.environment("NVIDIA B200", name="env-look")
    env["spec"]["hardware"]["product"] = product
    refused = add_file(remote, [env], check=False)
    assert refused.returncode == 1
    assert f"docs.jsonl:1:1:/spec/hardware/product: {LOOKALIKES[product]}\n" in refused.stderr
    pushed = remote.pr("a look-alike GPU", lambda c: write_manifests(remote, [env]))
    assert not pushed.accepted
    assert f"/spec/hardware/product: error KI104 schema-invalid: {LOOKALIKES[product]}" \
        in pushed.output
    assert remote.pr("the real GPU", lambda c: add_file(
        remote, [kit.environment("NVIDIA B200", name="env-real")])).accepted


@pytest.mark.parametrize(("value", "message"), [
    ("a\x07b", "'a\\x07b' holds U+0007 at character 2, a control character (Unicode "
               f"category Cc; {WHY}): write 'ab'"),
    ("\tmean", f"'\\tmean' holds U+0009 CHARACTER TABULATION at character 1, leading "
               f"whitespace ({WHY}): write 'mean'"),
    (" mean", f"' mean' holds U+0020 SPACE at character 1, leading whitespace ({WHY}): "
              "write 'mean'"),
    ("mean\u00a0", "'mean\\xa0' holds U+00A0 NO-BREAK SPACE at character 5, trailing "
                   f"whitespace ({WHY}): write 'mean'"),
    ("\u2060", f"'\\u2060' holds U+2060 WORD JOINER at character 1, an invisible format "
               f"character (Unicode category Cf; {WHY}): write the name in visible "
               "characters"),
    ("\ufb01le", "'\ufb01le' holds U+FB01 LATIN SMALL LIGATURE FI at character 1, a "
                 f"compatibility form (not in Unicode NFKC; {WHY}): write 'file'"),
])
def test_each_kind_of_lookalike_names_its_character(kit: ManifestKit, value, message):
    protocol = kit.protocol(family="gemm", statistic=value)
    [error] = identifying_problems(protocol)
    assert (error.pointer, error.message) == ("/spec/measurement/primaryStatistic", message)


MORE_LOOKALIKES = {  # review 2026-12-02 (KI104): each still printed like "NVIDIA B200"
    "NVIDIA \u0412200": "'NVIDIA \u0412200' holds U+0412 CYRILLIC CAPITAL LETTER VE at "
                         "character 8, of the Cyrillic script, after U+004E LATIN CAPITAL "
                         "LETTER N at character 1, of the Latin script (letters of one "
                         "script, or Latin with Japanese, Chinese or Korean writing: a "
                         "look-alike of another script makes one GPU, name or key two that "
                         "print alike): retype character 8 in the Latin script, or write the "
                         "whole string in one script",
    "NVIDIA  B200": "'NVIDIA  B200' holds U+0020 SPACE at character 8, whitespace after "
                    f"whitespace (one U+0020 SPACE between words; {WHY}): write 'NVIDIA B200'",
    "NVIDIA B200\ufe0f": "'NVIDIA B200\ufe0f' holds U+FE0F VARIATION SELECTOR-16 at "
                          "character 12, an invisible character (Unicode "
                          f"Default_Ignorable_Code_Point; {WHY}): write 'NVIDIA B200'",
    "NVIDIA\u180eB200": "'NVIDIA\\u180eB200' holds U+180E MONGOLIAN VOWEL SEPARATOR at "
                         "character 7, an invisible format character (Unicode category Cf; "
                         f"{WHY}): write 'NVIDIAB200'",
    "\u115fNVIDIA B200": "'\u115fNVIDIA B200' holds U+115F HANGUL CHOSEONG FILLER at "
                         "character 1, an invisible character (Unicode "
                         f"Default_Ignorable_Code_Point; {WHY}): write 'NVIDIA B200'",
    "NVIDIA \u3164B200": "'NVIDIA \u3164B200' holds U+3164 HANGUL FILLER at character 8, an "
                         "invisible character (Unicode Default_Ignorable_Code_Point; "
                         f"{WHY}): write 'NVIDIA B200'",
    "NVIDIA B\u0662\u0660\u0660": "'NVIDIA B\u0662\u0660\u0660' holds U+0662 ARABIC-INDIC "
                                  "DIGIT TWO at character 9, of the Arabic, Thaana or "
                                  "Yezidi script, after "
                                  "U+004E LATIN CAPITAL LETTER N at character 1, of the Latin "
                                  "script (letters of one script, or Latin with Japanese, "
                                  "Chinese or Korean writing: a look-alike of another "
                                  "script makes one GPU, name or key two that print "
                                  "alike): retype character 9 in the Latin script, or write "
                                  "the whole string in one script",
}


@pytest.mark.parametrize("product", list(MORE_LOOKALIKES),
                         ids=["cyrillic", "doubled-space", "fe0f", "180e", "115f", "3164",
                              "arabic-digit"])
def test_mixed_scripts_doubled_spaces_and_invisible_characters_are_refused(kit: ManifestKit,
                                                                          product):
    env = kit.environment("NVIDIA B200", name="env-look")
    env["spec"]["hardware"]["product"] = product
    [error] = identifying_problems(env)
    assert (error.pointer, error.message) == ("/spec/hardware/product",
                                              MORE_LOOKALIKES[product])


@pytest.mark.parametrize("value", ["NVIDIA B200", "NVIDIA H100 80GB HBM3", "Größe 3",
                                   "\u65e5\u672c\u8a9e", "\u0395\u03bb\u03bb\u03ac\u03b4\u03b1 2",
                                   "p50 (median)", "\u0645\u062a\u0648\u0633\u0637 \u0661"])
def test_one_script_with_common_characters_is_accepted(value):
    # Latin, CJK (Han only), Greek, Arabic with its own digits: one script each, beside
    # spaces, ASCII digits and punctuation (Common)
    env = {"kind": "ExecutionEnvironment", "spec": {"hardware": {"product": value}}}
    assert identifying_problems(env) == []


def test_default_ignorable_ranges_are_unicodes():
    # every code point the ranges hold, against what unicodedata can say of them: each is
    # invisible (Cf, Mn, Lo fillers) or reserved (Cn); and the named examples are in
    from kistore.core._plain_text import DEFAULT_IGNORABLE, default_ignorable

    assert sum(high - low + 1 for low, high in DEFAULT_IGNORABLE) == 4174
    for c in "\u00ad\u034f\u061c\u115f\u1160\u17b4\u180b\u180e\u180f\u200b\u202e\u2065" \
             "\u3164\ufe00\ufe0f\ufeff\uffa0\U0001bca0\U000e0001\U000e0100\U000e0fff":
        assert default_ignorable(c), hex(ord(c))
    for c in "aА \u00a0\u2028\u3000\u1161\u180a\u2010\ufe10\U000e1000\u17b6":
        assert not default_ignorable(c), hex(ord(c))
    categories = {unicodedata.category(chr(p)) for low, high in DEFAULT_IGNORABLE
                  for p in range(low, high + 1)}
    assert categories <= {"Cf", "Cn", "Mn", "Lo"}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_an_accepted_identifying_string_is_plain(value):
    from kistore.core._plain_text import (
        HIGHLY_RESTRICTIVE,
        default_ignorable,
        script_extensions,
    )

    env = {"kind": "ExecutionEnvironment", "spec": {"hardware": {"product": value}}}
    if identifying_problems(env):
        return
    assert value == unicodedata.normalize("NFKC", value)
    assert not any(unicodedata.category(c)[0] == "C" or default_ignorable(c) for c in value)
    assert value == value.strip() and "  " not in value
    # each two characters share a script, or a writing UTS #39 §5.2 allows (a part of a
    # string "highly restrictive" is so too); Common and Inherited go with every script
    sets = [s for c in value if not (s := script_extensions(c)) & {"Common", "Inherited",
                                                                   "Unknown"}]
    assert all(a & b or any(a & kin and b & kin for kin in HIGHLY_RESTRICTIVE)
               for a in sets for b in sets)


@pytest.mark.parametrize("product", ["NVIDIA B200 ", " NVIDIA B200", "NVIDIA\x07B200",
                                     "NVIDIA\x7fB200", "NVIDIA\u200b B200", "NVIDIA  B200"])
def test_verify_fast_path_leaves_a_lookalike_to_the_full_checks(kit: ManifestKit, product):
    # ASCII canonical bytes can hold a refused string (an edge space, an escaped control,
    # DEL): the fast path must not call such a pair clean.
    env = kit.environment("NVIDIA B200", name="env-look")
    assert check_clean_pair(*_pair(env)) is not None
    env["spec"]["hardware"]["product"] = product
    assert check_clean_pair(*_pair(env)) is None


def _pair(doc: dict) -> tuple[str, bytes, bytes]:
    obj = {k: v for k, v in doc.items() if k != "metadata"}
    data = canonical.dumps(obj)
    return hashlib.sha256(data).hexdigest(), data, canonical.dumps(doc["metadata"])
