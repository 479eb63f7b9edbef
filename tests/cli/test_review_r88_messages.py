"""Review r88: messages that named the wrong cause or no fix, now saying what to do."""

from __future__ import annotations

import os

import pytest

from kistore.cli import main

from .test_cli_names import add_fast_and_slow


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


@pytest.mark.parametrize(("ref", "said"), [
    # F9: names are lowercase; the capitals were compared as written and matched nothing
    ("BenchmarkRun/FAST", "no BenchmarkRun named 'FAST' in the work tree; names are lowercase; "
                          "did you mean BenchmarkRun/fast?"),
    # F9: a kind in lowercase was "not a reference" with no word of the kind meant
    ("benchmarkrun/fast", "'benchmarkrun/fast' is not a reference: 'benchmarkrun' is not a "
                          "kind; did you mean BenchmarkRun/fast?"),
])
@pytest.mark.parametrize("command", ["show", "rank"])
def test_a_reference_in_the_wrong_case_gets_the_spelling_meant(runner, store, kit, command,
                                                               ref, said):
    add_fast_and_slow(store, kit)
    result = run(runner, store.root, command, ref)
    assert (result.exit_code, result.stderr) == (1, f"error: {said}\n")


def test_trust_add_of_a_file_with_no_key_is_one_error_not_one_a_line(runner, store, tmp_path):
    """F11: `trust add /etc/passwd` printed "no Ed25519 key to trust" once per line."""
    passwd = tmp_path / "passwd"
    passwd.write_text("".join(f"user{i}:x:{1000 + i}:{1000 + i}::/home/u:/bin/sh\n"
                              for i in range(5)) + "ssh-rsa AAAA\n")
    result = run(runner, store.root, "trust", "add", str(passwd), "--role", "rerun")
    assert result.exit_code == 1
    [error] = result.stderr.splitlines()
    assert error.startswith(f"error: {passwd}: no Ed25519 key to trust: none of its 6 lines "
                            "holds one (line 1: not an OpenSSH public-key line (it starts "
                            "'user0:x:1000:1000::/home/u:/bin/sh'); ")
    assert "; line 3: not an OpenSSH public-key line (it starts 'user2:x:" in error
    assert "line 4" not in error
    assert error.endswith("; and 3 more lines); give an OpenSSH Ed25519 public key (a line "
                          "`ssh-ed25519 AAAA...`, such as ~/.ssh/id_ed25519.pub or `kistore key "
                          "generate`'s .pub file)")
    assert error.endswith("; give an OpenSSH Ed25519 public key (a line `ssh-ed25519 AAAA...`, "
                          "such as ~/.ssh/id_ed25519.pub or `kistore key generate`'s .pub file)")
    assert not (store.root / "store/trust/keys.json").exists() or \
        "user" not in (store.root / "store/trust/keys.json").read_text()


def test_add_of_a_directory_whose_file_vanishes_says_so_and_what_to_do(runner, store, kit,
                                                                       tmp_path, monkeypatch):
    """F6: a file removed while `add DIR` read it was "DIR/x.json: No such file or
    directory; nothing was left half-written", naming no cause and no fix."""
    import json

    from kistore.store import inputs

    folder = tmp_path / "in" / "sub"  # in a subdirectory: add DIR reads those too
    folder.mkdir(parents=True)
    (folder / "w.json").write_text(json.dumps(kit.workload()))
    read = inputs._read_file

    def removed_first(name, limits):
        os.unlink(name)  # what a writer removing its files does while the add reads
        return read(name, limits)

    monkeypatch.setattr(inputs, "_read_file", removed_first)
    result = run(runner, store.root, "add", str(tmp_path / "in"))
    assert (result.exit_code, result.stderr) == (1, (
        f"error: {folder / 'w.json'}: was listed in {tmp_path / 'in'} but is gone: something "
        "removed it while the directory was read; run the add again when nothing writes "
        "there (or add a copy of the directory)\n"))


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_export_where_no_directory_can_be_made_names_the_path_given(runner, store, kit):
    """F6: `export /proc/foo` named the temporary `/proc/.foo.partial-XXXX` and no fix."""
    add_fast_and_slow(store, kit)
    result = run(runner, store.root, "export", "/proc/foo", "--format", "csv")
    assert (result.exit_code, result.stderr) == (1, (
        "error: /proc/foo: cannot write in /proc (No such file or directory), so nothing was "
        "written: give an output directory on a file system you can write to\n"))


def test_add_of_a_large_input_shows_a_counter_on_a_terminal(kit, tmp_path):
    """F6: `add /tmp` read 5.6 GB for ten minutes with no progress line."""
    import io
    import json

    from kistore.cli._adding import ReadingLine
    from kistore.store.inputs import read_inputs_apart

    for i in range(3):
        (tmp_path / f"w{i}.json").write_text(json.dumps(kit.workload(f"w{i}", name=f"w{i}")))
    sizes = sorted(p.stat().st_size for p in tmp_path.iterdir())

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    seen: list[tuple[int, int]] = []
    located, refused = read_inputs_apart([str(tmp_path)], reading=lambda *a: seen.append(a))
    assert (len(located), refused) == (3, [])
    assert [files for files, _ in seen] == [1, 2, 3] and seen[-1][1] == sum(sizes)
    shown = Terminal()
    line = ReadingLine(after=0, stream=shown)
    line(3, 2_500_000)
    line.done()
    assert shown.getvalue() == "\rreading the input: 3 files, 2.5 MB\n"
    quiet = io.StringIO()  # not a terminal (a log, a pipe): nothing
    piped = ReadingLine(after=0, stream=quiet)
    piped(3, 2_500_000)
    piped.done()
    assert quiet.getvalue() == ""
