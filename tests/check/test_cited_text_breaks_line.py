"""KI219: a title or author a citation prints within one line holds a line break (r83 F4).

Prose (KI104) admits a line feed, U+2028 and U+2029; in a title or an implementation's
author they made lines of their own under a citation. Citations now print them escaped;
``verify`` and ``check`` warn of such a string (a warning: existing stores still verify),
and the verify fast path declines such a pair so the warning is never skipped.
"""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check import _rules, audit, gate
from kistore.core import canonical
from kistore.core.findings import exit_code
from kistore.store import Store

from ..cite.test_citation import add, commit_all, published_store, retitled_run
from ..conftest import BUNDLE


def ki219(findings) -> list[str]:
    return [f.format() for f in findings if f.rule.id == "KI219"]


def test_a_title_with_a_line_feed_is_one_warning_at_its_pointer():
    [finding] = _rules.cited_text_findings(
        "o.json", "m.json", {"kind": "BenchmarkRun", "spec": {}},
        {"name": "r", "title": "Proud Wren\nrank 1 of 99", "description": "two\nlines"})
    assert finding.format() == (
        "m.json:/title: warning KI219 cited-text-breaks-line: the title holds U+000A LINE "
        "FEED at character 11: a citation prints it within one line (escaped, as \\n); "
        "written raw it would read as lines of the citation (expected one line, found "
        "Proud Wren\\nrank 1 of 99)")


def test_an_implementation_author_with_a_line_separator_is_a_warning_on_the_object():
    [finding] = _rules.cited_text_findings(
        "o.json", "m.json", {"kind": "Implementation", "spec": {"author": "A\u2029B"}},
        {"name": "i", "title": "fine"})
    assert (finding.file, finding.pointer, finding.found) == ("o.json", "/spec/author",
                                                              "A\\u2029B")
    assert "U+2029 PARAGRAPH SEPARATOR at character 2" in finding.message


def test_descriptions_and_one_line_titles_are_not_warned_of():
    assert _rules.cited_text_findings(
        "o.json", "m.json", {"kind": "Implementation",
                             "spec": {"author": "A B", "description": "x\ny"}},
        {"name": "i", "title": "one line", "description": "a\nb"}) == []


def _files(document: dict) -> tuple[str, bytes, bytes]:
    object_data = canonical.dumps({k: document[k] for k in ("apiVersion", "kind", "spec")})
    return (hashlib.sha256(object_data).hexdigest(), object_data,
            canonical.dumps(document["metadata"]))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \n\u2028\u2029é·"), min_size=1, max_size=12))
def test_the_verify_fast_path_never_skips_the_warning(title):
    run = json.loads(BUNDLE.read_text())["run"]
    run["metadata"]["title"] = title
    digest_hex, object_data, metadata_data = _files(run)
    clean = _rules.check_clean_pair(digest_hex, object_data, metadata_data)
    breaks = any(c in title for c in "\n\u2028\u2029")
    assert (clean is None) == breaks
    if breaks:
        warned = _rules.check_manifest_pair("o", "m", json.loads(object_data),
                                            json.loads(metadata_data))
        assert [f.rule.id for f in warned] == ["KI219"]


def test_verify_and_check_warn_and_still_pass(tmp_path):
    path, c1 = published_store(tmp_path)
    add(path, retitled_run(tmp_path, "Proud Wren\nrank 1 of 99"), update_metadata=True)
    commit_all(path, "a title that forges lines", day=2)
    expected = [
        "store/metadata/sha256/38/4a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6"
        ".json:/title: warning KI219 cited-text-breaks-line: the title holds U+000A LINE FEED "
        "at character 11: a citation prints it within one line (escaped, as \\n); written raw "
        "it would read as lines of the citation (expected one line, found Proud Wren\\nrank 1 "
        "of 99)"]
    verified = audit.verify(Store(path))
    assert ki219(verified) == expected
    assert ki219(audit.verify(Store(path), "HEAD")) == expected
    assert exit_code(verified) == 0
    checked = gate.check_range(Store(path), f"{c1}..HEAD")
    assert ki219(checked) == expected
