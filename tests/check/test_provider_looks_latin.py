"""An environment's ``provider`` that prints as a Latin one is warned of as an author is (KI253).

conf02: KI251 and KI253 judged an Implementation's ``author`` only, while an
ExecutionEnvironment's ``provider`` (the cloud or lab, ``Lambda Labs``; `kistore show`
prints it, the importers' titles too) can pass for another's: ``НРЕ``, three Cyrillic
letters, prints as ``HPE``. A provider is an identifying string, so KI104 already refuses
its mixes of scripts and its invisible, non-NFC and styled characters (KI251's cases) as
errors; ``hardware.vendor`` is held to ASCII by its schema pattern, so neither warning can
apply there. KI253 is the rest: said by ``add`` and by ``check BASE..HEAD`` (and so by
pre-receive and ``--landed``), on ``/spec/provider``.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.text_fields import _identifying_problem
from kistore.store import Store
from kistore.store.labels import PROVIDER, label_problems, mixed_label_said

from ..conftest import commit_all, git
from .test_author_mixes_scripts_gate import KI253_FIX

HPE = "\u041d\u0420\u0415"
"""``НРЕ``: three Cyrillic capitals that print as the Latin ``HPE``."""

_SAID = (f"'{HPE}' is written wholly in the Cyrillic script, yet each of its letters looks "
         "like a Latin one, U+041D CYRILLIC CAPITAL LETTER EN at character 1 first (as 'H'): "
         "its skeleton (Unicode TS #39 §4, marks dropped) is 'HPE', that of the Latin letters "
         "it prints as, and the provider names the cloud or lab the machine came from "
         "(`kistore show` prints it), where it can pass for a Latin-named provider's")


def _environment(kit, tmp_path, provider: str, *, vendor: str = "nvidia"):
    """Write an ExecutionEnvironment of ``provider``: (its file, the manifest)."""
    env = kit.environment(name=f"env-{len(provider)}-{ord(provider[0])}")
    env["spec"]["provider"] = provider
    env["spec"]["hardware"]["vendor"] = vendor
    path = tmp_path / "env.json"
    path.write_text(json.dumps(env))
    return path, env


def _refused(runner, store, path) -> str:
    """Add ``path``, asserting it is refused (exit 1): what ``add`` prints."""
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert added.exit_code == 1, added.output
    return added.stderr


def test_add_warns_of_a_provider_wholly_in_cyrillic_that_prints_as_latin(runner, store, kit,
                                                                         tmp_path):
    # on BASE b61742cb `add` said nothing of it (stderr empty)
    path, env = _environment(kit, tmp_path, HPE)
    digest = kit.digest(env)
    added = runner.invoke(main, ["--store", str(store.root), "add", str(path)])
    assert added.exit_code == 0, added.output
    assert added.stderr == (
        f"warning: {path}:/spec/provider: {_SAID}; if it is not meant to pass for that Latin "
        "name, write it as it is known in Latin letters, or with a letter that does not look "
        f"Latin: while this add is not committed, `kistore drop {digest}` takes it back and "
        "you add the corrected file; once committed, add the corrected ExecutionEnvironment "
        "as a new object (KI253, a warning: added all the same, as a name may be written so on "
        "purpose)\n")
    assert store.read(digest).spec["provider"] == HPE  # added all the same


def test_a_new_provider_that_prints_as_latin_is_a_gate_warning(runner, published, kit,
                                                               tmp_path):
    # on BASE b61742cb `check` said nothing (0 warnings)
    base = git(published, "rev-parse", "HEAD").strip()
    path, env = _environment(kit, tmp_path, HPE)
    digest = kit.digest(env)
    added = runner.invoke(main, ["--store", str(published), "add", str(path)])
    assert added.exit_code == 0, added.output
    commit_all(published, "an environment")
    obj = layout.object_path(Digest.from_str(digest))
    said = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert said.exit_code == 0, said.output
    assert said.output.splitlines() == [
        f"{obj}:/spec/provider: warning KI253 author-looks-latin: {_SAID}",
        KI253_FIX,
        f"ok: {base}..HEAD: 0 errors, 1 warning, 0 info"]
    [finding] = [f for f in check_range(Store(published), f"{base}..HEAD")
                 if f.rule.id in ("KI251", "KI253")]
    assert (finding.severity, finding.file, finding.pointer) == ("warning", obj,
                                                                 "/spec/provider")
    verified = runner.invoke(main, ["--store", str(published), "verify", "--json"])
    assert "KI253" not in verified.output  # once let in, it is meant


@pytest.mark.parametrize("provider", [
    "Lambda Labs", "\u041c\u043e\u0441\u043a\u0432\u0430",  # Москва: в looks like no Latin letter
    "\u3055\u304f\u3089\u30a4\u30f3\u30bf\u30fc\u30cd\u30c3\u30c8",  # さくらインターネット
    "Z\u00fcrich Compute"])
def test_other_providers_are_not_said(provider):
    assert label_problems(PROVIDER, provider) == []


def test_the_cases_of_ki251_are_ki104_errors_in_a_provider(runner, store, kit, tmp_path):
    # A provider is an identifying string: a mix of scripts (KI251's first case) is refused,
    # not warned of; so are an invisible, non-NFC or styled character (the same predicates).
    path, _env = _environment(kit, tmp_path, "Lambda L\u0430bs")
    assert _refused(runner, store, path) == (
        f"error: {path}:/spec/provider: 'Lambda L\u0430bs' holds U+0430 CYRILLIC SMALL LETTER A "
        "at character 9, of the Cyrillic script, after U+004C LATIN CAPITAL LETTER L at "
        "character 1, of the Latin script (letters of one script, or Latin with Japanese, "
        "Chinese or Korean writing: a look-alike of another script makes one GPU, name or key "
        "two that print alike): retype character 9 in the Latin script, or write the whole "
        "string in one script\n")
    for value in ("Lambda\u200b Labs", "Lambda\u00a0Labs", "Lambda La\u0300bs",
                  "\uff2cambda Labs", "Lambda L\u0430bs"):
        # KI104 refuses it; KI251 is not said of a provider at all (one owner: KI104)
        assert label_problems(PROVIDER, value) == []


def test_a_vendor_not_in_ascii_is_refused_by_its_schema(runner, store, kit, tmp_path):
    # hardware.vendor: ^[a-z0-9][a-z0-9-]*$, so no letter of another script is admitted:
    # a Cyrillic vendor is refused, not warned of
    path, _env = _environment(kit, tmp_path, "Lambda Labs", vendor="\u043d\u0440\u0435")
    assert _refused(runner, store, path) == (
        f"error: {path}:/spec/hardware/vendor: field 'vendor': '\\u043d\\u0440\\u0435' "
        "(U+043D CYRILLIC SMALL LETTER EN at character 1, U+0440 CYRILLIC SMALL LETTER ER at "
        "character 2, U+0435 CYRILLIC SMALL LETTER IE at character 3) is not an identifier: "
        "lower-case ASCII letters a-z, digits 0-9 and '-', beginning with a letter or digit\n")


def test_pre_receive_warns_of_it_and_accepts_the_push(remote, kit):
    # on BASE b61742cb the hook said nothing of it
    env = kit.environment(name="env-hpe")
    env["spec"]["provider"] = HPE
    obj = layout.object_path(Digest.from_str(kit.digest(env)))

    def change(clone) -> None:
        path = clone.parent / "env.json"
        path.write_text(json.dumps(env))
        remote.kistore("add", str(path))

    pushed = remote.pr("an environment", change)
    assert pushed.accepted, pushed.output
    assert f"remote: {obj}:/spec/provider: warning KI253 author-looks-latin: {_SAID}" \
        in [line.rstrip() for line in pushed.output.splitlines()]


_ODD = ("Labe \u0430\u0410\u0421\u200b\u200c\u00a0\u3000\ufe0f\u3164\u0301\u210c\U0001d410"
        "\uff35\u24c6\u1d60\uff71\u00b5\u02bb\u5c71\u30ab\u00e9")
"""Letters and the characters KI251 says: another script, invisible, spaces, a mark, styled."""


@given(st.text(alphabet=st.sampled_from(_ODD), min_size=1, max_size=8))
def test_every_case_of_ki251_is_a_ki104_error_in_an_identifying_string(value):
    # why KI251 is not said of a provider: KI104 refuses whatever it would say
    if mixed_label_said(value) is not None:
        assert _identifying_problem(value) is not None
