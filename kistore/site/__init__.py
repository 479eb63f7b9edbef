"""The static site people read (DESIGN §7b): one commit of the store as HTML and JSON.

``kistore site build OUT`` writes a run page per run, a leaderboard per comparison group,
a page per workload, per source and per run name, a compare page per run, an index, and a
JSON twin of every page; every page is a pure function of the commit it states.

Modules, in the order data flows: :mod:`.history` (when each source of a page last
changed), :mod:`.snapshot` (the store at one commit), :mod:`.citing` (cite blocks),
:mod:`.summary` (source-native summaries, numbers), :mod:`.pages` (which pages, and the
data of each), :mod:`.render` (jinja2, autoescaped), :mod:`.build` (writing, the cache,
verification), :mod:`.serve` (a local preview). Sits above :mod:`kistore.query` and
:mod:`kistore.cite`, below :mod:`kistore.cli`. Layout and fields: docs/site.md.
"""
