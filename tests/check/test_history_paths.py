"""Issue #17, item 7: paths and modes a checkout somewhere would turn against the store.

Each test pushes its pull requests in turn to a bare remote running ``hooks/pre-receive``.
"""

from __future__ import annotations

import json
import subprocess
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.check._paths import is_dotgit
from kistore.core.git_names import name_key, name_keys

from ..conftest import ManifestKit, git
from ..prs import Remote
from .test_history_breakage import add_file


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def test_dotgit_names_and_collision_keys():
    for name in (".git", ".GIT", ".Git.", ".git ", "git~1", "GIT~1", ".g\u200cit",
                 ".git\ufeff"):
        assert is_dotgit(name), name
    for name in (".github", "git", ".gitattributes", "x.git", ".git~1"):
        assert not is_dotgit(name), name
    nfc, nfd = "caf\u00e9.md", "cafe\u0301.md"
    assert name_key(nfc) == name_key(nfd) == name_key("CAFE\u0301.md")
    assert name_key("Foo.json") == name_key("foo.json") != name_key("foo.jsn")


# Names git can hold (no NUL), weighted to what folds: case, combining marks, ligatures,
# the Kelvin sign, final sigma, code points HFS+ ignores.
_NAME_CHARS = st.one_of(st.characters(blacklist_characters="\0"),
                        st.sampled_from("aAkK\u212a\u00e9e\u0301\u0327\ufb00\u03a3\u03c2"
                                        "\u1e9e\u00df\u200c\ufeff\u0345\u0130."))


@given(st.lists(st.text(_NAME_CHARS, max_size=8), max_size=12))
def test_name_keys_of_many_names_are_each_name_key(names):
    assert name_keys(names) == [name_key(n) for n in names]
    assert name_keys(["Foo", "caf\u00e9", "cafe\u0301", "\u212a"]) == \
        ["foo", "cafe\u0301", "cafe\u0301", "k"]


def test_executable_manifest_file_is_refused(remote, kit: ManifestKit):
    def add(clone):
        add_file(remote, [kit.workload(name="w")])
        for path in git(clone, "ls-files", "--others", "store/").split():
            (clone / path).chmod(0o755)

    pushed = remote.pr("an executable manifest", add)
    assert not pushed.accepted
    assert "error KI114 file-mode-executable: an executable file (mode 100755) under " \
           "store/" in pushed.output


def raw_tree(cwd, entries: list[tuple[str, str, str]]) -> str:
    """Write a tree object with these (mode, name, id) entries, as `git mktree` would,
    without the name checks git and libgit2 make (a hostile pusher writes the bytes)."""
    data = b"".join(mode.encode() + b" " + name.encode() + b"\0" + bytes.fromhex(oid)
                    for mode, name, oid in sorted(entries, key=lambda e: e[1].encode()
                                                  + (b"/" if e[0] == "40000" else b"")))
    return subprocess.run(["git", "hash-object", "-t", "tree", "-w", "--literally",
                           "--stdin"], cwd=cwd, input=data, capture_output=True,
                          check=True).stdout.decode().strip()


def push_tree(remote: Remote, directory: list[str], name: str) -> object:
    """Commit HEAD's tree with ``directory/name`` added (a hook script) and push it."""
    clone = remote.clone
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=clone,
                          input=b"#!/bin/sh\necho owned\n", capture_output=True,
                          check=True).stdout.decode().strip()

    def entries(tree: str | None) -> list[tuple[str, str, str]]:
        if tree is None:
            return []
        return [(m.lstrip("0"), n, o) for m, _, o, n in (
            line.replace("\t", " ").split(" ", 3) for line in git(clone, "ls-tree", tree
                                                                  ).splitlines())]

    def build(tree: str | None, parts: list[str]) -> str:
        mine = entries(tree)
        if not parts:
            return raw_tree(clone, [*mine, ("100755", name, blob)])
        sub = next((o for m, n, o in mine if n == parts[0] and m == "40000"), None)
        rest = [e for e in mine if e[1] != parts[0]]
        return raw_tree(clone, [*rest, ("40000", parts[0], build(sub, parts[1:]))])

    tree = build(git(clone, "rev-parse", "HEAD^{tree}").strip(), directory)
    commit = git(clone, "commit-tree", tree, "-p", "HEAD", "-m", "hooks").strip()
    git(clone, "update-ref", "HEAD", commit)
    return remote.push("HEAD:main")


@pytest.mark.parametrize("directory", [["docs", ".GIT", "hooks"], ["docs", "git~1"],
                                       [".g\u200cit"], ["store", ".Git."]])
def test_dotgit_directory_anywhere_in_the_tree_is_refused(remote, directory):
    pushed = push_tree(remote, directory, "post-checkout")
    assert not pushed.accepted
    dotgit = "/".join(directory[:3 if directory[-1] == "hooks" else len(directory)]
                      ).removesuffix("/hooks")
    assert f"{dotgit}: error KI115 dotgit-path-component: " in pushed.output


def test_names_colliding_by_case_or_normalisation_across_two_pull_requests_are_refused(
        remote):
    # PR 1 adds docs/café.md (NFC); PR 2 adds docs/café.md in NFD: on macOS, one file.
    nfc, nfd = unicodedata.normalize("NFC", "café.md"), unicodedata.normalize("NFD", "café.md")

    def write(name):
        def change(clone):
            (clone / "docs").mkdir(exist_ok=True)
            (clone / "docs" / name).write_text(name)
        return change

    assert remote.pr("NFC", write(nfc)).accepted
    pushed = remote.pr("NFD", write(nfd))
    assert not pushed.accepted
    assert "error KI112 path-case-collision: collides with docs/" in pushed.output
    assert remote.pr("another case", write("CAFÉ.md")).accepted is False


def test_stray_file_under_attestations_is_refused(remote):
    def stray(clone):
        (clone / "store/attestations").mkdir(parents=True, exist_ok=True)
        (clone / "store/attestations/README.json").write_text(json.dumps({"x": 1}))

    pushed = remote.pr("a stray file", stray)
    assert not pushed.accepted
    assert "store/attestations/README.json: error KI110 path-outside-layout" in pushed.output


def _an_object_path(remote: Remote) -> list[str]:
    return git(remote.clone, "ls-tree", "-r", "--name-only", "HEAD", "store/objects"
               ).split()[0].split("/")


def test_dotgit_file_in_a_shard_of_files_is_refused(remote):
    # A shard holds files only: the gate reads the changed names, not the whole shard.
    shard = _an_object_path(remote)[:-1]
    pushed = push_tree(remote, shard, ".GIT")
    assert not pushed.accepted
    assert f"{'/'.join(shard)}/.GIT: error KI115 dotgit-path-component: " in pushed.output


def test_directory_colliding_with_a_file_of_a_shard_is_refused(remote):
    # A directory in a shard: the gate reads the shard's entries one by one again.
    *shard, leaf = _an_object_path(remote)
    pushed = push_tree(remote, [*shard, leaf.upper()], "hook")
    assert not pushed.accepted
    where = "/".join(shard)
    # on the name the push brings (case99: it was on the stored file)
    assert (f"{where}/{leaf.upper()}: error KI112 path-case-collision: collides with "
            f"{where}/{leaf} under case folding") in pushed.output
