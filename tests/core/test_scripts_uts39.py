"""Scripts by Unicode's Script_Extensions, as UTS #39 §5.1-5.2 reads them (fresh08 M4).

A character's script was the first word of its Unicode name: U+02BB MODIFIER LETTER TURNED
COMMA, the Hawaiian ʻokina, was of the "Modifier script", so ``add`` refused the provider
``Hawaiʻi Compute`` (KI104) and the gate warned of the author ``Kaʻimi Nakamura`` (KI251);
U+00B5 MICRO SIGN was the "Micro script", U+210C the "Black script". Unicode gives U+02BB,
U+00B5 and U+210C the script Common, which goes with every script.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import fontTools
import fontTools.unicodedata.ScriptExtensions as scx_data
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.cli import main
from kistore.core._plain_text import mixed_script, script_extensions, styled_letter
from kistore.core.text_fields import identifying_problems
from kistore.store.labels import mixed_label_said

ROOT = Path(__file__).resolve().parents[2]


def problem(provider: str) -> str | None:
    """The finding of an environment whose ``spec.provider`` is ``provider``, or None."""
    env = {"kind": "ExecutionEnvironment", "spec": {"provider": provider}}
    errors = identifying_problems(env)
    assert len(errors) <= 1
    return errors[0].message if errors else None


@pytest.mark.parametrize("value", [
    "Hawai\u02bbi Compute",  # the ʻokina, U+02BB: Common
    "\u3055\u304f\u3089\u30a4\u30f3\u30bf\u30fc\u30cd\u30c3\u30c8",  # U+30FC: Hiragana, Katakana
    "\u4f50\u3005\u6728 Cloud",  # U+3005 IDEOGRAPHIC ITERATION MARK: Han
    "\u6771\u4eac\u30a8\u30ec\u30af\u30c8\u30ed\u30f3", "\u6469\u5c14\u7ebf\u7a0b MTT S80",
    "\ud55c\uad6d Cloud", "\u3105\u3106 \u4e2d B200",
])
def test_common_characters_and_the_east_asian_sets_pass_as_identifying_strings(value):
    assert problem(value) is None
    assert mixed_script(value) is None


def test_add_takes_a_hawaiian_provider(runner, store, kit, tmp_path):
    # on BASE d581adf8: error, "U+02BB MODIFIER LETTER TURNED COMMA ..., of the Modifier
    # script, after U+0048 LATIN CAPITAL LETTER H ..., of the Latin script", exit 1
    env = kit.environment()
    env["spec"]["provider"] = "Hawai\u02bbi Compute"
    path = tmp_path / "env.json"
    path.write_text(json.dumps(env))
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert (added.exit_code, added.stderr) == (0, ""), added.output
    assert store.read(kit.digest(env)).spec["provider"] == "Hawai\u02bbi Compute"


@pytest.mark.parametrize("author", [
    "Ka\u02bbimi Nakamura",  # Hawaiian ʻokina (U+02BB), Common
    "\u00b5Kernel Lab",  # MICRO SIGN, Common
    "Tupou \u02bbAho",  # Tongan fakauʻa, Common
    "Ng\u00e2 \u00b7 Nguy\u1ec5n",  # MIDDLE DOT, whose Script_Extensions hold Latin
])
def test_an_author_with_common_characters_is_not_said(author):
    assert mixed_script(author) is None
    assert mixed_label_said(author) is None


def test_the_scripts_said_are_unicodes_script_names():
    assert script_extensions("\u02bb") == frozenset({"Common"})
    assert script_extensions("\u00b5") == frozenset({"Common"})
    assert script_extensions("\u210c") == frozenset({"Common"})
    assert script_extensions("\u0301") == script_extensions("\u0301") >= {"Latin", "Greek"}
    assert script_extensions("\u30fc") == frozenset({"Hiragana", "Katakana"})
    assert script_extensions("\u3005") == frozenset({"Han"})
    assert script_extensions("\u0436") == frozenset({"Cyrillic"})
    assert script_extensions("\uff21") == frozenset({"Latin"})  # fullwidth A: Latin
    assert problem("Hawai\u02bbi C\u043empute") == (
        "'Hawai\u02bbi C\u043empute' holds U+043E CYRILLIC SMALL LETTER O at character 10, of "
        "the Cyrillic script, after U+0048 LATIN CAPITAL LETTER H at character 1, of the Latin "
        "script (letters of one script, or Latin with Japanese, Chinese or Korean writing: a "
        "look-alike of another script makes one GPU, name or key two that print alike): "
        "retype character 10 in the Latin script, or write the whole string in one script")
    # a character used by two scripts names both
    said = problem("\u30fc\ud55c")
    assert said is not None and said.startswith(
        "'\u30fc\ud55c' holds U+D55C HANGUL SYLLABLE HAN at character 2, of the Hangul script, "
        "after U+30FC KATAKANA-HIRAGANA PROLONGED SOUND MARK at character 1, of the Hiragana "
        "or Katakana script (")
    for value in ("Hawai\u02bbi C\u043empute", "\u00b5\u0416x"):
        assert "Modifier" not in (problem(value) or "") + (mixed_label_said(value) or "")


def test_a_latin_author_with_a_cyrillic_letter_is_said_with_unicodes_names():
    assert mixed_label_said("Ka\u02bbimi N\u0430kamura") == (
        "'Ka\u02bbimi N\u0430kamura' holds U+0430 CYRILLIC SMALL LETTER A at character 9, of "
        "the Cyrillic script, after U+004B LATIN CAPITAL LETTER K at character 1, of the Latin "
        "script: a leaderboard shows the author as the row's label, where a letter of one "
        "script that looks like another's passes for it (Unicode TS #39 §5.2 allows one "
        "script, or Latin with Japanese, Chinese or Korean writing) (KI104 refuses this in an "
        "identifying string, such as an Implementation's `project` or an environment's "
        "`provider`, as an error; an author is free text, so a warning)")


@pytest.mark.parametrize(("author", "at", "plain"), [
    ("\u210cenry", 0, "U+0048 LATIN CAPITAL LETTER H"),  # BLACK-LETTER CAPITAL H: Common
    ("\U0001d410in Liu @ UCD", 0, "U+0051 LATIN CAPITAL LETTER Q"),  # MATHEMATICAL BOLD Q
    ("Qin Liu @ \uff35CD", 10, "U+0055 LATIN CAPITAL LETTER U"),  # FULLWIDTH U: Latin
])
def test_a_styled_letter_in_an_author_is_still_said(author, at, plain):
    # one script by Script_Extensions (Common, or Latin), but printed as a styled copy of a
    # plain letter: said apart from the mix of scripts (fresh08 M4: "welcome")
    assert mixed_script(author) is None
    assert styled_letter(author) == at
    said = mixed_label_said(author)
    assert said is not None and f"a styled form of {plain} (" in said
    assert "script:" not in said.split(", a styled form")[0]


def test_micro_sign_is_no_styled_letter():
    # U+00B5's decomposition is <compat> U+03BC: a letter of its own, not a font's
    assert styled_letter("\u00b5Kernel Lab") is None


# -- properties --------------------------------------------------------------------------

LETTERS = {"Latin": "aZ\u00e9\u0131\u0101", "Cyrillic": "\u0436\u0414\u0451",
           "Greek": "\u03bb\u03a9", "Han": "\u4e2d\u6771\u3005", "Hangul": "\ud55c\uae00",
           "Arabic": "\u0639\u0631", "Devanagari": "\u0915\u0916", "Hiragana": "\u3072\u3089",
           "Katakana": "\u30ab\u30bf", "Bopomofo": "\u3105\u3106", "Thai": "\u0e01\u0e02"}
"""Letters of eleven scripts, by hand (the oracle of which script each is)."""

COMMON = st.sampled_from(" 0123456789-.,:;/()[]&@#+_'\"!?*\u02bb\u00b5\u2019\u2013\u00d7"
                         "\u00a9\u00ae\u2122\u210c\u2116\u00b0\u2022\u20ac")
"""Characters Unicode's Scripts.txt gives the script Common and no Script_Extensions."""


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(sorted(LETTERS)), st.data())
def test_one_scripts_letters_with_common_characters_never_mix(name, data):
    parts = data.draw(st.lists(st.sampled_from(LETTERS[name]) | COMMON, min_size=1,
                               max_size=12))
    value = "".join(parts)
    assert mixed_script(value) is None, value
    assert all(script_extensions(c) == {"Common"} for c in parts if c not in LETTERS[name])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(LETTERS)), st.sampled_from(sorted(LETTERS)), st.data())
def test_two_scripts_mix_unless_uts39_highly_restrictive_allows_them(one, other, data):
    allowed = one == other or any({one, other} <= kin for kin in (
        {"Latin", "Han", "Hiragana", "Katakana"}, {"Latin", "Han", "Bopomofo"},
        {"Latin", "Han", "Hangul"}))
    value = (data.draw(st.sampled_from(LETTERS[one])) + data.draw(COMMON)
             + data.draw(st.sampled_from(LETTERS[other])))
    found = mixed_script(value)
    assert (found is None) == allowed, value
    if found is not None:
        assert found == (0, 2)


def test_the_docs_state_the_unicode_version_of_the_locked_data():
    header = Path(scx_data.__file__).read_text(encoding="utf-8")
    version = re.search(r"ScriptExtensions-(\d+\.\d+)\.\d+\.txt", header)
    assert version is not None
    locked = re.search(r"^fonttools==(\S+) ", (ROOT / "constraints.txt").read_text(), re.M)
    assert locked is not None
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    if fontTools.version == locked.group(1):
        assert f"Unicode {version.group(1)} with the lock's fontTools {fontTools.version}" \
            in rules
