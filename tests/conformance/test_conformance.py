"""kistore against every conformance vector (conformance/*.json, described in its README).

Each vector is run through the command line the way another implementation would be
compared: `kistore digest` and `kistore add` for manifests, `kistore verify --json` on a
store built by git for envelopes and stores. The committed files must equal what
tests/conformance/generate.py writes (so the signatures are what kistore signs).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
import rfc8785

from kistore.cli import main

from ..conftest import ROOT
from . import generate

CONFORMANCE = ROOT / "conformance"
MANIFESTS = json.loads((CONFORMANCE / "manifests.json").read_text("ascii"))
ENVELOPES = json.loads((CONFORMANCE / "envelopes.json").read_text("ascii"))
STORES = json.loads((CONFORMANCE / "stores.json").read_text("ascii"))
NOTES_REF = "refs/notes/kistore"


def names(cases: list[dict]) -> list[str]:
    return [c["name"] for c in cases]


@pytest.mark.parametrize("name", sorted(generate.FILES))
def test_committed_vectors_are_what_the_generator_writes(name):
    assert (CONFORMANCE / name).read_text("ascii") == generate.render(generate.FILES[name]())


# -- manifests -> canonical bytes and digests ------------------------------------------------

@pytest.mark.parametrize("case", MANIFESTS["cases"], ids=names(MANIFESTS["cases"]))
def test_manifest_canonical_bytes_and_digest(case, runner, store_path, tmp_path):
    source = tmp_path / "manifest.json"
    source.write_bytes(case["input"].encode("utf-8"))
    digest = runner.invoke(main, ["digest", "--json", str(source)])
    assert digest.exit_code == 0, digest.output
    assert [d["digest"] for d in json.loads(digest.stdout)] == [case["digest"]]
    added = runner.invoke(main, ["--store", str(store_path), "add", "--allow-dangling",
                                 str(source)])
    assert added.exit_code == 0, added.output
    hex_ = case["digest"].removeprefix("sha256:")
    for base, expected in (("objects", case["object"]), ("metadata", case["metadata"])):
        stored = (store_path / f"store/{base}/sha256/{hex_[:2]}/{hex_[2:]}.json").read_bytes()
        assert stored == expected.encode("utf-8")
    # An independent RFC 8785 implementation agrees on the object bytes.
    document = json.loads(case["input"])
    oracle = rfc8785.dumps({k: document[k] for k in ("apiVersion", "kind", "spec")})
    assert oracle == case["object"].encode("utf-8")
    assert "sha256:" + hashlib.sha256(oracle).hexdigest() == case["digest"]


# -- building stores as the README says ---------------------------------------------------

def git(path: Path, *args: str, input: bytes | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": STORES["date"], "GIT_COMMITTER_DATE": STORES["date"]}
    return subprocess.run(["git", *args], cwd=path, env=env, input=input, check=True,
                          capture_output=True, timeout=120).stdout.decode()


def build_store(path: Path, files: dict[str, str | None], notes: dict[str, list[str]]) -> None:
    """One commit of ``files``, then one note per entry of ``notes`` (README, stores.json)."""
    git(path.parent, "init", "-q", "-b", "main", str(path))
    for rel, text in files.items():
        if text is not None:
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            (path / rel).write_bytes(text.encode("utf-8"))
    git(path, "add", "-A")
    git(path, "commit", "-q", "--no-verify", "-m", "conformance")
    for where, lines in notes.items():
        data = (where.removeprefix("(blob) ").encode("utf-8") if where.startswith("(blob) ")
                else (path / where).read_bytes())
        blob = git(path, "hash-object", "-w", "--stdin", input=data).strip()
        note = b"".join(line.encode("utf-8") + b"\n" for line in sorted(lines))
        git(path, "notes", f"--ref={NOTES_REF}", "add", "-F", "-", blob, input=note)


def verify(runner, path: Path) -> tuple[int, list[dict]]:
    result = runner.invoke(main, ["--store", str(path), "verify", "--json"])
    return result.exit_code, json.loads(result.stdout)["findings"]


# -- envelopes -> valid / invalid with the rule id ------------------------------------------

@pytest.mark.parametrize("case", ENVELOPES["cases"], ids=names(ENVELOPES["cases"]))
def test_envelope_is_judged_as_the_vector_says(case, runner, tmp_path):
    subject = ENVELOPES["subject"]
    hex_ = subject["digest"].removeprefix("sha256:")
    object_path = f"store/objects/sha256/{hex_[:2]}/{hex_[2:]}.json"
    kind, name = json.loads(subject["object"])["kind"], json.loads(subject["metadata"])["name"]
    names_path = f"store/names/{kind}/{hashlib.sha256(name.encode()).hexdigest()[:2]}/{name}"
    files = {**STORES["base"], object_path: subject["object"],
             object_path.replace("objects", "metadata"): subject["metadata"],
             names_path: subject["digest"] + "\n"}  # conformance/README.md, manifests.json 4
    build_store(tmp_path / "s", files, {object_path: [case["bundle"]]})
    code, findings = verify(runner, tmp_path / "s")
    blob = hashlib.sha1(b"blob %d\0" % len(subject["object"]) + subject["object"].encode())
    about = [f for f in findings if f.get("file") == f"{NOTES_REF}:{blob.hexdigest()}"]
    assert [f["rule"] for f in about] == [case["rule"]], findings
    assert code == (0 if case["valid"] else 1), findings
    if not case["valid"]:
        assert case["reasonContains"] in about[0]["message"], about[0]["message"]


# -- small stores -> findings --------------------------------------------------------------

@pytest.mark.parametrize("case", STORES["cases"], ids=names(STORES["cases"]))
def test_store_findings_are_the_vector_findings(case, runner, tmp_path):
    files = {**STORES["base"], **case["files"]}
    build_store(tmp_path / "s", files, case["notes"])
    code, findings = verify(runner, tmp_path / "s")
    found = sorted((f["rule"], f["severity"], f.get("file", "")) for f in findings
                   if f["severity"] in ("error", "warning"))
    expected = sorted((f["rule"], f["severity"], f["file"]) for f in case["findings"])
    assert found == expected, findings
    assert code == case["exitCode"]
