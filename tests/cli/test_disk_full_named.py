"""A full disk during ``add`` or ``site build`` names the file being written (fresh05 LOW 2).

Both said only "error: No space left on device; nothing was left half-written": ``os.write``
raises ENOSPC without a file name. ``add`` now names the store file, ``site build`` the file
as it would be in OUT (never its staging directory), with what to do.
"""

from __future__ import annotations

import errno
import os
import re
import types

from kistore.cli import main

from ..conftest import add_docs
from ..small_disk import fill, small_disk

FULL = ("No space left on device; free space on its file system and run the command again; "
        "nothing was left half-written")


def _cli(runner, root, *args):
    return runner.invoke(main, ["--store", str(root), *args])


def _docs_file(kit, path):
    import json

    docs = kit.group_docs([None])
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return docs


def test_add_names_the_store_file_a_full_disk_stopped(runner, store, kit, tmp_path,
                                                      monkeypatch):
    from kistore.git import writer

    def write(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    names = {name: getattr(os, name) for name in dir(os) if not name.startswith("__")}
    monkeypatch.setattr(writer, "os", types.SimpleNamespace(**{**names, "write": write}))
    _docs_file(kit, tmp_path / "docs.jsonl")
    result = _cli(runner, store.root, "add", str(tmp_path / "docs.jsonl"))
    assert result.exit_code == 1
    said = re.fullmatch(rf"error: ({re.escape(str(store.root))}/store/\S+): {re.escape(FULL)}\n",
                        result.output)
    assert said, result.output
    assert not os.path.exists(said.group(1))  # named, and not left half-written
    assert not any(p.name.endswith(".tmp") for p in (store.root / "store").rglob("*"))


def test_site_build_names_the_page_as_in_out(runner, store, kit, tmp_path, monkeypatch):
    from kistore.site import build

    add_docs(store, kit.group_docs([None]))
    real_open = open

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    def full_open(path, mode="r", *args, **kw):
        f = real_open(path, mode, *args, **kw)
        if "w" in mode and str(path).endswith(f"{os.sep}index.html") and re.search(
                r"\.tmp-[0-9a-f]{8}$", os.path.dirname(str(path))):
            return Full(f)  # the site's own index.html, in the staging beside OUT
        return f

    monkeypatch.setattr(build, "open", full_open, raising=False)
    out = tmp_path / "site"
    result = _cli(runner, store.root, "site", "build", str(out))
    assert result.exit_code == 1
    assert result.output.endswith(f"error: {out / 'index.html'}: {FULL}\n"), result.output
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("site")] == []


def test_a_real_full_disk_names_the_files(runner, kit, tmp_path):
    from kistore.store import Store

    with small_disk(tmp_path / "small") as small:
        Store.init(small / "s")
        store = Store(small / "s")
        docs = _docs_file(kit, tmp_path / "more.jsonl")
        add_docs(store, docs[:3])  # the protocol, environment and workload: the rest to add
        fill(small)
        root = small / "s"
        added = _cli(runner, root, "add", str(tmp_path / "more.jsonl"))
        assert added.exit_code == 1
        assert re.fullmatch(rf"error: {re.escape(str(root))}/store/\S+: {re.escape(FULL)}\n",
                            added.output), added.output
        out = small / "site"
        built = _cli(runner, root, "site", "build", str(out))
        assert built.exit_code == 1
        assert built.output.endswith(f"error: {out}: {FULL}\n"), built.output
        assert sorted(p.name for p in small.iterdir()) == ["fill", "s"]
