"""The static site people read (docs/site.md): one commit of the store as HTML and JSON.

``kistore site build OUT`` writes a run page per run, a leaderboard per comparison group,
a page per workload, per source and per run name, a compare page per run, an index, and a
JSON twin of every page; every page is a pure function of the commit it states.

Modules, in the order data flows: :mod:`.history` (when each source of a page last
changed), :mod:`.snapshot` (the store at one commit), :mod:`.citing` (cite blocks),
:mod:`.summary` (source-native summaries, numbers), :mod:`.pages` (which pages, and the
data of each), :mod:`.render` (jinja2, autoescaped), :mod:`.build` (writing, the cache,
verification), :mod:`.install` (staging, the install as a commit point, its recovery),
:mod:`.serve` (a local preview). Sits above :mod:`kistore.query` and
:mod:`kistore.cite`, below :mod:`kistore.cli`. Layout and fields: docs/site.md.
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from .build import BuildReport as BuildReport
    from .build import Difference as Difference
    from .build import build_site as build_site
    from .build import read_build as read_build
    from .build import verify_site as verify_site
    from .serve import make_server as make_server
    from .serve import serve as serve

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "build": ["BuildReport", "Difference", "build_site", "read_build", "verify_site"],
    "serve": ["make_server", "serve"],
})
