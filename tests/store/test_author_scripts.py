"""``add`` warns of an Implementation ``author`` that mixes scripts (fresh05 LOW 7).

``Qin Liu @ U\\u0421D`` (a Cyrillic ``С`` among Latin letters) was added with no word and
printed on the leaderboard exactly as another submitter's ``Qin Liu @ UCD``, not told
apart (the site tells apart only labels equal as text). ``project`` is refused so (KI104);
``author`` is free text, so it is said, as UTS #39 §5.2 ("highly restrictive") judges a
label, and added all the same.
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main
from kistore.store.labels import mixed_label_said

LOOK_ALIKE = "Qin Liu @ U\u0421D"


def test_add_warns_of_a_cyrillic_letter_in_a_latin_author(runner, store, kit, tmp_path):
    impl = kit.implementation("p0", name="impl-h1")
    impl["spec"]["author"] = LOOK_ALIKE
    path = tmp_path / "impl.json"
    path.write_text(json.dumps(impl))
    digest = kit.digest(impl)
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert added.exit_code == 0, added.output
    assert added.stderr == (
        f"warning: {path}:/spec/author: 'Qin Liu @ U\u0421D' holds U+0421 CYRILLIC CAPITAL "
        "LETTER ES at character 12, of the Cyrillic script, after U+0051 LATIN CAPITAL "
        "LETTER Q at character 1, of the Latin script: a leaderboard shows the author as "
        "the row's label, and a letter of one script that looks like another's can make it "
        "print as another author's (Unicode TS #39 §5.2 allows one script, or Latin with "
        "Japanese, Chinese or Korean writing); if that is not meant, retype it in one "
        "script and plain letters: while this add is not committed, "
        f"`kistore drop {digest}` takes it back and you add the corrected file; once "
        "committed, add the corrected Implementation as a new object (added all the same: a "
        "name may be written so on purpose)\n")
    assert store.read(digest).spec["author"] == LOOK_ALIKE  # added all the same


@pytest.mark.parametrize("author", [
    "Qin Liu @ UCD", "Ivan Petrov", "\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432",
    "\u5c71\u7530 Taro", "\u5c71\u7530\u592a\u90ce (\u3084\u307e\u3060)", "Jos\u00e9 M\u00fcller",
    "\uae40\ubbfc\uc218 Kim",
    # fresh08 M4: U+02BB (the Hawaiian \u02bbokina) and U+00B5 are Common, with any script
    "Ka\u02bbimi Nakamura", "\u00b5Kernel Lab"])
def test_one_script_or_a_mix_uts39_allows_is_not_said(author):
    assert mixed_label_said(author) is None


@pytest.mark.parametrize(("author", "scripts"), [
    (LOOK_ALIKE, ("Cyrillic", "Latin")),
    ("\u0391da Lovelace", ("Latin", "Greek")),  # Greek capital alpha, then Latin
    ("\u0418\u0432\u0430\u043d Petrov", ("Latin", "Cyrillic"))])
def test_a_mix_is_said_with_both_scripts(author, scripts):
    said = mixed_label_said(author)
    assert said is not None
    assert f"of the {scripts[0]} script, after" in said and \
        f"of the {scripts[1]} script:" in said
