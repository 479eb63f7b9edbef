"""The query layer (docs/design.md §6): comparison keys, ranks, the run page, the derived index.

Reads the store, never writes it (the derived SQLite index lives under ``.git/kistore/``
and is not part of the store). Modules, in the order data flows:

* :mod:`.comparison` -- the comparison key of a run (pure);
* :mod:`.policy` -- which comparison ranks a family (``store/policy/ranking.json``);
* :mod:`.ranking` -- competition ranking of one comparison group (pure);
* :mod:`.records` -- one row per manifest, derived from the store (pure);
* :mod:`.catalog` -- every row of a view: scanned from the store, or from the index;
* :mod:`.index` -- the SQLite index, kept in step with git trees;
* :mod:`.answers` -- ``rank`` and ``ls``; :mod:`.page` -- ``show`` and ``compare``.
"""
