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
from kistore.core.schema import identifying_problems

from ..conftest import ManifestKit
from ..prs import Remote
from .test_history_breakage import add_file, write_manifests

NFC = unicodedata.normalize("NFC", "NVIDIA Tésla Ω")
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
    assert f"is not in Unicode NFC (identifying strings must be, or one GPU, family or " \
           f"statistic becomes two): write {NFC!r}" in pushed.output


def test_identifying_strings_of_each_kind_are_held_to_nfc(kit: ManifestKit):
    protocol = kit.protocol(family=NFD, statistic="m\u0065\u0301an")
    assert [e.pointer for e in identifying_problems(protocol)] == [
        "/spec/comparability/family", "/spec/measurement/primaryStatistic"]
    assert identifying_problems(kit.protocol(family=NFC)) == []
    assert identifying_problems(kit.environment("NVIDIA H100")) == []


WHY = ("identifying strings must be plain text, or one GPU, family or statistic becomes "
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
    ("\tmean", f"'\\tmean' holds U+0009 at character 1, a control character (Unicode "
               f"category Cc; {WHY}): write 'mean'"),
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


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_an_accepted_identifying_string_is_plain(value):
    env = {"kind": "ExecutionEnvironment", "spec": {"hardware": {"product": value}}}
    if identifying_problems(env):
        return
    assert value == unicodedata.normalize("NFKC", value)
    assert not any(unicodedata.category(c)[0] == "C" for c in value)
    assert value == value.strip()


@pytest.mark.parametrize("product", ["NVIDIA B200 ", " NVIDIA B200", "NVIDIA\x07B200",
                                     "NVIDIA\x7fB200", "NVIDIA\u200b B200"])
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
