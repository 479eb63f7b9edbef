"""U+2800 as a `project` or `provider` through the gate and in `verify` (fresh16 F8).

fresh16 F8 addendum 2: a commit adding an Implementation whose ``project`` is U+2800 (and an
environment whose ``provider`` is) was pushed with ``remote: ok: ... 0 errors``. KI104
refuses it now at the gate, as it refuses U+3164 there; a store that holds one already
(landed before the rule) is KI104's error in ``verify``, as every object KI104 came to refuse
is: its identifying strings key groups and label rows, unlike KI254's author (a warning).
"""

from __future__ import annotations

from kistore.cli import main
from kistore.core import _plain_text, layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import add_docs, commit_all, git
from ..core.test_blank_prints_as_nothing import _said

_VISIBLE = "write the name in visible characters"


def _blank_project(kit) -> dict:
    return kit.implementation("\u2800\u2800\u2800", name="impl-p8")


def _blank_provider(kit) -> dict:
    env = kit.environment(name="env-p0")
    env["spec"]["provider"] = "\u2800"
    return env


def _past_the_rule(store: Store, monkeypatch, docs: list, *, commit: bool) -> list[str]:
    """Add ``docs`` as a store from before the rule did (U+2800 not yet drawn blank).

    Returns:
        Their object files' paths.
    """
    with monkeypatch.context() as m:
        m.setattr(_plain_text, "BLANK_LOOKING", frozenset())
        return [layout.object_path(Digest.from_str(d))
                for d in add_docs(store, docs, commit=commit)]


def test_check_refuses_a_new_blank_project_and_provider(runner, published, kit, monkeypatch):
    # on BASE 6af42bf9: "ok: ...: 0 errors", exit 0
    base = git(published, "rev-parse", "HEAD").strip()
    impl, env = _past_the_rule(Store(published), monkeypatch,
                               [_blank_project(kit), _blank_provider(kit)], commit=False)
    commit_all(published, "a blank project and provider")
    said = runner.invoke(main, ["--store", str(published), "check", f"{base}..HEAD"])
    assert said.exit_code == 1, said.output
    errors = sorted(line for line in said.output.splitlines() if " error KI104 " in line)
    assert errors == sorted([
        f"{impl}:/spec/project: error KI104 schema-invalid: "
        + _said("\u2800\u2800\u2800", 1, _VISIBLE),
        f"{env}:/spec/provider: error KI104 schema-invalid: "
        + _said("\u2800", 1, _VISIBLE)])


def test_pre_receive_refuses_a_blank_project(remote, kit, monkeypatch):
    # fresh16 F8 addendum 2: "remote: ok: 1 ref update(s): 0 errors, 0 warnings, 0 info"
    added: list[str] = []
    pushed = remote.pr("a blank project", lambda clone: added.extend(_past_the_rule(
        Store(clone), monkeypatch, [_blank_project(kit)], commit=False)))
    assert not pushed.accepted, pushed.output
    assert (f"remote: {added[0]}:/spec/project: error KI104 schema-invalid: "
            + _said("\u2800\u2800\u2800", 1, _VISIBLE)) \
        in [line.rstrip() for line in pushed.output.splitlines()]


def test_verify_says_a_landed_blank_project_as_kI104_says_every_landed_object(
        runner, published, kit, monkeypatch):
    # landed before the rule: KI104 of it, an error, as of any stored object it refuses
    [impl] = _past_the_rule(Store(published), monkeypatch, [_blank_project(kit)], commit=True)
    verified = runner.invoke(main, ["--store", str(published), "verify"])
    assert verified.exit_code == 1, verified.output
    assert [line for line in verified.output.splitlines() if "KI104" in line
            and not line.startswith("fix ")] == [
        f"{impl}:/spec/project: error KI104 schema-invalid: "
        + _said("\u2800\u2800\u2800", 1, _VISIBLE)]
