"""A title that prints as nothing is cited by the object's name, and ``cite`` says so.

fresh16 F8 left (fresh17 brief): a ``metadata.title`` of ``' '``, ``'\\u3164'``, ``'\\u2800'``
or ``''`` is prose, so KI104 takes it, and ``kistore cite`` printed an empty title (``Cite:
X (2026). . ...``; the text format's first line ``KernelIndex (2026).  [Data set]``).
:func:`kistore.cite.citation.cited_title` now puts the name there, by KI254's predicate
(:func:`kistore.core._plain_text.prints_as_nothing`), and the CLI warns on stderr.
"""

from __future__ import annotations

import datetime as dt

import pytest

from kistore.cite.citation import cite, short_citation
from kistore.store import Store

from .test_citation import RUN, add, commit_all, published_store, retitled_run, run_cli

NAME = "sol-submission-20464"


def _retitled(tmp_path, title: str):
    path, _c1 = published_store(tmp_path)
    add(path, retitled_run(tmp_path, title), update_metadata=True)
    commit_all(path, "retitle", day=3)
    return path


@pytest.mark.parametrize("title", ["", " ", "\u2800", "\u3164 \U0001d159", "\u200b\n"])
def test_a_blank_title_is_cited_by_the_name(tmp_path, title):
    path = _retitled(tmp_path, title)
    citation = cite(Store(path), "384a96d0", accessed=dt.date(2026, 11, 29))
    assert (citation.title, citation.blank_title) == (NAME, title)
    assert short_citation(Store(path), RUN).startswith(
        f"Cite: KernelIndex (2026). {NAME}. KernelIndex. https://")


@pytest.mark.parametrize("title", ["A title", "\u2800Proud Wren\u2800", "\u00e9"])
def test_a_title_with_a_letter_is_cited_as_it_is(tmp_path, title):
    path = _retitled(tmp_path, title)
    citation = cite(Store(path), "384a96d0", accessed=dt.date(2026, 11, 29))
    assert (citation.title, citation.blank_title) == (title, None)


@pytest.mark.parametrize(("title", "held"), [
    ("\u2800", "'\u2800' prints as nothing, holding only U+2800 BRAILLE PATTERN BLANK at "
               "character 1"),
    ("  ", "'  ' prints as nothing, holding only U+0020 SPACE at characters 1 and 2"),
    ("", "'' is empty"),
])
def test_cite_warns_that_it_names_the_object_by_its_name(runner, tmp_path, title, held):
    path = _retitled(tmp_path, title)
    result = run_cli(runner, path, "384a96d0", "--accessed", "2026-11-29")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith(
        f"KernelIndex (2026). {NAME} [Data set]. KernelIndex. https://github.com/")
    assert result.stderr.splitlines()[1:] == [  # [0]: on no remote-tracking branch
        f"warning: BenchmarkRun/{NAME}: its metadata.title {held}: the citation names it by "
        f"its name, {NAME}, instead; to cite it by a title, write one in visible characters "
        "in the manifest's metadata and `kistore add --update-metadata FILE`"]
    bibtex = run_cli(runner, path, "384a96d0", "--format", "bibtex", "--accessed", "2026-11-29")
    assert f"  title        = {{{{{NAME}}}}}," in bibtex.stdout.splitlines()
