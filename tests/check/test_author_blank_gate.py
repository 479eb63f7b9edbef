"""The gate says every problem of a new author, and refuses a blank one (fresh13 1-3).

fresh13 MED 1: ``check BASE..HEAD`` said one KI251 per object, of its first problem. MED 2:
an author of only spaces or invisible characters was a warning ("it prints as ''"), and so
passed the gate; now KI254 refuses it in ``add``, ``check`` and pre-receive, and ``verify``
warns of one that landed before (the store's history may hold one; an object is never
edited). LOW 3: KI251 was named ``author-mixes-scripts`` for a space at either end.
"""

from __future__ import annotations

import json

from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, commit_all, git
from ..store.test_author_every_problem import _BLANK_FIX, COMBO, COMBO_LOOKS, COMBO_SAID
from .test_author_mixes_scripts_gate import KI253_FIX

_DROP = ("objects are never edited, so add the corrected {kind} as a new object and drop this "
         "one from the branch (`kistore drop DIGEST` before committing, or rewrite the branch "
         "without it)")

BLANK = "  \u200b "
BLANK_SAID = ("'  \\u200b ' prints as nothing, holding only U+0020 SPACE at characters 1, 2 and "
              "4 and U+200B ZERO WIDTH SPACE at character 3: a leaderboard shows the author as "
              "the row's label, and a blank one names no one")


def _blank_implementation(kit, name: str = "impl-blank") -> dict:
    impl = kit.implementation("p0", name=name)
    impl["spec"]["author"] = BLANK
    return impl


def _past_add(store: Store, monkeypatch, docs: list) -> None:
    """Add ``docs`` as a hand-written commit would, past ``add``'s refusal (uncommitted)."""
    with monkeypatch.context() as m:
        m.setattr("kistore.store.labels.labels_admitted", lambda _store, _manifests: [])
        add_docs(store, docs, commit=False)


def _checked(runner, published, base: str, impl: dict, code: int) -> tuple[str, list[str]]:
    """Commit the work tree, ``check BASE..HEAD``: (``impl``'s object path, the lines said)."""
    commit_all(published, "an implementation")
    said = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert said.exit_code == code, said.output
    return layout.object_path(Digest.from_str(ManifestKit.digest(impl))), said.output.splitlines()


def test_check_says_every_problem_of_a_new_author_and_kI253_beside(runner, published, kit,
                                                                   tmp_path):
    # on BASE b1992eea: one KI251 "author-mixes-scripts" of the leading space, no KI253
    base = git(published, "rev-parse", "HEAD").strip()
    impl = kit.implementation("p0", name="impl-combo")
    impl["spec"]["author"] = COMBO
    path = tmp_path / "impl.json"
    path.write_text(json.dumps(impl))
    assert runner.invoke(main, ["--store", str(published), "add", str(path)]).exit_code == 0
    obj, lines = _checked(runner, published, base, impl, 0)
    assert lines == [
        f"{obj}:/spec/author: warning KI251 author-prints-as-another: {COMBO_SAID}",
        f"{obj}:/spec/author: warning KI253 author-looks-latin: {COMBO_LOOKS}",
        "fix KI251 (1 finding): if that is not meant, write it as it prints, "
        "'\u041d\u0420\u0415': " + _DROP.format(kind="Implementation") + "; a name written so "
        "on purpose stays (a warning)",
        KI253_FIX,
        f"ok: {base}..HEAD: 0 errors, 2 warnings, 0 info"]


def test_check_refuses_a_new_blank_author_and_verify_warns_of_a_landed_one(
        runner, published, kit, monkeypatch):
    # on BASE b1992eea: `check` said a KI251 warning ("it prints as ''"), exit 0; `verify`
    # said nothing
    store = Store(published)
    base = git(published, "rev-parse", "HEAD").strip()
    impl = _blank_implementation(kit)
    _past_add(store, monkeypatch, [impl])
    obj, lines = _checked(runner, published, base, impl, 1)
    assert lines == [
        f"{obj}:/spec/author: error KI254 author-blank: {BLANK_SAID}",
        f"fix KI254 (1 finding): {_BLANK_FIX}: " + _DROP.format(kind="Implementation"),
        f"FAILED: {base}..HEAD: 1 error, 0 warnings, 0 info"]
    # landed (history may hold one from before KI254): `verify` warns, exit 0
    verified = runner.invoke(main, ["--store", str(published), "verify"])
    assert verified.exit_code == 0, verified.output
    assert [line for line in verified.output.splitlines() if "KI254" in line] == [
        f"{obj}:/spec/author: warning KI254 author-blank: {BLANK_SAID}",
        "fix KI254 (1 finding): an object is never edited: add an Implementation with the "
        "author's name (or none) as a new object and name it in new runs; this one stays, "
        "landed before KI254 refused it (a warning)"]
    # the next range, which does not add it, does not refuse it
    again = git(published, "rev-parse", "HEAD").strip()
    (published / "NOTES.md").write_text("notes\n")
    commit_all(published, "notes")
    assert [f.rule.id for f in check_range(store, f"{again}..HEAD")
            if f.rule.id.startswith("KI25")] == []


def test_pre_receive_refuses_a_blank_author(remote, kit, monkeypatch):
    # on BASE b1992eea the push was accepted with a KI251 warning
    impl = _blank_implementation(kit)
    obj = layout.object_path(Digest.from_str(kit.digest(impl)))
    pushed = remote.pr("a blank author", lambda clone: _past_add(Store(clone), monkeypatch,
                                                                 [impl]))
    assert not pushed.accepted, pushed.output
    assert f"remote: {obj}:/spec/author: error KI254 author-blank: {BLANK_SAID}" \
        in [line.rstrip() for line in pushed.output.splitlines()]


def test_check_refuses_a_new_braille_blank_author(runner, published, kit, monkeypatch):
    # fresh15 F3: on BASE 548a13da `check` said nothing of an author of U+2800, exit 0
    store = Store(published)
    base = git(published, "rev-parse", "HEAD").strip()
    impl = kit.implementation("p0", name="auth-e")
    impl["spec"]["author"] = "\u2800"
    _past_add(store, monkeypatch, [impl])
    obj, lines = _checked(runner, published, base, impl, 1)
    assert lines == [
        f"{obj}:/spec/author: error KI254 author-blank: '\u2800' prints as nothing, holding "
        "only U+2800 BRAILLE PATTERN BLANK at character 1: a leaderboard shows the author as "
        "the row's label, and a blank one names no one",
        f"fix KI254 (1 finding): {_BLANK_FIX}: " + _DROP.format(kind="Implementation"),
        f"FAILED: {base}..HEAD: 1 error, 0 warnings, 0 info"]
