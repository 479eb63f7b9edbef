"""`add`'s refusal quoting a metadata difference escapes what it quotes.

A metadata file committed past the hooks may hold a bidirectional control (U+202E) that
`add` itself refuses (KI104); `add` of the same object with other metadata quoted the
stored value raw, so the reader's terminal or CI log showed it reordered. It is escaped
now as the KI405 line and ``show`` escape it (:func:`kistore.core.errors.one_line`).
"""

from __future__ import annotations

import json

from kistore.cli import main

from ..conftest import PUBLISHED, commit_all, store_file


def test_add_refusal_escapes_bidi_controls_in_the_stored_metadata(runner, published, bundle,
                                                                  tmp_path):
    meta = published / store_file(PUBLISHED["environment"], "metadata")
    doc = json.loads(meta.read_bytes())
    doc.setdefault("labels", {})["note"] = "ok \u202egnp.exe\u202c \u200f"
    meta.write_text(json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":")),
                    encoding="utf-8")
    commit_all(published, "a label with bidi controls, past the hooks")
    given = tmp_path / "env.json"
    given.write_text(json.dumps(bundle["environment"]))
    result = runner.invoke(main, ["--store", str(published), "add", str(given)])
    assert result.exit_code == 1
    assert result.output == (
        f"error: {given}:/metadata: {PUBLISHED['environment']} is already stored with other "
        'metadata (/labels: stored {"note": "ok \\u202egnp.exe\\u202c \\u200f"}, given '
        "(absent)); pass --update-metadata to replace it\n")
    assert not any(c in result.output for c in "\u202e\u202c\u200f")
