"""Parquet partition directories Windows can create and hold apart (reviewer r82 F5).

r80 F6's fix kept values differing only in case apart. Windows also drops a path
component's trailing dots and spaces (``hardware=NVIDIA B200.`` *is* ``hardware=NVIDIA
B200``: one ``part-00000.parquet`` replaced the other) and refuses ``<``, ``>``, ``|`` in a
name (the export failed there). Now ``<``, ``>``, ``|`` are escaped, as Hive escapes them on
Windows, and so is a final ``.`` or space (``%2E``, ``%20``); DuckDB and pyarrow read each
value back exactly. A reserved device name (``CON``) cannot be a directory of the export:
each begins ``COLUMN=``.
"""

from __future__ import annotations

import urllib.parse

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.core.git_names import name_key, windows_problem
from kistore.export.rows import partition_names, partition_value

from ..conftest import add_docs
from .conftest import duck, export_ok


def test_the_names_windows_refused_or_merged():
    assert partition_value("NVIDIA B200.") == "NVIDIA B200%2E"
    assert partition_value("NVIDIA B200 ") == "NVIDIA B200%20"
    assert partition_value("a. ") == "a.%20"  # only the last: the name ends in a hex digit
    assert partition_value("a<b>") == "a%3Cb%3E"
    assert partition_value("a|b") == "a%7Cb"
    assert partition_value(" x.y") == " x.y"  # inside a name: Windows keeps them
    assert partition_value("CON") == "CON"  # `hardware=CON` is no device name
    for value in ("NVIDIA B200.", "NVIDIA B200 ", "a<b>", "a|b", "CON", "aux.txt"):
        assert windows_problem(f"hardware={partition_value(value)}") is None, value
    # a case class member written with its letters escaped ends escaped too
    assert partition_names(["NVIDIA B200.", "nvidia b200."]) == {
        "nvidia b200.": "%6E%76%69%64%69%61 %62200%2E"}


def _win32(name: str) -> str:
    """A name as NTFS through Win32 compares it: trailing dots and spaces dropped, case
    folded (``name_key`` folds case and Unicode normalisation as APFS and NTFS do)."""
    return name_key(name.rstrip(". "))


VALUES = st.text(alphabet="aA. <>|%~=\u00e9", min_size=1, max_size=6)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a shared machine
@example(values={"NVIDIA B200", "NVIDIA B200.", "NVIDIA B200 ", "a<b>", "a|b"})
@example(values={"a", "a.", "A.", "a. "})
@given(st.sets(VALUES, max_size=12))
def test_every_directory_is_valid_and_apart_on_windows(values):
    moved = partition_names(values)
    names = {v: moved.get(v, partition_value(v)) for v in values}
    for value, name in names.items():
        assert windows_problem(f"hardware={name}") is None, (value, name)
        if "%7E" not in name:  # the hashed short form reads with `~` and the hash
            assert urllib.parse.unquote(name) == value
    assert len({_win32(f"hardware={n}") for n in names.values()}) == len(values)


PRODUCTS = ["NVIDIA B200", "NVIDIA B200.", "a<b>", "a|b"]
"""The reviewer's products (``add`` refuses a trailing space: KI2xx plain text)."""


def test_export_writes_each_product_apart_and_readers_read_it_back(
        runner, store, kit, tmp_path):
    protocol, workload = kit.protocol(), kit.workload()
    docs = [protocol, workload]
    for i, product in enumerate(PRODUCTS):
        env = kit.environment(product, name=f"env-{i}")
        impl = kit.implementation(f"proj-{i}", name=f"impl-{i}")
        docs += [env, impl, kit.run(protocol, env, impl, workload, latency=10 + i,
                                    name=f"run-{i}", native={"source": "my-lab",
                                                             "externalId": f"run-{i}"})]
    add_docs(store, docs)
    out = tmp_path / "pq"
    export_ok(runner, store, out)
    runs = sorted(p.relative_to(out / "runs").parent.as_posix()
                  for p in (out / "runs").rglob("*.parquet"))
    assert runs == ["source=my-lab/hardware=NVIDIA B200",
                    "source=my-lab/hardware=NVIDIA B200%2E",
                    "source=my-lab/hardware=a%3Cb%3E",
                    "source=my-lab/hardware=a%7Cb"]
    assert all(windows_problem(part) is None for path in runs for part in path.split("/"))
    expected = sorted((f"run-{i}", product) for i, product in enumerate(PRODUCTS))
    assert duck(out, "SELECT name, hardware FROM {runs} ORDER BY name") == expected
    import pyarrow.dataset as ds

    table = ds.dataset(out / "runs", partitioning="hive").to_table(columns=["name", "hardware"])
    assert sorted(zip(*table.to_pydict().values(), strict=True)) == expected
