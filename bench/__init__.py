"""kistore's benchmark: speed and scale against git's own limits (issue 8).

Run ``python -m bench`` (or ``make bench``). It generates N synthetic manifests shaped like
the real imported data (:mod:`bench.generate`), measures kistore's add, single add, verify,
index and rank paths side by side with baselines in the same run (:mod:`bench.measure`),
prints a table and writes ``bench/results/<timestamp>.json`` (:mod:`bench.report`).
"""
