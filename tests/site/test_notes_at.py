"""Every page names its notes commit beside its store commit, and `kistore site build OUT
--at X --notes-at N` writes it again byte for byte (fresh98 MED 1: a page listing the
notes' attestations named no notes commit, so one new note changed it "at" the same commit).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kistore.attest import signing
from kistore.cli import main
from kistore.core.errors import InputError
from kistore.core.layout import NOTES_REF
from kistore.site.build import BUILD_FILE, build_site, verify_site
from kistore.store import Store

from ..conftest import fixed_key, git

RUN = "runs/384a96d0ed687458/"  # the published record: it is attested below
RUN_REF = "BenchmarkRun/sol-submission-20464"


def _attest(runner, store: Store, key: Path, text: str) -> str:
    """Add one community note to the published run; return the new notes tip."""
    done = runner.invoke(main, ["--store", str(store.root), "attest", RUN_REF, "--type",
                                "note", "-m", text, "--key", str(key)])
    assert done.exit_code == 0, done.output
    return git(store.root, "rev-parse", NOTES_REF).strip()


def _page(out: Path, page: str) -> dict[str, bytes]:
    return {name: (out / page / name).read_bytes() for name in ("index.html", "index.json")}


def _twin(out: Path, page: str) -> dict:
    return json.loads((out / page / "index.json").read_text())


def _unnoted_run(out: Path) -> str:
    """A run page of the demo site whose group holds no attested run."""
    noted = {_twin(out, RUN)["data"]["links"]["group"]}
    for folder in sorted((out / "runs").iterdir()):
        twin = _twin(out, f"runs/{folder.name}/")
        if twin["data"]["links"]["group"] not in noted:
            return f"runs/{folder.name}/"
    raise AssertionError("every run is in the attested group")


@pytest.fixture
def key(tmp_path) -> Path:
    path = tmp_path / "k"
    path.write_bytes(signing.private_key_bytes(fixed_key(1)))
    return path


def test_a_page_names_its_notes_commit_and_that_pair_rebuilds_it(runner, fresh_demo, key,
                                                                 tmp_path):
    first = _attest(runner, fresh_demo, key, "first look")
    site = tmp_path / "site"
    build_site(fresh_demo, site)
    head = git(fresh_demo.root, "rev-parse", "HEAD").strip()
    twin = _twin(site, RUN)
    assert (twin["commit"], twin["notes"]) == (head, first)
    html = (site / RUN / "index.html").read_text()
    assert f'<meta name="kistore-notes" content="{first}">' in html
    assert f'<code class="commit" id="page-notes">{first}</code>' in html
    assert (f"<code>kistore site build OUT --at {head[:12]} --notes-at {first[:12]}</code> "
            "writes this page again, byte for byte") in html
    # a page showing no attested run names no notes commit: any notes, or none, rebuild it
    other = _unnoted_run(site)
    assert _twin(site, other)["notes"] is None
    assert "--notes-at none</code> writes this page again" in \
        (site / other / "index.html").read_text()
    assert _twin(site, "")["notes"] == first  # the index: the notes read
    before, untouched = _page(site, RUN), _page(site, other)

    # one more note, no commit: the page changes and says so (new notes commit, new row)
    second = _attest(runner, fresh_demo, key, "second look")
    report = build_site(fresh_demo, site)
    assert _page(site, RUN) != before
    assert (_twin(site, RUN)["commit"], _twin(site, RUN)["notes"]) == (head, second)
    assert _page(site, other) == untouched  # a page of no attested run is left alone
    assert f"{other}index.html" not in report.written
    assert json.loads((site / BUILD_FILE).read_text())["notes"] == second

    # the old pair writes the old page byte for byte; the new pair the new one
    old = tmp_path / "old"
    build_site(fresh_demo, old, notes_at=first[:12])
    assert _page(old, RUN) == before
    assert _page(old, other) == untouched
    new = tmp_path / "new"
    build_site(fresh_demo, new, notes_at=second)
    assert _page(new, RUN) == _page(site, RUN)
    none = tmp_path / "none"
    build_site(fresh_demo, none, notes_at="none")
    assert _page(none, other) == untouched and _twin(none, RUN)["notes"] is None


def test_verify_checks_the_notes_the_site_names(runner, fresh_demo, key, tmp_path):
    first = _attest(runner, fresh_demo, key, "first look")
    site = tmp_path / "site"
    build_site(fresh_demo, site)
    _attest(runner, fresh_demo, key, "second look")
    # the site is still exactly the build it says it is (its build.json names `first`)
    assert verify_site(fresh_demo, site)[1] == []
    # and against the notes now, the attested run's pages differ
    stale = verify_site(fresh_demo, site, notes_at=NOTES_REF)[1]
    assert {d.path for d in stale} >= {f"{RUN}index.html", f"{RUN}index.json"}
    result = runner.invoke(main, ["--store", str(fresh_demo.root), "site", "verify",
                                  str(site), "--notes-at", NOTES_REF])
    assert result.exit_code == 1
    head = git(fresh_demo.root, "rev-parse", "HEAD").strip()
    tip = git(fresh_demo.root, "rev-parse", NOTES_REF).strip()
    assert f"--at {head[:12]} --notes-at {tip[:12]} --full`" not in result.stderr  # as given
    assert f"--notes-at {NOTES_REF} --full`" in result.stderr
    assert first[:12] not in result.stderr


def test_notes_at_a_store_commit_is_refused(fresh_demo, tmp_path):
    with pytest.raises(InputError) as caught:
        build_site(fresh_demo, tmp_path / "site", notes_at="HEAD")
    assert "is not a notes commit (its tree holds '.gitattributes'" in caught.value.message
    assert not (tmp_path / "site").exists()


def test_cli_notes_at_builds_without_asking_the_remote(runner, fresh_demo, key, tmp_path):
    first = _attest(runner, fresh_demo, key, "first look")
    _attest(runner, fresh_demo, key, "second look")
    out = tmp_path / "page"
    result = runner.invoke(main, ["--store", str(fresh_demo.root), "site", "build", str(out),
                                  "--notes-at", first[:12]])
    assert result.exit_code == 0, result.output
    assert json.loads((out / BUILD_FILE).read_text())["notes"] == first
    assert _twin(out, RUN)["notes"] == first


def test_the_notes_walk_from_an_earlier_answer_equals_a_full_walk(runner, fresh_demo, key):
    from kistore.site.history import note_key, notes_changed

    first = _attest(runner, fresh_demo, key, "first look")
    second = _attest(runner, fresh_demo, key, "second look")
    repo = fresh_demo.repo
    earlier = notes_changed(repo, repo[first])
    full = notes_changed(repo, repo[second])
    assert notes_changed(repo, repo[second], earlier).keys == full.keys
    [(annotated, stamp)] = list(full.keys.items())  # one note, on the published run
    assert stamp[1] == second and earlier.keys[annotated][1] == first
    assert annotated == note_key(_object_blob(fresh_demo))


def _object_blob(store: Store) -> str:
    hexes = next(p.name for p in (store.root / "store/objects/sha256/38").iterdir()
                 if p.name.startswith("4a96d0ed687458"))
    return git(store.root, "rev-parse", f"HEAD:store/objects/sha256/38/{hexes}").strip()


def test_notes_at_a_commit_lacking_a_line_its_history_held_warns(runner, fresh_demo, key,
                                                                  tmp_path):
    """fresh01 F8: the note removed in one notes commit, added back in the next (pushed
    before the gate judged each notes commit): the middle one is built as asked, its
    pages naming it, with a warning that it lacks a line its history held."""
    _attest(runner, fresh_demo, key, "first look")
    blob = _object_blob(fresh_demo)
    note = git(fresh_demo.root, "notes", "--ref", "kistore", "show", blob)
    git(fresh_demo.root, "notes", "--ref", "kistore", "remove", blob)
    middle = git(fresh_demo.root, "rev-parse", NOTES_REF).strip()
    git(fresh_demo.root, "notes", "--ref", "kistore", "add", "-m", note.rstrip("\n"), blob)
    assert git(fresh_demo.root, "notes", "--ref", "kistore", "show", blob) == note

    report = build_site(fresh_demo, tmp_path / "middle", notes_at=middle)
    assert report.warnings[-1].startswith(
        f"--notes-at {middle}: notes commit {middle[:12]} lacks 1 attestation line(s) an "
        f"earlier notes commit of its history held: {RUN_REF} (1 line(s)). Notes "
        "only grow (KI408;"), report.warnings
    # read as asked: the run's page shows no note at it
    assert "first look" not in (tmp_path / "middle" / RUN / "index.html").read_text()
    done = runner.invoke(main, ["--store", str(fresh_demo.root), "site", "build",
                                str(tmp_path / "cli"), "--notes-at", middle[:12]])
    assert done.exit_code == 0, done.output
    assert f"warning: --notes-at {middle[:12]}: notes commit {middle[:12]} lacks 1 " \
        "attestation line(s)" in done.stderr
    tip = build_site(fresh_demo, tmp_path / "tip", notes_at="refs/notes/kistore")
    assert not any("--notes-at" in w for w in tip.warnings), tip.warnings
    assert "first look" in (tmp_path / "tip" / RUN / "index.html").read_text()
