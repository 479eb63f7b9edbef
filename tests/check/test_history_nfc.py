"""Issue #17, item 6: identifying strings are NFC, so one GPU never becomes two groups.

Each test pushes its pull requests in turn to a bare remote running ``hooks/pre-receive``.
"""

from __future__ import annotations

import unicodedata

import pytest

from kistore.core.schema import nfc_problems

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
    assert [e.pointer for e in nfc_problems(protocol)] == [
        "/spec/comparability/family", "/spec/measurement/primaryStatistic"]
    assert nfc_problems(kit.protocol(family=NFC)) == []
    assert nfc_problems(kit.environment("NVIDIA H100")) == []
