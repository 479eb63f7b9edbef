"""KI432: a landed manifest's ``kernelindex.dev/*`` annotations stay (review r88 F1).

Each test pushes its pull requests in turn to a bare remote running ``hooks/pre-receive``,
as ``tests/check/test_history_names.py`` does for names (KI208).
"""

from __future__ import annotations

import json

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.provenance import is_provenance_key

from ..conftest import git
from ..prs import Remote
from .conftest import CAUTION, LICENSE


def edit_metadata(remote: Remote, digest: str, edit) -> None:
    """Apply ``edit`` to the run's metadata object and write it back as add writes it."""
    path = remote.clone / layout.metadata_path(Digest.from_str(digest))
    doc = json.loads(path.read_bytes())
    edit(doc)
    path.write_bytes(json.dumps(doc, separators=(",", ":"), sort_keys=True).encode())


def relicense(doc: dict) -> None:
    doc["annotations"][LICENSE] = "CC0-1.0"


def test_each_pull_request_of_a_sequence_passes_but_none_lands_a_provenance_change(
        remote, landed_import):
    digest = landed_import
    metadata = layout.metadata_path(Digest.from_str(digest))

    # PR 2: a title and a non-provenance annotation may change (KI405, info)
    def retitle(doc):
        doc["title"] = "Corrected title"
        doc["annotations"]["team"] = "b"

    titled = remote.pr("retitle", lambda c: edit_metadata(remote, digest, retitle))
    assert titled.accepted, titled.output
    assert "KI405 metadata-updated" in titled.output

    # PR 3: the licence caution replaced: refused, naming file, pointer, old and new value
    before = remote.main()
    changed = remote.pr("relicense", lambda c: edit_metadata(remote, digest, relicense))
    assert not changed.accepted
    assert (f"{metadata}:/annotations/kernelindex.dev~1license: error KI432 "
            "provenance-annotation-changed: commit ") in changed.output
    assert (f"changes the provenance annotation 'kernelindex.dev/license' of a landed "
            f"manifest's metadata ('{CAUTION}' -> 'CC0-1.0')") in changed.output
    assert "--type withdrawal" in changed.output
    assert remote.main() == before

    # PR 4 removes the caution, PR 5 adds a look-alike key: refused too
    removed = remote.pr("drop the caution",
                        lambda c: edit_metadata(remote, digest,
                                                lambda d: d["annotations"].pop(LICENSE)))
    assert not removed.accepted
    assert f"removes the provenance annotation 'kernelindex.dev/license' of a landed " \
           f"manifest's metadata ('{CAUTION}' -> (absent))" in removed.output
    added = remote.pr("a second licence", lambda c: edit_metadata(
        remote, digest, lambda d: d["annotations"].update({"Kernelindex.dev/License": "MIT"})))
    assert not added.accepted
    assert "adds the provenance annotation 'Kernelindex.dev/License' of a landed manifest's " \
           "metadata ((absent) -> 'MIT')" in added.output

    # Two commits in one pull request, the second undoing the first: each commit is read
    def there_and_back(clone):
        edit_metadata(remote, digest, relicense)
        git(clone, "commit", "-q", "--no-verify", "-am", "relicense")
        edit_metadata(remote, digest, lambda d: d["annotations"].update({LICENSE: CAUTION}))

    back = remote.pr("and back", there_and_back)
    assert not back.accepted
    assert "KI432 provenance-annotation-changed" in back.output

    # Landed past the hook anyway: verify names the commit (a warning: history stays)
    assert remote.pr("relicense", lambda c: edit_metadata(remote, digest, relicense),
                     hook=False).accepted
    moved = remote.main()
    verified = remote.kistore("verify", check=False)
    out = verified.stdout + verified.stderr
    assert (f"warning KI432 provenance-annotation-changed: commit {moved[:12]} changes the "
            "provenance annotation 'kernelindex.dev/license'") in out, out
    assert verified.returncode == 0
    # and the next pull request, which touches nothing of it, passes
    assert remote.pr("later", lambda c: None).accepted


def test_add_update_metadata_refuses_to_change_committed_provenance(remote,
                                                                     landed_import):
    # The reviewer's route: `add --update-metadata --commit` of the edited manifest. add
    # refuses it as the gate would, with or without the flag, and writes nothing.
    digest = landed_import
    obj = json.loads((remote.clone / layout.object_path(Digest.from_str(digest))).read_bytes())
    meta = json.loads((remote.clone / layout.metadata_path(Digest.from_str(digest))).read_bytes())
    relicense(meta)
    path = remote.clone.parent / "rl.json"
    path.write_text(json.dumps({**obj, "metadata": meta}))
    for flags in (["--update-metadata", "--commit"], []):
        refused = remote.kistore("add", *flags, str(path), check=False)
        assert refused.returncode == 1
        assert (f"{path}:/metadata/annotations/kernelindex.dev~1license: {digest} is committed "
                f"with the provenance annotation 'kernelindex.dev/license' '{CAUTION}', and this "
                "metadata makes it 'CC0-1.0': a landed manifest's kernelindex.dev/* annotations "
                "are its importer's record and never change (KI432; the gate refuses it)"
                ) in refused.stderr
        assert "pass --update-metadata" not in refused.stderr
        assert git(remote.clone, "status", "--porcelain") == ""
    # a title correction still goes through
    meta["annotations"][LICENSE] = CAUTION
    meta["title"] = "Corrected title"
    path.write_text(json.dumps({**obj, "metadata": meta}))
    remote.kistore("add", "--update-metadata", str(path))
    assert remote.pr("retitle", lambda c: None).accepted


@pytest.mark.parametrize(("key", "reserved"), [
    ("kernelindex.dev/license", True), ("Kernelindex.dev/License", True),
    ("kernelindex.dev / source", True), ("ｋｅｒｎｅｌｉｎｄｅｘ.dev/x", True),
    ("kernelindex/license", False), ("example.org/license", False), ("license", False),
    ("kernelindеx.dev/license", False),  # a Cyrillic е: not read as ours (as KI226)
])
def test_which_annotation_keys_are_provenance(key, reserved):
    assert is_provenance_key(key) is reserved


def test_the_pre_commit_hook_names_the_staged_file_not_its_own_commit(remote, landed_import):
    # fresh10 LOW 6: the hook's KI432 said "commit 1a2b3c4d5e6f changes ...", the hook's
    # throw-away commit of the index, which the user never sees
    metadata = layout.metadata_path(Digest.from_str(landed_import))
    edit_metadata(remote, landed_import, relicense)
    git(remote.clone, "add", metadata)
    staged = git(remote.clone, "commit-tree", git(remote.clone, "write-tree").strip(), "-p",
                 "HEAD", "-m", "kistore pre-commit: staged changes").strip()
    done = remote.kistore("check", "--staged", f"HEAD..{staged}", "--json", check=False)
    [found] = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI432"]
    # on BASE b61742cb: "commit {staged[:12]} changes the provenance annotation ..."
    assert found["message"] == (
        f"the staged metadata file {metadata} (the index) changes the provenance annotation "
        f"'kernelindex.dev/license' of a landed manifest's metadata ('{CAUTION}' -> "
        "'CC0-1.0'): its licence and source are its importer's record, not a pull request's "
        "to edit")
    assert f"(`git checkout HEAD -- {metadata}` restores the file)" in found["hint"]
    # a commit of a branch is still named as one (the gate of a pull request)
    git(remote.clone, "commit", "-q", "--no-verify", "-m", "relicense")
    done = remote.kistore("check", "HEAD~..HEAD", "--json", check=False)
    [found] = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI432"]
    head = git(remote.clone, "rev-parse", "HEAD").strip()
    assert found["message"].startswith(f"commit {head[:12]} changes the provenance annotation")
