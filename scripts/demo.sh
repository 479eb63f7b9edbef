#!/usr/bin/env bash
# The main job: build a fresh store from the real public data and show a ranked result.
#
#   make demo            (or: bash scripts/demo.sh)
#
# Sets itself up (.venv via `make install` when missing), creates a fresh store in a temp
# directory, imports all three sources of shared/data (SOL-ExecBench leaderboard boards,
# FlashInfer Trace, KernelBench timing), then ranks one SOL-ExecBench board and shows one
# of its runs as the index page shows it. KISTORE_SHARED overrides where shared/ is.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
kistore="$here/.venv/bin/kistore"
[ -x "$kistore" ] || make -C "$here" install
shared="${KISTORE_SHARED:-$here/../shared}"
if [ ! -d "$shared/data" ]; then
  echo "demo: no real data at $shared/data; set KISTORE_SHARED=/path/to/shared" >&2
  exit 2
fi
demo="$(mktemp -d)/kistore-demo"

"$kistore" init "$demo"
for source in sol-execbench flashinfer-trace kernelbench; do
  echo "== kistore import $source"
  "$kistore" --store "$demo" import --commit "$source" "$shared/data/$source"
done

# Board 003_lm_head_projection_with_logit_slicing (kernel 3, B200, stack v1.1): the
# submission the board ranks 3rd.
run=BenchmarkRun/sol-kernel-3-submission-25504
echo "== kistore rank $run"
"$kistore" --store "$demo" rank "$run"
echo "== kistore show $run"
"$kistore" --store "$demo" show "$run"
echo "demo store: $demo"
