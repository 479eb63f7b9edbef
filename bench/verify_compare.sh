#!/bin/bash
# Time `kistore verify` (work tree and --at HEAD) of one store, before and after a change,
# beside `sha256sum` over the same files (every file under store/: objects and metadata, as
# `find store -type f -print0 | xargs -0 sha256sum`), in the same run, fresh processes,
# ROUNDS rounds (default 3) alternating before / after; medians at the end.
#
# Usage: [ROUNDS=N] bench/verify_compare.sh STORE_REPO BEFORE_SRC [AFTER_SRC]
#   STORE_REPO  a store built by the bench generator, e.g. with
#               python -c "from bench.generate import write_jsonl; from pathlib import Path;
#                          write_jsonl(Path('all.jsonl'), 20000)"
#               split -n l/4 -d --additional-suffix=.jsonl all.jsonl part.
#               kistore init S; for p in part.0*.jsonl; do kistore --store S add --commit -m "$p" "$p"; done
#   BEFORE_SRC  a directory holding the old kistore/ and schemas/ (git archive main kistore schemas)
#   AFTER_SRC   the same for the new code (default: this checkout, as its .venv imports it);
#               a copy keeps the runs steady while the checkout is edited
#   PY (environment) the python to run (default: this checkout's .venv)
#   BEFORE_STORE (environment) the store the old code verifies, when it cannot read
#               STORE_REPO's layout (default STORE_REPO): the same manifests added by the
#               old code (its `kistore add`), e.g. before the names files (issue 22)
# Prints wall seconds, manifests/s (n = object files) and the ratio to sha256sum's rate (its
# wall time over verify's) for each run, and the CPU seconds (user + sys, workers included),
# which move less than wall time on a shared machine. Each round also times `sha256sum` of
# the object files only (the baseline of `make bench`'s verify row), wall and CPU; the
# medians end with both ratios, by wall time and by CPU time.
set -euo pipefail
store=$1 before=$2 after=${3:-}
before_store=${BEFORE_STORE:-$store}
here=$(cd "$(dirname "$0")/.." && pwd)
py=${PY:-$here/.venv/bin/python}
list=$(mktemp) objects=$(mktemp)
find "$store/store" -type f -print0 > "$list"
find "$store/store/objects" -type f -print0 > "$objects"
n=$(find "$store/store/objects" -type f | wc -l)
log=$(mktemp)
run='import os, sys
src = os.environ.get("KI_SRC")
if src:
    sys.path.insert(0, src)
from kistore.cli import main
assert not src or sys.modules["kistore"].__file__.startswith(src)
main()'
cpu=$(mktemp)
# t CMD...: print CMD's wall seconds; leave its CPU seconds (user + sys) in $cpu
t() {
  local s e
  s=$(date +%s.%N)
  /usr/bin/time -f "%U + %S" -o "$cpu" "$@" >/dev/null 2>&1 || true
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
c() { tail -1 "$cpu" | bc; }
for round in $(seq "${ROUNDS:-3}"); do
  sha=$(t xargs -0 -a "$list" sha256sum); shac=$(c)
  osha=$(t xargs -0 -a "$objects" sha256sum); oshac=$(c)
  printf "round %s sha256sum of the objects only: %.2fs (%.0f/s) cpu %.2fs; of every file: cpu %.2fs\n" \
    "$round" "$osha" "$(echo "$n/$osha" | bc -l)" "$oshac" "$shac"
  for at in "" "--at HEAD"; do
    # shellcheck disable=SC2086
    b=$(KI_SRC=$before t "$py" -c "$run" --store "$before_store" verify $at); bc_=$(c)
    # shellcheck disable=SC2086
    a=$(KI_SRC=$after t "$py" -c "$run" --store "$store" verify $at); ac=$(c)
    printf "round %s %-10s n=%s sha256sum %.2fs (%.0f/s) | before %.2fs (%.0f/s, %.3fx) cpu %.2fs | after %.2fs (%.0f/s, %.3fx) cpu %.2fs\n" \
      "$round" "${at:-worktree}" "$n" "$sha" "$(echo "$n/$sha" | bc -l)" \
      "$b" "$(echo "$n/$b" | bc -l)" "$(echo "$sha/$b" | bc -l)" "$bc_" \
      "$a" "$(echo "$n/$a" | bc -l)" "$(echo "$sha/$a" | bc -l)" "$ac"
    at_=${at:-worktree}; echo "${at_// /_} $sha $b $bc_ $a $ac $osha $oshac $shac" >> "$log"
  done
done
"$py" - "$log" "$n" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
n = int(sys.argv[2])
for at in dict.fromkeys(r[0] for r in rows):
    sha, b, bc, a, ac, osha, oshac, shac = (
        statistics.median(float(r[i]) for r in rows if r[0] == at) for i in range(1, 9))
    print(f"median {at:10s} sha256sum {sha:.2f}s | before {b:.2f}s ({n / b:.0f}/s, "
          f"{sha / b:.3f}x) cpu {bc:.2f}s | after {a:.2f}s ({n / a:.0f}/s, {sha / a:.3f}x) "
          f"cpu {ac:.2f}s | after/before wall {a / b:.2f} cpu {ac / bc:.2f}")
    print(f"median {at:10s} against sha256sum of the objects only ({osha:.2f}s, cpu "
          f"{oshac:.2f}s): before {osha / b:.3f}x wall, {oshac / bc:.3f}x cpu | after "
          f"{osha / a:.3f}x wall, {oshac / ac:.3f}x cpu (every file: cpu {shac:.2f}s)")
EOF
rm -f "$list" "$objects" "$cpu" "$log"
