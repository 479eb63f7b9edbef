"""Two builds into one new directory at once (r75 finding 17): said, never a raw OSError."""

from __future__ import annotations

from kistore.cli import main
from kistore.site import build as site_build
from kistore.site.build import build_site

from .conftest import build, files


def test_a_build_whose_new_directory_another_build_filled_says_so(runner, fresh_demo,
                                                                  tmp_path, monkeypatch):
    out = tmp_path / "site"
    real_install = site_build.install
    other: dict[str, dict[str, bytes]] = {}

    def install_after_another_build(staging, target, *args, **kwargs):
        # the other build starts later and installs first, while this one is staged
        monkeypatch.setattr(site_build, "install", real_install)
        build_site(fresh_demo, out)
        other["files"] = files(out)
        return real_install(staging, target, *args, **kwargs)

    monkeypatch.setattr(site_build, "install", install_after_another_build)
    result = build(runner, fresh_demo, out)
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"error: {out}: another `kistore site build` installed a site here while this one "
        "was building it (the directory was empty when this build began); nothing of this "
        "build was installed, and the directory holds that build's whole site. Run "
        f"`kistore site build {out}` again to bring it to this build's commit\n")
    assert "Directory not empty" not in result.output
    # the other build's site is whole, and this one left no staging directory behind
    assert files(out) == other["files"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "store"]
    verified = runner.invoke(main, ["--store", str(fresh_demo.root), "site", "verify",
                                    str(out)])
    assert verified.exit_code == 0, verified.output
