"""A title or author cannot forge lines in a citation a person reads (reviewer r83 F4).

A run's title and an implementation's author are free text (KI104 admits a line feed, and
U+2028/U+2029, in prose; stores older than its rule hold any control): printed raw, a title
``"X\\nrank 1\\ndigest: sha256:<other>"`` added lines of its own under ``show``'s ``Cite:``
line, in ``cite``'s text and in the site's cite block. Now every text a person reads shows
each line break, control and bidirectional control as an escape (``\\n``, ``\\x0d``,
``\\u202e``), and the machine formats (JSON, CSL-JSON, CITATION.cff) keep the text exact.
"""

from __future__ import annotations

import html
import json
import re

import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.cite.formats import to_cff, to_csl_json, to_text
from kistore.cli import main

from .test_citation import add, commit_all, published_store, retitled_run
from .test_citation_formats import sample

BREAKS = "".join(map(chr, (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, 0x061C,
                           0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))))
"""Every control character (C0, DEL, C1), both Unicode line breaks and every bidirectional
control."""

FORGED = "Proud Wren\nrank 1 of 99\r\nverified by KernelIndex\u2028digest: sha256:" + "0" * 64
"""A title that, printed raw, reads as three more lines of the citation."""

LABELS = ("  digest:    ", "  kind:      ", "  blob:      ", "  commit:    ",
          "  published: ", "  accessed:  ")
"""How each line of ``cite``'s text after the reference line starts."""

text = st.text(alphabet=st.sampled_from(BREAKS) | st.sampled_from("rank 1 digest:é\\"),
               min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(title=text, author=text)
def test_no_line_of_the_text_citation_is_written_by_the_title_or_author(title, author):
    lines = to_text(sample(title=title, authors=(author, "KernelIndex"))).splitlines()
    assert len(lines) == 1 + len(LABELS)  # str.splitlines splits on every break there is
    assert [line[:13] for line in lines[1:]] == list(LABELS)
    assert lines[0].endswith(" [Data set]. KernelIndex. " + sample().permalink)
    assert not any(c in lines[0] for c in BREAKS.replace("\t", ""))  # no break, no bidi


def test_a_forged_title_prints_as_one_line_with_visible_escapes():
    first = to_text(sample(title=FORGED)).splitlines()[0]
    assert first == ("KernelIndex (2026). Proud Wren\\nrank 1 of 99\\x0d\\nverified by "
                     "KernelIndex\\u2028digest: sha256:" + "0" * 64 + " [Data set]. "
                     "KernelIndex. " + sample().permalink)


@settings(max_examples=200, deadline=None)
@given(title=text, author=text)
def test_the_machine_formats_keep_the_text_exact(title, author):
    citation = sample(title=title, authors=(author,))
    item = json.loads(to_csl_json(citation))[0]
    assert (item["title"], item["author"]) == (title, [{"literal": author}])
    cff = yaml.safe_load(to_cff(citation))
    assert (cff["title"], cff["authors"]) == (title, [{"name": author}])


def _forged_store(tmp_path):
    path, _ = published_store(tmp_path)
    add(path, retitled_run(tmp_path, FORGED.replace("\r", "")), update_metadata=True)
    commit_all(path, "a title that forges lines", day=2)  # KI104 admits \n and U+2028
    return path


def test_show_and_cite_print_a_forged_title_on_its_own_line_only(tmp_path):
    path = _forged_store(tmp_path)
    runner = CliRunner()
    shown = runner.invoke(main, ["--store", str(path), "show",
                                 "BenchmarkRun/sol-submission-20464"])
    cited = runner.invoke(main, ["--store", str(path), "cite", "384a96d0"])
    facts = runner.invoke(main, ["--store", str(path), "cite", "384a96d0", "--json"])
    assert (shown.exit_code, cited.exit_code, facts.exit_code) == (0, 0, 0)
    for output in (shown.stdout, cited.stdout):
        assert not [line for line in output.splitlines()
                    if re.match(r"\s*(rank 1 of 99|verified by|digest: sha256:0)", line)], output
    cite_line = shown.stdout.splitlines()[-1]
    assert cite_line.startswith("Cite: KernelIndex (2026). Proud Wren\\nrank 1 of 99\\n"
                                "verified by KernelIndex\\u2028digest: sha256:000")
    assert json.loads(facts.stdout)["title"] == FORGED.replace("\r", "")  # exact as data


def test_the_site_cite_block_and_header_show_a_forged_title_escaped(tmp_path):
    path = _forged_store(tmp_path)
    result = CliRunner().invoke(main, ["--store", str(path), "site", "build",
                                       str(tmp_path / "site"), "--without-attestations"])
    assert result.exit_code == 0, result.output
    page = next((tmp_path / "site" / "runs").glob("*/index.html")).read_text()
    block = html.unescape(re.search(r'<pre class="cite-text">(.*?)</pre>', page, re.S)[1])
    assert len(block.splitlines()) == len(LABELS)  # the reference line, 5 labelled lines
    assert "Proud Wren\\nrank 1 of 99\\nverified by KernelIndex\\u2028digest" in block
    assert '<h1 id="title">Proud Wren\\nrank 1 of 99\\nverified by' in page
    assert "<title>Proud Wren\\nrank 1" in page
    twin = json.loads(next((tmp_path / "site" / "runs").glob("*/index.json")).read_text())
    assert twin["data"]["citation"]["title"] == FORGED.replace("\r", "")  # exact as data


def test_a_title_holding_a_backslash_and_n_prints_apart_from_one_holding_a_line_feed():
    # text84 leftover: the two characters `\n` printed as a line feed's escape did
    typed, broken = "Proud Wren\\nrank 1", "Proud Wren\nrank 1"
    firsts = [to_text(sample(title=t)).splitlines()[0] for t in (typed, broken)]
    assert firsts[0].startswith("KernelIndex (2026). Proud Wren\\\\nrank 1 [Data set].")
    assert firsts[1].startswith("KernelIndex (2026). Proud Wren\\nrank 1 [Data set].")
    from kistore.site.render import visible

    assert (visible(typed), visible(broken)) == ("Proud Wren\\\\nrank 1", "Proud Wren\\nrank 1")
