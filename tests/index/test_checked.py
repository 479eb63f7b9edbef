"""Schema verdicts recorded by bytes (issue 22, start-up): ``show`` of another kind compiles
no schema for bytes that passed before, and checks any other bytes as it always did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout, model
from kistore.core.digest import Digest
from kistore.index import checked
from kistore.index.checked import is_checked, record_checked

from ..conftest import add_docs


def _show(store_path, ref):
    return CliRunner().invoke(main, ["--store", str(store_path), "show", ref])


@pytest.fixture
def checks(monkeypatch):
    """Count the schema checks a read makes (what compiles the kind's schema)."""
    calls = []
    real = model.check_manifest

    def counting(document, **kwargs):
        calls.append(document.get("kind"))
        return real(document, **kwargs)

    monkeypatch.setattr(model, "check_manifest", counting)
    return calls


@pytest.fixture
def workload(store, kit):
    """A committed Workload: (its digest, its object and metadata files' paths)."""
    [digest] = add_docs(store, [kit.workload(name="rms-1")])
    d = Digest.from_str(digest)
    return d, store.root / layout.object_path(d), store.root / layout.metadata_path(d)


def test_show_checks_a_document_once_then_knows_its_bytes(store, workload, checks):
    digest, obj, meta = workload
    first = _show(store.root, "Workload/rms-1")
    assert first.exit_code == 0, first.output
    assert checks == ["Workload"]  # checked: nothing vouched for these bytes yet
    assert is_checked(store.git_dir, obj.read_bytes(), meta.read_bytes())
    again = _show(store.root, "Workload/rms-1")
    assert again.exit_code == 0 and again.output == first.output
    assert checks == ["Workload"]  # the same bytes: no second check, no schema compiled
    assert f"digest:   {digest}" in again.output


def test_a_metadata_file_edited_in_place_is_checked_again_and_refused(store, workload, checks):
    _, obj, meta = workload
    assert _show(store.root, "Workload/rms-1").exit_code == 0
    marked = meta.read_bytes()
    # same name, so the names file still leads here; a title that is no string
    bad = json.dumps({"name": "rms-1", "title": 7}, separators=(",", ":")).encode()
    with open(meta, "r+b") as f:  # in place: its directory's mtime does not move
        f.write(bad)
        f.truncate()
    shown = _show(store.root, "Workload/rms-1")
    assert shown.exit_code == 1, shown.output
    # the metadata file is named, not the object (msg94 F14)
    assert shown.stderr.startswith(f"error: {meta.relative_to(store.root)}:/title: the metadata "
                                   "file does not match its schema")
    assert checks == ["Workload", "Workload"]
    assert not is_checked(store.git_dir, obj.read_bytes(), bad)
    assert is_checked(store.git_dir, obj.read_bytes(), marked)  # the old bytes' mark stays


def test_cat_checks_a_document_once_and_prints_an_intact_object_beside_bad_metadata(store, workload,
                                                                          checks):
    # cat printed only bytes that pass their schema, compiling it in every process; it now
    # takes the same marks as show (issue 22: `cat` loads no jsonschema for known bytes)
    _, obj, meta = workload
    cat = ["--store", str(store.root), "cat", "Workload/rms-1"]
    first = CliRunner().invoke(main, cat)
    assert first.exit_code == 0 and first.stdout_bytes == obj.read_bytes()
    assert checks == ["Workload"]
    again = CliRunner().invoke(main, [*cat, "--metadata"])
    assert again.exit_code == 0 and again.stdout_bytes == meta.read_bytes()
    assert checks == ["Workload"]  # the same bytes: not checked again
    bad = json.dumps({"name": "rms-1", "title": 7}, separators=(",", ":")).encode()
    with open(meta, "r+b") as f:  # in place: the names still lead here
        f.write(bad)
        f.truncate()
    # the object's bytes are intact: cat prints them (fresh95 F9: it refused, so a user
    # whose metadata file broke had no way to read the object it names)
    intact = CliRunner().invoke(main, cat)
    assert intact.exit_code == 0 and intact.stdout_bytes == obj.read_bytes()
    assert checks == ["Workload", "Workload"]


def test_a_replaced_object_file_is_refused_whatever_was_marked(store, workload):
    _, obj, meta = workload
    assert _show(store.root, "Workload/rms-1").exit_code == 0
    tampered = obj.read_bytes().replace(b"synthetic", b"synthetiK")
    record_checked(store.git_dir, tampered, meta.read_bytes())  # even a forged mark
    obj.write_bytes(tampered)
    shown = _show(store.root, "Workload/rms-1")
    assert shown.exit_code == 1, shown.output
    assert shown.stdout == "" and "sha256" in shown.stderr


def test_a_mark_is_for_these_bytes_under_this_checker(tmp_path, monkeypatch):
    git_dir = tmp_path / ".git"
    (git_dir / "kistore").mkdir(parents=True)
    record_checked(git_dir, b'{"kind":"Workload"}', b'{"name":"a"}')
    assert is_checked(git_dir, b'{"kind":"Workload"}', b'{"name":"a"}')
    assert not is_checked(git_dir, b'{"kind":"Workload"}', b'{"name":"b"}')
    # the boundary between the two files is in the name: moving a byte across is another
    assert not is_checked(git_dir, b'{"kind":"Workload"}{', b'"name":"a"}')
    [mark] = [p for p in (git_dir / "kistore" / checked.DIRECTORY).rglob("*") if p.is_file()]
    assert mark.read_bytes() == b""
    # another schema or another kistore: every verdict is asked again
    monkeypatch.setattr(checked, "checker_id", lambda: b"\x01" * 32)
    assert not is_checked(git_dir, b'{"kind":"Workload"}', b'{"name":"a"}')


def test_checker_id_follows_the_schemas(monkeypatch, tmp_path):
    from kistore.core import schema

    shipped = schema._schema_dir()
    copy = tmp_path / "schemas"
    copy.mkdir()
    for name in schema.schema_names():
        (copy / name).write_bytes(shipped.joinpath(name).read_bytes())
    before = schema.checker_id()
    schema.checker_id.cache_clear()
    monkeypatch.setattr(schema, "_schema_dir", lambda: copy)
    try:
        assert schema.checker_id() == before  # same files, same id
        schema.checker_id.cache_clear()
        data = (copy / "Workload.json").read_bytes()
        (copy / "Workload.json").write_bytes(data.replace(b'"type"', b'"type" ', 1))
        assert schema.checker_id() != before
    finally:
        schema.checker_id.cache_clear()


def test_checker_id_follows_the_plain_text_rules(monkeypatch, tmp_path):
    # KI104's script and invisible-character rules live in core/_plain_text.py, its table of
    # fields in core/text_fields.py: a verdict kept under an older copy of them must not be
    # taken (show would skip the new rule)
    import shutil

    from kistore.core import schema

    copies = []
    for source in schema._CHECKER_SOURCES:
        copies.append(tmp_path / Path(source).name)
        shutil.copyfile(source, copies[-1])
    assert [p.name for p in copies] == ["schema.py", "text_fields.py", "_plain_text.py"]
    before = schema.checker_id()
    schema.checker_id.cache_clear()
    monkeypatch.setattr(schema, "_CHECKER_SOURCES", tuple(map(str, copies)))
    try:
        assert schema.checker_id() == before  # same files, same id
        schema.checker_id.cache_clear()
        copies[2].write_bytes(copies[2].read_bytes().replace(b"(0x3164, 0x3164), ", b""))
        after_plain = schema.checker_id()
        assert after_plain != before
        schema.checker_id.cache_clear()
        # the table of which fields are checked (review73 F8) counts too
        copies[1].write_bytes(copies[1].read_bytes().replace(b'"/spec/definition", ', b""))
        assert schema.checker_id() not in (before, after_plain)
    finally:
        schema.checker_id.cache_clear()



    git_dir = tmp_path / ".git"
    (git_dir / "kistore").mkdir(parents=True)
    (git_dir / "kistore" / checked.DIRECTORY).write_bytes(b"not a directory")  # OSError
    record_checked(git_dir, b"{}", b"{}")
    assert not is_checked(git_dir, b"{}", b"{}")


def test_a_repository_never_indexed_gets_no_directory(tmp_path):
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    record_checked(git_dir, b"{}", b"{}")
    assert not (git_dir / "kistore").exists() and not is_checked(git_dir, b"{}", b"{}")


@pytest.fixture
def overlay_checks(monkeypatch):
    """The names of the manifests the work tree's overlay checks against their schema."""
    from kistore.core import schema

    calls = []
    real = schema.check_manifest

    def counting(document, **kwargs):
        calls.append(document["metadata"]["name"])
        return real(document, **kwargs)

    monkeypatch.setattr(schema, "check_manifest", counting)
    return calls


@pytest.fixture
def uncommitted(store, kit):
    """A committed run ``a`` (30 ns) and an uncommitted one ``b`` (10 ns) with its
    implementation: the digests of ``b``'s two manifests."""
    from .test_query_warm import new_run

    world = [kit.protocol(), kit.environment(), kit.workload()]
    protocol, env, workload = world
    add_docs(store, [*world, *new_run(kit, dict(protocol=protocol, env=env,
                                                workload=workload), "a", 30)])
    return add_docs(store, new_run(kit, dict(protocol=protocol, env=env, workload=workload),
                                   "b", 10), commit=False)


def _files(store, digest):
    d = Digest.from_str(digest)
    return store.root / layout.object_path(d), store.root / layout.metadata_path(d)


def test_an_uncommitted_manifest_is_checked_once_then_known_by_its_bytes(
        store, uncommitted, overlay_checks):
    """Every answer overlays the work tree's uncommitted manifests on HEAD's index; their
    schema check loaded jsonschema-rs in every fresh process (1,000,000 store: ~30 ms)."""
    from .test_query_warm import ranks

    first = ranks(store.root)
    assert first == [("b", 1), ("a", 2)]
    assert sorted(overlay_checks) == ["b", "impl-b"]  # the two uncommitted manifests
    for digest in uncommitted:
        obj, meta = _files(store, digest)
        assert is_checked(store.git_dir, obj.read_bytes(), meta.read_bytes())
    overlay_checks.clear()
    assert ranks(store.root) == first
    assert overlay_checks == []  # the same bytes: no check, no schema compiled


def test_an_uncommitted_manifest_edited_in_place_is_checked_again_and_left_out(
        store, uncommitted, overlay_checks):
    from .test_query_warm import ranks

    assert ranks(store.root) == [("b", 1), ("a", 2)]
    obj, meta = _files(store, uncommitted[1])  # run b's metadata: a title that is no string
    bad = json.dumps({"name": "b", "title": 7}, separators=(",", ":")).encode()
    with open(meta, "r+b") as f:  # in place: its directory's mtime does not move
        f.write(bad)
        f.truncate()
    overlay_checks.clear()
    assert ranks(store.root) == [("a", 1)]  # refused by its schema, as before any mark
    assert "b" in overlay_checks
    assert not is_checked(store.git_dir, obj.read_bytes(), bad)  # nothing recorded for it


def test_a_large_uncommitted_change_marks_nothing(store, uncommitted, overlay_checks,
                                                  monkeypatch):
    """Past catalog.MARKED_AT_MOST changed manifests no mark is written (no file each in
    .git for a bulk add left uncommitted); every answer checks them, as before."""
    from kistore.index import catalog

    from .test_query_warm import ranks

    monkeypatch.setattr(catalog, "MARKED_AT_MOST", 1)
    for _ in range(2):
        assert ranks(store.root) == [("b", 1), ("a", 2)]
    assert sorted(overlay_checks) == ["b", "b", "impl-b", "impl-b"]
    assert not (store.git_dir / "kistore" / checked.DIRECTORY).exists()
