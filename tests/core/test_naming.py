"""kistore.core.naming: the external-id forms judged without a regex compiled per id."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core import naming
from kistore.core.naming import EXTERNAL_ID_NAMES, external_id_disagreement

_FORMS = [*EXTERNAL_ID_NAMES["sol-execbench"], r"run-{id}-x", r"{id}", r"a[0-9]*{id}", r"x-{id}"]
_TEXT = st.text(alphabet="sol-kernel0123456789submissionx.ab", max_size=30)


def _agrees_by_one_regex_per_id(form: str, ident: str, name: str) -> bool:
    """The judgement as written before: the form compiled with the id, per call."""
    return re.fullmatch(form.format(id=re.escape(ident)), name) is not None


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(_FORMS), _TEXT, _TEXT, st.booleans())
def test_a_form_agrees_as_the_regex_compiled_per_id_did(form, ident, rest, build):
    # build: a name made of the form's own pieces (mostly agreeing), else any text
    name = form.replace("[0-9]+", "17").replace("[0-9]*", "").format(id=ident) + rest[:1] \
        if build else rest
    assert naming._agrees(form, ident, name) == _agrees_by_one_regex_per_id(form, ident, name)


def test_a_run_named_after_its_external_id_agrees_and_another_does_not():
    spec = {"sourceNative": {"source": "sol-execbench", "externalId": "20464"}}
    for name in ("sol-submission-20464", "sol-kernel-7-submission-20464", "sol-local-20464"):
        assert external_id_disagreement(spec, name) is None, name
    for name in ("sol-submission-2046", "sol-submission-204644", "sol-kernel--submission-20464",
                 "xsol-submission-20464", "sol-local-20464x", "20464"):
        said = external_id_disagreement(spec, name)
        assert said is not None and "'sol-submission-20464'" in said, name
    assert external_id_disagreement({"sourceNative": {"source": "sol-execbench",
                                                      "externalId": ""}}, "sol-local-") is None


@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.text(max_size=12), st.text(alphabet="aZ09.-_ \u00e9", max_size=12),
                 st.integers()))
def test_an_external_id_is_its_slug(external):
    assert naming._ident(external) == naming.slug(external)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_FORMS), min_size=1, max_size=4, unique=True), _TEXT, _TEXT,
       st.integers(0, 3), st.booleans())
def test_the_heads_of_every_form_agree_as_each_form_does(forms, ident, rest, pick, build):
    """One fullmatch of the forms' heads (naming._any_head) answers as any(_agrees(...))."""
    form = forms[pick % len(forms)]
    name = form.replace("[0-9]+", "17").replace("[0-9]*", "").format(id=ident) + rest[:1] \
        if build else rest
    naming._HEADS.pop("test-source", None)
    heads = naming._any_head("test-source", tuple(forms))
    naming._HEADS.pop("test-source", None)
    if not all(f.endswith("{id}") for f in forms):
        assert heads is None  # judged form by form (_agrees)
        return
    assert heads is not None
    cut = len(name) - len(ident)
    said = cut >= 0 and name[cut:] == ident and heads.fullmatch(name, 0, cut) is not None
    assert said == any(_agrees_by_one_regex_per_id(f, ident, name) for f in forms)


def test_a_form_with_its_id_inside_is_judged_form_by_form():
    assert naming._any_head("test-inside", (r"run-{id}-x", r"x-{id}")) is None
    naming._HEADS.pop("test-inside", None)


def test_one_normal_form_of_an_id_shared_with_ki232():
    """reviewer r90 F1: KI209 and KI232 read one id alike (naming.record_id)."""
    assert [naming.record_id(x) for x in ("25504", 25504, "025504", "#25504", "0", "000")] \
        == ["25504", "25504", "25504", "25504", "0", "0"]
    assert naming.record_id("10-Concrete-View/Trial-1/15EC") == "10-concrete-view-trial-1-15ec"
    assert naming.record_id("007-a") == "007-a"  # not digits only: as slug says
    spec = {"sourceNative": {"source": "sol-execbench", "externalId": "025504"}}
    assert external_id_disagreement(spec, "sol-submission-25504") is None
    said = external_id_disagreement(spec, "sol-submission-025504")
    assert said is not None and "'sol-submission-25504'" in said


def test_the_source_is_read_folded():
    assert [naming.naming_source(x) for x in (
        "sol-execbench", "sol-exec-bench", "sol.execbench", "solexecbench", "SOL_ExecBench",
        "sol-execbench-v2", "flashinfer-trace", 7, None)] == [
        "sol-execbench"] * 5 + [None] * 4
    spec = {"sourceNative": {"source": "sol-exec-bench", "externalId": "25504"}}
    assert "'sol-submission-25504'" in external_id_disagreement(spec, "my-run")


def test_a_record_name_without_an_id_disagrees():
    """reviewer r90 F1: a name of the importer's form claims the record by itself."""
    for source in ("sol-execbench", "sol-exec-bench"):
        for name in ("sol-local-25504", "sol-submission-25504",
                     "sol-kernel-3-submission-25504x"):
            said = external_id_disagreement({"sourceNative": {"source": source}}, name)
            assert said is not None and "states no externalId" in said, (source, name)
            assert "'sol-local-ID'" in said
        # other names, or no claiming source: nothing to say
        assert external_id_disagreement({"sourceNative": {"source": source}},
                                        "sol-kernel-3-alice") is None
    assert external_id_disagreement({"sourceNative": {"source": "synthetic"}},
                                    "sol-local-25504") is None
