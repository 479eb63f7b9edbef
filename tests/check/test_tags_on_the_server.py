"""Review r88 F7: tags are permalinks, and the server's hook keeps them so.

README tags a commit (``git tag v1``) and reads it back (``rank --at v1``, ``export --since
v1``); ``hooks/pre-receive`` accepted ``git push -f origin v1`` to another line and ``git
push origin :v1``, so an answer "as of v1" could change on the server without a word.
"""

from __future__ import annotations

import pytest

from ..conftest import git
from ..prs import Remote


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    made = Remote(published, tmp_path)
    assert made.pr("a first change", lambda clone: None).accepted
    git(made.clone, "tag", "v1")
    assert made.push("v1").accepted  # a new tag is no rewrite
    return made


def tagged(remote: Remote) -> str:
    return git(remote.bare, "rev-parse", "refs/tags/v1").strip()


def test_a_tag_moved_aside_or_back_is_refused(remote):
    before = tagged(remote)
    git(remote.clone, "tag", "-f", "v1", "HEAD~1")  # back: the parent of what v1 named
    pushed = remote.push("-f", "v1")
    assert not pushed.accepted
    said = pushed.output
    assert f"KI407 protected-ref-rewritten: move {before[:12]}.." in said, said
    assert " of refs/tags/v1 refused: a tag is a permalink (`kistore rank --at TAG`" in said
    assert "tag the new commit under a new name" in pushed.output
    assert tagged(remote) == before


def test_a_tag_deleted_is_refused(remote):
    before = tagged(remote)
    pushed = remote.push(":refs/tags/v1")
    assert not pushed.accepted
    assert ("KI407 protected-ref-rewritten: deletion of refs/tags/v1 refused: a tag is a "
            "permalink") in pushed.output, pushed.output
    assert tagged(remote) == before


def test_a_tag_moved_forward_is_refused_a_new_tag_accepted(remote):
    """A move forward changes "as of v1" as much as one back (the first fix let it by)."""
    before = tagged(remote)
    assert remote.pr("a second change", lambda clone: None).accepted
    git(remote.clone, "tag", "-f", "v1", "HEAD")  # a descendant of what v1 named
    pushed = remote.push("-f", "v1")
    assert not pushed.accepted
    assert f"KI407 protected-ref-rewritten: move {before[:12]}.." in pushed.output
    assert tagged(remote) == before
    git(remote.clone, "tag", "v2", "HEAD")
    assert remote.push("v2").accepted
    assert git(remote.bare, "rev-parse", "refs/tags/v2").strip() == git(
        remote.clone, "rev-parse", "HEAD").strip()
