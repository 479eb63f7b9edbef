"""schemas/*.json work offline in the ecosystem's own validators, from a checkout.

Issue 18: `check-jsonschema --schemafile schemas/BenchmarkRun.json` failed, because every
`$id` named https://kernelindex.dev/..., which serves nothing, and every relative `$ref`
resolved against it. The schema files now carry no `$id`, so their relative `$ref`s resolve
against the file read (JSON Schema 2020-12 §8.2.1: the retrieval URI is the base). Two
independent validators must agree with kistore on real manifests (this repository's store
and the published record) and on manifests kistore refuses: check-jsonschema (Python, the
`test` extra) and Ajv (JavaScript; `make install` puts it in .venv/npm when npm is there).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.core.model import Manifest
from kistore.core.schema import KINDS, check_manifest, schema_names, schema_references

from ..conftest import PUBLISHED, ROOT

SCHEMAS = ROOT / "schemas"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")
NODE_MODULES = Path(sys.prefix) / "npm" / "node_modules"
SAMPLE = 12
"""Stored manifests of each kind handed to the outside validators (the first, by path)."""


def stored_manifests(kind: str) -> list[dict]:
    """Manifests of this repository's store/ (object + metadata), the first SAMPLE of a kind."""
    found = []
    for path in sorted((ROOT / "store" / "objects").rglob("*.json")):
        document = json.loads(path.read_bytes())
        if document["kind"] != kind:
            continue
        metadata = path.parents[3] / "metadata" / path.relative_to(path.parents[2])
        found.append({**document, "metadata": json.loads(metadata.read_bytes())})
        if len(found) == SAMPLE:
            break
    return found


def refused(bundle: dict) -> dict[str, dict]:
    """Manifests kistore refuses, one per kind of mistake, each for its schema's reason."""
    run = bundle["run"]
    zero = copy.deepcopy(run)
    zero["spec"]["timing"]["latencyNs"]["mean"] = 0
    digest = copy.deepcopy(run)
    digest["spec"]["protocolDigest"] = "sha256:ABC"
    date = copy.deepcopy(run)
    date["spec"]["observedAt"] = "yesterday"
    extra = copy.deepcopy(bundle["protocol"])
    extra["spec"]["surprise"] = True
    name = copy.deepcopy(bundle["environment"])
    name["metadata"]["name"] = "../escape"
    cases = {"latency-zero": zero, "digest-uppercase": digest, "date-not-rfc3339": date,
             "unknown-key": extra, "name-with-slash": name}
    for label, document in cases.items():
        assert check_manifest(document), label  # kistore refuses each one
    return cases


def by_kind(cases: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """Group labelled manifests by kind: one validator run per schema."""
    grouped: dict[str, dict[str, dict]] = {}
    for label, document in cases.items():
        grouped.setdefault(document["kind"], {})[label] = document
    return grouped


def write(tmp_path: Path, label: str, document: dict) -> Path:
    path = tmp_path / f"{label}.json"
    path.write_text(json.dumps(document))
    return path


def test_no_schema_names_a_host_so_every_ref_resolves_against_its_file():
    for name in schema_names():
        schema = json.loads((SCHEMAS / name).read_text())
        assert "$id" not in schema, name
        refs = [ref for _, ref in schema_references(schema)]
        assert all(not ref.startswith(("http:", "https:")) for ref in refs), (name, refs)


def test_the_published_digests_do_not_change(bundle):
    # Schemas are not hashed; the published record's digests are the acceptance test.
    assert {k: str(Manifest.from_document(v).digest) for k, v in bundle.items()} == PUBLISHED


@pytest.mark.parametrize("where", ["checkout", "elsewhere"])
def test_check_jsonschema_validates_from_a_checkout_offline(tmp_path, bundle, where):
    # The issue's own command, `check-jsonschema --schemafile schemas/BenchmarkRun.json`
    # in the checkout, and the same with absolute paths from another directory.
    assert CHECK_JSONSCHEMA.exists(), "check-jsonschema is in the test extra: run make install"
    cwd = ROOT if where == "checkout" else tmp_path

    def check(schema: str, files: list[Path]) -> subprocess.CompletedProcess:
        # --no-cache: nothing comes from a cache of an earlier (online) run
        schemafile = f"schemas/{schema}" if where == "checkout" else str(SCHEMAS / schema)
        return subprocess.run([str(CHECK_JSONSCHEMA), "--no-cache", "--schemafile",
                               schemafile, *map(str, files)],
                              capture_output=True, text=True, cwd=cwd)

    for kind in KINDS:
        files = [write(tmp_path, f"{kind}-{i}", m) for i, m in enumerate(stored_manifests(kind))]
        files += [write(tmp_path, key, m) for key, m in bundle.items() if m["kind"] == kind]
        assert files, kind
        done = check(f"{kind}.json", files)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "ok -- validation done" in done.stdout
    for kind, cases in by_kind(refused(bundle)).items():
        done = check(f"{kind}.json", [write(tmp_path, label, d) for label, d in cases.items()])
        assert done.returncode == 1, done.stdout + done.stderr
        out = done.stdout + done.stderr
        assert "Schema validation errors were encountered" in out and "Traceback" not in out
        for label in cases:  # each file refused, not only the first
            assert f"{tmp_path / label}.json::" in out, (label, out)


def _ajv_or_skip() -> Path:
    """Return the node_modules folder holding ajv and ajv-formats (make install's .venv/npm)."""
    if (NODE_MODULES / "ajv-formats").is_dir() and shutil.which("node"):
        return NODE_MODULES
    if (shutil.which("npm") is None or shutil.which("node") is None) and not os.environ.get("CI"):
        pytest.skip("npm is not installed here, so Ajv (the JavaScript validator) cannot be; "
                    "check-jsonschema still checks the schemas")
    pytest.fail(f"{NODE_MODULES} lacks ajv: run `make install` (it installs ajv and "
                "ajv-formats into .venv/npm when npm is there; CI, where CI is set, must have "
                "node and npm, so Ajv is never skipped there)")


AJV_SCRIPT = """
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;
const fs = require("fs"), path = require("path");
const [dir, schemaName, ...files] = process.argv.slice(1);
const ajv = new Ajv2020({allErrors: true});  // Ajv's defaults: strict mode on
addFormats(ajv);
// every other schema file, known by its file name: a relative $ref names the file
for (const f of fs.readdirSync(dir).filter(n => n.endsWith(".json")))
  if (f !== schemaName) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(dir, f))), f);
const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(dir, schemaName))));
let bad = 0;
for (const f of files) {
  const ok = validate(JSON.parse(fs.readFileSync(f)));
  console.log(`${path.basename(f)} ${ok ? "valid" : "invalid " + JSON.stringify(validate.errors)}`);
  if (!ok) bad++;
}
process.exit(bad ? 1 : 0);
"""
"""Ajv as a JavaScript program uses it: each schema added under its file name, then compiled."""


def ajv(schema: str, files: list[Path]) -> subprocess.CompletedProcess:
    modules = _ajv_or_skip()
    return subprocess.run(["node", "-e", AJV_SCRIPT, str(SCHEMAS), schema, *map(str, files)],
                          capture_output=True, text=True, env={**os.environ,
                                                               "NODE_PATH": str(modules)})


def test_ajv_validates_with_the_schemas_of_a_checkout(tmp_path, bundle):
    for kind in KINDS:
        files = [write(tmp_path, f"{kind}-{i}", m) for i, m in enumerate(stored_manifests(kind))]
        files += [write(tmp_path, key, m) for key, m in bundle.items() if m["kind"] == kind]
        done = ajv(f"{kind}.json", files)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines() == [f"{f.name} valid" for f in files]
    for kind, cases in by_kind(refused(bundle)).items():
        done = ajv(f"{kind}.json", [write(tmp_path, label, d) for label, d in cases.items()])
        assert done.returncode == 1, done.stdout + done.stderr
        assert [line.split(" ", 2)[:2] for line in done.stdout.splitlines()] == [
            [f"{label}.json", "invalid"] for label in cases]


def test_ajv_compiles_every_schema_in_strict_mode():
    for name in schema_names():
        done = ajv(name, [])
        assert done.returncode == 0, (name, done.stdout + done.stderr)
