"""An object file renamed by hand (reviewer r90 F7): told to ``mv`` it back, not to drop it.

``mv`` of a committed object file to another name in its shard made ``rank``/``show`` say
"never committed: git has no copy" and advise ``kistore drop`` of the misnamed file and
adding "the corrected manifest" again; the file's bytes were the committed object's, whose
own path was then missing. ``verify``'s KI101 said only "sha256 of the file is not its name".
"""

from __future__ import annotations

import shutil
import subprocess

from click.testing import CliRunner

from kistore.check import audit
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.restore import renamed_advice
from kistore.store import Store

from ..conftest import PUBLISHED, git


def _rename(root, digest: Digest) -> tuple[str, str]:
    """``mv`` the object file of ``digest`` to a name one hex digit off; return both paths."""
    own = layout.object_path(digest)
    wrong_hex = digest.hex[:2] + ("0" if digest.hex[2] != "0" else "1") + digest.hex[3:]
    wrong = layout.object_path(Digest(wrong_hex))
    shutil.move(root / own, root / wrong)
    return own, wrong


def test_renamed_advice_names_both_paths_and_the_command():
    holds = Digest("ab" * 32)
    assert renamed_advice("store/objects/sha256/ab/00.json", holds) == (
        f"its bytes are those of sha256:{'ab' * 32}, whose own object file "
        f"store/objects/sha256/ab/{'ab' * 31}.json is missing (a file renamed by hand): rename "
        f"it back with `mv store/objects/sha256/ab/00.json store/objects/sha256/ab/{'ab' * 31}"
        ".json` (from the top of the clone)")


def test_r90_f7_a_renamed_committed_object_is_told_to_move_back(published, monkeypatch):
    store = Store(published)
    digest = Digest.from_str(PUBLISHED["run"])
    own, wrong = _rename(published, digest)
    wrong_digest = layout.digest_from_path(wrong)
    advice = renamed_advice(wrong, digest)
    # the work tree's answer for the misnamed file: mv back, not drop (it is not HEAD's)
    said = store.view(None).restore_advice(wrong, wrong_digest)
    assert said == advice and "never committed" not in said and "drop" not in said
    # verify: KI101 on the misnamed file says the same
    [ki101] = [f for f in audit.verify(store) if f.rule.id == "KI101"]
    assert (ki101.file, ki101.expected, ki101.found) == (wrong, str(wrong_digest), str(digest))
    assert ki101.message == f"sha256 of the file is not its name; {advice}"
    # show of the misnamed digest
    monkeypatch.chdir(published)
    shown = CliRunner().invoke(main, ["show", str(wrong_digest)])
    assert shown.exit_code == 1 and advice in shown.output, shown.output
    # following the advice mends the store: verify is clean again
    subprocess.run(advice.split("`")[1].split(), cwd=published, check=True)
    assert git(published, "status", "--porcelain") == ""
    assert [f for f in audit.verify(store) if f.severity == "error"] == []


def test_a_tampered_object_or_a_copy_is_not_called_renamed(published):
    store = Store(published)
    digest = Digest.from_str(PUBLISHED["run"])
    own = layout.object_path(digest)
    path = published / own
    original = path.read_bytes()
    path.write_bytes(original.replace(b"}", b" }", 1))
    said = store.view(None).restore_advice(own, digest)
    assert said == f"restore it with `git checkout HEAD -- {own}`"
    [ki101] = [f for f in audit.verify(store) if f.rule.id == "KI101"]
    assert ki101.message == "sha256 of the file is not its name"
    # a copy under a wrong name while the object is still at its own path: no mv advised,
    # its removal (r91 F5: `git checkout` of a file git never held was)
    path.write_bytes(original)
    wrong = own[:-10] + ("0" if own[-10] != "0" else "1") + own[-9:]
    (published / wrong).write_bytes(original)
    [ki101] = [f for f in audit.verify(store) if f.rule.id == "KI101"]
    assert (ki101.file, ki101.message) == (wrong, (
        f"sha256 of the file is not its name; its bytes are those of {digest}, whose own "
        f"object file {own} is there with them: a copy"))
    assert ki101.hint == (f"a copy of a stored object: remove it with `rm {wrong}` (from the "
                          "top of the clone); nothing else is to be written or removed for it")
    assert "mv" not in store.view(None).restore_advice(wrong, layout.digest_from_path(wrong))
